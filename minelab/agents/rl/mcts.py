"""Monte Carlo tree search with statistics kept across games (Bilir, Kong & Wittenbrink
2023, §4.4), after Kochenderfer, Wheeler & Wray, *Algorithms for Decision Making*, §9.6.

Before each real move the agent runs `simulations` simulations from the current view
(the paper: 1, and 10 in its Fig A1). A simulation:

1. draws a hidden layout **uniformly among those consistent with the view**
   (`probability.sample_layout`: exact, no rejection). Before the first click of a
   `safe` / `opening` game nothing is dealt: the simulation deals at its first click
   under the level's rule, as the engine would;
2. from the view's state, picks the action of largest UCB1
   Q(s,a) + c sqrt(log N(s) / N(s,a)), N(s) = sum_a N(s,a), an untried action first
   (lowest index), reveals it on the drawn layout, and goes on until the game ends or
   it reaches a state never stored, which it stores with Q = N = 0 and values 0 (no
   rollout policy, no prior: §4.4); depth is unlimited (the game's end, §4.4);
3. backs the discounted return q = r + gamma q' up the path:
   N(s,a) += 1, Q(s,a) += (q - Q(s,a)) / N(s,a).

The real move is then the argmax of Q(s, .) over the covered cells, ties to the lowest
index. c = 100, gamma = 0.9 (§4.4), rewards +1 / +10 / -10. Statistics (a `CoveredTable`:
Q and N for the covered cells of each state) are kept across games, as the paper's runs do.

Two readings of §4.4 are options, off by default (the defaults are the reading above):

- `act="ucb1"`: the real move of a training game is also the UCB1 choice of step 2 (the
  text: "we selected actions based on maximized UCB1 heuristics", §4.5.2), not the
  argmax of Q. Frozen play stays the argmax (§5).
- `update="printed"`: step 3 sets Q(s,a) = (q - Q(s,a)) / N(s,a), Eq. (7) as printed,
  instead of the incremental mean the equation's text describes.

`leaky=True` is a **labelled cheat**: simulations replay the true hidden layout, as the
authors' program did (its simulations copied the real board). It exists to measure
what that leak was worth; such an agent has `cheat = True` and its records say so.

Frozen (evaluation): no simulations, the argmax of the stored Q; a state never stored
plays a uniformly random covered cell (§5).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cells import COVERED, ONGOING, REVEAL
from ...engine import (SP_MINES, ST_DEALT, ST_STATUS, GameState, deal_first_click, kernel,
                       neighbour_counts, open_cell, random_covered_cell)
from ...probability import DEFAULT_MAX_WORK, OK, Workspace, new_workspace, sample_layout, solve_kernel
from ..base import register
from ..batch import extra_index, hook, hooks, play_games
from .agent import RL_EXTRA, RLAgent
from ..spec import ALWAYS, Spec, choice, flag, integer, number
from .common import argmax_covered, game_reward
from .table import (SM_ROWS, CoveredArrays, CoveredTable, covered_room, find_row, insert_covered, key_words, pack_view,
                    row_values, value_index)
from .why import covered_values
from ..why import at, count, num


class MctsConfig(NamedTuple):
    simulations: int
    c: float
    gamma: float
    leaky: int
    learning: int
    act_ucb1: int  # 1: a training game's real move is the UCB1 choice (act="ucb1")
    printed_update: int  # 1: Q(s,a) = (q - Q(s,a)) / N(s,a), Eq. (7) as printed (update="printed")


class MctsWork(NamedTuple):
    sim_counters: np.ndarray  # the simulated game's arrays (see engine.GameState)
    sim_mine: np.ndarray
    sim_counts: np.ndarray
    sim_shown: np.ndarray
    sim_stack: np.ndarray
    path_value: np.ndarray  # int64[n]: where (s, a) of each step of a simulation's path is stored
    path_reward: np.ndarray  # float64[n]
    row_q: np.ndarray  # float32[n]: a state's Q(s, .) spread over the cells
    row_n: np.ndarray  # int32[n]: its N(s, .)
    key: np.ndarray  # uint64[words]
    known: np.ndarray  # uint8[n]: all 0 (the solver's "known mines")


def new_mcts_work(cells: int) -> MctsWork:
    i64 = np.int64
    return MctsWork(np.zeros(8, i64), np.zeros(cells, np.uint8), np.zeros(cells, np.int8),
                    np.zeros(cells, np.int8), np.zeros(cells, np.int32), np.zeros(cells, i64),
                    np.zeros(cells, np.float64), np.zeros(cells, np.float32), np.zeros(cells, np.int32),
                    np.zeros(key_words(cells), np.uint64), np.zeros(cells, np.uint8))


# ------------------------------------------------------------------ kernels
@kernel
def ucb1_action(q, visits, view, c):
    """The covered cell of largest Q + c sqrt(log N(s) / N(s,a)); untried ones first
    (lowest index)."""
    total = 0
    for i in range(view.shape[0]):
        total += visits[i]
    best = -1
    top = -np.inf
    log_total = math.log(total) if total > 0 else 0.0
    for i in range(view.shape[0]):
        if view[i] != COVERED:
            continue
        if visits[i] == 0:
            return i
        score = q[i] + c * math.sqrt(log_total / visits[i])
        if best < 0 or score > top:
            best = i
            top = score
    return best


@kernel
def simulate(gs, tb, cfg, work, ws, rng):
    """One simulation from game gs's view (see the module docstring, steps 1-3)."""
    sim = GameState(gs.spec, work.sim_counters, work.sim_mine, work.sim_counts, work.sim_shown, work.sim_stack,
                    gs.nbr, gs.nbr_count, gs.deal_work)
    for i in range(gs.counters.shape[0]):
        sim.counters[i] = gs.counters[i]
    for i in range(gs.shown.shape[0]):
        sim.shown[i] = gs.shown[i]
    if gs.counters[ST_DEALT]:
        if cfg.leaky:
            for i in range(gs.mine.shape[0]):
                sim.mine[i] = gs.mine[i]  # the labelled cheat: the true layout
        else:
            sample_layout(ws, gs.shown, work.known, rng, sim.mine)
        neighbour_counts(sim.mine, sim.nbr, sim.nbr_count, sim.counts)
    depth = 0
    while True:
        pack_view(sim.shown, work.key)
        row = find_row(tb, work.key)
        if row < 0:
            insert_covered(tb, work.key, sim.shown)
            break
        row_values(tb, row, sim.shown, work.row_q, work.row_n)
        a = ucb1_action(work.row_q, work.row_n, sim.shown, cfg.c)
        work.path_value[depth] = value_index(tb, row, sim.shown, a)
        if sim.counters[ST_DEALT] == 0:
            deal_first_click(sim, a, rng)
        got = open_cell(sim, a)
        work.path_reward[depth] = game_reward(sim.counters[ST_STATUS], got)
        depth += 1
        if sim.counters[ST_STATUS] != ONGOING:
            break
    ret = 0.0
    for d in range(depth - 1, -1, -1):
        ret = work.path_reward[d] + cfg.gamma * ret
        k = work.path_value[d]
        tb.visits[k] += 1
        if cfg.printed_update:
            tb.q[k] = (ret - tb.q[k]) / tb.visits[k]
        else:
            tb.q[k] += (ret - tb.q[k]) / tb.visits[k]


@kernel
def mcts_decide(gs, tb, cfg, work, ws, rng):
    """The cell of the next real move: simulations first (training), then the argmax of
    Q(s, .) (the UCB1 choice when training with act="ucb1"); frozen, a state never stored
    gets a random covered cell. Returns -1 when the view is inconsistent with the level
    (cannot happen in a real game)."""
    view = gs.shown
    if cfg.learning:
        if gs.counters[ST_DEALT] and not cfg.leaky:
            max_work = np.int64(DEFAULT_MAX_WORK)  # not a literal: a literal would compile solve_kernel once more
            if solve_kernel(ws, view, work.known, gs.spec[SP_MINES], gs.nbr, gs.nbr_count, max_work) != OK:
                return -1
        for _ in range(cfg.simulations):
            simulate(gs, tb, cfg, work, ws, rng)
    pack_view(view, work.key)
    row = find_row(tb, work.key)
    if row < 0:
        return random_covered_cell(view, rng)
    row_values(tb, row, view, work.row_q, work.row_n)
    if cfg.learning and cfg.act_ucb1:
        return ucb1_action(work.row_q, work.row_n, view, cfg.c)
    return argmax_covered(work.row_q, view)


@kernel
def mcts_step(gs, tb, cfg, work, ws, deal_rng, rng):
    """One real decision: decide, then reveal. Returns the cell revealed."""
    a = mcts_decide(gs, tb, cfg, work, ws, rng)
    if gs.counters[ST_DEALT] == 0:
        deal_first_click(gs, a, deal_rng)
    open_cell(gs, a)
    return a


_X_STATES = extra_index(RL_EXTRA, "states")


class MctsBatch(NamedTuple):
    """MCTS's batch state (minelab.agents.batch): the table, settings, work arrays, the
    probability workspace and the games played. A batch stops before a game when the table
    must grow (`covered_room`: room for a game's simulations)."""

    tb: CoveredArrays
    cfg: MctsConfig
    work: MctsWork
    ws: Workspace
    games: np.ndarray  # int64[1]
    extra: np.ndarray  # int64[len(RL_EXTRA)]


@hook
def _mcts_room(state, gs):
    cfg = state.cfg
    cells = gs.shown.shape[0]
    return not cfg.learning or covered_room(state.tb, cells * cfg.simulations, cells * cells * cfg.simulations)


@hook
def _mcts_move(state, gs, rng, deal_rng):
    return np.int64(REVEAL), mcts_decide(gs, state.tb, state.cfg, state.work, state.ws, rng)


@hook
def _mcts_end(state, gs):
    if state.cfg.learning:
        state.games[0] += 1
    state.extra[_X_STATES] = state.tb.meta[SM_ROWS]


hooks(MctsBatch, _mcts_move, room_fn=_mcts_room, end_fn=_mcts_end)


# ------------------------------------------------------------------ the agent
@dataclass(frozen=True)
class MctsParams(Spec):
    """MCTS's parameters (§4.4; the readings of the module docstring as options)."""

    simulations: int = integer(1, 1, keep=ALWAYS, doc="simulations before each real move (the paper: 1; Fig A1: 10)")
    c: float = number(100.0, 0.0, keep=ALWAYS, doc="UCB1's exploration constant")
    gamma: float = number(0.9, 0.0, 1.0, keep=ALWAYS, doc="the discount")
    leaky: bool = flag(False, doc="a labelled cheat: simulations replay the true layout (the authors' program)")
    learning: bool = flag(True, doc="False: no simulations, the argmax of the stored Q")
    act: str = choice("argmax", ("argmax", "ucb1"), attr="act_rule",
                      doc="a training game's real move: the argmax of Q, or the UCB1 choice")
    update: str = choice("mean", ("mean", "printed"), doc="Q's update: the incremental mean, or Eq. (7) as printed")


@register
class MctsAgent(RLAgent):
    """MCTS with UCB1 (c = 100, gamma 0.9), statistics kept across games, simulations
    from layouts sampled exactly among those consistent with the view (Bilir et al.
    2023, §4.4; minelab.agents.rl.mcts). leaky=True: the labelled cheat of the authors'
    program (simulations replay the true layout)."""

    name = "mcts"
    _explains = True

    Params = MctsParams

    def __init__(self, seed=None, **params):
        super().__init__(seed, **params)
        self.cheat = self.leaky  # reads the hidden layout during play: a labelled cheat
        self.table = None
        self._ws = {}

    @property
    def config(self) -> MctsConfig:
        return MctsConfig(self.simulations, self.c, self.gamma, int(self.leaky), int(self.learning),
                          int(self.act_rule == "ucb1"), int(self.update == "printed"))

    @property
    def states(self) -> int:
        return 0 if self.table is None else len(self.table)

    def _allocate(self, cells):
        self.table = CoveredTable(cells)

    def _new_work(self, cells):
        return new_mcts_work(cells)

    def _workspace(self, gs):
        key = (gs.shown.shape[0], int(gs.spec[SP_MINES]))
        if key not in self._ws:
            self._ws[key] = new_workspace(*key)
        return self._ws[key]

    def _make_room(self):
        if self.learning:
            self.table.reserve(self.table.cells * self.simulations, self.table.cells ** 2 * self.simulations)

    def _step(self, gs, work, deal_rng):
        return mcts_step(gs, self.table.arrays(), self.config, work, self._workspace(gs), deal_rng, self.rng)

    def _batch(self, gs, work, n_games, deal_rng, out):
        state = MctsBatch(self.table.arrays(), self.config, work, self._workspace(gs), self.games,
                          np.zeros(len(RL_EXTRA), np.int64))
        return play_games(gs, n_games, deal_rng, self.rng, state, out)

    def act(self, game) -> list:
        moves = super().act(game)
        if game.over and self.learning:
            self.games[0] += 1
        return moves

    def _peek(self, game, work):
        twin = self.copy()  # simulations write the table: the dry run plays on a copy (stream included)
        gs = game._gs
        cell = mcts_decide(gs, twin.table.arrays(), twin.config, work, twin._workspace(gs), twin.rng)
        self._peek_table = twin.table  # what the dry run's simulations left, for _why_peek
        return cell

    # --- why (explain) and knowledge ---------------------------------------------------
    def _row_of(self, table, view) -> int:
        key = np.zeros(table.words, np.uint64)
        pack_view(view, key)
        return int(find_row(table.arrays(), key))

    def _why_before(self, game, work, rng):
        return game._gs.shown.copy()

    def _why_after(self, game, work, rng, before, cell) -> str:
        return self._reason(self.table, before, cell, game.level.cols)

    def _why_peek(self, game, work, cell) -> str:
        table, self._peek_table = self._peek_table, None
        return self._reason(table, game._gs.shown, cell, game.level.cols)

    def _reason(self, table, view, cell, cols) -> str:
        """The decision at `view` from the statistics the simulations left in `table`."""
        covered = view == COVERED
        said = f"reveal {at(cell, cols)}: "
        row = self._row_of(table, view)
        if row < 0:
            return said + f"a state never stored (frozen play): at random among {count(covered.sum(), 'cell')}"
        q, visits = table.row(row, view)
        sims = (f"after {count(self.simulations, 'simulation')} from this view" if self.learning
                else "no simulations (frozen)")
        leak = " (leaky: the simulations replayed the true layout, a labelled cheat)" if self.leaky else ""
        return (said + f"the argmax of Q(s, .) over {count(covered.sum(), 'covered cell')} (ties to the lowest "
                f"index), {sims}: Q(s, a) = "
                f"{num(q[cell])}, N(s, a) = {visits[cell]} of N(s) = {int(visits[covered].sum())}{leak}")

    def knowledge(self, game):
        """Q(s, a) and N(s, a) of the state the game shows, on its covered cells."""
        shape = (game.level.rows, game.level.cols)
        view = game._gs.shown
        if self.table is None or self._shape != shape:
            return covered_values(None, view, shape, f"{self.name}: no statistics for {shape[0]}x{shape[1]} boards")
        row = self._row_of(self.table, view)
        if row < 0:
            return covered_values(None, view, shape, f"{self.name}: Q(s, a): state never stored")
        q, visits = self.table.row(row, view)
        return covered_values(q.astype(np.float64), view, shape,
                              f"{self.name}: Q(s, a) of this state (mean discounted return), N(s, a) its visits",
                              counts=visits)

    def frozen(self):
        twin = super().frozen()
        twin._ws = {}
        return twin
