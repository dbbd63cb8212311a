"""Gardea, Koontz & Silva (2015): the learned models (§III-A to III-C and §IV).

minelab trains every learner of the paper from nothing (`minelab.agents.gardea`) and
plays it frozen: the local classifiers (`gardea-logreg`, `gardea-svm`) and the global
kernel ridge regression (`gardea-krr`) on the §III-B training data, simplified
Q-learning (`gardea-q`, Algorithm 3 by default) by its own training games. Beside them:
the CSP (`gardea-csp`), the oracle that looks the mines up a fixed share of the time
(`oracle` with `lookup`), and the "average beginning player" the paper quotes (35% on
8x8), drawn as a labelled published reference.

Figures (unnumbered in the paper; each function named after what it shows, run sizes
as keyword defaults, returning a `PaperResult`):

* `fig_board_size`: win rate, mean % of the board uncovered and test accuracy of the
  four approaches (and Q-learning's Algorithm 2) on 4x4 .. 8x8 at the 10/64 density of
  8x8 with 10 mines.
* `fig_mine_density`: the same metrics over mine counts on 4x4.
* `fig_classifier_features`: the local classifiers against their window radius (8, 24,
  48 features): win rate, % uncovered, train and test accuracy (the paper's "bias").
* `fig_regression_iterations`: kernel ridge regression on 4x4 with 3 mines, test
  accuracy and win rate against the training-set size.

Our readings where the paper is silent:
* Mine counts of the small boards are not given: we keep the 10/64 density of the CSP
  board-size figure (4x4x3 as in the regression figure, 5x5x4, 6x6x6, 7x7x8, 8x8x10).
* Each board size gets its own model, trained on that level (the paper: "we cannot train
  our algorithm on large boards", so training is per board).
* "Test accuracy" for every approach is *move accuracy*: the share of held-out positions
  (from the §III-B generator, a seed no training saw) in which the model's move is a cell
  of minimum exact mine probability. The classifiers' label accuracy on held-out samples
  (the paper's accuracy "on individual board states") is shown in the features figure.
* A learner's games share its model, so its intervals are t-intervals over `runs`
  independently trained models (each run a new training seed, the same boards for every
  approach), never narrower than the Wilson interval of all its games (runs that all lose
  have no spread, not no uncertainty); the CSP's and the oracle's games are independent:
  Wilson intervals. Such a measured row carries `runs` (the ledger then holds the paper's
  one run against one more run of ours).

Readings of what the text leaves open, each registered in data/published/readings.csv
with its support and scope before it ran, and judged by the ledger on its whole scope
(figures/REPORT.md lists each with how many of its numbers it reproduces):
* Mine counts: the one small-board mine count the paper gives for its learners, 4x4
  with 3 mines (3/16), kept on 5x5 and 6x6 (5x5x5, 6x6x7) instead of the CSP's 10/64
  (`variant_board_density`, the same seeds and budgets).
* Algorithm 2, the paper's initial Q-learner, beside its improved Algorithm 3.
* The training generator's perimeter probability (the text's "some fixed probability";
  minelab uses 0.9) at 0.5 (`variant_perimeter_prob`).
* The supervised learners scoring every covered cell (`targets="covered"`), Algorithm 1
  restricting nothing to the perimeter (`variant_targets_covered`).
Not registered: kernel ridge regression's linear kernel (the text writes K_ij = <x_i,
x_j>; `gardea-krr` has no option for it yet) and the training budgets, which the paper
does not state: a budget picked to fit would be a reading chosen to match.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..agents import make_agent
from ..agents.gardea import TrainedAgent
from ..levels import Level
from ..report import PaperResult
from ..runner import play
from ..stats import wilson
from ..sweep import derive_seed, run_sweep, task_kind
from ..tasks import check_games
from ..ledger import AGREES, BOUND_MET
from . import judged_lines, ledger_rows, ledger_verdicts, tally
from .gardea2015 import AGENT_PARAMS as CSP_PARAMS, _published, square_level
from .gardea2015 import PAPER  # noqa: F401  (the notebook's paper.PAPER)

MODULE = __name__
NOTEBOOK = "gardea2015_learners.ipynb"
APPROACHES = {  # label -> agent
    "logistic regression": "gardea-logreg",
    "weighted SVM": "gardea-svm",
    "kernel ridge regression": "gardea-krr",
    "Q-learning": "gardea-q",
}
# Algorithm 2, the paper's first Q-learner ("moderate success ... very slow at exploring"),
# drawn beside the four approaches where it is cheap: over board sizes.
VARIANTS = {"Q-learning, Algorithm 2": ("gardea-q", {"algorithm": 2})}
BUDGET = {"gardea-logreg": "samples", "gardea-svm": "samples", "gardea-krr": "krr_states", "gardea-q": "q_games"}
CSP = ("CSP", "gardea-csp")
SIDES = (4, 5, 6, 7, 8)
ORACLE_LOOKUPS = (0.9, 0.95, 0.99)
DENSITY_SIDE = 4
DENSITY_MINES = (1, 2, 3, 4, 5, 6)
RADII = (1, 2, 3)
FEATURES_LEVEL = "8x8x10"
KRR_LEVEL = "4x4x3"
KRR_SIZES = (50, 100, 200, 400, 800, 1600)
# The other mine-count reading of the small boards (see the module docstring): the 3/16
# density of the one small board whose mines the paper states for its learners (4x4 with
# 3 mines, the regression figure): 5x5x5 and 6x6x7, where minelab's 10/64 gives 5x5x4 and
# 6x6x6 (both give 4x4x3). Run beside by `variant_board_density`.
KRR_DENSITY = 3 / 16
DENSITY_VARIANT = "{level}, the 3/16 mine density of the paper's 4x4x3"
DENSITY_VARIANT_SIDES = (5, 6)

# Run sizes per profile. games: per (approach, board, run); runs: independently trained
# models per point; samples / krr_states / q_games: each learner's training budget
# (labelled samples, whole-board states, training games); accuracy_states: held-out
# positions for the move accuracy. The paper states none of these. Memory bounds the
# Q-learning budget: its table grows by about 18 states a training game on 8x8x10
# (measured, one 8x8x10 task of paper's size: 5.5 million states and a 2.2 GB peak after
# 300,000 training games; 18 million states and 6.2 GB after 1,000,000), so two workers
# training paper's 300,000-game models need under 5 GB together.
SIZES = {
    "smoke": {"games": 60, "runs": 2, "samples": 1_000, "krr_states": 100, "q_games": 2_000,
              "accuracy_states": 60},
    "quick": {"games": 2_000, "runs": 3, "samples": 20_000, "krr_states": 1_000, "q_games": 200_000,
              "accuracy_states": 1_000},
    "paper": {"games": 10_000, "runs": 5, "samples": 100_000, "krr_states": 3_000, "q_games": 300_000,
              "accuracy_states": 5_000},
}


# ---------------------------------------------------------------------- task kind
_FIELDS = {"kind", "module", "seed", "agent", "agent_params", "level", "n_games", "accuracy_states"}


def _check_learner(task: dict) -> None:
    unknown = sorted(set(task) - _FIELDS)
    if unknown:
        raise ValueError(f"field {unknown[0]!r} is not a 'gardea_learner' param "
                         f"(allowed: {', '.join(sorted(_FIELDS))})")
    for field in ("agent", "level", "n_games", "accuracy_states"):
        if field not in task:
            raise ValueError(f"missing field {field!r}")
    try:
        make_agent(task["agent"], **task.get("agent_params", {}))
        Level.parse(task["level"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"field 'agent'/'agent_params'/'level': {exc}") from None
    check_games("n_games", task["n_games"])
    n = task["accuracy_states"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"field 'accuracy_states' must be a non-negative integer, got {n!r}")


@task_kind("gardea_learner", check=_check_learner, agents=lambda p: [p["agent"]])
def learner_task(params: dict) -> pd.DataFrame:
    """Train (if the agent is trained) and play one agent on one level; measure its move
    accuracy on held-out positions. One frame, column `part`:
      game   one row per game: game, won, fraction_revealed
      model  one row: move_accuracy, train_accuracy, test_accuracy (label accuracy of a
             classifier; NaN for the others), train_seconds, states (Q-learning),
             negative_share (of a classifier's training labels)
    """
    agent = make_agent(params["agent"], **params.get("agent_params", {}))
    play_seed, accuracy_seed = np.random.SeedSequence(params["seed"]).spawn(2)
    df = play(agent, params["level"], params["n_games"], play_seed, progress=False)
    info = getattr(agent, "training_info", {}) or {}
    accuracy = (move_accuracy(agent, params["level"], params["accuracy_states"], accuracy_seed)
                if isinstance(agent, TrainedAgent) and params["accuracy_states"] else float("nan"))
    games = pd.DataFrame({"part": "game", "game": df["game"], "won": df["won"],
                          "fraction_revealed": df["fraction_revealed"]})
    model = pd.DataFrame([{"part": "model", "move_accuracy": accuracy,
                           "train_accuracy": float(info.get("train_accuracy", np.nan)),
                           "test_accuracy": float(info.get("test_accuracy", np.nan)),
                           "train_seconds": float(info.get("seconds", np.nan)),
                           "states": float(info.get("states", np.nan)),
                           "negative_share": float(info.get("negative_share", np.nan))}])
    out = pd.concat([games, model], ignore_index=True)
    out["part"] = out["part"].astype("category")
    return out


def move_accuracy(agent: TrainedAgent, level, n_states: int, seed) -> float:
    """Share of `n_states` held-out positions (the §III-B generator's, from `seed`) in
    which `agent`'s move is a covered cell of minimum exact mine probability."""
    from ..agents.gardea import samples

    lv = Level.parse(level)
    boards = samples.board_states(lv, n_states, seed)
    rng = np.random.default_rng(seed)
    return samples.move_accuracy(boards, lambda view: agent.choose_cell(view.reshape(lv.rows, lv.cols), rng))


# ---------------------------------------------------------------------- sweeps
def _budget(agent: str, run: dict) -> int:
    return int(run[BUDGET[agent]])


def _tasks(entries, levels, games: int, runs: int, seed: int, accuracy_states: int) -> list[dict]:
    """One task per (entry, level, run). entries: (label, agent, agent_params, trained).
    Run r's boards are the same for every entry (paired); a trained entry gets run r's
    training seed, trained on the level it plays."""
    tasks = []
    for level in levels:
        for r in range(runs):
            board_seed = derive_seed(seed, {"level": str(level), "run": r})
            train_seed = derive_seed(seed, {"run": r, "training": True}) % (2 ** 31)
            for label, agent, agent_params, trained in entries:
                params = dict(agent_params)
                if trained:
                    params.update(train_level=str(level), train_seed=int(train_seed))
                task = {"kind": "gardea_learner", "module": MODULE, "agent": agent, "agent_params": params,
                        "level": str(level), "n_games": int(games),
                        "accuracy_states": int(accuracy_states) if trained else 0, "seed": board_seed}
                tasks.append((label, r, task))
    return tasks


def _run(tasks, executor) -> pd.DataFrame:
    df = run_sweep([t for _, _, t in tasks], executor=executor, progress=len(tasks) > 8)
    labels = {}
    for label, r, t in tasks:
        labels[(t["agent"], _param_key(t["agent_params"]), t["level"], t["seed"])] = (label, r)
    keys = list(zip(df["agent"], df["agent_params"].map(_param_key) if "agent_params" in df else [""] * len(df),
                    df["level"], df["seed"]))
    df["approach"] = [labels[k][0] for k in keys]
    df["run"] = [labels[k][1] for k in keys]
    return df


def _param_key(params) -> str:
    import json

    if isinstance(params, str):
        params = json.loads(params)
    return json.dumps(params or {}, sort_keys=True)


def summary(df: pd.DataFrame, by=("approach", "level")) -> pd.DataFrame:
    """Per group: games, runs, win rate (pooled) with its Wilson interval and the
    t-interval over runs, mean % uncovered and move accuracy with t-intervals over runs."""
    rows = []
    games = df[df["part"] == "game"]
    models = df[df["part"] == "model"]
    for key, part in games.groupby(list(by), sort=False, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        per_run = part.groupby("run")
        wins, n = int(part["won"].sum()), len(part)
        lo, hi = wilson(wins, n)
        row = dict(zip(by, key))
        lv = Level.parse(row["level"])
        row.update(rows_=lv.rows, mines=lv.mines, games=n, runs=per_run.ngroups, wins=wins, win_rate=wins / n,
                   ci_low=lo, ci_high=hi)
        for name, values, top in (("win", per_run["won"].mean(), 1.0),
                                  ("uncovered", 100 * per_run["fraction_revealed"].mean(), 100.0)):
            m, tlo, thi = t_interval(values.to_numpy(float), top)
            if name == "win":  # runs that all lost (or all won) have no spread: never narrower than Wilson's
                tlo, thi = min(tlo, lo), max(thi, hi)
            row[f"{name}_mean"], row[f"{name}_t_low"], row[f"{name}_t_high"] = m, tlo, thi
        mk = models
        for k, v in zip(by, key):
            mk = mk[mk[k] == v]
        # train_seconds stays in the task's result, not in the tables: a duration is not a result
        for name in ("move_accuracy", "train_accuracy", "test_accuracy", "states", "negative_share"):
            top = 1.0 if name.endswith(("accuracy", "share")) else math.inf
            m, tlo, thi = t_interval(mk[name].to_numpy(float), top)
            row[name], row[f"{name}_t_low"], row[f"{name}_t_high"] = m, tlo, thi
        rows.append(row)
    out = pd.DataFrame(rows).rename(columns={"rows_": "side"})
    return out


def t_interval(values: np.ndarray, top: float = 1.0) -> tuple[float, float, float]:
    """Mean and 95% t-interval of independent values (NaNs dropped), clipped to [0, top];
    NaN bounds for fewer than 2 values."""
    v = values[~np.isnan(values)]
    if v.size == 0:
        return float("nan"), float("nan"), float("nan")
    m = float(v.mean())
    if v.size < 2:
        return m, float("nan"), float("nan")
    half = float(sps.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))
    return m, max(0.0, m - half), min(top, m + half)


def _entries(run: dict, radius=None, learners=APPROACHES, csp=True, oracles=ORACLE_LOOKUPS, variants=()):
    """(label, agent, params, trained) of a figure: the learners (and `variants`: labels
    of VARIANTS), then the CSP and the oracles."""
    out = []
    chosen = [(label, agent, {}) for label, agent in learners.items()] + [(v, *VARIANTS[v]) for v in variants]
    for label, agent, extra in chosen:
        params = {**extra, "train_size": _budget(agent, run)}
        if radius is not None:
            params["radius"] = int(radius)
        out.append((label, agent, params, True))
    if csp:
        out.append((CSP[0], CSP[1], dict(CSP_PARAMS), False))
    for f in oracles:
        out.append((f"oracle, lookup {f:g}", "oracle", {"lookup": float(f)}, False))
    return out


def _is_learner(label: str) -> bool:
    return label in APPROACHES or label in VARIANTS


def _agent_of(label: str) -> str:
    """The registered agent an approach label of `_entries` plays ("oracle, lookup 0.9" -> "oracle")."""
    agents = {**APPROACHES, **{v: a for v, (a, _) in VARIANTS.items()}, CSP[0]: CSP[1]}
    if label in agents:
        return agents[label]
    if label.startswith("oracle, lookup "):
        return "oracle"
    raise ValueError(f"{label!r} is not an approach label")


def _interval(r, what="win"):
    """(value, low, high) of a summary row: t over runs for a learner, Wilson for the others."""
    if what == "win":
        return (r.win_mean, r.win_t_low, r.win_t_high) if _is_learner(r.approach) else (r.win_rate, r.ci_low,
                                                                                           r.ci_high)
    mean = f"{what}_mean" if what == "uncovered" else what
    return getattr(r, mean), getattr(r, f"{what}_t_low"), getattr(r, f"{what}_t_high")


# ---------------------------------------------------------------------- drawing
def _panels(table, x, xlabel, title, metrics=("win", "uncovered", "move_accuracy"), published=None):
    """One panel per metric, one line per approach (intervals as `_interval` says)."""
    import matplotlib.pyplot as plt

    names = {"win": "win rate", "uncovered": "mean % of the safe cells uncovered",
             "move_accuracy": "test (move) accuracy", "test_accuracy": "test label accuracy",
             "train_accuracy": "train label accuracy"}
    fig, axes = plt.subplots(1, len(metrics), figsize=(5.0 * len(metrics), 4.2))
    axes = np.atleast_1d(axes)
    for ax, metric in zip(axes, metrics):
        for i, (label, part) in enumerate(table.groupby("approach", sort=False)):
            vals = np.array([_interval(r, metric) for r in part.itertuples()], float)
            if np.isnan(vals[:, 0]).all():
                continue
            style = "o-" if _is_learner(label) else ("s--" if label == CSP[0] else ":")
            err = np.vstack([vals[:, 0] - vals[:, 1], vals[:, 2] - vals[:, 0]])
            err = np.where(np.isnan(err), 0, np.clip(err, 0, None))
            how = "t over runs" if _is_learner(label) and metric == "win" or metric != "win" else "Wilson"
            ax.errorbar(part[x] + (i - 3) * 0.03, vals[:, 0], yerr=err, fmt=style, ms=4, capsize=2,
                        label=f"minelab {label} (95% CI: {how})")
        if metric == "win" and published is not None:
            _draw_published(ax, published)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(names[metric])
        ax.set_ylim(0, 102 if metric == "uncovered" else 1.02)
        ax.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=min(4, max(1, len(labels))), frameon=False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.06 + 0.035 * ((len(labels) - 1) // 4), 1, 1))
    return fig


def _draw_published(ax, published: pd.DataFrame) -> None:
    """Published statements: a star for '≈' (with its rounding range), a downward
    triangle for an upper bound '<', a cross for a reference value."""
    for r in published.itertuples():
        if r.relation == "≈":
            ax.errorbar([r.x], [r.value], yerr=[[r.value - r.ci_low], [r.ci_high - r.value]], fmt="r*", ms=11,
                        capsize=3)
        elif r.relation == "<":
            ax.plot([r.x], [r.value], "rv", ms=8)
        else:
            ax.plot([r.x], [r.value], "rX", ms=9)
        ax.annotate(f"published: {r.label}", (r.x, r.value), textcoords="offset points", xytext=(5, 4),
                    fontsize=6.5, color="r")


def _is_reference(r) -> bool:
    """A published row that is a reference the paper quotes, not its own measurement (its
    `twin` says "none: ..."; the beginning player's 35%)."""
    twin = getattr(r, "twin", "")
    return (isinstance(twin, str) and twin.strip().lower().startswith("none")) or "(reference)" in r.quantity


def _published_marks(item: str, xof) -> pd.DataFrame:
    """Published rows of `item` as plot marks: x from `xof(quantity)` (None: not drawn)."""
    marks = []
    for r in _published(item).itertuples():
        x = xof(r.quantity)
        if x is None:
            continue
        relation = "" if _is_reference(r) else r.relation  # a reference: a plain mark, no relation
        word = {"≈": "~", "<": "< ", "": ""}.get(relation, relation)
        who = r.quantity.split(" win rate")[0]
        marks.append({"x": x, "value": float(r.value), "ci_low": float(r.ci_low), "ci_high": float(r.ci_high),
                      "relation": relation, "label": f"{who} {word}{float(r.value):.0%}",
                      "group": f"every learner {word}{float(r.value):.0%}"})
    df = pd.DataFrame(marks, columns=["x", "value", "ci_low", "ci_high", "relation", "label", "group"])
    # one mark per statement: "each learner < 10%" is one published bound, held against four learners
    many = df.groupby(["x", "value", "relation"])["label"].transform("size") > 1
    df.loc[many, "label"] = df.loc[many, "group"]
    return df.drop_duplicates(["x", "value", "relation"]).drop(columns="group")


def _side_of(quantity: str):
    tail = quantity.rsplit(", ", 1)[-1].replace(" (reference)", "")
    if "x" not in tail:
        return None
    try:
        return Level.parse(tail).rows if tail.count("x") == 2 else int(tail.split("x")[0])
    except ValueError:
        return None


def _measured(item: str, table: pd.DataFrame) -> list[dict]:
    rows = []
    for r in table.itertuples():
        value, low, high = _interval(r, "win")
        learner = _is_learner(r.approach)
        row = {"item": item, "quantity": f"{r.approach} win rate, {r.level}", "value": value, "ci_low": low,
               "ci_high": high, "games": int(r.games),
               "note": (f"mean of {r.runs} independently trained models, 95% t-interval over them (never narrower "
                        "than Wilson's over all games)" if learner else "95% Wilson interval"),
               "agents": _agent_of(r.approach)}
        if learner:  # a mean over independent runs: the ledger judges one published run against one more of ours
            row["runs"] = int(r.runs)
        rows.append(row)
    return rows


# ---------------------------------------------------------------------- figures
def _run_sizes(games, runs, samples, krr_states, q_games, accuracy_states) -> dict:
    """Validated run sizes (ValueError naming the field)."""
    out = {"games": check_games("games", games), "samples": check_games("samples", samples),
           "krr_states": check_games("krr_states", krr_states), "q_games": check_games("q_games", q_games)}
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 2:
        raise ValueError(f"runs must be an integer >= 2 (intervals are taken over runs), got {runs!r}")
    if isinstance(accuracy_states, bool) or not isinstance(accuracy_states, (int, np.integer)) or accuracy_states < 1:
        raise ValueError(f"accuracy_states must be a positive integer, got {accuracy_states!r}")
    out.update(runs=int(runs), accuracy_states=int(accuracy_states))
    return out


_Q = SIZES["quick"]


def fig_board_size(games: int = _Q["games"], runs: int = _Q["runs"], samples: int = _Q["samples"],
                   krr_states: int = _Q["krr_states"], q_games: int = _Q["q_games"],
                   accuracy_states: int = _Q["accuracy_states"], seed: int = 0, executor="processes",
                   sides=SIDES) -> PaperResult:
    """Win rate, mean % uncovered and move accuracy of the four learners, the CSP and the
    oracle (lookup fractions ORACLE_LOOKUPS) on n x n boards at 10/64 mines, each learner
    trained per board. Published: Q-learning ~70% on 4x4, every learner < 10% on 5x5 and
    < 5% on 6x6; the beginning player's 35% on 8x8 (a reference)."""
    run = _run_sizes(games, runs, samples, krr_states, q_games, accuracy_states)
    levels = [square_level(int(n)) for n in sides]
    tasks = _tasks(_entries(run, variants=tuple(VARIANTS)), levels, run["games"], run["runs"], seed,
                   run["accuracy_states"])
    table = summary(_run(tasks, executor))
    marks = _published_marks("Board size", _side_of)
    fig = _panels(table, "side", "board side n (n x n, 10/64 of the cells are mines)",
                  f"Gardea et al.'s approaches over board sizes: {run['games']:,} games x {run['runs']} trained "
                  f"models per learner and point", published=marks)
    return PaperResult("fig_board_size", fig, table, _measured("Board size", table))


def fig_mine_density(games: int = _Q["games"], runs: int = _Q["runs"], samples: int = _Q["samples"],
                     krr_states: int = _Q["krr_states"], q_games: int = _Q["q_games"],
                     accuracy_states: int = _Q["accuracy_states"], seed: int = 0, executor="processes",
                     side: int = DENSITY_SIDE, mines=DENSITY_MINES) -> PaperResult:
    """The same metrics over mine counts on a side x side board (the paper: every
    approach falls as the density grows; no numbers)."""
    run = _run_sizes(games, runs, samples, krr_states, q_games, accuracy_states)
    levels = [str(Level(int(side), int(side), int(m))) for m in mines]
    tasks = _tasks(_entries(run, oracles=ORACLE_LOOKUPS[-1:]), levels, run["games"], run["runs"], seed,
                   run["accuracy_states"])
    table = summary(_run(tasks, executor))
    table["density"] = table["mines"] / (int(side) ** 2)
    fig = _panels(table, "mines", f"mines on a {side}x{side} board",
                  f"Gardea et al.'s approaches over mine densities on {side}x{side} (published: qualitative only)")
    return PaperResult("fig_mine_density", fig, table, _measured("Mine density", table))


def fig_classifier_features(games: int = _Q["games"], runs: int = _Q["runs"], samples: int = _Q["samples"],
                            accuracy_states: int = _Q["accuracy_states"], seed: int = 0, executor="processes",
                            level: str = FEATURES_LEVEL, radii=RADII) -> PaperResult:
    """The local classifiers against their window radius r ((2r+1)^2 - 1 features) on
    `level`: win rate, % uncovered, train and held-out label accuracy (the paper's point:
    few local features bias the classifier)."""
    run = _run_sizes(games, runs, samples, 1, 1, accuracy_states)
    classifiers = {k: v for k, v in APPROACHES.items() if v in ("gardea-logreg", "gardea-svm")}
    frames = []
    for r in radii:
        tasks = _tasks(_entries(run, radius=r, learners=classifiers, csp=False, oracles=()), [level], run["games"],
                       run["runs"], seed, run["accuracy_states"])
        frames.append(summary(_run(tasks, executor)).assign(radius=int(r), features=(2 * int(r) + 1) ** 2 - 1))
    table = pd.concat(frames, ignore_index=True)
    fig = _panels(table, "features", "local features ((2r+1)^2 - 1 cells around the target)",
                  f"Local classifiers against the number of local features on {level}",
                  metrics=("win", "uncovered", "train_accuracy", "test_accuracy"))
    measured = [{**m, "quantity": m["quantity"] + f", radius {r.radius}"}
                for m, r in zip(_measured("Classifier features", table), table.itertuples())]
    neg = table["negative_share"].dropna() if "negative_share" in table else pd.Series(dtype=float)
    if len(neg):  # the same training sets at every radius (the radius changes the features, not the labels)
        first = table.loc[neg.index[0]]
        measured.append({"item": "Classifier features", "quantity": "share of negative labels in the training data",
                         "value": float(first.negative_share), "ci_low": float(first.negative_share_t_low),
                         "ci_high": float(first.negative_share_t_high), "games": None, "runs": int(first.runs),
                         "note": f"minelab's §III-B generator at its defaults on {level}, {int(first.runs)} "
                                 f"training sets of {run['samples']:,} samples each; 95% t-interval over them"})
    return PaperResult("fig_classifier_features", fig, table, measured)


def fig_regression_iterations(games: int = _Q["games"], runs: int = _Q["runs"],
                              accuracy_states: int = _Q["accuracy_states"], seed: int = 0, executor="processes",
                              level: str = KRR_LEVEL, sizes=KRR_SIZES) -> PaperResult:
    """Kernel ridge regression on `level` (the paper's 4x4 with 3 mines): move accuracy
    and win rate against the number of training states."""
    run = _run_sizes(games, runs, 1, 1, 1, accuracy_states)
    frames = []
    for m in sizes:
        entries = [("kernel ridge regression", "gardea-krr", {"train_size": int(m)}, True)]
        tasks = _tasks(entries, [level], run["games"], run["runs"], seed, run["accuracy_states"])
        frames.append(summary(_run(tasks, executor)).assign(train_states=int(m)))
    table = pd.concat(frames, ignore_index=True)
    fig = _panels(table, "train_states", "training states (whole boards, exact probabilities as labels)",
                  f"Regression: iterations vs success rates ({level})", metrics=("win", "move_accuracy"))
    for ax in fig.axes:
        ax.set_xscale("log")
    measured = [{**m, "quantity": m["quantity"] + f", {r.train_states} training states"}
                for m, r in zip(_measured("Regression iterations", table), table.itertuples())]
    return PaperResult("fig_regression_iterations", fig, table, measured)


def variant_board_density(games: int = _Q["games"], runs: int = _Q["runs"], samples: int = _Q["samples"],
                          krr_states: int = _Q["krr_states"], q_games: int = _Q["q_games"],
                          accuracy_states: int = _Q["accuracy_states"], seed: int = 0, executor="processes",
                          sides=DENSITY_VARIANT_SIDES) -> PaperResult:
    """The board-size figure's learners (and Algorithm 2) at the other mine-count reading
    the text allows: the 3/16 density of the paper's 4x4x3 (`KRR_DENSITY`: 5x5x5, 6x6x7)
    instead of the 10/64 of 8x8x10. The same training seeds, budgets and sizes as
    `fig_board_size`; each learner trained on the level it plays. Its measured rows are
    variants of the published board-size bounds: "<learner> win rate, 5x5x4 [variant:
    5x5x5, the 3/16 mine density of the paper's 4x4x3]"."""
    run = _run_sizes(games, runs, samples, krr_states, q_games, accuracy_states)
    levels = [square_level(int(n), KRR_DENSITY) for n in sides]
    tasks = _tasks(_entries(run, variants=tuple(VARIANTS), csp=False, oracles=()), levels, run["games"], run["runs"],
                   seed, run["accuracy_states"])
    table = summary(_run(tasks, executor))
    marks = _published_marks("Board size", _side_of)
    marks = marks[marks["x"].isin([int(n) for n in sides])]
    fig = _panels(table, "side", "board side n (n x n, 3/16 of the cells are mines, as the paper's 4x4x3)",
                  f"The learners at the 3/16 density of 4x4x3 (a reading the paper allows): {run['games']:,} games x "
                  f"{run['runs']} trained models per learner and point", published=marks)
    measured = []
    for m, r in zip(_measured("Board size", table), table.itertuples()):
        main_level = square_level(int(r.side))
        m["quantity"] = (f"{r.approach} win rate, {main_level} [variant: {DENSITY_VARIANT.format(level=r.level)}]")
        measured.append(m)
    return PaperResult("variant_board_density", fig, table, measured)


PERIMETER_READING = 0.5  # "with some fixed probability" (§III-A): the registered reading beside the default 0.9
PERIMETER_VARIANT = "training moves on the perimeter with probability {prob:g}"
TARGETS_VARIANT = "learners predict every covered cell"
VARIANT_SIDES = (4, 5, 6)


def variant_perimeter_prob(games: int = _Q["games"], runs: int = _Q["runs"], samples: int = _Q["samples"],
                           krr_states: int = _Q["krr_states"], accuracy_states: int = _Q["accuracy_states"],
                           seed: int = 0, executor="processes", sides=VARIANT_SIDES,
                           prob: float = PERIMETER_READING) -> PaperResult:
    """The supervised learners trained on games whose moves take a perimeter cell with
    probability `prob` instead of the default 0.9 (the text gives none), on every number
    that changes (`_learner_variant`). Measured rows are "<quantity> [variant: training
    moves on the perimeter with probability 0.5]"."""
    if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
        raise ValueError(f"prob must be a probability in [0, 1], got {prob!r}")
    return _learner_variant("variant_perimeter_prob", {"perimeter_prob": float(prob)},
                            PERIMETER_VARIANT.format(prob=prob), games, runs, samples, krr_states, accuracy_states,
                            seed, executor, sides)


def variant_targets_covered(games: int = _Q["games"], runs: int = _Q["runs"], samples: int = _Q["samples"],
                            krr_states: int = _Q["krr_states"], accuracy_states: int = _Q["accuracy_states"],
                            seed: int = 0, executor="processes", sides=VARIANT_SIDES) -> PaperResult:
    """The supervised learners scoring every covered cell (`targets="covered"`; the
    classifiers also train on covered targets) instead of the perimeter's, on every number
    that changes (`_learner_variant`). Measured rows are "<quantity> [variant: learners
    predict every covered cell]"."""
    return _learner_variant("variant_targets_covered", {"targets": "covered"}, TARGETS_VARIANT, games, runs, samples,
                            krr_states, accuracy_states, seed, executor, sides)


# 11 parameters: the variant (name, change, label), then the two variants' shared sizes,
# seed, executor and sides, all passed through.
def _learner_variant(name, change, variant, games, runs, samples, krr_states, accuracy_states, seed, executor,
                     sides) -> PaperResult:
    """The supervised learners (Q-learning has no training generator) with agent
    parameters `change`: their board-size win rates (n x n at 10/64, the same seeds,
    budgets and sizes as `fig_board_size`) and the share of negative labels in the
    classifiers' training data (logistic regression on FEATURES_LEVEL, as
    `fig_classifier_features`), each row "<quantity> [variant: <variant>]"."""
    run = _run_sizes(games, runs, samples, krr_states, 1, accuracy_states)
    learners = {k: v for k, v in APPROACHES.items() if v != "gardea-q"}
    entries = [(label, agent, {**params, **change}, trained)
               for label, agent, params, trained in _entries(run, learners=learners, csp=False, oracles=())]
    tasks = _tasks(entries, [square_level(int(n)) for n in sides], run["games"], run["runs"], seed,
                   run["accuracy_states"])
    share = [e for e in entries if e[1] == "gardea-logreg"]
    tasks += _tasks(share, [FEATURES_LEVEL], run["games"], run["runs"], seed, run["accuracy_states"])
    table = summary(_run(tasks, executor))
    tag = f" [variant: {variant}]"
    board = table[table["level"] != FEATURES_LEVEL]
    measured = [{**m, "quantity": m["quantity"] + tag} for m in _measured("Board size", board)]
    neg = table[table["level"] == FEATURES_LEVEL].iloc[0]
    measured.append({"item": "Classifier features", "quantity": "share of negative labels in the training data" + tag,
                     "value": float(neg.negative_share), "ci_low": float(neg.negative_share_t_low),
                     "ci_high": float(neg.negative_share_t_high), "games": None, "runs": int(neg.runs),
                     "note": f"the §III-B generator ({variant}) on {FEATURES_LEVEL}, {int(neg.runs)} training sets "
                             f"of {run['samples']:,} samples each; 95% t-interval"})
    fig = _panels(board, "side", "board side n (n x n, 10/64 of the cells are mines)",
                  f"The supervised learners, {variant}: {run['games']:,} games x {run['runs']} trained models per "
                  "learner and point", published=_published_marks("Board size", _side_of))
    return PaperResult(name, fig, table, measured)


# ---------------------------------------------------------------------- texts
# The notebook's commentary: every number below comes from the result; every verdict on a
# published number is the fidelity ledger's.
def _fmt(v, lo, hi) -> str:
    return f"{v:.3f} ({lo:.3f}-{hi:.3f})" if not (math.isnan(lo) or math.isnan(hi)) else f"{v:.3f}"


def _verdict_lines(item: str, lines=None) -> list[str]:
    """The ledger's bullet for each published number of `item` the paper states as its own
    (a reference it quotes is left out); its comparisons of two quantities ("A minus B")
    are summed up by category, and listed only when the ledger does not judge them
    "agrees" or "bound met"."""
    lines = ledger_rows(PAPER, item) if lines is None else lines
    quantities = [r.quantity for r in _published(item).itertuples() if r.relation and not _is_reference(r)]
    single = [q for q in quantities if " minus " not in q]
    out = judged_lines(PAPER, item, single, lines=lines)
    pairs = lines[lines["quantity"].isin([q for q in quantities if " minus " in q])]
    if len(pairs):
        out.append(f"* The paper's {len(pairs)} comparisons of two quantities (one learner minus another, one "
                   f"board minus the next): {tally(pairs)}.")
        rest = [q for q, c in zip(pairs["quantity"], pairs["category"]) if c not in (AGREES, BOUND_MET)]
        out += ["  " + v for v in judged_lines(PAPER, item, rest, lines=lines)]
    return out


def board_size_text(result: PaperResult) -> str:
    """The paper's statements on the learners across board sizes, each with the ledger's
    verdict, and how Q-learning stands among the three learning approaches on 4x4."""
    t = result.table
    runs = int(t["runs"].max())
    ledger = ledger_rows(PAPER, "Board size")
    lines = [f"**Comparison** ({int(t['games'].min()) // runs:,} games per trained model and point, {runs} "
             f"independently trained models per learner: t-intervals over them). The ledger on the paper's numbers "
             "(it judges the largest profile measured):", ""]
    lines += _verdict_lines("Board size", ledger)
    small = t[t["side"] == t["side"].min()]
    learners = small[small["approach"].isin(list(APPROACHES))]
    if len(learners):
        best = learners.loc[learners["win_mean"].idxmax()]
        q = learners[learners["approach"] == "Q-learning"]
        if len(q):
            qr = q.iloc[0]
            others = learners[learners["approach"] != "Q-learning"]
            beaten = [o.approach for o in others.itertuples() if qr.win_t_low > o.win_t_high]
            lines.append(f"* The paper calls Q-learning the best of the learners on {qr.level}: the best here is "
                         f"**{best.approach}** ({best.win_mean:.3f}); Q-learning's interval lies above "
                         f"{len(beaten)} of the other {len(others)} learners' "
                         f"({', '.join(beaten) if beaten else 'none'}).")
            claims = [q for q in ledger["quantity"] if q.startswith("Q-learning minus ") and q.endswith(qr.level)]
            verdicts = ledger_verdicts(PAPER, "Board size", ledger)
            if claims:
                lines[-1] += (" The ledger's rows " + ", ".join(f"'{c}'" for c in claims) + " judge this claim: "
                              + "; ".join(verdicts[c][1] for c in claims) + ".")
    big = t[(t["side"] == t["side"].max()) & (t["approach"] == CSP[0])]
    ref = _published("Board size")
    ref = ref[[_is_reference(r) for r in ref.itertuples()]]
    if len(big) and len(ref):
        r = big.iloc[0]
        lines.append(f"* The beginning player's {float(ref.iloc[0].value):.0%} on 8x8 (a reference the paper quotes, "
                     f"not a measurement): the CSP wins {r.win_rate:.3f} on {r.level}.")
    return "\n".join(lines)


def density_variant_text(result: PaperResult) -> str:
    """`variant_board_density`'s rows (each a variant of the published quantity before its
    " [variant: ...]") with the ledger's verdict on that published number, which names
    the variant when it tested it as a cause."""
    def name(base, tag):
        return f"{base.split(' win rate')[0]} on {tag.split(',')[0]} (published for {base.rsplit(', ', 1)[1]}"

    return _variant_text(result, "**The 3/16 density of the paper's 4x4x3** (a reading the text allows; minelab's "
                         "figure keeps the 10/64 of 8x8x10), each learner beside the paper's bound for its board "
                         "side:", name)


def learner_variant_text(result: PaperResult) -> str:
    """A `_learner_variant` result's rows beside the published numbers they are variants
    of, with the ledger's verdict on each."""
    tag = result.measured[0]["quantity"].partition(" [variant: ")[2].rstrip("]") if result.measured else ""
    return _variant_text(result, f"**The supervised learners, {tag}** (a registered reading), each number beside "
                         "the paper's:", lambda base, tag: f"{base} (published")


def _variant_text(result: PaperResult, intro: str, name) -> str:
    """A variant's rows ("<published quantity> [variant: <tag>]") as bullets, each named by
    `name(base, tag)` and ended with the published relation and value, then the ledger's
    verdicts on those published numbers."""
    lines, bases = [intro, ""], {}
    for m in result.measured:
        base, _, tag = m["quantity"].partition(" [variant: ")
        pub = _published(m["item"]).set_index("quantity")
        if base not in pub.index or not pub.loc[base, "relation"]:
            continue
        r = pub.loc[base]
        bases.setdefault(m["item"], []).append(base)
        lines.append(f"* {name(base, tag.rstrip(']'))}: {r.relation} {float(r.value):g}): "
                     f"{_fmt(m['value'], m['ci_low'], m['ci_high'])}.")
    verdicts = [v for item, qs in bases.items() for v in judged_lines(PAPER, item, list(dict.fromkeys(qs)))]
    if verdicts:
        lines += ["", "The ledger on those published numbers (each with the readings registered on it):", "", *verdicts]
    return "\n".join(lines)


def classifier_features_text(result: PaperResult) -> str:
    """Train vs held-out label accuracy and win rate against the window radius, with the
    ledger's verdicts on the item's published numbers."""
    t = result.table
    lines = ["**Bias against the number of local features** (label accuracy on the §III-B samples; a small gap "
             "between train and test with both low is bias, a large gap variance):", ""]
    for label, part in t.groupby("approach", sort=False):
        cells = [f"r = {r.radius} ({r.features} features): train {r.train_accuracy:.3f}, test {r.test_accuracy:.3f}, "
                 f"win {r.win_mean:.3f}" for r in part.itertuples()]
        lines.append(f"* {label}: " + "; ".join(cells) + ".")
    lines += _verdict_lines("Classifier features")
    return "\n".join(lines)


def regression_text(result: PaperResult) -> str:
    """How test accuracy and win rate move with the training-set size (the paper: both
    grow; it gives no number)."""
    t = result.table.sort_values("train_states")
    rho_acc = sps.spearmanr(t["train_states"], t["move_accuracy"]).statistic if len(t) > 2 else float("nan")
    rho_win = sps.spearmanr(t["train_states"], t["win_mean"]).statistic if len(t) > 2 else float("nan")
    first, last = t.iloc[0], t.iloc[-1]
    return (f"From {int(first.train_states):,} to {int(last.train_states):,} training states the move accuracy goes "
            f"from {first.move_accuracy:.3f} to {last.move_accuracy:.3f} (Spearman rho {rho_acc:+.2f} over the "
            f"{len(t)} sizes) and the win rate from {first.win_mean:.3f} to {last.win_mean:.3f} (rho {rho_win:+.2f}). "
            "The paper says both grow and gives no numbers for this figure.")


def mine_density_text(result: PaperResult) -> str:
    """Does every approach fall with the density (the paper's statement)?"""
    t = result.table
    falls = []
    for label, part in t.groupby("approach", sort=False):
        v = part.sort_values("mines")[["mines", "win_mean" if _is_learner(label) else "win_rate"]].to_numpy(float)
        rho = sps.spearmanr(v[:, 0], v[:, 1]).statistic if len(v) > 2 else float("nan")
        falls.append(f"{label} (Spearman rho {rho:+.2f})")
    return ("The paper: the win rate of every approach falls as the mine density grows (no numbers). Rank "
            "correlation of win rate with the mine count here: " + "; ".join(falls) + ".")
