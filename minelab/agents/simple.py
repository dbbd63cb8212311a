"""Baselines: `random` (uniform over covered cells) and `oracle` (labelled cheat).

The oracle reveals safe cells only (it reads the hidden layout); it is the ceiling of
every agent, the engine's throughput benchmark, and a test fixture.
"""
from __future__ import annotations

from ..cells import REVEAL
from ..engine import (ST_DEALT, ST_STATUS, begin_game, deal_first_click, kernel, open_cell, random_covered_cell,
                      record_game)
from .base import Agent, cell_to_move, register


# ------------------------------------------------------------------------ random
@kernel
def random_decide(view, rng):
    return random_covered_cell(view, rng)


@kernel
def random_batch(gs, n_games, deal_rng, agent_rng, out):
    view = gs.shown
    st = gs.counters
    for g in range(n_games):
        begin_game(gs, deal_rng)
        while st[ST_STATUS] == 0:
            cell = random_decide(view, agent_rng)
            if st[ST_DEALT] == 0:
                deal_first_click(gs, cell, deal_rng)
            open_cell(gs, cell)
        record_game(gs, out, g)


@register
class RandomAgent(Agent):
    """Reveals a uniformly random covered cell; never flags."""

    name = "random"

    def _choose(self, game):
        cell = random_decide(game._gs.shown, self.rng)
        return cell_to_move(REVEAL, cell, game.level)

    def play_batch(self, gs, n_games, deal_rng, out):
        random_batch(gs, n_games, deal_rng, self.rng, out)


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
def oracle_batch(gs, n_games, deal_rng, out):
    st = gs.counters
    mine = gs.mine
    view = gs.shown
    for g in range(n_games):
        begin_game(gs, deal_rng)
        cell = 0
        while st[ST_STATUS] == 0:
            cell = oracle_decide(view, mine, st[ST_DEALT], cell)
            if st[ST_DEALT] == 0:
                deal_first_click(gs, cell, deal_rng)
            open_cell(gs, cell)
        record_game(gs, out, g)


@register
class OracleAgent(Agent):
    """CHEAT: reads the hidden mines and reveals safe cells in scan order. A ceiling, not a player."""

    name = "oracle"
    cheat = True

    def _choose(self, game):
        gs = game._gs
        cell = oracle_decide(gs.shown, gs.mine, gs.counters[ST_DEALT], 0)
        return cell_to_move(REVEAL, cell, game.level)

    def play_batch(self, gs, n_games, deal_rng, out):
        oracle_batch(gs, n_games, deal_rng, out)
