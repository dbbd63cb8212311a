"""`best` beside D. N. Hill's solver on the very same positions and boards.

Hill's solver (JSMinesweeper, run headless under node by `tools/hill/hill.py`, an external
reference that minelab never imports) holds the highest published expert win rates. The
harness writes what it measures into data/hill/; this module only reads those files:

* `probability_check()`: in every position `best` met in the check's expert games, Hill's
  safety of each covered cell beside minelab's exact one (data/hill/probabilities.csv);
* `paired_games()`: both solvers on the same expert boards, per level: `16x30x99` with the
  first click safe in the top-left corner, `16x30x99:opening` with both opening on a zero
  at (3, 3), Hill's own zero start: each win rate (Wilson 95% interval), the paired
  difference best - Hill (mean of the per-game differences, 95% t-interval) and McNemar's
  exact test on the games only one of them won, per version of `best` (data/hill/paired.csv:
  a row per chunk of boards and version; `best_is_today` says whether the games were played
  by today's `best`, by its golden playthrough digest);
* `disagreements()` and `catalogue()`: shadow play. `best` played expert games; at each of
  its guesses Hill's solver was asked too, and where their reveals differ both moves were
  valued on the same layouts drawn exactly from the position's posterior, each continued by
  `best` to the end (data/hill/shadow.csv, a row per guess; shadow_games.csv, a row per
  game). `catalogue()` sorts the valued disagreements into the classes of `CLASSES`,
  defined from the position and the two moves alone, never from their values. The files
  keep every version of `best` that played; these functions take one (`shadow_agent()`:
  today's `best` when it has played, else the version that played last), and the catalogue
  names it and says whether it is today's.

* `catalogue(by="hill_step")`: the same catalogue by the step of Hill's solver that made
  his move (data/hill/reasons.csv: the message line his page shows, `HILL_STEPS`).

* `versions()`: the shadow play of every version of `best` side by side, on the games
  every version played (the same boards) and on all of each one's games.

* `resolutions()`: what a change to `best` does at those disagreements. The version that
  played the shadow games replays them, and `best` with the change decides at each
  (data/hill/resolved.csv, `tools/hill/hill.py resolve`): per change and class (or step of
  Hill's, by="hill_step"), how often it takes Hill's cell, keeps best's, or takes another,
  the value Hill's cell had there, and the value of the change's own cell (valued as
  Hill's was), per disagreement and per game.

The catalogue's *cost per game* of a class is what Hill's moves of that class would gain
`best` per game played, if each changed only that decision: the sum of the class's
differences (Hill's move's value - best's), over the games played, with a 95% t-interval
over games (a game without such a disagreement counts 0).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..levels import Level
from ..paths import golden_digests, published_dir
from ..stats import wilson

HOW = "python tools/hill/hill.py --checkout <JSMinesweeper at the pinned commit> {what} (see tools/hill/README.md)"
ENDGAME_LOG_LAYOUTS = math.log(4096)  # best's exact endgame search takes at most 4,096 layouts
SAME = 1e-9  # mine probabilities closer than this are the same

# The classes of a disagreement: a name, what it means, and its test on a row of
# `disagreements()` (columns of data/hill/shadow.csv plus `revealed_share`). A disagreement can be
# in several classes.
CLASSES = {
    "opening": ("at most 8 cells revealed (the opening's guesses)",
                lambda d: d["revealed"] <= 8),
    "hill off the frontier": ("Hill reveals a cell next to no number, best one next to a number",
                              lambda d: ~d["hill_frontier"] & d["best_frontier"]),
    "best off the frontier": ("best reveals a cell next to no number, Hill one next to a number",
                              lambda d: ~d["best_frontier"] & d["hill_frontier"]),
    "both 50/50": ("both cells are mines with probability exactly 1/2",
                   lambda d: (d["best_p"] == 0.5) & (d["hill_p"] == 0.5)),
    "hill safer": ("Hill's cell is less likely a mine than best's",
                   lambda d: d["hill_p"] < d["best_p"] - SAME),
    "hill riskier": ("Hill's cell is more likely a mine than best's (it trades safety for progress)",
                     lambda d: d["hill_p"] > d["best_p"] + SAME),
    "equally safe": ("the two cells are mines with the same probability",
                     lambda d: (d["hill_p"] - d["best_p"]).abs() <= SAME),
    "endgame": ("at most 4,096 layouts remain (best's exact search can take the position)",
                lambda d: d["log_layouts"] <= ENDGAME_LOG_LAYOUTS),
}


# Which of Hill's steps made his move, from the message line his page shows after it
# (data/hill/reasons.csv, `tools/hill/hill.py reasons`): a name, what the step is, and a
# phrase of the message only that step writes (the first that matches names it).
HILL_STEPS = {
    "isolated edge, all dead": ("an isolated edge whose cells all tell nothing: the safest of them",
                                "All the tiles on an isolated edge are dead"),
    "isolated edge": ("his exact search over an isolated edge (its cells seen by no other number)",
                      "chance to solve the isolated edge"),
    "whole board, all dead": ("every cell left tells nothing: the safest", "All the remaining tiles are dead"),
    "whole-board search": ("his exact search over every layout left (under 1,000 of them)",
                           "chance to win the game"),
    "pseudo 50/50": ("a cell that is safe or in a 50/50 no reveal can resolve (his chains and boxes)",
                     "unavoidable 50/50 guess, or safe"),
    "50/50": ("an unavoidable 50/50", "is an unavoidable 50/50 guess"),
    "all dead": ("every candidate tells nothing", "All tiles are dead"),
    "guessing heuristic": ("his secondary-safety guess among the safest cells (and those a 50/50 may form around)",
                           "Guessing heuristic suggests"),
}


def hill_step(message: str) -> str:
    """The name in HILL_STEPS of the step whose message this is ("other" for none)."""
    for name, (_, phrase) in HILL_STEPS.items():
        if phrase in str(message):
            return name
    return "other"


def hill_dir():
    """data/hill of the checkout minelab runs from."""
    return published_dir().parent / "hill"


def _read(name: str, what: str) -> pd.DataFrame:
    path = hill_dir() / f"{name}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: make it with {HOW.format(what=what)}")
    return pd.read_csv(path)


def today_agent() -> str:
    """Today's `best` as the data files name a version: "best <golden playthrough digest>"
    (tools/hill/hill.py writes its rows under this name)."""
    digest = golden_digests().get("best")
    if not digest:
        raise ValueError("minelab/agents/behaviour.json holds no golden playthrough digest of 'best'")
    return f"best {digest}"


def probability_check() -> pd.DataFrame:
    """Hill's safety beside minelab's exact probability: positions, cells, the positions
    where some cell differs by more than the tolerance, and the largest difference."""
    return _read("probabilities", "probabilities")


def paired_games() -> pd.DataFrame:
    """A row per level and version of `best` (`agent`, its golden playthrough's digest):
    both solvers' win rates on the same boards and their paired difference; today's
    `best` is the row with `best_is_today`."""
    df = _read("paired", "paired")
    rows = []
    today = today_agent()
    for (level, agent), g in df.groupby(["level", "agent"], sort=False):
        n = int(g["games"].sum())
        best, hill, both = (int(g[c].sum()) for c in ("best_won", "hill_won", "both_won"))
        only_best, only_hill = best - both, hill - both
        d = np.concatenate([np.ones(only_best), -np.ones(only_hill), np.zeros(n - only_best - only_hill)])
        ci = sps.ttest_1samp(d, 0.0).confidence_interval(0.95) if d.std() > 0 else None
        p = sps.binomtest(only_best, only_best + only_hill).pvalue if only_best + only_hill else 1.0
        (b_lo, b_hi), (h_lo, h_hi) = wilson(best, n), wilson(hill, n)
        rows.append({"level": level, "games": n, "chunks": len(g), "best": best / n, "best_low": b_lo,
                     "best_high": b_hi, "hill": hill / n, "hill_low": h_lo, "hill_high": h_hi,
                     "diff": d.mean(), "diff_low": float(ci.low) if ci is not None else d.mean(),
                     "diff_high": float(ci.high) if ci is not None else d.mean(), "only_best_won": only_best,
                     "only_hill_won": only_hill, "mcnemar_p": float(p), "commit": g["commit"].iloc[0],
                     "agent": agent, "best_is_today": agent == today})
    return pd.DataFrame(rows)


def shadow_agent() -> str:
    """The version of `best` the shadow-play functions read: today's (its golden
    playthrough's digest) when data/hill/shadow_games.csv has its games, else the version
    of the file's last game."""
    games = _read("shadow_games", "shadow")
    if "agent" not in games or games.empty:
        raise ValueError("data/hill/shadow_games.csv names no version of best (its 'agent' column)")
    today = today_agent()
    return today if (games["agent"] == today).any() else str(games["agent"].iloc[-1])


def disagreements(agent: str | None = None) -> pd.DataFrame:
    """The valued disagreements of shadow play by `agent` (a version of `best`; default
    `shadow_agent()`): a row per guess where Hill's reveal differs from best's, with the share
    of safe cells revealed and each class of CLASSES as a column."""
    agent = shadow_agent() if agent is None else agent
    d = _read("shadow", "shadow")
    d = d[(d["layouts"] > 0) & (d["agent"] == agent)].copy()
    for col in ("best_frontier", "hill_frontier"):
        d[col] = d[col].astype(str).str.lower().eq("true")
    safe = {lv: Level.parse(lv).cells - Level.parse(lv).mines for lv in d["level"].unique()}
    d["revealed_share"] = d["revealed"] / d["level"].map(safe)
    for name, (_, test) in CLASSES.items():
        d[name] = test(d).astype(bool)
    return d.reset_index(drop=True)


def shadow_games(agent: str | None = None) -> pd.DataFrame:
    """A row per game of shadow play by `agent` (default `shadow_agent()`): the denominator
    of the cost per game."""
    agent = shadow_agent() if agent is None else agent
    games = _read("shadow_games", "shadow")
    return games[games["agent"] == agent].reset_index(drop=True)


def catalogue(agent: str | None = None, by: str = "class") -> pd.DataFrame:
    """The shadow play of `agent` (a version of `best`; default `shadow_agent()`), a row per
    class of CLASSES (by="class") or per step of Hill's solver that made his move
    (by="hill_step": HILL_STEPS, from data/hill/reasons.csv; disagreements it has no message
    for are left out; default agent: shadow_agent() when the file has its games, else the
    file's last version), and one for all of them: how many there are, how many of Hill's moves
    are significantly better (95% interval above 0) or worse, how many of either side chance
    alone would make so (`by_chance`: 2.5% of the disagreements whose interval has any width,
    were the two moves always worth the same), the mean difference, and the cost per game to
    `best` with its 95% interval; `agent` names the version of `best` and `best_is_today`
    says whether it is today's."""
    agent, d, groups = _grouped(agent, by)
    games = shadow_games(agent)
    today = today_agent()
    n_games = len(games)
    rows = []
    for name, meaning, mask in [("all", "every valued disagreement", np.ones(len(d), bool)),
                                *((group, what, _mask(d, by, group)) for group, what in groups)]:
        sub = d[mask]
        mean, lo, hi = _mean_ci(sub["diff"].to_numpy())
        cost, cost_lo, cost_hi = _cost_per_game(sub, games["game"])
        rows.append({by: name, "meaning": meaning,
                     "disagreements": len(sub), "hill_better": int((sub["diff_low"] > 0).sum()),
                     "best_better": int((sub["diff_high"] < 0).sum()),
                     "by_chance": 0.025 * int((sub["diff_high"] > sub["diff_low"]).sum()), "mean_diff": mean,
                     "diff_low": lo, "diff_high": hi, "games": n_games, "cost_per_game": cost, "cost_low": cost_lo,
                     "cost_high": cost_hi, "agent": agent, "best_is_today": agent == today})
    return pd.DataFrame(rows)


def _grouped(agent: str | None, by: str) -> tuple[str, pd.DataFrame, list]:
    """(agent, its disagreements, [(group, meaning)]) for `catalogue` and
    `resolutions`: the classes of CLASSES (by="class"), or the steps of Hill's solver that
    made his move (by="hill_step", from data/hill/reasons.csv: disagreements without his
    message are left out; default agent: shadow_agent() when the file has its games, else
    the file's last version); `_mask` picks a group's rows."""
    if by not in ("class", "hill_step"):
        raise ValueError(f"by must be 'class' or 'hill_step', got {by!r}")
    r = None
    if by == "hill_step":
        r = _read("reasons", "reasons --agent '<version>' --params '<best's parameters as JSON>'")
        if agent is None:  # shadow_agent() when Hill's messages were taken at its games, else the last version
            agent = shadow_agent() if (r["agent"] == shadow_agent()).any() else str(r["agent"].iloc[-1])
    agent = shadow_agent() if agent is None else agent
    d = disagreements(agent)
    if by == "class":
        return agent, d, [(name, CLASSES[name][0]) for name in CLASSES]
    r = r[r["agent"] == agent].assign(hill_step=lambda t: t["message"].map(hill_step))
    d = d.merge(r[["game", "step", "hill_step"]], on=["game", "step"], how="inner")
    return agent, d, [(name, HILL_STEPS.get(name, ("no step's message",))[0])
                      for name in [*HILL_STEPS, "other"] if (d["hill_step"] == name).any()]


def _mask(frame: pd.DataFrame, by: str, name: str) -> np.ndarray:
    """The rows of `frame` (disagreements, as `_grouped` gives them) in group `name`."""
    return frame[name].to_numpy() if by == "class" else (frame["hill_step"] == name).to_numpy()


def versions() -> pd.DataFrame:
    """Shadow play of every version of `best` in data/hill/, a row per version in the
    order they first played: its games, its valued disagreements and the cost per game of
    all of them (what Hill's moves would add, `catalogue`'s "all" row, 95% interval), on
    all its games and on the games every version played (`common_*`: the same boards, as
    game g is dealt from the same seed for every version)."""
    games = _read("shadow_games", "shadow")
    agents = list(dict.fromkeys(games["agent"]))
    common = set.intersection(*(set(games.loc[games["agent"] == a, "game"]) for a in agents))
    today = today_agent()
    rows = []
    for agent in agents:
        d, played = disagreements(agent), shadow_games(agent)
        row = {"agent": agent, "best_is_today": agent == today}
        for prefix, keep in (("", played["game"]), ("common_", sorted(common))):
            cost, lo, hi = _cost_per_game(d, keep)
            row.update({f"{prefix}games": len(keep), f"{prefix}disagreements": int(d["game"].isin(keep).sum()),
                        f"{prefix}cost_per_game": cost, f"{prefix}cost_low": lo, f"{prefix}cost_high": hi})
        rows.append(row)
    return pd.DataFrame(rows)


def resolutions(agent: str | None = None, by: str = "class") -> pd.DataFrame:
    """Per change to `best` replayed at the shadow disagreements of `agent` (default
    `shadow_agent()`), per class of CLASSES (by="class"; by="hill_step": per step of Hill's
    solver that made his move, as `catalogue` has them) and for all of them: the
    disagreements, how many the change resolves to Hill's cell (`takes_hill`), leaves at
    best's (`keeps_best`) or moves to a third cell (`takes_other`), the mean difference
    (Hill's cell - best's, the shadow valuation) of those it resolves to Hill's, with its
    95% interval, and what the change's cell is worth there: `new_diff`, its value - best's
    averaged over the group's disagreements (0 where it keeps best's), and `gain_per_game`,
    the same summed per game over the shadow games, as the catalogue's cost per game is
    (95% t-intervals; NaN for a change with a row not valued). It values the change's first
    different decision only, each continued by today's `best`: what the change then does
    differently later is the paired games' to judge."""
    agent, d, groups = _grouped(agent, by)
    games = shadow_games(agent)["game"]
    r = _read("resolved", "resolve --params '<best's parameters as JSON>'")
    r = r[r["agent"] == agent]
    if "new_diff" not in r:  # a file written before the change's cells were valued
        r = r.assign(new_diff=math.nan)
    rows = []
    for change, part in r.groupby("change", sort=False):
        m = d.merge(part[["game", "step", "new_cell", "new_diff"]], on=["game", "step"], how="inner")
        hill, keep = m["new_cell"] == m["hill_cell"], m["new_cell"] == m["best_cell"]
        valued = not m["new_diff"].isna().any()
        for name, mask in [("all", np.ones(len(m), bool)), *((g, _mask(m, by, g)) for g, _ in groups)]:
            mean, lo, hi = _mean_ci(m.loc[mask & hill, "diff"].to_numpy())
            sub = m[mask].assign(diff=m.loc[mask, "new_diff"])
            new, new_lo, new_hi = _mean_ci(sub["diff"].to_numpy()) if valued else (math.nan,) * 3
            gain, gain_lo, gain_hi = _cost_per_game(sub, games) if valued else (math.nan,) * 3
            rows.append({"change": change, by: name, "disagreements": int(mask.sum()),
                         "takes_hill": int((mask & hill).sum()), "keeps_best": int((mask & keep).sum()),
                         "takes_other": int((mask & ~hill & ~keep).sum()), "diff_taken": mean,
                         "diff_taken_low": lo, "diff_taken_high": hi, "new_diff": new, "new_diff_low": new_lo,
                         "new_diff_high": new_hi, "gain_per_game": gain, "gain_low": gain_lo, "gain_high": gain_hi,
                         "agent": agent})
    return pd.DataFrame(rows)


def _cost_per_game(d: pd.DataFrame, games) -> tuple[float, float, float]:
    """Mean over `games` (game numbers) of the sum of d's differences in each game (0 for a
    game without a row of d), with its 95% t-interval: what Hill's moves of d add per game."""
    return _mean_ci(d.groupby("game")["diff"].sum().reindex(games, fill_value=0.0).to_numpy())


def _mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    if len(x) == 0:
        return (math.nan, math.nan, math.nan)
    if len(x) < 2 or x.std() == 0:
        return (float(x.mean()),) * 3
    ci = sps.ttest_1samp(x, 0.0).confidence_interval(0.95)
    return float(x.mean()), float(ci.low), float(ci.high)


def catalogue_figure(table: pd.DataFrame):
    """Cost per game of each class or step of Hill's (a `catalogue` table; points of win
    rate, 95% interval), the figures of the leaderboard notebook's shadow-play section."""
    import matplotlib.pyplot as plt

    t = table.iloc[::-1]
    by = "class" if "class" in t else "hill_step"
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(t) + 1.2))
    y = np.arange(len(t))
    ax.errorbar(100 * t["cost_per_game"], y, xerr=[100 * (t["cost_per_game"] - t["cost_low"]),
                                                   100 * (t["cost_high"] - t["cost_per_game"])],
                fmt="o", color="C0", capsize=3)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y, [f"{c} ({n})" for c, n in zip(t[by], t["disagreements"])])
    ax.set_xlabel("win rate Hill's moves of the class would add to best, points per game (95% interval)")
    who = "today's best" if t["best_is_today"].iloc[0] else f"{t['agent'].iloc[0]} (not today's)"
    what = "where Hill's solver and best differ" if by == "class" else "by the step of Hill's solver that moved"
    ax.set_title(f"Shadow play, {who}, {int(t['games'].iloc[0]):,} expert games:\n{what}", fontsize=10)
    fig.tight_layout()
    return fig
