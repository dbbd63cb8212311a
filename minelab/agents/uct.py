"""Tree search over belief states: `uct` (BSSUCT) and `oh` (Optimistic Heuristics).

Buffet, Lee, Lin & Teytaud (2012), "Optimistic Heuristics for MineSweeper", Alg. 1 and 2.
Both agents play as `csp` between guesses (open in the top-left corner, reveal every
certainly safe cell, flag every certain mine) and search only when a guess is needed:
revealing a certainly safe cell never lowers the chance to win, so a tree over those
moves would only repeat the same value (the exact solver in `minelab.exact` uses the
same shortcut). A decision runs `simulations` simulations from the current view, each:

1. draws a hidden layout **uniformly among those consistent with the view**
   (`probability.sample_layout`: exact weights from the solver's counts, no rejection);
2. descends from the current position. At a position (a view where a guess is needed)
   the candidate decisions are, for `uct`, every covered cell that is not certainly a
   mine and, for `oh`, the set E of cells of least mine probability (Alg. 2's "CSP"
   line). A position that has had **more than `expand` (5) simulations** picks the
   candidate d maximising the paper's
       Q_ucb(s, d) = Q(s, d) + sqrt(log(2 + n(s)) / (1 + n(s, d)))
   (Q the mean reward of the simulations that took d in s, 0 before any; n(s) = sum of
   n(s, d)); a position with fewer picks by the heuristic: for `oh` HCSP's choice (the
   least probable cell closest to the revealed area, then at random), for `uct` the
   myopic CSP choice of Sebag & Teytaud (least probable, ties at random) or, with
   `default="random"`, a uniformly random candidate;
3. reveals the choice on the drawn layout, then every cell that has become certainly
   safe (the csp closure), until the next guess or the game's end;
4. backs the reward (1 for a win, 0 for a loss) up every stored position of its path.

The real move is the candidate of best mean Q at the root (ties: more simulations, then
the lower cell index), as Alg. 1's last line. A root with one candidate is played at
once.

Choices where §2-3 are vague, made here and written down:
- *What a state is*: a node is the **view** (revealed numbers), so it stands for the
  belief "every layout consistent with it"; positions reached by different paths share
  statistics (a transposition table, `rl.table.StateTable`, keyed by the packed view).
  Outcomes branch by what the click reveals: the same decision with different numbers
  shown leads to different nodes.
- *What a node is added*: one new position per simulation (Fig. 1's "one new node");
  below it the heuristic plays on and nothing is stored. The tree is built afresh for
  each decision (Alg. 1 takes a state and returns one decision).
- *Reward*: win = 1, loss = 0, so Q is the estimated chance to win. The alternative,
  `reward="progress"`, scores a simulation by the share of the board's safe cells it
  revealed (a loss late in the game is worth more than an early one), which UCT papers
  on Minesweeper also use; it optimises something other than the win rate.
- *Which moves the tree considers*: guesses only; certain moves are made at once.
The plausible alternatives (`reward="progress"`; for BSSUCT, `default="random"`: pure
Monte-Carlo below the tree) are named options.

Neither agent reads the hidden layout: simulations draw their own layouts from the view
(tests/test_uct.py checks that two games with the same view and different hidden mines
get the same decisions from the same stream).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..cells import COVERED, ONGOING, REVEAL, WON
from ..engine import (SP_COLS, SP_MINES, SP_ROWS, ST_REVEALED, ST_STATUS, GameState, kernel,
                      neighbour_counts, open_cell, uniform_below)
from ..probability import CERTAIN_MINE, sample_layout
from .base import register
from .batch import extra_index, hook, hooks, play_games
from .csp import (DC_GUESS, CSPParams, TIE_FRONTIER, TIE_RANDOM, TIE_TOLERANCE, CSPAgent, SolverState, apply_decision,
                  begin_decisions, least_probable, new_solver_state, next_pending, opening_or_certain,
                  take_decision)
from .spec import ALWAYS, choice, integer
from .rl.table import FREE, SM_ROWS, StateArrays, StateTable, find_row, insert_row, pack_view
from .why import at, num

CAND_ALL = 0  # uct: every covered cell not certainly a mine
CAND_LEAST = 1  # oh: the cells of least mine probability (the set E)
POLICY_CSP = TIE_RANDOM  # the heuristic: least probable, ties at random
POLICY_HCSP = TIE_FRONTIER  # least probable, ties toward the revealed area, then at random
POLICY_RANDOM = 2  # a uniformly random candidate
DEFAULT_POLICIES = {"csp": POLICY_CSP, "random": POLICY_RANDOM}  # uct's choices
EXPAND = 5  # "if s' has more than 5 simulations then" the tree policy
REWARDS = ("win", "progress")  # a simulation's reward: 1 / 0 for a win / loss; or the share of safe cells revealed


class TreeConfig(NamedTuple):
    """The search's settings, as the kernels take them."""

    simulations: int  # per decision
    candidates: int  # CAND_ALL or CAND_LEAST
    policy: int  # the heuristic below the tree (and in young positions): POLICY_*
    expand: int  # the tree policy once a position has more than this many simulations
    first: int  # flat index of the opening click
    max_work: int  # the solver's search bound per component
    reward: int  # index in REWARDS


class TreeWork(NamedTuple):
    """Scratch of the search (build with `new_tree_work`)."""

    sim_counters: np.ndarray  # the simulated game's arrays (see engine.GameState)
    sim_mine: np.ndarray
    sim_counts: np.ndarray
    sim_shown: np.ndarray
    sim_stack: np.ndarray
    path_row: np.ndarray  # int64[n]: the stored positions of a simulation's path
    path_cell: np.ndarray  # int64[n]: the decision taken there
    cand: np.ndarray  # int64[n]: candidates of the current position
    key: np.ndarray  # uint64[words]: a packed view
    sims: np.ndarray  # int64[1]: simulations run so far (records and the bench)


def new_tree_work(cells: int, words: int) -> TreeWork:
    i64 = np.int64
    return TreeWork(np.zeros(8, i64), np.zeros(cells, np.uint8), np.zeros(cells, np.int8), np.zeros(cells, np.int8),
                    np.zeros(cells, np.int32), np.zeros(cells, i64), np.zeros(cells, i64), np.zeros(cells, i64),
                    np.zeros(words, np.uint64), np.zeros(1, i64))


# ------------------------------------------------------------------ kernels
@kernel
def candidates(view, prob, certain, known, mode, cand):
    """The decisions of a guess position into cand[:k]; returns k. prob / certain: the
    position's solve."""
    n = view.shape[0]
    least = 2.0
    if mode == CAND_LEAST:
        for i in range(n):
            if view[i] == COVERED and known[i] == 0 and prob[i] < least:
                least = prob[i]
    k = 0
    for i in range(n):
        if view[i] == COVERED and known[i] == 0 and certain[i] != CERTAIN_MINE:
            if mode == CAND_ALL or prob[i] <= least + TIE_TOLERANCE:
                cand[k] = i
                k += 1
    return k


@kernel
def position_visits(tb, row, cand, k):
    """n(s): the simulations that went through stored position `row`."""
    total = 0
    for t in range(k):
        total += tb.visits[row, cand[t]]
    return total


@kernel
def ucb_choice(tb, row, cand, k, n_s):
    """The candidate maximising Q(s,d) + sqrt(log(2 + n(s)) / (1 + n(s,d))), first on ties."""
    log_n = math.log(2.0 + n_s)
    best = -1.0
    arg = cand[0]
    for t in range(k):
        c = cand[t]
        score = tb.q[row, c] + math.sqrt(log_n / (1.0 + tb.visits[row, c]))
        if score > best:
            best = score
            arg = c
    return arg


@kernel
def best_mean(tb, row, cand, k):
    """The candidate of best mean Q among those simulated (ties: more simulations, then
    the lower index)."""
    arg = cand[0]
    for t in range(1, k):
        c = cand[t]
        if tb.visits[row, c] == 0:
            continue
        if tb.visits[row, arg] == 0 or tb.q[row, c] > tb.q[row, arg] or (
                tb.q[row, c] == tb.q[row, arg] and tb.visits[row, c] > tb.visits[row, arg]):
            arg = c
    return arg


@kernel
def heuristic_choice(view, nbr, nbr_count, s, prob, cfg, cand, k, rng):
    """The default policy's decision among cand[:k] (s: scratch and known mines)."""
    if cfg.policy == POLICY_RANDOM:
        return cand[uniform_below(rng, k)]
    return least_probable(view, nbr, nbr_count, s, prob, cfg.policy, rng)


@kernel
def clear_tree(tb):
    """Forget every stored position (a new tree for each decision)."""
    tb.meta[SM_ROWS] = 0
    tb.slot_row[:] = FREE


@kernel
def to_next_guess(sim, sim_s, cfg, rng):
    """Make every certain move on the simulated game until a guess is needed (sim_s.ws
    then holds its solve) or the game ends. Returns False if the view is inconsistent."""
    while sim.counters[ST_STATUS] == ONGOING:
        m = opening_or_certain(sim, sim_s, cfg.first, cfg.max_work)
        if m < 0:
            return False
        if m == 0:
            return True
        apply_decision(sim, sim_s, m, rng)  # the simulated game is dealt: rng is not drawn from
    return True


@kernel
def simulate(gs, s, sim_s, tb, cfg, work, rng):
    """One simulation from the real game's guess position (s.ws holds its solve)."""
    sim = GameState(gs.spec, work.sim_counters, work.sim_mine, work.sim_counts, work.sim_shown, work.sim_stack,
                    gs.nbr, gs.nbr_count, gs.deal_work)
    for i in range(gs.counters.shape[0]):  # element loops: a slice copy would allocate
        sim.counters[i] = gs.counters[i]
    for i in range(gs.shown.shape[0]):
        sim.shown[i] = gs.shown[i]
        sim_s.known[i] = s.known[i]
    sample_layout(s.ws, gs.shown, s.known, rng, sim.mine)  # a layout consistent with the view, never gs.mine
    neighbour_counts(sim.mine, sim.nbr, sim.nbr_count, sim.counts)
    prob, certain = s.ws.prob, s.ws.certain  # the root's solve; then each position's own
    depth = 0
    stored = True  # still inside the tree: one new position a simulation
    while True:
        k = candidates(sim.shown, prob, certain, sim_s.known, cfg.candidates, work.cand)
        row = -1
        if stored:
            pack_view(sim.shown, work.key)
            row = find_row(tb, work.key)
            if row < 0:
                row = insert_row(tb, work.key)
                stored = False
        n_s = position_visits(tb, row, work.cand, k) if row >= 0 else 0
        if n_s > cfg.expand:
            d = ucb_choice(tb, row, work.cand, k, n_s)
        else:
            d = heuristic_choice(sim.shown, sim.nbr, sim.nbr_count, sim_s, prob, cfg, work.cand, k, rng)
        if row >= 0:
            work.path_row[depth] = row
            work.path_cell[depth] = d
            depth += 1
        open_cell(sim, d)
        if not to_next_guess(sim, sim_s, cfg, rng) or sim.counters[ST_STATUS] != ONGOING:
            break
        prob, certain = sim_s.ws.prob, sim_s.ws.certain
    if cfg.reward == 0:
        reward = 1.0 if sim.counters[ST_STATUS] == WON else 0.0
    else:
        reward = sim.counters[ST_REVEALED] / (sim.shown.shape[0] - sim.spec[SP_MINES])
    for t in range(depth):
        row, c = work.path_row[t], work.path_cell[t]
        tb.visits[row, c] += 1
        tb.q[row, c] += (reward - tb.q[row, c]) / tb.visits[row, c]


@kernel
def tree_decide(gs, s, sim_s, tb, cfg, work, rng):
    """One decision on game gs: s.moves[:k] (certain moves, or one searched guess);
    returns k, -1 when inconsistent. s.decision[DC_GUESS] = 1 for a guess."""
    s.decision[DC_GUESS] = 0
    k = opening_or_certain(gs, s, cfg.first, cfg.max_work)
    if k != 0:
        return k
    s.decision[DC_GUESS] = 1
    view = gs.shown
    nc = candidates(view, s.ws.prob, s.ws.certain, s.known, cfg.candidates, work.cand)
    move = work.cand[0]
    if nc > 1:
        clear_tree(tb)
        for _ in range(cfg.simulations):
            simulate(gs, s, sim_s, tb, cfg, work, rng)
        work.sims[0] += cfg.simulations
        nc = candidates(view, s.ws.prob, s.ws.certain, s.known, cfg.candidates, work.cand)  # the sims used cand
        pack_view(view, work.key)
        move = best_mean(tb, find_row(tb, work.key), work.cand, nc)
    s.moves[0, 0] = REVEAL
    s.moves[0, 1] = move
    return 1


#: the record columns oh and uct add, in the order of their batch state's `extra`
TREE_EXTRA = ("guesses", "fallbacks", "simulations")
_X_GUESSES, _X_FALLBACKS, _X_SIMS = (extra_index(TREE_EXTRA, f) for f in TREE_EXTRA)


class TreeBatch(NamedTuple):
    """oh's and uct's batch state (minelab.agents.batch): the player's solver state (with
    the decision being played, s.pending), the simulations' solver state, tree and work
    arrays, the settings and the simulations counted when the game began."""

    s: SolverState
    sim_s: SolverState
    tb: StateArrays
    cfg: TreeConfig
    work: TreeWork
    sims0: np.ndarray  # int64[1]
    extra: np.ndarray  # int64[len(TREE_EXTRA)]


@hook
def _tree_begin(state, gs):
    begin_decisions(state.s, state.extra)
    state.sims0[0] = state.work.sims[0]


@hook
def _tree_move(state, gs, rng, deal_rng):
    s = state.s
    kind, cell = next_pending(gs, s)
    while cell < 0:
        k = tree_decide(gs, s, state.sim_s, state.tb, state.cfg, state.work, rng)
        if k < 0:
            return np.int64(REVEAL), np.int64(-1)  # inconsistent position: not with the agent's own flags
        take_decision(s, k, state.extra, _X_GUESSES, _X_FALLBACKS)
        kind, cell = next_pending(gs, s)
    return kind, cell


@hook
def _tree_end(state, gs):
    state.extra[_X_SIMS] = state.work.sims[0] - state.sims0[0]


hooks(TreeBatch, _tree_move, begin_fn=_tree_begin, end_fn=_tree_end)


# ------------------------------------------------------------------ the agents
@dataclass(frozen=True)
class TreeParams(CSPParams):
    """oh's parameters (csp's, and the search's)."""

    simulations: int = integer(10_000, 1, keep=ALWAYS,
                               doc="simulations per decision (the paper: 10,000; 100 on 16x16 and 16x30)")
    expand: int = integer(EXPAND, 0, doc="the tree policy once a position has more than this many simulations")
    reward: str = choice("win", REWARDS, doc="a simulation's reward: win (1 / 0) or progress (share revealed)")


@dataclass(frozen=True)
class UCTParams(TreeParams):
    """uct's parameters (oh's, and the policy below the tree)."""

    default: str = choice("csp", DEFAULT_POLICIES, doc="the choice below the tree: csp's, or at random")


class TreeSearchAgent(CSPAgent):
    """Shared by `uct` and `oh`: csp's play between guesses, a search at each guess."""

    name = "tree-search"
    Params = TreeParams
    candidate_rule = CAND_ALL
    extra_fields = TREE_EXTRA

    def __init__(self, seed=None, **params):
        super().__init__(seed, **params)
        self._search: dict[tuple[int, int], tuple] = {}

    @property
    def policy(self) -> int:
        return POLICY_HCSP

    def config(self, rows: int, cols: int) -> TreeConfig:
        """The kernels' view of the agent's parameters on a rows x cols board."""
        return TreeConfig(simulations=self.simulations, candidates=self.candidate_rule, policy=int(self.policy),
                          expand=self.expand, first=int(self.first_cell(rows, cols)), max_work=int(self.max_work),
                          reward=REWARDS.index(self.reward))

    def search_state(self, cells: int, mines: int) -> tuple[SolverState, StateTable, TreeWork]:
        """The simulations' solver state, the tree (room for one position a simulation,
        cleared each decision) and the scratch, made once per board size."""
        key = (cells, mines)
        if key not in self._search:
            table = StateTable(cells, visits=True, capacity=self.simulations + 2)
            self._search[key] = (new_solver_state(cells, mines), table, new_tree_work(cells, table.words))
        return self._search[key]

    def _decide(self, gs, s, level) -> int:
        """One decision by the search kernel (csp's `decision` calls it)."""
        sim_s, table, work = self.search_state(level.cells, level.mines)
        return tree_decide(gs, s, sim_s, table.arrays(), self.config(level.rows, level.cols), work, self.rng)

    def _explain_guess(self, gs, s, level, cell) -> str:
        """A searched guess: the root's statistics of the chosen cell (the tree is kept until
        the next decision clears it)."""
        _, table, _ = self.search_state(level.cells, level.mines)
        cand = np.zeros(level.cells, np.int64)
        nc = candidates(gs.shown, s.ws.prob, s.ws.certain, s.known, self.candidate_rule, cand)
        what = "cells of least p(mine)" if self.candidate_rule == CAND_LEAST else "covered cells not certainly mines"
        said = f"guess {at(cell, level.cols)}"
        if nc == 1:
            return f"{said}: the only candidate ({what}), no search; p(mine) = {num(s.ws.prob[cell])}"
        key = np.zeros(table.words, np.uint64)
        pack_view(gs.shown, key)
        row = find_row(table.arrays(), key)
        visits = table.visits[row, cand[:nc]]
        reward = "win rate" if self.reward == "win" else "share of safe cells revealed"
        return (f"{said}: best mean {reward} {num(table.q[row, cell])} over {table.visits[row, cell]} of the root's "
                f"{int(visits.sum())} simulations, among {nc} candidates ({what}); "
                f"p(mine) = {num(s.ws.prob[cell])}")

    def play_batch(self, gs, n_games, deal_rng, out):
        """Play n_games games on gs in one kernel call, records into out."""
        rows, cols, mines = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS]), int(gs.spec[SP_MINES])
        sim_s, table, work = self.search_state(rows * cols, mines)
        state = TreeBatch(self.state(rows * cols, mines), sim_s, table.arrays(), self.config(rows, cols), work,
                          np.zeros(1, np.int64), np.zeros(len(TREE_EXTRA), np.int64))
        play_games(gs, n_games, deal_rng, self.rng, state, out)


@register
class UCTAgent(TreeSearchAgent):
    """UCT over belief states (BSSUCT as Buffet et al. 2012 cite it): every covered cell
    not certainly a mine is a candidate; below the tree the myopic CSP choice
    (default="csp") or a uniformly random one (default="random")."""

    name = "uct"
    Params = UCTParams
    candidate_rule = CAND_ALL

    @property
    def policy(self) -> int:
        return DEFAULT_POLICIES[self.default]


@register
class OHAgent(TreeSearchAgent):
    """Optimistic Heuristics (Buffet et al. 2012, Alg. 2): UCT over the cells of least
    mine probability only, HCSP's choice below the tree, first move in a corner."""

    name = "oh"
    candidate_rule = CAND_LEAST
