"""antimatroid (2012), "Minesweeper Agent": engine verification and the blog's models.

The blog checks its engine with two Pearson chi-squared tests on 9x9 with 10 mines,
then plays Random, Marginal, Conditional, Graphical and Semi-deterministic models on
9x9 with 1..10 mines. This module reproduces the checks and the success rates of all
five models (minelab.agents.marginal and minelab.agents.blog say how each reads the
blog's pseudocode), plus the Semi-deterministic model with the Conditional model as its
fallback; each figure is one function named after it, run sizes as keyword defaults,
returning a `PaperResult` (figure, tidy table, measured rows for REPORT.md).
`claims_text` checks the blog's comparative claims against the measured table (the
blog gives its success rates as figures only: no published numbers).

The blog's rules, from its pseudocode: mines are placed before the first click
(INITIALIZE-HIDDEN runs before the agent plays, so the first click can lose: our
`none` rule), and EXPOSE is a flood fill.

A chi-squared statistic is a random draw, so its measured row carries as interval the
central 95% range of the statistic's law under the null: a published statistic inside
it "agrees" in the sense that both tests behave as the null predicts (the blog states
neither its board count nor its game count). The uniformity statistic's law is
(71/80) x chi2(80) (every board holds exactly 10 mines), the pooled clicks statistic's
chi2(k). The blog's clicks test has k = 70: one bin per number of safe clicks before a
mine, 0..70, none pooled; minelab pools the tail (k = 52 at 10^6 games) and measures the
blog's binning beside it on the same games (variant BLOG_BINS, its null range by Monte
Carlo: chi2(70) does not hold where bins expect far less than one game). The blog's
uniformity critical value, 101.87, is chi2.ppf(0.95, 80) = 101.8795 cut to two decimals
(variant TRUNCATED: a reading of its printing, post hoc).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd
from numba import njit
from scipy import stats as sps

from ..engine import as_generator, begin_game, new_game_state
from ..agents import make_agent
from ..sweep import derive_seed, grid, run_sweep, task_kind, task_rows
from ..levels import Level
from ..stats import chi2_gof, wilson
from ..ledger import AGREES, BOUND_MET
from ..report import PaperResult
from . import judged_lines, ledger_rows, tally

PAPER = "antimatroid2012"
NOTEBOOK = "antimatroid2012_agents.ipynb"
MODULE = __name__
BOARD = Level(9, 9, 10, "none")  # the blog's board and rule
MINE_COUNTS = tuple(range(1, 11))  # the success-rate figures' x axis
# The models of the success-rate figure: the blog's five, then the Semi-deterministic model
# with the Conditional model as its fallback (the blog leaves the fallback open). A label
# is a registered agent name, or a name in MODEL_AGENTS: (agent, its parameters).
MODELS = ("random", "marginal", "conditional", "graphical", "semi-deterministic", "semi-deterministic/conditional")
MODEL_AGENTS = {"semi-deterministic/conditional": ("semi-deterministic", {"fallback": "conditional"})}
MODEL_NAMES = {"random": "Random", "marginal": "Marginal", "conditional": "Conditional", "graphical": "Graphical",
               "semi-deterministic": "Semi-deterministic",
               "semi-deterministic/conditional": "Semi-deterministic (conditional fallback)"}

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
    low, high = uniformity_null_range()
    measured = _chi2_rows(item, test, total, null=(low, high), null_note=(
        f"interval: the central 95% range of the statistic under uniformity, {UNIFORMITY_SCALE:g} x chi2("
        f"{BOARD.cells - 1}) (every board holds exactly {BOARD.mines} distinct mines; plain chi2({test['dof']}): "
        f"{sps.chi2.ppf(0.025, test['dof']):.2f}-{sps.chi2.ppf(0.975, test['dof']):.2f}); a statistic inside it "
        "behaves as the null predicts"))
    measured.append({"item": item, "quantity": f"chi2 critical 0.05 [variant: {TRUNCATED}]",
                     "value": math.floor(test["critical"] * 100) / 100, "games": total,
                     "note": f"the same critical value, {test['critical']:.4f}, cut (not rounded) to the blog's two "
                             "decimals: a reading of how the blog printed it, not of its test"})
    table = counts.assign(frequency=counts["mines"] / total, expected=BOARD.mines / BOARD.cells)
    return PaperResult("check_mine_uniformity", fig, table, measured)


# The statistic of the uniformity check is about UNIFORMITY_SCALE x chi2(cells - 1) under
# uniformity (boards of exactly `mines` distinct mines: see check_mine_uniformity).
UNIFORMITY_SCALE = (BOARD.cells - BOARD.mines) / (BOARD.cells - 1)
TRUNCATED = "printed truncated to two decimals"
BLOG_BINS = "the blog's bins: one per count 0..70, no pooling"
NULL_DRAWS = 20_000  # Monte Carlo draws of the unpooled statistic under the law


def uniformity_null_range(level: Level = BOARD, coverage: float = 0.95) -> tuple[float, float]:
    """The central `coverage` range of the uniformity statistic under uniformity:
    (cells - mines) / (cells - 1) x chi2(cells - 1), the limit for many boards.

        >>> [round(x, 2) for x in uniformity_null_range()]
        [50.72, 94.63]
    """
    scale = (level.cells - level.mines) / (level.cells - 1)
    tail = (1 - coverage) / 2
    return (float(scale * sps.chi2.ppf(tail, level.cells - 1)), float(scale * sps.chi2.ppf(1 - tail, level.cells - 1)))


def chi2_null_range(dof: int, coverage: float = 0.95) -> tuple[float, float]:
    """The central `coverage` range of chi2(dof): where a Pearson statistic with enough
    expected counts per bin falls under the null."""
    tail = (1 - coverage) / 2
    return float(sps.chi2.ppf(tail, dof)), float(sps.chi2.ppf(1 - tail, dof))


def monte_carlo_null(probs, games: int, draws: int = NULL_DRAWS, seed=0) -> np.ndarray:
    """`draws` values of Pearson's statistic over bins of probabilities `probs` when
    `games` games follow that law (multinomial draws): the statistic's null distribution
    where expected counts are too small for the chi-squared approximation."""
    p = np.asarray(probs, float)
    p = p / p.sum()
    rng = np.random.default_rng(seed)
    expected = games * p
    stats = np.empty(draws)
    for start in range(0, draws, 2_000):  # blocks bound the memory
        x = rng.multinomial(games, p, size=min(2_000, draws - start))
        stats[start:start + len(x)] = ((x - expected) ** 2 / expected).sum(axis=1)
    return stats


def central_range(draws: np.ndarray, coverage: float = 0.95) -> tuple[float, float]:
    """The central `coverage` range of a sample (its percentiles)."""
    tail = 100 * (1 - coverage) / 2
    low, high = np.percentile(draws, [tail, 100 - tail])
    return float(low), float(high)


def blog_bins(observed, expected) -> tuple[np.ndarray, np.ndarray]:
    """The blog's binning of the clicks-before-mine counts (support 0..safe cells):
    one bin per number of safe clicks before the mine, 0..safe cells - 1 (the blog's
    k = 70 on 9x9/10 is 71 bins), none pooled; the last value (every safe cell
    clicked: a win, no mine exposed, probability 1/C(81, 10)) joins the last bin."""
    o, e = np.asarray(observed, float), np.asarray(expected, float)
    return np.r_[o[:-2], o[-2:].sum()], np.r_[e[:-2], e[-2:].sum()]


def clicks_before_mine_law(level: Level = BOARD):
    """The law of safe clicks before the first mine when clicking uniformly at random
    without flood fill: negative hypergeometric (scipy.stats.nhypergeom: draw without
    replacement from `cells` balls, `safe_cells` of them counted, until r = 1 mine);
    support 0..safe cells (the last value is a win)."""
    return sps.nhypergeom(level.cells, level.safe_cells, 1)


def check_clicks_before_mine(games: int = SIZES["quick"]["clicks_games"], seed: int = 0,
                             executor="processes", alpha: float = 0.05, min_expected: float = 5.0,
                             null_draws: int = NULL_DRAWS) -> PaperResult:
    """Random clicks before a mine, without flood fill, against the hypergeometric law
    (blog: k = 70); the flood-fill distribution overlaid.

    Expected counts in the far tail are tiny (P(71 safe clicks) = 1/C(81,10)), so bins
    are pooled until each expects >= `min_expected` games, as Pearson's test requires.
    Our k therefore grows with the number of games. The blog's k = 70 is one bin per
    number of safe clicks before a mine, 0..70, none pooled (`blog_bins`): that test is
    measured beside, on the same games, as the variant BLOG_BINS. Without pooling the
    statistic is not chi2(70)-distributed (most tail bins expect far less than one game),
    so its null range is drawn by Monte Carlo (`null_draws` multinomial draws of `games`
    games under the law, seeded by `seed`); the pooled statistic's is chi2(k)'s.
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
    item = "Clicks before mine"
    measured = _chi2_rows(item, test, games, null=chi2_null_range(test["dof"]), agents="random", null_note=(
        f"interval: the central 95% range of chi2({test['dof']}), the statistic's law under the null with every "
        f"bin expecting >= {min_expected:g} games; a statistic inside it behaves as the null predicts"))
    obs, exp = blog_bins(no_flood["observed"].to_numpy(), no_flood["expected"].to_numpy())
    blog = chi2_gof(obs, exp, alpha=alpha)
    draws = monte_carlo_null(exp, int(obs.sum()), draws=null_draws, seed=derive_seed(seed, {"null": BLOG_BINS}))
    low, high = central_range(draws)
    blog["p_value"] = float((draws >= blog["statistic"]).mean())  # chi2(70)'s p does not apply here
    measured += _chi2_rows(item, blog, games, null=(low, high), variant=BLOG_BINS, agents="random", null_note=(
        f"p and interval by Monte Carlo: the central 95% range of the unpooled statistic under the law, from "
        f"{null_draws:,} multinomial draws of {int(obs.sum()):,} games (chi2({blog['dof']})'s, "
        f"{sps.chi2.ppf(0.025, blog['dof']):.2f}-{sps.chi2.ppf(0.975, blog['dof']):.2f}, does not apply: most tail "
        "bins expect far less than one game); the range depends on the number of games, which the blog does not "
        "state"))
    return PaperResult("check_clicks_before_mine", fig, table, measured)


def model_agent(model: str) -> tuple[str, dict]:
    """(agent name, parameters) of a figure's model label (see MODELS)."""
    if model in MODEL_AGENTS:
        agent, params = MODEL_AGENTS[model]
        return agent, dict(params)
    return model, {}


def model_name(model: str) -> str:
    """The display name of a model label ("Semi-deterministic (conditional fallback)")."""
    return MODEL_NAMES.get(model, model.capitalize())


def _success_tasks(models, mine_counts, games: int, run_seeds: list[int]) -> list[dict]:
    levels = [str(Level(BOARD.rows, BOARD.cols, m, BOARD.first_click)) for m in mine_counts]
    tasks = []
    for model in models:
        agent, params = model_agent(model)
        for level in levels:
            for s in run_seeds:
                task = {"kind": "play", "n_games": games, "agent": agent, "level": level, "seed": s}
                if params:
                    task["agent_params"] = params
                tasks.append(task)
    return tasks


def _label_models(df: pd.DataFrame, models) -> pd.DataFrame:
    """df with a `model` column: the label of the (agent, parameters) each row was played by."""
    has_params = "agent_params" in df.columns
    label = pd.Series(pd.NA, index=df.index, dtype="object")
    for model in models:
        agent, params = model_agent(model)
        if params:
            mask = task_rows(df, {"agent": agent, "agent_params": params}).index
        else:
            plain = df["agent"].eq(agent)
            if has_params:
                plain &= df["agent_params"].isna()
            mask = df.index[plain.to_numpy()]
        label.loc[mask] = model
    return df.assign(model=label)


def fig_success_rates(games: int = SIZES["quick"]["success_games"], runs: int = SIZES["quick"]["runs"],
                      seed: int = 0, executor="processes", models=MODELS, mine_counts=MINE_COUNTS) -> PaperResult:
    """Success rate of each model on 9x9 with 1..10 mines, over `runs` independent runs
    of `games` games each, with 95% intervals.

    Run r of every model plays the very same boards (replicate seeds shared across
    models): a paired comparison. The learners (Marginal, Conditional, Graphical, and the
    Semi-deterministic model with the Conditional fallback) learn across the games of
    their run, as in the blog, so their games are not independent and a run's mean
    depends on its length: the Marginal model's argmax settles on a near-fixed click order
    early in a run, and its runs differ far more than a binomial allows (measured:
    0.44-0.54 at 2 mines over six runs of 20,000 games). A learner's interval is therefore
    the t-interval over runs; a non-learner's games are independent, so its interval is
    Wilson's over all its games. The table carries both, and `learner`.
    """
    import matplotlib.pyplot as plt

    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 2:
        raise ValueError(f"runs must be an integer >= 2 (the spread between runs is measured), got {runs!r}")
    models = tuple(models)
    agents = {m: make_agent(model_agent(m)[0], **model_agent(m)[1]) for m in models}  # ValueError on a bad model
    run_seeds = [int(x) for x in np.random.SeedSequence(seed).generate_state(runs, np.uint32)]
    parts = []
    for model in models:  # one model's games at a time: all per-game rows at once would be millions
        df = run_sweep(_success_tasks((model,), mine_counts, games, run_seeds), executor=executor, progress=False)
        parts.append(success_table(_label_models(df, (model,))))
        del df
    table = pd.concat(parts, ignore_index=True)
    table["learner"] = table["model"].map(lambda m: bool(agents[m].learns))

    fig, ax = plt.subplots(figsize=(8, 4.8))
    for i, model in enumerate(models):
        part = table[table["model"] == model]
        learner = bool(part["learner"].iloc[0])
        lo, hi = (part["runs_ci_low"], part["runs_ci_high"]) if learner else (part["ci_low"], part["ci_high"])
        x = part["mines"] + (i - (len(models) - 1) / 2) * 0.08
        err = [(part["win_rate"] - lo).clip(lower=0), (hi - part["win_rate"]).clip(lower=0)]
        ax.errorbar(x, part["win_rate"], yerr=err, fmt="o-", ms=3.5, capsize=2, lw=1.2,
                    label=f"minelab {model_name(model)} (95% CI: {'t over runs' if learner else 'Wilson'})")
    ax.set_xlabel(f"mines on a {BOARD.rows}x{BOARD.cols} board (mines placed before the first click)")
    ax.set_ylabel("success rate")
    ax.set_yscale("log")
    ax.set_xticks(list(mine_counts))
    ax.set_title(f"The blog's models, {runs} runs x {games:,} games per point (learners learn within a run)\n"
                 f"(published: figures only, no numbers in the blog's text)", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return PaperResult("fig_success_rates", fig, table, _success_measured(table))


def _success_measured(table: pd.DataFrame) -> list[dict]:
    measured = []
    for r in table.itertuples():
        measured.append({
            "item": f"{model_name(r.model)} model", "quantity": f"success rate, {int(r.mines)} mines",
            "value": r.win_rate, "games": int(r.games),
            "ci_low": r.runs_ci_low if r.learner else r.ci_low, "ci_high": r.runs_ci_high if r.learner else r.ci_high,
            "note": f"95% t-interval over {r.runs} runs (a learner's games share its state)" if r.learner
                    else f"95% Wilson interval; {r.runs} runs pooled", "agents": r.agent})
    measured += _argmax_measured(table)
    return measured


# The blog's "most notable" improvements (its closing discussion): (item, model a, model b,
# quantity). The Semi-deterministic model's fallback is left open by the blog: the
# Conditional fallback is measured beside as a variant.
ARGMAX_GAINS = (
    ("Conditional model", "conditional", "marginal",
     "mine count with the largest success-rate gain over the Marginal model"),
    ("Semi-deterministic model", "semi-deterministic", "graphical",
     "mine count with the largest success-rate gain over the Graphical model"),
    ("Semi-deterministic model", "semi-deterministic/conditional", "graphical",
     "mine count with the largest success-rate gain over the Graphical model [variant: the Conditional model as its "
     "fallback]"),
)


def largest_gain(table: pd.DataFrame, a: str, b: str) -> tuple[int, int, int] | None:
    """(mine count where model a's success rate exceeds model b's the most, lowest and
    highest mine count not excluded from being it), None when a pair is missing. A mine
    count is excluded when its gain's 95% interval (`differences`) lies wholly below the
    interval of the largest gain."""
    ds = differences(table, a, b) if {a, b} <= set(table["model"]) else []
    if not ds:
        return None
    top = max(ds, key=lambda d: d.diff)
    near = [d.mines for d in ds if d.high >= top.low]
    return top.mines, min(near), max(near)


def _argmax_measured(table: pd.DataFrame) -> list[dict]:
    rows = []
    for item, a, b, quantity in ARGMAX_GAINS:
        got = largest_gain(table, a, b)
        if got is None:
            continue
        top, low, high = got
        runs = int(table["runs"].iloc[0])
        rows.append({"item": item, "quantity": quantity, "value": top, "ci_low": low, "ci_high": high,
                     "games": int(table.loc[table["model"] == a, "games"].sum()),
                     "note": f"argmax over mine counts {_mines_list(sorted(table['mines'].unique()))} of "
                             f"{model_name(a)} minus {model_name(b)}; interval: the mine counts whose gain's 95% "
                             f"interval reaches the largest gain's ({runs} runs per point, paired boards)",
                     "agents": [model_agent(a)[0], model_agent(b)[0]]})
    return rows


def success_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per (model, level): the agent, games, wins, pooled win rate with its Wilson interval,
    the spread between runs (seeds): mean, standard deviation, 95% t-interval of the run
    means; and the mean of `guesses` per game where the agent records it (NaN otherwise).
    Without a `model` column, the model is the agent."""
    if "model" not in df.columns:
        df = df.assign(model=df["agent"])
    out = []
    for (model, level), part in df.groupby(["model", "level"], sort=False):
        wins, n = int(part["won"].sum()), len(part)
        low, high = wilson(wins, n)
        per_run = part.groupby("seed")["won"].mean().to_numpy()
        k = per_run.size
        sd = float(per_run.std(ddof=1)) if k > 1 else float("nan")
        half = float(sps.t.ppf(0.975, k - 1) * sd / np.sqrt(k)) if k > 1 else float("nan")
        guesses = float(part["guesses"].mean()) if "guesses" in part and part["guesses"].notna().any() else np.nan
        out.append({"model": model, "agent": part["agent"].iloc[0], "level": level, "mines": Level.parse(level).mines,
                    "games": n, "wins": wins, "win_rate": wins / n, "ci_low": low, "ci_high": high, "runs": k,
                    "runs_sd": sd, "runs_ci_low": max(0.0, wins / n - half), "runs_ci_high": min(1.0, wins / n + half),
                    "guesses": guesses})
    order = {m: i for i, m in enumerate(dict.fromkeys(df["model"]))}
    table = pd.DataFrame(out)
    table = table.assign(_o=table["model"].map(order)).sort_values(["_o", "mines"], kind="stable")
    return table.drop(columns="_o").reset_index(drop=True)


# ------------------------------------------------------------------------- helpers
def _split(total: int, parts: int) -> list[int]:
    if isinstance(total, bool) or not isinstance(total, int) or total < 1:
        raise ValueError(f"boards must be a positive integer, got {total!r}")
    parts = max(1, min(int(parts), total))
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _chi2_rows(item: str, test: dict, games: int, null: tuple[float, float] | None = None, null_note: str = "",
               variant: str | None = None, agents: str | None = None) -> list[dict]:
    """The measured rows of a chi-squared test: statistic, critical value, degrees of
    freedom. A statistic is a random draw: its interval is `null`, the central 95% range
    of its distribution under the null hypothesis (explained by `null_note`), so a
    published statistic inside it behaves as the null predicts, as ours does. `variant`
    names a variant run beside: its quantities read "chi2 statistic [variant: ...]". `agents`:
    the agent whose games the statistic tests (None: the engine's deals); the critical value
    and the degrees of freedom follow from the law and the number of games alone."""
    tag = f" [variant: {variant}]" if variant else ""
    note = f"alpha = {test['alpha']}; p = {test['p_value']:.4f}" + (f"; {null_note}" if null_note else "")
    stat = {"item": item, "quantity": "chi2 statistic" + tag, "value": test["statistic"], "games": games,
            "note": note, "agents": agents}
    if null is not None:
        stat.update(ci_low=float(null[0]), ci_high=float(null[1]))
    return [
        stat,
        {"item": item, "quantity": "chi2 critical 0.05" + tag, "value": test["critical"], "games": games},
        {"item": item, "quantity": "degrees of freedom" + tag, "value": test["dof"], "games": games},
    ]


# ------------------------------------------------------------------------- texts
# The notebook's commentary: every number below comes from the result; every verdict on a
# published number is the fidelity ledger's.
def _published(item: str) -> dict:
    from .. import report

    pub = report.load_published(PAPER, claims=False)
    return dict(zip(pub.loc[pub["item"] == item, "quantity"], pub.loc[pub["item"] == item, "value"]))


def _by_quantity(result: PaperResult) -> dict:
    return {m["quantity"]: m for m in result.measured}


def _test_verdict(statistic: float, critical: float, what: str) -> str:
    if statistic <= critical:
        return f"below the critical value: {what} is not rejected at alpha = 0.05"
    return f"above the critical value: {what} is rejected at alpha = 0.05"


def uniformity_text(result: PaperResult) -> str:
    """Markdown commentary of `check_mine_uniformity`: our statistic and the blog's against
    the statistic's true mean and spread on a board with a fixed number of mines, and the
    ledger's verdicts on the blog's three numbers."""
    ours, blog = _by_quantity(result), _published("Mine uniformity")
    stat, crit = ours["chi2 statistic"]["value"], ours["chi2 critical 0.05"]["value"]
    k, boards = int(ours["degrees of freedom"]["value"]), int(ours["chi2 statistic"]["games"])
    cells, mines = BOARD.cells, BOARD.mines
    scale = (cells - mines) / (cells - 1)  # the statistic is ~ scale * chi2(cells - 1)
    mean, sd = scale * (cells - 1), scale * float(np.sqrt(2 * (cells - 1)))
    p_value = float(sps.chi2.sf(stat, k))

    def near(x):
        return f"{x - mean:+.2f} from that mean ({abs(x - mean) / sd:.1f} standard deviations)"

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
        "",
        "The ledger on the blog's numbers:",
        "",
        *judged_lines(PAPER, "Mine uniformity"),
    ]
    return "\n".join(lines)


def clicks_text(result: PaperResult) -> str:
    """Markdown commentary of `check_clicks_before_mine`: the test's outcome on each side,
    how much each side pooled the tail (k against the possible number of values), the
    blog's unpooled bins measured beside (the variant BLOG_BINS) with our statistic
    against its central 95% range under the law, and the ledger's verdicts on the blog's
    numbers."""
    ours, blog = _by_quantity(result), _published("Clicks before mine")
    stat, crit = ours["chi2 statistic"]["value"], ours["chi2 critical 0.05"]["value"]
    k, games = int(ours["degrees of freedom"]["value"]), int(ours["chi2 statistic"]["games"])
    k_blog = int(blog["degrees of freedom"])
    values = BOARD.safe_cells + 1  # 0 .. safe cells safe clicks
    p_value = float(sps.chi2.sf(stat, k))
    b_stat = blog["chi2 statistic"]

    def pooled(dof):
        return f"the {values} possible values in {dof + 1} bins"

    def inside(x, row):
        lo, hi = row.get("ci_low", float("nan")), row.get("ci_high", float("nan"))
        if np.isnan(lo) or np.isnan(hi):
            return ""
        return f"{'inside' if lo <= x <= hi else 'outside'} the central 95% range {lo:.2f}-{hi:.2f}"

    lines = [
        "Tail bins whose expected count is below 5 are pooled (Pearson's test needs it); k therefore depends on "
        "the number of games. A statistic is a random draw: each is held against the central 95% range of its "
        "law under the null (the measured rows' interval), where a test behaving as the null predicts lands.",
        "",
        f"* **minelab**, {games:,} games without flood fill: chi2 = {stat:.2f}, k = {k} ({pooled(k)}), critical "
        f"{crit:.2f}, p = {p_value:.3f}: {_test_verdict(stat, crit, 'the hypergeometric law')}; "
        f"{inside(stat, ours['chi2 statistic'])} of chi2({k}).",
        f"* **the blog** (published): chi2 = {b_stat:g}, k = {k_blog} ({pooled(k_blog)}), critical "
        f"{blog['chi2 critical 0.05']:g}: "
        f"{_test_verdict(b_stat, blog['chi2 critical 0.05'], 'the hypergeometric law')}. "
        + (f"Its k is one bin per number of safe clicks before a mine, 0..{values - 2} (a game that exposes a mine "
           "does so after at most that many), none pooled." if k_blog + 2 == values else
           f"Its k + 1 = {k_blog + 1} bins hold {pooled(k_blog).split(' in ')[0].removeprefix('the ')}."),
    ]
    tag = f" [variant: {BLOG_BINS}]"
    if "chi2 statistic" + tag in ours:
        v = ours["chi2 statistic" + tag]
        vk, vcrit = int(ours["degrees of freedom" + tag]["value"]), ours["chi2 critical 0.05" + tag]["value"]
        lines += [
            f"* **minelab with the blog's bins** (one per number of safe clicks before the mine, 0..{values - 2}, "
            f"none pooled; the same games): chi2 = {v['value']:.2f}, k = {vk}, critical {vcrit:.2f}. Most tail bins "
            f"expect far less than one game, so this statistic is not chi2({vk})-distributed: its central 95% range "
            f"under the law, by Monte Carlo for {games:,} games, is {v['ci_low']:.2f}-{v['ci_high']:.2f} "
            f"(chi2({vk})'s: {sps.chi2.ppf(0.025, vk):.2f}-{sps.chi2.ppf(0.975, vk):.2f}); ours is "
            f"{inside(v['value'], v).split(' the')[0]} it. The range depends on the number of games, which the blog "
            "does not state.",
        ]
    lines += ["", "The ledger on the blog's numbers (the blog's bins are a reading it tests):", "",
              *judged_lines(PAPER, "Clicks before mine")]
    return "\n".join(lines)


MODEL_READINGS = {
    "random": "a uniformly random covered cell",
    "marginal": "the covered cell where mines were seen least often in its past games",
    "conditional": "Naive Bayes over each covered cell's neighbours (per neighbour position, add-one smoothing), "
                   "learnt from every covered cell at every decision of its past games; a random cell classified Empty",
    "graphical": "an MDP over the 3x3 sub-grids, outcome counts from its past games, rewards +100 / -100 / +1, "
                 "expected value over the whole sub-grid game; the best sub-grid action, ties at random",
    "semi-deterministic": "the blog's inference of certain mines, then of safe cells; a random safe cell, "
                          "otherwise a random covered cell",
    "semi-deterministic/conditional": "the same inference; otherwise the Conditional model decides",
}


def models_text(models=MODELS) -> str:
    """Markdown: each model of the figure, the agent that plays it (with its parameters),
    whether it learns, and how minelab reads the blog (minelab.agents.blog has the details)."""
    lines = []
    for model in models:
        agent, params = model_agent(model)
        made = make_agent(agent, **params)
        kind = "learns within a run" if made.learns else "does not learn"
        reading = MODEL_READINGS.get(model, type(made).__doc__.strip().splitlines()[0])
        lines.append(f"* **{model_name(model)}** (`{made!r}`, {kind}): {reading}.")
    return "\n".join(lines)


def success_rates_text(result: PaperResult) -> str:
    """Markdown commentary of `fig_success_rates`: why the Marginal model's intervals are
    taken over runs, with the spread between runs and Random beside Marginal computed
    from the result's table."""
    t = result.table
    runs = int(t["runs"].iloc[0])

    def spread(agent):
        part = t[t["model"] == agent]
        per_run = part["games"] / part["runs"]
        binomial = np.sqrt(part["win_rate"] * (1 - part["win_rate"]) / per_run)
        ratio = (part["runs_sd"] / binomial).replace([np.inf, -np.inf], np.nan)
        return float(ratio.max()) if ratio.notna().any() else float("nan")

    lines = [
        "Mines are uniform, so the Marginal model's empirical avoidance carries no information about the current "
        "board: the blog expects it to be on par with Random. What it does carry is *memory*: its argmax settles "
        "on a near-fixed click order early in a run, so its games are not independent and whole runs can differ "
        "by more than a binomial interval allows for. Its intervals are therefore t-intervals over independent "
        "runs (`runs_sd` in the table shows the spread); Random's games are independent and get Wilson intervals. "
        "The same holds for every learner (Conditional, Graphical, the Semi-deterministic model with the "
        "Conditional fallback): a learner's success rate is the mean over runs of its whole learning run, so it "
        f"depends on the run's length. Run r of every model plays the same boards ({runs} runs here).",
        "",
    ]
    if {"random", "marginal"} <= set(t["model"]):
        m_ratio, r_ratio = spread("marginal"), spread("random")
        if np.isnan(m_ratio):
            lines.append("* **Spread between runs**: not measurable here (no win in some runs' points).")
        else:
            lines.append(f"* **Spread between runs**: at its worst mine count the Marginal model's runs spread "
                         f"{m_ratio:.1f} times the binomial standard deviation of one run, Random's {r_ratio:.1f} "
                         "times.")
        rnd = t[t["model"] == "random"].set_index("mines")
        mar = t[t["model"] == "marginal"].set_index("mines")
        common = [m for m in rnd.index if m in mar.index]
        outside = [m for m in common if not (mar.loc[m, "runs_ci_low"] <= rnd.loc[m, "win_rate"]
                                             <= mar.loc[m, "runs_ci_high"])]
        lines.append(f"* **Random beside Marginal**: Random's success rate lies inside Marginal's t-interval at "
                     f"{len(common) - len(outside)} of {len(common)} mine counts"
                     + (f" (outside it with {', '.join(str(int(m)) for m in outside)} mines)" if outside else "")
                     + ". The blog's claim that they are on par is judged by the ledger (the claims below).")
    return "\n".join(lines)


# ------------------------------------------------------------------------- the blog's claims
# The blog states its comparisons in words only (its figures carry no numbers). Each claim
# below is set beside the evidence of the measured table; the ledger judges it where
# data/published/antimatroid2012.csv reads it as numbers (CLAIM_ROWS).
# A difference between two models at one mine count gets a 95% interval from the two
# points' standard errors (a learner's: the spread between runs / sqrt(runs), with
# Student's t on runs - 1 degrees of freedom; a non-learner's: binomial). The runs share
# their boards, which correlates the two points positively: ignoring it, as here, makes
# the interval conservative. "Significantly" below means the interval excludes 0.
CLAIMS = {  # claim -> (ledger item, its quantities start with, [end with]), None: no ledger row
    "Random and Marginal are on par (the improvement is negligible)":
        ("Marginal model", "Marginal minus Random success rate"),
    "Conditional is only slightly better than Marginal":
        ("Conditional model", "Conditional minus Marginal success rate"),
    "Conditional's gain over Marginal is largest at 3 mines":
        ("Conditional model", "mine count with the largest success-rate gain over the Marginal model"),
    "Graphical is only a margin better than Conditional":
        ("Graphical model", "Graphical minus Conditional success rate", ("mines", "upper bound")),
    "Graphical's improvement over Conditional is minor below 7 mines":
        ("Graphical model", "Graphical minus Conditional success rate", (", minor",)),
    "Semi-deterministic is superior to the other models (the only reliable one)":
        ("Semi-deterministic model", "Semi-deterministic minus "),
    "Semi-deterministic's gain over Graphical is largest at 7 mines":
        ("Semi-deterministic model", "mine count with the largest success-rate gain over the Graphical model"),
    "With more mines, Semi-deterministic relies more on its fallback": None,
}


class Difference(NamedTuple):
    mines: int
    diff: float  # success rate of a minus that of b
    low: float
    high: float


def _stderr(row) -> tuple[float, float]:
    """(standard error of a table row's success rate, its degrees of freedom)."""
    if row["learner"]:
        return float(row["runs_sd"]) / np.sqrt(row["runs"]), float(row["runs"] - 1)
    p = float(row["win_rate"])
    return float(np.sqrt(p * (1 - p) / row["games"])), np.inf


def differences(table: pd.DataFrame, a: str, b: str) -> list[Difference]:
    """Model a minus model b at every mine count both were played at, with 95% intervals."""
    ta, tb = table[table["model"] == a].set_index("mines"), table[table["model"] == b].set_index("mines")
    out = []
    for m in [m for m in ta.index if m in tb.index]:
        (se_a, df_a), (se_b, df_b) = _stderr(ta.loc[m]), _stderr(tb.loc[m])
        q = float(sps.t.ppf(0.975, min(df_a, df_b))) if np.isfinite(min(df_a, df_b)) else float(sps.norm.ppf(0.975))
        half = q * float(np.hypot(se_a, se_b))
        d = float(ta.loc[m, "win_rate"] - tb.loc[m, "win_rate"])
        out.append(Difference(int(m), d, d - half, d + half))
    return out


def _points(x: float) -> str:
    return f"{100 * x:+.1f} points"


def _ci(d: Difference) -> str:
    return f"95% CI {100 * d.low:+.1f} to {100 * d.high:+.1f}"


def _mines(m: int) -> str:
    return f"{m} mine{'' if m == 1 else 's'}"


def _mines_list(ms) -> str:
    return ", ".join(str(m) for m in ms) if ms else "none"


def _better_worse(ds: list[Difference]) -> tuple[list[int], list[int]]:
    return [d.mines for d in ds if d.low > 0], [d.mines for d in ds if d.high < 0]


def _argmax_claim(ds: list[Difference], where: int) -> str:
    """The evidence on "the gain is largest at `where` mines": the largest gain and the
    gain at `where`, with their intervals."""
    if where not in [d.mines for d in ds]:
        return f"{where} mines not in this run"
    top = max(ds, key=lambda d: d.diff)
    at = next(d for d in ds if d.mines == where)
    return (f"largest gain {_points(top.diff)} ({_ci(top)}) at {_mines(top.mines)}; at {_mines(where)} "
            f"{_points(at.diff)} ({_ci(at)})")


def _claim_same(ds: list[Difference]) -> str:
    better, worse = _better_worse(ds)
    biggest = max(ds, key=lambda d: abs(d.diff))
    return (f"significantly different at {len(better) + len(worse)} of {len(ds)} mine counts "
            f"(higher: {_mines_list(better)}; lower: {_mines_list(worse)}); largest difference "
            f"{_points(biggest.diff)} ({_ci(biggest)}) at {_mines(biggest.mines)}")


def _claim_above(ds: list[Difference]) -> str:
    better, worse = _better_worse(ds)
    return (f"significantly higher at {len(better)} of {len(ds)} mine counts ({_mines_list(better)}), "
            f"lower at {len(worse)} ({_mines_list(worse)}); mean difference "
            f"{_points(float(np.mean([d.diff for d in ds])))}")


def _claim_slight(ds: list[Difference], reference: list[Difference], baseline: str) -> str:
    """Better, and by how much: the largest gain as a share of the Semi-deterministic
    model's largest gain over the same baseline (`reference`)."""
    evidence = _claim_above(ds)
    if not reference:
        return evidence
    top = max(ds, key=lambda d: d.diff)
    share = top.diff / max(max(d.diff for d in reference), 1e-12)
    return (evidence + f"; its largest gain, {_points(top.diff)} ({_ci(top)}) at {_mines(top.mines)}, is "
            f"{share:.0%} of the Semi-deterministic model's largest gain over {baseline}")


def _claim_minor_below(ds: list[Difference], cut: int = 7) -> str:
    below = [d for d in ds if d.mines < cut]
    above = [d for d in ds if d.mines >= cut]
    if not below or not above:
        return f"needs mine counts on both sides of {cut}"
    b, a = max(abs(d.diff) for d in below), max(abs(d.diff) for d in above)
    return f"largest |difference| below {cut} mines {100 * b:.1f} points, from {cut} mines on {100 * a:.1f} points"


def _claim_best(table: pd.DataFrame, best: str, others: list[str]) -> str:
    pairs = [(o, d) for o in others for d in differences(table, best, o)]
    above = sum(d.low > 0 for _, d in pairs)
    not_above = sorted({f"{o} at {d.mines}" for o, d in pairs if d.low <= 0})
    evidence = f"significantly above the other models in {above} of {len(pairs)} (model, mine count) pairs"
    return evidence + (f"; not at: {', '.join(not_above)}" if not_above else "")


def _claim_guesses(table: pd.DataFrame, model: str) -> str:
    part = table[table["model"] == model].sort_values("mines")
    g = part["guesses"].to_numpy(float)
    if g.size < 3 or np.isnan(g).any():
        return "needs the guesses of at least 3 mine counts"
    rho = float(sps.spearmanr(part["mines"], g)[0]) if np.ptp(g) > 0 else float("nan")
    if np.isnan(rho):
        return "the guesses do not vary with the mines"
    return (f"fallback decisions per game from {g[0]:.2f} ({_mines(int(part['mines'].iloc[0]))}) to "
            f"{g[-1]:.2f} ({_mines(int(part['mines'].iloc[-1]))}); Spearman rho = {rho:.2f}")


def _claim_rows(claim: str, lines: pd.DataFrame) -> pd.DataFrame:
    """The ledger's lines judging one of the blog's claims (CLAIMS); empty when none."""
    where = CLAIMS.get(claim)
    if where is None:
        return lines.iloc[:0]
    item, prefix, *ends = where
    ends = tuple(ends[0]) if ends else ("",)
    return lines[(lines["item"] == item) & lines["quantity"].str.startswith(prefix)
                 & lines["quantity"].str.endswith(ends)]


def _ledger_of(claim: str, lines: pd.DataFrame) -> str:
    """The ledger on one claim: its one row's verdict, or how many of its rows fall in
    each category; "" when no row of data/published judges it."""
    rows = _claim_rows(claim, lines)
    if rows.empty:
        return ""
    if len(rows) == 1:
        return rows["verdict"].iloc[0]
    return tally(rows)


def claims_table(result: PaperResult) -> pd.DataFrame:
    """The blog's comparative claims, each with its evidence computed from
    `fig_success_rates`' table and the ledger's judgement of it (`ledger`: its verdict,
    or its rows' categories counted; "" when no published row reads the claim as numbers).
    A claim whose models are not in the table is left out."""
    t = result.table
    have = set(t["model"])
    semi = "semi-deterministic"
    lines = ledger_rows(PAPER)
    rows = []

    def add(needs, claim, check):
        if set(needs) <= have:
            rows.append({"claim": claim, "evidence": check(), "ledger": _ledger_of(claim, lines)})

    add(["random", "marginal"], "Random and Marginal are on par (the improvement is negligible)",
        lambda: _claim_same(differences(t, "marginal", "random")))
    add(["conditional", "marginal"], "Conditional is only slightly better than Marginal",
        lambda: _claim_slight(differences(t, "conditional", "marginal"),
                              differences(t, semi, "marginal") if semi in have else [], "Marginal"))
    add(["conditional", "marginal"], "Conditional's gain over Marginal is largest at 3 mines",
        lambda: _argmax_claim(differences(t, "conditional", "marginal"), 3))
    add(["graphical", "conditional"], "Graphical is only a margin better than Conditional",
        lambda: _claim_slight(differences(t, "graphical", "conditional"),
                              differences(t, semi, "conditional") if semi in have else [], "Conditional"))
    add(["graphical", "conditional"], "Graphical's improvement over Conditional is minor below 7 mines",
        lambda: _claim_minor_below(differences(t, "graphical", "conditional")))
    others = [m for m in ("random", "marginal", "conditional", "graphical") if m in have]
    if others:
        add([semi], "Semi-deterministic is superior to the other models (the only reliable one)",
            lambda: _claim_best(t, semi, others))
    add([semi, "graphical"], "Semi-deterministic's gain over Graphical is largest at 7 mines",
        lambda: _argmax_claim(differences(t, semi, "graphical"), 7))
    add([semi], "With more mines, Semi-deterministic relies more on its fallback",
        lambda: _claim_guesses(t, semi))
    return pd.DataFrame(rows, columns=["claim", "evidence", "ledger"])


def claims_text(result: PaperResult) -> str:
    """Markdown: the blog's claims, each with this run's evidence and the ledger's
    judgement (see claims_table); the rows the ledger does not judge "agrees" or "bound
    met" are listed under their claim."""
    claims = claims_table(result)
    lines_ = ledger_rows(PAPER)
    t = result.table
    lines = [f"The blog's claims beside this run ({int(t['runs'].iloc[0])} runs x "
             f"{int(t['games'].iloc[0] // t['runs'].iloc[0]):,} games per point; differences are in success-rate "
             "points with 95% intervals from the two points' standard errors; the blog gives no numbers, so the "
             "ledger judges a claim only where data/published reads it as numbers, and judges the largest profile "
             "measured):", ""]
    for r in claims.itertuples():
        rows = _claim_rows(r.claim, lines_)
        judged_by = (f" The ledger's {len(rows)} row{'s' if len(rows) > 1 else ''} on it: {r.ledger}." if r.ledger
                     else " No ledger row reads it as numbers.")
        lines.append(f"* **{r.claim}** — {r.evidence}.{judged_by}")
        if len(rows) > 1:
            rest = [q for q, c in zip(rows["quantity"], rows["category"]) if c not in (AGREES, BOUND_MET)]
            lines += ["  " + v for v in judged_lines(PAPER, rows["item"].iloc[0], rest, lines=rows)]
    return "\n".join(lines)
