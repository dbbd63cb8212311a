"""Linear action values (Bilir, Kong & Wittenbrink 2023, §4.3): Q(s, .) = W f(s) + B.

f(s) is the one-hot of every cell's state: a board of n cells is n x L features, L = 11
values a cell can take in the paper's encoding (covered, a mine, 0..8; a mine never
shows in a state the agent acts from, so its weights stay 0). W is n x (n L), B has n
entries: n^2 L + n parameters (6,900 on 5x5). The kernels hold W transposed, feature by
action (`LinearQAgent.WT`), so that Q(s, .) is n contiguous rows added in cell order:
each Q(s, a) is the same sum, term for term, as a row of W would give, and the loop
over actions vectorises. Saved files hold W itself. One decision (`linear_step`):

    a = epsilon-greedy over Q(s, .) on the covered cells; reveal it: reward r, view s'
    delta = r + gamma max_b Q(s', b) - Q(s, a)      (r alone when s' ends the game)
    W[a, f(s)] += alpha delta;  B[a] += alpha delta  (the gradient of Q(s, a) is f(s))

alpha 0.01 (the authors' program's; the text names one α, 0.1, for Q-learning in §4.1,
run beside as a registered reading), gamma 0.9 (§4.1). Exploration as for the tabular agents by default (§4.5
says the schedule is the same for all three); the authors' program used a constant
epsilon = 0.1 for this agent: `make_agent("linear-q", random_games=0, epsilon=0.1)`.
Frozen (evaluation): greedy, learning nothing (every state has values here, so no
random fallback).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cells import COVERED, MINE, ONGOING, REVEAL
from ...engine import ST_DEALT, ST_STATUS, deal_first_click, kernel, open_cell
from ..base import register
from ..batch import hook, hooks, play_games
from ..spec import ALWAYS, number
from .agent import P_ACTION, RLAgent, RLParams
from .common import Exploration, epsilon_at, epsilon_greedy, game_reward, max_covered
from .why import choose_like, covered_values, describe

CELL_VALUES = 11  # L: covered, mine, 0..8


class LinearConfig(NamedTuple):
    alpha: float  # the step size
    gamma: float  # the discount
    learning: int  # 1 while training, 0 frozen


class LinearWork(NamedTuple):
    pending: np.ndarray  # int64[2]: P_ROW (unused), P_ACTION of the game in progress
    feat: np.ndarray  # int64[n]: the active feature of each cell in s
    feat_next: np.ndarray  # int64[n]: in s'
    q: np.ndarray  # float64[n]: Q(s, .), then Q(s', .)
    q_sa: np.ndarray  # float64[1]: Q(s, a) of the action being played
    acc: np.ndarray  # float64[n]: the sums behind q, every action's


def new_linear_work(cells: int) -> LinearWork:
    return LinearWork(np.full(2, -1, np.int64), np.zeros(cells, np.int64), np.zeros(cells, np.int64),
                      np.zeros(cells, np.float64), np.zeros(1, np.float64), np.zeros(cells, np.float64))


# ------------------------------------------------------------------ kernels
@kernel
def action_values(WT, B, view, feat, acc, q):
    """feat[c] = the index of cell c's active feature (c L + code: covered 0, mine 1,
    number v: v + 2); q[a] = B[a] + sum_c W[a, feat[c]] on the covered cells a, summed
    in cell order into acc over every action (WT = W transposed: row feat[c] of WT is
    column feat[c] of W)."""
    n = view.shape[0]
    for c in range(n):
        v = view[c]
        feat[c] = c * CELL_VALUES + (v + 2 if v >= 0 else (1 if v == MINE else 0))
    for a in range(n):
        acc[a] = B[a]
    for c in range(n):
        row = WT[feat[c]]
        for a in range(n):
            acc[a] += row[a]
    for a in range(n):
        if view[a] == COVERED:
            q[a] = acc[a]


@kernel
def linear_act(WT, B, ex, work, games, view, rng):
    """A decision's choice: Q(s, .) into work.q, then the pending action (the last update
    chose it) or an epsilon-greedy one; its Q(s, a) kept in work.q_sa. Returns the cell."""
    action_values(WT, B, view, work.feat, work.acc, work.q)
    a = work.pending[P_ACTION]
    if a < 0:
        a = epsilon_greedy(work.q, view, epsilon_at(ex, games[0]), rng)
    work.q_sa[0] = work.q[a]
    return a


@kernel
def linear_learn(WT, B, cfg, ex, work, games, gs, a, got, rng):
    """A decision's update, once cell `a` is revealed (`got`: open_cell's): choose a' in
    s' (pending for the next decision; -1 when the game is over) and move W[a, f(s)]
    (WT[f(s), a]) and B[a] toward the target (see the module docstring)."""
    view = gs.shown
    status = gs.counters[ST_STATUS]
    epsilon = epsilon_at(ex, games[0])
    target = game_reward(status, got)
    a2 = np.int64(-1)
    if status == ONGOING:
        # only row a of W changes below, and a is revealed in s': Q(s', .) is final now
        action_values(WT, B, view, work.feat_next, work.acc, work.q)
        a2 = epsilon_greedy(work.q, view, epsilon, rng)
        target += cfg.gamma * max_covered(work.q, view)
    if cfg.learning:
        step = cfg.alpha * (target - work.q_sa[0])
        for c in range(work.feat.shape[0]):
            WT[work.feat[c], a] += step
        B[a] += step
        if a2 < 0:
            games[0] += 1
    work.pending[P_ACTION] = a2


@kernel
def linear_step(gs, WT, B, cfg, ex, work, games, deal_rng, rng):
    """One decision on game gs (see the module docstring). Returns the cell revealed."""
    a = linear_act(WT, B, ex, work, games, gs.shown, rng)
    if gs.counters[ST_DEALT] == 0:
        deal_first_click(gs, a, deal_rng)
    got = open_cell(gs, a)
    linear_learn(WT, B, cfg, ex, work, games, gs, a, got, rng)
    return a


class LinearBatch(NamedTuple):
    """linear Q's batch state (minelab.agents.batch): the weights, settings, schedule, work
    arrays and games played; no record column of its own."""

    WT: np.ndarray  # W transposed
    B: np.ndarray
    cfg: LinearConfig
    ex: Exploration
    work: LinearWork
    games: np.ndarray  # int64[1]
    extra: np.ndarray  # int64[0]


@hook
def _linear_begin(state, gs):
    state.work.pending[:] = -1


@hook
def _linear_move(state, gs, rng, deal_rng):
    return np.int64(REVEAL), linear_act(state.WT, state.B, state.ex, state.work, state.games, gs.shown, rng)


@hook
def _linear_after(state, gs, rng, cell, got):
    linear_learn(state.WT, state.B, state.cfg, state.ex, state.work, state.games, gs, cell, got, rng)


hooks(LinearBatch, _linear_move, begin_fn=_linear_begin, after_fn=_linear_after)


# ------------------------------------------------------------------ the agent
@dataclass(frozen=True)
class LinearParams(RLParams):
    """Linear Q's parameters: the schedule's, the step size (the authors' program's 0.01)
    and the discount."""

    alpha: float = number(0.01, 0.0, 1.0, lo_open=True, keep=ALWAYS, doc="the step size")
    gamma: float = number(0.9, 0.0, 1.0, keep=ALWAYS, doc="the discount")


@register
class LinearQAgent(RLAgent):
    """Linear Q (Bilir et al. 2023, §4.3): Q(s, .) = W f(s) + B over a one-hot of the
    board, alpha 0.01, gamma 0.9 (minelab.agents.rl.linear)."""

    name = "linear-q"
    Params = LinearParams
    extra_fields = ()
    _explains = True

    def __init__(self, seed=None, **params):
        super().__init__(seed, **params)
        self.WT = self.B = None

    def _allocate(self, cells):
        self.WT = np.zeros((cells * CELL_VALUES, cells), np.float64)
        self.B = np.zeros(cells, np.float64)

    def _new_work(self, cells):
        return new_linear_work(cells)

    def _saved_values(self):
        return {"W": np.ascontiguousarray(self.W), "B": self.B}  # the file holds W, as the paper writes it

    def _restore_values(self, arrays):
        for name, held, into in (("W", self.W, self.WT.T), ("B", self.B, self.B)):
            a = arrays.get(name)
            if a is None or a.dtype != held.dtype or a.shape != held.shape:
                got = "missing" if a is None else f"{a.dtype}[{', '.join(map(str, a.shape))}]"
                raise ValueError(f"member {name}: {got}, expected {held.dtype}[{', '.join(map(str, held.shape))}]")
            into[...] = a

    @property
    def W(self) -> np.ndarray | None:
        """The weights as the paper writes them, action by feature (n x n L): a view of WT."""
        return None if self.WT is None else self.WT.T

    @property
    def config(self) -> LinearConfig:
        return LinearConfig(float(self.alpha), float(self.gamma), int(self.learning))

    def _step(self, gs, work, deal_rng):
        return linear_step(gs, self.WT, self.B, self.config, self.explore, work, self.games, deal_rng, self.rng)

    def _batch(self, gs, work, n_games, deal_rng, out):
        state = LinearBatch(self.WT, self.B, self.config, self.explore, work, self.games, np.zeros(0, np.int64))
        return play_games(gs, n_games, deal_rng, self.rng, state, out)

    # --- why (explain) and knowledge ---------------------------------------------------
    def _values_now(self, view) -> np.ndarray:
        """Q(s, .) of the view (flat), as linear_step computes it (covered cells; 0 elsewhere)."""
        n = view.shape[0]
        q = np.zeros(n)
        action_values(self.WT, self.B, view, np.zeros(n, np.int64), np.zeros(n), q)
        return q

    def _why_before(self, game, work, rng):
        """How the cell the step reveals was chosen (replayed here when the step chooses it)."""
        if work.pending[P_ACTION] >= 0:
            return self._chosen_by_game.get(game)
        view = game._gs.shown
        return choose_like(self._values_now(view), view, self.explore, int(self.games[0]), rng)

    def _why_after(self, game, work, rng, before, cell) -> str:
        said = describe(before, cell, game.level.cols, self.explore.random_games)
        if game.over:
            self._chosen_by_game.pop(game, None)
        else:  # work.q is Q(s', .) as the step chose a' over it (the update changed row a only: a is revealed)
            self._chosen_by_game[game] = choose_like(work.q.copy(), game._gs.shown, self.explore,
                                                     int(self.games[0]), rng)
        return said

    def _why_peek(self, game, work, cell) -> str:
        return describe(self._why_before(game, work, self._stream_copy()), cell, game.level.cols,
                        self.explore.random_games)

    def knowledge(self, game):
        """Q(s, a) = W f(s) + B of the position, on its covered cells."""
        shape = (game.level.rows, game.level.cols)
        view = game._gs.shown
        if self.WT is None or self._shape != shape:
            return covered_values(None, view, shape, f"{self.name}: no weights for {shape[0]}x{shape[1]} boards")
        return covered_values(self._values_now(view), view, shape,
                              f"{self.name}: Q(s, a) = W f(s) + B, one value per covered cell")

    def _peek(self, game, work):
        twin_work = LinearWork(*(a.copy() for a in work))
        return linear_peek(game._gs.shown, self.WT, self.B, self.explore, twin_work, self.games, self._stream_copy())


@kernel
def linear_peek(view, WT, B, ex, work, games, rng):
    """The cell the next decision reveals (on copies of the work and the stream)."""
    if work.pending[P_ACTION] >= 0:
        return work.pending[P_ACTION]
    action_values(WT, B, view, work.feat, work.acc, work.q)
    return epsilon_greedy(work.q, view, epsilon_at(ex, games[0]), rng)
