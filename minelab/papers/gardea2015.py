"""Gardea, Koontz & Silva (2015), "Training a Minesweeper Solver": the CSP solver's figures.

The paper's figures are unnumbered; each function here is named after what it shows,
with run sizes as keyword defaults, and returns a `PaperResult` (figure, tidy table,
measured rows for REPORT.md):

* `fig_csp_board_size`: win rate and mean % of the board uncovered of `gardea-csp` on
  square boards 8x8 .. 32x32 at the density of 10 mines on 8x8 (10/64).
* `fig_csp_mine_density`: the same two metrics over mine densities, on 8x8.
* `fig_csp_gui`: a board as the paper's CSP GUI shows it (proved mines flagged).

The paper states no game counts, and its figures' numbers survive only in its text
(~80% on 8x8, slightly less than 70% on 32x32, a drop of less than 15%): those are in
`data/published/gardea2015.csv` and are drawn beside ours, labelled "published".
Rules: the standard ones the paper names (the first click never loses: our `safe`
rule; flood fill on). "% of the board uncovered" is revealed / safe cells (a won game
counts 100%); the paper does not say which denominator it used.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..agents import make_agent
from ..agents.gardea.csp import DEFAULT_MAX_NODES
from ..engine import Game, run_streams
from ..sweep import grid, run_sweep
from ..levels import Level
from ..stats import wilson
from ..report import PaperResult
from . import judged_lines

PAPER = "gardea2015"
NOTEBOOK = "gardea2015_training_solver.ipynb"
MODULE = __name__
AGENT = "gardea-csp"
AGENT_PARAMS = {"max_nodes": DEFAULT_MAX_NODES}  # spelled out: part of every task's key
DENSITY = 10 / 64  # the board-size figure keeps the density of 10 mines on 8x8
BOARD_SIZES = (8, 12, 16, 20, 24, 28, 32)
DENSITY_BOARD = 8
DENSITY_MINES = (4, 6, 8, 10, 12, 14, 16, 18, 20)

# Games per point (the paper does not say how many games it played; `paper` is our
# choice of a size that pins win rates to about +-0.3 points).
SIZES = {
    "smoke": {"size_games": 200, "density_games": 200},
    "quick": {"size_games": 20_000, "density_games": 20_000},
    "paper": {"size_games": 100_000, "density_games": 100_000},
}


def mines_at_density(rows: int, cols: int, density: float = DENSITY) -> int:
    """Mines on a rows x cols board at `density`, rounded half up (8x8 -> 10, 12x12 -> 23)."""
    return int(math.floor(rows * cols * density + 0.5))


def square_level(n: int, density: float = DENSITY) -> str:
    return str(Level(n, n, mines_at_density(n, n, density)))


def _check_games(name: str, games) -> int:
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 2:
        raise ValueError(f"{name} must be an integer >= 2, got {games!r}")
    return int(games)


def _sweep(levels, games, seed, executor) -> pd.DataFrame:
    tasks = grid({"kind": "play", "agent": AGENT, "agent_params": dict(AGENT_PARAMS), "n_games": games},
                 seeds=seed, level=list(levels))
    return run_sweep(tasks, executor=executor, progress=False)


def summary_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per level: games, win rate with its Wilson 95% interval, mean % uncovered (of
    the safe cells) with its 95% t-interval, and the agent's per-game counters."""
    out = []
    for level, part in df.groupby("level", sort=False):
        lv = Level.parse(level)
        n = len(part)
        wins = int(part["won"].sum())
        lo, hi = wilson(wins, n)
        pct = 100.0 * part["fraction_revealed"].to_numpy(float)
        mean = float(pct.mean())
        half = float(sps.t.ppf(0.975, n - 1) * pct.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
        out.append({"level": level, "rows": lv.rows, "cols": lv.cols, "mines": lv.mines,
                    "density": lv.mines / lv.cells, "games": n, "wins": wins, "win_rate": wins / n,
                    "ci_low": lo, "ci_high": hi, "uncovered_pct": mean, "uncovered_ci_low": mean - half,
                    "uncovered_ci_high": mean + half, "guesses_per_game": float(part["guesses"].mean()),
                    "crap_shoots_per_game": float(part["crap_shoots"].mean()),
                    "fallbacks": int(part["fallbacks"].sum())})
    return pd.DataFrame(out)


def newcombe_difference(w1: int, n1: int, w2: int, n2: int) -> tuple[float, float, float]:
    """p1 - p2 with Newcombe's hybrid score 95% interval (from the two Wilson intervals)."""
    p1, p2 = w1 / n1, w2 / n2
    l1, u1 = wilson(w1, n1)
    l2, u2 = wilson(w2, n2)
    d = p1 - p2
    return d, d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)


def _published(item: str) -> pd.DataFrame:
    from .. import report

    pub = report.load_published(PAPER, claims=False)
    return pub[pub["item"] == item]


def _two_panels(table, x, xlabel, title, published=None):
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10.5, 4.0))
    yerr = [table["win_rate"] - table["ci_low"], table["ci_high"] - table["win_rate"]]
    ax1.errorbar(table[x], table["win_rate"], yerr=yerr, fmt="o-", ms=4, capsize=3,
                 label="minelab gardea-csp (95% Wilson CI)")
    if published is not None and len(published):
        ax1.plot(published["x"], published["value"], "r*", ms=12, ls="none",
                 label="published (stated in the text)")
        for r in published.itertuples():
            ax1.annotate(r.label, (r.x, r.value), textcoords="offset points", xytext=(6, -12), fontsize=7,
                         color="r")
    ax1.set_xlabel(xlabel)
    ax1.set_ylabel("win rate")
    ax1.set_ylim(0, 1.02)
    ax1.grid(alpha=0.3)
    ax1.legend(fontsize=8, loc="lower left")
    yerr2 = [table["uncovered_pct"] - table["uncovered_ci_low"], table["uncovered_ci_high"] - table["uncovered_pct"]]
    ax2.errorbar(table[x], table["uncovered_pct"], yerr=yerr2, fmt="s-", ms=4, capsize=3, color="C2",
                 label="minelab gardea-csp (95% t CI)")
    ax2.set_xlabel(xlabel)
    ax2.set_ylabel("mean % of the safe cells uncovered")
    ax2.set_ylim(0, 102)
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8, loc="lower left")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def _measured_rows(item: str, table: pd.DataFrame) -> list[dict]:
    rows = []
    for r in table.itertuples():
        rows.append({"item": item, "quantity": f"win rate, {r.level}", "value": r.win_rate, "ci_low": r.ci_low,
                     "ci_high": r.ci_high, "games": r.games, "note": "95% Wilson interval", "agents": AGENT})
        rows.append({"item": item, "quantity": f"mean % uncovered, {r.level}", "value": r.uncovered_pct,
                     "ci_low": r.uncovered_ci_low, "ci_high": r.uncovered_ci_high, "games": r.games,
                     "note": "revealed / safe cells, in %; 95% t-interval", "agents": AGENT})
    return rows


# ------------------------------------------------------------------------- figures
def fig_csp_board_size(size_games: int = SIZES["quick"]["size_games"], seed: int = 0, executor="processes",
                       sizes=BOARD_SIZES) -> PaperResult:
    """Win rate and mean % uncovered of gardea-csp on square boards at the density 10/64.

    Mines are n^2 * 10/64 rounded half up (exact on 8, 16, 24, 32; 12x12 gets 23, 20x20
    63, 28x28 123). Published: ~80% on 8x8, slightly less than 70% on 32x32, a drop of
    less than 15% (all from the text). The drop is measured as 8x8 minus the largest
    board, with Newcombe's interval for a difference of two proportions.
    """
    games = _check_games("size_games", size_games)
    sizes = [int(n) for n in sizes]
    if not sizes or any(n < 2 for n in sizes):
        raise ValueError(f"sizes must be board sides >= 2, got {sizes!r}")
    df = _sweep([square_level(n) for n in sizes], games, seed, executor)
    table = summary_table(df)
    table.insert(1, "size", table["rows"])
    item = "CSP board size"
    pub = _published(item)
    marks = []
    for r in pub.itertuples():
        if r.quantity.startswith("win rate, "):
            lv = Level.parse(r.quantity.removeprefix("win rate, "))
            marks.append({"x": lv.rows, "value": r.value, "label": f"published ~{r.value:.0%}"})
    fig = _two_panels(table, "size", "board side n (n x n board, 10/64 of the cells are mines)",
                      f"Gardea et al.'s CSP over board sizes at the 8x8x10 density, {games:,} games per point",
                      pd.DataFrame(marks))
    measured = _measured_rows(item, table)
    first, last = table.iloc[0], table.iloc[-1]
    d, lo, hi = newcombe_difference(int(first.wins), int(first.games), int(last.wins), int(last.games))
    measured.append({"item": item, "quantity": f"win-rate drop, {first.level} to {last.level}", "value": d,
                     "ci_low": lo, "ci_high": hi, "games": int(first.games + last.games),
                     "note": "absolute drop (win-rate points); Newcombe 95% interval", "agents": AGENT})
    if first.wins > 0 and last.wins > 0:  # 1 - (last's rate / first's): Katz's interval of the ratio
        ratio = sps.contingency.relative_risk(int(last.wins), int(last.games), int(first.wins), int(first.games))
        ci = ratio.confidence_interval(0.95)
        measured.append({"item": item, "quantity": f"relative win-rate drop, {first.level} to {last.level}",
                         "value": 1 - ratio.relative_risk, "ci_low": 1 - ci.high, "ci_high": 1 - ci.low,
                         "games": int(first.games + last.games), "agents": AGENT,
                         "note": f"drop / {first.level} win rate; 95% interval of the ratio of the two rates (Katz)"})
    return PaperResult("fig_csp_board_size", fig, table, measured)


def fig_csp_mine_density(density_games: int = SIZES["quick"]["density_games"], seed: int = 0,
                         executor="processes", side: int = DENSITY_BOARD, mines=DENSITY_MINES) -> PaperResult:
    """Win rate and mean % uncovered of gardea-csp on a side x side board over mine counts.

    The paper's density figure gives no board or densities in its text; we use its
    reference board, 8x8, with 4..20 mines (densities 1/16 .. 5/16). Published: only the
    qualitative "increasing mine density quickly drops the rate of success".
    """
    games = _check_games("density_games", density_games)
    mines = [int(m) for m in mines]
    levels = [str(Level(side, side, m)) for m in mines]  # Level validates the counts
    df = _sweep(levels, games, seed, executor)
    table = summary_table(df)
    fig = _two_panels(table, "density", f"mine density (mines / cells, {side}x{side} board)",
                      f"Gardea et al.'s CSP over mine densities on {side}x{side}, {games:,} games per point "
                      f"(published: qualitative only)")
    return PaperResult("fig_csp_mine_density", fig, table, _measured_rows("CSP mine density", table))


def fig_csp_gui(level: str = "16x16x40", seed: int = 0) -> PaperResult:
    """One gardea-csp game as the paper's GUI pictures it: proved mines flagged, the
    uncovered squares with their values. The first game won from `seed` (or the last
    tried), drawn at its end."""
    import matplotlib.pyplot as plt

    from ..render import draw_board

    lv = Level.parse(level)
    agent = make_agent(AGENT, **AGENT_PARAMS)
    deal, agent.rng = run_streams(seed)
    for attempt in range(50):
        game = Game(lv, seed=deal)
        agent.play_game(game)
        if game.won:
            break
    stats = agent.game_stats(game)
    view = game.view
    flags = int((view == -2).sum())
    fig, ax = plt.subplots(figsize=(0.32 * lv.cols + 0.4, 0.32 * lv.rows + 0.9))
    draw_board(view, ax=ax, title=f"gardea-csp, {lv}, game {attempt + 1} of seed {seed}: "
                                  f"{'won' if game.won else 'lost'}\n{flags} proved mines flagged, "
                                  f"{stats['guesses']} guesses ({stats['crap_shoots']} crap shoots)")
    ax.title.set_fontsize(8)
    table = pd.DataFrame([{"level": str(lv), "game": attempt + 1, "won": game.won, "moves": len(game.moves),
                           "flags": flags, **stats}])
    return PaperResult("fig_csp_gui", fig, table, [])


# ------------------------------------------------------------------------- texts
# The notebook's commentary: every number below comes from the results; every verdict on a
# published number is the fidelity ledger's.
def _trend(values) -> str:
    """'falls steadily', 'falls overall' or 'does not fall' for a sequence over the x axis."""
    v = np.asarray(values, float)
    if v.size < 2 or v[-1] >= v[0]:
        return "does not fall"
    return "falls steadily" if np.all(np.diff(v) <= 0) else "falls overall (not at every step)"


def _fallbacks(table: pd.DataFrame) -> str:
    hit = table[table["fallbacks"] > 0]
    bound = f"{AGENT_PARAMS['max_nodes']:,}"
    if hit.empty:
        return f"No decision hit the backtracking bound ({bound} assignments; `fallbacks` column)."
    where = ", ".join(f"{int(r.fallbacks)} on {r.level}" for r in hit.itertuples())
    return (f"{int(hit['fallbacks'].sum())} decisions hit the backtracking bound (a coupled set of constraints with "
            f"more than {bound} assignments to list: {where}) and fell back to the documented local estimate; "
            "they are counted in `fallbacks`.")


def board_size_text(result: PaperResult) -> str:
    """Markdown commentary of `fig_csp_board_size`: our numbers beside the paper's three
    stated ones, each with the ledger's verdict."""
    t = result.table
    first, last = t.iloc[0], t.iloc[-1]
    ours = {m["quantity"]: m for m in result.measured}
    games = int(t["games"].min())
    item = "CSP board size"
    lines = [f"**Comparison.** With {games:,} games per point minelab's `{AGENT}` wins {first.win_rate:.3f} (95% "
             f"Wilson {first.ci_low:.3f}-{first.ci_high:.3f}) on {first.level} (the paper: \"approximately\") and "
             f"{last.win_rate:.3f} ({last.ci_low:.3f}-{last.ci_high:.3f}) on {last.level} (the paper: \"slightly "
             "less than\")."]
    drop_key = f"win-rate drop, {first.level} to {last.level}"
    rel_key = f"relative win-rate drop, {first.level} to {last.level}"
    if drop_key in ours:
        d = ours[drop_key]
        text = (f" The drop is {100 * d['value']:.1f} win-rate points (Newcombe {100 * d['ci_low']:.1f}-"
                f"{100 * d['ci_high']:.1f})")
        if rel_key in ours:
            r = ours[rel_key]
            text += (f", {r['value']:.1%} relative ({r['ci_low']:.1%}-{r['ci_high']:.1%}); the paper (\"less "
                     "than\") does not say which it means")
        lines[-1] += text + "."
    lines += ["", "The ledger on the paper's three numbers:", ""]
    lines += judged_lines(PAPER, item, [f"win rate, {first.level}", f"win rate, {last.level}", drop_key])
    trend = _trend(t["win_rate"])
    lines += ["", f"The win rate {trend} with board size (the paper: it falls), while the mean % uncovered stays "
              f"between {t['uncovered_pct'].min():.0f}% and {t['uncovered_pct'].max():.0f}%: a larger board offers "
              "more places for an unlucky guess (guesses per game "
              f"{'grow' if last.guesses_per_game > first.guesses_per_game else 'go'} from "
              f"{first.guesses_per_game:.1f} to {last.guesses_per_game:.1f}, crap shoots from "
              f"{first.crap_shoots_per_game:.2f} to {last.crap_shoots_per_game:.2f}). {_fallbacks(t)}"]
    return "\n".join(lines)


def mine_density_text(result: PaperResult, board_size: PaperResult | None = None) -> str:
    """Markdown commentary of `fig_csp_mine_density` (the paper states no number), set
    beside the board-size figure's drop when `board_size` is given."""
    from fractions import Fraction

    t = result.table
    first, last = t.iloc[0], t.iloc[-1]
    games = int(t["games"].min())
    ref = t[t["mines"] == 10]
    through = f" through {ref.iloc[0].win_rate:.2f} at 10" if len(ref) and 0 < ref.index[0] < len(t) - 1 else ""
    density_drop = first.win_rate - last.win_rate
    text = ("**Comparison.** The paper gives no numbers for this figure, only that \"increasing mine density "
            "quickly drops the rate of success for the CSP solver\" and that density matters far more than board "
            f"size. With {games:,} games per point the win rate {_trend(t['win_rate'])} from {first.win_rate:.2f} at "
            f"{int(first.mines)} mines (density {Fraction(int(first.mines), int(first.rows * first.cols))}){through} "
            f"to {last.win_rate:.2f} at {int(last.mines)} "
            f"({Fraction(int(last.mines), int(last.rows * last.cols))}), {100 * density_drop:.0f} points, and the "
            f"mean % uncovered from {first.uncovered_pct:.0f}% to {last.uncovered_pct:.0f}%")
    if board_size is not None:
        b = board_size.table
        b0, b1 = b.iloc[0], b.iloc[-1]
        size_drop = b0.win_rate - b1.win_rate
        factor = (b1.rows * b1.cols) / (b0.rows * b0.cols)
        text += (f", while the board-size figure above lost {100 * size_drop:.0f} points over a {factor:.0f}-fold "
                 "larger board.")
    else:
        text += "."
    return text + " " + _fallbacks(t)
