"""Tabular Q-learning and SARSA (Bilir, Kong & Wittenbrink 2023, §4.1-4.2).

The state is the whole visible board (`StateTable`); a state enters the table with all
values 0 when the agent first acts from it (so a new state's greedy action is its lowest
covered cell, as an argmax over zeros is). One decision (`tabular_step`):

    a  = the action chosen at s (epsilon-greedy, see common.py)
    r  = the reward of revealing a; s' the view after it
    a' = the action chosen at s' (it is the action taken next)
    Q-learning:                 Q(s,a) += alpha (r + gamma max_b Q(s', b) - Q(s,a))
    SARSA (the paper's eq. 3):  Q(s,a) += alpha (r + gamma Q(s', a') - Q(s,a))
    SARSA, bootstrap="current-state" (what the authors' program computes):
                                Q(s,a) += alpha (r + gamma Q(s, a') - Q(s,a))
    a terminal s' bootstraps nothing: the target is r.

The max runs over the cells covered in s'. alpha 0.1, gamma 0.9 (§4.1). `store_terminal=True`
also stores each game's terminal view (`table.pack_terminal`: a loss shows only the mine
clicked, as the authors' program's board does) as a state that is never acted from: no
value or move changes, and the table's size counts every state met, terminal ones
included (a reading of Fig A2's "unique states"). Frozen
(evaluation, `frozen()`): epsilon 0, nothing is stored or learned, and a state never
stored plays a uniformly random covered cell (§5).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cells import ONGOING, REVEAL
from ...engine import ST_DEALT, ST_STATUS, deal_first_click, kernel, open_cell, random_covered_cell
from ..base import register
from ..batch import extra_index, hook, hooks, play_games
from ..spec import ALWAYS, choice, flag, number
from .agent import P_ACTION, P_ROW, RL_EXTRA, RLAgent, RLParams
from .common import Exploration, argmax_covered, epsilon_at, epsilon_greedy, game_reward, max_covered
from .table import (SM_ROWS, StateArrays, StateTable, find_row, insert_row, key_words, pack_terminal, pack_view,
                    table_room)
from .why import choose_like, covered_values, describe

UPDATE_Q, UPDATE_SARSA, UPDATE_SARSA_CURRENT = 0, 1, 2
BOOTSTRAPS = ("next-state", "current-state")


class TabularConfig(NamedTuple):
    alpha: float
    gamma: float
    update: int  # UPDATE_*
    learning: int  # 1: train; 0: frozen greedy
    store_terminal: int  # 1: store each game's terminal view too (never acted from)


class TabularWork(NamedTuple):
    pending: np.ndarray  # int64[2]: P_ROW, P_ACTION of the game in progress (-1: none)
    key: np.ndarray  # uint64[words]: scratch for the packed view


def new_tabular_work(cells: int) -> TabularWork:
    return TabularWork(np.full(2, -1, np.int64), np.zeros(key_words(cells), np.uint64))


# ------------------------------------------------------------------ kernels
@kernel
def tabular_choose(tb, cfg, view, key, epsilon, rng):
    """(row of the state `view`, the action chosen there). Training stores a new state;
    frozen play does not, and plays a random covered cell in a state never stored."""
    pack_view(view, key)
    if cfg.learning:
        row = insert_row(tb, key)
    else:
        row = find_row(tb, key)
        if row < 0:
            return row, random_covered_cell(view, rng)
    return row, epsilon_greedy(tb.q[row], view, epsilon, rng)


@kernel
def tabular_start(tb, cfg, ex, work, games, view, rng):
    """The first decision of a game: choose at `view`, keep it pending. Returns the cell."""
    row, a = tabular_choose(tb, cfg, view, work.key, epsilon_at(ex, games[0]), rng)
    work.pending[P_ROW] = row
    work.pending[P_ACTION] = a
    return a


@kernel
def tabular_learn(tb, cfg, ex, work, games, view, r, over, rng):
    """The pending action earned `r` and led to `view` (`over`: the game ended): choose
    the next action there, update Q(s, a) by the family's rule, keep (s', a') pending.
    Returns the next action, -1 after the game's end."""
    pend = work.pending
    row, a = pend[P_ROW], pend[P_ACTION]
    row2, a2 = np.int64(-1), np.int64(-1)
    if not over:
        row2, a2 = tabular_choose(tb, cfg, view, work.key, epsilon_at(ex, games[0]), rng)
    if cfg.learning:
        target = r
        if not over:
            if cfg.update == UPDATE_Q:
                target += cfg.gamma * max_covered(tb.q[row2], view)
            elif cfg.update == UPDATE_SARSA:
                target += cfg.gamma * tb.q[row2, a2]
            else:
                target += cfg.gamma * tb.q[row, a2]
        tb.q[row, a] += cfg.alpha * (target - tb.q[row, a])
        if over:
            games[0] += 1
            if cfg.store_terminal:
                pack_terminal(view, a, work.key)
                insert_row(tb, work.key)
    pend[P_ROW] = row2
    pend[P_ACTION] = a2
    return a2


@kernel
def tabular_step(gs, tb, cfg, ex, work, games, deal_rng, rng):
    """One decision on game gs (see the module docstring). Returns the cell revealed."""
    st = gs.counters
    if work.pending[P_ACTION] < 0:
        tabular_start(tb, cfg, ex, work, games, gs.shown, rng)
    a = work.pending[P_ACTION]
    if st[ST_DEALT] == 0:
        deal_first_click(gs, a, deal_rng)
    got = open_cell(gs, a)
    tabular_learn(tb, cfg, ex, work, games, gs.shown, game_reward(st[ST_STATUS], got), st[ST_STATUS] != ONGOING, rng)
    return a


_X_STATES = extra_index(RL_EXTRA, "states")


class TabularBatch(NamedTuple):
    """Q-learning's and SARSA's batch state (minelab.agents.batch): the table, settings,
    schedule, work arrays and games played. A batch stops before a game when the table
    must grow (`table_room`)."""

    tb: StateArrays
    cfg: TabularConfig
    ex: Exploration
    work: TabularWork
    games: np.ndarray  # int64[1]
    extra: np.ndarray  # int64[len(RL_EXTRA)]


@hook
def _tabular_room(state, gs):
    return not state.cfg.learning or table_room(state.tb, gs.shown.shape[0])


@hook
def _tabular_begin(state, gs):
    state.work.pending[:] = -1


@hook
def _tabular_move(state, gs, rng, deal_rng):
    """tabular_step's decision: the pending action (chosen by the last update), or the
    game's first."""
    work = state.work
    if work.pending[P_ACTION] < 0:
        tabular_start(state.tb, state.cfg, state.ex, work, state.games, gs.shown, rng)
    return np.int64(REVEAL), work.pending[P_ACTION]


@hook
def _tabular_after(state, gs, rng, cell, got):
    st = gs.counters
    tabular_learn(state.tb, state.cfg, state.ex, state.work, state.games, gs.shown, game_reward(st[ST_STATUS], got),
                  st[ST_STATUS] != ONGOING, rng)


@hook
def _tabular_end(state, gs):
    state.extra[_X_STATES] = state.tb.meta[SM_ROWS]


hooks(TabularBatch, _tabular_move, room_fn=_tabular_room, begin_fn=_tabular_begin, after_fn=_tabular_after,
      end_fn=_tabular_end)


@kernel
def tabular_peek(tb, cfg, ex, view, key, games, pending_action, rng):
    """The cell the next decision reveals, storing nothing (rng: a copy)."""
    if pending_action >= 0:
        return pending_action
    pack_view(view, key)
    row = find_row(tb, key)
    if row < 0:
        if not cfg.learning:
            return random_covered_cell(view, rng)
        # a new state is stored with zeros: epsilon-greedy over zeros, whose argmax is the first covered cell
        epsilon = epsilon_at(ex, games[0])
        if epsilon >= 1.0 or (epsilon > 0.0 and rng.random() < epsilon):
            return random_covered_cell(view, rng)
        return argmax_covered(view, view)
    return epsilon_greedy(tb.q[row], view, epsilon_at(ex, games[0]), rng)


# ------------------------------------------------------------------ agents
@dataclass(frozen=True)
class TabularParams(RLParams):
    """Q-learning's parameters: the schedule's, the step size and discount (§4.1), and
    whether each game's end view is stored too (Fig A2's reading)."""

    alpha: float = number(0.1, 0.0, 1.0, lo_open=True, keep=ALWAYS, doc="the step size")
    gamma: float = number(0.9, 0.0, 1.0, keep=ALWAYS, doc="the discount")
    store_terminal: bool = flag(False, doc="also store each game's end view as a state (no move changes)")


@dataclass(frozen=True)
class SarsaParams(TabularParams):
    """SARSA's parameters: Q-learning's, and which state's value the update bootstraps from."""

    bootstrap: str = choice("next-state", BOOTSTRAPS, doc="next-state: Q(s', a') (the paper); current-state: "
                                                          "Q(s, a') (the authors' program)")


class TabularAgent(RLAgent):
    """Tabular Q-learning over whole-board states (see minelab.agents.rl.tabular)."""

    Params = TabularParams
    update = UPDATE_Q
    _explains = True

    def __init__(self, seed=None, **params):
        super().__init__(seed, **params)
        self.table = None
        self._env_work = None  # the episode in progress of begin_episode / observe

    @property
    def config(self) -> TabularConfig:
        return TabularConfig(self.alpha, self.gamma, self.update, int(self.learning), int(self.store_terminal))

    @property
    def states(self) -> int:
        """States stored so far."""
        return 0 if self.table is None else len(self.table)

    def _allocate(self, cells):
        self.table = StateTable(cells)

    def _new_work(self, cells):
        return new_tabular_work(cells)

    def _make_room(self):
        if self.learning:
            self.table.reserve(self.table.cells)

    def _step(self, gs, work, deal_rng):
        return tabular_step(gs, self.table.arrays(), self.config, self.explore, work, self.games, deal_rng, self.rng)

    def _batch(self, gs, work, n_games, deal_rng, out):
        state = TabularBatch(self.table.arrays(), self.config, self.explore, work, self.games,
                             np.zeros(len(RL_EXTRA), np.int64))
        return play_games(gs, n_games, deal_rng, self.rng, state, out)

    # --- learning from an environment (minelab.envs or any loop that computes rewards) ---
    def begin_episode(self, obs) -> int:
        """The first action (a cell index) for an episode whose first observation is
        `obs` (the board as the player sees it, (rows, cols) or flat)."""
        view = self._env_view(obs)
        self._env_work = self._new_work(view.shape[0])
        return int(tabular_start(self.table.arrays(), self.config, self.explore, self._env_work, self.games, view,
                                 self.rng))

    def observe(self, reward: float, obs, terminated: bool) -> int:
        """Learn from the last action's `reward` and the observation it led to; returns
        the next action (-1 once terminated). Same choices and updates as batch play."""
        if getattr(self, "_env_work", None) is None or self._env_work.pending[P_ACTION] < 0:
            raise ValueError("observe() needs an episode in progress: call begin_episode(obs) first")
        view = self._env_view(obs)
        return int(tabular_learn(self.table.arrays(), self.config, self.explore, self._env_work, self.games, view,
                                 float(reward), bool(terminated), self.rng))

    def _env_view(self, obs) -> np.ndarray:
        view = np.ascontiguousarray(obs, dtype=np.int8)
        if view.ndim != 2:
            raise ValueError(f"obs must be the board, a 2-d array (rows, cols); got shape {view.shape}")
        self._bind(*view.shape)
        self._make_room()
        return view.ravel()

    def values(self, view) -> np.ndarray | None:
        """Q(s, .) of the state `view` (rows x cols) as float32 (rows, cols), or None when
        the state was never stored."""
        v = np.ascontiguousarray(view, dtype=np.int8)
        if self.table is None:
            return None
        key = np.zeros(self.table.words, np.uint64)
        pack_view(v.ravel(), key)
        row = find_row(self.table.arrays(), key)
        return None if row < 0 else self.table.q[row].reshape(v.shape).copy()

    # --- why (explain) and knowledge ---------------------------------------------------
    def _row_of(self, view) -> int:
        """The table row of the state `view` (flat), -1 if it was never stored."""
        key = np.zeros(self.table.words, np.uint64)
        pack_view(view, key)
        return int(find_row(self.table.arrays(), key))

    def _why_before(self, game, work, rng):
        """(rows stored, whether the step stores the first state, how the cell it reveals was
        chosen: when the game has none pending, the step chooses it first, replayed here)."""
        rows = len(self.table)
        if work.pending[P_ACTION] >= 0:
            return rows, False, self._chosen_by_game.get(game)
        view = game._gs.shown
        row = self._row_of(view)
        new = row < 0 and self.learning  # tabular_choose stores it with values 0
        values = (np.zeros(view.shape[0], np.float32) if new else None) if row < 0 else self.table.q[row]
        return rows, new, choose_like(values, view, self.explore, int(self.games[0]), rng, "new" if new else "")

    def _why_after(self, game, work, rng, before, cell) -> str:
        """Explain the cell revealed; note how the step chose the next one (the step's own
        draws, replayed on rng after those of the first choice)."""
        rows, stored_first, choice = before
        said = describe(choice, cell, game.level.cols, self.explore.random_games)
        if game.over:
            self._chosen_by_game.pop(game, None)
            return said
        view = game._gs.shown
        row = self._row_of(view)
        new = self.learning and len(self.table) - rows - stored_first == 1
        values = None if row < 0 else self.table.q[row]  # s' != s: Q(s, a)'s update left this row as chosen
        self._chosen_by_game[game] = choose_like(values, view, self.explore, int(self.games[0]), rng,
                                                 "new" if new else "")
        return said

    def _why_peek(self, game, work, cell) -> str:
        choice = self._why_before(game, work, self._stream_copy())[2]
        return describe(choice, cell, game.level.cols, self.explore.random_games)

    def knowledge(self, game):
        """Q(s, a) of the state the game shows, on its covered cells (NaN when never stored)."""
        shape = (game.level.rows, game.level.cols)
        view = game._gs.shown
        if self.table is None or self._shape != shape:
            return covered_values(None, view, shape, f"{self.name}: no table for {shape[0]}x{shape[1]} boards")
        row = self._row_of(view)
        if row < 0:
            return covered_values(None, view, shape, f"{self.name}: Q(s, a): state never seen")
        return covered_values(self.table.q[row].astype(np.float64), view, shape,
                              f"{self.name}: Q(s, a) of this state, one value per covered cell")

    def _peek(self, game, work):
        rng = self._stream_copy()
        return tabular_peek(self.table.arrays(), self.config, self.explore, game._gs.shown, work.key, self.games,
                            work.pending[P_ACTION], rng)


@register
class QLearningAgent(TabularAgent):
    """Tabular Q-learning (Bilir et al. 2023, §4.1): state = the whole visible board,
    alpha 0.1, gamma 0.9, the paper's rewards and exploration (minelab.agents.rl)."""

    name = "q-learning"
    update = UPDATE_Q


@register
class SarsaAgent(TabularAgent):
    """Tabular SARSA (Bilir et al. 2023, §4.2). bootstrap="next-state" is the paper's
    update (Q(s', a')); "current-state" is what the authors' program computes (Q(s, a'))."""

    name = "sarsa"

    Params = SarsaParams

    def __init__(self, seed=None, **params):
        super().__init__(seed, **params)
        self.update = UPDATE_SARSA if self.bootstrap == "next-state" else UPDATE_SARSA_CURRENT


__all__ = ["QLearningAgent", "SarsaAgent", "TabularAgent", "tabular_step", "argmax_covered"]
