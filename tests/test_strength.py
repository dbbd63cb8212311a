"""minelab.studies.strength: paired comparisons of best's variants, the ablation table,
the final evaluation's tasks and seeds. Small boards, few games."""
from __future__ import annotations

import pandas as pd
import pytest

import minelab as ml
from minelab.agents.base import params_are_values
from minelab.agents.best import MEMO_REVEALED
from minelab.studies import strength as S
from minelab.sweep import derive_seed


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))


def test_a_variant_against_itself_differs_by_nothing_and_a_weaker_one_loses():
    t = S.paired_gains({"same": {}, "no lookahead, no endgame": {"max_candidates": 1, "endgame_layouts": 0}},
                       "6x6x6", 3_000, seed=1000, executor="serial").set_index("variant")
    same, weak = t.loc["same"].to_dict(), t.loc["no lookahead, no endgame"].to_dict()
    assert same["diff"] == 0 and same["only_variant_won"] == same["only_base_won"] == 0 and same["mcnemar_p"] == 1
    assert same["games"] == 3_000 and same["base_win_rate"] == same["variant_win_rate"]
    assert weak["diff"] < 0 and weak["diff_low"] <= weak["diff"] <= weak["diff_high"]
    assert weak["diff"] == pytest.approx(weak["variant_win_rate"] - weak["base_win_rate"])
    # the discordant games are the difference: (only variant - only base) / games
    assert weak["diff"] == pytest.approx((weak["only_variant_won"] - weak["only_base_won"]) / weak["games"])


def test_games_are_paired_on_the_same_boards():
    # "b" spells out a default: a task of its own (other params), the same play on the same boards
    df = S.play_variants({"a": {}, "b": {"fifty_fifty": True}}, "5x5x4", 300, seed=1001, executor="serial")
    params = df["agent_params"].fillna("{}")
    assert set(params[df["variant"] == "a"]) == {"{}"} and set(params[df["variant"] == "b"]) == {'{"fifty_fifty":true}'}
    a, b = (df[df["variant"] == v].set_index(["seed", "game"]) for v in ("a", "b"))
    assert a.index.equals(b.index) and len(a) == 300
    assert a["won"].equals(b["won"]) and a["moves"].equals(b["moves"]) and 0 < a["won"].mean() < 1


def test_comparisons_resume_in_a_folder_of_this_source_and_never_serve_other_code(tmp_path, monkeypatch):
    variants = {"a": {}, "b": {"max_candidates": 1}}
    first = S.play_variants(variants, "5x5x4", 200, seed=1002, executor="serial")
    folder = S.results_folder()
    assert folder == tmp_path / "results" / S.RESULTS_FOLDER / f"minelab-{ml._jitcache.running_digest()}"
    files = sorted(folder.glob("*/*.parquet"))
    assert len(files) == 2  # one task per variant
    kept, lost = files
    before = kept.stat().st_mtime_ns
    lost.unlink()  # as if interrupted before that task finished
    again = S.play_variants(variants, "5x5x4", 200, seed=1002, executor="serial")
    pd.testing.assert_frame_equal(again, first)
    assert lost.exists() and kept.stat().st_mtime_ns == before  # only the missing task ran again
    monkeypatch.setattr(S._jitcache, "running_digest", lambda: "0" * 16)  # other code: none of it served
    S.play_variants(variants, "5x5x4", 200, seed=1002, executor="serial")
    other = S.results_folder()
    assert other != folder and len(list(other.glob("*/*.parquet"))) == 2 and kept.stat().st_mtime_ns == before


def test_the_ablation_table_has_a_gain_per_technique_and_level():
    t = S.ablation_table(levels=("5x5x4",), games=300, expert_games=10, executor="serial").table
    assert list(t["technique"]) == list(S.ABLATIONS)
    assert (t["gain_low"] <= t["gain"]).all() and (t["gain"] <= t["gain_high"]).all()
    assert ((t["gain"] - (t["with"] - t["without"])).abs() < 1e-12).all()


def test_the_changes_table_gives_each_change_its_gain_against_it_undone():
    t = S.changes_table(levels=("5x5x4",), games=300, executor="serial", zero_start=("8x8x10",)).table
    assert list(t["level"]) == ["5x5x4"] * len(S.CHANGES) + ["8x8x10:opening"] * len(S.CHANGES)
    assert list(t["first_click"]) == ["(0, 0)"] * len(S.CHANGES) + ["(2, 2)"] * len(S.CHANGES)
    t = t[t["level"] == "5x5x4"]
    assert list(t["change"]) == list(S.CHANGES)
    assert list(t["pointed_to_by"]) == [cls for cls, _ in S.CHANGES.values()]
    assert (t["seed"] == S.CHANGE_SEED).all() and S.CHANGE_SEED in S.TUNING_SEEDS
    assert ((t["gain"] - (t["after"] - t["before"])).abs() < 1e-12).all()
    assert (t["gain_low"] <= t["gain"]).all() and (t["gain"] <= t["gain_high"]).all()
    undone = {k: v for _, params in S.CHANGES.values() for k, v in params.items()}
    assert S.make_agent("best").params() != {**S.make_agent("best").params(), **undone}  # a change is in the defaults
    with pytest.raises(ValueError, match="changes\\['x'\\] must be"):
        S.changes_table({"x": {"margin": 0.1}}, levels=("5x5x4",), games=10, executor="serial")


def test_the_options_check_plays_its_options_on_both_rules_of_one_level_on_a_tuning_seed():
    assert S.CHECK_SEED in S.TUNING_SEEDS and S.CHECK_SEED not in (S.ABLATION_SEED, S.CHANGE_SEED)
    assert all(S.OPTIONS.get(name, params) == params for name, params in S.CHECK_OPTIONS.items())
    options = {"no lookahead": {"max_candidates": 1}, "same": {"fifty_fifty": True}}  # "same" spells out a default
    t = S.options_check(options, level="6x6x6", games=600, executor="serial").table
    assert list(t["level"]) == ["6x6x6"] * 2 + ["6x6x6:opening"] * 2 and list(t["option"]) == [*options] * 2
    assert (t["seed"] == S.CHECK_SEED).all() and (t["games"] == 600).all()
    assert list(t["first_click"]) == ["(0, 0)"] * 4  # a level without an OPENING_FIRST_CELLS entry: the corner
    assert (t["confirmed"] == (t["gain_low"] > 0)).all() and "kept" not in t
    same = t[t["option"] == "same"]
    assert (same["gain"] == 0).all() and not same["confirmed"].any()
    assert (t[t["option"] == "no lookahead"]["gain"] != 0).all()  # its own play, on both rules


@pytest.mark.parametrize("variants, needle", [
    ({}, "variants must be a non-empty dict"),
    ({"x": {"margin": 5}}, "margin must be a number in [0, 1]"),
    ({"x": {"no_such": 1}}, "no_such"),
    ({"": {}}, "each name must be a non-empty string"),
])
def test_bad_variants_are_refused(variants, needle):
    with pytest.raises((ValueError, TypeError)) as exc:
        S.play_variants(variants, "5x5x4", 10, seed=1000, executor="serial")
    assert needle in str(exc.value)


def test_evaluation_seeds_never_meet_tuning_or_ablation_seeds():
    ev = {t["seed"] for t in S.evaluation_tasks(games=S.CHUNK * 3)}
    used = set()
    for seed in (*S.TUNING_SEEDS[:50], S.ABLATION_SEED):
        for level in S.LEVELS:
            for rule in ("", ":safe", ":opening"):
                for i in range(3):
                    used.add(derive_seed(seed, {"level": level + rule, "n_games": S.CHUNK, "chunk": i}))
    assert S.EVALUATION_SEED not in S.TUNING_SEEDS and S.EVALUATION_SEED != S.ABLATION_SEED
    assert S.EVALUATION_SEED not in S.PAST_EVALUATION_SEEDS  # a frozen version is judged on boards never seen
    assert not ev & used
    tasks = S.evaluation_tasks(levels=("16x30x99",), rules=("opening",), games=10, first_cells={
        ("16x30x99", "opening"): (3, 3)})
    assert tasks[0]["agent_params"] == {"first_click": [3, 3]} and tasks[0]["level"] == "16x30x99:opening"


def test_evaluate_runs_on_a_given_executor_and_says_wilson_intervals():
    tasks = S.evaluation_tasks(levels=("5x5x4",), rules=("safe",), games=50)
    t = S.evaluate(tasks, scheduler="serial")
    assert isinstance(t, pd.DataFrame) and t.loc[0, "games"] == 50
    assert t.loc[0, "ci_low"] <= t.loc[0, "win_rate"] <= t.loc[0, "ci_high"]


def test_opening_cells_compares_first_cells_on_the_same_boards():
    t = S.opening_cells(levels=("6x6x5",), cells=((0, 0), (1, 1), (2, 2)), games=400, executor="serial").table
    assert list(t["first_cell"]) == ["(0, 0)", "(1, 1)", "(2, 2)"] and (t["games"] == 400).all()
    corner = t.iloc[0]
    assert corner["diff"] == 0
    for r in t.iloc[1:].itertuples():
        assert r.diff == pytest.approx(r.win_rate - corner["win_rate"])
    assert t["best"].sum() >= 1 and t.loc[t["best"], "win_rate"].min() == t["win_rate"].max()


def test_final_win_rates_sets_best_beside_the_published_peers():
    from minelab.studies.leaderboard import load_published
    r = S.final_win_rates(games=30, levels=("8x8x10",), first_cells={"8x8x10": (2, 2)}, scheduler="serial",
                          peers=load_published())
    ours = r.table[r.table["program"].str.startswith("minelab")]
    assert set(ours["rule"]) == {"safe", "opening"} and (ours["games"] == 30).all()
    assert ours.set_index("rule").loc["opening", "first_cell"] == "(2, 2)"
    assert ours.set_index("rule").loc["safe", "first_cell"] == "(0, 0)"
    peers = r.table[~r.table["program"].str.startswith("minelab")]
    assert not peers.empty and peers["program"].str.endswith("(published)").all()
    assert {m["quantity"] for m in r.measured} == {"best win rate, first click safe, final evaluation",
                                                   "best win rate, first click opening, final evaluation"}


def test_the_loss_profile_accounts_for_every_loss():
    t = S.level_losses("6x6x6", 400, seed=1999)
    lost = round((1 - t["win_rate"].iloc[0]) * 400)
    assert 0 < lost < 400 and t["games_lost_here"].sum() == lost  # every loss is a guess, counted once
    # expected losses (the sum of the guesses' mine probabilities) match the losses seen:
    # a wrong probability (or counting the safe ones) would miss by far more than 4 standard errors
    se = (lost / 400 * (1 - lost / 400) / 400) ** 0.5
    assert abs(t["expected_losses_per_game"].sum() - lost / 400) < 4 * se
    assert t["share"].sum() == pytest.approx(1) and (t["ci_low"] <= t["expected_losses_per_game"]).all()
    assert set(t["step"]) <= set(S.GUESS_STEPS) and set(t["stage"]) <= set(S.STAGES)
    assert (t["mean_p_mine"] > 0).all() and (t["mean_p_mine"] < 1).all() and t["early_positions"].iloc[0] > 0
    assert S.EARLY_REVEALED <= MEMO_REVEALED  # the early stages' positions are the kind the decision memo keeps
    assert S.level_losses("3x3x0", 5, seed=1).empty  # no mine: won at once, no guess
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        S.level_losses("5x5x4", 10, seed=-1)


def test_several_levels_in_one_sweep_give_what_each_gives_alone():
    weak = {"no lookahead": {"max_candidates": 1}}
    together = S.paired_gains_levels({"5x5x4": (weak, 300), "4x6x5": (weak, 200)}, seed=1002, executor="serial")
    alone = pd.concat([S.paired_gains(weak, lv, n, seed=1002, executor="serial")
                       for lv, n in (("5x5x4", 300), ("4x6x5", 200))], ignore_index=True)
    pd.testing.assert_frame_equal(together, alone)
    assert list(together["games"]) == [300, 200]


@pytest.mark.slow  # about a minute of rollouts
def test_rollout_values_play_best_from_a_position_on_consistent_layouts():
    # 3x3x1 with the four corners showing 1: the mine can only be in the centre
    corners = {(0, 0): 1, (0, 2): 1, (2, 0): 1, (2, 2): 1}
    t = S.rollout_values("3x3x1", corners, [(1, 1), (0, 1)], layouts=50, seed=1).set_index("cell")
    assert t.loc["(1, 1)", "win_rate"] == 0 and t.loc["(1, 1)", "diff"] == -1  # the mine, in every layout
    assert t["best_guess"].sum() == 1 and t.loc[t["best_guess"], "win_rate"].item() == 1
    assert (t["layouts"] == 50).all() and (t["ci_low"] <= t["win_rate"]).all()
    with pytest.raises(ValueError, match="no layout"):
        S.rollout_values("3x3x1", {(0, 0): 3}, [(2, 2)], layouts=5)
    with pytest.raises(ValueError, match="number 1-8"):
        S.rollout_values("3x3x1", {(0, 0): 0}, [(2, 2)], layouts=5)
    with pytest.raises(ValueError, match="candidates must be covered"):
        S.rollout_values("3x3x1", {(0, 0): 1}, [(0, 0)], layouts=5)


def test_optimum_regret_adds_up_to_the_gap_to_the_optimum():
    # the safest cell only, no endgame search: far from optimal on 4x4x5 (about 6 points of regret)
    r = S.optimum_regret("4x4x5:none", 3000, seed=1998, params={"endgame_layouts": 0, "max_candidates": 1})
    t = r.table.set_index("step")
    look = t.loc["lookahead"]
    assert look["suboptimal"] > 0 and look["ci_low"] > 2.0  # its guesses lose points, measured per game
    assert 0 <= look["as_safe"] <= 1 and abs(look[["optimum_safer", "as_safe", "optimum_riskier"]].sum() - 1) < 1e-9
    # the first click (the corner) against the best first cell: exact, the same in every game
    assert t.loc["first click", "regret_points"] == pytest.approx(100 * (look["best_first_optimum"] - look["optimum"]))
    # performance difference: won + the game's regrets estimates the optimum of the first click made
    # (leaving the regrets out, or counting them wrong, misses it by several points)
    assert look["check_low"] <= look["optimum"] <= look["check_high"]
    assert look["win_rate"] < look["check_low"]
    # with its endgame search, best's guesses there are exact: no regret
    d = S.optimum_regret("4x4x5:none", 300, seed=1998).table.set_index("step")
    assert d.loc["endgame", "guesses"] > 0 and d.loc["endgame", "regret_points"] == 0
    with pytest.raises(ValueError, match="at most 64 cells"):
        S.optimum_regret("9x9x10", 10)


def test_best_variants_share_the_types_of_its_kernels():
    """best declares its parameters values (`params_are_values`), so the sweep runs its
    variants as tasks of one compile key: every variant the studies play must give the
    batch loop a state of the same numba type as the defaults."""
    import numba

    sets = [p for table in (S.ABLATIONS, S.OPTIONS, S.CHECK_OPTIONS) for p in table.values()]
    sets += [undo for _, undo in S.CHANGES.values()]
    sets += [{"first_click": [7, 15]}, {"memo_revealed": 0}, {"endgame_prune": True}]
    default = numba.typeof(ml.make_agent("best").batch_state(16, 30, 99))
    for params in sets:
        got = numba.typeof(ml.make_agent("best", **params).batch_state(16, 30, 99))
        assert got == default, f"best with {params} gives its kernels other types"
    assert params_are_values("best") and not params_are_values("uct") and not params_are_values("no such agent")
