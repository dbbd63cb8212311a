"""The further-work table of buffet2012 (minelab.papers.buffet2012_further): profiles, a
tiny paired run, bad input."""
import pytest

from minelab.papers import buffet2012_further as F


def test_profiles_say_the_paper_run_and_grow():
    assert F.SIZES["paper"] == {"further_games": 4_000, "further_simulations": 10_000}
    for key in F.SIZES["quick"]:
        assert F.SIZES["smoke"][key] <= F.SIZES["quick"][key] <= F.SIZES["paper"][key]
    assert F.FORMATS == ("4x4x4", "2x5x3", "5x5x10", "1x10x5", "3x7x10", "5x5x15")


def test_a_tiny_paired_run(tmp_path):
    df = F.play_further(6, 20, seed=3, options=("pairing", "4 simulations per new node"), formats=("2x5x3",),
                        executor="serial", results_dir=tmp_path)
    assert set(df["option"]) == {F.BASE, "pairing", "4 simulations per new node"}
    table = F.paired_rows(df, 20)
    assert list(table.columns) == list(F.COLUMNS) and len(table) == 2
    for r in table.to_dict("records"):
        assert r["games"] == 6 and r["simulations"] == 20 and r["format"] == "2x5x3"
        assert r["difference"] == pytest.approx(r["win rate option"] - r["win rate OH"])
        assert r["ci_low"] <= r["difference"] <= r["ci_high"]
        assert r["only_option_won"] - r["only_oh_won"] == round(6 * r["difference"])
    base = df[df["option"] == F.BASE].sort_values(["seed", "game"])
    paired = df[df["option"] == "pairing"].sort_values(["seed", "game"])
    assert list(base["seed"]) == list(paired["seed"])  # the same deals for both


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
