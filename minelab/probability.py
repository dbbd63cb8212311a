"""Exact mine probabilities for a Minesweeper position.

    p = ml.mine_probabilities(game.view, game.level.mines)      # float64 (rows, cols), NaN on revealed
    sol = ml.probability.solve(game.view, game.level.mines)     # + certain safe / mine cells, log #layouts

Every layout of exactly `mines` mines over the unrevealed cells that agrees with the
revealed numbers is taken as equally likely (true for uniformly dealt boards, with the
`safe` and `opening` first-click rules too: the cells they keep clear are revealed).
A flag is a belief, not a fact: flagged cells count as covered.

How (the ideas of every strong published solver, written here from scratch):
1. Each revealed number with unrevealed neighbours is a constraint: the sum of its
   unrevealed neighbours equals the number.
2. Unrevealed cells touching exactly the same numbers form a *box* (interchangeable:
   a box of s cells with k mines stands for C(s, k) layouts). Boxes hold at most 8 cells.
3. Boxes linked through shared numbers form independent *components*; each is
   enumerated apart by depth-first search over box mine counts (bounds from every
   constraint prune as it goes), its solutions summed by the number of mines used.
4. Components combine by mine count (convolutions), and the cells touching no number
   take the rest: a total of t frontier mines weighs C(U, remaining - t), U the count of
   untouched cells. Weights are kept relative (each component scaled by its largest
   weight, C(U, .) by its largest) so expert boards do not overflow.
5. A component's marginals need the other components' mine distribution: prefix
   convolutions forwards and "absorbed" suffixes backwards give them in
   O(remaining mines x sum of component ranges), with no division.

Bounded work: a component whose search passes `max_work` nodes stops and falls back to
a local estimate (each box at the mean density of its numbers, the component's mine
count spread around their sum; see `_fallback_component`): the position is then marked
`exact=False`, counted in `fallbacks`, never claims a certain cell from that component,
and its `log_layouts` is an estimate. Ordinary play rarely meets the default bound
(the agents count it per game in their `fallbacks` record field).

The numba kernel `solve_kernel` works on flat arrays with a preallocated workspace
(`Workspace`), so agents call it once per decision with no allocation.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .cells import FLAGGED
from .engine import _tables, kernel

__all__ = ["mine_probabilities", "solve", "Solution", "Workspace", "DEFAULT_MAX_WORK",
           "OK", "INCONSISTENT", "CERTAIN_SAFE", "CERTAIN_MINE"]

DEFAULT_MAX_WORK = 2_000_000  # search nodes per component: ~10 ms; no real game position comes near
OK = 0
INCONSISTENT = 1
# certain[] codes written by the kernel
UNCERTAIN = 0
CERTAIN_SAFE = 1
CERTAIN_MINE = 2

_BINOM = np.array([[math.comb(s, k) for k in range(9)] for s in range(9)], np.float64)


class Workspace:
    """Scratch arrays for boards of `cells` cells with at most `mines` mines (reused across calls)."""

    def __init__(self, cells: int, mines: int):
        n = int(cells)
        m = int(mines) + 1
        i32 = np.int32
        self.cells, self.mines = n, int(mines)
        self.arrays = (
            np.zeros(n, i32),              # 0 con_cell: revealed cell of each constraint
            np.zeros(n, i32),              # 1 con_value: mines still needed around it
            np.zeros((n, 8), i32),         # 2 con_boxes
            np.zeros(n, i32),              # 3 con_nbox
            np.zeros(n, i32),              # 4 con_sum: mines assigned so far (search)
            np.zeros(n, i32),              # 5 con_rem: unassigned cells (search)
            np.full(n, -1, i32),           # 6 cell_box
            np.zeros(n, i32),              # 7 box_size
            np.zeros((n, 8), i32),         # 8 box_cons
            np.zeros(n, i32),              # 9 box_ncon
            np.zeros(n, i32),              # 10 box_comp
            np.zeros(n, i32),              # 11 order: boxes grouped by component (BFS order)
            np.zeros(n + 1, i32),          # 12 comp_start
            np.zeros(n, i32),              # 13 comp_mmax: most mines the component can hold
            np.zeros(n, i32),              # 14 k: search stack, mines per box
            np.zeros(n, i32),              # 15 khi
            np.zeros(n + 1, np.float64),   # 16 wst: weight stack
            np.zeros(n + 1, i32),          # 17 mst: mine stack
            np.zeros(n * m, np.float64),   # 18 W: per component, weight by mines
            np.zeros(n, i32),              # 19 W_off
            np.zeros(n * m, np.float64),   # 20 E: per box, weighted mine count by component mines
            np.zeros(n, i32),              # 21 E_off
            np.zeros(n * m, np.int8),      # 22 kmin per box and component mines
            np.zeros(n * m, np.int8),      # 23 kmax
            np.zeros((n + 1) * m, np.float64),  # 24 P: prefix convolutions
            np.zeros((n + 1) * m, np.float64),  # 25 H: suffixes absorbed into the untouched-cell weight
            np.zeros(m, np.float64),       # 26 G: C(U, remaining - t), scaled
            np.array([math.lgamma(i + 1) for i in range(n + 1)], np.float64),  # 27 log factorials
            _BINOM,                        # 28
            np.zeros(n, np.float64),       # 29 comp_logscale
            np.zeros(n, np.uint8),         # 30 comp_fallback
            np.zeros(n, np.int32),         # 31 queue (BFS)
            np.zeros(n, np.float64),       # 32 R: other components' weight by this one's mines
        )


@kernel
def _log_binom(logfact, n, k):
    return logfact[n] - logfact[k] - logfact[n - k]


@kernel
def number_need(view, known, nbr, nbr_count, i):
    """(mines still needed around revealed cell i, its unrevealed neighbours not known to be mines)."""
    need = np.int64(view[i])
    free = 0
    for a in range(nbr_count[i]):
        j = nbr[i, a]
        if view[j] < 0:
            if known[j]:
                need -= 1
            else:
                free += 1
    return need, free


@kernel
def _record_solution(m, w, W, woff, E, E_off, kmin, kmax, order, s0, nb, kst):
    """Add one full assignment of the component (m mines, weight w) to its tallies."""
    W[woff + m] += w
    for q in range(nb):
        k = kst[q]
        e = E_off[order[s0 + q]] + m
        E[e] += w * k
        if k < kmin[e]:
            kmin[e] = k
        if k > kmax[e]:
            kmax[e] = k


@kernel
def solve_kernel(view, known, mines, nbr, nbr_count, ws, max_work, prob, certain, stats):
    """Probabilities for `view` (int8[n]: COVERED/FLAGGED/0..8) with `mines` in total.

    known[i] = 1 marks cells the caller treats as certain mines (its own deductions;
    they are taken out of the constraints and of the mine count). Writes prob[i]
    (NaN on revealed and known cells), certain[i] (UNCERTAIN / CERTAIN_SAFE /
    CERTAIN_MINE). stats[0] = log number of layouts, stats[1] = fallback components,
    stats[2] = search nodes. Returns OK or INCONSISTENT.
    """
    (con_cell, con_value, con_boxes, con_nbox, con_sum, con_rem, cell_box, box_size, box_cons,
     box_ncon, box_comp, order, comp_start, comp_mmax, kst, khi, wst, mst, W, W_off, E, E_off,
     kmin, kmax, P, H, G, logfact, binom, comp_logscale, comp_fallback, queue, R) = ws
    n = view.shape[0]
    stride = mines + 1  # row length of P, H
    stats[0] = 0.0
    stats[1] = 0.0
    stats[2] = 0.0

    # ---- 1. constraints, unknown cells, remaining mines
    remaining = mines
    unknown = 0
    for i in range(n):
        cell_box[i] = -1
        certain[i] = UNCERTAIN
        if view[i] < 0:
            if known[i]:
                remaining -= 1
                prob[i] = np.nan
            else:
                unknown += 1
        else:
            prob[i] = np.nan
    if remaining < 0 or remaining > unknown:
        return INCONSISTENT
    n_con = 0
    for i in range(n):
        v = view[i]
        if v < 0:
            continue
        need, free = number_need(view, known, nbr, nbr_count, i)
        if need < 0 or need > free:
            return INCONSISTENT
        if free > 0:
            con_cell[n_con] = i
            con_value[n_con] = need
            con_nbox[n_con] = 0
            n_con += 1

    # ---- 2. boxes: frontier cells grouped by the set of constraints they touch
    # A constraint's index is found from its cell through the known order: walk the
    # constraint list once and mark each cell with its constraint (reusing `queue`).
    for c in range(n_con):
        queue[con_cell[c]] = c
    n_box = 0
    frontier = 0
    for i in range(n):
        if view[i] >= 0 or known[i]:
            continue
        # this cell's constraints, in increasing order (neighbours are scanned in a fixed
        # order, and constraint indices follow cell order, so sort the <= 8 entries)
        cnt = 0
        for a in range(nbr_count[i]):
            j = nbr[i, a]
            if view[j] >= 0:
                # a revealed neighbour is a constraint iff it had free cells (it has: i)
                c = queue[j]
                # insertion into kst[0:cnt] (scratch), kept sorted
                p = cnt
                while p > 0 and kst[p - 1] > c:
                    kst[p] = kst[p - 1]
                    p -= 1
                kst[p] = c
                cnt += 1
        if cnt == 0:
            continue
        frontier += 1
        # an existing box with the same signature must contain the first constraint
        c0 = kst[0]
        found = -1
        for q in range(con_nbox[c0]):
            b = con_boxes[c0, q]
            if box_ncon[b] != cnt:
                continue
            same = True
            for t in range(cnt):
                if box_cons[b, t] != kst[t]:
                    same = False
                    break
            if same:
                found = b
                break
        if found < 0:
            found = n_box
            n_box += 1
            box_size[found] = 0
            box_ncon[found] = cnt
            for t in range(cnt):
                c = kst[t]
                box_cons[found, t] = c
                con_boxes[c, con_nbox[c]] = found
                con_nbox[c] += 1
        box_size[found] += 1
        cell_box[i] = found
    untouched = unknown - frontier

    # ---- 3. components (BFS over boxes through constraints), in search order
    for b in range(n_box):
        box_comp[b] = -1
    n_comp = 0
    pos = 0
    for b0 in range(n_box):
        if box_comp[b0] >= 0:
            continue
        comp_start[n_comp] = pos
        box_comp[b0] = n_comp
        order[pos] = b0
        pos += 1
        head = comp_start[n_comp]
        while head < pos:
            b = order[head]
            head += 1
            for t in range(box_ncon[b]):
                c = box_cons[b, t]
                for q in range(con_nbox[c]):
                    b2 = con_boxes[c, q]
                    if box_comp[b2] < 0:
                        box_comp[b2] = n_comp
                        order[pos] = b2
                        pos += 1
        n_comp += 1
    comp_start[n_comp] = pos

    # ---- 4. enumerate each component
    w_used = 0
    e_used = 0
    nodes_total = 0
    for comp in range(n_comp):
        s0 = comp_start[comp]
        nb = comp_start[comp + 1] - s0
        total_cells = 0
        for q in range(nb):
            total_cells += box_size[order[s0 + q]]
        mmax = min(total_cells, remaining)
        comp_mmax[comp] = mmax
        W_off[comp] = w_used
        for m in range(mmax + 1):
            W[w_used + m] = 0.0
        w_used += mmax + 1
        for q in range(nb):
            b = order[s0 + q]
            E_off[b] = e_used
            for m in range(mmax + 1):
                E[e_used + m] = 0.0
                kmin[e_used + m] = 9
                kmax[e_used + m] = -1
            e_used += mmax + 1
            for t in range(box_ncon[b]):
                c = box_cons[b, t]
                con_sum[c] = 0
                con_rem[c] = 0
        for q in range(nb):
            b = order[s0 + q]
            for t in range(box_ncon[b]):
                con_rem[box_cons[b, t]] += box_size[b]
        comp_fallback[comp] = 0
        woff = W_off[comp]
        # Depth-first search over the component's boxes in BFS order; kst[d] mines in
        # box order[s0 + d], bounds from every constraint of that box.
        d = 0
        wst[0] = 1.0
        mst[0] = 0
        nodes = 0
        enter = True
        while True:
            leaf = False
            if enter:
                b = order[s0 + d]
                size = box_size[b]
                lo = 0
                hi = size
                room = remaining - mst[d]
                if hi > room:
                    hi = room
                for t in range(box_ncon[b]):
                    c = box_cons[b, t]
                    need = con_value[c] - con_sum[c]
                    if need < hi:
                        hi = need
                    low = need - (con_rem[c] - size)
                    if low > lo:
                        lo = low
                nodes += 1
                if lo <= hi:
                    kst[d] = lo
                    khi[d] = hi
                    for t in range(box_ncon[b]):
                        c = box_cons[b, t]
                        con_sum[c] += lo
                        con_rem[c] -= size
                    wst[d + 1] = wst[d] * binom[size, lo]
                    mst[d + 1] = mst[d] + lo
                    if d < nb - 1:
                        d += 1
                        continue
                    leaf = True
                else:
                    d -= 1  # nothing fits here: next value of the parent
            if leaf:
                _record_solution(mst[nb], wst[nb], W, woff, E, E_off, kmin, kmax, order, s0, nb, kst)
            if nodes > max_work:
                comp_fallback[comp] = 1
                break
            # advance: the next value at depth d, undoing boxes on the way up
            advanced = False
            while d >= 0:
                b = order[s0 + d]
                size = box_size[b]
                k = kst[d]
                if k < khi[d]:
                    for t in range(box_ncon[b]):
                        con_sum[box_cons[b, t]] += 1
                    kst[d] = k + 1
                    wst[d + 1] = wst[d] * binom[size, k + 1]
                    mst[d + 1] = mst[d] + k + 1
                    advanced = True
                    break
                for t in range(box_ncon[b]):
                    c = box_cons[b, t]
                    con_sum[c] -= k
                    con_rem[c] += size
                d -= 1
            if not advanced:
                break
            nodes += 1
            if d < nb - 1:
                d += 1
                enter = True
            else:
                enter = False
                # the last box changed value: record that solution, then advance again
                _record_solution(mst[nb], wst[nb], W, woff, E, E_off, kmin, kmax, order, s0, nb, kst)
        nodes_total += nodes

        if comp_fallback[comp]:
            _fallback_component(comp, s0, nb, mmax, order, box_size, box_ncon, box_cons, con_value,
                                con_boxes, con_nbox, W, woff, E, E_off, kmin, kmax)
            stats[1] += 1.0
        # scale the component's weights by their largest (expert boards overflow otherwise)
        top = 0.0
        for m in range(mmax + 1):
            if W[woff + m] > top:
                top = W[woff + m]
        if top == 0.0:
            return INCONSISTENT  # no assignment satisfies this component
        comp_logscale[comp] = math.log(top)
        inv = 1.0 / top
        for m in range(mmax + 1):
            W[woff + m] *= inv
        for q in range(nb):
            e0 = E_off[order[s0 + q]]
            for m in range(mmax + 1):
                E[e0 + m] *= inv
    stats[2] = nodes_total

    # ---- 5. combine components by mine count with the untouched cells' weight
    # P[c]: distribution of the first c components' mines (row c of P, length <= remaining+1)
    # (row lengths go to khi, free after the search)
    P[0] = 1.0
    plen = 1
    khi[0] = 1
    for comp in range(n_comp):
        woff = W_off[comp]
        mmax = comp_mmax[comp]
        base_old = comp * stride
        base_new = (comp + 1) * stride
        newlen = min(plen + mmax, remaining + 1)
        for t in range(newlen):
            P[base_new + t] = 0.0
        for i in range(plen):
            pi = P[base_old + i]
            if pi == 0.0:
                continue
            top_j = min(mmax, remaining - i)
            for j in range(top_j + 1):
                P[base_new + i + j] += pi * W[woff + j]
        plen = newlen
        khi[comp + 1] = plen
    # G[t] = C(untouched, remaining - t), scaled by its largest value over feasible t
    last = n_comp * stride
    gmax = -1e300
    for t in range(remaining + 1):
        r = remaining - t
        if r <= untouched and t < plen and P[last + t] > 0.0:
            lg = _log_binom(logfact, untouched, r)
            if lg > gmax:
                gmax = lg
    if gmax == -1e300:
        return INCONSISTENT  # no total mine count fits
    for t in range(remaining + 1):
        r = remaining - t
        if r <= untouched:
            G[t] = math.exp(_log_binom(logfact, untouched, r) - gmax)
        else:
            G[t] = 0.0
    total = 0.0
    for t in range(plen):
        total += P[last + t] * G[t]
    if total <= 0.0:
        return INCONSISTENT
    logz = math.log(total) + gmax
    for comp in range(n_comp):
        logz += comp_logscale[comp]
    stats[0] = logz
    inv_total = 1.0 / total

    # H[c]: G with components c.. absorbed: H[n_comp] = G, H[c][t] = sum_j W_c[j] H[c+1][t+j]
    hb = n_comp * stride
    for t in range(remaining + 1):
        H[hb + t] = G[t]
    for comp in range(n_comp - 1, -1, -1):
        woff = W_off[comp]
        mmax = comp_mmax[comp]
        src = (comp + 1) * stride
        dst = comp * stride
        for t in range(remaining + 1):
            acc = 0.0
            top_j = min(mmax, remaining - t)
            for j in range(top_j + 1):
                acc += W[woff + j] * H[src + t + j]
            H[dst + t] = acc

    # ---- 6. marginals: R[m] = weight of everything else when this component holds m mines
    for comp in range(n_comp):
        woff = W_off[comp]
        mmax = comp_mmax[comp]
        pbase = comp * stride
        hbase = (comp + 1) * stride
        plen_c = khi[comp]
        for m in range(mmax + 1):
            acc = 0.0
            if W[woff + m] > 0.0:
                for i in range(remaining - m + 1):
                    if i >= plen_c:
                        break
                    pi = P[pbase + i]
                    if pi != 0.0:
                        acc += pi * H[hbase + m + i]
            R[m] = acc
        s0 = comp_start[comp]
        nb = comp_start[comp + 1] - s0
        for q in range(nb):
            b = order[s0 + q]
            e0 = E_off[b]
            acc = 0.0
            always_safe = True
            always_mine = True
            for m in range(mmax + 1):
                if R[m] > 0.0 and W[woff + m] > 0.0:
                    acc += E[e0 + m] * R[m]
                    if kmax[e0 + m] > 0:
                        always_safe = False
                    if kmin[e0 + m] < box_size[b]:
                        always_mine = False
            p = acc * inv_total / box_size[b]
            code = UNCERTAIN
            if comp_fallback[comp] == 0:
                if always_safe:
                    p = 0.0
                    code = CERTAIN_SAFE
                elif always_mine:
                    p = 1.0
                    code = CERTAIN_MINE
            if p > 1.0:
                p = 1.0
            # box results go to wst / kst (free after the search) for the cell pass below
            wst[b] = p
            kst[b] = code
    # untouched cells
    p_untouched = 0.0
    code_untouched = UNCERTAIN
    if untouched > 0:
        acc = 0.0
        lo_r = remaining + 1
        hi_r = -1
        for t in range(plen):
            wt = P[last + t] * G[t]
            if wt > 0.0:
                r = remaining - t
                acc += wt * r
                if r < lo_r:
                    lo_r = r
                if r > hi_r:
                    hi_r = r
        p_untouched = acc * inv_total / untouched
        if hi_r == 0:
            p_untouched = 0.0
            code_untouched = CERTAIN_SAFE
        elif lo_r == untouched:
            p_untouched = 1.0
            code_untouched = CERTAIN_MINE
    for i in range(n):
        if view[i] >= 0 or known[i]:
            continue
        b = cell_box[i]
        if b >= 0:
            prob[i] = wst[b]
            certain[i] = kst[b]
        else:
            prob[i] = p_untouched
            certain[i] = code_untouched
    return OK


@kernel
def _fallback_component(comp, s0, nb, mmax, order, box_size, box_ncon, box_cons, con_value, con_boxes,
                        con_nbox, W, woff, E, E_off, kmin, kmax):
    """A component whose search hit the work bound gets a local estimate: each box at the
    mean density its numbers ask for (d_b), the component's mine count m spread as a
    normal approximation around the sum of those densities (so every m from 0 to mmax
    keeps some weight and the global count can always be met), and a box holding
    d_b * m / expected of its cells' mines given m. Never claims certainty."""
    expected = 0.0
    variance = 1.0
    for q in range(nb):
        b = order[s0 + q]
        dens = _box_density(b, box_ncon, box_cons, con_value, con_boxes, con_nbox, box_size)
        expected += dens * box_size[b]
        variance += dens * (1.0 - dens) * box_size[b]
    for m in range(mmax + 1):
        z = (m - expected) / math.sqrt(variance)
        W[woff + m] = math.exp(-0.5 * z * z) + 1e-300
    for q in range(nb):
        b = order[s0 + q]
        dens = _box_density(b, box_ncon, box_cons, con_value, con_boxes, con_nbox, box_size)
        e0 = E_off[b]
        for m in range(mmax + 1):
            share = dens * m / expected if expected > 0.0 else m / max(mmax, 1)
            if share > 1.0:
                share = 1.0
            E[e0 + m] = W[woff + m] * share * box_size[b]
            kmin[e0 + m] = 0
            kmax[e0 + m] = box_size[b]


@kernel
def _box_density(b, box_ncon, box_cons, con_value, con_boxes, con_nbox, box_size):
    dens = 0.0
    for t in range(box_ncon[b]):
        c = box_cons[b, t]
        cells = 0
        for u in range(con_nbox[c]):
            cells += box_size[con_boxes[c, u]]
        dens += con_value[c] / cells
    return dens / box_ncon[b]


# ----------------------------------------------------------------------- Python side
@dataclass(frozen=True)
class Solution:
    """The result of `solve`: arrays shaped like the view."""

    probabilities: np.ndarray  # float64; NaN on revealed cells
    safe: np.ndarray  # bool: covered cells that cannot hold a mine
    mine: np.ndarray  # bool: covered cells that must hold one
    log_layouts: float  # natural log of the number of consistent layouts
    exact: bool  # False when some component fell back to the local estimate
    fallbacks: int  # components that hit the work bound
    nodes: int  # search nodes used (a measure of the work)


def _check_view(view) -> np.ndarray:
    arr = np.asarray(view)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"view must be an integer array (COVERED=-1, FLAGGED=-2, 0..8), got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"view must be a non-empty 2-d array (rows, cols), got shape {arr.shape}")
    bad = (arr < FLAGGED) | (arr > 8)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(f"view values must be COVERED (-1), FLAGGED (-2) or a revealed number 0..8; "
                         f"got {int(arr[r, c])} at ({r}, {c})")
    return arr


def solve(view, mines, *, max_work: int = DEFAULT_MAX_WORK) -> Solution:
    """Exact mine probabilities, certain cells and the layout count of a position.

    view: 2-d integer array as `Game.view` shows it (COVERED, FLAGGED, 0..8); mines: the
    level's total mine count. Raises ValueError on bad input or an inconsistent position.
    """
    arr = _check_view(view)
    if isinstance(mines, bool) or not isinstance(mines, numbers.Integral):
        raise ValueError(f"mines must be an integer, got {mines!r}")
    mines = int(mines)
    unrevealed = int((arr < 0).sum())
    if not 0 <= mines <= unrevealed:
        raise ValueError(f"mines must be in [0, {unrevealed}] (the unrevealed cells of this view), got {mines}")
    if isinstance(max_work, bool) or not isinstance(max_work, numbers.Integral) or max_work < 1:
        raise ValueError(f"max_work must be a positive integer, got {max_work!r}")
    rows, cols = arr.shape
    nbr, nbr_count = _tables(rows, cols)
    flat = np.ascontiguousarray(arr, dtype=np.int8).ravel()
    n = flat.shape[0]
    ws = Workspace(n, mines)
    prob = np.empty(n, np.float64)
    certain = np.zeros(n, np.int8)
    stats = np.zeros(3, np.float64)
    code = solve_kernel(flat, np.zeros(n, np.uint8), mines, nbr, nbr_count, ws.arrays, int(max_work), prob,
                        certain, stats)
    if code != OK:
        raise ValueError(f"inconsistent position: no layout of {mines} mines agrees with the revealed numbers")
    shape = (rows, cols)
    return Solution(
        probabilities=prob.reshape(shape),
        safe=(certain == CERTAIN_SAFE).reshape(shape),
        mine=(certain == CERTAIN_MINE).reshape(shape),
        log_layouts=float(stats[0]),
        exact=bool(stats[1] == 0),
        fallbacks=int(stats[1]),
        nodes=int(stats[2]),
    )


def mine_probabilities(view, mines) -> np.ndarray:
    """Exact probability that each unrevealed cell holds a mine (NaN on revealed cells).
    See `solve` for the certain cells and the layout count."""
    return solve(view, mines).probabilities
