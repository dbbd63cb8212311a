"""The blog's engine checks (section 6 of the foundation issue) at a fixed seed."""
import matplotlib

matplotlib.use("Agg")
import math  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import minelab as ml  # noqa: E402
from minelab.engine import begin_game, deal_first_click, new_game_state  # noqa: E402
from minelab.papers import antimatroid2012 as paper  # noqa: E402
from minelab.stats import chi2_gof  # noqa: E402


@pytest.fixture(autouse=True)
def results_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))


def test_mine_placement_is_uniform():
    res = paper.check_mine_uniformity(boards=60_000, seed=0, executor="serial")
    got = {r["quantity"]: r["value"] for r in res.measured}
    assert got["degrees of freedom"] == 80
    assert got["chi2 critical 0.05"] == pytest.approx(101.88, abs=0.01)
    assert got["chi2 statistic"] < got["chi2 critical 0.05"]
    assert res.table["mines"].sum() == 60_000 * 10
    # the statistic's interval is its central 95% range under uniformity: (71/80) chi2(80)
    stat = next(r for r in res.measured if r["quantity"] == "chi2 statistic")
    assert (stat["ci_low"], stat["ci_high"]) == pytest.approx(paper.uniformity_null_range())
    assert stat["ci_low"] < 71 < stat["ci_high"] and "central 95% range" in stat["note"]
    assert got[f"chi2 critical 0.05 [variant: {paper.TRUNCATED}]"] == 101.87


def test_uniformity_null_range_is_the_scaled_chi2():
    """Boards of exactly 10 mines: Pearson's statistic has mean 81 (1 - 10/81) = 71."""
    low, high = paper.uniformity_null_range()
    scale = 71 / 80
    assert (low, high) == pytest.approx((scale * 57.153, scale * 106.629), abs=0.01)


def test_uniformity_check_can_fail():
    """The check has teeth: a sampler that favours one corner by 30% is rejected."""
    rng = np.random.default_rng(0)
    weights = np.ones(81)
    weights[0] = 1.3
    counts = np.zeros(81)
    for _ in range(20_000):
        counts[rng.choice(81, size=10, replace=False, p=weights / weights.sum())] += 1
    res = chi2_gof(counts, np.ones(81))
    assert res["statistic"] > res["critical"]


def test_safe_rule_is_uniform_over_the_other_cells():
    """Under `safe`, the mines are uniform over every cell but the first click."""
    level = ml.Level(9, 9, 10, "safe")
    gs = new_game_state(level)
    rng = np.random.default_rng(1)
    counts = np.zeros(81)
    for _ in range(20_000):
        begin_game(gs, rng)
        deal_first_click(gs, 40, rng)
        counts += gs.mine
    assert counts[40] == 0
    others = np.delete(counts, 40)
    res = chi2_gof(others, np.ones(80))
    assert res["statistic"] < res["critical"]


def test_clicks_before_mine_follow_the_law():
    res = paper.check_clicks_before_mine(games=60_000, seed=0, executor="serial", null_draws=2_000)
    got = {r["quantity"]: r["value"] for r in res.measured}
    assert got["chi2 statistic"] < got["chi2 critical 0.05"]
    rows = {r["quantity"]: r for r in res.measured}
    k = int(got["degrees of freedom"])
    assert (rows["chi2 statistic"]["ci_low"], rows["chi2 statistic"]["ci_high"]) == pytest.approx(
        paper.chi2_null_range(k))
    # the blog's bins, beside: one per count 0..70, none pooled: k = 70 and its critical value
    tag = f" [variant: {paper.BLOG_BINS}]"
    assert got["degrees of freedom" + tag] == 70
    assert got["chi2 critical 0.05" + tag] == pytest.approx(90.53, abs=0.005)
    v = rows["chi2 statistic" + tag]
    # its null range (Monte Carlo) is not chi2(70)'s: empty tail bins pull the bulk down, rare hits push the top up
    low, high = paper.chi2_null_range(70)
    assert v["ci_low"] < low and v["ci_high"] > high and "Monte Carlo" in v["note"]
    flood = res.table[res.table["flood"]]
    no_flood = res.table[~res.table["flood"]]
    assert flood["observed"].sum() == no_flood["observed"].sum() == 60_000
    # flood fill needs fewer clicks: its distribution is stochastically smaller
    mean = lambda t: (t["safe_clicks"] * t["observed"]).sum() / t["observed"].sum()  # noqa: E731
    assert mean(flood) < mean(no_flood)


def test_blog_bins_and_the_monte_carlo_null():
    o, e = paper.blog_bins(np.arange(72.0), np.ones(72))
    assert o.size == e.size == 71 and o[-1] == 70 + 71 and e[-1] == 2
    # with ample expected counts the Monte Carlo null is chi2(bins - 1)
    draws = paper.monte_carlo_null(np.ones(6), 60_000, draws=4_000, seed=0)
    assert paper.central_range(draws) == pytest.approx(paper.chi2_null_range(5), rel=0.08)


def test_law_is_the_negative_hypergeometric():
    law = paper.clicks_before_mine_law(ml.Level(9, 9, 10, "none"))
    # P(first click is a mine) = 10/81; P(all 71 safe first) = 1 / C(81, 10)
    assert law.pmf(0) == pytest.approx(10 / 81)
    assert law.pmf(71) == pytest.approx(1 / math.comb(81, 10))
    assert law.pmf(np.arange(72)).sum() == pytest.approx(1.0)


def test_success_rates_have_intervals_and_fall_with_mines():
    res = paper.fig_success_rates(games=750, runs=2, seed=0, executor="serial", mine_counts=(1, 3, 6))
    t = res.table
    assert list(dict.fromkeys(t["model"])) == list(paper.MODELS) and (t["games"] == 1500).all()
    assert ((t["ci_low"] <= t["win_rate"]) & (t["win_rate"] <= t["ci_high"])).all()
    for _, part in t.groupby("model"):
        assert part.sort_values("mines")["win_rate"].is_monotonic_decreasing
    learners = dict(zip(t["model"], t["learner"]))
    assert learners == {"random": False, "marginal": True, "conditional": True, "graphical": True,
                        "semi-deterministic": False, "semi-deterministic/conditional": True}
    variant = t[t["model"] == "semi-deterministic/conditional"]
    assert (variant["agent"] == "semi-deterministic").all() and variant["guesses"].notna().all()
    assert t[t["model"] == "graphical"]["guesses"].isna().all()
    items = {r["item"] for r in res.measured}
    assert "Semi-deterministic (conditional fallback) model" in items and "Graphical model" in items
    # the semi-deterministic model solves what the others guess
    at3 = t[t["mines"] == 3].set_index("model")["win_rate"]
    assert at3["semi-deterministic"] > max(at3[m] for m in ("random", "marginal", "conditional", "graphical"))
    # one mine on 9x9 under the none rule: a first-click loss has probability 1/81
    one = t[(t["model"] == "random") & (t["mines"] == 1)].iloc[0]
    assert one["win_rate"] < 80 / 81


def test_success_rates_intervals_follow_independence():
    """Random's games are iid: Wilson. Marginal's share its memory: t-interval over runs."""
    res = paper.fig_success_rates(games=400, runs=3, seed=1, executor="serial", mine_counts=(2,),
                                  models=("random", "marginal"))
    assert (res.table["runs"] == 3).all()
    notes = {r["item"]: r["note"] for r in res.measured}
    assert "Wilson" in notes["Random model"] and "t-interval over 3 runs" in notes["Marginal model"]
    row = res.table[res.table["model"] == "marginal"].iloc[0]
    marginal = [r for r in res.measured if r["item"] == "Marginal model"][0]
    assert (marginal["ci_low"], marginal["ci_high"]) == (row["runs_ci_low"], row["runs_ci_high"])
    with pytest.raises(ValueError, match="runs"):
        paper.fig_success_rates(games=10, runs=1, executor="serial")
    with pytest.raises(ValueError, match="no-such-model"):
        paper.fig_success_rates(games=10, runs=2, executor="serial", models=("no-such-model",))


# --------------------------------------------------------------------------- the blog's claims
def synthetic_result(rates, runs=8, games=1000, sd=0.004):
    """A fig_success_rates-like result from {model: [rate at 1..10 mines]}."""
    learners = {"random": False, "semi-deterministic": False}
    rows = []
    for model, values in rates.items():
        for m, p in enumerate(values, start=1):
            rows.append({"model": model, "agent": model, "level": f"9x9x{m}:none", "mines": m,
                         "games": runs * games, "wins": int(p * runs * games), "win_rate": p, "ci_low": p, "ci_high": p,
                         "runs": runs, "runs_sd": sd, "runs_ci_low": p, "runs_ci_high": p,
                         "guesses": 1.0 + 0.2 * m if model == "semi-deterministic" else np.nan,
                         "learner": learners.get(model, True)})
    return paper.PaperResult("fig_success_rates", None, pd.DataFrame(rows))


def blog_like(peak_conditional=3, peak_semi=7):
    """Rates that satisfy every claim of the blog (peaks where given)."""
    base = np.array([0.78, 0.48, 0.27, 0.11, 0.04, 0.02, 0.004, 0.002, 0.001, 0.0])
    cond = base + np.array([0.02 if m != peak_conditional else 0.05 for m in range(1, 11)])
    graph = cond + np.array([0.0] * 6 + [0.02, 0.02, 0.02, 0.02])
    semi = graph + np.array([0.1 if m != peak_semi else 0.25 for m in range(1, 11)])
    return {"random": base, "marginal": base + 0.001, "conditional": cond, "graphical": graph,
            "semi-deterministic": semi}


def test_claims_carry_evidence_and_leave_the_verdict_to_the_ledger():
    claims = paper.claims_table(synthetic_result(blog_like()))
    assert len(claims) == 8 and list(claims.columns) == ["claim", "evidence", "ledger"]
    # the ledger judges a claim only through published rows; the fallback claim has none
    assert claims.set_index("claim").loc["With more mines, Semi-deterministic relies more on its fallback",
                                         "ledger"] == ""
    text = paper.claims_text(synthetic_result(blog_like()))
    assert text.count("\n* **") == 8 and "holds" not in text
    assert "No ledger row reads it as numbers" in text


def test_claims_evidence_follows_the_numbers():
    evidence = paper.claims_table(synthetic_result(blog_like(peak_conditional=6, peak_semi=2)))
    evidence = dict(zip(evidence["claim"], evidence["evidence"]))
    assert "largest gain +4.9 points" in evidence["Conditional's gain over Marginal is largest at 3 mines"]
    assert "at 6 mines" in evidence["Conditional's gain over Marginal is largest at 3 mines"]
    assert "at 2 mines" in evidence["Semi-deterministic's gain over Graphical is largest at 7 mines"]
    rates = blog_like()
    rates["marginal"] = rates["random"] + 0.05
    rates["conditional"] = np.minimum(rates["marginal"] + 0.5, 0.99)
    claims = paper.claims_table(synthetic_result(rates))
    evidence = dict(zip(claims["claim"], claims["evidence"]))
    assert evidence["Random and Marginal are on par (the improvement is negligible)"].startswith(
        "significantly different at 10 of 10 mine counts")
    assert "of the Semi-deterministic model's largest gain over Marginal" in \
        evidence["Conditional is only slightly better than Marginal"]


def test_largest_gain_rows_name_the_argmax_and_the_counts_not_excluded():
    t = synthetic_result(blog_like(peak_conditional=3, peak_semi=7)).table
    assert paper.largest_gain(t, "conditional", "marginal") == (3, 3, 3)
    assert paper.largest_gain(t, "semi-deterministic", "graphical") == (7, 7, 7)
    assert paper.largest_gain(t, "semi-deterministic/conditional", "graphical") is None
    rows = {r["quantity"]: r for r in paper._argmax_measured(t)}
    assert len(rows) == 2 and rows[paper.ARGMAX_GAINS[0][3]]["value"] == 3
    # two mine counts within noise of each other are both not excluded
    rates = blog_like()
    rates["semi-deterministic"] = rates["graphical"] + np.r_[[0.1] * 6, 0.25, 0.2499, 0.1, 0.1]
    top, low, high = paper.largest_gain(synthetic_result(rates).table, "semi-deterministic", "graphical")
    assert top == 7 and (low, high) == (7, 8)


def test_claims_skip_models_not_played():
    rates = blog_like()
    claims = paper.claims_table(synthetic_result({m: rates[m] for m in ("random", "marginal")}))
    assert list(claims["claim"]) == ["Random and Marginal are on par (the improvement is negligible)"]


def test_differences_carry_intervals():
    res = synthetic_result(blog_like())
    (d,) = [x for x in paper.differences(res.table, "conditional", "marginal") if x.mines == 3]
    assert d.low < d.diff < d.high and d.diff == pytest.approx(0.049)
