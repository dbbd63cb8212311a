"""Fig 3 of buffet2012 (minelab.papers.buffet2012_widening): the infinitely many-armed
Bernoulli bandit. Small fixed seeds and sizes: every number below is deterministic."""
import math

import numpy as np
import pandas as pd
import pytest

from minelab.papers import buffet2012_widening as W


def test_without_widening_the_final_arm_is_a_random_one():
    # every pull goes to a new arm; with ties broken at random the chosen p is U[0, 1]
    df = W.simulate(W.NONE_NAME, 100, 2_000, seed=3)
    assert (df["arms"] == 100).all()
    assert 0.45 <= df["p_at_random"].mean() <= 0.55
    # ties broken by the empirical mean pick a rewarded arm: p | one success ~ Beta(2, 1), mean 2/3
    assert 0.62 <= df["p_by_mean"].mean() <= 0.71


def test_widening_finds_good_arms_and_its_regret_falls():
    name = W.widening_name(1, 0.5)
    p = {b: W.simulate(name, b, 40, seed=3)["p_by_mean"].mean() for b in (100, 1_000, 10_000)}
    assert p[10_000] > 0.85
    regret = [1 - p[b] for b in (100, 1_000, 10_000)]
    assert regret[0] > regret[1] > regret[2]
    assert W.simulate(name, 10_000, 5, seed=3)["arms"].max() == math.ceil(10_000 ** 0.5)


def test_the_table_and_its_measured_rows():
    t = W.widening_table(10, seed=1, budgets=(10, 100), k_values=(1,), alpha_values=(0.5,))
    assert list(t["policy"].unique()) == [W.NONE_NAME, W.widening_name(1, 0.5), W.THRESHOLD_NAME]
    assert set(t["final"]) == set(W.FINAL_RULES) and (t["runs"] == 10).all()
    assert np.allclose(t["mean_p"] + t["mean_regret"], 1)
    assert (t["ci_low"] <= t["mean_p"]).all() and (t["mean_p"] <= t["ci_high"]).all()
    rows = W.measured_rows(W.widening_table(3, seed=1, budgets=(10_000, 100_000), k_values=(1,),
                                            alpha_values=(0.25,), threshold=False))
    quantities = {r["quantity"] for r in rows}
    assert W.p_quantity(W.NONE_NAME, 100_000) + W.VARIANT in quantities
    assert W.regret_quantity(W.widening_name(1, 0.25), 10_000) in quantities
    assert all(r["item"] == "Fig 3" and r["games"] == 3 for r in rows)


def test_every_registered_claim_has_its_measured_rows():
    from minelab import ledger, report

    pub = report.load_published(W.PAPER)
    pub = pub[pub["item"] == W.ITEM]
    assert len(pub) == 9
    t = W.widening_table(2, seed=0, budgets=W.MEASURED_BUDGETS)
    have = {(r["item"], r["quantity"]) for r in W.measured_rows(t)}
    for rec in pub.to_dict("records"):
        if rec["twin"].startswith("difference:"):
            a, b = ledger.parse_difference(rec["twin"])
            assert a in have and b in have, rec["quantity"]
        else:
            assert (W.ITEM, rec["quantity"]) in have, rec["quantity"]
    twins = report.load_reading_twins()
    for variant in twins.loc[twins["item"] == W.ITEM, "variant"]:
        assert (W.ITEM, variant) in have, variant


def test_same_seed_same_table_other_seed_other_table():
    a = W.widening_table(5, seed=7, budgets=(10, 100), k_values=(2,), alpha_values=(0.25,))
    b = W.widening_table(5, seed=7, budgets=(10, 100), k_values=(2,), alpha_values=(0.25,))
    c = W.widening_table(5, seed=8, budgets=(10, 100), k_values=(2,), alpha_values=(0.25,))
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["mean_p"], c["mean_p"])


@pytest.mark.parametrize("call, field", [
    (lambda: W.simulate(W.NONE_NAME, -10, 5), "budget"),
    (lambda: W.widening_table(5, budgets=(10, -1)), "budget"),
    (lambda: W.widening_table(5, budgets=(10,), alpha_values=(1.5,)), "alpha"),
    (lambda: W.widening_table(5, budgets=(10,), alpha_values=(0,)), "alpha"),
    (lambda: W.widening_table(5, budgets=(10,), k_values=(-1,)), "k"),
    (lambda: W.widening_table(0, budgets=(10,)), "runs"),
    (lambda: W.simulate(W.NONE_NAME, 10, 0), "runs"),
    (lambda: W.simulate("epsilon-greedy", 10, 5), "policy"),
    (lambda: W.simulate(W.NONE_NAME, 10, 5, seed=-1), "seed"),
])
def test_bad_parameters_name_the_field(call, field):
    with pytest.raises(ValueError, match=rf"^{field} must be"):
        call()
