"""Gardea, Koontz & Silva (2015), "Training a Minesweeper Solver": the CSP solver, `gardea-csp`.

A reproduction of the paper's section III-D, not our strongest solver. Each decision:

1. **Certain moves in hand.** Certain moves found by an earlier decision and still
   pending (a queue) are played first, one per decision: a known mine is flagged (the
   paper's GUI marks them), a known safe cell is probed. Deductions stay true as the
   board opens, so a pending move is dropped only when its cell is no longer covered.
2. **Equation strategy** (Studholme). Every revealed number with covered neighbours
   gives sum(covered neighbours) = number - flagged neighbours. Constraints are
   simplified to a fixed point: a constraint whose value is 0 (all safe) or its size
   (all mines) settles its variables, which are substituted into every other
   constraint; the subset rule (x1+x2+x3+x4 = 2 and x1+x2 = 1 give x3+x4 = 1) replaces
   the larger constraint by the difference; equal constraints are merged. Cells settled
   here are certain moves (queued in cell order).
3. **CSP.** Otherwise the remaining constraints are split into coupled sets (sharing
   variables) and each set is solved by backtracking for ALL its solutions: the most
   constrained variable first, 0 tried before 1, consistency checked at each
   assignment. Solutions are tallied per number of mines k (count[k], and per variable
   how many of them put a mine there). Values of k that cannot fit the mines remaining
   (given the other sets' fewest and most mines, and the unconstrained cells) are thrown
   out. A variable that is 0 (or 1) in every remaining solution is certain.
4. **Crap shoot.** A set whose remaining solutions all use the same number of mines and
   none of whose variables has a covered neighbour outside the set (in another set, or
   unconstrained) can never be resolved: the guess is made in it now.
5. **Guess.** Otherwise the best frontier guess is the variable with the highest
   (solutions where it is 0) / (solutions). The probability of no mine in an
   unconstrained cell is estimated as 1 - (mines remaining - expected frontier mines) /
   (unconstrained cells). If that is higher, an unconstrained corner is probed, else an
   unconstrained edge cell, else a random unconstrained cell.

The first move falls out of rule 5: with nothing revealed, every cell is unconstrained,
so a corner is probed, as the paper prescribes.

Where the paper is vague, the plain reading (documented here, and in the notebook):

* "Most constrained variable first" is read as in CS221 (the course the paper was written
  for): minimum remaining values. A variable with no consistent value left ends the
  branch at once; one with a single consistent value is assigned next (the first such in
  the set's order); otherwise the variable in the most constraints (ties: set order, a
  breadth-first order from the set's lowest cell). Consistency of a value: every
  constraint holding the variable can still reach its value.
* Solutions are counted, not weighted: the best guess is the paper's ratio of solution
  counts, not the exact probability (which would weight each solution by the ways to
  place the other mines).
* The mine-count filter works set by set: k is kept when k + (fewest mines of the other
  sets) <= mines remaining <= k + (most mines of the other sets) + unconstrained cells,
  repeated until nothing changes. The expected frontier mines are the sum over sets of
  the mean number of mines of their remaining solutions (again counts, not weights).
* The crap-shoot test is the paper's sentence: same mine count in every remaining
  solution, and no variable with a covered neighbour that is not in its own set. The
  crap-shoot guess is the set's best variable (over all crap-shoot sets at once).
* The unconstrained area wins only when strictly safer ("if the probability ... is
  greater"). Ties between equally good cells (best variables, corners, edge cells,
  random unconstrained cells) are broken uniformly at random with the agent's rng.
* "% of the board uncovered" (the notebook's metric) is revealed / safe cells, so a won
  game counts 100%.
* Flags: the agent trusts every flag on the board as a mine. In its own games only it
  flags, and only proved mines; a wrong flag placed by hand misleads it.

Bounded work (not in the paper): the backtracking of one coupled set stops after
`max_nodes` assignments (default 200,000; measured: 2 fallbacks in 100,000 games on
8x8x10, 1-4 per 20,000 games at 8x8 with 12-20 mines, none in 20,000 games on each
board of the board-size figure), and the solution tallies live in a buffer of bounded size. A
set that hits either bound is *abandoned*: it gives no certain move and no crap shoot,
and each of its variables is scored by the local estimate 1 - max(value / size) over
the constraints holding it (the expected mines of the set: the sum of those
estimates). The decision then proceeds as in rule 5 and counts one `fallbacks`.
Batch records carry, per game, `fallbacks`, `guesses` (reveals not proved safe, the
opening corner included) and `crap_shoots` (guesses made by rule 4).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cells import COVERED, FLAG, FLAGGED, REVEAL
from ...engine import (
    SP_COLS,
    SP_MINES,
    SP_ROWS,
    kernel,
    uniform_below,
)
from ..base import Agent, cell_to_move, register
from ..batch import extra_index, hook, hooks, play_games
from ..spec import ALWAYS, Spec, integer
from ..why import at, count, num

DEFAULT_MAX_NODES = 200_000
MAX_NODES_LIMIT = 1_000_000_000
TALLY_CAP = 1 << 21  # entries of the per-(k, variable) tally buffer (int64): 16 MB at most

# GardeaWork.meta fields: the queue of certain moves (head, length), the game's counters
# (fallbacks, guesses, crap shoots), and the last decision's coupled sets and constraints
GM_QHEAD, GM_QLEN, GM_FALLBACKS, GM_GUESSES, GM_CRAP, GM_NSETS, GM_NCONS = range(7)
N_GARDEA_META = 8
# GardeaWork.set_info columns: fewest and most mines of the solutions kept, abandoned
# (0/1), solutions kept, crap shoot (0/1)
SI_KMIN, SI_KMAX, SI_ABANDONED, SI_TOTAL, SI_CRAP = range(5)


class GardeaWork(NamedTuple):
    """The decision's scratch arrays for a board of n cells (`ws`; one game at a time).

    Constraint c says: the sum of its variables con_vars[c, :con_size[c]] (sorted
    cells) is con_value[c]. Coupled set s holds the variables
    set_vars[set_var_start[s]:set_var_start[s + 1]] and the constraints
    set_cons[set_con_start[s]:set_con_start[s + 1]]. Its solutions with k mines number
    sol_count[sol_count_start[s] + k], and those with a mine on its i-th variable
    sol_ones[sol_ones_start[s] + k nv + i] (nv variables).
    """

    meta: np.ndarray            # int64[N_GARDEA_META]: GM_* fields
    queue_cell: np.ndarray      # int32[n]     certain moves pending: cells,
    queue_kind: np.ndarray      # int8[n]        and kinds (FLAG or REVEAL)
    known: np.ndarray           # int8[n]      -1 unknown, 0 safe, 1 mine (this decision)
    con_vars: np.ndarray        # int32[n, 8]  a constraint's variables (sorted cells)
    con_size: np.ndarray        # int32[n]     how many
    con_value: np.ndarray       # int32[n]     mines among them
    con_alive: np.ndarray       # uint8[n]     0 dropped, 1 alive, 2 listed in its coupled set
    cell_cons: np.ndarray       # int32[n, 8]  constraints built with this cell,
    cell_ncons: np.ndarray      # int32[n]       how many
    worklist: np.ndarray        # int32[n]     constraints to simplify (a stack)
    on_worklist: np.ndarray     # uint8[n]
    var_cons: np.ndarray        # int32[n, 8]  alive constraints holding this cell,
    var_ncons: np.ndarray       # int32[n]       how many
    set_of: np.ndarray          # int32[n]     coupled set of a cell (-1: not a frontier variable)
    set_vars: np.ndarray        # int32[n]     set variables, grouped by set
    set_var_start: np.ndarray   # int32[n + 1]
    set_cons: np.ndarray        # int32[n]     set constraints, grouped by set
    set_con_start: np.ndarray   # int32[n + 1]
    assigned: np.ndarray        # int8[n]      backtracking: a variable's value (-1 unassigned)
    con_mines: np.ndarray       # int32[n]       mines assigned in a constraint
    con_free: np.ndarray        # int32[n]       its unassigned variables
    stack: np.ndarray           # int32[n]       the assigned variables, in order
    stack_alt: np.ndarray       # int8[n]        1: the other value is still to try
    sol_count: np.ndarray       # int64[2 n + 2]  solutions per (set, k)
    sol_count_start: np.ndarray  # int64[n + 1]
    sol_ones: np.ndarray        # int64[cap]   solutions with a mine per (set, k, variable)
    sol_ones_start: np.ndarray  # int64[n + 1]
    set_info: np.ndarray        # int64[n, 5]  SI_* columns
    safe: np.ndarray            # float64[n]   a variable's safe fraction
    scratch: np.ndarray         # int32[n]     BFS queue, candidate cells


def new_gardea_work(rows: int, cols: int) -> GardeaWork:
    """A fresh work state for a rows x cols board."""
    n = rows * cols
    cap = int(min((n + 1) * n, TALLY_CAP))
    return GardeaWork(
        meta=np.zeros(N_GARDEA_META, np.int64),
        queue_cell=np.zeros(n, np.int32),
        queue_kind=np.zeros(n, np.int8),
        known=np.full(n, -1, np.int8),
        con_vars=np.zeros((n, 8), np.int32),
        con_size=np.zeros(n, np.int32),
        con_value=np.zeros(n, np.int32),
        con_alive=np.zeros(n, np.uint8),
        cell_cons=np.zeros((n, 8), np.int32),
        cell_ncons=np.zeros(n, np.int32),
        worklist=np.zeros(n, np.int32),
        on_worklist=np.zeros(n, np.uint8),
        var_cons=np.zeros((n, 8), np.int32),
        var_ncons=np.zeros(n, np.int32),
        set_of=np.full(n, -1, np.int32),
        set_vars=np.zeros(n, np.int32),
        set_var_start=np.zeros(n + 1, np.int32),
        set_cons=np.zeros(n, np.int32),
        set_con_start=np.zeros(n + 1, np.int32),
        assigned=np.full(n, -1, np.int8),
        con_mines=np.zeros(n, np.int32),
        con_free=np.zeros(n, np.int32),
        stack=np.zeros(n, np.int32),
        stack_alt=np.zeros(n, np.int8),
        sol_count=np.zeros(2 * n + 2, np.int64),
        sol_count_start=np.zeros(n + 1, np.int64),
        sol_ones=np.zeros(cap, np.int64),
        sol_ones_start=np.zeros(n + 1, np.int64),
        set_info=np.zeros((n, 5), np.int64),
        safe=np.zeros(n, np.float64),
        scratch=np.zeros(n, np.int32),
    )


# ------------------------------------------------------------------ 1. certain moves in hand
@kernel
def _enqueue_settled(view, ws):
    """Queue every settled covered cell (ascending cells): flag mines, probe safe cells."""
    meta, qcell, qkind, val = ws.meta, ws.queue_cell, ws.queue_kind, ws.known
    q = 0
    for i in range(view.shape[0]):
        if view[i] == COVERED and val[i] >= 0:
            qcell[q] = i
            qkind[q] = FLAG if val[i] == 1 else REVEAL
            q += 1
    meta[GM_QHEAD] = 0
    meta[GM_QLEN] = q
    return q


@kernel
def _pop(view, ws):
    """The next pending certain move still playable, as (kind, cell); (-1, -1) if none."""
    meta, qcell, qkind = ws.meta, ws.queue_cell, ws.queue_kind
    while meta[GM_QHEAD] < meta[GM_QLEN]:
        h = meta[GM_QHEAD]
        meta[GM_QHEAD] = h + 1
        if view[qcell[h]] == COVERED:
            return np.int64(qkind[h]), np.int64(qcell[h])
    return np.int64(-1), np.int64(-1)


# ------------------------------------------------------------------ 2. the equation strategy
@kernel
def _remove_var(cv, cl, c, v):
    """Drop variable v from constraint c (if it holds it); whether it did."""
    m = cl[c]
    for j in range(m):
        if cv[c, j] == v:
            for t in range(j, m - 1):
                cv[c, t] = cv[c, t + 1]
            cl[c] = m - 1
            return True
    return False


@kernel
def _is_subset(cv, cl, a, b):
    """vars(a) subset of vars(b); both sorted."""
    j = 0
    for i in range(cl[a]):
        x = cv[a, i]
        while j < cl[b] and cv[b, j] < x:
            j += 1
        if j == cl[b] or cv[b, j] != x:
            return False
        j += 1
    return True


@kernel
def _push(work, inwork, top, c):
    """Put constraint c on the work stack unless it is there; the new top."""
    if inwork[c] == 0:
        inwork[c] = 1
        work[top] = c
        return top + 1
    return top


@kernel
def build_constraints(view, nbr, nbr_count, ws):
    """One constraint per revealed number with covered neighbours. Returns how many."""
    n = view.shape[0]
    val, cv, cl, cs, alive = ws.known, ws.con_vars, ws.con_size, ws.con_value, ws.con_alive
    inc, incn = ws.cell_cons, ws.cell_ncons
    for i in range(n):
        val[i] = -1
        incn[i] = 0
    nc = 0
    for i in range(n):
        if view[i] < 0:
            continue
        m = 0
        flags = 0
        for k in range(nbr_count[i]):
            j = nbr[i, k]
            if view[j] == COVERED:
                cv[nc, m] = j  # nbr rows are in ascending cell order
                m += 1
            elif view[j] == FLAGGED:
                flags += 1
        if m == 0:
            continue
        cl[nc] = m
        cs[nc] = view[i] - flags
        alive[nc] = 1
        for t in range(m):
            j = cv[nc, t]
            inc[j, incn[j]] = nc
            incn[j] += 1
        nc += 1
    ws.meta[GM_NCONS] = nc
    return nc


@kernel
def _settle(ws, v, x, top):
    """Variable v is known to be x: substitute it into every constraint holding it."""
    val, cv, cl, cs, alive = ws.known, ws.con_vars, ws.con_size, ws.con_value, ws.con_alive
    inc, incn, work, inwork = ws.cell_cons, ws.cell_ncons, ws.worklist, ws.on_worklist
    val[v] = x
    for t in range(incn[v]):
        c = inc[v, t]
        if alive[c] and _remove_var(cv, cl, c, v):
            cs[c] -= x
            top = _push(work, inwork, top, c)
    return top


@kernel
def simplify(ws, nc):
    """Trivial constraints and the subset rule to a fixed point. Returns cells settled."""
    cv, cl, cs, alive, inc, incn = ws.con_vars, ws.con_size, ws.con_value, ws.con_alive, ws.cell_cons, ws.cell_ncons
    work, inwork = ws.worklist, ws.on_worklist
    top = 0
    for c in range(nc - 1, -1, -1):  # popped in ascending order
        inwork[c] = 1
        work[top] = c
        top += 1
    settled = 0
    while top > 0:
        top -= 1
        c = work[top]
        inwork[c] = 0
        if not alive[c]:
            continue
        m = cl[c]
        if m == 0:
            alive[c] = 0
            continue
        if cs[c] <= 0 or cs[c] >= m:  # all safe / all mines (out-of-range values: inconsistent flags)
            x = 0 if cs[c] <= 0 else 1
            alive[c] = 0
            while cl[c] > 0:
                v = cv[c, 0]
                _remove_var(cv, cl, c, v)
                if ws.known[v] < 0:
                    settled += 1
                    top = _settle(ws, v, x, top)
            continue
        changed = False
        for i in range(m):
            u = cv[c, i]
            for t in range(incn[u]):
                d = inc[u, t]
                if d == c or not alive[d] or cl[d] == 0:  # an emptied constraint awaits its turn
                    continue
                if cl[d] < cl[c]:
                    if _is_subset(cv, cl, d, c):  # c <- c - d
                        for j in range(cl[d]):
                            _remove_var(cv, cl, c, cv[d, j])
                        cs[c] -= cs[d]
                        top = _push(work, inwork, top, c)
                        changed = True
                        break
                elif _is_subset(cv, cl, c, d):
                    if cl[d] == cl[c]:  # the same equation twice
                        alive[d] = 0
                    else:  # d <- d - c
                        for j in range(cl[c]):
                            _remove_var(cv, cl, d, cv[c, j])
                        cs[d] -= cs[c]
                        top = _push(work, inwork, top, d)
            if changed:
                break
    return settled


# ------------------------------------------------------------------ 3. coupled sets and their solutions
@kernel
def coupled_sets(view, ws, nc):
    """Group the alive constraints' variables into coupled sets (breadth first from each
    set's lowest cell). Returns how many."""
    n = view.shape[0]
    cv, cl, alive, vc, vcn, setid = ws.con_vars, ws.con_size, ws.con_alive, ws.var_cons, ws.var_ncons, ws.set_of
    svars, svoff, scons, scoff, bfs = ws.set_vars, ws.set_var_start, ws.set_cons, ws.set_con_start, ws.scratch
    for i in range(n):
        vcn[i] = 0
        setid[i] = -1
    for c in range(nc):
        if alive[c]:
            for j in range(cl[c]):
                v = cv[c, j]
                vc[v, vcn[v]] = c
                vcn[v] += 1
    ns = 0
    nv = 0
    ncs = 0
    for start in range(n):
        if vcn[start] == 0 or setid[start] >= 0:
            continue
        svoff[ns] = nv
        scoff[ns] = ncs
        setid[start] = ns
        head = 0
        tail = 0
        bfs[tail] = start
        tail += 1
        while head < tail:
            v = bfs[head]
            head += 1
            svars[nv] = v
            nv += 1
            for t in range(vcn[v]):
                c = vc[v, t]
                if alive[c] == 1:
                    alive[c] = 2  # 2: listed in its set
                    scons[ncs] = c
                    ncs += 1
                    for j in range(cl[c]):
                        w = cv[c, j]
                        if setid[w] < 0:
                            setid[w] = ns
                            bfs[tail] = w
                            tail += 1
        ns += 1
    svoff[ns] = nv
    scoff[ns] = ncs
    ws.meta[GM_NSETS] = ns
    return ns


@kernel
def _assign(ws, v, x):
    """Backtracking: give variable v the value x."""
    vc, vcn, asg, csum, cfree = ws.var_cons, ws.var_ncons, ws.assigned, ws.con_mines, ws.con_free
    asg[v] = x
    for t in range(vcn[v]):
        c = vc[v, t]
        csum[c] += x
        cfree[c] -= 1


@kernel
def _unassign(ws, v):
    """Backtracking: take variable v's value back."""
    vc, vcn, asg, csum, cfree = ws.var_cons, ws.var_ncons, ws.assigned, ws.con_mines, ws.con_free
    x = asg[v]
    asg[v] = -1
    for t in range(vcn[v]):
        c = vc[v, t]
        csum[c] -= x
        cfree[c] += 1


@kernel
def _pick(ws, v0, v1):
    """The most constrained unassigned variable of the set: (variable, can be 0, can be 1);
    variable -1 when some variable has no consistent value (a dead end)."""
    svars, vc, vcn, cs = ws.set_vars, ws.var_cons, ws.var_ncons, ws.con_value
    asg, csum, cfree = ws.assigned, ws.con_mines, ws.con_free
    best = -1
    best_deg = -1
    for i in range(v0, v1):
        v = svars[i]
        if asg[v] >= 0:
            continue
        can0 = True
        can1 = True
        for t in range(vcn[v]):
            c = vc[v, t]
            if csum[c] + 1 > cs[c]:
                can1 = False
            if csum[c] + cfree[c] - 1 < cs[c]:
                can0 = False
        if not can0 and not can1:
            return -1, False, False
        if can0 != can1:
            return v, can0, can1
        if vcn[v] > best_deg:
            best_deg = vcn[v]
            best = v
    return best, True, True


@kernel
def _mine_count_range(cnt, co, nv):
    """(fewest, most) mines of a set's solutions from its counts cnt[co:co + nv + 1]; (-1, -1) if none."""
    kmin = -1
    kmax = -1
    for k in range(nv + 1):
        if cnt[co + k] > 0:
            if kmin < 0:
                kmin = k
            kmax = k
    return kmin, kmax


@kernel
def enumerate_set(ws, s, max_nodes, ones_used):
    """All solutions of coupled set s, tallied per mine count. Returns the tally buffer
    used so far, or -1 when the set was abandoned (node budget or buffer exhausted)."""
    svars, svoff, scons, scoff, cl = ws.set_vars, ws.set_var_start, ws.set_cons, ws.set_con_start, ws.con_size
    asg, csum, cfree, stack, alt = ws.assigned, ws.con_mines, ws.con_free, ws.stack, ws.stack_alt
    cnt, cnt_off, ones, ones_off, info = ws.sol_count, ws.sol_count_start, ws.sol_ones, ws.sol_ones_start, ws.set_info
    v0 = svoff[s]
    v1 = svoff[s + 1]
    nv = v1 - v0
    info[s, SI_ABANDONED] = 0
    info[s, SI_CRAP] = 0
    co = cnt_off[s]
    cnt_off[s + 1] = co + nv + 1
    for k in range(nv + 1):
        cnt[co + k] = 0
    need = (nv + 1) * nv
    if ones_used + need > ones.shape[0]:
        info[s, SI_ABANDONED] = 1
        ones_off[s] = ones_used
        return -1
    ones_off[s] = ones_used
    for i in range(need):
        ones[ones_used + i] = 0
    for i in range(v0, v1):
        v = svars[i]
        asg[v] = -1
    for i in range(scoff[s], scoff[s + 1]):
        c = scons[i]
        csum[c] = 0
        cfree[c] = cl[c]
    depth = 0
    mines = 0
    nodes = 0
    abandoned = False
    while True:
        back = False
        if depth == nv:  # a solution
            cnt[co + mines] += 1
            base = ones_used + mines * nv
            for i in range(v0, v1):
                v = svars[i]
                if asg[v] == 1:
                    ones[base + i - v0] += 1
            back = True
        else:
            v, can0, can1 = _pick(ws, v0, v1)
            if v < 0:
                back = True
            else:
                x = 0 if can0 else 1
                _assign(ws, v, x)
                mines += x
                stack[depth] = v
                alt[depth] = 1 if (can0 and can1) else 0
                depth += 1
                nodes += 1
        if nodes > max_nodes:
            abandoned = True
            break
        if back:
            found = False
            while depth > 0:
                depth -= 1
                v = stack[depth]
                mines -= asg[v]
                _unassign(ws, v)
                if alt[depth]:
                    alt[depth] = 0
                    _assign(ws, v, 1)
                    mines += 1
                    depth += 1
                    nodes += 1
                    found = True
                    break
            if not found:
                break
    if abandoned:
        while depth > 0:
            depth -= 1
            _unassign(ws, stack[depth])
        info[s, SI_ABANDONED] = 1
        return -1
    kmin, kmax = _mine_count_range(cnt, co, nv)
    if kmin < 0:  # no solution at all: only with flags the numbers contradict
        info[s, SI_ABANDONED] = 1
        return -1
    info[s, SI_KMIN] = kmin
    info[s, SI_KMAX] = kmax
    return ones_used + need


@kernel
def filter_mine_counts(ws, ns, mines_left, unconstrained):
    """Throw out the mine counts k of each set that cannot fit the mines remaining."""
    svoff, cnt, cnt_off, info = ws.set_var_start, ws.sol_count, ws.sol_count_start, ws.set_info
    changed = True
    while changed:
        changed = False
        lo_all = 0
        hi_all = 0
        for s in range(ns):
            if info[s, SI_ABANDONED]:
                hi_all += svoff[s + 1] - svoff[s]
            else:
                lo_all += info[s, SI_KMIN]
                hi_all += info[s, SI_KMAX]
        for s in range(ns):
            if info[s, SI_ABANDONED]:
                continue
            lo_other = lo_all - info[s, SI_KMIN]
            hi_other = hi_all - info[s, SI_KMAX]
            co = cnt_off[s]
            kmin = -1
            kmax = -1
            for k in range(info[s, SI_KMIN], info[s, SI_KMAX] + 1):
                if cnt[co + k] == 0:
                    continue
                if k + lo_other > mines_left or k + hi_other + unconstrained < mines_left:
                    continue
                if kmin < 0:
                    kmin = k
                kmax = k
            if kmin < 0:  # nothing fits (contradictory flags): keep the set as it is
                continue
            if kmin != info[s, SI_KMIN] or kmax != info[s, SI_KMAX]:
                info[s, SI_KMIN] = kmin
                info[s, SI_KMAX] = kmax
                changed = True
                break  # recompute the totals


@kernel
def _local_estimate(ws, v):
    """A variable's mine estimate without enumeration: max value/size over its constraints."""
    vc, vcn, cl, cs = ws.var_cons, ws.var_ncons, ws.con_size, ws.con_value
    p = 0.0
    for t in range(vcn[v]):
        c = vc[v, t]
        q = cs[c] / cl[c]
        if q > p:
            p = q
    return min(p, 1.0)


@kernel
def set_tallies(ws, s):
    """Safe fraction of each variable of set s over the solutions kept; returns the
    set's expected number of mines (solution counts, not weights)."""
    svars, svoff, info, safe = ws.set_vars, ws.set_var_start, ws.set_info, ws.safe
    cnt, cnt_off, ones, ones_off = ws.sol_count, ws.sol_count_start, ws.sol_ones, ws.sol_ones_start
    v0 = svoff[s]
    nv = svoff[s + 1] - v0
    if info[s, SI_ABANDONED]:
        expected = 0.0
        for i in range(v0, v0 + nv):
            p = _local_estimate(ws, svars[i])
            safe[svars[i]] = 1.0 - p
            expected += p
        return expected
    co = cnt_off[s]
    total = 0
    for k in range(info[s, SI_KMIN], info[s, SI_KMAX] + 1):
        total += cnt[co + k]
    info[s, SI_TOTAL] = total
    expected = 0.0
    for i in range(nv):
        n1 = 0
        for k in range(info[s, SI_KMIN], info[s, SI_KMAX] + 1):
            n1 += ones[ones_off[s] + k * nv + i]
        safe[svars[v0 + i]] = (total - n1) / total
        expected += n1 / total
    return expected


@kernel
def _settle_certain(info, svoff, svars, safe, known, ns):
    """Mark the variables that are safe (or mines) in every solution kept of a set that
    was not abandoned; returns how many."""
    certain = 0
    for s in range(ns):
        if info[s, SI_ABANDONED]:
            continue
        for i in range(svoff[s], svoff[s + 1]):
            v = svars[i]
            if safe[v] == 1.0:
                known[v] = 0
                certain += 1
            elif safe[v] == 0.0:
                known[v] = 1
                certain += 1
    return certain


# ------------------------------------------------------------------ 4. crap shoots, 5. guesses
@kernel
def _is_crap_shoot(view, nbr, nbr_count, info, svoff, svars, setid, s):
    """Same mine count in every kept solution and no covered neighbour outside the set."""
    if info[s, SI_ABANDONED] or info[s, SI_KMIN] != info[s, SI_KMAX]:
        return False
    for i in range(svoff[s], svoff[s + 1]):
        v = svars[i]
        for k in range(nbr_count[v]):
            w = nbr[v, k]
            if view[w] == COVERED and setid[w] != s:
                return False
    return True


@kernel
def _pick_unconstrained(view, setid, cand, rows, cols, rng):
    """An unconstrained covered cell: a corner if any, else an edge cell, else any
    (uniformly at random within the first class that has one); -1 if none."""
    n = view.shape[0]
    for cls in range(3):
        m = 0
        for i in range(n):
            if view[i] != COVERED or setid[i] >= 0:
                continue
            r = i // cols
            c = i % cols
            on_row = r == 0 or r == rows - 1
            on_col = c == 0 or c == cols - 1
            if (cls == 0 and on_row and on_col) or (cls == 1 and (on_row or on_col)) or cls == 2:
                cand[m] = i
                m += 1
        if m > 0:
            return cand[uniform_below(rng, m)]
    return -1


# 16 parameters: the arrays it reads one by one, not the GardeaWork tuple: numba passes a
# NamedTuple as every one of its ~35 arrays, and passing it into this rarely-run branch
# cost about 7% of gardea-csp's speed (measured when the decision was split).
@kernel
def _guess(view, spec, nbr, nbr_count, info, svoff, svars, setid, safe, scratch, meta, ns, mines_left, unconstrained,
           expected, rng):
    """Rules 4 and 5: the cell to probe when nothing is certain."""
    best = -1
    best_safe = -1.0
    ties = 0
    for crap in (True, False):
        for s in range(ns):
            if crap and not _is_crap_shoot(view, nbr, nbr_count, info, svoff, svars, setid, s):
                continue
            for i in range(svoff[s], svoff[s + 1]):
                v = svars[i]
                if safe[v] > best_safe:
                    best_safe = safe[v]
                    best = v
                    ties = 1
                elif safe[v] == best_safe:
                    ties += 1
                    if rng.random() * ties < 1.0:
                        best = v
        if crap and best >= 0:
            meta[GM_GUESSES] += 1
            meta[GM_CRAP] += 1
            return best
    if unconstrained > 0:
        p_mine = (mines_left - expected) / unconstrained
        p_safe = 1.0 - min(1.0, max(0.0, p_mine))
        if best < 0 or p_safe > best_safe:
            best = _pick_unconstrained(view, setid, scratch, spec[SP_ROWS], spec[SP_COLS], rng)
    meta[GM_GUESSES] += 1
    return best


# ------------------------------------------------------------------ the decision
@kernel
def _count_cells(view):
    """(flagged, covered) cells of the view."""
    flags = 0
    covered = 0
    for i in range(view.shape[0]):
        if view[i] == FLAGGED:
            flags += 1
        elif view[i] == COVERED:
            covered += 1
    return flags, covered


@kernel
def gardea_decide(view, spec, nbr, nbr_count, ws, max_nodes, rng):
    """The agent's next move on `view`: (kind, cell), kind FLAG or REVEAL; (-1, -1)
    when no covered cell is left. Batch and interactive play both call this.

    Its helpers that are not steps of their own (`_count_cells`, `_settle_certain`,
    `_guess`) take the arrays they use, not `ws`: numba passes each of ws's 31 arrays
    as seven or more machine words, and such calls made the decision measurably slower."""
    kind, cell = _pop(view, ws)  # 1. certain moves in hand
    if cell >= 0:
        return kind, cell
    flags, covered = _count_cells(view)
    if covered == 0:
        return np.int64(-1), np.int64(-1)
    mines_left = spec[SP_MINES] - flags

    nc = build_constraints(view, nbr, nbr_count, ws)  # 2. the equation strategy
    if simplify(ws, nc) > 0:
        _enqueue_settled(view, ws)
        return _pop(view, ws)

    ns = coupled_sets(view, ws, nc)  # 3. coupled sets, all their solutions
    unconstrained = covered - ws.set_var_start[ns]
    used = 0
    abandoned = False
    ws.sol_count_start[0] = 0
    for s in range(ns):
        got = enumerate_set(ws, s, max_nodes, used)
        if got < 0:
            abandoned = True
        else:
            used = got
    if abandoned:
        ws.meta[GM_FALLBACKS] += 1
    filter_mine_counts(ws, ns, mines_left, unconstrained)
    expected = 0.0
    for s in range(ns):
        expected += set_tallies(ws, s)
    if _settle_certain(ws.set_info, ws.set_var_start, ws.set_vars, ws.safe, ws.known, ns) > 0:
        _enqueue_settled(view, ws)
        return _pop(view, ws)

    best = _guess(view, spec, nbr, nbr_count, ws.set_info, ws.set_var_start, ws.set_vars, ws.set_of, ws.safe,
                  ws.scratch, ws.meta, ns, mines_left, unconstrained, expected, rng)  # 4., 5.
    return np.int64(REVEAL), np.int64(best)


@kernel
def _reset_game(ws):
    """A new game: no pending moves, counters at zero."""
    meta = ws.meta
    for i in range(meta.shape[0]):
        meta[i] = 0


#: the record columns gardea-csp adds, in the order of its batch state's `extra`
GARDEA_EXTRA = ("fallbacks", "guesses", "crap_shoots")
_X_FALLBACKS, _X_GUESSES, _X_CRAP = (extra_index(GARDEA_EXTRA, f) for f in GARDEA_EXTRA)


class GardeaBatch(NamedTuple):
    """gardea-csp's batch state (minelab.agents.batch): its work arrays and node budget."""

    ws: GardeaWork
    max_nodes: int
    extra: np.ndarray  # int64[len(GARDEA_EXTRA)]


@hook
def _gardea_begin(state, gs):
    _reset_game(state.ws)


@hook
def _gardea_move(state, gs, rng, deal_rng):
    return gardea_decide(gs.shown, gs.spec, gs.nbr, gs.nbr_count, state.ws, state.max_nodes, rng)


@hook
def _gardea_end(state, gs):
    meta = state.ws.meta
    state.extra[_X_FALLBACKS] = meta[GM_FALLBACKS]
    state.extra[_X_GUESSES] = meta[GM_GUESSES]
    state.extra[_X_CRAP] = meta[GM_CRAP]


hooks(GardeaBatch, _gardea_move, begin_fn=_gardea_begin, end_fn=_gardea_end)


# ------------------------------------------------------------------ the agent
@dataclass(frozen=True)
class GardeaCSPParams(Spec):
    """gardea-csp's parameters."""

    max_nodes: int = integer(DEFAULT_MAX_NODES, 1, MAX_NODES_LIMIT, keep=ALWAYS,
                             doc="backtracking assignments allowed per coupled set")


@register
class GardeaCSPAgent(Agent):
    """Gardea et al. (2015)'s CSP solver: equation strategy, backtracking over coupled
    sets, crap shoots, corner-first guesses (see the module docstring)."""

    name = "gardea-csp"
    extra_fields = GARDEA_EXTRA
    _explains = True

    Params = GardeaCSPParams

    def __init__(self, seed=None, **params):
        super().__init__(seed)
        self._set_params(params)
        self._work: dict[tuple[int, int], GardeaWork] = {}
        self._game_work = weakref.WeakKeyDictionary()

    def _work_for(self, rows, cols):
        key = (rows, cols)
        if key not in self._work:
            self._work[key] = new_gardea_work(rows, cols)
        return self._work[key]

    def _game_ws(self, game):
        if game not in self._game_work:
            self._game_work[game] = new_gardea_work(game.level.rows, game.level.cols)
        return self._game_work[game]

    def _choose(self, game):
        gs = game._gs
        ws = self._game_ws(game)
        before = _before(gs.shown, ws)
        kind, cell = gardea_decide(gs.shown, gs.spec, gs.nbr, gs.nbr_count, ws, self.max_nodes, self.rng)
        if cell < 0:
            raise ValueError("no covered cell left to play (every covered cell is flagged)")
        self._why = f"{self.name}: {_explain(gs, ws, before, int(kind), int(cell))}"
        return cell_to_move(int(kind), cell, game.level)

    def game_stats(self, game) -> dict:
        """This agent's counters over its decisions on `game`: fallbacks (decisions with an
        abandoned coupled set), guesses (reveals not proved safe) and crap_shoots."""
        meta = self._game_ws(game).meta
        return {"fallbacks": int(meta[GM_FALLBACKS]), "guesses": int(meta[GM_GUESSES]),
                "crap_shoots": int(meta[GM_CRAP])}

    def play_batch(self, gs, n_games, deal_rng, out):
        ws = self._work_for(int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS]))
        state = GardeaBatch(ws, int(self.max_nodes), np.zeros(len(GARDEA_EXTRA), np.int64))
        play_games(gs, n_games, deal_rng, self.rng, state, out)


# ------------------------------------------------------------------ why (explain)
def _before(view, ws) -> tuple[bool, int, int, int]:
    """What the explanation needs from before a decision: whether a pending certain move is
    still playable, and the guesses, crap shoots and fallbacks counted so far. Sets
    meta[GM_NSETS] to -1: only `coupled_sets` writes it and nothing reads it, so after
    the decision it says whether the CSP step ran."""
    meta = ws.meta
    head, length = int(meta[GM_QHEAD]), int(meta[GM_QLEN])
    pending = bool((view[ws.queue_cell[head:length]] == COVERED).any())
    meta[GM_NSETS] = -1
    return pending, int(meta[GM_GUESSES]), int(meta[GM_CRAP]), int(meta[GM_FALLBACKS])


def _explain(gs, ws, before, kind, cell) -> str:
    """Why gardea_decide chose (kind, cell), from its work state (rules 1-5 of the module docstring)."""
    pending, guesses, craps, fallbacks = before
    cols = int(gs.spec[SP_COLS])
    meta = ws.meta
    move = f"{'flag' if kind == FLAG else 'probe'} {at(cell, cols)}"
    queued = int(np.count_nonzero(gs.shown[ws.queue_cell[meta[GM_QHEAD]:meta[GM_QLEN]]] == COVERED))  # after the pop
    later = f" ({queued} more queued)" if queued > 0 else ""
    if pending:
        return f"certain move in hand: {move}, {'a mine' if kind == FLAG else 'safe'} by an earlier deduction{later}"
    if meta[GM_GUESSES] == guesses:
        settled = ws.queue_kind[:meta[GM_QLEN]]
        mines = int(np.count_nonzero(settled == FLAG))
        how = "the equation strategy" if meta[GM_NSETS] < 0 else \
            f"the CSP (all solutions of {count(meta[GM_NSETS], 'coupled set')})"
        return (f"{how} settled {count(len(settled) - mines, 'safe cell')} and {count(mines, 'mine')}: "
                f"{move}{later}")
    note = " (a coupled set too large to enumerate was scored by local estimates)" \
        if meta[GM_FALLBACKS] > fallbacks else ""
    return _explain_guess(gs, ws, cell, meta[GM_CRAP] > craps) + note


def _explain_guess(gs, ws, cell, crap) -> str:
    """Rules 4 and 5: the crap shoot, the best frontier variable or an unconstrained cell."""
    view, spec = gs.shown, gs.spec
    rows, cols = int(spec[SP_ROWS]), int(spec[SP_COLS])
    ns = int(ws.meta[GM_NSETS])
    in_sets = ws.set_vars[:ws.set_var_start[ns]]
    safe = ws.safe[in_sets]
    where = at(cell, cols)
    if crap:
        s = int(ws.set_of[cell])
        return (f"crap shoot: {where}, safe in {num(ws.safe[cell])} of the solutions of a coupled set that nothing "
                f"outside it can resolve (every solution holds {ws.set_info[s, SI_KMIN]} mines)")
    covered = int(np.count_nonzero(view == COVERED))
    unconstrained = covered - len(in_sets)
    mines_left = int(spec[SP_MINES]) - int(np.count_nonzero(view == FLAGGED))
    p_free = None
    if unconstrained > 0:
        p_free = 1.0 - min(1.0, max(0.0, (mines_left - float((1.0 - safe).sum())) / unconstrained))
    if ws.set_of[cell] >= 0:
        ties = int(np.count_nonzero(safe == ws.safe[cell]))
        said = f"guess {where}: safe in {num(ws.safe[cell])} of its coupled set's solutions, the best frontier cell"
        said += f" (tied with {ties - 1} more, chosen at random)" if ties > 1 else ""
        if p_free is not None:
            said += f"; an unconstrained cell is estimated safe with {num(p_free)}, not more"
        return said
    r, c = np.divmod(np.arange(rows * cols), cols)
    rank = 2 - (r == 0) - (r == rows - 1) * (rows > 1) - (c == 0) - (c == cols - 1) * (cols > 1)  # 0 corner, 1 edge
    rank = np.maximum(rank, 0)
    free = (view == COVERED) & (ws.set_of < 0)
    level = int(rank[cell])  # _pick_unconstrained takes the first class with a free cell: this one
    kind = ("corner", "edge cell", "cell")[level]
    pool = int(np.count_nonzero(free & (rank <= level)))
    said = f"guess {where}: an unconstrained {kind}, at random among {pool}; off the frontier p(safe) is estimated "
    said += f"{num(p_free)}"
    if len(in_sets):
        said += f", more than the best frontier cell's {num(safe.max())}"
    else:
        said += " (nothing constrains any cell yet)"
    return said
