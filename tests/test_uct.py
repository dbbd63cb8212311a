"""The tree searches `uct` and `oh` (minelab.agents.uct; Buffet et al. 2012, Alg. 1-2):
bad input, candidates, the search finding a better cell than the heuristic, no peeking,
determinism. (Every registered agent also passes tests/test_agent_contract.py, which
includes a same-view-other-mines check; the exact layout sampler they use is checked
for uniformity in tests/test_probability.py.)"""
import numpy as np
import pytest

import minelab as ml
from minelab.agents import uct
from minelab.cells import COVERED
from minelab.engine import Move
from minelab.engine import Game


@pytest.mark.parametrize("name", ["uct", "oh"])
@pytest.mark.parametrize("field, value, says", [
    ("simulations", 0, "simulations must be an integer >= 1"),
    ("simulations", 2.5, "simulations must be an integer >= 1"),
    ("expand", -1, "expand must be an integer >= 0"),
    ("first_click", "middle", "first_click must be"),
    ("reward", "score", "reward must be one of win, progress"),
])
def test_bad_parameters_are_clear_errors(name, field, value, says):
    with pytest.raises(ValueError, match=says):
        ml.make_agent(name, **{field: value})


def test_uct_default_policy_is_named():
    with pytest.raises(ValueError, match="default must be one of csp, random"):
        ml.make_agent("uct", default="hcsp-ish")
    assert ml.make_agent("uct", default="random").params() == {"simulations": 10_000, "default": "random"}
    assert ml.make_agent("oh").params() == {"simulations": 10_000}


def _position(level, mines, clicks):
    """A game on a fixed layout (flat mine indices) after the given reveals."""
    lv = ml.Level(level)
    layout = np.zeros(lv.cells, np.uint8)
    layout[list(mines)] = 1
    game = Game.from_mines(layout.reshape(lv.rows, lv.cols))
    for r, c in clicks:
        game.apply(Move(0, r, c))
    return game


def test_candidates_are_every_possible_cell_for_uct_and_the_least_probable_for_oh():
    view = np.array([0, 1, COVERED, COVERED, COVERED, ml.FLAGGED], np.int8)
    prob = np.array([np.nan, np.nan, 0.2, 0.4, 0.2, np.nan])
    certain = np.zeros(6, np.int8)
    known = np.array([0, 0, 0, 0, 0, 1], np.uint8)
    cand = np.zeros(6, np.int64)
    assert uct.candidates(view, prob, certain, known, uct.CAND_ALL, cand) == 3 and list(cand[:3]) == [2, 3, 4]
    assert uct.candidates(view, prob, certain, known, uct.CAND_LEAST, cand) == 2 and list(cand[:2]) == [2, 4]
    certain[3] = uct.CERTAIN_MINE  # a certain mine is never a decision
    assert uct.candidates(view, prob, certain, known, uct.CAND_ALL, cand) == 2


def test_search_beats_the_least_probable_cell_where_it_is_not_best():
    """2x5 with 3 mines after the corner opening: the exact solver says which cells are
    worth most; a search with enough simulations picks a cell of the best value."""
    from minelab.exact import move_values

    rng = np.random.default_rng(0)
    found = 0
    for _ in range(200):
        mines = rng.choice(np.arange(1, 10), 3, replace=False)
        game = _position("2x5x3", mines, [(0, 0)])
        if game.over or (game.view.ravel() == COVERED).sum() <= 4:
            continue
        values = move_values("2x5x3", game.view)
        best = max(values.values())
        agent = ml.make_agent("uct", seed=1, simulations=20_000)
        moves = agent.decision(game)
        if len(moves) != 1:  # a certain move: no search
            continue
        cell = divmod(moves[0][1], 5)
        assert values[cell] >= best - 0.02, (mines, values, cell)
        found += 1
        if found == 3:
            break
    assert found == 3


def test_same_seed_same_games_and_records_count_the_simulations():
    a = ml.play(ml.make_agent("oh", simulations=40), "5x5x4", 30, seed=3)
    b = ml.play(ml.make_agent("oh", simulations=40), "5x5x4", 30, seed=3)
    assert a.drop(columns=[]).equals(b)
    searched = a["simulations"] // 40
    assert (a["simulations"] % 40 == 0).all() and (searched <= a["guesses"]).all()


def test_a_forced_single_candidate_is_played_without_search():
    game = _position("1x3x1", [2], [(0, 0)])  # "0" opens (0,1) = 1: (0,2) is the mine, game won
    assert game.over and game.won
    g = ml.play(ml.make_agent("oh", simulations=50), "1x3x1", 20, seed=0)
    assert (g["won"] == 1).all() and (g["simulations"] == 0).all()
