"""Lordeiro, Haddad & Cardoso (2021), "Multi-Armed Bandits for Minesweeper".

Every figure and table of the paper's experiments, each a function named after it
whose run sizes are keyword defaults (Figs 1-6, the board drawings, live in
`lordeiro2021_boards`). Each returns a `PaperResult`: the figure, its tidy table, and
the measured rows REPORT.md puts beside the published ones.

One shared task kind, "train_test" (`minelab.tasks`), does all the work: one learner
trained through a schedule of levels (Table III's 8x8x(10..13) is four stages), then,
optionally, tested on other levels, each test on its own copy of the trained agent. As in the
authors' code, learning never stops (a test keeps learning) and the training win rate
is the cumulative mean over all games so far; mines are placed with no first-click
rule (`none`) and the program opens the first zero cell for the agent (see
minelab.agents.bandit for these options and the text's variants).

Intervals: Wilson for every win rate. A learner's games are not independent (each
changes the next), so a Wilson interval on its training games describes that run;
the paper reports single runs too.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..sweep import run_sweep
from ..tasks import train_spec
from ..levels import Level
from ..stats import ecdf, mann_whitney, wilson
from ..report import PaperResult

PAPER = "lordeiro2021"
NOTEBOOK = "lordeiro2021_bandits.ipynb"
MODULE = __name__
RULE = "none"  # the authors' code: mines anywhere, then the program's first-zero click
BEGINNER = f"8x8x10:{RULE}"
TEST_LEVELS = {"beginner": BEGINNER, "intermediate": f"16x16x40:{RULE}", "expert": f"16x30x99:{RULE}"}

# Run sizes per profile. paper = the paper's own: 10^6 training games, 10^4 test games.
SIZES = {
    "smoke": {"train_games": 400, "test_games": 40, "grid_games": 100, "table2_games": 1_000},
    "quick": {"train_games": 30_000, "test_games": 2_000, "grid_games": 5_000, "table2_games": 100_000},
    "paper": {"train_games": 1_000_000, "test_games": 10_000, "grid_games": 1_000_000, "table2_games": 1_000_000},
}

# Fig 7's agents: (label, registry name, params). The paper names epsilon = 0.01 and
# c = 0.01, 0.1 among its best; the others show the trend.
FIG7_AGENTS = (
    ("greedy", "greedy-mab", {}),
    ("ε-greedy ε=0.01", "egreedy-mab", {"epsilon": 0.01}),
    ("ε-greedy ε=0.1", "egreedy-mab", {"epsilon": 0.1}),
    ("UCB c=0.01", "ucb-mab", {"c": 0.01}),
    ("UCB c=0.1", "ucb-mab", {"c": 0.1}),
    ("UCB c=1", "ucb-mab", {"c": 1.0}),
)
SELECTED = (("greedy", "greedy-mab", {}), ("UCB", "ucb-mab", {"c": 0.1}))  # Figs 8-10, Tables I, IV
# Fig 10's variants. Without flags the paper's agent "just avoided risky tiles": the
# "pairs" rule reproduces its "below 12%"; the "tiles" reading is shown beside it.
ABLATIONS = (("flags, symmetries", {}), ("no flags", {"flags": False, "no_flags_rule": "pairs"}),
             ("no symmetries", {"symmetries": False}),
             ("neither", {"flags": False, "no_flags_rule": "pairs", "symmetries": False}),
             ("no flags, tiles rule", {"flags": False, "no_flags_rule": "tiles"}))
TRANSFER = {  # Table III / IV training settings: stages of (mines on 8x8, share of the games)
    "8x8x10": ((10, 1),), "8x8x(10..13)": ((10, 1), (11, 1), (12, 1), (13, 1)),
    "8x8x13": ((13, 1),), "8x8x15": ((15, 1),), "8x8x17": ((17, 1),),
}
TABLE4_SETTINGS = ("8x8x10", "8x8x15")
GRID_SIDES = tuple(range(3, 11))
FIG11_DENSITY = 0.15625
FIG12_DENSITIES = (0.14, 0.15, 0.16, 0.17, 0.18, 0.19, 0.20)


# ---------------------------------------------------------------------- analysis
def curves(df: pd.DataFrame) -> pd.DataFrame:
    """Training curves per task: cumulative win rate (with Wilson interval) and actions."""
    train = df[df["part"] == "train"].copy()
    out = []
    for _, part in train.groupby(["label"], sort=False, observed=True):
        part = part.sort_values("games_end").copy()
        for col in ("games_end", "games", "wins", "moves", "actions", "perfect"):
            part[col] = part[col].astype(np.int64)
        part["cum_wins"] = part["wins"].cumsum()
        part["win_rate"] = part["cum_wins"] / part["games_end"]
        lo_hi = [wilson(w, n) for w, n in zip(part["cum_wins"], part["games_end"])]
        part["ci_low"], part["ci_high"] = zip(*lo_hi)
        out.append(part)
    return pd.concat(out, ignore_index=True)


def _final(curve: pd.DataFrame) -> pd.DataFrame:
    """The last block of each label's curve (labels in their run order)."""
    return curve.groupby("label", sort=False, observed=True).tail(1).reset_index(drop=True)


def _run(tasks_by_label: dict, executor) -> pd.DataFrame:
    """run_sweep over the tasks, rows labelled with their task's label. Seeds derive from
    all of a task's params, so they tell tasks apart; two labels may name one task (e.g.
    two densities that round to the same mine count): it runs once, labelled twice."""
    unique = {t["seed"]: t for t in tasks_by_label.values()}
    df = run_sweep(list(unique.values()), executor=executor, progress=len(unique) > 1)
    parts = [df[df["seed"] == t["seed"]].assign(label=label) for label, t in tasks_by_label.items()]
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------------- Figs 7-10, Table I
def _fig7_tasks(train_games: int, seed: int) -> dict:
    out = {}
    for label, name, p in FIG7_AGENTS:
        keep = any(name == n and p == q for _, n, q in SELECTED)
        out[label] = train_spec(name, p, [(BEGINNER, train_games)], table=keep, seed=seed)
    return out


def fig07_win_rate_curves(train_games: int = SIZES["quick"]["train_games"], seed: int = 0,
                          executor="processes") -> PaperResult:
    """Fig 7: cumulative win rate during training on 8x8/10, greedy vs epsilon-greedy vs UCB."""
    import matplotlib.pyplot as plt

    df = _run(_fig7_tasks(train_games, seed), executor)
    cv = curves(df)
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for label, part in cv.groupby("label", sort=False, observed=True):
        ax.plot(part["games_end"], part["win_rate"], label=f"minelab {label}")
        ax.fill_between(part["games_end"], part["ci_low"], part["ci_high"], alpha=0.2)
    ax.set_xlabel("training games (episodes)")
    ax.set_ylabel("win rate so far (cumulative)")
    ax.set_title(f"Fig 7: win rate during training, {BEGINNER} ({train_games:,} games each)\n"
                 "band: 95% Wilson interval; published: figure only (text: greedy first, then ε=0.01)",
                 fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    final = _final(cv)
    table = final[["label", "games_end", "cum_wins", "win_rate", "ci_low", "ci_high", "actions", "perfect"]]
    table = table.rename(columns={"games_end": "games", "cum_wins": "wins"}).reset_index(drop=True)
    measured = [{"item": "Fig 7", "quantity": f"training win rate, {r.label}", "value": r.win_rate,
                 "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games)} for r in table.itertuples()]
    return PaperResult("fig07_win_rate_curves", fig, table, measured)


def fig08_actions_recorded(train_games: int = SIZES["quick"]["train_games"], seed: int = 0,
                           executor="processes") -> PaperResult:
    """Fig 8: actions recorded (all and perfect) over training, greedy vs UCB c = 0.1."""
    import matplotlib.pyplot as plt

    chosen = _selected_tasks(train_games, seed)
    cv = curves(_run(chosen, executor))
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, part in cv.groupby("label", sort=False, observed=True):
        line, = ax.plot(part["games_end"], part["actions"], label=f"minelab {label}: all")
        ax.plot(part["games_end"], part["perfect"], "--", color=line.get_color(), label=f"minelab {label}: perfect")
    ax.set_xlabel("training games (episodes)")
    ax.set_ylabel("actions recorded")
    ax.set_title(f"Fig 8: actions recorded during training, {BEGINNER}\n"
                 "published: figure only (text: UCB records almost twice the greedy agent's)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    final = _final(cv).set_index("label")
    table = final[["games_end", "actions", "perfect"]].rename(columns={"games_end": "games"}).reset_index()
    ratio = final.loc["UCB", "actions"] / final.loc["greedy", "actions"]
    measured = [{"item": "Fig 8", "quantity": "actions recorded, UCB / greedy", "value": float(ratio),
                 "games": int(final.loc["UCB", "games_end"]),
                 "note": "one run each (a count, no sampling interval)"}]
    for r in table.itertuples():
        measured += [{"item": "Fig 8", "quantity": f"actions recorded, {r.label}", "value": r.actions, "games": int(r.games),
                      "note": "one run"},
                     {"item": "Fig 8", "quantity": f"perfect actions, {r.label}", "value": r.perfect, "games": int(r.games),
                      "note": "one run"}]
    return PaperResult("fig08_actions_recorded", fig, table, measured)


def _fig7_label(name, params):
    for label, n, p in FIG7_AGENTS:
        if n == name and p == params:
            return label
    raise ValueError(f"{name} {params} is not one of Fig 7's agents")


def _selected_tasks(train_games, seed) -> dict:
    """Fig 7's tasks of the two selected agents (greedy, UCB c = 0.1), by their labels."""
    tasks = _fig7_tasks(train_games, seed)
    return {lab: tasks[_fig7_label(n, p)] for lab, n, p in SELECTED}


def _selected_tables(train_games, seed, executor) -> pd.DataFrame:
    chosen = _selected_tasks(train_games, seed)
    df = _run(chosen, executor)
    t = df[df["part"] == "table"][["label", "key", "q", "n"]].copy()
    t["n"] = t["n"].astype(np.int64)
    t["key"] = t["key"].astype(np.int64)
    t["perfect"] = t["q"].abs() == 1.0
    return t


def fig09_q_ecdf(train_games: int = SIZES["quick"]["train_games"], seed: int = 0,
                 executor="processes") -> PaperResult:
    """Fig 9: ECDF of Q(a) over the actions recorded, greedy and UCB c = 0.1."""
    import matplotlib.pyplot as plt

    t = _selected_tables(train_games, seed, executor)
    fig, axes = plt.subplots(2, 1, figsize=(6.5, 6), sharex=True)
    rows = []
    for ax, (label, part) in zip(axes, t.groupby("label", sort=False)):
        x, f = ecdf(part["q"])
        ax.step(x, f, where="post", label=f"minelab {label} ({len(part):,} actions)")
        ax.set_ylabel("ECDF")
        ax.legend(fontsize=8, loc="upper left")
        rows.append({"label": label, "actions": len(part), "share_q_minus_1": float((part["q"] == -1).mean()),
                     "share_q_plus_1": float((part["q"] == 1).mean()), "median_q": float(part["q"].median())})
    axes[-1].set_xlabel("Q(a)  (-1 always safe, +1 always a mine)")
    fig.suptitle(f"Fig 9: ECDF of action values after {train_games:,} games on {BEGINNER}\n"
                 "published: figure only", fontsize=9)
    fig.tight_layout()
    table = pd.DataFrame(rows)
    measured = [{"item": "Fig 9", "quantity": f"share of actions with Q = -1, {r['label']}", "value": r["share_q_minus_1"],
                 "games": train_games, "note": f"{r['actions']} actions"} for r in rows]
    return PaperResult("fig09_q_ecdf", fig, table, measured)


def table1_action_counts(train_games: int = SIZES["quick"]["train_games"], seed: int = 0,
                         executor="processes") -> PaperResult:
    """Table I: mean action count N for perfect / non-perfect / all actions, greedy and UCB,
    with 95% t-intervals of the mean over the actions."""
    t = _selected_tables(train_games, seed, executor)
    rows, measured = [], []
    for label, part in t.groupby("label", sort=False):
        for which, sel in (("perfect", part["perfect"]), ("non-perfect", ~part["perfect"]), ("all", slice(None))):
            n = part.loc[sel, "n"].to_numpy(float)
            mean = float(n.mean()) if n.size else float("nan")
            half = float(sps.t.ppf(0.975, n.size - 1) * n.std(ddof=1) / math.sqrt(n.size)) if n.size > 1 else float("nan")
            rows.append({"agent": label, "actions": which, "count": n.size, "mean_n": mean,
                         "ci_low": mean - half, "ci_high": mean + half})
            measured.append({"item": "Table I", "quantity": f"mean N, {which} actions, {label}", "value": mean,
                             "ci_low": mean - half, "ci_high": mean + half, "games": train_games,
                             "note": f"mean over {n.size} actions; 95% t-interval"})
    table = pd.DataFrame(rows)
    return PaperResult("table1_action_counts", None, table, measured)


def fig10_ablations(train_games: int = SIZES["quick"]["train_games"], seed: int = 0,
                    executor="processes") -> PaperResult:
    """Fig 10: greedy and UCB trained without flags, without symmetries, or both."""
    import matplotlib.pyplot as plt

    fig7 = _fig7_tasks(train_games, seed)
    tasks = {}
    for agent_label, name, p in SELECTED:
        for ab_label, ab in ABLATIONS:
            label = f"{agent_label}: {ab_label}"
            tasks[label] = fig7[_fig7_label(name, p)] if not ab else \
                train_spec(name, {**p, **ab}, [(BEGINNER, train_games)], seed=seed)
    cv = curves(_run(tasks, executor))
    cv["agent"] = cv["label"].str.split(":").str[0]
    cv["variant"] = cv["label"].str.split(": ").str[1]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharex=True)
    for row, (agent_label, part) in zip(axes, cv.groupby("agent", sort=False)):
        for variant, v in part.groupby("variant", sort=False):
            row[0].plot(v["games_end"], v["win_rate"], label=variant)
            row[0].fill_between(v["games_end"], v["ci_low"], v["ci_high"], alpha=0.2)
            row[1].plot(v["games_end"], v["actions"], label=variant)
            row[2].plot(v["games_end"], v["perfect"], label=variant)
        row[0].set_ylabel(f"minelab {agent_label}\nwin rate so far")
        row[1].set_ylabel("actions recorded")
        row[2].set_ylabel("perfect actions")
        row[0].legend(fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("training games (episodes)")
    fig.suptitle(f"Fig 10: ablations on {BEGINNER}, {train_games:,} games each (published: figure only; "
                 "text: without flags both stay below 12%)\nno flags: mine-looking (tile, window) pairs skipped; "
                 "tiles rule: a tile whose most certain window says mine is skipped", fontsize=9)
    fig.tight_layout()
    final = _final(cv)
    table = final[["agent", "variant", "games_end", "cum_wins", "win_rate", "ci_low", "ci_high", "actions", "perfect"]]
    table = table.rename(columns={"games_end": "games", "cum_wins": "wins"}).reset_index(drop=True)
    measured = [{"item": "Fig 10", "quantity": f"training win rate, {r.agent}, {r.variant}", "value": r.win_rate,
                 "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games)} for r in table.itertuples()]
    no_flags = table[table["variant"] == "no flags"].sort_values("win_rate").iloc[-1]
    measured.append({"item": "Fig 10", "quantity": "win rate without flags, upper bound", "value": no_flags.win_rate,
                     "ci_low": no_flags.ci_low, "ci_high": no_flags.ci_high, "games": int(no_flags.games),
                     "note": f"the better of greedy and UCB without flags, pairs rule ({no_flags.agent})"})
    return PaperResult("fig10_ablations", fig, table, measured)


def fig_top_patterns(train_games: int = SIZES["quick"]["train_games"], seed: int = 0, executor="processes",
                     top: int = 18) -> PaperResult:
    """The greedy agent's most-used actions (largest N) among windows that read at least
    one number, decoded back to their 3x3 windows, with Q and N: the surely safe, the
    surely mined and the uncertain patterns it learned (the paper's closing suggestion:
    show them to human players)."""
    import matplotlib.pyplot as plt

    from ..agents.bandit import decode_key, window_case
    from .lordeiro2021_boards import draw_window

    t = _selected_tables(train_games, seed, executor)
    g = t[t["label"] == "greedy"]
    # a window "reads a number" when its centre or a border cell shows 0-8 (key layout:
    # centre in bits 4-7, the ring's 8 cells in bits 8-39)
    nibbles = np.stack([(g["key"].to_numpy() >> (4 * j)) & 15 for j in range(1, 10)])
    g = g[(nibbles <= 8).any(axis=0)]
    each = max(1, top // 3)
    rows = []
    for label, part in (("sure safe", g[g["q"] == -1.0].nlargest(each, "n")),
                        ("sure mine", g[g["q"] == 1.0].nlargest(each, "n")),
                        ("uncertain", g[g["q"].abs() < 1].nlargest(each, "n"))):
        for r in part.itertuples():
            rows.append({"group": label, "key": int(r.key), "q": r.q, "n": int(r.n), "case": window_case(r.key)})
    table = pd.DataFrame(rows)
    cols = 6
    fig, axes = plt.subplots((len(table) + cols - 1) // cols, cols, figsize=(2.1 * cols, 2.4 * ((len(table) + cols - 1) // cols)))
    for ax in np.ravel(axes):
        ax.set_axis_off()
    for ax, r in zip(np.ravel(axes), table.itertuples()):
        window, target = decode_key(r.key)
        draw_window(ax, window, target, title=f"{r.group}\nQ={r.q:+.3f} N={r.n:,}")
        ax.title.set_fontsize(7)
    fig.suptitle(f"Greedy agent's learned patterns after {train_games:,} games on {BEGINNER} (minelab; target "
                 "highlighted, canonical orientation)", fontsize=9)
    fig.tight_layout()
    return PaperResult("fig_top_patterns", fig, table, [])


# ---------------------------------------------------------------------- Figs 11-12
def _mines(cells: int, density: float) -> int:
    # nearest integer, halves up (the paper does not say; Python's round() would send 4.5 to 4)
    return max(1, int(math.floor(cells * density + 0.5)))


def _grid_run(levels: dict, games: int, seed: int, executor) -> pd.DataFrame:
    tasks = {lab: train_spec("greedy-mab", {}, [(lv, games)], seed=seed) for lab, lv in levels.items()}
    final = _final(curves(_run(tasks, executor)))
    return final


def fig11_size_heatmap(grid_games: int = SIZES["quick"]["grid_games"], seed: int = 0,
                       executor="processes") -> PaperResult:
    """Fig 11: greedy training win rate over width x height 3..10 at density 0.15625."""
    levels = {}
    for h in GRID_SIDES:
        for w in GRID_SIDES:
            levels[f"{h}x{w}"] = str(Level(h, w, _mines(h * w, FIG11_DENSITY), RULE))
    final = _grid_run(levels, grid_games, seed, executor)
    final[["height", "width"]] = final["label"].str.split("x", expand=True).astype(int)
    final["mines"] = [Level.parse(levels[lab]).mines for lab in final["label"]]
    table = final[["height", "width", "mines", "games_end", "cum_wins", "win_rate", "ci_low", "ci_high"]]
    table = table.rename(columns={"games_end": "games", "cum_wins": "wins"}).reset_index(drop=True)
    fig = _heatmap(table, "width", "height", f"Fig 11: greedy win rate by board size, mines = round(0.15625 x cells), "
                   f"{grid_games:,} training games each", "width", "height")
    measured = [{"item": "Fig 11", "quantity": f"training win rate, {r.height}x{r.width}x{r.mines}", "value": r.win_rate,
                 "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games)} for r in table.itertuples()]
    return PaperResult("fig11_size_heatmap", fig, table, measured)


def fig12_density_heatmap(grid_games: int = SIZES["quick"]["grid_games"], seed: int = 0,
                          executor="processes") -> PaperResult:
    """Fig 12: greedy training win rate, width 10, height 3..10 x density 0.14..0.20."""
    levels = {}
    for h in GRID_SIDES:
        for d in FIG12_DENSITIES:
            levels[f"{h}|{d}"] = str(Level(h, 10, _mines(10 * h, d), RULE))
    final = _grid_run(levels, grid_games, seed, executor)
    parts = final["label"].str.split("|", expand=True)
    final["height"], final["density"] = parts[0].astype(int), parts[1].astype(float)
    final["mines"] = [Level.parse(levels[lab]).mines for lab in final["label"]]
    table = final[["height", "density", "mines", "games_end", "cum_wins", "win_rate", "ci_low", "ci_high"]]
    table = table.rename(columns={"games_end": "games", "cum_wins": "wins"}).reset_index(drop=True)
    fig = _heatmap(table, "density", "height", f"Fig 12: greedy win rate, width 10, {grid_games:,} training games each",
                   "mine density", "height")
    wr = table.pivot(index="height", columns="density", values="win_rate")
    var = table.assign(v=table["win_rate"] * (1 - table["win_rate"]) / table["games"]).pivot(
        index="height", columns="density", values="v")
    lo_h, hi_h = min(GRID_SIDES), max(GRID_SIDES)
    lo_d, hi_d = min(FIG12_DENSITIES), max(FIG12_DENSITIES)
    by_height = (wr.loc[lo_h] - wr.loc[hi_h]).mean()
    by_height_se = math.sqrt((var.loc[lo_h] + var.loc[hi_h]).sum()) / wr.shape[1]
    by_density = (wr[lo_d] - wr[hi_d]).mean()
    by_density_se = math.sqrt((var[lo_d] + var[hi_d]).sum()) / wr.shape[0]
    z = sps.norm.ppf(0.975)
    measured = [
        {"item": "Fig 12", "quantity": f"mean win-rate decrease over heights {lo_h}..{hi_h}", "value": by_height,
         "ci_low": by_height - z * by_height_se, "ci_high": by_height + z * by_height_se, "games": grid_games,
         "note": "win rate at height 3 minus height 10, averaged over densities; normal-approximation interval"},
        {"item": "Fig 12", "quantity": f"mean win-rate decrease over densities {lo_d:.2f}..{hi_d:.2f}", "value": by_density,
         "ci_low": by_density - z * by_density_se, "ci_high": by_density + z * by_density_se, "games": grid_games,
         "note": "win rate at density 0.14 minus 0.20, averaged over heights; normal-approximation interval"},
    ]
    measured += [{"item": "Fig 12", "quantity": f"training win rate, 10 wide, height {r.height}, density {r.density:.2f}",
                  "value": r.win_rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games)}
                 for r in table.itertuples()]
    return PaperResult("fig12_density_heatmap", fig, table, measured)


def _heatmap(table, x, y, title, xlabel, ylabel):
    import matplotlib.pyplot as plt

    wr = table.pivot(index=y, columns=x, values="win_rate").sort_index(ascending=False)
    fig, ax = plt.subplots(figsize=(7.5, 6))
    im = ax.imshow(wr.to_numpy(), cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(wr.shape[1]), [f"{v:g}" for v in wr.columns])
    ax.set_yticks(range(wr.shape[0]), [str(v) for v in wr.index])
    for i in range(wr.shape[0]):
        for j in range(wr.shape[1]):
            v = wr.iat[i, j]
            ax.text(j, i, f"{100 * v:.0f}", ha="center", va="center", fontsize=7, color="w" if v < 0.6 else "k")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title + "\nminelab, cells: win rate % (published: figure only)", fontsize=9)
    fig.colorbar(im, ax=ax, label="training win rate (cumulative)")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------- Table II
# Table II's agents. The paper's MAB column is its greedy agent; we also run it without
# symmetries, because the published MAB numbers (more actions, lower win rates than our
# agent with symmetries) lie between the two.
TABLE2_AGENTS = (("MAB", "greedy-mab", {}), ("MAB without symmetries", "greedy-mab", {"symmetries": False}),
                 ("SA", "sa-greedy", {}))


def table2_mab_vs_state_action(table2_games: int = SIZES["quick"]["table2_games"], seed: int = 0,
                               executor="processes", mines=(3, 4, 5)) -> PaperResult:
    """Table II: MAB vs state-action greedy on 4x4 with 3-5 mines: win rate so far and
    actions (state-action pairs) recorded after table2_games/10 and table2_games games;
    the MAB agent also without symmetries (see TABLE2_AGENTS)."""
    tasks = {}
    for m in mines:
        for kind, name, p in TABLE2_AGENTS:
            tasks[f"{kind}|{m}"] = train_spec(name, p, [(f"4x4x{m}:{RULE}", table2_games)], seed=seed)
    cv = curves(_run(tasks, executor))
    checkpoints = sorted({max(1, table2_games // 10), table2_games})
    rows, measured = [], []
    for label, part in cv.groupby("label", sort=False, observed=True):
        kind, m = label.split("|")
        for cp in checkpoints:
            r = part[part["games_end"] <= cp].iloc[-1]
            rows.append({"agent": kind, "mines": int(m), "games": int(r.games_end), "wins": int(r.cum_wins),
                         "win_rate": r.win_rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "recorded": int(r.actions)})
            what = "pairs recorded" if kind == "SA" else "actions recorded"
            setting = f"4x4x{m}, {int(r.games_end)} games"
            measured += [{"item": "Table II", "quantity": f"{kind} win rate, {setting}", "value": r.win_rate,
                          "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games_end)},
                         {"item": "Table II", "quantity": f"{kind} {what}, {setting}", "value": int(r.actions),
                          "games": int(r.games_end), "note": "one run (a count)"}]
    return PaperResult("table2_mab_vs_state_action", None, pd.DataFrame(rows), measured)


# ---------------------------------------------------------------------- Tables III-IV
def _transfer(agent: str, params: dict, settings, train_games, test_games, seed, executor, item):
    tasks = {}
    for s in settings:
        stages = TRANSFER[s]
        total = sum(w for _, w in stages)
        sizes = [train_games * w // total for _, w in stages]
        sizes[-1] += train_games - sum(sizes)
        schedule = [(f"8x8x{m}:{RULE}", n) for (m, _), n in zip(stages, sizes)]
        tests = [(lv, test_games) for lv in TEST_LEVELS.values()]
        tasks[s] = train_spec(agent, params, schedule, tests, seed=seed)
    df = _run(tasks, executor)
    final = _final(curves(df)).set_index("label")
    test = df[df["part"] == "test"]
    scen_of = {lv: name for name, lv in TEST_LEVELS.items()}
    rows = []
    for s in settings:
        f = final.loc[s]
        rows.append({"trained on": s, "scenario": "training", "games": int(f.games_end), "wins": int(f.cum_wins),
                     "win_rate": f.win_rate, "ci_low": f.ci_low, "ci_high": f.ci_high})
        for lv, part in test[test["label"] == s].groupby("level", observed=True, sort=False):
            wins, n = int(part["won"].sum()), len(part)
            lo, hi = wilson(wins, n)
            rows.append({"trained on": s, "scenario": scen_of[lv], "games": n, "wins": wins, "win_rate": wins / n,
                         "ci_low": lo, "ci_high": hi})
    table = pd.DataFrame(rows)
    table["best"] = False
    # the paper: Mann-Whitney at 0.05 on 0/1 outcomes; the best, and every agent not
    # significantly worse than it, are marked (tied for the lead)
    for scen in TEST_LEVELS:
        sub = test.assign(scenario=test["level"].map(scen_of))
        sub = sub[sub["scenario"] == scen]
        if sub.empty:
            continue
        rates = sub.groupby("label", observed=True)["won"].mean()
        top = rates.idxmax()
        x_top = sub.loc[sub["label"] == top, "won"].astype(int).to_numpy()
        for s in settings:
            x = sub.loc[sub["label"] == s, "won"].astype(int).to_numpy()
            tie = s == top or mann_whitney(x_top, x)["p_value"] >= 0.05
            table.loc[(table["trained on"] == s) & (table["scenario"] == scen), "best"] = bool(tie)
    measured = [{"item": item, "quantity": f"{r.scenario} win rate, trained on {r._1}", "value": r.win_rate,
                 "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games),
                 "note": ("best or tied (Mann-Whitney 0.05)" if r.best else "")} for r in table.itertuples()]
    return table, measured


def table3_transfer_greedy(train_games: int = SIZES["quick"]["train_games"],
                           test_games: int = SIZES["quick"]["test_games"], seed: int = 0,
                           executor="processes") -> PaperResult:
    """Table III: greedy agents trained on 8x8 with 10..17 mines, tested on the standard levels."""
    table, measured = _transfer("greedy-mab", {}, tuple(TRANSFER), train_games, test_games, seed, executor, "Table III")
    return PaperResult("table3_transfer_greedy", _transfer_figure(table, "Table III: greedy"), table, measured)


def table4_transfer_ucb(train_games: int = SIZES["quick"]["train_games"],
                        test_games: int = SIZES["quick"]["test_games"], seed: int = 0,
                        executor="processes") -> PaperResult:
    """Table IV: UCB (c = 0.1) agents trained on 8x8x10 and 8x8x15, tested on the standard levels."""
    table, measured = _transfer("ucb-mab", {"c": 0.1}, TABLE4_SETTINGS, train_games, test_games, seed, executor,
                                "Table IV")
    return PaperResult("table4_transfer_ucb", _transfer_figure(table, "Table IV: UCB c=0.1"), table, measured)


def _transfer_figure(table: pd.DataFrame, title: str):
    import matplotlib.pyplot as plt

    scen = ["training", *TEST_LEVELS]
    settings = list(dict.fromkeys(table["trained on"]))
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(settings)
    for i, s in enumerate(settings):
        part = table[table["trained on"] == s].set_index("scenario").reindex(scen)
        x = np.arange(len(scen)) + (i - (len(settings) - 1) / 2) * width
        ax.bar(x, part["win_rate"], width, label=f"minelab, trained on {s}",
               yerr=[part["win_rate"] - part["ci_low"], part["ci_high"] - part["win_rate"]], capsize=2)
    ax.set_xticks(range(len(scen)), scen)
    ax.set_ylabel("win rate (95% Wilson)")
    ax.set_title(f"{title} agents: training and test win rates", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------- text vs code
VARIANTS = (
    ("greedy, code (defaults)", "greedy-mab", {}, BEGINNER),
    ("greedy, text: agent's own first click, first click safe", "greedy-mab", {"first_move": "agent"}, "8x8x10:safe"),
    ("greedy, text: learn only passed-over actions at the end", "greedy-mab", {"end_learning": "last-passed-over"},
     BEGINNER),
    ("UCB c=0.1, code: bonus toward certainty", "ucb-mab", {"c": 0.1}, BEGINNER),
    ("UCB c=0.1, textbook: optimistic bonus", "ucb-mab", {"c": 0.1, "ucb_bonus": "optimism"}, BEGINNER),
)


def text_vs_code_variants(train_games: int = SIZES["quick"]["train_games"], seed: int = 0,
                          executor="processes") -> PaperResult:
    """Where the paper's text and the authors' code differ: training win rate of each variant."""
    import matplotlib.pyplot as plt

    fig7 = _fig7_tasks(train_games, seed)
    tasks = {}
    for label, name, p, level in VARIANTS:
        spec = train_spec(name, p, [(level, train_games)], seed=seed)
        same = [t for t in fig7.values() if {**t, "table": False, "seed": 0} == {**spec, "table": False, "seed": 0}]
        tasks[label] = same[0] if same else spec
    final = _final(curves(_run(tasks, executor)))
    table = final[["label", "games_end", "cum_wins", "win_rate", "ci_low", "ci_high", "actions"]]
    table = table.rename(columns={"games_end": "games", "cum_wins": "wins", "label": "variant"}).reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(8, 3.6))
    y = np.arange(len(table))
    ax.errorbar(table["win_rate"], y, xerr=[table["win_rate"] - table["ci_low"], table["ci_high"] - table["win_rate"]],
                fmt="o", capsize=3)
    ax.set_yticks(y, table["variant"], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("training win rate (95% Wilson)")
    ax.set_title(f"Text vs code variants, {train_games:,} training games each (minelab)", fontsize=9)
    fig.tight_layout()
    return PaperResult("text_vs_code_variants", fig, table, [])
