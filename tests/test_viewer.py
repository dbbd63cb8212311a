"""The interactive BoardViewer's model logic, without a browser (tests/test_browser.py
drives it in JupyterLab): moves, the probability and knowledge overlays, the why line,
replay, opening a game of a run, flags after a loss, static pictures, warm-up."""
import threading
from html import escape

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

import minelab as ml
from minelab.cells import COVERED, FLAGGED, MINE
from minelab.viewer import MARK_BOOM, MARK_FLAG_RIGHT, MARK_FLAG_WRONG, BoardViewer


def make(level="5x5x3", agent="random", seed=1, **kw):
    return BoardViewer(ml.Game(ml.Level.parse(level), seed=seed), agent=None if agent is None else
                       ml.make_agent(agent, seed=0), seed=seed, warm=False, **kw)


@pytest.fixture
def viewer():
    return make()


def cells_shown(v):
    return np.array(v.board.cells).reshape(v.game.level.rows, v.game.level.cols)


def click_message(v, r, c, flag=False):
    """What the page sends for a click on cell (r, c)."""
    v.board._on_msg(v.board, {"event": "click", "r": r, "c": c, "flag": flag}, [])


# ------------------------------------------------------------------------------ moves
def test_viewer_builds_the_board(viewer):
    import ipywidgets as W

    assert isinstance(viewer, W.VBox) and "minelab-viewer" in viewer._dom_classes
    assert (viewer.board.rows, viewer.board.cols) == (5, 5)
    assert viewer.board.cells == [COVERED] * 25
    assert "5x5x3" in viewer.status_text and "moves 0" in viewer.status_text
    for widget, cls in ((viewer.step_button, "minelab-step"), (viewer.play_button, "minelab-play"),
                        (viewer.new_button, "minelab-new"), (viewer.prob_toggle, "minelab-overlay"),
                        (viewer.status_label, "minelab-status"), (viewer.why_label, "minelab-why")):
        assert cls in widget._dom_classes


def test_click_reveals_and_the_board_follows(viewer):
    assert viewer.click(2, 2)
    assert len(viewer.game.moves) == 1 and viewer.game.view[2, 2] >= 0
    assert "moves 1" in viewer.status_text
    assert (cells_shown(viewer) == viewer.game.view).all()
    assert "you revealed (2, 2)" in viewer.why_label.value


def test_a_click_in_the_page_goes_through_click(viewer):
    click_message(viewer, 0, 0)
    assert viewer.game.moves == [ml.Move(ml.REVEAL, 0, 0)]
    viewer.board._on_msg(viewer.board, {"event": "click", "r": "x"}, [])  # malformed: ignored
    viewer.board._on_msg(viewer.board, ["junk"], [])
    assert len(viewer.game.moves) == 1


def test_flag_mode_and_right_click(viewer):
    viewer.click(2, 2)
    r, c = (int(i) for i in np.argwhere(viewer.game.view == COVERED)[0])
    viewer.flag_toggle.value = True
    assert viewer.flag_mode and viewer.click(r, c)
    assert viewer.game.view[r, c] == FLAGGED and cells_shown(viewer)[r, c] == FLAGGED
    assert "flags 1/3" in viewer.status_text
    assert viewer.click(r, c) and viewer.game.view[r, c] == COVERED  # a second click unflags
    viewer.flag_mode = False
    click_message(viewer, r, c, flag=True)  # right click flags whatever the mode
    assert viewer.game.view[r, c] == FLAGGED
    assert [m.kind for m in viewer.game.moves[-3:]] == [ml.FLAG, ml.UNFLAG, ml.FLAG]


def test_illegal_clicks_are_messages(viewer):
    viewer.click(2, 2)
    n = len(viewer.game.moves)
    assert viewer.click(2, 2) is False and "already revealed" in viewer.status_label.value
    assert viewer.click(9, 9) is False and "row" in viewer.message
    assert len(viewer.game.moves) == n
    r, c = (int(i) for i in np.argwhere(viewer.game.view == COVERED)[0])
    assert viewer.click(r, c) and viewer.message == ""  # a legal move clears the message


def test_step_play_to_end_and_a_finished_game(viewer):
    assert viewer.step() and len(viewer.game.moves) == 1
    made = viewer.play_to_end()
    assert viewer.game.over and len(viewer.game.moves) == 1 + made
    assert viewer.step_button.disabled and viewer.play_button.disabled
    assert viewer.step() is False and "over" in viewer.message
    assert viewer.click(0, 0) is False and "over" in viewer.message


def test_agent_learns_once_at_the_end(viewer):
    calls = []
    viewer.agent.game_over = lambda game: calls.append(game)
    viewer.play_to_end()
    viewer.step()
    assert calls == [viewer.game]


def test_viewer_without_agent():
    v = make(agent=None, seed=4)
    assert v.step_button.disabled
    assert v.step() is False and "no agent" in v.message
    assert v.play_to_end() == 0 and not v.game.over


def test_new_game_is_reproducible():
    a, b = make(), make()
    for v in (a, b):
        v.click(2, 2)
        v.new_game()
        assert v.seed == 2 and v.game.moves == [] and v.moves_played == 0
        v.play_to_end()
    assert a.game.moves == b.game.moves and (a.game.view == b.game.view).all()


def test_bad_agent_argument():
    with pytest.raises(ValueError, match="agent must be an Agent"):
        BoardViewer("4x4x2", agent="hcsp", warm=False)


# ------------------------------------------------------------------------------ why line
def test_the_why_line_is_the_agents_own_explanation():
    v = make("8x8x10", agent="hcsp", seed=3)
    v.step()
    assert v.whys[-1] == v.agent.explain() and escape(v.agent.explain()) in v.why_label.value


# ------------------------------------------------------------------------------ overlays
@pytest.mark.parametrize("level,seed", [("8x8x10", 3), ("16x30x99", 5), ("9x9x10", 11)])
def test_probability_overlay_equals_mine_probabilities(level, seed):
    v = make(level, agent="hcsp", seed=seed)
    v.toggle_probabilities(True)
    assert v.board.overlay == "probability"
    for _ in range(6):
        if v.game.over:
            break
        view = v.game.view
        p = ml.mine_probabilities(view, v.game.level.mines)
        shown = np.array([np.nan if x is None else x for x in v.board.values]).reshape(view.shape)
        assert np.allclose(shown, p, atol=1e-6, equal_nan=True)
        sol = ml.probability.solve(view, v.game.level.mines)
        certain = np.array(v.board.certain).reshape(view.shape)
        assert ((certain == 1) == sol.safe).all() and ((certain == 2) == sol.mine).all()
        v.step()
    v.toggle_probabilities(False)
    assert v.board.overlay == "none" and v.board.values == []


def test_overlay_of_a_replayed_position_is_that_positions():
    v = make("8x8x10", agent="hcsp", seed=3)
    v.play_to_end()
    v.toggle_probabilities(True)
    v.replay_to(1)
    p = ml.mine_probabilities(v.frames[1], 10)
    shown = np.array([np.nan if x is None else x for x in v.board.values]).reshape(8, 8)
    assert np.allclose(shown, p, atol=1e-6, equal_nan=True)


def test_overlays_exclude_each_other_and_knowledge_of_a_non_learner_is_a_note():
    v = make("8x8x10", agent="hcsp", seed=3)
    v.toggle_probabilities(True)
    v.toggle_knowledge(True)
    assert not v.prob_toggle.value and v.overlay == "knowledge"
    assert v.board.overlay == "none" and "shows no learnt values" in v.status_text


def test_knowledge_overlay_is_what_the_agent_says_it_knows():
    agent = ml.make_agent("greedy-mab", seed=0)
    ml.play(agent, "8x8x10", 30, seed=0)
    v = BoardViewer("8x8x10", agent=agent, seed=5, warm=False)
    v.step()
    v.toggle_knowledge(True)
    k = agent.knowledge(v.game)
    if k is None:
        pytest.skip("greedy-mab.knowledge is not implemented yet")
    shown = np.array([np.nan if x is None else x for x in v.board.values]).reshape(8, 8)
    assert np.allclose(shown, k.values, atol=1e-6, equal_nan=True)
    assert v.board.label == k.label and v.board.overlay == "knowledge"


# ------------------------------------------------------------------------------ replay
def test_replay_equals_the_game_move_by_move():
    """Live views after every single move equal the replayed frames, and an independent
    replay (a new Game with the same seed, the moves applied one by one) gives them too."""
    v = make("9x9x10", agent="random", seed=7)
    live = [np.array(v.game.view)]
    assert v.click(4, 4)
    live.append(np.array(v.game.view))
    r, c = (int(i) for i in np.argwhere(v.game.view == COVERED)[-1])
    assert v.click(r, c, flag=True)
    live.append(np.array(v.game.view))
    for _ in range(200):
        if v.game.over:
            break
        if v.step():  # random: one move per decision
            live.append(np.array(v.game.view))
    assert len(v.frames) == len(live) == len(v.game.moves) + 1
    for k, (a, b) in enumerate(zip(v.frames, live)):
        assert (a == b).all(), k
    twin = ml.Game("9x9x10", seed=7)
    for k, move in enumerate(v.game.moves, 1):
        twin.apply(move)
        assert (twin.view == v.frames[k]).all(), k
    for k in range(len(v.frames)):
        v.replay_to(k)
        assert (cells_shown(v) == v.frames[k]).all()


def test_replay_of_multi_move_decisions_has_every_move():
    v = make("16x30x99", agent="hcsp", seed=2)
    v.play_to_end()
    assert v.moves_played == len(v.game.moves)
    twin = ml.Game("16x30x99", seed=2)
    for k, move in enumerate(v.game.moves, 1):
        twin.apply(move)
        assert (twin.view == v.frames[k]).all(), k
    assert all(v.whys[1:])  # every move carries its decision's reason


def test_replay_controls_and_bad_input(viewer):
    viewer.play_to_end()
    n = viewer.moves_played
    assert viewer.replay_step(-1) and viewer.position == n - 1 and "replay: move" in viewer.status_text
    assert viewer.board.frozen and not viewer.forward_button.disabled
    assert viewer.click(0, 0) is False and "Live" in viewer.message  # no moves while replaying
    assert viewer.step() is False and "Live" in viewer.message
    viewer.move_slider.value = 0  # the slider drives the replay
    assert viewer.position == 0 and viewer.back_button.disabled
    assert viewer.replay_to(n + 5) is False and f"[0, {n}]" in viewer.message
    assert viewer.replay_to("x") is False
    viewer.live()
    assert viewer.position is None and not viewer.board.frozen


# ------------------------------------------------------------------------------ open a game of a run
@pytest.mark.parametrize("name", ["hcsp", "random", "greedy-mab"])
def test_open_game_of_a_run_is_the_runs_game(name):
    run = ml.play(ml.make_agent(name), "9x9x10", 40, seed=5)
    v = BoardViewer("9x9x10", warm=False)
    for i in (0, 17, 39):
        assert v.open_game(i, run=run), v.message
        assert "the same as the run's record" in v.message
        assert (int(v.game.won), len(v.game.moves), v.game.revealed) == \
            (run.won[i], run.moves[i], run.revealed[i])
        assert v.position == 0 and v.moves_played == len(v.game.moves)


def test_open_game_by_level_seed_and_index_matches_the_runner():
    v = BoardViewer("8x8x10", agent=ml.make_agent("hcsp"), warm=False)
    assert v.open_game(12, level="9x9x10", seed=3)
    run = ml.play(ml.make_agent("hcsp"), "9x9x10", 13, seed=3)
    assert (int(v.game.won), len(v.game.moves)) == (run.won[12], run.moves[12])
    assert (v.board.rows, v.board.cols) == (9, 9)


def test_open_game_bad_input_is_a_status_message_never_a_traceback():
    run = ml.play(ml.make_agent("random"), "5x5x3", 10, seed=0)
    v = make()
    assert v.open_game(10, run=run) is False and "beyond the run" in v.message and "0..9" in v.message
    assert v.open_game(3, agent="no-such-agent") is False and "agent must be one of" in v.message
    assert v.open_game(3, agent="hcsp", level="banana") is False and "level" in v.message
    assert v.open_game(-1, agent="hcsp") is False and "game must be" in v.message
    assert v.open_game(2, run=pd.DataFrame(run.values, columns=run.columns)) is False and "ml.play" in v.message
    v.run_agent.value, v.run_game.value = "nobody", 2
    v.open_button.click()  # the form: the same message
    assert "agent must be one of" in v.status_text
    v2 = make(agent=None)
    assert v2.open_game(1) is False and "no agent" in v2.message


# ------------------------------------------------------------------------------ flags after a loss
def test_flags_after_a_loss_are_shown_right_or_wrong():
    mines = np.zeros((4, 4), int)
    mines[0, 0] = mines[3, 3] = 1
    v = BoardViewer(ml.Game.from_mines(mines), warm=False)
    v.click(0, 0, flag=True)  # right
    v.click(0, 3, flag=True)  # wrong
    v.click(3, 3)  # boom
    assert v.game.lost
    marks = np.array(v.board.marks).reshape(4, 4)
    assert marks[0, 0] == MARK_FLAG_RIGHT and marks[0, 3] == MARK_FLAG_WRONG and marks[3, 3] == MARK_BOOM
    assert cells_shown(v)[0, 0] == MINE and cells_shown(v)[0, 3] == FLAGGED
    v.replay_to(1)  # an earlier position: no loss marks
    assert MARK_FLAG_RIGHT not in v.board.marks


# ------------------------------------------------------------------------------ pictures
def test_static_picture_in_the_mime_bundle(viewer):
    viewer.click(2, 2)
    bundle = viewer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "<svg" in bundle["text/html"] and "move 1 of 1" in bundle["text/html"]


def test_save_frames_and_animation(tmp_path, viewer):
    viewer.play_to_end()
    n = viewer.moves_played + 1
    pngs = viewer.save_frames(tmp_path / "png")
    svgs = viewer.save_frames(tmp_path / "svg", fmt="svg")
    assert len(pngs) == len(svgs) == n and all(p.stat().st_size > 0 for p in pngs + svgs)
    assert "<svg" in svgs[-1].read_text()
    gif = viewer.save_animation(tmp_path / "game.gif", fps=4)
    from PIL import Image

    with Image.open(gif) as im:
        assert im.n_frames >= 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp files left
    with pytest.raises(ValueError, match="fmt"):
        viewer.save_frames(tmp_path, fmt="bmp")
    with pytest.raises(ValueError, match=".gif"):
        viewer.save_animation(tmp_path / "game.mp4")


# ------------------------------------------------------------------------------ warm-up
def test_warm_up_runs_in_the_background_and_changes_no_move():
    cold = make("8x8x10", agent="hcsp", seed=4)
    warm = BoardViewer(ml.Game("8x8x10", seed=4), agent=ml.make_agent("hcsp", seed=0), seed=4)
    assert "preparing" in warm.status_text or warm.ready
    assert warm.wait_ready(timeout=300) and "preparing" not in warm.status_text
    cold.play_to_end()
    warm.play_to_end()
    assert cold.game.moves == warm.game.moves


def test_a_click_during_warm_up_waits_and_says_so(viewer):
    seen = []
    viewer.status_label.observe(lambda ch: seen.append(ch["new"]), "value")
    held, release = threading.Event(), threading.Event()

    def hold():
        with viewer._lock:
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(10)
    threading.Timer(0.3, release.set).start()
    assert viewer.click(2, 2)
    t.join()
    assert any("compiling" in s for s in seen)
