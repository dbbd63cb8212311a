"""The state table: the whole visible board -> one row of values (one per cell).

Tabular Q-learning, SARSA and the MCTS statistics key a state by everything the player
sees. A view is packed 4 bits a cell (covered 0, a revealed number 1 + n) into
`words = ceil(cells / 16)` uint64 words: two words on the paper's 5x5 board. The map is
open addressing over numpy arrays (linear probing from a multiplicative hash of the
words), kept at most half full; a slot holds the index of its state's row (-1 = free),
and the row's key sits in `row_keys`, so the slot array stays 4 bytes a slot.

Memory at the paper's scale (8 million states on 5x5): values 25 x float32 = 100 bytes a
state, the key 16, the slots 8-16, so about 1.1 GB with the rows' headroom.

A kernel never allocates: it checks `table_room` before a game and stops when a game
might not fit; the Python side grows the arrays (`StateTable.reserve`) and resumes.

`CoveredTable` is the same map with a row only as long as its state has covered cells
(the only actions): the values of all rows sit end to end in one pool, row r's at
`row_start[r]:row_start[r + 1]`, in cell order. MCTS keeps it: its statistics are two
values a cell (Q as float32, N as int32) and it stores states deep into games, most with
many cells revealed, so a 5x5 state with k covered cells costs 8k + 24 bytes (values,
key, start) instead of the 216 of a full row, plus the slots. It also stores many more
states than the Q-learners (one a simulation that reaches a new one), so its table is
the largest of the RL families at equal games.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ...cells import COVERED
from ...engine import kernel
from ...probability import step as _inlined

# StateArrays.meta fields: rows used, slot mask, hash shift
SM_ROWS, SM_MASK, SM_SHIFT = range(3)
N_STATE_META = 3
FREE = -1
CELLS_PER_WORD = 16
_MUL = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9))


class StateArrays(NamedTuple):
    """The table as kernels take it (`tb`)."""

    slot_row: np.ndarray  # int32[slots]: the row of the state in this slot, FREE if none
    row_keys: np.ndarray  # uint64[rows_cap, words]: each row's packed view
    q: np.ndarray         # float32[rows_cap, cells]: a value per action (cell)
    visits: np.ndarray    # int32[rows_cap or 1, cells]: MCTS's N(s, a) (a 1-row stub for the others)
    meta: np.ndarray      # int64[N_STATE_META]: SM_* fields


def key_words(cells: int) -> int:
    """uint64 words in the key of a board of `cells` cells."""
    return (cells + CELLS_PER_WORD - 1) // CELLS_PER_WORD


# ------------------------------------------------------------------ kernels
@kernel
def pack_view(view, key):
    """key[:] = the packed view (4 bits a cell: covered 0, number v as v + 1). The
    table's states are taken before the game ends, so a view never shows a mine here."""
    words = key.shape[0]
    n = view.shape[0]
    for w in range(words):
        acc = np.uint64(0)
        lo = w * CELLS_PER_WORD
        hi = min(n, lo + CELLS_PER_WORD)
        for i in range(hi - 1, lo - 1, -1):
            v = view[i]
            code = np.uint64(v + 1) if v >= 0 else np.uint64(0)
            acc = (acc << np.uint64(4)) | code
        key[w] = acc


@kernel
def pack_terminal(view, clicked, key):
    """key[:] = the packed view of a finished game as the authors' program's board shows
    it: a loss marks only the mine clicked (code 10), the other mines stay covered. Never
    equal to a non-terminal state's key (a loss has the code, a win no covered safe cell)."""
    pack_view(view, key)
    if view[clicked] < 0:  # the mine that ended the game
        w, shift = clicked // CELLS_PER_WORD, np.uint64(4 * (clicked % CELLS_PER_WORD))
        key[w] |= np.uint64(10) << shift


@kernel
def _slot(tb, key):
    """The slot holding `key`, or the free slot where it would go."""
    h = np.uint64(0)
    for w in range(key.shape[0]):
        h ^= key[w] * _MUL[w % 3]
        h = (h << np.uint64(29)) | (h >> np.uint64(35))
    h *= _MUL[0]
    mask = tb.meta[SM_MASK]
    i = np.int64(h >> np.uint64(tb.meta[SM_SHIFT])) & mask
    while True:
        row = tb.slot_row[i]
        if row == FREE:
            return i
        same = True
        for w in range(key.shape[0]):
            if tb.row_keys[row, w] != key[w]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & mask


@kernel
def find_row(tb, key):
    """The row of state `key`, or -1 when it was never stored."""
    return tb.slot_row[_slot(tb, key)]


@_inlined
def _new_row(tb, i, key):
    """Store `key` as the next row, in free slot i; returns the row (inlined into its
    caller: a call that passes the table's arrays costs more than this does)."""
    row = tb.meta[SM_ROWS]
    tb.meta[SM_ROWS] = row + 1
    tb.slot_row[i] = row
    for w in range(key.shape[0]):
        tb.row_keys[row, w] = key[w]
    return row


@kernel
def insert_row(tb, key):
    """The row of state `key`, stored with zero values (and visits) if it was new."""
    i = _slot(tb, key)
    row = tb.slot_row[i]
    if row != FREE:
        return row
    row = _new_row(tb, i, key)
    tb.q[row, :] = 0.0
    if tb.visits.shape[0] > 1:
        tb.visits[row, :] = 0
    return row


@kernel
def table_room(tb, extra):
    """Whether `extra` more states fit in the rows and keep the slots at most half full."""
    rows = tb.meta[SM_ROWS] + extra
    return rows <= tb.q.shape[0] and 2 * rows <= tb.meta[SM_MASK] + 1


@kernel
def _rehash(tb):
    """Put every row into the (new, all FREE) slots."""
    for row in range(tb.meta[SM_ROWS]):
        tb.slot_row[_slot(tb, tb.row_keys[row])] = row


# ------------------------------------------------------------------ the Python side
class StateTable:
    """Whole-board states of one board size, each with a row of `cells` values (and of
    visit counts when `visits=True`). `reserve(extra)` makes room (see there).

        >>> t = StateTable(25)
        >>> len(t), t.words
        (0, 2)
    """

    def __init__(self, cells: int, *, visits: bool = False, capacity: int = 1 << 12):
        self.cells = int(cells)
        self.words = key_words(self.cells)
        self.with_visits = bool(visits)
        rows = max(16, int(capacity))
        self.q = np.zeros((rows, self.cells), np.float32)
        self.visits = np.zeros((rows if visits else 1, self.cells), np.int32)
        self.row_keys = np.zeros((rows, self.words), np.uint64)
        self.meta = np.zeros(N_STATE_META, np.int64)
        self._new_slots(2 * rows)

    def _new_slots(self, slots: int) -> None:
        bits = max(4, int(slots - 1).bit_length())
        self.slot_row = np.full(1 << bits, FREE, np.int32)
        self.meta[SM_MASK] = (1 << bits) - 1
        self.meta[SM_SHIFT] = 64 - bits
        _rehash(self.arrays())

    def __len__(self) -> int:
        return int(self.meta[SM_ROWS])

    @property
    def nbytes(self) -> int:
        """Bytes held by the table's arrays."""
        return sum(a.nbytes for a in (self.q, self.visits, self.row_keys, self.slot_row, self.meta))

    def arrays(self) -> StateArrays:
        return StateArrays(self.slot_row, self.row_keys, self.q, self.visits, self.meta)

    def reserve(self, extra: int) -> None:
        """Grow so that `extra` more states fit: the rows by a quarter again (an MCTS
        table at millions of states is gigabytes: doubling would overshoot by as much; in
        place, a growth costs little), the slots by doubling (kept at most half full)."""
        need = len(self) + int(extra)
        if need > self.q.shape[0]:
            rows = self.q.shape[0]
            while rows < need:
                rows += rows // 4
            for name in ("q", "row_keys") + (("visits",) if self.with_visits else ()):
                self._resize(name, rows)
        if 2 * need > self.slot_row.shape[0]:
            self._new_slots(2 * max(need, self.q.shape[0]))

    def put_rows(self, row_keys: np.ndarray, visits: np.ndarray | None = None) -> None:
        """Store the states `row_keys` (uint64[n, words], distinct) as rows 0..n-1 of this
        empty table, zero values (and `visits` beside them), growing it to fit; each is then
        found at its row, as when stored one by one in that order (a saved table read back)."""
        if len(self):
            raise ValueError("put_rows fills an empty table")
        n = row_keys.shape[0]
        self.reserve(n)
        self.row_keys[:n] = row_keys
        if self.with_visits:
            self.visits[:n] = visits
        self.meta[SM_ROWS] = n
        _rehash(self.arrays())

    def _resize(self, name: str, rows: int) -> None:
        """Array attribute `name` to `rows` rows, new rows zero: in place when nothing else
        refers to it (numpy's refcheck: no view, no StateArrays holding it), so that realloc
        moves the pages instead of the table being held twice, at 2.5 times its size; else
        a copy, and whoever holds the old array keeps it whole."""
        try:
            getattr(self, name).resize((rows,) + getattr(self, name).shape[1:], refcheck=True)
        except ValueError:
            setattr(self, name, _grown(getattr(self, name), rows))

    def release(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row_keys, q, visits) cut to the states stored (in place when nothing else
        refers to them: no second copy of the table at its largest). The table is empty
        afterwards."""
        n = len(self)
        self._resize("row_keys", n)
        self._resize("q", n)
        if self.with_visits:
            self._resize("visits", n)
        out = (self.row_keys, self.q, self.visits)
        self.__init__(self.cells, visits=self.with_visits, capacity=16)
        return out

    def saved(self) -> dict[str, np.ndarray]:
        """The states stored, as plain arrays (`put_saved` reads them back): their keys
        and values (and visit counts), cut to the rows used. Views of the table (no second
        copy of a table of gigabytes): write them before it plays again."""
        n = len(self)
        out = {"row_keys": self.row_keys[:n], "q": self.q[:n]}
        if self.with_visits:
            out["visits"] = self.visits[:n]
        return out

    def put_saved(self, arrays: dict) -> None:
        """Fill this empty table with what `saved` wrote: every state at the row it had,
        found as before. ValueError naming the member when the arrays do not fit."""
        keys = checked_keys(arrays, self.cells, self.words)
        n = keys.shape[0]
        q = _member(arrays, "q", np.float32, (n, self.cells))
        visits = _member(arrays, "visits", np.int32, (n, self.cells)) if self.with_visits else None
        self.put_rows(keys, visits)
        self.q[:n] = q
        _check_distinct(self)

    def frame(self) -> pd.DataFrame:
        """One row per state: its packed key words (k0, k1, ...) and values (q0..), for
        inspection and tests (small tables: this copies everything)."""
        n = len(self)
        cols = {f"k{w}": self.row_keys[:n, w] for w in range(self.words)}
        cols.update({f"q{i}": self.q[:n, i] for i in range(self.cells)})
        if self.with_visits:
            cols.update({f"n{i}": self.visits[:n, i] for i in range(self.cells)})
        return pd.DataFrame(cols)


# ------------------------------------------------------------------ rows of covered cells only
class CoveredArrays(NamedTuple):
    """A `CoveredTable` as kernels take it (`tb`). The map (`_slot`, `find_row`) is the
    StateTable's; a row's values are met through `row_values` and `value_index`."""

    slot_row: np.ndarray   # int32[slots]: the row of the state in this slot, FREE if none
    row_keys: np.ndarray   # uint64[rows_cap, words]: each row's packed view
    row_start: np.ndarray  # int64[rows_cap + 1]: row r's values are q[row_start[r]:row_start[r + 1]]
    q: np.ndarray          # float32[values_cap]: a value per covered cell of each row, in cell order
    visits: np.ndarray     # int32[values_cap]: the visit count beside each value
    meta: np.ndarray       # int64[N_STATE_META]: SM_* fields


@kernel
def insert_covered(tb, key, view):
    """The row of state `key` (packed from `view`), stored with one zero value and visit
    count per covered cell of `view` if it was new."""
    i = _slot(tb, key)
    row = tb.slot_row[i]
    if row != FREE:
        return row
    row = _new_row(tb, i, key)
    k = tb.row_start[row]
    for c in range(view.shape[0]):
        if view[c] == COVERED:
            tb.q[k] = 0.0
            tb.visits[k] = 0
            k += 1
    tb.row_start[row + 1] = k
    return row


@kernel
def row_values(tb, row, view, q, visits):
    """q[:], visits[:] = row `row`'s values spread over the cells of `view` (the view the
    row was stored from: the same covered cells), 0 on revealed cells."""
    k = tb.row_start[row]
    for c in range(view.shape[0]):
        if view[c] == COVERED:
            q[c] = tb.q[k]
            visits[c] = tb.visits[k]
            k += 1
        else:
            q[c] = 0.0
            visits[c] = 0


@kernel
def value_index(tb, row, view, cell):
    """The index in `tb.q` / `tb.visits` of covered `cell`'s value in row `row`."""
    k = tb.row_start[row]
    for c in range(cell):
        if view[c] == COVERED:
            k += 1
    return k


@kernel
def covered_room(tb, states, values):
    """Whether `states` more states holding at most `values` values in all fit, the
    slots kept at most half full."""
    rows = tb.meta[SM_ROWS] + states
    return (rows <= tb.row_keys.shape[0] and 2 * rows <= tb.meta[SM_MASK] + 1
            and tb.row_start[tb.meta[SM_ROWS]] + values <= tb.q.shape[0])


class CoveredTable:
    """Whole-board states of one board size, each with a value and a visit count per
    covered cell (see the module docstring). `reserve(states, values)` makes room.

        >>> t = CoveredTable(25)
        >>> len(t), t.words
        (0, 2)
    """

    def __init__(self, cells: int, *, capacity: int = 1 << 12):
        self.cells = int(cells)
        self.words = key_words(self.cells)
        rows = max(16, int(capacity))
        self.row_keys = np.zeros((rows, self.words), np.uint64)
        self.row_start = np.zeros(rows + 1, np.int64)
        self.q = np.zeros(rows * self.cells // 2 + self.cells, np.float32)
        self.visits = np.zeros(self.q.shape[0], np.int32)
        self.meta = np.zeros(N_STATE_META, np.int64)
        self._new_slots(2 * rows)

    # the map, its size and the in-place growth are StateTable's
    _new_slots, __len__, _resize = StateTable._new_slots, StateTable.__len__, StateTable._resize

    @property
    def values_used(self) -> int:
        """Values (and visit counts) stored over all rows."""
        return int(self.row_start[len(self)])

    @property
    def nbytes(self) -> int:
        """Bytes held by the table's arrays."""
        return sum(a.nbytes for a in (self.q, self.visits, self.row_keys, self.row_start, self.slot_row, self.meta))

    def arrays(self) -> CoveredArrays:
        return CoveredArrays(self.slot_row, self.row_keys, self.row_start, self.q, self.visits, self.meta)

    def reserve(self, states: int, values: int) -> None:
        """Grow so that `states` more states with at most `values` values in all fit: rows
        and values by a quarter again (in place where nothing else holds the arrays, as
        `StateTable.reserve`), the slots by doubling (kept at most half full)."""
        need = len(self) + int(states)
        if need > self.row_keys.shape[0]:
            rows = self.row_keys.shape[0]
            while rows < need:
                rows += rows // 4
            self._resize("row_keys", rows)
            self._resize("row_start", rows + 1)
        need_values = self.values_used + int(values)
        if need_values > self.q.shape[0]:
            cap = self.q.shape[0]
            while cap < need_values:
                cap += cap // 4
            self._resize("q", cap)
            self._resize("visits", cap)
        if 2 * need > self.slot_row.shape[0]:
            self._new_slots(2 * max(need, self.row_keys.shape[0]))

    def saved(self) -> dict[str, np.ndarray]:
        """The states stored, as plain arrays (`put_saved` reads them back): keys, row
        starts, values and visit counts, cut to what is used. Views of the table, as
        `StateTable.saved`'s: write them before it plays again."""
        n, v = len(self), self.values_used
        return {"row_keys": self.row_keys[:n], "row_start": self.row_start[:n + 1], "q": self.q[:v],
                "visits": self.visits[:v]}

    def put_saved(self, arrays: dict) -> None:
        """Fill this empty table with what `saved` wrote: every state at the row it had,
        its values where they were. ValueError naming the member when the arrays do not
        fit together (a row as long as its state's covered cells, starts from 0 on)."""
        if len(self):
            raise ValueError("put_saved fills an empty table")
        keys = checked_keys(arrays, self.cells, self.words)
        n = keys.shape[0]
        start = _member(arrays, "row_start", np.int64, (n + 1,))
        if start[0] != 0 or np.any(np.diff(start) != covered_counts(keys, self.cells)):
            raise ValueError("member row_start: each row must start where the last ended, from 0, and hold one "
                             "value per covered cell of its state")
        v = int(start[n])
        q = _member(arrays, "q", np.float32, (v,))
        visits = _member(arrays, "visits", np.int32, (v,))
        self.reserve(n, v)
        self.row_keys[:n] = keys
        self.row_start[:n + 1] = start
        self.q[:v] = q
        self.visits[:v] = visits
        self.meta[SM_ROWS] = n
        _rehash(self.arrays())
        _check_distinct(self)

    def row(self, row: int, view: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(values float32[cells], visits int32[cells]) of row `row` spread over `view`'s
        cells (the view it was stored from), 0 on revealed cells."""
        q, visits = np.zeros(self.cells, np.float32), np.zeros(self.cells, np.int32)
        row_values(self.arrays(), np.int64(row), view, q, visits)
        return q, visits


# ------------------------------------------------------------------ saved tables
def _member(arrays: dict, name: str, dtype, shape: tuple) -> np.ndarray:
    """arrays[name], checked to be `dtype` of `shape`; ValueError naming it otherwise."""
    if name not in arrays:
        raise ValueError(f"the table has no member {name}")
    a = arrays[name]
    if a.dtype != np.dtype(dtype) or a.shape != tuple(shape):
        raise ValueError(f"member {name}: {a.dtype}[{', '.join(map(str, a.shape))}], expected "
                         f"{np.dtype(dtype)}[{', '.join(map(str, shape))}]")
    return a


def _nibbles(keys: np.ndarray, cells: int) -> np.ndarray:
    """uint8[n, cells]: each cell's 4-bit code in keys (pack_view's layout: cell i in
    word i // 16, bits 4 (i % 16) up)."""
    shifts = np.arange(CELLS_PER_WORD, dtype=np.uint64) * np.uint64(4)
    codes = (keys[:, :, None] >> shifts) & np.uint64(15)
    return codes.reshape(keys.shape[0], -1)[:, :cells].astype(np.uint8)


def checked_keys(arrays: dict, cells: int, words: int, chunk: int = 1 << 18) -> np.ndarray:
    """Member row_keys of a saved table: uint64[n, words], each a view pack_view can
    make (codes 0..9, nothing past the last cell). ValueError naming the first bad row."""
    if "row_keys" not in arrays:
        raise ValueError("the table has no member row_keys")
    keys = arrays["row_keys"]
    if keys.dtype != np.uint64 or keys.ndim != 2 or keys.shape[1] != words:
        raise ValueError(f"member row_keys: {keys.dtype}[{', '.join(map(str, keys.shape))}], expected "
                         f"uint64[states, {words}]")
    for lo in range(0, keys.shape[0], chunk):
        part = keys[lo:lo + chunk]
        whole = _nibbles(part, words * CELLS_PER_WORD)
        bad = np.flatnonzero((whole[:, :cells] > 9).any(axis=1) | (whole[:, cells:] != 0).any(axis=1))
        if bad.size:
            raise ValueError(f"member row_keys: row {lo + int(bad[0])} is not a board of {cells} cells")
    return keys


def covered_counts(keys: np.ndarray, cells: int, chunk: int = 1 << 18) -> np.ndarray:
    """int64[n]: the covered cells (code 0) of each key."""
    out = np.empty(keys.shape[0], np.int64)
    for lo in range(0, keys.shape[0], chunk):
        out[lo:lo + chunk] = (_nibbles(keys[lo:lo + chunk], cells) == 0).sum(axis=1)
    return out


def _check_distinct(table) -> None:
    """Each stored key in a slot of its own (a key saved twice would hide a row)."""
    if int((table.slot_row != FREE).sum()) != len(table):
        raise ValueError("member row_keys: a state is stored twice")


def _grown(a: np.ndarray, rows: int) -> np.ndarray:
    """A copy of `a` with `rows` rows (cut, or the new rows zero)."""
    out = np.zeros((rows,) + a.shape[1:], a.dtype)
    keep = min(rows, a.shape[0])
    out[:keep] = a[:keep]
    return out
