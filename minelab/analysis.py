"""Analyse a position: what is known of it exactly, what `best` plays there, and why.

    import minelab as ml
    a = ml.analyse(ml.Position.read("board.mine"))   # or a Game, or the position's text
    a.probabilities            # exact mine probability of every covered cell (NaN elsewhere)
    a.safe, a.mines            # the certainly safe cells and the certain mines
    a.layouts                  # how many layouts agree with the view
    a.move, a.reason           # the cell best reveals next, and its reason, in one line
    a.candidates               # the safest cells: safety, P(a certain cell next | safe), ...
    a.values                   # small boards: every move's exact win probability
    print(a)                   # all of it, as text (what `minelab analyse FILE` prints)

Everything comes from the view and the mine count alone. `best` decides on a game that
shows the position (`Position.game`), its hidden layout drawn from the posterior: no
decision reads it. Flags are beliefs: the analysis takes flagged cells as covered, and
`best` finds the certain mines itself.

The candidates are the `top` least probable covered cells. A candidate's *progress* is
the probability that, revealed and safe, it leaves a position with a certainly safe
cell: for each number v it can show, the position with it showing v is solved exactly,
weighted by the share of the consistent layouts in which it shows v.

`values`, the exact win probability of revealing each covered cell and then playing
optimally (`minelab.exact.move_values`), is given where the exact search can take the
board: at most 64 cells and C(cells, mines) at most `exact_limit`. There the safest cell
and the best move can be told apart.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .cells import COVERED, FLAGGED, REVEAL
from .engine import Game
from .position import Position

EXACT_LIMIT = 200_000  # C(cells, mines) at most this: the exact search answers in seconds


@dataclass(frozen=True, eq=False)
class Analysis:
    """The result of `analyse` (see the module docstring)."""

    position: Position
    probabilities: np.ndarray  # float64 (rows, cols): mine probability, NaN on revealed cells
    safe: list  # [(row, col)]: covered cells safe in every consistent layout
    mines: list  # [(row, col)]: covered cells that are a mine in every consistent layout
    log_layouts: float  # natural log of the number of consistent layouts
    exact: bool  # False when a region was too large to enumerate (probabilities estimated)
    move: tuple | None  # (row, col): the cell best reveals next (its flags are certain mines); None once won
    reason: str  # best's reason for it
    candidates: pd.DataFrame  # the safest cells: cell, mine_probability, safety, progress, frontier
    values: pd.DataFrame | None  # cell, win_probability (float), exact (a fraction): small boards only

    @property
    def layouts(self) -> float:
        """The number of layouts that agree with the view (a float: it can pass 10^100)."""
        return math.exp(self.log_layouts)

    def __str__(self) -> str:
        rows, cols = self.position.view.shape
        lines = [self.position.to_text().rstrip(), "",
                 f"{self.layouts:.6g} layouts agree with the view" + ("" if self.exact else " (estimated)"),
                 f"certainly safe: {_cells(self.safe)}", f"certain mines: {_cells(self.mines)}"]
        if self.move is None:
            lines.append("best: no move (every safe cell is revealed)")
        else:
            lines.append(f"best reveals {self.move}: {self.reason}")
        lines += ["", "the safest cells:", self.candidates.to_string(index=False)]
        if self.values is not None:
            lines += ["", "exact win probability of each move (then optimal play):",
                      self.values.head(10).to_string(index=False)]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return "```\n" + str(self) + "\n```"


def _cells(cells: list) -> str:
    if not cells:
        return "none"
    shown = ", ".join(str(c) for c in cells[:12])
    return shown + (f" and {len(cells) - 12} more" if len(cells) > 12 else "")


def as_position(position) -> Position:
    """A Position from a Position, a Game or the text format."""
    if isinstance(position, Position):
        return position
    if isinstance(position, Game):
        return Position.from_game(position)
    if isinstance(position, str):
        return Position.from_text(position)
    raise ValueError(f"position must be a Position, a Game or the position text, got {type(position).__name__}")


def analyse(position, *, top: int = 5, exact_limit: int = EXACT_LIMIT, seed: int = 0) -> Analysis:
    """Analyse a position (a Position, a Game in progress or the position text): see the
    module docstring. `top`: candidates listed; `seed`: the layout `best`'s game is dealt."""
    from .agents import make_agent
    from .engine import check_seed

    pos = as_position(position)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValueError(f"top must be a positive integer, got {top!r}")
    seed = check_seed(seed)
    plain = Position(np.where(pos.view == FLAGGED, COVERED, pos.view), pos.mines)  # flags are beliefs
    sol = plain.solve()
    cols = pos.view.shape[1]
    cells = lambda mask: [divmod(int(q), cols) for q in np.flatnonzero(mask.ravel())]  # noqa: E731
    won = int((plain.view == COVERED).sum()) == pos.mines
    move, reason = None, "every safe cell is revealed"
    if not won:
        agent = make_agent("best", seed=seed)
        q = next(q for kind, q in agent.decision(plain.game(seed)) if kind == REVEAL)
        move, reason = divmod(int(q), cols), agent.explain()
    return Analysis(position=pos, probabilities=sol.probabilities, safe=cells(sol.safe), mines=cells(sol.mine),
                    log_layouts=sol.log_layouts, exact=sol.exact, move=move, reason=reason,
                    candidates=_candidates(plain, sol, top), values=None if won else _values(plain, exact_limit))


def _candidates(pos: Position, sol, top: int) -> pd.DataFrame:
    """The `top` least probable covered cells, each looked at one step ahead."""
    from .probability import solve

    view, p = pos.view, sol.probabilities.ravel()
    rows, cols = view.shape
    covered = np.flatnonzero((view.ravel() == COVERED) & (p < 1))
    order = covered[np.lexsort((covered, p[covered]))][:top]
    out = []
    for q in order:
        r, c = divmod(int(q), cols)
        weights, progress = [], []
        for v in range(9):
            after = view.copy()
            after[r, c] = v
            try:
                s = solve(after, pos.mines)
            except ValueError:  # it cannot show v
                continue
            weights.append(s.log_layouts)
            progress.append(bool((s.safe & (after == COVERED)).any()))
        w = np.exp(np.array(weights) - max(weights)) if weights else np.zeros(0)
        frontier = bool((view[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2] >= 0).any())
        out.append({"cell": (r, c), "mine_probability": float(p[q]), "safety": 1.0 - float(p[q]),
                    "progress": min(1.0, float(w @ np.array(progress, float) / w.sum())) if len(w) else 0.0,
                    "numbers": len(weights), "frontier": frontier})
    return pd.DataFrame(out, columns=["cell", "mine_probability", "safety", "progress", "numbers", "frontier"])


def _values(pos: Position, exact_limit: int) -> pd.DataFrame | None:
    """Every covered cell's exact win probability, best first; None past the exact search's reach."""
    from . import exact

    lv = pos.level
    if lv.cells > 64 or math.comb(lv.cells, lv.mines) > exact_limit:
        return None
    values = exact.move_values(lv, pos.view)
    t = pd.DataFrame({"cell": list(values), "win_probability": [float(f) for f in values.values()],
                      "exact": [str(f) for f in values.values()]})
    return t.sort_values(["win_probability", "cell"], ascending=[False, True], ignore_index=True)
