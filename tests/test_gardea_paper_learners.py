"""gardea2015's learned-model figures (minelab.papers.gardea2015_learners) and the
baselines of its §III-A: the oracle that looks the mines up a fixed share of the time."""
import numpy as np
import pytest

import minelab as ml
from minelab.engine import run_streams


def _interactive(agent_factory, level, n, seed):
    deal, agent_rng = run_streams(seed)
    agent = agent_factory()
    agent.rng = agent_rng
    return [(bool(g.won), len(g.moves), g.revealed) for g in
            (agent.play_game(ml.Game(level, seed=deal)) for _ in range(n))]


@pytest.mark.parametrize("lookup", [0.0, 0.5, 0.9])
def test_oracle_lookup_batch_equals_interactive(lookup):
    df = ml.play(ml.make_agent("oracle", lookup=lookup), "8x8x10", 60, seed=3)
    assert list(zip(df["won"], df["moves"], df["revealed"])) == \
        _interactive(lambda: ml.make_agent("oracle", lookup=lookup), "8x8x10", 60, 3)


def test_oracle_lookup_spans_random_to_perfect():
    """lookup 1 wins every game, 0 plays like `random` (the same boards: not one more win
    than chance allows), and the win rate grows with the share of looked-up moves."""
    level = "6x6x6"
    rates = {f: ml.play(ml.make_agent("oracle", lookup=f), level, 600, seed=1)["won"].mean()
             for f in (0.0, 0.8, 0.95, 1.0)}
    assert rates[1.0] == 1.0
    rnd = ml.play("random", level, 600, seed=1)["won"].mean()
    assert abs(rates[0.0] - rnd) < 0.05
    assert rates[0.0] < rates[0.8] < rates[0.95] < rates[1.0]


@pytest.mark.parametrize("bad", [-0.1, 1.5, "half", True])
def test_oracle_lookup_must_be_a_fraction(bad):
    with pytest.raises(ValueError, match="lookup"):
        ml.make_agent("oracle", lookup=bad)


def test_oracle_with_lookup_is_still_a_labelled_cheat():
    agent = ml.make_agent("oracle", lookup=0.5)
    assert agent.cheat and agent.params() == {"lookup": 0.5}
    assert ml.make_agent("oracle").params() == {}  # the plain oracle's files and keys are unchanged
    assert np.isclose(agent.lookup, 0.5)


# --------------------------------------------------------------------------- the learners' figures
from minelab.papers import gardea2015_learners as gl  # noqa: E402


def test_t_interval_is_clipped_and_needs_two_runs():
    m, lo, hi = gl.t_interval(np.array([0.0, 0.02]))
    assert m == pytest.approx(0.01) and lo == 0.0 and hi > 0.02
    assert np.isnan(gl.t_interval(np.array([0.5]))[1])


def test_a_learners_interval_is_never_narrower_than_wilson(tmp_path, monkeypatch):
    """Two trained models that both lose every game have no spread between runs; the
    interval must still say how few games that was."""
    import pandas as pd

    games = pd.DataFrame({"part": "game", "approach": "Q-learning", "level": "5x5x4", "run": [0] * 50 + [1] * 50,
                          "won": False, "fraction_revealed": 0.3})
    models = pd.DataFrame({"part": "model", "approach": "Q-learning", "level": "5x5x4", "run": [0, 1],
                           "move_accuracy": [0.4, 0.5], "train_accuracy": np.nan, "test_accuracy": np.nan,
                           "train_seconds": 1.0, "states": 10.0, "negative_share": np.nan})
    row = gl.summary(pd.concat([games, models], ignore_index=True)).iloc[0]
    assert row.win_mean == 0 and row.win_t_low == 0 and row.win_t_high > 0.03  # Wilson's upper bound for 0/100
    assert row.move_accuracy == pytest.approx(0.45)


def test_a_mean_over_runs_says_how_many_runs():
    """A learner's row is a mean over independently trained models: it carries `runs`
    (the ledger's prediction interval needs it); the CSP's pooled Wilson row does not."""
    import pandas as pd

    rows = []
    for approach, run, won in [("Q-learning", 0, True), ("Q-learning", 1, False), ("Q-learning", 2, True),
                               ("CSP", 0, True), ("CSP", 1, True), ("CSP", 2, False)]:
        rows += [{"part": "game", "approach": approach, "level": "5x5x4", "run": run, "won": won,
                  "fraction_revealed": 0.5}] * 20
    models = pd.DataFrame({"part": "model", "approach": "Q-learning", "level": "5x5x4", "run": [0, 1, 2],
                           "move_accuracy": 0.5, "train_accuracy": np.nan, "test_accuracy": np.nan,
                           "train_seconds": 1.0, "states": 10.0, "negative_share": np.nan})
    table = gl.summary(pd.concat([pd.DataFrame(rows), models], ignore_index=True))
    got = {m["quantity"]: m for m in gl._measured("Board size", table)}
    q, csp = got["Q-learning win rate, 5x5x4"], got["CSP win rate, 5x5x4"]
    assert q["runs"] == 3 and "3 independently trained models" in q["note"]
    assert "runs" not in csp and "Wilson" in csp["note"]


def test_the_density_variant_reads_the_4x4x3_density():
    """3/16 of the cells: 5x5 -> 5 mines, 6x6 -> 7; both readings give 4x4x3."""
    from minelab.papers.gardea2015 import square_level

    assert [square_level(n, gl.KRR_DENSITY) for n in (4, 5, 6)] == ["4x4x3", "5x5x5", "6x6x7"]
    assert [square_level(n) for n in (4, 5, 6)] == ["4x4x3", "5x5x4", "6x6x6"]
    result = ml.report.PaperResult("variant_board_density", None, None, [
        {"item": "Board size", "value": 0.02, "ci_low": 0.01, "ci_high": 0.03, "runs": 5, "games": 100,
         "quantity": "kernel ridge regression win rate, 6x6x6 [variant: "
                     + gl.DENSITY_VARIANT.format(level="6x6x7") + "]"}])
    text = gl.density_variant_text(result)
    assert "kernel ridge regression on 6x6x7" in text and "0.020 (0.010-0.030)" in text
    # the verdict is the ledger's, on the published number the variant stands beside
    assert "kernel ridge regression win rate, 6x6x6: published < 0.05" in text and "— ledger: " in text


def test_one_published_bound_is_one_mark():
    marks = gl._published_marks("Board size", gl._side_of)
    five = marks[marks["x"] == 5]
    assert len(five) == 1 and "every learner" in five.iloc[0]["label"]
    assert set(marks["relation"]) >= {"≈", "<", ""}  # "": the beginning player's 35%, a reference (no relation)
    assert gl._is_reference(next(r for r in gl._published("Board size").itertuples() if "(reference)" in r.quantity))


def test_learner_task_checks_its_fields():
    from minelab.sweep import validate_tasks

    good = {"kind": "gardea_learner", "module": gl.MODULE, "agent": "gardea-q",
            "agent_params": {"train_level": "4x4x3", "train_size": 100}, "level": "4x4x3", "n_games": 10,
            "accuracy_states": 5, "seed": 1}
    validate_tasks([good])
    with pytest.raises(ValueError, match="accuracy_states"):
        validate_tasks([{**good, "accuracy_states": -1}])
    with pytest.raises(ValueError, match="'colour' is not"):
        validate_tasks([{**good, "colour": 1}])
    with pytest.raises(ValueError, match="train_size"):
        validate_tasks([{**good, "agent_params": {"train_level": "4x4x3", "train_size": 0}}])


def test_regression_iterations_smoke(tmp_path, monkeypatch):
    """The figure runs end to end at a tiny size, its rows are per training size, and
    its text's verdict is computed from the table."""
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path))
    r = gl.fig_regression_iterations(games=40, runs=2, accuracy_states=20, seed=0, executor="serial",
                                     sizes=(40, 120))
    assert list(r.table["train_states"]) == [40, 120]
    assert (r.table["runs"] == 2).all() and (r.table["games"] == 80).all()
    assert all(0 <= v <= 1 for v in r.table["move_accuracy"])
    assert "training states" in gl.regression_text(r)


@pytest.mark.parametrize("bad, field", [({"runs": 1}, "runs"), ({"games": 0}, "games"),
                                        ({"accuracy_states": 0}, "accuracy_states")])
def test_figure_sizes_are_checked(bad, field):
    kw = {"games": 10, "runs": 2, "accuracy_states": 5, **bad}
    with pytest.raises(ValueError, match=field):
        gl.fig_regression_iterations(**kw, executor="serial")
