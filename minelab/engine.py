"""The game engine: numba kernels over flat numpy arrays, and the `Game` wrapper.

A game in progress is one named tuple of arrays, `GameState` (`gs`), that every kernel
takes (numba compiles NamedTuples to plain structs: a field read costs nothing):

    gs.spec       int64[5]   rows, cols, mines, first-click rule code, flood fill (0/1): SP_* below
    gs.counters   int64[8]   status, dealt, moves, clicks, ...: ST_* below
    gs.mine       uint8[n]   hidden layout (1 = mine); only valid once counters[ST_DEALT] == 1
    gs.counts     int8[n]    true neighbour counts
    gs.shown      int8[n]    what the player sees (COVERED, FLAGGED, 0..8; MINE after a loss)
    gs.stack      int32[n]   scratch: candidate cells when dealing, the flood-fill stack
    gs.nbr        int32[n,8] neighbour cell indices (row-major flat index r*cols + c)
    gs.nbr_count  int8[n]    how many entries of nbr[i] are valid
    gs.deal_work  ()         scratch of a deal that needs more than the arrays above: the
                             no-guess rule's (`minelab.noguess.NoGuessWork`), () for the others

(`shown`, not `view`: numba's tuple types have a `view` attribute of their own.)
The interactive `Game` and every agent's batch kernel drive the same kernels
(`begin_game`, `deal_first_click` + `open_cell` (= `reveal_cell`), `flag_cell`,
`unflag_cell`), so the rules live here once.
Randomness: only dealing draws random numbers, exactly `mines` draws of rng.random()
per game under the rules none, safe and opening, so a run's boards do not depend on what
the agent does. The no-guess rule deals by rejection: `mines` draws per board tried, the
opening rule's deal each time, until exact deduction wins the board from the first click;
its boards follow from the seed and the first clicks.

The no-guess deal needs the exact solver (minelab.probability), a layer above the engine.
`deal_first_click` calls `deal_no_guess(gs, cell, rng)`, a function numba resolves by the
type of gs.deal_work (`numba.extending.overload`): minelab.noguess registers the
implementation for its `NoGuessWork`, and the function that makes that work for
`new_game_state` (`register_deal_work`); `import minelab` imports minelab.noguess. With
deal_work () (every other rule) the call compiles to an error that is never reached.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from .cells import (
    COVERED,
    FLAG,
    FLAGGED,
    LOST,
    MINE,
    MOVE_NAMES,
    ONGOING,
    REVEAL,
    RULE_NO_GUESS,
    RULE_NONE,
    RULE_OPENING,
    UNFLAG,
    WON,
)
from .levels import Level

# Kernels that run per click or per game and allocate nothing are compiled without
# numba's reference counting (NRT). With it, each call increments and decrements the
# count of every array argument (atomic operations) wherever numba cannot prove them
# redundant (early returns, calls in branches): measured 2-3x slower oracle play on
# expert. Anything that allocates (np.zeros, ...) must use plain njit.
kernel = njit(cache=True, _nrt=False)

# spec fields
SP_ROWS, SP_COLS, SP_MINES, SP_RULE, SP_FLOOD = range(5)
# st fields
ST_STATUS, ST_DEALT, ST_MOVES, ST_CLICKS, ST_SAFE_CLICKS, ST_REVEALED, ST_FLAGS, ST_FLAG_MOVES = range(8)
N_ST = 8

# One row per game in batch runs (the runner turns them into a DataFrame).
RECORD_FIELDS = ("won", "moves", "clicks", "safe_clicks", "revealed", "flag_moves")
N_RECORD = len(RECORD_FIELDS)



class GameState(NamedTuple):
    """The arrays of one game in progress (see the module docstring)."""

    spec: np.ndarray
    counters: np.ndarray
    mine: np.ndarray
    counts: np.ndarray
    shown: np.ndarray
    stack: np.ndarray
    nbr: np.ndarray
    nbr_count: np.ndarray
    deal_work: tuple


NO_DEAL_WORK = ()  # GameState.deal_work of the rules whose deal needs no scratch
# rule code -> function(level) making that rule's GameState.deal_work (register_deal_work)
_DEAL_WORK_MAKERS = {}


def register_deal_work(rule: int, make) -> None:
    """Make `new_game_state` give levels of first-click rule `rule` (a RULE_* code) the deal
    work make(level); the module that implements the rule's deal calls it at import."""
    _DEAL_WORK_MAKERS[rule] = make


def deal_no_guess(gs, cell, rng):
    """Deal a no-guess board, the first click at `cell`: resolved by numba by the type of
    gs.deal_work (see the module docstring); minelab.noguess implements it."""


@overload(deal_no_guess)
def _deal_no_guess_without_work(gs, cell, rng):
    # a GameState made without the no-guess rule's deal work: its deal cannot run
    if isinstance(gs, types.BaseNamedTuple) and gs.instance_class is GameState:
        work = gs.types[gs.fields.index("deal_work")]
        if isinstance(work, types.BaseTuple) and len(work) == 0:
            def impl(gs, cell, rng):
                if gs.spec[SP_RULE] == RULE_NO_GUESS:
                    raise ValueError("the no-guess deal needs its deal work: make the game state with new_game_state")
            return impl


# ----------------------------------------------------------------------------- kernels
@njit(cache=True, _nrt=False, inline="always")
def without_deal_work(gs):
    """gs with deal_work (): the same arrays, for code that never deals. A kernel that takes
    it is compiled once for every first-click rule (a GameState's type includes its
    deal_work's), so the no-guess rule does not compile an agent's decision again."""
    return GameState(gs.spec, gs.counters, gs.mine, gs.counts, gs.shown, gs.stack, gs.nbr, gs.nbr_count, ())


@njit(cache=True)
def neighbour_table(rows, cols):
    n = rows * cols
    nbr = np.full((n, 8), -1, np.int32)
    nbr_count = np.zeros(n, np.int8)
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            k = 0
            for dr in range(-1, 2):
                for dc in range(-1, 2):
                    if dr == 0 and dc == 0:
                        continue
                    rr = r + dr
                    cc = c + dc
                    if 0 <= rr < rows and 0 <= cc < cols:
                        nbr[i, k] = rr * cols + cc
                        k += 1
            nbr_count[i] = k
    return nbr, nbr_count


@njit(cache=True, _nrt=False, inline="always")  # inlined: a caller's literal k compiles nothing more
def uniform_below(rng, k):
    """An integer uniform in [0, k) from one rng.random() draw (rng.integers costs ~10x
    more inside njit); guards the measure-zero rounding of u * k up to k."""
    pick = np.int64(rng.random() * k)
    return k - 1 if pick >= k else pick


@kernel
def place_mines(mine, n_mines, rule, first, nbr, nbr_count, work, rng):
    """Place `n_mines` uniformly over the cells the rule allows; exactly n_mines draws.

    rule NONE: all cells; SAFE: all but `first`; OPENING: all but `first` and its
    neighbours. A partial Fisher-Yates shuffle of the candidate list.
    """
    n = mine.shape[0]
    mine[:] = 0
    if rule != RULE_NONE:  # mark excluded cells, temporarily, in `mine`
        mine[first] = 1
        if rule == RULE_OPENING:
            for k in range(nbr_count[first]):
                mine[nbr[first, k]] = 1
    m = 0
    for i in range(n):
        if mine[i] == 0:
            work[m] = i
            m += 1
    mine[:] = 0
    for i in range(n_mines):
        j = i + uniform_below(rng, m - i)
        t = work[i]
        work[i] = work[j]
        work[j] = t
        mine[work[i]] = 1


@kernel
def neighbour_counts(mine, nbr, nbr_count, counts):
    # scatter from the mines (density <= ~20% in practice): ~8 * mines writes, not 8 * cells reads
    counts[:] = 0
    for i in range(mine.shape[0]):
        if mine[i]:
            for k in range(nbr_count[i]):
                counts[nbr[i, k]] += 1


@kernel
def flood_reveal(view, counts, nbr, nbr_count, cell, flood, stack):
    """Reveal safe `cell` (covered); with `flood`, open the zero region around it.

    Flagged cells are never opened by the flood (a flag is the player's to remove).
    Returns the number of cells newly revealed.
    """
    view[cell] = counts[cell]
    revealed = 1
    if not flood or counts[cell] != 0:
        return revealed
    top = 0
    stack[top] = cell
    top += 1
    while top > 0:
        top -= 1
        c = stack[top]
        for k in range(nbr_count[c]):
            j = nbr[c, k]
            if view[j] == COVERED:
                view[j] = counts[j]
                revealed += 1
                if counts[j] == 0:
                    stack[top] = j
                    top += 1
    return revealed


@kernel
def deal_first_click(gs, cell, rng):
    """Place the mines by the level's rule, keeping `cell` (the first click) clear under
    SAFE / OPENING, a zero that exact deduction wins from under NO_GUESS (`deal_no_guess`);
    a no-op once dealt."""
    st = gs.counters
    if st[ST_DEALT] == 0:
        if gs.spec[SP_RULE] == RULE_NO_GUESS:
            deal_no_guess(gs, cell, rng)
        else:
            place_mines(gs.mine, gs.spec[SP_MINES], gs.spec[SP_RULE], cell, gs.nbr, gs.nbr_count, gs.stack, rng)
            neighbour_counts(gs.mine, gs.nbr, gs.nbr_count, gs.counts)
        st[ST_DEALT] = 1


@kernel
def begin_game(gs, rng):
    """Reset gs for a new game; with rule NONE the mines are dealt now."""
    spec = gs.spec
    st = gs.counters
    gs.shown[:] = COVERED
    st[:] = 0
    st[ST_STATUS] = ONGOING
    if spec[SP_RULE] == RULE_NONE:
        deal_first_click(gs, np.int64(0), rng)  # NONE ignores the cell: mines go anywhere, before any click
    if spec[SP_ROWS] * spec[SP_COLS] == spec[SP_MINES]:
        st[ST_STATUS] = WON  # nothing safe to reveal: won before the first move


@kernel
def open_cell(gs, cell):
    """Reveal a covered, unflagged cell of an ongoing, dealt game (the caller checks legality).

    Returns cells newly revealed, or -1 when the cell was a mine (the game is then LOST
    and every mine shows as MINE). Batch loops call it per click.
    """
    st = gs.counters
    mine = gs.mine
    st[ST_MOVES] += 1
    st[ST_CLICKS] += 1
    if mine[cell]:
        st[ST_STATUS] = LOST
        view = gs.shown
        for i in range(mine.shape[0]):
            if mine[i]:
                view[i] = MINE
        return -1
    st[ST_SAFE_CLICKS] += 1
    got = flood_reveal(gs.shown, gs.counts, gs.nbr, gs.nbr_count, cell, gs.spec[SP_FLOOD] != 0, gs.stack)
    st[ST_REVEALED] += got
    if st[ST_REVEALED] == mine.shape[0] - gs.spec[SP_MINES]:
        st[ST_STATUS] = WON
    return got


@kernel
def reveal_cell(gs, cell, rng):
    """deal_first_click + open_cell. Batch loops write the two calls out (see open_cell)."""
    if gs.counters[ST_DEALT] == 0:
        deal_first_click(gs, cell, rng)
    return open_cell(gs, cell)


@kernel
def flag_cell(gs, cell):
    st = gs.counters
    view = gs.shown
    view[cell] = FLAGGED
    st[ST_MOVES] += 1
    st[ST_FLAGS] += 1
    st[ST_FLAG_MOVES] += 1


@kernel
def unflag_cell(gs, cell):
    st = gs.counters
    view = gs.shown
    view[cell] = COVERED
    st[ST_MOVES] += 1
    st[ST_FLAGS] -= 1
    st[ST_FLAG_MOVES] += 1


@kernel
def record_game(gs, out, g):
    st = gs.counters
    out[g, 0] = 1 if st[ST_STATUS] == WON else 0
    out[g, 1] = st[ST_MOVES]
    out[g, 2] = st[ST_CLICKS]
    out[g, 3] = st[ST_SAFE_CLICKS]
    out[g, 4] = st[ST_REVEALED]
    out[g, 5] = st[ST_FLAG_MOVES]


@kernel
def count_covered(view):
    k = 0
    for i in range(view.shape[0]):
        if view[i] == COVERED:
            k += 1
    return k


@kernel
def random_covered_cell(view, rng):
    """A uniformly random covered (unflagged) cell; -1 when there is none."""
    k = count_covered(view)
    if k == 0:
        return -1
    pick = uniform_below(rng, k)
    for i in range(view.shape[0]):
        if view[i] == COVERED:
            if pick == 0:
                return i
            pick -= 1
    return -1


# ----------------------------------------------------------------------- Python side
@lru_cache(maxsize=64)
def _tables(rows: int, cols: int):
    nbr, nbr_count = neighbour_table(rows, cols)
    nbr.setflags(write=False)
    nbr_count.setflags(write=False)
    return nbr, nbr_count


def new_deal_work(level: Level):
    """The GameState.deal_work of `level`: its rule's (register_deal_work), else NO_DEAL_WORK."""
    if level.rule_code in _DEAL_WORK_MAKERS:
        return _DEAL_WORK_MAKERS[level.rule_code](level)
    if level.rule_code == RULE_NO_GUESS:
        raise RuntimeError("the no-guess rule's deal is not registered: import minelab (minelab.noguess)")
    return NO_DEAL_WORK


def new_game_state(level: Level, flood: bool = True):
    """A fresh `GameState` for `level`; call begin_game next."""
    n = level.cells
    spec = np.array([level.rows, level.cols, level.mines, level.rule_code, int(bool(flood))], np.int64)
    nbr, nbr_count = _tables(level.rows, level.cols)
    return GameState(
        spec=spec,
        counters=np.zeros(N_ST, np.int64),
        mine=np.zeros(n, np.uint8),
        counts=np.zeros(n, np.int8),
        shown=np.full(n, COVERED, np.int8),
        stack=np.zeros(n, np.int32),
        nbr=nbr,
        nbr_count=nbr_count,
        deal_work=new_deal_work(level),
    )


def as_generator(seed) -> np.random.Generator:
    """int | SeedSequence | Generator | None -> Generator (a Generator is used as is, shared).

        >>> as_generator(3).random() == as_generator(3).random()
        True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, (np.random.SeedSequence, int, np.integer)) and not isinstance(seed, bool):
        if isinstance(seed, (int, np.integer)) and seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        return np.random.Generator(np.random.PCG64(seed))
    raise ValueError(f"seed must be a non-negative int, a SeedSequence or a Generator, got {seed!r}")


def run_streams(seed) -> tuple[np.random.Generator, np.random.Generator]:
    """The two independent streams of a run: (dealing boards, the agent's own choices).

    Separate streams keep the boards of game i identical for every agent played with
    the same seed (common random numbers: paired comparisons of agents).
    """
    if isinstance(seed, np.random.Generator):
        raise ValueError("seed for a run must be an int or a SeedSequence, not a Generator")
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(check_seed(seed))
    deal, agent = ss.spawn(2)
    return np.random.Generator(np.random.PCG64(deal)), np.random.Generator(np.random.PCG64(agent))


def check_seed(seed, name: str = "seed") -> int:
    """A root seed: a non-negative integer (numpy's too); ValueError naming `name` otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {seed!r}")
    return int(seed)


class Move(NamedTuple):
    """One move: kind REVEAL, FLAG or UNFLAG, and the cell (Move(REVEAL, 2, 3)); Game.apply takes it."""

    kind: int  # REVEAL, FLAG or UNFLAG
    row: int
    col: int

    def __repr__(self) -> str:
        return f"Move({MOVE_NAMES[self.kind]}, {self.row}, {self.col})"


class IllegalMove(ValueError):
    """A move the rules do not allow (off the board, on a revealed cell, after the end)."""


class Game:
    """One game: `reveal`, `flag`, `unflag`, `view`, `status`, `moves`.

    `seed` deals the board (int, SeedSequence, or a Generator to share a stream).
    Under the `safe`, `opening` and `no-guess` rules the mines are placed at the first reveal.
    In a notebook a game shows itself as a board (`_repr_html_`).

        >>> game = Game("9x9x10", seed=3)
        >>> game.reveal(0, 0) > 0, game.over
        (True, False)
    """

    def __init__(self, level: "Level | str" = "beginner", seed=None, flood: bool = True):
        self.level = Level.parse(level)
        self.flood = bool(flood)
        self._rng = as_generator(seed)
        self._gs = new_game_state(self.level, self.flood)
        self.moves: list[Move] = []
        begin_game(self._gs, self._rng)

    @classmethod
    def from_mines(cls, mines, flood: bool = True) -> "Game":
        """A game on a fixed layout (bool/0-1 array (rows, cols)): scripted boards for tests
        and figures. The level uses the `none` rule since the layout exists before any click."""
        layout = np.asarray(mines)
        if layout.ndim != 2 or layout.size == 0:
            raise ValueError(f"mines must be a non-empty 2-d array, got shape {layout.shape}")
        if not np.isin(layout, (0, 1)).all():
            raise ValueError("mines must hold only 0/1 (or False/True)")
        rows, cols = layout.shape
        game = cls(Level(rows, cols, int(layout.sum()), "none"), seed=0, flood=flood)
        gs = game._gs
        gs.mine[:] = layout.ravel().astype(np.uint8)
        neighbour_counts(gs.mine, gs.nbr, gs.nbr_count, gs.counts)
        return game

    # --- copies ------------------------------------------------------------------
    # A copy or an unpickled game gets the level's shared read-only neighbour tables back,
    # not writeable copies of them: a writeable array is another numba type, for which
    # every kernel the game meets would compile again (about 45 s for `best`). Copy a game
    # together with its agent, copy.deepcopy((game, agent)), when the agent keeps per-game
    # memory. The deal work is scratch: a copy gets a fresh one.
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_gs"] = self._gs._replace(nbr=None, nbr_count=None, deal_work=None)  # the tables are the level's
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        nbr, nbr_count = _tables(self.level.rows, self.level.cols)
        self._gs = self._gs._replace(nbr=nbr, nbr_count=nbr_count, deal_work=new_deal_work(self.level))

    # --- state -------------------------------------------------------------------
    @property
    def view(self) -> np.ndarray:
        """What the player sees: int8 (rows, cols), COVERED/FLAGGED/0..8 (MINE after a loss). Read-only."""
        v = self._gs.shown.reshape(self.level.rows, self.level.cols).copy()  # a copy: nothing can write back
        v.setflags(write=False)
        return v

    @property
    def status(self) -> int:
        """ONGOING (0), WON (1) or LOST (-1)."""
        return int(self._gs.counters[ST_STATUS])

    @property
    def over(self) -> bool:
        """True once the game is won or lost."""
        return self.status != ONGOING

    @property
    def won(self) -> bool:
        """True when every safe cell is revealed."""
        return self.status == WON

    @property
    def lost(self) -> bool:
        """True after a mine was revealed."""
        return self.status == LOST

    @property
    def revealed(self) -> int:
        """Safe cells revealed so far."""
        return int(self._gs.counters[ST_REVEALED])

    @property
    def flags(self) -> int:
        """Flags on the board."""
        return int(self._gs.counters[ST_FLAGS])

    @property
    def dealt(self) -> bool:
        """True once the mines are placed (at the first reveal under the safe, opening and no-guess rules)."""
        return bool(self._gs.counters[ST_DEALT])

    def mines_after_game(self) -> np.ndarray:
        """The layout (bool (rows, cols)); only once the game is over (learning reads it then)."""
        if not self.over:
            raise IllegalMove("the mine layout is hidden while the game is in progress")
        return self._gs.mine.reshape(self.level.rows, self.level.cols).astype(bool)

    # --- moves -------------------------------------------------------------------
    def _cell(self, r, c, action: str) -> int:
        if self.over:
            raise IllegalMove(f"cannot {action} ({r}, {c}): the game is over ({'won' if self.won else 'lost'})")
        rows, cols = self.level.rows, self.level.cols
        for name, v, hi in (("row", r, rows), ("col", c, cols)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise IllegalMove(f"{name} must be an integer, got {v!r}")
            if not 0 <= v < hi:
                raise IllegalMove(f"{name} must be in [0, {hi - 1}] on a {rows}x{cols} board, got {v}")
        return int(r) * cols + int(c)

    def reveal(self, r: int, c: int) -> int:
        """Reveal (r, c). Returns cells newly revealed, or -1 if it was a mine."""
        i = self._cell(r, c, "reveal")
        state = self._gs.shown[i]
        if state == FLAGGED:
            raise IllegalMove(f"cannot reveal ({r}, {c}): it is flagged (unflag it first)")
        if state != COVERED:
            raise IllegalMove(f"cannot reveal ({r}, {c}): already revealed")
        got = reveal_cell(self._gs, i, self._rng)
        self.moves.append(Move(REVEAL, int(r), int(c)))
        return int(got)

    def flag(self, r: int, c: int) -> None:
        """Put a flag on covered cell (r, c) (IllegalMove if it is revealed or flagged)."""
        i = self._cell(r, c, "flag")
        state = self._gs.shown[i]
        if state == FLAGGED:
            raise IllegalMove(f"cannot flag ({r}, {c}): already flagged")
        if state != COVERED:
            raise IllegalMove(f"cannot flag ({r}, {c}): it is revealed")
        flag_cell(self._gs, i)
        self.moves.append(Move(FLAG, int(r), int(c)))

    def unflag(self, r: int, c: int) -> None:
        """Take the flag off (r, c) (IllegalMove if it has none)."""
        i = self._cell(r, c, "unflag")
        if self._gs.shown[i] != FLAGGED:
            raise IllegalMove(f"cannot unflag ({r}, {c}): it is not flagged")
        unflag_cell(self._gs, i)
        self.moves.append(Move(UNFLAG, int(r), int(c)))

    def apply(self, move) -> int:
        """Apply a Move (or a (kind, row, col) tuple)."""
        kind, r, c = move
        if isinstance(kind, bool) or not isinstance(kind, (int, np.integer)):
            raise IllegalMove(f"move kind must be REVEAL (0), FLAG (1) or UNFLAG (2), got {kind!r}")
        if kind == REVEAL:
            return self.reveal(r, c)
        if kind == FLAG:
            self.flag(r, c)
            return 0
        if kind == UNFLAG:
            self.unflag(r, c)
            return 0
        raise IllegalMove(f"move kind must be REVEAL (0), FLAG (1) or UNFLAG (2), got {kind!r}")

    # --- display -----------------------------------------------------------------
    def __repr__(self) -> str:
        state = {ONGOING: "ongoing", WON: "won", LOST: "lost"}[self.status]
        return f"Game({self.level}, {state}, {len(self.moves)} moves)\n{board_text(self.view)}"

    def _repr_html_(self) -> str:
        from .render import board_html

        return board_html(self.view, title=f"{self.level} — {len(self.moves)} moves")


def board_text(view: np.ndarray) -> str:
    """Plain-text board: '#' covered, 'F' flag, '*' mine, '.' zero, digits.

        >>> print(board_text([[-1, -2], [0, 3]]))
        #F
        .3
    """
    chars = {COVERED: "#", FLAGGED: "F", MINE: "*", 0: "."}
    return "\n".join("".join(chars.get(int(v), str(int(v))) for v in row) for row in np.asarray(view))
