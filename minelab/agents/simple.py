"""Baselines: `random` (uniform over covered cells) and `oracle` (labelled cheat).

The oracle reveals safe cells only (it reads the hidden layout); it is the ceiling of
every agent, the engine's throughput benchmark, and a test fixture. With `lookup` < 1
it is Gardea et al.'s oracle (2015, §III-A): it "can look up the location of mines a
fixed ratio of the time, and other times must make a random guess" — each decision
looks up with probability `lookup`, otherwise reveals a uniformly random covered cell.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..cells import REVEAL
from ..engine import ST_DEALT, kernel, random_covered_cell
from .base import Agent, cell_to_move, register
from .batch import hook, hooks, play_games
from .spec import Spec, number
from .why import at, count, covered_cells, num


# ------------------------------------------------------------------------ random
@kernel
def random_decide(view, rng):
    return random_covered_cell(view, rng)


class RandomBatch(NamedTuple):
    """random's batch state (minelab.agents.batch): nothing but the empty record extra."""

    extra: np.ndarray  # int64[0]


@hook
def _random_move(state, gs, rng, deal_rng):
    return REVEAL, random_decide(gs.shown, rng)


hooks(RandomBatch, _random_move)


@register
class RandomAgent(Agent):
    """Reveals a uniformly random covered cell; never flags."""

    name = "random"
    _explains = True

    def _choose(self, game):
        n = covered_cells(game._gs.shown)
        cell = random_decide(game._gs.shown, self.rng)
        self._why = f"{self.name}: {at(cell, game.level.cols)}, uniformly at random among {count(n, 'covered cell')}"
        return cell_to_move(REVEAL, cell, game.level)

    def play_batch(self, gs, n_games, deal_rng, out):
        play_games(gs, n_games, deal_rng, self.rng, RandomBatch(np.zeros(0, np.int64)), out)


# ------------------------------------------------------------------------ oracle
@kernel
def oracle_decide(view, mine, dealt, start):
    """First covered safe cell at or after `start`, then from the top (any covered cell before dealing)."""
    n = view.shape[0]
    for i in range(start, n):
        if view[i] == -1 and (dealt == 0 or mine[i] == 0):
            return i
    for i in range(0, min(start, n)):
        if view[i] == -1 and (dealt == 0 or mine[i] == 0):
            return i
    return -1


@kernel
def oracle_step(view, mine, dealt, start, lookup, rng):
    """Look the mines up with probability `lookup` (no draw at all when it is 1: the
    plain oracle), otherwise a uniformly random covered cell."""
    if lookup < 1.0 and rng.random() >= lookup:
        return random_covered_cell(view, rng)
    return oracle_decide(view, mine, dealt, start)


class OracleBatch(NamedTuple):
    """oracle's batch state (minelab.agents.batch): the look-up share and where the scan
    resumes (the cell of the last move, 0 at the start of a game)."""

    lookup: float
    last: np.ndarray  # int64[1]
    extra: np.ndarray  # int64[0]


@hook
def _oracle_begin(state, gs):
    state.last[0] = 0


@hook
def _oracle_move(state, gs, rng, deal_rng):
    cell = oracle_step(gs.shown, gs.mine, gs.counters[ST_DEALT], state.last[0], state.lookup, rng)
    state.last[0] = cell
    return REVEAL, cell


hooks(OracleBatch, _oracle_move, begin_fn=_oracle_begin)


@dataclass(frozen=True)
class OracleParams(Spec):
    """oracle's parameters."""

    lookup: float = number(1.0, 0.0, 1.0, doc="the share of decisions that read the mines")


@register
class OracleAgent(Agent):
    """CHEAT: reads the hidden mines and reveals safe cells in scan order. A ceiling, not a
    player. `lookup` (default 1): the share of decisions that read the mines; the others
    reveal a random covered cell (Gardea et al.'s oracle)."""

    name = "oracle"
    cheat = True
    _explains = True

    Params = OracleParams

    def __init__(self, seed=None, **params):
        super().__init__(seed)
        self._set_params(params)

    def _choose(self, game):
        gs = game._gs
        start = 0 if self.lookup == 1.0 else self._start(game)
        looks = self.lookup == 1.0 or copy.deepcopy(self.rng).random() < self.lookup  # oracle_step's own draw
        n = covered_cells(gs.shown)
        dealt = gs.counters[ST_DEALT]
        cell = oracle_step(gs.shown, gs.mine, dealt, start, self.lookup, self.rng)
        where = at(cell, game.level.cols)
        if not looks:
            why = f"{where}: no look-up this time (lookup = {num(self.lookup)}): uniformly at random among {n} cells"
        elif not dealt:
            why = f"{where}: the first covered cell in scan order (the mines are not dealt yet)"
        else:
            scan = "the first in scan order" + (f" from {at(start, game.level.cols)}" if start else "")
            why = f"CHEAT: {where} is a safe cell known from the hidden layout ({scan})"
        self._why = f"{self.name}: {why}"
        return cell_to_move(REVEAL, cell, game.level)

    @staticmethod
    def _start(game) -> int:
        """Where the batch kernel's scan resumes: the cell of the last move."""
        return game.moves[-1].row * game.level.cols + game.moves[-1].col if game.moves else 0

    def play_batch(self, gs, n_games, deal_rng, out):
        state = OracleBatch(float(self.lookup), np.zeros(1, np.int64), np.zeros(0, np.int64))
        play_games(gs, n_games, deal_rng, self.rng, state, out)
