"""Training data of Gardea et al. (2015) §III-B: games played by correct moves, labelled exactly.

This is a *data generator*, not a player: it reads the hidden layout to play only
correct (safe) moves, which is what the paper describes ("play each game until it is
won by always choosing a correct move"). No agent calls it during play; the learners
use it before they play (training) and after (held-out test positions).

    data = generate("8x8x10", 20_000, radius=1, seed=0)         # local samples (classifiers)
    data.X, data.y, data.game                                    # int8 [n, 8], bool [n], int64 [n]
    views, probs = generate_boards("4x4x3", 500, seed=0)         # whole boards (regression)

How a game is played (our readings of the text, each with its alternative as an option):
* The first click follows the level's rule (`safe`: never a mine, `opening`: a zero,
  `none`: the generator still picks a safe cell), at a uniformly random cell.
* Every later move is a correct move: with probability `perimeter_prob` a uniformly
  random safe cell of the *perimeter* (covered cells adjacent to a revealed cell),
  otherwise a uniformly random safe covered cell anywhere. The paper says "some fixed
  probability" and "most moves are selected from the perimeter": our default,
  PERIMETER_PROB = 0.9, keeps most moves there while still opening new regions now and
  then. (When no perimeter cell is safe, the move is drawn from all safe covered cells.)
  The paper writes "otherwise from all uncovered squares"; a move can only be made on a
  covered square, so we read it as all *covered* (safe) squares.
* Positions with nothing revealed (before the first click) give no sample: the
  perimeter is empty, and the agents open by their first-click rule, not by a model.

Samples. At each position the exact solver (`minelab.probability.solve_kernel`, solved
once per position) labels every target: positive (True, "safe") only when the target
is safe in *every* layout consistent with the view and the mine count (ws.certain ==
CERTAIN_SAFE), the paper's cure for non-separable data. Targets are the perimeter cells
(`targets="perimeter"`, the default: Algorithm 1 predicts only the perimeter) or every
covered cell (`targets="covered"`). A target's features are the states of the
(2r+1) x (2r+1) window around it, the target excluded, row by row: the revealed number
0..8 as itself, COVERED_CODE (-1) for a covered (or flagged: a flag is a belief) cell,
OUT_OF_BOUNDS (-2) for a cell off the board. The paper names the two values but not
their codes: these are ours; a one-hot encoding (the classifiers' option) makes the
choice irrelevant.

Whole boards (the regression's data): every position with something revealed, its view
(flat, minelab codes: COVERED -1, numbers 0..8) and the exact mine probability of each
cell (ws.prob; 0 on revealed cells).

Every random number (boards, moves) comes from the `seed` (int or SeedSequence) through
one numpy Generator; the hot loop is one numba kernel (`minelab bench samples`).
"""
from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from ...cells import COVERED
from ...engine import (SP_COLS, SP_MINES, SP_ROWS, ST_DEALT, ST_STATUS, as_generator, begin_game, deal_first_click,
                       kernel, new_game_state, open_cell, uniform_below)
from ...levels import Level
from ...probability import CERTAIN_SAFE, DEFAULT_MAX_WORK, OK, new_workspace, solve_kernel

COVERED_CODE = -1  # feature value of a covered (or flagged) cell
OUT_OF_BOUNDS = -2  # feature value of a window cell off the board
FEATURE_CODES = np.arange(OUT_OF_BOUNDS, 9, dtype=np.int8)  # every feature value, increasing: -2, -1, 0..8
PERIMETER_PROB = 0.9
TARGETS = ("perimeter", "covered")
TARGET_PERIMETER = 0
TARGET_COVERED = 1
GAMES_PER_SAMPLE = 20  # a run stops (ValueError) after 20 games a sample without filling up: a level too easy


class Samples(NamedTuple):
    """Labelled local samples (one row per (position, target))."""

    X: np.ndarray  # int8 [n, (2r+1)^2 - 1] window features (COVERED_CODE, OUT_OF_BOUNDS, 0..8)
    y: np.ndarray  # bool [n] True: the target is safe in every consistent layout
    game: np.ndarray  # int64 [n] the game it comes from (split train/test by game)
    state: np.ndarray  # int64 [n] the position it comes from (numbered across the run)
    cell: np.ndarray  # int32 [n] the target's flat cell index


class BoardStates(NamedTuple):
    """Whole-board positions with their exact mine probabilities (one row per position)."""

    views: np.ndarray  # int8 [n, cells] minelab view codes (COVERED -1, 0..8)
    probs: np.ndarray  # float64 [n, cells] exact mine probability; 0 on revealed cells
    game: np.ndarray  # int64 [n] the game it comes from


class Policy(NamedTuple):
    """How the generator plays and what it records (the kernels' view of the options)."""

    perimeter_prob: float
    radius: int
    targets: int  # TARGET_PERIMETER or TARGET_COVERED
    max_work: int


class Scratch(NamedTuple):
    known: np.ndarray  # uint8 [n] zeros: the solver's "known mines" (the generator flags nothing)
    perim: np.ndarray  # uint8 [n] 1 on perimeter cells
    counters: np.ndarray  # int64 [3] games played, positions seen, rows written


SC_GAMES, SC_STATES, SC_ROWS = range(3)


# ------------------------------------------------------------------------- kernels
@kernel
def perimeter_mask(view, nbr, nbr_count, perim):
    """perim[i] = 1 for covered cells with a revealed neighbour; returns their number
    (0 when nothing is revealed)."""
    count = 0
    for i in range(view.shape[0]):
        perim[i] = 0
        if view[i] != COVERED:
            continue
        for a in range(nbr_count[i]):
            if view[nbr[i, a]] >= 0:
                perim[i] = 1
                count += 1
                break
    return count


@kernel
def window_features(view, rows, cols, cell, radius, out):
    """out[:(2r+1)^2 - 1] = the window around `cell`, row by row, the cell itself left out."""
    r0 = cell // cols
    c0 = cell % cols
    k = 0
    for dr in range(-radius, radius + 1):
        for dc in range(-radius, radius + 1):
            if dr == 0 and dc == 0:
                continue
            rr = r0 + dr
            cc = c0 + dc
            if 0 <= rr < rows and 0 <= cc < cols:
                v = view[rr * cols + cc]
                out[k] = v if v >= 0 else COVERED_CODE
            else:
                out[k] = OUT_OF_BOUNDS
            k += 1


@kernel
def any_revealed(view):
    for i in range(view.shape[0]):
        if view[i] >= 0:
            return True
    return False


@kernel
def _pick_safe(view, mine, dealt, perim, only_perimeter, rng):
    """A uniformly random covered cell that is safe (any covered cell before dealing),
    among the perimeter cells when `only_perimeter`; -1 when there is none."""
    k = 0
    for i in range(view.shape[0]):
        if view[i] == COVERED and (dealt == 0 or mine[i] == 0) and (not only_perimeter or perim[i]):
            k += 1
    if k == 0:
        return -1
    pick = uniform_below(rng, k)
    for i in range(view.shape[0]):
        if view[i] == COVERED and (dealt == 0 or mine[i] == 0) and (not only_perimeter or perim[i]):
            if pick == 0:
                return i
            pick -= 1
    return -1


@kernel
def correct_move(gs, perim, n_perim, perimeter_prob, rng):
    """The generator's move: a safe perimeter cell with probability perimeter_prob (when
    one exists), else a safe covered cell anywhere. Reads the hidden layout (a generator)."""
    dealt = gs.counters[ST_DEALT]
    if n_perim > 0 and rng.random() < perimeter_prob:
        cell = _pick_safe(gs.shown, gs.mine, dealt, perim, True, rng)
        if cell >= 0:
            return cell
    return _pick_safe(gs.shown, gs.mine, dealt, perim, False, rng)


@kernel
def _label_targets(ws, view, rows, cols, perim, policy, game, state, out, row):
    """Write the samples of one solved position from row `row` on; returns the next free row."""
    n_out = out.X.shape[0]
    for i in range(view.shape[0]):
        if row >= n_out:
            break
        if view[i] != COVERED or (policy.targets == TARGET_PERIMETER and perim[i] == 0):
            continue
        window_features(view, rows, cols, i, policy.radius, out.X[row])
        out.y[row] = ws.certain[i] == CERTAIN_SAFE
        out.game[row] = game
        out.state[row] = state
        out.cell[row] = i
        row += 1
    return row


@kernel
def _play_correct(gs, s, policy, rng):
    """One correct move of the generator (perimeter from s.perim, already computed)."""
    n_perim = 0
    for i in range(s.perim.shape[0]):
        n_perim += s.perim[i]
    cell = correct_move(gs, s.perim, n_perim, policy.perimeter_prob, rng)
    if gs.counters[ST_DEALT] == 0:
        deal_first_click(gs, cell, rng)
    open_cell(gs, cell)


@kernel
def sample_kernel(gs, ws, s, policy, max_games, rng, out):
    """Play games until `out` (a Samples of preallocated rows) is full or `max_games`
    games are played; s.counters holds games, positions and rows written."""
    st = gs.counters
    view = gs.shown
    rows = gs.spec[SP_ROWS]
    cols = gs.spec[SP_COLS]
    mines = gs.spec[SP_MINES]
    n_out = out.X.shape[0]
    row = s.counters[SC_ROWS]
    while row < n_out and s.counters[SC_GAMES] < max_games:
        game = s.counters[SC_GAMES]
        begin_game(gs, rng)
        while st[ST_STATUS] == 0:
            perimeter_mask(view, gs.nbr, gs.nbr_count, s.perim)
            if any_revealed(view):
                if solve_kernel(ws, view, s.known, mines, gs.nbr, gs.nbr_count, policy.max_work) == OK:
                    row = _label_targets(ws, view, rows, cols, s.perim, policy, game, s.counters[SC_STATES],
                                         out, row)
                s.counters[SC_STATES] += 1
                if row >= n_out:
                    break
            _play_correct(gs, s, policy, rng)
        s.counters[SC_GAMES] += 1
    s.counters[SC_ROWS] = row


@kernel
def board_kernel(gs, ws, s, policy, max_games, rng, out):
    """As sample_kernel, one row of `out` (a BoardStates) per position with something revealed."""
    st = gs.counters
    view = gs.shown
    mines = gs.spec[SP_MINES]
    n = view.shape[0]
    n_out = out.views.shape[0]
    row = s.counters[SC_ROWS]
    while row < n_out and s.counters[SC_GAMES] < max_games:
        begin_game(gs, rng)
        while st[ST_STATUS] == 0 and row < n_out:
            perimeter_mask(view, gs.nbr, gs.nbr_count, s.perim)
            if any_revealed(view):
                if solve_kernel(ws, view, s.known, mines, gs.nbr, gs.nbr_count, policy.max_work) == OK:
                    for i in range(n):
                        out.views[row, i] = view[i] if view[i] >= 0 else COVERED
                        out.probs[row, i] = 0.0 if view[i] >= 0 else ws.prob[i]
                    out.game[row] = s.counters[SC_GAMES]
                    row += 1
                s.counters[SC_STATES] += 1
            _play_correct(gs, s, policy, rng)
        s.counters[SC_GAMES] += 1
    s.counters[SC_ROWS] = row


# ------------------------------------------------------------------------- Python side
def n_features(radius: int) -> int:
    """Features of a window of radius r: (2r+1)^2 - 1."""
    return (2 * radius + 1) ** 2 - 1


def check_radius(radius) -> int:
    if isinstance(radius, bool) or not isinstance(radius, numbers.Integral) or radius < 1:
        raise ValueError(f"radius must be an integer >= 1, got {radius!r}")
    return int(radius)


def check_perimeter_prob(p) -> float:
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"perimeter_prob must be a number in [0, 1], got {p!r}")
    return float(p)


def _check_count(name: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def _setup(level, perimeter_prob, radius, targets):
    try:
        lv = Level.parse(level)
    except ValueError as exc:
        raise ValueError(f"level: {exc}") from None
    if targets not in TARGETS:
        raise ValueError(f"targets must be one of {', '.join(map(repr, TARGETS))}, got {targets!r}")
    policy = Policy(perimeter_prob=check_perimeter_prob(perimeter_prob), radius=check_radius(radius),
                    targets=TARGETS.index(targets), max_work=DEFAULT_MAX_WORK)
    gs = new_game_state(lv)
    ws = new_workspace(lv.cells, lv.mines)
    s = Scratch(known=np.zeros(lv.cells, np.uint8), perim=np.zeros(lv.cells, np.uint8),
                counters=np.zeros(3, np.int64))
    return lv, policy, gs, ws, s


def _too_few(lv: Level, what: str, got: int, wanted: int, games: int) -> ValueError:
    return ValueError(f"level {lv} gives too few {what}: {got} of {wanted} in {games} games "
                      f"(its games end at the first click); choose a level with more to learn")


def generate(level, n_samples: int, radius: int = 1, seed=0, *, perimeter_prob: float = PERIMETER_PROB,
             targets: str = "perimeter") -> Samples:
    """`n_samples` labelled local samples from games on `level` (see the module docstring).

    seed: int or SeedSequence (every random number comes from it). Positive label (True)
    = safe in every consistent layout (the exact solver). The last position may be cut
    short to give exactly n_samples rows.
    """
    n = _check_count("n_samples", n_samples)
    lv, policy, gs, ws, s = _setup(level, perimeter_prob, radius, targets)
    out = Samples(X=np.zeros((n, n_features(policy.radius)), np.int8), y=np.zeros(n, np.bool_),
                  game=np.zeros(n, np.int64), state=np.zeros(n, np.int64), cell=np.zeros(n, np.int32))
    max_games = GAMES_PER_SAMPLE * n + 100
    sample_kernel(gs, ws, s, policy, max_games, as_generator(seed), out)
    if s.counters[SC_ROWS] < n:
        raise _too_few(lv, "samples", int(s.counters[SC_ROWS]), n, int(s.counters[SC_GAMES]))
    return out


def board_states(level, n_states: int, seed=0, *, perimeter_prob: float = PERIMETER_PROB) -> BoardStates:
    """`n_states` whole-board positions (something revealed) with exact mine probabilities
    and their game ids (for splits by game)."""
    n = _check_count("n_states", n_states)
    lv, policy, gs, ws, s = _setup(level, perimeter_prob, 1, "perimeter")
    out = BoardStates(views=np.zeros((n, lv.cells), np.int8), probs=np.zeros((n, lv.cells), np.float64),
                      game=np.zeros(n, np.int64))
    max_games = GAMES_PER_SAMPLE * n + 100
    board_kernel(gs, ws, s, policy, max_games, as_generator(seed), out)
    if s.counters[SC_ROWS] < n:
        raise _too_few(lv, "positions", int(s.counters[SC_ROWS]), n, int(s.counters[SC_GAMES]))
    return out


def generate_boards(level, n_states: int, seed=0, *, perimeter_prob: float = PERIMETER_PROB):
    """(views int8 [n, cells], probs float64 [n, cells]): `board_states` without the game ids."""
    b = board_states(level, n_states, seed, perimeter_prob=perimeter_prob)
    return b.views, b.probs


def negative_share(samples: Samples) -> float:
    """Share of samples labelled negative (not certainly safe); the paper reports 66%."""
    return float(1.0 - samples.y.mean()) if len(samples.y) else float("nan")


def best_move(view, probs, cell) -> bool:
    """True when `cell` is a covered cell of minimum exact mine probability on this position
    (within 1e-9: sums in different orders differ in the last bits)."""
    covered = np.asarray(view) < 0
    return bool(covered[cell] and probs[cell] <= probs[covered].min() + 1e-9)


def move_accuracy(boards: BoardStates, decide) -> float:
    """Share of positions in which `decide(view_flat) -> cell` picks a covered cell of
    minimum exact mine probability: the "test accuracy" minelab compares across learners."""
    good = sum(best_move(v, p, int(decide(v))) for v, p in zip(boards.views, boards.probs))
    return good / len(boards.views)


__all__ = ["BoardStates", "COVERED_CODE", "FEATURE_CODES", "OUT_OF_BOUNDS", "PERIMETER_PROB", "Samples",
           "board_states", "generate", "generate_boards", "move_accuracy", "negative_share", "window_features"]
