"""Agents explain their decisions (`Agent.explain`) and learners show what they know of a
position (`Agent.knowledge`), for the viewer.

- every registered agent: "no decision yet" before its first decision, then a line of
  its own after `act` (and after `choose`);
- the lines say true things: csp's guess probability and tie count, its certain cells,
  a bandit's Q and N of the action it took, the RL agents' replayed exploration;
- knowledge is right on the current view (a bandit's most certain window per tile, a
  tabular learner's action values);
- neither reads the hidden mines: two games with the same view and different layouts
  give the same explanation and knowledge (the labelled oracle excepted).
"""
import copy
import re

import numpy as np
import pytest

import minelab as ml
from minelab import playthrough
from minelab.agents.bandit import DIRECTION_NAMES, target_actions
from minelab.cells import COVERED, FLAGGED

AGENTS = ml.list_agents()
SMALL = set(playthrough.SMALL_BOARD_AGENTS)  # boards of at most 16 cells (or trained on 4x4)
ONE_SIZE = set(playthrough.ONE_SIZE_AGENTS)  # bound to 5x5 boards (their playthroughs' size)


def make(name, **kw):
    """The agent with the (cheap) parameters of its golden playthrough."""
    return ml.make_agent(name, **{**playthrough.agent_params(name), **kw})


def level_for(name):
    return "4x4x3" if name in SMALL else "5x5x5:none" if name in ONE_SIZE else "8x8x10"


def default_lines(name):
    return {f"{name}: no decision yet", f"{name} does not explain its moves"}


# --------------------------------------------------------------------------- every agent explains
@pytest.mark.parametrize("name", AGENTS)
def test_every_agent_explains_its_decisions(name):
    agent = make(name, seed=3)
    assert agent.explain() == f"{name}: no decision yet"
    lines = []
    for seed in range(3):
        game = ml.Game(level_for(name), seed=seed)
        while not game.over and len(lines) < 40:
            agent.act(game)
            lines.append(agent.explain())
        agent.game_over(game)
    for line in lines:
        assert line.startswith(f"{name}: ") and line not in default_lines(name), line
        assert "\n" not in line and len(line) > len(name) + 10, line
    assert len(set(lines)) > 1, lines  # it says something about each decision, not one fixed line


@pytest.mark.parametrize("name", AGENTS)
def test_choose_explains_too(name):
    agent = make(name, seed=3)
    game = ml.Game(level_for(name), seed=1)
    agent.act(game)
    agent.choose(game)
    assert agent.explain().startswith(f"{name}: ") and agent.explain() not in default_lines(name)


def test_warm_up_leaves_no_explanation():
    agent = ml.make_agent("csp")
    agent.warm_up("5x5x3")
    assert agent.explain() == "csp: no decision yet"


# --------------------------------------------------------------------------- csp: true numbers
def _csp_decisions(name, level, seeds):
    """(view before, mines, explanation) of every decision of `name` on games of `level`."""
    agent = ml.make_agent(name, seed=0)
    for seed in seeds:
        game = ml.Game(level, seed=seed)
        while not game.over:
            view = game.view.copy()
            agent.act(game)
            yield view, game.level.mines, agent.explain()


def test_csp_guess_names_the_least_probability_and_its_ties():
    guesses = 0
    tied = set()
    for view, mines, line in _csp_decisions("csp", "9x9x10", range(12)):
        got = re.fullmatch(r"csp: guess \((\d+), (\d+)\): p\(mine\) = (\S+), the least(?:, tied among (\d+) cells)?.*",
                           line)
        if not got:
            continue
        sol = ml.probability.solve(view, mines)
        free = view == COVERED  # the agent's flags are certain mines: the other covered cells are its candidates
        p = sol.probabilities[free]
        assert got[3] == f"{p.min():.3g}"
        assert sol.probabilities[int(got[1]), int(got[2])] == pytest.approx(p.min(), abs=1e-9)
        n_tied = int(np.count_nonzero(p <= p.min() + 1e-8))
        assert int(got[4] or 1) == n_tied, line
        if got[4] is None:
            assert f"the least of {int(free.sum())} covered cells" in line
        guesses += 1
        tied.add(n_tied > 1)
    assert guesses >= 10 and tied == {True, False}


def test_csp_certain_moves_are_counted_as_the_solver_counts_them():
    seen = 0
    for view, mines, line in _csp_decisions("hcsp", "9x9x10", range(6)):
        got = re.fullmatch(r"hcsp: (\d+) certainly safe cells? revealed(?:, (\d+) certain mines? flagged)? .*", line)
        if not got:
            continue
        sol = ml.probability.solve(view, mines)
        assert int(got[1]) == int(sol.safe.sum())
        assert int(got[2] or 0) == int((sol.mine & (view != FLAGGED)).sum())
        seen += 1
    assert seen >= 10


def test_hcsp_and_best_say_which_rule_broke_the_tie():
    lines = [line for *_, line in _csp_decisions("hcsp", "9x9x10", range(4)) if "guess" in line]
    assert any("closest to the revealed area" in line for line in lines)
    best = [line for *_, line in _csp_decisions("best", "5x5x5", range(20))]
    assert best[0] == "best: opening click at the corner (0, 0)"
    assert any("one step ahead" in line for line in best)
    endgame = [line for line in best if "endgame search over" in line]
    assert endgame
    for line in endgame:
        value = float(re.search(r"win probability (\S+) ", line)[1])
        assert 0.0 < value <= 1.0


# --------------------------------------------------------------------------- bandits: Q and N of the action
ACTION = re.compile(r"(?P<name>[\w-]+): (?P<kind>reveal|flag) \((?P<r>\d+), (?P<c>\d+)\)"
                    r"(?:, unflag and reveal \(\d+, \d+\))?: (?P<how>[^;]+); window centred on "
                    r"\((?P<cr>\d+), (?P<cc>\d+)\) \(target to its (?P<dir>\w+)\), Q = (?P<q>[+-]\d\.\d\d)"
                    r"(?: \(never seen: -1\))? over N = (?P<n>\d+) \((?P<rule>.*)\)")


def _table_entry(table, key):
    row = table[table["key"] == key]
    return (-1.0, 0) if row.empty else (float(row["q"].iloc[0]), int(row["n"].iloc[0]))


def _bandit_steps(agent, level, seeds):
    """(view, table, knowledge before the step, parsed explanation) of each decision."""
    for seed in seeds:
        game = ml.Game(level, seed=seed)
        while not game.over:
            view, table, known = game.view.copy(), agent.table(), agent.knowledge(game)
            agent.act(game)
            got = ACTION.fullmatch(agent.explain())
            if got:
                yield view, table, known, got


@pytest.mark.parametrize("name, params", [("greedy-mab", {}), ("egreedy-mab", {"epsilon": 0.3}),
                                          ("ucb-mab", {}), ("greedy-mab", {"flags": False})])
def test_bandit_explains_the_q_and_n_of_its_action(name, params):
    agent = ml.make_agent(name, seed=2, **params)
    ml.play(agent, "9x9x10:none", 150, seed=1, progress=False)
    checked, hows = 0, set()
    for view, table, known, got in _bandit_steps(agent, "9x9x10:none", range(6)):
        target = (int(got["r"]), int(got["c"]))
        action = [a for a in target_actions(view, target)
                  if a["centre"] == (int(got["cr"]), int(got["cc"])) and a["direction"] == got["dir"]]
        assert len(action) == 1
        q, n = _table_entry(table, action[0]["key"])
        assert abs(float(got["q"]) - q) <= 0.005 + 1e-9 and int(got["n"]) == n, got[0]  # UCB's Q: from its score
        if got["how"].startswith("greedy"):  # the greedy policy's ranking is what knowledge shows
            assert known.values[target] == pytest.approx(q) and known.counts[target] == n
        hows.add(got["how"].split(",")[0].split(" ")[0])
        checked += 1
    assert checked >= 20
    expected = {"greedy-mab": {"greedy"}, "egreedy-mab": {"greedy", "random"}, "ucb-mab": {"UCB"}}[name]
    assert expected <= hows


def test_epsilon_greedy_says_when_it_explored():
    for epsilon, word in ((1.0, "random exploration"), (0.0, "greedy")):
        agent = ml.make_agent("egreedy-mab", seed=4, epsilon=epsilon)
        lines = []
        for seed in range(3):
            game = ml.Game("8x8x10:none", seed=seed)
            agent.act(game)  # the program's opening
            assert "opening click" in agent.explain()
            while not game.over:
                agent.act(game)
                lines.append(agent.explain())
        assert lines and all(f": {word}" in line for line in lines), lines


def test_the_flags_over_mines_rule_is_explained():
    agent = ml.make_agent("greedy-mab", seed=0)
    for key in _all_window_keys("6x6x3:none"):  # every window says "mine": flags run out at once
        agent.keys.learn(key, 1)
    game = ml.Game("6x6x3:none", seed=0)
    agent.act(game)
    lines = []
    while not game.over and len(lines) < 8:
        agent.act(game)
        lines.append(agent.explain())
    assert any("flags would exceed the 3 mines" in line for line in lines), lines


def _all_window_keys(level):
    """Every window key of the positions seen in a few random games (to fill a table)."""
    keys = set()
    for seed in range(6):
        game = ml.Game(level, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.over:
            view = game.view
            for r, c in zip(*np.nonzero(view == COVERED)):
                keys.update(a["key"] for a in target_actions(view, (r, c)))
            r, c = map(int, rng.choice(np.argwhere(view == COVERED)))
            game.reveal(r, c)
    return keys


# --------------------------------------------------------------------------- knowledge
def _bandit_values(agent, view):
    """The independent reading: each covered tile's actions (target_actions) looked up in
    the key table; the most certain wins (largest |Q|, then larger N, then the agent's
    window order); an unseen action is (-1, 0)."""
    q = np.full(view.shape, np.nan)
    n = np.zeros(view.shape, np.int64)
    for r, c in zip(*np.nonzero(view == COVERED)):
        actions = sorted(target_actions(view, (r, c)), key=lambda a: (DIRECTION_NAMES.index(a["direction"]) + 4) % 8)
        best = None
        for a in actions:
            value, count = agent.keys.get(a["key"]) or (-1.0, 0)
            if best is None or (abs(value), count) > (abs(best[0]), best[1]):
                best = (value, count)
        q[r, c], n[r, c] = best
    return q, n


@pytest.mark.parametrize("name", ["greedy-mab", "ucb-mab"])
def test_bandit_knowledge_is_its_most_certain_window_on_the_current_view(name):
    agent = ml.make_agent(name, seed=1)
    ml.play(agent, "9x9x10:none", 100, seed=2, progress=False)
    checked = 0
    for seed in range(4):
        game = ml.Game("9x9x10:none", seed=seed)
        while checked < 12 and not game.over:
            agent.act(game)
            if game.over:
                break
            cv = agent.knowledge(game)
            q, n = _bandit_values(agent, game.view)
            np.testing.assert_array_equal(np.isnan(cv.values), np.isnan(q))
            np.testing.assert_allclose(cv.values[~np.isnan(q)], q[~np.isnan(q)])
            np.testing.assert_array_equal(cv.counts, n)
            assert (cv.lo, cv.hi, cv.high_means) == (-1.0, 1.0, "mine") and "most certain window" in cv.label
            checked += 1
            if not game.over:  # a move made by hand (not by the agent) is on the overlay at once
                r, c = map(int, np.argwhere(game.view == COVERED)[-1])
                game.flag(r, c)
                assert np.isnan(agent.knowledge(game).values[r, c])
                game.unflag(r, c)
    assert checked >= 8


def test_tabular_knowledge_is_the_state_values():
    agent = make("q-learning", seed=1)
    ml.play(agent, "5x5x5:none", 300, seed=1, progress=False)
    game = ml.Game("5x5x5:none", seed=0)
    cv = agent.knowledge(game)
    values = agent.values(game.view)
    np.testing.assert_allclose(cv.values, values.astype(float))  # nothing revealed: every cell covered
    agent.act(game)
    cv = agent.knowledge(game)
    values = agent.values(game.view)
    covered = game.view == COVERED
    if values is None:
        assert np.isnan(cv.values).all() and "never seen" in cv.label
    else:
        np.testing.assert_allclose(cv.values[covered], values[covered].astype(float))
        assert np.isnan(cv.values[~covered]).all() and cv.high_means == "good"
    fresh = make("q-learning")
    fresh.act(ml.Game("5x5x5:none", seed=0))
    unseen = ml.Game.from_mines(np.eye(5, dtype=int))
    unseen.reveal(0, 4)
    assert np.isnan(fresh.knowledge(unseen).values).all() and "never seen" in fresh.knowledge(unseen).label


@pytest.mark.parametrize("name", AGENTS)
def test_knowledge_is_a_cell_values_or_none(name):
    agent = make(name, seed=0)
    game = ml.Game(level_for(name), seed=0)
    agent.act(game)
    cv = agent.knowledge(game)
    learners = {"greedy-mab", "egreedy-mab", "ucb-mab", "sa-greedy", "q-learning", "sarsa", "linear-q", "mcts",
                "gardea-q", "marginal", "conditional"}
    assert (cv is not None) == (name in learners)
    if cv is not None:
        assert cv.values.shape == (game.level.rows, game.level.cols) and cv.values.dtype == np.float64
        assert cv.counts is None or (cv.counts.shape == cv.values.shape and cv.counts.dtype == np.int64)
        assert cv.lo < cv.hi and cv.high_means in ("mine", "good") and cv.label
        assert np.isnan(cv.values[game.view >= 0]).all()  # nothing shown on revealed cells


# --------------------------------------------------------------------------- RL: the replayed choices
@pytest.mark.parametrize("name", ["q-learning", "sarsa", "linear-q"])
def test_rl_explanations_follow_the_steps_own_draws(name):
    """Exploration is replayed on a copy of the stream: every explained cell is the one the
    step revealed (else the line falls back to 'chosen at the end of the step before'), and
    with epsilon 0.5 both branches occur."""
    agent = make(name, seed=5, random_games=3, epsilon=0.5)
    kinds = set()
    for seed in range(12):
        game = ml.Game("5x5x5:none", seed=seed)
        while not game.over:
            move = agent.act(game)[0]
            line = agent.explain()
            assert line.startswith(f"{name}: reveal ({move.row}, {move.col}): "), line
            assert "step before" not in line, line
            kinds.add("random" if "random exploration" in line else "greedy" if "greedy" in line else "new")
        agent.game_over(game)
    assert {"random", "greedy"} <= kinds


def test_rl_frozen_view_explains_unseen_states():
    agent = make("q-learning", seed=5).frozen()
    game = ml.Game("5x5x5:none", seed=0)
    agent.act(game)
    assert "a state never stored (frozen play)" in agent.explain()


# --------------------------------------------------------------------------- no peeking
def _twin_games(rows, cols, mines, seed):
    """Two games with the same view (one reveal) and different hidden layouts."""
    rng = np.random.default_rng(seed)
    layout = np.zeros(rows * cols, int)
    layout[rng.choice(rows * cols, mines, replace=False)] = 1
    layout = layout.reshape(rows, cols)
    game = ml.Game.from_mines(layout)
    counts = np.array([[layout[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2].sum() for c in range(cols)]
                       for r in range(rows)])
    safe = np.argwhere(layout == 0)
    zeros = [tuple(x) for x in safe if counts[tuple(x)] == 0]
    first = zeros[0] if zeros else tuple(safe[0])
    game.reveal(*map(int, first))
    if game.over:
        return None
    for other in ml.probability.sample_layouts(game.view, mines, 50, seed=seed):
        if (other != layout).any():
            twin = ml.Game.from_mines(other.astype(int))
            twin.reveal(*map(int, first))
            assert np.array_equal(twin.view, game.view)
            return game, twin
    return None


def _same_knowledge(a, b):
    if a is None or b is None:
        return a is b
    counts = (a.counts is None and b.counts is None) or np.array_equal(a.counts, b.counts)
    return np.array_equal(a.values, b.values, equal_nan=True) and counts and a[2:] == b[2:]


def _board_for(name):
    return (4, 4, 3) if name in SMALL else (5, 5, 5) if name in ONE_SIZE else (8, 8, 10)


@pytest.mark.parametrize("name", [a for a in AGENTS if not ml.make_agent(a).cheat])
def test_explanations_and_knowledge_do_not_read_the_hidden_mines(name):
    base = make(name, seed=11)
    rows, cols, mines = _board_for(name)
    if base.learns:  # something learnt, so the overlay has numbers
        ml.play(base, f"{rows}x{cols}x{mines}:none", 20, seed=3, progress=False)
    compared = 0
    for seed in range(8):
        pair = _twin_games(rows, cols, mines, seed)
        if pair is None:
            continue
        game, twin = pair
        agent, agent_twin = copy.deepcopy(base), copy.deepcopy(base)  # the same knowledge, the same stream
        assert _same_knowledge(agent.knowledge(game), agent_twin.knowledge(twin))
        agent.act(game)
        agent_twin.act(twin)
        assert agent.explain() == agent_twin.explain(), name
        compared += 1
    assert compared >= 4


def test_the_twin_games_catch_an_agent_that_peeks():
    """The oracle (the labelled cheat) explains from the hidden layout: its lines differ."""
    differ = False
    for seed in range(8):
        pair = _twin_games(8, 8, 10, seed)
        if pair is None:
            continue
        game, twin = pair
        agent, agent_twin = ml.make_agent("oracle"), ml.make_agent("oracle")
        agent.act(game)
        agent_twin.act(twin)
        assert agent.explain().startswith("oracle: CHEAT:")
        differ |= agent.explain() != agent_twin.explain()
    assert differ
