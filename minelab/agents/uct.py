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

Further work. The paper's conclusion lists improvements it leaves open (quoted, item by
item, below); each is an option of both agents (TreeParams), off by default. With
every option off the search runs `simulate`, the code of the search above, untouched (same
random draws, same moves: the golden playthroughs; the same speed); with any on, it runs
`simulate_further`. minelab.papers.buffet2012_further measures each against OH as
published.

- `pairing` -- "Pairing simulations: using the same sequence of possible children for
  all children of a given node". A decision's "possible children" are its outcomes, fixed by the
  hidden layout the simulation plays, so the reading: the root's decisions are compared
  on common layouts. The layout is drawn after the root's decision d is chosen (not
  before, as unpaired): the j-th simulation that takes d at the root plays the j-th
  layout of a pool shared by all root decisions, each pool layout drawn exactly (as
  unpaired) from the root's view the first time some decision needs it. Two root
  decisions simulated j times have met the same j layouts, so their difference of means
  is a paired difference. Pairing is at the root only (the node whose decision is
  played); deeper positions see the layout their path was given.
- `ordering` -- "Using the additional information from HCSP for ordering legal
  decisions in a given node": "moves in lexicographic orders on x-axis and y-axis", "in
  order of probability of mine, and in case of tie distance to the frontier", "random
  order (which avoids biases)". Without it the candidates of a position are in cell index order (row-major:
  y then x), which decides UCB's ties, and a young position (at most `expand`
  simulations) plays the heuristic's choice. With it, a stored position's candidates are
  sorted in the order ("lexicographic": by column x, then row y; "probability": least
  mine probability, then Chebyshev distance to the revealed area, then index; "random":
  a uniformly random order, fixed for the position within one decision by a hash of a
  per-decision salt), and (1) a young position plays its first candidate in the order
  it has not tried yet (the heuristic's choice once all were tried), (2) UCB's ties go
  to the first in the order. Below the tree the heuristic plays as without it; the move
  finally played is still Alg. 1's best mean.
- `widening_k`, `widening_alpha`, `widening` -- "Using progressive widening; testing
  various coefficients, and maybe non-polynomial rules; or use rules depending on
  rewards obtained for the already sampled moves". With widening_k > 0, a position past
  `expand` simulations (n = n(s)) runs UCB over only its first m candidates in the order (`ordering`'s, or HCSP's order,
  "probability", when ordering is "none"): "polynomial": m = max(1, ceil(k n^alpha));
  "reward": m = the leading candidates already tried, plus one when there is none or
  their best mean is below 1 - 1/sqrt(n) (the threshold rule of
  minelab.papers.buffet2012_widening). n(s) in the UCB bonus still counts every
  simulation of the position.
- `sims_per_node` -- "Simulate several times for evaluating a node, before starting new
  simulations from the root". The position a simulation adds to the tree is evaluated by
  sims_per_node playouts: the first is the simulation itself; the others restart from
  the new position, each on its own layout drawn exactly from that position's view,
  take the same decision there, then the heuristic to the end. Their mean reward is
  backed up the path counted as sims_per_node visits. `simulations` still counts the
  simulations from the root (the playouts cost more).
- `rave` -- "Using rapid action value estimates (either it brings an improvement, or it
  is an interesting counter-example)". Every stored position s of a simulation's
  path keeps AMAF statistics (all moves as first) of each cell guessed at or after s's
  own guess in that simulation, inside or below the tree, scored by the simulation's
  reward (the first playout's under sims_per_node). Past `expand` simulations the
  position picks the d maximising (1 - beta) Q(s,d) + beta Q_amaf(s,d) + sqrt(log(2 +
  n(s)) / (1 + n(s,d))) with Gelly & Silver's (2007) schedule beta = sqrt(k / (3 n(s) +
  k)), k = `rave` (a d with no AMAF sample: Q alone).
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
                  begin_decisions, frontier_distance, least_probable, new_solver_state, next_pending,
                  opening_or_certain, take_decision)
from .spec import ALWAYS, choice, flag, integer, number
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
ORDERINGS = ("none", "lexicographic", "probability", "random")  # the further-work options' orders of a node's decisions
ORDER_NONE, ORDER_LEX, ORDER_PROB, ORDER_RANDOM = range(4)
WIDENINGS = ("polynomial", "reward")  # progressive widening's rules (on when widening_k > 0)
WIDEN_OFF, WIDEN_POLY, WIDEN_REWARD = range(3)


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


class FurtherConfig(NamedTuple):
    """The further-work options' settings, as the kernels take them (apart from TreeConfig,
    so the paper's search takes exactly the arguments it took without them)."""

    on: int  # 1 when any option is on (simulate_further), else 0 (simulate)
    pairing: int  # 1: the root's decisions are compared on paired layouts
    ordering: int  # ORDER_*
    widening: int  # WIDEN_* (WIDEN_OFF when widening_k is 0)
    widening_k: float
    widening_alpha: float
    sims_per_node: int  # playouts evaluating a new position
    rave: float  # RAVE's equivalence parameter k (0: off)
    rows: int  # the board's shape (the lexicographic order)
    cols: int


class FurtherWork(NamedTuple):
    """The further-work options' scratch (build with `new_further_work`; 1-element stubs
    for the options off)."""

    order_p: np.ndarray  # float64[n]: a cell's first sort key (ordering, widening)
    order_d: np.ndarray  # int64[n]: its second sort key
    pool: np.ndarray  # uint8[simulations, n]: pairing: the root's j-th layout in row j
    pool_n: np.ndarray  # int64[1]: layouts in the pool (this decision)
    pair_count: np.ndarray  # int64[n]: pairing: simulations through each root decision (this decision)
    salt: np.ndarray  # int64[1]: ordering="random": this decision's hash salt
    snap_counters: np.ndarray  # sims_per_node: the new position's game, to replay from
    snap_shown: np.ndarray
    snap_known: np.ndarray
    extra: np.ndarray  # uint8[sims_per_node - 1, n]: the extra playouts' layouts
    guess_cell: np.ndarray  # int64[n]: rave: the cells guessed in a simulation, in order
    path_guess: np.ndarray  # int64[n]: rave: the index in guess_cell of each stored position's guess
    amaf_q: np.ndarray  # float32[rows, n]: rave: the AMAF mean of (position, cell)
    amaf_n: np.ndarray  # int32[rows, n]: rave: its count


def new_further_work(cells: int, simulations: int = 1, pairing: bool = False, ordered: bool = False,
                     sims_per_node: int = 1, rave: bool = False, rows: int = 1) -> FurtherWork:
    """The options' scratch: an option's arrays take their full size only when it is on
    (`ordered`: ordering or widening; `rows`: the tree's capacity in positions, for RAVE)."""
    i64 = np.int64
    big = cells if ordered else 1
    return FurtherWork(np.zeros(big), np.zeros(big, i64),
                       np.zeros((simulations if pairing else 1, cells), np.uint8), np.zeros(1, i64),
                       np.zeros(cells if pairing else 1, i64), np.zeros(1, i64),
                       np.zeros(8, i64), np.zeros(cells, np.int8), np.zeros(cells, np.uint8),
                       np.zeros((max(sims_per_node - 1, 1), cells), np.uint8),
                       np.zeros(cells if rave else 1, i64), np.zeros(cells if rave else 1, i64),
                       np.zeros((rows, cells) if rave else (1, 1), np.float32),
                       np.zeros((rows, cells) if rave else (1, 1), np.int32))


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
def _mix(x):
    """A 63-bit hash of the uint64 x (splitmix64's finaliser)."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z >> np.uint64(1))


@kernel
def _before(fw, a, b):
    """Whether cell a comes before cell b: smaller first key (within TIE_TOLERANCE), then
    smaller second key, then the lower index."""
    pa = fw.order_p[a]
    pb = fw.order_p[b]
    if pa < pb - TIE_TOLERANCE:
        return True
    if pb < pa - TIE_TOLERANCE:
        return False
    da = fw.order_d[a]
    db = fw.order_d[b]
    if da != db:
        return da < db
    return a < b


@kernel
def order_candidates(view, nbr, nbr_count, sim_s, prob, fc, fw, row, cand, k):
    """Sort cand[:k] in the ordering's order (`ordering="none"` with widening on: HCSP's,
    as "probability"). lexicographic: by column (x), then row (y); probability: least mine
    probability, then Chebyshev distance to the revealed area, then the index; random: by
    a hash of (this decision's salt, the stored position, the cell), so a position keeps
    its order through the decision. sim_s.dist / queue are scratch."""
    mode = fc.ordering
    if mode == ORDER_NONE:
        mode = ORDER_PROB
    if mode == ORDER_PROB:
        frontier_distance(view, nbr, nbr_count, sim_s.dist, sim_s.queue)
    n = view.shape[0]
    for t in range(k):
        c = cand[t]
        if mode == ORDER_PROB:
            fw.order_p[c] = prob[c]
            fw.order_d[c] = sim_s.dist[c]
        elif mode == ORDER_LEX:
            fw.order_p[c] = 0.0
            fw.order_d[c] = (c % fc.cols) * fc.rows + c // fc.cols
        else:
            fw.order_p[c] = 0.0
            fw.order_d[c] = _mix(np.uint64(fw.salt[0]) + np.uint64(row * n + c) * np.uint64(0x100000001B3))
    gap = 1  # Shell sort (Knuth's gaps): in place, no allocation
    while gap < k // 3:
        gap = 3 * gap + 1
    while gap > 0:
        for i in range(gap, k):
            c = cand[i]
            j = i
            while j >= gap and _before(fw, c, cand[j - gap]):
                cand[j] = cand[j - gap]
                j -= gap
            cand[j] = c
        gap //= 3


@kernel
def widened(tb, row, cand, k, n_s, fc):
    """How many of the ordered cand[:k] a position with n_s simulations considers:
    polynomial: max(1, ceil(widening_k * n_s^widening_alpha)); reward: the leading
    candidates already tried, plus one when none is or when their best mean is below
    1 - 1/sqrt(n_s). Never more than k."""
    if fc.widening == WIDEN_POLY:
        m = np.int64(math.ceil(fc.widening_k * n_s ** fc.widening_alpha))
    else:
        m = 0
        best = 0.0
        while m < k and tb.visits[row, cand[m]] > 0:
            if tb.q[row, cand[m]] > best:
                best = tb.q[row, cand[m]]
            m += 1
        if m == 0 or best < 1.0 - 1.0 / math.sqrt(n_s):
            m += 1
    return max(1, min(k, m))


@kernel
def rave_choice(tb, row, cand, k, n_s, b, fw):
    """The candidate maximising (1 - beta) Q(s,d) + beta Q_amaf(s,d) + sqrt(log(2 + n(s)) /
    (1 + n(s,d))), beta = sqrt(b / (3 n(s) + b)) (Gelly & Silver 2007); a decision with no
    AMAF sample scores its Q alone; first on ties."""
    log_n = math.log(2.0 + n_s)
    beta = math.sqrt(b / (3.0 * n_s + b))
    best = -1.0
    arg = cand[0]
    for t in range(k):
        c = cand[t]
        value = tb.q[row, c]
        if fw.amaf_n[row, c] > 0:
            value = (1.0 - beta) * value + beta * fw.amaf_q[row, c]
        score = value + math.sqrt(log_n / (1.0 + tb.visits[row, c]))
        if score > best:
            best = score
            arg = c
    return arg


@kernel
def first_untried(tb, row, cand, k):
    """The first of cand[:k] never simulated from stored position `row`, -1 if none."""
    for t in range(k):
        if tb.visits[row, cand[t]] == 0:
            return cand[t]
    return -1


@kernel
def paired_layout(gs, s, sim, d, fw, rng):
    """pairing: the layout of this simulation, which took root decision d: the j-th
    simulation through any root decision plays the pool's j-th layout, drawn (exactly,
    from the root's view) the first time a decision needs it."""
    j = fw.pair_count[d]
    fw.pair_count[d] = j + 1
    if j == fw.pool_n[0]:
        sample_layout(s.ws, gs.shown, s.known, rng, fw.pool[j])
        fw.pool_n[0] = j + 1
    for i in range(sim.mine.shape[0]):
        sim.mine[i] = fw.pool[j, i]
    neighbour_counts(sim.mine, sim.nbr, sim.nbr_count, sim.counts)


@kernel
def sim_reward(sim, cfg):
    """The finished (or abandoned: inconsistent) simulated game's reward."""
    if cfg.reward == 0:
        return 1.0 if sim.counters[ST_STATUS] == WON else 0.0
    return sim.counters[ST_REVEALED] / (sim.shown.shape[0] - sim.spec[SP_MINES])


@kernel
def extra_playouts(sim, sim_s, cfg, work, fc, fw, rng, d):
    """sims_per_node: the new position's sims_per_node - 1 further playouts, each from the
    snapshot, on its own layout of fw.extra, taking decision d there, then the
    heuristic to the end; returns the sum of their rewards."""
    total = 0.0
    n = sim.shown.shape[0]
    for j in range(fc.sims_per_node - 1):
        for i in range(sim.counters.shape[0]):
            sim.counters[i] = fw.snap_counters[i]
        for i in range(n):
            sim.shown[i] = fw.snap_shown[i]
            sim_s.known[i] = fw.snap_known[i]
            sim.mine[i] = fw.extra[j, i]
        neighbour_counts(sim.mine, sim.nbr, sim.nbr_count, sim.counts)
        open_cell(sim, d)
        ok = to_next_guess(sim, sim_s, cfg, rng)
        while ok and sim.counters[ST_STATUS] == ONGOING:
            k = candidates(sim.shown, sim_s.ws.prob, sim_s.ws.certain, sim_s.known, cfg.candidates, work.cand)
            c = heuristic_choice(sim.shown, sim.nbr, sim.nbr_count, sim_s, sim_s.ws.prob, cfg, work.cand, k, rng)
            open_cell(sim, c)
            ok = to_next_guess(sim, sim_s, cfg, rng)
        total += sim_reward(sim, cfg)
    return total


@kernel
def simulate_further(gs, s, sim_s, tb, cfg, work, fc, fw, rng):
    """`simulate` with the further-work options (module docstring, "Further work"); with
    every option off it would do what `simulate` does (tree_decide runs `simulate` then:
    the paper's search keeps its own code, arguments and speed)."""
    sim = GameState(gs.spec, work.sim_counters, work.sim_mine, work.sim_counts, work.sim_shown, work.sim_stack,
                    gs.nbr, gs.nbr_count, gs.deal_work)
    for i in range(gs.counters.shape[0]):  # element loops: a slice copy would allocate
        sim.counters[i] = gs.counters[i]
    for i in range(gs.shown.shape[0]):
        sim.shown[i] = gs.shown[i]
        sim_s.known[i] = s.known[i]
    if fc.pairing == 0:  # else drawn once the root's decision is known (paired_layout)
        sample_layout(s.ws, gs.shown, s.known, rng, sim.mine)  # a layout consistent with the view, never gs.mine
        neighbour_counts(sim.mine, sim.nbr, sim.nbr_count, sim.counts)
    prob, certain = s.ws.prob, s.ws.certain  # the root's solve; then each position's own
    depth = 0
    stored = True  # still inside the tree: one new position a simulation
    at_root = True
    ordered = fc.ordering != ORDER_NONE or fc.widening != WIDEN_OFF
    n_guess = 0  # rave: guesses of this simulation
    leaf_d = -1  # sims_per_node: the new position's decision, once snapshotted
    while True:
        k = candidates(sim.shown, prob, certain, sim_s.known, cfg.candidates, work.cand)
        row = -1
        new = False
        if stored:
            pack_view(sim.shown, work.key)
            row = find_row(tb, work.key)
            if row < 0:
                row = insert_row(tb, work.key)
                stored = False
                new = True
                if fc.rave > 0.0:
                    for i in range(sim.shown.shape[0]):
                        fw.amaf_q[row, i] = 0.0
                        fw.amaf_n[row, i] = 0
        n_s = position_visits(tb, row, work.cand, k) if row >= 0 else 0
        if ordered and row >= 0:
            order_candidates(sim.shown, sim.nbr, sim.nbr_count, sim_s, prob, fc, fw, row, work.cand, k)
        if n_s > cfg.expand:
            kw = widened(tb, row, work.cand, k, n_s, fc) if fc.widening != WIDEN_OFF else k
            if fc.rave > 0.0:
                d = rave_choice(tb, row, work.cand, kw, n_s, fc.rave, fw)
            else:
                d = ucb_choice(tb, row, work.cand, kw, n_s)
        else:
            d = -1
            if fc.ordering != ORDER_NONE and row >= 0:
                d = first_untried(tb, row, work.cand, k)
            if d < 0:
                d = heuristic_choice(sim.shown, sim.nbr, sim.nbr_count, sim_s, prob, cfg, work.cand, k, rng)
        if at_root and fc.pairing != 0:
            paired_layout(gs, s, sim, d, fw, rng)
        if new and fc.sims_per_node > 1:  # snapshot the new position, draw its extra playouts' layouts
            for i in range(sim.counters.shape[0]):
                fw.snap_counters[i] = sim.counters[i]
            for i in range(sim.shown.shape[0]):
                fw.snap_shown[i] = sim.shown[i]
                fw.snap_known[i] = sim_s.known[i]
            for j in range(fc.sims_per_node - 1):
                if at_root:
                    sample_layout(s.ws, sim.shown, sim_s.known, rng, fw.extra[j])
                else:
                    sample_layout(sim_s.ws, sim.shown, sim_s.known, rng, fw.extra[j])
            leaf_d = d
        if row >= 0:
            if fc.rave > 0.0:
                fw.path_guess[depth] = n_guess
            work.path_row[depth] = row
            work.path_cell[depth] = d
            depth += 1
        if fc.rave > 0.0:
            fw.guess_cell[n_guess] = d
            n_guess += 1
        at_root = False
        open_cell(sim, d)
        if not to_next_guess(sim, sim_s, cfg, rng) or sim.counters[ST_STATUS] != ONGOING:
            break
        prob, certain = sim_s.ws.prob, sim_s.ws.certain
    reward = sim_reward(sim, cfg)
    if fc.rave > 0.0:  # AMAF: every cell guessed at or after a stored position's own guess
        for t in range(depth):
            row = work.path_row[t]
            for g in range(fw.path_guess[t], n_guess):
                c = fw.guess_cell[g]
                fw.amaf_n[row, c] += 1
                fw.amaf_q[row, c] += (reward - fw.amaf_q[row, c]) / fw.amaf_n[row, c]
    if leaf_d >= 0:
        m = fc.sims_per_node
        reward = (reward + extra_playouts(sim, sim_s, cfg, work, fc, fw, rng, leaf_d)) / m
        for t in range(depth):
            row, c = work.path_row[t], work.path_cell[t]
            tb.visits[row, c] += m
            tb.q[row, c] += m * (reward - tb.q[row, c]) / tb.visits[row, c]
        return
    for t in range(depth):
        row, c = work.path_row[t], work.path_cell[t]
        tb.visits[row, c] += 1
        tb.q[row, c] += (reward - tb.q[row, c]) / tb.visits[row, c]


@kernel
def tree_decide(gs, s, sim_s, tb, cfg, work, fc, fw, rng):
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
        if fc.pairing != 0:
            fw.pool_n[0] = 0
            for i in range(fw.pair_count.shape[0]):
                fw.pair_count[i] = 0
        if fc.ordering == ORDER_RANDOM:
            fw.salt[0] = np.int64(rng.random() * 4503599627370496.0)  # 2^52
        if fc.on == 0:
            for _ in range(cfg.simulations):
                simulate(gs, s, sim_s, tb, cfg, work, rng)
        else:
            for _ in range(cfg.simulations):
                simulate_further(gs, s, sim_s, tb, cfg, work, fc, fw, rng)
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
    arrays, the settings (the further-work options' apart) and the simulations counted when
    the game began."""

    s: SolverState
    sim_s: SolverState
    tb: StateArrays
    cfg: TreeConfig
    work: TreeWork
    fc: FurtherConfig
    fw: FurtherWork
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
        k = tree_decide(gs, s, state.sim_s, state.tb, state.cfg, state.work, state.fc, state.fw, rng)
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
    # the paper's further work (module docstring, "Further work"); every default is the paper's agent
    pairing: bool = flag(False, doc="the j-th simulation through any root decision plays the same layout")
    ordering: str = choice("none", ORDERINGS, doc="the order of a stored position's decisions: young positions "
                                                  "try them in it, UCB's ties go to the first")
    widening_k: float = number(0.0, 0.0, doc="progressive widening's k (0 = off): a position with n simulations "
                                             "considers its first ceil(k n^alpha) decisions in the order")
    widening_alpha: float = number(0.5, 0.0, 1.0, doc="progressive widening's alpha")
    widening: str = choice("polynomial", WIDENINGS, doc="the widening rule when widening_k > 0: polynomial "
                                                        "(ceil(k n^alpha)) or reward (one more decision while "
                                                        "the best mean < 1 - 1/sqrt(n))")
    sims_per_node: int = integer(1, 1, doc="playouts that evaluate a new position (their mean backed up as that "
                                           "many visits)")
    rave: float = number(0.0, 0.0, doc="RAVE's equivalence parameter k (0 = off): Q blended with the AMAF value by "
                                       "beta = sqrt(k / (3 n(s) + k))")

    def __post_init__(self):
        super().__post_init__()
        if self.widening == "reward" and self.widening_k == 0:
            raise ValueError("widening='reward' needs widening_k > 0 (widening_k = 0 turns widening off)")


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

    @property
    def further_on(self) -> bool:
        """Whether any further-work option is on (module docstring, "Further work")."""
        return bool(self.pairing or self.ordering != "none" or self.widening_k > 0 or self.sims_per_node > 1
                    or self.rave > 0)

    def config(self, rows: int, cols: int) -> TreeConfig:
        """The kernels' view of the agent's parameters on a rows x cols board."""
        return TreeConfig(simulations=self.simulations, candidates=self.candidate_rule, policy=int(self.policy),
                          expand=self.expand, first=int(self.first_cell(rows, cols)), max_work=int(self.max_work),
                          reward=REWARDS.index(self.reward))

    def further_config(self, rows: int, cols: int) -> FurtherConfig:
        """The kernels' view of the further-work options on a rows x cols board."""
        widening = WIDEN_OFF if self.widening_k == 0 else WIDENINGS.index(self.widening) + 1
        return FurtherConfig(on=int(self.further_on), pairing=int(self.pairing),
                             ordering=ORDERINGS.index(self.ordering), widening=widening,
                             widening_k=float(self.widening_k), widening_alpha=float(self.widening_alpha),
                             sims_per_node=int(self.sims_per_node),
                             rave=float(self.rave), rows=int(rows), cols=int(cols))

    def search_state(self, cells: int, mines: int) -> tuple[SolverState, StateTable, TreeWork, FurtherWork]:
        """The simulations' solver state, the tree (room for one position a simulation,
        cleared each decision), the scratch and the options' scratch, made once per board
        size (and the options' sizes)."""
        ordered = self.ordering != "none" or self.widening_k > 0
        key = (cells, mines, self.simulations, self.pairing, ordered, self.sims_per_node, self.rave > 0)
        if key not in self._search:
            table = StateTable(cells, visits=True, capacity=self.simulations + 2)
            fw = new_further_work(cells, self.simulations, self.pairing, ordered, self.sims_per_node, self.rave > 0,
                                  table.q.shape[0])
            self._search[key] = (new_solver_state(cells, mines), table, new_tree_work(cells, table.words), fw)
        return self._search[key]

    def _decide(self, gs, s, level) -> int:
        """One decision by the search kernel (csp's `decision` calls it)."""
        sim_s, table, work, fw = self.search_state(level.cells, level.mines)
        return tree_decide(gs, s, sim_s, table.arrays(), self.config(level.rows, level.cols), work,
                           self.further_config(level.rows, level.cols), fw, self.rng)

    def _explain_guess(self, gs, s, level, cell) -> str:
        """A searched guess: the root's statistics of the chosen cell (the tree is kept until
        the next decision clears it)."""
        _, table, _, _ = self.search_state(level.cells, level.mines)
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
        sim_s, table, work, fw = self.search_state(rows * cols, mines)
        state = TreeBatch(self.state(rows * cols, mines), sim_s, table.arrays(), self.config(rows, cols), work,
                          self.further_config(rows, cols), fw, np.zeros(1, np.int64),
                          np.zeros(len(TREE_EXTRA), np.int64))
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
