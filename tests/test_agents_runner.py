"""Agents, registry and runner: batch kernels equal interactive play, seeds decide everything."""
import numpy as np
import pandas as pd
import pytest

import minelab as ml
from minelab.engine import run_streams
from minelab.runner import play, summarize

LEVELS = ["5x5x3", "6x7x8:none", "8x8x10:opening", "9x9x10"]


def test_registry_lists_first_agents():
    assert {"random", "oracle", "marginal"} <= set(ml.list_agents())
    assert ml.make_agent("oracle").cheat and not ml.make_agent("random").cheat
    assert ml.make_agent("marginal").learns


def test_make_agent_unknown_name_lists_the_allowed():
    with pytest.raises(ValueError, match="agent must be one of .*random"):
        ml.make_agent("nope")


def play_interactively(agent_name, level, n_games, seed, flood=True):
    """The runner's contract, by hand: Game + choose() on the same two streams."""
    deal_rng, agent_rng = run_streams(seed)
    agent = ml.make_agent(agent_name)
    agent.rng = agent_rng
    rows = []
    for _ in range(n_games):
        game = ml.Game(level, seed=deal_rng, flood=flood)
        agent.play_game(game)
        rows.append((game.won, len(game.moves), game.revealed))
    return rows


@pytest.mark.parametrize("agent", ["random", "oracle", "marginal"])
@pytest.mark.parametrize("level", LEVELS)
def test_batch_kernel_equals_interactive_play(agent, level):
    df = play(agent, level, 60, seed=11)
    expected = play_interactively(agent, level, 60, seed=11)
    got = list(zip(df["won"], df["moves"], df["revealed"]))
    assert got == expected


def test_no_flood_batch_equals_interactive():
    df = play("random", "6x6x4:none", 50, seed=3, flood=False)
    assert list(zip(df["won"], df["moves"], df["revealed"])) == play_interactively("random", "6x6x4:none", 50, 3, False)
    assert (df["revealed"] == df["safe_clicks"]).all()  # one cell per safe click without flood fill


def test_same_seed_same_frame_and_chunking_does_not_matter():
    a = play("random", "9x9x10", 3000, seed=5, chunk=3000)
    b = play("random", "9x9x10", 3000, seed=5, chunk=7)
    pd.testing.assert_frame_equal(a, b)
    c = play("random", "9x9x10", 3000, seed=6)
    assert not a["moves"].equals(c["moves"])


def test_learning_agent_state_carries_across_games_and_runs():
    agent = ml.make_agent("marginal")
    play(agent, "5x5x3", 200, seed=1)
    seen, games = agent.memory(5, 5)
    assert games[0] == 200 and seen.sum() == 3 * 200
    play(agent, "5x5x3", 100, seed=2)
    assert agent.memory(5, 5)[1][0] == 300


def test_boards_do_not_depend_on_the_agent():
    """Common random numbers: under the none rule the layouts of a run depend on the seed only."""
    a = play("oracle", "6x6x5:none", 200, seed=9)
    b = play("random", "6x6x5:none", 200, seed=9)
    # oracle always wins; the random agent's wins must be a subset of winnable boards (all are)
    assert a["won"].all()
    deal_a, _ = run_streams(9)
    deal_b, _ = run_streams(9)
    g1, g2 = ml.Game("6x6x5:none", seed=deal_a), ml.Game("6x6x5:none", seed=deal_b)
    np.testing.assert_array_equal(g1._gs.mine, g2._gs.mine)
    assert len(b) == 200


def test_oracle_always_wins_and_frame_columns():
    df = play("oracle", "16x30x99", 200, seed=0)
    assert df["won"].all()
    assert (df["revealed"] == 16 * 30 - 99).all()
    assert (df["fraction_revealed"] == 1.0).all()
    assert df["clicks_before_loss"].isna().all()
    assert list(df.columns[:7]) == ["game", "won", "moves", "clicks", "safe_clicks", "revealed", "flag_moves"]


def test_random_loses_and_records_clicks_before_loss():
    df = play("random", "9x9x10:none", 500, seed=0)
    lost = df[~df["won"]]
    assert len(lost) > 400
    assert (lost["clicks_before_loss"] == lost["safe_clicks"]).all()
    assert (lost["clicks"] == lost["safe_clicks"] + 1).all()


def test_summary_has_interval_and_count():
    s = summarize(play("random", "4x4x1", 400, seed=0))
    assert s["games"] == 400 and s["ci_low"] <= s["win_rate"] <= s["ci_high"]
    assert s["games_per_second"] > 0


@pytest.mark.parametrize("kwargs, field", [
    ({"n_games": 0}, "n_games"), ({"n_games": 2.5}, "n_games"), ({"n_games": True}, "n_games"),
    ({"seed": -1}, "seed"), ({"seed": "x"}, "seed"), ({"level": "9x9"}, "level"),
    ({"agent": 3}, "agent"), ({"chunk": 0}, "chunk"), ({"agent": "nobody"}, "agent"),
])
def test_play_bad_input(kwargs, field):
    args = {"agent": "random", "level": "5x5x3", "n_games": 10, "seed": 0} | kwargs
    chunk = args.pop("chunk", 100)
    with pytest.raises(ValueError, match=field):
        play(args["agent"], args["level"], args["n_games"], args["seed"], chunk=chunk)


def test_choose_on_finished_game_is_an_error():
    game = ml.Game.from_mines(np.array([[1, 0]]))
    game.reveal(0, 0)
    with pytest.raises(ValueError, match="over"):
        ml.make_agent("random").choose(game)


def test_agents_never_see_mines_during_play():
    """Non-cheating agents decide from the view alone: same view, same rng -> same move
    whatever the hidden layout."""
    layout_a = np.zeros((4, 4), int)
    layout_a[3, 3] = 1
    layout_b = np.zeros((4, 4), int)
    layout_b[0, 3] = 1
    for name in ["random", "marginal"]:
        moves = []
        for layout in (layout_a, layout_b):
            agent = ml.make_agent(name, seed=4)
            moves.append(agent.choose(ml.Game.from_mines(layout)))
        assert moves[0] == moves[1]
