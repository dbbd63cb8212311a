"""gardea-q (Gardea et al. 2015 §III-C, simplified Q-learning): Algorithm 3's counts on
boards small enough to enumerate by hand, Algorithm 2's update, the playing rule and its
exception, the unseen-state rule, determinism, save / load, errors, and that it learns."""
import numpy as np
import pandas as pd
import pytest

import minelab as ml
from minelab.agents import load_agent
from minelab.agents.gardea import qlearning as gq
from minelab.agents.gardea import trained
from minelab.cells import COVERED
from minelab.engine import Game
from minelab.stats import two_proportion

C = COVERED


def q(**kw):
    return ml.make_agent("gardea-q", seed=0, **kw)


# --------------------------------------------------------------------------- Algorithm 3 by hand
def test_algorithm3_credits_exactly_the_safe_frontier_cells():
    """3x3, mines at (0,2) and (2,0); after the corner (0,0) shows 0 the flood opens
    (0,1), (1,0), (1,1): the frontier is every other cell, (0,2), (1,2), (2,0), (2,1),
    (2,2); Array = its safe cells (1,2), (2,1), (2,2)."""
    game = Game.from_mines([[0, 0, 1], [0, 0, 0], [1, 0, 0]])
    game.reveal(0, 0)
    gs = game._gs
    assert (game.view >= 0).sum() == 4
    values = np.zeros(9, np.float32)
    values[4] = 7.0  # a revealed cell's value is left alone
    mark = np.zeros(9, np.int8)
    k = gq.algorithm3_credit(gs.shown, gs.mine, gs.nbr, gs.nbr_count, mark, values)
    assert k == 3
    expected = np.zeros(9, np.float32)
    expected[[5, 7, 8]] = 1.0
    expected[4] = 7.0
    np.testing.assert_array_equal(values, expected)
    assert set(np.flatnonzero(mark == gq.M_SAFE_FRONT)) == {5, 7, 8}
    assert set(np.flatnonzero(mark == gq.M_FRONT)) == {2, 6}  # the frontier's mines


def test_algorithm3_counts_on_2x2_with_one_mine():
    """2x2/1, first probe the corner (cell 0), which always shows 1. The states: s0 =
    [1 C / C C], then s_j = s0 with cell j also shown as 1 (j the second probe), after
    which the last safe cell is probed and the game is won. By hand: n(s0) = N and two
    of s0's three cells are credited each game; in s_j one of the two remaining cells is
    safe; and N - P(s0, i) (the games with the mine at i) = the games that reached some
    s_j (j != i) and credited the third cell there."""
    n_games = 3_000
    agent = q(train_level="2x2x1", train_size=n_games, train_seed=3)
    agent.model()
    info = agent.training_info
    assert info["games"] == n_games and info["training_wins"] == n_games and info["states"] == 4
    assert info["empty_array_steps"] == 0 and info["training_clicks"] == 3 * n_games
    s0 = np.array([[1, C], [C, C]])
    p0 = agent.values(s0).ravel()
    assert agent.visits(s0) == n_games and p0[0] == 0 and p0.sum() == 2 * n_games
    second = {}
    for j in (1, 2, 3):
        v = s0.ravel().copy()
        v[j] = 1
        second[j] = (agent.visits(v.reshape(2, 2)), agent.values(v.reshape(2, 2)).ravel())
        n_j, p_j = second[j]
        assert p_j[0] == p_j[j] == 0 and p_j.sum() == n_j
    assert sum(n_j for n_j, _ in second.values()) == n_games
    for i in (1, 2, 3):
        mine_at_i = sum(p_j[({1, 2, 3} - {i, j}).pop()] for j, (_, p_j) in second.items() if j != i)
        assert n_games - p0[i] == mine_at_i
    np.testing.assert_allclose(p0[1:] / n_games, 2 / 3, atol=0.04)  # each cell safe 2 games in 3


def test_empty_array_on_1x3_and_the_exception_in_play():
    """1x3/1, corner first. Mine at 1: the corner shows 1, the frontier is {1}, all mines:
    Array is empty (off-frontier: probe 2 and win; stop: abandon). Mine at 2: the corner's
    zero opens 1 and the game is won. So the one state [1 C C] has every P = 0 and was seen:
    the exception plays the off-frontier cell 2, and every game is won."""
    agent = q(train_level="1x3x1", train_size=400, train_seed=1)
    agent.model()
    info = agent.training_info
    view = np.array([[1, C, C]])
    seen = agent.visits(view)
    assert info["states"] == 1 and 100 < seen < 300 and info["empty_array_steps"] == seen
    assert info["training_wins"] == 400
    np.testing.assert_array_equal(agent.values(view), 0)
    assert {agent.choose_cell(view, np.random.default_rng(s)) for s in range(20)} == {2}
    df = ml.play(agent, "1x3x1", 500, seed=2)
    assert df["won"].all()
    assert df["off_frontier_moves"].sum() > 100 and (df["unseen_moves"] == 0).all()

    stop = q(train_level="1x3x1", train_size=400, train_seed=1, empty_array="stop")
    stop.model()
    assert stop.training_info["abandoned_games"] == seen and stop.training_info["training_wins"] == 400 - seen


def test_algorithm2_update_on_1x3():
    """Algorithm 2 on 1x3/1 with eta = 0.5: in state [1 C C] (mine at 1) a random cell is
    uncovered: cell 1 (r = -1, lost) or cell 2 (r = +1, won). After k tries of cell 1 and
    n - k of cell 2: Q(s,1) = -(1 - 0.5^k), Q(s,2) = 1 - 0.5^(n-k)."""
    agent = q(algorithm=2, eta=0.5, train_level="1x3x1", train_size=400, train_seed=1)
    agent.model()
    view = np.array([[1, C, C]])
    n = agent.visits(view)
    q1, q2 = agent.values(view).ravel()[1:]
    k = 400 - agent.training_info["training_wins"]  # games lost = tries of cell 1
    assert 0 < k < n
    assert q1 == np.float32(-(1 - 0.5 ** k)) and q2 == np.float32(1 - 0.5 ** (n - k))


# --------------------------------------------------------------------------- the playing rule
def test_play_takes_the_frontier_cell_of_highest_p():
    agent = q(train_level="2x2x1", train_size=500, train_seed=0)
    s0 = np.array([[1, C], [C, C]])
    p = agent.values(s0).ravel()
    assert len(set(p[1:])) == 3  # no ties at this seed
    assert agent.choose_cell(s0) == int(np.argmax(p))


def test_unseen_state_rule():
    """On 1x4/1, [C 1 C C] is never reached from the corner: unseen="frontier" plays 0 or
    2 (the frontier), "covered" any covered cell, 3 included."""
    view = np.array([[C, 1, C, C]])
    picks = {}
    for rule in gq.UNSEEN_RULES:
        agent = q(train_level="1x4x1", train_size=200, unseen=rule)
        assert agent.values(view) is None and agent.visits(view) == 0
        picks[rule] = {agent.choose_cell(view, np.random.default_rng(s)) for s in range(40)}
    assert picks == {"frontier": {0, 2}, "covered": {0, 2, 3}}


def test_a_model_with_no_state_plays_by_the_unseen_rule():
    """1x3/1 games whose mine is at 2 are won by the first probe: no state is stored. In
    play, a corner showing 1 is then unseen: the frontier rule plays cell 1, the mine."""
    seed = next(s for s in range(50) if q(train_level="1x3x1", train_size=1, train_seed=s).states == 0)
    agent = q(train_level="1x3x1", train_size=1, train_seed=seed)
    df = ml.play(agent, "1x3x1", 300, seed=0)
    assert (df["unseen_moves"] == (~df["won"]).astype(int)).all() and 0.35 < df["won"].mean() < 0.65
    assert agent.choose_cell(np.array([[1, C, C]])) == 1  # the one frontier cell


# --------------------------------------------------------------------------- determinism, files
def test_same_seeds_same_model_and_games():
    a = q(train_level="4x4x3", train_size=3_000, train_seed=4)
    ma = a.model()
    trained._MEMO.clear()  # train again, not from the per-process memo
    b = q(train_level="4x4x3", train_size=3_000, train_seed=4)
    mb = b.model()
    assert ma is not mb and sorted(ma) == ["keys", "values", "visits"]
    for k in ma:
        np.testing.assert_array_equal(ma[k], mb[k])
    assert not np.array_equal(q(train_level="4x4x3", train_size=3_000, train_seed=5).model()["visits"],
                              ma["visits"])
    pd.testing.assert_frame_equal(ml.play(a, "4x4x3", 300, seed=1), ml.play(b, "4x4x3", 300, seed=1))


@pytest.mark.parametrize("algorithm", [2, 3])
def test_save_load_plays_the_same_games(tmp_path, algorithm):
    agent = q(algorithm=algorithm, train_level="4x4x3", train_size=2_000, unseen="covered")
    path = agent.save(tmp_path / "m.npz")
    again = load_agent(path, seed=0)
    assert again.params() == agent.params() and again.training_info == agent.training_info
    assert again.states == agent.states
    d1, d2 = ml.play(agent, "4x4x3", 300, seed=3), ml.play(again, "4x4x3", 300, seed=3)
    pd.testing.assert_frame_equal(d1, d2)


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("field, value", [("algorithm", 1), ("algorithm", True), ("algorithm", 3.0),
                                          ("eta", 0.0), ("eta", 1.5), ("eta", float("nan")),
                                          ("first_click", "middle"), ("unseen", "random"),
                                          ("empty_array", "skip")])
def test_bad_parameters_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        q(**{field: value})


def test_untrained_and_wrong_board_are_clear_errors():
    with pytest.raises(ValueError, match="not trained"):
        ml.play(q(), "4x4x3", 1)
    agent = q(train_level="4x4x3", train_size=200)
    with pytest.raises(ValueError, match="trained on 4x4"):
        ml.play(agent, "5x5x3", 1)
    with pytest.raises(ValueError, match="trained on 4x4"):
        agent.choose(ml.Game("5x5x3", seed=0))
    with pytest.raises(ValueError, match="off the"):
        q(first_click=(5, 0), train_level="4x4x3", train_size=10).model()


# --------------------------------------------------------------------------- it learns
def test_trained_on_4x4x3_it_beats_random():
    agent = q(train_level="4x4x3", train_size=20_000)
    ours = ml.play(agent, "4x4x3", 2_000, seed=6)["won"]
    rand = ml.play("random", "4x4x3", 2_000, seed=6)["won"]
    assert ours.mean() > 0.5 and rand.mean() < 0.15
    assert two_proportion(int(ours.sum()), 2_000, int(rand.sum()), 2_000)["p_value"] < 1e-12
    alg2 = ml.play(q(algorithm=2, train_level="4x4x3", train_size=20_000), "4x4x3", 2_000, seed=6)["won"]
    assert two_proportion(int(alg2.sum()), 2_000, int(rand.sum()), 2_000)["p_value"] < 1e-12


def test_a_malformed_model_is_a_clear_error():
    agent = q(train_level="4x4x3", train_size=100)
    agent._model = {**agent.model(), "values": agent.model()["values"][:, :5]}
    with pytest.raises(ValueError, match="malformed"):
        ml.play(agent, "4x4x3", 1)


def test_training_grows_its_table_in_place(table_never_copied):
    # a copy would hold the table twice at its largest (twice the memory of a big training)
    agent = ml.make_agent("gardea-q", train_level="5x5x4", train_size=3_000, seed=0)
    agent.model()
    assert agent.training_info["states"] > 4096  # more than StateTable's first capacity: it grew
