"""gardea2015's learned-model figures (minelab.papers.gardea2015_learners) and the
baselines of its §III-A: the oracle that looks the mines up a fixed share of the time."""
import numpy as np
import pytest

import minelab as ml
from minelab.engine import run_streams


def _interactive(agent_factory, level, n, seed):
    deal, agent_rng = run_streams(seed)
    agent = agent_factory()
    agent.rng = agent_rng
    return [(bool(g.won), len(g.moves), g.revealed) for g in
            (agent.play_game(ml.Game(level, seed=deal)) for _ in range(n))]


@pytest.mark.parametrize("lookup", [0.0, 0.5, 0.9])
def test_oracle_lookup_batch_equals_interactive(lookup):
    df = ml.play(ml.make_agent("oracle", lookup=lookup), "8x8x10", 60, seed=3)
    assert list(zip(df["won"], df["moves"], df["revealed"])) == \
        _interactive(lambda: ml.make_agent("oracle", lookup=lookup), "8x8x10", 60, 3)


def test_oracle_lookup_spans_random_to_perfect():
    """lookup 1 wins every game, 0 plays like `random` (the same boards: not one more win
    than chance allows), and the win rate grows with the share of looked-up moves."""
    level = "6x6x6"
    rates = {f: ml.play(ml.make_agent("oracle", lookup=f), level, 600, seed=1)["won"].mean()
             for f in (0.0, 0.8, 0.95, 1.0)}
    assert rates[1.0] == 1.0
    rnd = ml.play("random", level, 600, seed=1)["won"].mean()
    assert abs(rates[0.0] - rnd) < 0.05
    assert rates[0.0] < rates[0.8] < rates[0.95] < rates[1.0]


@pytest.mark.parametrize("bad", [-0.1, 1.5, "half", True])
def test_oracle_lookup_must_be_a_fraction(bad):
    with pytest.raises(ValueError, match="lookup"):
        ml.make_agent("oracle", lookup=bad)


def test_oracle_with_lookup_is_still_a_labelled_cheat():
    agent = ml.make_agent("oracle", lookup=0.5)
    assert agent.cheat and agent.params() == {"lookup": 0.5}
    assert ml.make_agent("oracle").params() == {}  # the plain oracle's files and keys are unchanged
    assert np.isclose(agent.lookup, 0.5)
