"""antimatroid (2012), "Minesweeper Agent": engine verification and the first models.

The blog checks its engine with two Pearson chi-squared tests on 9x9 with 10 mines,
then plays Random, Marginal, Conditional, Graphical and Semi-deterministic models on
9x9 with 1..10 mines. This module reproduces the checks and the Random / Marginal
success rates; each figure is one function named after it, run sizes as keyword
defaults, returning a `PaperResult` (figure, tidy table, measured rows for REPORT.md).

The blog's rules, from its pseudocode: mines are placed before the first click
(INITIALIZE-HIDDEN runs before the agent plays, so the first click can lose: our
`none` rule), and EXPOSE is a flood fill.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit
from scipy import stats as sps

from ..engine import as_generator, begin_game, new_game_state
from ..agents import make_agent
from ..sweep import derive_seed, grid, run_sweep, task_kind
from ..levels import Level
from ..stats import chi2_gof, wilson
from ..report import PaperResult

PAPER = "antimatroid2012"
NOTEBOOK = "antimatroid2012_agents.ipynb"
MODULE = __name__
BOARD = Level(9, 9, 10, "none")  # the blog's board and rule
MINE_COUNTS = tuple(range(1, 11))  # the success-rate figures' x axis
MODELS = ("random", "marginal")  # the models reproduced so far

# Run sizes per profile (the blog does not say how many games it played).
SIZES = {
    "smoke": {"boards": 4_000, "clicks_games": 4_000, "success_games": 400, "runs": 2},
    "quick": {"boards": 1_000_000, "clicks_games": 1_000_000, "success_games": 20_000, "runs": 8},
    "paper": {"boards": 10_000_000, "clicks_games": 10_000_000, "success_games": 100_000, "runs": 20},
}


# ---------------------------------------------------------------------- task kinds
@njit(cache=True)
def _mine_counts_kernel(gs, n_boards, rng, counts):
    mine = gs.mine
    for _ in range(n_boards):
        begin_game(gs, rng)  # rule NONE: the board is dealt here, before any click
        for i in range(mine.shape[0]):
            counts[i] += mine[i]


def _check_mine_counts(task):
    if Level.parse(task.get("level", "")).first_click != "none":
        raise ValueError("level must use the 'none' first-click rule (mines placed before any click)")
    n = task.get("n_boards")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n_boards must be a positive integer, got {n!r}")


# No agent plays here, only the engine deals: the random agent's golden playthrough pins
# the engine's dealing, so its digest stamps these files (an engine change recomputes them).
@task_kind("mine_counts", check=_check_mine_counts, agents=lambda params: ["random"])
def mine_counts_task(params: dict) -> pd.DataFrame:
    """How often each cell held a mine over n_boards fresh boards (one row per cell)."""
    level = Level.parse(params["level"])
    gs = new_game_state(level)
    rng = as_generator(params["seed"])
    counts = np.zeros(level.cells, np.int64)
    _mine_counts_kernel(gs, int(params["n_boards"]), rng, counts)
    rows, cols = np.divmod(np.arange(level.cells), level.cols)
    return pd.DataFrame({"row": rows, "col": cols, "mines": counts})


# ------------------------------------------------------------------------- figures
def check_mine_uniformity(boards: int = SIZES["quick"]["boards"], seed: int = 0, executor="processes",
                          tasks: int = 4, alpha: float = 0.05) -> PaperResult:
    """Chi-squared test that mines are uniform over the 81 cells of 9x9/10 (blog: k = 80).

    Under H0 each cell expects boards * 10/81 mines. Cells are not independent
    multinomial draws (every board has exactly 10 distinct mines), so Pearson's statistic
    has mean 81 * (1 - 10/81) = 71 here, not k = 80: the test is conservative, and the
    blog's 71.78 sits right at that mean. We report the statistic as the blog computes it.
    """
    import matplotlib.pyplot as plt

    per_task = _split(boards, tasks)
    sweep = []
    for chunk, n in enumerate(per_task):  # chunks of boards, each its own task and seed
        params = {"kind": "mine_counts", "module": MODULE, "level": str(BOARD), "n_boards": n, "chunk": chunk}
        sweep.append({**params, "seed": derive_seed(seed, params)})
    df = run_sweep(sweep, executor=executor, progress=False)
    counts = df.groupby(["row", "col"], as_index=False)["mines"].sum()
    total = int(sum(per_task))
    expected = np.full(BOARD.cells, total * BOARD.mines / BOARD.cells)
    test = chi2_gof(counts["mines"].to_numpy(), expected, alpha=alpha)
    freq = counts["mines"].to_numpy().reshape(BOARD.rows, BOARD.cols) / total

    fig, ax = plt.subplots(figsize=(5.2, 4.4))
    im = ax.imshow(freq, cmap="viridis")
    ax.set_title(f"Mine frequency per cell, {BOARD.rows}x{BOARD.cols}/{BOARD.mines}, {total:,} boards\n"
                 f"minelab: chi2 = {test['statistic']:.2f} (k = {test['dof']}, "
                 f"critical {test['critical']:.2f}, p = {test['p_value']:.3f})", fontsize=9)
    ax.set_xticks(range(BOARD.cols))
    ax.set_yticks(range(BOARD.rows))
    fig.colorbar(im, ax=ax, label=f"P(mine); expected {BOARD.mines / BOARD.cells:.4f}")
    fig.tight_layout()

    item = "Mine uniformity"
    measured = _chi2_rows(item, test, total)
    table = counts.assign(frequency=counts["mines"] / total, expected=BOARD.mines / BOARD.cells)
    return PaperResult("check_mine_uniformity", fig, table, measured)


def clicks_before_mine_law(level: Level = BOARD):
    """The law of safe clicks before the first mine when clicking uniformly at random
    without flood fill: negative hypergeometric (scipy.stats.nhypergeom: draw without
    replacement from `cells` balls, `safe_cells` of them counted, until r = 1 mine);
    support 0..safe cells (the last value is a win)."""
    return sps.nhypergeom(level.cells, level.safe_cells, 1)


def check_clicks_before_mine(games: int = SIZES["quick"]["clicks_games"], seed: int = 0,
                             executor="processes", alpha: float = 0.05, min_expected: float = 5.0) -> PaperResult:
    """Random clicks before a mine, without flood fill, against the hypergeometric law
    (blog: k = 70); the flood-fill distribution overlaid.

    Expected counts in the far tail are tiny (P(71 safe clicks) = 1/C(81,10)), so bins
    are pooled until each expects >= `min_expected` games, as Pearson's test requires.
    Our k therefore grows with the number of games; the blog's k = 70 (72 possible
    values) says it pooled almost nothing. Both k are reported.
    """
    import matplotlib.pyplot as plt

    sweep = grid({"kind": "play", "agent": "random", "level": str(BOARD), "n_games": games}, seeds=seed,
                 flood=[False, True])
    df = run_sweep(sweep, executor=executor, progress=False)
    support = np.arange(BOARD.safe_cells + 1)
    law = clicks_before_mine_law(BOARD)
    pmf = law.pmf(support)
    rows = []
    for flood, part in df.groupby("flood"):
        observed = np.bincount(part["safe_clicks"].to_numpy(), minlength=support.size)
        rows.append(pd.DataFrame({"flood": bool(flood), "safe_clicks": support, "observed": observed,
                                  "expected": pmf * len(part)}))
    table = pd.concat(rows, ignore_index=True)
    no_flood = table[~table["flood"]]
    test = chi2_gof(no_flood["observed"].to_numpy(), no_flood["expected"].to_numpy(), alpha=alpha,
                    min_expected=min_expected)

    fig, ax = plt.subplots(figsize=(7, 4))
    for flood, part in table.groupby("flood"):
        label = "minelab, flood fill" if flood else "minelab, no flood fill"
        ax.plot(part["safe_clicks"], part["observed"] / games, "o" if not flood else "s", ms=3.5,
                label=label, alpha=0.8)
    ax.plot(support, pmf, "k-", lw=1.2, label="negative hypergeometric law (no flood)")
    ax.set_yscale("log")
    ax.set_xlabel("safe clicks before the first mine")
    ax.set_ylabel("fraction of games")
    ax.set_title(f"Random clicks before a mine, {BOARD.rows}x{BOARD.cols}/{BOARD.mines}, {games:,} games each\n"
                 f"minelab (no flood): chi2 = {test['statistic']:.2f}, k = {test['dof']}, "
                 f"critical {test['critical']:.2f}, p = {test['p_value']:.3f}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    measured = _chi2_rows("Clicks before mine", test, games)
    return PaperResult("check_clicks_before_mine", fig, table, measured)


def fig_success_rates(games: int = SIZES["quick"]["success_games"], runs: int = SIZES["quick"]["runs"],
                      seed: int = 0, executor="processes", models=MODELS, mine_counts=MINE_COUNTS) -> PaperResult:
    """Success rate of each model on 9x9 with 1..10 mines, over `runs` independent runs
    of `games` games each, with 95% intervals.

    Run r of every model plays the very same boards (replicate seeds shared across
    models): a paired comparison. The Marginal model learns across the games of its run,
    as in the blog, so its games are not independent: its argmax settles on a near-fixed
    click order early in a run, and runs differ far more than a binomial allows (measured:
    0.44-0.54 at 2 mines over six runs of 20,000 games). A learner's interval is therefore
    the t-interval over runs; a non-learner's games are independent, so its interval is
    Wilson's over all its games. The table carries both.
    """
    import matplotlib.pyplot as plt

    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 2:
        raise ValueError(f"runs must be an integer >= 2 (the spread between runs is measured), got {runs!r}")
    levels = [str(Level(BOARD.rows, BOARD.cols, m, BOARD.first_click)) for m in mine_counts]
    run_seeds = [int(x) for x in np.random.SeedSequence(seed).generate_state(runs, np.uint32)]
    sweep = grid({"kind": "play", "n_games": games}, seeds=run_seeds, agent=list(models), level=levels)
    df = run_sweep(sweep, executor=executor, progress=False)
    table = success_table(df)
    learners = {m for m in models if make_agent(m).learns}

    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (agent, part) in enumerate(table.groupby("agent", sort=False)):
        lo, hi = (part["runs_ci_low"], part["runs_ci_high"]) if agent in learners else (part["ci_low"], part["ci_high"])
        x = part["mines"] + (i - (len(models) - 1) / 2) * 0.12
        interval = "t over runs" if agent in learners else "Wilson"
        err = [(part["win_rate"] - lo).clip(lower=0), (hi - part["win_rate"]).clip(lower=0)]
        ax.errorbar(x, part["win_rate"], yerr=err,
                    fmt="o-", ms=4, capsize=2, label=f"minelab {agent} (95% CI: {interval})")
    ax.set_xlabel(f"mines on a {BOARD.rows}x{BOARD.cols} board (mines placed before the first click)")
    ax.set_ylabel("success rate")
    ax.set_yscale("log")
    ax.set_title(f"Random and Marginal models, {runs} runs x {games:,} games per point\n"
                 f"(published: figure only, no numbers in the blog's text)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    measured = []
    for r in table.itertuples():
        learner = r.agent in learners
        measured.append({
            "item": f"{r.agent.capitalize()} model", "quantity": f"success rate, {int(r.mines)} mines",
            "value": r.win_rate, "games": int(r.games),
            "ci_low": r.runs_ci_low if learner else r.ci_low, "ci_high": r.runs_ci_high if learner else r.ci_high,
            "note": f"95% t-interval over {r.runs} runs (a learner's games share its state)" if learner
                    else f"95% Wilson interval; {r.runs} runs pooled"})
    return PaperResult("fig_success_rates", fig, table, measured)


def success_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per (agent, level): games, wins, pooled win rate with its Wilson interval, and the
    spread between runs (seeds): mean, standard deviation, 95% t-interval of the run means."""
    out = []
    for (agent, level), part in df.groupby(["agent", "level"], sort=False):
        wins, n = int(part["won"].sum()), len(part)
        low, high = wilson(wins, n)
        per_run = part.groupby("seed")["won"].mean().to_numpy()
        k = per_run.size
        sd = float(per_run.std(ddof=1)) if k > 1 else float("nan")
        half = float(sps.t.ppf(0.975, k - 1) * sd / np.sqrt(k)) if k > 1 else float("nan")
        out.append({"agent": agent, "level": level, "mines": Level.parse(level).mines, "games": n,
                    "wins": wins, "win_rate": wins / n, "ci_low": low, "ci_high": high, "runs": k,
                    "runs_sd": sd, "runs_ci_low": max(0.0, wins / n - half), "runs_ci_high": min(1.0, wins / n + half)})
    return pd.DataFrame(out).sort_values(["agent", "mines"], kind="stable").reset_index(drop=True)


# ------------------------------------------------------------------------- helpers
def _split(total: int, parts: int) -> list[int]:
    if isinstance(total, bool) or not isinstance(total, int) or total < 1:
        raise ValueError(f"boards must be a positive integer, got {total!r}")
    parts = max(1, min(int(parts), total))
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _chi2_rows(item: str, test: dict, games: int) -> list[dict]:
    note = f"alpha = {test['alpha']}; p = {test['p_value']:.4f}"
    return [
        {"item": item, "quantity": "chi2 statistic", "value": test["statistic"], "games": games, "note": note},
        {"item": item, "quantity": "chi2 critical 0.05", "value": test["critical"], "games": games},
        {"item": item, "quantity": "degrees of freedom", "value": test["dof"], "games": games},
    ]


# ------------------------------------------------------------------------- texts
# The notebook's commentary, built from the measured data: every number and every
# verdict below is computed from the result and data/published/antimatroid2012.csv.
def _published(item: str) -> dict:
    from .. import report

    pub = report.load_published(PAPER)
    return dict(zip(pub.loc[pub["item"] == item, "quantity"], pub.loc[pub["item"] == item, "value"]))


def _by_quantity(result: PaperResult) -> dict:
    return {m["quantity"]: m for m in result.measured}


def _test_verdict(statistic: float, critical: float, what: str) -> str:
    if statistic <= critical:
        return f"below the critical value: {what} is not rejected at alpha = 0.05"
    return f"above the critical value: {what} is rejected at alpha = 0.05"


def uniformity_text(result: PaperResult) -> str:
    """Markdown commentary of `check_mine_uniformity`: our statistic and the blog's against
    the statistic's true mean and spread on a board with a fixed number of mines."""
    ours, blog = _by_quantity(result), _published("Mine uniformity")
    stat, crit = ours["chi2 statistic"]["value"], ours["chi2 critical 0.05"]["value"]
    k, boards = int(ours["degrees of freedom"]["value"]), int(ours["chi2 statistic"]["games"])
    cells, mines = BOARD.cells, BOARD.mines
    scale = (cells - mines) / (cells - 1)  # the statistic is ~ scale * chi2(cells - 1)
    mean, sd = scale * (cells - 1), scale * float(np.sqrt(2 * (cells - 1)))
    p_value = float(sps.chi2.sf(stat, k))

    def near(x):
        z = (x - mean) / sd
        return (f"{x - mean:+.2f} from that mean ({abs(z):.1f} standard deviations: "
                f"{'well within' if abs(z) < 1 else 'within' if abs(z) < 2 else 'outside'} the usual spread)")

    lines = [
        f"Pearson's statistic here has mean {cells} x (1 - {mines}/{cells}) = {mean:g} under uniformity, not "
        f"k = {int(blog['degrees of freedom'])}: every board holds exactly {mines} distinct mines, so cell counts "
        f"are not independent multinomial draws. For many boards the statistic is about {cells - mines}/{cells - 1} "
        f"times a chi-squared with {cells - 1} degrees of freedom (standard deviation {sd:.1f}), so the test "
        "against the chi-squared quantile is conservative.",
        "",
        f"* **minelab**, {boards:,} boards: chi2 = {stat:.2f} (k = {k}, critical {crit:.2f}, p = {p_value:.3f}), "
        f"{_test_verdict(stat, crit, 'uniformity')}; {near(stat)}.",
        f"* **the blog** (published): chi2 = {blog['chi2 statistic']:g} (k = {int(blog['degrees of freedom'])}, "
        f"critical {blog['chi2 critical 0.05']:g}), "
        f"{_test_verdict(blog['chi2 statistic'], blog['chi2 critical 0.05'], 'uniformity')}; "
        f"{near(blog['chi2 statistic'])}.",
    ]
    return "\n".join(lines)


def clicks_text(result: PaperResult) -> str:
    """Markdown commentary of `check_clicks_before_mine`: the test's verdicts and how much
    each side pooled the tail (k against the possible number of values)."""
    ours, blog = _by_quantity(result), _published("Clicks before mine")
    stat, crit = ours["chi2 statistic"]["value"], ours["chi2 critical 0.05"]["value"]
    k, games = int(ours["degrees of freedom"]["value"]), int(ours["chi2 statistic"]["games"])
    k_blog = int(blog["degrees of freedom"])
    values = BOARD.safe_cells + 1  # 0 .. safe cells safe clicks
    p_value = float(sps.chi2.sf(stat, k))

    def pooled(dof):
        return f"the {values} possible values in {dof + 1} bins"

    blog_pooled = values - (k_blog + 1)
    return "\n".join([
        "Tail bins whose expected count is below 5 are pooled (Pearson's test needs it); k therefore depends on "
        "the number of games.",
        "",
        f"* **minelab**, {games:,} games without flood fill: chi2 = {stat:.2f}, k = {k} ({pooled(k)}), critical "
        f"{crit:.2f}, p = {p_value:.3f}: {_test_verdict(stat, crit, 'the hypergeometric law')}.",
        f"* **the blog** (published): chi2 = {blog['chi2 statistic']:g}, k = {k_blog} ({pooled(k_blog)}), critical "
        f"{blog['chi2 critical 0.05']:g}: "
        f"{_test_verdict(blog['chi2 statistic'], blog['chi2 critical 0.05'], 'the hypergeometric law')}. "
        f"Its k suggests it pooled {'little' if blog_pooled <= 2 else 'much'} of the tail.",
    ])


def success_rates_text(result: PaperResult) -> str:
    """Markdown commentary of `fig_success_rates`: why the Marginal model's intervals are
    taken over runs, with the spread between runs and the Random-vs-Marginal comparison
    computed from the result's table."""
    t = result.table
    runs = int(t["runs"].iloc[0])

    def spread(agent):
        part = t[t["agent"] == agent]
        per_run = part["games"] / part["runs"]
        binomial = np.sqrt(part["win_rate"] * (1 - part["win_rate"]) / per_run)
        ratio = (part["runs_sd"] / binomial).replace([np.inf, -np.inf], np.nan)
        return float(ratio.max()) if ratio.notna().any() else float("nan")

    lines = [
        "Mines are uniform, so the Marginal model's empirical avoidance carries no information about the current "
        "board: the blog expects it to match Random. What it does carry is *memory*: its argmax settles on a "
        "near-fixed click order early in a run, so its games are not independent and whole runs can differ far "
        "more than a binomial interval admits. Its intervals are therefore t-intervals over independent runs "
        "(`runs_sd` in the table shows the spread); Random's games are independent and get Wilson intervals. "
        f"Run r of both models plays the same boards ({runs} runs here).",
        "",
    ]
    if {"random", "marginal"} <= set(t["agent"]):
        m_ratio, r_ratio = spread("marginal"), spread("random")
        if np.isnan(m_ratio):
            lines.append("* **Spread between runs**: not measurable here (no win in some runs' points).")
        else:
            verdict = ("far more than" if m_ratio > 2 * max(r_ratio, 1.0) else
                       "more than" if m_ratio > max(r_ratio, 1.0) else "no more than")
            lines.append(f"* **Spread between runs**: at its worst mine count the Marginal model's runs spread "
                         f"{m_ratio:.1f} times the binomial standard deviation of one run, Random's {r_ratio:.1f} "
                         f"times: Marginal's runs differ {verdict} a binomial interval admits.")
        rnd = t[t["agent"] == "random"].set_index("mines")
        mar = t[t["agent"] == "marginal"].set_index("mines")
        common = [m for m in rnd.index if m in mar.index]
        outside = [m for m in common if not (mar.loc[m, "runs_ci_low"] <= rnd.loc[m, "win_rate"]
                                             <= mar.loc[m, "runs_ci_high"])]
        verdict = ("as the blog expects" if not outside else
                   f"outside it with {', '.join(str(int(m)) for m in outside)} mines")
        lines.append(f"* **Random vs Marginal**: Random's success rate lies inside Marginal's t-interval at "
                     f"{len(common) - len(outside)} of {len(common)} mine counts ({verdict}).")
    return "\n".join(lines)
