"""Buffet et al. Fig 1 drawn from oh's search (minelab.papers.buffet2012.fig01_mcts_overview):
the tree it records is the one the kernels built (visits add up along edges, the root
holds every simulation, at most one new node a simulation, the marked path is a path of
the tree), and the search reads only the view (two games with the same view and other
mines give the same tree from the same seed)."""
import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from minelab.engine import Game  # noqa: E402
from minelab.levels import Level  # noqa: E402
from minelab.papers import buffet2012 as paper  # noqa: E402
from minelab.probability import sample_layouts  # noqa: E402


@pytest.fixture(scope="module")
def fig1():
    result = paper.fig01_mcts_overview()
    yield result
    plt.close(result.figure)


def _parts(table):
    return (table[table["kind"] == "node"].set_index("row"), table[table["kind"] == "edge"],
            table[table["kind"] == "playout"])


def test_tree_visits_add_up(fig1):
    nodes, edges, _ = _parts(fig1.table)
    total = paper.FIG1_SIMULATIONS + 1
    roots = nodes[nodes["parent"].isna()]
    assert len(roots) == 1 and roots["visits"].iloc[0] == total  # every simulation starts at the root
    for e in edges.itertuples():
        assert 1 <= e.visits <= nodes.loc[e.row, "visits"]
        assert e.visits <= e.decision_visits  # one (position, decision) can lead to several children
    incoming = edges.groupby("child")["visits"].sum()
    for row, n in nodes.drop(index=roots.index)["visits"].items():
        assert n == incoming[row]  # a simulation reaches a stored position by one of its edges
        parents = set(edges.loc[edges["child"] == row, "row"])
        assert n <= sum(nodes.loc[p, "visits"] for p in parents)
        if len(parents) == 1:
            assert n <= nodes.loc[parents.pop(), "visits"]
    sims = fig1.simulations
    for row, r in nodes.iterrows():  # n and Q are the simulations through the position and their mean reward
        through = sims[sims["path_rows"].map(lambda path, row=row: row in path)]
        assert r["visits"] == len(through)
        assert r["q"] == pytest.approx(through["reward"].mean(), abs=1e-6)


def test_one_new_node_a_simulation(fig1):
    nodes, _, _ = _parts(fig1.table)
    sims = fig1.simulations
    assert len(sims) == paper.FIG1_SIMULATIONS + 1
    assert sims["new_row"].iloc[0] == 0 and sims["path_rows"].iloc[0] == [0]  # the first stores the root
    stored = 0
    for s in sims.itertuples():
        if s.new_row >= 0:  # the one new position is the last of the path, the next row of the table
            assert s.new_row == stored and s.path_rows[-1] == s.new_row
            assert all(row < stored for row in s.path_rows[:-1])
            assert nodes.loc[s.new_row, "created_by"] == s.simulation
            stored += 1
        else:  # its game ended inside the stored tree: every position on its path was there before
            assert all(row < stored for row in s.path_rows)
    assert stored == len(nodes) == sims["new_row"].ge(0).sum()


def test_the_marked_simulation_is_a_path_of_the_tree(fig1):
    nodes, edges, playout = _parts(fig1.table)
    marked = fig1.simulations.iloc[-1]
    rows, cells = marked["path_rows"], marked["path_cells"]
    cols = Level.parse(paper.FIG1_LEVEL).cols
    cell = ["{},{}".format(*divmod(c, cols)) for c in cells]
    for t in range(len(rows) - 1):
        hit = edges[(edges["row"] == rows[t]) & (edges["cell"] == cell[t]) & (edges["child"] == rows[t + 1])]
        assert len(hit) == 1 and hit["phase"].iloc[0] in ("selection", "expansion")
    assert (edges["phase"] != "").sum() == len(rows) - 1
    phased = nodes[nodes["phase"] != ""]
    assert set(phased.index) == set(rows)
    expanded = phased[phased["phase"] == "expansion"]
    if marked["new_row"] >= 0:
        assert list(expanded.index) == [rows[-1]] == [marked["new_row"]]
    else:
        assert expanded.empty
    assert (phased["visits"] == phased["visits_before"] + 1).all()  # back-propagation: one more simulation each
    assert len(playout) == 1
    p = playout.iloc[0]
    assert p["row"] == rows[-1] and p["cell"] == cell[-1] and p["phase"] == "simulation"
    assert p["outcome"] == ("win" if marked["reward"] == 1.0 else "loss")
    # the drawn example shows all four phases: a path through stored positions, then a new one
    assert marked["new_row"] >= 0 and len(rows) >= 3


def test_the_search_reads_only_the_view():
    """Two games with the same view and other mines get the same tree from the same seed."""
    game = paper.fig1_position()
    lv = game.level
    layouts = sample_layouts(game.view, lv.mines, 40, seed=1)
    distinct = list({m.tobytes(): m for m in layouts}.values())
    assert len(distinct) >= 2
    trees = [paper.search_tree(game, 12, seed=5)["table"]]
    for layout in distinct[:2]:
        twin = Game.from_mines(layout)
        for move in game.moves:
            twin.apply(move)
        assert (twin.view == game.view).all()
        trees.append(paper.search_tree(twin, 12, seed=5)["table"])
    for other in trees[1:]:
        pd.testing.assert_frame_equal(trees[0], other)
    assert not np.array_equal(distinct[0], distinct[1])


def test_bad_input_is_a_clear_error():
    game = paper.fig1_position()
    with pytest.raises(ValueError, match="simulations must be a positive integer"):
        paper.search_tree(game, 0)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        paper.search_tree(game, 5, seed=-1)
    with pytest.raises(ValueError, match="where oh guesses"):
        paper.search_tree(Game("5x5x5", seed=0), 5)
