"""`best`: our strongest solver (exact probabilities + one-step lookahead + exact endgame).

Ideas from the strongest published solvers (PSEQ-D256 of Tu et al., D. Hill's solver),
written here from scratch. A decision takes the first of these steps that applies:

1. Opening and certain moves, exactly as `csp`: the first click in the top-left corner;
   every certain-safe cell revealed, every certain mine flagged.
2. Endgame: once at most ENDGAME_LAYOUTS (256; `endgame_layouts` up to 4096) layouts
   remain over at most 128 unrevealed cells, the game tree is searched exhaustively. The
   value of a set S of layouts is 1 if |S| = 1, else the max over cells c of the sum over
   the numbers o that c can show of |S_o| / |S| * value(S_o) (a mine ends the game),
   memoised on S (a bit set keyed by two 64-bit hashes). A cell safe in every layout of S
   takes S's value: what it shows comes free. The search sees one number per reveal, not
   a zero's flood, so its value is a lower bound, and a tight one (the flooded cells are
   safe wherever the zero shows); the play it picks is optimal. A budget of layouts x
   cells scanned, and of cells assigned while the layouts are enumerated, bounds the
   work; past it step 4 decides (`endgame_aborts`). With `endgame_prune`, a cell is
   dropped part-way once the numbers valued so far cannot make it beat the best, and
   with it the sets below it being valued, once their bounds show it cannot: the same
   move wherever the search finishes without it, within the budget more often.
2b. Isolated components (`isolated_edges`, D. Hill's "isolated edge"): a component of
   the frontier whose unrevealed neighbours are all its own cells or known mines, with the
   same mine count in all its solutions, is independent of the rest of the board: no
   reveal elsewhere tells its layouts apart and its own reveals tell nothing of the rest.
   The game is won when both are cleared, so the win probability is their product, and
   the component's optimal move (step 2's search over its layouts alone, at most
   `endgame_layouts`) is played at once (`isolated_edge`).
3. Forced 50/50s, guessed at once: two unknown cells holding one mine that no reveal can
   ever tell apart (a component of two cells with no other unknown neighbour; with
   `wide_fifty_fifty`, any such pair of a number needing one more mine whose other cells
   are next to both or to neither). Every win passes through the guess; taking it first
   loses nothing and shows a number before any other risk is taken.
3b. Pseudo 50/50s (`pseudo_fifty_fifty`, D. Hill's idea): a cell that is a mine only in
   layouts where it is one of the mines of a row pair, column pair or 2x2 box walled in
   by mines (`scan_fifty_fifties`). In each such layout the swapped one shows the same
   numbers and is as likely, so half of them are lost whatever the play: guessing the
   cell now loses exactly that half. Living cells only (a dead cell shows nothing new).
3c. Chains of 50/50s (`chain_fifty_fifty`, after D. Hill's chains of links): the same
   argument where the walls are numbers. Numbers needing one mine among two cells link
   them into chains whose cells alternate between two sides (two chains may be joined by
   a number needing one mine among three cells, a cell of each and a third, or with
   `chain_join_cells` among up to eight, any two in two chains, as D. Hill's pseudo links
   do); where every other cell sees as many cells of one side as of the other, moving the
   mines from one side to the other changes no number (`chain_fifty_fifty`). The number's
   other cells are safe whenever one of the two is a mine, and they too must see both
   sides alike: the argument needs no bound on their count. With `chain_shared_cell`, a
   number needing one mine among three cells also links two of them where the third, e,
   is safe; the chains of such links (for each e in turn) are tried the same way: where
   their side A holds all the structure's mines, e is safe and B holds none, so the swap
   is the same exchange. A living cell that is a mine only where its side holds all of
   the structure's mines is guessed; among several, the best by step 4's secondary score.
   With `sure_mines`, the certain mines of the position's solve count as known before
   steps 2-5 (`csp` flags them only beside a certain safe cell, so at a guess they are
   otherwise unknown cells, and the walls of steps 3 and 3b do not see them).
4. Otherwise a guess among the safest cells, each candidate c looked at one step ahead:
   for each number v it can show, the position with c revealed as v is solved exactly,
   giving P(v | c safe), whether that position has a certain safe cell ("progress"), and
   the safety of its best next guesses. `guess_rule` ranks the candidates within
   `margin` of the least mine probability (at most MAX_CANDIDATES, in the order of step 5):
   - "secondary" (default, D. Hill's secondary safety; margin 0.1): the highest
         P(c safe) * E_v[blended next safety | c safe] * (1 + progress_weight * P(progress | c safe))
     with Hill's progress weight 0.001 (progress only breaks near-ties) and his long-term
     risk (below) on,
     where the blended next safety of a position is (4 s1 + s2) / 5 of its two safest
     living cells (a certain safe cell counts 1; a dead cell, whose number is already
     determined, tells nothing). A candidate that can show one number only is taken only
     when every candidate is dead; candidates stop once one's bound cannot beat the best.
     A cell off the frontier (no revealed neighbour) is a candidate only when its safety
     is at least (1 - `float_cut`) of the best (float_cut 0.05, Hill's off-edge threshold).
   - "blend": the highest P(c safe) * (1 + progress_weight * P(progress | c safe)) (the
     options table plays it with progress_weight 0.1).
   - "pseq" (the tie-break PSEQ is described with): the highest probability of progress,
     then the most expected certain cells, then the highest entropy of the number shown,
     then the safer cell.
   - "two-step": the highest P(c safe) * sum_v P(v | c safe) * (1 if progress else best
     next safety), the chance to survive this guess and the next.
   Options of the secondary rule: `long_term_risk` (default Hill's weight 0.9; 0: off)
   lowers a candidate's mine probability by that weight times its 50/50 influence
   (`cell_influence`: the chance it is a mine of a pattern of step 3b whose enablers, at
   most LTR_MISSING unknown, are all mines), since such a cell would be guessed at 1/2
   later anyway; `dominance=True` reveals a safer cell b instead of the chosen c when b is
   certain safe whatever c shows (b first survives exactly when c does, and shows more);
   `safest_next=True` (D. Hill's dominating tile) reveals a safer cell b instead of c when,
   whatever c shows, b is then the single safest living cell (b would be the next guess);
   `dead_by_numbers=True` counts a cell dead one step ahead also when its uncertain
   neighbours are exactly a revealed number's other uncertain cells (their mine count is
   fixed, so the cell's number is too; D. Hill's solver finds such cells dead).
5. The candidates and their order among equally safe cells. `tie_order="hill"` (default)
   takes D. Hill's candidates: every cell on the frontier, and off it only the cells his
   solver looks at (all of them when fewer than HILL_FEW_OFF are off the frontier; else
   those two cells from a number in its row or column, the whole ring of cells two away
   where the mines left are more than 2/5 of the covered cells, and those with two or three
   covered neighbours that are not certain mines); equally safe, frontier cells come first,
   then cells with fewer neighbours, then the closest. With no such candidate, every cell
   is one. "corners" takes every cell, those with fewer neighbours first (corners, then
   edges: the likeliest to show a 0 and open an area), then the closest to the revealed
   area; "frontier" takes every cell, the closest first (HCSP's rule).
6. A decision memo: the guess is a pure function of the position, so a position met
   again (early ones recur) gets the guess made the first time, checked cell by cell and
   looked up before the position is solved (a hit skips the solve too); positions with
   at most MEMO_REVEALED (16) revealed cells are kept, in as many slots as a few MB hold
   (`memo_slots`). It changes no move.

What each technique is worth, paired on the same boards (the default against the default
with the technique turned off), is the ablation table of `minelab.studies.strength`
(`ablation_table`, rows in figures/leaderboard/ablation_table*.csv); what the options off
by default are worth is its options table (`options_table`, figures/leaderboard/
options_table*.csv); the final win rates of the defaults on fresh seeds are
`final_win_rates` (figures/leaderboard/final_win_rates*.csv), beside PSEQ-D256's and
D. Hill's published ones in the leaderboard notebook.

The kernel `best_decide(gs, s, x, cfg, rng)` runs the steps in turn: `opening_or_certain`
(1, shared with csp), `endgame_decision` (2), `isolated_edge` (2b), `forced_fifty_fifty`
(3), `scan_fifty_fifties` (3b), `chain_fifty_fifty` (3c), `lookahead_guess` (4); s is csp's
`SolverState`, x the `BestBuffers`, cfg the `BestSettings`. Only the endgame search
allocates (its stack); its memo of set values (`SetMemo`, open addressing over two 64-bit
hashes of a set, emptied by a generation count rather than cleared) and the decision memo
(`memo_find` / `memo_store`) live in the buffers.
"""
from __future__ import annotations

import zlib
import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ..cells import COVERED, REVEAL
from ..engine import (
    NO_DEAL_WORK,
    SP_COLS,
    SP_MINES,
    SP_ROWS,
    ST_DEALT,
    ST_STATUS,
    kernel,
    neighbour_counts,
    open_cell,
    without_deal_work,
)
from ..probability import (
    CERTAIN_MINE,
    CERTAIN_SAFE,
    DEFAULT_MAX_WORK,
    NOT_RECOUNTED,
    OK,
    STAT_COMPONENTS,
    STAT_FALLBACKS,
    STAT_LOG_LAYOUTS,
    UNCERTAIN,
    Workspace,
    new_workspace,
    number_need,
    recount_with_mines,
    solve_kernel,
    step,
    untouched_joint,
)
from .base import register
from .batch import extra_index, hook, hooks, play_games
from .spec import choice, flag, integer, number
from .why import at, num
from .csp import (
    DC_ABORT,
    DC_GUESS,
    DC_STEP,
    CSPAgent,
    CSPParams,
    SolverState,
    apply_decision,
    frontier_distance,
    next_pending,
    opening_or_certain,
    solver_begin,
    take_decision,
)

ENDGAME_LAYOUTS = 256  # the most layouts the exact endgame search takes by default
FLOAT_CUT = 0.05  # an off-frontier candidate needs 95% of the best safety (D. Hill's off-edge threshold)
MAX_ENDGAME_LAYOUTS = 4096  # the most it can be given (endgame_layouts): 64 words of 64 bits
ENDGAME_CELLS = 128  # and the most unrevealed cells
ENDGAME_BUDGET = 2_000_000  # (layouts x cells) scanned per endgame decision: a few ms at most
N_OUTCOMES = 10  # numbers 0..8, then a mine
MINE_OUTCOME = 9
SET_SLOTS = 1 << 15  # the endgame search's memo of set values (a power of two); it stops taking new ones at 3/4
MAX_CANDIDATES = 12
MEMO_SLOTS = 4096  # positions the decision memo holds at least (a power of two); it stops taking new ones at 3/4
MEMO_MAX_SLOTS = 1 << 15  # and at most: as many as fit MEMO_BYTES on the board (`memo_slots`)
MEMO_BYTES = 1 << 22  # the most bytes its positions take (a byte a cell for the view, one for the known and certain)
MEMO_REVEALED = 16  # only positions with at most this many revealed cells are memoised (they recur)
GUESS_TWO_STEP = 0
GUESS_PSEQ = 1
GUESS_BLEND = 2
GUESS_SECONDARY = 3
ORDER_CORNERS = 1
ORDER_FRONTIER = 0
ORDER_HILL = 2
TIE_ORDERS = {"hill": ORDER_HILL, "corners": ORDER_CORNERS, "frontier": ORDER_FRONTIER}  # the first is the default
HILL_FEW_OFF = 30  # "hill": with fewer off-frontier cells than this, every one is a candidate
# "hill": the cells two away from a number that may be guessed off the frontier: in its row
# and column, or (where the mines left are more than 2/5 of the covered cells) the whole ring
HILL_OFFSETS = np.array([(2, 0), (-2, 0), (0, 2), (0, -2)], np.int64)
HILL_OFFSETS_DENSE = np.array([(dr, dc) for dr in range(-2, 3) for dc in range(-2, 3) if max(abs(dr), abs(dc)) == 2],
                              np.int64)
GUESS_RULES = ("two-step", "pseq", "blend", "secondary")  # indices are the kernel's codes
GUESS_STEPS = ("lookahead", "endgame", "fifty-fifty", "pseudo", "isolated", "chain")  # DC_STEP indexes it
STEP_LOOKAHEAD, STEP_ENDGAME, STEP_FIFTY_FIFTY, STEP_PSEUDO, STEP_ISOLATED, STEP_CHAIN = range(6)
SCORE_TOLERANCE = 1e-12
REPLACED_DOMINANCE, REPLACED_SAFEST_NEXT = range(2)  # why lookahead_guess swapped its guess (x.replaced[1])
NEXT_WEIGHTS = (4.0, 1.0)  # secondary: the next position's safety, (4 s1 + s2) / 5 of its two safest living cells


class SetMemo(NamedTuple):
    """The endgame search's memo: value of a set of layouts, keyed by two 64-bit hashes of
    the set (open addressing). A slot is in use only when its generation is the current
    one, so a new search starts with an empty memo without clearing it."""

    key1: np.ndarray  # uint64[SET_SLOTS]
    key2: np.ndarray  # uint64[SET_SLOTS]
    value: np.ndarray  # float64[SET_SLOTS]
    gen: np.ndarray  # int64[SET_SLOTS] the search that filled the slot
    meta: np.ndarray  # int64[2] the current search's generation, and its entries


def new_set_memo() -> SetMemo:
    return SetMemo(key1=np.zeros(SET_SLOTS, np.uint64), key2=np.zeros(SET_SLOTS, np.uint64),
                   value=np.zeros(SET_SLOTS, np.float64), gen=np.zeros(SET_SLOTS, np.int64),
                   meta=np.zeros(2, np.int64))


class BestBuffers(NamedTuple):
    """`best`'s buffers beyond csp's `SolverState` (build with `new_best_buffers`)."""

    look: Workspace  # the lookahead's solves
    next_view: np.ndarray  # int8[n] the position with a candidate revealed
    candidates: np.ndarray  # int64[n] the cells a guess may take
    ucells: np.ndarray  # int64[ENDGAME_CELLS] endgame: the unrevealed cells
    layouts: np.ndarray  # int8[MAX_ENDGAME_LAYOUTS, ENDGAME_CELLS] [l, q] = 1 when ucells[q] holds a mine in layout l
    outcome: np.ndarray  # int8[MAX_ENDGAME_LAYOUTS, ENDGAME_CELLS] [l, q] = what ucells[q] shows in layout l
    pos: np.ndarray  # int64[n] scratch: index in ucells of a cell, else -1
    assign: np.ndarray  # int8[n] layout search: 0 / 1 per ucells entry, -1 unset
    con_need: np.ndarray  # int64[n] layout search: mines each number still needs
    con_free: np.ndarray  # int64[n] and its neighbours not yet assigned
    keys: np.ndarray  # float64[n] sort keys of the candidates
    ranked: np.ndarray  # int64[n] the candidates' order: candidates[ranked[t]] is the t-th
    merge_tmp: np.ndarray  # int64[n] scratch of the sort
    common: np.ndarray  # int64[n] lookahead: for how many numbers of the candidate each cell is certain safe
    sets: SetMemo  # the endgame search's memo
    replaced: np.ndarray  # int64[2] the last guess: the cell the rule chose when another replaced it, else -1; and why
    safest_next: np.ndarray  # int64[1] lookahead_score: the single safest living cell next whatever it shows, else -1
    memo_key: np.ndarray  # uint64[slots] hash of a memoised position (0: empty slot); slots: `memo_slots`
    memo_view: np.ndarray  # int8[slots, n] the position, compared in full on a hit
    memo_known: np.ndarray  # uint8[slots, n] and the agent's certain mines, | the solve's certain cells << 1
    memo_move: np.ndarray  # int64[slots, 4] its guess, DC_STEP, DC_ABORT and the solve's fallbacks
    memo_meta: np.ndarray  # int64[3] entries; the board's columns and the settings' tag they were made with
    ltr_known: np.ndarray  # uint8[n] long-term risk: the known mines with a pattern's cells added
    ltr_cells: np.ndarray  # int64[16] the cells added
    ltr_pattern: np.ndarray  # int64[4] a pattern's cells
    ltr_enablers: np.ndarray  # int64[6] and its enablers
    ltr_enabler: np.ndarray  # float64[n] the board scan's influence of each enabler
    ltr_scan: np.ndarray  # float64[n] and of each cell of its likelier patterns, enablers too
    ltr_w: np.ndarray  # float64[3 n] each pattern's weight here (by kind, first cell); NaN: not yet, -2: none
    ltr_meta: np.ndarray  # int64[1] the mines not yet known
    chain_parent: np.ndarray  # int64[n] 50/50 chains: union-find over the cells of one-mine pairs
    chain_parity: np.ndarray  # int64[n] a cell's side relative to its parent (0 same, 1 other)
    chain_mark: np.ndarray  # int64[n] a candidate's cells: 1 one side, 2 the other, else 0
    chain_count: np.ndarray  # int64[n] scratch: a cell's neighbours on one side minus the other
    chain_bad: np.ndarray  # int64[n] per chain's root: 1 when the chain has an odd cycle
    chain_cells: np.ndarray  # int64[MAX_CHAIN_JOIN_CELLS] a number's cells not yet known
    chain_cond: np.ndarray  # int64[n] per chain's root: 1 when it holds a conditional link
    chain_two: np.ndarray  # int64[n, 2] the cells of each number needing one mine among two
    chain_three: np.ndarray  # int64[n, 3] and among three
    chain_wide: np.ndarray  # int64[n, MAX_CHAIN_JOIN_CELLS] the cells of each number needing one mine among 3+
    chain_wide_k: np.ndarray  # int64[n] how many cells each of those has
    chain_in_three: np.ndarray  # int64[n] 1 for a cell of a number needing one mine among three


def memo_slots(cells: int) -> int:
    """The decision memo's slots on a board of `cells` cells: the most that keep its positions
    within MEMO_BYTES, a power of two from MEMO_SLOTS to MEMO_MAX_SLOTS (small boards, whose
    early positions recur most, get the most)."""
    slots = MEMO_SLOTS
    while 2 * slots <= MEMO_MAX_SLOTS and 2 * slots * 2 * cells <= MEMO_BYTES:
        slots *= 2
    return slots


def new_best_buffers(cells: int, mines: int) -> BestBuffers:
    """`BestBuffers` for boards of `cells` cells with `mines` mines."""
    slots = memo_slots(cells)
    return BestBuffers(
        look=new_workspace(cells, mines),
        next_view=np.zeros(cells, np.int8),
        candidates=np.zeros(cells, np.int64),
        ucells=np.zeros(ENDGAME_CELLS, np.int64),
        layouts=np.zeros((MAX_ENDGAME_LAYOUTS, ENDGAME_CELLS), np.int8),
        outcome=np.zeros((MAX_ENDGAME_LAYOUTS, ENDGAME_CELLS), np.int8),
        pos=np.full(cells, -1, np.int64),
        assign=np.zeros(cells, np.int8),
        con_need=np.zeros(cells, np.int64),
        con_free=np.zeros(cells, np.int64),
        keys=np.zeros(cells, np.float64),
        ranked=np.zeros(cells, np.int64),
        merge_tmp=np.zeros(cells, np.int64),
        common=np.zeros(cells, np.int64),
        replaced=np.full(2, -1, np.int64),
        safest_next=np.full(1, -1, np.int64),
        sets=new_set_memo(),
        memo_key=np.zeros(slots, np.uint64),
        memo_view=np.zeros((slots, cells), np.int8),
        memo_known=np.zeros((slots, cells), np.uint8),
        memo_move=np.zeros((slots, 4), np.int64),
        memo_meta=np.zeros(3, np.int64),
        ltr_known=np.zeros(cells, np.uint8),
        ltr_cells=np.zeros(16, np.int64),
        ltr_pattern=np.zeros(4, np.int64),
        ltr_enablers=np.zeros(6, np.int64),
        ltr_enabler=np.zeros(cells, np.float64),
        ltr_scan=np.zeros(cells, np.float64),
        ltr_w=np.full(3 * cells, np.nan),
        ltr_meta=np.zeros(1, np.int64),
        chain_parent=np.zeros(cells, np.int64),
        chain_parity=np.zeros(cells, np.int64),
        chain_mark=np.zeros(cells, np.int64),
        chain_count=np.zeros(cells, np.int64),
        chain_bad=np.zeros(cells, np.int64),
        chain_cells=np.zeros(MAX_CHAIN_JOIN_CELLS, np.int64),
        chain_cond=np.zeros(cells, np.int64),
        chain_two=np.zeros((cells, 2), np.int64),
        chain_three=np.zeros((cells, 3), np.int64),
        chain_wide=np.zeros((cells, MAX_CHAIN_JOIN_CELLS), np.int64),
        chain_wide_k=np.zeros(cells, np.int64),
        chain_in_three=np.zeros(cells, np.int64),
    )


class BestSettings(NamedTuple):
    """`best`'s parameters, as the kernels take them (see `BestAgent`)."""

    first: int  # flat index of the opening click
    max_work: int  # search nodes per component before the local estimate
    endgame_layouts: int  # the most layouts the endgame search takes
    endgame_budget: int  # (layouts x cells) it may scan per decision, and cells its layout enumeration assigns
    endgame_prune: bool  # drop a cell part-way once it cannot beat the best (`endgame_move`'s prune)
    max_candidates: int  # cells looked at one step ahead
    guess_rule: int  # GUESS_TWO_STEP, GUESS_PSEQ, GUESS_BLEND or GUESS_SECONDARY
    progress_weight: float  # blend, secondary: the score's factor (1 + progress_weight * P(progress | safe))
    margin: float  # pseq, blend, secondary: candidates within this of the least mine probability
    float_cut: float  # secondary: an off-frontier cell needs safety >= (1 - float_cut) x the best (1: off)
    tie_order: int  # ORDER_HILL, ORDER_CORNERS or ORDER_FRONTIER
    fifty_fifty: bool  # step 3 on (False: a forced 50/50 is left to the lookahead, for the ablation)
    wide_fifty_fifty: bool  # step 3 also takes pairs with unrevealed neighbours that no reveal can tell apart
    dominance: bool  # secondary: a safer cell that is safe whenever the chosen one is, is taken instead
    long_term_risk: float  # secondary: a candidate's 50/50 influence counts this much as safety (0: off)
    pseudo_fifty_fifty: bool  # step 3b: a cell that is a mine only where it is in an unresolvable 50/50 is guessed
    isolated_edges: bool  # step 2b: an isolated component with a fixed mine count is played by the exact search
    chain_fifty_fifty: bool  # step 3c: a cell that is a mine only in one state of a chain of 50/50s is guessed
    chain_join_cells: int  # step 3c: the most cells of a number needing one mine that joins two chains
    chain_shared_cell: bool  # step 3c: also chains whose links hold where a cell their numbers share is safe
    sure_mines: bool  # at a guess, the solve's certain mines join the known ones before steps 2-5
    dead_by_numbers: bool  # secondary: a cell whose uncertain neighbours are a number's other ones is dead
    safest_next: bool  # secondary: a safer cell that is the single safest next whatever the chosen one shows goes first
    memo_revealed: int  # memoise guesses in positions with at most this many revealed cells (0: off)
    memo_tag: int  # a digest of the settings above: a memo made under other settings is dropped


# ------------------------------------------------------------------ endgame search
@kernel
def _popcount(x):
    """The number of set bits of a uint64."""
    c = 0
    while x:
        x &= x - np.uint64(1)
        c += 1
    return c


@step
def enumerate_layouts(view, known, remaining, nbr, nbr_count, x, n_u, max_layouts, max_nodes):
    """All layouts of `remaining` mines over the n_u unrevealed cells x.ucells[:n_u] that
    agree with the numbers: x.layouts[l, q] = 1 when ucells[q] holds a mine in layout l.
    Returns their count, or -1 when there are more than max_layouts or the search passes
    max_nodes cells assigned. (Cells are assigned in board order, so few layouts can still
    take a long search: many cells touching no number, with constrained ones after them,
    are tried in every combination before a number rules them out.)"""
    ucells = x.ucells
    assign = x.assign
    con_need = x.con_need
    con_free = x.con_free
    n = view.shape[0]
    for i in range(n):
        con_need[i] = 0
        con_free[i] = 0
        if view[i] >= 0:
            con_need[i], con_free[i] = number_need(view, known, nbr, nbr_count, i)
    count = 0
    d = 0
    mines_left = remaining
    cells_left = n_u
    for q in range(n_u):
        assign[q] = -1
    nodes = 0
    # iterative depth-first search: assign[d] in {0, 1} for ucells[d], -1 = not set
    while d >= 0:
        nodes += 1
        if nodes > max_nodes:
            return -1
        if d == n_u:
            if count >= max_layouts:
                return -1
            for q in range(n_u):
                x.layouts[count, q] = assign[q]
            count += 1
            d -= 1
            continue
        cell = ucells[d]
        a0 = assign[d]
        if a0 >= 0:  # undo the current value before trying the next
            for a in range(nbr_count[cell]):
                j = nbr[cell, a]
                if view[j] >= 0:
                    con_need[j] += a0
                    con_free[j] += 1
            mines_left += a0
            cells_left += 1
        nxt = a0 + 1
        placed = False
        while nxt <= 1:
            ok = 0 <= mines_left - nxt <= cells_left - 1  # the global count still fits
            if ok:
                for a in range(nbr_count[cell]):
                    j = nbr[cell, a]
                    if view[j] >= 0:
                        need = con_need[j] - nxt
                        if need < 0 or need > con_free[j] - 1:
                            ok = False
                            break
            if ok:
                placed = True
                break
            nxt += 1
        if not placed:
            assign[d] = -1
            d -= 1
            continue
        assign[d] = nxt
        for a in range(nbr_count[cell]):
            j = nbr[cell, a]
            if view[j] >= 0:
                con_need[j] -= nxt
                con_free[j] -= 1
        mines_left -= nxt
        cells_left -= 1
        d += 1
    return count


@step
def layout_outcomes(view, known, nbr, nbr_count, x, n_u, n_layouts):
    """x.outcome[l, q] = what cell x.ucells[q] shows under layout l (MINE_OUTCOME = a mine)."""
    ucells = x.ucells
    pos = x.pos
    layouts = x.layouts
    for q in range(n_u):
        pos[ucells[q]] = q
    for lay in range(n_layouts):
        for q in range(n_u):
            if layouts[lay, q]:
                x.outcome[lay, q] = MINE_OUTCOME
                continue
            cell = ucells[q]
            k = 0
            for a in range(nbr_count[cell]):
                j = nbr[cell, a]
                if view[j] < 0 and (known[j] or layouts[lay, pos[j]]):
                    k += 1
            x.outcome[lay, q] = k
    for q in range(n_u):
        pos[ucells[q]] = -1


class Frames(NamedTuple):
    """The endgame search's stack: one frame per depth d, valuing a set of layouts."""

    S: np.ndarray  # uint64[depth, words] the frame's layout set (bit l: layout l)
    members: np.ndarray  # int64[depth, layouts] its layouts
    total: np.ndarray  # int64[depth] how many
    mines_at: np.ndarray  # int64[depth, n_u] layouts with a mine at each cell
    order: np.ndarray  # int64[depth, n_u] cells, safest first
    parts: np.ndarray  # uint64[depth, N_OUTCOMES, words] the set split by what the valued cell shows
    counts: np.ndarray  # int64[depth, N_OUTCOMES] sizes of the parts
    r: np.ndarray  # int64[depth] position in order of the cell being valued
    o: np.ndarray  # int64[depth] next outcome of that cell
    acc: np.ndarray  # float64[depth] sum over its valued outcomes of |S_o| * value(S_o)
    best: np.ndarray  # float64[depth] best value so far
    best_q: np.ndarray  # int64[depth] its cell (index into ucells), -1 for none
    sig: np.ndarray  # uint64[depth, n_u] hash of what each cell shows across the members
    seen: np.ndarray  # uint64[depth, n_u] hashes of the cells already valued (n_seen of them)
    n_seen: np.ndarray  # int64[depth]
    bucket: np.ndarray  # int64[layouts + 2] scratch of the counting sort of the cells


@njit(cache=True)
def _new_frames(depth_max, n_u, n_layouts):
    """Allocate the endgame search's stack (`Frames`) for sets of n_layouts layouts."""
    words = (n_layouts + 63) >> 6
    return Frames(
        S=np.zeros((depth_max, words), np.uint64),
        members=np.empty((depth_max, n_layouts), np.int64),
        total=np.zeros(depth_max, np.int64),
        mines_at=np.empty((depth_max, n_u), np.int64),
        order=np.empty((depth_max, n_u), np.int64),
        parts=np.empty((depth_max, N_OUTCOMES, words), np.uint64),
        counts=np.empty((depth_max, N_OUTCOMES), np.int64),
        r=np.zeros(depth_max, np.int64),
        o=np.zeros(depth_max, np.int64),
        acc=np.zeros(depth_max, np.float64),
        best=np.zeros(depth_max, np.float64),
        best_q=np.zeros(depth_max, np.int64),
        sig=np.empty((depth_max, n_u), np.uint64),
        seen=np.empty((depth_max, n_u), np.uint64),
        n_seen=np.zeros(depth_max, np.int64),
        bucket=np.zeros(n_layouts + 2, np.int64),
    )


@kernel
def _members(S, out):
    """Layout indices in the bit set S (64 layouts a word) -> out[:k]; returns k."""
    k = 0
    for w in range(S.shape[0]):
        x = S[w]
        while x:
            low = x & (~x + np.uint64(1))
            out[k] = w * 64 + _popcount(low - np.uint64(1))
            k += 1
            x ^= low
    return k


@kernel
def _split(members, total, q, outcome, parts, counts):
    """Partition the layouts members[:total] by what cell q shows: parts[o] (bit sets), counts[o]."""
    for o in range(N_OUTCOMES):
        counts[o] = 0
        for w in range(parts.shape[1]):
            parts[o, w] = 0
    for t in range(total):
        lay = members[t]
        o = outcome[lay, q]
        parts[o, lay >> 6] |= np.uint64(1) << np.uint64(lay & 63)
        counts[o] += 1


@kernel
def _set_key(S):
    """The memo's key of the layout set S: two independent 64-bit hashes of its words
    (FNV-1a and a multiply-xorshift), so two different sets meet one key with
    probability about 2^-128: never, in any run this project makes."""
    h1 = np.uint64(14695981039346656037)
    h2 = np.uint64(0x9E3779B97F4A7C15)
    for w in range(S.shape[0]):
        x = S[w]
        h1 = (h1 ^ x) * np.uint64(1099511628211)
        h2 = (h2 ^ (x + np.uint64(w))) * np.uint64(0xBF58476D1CE4E5B9)
        h2 ^= h2 >> np.uint64(31)
    h1 ^= h1 >> np.uint64(29)  # FNV's low bits see only the words' low bits: mix the high ones in (the slot)
    h1 *= np.uint64(0x94D049BB133111EB)
    h1 ^= h1 >> np.uint64(32)
    return h1, h2


@kernel
def _memo_get(m, h1, h2):
    """The memoised value of the set with key (h1, h2), -1.0 when there is none."""
    mask = np.uint64(SET_SLOTS - 1)
    slot = h1 & mask
    cur = m.meta[0]
    while m.gen[slot] == cur:
        if m.key1[slot] == h1 and m.key2[slot] == h2:
            return m.value[slot]
        slot = (slot + np.uint64(1)) & mask
    return -1.0


@kernel
def _memo_put(m, h1, h2, value):
    """Memoise a set's value (nothing once the memo is 3/4 full: the search goes on, slower)."""
    if 4 * (m.meta[1] + 1) > 3 * SET_SLOTS:
        return
    mask = np.uint64(SET_SLOTS - 1)
    slot = h1 & mask
    cur = m.meta[0]
    while m.gen[slot] == cur:
        slot = (slot + np.uint64(1)) & mask
    m.gen[slot] = cur
    m.key1[slot] = h1
    m.key2[slot] = h2
    m.value[slot] = value
    m.meta[1] += 1


@kernel
def _open_frame(f, d, n_u, outcome):
    """Fill frame d for the layout set f.S[d]: its members, its cells safest first, and a
    hash of what each cell shows across the members (cells that show the same in
    every layout split S alike, so only the first of them is valued); no cell valued
    yet, no best."""
    total = _members(f.S[d], f.members[d])
    f.total[d] = total
    for q in range(n_u):
        f.mines_at[d, q] = 0
        f.sig[d, q] = np.uint64(14695981039346656037)
    for t in range(total):
        lay = f.members[d, t]
        for q in range(n_u):
            o = outcome[lay, q]
            if o == MINE_OUTCOME:
                f.mines_at[d, q] += 1
            f.sig[d, q] = (f.sig[d, q] ^ np.uint64(o + 1)) * np.uint64(1099511628211)
    # cells by mines_at, ties in cell order: a stable counting sort (mines_at <= total)
    bucket = f.bucket
    for v in range(total + 2):
        bucket[v] = 0
    for q in range(n_u):
        bucket[f.mines_at[d, q] + 1] += 1
    for v in range(1, total + 2):
        bucket[v] += bucket[v - 1]
    for q in range(n_u):
        v = f.mines_at[d, q]
        f.order[d, bucket[v]] = q
        bucket[v] += 1
    f.n_seen[d] = 0
    f.r[d] = 0
    f.best[d] = -1.0
    f.best_q[d] = -1


@kernel
def _next_cell(f, d, n_u, outcome):
    """Move frame d to its next cell worth valuing: safe in some layout, safer than the
    best value so far (a reveal's value is at most its safety), not showing the same as
    a cell already valued, and informative (splits the set). Splits the set by it and
    returns False; True when no cell is left (the frame is done)."""
    total = f.total[d]
    while f.r[d] < n_u:
        q = f.order[d, f.r[d]]
        safe = total - f.mines_at[d, q]
        if safe == 0 or safe / total <= f.best[d]:
            return True
        twin = False
        h = f.sig[d, q]
        for x in range(f.n_seen[d]):
            if f.seen[d, x] == h:
                twin = True
                break
        if twin:
            f.r[d] += 1
            continue
        f.seen[d, f.n_seen[d]] = h
        f.n_seen[d] += 1
        _split(f.members[d], total, q, outcome, f.parts[d], f.counts[d])
        for x in range(N_OUTCOMES):
            if 0 < f.counts[d, x] < total:  # informative
                f.o[d] = 0
                f.acc[d] = 0.0
                return False
        f.r[d] += 1
    return True


@kernel
def _later_layouts(counts, o):
    """The layouts of a cell's safe numbers from o on (the mine's part, last, is lost)."""
    rest = 0
    for t in range(o, N_OUTCOMES - 1):
        rest += counts[t]
    return rest


@kernel
def _cannot_beat(counts, o, acc, total, best):
    """Whether a cell whose numbers before o add up to acc (sum of |S_o| value(S_o)) can
    no longer beat the frame's best: even were every layout of its numbers from o on won
    (a value is at most 1), its value would be at most best. A cell that ties the best
    never replaces it, so dropping such a cell changes neither the cell nor the value."""
    return (acc + _later_layouts(counts, o)) / total <= best


@kernel
def _past_cell(f, d, n_u):
    """Move frame d past the cell it was valuing: to the next one, or to the end when that
    cell is safe in every layout (its value is the set's, valued or beaten)."""
    q = f.order[d, f.r[d]]
    f.r[d] = n_u if f.mines_at[d, q] == 0 else f.r[d] + 1


@kernel
def _cut_level(f, d, n_u):
    """The shallowest frame p < d whose cell being valued can no longer beat p's best, now
    that frame d has picked its next cell; -1 for none. Bounds go up the stack: frame d's
    value is at most the larger of its best and that cell's safety (cells come safest
    first); a frame's cell being valued is at most its numbers valued so far, plus the
    number being valued at the bound of the frame below, plus its later numbers all won
    (`_cannot_beat`); and the frame's value at most the larger of its best, that bound and
    the safety of its next cell in order."""
    q = f.order[d, f.r[d]]
    bound = max(f.best[d], (f.total[d] - f.mines_at[d, q]) / f.total[d])
    cut = -1
    for p in range(d - 1, -1, -1):
        total = f.total[p]
        o = f.o[p]
        cell = (f.acc[p] + f.counts[p, o] * bound + _later_layouts(f.counts[p], o + 1)) / total
        if cell <= f.best[p]:
            cut = p
        bound = max(f.best[p], cell)
        if f.r[p] + 1 < n_u:
            bound = max(bound, (total - f.mines_at[p, f.order[p, f.r[p] + 1]]) / total)
    return cut


# It allocates (its stack) and is called from kernels, which compile a plain
# njit callee without NRT too: so NRT is asked for explicitly.
@njit(cache=True, _nrt=True)
def endgame_move(n_u, outcome, n_layouts, ucells, budget, sets, prune=False):
    """(cell, win probability) of the optimal reveal when the n_layouts layouts are
    equally likely; cell -1 when more than `budget` (layouts x cells) would be scanned.

    value(S) = 1 if |S| = 1, else max over cells q of sum over numbers o of
    |S_o| / |S| * value(S_o); memoised on S. Cells are tried safest first and a frame
    stops when no cell's safety can beat its best value (a reveal's value is at most
    its safety), or once it has valued a cell safe in every layout of S (that cell's
    value is S's). With `prune`, a cell is also dropped part-way, as soon as the numbers
    valued so far plus the layouts of those left (each worth at most 1) cannot beat the
    frame's best, or as soon as a frame below it picks a cell and the bounds up the stack
    (`_cut_level`) show that the cell cannot beat its frame's best whatever the frames
    below are worth: the same cell and value, with fewer sets valued, so fewer searches
    run out of budget. Written as an explicit stack: numba's cache cannot hold recursion.
    """
    sets.meta[0] += 1  # a new generation: the memo starts empty
    sets.meta[1] = 0
    # each level keeps a strict subset, and values a cell no level above it valued (a
    # valued cell shows one number across each of its parts): depth <= min(layouts, cells)
    f = _new_frames(min(n_layouts, n_u) + 2, n_u, n_layouts)
    words = f.S.shape[1]
    S = f.S
    o = f.o
    acc = f.acc
    counts = f.counts
    for lay in range(n_layouts):
        S[0, lay >> 6] |= np.uint64(1) << np.uint64(lay & 63)
    d = np.int64(0)  # not a literal: that would compile the frame kernels once more
    _open_frame(f, d, n_u, outcome)
    budget -= f.total[0] * n_u
    need_cell = True  # frame d must pick its next cell to value
    while True:
        if need_cell and _next_cell(f, d, n_u, outcome):
            value = max(0.0, f.best[d])
            if d == 0:
                if f.best_q[0] < 0:
                    return -1, 0.0
                return ucells[f.best_q[0]], value
            h1, h2 = _set_key(S[d])
            _memo_put(sets, h1, h2, value)
            d -= 1  # back to the parent: add this child's share
            acc[d] += counts[d, o[d]] * value
            o[d] += 1
        elif need_cell and prune and d > 0:
            cut = _cut_level(f, d, n_u)
            if cut >= 0:  # the frames below it are left unvalued (not memoised), its cell dropped
                d = cut
                _past_cell(f, d, n_u)
                continue
        need_cell = False
        # the outcomes of the cell order[d, r[d]]: sets of 0 or 1 layouts and memoised
        # ones add directly; the first other one is valued on a new frame
        pushed = False
        if prune and _cannot_beat(counts[d], o[d], acc[d], f.total[d], f.best[d]):
            _past_cell(f, d, n_u)  # dropped: as after valuing it, but it is no better
            need_cell = True
            continue
        while o[d] < N_OUTCOMES - 1:
            c = counts[d, o[d]]
            if c == 0:
                o[d] += 1
                continue
            if c == 1:
                acc[d] += 1.0
                o[d] += 1
                continue
            h1, h2 = _set_key(f.parts[d, o[d]])
            known_value = _memo_get(sets, h1, h2)
            if known_value >= 0.0:
                acc[d] += c * known_value
                o[d] += 1
                if prune and _cannot_beat(counts[d], o[d], acc[d], f.total[d], f.best[d]):
                    break
                continue
            for w in range(words):
                S[d + 1, w] = f.parts[d, o[d], w]
            d += 1
            _open_frame(f, d, n_u, outcome)
            budget -= f.total[d] * n_u
            if budget < 0:
                return -1, 0.0
            pushed = True
            break
        if pushed:
            need_cell = True
            continue
        # every outcome of this cell is valued
        v = acc[d] / f.total[d]
        q = f.order[d, f.r[d]]
        if v > f.best[d] + SCORE_TOLERANCE:
            f.best[d] = v
            f.best_q[d] = q
        # a cell safe in every layout: its value is the set's (what it shows comes free,
        # so no play does better than revealing it first), and the frame is done
        _past_cell(f, d, n_u)
        need_cell = True


# ------------------------------------------------------------------ the decision
# A kernel, not a step: the batch loop, the rollouts and Python all call this one compiled
# function. Inlined, numba would compile the whole decision again inside each caller, and
# inlining it into the batch loop alone takes several times its own compile time.
@kernel
def best_decide(gs, s, x, cfg, rng):
    """One decision of `best` on game gs: s.moves[:k]; returns k, -1 when inconsistent.
    s.decision: DC_GUESS = 1 for a guess, DC_STEP the step that chose it (STEP_*),
    DC_ABORT = 1 when the endgame search ran out of budget."""
    s.decision[DC_GUESS] = 0
    s.decision[DC_STEP] = STEP_LOOKAHEAD
    s.decision[DC_ABORT] = 0
    x.replaced[0] = -1  # set by lookahead_guess when dominance or safest_next swaps its guess
    key, slot, free = memo_find(gs, s.known, x, cfg)
    if slot >= 0:  # a position met before: its guess again (every step below is deterministic)
        return memo_replay(gs, s, x, cfg, slot)
    k = opening_or_certain(gs, s, cfg.first, cfg.max_work)  # 1. opening, certain moves
    if k != 0:
        return k
    s.decision[DC_GUESS] = 1
    s.moves[0, 0] = REVEAL
    if cfg.sure_mines:
        see_sure_mines(gs, s)
    cell = endgame_decision(gs, s, x, cfg)  # 2.
    if cell < 0 and cfg.isolated_edges:
        cell = isolated_edge(gs, s, x, cfg)  # 2b.
    if cell < 0 and cfg.fifty_fifty:
        cell = forced_fifty_fifty(gs, s, cfg.wide_fifty_fifty)  # 3.
        if cell >= 0:
            s.decision[DC_STEP] = STEP_FIFTY_FIFTY
    if cell < 0 and (cfg.pseudo_fifty_fifty or cfg.long_term_risk > 0.0):
        cell = scan_fifty_fifties(gs, s, x, cfg.pseudo_fifty_fifty)  # 3b., and the enablers' influence
        if cell >= 0:
            s.decision[DC_STEP] = STEP_PSEUDO
    if cell < 0 and cfg.chain_fifty_fifty:
        cell = chain_fifty_fifty(gs, s, x, cfg)  # 3c.
        if cell >= 0:
            s.decision[DC_STEP] = STEP_CHAIN
    if cell < 0:
        cell = lookahead_guess(gs, s, x, cfg)  # 4.
    s.moves[0, 1] = cell
    if free >= 0:
        memo_store(s, x, key, free, cell)
    return 1


@step
def see_sure_mines(gs, s):
    """The solve's certain mines into s.known (sure_mines): flagged only beside a certain
    safe cell, so a guess sees them here."""
    for i in range(gs.shown.shape[0]):
        if s.ws.certain[i] == CERTAIN_MINE and gs.shown[i] < 0:
            s.known[i] = 1


# ------------------------------------------------------------------ the decision memo
# The guess is a pure function of the position (the view and the agent's certain mines,
# s.known, as the decision starts) and the settings, so a position met again, in this game
# or a later one, gets the guess made the first time. The memo is looked up before the
# position is solved, so a hit skips the solve too; a slot keeps what the solve leaves
# behind that is read after it: its certain cells (sure_mines reads them) and its fallback
# count (the record counts it). Positions whose decision is certain moves are not kept
# (they would take slots from guesses, whose decision costs far more). Early positions
# recur (after the opening click shows a number there are only a few), late ones almost
# never: only positions with at most cfg.memo_revealed revealed cells are kept. A hit is
# checked cell by cell, never by hash alone, so play is exactly the same with the memo off
# (memo_revealed=0).
@kernel
def _position_hash(view, known):
    """FNV-1a of the view and the certain mines, never 0 (0 marks an empty slot)."""
    h = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    for i in range(view.shape[0]):
        h = (h ^ np.uint64(view[i] + 16 + 32 * known[i])) * prime
    return h if h != 0 else np.uint64(1)


@kernel
def _same_position(x, slot, view, known):
    for i in range(view.shape[0]):
        if x.memo_view[slot, i] != view[i] or (x.memo_known[slot, i] & 1) != known[i]:
            return False
    return True


@kernel
def memo_find(gs, known, x, cfg):
    """(key, slot, free): the position's hash key (0 when it is not memoised: nothing or
    too many cells revealed, or the memo is off), its slot on a hit (else -1), and on a
    miss the empty slot its guess would go to (-1 when the memo takes no more), which is
    given the position now: memo_store makes it live, else it stays empty."""
    view = gs.shown
    revealed = 0
    for i in range(view.shape[0]):
        if view[i] >= 0:
            revealed += 1
    if revealed == 0 or revealed > cfg.memo_revealed:
        return np.uint64(0), -1, -1
    if x.memo_meta[1] != gs.spec[SP_COLS] or x.memo_meta[2] != cfg.memo_tag:
        # made on another board shape (same cells and mines) or under other settings: start afresh
        x.memo_key[:] = 0
        x.memo_meta[0] = 0
        x.memo_meta[1] = gs.spec[SP_COLS]
        x.memo_meta[2] = cfg.memo_tag
    key = _position_hash(view, known)
    slots = x.memo_key.shape[0]
    mask = slots - 1
    slot = np.int64(key & np.uint64(mask))
    while x.memo_key[slot] != 0:
        if x.memo_key[slot] == key and _same_position(x, slot, view, known):
            return key, slot, -1
        slot = (slot + 1) & mask
    if 4 * (x.memo_meta[0] + 1) > 3 * slots:  # it stops taking positions at 3/4 full
        return key, -1, -1
    for i in range(view.shape[0]):
        x.memo_view[slot, i] = view[i]
        x.memo_known[slot, i] = known[i]
    return key, -1, slot


@kernel
def memo_store(s, x, key, slot, cell):
    """Keep the guess just made at `slot` (memo_find's free slot, holding its position):
    the solve's certain cells (beside the known mines, a bit up), the guess, its DC_STEP and
    DC_ABORT, the solve's fallbacks; then make it live."""
    certain = s.ws.certain
    for i in range(certain.shape[0]):
        x.memo_known[slot, i] |= np.uint8(certain[i] << 1)
    x.memo_move[slot, 0] = cell
    x.memo_move[slot, 1] = s.decision[DC_STEP]
    x.memo_move[slot, 2] = s.decision[DC_ABORT]
    x.memo_move[slot, 3] = np.int64(s.ws.stats[STAT_FALLBACKS])
    x.memo_key[slot] = key
    x.memo_meta[0] += 1


@kernel
def memo_replay(gs, s, x, cfg, slot):
    """The guess memoised at `slot`, as `best_decide` made it: s.ws.certain and the
    fallback count as its solve left them (nothing else of s.ws is read after a decision;
    sure_mines: the certain mines into s.known), the guess and its flags."""
    certain = s.ws.certain
    for i in range(certain.shape[0]):
        certain[i] = x.memo_known[slot, i] >> 1
    s.ws.stats[STAT_FALLBACKS] = x.memo_move[slot, 3]
    cell = x.memo_move[slot, 0]
    s.decision[DC_GUESS] = 1
    s.decision[DC_STEP] = x.memo_move[slot, 1]
    s.decision[DC_ABORT] = x.memo_move[slot, 2]
    if cfg.sure_mines:
        see_sure_mines(gs, s)
    s.moves[0, 0] = REVEAL
    s.moves[0, 1] = cell
    return 1


@step
def endgame_decision(gs, s, x, cfg):
    """Step 2, the exact endgame: with at most cfg.endgame_layouts layouts over at most
    ENDGAME_CELLS unrevealed cells, the cell `endgame_move` picks (DC_STEP = STEP_ENDGAME), or
    -1 (DC_ABORT set when the search ran out of budget)."""
    view = gs.shown
    known = s.known
    n = view.shape[0]
    n_u = 0
    remaining = gs.spec[SP_MINES]
    for i in range(n):
        if view[i] < 0:
            if known[i]:
                remaining -= 1
            else:
                n_u += 1
    small = n_u <= ENDGAME_CELLS and s.ws.stats[STAT_LOG_LAYOUTS] <= np.log(cfg.endgame_layouts) + 1e-9
    if not small:
        return -1
    q = 0
    for i in range(n):
        if view[i] < 0 and known[i] == 0:
            x.ucells[q] = i
            q += 1
    n_l = enumerate_layouts(view, known, remaining, gs.nbr, gs.nbr_count, x, n_u, cfg.endgame_layouts,
                            cfg.endgame_budget)
    if n_l <= 0:
        if n_l < 0:  # the enumeration passed its bound
            s.decision[DC_ABORT] = 1
        return -1
    layout_outcomes(view, known, gs.nbr, gs.nbr_count, x, n_u, n_l)
    cell, _value = endgame_move(np.int64(n_u), x.outcome, n_l, x.ucells, cfg.endgame_budget, x.sets,
                                cfg.endgame_prune)
    if cell >= 0:
        s.decision[DC_STEP] = STEP_ENDGAME
        return cell
    s.decision[DC_ABORT] = 1
    return -1


@step
def isolated_edge(gs, s, x, cfg):
    """Step 2b: an isolated component is played by the exact search on its own cells.

    A component of the last solve (s.ws) is isolated when every unrevealed neighbour of
    its cells that is not a known mine is one of its cells, and its mine count is the same
    in all its solutions (one non-zero weight by mines; its search exact). Nothing
    revealed elsewhere can then tell its layouts apart, nor can revealing its cells tell
    anything about the rest; its layouts are equally likely, and the game is won only if
    both it and the rest are cleared: the win probability is the product of the two, so
    playing its optimal move now, by `endgame_move` over its layouts alone, loses nothing
    and is what clears it most often. The first such component (in component order) with
    at most cfg.endgame_layouts layouts over at most ENDGAME_CELLS cells is taken; returns
    its cell (DC_STEP = STEP_ISOLATED), or -1 when there is none or its search ran out of
    budget. Scratch: x.merge_tmp (per component: 1 while it may be isolated) and
    x.ranked (per component: its cells), which the lookahead sets anew."""
    view = gs.shown
    nbr = gs.nbr
    nbr_count = gs.nbr_count
    known = s.known
    ws = s.ws
    cell_box = ws.cell_box
    box_comp = ws.box_comp
    n = view.shape[0]
    n_comp = int(ws.stats[STAT_COMPONENTS])
    if n_comp == 0 or ws.stats[STAT_FALLBACKS] > 0.0:
        return -1
    isolated = x.merge_tmp
    size = x.ranked
    for c in range(n_comp):
        isolated[c] = 1
        size[c] = 0
    for i in range(n):
        if view[i] >= 0 or known[i] or cell_box[i] < 0:
            continue
        c = box_comp[cell_box[i]]
        size[c] += 1
        if isolated[c] == 0:
            continue
        for a in range(nbr_count[i]):
            j = nbr[i, a]
            if view[j] < 0 and known[j] == 0 and (cell_box[j] < 0 or box_comp[cell_box[j]] != c):
                isolated[c] = 0
                break
    limit = np.log(cfg.endgame_layouts) + 1e-9
    for c in range(n_comp):
        if isolated[c] == 0 or size[c] > ENDGAME_CELLS or ws.comp_logscale[c] > limit:
            continue
        woff = ws.comp_w_off[c]
        mines = -1
        for m in range(ws.comp_mmax[c] + 1):
            if ws.comp_w[woff + m] > 0.0:
                if mines >= 0:
                    mines = -2  # more than one mine count: the component trades mines with the rest
                    break
                mines = m
        if mines < 0:
            continue
        n_u = 0
        for i in range(n):
            if view[i] < 0 and cell_box[i] >= 0 and box_comp[cell_box[i]] == c:
                if known[i]:
                    mines -= 1  # a certain mine made known after the solve (sure_mines)
                else:
                    x.ucells[n_u] = i
                    n_u += 1
        n_l = enumerate_layouts(view, known, mines, nbr, nbr_count, x, n_u, cfg.endgame_layouts, cfg.endgame_budget)
        if n_l < 2:
            continue
        layout_outcomes(view, known, nbr, nbr_count, x, n_u, n_l)
        cell, _value = endgame_move(np.int64(n_u), x.outcome, n_l, x.ucells, cfg.endgame_budget, x.sets,
                                    cfg.endgame_prune)
        if cell >= 0:
            s.decision[DC_STEP] = STEP_ISOLATED
            return cell
    return -1


@step
def forced_fifty_fifty(gs, s, wide):
    """Step 3: a cell of a component of two cells (so one mine: p = 1/2 each) whose
    cells have no other unrevealed neighbour, so nothing revealed elsewhere can inform
    it; with `wide`, else a cell of any pair no reveal can tell apart (`unresolvable_pair`);
    -1 when there is none. Reads the boxes and components of the last solve (s.ws)."""
    view = gs.shown
    nbr = gs.nbr
    nbr_count = gs.nbr_count
    known = s.known
    ws = s.ws
    cell_box = ws.cell_box
    box_comp = ws.box_comp
    n = view.shape[0]
    for i in range(n):
        if view[i] >= 0 or known[i] or ws.prob[i] != 0.5:
            continue
        comp = box_comp[cell_box[i]]
        cells_in = 0
        for q in range(ws.comp_start[comp], ws.comp_start[comp + 1]):
            cells_in += ws.box_size[ws.comp_boxes[q]]
        if cells_in != 2:
            continue
        isolated = True
        for a in range(nbr_count[i]):
            j = nbr[i, a]
            if view[j] < 0 and known[j] == 0 and (cell_box[j] < 0 or box_comp[cell_box[j]] != comp):
                isolated = False
                break
        if not isolated:
            continue
        for j in range(n):  # the partner's neighbourhood too
            if j != i and view[j] < 0 and known[j] == 0 and cell_box[j] >= 0 and box_comp[cell_box[j]] == comp:
                for a in range(nbr_count[j]):
                    u = nbr[j, a]
                    if u != i and view[u] < 0 and known[u] == 0:
                        isolated = False
                        break
        if isolated:
            return i
    if wide:
        return unresolvable_pair(gs, s)
    return -1


@kernel
def _adjacent(nbr, nbr_count, a, b):
    for t in range(nbr_count[a]):
        if nbr[a, t] == b:
            return True
    return False


@kernel
def _same_watchers(view, known, nbr, nbr_count, a, b):
    """Is every cell next to a (but b) that is not a known mine next to b as well?"""
    for t in range(nbr_count[a]):
        u = nbr[a, t]
        if u == b or (view[u] < 0 and known[u]):
            continue
        if not _adjacent(nbr, nbr_count, u, b):
            return False
    return True


@step
def unresolvable_pair(gs, s):
    """Step 3, wide: two unknown cells a, b holding exactly one mine (the only unknown
    cells of a number that needs one more mine) where every cell but a known mine is next
    to both or to neither. Moving the mine from a to b then changes no number anywhere
    and not the mine count, so no reveal but of a or b can ever tell them apart: the
    pair is a 50/50 that must be guessed sooner or later, and guessing it first loses
    nothing and shows a number that may help elsewhere. Returns a, or -1 when there is
    no such pair (s.known: the certain mines; at a guess no certain safe cell is left)."""
    view = gs.shown
    nbr = gs.nbr
    nbr_count = gs.nbr_count
    known = s.known
    for r in range(view.shape[0]):
        if view[r] <= 0:
            continue
        need = view[r]
        a = -1
        b = -1
        unknown = 0
        for t in range(nbr_count[r]):
            u = nbr[r, t]
            if view[u] >= 0:
                continue
            if known[u]:
                need -= 1
            else:
                unknown += 1
                if a < 0:
                    a = u
                else:
                    b = u
        if unknown != 2 or need != 1:
            continue
        a, b = np.int64(a), np.int64(b)  # not literals (a and b start at -1): one compilation
        if _same_watchers(view, known, nbr, nbr_count, a, b) and _same_watchers(view, known, nbr, nbr_count, b, a):
            return a
    return -1


# ------------------------------------------------------------------ long-term risk
# D. Hill's idea, written here from his description of it: a cell may be one of a pair (or
# a 2x2 box) that would become a 50/50 nothing can resolve, once the cells around it (its
# "enablers") turn out to be mines. In such a layout the cell's mine must be guessed at 1/2
# sooner or later anyway, so taking the cell now costs less than its mine probability says.
# Patterns, for a cell at (r, c), the mine cells first:
#   PAT_ROW: pair (r, c), (r, c + 1); enablers the three cells left of it and the three right
#   PAT_COL: pair (r, c), (r + 1, c); enablers the three cells above and the three below
#   PAT_BOX: (r, c), (r + 1, c + 1) mines, (r, c + 1), (r + 1, c) safe; enablers the four
#            diagonal corners
# With every enabler a mine (or off the board), every cell next to one cell of the pattern is
# next to the other(s) in the same way, so swapping the mines changes no number: an
# unresolvable 50/50. Its weight is the probability of the layouts where the pattern's mine
# cells are mines, its safe cells safe and its enablers mines (inclusion-exclusion over
# counts of the layouts with cells added as mines, `_mines_weight`).
PAT_ROW = 0
PAT_COL = 1
PAT_BOX = 2
LTR_SCALE = 0.9  # D. Hill's weight of a cell's 50/50 influence in its long-term safety
LTR_MISSING = 3  # a candidate's patterns: at most this many enablers not yet known mines
SCAN_MISSING = 1  # the board scan (pseudo 50/50s, enablers): at most one
SCAN_THRESHOLD = 0.025  # an enabler gets a pattern's weight when it is above this


@kernel
def _cell_at(rows, cols, r, c):
    """Flat index of (r, c), -1 off the board."""
    if r < 0 or r >= rows or c < 0 or c >= cols:
        return -1
    return r * cols + c


@kernel
def pattern_cells(rows, cols, kind, r, c, cells, enablers):
    """The pattern `kind` at (r, c): its cells into cells[:k] (mine cells first: 1 of a
    pair, 2 of a box) and its enablers on the board into enablers. Returns (k, enablers),
    k = 0 when the pattern does not fit on the board."""
    k = 0
    e = 0
    if kind == PAT_BOX:
        if r + 1 >= rows or c + 1 >= cols or r < 0 or c < 0:
            return 0, 0
        cells[0] = r * cols + c
        cells[1] = (r + 1) * cols + c + 1
        cells[2] = r * cols + c + 1
        cells[3] = (r + 1) * cols + c
        k = 4
        for dr, dc in ((-1, -1), (-1, 2), (2, -1), (2, 2)):
            j = _cell_at(rows, cols, r + dr, c + dc)
            if j >= 0:
                enablers[e] = j
                e += 1
        return k, e
    dr = 1 if kind == PAT_COL else 0
    dc = 1 - dr
    if r < 0 or c < 0 or r + dr >= rows or c + dc >= cols:
        return 0, 0
    cells[0] = r * cols + c
    cells[1] = (r + dr) * cols + c + dc
    for t in (-1, 0, 1):  # the three cells beyond each end
        for end in (-1, 2):
            j = _cell_at(rows, cols, r + end * dr + t * dc, c + end * dc + t * dr)
            if j >= 0:
                enablers[e] = j
                e += 1
    return 2, e


@step
def _mines_weight(gs, s, x, n_fixed, log_z):
    """Probability of the layouts where x.ltr_cells[:n_fixed] are all mines (beside the
    known ones): the position's count recounted with them mines (`recount_with_mines`,
    only the components they are in searched again), or where that cannot be exact, one
    solve with them added to the known mines; 0 when none fits."""
    # int64 values, not literals: a literal would compile the search once more
    code = recount_with_mines(s.ws, x.look, x.ltr_cells, np.int64(n_fixed), np.int64(DEFAULT_MAX_WORK))
    if code == NOT_RECOUNTED:
        known2 = x.ltr_known
        for i in range(known2.shape[0]):
            known2[i] = s.known[i]
        for t in range(n_fixed):
            known2[x.ltr_cells[t]] = 1
        code = solve_kernel(x.look, gs.shown, known2, gs.spec[SP_MINES], gs.nbr, gs.nbr_count,
                            np.int64(DEFAULT_MAX_WORK))
    if code != OK:
        return 0.0
    return np.exp(x.look.stats[STAT_LOG_LAYOUTS] - log_z)


@step
def pattern_weight(gs, s, x, kind, r, c, max_missing, log_z):
    """(weight, missing enablers, the first of them): the probability that the pattern at
    (r, c) is an unresolvable 50/50 with its mine cells the mines; weight -1 when it does
    not qualify (off the board, a cell revealed or a known mine, an enabler revealed, more
    than max_missing enablers not known mines, or not enough mines left). Weights are kept
    in x.ltr_w for the rest of the decision (`scan_fifty_fifties` clears it)."""
    view = gs.shown
    rows = gs.spec[SP_ROWS]
    cols = gs.spec[SP_COLS]
    cells = x.ltr_pattern
    enablers = x.ltr_enablers
    k, n_e = pattern_cells(rows, cols, kind, r, c, cells, enablers)
    if k == 0:
        return -1.0, 0, -1
    slot = kind * view.shape[0] + cells[0]
    if x.ltr_w[slot] == -2.0:
        return -1.0, 0, -1  # found not to qualify, whatever max_missing
    for t in range(k):
        if view[cells[t]] >= 0 or s.known[cells[t]]:
            x.ltr_w[slot] = -2.0
            return -1.0, 0, -1
    missing = 0
    first = -1
    for t in range(n_e):
        j = enablers[t]
        if view[j] >= 0:
            x.ltr_w[slot] = -2.0
            return -1.0, 0, -1
        if s.known[j] == 0:
            if first < 0:
                first = j
            x.ltr_cells[missing] = j
            missing += 1
    n_mines = 1 if k == 2 else 2
    if missing > max_missing or missing + n_mines > x.ltr_meta[0]:
        return -1.0, 0, -1
    if x.ltr_w[slot] >= 0.0:
        return x.ltr_w[slot], missing, first
    off = True  # every cell of the pattern and every missing enabler touches no number
    for t in range(k):
        off = off and s.ws.cell_box[cells[t]] < 0
    for t in range(missing):
        off = off and s.ws.cell_box[x.ltr_cells[t]] < 0
    if off:  # exchangeable cells: no solve needed
        w = untouched_joint(s.ws, missing + n_mines, k - n_mines)
        x.ltr_w[slot] = w
        return w, missing, first
    base = missing
    for t in range(n_mines):
        x.ltr_cells[base + t] = cells[t]
    base += n_mines
    w = _mines_weight(gs, s, x, base, log_z)
    if w > 0.0:
        # minus the layouts where a safe cell of the pattern is a mine (inclusion-exclusion)
        x.ltr_cells[base] = cells[n_mines]
        w -= _mines_weight(gs, s, x, base + 1, log_z)
        if k == 4:
            x.ltr_cells[base] = cells[3]
            w -= _mines_weight(gs, s, x, base + 1, log_z)
            x.ltr_cells[base] = cells[2]
            x.ltr_cells[base + 1] = cells[3]
            w += _mines_weight(gs, s, x, base + 2, log_z)
    w = max(w, 0.0)
    x.ltr_w[slot] = w
    return w, missing, first


@step
def cell_influence(gs, s, x, cell, p_mine, log_z):
    """The probability that `cell` is a mine of an unresolvable 50/50 once its enablers
    (at most LTR_MISSING still unknown) are mines: the largest weight of the row pairs it
    is in, plus that of the column pairs, plus that of the boxes, plus what the board scan
    gave it as an enabler (x.ltr_enabler); at most min(p_mine, 1 - p_mine)."""
    cols = gs.spec[SP_COLS]
    r = cell // cols
    c = cell % cols
    total = x.ltr_enabler[cell]
    for kind in (PAT_ROW, PAT_COL, PAT_BOX):
        top = 0.0
        n_at = 4 if kind == PAT_BOX else 2
        for t in range(n_at):  # the patterns `cell` is in: it is their first cell, or the one before
            r0 = r
            c0 = c
            if kind == PAT_ROW:
                c0 = c - t
            elif kind == PAT_COL:
                r0 = r - t
            else:
                r0 = r - t // 2
                c0 = c - t % 2
            w, _, _ = pattern_weight(gs, s, x, kind, r0, c0, LTR_MISSING, log_z)
            top = max(top, w)  # by symmetry the weight with `cell` the mine or the safe cell
        total += top
    return min(total, p_mine, 1.0 - p_mine)


@kernel
def _living(view, known, certain, nbr, nbr_count, i):
    """Can revealing cell i tell something: has it an unrevealed neighbour that is neither
    a known mine nor certain?"""
    for a in range(nbr_count[i]):
        j = nbr[i, a]
        if view[j] < 0 and known[j] == 0 and certain[j] == UNCERTAIN:
            return True
    return False


@step
def scan_fifty_fifties(gs, s, x, want_pseudo):
    """The board scan before a lookahead guess: every row pair, column pair and box with at
    most SCAN_MISSING enablers still unknown. A living cell of one whose weight equals the
    cell's mine probability (it is a mine only where the pattern is a 50/50: a "pseudo
    50/50") is returned when want_pseudo: every layout where it is a mine is one of a 50/50 that must be
    guessed sooner or later, so guessing it now loses nothing. Otherwise the missing
    enabler of a pattern more likely than SCAN_THRESHOLD gets the pattern's weight in
    x.ltr_enabler (revealing it safe stops the 50/50 forming), it and the pattern's cells in
    x.ltr_scan (the lookahead looks at them even beyond its margin), and -1 is returned."""
    view = gs.shown
    prob = s.ws.prob
    rows = gs.spec[SP_ROWS]
    cols = gs.spec[SP_COLS]
    log_z = s.ws.stats[STAT_LOG_LAYOUTS]
    left = gs.spec[SP_MINES]
    for i in range(view.shape[0]):
        x.ltr_enabler[i] = 0.0
        x.ltr_scan[i] = 0.0
        if view[i] < 0 and s.known[i]:
            left -= 1
    x.ltr_meta[0] = left  # mines not yet known
    x.ltr_w[:] = np.nan  # no pattern weighed yet in this position
    for kind in (PAT_ROW, PAT_COL, PAT_BOX):
        for r in range(rows):
            for c in range(cols):
                w, missing, first = pattern_weight(gs, s, x, kind, r, c, SCAN_MISSING, log_z)
                if w <= 0.0:
                    continue
                k = 4 if kind == PAT_BOX else 2
                for t in range(k):
                    cell = x.ltr_pattern[t]
                    if want_pseudo and abs(w - prob[cell]) <= 1e-7 * prob[cell] \
                            and _living(view, s.known, s.ws.certain, gs.nbr, gs.nbr_count, cell):
                        return cell
                if w > SCAN_THRESHOLD:
                    for t in range(k):
                        x.ltr_scan[x.ltr_pattern[t]] += w
                    if missing == 1:
                        x.ltr_enabler[first] += w
                        x.ltr_scan[first] += w
    return -1


# ------------------------------------------------------------------ chains of 50/50s
# A number that needs one more mine among exactly two unknown cells links them: one is a
# mine, the other safe. Links that share cells form chains, whose cells alternate between
# two sides; two chains are also joined through a number that needs one mine among three
# cells (up to `chain_join_cells`), one cell of each chain (and the others, safe whenever
# one of those two is a mine). Take
# sides A and B of such a structure with |A| = |B| where every other cell that is not a
# known mine sees as many cells of A as of B. Moving every mine of A onto B (where A holds
# all the mines) then changes no number anywhere and not the mine count: the two layouts
# are equally likely and only a reveal inside A or B can tell them apart. A cell c of A
# that is a mine only in layouts where all of A are mines (P(c) = P(A all mines)) is then
# a mine only in one half of such a pair, a 50/50 that must be guessed sooner or later:
# guessing c now loses exactly those layouts, as any play must lose half of each pair.
# It is step 3b's argument, for walls made of numbers rather than of known mines.
# A conditional link (`chain_shared_cell`): a number needing one mine among three cells,
# e and two others, links the two others wherever e is safe. In a chain holding such
# links, A all mines still leaves B and every such e safe (each link has its mine on A),
# so the exchange is the same; the weight test alone says whether c qualifies.
CHAIN_SIDE = 16  # the most cells a side may have (x.ltr_cells holds the side's mines)
CHAIN_JOIN_CELLS = 3  # the most cells of a joining number by default (chain_join_cells)
MAX_CHAIN_JOIN_CELLS = 8  # a number has at most eight neighbours


@kernel
def _chain_root(parent, parity, a):
    """(root, a's side relative to the root) in the chains' union-find."""
    side = 0
    while parent[a] != a:
        side ^= parity[a]
        a = parent[a]
    return a, side


@kernel
def _mine_for_sure(known, certain, u):
    """A known mine, or one the last solve found certain."""
    return known[u] != 0 or certain[u] == CERTAIN_MINE


@kernel
def _one_mine_cells(view, known, certain, nbr, nbr_count, w, cells, most):
    """For a revealed cell w whose number needs one more mine: its unrevealed neighbours
    that are not mines for sure into cells[:k], returns k; 0 when it needs another count
    or has more than `most` such neighbours (cells: at least `most` long)."""
    need = np.int64(view[w])
    k = 0
    for a in range(nbr_count[w]):
        u = nbr[w, a]
        if view[u] < 0:
            if _mine_for_sure(known, certain, u):
                need -= 1
            elif k < most:
                cells[k] = u
                k += 1
            else:
                return 0
    return k if need == 1 else 0


@step
def _chain_sides(gs, s, x, r1, side1, r2, side2):
    """Mark the cells of chain r1 on side1 and of chain r2 (-1: none) not on side2 as side
    A (x.chain_mark 1), their other cells as side B (2). Returns (|A|, |B|)."""
    n = gs.shown.shape[0]
    n_a = 0
    n_b = 0
    for q in range(n):
        x.chain_mark[q] = 0
        if x.chain_parent[q] < 0:
            continue
        root, side = _chain_root(x.chain_parent, x.chain_parity, q)
        if root == r1:
            a = side == side1
        elif r2 >= 0 and root == r2:
            a = side != side2
        else:
            continue
        x.chain_mark[q] = 1 if a else 2
        if a:
            n_a += 1
        else:
            n_b += 1
    return n_a, n_b


@step
def _chain_twin(gs, s, x):
    """Does every cell outside the marked sides that is not a mine for sure see as many
    cells of side A as of side B (x.chain_mark)?"""
    view = gs.shown
    nbr = gs.nbr
    nbr_count = gs.nbr_count
    n = view.shape[0]
    for u in range(n):
        x.chain_count[u] = 0
    for q in range(n):
        if x.chain_mark[q] == 0:
            continue
        step_ = 1 if x.chain_mark[q] == 1 else -1
        for a in range(nbr_count[q]):
            x.chain_count[nbr[q, a]] += step_
    for u in range(n):
        if x.chain_count[u] != 0 and x.chain_mark[u] == 0 and \
                not (view[u] < 0 and _mine_for_sure(s.known, s.ws.certain, u)):
            return False
    return True


@step
def _chain_pick(gs, s, x, cfg, log_z):
    """Of the living cells of sides A and B whose mine probability is that of their side
    being all mines, the one with the best secondary score (`lookahead_score`, as step 4
    ranks its candidates: D. Hill breaks this tie by secondary safety too), or -1;
    x.chain_mark holds the sides (both of at most CHAIN_SIDE cells)."""
    view = gs.shown
    prob = s.ws.prob
    n = view.shape[0]
    found = x.chain_count  # the qualifying cells (the twin check is done with it)
    n_found = 0
    for mark in (1, 2):
        k = 0
        for q in range(n):
            if x.chain_mark[q] == mark:
                x.ltr_cells[k] = q
                k += 1
        if k > x.ltr_meta[0]:
            continue  # more mines than are left
        w = _mines_weight(gs, s, x, k, log_z)
        if w <= 0.0:
            continue
        for t in range(k):
            c = x.ltr_cells[t]
            if abs(w - prob[c]) <= 1e-7 * prob[c] and _living(view, s.known, s.ws.certain, gs.nbr, gs.nbr_count, c):
                found[n_found] = c
                n_found += 1
    best = -1
    best_score = -1.0
    for t in range(n_found):
        c = found[t]
        p = prob[c]
        _, k0, _, _, secondary, _, _ = lookahead_score(gs, s.known, x, c, p, log_z, prob, cfg, -1.0)
        score = secondary_score(p, secondary, k0, cfg.progress_weight)
        if score > best_score + SCORE_TOLERANCE:
            best_score = score
            best = c
    return best


@kernel
def _chain_link(parent, parity, bad, cond, a, b, conditional):
    """Link a and b (one a mine, the other safe) in the chains' union-find (parent -1: in no
    pair yet); bad[root] 1 once a chain has an odd cycle, cond[root] 1 once it holds a
    conditional link. Returns 1 when the link joined two chains, else 0."""
    for u in (a, b):
        if parent[u] < 0:
            parent[u] = u
    ra, pa = _chain_root(parent, parity, a)
    rb, pb = _chain_root(parent, parity, b)
    if ra == rb:
        if pa == pb:
            bad[ra] = 1
        return 0
    parent[ra] = rb
    parity[ra] = pa ^ pb ^ 1
    bad[rb] |= bad[ra]
    cond[rb] |= cond[ra] | conditional
    return 1


@step
def _chain_numbers(gs, s, x, most):
    """The numbers needing one more mine among two cells (their cells into x.chain_two),
    among three (x.chain_three), and among three to `most` (x.chain_wide, their counts in
    x.chain_wide_k), each in cell order. Returns (how many of each)."""
    view = gs.shown
    cells = x.chain_cells
    n2 = 0
    n3 = 0
    nw = 0
    for w in range(view.shape[0]):
        if view[w] <= 0:
            continue
        k = _one_mine_cells(view, s.known, s.ws.certain, gs.nbr, gs.nbr_count, w, cells, most)
        if k == 2:
            x.chain_two[n2, 0] = cells[0]
            x.chain_two[n2, 1] = cells[1]
            n2 += 1
        elif k >= 3:
            if k == 3:
                for t in range(3):
                    x.chain_three[n3, t] = cells[t]
                n3 += 1
            for t in range(k):
                x.chain_wide[nw, t] = cells[t]
            x.chain_wide_k[nw] = k
            nw += 1
    return n2, n3, nw


@kernel  # not inlined: called from more than one place
def _chain_union(x, n, n2, n3, shared):
    """The chains' union-find (x.chain_parent, x.chain_parity, x.chain_bad, x.chain_cond) of
    the two-cell numbers' links, and with shared >= 0 also the conditional links: each
    three-cell number holding `shared` links its other two cells, which holds wherever
    `shared` is safe. Returns the links that joined two chains."""
    parent = x.chain_parent
    parity = x.chain_parity
    bad = x.chain_bad
    cond = x.chain_cond
    for i in range(n):
        parent[i] = -1
        parity[i] = 0
        bad[i] = 0
        cond[i] = 0
    pairs = 0
    plain, conditional = np.int64(0), np.int64(1)  # not literals: _chain_link compiles once
    for t in range(n2):
        pairs += _chain_link(parent, parity, bad, cond, x.chain_two[t, 0], x.chain_two[t, 1], plain)
    if shared >= 0:
        for t in range(n3):
            c0 = x.chain_three[t, 0]
            c1 = x.chain_three[t, 1]
            c2 = x.chain_three[t, 2]
            if c0 == shared:
                pairs += _chain_link(parent, parity, bad, cond, c1, c2, conditional)
            elif c1 == shared:
                pairs += _chain_link(parent, parity, bad, cond, c0, c2, conditional)
            elif c2 == shared:
                pairs += _chain_link(parent, parity, bad, cond, c0, c1, conditional)
    return pairs


@kernel  # not inlined: called from more than one place
def _chain_try(gs, s, x, cfg, log_z, r1, side1, r2, side2):
    """The structure of chain r1 (joined to chain r2 through the number with side1 and
    side2 its cells' sides; r2 -1: none): its pick (`_chain_pick`) when its sides are
    alike in size (at most CHAIN_SIDE) and every other cell sees them alike, else -1."""
    n_a, n_b = _chain_sides(gs, s, x, r1, side1, r2, side2)
    if n_a == n_b and n_a <= CHAIN_SIDE and _chain_twin(gs, s, x):
        return _chain_pick(gs, s, x, cfg, log_z)
    return -1


@step
def chain_fifty_fifty(gs, s, x, cfg):
    """Step 3c: a cell that is a mine only in one state of a chain of 50/50s (see above), or
    -1. Chains are the union-find of the one-mine pairs (x.chain_parent, -1 for cells in no
    pair; a chain with an odd cycle is dropped); the structures tried are each chain alone,
    each two chains joined through a number that needs one mine among three to
    cfg.chain_join_cells cells, two of them in the two chains, and with
    cfg.chain_shared_cell, for each uncertain cell e of a three-cell number, each chain
    that holds a link of the numbers e shares (`_chain_union`)."""
    view = gs.shown
    known = s.known
    certain = s.ws.certain
    n = view.shape[0]
    parent = x.chain_parent
    parity = x.chain_parity
    bad = x.chain_bad
    n2, n3, nw = _chain_numbers(gs, s, x, cfg.chain_join_cells)
    # int64 values, not literals, for the kernels called here: a literal compiles them again
    n2, n3, no_side, no_chain = np.int64(n2), np.int64(n3), np.int64(0), np.int64(-1)
    log_z = s.ws.stats[STAT_LOG_LAYOUTS]
    if _chain_union(x, n, n2, n3, no_chain) > 0:
        for q in range(n):  # each chain alone
            if parent[q] == q and not bad[q]:
                cell = _chain_try(gs, s, x, cfg, log_z, q, no_side, no_chain, no_side)
                if cell >= 0:
                    return cell
        # two chains through a number needing one mine among three or more cells, one in each
        for i in range(nw):
            k = x.chain_wide_k[i]
            cells = x.chain_wide[i]
            if cfg.chain_join_cells == CHAIN_JOIN_CELLS:  # by default: two cells in chains and a third in none
                in_chains = 0
                for t in range(3):
                    if parent[cells[t]] >= 0:
                        in_chains += 1
                if in_chains != 2:
                    continue
            for t1 in range(k):
                e1 = cells[t1]
                if parent[e1] < 0:
                    continue
                r1, s1 = _chain_root(parent, parity, e1)
                for t2 in range(t1 + 1, k):
                    e2 = cells[t2]
                    if parent[e2] < 0:
                        continue
                    r2, s2 = _chain_root(parent, parity, e2)
                    if r1 == r2 or bad[r1] or bad[r2]:
                        continue
                    cell = _chain_try(gs, s, x, cfg, log_z, r1, s1, r2, s2)
                    if cell >= 0:
                        return cell
    if not cfg.chain_shared_cell:
        return -1
    in_three = x.chain_in_three
    for q in range(n):
        in_three[q] = 0
    for t in range(n3):
        for j in range(3):
            in_three[x.chain_three[t, j]] = 1
    for e in range(n):  # chains with links that hold where e is safe
        if view[e] >= 0 or known[e] or certain[e] != UNCERTAIN:
            continue
        if not in_three[e] or _chain_union(x, n, n2, n3, e) == 0:
            continue
        for q in range(n):
            if parent[q] == q and x.chain_cond[q] and not bad[q]:
                cell = _chain_try(gs, s, x, cfg, log_z, q, no_side, no_chain, no_side)
                if cell >= 0:
                    return cell
    return -1


@step
def candidate_order(gs, s, x, tie_order):
    """The cells a guess may take (unrevealed, not known, not certain mines; with
    ORDER_HILL only D. Hill's candidates, `hill_off_frontier`) into x.candidates[:m], and
    the order to look at them into x.ranked[:m]: mine probability (equal to 1e-9 counts as
    equal), then the tie order (step 5), then distance to the revealed area, then cell
    order. Returns m."""
    view = gs.shown
    nbr_count = gs.nbr_count
    prob = s.ws.prob
    dist = s.dist
    order = x.candidates
    keys = x.keys
    frontier_distance(view, gs.nbr, nbr_count, dist, s.queue)
    hill = tie_order == ORDER_HILL
    m = 0
    if hill:
        looked_at = x.merge_tmp  # per cell, until the sort takes it as its scratch
        hill_off_frontier(gs, s, looked_at)
        for i in range(view.shape[0]):
            if view[i] < 0 and s.known[i] == 0 and prob[i] < 1.0 and (dist[i] < 2 or looked_at[i] != 0):
                order[m] = i
                m += 1
    if m == 0:  # every cell (with ORDER_HILL: there is no candidate of Hill's)
        for i in range(view.shape[0]):
            if view[i] < 0 and s.known[i] == 0 and prob[i] < 1.0:
                order[m] = i
                m += 1
    for t in range(m):
        c = order[t]
        if hill:  # an exact integer key: the probability in 1e-9 steps, then off the frontier, neighbours, distance
            tier = 0 if dist[c] < 2 else 1
            keys[t] = np.round(prob[c] * 1e9) * 1048576.0 + (tier * 16 + nbr_count[c]) * 1024 + min(dist[c], 1023)
        else:
            rank = nbr_count[c] * 1000 if tie_order == ORDER_CORNERS else 0
            keys[t] = np.round(prob[c], 9) + 1e-11 * (rank + min(dist[c], 999))
    stable_argsort(keys, np.int64(m), x.ranked, x.merge_tmp)  # not a literal: one compilation
    return m


@step
def _open_unmined(view, known, prob, i):
    """True for a covered cell that is not a known or certain mine."""
    return view[i] < 0 and known[i] == 0 and prob[i] < 1.0


@step
def hill_off_frontier(gs, s, mark):
    """mark[i] = 1 for the cells off the frontier (s.dist >= 2) that D. Hill's solver
    looks at as guesses, else 0 (see step 5 of the module docstring)."""
    view = gs.shown
    nbr = gs.nbr
    nbr_count = gs.nbr_count
    prob = s.ws.prob
    known = s.known
    dist = s.dist
    n = view.shape[0]
    cols = gs.spec[SP_COLS]
    rows = gs.spec[SP_ROWS]
    covered = 0
    off = 0
    mines_found = 0
    for i in range(n):
        mark[i] = 0
        if _open_unmined(view, known, prob, i):
            covered += 1
            if dist[i] >= 2:
                off += 1
        elif view[i] < 0:
            mines_found += 1
    if off < HILL_FEW_OFF:
        for i in range(n):
            if dist[i] >= 2 and _open_unmined(view, known, prob, i):
                mark[i] = 1
        return
    dense = (gs.spec[SP_MINES] - mines_found) * 5 > covered * 2
    offsets = HILL_OFFSETS_DENSE if dense else HILL_OFFSETS
    for w in range(n):
        if view[w] < 0:
            continue
        witness = False  # a revealed cell with a covered neighbour that is not a mine
        for a in range(nbr_count[w]):
            if _open_unmined(view, known, prob, nbr[w, a]):
                witness = True
                break
        if not witness:
            continue
        r = w // cols
        c = w - r * cols
        for k in range(offsets.shape[0]):
            rr = r + offsets[k, 0]
            cc = c + offsets[k, 1]
            if 0 <= rr < rows and 0 <= cc < cols:
                j = rr * cols + cc
                if dist[j] >= 2 and _open_unmined(view, known, prob, j):
                    mark[j] = 1
    for i in range(n):
        if mark[i] == 0 and dist[i] >= 2 and _open_unmined(view, known, prob, i):
            around = 0
            for a in range(nbr_count[i]):
                if _open_unmined(view, known, prob, nbr[i, a]):
                    around += 1
            if 2 <= around <= 3:
                mark[i] = 1


@kernel
def stable_argsort(keys, m, idx, tmp):
    """idx[:m] = the indices of keys[:m] in increasing order, equal keys in index order
    (np.argsort(keys[:m], kind="mergesort") without allocating): a bottom-up merge
    sort, tmp[:m] its scratch."""
    for i in range(m):
        idx[i] = i
    src = idx
    dst = tmp
    in_tmp = False  # the sorted runs are in tmp
    width = 1
    while width < m:
        lo = 0
        while lo < m:
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            i = lo
            j = mid
            for k in range(lo, hi):
                if j < hi and (i >= mid or keys[src[j]] < keys[src[i]]):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
            lo = hi
        src, dst = dst, src
        in_tmp = not in_tmp
        width *= 2
    if in_tmp:
        for k in range(m):
            idx[k] = tmp[k]


@step
def lookahead_guess(gs, s, x, cfg):
    """Step 4: the guess among the safest cells, at most cfg.max_candidates of them
    looked at one step ahead (`lookahead_score`), by cfg.guess_rule (see the module
    docstring)."""
    prob = s.ws.prob
    log_z = s.ws.stats[STAT_LOG_LAYOUTS]
    exact = s.ws.stats[STAT_FALLBACKS] == 0.0  # exact layout counts: the secondary rule's pruning is safe
    m = candidate_order(gs, s, x, cfg.tie_order)
    best_score = -1.0
    best_cell = x.candidates[x.ranked[0]]
    best_p = prob[best_cell]
    p_min = best_p
    best_key0 = -1.0
    best_key1 = -1.0
    best_key2 = -1.0
    best_dead = False  # secondary: the best so far can show one number only (it tells nothing)
    best_alt = -1  # secondary: the safest cell that is safe whenever the best so far is (-1: none)
    best_next = -1  # secondary: the single safest living cell after the best so far, whatever it shows (-1: none)
    ltr = cfg.guess_rule == GUESS_SECONDARY and cfg.long_term_risk > 0.0  # long-term risk (`cell_influence`)
    evaluated = 0
    for t in range(m):
        c = x.candidates[x.ranked[t]]
        p = prob[c]
        if evaluated >= cfg.max_candidates:
            break
        if cfg.guess_rule == GUESS_TWO_STEP and 1.0 - p <= best_score + SCORE_TOLERANCE:
            break
        if cfg.guess_rule != GUESS_TWO_STEP and p > p_min + cfg.margin:
            if not ltr:
                break
            if p - x.ltr_scan[c] > p_min + cfg.margin:
                continue  # beyond the margin only a cell of the board scan's 50/50s, safe enough in the long term
        p_long = p  # its long-term mine probability (below its mine probability only with long-term risk)
        if ltr:
            p_low = p - cfg.long_term_risk * min(p, 1.0 - p)  # the least its long-term mine probability can be
            if not best_dead and best_score >= 0.0 \
                    and secondary_score(p_low, 1.0, 1.0, cfg.progress_weight) <= best_score + SCORE_TOLERANCE:
                continue  # not even the most influence it can have makes it beat the best
            p_long = p - cfg.long_term_risk * cell_influence(gs, s, x, c, p, log_z)
        if cfg.guess_rule == GUESS_SECONDARY and not best_dead \
                and secondary_score(p_long, 1.0, 1.0, cfg.progress_weight) <= best_score + SCORE_TOLERANCE:
            if ltr:
                continue  # a later cell may have more influence
            break  # its score cannot beat the best (at most its safety, with the bonus)
        if cfg.guess_rule == GUESS_SECONDARY and s.dist[c] >= 2 \
                and 1.0 - p < (1.0 - cfg.float_cut) * (1.0 - p_min) - SCORE_TOLERANCE:
            continue  # off the frontier and not nearly as safe as the safest cell
        # secondary: a candidate is dropped half-way once it cannot beat the best (`lookahead_score`);
        # its score is linear in its safety, so with long-term risk the bound scales by (1 - p) / (1 - p_long)
        bound = -1.0
        if cfg.guess_rule == GUESS_SECONDARY and exact and best_score >= 0.0 and not best_dead:
            bound = best_score + SCORE_TOLERANCE
            if ltr:
                bound *= (1.0 - p) / (1.0 - p_long)
        score, k0, k1, k2, secondary, values, alt = lookahead_score(gs, s.known, x, c, p, log_z, prob, cfg, bound)
        evaluated += 1
        if values < 0:
            continue  # pruned: it cannot beat the best
        if cfg.guess_rule == GUESS_SECONDARY:
            score = secondary_score(p_long, secondary, k0, cfg.progress_weight)
            dead = values <= 1
            if best_score < 0.0 or (best_dead and not dead) or \
                    (dead == best_dead and score > best_score + SCORE_TOLERANCE):
                best_score = score
                best_cell = c
                best_p = p
                best_dead = dead
                best_alt = alt
                best_next = x.safest_next[0]
            continue
        if cfg.guess_rule == GUESS_BLEND:
            score = (1.0 - p) * (1.0 + cfg.progress_weight * k0)
            if score > best_score + SCORE_TOLERANCE:
                best_score = score
                best_cell = c
                best_p = p
            continue
        if cfg.guess_rule == GUESS_PSEQ:
            if _pseq_better(k0, k1, k2, best_key0, best_key1, best_key2):
                best_key0 = k0
                best_key1 = k1
                best_key2 = k2
                best_cell = c
                best_p = p
            continue
        if score > best_score + SCORE_TOLERANCE or (score > best_score - SCORE_TOLERANCE and p < best_p):
            best_score = score
            best_cell = c
            best_p = p
    if cfg.dominance and best_alt >= 0 and prob[best_alt] < best_p - 1e-9:
        x.replaced[0] = best_cell
        x.replaced[1] = REPLACED_DOMINANCE
        return best_alt  # it dominates the chosen cell (see `lookahead_score`)
    if cfg.safest_next and best_next >= 0 and prob[best_next] < best_p - 1e-9 and prob[best_next] <= p_min + cfg.margin:
        x.replaced[0] = best_cell
        x.replaced[1] = REPLACED_SAFEST_NEXT
        return best_next  # the next guess whatever the chosen cell shows, and safer now: taken first
    return best_cell


@kernel
def secondary_score(p_mine, next_safety, p_progress, weight):
    """The secondary rule's score of a candidate: P(safe) * E[blended next safety | safe]
    * (1 + weight * P(progress | safe)). It grows with each argument, so with upper bounds
    for them it bounds the score (the loop's stop, `lookahead_score`'s pruning)."""
    return (1.0 - p_mine) * next_safety * (1.0 + weight * p_progress)


@kernel
def _pseq_better(k0, k1, k2, best0, best1, best2):
    """The pseq order: a higher probability of progress k0, then more expected certain
    cells k1, then a higher entropy k2 (each beyond SCORE_TOLERANCE)."""
    if k0 > best0 + SCORE_TOLERANCE:
        return True
    if k0 > best0 - SCORE_TOLERANCE:
        return k1 > best1 + SCORE_TOLERANCE or (k1 > best1 - SCORE_TOLERANCE and k2 > best2 + SCORE_TOLERANCE)
    return False


@step
def lookahead_score(gs, known, x, cell, p_mine, log_z, prob, cfg, bound):
    """Reveal `cell` (mine probability p_mine; log_z: log layouts of the position) one
    step ahead: for each number v it can show, solve the position with it shown
    (x.look, x.next_view). Returns (P(cell safe) * E[1 if progress else best next
    safety], P(progress | safe), E[certain safe cells | safe], entropy of v | safe,
    E[blended living safety next | safe] (`_next_position`), the numbers v it can show,
    the dominating cell or -1).
    Pruning (bound >= 0, the secondary rule only): after each number, the secondary
    score cannot exceed P(safe) * (E so far + R) * (1 + progress_weight * (P(progress)
    so far + R)), R the probability of the numbers not yet solved (a next safety is at
    most 1); once that is at most `bound` (the best score so far, which a candidate must
    beat) the rest is skipped and the numbers returned are -1. The same move as without
    it while the layout counts are exact (the caller passes bound -1 when the position's
    solve fell back to its local estimate, and a fallback here stops the pruning).
    The dominating cell: of the cells uncertain now (prob: the position's mine
    probabilities) that are certain safe whatever number `cell` shows, i.e. safe in
    every layout where `cell` is safe, the one least likely a mine. Revealing it first
    and then `cell` survives exactly when `cell` alone would (it is a mine only where
    `cell` is), shows both numbers, and may show that `cell` need not be taken: so it
    is at least as good (D. Hill's solver takes it when it is safer)."""
    view = gs.shown
    nbr = gs.nbr
    nbr_count = gs.nbr_count
    view2 = x.next_view
    n = view.shape[0]
    for i in range(n):
        view2[i] = view[i]
    lo = 0
    hi = 0
    for a in range(nbr_count[cell]):
        j = nbr[cell, a]
        if view[j] < 0:
            hi += 1
            if known[j]:
                lo += 1
    log_safe = log_z + np.log(max(1.0 - p_mine, 1e-300))
    acc = 0.0
    p_progress = 0.0
    e_safe = 0.0
    entropy = 0.0
    secondary = 0.0
    values = 0
    solved = 0
    common = x.common
    for i in range(n):
        common[i] = 0
    seen = 0.0  # probability of the numbers solved so far
    x.safest_next[0] = -1
    single = -2  # the single safest living cell of every number solved so far (-2: none solved, -1: not one)
    for v in range(lo, hi + 1):
        if bound >= 0.0 and solved > 0:
            rest = max(0.0, 1.0 - seen) + 1e-9  # a little more: rounding never prunes a winner
            if secondary_score(p_mine, secondary + rest, p_progress + rest, cfg.progress_weight) <= bound:
                return 0.0, 0.0, 0.0, 0.0, 0.0, -1, -1
        view2[cell] = v
        code = solve_kernel(x.look, view2, known, gs.spec[SP_MINES], nbr, nbr_count, cfg.max_work)
        if code != OK:
            continue
        if x.look.stats[STAT_FALLBACKS] != 0.0:
            bound = -1.0  # an estimated count: no bound holds
        solved += 1
        for i in range(n):
            if x.look.certain[i] == CERTAIN_SAFE and view2[i] < 0:
                common[i] += 1
        pv = np.exp(x.look.stats[STAT_LOG_LAYOUTS] - log_safe)
        seen += pv
        if pv > 0.0:
            entropy -= pv * np.log(pv)
            values += 1
        n_safe, best_next, blended, top = _next_position(view2, known, x.look, nbr, nbr_count, cfg.dead_by_numbers)
        if pv > 0.0:
            single = top if single == -2 or single == top else -1
        secondary += pv * blended
        if n_safe > 0:  # progress
            p_progress += pv
            e_safe += pv * n_safe
        if n_safe > 0 or best_next == 0.0:  # best_next == 0: only mines left, the game is won
            acc += pv
        else:
            acc += pv * best_next
    alt = -1
    for i in range(n):
        if solved > 0 and common[i] == solved and i != cell and known[i] == 0 and 0.0 < prob[i] < 1.0 \
                and (alt < 0 or prob[i] < prob[alt]):
            alt = i
    if single >= 0:
        x.safest_next[0] = single
    return (1.0 - p_mine) * acc, p_progress, e_safe, entropy, secondary, values, alt


@step
def _next_position(view2, known, look, nbr, nbr_count, dead_by_numbers):
    """(certain safe cells, best safety of a cell, blended living safety) in the solved
    position `look`. A cell is *living* when it may be safe and its number is not yet
    determined (some unrevealed neighbour is neither a known mine nor certain): a dead
    cell tells nothing when revealed. With `dead_by_numbers`, a cell is also dead when its
    uncertain neighbours are exactly a revealed number's other uncertain cells, whose mine
    count that number fixes (`_dead_by_a_number`; D. Hill's solver finds such cells dead
    too). The blended safety is (4 s1 + s2) / 5 of the two safest living cells (certain
    safe ones count 1): the next move's safety, a little of the one after; 1 when only
    mines are left, the best safety when no cell lives. Fourth: the living cell that is
    strictly the safest, else -1."""
    n_safe = 0
    best_next = 0.0
    s1 = -1.0
    s2 = -1.0
    top = -1
    n_covered = 0
    for i in range(view2.shape[0]):
        if view2[i] < 0 and known[i] == 0:
            if look.certain[i] == CERTAIN_SAFE:
                n_safe += 1
            safety = 1.0 - look.prob[i]
            best_next = max(best_next, safety)
            if look.certain[i] == CERTAIN_MINE:
                continue
            n_covered += 1
            living = False
            for a in range(nbr_count[i]):
                j = nbr[i, a]
                if view2[j] < 0 and known[j] == 0 and look.certain[j] == UNCERTAIN:
                    living = True
                    break
            if not living:
                continue
            if dead_by_numbers and safety > s2 and _dead_by_a_number(view2, known, look.certain, nbr, nbr_count, i):
                continue
            if safety > s1:
                s2 = s1
                s1 = safety
                top = i
            elif safety > s2:
                s2 = safety
    if s2 >= s1 - 1e-12:
        top = -1  # two living cells are as safe
    if n_covered == 0:
        return n_safe, best_next, 1.0, -1  # only mines left: won
    if s1 < 0.0:
        return n_safe, best_next, best_next, -1
    if s2 < 0.0:
        s2 = s1
    w1, w2 = NEXT_WEIGHTS
    return n_safe, best_next, (w1 * s1 + w2 * s2) / (w1 + w2), top


@kernel
def _is_uncertain(view2, known, certain, j):
    """Whether cell j is unrevealed, not a known mine, and neither certain safe nor certain mine."""
    return view2[j] < 0 and known[j] == 0 and certain[j] == UNCERTAIN


@kernel
def _dead_by_a_number(view2, known, certain, nbr, nbr_count, i):
    """Whether some revealed number's uncertain neighbours other than i are exactly cell
    i's uncertain neighbours (i has at least one). Where i is safe, that number fixes how
    many mines they hold, so the number i would show is the same in every layout: i is
    dead. Such a number touches each of them, so it is a revealed neighbour of the first."""
    first = -1
    n_own = 0
    for a in range(nbr_count[i]):
        k = nbr[i, a]
        if _is_uncertain(view2, known, certain, k):
            n_own += 1
            if first < 0:
                first = k
    if first < 0:
        return False
    for b in range(nbr_count[first]):
        j = nbr[first, b]
        if view2[j] < 0:
            continue
        same = 0
        other = False
        for c in range(nbr_count[j]):
            k = nbr[j, c]
            if k == i or not _is_uncertain(view2, known, certain, k):
                continue  # i itself is safe wherever it shows a number
            mine_too = False
            for a in range(nbr_count[i]):
                if nbr[i, a] == k:
                    mine_too = True
                    break
            if not mine_too:
                other = True
                break
            same += 1
        if not other and same == n_own:
            return True
    return False


#: the record columns best adds, in the order of its batch state's `extra`
BEST_EXTRA = ("guesses", "fallbacks", "endgame_moves", "endgame_aborts")
_X_GUESSES, _X_FALLBACKS, _X_ENDGAMES, _X_ABORTS = (extra_index(BEST_EXTRA, f) for f in BEST_EXTRA)


class BestBatch(NamedTuple):
    """best's batch state (minelab.agents.batch): the solver state (with the decision
    being played, s.pending), its buffers and the settings."""

    s: SolverState
    x: BestBuffers
    cfg: BestSettings
    extra: np.ndarray  # int64[len(BEST_EXTRA)]


@hook
def _best_move(state, gs, rng, deal_rng):
    s = state.s
    kind, cell = next_pending(gs, s)
    while cell < 0:
        k = best_decide(without_deal_work(gs), s, state.x, state.cfg, rng)
        if k < 0:
            return np.int64(REVEAL), np.int64(-1)
        state.extra[_X_ENDGAMES] += s.decision[DC_STEP] == STEP_ENDGAME
        state.extra[_X_ABORTS] += s.decision[DC_ABORT]
        take_decision(s, k, state.extra, _X_GUESSES, _X_FALLBACKS)
        kind, cell = next_pending(gs, s)
    return kind, cell


hooks(BestBatch, _best_move, begin_fn=solver_begin)


@kernel
def best_rollouts(gs, layouts, opened, candidates, s, x, cfg, rng, wins):
    """Rollouts from a position: for each layout b (uint8 rows of `layouts`) and candidate
    cell k, the cells `opened` are revealed, then candidates[k], then `best` plays to the
    end; wins[b, k] = 1 when it wins (0 when the candidate is a mine). The mines are
    written into gs only as the board being played, as in any game."""
    st = gs.counters
    for b in range(layouts.shape[0]):
        for i in range(gs.mine.shape[0]):  # the board, once per layout (play never changes it)
            gs.mine[i] = layouts[b, i]
        neighbour_counts(gs.mine, gs.nbr, gs.nbr_count, gs.counts)
        for k in range(candidates.shape[0]):
            wins[b, k] = 0
            if layouts[b, candidates[k]]:
                continue
            gs.shown[:] = COVERED
            st[:] = 0
            st[ST_DEALT] = 1
            for c in opened:
                open_cell(gs, c)
            open_cell(gs, candidates[k])
            s.known[:] = 0
            while st[ST_STATUS] == 0:
                n_moves = best_decide(without_deal_work(gs), s, x, cfg, rng)
                if n_moves < 0:
                    break
                apply_decision(gs, s, n_moves, rng)
            wins[b, k] = st[ST_STATUS] == 1


@dataclass(frozen=True)
class BestParams(CSPParams):
    """best's parameters: csp's, and the settings of the steps in the module docstring."""

    endgame_layouts: int = integer(ENDGAME_LAYOUTS, 0, MAX_ENDGAME_LAYOUTS,
                                   doc="the most layouts the exact endgame search takes (step 2)")
    endgame_budget: int = integer(ENDGAME_BUDGET, 1, doc="layouts x cells scanned per endgame decision (and "
                                                         "cells its layout enumeration assigns)")
    endgame_prune: bool = flag(False, doc="the endgame search drops a cell part-way once it cannot beat the best, "
                                          "also from the sets below it (the same move wherever it finishes "
                                          "without; it runs out of budget less often)")
    max_candidates: int = integer(MAX_CANDIDATES, 1, doc="guesses looked at one step ahead (step 4)")
    guess_rule: str = choice("secondary", GUESS_RULES, doc="how the candidates of a guess are ranked (step 4)")
    margin: float = number(0.1, 0.0, 1.0, doc="candidates within this of the least mine probability")
    progress_weight: float = number(0.001, 0.0, 100.0, doc="the weight of progress in secondary and blend "
                                                             "(D. Hill's 0.001)")
    float_cut: float = number(FLOAT_CUT, 0.0, 1.0, doc="an off-frontier candidate needs (1 - float_cut) of the "
                                                         "best safety")
    tie_order: str = choice("hill", tuple(TIE_ORDERS), doc="the candidates, and their order among equally safe "
                                                             "cells (step 5)")
    fifty_fifty: bool = flag(True, doc="guess forced 50/50s at once (step 3)")
    wide_fifty_fifty: bool = flag(True, doc="forced 50/50s inside a larger number too")
    memo_revealed: int = integer(MEMO_REVEALED, 0, doc="positions with at most this many revealed cells are "
                                                        "memoised (step 6)")
    dominance: bool = flag(True, doc="reveal a safer cell that is safe whatever the chosen one shows")
    long_term_risk: float = number(0.9, 0.0, 1.0, doc="weight of a candidate's 50/50 influence (D. Hill's 0.9; "
                                                       "0: off)")
    pseudo_fifty_fifty: bool = flag(True, doc="guess pseudo 50/50s (step 3b)")
    isolated_edges: bool = flag(False, doc="play an isolated component of a fixed mine count by the exact "
                                           "search (step 2b)")
    chain_fifty_fifty: bool = flag(False, doc="guess a cell that is a mine only in one state of a chain of "
                                              "50/50s (step 3c)")
    chain_join_cells: int = integer(CHAIN_JOIN_CELLS, CHAIN_JOIN_CELLS, MAX_CHAIN_JOIN_CELLS,
                                    doc="step 3c joins two chains through a number needing one mine among "
                                        "at most this many cells (3: a cell of each and a third in no "
                                        "chain; more: any two of its cells in two chains)")
    chain_shared_cell: bool = flag(False, doc="step 3c also takes chains linked by numbers needing one mine among "
                                              "three cells, one of them a cell they share, safe in the "
                                              "structure's layouts")
    sure_mines: bool = flag(False, doc="at a guess, count the solve's certain mines as known (the guess steps "
                                       "see them as walls)")
    dead_by_numbers: bool = flag(False, doc="secondary: a cell whose uncertain neighbours are a revealed number's "
                                            "other uncertain cells counts as dead one step ahead")
    safest_next: bool = flag(False, doc="secondary: reveal first a safer cell that is the single safest living "
                                        "cell next whatever the chosen one shows (D. Hill's dominating tile)")


@register
class BestAgent(CSPAgent):
    """Our strongest solver: exact probabilities, exact endgame search, lookahead guesses."""

    name = "best"
    Params = BestParams
    extra_fields = BEST_EXTRA
    params_are_values = True  # every setting reaches the kernels as a number in BestSettings
    # the settings of best's own steps: their other values run code that only the options
    # playthrough (minelab.playthrough.OPTION_BATCHES) pins
    option_fields = frozenset(f.name for f in dataclasses.fields(BestParams)) - \
        frozenset(f.name for f in dataclasses.fields(CSPParams))

    def __init__(self, seed=None, **params):
        """Parameters: `BestParams` (see the module docstring)."""
        super().__init__(seed, **params)
        self._buffers: dict[tuple[int, int], BestBuffers] = {}

    def buffers(self, cells: int, mines: int) -> BestBuffers:
        """The agent's buffers beyond csp's for boards of `cells` cells with `mines` mines (made once)."""
        key = (cells, mines)
        if key not in self._buffers:
            self._buffers[key] = new_best_buffers(cells, mines)
        return self._buffers[key]

    def settings(self, rows: int, cols: int, memo: bool = True) -> BestSettings:
        """The kernels' view of the agent's parameters on a rows x cols board (memo=False:
        the decision memo off, so the buffers hold the decision's own lookahead)."""
        plays = dict(first=int(self.first_cell(rows, cols)), max_work=int(self.max_work),
                     endgame_layouts=int(self.endgame_layouts), endgame_budget=int(self.endgame_budget),
                     endgame_prune=bool(self.endgame_prune),
                     max_candidates=int(self.max_candidates), guess_rule=GUESS_RULES.index(self.guess_rule),
                     margin=float(self.margin), progress_weight=float(self.progress_weight),
                     float_cut=float(self.float_cut),
                     tie_order=TIE_ORDERS[self.tie_order],
                     fifty_fifty=bool(self.fifty_fifty), wide_fifty_fifty=bool(self.wide_fifty_fifty),
                     dominance=bool(self.dominance), long_term_risk=float(self.long_term_risk),
                     pseudo_fifty_fifty=bool(self.pseudo_fifty_fifty),
                     isolated_edges=bool(self.isolated_edges),
                     chain_fifty_fifty=bool(self.chain_fifty_fifty),
                     chain_join_cells=int(self.chain_join_cells),
                     chain_shared_cell=bool(self.chain_shared_cell),
                     sure_mines=bool(self.sure_mines), dead_by_numbers=bool(self.dead_by_numbers),
                     safest_next=bool(self.safest_next))
        tag = zlib.crc32(repr(sorted(plays.items())).encode())  # the memo's guard against changed settings
        return BestSettings(**plays, memo_revealed=self.memo_revealed if memo else 0, memo_tag=tag)

    def _decide(self, gs, s, level) -> int:
        """One decision by best's kernel (csp's `decision` calls it), the memo off: the
        explanation reads the buffers the decision filled."""
        return best_decide(gs._replace(deal_work=NO_DEAL_WORK), s, self.buffers(level.cells, level.mines),
                           self.settings(level.rows, level.cols, memo=False), self.rng)

    # --- why (explain) -----------------------------------------------------------------
    def _explain_guess(self, gs, s, level, cell) -> str:
        """Which step chose the guess (endgame search, forced 50/50, lookahead) and its numbers."""
        x = self.buffers(level.cells, level.mines)
        cfg = self.settings(level.rows, level.cols)
        where, p = at(cell, level.cols), s.ws.prob[cell]
        step_ = self.guess_step(s)
        if step_ == "endgame":
            n_l, value = _endgame_value(gs, s, x, cfg)
            return (f"endgame search over {n_l} layouts chose {where}: win probability {num(value)} "
                    f"(p(mine) = {num(p)})")
        said = "the endgame search ran out of budget; " if s.decision[DC_ABORT] else ""
        if step_ == "isolated":
            return (f"{said}isolated component: {where} (p(mine) = {num(p)}) is the exact search's move on a group "
                    f"of cells that nothing revealed elsewhere can inform, and whose mine count is fixed: it is "
                    f"the move that clears the group most often, and the group must be cleared to win")
        if step_ == "chain":
            return (f"{said}chain of 50/50s: {where} (p(mine) = {num(p)}) is a mine only where its side of a chain "
                    f"of one-mine pairs holds all the chain's mines, a state that nothing outside the chain can "
                    f"tell from its twin with the mines on the other side: guessed now")
        if step_ == "fifty-fifty":
            return (f"{said}forced 50/50: {where} and its partner hold one mine that nothing revealed elsewhere "
                    f"can tell apart (p(mine) = {num(p)}): guessed now")
        if step_ == "pseudo":
            return (f"{said}pseudo 50/50: {where} (p(mine) = {num(p)}) is a mine only in layouts where it is one of "
                    f"a pair or 2x2 box walled in by mines, a 50/50 nothing can tell apart that must be guessed "
                    f"sooner or later: guessed now")
        return said + self._explain_lookahead(gs, s, x, cfg, cell, where)

    def guess_step(self, s) -> str:
        """Which step made the guess just decided (s: the state the decision filled; its
        s.decision[DC_STEP]): "endgame" (2), "isolated" (2b), "fifty-fifty" (3), "pseudo" (3b),
        "chain" (3c) or "lookahead" (4)."""
        return GUESS_STEPS[int(s.decision[DC_STEP])]

    def _explain_lookahead(self, gs, s, x, cfg, cell, where) -> str:
        """Step 4: the candidates looked at one step ahead (x.candidates / x.ranked of the
        decision) and the chosen cell's lookahead numbers (its `lookahead_score` again)."""
        prob = s.ws.prob
        if x.replaced[0] >= 0:
            other = int(x.replaced[0])
            chose = at(other, int(gs.spec[SP_COLS]))
            if x.replaced[1] == REPLACED_SAFEST_NEXT:
                return (f"guess {where}: p(mine) = {num(prob[cell])}; the secondary rule chose {chose} "
                        f"(p(mine) = {num(prob[other])}), but whatever {chose} shows, {where} is then the single "
                        f"safest living cell, and it is safer now: revealed first (safest next)")
            return (f"guess {where}: p(mine) = {num(prob[cell])}; the secondary rule chose {chose} "
                    f"(p(mine) = {num(prob[other])}), but {where} is safe in every layout where {chose} is safe, "
                    f"so it is a mine only where {chose} is one too: revealed first, it is safer and loses nothing "
                    f"(dominance)")
        m = candidate_order(gs._replace(deal_work=NO_DEAL_WORK), s, x, cfg.tie_order)  # the decision's, again
        order = prob[x.candidates[x.ranked[:m]]]
        p = prob[cell]
        score, progress, certain, _, secondary, values, _ = lookahead_score(
            gs, s.known, x, cell, p, s.ws.stats[STAT_LOG_LAYOUTS], prob, cfg, -1.0)
        said = f"guess {where}: p(mine) = {num(p)} (least {num(order[0])})"
        within = int(np.count_nonzero(order <= order[0] + cfg.margin))  # pseq and secondary say it
        if cfg.guess_rule == GUESS_PSEQ:
            looked = min(cfg.max_candidates, within)
            ahead = f"a certain cell next with probability {num(progress)} (expected certain cells {num(certain)})"
            if looked == 1:
                return f"{said}; the only cell within {num(cfg.margin)} of the least; one step ahead it gives {ahead}"
            return (f"{said}; of the {looked} cells looked at one step ahead ({within} within {num(cfg.margin)} of "
                    f"the least, at most {cfg.max_candidates}), it gives the best chance of {ahead}")
        if cfg.guess_rule == GUESS_SECONDARY:
            dead = " (it can show one number only: every cell looked at can)" if values <= 1 else ""
            p_long, risk = p, ""
            if cfg.long_term_risk > 0.0:
                scan_fifty_fifties(gs, s, x, False)
                influence = cell_influence(gs, s, x, cell, p, s.ws.stats[STAT_LOG_LAYOUTS])
                if influence > 0.0:
                    p_long = p - cfg.long_term_risk * influence
                    risk = (f" (long-term risk: with probability {num(influence)} it is a mine of a 50/50 that could "
                            f"form around it, so its safety counts as {num(1 - p_long)})")
            among = f"of the cells within {num(cfg.margin)} of the least ({within})" if p <= order[0] + cfg.margin \
                else f"of the cells within {num(cfg.margin)} of the least ({within}) and those a 50/50 may form around"
            return (f"{said}; {among}, looked at one step ahead, it has the best chance to survive this guess and "
                    f"the next: P(safe) x next safety "
                    f"{num(secondary)} x (1 + {num(cfg.progress_weight)} x P(certain cell next) {num(progress)})"
                    f" = {num(secondary_score(p_long, secondary, progress, cfg.progress_weight))}{risk}{dead}")
        if cfg.guess_rule == GUESS_BLEND:
            blend = (1 - p) * (1 + cfg.progress_weight * progress)
            return (f"{said}; its score P(safe) x (1 + {num(cfg.progress_weight)} x P(certain cell next)) = "
                    f"{num(blend)} (a certain cell next with probability {num(progress)}) is the best of the cells "
                    f"within {num(cfg.margin)} of the least looked at one step ahead")
        return (f"{said}; its two-step score (survive this guess and the next, progress counting as survival), "
                f"{num(score)}, is the best of the cells looked at one step ahead")

    def batch_state(self, rows: int, cols: int, mines: int) -> BestBatch:
        """The batch loop's state for rows x cols boards with `mines` mines."""
        cells = rows * cols
        return BestBatch(self.state(cells, mines), self.buffers(cells, mines), self.settings(rows, cols),
                         np.zeros(len(BEST_EXTRA), np.int64))

    def play_batch(self, gs, n_games, deal_rng, out):
        """Play n_games games on gs in one kernel call, records into out."""
        spec = gs.spec
        state = self.batch_state(int(spec[SP_ROWS]), int(spec[SP_COLS]), int(spec[SP_MINES]))
        play_games(gs, n_games, deal_rng, self.rng, state, out)


def _endgame_value(gs, s, x, cfg) -> tuple[int, float]:
    """(layouts, win probability) of the endgame search's move just made: its layouts
    enumerated again and `endgame_move` run again on them (the same inputs: x's
    scratch buffers get the same contents), for the explanation."""
    view, known = gs.shown, s.known
    free = np.flatnonzero((view < 0) & (known == 0))
    n_u = len(free)
    x.ucells[:n_u] = free
    remaining = int(gs.spec[SP_MINES]) - int(np.count_nonzero((view < 0) & (known != 0)))
    n_l = enumerate_layouts(view, known, remaining, gs.nbr, gs.nbr_count, x, n_u, cfg.endgame_layouts,
                            cfg.endgame_budget)
    layout_outcomes(view, known, gs.nbr, gs.nbr_count, x, n_u, n_l)
    _, value = endgame_move(n_u, x.outcome, n_l, x.ucells, cfg.endgame_budget, x.sets, cfg.endgame_prune)
    return int(n_l), float(value)
