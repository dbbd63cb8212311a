"""Keys as data, for tests and figures: a 3x3 window (states 0-11, as `keys.S_*`) and its
target in, key out (`encode_window`), and back (`decode_key`); the 8 symmetric images of
an action; the windows a tile of a board view is judged by (`target_actions`).

They use the agent's own kernels (`keys.window_key`, `keys.rotr32`), so what they show
is what the agent computes.
"""
from __future__ import annotations

import numpy as np

from ...cells import COVERED, FLAGGED
from .keys import (
    DIRECTION_NAMES,
    RING,
    S_COVERED,
    S_FLAGGED,
    S_OUTSIDE,
    rotr32,
    state_code,
    window_key,
)


def _window_words_py(window):
    w = np.asarray(window)
    ring = rev = 0
    for i, (dr, dc) in enumerate(RING):
        s = int(w[1 + dr, 1 + dc])
        ring |= s << (4 * i)
        rev |= s << (4 * (7 - i))
    return ring, rev, int(w[1, 1])


def _check_window(window, target):
    w = np.asarray(window)
    if w.shape != (3, 3) or not np.issubdtype(w.dtype, np.integer) or w.min() < 0 or w.max() > S_OUTSIDE:
        raise ValueError(f"window must be a 3x3 integer array of states 0..{S_OUTSIDE} "
                         f"(0-8, {S_COVERED} covered, {S_FLAGGED} flagged, {S_OUTSIDE} outside)")
    try:
        d = RING.index((int(target[0]) - 1, int(target[1]) - 1))
    except (TypeError, ValueError, IndexError):
        raise ValueError(f"target must be a border position (row, col) of the 3x3 window, got {target!r}") from None
    return w, d


def encode_window(window, target, symmetries: bool = True) -> int:
    """Key of the action with this 3x3 window (states 0-11) and target (row, col) on its border."""
    w, d = _check_window(window, target)
    ring, rev, centre = _window_words_py(w)
    return int(window_key(np.int64(ring), np.int64(rev), np.int64(centre), d, symmetries))


def decode_key(key: int):
    """(window int8[3, 3] of states 0-11, target (row, col)) of a window key: the
    canonical image (target at the top-left corner or the top edge) when the key was
    made with symmetries, the window as seen otherwise."""
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
        raise ValueError(f"key must be an integer, got {key!r}")
    key = int(key)
    field = key & 15
    if key < 0 or key >> 40 or 2 <= field < 8:  # the field is a case (0/1) or 8 | d
        raise ValueError(f"not a window key: {key}")
    d = field & 7 if field & 8 else field & 1
    ring = key >> 8
    w = np.zeros((3, 3), np.int8)
    w[1, 1] = (key >> 4) & 15
    for i, (dr, dc) in enumerate(RING):
        w[1 + dr, 1 + dc] = (ring >> (4 * i)) & 15
    target = (1 + RING[d][0], 1 + RING[d][1])
    if w.max() > S_OUTSIDE or w[target] != S_COVERED:  # keys always read the target as covered
        raise ValueError(f"not a window key: {key}")
    if not field & 8 and encode_window(w, target) != key:  # a symmetric key is the canonical image
        raise ValueError(f"not a window key: {key} (not the canonical image of its window)")
    return w, target


def window_case(key: int) -> str:
    """'diagonal' or 'cardinal' (the target's place in the window)."""
    _, (r, c) = decode_key(key)
    return "diagonal" if r != 1 and c != 1 else "cardinal"


def symmetric_images(window, target):
    """The 8 images of an action under the symmetries of the square, made with the
    agent's own ring operations: 4 counter-clockwise quarter turns (0, 90, 180, 270
    degrees), then the same 4 of its mirror through the axis of the centre and the
    target. [(window int8[3,3], target (row, col)), ...]."""
    w, d = _check_window(window, target)
    ring, rev, centre = _window_words_py(w)
    out = []
    for mirrored in (False, True):
        for turn in range(4):
            if not mirrored:
                word, pos = int(rotr32(np.int64(ring), 2 * turn)), (d - 2 * turn) % 8
            else:  # reflect positions j -> (2 d - j): fixes the target
                refl = int(rotr32(np.int64(rev), 7 - 2 * d))
                word, pos = int(rotr32(np.int64(refl), 2 * turn)), (d - 2 * turn) % 8
            img = np.zeros((3, 3), np.int8)
            img[1, 1] = centre
            for i, (dr, dc) in enumerate(RING):
                img[1 + dr, 1 + dc] = (word >> (4 * i)) & 15
            out.append((img, (1 + RING[pos][0], 1 + RING[pos][1])))
    return out


def view_window(view, centre):
    """The 3x3 window (states 0-11) of a board view (int8 rows x cols) around centre (row, col)."""
    v = np.asarray(view)
    r0, c0 = centre
    w = np.full((3, 3), S_OUTSIDE, np.int8)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            r, c = r0 + dr, c0 + dc
            if 0 <= r < v.shape[0] and 0 <= c < v.shape[1]:
                w[1 + dr, 1 + dc] = int(state_code(np.int8(v[r, c])))
    return w


def target_actions(view, target, symmetries: bool = True) -> list[dict]:
    """Every action that targets tile `target` (row, col) of a view: one per on-board
    neighbour (window centre), as dicts centre, direction (of the target seen from the
    centre), window, key."""
    v = np.asarray(view)
    if v.ndim != 2:
        raise ValueError(f"view must be a 2-d board view, got shape {v.shape}")
    tr, tc = target
    if not (0 <= tr < v.shape[0] and 0 <= tc < v.shape[1]):
        raise ValueError(f"target {target!r} is off the {v.shape[0]}x{v.shape[1]} board")
    if v[tr, tc] not in (COVERED, FLAGGED):
        raise ValueError(f"target {target!r} is revealed: only covered (or flagged) tiles are targets")
    out = []
    for d, (dr, dc) in enumerate(RING):
        cr, cc = tr - dr, tc - dc  # the centre sees the target at ring position d
        if 0 <= cr < v.shape[0] and 0 <= cc < v.shape[1]:
            w = view_window(v, (cr, cc))
            w[1 + dr, 1 + dc] = S_COVERED
            out.append({"centre": (cr, cc), "direction": DIRECTION_NAMES[d], "window": w,
                        "key": encode_window(w, (1 + dr, 1 + dc), symmetries)})
    return out
