"""The Gymnasium environments (minelab.envs): API conformance, seeding against the engine,
rewards on scripted layouts, input checks, the reveal_mines guard, the vector env's autoreset."""
import doctest
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import minelab.envs as envs
from minelab.cells import COVERED, MINE
from minelab.engine import begin_game, board_text, deal_first_click, new_game_state
from minelab.envs import ENV_ID, MinesweeperEnv, MinesweeperVectorEnv, random_legal_action, random_legal_actions
from minelab.levels import Level

TOP_ROW = np.zeros((5, 5), int)
TOP_ROW[0] = 1  # five mines along the top: (4, 4) is a zero whose flood wins the game


def counts_of(layout):
    padded = np.pad(np.asarray(layout, int), 1)
    rows, cols = layout.shape
    return sum(padded[1 + dr:1 + dr + rows, 1 + dc:1 + dc + cols]
               for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))


def play_random(env, seed, steps):
    """(obs, reward, terminated, info) of `steps` random legal steps, resetting at episode ends."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    out = []
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(random_legal_action(info["action_mask"], rng.random()))
        out.append((obs, reward, terminated, info))
        if terminated:
            _, info = env.reset()
    return out


# ------------------------------------------------------------------------ gymnasium API
@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_check_env_passes_without_warnings(render_mode):
    env = gymnasium.make(ENV_ID, render_mode=render_mode).unwrapped  # with a spec: every render mode is tried
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


def test_make_steps_through_the_registered_env():
    env = gymnasium.make(ENV_ID, level="4x4x2:safe", reward="win-loss")
    obs, info = env.reset(seed=3)
    assert obs.shape == (4, 4) and obs.dtype == np.int8 and (obs == COVERED).all()
    _, reward, terminated, truncated, info = env.step(5)
    assert reward in (0.0, 1.0) and not truncated  # safe rule: the first click is never a mine
    assert isinstance(env.unwrapped, MinesweeperEnv)


def test_the_module_docstring_runs():
    result = doctest.testmod(envs, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


# ------------------------------------------------------------------------------ seeding
def test_same_seed_same_episodes_different_seeds_differ():
    env = MinesweeperEnv("5x5x5:none")
    a, b = play_random(env, 11, 60), play_random(env, 11, 60)
    for (oa, ra, ta, ia), (ob, rb, tb, ib) in zip(a, b):
        assert np.array_equal(oa, ob) and ra == rb and ta == tb and np.array_equal(ia["action_mask"], ib["action_mask"])
    layouts = []
    for seed in range(6):
        env = MinesweeperEnv("5x5x5:none", reveal_mines=True)
        layouts.append(env.reset(seed=seed)[1]["mines"])
    assert len({m.tobytes() for m in layouts}) > 1


@pytest.mark.parametrize("rule", ["none", "safe", "opening"])
def test_boards_are_the_engines_from_the_same_generator(rule):
    level = Level(5, 5, 5, rule)
    env = MinesweeperEnv(level, reveal_mines=True)
    env.unwrapped.np_random = np.random.Generator(np.random.PCG64(7))
    gs, ref = new_game_state(level), np.random.Generator(np.random.PCG64(7))
    for game in range(8):
        _, info = env.reset()
        begin_game(gs, ref)
        cell = (3 * game) % 25
        if rule != "none":
            assert not info["mines"].any()  # dealt at the first click
            deal_first_click(gs, cell, ref)
        obs, _, terminated, _, info = env.step(cell)
        assert np.array_equal(info["mines"], gs.mine.reshape(5, 5).astype(bool)), game


# ------------------------------------------------------------------------------ rewards
def test_bilir2023_rewards_on_a_scripted_layout():
    env = MinesweeperEnv("5x5x5:none")
    obs, info = env.reset(options={"mines": TOP_ROW})
    obs, reward, terminated, _, info = env.step(5)  # (1, 0): a 2, not a win
    assert (reward, terminated, obs[1, 0], info["revealed"], info["won"]) == (1.0, False, 2, 1, False)
    obs, reward, terminated, _, info = env.step(24)  # (4, 4): the flood reveals the rest
    assert (reward, terminated, info["won"], info["revealed"]) == (10.0, True, True, 20)
    assert (obs[1:] >= 0).all() and (obs[0] == COVERED).all() and not info["action_mask"][5:].any()
    env.reset(options={"mines": TOP_ROW})
    obs, reward, terminated, _, info = env.step(2)
    assert (reward, terminated, info["won"]) == (-10.0, True, False)
    assert (obs[0] == MINE).all() and (obs[1:] == COVERED).all()


def test_without_flood_a_zero_opens_one_cell():
    env = MinesweeperEnv("5x5x5:none", flood=False)
    env.reset(options={"mines": TOP_ROW})
    obs, reward, terminated, _, info = env.step(24)
    assert (reward, terminated, info["revealed"], int((obs >= 0).sum())) == (1.0, False, 1, 1)


@pytest.mark.parametrize("reward,expected", [("win-loss", (0.0, 1.0, -1.0)),
                                             ({"safe": 0.5, "win": 2, "mine": -3.5}, (0.5, 2.0, -3.5))])
def test_other_reward_schemes(reward, expected):
    env = MinesweeperEnv("5x5x5:none", reward=reward)
    got = []
    for cells in ((5, 24), (0,)):
        env.reset(options={"mines": TOP_ROW})
        got += [env.step(c)[1] for c in cells]
    assert tuple(got) == expected
    assert all(type(r) is float for r in got)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kw,field", [
    ({"reward": "bilir"}, "reward"), ({"reward": {"safe": 1, "win": 2}}, "reward"),
    ({"reward": {"safe": 1, "win": 2, "mine": -1, "guess": 0}}, "reward"),
    ({"reward": {"safe": "1", "win": 2, "mine": -1}}, "reward"), ({"reward": {"safe": True, "win": 2, "mine": -1}},
                                                                   "reward"),
    ({"reward": {"safe": float("nan"), "win": 2, "mine": -1}}, "reward"), ({"reward": 3}, "reward"),
    ({"illegal": "ignore"}, "illegal"), ({"illegal_penalty": "x"}, "illegal_penalty"),
    ({"render_mode": "human"}, "render_mode"), ({"level": "5x5"}, "level"), ({"level": "2x2x4:none"}, "level"),
    ({"flood": 1}, "flood"), ({"reveal_mines": "yes"}, "reveal_mines"),
])
def test_bad_keywords_name_the_field(kw, field):
    with pytest.raises(ValueError, match=field):
        MinesweeperEnv(**kw)
    with pytest.raises(ValueError, match=field):
        MinesweeperVectorEnv(2, **kw)


def test_reward_error_lists_the_presets():
    with pytest.raises(ValueError, match="bilir2023.*win-loss"):
        MinesweeperEnv(reward="nope")


@pytest.mark.parametrize("action", [-1, 25, 2.5, True, "3", np.array([1, 2]), None])
def test_actions_out_of_range_always_raise(action):
    for illegal in ("error", "penalty"):
        env = MinesweeperEnv(illegal=illegal)
        env.reset(seed=0)
        with pytest.raises(ValueError, match="action"):
            env.step(action)


def test_numpy_integer_actions_are_accepted():
    env = MinesweeperEnv(reveal_mines=True)
    for action in (np.int32(24), np.array(24), np.uint8(24)):
        env.reset(options={"mines": TOP_ROW})
        assert env.step(action)[1] == 10.0


def test_revealed_cell_under_error_and_penalty():
    env = MinesweeperEnv()
    env.reset(options={"mines": TOP_ROW})
    obs, _, _, _, info = env.step(5)
    with pytest.raises(ValueError, match=r"action 5 \(row 1, col 0\).*already revealed"):
        env.step(5)
    obs2, reward, terminated, _, info2 = env.step(6)  # the game goes on as if nothing happened
    assert reward == 1.0 and not terminated and info2["revealed"] == 2
    env = MinesweeperEnv(illegal="penalty", illegal_penalty=-0.25)
    env.reset(options={"mines": TOP_ROW})
    obs, _, _, _, info = env.step(5)
    obs2, reward, terminated, truncated, info2 = env.step(5)
    assert (reward, terminated, truncated) == (-0.25, False, False)
    assert np.array_equal(obs, obs2) and np.array_equal(info["action_mask"], info2["action_mask"])
    assert info2["revealed"] == 1 and env.step(24)[1] == 10.0


def test_stepping_a_finished_episode_or_before_reset_raises():
    env = MinesweeperEnv()
    with pytest.raises(gymnasium.error.ResetNeeded, match=r"reset\(\)"):
        env.step(0)
    env.reset(options={"mines": TOP_ROW})
    assert env.step(0)[2]
    with pytest.raises(gymnasium.error.ResetNeeded, match=r"lost.*reset\(\)"):
        env.step(10)
    env.reset(seed=1)
    env.step(0)  # a new episode steps again


def test_bad_reset_options():
    env = MinesweeperEnv()
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"seed": 3})
    with pytest.raises(ValueError, match=r"options\['mines'\]"):
        env.reset(options={"mines": np.ones((5, 5))})


# ------------------------------------------------------------------- the hidden layout
@pytest.mark.parametrize("level", ["5x5x5:none", "6x6x8:safe"])
def test_no_mines_in_info_and_no_mine_in_obs_before_a_loss(level):
    env = MinesweeperEnv(level)
    _, info = env.reset(seed=5)
    assert "mines" not in info
    losses = 0
    for obs, reward, terminated, info in play_random(env, 5, 300):
        assert "mines" not in info
        lost = terminated and reward == -10.0
        losses += lost
        assert (MINE in obs) == lost
        assert np.array_equal(info["action_mask"], (obs == COVERED).ravel())
    assert losses > 0
    assert "mines" in MinesweeperEnv(level, reveal_mines=True).reset(seed=5)[1]


# -------------------------------------------------------------------------------- render
def test_render_modes():
    env = MinesweeperEnv(render_mode="ansi")
    env.reset(options={"mines": TOP_ROW})
    env.step(5)
    assert env.render() == board_text(env._view2d) and env.render().splitlines()[1] == "2####"
    env = MinesweeperEnv(render_mode="rgb_array")
    env.reset(options={"mines": TOP_ROW})
    frame = env.render()
    assert frame.shape == (200, 200, 3) and frame.dtype == np.uint8
    env.step(24)
    after = env.render()
    assert (after[:40] == frame[:40]).all() and not (after[40:] == frame[40:]).all()  # top row still covered
    assert "<svg" in env._repr_html_()


# ---------------------------------------------------------------------------- vector env
def test_vector_same_seed_same_everything():
    def run():
        venv = MinesweeperVectorEnv(16, "5x5x5:safe")
        obs, info = venv.reset(seed=42)
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(30):
            obs, rew, term, trunc, info = venv.step(random_legal_actions(info["action_mask"], rng))
            out += [obs, rew, term, info["action_mask"]]
        return out

    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_vector_with_one_board_plays_as_the_single_env():
    env, venv = MinesweeperEnv("5x5x5:safe"), MinesweeperVectorEnv(1, "5x5x5:safe")
    obs, info = env.reset(seed=9)
    vobs, vinfo = venv.reset(seed=9)
    rng = np.random.default_rng(1)
    episodes = 0
    for _ in range(200):
        assert np.array_equal(obs, vobs[0]) and np.array_equal(info["action_mask"], vinfo["action_mask"][0])
        action = random_legal_action(info["action_mask"], rng.random())
        obs, reward, terminated, _, info = env.step(action)
        vobs, vrew, vterm, _, vinfo = venv.step(np.array([action]))
        assert (reward, terminated) == (vrew[0], vterm[0])
        if terminated:
            episodes += 1
            obs, info = env.reset()
            vobs, vrew, vterm, _, vinfo = venv.step(np.array([action]))  # NEXT_STEP: this step resets
            assert (vrew[0], vterm[0]) == (0.0, False)
    assert episodes > 10


def test_vector_autoreset_next_step():
    venv = MinesweeperVectorEnv(8, "5x5x5:none", reveal_mines=True)
    assert venv.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, info = venv.reset(seed=3)
    rng = np.random.default_rng(3)
    resets = 0
    for _ in range(40):
        actions = random_legal_actions(info["action_mask"], rng)
        obs, rew, term, trunc, info = venv.step(actions)
        if not term.any():
            continue
        done = term.copy()
        bad = actions.copy()
        bad[done] = np.argmin(info["action_mask"].reshape(8, 25)[done], axis=1)  # may be revealed: ignored
        obs2, rew2, term2, _, info2 = venv.step(random_legal_actions(info["action_mask"], rng) * ~done + bad * done)
        assert (rew2[done] == 0).all() and not term2[done].any()
        assert (obs2[done] == COVERED).all() and (info2["action_mask"][done] == 1).all()
        resets += int(done.sum())
        info = info2
    assert resets > 0


def test_vector_boards_are_valid_and_in_the_spaces():
    venv = MinesweeperVectorEnv(32, "6x6x6:opening", reveal_mines=True)
    assert venv.single_observation_space.shape == (6, 6) and venv.single_action_space.n == 36
    obs, info = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert obs in venv.observation_space
        actions = random_legal_actions(info["action_mask"], rng)
        assert actions in venv.action_space
        assert (np.take_along_axis(info["action_mask"], actions[:, None], 1) == 1).all()
        obs, rew, term, trunc, info = venv.step(actions)
        assert info["action_mask"].shape == (32, 36) and not trunc.any()
        assert np.array_equal(info["action_mask"], (obs == COVERED).reshape(32, 36))
        for b in range(32):
            mines = info["mines"][b]
            if mines.any():
                assert mines.sum() == 6
                shown = obs[b] >= 0
                assert np.array_equal(obs[b][shown], counts_of(mines)[shown]) and not mines[shown].any()


def test_vector_bad_actions_name_the_board_and_change_nothing():
    venv = MinesweeperVectorEnv(4, "5x5x5:none")
    venv.reset(options=None)
    with pytest.raises(gymnasium.error.ResetNeeded):
        MinesweeperVectorEnv(2).step(np.zeros(2, int))
    obs, info = venv.reset(seed=0)
    cells = np.array([0, 6, 12, 18])
    obs, *_ = venv.step(cells)
    live = ~np.isin(obs.reshape(4, 25)[np.arange(4), cells], (MINE,))
    b = int(np.flatnonzero(live)[0])
    again = cells.copy()
    again[:b] = random_legal_actions(venv._bs.mask, np.random.default_rng(0))[:b]
    before = venv._bs.shown.copy()
    with pytest.raises(ValueError, match=rf"board {b} \(actions\[{b}\]\).*already revealed"):
        venv.step(again)
    legal = random_legal_actions(venv._bs.mask, np.random.default_rng(0))
    legal[2] = 25
    with pytest.raises(ValueError, match=r"actions\[2\].*\[0, 24\].*25"):
        venv.step(legal)
    with pytest.raises(ValueError, match="actions"):
        venv.step(np.array([0.0, 1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="actions"):
        venv.step(np.array([0, 1]))
    assert np.array_equal(before, venv._bs.shown)


def test_vector_penalty_mode():
    venv = MinesweeperVectorEnv(2, "5x5x5:none", illegal="penalty", illegal_penalty=-2.0)
    obs, info = venv.reset(seed=1)
    obs, rew, term, _, info = venv.step(np.array([12, 12]))
    live = ~term
    obs2, rew2, term2, _, _ = venv.step(np.array([12, 12]))
    assert (rew2[live] == -2.0).all() and not term2[live].any() and np.array_equal(obs2[live], obs[live])


def test_make_vec_uses_the_vector_env():
    venv = gymnasium.make_vec(ENV_ID, num_envs=3, level="4x4x3:none")
    assert isinstance(venv.unwrapped, MinesweeperVectorEnv) and venv.num_envs == 3
    obs, info = venv.reset(seed=0)
    assert obs.shape == (3, 4, 4) and info["action_mask"].shape == (3, 16) and "mines" not in info


def test_random_legal_actions_pick_legal_cells():
    mask = np.zeros((3, 10), np.int8)
    mask[0, [2, 7]] = 1
    mask[2, 9] = 1
    got = np.array([random_legal_actions(mask, np.random.default_rng(s)) for s in range(50)])
    assert set(got[:, 0]) == {2, 7} and set(got[:, 1]) == {0} and set(got[:, 2]) == {9}
    assert {random_legal_action(mask[0], u) for u in np.linspace(0, 0.999, 20)} == {2, 7}


def test_bench_rows():
    rows = envs.bench_envs(seconds=0.05, num_envs=64)
    assert [r["what"] for r in rows] == ["env.step", "vector_env.step"]
    assert all(r["bench"] == "rl" and r["level"] == "5x5x5:none" and r["steps_per_second"] > 0 for r in rows)


def test_import_minelab_registers_the_env_by_name():
    """`import minelab` is enough for gymnasium.make; minelab.envs loads only when an env is made."""
    import subprocess
    import sys

    code = ("import sys, gymnasium, minelab; assert minelab.ENV_ID in gymnasium.registry; "
            "assert 'minelab.envs' not in sys.modules; env = gymnasium.make(minelab.ENV_ID); "
            "assert 'minelab.envs' in sys.modules; print(env.reset(seed=0)[0].shape)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(5, 5)"
