"""minelab.studies.versus_hill (reading data/hill/) and strength.move_values (valuing moves in
any position on exact posterior layouts)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from minelab.cells import COVERED
from minelab.studies import strength as S
from minelab.studies import versus_hill as H


@pytest.fixture
def hill_data(tmp_path, monkeypatch):
    monkeypatch.setattr(H, "hill_dir", lambda: tmp_path)
    return tmp_path


def test_paired_games_count_the_discordant_games(hill_data):
    pd.DataFrame({"level": ["16x30x99"] * 2, "chunk": [0, 1], "seed": [1, 2], "games": [200, 200],
                  "best_won": [80, 70], "hill_won": [75, 80], "both_won": [60, 60], "hill_seconds": [1, 1],
                  "program": "JSMinesweeper", "commit": "c", "agent": "best d"}).to_csv(hill_data / "paired.csv")
    r = H.paired_games().iloc[0]
    assert r["games"] == 400 and r["chunks"] == 2
    assert r["best"] == 150 / 400 and r["hill"] == 155 / 400
    assert (r["only_best_won"], r["only_hill_won"]) == (30, 35)
    assert r["diff"] == pytest.approx((30 - 35) / 400) and r["diff_low"] < r["diff"] < r["diff_high"] < 1
    assert 0 < r["mcnemar_p"] < 1 and r["best_low"] < r["best"] < r["best_high"]
    assert not r["best_is_today"]


def test_each_version_of_best_is_paired_on_its_own(hill_data):
    from minelab.paths import golden_digests

    today = f"best {golden_digests()['best']}"
    pd.DataFrame({"level": ["16x30x99"] * 3, "chunk": [0, 1, 0], "seed": [1, 2, 1], "games": [200] * 3,
                  "best_won": [80, 70, 90], "hill_won": [75, 80, 75], "both_won": [60, 60, 70], "hill_seconds": 1,
                  "program": "JSMinesweeper", "commit": "c", "agent": ["best old", "best old", today]}
                 ).to_csv(hill_data / "paired.csv")
    t = H.paired_games().set_index("agent")
    assert t.loc["best old", "games"] == 400 and t.loc[today, "games"] == 200
    assert t.loc[today, "best_is_today"] and not t.loc["best old", "best_is_today"]
    assert t.loc[today, "diff"] == pytest.approx((20 - 5) / 200)


def test_each_first_click_rule_is_paired_on_its_own(hill_data):
    pd.DataFrame({"level": ["16x30x99", "16x30x99:opening", "16x30x99:opening"], "chunk": [0, 0, 1],
                  "seed": [1, 5, 6], "games": [200] * 3, "best_won": [80, 110, 100], "hill_won": [75, 100, 105],
                  "both_won": [60, 90, 90], "hill_seconds": 1, "program": "JSMinesweeper", "commit": "c",
                  "agent": "best d"}).to_csv(hill_data / "paired.csv")
    t = H.paired_games().set_index("level")
    assert t.loc["16x30x99", "games"] == 200 and t.loc["16x30x99:opening", "games"] == 400
    assert t.loc["16x30x99:opening", "best"] == 210 / 400
    assert t.loc["16x30x99:opening", "diff"] == pytest.approx((30 - 25) / 400)


def test_a_missing_file_names_the_command_that_makes_it(hill_data):
    with pytest.raises(FileNotFoundError, match="tools/hill/hill.py.*paired"):
        H.paired_games()


def _shadow(hill_data, rows: list[dict], games: int, agent: str = "best a", more: tuple = ()) -> None:
    """shadow.csv and shadow_games.csv: `rows` and `games` games played by `agent`, then the
    (rows, games, agent) of `more`."""
    base = {"level": "16x30x99", "seed": 0, "covered": 400, "mines_left": 80, "best_frontier": True,
            "hill_frontier": True, "hill_kind": 1, "layouts": 1000, "program": "p", "commit": "c"}
    played = [(rows, games, agent), *more]
    pd.DataFrame([{**base, **r, "agent": a} for rs, _, a in played for r in rs]).to_csv(
        hill_data / "shadow.csv", index=False)
    pd.concat([pd.DataFrame({"level": "16x30x99", "game": range(n), "seed": 0, "won": False, "guesses": 1,
                             "differ": 1, "program": "p", "commit": "c", "agent": a}) for _, n, a in played]
              ).to_csv(hill_data / "shadow_games.csv", index=False)


def test_the_catalogue_sorts_disagreements_by_the_position_and_sums_them_per_game(hill_data):
    common = {"step": 1, "best_cell": 5, "hill_cell": 9, "best_win": 0.4, "hill_win": 0.5}
    _shadow(hill_data, [
        {**common, "game": 0, "revealed": 3, "log_layouts": 60.0, "best_p": 0.2, "hill_p": 0.2, "diff": 0.10,
         "diff_low": 0.05, "diff_high": 0.15, "hill_frontier": False},
        {**common, "game": 0, "revealed": 200, "log_layouts": 3.0, "best_p": 0.5, "hill_p": 0.5, "diff": 0.02,
         "diff_low": -0.01, "diff_high": 0.05},
        {**common, "game": 2, "revealed": 100, "log_layouts": 40.0, "best_p": 0.1, "hill_p": 0.3, "diff": -0.2,
         "diff_low": -0.3, "diff_high": -0.1},
        {**common, "game": 3, "revealed": 50, "log_layouts": 40.0, "best_p": 0.1, "hill_p": 0.3, "layouts": 0,
         "diff": np.nan, "diff_low": np.nan, "diff_high": np.nan},  # the same move: not valued
    ], games=4)
    d = H.disagreements()
    assert len(d) == 3
    assert list(d["opening"]) == [True, False, False] and list(d["hill off the frontier"]) == [True, False, False]
    assert list(d["both 50/50"]) == [False, True, False] and list(d["endgame"]) == [False, True, False]
    assert list(d["hill riskier"]) == [False, False, True] and list(d["equally safe"]) == [True, True, False]
    t = H.catalogue().set_index("class")
    assert t.loc["all", "disagreements"] == 3 and t.loc["all", "games"] == 4
    assert (t.loc["all", "hill_better"], t.loc["all", "best_better"]) == (1, 1)
    assert t.loc["all", "by_chance"] == pytest.approx(0.025 * 3) and t.loc["both 50/50", "by_chance"] == 0.025
    assert t.loc["all", "cost_per_game"] == pytest.approx((0.10 + 0.02 - 0.2) / 4)
    assert t.loc["equally safe", "cost_per_game"] == pytest.approx(0.12 / 4)
    assert t.loc["hill safer", "disagreements"] == 0 and np.isnan(t.loc["hill safer", "mean_diff"])
    assert t.loc["hill safer", "cost_per_game"] == 0  # no such disagreement: it costs nothing
    assert t.loc["all", "cost_low"] < t.loc["all", "cost_per_game"] < t.loc["all", "cost_high"]
    assert (t["agent"] == "best a").all() and not t["best_is_today"].any()
    H.catalogue_figure(t.reset_index())


def test_the_catalogue_reads_one_version_of_best_today_s_first(hill_data):
    from minelab.paths import golden_digests

    today = f"best {golden_digests()['best']}"
    row = {"step": 1, "best_cell": 5, "hill_cell": 9, "best_win": 0.4, "hill_win": 0.5, "game": 0, "revealed": 100,
           "log_layouts": 40.0, "best_p": 0.2, "hill_p": 0.2, "diff": 0.1, "diff_low": 0.05, "diff_high": 0.15}
    _shadow(hill_data, [row, {**row, "game": 1}], games=5, agent="best old", more=[([row], 2, "best older")])
    assert H.shadow_agent() == "best older"  # no game by today's best: the version that played last
    t = H.catalogue("best old").set_index("class")
    assert (t.loc["all", "disagreements"], t.loc["all", "games"]) == (2, 5)
    _shadow(hill_data, [row, {**row, "game": 1}], games=5, agent="best old", more=[([row], 2, today)])
    assert H.shadow_agent() == today
    t = H.catalogue().set_index("class")
    assert (t.loc["all", "disagreements"], t.loc["all", "games"]) == (1, 2) and t["best_is_today"].all()
    assert t.loc["all", "cost_per_game"] == pytest.approx(0.1 / 2)


def test_the_catalogue_by_hill_s_step_reads_his_message_at_each_disagreement(hill_data):
    row = {"step": 1, "best_cell": 5, "hill_cell": 9, "best_win": 0.4, "hill_win": 0.5, "revealed": 100,
           "log_layouts": 40.0, "best_p": 0.2, "hill_p": 0.3, "diff_low": 0.05, "diff_high": 0.15}
    _shadow(hill_data, [{**row, "game": 0, "diff": 0.1}, {**row, "game": 1, "diff": 0.3},
                        {**row, "game": 2, "diff": -0.1, "diff_low": -0.2, "diff_high": -0.05}], games=4)
    messages = ["Tile (3,4) is an unavoidable 50/50 guess, or safe. 12 solutions remain",
                "Guessing heuristic suggests clearing tile (1,1).", "Tile (2,2) is an unavoidable 50/50 guess."]
    pd.DataFrame({"level": "16x30x99", "game": [0, 1, 2], "step": 1, "agent": "best a", "hill_cell": 9,
                  "message": messages, "program": "p", "commit": "c"}).to_csv(hill_data / "reasons.csv", index=False)
    assert [H.hill_step(m) for m in messages] == ["pseudo 50/50", "guessing heuristic", "50/50"]
    assert H.hill_step("something new") == "other"
    t = H.catalogue(by="hill_step").set_index("hill_step")
    assert list(t.index) == ["all", "pseudo 50/50", "50/50", "guessing heuristic"]
    assert t.loc["all", "disagreements"] == 3 and t.loc["all", "games"] == 4
    assert t.loc["pseudo 50/50", "cost_per_game"] == pytest.approx(0.1 / 4)
    assert (t.loc["50/50", "hill_better"], t.loc["50/50", "best_better"]) == (0, 1)
    assert (t["agent"] == "best a").all()
    H.catalogue_figure(t.reset_index())
    # a change replayed there, by the same steps: Hill's cell at the pseudo 50/50, best's at
    # the heuristic's, a third cell (valued 0.02) at the 50/50
    pd.DataFrame({"level": "16x30x99", "game": [0, 1, 2], "step": 1, "agent": "best a", "change": '{"x": 1}',
                  "best_cell": 5, "hill_cell": 9, "new_cell": [9, 5, 7], "new_diff": [0.1, 0.0, 0.02]}
                 ).to_csv(hill_data / "resolved.csv", index=False)
    r = H.resolutions(by="hill_step").set_index("hill_step")
    assert list(r.index) == ["all", "pseudo 50/50", "50/50", "guessing heuristic"]
    assert tuple(r.loc["all", ["takes_hill", "keeps_best", "takes_other"]]) == (1, 1, 1)
    assert tuple(r.loc["pseudo 50/50", ["takes_hill", "keeps_best", "takes_other"]]) == (1, 0, 0)
    assert r.loc["pseudo 50/50", "gain_per_game"] == pytest.approx(0.1 / 4)
    assert r.loc["50/50", "takes_other"] == 1 and r.loc["50/50", "gain_per_game"] == pytest.approx(0.02 / 4)
    assert r.loc["guessing heuristic", "gain_per_game"] == 0.0
    with pytest.raises(ValueError, match="by must be"):
        H.catalogue(by="kind")


def test_resolutions_count_where_a_change_moves_at_each_class(hill_data):
    common = {"step": 1, "best_cell": 5, "hill_cell": 9, "best_win": 0.4, "hill_win": 0.5, "log_layouts": 60.0}
    _shadow(hill_data, [
        {**common, "game": 0, "revealed": 3, "best_p": 0.2, "hill_p": 0.2, "diff": 0.10, "diff_low": 0.05,
         "diff_high": 0.15},
        {**common, "game": 1, "revealed": 100, "best_p": 0.1, "hill_p": 0.3, "diff": 0.02, "diff_low": -0.01,
         "diff_high": 0.05},
        {**common, "game": 2, "revealed": 100, "best_p": 0.1, "hill_p": 0.3, "diff": 0.04, "diff_low": 0.0,
         "diff_high": 0.08},
    ], games=3)
    resolved = pd.DataFrame({"level": "16x30x99", "game": [0, 1, 2, 0], "step": 1,
                             "agent": ["best a"] * 3 + ["best b"], "change": '{"x": 1}', "best_cell": 5,
                             "hill_cell": 9, "new_cell": [9, 5, 7, 9], "new_diff": [0.10, 0.0, 0.06, 0.10]})
    resolved.to_csv(hill_data / "resolved.csv", index=False)
    t = H.resolutions().set_index("class")
    assert tuple(t.loc["all", ["disagreements", "takes_hill", "keeps_best", "takes_other"]]) == (3, 1, 1, 1)
    assert t.loc["all", "diff_taken"] == pytest.approx(0.10) and (t["agent"] == "best a").all()
    assert tuple(t.loc["hill riskier", ["disagreements", "takes_hill", "keeps_best", "takes_other"]]) == (2, 0, 1, 1)
    assert np.isnan(t.loc["hill riskier", "diff_taken"])
    # the change's own cells: 0.10 (Hill's), 0 (best's), 0.06 (another), one per game of three
    assert t.loc["all", "new_diff"] == pytest.approx(0.16 / 3)
    assert t.loc["all", "gain_per_game"] == pytest.approx(0.16 / 3)
    assert t.loc["all", "gain_low"] < t.loc["all", "gain_per_game"] < t.loc["all", "gain_high"]
    assert t.loc["hill riskier", "new_diff"] == pytest.approx(0.03)
    assert t.loc["hill riskier", "gain_per_game"] == pytest.approx(0.02)
    # a file without the values (or a row without one) gives no value, not a guess
    resolved.drop(columns="new_diff").to_csv(hill_data / "resolved.csv", index=False)
    assert H.resolutions()[["new_diff", "gain_per_game"]].isna().all().all()
    resolved.assign(new_diff=[0.10, 0.0, np.nan, 0.10]).to_csv(hill_data / "resolved.csv", index=False)
    assert np.isnan(H.resolutions().set_index("class").loc["all", "gain_per_game"])


def test_move_values_play_best_after_each_move_on_layouts_consistent_with_the_view():
    # 3x3x2, mines at (2, 1) and (2, 2): a click in the corner floods rows 0 and 1, which
    # show 1 2 2; only (2, 0) is safe, in every consistent layout
    view = np.array([[0, 0, 0], [1, 2, 2], [COVERED] * 3], np.int8)
    t = S.move_values(view, 2, [(2, 0), (2, 1)], layouts=20, seed=1)
    assert list(t["cell"]) == ["(2, 0)", "(2, 1)"] and list(t["reference"]) == [True, False]
    assert list(t["win_rate"]) == [1.0, 0.0] and list(t["diff"]) == [0.0, -1.0] and (t["layouts"] == 20).all()
    with pytest.raises(ValueError, match="cells must be covered"):
        S.move_values(view, 2, [(0, 0)], layouts=5)
    with pytest.raises(ValueError, match="revealed cells are not what revealing them shows"):
        S.move_values(np.array([[0, COVERED, COVERED], [COVERED] * 3, [COVERED] * 3], np.int8), 2, [(2, 2)],
                      layouts=5)


def test_versions_set_each_version_of_best_beside_the_others_on_the_games_all_played(hill_data):
    row = {"step": 1, "best_cell": 5, "hill_cell": 9, "best_win": 0.4, "hill_win": 0.5, "revealed": 100,
           "log_layouts": 40.0, "best_p": 0.2, "hill_p": 0.2, "diff_low": 0.05, "diff_high": 0.15}
    # version a: 4 games, gains 0.1 in game 0 and 0.3 in game 3; version b: 2 games, 0.2 in game 1
    _shadow(hill_data, [{**row, "game": 0, "diff": 0.1}, {**row, "game": 3, "diff": 0.3}], games=4, agent="best a",
            more=[([{**row, "game": 1, "diff": 0.2}], 2, "best b")])
    t = H.versions().set_index("agent")
    assert list(t.index) == ["best a", "best b"]  # in the order they played
    assert (t.loc["best a", "games"], t.loc["best a", "disagreements"]) == (4, 2)
    assert t.loc["best a", "cost_per_game"] == pytest.approx(0.4 / 4)
    # games 0 and 1 are the ones both played: game 3's disagreement is left out of a's common figure
    assert (t.loc["best a", "common_games"], t.loc["best a", "common_disagreements"]) == (2, 1)
    assert t.loc["best a", "common_cost_per_game"] == pytest.approx(0.1 / 2)
    assert t.loc["best b", "common_cost_per_game"] == pytest.approx(0.2 / 2)
    assert t.loc["best a", "cost_low"] < t.loc["best a", "cost_per_game"] < t.loc["best a", "cost_high"]
    assert not t["best_is_today"].any()
