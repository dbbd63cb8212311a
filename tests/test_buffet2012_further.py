"""The further-work table of buffet2012 (minelab.papers.buffet2012_further): profiles, a
tiny paired run, bad input."""
import pandas as pd
import pytest

from minelab.papers import buffet2012_further as F


def test_profiles_say_the_paper_run_and_grow():
    assert F.SIZES["paper"] == {"further_games": 4_000, "further_simulations": 10_000, "second_games": 1_000,
                                "second_simulations": 10_000}
    for key in F.SIZES["quick"]:
        assert F.SIZES["smoke"][key] <= F.SIZES["quick"][key] <= F.SIZES["paper"][key]
    assert F.FORMATS == ("4x4x4", "2x5x3", "5x5x10", "1x10x5", "3x7x10", "5x5x15")
    assert F.second_plan(1_000, 10_000) == {"8x8x10": (1_000, 10_000), "9x9x10": (1_000, 10_000),
                                            "16x16x40": (500, 100), "16x30x99": (500, 100)}
    assert F.second_plan(1, 20)["16x30x99"] == (1, 20)


def test_a_tiny_paired_run(tmp_path):
    df = F.play_further(6, 20, seed=3, options=("pairing", "4 simulations per new node"), formats=("2x5x3",),
                        executor="serial", results_dir=tmp_path)
    assert set(df["option"]) == {F.BASE, "pairing", "4 simulations per new node"}
    table = F.paired_rows(df)
    assert list(table.columns) == list(F.COLUMNS) and len(table) == 2
    assert set(table["stage"]) == {"small formats"}
    for r in table.to_dict("records"):
        assert r["games"] == 6 and r["simulations"] == 20 and r["format"] == "2x5x3"
        assert r["difference"] == pytest.approx(r["win rate option"] - r["win rate OH"])
        assert r["ci_low"] <= r["difference"] <= r["ci_high"]
        assert r["only_option_won"] - r["only_oh_won"] == round(6 * r["difference"])
    base = df[df["option"] == F.BASE].sort_values(["seed", "game"])
    paired = df[df["option"] == "pairing"].sort_values(["seed", "game"])
    assert list(base["seed"]) == list(paired["seed"])  # the same deals for both


def _frame(level, base, option):
    """A play_further-like frame: OH's and one option's outcomes on the same deals."""
    rows = [{"level": level, "seed": 7, "game": g, "won": w, "option": name, "agent_params": '{"simulations": 9}'}
            for name, won in ((F.BASE, base), ("pairing", option)) for g, w in enumerate(won)]
    return pd.DataFrame(rows)


def test_pooled_rows_count_every_deal_once_and_select_the_second_stage():
    df = pd.concat([_frame("4x4x4", [1, 1, 1, 0] * 10, [0, 1, 1, 0] * 10),
                    _frame("2x5x3", [1, 0] * 10, [0, 0] * 10)], ignore_index=True)
    pooled = F.pooled_rows(df)
    r = pooled.iloc[0]
    assert (r["stage"], r["format"], r["games"], r["simulations"]) == ("pooled", F.POOLED, 60, 9)
    assert r["difference"] == pytest.approx(-20 / 60)
    assert (r["only_option_won"], r["only_oh_won"]) == (0, 20)
    assert F.clearly_negative(pooled) == ["pairing"]
    tie = pd.concat([_frame("4x4x4", [1, 0] * 10, [0, 1] * 10)], ignore_index=True)
    assert F.clearly_negative(F.pooled_rows(tie)) == []  # a difference of 0: it plays the second stage
    assert F.clearly_positive(pooled) == [] and F.clearly_positive(F.pooled_rows(tie)) == []
    better = pd.concat([_frame("4x4x4", [0, 1, 1, 0] * 10, [1, 1, 1, 0] * 10)], ignore_index=True)
    assert F.clearly_positive(F.pooled_rows(better)) == ["pairing"] and F.clearly_negative(F.pooled_rows(better)) == []


@pytest.mark.parametrize("kw, says", [
    ({"options": ("magic",)}, "options must be"),
    ({"formats": ("9x9x10",)}, "formats must be"),
    ({"games": 0}, "games"),
    ({"simulations": -1}, "simulations"),
])
def test_bad_input_is_a_clear_error(kw, says):
    args = {"games": 2, "simulations": 10, **kw}
    with pytest.raises(ValueError, match=says):
        F.play_further(args.pop("games"), args.pop("simulations"), **args)


@pytest.mark.parametrize("games, simulations, says", [(0, 10, "second_games"), (2, 0, "second_simulations"),
                                                      (2.5, 10, "second_games")])
def test_a_bad_second_stage_size_fails_before_anything_plays(games, simulations, says):
    with pytest.raises(ValueError, match=says):
        F.table_further_work(further_games=2, further_simulations=10, second_games=games,
                             second_simulations=simulations, executor="serial")
