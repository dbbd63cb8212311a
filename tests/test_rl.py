"""The RL agents of bilir2023 (minelab.agents.rl): update rules against a plain-Python
reference on recorded games, Q-learning vs SARSA, the exploration schedule, frozen
evaluation, MCTS's honesty (and the labelled leak), the Gymnasium path, bad input."""
import math

import numpy as np
import pandas as pd
import pytest

import minelab as ml
from minelab.agents.rl.common import REWARD_MINE, REWARD_SAFE, REWARD_WIN, epsilon_at
from minelab.engine import run_streams

LEVEL = "5x5x5:none"


# --------------------------------------------------------------------------- update rules
def record_games(agent, level, n_games, seed):
    """Play interactively; return per game the list of (view before, action, reward, over)."""
    deal_rng, agent_rng = run_streams(seed)
    agent.rng = agent_rng
    games = []
    for _ in range(n_games):
        game = ml.Game(level, seed=deal_rng)
        steps = []
        while not game.over:
            before = game.view.ravel().copy()
            move = agent.act(game)[0]
            a = move.row * game.level.cols + move.col
            r = REWARD_MINE if game.lost else (REWARD_WIN if game.won else REWARD_SAFE)
            steps.append((before, a, r, game.over, game.view.ravel().copy()))
        games.append(steps)
    return games


def reference_table(games, update, alpha=0.1, gamma=0.9):
    """Q from the recorded transitions by the textbook rules, in plain Python dicts."""
    q = {}

    def row(view):
        return q.setdefault(view.tobytes(), np.zeros(view.shape[0]))

    for steps in games:
        for i, (s, a, r, over, s2) in enumerate(steps):
            qs = row(s)
            target = r
            if not over:
                a2 = steps[i + 1][1]
                covered = s2 == -1
                if update == "q":
                    target += gamma * row(s2)[covered].max()
                elif update == "sarsa":
                    target += gamma * row(s2)[a2]
                else:  # the program's: Q(s, a')
                    target += gamma * qs[a2]
            qs[a] += alpha * (target - qs[a])
    return q


@pytest.mark.parametrize("name, params, update", [
    ("q-learning", {}, "q"), ("sarsa", {}, "sarsa"), ("sarsa", {"bootstrap": "current-state"}, "current")])
def test_update_rules_match_a_plain_python_reference(name, params, update):
    # random for 30 games, then epsilon-greedy: both exploratory and greedy steps are covered
    agent = ml.make_agent(name, random_games=30, epsilon_min=0.2, **params)
    games = record_games(agent, "4x4x3:none", 120, seed=4)
    ref = reference_table(games, update)
    assert agent.states == len(ref)
    for key, values in ref.items():
        got = agent.values(np.frombuffer(key, np.int8).reshape(4, 4))
        np.testing.assert_allclose(got.ravel(), values, rtol=1e-5, atol=1e-5)


def test_q_learning_and_sarsa_differ_only_through_exploration():
    """Same boards and streams: with exploration their tables differ; greedy (epsilon 0)
    the next action is the argmax, so SARSA's target is Q-learning's and the tables agree."""
    def table(name, **kw):
        agent = ml.make_agent(name, **kw)
        ml.play(agent, "4x4x3:none", 400, seed=1)
        return agent.table.frame().sort_values(["k0"]).reset_index(drop=True)

    explore = dict(random_games=100, epsilon_min=0.3)
    assert not table("q-learning", **explore).equals(table("sarsa", **explore))
    greedy = dict(random_games=0, epsilon=0.0)
    assert table("q-learning", **greedy).equals(table("sarsa", **greedy))


def test_exploration_schedule_is_the_papers():
    ex = ml.make_agent("q-learning").explore  # the paper's: 500,000 random games, then 0.01 + 0.99 e^(-1e-5 i)
    assert epsilon_at(ex, 0) == 1.0 and epsilon_at(ex, 499_999) == 1.0
    assert epsilon_at(ex, 500_000) == pytest.approx(1.0)
    assert epsilon_at(ex, 600_000) == pytest.approx(0.01 + 0.99 * math.exp(-1.0))
    assert epsilon_at(ex, 30_000_000) == pytest.approx(0.01)
    assert epsilon_at(ml.make_agent("q-learning", random_games=0, epsilon=0.1).explore, 10) == 0.1


def test_random_phase_plays_like_random():
    """The first 500,000 games are random: the win rate of uniform random play (~0.5-0.7%)."""
    df = ml.play("q-learning", LEVEL, 100_000, seed=0)
    assert 0.003 < df["won"].mean() < 0.009
    assert (df["states"].diff().dropna() >= 0).all()


def test_frozen_policy_is_greedy_learns_nothing_and_shares_values():
    agent = ml.make_agent("q-learning", random_games=2_000)
    ml.play(agent, LEVEL, 5_000, seed=3)
    before = agent.table.q.copy(), agent.states, int(agent.games[0])
    frozen = agent.frozen()
    a = ml.play(frozen, LEVEL, 2_000, seed=9)
    b = ml.play(agent.frozen(), LEVEL, 2_000, seed=9)
    assert a["won"].equals(b["won"])  # the same boards, the same greedy play
    np.testing.assert_array_equal(agent.table.q, before[0])
    assert (agent.states, int(agent.games[0])) == before[1:]
    assert frozen.table is agent.table


def test_agent_is_tied_to_its_board_size():
    agent = ml.make_agent("q-learning")
    ml.play(agent, LEVEL, 10, seed=0)
    with pytest.raises(ValueError, match="learned on 5x5"):
        ml.play(agent, "4x4x3:none", 10, seed=0)


def test_state_table_grows_and_keeps_every_state():
    agent = ml.make_agent("q-learning", random_games=0, epsilon=0.5)
    ml.play(agent, "6x6x6:none", 20_000, seed=2)
    frame = agent.table.frame()
    assert len(frame) == agent.states > 4096  # past the first capacity: grown and rehashed
    assert not frame.duplicated([c for c in frame.columns if c.startswith("k")]).any()


def test_linear_q_learns_and_its_program_variant_differs():
    a = ml.make_agent("linear-q", random_games=1_000)
    ml.play(a, LEVEL, 20_000, seed=0)
    b = ml.make_agent("linear-q", random_games=0, epsilon=0.1)
    ml.play(b, LEVEL, 20_000, seed=0)
    assert not np.array_equal(a.W, b.W)
    ev = ml.play(a.frozen(), LEVEL, 5_000, seed=5)
    assert ev["won"].mean() > 0.02  # well above random play (~0.6%)


@pytest.mark.parametrize("name, kw", [
    ("q-learning", {"alpha": 0}), ("q-learning", {"gamma": 1.5}), ("sarsa", {"bootstrap": "previous"}),
    ("linear-q", {"epsilon": 2}), ("q-learning", {"random_games": -1}), ("mcts", {"simulations": 0}),
    ("mcts", {"leaky": "yes"}), ("mcts", {"c": -1}), ("q-learning", {"learning": 1}), ("mcts", {"act": "greedy"}),
    ("mcts", {"update": "eq7"}),
    ("q-learning", {"store_terminal": 1})])
def test_bad_parameters_name_the_field(name, kw):
    field = next(iter(kw))
    with pytest.raises(ValueError, match=field):
        ml.make_agent(name, **kw)


# --------------------------------------------------------------------------- MCTS
def _positions(n_positions, seed=0):
    """(game, copy of the game with the hidden layout redealt consistently with its view)."""
    from minelab.probability import sample_layouts

    out = []
    rng = np.random.default_rng(seed)
    while len(out) < n_positions:
        game = ml.Game(LEVEL, seed=int(rng.integers(1 << 30)))
        safe = np.flatnonzero(game._gs.mine == 0)
        game.reveal(*divmod(int(rng.choice(safe)), 5))
        if game.over:
            continue
        twin = ml.Game(LEVEL, seed=0)
        layout = sample_layouts(game.view, 5, 1, seed=int(rng.integers(1 << 30)))[0].ravel()
        if (layout == game._gs.mine.astype(bool)).all():
            continue
        twin._gs.mine[:] = layout
        from minelab.engine import neighbour_counts

        neighbour_counts(twin._gs.mine, twin._gs.nbr, twin._gs.nbr_count, twin._gs.counts)
        twin._gs.shown[:] = game._gs.shown
        twin._gs.counters[:] = game._gs.counters
        out.append((game, twin))
    return out


def test_mcts_simulations_never_read_the_hidden_layout():
    """The same view and the same agent state give the same move whatever the hidden
    layout is: honest MCTS never differs; the leaky cheat does (so the check can fail)."""
    honest = ml.make_agent("mcts", simulations=10, seed=1)
    leaky = ml.make_agent("mcts", simulations=10, leaky=True, seed=1)
    for agent in (honest, leaky):
        ml.play(agent, LEVEL, 3_000, seed=2)
    assert not honest.cheat and leaky.cheat
    differs = {"honest": 0, "leaky": 0}
    for game, twin in _positions(40):
        for label, agent in (("honest", honest), ("leaky", leaky)):
            a, b = agent.copy(), agent.copy()
            b.rng.bit_generator.state = a.rng.bit_generator.state
            differs[label] += a.act(_clone(game))[0] != b.act(_clone(twin))[0]
    assert differs["honest"] == 0
    assert differs["leaky"] > 0


def _clone(game):
    import copy

    return copy.deepcopy(game)


def test_mcts_with_ten_simulations_learns_faster_than_with_one():
    one, ten = ml.make_agent("mcts"), ml.make_agent("mcts", simulations=10)
    for agent in (one, ten):
        ml.play(agent, LEVEL, 20_000, seed=0)
    r1 = ml.play(one.frozen(), LEVEL, 4_000, seed=7)["won"].mean()
    r10 = ml.play(ten.frozen(), LEVEL, 4_000, seed=7)["won"].mean()
    assert r10 > r1


def test_mcts_readings_change_what_they_say_and_nothing_else():
    """act="ucb1" changes a training game's real moves, not the updates' rule; update=
    "printed" sets Q to (q - Q) / N. Defaults keep their task parameters (and moves)."""
    assert ml.make_agent("mcts").params() == {"simulations": 1, "c": 100.0, "gamma": 0.9}
    base, ucb, printed = (ml.make_agent("mcts", seed=3, **kw) for kw in ({}, {"act": "ucb1"}, {"update": "printed"}))
    runs = {name: ml.play(a, LEVEL, 300, seed=4) for name, a in (("base", base), ("ucb", ucb), ("printed", printed))}
    assert ucb.params()["act"] == "ucb1" and printed.params()["update"] == "printed"
    assert not runs["ucb"]["moves"].equals(runs["base"]["moves"])  # other real moves
    # the printed update divides by N: values of pairs visited 3+ times shrink far below the mean's
    def mean_abs(agent):
        n = agent.table.values_used
        q, visits = agent.table.q[:n], agent.table.visits[:n]
        return np.abs(q[visits >= 3]).mean()

    assert mean_abs(printed) < 0.5 * mean_abs(base)
    # frozen play is the argmax of Q (ties to the lowest cell) under both act rules
    for agent in (base, ucb):
        game = ml.Game(LEVEL, seed=9)
        view = game._gs.shown.copy()
        row = agent._row_of(agent.table, view)  # the empty board: stored in the first game
        move = agent.frozen().act(game)[0]
        assert move.row * 5 + move.col == int(np.argmax(agent.table.row(row, view)[0]))


def test_storing_terminal_views_changes_no_move_and_counts_them():
    """store_terminal only adds each game's end view to the table (Fig A2's reading):
    the same moves, Q values of the states acted from unchanged, more states."""
    plain, counted = ml.make_agent("q-learning", seed=1), ml.make_agent("q-learning", seed=1, store_terminal=True)
    a, b = ml.play(plain, LEVEL, 2_000, seed=2), ml.play(counted, LEVEL, 2_000, seed=2)
    assert a["moves"].equals(b["moves"]) and a["won"].equals(b["won"])
    assert counted.states > plain.states
    view = ml.Game(LEVEL, seed=0)._gs.shown  # the empty board: acted from in every game
    np.testing.assert_array_equal(plain.values(view.reshape(5, 5)), counted.values(view.reshape(5, 5)))
    # one terminal view per distinct end: never more than the games played
    assert counted.states - plain.states <= 2_000


# --------------------------------------------------------------------------- the environment
def test_q_learning_through_the_gymnasium_env_equals_the_fast_path():
    import minelab.envs  # noqa: F401  (registers the env)
    import gymnasium

    params = dict(random_games=300, epsilon_min=0.05, epsilon_decay=1e-3)
    fast = ml.make_agent("q-learning", **params)
    ml.play(fast, "4x4x3:none", 3_000, seed=11)

    slow = ml.make_agent("q-learning", **params)
    deal_rng, agent_rng = run_streams(11)
    slow.rng = agent_rng
    env = gymnasium.make("minelab/Minesweeper-v0", level="4x4x3:none", reward="bilir2023")
    env.unwrapped.np_random = deal_rng
    for _ in range(3_000):
        obs, info = env.reset()
        action = slow.begin_episode(obs)
        while True:
            obs, reward, terminated, truncated, info = env.step(action)
            action = slow.observe(reward, obs, terminated)
            if terminated:
                break
    assert slow.states == fast.states
    np.testing.assert_array_equal(slow.table.q[: slow.states], fast.table.q[: fast.states])
    np.testing.assert_array_equal(slow.table.row_keys[: slow.states], fast.table.row_keys[: fast.states])
    assert int(slow.games[0]) == int(fast.games[0]) == 3_000


def test_observe_without_an_episode_is_a_clear_error():
    agent = ml.make_agent("q-learning")
    with pytest.raises(ValueError, match="begin_episode"):
        agent.observe(1.0, np.full((5, 5), -1), False)


# --------------------------------------------------------------------------- the train_eval task
def test_train_eval_evaluates_every_method_on_the_same_boards(tmp_path):
    from minelab.sweep import run_sweep, task_rows
    from minelab.tasks import eval_spec, evaluation_seed

    specs = [eval_spec(agent, {}, LEVEL, 2_000, 1_000, 300, seed=3) for agent in ("q-learning", "random")]
    assert specs[0]["seed"] == specs[1]["seed"] and specs[0]["eval_seed"] == specs[1]["eval_seed"]
    df = run_sweep(specs, results_dir=tmp_path, executor="serial")
    q, rnd = (task_rows(df, s) for s in specs)
    assert list(q["part"]) == ["train", "train", "eval", "eval"] and list(rnd["part"]) == ["eval", "eval"]
    assert list(q.loc[q["part"] == "train", "states"]) == sorted(q.loc[q["part"] == "train", "states"])
    # the baseline's point 2 is random play on evaluation_seed(eval_seed, 2)'s boards
    again = ml.play("random", LEVEL, 300, evaluation_seed(specs[1]["eval_seed"], 2))
    assert int(rnd["wins"].iloc[1]) == int(again["won"].sum())


class _Stop(Exception):
    pass


# one learner per kind of what it keeps: a state table, weights, a table of covered cells
@pytest.mark.parametrize("agent, params", [("q-learning", {"random_games": 300}), ("linear-q", {"random_games": 300}),
                                           ("mcts", {})])
def test_an_interrupted_train_eval_run_goes_on_from_its_checkpoint(agent, params, tmp_path, monkeypatch):
    from minelab import tasks
    from minelab.sweep import TaskError, result_path, run_sweep

    spec = tasks.eval_spec(agent, params, LEVEL, 1_200, 200, 100, seed=5)
    whole = run_sweep([spec], results_dir=tmp_path / "whole", executor="serial")
    monkeypatch.setattr(tasks, "CHECKPOINT_SECONDS", 0.0)  # a checkpoint after every point
    calls, real = [], tasks.play

    def play(*args, stop_at=None, **kw):
        calls.append(args[2])
        if stop_at is not None and len(calls) == stop_at:
            raise _Stop("interrupted")
        return real(*args, **kw)

    # stopped in its 4th training block, after points 1-3 were checkpointed
    monkeypatch.setattr(tasks, "play", lambda *a, **k: play(*a, stop_at=7, **k))
    with pytest.raises(TaskError, match="interrupted"):
        run_sweep([spec], results_dir=tmp_path / "cut", executor="serial")
    kept = result_path(spec, tmp_path / "cut").with_name(f"{result_path(spec).stem}.checkpoint.npz")
    assert kept.exists() and not result_path(spec, tmp_path / "cut").exists()
    calls.clear()
    monkeypatch.setattr(tasks, "play", play)
    resumed = run_sweep([spec], results_dir=tmp_path / "cut", executor="serial")
    assert len(calls) == 2 * 3  # points 4-6 only: a training block and an evaluation each
    pd.testing.assert_frame_equal(resumed, whole)
    assert not kept.exists()  # gone once the result is written


def test_a_checkpoint_of_other_code_or_another_task_is_never_read(tmp_path, monkeypatch):
    from minelab import tasks
    from minelab.sweep import result_path, run_sweep

    spec = tasks.eval_spec("q-learning", {"random_games": 300}, LEVEL, 600, 200, 100, seed=6)
    whole = run_sweep([spec], results_dir=tmp_path / "whole", executor="serial")
    other = ml.make_agent("q-learning", random_games=300)
    ml.play(other, LEVEL, 400, seed=1)
    kept = result_path(spec, tmp_path / "cut").with_name(f"{result_path(spec).stem}.checkpoint.npz")
    kept.parent.mkdir(parents=True)
    from minelab.agents.saved import save_agent

    save_agent(other, kept, extra={"tag": "another task", "point": 2, "train_rows": [], "eval_rows": []})
    calls, real = [], tasks.play
    monkeypatch.setattr(tasks, "play", lambda *a, **k: calls.append(1) or real(*a, **k))
    again = run_sweep([spec], results_dir=tmp_path / "cut", executor="serial")
    assert len(calls) == 6  # every point played: the foreign checkpoint was not taken
    pd.testing.assert_frame_equal(again, whole)
    kept.write_bytes(b"not a checkpoint")  # damaged: ignored too
    result_path(spec, tmp_path / "cut").unlink()
    pd.testing.assert_frame_equal(run_sweep([spec], results_dir=tmp_path / "cut", executor="serial"), whole)


def _old_train_part(agent, stages, seeds, extra):
    """The train part of a train_test result as it has always been defined: each stage one
    play() run, cut into CURVE_POINTS blocks of games."""
    from minelab.tasks import CURVE_POINTS

    frames, done = [], 0
    for i, (level, games) in enumerate(stages):
        df = ml.play(agent, level, games, seeds[i], progress=False)
        size = max(1, len(df) // CURVE_POINTS)
        g = df.groupby(df["game"].to_numpy() // size, sort=True)
        out = pd.DataFrame({"games": g.size(), "wins": g["won"].sum(), "moves": g["moves"].sum(),
                            **{f: g[f].last() for f in extra}})
        out["games_end"] = done + out["games"].cumsum()
        out.insert(0, "level", level)
        out.insert(0, "stage", i)
        out.insert(0, "part", "train")
        frames.append(out.reset_index(drop=True))
        done += games
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("agent", ["q-learning", "greedy-mab", "marginal"])
def test_an_interrupted_train_test_run_goes_on_from_its_checkpoint(agent, tmp_path, monkeypatch):
    from minelab import runner, tasks
    from minelab.sweep import TaskError, result_path, run_sweep, task_rows

    params = {"random_games": 300} if agent == "q-learning" else {}
    level = LEVEL if agent == "q-learning" else "6x6x6"
    stages = [(level, 1_234), (level, 700)]
    spec = tasks.train_spec(agent, params, stages, [(level, 50)], seed=7)
    monkeypatch.setattr(tasks, "TRAIN_SEGMENT", 100)
    whole = run_sweep([spec], results_dir=tmp_path / "whole", executor="serial")
    fresh = ml.make_agent(agent, **params)
    seeds = np.random.SeedSequence(spec["seed"]).spawn(3)
    train = task_rows(whole, spec).query("part == 'train'").reset_index(drop=True)
    expected = _old_train_part(fresh, stages, seeds, fresh.extra_fields)
    pd.testing.assert_frame_equal(train[expected.columns].astype({"level": str, "part": str}),
                                  expected.astype({"level": str, "part": str}), check_dtype=False)

    monkeypatch.setattr(tasks, "CHECKPOINT_SECONDS", 0.0)  # a checkpoint after every segment
    segments, real = [], runner.play_segments

    def play_segments(*args, stop_at=None, **kw):
        for item in real(*args, **kw):
            segments.append(item[1]["games"])
            if stop_at is not None and len(segments) == stop_at:
                raise _Stop("interrupted")
            yield item

    # 13 segments of 100 games (blocks of 2) make the first stage; stopped in the second
    # stage's second segment, after its first was checkpointed
    monkeypatch.setattr(tasks, "play_segments", lambda *a, **k: play_segments(*a, stop_at=15, **k))
    with pytest.raises(TaskError, match="interrupted"):
        run_sweep([spec], results_dir=tmp_path / "cut", executor="serial")
    kept = result_path(spec, tmp_path / "cut").with_name(f"{result_path(spec).stem}.checkpoint.npz")
    assert kept.exists()
    segments.clear()
    monkeypatch.setattr(tasks, "play_segments", play_segments)
    resumed = run_sweep([spec], results_dir=tmp_path / "cut", executor="serial")
    assert segments == [200, 300, 400, 500, 600, 700]  # the second stage from its second segment
    pd.testing.assert_frame_equal(resumed, whole)
    assert not kept.exists()


@pytest.mark.parametrize("change, needle", [
    ({"games": 2_500}, "multiple of 'every'"), ({"every": 0}, "'every'"), ({"eval_seed": -1}, "eval_seed"),
    ({"colour": 1}, "'colour' is not a 'train_eval' param"), ({"agent": "nobody"}, "agent")])
def test_train_eval_bad_input_names_the_field(change, needle, tmp_path):
    from minelab.sweep import run_sweep
    from minelab.tasks import eval_spec

    task = {**eval_spec("q-learning", {}, LEVEL, 2_000, 1_000, 100, seed=0), **change}
    with pytest.raises(ValueError, match=needle):
        run_sweep([task], results_dir=tmp_path, executor="serial")


def test_paper_methods_are_checked():
    from minelab.papers import bilir2023

    with pytest.raises(ValueError, match="not one of"):
        bilir2023.run_curves(["DQN"], 1_000, 500, 100)
    with pytest.raises(ValueError, match="multiple of every"):
        bilir2023.run_curves(["Q-learning"], 1_000, 300, 100)


def test_a_growing_table_keeps_its_values_and_never_frees_an_array_still_in_use(monkeypatch):
    from minelab.agents.rl import table as table_module
    from minelab.agents.rl.table import StateTable, insert_row, key_words
    t = StateTable(25, visits=True, capacity=16)
    key = np.zeros(key_words(25), np.uint64)
    for i in range(16):
        key[0] = i + 1
        t.q[insert_row(t.arrays(), key)] = i
    held = t.q[3]  # a view someone still holds (a viewer's overlay, say)
    before = t.q
    t.reserve(100)
    assert t.q is not before and held[0] == 3  # in use: grown by a copy, the old array stays whole
    del held, before

    def no_copy(*_):
        raise AssertionError("grown by a copy although nothing else held the array")
    monkeypatch.setattr(table_module, "_grown", no_copy)
    t.reserve(1000)  # nothing else holds the arrays: grown in place
    assert t.q.shape[0] >= 1016 and t.visits.shape[0] == t.q.shape[0] == t.row_keys.shape[0]
    assert [t.q[r, 0] for r in range(16)] == list(range(16)) and not t.q[16:].any()
    keys, q, visits = t.release()
    assert q.shape == (16, 25) and keys.shape[0] == 16 and visits.shape == (16, 25) and len(t) == 0
    assert list(q[:, 0]) == list(range(16))


def test_covered_table_keeps_a_value_per_covered_cell_and_grows_without_losing_any():
    """CoveredTable (MCTS's statistics): a row is as long as its view has covered cells,
    values sit in cell order, `row` spreads them back over the view, `value_index` finds
    a cell's slot; growing keeps every value and the map."""
    from minelab.agents.rl.table import CoveredTable, covered_room, find_row, insert_covered, key_words, pack_view
    from minelab.agents.rl.table import value_index
    rng = np.random.default_rng(0)
    t = CoveredTable(25, capacity=16)
    views, rows = [], []
    for _ in range(300):
        view = np.where(rng.random(25) < 0.5, -1, rng.integers(0, 4, 25)).astype(np.int8)
        key = np.zeros(key_words(25), np.uint64)
        pack_view(view, key)
        if find_row(t.arrays(), key) >= 0:
            continue
        if not covered_room(t.arrays(), 1, 25):
            t.reserve(1, 25)
        row = insert_covered(t.arrays(), key, view)
        covered = np.flatnonzero(view == -1)
        assert t.row_start[row + 1] - t.row_start[row] == covered.size
        for c in covered:  # each covered cell's value: its own number, so a slip shows
            k = value_index(t.arrays(), row, view, c)
            t.q[k], t.visits[k] = row + c / 100, c + 1
        views.append(view)
        rows.append(row)
    assert len(t) == len(rows) > 200 and t.q.shape[0] > 16 * 25 // 2 + 25  # grown several times
    for view, row in zip(views, rows):
        key = np.zeros(key_words(25), np.uint64)
        pack_view(view, key)
        assert find_row(t.arrays(), key) == row
        q, visits = t.row(row, view)
        covered = view == -1
        np.testing.assert_allclose(q[covered], (row + np.flatnonzero(covered) / 100).astype(np.float32))
        assert (visits[covered] == np.flatnonzero(covered) + 1).all() and not q[~covered].any()
    assert t.values_used == sum(int((v == -1).sum()) for v in views)


def test_bilir_runs_that_agree_exactly_keep_the_binomial_width():
    """Identical runs (all 14 of 10,000, or all 0) have no spread over runs: the interval
    is the pooled Wilson one, never zero-wide; runs that differ keep their t-interval."""
    from minelab.papers.bilir2023 import summarize
    from minelab.stats import wilson

    def curves(wins):
        return pd.DataFrame({"method": "m", "replicate": range(len(wins)), "games_end": 100, "boards": 10_000,
                             "wins": wins, "win_rate": np.array(wins) / 10_000})

    for wins in ([14, 14, 14], [0, 0, 0]):
        r = summarize(curves(wins)).iloc[0]
        lo, hi = wilson(sum(wins), 30_000)
        assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi)) and r.ci_high > r.ci_low >= 0.0
        assert r.interval == "t over 3 runs, widened to the pooled Wilson interval"
    spread = summarize(curves([1_000, 2_000, 3_000])).iloc[0]
    assert spread.interval == "t over 3 runs" and spread.ci_high - spread.ci_low > 0.1
