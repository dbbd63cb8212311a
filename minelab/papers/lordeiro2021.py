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

from ..sweep import derive_seed, run_sweep
from ..tasks import train_spec
from ..levels import Level
from ..stats import ecdf, mann_whitney, t_interval, wilson
from ..ledger import AGREES
from ..report import PaperResult
from . import claim_judged, judged, ledger_rows, tally

PAPER = "lordeiro2021"
NOTEBOOK = "lordeiro2021_bandits.ipynb"
MODULE = __name__
RULE = "none"  # the authors' code: mines anywhere, then the program's first-zero click
PAPER_LEVEL = f"8x8x10:{RULE}"  # the paper's training board as a level string (ml.BEGINNER is the safe-rule Level)
TEST_LEVELS = {"beginner": PAPER_LEVEL, "intermediate": f"16x16x40:{RULE}", "expert": f"16x30x99:{RULE}"}

# Run sizes per profile. paper = the paper's own: 10^6 training games, 10^4 test games;
# replicates: independent training runs of Fig 7 and Table II (one run's games teach
# each other, so one run is one observation: their numbers are means with t-intervals);
# transfer_replicates: the same for Tables III-IV. Their claims include a rank among seven
# agents and a count of levels (0..3), whose one-run prediction interval from 3 runs
# (t = 4.30) covers every value they can take; 10 runs (t = 2.26) can decide them.
SIZES = {
    "smoke": {"train_games": 400, "test_games": 40, "grid_games": 100, "table2_games": 1_000, "replicates": 1,
              "transfer_replicates": 1},
    "quick": {"train_games": 30_000, "test_games": 2_000, "grid_games": 5_000, "table2_games": 100_000,
              "replicates": 1, "transfer_replicates": 1},
    "paper": {"train_games": 1_000_000, "test_games": 10_000, "grid_games": 1_000_000, "table2_games": 1_000_000,
              "replicates": 3, "transfer_replicates": 10},
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
AGENT_OF = {label: name for label, name, _ in FIG7_AGENTS + SELECTED}  # a label -> its registered agent
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
GRID_AGENT = "greedy-mab"  # the agent of Figs 11 and 12
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


def replicate_seed(seed: int, replicate: int) -> int:
    """The root seed of independent run `replicate` (run 0 is the single run `seed` gives)."""
    return seed if replicate == 0 else derive_seed(seed, {"paper": PAPER, "replicate": int(replicate)})


def _replicated(make, replicates: int, seed: int, keys: list[str], **kw) -> PaperResult:
    """`make(seed=...)` once per independent run, combined: table rows (grouped by `keys`)
    and measured rows get the mean over runs with a 95% t-interval over runs (`runs`
    says how many); the figure is run 0's. One run: make's result unchanged."""
    if not isinstance(replicates, (int, np.integer)) or isinstance(replicates, bool) or replicates < 1:
        raise ValueError(f"replicates must be a positive integer, got {replicates!r}")
    results = [make(seed=replicate_seed(seed, r), **kw) for r in range(int(replicates))]
    if replicates == 1:
        return results[0]
    first = results[0]
    runs = pd.concat([r.table.assign(run=i) for i, r in enumerate(results)], ignore_index=True)
    rows = []
    for _, part in runs.groupby(keys, sort=False):
        row = part.iloc[0].drop("run").to_dict()
        row["win_rate"], row["ci_low"], row["ci_high"] = t_interval(part["win_rate"].to_numpy())
        row["wins"] = int(part["wins"].sum())
        for col in part.columns.difference([*keys, "run", "win_rate", "ci_low", "ci_high", "wins", "games"]):
            if pd.api.types.is_bool_dtype(part[col]):
                row[col] = bool(part[col].mean() > 0.5)  # e.g. "best or tied": in most runs
            elif pd.api.types.is_numeric_dtype(part[col]):
                row[col] = float(part[col].mean())
        row["runs"] = len(part)
        rows.append(row)
    measured = []
    by_key: dict = {}
    for r in results:
        for m in r.measured:
            by_key.setdefault((m["item"], m["quantity"]), []).append(m)
    for (item, quantity), ms in by_key.items():
        mean, lo, hi = t_interval([float(m["value"]) for m in ms])
        note = f"mean of {len(ms)} independent runs, 95% t-interval over runs"
        measured.append({"item": item, "quantity": quantity, "value": mean, "ci_low": lo, "ci_high": hi,
                         "games": ms[0].get("games"), "runs": len(ms),
                         "note": note + (f"; {ms[0]['note']}" if ms[0].get("note", "").strip()
                                         and not ms[0]["note"].startswith("one run") else ""),
                         "agents": ms[0].get("agents")})
    table = pd.DataFrame(rows)
    return PaperResult(first.name, first.figure, table, measured, runs=runs)


# ---------------------------------------------------------------------- Figs 7-10, Table I
def _fig7_tasks(train_games: int, seed: int) -> dict:
    out = {}
    for label, name, p in FIG7_AGENTS:
        keep = any(name == n and p == q for _, n, q in SELECTED)
        out[label] = train_spec(name, p, [(PAPER_LEVEL, train_games)], table=keep, seed=seed)
    return out


def fig07_win_rate_curves(train_games: int = SIZES["quick"]["train_games"], seed: int = 0,
                          executor="processes", replicates: int = 1) -> PaperResult:
    """Fig 7: cumulative win rate during training on 8x8/10, greedy vs epsilon-greedy vs UCB.
    With replicates > 1 the end points are means over independent runs (t-intervals); the
    curves drawn are run 0's."""
    result = _replicated(_fig07_once, replicates, seed, ["label"], train_games=train_games, executor=executor)
    if replicates > 1:
        ax = result.figure.axes[0]
        ax.set_title(ax.get_title() + f"; curves: run 0 of {replicates} (the table: means over runs)", fontsize=9)
    return result


def _fig07_once(train_games: int, seed: int, executor) -> PaperResult:
    import matplotlib.pyplot as plt

    df = _run(_fig7_tasks(train_games, seed), executor)
    cv = curves(df)
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for label, part in cv.groupby("label", sort=False, observed=True):
        ax.plot(part["games_end"], part["win_rate"], label=f"minelab {label}")
        ax.fill_between(part["games_end"], part["ci_low"], part["ci_high"], alpha=0.2)
    ax.set_xlabel("training games (episodes)")
    ax.set_ylabel("win rate so far (cumulative)")
    ax.set_title(f"Fig 7: win rate during training, {PAPER_LEVEL} ({train_games:,} games each)\n"
                 "band: 95% Wilson interval; published: no values drawn (text: greedy over 70%, first; then ε=0.01)",
                 fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    final = _final(cv)
    table = final[["label", "games_end", "cum_wins", "win_rate", "ci_low", "ci_high", "actions", "perfect"]]
    table = table.rename(columns={"games_end": "games", "cum_wins": "wins"}).reset_index(drop=True)
    measured = [{"item": "Fig 7", "quantity": f"training win rate, {r.label}", "value": r.win_rate,
                 "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games), "agents": AGENT_OF[r.label]}
                for r in table.itertuples()]
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
    ax.set_title(f"Fig 8: actions recorded during training, {PAPER_LEVEL}\n"
                 "published: no values drawn (text: UCB records almost twice the greedy agent's)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    final = _final(cv).set_index("label")
    table = final[["games_end", "actions", "perfect"]].rename(columns={"games_end": "games"}).reset_index()
    ratio = final.loc["UCB", "actions"] / final.loc["greedy", "actions"]
    measured = [{"item": "Fig 8", "quantity": "actions recorded, UCB / greedy", "value": float(ratio),
                 "games": int(final.loc["UCB", "games_end"]),
                 "note": "one run each (a count, no sampling interval)",
                 "agents": [AGENT_OF["UCB"], AGENT_OF["greedy"]]}]
    if final.loc["greedy", "perfect"]:
        measured.append({"item": "Fig 8", "quantity": "perfect actions, UCB / greedy",
                         "value": float(final.loc["UCB", "perfect"] / final.loc["greedy", "perfect"]),
                         "games": int(final.loc["UCB", "games_end"]),
                         "note": "one run each (a count, no sampling interval)",
                         "agents": [AGENT_OF["UCB"], AGENT_OF["greedy"]]})
    for r in table.itertuples():
        measured += [{"item": "Fig 8", "quantity": f"actions recorded, {r.label}", "value": r.actions,
                      "games": int(r.games), "note": "one run", "agents": AGENT_OF[r.label]},
                     {"item": "Fig 8", "quantity": f"perfect actions, {r.label}", "value": r.perfect,
                      "games": int(r.games), "note": "one run", "agents": AGENT_OF[r.label]}]
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
    fig.suptitle(f"Fig 9: ECDF of action values after {train_games:,} games on {PAPER_LEVEL}\n"
                 "published: no values drawn (text: most actions perfect, most of those safe)", fontsize=9)
    fig.tight_layout()
    table = pd.DataFrame(rows)
    measured = []
    for r in rows:
        perfect = r["share_q_minus_1"] + r["share_q_plus_1"]
        note = f"{r['actions']} actions (shares of the action table, not of games: no sampling interval)"
        agent = AGENT_OF[r["label"]]
        measured += [
            {"item": "Fig 9", "quantity": f"share of actions with Q = -1, {r['label']}", "value": r["share_q_minus_1"],
             "games": train_games, "note": f"{r['actions']} actions", "agents": agent},
            {"item": "Fig 9", "quantity": f"share of perfect actions (Q = -1 or 1), {r['label']}", "value": perfect,
             "games": train_games, "note": note, "agents": agent},
            {"item": "Fig 9", "quantity": f"share of safe actions (Q = -1) among perfect actions, {r['label']}",
             "value": r["share_q_minus_1"] / perfect if perfect else float("nan"), "games": train_games, "note": note,
             "agents": agent}]
    measured = [m for m in measured if not math.isnan(m["value"])]
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
            half = (float(sps.t.ppf(0.975, n.size - 1) * n.std(ddof=1) / math.sqrt(n.size)) if n.size > 1
                    else float("nan"))
            rows.append({"agent": label, "actions": which, "count": n.size, "mean_n": mean,
                         "ci_low": mean - half, "ci_high": mean + half})
            measured.append({"item": "Table I", "quantity": f"mean N, {which} actions, {label}", "value": mean,
                             "ci_low": mean - half, "ci_high": mean + half, "games": train_games,
                             "note": f"mean over {n.size} actions; 95% t-interval", "agents": AGENT_OF[label]})
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
                train_spec(name, {**p, **ab}, [(PAPER_LEVEL, train_games)], seed=seed)
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
    fig.suptitle(f"Fig 10: ablations on {PAPER_LEVEL}, {train_games:,} games each (published: no values drawn; "
                 "text: without flags both stay below 12%)\nno flags: mine-looking (tile, window) pairs skipped; "
                 "tiles rule: a tile whose most certain window says mine is skipped", fontsize=9)
    fig.tight_layout()
    final = _final(cv)
    table = final[["agent", "variant", "games_end", "cum_wins", "win_rate", "ci_low", "ci_high", "actions", "perfect"]]
    table = table.rename(columns={"games_end": "games", "cum_wins": "wins"}).reset_index(drop=True)
    measured = [{"item": "Fig 10", "quantity": f"training win rate, {r.agent}, {r.variant}", "value": r.win_rate,
                 "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games), "agents": AGENT_OF[r.agent]}
                for r in table.itertuples()]
    no_flags = table[table["variant"] == "no flags"].sort_values("win_rate").iloc[-1]
    measured.append({"item": "Fig 10", "quantity": "win rate without flags, upper bound", "value": no_flags.win_rate,
                     "ci_low": no_flags.ci_low, "ci_high": no_flags.ci_high, "games": int(no_flags.games),
                     "note": f"the better of greedy and UCB without flags, pairs rule ({no_flags.agent})",
                     "agents": [name for _, name, _ in SELECTED]})
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
    n_rows = (len(table) + cols - 1) // cols
    fig, axes = plt.subplots(n_rows, cols, figsize=(2.1 * cols, 2.4 * n_rows))
    for ax in np.ravel(axes):
        ax.set_axis_off()
    for ax, r in zip(np.ravel(axes), table.itertuples()):
        window, target = decode_key(r.key)
        draw_window(ax, window, target, title=f"{r.group}\nQ={r.q:+.3f} N={r.n:,}")
        ax.title.set_fontsize(7)
    fig.suptitle(f"Greedy agent's learned patterns after {train_games:,} games on {PAPER_LEVEL} (minelab; target "
                 "highlighted, canonical orientation)", fontsize=9)
    fig.tight_layout()
    return PaperResult("fig_top_patterns", fig, table, [])


# ---------------------------------------------------------------------- Figs 11-12
def _mines(cells: int, density: float) -> int:
    # nearest integer, halves up (the paper does not say; Python's round() would send 4.5 to 4)
    return max(1, int(math.floor(cells * density + 0.5)))


def _grid_run(levels: dict, games: int, seed: int, executor) -> pd.DataFrame:
    tasks = {lab: train_spec(GRID_AGENT, {}, [(lv, games)], seed=seed) for lab, lv in levels.items()}
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
    measured = [{"item": "Fig 11", "quantity": f"training win rate, {r.height}x{r.width}x{r.mines}",
                 "value": r.win_rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games),
                 "agents": GRID_AGENT} for r in table.itertuples()]
    top = table.loc[table["win_rate"].idxmax()]
    sides = f"{GRID_SIDES[0]}..{GRID_SIDES[-1]}"
    measured.append({"item": "Fig 11", "quantity": f"highest win rate over board sizes {sides} x {sides}",
                     "value": top.win_rate, "ci_low": top.ci_low,
                     "ci_high": top.ci_high, "games": int(top.games),
                     "note": f"{int(top.height)}x{int(top.width)}x{int(top.mines)}", "agents": GRID_AGENT})
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
         "note": "win rate at height 3 minus height 10, averaged over densities; normal-approximation interval",
         "agents": GRID_AGENT},
        {"item": "Fig 12", "quantity": f"mean win-rate decrease over densities {lo_d:.2f}..{hi_d:.2f}",
         "value": by_density, "ci_low": by_density - z * by_density_se, "ci_high": by_density + z * by_density_se,
         "games": grid_games,
         "note": "win rate at density 0.14 minus 0.20, averaged over heights; normal-approximation interval",
         "agents": GRID_AGENT},
    ]
    # the text also states a bound on the same number ("at least 25%"): the same measurement, its own ledger line
    measured.append({**measured[1], "quantity": measured[1]["quantity"] + ", lower bound",
                     "note": "the same number as the row above, judged against the text's lower bound"})
    measured += [{"item": "Fig 12",
                  "quantity": f"training win rate, 10 wide, height {r.height}, density {r.density:.2f}",
                  "value": r.win_rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games),
                  "agents": GRID_AGENT} for r in table.itertuples()]
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
    ax.set_title(title + "\nminelab, cells: win rate % (published: no values drawn)", fontsize=9)
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
                               executor="processes", mines=(3, 4, 5), replicates: int = 1) -> PaperResult:
    """Table II: MAB vs state-action greedy on 4x4 with 3-5 mines: win rate so far and
    actions (state-action pairs) recorded after table2_games/10 and table2_games games;
    the MAB agent also without symmetries (see TABLE2_AGENTS). With replicates > 1: means
    over independent runs with t-intervals."""
    return _replicated(_table2_once, replicates, seed, ["agent", "mines", "games"], table2_games=table2_games,
                       executor=executor, mines=mines)


def _table2_once(table2_games: int, seed: int, executor, mines) -> PaperResult:
    agents = [(kind, name, p, RULE) for kind, name, p in TABLE2_AGENTS]
    return table2_runs(table2_games, seed, executor, mines, agents, "table2_mab_vs_state_action")


def table2_runs(table2_games: int, seed: int, executor, mines, agents, name: str) -> PaperResult:
    """One run of Table II's experiment for `agents` ((label, agent, params, first-click
    rule) each; a label starting "SA" records state-action pairs): win rate so far and
    actions recorded after table2_games/10 and table2_games games on 4x4 with `mines`."""
    tasks, agent_of = {}, {label: agent for label, agent, _, _ in agents}
    for m in mines:
        for label, agent, p, rule in agents:
            tasks[f"{label}|{m}"] = train_spec(agent, p, [(f"4x4x{m}:{rule}", table2_games)], seed=seed)
    cv = curves(_run(tasks, executor))
    checkpoints = sorted({max(1, table2_games // 10), table2_games})
    rows, measured = [], []
    for label, part in cv.groupby("label", sort=False, observed=True):
        kind, m = label.split("|")
        what = "pairs recorded" if kind.startswith("SA") else "actions recorded"
        for cp in checkpoints:
            r = part[part["games_end"] <= cp].iloc[-1]
            rows.append({"agent": kind, "mines": int(m), "games": int(r.games_end), "wins": int(r.cum_wins),
                         "win_rate": r.win_rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "recorded": int(r.actions)})
            setting = f"4x4x{m}, {int(r.games_end)} games"
            measured += [{"item": "Table II", "quantity": f"{kind} win rate, {setting}", "value": r.win_rate,
                          "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games_end),
                          "agents": agent_of[kind]},
                         {"item": "Table II", "quantity": f"{kind} {what}, {setting}", "value": int(r.actions),
                          "games": int(r.games_end), "note": "one run (a count)", "agents": agent_of[kind]}]
    return PaperResult(name, None, pd.DataFrame(rows), measured)


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
                 "note": ("best or tied (Mann-Whitney 0.05)" if r.best else ""), "agents": agent}
                for r in table.itertuples()]
    return table, measured


# 11 parameters: Tables III and IV's two public signatures, passed on.
def _transfer_result(name, title, agent, params, settings, item, train_games, test_games, seed, executor,
                     replicates) -> PaperResult:
    def once(seed):
        table, measured = _transfer(agent, params, settings, train_games, test_games, seed, executor, item)
        return PaperResult(name, None, table, measured)

    result = _replicated(once, replicates, seed, ["trained on", "scenario"])
    runs = f" (means of {replicates} runs, t 95%)" if replicates > 1 else ""
    result.figure = _transfer_figure(result.table, title + runs)
    return result


def table3_transfer_greedy(train_games: int = SIZES["quick"]["train_games"],
                           test_games: int = SIZES["quick"]["test_games"], seed: int = 0,
                           executor="processes", replicates: int = 1) -> PaperResult:
    """Table III: greedy agents trained on 8x8 with 10..17 mines, tested on the standard levels."""
    return _transfer_result("table3_transfer_greedy", "Table III: greedy", "greedy-mab", {}, tuple(TRANSFER),
                            "Table III", train_games, test_games, seed, executor, replicates)


def table4_transfer_ucb(train_games: int = SIZES["quick"]["train_games"],
                        test_games: int = SIZES["quick"]["test_games"], seed: int = 0,
                        executor="processes", replicates: int = 1) -> PaperResult:
    """Table IV: UCB (c = 0.1) agents trained on 8x8x10 and 8x8x15, tested on the standard levels."""
    return _transfer_result("table4_transfer_ucb", "Table IV: UCB c=0.1", "ucb-mab", {"c": 0.1}, TABLE4_SETTINGS,
                            "Table IV", train_games, test_games, seed, executor, replicates)


def _per_run(result: PaperResult) -> pd.DataFrame:
    """A result's per-run table (column `run`): its `runs`, or its one table as run 0."""
    return result.runs if result.runs is not None else result.table.assign(run=0)


def _outcomes(row) -> np.ndarray:
    """The 0/1 game outcomes of a (setting, scenario) row of one run, rebuilt from its
    counts (Mann-Whitney on 0/1 samples depends on nothing else)."""
    return np.repeat([1, 0], [int(row.wins), int(row.games) - int(row.wins)])


def transfer_claims(table3: PaperResult, table4: PaperResult) -> PaperResult:
    """The introduction's and §V-C's statements about all seven agents of Tables III and IV,
    computed in each independent run from that run's test games and summarised over runs
    (mean, 95% t-interval; a single run has no interval):

    - the best beginner and intermediate test win rates over the seven agents ("over 75% and
      55%");
    - on how many test levels the greedy 8x8x15 agent "undisputedly prevailed over its
      rivals": higher than each of the six others and significantly so (Mann-Whitney on the
      0/1 outcomes, two-sided, 0.05), the paper's test and level;
    - the rank of the UCB 8x8x15 agent's beginner win rate among the seven ("second best").
    """
    agents = pd.concat([_per_run(table3).assign(agent="greedy"), _per_run(table4).assign(agent="UCB")],
                       ignore_index=True)
    agents = agents[agents["scenario"] != "training"]
    rows = []
    for run, part in agents.groupby("run", sort=True):
        rec = {"run": int(run)}
        for scen in ("beginner", "intermediate"):
            rec[f"best {scen}"] = float(part.loc[part["scenario"] == scen, "win_rate"].max())
        prevailed = 0
        for scen in TEST_LEVELS:
            sub = part[part["scenario"] == scen]
            me = sub[(sub["agent"] == "greedy") & (sub["trained on"] == "8x8x15")].iloc[0]
            rivals = sub.drop(index=me.name)
            prevailed += all(me.win_rate > r.win_rate and mann_whitney(_outcomes(me), _outcomes(r))["p_value"] < 0.05
                             for r in rivals.itertuples())
        rec["greedy 8x8x15 prevails"] = prevailed
        beg = part[part["scenario"] == "beginner"].sort_values("win_rate", ascending=False, kind="stable")
        names = list(beg["agent"] + " " + beg["trained on"])
        rec["UCB 8x8x15 beginner rank"] = names.index("UCB 8x8x15") + 1
        rows.append(rec)
    table = pd.DataFrame(rows)
    games = int(agents["games"].max())
    quantities = {
        "best beginner": ("Table III", "best beginner win rate over the agents of Tables III and IV"),
        "best intermediate": ("Table III", "best intermediate win rate over the agents of Tables III and IV"),
        "greedy 8x8x15 prevails": ("Table III", "test levels on which the 8x8x15 greedy agent is significantly "
                                                "best (Mann-Whitney, 0.05)"),
        "UCB 8x8x15 beginner rank": ("Table IV", "rank of the 8x8x15 UCB agent's beginner win rate among all "
                                                 "tested agents"),
    }
    measured = []
    for col, (item, quantity) in quantities.items():
        mean, lo, hi = t_interval(table[col].to_numpy())
        values = ", ".join(f"{v:g}" for v in table[col])
        measured.append({"item": item, "quantity": quantity, "value": mean, "ci_low": lo, "ci_high": hi,
                         "games": games, "runs": len(table),
                         "note": f"per run: {values}; the seven agents of Tables III and IV, {games:,} test games "
                                 "per agent and level" + ("; mean and 95% t-interval over runs" if len(table) > 1
                                                          else ""),
                         "agents": ["greedy-mab", "ucb-mab"]})
    return PaperResult("transfer_claims", None, table, measured)


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
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(f"{title} agents: training and test win rates", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------- text vs code
VARIANTS = (
    ("greedy, code (defaults)", "greedy-mab", {}, PAPER_LEVEL),
    ("greedy, text: agent's own first click, first click safe", "greedy-mab", {"first_move": "agent"}, "8x8x10:safe"),
    ("greedy, text: learn only passed-over actions at the end", "greedy-mab", {"end_learning": "last-passed-over"},
     PAPER_LEVEL),
    ("UCB c=0.1, code: bonus toward certainty", "ucb-mab", {"c": 0.1}, PAPER_LEVEL),
    ("UCB c=0.1, textbook: optimistic bonus", "ucb-mab", {"c": 0.1, "ucb_bonus": "optimism"}, PAPER_LEVEL),
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


# ---------------------------------------------------------------------- texts
# The notebook's commentary: every number below comes from the results; every verdict on a
# published number is the fidelity ledger's (minelab.papers.judged and its siblings).
PAPER_TRAIN = SIZES["paper"]["train_games"]  # the paper's training size (10^6 games)


def _published(item: str) -> dict:
    """{quantity: value} of one item of data/published/lordeiro2021.csv."""
    from .. import report

    pub = report.load_published(PAPER, claims=False)
    pub = pub[pub["item"] == item]
    return dict(zip(pub["quantity"], pub["value"]))


def _overlap(a, b) -> bool:
    return bool(a.ci_low <= b.ci_high and b.ci_low <= a.ci_high)


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def _rate(r) -> str:
    return f"{r.win_rate:.4f} ({r.ci_low:.4f}-{r.ci_high:.4f})"


def _size(games: int, what: str = "games", inner: bool = False) -> str:
    """'30,000 games (the paper: 1,000,000)'; inner: '30,000 games; the paper: 1,000,000' (inside parentheses)."""
    if games == PAPER_TRAIN:
        return f"{games:,} {what}"
    return f"{games:,} {what}" + (f"; the paper: {PAPER_TRAIN:,}" if inner else f" (the paper: {PAPER_TRAIN:,})")


def _ledger_block(lines, item: str, quantities=None, labels: dict | None = None) -> list[str]:
    """Markdown bullets: the ledger's line (published, ours, verdict) of each published
    number of `item` (all, or `quantities`), labelled by `labels` where given."""
    rows = lines[lines["item"] == item]
    wanted = list(rows["quantity"]) if quantities is None else [q for q in quantities if q in set(rows["quantity"])]
    return ["* " + judged(PAPER, item, q, label=(labels or {}).get(q), lines=rows) for q in wanted]


def fig07_text(result: PaperResult) -> str:
    """Markdown commentary of `fig07_win_rate_curves`: greedy's final win rate with the
    ledger's verdict on Fig 7's published bound (Table III's 8x8x10 training row, the same
    experiment, is judged with Table III), and the agents ranked beside the order the
    paper describes."""
    t = result.table.set_index("label")
    games = int(t["games"].max())
    g = t.loc["greedy"]
    order = t.sort_values("win_rate", ascending=False)
    ranking = ", ".join(f"{i + 1}. {label} {r.win_rate:.3f}" for i, (label, r) in enumerate(order.iterrows()))
    ucb = [lab for lab in ("UCB c=0.01", "UCB c=0.1") if lab in t.index]
    same = _published("Table III").get("training win rate, trained on 8x8x10")
    out = [f"**Paper vs minelab.** After {_size(games, 'games per agent')}, minelab's greedy agent ends at a "
           f"cumulative training win rate of {_rate(g)}"
           + (f"; Table III publishes {same:.4f} for the same experiment, and the ledger judges it with Table III "
              "below" if same is not None else "")
           + ". The ledger on Fig 7's published number (it judges the largest profile measured):", ""]
    out += _ledger_block(ledger_rows(PAPER), "Fig 7", ["training win rate, greedy"])
    text = (f"\nRanked by final win rate: {ranking}. The paper's order is greedy first, then ε-greedy with "
            "ε = 0.01, then UCB with c = 0.01 and c = 0.1, which it calls tied, with ε = 0.1 and c = 1 behind; it "
            "gives the order without numbers, so no ledger row judges it")
    if len(ucb) == 2:
        a, b = t.loc[ucb[0]], t.loc[ucb[1]]
        text += (f". Here UCB c = 0.01 and c = 0.1 end at {_rate(a)} and {_rate(b)}: their 95% intervals "
                 + ("overlap" if _overlap(a, b) else "are apart"))
    text += (". The paper tells the families apart by the curves' shapes: UCB starts near zero (every unseen "
             "action is tried first) and climbs slowly, while the greedy curves rise at once and flatten; the "
             "figure above shows ours.")
    if games < PAPER_TRAIN:
        best_ucb = max((t.loc[lab, "win_rate"] for lab in ucb), default=float("nan"))
        text += (f" With {games:,} games the curves stop early in their rise: the UCB agents end at "
                 f"{best_ucb:.3f} at best, against greedy's {g.win_rate:.3f}.")
    return "\n".join(out) + "\n" + text


def fig08_text(result: PaperResult, fig07: PaperResult | None = None) -> str:
    """Markdown commentary of `fig08_actions_recorded` (the paper: UCB records "almost
    twice" the greedy agent's actions) with the ledger's verdicts on Fig 8's published
    ratios, and Fig 7's win rates when `fig07` is given."""
    t = result.table.set_index("label")
    g, u = t.loc["greedy"], t.loc["UCB"]
    games = int(t["games"].max())
    ratio, perfect = _ratio(u.actions, g.actions), _ratio(u.perfect, g.perfect)
    out = [f"After {_size(games, 'training games')} UCB c = 0.1 records {int(u.actions):,} actions and greedy "
           f"{int(g.actions):,}, a ratio of {ratio:.2f} (the paper: \"almost twice\"); perfect actions "
           f"{int(u.perfect):,} vs {int(g.perfect):,} ({perfect:.2f}). Counts come from one run each and carry no "
           "sampling interval. The ledger on Fig 8's published ratios:", ""]
    out += _ledger_block(ledger_rows(PAPER), "Fig 8")
    if fig07 is not None:
        f7 = fig07.table.set_index("label")
        if {"greedy", "UCB c=0.1"} <= set(f7.index):
            out += ["", f"The paper's point is that knowing more actions does not make UCB win more (it states no "
                    f"number for it): in Fig 7 UCB c = 0.1 wins {_rate(f7.loc['UCB c=0.1'])} and greedy "
                    f"{_rate(f7.loc['greedy'])}."]
    return "\n".join(out)


def table1_text(result: PaperResult, fig09: PaperResult | None = None) -> str:
    """Markdown commentary of `table1_action_counts` beside the published Table I, with the
    ledger's verdicts, and of Fig 9's ECDFs (with the ledger's verdicts on Fig 9's
    published bounds) when `fig09` is given."""
    t = result.table
    pub = _published("Table I")
    lines = ledger_rows(PAPER)
    games = int(result.measured[0]["games"]) if result.measured else 0
    order = ("perfect", "non-perfect", "all")
    parts, gaps = [], []
    for agent, part in t.groupby("agent", sort=False):
        part = part.set_index("actions")
        ours = " / ".join(f"{part.loc[w, 'mean_n']:.1f}" for w in order)
        theirs = [pub.get(f"mean N, {w} actions, {agent}") for w in order]
        text = f"{agent} {ours}"
        if all(v is not None for v in theirs) and part.loc[list(order), "mean_n"].notna().all():
            text += " against the published " + " / ".join(f"{v:.2f}" for v in theirs)
            gaps += [abs(part.loc[w, "mean_n"] - v) / v for w, v in zip(order, theirs)]
        parts.append(text)
    widest = float(((t["ci_high"] - t["ci_low"]) / 2 / t["mean_n"]).replace([np.inf, -np.inf], np.nan).max())
    out = [f"**Table I** after {_size(games, 'training games')}: " + ", and ".join(parts)
           + f" (perfect / non-perfect / all). The intervals are wide (up to ±{widest:.0%} of the mean): the counts "
             "are very uneven across window patterns."
           + (f" The largest gap is {max(gaps):.0%} of the published value." if gaps else "")]
    rows = lines[lines["item"] == "Table I"]
    if len(rows):
        out += ["", f"The ledger on Table I's {len(rows)} published numbers: {tally(rows)}."]
        out += _ledger_block(lines, "Table I", [q for q, c in zip(rows["quantity"], rows["category"]) if c != AGREES])
    if fig09 is not None:
        f9 = fig09.table.set_index("label")
        share = {lab: r.share_q_minus_1 + r.share_q_plus_1 for lab, r in f9.iterrows()}
        out += ["", "Fig 9's ECDFs: perfect actions (Q = -1 or +1, as any action taken only once has) are "
                + " and ".join(f"{s:.0%} of the {lab} agent's" for lab, s in share.items())
                + " recorded actions; the median Q is "
                + " and ".join(f"{r.median_q:+.2f} ({lab})" for lab, r in f9.iterrows())
                + ". The ledger on Fig 9's published bounds:", ""]
        out += _ledger_block(lines, "Fig 9")
    if games and games < PAPER_TRAIN:
        out += ["", f"With {games:,} training games instead of {PAPER_TRAIN:,} every count is far smaller than "
                "the published ones: Table I measures how often each action was used."]
    return "\n".join(out)


def fig10_text(result: PaperResult) -> str:
    """Markdown commentary of `fig10_ablations`: the two readings of the flagless agent
    beside the paper's "below 12%" (the ledger's verdict on it), and what symmetries are
    worth."""
    t = result.table.set_index(["agent", "variant"])
    games = int(t["games"].max())
    bound = _published("Fig 10").get("win rate without flags, upper bound", 0.12)
    agents = list(dict.fromkeys(t.index.get_level_values(0)))

    def rates(variant, ci=False):
        return ", ".join(f"{a} {_rate(t.loc[(a, variant)]) if ci else format(t.loc[(a, variant)].win_rate, '.3f')}"
                         for a in agents if (a, variant) in t.index)

    pairs = [t.loc[(a, "no flags")].win_rate for a in agents if (a, "no flags") in t.index]
    tiles = [t.loc[(a, "no flags, tiles rule")].win_rate for a in agents if (a, "no flags, tiles rule") in t.index]
    factor = _ratio(float(np.mean(tiles)), float(np.mean(pairs))) if pairs and tiles else float("nan")
    differ = (f"the two readings differ by a factor of {factor:.1f} here" if np.isfinite(factor) else
              "the two readings cannot be compared by a factor here (no win under the pairs rule)")
    g_full, g_nosym = t.loc[(agents[0], "flags, symmetries")], t.loc[(agents[0], "no symmetries")]
    neither = [t.loc[(a, "neither")].win_rate for a in agents]
    lines = [
        f"**Paper vs minelab** ({_size(games, 'games each', inner=True)}). Without flags the paper says both "
        f"agents stay below {bound:.0%}. The text does not say how its flagless agent \"just avoided risky tiles\", "
        f"and {differ}:",
        "",
        "* **pairs rule** (the agent's default without flags): only the mine-looking (tile, window) pairs are "
        "skipped, so a tile can be revealed through one safe-looking window while another of its windows says it "
        f"surely holds a mine. {rates('no flags', ci=True)}.",
        "* **tiles rule**: a tile whose most certain window says \"mine\" is never revealed. "
        f"{rates('no flags, tiles rule', ci=True)}.",
        "",
        "The agent keeps the pairs rule; the ledger's row on the published bound:",
        "",
        *_ledger_block(ledger_rows(PAPER), "Fig 10", ["win rate without flags, upper bound"]),
        "",
        f"Without symmetries the agents win {rates('no symmetries')}, against {rates('flags, symmetries')} with both, "
        f"and {agents[0]} records {int(g_nosym.actions):,} actions instead of {int(g_full.actions):,} (the paper: "
        f"they learn more slowly; it gives no number); with neither, {rates('neither')} (at most {max(neither):.3f}).",
    ]
    return "\n".join(lines)


def fig11_text(result: PaperResult) -> str:
    """Markdown commentary of `fig11_size_heatmap` (published as a figure, with one
    number: the ledger's verdict on it)."""
    t = result.table
    games = int(t["games"].max())
    wr = t.set_index(["height", "width"])["win_rate"]
    mines = t.set_index(["height", "width"])["mines"]
    rho = float(sps.spearmanr(t["height"] * t["width"], t["win_rate"]).statistic) if len(t) > 2 else float("nan")
    full = t[t["win_rate"] >= 0.995]
    asym = [abs(wr[(h, w)] - wr[(w, h)]) for h, w in wr.index if h < w and (w, h) in wr.index]
    shown = [(h, w) for h, w in ((8, 8), (5, 10), (10, 10)) if (h, w) in wr.index]
    text = (f"* **Fig 11** ({_size(games, 'training games per board', inner=True)}). "
            "The paper gives it without numbers but shows 100% cells, and the win rate falling as the board grows "
            "at the same density. Spearman correlation of our win rate with the number of cells: "
            f"{'n/a' if np.isnan(rho) else format(rho, '+.2f')}; ")
    if len(full):
        boards = [f"{r.height}x{r.width}" for r in full.itertuples()]
        text += ("100% to rounding on " + (", ".join(boards[:-1]) + " and " if len(boards) > 1 else "") + boards[-1]
                 + f" ({_mine_range(full['mines'])}), ")
    else:
        text += "no cell rounds to 100% here; "
    text += ", ".join(f"{wr[k]:.0%} on {k[0]}x{k[1]} ({int(mines[k])} mines)" for k in shown)
    if (8, 8) in wr.index:
        text += " (8x8 with 10 mines is Fig 7's beginner board)"
    if asym:
        text += (f". A board and its transpose are the same game: the largest gap between h x w and w x h is "
                 f"{max(asym):.3f}.")
    else:
        text += "."
    verdicts = _ledger_block(ledger_rows(PAPER), "Fig 11")
    if verdicts:
        text += "\n\n  The ledger on Fig 11's published number:\n\n" + "\n".join("  " + v for v in verdicts)
    return text


def _mine_range(mines) -> str:
    lo, hi = int(min(mines)), int(max(mines))
    return f"{lo} mine{'s' if lo > 1 else ''}" if lo == hi else f"{lo}-{hi} mines"


def fig12_text(result: PaperResult) -> str:
    """Markdown commentary of `fig12_density_heatmap`: our two average decreases with the
    ledger's verdicts on the paper's."""
    t = result.table
    games = int(t["games"].max())
    ours = {m["quantity"]: m for m in result.measured}
    lo_h, hi_h = min(GRID_SIDES), max(GRID_SIDES)
    lo_d, hi_d = min(FIG12_DENSITIES), max(FIG12_DENSITIES)
    q_h = f"mean win-rate decrease over heights {lo_h}..{hi_h}"
    q_d = f"mean win-rate decrease over densities {lo_d:.2f}..{hi_d:.2f}"
    dh, dd = ours[q_h], ours[q_d]

    def one(m):
        return f"{100 * m['value']:.1f} points (95% {100 * m['ci_low']:.1f}-{100 * m['ci_high']:.1f})"

    lines = [f"* **Fig 12** ({_size(games, 'training games per board', inner=True)}). Going from density "
             f"{lo_d:.2f} to {hi_d:.2f} costs, on average over heights, {one(dd)}; going from height {lo_h} to "
             f"{hi_h} costs, on average over densities, {one(dh)} (the paper: density hurts more than height). The "
             "paper does not define these averages; we read them as percentage points at the ends of each axis, "
             "averaged over the other axis, so a gap may be one of definition. The ledger on Fig 12's published "
             "numbers:", ""]
    lines += ["  " + v for v in _ledger_block(ledger_rows(PAPER), "Fig 12")]
    shared = t.groupby(["height", "mines"]).filter(lambda g: len(g) > 1)
    if len(shared):
        h, m = shared.iloc[0][["height", "mines"]].astype(int)
        ds = shared[(shared["height"] == h) & (shared["mines"] == m)]["density"]
        lines += ["", f"* Mine counts are rounded half up, so neighbouring densities can share a board ({h}x10 at "
                  f"densities {', '.join(f'{d:.2f}' for d in ds)} has {m} mines), and then the same run fills both "
                  "cells."]
    return "\n".join(lines)


def table2_text(result: PaperResult) -> str:
    """Markdown commentary of `table2_mab_vs_state_action` beside the published Table II,
    row by row where this run's game counts are the paper's (10^5 and 10^6 games), with
    the ledger's verdicts (and the readings it credits) on the published numbers."""
    t = result.table
    pub = _published("Table II")
    what = {"MAB": "actions recorded", "SA": "pairs recorded"}

    def quantity(kind, m, g, q):
        return f"{kind} win rate, 4x4x{m}, {g} games" if q == "win" else f"{kind} {what[kind]}, 4x4x{m}, {g} games"

    checkpoints = sorted(int(g) for g in t["games"].unique())
    paper_games = sorted({int(q.split(", ")[-1].split()[0]) for q in pub})
    matched = [g for g in checkpoints if g in paper_games]
    lines = []
    first, last = checkpoints[0], checkpoints[-1]
    by = t.set_index(["agent", "mines", "games"])
    mines = sorted(int(m) for m in t["mines"].unique())
    if not matched:
        ours_at = ", ".join(f"{g:,}" for g in checkpoints)
        lines.append(f"**Paper vs minelab.** None of this run's checkpoints ({ours_at} "
                     f"games) is one of the paper's ({', '.join(f'{g:,}' for g in paper_games)}), so no row compares "
                     "with the published table; the table above shows ours alone.")
        lines.append("")
    else:
        g = matched[-1]
        ledger = ledger_rows(PAPER, "Table II")
        lines.append(f"**Paper vs minelab** (cumulative win rate and table size; this run's rows at "
                     f"{' and '.join(f'{x:,}' for x in matched)} games are the published ones' game counts). The "
                     f"ledger on the {len(ledger)} published numbers of Table II: {tally(ledger)}.")
        lines.append("")
        sa = [(m, by.loc[("SA", m, g)], pub.get(quantity("SA", m, g, "win")), pub.get(quantity("SA", m, g, "rec")))
              for m in mines if ("SA", m, g) in by.index]
        if sa:
            lines.append(f"* **The state-action agent** after {g:,} games: "
                         + "; ".join(f"4x4x{m} wins {_rate(r)} (published {p:.4f}), {int(r.recorded):,} pairs "
                                     f"recorded (published {int(q):,})" for m, r, p, q in sa
                                     if p is not None and q is not None) + ". The ledger:")
            lines += ["  " + v for v in _ledger_block(ledger, "Table II", [quantity("SA", m, g, k) for m, *_ in sa
                                                                           for k in ("win", "rec")])]
        mab = [(m, by.loc[("MAB", m, g)], by.loc[("MAB without symmetries", m, g)],
                pub.get(quantity("MAB", m, g, "win")), pub.get(quantity("MAB", m, g, "rec"))) for m in mines
               if ("MAB", m, g) in by.index and ("MAB without symmetries", m, g) in by.index]
        if mab:
            lines.append(f"* **The MAB column** after {g:,} games: our MAB agent (with symmetries) and the same "
                         "agent *without symmetries* beside the published MAB agent, win rate and actions recorded: "
                         + "; ".join(f"4x4x{m}: {_rate(r)} and {_rate(n)} against {p:.4f}, {int(r.recorded):,} and "
                                     f"{int(n.recorded):,} against {int(q):,}" for m, r, n, p, q in mab
                                     if p is not None and q is not None)
                         + ". The ledger judges our MAB agent and lists the readings registered on each number, "
                           "with how many of its scope each reproduces:")
            lines += ["  " + v for v in _ledger_block(ledger, "Table II", [quantity("MAB", m, g, k) for m, *_ in mab
                                                                           for k in ("win", "rec")])]
    if ("SA", mines[0], first) in by.index and ("MAB", mines[0], first) in by.index:
        early = "; ".join(f"4x4x{m} {by.loc[('SA', m, first)].win_rate:.3f} vs {by.loc[('MAB', m, first)].win_rate:.3f}"
                          for m in mines)
        keys = min(_ratio(by.loc[("SA", m, last)].recorded, by.loc[("MAB", m, last)].recorded) for m in mines)
        late = "; ".join(f"4x4x{m} {100 * (by.loc[('SA', m, last)].win_rate - by.loc[('MAB', m, last)].win_rate):+.1f}"
                         for m in mines)
        lines.append(f"* The SA agent against the MAB agent (the paper: SA needs more games; it states this without "
                     f"a number): after {first:,} games SA wins {early} (SA vs MAB); after {last:,} games it records "
                     f"at least {keys:.1f} times more keys, and its win rate minus MAB's is, in points, {late}.")
    return "\n".join(lines)


def _transfer_rows(result: PaperResult, item: str) -> list:
    """(setting, scenario, our row, published value) of Table III or IV."""
    pub = _published(item)
    out = []
    for r in result.table.itertuples():
        out.append((r._1, r.scenario, r, pub.get(f"{r.scenario} win rate, trained on {r._1}")))
    return out


def _denser(rate, low: str, high: str) -> int:
    """How many test levels `high` beats `low` on (rate: (setting, scenario) -> win rate)."""
    return sum(rate[(high, s)] > rate[(low, s)] for s in TEST_LEVELS if (high, s) in rate and (low, s) in rate)


def _scenario_line(rows, setting) -> tuple[str, str]:
    ours = {s: r for st, s, r, _ in rows if st == setting}
    pub = {s: p for st, s, _, p in rows if st == setting}
    tests = [s for s in TEST_LEVELS if s in ours]
    a = " / ".join(f"{ours[s].win_rate:.4f}" for s in tests)
    b = " / ".join(f"{pub[s]:.4f}" for s in tests if pub.get(s) is not None)
    return a, b


def _not_agreeing(lines, item: str) -> list[str]:
    """The ledger's bullets of the published numbers of `item` that it does not judge "agrees"."""
    rows = lines[lines["item"] == item]
    return _ledger_block(lines, item, [q for q, c in zip(rows["quantity"], rows["category"]) if c != AGREES])


def table3_text(result: PaperResult, fig07: PaperResult | None = None) -> str:
    """Markdown commentary of `table3_transfer_greedy` beside the published Table III, with
    the ledger's verdicts; with `fig07`, the spread between two greedy 8x8x10 trainings
    (different seeds)."""
    rows = _transfer_rows(result, "Table III")
    lines = ledger_rows(PAPER)
    t = result.table
    train = int(t.loc[t["scenario"] == "training", "games"].max())
    test = int(t.loc[t["scenario"] != "training", "games"].max())
    cmp_ = [(st, s, r, p) for st, s, r, p in rows if p is not None]
    gaps = [100 * abs(r.win_rate - p) for _, _, r, p in cmp_]
    rel = [(abs(r.win_rate - p) / p, st, s, r, p) for st, s, r, p in cmp_ if p > 0]
    worst = max(rel) if rel else None
    cells = lines[(lines["item"] == "Table III") & lines["quantity"].str.contains(" win rate, trained on ")]
    text = (f"**Table III (greedy)** ({train:,} training games, {test:,} test games per level; the paper's: "
            f"{PAPER_TRAIN:,} and 10,000). The ledger on its {len(cells)} published win rates: {tally(cells)}"
            + (f"; ours lie within {max(gaps):.1f} percentage points of them (median {np.median(gaps):.1f})"
               if gaps else ""))
    examples = []
    for setting in ("8x8x15", "8x8x10"):
        tr = [(r, p) for st, s, r, p in rows if st == setting and s == "training"]
        if tr:
            a, b = _scenario_line(rows, setting)
            examples.append(f"{setting} trains at {tr[0][0].win_rate:.4f} (published {tr[0][1]:.4f}) and tests at "
                            f"{a} on beginner / intermediate / expert (published {b})")
    if examples:
        text += ": for instance " + "; ".join(examples)
    text += "."
    if worst is not None:
        text += (f" The largest relative gap is {worst[1]} on {worst[2]}, {worst[3].win_rate:.4f} vs "
                 f"{worst[4]:.4f}.")
    if fig07 is not None:
        f7 = fig07.table.set_index("label")
        mine = [r for st, s, r, _ in rows if st == "8x8x10" and s == "training"]
        if "greedy" in f7.index and mine:
            a, b = f7.loc["greedy"], mine[0]
            half = (b.ci_high - b.ci_low) / 2
            text += (f" Two greedy 8x8x10 trainings with different seeds, Fig 7's and this table's, ended at "
                     f"{a.win_rate:.4f} and {b.win_rate:.4f}, against intervals of ±{half:.4f}: "
                     + ("farther apart than one interval" if abs(a.win_rate - b.win_rate) > half else
                        "within one interval") + "; a learner's runs may differ by more than one run's Wilson "
                                                 "interval.")
    out = [text]
    odd = [v for v in _not_agreeing(lines, "Table III") if " win rate, trained on " in v]
    if odd:
        out += ["", "The ledger's other verdicts on these published win rates:", "", *odd]
    ours = {(st, s): r.win_rate for st, s, r, _ in rows}
    theirs = {(st, s): p for st, s, _, p in rows if p is not None}
    d_ours, d_pub = _denser(ours, "8x8x10", "8x8x15"), _denser(theirs, "8x8x10", "8x8x15")
    x_ours, x_pub = _denser(ours, "8x8x17", "8x8x15"), _denser(theirs, "8x8x17", "8x8x15")
    n = len(TEST_LEVELS)
    out += ["", f"Training denser than the test (the paper: denser training helps, up to 15 mines; 17 is too dense): "
            f"8x8x15 beats 8x8x10 on {d_ours} of {n} test levels (published: {d_pub}) and 8x8x17 on {x_ours} of {n} "
            f"(published: {x_pub})."]
    best = t[(t["scenario"] != "training") & t["best"].astype(bool)]
    outright, tied, lost = [], [], []
    for s in TEST_LEVELS:
        marked = list(best.loc[best["scenario"] == s, "trained on"])
        if "8x8x15" not in marked:
            lost.append(s)
        elif len(marked) == 1:
            outright.append(s)
        else:
            tied.append(f"{s} (with {', '.join(x for x in marked if x != '8x8x15')})")
    text = ("The paper's significance claim: 8x8x15 wins two of the three scenarios outright and ties in the "
            "third. In this table (Mann-Whitney at 0.05) 8x8x15 wins "
            + (", ".join(outright) if outright else "no scenario") + " outright"
            + (f", is tied on {' and '.join(tied)}" if tied else "")
            + (f" and is not among the best on {', '.join(lost)}" if lost else "") + ".")
    claim = claim_judged(PAPER, "Table III", "test levels on which the 8x8x15 greedy agent is significantly best "
                         "(Mann-Whitney, 0.05)", lines)
    if claim:
        text += f" Over all seven agents of Tables III and IV, {claim}."
    out += ["", text]
    if train < PAPER_TRAIN:
        below = sum(r.win_rate < p for st, s, r, p in cmp_ if s != "training")
        total = sum(1 for st, s, r, p in cmp_ if s != "training")
        out[-1] += (f" With {train:,} training games instead of {PAPER_TRAIN:,}, {below} of the {total} test win "
                    "rates lie below the published ones.")
    return "\n".join(out)


def table4_text(result: PaperResult, table3: PaperResult | None = None) -> str:
    """Markdown commentary of `table4_transfer_ucb` beside the published Table IV, with the
    ledger's verdicts, and beside greedy's Table III when `table3` is given."""
    rows = _transfer_rows(result, "Table IV")
    lines = ledger_rows(PAPER)
    t = result.table
    train = int(t.loc[t["scenario"] == "training", "games"].max())
    cmp_ = [(st, s, r, p) for st, s, r, p in rows if p is not None]
    gaps = [100 * (r.win_rate - p) for _, _, r, p in cmp_]
    mean = float(np.mean(gaps)) if gaps else float("nan")
    cells = lines[(lines["item"] == "Table IV") & lines["quantity"].str.contains(" win rate, trained on ")]
    text = (f"**Table IV (UCB c = 0.1)** ({_size(train, 'training games', inner=True)}) lies {abs(mean):.1f} points "
            f"{'below' if mean < 0 else 'above'} the published values on average; the ledger on its {len(cells)} "
            f"published win rates: {tally(cells)}")
    examples = []
    for setting in TABLE4_SETTINGS:
        tr = [(r, p) for st, s, r, p in rows if st == setting and s == "training"]
        if tr:
            a, b = _scenario_line(rows, setting)
            examples.append(f"{setting} trains at {tr[0][0].win_rate:.4f} (published {tr[0][1]:.4f}) and tests at "
                            f"{a} (published {b})")
    text += (": " + "; ".join(examples) if examples else "") + "."
    out = [text]
    odd = [v for v in _not_agreeing(lines, "Table IV") if " win rate, trained on " in v]
    if odd:
        out += ["", "The ledger's other verdicts on these published win rates:", "", *odd]
    ours = {(st, s): r.win_rate for st, s, r, _ in rows}
    theirs = {(st, s): p for st, s, _, p in rows if p is not None}
    d_ours, d_pub = _denser(ours, "8x8x10", "8x8x15"), _denser(theirs, "8x8x10", "8x8x15")
    text = (f"8x8x15 beats 8x8x10 on {d_ours} of {len(TEST_LEVELS)} test levels (published: {d_pub}; the paper: UCB "
            "profits from the denser training too).")
    if table3 is not None:
        g_rows = _transfer_rows(table3, "Table III")
        g_ours = {(st, s): r.win_rate for st, s, r, _ in g_rows}
        g_pub = {(st, s): p for st, s, _, p in g_rows if p is not None}

        def beginner_rank(u, g):
            rates = sorted([(v, "UCB " + st) for (st, s), v in u.items() if s == "beginner"]
                           + [(v, "greedy " + st) for (st, s), v in g.items() if s == "beginner"], reverse=True)
            names = [n for _, n in rates]
            return (names.index("UCB 8x8x15") + 1 if "UCB 8x8x15" in names else None), (names[0] if names else "")

        rank, top = beginner_rank(ours, g_ours)
        rank_pub, top_pub = beginner_rank(theirs, g_pub)
        pairs = [(st, s) for st in TABLE4_SETTINGS for s in ("training", *TEST_LEVELS)
                 if (st, s) in ours and (st, s) in g_ours]
        wins = sum(g_ours[k] > ours[k] for k in pairs)
        wins_pub = sum(g_pub[k] > theirs[k] for k in pairs if k in g_pub and k in theirs)
        if rank is not None:
            text += (f" On beginner its 8x8x15 agent ranks {rank} of all the agents of Tables III and IV in these "
                     f"two tables (first: {top}); in the published tables it ranks {rank_pub} (first: {top_pub}).")
            claim = claim_judged(PAPER, "Table IV", "rank of the 8x8x15 UCB agent's beginner win rate among all "
                                 "tested agents", lines)
            if claim:
                text += f" Over all seven agents, run by run, {claim}."
        text += (f" Greedy beats UCB in {wins} of the {len(pairs)} (setting, scenario) pairs they share (published: "
                 f"{wins_pub}).")
    out += ["", text]
    return "\n".join(out)


def text_vs_code_text(result: PaperResult) -> str:
    """Markdown commentary of `text_vs_code_variants`: what each of the text's readings
    costs or gains against the code's behaviour."""
    t = result.table.set_index("variant")
    games = int(t["games"].max())
    labels = [label for label, _, _, _ in VARIANTS]
    code, first, end, ucb, textbook = (t.loc[lab] for lab in labels)

    def compare(x, y):
        if _overlap(x, y):
            return "no measurable difference (the intervals overlap)"
        return f"{'better' if x.win_rate > y.win_rate else 'worse'} by {abs(x.win_rate - y.win_rate):.3f}"

    cost = code.win_rate - first.win_rate
    lines = [
        f"With {_size(games, 'training games per variant')}:",
        "",
        "* **First move.** The authors' program opens the first zero cell for the agent; the text says the first "
        "click is always safe, which we read as the agent making its own first click under the `safe` rule. "
        f"That {'costs' if cost > 0 else 'gains'} {abs(cost):.3f}: {_rate(first)} against the code's "
        f"{code.win_rate:.4f}."
        + (" A guaranteed zero opening is a large part of the published win rates, so the reproduction must use it."
           if not _overlap(first, code) and cost > 0.02 else ""),
        "* **Learning at game end.** Learning only the passed-over actions of the last decision (the text) gives "
        f"{_rate(end)}, {compare(end, code)} against the code's \"all pairs, the chosen one counted twice\" "
        f"({code.win_rate:.4f})."
        + (" A plausible reason, not tested here: counting the final action twice over-weights the one decision "
           "that lost the game." if end.win_rate > code.win_rate and not _overlap(end, code) else ""),
        "* **UCB bonus.** Pushing |Q| toward certainty (code) or the textbook optimistic bonus at c = 0.1: "
        f"{ucb.win_rate:.4f} vs {textbook.win_rate:.4f}, {compare(textbook, ucb)}.",
        "",
        "All other numbers in this notebook use the code's behaviour, as the published numbers did.",
    ]
    return "\n".join(lines)
