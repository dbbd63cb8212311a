"""The blog's Conditional, Graphical and Semi-deterministic models (minelab.agents.blog)."""
import copy

import numpy as np
import pandas as pd
import pytest

import minelab as ml
from minelab.agents import blog
from minelab.engine import run_streams
from minelab.probability import solve
from minelab.stats import two_proportion

E, M = blog.EMPTY, blog.MINE


def revealed_game(layout, revealed):
    """A game on `layout` (no flood fill) with exactly the cells `revealed` shown."""
    game = ml.Game.from_mines(np.array(layout), flood=False)
    for r, c in revealed:
        game.reveal(r, c)
    return game


# --------------------------------------------------------------------------- Naive Bayes
def test_naive_bayes_counts_by_hand():
    """2x2 board, (0,0) shows 1, the mine at (1,1): one decision, then the game ends."""
    view = np.array([1, -1, -1, -1], np.int8)
    mine = np.array([0, 0, 0, 1], np.uint8)
    near = blog.radius_table(2, 2, 1)
    tab = blog.new_nb_tables(8, 1.0, False)
    work = blog.new_nb_work(4, 8)
    blog.nb_observe(view, near, work)
    blog.nb_learn(mine, tab, work, 1.0, False)
    # offsets row-major: 0 (-1,-1) 1 (-1,0) 2 (-1,1) 3 (0,-1) 4 (0,1) 5 (1,-1) 6 (1,0) 7 (1,1);
    # states: 0 covered, 1 + v for a number v ("1" is state 2)
    expected = np.zeros((2, 8, 10), np.int64)
    for k, s in ((3, 2), (5, 0), (6, 0)):  # cell (0,1), empty
        expected[E, k, s] += 1
    for k, s in ((1, 2), (2, 0), (4, 0)):  # cell (1,0), empty
        expected[E, k, s] += 1
    for k, s in ((0, 2), (1, 0), (3, 0)):  # cell (1,1), the mine
        expected[M, k, s] += 1
    np.testing.assert_array_equal(tab.counts, expected)
    np.testing.assert_array_equal(tab.obs, [2, 1])
    assert not work.pending.any() and not work.pending_n.any()
    # add-one: P(C=E) = 3/5; P(X_3 = "1" | E) = 2/11; position 0 never seen with E: 1/10
    assert np.exp(tab.logprior) == pytest.approx([3 / 5, 2 / 5])
    assert np.exp(tab.logp[E, 3, 2]) == pytest.approx(2 / 11)
    assert np.exp(tab.logp[E, 0, 2]) == pytest.approx(1 / 10)
    # the mine's score on that view: log P(E|N) - log P(M|N), by hand
    blog.nb_scores(view, near, tab, work)
    by_hand = np.log((3 / 5) * (1 / 10) * (1 / 11) * (1 / 11)) - np.log((2 / 5) * (2 / 11) ** 3)
    assert work.score[3] == pytest.approx(by_hand)
    # pooled: one distribution for every neighbour: Empty saw "1" twice and covered 4 times
    pooled = blog.new_nb_tables(8, 1.0, True)
    pooled.counts[:] = tab.counts
    pooled.obs[:] = tab.obs
    blog.nb_tables(pooled, 1.0, True)
    assert np.exp(pooled.logp[E, :, 2]) == pytest.approx(np.full(8, 3 / 16))


def test_naive_bayes_without_smoothing_rules_classes_out():
    tab = blog.new_nb_tables(8, 0.0, False)
    assert (tab.logprior == 0).all() and (tab.logp == 0).all()  # no data: 0/0 is uninformative
    tab.counts[E, 3, 2] = 5
    tab.obs[:] = (5, 1)
    tab.counts[M, 3, 0] = 1
    blog.nb_tables(tab, 0.0, False)
    assert tab.logp[E, 3, 0] == -np.inf and tab.logp[M, 3, 2] == -np.inf


def replayed_counts(layout, moves, radius=1):
    """The Conditional model's counts recomputed in plain Python from a game's moves."""
    rows, cols = layout.shape
    counts = np.zeros((2, (2 * radius + 1) ** 2 - 1, 10), np.int64)
    game = ml.Game.from_mines(layout)
    for move in moves:
        view = game.view
        for r in range(rows):
            for c in range(cols):
                if view[r, c] != ml.COVERED:
                    continue
                k = 0
                for dr in range(-radius, radius + 1):
                    for dc in range(-radius, radius + 1):
                        if dr == 0 and dc == 0:
                            continue
                        if 0 <= r + dr < rows and 0 <= c + dc < cols:
                            v = view[r + dr, c + dc]
                            counts[int(layout[r, c]), k, 0 if v < 0 else v + 1] += 1
                        k += 1
        game.apply(move)
    return counts


@pytest.mark.parametrize("radius", [1, 2])
def test_conditional_learns_what_a_recount_finds(radius):
    rng = np.random.default_rng(3)
    agent = ml.make_agent("conditional", seed=1, radius=radius)
    total = np.zeros((2, (2 * radius + 1) ** 2 - 1, 10), np.int64)
    for _ in range(4):
        layout = np.zeros(36, np.uint8)
        layout[rng.choice(36, 6, replace=False)] = 1
        layout = layout.reshape(6, 6)
        game = agent.play_game(ml.Game.from_mines(layout))
        total += replayed_counts(layout, game.moves, radius)
    np.testing.assert_array_equal(agent.tables(6, 6).counts, total)


def test_conditional_picks_a_cell_classified_empty():
    agent = ml.make_agent("conditional", seed=0)
    ml.play(agent, "6x6x6:none", 300, seed=0)
    game = ml.Game("6x6x6:none", seed=5)
    game.reveal(0, 0) if not game._gs.mine[0] else game.reveal(5, 5)
    if game.over:
        pytest.skip("the scripted first click ended the game")
    near, tab = agent.nb.memory(6, 6)
    work = blog.new_nb_work(36, 8)
    n_empty = blog.nb_scores(game._gs.shown, near, tab, work)
    move = agent.choose(game)
    i = move.row * 6 + move.col
    assert n_empty > 0 and work.score[i] >= 0
    argmax = ml.make_agent("conditional", pick="argmax")
    argmax.nb._memory = agent.nb._memory
    best = argmax.choose(game)
    scores = np.where(game._gs.shown == ml.COVERED, work.score, -np.inf)
    assert scores[best.row * 6 + best.col] == scores.max()


# --------------------------------------------------------------------------- semi-deterministic
LAYOUT = np.array([[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]])
SHOWN = [(0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3), (2, 2)]


def test_semi_deterministic_inference_by_hand():
    """Covered: (0,0) and (2,3) mines, (2,0) and (2,1) safe. (0,1) = 1 and (1,3) = 1 each
    have one covered neighbour: mines. (1,0), (1,1), (1,2) then see their one mine: their
    other covered neighbours are safe."""
    game = revealed_game(LAYOUT, SHOWN)
    gs = game._gs
    w = blog.new_semi_work(12)
    size = blog.semi_infer(gs.shown, gs.nbr, gs.nbr_count, w)
    assert sorted(w.safe[:size]) == [8, 9]
    assert sorted(np.flatnonzero(w.mine)) == [0, 11]
    sol = solve(game.view, 2)
    assert sol.mine.ravel()[[0, 11]].all() and sol.safe.ravel()[[8, 9]].all()
    for seed in range(10):
        move = ml.make_agent("semi-deterministic", seed=seed).choose(game)
        assert (move.row, move.col) in {(2, 0), (2, 1)}


def test_semi_deterministic_never_risks_a_mine_when_it_knows_a_safe_cell():
    """At every decision with a non-empty safe set, the cell played is safe in every layout
    consistent with the view (exact solver), and every inferred mine is certain."""
    checked = 0
    for seed in range(25):
        game, agent = ml.Game("8x8x10:none", seed=seed), ml.make_agent("semi-deterministic", seed=seed + 1000)
        w = blog.new_semi_work(64)
        while not game.over:
            gs = game._gs
            size = blog.semi_infer(gs.shown, gs.nbr, gs.nbr_count, w)
            move = agent.choose(game)
            if size:
                sol = solve(game.view, 10)
                assert sol.safe[move.row, move.col], (seed, move)
                assert sol.mine.ravel()[w.mine.astype(bool)].all()
                checked += 1
            game.apply(move)
    assert checked > 50


def test_semi_deterministic_fallbacks():
    game = ml.Game.from_mines(np.eye(4, dtype=int))  # nothing revealed: the fallback decides
    for fb in blog.FALLBACKS:
        move = ml.make_agent("semi-deterministic", fallback=fb, seed=0).choose(game)
        assert game.view[move.row, move.col] == ml.COVERED
    df = ml.play(ml.make_agent("semi-deterministic"), "8x8x10:none", 200, seed=1)
    assert (df["guesses"] >= 1).all()  # the first move is always the fallback's


def positions_without_safe_cells(n):
    """Views of real games where the inference finds mines but no safe cell."""
    found = []
    for seed in range(200):
        game, agent = ml.Game("8x8x12:none", seed=seed), ml.make_agent("semi-deterministic", seed=seed + 1000)
        w = blog.new_semi_work(64)
        while not game.over and len(found) < n:
            gs = game._gs
            if blog.semi_infer(gs.shown, gs.nbr, gs.nbr_count, w) == 0 and w.mine.any():
                found.append((game, w.mine.copy()))
                break
            agent.act(game)
    return found


def test_avoid_mines_keeps_the_fallback_off_certain_mines():
    positions = positions_without_safe_cells(8)
    assert len(positions) == 8
    for fb in blog.FALLBACKS:
        hit = {True: 0, False: 0}
        for game, mines in positions:
            for seed in range(30):
                for avoid in (True, False):
                    move = ml.make_agent("semi-deterministic", fallback=fb, avoid_mines=avoid, seed=seed).choose(game)
                    hit[avoid] += int(mines[move.row * 8 + move.col])
        assert hit[True] == 0 and hit[False] > 0, (fb, hit)


# --------------------------------------------------------------------------- graphical
FULL = blog.GraphConfig(blog.MAX_DEPTH, blog.BACKUP_EXPECT, 0.0)  # the default: values kept up to date


def scripted_graph_games(games, cfg=FULL):
    """Play scripted games on 3x3 boards through the Graphical model's recording kernels."""
    mem = blog.GraphMemory()
    for layout, flood, cells in games:
        game = ml.Game.from_mines(np.array(layout), flood=flood)
        work = blog.new_graph_work(9)
        for r, c in cells:
            blog.graph_note_before(game._gs.shown, 3, 3, r * 3 + c, work)
            got = game.reveal(r, c)
            blog.graph_note_after(game._gs.shown, 3, got < 0, work)
        mem.reserve(int(work.meta[blog.GW_N]))
        blog.graph_learn(mem.arrays(), cfg, work, game._gs.mine, 3)
    return mem


def key_of(nibbles):
    return sum(int(v) << (4 * p) for p, v in enumerate(nibbles))


CORNER = [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
CORNER_GAMES = [
    (CORNER, True, [(2, 2)]),    # a zero: the flood opens every safe cell: SUCCESS
    (CORNER, True, [(0, 0)]),    # the mine: FAILURE
    (CORNER, False, [(0, 1), (2, 2)]),  # no flood: "1" (continue), then a zero (continue)
    (CORNER, False, [(2, 2)]),  # no flood: a zero, nothing else opens (continue)
]
ONE = key_of([0, 2])  # the sub-grid showing only the "1" at (0,1)


@pytest.mark.parametrize("cfg", [FULL, blog.GraphConfig(1, blog.BACKUP_EXPECT, 0.0)])
def test_graphical_transition_counts_by_hand(cfg):
    mem = scripted_graph_games(CORNER_GAMES, cfg)
    s0 = mem.counts(0)  # the all-covered sub-grid
    won = key_of([0, 2, 1, 2, 2, 1, 1, 1, 1])  # every cell shown but the mine (numbers as v + 1)
    assert s0[8] == {"n": 2, "fail": 0, "success": 1,
                     "outcomes": {(won, "success"): 1, (key_of([0, 0, 0, 0, 0, 0, 0, 0, 1]), "continue"): 1}}
    assert s0[0] == {"n": 1, "fail": 1, "success": 0, "outcomes": {}}
    assert s0[1] == {"n": 1, "fail": 0, "success": 0, "outcomes": {(ONE, "continue"): 1}}
    assert mem.counts(ONE)[8] == {"n": 1, "fail": 0, "success": 0,
                                  "outcomes": {(key_of([0, 2, 0, 0, 0, 0, 0, 0, 1]), "continue"): 1}}
    assert s0[4] == {"n": 0, "fail": 0, "success": 0, "outcomes": {}}
    assert mem.counts(key_of([5])) is None


def test_graphical_values_by_hand():
    """Q(s0, a): (0,0) lost its only try; (2,2) won its sub-grid once (+100) and once
    continued (+1) to a state never played from (worth `unseen` = 0); (0,1) continued (+1)
    to the "1" state, whose one tried action continued (+1): V = 1 over the whole game."""
    ga = scripted_graph_games(CORNER_GAMES).arrays()
    work, view, rng = blog.new_graph_work(9), np.full(9, ml.COVERED, np.int8), np.random.default_rng(0)
    row = int(blog.find_row(ga.tb, np.zeros(1, np.uint64)))
    assert blog.state_value(ga, FULL, row, 9) == pytest.approx(50.5)
    assert ga.memo_q[row, [0, 1, 8]] == pytest.approx([-100.0, 2.0, 50.5])
    assert blog.graph_decide(view, 3, 3, ga, FULL, work, rng) == 8
    one_step = blog.GraphConfig(1, blog.BACKUP_EXPECT, 0.0)
    ga = scripted_graph_games(CORNER_GAMES, one_step).arrays()
    blog.state_value(ga, one_step, row, 1)
    assert ga.memo_q[row, [0, 1, 8]] == pytest.approx([-100.0, 1.0, 50.5])
    path = blog.GraphConfig(blog.MAX_DEPTH, blog.BACKUP_PATH, 0.0)
    ga = scripted_graph_games(CORNER_GAMES, path).arrays()
    blog.state_value(ga, path, row, 9)  # the best single outcome: P x REWARD + V(next) unweighted
    assert ga.memo_q[row, [0, 1, 8]] == pytest.approx([-100.0, 1.0 + 1.0, max(0.5 * 100, 0.5 * 1 + 0.0)])
    assert blog.graph_decide(view, 3, 3, ga, path, work, rng) == 8


@pytest.mark.parametrize("params", [{}, {"depth": 3}, {"backup": "path"}])
def test_graphical_values_follow_learning(params):
    """After many games of learning, every value the model holds equals the value computed
    from scratch: the default mode keeps them up to date, the others invalidate the memo."""
    agent = ml.make_agent("graphical", seed=0, **params)
    ml.play(agent, "6x6x5:none", 400, seed=0)
    mem = agent.memory(6, 6)
    n = len(mem)
    q, ok, at = mem.memo_q[:n].copy(), mem.memo_ok[:n].astype(bool), mem.memo_depth[:n].copy()
    assert ok.sum() > 100
    scratch = copy.deepcopy(mem)
    ga, cfg = scratch.arrays(), agent.config._replace(backup=blog.BACKUPS.index(agent.backup))
    for row in np.flatnonzero(ok):
        scratch.memo_ok[:] = 0
        blog.state_value(ga, cfg, int(row), int(at[row]))
        covered = np.array([(int(mem.table.row_keys[row, 0]) >> (4 * p)) & 15 == 0 for p in range(9)])
        np.testing.assert_allclose(scratch.memo_q[row][covered], q[row][covered], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("params", [{"depth": 1}, {"depth": 3}, {"backup": "path"}, {"unseen": 5.0}])
def test_graphical_options_play(params):
    df = ml.play(ml.make_agent("graphical", **params), "6x6x5:none", 200, seed=2)
    assert len(df) == 200 and df["states"].is_monotonic_increasing


# --------------------------------------------------------------------------- batch == interactive
VARIANTS = [
    ("conditional", {}), ("conditional", {"pick": "argmax", "features": "pooled", "alpha": 0.5}),
    ("conditional", {"radius": 2, "alpha": 0.0}),
    ("graphical", {}), ("graphical", {"depth": 2, "backup": "path"}),
    ("semi-deterministic", {"fallback": "conditional"}), ("semi-deterministic", {"avoid_mines": True}),
]


def learnt_state(agent, rows, cols):
    if isinstance(agent, blog.GraphicalAgent):
        mem = agent.memory(rows, cols)
        n, e = len(mem), mem.edges
        return [mem.table.row_keys[:n], mem.table.visits[:n], mem.n_fail[:n], mem.n_succ[:n],
                mem.edge_to[:e], mem.edge_count[:e]]
    tab = agent.nb.memory(rows, cols)[1]
    return [tab.counts, tab.obs]


@pytest.mark.parametrize("name,params", VARIANTS)
def test_batch_and_interactive_play_agree_and_learn_alike(name, params):
    level = ml.Level.parse("6x7x7:none")
    batch_agent = ml.make_agent(name, **params)
    df = ml.play(batch_agent, level, 60, seed=9)
    deal_rng, agent_rng = run_streams(9)
    agent = ml.make_agent(name, **params)
    agent.rng = agent_rng
    rows = []
    for _ in range(60):
        game = agent.play_game(ml.Game(level, seed=deal_rng))
        rows.append((bool(game.won), len(game.moves), game.revealed))
    assert list(zip(df["won"], df["moves"], df["revealed"])) == rows
    for a, b in zip(learnt_state(batch_agent, 6, 7), learnt_state(agent, 6, 7)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,params", VARIANTS)
def test_same_seed_same_games(name, params):
    a = ml.play(ml.make_agent(name, **params), "6x6x5:none", 120, seed=4)
    b = ml.play(ml.make_agent(name, **params), "6x6x5:none", 120, seed=4)
    pd.testing.assert_frame_equal(a, b)


# --------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("name,field,value", [
    ("conditional", "radius", 0), ("conditional", "radius", 1.5), ("conditional", "features", "shared"),
    ("conditional", "alpha", -1.0), ("conditional", "alpha", float("nan")), ("conditional", "pick", "max"),
    ("graphical", "depth", 0), ("graphical", "depth", 10), ("graphical", "depth", True),
    ("graphical", "backup", "sum"), ("graphical", "unseen", "0"),
    ("semi-deterministic", "fallback", "graphical"), ("semi-deterministic", "avoid_mines", "yes"),
])
def test_bad_parameters_name_the_field(name, field, value):
    with pytest.raises(ValueError, match=field):
        ml.make_agent(name, **{field: value})


def test_params_show_non_defaults():
    assert ml.make_agent("conditional").params() == {}
    assert ml.make_agent("conditional", pick="argmax", radius=2).params() == {"radius": 2, "pick": "argmax"}
    assert ml.make_agent("graphical", depth=1).params() == {"depth": 1}
    assert ml.make_agent("semi-deterministic", fallback="conditional").params() == {"fallback": "conditional"}
    assert ml.make_agent("semi-deterministic", fallback="conditional").learns
    assert not ml.make_agent("semi-deterministic").learns


# --------------------------------------------------------------------------- against random
@pytest.mark.parametrize("name,games,alpha", [("semi-deterministic", 300, 1e-12), ("conditional", 800, 1e-3),
                                              ("graphical", 800, 1e-3)])
def test_models_beat_random_where_the_blog_says(name, games, alpha):
    """9x9 with 3 mines, the blog's rule: same boards for both (one run's seed)."""
    level = "9x9x3:none"
    model = ml.play(ml.make_agent(name), level, games, seed=11)
    rnd = ml.play(ml.make_agent("random"), level, games, seed=11)
    test = two_proportion(int(model["won"].sum()), games, int(rnd["won"].sum()), games)
    assert model["won"].mean() > rnd["won"].mean() and test["p_value"] < alpha


def test_graphical_memory_grows_in_place(table_never_copied):
    """Its state table grows in place (a copy would hold it twice at its largest)."""
    agent = ml.make_agent("graphical", seed=0)
    ml.play(agent, "6x6x5:none", 1_500, seed=0)
    assert len(agent.memory(6, 6)) > 4096  # more than StateTable's first capacity: it grew
