"""`optimal`: exact optimal play on small boards (`minelab.exact`).

At each decision the agent knows the exact belief (every layout of the level consistent
with the view, equally likely) and plays:
1. the opening: `first_click` ("corner" by default, the papers' opening; "best": the
   first cell of greatest exact win probability; or a (row, col) pair);
2. a certainly safe cell when there is one (the lowest index: revealing a certainly
   safe cell never lowers the win probability);
3. otherwise the covered cell of greatest exact win probability under optimal play
   afterwards, the lowest index (row-major) among ties.
So its win rate over all layouts is exactly `minelab.exact.win_probability(level,
first_click)`: no agent can do better on average from the same opening.

It reads only the view (gs.shown), never the hidden mines, uses no randomness, and
caches its decisions by view (one solver memo per board, shared with
`minelab.exact`). Boards past the solver's limits (64 cells, `MAX_LAYOUTS` layouts;
5x5 boards with many mines take minutes for the first game) raise a ValueError naming
the level when the first game starts. Batch play runs the same decision function as
interactive play (a Python loop over the engine's kernels: exact play is bounded by the
solver, not the loop).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ..cells import FLAGGED, REVEAL, RULE_NAMES, UNFLAG
from ..engine import (
    N_RECORD,
    SP_COLS,
    SP_MINES,
    SP_ROWS,
    SP_RULE,
    ST_DEALT,
    ST_STATUS,
    begin_game,
    deal_first_click,
    open_cell,
    record_game,
)
from ..levels import Level
from .base import Agent, cell_to_move, register
from .csp import check_first_click
from .spec import Spec, given
from .why import LazyWhy, at, layouts, num


def _exact():
    """minelab.exact, imported on first use: importing minelab stays light, and
    `python -m minelab.exact` does not find the module already imported."""
    from .. import exact

    return exact


@dataclass(frozen=True)
class OptimalParams(Spec):
    """optimal's parameters."""

    first_click: object = given("corner", lambda v: check_first_click(v, ("corner", "best")),
                                "corner, best or a (row, col) pair",
                                doc="the opening click (best: the cell of greatest exact win probability)")


@register
class OptimalAgent(LazyWhy, Agent):
    """Exact optimal play (small boards only): certain cells first, else the cell of
    greatest exact win probability (ties: lowest index)."""

    name = "optimal"
    extra_fields = ("guesses",)
    _explains = True

    Params = OptimalParams

    def __init__(self, seed=None, **params):
        """`seed` is accepted for the common interface; the agent is deterministic."""
        super().__init__(seed)
        self._set_params(params)
        self._checked: set[Level] = set()

    def check_level(self, level: Level) -> Level:
        """`level` if the exact solver can play it, else a ValueError naming the limit."""
        if level not in self._checked:
            try:
                _exact()._check_level(level)
            except ValueError as exc:
                raise ValueError(f"optimal agent: {exc}") from None
            self._checked.add(level)
        return level

    def decide(self, level: Level, shown: np.ndarray) -> tuple[int, bool]:
        """(flat cell to reveal, whether it is a guess) at the view `shown` (flat int8)."""
        return _exact().decision(self.check_level(level), shown, self.first_click)

    # --- interactive -----------------------------------------------------------------
    def _choose(self, game):
        """The next move; a flagged cell it wants to reveal is unflagged first."""
        cell, guess = self.decide(game.level, game._gs.shown)
        kind = UNFLAG if game._gs.shown[cell] == FLAGGED else REVEAL
        level, shown = game.level, game._gs.shown.copy()
        self._why = partial(self._explain, level, shown, cell, guess, kind)  # exact values: on demand (LazyWhy)
        return cell_to_move(kind, cell, game.level)

    def _explain(self, level: Level, shown: np.ndarray, cell: int, guess: bool, kind: int) -> str:
        """Why `cell` at the view `shown`: its exact win probability from the solver's memo
        (the decision's search filled it), over the belief of the view."""
        return f"{self.name}: {self._reason(level, shown, cell, guess, kind)}"

    def _reason(self, level: Level, shown: np.ndarray, cell: int, guess: bool, kind: int) -> str:
        exact = _exact()
        where = at(cell, level.cols) + (" (unflagged first)" if kind == UNFLAG else "")
        v = exact._read_view(level, shown)
        if v.rev == 0:
            if self.first_click != "best":
                return f"opening click at {'the corner ' if self.first_click == 'corner' else ''}{where}"
            value = exact.first_click_values(level, "best")[divmod(cell, level.cols)]
            return f"opening click at {where}: the first cell of greatest exact win probability, {num(value)}"
        solver = exact._solver(level)
        lay = exact._belief(level, solver, v)
        if not guess:
            return f"{where} is certainly safe: safe {layouts(np.log(len(lay)))} (the lowest-index safe cell)"
        won = solver.click(lay, cell, v.rev, v.num)
        return (f"guess {where}: exact win probability {won}/{len(lay)} = {num(won / len(lay))} under optimal play, "
                f"the greatest of the covered cells (lowest index among ties)")

    # --- batch ---------------------------------------------------------------------
    def play_batch(self, gs, n_games, deal_rng, out):
        """Play n_games games on gs (the same decisions as `choose`), records into out.

        The one batch loop written in Python, not minelab.agents.batch.play_games: its
        decision is the exact search of minelab.exact, Python code a numba kernel cannot
        call (milliseconds a decision, so the loop costs nothing beside it)."""
        spec = gs.spec
        level = self.check_level(Level(int(spec[SP_ROWS]), int(spec[SP_COLS]), int(spec[SP_MINES]),
                                       RULE_NAMES[int(spec[SP_RULE])]))
        st = gs.counters
        for g in range(n_games):
            begin_game(gs, deal_rng)
            guesses = 0
            while st[ST_STATUS] == 0:
                cell, guess = self.decide(level, gs.shown)
                guesses += guess
                if st[ST_DEALT] == 0:
                    deal_first_click(gs, cell, deal_rng)
                open_cell(gs, cell)
            record_game(gs, out, g)
            out[g, N_RECORD + self.extra_fields.index("guesses")] = guesses
