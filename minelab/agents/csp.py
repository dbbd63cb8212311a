"""Exact-probability solvers: `csp` and `hcsp` (Buffet et al. 2012, Table 1's CSP and HCSP).

Both open in the top-left corner (`first_click="corner"`, the papers' opening; or
"centre", or a (row, col) pair), then at every decision:
1. solve the position exactly (`minelab.probability`; the agent's own flags are its
   certain mines, so they leave the constraints; in interactive play every flag on the
   board is taken as one, and flags that contradict the numbers raise a clear error),
2. if some covered cells are certainly safe, reveal all of them and flag every certain
   mine (one decision, several moves: `act` makes them all, `choose` returns the first),
3. else reveal a covered cell of least mine probability. `csp` breaks ties uniformly
   at random; `hcsp` first prefers cells closest to the revealed area (Chebyshev
   distance to the nearest revealed cell: 1 on the frontier), as Legendre et al.
   (Buffet §2.2), then uniformly at random.

Probabilities within TIE_TOLERANCE of the least count as ties: values that are equal
in exact arithmetic can differ in the last bits after different summation orders.

`hcsp` also takes the other readings of Buffet §2.2's tie rule as named, non-default
options (`frontier`, `metric`, `ties`, and `first_click="random"`); with every option at
its default it runs the very kernel above (`least_probable`), so its moves are unchanged.
The options run `least_probable_variant`: the distance of each tied cell to the nearest
cell of the `frontier` set, in the `metric`, ties left after it broken by `ties`.
See HCSPAgent.

Batch play (`play_batch`) and interactive play run the same `decide` kernel, so they
make the same moves from the same seed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..cells import COVERED, FLAG, FLAGGED, REVEAL
from ..engine import (
    SP_COLS,
    SP_MINES,
    SP_ROWS,
    ST_DEALT,
    ST_STATUS,
    deal_first_click,
    flag_cell,
    kernel,
    open_cell,
    uniform_below,
)
from ..probability import (
    CERTAIN_MINE,
    CERTAIN_SAFE,
    DEFAULT_MAX_WORK,
    OK,
    STAT_FALLBACKS,
    STAT_LOG_LAYOUTS,
    Workspace,
    new_workspace,
    solve_kernel,
    step,
)
from .base import Agent, cell_to_move, register
from .batch import extra_index, hook, hooks, play_games
from .spec import Spec, choice, given, integer
from .why import at, count, layouts, num, opening_where

TIE_TOLERANCE = 1e-9
TIE_RANDOM = 0
TIE_FRONTIER = 1
# hcsp's non-default readings (least_probable_variant): tie_rule = TIE_VARIANT | frontier << 2
# | metric << 4 | ties << 6, with the codes below (TIE_FRONTIER is the all-default reading)
TIE_VARIANT = 2
FRONTIER_REVEALED = 0  # revealed cells showing a number ("uncovered and next to at least one mine")
FRONTIER_CONSTRAINED = 1  # covered cells next to a revealed number (the covered side of the border)
FRONTIER_KNOWN_MINE = 2  # revealed cells next to a mine the agent has deduced (flagged)
METRIC_CHEBYSHEV = 0  # king moves: the 8-neighbourhood that defines "next to"
METRIC_MANHATTAN = 1  # rook steps: the 4-neighbourhood
METRIC_EUCLIDEAN = 2  # straight-line distance between cell centres
TIES_RANDOM = 0  # uniformly at random among the closest
TIES_SCAN = 1  # the first closest cell in row-major scan order (top-left first)
FRONTIERS = {"revealed": FRONTIER_REVEALED, "constrained": FRONTIER_CONSTRAINED, "known-mine": FRONTIER_KNOWN_MINE}
METRICS = {"chebyshev": METRIC_CHEBYSHEV, "manhattan": METRIC_MANHATTAN, "euclidean": METRIC_EUCLIDEAN}
TIES = {"random": TIES_RANDOM, "scan": TIES_SCAN}
RANDOM_FIRST = -1  # Settings.first of first_click="random" (hcsp only): a uniform cell at the opening
# SolverState.decision fields: what the last decision was (1 = yes)
DC_GUESS = 0  # a guess (no certain move)
DC_STEP = 1  # best: the step that chose the guess, an index of best.GUESS_STEPS (0: the lookahead)
DC_ABORT = 2  # best: the endgame search ran out of budget
N_DECISION = 3


class SolverState(NamedTuple):
    """Everything a solver kernel needs besides the game (build with `new_solver_state`)."""

    ws: Workspace  # the probability workspace; ws.prob / ws.certain / ws.stats: the last solve
    known: np.ndarray  # uint8[n] the agent's certain mines (its flags)
    moves: np.ndarray  # int64[2n, 2] (kind, cell) of one decision
    dist: np.ndarray  # int32[n] distance to the revealed area (hcsp's tie rule)
    queue: np.ndarray  # int32[n] BFS queue of that distance
    tied: np.ndarray  # int32[n] the cells tied for least probability
    decision: np.ndarray  # int64[N_DECISION] DC_* fields
    pending: np.ndarray  # int64[2] the decision being played: s.moves[pending[0]:pending[1]] still to play


def new_solver_state(cells: int, mines: int) -> SolverState:
    """A `SolverState` for boards of `cells` cells with `mines` mines."""
    return SolverState(
        ws=new_workspace(cells, mines),
        known=np.zeros(cells, np.uint8),
        moves=np.zeros((2 * cells, 2), np.int64),
        dist=np.zeros(cells, np.int32),
        queue=np.zeros(cells, np.int32),
        tied=np.zeros(cells, np.int32),
        decision=np.zeros(N_DECISION, np.int64),
        pending=np.zeros(2, np.int64),
    )


class Settings(NamedTuple):
    """csp / hcsp's settings, as the kernels take them."""

    tie_rule: int  # TIE_RANDOM or TIE_FRONTIER
    first: int  # flat index of the opening click
    max_work: int  # search nodes per component before the local estimate


@kernel
def frontier_distance(view, nbr, nbr_count, dist, queue):
    """dist[i] = Chebyshev distance from covered cell i to the nearest revealed cell
    (multi-source BFS over the 8-neighbourhood); large when nothing is revealed."""
    n = view.shape[0]
    head = 0
    tail = 0
    for i in range(n):
        if view[i] >= 0:
            dist[i] = 0
            queue[tail] = i
            tail += 1
        else:
            dist[i] = n + 1
    while head < tail:
        i = queue[head]
        head += 1
        for a in range(nbr_count[i]):
            j = nbr[i, a]
            if dist[j] > dist[i] + 1:
                dist[j] = dist[i] + 1
                queue[tail] = j
                tail += 1


@step
def least_probable_cells(view, known, prob, tied):
    """Write into `tied` the covered cells not in `known` whose mine probability is within
    TIE_TOLERANCE of the least; return how many."""
    n = view.shape[0]
    best = 2.0
    for i in range(n):
        if view[i] < 0 and known[i] == 0 and prob[i] < best:
            best = prob[i]
    n_tied = 0
    for i in range(n):
        if view[i] < 0 and known[i] == 0 and prob[i] <= best + TIE_TOLERANCE:
            tied[n_tied] = i
            n_tied += 1
    return n_tied


@step
def keep_closest(tied, n_tied, dist):
    """Keep, in order at the front of `tied`, the first n_tied cells' closest ones by
    `dist`; return how many."""
    closest = dist[tied[0]]
    for t in range(1, n_tied):
        closest = min(closest, dist[tied[t]])
    kept = 0
    for t in range(n_tied):
        if dist[tied[t]] == closest:
            tied[kept] = tied[t]
            kept += 1
    return kept


@step
def least_probable(view, nbr, nbr_count, s, prob, tie_rule, rng):
    """The covered cell not in s.known of least mine probability `prob`, ties broken by
    `tie_rule` (s.dist, s.queue, s.tied are scratch)."""
    tied = s.tied
    n_tied = least_probable_cells(view, s.known, prob, tied)
    if tie_rule == TIE_FRONTIER and n_tied > 1:
        frontier_distance(view, nbr, nbr_count, s.dist, s.queue)
        n_tied = keep_closest(tied, n_tied, s.dist)
    if n_tied == 1:
        return tied[0]
    return tied[uniform_below(rng, n_tied)]


@kernel
def least_probable_variant(view, nbr, nbr_count, cols, s, prob, tie_rule, rng):
    """As least_probable with hcsp's non-default readings (tie_rule >= TIE_VARIANT, see
    its codes): among the cells tied for least probability, keep those closest to the
    `frontier` set in the `metric` (s.dist[cell] = that distance; squared for Euclidean;
    no frontier cell yet: every tied cell is kept), then pick by `ties`. s.queue holds
    the frontier cells (scratch)."""
    n = view.shape[0]
    known = s.known
    tied = s.tied
    n_tied = least_probable_cells(view, known, prob, tied)
    frontier = (tie_rule >> 2) & 3
    metric = (tie_rule >> 4) & 3
    ties = (tie_rule >> 6) & 1
    if n_tied > 1:
        src = s.queue
        n_src = 0
        for i in range(n):
            on = False
            if frontier == FRONTIER_REVEALED:
                on = view[i] > 0
            elif frontier == FRONTIER_CONSTRAINED:  # a flagged mine is on the covered side too
                if view[i] < 0:
                    for a in range(nbr_count[i]):
                        if view[nbr[i, a]] > 0:
                            on = True
                            break
            elif view[i] >= 0:  # FRONTIER_KNOWN_MINE
                for a in range(nbr_count[i]):
                    if known[nbr[i, a]] != 0:
                        on = True
                        break
            if on:
                src[n_src] = i
                n_src += 1
        if n_src > 0:
            dist = s.dist
            for t in range(n_tied):
                c = tied[t]
                r0 = c // cols
                c0 = c % cols
                d = 4 * n * n + 4
                for q in range(n_src):
                    dr = abs(src[q] // cols - r0)
                    dc = abs(src[q] % cols - c0)
                    if metric == METRIC_CHEBYSHEV:
                        m = max(dr, dc)
                    elif metric == METRIC_MANHATTAN:
                        m = dr + dc
                    else:
                        m = dr * dr + dc * dc
                    if m < d:
                        d = m
                dist[c] = d
            n_tied = keep_closest(tied, n_tied, dist)
    if n_tied == 1 or ties == TIES_SCAN:
        return tied[0]
    return tied[uniform_below(rng, n_tied)]


@step
def certain_moves(view, s):
    """Flag every certain mine (s.ws.certain) not yet flagged, then reveal every
    certain-safe cell. Returns the number of moves written to s.moves (rows of
    (kind, cell)); 0 when no cell is certainly safe."""
    known = s.known
    certain = s.ws.certain
    moves = s.moves
    k = 0
    for i in range(view.shape[0]):
        if certain[i] == CERTAIN_MINE and view[i] == COVERED and known[i] == 0:
            moves[k, 0] = FLAG
            moves[k, 1] = i
            k += 1
    n_mines = k
    for i in range(view.shape[0]):
        if certain[i] == CERTAIN_SAFE:
            moves[k, 0] = REVEAL
            moves[k, 1] = i
            k += 1
    return k if k > n_mines else 0


@step
def opening_or_certain(gs, s, first, max_work):
    """The decision steps every solver shares: the opening click `first` while nothing
    is revealed, else solve the position (s.known: the agent's flags) and take every
    certain move. Returns the number of moves written to s.moves, 0 when a guess is
    needed (s.ws then holds the solve), -1 when the position is inconsistent."""
    view = gs.shown
    any_revealed = False
    for i in range(view.shape[0]):
        if view[i] >= 0:
            any_revealed = True
            break
    if not any_revealed:
        s.moves[0, 0] = REVEAL
        s.moves[0, 1] = first  # the opening cell (the top-left corner by default)
        return 1
    code = solve_kernel(s.ws, view, s.known, gs.spec[SP_MINES], gs.nbr, gs.nbr_count, max_work)
    if code != OK:
        return -1
    return certain_moves(view, s)


@step
def csp_decide(gs, s, cfg, rng):
    """One decision on game gs: s.moves[:k] (certain moves, or one guess); returns k, -1
    when inconsistent. s.known = the agent's flags; s.decision[DC_GUESS] = 1 for a guess."""
    s.decision[DC_GUESS] = 0
    first = cfg.first
    if first == RANDOM_FIRST:  # hcsp first_click="random": every cell ties before anything is revealed
        first = 0
        n = gs.shown.shape[0]
        untouched = True
        for i in range(n):
            if gs.shown[i] >= 0:
                untouched = False
                break
        if untouched:
            first = uniform_below(rng, n)
    k = opening_or_certain(gs, s, first, cfg.max_work)
    if k != 0:
        return k
    s.decision[DC_GUESS] = 1
    s.moves[0, 0] = REVEAL
    if cfg.tie_rule < TIE_VARIANT:
        s.moves[0, 1] = least_probable(gs.shown, gs.nbr, gs.nbr_count, s, s.ws.prob, cfg.tie_rule, rng)
    else:
        s.moves[0, 1] = least_probable_variant(gs.shown, gs.nbr, gs.nbr_count, gs.spec[SP_COLS], s, s.ws.prob,
                                               cfg.tie_rule, rng)
    return 1


@step
def next_pending(gs, s):
    """The next move of the decision being played (s.moves[s.pending[0]:s.pending[1]]), as
    (kind, cell), skipping reveals the flood already made (flags go to s.known too);
    (REVEAL, -1) when none is left."""
    view = gs.shown
    pending = s.pending
    while pending[0] < pending[1]:
        q = pending[0]
        pending[0] = q + 1
        kind = s.moves[q, 0]
        cell = s.moves[q, 1]
        if kind == FLAG:
            s.known[cell] = 1
            return kind, cell
        if view[cell] == COVERED:
            return np.int64(REVEAL), cell
    return np.int64(REVEAL), np.int64(-1)


@step
def apply_decision(gs, s, k, deal_rng):
    """Play a decision's moves s.moves[:k] as `next_pending` hands them out (reveals the
    flood already made are skipped; flags go to s.known too); stops at the end of the game."""
    st = gs.counters
    s.pending[0] = 0
    s.pending[1] = k
    kind, cell = next_pending(gs, s)
    while cell >= 0:
        if kind == FLAG:
            flag_cell(gs, cell)
        else:
            if st[ST_DEALT] == 0:
                deal_first_click(gs, cell, deal_rng)
            open_cell(gs, cell)
            if st[ST_STATUS] != 0:
                return
        kind, cell = next_pending(gs, s)


@step
def begin_decisions(s, extra):
    """A new game of a solver family's batch: no flag known, no decision pending, the
    record counters at zero."""
    s.known[:] = 0
    s.pending[:] = 0
    extra[:] = 0


@step
def take_decision(s, k, extra, x_guesses, x_fallbacks):
    """Play decision s.moves[:k] next (`next_pending` hands out its moves), counting it in
    `extra`: at slot x_guesses when it is a guess, at x_fallbacks its solve's fallbacks."""
    extra[x_fallbacks] += int(s.ws.stats[STAT_FALLBACKS])
    s.ws.stats[STAT_FALLBACKS] = 0.0
    extra[x_guesses] += s.decision[DC_GUESS]
    s.pending[0] = 0
    s.pending[1] = k


#: the record columns csp and hcsp add, in the order of their batch state's `extra`
CSP_EXTRA = ("guesses", "fallbacks")
_X_GUESSES, _X_FALLBACKS = (extra_index(CSP_EXTRA, f) for f in CSP_EXTRA)


class CSPBatch(NamedTuple):
    """csp's batch state (minelab.agents.batch): the solver state (with the decision being
    played, s.pending) and the settings."""

    s: SolverState
    cfg: Settings
    extra: np.ndarray  # int64[len(CSP_EXTRA)]


@hook
def solver_begin(state, gs):
    """The start-of-game hook of a solver family whose batch state has the solver state `s`
    and the record counters `extra` (csp, hcsp, best)."""
    begin_decisions(state.s, state.extra)


@hook
def _csp_move(state, gs, rng, deal_rng):
    s = state.s
    kind, cell = next_pending(gs, s)
    while cell < 0:
        k = csp_decide(gs, s, state.cfg, rng)
        if k < 0:
            return np.int64(REVEAL), np.int64(-1)  # inconsistent position: not with the agent's own flags
        take_decision(s, k, state.extra, _X_GUESSES, _X_FALLBACKS)
        kind, cell = next_pending(gs, s)
    return kind, cell


hooks(CSPBatch, _csp_move, begin_fn=solver_begin)


def check_first_click(first_click, names=("corner", "centre")):
    """One of `names` ("corner": the top-left cell, the papers' opening; "centre"), or a
    (row, col) pair; shared by every agent that takes a first click."""
    if isinstance(first_click, str) and first_click in names:
        return first_click
    if (isinstance(first_click, (tuple, list)) and len(first_click) == 2
            and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0 for v in first_click)):
        return (int(first_click[0]), int(first_click[1]))
    said = ", ".join(repr(n) for n in names)
    raise ValueError(f"first_click must be {said} or a (row, col) pair of non-negative integers, got {first_click!r}")


def first_cell_index(first_click, rows: int, cols: int) -> int:
    """The flat index of a checked `first_click` ("corner", "centre" or (row, col)) on a
    rows x cols board; ValueError when the pair is off the board."""
    if first_click == "corner":
        return 0
    if first_click == "centre":
        return (rows // 2) * cols + cols // 2
    r, c = first_click
    if not (0 <= r < rows and 0 <= c < cols):
        raise ValueError(f"first_click {first_click} is off the {rows}x{cols} board")
    return r * cols + c


@dataclass(frozen=True)
class CSPParams(Spec):
    """csp's parameters, shared by every agent built on it."""

    max_work: int = integer(DEFAULT_MAX_WORK, 1, doc="search nodes per component before the local estimate")
    first_click: object = given("corner", check_first_click, "corner, centre or a (row, col) pair",
                                doc="the opening click")


@register
class CSPAgent(Agent):
    """Exact probabilities; certain moves first, else the least probable mine (ties at random)."""

    name = "csp"
    Params = CSPParams
    tie_rule = TIE_RANDOM
    extra_fields = CSP_EXTRA
    _explains = True

    def __init__(self, seed=None, **params):
        """Parameters: see `Params` (CSPParams for csp)."""
        super().__init__(seed)
        self._set_params(params)
        self._states: dict[tuple[int, int], SolverState] = {}

    def first_cell(self, rows: int, cols: int) -> int:
        """The flat index of the opening click on a rows x cols board."""
        return first_cell_index(self.first_click, rows, cols)

    def state(self, cells: int, mines: int) -> SolverState:
        """The agent's buffers for boards of `cells` cells with `mines` mines (made once)."""
        key = (cells, mines)
        if key not in self._states:
            self._states[key] = new_solver_state(cells, mines)
        return self._states[key]

    def settings(self, rows: int, cols: int) -> Settings:
        """The kernels' view of the agent's parameters on a rows x cols board."""
        return Settings(tie_rule=int(self.tie_rule), first=int(self.first_cell(rows, cols)),
                        max_work=int(self.max_work))

    # --- interactive -----------------------------------------------------------------
    def decision(self, game) -> list[tuple[int, int]]:
        """The (kind, cell) moves of the next decision on `game` (nothing is applied)."""
        if game.over:
            raise ValueError("decision() needs a game in progress; this one is over")
        gs = game._gs
        s = self.state(game.level.cells, game.level.mines)
        s.known[:] = gs.shown == FLAGGED  # the agent's flags are its certain mines
        k = self._decide(gs, s, game.level)
        if k < 0:
            raise ValueError("inconsistent position: the flags on the board contradict the numbers")
        self._why = f"{self.name}: {self._explain_decision(gs, s, k, game.level)}"
        return [(int(s.moves[q, 0]), int(s.moves[q, 1])) for q in range(k)]

    # --- why (explain) -----------------------------------------------------------------
    def _explain_decision(self, gs, s, k, level) -> str:
        """Why the decision just made (s.moves[:k], the solve in s.ws) was made."""
        moves = s.moves[:k]
        if not (gs.shown >= 0).any():
            where = opening_where(self.first_click, int(moves[0, 1]), level.rows, level.cols)
            return f"opening click at {where}"
        if not s.decision[DC_GUESS]:
            flags = int(np.count_nonzero(moves[:, 0] == FLAG))
            said = f"{count(k - flags, 'certainly safe cell')} revealed"
            if flags:
                said += f", {count(flags, 'certain mine')} flagged"
            return f"{said} (safe {layouts(s.ws.stats[STAT_LOG_LAYOUTS])})"
        return self._explain_guess(gs, s, level, int(moves[0, 1]))

    def _explain_guess(self, gs, s, level, cell) -> str:
        """A guess by the tie rule: the least mine probability, how many cells tie for it."""
        view, prob = gs.shown, s.ws.prob
        open_ = (view < 0) & (s.known == 0)
        tied = open_ & (prob <= prob[open_].min() + TIE_TOLERANCE)
        n_tied = int(tied.sum())
        said = f"guess {at(cell, level.cols)}: p(mine) = {num(prob[cell])}"
        if n_tied == 1:
            return f"{said}, the least of {count(open_.sum(), 'covered cell')} (no certain move)"
        said += f", the least, tied among {n_tied} cells"
        if self.tie_rule != TIE_FRONTIER:
            return f"{said} (ties broken at random)"
        closest = int(s.dist[tied].min())
        kept = int(np.count_nonzero(tied & (s.dist == closest)))
        if kept == 1:
            return f"{said}; the only one closest to the revealed area (distance {closest})"
        return f"{said}; {kept} of them closest to the revealed area (distance {closest}), chosen at random"

    def _decide(self, gs, s, level) -> int:
        """One decision's moves into s.moves (s.known: the flags); returns their count,
        -1 when inconsistent. A family with its own decision kernel overrides this."""
        return csp_decide(gs, s, self.settings(level.rows, level.cols), self.rng)

    def _choose(self, game):
        """The first move of the next decision."""
        kind, cell = self.decision(game)[0]
        return cell_to_move(kind, cell, game.level)

    def act(self, game):
        """Make every move of the next decision on `game`; returns the moves made."""
        return self.play_moves(game, self.decision(game))

    def play_moves(self, game, moves):
        """Make the (kind, cell) moves of a decision (`decision`) on `game`, skipping
        reveals an earlier reveal's flood already made, until the game ends; returns the
        moves made."""
        made = []
        for kind, cell in moves:
            if kind == REVEAL and game._gs.shown[cell] != COVERED:
                continue  # opened by an earlier reveal's flood
            move = cell_to_move(kind, cell, game.level)
            game.apply(move)
            made.append(move)
            if game.over:
                break
        return made

    # --- batch ---------------------------------------------------------------------
    def play_batch(self, gs, n_games, deal_rng, out):
        """Play n_games games on gs in one kernel call, records into out."""
        spec = gs.spec
        s = self.state(int(spec[SP_ROWS] * spec[SP_COLS]), int(spec[SP_MINES]))
        state = CSPBatch(s, self.settings(int(spec[SP_ROWS]), int(spec[SP_COLS])), np.zeros(len(CSP_EXTRA), np.int64))
        play_games(gs, n_games, deal_rng, self.rng, state, out)


@dataclass(frozen=True)
class HCSPParams(CSPParams):
    """hcsp's parameters (see HCSPAgent)."""

    first_click: object = given("corner", lambda v: check_first_click(v, ("corner", "centre", "random")),
                                "corner, centre, random or a (row, col) pair",
                                doc="the opening click (random: every cell ties, the tie rule picks)")
    frontier: str = choice("revealed", FRONTIERS, doc="what the distance is measured to")
    metric: str = choice("chebyshev", METRICS, doc="the distance")
    ties: str = choice("random", TIES, doc="ties left after the distance: at random or in scan order")


@register
class HCSPAgent(CSPAgent):
    """As csp, ties broken toward the revealed area (Legendre et al.; Buffet's HCSP).

    Buffet et al. §2.2 define the rule in two sentences: among the cells of least mine
    probability, play the one with the smallest "distance to the frontier", where
    "the frontier is defined as the set of locations which are uncovered and next to at
    least one mine". The default reads "uncovered" as revealed (the paper's own "frontier
    between covered locations and uncovered locations"), so the frontier is the revealed
    cells showing a number, and the distance is the Chebyshev one (the 8-neighbourhood
    that defines "next to"); ties left after it are broken at random. That is the
    distance to the nearest revealed cell (the nearest revealed cell of a covered cell
    always shows a number: a revealed 0 has all its neighbours revealed).

    The other readings, each a named non-default option:
    * frontier="constrained": the covered cells next to a revealed number (the paper's
      example calls the candidate cells "uncovered" too); with the Chebyshev metric every
      distance is the default's minus one, the same choice.
    * frontier="known-mine": the revealed cells next to a mine the agent has deduced (its
      flags): "next to at least one mine" read as a known mine.
    * metric="manhattan" (4-neighbourhood steps) or "euclidean" (straight line).
    * ties="scan": the first closest cell in row-major order instead of at random.
    * first_click="random": no fixed opening; with nothing revealed every cell ties, so
      the tie rule picks one uniformly (corner, centre or (row, col) as for csp).
    """

    name = "hcsp"
    Params = HCSPParams
    tie_rule = TIE_FRONTIER

    def __init__(self, seed=None, **params):
        super().__init__(seed, **params)
        codes = (FRONTIERS[self.frontier], METRICS[self.metric], TIES[self.ties])
        # every option at its default: the default kernel (least_probable), moves unchanged
        self.tie_rule = (TIE_FRONTIER if codes == (0, 0, 0)
                         else TIE_VARIANT | codes[0] << 2 | codes[1] << 4 | codes[2] << 6)

    def first_cell(self, rows: int, cols: int) -> int:
        """The flat index of the opening click (RANDOM_FIRST: drawn at the opening)."""
        if self.first_click == "random":
            return RANDOM_FIRST
        return first_cell_index(self.first_click, rows, cols)

    def _explain_decision(self, gs, s, k, level) -> str:
        if self.first_click == "random" and not (gs.shown >= 0).any():
            return f"opening click at {at(int(s.moves[0, 1]), level.cols)} (first_click='random': every cell ties)"
        return super()._explain_decision(gs, s, k, level)

    def _explain_guess(self, gs, s, level, cell) -> str:
        if self.tie_rule == TIE_FRONTIER:
            return super()._explain_guess(gs, s, level, cell)
        view, prob = gs.shown, s.ws.prob
        open_ = (view < 0) & (s.known == 0)
        tied = open_ & (prob <= prob[open_].min() + TIE_TOLERANCE)
        said = f"guess {at(cell, level.cols)}: p(mine) = {num(prob[cell])}"
        if int(tied.sum()) == 1:
            return f"{said}, the least of {count(open_.sum(), 'covered cell')} (no certain move)"
        return (f"{said}, the least, tied among {int(tied.sum())} cells; closest to the {self.frontier} frontier "
                f"({self.metric} distance), then {'scan order' if self.ties == 'scan' else 'at random'}")
