"""How strong `best` is, and why: paired tuning comparisons, the ablation table and the
final evaluation on fresh seeds.

Method (one rule for every change to `best`): a variant is played on the very same
boards as the version it is compared with (common random numbers: chunk i of a level is
dealt from the same seed for every variant, `minelab.tasks.play_tasks`), and judged by
the paired difference of their win rates, mean of the per-game differences (+1, 0, -1)
with its 95% t-interval (`scipy.stats.ttest_rel`), and McNemar's exact test on the games
only one of the two won (`scipy.stats.binomtest`).

Seeds are kept apart by purpose, and written down here:

* TUNING_SEEDS (1000-1999): every comparison made while choosing `best`'s techniques and
  parameters, and the options table's alternatives;
* ABLATION_SEED (2000): the ablation and options tables of the leaderboard notebook;
* EVALUATION_SEED: the final numbers per level and rule, played once `best` was frozen.
  No tuning comparison ever used it or its chunks' seeds (they derive from it,
  `minelab.sweep.derive_seed`). Each frozen version gets a seed of its own, never seen
  before; PAST_EVALUATION_SEEDS judged earlier versions and are not used again.

Variants differ by `best`'s parameters only, so a tuning run's cache stamp (the golden
playthrough of `best`'s defaults) does not see a code change that alters a non-default
parameter's play: comparisons therefore run in their own results folder by default
(`fresh=True`), never from the shared cache. That folder is named after a digest of
minelab's whole source (`results_folder`): any edit of the package starts an empty one,
so no result of other code is ever served, and a run interrupted resumes from the tasks
(CHUNK games each) it had finished.
"""
from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

from .. import _jitcache
from ..agents import make_agent
from ..agents.best import GUESS_STEPS, best_rollouts
from ..agents.csp import DC_GUESS
from ..cells import REVEAL
from ..engine import Game, check_seed, neighbour_table
from ..levels import Level
from ..report import PaperResult
from ..stats import wilson
from ..sweep import default_results_dir, run_sweep
from ..tasks import check_games, play_tasks

AGENT = "best"
LEVELS = ("8x8x10", "9x9x10", "16x16x40", "16x30x99")
TUNING_SEEDS = range(1000, 2000)
ABLATION_SEED = 2000
EVALUATION_SEED = 20261133
PAST_EVALUATION_SEEDS = (20261123, 20261125, 20261126, 20261127, 20261128, 20261129, 20261130, 20261131,
                         20261132)
CHUNK = 5_000  # games per task: the unit a sweep resumes by

# Run sizes per profile (the leaderboard notebook's best sections): the ablation table,
# the zero start's first cell, the final evaluation (paper: 10^7 games per rule on the three
# smaller levels, 10^6 on 16x30x99), the loss profile (8x8x10 and, fewer, 16x30x99: played
# from Python, see `level_losses`) and the regret against the exact optimum (`optimum_regret`).
SIZES = {
    "smoke": {"ablation_games": 200, "ablation_expert_games": 20, "cell_games": 200, "cell_expert_games": 20,
              "final_games": 100, "final_expert_games": 100, "loss_games": 20, "loss_expert_games": 4,
              "regret_games": 50, "change_games": 200, "change_expert_games": 20, "check_expert_games": 20,
              "chain_expert_games": 20, "candidates_expert_games": 20, "defaults_expert_games": 20},
    "quick": {"ablation_games": 10_000, "ablation_expert_games": 1_000, "cell_games": 5_000,
              "cell_expert_games": 1_000, "final_games": 2_000, "final_expert_games": 2_000, "loss_games": 2_000,
              "loss_expert_games": 300, "regret_games": 500, "change_games": 10_000, "change_expert_games": 2_000,
              "check_expert_games": 1_000, "chain_expert_games": 4_000, "candidates_expert_games": 1_000,
              "defaults_expert_games": 1_000},
    "paper": {"ablation_games": 200_000, "ablation_expert_games": 40_000, "cell_games": 100_000,
              "cell_expert_games": 20_000, "final_games": 10_000_000, "final_expert_games": 1_000_000,
              "loss_games": 50_000, "loss_expert_games": 5_000, "regret_games": 5_000, "change_games": 200_000,
              "change_expert_games": 200_000, "check_expert_games": 100_000, "chain_expert_games": 400_000,
              "candidates_expert_games": 1_000_000, "defaults_expert_games": 300_000},
}

# The board of `optimum_regret` per profile: 5x5x5 with an unprotected first click has the
# density of 16x30x99 (0.2) and its exact optimum takes about a minute (a smaller one for tests).
REGRET_LEVELS = {"smoke": "4x4x5:none", "quick": "5x5x5:none", "paper": "5x5x5:none"}

# Each technique of `best`, and the parameters that turn it off (the ablation table
# plays the defaults against each of these, paired).
ABLATIONS = {
    "exact endgame search": {"endgame_layouts": 0},
    "one-step lookahead among the safest cells": {"max_candidates": 1},
    "secondary safety of the guess (the blend rule instead)": {"guess_rule": "blend", "margin": 0.05,
                                                               "progress_weight": 0.1, "long_term_risk": 0.0},
    "long-term risk of 50/50 patterns (D. Hill's weight 0.9)": {"long_term_risk": 0.0},
    "D. Hill's candidates (off the frontier only the cells his solver looks at; frontier cells first among "
    "equally safe ones)": {"tie_order": "frontier"},
    "forced 50/50s guessed at once": {"fifty_fifty": False},
    "unresolvable pairs with unknown cells beside them guessed at once": {"wide_fifty_fifty": False},
    "dominance (a safer cell safe whenever the chosen one is, taken first)": {"dominance": False},
    "off-frontier guesses only at 95% of the best safety": {"float_cut": 1.0},
    "pseudo 50/50s (a mine only where walled in by mines) guessed at once": {"pseudo_fifty_fifty": False},
}


def _games_for(level: str, games: int, expert_games: int) -> int:
    """The run size of one of `levels`: expert_games on "16x30x99", games elsewhere."""
    return expert_games if level == "16x30x99" else games


def _check_variants(variants) -> dict[str, dict]:
    if not isinstance(variants, dict) or not variants:
        raise ValueError(f"variants must be a non-empty dict {{name: best's parameters}}, got {variants!r}")
    for name, params in variants.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"variants: each name must be a non-empty string, got {name!r}")
        if not isinstance(params, dict):
            raise ValueError(f"variants[{name!r}] must be a dict of best's parameters, got {params!r}")
        make_agent(AGENT, **params)  # an unknown or bad parameter fails here, by name
    return variants


RESULTS_FOLDER = ".strength"  # under the sweep's results folder: one subfolder per source version


def results_folder() -> Path:
    """Where `fresh` comparisons keep their results: <results>/.strength/minelab-<digest of
    minelab's source> (`minelab._jitcache.running_digest`: the code this process runs). The few most recently used
    other versions' folders are kept, older ones removed, as for numba's cache."""
    root = default_results_dir() / RESULTS_FOLDER
    folder = root / f"minelab-{_jitcache.running_digest()}"
    folder.mkdir(parents=True, exist_ok=True)
    os.utime(folder)  # used now: the prune keeps the most recently used
    _jitcache.prune(root, folder)
    return folder


def _params_key(df: pd.DataFrame) -> pd.Series:
    """Each row's agent parameters as canonical JSON ("{}" for the defaults)."""
    raw = df["agent_params"] if "agent_params" in df else pd.Series("{}", index=df.index)
    return raw.fillna("{}").map(lambda s: json.dumps(json.loads(s), sort_keys=True))


def play_variants(variants: dict, level: str, games: int, seed: int, executor="processes",
                  fresh: bool = True) -> pd.DataFrame:
    """One row per game and variant: `best` with each variant's parameters on the same
    `games` boards of `level` (column `variant`)."""
    return play_levels({level: (variants, games)}, seed, executor, fresh)


def play_levels(plan: dict, seed: int, executor="processes", fresh: bool = True) -> pd.DataFrame:
    """`play_variants` for several levels in one sweep (one pool of workers): plan is
    {level: (variants, games)}; the frame's `level` column tells them apart."""
    if not isinstance(plan, dict) or not plan:
        raise ValueError(f"plan must be a non-empty dict {{level: (variants, games)}}, got {plan!r}")
    tasks, named = [], []
    for level, (variants, games) in plan.items():
        variants = _check_variants(variants)
        Level.parse(level)
        games = check_games("games", games)
        by_params = {json.dumps(p, sort_keys=True): p for p in variants.values()}  # two names, one set: played once
        tasks += [t for p in by_params.values()
                  for t in play_tasks([AGENT], level, games, seed, chunk=CHUNK, agent_params={AGENT: p})]
        named.append((level, variants))
    df = run_sweep(tasks, results_dir=results_folder() if fresh else None, executor=executor, progress=False)
    key = _params_key(df)
    parts = [df[(df["level"] == level) & (key == json.dumps(p, sort_keys=True))].assign(variant=name)
             for level, variants in named for name, p in variants.items()]
    return pd.concat(parts, ignore_index=True)


def paired(df: pd.DataFrame, base: str, variant: str) -> dict:
    """The paired comparison of two variants of `play_variants`' frame: win rates, their
    difference (variant - base) with its 95% t-interval, the discordant games and
    McNemar's exact p-value."""
    a = df[df["variant"] == base].set_index(["seed", "game"])["won"].astype(int)
    b = df[df["variant"] == variant].set_index(["seed", "game"])["won"].astype(int)
    if a.empty or b.empty:
        raise ValueError(f"no games of {base!r} or {variant!r} in the frame")
    a, b = a.align(b, join="inner")
    test = sps.ttest_rel(b.to_numpy(), a.to_numpy())
    ci = test.confidence_interval(0.95)
    only_b, only_a = int(((b == 1) & (a == 0)).sum()), int(((a == 1) & (b == 0)).sum())
    p = sps.binomtest(only_b, only_b + only_a).pvalue if only_a + only_b else 1.0
    return {"base": base, "variant": variant, "games": len(a), "base_win_rate": float(a.mean()),
            "variant_win_rate": float(b.mean()), "diff": float((b - a).mean()),
            "diff_low": float(ci.low) if np.isfinite(ci.low) else 0.0,
            "diff_high": float(ci.high) if np.isfinite(ci.high) else 0.0,
            "only_variant_won": only_b, "only_base_won": only_a, "mcnemar_p": float(p)}


def paired_gains(variants: dict, level: str, games: int, seed: int, base: str = "default",
                 executor="processes", fresh: bool = True) -> pd.DataFrame:
    """Each variant against `base` (a name in `variants`; "default" = best's defaults,
    added when missing), paired on the same boards: one row per variant."""
    return paired_gains_levels({level: (variants, games)}, seed, base, executor, fresh)


def paired_gains_levels(plan: dict, seed: int, base: str = "default", executor="processes",
                        fresh: bool = True) -> pd.DataFrame:
    """`paired_gains` on several levels in one sweep: plan is {level: (variants, games)};
    one row per level and variant, levels in the plan's order."""
    full = {}
    for level, (variants, games) in plan.items():
        variants = dict(variants)
        if base == "default" and base not in variants:
            variants = {"default": {}, **variants}
        if base not in variants:
            raise ValueError(f"base must be one of the variants' names {list(variants)}, got {base!r}")
        full[level] = (variants, games)
    df = play_levels(full, seed, executor, fresh)
    rows = [{"level": level, "seed": seed, **paired(df[df["level"] == level], base, name)}
            for level, (variants, _) in full.items() for name in variants if name != base]
    return pd.DataFrame(rows)


def ablation_table(techniques: dict = ABLATIONS, levels=LEVELS, games: int = 20_000, expert_games: int = 5_000,
                   seed: int = ABLATION_SEED, executor="processes") -> PaperResult:
    """Each technique's paired gain per level: best's defaults minus best with the
    technique turned off (the parameters in `techniques`), on the same boards."""
    off = {f"without {name}": params for name, params in techniques.items()}
    plan = {level: (off, _games_for(level, games, expert_games)) for level in levels}
    t = paired_gains_levels(plan, seed, executor=executor)  # every level in one sweep
    code = _stamp()
    rows = [{"technique": r.variant.removeprefix("without "), "level": r.level, "seed": r.seed, "games": r.games,
             "with": r.base_win_rate, "without": r.variant_win_rate, "gain": -r.diff,
             "gain_low": -r.diff_high, "gain_high": -r.diff_low, "mcnemar_p": r.mcnemar_p, "kept": True,
             "code": code} for r in t.itertuples()]
    table = pd.DataFrame(rows)
    return PaperResult("ablation_table", None, table, [])


# Changes to `best`'s defaults that the shadow-play catalogue (minelab.studies.versus_hill)
# pointed to: the change, the catalogue's classes whose disagreements it resolves (a replay
# of them with the change: which take Hill's cell), and the parameters that undo it (the
# defaults before it). `changes_table` judges each by paired games on CHANGE_SEED, a tuning
# seed, against the defaults with the change undone.
CHANGES = {
    "D. Hill's guess score: progress weight 0.001 and long-term risk 0.9 (before: 0.1 and off)":
        ("hill safer, hill riskier and equally safe", {"progress_weight": 0.1, "long_term_risk": 0.0}),
    "D. Hill's candidates: off the frontier only the cells his solver looks at, frontier cells first among "
    "equally safe ones (before: every cell, corners first)":
        ("best off the frontier, equally safe and hill riskier", {"tie_order": "corners"}),
}
CHANGE_SEED = TUNING_SEEDS[902]


def changes_table(changes: dict = CHANGES, levels=LEVELS, games: int = 20_000, expert_games: int = 5_000,
                  seed: int = CHANGE_SEED, executor="processes", zero_start=("16x30x99",)) -> PaperResult:
    """Each adopted change's paired gain per level: best's defaults minus the defaults with
    the change undone (`changes`: {name: (catalogue class, parameters that undo it)}), on
    the same boards of a tuning seed: first click safe in the corner on each of `levels`,
    and the zero start (rule "opening", first click on OPENING_FIRST_CELLS) on each of
    `zero_start`."""
    for name, entry in changes.items():
        if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], dict)):
            raise ValueError(f"changes[{name!r}] must be (catalogue class, {{parameter: value before}}), got {entry!r}")
    undo = {name: params for name, (_, params) in changes.items()}
    plan = {level: (undo, _games_for(level, games, expert_games)) for level in levels}
    first = {level: (0, 0) for level in levels}
    for level in zero_start:
        cell = _opening_cell(level, OPENING_FIRST_CELLS)
        at = {"first_click": list(cell)}
        plan[f"{level}:opening"] = ({"default": at, **{name: {**at, **params} for name, params in undo.items()}},
                                    _games_for(level, games, expert_games))
        first[f"{level}:opening"] = cell
    t = paired_gains_levels(plan, seed, executor=executor)
    code = _stamp()
    rows = [{"change": r.variant, "pointed_to_by": changes[r.variant][0], "level": r.level,
             "first_click": str(first[r.level]), "seed": r.seed, "games": r.games, "before": r.variant_win_rate,
             "after": r.base_win_rate, "gain": -r.diff,
             "gain_low": -r.diff_high, "gain_high": -r.diff_low, "mcnemar_p": r.mcnemar_p, "code": code}
            for r in t.itertuples()]
    return PaperResult("changes_table", None, pd.DataFrame(rows), [])


def _stamp() -> str:
    """The code stamp of `best` (its golden playthrough's digest) the tables' rows carry."""
    from ..report import code_stamp

    return code_stamp(AGENT)


# best's options that are off by default, each with the parameters that turn it on (the
# options table plays each against the defaults, paired): what the tuning tried and left.
OPTIONS = {
    "the blend rule (margin 0.05, progress weight 0.1)": {"guess_rule": "blend", "margin": 0.05,
                                                          "progress_weight": 0.1},
    "the pseq rule (margin 0.01)": {"guess_rule": "pseq", "margin": 0.01},
    "the two-step rule": {"guess_rule": "two-step"},
    "24 candidates instead of 12": {"max_candidates": 24},
    "candidates within 0.15 of the least mine probability instead of 0.1": {"margin": 0.15},
    "progress weight 0.1 instead of D. Hill's 0.001": {"progress_weight": 0.1},
    "no off-frontier cut (float_cut 1)": {"float_cut": 1.0},
    "endgame search over up to 1024 layouts": {"endgame_layouts": 1024, "endgame_budget": 8_000_000},
    "endgame search over up to 4096 layouts": {"endgame_layouts": 4096, "endgame_budget": 32_000_000},
    "isolated components of a fixed mine count played by the exact search (D. Hill's isolated edge)":
        {"isolated_edges": True},
    "chains of 50/50s: a cell that is a mine only in one state of a chain guessed at once":
        {"chain_fifty_fifty": True},
    "certain mines known at every guess": {"sure_mines": True},
    "all three of D. Hill's steps above": {"isolated_edges": True, "chain_fifty_fifty": True, "sure_mines": True},
}


def options_table(options: dict = OPTIONS, levels=LEVELS, games: int = 20_000, expert_games: int = 5_000,
                  seed: int = ABLATION_SEED, executor="processes", zero_start=("16x30x99",)) -> PaperResult:
    """Each option's paired gain per level: best with the option turned on (the parameters
    in `options`) minus best's defaults, on the same boards (the ablation table's seed and
    boards: the defaults' games are the same), first click safe in the corner on each of
    `levels`, and the zero start (rule "opening", first click on OPENING_FIRST_CELLS) on
    each of `zero_start`."""
    plan = {level: (dict(options), _games_for(level, games, expert_games)) for level in levels}
    first = {level: (0, 0) for level in levels}
    for level in zero_start:
        cell = _opening_cell(level, OPENING_FIRST_CELLS)
        at = {"first_click": list(cell)}
        plan[f"{level}:opening"] = ({"default": at, **{name: {**at, **params} for name, params in options.items()}},
                                    _games_for(level, games, expert_games))
        first[f"{level}:opening"] = cell
    t = paired_gains_levels(plan, seed, executor=executor)
    code = _stamp()
    rows = [{"option": r.variant, "level": r.level, "first_click": str(first[r.level]), "seed": r.seed,
             "games": r.games, "default": r.base_win_rate, "with the option": r.variant_win_rate, "gain": r.diff,
             "gain_low": r.diff_low, "gain_high": r.diff_high, "mcnemar_p": r.mcnemar_p, "kept": False,
             "code": code} for r in t.itertuples()]
    return PaperResult("options_table", None, pd.DataFrame(rows), [])


# The options the options table found most promising on 16x30x99 (the largest gains there,
# on either rule; of the two endgame sizes the smaller, whose gain was as large at a
# quarter of the work bound), and their combination (the candidate defaults), judged again by
# `options_check` on a tuning seed the options table never played (CHECK_SEED), with more
# games on 16x30x99 alone: a gain found on one seed and picked from thirteen is only a
# candidate until another seed's boards show it too. The reading fixed before its numbers:
# an option is confirmed on a rule where its gain's 95% interval on CHECK_SEED lies above
# zero; a gain on one seed and not on the other is left open, not adopted.
CHECK_OPTIONS = {name: OPTIONS[name] for name in (
    "endgame search over up to 1024 layouts",
    "chains of 50/50s: a cell that is a mine only in one state of a chain guessed at once",
    "all three of D. Hill's steps above")}
CHECK_OPTIONS["all three of D. Hill's steps and the endgame search over up to 1024 layouts"] = {
    **OPTIONS["all three of D. Hill's steps above"], **OPTIONS["endgame search over up to 1024 layouts"]}
CHECK_SEED = TUNING_SEEDS[903]


def options_check(options: dict = CHECK_OPTIONS, level: str = "16x30x99", games: int = 100_000,
                  seed: int = CHECK_SEED, executor="processes") -> PaperResult:
    """The options table again for `options` on `level` alone, both rules (first click safe
    in the corner, and the zero start on OPENING_FIRST_CELLS), on the boards of `seed`:
    each option's paired gain over best's defaults, the options table's columns, and
    `confirmed`: the gain's 95% interval lies above zero."""
    t = options_table(options, levels=(level,), games=games, expert_games=games, seed=seed, executor=executor,
                      zero_start=(level,)).table
    t["confirmed"] = t["gain_low"] > 0
    return PaperResult("options_check", None, t.drop(columns="kept"), [])


# Two details of D. Hill's guess step that `best`'s secondary rule does otherwise, written
# from reading his solver (its secondary safety analysis and its probability engine's dead
# tiles), where the shadow-play catalogue's largest class lies (his guessing heuristic):
# off by default, each judged by `guess_details` on DETAILS_SEED, a tuning seed no other
# table plays. The reading fixed before its numbers is the options check's: a detail is
# confirmed on a rule where its gain's 95% interval lies above zero.
GUESS_DETAILS = {
    "dead cells one step ahead also where a number fixes their mines (dead_by_numbers)": {"dead_by_numbers": True},
    "the single safest next cell, if safer, revealed first (safest_next: D. Hill's dominating tile)":
        {"safest_next": True},
    "both details": {"dead_by_numbers": True, "safest_next": True},
}
DETAILS_SEED = TUNING_SEEDS[920]


def guess_details(options: dict = GUESS_DETAILS, level: str = "16x30x99", games: int = 100_000,
                  seed: int = DETAILS_SEED, executor="processes") -> PaperResult:
    """The options check (`options_check`: paired gains over best's defaults on `level`,
    both rules, and `confirmed`) for the details of D. Hill's guess step in `options`,
    on the boards of `seed`."""
    t = options_check(options, level=level, games=games, seed=seed, executor=executor).table
    return PaperResult("guess_details", None, t, [])


# Chains of 50/50s (`chain_fifty_fifty`) again, on a tuning seed of their own (CHAIN_SEED)
# with four times the options check's games. The options check left the option open on
# both rules; the shadow play beside D. Hill's solver then found positions where his
# solver guesses a 50/50 that `best` leaves for later and his move is the better one. The
# reading fixed before its numbers: the option is confirmed on a rule where its gain's 95%
# interval on CHAIN_SEED lies above zero; this seed's result stands on its own (it is not
# pooled with the options check's), and either way the two are reported side by side.
#
# The wider join (`chain_join_cells` 8) is checked beside it on the same boards: D. Hill's
# solver joins two chains through any number needing one mine (`checkForUnavoidable5050-
# OrPseudo` collects every witness with one mine to find among more than two tiles as a
# pseudo link), where `best` took only numbers with three cells; the shadow play's pseudo
# 50/50 disagreements include such joins (tests/data/best_chain_join.mine). So is the
# wider join with conditional links (`chain_shared_cell`): numbers needing one mine among
# three cells that share a cell link their other two where it is safe, which is how his
# pseudo links turn such numbers into "an unavoidable 50/50 guess, or safe"
# (tests/data/best_chain_shared.mine). Their reading, fixed before their numbers, is the
# same: confirmed on a rule where the gain over the defaults has a 95% interval above
# zero on CHAIN_SEED; the three rows are read as one option's versions on the same boards,
# not as tests of their differences.
CHAIN_CHECK = {name: OPTIONS[name] for name in (
    "chains of 50/50s: a cell that is a mine only in one state of a chain guessed at once",)}
CHAIN_CHECK["the same, two chains joined through any number needing one mine (chain_join_cells 8)"] = \
    {"chain_fifty_fifty": True, "chain_join_cells": 8}
CHAIN_CHECK["the same, and links through a cell three-cell numbers share (chain_shared_cell)"] = \
    {"chain_fifty_fifty": True, "chain_join_cells": 8, "chain_shared_cell": True}
CHAIN_SEED = TUNING_SEEDS[921]


def chain_check(options: dict = CHAIN_CHECK, level: str = "16x30x99", games: int = 400_000,
                seed: int = CHAIN_SEED, executor="processes") -> PaperResult:
    """The options check (`options_check`: paired gains over best's defaults on `level`,
    both rules, and `confirmed`) for the chains of 50/50s, on the boards of `seed`."""
    t = options_check(options, level=level, games=games, seed=seed, executor=executor).table
    return PaperResult("chain_check", None, t, [])


# D. Hill's guess step values every candidate within its margin (no cap), and adds the
# cells a 50/50 may form around wherever they are (his `tieBreak` takes `ltr.getInfluenced-
# Tiles` whatever their place); `best` values MAX_CANDIDATES cells at most and leaves out
# an off-frontier cell less safe than (1 - float_cut) of the safest, whatever its long-term
# risk. The replay of the shadow play's disagreements (`hill.py resolve`, the resolutions
# table) shows both passing over moves of his guessing heuristic that `best`'s own score
# ranks first. `best`'s settings nearest to his are judged here: 64 candidates and no
# off-frontier cut (his rule exempts from the cut only the cells with long-term risk; no
# cut also takes the others). The reading fixed before its numbers is the options check's:
# confirmed where the gain's 95% interval on CANDIDATES_SEED, a tuning seed no other table
# plays, lies above zero. It is played on the safe corner start alone, where his record is
# measured closest (10^7 games), with ten times the options check's games.
CANDIDATE_CHECK = {"64 candidates and no off-frontier cut (max_candidates 64, float_cut 1)":
                   {"max_candidates": 64, "float_cut": 1.0}}
CANDIDATES_SEED = TUNING_SEEDS[922]


def candidates_check(options: dict = CANDIDATE_CHECK, level: str = "16x30x99", games: int = 1_000_000,
                     seed: int = CANDIDATES_SEED, executor="processes") -> PaperResult:
    """The options check's columns (paired gains over best's defaults, and `confirmed`)
    for `best`'s candidate settings in `options` on `level`, first click safe in the
    corner, on the boards of `seed`."""
    t = options_table(options, levels=(level,), games=games, expert_games=games, seed=seed, executor=executor,
                      zero_start=()).table
    t["confirmed"] = t["gain_low"] > 0
    return PaperResult("candidates_check", None, t.drop(columns="kept"), [])


# The settings the checks above confirmed, together, against best's defaults: a combination
# of gains each measured on its own seed is a guess at their sum until the same boards show
# it. Two combinations: the settings confirmed whose work is that of the defaults' order
# (chains joined through any number needing one mine, confirmed on both rules by the chain
# check; 64 candidates and no off-frontier cut, confirmed on the safe corner start by the
# candidates check), and the same with the options check's combination (D. Hill's three
# steps and the endgame search over up to 1024 layouts, confirmed on both rules), whose
# endgame search costs best much of its speed (`minelab bench csp`, docs/benchmarks.md).
# The links through a shared cell are left out (confirmed on one rule only), and so are the
# guess details (confirmed on neither). The reading fixed before its numbers is the options
# check's, on both rules and on DEFAULTS_SEED, a tuning seed no other table plays: a
# combination is confirmed on a rule where its gain's 95% interval lies above zero.
_CHAINS_AND_CANDIDATES = {"chain_fifty_fifty": True, "chain_join_cells": 8, "max_candidates": 64, "float_cut": 1.0}
DEFAULTS_CHECK = {
    "chains joined through one-mine numbers, 64 candidates, no off-frontier cut": _CHAINS_AND_CANDIDATES,
    "the same, with D. Hill's three steps and the endgame search over up to 1024 layouts": {
        **_CHAINS_AND_CANDIDATES,
        **CHECK_OPTIONS["all three of D. Hill's steps and the endgame search over up to 1024 layouts"]},
}
DEFAULTS_SEED = TUNING_SEEDS[923]
# Every parameter set a table above judges, by its name there (`minelab bench csp` times them).
JUDGED = {**OPTIONS, **CHECK_OPTIONS, **GUESS_DETAILS, **CHAIN_CHECK, **CANDIDATE_CHECK, **DEFAULTS_CHECK}


def defaults_check(options: dict = DEFAULTS_CHECK, level: str = "16x30x99", games: int = 300_000,
                   seed: int = DEFAULTS_SEED, executor="processes") -> PaperResult:
    """The options check (`options_check`: paired gains over best's defaults on `level`,
    both rules, and `confirmed`) for the combinations of confirmed settings in `options`,
    on the boards of `seed`."""
    t = options_check(options, level=level, games=games, seed=seed, executor=executor).table
    return PaperResult("defaults_check", None, t, [])


FIRST_CELL_CANDIDATES = ((0, 0), (1, 1), (2, 2), (3, 3))  # zero start: where the first click may go
# The zero start's first cell per level: the cell of FIRST_CELL_CANDIDATES (and of a wider
# scan near the corner) with the highest paired win rate on tuning seeds; `opening_cells`
# reruns the comparison at the leaderboard notebook's profile (figures/leaderboard/opening_cells*.csv).
OPENING_FIRST_CELLS: dict[str, tuple[int, int]] = {"8x8x10": (2, 2), "9x9x10": (2, 2), "16x16x40": (2, 2),
                                                   "16x30x99": (3, 3)}
FINAL_GAMES = SIZES["paper"]["final_games"]  # per rule on 8x8x10, 9x9x10 and 16x16x40
FINAL_EXPERT_GAMES = SIZES["paper"]["final_expert_games"]  # per rule on 16x30x99


def opening_cells(levels=LEVELS, cells=FIRST_CELL_CANDIDATES, games: int = 20_000, expert_games: int = 5_000,
                  seed: int = TUNING_SEEDS[0], executor="processes") -> PaperResult:
    """Under the opening rule (the first click is a zero), `best` with its first click on
    each of `cells`, paired on the same boards per level: win rates, each cell's paired
    difference from the corner, and per level the best cell (column `best`)."""
    variants = {str(tuple(c)): ({} if tuple(c) == (0, 0) else {"first_click": list(c)}) for c in cells}
    base = str((0, 0)) if (0, 0) in [tuple(c) for c in cells] else next(iter(variants))
    plan = {f"{level}:opening": (variants, _games_for(level, games, expert_games)) for level in levels}
    t = paired_gains_levels(plan, seed, base=base, executor=executor)  # every level in one sweep
    rows = []
    for level in levels:
        part = t[t["level"] == f"{level}:opening"]
        first = part.iloc[0]
        rows.append({"level": level, "first_cell": base, "games": int(first.games),
                     "win_rate": first.base_win_rate, "diff": 0.0, "diff_low": 0.0, "diff_high": 0.0,
                     "mcnemar_p": 1.0})
        rows += [{"level": level, "first_cell": r.variant, "games": int(r.games), "win_rate": r.variant_win_rate,
                  "diff": r.diff, "diff_low": r.diff_low, "diff_high": r.diff_high, "mcnemar_p": r.mcnemar_p}
                 for r in part.itertuples()]
    table = pd.DataFrame(rows)
    for level, part in table.groupby("level", sort=False):
        lo, hi = zip(*(wilson(round(w * n), n) for w, n in zip(part["win_rate"], part["games"])))
        table.loc[part.index, "ci_low"], table.loc[part.index, "ci_high"] = lo, hi
        table.loc[part.index, "best"] = part["win_rate"] == part["win_rate"].max()
    table["best"] = table["best"].astype(bool)
    return PaperResult("opening_cells", None, table, [])


def evaluation_tasks(levels=LEVELS, rules=("safe", "opening"), games: int = FINAL_GAMES,
                     seed: int = EVALUATION_SEED, first_cells: dict | None = None,
                     expert_games: int | None = None) -> list[dict]:
    """The final evaluation's play tasks: `best`'s defaults, `games` games per level and
    rule (`expert_games` on 16x30x99, default `games`) in chunks of CHUNK; first_cells:
    {(level, rule): (row, col)} of the first click (the agent's first_click parameter),
    else its default (the corner)."""
    games = check_games("games", games)
    expert_games = games if expert_games is None else check_games("expert_games", expert_games)
    tasks = []
    for level in levels:
        for rule in rules:
            cell = (first_cells or {}).get((level, rule))
            params = {"first_click": list(cell)} if cell is not None else {}
            tasks += play_tasks([AGENT], f"{level}:{rule}", _games_for(level, games, expert_games), seed,
                                chunk=CHUNK, agent_params={AGENT: params})
    return tasks


def evaluate(tasks: list[dict], scheduler=None) -> pd.DataFrame:
    """Run the evaluation tasks (resumable: finished chunks are kept in the result cache)
    on a dask cluster: `scheduler` (an address or a Client), else a LocalCluster of one
    single-threaded worker process per core. Returns win rates with Wilson intervals, per
    level and parameters. Each group of tasks is swept and counted on its own, so only one
    group's per-game rows (10^7 at the paper size) are held at a time."""
    groups: dict[tuple, list[dict]] = {}
    for t in tasks:
        groups.setdefault((t["level"], json.dumps(t.get("agent_params", {}), sort_keys=True)), []).append(t)

    def count(executor) -> list[dict]:
        rows = []
        for part_tasks in groups.values():
            part = run_sweep(part_tasks, executor=executor)
            for (level, params), g in part.groupby(["level", _params_key(part)], sort=False):
                wins, n = int(g["won"].sum()), len(g)
                lo, hi = wilson(wins, n)
                rows.append({"level": level, "agent_params": params, "games": n, "wins": wins, "win_rate": wins / n,
                             "ci_low": lo, "ci_high": hi})
            del part
        return rows

    if scheduler is not None:
        return pd.DataFrame(count(scheduler))
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as e:  # the optional extra
        raise ValueError("evaluate needs dask.distributed (pip install 'minelab[dask]') or a scheduler") from e
    # Quiet at close: a worker's last heartbeat may race the shutdown, which distributed logs
    # as a CommClosedError traceback although nothing failed; a task's own error still
    # reaches run_sweep through its future. The client closes before the cluster.
    cluster = LocalCluster(threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.CRITICAL)
    client = Client(cluster)
    try:
        return pd.DataFrame(count(client))
    finally:
        client.close(timeout=30)
        cluster.close(timeout=30)


# Where a guess happens, for `loss_profile`: by revealed cells while few are (such early
# positions recur; best's decision memo keeps them), then by the share of safe cells revealed.
EARLY_REVEALED = 8  # the most revealed cells of an early position: a bound of the table's stages, its own
STAGES = ("1-3 cells revealed", f"4-{EARLY_REVEALED} cells revealed", "under 25% of safe cells revealed",
          "25-75% revealed", "over 75% revealed")


def _stage(revealed: int, safe_cells: int) -> str:
    if revealed <= 3:
        return STAGES[0]
    if revealed <= EARLY_REVEALED:
        return STAGES[1]
    share = revealed / safe_cells
    return STAGES[2] if share < 0.25 else (STAGES[3] if share < 0.75 else STAGES[4])


def loss_profile(levels=("8x8x10", "16x30x99"), games: int = 2_000, expert_games: int = 300,
                 seed: int = TUNING_SEEDS[-1]) -> PaperResult:
    """Where `best` loses, per level (`level_losses`, expert_games on 16x30x99): one table."""
    parts = [level_losses(lv, _games_for(lv, games, expert_games), seed) for lv in levels]
    return PaperResult("loss_profile", None, pd.concat(parts, ignore_index=True), [])


def played_guesses(level, games: int, seed: int, params: dict | None = None):
    """`best` (with `params`) on `games` games of `level` dealt from `seed`, played decision
    by decision from Python: for each game, whether it was won and its guesses in order,
    each (the view before it, the cell, the step that made it, its mine probability by
    the agent's own solve). The first click is not a guess (nothing is revealed yet);
    a lost game ends on its last guess (a certain move never meets a mine)."""
    lv = Level.parse(level)
    agent = make_agent(AGENT, **(params or {}))
    agent.warm_up(lv)
    for child in np.random.SeedSequence(seed).spawn(games):
        game = Game(lv, seed=child)
        s = agent.state(lv.cells, lv.mines)
        guesses = []
        while not game.over:
            moves = agent.decision(game)
            view = game._gs.shown
            if s.decision[DC_GUESS] and (view >= 0).any():
                cell = int(moves[0][1])
                guesses.append((view.copy(), cell, agent.guess_step(s), float(s.ws.prob[cell])))
            agent.play_moves(game, moves)
        yield bool(game.won), guesses


def level_losses(level: str, games: int, seed: int) -> pd.DataFrame:
    """Where `best` loses on `level`: every guess of `games` games (dealt from `seed`), by the step
    that made it (endgame search, forced 50/50, lookahead) and the stage of the game.
    A guess at mine probability p adds p expected losses to its group (the probabilities
    of the agent's own solve: exact unless it fell back to its local estimate); per
    group: guesses, expected losses per game with a 95% t-interval over games, their
    share of all, the games lost there, mean p; and on
    every row the games' win rate (Wilson interval) and `early_positions`, the distinct
    positions with at most EARLY_REVEALED revealed cells where a guess was made. Games
    are played decision by decision from Python (`played_guesses`), with the
    explanations: about 600 8x8x10 or 12 16x30x99 games a second."""
    lv = Level.parse(level)
    games = check_games("games", games)
    seed = check_seed(seed)
    safe_cells = lv.cells - lv.mines
    keys = [(step_, stage) for step_ in GUESS_STEPS for stage in STAGES]
    expected = np.zeros((games, len(keys)))
    counts = np.zeros(len(keys), np.int64)
    fatal = np.zeros(len(keys), np.int64)
    early = set()  # positions with at most EARLY_REVEALED revealed cells where a guess was made
    won = 0
    for g, (game_won, guesses) in enumerate(played_guesses(lv, games, seed)):
        k = None
        for view, cell, step_, p in guesses:
            revealed = int((view >= 0).sum())
            k = keys.index((step_, _stage(revealed, safe_cells)))
            expected[g, k] += p
            counts[k] += 1
            if revealed <= EARLY_REVEALED:
                early.add(view.tobytes())
        if not game_won and k is not None:
            fatal[k] += 1  # the last guess
        won += game_won
    total = expected.sum()
    rows = []
    for k, (step_, stage) in enumerate(keys):
        if counts[k] == 0:
            continue
        per_game = expected[:, k]
        mean = per_game.mean()
        half = sps.t.ppf(0.975, games - 1) * per_game.std(ddof=1) / np.sqrt(games) if games > 1 else np.nan
        rows.append({"level": level, "step": step_, "stage": stage, "games": games, "guesses": int(counts[k]),
                     "expected_losses_per_game": mean, "ci_low": max(mean - half, 0.0), "ci_high": mean + half,
                     "share": per_game.sum() / total if total else 0.0, "games_lost_here": int(fatal[k]),
                     "mean_p_mine": per_game.sum() / counts[k]})
    columns = ["level", "step", "stage", "games", "guesses", "expected_losses_per_game", "ci_low", "ci_high",
               "share", "games_lost_here", "mean_p_mine"]  # no rows when no game needed a guess
    table = pd.DataFrame(rows, columns=columns).sort_values("expected_losses_per_game", ascending=False,
                                                            ignore_index=True)
    lo, hi = wilson(won, games)
    return table.assign(win_rate=won / games, win_low=lo, win_high=hi, early_positions=len(early))


def optimum_regret(level: str = "5x5x5:none", games: int = 2_000, seed: int = TUNING_SEEDS[-2],
                   params: dict | None = None) -> PaperResult:
    """Where `best` (with `params`) falls short of optimal play, on a board small enough
    for the exact solver (`minelab.exact`: at most 64 cells and 5,000,000 layouts).

    Each guess of `games` games (dealt from `seed`) is set against the exact value of
    every move in its position (`exact.move_values`): its regret is the best move's
    exact win probability minus the chosen one's. By the performance-difference identity
    the regrets along a game add up, in expectation, to the whole gap: the optimum of the
    first click made, minus the win rate. Certain moves have no regret (revealing a cell
    that is certainly safe never lowers the optimum), so only guesses are looked at.
    Per step that guessed (`best.guess_step`) and for the first click: guesses, the
    suboptimal ones, regret per game in points with a 95% t-interval over games, and
    how the regret splits by the optimal move's mine probability against the chosen
    one's (equal: the loss is in the order among equally safe cells). Every row also has
    the win rate (Wilson), the optimum of the first click made, and `check`: the mean
    over games of (won + regrets), which estimates that optimum (t-interval).
    """
    from .. import exact

    lv = Level.parse(level)
    games = check_games("games", games)
    seed = check_seed(seed)
    params = dict(params or {})
    values = exact.first_click_values(lv, "best")  # every first cell; a board too big is refused here
    first = tuple(int(v) for v in params.get("first_click", (0, 0)))
    first_value, top = float(values[first]), float(max(values.values()))
    keys = GUESS_STEPS
    regret = np.zeros((games, len(keys)))
    counts, wrong = np.zeros(len(keys), np.int64), np.zeros(len(keys), np.int64)
    by_safety = np.zeros((len(keys), 3))  # regret where the optimum is safer / as safe / less safe
    won = np.zeros(games)
    for g, (game_won, guesses) in enumerate(played_guesses(lv, games, seed, params)):
        won[g] = game_won
        for view, cell, step_, _ in guesses:
            view, cell, k = view.reshape(lv.rows, lv.cols), divmod(cell, lv.cols), keys.index(step_)
            vals = exact.move_values(lv, view)
            best_value = max(vals.values())
            r = float(best_value - vals[cell])
            counts[k] += 1
            if r > 0:
                probs = exact.mine_probabilities(lv, view)
                p_opt = min(probs[c] for c, v in vals.items() if v == best_value)
                regret[g, k] += r
                wrong[k] += 1
                by_safety[k, 0 if p_opt < probs[cell] else (1 if p_opt == probs[cell] else 2)] += r
    t = sps.t.ppf(0.975, games - 1) if games > 1 else np.nan
    total = won + regret.sum(axis=1)
    check, check_half = total.mean(), t * total.std(ddof=1) / np.sqrt(games) if games > 1 else np.nan
    lo, hi = wilson(int(won.sum()), games)
    first_regret = 100 * (top - first_value)  # the same in every game: no interval
    rows = [{"step": "first click", "guesses": games, "suboptimal": games * (first_value < top),
             "regret_points": first_regret, "ci_low": first_regret, "ci_high": first_regret,
             "optimum_safer": np.nan, "as_safe": np.nan, "optimum_riskier": np.nan}]
    for k, step_ in enumerate(keys):
        if counts[k] == 0:
            continue
        mean, half = 100 * regret[:, k].mean(), 100 * t * regret[:, k].std(ddof=1) / np.sqrt(games)
        share = by_safety[k] / by_safety[k].sum() if by_safety[k].sum() > 0 else np.full(3, np.nan)
        rows.append({"step": step_, "guesses": int(counts[k]), "suboptimal": int(wrong[k]), "regret_points": mean,
                     "ci_low": mean - half, "ci_high": mean + half, "optimum_safer": share[0], "as_safe": share[1],
                     "optimum_riskier": share[2]})
    table = pd.DataFrame(rows).assign(level=str(lv), games=games, win_rate=won.mean(), win_low=lo, win_high=hi,
                                      optimum=first_value, best_first_optimum=top, check=check,
                                      check_low=check - check_half, check_high=check + check_half)
    table = table[["level", "step", "games", "guesses", "suboptimal", "regret_points", "ci_low", "ci_high",
                   "optimum_safer", "as_safe", "optimum_riskier", "win_rate", "win_low", "win_high", "optimum",
                   "best_first_optimum", "check", "check_low", "check_high"]]
    return PaperResult("optimum_regret", None, table, [])


def _consistent_layouts(lv: Level, shown: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    """n layouts drawn uniformly among those of lv's mines with the cells of `shown`
    ({flat cell: number}) safe and showing their numbers (rejection from uniform deals)."""
    table, count = neighbour_table(lv.rows, lv.cols)
    nbr = [table[i, :count[i]] for i in shown]
    free = np.setdiff1d(np.arange(lv.cells), list(shown))
    want = np.array(list(shown.values()))
    out = np.zeros((n, lv.cells), np.uint8)
    got, tries = 0, 0
    while got < n:
        tries += 1
        if tries > 1000 * n + 10_000:
            raise ValueError(f"position: no layout of {lv.mines} mines shows these numbers (or almost none does)")
        m = np.zeros(lv.cells, np.uint8)
        m[rng.choice(free, lv.mines, replace=False)] = 1
        if all(m[cells].sum() == v for cells, v in zip(nbr, want)):
            out[got] = m
            got += 1
    return out


def _rollout_table(level: str, boards: np.ndarray, opened: list[int], cand: list[int], rng: np.random.Generator,
                   extra: dict) -> pd.DataFrame:
    """`best`'s rollouts of each candidate (cand[0] the reference) on `boards` from the
    position `opened` makes: a row per candidate, its win rate (Wilson interval) and its
    paired difference from cand[0] with a 95% t-interval."""
    lv = Level.parse(level)
    agent = make_agent(AGENT)
    game = Game.from_mines(boards[0].reshape(lv.rows, lv.cols))
    state, x = agent.state(lv.cells, lv.mines), agent.buffers(lv.cells, lv.mines)
    wins = np.zeros((boards.shape[0], len(cand)), np.uint8)
    best_rollouts(game._gs, boards, np.array(opened, np.int64), np.array(cand, np.int64), state, x,
                  agent.settings(lv.rows, lv.cols), rng, wins)
    rows = []
    n = boards.shape[0]
    for k, q in enumerate(cand):
        w = int(wins[:, k].sum())
        lo, hi = wilson(w, n)
        d = wins[:, k].astype(float) - wins[:, 0]  # floats: uint8 differences would wrap
        ci = sps.ttest_1samp(d, 0.0).confidence_interval(0.95) if k and d.std() > 0 else None
        rows.append({"level": level, "cell": str(divmod(q, lv.cols)), **{key: v[k] for key, v in extra.items()},
                     "layouts": n, "win_rate": w / n, "ci_low": lo, "ci_high": hi, "diff": d.mean(),
                     "diff_low": float(ci.low) if ci is not None else d.mean(),
                     "diff_high": float(ci.high) if ci is not None else d.mean()})  # no spread: no interval
    return pd.DataFrame(rows)


def rollout_values(level: str, shown: dict, candidates, layouts: int = 20_000,
                   seed: int = TUNING_SEEDS[-2]) -> pd.DataFrame:
    """Is `best`'s guess the best one in a position? The position: the cells of `shown`
    ({(row, col): number}, numbers 1-8, so no flood) revealed. On `layouts` layouts drawn
    uniformly among the consistent ones (from `seed`; the posterior under the safe and
    none rules, not the zero start's), each cell of `candidates` (and
    `best`'s own guess) is revealed, then `best` plays to the end: each cell's win rate
    (Wilson interval) and its paired difference from `best`'s guess with a 95% t-interval.
    Policy evaluation by rollouts: the layouts are drawn by the study, never seen by `best`."""
    lv = Level.parse(level)
    layouts = check_games("layouts", layouts)
    seed = check_seed(seed)
    if not isinstance(shown, dict) or not shown:
        raise ValueError(f"shown must be a non-empty dict {{(row, col): number}}, got {shown!r}")
    flat = {}
    for (r, c), v in shown.items():
        if not (0 <= r < lv.rows and 0 <= c < lv.cols) or not isinstance(v, (int, np.integer)) or not 1 <= v <= 8:
            raise ValueError(f"shown: ({r}, {c}) must be a cell of {level} with a number 1-8, got {v!r}")
        flat[r * lv.cols + c] = int(v)
    cand = [r * lv.cols + c for r, c in candidates]
    if not cand or any(not 0 <= q < lv.cells or q in flat for q in cand):
        raise ValueError("candidates must be covered cells (row, col) of the level, at least one")
    rng = np.random.default_rng(seed)
    boards = _consistent_layouts(lv, flat, layouts, rng)
    game = Game.from_mines(boards[0].reshape(lv.rows, lv.cols))
    for q in flat:
        game.reveal(*divmod(q, lv.cols))
    own = next(q for kind, q in make_agent(AGENT).decision(game) if kind == REVEAL)  # best's reveal (its guess)
    cand = [own] + [q for q in dict.fromkeys(cand) if q != own]
    table = _rollout_table(level, boards, list(flat), cand, rng, {"best_guess": [k == 0 for k in range(len(cand))]})
    return table.sort_values("win_rate", ascending=False, kind="stable", ignore_index=True)


def move_values(view, mines: int, cells, layouts: int = 2_000, seed: int = TUNING_SEEDS[-2]) -> pd.DataFrame:
    """Which of several reveals is better in any position? `view`: what the player sees
    (rows x cols, as `Game.view`: COVERED, FLAGGED, taken as covered, or a number), `mines`
    in all; `cells`: covered (row, col) cells, the first the reference. On `layouts`
    layouts drawn exactly and uniformly among the consistent ones
    (`minelab.probability.sample_layouts`, from `seed`; the posterior of the safe and none
    rules), each cell is revealed, then `best` plays to the end: a row per cell with its win
    rate (Wilson interval) and its paired difference from the first cell's (95% t-interval).
    The layouts are drawn by the study, never seen by `best`."""
    from ..probability import sample_layouts

    arr = np.asarray(view)
    if arr.ndim != 2:
        raise ValueError(f"view must be a 2-d array (rows, cols), got shape {arr.shape}")
    lv = Level(arr.shape[0], arr.shape[1], int(mines), "none")
    layouts = check_games("layouts", layouts)
    rng = np.random.default_rng(check_seed(seed))
    cand = [int(r) * lv.cols + int(c) for r, c in cells]
    flat = arr.ravel()
    if not cand or any(not 0 <= q < lv.cells or flat[q] >= 0 for q in cand):
        raise ValueError("cells must be covered cells (row, col) of the view, at least one")
    boards = sample_layouts(arr, lv.mines, layouts, rng).reshape(layouts, lv.cells).astype(np.uint8)
    # the revealed cells, each opened only if no earlier flood showed it (the zeros first)
    game = Game.from_mines(boards[0].reshape(lv.rows, lv.cols))
    opened = []
    for q in sorted(np.flatnonzero(flat >= 0), key=lambda q: flat[q] != 0):
        if game.view.ravel()[q] < 0:
            game.reveal(*divmod(int(q), lv.cols))
            opened.append(int(q))
    if not np.array_equal(game.view.ravel() >= 0, flat >= 0):
        raise ValueError("view: its revealed cells are not what revealing them shows (a zero with a covered "
                         "neighbour?)")
    return _rollout_table(str(lv), boards, opened, cand, rng, {"reference": [k == 0 for k in range(len(cand))]})


def _opening_cell(level: str, first_cells: dict) -> tuple[int, int]:
    return tuple(first_cells.get(level, (0, 0)))


def final_win_rates(games: int = FINAL_GAMES, levels=LEVELS, rules=("safe", "opening"), first_cells=None,
                    seed: int = EVALUATION_SEED, scheduler=None, peers: pd.DataFrame | None = None,
                    expert_games: int = FINAL_EXPERT_GAMES) -> PaperResult:
    """`best` as frozen, on seeds no tuning used: `games` games per level and rule
    (`expert_games` on 16x30x99; a resumable sweep on a dask cluster, `evaluate`), the
    first click in the corner under the safe rule and on `first_cells[level]` under the
    opening rule (default OPENING_FIRST_CELLS, chosen by `opening_cells` on tuning seeds). `peers`: published
    results set beside, with columns level, rule, program, games, value, ci_low, ci_high,
    source and note (the leaderboard notebook passes `leaderboard.load_published()`)."""
    first_cells = OPENING_FIRST_CELLS if first_cells is None else dict(first_cells)
    cells = {(lv, "opening"): _opening_cell(lv, first_cells) for lv in levels}
    cells = {k: v for k, v in cells.items() if v != (0, 0)}
    tasks = evaluation_tasks(levels, rules, games, seed, first_cells=cells, expert_games=expert_games)
    rates = evaluate(tasks, scheduler=scheduler)
    rows = []
    for r in rates.itertuples():
        level = Level.parse(r.level)
        name = f"{level.rows}x{level.cols}x{level.mines}"
        cell = cells.get((name, level.first_click), (0, 0))
        rows.append({"level": name, "rule": level.first_click, "program": "minelab best (final evaluation)",
                     "first_cell": str(cell), "games": r.games, "wins": r.wins, "win_rate": r.win_rate,
                     "ci_low": r.ci_low, "ci_high": r.ci_high, "source": f"minelab, seed {seed}", "note": ""})
    pub = peers if peers is not None else pd.DataFrame(columns=["level", "rule", "program", "games", "value",
                                                                "ci_low", "ci_high", "source", "note"])
    pub = pub[pub["level"].isin(list(levels)) & pub["rule"].isin(list(rules))]
    peers = pd.DataFrame({"level": pub["level"], "rule": pub["rule"], "program": pub["program"] + " (published)",
                          "first_cell": "", "games": pub["games"], "wins": pd.NA, "win_rate": pub["value"],
                          "ci_low": pub["ci_low"], "ci_high": pub["ci_high"], "source": pub["source"],
                          "note": pub["note"]})  # the published note says the first cell
    table = pd.concat([pd.DataFrame(rows), peers], ignore_index=True)
    order = {lv: i for i, lv in enumerate(levels)}
    table = table.assign(_lv=table["level"].map(order), _rule=table["rule"].map({r: i for i, r in enumerate(rules)}))
    table = table.sort_values(["_lv", "_rule", "win_rate"], ascending=[True, True, False], kind="stable")
    table = table.drop(columns=["_lv", "_rule"])
    for col in ("games", "wins"):
        table[col] = pd.array([None if pd.isna(v) else int(v) for v in table[col]], dtype="Int64")
    measured = [{"item": r["level"], "quantity": f"best win rate, first click {r['rule']}, final evaluation",
                 "value": r["win_rate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"], "games": int(r["games"]),
                 "note": f"best frozen; seed {seed}, never used in tuning; first cell {r['first_cell']}; "
                         f"{CHUNK:,}-game chunks of a resumable sweep", "agents": "best"} for r in rows]
    return PaperResult("final_win_rates", None, table.reset_index(drop=True), measured)

