"""Lordeiro, Haddad & Cardoso (2021): the registered readings run beside the
reproduction (data/published/readings.csv; the ledger credits one only when it
reproduces every number in its scope).

Each function returns a `PaperResult` whose measured rows name their variant, so the
ledger can set them beside the published number; none changes an agent's default. The
readings below were written down from the paper's text and the facts known about the
authors' program *before* the variants were run (the direction of each published gap was
known, since that is what asks for a cause). A reading is a candidate cause only if the
text or the program supports it at least as well as the reading minelab uses.

**Table II** (4x4 boards, 3-5 mines; MAB vs state-action). Published MAB win rates lie
below ours on 4x4x4 and 4x4x5 (not on 4x4x3), and the published MAB table holds about 5x
more actions than ours (ours with symmetries; without symmetries the counts come close,
run beside as "MAB without symmetries" in `lordeiro2021.TABLE2_AGENTS`). Readings:

* *Opening on a board without a zero cell.* The program "clicks, for the agent, the
  first zero cell in a column-major scan". A 4x4 board need not have a zero cell: of the
  layouts, 0% with 3 mines, 14.1% with 4 and 35.2% with 5 have none (exact count over
  all layouts; `no_zero_share`). What the program does then is not known; minelab's
  default ("first-zero") clicks the first *safe* cell of the scan instead, a free safe
  click the program may not make. The literal reading of the fact, "first-zero-only",
  clicks nothing: the agent makes its first decision on the covered board (mines placed
  anywhere), and may lose on it. Predicted before running: no change on 4x4x3, lower win
  rates on 4x4x4 and more so on 4x4x5 (the pattern of the published gap), and nothing on
  8x8x10 (a beginner board without a zero cell is very rare). Run with symmetries and
  without (the count gap points to the latter), and on the state-action agent (the same
  program ran it, so the reading must not break its agreement).
* *The text's first move.* "mines are randomly placed just after the always-safe first
  play/click": the agent makes its own first click, which is never a mine (the "safe"
  rule; option first_move="agent"). With symmetries (the text's agent) and without.
* What counts as an action (keys with out-of-board cells, per-window keys, (target,
  window) pairs): minelab's keys already hold "outside the board" as a cell state and
  key each (window, target) pair, as the program does; the one count-changing choice the
  facts leave open is symmetries, already run beside. No further reading is run.

**Table IV** (UCB c = 0.1). The text gives no UCB formula (it names UCB, c, and "Flat
UCB"); the program's bonus pushes |Q| toward certainty, with t counting every decision
of every game and unseen actions tried first. The one text-supported alternative is the
textbook (Sutton & Barto) optimistic bonus, the existing option ucb_bonus="optimism":
t over all decisions is what both the textbook and the program say, so no t variant is
text-supported. `table4_variants` runs the optimistic bonus beside the code's, through
Table IV's training and transfer tests.

**Fig 12's average decreases** (published 26.1% over heights 3..10 and 35.3% over
densities 0.14..0.20). The text: "by increasing board height the win rate decreases but
by increasing mine density the same happens more significantly: on average the decrease
produced by the first was of 26.1% versus 35.3% of the second ... an increase by 0.06 in
this attribute could result in a drop in win rate of at least 25%". The reading the text
supports: the drop over the *whole* axis (first to last: 0.06 is the whole density
range 0.14..0.20), averaged over the other axis ("on average"). Whether "%" means
percentage points (the paper writes win rates in percent: "plummets from 70.2% to
41.9%") or a relative drop, the text does not settle: both are read as equally
supported. minelab's measured rows use points. Not supported: a mean of consecutive
steps (it is not the drop that "an increase by 0.06" causes). `fig12_readings` computes
every reading from the paper-size table, with no new run:

  points          mean over the other axis of (first - last)            (minelab's)
  relative        mean over the other axis of (first - last) / first
  relative of means  (mean at first - mean at last) / mean at first
  per step        mean over the other axis and the steps of (x_i - x_i+1), in points
  per step, relative  the same, each step relative to x_i
  min points      the smallest first-to-last drop over the other axis ("at least")

The mine counts are a second, independent question: "the number of mines is defined
rounding the value" (caption); minelab rounds halves up, the authors' Python's round()
sends halves to even (minelab's own comment on `lordeiro2021._mines` names it). Three
boards differ (3x10 at 0.15: 4 mines not 5; 5x10 at 0.17: 8 not 9; 7x10 at 0.15: 10 not
11), and each is a board the table already holds at a neighbouring density, so the
"Python round()" readings also need no new run (only the text-supported readings are
computed with it: points, relative, relative of means).
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import pandas as pd

from ..report import PaperResult
from . import lordeiro2021 as L

PAPER, NOTEBOOK = L.PAPER, L.NOTEBOOK
EXPERIMENT = __name__  # the module named in the readings' "experiment" column

# Table II variants: (name, registry agent, params, first-click rule of the level). The
# name replaces "MAB" / "SA" in the quantities ("MAB <name> win rate, 4x4x4, ...").
TABLE2_VARIANTS = (
    ("MAB first-zero-only opening", "greedy-mab", {"first_move": "first-zero-only"}, L.RULE),
    ("MAB without symmetries and first-zero-only opening", "greedy-mab",
     {"symmetries": False, "first_move": "first-zero-only"}, L.RULE),
    ("MAB own safe first click", "greedy-mab", {"first_move": "agent"}, "safe"),
    ("MAB without symmetries and own safe first click", "greedy-mab",
     {"symmetries": False, "first_move": "agent"}, "safe"),
    ("SA first-zero-only opening", "sa-greedy", {"first_move": "first-zero-only"}, L.RULE),
)
# How they are run at paper size: (variant, boards' mine counts, independent runs; None =
# the profile's replicates). The combined reading (no symmetries, first-zero-only) gets
# Table II's own 3 runs; the others one run each (enough to reject them if they are far
# off), and 4x4x3 is skipped where a variant cannot differ there from minelab's default
# (every 4x4x3 board has a zero cell, so "first-zero-only" plays exactly as "first-zero").
TABLE2_PLAN = (
    ("MAB without symmetries and first-zero-only opening", (3, 4, 5), None),
    ("MAB first-zero-only opening", (4, 5), 1),
    ("MAB own safe first click", (3, 4, 5), 1),
    ("MAB without symmetries and own safe first click", (3, 4, 5), 1),
    ("SA first-zero-only opening", (4, 5), 1),
)
# Table IV variants: (name, params of TABLE4_AGENT).
TABLE4_AGENT = "ucb-mab"
TABLE4_VARIANTS = (("code: bonus toward certainty", {"c": 0.1}),
                   ("textbook: optimistic bonus", {"c": 0.1, "ucb_bonus": "optimism"}))
FIG12_READINGS = ("points", "relative", "relative of means", "per step", "per step, relative", "min points")
FIG12_PYTHON_ROUND_READINGS = ("points", "relative", "relative of means")


@lru_cache(maxsize=None)
def no_zero_share(rows: int, cols: int, mines: int) -> float:
    """Share of the layouts of a rows x cols board with `mines` mines (all equally likely)
    in which no safe cell is a zero: the boards the program's first-zero opening finds
    nothing on. Exact (every layout counted); for small boards only."""
    n = rows * cols
    if math.comb(n, mines) > 2_000_000:
        raise ValueError(f"{rows}x{cols}x{mines}: too many layouts to count")
    nbrs = [[(r + dr) * cols + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
             if 0 <= r + dr < rows and 0 <= c + dc < cols] for r in range(rows) for c in range(cols)]
    none = total = 0
    for layout in itertools.combinations(range(n), mines):
        mine = np.zeros(n, bool)
        mine[list(layout)] = True
        total += 1
        none += not any(not mine[i] and not mine[nbrs[i]].any() for i in range(n))
    return none / total


# ---------------------------------------------------------------------- Table II
def table2_variants(table2_games: int = L.SIZES["quick"]["table2_games"], seed: int = 0, executor="processes",
                    mines=(3, 4, 5), replicates: int = 1, variants=TABLE2_VARIANTS) -> PaperResult:
    """Table II's rows for each variant of `variants` (see TABLE2_VARIANTS and the module
    docstring): win rate so far and actions (pairs) recorded after table2_games/10 and
    table2_games games, measured rows named "<variant> win rate, 4x4x<m>, <games> games".
    With replicates > 1: means over independent runs (t-intervals), as Table II's own."""
    return L._replicated(_table2_once, replicates, seed, ["agent", "mines", "games"], table2_games=table2_games,
                         executor=executor, mines=tuple(mines), variants=tuple(variants))


def table2_variants_plan(table2_games: int = L.SIZES["quick"]["table2_games"], seed: int = 0,
                         executor="processes", replicates: int = 1, plan=TABLE2_PLAN) -> PaperResult:
    """Every variant of `plan` (TABLE2_PLAN: the boards and runs of each), one result."""
    by_name = {v[0]: v for v in TABLE2_VARIANTS}
    parts = [table2_variants(table2_games, seed, executor, mines, replicates if runs is None else runs,
                             [by_name[name]]) for name, mines, runs in plan]
    return combine("table2_variants", parts)


def combine(name: str, parts) -> PaperResult:
    """One PaperResult of several (tables stacked, measured rows concatenated)."""
    table = pd.concat([p.table for p in parts], ignore_index=True)
    return PaperResult(name, None, table, [m for p in parts for m in p.measured])


def compare_table2(result: PaperResult) -> pd.DataFrame:
    """Each variant row of `table2_variants` beside the published number of its agent
    (MAB or SA) for the same board and game count."""
    from .. import report

    pub = report.load_published(PAPER, claims=False)
    pub = dict(zip(pub.loc[pub["item"] == "Table II", "quantity"], pub.loc[pub["item"] == "Table II", "value"]))
    out = []
    for r in result.table.itertuples():
        base = "SA" if r.agent.startswith("SA") else "MAB"
        what = "pairs recorded" if base == "SA" else "actions recorded"
        setting = f"4x4x{r.mines}, {r.games} games"
        out.append({"variant": r.agent, "board": f"4x4x{r.mines}", "games": r.games, "win_rate": r.win_rate,
                    "ci_low": r.ci_low, "ci_high": r.ci_high,
                    "published win rate": pub.get(f"{base} win rate, {setting}"),
                    "recorded": r.recorded, "published recorded": pub.get(f"{base} {what}, {setting}"),
                    "runs": getattr(r, "runs", 1)})
    return pd.DataFrame(out)


def _table2_once(table2_games: int, seed: int, executor, mines, variants) -> PaperResult:
    return L.table2_runs(table2_games, seed, executor, mines, variants, "table2_variants")


# ---------------------------------------------------------------------- Table IV
def table4_variants(train_games: int = L.SIZES["quick"]["train_games"],
                    test_games: int = L.SIZES["quick"]["test_games"], seed: int = 0, executor="processes",
                    variants=TABLE4_VARIANTS, settings=L.TABLE4_SETTINGS, label_size: bool = True) -> PaperResult:
    """Table IV (UCB c = 0.1, trained on 8x8x10 and 8x8x15, tested on the three standard
    levels) once per variant of `variants`, run beside each other at the same size.
    Measured rows: "<scenario> win rate, trained on <setting> [variant: <name>]", plus
    ", <n> training games" inside the brackets when `label_size` and train_games is not
    the paper's 10^6 (such rows are not comparable with the published table)."""
    rows, measured = [], []
    for name, params in variants:
        t, _ = L._transfer(TABLE4_AGENT, params, settings, train_games, test_games, seed, executor, "Table IV")
        t = t.drop(columns=["best"]).assign(variant=name)  # (best: among this variant's settings only)
        rows.append(t)
        tag = name if (not label_size or train_games == L.PAPER_TRAIN) else f"{name}, {train_games:,} training games"
        for r in t.itertuples():
            quantity = f"{r.scenario} win rate, trained on {r._1} [variant: {tag}]"
            measured.append({"item": "Table IV", "quantity": quantity, "value": r.win_rate, "ci_low": r.ci_low,
                             "ci_high": r.ci_high, "games": int(r.games), "agents": TABLE4_AGENT})
    table = pd.concat(rows, ignore_index=True)
    table = table[["variant"] + [c for c in table.columns if c != "variant"]]
    return PaperResult("table4_variants", None, table, measured)


def table4_training_from_text_vs_code(table: pd.DataFrame | None = None) -> PaperResult:
    """Table IV's 8x8x10 training cell under the textbook optimistic bonus, at the paper's
    size, from `lordeiro2021.text_vs_code_variants` (which trains UCB c = 0.1 on 8x8x10
    with each bonus, 10^6 games: Table IV's training experiment without the tests; by
    default its committed paper-size table). No new run."""
    if table is None:
        from ..paths import figures_root
        table = pd.read_csv(figures_root() / PAPER / "text_vs_code_variants_paper.csv")
    names = {"UCB c=0.1, textbook: optimistic bonus": "textbook: optimistic bonus",
             "UCB c=0.1, code: bonus toward certainty": "code: bonus toward certainty (text_vs_code run)"}
    rows = table[table["variant"].isin(names)].copy()
    # No `agents` (code stamp): these rows are read from a committed table, not played now,
    # so today's digest would not say which code made them.
    measured = [{"item": "Table IV", "quantity": f"training win rate, trained on 8x8x10 [variant: {names[r.variant]}]",
                 "value": r.win_rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games),
                 "note": "one run of lordeiro2021.text_vs_code_variants at paper size (its own seed)"}
                for r in rows.itertuples()]
    return PaperResult("table4_training_text_vs_code", None, rows.reset_index(drop=True), measured)


# Table IV's registered readings run at full scope: (name, params of TABLE4_AGENT).
TABLE4_READINGS = (("UCB c=0.01", {"c": 0.01}),)


def table4_readings(train_games: int = L.SIZES["quick"]["train_games"],
                    test_games: int = L.SIZES["quick"]["test_games"], seed: int = 0, executor="processes",
                    replicates: int = 1, readings=TABLE4_READINGS) -> PaperResult:
    """Table IV (trained on 8x8x10 and 8x8x15, tested on the three standard levels) once
    per registered reading of `readings`, on Table IV's own seeds and run count, so every
    number in the reading's scope has a twin judged like Table IV's: measured rows
    "<scenario> win rate, trained on <setting> [variant: <name>]", means over
    `replicates` runs."""
    parts = []
    for name, params in readings:
        def once(seed, params=params):
            t, measured = L._transfer(TABLE4_AGENT, params, L.TABLE4_SETTINGS, train_games, test_games, seed,
                                      executor, "Table IV")
            for m in measured:
                m["quantity"] = f"{m['quantity']} [variant: {name}]"
            return PaperResult("table4_readings", None, t.assign(variant=name), measured)

        parts.append(L._replicated(once, replicates, seed, ["variant", "trained on", "scenario"]))
    return combine("table4_readings", parts)


# ---------------------------------------------------------------------- Fig 12
def fig12_readings(table: pd.DataFrame | None = None) -> PaperResult:
    """Fig 12's two average decreases under each reading of FIG12_READINGS (module
    docstring), from Fig 12's table (height, density, games, win_rate; by default the
    committed paper-size figures/lordeiro2021/fig12_density_heatmap_paper.csv): no new run.

    Intervals: normal approximation from each cell's binomial variance (cells are
    independent runs; neighbouring densities that share a mine count share a run, which
    this ignores, as Fig 12's own rows do)."""
    if table is None:
        from ..paths import figures_root
        table = pd.read_csv(figures_root() / PAPER / "fig12_density_heatmap_paper.csv")
    rows, measured = [], []
    games_n = int(table["games"].min())
    note = "computed from Fig 12's paper-size table (no new run); normal approximation"
    for rounding, readings in (("half up", FIG12_READINGS), ("Python round()", FIG12_PYTHON_ROUND_READINGS)):
        t = table if rounding == "half up" else python_round_table(table)
        wr = t.pivot(index="height", columns="density", values="win_rate").sort_index().sort_index(axis=1)
        games = t.pivot(index="height", columns="density", values="games").reindex_like(wr)
        var = wr * (1 - wr) / games
        for axis, label in ((0, f"heights {wr.index.min()}..{wr.index.max()}"),
                            (1, f"densities {wr.columns.min():.2f}..{wr.columns.max():.2f}")):
            # arrange so rows = positions along the axis varied, columns = the other axis
            m = wr if axis == 0 else wr.T
            v = var if axis == 0 else var.T
            for reading in readings:
                with np.errstate(divide="ignore", invalid="ignore"):  # a 0% cell (tiny runs): no relative drop
                    value, se = _decrease(m.to_numpy(), v.to_numpy(), reading)
                if not (math.isfinite(value) and math.isfinite(se)):
                    continue
                name = reading if rounding == "half up" else f"{reading}, {rounding}"
                lo, hi = value - 1.959964 * se, value + 1.959964 * se
                rows.append({"axis": label, "reading": name, "value": value, "ci_low": lo, "ci_high": hi})
                measured.append({"item": "Fig 12", "quantity": f"mean win-rate decrease over {label} [reading: {name}]",
                                 "value": value, "ci_low": lo, "ci_high": hi, "games": games_n,
                                 "note": note + ("; mines by Python's round() (halves to even), the changed boards "
                                                 "taken from the same table" if rounding != "half up" else "")})
                # (no `agents`: computed from a committed table, see table4_training_from_text_vs_code)
    return PaperResult("fig12_readings", None, pd.DataFrame(rows), measured)


def python_round_table(table: pd.DataFrame, width: int = 10) -> pd.DataFrame:
    """Fig 12's table with the mine counts Python's round() gives (halves to even): each
    cell whose count changes takes the row of the board with that count at the same
    height (it must be in the table: with Fig 12's grid it always is)."""
    out = table.copy()
    by_board = {(int(r.height), int(r.mines)): r for r in table.itertuples()}
    for i, r in table.iterrows():
        mines = max(1, round(width * int(r["height"]) * float(r["density"])))
        if mines != int(r["mines"]):
            src = by_board.get((int(r["height"]), mines))
            if src is None:
                raise ValueError(f"height {r['height']}, density {r['density']}: no board with {mines} mines to use")
            for col in ("mines", "games", "wins", "win_rate", "ci_low", "ci_high"):
                out.at[i, col] = getattr(src, col)
    return out


def _decrease(m: np.ndarray, v: np.ndarray, reading: str) -> tuple[float, float]:
    """(value, standard error) of one reading; m[i, j] = win rate at position i along the
    axis varied and j of the other axis, v its variance. Standard errors by the delta
    method (first order)."""
    first, last = m[0], m[-1]
    k = m.shape[1]
    if reading == "points":
        return float(np.mean(first - last)), math.sqrt(float(np.sum(v[0] + v[-1]))) / k
    if reading == "relative":
        r = (first - last) / first
        # d r / d first = last / first^2, d r / d last = -1 / first
        se2 = np.sum((last / first ** 2) ** 2 * v[0] + v[-1] / first ** 2)
        return float(np.mean(r)), math.sqrt(float(se2)) / k
    if reading == "relative of means":
        a, b = first.mean(), last.mean()
        va, vb = v[0].sum() / k ** 2, v[-1].sum() / k ** 2
        return float((a - b) / a), math.sqrt(float((b / a ** 2) ** 2 * va + vb / a ** 2))
    if reading == "per step":
        steps = m.shape[0] - 1
        return float(np.mean(first - last) / steps), math.sqrt(float(np.sum(v[0] + v[-1]))) / k / steps
    if reading == "per step, relative":
        d = (m[:-1] - m[1:]) / m[:-1]
        # each step's relative drop; the steps share cells, so a first-order bound: treat them as independent
        g_prev = m[1:] / m[:-1] ** 2
        g_next = 1 / m[:-1]
        se2 = np.sum(g_prev ** 2 * v[:-1] + g_next ** 2 * v[1:])
        return float(np.mean(d)), math.sqrt(float(se2)) / d.size
    if reading == "min points":
        drops = first - last
        j = int(np.argmin(drops))
        return float(drops[j]), math.sqrt(float(v[0, j] + v[-1, j]))
    raise ValueError(f"reading must be one of {', '.join(FIG12_READINGS)}; got {reading!r}")
