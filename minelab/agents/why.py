"""Helpers for the agents' explanations (`Agent.explain`) and overlays (`Agent.knowledge`).

An explanation is one line, written by the agent's interactive decision path from
values that decision computed: cells as (row, col), probabilities and values with
three significant digits. Nothing here reads a hidden layout.
"""
from __future__ import annotations

import numpy as np

from ..cells import COVERED
from .base import CellValues


def at(cell, cols: int) -> str:
    """'(row, col)' of a flat cell index."""
    return f"({int(cell) // cols}, {int(cell) % cols})"


def num(x) -> str:
    """A probability or value, three significant digits ('0.167', '1', '2.5e-05')."""
    return f"{float(x):.3g}"


def signed(x) -> str:
    """A value in [-1, 1] with its sign, two decimals ('+0.40', '-1.00')."""
    return f"{float(x):+.2f}"


def count(n, word: str, words: str | None = None) -> str:
    """'1 cell', '3 cells'."""
    n = int(n)
    return f"{n} {word if n == 1 else (words or word + 's')}"


def layouts(log_count: float) -> str:
    """'in all 56 layouts consistent with the view' from the count's natural log (exact
    below a million, else '1.23e+08'); 'in the only layout ...' for one."""
    value = float(np.exp(log_count))
    if round(value) == 1:
        return "in the only layout consistent with the view"
    said = f"{round(value):,}" if value < 1e6 else f"{value:.3g}"
    return f"in all {said} layouts consistent with the view"


def covered_cells(view) -> int:
    """Covered (unflagged) cells of a flat view."""
    return int(np.count_nonzero(view == COVERED))


def opening_where(first_click, cell: int, rows: int, cols: int) -> str:
    """How an agent's fixed opening cell is named: 'the corner (0, 0)', 'the centre (4, 4)', '(2, 3)'."""
    if first_click == "corner" or (first_click is None and cell == 0):
        return f"the corner {at(cell, cols)}"
    if first_click == "centre":
        return f"the centre {at(cell, cols)}"
    return at(cell, cols)


def cell_values(values, counts, shape, label: str, lo: float, hi: float, high_means: str) -> CellValues:
    """A CellValues of flat arrays reshaped to the board (float64 values, int64 counts or None)."""
    v = np.asarray(values, np.float64).reshape(shape)
    c = None if counts is None else np.asarray(counts, np.int64).reshape(shape)
    return CellValues(v, c, label, float(lo), float(hi), high_means)


def value_range(values, default=(-1.0, 1.0)) -> tuple[float, float]:
    """(min, max) of the finite values, widened when they are all equal; `default` when none is."""
    finite = np.asarray(values, np.float64)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return default
    lo, hi = float(finite.min()), float(finite.max())
    if lo == hi:
        lo, hi = lo - 1.0, hi + 1.0
    return lo, hi


class LazyWhy:
    """Mixin for a family whose explanation costs more than formatting (an exact value
    looked up afterwards): its decision stores a function in `_why`, evaluated once,
    when `explain()` is first called for that decision."""

    def explain(self) -> str:
        why = getattr(self, "_why", None)
        if callable(why):
            self._why = why()
        return super().explain()
