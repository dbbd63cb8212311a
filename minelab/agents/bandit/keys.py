"""Window keys: what a bandit action is called in the key table (paper §IV-C).

An action is a 3x3 window of cell states with its target on the border. The 8 border
cells are packed clockwise from the top-left corner into a 32-bit *ring* word, 4 bits a
cell, so a quarter turn of the window is a rotation of the word by 8 bits and a mirror
is the reversed word rotated:

    key = ring << 8 | centre << 4 | field

field = the case (0 diagonal, 1 cardinal) with symmetries, 8 | d (the target's ring
position) without. With symmetries the window is turned so the target sits at the
top-left corner (diagonal case) or the top edge (cardinal case), and the smaller of it
and its mirror through the target is kept: the 8 images of the square share a key. The
target's own cell always reads "covered".

The state-action agent (Table II) keys the whole visible board instead, in base 11,
with the target: `state_action_key`.
"""
from __future__ import annotations

import numpy as np

from ...cells import FLAGGED
from ...engine import kernel

# Window cell states: 0-8 are the numbers.
S_COVERED, S_FLAGGED, S_OUTSIDE = 9, 10, 11
STATE_NAMES = tuple(str(i) for i in range(9)) + ("C", "F", "X")
# Ring positions, clockwise from the top-left corner; a target at ring position d of
# its window's centre lies at offset RING[d] from the centre.
RING = ((-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))
DIRECTION_NAMES = ("NW", "N", "NE", "E", "SE", "S", "SW", "W")
MASK32 = 0xFFFFFFFF
SA_MAX_CELLS = 16  # 11**16 * 16 < 2**63: a whole-board key fits in an int64


@kernel
def state_code(v):
    """View value -> window state (a mine shown after a loss reads as covered)."""
    if v >= 0:
        return np.int64(v)
    if v == FLAGGED:
        return np.int64(S_FLAGGED)
    return np.int64(S_COVERED)


@kernel
def rotr32(word, nibbles):
    """The 32-bit ring word rotated right by `nibbles` cells (mod 8)."""
    s = 4 * (nibbles & 7)
    return ((word >> s) | (word << (32 - s))) & MASK32


@kernel
def window_words(view, ring_cell, c):
    """(ring, reversed ring, centre state) of the 3x3 window centred on cell c;
    ring_cell[c, i] is the cell at ring position i around c, -1 off the board."""
    ring = np.int64(0)
    rev = np.int64(0)
    for i in range(8):
        j = ring_cell[c, i]
        s = np.int64(S_OUTSIDE) if j < 0 else state_code(view[j])
        ring |= s << (4 * i)
        rev |= s << (4 * (7 - i))
    return ring, rev, state_code(view[c])


@kernel
def window_key(ring, rev, centre, d, symmetries):
    """Key of the action whose window has these words and whose target is at ring position d."""
    # the target always reads "covered" (a flagged tile is judged as if uncovered)
    ring = (ring & ~(np.int64(15) << (4 * d))) | (np.int64(S_COVERED) << (4 * d))
    rd = 7 - d
    rev = (rev & ~(np.int64(15) << (4 * rd))) | (np.int64(S_COVERED) << (4 * rd))
    if not symmetries:
        return (ring << 8) | (centre << 4) | 8 | d
    case = d & 1
    s = d - case  # quarter turns that bring the target to position `case`
    turned = rotr32(ring, s)
    if case == 0:  # diagonal: mirror through the top-left corner, positions j -> -j
        mirrored = rotr32(rev, 7 - s)
    else:  # cardinal: mirror through the top edge, positions j -> 2 - j
        mirrored = rotr32(rev, 5 - s)
    return (min(turned, mirrored) << 8) | (centre << 4) | case


@kernel
def board_code(view, n):
    """Whole visible board in base 11 (state-action keys)."""
    code = np.int64(0)
    p = np.int64(1)
    for i in range(n):
        code += state_code(view[i]) * p
        p *= 11
    return code


@kernel
def state_action_key(code, view, t, n):
    """Key of target t on the board whose `board_code` is `code` (t read as covered)."""
    p = np.int64(1)
    for _ in range(t):
        p *= 11
    code += (np.int64(S_COVERED) - state_code(view[t])) * p  # the target reads "covered"
    return code * n + t
