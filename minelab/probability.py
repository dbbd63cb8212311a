"""Exact mine probabilities for a Minesweeper position.

    p = ml.mine_probabilities(game.view, game.level.mines)      # float64 (rows, cols), NaN on revealed
    sol = ml.probability.solve(game.view, game.level.mines)     # + certain safe / mine cells, log #layouts

Every layout of exactly `mines` mines over the unrevealed cells that agrees with the
revealed numbers is taken as equally likely (true for uniformly dealt boards, with the
`safe` and `opening` first-click rules too: the cells they keep clear are revealed; the
`no-guess` rule keeps only layouts that deduction wins: its certain cells are exact, its
probabilities those of the opening rule's boards, see minelab.noguess).
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

The numba kernel `solve_kernel(ws, view, known, mines, nbr, nbr_count, max_work)` works
on flat arrays with a preallocated workspace (`Workspace`, a NamedTuple of named arrays
built by `new_workspace`, that also holds the results: `ws.prob`, `ws.certain`,
`ws.stats`), so agents call it once per decision with no allocation. It runs six
steps, each a kernel of its own (a `step`, inlined): 1 `find_constraints`,
2 `group_boxes`, 3 `find_components`, 4 `enumerate_components` (`search_component` on
each component), 5 `combine_components`, 6 `marginals`. From a Python loop,
`solve_fields(tuple(ws), ...)` is the same call with less dispatch overhead. After a
solve, `recount_with_mines` counts the layouts with some cells added as mines by searching
again only the components that hold them (the joint probability that they are all mines).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from .cells import FLAGGED
from .engine import _tables, kernel, uniform_below

# A step of a larger kernel, allocating nothing: compiled like `kernel` and inlined into
# its caller. (numba passes a NamedTuple as one argument per scalar of each array
# field, ~300 for a Workspace, and LLVM does not inline large callees: a call of a
# step that is not inlined costs more than the step on small boards.)
step = njit(cache=True, _nrt=False, inline="always")

__all__ = ["CERTAIN_MINE", "CERTAIN_SAFE", "DEFAULT_MAX_WORK", "INCONSISTENT", "NOT_RECOUNTED", "OK", "Solution",
           "Workspace", "mine_probabilities", "new_workspace", "recount_with_mines", "sample_layout", "sample_layouts",
           "solve", "solve_fields", "solve_kernel"]

DEFAULT_MAX_WORK = 2_000_000  # search nodes per component: ~10 ms; no real game position comes near
OK = 0
INCONSISTENT = 1
# certain[] codes written by the kernel
UNCERTAIN = 0
CERTAIN_SAFE = 1
CERTAIN_MINE = 2
# ws.stats fields
STAT_LOG_LAYOUTS = 0  # natural log of the number of layouts
STAT_FALLBACKS = 1  # components that hit the work bound
STAT_NODES = 2  # search nodes
STAT_COMPONENTS = 3  # frontier components (what `sample_layout` reads back)
STAT_REMAINING = 4  # mines left for the unrevealed, non-known cells
STAT_UNTOUCHED = 5  # unrevealed cells touching no revealed number
N_STATS = 6

_BINOM = np.array([[math.comb(s, k) for k in range(9)] for s in range(9)], np.float64)


class Workspace(NamedTuple):
    """Scratch and result arrays of `solve_kernel` for boards of n cells and at most
    `mines` mines (m = mines + 1 below); build one with `new_workspace`, reuse it."""

    # constraints: one per revealed number with unrevealed (non-known) neighbours
    con_cell: np.ndarray  # int32[n] its revealed cell
    con_value: np.ndarray  # int32[n] mines still needed around it
    con_boxes: np.ndarray  # int32[n, 8] the boxes it touches
    con_nbox: np.ndarray  # int32[n]
    con_sum: np.ndarray  # int32[n] search: mines assigned so far
    con_rem: np.ndarray  # int32[n] search: cells not yet assigned
    cell_con: np.ndarray  # int32[n] the constraint of each revealed cell that is one
    # boxes: frontier cells touching the same constraints
    cell_box: np.ndarray  # int32[n] box of each frontier cell, -1 elsewhere
    box_size: np.ndarray  # int32[n]
    box_cons: np.ndarray  # int32[n, 8] its constraints, increasing
    box_ncon: np.ndarray  # int32[n]
    box_comp: np.ndarray  # int32[n] its component
    sig: np.ndarray  # int32[8] scratch: one cell's constraints, increasing
    # components: boxes linked through shared constraints
    comp_boxes: np.ndarray  # int32[n] boxes grouped by component (BFS order)
    comp_start: np.ndarray  # int32[n + 1] component c's boxes: comp_boxes[comp_start[c]:comp_start[c + 1]]
    comp_mmax: np.ndarray  # int32[n] most mines the component can hold
    comp_logscale: np.ndarray  # float64[n] log of the factor its weights were divided by
    comp_fallback: np.ndarray  # uint8[n] 1 when its search hit the work bound
    # depth-first search stack, one entry per box of the component
    stack_k: np.ndarray  # int32[n] mines in the box
    stack_khi: np.ndarray  # int32[n] the most it can take
    stack_w: np.ndarray  # float64[n + 1] weight of the boxes above
    stack_m: np.ndarray  # int32[n + 1] mines in the boxes above
    # tallies of the search
    comp_w: np.ndarray  # float64[n * m] per component, weight by its mines
    comp_w_off: np.ndarray  # int32[n] where each component's row starts
    box_e: np.ndarray  # float64[n * m] per box, weighted mine count by its component's mines
    box_e_off: np.ndarray  # int32[n]
    box_kmin: np.ndarray  # int8[n * m] least mines in the box, by its component's mines
    box_kmax: np.ndarray  # int8[n * m] most
    # combination of the components
    prefix: np.ndarray  # float64[(n + 1) * m] row c (remaining + 1 long): mines of the first c components
    suffix: np.ndarray  # float64[(n + 1) * m] row c: untouched weight with components c.. absorbed
    untouched_w: np.ndarray  # float64[m] C(untouched, remaining - t), scaled
    others: np.ndarray  # float64[n] other components' weight by this one's mines
    box_prob: np.ndarray  # float64[n] mine probability of each box's cells
    box_code: np.ndarray  # int8[n] certain code of each box's cells
    # sampling (sample_layout): cells grouped by box, then the untouched cells
    cell_order: np.ndarray  # int32[n]
    box_start: np.ndarray  # int32[n + 1] box b's cells: cell_order[box_start[b]:box_start[b + 1]]
    # constants
    logfact: np.ndarray  # float64[n + 1] log factorials
    binom: np.ndarray  # float64[9, 9] binomial coefficients
    # results
    prob: np.ndarray  # float64[n] mine probability; NaN on revealed and known cells
    certain: np.ndarray  # int8[n] UNCERTAIN / CERTAIN_SAFE / CERTAIN_MINE
    stats: np.ndarray  # float64[N_STATS] STAT_* fields


def new_workspace(cells: int, mines: int) -> Workspace:
    """A `Workspace` for boards of `cells` cells with at most `mines` mines."""
    n = int(cells)
    m = int(mines) + 1
    i32 = np.int32
    f64 = np.float64
    return Workspace(
        con_cell=np.zeros(n, i32), con_value=np.zeros(n, i32), con_boxes=np.zeros((n, 8), i32),
        con_nbox=np.zeros(n, i32), con_sum=np.zeros(n, i32), con_rem=np.zeros(n, i32), cell_con=np.zeros(n, i32),
        cell_box=np.full(n, -1, i32), box_size=np.zeros(n, i32), box_cons=np.zeros((n, 8), i32),
        box_ncon=np.zeros(n, i32), box_comp=np.zeros(n, i32), sig=np.zeros(8, i32),
        comp_boxes=np.zeros(n, i32), comp_start=np.zeros(n + 1, i32), comp_mmax=np.zeros(n, i32),
        comp_logscale=np.zeros(n, f64), comp_fallback=np.zeros(n, np.uint8),
        stack_k=np.zeros(n, i32), stack_khi=np.zeros(n, i32), stack_w=np.zeros(n + 1, f64),
        stack_m=np.zeros(n + 1, i32),
        comp_w=np.zeros(n * m, f64), comp_w_off=np.zeros(n, i32), box_e=np.zeros(n * m, f64),
        box_e_off=np.zeros(n, i32), box_kmin=np.zeros(n * m, np.int8), box_kmax=np.zeros(n * m, np.int8),
        prefix=np.zeros((n + 1) * m, f64), suffix=np.zeros((n + 1) * m, f64),
        untouched_w=np.zeros(m, f64), others=np.zeros(n, f64), box_prob=np.zeros(n, f64),
        box_code=np.zeros(n, np.int8), cell_order=np.zeros(n, i32), box_start=np.zeros(n + 1, i32),
        logfact=np.array([math.lgamma(i + 1) for i in range(n + 1)], f64), binom=_BINOM,
        prob=np.zeros(n, f64), certain=np.zeros(n, np.int8), stats=np.zeros(N_STATS, f64),
    )


@kernel
def _log_binom(logfact, n, k):
    """log C(n, k) from a table of log factorials."""
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
def solve_kernel(ws, view, known, mines, nbr, nbr_count, max_work):
    """Probabilities for `view` (int8[n]: COVERED/FLAGGED/0..8) with `mines` in total.

    known[i] = 1 marks cells the caller treats as certain mines (its own deductions;
    they are taken out of the constraints and of the mine count). Writes ws.prob[i]
    (NaN on revealed and known cells), ws.certain[i] (UNCERTAIN / CERTAIN_SAFE /
    CERTAIN_MINE), ws.stats (STAT_LOG_LAYOUTS, STAT_FALLBACKS, STAT_NODES).
    Returns OK or INCONSISTENT.
    """
    ws.stats[STAT_LOG_LAYOUTS] = 0.0
    ws.stats[STAT_FALLBACKS] = 0.0
    ws.stats[STAT_NODES] = 0.0
    n_con, remaining, unknown = find_constraints(ws, view, known, mines, nbr, nbr_count)
    if n_con < 0:
        return INCONSISTENT
    n_box, frontier = group_boxes(ws, view, known, nbr, nbr_count, n_con)
    untouched = unknown - frontier
    n_comp = find_components(ws, n_box)
    if enumerate_components(ws, n_comp, remaining, max_work) != OK:
        return INCONSISTENT
    plen, total = combine_components(ws, n_comp, remaining, untouched)
    if plen < 0:
        return INCONSISTENT
    marginals(ws, view, known, n_comp, remaining, untouched, plen, 1.0 / total)
    ws.stats[STAT_COMPONENTS] = n_comp
    ws.stats[STAT_REMAINING] = remaining
    ws.stats[STAT_UNTOUCHED] = untouched
    return OK


@kernel
def solve_fields(fields, view, known, mines, nbr, nbr_count, max_work):
    """`solve_kernel` for calls from Python in a loop, the workspace given as the plain
    tuple `tuple(ws)` (made once): numba's dispatcher types a plain tuple of arrays in C
    but a NamedTuple in Python, ~1.5 against ~4 us a call for a Workspace."""
    return solve_kernel(Workspace(*fields), view, known, mines, nbr, nbr_count, max_work)


# ---- 1. constraints, unknown cells, remaining mines
@step
def find_constraints(ws, view, known, mines, nbr, nbr_count):
    """Step 1: reset ws.cell_box and the results, count the unrevealed non-known cells
    and the mines left for them, list the constraints (con_cell, con_value).
    Returns (constraints, remaining mines, unknown cells); constraints = -1 when the
    position is inconsistent."""
    n = view.shape[0]
    remaining = mines
    unknown = 0
    for i in range(n):
        ws.cell_box[i] = -1
        ws.certain[i] = UNCERTAIN
        if view[i] < 0:
            if known[i]:
                remaining -= 1
                ws.prob[i] = np.nan
            else:
                unknown += 1
        else:
            ws.prob[i] = np.nan
    if remaining < 0 or remaining > unknown:
        return -1, remaining, unknown
    n_con = 0
    for i in range(n):
        v = view[i]
        if v < 0:
            continue
        need, free = number_need(view, known, nbr, nbr_count, i)
        if need < 0 or need > free:
            return -1, remaining, unknown
        if free > 0:
            ws.con_cell[n_con] = i
            ws.con_value[n_con] = need
            ws.con_nbox[n_con] = 0
            n_con += 1
    return n_con, remaining, unknown


# ---- 2. boxes: frontier cells grouped by the set of constraints they touch
@step
def group_boxes(ws, view, known, nbr, nbr_count, n_con):
    """Step 2: give every frontier cell its box (ws.cell_box), cells with the same
    constraints sharing one. Returns (boxes, frontier cells)."""
    n = view.shape[0]
    # A constraint's index is found from its cell: walk the constraint list once and
    # mark each cell with its constraint.
    for c in range(n_con):
        ws.cell_con[ws.con_cell[c]] = c
    n_box = 0
    frontier = 0
    for i in range(n):
        if view[i] >= 0 or known[i]:
            continue
        cnt = _cell_signature(ws, view, nbr, nbr_count, i)
        if cnt == 0:
            continue
        frontier += 1
        found = _find_box(ws, cnt)
        if found < 0:
            found = n_box
            n_box += 1
            ws.box_size[found] = 0
            ws.box_ncon[found] = cnt
            for t in range(cnt):
                c = ws.sig[t]
                ws.box_cons[found, t] = c
                ws.con_boxes[c, ws.con_nbox[c]] = found
                ws.con_nbox[c] += 1
        ws.box_size[found] += 1
        ws.cell_box[i] = found
    return n_box, frontier


@step
def _cell_signature(ws, view, nbr, nbr_count, i):
    """The constraints of covered cell i into ws.sig[:cnt], increasing; returns cnt.
    (Neighbours are scanned in a fixed order and constraint indices follow cell order,
    so the <= 8 entries are sorted by insertion.)"""
    sig = ws.sig
    cnt = 0
    for a in range(nbr_count[i]):
        j = nbr[i, a]
        if view[j] >= 0:
            # a revealed neighbour is a constraint iff it had free cells (it has: i)
            c = ws.cell_con[j]
            p = cnt
            while p > 0 and sig[p - 1] > c:
                sig[p] = sig[p - 1]
                p -= 1
            sig[p] = c
            cnt += 1
    return cnt


@step
def _find_box(ws, cnt):
    """The box whose constraints are ws.sig[:cnt], or -1. Such a box must touch the
    first of them, so only that constraint's boxes are compared."""
    c0 = ws.sig[0]
    for q in range(ws.con_nbox[c0]):
        b = ws.con_boxes[c0, q]
        if ws.box_ncon[b] != cnt:
            continue
        same = True
        for t in range(cnt):
            if ws.box_cons[b, t] != ws.sig[t]:
                same = False
                break
        if same:
            return b
    return -1


# ---- 3. components (BFS over boxes through constraints), in search order
@step
def find_components(ws, n_box):
    """Step 3: group the boxes into components (ws.box_comp; ws.comp_boxes in BFS order,
    component c from ws.comp_start[c]). Returns the number of components."""
    box_comp = ws.box_comp
    order = ws.comp_boxes
    for b in range(n_box):
        box_comp[b] = -1
    n_comp = 0
    pos = 0
    for b0 in range(n_box):
        if box_comp[b0] >= 0:
            continue
        ws.comp_start[n_comp] = pos
        box_comp[b0] = n_comp
        order[pos] = b0
        pos += 1
        head = ws.comp_start[n_comp]
        while head < pos:
            b = order[head]
            head += 1
            for t in range(ws.box_ncon[b]):
                c = ws.box_cons[b, t]
                for q in range(ws.con_nbox[c]):
                    b2 = ws.con_boxes[c, q]
                    if box_comp[b2] < 0:
                        box_comp[b2] = n_comp
                        order[pos] = b2
                        pos += 1
        n_comp += 1
    ws.comp_start[n_comp] = pos
    return n_comp


# ---- 4. enumerate each component
@step
def enumerate_components(ws, n_comp, remaining, max_work):
    """Step 4: tally every component's solutions by its mine count (ws.comp_w, and per
    box ws.box_e / box_kmin / box_kmax), a local estimate for a component past
    `max_work` search nodes, each scaled by its largest weight. Returns OK, or
    INCONSISTENT when some component has no solution."""
    w_used = 0
    e_used = 0
    nodes_total = 0
    for comp in range(n_comp):
        w_used, e_used = _start_component(ws, comp, remaining, w_used, e_used)
        nodes_total += search_component(ws, comp, remaining, max_work, -1, 0.0)
        if ws.comp_fallback[comp]:
            _fallback_component(ws, comp)
            ws.stats[STAT_FALLBACKS] += 1.0
        if not _scale_component(ws, comp):
            return INCONSISTENT  # no assignment satisfies this component
    ws.stats[STAT_NODES] = nodes_total
    return OK


@step
def _start_component(ws, comp, remaining, w_used, e_used):
    """Place component comp's tallies at offsets w_used / e_used and clear them; set its
    constraints' search counters. Returns the offsets after it."""
    s0 = ws.comp_start[comp]
    nb = ws.comp_start[comp + 1] - s0
    total_cells = 0
    for q in range(nb):
        total_cells += ws.box_size[ws.comp_boxes[s0 + q]]
    mmax = min(total_cells, remaining)
    ws.comp_mmax[comp] = mmax
    ws.comp_w_off[comp] = w_used
    for m in range(mmax + 1):
        ws.comp_w[w_used + m] = 0.0
    w_used += mmax + 1
    for q in range(nb):
        b = ws.comp_boxes[s0 + q]
        ws.box_e_off[b] = e_used
        for m in range(mmax + 1):
            ws.box_e[e_used + m] = 0.0
            ws.box_kmin[e_used + m] = 9
            ws.box_kmax[e_used + m] = -1
        e_used += mmax + 1
    _reset_constraints(ws, s0, nb)
    ws.comp_fallback[comp] = 0
    return w_used, e_used


@step
def _reset_constraints(ws, s0, nb):
    """Set the search counters of the constraints of the boxes comp_boxes[s0:s0 + nb]:
    nothing assigned, every cell of theirs still free."""
    for q in range(nb):
        b = ws.comp_boxes[s0 + q]
        for t in range(ws.box_ncon[b]):
            c = ws.box_cons[b, t]
            ws.con_sum[c] = 0
            ws.con_rem[c] = 0
    for q in range(nb):
        b = ws.comp_boxes[s0 + q]
        for t in range(ws.box_ncon[b]):
            ws.con_rem[ws.box_cons[b, t]] += ws.box_size[b]


@step
def search_component(ws, comp, remaining, max_work, target, budget):
    """Depth-first search over component comp's boxes in BFS order: stack_k[d] mines in
    box comp_boxes[s0 + d], bounded by every constraint of that box and by the mines
    left; each full assignment is tallied (`_record_solution`). Past `max_work` nodes
    the search stops and marks ws.comp_fallback[comp]. Returns the nodes visited.

    Sampling (`sample_layout`: target >= 0): nothing is tallied; the weight of each
    assignment with `target` mines is taken off `budget` and the search stops on the one
    that makes it negative, leaving it on the stack (stack_k); -1 nodes if none did."""
    order = ws.comp_boxes
    box_size = ws.box_size
    box_ncon = ws.box_ncon
    box_cons = ws.box_cons
    con_value = ws.con_value
    con_sum = ws.con_sum
    con_rem = ws.con_rem
    binom = ws.binom
    kst = ws.stack_k
    khi = ws.stack_khi
    wst = ws.stack_w
    mst = ws.stack_m
    s0 = ws.comp_start[comp]
    nb = ws.comp_start[comp + 1] - s0
    woff = ws.comp_w_off[comp]
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
            hi = min(hi, room)
            for t in range(box_ncon[b]):
                c = box_cons[b, t]
                need = con_value[c] - con_sum[c]
                hi = min(hi, need)
                lo = max(lo, need - (con_rem[c] - size))
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
            budget = _leaf(ws, woff, s0, nb, target, budget)
            if budget < 0.0:
                return nodes
        if nodes > max_work:
            ws.comp_fallback[comp] = 1
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
            budget = _leaf(ws, woff, s0, nb, target, budget)
            if budget < 0.0:
                return nodes
    return nodes if target < 0 else -1


@step
def _leaf(ws, woff, s0, nb, target, budget):
    """A full assignment on the search stack: tallied (target < 0), or when sampling,
    its weight taken off `budget` if it holds `target` mines. Returns the budget left."""
    if target < 0:
        _record_solution(ws, woff, s0, nb)
    elif ws.stack_m[nb] == target:
        budget -= ws.stack_w[nb]
    return budget


@step
def _record_solution(ws, woff, s0, nb):
    """Add the full assignment on the search stack (stack_m[nb] mines, weight
    stack_w[nb]) of the component at comp_boxes[s0:s0 + nb] to its tallies."""
    m = ws.stack_m[nb]
    w = ws.stack_w[nb]
    ws.comp_w[woff + m] += w
    for q in range(nb):
        k = ws.stack_k[q]
        e = ws.box_e_off[ws.comp_boxes[s0 + q]] + m
        ws.box_e[e] += w * k
        ws.box_kmin[e] = min(ws.box_kmin[e], k)
        ws.box_kmax[e] = max(ws.box_kmax[e], k)


@step
def _scale_component(ws, comp):
    """Divide component comp's weights and box tallies by its largest weight (expert
    boards overflow otherwise), keeping the log of it. False when every weight is 0."""
    s0 = ws.comp_start[comp]
    nb = ws.comp_start[comp + 1] - s0
    mmax = ws.comp_mmax[comp]
    woff = ws.comp_w_off[comp]
    top = 0.0
    for m in range(mmax + 1):
        top = max(top, ws.comp_w[woff + m])
    if top == 0.0:
        return False
    ws.comp_logscale[comp] = math.log(top)
    inv = 1.0 / top
    for m in range(mmax + 1):
        ws.comp_w[woff + m] *= inv
    for q in range(nb):
        e0 = ws.box_e_off[ws.comp_boxes[s0 + q]]
        for m in range(mmax + 1):
            ws.box_e[e0 + m] *= inv
    return True


@kernel
def _fallback_component(ws, comp):
    """A component whose search hit the work bound gets a local estimate: each box at the
    mean density its numbers ask for (d_b), the component's mine count m spread as a
    normal approximation around the sum of those densities (so every m from 0 to mmax
    keeps some weight and the global count can always be met), and a box holding
    d_b * m / expected of its cells' mines given m. Never claims certainty."""
    s0 = ws.comp_start[comp]
    nb = ws.comp_start[comp + 1] - s0
    mmax = ws.comp_mmax[comp]
    woff = ws.comp_w_off[comp]
    expected = 0.0
    variance = 1.0
    for q in range(nb):
        b = ws.comp_boxes[s0 + q]
        dens = _box_density(ws, b)
        expected += dens * ws.box_size[b]
        variance += dens * (1.0 - dens) * ws.box_size[b]
    for m in range(mmax + 1):
        z = (m - expected) / math.sqrt(variance)
        ws.comp_w[woff + m] = math.exp(-0.5 * z * z) + 1e-300
    for q in range(nb):
        b = ws.comp_boxes[s0 + q]
        dens = _box_density(ws, b)
        e0 = ws.box_e_off[b]
        for m in range(mmax + 1):
            share = dens * m / expected if expected > 0.0 else m / max(mmax, 1)
            share = min(share, 1.0)
            ws.box_e[e0 + m] = ws.comp_w[woff + m] * share * ws.box_size[b]
            ws.box_kmin[e0 + m] = 0
            ws.box_kmax[e0 + m] = ws.box_size[b]


@kernel
def _box_density(ws, b):
    """Mean over box b's constraints of (mines needed / cells it touches)."""
    dens = 0.0
    for t in range(ws.box_ncon[b]):
        c = ws.box_cons[b, t]
        cells = 0
        for u in range(ws.con_nbox[c]):
            cells += ws.box_size[ws.con_boxes[c, u]]
        dens += ws.con_value[c] / cells
    return dens / ws.box_ncon[b]


# ---- 5. combine components by mine count with the untouched cells' weight
@step
def combine_components(ws, n_comp, remaining, untouched):
    """Step 5: the components' joint mine distribution (ws.prefix), the untouched cells'
    weight by frontier mines (ws.untouched_w), suffixes absorbed into it (ws.suffix),
    and the log number of layouts (ws.stats). Rows of prefix / suffix are
    remaining + 1 long. Returns (used length of the last prefix row, total weight);
    the length is -1 when no total mine count fits."""
    plen, total = _total_layouts(ws, n_comp, remaining, untouched)
    if plen >= 0:
        _suffixes(ws, n_comp, remaining)
    return plen, total


@step
def _total_layouts(ws, n_comp, remaining, untouched):
    """combine_components without the suffixes: ws.prefix, ws.untouched_w and the log
    number of layouts (ws.stats). Returns (used length of the last prefix row, total
    weight), the length -1 when no total mine count fits."""
    plen = _prefix_convolutions(ws, n_comp, remaining)
    gmax = _untouched_weights(ws, n_comp, remaining, untouched, plen)
    if gmax == -1e300:
        return -1, 0.0  # no total mine count fits
    last = n_comp * (remaining + 1)
    total = 0.0
    for t in range(plen):
        total += ws.prefix[last + t] * ws.untouched_w[t]
    if total <= 0.0:
        return -1, 0.0
    logz = math.log(total) + gmax
    for comp in range(n_comp):
        logz += ws.comp_logscale[comp]
    ws.stats[STAT_LOG_LAYOUTS] = logz
    return plen, total


@step
def _prefix_convolutions(ws, n_comp, remaining):
    """prefix row c = distribution of the first c components' mines (capped at
    `remaining`); row c + 1 uses min(length of row c + mmax of component c,
    remaining + 1) entries, row 0 one. Returns the last row's length."""
    stride = remaining + 1
    P = ws.prefix
    W = ws.comp_w
    P[0] = 1.0
    plen = 1
    for comp in range(n_comp):
        woff = ws.comp_w_off[comp]
        mmax = ws.comp_mmax[comp]
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
    return plen


@step
def _untouched_weights(ws, n_comp, remaining, untouched, plen):
    """ws.untouched_w[t] = C(untouched, remaining - t), scaled by its largest value over
    the feasible frontier totals t. Returns the log of that scale, -1e300 when no t is
    feasible."""
    last = n_comp * (remaining + 1)
    gmax = -1e300
    for t in range(remaining + 1):
        r = remaining - t
        if r <= untouched and t < plen and ws.prefix[last + t] > 0.0:
            gmax = max(gmax, _log_binom(ws.logfact, untouched, r))
    if gmax == -1e300:
        return gmax
    for t in range(remaining + 1):
        r = remaining - t
        if r <= untouched:
            ws.untouched_w[t] = math.exp(_log_binom(ws.logfact, untouched, r) - gmax)
        else:
            ws.untouched_w[t] = 0.0
    return gmax


@step
def _suffixes(ws, n_comp, remaining):
    """suffix row c: the untouched weight with components c.. absorbed:
    row n_comp = untouched_w, row c [t] = sum_j comp_w_c[j] * row c + 1 [t + j]."""
    stride = remaining + 1
    H = ws.suffix
    W = ws.comp_w
    hb = n_comp * stride
    for t in range(remaining + 1):
        H[hb + t] = ws.untouched_w[t]
    for comp in range(n_comp - 1, -1, -1):
        woff = ws.comp_w_off[comp]
        mmax = ws.comp_mmax[comp]
        src = (comp + 1) * stride
        dst = comp * stride
        for t in range(remaining + 1):
            acc = 0.0
            top_j = min(mmax, remaining - t)
            for j in range(top_j + 1):
                acc += W[woff + j] * H[src + t + j]
            H[dst + t] = acc


# ---- 6. marginals
@step
def marginals(ws, view, known, n_comp, remaining, untouched, plen, inv_total):
    """Step 6: every unrevealed non-known cell's mine probability and certain code into
    ws.prob / ws.certain, from its box's tallies (or the untouched cells' share)."""
    plen_c = 1  # used length of prefix row comp (see _prefix_convolutions)
    for comp in range(n_comp):
        _others(ws, comp, remaining, plen_c)
        _box_marginals(ws, comp, inv_total)
        plen_c = min(plen_c + ws.comp_mmax[comp], remaining + 1)
    p_untouched, code_untouched = _untouched_marginal(ws, n_comp, remaining, untouched, plen, inv_total)
    for i in range(view.shape[0]):
        if view[i] >= 0 or known[i]:
            continue
        b = ws.cell_box[i]
        if b >= 0:
            ws.prob[i] = ws.box_prob[b]
            ws.certain[i] = ws.box_code[b]
        else:
            ws.prob[i] = p_untouched
            ws.certain[i] = code_untouched


@step
def _others(ws, comp, remaining, plen_c):
    """ws.others[m] = weight of everything else (the other components and the untouched
    cells) when component comp holds m mines; plen_c: used length of prefix row comp."""
    stride = remaining + 1
    W = ws.comp_w
    P = ws.prefix
    H = ws.suffix
    woff = ws.comp_w_off[comp]
    pbase = comp * stride
    hbase = (comp + 1) * stride
    for m in range(ws.comp_mmax[comp] + 1):
        acc = 0.0
        if W[woff + m] > 0.0:
            for i in range(remaining - m + 1):
                if i >= plen_c:
                    break
                pi = P[pbase + i]
                if pi != 0.0:
                    acc += pi * H[hbase + m + i]
        ws.others[m] = acc


@step
def _box_marginals(ws, comp, inv_total):
    """ws.box_prob / ws.box_code of component comp's boxes (certain only when the
    component was searched exactly), from their tallies and ws.others."""
    W = ws.comp_w
    R = ws.others
    woff = ws.comp_w_off[comp]
    mmax = ws.comp_mmax[comp]
    s0 = ws.comp_start[comp]
    nb = ws.comp_start[comp + 1] - s0
    for q in range(nb):
        b = ws.comp_boxes[s0 + q]
        e0 = ws.box_e_off[b]
        size = ws.box_size[b]
        acc = 0.0
        always_safe = True
        always_mine = True
        for m in range(mmax + 1):
            if R[m] > 0.0 and W[woff + m] > 0.0:
                acc += ws.box_e[e0 + m] * R[m]
                if ws.box_kmax[e0 + m] > 0:
                    always_safe = False
                if ws.box_kmin[e0 + m] < size:
                    always_mine = False
        p = acc * inv_total / size
        code = UNCERTAIN
        if ws.comp_fallback[comp] == 0:
            if always_safe:
                p = 0.0
                code = CERTAIN_SAFE
            elif always_mine:
                p = 1.0
                code = CERTAIN_MINE
        ws.box_prob[b] = min(p, 1.0)
        ws.box_code[b] = code


@step
def _untouched_marginal(ws, n_comp, remaining, untouched, plen, inv_total):
    """(mine probability, certain code) of the cells touching no number."""
    if untouched == 0:
        return 0.0, UNCERTAIN
    last = n_comp * (remaining + 1)
    acc = 0.0
    lo_r = remaining + 1
    hi_r = -1
    for t in range(plen):
        wt = ws.prefix[last + t] * ws.untouched_w[t]
        if wt > 0.0:
            r = remaining - t
            acc += wt * r
            lo_r = min(lo_r, r)
            hi_r = max(hi_r, r)
    if hi_r == 0:
        return 0.0, CERTAIN_SAFE
    if lo_r == untouched:
        return 1.0, CERTAIN_MINE
    return acc * inv_total / untouched, UNCERTAIN


NOT_RECOUNTED = -1  # recount_with_mines: the position's solve fell back somewhere; solve in full instead


@kernel  # a call, not inlined: its callers (best's pattern weights) are inlined in several places
def recount_with_mines(ws, out, cells, n_cells, max_work):
    """After `solve_kernel` on ws: the log number of layouts with cells[:n_cells] (unrevealed,
    not known, distinct) all mines as well, into out.stats[STAT_LOG_LAYOUTS] (out: a
    scratch Workspace of the same size; ws is not changed). The same count as solving with
    those cells added to `known`, without redoing the work they leave as it was: a cell
    touching no number only takes one untouched cell and one mine away, and only the
    components holding a cell are searched again, their boxes and constraints each one
    cell and one mine less; every other component keeps its tallies. Returns OK,
    INCONSISTENT (no layout has them all mines), or NOT_RECOUNTED when ws or a component
    searched again hit the work bound (its count is an estimate)."""
    if ws.stats[STAT_FALLBACKS] != 0.0:
        return NOT_RECOUNTED
    n_comp = np.int64(ws.stats[STAT_COMPONENTS])
    remaining = np.int64(ws.stats[STAT_REMAINING]) - n_cells
    untouched = np.int64(ws.stats[STAT_UNTOUCHED])
    if remaining < 0:
        return INCONSISTENT
    n_box = ws.comp_start[n_comp]
    for c in range(ws.con_value.shape[0]):  # constraints are numbered below the cell count
        out.con_value[c] = ws.con_value[c]
    for q in range(n_box):
        b = ws.comp_boxes[q]
        out.comp_boxes[q] = b
        out.box_size[b] = ws.box_size[b]
        out.box_ncon[b] = ws.box_ncon[b]
        for t in range(ws.box_ncon[b]):
            out.box_cons[b, t] = ws.box_cons[b, t]
    for comp in range(n_comp + 1):
        out.comp_start[comp] = ws.comp_start[comp]
    w_used = 0
    for comp in range(n_comp):
        out.comp_mmax[comp] = ws.comp_mmax[comp]
        out.comp_logscale[comp] = ws.comp_logscale[comp]
        out.comp_fallback[comp] = 0  # marks the components to search again
        woff = ws.comp_w_off[comp]
        out.comp_w_off[comp] = woff
        for m in range(ws.comp_mmax[comp] + 1):
            out.comp_w[woff + m] = ws.comp_w[woff + m]
        w_used = max(w_used, woff + ws.comp_mmax[comp] + 1)
    for t in range(n_cells):
        b = ws.cell_box[cells[t]]
        if b < 0:
            untouched -= 1
            continue
        out.box_size[b] -= 1
        for u in range(ws.box_ncon[b]):
            out.con_value[ws.box_cons[b, u]] -= 1
        out.comp_fallback[ws.box_comp[b]] = 1
    if untouched < 0:
        return INCONSISTENT
    for q in range(n_box):
        b = ws.comp_boxes[q]
        for u in range(out.box_ncon[b]):
            if out.con_value[out.box_cons[b, u]] < 0:
                return INCONSISTENT  # a number with more mines around it than it shows
    e_used = 0
    for comp in range(n_comp):
        if out.comp_fallback[comp] == 0:
            continue
        w_used, e_used = _start_component(out, comp, remaining, w_used, e_used)  # clears comp_fallback
        search_component(out, comp, remaining, max_work, -1, 0.0)
        if out.comp_fallback[comp]:
            return NOT_RECOUNTED
        if not _scale_component(out, comp):
            return INCONSISTENT
    plen, _ = _total_layouts(out, n_comp, remaining, untouched)
    return OK if plen >= 0 else INCONSISTENT


@kernel
def untouched_joint(ws, n_mine, n_safe):
    """After `solve_kernel`: the probability that n_mine given cells touching no number
    are all mines and n_safe other such cells all safe. Those cells are exchangeable
    given how many mines they hold, so it is E[C(U - a - b, T - a) / C(U, T)] over the
    untouched cells' mine count T (U untouched cells, a = n_mine, b = n_safe): no search."""
    n_comp = np.int64(ws.stats[STAT_COMPONENTS])
    remaining = np.int64(ws.stats[STAT_REMAINING])
    untouched = np.int64(ws.stats[STAT_UNTOUCHED])
    if n_mine + n_safe > untouched:
        return 0.0
    plen = 1
    for comp in range(n_comp):
        plen = min(plen + ws.comp_mmax[comp], remaining + 1)
    last = n_comp * (remaining + 1)
    total = 0.0
    acc = 0.0
    for t in range(plen):
        wt = ws.prefix[last + t] * ws.untouched_w[t]
        if wt <= 0.0:
            continue
        total += wt
        big_t = remaining - t
        if big_t < n_mine or untouched - big_t < n_safe:
            continue
        acc += wt * math.exp(_log_binom(ws.logfact, untouched - n_mine - n_safe, big_t - n_mine)
                             - _log_binom(ws.logfact, untouched, big_t))
    return acc / total if total > 0.0 else 0.0


# ---- sampling a layout
SAMPLE_OK = 0
SAMPLE_ESTIMATED = 1  # some component was past the work bound: its weights are an estimate
SAMPLE_FAILED = 2  # a rounding corner: no assignment was drawn (never seen; the caller may retry)


@kernel
def _draw(weights, lo, hi, total, rng):
    """An index in [lo, hi) drawn with probability weights[i] / total."""
    u = rng.random() * total
    last = lo
    for i in range(lo, hi):
        w = weights[i]
        if w > 0.0:
            last = i
            u -= w
            if u < 0.0:
                return i
    return last  # u met the rounding of total: the last index with weight


@kernel
def _choose_cells(order, lo, size, k, out, rng):
    """Mark k of the `size` cells order[lo:lo + size] as mines in `out`, uniformly
    (a partial Fisher-Yates shuffle of that slice)."""
    for i in range(k):
        j = i + uniform_below(rng, size - i)
        t = order[lo + i]
        order[lo + i] = order[lo + j]
        order[lo + j] = t
        out[order[lo + i]] = 1


@kernel
def _group_cells(ws, view, known, n_box):
    """ws.cell_order: every unrevealed non-known cell, by box (box b's from
    ws.box_start[b]), the untouched ones last (from ws.box_start[n_box])."""
    n = view.shape[0]
    for b in range(n_box + 1):
        ws.box_start[b] = 0
    for i in range(n):
        if view[i] < 0 and not known[i]:
            b = ws.cell_box[i]
            ws.box_start[(b if b >= 0 else n_box)] += 1
    acc = 0
    for b in range(n_box + 1):
        size = ws.box_start[b]
        ws.box_start[b] = acc
        acc += size
    for i in range(n):
        if view[i] < 0 and not known[i]:
            b = ws.cell_box[i]
            b = b if b >= 0 else n_box
            ws.cell_order[ws.box_start[b]] = i
            ws.box_start[b] += 1
    for b in range(n_box, 0, -1):  # each start was moved to the next box's: shift back
        ws.box_start[b] = ws.box_start[b - 1]
    ws.box_start[0] = 0


@kernel
def sample_layout(ws, view, known, rng, out):
    """A mine layout drawn uniformly among all layouts consistent with `view`, exactly
    (no rejection). Call it after `solve_kernel(ws, view, known, ...)` returned OK, with
    the same view and known; it may be called many times for one solve.

    Writes out[i] = 1 on the drawn mines (known cells included), 0 elsewhere. How: each
    component's mine count is drawn in turn given the ones drawn before (its weight by
    mine count times the suffix weight of everything after it, ws.suffix), then one of
    its assignments of box mine counts with that total, by weight (`search_component`
    again, stopping at a random point of the cumulative weight), then the cells of each
    box uniformly; the cells touching no number take the remaining mines uniformly.
    Returns SAMPLE_OK, SAMPLE_ESTIMATED (a component past the work bound: its draw
    follows the estimate) or SAMPLE_FAILED."""
    n = view.shape[0]
    n_comp = np.int64(ws.stats[STAT_COMPONENTS])
    remaining = np.int64(ws.stats[STAT_REMAINING])
    n_box = ws.comp_start[n_comp] if n_comp > 0 else 0
    stride = remaining + 1
    for i in range(n):
        out[i] = 1 if (view[i] < 0 and known[i]) else 0
    _group_cells(ws, view, known, n_box)
    status = SAMPLE_OK
    used = 0
    for comp in range(n_comp):
        woff = ws.comp_w_off[comp]
        top = min(ws.comp_mmax[comp], remaining - used)
        hrow = (comp + 1) * stride + used
        total = 0.0
        for j in range(top + 1):  # others' weight into ws.others[j]
            ws.others[j] = ws.comp_w[woff + j] * ws.suffix[hrow + j]
            total += ws.others[j]
        if total <= 0.0:
            return SAMPLE_FAILED
        m = _draw(ws.others, 0, top + 1, total, rng)
        used += m
        s0 = ws.comp_start[comp]
        nb = ws.comp_start[comp + 1] - s0
        if ws.comp_fallback[comp]:
            status = SAMPLE_ESTIMATED
            if not _spread_estimate(ws, s0, nb, m, rng, out):
                return SAMPLE_FAILED
            continue
        _reset_constraints(ws, s0, nb)
        raw = ws.comp_w[woff + m] * math.exp(ws.comp_logscale[comp])
        budget = rng.random() * raw * (1.0 - 1e-12)  # the tally's rounding cannot leave it unspent
        if search_component(ws, comp, remaining, 1 << 62, m, budget) < 0:
            return SAMPLE_FAILED
        for q in range(nb):
            b = ws.comp_boxes[s0 + q]
            _choose_cells(ws.cell_order, ws.box_start[b], ws.box_size[b], ws.stack_k[q], out, rng)
    rest = remaining - used
    lo = ws.box_start[n_box]
    size = np.int64(ws.stats[STAT_UNTOUCHED])
    if rest < 0 or rest > size:
        return SAMPLE_FAILED
    _choose_cells(ws.cell_order, lo, size, rest, out, rng)
    return status


@kernel
def _spread_estimate(ws, s0, nb, m, rng, out):
    """m mines over an estimated component's cells, uniformly (no exact weights exist)."""
    cells = 0
    for q in range(nb):
        cells += ws.box_size[ws.comp_boxes[s0 + q]]
    if m > cells:
        return False
    for _ in range(m):
        pick = uniform_below(rng, cells)
        for q in range(nb):
            b = ws.comp_boxes[s0 + q]
            lo = ws.box_start[b]
            for t in range(ws.box_size[b]):
                c = ws.cell_order[lo + t]
                if out[c] == 0:
                    if pick == 0:
                        out[c] = 1
                    pick -= 1
        cells -= 1
    return True


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
    """The view as an array, or ValueError saying what is wrong with it."""
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
    arr, _, ws = _solved(view, mines, max_work)
    shape = arr.shape
    return Solution(
        probabilities=ws.prob.reshape(shape),
        safe=(ws.certain == CERTAIN_SAFE).reshape(shape),
        mine=(ws.certain == CERTAIN_MINE).reshape(shape),
        log_layouts=float(ws.stats[STAT_LOG_LAYOUTS]),
        exact=bool(ws.stats[STAT_FALLBACKS] == 0),
        fallbacks=int(ws.stats[STAT_FALLBACKS]),
        nodes=int(ws.stats[STAT_NODES]),
    )


def _solved(view, mines, max_work):
    """(the checked view; the view flattened, a writeable int8 copy; a Workspace holding its solution);
    ValueError on bad input or an inconsistent position."""
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
    flat = np.array(arr, dtype=np.int8).ravel()  # writeable: a read-only view (Game.view) is another numba type
    n = flat.shape[0]
    ws = new_workspace(n, mines)
    code = solve_fields(tuple(ws), flat, np.zeros(n, np.uint8), mines, nbr, nbr_count, int(max_work))
    if code != OK:
        raise ValueError(f"inconsistent position: no layout of {mines} mines agrees with the revealed numbers")
    return arr, flat, ws


@njit(cache=True)
def _sample_many(fields, view, known, rng, out):
    ws = Workspace(*fields)
    worst = SAMPLE_OK
    for k in range(out.shape[0]):
        code = sample_layout(ws, view, known, rng, out[k])
        worst = max(worst, code)
    return worst


def sample_layouts(view, mines, n: int, seed=None, *, max_work: int = DEFAULT_MAX_WORK) -> np.ndarray:
    """`n` mine layouts drawn independently and uniformly among those consistent with
    `view` (exact: no rejection): bool (n, rows, cols). `seed`: int, SeedSequence or Generator.

        >>> import numpy as np
        >>> view = np.full((2, 2), -1); view[0, 0] = 1
        >>> int(sample_layouts(view, 1, 1000, seed=0).sum(axis=0)[0, 0])
        0
    """
    from .engine import as_generator

    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    arr, flat, ws = _solved(view, mines, max_work)
    rows, cols = arr.shape
    known = np.zeros(flat.shape[0], np.uint8)
    out = np.zeros((int(n), flat.shape[0]), np.uint8)
    code = _sample_many(tuple(ws), flat, known, as_generator(seed), out)
    if code == SAMPLE_FAILED:
        raise RuntimeError("sampling failed (a rounding corner case); please report the position")
    if code == SAMPLE_ESTIMATED:
        import warnings
        warnings.warn("a component passed max_work: the layouts follow its estimate, not the exact law",
                      stacklevel=2)
    return out.reshape(int(n), rows, cols).astype(bool)


def mine_probabilities(view, mines) -> np.ndarray:
    """Exact probability that each unrevealed cell holds a mine (NaN on revealed cells).
    See `solve` for the certain cells and the layout count."""
    return solve(view, mines).probabilities
