"""Buffet, Lee, Lin & Teytaud (2012), Fig 3: the bandit in which progressive widening is necessary.

The caption: "each decision leads to a reward which is a Bernoulli random variable with
parameter p, uniformly drawn in [0, 1]. There are infinitely many possible decisions.
Without progressive widening, all moves are tested just once, and the final arm is chosen
randomly, whereas a progressive widening as in [15] is mathematically consistent" ([15]:
Wang, Audibert & Munos 2008, infinitely many-armed bandits).

The experiment. A run is one bandit problem with a budget of n pulls: each arm the agent
adds gets its own p ~ U[0, 1], a pull of arm i gives 1 with probability p_i, else 0. After
the n pulls the agent names a final arm; the run records that arm's true p and its simple
regret 1 - p (sup p = 1). Every policy chooses among the arms it has added by UCB1: an
untried arm first (its index is infinite; untried arms in the order added), else the arm
maximising mean_i + sqrt(2 ln t / n_i), t the pulls made so far, n_i the arm's pulls, ties to
the arm added first. The exploration constant (2 under the root) is fixed. The policies
(POLICIES) differ only in how many arms they consider before the t-th pull (t = 1..n):

* "UCB, every new arm once": infinitely many arms, so t arms: every pull goes to a new,
  untried arm (the caption's "all moves are tested just once").
* "progressive widening k=<k> alpha=<alpha>": max(1, ceil(k t^alpha)) arms (at most t), on the grid
  k in {1, 2} x alpha in {0.25, 0.5} (fixed before any run; alpha = 0.5 is [15]'s number of
  arms for a uniform prior, n^(beta/(beta+1)) with beta = 1).
* "widening on a reward threshold": a rule depending on the rewards (the conclusion's
  "rules depending on rewards obtained"): a new arm is added before pull t when there is
  none yet or when the best empirical mean among the current arms is below 1 - 1/sqrt(t),
  a threshold that rises towards 1 with t.

The final arm (FINAL_RULES): the most pulled arm, ties broken by the higher empirical mean,
then by the arm added first ("ties by mean", minelab's rule). Beside it, from the same
pulls, the registered reading of the caption's "chosen randomly" ("ties at random": ties
among the most pulled arms broken uniformly at random; data/published/readings.csv).

Randomness: run r of (policy, budget) is seeded by `minelab.sweep.derive_seed(seed,
{paper, figure, policy, budget, run})`; that seed makes one numpy Generator (PCG64) which
the numba kernel draws from (every new arm's p, every reward, then the random tie break):
the same seed gives the same numbers. The runs are independent, so each (policy, budget)
gives a mean over runs with a 95% t-interval (`minelab.stats.t_interval`). The caption's
statements are about the expected choice, so the measured rows carry the runs as `games`
(independent trials, the interval of the mean is judged), not as `runs`.
"""
from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np
import pandas as pd
from numba import njit

from ..report import PaperResult
from ..stats import t_interval
from ..sweep import derive_seed
from .buffet2012 import NOTEBOOK, PAPER

ITEM = "Fig 3"
NO_WIDENING, POLYNOMIAL, THRESHOLD = 0, 1, 2  # policy kinds of the kernel
NONE_NAME = "UCB, every new arm once"
THRESHOLD_NAME = "widening on a reward threshold"
GRID_K = (1, 2)
GRID_ALPHA = (0.25, 0.5)


def widening_name(k: float, alpha: float) -> str:
    """The name of the progressive widening with max(1, ceil(k t^alpha)) arms."""
    return f"progressive widening k={k:g} alpha={alpha:g}"


# (name, kind, k, alpha): the policies of Fig 3, in the order drawn
POLICIES = ((NONE_NAME, NO_WIDENING, math.nan, math.nan),
            *((widening_name(k, a), POLYNOMIAL, float(k), a) for k in GRID_K for a in GRID_ALPHA),
            (THRESHOLD_NAME, THRESHOLD, math.nan, math.nan))
POLICY_NAMES = tuple(p[0] for p in POLICIES)
CLAIMED = POLICY_NAMES[:-1]  # the policies the caption's statements are about (the registered claims)
BUDGETS = (10, 100, 1_000, 10_000, 100_000)
MEASURED_BUDGETS = (10_000, 100_000)  # budgets whose numbers go to the ledger
FINAL_RULES = ("ties by mean", "ties at random")
VARIANT = " [variant: final arm's ties at random]"  # the registered reading's measured quantities
RANDOM_P = 0.5  # mean p of an arm chosen at random (the caption's reference)

# Run sizes per profile: independent runs per (policy, budget). quick: 1,000 runs, about
# three minutes of one core for every policy and budget (the widening policies at 100,000
# pulls dominate: they scan their few hundred arms at every pull); paper: ten times that.
SIZES = {
    "smoke": {"widening_runs": 20},
    "quick": {"widening_runs": 1_000},
    "paper": {"widening_runs": 10_000},
}


class Arms(NamedTuple):
    """The arms of one run (capacity: the budget; the first n_arms are in use)."""

    p: np.ndarray  # float64: each arm's true Bernoulli parameter
    pulls: np.ndarray  # int64: pulls of each arm
    wins: np.ndarray  # int64: rewards 1 of each arm
    inv_sqrt: np.ndarray  # float64: 1 / sqrt(pulls), the UCB bonus's per-arm factor


def new_arms(budget: int) -> Arms:
    """Arrays for a run of `budget` pulls (never more arms than pulls)."""
    return Arms(np.zeros(budget), np.zeros(budget, np.int64), np.zeros(budget, np.int64), np.zeros(budget))


@njit(cache=True)
def _arms_wanted(kind, k, alpha, t, n_arms, arms):
    """How many arms the policy considers before pull t (1-based; never more than t: an
    arm beyond the t-th could not be pulled before the next pull adds it anyway)."""
    if kind == NO_WIDENING:
        return t
    if kind == POLYNOMIAL:
        return min(t, max(1, int(math.ceil(k * t ** alpha))))
    if n_arms == 0:
        return 1
    best = 0.0
    for i in range(n_arms):
        m = arms.wins[i] / arms.pulls[i]
        if m > best:
            best = m
    return n_arms + 1 if best < 1.0 - 1.0 / math.sqrt(t) else n_arms


@njit(cache=True)
def _ucb_arm(arms, n_arms, t):
    """The arm of largest UCB1 index among the first n_arms (all tried); ties to the first."""
    c = math.sqrt(2.0 * math.log(t - 1))  # t - 1 pulls made so far
    best, best_i = -1.0, 0
    for i in range(n_arms):
        v = arms.wins[i] / arms.pulls[i] + c * arms.inv_sqrt[i]
        if v > best:
            best, best_i = v, i
    return best_i


@njit(cache=True)
def _final_arms(arms, n_arms, rng):
    """(ties by mean, ties at random): the most pulled arm under each tie rule."""
    top = 0
    for i in range(n_arms):
        if arms.pulls[i] > top:
            top = arms.pulls[i]
    by_mean, seen, at_random = -1, 0, -1
    for i in range(n_arms):
        if arms.pulls[i] != top:
            continue
        if by_mean < 0 or arms.wins[i] > arms.wins[by_mean]:  # equal pulls: more wins = higher mean
            by_mean = i
        seen += 1
        if rng.random() * seen < 1.0:  # reservoir sampling: each tied arm kept with probability 1/seen
            at_random = i
    return by_mean, at_random


@njit(cache=True)
def play_run(kind, k, alpha, budget, rng, arms):
    """One run of `budget` pulls: (true p of the final arm by "ties by mean", by "ties at
    random", arms added). Draws every new arm's p and every reward from `rng` (a numpy
    Generator), in the order of the pulls, then the random tie break."""
    n_arms = 0
    tried = 0
    for t in range(1, budget + 1):
        want = _arms_wanted(kind, k, alpha, t, n_arms, arms)
        while n_arms < want:
            arms.p[n_arms] = rng.random()
            arms.pulls[n_arms] = 0
            arms.wins[n_arms] = 0
            n_arms += 1
        if tried < n_arms:  # an untried arm: infinite index
            i = tried
            tried += 1
        else:
            i = _ucb_arm(arms, n_arms, t)
        arms.pulls[i] += 1
        if rng.random() < arms.p[i]:
            arms.wins[i] += 1
        arms.inv_sqrt[i] = 1.0 / math.sqrt(arms.pulls[i])
    by_mean, at_random = _final_arms(arms, n_arms, rng)
    return arms.p[by_mean], arms.p[at_random], n_arms


def run_seed(seed: int, policy: str, budget: int, run: int) -> int:
    """The seed of run `run` of (policy, budget) under the root `seed`."""
    return derive_seed(seed, {"paper": PAPER, "figure": ITEM, "policy": policy, "budget": int(budget),
                              "run": int(run)})


def simulate(policy: str, budget: int, runs: int, seed: int = 0) -> pd.DataFrame:
    """`runs` independent runs of one policy of POLICIES at one budget: one row per run
    with run, p_by_mean, p_at_random (the final arm's true p under each tie rule) and arms
    (arms added)."""
    spec = {p[0]: p for p in POLICIES}
    _check(policy in spec, "policy", policy, f"one of {', '.join(POLICY_NAMES)}")
    budget, runs, seed = _positive("budget", budget), _positive("runs", runs), _seed(seed)
    return _simulate_spec(spec[policy], budget, runs, seed)


def _check(ok: bool, field: str, value, what: str) -> None:
    if not ok:
        raise ValueError(f"{field} must be {what}, got {value!r}")


def _positive(field: str, value) -> int:
    _check(isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1, field, value,
           "a positive integer")
    return int(value)


def _seed(seed) -> int:
    _check(isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0, "seed", seed,
           "a non-negative integer")
    return int(seed)


def _policies(k_values, alpha_values, threshold: bool) -> list[tuple]:
    """The policies run: no widening, the grid k_values x alpha_values, the threshold rule."""
    for k in k_values:
        _check(isinstance(k, numbers.Real) and not isinstance(k, bool) and k > 0, "k", k, "a positive number")
    for a in alpha_values:
        _check(isinstance(a, numbers.Real) and not isinstance(a, bool) and 0 < a <= 1, "alpha", a,
               "a number in (0, 1]")
    grid = [(widening_name(k, a), POLYNOMIAL, float(k), float(a)) for k in k_values for a in alpha_values]
    return [POLICIES[0], *grid] + ([POLICIES[-1]] if threshold else [])


def widening_table(runs: int, seed: int = 0, budgets=BUDGETS, k_values=GRID_K, alpha_values=GRID_ALPHA,
                   threshold: bool = True) -> pd.DataFrame:
    """The tidy table of Fig 3: one row per (policy, budget, final rule) with policy, k,
    alpha, budget, final, runs, mean_p, ci_low, ci_high (95% t-interval of the mean over
    runs), mean_regret, regret_ci_low, regret_ci_high and mean_arms (arms added)."""
    runs, seed = _positive("runs", runs), _seed(seed)
    _check(not isinstance(budgets, (str, bytes)) and len(list(budgets)) > 0, "budgets", budgets,
           "a non-empty list of positive integers")
    budgets = [_positive("budget", b) for b in budgets]
    rows = []
    for name, kind, k, alpha in _policies(k_values, alpha_values, threshold):
        spec = (name, kind, k, alpha)
        for b in budgets:
            df = _simulate_spec(spec, b, runs, seed)
            for rule, col in zip(FINAL_RULES, ("p_by_mean", "p_at_random")):
                rows.append({"policy": name, "k": k, "alpha": alpha, "budget": b, "final": rule, "runs": runs,
                             **_summary(df[col].to_numpy()), "mean_arms": float(df["arms"].mean())})
    return pd.DataFrame(rows)


def _simulate_spec(spec: tuple, budget: int, runs: int, seed: int) -> pd.DataFrame:
    """`simulate` for a policy given as (name, kind, k, alpha), also one off the grid."""
    name, kind, k, alpha = spec
    arms = new_arms(budget)
    out = np.zeros((runs, 3))
    for r in range(runs):
        rng = np.random.Generator(np.random.PCG64(run_seed(seed, name, budget, r)))
        out[r] = play_run(kind, k, alpha, budget, rng, arms)
    return pd.DataFrame({"run": np.arange(runs), "p_by_mean": out[:, 0], "p_at_random": out[:, 1],
                         "arms": out[:, 2].astype(np.int64)})


def _summary(p: np.ndarray) -> dict:
    """Mean p and mean regret of the runs, each with its 95% t-interval (nan for one run)."""
    mean, lo, hi = t_interval(p)
    regret, r_lo, r_hi = t_interval(1.0 - p)
    return {"mean_p": mean, "ci_low": lo, "ci_high": hi, "mean_regret": regret, "regret_ci_low": r_lo,
            "regret_ci_high": r_hi}


def p_quantity(policy: str, budget: int) -> str:
    """The ledger quantity of the mean p of the chosen arm (item Fig 3)."""
    return f"mean p of the chosen arm, {policy}, {budget:,} pulls"


def regret_quantity(policy: str, budget: int) -> str:
    """The ledger quantity of the mean simple regret (item Fig 3)."""
    return f"simple regret, {policy}, {budget:,} pulls"


def measured_rows(table: pd.DataFrame) -> list[dict]:
    """The ledger's rows of the table: at MEASURED_BUDGETS, every policy's mean p and mean
    regret under minelab's final rule, and at the largest of them the mean p under the
    registered reading (ties at random) for the policies the caption's claims are about."""
    out = []
    note = ("mean over independent runs (one bandit problem each, counted as games), 95% t-interval of the mean; "
            "final arm: the most pulled, ties {}")
    for r in table.itertuples():
        if r.budget not in MEASURED_BUDGETS:
            continue
        common = {"item": ITEM, "games": int(r.runs)}
        if r.final == FINAL_RULES[0]:
            text = note.format("by the higher empirical mean, then the first added")
            out.append({**common, "quantity": p_quantity(r.policy, r.budget), "value": r.mean_p,
                        "ci_low": r.ci_low, "ci_high": r.ci_high, "note": text})
            out.append({**common, "quantity": regret_quantity(r.policy, r.budget), "value": r.mean_regret,
                        "ci_low": r.regret_ci_low, "ci_high": r.regret_ci_high, "note": text})
        elif r.budget == max(MEASURED_BUDGETS) and r.policy in CLAIMED:
            out.append({**common, "quantity": p_quantity(r.policy, r.budget) + VARIANT, "value": r.mean_p,
                        "ci_low": r.ci_low, "ci_high": r.ci_high, "note": note.format("at random")})
    return out


def widening_figure(table: pd.DataFrame, final: str = FINAL_RULES[0]):
    """Mean p of the chosen arm (left) and mean simple regret (right) against the budget
    (log x), one line per policy under the final rule `final`, 95% t-intervals as bands,
    the mean p of an arm chosen at random (0.5) as a labelled reference; on the left, a
    thin line for no widening under the other tie rule (where the tie rule matters)."""
    import matplotlib.pyplot as plt

    t = table[table["final"] == final]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name in dict.fromkeys(t["policy"]):
        d = t[t["policy"] == name].sort_values("budget")
        style = {"ls": "--"} if name == NONE_NAME else {"ls": ":"} if name == THRESHOLD_NAME else {}
        line, = left.plot(d["budget"], d["mean_p"], marker="o", ms=3, label=name, **style)
        left.fill_between(d["budget"], d["ci_low"], d["ci_high"], color=line.get_color(), alpha=0.2)
        right.plot(d["budget"], d["mean_regret"], marker="o", ms=3, color=line.get_color(), **style)
        right.fill_between(d["budget"], d["regret_ci_low"], d["regret_ci_high"], color=line.get_color(), alpha=0.2)
    other = table[(table["final"] != final) & (table["policy"] == NONE_NAME)].sort_values("budget")
    if len(other):  # no widening under the other tie rule: the one where the rule matters
        left.plot(other["budget"], other["mean_p"], color="black", lw=0.8, ls="--", alpha=0.6,
                  label=f"{NONE_NAME} ({other['final'].iloc[0]})")
    for ax, y, text in ((left, RANDOM_P, "0.5: an arm chosen at random (caption)"),
                        (right, 1 - RANDOM_P, "regret of an arm chosen at random")):
        ax.axhline(y, color="grey", lw=1)
        ax.annotate(text, (t["budget"].min(), y), xytext=(0, 4), textcoords="offset points", fontsize=8,
                    color="grey")
    for ax, what in ((left, "mean p of the chosen arm"), (right, "mean simple regret (1 - p)")):
        ax.set_xscale("log")
        ax.set_xlabel("budget (pulls)")
        ax.set_ylabel(what)
        ax.grid(alpha=0.3)
    right.set_yscale("log")
    left.set_ylim(0, 1.02)
    runs = int(t["runs"].iloc[0]) if len(t) else 0
    fig.suptitle(f"Fig 3: Bernoulli arms with p ~ U[0, 1], final arm = most pulled ({final}); "
                 f"{runs:,} runs per point, 95% t-intervals", fontsize=10)
    left.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def fig03_progressive_widening(widening_runs: int = SIZES["quick"]["widening_runs"], seed: int = 0,
                               budgets=BUDGETS) -> PaperResult:
    """Fig 3: the infinitely many-armed Bernoulli bandit of the caption, every policy of
    POLICIES at every budget, `widening_runs` independent runs each (module docstring).
    Returns the figure (mean p and simple regret against the budget), the tidy table
    (`widening_table`) and the measured rows of the caption's claims (`measured_rows`)."""
    table = widening_table(widening_runs, seed, budgets)
    return PaperResult("fig03_progressive_widening", widening_figure(table), table, measured_rows(table))


__all__ = ["POLICIES", "POLICY_NAMES", "BUDGETS", "SIZES", "FINAL_RULES", "Arms", "new_arms", "play_run", "simulate",
           "widening_table", "measured_rows", "widening_figure", "fig03_progressive_widening", "p_quantity",
           "regret_quantity", "run_seed", "NOTEBOOK", "PAPER"]
