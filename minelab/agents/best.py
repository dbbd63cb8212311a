"""`best`: our strongest solver (exact probabilities + one-step lookahead + exact endgame).

Ideas from the strongest published solvers (PSEQ-D256 of Tu et al., D. Hill's solver),
written here from scratch:

1. Opening in the top-left corner; certain moves first (all certain-safe cells are
   revealed, certain mines flagged), exactly as `csp`.
2. Endgame: once at most ENDGAME_LAYOUTS (256) layouts remain over at most 128
   unrevealed cells, search the game tree exhaustively: the value of a set S of layouts
   is 1 if |S| = 1, else max over cells c of sum over the numbers o that c can show of
   |S_o| / |S| * value(S_o) (a mine ends the game), memoised on S (a 256-bit set).
   The move is the argmax (ties to the safer cell). The search sees one number per
   reveal, not the flood a zero starts, so its value is a lower bound; the play it
   picks is optimal for that model. A budget of layouts x cells scanned bounds the
   work; past it the lookahead below decides (counted in `endgame_aborts`).
3. Forced 50/50: a component of two cells holding exactly one mine, with no unrevealed
   neighbour outside it, can never be resolved by information: it is guessed at once.
4. Otherwise a guess among the safest cells, each candidate c looked at one step
   ahead: for each number v it can show, the position with c revealed as v is solved
   exactly, giving P(v | c safe) (from the layout counts), whether that position has a
   certain safe cell ("progress"), how many, and the safety of its best next guess.
   The default rule, `guess_rule="pseq"` (the tie-break the PSEQ solver is described
   with): among cells within `margin` (0.01) of the least mine probability, the highest
   probability of progress, then the most expected certain cells, then the highest
   entropy of the number shown, then the safer cell.
   The other rule, "two-step", trades safety for information: the score
       P(c safe) * sum_v P(v | c safe) * (1 if progress else best next safety)
   is the chance to survive this guess and the next (progress counts as surviving);
   candidates are taken safest first until a candidate's safety cannot beat the best
   score (the score never exceeds the safety).
   Either way at most MAX_CANDIDATES cells are looked at, in the order below.
5. The order among equally safe cells matters most: `tie_order="corners"` (default)
   takes cells with fewer neighbours first (corners, then edges: the likeliest to show
   a 0 and open an area), then the closest to the revealed area; "frontier" takes the
   closest first (HCSP's rule).

How the defaults were chosen (paired games, the same boards for each variant, seed 11;
the notebooks' figures use other seeds): with the two-step rule, corners vs frontier
order on 8x8x10 was 0.8155 vs 0.8016 (+1.4 points +- 0.4, 40,000 games). With the
corners order, pseq (margin 0.01) vs two-step: 16x16x40 0.7835 vs 0.7770 (+0.65,
30,000 games); 8x8x10 -0.07 +- 0.15, 9x9x10 -0.06 +- 0.08, 16x30x99 -0.2 +- 0.9 (within
noise).
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from ..cells import FLAGGED, REVEAL
from ..engine import SP_COLS, SP_MINES, SP_ROWS, ST_STATUS, begin_game, record_game
from ..probability import CERTAIN_SAFE, DEFAULT_MAX_WORK, OK, Workspace, number_need, solve_kernel
from .base import register
from .csp import CSPAgent, SolverState, apply_decision, certain_moves, frontier_distance

ENDGAME_LAYOUTS = 256  # the most layouts the exact endgame search takes (4 words of 64 bits)
ENDGAME_CELLS = 128  # and the most unrevealed cells
ENDGAME_BUDGET = 2_000_000  # (layouts x cells) scanned per endgame decision: a few ms at most
WORDS = 4
N_OUTCOMES = 10  # numbers 0..8, then a mine
MINE_OUTCOME = 9
SET_TYPE = types.UniTuple(types.uint64, WORDS)  # a set of layouts, the memo's key
MAX_CANDIDATES = 12
GUESS_TWO_STEP = 0
GUESS_PSEQ = 1
ORDER_CORNERS = 1
ORDER_FRONTIER = 0
TIE_ORDERS = ("corners", "frontier")  # the first is the default
GUESS_RULES = ("two-step", "pseq")  # indices are the kernel's codes
SCORE_TOLERANCE = 1e-12


class BestState(SolverState):
    """SolverState plus a second workspace for lookahead solves and endgame buffers."""

    def __init__(self, cells: int, mines: int):
        super().__init__(cells, mines)
        self.stats = np.zeros(8, np.float64)
        self.ws2 = Workspace(cells, mines)
        self.view2 = np.zeros(cells, np.int8)
        self.prob2 = np.zeros(cells, np.float64)
        self.certain2 = np.zeros(cells, np.int8)
        self.stats2 = np.zeros(8, np.float64)
        self.order = np.zeros(cells, np.int64)
        self.ucells = np.zeros(ENDGAME_CELLS, np.int64)  # endgame: the unrevealed cells
        self.layouts = np.zeros((ENDGAME_LAYOUTS, ENDGAME_CELLS), np.int8)
        self.outcome = np.zeros((ENDGAME_LAYOUTS, ENDGAME_CELLS), np.int8)
        self.pos = np.full(cells, -1, np.int64)
        self.assign = np.zeros(cells, np.int8)
        self.con_need = np.zeros(cells, np.int64)
        self.con_free = np.zeros(cells, np.int64)


# ------------------------------------------------------------------ endgame search
@njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - np.uint64(1)
        c += 1
    return c


@njit(cache=True)
def enumerate_layouts(view, known, remaining, nbr, nbr_count, ucells, n_u, assign, con_need, con_free, layouts,
                      max_layouts):
    """All layouts of `remaining` mines over the n_u unrevealed cells ucells[:n_u] that
    agree with the numbers: layouts[l, q] = 1 when ucells[q] holds a mine in layout l.
    Returns their count, or -1 when there are more than max_layouts."""
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
    # iterative depth-first search: assign[d] in {0, 1} for ucells[d], -1 = not set
    while d >= 0:
        if d == n_u:
            if count >= max_layouts:
                return -1
            for q in range(n_u):
                layouts[count, q] = assign[q]
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


@njit(cache=True)
def layout_outcomes(view, known, nbr, nbr_count, ucells, n_u, pos, layouts, n_layouts, outcome):
    """outcome[l, q] = what cell ucells[q] shows under layout l (MINE_OUTCOME = a mine)."""
    for q in range(n_u):
        pos[ucells[q]] = q
    for l in range(n_layouts):
        for q in range(n_u):
            if layouts[l, q]:
                outcome[l, q] = MINE_OUTCOME
                continue
            cell = ucells[q]
            k = 0
            for a in range(nbr_count[cell]):
                j = nbr[cell, a]
                if view[j] < 0 and (known[j] or layouts[l, pos[j]]):
                    k += 1
            outcome[l, q] = k
    for q in range(n_u):
        pos[ucells[q]] = -1


@njit(cache=True)
def _members(S, out):
    """Layout indices in the 256-bit set S (4 words) -> out[:k]; returns k."""
    k = 0
    for w in range(WORDS):
        x = S[w]
        while x:
            low = x & (~x + np.uint64(1))
            out[k] = w * 64 + _popcount(low - np.uint64(1))
            k += 1
            x ^= low
    return k


@njit(cache=True)
def _split(members, total, q, outcome, parts, counts):
    """Partition the layouts members[:total] by what cell q shows: parts[o] (bit sets), counts[o]."""
    for o in range(N_OUTCOMES):
        counts[o] = 0
        for w in range(WORDS):
            parts[o, w] = 0
    for t in range(total):
        l = members[t]
        o = outcome[l, q]
        parts[o, l >> 6] |= np.uint64(1) << np.uint64(l & 63)
        counts[o] += 1


@njit(cache=True)
def _open_frame(d, S, n_u, outcome, members, total, mines_at, order, sig, n_seen):
    """Fill frame d for the layout set S: its members, its cells safest first, and a
    hash of what each cell shows across the members (cells that show the same in
    every layout split S alike, so only the first of them is valued)."""
    total[d] = _members(S[d], members[d])
    for q in range(n_u):
        mines_at[d, q] = 0
        sig[d, q] = np.uint64(14695981039346656037)
    for t in range(total[d]):
        l = members[d, t]
        for q in range(n_u):
            o = outcome[l, q]
            if o == MINE_OUTCOME:
                mines_at[d, q] += 1
            sig[d, q] = (sig[d, q] ^ np.uint64(o + 1)) * np.uint64(1099511628211)
    order[d, :n_u] = np.argsort(mines_at[d, :n_u], kind="mergesort")
    n_seen[d] = 0


@njit(cache=True)
def endgame_move(n_u, outcome, n_layouts, ucells, budget):
    """(cell, win probability) of the optimal reveal when the n_layouts layouts are
    equally likely; cell -1 when more than `budget` (layouts x cells) would be scanned.

    value(S) = 1 if |S| = 1, else max over cells q of sum over numbers o of
    |S_o| / |S| * value(S_o); memoised on S. Cells are tried safest first and a frame
    stops when no cell's safety can beat its best value (a reveal's value is at most
    its safety). Written as an explicit stack: numba's cache cannot hold recursion.
    """
    depth_max = n_layouts + 1  # each level keeps a strict subset
    memo = Dict.empty(key_type=SET_TYPE, value_type=types.float64)
    S = np.zeros((depth_max, WORDS), np.uint64)
    members = np.empty((depth_max, ENDGAME_LAYOUTS), np.int64)
    total = np.zeros(depth_max, np.int64)
    mines_at = np.empty((depth_max, n_u), np.int64)
    order = np.empty((depth_max, n_u), np.int64)
    parts = np.empty((depth_max, N_OUTCOMES, WORDS), np.uint64)
    counts = np.empty((depth_max, N_OUTCOMES), np.int64)
    r = np.zeros(depth_max, np.int64)  # position in order[d]
    o = np.zeros(depth_max, np.int64)  # next outcome of the cell being valued
    acc = np.zeros(depth_max, np.float64)
    best = np.zeros(depth_max, np.float64)
    best_q = np.zeros(depth_max, np.int64)
    sig = np.empty((depth_max, n_u), np.uint64)
    seen = np.empty((depth_max, n_u), np.uint64)
    n_seen = np.zeros(depth_max, np.int64)
    for l in range(n_layouts):
        S[0, l >> 6] |= np.uint64(1) << np.uint64(l & 63)
    d = 0
    _open_frame(0, S, n_u, outcome, members, total, mines_at, order, sig, n_seen)
    budget -= total[0] * n_u
    r[0] = 0
    best[0] = -1.0
    best_q[0] = -1
    need_cell = True  # frame d must pick its next cell to value
    while True:
        if need_cell:
            # next informative cell that can still beat the best, or close the frame
            closed = True
            while r[d] < n_u:
                q = order[d, r[d]]
                safe = total[d] - mines_at[d, q]
                if safe == 0 or safe / total[d] <= best[d]:
                    break
                twin = False
                h = sig[d, q]
                for x in range(n_seen[d]):
                    if seen[d, x] == h:
                        twin = True
                        break
                if twin:
                    r[d] += 1
                    continue
                seen[d, n_seen[d]] = h
                n_seen[d] += 1
                _split(members[d], total[d], q, outcome, parts[d], counts[d])
                informative = False
                for x in range(N_OUTCOMES):
                    if 0 < counts[d, x] < total[d]:
                        informative = True
                        break
                if informative:
                    closed = False
                    o[d] = 0
                    acc[d] = 0.0
                    break
                r[d] += 1
            if closed:
                value = best[d] if best[d] > 0.0 else 0.0
                if d == 0:
                    if best_q[0] < 0:
                        return -1, 0.0
                    return ucells[best_q[0]], value
                memo[(S[d, 0], S[d, 1], S[d, 2], S[d, 3])] = value
                d -= 1  # back to the parent: add this child's share
                acc[d] += counts[d, o[d]] * value
                o[d] += 1
            need_cell = False
        # the outcomes of the cell order[d, r[d]]
        pushed = False
        while o[d] < N_OUTCOMES - 1:
            c = counts[d, o[d]]
            if c == 0:
                o[d] += 1
                continue
            if c == 1:
                acc[d] += 1.0
                o[d] += 1
                continue
            key = (parts[d, o[d], 0], parts[d, o[d], 1], parts[d, o[d], 2], parts[d, o[d], 3])
            if key in memo:
                acc[d] += c * memo[key]
                o[d] += 1
                continue
            # value the child on a new frame
            for w in range(WORDS):
                S[d + 1, w] = parts[d, o[d], w]
            d += 1
            _open_frame(d, S, n_u, outcome, members, total, mines_at, order, sig, n_seen)
            budget -= total[d] * n_u
            if budget < 0:
                return -1, 0.0
            r[d] = 0
            best[d] = -1.0
            best_q[d] = -1
            pushed = True
            break
        if pushed:
            need_cell = True
            continue
        # every outcome of this cell is valued
        v = acc[d] / total[d]
        if v > best[d] + SCORE_TOLERANCE:
            best[d] = v
            best_q[d] = order[d, r[d]]
        r[d] += 1
        need_cell = True


# ------------------------------------------------------------------ lookahead
@njit(cache=True)
def lookahead_score(view, known, mines, nbr, nbr_count, cell, p_mine, log_z, ws2, view2, prob2, certain2,
                    stats2, max_work):
    """P(cell safe) * E[1 if progress else best next safety] (see the module docstring)."""
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
    for v in range(lo, hi + 1):
        view2[cell] = v
        code = solve_kernel(view2, known, mines, nbr, nbr_count, ws2, max_work, prob2, certain2, stats2)
        if code != OK:
            continue
        pv = np.exp(stats2[0] - log_safe)
        if pv > 0.0:
            entropy -= pv * np.log(pv)
        progress = False
        best_next = 0.0
        n_safe = 0
        for i in range(n):
            if view2[i] < 0 and known[i] == 0:
                if certain2[i] == CERTAIN_SAFE:
                    progress = True
                    n_safe += 1
                s = 1.0 - prob2[i]
                if s > best_next:
                    best_next = s
        if progress:
            p_progress += pv
            e_safe += pv * n_safe
        if progress or best_next == 0.0:  # best_next == 0: only mines left, the game is won
            acc += pv
        else:
            acc += pv * best_next
    stats2[4] = p_progress
    stats2[5] = e_safe
    stats2[6] = entropy
    return (1.0 - p_mine) * acc


@njit(cache=True)
def best_decide(view, mines, nbr, nbr_count, ws, known, prob, certain, stats, moves, dist, queue, tied, max_work,
                first, rng, ws2, view2, prob2, certain2, stats2, order, ucells, layouts, outcome, pos, assign, con_need,
                con_free, endgame_layouts, endgame_budget, max_candidates, guess_rule, margin, tie_order):
    """One decision of `best` (moves[:k]); stats[3] = 1 for a guess, stats[4] = 1 when the
    endgame search decided, stats[5] = 1 when it ran out of budget."""
    n = view.shape[0]
    stats[3] = 0.0
    stats[4] = 0.0
    stats[5] = 0.0
    any_revealed = False
    for i in range(n):
        if view[i] >= 0:
            any_revealed = True
            break
    if not any_revealed:
        moves[0, 0] = REVEAL
        moves[0, 1] = first
        return 1
    code = solve_kernel(view, known, mines, nbr, nbr_count, ws, max_work, prob, certain, stats)
    if code != OK:
        return -1
    k = certain_moves(view, known, certain, moves)
    if k > 0:
        return k
    stats[3] = 1.0
    moves[0, 0] = REVEAL
    log_z = stats[0]
    # unrevealed, non-known cells
    n_u = 0
    remaining = mines
    for i in range(n):
        if view[i] < 0:
            if known[i]:
                remaining -= 1
            else:
                n_u += 1
    # 2. exact endgame
    if n_u <= ENDGAME_CELLS and log_z <= np.log(endgame_layouts) + 1e-9:
        q = 0
        for i in range(n):
            if view[i] < 0 and known[i] == 0:
                ucells[q] = i
                q += 1
        n_l = enumerate_layouts(view, known, remaining, nbr, nbr_count, ucells, n_u, assign, con_need, con_free,
                                layouts, endgame_layouts)
        if n_l > 0:
            layout_outcomes(view, known, nbr, nbr_count, ucells, n_u, pos, layouts, n_l, outcome)
            cell, value = endgame_move(n_u, outcome, n_l, ucells, endgame_budget)
            if cell >= 0:
                stats[4] = 1.0
                moves[0, 1] = cell
                return 1
            stats[5] = 1.0
    # 3. forced 50/50: a component of two cells (so one mine: p = 1/2 each) whose cells
    # have no other unrevealed neighbour, so nothing revealed elsewhere can inform it
    cell_box = ws[6]
    box_size = ws[7]
    box_comp = ws[10]
    comp_order = ws[11]
    comp_start = ws[12]
    for i in range(n):
        if view[i] >= 0 or known[i] or prob[i] != 0.5:
            continue
        comp = box_comp[cell_box[i]]
        cells_in = 0
        for q in range(comp_start[comp], comp_start[comp + 1]):
            cells_in += box_size[comp_order[q]]
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
            moves[0, 1] = i
            return 1
    # 4. lookahead among the safest cells
    frontier_distance(view, nbr, nbr_count, dist, queue)
    m = 0
    for i in range(n):
        if view[i] < 0 and known[i] == 0 and prob[i] < 1.0:
            order[m] = i
            m += 1
    # candidates in order: probability (equal to 1e-9 counts as equal), then the tie
    # order, then distance to the revealed area
    keys = np.empty(m, np.float64)
    for t in range(m):
        c = order[t]
        rank = nbr_count[c] * 1000 if tie_order == ORDER_CORNERS else 0
        keys[t] = np.round(prob[c], 9) + 1e-11 * (rank + min(dist[c], 999))
    idx = np.argsort(keys, kind="mergesort")
    best_score = -1.0
    best_cell = order[idx[0]]
    best_p = prob[best_cell]
    p_min = best_p
    best_key0 = -1.0
    best_key1 = -1.0
    best_key2 = -1.0
    evaluated = 0
    for t in range(m):
        c = order[idx[t]]
        p = prob[c]
        if evaluated >= max_candidates:
            break
        if guess_rule == GUESS_TWO_STEP and 1.0 - p <= best_score + SCORE_TOLERANCE:
            break
        if guess_rule == GUESS_PSEQ and p > p_min + margin:
            break
        score = lookahead_score(view, known, mines, nbr, nbr_count, c, p, log_z, ws2, view2, prob2, certain2,
                                stats2, max_work)
        evaluated += 1
        if guess_rule == GUESS_PSEQ:
            k0 = stats2[4]
            k1 = stats2[5]
            k2 = stats2[6]
            better = False
            if k0 > best_key0 + SCORE_TOLERANCE:
                better = True
            elif k0 > best_key0 - SCORE_TOLERANCE:
                if k1 > best_key1 + SCORE_TOLERANCE:
                    better = True
                elif k1 > best_key1 - SCORE_TOLERANCE and k2 > best_key2 + SCORE_TOLERANCE:
                    better = True
            if better:
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
    moves[0, 1] = best_cell
    return 1


@njit(cache=True)
def best_batch(gs, n_games, deal_rng, agent_rng, ws, known, prob, certain, stats, moves, dist, queue, tied, max_work,
               first, ws2, view2, prob2, certain2, stats2, order, ucells, layouts, outcome, pos, assign, con_need, con_free,
               endgame_layouts, endgame_budget, max_candidates, guess_rule, margin, tie_order, out):
    st = gs.counters
    view = gs.shown
    mines = gs.spec[SP_MINES]
    nbr = gs.nbr
    nbr_count = gs.nbr_count
    for g in range(n_games):
        begin_game(gs, deal_rng)
        known[:] = 0
        guesses = 0
        fallbacks = 0
        endgames = 0
        aborts = 0
        while st[ST_STATUS] == 0:
            k = best_decide(view, mines, nbr, nbr_count, ws, known, prob, certain, stats, moves, dist, queue, tied,
                            max_work, first, agent_rng, ws2, view2, prob2, certain2, stats2, order, ucells, layouts, outcome,
                            pos, assign, con_need, con_free, endgame_layouts, endgame_budget, max_candidates,
                            guess_rule, margin, tie_order)
            if k < 0:
                break
            guesses += int(stats[3])
            fallbacks += int(stats[1])
            stats[1] = 0.0
            endgames += int(stats[4])
            aborts += int(stats[5])
            apply_decision(gs, moves, k, known, deal_rng)
        record_game(gs, out, g)
        out[g, 6] = guesses
        out[g, 7] = fallbacks
        out[g, 8] = endgames
        out[g, 9] = aborts


@register
class BestAgent(CSPAgent):
    """Our strongest solver: exact probabilities, exact endgame search, lookahead guesses."""

    name = "best"
    extra_fields = ("guesses", "fallbacks", "endgame_moves", "endgame_aborts")

    def __init__(self, seed=None, max_work: int = DEFAULT_MAX_WORK, endgame_layouts: int = ENDGAME_LAYOUTS,
                 endgame_budget: int = ENDGAME_BUDGET, max_candidates: int = MAX_CANDIDATES,
                 guess_rule: str = "pseq", margin: float = 0.01, tie_order: str = "corners",
                 first_click="corner"):
        super().__init__(seed, max_work, first_click)
        if guess_rule not in GUESS_RULES:
            raise ValueError(f"guess_rule must be one of {', '.join(GUESS_RULES)}; got {guess_rule!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= margin <= 1:  # pseq only
            raise ValueError(f"margin must be a number in [0, 1], got {margin!r}")
        if tie_order not in TIE_ORDERS:
            raise ValueError(f"tie_order must be one of {', '.join(TIE_ORDERS)}; got {tie_order!r}")
        self.tie_order = tie_order
        self.guess_rule = guess_rule
        self.margin = float(margin)
        checks = (("endgame_layouts", endgame_layouts, 0, ENDGAME_LAYOUTS),
                  ("endgame_budget", endgame_budget, 1, None), ("max_candidates", max_candidates, 1, None))
        for name, value, low, high in checks:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low \
                    or (high is not None and value > high):
                allowed = f">= {low}" if high is None else f"in [{low}, {high}]"
                raise ValueError(f"{name} must be an integer {allowed}, got {value!r}")
        self.endgame_layouts = int(endgame_layouts)
        self.endgame_budget = int(endgame_budget)
        self.max_candidates = int(max_candidates)

    def params(self) -> dict:
        out = super().params()
        for name, default in (("endgame_layouts", ENDGAME_LAYOUTS), ("endgame_budget", ENDGAME_BUDGET),
                              ("max_candidates", MAX_CANDIDATES), ("guess_rule", "pseq"), ("margin", 0.01),
                              ("tie_order", "corners")):
            if getattr(self, name) != default:
                out[name] = getattr(self, name)
        return out

    def state(self, cells: int, mines: int) -> BestState:
        key = (cells, mines)
        if key not in self._states:
            self._states[key] = BestState(cells, mines)
        return self._states[key]

    def _args(self, s: BestState):
        return (s.ws2.arrays, s.view2, s.prob2, s.certain2, s.stats2, s.order, s.ucells, s.layouts, s.outcome,
                s.pos, s.assign, s.con_need, s.con_free, self.endgame_layouts, self.endgame_budget,
                self.max_candidates, GUESS_RULES.index(self.guess_rule), self.margin,
                ORDER_CORNERS if self.tie_order == "corners" else ORDER_FRONTIER)

    def decision(self, game):
        if game.over:
            raise ValueError("decision() needs a game in progress; this one is over")
        gs = game._gs
        view = gs.shown
        s = self.state(game.level.cells, game.level.mines)
        s.known[:] = view == FLAGGED
        k = best_decide(view, game.level.mines, gs.nbr, gs.nbr_count, s.ws.arrays, s.known, s.prob, s.certain, s.stats,
                        s.moves, s.dist, s.queue, s.tied, self.max_work,
                        self.first_cell(game.level.rows, game.level.cols), self.rng, *self._args(s))
        if k < 0:
            raise ValueError("inconsistent position: the flags on the board contradict the numbers")
        return [(int(s.moves[q, 0]), int(s.moves[q, 1])) for q in range(k)]

    def play_batch(self, gs, n_games, deal_rng, out):
        spec = gs.spec
        s = self.state(int(spec[SP_ROWS] * spec[SP_COLS]), int(spec[SP_MINES]))
        best_batch(gs, n_games, deal_rng, self.rng, s.ws.arrays, s.known, s.prob, s.certain, s.stats, s.moves,
                   s.dist, s.queue, s.tied, self.max_work, self.first_cell(int(spec[SP_ROWS]), int(spec[SP_COLS])), *self._args(s),
                   out)
