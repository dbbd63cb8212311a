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

Status (issue 11 is open): the values are exact and checked against an independent
brute force (tests/test_optimal.py), but the search is a Python recursion, about 60 us a
belief: 4x4x4 (241,202 beliefs) takes ~10 s, 3x7x10 does not finish in 10 minutes. The
board's symmetries, a numba search and the `optimal` agent are still to come.
"""
from __future__ import annotations

import math
import sys
import time
from fractions import Fraction

import numpy as np
from numba import njit

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


@njit(cache=True)
def click_outcomes(layouts, cell, revealed, numbers, nbrm):
    """For each layout, the view after revealing `cell` (flood fill through zeros) from
    the view (revealed mask; numbers uint64[4], 4 bits a cell, cell i in word i // 16):
    (hit a mine: bool[k], revealed: uint64[k], numbers: uint64[k, 4])."""
    count = layouts.shape[0]
    mine = np.zeros(count, np.bool_)
    rev = np.zeros(count, np.uint64)
    num = np.zeros((count, 4), np.uint64)
    stack = np.zeros(64, np.int64)
    one = np.uint64(1)
    for t in range(count):
        lay = layouts[t]
        if (lay >> np.uint64(cell)) & one:
            mine[t] = True
            continue
        r = revealed
        w = numbers.copy()
        top = 0
        stack[top] = cell
        top += 1
        r |= one << np.uint64(cell)
        while top > 0:
            top -= 1
            i = stack[top]
            v = popcount(lay & nbrm[i])
            w[i // 16] |= np.uint64(v) << np.uint64(4 * (i % 16))
            if v == 0:
                nb = nbrm[i] & ~r
                while nb:
                    j = 0
                    low = nb & (~nb + one)
                    while (low >> np.uint64(j)) != one:
                        j += 1
                    nb &= ~low
                    r |= low
                    stack[top] = j
                    top += 1
        rev[t] = r
        for q in range(4):
            num[t, q] = w[q]
    return mine, rev, num


# ------------------------------------------------------------------ the search
class _Search:
    """W(B) by memoised recursion over views (see the module docstring)."""

    def __init__(self, level: Level):
        self.level = level
        self.n = level.cells
        self.nbrm = neighbour_masks(level.rows, level.cols)
        self.full = (1 << self.n) - 1
        self.memo: dict[tuple, int] = {}
        self.nodes = 0

    def groups(self, layouts, cell, view):
        """The beliefs after revealing `cell`: [(view', layouts')], mines excluded."""
        revealed, nums = view
        mine, rev, num = click_outcomes(layouts, cell, np.uint64(revealed), np.array(nums, np.uint64), self.nbrm)
        keep = ~mine
        if not keep.any():
            return []
        lay, rev, num = layouts[keep], rev[keep], num[keep]
        order = np.lexsort((num[:, 3], num[:, 2], num[:, 1], num[:, 0], rev))
        lay, rev, num = lay[order], rev[order], num[order]
        key = np.column_stack([rev, num])
        cut = np.flatnonzero((key[1:] != key[:-1]).any(axis=1)) + 1
        bounds = np.concatenate([[0], cut, [len(lay)]])
        out = []
        for a, b in zip(bounds[:-1], bounds[1:]):
            out.append(((int(rev[a]), tuple(int(x) for x in num[a])), lay[a:b]))
        return out

    def wins(self, layouts, view) -> int:
        """W: layouts of this belief won under optimal play from `view`."""
        revealed, nums = view
        covered = self.full & ~revealed
        if bin(covered).count("1") == self.level.mines:
            return len(layouts)
        key = (revealed, nums)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self.nodes += 1
        union = int(np.bitwise_or.reduce(layouts))
        inter = int(np.bitwise_and.reduce(layouts))
        safe = covered & ~union
        if safe:
            cell = (safe & -safe).bit_length() - 1
            best = sum(self.wins(g, v) for v, g in self.groups(layouts, cell, view))
        else:
            best = 0
            candidates = covered & ~inter
            order = sorted((c for c in range(self.n) if (candidates >> c) & 1),
                           key=lambda c: -int(np.count_nonzero((layouts >> np.uint64(c)) & np.uint64(1) == 0)))
            for c in order:
                safe_count = int(np.count_nonzero((layouts >> np.uint64(c)) & np.uint64(1) == 0))
                if safe_count <= best:
                    break  # sorted by safe layouts: no later cell can do better
                total = sum(self.wins(g, v) for v, g in self.groups(layouts, c, view))
                best = max(best, total)
                if best == len(layouts):
                    break
        self.memo[key] = best
        return best


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


def first_click_values(level, first_click="best") -> dict[tuple[int, int], Fraction]:
    """{(row, col): exact win probability when the first click is there, then optimal play}."""
    lv = _check_level(level)
    cells = _first_cells(lv, first_click)
    search = _Search(lv)
    out = {}
    empty = (0, (0, 0, 0, 0))
    for cell in cells:
        forbidden = 0
        if lv.first_click == "safe":
            forbidden = 1 << cell
        elif lv.first_click == "opening":
            forbidden = (1 << cell) | int(search.nbrm[cell])
        layouts = all_layouts(lv.cells, lv.mines, np.uint64(forbidden))
        if len(layouts) == 0:
            raise ValueError(f"level {lv}: no layout keeps the first click {divmod(cell, lv.cols)} clear")
        won = sum(search.wins(g, v) for v, g in search.groups(layouts, cell, empty))
        out[divmod(cell, lv.cols)] = Fraction(won, len(layouts))
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
