"""One batch loop: every family that folds into it supplies hooks, `play_games` plays.

A family's batch state is a NamedTuple of its own class (its tables, work arrays and
settings) with one field every state has: `extra`, an int64 array laid out as the
agent's `extra_fields` (the record columns it adds, by name; `extra_index` turns a name
into its slot). The family registers its hooks for that class with `hooks(...)`:

    room(state, gs)      -> bool: False ends the batch early (a table must grow first)
    begin(state, gs)     once a game, after the deal of rule NONE (reset counters)
    decide(state, gs, rng, deal_rng)
                         -> (kind, cell): FLAG or REVEAL, the move to play; cell < 0
                         abandons the game; kind PLAYED: the family played the
                         decision's moves itself (deal_rng: for its first click)
    after(state, gs, rng, cell, got)
                         once a move, after it is applied (cell: decide's; got: what
                         open_cell returned, 0 for a flag or PLAYED)
    end(state, gs)       once a game, before its record (learn, fill `extra`)

Only `decide` is required. `play_games(gs, n_games, deal_rng, rng, state, out)` then
plays: begin the game, decide, deal on the first click, open or flag, until the game is
over; record the engine's fields and then `state.extra` in out[g]. It returns the games
played (fewer than n_games when `room` said no). PLAYED is for a decision that is several
moves the family interleaves with its learning (the bandits' flag exchange and opening):
the loop around it is still this one.

How it compiles: each hook is a generic function that numba resolves by the state's
class (`numba.extending.overload`), so the loop compiles once per family and, for
minelab's own families, caches like any kernel. Write the hooks with `@hook`
(numba-inlined, like `probability.step`): the loop then compiles to what a family's own
hand-written loop would, with no call that passes the state's arrays one by one.
"""
from __future__ import annotations

from numba import njit, types
from numba.extending import overload

from ..cells import FLAG
from ..engine import (N_RECORD, ST_DEALT, ST_STATUS, begin_game, deal_first_click, flag_cell, kernel, open_cell,
                      record_game)

__all__ = ["play_games", "hooks", "hook", "extra_index", "PLAYED"]

PLAYED = -1  # a decision's kind when the family played its moves itself


def hook(fn):
    """The decorator of a family's hook kernels: inlined into play_games, no reference
    counting, cached beside its source file (compiled anew each run when it has none: code
    typed at a prompt or run by exec)."""
    try:
        return njit(cache=True, _nrt=False, inline="always")(fn)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return njit(_nrt=False, inline="always")(fn)


def room(state, gs):
    """False when the batch must stop before its next game (see the module docstring)."""


def begin(state, gs):
    """A family's start-of-game hook."""


def decide(state, gs, rng, deal_rng):
    """A family's decision: (kind, cell)."""


def after(state, gs, rng, cell, got):
    """A family's after-move hook."""


def end(state, gs):
    """A family's end-of-game hook."""


def _loop(gs, n_games, deal_rng, rng, state, out):
    """play_games' loop (see the module docstring)."""
    st = gs.counters
    extra = state.extra
    if out.shape[1] != N_RECORD + extra.shape[0] or out.shape[0] < n_games:
        raise ValueError("play_games: out must have n_games rows of the engine's fields and the state's extra")
    for g in range(n_games):
        if not room(state, gs):
            return g
        begin_game(gs, deal_rng)
        begin(state, gs)
        while st[ST_STATUS] == 0:
            kind, cell = decide(state, gs, rng, deal_rng)
            got = 0
            if kind == PLAYED:
                pass
            elif cell < 0:
                break
            elif kind == FLAG:
                flag_cell(gs, cell)
            else:
                if st[ST_DEALT] == 0:
                    deal_first_click(gs, cell, deal_rng)
                got = open_cell(gs, cell)
            after(state, gs, rng, cell, got)
        end(state, gs)
        record_game(gs, out, g)
        for j in range(extra.shape[0]):
            out[g, N_RECORD + j] = extra[j]
    return n_games


# Two compilations of the loop: numba's cache index of a function holds every signature it
# was compiled for, and loading it imports each state's class. A family defined outside
# minelab (a user's, a test's, code run by exec) must not enter the shared index: in a
# process that cannot import its class, loading the index would fail for every family.
_cached_loop = kernel(_loop)
_fresh_loop = njit(_nrt=False)(_loop)


def play_games(gs, n_games, deal_rng, rng, state, out):
    """Play up to n_games on gs with the family of `state`; the games played. A family of
    minelab's own plays a loop compiled once and cached; any other family's loop is
    compiled in each process (the hooks themselves are cached beside their files)."""
    minelab_family = type(state).__module__.split(".")[0] == "minelab"
    loop = _cached_loop if minelab_family else _fresh_loop
    return loop(gs, n_games, deal_rng, rng, state, out)


def extra_index(fields: tuple[str, ...], name: str) -> int:
    """The slot of record column `name` in a state's `extra` (laid out as `fields`)."""
    if name not in fields:
        raise ValueError(f"extra field {name!r} is not one of {fields}")
    return fields.index(name)


def _is(state_class):
    return lambda t: isinstance(t, types.BaseNamedTuple) and t.instance_class is state_class


def hooks(state_class, decide_fn, room_fn=None, begin_fn=None, after_fn=None, end_fn=None) -> None:
    """Register a family's kernels as the hooks of its batch state class (see the module
    docstring); a hook left out does nothing (room: always True). Call once, at import."""
    if "extra" not in getattr(state_class, "_fields", ()):
        raise ValueError(f"{state_class.__name__} must be a NamedTuple with an `extra` field")
    mine = _is(state_class)

    @overload(decide, inline="always")
    def _decide(state, gs, rng, deal_rng):
        if mine(state):
            return lambda state, gs, rng, deal_rng: decide_fn(state, gs, rng, deal_rng)

    @overload(room, inline="always")
    def _room(state, gs):
        if mine(state):
            if room_fn is None:
                return lambda state, gs: True
            return lambda state, gs: room_fn(state, gs)

    @overload(begin, inline="always")
    def _begin(state, gs):
        if mine(state):
            if begin_fn is None:
                return lambda state, gs: None
            return lambda state, gs: begin_fn(state, gs)

    @overload(after, inline="always")
    def _after(state, gs, rng, cell, got):
        if mine(state):
            if after_fn is None:
                return lambda state, gs, rng, cell, got: None
            return lambda state, gs, rng, cell, got: after_fn(state, gs, rng, cell, got)

    @overload(end, inline="always")
    def _end(state, gs):
        if mine(state):
            if end_fn is None:
                return lambda state, gs: None
            return lambda state, gs: end_fn(state, gs)
