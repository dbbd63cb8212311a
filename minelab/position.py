"""Positions from outside: a board as a player sees it, as text, and whole boards as .mbf files.

A `Position` is a view (what a player sees: covered cells, flags, revealed numbers) and
the board's total mine count. It is checked when made: a number that no layout can
satisfy is a ValueError naming the cell, never a crash later.

    pos = Position.from_text('''
    3x3x1
    1HH
    HHH
    HHH
    ''')
    pos.solve().probabilities        # minelab.probability.solve of the position
    game = pos.game(seed=0)          # a Game in this position: every agent can play it
    print(pos.to_text())             # the same text back

**The text format** is the `.mine` position format of D. N. Hill's JSMinesweeper, so a
position exported by its analyser loads here and ours load there:

    WIDTHxHEIGHTxMINES       first line: columns x rows x the board's total mines
    HHF1H...                 then a line per row, a character per cell:
                             H covered, F flagged, 0-8 a revealed number

Blank lines and spaces around the lines are ignored. A flag is a belief, not a fact (as
everywhere in minelab): the solver takes a flagged cell as covered.

**.mbf files** (MinesweeperX's board format, also read and written by Arbiter and
JSMinesweeper) hold a whole board, mines included: a byte for the width, a byte for the
height, two bytes (big-endian) for the mine count, then a byte pair (x = column, y = row)
per mine. `read_mbf` gives the layout, `write_mbf` writes one; `Game.from_mines` plays it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .cells import COVERED, FLAGGED
from .engine import Game, _tables, as_generator
from .levels import Level

_HEADER = re.compile(r"^(\d+)x(\d+)x(\d+)$")
_CHARS = {"H": COVERED, "F": FLAGGED, **{str(v): v for v in range(9)}}
_CODES = {v: k for k, v in _CHARS.items()}


@dataclass(frozen=True, eq=False)
class Position:
    """A view (int8 rows x cols: COVERED, FLAGGED or a revealed number 0-8) and the board's
    total mine count, checked for consistency when made."""

    view: np.ndarray
    mines: int

    def __post_init__(self):
        from .probability import _check_view

        arr = _check_view(self.view).astype(np.int8)
        arr.setflags(write=False)
        object.__setattr__(self, "view", arr)
        if isinstance(self.mines, bool) or not isinstance(self.mines, (int, np.integer)):
            raise ValueError(f"mines must be an integer, got {self.mines!r}")
        object.__setattr__(self, "mines", int(self.mines))
        _check_consistent(arr, self.mines)

    # --- made from ----------------------------------------------------------------
    @classmethod
    def from_text(cls, text: str) -> "Position":
        """Read the text format (module docstring); ValueError naming the line and field."""
        view, mines = parse_text(text)
        return cls(view, mines)

    @classmethod
    def read(cls, path) -> "Position":
        """A position from a text file (`.mine`); a `.mbf` file is a whole board: see `read_mbf`."""
        path = Path(path)
        if path.suffix.lower() == ".mbf":
            raise ValueError(f"{path} is a whole board (.mbf), not a position: Game.from_mines(read_mbf(path))")
        try:
            return cls.from_text(path.read_text())
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    @classmethod
    def from_game(cls, game: Game) -> "Position":
        """The position a game shows (ValueError once it is lost: the mines are then shown)."""
        if game.lost:
            raise ValueError("a lost game shows its mines: it is not a position")
        return cls(game.view, game.level.mines)

    # --- written as ---------------------------------------------------------------
    def to_text(self) -> str:
        """The text format (module docstring), ending with a newline."""
        return format_text(self.view, self.mines)

    def write(self, path) -> None:
        """Write the text format to `path` (whole, through a temporary file)."""
        from .atomic import atomic_write

        text = self.to_text()
        atomic_write(path, lambda fh: fh.write(text))

    # --- used as ------------------------------------------------------------------
    @property
    def level(self) -> Level:
        """The board's size and mines (rule `none`: the position exists before any rule)."""
        return Level(self.view.shape[0], self.view.shape[1], self.mines, "none")

    def solve(self, **kwargs):
        """`minelab.probability.solve` of the position."""
        from .probability import solve

        return solve(self.view, self.mines, **kwargs)

    def game(self, seed=None) -> Game:
        """A Game showing this position, its hidden layout drawn uniformly among the consistent
        ones (from `seed`): the revealed cells are opened (zeros first, so their flood shows
        exactly the view) and the flags placed. Every agent plays it from here. A 0 beside
        unrevealed cells (a hand-made position: a game would have opened them) makes a game
        without flood fill, which shows it as it is; its neighbours are certainly safe."""
        from .probability import sample_layouts

        layout = sample_layouts(self.view, self.mines, 1, as_generator(seed))[0]
        game = Game.from_mines(layout, flood=not _zero_beside_unrevealed(self.view))
        flat = self.view.ravel()
        rows, cols = self.view.shape
        for q in sorted(np.flatnonzero(flat >= 0), key=lambda q: flat[q] != 0):
            if game.view.ravel()[q] == COVERED:
                game.reveal(*divmod(int(q), cols))
        if not np.array_equal(game.view.ravel() >= 0, flat >= 0):
            raise ValueError("the view's revealed cells are not what revealing them shows: a 0 with a covered "
                             "neighbour")
        for q in np.flatnonzero(flat == FLAGGED):
            game.flag(*divmod(int(q), cols))
        return game

    def __eq__(self, other) -> bool:
        return isinstance(other, Position) and self.mines == other.mines and np.array_equal(self.view, other.view)

    def __hash__(self) -> int:
        return hash((self.mines, self.view.shape, self.view.tobytes()))

    def __repr__(self) -> str:
        return f"Position.from_text('''\n{self.to_text()}''')"


def parse_text(text: str) -> tuple[np.ndarray, int]:
    """(view, mines) of the text format (module docstring), read but not yet checked for
    consistency (`Position` checks that); ValueError naming the line and field."""
    lines = [(k, line.strip()) for k, line in enumerate(str(text).splitlines(), 1) if line.strip()]
    if not lines:
        raise ValueError("position text is empty: expected a line WIDTHxHEIGHTxMINES, then a line per row")
    k, head = lines[0]
    m = _HEADER.match(head.replace(" ", ""))
    if not m:
        raise ValueError(f"line {k}: expected WIDTHxHEIGHTxMINES (e.g. 30x16x99), got {head!r}")
    cols, rows, mines = (int(g) for g in m.groups())
    if rows < 1 or cols < 1:
        raise ValueError(f"line {k}: width and height must be at least 1, got {cols}x{rows}")
    body = lines[1:]
    if len(body) != rows:
        raise ValueError(f"expected {rows} rows after the header (line {k}), got {len(body)}")
    view = np.empty((rows, cols), np.int8)
    for r, (k, line) in enumerate(body):
        if len(line) != cols:
            raise ValueError(f"line {k} (row {r}): expected {cols} cells, got {len(line)}")
        for c, ch in enumerate(line):
            if ch not in _CHARS:
                raise ValueError(f"line {k} (row {r}), column {c}: {ch!r} is not H (covered), F (flag) "
                                 f"or a number 0-8")
            view[r, c] = _CHARS[ch]
    unrevealed = int((view < 0).sum())
    if mines > unrevealed:
        raise ValueError(f"line {lines[0][0]}: {mines} mine{'s' if mines != 1 else ''} do not fit in the "
                         f"{unrevealed} covered or flagged cells")
    return view, mines


def format_text(view, mines: int) -> str:
    """The text format (module docstring) of a view and mine count, ending with a newline;
    no consistency check, so a position being set up can be written as it stands."""
    view = np.asarray(view)
    rows, cols = view.shape
    body = ["".join(_CODES[int(v)] for v in row) for row in view]
    return "\n".join([f"{cols}x{rows}x{int(mines)}", *body]) + "\n"


def _zero_beside_unrevealed(view: np.ndarray) -> bool:
    """Whether some revealed 0 has a covered or flagged neighbour."""
    unrevealed = np.pad(view < 0, 1)
    rows, cols = view.shape
    beside = np.zeros(view.shape, bool)
    for dr in range(3):
        for dc in range(3):
            beside |= unrevealed[dr:dr + rows, dc:dc + cols]
    return bool((beside & (view == 0)).any())


def _check_consistent(view: np.ndarray, mines: int) -> None:
    """ValueError unless some layout of `mines` mines agrees with every number: a number
    with fewer unrevealed neighbours than it shows is named; then the whole position."""
    from .probability import solve

    rows, cols = view.shape
    nbr, count = _tables(rows, cols)
    flat = view.ravel()
    for q in np.flatnonzero(flat >= 0):
        room = int((flat[nbr[q, :count[q]]] < 0).sum())
        if flat[q] > room:
            r, c = divmod(int(q), cols)
            raise ValueError(f"no layout is consistent with ({r}, {c}) = {int(flat[q])}: it has "
                             f"{room} unrevealed neighbour{'s' if room != 1 else ''}")
    unrevealed = int((flat < 0).sum())
    if not 0 <= mines <= unrevealed:
        raise ValueError(f"mines must be in [0, {unrevealed}] (the covered or flagged cells), got {mines}")
    try:
        solve(view, mines)
    except ValueError:
        raise ValueError(f"no layout of {mines} mine{'s' if mines != 1 else ''} is consistent with the numbers "
                         "(the numbers need more mines, or fewer, than that)") from None


def read_mbf(path) -> np.ndarray:
    """The layout of a .mbf board file: bool (rows, cols), True on a mine; ValueError naming
    the byte at fault."""
    path = Path(path)
    return mbf_layout(path.read_bytes(), str(path))


def mbf_layout(data: bytes, name: str = "mbf data") -> np.ndarray:
    """The layout of .mbf bytes (see `read_mbf`)."""
    if len(data) < 4:
        raise ValueError(f"{name}: {len(data)} bytes, too short for the header (width, height, mines: 4 bytes)")
    cols, rows, mines = data[0], data[1], data[2] << 8 | data[3]
    if cols < 1 or rows < 1:
        raise ValueError(f"{name}: byte 0-1: width and height must be at least 1, got {cols}x{rows}")
    if len(data) != 4 + 2 * mines:
        raise ValueError(f"{name}: bytes 2-3 give {mines} mines, so {4 + 2 * mines} bytes; the file has {len(data)}")
    layout = np.zeros((rows, cols), bool)
    for i in range(mines):
        x, y = data[4 + 2 * i], data[5 + 2 * i]
        if x >= cols or y >= rows:
            raise ValueError(f"{name}: byte {4 + 2 * i}: mine {i} at x={x}, y={y} is off the {cols}x{rows} board")
        if layout[y, x]:
            raise ValueError(f"{name}: byte {4 + 2 * i}: mine {i} at x={x}, y={y} is listed twice")
        layout[y, x] = True
    return layout


def mbf_bytes(mines) -> bytes:
    """The .mbf bytes of a layout (bool/0-1 array (rows, cols)); mines in row-major order."""
    layout = np.asarray(mines)
    if layout.ndim != 2 or layout.size == 0 or not np.isin(layout, (0, 1)).all():
        raise ValueError("mines must be a non-empty 2-d array of 0/1 (or False/True)")
    rows, cols = layout.shape
    if rows > 255 or cols > 255:
        raise ValueError(f"an .mbf board is at most 255x255, got {cols}x{rows}")
    cells = np.argwhere(layout)
    if len(cells) > 0xFFFF:
        raise ValueError(f"an .mbf board holds at most 65535 mines, got {len(cells)}")
    out = bytearray([cols, rows, len(cells) >> 8, len(cells) & 0xFF])
    for r, c in cells:
        out += bytes([int(c), int(r)])
    return bytes(out)


def write_mbf(path, mines) -> None:
    """Write a layout as a .mbf file (whole, through a temporary file)."""
    from .atomic import atomic_write

    data = mbf_bytes(mines)
    atomic_write(path, lambda fh: fh.write(data), mode="wb")
