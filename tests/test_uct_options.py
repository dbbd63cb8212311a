"""The further-work options of `oh` and `uct` (minelab.agents.uct, "Further work"): off by
default and then the paper's search exactly, each one changing play when on, none reading
the hidden mines, out-of-range values a clear error from Python and from the CLI alike."""
import copy

import numpy as np
import pytest

import minelab as ml
from minelab.agents import uct
from minelab.cli import main
from minelab.playthrough import changed
from test_agent_contract import _scramble_hidden  # another hidden layout under the same view

# one setting per option, on (and one with all of them at once)
ON = {
    "pairing": {"pairing": True},
    "lexicographic": {"ordering": "lexicographic"},
    "probability": {"ordering": "probability"},
    "random order": {"ordering": "random"},
    "polynomial widening": {"widening_k": 1.0, "widening_alpha": 0.25},
    "reward widening": {"widening_k": 1.0, "widening": "reward"},
    "sims_per_node": {"sims_per_node": 3},
    "rave": {"rave": 100.0},
    "all": {"pairing": True, "ordering": "random", "widening_k": 2.0, "sims_per_node": 2, "rave": 50.0},
}
OFF = {"pairing": False, "ordering": "none", "widening_k": 0.0, "widening_alpha": 0.5, "widening": "polynomial",
       "sims_per_node": 1, "rave": 0.0}
LEVEL, SIMS = "5x5x10", 60


def _games(name, **params):
    return ml.play(ml.make_agent(name, seed=1, simulations=SIMS, **params), LEVEL, 12, seed=2, progress=False)


def test_off_is_the_published_search():
    """Every option off (given or not) is today's agent: same params, same games, and the
    golden playthroughs of both agents unchanged."""
    for name in ("oh", "uct"):
        assert ml.make_agent(name, simulations=SIMS, **OFF).params() == {"simulations": SIMS}
        assert _games(name, **OFF).equals(_games(name))
    assert changed(names=["oh", "uct"]) == []


@pytest.mark.parametrize("option", list(ON))
def test_each_option_changes_play(option):
    agent = ml.make_agent("oh", simulations=SIMS, **ON[option])
    assert set(agent.params()) == {"simulations", *ON[option]}  # an option on is part of the agent's key
    assert not _games("oh", **ON[option]).equals(_games("oh"))


@pytest.mark.parametrize("option", ["pairing", "random order", "reward widening", "sims_per_node", "rave"])
def test_each_option_changes_uct_too(option):
    assert not _games("uct", **ON[option]).equals(_games("uct"))


@pytest.mark.parametrize("option", list(ON))
def test_no_option_reads_the_hidden_mines(option):
    """Same view, same agent state, another hidden layout: the same next move."""
    checked = 0
    for seed in range(20):
        game, agent = ml.Game(LEVEL, seed=seed), ml.make_agent("oh", seed=seed, simulations=30, **ON[option])
        agent.act(game)
        while not game.over and checked < 8:
            same, same_agent = copy.deepcopy((game, agent))
            twin, twin_agent = copy.deepcopy((game, agent))
            _scramble_hidden(twin, np.random.default_rng(seed))
            assert same_agent.choose(same) == twin_agent.choose(twin), f"{option} read the hidden mines (seed {seed})"
            checked += 1
            agent.act(game)
        if checked >= 8:
            break
    assert checked == 8


def test_orders_and_widening_counts():
    """The kernels' orders on a 2x3 board and the widening rules' counts."""
    rows, cols, n = 2, 3, 6
    agent = ml.make_agent("oh", simulations=10, ordering="lexicographic")
    fw = uct.new_further_work(n, 10, ordered=True)
    view = np.array([1, -1, -1, -1, -1, -1], np.int8)
    prob = np.array([np.nan, 0.5, 0.2, 0.5, 0.5, 0.2])
    s = uct.new_solver_state(n, 2)
    gs = ml.Game(f"{rows}x{cols}x2", seed=0)._gs
    for ordering, expect in (("lexicographic", [4, 2, 5]), ("probability", [2, 5, 4])):
        fc = agent.further_config(rows, cols)._replace(ordering=uct.ORDERINGS.index(ordering))
        cand = np.array([2, 4, 5, 0, 0, 0], np.int64)  # (0,2), (1,1), (1,2)
        uct.order_candidates(view, gs.nbr, gs.nbr_count, s, prob, fc, fw, 0, cand, 3)
        assert list(cand[:3]) == expect, ordering
    tb = uct.StateTable(n, visits=True, capacity=4).arrays()
    cand = np.array([1, 2, 3, 4, 5, 0], np.int64)
    poly = agent.further_config(rows, cols)._replace(widening=uct.WIDEN_POLY, widening_k=1.0, widening_alpha=0.5)
    assert [uct.widened(tb, 0, cand, 5, n_s, poly) for n_s in (0, 1, 4, 5, 100)] == [1, 1, 2, 3, 5]
    reward = poly._replace(widening=uct.WIDEN_REWARD)
    assert uct.widened(tb, 0, cand, 5, 10, reward) == 1  # nothing tried: one
    tb.visits[0, 1], tb.q[0, 1] = 10, 0.2
    assert uct.widened(tb, 0, cand, 5, 10, reward) == 2  # best mean 0.2 < 1 - 1/sqrt(10): one more
    tb.q[0, 1] = 0.9
    assert uct.widened(tb, 0, cand, 5, 10, reward) == 1  # 0.9 >= 0.68: keep one


@pytest.mark.parametrize("field, value, says", [
    ("pairing", "yes", "pairing must be True or False"),
    ("ordering", "diagonal", "ordering must be one of none, lexicographic, probability, random"),
    ("widening_k", -1, r"widening_k must be a finite number >= 0"),
    ("widening_alpha", -0.1, r"widening_alpha must be a number in \[0, 1\]"),
    ("widening_alpha", 1.5, r"widening_alpha must be a number in \[0, 1\]"),
    ("widening", "cubic", "widening must be one of polynomial, reward"),
    ("sims_per_node", 0, "sims_per_node must be an integer >= 1"),
    ("sims_per_node", 1.5, "sims_per_node must be an integer >= 1"),
    ("rave", -2.0, "rave must be a finite number >= 0"),
    ("widening", "reward", "widening='reward' needs widening_k > 0"),
])
def test_bad_values_are_the_same_clear_error_in_python_and_the_cli(field, value, says, capsys):
    for name in ("oh", "uct"):
        with pytest.raises(ValueError, match=says):
            ml.make_agent(name, **{field: value})
    assert main(["play", "oh", "4x4x4", "--games", "1", "--param", f"{field}={value!r}"]) == 2
    assert says.replace("\\", "") in capsys.readouterr().err
