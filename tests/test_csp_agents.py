"""The exact-probability agents: csp, hcsp, best.

Scripted positions (certain moves, 50/50s, tie-breaks), exact optimality of `best` on
boards small enough to solve by brute force, determinism, batch == interactive, and
that each agent beats `random` and `marginal` by far more than chance allows.
"""
import functools
import itertools

import numpy as np
import pytest
from scipy import stats

import minelab as ml
from minelab.cells import FLAG, REVEAL
from minelab.engine import run_streams
from minelab.agents.csp import DC_GUESS

AGENTS = ("csp", "hcsp", "best")


def game_with(layout, reveals):
    """A game on a fixed layout with some cells revealed (no flood, so the view is exactly that)."""
    game = ml.Game.from_mines(np.array(layout), flood=False)
    for r, c in reveals:
        game.reveal(r, c)
    return game


# ------------------------------------------------------------------ scripted positions
@pytest.mark.parametrize("name", AGENTS)
def test_first_move_is_the_top_left_corner(name):
    game = ml.Game("9x9x10", seed=3)
    assert ml.make_agent(name, seed=0).choose(game) == ml.Move(REVEAL, 0, 0)


@pytest.mark.parametrize("name", AGENTS)
def test_certain_moves_come_first_and_all_at_once(name):
    # 3x3, mine at (2, 2); the top row and the left column revealed, all 0: (1, 1),
    # (1, 2) and (2, 1) touch a 0, so they are safe, and the one mine must be (2, 2)
    layout = [[0, 0, 0], [0, 0, 0], [0, 0, 1]]
    game = game_with(layout, [(0, 0), (0, 1), (0, 2), (1, 0), (2, 0)])
    agent = ml.make_agent(name, seed=0)
    moves = agent.decision(game)
    assert sorted(moves) == [(REVEAL, 4), (REVEAL, 5), (REVEAL, 7), (FLAG, 8)]
    made = agent.act(game)
    assert made and not game.lost


@pytest.mark.parametrize("name", AGENTS)
def test_certain_mine_is_flagged_and_never_revealed(name):
    # 1x3: mine in the middle; after revealing (0, 0) = 1 the middle is certainly a mine,
    # and the right cell is then certainly safe (one mine in all)
    game = game_with([[0, 1, 0]], [(0, 0)])
    agent = ml.make_agent(name, seed=0)
    moves = agent.decision(game)
    assert (FLAG, 1) in moves and (REVEAL, 2) in moves
    agent.play_game(game)
    assert game.won


@pytest.mark.parametrize("name", ("csp", "hcsp"))
def test_guesses_are_least_probable_cells(name):
    """In real games, whenever csp / hcsp guess, the cell has the least mine probability."""
    agent = ml.make_agent(name, seed=1)
    guesses = 0
    for g in range(40):
        game = ml.Game("9x9x10", seed=100 + g)
        while not game.over:
            moves = agent.decision(game)
            if game.dealt:
                sol = ml.probability.solve(game.view, 10)
                if not sol.safe.any():
                    guesses += 1
                    assert len(moves) == 1 and moves[0][0] == REVEAL
                    p = sol.probabilities.ravel()
                    assert p[moves[0][1]] <= np.nanmin(p) + 1e-9
            agent.act(game)
    assert guesses > 10


def test_forced_50_50_is_guessed_and_won_half_the_time():
    # 3x2 board, bottom row covered: both cells touch exactly the same numbers (1, 1)
    wins = {name: 0 for name in AGENTS}
    for layout in ([[0, 0], [0, 0], [1, 0]], [[0, 0], [0, 0], [0, 1]]):
        for name in AGENTS:
            game = game_with(layout, [(0, 0), (0, 1), (1, 0), (1, 1)])
            p = ml.mine_probabilities(game.view, 1)
            assert p[2, 0] == 0.5 and p[2, 1] == 0.5
            agent = ml.make_agent(name, seed=0)
            agent.play_game(game)
            wins[name] += game.won
    # `best` is deterministic: the same cell in both layouts, so exactly one is won
    assert wins["best"] == 1


def test_hcsp_tie_rule_prefers_cells_next_to_the_revealed_area():
    from minelab.agents.csp import TIE_FRONTIER, TIE_RANDOM, least_probable, new_solver_state
    from minelab.engine import _tables

    rows, cols = 6, 6
    view = np.full(rows * cols, -1, np.int8)
    view[0] = 1  # one revealed cell in the corner
    nbr, nbr_count = _tables(rows, cols)
    prob = np.full(rows * cols, 0.2)
    prob[0] = np.nan
    s = new_solver_state(rows * cols, 5)
    near = {1, cols, cols + 1}
    rng = np.random.default_rng(0)
    picks = {int(least_probable(view, nbr, nbr_count, s, prob, TIE_FRONTIER, rng))
             for _ in range(50)}
    assert picks <= near and len(picks) > 1  # only the frontier, at random among it
    anywhere = {int(least_probable(view, nbr, nbr_count, s, prob, TIE_RANDOM, rng))
                for _ in range(200)}
    assert anywhere - near  # csp's rule ranges over every tied cell
    prob[35] = 0.1  # a strictly safer cell wins whatever its distance
    assert least_probable(view, nbr, nbr_count, s, prob, TIE_FRONTIER, rng) == 35


# ------------------------------------------------------------------ exact optimality of `best`
def optimal_after_corner(rows, cols, mines):
    """Win probability of optimal play after a safe first click in the top-left corner,
    by brute force over every layout (flood fill included)."""
    n = rows * cols
    nbrs = [[rr * cols + cc for rr in range(r - 1, r + 2) for cc in range(c - 1, c + 2)
             if 0 <= rr < rows and 0 <= cc < cols and (rr, cc) != (r, c)] for r in range(rows) for c in range(cols)]
    layouts = [frozenset(m) for m in itertools.combinations(range(1, n), mines)]

    def shows(lay, c):
        return sum(j in lay for j in nbrs[c])

    def opened(lay, c, revealed):
        out, stack = set(), [c]
        while stack:
            x = stack.pop()
            if x in out or x in revealed:
                continue
            out.add(x)
            if shows(lay, x) == 0:
                stack.extend(nbrs[x])
        return out

    def split(S, c, revealed):
        groups = {}
        for i in S:
            lay = layouts[i]
            if c in lay:
                continue
            new = revealed | opened(lay, c, revealed)
            key = (frozenset(new), tuple(shows(lay, x) for x in sorted(new - revealed)))
            groups.setdefault(key, []).append(i)
        return groups

    @functools.lru_cache(maxsize=None)
    def value(S, revealed):
        if len(revealed) == n - mines:
            return 1.0
        return max(sum(len(g) * value(frozenset(g), k[0]) for k, g in split(S, c, revealed).items()) / len(S)
                   for c in range(n) if c not in revealed)

    groups = split(range(len(layouts)), 0, frozenset())
    return sum(len(g) * value(frozenset(g), k[0]) for k, g in groups.items()) / len(layouts), layouts


@pytest.mark.parametrize("rows, cols, mines", [(1, 10, 5), (2, 5, 3), (3, 3, 2)])
def test_best_plays_optimally_on_boards_small_enough_to_solve(rows, cols, mines):
    """Every layout played once: `best` (exact endgame search from its first guess on)
    must win exactly the optimal fraction after the corner opening."""
    optimum, layouts = optimal_after_corner(rows, cols, mines)
    agent = ml.make_agent("best")
    wins = 0
    for lay in layouts:
        grid = np.zeros(rows * cols, int)
        grid[list(lay)] = 1
        game = ml.Game.from_mines(grid.reshape(rows, cols))
        agent.play_game(game)
        wins += game.won
    assert wins == round(optimum * len(layouts))
    # and csp, which guesses by probability alone, is not better than optimal
    csp_wins = 0
    for lay in layouts:
        grid = np.zeros(rows * cols, int)
        grid[list(lay)] = 1
        game = ml.Game.from_mines(grid.reshape(rows, cols))
        ml.make_agent("csp", seed=1).play_game(game)
        csp_wins += game.won
    assert csp_wins <= wins


# ------------------------------------------------------------------ determinism, batch == interactive
@pytest.mark.parametrize("name", AGENTS)
def test_same_seed_same_records(name):
    a = ml.play(name, "9x9x10", 300, seed=5, progress=False)
    b = ml.play(name, "9x9x10", 300, seed=5, progress=False)
    cols = [c for c in a.columns if c not in ("seconds",)]
    assert a[cols].equals(b[cols])


@pytest.mark.parametrize("name, level", [("csp", "8x8x10"), ("hcsp", "9x9x10"), ("best", "8x8x10"),
                                         ("best", "16x16x40")])
def test_batch_and_interactive_make_the_same_games(name, level):
    n = 60 if level == "16x16x40" else 300
    df = ml.play(name, level, n, seed=2, progress=False)
    deal, agent_rng = run_streams(2)
    agent = ml.make_agent(name, seed=agent_rng)
    won, moves = [], []
    for _ in range(n):
        game = ml.Game(level, seed=deal)  # a shared generator: the batch's boards, in order
        agent.play_game(game)
        won.append(int(game.won))
        moves.append(len(game.moves))
    assert won == df.won.tolist()
    assert moves == df.moves.tolist()


@pytest.mark.parametrize("name", AGENTS)
def test_record_fields(name):
    df = ml.play(name, "8x8x10", 200, seed=0, progress=False)
    assert {"guesses", "fallbacks"} <= set(df.columns)
    assert (df.fallbacks == 0).all()
    assert (df.guesses >= 0).all()
    won = df[df.won == 1]
    assert (won.revealed == 64 - 10).all()


# ------------------------------------------------------------------ strength
@pytest.mark.parametrize("name", AGENTS)
def test_each_agent_beats_random_and_marginal(name):
    n = 600
    ours = ml.play(name, "8x8x10", n, seed=9, progress=False).won.sum()
    for baseline in ("random", "marginal"):
        theirs = ml.play(baseline, "8x8x10", n, seed=9, progress=False).won.sum()
        table = [[ours, n - ours], [theirs, n - theirs]]
        assert ours > theirs and stats.fisher_exact(table).pvalue < 1e-6


def test_best_is_not_worse_than_hcsp_on_the_same_boards():
    n = 1500
    best = ml.play("best", "8x8x10", n, seed=4, progress=False).won.to_numpy()
    hcsp = ml.play("hcsp", "8x8x10", n, seed=4, progress=False).won.to_numpy()
    # paired on the same boards: a one-sided sign test on the discordant games
    better = int(((best == 1) & (hcsp == 0)).sum())
    worse = int(((best == 0) & (hcsp == 1)).sum())
    assert better >= worse


@pytest.mark.parametrize("layout, reveal, expected", [
    # 1x3, one mine, the middle shows 1: both covered cells see nothing covered (dead): no
    # living cell, so the next safety is the best safety, 1/2
    ([[1, 0, 0]], (0, 1), (0, 0.5, 0.5)),
    # 1x4, one mine, the left end shows 0: (0, 1) certain safe (living: it sees (0, 2)),
    # (0, 2) and (0, 3) safe with 1/2, living: (4 x 1 + 1/2) / 5
    ([[0, 0, 0, 1]], (0, 0), (1, 1.0, 0.9)),
    # 1x4, one mine, (0, 1) shows 1: (0, 3) certain safe and living (it sees (0, 2));
    # (0, 0) and (0, 2) safe with 1/2 but dead (all they see is revealed or certain):
    # only (0, 3) lives, so the blend is its safety alone (counting a dead 1/2 gives 0.9)
    ([[0, 0, 1, 0]], (0, 1), (1, 1.0, 1.0)),
])
def test_best_secondary_rule_blends_the_two_safest_living_cells(layout, reveal, expected):
    from minelab.agents.best import _next_position
    from minelab.probability import DEFAULT_MAX_WORK, OK, new_workspace, solve_kernel

    game = game_with(layout, [reveal])
    view = game.view.ravel().astype(np.int8)
    nbr, nbr_count = game._gs.nbr, game._gs.nbr_count
    known = np.zeros(view.size, np.uint8)
    ws = new_workspace(view.size, 1)
    assert solve_kernel(ws, view, known, 1, nbr, nbr_count, DEFAULT_MAX_WORK) == OK
    n_safe, best_next, blended, _ = _next_position(view, known, ws, nbr, nbr_count, False)
    assert (n_safe, best_next, blended) == pytest.approx(expected)


def _mine_weights(view, rows, cols, mines, cells, max_frontier=20):
    """Brute force, apart from the solver: for the covered cells of `view` (flat int8),
    the number of layouts of `mines` consistent with its numbers in which each pattern
    of `cells` holds: {(is mine of cells[0], of cells[1], ...): layouts}. Frontier
    assignments are listed (None past max_frontier cells); the other covered cells
    count by binomials."""
    from math import comb

    from minelab.engine import neighbour_table

    nbr, nbr_count = neighbour_table(rows, cols)
    covered = {int(i) for i in np.flatnonzero(view < 0)}
    numbers = [(i, int(view[i])) for i in range(view.size) if view[i] >= 0]

    def around(i):
        return [int(j) for j in nbr[i, :nbr_count[i]] if view[j] < 0]

    frontier = sorted({j for i, _ in numbers for j in around(i)} | (set(cells) & covered))
    if len(frontier) > max_frontier:
        return None
    rest = len(covered) - len(frontier)
    bits = (np.arange(2 ** len(frontier))[:, None] >> np.arange(len(frontier))) & 1
    ok = np.ones(len(bits), bool)
    col = {q: k for k, q in enumerate(frontier)}
    for i, v in numbers:
        ok &= bits[:, [col[j] for j in around(i)]].sum(axis=1) == v
    out = {}
    for a in bits[ok]:
        left = mines - int(a.sum())
        if left < 0:
            continue  # more mines than the board has
        key = tuple(int(a[col[q]]) for q in cells)
        out[key] = out.get(key, 0) + comb(rest, left)
    return out


def test_best_dominance_takes_a_safer_cell_that_is_safe_whenever_the_chosen_one_is():
    """Where best reveals a cell b in place of the secondary rule's choice c (the
    buffers' `replaced`), b is safe in every consistent layout where c is safe, and
    safer: checked by listing the position's layouts apart from the solver that chose.
    Off (dominance=False), the rule's own choice is played. Scored with progress weight
    0.1 and no long-term risk: a rule that trades safety for progress chooses a cell that
    a safer one dominates far more often than the defaults (safety first) do."""
    scoring = {"progress_weight": 0.1, "long_term_risk": 0.0}
    agent = ml.make_agent("best", **scoring)
    x = agent.buffers(36, 8)
    checked, replaced = 0, 0
    for seed in range(1250, 1420):  # 6x6x8 games with dominance swaps
        game = ml.Game("6x6x8", seed=seed)
        while not game.over:
            view = game.view.ravel().astype(np.int8)  # a copy: before the decision
            moves = agent.act(game)
            c = int(x.replaced[0])
            if c < 0:
                continue
            replaced += 1
            b = [m.row * 6 + m.col for m in moves if m.kind == REVEAL][-1]
            said = agent.explain()
            assert f"the secondary rule chose ({c // 6}, {c % 6})" in said and said.endswith("(dominance)"), said
            weights = _mine_weights(view, 6, 6, 8, [b, c])
            if weights is None:
                continue  # too wide a frontier to list
            assert b != c and weights.get((1, 0), 0) == 0, (seed, b, c, weights)  # never b a mine, c safe
            total = sum(weights.values())
            p_b = (weights.get((1, 1), 0) + weights.get((1, 0), 0)) / total
            p_c = (weights.get((1, 1), 0) + weights.get((0, 1), 0)) / total
            assert p_b < p_c, (seed, b, c, p_b, p_c)
            checked += 1
    assert replaced >= 2 and checked >= 2, (replaced, checked)
    off = ml.make_agent("best", dominance=False, **scoring)
    for seed in range(1250, 1420):
        game = ml.Game("6x6x8", seed=seed)
        while not game.over:
            off.act(game)
            assert off.buffers(36, 8).replaced[0] == -1


def _hill_candidates(mines, reveal):
    """best with tie_order "hill" decides in the position of layout `mines` (a bool array)
    with the cells of `reveal` revealed: (the off-frontier cells it may guess, the frontier cells)."""
    from minelab.agents.best import candidate_order

    game = ml.Game.from_mines(mines)
    for r, c in reveal:
        game.reveal(r, c)
    agent = ml.make_agent("best", tie_order="hill")
    lv = game.level
    s = agent.state(lv.cells, lv.mines)
    agent.decision(game)
    x = agent.buffers(lv.cells, lv.mines)
    m = candidate_order(game._gs._replace(deal_work=()), s, x, agent.settings(lv.rows, lv.cols).tie_order)
    cells = {divmod(int(c), lv.cols) for c in x.candidates[:m]}
    near = {divmod(i, lv.cols) for i in range(lv.cells) if s.dist[i] == 1 and s.known[i] == 0}
    assert near <= cells
    return cells - near, near


def test_best_hill_candidates_off_the_frontier_are_the_cells_hill_looks_at():
    """tie_order "hill": off the frontier, only the cells two away from a number in its row
    or column, and those with two or three covered neighbours (here the board's corners);
    the whole ring two away on a dense board; every cell when fewer than 30 are off the
    frontier."""
    mines = np.zeros((16, 30), bool)
    mines[9, 16] = True  # (8, 15) shows 1
    for r, c in [(0, 3), (3, 0), (15, 29), (12, 22), (5, 27)]:
        mines[r, c] = True
    off, near = _hill_candidates(mines, [(8, 15)])
    assert len(near) == 8
    assert off == {(6, 15), (10, 15), (8, 13), (8, 17), (0, 0), (0, 29), (15, 0), (15, 29)}

    dense = np.zeros((8, 8), bool)
    dense.ravel()[[i for i in range(64) if i not in (27, 28, 29, 30, 31) and i % 5 != 1][:30]] = True
    assert dense.sum() == 30 and not dense[3, 3] and dense[2, 2]  # (3, 3) shows a number; 30 * 5 > 63 * 2
    off, near = _hill_candidates(dense, [(3, 3)])
    ring = {(3 + dr, 3 + dc) for dr in range(-2, 3) for dc in range(-2, 3) if max(abs(dr), abs(dc)) == 2}
    assert ring <= off and off - ring <= {(0, 0), (0, 7), (7, 0), (7, 7)}

    small = np.zeros((5, 5), bool)
    small[1, 1] = True
    off, near = _hill_candidates(small, [(2, 2)])
    assert off == {(r, c) for r in range(5) for c in range(5) if max(abs(r - 2), abs(c - 2)) == 2}


def _best_guesses(agent, level, seeds):
    """`agent` plays one game of `level` per seed, decision by decision: yields (game, s,
    cell) at each guess made once a cell is revealed (s: the state its decision filled,
    cell: the guess), then plays the decision on."""
    lv = ml.Level.parse(level)
    s = agent.state(lv.cells, lv.mines)
    for seed in seeds:
        game = ml.Game(lv, seed=seed)
        while not game.over:
            moves = agent.decision(game)
            if s.decision[DC_GUESS] and (game._gs.shown >= 0).any():
                yield game, s, int(moves[0][1])
            agent.play_moves(game, moves)


def test_best_lookahead_pruning_never_drops_a_winner():
    """The secondary rule stops valuing a candidate once its score cannot beat the best so
    far (`lookahead_score` with a bound). For the candidates of real guess positions, each
    valued in full: a bound just under its score never prunes it (a bound that did would
    drop a candidate that could win), while bounds a little above it do prune some
    (the pruning is exercised)."""
    from minelab.agents.best import STAT_LOG_LAYOUTS, lookahead_score, secondary_score

    agent = ml.make_agent("best")
    pruned = checked = 0
    for level, seeds in (("9x9x10", range(20)), ("16x16x40", range(6))):
        lv = ml.Level.parse(level)
        x = agent.buffers(lv.cells, lv.mines)
        cfg = agent.settings(lv.rows, lv.cols, memo=False)
        for game, s, cell in _best_guesses(agent, level, seeds):
            gs, prob = game._gs, s.ws.prob
            if agent.guess_step(s) == "lookahead":
                m = int(np.count_nonzero((gs.shown < 0) & (s.known == 0) & (prob < 1.0)))
                for c in x.candidates[x.ranked[:min(m, 6)]].copy():
                    p, log_z = prob[c], s.ws.stats[STAT_LOG_LAYOUTS]
                    full = lookahead_score(gs, s.known, x, c, p, log_z, prob, cfg, -1.0)
                    score = secondary_score(p, full[4], full[1], cfg.progress_weight)
                    assert lookahead_score(gs, s.known, x, c, p, log_z, prob, cfg, score * (1 - 1e-9))[5] >= 0
                    for bound in (score * 1.02, score * 1.1):
                        pruned += lookahead_score(gs, s.known, x, c, p, log_z, prob, cfg, bound)[5] < 0
                    checked += 1
    assert checked >= 50 and pruned >= 5, (checked, pruned)


def test_best_decision_memo_changes_no_move():
    """The memo serves a recurring position the guess computed the first time, before the
    position is solved: the same games, move for move, with the same record (the solve's
    fallbacks, the endgame's moves and aborts), as with it off, also with the options that
    read what the solve leaves (sure_mines); boards of one size but two shapes share the
    agent's buffers and must not share memoised guesses."""
    options = dict(sure_mines=True, chain_fifty_fifty=True, isolated_edges=True, endgame_layouts=1024)
    few_nodes = dict(max_work=20)  # the solve falls back in early positions too: a hit must count it
    for level, params in (("8x8x10", {}), ("4x16x10", {}), ("16x30x99", {}), ("8x8x10", options),
                          ("16x30x99", options), ("8x8x10", few_nodes)):
        n = 40 if level == "16x30x99" else 400
        on = ml.play(ml.make_agent("best", **params), level, n, seed=6, progress=False)
        off = ml.play(ml.make_agent("best", memo_revealed=0, **params), level, n, seed=6, progress=False)
        cols = [c for c in on.columns if c != "seconds"]
        assert on[cols].equals(off[cols]), (level, params)
    agent = ml.make_agent("best")  # one agent, one set of buffers for 8x8x10 and 4x16x10
    for level in ("8x8x10", "4x16x10", "8x8x10"):
        a = ml.play(agent, level, 200, seed=8, progress=False)
        b = ml.play(ml.make_agent("best", memo_revealed=0), level, 200, seed=8, progress=False)
        assert a["moves"].equals(b["moves"]) and a["won"].equals(b["won"]), level
    agent.margin = 0.0  # a setting changed after play: the memo made under the old one is dropped
    a = ml.play(agent, "8x8x10", 200, seed=8, progress=False)
    b = ml.play(ml.make_agent("best", margin=0.0, memo_revealed=0), "8x8x10", 200, seed=8, progress=False)
    assert a["moves"].equals(b["moves"]) and a["won"].equals(b["won"])


def test_best_decision_memo_sizes_and_a_full_memo_changes_no_move(monkeypatch):
    """The memo's slots grow with smaller boards within MEMO_BYTES (a power of two, never
    below MEMO_SLOTS or above MEMO_MAX_SLOTS); a memo that fills up (it stops taking
    positions at 3/4) still serves only what it holds: the same games as with it off."""
    from minelab.agents import best as B

    sizes = {cells: B.memo_slots(cells) for cells in (16, 64, 81, 256, 480, 10_000)}
    assert all(s & (s - 1) == 0 and B.MEMO_SLOTS <= s <= B.MEMO_MAX_SLOTS for s in sizes.values()), sizes
    assert all(s * 2 * c <= B.MEMO_BYTES or s == B.MEMO_SLOTS for c, s in sizes.items()), sizes
    assert sizes[64] > sizes[480] == B.MEMO_SLOTS and sizes[10_000] == B.MEMO_SLOTS
    monkeypatch.setattr(B, "MEMO_SLOTS", 16)
    monkeypatch.setattr(B, "MEMO_MAX_SLOTS", 16)
    agent = ml.make_agent("best")
    on = ml.play(agent, "8x8x10", 300, seed=9, progress=False)
    assert agent.buffers(64, 10).memo_key.shape == (16,) and agent.buffers(64, 10).memo_meta[0] == 12  # 3/4 full
    off = ml.play(ml.make_agent("best", memo_revealed=0), "8x8x10", 300, seed=9, progress=False)
    assert on["moves"].equals(off["moves"]) and on["won"].equals(off["won"])


# ------------------------------------------------------------------ bad parameters
@pytest.mark.parametrize("name, params, needle", [
    ("csp", {"max_work": 0}, "max_work must be an integer >= 1"),
    ("hcsp", {"max_work": 1.5}, "max_work must be an integer >= 1"),
    ("best", {"endgame_layouts": 5000}, "endgame_layouts must be an integer in [0, 4096]"),
    ("best", {"max_candidates": 0}, "max_candidates must be an integer >= 1"),
    ("best", {"guess_rule": "magic"}, "guess_rule must be one of"),
    ("best", {"margin": 2}, "margin must be a number in [0, 1]"),
    ("best", {"fifty_fifty": "yes"}, "fifty_fifty must be True or False"),
    ("best", {"dominance": 1}, "dominance must be True or False"),
    ("best", {"memo_revealed": -1}, "memo_revealed must be an integer >= 0"),
])
def test_bad_parameters_are_refused(name, params, needle):
    with pytest.raises(ValueError) as exc:
        ml.make_agent(name, **params)
    assert needle in str(exc.value)


def test_decision_on_a_finished_game_is_refused():
    game = ml.Game.from_mines(np.array([[0, 1]]))
    game.reveal(0, 0)
    assert game.won
    with pytest.raises(ValueError, match="in progress"):
        ml.make_agent("csp").decision(game)


@pytest.mark.parametrize("name", AGENTS)
def test_first_click_option(name):
    game = ml.Game("9x9x10", seed=3)
    assert ml.make_agent(name, first_click="centre").choose(game) == ml.Move(REVEAL, 4, 4)
    assert ml.make_agent(name, first_click=(2, 3)).choose(game) == ml.Move(REVEAL, 2, 3)
    with pytest.raises(ValueError, match="off the 9x9 board"):
        ml.make_agent(name, first_click=(9, 0)).choose(game)
    for bad in ("middle", (1,), (-1, 2), (True, 0)):
        with pytest.raises(ValueError, match="first_click must be"):
            ml.make_agent(name, first_click=bad)
    df = ml.play(ml.make_agent(name, first_click="centre"), "9x9x10", 50, seed=1, progress=False)
    assert len(df) == 50


def test_best_guesses_off_the_frontier_only_near_the_best_safety():
    """A cell with no revealed neighbour is guessed by the lookahead only when its safety
    is at least (1 - float_cut) x the best safety of the position (D. Hill's off-edge
    threshold; the solve's own probabilities). Checked at every lookahead guess of real
    games, some of which do guess off the frontier."""
    from minelab.agents.best import FLOAT_CUT

    agent = ml.make_agent("best")
    lv = ml.Level.parse("16x30x99")
    checked = off = 0
    for game, s, c in _best_guesses(agent, lv, np.random.SeedSequence(1234).spawn(40)):
        view = game._gs.shown
        if agent.guess_step(s) == "lookahead":
            open_ = (view < 0) & (s.known == 0) & (s.ws.prob < 1.0)
            p_min = float(s.ws.prob[open_].min())
            r, q = divmod(c, lv.cols)
            near = view.reshape(lv.rows, lv.cols)[max(r - 1, 0):r + 2, max(q - 1, 0):q + 2]
            if (near >= 0).sum() == 0:  # off the frontier
                off += 1
                assert 1 - s.ws.prob[c] >= (1 - FLOAT_CUT) * (1 - p_min) - 1e-9, (c, s.ws.prob[c], p_min)
            checked += 1
    assert checked > 50 and off > 5, (checked, off)
    with pytest.raises(ValueError, match="float_cut must be a number in"):
        ml.make_agent("best", float_cut=1.5)


def _unresolvable_pairs(view, known, nbr_sets):
    """An independent check (plain Python) of the pairs no reveal can tell apart: two
    unknown cells that are the only unknown cells of a number needing one more mine, where
    every other cell but a known mine is next to both or to neither."""
    pairs = []
    for r in np.flatnonzero(view > 0):
        unknown = [u for u in nbr_sets[r] if view[u] < 0 and not known[u]]
        mines = sum(1 for u in nbr_sets[r] if view[u] < 0 and known[u])
        if len(unknown) != 2 or view[r] - mines != 1:
            continue
        a, b = unknown
        watchers = (nbr_sets[a] | nbr_sets[b]) - {a, b}
        if all((x in nbr_sets[a]) == (x in nbr_sets[b]) for x in watchers if not (view[x] < 0 and known[x])):
            pairs.append({a, b})
    return pairs


def test_best_guesses_a_pair_no_reveal_can_tell_apart_first():
    """Two cells with one mine between them that every other cell sees alike (mines on
    both sides known) must be guessed sooner or later; with unknown cells around them
    (their number says something), `best` guesses the pair before a safer cell elsewhere.
    Without the wide rule the pseudo 50/50 step takes it (its walls are known mines);
    without both the lookahead takes it for its long-term risk (a mine of it is half of an
    unresolvable 50/50), and without that too a 1/6 cell instead (the test can fail)."""
    mines = np.zeros((4, 4), np.uint8)
    for r, c in ((0, 0), (1, 0), (2, 0), (0, 3), (1, 3), (2, 3), (1, 1), (3, 3)):
        mines[r, c] = 1
    picks = {}
    for wide, pseudo, ltr in ((True, True, 0.9), (False, True, 0.9), (False, False, 0.9), (False, False, 0.0)):
        game = ml.Game.from_mines(mines)
        game.reveal(0, 1)
        game.reveal(0, 2)
        for r in range(3):
            game.flag(r, 0)
            game.flag(r, 3)
        agent = ml.make_agent("best", endgame_layouts=0, wide_fifty_fifty=wide, pseudo_fifty_fifty=pseudo,
                              long_term_risk=ltr)
        s = agent.state(16, 8)
        kind, cell = agent.decision(game)[0]
        assert s.decision[DC_GUESS] and s.ws.prob[5] == pytest.approx(0.5) and s.ws.prob[9] == pytest.approx(1 / 6)
        picks[wide, pseudo, ltr] = (cell, agent.guess_step(s))
    assert picks[True, True, 0.9][0] in (5, 6) and picks[True, True, 0.9][1] == "fifty-fifty", picks
    # the pair walled in by the flagged mines is a pseudo 50/50 as well (its enablers all known mines)
    assert picks[False, True, 0.9][0] in (5, 6) and picks[False, True, 0.9][1] == "pseudo", picks
    assert picks[False, False, 0.9][0] in (5, 6) and picks[False, False, 0.9][1] == "lookahead", picks
    assert picks[False, False, 0.0][0] not in (5, 6) and picks[False, False, 0.0][1] == "lookahead", picks
    with pytest.raises(ValueError, match="wide_fifty_fifty must be True or False"):
        ml.make_agent("best", wide_fifty_fifty="yes")


@functools.lru_cache(maxsize=None)
def _expert_guesses():
    """The default `best`'s guesses in 300 expert games (made once, for the tests below):
    (view, certain mines, guess, which step made it)."""
    agent = ml.make_agent("best")
    lv = ml.Level.parse("16x30x99")
    return [(game._gs.shown.copy(), s.known.copy(), cell, agent.guess_step(s))
            for game, s, cell in _best_guesses(agent, lv, np.random.SeedSequence(4321).spawn(300))]


def test_best_never_guesses_elsewhere_while_a_living_unresolvable_pair_waits():
    """At every guess of real expert games, when unresolvable pairs exist (checked
    independently, `_unresolvable_pairs`) `best` guesses in one, unless its exact endgame
    search decided (its choice is optimal); such positions do occur, some with unknown
    cells beside the pair."""
    from minelab.engine import neighbour_table

    lv = ml.Level.parse("16x30x99")
    table, count = neighbour_table(lv.rows, lv.cols)
    nbr_sets = [set(table[i, :count[i]].tolist()) for i in range(lv.cells)]
    seen = living = 0
    for view, known, cell, step in _expert_guesses():
        pairs = [] if step == "endgame" else _unresolvable_pairs(view, known, nbr_sets)
        if pairs:
            seen += 1
            living += any(view[u] < 0 and not known[u]
                          for pair in pairs for u in set().union(*(nbr_sets[q] for q in pair)) - pair)
            assert any(cell in pair for pair in pairs), (pairs, cell)
    assert seen >= 10 and living >= 3, (seen, living)


@pytest.mark.slow  # about 30 s of brute force
def test_best_fifty_fifty_pattern_weights_match_brute_force():
    """The long-term risk's pattern weights (`pattern_weight`: the probability that a row
    pair, column pair or 2x2 box holds its mines in one arrangement with every enabler
    around it a mine) equal a brute-force count of layouts, at every guess of real 8x8x10
    games: both ways of computing them are checked, recounts of the layouts with cells added
    as mines (`recount_with_mines`) and the closed form for cells that touch no number
    (`untouched_joint`)."""
    from minelab.agents.best import PAT_BOX, STAT_LOG_LAYOUTS, pattern_cells, pattern_weight, scan_fifty_fifties

    agent = ml.make_agent("best", long_term_risk=0.9)
    lv = ml.Level.parse("8x8x10")
    x = agent.buffers(lv.cells, lv.mines)
    cells, enablers = np.zeros(4, np.int64), np.zeros(6, np.int64)
    checked = {"untouched": 0, "solved": 0, "nonzero": 0}
    for game, s, _ in _best_guesses(agent, lv, range(60)):
        gs = game._gs
        view = gs.shown.copy()
        scan_fifty_fifties(gs, s, x, False)
        for kind in range(3):
            for r in range(lv.rows):
                for c in range(lv.cols):
                    w, missing, _ = pattern_weight(gs, s, x, kind, r, c, 3, s.ws.stats[STAT_LOG_LAYOUTS])
                    if w < 0:
                        continue
                    k, n_e = pattern_cells(lv.rows, lv.cols, kind, r, c, cells, enablers)
                    group = [int(q) for q in cells[:k]] + [int(q) for q in enablers[:n_e]]
                    counts = _mine_weights(view, lv.rows, lv.cols, lv.mines, group, max_frontier=16)
                    if counts is None:
                        continue
                    n_mines = 2 if kind == PAT_BOX else 1
                    key = tuple([1] * n_mines + [0] * (k - n_mines) + [1] * n_e)
                    assert w == pytest.approx(counts.get(key, 0) / sum(counts.values()), rel=1e-9, abs=1e-15)
                    off = all(s.ws.cell_box[q] < 0 for q in group if not s.known[q])
                    checked["untouched" if off else "solved"] += 1
                    checked["nonzero"] += w > 0
    assert checked["untouched"] >= 100 and checked["solved"] >= 50 and checked["nonzero"] >= 50, checked


def _walled_in(layout, view, cell):
    """Written apart from `best`: is `cell`, a mine of `layout` (bool rows x cols), a mine
    of a row pair, column pair or 2x2 box of covered cells (the other mine of a box on
    its diagonal, the other cells safe) whose enablers (the cells beyond the pair's ends,
    the box's diagonal corners) are all covered mines, with the layout that swaps the
    pattern's mines and safe cells showing the same numbers as `layout`?"""
    rows, cols = layout.shape
    r, c = divmod(cell, cols)

    def covered_mines(pts):
        return all(view[i, j] < 0 and layout[i, j] for i, j in pts if 0 <= i < rows and 0 <= j < cols)

    def same_numbers(swapped):
        for i, j in zip(*np.nonzero(view >= 0)):
            box = (slice(max(i - 1, 0), i + 2), slice(max(j - 1, 0), j + 2))
            if layout[box].sum() != swapped[box].sum():
                return False
        return True

    patterns = []  # (mine cells, safe cells, enablers)
    for dr, dc in ((0, 1), (1, 0)):
        for back in (0, 1):
            a = (r - back * dr, c - back * dc)
            b = (a[0] + dr, a[1] + dc)
            ends = [(a[0] - dr + t * dc, a[1] - dc + t * dr) for t in (-1, 0, 1)] + \
                   [(b[0] + dr + t * dc, b[1] + dc + t * dr) for t in (-1, 0, 1)]
            other = b if back == 0 else a
            patterns.append(([(r, c)], [other], ends))
    for r0 in (r - 1, r):
        for c0 in (c - 1, c):
            quad = [(r0, c0), (r0, c0 + 1), (r0 + 1, c0), (r0 + 1, c0 + 1)]
            k = quad.index((r, c))
            diag = [quad[k], quad[3 - k]]
            corners = [(r0 - 1, c0 - 1), (r0 - 1, c0 + 2), (r0 + 2, c0 - 1), (r0 + 2, c0 + 2)]
            patterns.append((diag, [q for q in quad if q not in diag], corners))
    for mines_, safes, ends in patterns:
        pts = mines_ + safes
        if not all(0 <= i < rows and 0 <= j < cols and view[i, j] < 0 for i, j in pts):
            continue
        if not all(layout[p] for p in mines_) or any(layout[p] for p in safes) or not covered_mines(ends):
            continue
        swapped = layout.copy()
        for p in mines_:
            swapped[p] = False
        for p in safes:
            swapped[p] = True
        if same_numbers(swapped):
            return True
    return False


def test_best_pseudo_fifty_fifty_is_a_mine_only_where_it_is_walled_in():
    """A pseudo 50/50 guess (`scan_fifty_fifties`): at every one in real expert games,
    in every layout drawn exactly at random from its position (`sample_layouts`) where
    the guessed cell is a mine, it is a mine of a pair or box walled in by mines that no
    reveal elsewhere can tell apart (checked apart from `best`, `_walled_in`), so its mine
    would have to be guessed at 1/2 sooner or later; and it is a mine in some of them."""
    from minelab.probability import sample_layouts

    lv = ml.Level.parse("16x30x99")
    seen = 0
    for view, _, cell, step in _expert_guesses():
        if step != "pseudo":
            continue
        seen += 1
        view = view.reshape(lv.rows, lv.cols).copy()
        view[view < 0] = -1
        layouts = sample_layouts(view, lv.mines, 400, seed=seen)
        on = layouts.reshape(len(layouts), -1)[:, cell]
        assert on.any() and not on.all()
        for layout in layouts[on]:
            assert _walled_in(layout, view, cell), (cell, view)
    assert seen >= 5, seen


def _set_value(outcome, S, cells, memo):
    """The endgame recurrence by plain recursion: the win probability of the layouts S
    (indices into outcome's rows) when every layout is as likely and play is optimal;
    value 1 for one layout, else the best cell's sum over what it shows of |S_o| / |S|
    times the part's value (a mine ends the game). A cell safe in every layout of S and
    showing one number splits nothing and is skipped (revealing it changes nothing)."""
    if len(S) == 1:
        return 1.0
    if S in memo:
        return memo[S]
    best = 0.0
    for q in range(cells):
        parts = {}
        for lay in S:
            if outcome[lay, q] != 9:
                parts.setdefault(int(outcome[lay, q]), []).append(lay)
        if not parts or (len(parts) == 1 and len(next(iter(parts.values()))) == len(S)):
            continue
        best = max(best, sum(len(p) * _set_value(outcome, frozenset(p), cells, memo) for p in parts.values()) / len(S))
    memo[S] = best
    return best


def _random_endgame_table(rng, max_cells: int, draws: int):
    """(cells, outcome, layouts): distinct random layouts of a random mine count over
    `cells` cells, and random numbers (0-2) on their safe cells."""
    from minelab.agents.best import ENDGAME_CELLS, MAX_ENDGAME_LAYOUTS

    cells = int(rng.integers(3, max_cells))
    mines = int(rng.integers(1, cells))
    layouts = sorted({tuple(sorted(rng.choice(cells, mines, replace=False).tolist())) for _ in range(draws)})
    outcome = np.zeros((MAX_ENDGAME_LAYOUTS, ENDGAME_CELLS), np.int8)
    for lay, mine_cells in enumerate(layouts):
        outcome[lay, :cells] = rng.integers(0, 3, cells)
        outcome[lay, list(mine_cells)] = 9
    return cells, outcome, len(layouts)


@pytest.mark.parametrize("prune", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_endgame_search_values_match_plain_recursion(seed, prune):
    """`endgame_move` (its cuts: a frame stops once no cell's safety can beat its best, or
    once a cell safe in every layout is valued; twins and cells that split nothing are
    skipped; with `prune`, a cell is dropped part-way once it cannot beat the best)
    returns the value of the plain recurrence and a cell that reaches it, on random
    tables of distinct layouts and the numbers their safe cells show."""
    from minelab.agents.best import ENDGAME_CELLS, endgame_move, new_set_memo

    rng = np.random.default_rng(seed)
    sets = new_set_memo()
    for _ in range(12):
        cells, outcome, n = _random_endgame_table(rng, 9, 40)
        if n < 2:
            continue
        ucells = np.arange(ENDGAME_CELLS, dtype=np.int64)
        cell, value = endgame_move(cells, outcome, n, ucells, 10**9, sets, prune)
        memo = {}
        want = _set_value(outcome, frozenset(range(n)), cells, memo)
        assert value == pytest.approx(want, abs=1e-12)
        parts = {}
        for lay in range(n):
            if outcome[lay, cell] != 9:
                parts.setdefault(int(outcome[lay, cell]), []).append(lay)
        got = sum(len(p) * _set_value(outcome, frozenset(p), cells, memo) for p in parts.values()) / n
        assert got == pytest.approx(want, abs=1e-12), (cell, got, want)


def test_endgame_prune_keeps_the_move_and_runs_out_of_budget_less():
    """With `prune`, `endgame_move` returns the very cell and value it returns without,
    and the least budget it finishes within is never larger, on some tables smaller, and
    in all less by more than the part-way drop alone gives: the cuts from the sets below
    a cell (`_cut_level`) are needed for the last bound."""
    from minelab.agents.best import ENDGAME_CELLS, endgame_move, new_set_memo

    rng = np.random.default_rng(11)
    sets = new_set_memo()
    ucells = np.arange(ENDGAME_CELLS, dtype=np.int64)

    def least_budget(cells, outcome, n, prune):
        """The least budget, in steps of n x cells, the search finishes within; its move."""
        for k in range(1, 400):
            move = endgame_move(cells, outcome, n, ucells, k * n * cells, sets, prune)
            if move[0] >= 0:
                return k, move
        raise AssertionError("no finish within 400 frames of the whole set")

    tables = smaller = plain_sum = pruned_sum = 0
    for _ in range(60):
        cells, outcome, n = _random_endgame_table(rng, 13, 120)
        if n < 2:
            continue
        k_plain, plain = least_budget(cells, outcome, n, False)
        k_pruned, pruned = least_budget(cells, outcome, n, True)
        assert pruned == plain, (cells, n, plain, pruned)
        assert k_pruned <= k_plain, (cells, n, k_plain, k_pruned)
        tables += 1
        smaller += k_pruned < k_plain
        plain_sum, pruned_sum = plain_sum + k_plain, pruned_sum + k_pruned
    assert tables >= 40 and smaller >= 5, (tables, smaller)
    assert pruned_sum <= 0.86 * plain_sum, (pruned_sum, plain_sum)  # the part-way drop alone: 0.90


def _component_of(view, known, cell, nbr_sets):
    """The frontier component holding `cell` (covered cells, not known mines, linked through
    the revealed numbers they share), its numbers, and whether it is isolated (no covered
    cell outside it but known mines next to its cells): plain Python, independent of the
    solver's own components."""
    def frontier(q):
        return view[q] < 0 and not known[q] and any(view[w] >= 0 for w in nbr_sets[q])
    comp, todo = {cell}, [cell]
    while todo:
        q = todo.pop()
        for w in nbr_sets[q]:
            if view[w] >= 0:
                for u in nbr_sets[w]:
                    if u not in comp and frontier(u):
                        comp.add(u)
                        todo.append(u)
    witnesses = {w for q in comp for w in nbr_sets[q] if view[w] >= 0}
    isolated = all(u in comp or view[u] >= 0 or known[u] for q in comp for u in nbr_sets[q])
    return sorted(comp), sorted(witnesses), isolated


def _component_layouts(view, known, comp, witnesses, nbr_sets):
    """Every assignment of mines to the component's cells that its numbers allow."""
    out = []
    where = {q: i for i, q in enumerate(comp)}

    def fits(assign, final):
        for w in witnesses:
            need = view[w] - sum(1 for u in nbr_sets[w] if view[u] < 0 and known[u])
            cells = [where[u] for u in nbr_sets[w] if u in where]
            got = sum(assign[i] for i in cells if i < len(assign))
            left = sum(1 for i in cells if i >= len(assign))
            if got > need or (final and got != need) or got + left < need:
                return False
        return True

    def walk(assign):
        if not fits(assign, len(assign) == len(comp)):
            return
        if len(assign) == len(comp):
            out.append(tuple(assign))
            return
        for v in (0, 1):
            walk(assign + [v])
    walk([])
    return out


def test_best_plays_an_isolated_component_by_its_exact_search():
    """In real expert games, every guess `best` makes by its isolated step lies in a
    component that is isolated and of one mine count (checked here in plain Python), and
    is a cell of that component's greatest exact win probability (plain recursion over its
    layouts); such guesses do occur. The step is off by default."""
    from minelab.engine import neighbour_table

    lv = ml.Level.parse("16x30x99")
    table, count = neighbour_table(lv.rows, lv.cols)
    nbr_sets = [set(table[i, :count[i]].tolist()) for i in range(lv.cells)]
    agent = ml.make_agent("best", isolated_edges=True)
    assert not ml.make_agent("best").isolated_edges
    found = 0
    for game, s, cell in _best_guesses(agent, lv, np.random.SeedSequence(4321).spawn(150)):
        if agent.guess_step(s) != "isolated":
            continue
        view, known = game._gs.shown, s.known
        comp, witnesses, isolated = _component_of(view, known, cell, nbr_sets)
        layouts = _component_layouts(view, known, comp, witnesses, nbr_sets)
        assert isolated and len({sum(lay) for lay in layouts}) == 1 and len(layouts) >= 2, (comp, layouts)
        outcome = np.zeros((len(layouts), len(comp)), np.int8)
        for lay, assign in enumerate(layouts):
            mine = {q for q, v in zip(comp, assign) if v}
            for i, q in enumerate(comp):
                outcome[lay, i] = 9 if q in mine else sum(1 for u in nbr_sets[q] if u in mine or
                                                          (view[u] < 0 and known[u]))
        memo = {}
        values = []
        for i in range(len(comp)):
            parts = {}
            for lay in range(len(layouts)):
                if outcome[lay, i] != 9:
                    parts.setdefault(int(outcome[lay, i]), []).append(lay)
            values.append(sum(len(p) * _set_value(outcome, frozenset(p), len(comp), memo)
                              for p in parts.values()) / len(layouts))
        assert values[comp.index(cell)] == pytest.approx(max(values), abs=1e-12), (comp, cell, values)
        found += 1
    assert found >= 2, found  # 150 games hold several (most of them isolated 50/50s)




@pytest.mark.parametrize("params", [{}, {"chain_join_cells": 8, "chain_shared_cell": True}],
                         ids=["chains", "wider-join-and-shared-cell"])
def test_best_chain_fifty_fifty_is_a_mine_only_in_one_half_of_a_twin(params):
    """Each guess `best` makes by its chain step (3c), in real games: the structure it
    found (sides A and B, x.chain_mark) has |A| = |B| and holds the guessed cell c; in
    layouts drawn exactly from the position's posterior, wherever c is a mine its side
    holds all the mines of the structure and the other side none, and moving them onto
    the other side gives a layout that agrees with every revealed number and shows the
    same number on every other cell (nothing but a reveal inside A or B tells the two
    apart). Such guesses do occur. The step is off by default; so are its wider join and
    its conditional links (`params`), checked the same way."""
    from minelab.engine import neighbour_table

    assert not ml.make_agent("best").chain_fifty_fifty
    agent = ml.make_agent("best", chain_fifty_fifty=True, **params)
    found = 0
    for level, n_games in (("16x30x99", 400),):  # about one game in 80 meets one
        lv = ml.Level.parse(level)
        table, count = neighbour_table(lv.rows, lv.cols)
        nbr = [table[i, :count[i]] for i in range(lv.cells)]
        x = agent.buffers(lv.cells, lv.mines)
        for game, s, cell in _best_guesses(agent, lv, np.random.SeedSequence(77).spawn(n_games)):
            if agent.guess_step(s) != "chain":
                continue
            mark = x.chain_mark.copy()
            A, B = np.flatnonzero(mark == 1), np.flatnonzero(mark == 2)
            assert len(A) == len(B) and mark[cell] in (1, 2)
            mine_side, safe_side = (A, B) if mark[cell] == 1 else (B, A)
            view = game._gs.shown
            layouts = ml.probability.sample_layouts(view.reshape(lv.rows, lv.cols), lv.mines, 300,
                                                    seed=found).reshape(300, -1).astype(int)
            counts = lambda lay: np.array([lay[nbr[i]].sum() for i in range(lv.cells)])  # noqa: E731
            others = np.flatnonzero(mark == 0)
            for lay in layouts[layouts[:, cell] == 1][:20]:
                assert lay[mine_side].all() and not lay[safe_side].any()
                twin = lay.copy()
                twin[mine_side], twin[safe_side] = 0, 1
                a, b = counts(lay), counts(twin)
                revealed = view >= 0
                assert (b[revealed] == view[revealed]).all()
                safe_others = others[lay[others] == 0]
                assert (a[safe_others] == b[safe_others]).all()
            found += 1
    assert found >= 3, found


def test_best_chain_join_cells_joins_two_chains_through_a_wider_number():
    """tests/data/best_chain_join.mine (see its README): the chains (0,22)-(1,22) and
    (3,22)-(4,22) meet at a number needing one mine among five cells. With the default
    join (three cells) step 3c finds no structure there; with chain_join_cells=8 it joins
    the two chains into sides of two cells each and guesses one of the two joined cells,
    each a mine in a third of the layouts. A bound outside 3-8 is an error naming it."""
    from pathlib import Path

    pos = ml.Position.read(Path(__file__).parent / "data" / "best_chain_join.mine")
    lv = pos.level
    joined = {(0, 22), (1, 22), (3, 22), (4, 22)}
    steps = {}
    for join in (3, 8):
        agent = ml.make_agent("best", chain_fifty_fifty=True, chain_join_cells=join)
        s = agent.state(lv.cells, lv.mines)
        cell = next(q for kind, q in agent.decision(pos.game(seed=0)) if kind == REVEAL)
        steps[join] = agent.guess_step(s), divmod(int(cell), lv.cols)
        if join == 8:
            mark = agent.buffers(lv.cells, lv.mines).chain_mark
            sides = [{divmod(int(q), lv.cols) for q in np.flatnonzero(mark == m)} for m in (1, 2)]
            assert sides[0] | sides[1] == joined and len(sides[0]) == len(sides[1]) == 2
    assert steps[3][0] != "chain", steps
    assert steps[8][0] == "chain" and steps[8][1] in {(1, 22), (3, 22)}, steps
    p = pos.solve().probabilities
    assert p[1, 22] == pytest.approx(p[3, 22]) and 0.3 < p[1, 22] < 0.35
    for bad in (2, 9):
        with pytest.raises(ValueError, match="chain_join_cells"):
            ml.make_agent("best", chain_join_cells=bad)

def test_best_chain_shared_cell_links_numbers_through_the_cell_they_share():
    """tests/data/best_chain_shared.mine (see its README): three numbers each needing one
    mine among three cells, all sharing (2,6). Without chain_shared_cell step 3c finds no
    chain there (no number has two cells); with it, the links that hold where (2,6) is safe
    make the chain (0,6)-(1,6)-(3,6)-(4,6), and best guesses one of its cells, each a mine
    only where its side holds both mines."""
    from pathlib import Path

    pos = ml.Position.read(Path(__file__).parent / "data" / "best_chain_shared.mine")
    lv = pos.level
    steps = {}
    for shared in (False, True):
        agent = ml.make_agent("best", chain_fifty_fifty=True, chain_shared_cell=shared)
        s = agent.state(lv.cells, lv.mines)
        cell = next(q for kind, q in agent.decision(pos.game(seed=0)) if kind == REVEAL)
        steps[shared] = agent.guess_step(s), divmod(int(cell), lv.cols)
        if shared:
            mark = agent.buffers(lv.cells, lv.mines).chain_mark
            sides = sorted(sorted(divmod(int(q), lv.cols) for q in np.flatnonzero(mark == m)) for m in (1, 2))
            assert sides == [[(0, 6), (3, 6)], [(1, 6), (4, 6)]], sides
    assert steps[False][0] != "chain", steps
    assert steps[True][0] == "chain" and steps[True][1] in {(0, 6), (1, 6), (3, 6), (4, 6)}, steps

def test_best_dead_by_numbers_calls_dead_only_cells_whose_number_is_fixed():
    """`dead_by_numbers`'s test (`_dead_by_a_number`): a cell is dead when its uncertain
    neighbours are exactly a revealed number's uncertain cells other than itself. In the
    positions of real expert games (solved by the public `minelab.probability.solve`),
    every cell it calls dead shows one number only, in every layout drawn exactly from the
    position's posterior where it is safe; and it does call some dead."""
    from minelab.agents.best import CERTAIN_MINE, CERTAIN_SAFE, UNCERTAIN, _dead_by_a_number

    agent = ml.make_agent("best")
    lv = ml.Level.parse("16x30x99")
    known = np.zeros(lv.cells, np.uint8)
    dead = positions = 0
    for seed in range(3):
        game = ml.Game(lv, seed=seed)
        agent.play_moves(game, agent.decision(game))
        while not game.over:
            gs = game._gs
            view = gs.shown.copy()
            sol = ml.probability.solve(view.reshape(lv.rows, lv.cols), lv.mines)
            certain = np.where(sol.safe.ravel(), CERTAIN_SAFE, np.where(sol.mine.ravel(), CERTAIN_MINE, UNCERTAIN))
            certain = certain.astype(np.int8)
            found = [i for i in np.flatnonzero((view < 0) & (certain != CERTAIN_MINE))
                     if _dead_by_a_number(view, known, certain, gs.nbr, gs.nbr_count, i)]
            if found:
                layouts = ml.probability.sample_layouts(view.reshape(lv.rows, lv.cols), lv.mines, 200,
                                                        seed=positions).reshape(200, -1)
                for i in found:
                    nb = gs.nbr[i, :gs.nbr_count[i]]
                    assert ((view[nb] < 0) & (certain[nb] == UNCERTAIN)).any(), i
                    shown = set(layouts[~layouts[:, i]][:, nb].sum(axis=1).tolist())
                    assert len(shown) == 1, (seed, i, shown)
                    dead += 1
                positions += 1
            agent.play_moves(game, agent.decision(game))
    assert dead >= 20 and positions >= 10, (dead, positions)


def _single_safest_next(gs, view, mines, c):
    """The cell that is the single safest living one whatever c shows in the 2-d `view`
    (one step ahead, solved by the public `minelab.probability.solve`), else -1."""
    tops = set()
    for v in range(9):
        after = view.copy()
        after.flat[c] = v
        try:
            sol = ml.probability.solve(after, mines)
        except ValueError:
            continue  # c cannot show v
        q, covered, mine = sol.probabilities.ravel(), after.ravel() < 0, sol.mine.ravel()
        open_ = covered & ~sol.safe.ravel() & ~mine
        living = [i for i in np.flatnonzero(covered & ~mine) if open_[gs.nbr[i, :gs.nbr_count[i]]].any()]
        safest = [i for i in living if q[i] <= min(q[j] for j in living) + 1e-12]
        tops.add(safest[0] if len(safest) == 1 else -1)
    return tops.pop() if len(tops) == 1 else -1


def test_best_safest_next_finds_the_single_safest_cell_after_a_guess():
    """`safest_next` takes the cell that `lookahead_score` leaves in the buffers'
    `safest_next`: for every number the candidate c can show, the single safest living
    cell of the position then (-1 when there is none, or not the same one). Checked at the
    guesses of real games against the public solver (`_single_safest_next`), apart from
    the kernels: every cell it finds (rare: a few in a thousand candidates), and the first
    candidates where it finds none. Off (the default), best never swaps its guess for it."""
    from minelab.agents.best import STAT_LOG_LAYOUTS, lookahead_score

    lv = ml.Level.parse("16x16x40")
    agent = ml.make_agent("best", safest_next=True)
    x, cfg = agent.buffers(lv.cells, lv.mines), agent.settings(lv.rows, lv.cols, memo=False)
    found = none = 0
    for game, s, _ in _best_guesses(agent, "16x16x40", range(500)):
        gs, prob = game._gs, s.ws.prob
        m = int(np.count_nonzero((gs.shown < 0) & (s.known == 0) & (prob < 1.0)))
        for c in x.candidates[x.ranked[:min(m, 8)]].copy():
            if not 0.0 < prob[c] < 1.0:
                continue  # beyond this decision's candidates
            lookahead_score(gs, s.known, x, c, prob[c], s.ws.stats[STAT_LOG_LAYOUTS], prob, cfg, -1.0)
            got = int(x.safest_next[0])
            if got < 0 and none >= 60:
                continue
            assert got == _single_safest_next(gs, gs.shown.reshape(lv.rows, lv.cols), lv.mines, c), (c, got)
            found += got >= 0
            none += got < 0
    assert found >= 3 and none >= 60, (found, none)
    off = ml.make_agent("best")
    for game, s, _ in _best_guesses(off, "16x16x40", range(10)):
        assert off.buffers(lv.cells, lv.mines).replaced[0] == -1
