"""minelab.agents.bandit (Lordeiro et al. 2021): window keys and their symmetries, the
key table, the update rule, flags and delayed learning on scripted boards, a pure-Python
reference model of the greedy agent, batch play equal to interactive play, determinism,
bad input, and that learning helps."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minelab as ml
from minelab.agents.bandit import (
    RING,
    S_COVERED,
    TM_T,
    KeyTable,
    decode_key,
    encode_window,
    symmetric_images,
    target_actions,
    view_window,
    window_case,
)
from minelab.cells import COVERED, FLAG, FLAGGED, REVEAL, UNFLAG
from minelab.engine import ST_CLICKS, Game, Move, run_streams
from minelab.stats import two_proportion, wilson

PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

BORDER = [(1 + dr, 1 + dc) for dr, dc in RING]  # clockwise from the top-left corner
CORNERS = [p for p in BORDER if p[0] != 1 and p[1] != 1]
EDGES = [p for p in BORDER if p[0] == 1 or p[1] == 1]


# ----------------------------------------------------------------------------- helpers
@st.composite
def actions(draw, targets=BORDER, states=st.integers(0, 11)):
    """(3x3 window of states 0-11 with the centre in 0-10, target on the border)."""
    cells = draw(st.lists(states, min_size=9, max_size=9))
    w = np.array(cells, np.int8).reshape(3, 3)
    if w[1, 1] == 11:
        w[1, 1] = draw(st.integers(0, 10))
    return w, draw(st.sampled_from(targets))


def covered(w, t):
    """The window as the key sees it: the target reads covered."""
    w = np.array(w, np.int8)
    w[t] = S_COVERED
    return w


def numpy_images(w, t):
    """The 8 images of (window, target) under the square's symmetries, made with numpy
    (the target moves with the window): a set of (window bytes, target)."""
    mark = np.zeros((3, 3), bool)
    mark[t] = True
    out = set()
    for k in range(4):
        for f in (lambda a: a, np.fliplr, np.flipud):
            img = np.ascontiguousarray(f(np.rot90(w, k)), np.int8)
            (pos,) = np.argwhere(f(np.rot90(mark, k)))
            out.add((img.tobytes(), (int(pos[0]), int(pos[1]))))
    return out


def unbytes(b):
    return np.frombuffer(b, np.int8).reshape(3, 3)


def table_dict(agent):
    """{key: (mines, n)} straight from the agent's key table arrays."""
    kt = agent.keys
    used = kt.keys != -1
    return dict(zip(kt.keys[used].tolist(), zip(kt.mines[used].tolist(), kt.counts[used].tolist())))


_ENCODED: dict = {}


def actions_of(view, t, sym=True):
    """[(k, key)] of the actions targeting flat cell t, in the agent's scan order: k is
    the ring position of the window centre around t. Windows are cut from the padded
    board here (independently of view_window and target_actions)."""
    view = np.asarray(view)
    rows, cols = view.shape
    states = np.where(view >= 0, view, np.where(view == FLAGGED, 10, S_COVERED)).astype(np.int8)
    padded = np.pad(states, 1, constant_values=11)
    r, c = divmod(t, cols)
    out = []
    for k, (dr, dc) in enumerate(RING):
        cr, cc = r + dr, c + dc
        if 0 <= cr < rows and 0 <= cc < cols:
            d = (k + 4) % 8  # the target seen from the centre
            w = np.ascontiguousarray(padded[cr:cr + 3, cc:cc + 3])
            memo = (w.tobytes(), d, sym)
            if memo not in _ENCODED:
                _ENCODED[memo] = encode_window(w, (1 + RING[d][0], 1 + RING[d][1]), sym)
            out.append((k, _ENCODED[memo]))
    return out


def action_key(view, target, centre, sym=True):
    """Key of the action on `target` whose window is centred on `centre`, via target_actions."""
    (a,) = [a for a in target_actions(view, target, sym) if a["centre"] == centre]
    return a["key"]


def step_until_decision(agent, game):
    """Let the program make the first-zero opening click; returns its moves."""
    assert int(game._gs.counters[ST_CLICKS]) == 0
    return agent.step(game)


# ----------------------------------------------------------------------------- 1. symmetries
@PROPERTY
@given(actions())
def test_the_eight_images_share_one_key_and_symmetric_images_makes_them(action):
    w, t = action
    images = numpy_images(w, t)
    keys = {encode_window(unbytes(b), p) for b, p in images}
    assert keys == {encode_window(w, t)}
    got = symmetric_images(w, t)
    assert len(got) == 8
    assert {(np.asarray(img, np.int8).tobytes(), tuple(map(int, p))) for img, p in got} == images
    # the target always reads "covered": its own state never changes the key
    assert encode_window(covered(w, t), t) == encode_window(w, t)
    assert encode_window(covered(w, t), t, symmetries=False) == encode_window(w, t, symmetries=False)


@PROPERTY
@given(actions())
def test_without_symmetries_distinct_images_get_distinct_keys(action):
    w, t = action
    images = {(covered(unbytes(b), p).tobytes(), p) for b, p in numpy_images(w, t)}
    keys = {encode_window(unbytes(b), p, symmetries=False) for b, p in images}
    assert len(keys) == len(images)


def test_an_asymmetric_window_has_eight_keys_without_symmetries_and_one_with():
    w = np.array([[9, 1, 2], [7, 8, 3], [6, 5, 4]], np.int8)
    images = numpy_images(w, (0, 0))
    assert len(images) == 8
    assert len({encode_window(unbytes(b), p, symmetries=False) for b, p in images}) == 8
    assert len({encode_window(unbytes(b), p) for b, p in images}) == 1


@PROPERTY
@given(actions(states=st.sampled_from([0, 1, 9, 11])), actions(states=st.sampled_from([0, 1, 9, 11])))
def test_symmetric_keys_are_equal_exactly_for_images_of_each_other(a, b):
    """Canonicalisation is orbit equivalence: no two inequivalent actions share a key
    (a small alphabet makes equivalent pairs frequent)."""
    (wa, ta), (wb, tb) = a, b
    same_orbit = (covered(wb, tb).tobytes(), tb) in {(covered(unbytes(x), p).tobytes(), p)
                                                     for x, p in numpy_images(wa, ta)}
    assert (encode_window(wa, ta) == encode_window(wb, tb)) == same_orbit


@PROPERTY
@given(actions(targets=CORNERS), actions(targets=EDGES))
def test_diagonal_and_cardinal_cases_never_share_a_key(diag, card):
    (wd, td), (wc, tc) = diag, card
    for sym in (True, False):
        kd, kc = encode_window(wd, td, sym), encode_window(wc, tc, sym)
        assert kd != kc
        assert window_case(kd) == "diagonal" and window_case(kc) == "cardinal"
    # the canonical image puts the target at the top-left corner or on the top edge
    assert decode_key(encode_window(wd, td))[1] == (0, 0)
    assert decode_key(encode_window(wc, tc))[1] == (0, 1)


def test_target_actions_on_the_papers_figure_2():
    """Fig. 2 of the paper: the 8 actions targeting the mine at (3, 2) (1-based), each a
    row-major 3x3 tuple (-1 outside, C covered) plus the target's direction."""
    C, X = S_COVERED, 11
    v = np.full((5, 5), COVERED, np.int8)
    v[0, :3] = [0, 0, 1]
    v[1, :3] = [1, 2, 3]
    v[2, 0] = 2
    paper = {
        "S": [0, 0, 1, 1, 2, 3, 2, C, C], "SE": [X, 0, 0, X, 1, 2, X, 2, C],
        "E": [X, 1, 2, X, 2, C, X, C, C], "NE": [X, 2, C, X, C, C, X, C, C],
        "N": [2, C, C, C, C, C, C, C, C], "NW": [C] * 9,
        "W": [2, 3, C, C, C, C, C, C, C], "SW": [0, 1, C, 2, 3, C, C, C, C],
    }
    got = {a["direction"]: a for a in target_actions(v, (2, 1))}
    assert set(got) == set(paper)
    for direction, cells in paper.items():
        w = np.array(cells, np.int8).reshape(3, 3)
        np.testing.assert_array_equal(got[direction]["window"], w, err_msg=direction)
        d = ("NW", "N", "NE", "E", "SE", "S", "SW", "W").index(direction)
        assert got[direction]["centre"] == (2 - RING[d][0], 1 - RING[d][1])
        np.testing.assert_array_equal(
            covered(view_window(v, got[direction]["centre"]), (1 + RING[d][0], 1 + RING[d][1])), w)
        for sym in (True, False):
            assert target_actions(v, (2, 1), sym)[list(got).index(direction)]["key"] == \
                encode_window(w, (1 + RING[d][0], 1 + RING[d][1]), sym)
    # and the agent's own scan (actions_of) builds the same 8 keys
    assert sorted(k for _, k in actions_of(v, 2 * 5 + 1)) == sorted(a["key"] for a in got.values())


# ----------------------------------------------------------------------------- 2. key round trip
@PROPERTY
@given(actions())
def test_decode_inverts_encode(action):
    w, t = action
    dw, dt = decode_key(encode_window(w, t, symmetries=False))
    np.testing.assert_array_equal(dw, covered(w, t))
    assert dt == t
    key = encode_window(w, t)
    sw, stgt = decode_key(key)
    assert (np.asarray(sw, np.int8).tobytes(), stgt) in {(covered(unbytes(b), p).tobytes(), p)
                                                          for b, p in numpy_images(w, t)}
    assert encode_window(sw, stgt) == key


@pytest.mark.parametrize("key", [-1, -(2**40), 2**40, 2**45 + 9, (0xC << 8) | 8, (13 << 4) | 8, (0xF << 36) | 1,
                                 "garbage"])
def test_decode_rejects_negative_and_garbage_keys(key):
    with pytest.raises(ValueError):
        decode_key(key)


@pytest.mark.parametrize("key", [0, 2, 5, 7, (0x99999999 << 8) | (3 << 4) | 2])
def test_decode_rejects_keys_that_encode_window_cannot_make(key):
    """Target cell not covered (0), field bits 2-7 (2, 5, 7 and a covered ring)."""
    with pytest.raises(ValueError):
        decode_key(key)


def test_decode_rejects_non_canonical_symmetric_keys():
    w = np.array([[9, 1, 2], [7, 8, 3], [6, 5, 4]], np.int8)  # ring 0x76543219; its mirror's is 0x12345679
    assert encode_window(w, (0, 0)) == (0x12345679 << 8) | (8 << 4) | 0
    key = (0x76543219 << 8) | (8 << 4) | 0
    try:
        dw, dt = decode_key(key)
    except ValueError:
        return
    assert encode_window(dw, dt) == key


# ----------------------------------------------------------------------------- 3. key table
def check_table(table, ref):
    assert len(table) == len(ref)
    assert table.perfect == sum(m == 0 or m == n for m, n in ref.values())
    frame = table.frame()
    assert frame["key"].tolist() == sorted(ref)
    assert frame["n"].tolist() == [ref[k][1] for k in sorted(ref)]
    assert frame["mines"].tolist() == [ref[k][0] for k in sorted(ref)]
    assert frame["q"].tolist() == [(2 * ref[k][0] - ref[k][1]) / ref[k][1] for k in sorted(ref)]
    assert frame["perfect"].tolist() == [ref[k][0] in (0, ref[k][1]) for k in sorted(ref)]
    for k, (m, n) in ref.items():
        assert table.get(k) == ((2 * m - n) / n, n)


keys_strategy = st.one_of(st.integers(0, 40), st.integers(0, 2**40 - 1), st.integers(0, 2**62))


@PROPERTY
@given(st.lists(st.tuples(st.booleans(), keys_strategy, st.sampled_from([-1, 1])), max_size=150))
def test_key_table_behaves_like_a_dict_of_sample_averages(ops):
    table, ref = KeyTable(16), {}
    for learn, key, reward in ops:
        if learn:
            table.learn(key, reward)
            m, n = ref.get(key, (0, 0))
            ref[key] = (m + (reward > 0), n + 1)
        m_n = ref.get(key)
        assert table.get(key) == (None if m_n is None else ((2 * m_n[0] - m_n[1]) / m_n[1], m_n[1]))
        assert len(table) == len(ref)
        assert table.perfect == sum(m == 0 or m == n for m, n in ref.values())
        assert 2 * len(table) <= table.capacity
    check_table(table, ref)


def test_key_table_grows_many_times_and_keeps_everything():
    rng = np.random.default_rng(0)
    table, ref = KeyTable(16), {}
    keys = np.concatenate([rng.integers(0, 2**40, 1500), np.arange(1500) << 20])  # low hash bits equal
    caps = {table.capacity}
    for i in range(12_000):
        key = int(keys[rng.integers(len(keys))])
        if rng.random() < 0.7:
            reward = 1 if rng.random() < 0.3 else -1
            table.learn(key, reward)
            m, n = ref.get(key, (0, 0))
            ref[key] = (m + (reward > 0), n + 1)
            caps.add(table.capacity)
        else:
            m_n = ref.get(key)
            assert table.get(key) == (None if m_n is None else ((2 * m_n[0] - m_n[1]) / m_n[1], m_n[1]))
        if i % 1000 == 0:
            check_table(table, ref)
    assert len(caps) >= 8  # 16 ... 4096 at least
    check_table(table, ref)
    assert table.get(2**41 + 3) is None and len(table) == len(ref)  # lookups never insert


def test_key_table_rejects_the_sentinel_key_and_bad_rewards():
    table = KeyTable(16)
    for bad in (-1, -5, True, 1.5):
        with pytest.raises(ValueError, match="key"):
            table.learn(bad, 1)
        with pytest.raises(ValueError, match="key"):
            table.get(bad)
    for reward in (0, 7, True):
        with pytest.raises(ValueError, match="reward"):
            table.learn(3, reward)
    assert len(table) == len(table.frame()) == 0


# ----------------------------------------------------------------------------- 4. update rule
# 3x3, one mine in the corner, no flood fill: the opening reveals (0, 0) only.
CORNER_MINE = np.array([[0, 0, 0], [0, 0, 0], [0, 0, 1]])


def test_unseen_actions_look_safe_and_a_safe_click_is_learned_as_minus_one():
    agent = ml.make_agent("greedy-mab")
    game = Game.from_mines(CORNER_MINE, flood=False)
    assert step_until_decision(agent, game) == [Move(REVEAL, 0, 0)]
    assert len(agent.table()) == 0 and agent.decisions == 0  # the program's click is not learned
    view = game.view
    # every action unseen: all look certainly safe (Q = -1, N = 0); ties go to scan order:
    # the first covered tile (0, 1), and its first window in ring order (centre (0, 2))
    key = action_key(view, (0, 1), (0, 2))
    assert agent.keys.get(key) is None
    assert agent.step(game) == [Move(REVEAL, 0, 1)]
    assert agent.keys.get(key) == (-1.0, 1)
    assert len(agent.keys) == 1 and agent.decisions == 1
    assert not game.over
    # next: not (0, 2), the next tile in scan order, but (1, 0): its window centred on
    # (2, 0) (target N) is a mirror image of the learned one, so it is known (N = 1) and
    # beats the unseen actions (N = 0) on the tie |Q| = 1
    view = game.view
    assert action_key(view, (1, 0), (2, 0)) == key
    assert agent.step(game) == [Move(REVEAL, 1, 0)]
    assert agent.keys.get(key) == (-1.0, 2) and len(agent.keys) == 1


# 2x4 with flood fill: the opening leaves (0, 3) (a mine) and (1, 3) covered.
EDGE_MINE = np.array([[0, 0, 0, 1], [0, 0, 0, 0]])


@pytest.mark.parametrize("end_learning, n_chosen", [("last-passed-over", 1), ("last-all", 2)])
def test_a_mine_is_learned_as_plus_one(end_learning, n_chosen):
    agent = ml.make_agent("greedy-mab", symmetries=False, end_learning=end_learning)
    game = Game.from_mines(EDGE_MINE)
    step_until_decision(agent, game)
    view = game.view
    assert [(r, c) for r, c in zip(*np.nonzero(view == COVERED))] == [(0, 3), (1, 3)]
    key = action_key(view, (0, 3), (1, 3), sym=False)  # first window in ring order: centre S of the target
    assert agent.step(game) == [Move(REVEAL, 0, 3)]
    assert game.lost
    assert agent.keys.get(key) == (1.0, n_chosen)


# ----------------------------------------------------------------------------- 5. flags
def flagging_game(teach_second):
    """CORNER_MINE after the opening; the agent is taught to flag the safe (0, 1), then to
    want a flag on (0, 2) (its first window, centred on (1, 2), seen twice as a mine)
    while flags == mines. `teach_second(agent, view)` adds more teaching first."""
    agent = ml.make_agent("greedy-mab")
    game = Game.from_mines(CORNER_MINE, flood=False)
    step_until_decision(agent, game)
    key_f = action_key(game.view, (0, 1), (0, 2))
    agent.keys.learn(key_f, +1)
    assert agent.step(game) == [Move(FLAG, 0, 1)]
    assert game.view[0, 1] == FLAGGED and game.flags == 1 == game.level.mines
    assert table_dict(agent) == {key_f: (1, 1)}  # a flag is not learned at once
    view = game.view
    key_t = action_key(view, (0, 2), (1, 2))
    agent.keys.learn(key_t, +1)
    agent.keys.learn(key_t, +1)
    teach_second(agent, view)
    return agent, game, key_f, key_t


def test_q_at_least_zero_flags_and_the_flag_is_learned_only_at_the_end():
    """1x4 [0 0 * 0]: the opening reveals (0, 0) and (0, 1). Every action is taught Q = 0
    (one mine, one safe): all tie, so scan order picks (0, 2)'s window centred E of it;
    Q = 0 >= 0 means flag. The flag is learned at game end with the truth (a mine)."""
    agent = ml.make_agent("greedy-mab")
    game = Game.from_mines(np.array([[0, 0, 1, 0]]))
    assert step_until_decision(agent, game) == [Move(REVEAL, 0, 0)]
    view = game.view
    keys = {a["key"] for t in [(0, 2), (0, 3)] for a in target_actions(view, t)}
    assert len(keys) == 3
    for key in keys:
        agent.keys.learn(key, +1)
        agent.keys.learn(key, -1)
    flag_key = action_key(view, (0, 2), (0, 3))
    before = table_dict(agent)
    assert agent.step(game) == [Move(FLAG, 0, 2)]
    assert game.view[0, 2] == FLAGGED and game.flags == 1
    assert table_dict(agent) == before  # nothing learned yet
    last = game.view
    click_key = action_key(last, (0, 3), (0, 2))  # its only window now shows the flag
    assert agent.keys.get(click_key) is None
    assert agent.step(game) == [Move(REVEAL, 0, 3)]
    assert game.won
    expected = apply(before, [(flag_key, +1), (click_key, -1), (click_key, -1)])  # last-all: twice
    assert table_dict(agent) == expected
    assert agent.keys.get(flag_key) == (1 / 3, 3)


def test_forced_unflag_reveals_the_flagged_tile_with_the_smallest_lowest_value():
    agent, game, key_f, key_t = flagging_game(lambda agent, view: None)
    view = game.view
    # lowest window values: (0, 1): its windows other than key_f are unseen (-1); (0, 2):
    # likewise -1. Tie: scan order, (0, 1) first. Its lowest window is the first unseen one
    # in ring order: centre SE (1, 2).
    low_key = action_key(view, (0, 1), (1, 2))
    assert agent.keys.get(low_key) is None
    assert agent.step(game) == [Move(FLAG, 0, 2), Move(UNFLAG, 0, 1), Move(REVEAL, 0, 1)]
    assert game.view[0, 2] == FLAGGED and game.view[0, 1] == 0 and game.flags == 1 and not game.over
    assert agent.keys.get(low_key) == (-1.0, 1)  # the forced click is learned at once
    assert agent.keys.get(key_f) == (1.0, 1) and agent.keys.get(key_t) == (1.0, 2)  # flags: not yet


def test_forced_unflag_may_reveal_the_new_tile_instead():
    def teach(agent, view):  # every window of the flagged (0, 1) looks like a mine: lowest +1
        for a in target_actions(view, (0, 1)):
            if agent.keys.get(a["key"]) is None:
                agent.keys.learn(a["key"], +1)

    agent, game, key_f, key_t = flagging_game(teach)
    view = game.view
    low_key = action_key(view, (0, 2), (1, 1))  # (0, 2)'s first unseen window: centre SW
    before = table_dict(agent)
    assert agent.step(game) == [Move(REVEAL, 0, 2)]
    assert game.view[0, 1] == FLAGGED and game.view[0, 2] == 0 and not game.over
    after = table_dict(agent)
    assert after.pop(low_key) == (0, 1)
    assert after == before  # the chosen (flag) action is not learned: only the click's window


# ----------------------------------------------------------------------------- 6. game end
def end_updates(last_view, mines, flags, chosen, passed_over, sym=True):
    """Expected end-of-game updates: every flag with the truth, and every (covered tile,
    window) pair of the last decision's board (less the chosen one when passed_over)."""
    flat_mines = np.asarray(mines).ravel()
    ups = [(key, 1 if flat_mines[cell] else -1) for key, cell in flags]
    for t in np.flatnonzero(np.asarray(last_view).ravel() == COVERED):
        for k, key in actions_of(last_view, int(t), sym):
            if not (passed_over and (int(t), k) == chosen):
                ups.append((key, 1 if flat_mines[t] else -1))
    return ups


def apply(table, updates):
    table = dict(table)
    for key, reward in updates:
        m, n = table.get(key, (0, 0))
        table[key] = (m + (reward > 0), n + 1)
    return table


@pytest.mark.parametrize("end_learning", ["last-all", "last-passed-over"])
def test_flags_and_the_last_decision_are_learned_at_game_end(end_learning):
    agent = ml.make_agent("greedy-mab", end_learning=end_learning)
    game = Game.from_mines(CORNER_MINE, flood=False)
    step_until_decision(agent, game)
    key_f = action_key(game.view, (0, 1), (0, 2))
    agent.keys.learn(key_f, +1)
    assert agent.step(game) == [Move(FLAG, 0, 1)]
    key_t = action_key(game.view, (0, 2), (1, 2))
    agent.keys.learn(key_t, +1)
    agent.keys.learn(key_t, +1)
    assert agent.step(game) == [Move(FLAG, 0, 2), Move(UNFLAG, 0, 1), Move(REVEAL, 0, 1)]
    # now make the mine look certainly safe (seen twice as safe) so the agent clicks it
    last = game.view
    first = actions_of(last, 8)[0]  # (2, 2)'s first window in ring order (k = 0, centre (1, 1))
    agent.keys.learn(first[1], -1)
    agent.keys.learn(first[1], -1)
    before = table_dict(agent)
    assert agent.step(game) == [Move(REVEAL, 2, 2)]
    assert game.lost
    mines = game.mines_after_game()
    # the click (+1), both flags of the game ((0, 1) was unflagged since: still learned)
    # with the truth (both safe: -1), and the last board's pairs
    expected = apply(before, [(first[1], +1)] + end_updates(
        last, mines, [(key_f, 1), (key_t, 2)], (8, first[0]), end_learning == "last-passed-over"))
    assert table_dict(agent) == expected
    assert set(before) < set(expected)


def test_passed_over_learns_one_update_fewer_of_the_chosen_action():
    n = {}
    for end in ("last-all", "last-passed-over"):
        agent = ml.make_agent("greedy-mab", end_learning=end)
        game = Game.from_mines(EDGE_MINE)
        step_until_decision(agent, game)
        key = action_key(game.view, (0, 3), (1, 3))
        agent.play_game(game)
        assert game.lost and len(game.moves) == 2
        n[end] = agent.keys.get(key)[1]
    assert n["last-all"] == n["last-passed-over"] + 1


def test_learning_false_learns_nothing():
    agent = ml.make_agent("greedy-mab", learning=False)
    df = ml.play(agent, "5x5x4:none", 50, seed=0)
    assert len(agent.table()) == 0 and (df["actions"] == 0).all()
    assert agent.decisions > 0


# ----------------------------------------------------------------------------- reference model
class Reference:
    """The greedy MAB agent written plainly from the module docstring (interactive,
    window keys from encode_window): predicts every move and every table update."""

    def __init__(self, flags=True, symmetries=True, end_learning="last-all", no_flags_rule="pairs"):
        self.flags, self.sym, self.passed_over = flags, symmetries, end_learning == "last-passed-over"
        self.pairs = not flags and no_flags_rule == "pairs"
        self.table = {}
        self.forced = 0  # decisions that met flags == mines
        self.touched, self.updates = set(), 0

    def value(self, key):
        if key not in self.table:
            return -1.0, 0
        m, n = self.table[key]
        return (2.0 * m - n) / n, n

    def learn(self, key, reward):
        m, n = self.table.get(key, (0, 0))
        self.table[key] = (m + (reward > 0), n + 1)
        self.touched.add(key)
        self.updates += 1

    def new_game(self):
        self.flag_record, self.last = [], None

    def predict(self, game):
        """Moves of the next step; applies the step's learning (the game-end part only
        after `finish`)."""
        view = np.array(game.view)
        flat = view.ravel()
        cols = view.shape[1]
        mine = game._gs.mine.astype(bool)  # the truth, for rewards (the test may look)
        counts = game._gs.counts
        move = lambda kind, cell: Move(kind, cell // cols, cell % cols)  # noqa: E731
        if int(game._gs.counters[ST_CLICKS]) == 0:  # the program's opening: first zero, column-major
            order = [r * cols + c for c in range(cols) for r in range(view.shape[0])]
            safe = [i for i in order if not mine[i] and flat[i] == COVERED]
            zero = [i for i in safe if counts[i] == 0]
            return [move(REVEAL, (zero or safe)[0])]
        bests = []
        for t in np.flatnonzero(flat == COVERED):
            best = None
            for k, key in actions_of(view, int(t), self.sym):
                q, n = self.value(key)
                if self.pairs and best is not None and (q < 0) != (best[3] < 0):
                    if q < 0:  # pairs rule: a safe-looking pair beats any mine-looking one
                        best = (int(t), k, key, q, n)
                elif self.pairs and best is not None and q >= 0:  # both look like mines: the lowest
                    if q < best[3] or (q == best[3] and n > best[4]):
                        best = (int(t), k, key, q, n)
                elif best is None or abs(q) > abs(best[3]) or (abs(q) == abs(best[3]) and n > best[4]):
                    best = (int(t), k, key, q, n)
            bests.append(best)
        pool = bests if self.flags else [b for b in bests if b[3] < 0]
        pick = None
        for b in pool:
            if pick is None or abs(b[3]) > abs(pick[3]) or (abs(b[3]) == abs(pick[3]) and b[4] > pick[4]):
                pick = b
        if pick is None:  # no flags and every tile looks like a mine: reveal the lowest value
            for b in bests:
                if pick is None or b[3] < pick[3] or (b[3] == pick[3] and b[4] > pick[4]):
                    pick = b
        t, k, key, q, _ = pick
        self.last = (view, (t, k), mine)
        if q < 0 or not self.flags:
            self.learn(key, 1 if mine[t] else -1)
            return [move(REVEAL, t)]
        if game.flags < game.level.mines:
            self.flag_record.append((key, t))
            return [move(FLAG, t)]
        low = (np.inf, None, None)
        for i in range(flat.size):
            if i == t or flat[i] == FLAGGED:
                lowest = (np.inf, None)
                for _, kk in actions_of(view, i, self.sym):
                    if self.value(kk)[0] < lowest[0]:
                        lowest = (self.value(kk)[0], kk)
                if lowest[0] < low[0]:
                    low = (lowest[0], i, lowest[1])
        _, i, low_key = low
        self.forced += 1
        self.learn(low_key, 1 if mine[i] else -1)
        if i == t:
            return [move(REVEAL, t)]
        self.flag_record.append((key, t))
        return [move(FLAG, t), move(UNFLAG, i), move(REVEAL, i)]

    def finish(self):
        for key, cell in self.flag_record:
            self.learn(key, 1 if self.last_mine()[cell] else -1)
        if self.last is not None:
            view, chosen, mine = self.last
            for key, reward in end_updates(view, mine, [], chosen, self.passed_over, self.sym):
                self.learn(key, reward)

    def last_mine(self):
        return self.last[2]


def play_against_reference(agent, ref, level, n_games, seed, human_first=False):
    """Play interactively, predicting every step with `ref`: the moves must be equal,
    the table entries the step touched equal after each step, the whole table after
    each game."""
    ref.table = table_dict(agent)  # start from what the agent knows
    ref.updates = int(agent.keys.counts.sum())
    deal, agent.rng = run_streams(seed)
    human = np.random.default_rng(seed)
    seen = {"unflags": 0, "flags": 0, "decisions": 0}
    for _ in range(n_games):
        game = Game(level, seed=deal)
        ref.new_game()
        if human_first:  # a person makes the first (safe) click, then hands over
            safe = np.flatnonzero(~game._gs.mine.astype(bool))
            cell = int(human.choice(safe))
            game.reveal(cell // game.level.cols, cell % game.level.cols)
        while not game.over:
            ref.touched = set()
            expected = ref.predict(game)
            moves = agent.step(game)
            assert moves == expected
            if game.over:
                ref.finish()
            for key in ref.touched:
                m, n = ref.table[key]
                assert agent.keys.get(key) == ((2 * m - n) / n, n)
            assert len(agent.keys) == len(ref.table) and int(agent.keys.counts.sum()) == ref.updates
            seen["unflags"] += any(m.kind == UNFLAG for m in moves)
            seen["flags"] += any(m.kind == FLAG for m in moves)
            seen["decisions"] += 1
        assert table_dict(agent) == ref.table
    seen["forced"] = ref.forced
    return seen


@pytest.mark.parametrize("level, kw", [
    ("5x5x4:none", {}),
    ("4x6x7:none", {}),
    ("5x5x6:none", {"end_learning": "last-passed-over"}),
    ("5x5x5:none", {"symmetries": False}),
    ("5x5x5:none", {"flags": False}),
    ("5x5x5:none", {"flags": False, "no_flags_rule": "tiles"}),
])
def test_greedy_agent_matches_the_reference_model_move_by_move(level, kw):
    agent = ml.make_agent("greedy-mab", **kw)
    ml.play(agent, level, 300, seed=1)  # some knowledge first: more flags, and flags == mines
    seen = play_against_reference(agent, Reference(**kw), level, 60, seed=7)
    if kw.get("flags", True):
        assert seen["flags"] > 0 and seen["forced"] > 0  # the test reached the flag rules


def test_handing_over_a_started_game_does_not_relearn_the_previous_games_flags():
    kw = {}
    agent = ml.make_agent("greedy-mab", **kw)
    ml.play(agent, "4x6x7:none", 300, seed=1)
    play_against_reference(agent, Reference(**kw), "4x6x7:none", 60, seed=7, human_first=True)


# ----------------------------------------------------------------------------- policies
ROW4 = np.array([[0, 0, 1, 0]])  # the opening reveals (0, 0) and (0, 1): 3 actions left


def row4_game(agent, lessons):
    """ROW4 after the opening; `lessons` maps action name -> (mines, safe) to teach, the
    actions being a1: (0, 2) seen from (0, 3), a2: (0, 2) from (0, 1), a3: (0, 3) from (0, 2)."""
    game = Game.from_mines(ROW4)
    step_until_decision(agent, game)
    view = game.view
    acts = {"a1": action_key(view, (0, 2), (0, 3)), "a2": action_key(view, (0, 2), (0, 1)),
            "a3": action_key(view, (0, 3), (0, 2))}
    assert len(set(acts.values())) == 3
    for name, (mines, safe) in lessons.items():
        for reward in [+1] * mines + [-1] * safe:
            agent.keys.learn(acts[name], reward)
    return game


UCB_LESSONS = {"a1": (3, 1), "a2": (1, 1), "a3": (1, 2)}  # Q = 0.5 (N 4), 0 (N 2), -1/3 (N 3)


@pytest.mark.parametrize("name, kw, expected", [
    ("greedy-mab", {}, Move(FLAG, 0, 2)),                                      # largest |Q|: a1
    ("ucb-mab", {"c": 2.0}, Move(REVEAL, 0, 3)),                               # |Q + sign(Q) bonus|: a3
    ("ucb-mab", {"c": 2.0, "ucb_bonus": "optimism"}, Move(REVEAL, 0, 2)),      # |Q - bonus|: a2
])
def test_ucb_scores(name, kw, expected):
    agent = ml.make_agent(name, **kw)
    game = row4_game(agent, UCB_LESSONS)
    agent.keys.meta[TM_T] = 100  # this decision is the 101st
    q = {a: (2 * m - (m + s)) / (m + s) for a, (m, s) in UCB_LESSONS.items()}
    bonus = {a: 2.0 * np.sqrt(np.log(101) / sum(UCB_LESSONS[a])) for a in q}
    certainty = {a: q[a] + np.sign(q[a]) * bonus[a] for a in q}
    optimism = {a: q[a] - bonus[a] for a in q}
    assert max(certainty, key=lambda a: abs(certainty[a])) == "a3" and certainty["a3"] < 0
    assert max(optimism, key=lambda a: abs(optimism[a])) == "a2" and optimism["a2"] < 0
    assert agent.step(game) == [expected]
    assert agent.decisions == 101


def test_ucb_tries_unseen_actions_first_as_clicks():
    agent = ml.make_agent("ucb-mab", c=2.0)
    game = row4_game(agent, {"a1": (5, 0), "a3": (0, 5)})  # both certain and known; a2 unseen
    agent.keys.meta[TM_T] = 100
    assert agent.step(game) == [Move(REVEAL, 0, 2)]  # a2, clicked: the mine
    assert game.lost


def test_egreedy_explores_uniformly_over_target_window_pairs():
    """epsilon = 1: a uniformly random pair each decision, acted on by the sign of its Q.
    a1 (Q = +1) flags (0, 2), a2 (unseen) reveals (0, 2), a3 (unseen) reveals (0, 3)."""
    counts = {Move(FLAG, 0, 2): 0, Move(REVEAL, 0, 2): 0, Move(REVEAL, 0, 3): 0}
    for seed in range(300):
        agent = ml.make_agent("egreedy-mab", epsilon=1.0, seed=seed)
        game = row4_game(agent, {"a1": (1, 0)})
        (move,) = agent.step(game)[:1]
        counts[move] += 1
    assert sum(counts.values()) == 300
    assert all(70 <= n <= 130 for n in counts.values()), counts  # 100 each (a tile-uniform pick: 150/150)


def test_egreedy_with_epsilon_zero_is_greedy():
    a, b = ml.make_agent("greedy-mab"), ml.make_agent("egreedy-mab", epsilon=0.0)
    pd.testing.assert_frame_equal(ml.play(a, "6x6x6:none", 300, seed=2),
                                  ml.play(b, "6x6x6:none", 300, seed=2))
    pd.testing.assert_frame_equal(a.table(), b.table())


def test_state_action_keys_are_the_whole_board_and_the_target():
    """2x2 with a mine at (1, 1): no zero, so the program opens the first safe cell (0, 0).
    Key = (board in base 11, cell i at 11**i, the target read as covered) * cells + target."""
    agent = ml.make_agent("sa-greedy")
    game = Game.from_mines(np.array([[0, 0], [0, 1]]), flood=False)
    assert step_until_decision(agent, game) == [Move(REVEAL, 0, 0)]

    def key(states, t):
        return sum(s * 11**i for i, s in enumerate(states)) * 4 + t

    assert agent.step(game) == [Move(REVEAL, 0, 1)]  # all unseen: scan order
    assert table_dict(agent) == {key([1, 9, 9, 9], 1): (0, 1)}
    assert agent.step(game) == [Move(REVEAL, 1, 0)]
    assert game.won
    # last decision's board [1, 1, C, C]: (1, 0) safe (chosen: twice), (1, 1) a mine
    assert table_dict(agent) == {key([1, 9, 9, 9], 1): (0, 1), key([1, 1, 9, 9], 2): (0, 2),
                                 key([1, 1, 9, 9], 3): (1, 1)}


def test_choose_is_a_dry_run_and_copy_is_independent():
    agent = ml.make_agent("egreedy-mab", epsilon=0.5)
    ml.play(agent, "6x6x7:none", 300, seed=4)
    twin = agent.copy()
    before = agent.table()
    ml.play(twin, "6x6x7:none", 100, seed=5)
    pd.testing.assert_frame_equal(agent.table(), before)
    assert len(twin.table()) > len(before)
    deal, agent.rng = run_streams(8)
    for _ in range(20):
        game = Game("6x6x7:none", seed=deal)
        while not game.over:
            n_moves, updates = len(game.moves), int(agent.keys.counts.sum())
            move = agent.choose(game)
            assert len(game.moves) == n_moves and int(agent.keys.counts.sum()) == updates
            assert agent.step(game)[0] == move


# ----------------------------------------------------------------------------- 7. determinism
@pytest.mark.parametrize("name, kw, level", [
    ("greedy-mab", {}, "8x8x10:none"),
    ("egreedy-mab", {"epsilon": 0.2}, "8x8x10:none"),
    ("ucb-mab", {"c": 0.1}, "8x8x10:none"),
    ("sa-greedy", {}, "4x4x3:none"),
])
def test_same_seed_same_records_and_table(name, kw, level):
    runs = []
    for agent_seed, capacity, chunk in ((1, 1 << 16, 20_000), (2, 16, 37)):  # table growth, chunking: no effect
        agent = ml.make_agent(name, seed=agent_seed, capacity=capacity, **kw)
        runs.append((ml.play(agent, level, 300, seed=5, chunk=chunk), agent.table(), agent.decisions))
    pd.testing.assert_frame_equal(runs[0][0], runs[1][0])
    pd.testing.assert_frame_equal(runs[0][1], runs[1][1])
    assert runs[0][2] == runs[1][2]
    other = ml.make_agent(name, **kw)
    df = ml.play(other, level, 300, seed=6)
    assert not df["moves"].equals(runs[0][0]["moves"])


# ----------------------------------------------------------------------------- 8. batch = interactive
@pytest.mark.parametrize("name, kw, level, pre", [
    ("greedy-mab", {}, "8x8x10:none", 0),
    ("egreedy-mab", {"epsilon": 0.1}, "8x8x10:none", 0),
    ("ucb-mab", {}, "8x8x10:none", 0),
    ("ucb-mab", {"c": 0.5, "ucb_bonus": "optimism"}, "6x6x6:none", 0),
    ("sa-greedy", {}, "4x4x3:none", 0),
    ("greedy-mab", {"flags": False}, "8x8x10:none", 0),
    ("greedy-mab", {"symmetries": False}, "8x8x10:none", 0),
    ("egreedy-mab", {"epsilon": 0.3, "flags": False}, "6x6x6:none", 0),
    ("greedy-mab", {"first_move": "agent"}, "8x8x10", 0),
    # trained first, so flags reach the mine count and forced unflags happen
    ("greedy-mab", {}, "8x8x10:none", 2000),
    ("greedy-mab", {"end_learning": "last-passed-over"}, "6x6x7:none", 1000),
    ("greedy-mab", {"symmetries": False}, "6x6x7:none", 1000),
    ("egreedy-mab", {"epsilon": 0.05}, "6x6x7:none", 1000),
])
def test_batch_play_equals_interactive_play(name, kw, level, pre):
    batch, inter = ml.make_agent(name, **kw), ml.make_agent(name, **kw)
    if pre:
        for agent in (batch, inter):
            ml.play(agent, level, pre, seed=99)
    df = ml.play(batch, level, 200, seed=3)
    deal, inter.rng = run_streams(3)
    rows, unflags = [], 0
    for _ in range(200):
        game = Game(level, seed=deal)
        inter.play_game(game)
        rows.append((game.won, len(game.moves), game.revealed, len(inter.keys), inter.keys.perfect))
        unflags += sum(m.kind == UNFLAG for m in game.moves)
    assert list(zip(df["won"], df["moves"], df["revealed"], df["actions"], df["perfect"])) == rows
    pd.testing.assert_frame_equal(batch.table(), inter.table())
    assert batch.decisions == inter.decisions
    if kw.get("flags", True) and kw.get("ucb_bonus") != "optimism":  # (optimism: Q - bonus < 0 clicks)
        assert df["flag_moves"].sum() > 0
    if pre:
        assert unflags > 0


def test_first_move_agent_opens_safely_and_learns_its_first_click():
    agent = ml.make_agent("greedy-mab", first_move="agent")
    deal, agent.rng = run_streams(0)
    for _ in range(30):
        game = Game("8x8x10", seed=deal)
        n_before = sum(n for _, n in table_dict(agent).values())
        decisions = agent.decisions
        first = agent.step(game)
        assert len(first) == 1 and first[0].kind == REVEAL and not game.lost  # the safe rule protects it
        assert agent.decisions == decisions + 1
        if not game.over:
            assert sum(n for _, n in table_dict(agent).values()) == n_before + 1  # learned at once
        agent.play_game(game)


# ----------------------------------------------------------------------------- 9. bad input
@pytest.mark.parametrize("name, kw, field", [
    ("greedy-mab", {"first_move": "program"}, "first_move"),
    ("greedy-mab", {"end_learning": "all"}, "end_learning"),
    ("ucb-mab", {"ucb_bonus": "pessimism"}, "ucb_bonus"),
    ("egreedy-mab", {"epsilon": 1.5}, "epsilon"),
    ("egreedy-mab", {"epsilon": -0.1}, "epsilon"),
    ("egreedy-mab", {"epsilon": float("nan")}, "epsilon"),
    ("egreedy-mab", {"epsilon": "0.1"}, "epsilon"),
    ("ucb-mab", {"c": -1.0}, "^c must"),
    ("ucb-mab", {"c": float("inf")}, "^c must"),
    ("greedy-mab", {"flags": 1}, "flags"),
    ("greedy-mab", {"flags": "yes"}, "flags"),
    ("greedy-mab", {"symmetries": None}, "symmetries"),
    ("greedy-mab", {"learning": 0}, "learning"),
    ("greedy-mab", {"capacity": 8}, "capacity"),
    ("greedy-mab", {"capacity": 2.0**20}, "capacity"),
    ("sa-greedy", {"symmetries": False}, "symmetries"),
])
def test_bad_parameters_raise_naming_the_field(name, kw, field):
    with pytest.raises(ValueError, match=field):
        ml.make_agent(name, **kw)


@pytest.mark.parametrize("level", ["5x5x3:none", "3x6x2:none", "1x17x1:none"])
def test_state_action_agent_refuses_boards_over_16_cells(level):
    with pytest.raises(ValueError, match="16"):
        ml.play(ml.make_agent("sa-greedy"), level, 1)
    with pytest.raises(ValueError, match="16"):
        ml.make_agent("sa-greedy").step(Game(level, seed=0))


@pytest.mark.parametrize("other", ["2x8x3:none", "3x5x3:none", "3x3x1:none"])
def test_state_action_agent_is_tied_to_the_board_it_learned_on(other):
    agent = ml.make_agent("sa-greedy")
    ml.play(agent, "4x4x3:none", 20, seed=0)
    for a in (agent, agent.copy()):
        with pytest.raises(ValueError, match="4x4"):
            ml.play(a, other, 1)
        with pytest.raises(ValueError, match="4x4"):
            a.step(Game(other, seed=0))
    ml.play(agent, "4x4x5:none", 5, seed=1)  # same size, other mine count: fine


def test_window_agents_transfer_between_sizes():
    agent = ml.make_agent("greedy-mab")
    ml.play(agent, "6x6x5:none", 50, seed=0)
    n = len(agent.table())
    ml.play(agent, "9x9x10:none", 50, seed=0)
    assert len(agent.table()) > n


def test_step_on_a_finished_game_raises():
    game = Game.from_mines(np.array([[1, 0]]))
    game.reveal(0, 0)
    with pytest.raises(ValueError, match="over"):
        ml.make_agent("greedy-mab").step(game)


def test_one_cell_board_with_the_agent_opening():
    agent = ml.make_agent("greedy-mab", first_move="agent")
    game = Game("1x1x0", seed=0)
    assert agent.step(game) == [Move(REVEAL, 0, 0)]
    assert len(agent.keys) == len(agent.table())


# ----------------------------------------------------------------------------- 10. learning helps
def test_greedy_learns_to_beat_random_and_reports_its_table():
    agent = ml.make_agent("greedy-mab")
    df = ml.play(agent, "8x8x10:none", 6000, seed=1)
    rand = ml.play("random", "8x8x10:none", 2000, seed=1)
    late = df["won"].iloc[4000:6000]
    assert two_proportion(int(late.sum()), 2000, int(rand["won"].sum()), 2000)["p_value"] < 1e-6
    assert wilson(int(late.sum()), 2000)[0] > wilson(int(rand["won"].sum()), 2000)[1]
    assert late.mean() > df["won"].iloc[:1000].mean()  # and it improved along the way
    table = agent.table()
    assert agent.actions_recorded == len(table) == df["actions"].iloc[-1]
    assert agent.perfect_actions == int(table["perfect"].sum()) == df["perfect"].iloc[-1]
    assert (df["actions"].diff().dropna() >= 0).all() and (df["perfect"] <= df["actions"]).all()
    assert ((table["q"] == -1) | (table["q"] == 1) == table["perfect"]).all()
    np.testing.assert_allclose(table["q"], (2 * table["mines"] - table["n"]) / table["n"])


@pytest.mark.parametrize("name, params, field", [
    ("greedy-mab", {"epsilon": 0.5}, "greedy-mab: no parameter 'epsilon'"),
    ("ucb-mab", {"epsilon": 0.1}, "ucb-mab: no parameter 'epsilon'"),
    ("greedy-mab", {"c": 3.0}, "greedy-mab: no parameter 'c'"),
    ("egreedy-mab", {"ucb_bonus": "optimism"}, "egreedy-mab: no parameter 'ucb_bonus'"),
    ("greedy-mab", {"no_flags_rule": "tiles"}, "no_flags_rule applies only with flags=False"),
    ("greedy-mab", {"flags": False, "no_flags_rule": "cells"}, "no_flags_rule must be one of"),
])
def test_options_of_another_policy_are_refused_not_ignored(name, params, field):
    with pytest.raises(ValueError, match=field):
        ml.make_agent(name, **params)
