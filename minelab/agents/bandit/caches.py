"""The agent's work state (`BanditWork`): the incremental action caches, and the records
of the game in play.

Building keys was two thirds of the authors' program's time. Here a game's windows
are cached per cell (ring words) and per action (key, table slot), with each target's
best action; only the windows a move changed are rebuilt: a changed cell dirties the
rings of its 3x3 neighbourhood and the targets within distance 2 (`sync`). When
learning changes a key's value, the targets that use the key are re-ranked
(`after_learning`).

Action (t, k) is target t judged by the window centred on its k-th ring neighbour
`ring_cell[t, k]`; the target sits at ring position (k + 4) & 7 of that window. It is
stored at index 8 t + k of the per-action arrays.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...cells import COVERED
from ...engine import kernel
from .config import MODE_STATE_ACTION
from .keys import RING, board_code, state_action_key, window_key, window_words
from .table import action_value, table_find

# BanditWork.counters (int64) fields: flags placed this game, decisions this game, the
# last decision's target and window, moves of the last step, whether the program's
# opening was tried this game (first_move "first-zero-only": a board without a zero
# gets no opening click)
WC_NFLAGS, WC_DECISIONS, WC_LAST_T, WC_LAST_K, WC_NMOVES, WC_OPENED = range(6)
N_WORK_COUNTERS = 8
UNSYNCED = 127  # `synced` value that differs from every view value
NO_KEY = -2  # `action_keys` value that differs from every key (and from EMPTY)


class BanditWork(NamedTuple):
    """Per-board-shape scratch arrays of the agent (`ws`), n cells."""

    ring_cell: np.ndarray     # int32[n, 8]  cell at ring position d around c, -1 off the board
    ring: np.ndarray          # int64[n]     cached window words of the window centred on c:
    ring_rev: np.ndarray      # int64[n]       ring, reversed ring,
    centre: np.ndarray        # int64[n]       centre state
    action_keys: np.ndarray   # int64[8 n]   key of action (t, k) at 8 t + k (NO_KEY: not built)
    action_slots: np.ndarray  # int64[8 n]   its slot in the table (-1: unseen)
    best_value: np.ndarray    # float64[n]   best action per target: value (Q, or the UCB score),
    best_cert: np.ndarray     # float64[n]     certainty |value| (-1: not a target),
    best_n: np.ndarray        # int64[n]       its N,
    best_k: np.ndarray        # int64[n]       its window k
    ring_dirty: np.ndarray    # uint8[n]     rings to rebuild: flags,
    ring_todo: np.ndarray     # int32[n]       and list
    synced: np.ndarray        # int8[n]      the view when the caches were last synced
    last_view: np.ndarray     # int8[n]      the view at the last decision (end-of-game learning)
    flag_keys: np.ndarray     # int64[2 n + 2]  keys of the flags placed this game,
    flag_cells: np.ndarray    # int64[2 n + 2]  and their cells
    counters: np.ndarray      # int64[N_WORK_COUNTERS]: WC_* fields
    moves: np.ndarray         # int64[8, 2]  moves of the last step (kind, cell)
    target_dirty: np.ndarray  # uint8[n]     targets to re-rank: flags,
    target_todo: np.ndarray   # int32[n]       and list


@njit(cache=True)
def ring_cells(rows, cols):
    """ring_cell[c, d]: the cell at ring position d around c, -1 off the board."""
    n = rows * cols
    out = np.full((n, 8), -1, np.int32)
    for r in range(rows):
        for c in range(cols):
            for d in range(8):
                rr = r + RING[d][0]
                cc = c + RING[d][1]
                if 0 <= rr < rows and 0 <= cc < cols:
                    out[r * cols + c, d] = rr * cols + cc
    return out


def new_bandit_work(rows: int, cols: int) -> BanditWork:
    """A fresh work state for rows x cols boards."""
    n = rows * cols
    return BanditWork(
        ring_cell=ring_cells(rows, cols),
        ring=np.zeros(n, np.int64),
        ring_rev=np.zeros(n, np.int64),
        centre=np.zeros(n, np.int64),
        action_keys=np.full(8 * n, NO_KEY, np.int64),
        action_slots=np.full(8 * n, -1, np.int64),
        best_value=np.zeros(n, np.float64),
        best_cert=np.zeros(n, np.float64),
        best_n=np.zeros(n, np.int64),
        best_k=np.zeros(n, np.int64),
        ring_dirty=np.zeros(n, np.uint8),
        ring_todo=np.zeros(n, np.int32),
        synced=np.full(n, UNSYNCED, np.int8),
        last_view=np.zeros(n, np.int8),
        flag_keys=np.zeros(2 * n + 2, np.int64),
        flag_cells=np.zeros(2 * n + 2, np.int64),
        counters=np.zeros(N_WORK_COUNTERS, np.int64),
        moves=np.zeros((8, 2), np.int64),
        target_dirty=np.zeros(n, np.uint8),
        target_todo=np.zeros(n, np.int32),
    )


@kernel
def invalidate(ws):
    """Forget the caches: the next sync rebuilds every window."""
    ws.synced[:] = UNSYNCED
    ws.action_keys[:] = NO_KEY


@kernel
def action_key(view, ws, t, k, sym, mode, code):
    """Key of action k of target t from the cached window words (or the board code)."""
    n = view.shape[0]
    if mode == MODE_STATE_ACTION:
        return state_action_key(code, view, t, n)
    c = ws.ring_cell[t, k]
    return window_key(ws.ring[c], ws.ring_rev[c], ws.centre[c], (k + 4) & 7, sym)


@kernel
def better(v, av, nn, best_v, best_abs, best_n, pairs):
    """Whether an action (value v, certainty av = |v|, count nn) beats a tile's best so far.

    Normally the most certain wins, then the larger N (then scan order: ties keep the
    first). With `pairs` (no flags, the "pairs" rule) the actions that look safe (v < 0)
    come first, by certainty; a tile without one keeps its lowest value.
    """
    if best_n < 0:
        return True
    if pairs:
        if (v < 0) != (best_v < 0):
            return v < 0
        if v >= 0:
            return v < best_v or (v == best_v and nn > best_n)
    return av > best_abs or (av == best_abs and nn > best_n)


@kernel
def refresh_target(view, ws, tb, t, sym, mode, code, rekey, greedy_best, pairs):
    """Rebuild target t's action keys (with `rekey`; looking up only the changed ones)
    and, with `greedy_best`, its most certain action."""
    ring_cell = ws.ring_cell
    akey = ws.action_keys
    aslot = ws.action_slots
    if view[t] != COVERED:
        ws.best_cert[t] = -1.0
        return
    best_abs = -1.0
    best_q = 0.0
    best_n = np.int64(-1)
    best_k = np.int64(-1)
    kmax = 1 if mode == MODE_STATE_ACTION else 8
    for k in range(kmax):
        if mode != MODE_STATE_ACTION and ring_cell[t, k] < 0:
            continue
        a = 8 * t + k
        if rekey:
            key = action_key(view, ws, t, k, sym, mode, code)
            if key != akey[a]:
                akey[a] = key
                aslot[a] = table_find(tb, key)
        q, nn = action_value(tb, aslot[a])
        aq = abs(q)
        if better(q, aq, nn, best_q, best_abs, best_n, pairs):
            best_abs = aq
            best_q = q
            best_n = nn
            best_k = k
    if greedy_best:
        ws.best_value[t] = best_q
        ws.best_cert[t] = best_abs
        ws.best_n[t] = best_n
        ws.best_k[t] = best_k


@kernel
def sync(view, ws, tb, sym, mode, greedy_best, pairs):
    """Bring the window caches (and greedy bests) up to date with `view`: only the
    windows containing a changed cell, and the targets that read them, are rebuilt."""
    n = view.shape[0]
    ring_cell = ws.ring_cell
    prev = ws.synced
    rflag = ws.ring_dirty
    rlist = ws.ring_todo
    tflag = ws.target_dirty
    tlist = ws.target_todo
    nr = 0
    nt = 0
    changed = False
    for i in range(n):
        if view[i] != prev[i]:
            prev[i] = view[i]
            changed = True
            if rflag[i] == 0:
                rflag[i] = 1
                rlist[nr] = i
                nr += 1
            if tflag[i] == 0:
                tflag[i] = 1
                tlist[nt] = i
                nt += 1
            for k in range(8):
                c = ring_cell[i, k]
                if c >= 0 and rflag[c] == 0:
                    rflag[c] = 1
                    rlist[nr] = c
                    nr += 1
    if mode == MODE_STATE_ACTION:
        for j in range(nr):
            rflag[rlist[j]] = 0
        for j in range(nt):
            tflag[tlist[j]] = 0
        if changed:
            code = board_code(view, n)
            for t in range(n):
                refresh_target(view, ws, tb, t, sym, mode, code, True, greedy_best, pairs)
        return
    for j in range(nr):
        c = rlist[j]
        rflag[c] = 0
        ring, rev, centre = window_words(view, ring_cell, c)
        ws.ring[c] = ring
        ws.ring_rev[c] = rev
        ws.centre[c] = centre
        for k in range(8):  # the targets around c read this window
            t = ring_cell[c, k]
            if t >= 0 and tflag[t] == 0:
                tflag[t] = 1
                tlist[nt] = t
                nt += 1
    for j in range(nt):
        t = tlist[j]
        tflag[t] = 0
        refresh_target(view, ws, tb, t, sym, mode, 0, True, greedy_best, pairs)


@kernel
def after_learning(view, ws, tb, key, slot, sym, mode, greedy_best, pairs):
    """A key's value changed: point every cached action with that key at its slot and
    re-rank the targets that use it."""
    n = view.shape[0]
    akey = ws.action_keys
    kmax = 1 if mode == MODE_STATE_ACTION else 8
    for t in range(n):
        hit = False
        for k in range(kmax):
            if akey[8 * t + k] == key:
                ws.action_slots[8 * t + k] = slot
                hit = True
        if hit and greedy_best:
            refresh_target(view, ws, tb, t, sym, mode, 0, False, True, pairs)
