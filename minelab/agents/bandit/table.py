"""The key table: key -> (mines seen, times taken, Q), open addressing over numpy arrays.

numba's typed Dict costs ~175 ns an operation here; this table is a few array reads.
Linear probing from a Fibonacci hash of the key; kept at most half full. A kernel never
allocates: the table grows in Python between games (`KeyTable.reserve`), before it
could pass half full (`table_room`).

Q is the mean reward of an action, reward +1 for a mine and -1 for a safe reveal, kept
as integer counts, so Q = 2 P(mine) - 1 exactly, and a *perfect* action (Q = -1 or +1)
is one whose every outcome agreed.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ...engine import kernel

# TableArrays.meta (int64) fields: keys held, mask, hash shift, perfect keys, decisions
# over all games (UCB's t)
TM_SIZE, TM_MASK, TM_SHIFT, TM_PERFECT, TM_T = range(5)
N_TABLE_META = 5
EMPTY = -1
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
INSERTS_PER_CELL = 12  # bound on new keys one game can add, per cell (see table_room)


class TableArrays(NamedTuple):
    """The table as the kernels take it (`tb`): slot i holds keys[i] (EMPTY if free)."""

    keys: np.ndarray    # int64[cap]
    mines: np.ndarray   # int64[cap]    times the action met a mine
    counts: np.ndarray  # int64[cap]    times it was learned (N)
    q: np.ndarray       # float64[cap]  (2 mines - counts) / counts
    meta: np.ndarray    # int64[N_TABLE_META]: TM_* fields


# ------------------------------------------------------------------ kernels
@kernel
def table_slot(keys, meta, key):
    """Slot holding `key`, or the empty slot where it would go (linear probing)."""
    mask = meta[TM_MASK]
    i = np.int64((np.uint64(key) * GOLDEN) >> np.uint64(meta[TM_SHIFT])) & mask
    while keys[i] != EMPTY and keys[i] != key:
        i = (i + 1) & mask
    return i


@kernel
def table_find(tb, key):
    """Slot of `key`, or -1 when it was never learned."""
    i = table_slot(tb.keys, tb.meta, key)
    return i if tb.keys[i] == key else -1


@kernel
def action_value(tb, slot):
    """(Q, N) of a slot; an unseen action (slot -1) is worth -1 with N = 0."""
    if slot < 0:
        return -1.0, np.int64(0)
    return tb.q[slot], tb.counts[slot]


@kernel
def table_learn(tb, key, reward):
    """One sample-average update of `key` with reward +1 (mine) or -1 (safe). Returns the slot."""
    mines = tb.mines
    counts = tb.counts
    meta = tb.meta
    i = table_slot(tb.keys, meta, key)
    if tb.keys[i] == EMPTY:
        tb.keys[i] = key
        meta[TM_SIZE] += 1
    elif mines[i] == 0 or mines[i] == counts[i]:
        meta[TM_PERFECT] -= 1
    counts[i] += 1
    if reward > 0:
        mines[i] += 1
    tb.q[i] = (2.0 * mines[i] - counts[i]) / counts[i]
    if mines[i] == 0 or mines[i] == counts[i]:
        meta[TM_PERFECT] += 1
    return i


@kernel
def table_rehash(old_keys, old_mines, old_counts, tb):
    """Insert every key of the old arrays into the (larger, empty) table tb."""
    for i in range(old_keys.shape[0]):
        if old_keys[i] != EMPTY:
            j = table_slot(tb.keys, tb.meta, old_keys[i])
            tb.keys[j] = old_keys[i]
            tb.mines[j] = old_mines[i]
            tb.counts[j] = old_counts[i]
            tb.q[j] = (2.0 * old_mines[i] - old_counts[i]) / old_counts[i]


@kernel
def table_room(tb, n):
    """Whether one more game on n cells surely fits in the table at most half full. A
    game makes at most 2n decisions (each reveals a tile or places a flag; flags never
    exceed the mines), each adding one key at once or one flag key at the end, plus at
    most 8n keys of the last decision's board: 10n < INSERTS_PER_CELL * n."""
    meta = tb.meta
    return 2 * (meta[TM_SIZE] + INSERTS_PER_CELL * n) <= meta[TM_MASK] + 1


@kernel
def _misplaced(tb):
    """The first slot whose key a lookup would not find there (-1: none)."""
    for i in range(tb.keys.shape[0]):
        if tb.keys[i] != EMPTY and table_slot(tb.keys, tb.meta, tb.keys[i]) != i:
            return i
    return -1


# ------------------------------------------------------------------ the Python side
def _check_key(key) -> int:
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or key < 0:
        raise ValueError(f"key must be a non-negative integer (-1 marks an empty slot), got {key!r}")
    return int(key)


class KeyTable:
    """Open-addressing table key -> (mines seen, times taken, Q), over numpy arrays.

    Kept at most half full; `reserve(extra)` grows it (doubling, rehash) so `extra`
    more keys fit. Lookups of absent keys never insert: only learning does.
    """

    def __init__(self, capacity: int = 1 << 16):
        bits = max(4, int(capacity - 1).bit_length())
        self._alloc(bits)

    def _alloc(self, bits):
        cap = 1 << bits
        self.keys = np.full(cap, EMPTY, np.int64)
        self.mines = np.zeros(cap, np.int64)
        self.counts = np.zeros(cap, np.int64)
        self.q = np.zeros(cap, np.float64)
        self.meta = np.zeros(N_TABLE_META, np.int64)
        self.meta[TM_MASK] = cap - 1
        self.meta[TM_SHIFT] = 64 - bits

    @property
    def capacity(self) -> int:
        return int(self.meta[TM_MASK]) + 1

    def __len__(self) -> int:
        return int(self.meta[TM_SIZE])

    @property
    def perfect(self) -> int:
        return int(self.meta[TM_PERFECT])

    def arrays(self) -> TableArrays:
        return TableArrays(self.keys, self.mines, self.counts, self.q, self.meta)

    def reserve(self, extra: int) -> None:
        need = len(self) + int(extra)
        if 2 * need <= self.capacity:
            return
        bits = int(self.meta[TM_MASK]).bit_length()
        while (1 << bits) < 2 * need:
            bits += 1
        old = (self.keys, self.mines, self.counts)
        size, perfect, t = self.meta[TM_SIZE], self.meta[TM_PERFECT], self.meta[TM_T]
        self._alloc(bits)
        self.meta[TM_SIZE], self.meta[TM_PERFECT], self.meta[TM_T] = size, perfect, t
        table_rehash(*old, self.arrays())

    def get(self, key: int):
        """(Q, N) of `key`, or None when it was never learned."""
        i = table_find(self.arrays(), np.int64(_check_key(key)))
        return None if i < 0 else (float(self.q[i]), int(self.counts[i]))

    def learn(self, key: int, reward: int) -> None:
        """One update of `key` with reward +1 (a mine) or -1 (safe)."""
        if reward not in (1, -1) or isinstance(reward, bool):
            raise ValueError(f"reward must be +1 (mine) or -1 (safe), got {reward!r}")
        key = _check_key(key)
        self.reserve(1)
        table_learn(self.arrays(), np.int64(key), np.int64(reward))

    def saved(self) -> dict[str, np.ndarray]:
        """The table as plain arrays, slot for slot (`put_saved` reads them back)."""
        return {"keys": self.keys, "mines": self.mines, "counts": self.counts, "q": self.q, "meta": self.meta}

    def put_saved(self, arrays: dict) -> None:
        """Become the table `saved` wrote, slot for slot. ValueError naming the member when
        the arrays do not hold together (a kernel would probe forever, divide by zero or
        miss a key)."""
        keys = arrays.get("keys")
        if keys is None or keys.dtype != np.int64 or keys.ndim != 1 or keys.shape[0] < 16 \
                or keys.shape[0] & (keys.shape[0] - 1):
            raise ValueError("member keys: expected int64[capacity], the capacity a power of two (>= 16)")
        cap = keys.shape[0]
        for name, dtype, n in (("mines", np.int64, cap), ("counts", np.int64, cap), ("q", np.float64, cap),
                               ("meta", np.int64, N_TABLE_META)):
            a = arrays.get(name)
            if a is None or a.dtype != np.dtype(dtype) or a.shape != (n,):
                raise ValueError(f"member {name}: expected {np.dtype(dtype)}[{n}]")
        mines, counts, meta = arrays["mines"], arrays["counts"], arrays["meta"]
        used = keys != EMPTY
        if np.any(keys[used] < 0) or np.any(counts[used] < 1) or np.any(mines[used] < 0) \
                or np.any(mines[used] > counts[used]):
            raise ValueError("member counts: every key needs 0 <= mines <= counts and counts >= 1")
        bits = cap.bit_length() - 1
        perfect = int(np.sum(used & ((mines == 0) | (mines == counts))))
        if (meta[TM_SIZE] != used.sum() or 2 * meta[TM_SIZE] > cap or meta[TM_MASK] != cap - 1
                or meta[TM_SHIFT] != 64 - bits or meta[TM_PERFECT] != perfect or meta[TM_T] < 0):
            raise ValueError("member meta: its size, mask, shift and perfect count must be the keys' (at most "
                             "half full)")
        table = TableArrays(keys, mines, counts, arrays["q"], meta)
        if _misplaced(table) >= 0:
            raise ValueError(f"member keys: slot {_misplaced(table)} holds a key a lookup would not find there")
        self.keys, self.mines, self.counts, self.q, self.meta = table

    def frame(self) -> pd.DataFrame:
        used = self.keys != EMPTY
        df = pd.DataFrame({"key": self.keys[used], "q": self.q[used], "n": self.counts[used],
                           "mines": self.mines[used]})
        df["perfect"] = (df["mines"] == 0) | (df["mines"] == df["n"])
        return df.sort_values("key", ignore_index=True)
