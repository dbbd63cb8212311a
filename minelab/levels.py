"""Levels: board size, mine count and first-click rule, validated once, here.

`Level(rows, cols, mines, first_click="safe")` is frozen; `Level.parse("8x8x10")`
(or "8x8x10:opening", "16x30x99:no-guess", or a preset name) and `str(level)` round-trip.
"""
from __future__ import annotations

import numbers
import re
from dataclasses import dataclass

from .cells import RULE_NAMES

FIRST_CLICK_RULES = RULE_NAMES  # ("none", "safe", "opening", "no-guess")
MAX_CELLS = 1_000_000  # far beyond any paper; keeps a typo from allocating gigabytes


def _check_int(name: str, value, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if value < low or (high is not None and value > high):
        allowed = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return value


def opening_size(rows: int, cols: int) -> int:
    """Cells kept mine-free by the `opening` and `no-guess` rules in the worst case (an interior click):
    opening_size(9, 9) == 9, opening_size(1, 10) == 3."""
    return min(3, rows) * min(3, cols)


def max_mines(rows: int, cols: int, first_click: str) -> int:
    """Largest mine count the rule allows on a rows x cols board: max_mines(9, 9, "safe") == 80."""
    cells = rows * cols
    if first_click == "none":
        return cells
    if first_click == "safe":
        return cells - 1
    return cells - opening_size(rows, cols)


@dataclass(frozen=True)
class Level:
    """A board: rows x cols with `mines` mines, and the first-click rule.

    first_click: "safe" (the default: the first click is never a mine), "opening" (it
    is a zero), "no-guess" (it is a zero, and exact deduction alone wins the board from
    it: `minelab.noguess`) or "none" (mines anywhere, the first click can lose).

        >>> Level(8, 8, 10)
        Level(rows=8, cols=8, mines=10, first_click='safe')
        >>> Level("16x30x99:opening") == Level.parse("expert:opening")
        True
    """

    rows: int
    cols: int | None = None
    mines: int | None = None
    first_click: str = "safe"

    def __post_init__(self):
        if isinstance(self.rows, str) and self.cols is None and self.mines is None:  # Level("8x8x10")
            self._from_text(self.rows)
            return
        if self.cols is None and self.mines is None:
            raise ValueError(f"Level needs rows, cols and mines (or one string such as '8x8x10'), got "
                             f"rows={self.rows!r}, cols={self.cols!r}, mines={self.mines!r}")
        rows = _check_int("rows", self.rows, 1)
        cols = _check_int("cols", self.cols, 1)
        if rows * cols > MAX_CELLS:
            raise ValueError(f"rows * cols must be <= {MAX_CELLS}, got {rows * cols}")
        if self.first_click not in FIRST_CLICK_RULES:
            raise ValueError(
                f"first_click must be one of {', '.join(FIRST_CLICK_RULES)}; got {self.first_click!r}"
            )
        mines = _check_int("mines", self.mines, 0, max_mines(rows, cols, self.first_click))
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "cols", cols)
        object.__setattr__(self, "mines", mines)

    def _from_text(self, text: str) -> None:
        level = Level.parse(text)
        if self.first_click != "safe":
            if ":" in text and level.first_click != self.first_click:
                raise ValueError(f"first_click {self.first_click!r} contradicts the rule in {text!r}")
            level = level.with_first_click(self.first_click)
        for name in ("rows", "cols", "mines", "first_click"):
            object.__setattr__(self, name, getattr(level, name))

    @property
    def cells(self) -> int:
        """rows * cols (Level("9x9x10").cells == 81)."""
        return self.rows * self.cols

    @property
    def safe_cells(self) -> int:
        """Cells without a mine: what a win reveals (Level("9x9x10").safe_cells == 71)."""
        return self.cells - self.mines

    @property
    def density(self) -> float:
        """mines / cells (Level("8x8x10").density == 0.15625)."""
        return self.mines / self.cells

    @property
    def rule_code(self) -> int:
        """The first-click rule as the engine's kernels see it (cells.RULE_NONE, RULE_SAFE, RULE_OPENING,
        RULE_NO_GUESS)."""
        return FIRST_CLICK_RULES.index(self.first_click)

    def with_first_click(self, first_click: str) -> "Level":
        """The same board under another rule: Level("9x9x10").with_first_click("opening")."""
        return Level(self.rows, self.cols, self.mines, first_click)

    def __str__(self) -> str:
        base = f"{self.rows}x{self.cols}x{self.mines}"
        return base if self.first_click == "safe" else f"{base}:{self.first_click}"

    @classmethod
    def parse(cls, text: "str | Level") -> "Level":
        """Parse "ROWSxCOLSxMINES[:rule]" or a preset name ("beginner", "expert", ...)."""
        if isinstance(text, Level):
            return text
        if not isinstance(text, str):
            raise ValueError(f"level must be a string like '8x8x10' or a preset name, got {text!r}")
        spec = text.strip().lower()
        body, colon, rule = spec.partition(":")
        if colon and not rule:
            raise ValueError(f"first_click rule missing after ':' in {text!r}; allowed: {', '.join(FIRST_CLICK_RULES)}")
        if body in PRESETS:
            level = PRESETS[body]
            return level.with_first_click(rule) if rule else level
        match = re.fullmatch(r"(\d+)x(\d+)x(\d+)", body)
        if not match:
            raise ValueError(
                f"level must look like ROWSxCOLSxMINES[:rule] (e.g. '8x8x10', '16x30x99:opening') "
                f"or be a preset ({', '.join(PRESETS)}); got {text!r}"
            )
        rows, cols, mines = (int(g) for g in match.groups())
        return cls(rows, cols, mines, rule or "safe")


BEGINNER = Level(8, 8, 10)  # Windows 98 beginner: the bandit paper's level
BEGINNER_9 = Level(9, 9, 10)  # later Windows beginner; the blog's board
INTERMEDIATE = Level(16, 16, 40)
EXPERT = Level(16, 30, 99)
PRESETS = {
    "beginner": BEGINNER,
    "beginner_9": BEGINNER_9,
    "beginner9": BEGINNER_9,
    "intermediate": INTERMEDIATE,
    "expert": EXPERT,
}
