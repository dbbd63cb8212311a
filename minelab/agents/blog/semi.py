"""The blog's Semi-deterministic model: inference, then a fallback model (see minelab.agents.blog)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cells import COVERED, REVEAL
from ...engine import (
    SP_COLS,
    SP_ROWS,
    kernel,
    random_covered_cell,
    uniform_below,
)
from ..base import Agent, cell_to_move, register
from ..batch import extra_index, hook, hooks, play_games
from ..why import at, count
from ..spec import Spec, choice, flag
from .common import FALLBACKS
from .conditional import NBTables, NBWork, _NaiveBayes, nb_decide, nb_learn, nb_observe, nb_why, new_nb_work


# ====================================================================== semi-deterministic
class SemiWork(NamedTuple):
    """Scratch of one inference (all int8/uint8/int32 of n cells)."""

    covered_nbrs: np.ndarray  # int8: E, covered neighbours
    mine: np.ndarray          # uint8: M, inferred mines
    mine_nbrs: np.ndarray     # int8: F, inferred mines around
    safe: np.ndarray          # int32: the safe set S, as a list
    in_safe: np.ndarray       # uint8: membership of S


def new_semi_work(cells: int) -> SemiWork:
    return SemiWork(np.zeros(cells, np.int8), np.zeros(cells, np.uint8), np.zeros(cells, np.int8),
                    np.zeros(cells, np.int32), np.zeros(cells, np.uint8))


@kernel
def semi_infer(view, nbr, nbr_count, w):
    """The blog's inference: fills w.mine (M) and w.safe (S); returns |S|."""
    n = view.shape[0]
    for i in range(n):
        e = 0
        for k in range(nbr_count[i]):
            if view[nbr[i, k]] < 0:  # covered (or flagged): U
                e += 1
        w.covered_nbrs[i] = e
        w.mine[i] = 0
        w.in_safe[i] = 0
    for i in range(n):
        v = view[i]
        if v <= 0 or v != w.covered_nbrs[i]:
            continue
        for k in range(nbr_count[i]):
            j = nbr[i, k]
            if view[j] < 0:
                w.mine[j] = 1
    for i in range(n):
        f = 0
        for k in range(nbr_count[i]):
            f += w.mine[nbr[i, k]]
        w.mine_nbrs[i] = f
    size = 0
    for i in range(n):
        v = view[i]
        if v < 0 or w.mine_nbrs[i] != v:
            continue
        for k in range(nbr_count[i]):
            j = nbr[i, k]
            if view[j] == COVERED and not w.mine[j] and not w.in_safe[j]:
                w.in_safe[j] = 1
                w.safe[size] = j
                size += 1
    return size


@kernel
def random_unexcluded(view, exclude, rng):
    """A uniformly random covered cell not in `exclude`; any covered cell if all are."""
    k = 0
    for i in range(view.shape[0]):
        if view[i] == COVERED and not exclude[i]:
            k += 1
    if k == 0:
        return random_covered_cell(view, rng)
    pick = uniform_below(rng, k)
    for i in range(view.shape[0]):
        if view[i] == COVERED and not exclude[i]:
            if pick == 0:
                return i
            pick -= 1
    return -1


# 11 parameters: the view and its neighbours, S's work arrays, then the fallback's choice,
# model, work arrays and settings: numba kernels take them one by one.
@kernel
def semi_decide(view, nbr, nbr_count, w, fallback, avoid, near, tab, nbw, pick, rng):
    """(cell, 1 if the fallback chose it). S first; else the fallback model."""
    size = semi_infer(view, nbr, nbr_count, w)
    if size > 0:
        return np.int64(w.safe[uniform_below(rng, size)]), 0
    for i in range(view.shape[0]):
        nbw.exclude[i] = w.mine[i] if avoid else 0
    if fallback == 1:
        cell = nb_decide(view, near, tab, nbw, pick, rng)
        if cell < 0:
            cell = random_covered_cell(view, rng)
        return cell, 1
    return random_unexcluded(view, nbw.exclude, rng), 1


#: the record columns semi-deterministic adds, in the order of its batch state's `extra`
SEMI_EXTRA = ("guesses",)
_X_GUESSES = extra_index(SEMI_EXTRA, "guesses")


class SemiBatch(NamedTuple):
    """semi-deterministic's batch state (minelab.agents.batch): S's work arrays, the
    fallback's choice, and the Conditional fallback's model and settings."""

    w: SemiWork
    fallback: int
    avoid: bool
    near: np.ndarray
    tab: NBTables
    nbw: NBWork
    pick: int
    alpha: float
    pooled: bool
    extra: np.ndarray  # int64[len(SEMI_EXTRA)]


@hook
def _semi_begin(state, gs):
    state.extra[:] = 0


@hook
def _semi_move(state, gs, rng, deal_rng):
    view = gs.shown
    cell, guessed = semi_decide(view, gs.nbr, gs.nbr_count, state.w, state.fallback, state.avoid, state.near,
                                state.tab, state.nbw, state.pick, rng)
    state.extra[_X_GUESSES] += guessed
    if state.fallback == 1:
        nb_observe(view, state.near, state.nbw)
    return REVEAL, cell


@hook
def _semi_end(state, gs):
    if state.fallback == 1:
        nb_learn(gs.mine, state.tab, state.nbw, state.alpha, state.pooled)


hooks(SemiBatch, _semi_move, begin_fn=_semi_begin, end_fn=_semi_end)


@dataclass(frozen=True)
class SemiParams(Spec):
    """semi-deterministic's parameters."""

    fallback: str = choice("random", FALLBACKS, doc="the model that decides when no cell is inferred safe")
    avoid_mines: bool = flag(False, doc="keep the fallback off the inferred mines")


@register
class SemiDeterministicAgent(Agent):
    """The blog's Semi-deterministic model: infers certain mines (a number equal to its
    covered neighbours) and then safe cells (a number whose inferred mines are all there),
    reveals a random safe cell; when there is none, its `fallback` model ("random" |
    "conditional") decides. `avoid_mines` keeps the fallback off the inferred mines.
    See minelab.agents.blog."""

    name = "semi-deterministic"
    extra_fields = SEMI_EXTRA
    _explains = True

    Params = SemiParams

    def __init__(self, seed=None, **params):
        super().__init__(seed)
        self._set_params(params)
        self.learns = self.fallback == "conditional"
        self.nb = _NaiveBayes(1, "position", 1.0, "random-empty")
        self._work: dict[int, SemiWork] = {}

    @property
    def _fb(self) -> int:
        return FALLBACKS.index(self.fallback)

    def _saved(self):
        if not self.learns:
            return super()._saved()
        return self.nb.saved()

    def _restore(self, arrays, facts):
        if not self.learns:
            super()._restore(arrays, facts)
        self.nb.restore(arrays, facts)

    def _semi_work(self, cells: int) -> SemiWork:
        if cells not in self._work:
            self._work[cells] = new_semi_work(cells)
        return self._work[cells]

    def _decide(self, gs, level, nbw):
        near, tab = self.nb.memory(level.rows, level.cols)
        w = self._semi_work(level.cells)
        cell, guessed = semi_decide(gs.shown, gs.nbr, gs.nbr_count, w, self._fb, self.avoid_mines, near, tab, nbw,
                                    self.nb.pick_code, self.rng)
        self._why = f"{self.name}: {self._explain(gs.shown, w, tab, nbw, int(cell), guessed, level.cols)}"
        return cell_to_move(REVEAL, cell, level)

    def _explain(self, view, w, tab, nbw, cell, guessed, cols) -> str:
        """From the inference's sets (w.in_safe: S, w.mine: M) and the fallback's scores."""
        covered = view == COVERED
        mines = f"{count(np.count_nonzero(w.mine.astype(bool) & covered), 'inferred mine')}"
        if not guessed:
            size = int(w.in_safe.sum())
            among = "the only safe cell inferred" if size == 1 else f"uniformly at random among the {size} inferred"
            return (f"{at(cell, cols)} is inferred safe (next to a number with all its inferred mines around it): "
                    f"{among} ({mines})")
        said = f"no cell inferred safe ({mines}): fallback {self.fallback!r}"
        if self.fallback == "conditional":
            return f"{said}: {nb_why(view, tab, nbw, cell, self.nb.pick, cols)}"
        pool = covered & (nbw.exclude == 0)
        avoid = ", avoiding the inferred mines" if self.avoid_mines and pool.any() and not pool[covered].all() else ""
        among = count(pool.sum() or covered.sum(), "cell")
        return f"{said}: {at(cell, cols)}, uniformly at random among {among}{avoid}"

    def _choose(self, game):
        nbw = self.nb._game_work.get(game) or new_nb_work(game.level.cells, self.nb.positions)
        return self._decide(game._gs, game.level, nbw)

    def act(self, game):
        if game.over:
            raise ValueError("act() needs a game in progress; this one is over")
        nbw = self.nb.game_work(game)
        move = self._decide(game._gs, game.level, nbw)
        if self.learns:
            nb_observe(game._gs.shown, self.nb.memory(game.level.rows, game.level.cols)[0], nbw)
        game.apply(move)
        return [move]

    def game_over(self, game):
        if self.learns:
            self.nb.learn(game)
        else:
            self.nb._game_work.pop(game, None)

    def play_batch(self, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        near, tab = self.nb.memory(rows, cols)
        state = SemiBatch(self._semi_work(rows * cols), int(self._fb), bool(self.avoid_mines), near, tab,
                          self.nb.batch_work(rows, cols), int(self.nb.pick_code), float(self.nb.alpha),
                          bool(self.nb.pooled), np.zeros(len(SEMI_EXTRA), np.int64))
        play_games(gs, n_games, deal_rng, self.rng, state, out)


