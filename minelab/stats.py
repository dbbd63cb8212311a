"""Statistics, all from scipy.stats: Wilson intervals, t intervals over runs, chi-squared goodness of fit,
Mann-Whitney, ECDF, and the one-line win-rate summary used everywhere."""
from __future__ import annotations

import numpy as np


def _stats():
    """scipy.stats, imported on first use: it is a second of every process's start (a sweep
    worker, a notebook kernel), and most processes that import minelab never need it."""
    from scipy import stats
    return stats


def wilson(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a win rate (wins out of games), at `confidence`.

        >>> lo, hi = wilson(80, 100)
        >>> round(lo, 3), round(hi, 3)
        (0.711, 0.867)
    """
    wins, games = int(wins), int(games)
    if games < 0 or wins < 0 or wins > games:
        raise ValueError(f"need 0 <= wins <= games, got wins={wins}, games={games}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if games == 0:
        return (0.0, 1.0)
    ci = _stats().binomtest(wins, games).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def win_rate(won, confidence: float = 0.95) -> dict:
    """{games, wins, win_rate, ci_low, ci_high} from a boolean array of outcomes.

        >>> win_rate([True, False, True, True])["win_rate"]
        0.75
    """
    won = np.asarray(won, bool)
    games, wins = int(won.size), int(won.sum())
    low, high = wilson(wins, games, confidence)
    return {"games": games, "wins": wins, "win_rate": wins / games if games else float("nan"),
            "ci_low": low, "ci_high": high}


def chi2_gof(observed, expected, alpha: float = 0.05, min_expected: float = 0.0, ddof: int = 0) -> dict:
    """Pearson chi-squared goodness of fit.

    Bins are merged left to right until each expected count reaches `min_expected` (the
    usual rule of thumb is 5), a short remainder joining the last bin: suited to
    distributions whose small counts lie in the right tail; `expected` is rescaled to the observed total.
    Returns statistic, dof (bins - 1 - ddof), the critical value at `alpha`, p-value, bins.
    """
    obs = np.asarray(observed, float)
    exp = np.asarray(expected, float)
    if obs.shape != exp.shape or obs.ndim != 1:
        raise ValueError(f"observed and expected must be 1-d of equal length, got {obs.shape} and {exp.shape}")
    if np.any(exp < 0) or exp.sum() <= 0:
        raise ValueError("expected counts must be non-negative with a positive total")
    exp = exp * obs.sum() / exp.sum()
    if min_expected > 0:
        obs, exp = _pool_small_bins(obs, exp, min_expected)
    keep = exp > 0
    if np.any(obs[~keep] > 0):
        raise ValueError("an observed count falls in a bin whose expected count is zero")
    obs, exp = obs[keep], exp[keep]
    res = _stats().chisquare(obs, exp, ddof=ddof)
    dof = obs.size - 1 - ddof
    return {"statistic": float(res.statistic), "dof": int(dof), "p_value": float(res.pvalue),
            "critical": float(_stats().chi2.ppf(1 - alpha, dof)), "alpha": alpha, "bins": int(obs.size)}


def _pool_small_bins(obs, exp, min_expected):
    """Merge neighbouring bins until each expected count reaches min_expected."""
    out_o, out_e = [], []
    acc_o = acc_e = 0.0
    for o, e in zip(obs, exp):
        acc_o += o
        acc_e += e
        if acc_e >= min_expected:
            out_o.append(acc_o)
            out_e.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 or acc_o > 0:
        if out_e:
            out_o[-1] += acc_o
            out_e[-1] += acc_e
        else:
            out_o.append(acc_o)
            out_e.append(acc_e)
    return np.array(out_o), np.array(out_e)


def mann_whitney(x, y, alternative: str = "two-sided") -> dict:
    """Mann-Whitney U test of two samples (scipy): {statistic, p_value}.

        >>> mann_whitney([1, 2, 3], [4, 5, 6])["p_value"]
        0.1
    """
    res = _stats().mannwhitneyu(np.asarray(x), np.asarray(y), alternative=alternative)
    return {"statistic": float(res.statistic), "p_value": float(res.pvalue)}


def two_proportion(wins_a: int, games_a: int, wins_b: int, games_b: int) -> dict:
    """Two-sided test of equal win rates (Fisher's exact test via scipy): {odds_ratio, p_value}.

        >>> two_proportion(80, 100, 60, 100)["p_value"] < 0.01
        True
    """
    table = [[wins_a, games_a - wins_a], [wins_b, games_b - wins_b]]
    res = _stats().fisher_exact(table)
    return {"odds_ratio": float(res.statistic), "p_value": float(res.pvalue)}


def t_interval(values, confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): Student's t interval of the mean of independent runs (learners
    whose games teach each other: one run is one observation). One run: (x, nan, nan).

        >>> m, lo, hi = t_interval([0.30, 0.32, 0.31])
        >>> round(m, 3), round(lo, 3), round(hi, 3)
        (0.31, 0.285, 0.335)
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.isfinite(x).all():
        raise ValueError(f"values must be a non-empty 1-d array of finite numbers, got {values!r}")
    mean = float(x.mean())
    if x.size == 1:
        return mean, float("nan"), float("nan")
    half = float(_stats().t.ppf(0.5 + confidence / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return mean, mean - half, mean + half


def ecdf(sample) -> tuple[np.ndarray, np.ndarray]:
    """(x, F(x)) of the empirical CDF of `sample`.

        >>> x, f = ecdf([3, 1, 2])
        >>> x.tolist(), f.round(2).tolist()
        ([1.0, 2.0, 3.0], [0.33, 0.67, 1.0])
    """
    res = _stats().ecdf(np.asarray(sample, float))
    return res.cdf.quantiles, res.cdf.probabilities
