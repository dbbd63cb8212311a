"""buffet2012: hcsp's named readings of §2.2 (default play unchanged), hcsp_variants,
minelab csp labelled as itself (CSP-PGMS has no twin), and Table 1's dagger."""
import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import minelab as ml  # noqa: E402
from minelab.agents import csp as C  # noqa: E402
from minelab.engine import neighbour_table  # noqa: E402
from minelab.papers import buffet2012 as buffet  # noqa: E402


@pytest.fixture(autouse=True)
def results_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("MINELAB_FIGURES_DIR", str(tmp_path / "figures"))


# --------------------------------------------------------------------------- hcsp's options
def test_hcsp_defaults_run_the_default_kernel():
    for agent in (ml.make_agent("hcsp"), ml.make_agent("hcsp", frontier="revealed", metric="chebyshev",
                                                       ties="random", first_click="corner")):
        assert agent.tie_rule == C.TIE_FRONTIER and agent.params() == {}
    variant = ml.make_agent("hcsp", metric="manhattan", ties="scan")
    assert variant.tie_rule >= C.TIE_VARIANT and variant.params() == {"metric": "manhattan", "ties": "scan"}
    assert ml.make_agent("hcsp", first_click="random").params() == {"first_click": "random"}


@pytest.mark.parametrize("params, match", [({"frontier": "mines"}, "frontier must be one of"),
                                           ({"metric": "taxicab"}, "metric must be one of"),
                                           ({"ties": "first"}, "ties must be one of"),
                                           ({"first_click": "edge"}, "first_click must be")])
def test_hcsp_options_are_checked(params, match):
    with pytest.raises(ValueError, match=match):
        ml.make_agent("hcsp", **params)
    with pytest.raises(ValueError, match="first_click must be"):
        ml.make_agent("csp", first_click="random")  # csp keeps its fixed openings


def test_covered_side_frontier_plays_exactly_the_default_games():
    """With the Chebyshev metric the distance to the covered side is the default's minus
    one: the same choices, the same random draws, the same games."""
    a = ml.play("hcsp", "9x9x10", 150, seed=3, progress=False)
    b = ml.play(ml.make_agent("hcsp", frontier="constrained"), "9x9x10", 150, seed=3, progress=False)
    assert (a["won"] == b["won"]).all() and (a["moves"] == b["moves"]).all()


def _variant_choice(view_rows, tie_rule, known=()):
    """least_probable_variant on a hand-made view (every covered cell equally likely)."""
    rows, cols = len(view_rows), len(view_rows[0])
    view = np.array([v for row in view_rows for v in row], np.int8)
    nbr, nbr_count = neighbour_table(rows, cols)
    s = C.new_solver_state(rows * cols, 1)
    for k in known:
        s.known[k] = 1
    prob = np.where(view < 0, 0.2, 0.0)
    return int(C.least_probable_variant(view, nbr, nbr_count, cols, s, prob, tie_rule, np.random.default_rng(0)))


def test_variant_metrics_and_frontiers_on_a_hand_made_view():
    x = -1  # covered
    view = [[x, x, x, x, x], [x, x, x, x, x], [x, x, 1, x, x], [x, x, x, x, x], [x, x, x, x, x]]

    def rule(frontier=0, metric=0, ties=C.TIES_SCAN):
        return C.TIE_VARIANT | frontier << 2 | metric << 4 | ties << 6

    assert _variant_choice(view, rule()) == 6  # Chebyshev: the 8 neighbours of (2,2); scan: (1,1)
    assert _variant_choice(view, rule(metric=C.METRIC_MANHATTAN)) == 7  # rook steps: (1,2) first
    assert _variant_choice(view, rule(metric=C.METRIC_EUCLIDEAN)) == 7
    assert _variant_choice(view, rule(frontier=C.FRONTIER_CONSTRAINED)) == 6  # the neighbours themselves (0)
    # known mine at (4,4): the frontier is the revealed cells next to it; none here, so every tie is kept
    assert _variant_choice(view, rule(frontier=C.FRONTIER_KNOWN_MINE), known=(24,)) == 0
    # known mine at (3,3), next to the revealed (2,2): the cells closest to (2,2) again
    assert _variant_choice(view, rule(frontier=C.FRONTIER_KNOWN_MINE), known=(18,)) == 6


def test_random_first_click_opens_anywhere_and_is_seeded():
    cells = set()
    for seed in range(12):
        game = ml.Game("9x9x10", seed=0)
        agent = ml.make_agent("hcsp", first_click="random", seed=seed)
        (kind, cell), = agent.decision(game)
        again = ml.make_agent("hcsp", first_click="random", seed=seed).decision(ml.Game("9x9x10", seed=0))
        assert again == [(kind, cell)] and 0 <= cell < 81
        cells.add(cell)
    assert len(cells) > 3


# --------------------------------------------------------------------------- hcsp_variants
def test_hcsp_variants_pairs_every_reading_with_the_default():
    res = buffet.hcsp_variants(games=40, expert_games=4, seed=0, executor="serial",
                               variants=["covered-side frontier", "scan-order ties", "no tie rule (csp)"],
                               levels=["8x8x10", "16x30x99"])
    t = res.table.set_index(["variant", "level"])
    assert set(t.index.get_level_values(0)) == {"default", "covered-side frontier", "scan-order ties",
                                                "no tie rule (csp)"}
    assert t.loc[("default", "16x30x99"), "games"] == 4 and t.loc[("default", "8x8x10"), "diff"] == 0
    same = t.loc["covered-side frontier"]
    assert (same["diff"] == 0).all() and (same["gained"] + same["lost"] == 0).all()
    assert t.loc[("no tie rule (csp)", "8x8x10"), "agent"] == "csp"
    assert t.loc[("default", "8x8x10"), "published"] == pytest.approx(0.799)
    quantities = {m["quantity"] for m in res.measured}
    assert quantities == {buffet.variant_quantity(lv, v) for lv in ("8x8x10", "16x30x99")
                          for v in ("covered-side frontier", "scan-order ties", "no tie rule (csp)")}
    assert all(m["item"] == "Table 1" for m in res.measured)
    text = buffet.hcsp_variants_text(res)
    assert "plays exactly the default's games" in text and "covered-side frontier" in text
    with pytest.raises(ValueError, match="variants must be names"):
        buffet.hcsp_variants(games=4, expert_games=2, variants=["nope"])


# --------------------------------------------------------------------------- labels and the dagger
@pytest.fixture(scope="module")
def small_table1():
    # random in the HCSP column: far below every published value, so daggers are certain
    return buffet.table1_win_rates(games=30, expert_games=3, tree_games=0, seed=0, executor="serial",
                                   agents={buffet.CSP: "csp", "HCSP": "random"},
                                   formats=["4x4x4", "2x5x3", "9x9x10"])


def test_minelab_csp_is_labelled_as_itself_and_csp_pgms_has_no_twin(small_table1):
    t = small_table1.table.set_index(["level", "column"])
    assert (t.xs("CSP-PGMS", level="column")["status"] == "no minelab twin").all()
    assert t.loc[("9x9x10", "CSP-PGMS"), "published"] == pytest.approx(0.80)
    assert t.loc[("9x9x10", buffet.CSP), "agent"] == "csp" and pd.isna(t.loc[("9x9x10", buffet.CSP), "published"])
    quantities = {m["quantity"] for m in small_table1.measured}
    assert not any(q.startswith("CSP-PGMS") for q in quantities)
    assert "minelab csp win rate, 4x4x4" in quantities
    layout = buffet.table1_layout(small_table1.table)
    assert (layout["CSP-PGMS minelab"] == "no minelab twin").all() and buffet.CSP_LAYOUT in layout.columns
    with pytest.raises(ValueError, match="no minelab twin"):
        buffet.table1_win_rates(games=4, expert_games=2, tree_games=0, agents={"CSP-PGMS": "csp"})


@pytest.mark.parametrize("kind", ["pandas boolean", "numpy bool", "python bool", "object"])
def test_every_published_value_outside_our_interval_gets_its_dagger(small_table1, kind):
    table = small_table1.table.copy()
    flags = table["published_outside_ci"]
    expected = int(flags.fillna(False).astype(bool).sum())
    assert expected >= 3  # random's HCSP cells at least
    if kind == "numpy bool":
        table["published_outside_ci"] = flags.fillna(False).to_numpy(dtype=bool)
    elif kind == "python bool":
        table["published_outside_ci"] = [bool(v) if not pd.isna(v) else None for v in flags]
    elif kind == "object":
        table["published_outside_ci"] = [np.bool_(v) if not pd.isna(v) else pd.NA for v in flags]
    layout = buffet.table1_layout(table)
    daggers = sum(layout[c].str.count("†").sum() for c in layout.columns if c.endswith(" published"))
    assert daggers == expected
    assert len(buffet.outside(table)) == expected
    fig = buffet._figure(table, [(f, lv) for f, lv in buffet.FORMATS if lv in set(table["level"])])
    rings = [c for ax in fig.axes for c in ax.collections if c.get_gid() == buffet.OUTSIDE_GID]
    assert len(rings) == 1 and len(rings[0].get_offsets()) == expected


def test_measured_notes_say_when_the_published_value_is_outside(small_table1):
    t = small_table1.table
    outside = {buffet.quantity(r.column, r.level) for r in t.itertuples()
               if buffet.outside_flag(r.published_outside_ci)}
    noted = {m["quantity"] for m in small_table1.measured if "outside our 95% interval" in m["note"]}
    assert outside and noted == outside
    assert buffet.outside_flag(np.True_) and buffet.outside_flag(True) and not buffet.outside_flag(pd.NA)
    assert not buffet.outside_flag(None) and not buffet.outside_flag(np.nan) and not buffet.outside_flag(np.False_)


def test_bssuct_first_click_pairs_a_best_cell_with_the_corner():
    res = buffet.bssuct_first_click(games={"1x10x5": 3, "2x5x3": 2, "1x3x1": 2}, seed=0, executor="serial",
                                    levels=("1x10x5", "2x5x3", "1x3x1"))
    t = res.table.set_index(["level", "opening"])
    # a best first cell by the exact optimum, the one nearest the centre among equals
    assert t.loc[("1x10x5", "best"), "cell"] == "(0, 5)" and t.loc[("2x5x3", "best"), "cell"] == "(1, 2)"
    assert t.loc[("1x3x1", "best"), "cell"] == "(0, 0)"  # on 1x3x1 the corner is a best cell
    assert t.loc[("2x5x3", "corner"), "games"] == 2 and t.loc[("1x10x5", "corner"), "diff"] == 0
    assert t.loc[("1x3x1", "best"), "diff"] == 0  # the same cell: the same games
    assert t.loc[("1x10x5", "best"), "exact_optimum"] == pytest.approx(4 / 21)
    assert t.loc[("2x5x3", "best"), "exact_optimum"] == pytest.approx(1 / 4)
    assert t.loc[("2x5x3", "corner"), "exact_optimum"] == pytest.approx(5 / 21)
    assert {m["quantity"] for m in res.measured} == {
        f"BSSUCT win rate, {lv} [variant: {buffet.BSSUCT_VARIANT}]" for lv in ("1x10x5", "2x5x3", "1x3x1")}
    assert "1x10x5" in buffet.bssuct_text(res)


def test_bssuct_reading_covers_every_published_bssuct_win_rate():
    """The reading runs on every format with a published BSSUCT win rate, and its twins name them all."""
    from minelab import report

    pub = report.load_published("buffet2012", claims=False)
    published = {q.split(", ")[1] for q in pub["quantity"] if q.startswith("BSSUCT win rate, ")}
    assert published == set(buffet.BSSUCT_LEVELS)
    twins = report.load_reading_twins()
    twins = twins[twins["reading"] == "BSSUCT: first click not at the corner"]
    assert set(twins["quantity"]) == {buffet.quantity("BSSUCT", lv) for lv in buffet.BSSUCT_LEVELS}


@pytest.mark.parametrize("level, cell", [("4x4x4", (2, 3)), ("3x7x10", (0, 1)), ("5x5x15", (1, 2)),
                                         ("5x5x10", (0, 2))])
def test_best_first_cell_is_a_best_cell_nearest_the_centre(level, cell):
    got, why = buffet.best_first_cell(level)
    assert got == cell
    assert why.startswith("proven lower bound" if level == "5x5x10" else "exact optimum")
    with pytest.raises(ValueError, match="8x8x10"):
        buffet.best_first_cell("8x8x10")
