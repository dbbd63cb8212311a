"""The no-guess first-click rule (minelab.noguess): every board it deals is won by revealing
only the cells `probability.solve` finds certainly safe, played through the public Game API;
the deal is the opening rule's deal repeated on the same stream; boards are uniform among
the opening rule's boards that deduction wins; csp agents win every game."""
from __future__ import annotations

import copy
import itertools
import pickle

import numpy as np
import pytest
from scipy.stats import chisquare

import minelab as ml
from minelab.cells import COVERED
from minelab.noguess import MAX_TRIALS, deal_boards, wins_by_deduction
from minelab.probability import solve


def won_by_certain_cells(game, first) -> bool:
    """Reveal `first`, then only cells probability.solve calls certainly safe (the level's
    mine count known), all of them each round, until the game is over or none is left."""
    game.reveal(*first)
    while not game.over:
        safe = np.argwhere(solve(game.view, game.level.mines).safe)
        if len(safe) == 0:
            return False
        for r, c in safe:
            if game.view[r, c] == COVERED:
                game.reveal(int(r), int(c))
    return game.won


def layout_of(game):
    """The game's mines: the game is finished first (covered cells revealed in scan order)."""
    while not game.over:
        r, c = np.argwhere(game.view == COVERED)[0]
        game.reveal(int(r), int(c))
    return game.mines_after_game()


CASES = [("9x9x10", (4, 4), 200), ("16x30x99", (3, 3), 20)]


@pytest.mark.parametrize("level, first, games", CASES)
def test_every_no_guess_board_is_won_by_certain_cells_only(level, first, games):
    for seed in range(games):
        game = ml.Game(f"{level}:no-guess", seed=seed)
        game.reveal(*first)
        assert game.view[first] == 0  # the first click is a zero
        game = ml.Game(f"{level}:no-guess", seed=seed)
        assert won_by_certain_cells(game, first), f"{level}:no-guess, seed {seed}"


@pytest.mark.parametrize("level, first, games", CASES)
def test_opening_boards_are_not_all_won_so_and_the_check_agrees(level, first, games):
    """The same play on the opening rule's boards loses some (the test above can fail), and
    the deal's own check (wins_by_deduction) agrees with it on every board, won or not."""
    outcomes = []
    for seed in range(games):
        game = ml.Game(f"{level}:opening", seed=seed)
        won = won_by_certain_cells(game, first)
        outcomes.append(won)
        assert wins_by_deduction(layout_of(game), first) == won, f"{level}:opening, seed {seed}"
    assert not all(outcomes) and any(outcomes)


def test_the_first_board_tried_is_the_opening_rule_board():
    """Rejection from the opening deal on the same stream: when the opening rule's board of
    a seed is won by deduction, the no-guess rule deals that very board; else another."""
    for seed in range(60):
        opening = ml.Game("9x9x10:opening", seed=seed)
        won = won_by_certain_cells(opening, (2, 2))
        no_guess = ml.Game("9x9x10:no-guess", seed=seed)
        assert won_by_certain_cells(no_guess, (2, 2))
        same = np.array_equal(layout_of(opening), no_guess.mines_after_game())
        assert same == won, f"seed {seed}"


def test_boards_are_uniform_among_the_boards_deduction_wins():
    """4x4x3 from the corner: the opening rule's 220 layouts, those won by certain cells
    (played through Game.from_mines, not the deal's check) are exactly the boards dealt,
    each as often as the others (chi-square)."""
    first = (0, 0)
    kept = {(0, 0), (0, 1), (1, 0), (1, 1)}
    cells = [(r, c) for r in range(4) for c in range(4) if (r, c) not in kept]
    winnable = []
    for combo in itertools.combinations(cells, 3):
        layout = np.zeros((4, 4), bool)
        layout[tuple(np.array(combo).T)] = True
        if won_by_certain_cells(ml.Game.from_mines(layout), first):
            winnable.append(layout.tobytes())
    assert 0 < len(winnable) < 220
    n = 200 * len(winnable)
    layouts, tried = deal_boards("4x4x3", n, first, seed=11)
    keys = [lay.tobytes() for lay in layouts]
    assert set(keys) == set(winnable)
    counts = np.array([keys.count(k) for k in winnable])
    assert chisquare(counts).pvalue > 1e-3
    assert tried.sum() > n  # some boards were rejected


def test_same_seed_same_boards_other_seed_other_boards():
    a, tried_a = deal_boards("16x30x99", 5, (3, 3), seed=7)
    b, tried_b = deal_boards("16x30x99", 5, (3, 3), seed=7)
    c, _ = deal_boards("16x30x99", 5, (3, 3), seed=8)
    assert np.array_equal(a, b) and np.array_equal(tried_a, tried_b)
    assert not any(np.array_equal(a[k], c[k]) for k in range(5))
    first = ml.Game("9x9x10:no-guess", seed=3)
    again = ml.Game("9x9x10:no-guess", seed=3)
    other = ml.Game("9x9x10:no-guess", seed=4)
    for game in (first, again, other):
        won_by_certain_cells(game, (4, 4))
    assert np.array_equal(first.mines_after_game(), again.mines_after_game())
    assert not np.array_equal(first.mines_after_game(), other.mines_after_game())


@pytest.mark.parametrize("name", ["csp", "hcsp"])
def test_csp_agents_win_every_no_guess_game(name):
    """csp and hcsp reveal every cell the exact solver (with the level's mine count) finds
    safe before they guess: on no-guess boards they never guess. The chunk size changes no
    board; on the opening rule the same agent loses some games."""
    df = ml.play(ml.make_agent(name, seed=0), "9x9x10:no-guess", 300, seed=1, progress=False)
    assert df["won"].all() and df.attrs["level"] == "9x9x10:no-guess"
    again = ml.play(ml.make_agent(name, seed=0), "9x9x10:no-guess", 300, seed=1, progress=False, chunk=7)
    assert df.equals(again)
    centre = ml.play(ml.make_agent(name, seed=0, first_click="centre"), "9x9x10:no-guess", 100, seed=2,
                     progress=False)
    assert centre["won"].all()
    opening = ml.play(ml.make_agent(name, seed=0), "9x9x10:opening", 300, seed=1, progress=False)
    assert not opening["won"].all()


def test_game_copies_and_pickles_deal_the_same():
    game = ml.Game("9x9x10:no-guess", seed=5)
    twin = copy.deepcopy(game)
    back = pickle.loads(pickle.dumps(game))
    for g in (game, twin, back):
        g.reveal(4, 4)
    assert np.array_equal(game.view, twin.view) and np.array_equal(game.view, back.view)
    assert game.dealt and game.view[4, 4] == 0


def test_a_level_no_board_of_which_deduction_wins_raises():
    """2x5x1 from the corner: the mine is in one of the two cells of a column, which no number tells apart."""
    for r, c in itertools.product(range(2), range(2, 5)):
        layout = np.zeros((2, 5), bool)
        layout[r, c] = True
        assert not wins_by_deduction(layout, (0, 0))
    game = ml.Game("2x5x1:no-guess", seed=0)
    with pytest.raises(ValueError, match=f"none of the {MAX_TRIALS:,} boards tried"):
        game.reveal(0, 0)


def test_wins_by_deduction_validates():
    with pytest.raises(ValueError, match="is a mine"):
        wins_by_deduction(np.eye(3, dtype=bool), (0, 0))
    with pytest.raises(ValueError, match="off the 3x3 board"):
        wins_by_deduction(np.zeros((3, 3), bool), (3, 0))
    with pytest.raises(ValueError, match="2-d"):
        wins_by_deduction(np.zeros(3, bool), (0, 0))
    assert wins_by_deduction(np.zeros((3, 3), bool), (1, 1))


def test_gymnasium_envs_deal_no_guess_boards():
    import gymnasium as gym

    env = gym.make(ml.ENV_ID, level="6x6x5:no-guess")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(14)  # (2, 2)
    assert obs[2, 2] == 0 and reward > 0
    from minelab.envs import MinesweeperVectorEnv

    vec = MinesweeperVectorEnv(2, level="6x6x5:no-guess")
    obs, info = vec.reset(seed=0)
    obs, reward, terminated, truncated, info = vec.step(np.array([14, 0]))
    assert obs[0, 2, 2] == 0 and obs[1, 0, 0] == 0


def test_bench_deal_rows(capsys):
    """`minelab bench deal`: one row per standard level, boards per second and the share kept."""
    import json

    from minelab.cli import main

    assert main(["bench", "deal", "--seconds", "0.01", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["level"] for r in rows] == ["8x8x10:no-guess", "9x9x10:no-guess", "16x16x40:no-guess",
                                          "16x30x99:no-guess"]
    assert all(r["boards_per_second"] > 0 and 0 < r["acceptance"] <= 1 and r["bench"] == "deal" for r in rows)
    assert all(r["boards"] <= r["boards_tried"] for r in rows)
