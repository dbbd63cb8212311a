"""The blog's Marginal model (antimatroid 2012): a naive learner.

It keeps, per cell, how often a mine has been seen there at the end of past games and
reveals the covered cell with the greatest empirical probability of being empty,
ties broken uniformly at random. Mines are uniform, so it should do no better than
random: the blog uses it as the "chance" line. It learns only after a game ends, from
the layout the player sees then (all mines are shown after a loss; after a win the
covered cells are the mines).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..cells import COVERED, REVEAL
from ..engine import SP_COLS, SP_ROWS, kernel
from .base import Agent, cell_to_move, register
from .batch import hook, hooks, play_games
from .why import at, cell_values, count, num
from .saved import memory_arrays, memory_from


@kernel
def marginal_decide(view, mine_seen, games_seen, rng):
    """argmax over covered cells of 1 - mine_seen/games_seen, uniform among ties."""
    best = -1.0
    choice = -1
    ties = 0
    for i in range(view.shape[0]):
        if view[i] != COVERED:
            continue
        p_empty = 1.0 if games_seen == 0 else 1.0 - mine_seen[i] / games_seen
        if p_empty > best:
            best = p_empty
            choice = i
            ties = 1
        elif p_empty == best:
            ties += 1
            if rng.random() * ties < 1.0:  # reservoir sampling: each tie kept w.p. 1/ties
                choice = i
    return choice


@kernel
def marginal_learn(mine, mine_seen, games_seen):
    for i in range(mine.shape[0]):
        mine_seen[i] += mine[i]
    games_seen[0] += 1


class MarginalBatch(NamedTuple):
    """marginal's batch state (minelab.agents.batch): its counts, learned after each game."""

    mine_seen: np.ndarray  # int64[cells]
    games_seen: np.ndarray  # int64[1]
    extra: np.ndarray  # int64[0]


@hook
def _marginal_move(state, gs, rng, deal_rng):
    return REVEAL, marginal_decide(gs.shown, state.mine_seen, state.games_seen[0], rng)


@hook
def _marginal_end(state, gs):
    marginal_learn(gs.mine, state.mine_seen, state.games_seen)


hooks(MarginalBatch, _marginal_move, end_fn=_marginal_end)


@register
class MarginalAgent(Agent):
    """Avoids the cells where mines were seen most often in past games."""

    name = "marginal"
    learns = True
    _explains = True

    def __init__(self, seed=None):
        super().__init__(seed)
        self._memory: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def memory(self, rows: int, cols: int):
        """(mine_seen int64[rows*cols], games_seen int64[1]) for this board shape."""
        key = (rows, cols)
        if key not in self._memory:
            self._memory[key] = (np.zeros(rows * cols, np.int64), np.zeros(1, np.int64))
        return self._memory[key]

    def _saved(self):
        return memory_arrays({shape: {"mine_seen": seen, "games_seen": games}
                              for shape, (seen, games) in self._memory.items()})

    def _restore(self, arrays, facts):
        memory = memory_from(arrays, facts, lambda rows, cols: {"mine_seen": (np.int64, (rows * cols,)),
                                                                "games_seen": (np.int64, (1,))})
        self._memory = {shape: (f["mine_seen"], f["games_seen"]) for shape, f in memory.items()}

    def mine_frequency(self, rows: int, cols: int) -> np.ndarray:
        seen, games = self.memory(rows, cols)
        return (seen / max(int(games[0]), 1)).reshape(rows, cols)

    def _choose(self, game):
        seen, games = self.memory(game.level.rows, game.level.cols)
        cell = marginal_decide(game._gs.shown, seen, games[0], self.rng)
        self._why = f"{self.name}: {self._explain(game._gs.shown, seen, int(games[0]), cell, game.level.cols)}"
        return cell_to_move(REVEAL, cell, game.level)

    @staticmethod
    def _explain(view, seen, games, cell, cols) -> str:
        where = at(cell, cols)
        covered = view == COVERED
        if games == 0:
            return f"{where}: no past game, every cell alike: uniformly at random among {count(covered.sum(), 'cell')}"
        p_empty = 1.0 - seen[covered] / games  # as marginal_decide computes it
        ties = int(np.count_nonzero(p_empty == p_empty.max()))
        said = (f"{where}: a mine there in {seen[cell]} of {count(games, 'past game')} (p(mine) = "
                f"{num(seen[cell] / games)}), the least among {count(covered.sum(), 'covered cell')}")
        return said + (f", tied with {ties - 1} more, chosen at random" if ties > 1 else "")

    def knowledge(self, game):
        """The share of past games (on this board shape) with a mine under each covered cell."""
        seen, games = self.memory(game.level.rows, game.level.cols)
        g = int(games[0])
        covered = game._gs.shown == COVERED
        values = np.where(covered & (g > 0), seen / max(g, 1), np.nan)
        label = (f"share of the {count(g, 'past game')} with a mine under each cell" if g
                 else "no past game on this board shape")
        return cell_values(values, np.where(covered, g, 0), (game.level.rows, game.level.cols), label, 0.0, 1.0,
                           "mine")

    def game_over(self, game):
        seen, games = self.memory(game.level.rows, game.level.cols)
        marginal_learn(game._gs.mine, seen, games)

    def play_batch(self, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        seen, games = self.memory(rows, cols)
        play_games(gs, n_games, deal_rng, self.rng, MarginalBatch(seen, games, np.zeros(0, np.int64)), out)
