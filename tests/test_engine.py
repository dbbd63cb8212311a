"""minelab.engine: golden playthroughs on scripted boards, illegal moves, properties of
random play under every first-click rule, determinism of dealing."""
from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from minelab.cells import COVERED, FLAG, FLAGGED, LOST, MINE, ONGOING, REVEAL, UNFLAG, WON
from minelab.engine import Game, IllegalMove, Move, board_text, run_streams
from minelab.levels import Level

C, F, M = COVERED, FLAGGED, MINE

PROPERTY = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- helpers
def true_counts(layout) -> np.ndarray:
    """Neighbour mine counts, computed independently of the engine (pad + 8 shifts)."""
    layout = np.asarray(layout, dtype=np.int64)
    rows, cols = layout.shape
    p = np.pad(layout, 1)
    total = np.zeros_like(layout)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr or dc:
                total += p[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
    return total


def window(a, r, c):
    """The (up to) 3x3 block of `a` around (r, c), clipped at the edges."""
    return a[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2]


def max_mines(rows, cols, rule):
    cells = rows * cols
    return {"none": cells, "safe": cells - 1, "opening": cells - min(3, rows) * min(3, cols)}[rule]


@st.composite
def level_specs(draw, max_side=12):
    rows = draw(st.integers(1, max_side))
    cols = draw(st.integers(1, max_side))
    rule = draw(st.sampled_from(("none", "safe", "opening")))
    mines = draw(st.integers(0, max_mines(rows, cols, rule)))
    return Level(rows, cols, mines, rule)


def assert_view(game, expected):
    view = game.view
    assert view.dtype == np.int8
    assert view.shape == (game.level.rows, game.level.cols)
    np.testing.assert_array_equal(view, np.array(expected, dtype=np.int8))


# ----------------------------------------------------------------------------- golden boards
# 4 x 5, 3 mines. True counts (* = mine):
#   0 0 0 1 1
#   0 0 1 2 *
#   1 1 1 * 2
#   * 1 1 1 1
LAYOUT = [
    [0, 0, 0, 0, 0],
    [0, 0, 0, 0, 1],
    [0, 0, 0, 1, 0],
    [1, 0, 0, 0, 0],
]
COUNTS = [
    [0, 0, 0, 1, 1],
    [0, 0, 1, 2, 1],
    [1, 1, 1, 1, 2],
    [0, 1, 1, 1, 1],
]
AFTER_CORNER = [  # reveal(0, 0): the zero region and its border, 11 cells
    [0, 0, 0, 1, C],
    [0, 0, 1, 2, C],
    [1, 1, 1, C, C],
    [C, C, C, C, C],
]
AFTER_CORNER_TEXT = "...1#\n..12#\n111##\n#####"


def test_layout_counts_helper():
    np.testing.assert_array_equal(true_counts(LAYOUT), COUNTS)


def test_golden_scripted_board_starts_covered():
    g = Game.from_mines(LAYOUT)
    assert g.level == Level(4, 5, 3, "none")
    assert g.dealt and g.status == ONGOING and not g.over
    assert (g.revealed, g.flags, g.moves) == (0, 0, [])
    assert_view(g, [[C] * 5] * 4)


def test_golden_win():
    g = Game.from_mines(LAYOUT)

    assert g.reveal(0, 0) == 11  # corner click floods the zero region
    assert_view(g, AFTER_CORNER)
    assert g.revealed == 11 and g.status == ONGOING

    assert g.reveal(3, 2) == 1  # a number: only that cell
    v2 = [
        [0, 0, 0, 1, C],
        [0, 0, 1, 2, C],
        [1, 1, 1, C, C],
        [C, C, 1, C, C],
    ]
    assert_view(g, v2)
    assert g.revealed == 12

    g.flag(1, 4)
    v3 = [
        [0, 0, 0, 1, C],
        [0, 0, 1, 2, F],
        [1, 1, 1, C, C],
        [C, C, 1, C, C],
    ]
    assert_view(g, v3)
    assert g.flags == 1

    g.unflag(1, 4)
    assert_view(g, v2)
    assert g.flags == 0

    g.flag(1, 4)
    assert_view(g, v3)

    for r, c, value in [(0, 4, 1), (2, 4, 2), (3, 1, 1), (3, 3, 1)]:
        assert g.reveal(r, c) == 1
        assert g.view[r, c] == value
        assert g.status == ONGOING
    assert g.revealed == 16

    assert g.reveal(3, 4) == 1  # the last safe cell
    assert g.status == WON and g.won and g.over and not g.lost
    assert g.revealed == 17
    assert_view(
        g,
        [
            [0, 0, 0, 1, 1],
            [0, 0, 1, 2, F],
            [1, 1, 1, C, 2],
            [C, 1, 1, 1, 1],
        ],
    )  # a win shows no mines: the unflagged ones stay covered
    np.testing.assert_array_equal(g.mines_after_game(), np.array(LAYOUT, bool))
    assert g.mines_after_game().dtype == bool
    assert g.moves == [
        Move(REVEAL, 0, 0),
        Move(REVEAL, 3, 2),
        Move(FLAG, 1, 4),
        Move(UNFLAG, 1, 4),
        Move(FLAG, 1, 4),
        Move(REVEAL, 0, 4),
        Move(REVEAL, 2, 4),
        Move(REVEAL, 3, 1),
        Move(REVEAL, 3, 3),
        Move(REVEAL, 3, 4),
    ]


def test_golden_loss_shows_every_mine():
    g = Game.from_mines(LAYOUT)
    g.reveal(0, 0)
    g.flag(1, 4)  # right flag: on a mine
    g.flag(3, 3)  # wrong flag: on a safe cell
    assert g.reveal(2, 3) == -1
    assert g.status == LOST and g.lost and g.over and not g.won
    lost_view = [
        [0, 0, 0, 1, C],
        [0, 0, 1, 2, M],  # the flag on a mine shows MINE
        [1, 1, 1, M, C],
        [M, C, C, F, C],  # the wrong flag stays a flag
    ]
    assert_view(g, lost_view)
    assert g.revealed == 11
    assert board_text(g.view) == "...1#\n..12*\n111*#\n*##F#"
    np.testing.assert_array_equal(g.mines_after_game(), np.array(LAYOUT, bool))


def test_golden_loss_on_first_click():
    g = Game.from_mines(LAYOUT)
    assert g.reveal(3, 0) == -1
    assert g.lost
    assert_view(
        g,
        [
            [C, C, C, C, C],
            [C, C, C, C, M],
            [C, C, C, M, C],
            [M, C, C, C, C],
        ],
    )
    assert g.revealed == 0


def test_golden_no_flood_reveals_one_cell_per_click():
    g = Game.from_mines(LAYOUT, flood=False)
    assert g.reveal(0, 0) == 1
    assert_view(
        g,
        [
            [0, C, C, C, C],
            [C, C, C, C, C],
            [C, C, C, C, C],
            [C, C, C, C, C],
        ],
    )
    assert g.reveal(1, 1) == 1
    assert_view(
        g,
        [
            [0, C, C, C, C],
            [C, 0, C, C, C],
            [C, C, C, C, C],
            [C, C, C, C, C],
        ],
    )
    safe = [(r, c) for r in range(4) for c in range(5) if not LAYOUT[r][c] and (r, c) not in {(0, 0), (1, 1)}]
    for k, (r, c) in enumerate(safe):
        assert g.status == ONGOING
        assert g.reveal(r, c) == 1
        assert g.revealed == 3 + k
    assert g.won
    expected = np.array(COUNTS)
    expected[np.array(LAYOUT, bool)] = C
    assert_view(g, expected)


def test_golden_flood_does_not_open_flags():
    g = Game.from_mines(LAYOUT)
    g.flag(1, 1)  # a safe zero in the middle of the region
    assert g.reveal(0, 0) == 9
    assert_view(
        g,
        [
            [0, 0, 0, 1, C],
            [0, F, 1, 2, C],
            [1, 1, C, C, C],  # (2, 2) is reached only through the flagged zero
            [C, C, C, C, C],
        ],
    )
    assert g.flags == 1
    g.unflag(1, 1)
    assert g.reveal(1, 1) == 2  # the zero floods on to (2, 2)
    assert_view(g, AFTER_CORNER)
    assert g.revealed == 11


def test_golden_flood_skips_flag_on_border_number():
    g = Game.from_mines(LAYOUT)
    g.flag(2, 0)  # a '1' on the border of the zero region
    assert g.reveal(0, 0) == 10
    expected = np.array(AFTER_CORNER)
    expected[2, 0] = F
    assert_view(g, expected)


def test_board_text_golden():
    g = Game.from_mines(LAYOUT)
    g.reveal(0, 0)
    assert board_text(g.view) == AFTER_CORNER_TEXT
    g.flag(3, 4)
    assert board_text(g.view) == "...1#\n..12#\n111##\n####F"


def test_board_text_every_symbol():
    view = np.array([[C, F, M, 0], [1, 2, 3, 4], [5, 6, 7, 8]], np.int8)
    assert board_text(view) == "#F*.\n1234\n5678"


def test_one_click_wins_when_the_flood_reaches_everything():
    layout = np.zeros((5, 5), int)
    layout[2, 2] = 1
    g = Game.from_mines(layout)
    assert g.reveal(0, 0) == 24
    assert g.won
    expected = np.ones((5, 5), int)
    expected[0, :] = expected[-1, :] = expected[:, 0] = expected[:, -1] = 0
    expected[2, 2] = C
    assert_view(g, expected)


def test_single_row_board():
    g = Game.from_mines([[0, 0, 1, 0, 0]])
    assert g.reveal(0, 0) == 2
    assert_view(g, [[0, 1, C, C, C]])
    assert g.reveal(0, 4) == 2
    assert g.won
    assert_view(g, [[0, 1, C, 1, 0]])


def test_single_column_board():
    g = Game.from_mines([[0], [0], [0], [1]])
    assert g.reveal(0, 0) == 3
    assert g.won
    assert_view(g, [[0], [0], [1], [C]])


def test_from_mines_accepts_bool_and_validates():
    g = Game.from_mines(np.array(LAYOUT, bool))
    assert g.level.mines == 3
    with pytest.raises(ValueError, match="2-d"):
        Game.from_mines([0, 1, 0])
    with pytest.raises(ValueError, match="2-d"):
        Game.from_mines(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="0/1"):
        Game.from_mines([[0, 2], [0, 0]])


def test_apply_moves_and_tuples():
    g = Game.from_mines(LAYOUT)
    assert g.apply(Move(REVEAL, 0, 0)) == 11
    assert g.apply((FLAG, 1, 4)) == 0
    assert g.view[1, 4] == F
    assert g.apply((UNFLAG, 1, 4)) == 0
    assert g.view[1, 4] == C
    with pytest.raises(IllegalMove, match="move kind must be"):
        g.apply((7, 0, 0))
    assert g.moves == [Move(REVEAL, 0, 0), Move(FLAG, 1, 4), Move(UNFLAG, 1, 4)]
    assert repr(g.moves[0]) == "Move(reveal, 0, 0)"


def test_numpy_integer_coordinates():
    g = Game.from_mines(LAYOUT)
    assert g.reveal(np.int64(0), np.int32(0)) == 11
    assert g.moves == [Move(REVEAL, 0, 0)]
    assert all(type(v) is int for v in g.moves[0][1:])


# ----------------------------------------------------------------------------- illegal moves
@pytest.fixture
def started():
    g = Game.from_mines(LAYOUT)
    g.reveal(0, 0)
    g.flag(1, 4)
    return g


@pytest.mark.parametrize("action", ["reveal", "flag", "unflag"])
@pytest.mark.parametrize(
    "r, c, message",
    [
        (-1, 0, r"row must be in \[0, 3\] on a 4x5 board, got -1"),
        (4, 0, r"row must be in \[0, 3\] on a 4x5 board, got 4"),
        (100, 0, r"row must be in \[0, 3\]"),
        (0, -1, r"col must be in \[0, 4\] on a 4x5 board, got -1"),
        (0, 5, r"col must be in \[0, 4\] on a 4x5 board, got 5"),
        (np.int64(-3), 0, r"row must be in \[0, 3\]"),
    ],
)
def test_off_board(started, action, r, c, message):
    before = started.view.copy()
    with pytest.raises(IllegalMove, match=message):
        getattr(started, action)(r, c)
    np.testing.assert_array_equal(started.view, before)
    assert len(started.moves) == 2


@pytest.mark.parametrize("action", ["reveal", "flag", "unflag"])
@pytest.mark.parametrize(
    "r, c, message",
    [
        (1.0, 0, "row must be an integer, got 1.0"),
        (0.5, 0, "row must be an integer"),
        ("1", 0, "row must be an integer, got '1'"),
        (True, 0, "row must be an integer, got True"),
        (None, 0, "row must be an integer"),
        (0, 2.0, "col must be an integer, got 2.0"),
        (0, False, "col must be an integer, got False"),
        (0, "x", "col must be an integer"),
    ],
)
def test_non_integer_coordinates(started, action, r, c, message):
    with pytest.raises(IllegalMove, match=message):
        getattr(started, action)(r, c)
    assert len(started.moves) == 2


def test_illegal_move_is_a_value_error():
    assert issubclass(IllegalMove, ValueError)


def test_reveal_revealed(started):
    with pytest.raises(IllegalMove, match=r"cannot reveal \(0, 0\): already revealed"):
        started.reveal(0, 0)
    with pytest.raises(IllegalMove, match="already revealed"):
        started.reveal(1, 3)  # a revealed number


def test_reveal_flagged(started):
    with pytest.raises(IllegalMove, match=r"cannot reveal \(1, 4\): it is flagged"):
        started.reveal(1, 4)
    assert started.view[1, 4] == F and not started.over


def test_flag_revealed(started):
    with pytest.raises(IllegalMove, match=r"cannot flag \(0, 3\): it is revealed"):
        started.flag(0, 3)


def test_flag_twice(started):
    with pytest.raises(IllegalMove, match=r"cannot flag \(1, 4\): already flagged"):
        started.flag(1, 4)
    assert started.flags == 1


def test_unflag_unflagged(started):
    with pytest.raises(IllegalMove, match=r"cannot unflag \(3, 3\): it is not flagged"):
        started.unflag(3, 3)  # covered
    with pytest.raises(IllegalMove, match=r"cannot unflag \(0, 0\): it is not flagged"):
        started.unflag(0, 0)  # revealed
    assert started.flags == 1


@pytest.mark.parametrize("outcome", ["won", "lost"])
@pytest.mark.parametrize("action, r, c", [("reveal", 3, 3), ("flag", 3, 3), ("unflag", 1, 4), ("reveal", 0, 0),
                                          ("reveal", 9, 9)])
def test_no_move_after_the_end(outcome, action, r, c):
    g = Game.from_mines(LAYOUT)
    g.reveal(0, 0)
    g.flag(1, 4)
    if outcome == "lost":
        g.reveal(3, 0)
        assert g.lost
    else:
        for rr, cc in [(0, 4), (2, 4), (3, 1), (3, 2), (3, 3), (3, 4)]:
            g.reveal(rr, cc)
        assert g.won
    before = g.view.copy()
    n_moves = len(g.moves)
    with pytest.raises(IllegalMove, match=rf"the game is over \({outcome}\)"):
        getattr(g, action)(r, c)
    np.testing.assert_array_equal(g.view, before)
    assert len(g.moves) == n_moves


def test_mines_hidden_during_play():
    g = Game.from_mines(LAYOUT)
    with pytest.raises(IllegalMove, match="hidden while the game is in progress"):
        g.mines_after_game()
    g.reveal(0, 0)
    with pytest.raises(IllegalMove, match="hidden"):
        g.mines_after_game()
    g = Game("beginner", seed=1)
    with pytest.raises(IllegalMove, match="hidden"):
        g.mines_after_game()


def test_view_is_read_only():
    g = Game.from_mines(LAYOUT)
    g.reveal(0, 0)
    view = g.view
    with pytest.raises(ValueError, match="read-only"):
        view[3, 0] = 0
    with pytest.raises(ValueError, match="read-only"):
        g.view[:] = 0
    assert_view(g, AFTER_CORNER)


def test_mines_after_game_is_a_copy():
    g = Game.from_mines(LAYOUT)
    g.reveal(3, 0)
    layout = g.mines_after_game()
    layout[:] = False
    np.testing.assert_array_equal(g.mines_after_game(), np.array(LAYOUT, bool))


@pytest.mark.parametrize("seed", [-1, True, 1.5, "1", [1]])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match="seed"):
        Game("beginner", seed=seed)


# ----------------------------------------------------------------------------- properties
def play_random_reveals(game: Game, rng: np.random.Generator):
    """Reveal random covered cells until the game ends, checking invariants after each move.

    Returns (snapshots of the view after each move, the cells clicked)."""
    level = game.level
    snapshots = [game.view.copy()]
    clicks = []
    while not game.over:
        prev = snapshots[-1]
        covered = np.flatnonzero(prev.ravel() == COVERED)
        assert covered.size > 0, "ongoing game with nothing left to reveal"
        cell = int(rng.choice(covered))
        r, c = divmod(cell, level.cols)
        with pytest.raises(IllegalMove):
            game.mines_after_game()
        got = game.reveal(r, c)
        clicks.append((r, c))
        view = game.view.copy()
        snapshots.append(view)

        opened = prev >= 0
        # a revealed cell never changes
        np.testing.assert_array_equal(view[opened], prev[opened])
        assert game.revealed == int((view >= 0).sum())
        assert len(game.moves) == len(clicks)
        assert game.moves[-1] == Move(REVEAL, r, c)
        if got == -1:
            assert game.status == LOST
            assert view[r, c] == MINE
            assert game.revealed == int(opened.sum())
        else:
            assert got >= 1
            assert view[r, c] >= 0
            assert game.revealed == int(opened.sum()) + got
            assert game.status in (ONGOING, WON)
            assert not (view == MINE).any()
        assert (game.status == WON) == (game.revealed == level.cells - level.mines)
        if game.status == ONGOING:
            assert not (view == MINE).any()
    return snapshots, clicks


@PROPERTY
@given(level=level_specs(), seed=st.integers(0, 2**63 - 1), play_seed=st.integers(0, 2**32 - 1),
       flood=st.booleans())
def test_random_play_invariants(level, seed, play_seed, flood):
    game = Game(level, seed=seed, flood=flood)
    assert game.level == level and game.flood == flood
    assert game.moves == [] and game.revealed == 0 and game.flags == 0
    assert not (game.view != COVERED).any()
    if level.first_click == "none":
        assert game.dealt  # dealt at construction
    else:
        assert not game.dealt  # dealt at the first reveal
    everything_mined = level.mines == level.cells
    assert (game.status == WON) == everything_mined
    if everything_mined:
        assert level.first_click == "none"
        with pytest.raises(IllegalMove, match="over"):
            game.reveal(0, 0)

    snapshots, clicks = play_random_reveals(game, np.random.default_rng(play_seed))
    assert game.over and game.dealt

    layout = game.mines_after_game()
    assert layout.shape == (level.rows, level.cols) and layout.dtype == bool
    assert int(layout.sum()) == level.mines
    counts = true_counts(layout)

    # every number ever shown is the true count, and never on a mine
    for snap in snapshots:
        shown = snap >= 0
        np.testing.assert_array_equal(snap[shown], counts[shown])
        assert not layout[shown].any()

    final = game.view
    more = "+" if len(clicks) > 3 else ""
    event(f"{level.first_click}: {'lost' if game.lost else 'won'} after {min(len(clicks), 3)}{more} clicks")
    if game.lost:
        np.testing.assert_array_equal(final == MINE, layout)
        r, c = clicks[-1]
        assert layout[r, c]
        # the loss only uncovered the mines
        np.testing.assert_array_equal(final[~layout], snapshots[-2][~layout])
    else:
        assert game.won
        np.testing.assert_array_equal(final == COVERED, layout)
        assert game.revealed == level.cells - level.mines

    if clicks:
        r0, c0 = clicks[0]
        first = snapshots[1]
        if level.first_click == "safe":
            assert not layout[r0, c0]
            assert first[r0, c0] >= 0
            assert not (game.lost and len(clicks) == 1)
        elif level.first_click == "opening":
            assert first[r0, c0] == 0
            assert not window(layout, r0, c0).any()
            if flood:
                assert (window(first, r0, c0) >= 0).all()
        if not flood:
            assert int((first >= 0).sum()) == (0 if game.lost and len(clicks) == 1 else 1)


@PROPERTY
@given(level=level_specs(max_side=8), seed=st.integers(0, 2**32 - 1), play_seed=st.integers(0, 2**32 - 1))
def test_random_play_with_flags(level, seed, play_seed):
    """Mixed reveals, flags and unflags: flags persist, floods go around them."""
    game = Game(level, seed=seed)
    rng = np.random.default_rng(play_seed)
    n_flag_moves = 0
    while not game.over:
        prev = game.view.copy()
        covered = np.flatnonzero(prev.ravel() == COVERED)
        flagged = np.flatnonzero(prev.ravel() == FLAGGED)
        u = rng.random()
        if flagged.size and (covered.size == 0 or u < 0.2):
            r, c = divmod(int(rng.choice(flagged)), level.cols)
            game.unflag(r, c)
            n_flag_moves += 1
            assert game.view[r, c] == COVERED
        elif covered.size and u < 0.45 and n_flag_moves < 2 * level.cells:
            r, c = divmod(int(rng.choice(covered)), level.cols)
            game.flag(r, c)
            n_flag_moves += 1
            assert game.view[r, c] == FLAGGED
        else:
            r, c = divmod(int(rng.choice(covered)), level.cols)
            game.reveal(r, c)
        view = game.view
        opened = prev >= 0
        np.testing.assert_array_equal(view[opened], prev[opened])
        if not game.lost:
            # flags only change through flag/unflag moves
            changed = (prev == FLAGGED) != (view == FLAGGED)
            assert int(changed.sum()) <= 1
            assert game.flags == int((view == FLAGGED).sum())
            assert not (view == MINE).any()
        assert game.revealed == int((view >= 0).sum())
        assert (game.status == WON) == (game.revealed == level.cells - level.mines)
    layout = game.mines_after_game()
    assert int(layout.sum()) == level.mines
    view = game.view
    shown = view >= 0
    np.testing.assert_array_equal(view[shown], true_counts(layout)[shown])
    if game.lost:
        np.testing.assert_array_equal(view == MINE, layout)
    else:
        np.testing.assert_array_equal(view < 0, layout)


# ----------------------------------------------------------------------------- determinism
def play_fixed(game: Game, clicks):
    views = []
    for r, c in clicks:
        if game.over:
            break
        if game.view[r, c] == COVERED:
            game.reveal(r, c)
        views.append(game.view.copy())
    return views


@pytest.mark.parametrize("level", ["beginner", "8x8x10:none", "8x8x10:opening", "expert", "9x9x30:safe"])
def test_same_seed_same_moves_same_views(level):
    order = [(r, c) for r in range(9) for c in range(9)][::-1]
    order = [(r, c) for r, c in order if r < Level.parse(level).rows and c < Level.parse(level).cols]
    for seed in (0, 7, np.random.SeedSequence(11)):
        a, b = Game(level, seed=seed), Game(level, seed=seed)
        va, vb = play_fixed(a, order), play_fixed(b, order)
        assert len(va) == len(vb) > 0
        for x, y in zip(va, vb):
            np.testing.assert_array_equal(x, y)
        if a.over:
            np.testing.assert_array_equal(a.mines_after_game(), b.mines_after_game())
            assert a.status == b.status


def test_different_seeds_deal_different_boards():
    layouts = set()
    for seed in range(20):
        g = Game("beginner", seed=seed)
        g.reveal(0, 0)
        while not g.over:
            covered = np.argwhere(g.view == COVERED)
            g.reveal(*map(int, covered[0]))
        layouts.add(g.mines_after_game().tobytes())
    assert len(layouts) > 15


@pytest.mark.parametrize("rule", ["none", "safe", "opening"])
@pytest.mark.parametrize("mines", [0, 1, 10, 20])
def test_generator_advanced_by_exactly_mines_draws(rule, mines):
    level = Level(6, 7, mines, rule)
    rng = np.random.default_rng(2024 + mines)
    ref = copy.deepcopy(rng)
    g = Game(level, seed=rng)
    if rule == "none":
        ref.random(mines)  # dealt at construction
    assert rng.bit_generator.state == ref.bit_generator.state
    g.reveal(3, 3)
    if rule != "none":
        ref.random(mines)  # dealt at the first reveal
    assert rng.bit_generator.state == ref.bit_generator.state
    while not g.over:  # later moves draw nothing
        r, c = map(int, np.argwhere(g.view == COVERED)[0])
        g.reveal(r, c)
        assert rng.bit_generator.state == ref.bit_generator.state
    # the shared stream goes on where dealing left it
    assert rng.random() == ref.random()


def test_shared_generator_deals_consecutive_games():
    """Two games on one Generator = two games seeded by the states before each deal."""
    level = Level(8, 8, 10, "none")
    rng = np.random.default_rng(5)
    snapshot1 = copy.deepcopy(rng)
    g1 = Game(level, seed=rng)
    snapshot2 = copy.deepcopy(rng)
    g2 = Game(level, seed=rng)
    h1, h2 = Game(level, seed=snapshot1), Game(level, seed=snapshot2)
    for g in (g1, g2, h1, h2):
        g.reveal(0, 0) if g.view[0, 0] == COVERED else None
        while not g.over:
            g.reveal(*map(int, np.argwhere(g.view == COVERED)[0]))
    np.testing.assert_array_equal(g1.mines_after_game(), h1.mines_after_game())
    np.testing.assert_array_equal(g2.mines_after_game(), h2.mines_after_game())
    assert not np.array_equal(g1.mines_after_game(), g2.mines_after_game())


def reference_deal(level: Level, first: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """The documented dealing: a partial Fisher-Yates shuffle of the allowed cells."""
    rows, cols = level.rows, level.cols
    excluded = np.zeros((rows, cols), bool)
    if level.first_click == "safe":
        excluded[first] = True
    elif level.first_click == "opening":
        r, c = first
        excluded[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2] = True
    work = list(np.flatnonzero(~excluded.ravel()))
    m = len(work)
    mine = np.zeros(rows * cols, bool)
    for i in range(level.mines):
        j = min(i + int(rng.random() * (m - i)), m - 1)
        work[i], work[j] = work[j], work[i]
        mine[work[i]] = True
    return mine.reshape(rows, cols)


@PROPERTY
@given(level=level_specs(max_side=10), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_dealing_matches_reference(level, seed, data):
    r = data.draw(st.integers(0, level.rows - 1))
    c = data.draw(st.integers(0, level.cols - 1))
    game = Game(level, seed=seed)
    if not game.over:
        game.reveal(r, c)
        while not game.over:
            game.reveal(*map(int, np.argwhere(game.view == COVERED)[0]))
    expected = reference_deal(level, (r, c), np.random.Generator(np.random.PCG64(seed)))
    np.testing.assert_array_equal(game.mines_after_game(), expected)


def test_run_streams():
    deal, agent = run_streams(3)
    deal2, agent2 = run_streams(3)
    assert deal.random() == deal2.random()
    assert agent.random() == agent2.random()
    d, a = run_streams(3)
    assert d.random() != a.random()
    d4, _ = run_streams(np.random.SeedSequence(3))
    assert d4.random() == run_streams(3)[0].random()
    with pytest.raises(ValueError, match="Generator"):
        run_streams(np.random.default_rng(3))
    for bad in (-1, True, 1.5, "3"):
        with pytest.raises(ValueError, match="seed"):
            run_streams(bad)


# ----------------------------------------------------------------------------- edge levels
@pytest.mark.parametrize("rule", ["none", "safe", "opening"])
@pytest.mark.parametrize("shape", [(1, 1), (1, 6), (5, 1), (4, 7), (12, 12)])
def test_no_mines_wins_on_first_reveal(rule, shape):
    rows, cols = shape
    g = Game(Level(rows, cols, 0, rule), seed=1)
    assert not g.over
    assert g.reveal(rows // 2, cols // 3) == rows * cols
    assert g.won and g.revealed == rows * cols
    assert_view(g, np.zeros(shape, int))
    assert not g.mines_after_game().any()


def test_no_mines_without_flood_needs_every_cell():
    g = Game(Level(2, 2, 0, "safe"), seed=1, flood=False)
    for k, (r, c) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
        assert not g.over
        assert g.reveal(r, c) == 1
    assert g.won


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 5)])
def test_all_mines_is_won_before_any_move(shape):
    rows, cols = shape
    g = Game(Level(rows, cols, rows * cols, "none"), seed=0)
    assert g.status == WON and g.won and g.over and not g.lost
    assert g.dealt and g.revealed == 0 and g.moves == []
    assert_view(g, np.full(shape, C))
    assert g.mines_after_game().all()
    for action in ("reveal", "flag", "unflag"):
        with pytest.raises(IllegalMove, match=r"the game is over \(won\)"):
            getattr(g, action)(0, 0)


def test_all_mines_scripted():
    g = Game.from_mines([[1, 1], [1, 1]])
    assert g.won and g.level == Level(2, 2, 4, "none")


def test_safe_rule_densest_board_wins_on_first_click():
    g = Game(Level(3, 3, 8, "safe"), seed=4)
    assert g.reveal(1, 1) == 1
    assert g.won
    assert g.view[1, 1] == 8


def test_opening_rule_densest_board():
    g = Game(Level(5, 5, 16, "opening"), seed=4)
    assert g.reveal(2, 2) == 9  # the centre opens its 3x3, and nothing else is safe
    assert g.won
    view = g.view
    assert view[2, 2] == 0
    layout = g.mines_after_game()
    assert layout.sum() == 16 and not layout[1:4, 1:4].any()
    np.testing.assert_array_equal(view[1:4, 1:4], true_counts(layout)[1:4, 1:4])


def test_opening_rule_corner_click():
    # A corner click keeps only 4 cells free though the bound reserves 9: always satisfiable.
    g = Game(Level(4, 4, 7, "opening"), seed=9)
    g.reveal(0, 0)
    assert g.view[0, 0] == 0
    assert not g.lost
    while not g.over:
        g.reveal(*map(int, np.argwhere(g.view == COVERED)[0]))
    assert not g.mines_after_game()[:2, :2].any()
    assert g.mines_after_game().sum() == 7


# ----------------------------------------------------------------------------- display
def test_repr():
    g = Game.from_mines(LAYOUT)
    g.reveal(0, 0)
    text = repr(g)
    assert text == f"Game(4x5x3:none, ongoing, 1 moves)\n{AFTER_CORNER_TEXT}"
    g2 = Game("16x30x99:opening", seed=0)
    assert "16x30x99:opening" in repr(g2)
    assert "ongoing" in repr(g2)
    g.reveal(3, 0)
    assert repr(g).startswith("Game(4x5x3:none, lost, 2 moves)")
    assert "expert" not in repr(Game("expert", seed=0)) and "16x30x99" in repr(Game("expert", seed=0))


def test_repr_html():
    g = Game("beginner", seed=0)
    html = g._repr_html_()
    assert "<svg" in html
    assert "8x8x10" in html
    g.reveal(0, 0)
    assert "1 moves" in g._repr_html_()
    lost = Game.from_mines(LAYOUT)
    lost.reveal(3, 0)
    assert "<svg" in lost._repr_html_()


def test_game_accepts_level_string_and_object():
    assert Game("beginner", seed=0).level == Level(8, 8, 10)
    assert Game(Level(5, 5, 3, "opening"), seed=0).level.first_click == "opening"
    with pytest.raises(ValueError, match="level"):
        Game("huge", seed=0)


def test_writing_to_a_view_never_changes_the_game():
    g = Game.from_mines(LAYOUT)
    view = g.view
    view.setflags(write=True)  # the view is the caller's own copy
    view[3, 0] = 5
    assert g.view[3, 0] == COVERED


def test_bool_move_kind_and_empty_rule_are_rejected():
    g = Game.from_mines(LAYOUT)
    with pytest.raises(IllegalMove, match="move kind"):
        g.apply((True, 0, 0))
    with pytest.raises(ValueError, match="first_click"):
        Level.parse("8x8x10:")


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_shares_the_read_only_neighbour_tables_and_nothing_else(how):
    """copy.deepcopy(game) or a pickled game: the same read-only neighbour tables (a writeable
    copy is another numba type, and every kernel would compile again for it), every other
    array its own."""
    import pickle

    from minelab.engine import reveal_cell

    game = Game("9x9x10", seed=5)
    game.reveal(0, 0)
    twin = copy.deepcopy(game) if how == "deepcopy" else pickle.loads(pickle.dumps(game))
    assert twin._gs.nbr is game._gs.nbr and twin._gs.nbr_count is game._gs.nbr_count
    assert not twin._gs.nbr.flags.writeable and not twin._gs.nbr_count.flags.writeable
    for name in ("spec", "counters", "mine", "counts", "shown", "stack"):
        assert getattr(twin._gs, name) is not getattr(game._gs, name)
        assert np.array_equal(getattr(twin._gs, name), getattr(game._gs, name))
    assert twin._rng is not game._rng and twin.moves == game.moves and twin.moves is not game.moves
    signatures = len(reveal_cell.signatures)
    covered = tuple(np.argwhere(game.view == COVERED)[0])
    twin.reveal(*covered)
    assert len(reveal_cell.signatures) == signatures  # nothing compiled again for the copy
    assert game.view[covered] == COVERED and len(game.moves) == 1  # the original untouched
