"""The Lordeiro variants: the first_move "first-zero-only" option (a new, non-default
reading of the authors' opening) and minelab.papers.lordeiro2021_variants (Table II,
Table IV and Fig 12 variants). Fast: small boards, few games."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import minelab as ml
from minelab.cells import REVEAL
from minelab.engine import Game, run_streams
from minelab.papers import lordeiro2021_variants as V


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("MINELAB_FIGURES_DIR", str(tmp_path / "figures"))


def has_zero(game) -> bool:
    gs = game._gs
    return bool(((gs.mine == 0) & (gs.counts == 0)).any())


# ----------------------------------------------------------------------------- first-zero-only
def test_no_zero_share_counts_every_layout():
    assert V.no_zero_share(4, 4, 3) == 0.0
    assert V.no_zero_share(4, 4, 4) == pytest.approx(256 / 1820)
    assert V.no_zero_share(4, 4, 5) == pytest.approx(1536 / 4368)
    assert V.no_zero_share(2, 2, 1) == 1.0  # every safe cell of a 2x2 board touches the mine


def test_first_zero_only_opens_like_first_zero_when_there_is_a_zero_and_not_otherwise():
    deal, rng = run_streams(7)
    seen = {True: 0, False: 0}
    for _ in range(30):
        game = Game("4x4x5:none", seed=deal)
        twin = Game("4x4x5:none", seed=0)
        twin._gs.mine[:] = game._gs.mine
        twin._gs.counts[:] = game._gs.counts
        zero = has_zero(game)
        a = ml.make_agent("greedy-mab", first_move="first-zero-only")
        b = ml.make_agent("greedy-mab")
        first = a.step(game)
        seen[zero] += 1
        if zero:
            assert first == b.step(twin)  # the program's opening, the same cell
            assert a.decisions == 0 and "opening" in a._why
        else:
            assert a.decisions == 1  # the agent's own first decision, on the covered board
            assert len(first) == 1 and first[0].kind == REVEAL
            assert "opening" not in a._why
    assert seen[True] and seen[False]


def test_first_zero_only_may_lose_on_the_first_click_and_learns_it():
    deal, rng = run_streams(3)
    agent = ml.make_agent("greedy-mab", first_move="first-zero-only")
    lost_first = 0
    for _ in range(300):
        game = Game("4x4x5:none", seed=deal)
        zero = has_zero(game)
        n_before = int(agent.keys.counts.sum())
        agent.step(game)
        if not zero and game.lost:
            lost_first += 1
            assert int(agent.keys.counts.sum()) > n_before  # the losing click, and the end-of-game pairs
        if not game.over:
            agent.play_game(game)
    assert lost_first > 0


def test_first_zero_only_is_first_zero_on_boards_that_always_have_a_zero():
    a = ml.make_agent("greedy-mab", first_move="first-zero-only")
    b = ml.make_agent("greedy-mab")
    da = ml.play(a, "4x4x3:none", 400, seed=5)  # every 4x4x3 layout has a zero cell
    db = ml.play(b, "4x4x3:none", 400, seed=5)
    pd.testing.assert_frame_equal(da.drop(columns=[c for c in da.columns if "agent" in c or "param" in c]),
                                  db.drop(columns=[c for c in db.columns if "agent" in c or "param" in c]))
    pd.testing.assert_frame_equal(a.table(), b.table())


@pytest.mark.parametrize("name, kw", [
    ("greedy-mab", {"first_move": "first-zero-only"}),
    ("greedy-mab", {"first_move": "first-zero-only", "symmetries": False}),
    ("egreedy-mab", {"first_move": "first-zero-only", "epsilon": 0.2}),
    ("sa-greedy", {"first_move": "first-zero-only"}),
])
def test_first_zero_only_batch_play_equals_interactive_play(name, kw):
    batch, inter = ml.make_agent(name, **kw), ml.make_agent(name, **kw)
    df = ml.play(batch, "4x4x5:none", 150, seed=11)
    deal, inter.rng = run_streams(11)
    rows = []
    for _ in range(150):
        game = Game("4x4x5:none", seed=deal)
        inter.play_game(game)
        rows.append((game.won, len(game.moves), game.revealed, len(inter.keys)))
    assert list(zip(df["won"], df["moves"], df["revealed"], df["actions"])) == rows
    pd.testing.assert_frame_equal(batch.table(), inter.table())
    assert batch.decisions == inter.decisions


def test_first_zero_only_is_named_and_checked():
    agent = ml.make_agent("greedy-mab", first_move="first-zero-only")
    assert agent.params()["first_move"] == "first-zero-only"
    with pytest.raises(ValueError, match="first_move"):
        ml.make_agent("greedy-mab", first_move="first-zero-or-else")


# ----------------------------------------------------------------------------- Table II, Table IV
def test_table2_variants_names_its_rows_like_table2():
    variants = [v for v in V.TABLE2_VARIANTS if v[0] in ("MAB first-zero-only opening", "SA first-zero-only opening")]
    r = V.table2_variants(table2_games=200, executor="serial", mines=(4,), variants=variants)
    q = {m["quantity"] for m in r.measured}
    assert {"MAB first-zero-only opening win rate, 4x4x4, 200 games",
            "MAB first-zero-only opening actions recorded, 4x4x4, 20 games",
            "SA first-zero-only opening pairs recorded, 4x4x4, 200 games"} <= q
    assert all(m["item"] == "Table II" for m in r.measured)
    assert set(r.table["agent"]) == {"MAB first-zero-only opening", "SA first-zero-only opening"}


def test_table4_variants_tag_each_row_with_its_variant_and_size():
    r = V.table4_variants(train_games=60, test_games=4, executor="serial", settings=("8x8x10",))
    q = [m["quantity"] for m in r.measured]
    assert "training win rate, trained on 8x8x10 [variant: textbook: optimistic bonus, 60 training games]" in q
    assert "expert win rate, trained on 8x8x10 [variant: code: bonus toward certainty, 60 training games]" in q
    assert len(q) == 2 * 4


# ----------------------------------------------------------------------------- Fig 12
def fig12_table(rates) -> pd.DataFrame:
    """A Fig 12 table from {(height, density): win rate}, mines half up, 1000 games a cell."""
    rows = []
    for (h, d), w in rates.items():
        rows.append({"height": h, "density": d, "mines": max(1, math.floor(10 * h * d + 0.5)), "games": 1000,
                     "wins": round(1000 * w), "win_rate": w, "ci_low": w - 0.01, "ci_high": w + 0.01})
    return pd.DataFrame(rows)


def test_fig12_readings_by_hand():
    # heights 3, 4, 5 (rows), densities 0.14, 0.16 (columns)
    t = fig12_table({(3, 0.14): 0.8, (3, 0.16): 0.6, (4, 0.14): 0.7, (4, 0.16): 0.5,
                     (5, 0.14): 0.4, (5, 0.16): 0.3})
    got = V.fig12_readings(t).table.set_index(["axis", "reading"])["value"]
    h, d = "heights 3..5", "densities 0.14..0.16"
    assert got[(h, "points")] == pytest.approx(((0.8 - 0.4) + (0.6 - 0.3)) / 2)
    assert got[(h, "relative")] == pytest.approx((0.4 / 0.8 + 0.3 / 0.6) / 2)
    assert got[(h, "relative of means")] == pytest.approx((0.7 - 0.35) / 0.7)
    assert got[(h, "per step")] == pytest.approx(0.35 / 2)
    assert got[(h, "per step, relative")] == pytest.approx(np.mean([0.1 / 0.8, 0.3 / 0.7, 0.1 / 0.6, 0.2 / 0.5]))
    assert got[(h, "min points")] == pytest.approx(0.3)
    assert got[(d, "points")] == pytest.approx((0.2 + 0.2 + 0.1) / 3)
    assert got[(d, "relative")] == pytest.approx((0.2 / 0.8 + 0.2 / 0.7 + 0.1 / 0.4) / 3)
    r = V.fig12_readings(t)
    assert all(m["item"] == "Fig 12" and m["ci_low"] <= m["value"] <= m["ci_high"] for m in r.measured)
    assert "mean win-rate decrease over heights 3..5 [reading: relative]" in {m["quantity"] for m in r.measured}


def test_python_round_takes_the_board_with_the_even_count():
    # 3x10 at density 0.15: 4.5 mines, half up 5, Python's round() 4 = the 0.14 board (4.2 -> 4)
    t = fig12_table({(3, 0.14): 0.9, (3, 0.15): 0.8, (3, 0.16): 0.7})
    out = V.python_round_table(t).set_index("density")
    assert out.loc[0.15, "mines"] == 4 and out.loc[0.15, "win_rate"] == 0.9
    assert out.loc[0.16, "win_rate"] == 0.7  # 4.8 -> 5 either way
    with pytest.raises(ValueError, match="no board"):
        V.python_round_table(t[t["density"] != 0.14])


# ----------------------------------------------------------------------------- transfer claims
def _transfer_result(rates_by_run: list[dict], games: int = 10_000):
    """A replicated Table III/IV stand-in: {(setting, scenario): win rate} per run."""
    from minelab.report import PaperResult
    rows = [{"trained on": s, "scenario": sc, "games": games, "wins": round(r * games),
             "win_rate": round(r * games) / games, "run": i}
            for i, rates in enumerate(rates_by_run) for (s, sc), r in rates.items()]
    runs = pd.DataFrame(rows)
    return PaperResult("t", None, runs.drop(columns="run"), [], runs=runs if len(rates_by_run) > 1 else None)


def test_transfer_claims_count_significant_wins_and_rank_per_run():
    from minelab.papers import lordeiro2021 as L
    levels = ("beginner", "intermediate", "expert")
    # run 0: greedy 8x8x15 ahead everywhere, significantly only on expert (a hair on the others)
    g0 = {("8x8x15", "beginner"): 0.77, ("8x8x15", "intermediate"): 0.58, ("8x8x15", "expert"): 0.05,
          ("8x8x10", "beginner"): 0.70, ("8x8x10", "intermediate"): 0.579, ("8x8x10", "expert"): 0.01}
    u0 = {("8x8x15", "beginner"): 0.76, ("8x8x15", "intermediate"): 0.40, ("8x8x15", "expert"): 0.001}
    # run 1: the UCB agent leads on beginner and ranks first there
    g1 = dict(g0)
    u1 = {**u0, ("8x8x15", "beginner"): 0.80}
    claims = L.transfer_claims(_transfer_result([g0, g1]), _transfer_result([u0, u1]))
    t = claims.table.set_index("run")
    assert list(t["greedy 8x8x15 prevails"]) == [1, 1]  # beginner: 0.77 vs 0.76 is not significant at 10^4
    assert list(t["UCB 8x8x15 beginner rank"]) == [2, 1]
    assert list(t["best beginner"]) == [0.77, 0.80] and list(t["best intermediate"]) == [0.58, 0.58]
    by_q = {m["quantity"]: m for m in claims.measured}
    rank = by_q["rank of the 8x8x15 UCB agent's beginner win rate among all tested agents"]
    assert rank["value"] == 1.5 and rank["runs"] == 2 and rank["ci_low"] < 1 < 2 < rank["ci_high"]
    assert set(levels) == set(L.TEST_LEVELS)
    # one run: values without an interval
    one = L.transfer_claims(_transfer_result([g0]), _transfer_result([u0]))
    assert all(math.isnan(m["ci_low"]) and m["runs"] == 1 for m in one.measured)
