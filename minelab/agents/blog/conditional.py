"""The blog's Conditional model: Naive Bayes over each covered cell's neighbours (see minelab.agents.blog)."""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ...cells import COVERED, REVEAL
from ...engine import (
    SP_COLS,
    SP_ROWS,
    kernel,
    uniform_below,
)
from ..base import Agent, cell_to_move, register
from ..batch import hook, hooks, play_games
from ..saved import memory_arrays, memory_from
from ..why import at, cell_values, count, num
from ..spec import Spec, choice, integer, number
from .common import EMPTY, FEATURES, MINE, N_STATES, PICK_EMPTY, PICKS


# ============================================================================ Naive Bayes
class NBTables(NamedTuple):
    """What the Conditional model has learnt (one board shape)."""

    counts: np.ndarray    # int64[2, K, N_STATES]: observations of neighbour position k in state s, per class
    obs: np.ndarray       # int64[2]: observations (covered cell, decision) per class
    logp: np.ndarray      # float64[2, K, N_STATES]: log P(X_k = s | C), rebuilt after each game
    logprior: np.ndarray  # float64[2]: log P(C)


class NBWork(NamedTuple):
    """One game's observations (their class is known when it ends) and decision scratch."""

    pending: np.ndarray    # int32[n, K, N_STATES]
    pending_n: np.ndarray  # int32[n]: decisions at which the cell was covered
    score: np.ndarray      # float64[n]: log P(Empty | N) - log P(Mine | N) of the decision
    exclude: np.ndarray    # uint8[n]: cells not to play (the semi-deterministic M); zeros otherwise


@njit(cache=True)
def radius_table(rows, cols, r):
    """int32[n, (2r+1)^2 - 1]: the cell at each neighbour offset (row-major), -1 off the board."""
    side = 2 * r + 1
    near = np.full((rows * cols, side * side - 1), -1, np.int32)
    for i in range(rows * cols):
        y, x = i // cols, i % cols
        k = 0
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                if dy == 0 and dx == 0:
                    continue
                if 0 <= y + dy < rows and 0 <= x + dx < cols:
                    near[i, k] = (y + dy) * cols + x + dx
                k += 1
    return near


@kernel
def state_code(v):
    return v + 1 if v >= 0 else 0


@kernel
def nb_scores(view, near, tab, work):
    """work.score[i] = log P(Empty | N_i) - log P(Mine | N_i) for every playable covered
    cell (0 when both classes are ruled out: 0/0 reads as even). Returns how many are
    classified Empty (score >= 0: the pseudocode keeps Empty unless Mine beats it)."""
    n_empty = 0
    for i in range(view.shape[0]):
        if view[i] != COVERED or work.exclude[i]:
            continue
        le = tab.logprior[EMPTY]
        lm = tab.logprior[MINE]
        for k in range(near.shape[1]):
            j = near[i, k]
            if j >= 0:
                s = state_code(view[j])
                le += tab.logp[EMPTY, k, s]
                lm += tab.logp[MINE, k, s]
        if le == lm:  # also both -inf
            d = 0.0
        else:
            d = le - lm
        work.score[i] = d
        if d >= 0.0:
            n_empty += 1
    return n_empty


@kernel
def nb_decide(view, near, tab, work, pick, rng):
    """The Conditional model's cell (see the module docstring); -1 if nothing is playable."""
    n_empty = nb_scores(view, near, tab, work)
    if pick == PICK_EMPTY and n_empty > 0:
        k = uniform_below(rng, n_empty)
        for i in range(view.shape[0]):
            if view[i] == COVERED and not work.exclude[i] and work.score[i] >= 0.0:
                if k == 0:
                    return i
                k -= 1
    best = -np.inf
    ties = 0
    for i in range(view.shape[0]):
        if view[i] == COVERED and not work.exclude[i]:
            if work.score[i] > best or ties == 0:
                best = work.score[i]
                ties = 1
            elif work.score[i] == best:
                ties += 1
    if ties == 0:
        return -1
    k = uniform_below(rng, ties)
    for i in range(view.shape[0]):
        if view[i] == COVERED and not work.exclude[i] and work.score[i] == best:
            if k == 0:
                return i
            k -= 1
    return -1


@kernel
def nb_observe(view, near, work):
    """Count this decision's observations: every covered cell and its neighbours' states."""
    for i in range(view.shape[0]):
        if view[i] != COVERED:
            continue
        work.pending_n[i] += 1
        for k in range(near.shape[1]):
            j = near[i, k]
            if j >= 0:
                work.pending[i, k, state_code(view[j])] += 1


@kernel
def _log_ratio(num, den):
    if den == 0.0:
        return 0.0  # no observation at all: uninformative
    if num == 0.0:
        return -np.inf
    return np.log(num / den)


@kernel
def nb_tables(tab, alpha, pooled):
    """Rebuild log P(C) and log P(X_k = s | C) from the counts, `alpha` added to each."""
    total = tab.obs[EMPTY] + tab.obs[MINE]
    for c in range(2):
        tab.logprior[c] = _log_ratio(tab.obs[c] + alpha, total + 2.0 * alpha)
        n_pos = tab.counts.shape[1]
        for k in range(n_pos):
            den = 0.0
            for s in range(N_STATES):
                if pooled:
                    for kk in range(n_pos):
                        den += tab.counts[c, kk, s]
                else:
                    den += tab.counts[c, k, s]
            for s in range(N_STATES):
                num = 0.0
                if pooled:
                    for kk in range(n_pos):
                        num += tab.counts[c, kk, s]
                else:
                    num = float(tab.counts[c, k, s])
                tab.logp[c, k, s] = _log_ratio(num + alpha, den + N_STATES * alpha)


@kernel
def nb_learn(mine, tab, work, alpha, pooled):
    """After a game: each observed cell's counts go to its class (from the final layout)."""
    for i in range(mine.shape[0]):
        m = work.pending_n[i]
        if m == 0:
            continue
        c = MINE if mine[i] else EMPTY
        tab.obs[c] += m
        work.pending_n[i] = 0
        for k in range(work.pending.shape[1]):
            for s in range(N_STATES):
                tab.counts[c, k, s] += work.pending[i, k, s]
                work.pending[i, k, s] = 0
    nb_tables(tab, alpha, pooled)


class NBBatch(NamedTuple):
    """The Conditional model's batch state (minelab.agents.batch): its neighbourhoods,
    tables, work arrays and settings."""

    near: np.ndarray
    tab: NBTables
    work: NBWork
    pick: int
    alpha: float
    pooled: bool
    extra: np.ndarray  # int64[0]


@hook
def _nb_move(state, gs, rng, deal_rng):
    cell = nb_decide(gs.shown, state.near, state.tab, state.work, state.pick, rng)
    nb_observe(gs.shown, state.near, state.work)  # the position the decision saw
    return REVEAL, cell


@hook
def _nb_end(state, gs):
    nb_learn(gs.mine, state.tab, state.work, state.alpha, state.pooled)


hooks(NBBatch, _nb_move, end_fn=_nb_end)


def new_nb_tables(positions: int, alpha: float, pooled: bool) -> NBTables:
    tab = NBTables(np.zeros((2, positions, N_STATES), np.int64), np.zeros(2, np.int64),
                   np.zeros((2, positions, N_STATES)), np.zeros(2))
    nb_tables(tab, alpha, pooled)
    return tab


def new_nb_work(cells: int, positions: int) -> NBWork:
    return NBWork(np.zeros((cells, positions, N_STATES), np.int32), np.zeros(cells, np.int32), np.zeros(cells),
                  np.zeros(cells, np.uint8))


class _NaiveBayes:
    """The Conditional model's parameters (checked by ConditionalParams), memory (per
    board shape) and per-game work."""

    def __init__(self, radius, features, alpha, pick):
        self.radius, self.features, self.alpha, self.pick = radius, features, alpha, pick
        self.positions = (2 * self.radius + 1) ** 2 - 1
        self._memory: dict[tuple[int, int], tuple[np.ndarray, NBTables]] = {}
        self._batch_work: dict[tuple[int, int], NBWork] = {}
        self._game_work = weakref.WeakKeyDictionary()

    @property
    def pooled(self) -> bool:
        return self.features == "pooled"

    @property
    def pick_code(self) -> int:
        return PICKS.index(self.pick)

    def memory(self, rows: int, cols: int) -> tuple[np.ndarray, NBTables]:
        """(the neighbour-position table, the learnt tables) for this board shape."""
        key = (rows, cols)
        if key not in self._memory:
            near = radius_table(rows, cols, self.radius)
            self._memory[key] = (near, new_nb_tables(self.positions, self.alpha, self.pooled))
        return self._memory[key]

    def saved(self) -> tuple[dict, dict]:
        """(arrays, facts) of the memory (minelab.agents.saved): per board shape the counts
        and observations; the log tables and the neighbour positions follow from them."""
        return memory_arrays({shape: {"counts": tab.counts, "obs": tab.obs}
                              for shape, (_, tab) in self._memory.items()})

    def restore(self, arrays: dict, facts: dict) -> None:
        """Take back the memory `saved` wrote: its log tables rebuilt as learning leaves them."""
        layout = {"counts": (np.int64, (2, self.positions, N_STATES)), "obs": (np.int64, (2,))}
        memory = {}
        for (rows, cols), f in memory_from(arrays, facts, lambda rows, cols: layout).items():
            tab = NBTables(f["counts"], f["obs"], np.zeros((2, self.positions, N_STATES)), np.zeros(2))
            nb_tables(tab, self.alpha, self.pooled)
            memory[(rows, cols)] = (radius_table(rows, cols, self.radius), tab)
        self._memory = memory

    def batch_work(self, rows: int, cols: int) -> NBWork:
        if (rows, cols) not in self._batch_work:
            self._batch_work[(rows, cols)] = new_nb_work(rows * cols, self.positions)
        return self._batch_work[(rows, cols)]

    def game_work(self, game) -> NBWork:
        if game not in self._game_work:
            self._game_work[game] = new_nb_work(game.level.cells, self.positions)
        return self._game_work[game]

    def learn(self, game) -> None:
        near, tab = self.memory(game.level.rows, game.level.cols)
        work = self._game_work.pop(game, None)
        if work is not None:
            nb_learn(game._gs.mine, tab, work, self.alpha, self.pooled)


@dataclass(frozen=True)
class ConditionalParams(Spec):
    """conditional's parameters."""

    radius: int = integer(1, 1, 8, doc="the neighbourhood a cell is classified from")
    features: str = choice("position", FEATURES, doc="position: each neighbour apart; pooled: counts only")
    alpha: float = number(1.0, 0.0, doc="additive smoothing (1: add-one)")
    pick: str = choice("random-empty", PICKS, doc="a random cell classified Empty, or the likeliest Empty")


@register
class ConditionalAgent(Agent):
    """The blog's Conditional model: a Naive Bayes classifier of each covered cell from its
    neighbours' states, learnt from its own past games; reveals a random cell classified
    Empty. Parameters: radius (1), features ("position" | "pooled"), alpha (1.0: add-one),
    pick ("random-empty" | "argmax"). See minelab.agents.blog."""

    name = "conditional"
    learns = True
    _explains = True

    Params = ConditionalParams

    def __init__(self, seed=None, **params):
        super().__init__(seed)
        self._set_params(params)
        self.nb = _NaiveBayes(self.radius, self.features, self.alpha, self.pick)

    def tables(self, rows: int, cols: int) -> NBTables:
        """What it has learnt on rows x cols boards (counts, observations, log tables)."""
        return self.nb.memory(rows, cols)[1]

    def _saved(self):
        return self.nb.saved()

    def _restore(self, arrays, facts):
        self.nb.restore(arrays, facts)

    def _choose(self, game):
        near, tab = self.nb.memory(game.level.rows, game.level.cols)
        work = self.nb._game_work.get(game) or new_nb_work(game.level.cells, self.nb.positions)
        cell = nb_decide(game._gs.shown, near, tab, work, self.nb.pick_code, self.rng)
        self._why = f"{self.name}: {nb_why(game._gs.shown, tab, work, cell, self.nb.pick, game.level.cols)}"
        return cell_to_move(REVEAL, cell, game.level)

    def knowledge(self, game):
        """P(mine | neighbours) of each covered cell by the Naive Bayes model learnt so far."""
        near, tab = self.nb.memory(game.level.rows, game.level.cols)
        view = game._gs.shown
        work = NBWork(np.zeros((1, 1, N_STATES), np.int32), np.zeros(1, np.int32), np.zeros(view.shape[0]),
                      np.zeros(view.shape[0], np.uint8))
        nb_scores(view, near, tab, work)
        values = np.where(view == COVERED, p_mine(work.score), np.nan)
        label = f"{self.name}: Naive Bayes P(mine | neighbours), from {count(tab.obs.sum(), 'observation')}"
        return cell_values(values, None, (game.level.rows, game.level.cols), label, 0.0, 1.0, "mine")

    def act(self, game):
        move = self.choose(game)
        near, _ = self.nb.memory(game.level.rows, game.level.cols)
        nb_observe(game._gs.shown, near, self.nb.game_work(game))
        game.apply(move)
        return [move]

    def game_over(self, game):
        self.nb.learn(game)

    def play_batch(self, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        near, tab = self.nb.memory(rows, cols)
        state = NBBatch(near, tab, self.nb.batch_work(rows, cols), int(self.nb.pick_code), float(self.nb.alpha),
                        bool(self.nb.pooled), np.zeros(0, np.int64))
        play_games(gs, n_games, deal_rng, self.rng, state, out)


def p_mine(score):
    """P(mine | N) from nb_scores' log P(Empty | N) - log P(Mine | N) (+-inf: certain)."""
    return 0.5 * (1.0 - np.tanh(np.asarray(score, np.float64) / 2.0))


def nb_why(view, tab, work, cell, pick, cols) -> str:
    """Why nb_decide chose `cell` (work.score: the decision's scores of the playable covered cells)."""
    playable = (view == COVERED) & (work.exclude == 0)
    scores = work.score[playable]
    n_empty = int(np.count_nonzero(scores >= 0.0))
    said = (f"{at(cell, cols)}: P(mine | neighbours) = {num(p_mine(work.score[cell]))} (Naive Bayes, "
            f"{count(tab.obs.sum(), 'observation')})")
    if pick == "random-empty" and n_empty:
        return f"{said}, classified empty: uniformly at random among the {count(n_empty, 'cell')} classified empty"
    ties = int(np.count_nonzero(scores == scores.max()))
    said += "; no cell is classified empty" if pick == "random-empty" else ""
    said += f"; the least of the {count(playable.sum(), 'covered cell')}"
    return said + (f" (tied with {ties - 1} more, chosen at random)" if ties > 1 else "")


