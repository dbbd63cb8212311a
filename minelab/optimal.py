"""Exact optimal play on small boards: the probability of winning under optimal play.

The belief of a player is the set of mine layouts consistent with what they have seen,
all equally likely. Clicking a covered cell either hits a mine (in the layouts that have
one there) or reveals a region whose numbers split the remaining layouts into groups,
one per possible view. With W(B) the number of layouts of B the best player wins from
belief B,

    W(B) = |B|                                  when every safe cell is revealed
    W(B) = max over covered cells c of  sum over the groups G of "reveal c"  W(G)

and the win probability is W(B) / |B|, an exact fraction. Integers only: no rounding.
Beliefs are keyed by the view (revealed cells and their numbers), memoised.

Two exact shortcuts: a cell safe in every layout of B is revealed at once (revealing a
certainly safe cell never lowers W: the player can ignore what it shows), and a cell
whose safe layouts cannot beat the best so far is skipped.

Layouts are bit masks (one uint64, boards of at most 64 cells); the layout count
C(cells, mines) bounds what fits (MAX_LAYOUTS). First click: under `none` the first
click is part of the play; under `safe` / `opening` the mines avoid the first cell (and
its neighbours) and the first click is chosen by `first_click`: "best" (every cell up to
the board's symmetries), "corner" (0, 0) or a cell (r, c).

    >>> from minelab.optimal import win_probability
    >>> win_probability("2x3x2:none")
    Fraction(1, 3)

The search is one numba loop over an explicit stack of beliefs (`_search`), each belief
a slice of one layout array that clicks partition in place (grouped by the hash of the
view they lead to; views of equal hash but different content are counted and make the
call fail rather than return an inexact value). The memo is keyed by the smallest image
of the view under the board's symmetries, and first clicks equal under a symmetry are
computed once.

Status (issue 11 is open): values exact and checked against an independent brute force
(tests/test_optimal.py). One core: 4x4x4 safe well under a second, 3x7x10 (every first
cell) about 75 s. The `optimal` agent, the CLI and the committed table are still to come.
"""
from __future__ import annotations

import math
import sys
import time
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.typed import Dict

from .levels import Level

MAX_LAYOUTS = 5_000_000  # C(cells, mines) past this is refused (memory and time)


# ------------------------------------------------------------------ kernels
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


@njit(cache=True)
def popcount(x):
    x = np.uint64(x)
    count = 0
    while x:
        x &= x - np.uint64(1)
        count += 1
    return count


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


def _check_level(level) -> Level:
    lv = Level.parse(level)
    if lv.cells > 64:
        raise ValueError(f"level {lv}: the exact solver handles boards of at most 64 cells, got {lv.cells}")
    if math.comb(lv.cells, lv.mines) > MAX_LAYOUTS:
        raise ValueError(f"level {lv}: C({lv.cells}, {lv.mines}) = {math.comb(lv.cells, lv.mines):,} layouts; "
                         f"the exact solver handles at most {MAX_LAYOUTS:,}")
    return lv


def _first_cells(lv: Level, first_click) -> list[int]:
    if first_click == "best":
        return list(range(lv.cells))
    if first_click == "corner":
        return [0]
    if (isinstance(first_click, tuple) and len(first_click) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in first_click)):
        r, c = first_click
        if not (0 <= r < lv.rows and 0 <= c < lv.cols):
            raise ValueError(f"first_click {first_click} is off the {lv.rows}x{lv.cols} board")
        return [r * lv.cols + c]
    raise ValueError(f"first_click must be 'best', 'corner' or a cell (row, col); got {first_click!r}")


def symmetric_cells(rows: int, cols: int, cell: int) -> set[int]:
    """The images of `cell` under the board's symmetries (flips; transposes when square).

        >>> sorted(symmetric_cells(3, 3, 0))
        [0, 2, 6, 8]
    """
    return {int(c) for c in symmetry_permutations(rows, cols)[:, cell]}


def first_click_values(level, first_click="best") -> dict[tuple[int, int], Fraction]:
    """{(row, col): exact win probability when the first click is there, then optimal play}.
    Cells that a symmetry of the board maps onto each other share one computation."""
    lv = _check_level(level)
    cells = _first_cells(lv, first_click)
    nbrm = neighbour_masks(lv.rows, lv.cols)
    memo = Dict.empty(key_type=types.UniTuple(types.uint64, 5), value_type=types.int64)  # W by canonical view
    perms = symmetry_permutations(lv.rows, lv.cols)
    out = {}
    done: dict[int, Fraction] = {}
    for cell in cells:
        twin = next((c for c in symmetric_cells(lv.rows, lv.cols, cell) if c in done), None)
        if twin is not None:
            out[divmod(cell, lv.cols)] = done[cell] = done[twin]
            continue
        forbidden = 0
        if lv.first_click == "safe":
            forbidden = 1 << cell
        elif lv.first_click == "opening":
            forbidden = (1 << cell) | int(nbrm[cell])
        layouts = all_layouts(lv.cells, lv.mines, np.uint64(forbidden))
        if len(layouts) == 0:
            raise ValueError(f"level {lv}: no layout keeps the first click {divmod(cell, lv.cols)} clear")
        won, collisions = _first_click(layouts, cell, lv.cells, lv.mines, nbrm, memo, _position_keys(len(layouts)),
                                       perms)
        if collisions:
            raise RuntimeError(f"{lv}: {collisions} hash collisions between views; the value would not be exact")
        out[divmod(cell, lv.cols)] = done[cell] = Fraction(int(won), len(layouts))
    return out


def win_probability(level, first_click="best") -> Fraction:
    """The exact probability of winning `level` under optimal play, as a Fraction.

    first_click: "best" (the best first cell), "corner" or (row, col). Under the `none`
    rule with "best" the first click is simply part of optimal play.
    """
    return max(first_click_values(level, first_click).values())


def main(argv=None) -> int:  # pragma: no cover - a thin command for timing by hand
    level = (argv or sys.argv[1:] or ["4x4x4:none"])[0]
    start = time.perf_counter()
    p = win_probability(level)
    print(f"{level}: {p} = {float(p):.6f} ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


# ------------------------------------------------------------------ the search, in numba
_MIX = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _outcome(lay, cell, revealed, numbers, nbrm, out_num):
    """The view after revealing `cell` (safe in layout `lay`) from (revealed, numbers):
    returns the revealed mask, writes the numbers into out_num[4]."""
    one = np.uint64(1)
    for q in range(4):
        out_num[q] = numbers[q]
    stack = np.empty(64, np.int64)
    r = revealed | (one << np.uint64(cell))
    top = 1
    stack[0] = cell
    while top > 0:
        top -= 1
        i = stack[top]
        v = popcount(lay & nbrm[i])
        out_num[i // 16] |= np.uint64(v) << np.uint64(4 * (i % 16))
        if v == 0:
            nb = nbrm[i] & ~r
            while nb:
                low = nb & (~nb + one)
                j = 0
                while (low >> np.uint64(j)) != one:
                    j += 1
                nb &= ~low
                r |= low
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
def _partition(lay, lo, hi, cell, revealed, numbers, nbrm, pk):
    """Reorder lay[lo:hi]: the layouts safe at `cell` first, grouped by the view they
    lead to (sorted by its hash), the mined ones last; each safe position's view goes to
    the position keys pk (pk.hash, pk.rev, pk.num), permuted along. Returns the number
    of safe layouts. A child search only reorders inside its own group, so the keys of
    later groups stay valid while the parent walks them."""
    one = np.uint64(1)
    k = 0
    for t in range(lo, hi):  # safe ones first
        if not (lay[t] >> np.uint64(cell)) & one:
            x = lay[lo + k]
            lay[lo + k] = lay[t]
            lay[t] = x
            k += 1
    for t in range(lo, lo + k):
        pk.rev[t] = _outcome(lay[t], cell, revealed, numbers, nbrm, pk.num[t])
        pk.hash[t] = _key_hash(pk.rev[t], pk.num[t])
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


class PositionKeys(NamedTuple):
    """Per layout position: the view its layout leads to under the current click."""

    hash: np.ndarray  # uint64[L]
    rev: np.ndarray  # uint64[L]
    num: np.ndarray  # uint64[L, 4]
    tmp_lay: np.ndarray  # uint64[L] scratch of the sort
    tmp_hash: np.ndarray
    tmp_rev: np.ndarray
    tmp_num: np.ndarray  # uint64[L, 4]


def _position_keys(size: int) -> PositionKeys:
    u = np.uint64
    return PositionKeys(np.zeros(size, u), np.zeros(size, u), np.zeros((size, 4), u), np.zeros(size, u),
                        np.zeros(size, u), np.zeros(size, u), np.zeros((size, 4), u))


def symmetry_permutations(rows: int, cols: int) -> np.ndarray:
    """int64 (S, n): cell i goes to perms[s, i] under symmetry s of the board (the
    identity first; flips, and transposes when square)."""
    cells = np.arange(rows * cols)
    r, c = np.divmod(cells, cols)
    maps = [(r, c), (rows - 1 - r, c), (r, cols - 1 - c), (rows - 1 - r, cols - 1 - c)]
    if rows == cols:
        maps += [(b, a) for a, b in maps]
    return np.array([a * cols + b for a, b in maps], np.int64)


@njit(cache=True)
def _canonical(r, num, perms):
    """The memo key of a view: the smallest of its images under the board's symmetries
    (symmetric views have the same value)."""
    one = np.uint64(1)
    best = (r, num[0], num[1], num[2], num[3])
    for s in range(1, perms.shape[0]):
        ir = np.uint64(0)
        w = np.zeros(4, np.uint64)
        for i in range(perms.shape[1]):
            if (r >> np.uint64(i)) & one:
                j = perms[s, i]
                ir |= one << np.uint64(j)
                v = (num[i // 16] >> np.uint64(4 * (i % 16))) & np.uint64(15)
                w[j // 16] |= v << np.uint64(4 * (j % 16))
        key = (ir, w[0], w[1], w[2], w[3])
        if key < best:
            best = key
    return best


@njit(cache=True)
def _prepare(lay, lo, hi, rev, full, n, order, safecnt):
    """Candidates of the belief lay[lo:hi] into order[:count], best first (most safe
    layouts), with safecnt: one certainly safe cell alone if there is one. Returns count."""
    one = np.uint64(1)
    union = np.uint64(0)
    inter = ~np.uint64(0)
    for t in range(lo, hi):
        union |= lay[t]
        inter &= lay[t]
    covered = full & ~rev
    safe = covered & ~union
    if safe:
        low = safe & (~safe + one)
        j = 0
        while (low >> np.uint64(j)) != one:
            j += 1
        order[0] = j
        safecnt[0] = hi - lo
        return 1
    cands = covered & ~inter
    count = 0
    for c in range(n):
        if (cands >> np.uint64(c)) & one:
            k = 0
            for t in range(lo, hi):
                if not (lay[t] >> np.uint64(c)) & one:
                    k += 1
            p = count  # insertion, most safe layouts first, ties by cell index
            while p > 0 and safecnt[p - 1] < k:
                order[p] = order[p - 1]
                safecnt[p] = safecnt[p - 1]
                p -= 1
            order[p] = c
            safecnt[p] = k
            count += 1
    return count


@njit(cache=True)
def _search(lay, lo0, hi0, rev0, num0, n, mines, nbrm, memo, pk, perms):
    """W of the belief lay[lo0:hi0] seen as (rev0, num0): the recursion of `wins`, as a
    loop over an explicit stack of frames. Returns (W, beliefs searched, collisions)."""
    depth = n + 2
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1) if n < 64 else ~np.uint64(0)
    f_lo = np.zeros(depth, np.int64)
    f_hi = np.zeros(depth, np.int64)
    f_rev = np.zeros(depth, np.uint64)
    f_num = np.zeros((depth, 4), np.uint64)
    f_order = np.zeros((depth, n), np.int64)
    f_safe = np.zeros((depth, n), np.int64)
    f_count = np.zeros(depth, np.int64)
    f_ci = np.zeros(depth, np.int64)
    f_best = np.zeros(depth, np.int64)
    f_total = np.zeros(depth, np.int64)
    f_pos = np.zeros(depth, np.int64)
    f_end = np.zeros(depth, np.int64)
    child = np.zeros(4, np.uint64)
    nodes = 0
    collisions = 0
    d = 0
    f_lo[0], f_hi[0], f_rev[0] = lo0, hi0, rev0
    for q in range(4):
        f_num[0, q] = num0[q]
    f_count[0] = _prepare(lay, lo0, hi0, rev0, full, n, f_order[0], f_safe[0])
    f_ci[0] = -1
    while True:
        lo, hi = f_lo[d], f_hi[d]
        if f_pos[d] < f_end[d]:  # the next group of the current candidate
            a = f_pos[d]
            b, c = _group_end(pk, a, f_end[d])
            collisions += c
            f_pos[d] = b
            r = pk.rev[a]
            for q in range(4):
                child[q] = pk.num[a, q]
            if popcount(full & ~r) == mines:
                f_total[d] += b - a  # every safe cell revealed: won in all of them
                continue
            key = _canonical(r, child, perms)
            if key in memo:
                f_total[d] += memo[key]
                continue
            d += 1  # search the child belief
            f_lo[d], f_hi[d], f_rev[d] = a, b, r
            for q in range(4):
                f_num[d, q] = child[q]
            f_count[d] = _prepare(lay, a, b, r, full, n, f_order[d], f_safe[d])
            f_ci[d] = -1
            f_best[d] = 0
            f_pos[d] = 0
            f_end[d] = 0
            nodes += 1
            continue
        if f_ci[d] >= 0 and f_total[d] > f_best[d]:
            f_best[d] = f_total[d]
        nxt = f_ci[d] + 1
        if f_best[d] < hi - lo and nxt < f_count[d] and f_safe[d, nxt] > f_best[d]:
            f_ci[d] = nxt
            k = _partition(lay, lo, hi, f_order[d, nxt], f_rev[d], f_num[d], nbrm, pk)
            f_pos[d] = lo
            f_end[d] = lo + k
            f_total[d] = 0
            continue
        value = f_best[d]  # this belief is done
        memo[_canonical(f_rev[d], f_num[d], perms)] = value
        if d == 0:
            return value, nodes, collisions
        d -= 1
        f_total[d] += value


@njit(cache=True)
def _first_click(lay, cell, n, mines, nbrm, memo, pk, perms):
    """W of the whole layout set when the first click is `cell`: (W, hash collisions)."""
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1) if n < 64 else ~np.uint64(0)
    num0 = np.zeros(4, np.uint64)
    child = np.zeros(4, np.uint64)
    k = _partition(lay, 0, lay.shape[0], cell, np.uint64(0), num0, nbrm, pk)
    total = 0
    collisions = 0
    a = 0
    while a < k:
        b, c = _group_end(pk, a, k)
        collisions += c
        r = pk.rev[a]
        for q in range(4):
            child[q] = pk.num[a, q]
        if popcount(full & ~r) == mines:
            total += b - a
        else:
            key = _canonical(r, child, perms)
            if key in memo:
                total += memo[key]
            else:
                value, _, c = _search(lay, a, b, r, child.copy(), n, mines, nbrm, memo, pk, perms)
                total += value
                collisions += c
        a = b
    return total, collisions
