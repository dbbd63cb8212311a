"""The exact optimal solver (minelab.optimal): a public value, an independent unpruned
brute force on boards of at most 12 cells, first-click rules, bad input."""
import functools
import itertools
from fractions import Fraction

import pytest

from minelab.levels import Level
from minelab.optimal import first_click_values, win_probability


def test_four_by_four_with_four_mines_and_no_first_click_rule():
    """Public check: 961/1820, reached by opening a non-corner edge cell."""
    values = first_click_values("4x4x4:none")
    assert max(values.values()) == Fraction(961, 1820)
    best = {cell for cell, v in values.items() if v == Fraction(961, 1820)}
    assert (0, 1) in best and (0, 0) not in best and (1, 1) not in best


# --------------------------------------------------------------------------- independent brute force
def _neighbours(rows, cols, i):
    r, c = divmod(i, cols)
    return [rr * cols + cc for rr in range(r - 1, r + 2) for cc in range(c - 1, c + 2)
            if (rr, cc) != (r, c) and 0 <= rr < rows and 0 <= cc < cols]


def brute_force(level, first=None):
    """Optimal win probability by plain recursion over (layouts, revealed): no shortcut
    and no bound, every covered cell is tried and every outcome followed (memoised on
    the belief itself, which changes no value). Layouts as frozensets of mine cells."""
    lv = Level.parse(level)
    n, rows, cols = lv.cells, lv.rows, lv.cols
    nb = [_neighbours(rows, cols, i) for i in range(n)]

    def reveal(mines, revealed, cell):
        out, todo = set(revealed), [cell]
        while todo:
            i = todo.pop()
            if i in out:
                continue
            out.add(i)
            if not any(j in mines for j in nb[i]):
                todo += [j for j in nb[i] if j not in out]
        return frozenset(out)

    def view_of(mines, revealed):
        return tuple(sorted((i, sum(j in mines for j in nb[i])) for i in revealed))

    @functools.lru_cache(maxsize=None)
    def value(layouts, revealed):  # expected win probability under optimal play
        if n - len(revealed) == lv.mines:
            return Fraction(1)
        best = Fraction(0)
        for c in range(n):
            if c in revealed:
                continue
            groups = {}
            for lay in layouts:
                if c in lay:
                    continue
                rev = reveal(lay, revealed, c)
                groups.setdefault((rev, view_of(lay, rev)), []).append(lay)
            total = sum(len(g) * value(frozenset(g), rev) for (rev, _), g in groups.items())
            best = max(best, total / len(layouts))
        return best

    def start(cell):
        banned = set()
        if lv.first_click == "safe":
            banned = {cell}
        elif lv.first_click == "opening":
            banned = {cell, *nb[cell]}
        layouts = [frozenset(m) for m in itertools.combinations(range(n), lv.mines) if not banned & set(m)]
        groups = {}
        for lay in layouts:
            if cell in lay:
                continue
            rev = reveal(lay, frozenset(), cell)
            groups.setdefault((rev, view_of(lay, rev)), []).append(lay)
        return sum(len(g) * value(frozenset(g), rev) for (rev, _), g in groups.items()) / len(layouts)

    cells = range(n) if first is None else [first]
    return {divmod(c, cols): start(c) for c in cells}


@pytest.mark.parametrize("level", ["1x3x1", "2x3x2:none", "2x3x2", "3x3x2", "3x3x3:none", "3x4x2:opening",
                                   "3x4x3:none", "2x6x4"])
def test_agrees_with_an_unpruned_brute_force(level):
    assert first_click_values(level) == brute_force(level)


def test_first_click_choices():
    values = first_click_values("3x3x2")
    assert win_probability("3x3x2", "corner") == values[(0, 0)]
    assert win_probability("3x3x2", (1, 1)) == values[(1, 1)]
    assert win_probability("3x3x2") == max(values.values())
    assert isinstance(win_probability("3x3x2"), Fraction)


@pytest.mark.parametrize("level, first, needle", [
    ("6x6x10", "best", "layouts"), ("9x8x1", "best", "64 cells"), ("3x3x2", "centre", "first_click"),
    ("3x3x2", (3, 0), "off the"), ("3x3x2", (True, 0), "first_click")])
def test_bad_input_is_a_clear_error(level, first, needle):
    with pytest.raises(ValueError, match=needle):
        win_probability(level, first)
