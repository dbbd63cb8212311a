"""minelab.probability: exact mine probabilities checked against brute force.

A brute-force enumerator written here (every layout of `mines` mines over the covered and
flagged cells, kept when it agrees with every revealed number; exact integer counts) is
the reference. Positions come from real games dealt by the engine and played with moves
that never lose (reveal a truly safe cell, flag a true mine, now and then a wrong flag or
an unflag), snapshotted at random points and in the endgame where the global mine count
decides. Then bigger positions checked by what any exact answer satisfies (marginals sum
to the mine count, certain cells agree with the hidden layout, mirror symmetry), scripted
positions with answers worked out by hand, bad input, expert games in progress, and
large frontiers: one exact, one pathological under the work bound (fallback estimates,
which must never turn a consistent position into an "inconsistent" error).
"""
from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

import minelab as ml
from minelab import probability
from minelab.cells import COVERED, FLAGGED, MINE
from minelab.levels import Level

C, F = COVERED, FLAGGED

COMB_LIMIT = 200_000  # plain brute force: at most this many combinations per position
FRONTIER_LIMIT = 15  # frontier brute force: at most 2**15 frontier patterns
NEIGHBOURS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]

SMALL_LEVELS = (
    "4x4x3", "4x4x4", "4x4x5", "5x5x5", "5x5x7", "5x5x10", "4x6x6", "6x6x8",
    "3x7x10", "5x5x15", "2x5x3", "1x10x5", "4x4x4:none", "5x5x8:none", "3x6x5:opening",
)


# ----------------------------------------------------------------------------- brute force
def constraints(view):
    """The unknown (covered or flagged) cells as flat indices, the membership matrix
    A[k, j] = 1 when unknown cell k is a neighbour of revealed number j, and the numbers."""
    v = np.asarray(view)
    rows, cols = v.shape
    flat = v.ravel().astype(np.int64)
    unknown = np.flatnonzero((flat == COVERED) | (flat == FLAGGED))
    where = {int(i): k for k, i in enumerate(unknown)}
    numbers = np.flatnonzero(flat >= 0)
    a = np.zeros((len(unknown), len(numbers)), np.int16)
    for j, i in enumerate(numbers):
        r, c = divmod(int(i), cols)
        for dr, dc in NEIGHBOURS:
            rr, cc = r + dr, c + dc
            if 0 <= rr < rows and 0 <= cc < cols and (k := where.get(rr * cols + cc)) is not None:
                a[k, j] = 1
    return unknown, a, flat[numbers].astype(np.int16)


def brute_force(view, mines):
    """Every combination of `mines` unknown cells: (number of consistent layouts,
    per unknown cell how many of them put a mine there, the unknown cells)."""
    unknown, a, values = constraints(view)
    k = len(unknown)
    n = math.comb(k, mines) if mines <= k else 0
    assert n <= COMB_LIMIT, f"{n} combinations: too many for the plain brute force"
    if n == 0:
        return 0, [0] * k, unknown
    combos = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(k), mines)), np.int64, count=n * mines
    ).reshape(n, mines)
    counts = np.zeros((n, len(values)), np.int16)
    for j in range(mines):
        counts += a[combos[:, j]]
    ok = (counts == values).all(axis=1)
    mined = np.bincount(combos[ok].ravel(), minlength=k)
    return int(ok.sum()), [int(x) for x in mined], unknown


def brute_force_frontier(view, mines):
    """Same answer, for positions with many unknown cells: every mine pattern on the
    frontier (unknown cells next to a number), each weighted by the ways to place the
    remaining mines among the unconstrained cells (exact Python integers)."""
    unknown, a, values = constraints(view)
    k = len(unknown)
    front = np.flatnonzero(a.any(axis=1))
    inner = np.flatnonzero(~a.any(axis=1))
    nf, ni = len(front), len(inner)
    assert nf <= FRONTIER_LIMIT, f"{nf} frontier cells: too many for the frontier brute force"
    bits = ((np.arange(2**nf)[:, None] >> np.arange(nf)) & 1).astype(np.int16)
    counts = np.zeros((len(bits), len(values)), np.int16)
    for f in range(nf):
        counts += bits[:, f : f + 1] * a[front[f]]
    kept = bits[(counts == values).all(axis=1)].astype(np.int64)
    on_front = kept.sum(axis=1)
    total, mined, inner_mined = 0, [0] * k, 0
    for m_front in np.unique(on_front):
        rest = mines - int(m_front)
        if not 0 <= rest <= ni:
            continue
        group = kept[on_front == m_front]
        weight = math.comb(ni, rest)
        total += len(group) * weight
        for f, s in enumerate(group.sum(axis=0)):
            mined[front[f]] += int(s) * weight
        if rest:
            inner_mined += len(group) * math.comb(ni - 1, rest - 1)
    for i in inner:
        mined[i] = inner_mined
    return total, mined, unknown


def feasible(view, mines) -> str | None:
    """Which brute force does this position quickest (None: neither can): the plain one
    unless it is much slower than the frontier one."""
    unknown, a, _ = constraints(view)
    combos = math.comb(len(unknown), mines) if mines <= len(unknown) else 0
    patterns = 2 ** int(a.any(axis=1).sum())
    if combos <= COMB_LIMIT and (combos <= 20_000 or patterns > 2**FRONTIER_LIMIT or combos <= 4 * patterns):
        return "plain"
    if patterns <= 2**FRONTIER_LIMIT:
        return "frontier"
    return None


def reference(view, mines, how=None):
    """(probabilities float64 (NaN on revealed cells), exact Fractions by flat index,
    number of consistent layouts)."""
    how = how or feasible(view, mines)
    total, mined, unknown = (brute_force if how == "plain" else brute_force_frontier)(view, mines)
    assert total > 0, "the reference found no consistent layout"
    shape = np.shape(view)
    probs = np.full(shape[0] * shape[1], np.nan)
    exact = {}
    for i, m in zip(unknown, mined):
        exact[int(i)] = Fraction(m, total)
        probs[i] = float(exact[int(i)])
    return probs.reshape(shape), exact, total


def check_against_reference(view, mines, how=None):
    """solve() and mine_probabilities() against brute force: probabilities to 1e-12,
    safe/mine sets exactly, log_layouts to 1e-9, exactness flags."""
    view = np.asarray(view)
    want, fractions, total = reference(view, mines, how)
    sol = probability.solve(view, mines)
    got = sol.probabilities
    info = f"view={view.tolist()}, mines={mines}"
    assert got.shape == view.shape and got.dtype == np.float64, info
    revealed = view >= 0
    assert np.isnan(got[revealed]).all(), info
    unknown = ~revealed
    assert np.isfinite(got[unknown]).all(), info
    err = np.abs(got[unknown] - want[unknown])
    assert err.max(initial=0.0) <= 1e-12, f"{info}\nexpected {want.tolist()}\ngot {got.tolist()}"
    flat_safe = np.zeros(view.size, bool)
    flat_mine = np.zeros(view.size, bool)
    for i, p in fractions.items():
        flat_safe[i] = p == 0
        flat_mine[i] = p == 1
    np.testing.assert_array_equal(sol.safe, flat_safe.reshape(view.shape), err_msg=info)
    np.testing.assert_array_equal(sol.mine, flat_mine.reshape(view.shape), err_msg=info)
    assert sol.log_layouts == pytest.approx(math.log(total), abs=1e-9), info
    assert sol.exact and sol.fallbacks == 0, info
    np.testing.assert_array_equal(ml.mine_probabilities(view, mines), got, err_msg=info)
    return sol


# ----------------------------------------------------------------------------- positions from real games
def true_mines(game) -> np.ndarray:
    """The hidden layout (tests only: the game is in progress)."""
    return game._gs.mine.reshape(game.level.rows, game.level.cols).astype(bool)


def pick(rng, mask):
    cells = np.argwhere(mask)
    r, c = cells[rng.integers(len(cells))]
    return int(r), int(c)


def next_to_revealed(view):
    known = np.pad(view >= 0, 1)
    rows, cols = view.shape
    near = np.zeros(view.shape, bool)
    for dr, dc in NEIGHBOURS:
        near |= known[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
    return near


def game_positions(level, seed, snap=0.25, endgame_snap=0.7):
    """Deal `level` with `seed` and play it without ever losing: mostly reveal a truly
    safe cell (half the time one next to the revealed area), sometimes flag a true mine,
    rarely flag a safe cell (a wrong belief) or unflag. Returns the views snapshotted
    along the way (each with probability `snap`, `endgame_snap` once at most three
    safe cells remain covered) and at the end (a won board only now and then), as
    (view, mines) pairs, and the hidden layout."""
    level = Level.parse(level)
    rng = np.random.default_rng([seed, 2024])
    game = ml.Game(level, seed=seed)
    out = []
    if rng.random() < 0.05:
        out.append(game.view)  # before the first click: every cell covered
    if level.first_click == "none":
        game.reveal(*pick(rng, ~true_mines(game)))
    else:
        game.reveal(int(rng.integers(level.rows)), int(rng.integers(level.cols)))
    layout = true_mines(game)
    while not game.over:
        view = game.view
        covered = view == COVERED
        safe_left = covered & ~layout
        if not safe_left.any():
            break  # only wrongly flagged safe cells stay hidden
        if rng.random() < (endgame_snap if safe_left.sum() <= 3 else snap):
            out.append(view)
        u = rng.random()
        if u < 0.10 and (covered & layout).any():
            game.flag(*pick(rng, covered & layout))
        elif u < 0.13:
            game.flag(*pick(rng, safe_left))
        elif u < 0.16 and (view == FLAGGED).any():
            game.unflag(*pick(rng, view == FLAGGED))
        else:
            near = safe_left & next_to_revealed(view)
            game.reveal(*pick(rng, near if near.any() and rng.random() < 0.5 else safe_left))
    if not game.won or rng.random() < 0.25:  # a won board (every mine covered) is a dull position
        out.append(game.view)
    assert not game.lost
    return [(v, level.mines) for v in out], layout


def play_safely(level, seed, moves, near=0.8):
    """An engine game after `moves` safe reveals (mostly next to the revealed area, as a
    player works a frontier), with the hidden layout."""
    rng = np.random.default_rng([seed, 99])
    game = ml.Game(level, seed=seed)
    game.reveal(game.level.rows // 2, game.level.cols // 2)
    layout = true_mines(game)
    for _ in range(moves):
        if game.over:
            break
        view = game.view
        safe_left = (view == COVERED) & ~layout
        frontier = safe_left & next_to_revealed(view)
        game.reveal(*pick(rng, frontier if frontier.any() and rng.random() < near else safe_left))
    return game, layout


def assert_sound(sol, view, mines, layout):
    """What any exact answer must satisfy, whatever the position's size."""
    p = sol.probabilities
    unknown = view < 0
    assert np.isnan(p[~unknown]).all()
    assert np.all((p[unknown] >= 0) & (p[unknown] <= 1))
    assert p[unknown].sum() == pytest.approx(mines, abs=1e-9)  # sum of marginals = E[mines] = mines
    np.testing.assert_array_equal(sol.safe, unknown & (p == 0))
    np.testing.assert_array_equal(sol.mine, unknown & (p == 1))
    assert not (sol.safe & layout).any(), "a cell called safe holds a mine"
    assert not (sol.mine & ~layout).any(), "a cell called a mine is safe"


# ----------------------------------------------------------------------------- the brute force itself
def test_brute_force_on_hand_cases():
    # 1-2-1 against a wall: one layout, the outer cells mines
    total, mined, unknown = brute_force([[C, C, C], [1, 2, 1]], 2)
    assert (total, mined, unknown.tolist()) == (1, [1, 0, 1], [0, 1, 2])
    # a forced 50/50 and a free cell: mines=1 leaves nothing for the free cell
    total, mined, _ = brute_force([[C, 1, C, C]], 1)  # (0,3) is not next to the 1
    assert (total, mined) == (2, [1, 1, 0])
    assert brute_force([[1, 1], [C, C]], 1)[0] == 2
    assert brute_force([[1, 0], [C, C]], 1)[0] == 0  # the 0 clears both cells the 1 needs
    # a revealed number with no unknown neighbour must be 0
    assert brute_force([[0, 1], [0, 0]], 0)[0] == 0
    assert brute_force([[0, 0], [0, 0]], 0)[0] == 1
    assert brute_force([[C, C], [C, C]], 2)[:2] == (6, [3, 3, 3, 3])


def test_brute_forces_agree():
    """The plain and the frontier brute force give the same exact counts."""
    seen = 0
    for seed in range(60):
        for view, mines in game_positions(SMALL_LEVELS[seed % len(SMALL_LEVELS)], seed)[0]:
            unknown, a, _ = constraints(view)
            if math.comb(len(unknown), mines) > 20_000 or a.any(axis=1).sum() > 12:
                continue
            plain = brute_force(view, mines)
            front = brute_force_frontier(view, mines)
            assert plain[:2] == front[:2], (view.tolist(), mines)
            seen += 1
    assert seen > 100


# ----------------------------------------------------------------------------- agreement with brute force
def test_generated_positions_deterministic():
    """~2000 positions from real games on small boards, fixed seeds."""
    checked = plain = endgame = flagged = 0
    seed = 0
    while checked < 2000:
        level = SMALL_LEVELS[seed % len(SMALL_LEVELS)]
        for view, mines in game_positions(level, seed)[0]:
            how = feasible(view, mines)
            if how is None:
                continue
            check_against_reference(view, mines, how)
            checked += 1
            plain += how == "plain"
            unknown = int((view < 0).sum())
            endgame += unknown - mines <= 3
            flagged += bool((view == FLAGGED).any())
        seed += 1
    # the mix the positions are meant to have
    assert plain > 1000 and checked - plain > 100
    assert endgame > 300 and flagged > 150


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), level=st.sampled_from(SMALL_LEVELS), snap=st.sampled_from((0.1, 0.5, 1.0)))
def test_generated_positions_property(seed, level, snap):
    for view, mines in game_positions(level, seed, snap=snap)[0]:
        if feasible(view, mines):
            check_against_reference(view, mines)


# ----------------------------------------------------------------------------- beyond brute force
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    level=st.sampled_from(("8x8x10", "9x9x10", "8x8x10:none", "10x12x25", "6x20x20")),
)
def test_bigger_positions_sound_and_symmetric(seed, level):
    """Beyond brute force: probabilities sum to the mine count, a certain cell is never
    wrong about the hidden layout, and mirroring the board mirrors the answer."""
    rng = np.random.default_rng(seed)
    positions, layout = game_positions(level, seed, snap=0.2)
    for view, mines in positions[:: max(1, len(positions) // 4)]:
        sol = probability.solve(view, mines)
        assert sol.exact and sol.fallbacks == 0
        assert_sound(sol, view, mines, layout)
        flip = (np.fliplr, np.flipud, np.transpose)[int(rng.integers(3))]
        mirrored = probability.solve(np.ascontiguousarray(flip(view)), mines)
        np.testing.assert_allclose(mirrored.probabilities, flip(sol.probabilities), atol=1e-12, rtol=0)
        assert mirrored.log_layouts == pytest.approx(sol.log_layouts, abs=1e-9)


# ----------------------------------------------------------------------------- scripted positions
def solve_checked(view, mines):
    """solve() on a hand-built int8 view, also checked against brute force."""
    view = np.array(view, dtype=np.int8)
    if feasible(view, mines):
        return check_against_reference(view, mines)
    return probability.solve(view, mines)


def assert_probs(sol, expected):
    want = np.array([[np.nan if x is None else float(x) for x in row] for row in expected])
    np.testing.assert_allclose(sol.probabilities, want, atol=1e-12, rtol=0)


N = None  # a revealed cell in expected probabilities


def test_certain_mine_and_certain_safe():
    sol = solve_checked([[C, 1, 0]], 1)  # a 1 with one covered neighbour
    assert_probs(sol, [[1, N, N]])
    assert sol.mine.tolist() == [[True, False, False]] and not sol.safe.any()
    assert sol.log_layouts == 0.0
    sol = solve_checked([[C, C, C], [1, 1, 0]], 1)  # the 0 clears two cells, the 1 finds the third
    assert_probs(sol, [[1, 0, 0], [N, N, N]])
    assert sol.safe.tolist() == [[False, True, True], [False] * 3]
    assert sol.mine.tolist() == [[True, False, False], [False] * 3]


def test_one_two_one():
    sol = solve_checked([[C, C, C], [1, 2, 1]], 2)
    assert_probs(sol, [[1, 0, 1], [N, N, N]])
    sol = solve_checked([[C, C, C, C, C], [1, 1, 2, 1, 1]], 2)
    assert_probs(sol, [[0, 1, 0, 1, 0], [N] * 5])
    assert sol.safe[0].tolist() == [True, False, True, False, True]
    assert sol.log_layouts == 0.0


def test_forced_fifty_fifty():
    sol = solve_checked([[C, C], [1, 1]], 1)
    assert_probs(sol, [[0.5, 0.5], [N, N]])
    assert not sol.safe.any() and not sol.mine.any()
    assert sol.log_layouts == pytest.approx(math.log(2), abs=1e-12)


@pytest.mark.parametrize(
    "mines, expected, layouts",
    [
        # a + b = 1, b + c = 1 (b at index 2), two free cells d, e at the right
        (1, [0, N, 1, N, 0, 0, 0], 1),  # no mine left for the free cells: all safe
        (2, [Fraction(1, 3), N, Fraction(2, 3), N, Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)], 3),
        (3, [Fraction(2, 3), N, Fraction(1, 3), N, Fraction(2, 3), Fraction(2, 3), Fraction(2, 3)], 3),
        (4, [1, N, 0, N, 1, 1, 1], 1),  # the free cells must take every mine left
    ],
)
def test_global_mine_count_decides(mines, expected, layouts):
    sol = solve_checked([[C, 1, C, 1, C, C, C]], mines)
    assert_probs(sol, [expected])
    assert sol.log_layouts == pytest.approx(math.log(layouts), abs=1e-12)


def two_islands():
    """3x9, all covered but two pairs of revealed 1s: (1,1)-(1,2) and (1,5)-(1,6).
    Each pair sees 4 shared cells and 3 + 3 cells of its own: one mine among the shared
    (4 ways) or one in each own side (9 ways). Column 8 is unconstrained (3 cells)."""
    view = np.full((3, 9), C, np.int8)
    for r, c in ((1, 1), (1, 2), (1, 5), (1, 6)):
        view[r, c] = 1
    return view


@pytest.mark.parametrize("mines", range(2, 8))
def test_two_regions_compete_for_the_mine_count(mines):
    view = two_islands()
    ways = {1: 4, 2: 9}  # one island's layouts by its number of mines
    free = 3

    def rest(k, cells=free):
        return math.comb(cells, k) if 0 <= k <= cells else 0

    total = sum(ways[k1] * ways[k2] * rest(mines - k1 - k2) for k1 in ways for k2 in ways)
    shared = Fraction(sum(ways[k] * rest(mines - 1 - k) for k in ways), total)
    own = Fraction(sum(3 * ways[k] * rest(mines - 2 - k) for k in ways), total)
    inner = Fraction(sum(ways[k1] * ways[k2] * rest(mines - k1 - k2 - 1, free - 1) for k1 in ways for k2 in ways),
                     total)
    island = [[own, shared, shared, own], [own, N, N, own], [own, shared, shared, own]]
    expected = [island[r] + island[r] + [inner] for r in range(3)]
    sol = solve_checked(view, mines)
    assert_probs(sol, expected)
    assert sol.log_layouts == pytest.approx(math.log(total), abs=1e-9)
    assert sol.probabilities[view < 0].sum() == pytest.approx(mines, abs=1e-12)
    if mines == 2:  # both islands take one shared mine: the own sides and column 8 are safe
        assert sol.safe.sum() == 12 + 3 and shared == Fraction(1, 4)
    if mines == 7:  # both islands take two, and column 8 is full
        assert sol.safe.sum() == 8 and sol.mine[:, 8].all()


@pytest.mark.parametrize("mines", [0, 1, 7, 19, 20])
def test_all_covered_board(mines):
    view = np.full((4, 5), C, np.int8)
    sol = solve_checked(view, mines)
    np.testing.assert_allclose(sol.probabilities, np.full((4, 5), mines / 20), atol=1e-12, rtol=0)
    assert sol.log_layouts == pytest.approx(math.log(math.comb(20, mines)), abs=1e-9)
    assert sol.safe.all() == (mines == 0) and sol.mine.all() == (mines == 20)
    assert not sol.safe.any() or mines == 0


def test_all_covered_big_board():
    sol = probability.solve(np.full((16, 30), C, np.int8), 99)
    np.testing.assert_allclose(sol.probabilities, np.full((16, 30), 99 / 480), atol=1e-12, rtol=0)
    assert sol.log_layouts == pytest.approx(math.lgamma(481) - math.lgamma(100) - math.lgamma(382), abs=1e-9)
    assert sol.exact


def test_single_cell_and_fully_revealed_boards():
    assert_probs(solve_checked([[C]], 1), [[1]])
    assert_probs(solve_checked([[C]], 0), [[0]])
    sol = probability.solve(np.zeros((2, 3), np.int8), 0)
    assert np.isnan(sol.probabilities).all() and sol.probabilities.shape == (2, 3)
    assert not sol.safe.any() and not sol.mine.any()
    assert sol.log_layouts == 0.0 and sol.exact


def test_flags_are_treated_as_covered():
    covered = probability.solve(np.array([[C, C, C], [1, 2, 1]], np.int8), 2)
    for view in ([[C, F, C], [1, 2, 1]], [[F, C, F], [1, 2, 1]], [[F, F, F], [1, 2, 1]]):
        sol = solve_checked(view, 2)
        np.testing.assert_array_equal(sol.probabilities, covered.probabilities)
        np.testing.assert_array_equal(sol.safe, covered.safe)  # a flagged safe cell stays safe
        np.testing.assert_array_equal(sol.mine, covered.mine)
    # a wrong flag (on a certainly safe cell) counts for nothing
    sol = solve_checked([[F, C, C], [0, 1, C]], 1)
    assert sol.probabilities[0, 0] == 0 and sol.safe[0, 0]
    # a flagged board: each flag is just a covered cell
    sol = solve_checked(np.full((3, 3), F, np.int8), 4)
    np.testing.assert_allclose(sol.probabilities, np.full((3, 3), 4 / 9), atol=1e-12, rtol=0)


# ----------------------------------------------------------------------------- input handling
GOOD = np.array([[C, C], [1, 1]], np.int8)


@pytest.mark.parametrize(
    "view",
    [
        pytest.param(np.array([C, C, 1], np.int8), id="1-d"),
        pytest.param(np.full((2, 2, 2), C, np.int8), id="3-d"),
        pytest.param(np.array(C, np.int8), id="0-d"),
        pytest.param(np.zeros((0, 0), np.int8), id="empty"),
        pytest.param(np.zeros((0, 3), np.int8), id="no-rows"),
        pytest.param(np.zeros((3, 0), np.int8), id="no-cols"),
        pytest.param(GOOD.astype(np.float64), id="float"),
        pytest.param(np.array([[True, False]]), id="bool"),
        pytest.param(GOOD.astype(object), id="object"),
        pytest.param(np.array([[C, 9], [C, 1]], np.int8), id="nine"),
        pytest.param(np.array([[C, MINE], [1, 1]], np.int8), id="mine-after-loss"),
        pytest.param(np.array([[C, -4], [1, 1]], np.int8), id="minus-four"),
        pytest.param(np.array([[C, 300], [1, 1]], np.int16), id="big"),
    ],
)
def test_bad_view(view):
    with pytest.raises(ValueError, match="view"):
        probability.solve(view, 1)
    with pytest.raises(ValueError, match="view"):
        probability.mine_probabilities(view, 1)


@pytest.mark.parametrize("mines", [1.0, "1", None, True, -1, 3, 10**6])
def test_bad_mines(mines):
    with pytest.raises(ValueError, match="mines"):
        probability.solve(GOOD, mines)
    with pytest.raises(ValueError, match="mines"):
        probability.mine_probabilities(GOOD, mines)


@pytest.mark.parametrize(
    "view, mines",
    [
        pytest.param([[3, C], [C, 1]], 2, id="3-with-two-covered"),
        pytest.param([[1, 0]], 0, id="1-with-none-covered"),
        pytest.param([[C, 1, 1, C]], 1, id="needs-two-has-one"),
        pytest.param([[C, C], [1, 1]], 0, id="needs-one-has-none"),
        pytest.param([[C, 0]], 1, id="no-room-for-the-mine"),
        pytest.param([[C, C, C], [1, 3, 1]], 3, id="contradicting-numbers"),
        pytest.param([[C, 1, C, 1, C, C, C]], 5, id="too-many-mines-for-the-free-cells"),
        pytest.param([[C, 1, C, 1, C, C, C]], 0, id="too-few"),
    ],
)
def test_inconsistent_positions(view, mines):
    view = np.array(view, np.int8)
    assert brute_force(view, mines)[0] == 0
    with pytest.raises(ValueError, match="(?i)inconsistent"):
        probability.solve(view, mines)
    with pytest.raises(ValueError, match="(?i)inconsistent"):
        probability.mine_probabilities(view, mines)


def test_accepts_every_integer_dtype_and_numpy_ints():
    view = np.array([[C, 1, C, 1, C, C, C], [C, 1, 1, 1, C, C, F]], np.int8)
    want = probability.solve(view, 3)
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        for mines in (3, np.int64(3), np.int32(3)):
            got = probability.solve(view.astype(dtype), mines)
            np.testing.assert_array_equal(got.probabilities, want.probabilities)
            assert got.log_layouts == want.log_layouts
    # strided and Fortran-ordered views too
    wide = np.zeros((2, 14), np.int8)
    wide[:, ::2] = view
    np.testing.assert_array_equal(probability.solve(wide[:, ::2], 3).probabilities, want.probabilities)
    np.testing.assert_array_equal(probability.solve(np.asfortranarray(view), 3).probabilities, want.probabilities)


def test_input_not_modified_and_read_only_game_view():
    view = np.array([[C, F, C], [1, 2, 1]], np.int8)
    before = view.copy()
    probability.solve(view, 2)
    probability.mine_probabilities(view, 2)
    np.testing.assert_array_equal(view, before)
    assert view.flags.writeable
    game = ml.Game("6x6x6", seed=5)
    game.reveal(3, 3)
    assert not game.view.flags.writeable
    sol = probability.solve(game.view, 6)
    check_against_reference(game.view, 6)
    assert sol.probabilities.flags.writeable  # a fresh array the caller owns


# ----------------------------------------------------------------------------- bigger positions
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_expert_game_in_progress(seed):
    game, layout = play_safely("expert", seed, moves=40)
    view = game.view
    assert (view >= 0).sum() > 40
    sol = probability.solve(view, 99)
    assert sol.exact and sol.fallbacks == 0
    assert_sound(sol, view, 99, layout)
    assert np.isfinite(sol.log_layouts) and sol.log_layouts > 0


def position_from_layout(layout, revealed):
    """The view of a layout with the `revealed` cells (never mines) showing their counts."""
    rows, cols = layout.shape
    assert not (layout & revealed).any()
    padded = np.pad(layout.astype(np.int8), 1)
    counts = sum(padded[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols] for dr, dc in NEIGHBOURS)
    return np.where(revealed, counts, C).astype(np.int8), int(layout.sum())


def checkerboard_position(size=40, band=24, density=0.3, seed=0):
    """Rows < band: the cells with r + c even revealed, the others covered (one long
    frontier region, as many numbers as unknown cells, so few layouts); rows below covered."""
    rng = np.random.default_rng(seed)
    r, c = np.indices((size, size))
    revealed = (r < band) & ((r + c) % 2 == 0)
    layout = (rng.random((size, size)) < density) & ~revealed
    return (*position_from_layout(layout, revealed), layout)


def lattice_position(size=40, band=24, density=0.2, seed=0):
    """Rows < band: one revealed cell at every (even, even), all else covered: one frontier
    region where each number sees 8 cells and unknown cells outnumber numbers 3 to 1, so
    the layouts are astronomically many and no search can list them."""
    rng = np.random.default_rng(seed)
    r, c = np.indices((size, size))
    revealed = (r < band) & (r % 2 == 0) & (c % 2 == 0)
    layout = (rng.random((size, size)) < density) & ~revealed
    return (*position_from_layout(layout, revealed), layout)


def assert_sane_estimate(sol, view, layout):
    """What a fallback answer must still satisfy."""
    p = sol.probabilities
    unknown = view < 0
    assert p.shape == view.shape and p.dtype == np.float64
    assert np.isnan(p[~unknown]).all()
    assert np.isfinite(p[unknown]).all() and np.all((p[unknown] >= 0) & (p[unknown] <= 1))
    assert not (sol.safe & layout).any(), "a cell called safe holds a mine"
    assert not (sol.mine & ~layout).any(), "a cell called a mine is safe"


@pytest.mark.parametrize("seed", [0, 1])
def test_large_checkerboard_frontier_is_exact(seed):
    view, mines, layout = checkerboard_position(seed=seed)
    sol = probability.solve(view, mines)
    assert sol.exact and sol.fallbacks == 0
    assert_sound(sol, view, mines, layout)


def test_pathological_frontier_falls_back_promptly():
    probability.solve(np.array([[C, C], [1, 1]], np.int8), 1)  # compiled before the clock starts
    view, mines, layout = lattice_position()
    for max_work in (1000, probability.DEFAULT_MAX_WORK):
        start = time.perf_counter()
        sol = probability.solve(view, mines, max_work=max_work)
        elapsed = time.perf_counter() - start
        assert elapsed < 10, f"{elapsed:.1f} s under max_work={max_work}"
        assert not sol.exact and sol.fallbacks >= 1
        assert_sane_estimate(sol, view, layout)


@pytest.mark.parametrize(
    "size, density, seed, max_work",
    [
        (6, 0.1, 7, 10),  # every unknown cell is on the frontier: the fallback's count must match `mines`
        (8, 0.2, 2, 100),
        (8, 0.3, 2, 1000),
        (12, 0.3, 3, None),  # the default bound (~7e7 nodes needed for the exact answer)
        (14, 0.3, 0, None),
    ],
)
def test_work_bound_never_makes_a_consistent_position_inconsistent(size, density, seed, max_work):
    """Positions built from a real layout are consistent: hitting the work bound must give
    a fallback estimate (exact False), never "inconsistent"."""
    view, mines, layout = lattice_position(size, size, density, seed)
    kwargs = {} if max_work is None else {"max_work": max_work}
    sol = probability.solve(view, mines, **kwargs)
    assert sol.exact == (sol.fallbacks == 0)
    assert_sane_estimate(sol, view, layout)
    if sol.exact:
        assert_sound(sol, view, mines, layout)


def test_work_bound_sweep():
    """Small lattices under tiny bounds: exact, or a sane fallback, never an error."""
    for seed in range(12):
        for density in (0.1, 0.2, 0.3):
            view, mines, layout = lattice_position(8, 6, density, seed)  # rows 6, 7: unconstrained
            for max_work in (10, 100):
                sol = probability.solve(view, mines, max_work=max_work)
                assert sol.exact == (sol.fallbacks == 0)
                assert_sane_estimate(sol, view, layout)
                if sol.exact:
                    assert_sound(sol, view, mines, layout)


# ----------------------------------------------------------------------------- exact layout sampling
def consistent_layouts(view, mines):
    """Every layout (a tuple of unknown flat cells holding mines) that agrees with the view."""
    unknown, a, values = constraints(view)
    return [tuple(int(unknown[k]) for k in combo) for combo in itertools.combinations(range(len(unknown)), mines)
            if (a[list(combo)].sum(axis=0) == values).all()]


def test_sampled_layouts_are_uniform_over_the_consistent_ones():
    """Chi-squared against brute-force enumeration on real positions (several components,
    untouched cells, flags): every draw consistent, frequencies uniform."""
    from scipy.stats import chisquare

    tested, pvalues = 0, []
    for seed in range(200):
        level = SMALL_LEVELS[seed % len(SMALL_LEVELS)]
        for view, mines in game_positions(level, seed)[0]:
            unknown = int(((view == COVERED) | (view == FLAGGED)).sum())
            if math.comb(unknown, mines) > 20_000:
                continue
            layouts = consistent_layouts(view, mines)
            if not 4 <= len(layouts) <= 200:
                continue
            index = {lay: i for i, lay in enumerate(layouts)}
            draws = probability.sample_layouts(view, mines, 60 * len(layouts), seed=seed)
            counts = np.zeros(len(layouts))
            for d in draws.reshape(len(draws), -1):
                lay = tuple(int(i) for i in np.flatnonzero(d))
                assert lay in index, f"a sampled layout disagrees with the view {view.tolist()}"
                counts[index[lay]] += 1
            pvalues.append(chisquare(counts).pvalue)
            tested += 1
            break
        if tested >= 25:
            break
    assert tested >= 25
    assert min(pvalues) > 1e-4, sorted(pvalues)[:3]
    # the p-values of a uniform sampler are uniform: no pile-up near 0 across positions
    from scipy.stats import kstest

    assert kstest(pvalues, "uniform").pvalue > 1e-3


def test_sampling_is_reproducible_and_checks_its_input():
    view = np.full((4, 4), COVERED)
    view[0, 0] = 1
    a = probability.sample_layouts(view, 3, 50, seed=3)
    assert a.shape == (50, 4, 4) and (a.sum(axis=(1, 2)) == 3).all() and not a[:, 0, 0].any()
    np.testing.assert_array_equal(a, probability.sample_layouts(view, 3, 50, seed=3))
    with pytest.raises(ValueError, match="n must be"):
        probability.sample_layouts(view, 3, -1)
    with pytest.raises(ValueError, match="inconsistent"):
        probability.sample_layouts(np.array([[1, 1], [0, COVERED]]), 1, 5)


def test_a_read_only_view_does_not_compile_the_solver_again():
    """`solve` / `sample_layouts` on `Game.view` (read-only) hand the kernels a writeable
    copy: a read-only array is another numba type, and the whole exact solver would
    compile again for it."""
    from minelab.probability import _sample_many, solve_fields

    game = ml.Game("8x8x10", seed=2)
    game.reveal(0, 0)
    assert not game.view.flags.writeable
    ml.probability.solve(game.view, 10)
    ml.probability.sample_layouts(game.view, 10, 3, seed=1)
    for kernel in (solve_fields, _sample_many):
        assert kernel.signatures and all(sig[1].mutable for sig in kernel.signatures), kernel.signatures


@njit(cache=True)
def _recount_and_solve(ws, out, full, view, mines, nbr, nbr_count, cells, k):
    """After a solve of `view` in ws: (recount code, its log layouts, solve code, its log
    layouts) for `cells[:k]` added as mines, the solve's in `full`."""
    a = probability.recount_with_mines(ws, out, cells, k, probability.DEFAULT_MAX_WORK)
    known = np.zeros(view.shape[0], np.uint8)
    for t in range(k):
        known[cells[t]] = 1
    b = probability.solve_kernel(full, view, known, mines, nbr, nbr_count, probability.DEFAULT_MAX_WORK)
    return a, out.stats[0], b, full.stats[0]


def test_recount_with_mines_equals_a_solve_with_them_known():
    """`recount_with_mines` (only the components holding the added mines searched again)
    gives what solving with those cells added to the known mines gives, the same count and
    the same INCONSISTENT, on positions of real games, and leaves the solve it starts
    from as it was; it declines (NOT_RECOUNTED) only where a solve fell back to an estimate."""
    from minelab.engine import _tables

    rng = np.random.default_rng(5)
    tally = {probability.OK: 0, probability.INCONSISTENT: 0}
    for level, seeds in (("8x8x10", range(40)), ("16x30x99", range(8))):
        lv = Level.parse(level)
        nbr, nbr_count = _tables(lv.rows, lv.cols)
        ws, out, full = (probability.new_workspace(lv.cells, lv.mines) for _ in range(3))
        for seed in seeds:
            for view, mines in game_positions(level, seed)[0]:
                covered = view < 0
                near = np.flatnonzero((covered & next_to_revealed(view)).ravel())
                pool = near if len(near) and rng.random() < 0.7 else np.flatnonzero(covered.ravel())
                k = int(rng.integers(1, min(5, len(pool)) + 1))
                cells = rng.choice(pool, size=k, replace=False).astype(np.int64)
                flat = view.ravel().astype(np.int8)
                probability.solve_fields(tuple(ws), flat, np.zeros(lv.cells, np.uint8), mines, nbr, nbr_count,
                                         probability.DEFAULT_MAX_WORK)
                before = [arr.copy() for arr in ws]
                a, log_a, b, log_b = _recount_and_solve(ws, out, full, flat, mines, nbr, nbr_count, cells, k)
                for x, y in zip(before, ws):
                    np.testing.assert_array_equal(x, y, err_msg="the recount changed the solve it starts from")
                if a == probability.NOT_RECOUNTED:
                    fallbacks = ws.stats[probability.STAT_FALLBACKS] + full.stats[probability.STAT_FALLBACKS]
                    assert fallbacks > 0, (level, seed, cells)
                    continue
                assert a == b, (level, seed, cells)
                if a == probability.OK:
                    assert log_a == pytest.approx(log_b, abs=1e-9)
                tally[a] += 1
    assert tally[probability.OK] >= 100 and tally[probability.INCONSISTENT] >= 20, tally
