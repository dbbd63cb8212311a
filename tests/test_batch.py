"""The one batch loop (minelab.agents.batch): a family's hooks, its record columns by name,
clear errors for a malformed state or record array, and a loop numba caches per family."""
import subprocess
import sys
from typing import NamedTuple

import numpy as np
import pytest

from minelab.agents.batch import PLAYED, extra_index, hook, hooks, play_games
from minelab.cells import COVERED, FLAG, REVEAL
from minelab.engine import N_RECORD, RECORD_FIELDS, new_game_state, random_covered_cell
from minelab.levels import Level

TOY_EXTRA = ("decisions", "games_begun", "opened", "settled")


class ToyBatch(NamedTuple):
    flag_first: int  # 1: flag a cell before the first reveal of each game
    begun: np.ndarray  # int64[1]
    extra: np.ndarray  # int64[len(TOY_EXTRA)]


@hook
def _toy_begin(state, gs):
    state.begun[0] += 1
    state.extra[:] = 0
    state.extra[1] = state.begun[0]


@hook
def _toy_move(state, gs, rng, deal_rng):
    state.extra[0] += 1
    if state.flag_first and state.extra[0] == 1:
        return FLAG, gs.nbr.shape[0] - 1  # the last cell: never the first click's
    return REVEAL, random_covered_cell(gs.shown, rng)


@hook
def _toy_after(state, gs, rng, cell, got):
    if got > 0:
        state.extra[2] += got  # cells the move revealed
    if gs.shown[cell] != COVERED:
        state.extra[3] += 1  # the move's cell is flagged or open now


hooks(ToyBatch, _toy_move, begin_fn=_toy_begin, after_fn=_toy_after)


def _play(level, n, flag_first=0, width=None):
    gs = new_game_state(Level.parse(level))
    out = np.zeros((n, width if width is not None else N_RECORD + len(TOY_EXTRA)), np.int64)
    state = ToyBatch(flag_first, np.zeros(1, np.int64), np.zeros(len(TOY_EXTRA), np.int64))
    played = play_games(gs, n, np.random.default_rng(1), np.random.default_rng(2), state, out)
    return played, out


def test_the_loop_plays_every_game_and_writes_the_columns_by_name():
    played, out = _play("4x4x1", 200)
    assert played == 200
    moves = out[:, RECORD_FIELDS.index("moves")]
    assert (out[:, N_RECORD + extra_index(TOY_EXTRA, "decisions")] == moves).all()  # one move a decision
    assert list(out[:, N_RECORD + extra_index(TOY_EXTRA, "games_begun")]) == list(range(1, 201))
    assert (out[:, N_RECORD + extra_index(TOY_EXTRA, "opened")] == out[:, RECORD_FIELDS.index("revealed")]).all()
    assert (out[:, N_RECORD + extra_index(TOY_EXTRA, "settled")] == moves).all()  # `after` sees each move's cell
    assert 0 < out[:, RECORD_FIELDS.index("won")].sum() < 200


def test_a_flag_decision_flags_and_the_same_seeds_give_the_same_games():
    _, a = _play("9x9x10", 100, flag_first=1)
    _, b = _play("9x9x10", 100, flag_first=1)
    assert (a == b).all() and (a[:, RECORD_FIELDS.index("flag_moves")] == 1).all()
    assert (a[:, N_RECORD + extra_index(TOY_EXTRA, "settled")] == a[:, RECORD_FIELDS.index("moves")]).all()


def test_bad_state_and_record_array_are_clear_errors():
    class NoExtra(NamedTuple):
        x: int

    with pytest.raises(ValueError, match="`extra` field"):
        hooks(NoExtra, _toy_move)
    with pytest.raises(ValueError, match="not one of"):
        extra_index(TOY_EXTRA, "wins")
    with pytest.raises(ValueError, match="out must have"):
        _play("9x9x10", 3, width=N_RECORD)


def test_played_is_not_a_move_kind():
    assert PLAYED not in (REVEAL, FLAG)


def test_the_loop_is_loaded_from_numba_cache_in_a_new_process():
    """The loop specialised for a minelab family is cached like any kernel: a second
    process loads it instead of compiling it again, even after a family defined outside
    minelab (this module's) has played (its loop never enters the shared cache, whose
    index every process must be able to load)."""
    _play("4x4x1", 5)
    script = ("import minelab as ml; from minelab.agents import batch; ml.play('random', '9x9x10', 10, seed=0); "
              "print(sum(batch._cached_loop.stats.cache_hits.values()))")
    hits = [int(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
                .stdout.split()[-1]) for _ in range(2)]
    assert hits[1] >= 1
