"""The no-guess first-click rule: boards that exact deduction alone wins from the first click.

    level = ml.Level("16x30x99:no-guess")            # or Level(16, 30, 99, first_click="no-guess")
    game = ml.Game(level, seed=1); game.reveal(3, 3)  # a zero, and no guess is ever needed
    ml.play(agent, "9x9x10:no-guess", 1_000, seed=0)

The deal (`deal_no_guess`: the engine's deal_first_click calls it for rule NO_GUESS, see
minelab.engine) repeats the opening rule's deal (the first click a zero; `mines` draws of
the game's deal stream each time) until `deduction_wins` accepts the board: from the first
click, revealing every cell that the exact solver finds certainly safe
(`probability.solve_kernel`, which counts the level's mines too), zeros cascading as in
the engine, reveals every safe cell. The boards dealt are thus uniform among the opening
rule's boards that deduction wins from that click, and reproducible: the same seed and
first clicks deal the same boards.

How a board is checked (`deduction_wins`), stopping at the first stall:
1. local rules on the revealed numbers whose covered neighbours changed: a number whose
   mines are all known has safe neighbours, one that needs all its covered neighbours has
   mines there; for two numbers i, j at most two cells apart, with A and B their covered
   cells not known to be mines, if need(i) - need(j) = |A - B| then A - B are mines and
   B - A safe (the subset rule is the case A - B empty);
2. when they stall, the exact solver, the mines deduced so far given as known mines:
   every certain safe cell is revealed, every certain mine marked; back to 1;
3. all safe cells revealed: accepted; the solver finds no certain safe cell: rejected.
The local rules are sound, so they only reach sooner what the solver's certain cells
reach: a cell certainly safe at one position stays so once more is revealed, so the cells
revealed at the end do not depend on the order, and the verdict is the one of revealing
only `probability.solve`'s safe cells. A cell the solver calls safe that holds a mine
(only a rounding corner of its weights could do that) rejects the board. The check always
cascades zeros: a zero's neighbours are certainly safe, so the verdict is the same with
flood fill off.

A no-guess board's exact probabilities: `probability.solve` counts every layout that
agrees with the view as equally likely, while the no-guess deal keeps only layouts that
deduction wins. Its certain cells stay certain (an agent that reveals only certain safe
cells, found with the level's mine count, never guesses and wins every no-guess board);
its probabilities are those of the opening rule's boards.

The check's helpers are `probability.step`s, inlined into `deduction_wins`: numba passes
the work tuple (the solver's workspace inside) as hundreds of scalars, so a call of a
helper that is not inlined costs more than its work (measured: 1.6x slower deals).

`wins_by_deduction(mines, first)` checks one layout; `deal_boards(level, n, first, seed)`
deals boards and counts the boards tried (`minelab bench deal` measures the rate).
"""
from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from .cells import COVERED, RULE_NO_GUESS, RULE_OPENING
from .engine import (
    SP_COLS,
    SP_MINES,
    SP_ROWS,
    GameState,
    as_generator,
    begin_game,
    deal_first_click,
    deal_no_guess,
    kernel,
    neighbour_counts,
    new_game_state,
    place_mines,
    register_deal_work,
)
from .levels import Level
from .probability import (CERTAIN_MINE, CERTAIN_SAFE, DEFAULT_MAX_WORK, OK, Workspace, new_workspace, solve_kernel,
                          step)

__all__ = ["MAX_TRIALS", "NoGuessWork", "deal_boards", "deduction_wins", "new_no_guess_work", "wins_by_deduction"]

MAX_TRIALS = 1_000_000  # boards tried before a no-guess deal gives up (ValueError)
# NoGuessWork.stats fields
DS_TRIALS = 0  # boards tried by the last deal (1 when its first board was accepted)
DS_SOLVES = 1  # exact solves of the last deal
N_DEAL_STATS = 2
_NONE_WON = (f"no-guess deal: deduction wins none of the {MAX_TRIALS:,} boards tried from this first click; "
             "the rule cannot deal this level from there (too many mines, or a guess every layout needs)")


class NoGuessWork(NamedTuple):
    """GameState.deal_work of a no-guess level: the check's simulated game and the solver's workspace."""

    ws: Workspace  # the exact solver's scratch and results
    shown: np.ndarray  # int8[n] the simulated player's view (`shown`: numba's tuples have a `view`)
    known: np.ndarray  # uint8[n] 1 on the mines deduced so far
    need: np.ndarray  # int8[n] revealed number: mines around it not known yet
    free: np.ndarray  # int8[n] revealed number: covered neighbours not known to be mines
    free_mask: np.ndarray  # int16[n] revealed number: those neighbours as a mask (bit_of)
    queue: np.ndarray  # int32[n] revealed numbers to examine (a stack)
    queued: np.ndarray  # uint8[n] 1 while a number is in the queue
    flood: np.ndarray  # int32[n] the zero cascade's stack
    row: np.ndarray  # int32[n] each cell's row
    col: np.ndarray  # int32[n] each cell's column
    stats: np.ndarray  # int64[N_DEAL_STATS] DS_* fields


def new_no_guess_work(level: Level) -> NoGuessWork:
    """The deal work of a no-guess level (engine.register_deal_work makes new_game_state use it)."""
    n = level.cells
    cells = np.arange(n, dtype=np.int32)
    return NoGuessWork(ws=new_workspace(n, level.mines), shown=np.full(n, COVERED, np.int8),
                       known=np.zeros(n, np.uint8), need=np.zeros(n, np.int8), free=np.zeros(n, np.int8),
                       free_mask=np.zeros(n, np.int16), queue=np.zeros(n, np.int32), queued=np.zeros(n, np.uint8),
                       flood=np.zeros(n, np.int32), row=cells // level.cols, col=cells % level.cols,
                       stats=np.zeros(N_DEAL_STATS, np.int64))


# ----------------------------------------------------------------------------- kernels
# A revealed number's free cells as a mask: bit (dr + 1) * 3 + dc + 1 for the neighbour at
# offset (dr, dc). _NEAR[(DR + 2) * 5 + DC + 2]: the bits of the cells next to the cell at
# offset (DR, DC) (|DR|, |DC| <= 2); _BITS[m]: the bits set in m.
_NEAR = np.array([sum(1 << ((dr + 1) * 3 + dc + 1) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                      if abs(dr - DR) <= 1 and abs(dc - DC) <= 1)
                  for DR in range(-2, 3) for DC in range(-2, 3)], np.int64)
_BITS = np.array([bin(m).count("1") for m in range(512)], np.int64)


@step
def _bit(w, x, i):
    """The bit of cell x in the mask of its neighbour i."""
    return 1 << ((w.row[x] - w.row[i] + 1) * 3 + w.col[x] - w.col[i] + 1)


@step
def _near(w, j, i):
    """_NEAR's entry for cell j as seen from cell i (at most two rows and columns apart)."""
    return _NEAR[(w.row[j] - w.row[i] + 2) * 5 + w.col[j] - w.col[i] + 2]


@step
def _push(w, i, top):
    if not w.queued[i]:
        w.queued[i] = 1
        w.queue[top] = i
        top += 1
    return top


@step
def _covered_gone(w, nbr, nbr_count, x, mine, top):
    """Covered cell x was revealed (mine False) or deduced a mine (True): update the revealed
    numbers around it and queue them. Returns the queue's top."""
    for a in range(nbr_count[x]):
        j = nbr[x, a]
        if w.shown[j] > 0:
            w.free[j] -= 1
            w.free_mask[j] &= ~_bit(w, x, j)
            if mine:
                w.need[j] -= 1
            top = _push(w, j, top)
    return top


@step
def _shown(w, counts, nbr, nbr_count, x, top):
    """Show safe covered cell x (no cascade): its own need / free / mask, its neighbours'
    updated, the numbers queued. Returns the queue's top."""
    w.shown[x] = counts[x]
    if counts[x] > 0:
        need = np.int64(counts[x])
        free = 0
        mask = 0
        for a in range(nbr_count[x]):
            y = nbr[x, a]
            if w.shown[y] == COVERED:
                if w.known[y]:
                    need -= 1
                else:
                    free += 1
                    mask |= _bit(w, y, x)
        w.need[x] = need
        w.free[x] = free
        w.free_mask[x] = mask
        if free > 0:
            top = _push(w, x, top)
    return _covered_gone(w, nbr, nbr_count, x, False, top)


@step
def _open(w, counts, nbr, nbr_count, x, top):
    """Reveal safe covered cell x, and the zero region around it as the engine's flood fill
    does. Returns (queue top, cells revealed)."""
    top = _shown(w, counts, nbr, nbr_count, x, top)
    revealed = 1
    if counts[x] != 0:
        return top, revealed
    stack = w.flood
    depth = 0
    stack[depth] = x
    depth += 1
    while depth > 0:
        depth -= 1
        c = stack[depth]
        for a in range(nbr_count[c]):
            j = nbr[c, a]
            if w.shown[j] == COVERED:
                top = _shown(w, counts, nbr, nbr_count, j, top)
                revealed += 1
                if counts[j] == 0:
                    stack[depth] = j
                    depth += 1
    return top, revealed


@step
def _mark_mine(w, nbr, nbr_count, x, top):
    """Cell x is a mine (deduced): mark it known, update and queue its revealed neighbours."""
    w.known[x] = 1
    return _covered_gone(w, nbr, nbr_count, x, True, top)


@step
def _settle(w, counts, nbr, nbr_count, cols, mines_of, other, top):
    """The pair rule's conclusion: the free cells of `mines_of` not next to `other` are
    mines, the free cells of `other` not next to `mines_of` are safe. Returns (queue top,
    cells revealed)."""
    mines = w.free_mask[mines_of] & ~_near(w, other, mines_of)
    safe = w.free_mask[other] & ~_near(w, mines_of, other)
    for b in range(9):
        if mines >> b & 1:
            top = _mark_mine(w, nbr, nbr_count, mines_of + (b // 3 - 1) * cols + b % 3 - 1, top)
    revealed = 0
    for b in range(9):
        if safe >> b & 1:
            x = other + (b // 3 - 1) * cols + b % 3 - 1
            if w.shown[x] == COVERED:  # not opened by a cascade of this loop
                top, got = _open(w, counts, nbr, nbr_count, x, top)
                revealed += got
    return top, revealed


@step
def _pairs(w, counts, nbr, nbr_count, rows, cols, i, top):
    """The pair rule between number i and each revealed number j at most two cells away
    that shares a free cell with it; applies the first that concludes. Returns (queue top,
    cells revealed, True when one did)."""
    r = w.row[i]
    c = w.col[i]
    need_i = np.int64(w.need[i])
    free_i = np.int64(w.free[i])
    mask = w.free_mask[i]
    for rr in range(max(r - 2, 0), min(r + 3, rows)):
        for cc in range(max(c - 2, 0), min(c + 3, cols)):
            j = rr * cols + cc
            if j == i or w.shown[j] <= 0 or w.free[j] == 0:
                continue
            shared = _BITS[mask & _NEAR[(rr - r + 2) * 5 + cc - c + 2]]
            if shared == 0:
                continue  # disjoint: only the single-number rules could conclude
            need_j = np.int64(w.need[j])
            only_i = free_i - shared
            only_j = w.free[j] - shared
            if only_i == 0 and only_j == 0:
                continue
            if need_i - need_j == only_i:
                top, got = _settle(w, counts, nbr, nbr_count, cols, i, j, top)
                return top, got, True
            if need_j - need_i == only_j:
                top, got = _settle(w, counts, nbr, nbr_count, cols, j, i, top)
                return top, got, True
    return top, 0, False


@step
def _local(w, counts, nbr, nbr_count, rows, cols, top):
    """Step 1: the local rules on the queued numbers until the queue is empty. Returns the cells revealed."""
    revealed = 0
    while top > 0:
        top -= 1
        i = w.queue[top]
        w.queued[i] = 0
        need = w.need[i]
        free = w.free[i]
        if free == 0:
            continue
        if need == 0 or need == free:
            for a in range(nbr_count[i]):
                x = nbr[i, a]
                if w.shown[x] == COVERED and not w.known[x]:
                    if need == 0:
                        top, got = _open(w, counts, nbr, nbr_count, x, top)
                        revealed += got
                    else:
                        top = _mark_mine(w, nbr, nbr_count, x, top)
            continue
        top, got, applied = _pairs(w, counts, nbr, nbr_count, rows, cols, i, top)
        revealed += got
        if applied:
            top = _push(w, i, top)  # i may conclude with another of its pairs
    return revealed


@step
def _exact(w, mine, counts, mines, nbr, nbr_count):
    """Step 2: solve exactly, mark the certain mines, reveal the certain safe cells.
    Returns (queue top, cells revealed, certain safe cells found); found is -1 when the
    solve failed or a cell it called safe holds a mine."""
    w.stats[DS_SOLVES] += 1
    # int64 values, not literals: a literal would compile the solver once more
    if solve_kernel(w.ws, w.shown, w.known, mines, nbr, nbr_count, np.int64(DEFAULT_MAX_WORK)) != OK:
        return 0, 0, -1
    certain = w.ws.certain
    n = mine.shape[0]
    top = 0
    for x in range(n):
        if certain[x] == CERTAIN_MINE and w.shown[x] == COVERED and not w.known[x]:
            top = _mark_mine(w, nbr, nbr_count, x, top)
    revealed = 0
    found = 0
    for x in range(n):
        if certain[x] == CERTAIN_SAFE and w.shown[x] == COVERED:
            if mine[x]:
                return top, revealed, -1
            found += 1
            top, got = _open(w, counts, nbr, nbr_count, x, top)
            revealed += got
    return top, revealed, found


# 9 parameters: the work, the board (layout, counts, mine total, shape), the first click and the neighbour tables.
@kernel
def deduction_wins(w, mine, counts, mines, rows, cols, first, nbr, nbr_count):
    """True when revealing only certainly safe cells wins the board `mine` (uint8[n], its
    neighbour counts `counts`, `mines` mines on rows x cols) from the first click at safe
    cell `first` (see the module docstring). Uses w's shown, known, queue and solver workspace."""
    n = mine.shape[0]
    for i in range(n):
        w.shown[i] = COVERED
        w.known[i] = 0
        w.queued[i] = 0
    top, revealed = _open(w, counts, nbr, nbr_count, first, 0)
    target = n - mines
    while True:
        revealed += _local(w, counts, nbr, nbr_count, rows, cols, top)
        if revealed == target:
            return True
        top, got, found = _exact(w, mine, counts, mines, nbr, nbr_count)
        revealed += got
        if found <= 0:
            return False


@kernel
def deal_no_guess_kernel(gs, cell, rng):
    """The no-guess deal: the opening rule's deal, `cell` kept clear, again until
    `deduction_wins` from `cell`; boards tried and solves into gs.deal_work.stats.
    ValueError after MAX_TRIALS boards."""
    w = gs.deal_work
    mines = gs.spec[SP_MINES]
    rows = gs.spec[SP_ROWS]
    cols = gs.spec[SP_COLS]
    w.stats[DS_SOLVES] = 0
    trials = 0
    while True:
        place_mines(gs.mine, mines, np.int64(RULE_OPENING), cell, gs.nbr, gs.nbr_count, gs.stack, rng)
        neighbour_counts(gs.mine, gs.nbr, gs.nbr_count, gs.counts)
        trials += 1
        if deduction_wins(w, gs.mine, gs.counts, mines, rows, cols, cell, gs.nbr, gs.nbr_count):
            break
        if trials >= MAX_TRIALS:
            raise ValueError(_NONE_WON)
    w.stats[DS_TRIALS] = trials


@overload(deal_no_guess)
def _deal_no_guess_with_work(gs, cell, rng):
    # engine.deal_no_guess for game states that carry a NoGuessWork
    if isinstance(gs, types.BaseNamedTuple) and gs.instance_class is GameState:
        work = gs.types[gs.fields.index("deal_work")]
        if isinstance(work, types.BaseNamedTuple) and work.instance_class is NoGuessWork:
            def impl(gs, cell, rng):
                deal_no_guess_kernel(gs, cell, rng)
            return impl


register_deal_work(RULE_NO_GUESS, new_no_guess_work)


@njit(cache=True)
def _deal_many(gs, cell, rng, out, trials):
    for k in range(out.shape[0]):
        begin_game(gs, rng)
        deal_first_click(gs, cell, rng)
        out[k, :] = gs.mine
        trials[k] = gs.deal_work.stats[DS_TRIALS]


# ----------------------------------------------------------------------- Python side
def _first_cell(first, rows: int, cols: int) -> int:
    if (not isinstance(first, (tuple, list)) or len(first) != 2
            or any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in first)):
        raise ValueError(f"first must be a (row, col) pair of integers, got {first!r}")
    r, c = int(first[0]), int(first[1])
    if not (0 <= r < rows and 0 <= c < cols):
        raise ValueError(f"first {first} is off the {rows}x{cols} board")
    return r * cols + c


def deal_boards(level, n: int, first, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """`n` no-guess boards of `level` (any rule: its no-guess form) dealt one after the
    other from one stream, the first click at `first` = (row, col): (layouts bool
    (n, rows, cols), boards tried for each int64 (n,)). `seed`: int, SeedSequence or Generator.

        >>> layouts, tried = deal_boards("9x9x10", 3, (4, 4), seed=0)
        >>> layouts.shape, bool(layouts[:, 4, 4].any()), bool((tried >= 1).all())
        ((3, 9, 9), False, True)
    """
    lv = Level.parse(level).with_first_click("no-guess")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    cell = _first_cell(first, lv.rows, lv.cols)
    gs = new_game_state(lv)
    out = np.zeros((int(n), lv.cells), np.uint8)
    trials = np.zeros(int(n), np.int64)
    _deal_many(gs, cell, as_generator(seed), out, trials)
    return out.reshape(int(n), lv.rows, lv.cols).astype(bool), trials


def wins_by_deduction(mines, first) -> bool:
    """True when revealing only the cells the exact solver finds certainly safe (the mine
    count known) wins the layout `mines` (bool / 0-1 (rows, cols)) from the first click at
    `first` = (row, col), a safe cell; the check of the no-guess deal.

        >>> import numpy as np
        >>> layout = np.zeros((3, 3), bool); layout[2, 2] = True
        >>> wins_by_deduction(layout, (0, 0)), wins_by_deduction(np.eye(3, dtype=bool)[::-1], (0, 0))
        (True, False)
    """
    layout = np.asarray(mines)
    if layout.ndim != 2 or layout.size == 0:
        raise ValueError(f"mines must be a non-empty 2-d array, got shape {layout.shape}")
    if not np.isin(layout, (0, 1)).all():
        raise ValueError("mines must hold only 0/1 (or False/True)")
    rows, cols = layout.shape
    cell = _first_cell(first, rows, cols)
    flat = layout.ravel().astype(np.uint8)
    if flat[cell]:
        raise ValueError(f"first {first} is a mine")
    total = int(flat.sum())
    gs = new_game_state(Level(rows, cols, total, "none"))
    gs.mine[:] = flat
    neighbour_counts(gs.mine, gs.nbr, gs.nbr_count, gs.counts)
    work = new_no_guess_work(Level(rows, cols, total, "none"))
    return bool(deduction_wins(work, gs.mine, gs.counts, total, rows, cols, cell, gs.nbr, gs.nbr_count))
