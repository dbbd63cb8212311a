"""Exact optimal play on small boards: the probability of winning under optimal play.

The belief of a player is the set of mine layouts consistent with what they have seen,
all equally likely. Clicking a covered cell either hits a mine (in the layouts that have
one there) or reveals a region whose numbers split the remaining layouts into groups,
one per possible view. With W(B) the number of layouts of B the best player wins from
belief B,

    W(B) = |B|                                  when every safe cell is revealed
    W(B) = max over covered cells c of  sum over the groups G of "reveal c"  W(G)

and the win probability is W(B) / |B|, an exact fraction. Integers only: no rounding.

Once a cell is revealed the belief is a function of the view alone, whatever the
first-click rule (the first click and, under `opening`, its neighbours are revealed and
safe, so the rule's constraint is implied by the view), and the view's layouts are
equally likely. So W is memoised by the view, one memo per board (rows, cols, mines),
kept across calls and shared by the rules (`clear_cache()` frees it).

Exact shortcuts of the search (each provably leaves W unchanged):
- the certainly safe cells of a belief are revealed at once (revealing a certainly safe
  cell never lowers W: the player can ignore what it shows);
- a belief of one layout is won; of two, both are won exactly when a cell safe in both
  shows different numbers (`_small_value`): neither is searched;
- candidates are taken most-safe-layouts first and one is dropped as soon as an upper
  bound on what it can win is no better than the best so far: the bound of a child
  group G is its exact W if memoised, |G| if G has a certainly safe cell, else the
  safe layouts of G's safest cell (G's next move is then a guess). Children are always
  searched exactly, so every memoised value is exact (beliefs of fewer than MEMO_MIN
  layouts are searched again rather than kept).

Layouts are bit masks (one uint64, boards of at most 64 cells); the layout count
C(cells, mines) bounds what fits (MAX_LAYOUTS). First click: under `none` the first
click is part of the play; under `safe` / `opening` the mines avoid the first cell (and
its neighbours) and the first click is chosen by `first_click`: "best" (every cell up to
the board's symmetries), "corner" (0, 0) or a cell (r, c).

    >>> from minelab.exact import win_probability, move_values
    >>> win_probability("2x3x2:none")
    Fraction(1, 3)
    >>> move_values("1x3x1", [[1, -1, -1]])        # the mine is next to the 1
    {(0, 1): Fraction(0, 1), (0, 2): Fraction(1, 1)}

The search is one numba loop over an explicit stack of beliefs (`_search`), each belief
a slice of one layout array that clicks partition in place (grouped by the hash of the
view they lead to; views of equal hash but different content are counted and make the
call fail rather than return an inexact value). The memo is keyed by the smallest image
of the view under the board's symmetries.

Public: `first_click_values`, `win_probability`, `move_values` and
`mine_probabilities` (any position), `best_move` / `decision` (the `optimal` agent's
move), `compute_table` / `load_table` (the committed first-click values,
data/exact/optimal_first_click.csv) and `corner_vs_best`, `survey` / `surveys` (every
reachable position of a small format: is an optimal move always among the least
probable cells?), `lower_bounds` / `upper_bounds` / `compute_bounds` (proven bounds
where the exact search is out of reach, data/exact/optimal_bounds.csv), `main`
(`python -m minelab.exact`, `minelab optimal`), `clear_cache`.

Measured (one core, every first-cell class, one memo per level): 4x4x4 0.02 s, 3x7x10
50 s, 5x5x5:none 49 s, 5x5x15 3 min 42 s (2.6 GB). 5x5x10 (C(24, 10) = 1,961,256
layouts) is out of reach: the corner alone passed 9 minutes and 6 GB of memo without
finishing; its bounds are in data/exact/optimal_bounds.csv.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.typed import Dict, List

from .cells import COVERED, FLAGGED
from .levels import Level

MAX_LAYOUTS = 5_000_000  # C(cells, mines) past this is refused (memory and time)
TABLE_FILE = Path(__file__).resolve().parent.parent / "data" / "exact" / "optimal_first_click.csv"
# the committed table's formats (first click safe unless a rule is named); 5x5x10 is out
# of the exact search's reach: its bounds (compute_bounds) are in BOUNDS_FILE instead
TABLE_LEVELS = ("1x3x1", "2x5x3", "4x4x4", "1x10x5", "3x7x10", "5x5x15", "5x5x5:none")
BOUND_LEVELS = ("5x5x10",)
_KEY = types.UniTuple(types.uint64, 5)  # a view: revealed mask, then 4 words of 4-bit numbers
_ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_MIX = np.uint64(0x9E3779B97F4A7C15)
_MISSING = -(1 << 62)  # memo.get default: no entry
NO_LIMIT = 1 << 62  # _search's limit for exact values
MEMO_MIN = 5  # beliefs of fewer layouts are searched again rather than memoised


# ------------------------------------------------------------------ board tables
class Board(NamedTuple):
    """What every kernel needs to know about the board (built once per (rows, cols, mines))."""

    n: int  # cells
    mines: int
    full: np.uint64  # the mask of every cell
    nbrm: np.ndarray  # uint64[n]: bit j of nbrm[i] set when j is a neighbour of i
    nbr: np.ndarray  # int64[n, 8]: the neighbours of i, nbr_count[i] of them
    nbr_count: np.ndarray  # int64[n]
    perms: np.ndarray  # int64[S, n]: cell i goes to perms[s, i] under symmetry s


@njit(cache=True)
def neighbour_masks(rows, cols):
    """uint64[n]: bit j of entry i is set when cell j is a neighbour of cell i."""
    n = rows * cols
    out = np.zeros(n, np.uint64)
    for r in range(rows):
        for c in range(cols):
            m = np.uint64(0)
            for dr in range(-1, 2):
                for dc in range(-1, 2):
                    rr, cc = r + dr, c + dc
                    if (dr or dc) and 0 <= rr < rows and 0 <= cc < cols:
                        m |= np.uint64(1) << np.uint64(rr * cols + cc)
            out[r * cols + c] = m
    return out


def symmetry_permutations(rows: int, cols: int) -> np.ndarray:
    """int64 (S, n): cell i goes to perms[s, i] under symmetry s of the board (the
    identity first; flips, and transposes when square)."""
    cells = np.arange(rows * cols)
    r, c = np.divmod(cells, cols)
    maps = [(r, c), (rows - 1 - r, c), (r, cols - 1 - c), (rows - 1 - r, cols - 1 - c)]
    if rows == cols:
        maps += [(b, a) for a, b in maps]
    return np.array([a * cols + b for a, b in maps], np.int64)


def symmetric_cells(rows: int, cols: int, cell: int) -> set[int]:
    """The images of `cell` under the board's symmetries (flips; transposes when square).

        >>> sorted(symmetric_cells(3, 3, 0))
        [0, 2, 6, 8]
    """
    return {int(c) for c in symmetry_permutations(rows, cols)[:, cell]}


def cell_classes(rows: int, cols: int) -> list[list[int]]:
    """The cells grouped by symmetry, each class sorted, classes by their first cell.

        >>> cell_classes(2, 3)
        [[0, 2, 3, 5], [1, 4]]
    """
    out, seen = [], set()
    for cell in range(rows * cols):
        if cell not in seen:
            members = sorted(symmetric_cells(rows, cols, cell))
            seen.update(members)
            out.append(members)
    return out


def _board(rows: int, cols: int, mines: int) -> Board:
    n = rows * cols
    nbr = np.full((n, 8), -1, np.int64)
    count = np.zeros(n, np.int64)
    masks = neighbour_masks(rows, cols)
    for i in range(n):
        js = [j for j in range(n) if (int(masks[i]) >> j) & 1]
        nbr[i, :len(js)] = js
        count[i] = len(js)
    full = np.uint64((1 << n) - 1)
    return Board(n, mines, full, masks, nbr, count, symmetry_permutations(rows, cols))


# ------------------------------------------------------------------ small kernels
@njit(cache=True)
def popcount(x):
    """Set bits of a uint64 (SWAR: no loop)."""
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit(cache=True)
def all_layouts(n, m, forbidden):
    """Every set of m cells among the n not in the `forbidden` mask, as uint64 masks
    (increasing), by Gosper's hack over the allowed cells' positions."""
    allowed = np.zeros(n, np.int64)
    k = 0
    for i in range(n):
        if not (forbidden >> np.uint64(i)) & np.uint64(1):
            allowed[k] = i
            k += 1
    total = 1
    for i in range(m):
        total = total * (k - i) // (i + 1)
    out = np.zeros(max(total, 0) if m <= k else 0, np.uint64)
    if m > k:
        return out
    v = (1 << m) - 1
    for t in range(total):
        mask = np.uint64(0)
        for j in range(k):
            if (v >> j) & 1:
                mask |= np.uint64(1) << np.uint64(allowed[j])
        out[t] = mask
        if m == 0:
            break
        c = v & -v
        r = v + c
        v = (((r ^ v) >> 2) // c) | r
    return out


@njit(cache=True)
def _consistent(layouts, rev, num, bd):
    """The layouts of `layouts` that show the numbers `num` on the revealed cells `rev`
    (and have no mine there): the belief of the view."""
    keep = np.zeros(layouts.shape[0], np.bool_)
    for t in range(layouts.shape[0]):
        lay = layouts[t]
        ok = (lay & rev) == 0
        i = 0
        while ok and i < bd.n:
            if (rev >> np.uint64(i)) & _ONE:
                want = (num[i >> 4] >> np.uint64(4 * (i & 15))) & np.uint64(15)
                ok = popcount(lay & bd.nbrm[i]) == np.int64(want)
            i += 1
        keep[t] = ok
    return layouts[keep]


@njit(cache=True)
def _outcome(lay, cell, revealed, numbers, bd, out_num, stack):
    """The view after revealing `cell` (safe in layout `lay`) from (revealed, numbers):
    returns the revealed mask, writes the numbers into out_num[4] (a zero opens its
    neighbours, as the engine's flood fill). `stack` is scratch of n entries."""
    for q in range(4):
        out_num[q] = numbers[q]
    r = revealed | (_ONE << np.uint64(cell))
    top = 1
    stack[0] = cell
    while top > 0:
        top -= 1
        i = stack[top]
        v = popcount(lay & bd.nbrm[i])
        out_num[i >> 4] |= np.uint64(v) << np.uint64(4 * (i & 15))
        if v == 0:
            for a in range(bd.nbr_count[i]):
                j = bd.nbr[i, a]
                bit = _ONE << np.uint64(j)
                if not (r & bit):
                    r |= bit
                    stack[top] = j
                    top += 1
    return r


@njit(cache=True)
def _key_hash(r, num):
    h = r * _MIX
    for q in range(4):
        h = (h ^ num[q]) * _MIX
        h ^= h >> np.uint64(29)
    return h


@njit(cache=True)
def _canonical(r, num, perms):
    """The memo key of a view: the smallest of its images under the board's symmetries
    (symmetric views have the same value). An image's numbers are built only when its
    revealed mask does not already lose the comparison."""
    f = np.uint64(15)
    best = (r, num[0], num[1], num[2], num[3])
    n = perms.shape[1]
    for s in range(1, perms.shape[0]):
        ir = np.uint64(0)
        for i in range(n):
            if (r >> np.uint64(i)) & _ONE:
                ir |= _ONE << np.uint64(perms[s, i])
        if ir > best[0]:
            continue
        w0 = w1 = w2 = w3 = np.uint64(0)
        for i in range(n):
            if (r >> np.uint64(i)) & _ONE:
                j = perms[s, i]
                v = ((num[i >> 4] >> np.uint64(4 * (i & 15))) & f) << np.uint64(4 * (j & 15))
                q = j >> 4
                if q == 0:
                    w0 |= v
                elif q == 1:
                    w1 |= v
                elif q == 2:
                    w2 |= v
                else:
                    w3 |= v
        key = (ir, w0, w1, w2, w3)
        if key < best:
            best = key
    return best


# ------------------------------------------------------------------ partition and bounds
WK_NODES, WK_PARTITIONS, WK_PARTITIONED, WK_CUT_AT_ONCE, WK_CUT_LATER, WK_GUESS_BOUNDS = range(6)


class PositionKeys(NamedTuple):
    """Per layout position: the view its layout leads to under the current click, and
    per group start the group's end, bound and whether the bound is its exact W."""

    hash: np.ndarray  # uint64[L]
    rev: np.ndarray  # uint64[L]
    num: np.ndarray  # uint64[L, 4]
    tmp_lay: np.ndarray  # uint64[L] scratch of the sort
    tmp_hash: np.ndarray
    tmp_rev: np.ndarray
    tmp_num: np.ndarray  # uint64[L, 4]
    gend: np.ndarray  # int64[L] at a group's start: its end
    bound: np.ndarray  # int64[L] at a group's start: an upper bound of its W
    exact: np.ndarray  # uint8[L] at a group's start: 1 when bound is W itself
    stack: np.ndarray  # int64[64] scratch of the flood fill
    work: np.ndarray  # int64[8] counters: WK_* (what the search did, for tuning and reports)


def _position_keys(size: int) -> PositionKeys:
    u = np.uint64
    return PositionKeys(np.zeros(size, u), np.zeros(size, u), np.zeros((size, 4), u), np.zeros(size, u),
                        np.zeros(size, u), np.zeros(size, u), np.zeros((size, 4), u), np.zeros(size, np.int64),
                        np.zeros(size, np.int64), np.zeros(size, np.uint8), np.zeros(64, np.int64),
                        np.zeros(8, np.int64))


@njit(cache=True)
def _reveal_all(lay, cells, revealed, numbers, bd, out_num, stack):
    """`_outcome` of revealing every cell of the mask `cells` in turn (all safe in lay)."""
    r = _outcome(lay, popcount((cells & (~cells + _ONE)) - _ONE), revealed, numbers, bd, out_num, stack)
    x = cells & ~r
    while x:
        r = _outcome(lay, popcount((x & (~x + _ONE)) - _ONE), r, out_num, bd, out_num, stack)
        x &= ~r
    return r


@njit(cache=True)
def _insertion_sort(lay, lo, hi, pk):
    """Sort positions lo..hi by pk.hash, moving lay, pk.rev and pk.num along (small
    partitions: no allocation, unlike argsort)."""
    for t in range(lo + 1, hi):
        h, x, r = pk.hash[t], lay[t], pk.rev[t]
        n0, n1, n2, n3 = pk.num[t, 0], pk.num[t, 1], pk.num[t, 2], pk.num[t, 3]
        u = t
        while u > lo and pk.hash[u - 1] > h:
            pk.hash[u], lay[u], pk.rev[u] = pk.hash[u - 1], lay[u - 1], pk.rev[u - 1]
            for q in range(4):
                pk.num[u, q] = pk.num[u - 1, q]
            u -= 1
        pk.hash[u], lay[u], pk.rev[u] = h, x, r
        pk.num[u, 0], pk.num[u, 1], pk.num[u, 2], pk.num[u, 3] = n0, n1, n2, n3


@njit(cache=True)
def _partition(lay, lo, hi, cells, revealed, numbers, bd, pk):
    """Reorder lay[lo:hi]: the layouts safe at every cell of the mask `cells` (one click,
    or every certainly safe cell at once) first, grouped by the view revealing them
    leads to (sorted by its hash), the others last; each safe position's view goes to
    the position keys pk (pk.hash, pk.rev, pk.num), permuted along. Returns the number
    of safe layouts. A child search only reorders inside its own group, so the keys of
    later groups stay valid while the parent walks them."""
    k = 0
    for t in range(lo, hi):  # safe ones first
        if not lay[t] & cells:
            x = lay[lo + k]
            lay[lo + k] = lay[t]
            lay[t] = x
            k += 1
    pk.work[WK_PARTITIONS] += 1
    pk.work[WK_PARTITIONED] += hi - lo
    single = (cells & (cells - _ONE)) == 0
    cell = popcount(cells - _ONE)
    for t in range(lo, lo + k):
        if single:
            pk.rev[t] = _outcome(lay[t], cell, revealed, numbers, bd, pk.num[t], pk.stack)
        else:
            pk.rev[t] = _reveal_all(lay[t], cells, revealed, numbers, bd, pk.num[t], pk.stack)
        pk.hash[t] = _key_hash(pk.rev[t], pk.num[t])
    if k <= 32:
        _insertion_sort(lay, lo, lo + k, pk)
        return k
    order = np.argsort(pk.hash[lo:lo + k]) + lo
    for t in range(k):
        j = order[t]
        pk.tmp_lay[t] = lay[j]
        pk.tmp_hash[t] = pk.hash[j]
        pk.tmp_rev[t] = pk.rev[j]
        for q in range(4):
            pk.tmp_num[t, q] = pk.num[j, q]
    for t in range(k):
        lay[lo + t] = pk.tmp_lay[t]
        pk.hash[lo + t] = pk.tmp_hash[t]
        pk.rev[lo + t] = pk.tmp_rev[t]
        for q in range(4):
            pk.num[lo + t, q] = pk.tmp_num[t, q]
    return k


@njit(cache=True)
def _group_end(pk, a, end):
    """The end of the group starting at a (same view); (end, collisions): views of equal
    hash but different content."""
    b = a + 1
    collisions = 0
    while b < end and pk.hash[b] == pk.hash[a]:
        same = pk.rev[b] == pk.rev[a]
        for q in range(4):
            same = same and pk.num[b, q] == pk.num[a, q]
        if not same:
            collisions += 1
        b += 1
    return b, collisions


@njit(cache=True)
def _guess_bound(lay, a, b, r, bd):
    """An upper bound of W for the belief lay[a:b] (view revealed mask r, not won):
    |G| if some covered cell is safe in every layout; otherwise the next move is a
    guess, which wins at most the layouts where its cell is safe."""
    covered = bd.full & ~r
    union = np.uint64(0)
    inter = ~np.uint64(0)
    for t in range(a, b):
        union |= lay[t]
        inter &= lay[t]
    if covered & ~union:
        return b - a
    best = 0
    for c in range(bd.n):
        bit = _ONE << np.uint64(c)
        if covered & bit and not inter & bit:
            k = 0
            for t in range(a, b):
                if not lay[t] & bit:
                    k += 1
            best = max(best, k)
    return best


@njit(cache=True)
def _small_value(lay, a, b, r, bd):
    """W of a belief of one or two layouts (-1 for more), without a search: one layout
    is won (every covered safe cell is known); two are both won exactly when a cell safe
    in both shows a different number in each (revealing the cells safe in both, which
    is all a player can do without risk, tells them apart or never will)."""
    if b - a == 1:
        return 1
    if b - a != 2:
        return -1
    x, y = lay[a], lay[a + 1]
    common = bd.full & ~r & ~(x | y)
    for c in range(bd.n):
        if (common >> np.uint64(c)) & _ONE and popcount(x & bd.nbrm[c]) != popcount(y & bd.nbrm[c]):
            return 2
    return 1


@njit(cache=True)
def _bound_groups(lay, lo, end, bd, memo, pk):
    """After a partition: for each group of lay[lo:end] set pk.gend, pk.bound (its W when
    won or memoised, pk.exact = 1; else `_guess_bound`). Returns (sum of the bounds,
    hash collisions): no click of these groups can win more than that sum."""
    total = 0
    collisions = 0
    a = lo
    while a < end:
        b, c = _group_end(pk, a, end)
        collisions += c
        pk.gend[a] = b
        r = pk.rev[a]
        pk.exact[a] = 1
        if popcount(bd.full & ~r) == bd.mines:
            pk.bound[a] = b - a  # every safe cell revealed: won in all of them
        elif b - a <= 2:
            pk.bound[a] = _small_value(lay, a, b, r, bd)
        else:
            v = memo.get(_canonical(r, pk.num[a], bd.perms), _MISSING)
            if v >= 0:
                pk.bound[a] = v
            else:
                pk.exact[a] = 0
                pk.bound[a] = _guess_bound(lay, a, b, r, bd)
                pk.work[WK_GUESS_BOUNDS] += 1
        total += pk.bound[a]
        a = b
    return total, collisions


@njit(cache=True)
def _prepare(lay, lo, hi, rev, bd, order, safecnt):
    """Candidates of the belief lay[lo:hi] into order[:count], best first (most safe
    layouts, ties by cell index), with safecnt. Returns (count, the mask of the
    certainly safe cells): when there are some, they are the one candidate, revealed
    together (value-preserving), order[0] the lowest of them."""
    union = np.uint64(0)
    inter = ~np.uint64(0)
    for t in range(lo, hi):
        union |= lay[t]
        inter &= lay[t]
    covered = bd.full & ~rev
    safe = covered & ~union
    if safe:
        j = 0
        while not (safe >> np.uint64(j)) & _ONE:
            j += 1
        order[0] = j
        safecnt[0] = hi - lo
        return 1, safe
    cands = covered & ~inter
    count = 0
    for c in range(bd.n):
        bit = _ONE << np.uint64(c)
        if cands & bit:
            k = 0
            for t in range(lo, hi):
                if not lay[t] & bit:
                    k += 1
            p = count  # insertion, most safe layouts first, ties by cell index
            while p > 0 and safecnt[p - 1] < k:
                order[p] = order[p - 1]
                safecnt[p] = safecnt[p - 1]
                p -= 1
            order[p] = c
            safecnt[p] = k
            count += 1
    return count, np.uint64(0)


# ------------------------------------------------------------------ the search
@njit(cache=True)
def _search(lay, lo0, hi0, rev0, num0, bd, memo, pk, limit, large_depth):
    """W of the belief lay[lo0:hi0] seen as (rev0, num0): the recursion of the module
    docstring as a loop over an explicit stack of frames, one per belief on the path.
    A frame walks its candidates (`_prepare`'s order); for each, the groups of its
    partition, summing their W (memo, or a child frame) while the running upper bound
    (exact W of the groups done + bounds of the rest) still beats the frame's best.
    Children are searched exactly (passing the parent's threshold down as an alpha, so
    that a child only proves an upper bound, was measured slower: the beliefs it leaves
    inexact are searched again from other paths), so every memo entry is an exact W.
    Returns (W, beliefs searched, collisions).

    `limit` (NO_LIMIT for W) and `large_depth` make bounds instead, of beliefs of more than
    `limit` layouts ("large"); their values must go to a memo of their own:
    - large_depth < 0 (lower): a large belief plays its first candidate only (the most safe
      layouts, lowest index): the value of a concrete strategy, optimal once at most
      `limit` layouts remain (`lower_bounds`);
    - large_depth >= 0 (upper): a large belief with `large_depth` large beliefs above it
      in this search (at least the root) is not searched: its bound (`_bound_groups`) stands for its W, so every
      value is an upper bound (`upper_bounds`)."""
    depth = bd.n + 2
    n = bd.n
    f_lo = np.zeros(depth, np.int64)
    f_hi = np.zeros(depth, np.int64)
    f_rev = np.zeros(depth, np.uint64)
    f_num = np.zeros((depth, 4), np.uint64)
    f_order = np.zeros((depth, n), np.int64)
    f_safe = np.zeros((depth, n), np.int64)
    f_count = np.zeros(depth, np.int64)
    f_smask = np.zeros(depth, np.uint64)  # the certainly safe cells, revealed as one candidate
    f_ci = np.zeros(depth, np.int64)  # the candidate being summed
    f_best = np.zeros(depth, np.int64)
    f_total = np.zeros(depth, np.int64)  # its groups' W so far
    f_ub = np.zeros(depth, np.int64)  # its upper bound
    f_gb = np.zeros(depth, np.int64)  # the bound of the group searched in the child frame
    f_pos = np.zeros(depth, np.int64)
    f_end = np.zeros(depth, np.int64)
    child = np.zeros(4, np.uint64)
    nodes = 0
    collisions = 0
    d = 0
    f_lo[0], f_hi[0], f_rev[0], f_ci[0] = lo0, hi0, rev0, -1
    for q in range(4):
        f_num[0, q] = num0[q]
    f_count[0], f_smask[0] = _prepare(lay, lo0, hi0, rev0, bd, f_order[0], f_safe[0])
    f_large = np.zeros(bd.n + 2, np.int64)  # large beliefs on the path, this one included
    f_large[0] = hi0 - lo0 > limit
    if f_large[0] and large_depth < 0:
        f_count[0] = min(f_count[0], 1)
    while True:
        lo, hi = f_lo[d], f_hi[d]
        if f_pos[d] < f_end[d]:  # the next group of the current candidate
            a = f_pos[d]
            b = pk.gend[a]
            f_pos[d] = b
            if pk.exact[a]:
                f_total[d] += pk.bound[a]
                continue
            r = pk.rev[a]
            for q in range(4):
                child[q] = pk.num[a, q]
            v = memo.get(_canonical(r, child, bd.perms), _MISSING)  # found by an earlier sibling?
            if v >= 0:
                f_total[d] += v
                f_ub[d] -= pk.bound[a] - v
                if f_ub[d] <= f_best[d]:
                    f_pos[d] = f_end[d]  # cannot beat the best: drop the candidate
                    pk.work[WK_CUT_LATER] += 1
                continue
            large = b - a > limit
            if large and 0 <= large_depth <= f_large[d]:  # upper bound mode: its bound stands for its W
                f_total[d] += pk.bound[a]
                continue
            f_gb[d] = pk.bound[a]
            d += 1  # search the child belief
            f_large[d] = f_large[d - 1] + large
            f_lo[d], f_hi[d], f_rev[d], f_ci[d] = a, b, r, -1
            for q in range(4):
                f_num[d, q] = child[q]
            f_count[d], f_smask[d] = _prepare(lay, a, b, r, bd, f_order[d], f_safe[d])
            if large and large_depth < 0:
                f_count[d] = min(f_count[d], 1)  # (a one-step lookahead policy was measured no better)
            f_best[d] = f_pos[d] = f_end[d] = 0
            nodes += 1
            pk.work[WK_NODES] += 1
            continue
        if f_ci[d] >= 0 and f_total[d] > f_best[d]:
            f_best[d] = f_total[d]
        nxt = f_ci[d] + 1
        if f_best[d] < hi - lo and nxt < f_count[d] and f_safe[d, nxt] > f_best[d]:
            f_ci[d] = nxt
            cells = f_smask[d] if f_smask[d] else _ONE << np.uint64(f_order[d, nxt])
            k = _partition(lay, lo, hi, cells, f_rev[d], f_num[d], bd, pk)
            ub, c = _bound_groups(lay, lo, lo + k, bd, memo, pk)
            collisions += c
            f_total[d] = 0
            f_ub[d] = ub
            f_pos[d] = lo
            f_end[d] = lo + k if ub > f_best[d] else lo
            pk.work[WK_CUT_AT_ONCE] += ub <= f_best[d]
            continue
        value = f_best[d]  # this belief is done
        if hi - lo >= MEMO_MIN:
            memo[_canonical(f_rev[d], f_num[d], bd.perms)] = value
        if d == 0:
            return value, nodes, collisions
        d -= 1
        f_total[d] += value
        f_ub[d] -= f_gb[d] - value
        if f_ub[d] <= f_best[d]:
            f_pos[d] = f_end[d]
            pk.work[WK_CUT_LATER] += 1


@njit(cache=True)
def _click_value(lay, cell, rev, num, bd, memo, pk, target, limit, depth):
    """W of clicking `cell` from the view (rev, num) whose belief is the whole of `lay`
    (the first click: rev = 0): the sum of the W of the groups its outcomes make.
    With target > 0 it gives up, returning -1, once the click provably wins fewer than
    `target` layouts. Returns (W or -1, hash collisions)."""
    child = np.zeros(4, np.uint64)
    k = _partition(lay, 0, lay.shape[0], _ONE << np.uint64(cell), rev, num, bd, pk)
    ub, collisions = _bound_groups(lay, 0, k, bd, memo, pk)
    if ub < target:
        return -1, collisions
    total = 0
    a = 0
    while a < k:
        b = pk.gend[a]
        if pk.exact[a]:
            total += pk.bound[a]
        else:
            for q in range(4):
                child[q] = pk.num[a, q]
            v = memo.get(_canonical(pk.rev[a], child, bd.perms), _MISSING)
            if v < 0:
                bound = pk.bound[a]
                v, _, c = _search(lay, a, b, pk.rev[a], child, bd, memo, pk, limit, depth)
                collisions += c
                ub -= bound - v
            else:
                ub -= pk.bound[a] - v
            total += v
            if ub < target:
                return -1, collisions
        a = b
    return total, collisions


# ------------------------------------------------------------------ the per-board solver
class _Solver:
    """What is kept for one board (rows, cols, mines) across calls: the tables, the memo
    of W by canonical view (valid under every first-click rule, see the module
    docstring), the position keys (grown to the largest belief seen) and the agent's
    decisions by view."""

    def __init__(self, rows: int, cols: int, mines: int):
        self.board = _board(rows, cols, mines)
        self.memo = Dict.empty(key_type=_KEY, value_type=types.int64)
        self.pk = _position_keys(0)
        self.decisions: dict = {}
        self.first: dict = {}

    def keys(self, size: int) -> PositionKeys:
        if self.pk.hash.shape[0] < size:
            self.pk = _position_keys(size)
        return self.pk

    def click(self, lay: np.ndarray, cell: int, rev: int, num: np.ndarray, target: int = 0) -> int:
        """W of clicking `cell` (or -1 below `target`); lay is reordered, not changed as a set."""
        won, collisions = _click_value(lay, cell, np.uint64(rev), num, self.board, self.memo,
                                       self.keys(len(lay)), target, NO_LIMIT, -1)
        if collisions:
            raise RuntimeError(f"{collisions} hash collisions between views; the value would not be exact")
        return int(won)


_SOLVERS: dict[tuple[int, int, int], _Solver] = {}


def _solver(lv: Level) -> _Solver:
    key = (lv.rows, lv.cols, lv.mines)
    if key not in _SOLVERS:
        _SOLVERS[key] = _Solver(*key)
    return _SOLVERS[key]


def clear_cache() -> None:
    """Forget every memo (they grow to gigabytes on 5x5 boards)."""
    _SOLVERS.clear()


def _check_level(level) -> Level:
    lv = Level.parse(level)
    if lv.cells > 64:
        raise ValueError(f"level {lv}: the exact solver handles boards of at most 64 cells, got {lv.cells}")
    if math.comb(lv.cells, lv.mines) > MAX_LAYOUTS:
        raise ValueError(f"level {lv}: C({lv.cells}, {lv.mines}) = {math.comb(lv.cells, lv.mines):,} layouts; "
                         f"the exact solver handles at most {MAX_LAYOUTS:,}")
    return lv


def _is_cell(value) -> bool:
    return (isinstance(value, (tuple, list)) and len(value) == 2
            and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value))


def _first_cells(lv: Level, first_click) -> list[int]:
    if isinstance(first_click, str) and first_click == "best":
        return list(range(lv.cells))
    if isinstance(first_click, str) and first_click == "corner":
        return [0]
    if _is_cell(first_click):
        r, c = (int(v) for v in first_click)
        if not (0 <= r < lv.rows and 0 <= c < lv.cols):
            raise ValueError(f"first_click {(r, c)} is off the {lv.rows}x{lv.cols} board")
        return [r * lv.cols + c]
    raise ValueError(f"first_click must be 'best', 'corner' or a cell (row, col); got {first_click!r}")


def _first_layouts(lv: Level, bd: Board, cell: int) -> np.ndarray:
    """The layouts the level's rule allows when the first click is `cell`."""
    forbidden = 0
    if lv.first_click == "safe":
        forbidden = 1 << cell
    elif lv.first_click == "opening":
        forbidden = (1 << cell) | int(bd.nbrm[cell])
    layouts = all_layouts(lv.cells, lv.mines, np.uint64(forbidden))
    if len(layouts) == 0:
        raise ValueError(f"level {lv}: no layout keeps the first click {divmod(cell, lv.cols)} clear")
    return layouts


def first_click_values(level, first_click="best") -> dict[tuple[int, int], Fraction]:
    """{(row, col): exact win probability when the first click is there, then optimal play}.
    Cells that a symmetry of the board maps onto each other share one computation."""
    lv = _check_level(level)
    cells = _first_cells(lv, first_click)
    solver = _solver(lv)
    out = {}
    done: dict[int, Fraction] = {}
    zero = np.zeros(4, np.uint64)
    for cell in cells:
        twin = next((c for c in symmetric_cells(lv.rows, lv.cols, cell) if c in done), None)
        if twin is None:
            layouts = _first_layouts(lv, solver.board, cell)
            done[cell] = Fraction(solver.click(layouts, cell, 0, zero), len(layouts))
        else:
            done[cell] = done[twin]
        out[divmod(cell, lv.cols)] = done[cell]
    return out


def win_probability(level, first_click="best") -> Fraction:
    """The exact probability of winning `level` under optimal play, as a Fraction.

    first_click: "best" (the best first cell), "corner" or (row, col). Under the `none`
    rule with "best" the first click is simply part of optimal play.
    """
    return max(first_click_values(level, first_click).values())


def lower_bounds(level, first_click="corner", limit=10_000) -> dict[tuple[int, int], Fraction]:
    """{(row, col): a proven lower bound of the first click's optimal win probability}:
    the exact value (over every layout) of a concrete strategy: that first click, then
    the most-safe cell (lowest index) while more than `limit` layouts remain, optimal
    play from then on. For formats whose exact search is out of reach; with limit >=
    the layout count it is the exact value."""
    return _bounds(level, first_click, limit, -1)


def upper_bounds(level, first_click="corner", limit=10_000, depth=2) -> dict[tuple[int, int], Fraction]:
    """{(row, col): a proven upper bound of the first click's optimal win probability}:
    the search of W, except that a belief of more than `limit` layouts with `depth`
    such beliefs above it is not searched: its W is replaced by a bound (the layouts
    of its safest cell when its next move is a guess, all of them otherwise)."""
    return _bounds(level, first_click, limit, max(int(depth), 0))


def _bounds(level, first_click, limit: int, depth: int, memo=None) -> dict[tuple[int, int], Fraction]:
    """`_click_value` with `_search`'s limit and depth, on a memo of its own (its values
    of large beliefs are bounds, not W; calls of the same limit and depth may share one)."""
    lv = _check_level(level)
    bd = _solver(lv).board
    memo = Dict.empty(key_type=_KEY, value_type=types.int64) if memo is None else memo
    zero = np.zeros(4, np.uint64)
    out, done = {}, {}
    for cell in _first_cells(lv, first_click):
        twin = next((c for c in symmetric_cells(lv.rows, lv.cols, cell) if c in done), None)
        if twin is None:
            layouts = _first_layouts(lv, bd, cell)
            won, collisions = _click_value(layouts, cell, np.uint64(0), zero, bd, memo, _position_keys(len(layouts)),
                                           0, int(limit), depth)
            if collisions:
                raise RuntimeError(f"{collisions} hash collisions between views; the bound would not be exact")
            done[cell] = Fraction(int(won), len(layouts))
        else:
            done[cell] = done[twin]
        out[divmod(cell, lv.cols)] = done[cell]
    return out


# ------------------------------------------------------------------ any position
class _View(NamedTuple):
    flat: np.ndarray  # int8[n]
    rev: int  # revealed mask
    num: np.ndarray  # uint64[4]: 4-bit numbers of the revealed cells


def _read_view(lv: Level, view) -> _View:
    """Check a view (as `Game.view` shows it: COVERED / FLAGGED / 0..8, shape (rows, cols)
    or flat) and pack it. Flags count as covered cells: they carry no information."""
    flat = np.asarray(view)
    if flat.shape not in ((lv.rows, lv.cols), (lv.cells,)):
        raise ValueError(f"view must have shape ({lv.rows}, {lv.cols}) for level {lv}, got {flat.shape}")
    if not np.issubdtype(flat.dtype, np.integer):
        raise ValueError(f"view must hold integers (COVERED={COVERED}, FLAGGED={FLAGGED}, 0..8), got {flat.dtype}")
    flat = flat.reshape(-1)
    bad = ~(np.isin(flat, (COVERED, FLAGGED)) | ((flat >= 0) & (flat <= 8)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"view cell {divmod(i, lv.cols)} holds {int(flat[i])}: a view in play holds only "
                         f"COVERED ({COVERED}), FLAGGED ({FLAGGED}) or a number 0..8 "
                         "(a game that is over has no moves)")
    flat = flat.astype(np.int8)
    rev, num = 0, np.zeros(4, np.uint64)
    for i in np.flatnonzero(flat >= 0):
        rev |= 1 << int(i)
        num[i >> 4] |= np.uint64(int(flat[i]) << (4 * (i & 15)))
    return _View(flat, rev, num)


def _belief(lv: Level, solver: _Solver, v: _View) -> np.ndarray:
    """The layouts of the level consistent with a non-empty view (its belief)."""
    if lv.first_click == "opening" and not (v.flat == 0).any():
        raise ValueError(f"view: under the opening rule the first click shows a 0, and this view has no 0 "
                         f"(not a position of {lv})")
    if lv.cells - bin(v.rev).count("1") == lv.mines:
        raise ValueError("view: every safe cell is revealed (the game is won): no move left")
    layouts = _consistent(all_layouts(lv.cells, lv.mines, np.uint64(v.rev)), np.uint64(v.rev), v.num,
                          solver.board)
    if len(layouts) == 0:
        raise ValueError(f"view: no layout of {lv} shows these numbers (not a reachable position)")
    return layouts


def move_values(level, view) -> dict[tuple[int, int], Fraction]:
    """{(row, col): exact win probability of revealing that covered cell next, then
    playing optimally}, given what `view` shows (int8 (rows, cols) as `Game.view`:
    COVERED / FLAGGED / numbers; flags count as covered).

    The belief is every layout of `level` consistent with the view, equally likely; on
    an empty view the level's first-click rule decides which layouts a first click
    there allows (the values are then `first_click_values(level)`). Values are memoised
    per board across calls.

        >>> move_values("2x2x1", [[1, -1], [-1, -1]])[(1, 1)]
        Fraction(1, 3)
    """
    lv = _check_level(level)
    v = _read_view(lv, view)
    if v.rev == 0:
        return first_click_values(lv, "best")
    solver = _solver(lv)
    lay = _belief(lv, solver, v)
    return {divmod(int(c), lv.cols): Fraction(solver.click(lay, int(c), v.rev, v.num), len(lay))
            for c in np.flatnonzero(v.flat < 0)}


def mine_probabilities(level, view) -> dict[tuple[int, int], Fraction]:
    """{(row, col): exact probability of a mine under each covered cell} given the view
    (the share of the belief's layouts with a mine there; an empty view: the prior)."""
    lv = _check_level(level)
    v = _read_view(lv, view)
    if v.rev == 0:
        return {divmod(c, lv.cols): Fraction(lv.mines, lv.cells) for c in range(lv.cells)}
    lay = _belief(lv, _solver(lv), v)
    return {divmod(int(c), lv.cols): Fraction(int(np.count_nonzero(lay & np.uint64(1 << int(c)))), len(lay))
            for c in np.flatnonzero(v.flat < 0)}


def best_move(level, view, first_click="corner") -> tuple[int, int]:
    """The `optimal` agent's move at `view`: (row, col) to reveal.

    Empty view: the first click (`first_click`: "corner", (row, col), or "best": the
    cell of greatest `first_click_values`, lowest index among ties). Else a certainly
    safe cell if there is one (the lowest index; value-preserving), else the covered
    cell of greatest exact win probability, the lowest index (row-major) among ties.
    Deterministic, a function of the view alone; decisions are cached per board.

        >>> best_move("1x3x1", [[1, -1, -1]])
        (0, 2)
    """
    lv = _check_level(level)
    cell, _ = decision(lv, _read_view(lv, view).flat, first_click)
    return divmod(cell, lv.cols)


def decision(level, shown: np.ndarray, first_click="corner") -> tuple[int, bool]:
    """`best_move` for the agents: (flat cell, whether it is a guess) from a flat view
    (the engine's gs.shown; flags count as covered). The opening is not a guess."""
    lv = Level.parse(level)
    solver = _solver(lv)
    key = (shown.tobytes(), str(first_click))
    got = solver.decisions.get(key)
    if got is None:
        v = _read_view(lv, shown)
        if v.rev == 0 and first_click == "best":
            values = first_click_values(lv, first_click)
            top = max(values.values())
            r, c = min(cell for cell, w in values.items() if w == top)
            got = (r * lv.cols + c, False)
        elif v.rev == 0:
            got = (_first_cells(lv, first_click)[0], False)
        else:
            got = _decide(lv, solver, v)
        solver.decisions[key] = got
    return got


def _decide(lv: Level, solver: _Solver, v: _View) -> tuple[int, bool]:
    lay = _belief(lv, solver, v)
    covered = np.flatnonzero(v.flat < 0)
    union = int(np.bitwise_or.reduce(lay))
    safe = [int(c) for c in covered if not (union >> int(c)) & 1]
    if safe:
        return safe[0], False
    top, _, collisions = _search(lay, 0, len(lay), np.uint64(v.rev), v.num, solver.board, solver.memo,
                                 solver.keys(len(lay)), NO_LIMIT, -1)
    if collisions:
        raise RuntimeError(f"{collisions} hash collisions between views; the value would not be exact")
    for c in covered:  # the lowest index that reaches the optimum (the others are bounded away)
        if solver.click(lay, int(c), v.rev, v.num, target=max(int(top), 1)) == top:
            return int(c), True
    raise RuntimeError(f"{lv}: no cell reaches the optimum {top} of its belief")  # W >= 1 always


# ------------------------------------------------------------------ survey of every position
@njit(cache=True)
def _mine_counts(lay, lo, hi, n, out):
    for c in range(n):
        bit = _ONE << np.uint64(c)
        k = 0
        for t in range(lo, hi):
            if lay[t] & bit:
                k += 1
        out[c] = k


@njit(cache=True)
def _record(lay, lo, hi, rev, num, w, m, bd, keys, stats):
    """Append one position: its view to keys; to stats (layouts, covered cells, least
    mine count, least probable cells, no optimal move among them (0/1), they differ in
    value (0/1), W)."""
    covered = bd.full & ~rev
    least = hi - lo
    top = 0
    for c in range(bd.n):
        if (covered >> np.uint64(c)) & _ONE:
            least = min(least, m[c])
            top = max(top, w[c])
    n_least = 0
    optimal_among = 0
    lo_w = top + 1
    hi_w = -1
    for c in range(bd.n):
        if (covered >> np.uint64(c)) & _ONE and m[c] == least:
            n_least += 1
            optimal_among |= w[c] == top
            lo_w = min(lo_w, w[c])
            hi_w = max(hi_w, w[c])
    keys.append((rev, num[0], num[1], num[2], num[3]))
    stats.append((hi - lo, popcount(covered), least, n_least, 1 - optimal_among, int(lo_w != hi_w), top))


# 11 parameters: the position (layout slice, view, numbers), the board, the search's memo
# and the survey's visited set and outputs, one by one as a recursive numba kernel takes them.
@njit(cache=True)
def _survey(lay, lo0, hi0, rev0, num0, bd, memo, seen, pk, keys, stats):
    """Visit the position lay[lo0:hi0] (view rev0, num0) and every position reachable
    from it by any reveal and any outcome that `seen` (canonical views) does not hold:
    no pruning, every covered cell's exact W (children's W from `_search`, exact) and
    mine count, one `_record` each. Returns hash collisions."""
    n = bd.n
    depth = n + 2
    f_lo = np.zeros(depth, np.int64)
    f_hi = np.zeros(depth, np.int64)
    f_rev = np.zeros(depth, np.uint64)
    f_num = np.zeros((depth, 4), np.uint64)
    f_cell = np.zeros(depth, np.int64)
    f_pos = np.zeros(depth, np.int64)
    f_end = np.zeros(depth, np.int64)
    f_w = np.zeros((depth, n), np.int64)
    f_m = np.zeros((depth, n), np.int64)
    child = np.zeros(4, np.uint64)
    collisions = 0
    d = 0
    f_lo[0], f_hi[0], f_rev[0], f_cell[0] = lo0, hi0, rev0, -1
    for q in range(4):
        f_num[0, q] = num0[q]
    _mine_counts(lay, lo0, hi0, n, f_m[0])
    while True:
        cell = f_cell[d]
        if f_pos[d] < f_end[d]:  # the next group of the current cell
            a = f_pos[d]
            b, c = _group_end(pk, a, f_end[d])
            collisions += c
            f_pos[d] = b
            r = pk.rev[a]
            if popcount(bd.full & ~r) == bd.mines:
                f_w[d, cell] += b - a
                continue
            for q in range(4):
                child[q] = pk.num[a, q]
            key = _canonical(r, child, bd.perms)
            v = memo.get(key, _MISSING)
            if v < 0:
                v, _, c = _search(lay, a, b, r, child, bd, memo, pk, NO_LIMIT, -1)
                collisions += c
            f_w[d, cell] += v
            if key not in seen:
                seen[key] = 1
                d += 1
                f_lo[d], f_hi[d], f_rev[d], f_cell[d], f_pos[d], f_end[d] = a, b, r, -1, 0, 0
                for q in range(4):
                    f_num[d, q] = child[q]
                _mine_counts(lay, a, b, n, f_m[d])
            continue
        cell += 1  # the next covered cell
        while cell < n and (f_rev[d] >> np.uint64(cell)) & _ONE:
            cell += 1
        f_cell[d] = cell
        if cell < n:
            f_w[d, cell] = 0
            k = _partition(lay, f_lo[d], f_hi[d], _ONE << np.uint64(cell), f_rev[d], f_num[d], bd, pk)
            f_pos[d] = f_lo[d]
            f_end[d] = f_lo[d] + k
            continue
        _record(lay, f_lo[d], f_hi[d], f_rev[d], f_num[d], f_w[d], f_m[d], bd, keys, stats)
        if d == 0:
            return collisions
        d -= 1


@njit(cache=True)
def _survey_first(lay, cell, bd, memo, seen, pk, keys, stats):
    """`_survey` from every outcome of the first click `cell` (lay: the layouts its rule allows)."""
    zero = np.zeros(4, np.uint64)
    child = np.zeros(4, np.uint64)
    k = _partition(lay, 0, lay.shape[0], _ONE << np.uint64(cell), np.uint64(0), zero, bd, pk)
    collisions = 0
    a = 0
    while a < k:
        b, c = _group_end(pk, a, k)
        collisions += c
        r = pk.rev[a]
        for q in range(4):
            child[q] = pk.num[a, q]
        if popcount(bd.full & ~r) != bd.mines:
            key = _canonical(r, child, bd.perms)
            if key not in seen:
                seen[key] = 1
                collisions += _survey(lay, a, b, r, child, bd, memo, seen, pk, keys, stats)
        a = b
    return collisions


@njit(cache=True)
def _survey_arrays(keys, stats):
    out_k = np.zeros((len(keys), 5), np.uint64)
    out_s = np.zeros((len(stats), 7), np.int64)
    for i in range(len(keys)):
        for q in range(5):
            out_k[i, q] = keys[i][q]
        for q in range(7):
            out_s[i, q] = stats[i][q]
    return out_k, out_s


SURVEY_STATS = ("layouts", "covered", "least_mines", "least_cells", "no_optimal_least", "least_differ", "wins")


class Survey(NamedTuple):
    """What `survey` finds: one summary row per format; the candidate cells of the
    smallest examples; their views (int8 (rows, cols), COVERED where covered)."""

    summary: "object"  # pandas DataFrame
    examples: "object"  # pandas DataFrame
    views: dict  # {(level, kind): int8 array}


def _unpack_view(lv: Level, key) -> np.ndarray:
    rev, words = int(key[0]), [int(w) for w in key[1:]]
    view = np.full(lv.cells, COVERED, np.int8)
    for i in range(lv.cells):
        if (rev >> i) & 1:
            view[i] = (words[i >> 4] >> (4 * (i & 15))) & 15
    return view.reshape(lv.rows, lv.cols)


def survey(level) -> Survey:
    """Walk every position reachable in `level` (every first cell, every reveal, every
    outcome; positions up to the board's symmetries, the empty board excluded) and
    compare, at each, the least probable covered cells (fewest layouts with a mine
    there: exact integer comparison) with the optimal moves (exact W of every cell):

    - no_optimal_least: positions where no least probable cell is optimal;
    - least_differ: positions where the least probable cells differ in value (Buffet et
      al. 2012, Fig. 2 top: equally safe cells winning 2/3 and 1/3).

    The smallest example of each (fewest layouts, then fewest covered cells) comes with
    every covered cell's mine and win probability. A position with a certainly safe
    cell is counted but never an example (its safe cells are all optimal: guess_positions
    counts the others).

        >>> s = survey("2x3x1")
        >>> int(s.summary["no_optimal_least"].iloc[0])
        0
    """
    import pandas as pd

    lv = _check_level(level)
    solver = _solver(lv)
    bd = solver.board
    start = time.perf_counter()
    seen = Dict.empty(key_type=_KEY, value_type=types.int64)
    keys = List.empty_list(_KEY)
    stats = List.empty_list(types.UniTuple(types.int64, 7))
    for members in cell_classes(lv.rows, lv.cols):
        lay = _first_layouts(lv, bd, members[0])
        collisions = _survey_first(lay, members[0], bd, solver.memo, seen, solver.keys(len(lay)), keys, stats)
        if collisions:
            raise RuntimeError(f"{collisions} hash collisions between views; the survey would not be exact")
    k, s = _survey_arrays(keys, stats) if len(keys) else (np.zeros((0, 5), np.uint64), np.zeros((0, 7), np.int64))
    pos = pd.DataFrame(s, columns=list(SURVEY_STATS))
    summary = pd.DataFrame([{
        "level": str(lv), "positions": len(pos), "guess_positions": int((pos["least_mines"] > 0).sum()),
        "no_optimal_least": int(pos["no_optimal_least"].sum()), "least_differ": int(pos["least_differ"].sum()),
        "seconds": round(time.perf_counter() - start, 3)}])
    examples, views = [], {}
    for kind in ("no_optimal_least", "least_differ"):
        hits = pos[pos[kind] == 1].sort_values(["layouts", "covered"], kind="stable")
        if len(hits):
            view = _unpack_view(lv, k[hits.index[0]])
            views[(str(lv), kind)] = view
            examples.append(_example_cells(lv, view, kind))
    columns = ["level", "example", "row", "col", "mine_probability", "win_probability", "least_probable", "optimal"]
    return Survey(summary, pd.concat(examples, ignore_index=True) if examples else pd.DataFrame(columns=columns),
                  views)


def _example_cells(lv: Level, view: np.ndarray, kind: str):
    """One row per covered cell of an example position: exact mine and win probabilities."""
    import pandas as pd

    mines = mine_probabilities(lv, view)
    wins = move_values(lv, view)
    least, top = min(mines.values()), max(wins.values())
    return pd.DataFrame([{"level": str(lv), "example": kind, "row": r, "col": c, "mine_probability": mines[(r, c)],
                          "win_probability": wins[(r, c)], "least_probable": mines[(r, c)] == least,
                          "optimal": wins[(r, c)] == top} for (r, c) in sorted(mines)])


def surveys(levels) -> Survey:
    """`survey` of several formats, summaries and examples stacked."""
    import pandas as pd

    parts = [survey(level) for level in levels]
    examples = [p.examples for p in parts if len(p.examples)]
    return Survey(pd.concat([p.summary for p in parts], ignore_index=True),
                  pd.concat(examples, ignore_index=True) if examples else parts[0].examples,
                  {k: v for p in parts for k, v in p.views.items()})


def corner_vs_best(table=None):
    """Per format of the table under the safe rule: the corner's and the best first
    click's exact values, the best cells (every member of the best classes), and whether
    the corner is among them (None when the table lacks some class of the level)."""
    import pandas as pd

    table = load_table() if table is None else table
    rows = []
    for level, df in table[table["rule"] == "safe"].groupby("level", sort=False):
        lv = Level.parse(level)
        values = {cells: Fraction(int(a), int(b)) for cells, a, b in
                  df[["cells", "numerator", "denominator"]].itertuples(index=False)}
        complete = sum(len(cells.split()) for cells in values) == lv.cells
        top = max(values.values())
        corner = next((v for cells, v in values.items() if "0,0" in cells.split()), None)
        rows.append({"level": level, "corner": corner, "best": top if complete else None,
                     "best_cells": " ".join(c for cells, v in values.items() if v == top for c in cells.split())
                     if complete else None,
                     "corner_is_best": (corner == top) if complete and corner is not None else None})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ the committed table
TABLE_COLUMNS = ("level", "rule", "row", "col", "cells", "numerator", "denominator", "win_rate", "seconds")


def compute_table(levels=TABLE_LEVELS, path=TABLE_FILE, log=None):
    """Compute the exact first-click values of `levels` and write them to `path` (CSV,
    atomically), one row per class of first cells equal under the board's symmetries:
    (row, col) is the class's first cell, `cells` lists every member as "r,c r,c ...".
    Rows of other levels already in the file are kept (so one slow format can be added
    on its own). `seconds` is the wall time of that class, computed in row order with
    the memo the level's earlier classes filled (a level's total is the sum); each level
    starts from an empty memo. `log(text)` is called after each class. Returns the table."""
    import pandas as pd

    from .atomic import atomic_write

    rows = []
    for level in levels:
        lv = _check_level(level)
        clear_cache()
        for members in cell_classes(lv.rows, lv.cols):
            r, c = divmod(members[0], lv.cols)
            start = time.perf_counter()
            value = first_click_values(lv, (r, c))[(r, c)]
            seconds = round(time.perf_counter() - start, 2)
            rows.append({"level": str(lv), "rule": lv.first_click, "row": r, "col": c,
                         "cells": " ".join("%d,%d" % divmod(m, lv.cols) for m in members),
                         "numerator": value.numerator, "denominator": value.denominator,
                         "win_rate": float(value), "seconds": seconds})
            if log:
                log(f"{lv} first click ({r}, {c}): {value} = {float(value):.6f} ({seconds} s)")
        clear_cache()
    new = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    path = Path(path)
    if path.exists():
        old = load_table(path)
        new = pd.concat([old[~old["level"].isin(set(new["level"]))], new], ignore_index=True)
    order = {str(Level.parse(level)): i for i, level in enumerate(TABLE_LEVELS)}
    new = new.sort_values(["level"], key=lambda s: s.map(lambda x: order.get(x, len(order))), kind="stable")
    atomic_write(path, lambda f: new.to_csv(f, index=False, lineterminator="\n"))
    return new.reset_index(drop=True)


BOUNDS_FILE = TABLE_FILE.with_name("optimal_bounds.csv")
BOUNDS_COLUMNS = ("level", "rule", "row", "col", "cells", "bound", "numerator", "denominator", "win_rate", "limit",
                  "depth", "seconds")


def compute_bounds(level, kind="lower", limit=10_000, depth=2, path=BOUNDS_FILE, log=None):
    """Proven bounds of the first-click values of a format the exact search cannot
    finish (`lower_bounds` / `upper_bounds`, kind "lower" or "upper"), one row per class
    of first cells as in `compute_table`, written to `path` (rows of the same level and
    kind are replaced, others kept). `seconds`: per class, sharing one memo in row order."""
    import pandas as pd

    from .atomic import atomic_write

    lv = _check_level(level)
    if kind not in ("lower", "upper"):
        raise ValueError(f"kind must be 'lower' or 'upper', got {kind!r}")
    memo = Dict.empty(key_type=_KEY, value_type=types.int64)
    rows = []
    for members in cell_classes(lv.rows, lv.cols):
        r, c = divmod(members[0], lv.cols)
        start = time.perf_counter()
        value = _bounds(lv, (r, c), int(limit), -1 if kind == "lower" else max(int(depth), 0), memo)[(r, c)]
        seconds = round(time.perf_counter() - start, 2)
        rows.append({"level": str(lv), "rule": lv.first_click, "row": r, "col": c,
                     "cells": " ".join("%d,%d" % divmod(m, lv.cols) for m in members), "bound": kind,
                     "numerator": value.numerator, "denominator": value.denominator, "win_rate": float(value),
                     "limit": int(limit), "depth": -1 if kind == "lower" else int(depth), "seconds": seconds})
        if log:
            log(f"{lv} first click ({r}, {c}): {kind} bound {value} = {float(value):.6f} ({seconds} s)")
    new = pd.DataFrame(rows, columns=list(BOUNDS_COLUMNS))
    path = Path(path)
    if path.exists():
        old = pd.read_csv(path, dtype={"level": str, "cells": str})
        new = pd.concat([old[~((old["level"] == str(lv)) & (old["bound"] == kind))], new], ignore_index=True)
    atomic_write(path, lambda f: new.to_csv(f, index=False, lineterminator="\n"))
    return new


def load_table(path=TABLE_FILE):
    """The committed table (see `compute_table`) as a DataFrame; each value is exactly
    Fraction(numerator, denominator) (win_rate is its float).

        >>> t = load_table()
        >>> t[t["level"] == "4x4x4"][["row", "col", "numerator", "denominator"]].iloc[0].tolist()[:2]
        [0, 0]
    """
    import pandas as pd

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no table at {path}: write it with `python -m minelab.exact --table`")
    return pd.read_csv(path, dtype={"level": str, "rule": str, "cells": str, "numerator": "int64",
                                    "denominator": "int64"})


# ------------------------------------------------------------------ the command
def _first_click_arg(text: str):
    """--first-click: best | corner | R,C."""
    text = text.strip()
    if text in ("best", "corner"):
        return text
    parts = text.split(",")
    if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
        return (int(parts[0]), int(parts[1]))
    raise argparse.ArgumentTypeError(f"must be best, corner or a cell R,C (e.g. 1,2), got {text!r}")


def add_arguments(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arguments of `minelab optimal` (for a subparser of the minelab command too)."""
    p.add_argument("level", nargs="?", help="ROWSxCOLSxMINES[:rule] (at most 64 cells and "
                                            f"{MAX_LAYOUTS:,} layouts), e.g. 4x4x4, 5x5x5:none")
    p.add_argument("--first-click", type=_first_click_arg, default="best", metavar="best|corner|R,C",
                   help="the first click: the best cell (default), the corner or row,col")
    p.add_argument("--per-cell", action="store_true", help="also every first cell's value")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    p.add_argument("--table", action="store_true",
                   help=f"write {TABLE_FILE.name}: LEVEL only, or every level of the table ({', '.join(TABLE_LEVELS)})")
    return p


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit code 2 (argparse adds the usage)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    return add_arguments(_Parser(
        prog="minelab optimal", description="Exact win probability of a small level under optimal play."))


def run(args) -> int:
    """Carry out parsed `minelab optimal` arguments; a bad value prints one line, exit 2."""
    prog = "minelab optimal"
    try:
        if args.table:
            compute_table([args.level] if args.level else TABLE_LEVELS,
                          log=lambda text: print(text, flush=True))
            return 0
        if not args.level:
            raise ValueError("level is required (e.g. 4x4x4), or --table")
        start = time.perf_counter()
        values = first_click_values(args.level, args.first_click)
    except ValueError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    seconds = round(time.perf_counter() - start, 3)
    top = max(values.values())
    first = args.first_click if isinstance(args.first_click, str) else "%d,%d" % args.first_click
    level = str(Level.parse(args.level))
    out = {"level": level, "first_click": first, "numerator": top.numerator, "denominator": top.denominator,
           "win_rate": float(top), "seconds": seconds}
    if args.per_cell:
        out["cells"] = [{"row": r, "col": c, "numerator": v.numerator, "denominator": v.denominator,
                         "win_rate": float(v)} for (r, c), v in sorted(values.items())]
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{level} (first click {first}): {top} = {float(top):.6f} ({seconds} s)")
    for cell in out.get("cells", []):
        print(f"  ({cell['row']}, {cell['col']}): {cell['numerator']}/{cell['denominator']} = {cell['win_rate']:.6f}")
    return 0


def main(argv=None) -> int:
    """`python -m minelab.exact LEVEL [--first-click best|corner|R,C] [--per-cell] [--json]`,
    or `--table [LEVEL]` to (re)write the committed table."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a bad argument (2, already reported)
        return int(exc.code or 0)
    return run(args)


if __name__ == "__main__":  # pragma: no cover
    from minelab.exact import main as _main  # the package's module: its kernels' compiled cache

    sys.exit(_main())
