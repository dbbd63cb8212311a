import math

import numpy as np
import pytest

from minelab import stats


def wilson_by_hand(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (517, 1000), (1, 100000)])
def test_wilson_matches_the_formula(k, n):
    lo, hi = stats.wilson(k, n)
    elo, ehi = wilson_by_hand(k, n)
    assert lo == pytest.approx(max(elo, 0), abs=1e-12) and hi == pytest.approx(min(ehi, 1), abs=1e-12)


@pytest.mark.parametrize("k, n", [(-1, 5), (6, 5), (1, -2)])
def test_wilson_bad_counts(k, n):
    with pytest.raises(ValueError, match="wins"):
        stats.wilson(k, n)


def test_win_rate_summary():
    s = stats.win_rate([True, False, True, True])
    assert s["games"] == 4 and s["wins"] == 3 and s["ci_low"] < 0.75 < s["ci_high"]


def test_chi2_matches_scipy_and_flags_a_bad_fit():
    rng = np.random.default_rng(0)
    obs = np.bincount(rng.integers(0, 6, 6000), minlength=6)
    good = stats.chi2_gof(obs, np.full(6, 1000.0))
    assert good["dof"] == 5 and good["statistic"] < good["critical"]
    assert good["critical"] == pytest.approx(11.0705, abs=1e-3)
    bad = stats.chi2_gof(obs, np.array([2, 1, 1, 1, 1, 1.0]))
    assert bad["statistic"] > bad["critical"] and bad["p_value"] < 1e-6


def test_chi2_pools_small_tail_bins():
    obs = np.array([50, 30, 15, 3, 1, 1])
    exp = np.array([50, 30, 14, 4, 1.5, 0.5])
    res = stats.chi2_gof(obs, exp, min_expected=5)
    assert res["bins"] == 4 and res["dof"] == 3  # 50 | 30 | 14 | 4 + 1.5 + 0.5


def test_chi2_bad_input():
    with pytest.raises(ValueError, match="equal length"):
        stats.chi2_gof([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="expected count is zero"):
        stats.chi2_gof([1, 2], [0, 3])


def test_mann_whitney_and_ecdf_and_two_proportion():
    assert stats.mann_whitney([1, 2, 3, 4], [10, 11, 12, 13])["p_value"] < 0.05
    x, f = stats.ecdf([3, 1, 2, 2])
    assert list(x) == [1, 2, 3] and list(f) == [0.25, 0.75, 1.0]
    assert stats.two_proportion(50, 100, 50, 100)["p_value"] == pytest.approx(1.0)
