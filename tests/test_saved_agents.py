"""agent.save / load_agent (minelab.agents.saved): what an agent has learnt survives a file,
for every registered agent that learns or is trained; the others say why they cannot."""
import copy

import numpy as np
import pytest

import minelab as ml
from minelab import playthrough
from minelab.agents import load_agent
from minelab.agents.gardea import TrainedAgent

SAVABLE = {"marginal", "conditional", "graphical", "gardea-logreg", "gardea-svm", "gardea-krr", "gardea-q"}


def _make(name, **kw):
    return ml.make_agent(name, **playthrough.agent_params(name), **kw)


def _level(name):
    return "4x4x3" if name in playthrough.SMALL_BOARD_AGENTS else "6x6x6"


@pytest.mark.parametrize("name", sorted(SAVABLE))
def test_a_saved_agent_plays_on_as_the_original(name, tmp_path):
    agent = _make(name, seed=1)
    level = _level(name)
    if not isinstance(agent, TrainedAgent):
        ml.play(agent, level, 60, seed=2)  # learn something first
    path = agent.save(tmp_path / f"{name}.npz")
    again = load_agent(path)
    assert again.name == name and again.params() == agent.params()
    a = ml.play(copy.deepcopy(agent), level, 80, seed=3)
    b = ml.play(again, level, 80, seed=3)
    cols = ["won", "moves", "revealed"]
    assert a[cols].equals(b[cols])


def test_the_semi_deterministic_model_saves_its_conditional_fallback(tmp_path):
    agent = ml.make_agent("semi-deterministic", fallback="conditional", seed=1)
    ml.play(agent, "9x9x10", 50, seed=2)
    again = load_agent(agent.save(tmp_path / "semi.npz"))
    assert ml.play(copy.deepcopy(agent), "9x9x10", 60, seed=4)["won"].tolist() == \
        ml.play(again, "9x9x10", 60, seed=4)["won"].tolist()


@pytest.mark.parametrize("name", [a for a in ml.list_agents() if a not in SAVABLE])
def test_other_agents_say_why_they_cannot_be_saved(name, tmp_path):
    agent = _make(name)
    with pytest.raises(ValueError, match=name):
        agent.save(tmp_path / "x.npz")
    assert not (tmp_path / "x.npz").exists()


def test_bad_files_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        load_agent(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="not a saved minelab agent"):
        load_agent(tmp_path / "other.npz")
    with pytest.raises(ValueError, match=".npz"):
        ml.make_agent("marginal").save(tmp_path / "m.pickle")
