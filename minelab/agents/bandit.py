"""Multi-armed bandit agents for Minesweeper (Lordeiro, Haddad & Cardoso 2021).

The model, top to bottom:

* **Actions** (paper §IV-A). For every covered, unflagged *target* tile and every
  on-board neighbour of it, one action: the 3x3 window centred on that neighbour, with
  the target on the window's border. Window cells take one of 12 states: 0-8, covered,
  flagged, outside the board. A tile is judged by its single most certain window.
* **Keys** (§IV-C). The 8 border cells are packed clockwise into a 32-bit *ring*
  word (4 bits a cell), so a quarter turn of the window is a rotation of the word by 8
  bits and a mirror is the reversed word rotated. With symmetries on, the window is
  turned so the target sits at the top-left corner (diagonal case) or the top edge
  (cardinal case), and the smaller of it and its mirror through the target is kept:
  the 8 images of the square share a key, and the case bit keeps the two cases apart.
  key = ring << 8 | centre << 4 | field, field = case (0/1) with symmetries, 8 | d
  (the target's ring position) without. The target's own cell always reads "covered".
* **Values** (§IV-B). Reward +1 for a mine, -1 for a safe reveal: Q(a) is the mean
  reward (kept as integer counts, so Q = 2 P(mine) - 1 exactly and a "perfect" action,
  Q = -1 or +1, is one whose every outcome agreed). Unseen actions are valued -1
  ("certainly safe", optimistic). Greedy picks the most certain action, largest |Q|,
  ties to the larger N, then to scan order; Q < 0 reveals the target, Q >= 0 flags it.
  A flag is learned only at game end, unless a new flag would make flags > mines: then
  the flagged tile whose lowest window value is smallest is unflagged and revealed,
  and that reveal is learned at once. At game end every flag of the game is learned
  with the truth, and so are the actions of the last decision (see END_*).
* **Policies**: greedy; epsilon-greedy (a uniformly random (target, window) pair with
  probability epsilon, acted on by the sign of its Q); UCB over all decisions t of all
  games, unseen actions first (as clicks), score Q +/- c sqrt(ln t / N) (see UCB_*).
* **State-action agent** (Table II): the same learner keyed by the whole visible board
  and the target (boards of at most 16 cells, so a key fits in an int64).

Where the paper's text and the authors' code differ, both are named options and the
code's behaviour is the default, because it produced the published numbers
(../shared/notes/authors-code.md):

  first_move   "first-zero" (code): mines anywhere (use a `none`-rule level); the
               program clicks, for the agent, the first zero cell in a column-major
               scan, which the agent neither chooses nor learns. "agent" (text): the
               agent makes its first click itself (with the level's rule, e.g. `safe`).
  end_learning "last-all" (code): every (covered tile, window) pair of the last
               decision's board, the chosen one included (so it counts twice).
               "last-passed-over" (text): the pairs passed over at that decision only.
  ucb_bonus    "certainty" (code): Q + sign(Q) c sqrt(ln t/N), pushing |Q| away from 0.
               "optimism" (textbook UCB for this reward): Q - c sqrt(ln t/N).

The flags-off ablation ("just avoided risky tiles instead of explicitly flagging them")
is described in detail by neither the text nor the notes on the code; two readings,
`no_flags_rule`:
  "pairs"  only the mine-looking (target, window) pairs are skipped: the most certain of
           the safe-looking pairs is revealed, even if another window of its tile is
           surely a mine (default: it reproduces the paper's "below 12%"; inferred from
           that match, not from the code).
  "tiles"  a tile whose most certain window says "mine" is never revealed (a stronger
           agent: about twice the win rate).

Speed. The authors' Python played ~25 beginner games/s, two thirds of it building keys.
Here a game's windows are cached per cell and only the windows a move changed are
rebuilt (a changed cell dirties the rings of its 3x3 neighbourhood and the targets
within distance 2); the key table is open addressing over numpy arrays (numba's typed
Dict costs ~175 ns an operation here). A kernel never allocates: the table grows in
Python between games, before it could pass half full.
"""
from __future__ import annotations

import copy
import weakref

import numpy as np
import pandas as pd
from numba import njit

from ..cells import COVERED, FLAG, FLAGGED, ONGOING, REVEAL, UNFLAG
from ..engine import (
    SP_COLS,
    SP_MINES,
    SP_ROWS,
    ST_CLICKS,
    ST_DEALT,
    ST_FLAGS,
    ST_STATUS,
    begin_game,
    deal_first_click,
    flag_cell,
    kernel,
    open_cell,
    random_covered_cell,
    record_game,
    unflag_cell,
    uniform_below,
)
from .base import Agent, register

# ------------------------------------------------------------------ window states
S_COVERED, S_FLAGGED, S_OUTSIDE = 9, 10, 11  # 0-8 are the numbers
STATE_NAMES = tuple(str(i) for i in range(9)) + ("C", "F", "X")
# Ring positions, clockwise from the top-left corner; a target at ring position d of
# its window's centre lies at offset RING[d] from the centre.
RING = ((-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))
DIRECTION_NAMES = ("NW", "N", "NE", "E", "SE", "S", "SW", "W")
MASK32 = 0xFFFFFFFF

# ------------------------------------------------------------------ options
POLICIES = ("greedy", "egreedy", "ucb")
P_GREEDY, P_EGREEDY, P_UCB = range(3)
FIRST_MOVES = ("first-zero", "agent")
END_LEARNING = ("last-all", "last-passed-over")
UCB_BONUS = ("certainty", "optimism")
NO_FLAGS_RULES = ("pairs", "tiles")
MODE_WINDOW, MODE_STATE_ACTION = 0, 1
SA_MAX_CELLS = 16  # 11**16 * 16 < 2**63: a whole-board key fits in an int64

# cfg (int64) fields
C_POLICY, C_FLAGS, C_SYM, C_FIRST, C_END, C_UCB, C_LEARN, C_MODE, C_NOFLAG = range(9)
# cfgf (float64) fields
F_EPSILON, F_C = range(2)
# table meta (int64) fields
M_SIZE, M_MASK, M_SHIFT, M_PERFECT, M_T = range(5)
# per-game work counters (int64) fields
W_NFLAGS, W_DECISIONS, W_LAST_T, W_LAST_K, W_NMOVES = range(5)
EMPTY = -1
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
INSERTS_PER_CELL = 12  # bound on new keys one game can add, per cell (see table_room)


# ------------------------------------------------------------------ keys
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
    s = 4 * (nibbles & 7)
    return ((word >> s) | (word << (32 - s))) & MASK32


@kernel
def window_words(view, ringcell, c):
    """(ring, reversed ring, centre state) of the 3x3 window centred on cell c."""
    ring = np.int64(0)
    rev = np.int64(0)
    for i in range(8):
        j = ringcell[c, i]
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
    p = np.int64(1)
    for _ in range(t):
        p *= 11
    code += (np.int64(S_COVERED) - state_code(view[t])) * p  # the target reads "covered"
    return code * n + t


# ------------------------------------------------------------------ key table
@kernel
def table_slot(keys, meta, key):
    """Slot holding `key`, or the empty slot where it would go (linear probing)."""
    mask = meta[M_MASK]
    i = np.int64((np.uint64(key) * GOLDEN) >> np.uint64(meta[M_SHIFT])) & mask
    while keys[i] != EMPTY and keys[i] != key:
        i = (i + 1) & mask
    return i


@kernel
def table_find(keys, meta, key):
    i = table_slot(keys, meta, key)
    return i if keys[i] == key else -1


@kernel
def table_learn(keys, mines, counts, q, meta, key, reward):
    """One sample-average update of `key` with reward +1 (mine) or -1 (safe). Returns the slot."""
    i = table_slot(keys, meta, key)
    if keys[i] == EMPTY:
        keys[i] = key
        meta[M_SIZE] += 1
    elif mines[i] == 0 or mines[i] == counts[i]:
        meta[M_PERFECT] -= 1
    counts[i] += 1
    if reward > 0:
        mines[i] += 1
    q[i] = (2.0 * mines[i] - counts[i]) / counts[i]
    if mines[i] == 0 or mines[i] == counts[i]:
        meta[M_PERFECT] += 1
    return i


@njit(cache=True)
def table_rehash(keys, mines, counts, new_keys, new_mines, new_counts, new_q, meta):
    for i in range(keys.shape[0]):
        if keys[i] != EMPTY:
            j = table_slot(new_keys, meta, keys[i])
            new_keys[j] = keys[i]
            new_mines[j] = mines[i]
            new_counts[j] = counts[i]
            new_q[j] = (2.0 * mines[i] - counts[i]) / counts[i]


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
        self.meta = np.zeros(5, np.int64)
        self.meta[M_MASK] = cap - 1
        self.meta[M_SHIFT] = 64 - bits

    @property
    def capacity(self) -> int:
        return int(self.meta[M_MASK]) + 1

    def __len__(self) -> int:
        return int(self.meta[M_SIZE])

    @property
    def perfect(self) -> int:
        return int(self.meta[M_PERFECT])

    def arrays(self):
        return self.keys, self.mines, self.counts, self.q, self.meta

    def reserve(self, extra: int) -> None:
        need = len(self) + int(extra)
        if 2 * need <= self.capacity:
            return
        bits = int(self.meta[M_MASK]).bit_length()
        while (1 << bits) < 2 * need:
            bits += 1
        old = (self.keys, self.mines, self.counts)
        size, perfect, t = self.meta[M_SIZE], self.meta[M_PERFECT], self.meta[M_T]
        self._alloc(bits)
        self.meta[M_SIZE], self.meta[M_PERFECT], self.meta[M_T] = size, perfect, t
        table_rehash(*old, self.keys, self.mines, self.counts, self.q, self.meta)

    def get(self, key: int):
        """(Q, N) of `key`, or None when it was never learned."""
        i = table_find(self.keys, self.meta, np.int64(_check_key(key)))
        return None if i < 0 else (float(self.q[i]), int(self.counts[i]))

    def learn(self, key: int, reward: int) -> None:
        """One update of `key` with reward +1 (a mine) or -1 (safe)."""
        if reward not in (1, -1) or isinstance(reward, bool):
            raise ValueError(f"reward must be +1 (mine) or -1 (safe), got {reward!r}")
        key = _check_key(key)
        self.reserve(1)
        table_learn(*self.arrays(), np.int64(key), np.int64(reward))

    def frame(self) -> pd.DataFrame:
        used = self.keys != EMPTY
        df = pd.DataFrame({"key": self.keys[used], "q": self.q[used], "n": self.counts[used],
                           "mines": self.mines[used]})
        df["perfect"] = (df["mines"] == 0) | (df["mines"] == df["n"])
        return df.sort_values("key", ignore_index=True)


# ------------------------------------------------------------------ geometry and work state
@njit(cache=True)
def ring_cells(rows, cols):
    """ringcell[c, d]: the cell at ring position d around c, -1 off the board."""
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


def new_work(rows: int, cols: int):
    """Per-board-shape scratch arrays of the agent (the `ws` tuple the kernels take)."""
    n = rows * cols
    return (
        ring_cells(rows, cols),           # 0 ringcell int32[n, 8]
        np.zeros(n, np.int64),            # 1 ring
        np.zeros(n, np.int64),            # 2 reversed ring
        np.zeros(n, np.int64),            # 3 centre state
        np.full(8 * n, -2, np.int64),     # 4 action key, action (t, k) at 8 t + k
        np.full(8 * n, -1, np.int64),     # 5 action slot in the table (-1: unseen)
        np.zeros(n, np.float64),          # 6 best value per target (Q, or the UCB score)
        np.zeros(n, np.float64),          # 7 its certainty |value| (-1: not a target)
        np.zeros(n, np.int64),            # 8 its N
        np.zeros(n, np.int64),            # 9 its window k
        np.zeros(n, np.uint8),            # 10 dirty flags (rings, then targets)
        np.zeros(n, np.int32),            # 11 dirty list
        np.full(n, 127, np.int8),         # 12 view when the caches were last synced
        np.zeros(n, np.int8),             # 13 view at the last decision
        np.zeros(2 * n + 2, np.int64),    # 14 keys of the flags placed this game
        np.zeros(2 * n + 2, np.int64),    # 15 their cells
        np.zeros(8, np.int64),            # 16 counters W_*
        np.zeros((8, 2), np.int64),       # 17 moves of the last step (kind, cell)
        np.zeros(n, np.uint8),            # 18 second dirty flags (targets)
        np.zeros(n, np.int32),            # 19 second dirty list
    )


@kernel
def invalidate(ws):
    """Forget the caches: the next sync rebuilds every window."""
    ws[12][:] = 127
    ws[4][:] = -2


@kernel
def action_key(view, ws, t, k, sym, mode, code):
    """Key of action k of target t from the cached window words (or the board code)."""
    n = view.shape[0]
    if mode == MODE_STATE_ACTION:
        return state_action_key(code, view, t, n)
    c = ws[0][t, k]
    return window_key(ws[1][c], ws[2][c], ws[3][c], (k + 4) & 7, sym)


@kernel
def action_value(tb, slot):
    """(Q, N) of a cached slot; an unseen action is worth -1 with N = 0."""
    if slot < 0:
        return -1.0, np.int64(0)
    return tb[3][slot], tb[2][slot]


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
    ringcell = ws[0]
    akey = ws[4]
    aslot = ws[5]
    if view[t] != COVERED:
        ws[7][t] = -1.0
        return
    best_abs = -1.0
    best_q = 0.0
    best_n = np.int64(-1)
    best_k = np.int64(-1)
    kmax = 1 if mode == MODE_STATE_ACTION else 8
    for k in range(kmax):
        if mode != MODE_STATE_ACTION and ringcell[t, k] < 0:
            continue
        a = 8 * t + k
        if rekey:
            key = action_key(view, ws, t, k, sym, mode, code)
            if key != akey[a]:
                akey[a] = key
                aslot[a] = table_find(tb[0], tb[4], key)
        q, nn = action_value(tb, aslot[a])
        aq = abs(q)
        if better(q, aq, nn, best_q, best_abs, best_n, pairs):
            best_abs = aq
            best_q = q
            best_n = nn
            best_k = k
    if greedy_best:
        ws[6][t] = best_q
        ws[7][t] = best_abs
        ws[8][t] = best_n
        ws[9][t] = best_k


@kernel
def sync(view, ws, tb, sym, mode, greedy_best, pairs):
    """Bring the window caches (and greedy bests) up to date with `view`: only the
    windows containing a changed cell, and the targets that read them, are rebuilt."""
    n = view.shape[0]
    ringcell = ws[0]
    prev = ws[12]
    rflag = ws[10]
    rlist = ws[11]
    tflag = ws[18]
    tlist = ws[19]
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
                c = ringcell[i, k]
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
        ring, rev, centre = window_words(view, ringcell, c)
        ws[1][c] = ring
        ws[2][c] = rev
        ws[3][c] = centre
        for k in range(8):  # the targets around c read this window
            t = ringcell[c, k]
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
    akey = ws[4]
    kmax = 1 if mode == MODE_STATE_ACTION else 8
    for t in range(n):
        hit = False
        for k in range(kmax):
            if akey[8 * t + k] == key:
                ws[5][8 * t + k] = slot
                hit = True
        if hit and greedy_best:
            refresh_target(view, ws, tb, t, sym, mode, 0, False, True, pairs)


# ------------------------------------------------------------------ decisions
@kernel
def pairs_rule(cfg):
    return cfg[C_FLAGS] == 0 and cfg[C_NOFLAG] == 0


@kernel
def ucb_scores(view, ws, tb, cfg, cfgf):
    """Fill the per-target best with UCB scores (they move with t, so no caching)."""
    n = view.shape[0]
    ringcell = ws[0]
    mode = cfg[C_MODE]
    logt = np.log(max(tb[4][M_T], 1))
    c = cfgf[F_C]
    pairs = pairs_rule(cfg)
    kmax = 1 if mode == MODE_STATE_ACTION else 8
    for t in range(n):
        if view[t] != COVERED:
            ws[7][t] = -1.0
            continue
        best_abs = -1.0
        best_v = 0.0
        best_n = np.int64(-1)
        best_k = np.int64(-1)
        for k in range(kmax):
            if mode != MODE_STATE_ACTION and ringcell[t, k] < 0:
                continue
            q, nn = action_value(tb, ws[5][8 * t + k])
            if nn == 0:
                v = -1.0
                av = np.inf  # unseen actions are tried first, as clicks
            else:
                bonus = c * np.sqrt(logt / nn)
                if cfg[C_UCB] == 0:
                    v = q + np.sign(q) * bonus
                else:
                    v = q - bonus
                av = abs(v)
            if better(v, av, nn, best_v, best_abs, best_n, pairs):
                best_abs = av
                best_v = v
                best_n = nn
                best_k = k
        ws[6][t] = best_v
        ws[7][t] = best_abs
        ws[8][t] = best_n
        ws[9][t] = best_k


@kernel
def pick_target(ws, n, flags):
    """The target to act on from the per-target bests; -1 if there is none.

    With flags: the most certain (largest |value|, then N, then scan order). Without:
    tiles whose best value says "mine" are avoided; if every tile is avoided, the one
    with the lowest value is revealed. (Under the "pairs" rule a tile's best is its
    most certain safe-looking action, so only tiles with none are avoided.)
    """
    value = ws[6]
    cert = ws[7]
    cnt = ws[8]
    best = -1
    for t in range(n):
        if cert[t] < 0 or (not flags and value[t] >= 0):
            continue
        if best < 0 or cert[t] > cert[best] or (cert[t] == cert[best] and cnt[t] > cnt[best]):
            best = t
    if best >= 0 or flags:
        return best
    for t in range(n):
        if cert[t] < 0:
            continue
        if best < 0 or value[t] < value[best] or (value[t] == value[best] and cnt[t] > cnt[best]):
            best = t
    return best


@kernel
def random_action(view, ws, rng):
    """A uniformly random (target, window) pair: returns 8 t + k, or -1."""
    ringcell = ws[0]
    total = 0
    for t in range(view.shape[0]):
        if view[t] == COVERED:
            for k in range(8):
                if ringcell[t, k] >= 0:
                    total += 1
    if total == 0:
        return -1
    pick = uniform_below(rng, total)
    for t in range(view.shape[0]):
        if view[t] == COVERED:
            for k in range(8):
                if ringcell[t, k] >= 0:
                    if pick == 0:
                        return 8 * t + k
                    pick -= 1
    return -1


@kernel
def lowest_window(view, ws, tb, t, sym, mode):
    """(lowest Q over tile t's windows, that window's key), t judged as if covered."""
    n = view.shape[0]
    code = board_code(view, n) if mode == MODE_STATE_ACTION else 0
    kmax = 1 if mode == MODE_STATE_ACTION else 8
    low = np.inf
    low_key = np.int64(-1)
    for k in range(kmax):
        if mode != MODE_STATE_ACTION and ws[0][t, k] < 0:
            continue
        key = action_key(view, ws, t, k, sym, mode, code)
        q, nn = action_value(tb, table_find(tb[0], tb[4], key))
        if q < low:
            low = q
            low_key = key
    return low, low_key


# ------------------------------------------------------------------ moves and learning
@kernel
def add_move(ws, kind, cell):
    w = ws[16]
    ws[17][w[W_NMOVES], 0] = kind
    ws[17][w[W_NMOVES], 1] = cell
    w[W_NMOVES] += 1


@kernel
def learn(gs, ws, tb, cfg, key):
    """Reveal-time learning of `key` from the click just made; keeps the caches in step."""
    if cfg[C_LEARN] == 0:
        return
    lost = gs.counters[ST_STATUS] < 0
    slot = table_learn(tb[0], tb[1], tb[2], tb[3], tb[4], key, 1 if lost else -1)
    if gs.counters[ST_STATUS] == ONGOING:
        after_learning(gs.shown, ws, tb, key, slot, cfg[C_SYM], cfg[C_MODE], cfg[C_POLICY] != P_UCB, pairs_rule(cfg))


@kernel
def click(gs, ws, cell, deal_rng):
    if gs.counters[ST_DEALT] == 0:
        deal_first_click(gs, cell, deal_rng)
    open_cell(gs, cell)
    add_move(ws, REVEAL, cell)


@kernel
def put_flag(gs, ws, t, key):
    """Flag t and record the action (key) that placed it, to learn at game end."""
    w = ws[16]
    flag_cell(gs, t)
    add_move(ws, FLAG, t)
    ws[14][w[W_NFLAGS]] = key
    ws[15][w[W_NFLAGS]] = t
    w[W_NFLAGS] += 1


@kernel
def place_flag(gs, ws, tb, cfg, t, key, deal_rng):
    """Flag t (learned at game end); if that would make flags > mines, reveal instead the
    tile, among the flagged ones and t, whose lowest window value is smallest."""
    view = gs.shown
    if gs.counters[ST_FLAGS] < gs.spec[SP_MINES]:
        put_flag(gs, ws, t, key)
        return
    sym = cfg[C_SYM]
    mode = cfg[C_MODE]
    pick = -1
    pick_key = np.int64(-1)
    low = np.inf
    for i in range(view.shape[0]):
        if i == t or view[i] == FLAGGED:
            v, k = lowest_window(view, ws, tb, i, sym, mode)
            if v < low:
                low = v
                pick = i
                pick_key = k
    if pick != t:
        put_flag(gs, ws, t, key)
        unflag_cell(gs, pick)
        add_move(ws, UNFLAG, pick)
    click(gs, ws, pick, deal_rng)
    learn(gs, ws, tb, cfg, pick_key)


@kernel
def first_zero_click(gs, ws, deal_rng):
    """The authors' program's opening: the first zero cell in a column-major scan from
    the top-left (the first safe cell if the board has no zero); not the agent's."""
    rows = gs.spec[SP_ROWS]
    cols = gs.spec[SP_COLS]
    if gs.counters[ST_DEALT] == 0:
        deal_first_click(gs, 0, deal_rng)  # first-click rules protect the top-left cell
    mine = gs.mine
    counts = gs.counts
    fallback = -1
    for c in range(cols):
        for r in range(rows):
            i = r * cols + c
            if mine[i] == 0 and gs.shown[i] == COVERED:
                if counts[i] == 0:
                    click(gs, ws, i, deal_rng)
                    return
                if fallback < 0:
                    fallback = i
    click(gs, ws, fallback, deal_rng)


@kernel
def end_of_game(gs, ws, tb, cfg):
    """Delayed learning: every flag of the game, and the last decision's actions, with the truth."""
    if cfg[C_LEARN] == 0:
        return
    w = ws[16]
    mine = gs.mine
    keys, mines, counts, q, meta = tb
    for i in range(w[W_NFLAGS]):
        table_learn(keys, mines, counts, q, meta, ws[14][i], 1 if mine[ws[15][i]] else -1)
    if w[W_DECISIONS] == 0:
        return
    last = ws[13]
    n = last.shape[0]
    ringcell = ws[0]
    sym = cfg[C_SYM]
    mode = cfg[C_MODE]
    skip_chosen = cfg[C_END] == 1
    code = board_code(last, n) if mode == MODE_STATE_ACTION else 0
    for t in range(n):
        if last[t] != COVERED:
            continue
        reward = 1 if mine[t] else -1
        if mode == MODE_STATE_ACTION:
            if not (skip_chosen and t == w[W_LAST_T]):
                table_learn(keys, mines, counts, q, meta, state_action_key(code, last, t, n), reward)
            continue
        for k in range(8):
            c = ringcell[t, k]
            if c < 0 or (skip_chosen and t == w[W_LAST_T] and k == w[W_LAST_K]):
                continue
            ring, rev, centre = window_words(last, ringcell, c)
            table_learn(keys, mines, counts, q, meta, window_key(ring, rev, centre, (k + 4) & 7, sym), reward)


@kernel
def bandit_step(gs, ws, tb, cfg, cfgf, deal_rng, agent_rng, incremental):
    """One decision of the agent on game gs (and the end-of-game learning if it ends the
    game). The moves made are in ws[17][:ws[16][W_NMOVES]]. Batch and interactive play
    both run this function; interactive play passes incremental=0 (rebuild all caches,
    since the game may have been changed between steps). ws's per-game records (flags,
    last decision) belong to this one game: the caller starts them at zero per game."""
    st = gs.counters
    view = gs.shown
    n = view.shape[0]
    w = ws[16]
    w[W_NMOVES] = 0
    if st[ST_STATUS] != ONGOING:
        return
    if cfg[C_FIRST] == 0 and st[ST_CLICKS] == 0:
        first_zero_click(gs, ws, deal_rng)
        if st[ST_STATUS] != ONGOING:
            end_of_game(gs, ws, tb, cfg)
        return
    if not incremental:
        invalidate(ws)
    policy = cfg[C_POLICY]
    sym = cfg[C_SYM]
    mode = cfg[C_MODE]
    sync(view, ws, tb, sym, mode, policy != P_UCB, pairs_rule(cfg))
    tb[4][M_T] += 1
    if policy == P_UCB:
        ucb_scores(view, ws, tb, cfg, cfgf)
    t = -1
    k = -1
    value = 0.0
    if policy == P_EGREEDY and agent_rng.random() < cfgf[F_EPSILON]:
        if mode == MODE_STATE_ACTION:  # one action per covered tile
            a = random_covered_cell(view, agent_rng)
            a = 8 * a if a >= 0 else -1
        else:
            a = random_action(view, ws, agent_rng)
        if a >= 0:
            value, _ = action_value(tb, ws[5][a])
            if cfg[C_FLAGS] or value < 0:
                t = a // 8
                k = a % 8
    if t < 0:
        t = pick_target(ws, n, cfg[C_FLAGS] != 0)
        if t < 0:  # no tile has a window (a 1x1 board): reveal, nothing to learn
            for i in range(n):
                if view[i] == COVERED:
                    click(gs, ws, i, deal_rng)
                    break
            if st[ST_STATUS] != ONGOING:
                end_of_game(gs, ws, tb, cfg)
            return
        k = ws[9][t]
        value = ws[6][t]
    key = ws[4][8 * t + k]
    for i in range(n):
        ws[13][i] = view[i]
    w[W_DECISIONS] += 1
    w[W_LAST_T] = t
    w[W_LAST_K] = k
    if value < 0 or not cfg[C_FLAGS]:
        click(gs, ws, t, deal_rng)
        learn(gs, ws, tb, cfg, key)
    else:
        place_flag(gs, ws, tb, cfg, t, key, deal_rng)
    if st[ST_STATUS] != ONGOING:
        end_of_game(gs, ws, tb, cfg)


@kernel
def table_room(tb, n):
    """Whether one more game surely fits in the table at most half full. A game makes at
    most 2n decisions (each reveals a tile or places a flag; flags never exceed the
    mines), each adding one key at once or one flag key at the end, plus at most 8n
    keys of the last decision's board: 10n < INSERTS_PER_CELL * n."""
    meta = tb[4]
    return 2 * (meta[M_SIZE] + INSERTS_PER_CELL * n) <= meta[M_MASK] + 1


@kernel
def bandit_batch(gs, ws, tb, cfg, cfgf, n_games, deal_rng, agent_rng, out):
    """Play up to n_games, learning as it goes; returns how many were played (fewer
    when the table must grow first, which Python does between calls)."""
    st = gs.counters
    n = gs.shown.shape[0]
    for g in range(n_games):
        if not table_room(tb, n):
            return g
        begin_game(gs, deal_rng)
        invalidate(ws)
        ws[16][:] = 0  # this game's records (flags, last decision) start empty
        while st[ST_STATUS] == ONGOING:
            bandit_step(gs, ws, tb, cfg, cfgf, deal_rng, agent_rng, 1)
        record_game(gs, out, g)
        out[g, 6] = tb[4][M_SIZE]
        out[g, 7] = tb[4][M_PERFECT]
    return n_games


# ------------------------------------------------------------------ the agents
def _check_choice(field, value, allowed):
    if value not in allowed:
        raise ValueError(f"{field} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return allowed.index(value)


def _check_rate(field, value, lo_open=False):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value) or value < 0 or (lo_open and value == 0):
        raise ValueError(f"{field} must be a finite number {'> 0' if lo_open else '>= 0'}, got {value!r}")
    return float(value)


class BanditAgent(Agent):
    """The paper's MAB learner; `policy` chooses greedy, egreedy or ucb.

    It learns as it plays (`ml.play(agent, level, n, seed)` trains it); its knowledge
    is `table()`; it keeps it across runs and levels (transfer), `copy()` forks it.
    """

    name = "mab"
    learns = True
    extra_fields = ("actions", "perfect")
    mode = MODE_WINDOW
    policy = "greedy"

    def __init__(self, seed=None, *, epsilon: float = 0.0, c: float = 0.0, flags: bool = True,
                 symmetries: bool = True, first_move: str = "first-zero", end_learning: str = "last-all",
                 ucb_bonus: str = "certainty", learning: bool = True, no_flags_rule: str = "pairs",
                 capacity: int = 1 << 16):
        super().__init__(seed)
        for field, v in (("flags", flags), ("symmetries", symmetries), ("learning", learning)):
            if not isinstance(v, (bool, np.bool_)):
                raise ValueError(f"{field} must be True or False, got {v!r}")
        self.epsilon = _check_rate("epsilon", epsilon)
        if self.epsilon > 1:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
        self.c = _check_rate("c", c)
        if self.policy != "egreedy" and self.epsilon != 0:
            raise ValueError(f"epsilon applies to the egreedy-mab agent only, not {self.name}")
        if self.policy != "ucb" and (self.c != 0 or ucb_bonus != "certainty"):
            raise ValueError(f"c and ucb_bonus apply to the ucb-mab agent only, not {self.name}")
        self.flags, self.symmetries, self.learning = bool(flags), bool(symmetries), bool(learning)
        self.first_move, self.end_learning, self.ucb_bonus = first_move, end_learning, ucb_bonus
        self.no_flags_rule = no_flags_rule
        if self.flags and no_flags_rule != "pairs":
            raise ValueError("no_flags_rule applies only with flags=False")
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 16:
            raise ValueError(f"capacity must be an integer >= 16, got {capacity!r}")
        self.cfg = np.array([
            _check_choice("policy", self.policy, POLICIES), int(self.flags), int(self.symmetries),
            _check_choice("first_move", first_move, FIRST_MOVES),
            _check_choice("end_learning", end_learning, END_LEARNING),
            _check_choice("ucb_bonus", ucb_bonus, UCB_BONUS), int(self.learning), self.mode,
            _check_choice("no_flags_rule", no_flags_rule, NO_FLAGS_RULES)], np.int64)
        self.cfgf = np.array([self.epsilon, self.c], np.float64)
        self.keys = KeyTable(capacity)
        self._work: dict[tuple[int, int], tuple] = {}  # batch scratch, per board shape
        self._game_work = weakref.WeakKeyDictionary()  # interactive: each Game has its own records
        self._cells = None  # state-action agents are tied to one board size

    def params(self) -> dict:
        out = {"flags": self.flags, "symmetries": self.symmetries, "first_move": self.first_move,
               "end_learning": self.end_learning, "learning": self.learning}
        if not self.flags:
            out["no_flags_rule"] = self.no_flags_rule
        if self.policy == "egreedy":
            out["epsilon"] = self.epsilon
        if self.policy == "ucb":
            out["c"] = self.c
            out["ucb_bonus"] = self.ucb_bonus
        return out

    # --- knowledge -----------------------------------------------------------------
    def table(self) -> pd.DataFrame:
        """One row per action recorded: key, q, n, mines, perfect."""
        return self.keys.frame()

    @property
    def actions_recorded(self) -> int:
        return len(self.keys)

    @property
    def perfect_actions(self) -> int:
        return self.keys.perfect

    @property
    def decisions(self) -> int:
        """Decisions made over all games (UCB's t)."""
        return int(self.keys.meta[M_T])

    def copy(self) -> "BanditAgent":
        """An independent agent with the same knowledge (to test one trained agent on
        several levels without one test teaching the next)."""
        return copy.deepcopy(self)

    # --- play ----------------------------------------------------------------------
    def _work_for(self, rows, cols):
        n = rows * cols
        if self.mode == MODE_STATE_ACTION:
            if n > SA_MAX_CELLS:
                raise ValueError(f"the state-action agent keys whole boards: at most {SA_MAX_CELLS} cells, "
                                 f"got {rows}x{cols}")
            if self._cells is not None and self._cells != (rows, cols):
                raise ValueError(f"this state-action agent learned on {self._cells[0]}x{self._cells[1]} "
                                 f"boards; its keys mean nothing on {rows}x{cols}")
            self._cells = (rows, cols)
        key = (rows, cols)
        if key not in self._work:
            self._work[key] = new_work(rows, cols)
        return self._work[key]

    def play_batch(self, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        ws = self._work_for(rows, cols)
        done = 0
        while done < n_games:
            self.keys.reserve(INSERTS_PER_CELL * rows * cols)
            done += bandit_batch(gs, ws, self.keys.arrays(), self.cfg, self.cfgf, n_games - done,
                                 deal_rng, self.rng, out[done:])

    def act(self, game) -> list:
        """Make one decision on `game` (in progress) and learn from it, as in batch
        play: returns the moves made (the program's opening click, a reveal, a flag, or
        flag + unflag + reveal when flags would exceed mines). The game-end learning
        happens inside the decision that ends the game."""
        from ..engine import Move

        if game.over:
            raise ValueError("act() needs a game in progress; this one is over")
        self._work_for(game.level.rows, game.level.cols)  # checks the board size
        if game not in self._game_work:
            self._game_work[game] = new_work(game.level.rows, game.level.cols)
        ws = self._game_work[game]
        self.keys.reserve(INSERTS_PER_CELL * game.level.cells)
        bandit_step(game._gs, ws, self.keys.arrays(), self.cfg, self.cfgf, game._rng, self.rng, 0)
        moves = []
        for kind, cell in ws[17][: ws[16][W_NMOVES]]:
            moves.append(Move(int(kind), int(cell) // game.level.cols, int(cell) % game.level.cols))
        game.moves.extend(moves)
        return moves

    def _choose(self, game):
        """The first move `step` would make, without making it or learning (a dry run
        on a copy of the game and of the agent)."""
        twin_game = copy.deepcopy(game)
        twin = self.copy()
        twin.rng = copy.deepcopy(self.rng)
        return twin.act(twin_game)[0]

    step = act  # the name the tests and notebooks use for one decision


@register
class GreedyBandit(BanditAgent):
    """Greedy MAB agent: always the most certain action."""

    name = "greedy-mab"
    policy = "greedy"


@register
class EpsilonGreedyBandit(BanditAgent):
    """epsilon-greedy MAB agent (epsilon = 0.01 by default, the paper's best)."""

    name = "egreedy-mab"
    policy = "egreedy"

    def __init__(self, seed=None, *, epsilon: float = 0.01, **kw):
        super().__init__(seed, epsilon=epsilon, **kw)


@register
class UCBBandit(BanditAgent):
    """UCB MAB agent (c = 0.1 by default, one of the paper's two best)."""

    name = "ucb-mab"
    policy = "ucb"

    def __init__(self, seed=None, *, c: float = 0.1, **kw):
        super().__init__(seed, c=c, **kw)


@register
class StateActionGreedy(BanditAgent):
    """Table II's state-action agent: greedy, keyed by the whole visible board and the
    target (the same rewards, flags and delayed learning as the MAB agents)."""

    name = "sa-greedy"
    policy = "greedy"
    mode = MODE_STATE_ACTION

    def __init__(self, seed=None, **kw):
        if not kw.get("symmetries", True):
            raise ValueError("symmetries: the state-action agent has none to switch off")
        super().__init__(seed, **kw)


# ------------------------------------------------------------------ keys as data
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
