"""Bilir, Kong & Wittenbrink (2023), "Minesweeper: A Reinforcement Learning Approach":
Fig 1 (win rate vs training games), Fig A1 (MCTS, 1 vs 10 simulations) and Fig A2 (the
Q table's size), each a function named after it whose run sizes are keyword defaults.

The game (§3, and the authors' program): 5x5 with 5 mines, no first-click protection
(`5x5x5:none`), zeros flood-fill, no flags; rewards +1 / +10 / -10. The agents are in
minelab.agents.rl (`q-learning`, `sarsa`, `linear-q`, `mcts`). One shared task kind,
"train_eval" (minelab.tasks): a learner trained for `games` games, its frozen greedy
policy evaluated every `every` games on `eval_games` fresh boards (§5: every 100,000
games, 10,000 boards). Every method and the random baseline meet the same evaluation
boards (one evaluation seed) and the same training boards (one training seed per
replicate): paired comparisons.

Readings, stated before any number was compared (see docs/reproductions.md):
- the text's algorithms are the defaults; where the authors' program did otherwise it
  is a labelled variant run beside: SARSA bootstrapping from the current state, linear Q
  with a constant epsilon = 0.1, and MCTS whose simulations see the true board
  (`leaky`, a cheat);
- MCTS is evaluated like the others: greedy on its stored Q, no simulations (§5 "applied
  the current optimal (greedy) policy"); its training moves use one simulation per
  state (Fig 1) or ten (Fig A1).

Registered readings (data/published/readings.csv), each run on every number it changes:
MCTS acting by UCB1 and Eq. (7) as printed (`mcts_readings`), Fig A2's states counted
with terminal ones (`figA2_terminal_states`), and the variants above, each standing for
its method in the ratios to random and the marginal-returns row (`variant_rows`).

Intervals: each evaluation point is `eval_games` independent boards played by a fixed
policy: Wilson 95%. With replicates > 1 (independent training runs), points carry a t
interval over the runs instead (a learner's run is one observation).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..report import PaperResult
from . import judged, ledger_rows, reading_lines, verdict_of
from ..stats import t_interval, wilson
from ..sweep import derive_seed, run_sweep, task_key, task_rows
from ..tasks import eval_spec, play_tasks, win_rates

PAPER = "bilir2023"
NOTEBOOK = "bilir2023_rl.ipynb"
MODULE = __name__
LEVEL = "5x5x5:none"

# (label, agent, params): the paper's methods as its text describes them ...
METHODS = (
    ("Q-learning", "q-learning", {}),
    ("SARSA", "sarsa", {}),
    ("linear Q", "linear-q", {}),
    ("MCTS", "mcts", {}),
    ("random", "random", {}),
)
# ... and what the authors' program did instead, beside them (labelled).
VARIANTS = (
    ("SARSA, program's update", "sarsa", {"bootstrap": "current-state"}),
    ("linear Q, program's ε=0.1", "linear-q", {"random_games": 0, "epsilon": 0.1}),
    ("MCTS, leaky (cheat)", "mcts", {"leaky": True}),
    ("linear Q, text's α=0.1", "linear-q", {"alpha": 0.1}),  # the text's only α (§4.1), a reading
)
# Readings of §4.4's MCTS that its text supports, registered (data/published/readings.csv)
# before they ran; `mcts_readings` runs them on every number they change (Fig 1 and Fig A1).
MCTS_READINGS = (
    ("MCTS, acting by UCB1", "mcts", {"act": "ucb1"}),  # "we selected actions based on maximized UCB1"
    ("MCTS, Eq. 7 as printed", "mcts", {"update": "printed"}),  # Q(s, a) = (q - Q(s, a)) / N(s, a)
)
LEARNERS = ("Q-learning", "SARSA", "linear Q", "MCTS")
# a method's label -> its registered agent
AGENT_OF = {label: agent for label, agent, _ in METHODS + VARIANTS + MCTS_READINGS}
REFERENCE_AGENT = "best"  # the strongest minelab solver, on the same rules

# Run sizes per profile. paper = the paper's: 3e7 training games, evaluated every 1e5 on
# 1e4 boards. The paper also trained MCTS on for "an additional 30 million games":
# mcts_games=60_000_000 does that, but its table then holds about 50 million states
# (several GB, more while it grows) and the run takes ~30 min more: beyond this 24 GB,
# 2-core machine next to the other runs, so the paper profile stops at 3e7.
SIZES = {
    "smoke": {"games": 2_000, "every": 500, "eval_games": 200, "mcts_games": 2_000, "replicates": 1,
              "reference_games": 200, "a1_games": 1_000, "a1_every": 250, "reading_replicates": 1},
    "quick": {"games": 2_000_000, "every": 100_000, "eval_games": 2_000, "mcts_games": 2_000_000,
              "replicates": 1, "reference_games": 20_000, "a1_games": 400_000, "a1_every": 20_000,
              "reading_replicates": 1},
    "paper": {"games": 30_000_000, "every": 100_000, "eval_games": 10_000, "mcts_games": 30_000_000,
              "replicates": 3, "reference_games": 100_000, "a1_games": 400_000, "a1_every": 20_000,
              "reading_replicates": 1},
}
# reading_replicates: training runs of each MCTS reading. One: a 30M-game MCTS run takes
# over an hour and several GB, and the honest MCTS of Fig 1 is itself one run (its
# interval is the Wilson interval of that run's evaluation boards).
PAPER_GAMES = 30_000_000  # the published numbers are "after 30M games"


def games_label(games: int) -> str:
    """30_000_000 -> '30M', 400_000 -> '400,000' (the way the paper names run lengths)."""
    return f"{games // 1_000_000}M" if games % 1_000_000 == 0 else f"{games:,}"


# ---------------------------------------------------------------------- running
def _check_methods(methods) -> list[tuple[str, str, dict]]:
    known = {m[0]: m for m in METHODS + VARIANTS + MCTS_READINGS}
    if isinstance(methods, str) or not hasattr(methods, "__iter__"):
        raise ValueError(f"methods must be a list of method labels ({', '.join(known)}), got {methods!r}")
    out = []
    for label in methods:
        if label not in known:
            raise ValueError(f"methods: {label!r} is not one of {', '.join(known)}")
        out.append(known[label])
    if not out:
        raise ValueError("methods is empty")
    return out


def _check_sizes(**sizes) -> None:
    for name, v in sizes.items():
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if sizes["games"] % sizes["every"]:
        raise ValueError(f"games ({sizes['games']}) must be a multiple of every ({sizes['every']})")


def run_curves(methods, games: int, every: int, eval_games: int, seed: int = 0, replicates: int = 1,
               executor="processes", games_for=None) -> pd.DataFrame:
    """Train and evaluate `methods` (labels of METHODS / VARIANTS); one row per
    (method, replicate, evaluation point): games_end, games, wins, win_rate, and for
    learners the training block's wins and `states`. `games_for`: {label: games} to run
    some methods longer (their first `games` points are the same run's)."""
    # the long honest MCTS run first and its leaky twin last: the two big tables never
    # grow side by side on a two-worker run
    specs = sorted(_check_methods(methods), key=lambda m: (m[0] != "MCTS", m[0] == "MCTS, leaky (cheat)"))
    _check_sizes(games=games, every=every, eval_games=eval_games, replicates=replicates)
    tasks = {}
    for label, agent, params in specs:
        n = int((games_for or {}).get(label, games))
        for r in range(replicates):
            tasks[(label, r)] = _eval_task(agent, params, n, every, eval_games, seed, r)
    unique = list({task_key(t): t for t in tasks.values()}.values())  # a label listed twice runs once
    return _curve_rows(run_sweep(unique, executor=executor, progress=len(tasks) > 1), tasks)


def _eval_task(agent: str, params: dict, games: int, every: int, eval_games: int, seed: int,
               replicate: int = 0) -> dict:
    """A train_eval task of this paper: the training boards of `replicate` and the
    evaluation boards every method meets, both derived from `seed` (paired runs)."""
    return eval_spec(agent, params, LEVEL, games, every, eval_games,
                     seed=derive_seed(seed, {"paper": PAPER, "replicate": replicate}),
                     eval_seed=derive_seed(seed, {"paper": PAPER, "evaluation": True}))


def _curve(table: pd.DataFrame, label: str, games: int) -> pd.DataFrame:
    """One method's evaluation points of a summarized table, up to `games`, in order."""
    return table[(table["method"] == label) & (table["games_end"] <= games)].sort_values("games_end")


def _method_of(label: str) -> str:
    """The method a label stands for: "SARSA, program's update" -> "SARSA"."""
    return label.split(",")[0]


def _curve_rows(df: pd.DataFrame, tasks: dict) -> pd.DataFrame:
    """run_curves' rows from a sweep's results `df` of `tasks` ({(label, replicate): task})."""
    rows = []
    for (label, r), task in tasks.items():
        part = task_rows(df, task)
        ev = part[part["part"] == "eval"][["games_end", "boards", "wins"]].astype(np.int64)
        tr = part[part["part"] == "train"]
        ev = ev.assign(method=label, replicate=r)
        if len(tr):
            extra = [c for c in ("states",) if c in tr.columns and tr[c].notna().all()]
            ev = ev.merge(tr[["games_end", "wins", *extra]].rename(columns={"wins": "train_wins"})
                          .astype(np.int64), on="games_end", how="left")
        rows.append(ev)
    out = pd.concat(rows, ignore_index=True)
    out["win_rate"] = out["wins"] / out["boards"]
    return out[["method", "replicate", "games_end", "boards", "wins", "win_rate"]
               + [c for c in ("train_wins", "states") if c in out.columns]]


def summarize(curves: pd.DataFrame) -> pd.DataFrame:
    """Per method and evaluation point: the win rate (mean over replicates) with its 95%
    interval, runs and boards per run. One run: Wilson's interval over its boards. Several:
    the t-interval over the runs, never narrower than Wilson's over all their boards
    pooled (each run's rate carries at least its boards' binomial noise, so runs that
    happen to agree, or all score 0, do not make the interval vanish), cut to [0, 1]."""
    rows = []
    for (method, g), part in curves.groupby(["method", "games_end"], sort=False):
        wlo, whi = wilson(int(part["wins"].sum()), int(part["boards"].sum()))
        if len(part) == 1:
            mean, lo, hi, kind = part["win_rate"].iloc[0], wlo, whi, "Wilson"
        else:
            mean, lo, hi = t_interval(part["win_rate"].to_numpy())
            kind = f"t over {len(part)} runs"
            if lo > wlo or hi < whi:
                kind += ", widened to the pooled Wilson interval"
            lo, hi = max(0.0, min(lo, wlo)), min(1.0, max(hi, whi))
        rows.append({"method": method, "games_end": int(g), "win_rate": mean, "ci_low": lo, "ci_high": hi,
                     "runs": len(part), "boards": int(part["boards"].iloc[0]), "interval": kind})
    return pd.DataFrame(rows)


def reference_rates(reference_games: int, seed: int = 0, executor="processes") -> pd.DataFrame:
    """`best` (and `random`) on the paper's rules: games, wins, win rate, Wilson interval."""
    tasks = play_tasks([REFERENCE_AGENT, "random"], LEVEL, reference_games, seed)
    return win_rates(run_sweep(tasks, executor=executor, progress=False), ("agent",))


# ---------------------------------------------------------------------- Fig 1
def fig01_win_rate_curves(games: int = SIZES["quick"]["games"], every: int = SIZES["quick"]["every"],
                          eval_games: int = SIZES["quick"]["eval_games"],
                          mcts_games: int = SIZES["quick"]["mcts_games"], replicates: int = 1,
                          reference_games: int = SIZES["quick"]["reference_games"], seed: int = 0,
                          executor="processes", methods=None) -> PaperResult:
    """Fig 1: evaluation win rate vs training games for Q-learning, SARSA, linear Q, MCTS
    and random (and the program's variants, labelled), with the strongest minelab solver
    on the same rules as a reference line and the published end points beside."""
    labels = [m[0] for m in METHODS + VARIANTS] if methods is None else list(methods)
    _check_sizes(games=games, every=every, eval_games=eval_games, mcts_games=mcts_games,
                 reference_games=reference_games)
    longer = {label: max(games, mcts_games) for label in labels if label == "MCTS"}
    if mcts_games % every:
        raise ValueError(f"mcts_games ({mcts_games}) must be a multiple of every ({every})")
    curves = run_curves(labels, games, every, eval_games, seed, replicates, executor, games_for=longer)
    table = summarize(curves)
    ref = reference_rates(reference_games, seed, executor)
    from .. import report

    pub = report.load_published(PAPER, claims=False)
    measured = _fig01_measured(table, curves, games, mcts_games)
    result = PaperResult("fig01_win_rate_curves", None, table, measured)
    result.figure = _fig01_figure(table, ref, pub, games)
    result.reference = ref  # the reference lines' numbers, for the text
    return result


def _point(table: pd.DataFrame, method: str, games_end: int):
    hit = table[(table["method"] == method) & (table["games_end"] == games_end)]
    return None if hit.empty else hit.iloc[0]


def _interval_note(r) -> str:
    """A summarize() row's interval kind and boards, as a measured row's note."""
    return f"{r.interval.removesuffix(' interval')} interval; {int(r.boards):,} evaluation boards a run"


def _row(item, quantity, r, note="", agents=None) -> dict:
    return {"item": item, "quantity": quantity, "value": float(r.win_rate), "ci_low": float(r.ci_low),
            "ci_high": float(r.ci_high), "games": int(r.boards), "runs": int(r.runs), "note": note,
            "agents": agents}


def _fig01_measured(table, curves, games, mcts_games) -> list[dict]:
    out, g = [], games_label(games)
    for label in table["method"].unique():
        r = _point(table, label, games)
        if r is None:
            continue
        if label == "random":
            # random play does not learn: every evaluation point measures the same policy, so pool them all
            part = curves[curves["method"] == label]
            wins, boards = int(part["wins"].sum()), int(part["boards"].sum())
            lo, hi = wilson(wins, boards)
            out.append({"item": "Fig 1", "quantity": "random policy win rate", "value": wins / boards, "ci_low": lo,
                        "ci_high": hi, "games": boards,
                        "note": f"Wilson interval; all {len(part)} evaluation points pooled "
                                "(the policy never changes)", "agents": AGENT_OF[label]})
            continue
        out.append(_row("Fig 1", f"{label} win rate after {g} games", r,
                        _interval_note(r), AGENT_OF[label]))
    for label in [m for m in table["method"].unique() if m.startswith("linear Q")]:  # the text's and each variant's
        lin = table[(table["method"] == label) & (table["games_end"] <= games)]
        if not len(lin):
            continue
        best = lin.loc[lin["win_rate"].idxmax()]
        out.append(_row("Fig 1", f"{label} highest win rate over {g} games", best,
                        f"the highest of {len(lin)} evaluation points (at {int(best.games_end):,} games)",
                        AGENT_OF[label]))
        r = _point(table, label, 1_000_000)
        if r is not None:
            out.append(_row("Fig 1", f"{label} win rate after 1M games", r, agents=AGENT_OF[label]))
    if mcts_games > games and (r := _point(table, "MCTS", mcts_games)) is not None:
        out.append(_row("Fig 1", f"MCTS win rate after {games_label(mcts_games)} games", r,
                        agents=AGENT_OF["MCTS"]))
    rnd = next((m for m in out if m["quantity"] == "random policy win rate"), None)
    out += _ratios(table, games, rnd)
    out += threshold_rows(table, games)
    out += marginal_rows(table, games)
    out += variant_rows(table, games, rnd)
    return out


THRESHOLD = 0.25  # §5 times a method by the games it needs "to attain a win percentage greater than 25 percent"


def _crossing(part: pd.DataFrame, level: float):
    """(value, low, high, beyond) for one method's curve (summarize's rows up to the run's
    end, sorted): the first evaluation point above `level`; from the first point whose
    judging interval (minelab.ledger: one run's 95% interval) reaches above it to the
    first whose interval lies wholly above it. A bound not reached is None; `beyond` is
    the first point past the run."""
    from ..ledger import judging_interval

    step = int(part["games_end"].diff().min()) if len(part) > 1 else int(part["games_end"].iloc[0])
    beyond = int(part["games_end"].iloc[-1]) + step
    band = [judging_interval(r.win_rate, r.ci_low, r.ci_high, r.runs) for r in part.itertuples()]

    def first(hits):
        return next((int(g) for g, hit in zip(part["games_end"], hits) if hit), None)

    return (first(part["win_rate"] > level), first([hi > level for _, hi in band]),
            first([lo > level for lo, _ in band]), beyond)


def threshold_rows(table: pd.DataFrame, games: int) -> list[dict]:
    """Per learner of a Fig 1 table (summarize's columns): the training games to the first
    evaluation point whose win rate exceeds THRESHOLD, within the first `games` games
    (interval: `_crossing`). A curve that never exceeds it is censored: its value is the
    first point past the run, a lower bound on the true count; a curve whose interval
    never lies wholly above it has that point as its upper end. Either is in the note."""
    out = []
    for label in LEARNERS:
        part = _curve(table, label, games)
        if part.empty:
            continue
        value, low, high, beyond = _crossing(part, THRESHOLD)
        notes = [f"the first of {len(part)} evaluation points above {THRESHOLD:.0%}"]
        if value is None:
            value = beyond
            notes = [f"censored: none of {len(part)} evaluation points is above {THRESHOLD:.0%}, so the value is "
                     "the first point past the run, a lower bound"]
        if high is None:
            high = beyond
            notes.append("the upper end is censored at the first point past the run")
        runs = int(part["runs"].iloc[-1])
        out.append({"item": "Fig 1", "quantity": f"training games to exceed a {THRESHOLD:.0%} win rate, {label}",
                    "value": float(value), "ci_low": float(min(low or value, value)), "ci_high": float(high),
                    "games": int(part["boards"].iloc[-1]), "runs": None,
                    "note": "; ".join(notes) + f"; interval from each point's one-run 95% interval ({runs} run"
                    + ("s" if runs > 1 else "") + ")", "agents": AGENT_OF[label]})
    return out


def marginal_rows(table: pd.DataFrame, games: int, swap: str | None = None) -> list[dict]:
    """Fig 1's "biggest marginal returns ... in approximately the first three million
    games", read as: for each learner, the training games by which its evaluated win rate
    first exceeds half of its gain over the run (from its first evaluation point to its
    point at `games`); the largest over the learners (`_crossing`'s interval at each
    method's half-gain level, the largest of each end). `swap`: a variant's label stands
    for its method (named in the quantity)."""
    labels = list(LEARNERS)
    if swap is not None:
        labels = [swap if m == _method_of(swap) else m for m in labels]
    found = []
    for label in labels:
        part = _curve(table, label, games)
        if len(part) < 2 or int(part["games_end"].iloc[-1]) != games:
            return []  # every method's whole run is needed
        first, last = float(part["win_rate"].iloc[0]), float(part["win_rate"].iloc[-1])
        level = first + (last - first) / 2
        value, low, high, beyond = _crossing(part, level)
        value = beyond if value is None else value
        found.append((value, low or value, beyond if high is None else high, label))
    value, _, _, which = max(found)
    runs = int(table["runs"].max())
    g, with_ = games_label(games), "" if swap is None else f", with {swap}"
    return [{"item": "Fig 1", "quantity": f"training games of the biggest marginal returns, all methods{with_}",
             "value": float(value), "ci_low": float(max(f[1] for f in found)),
             "ci_high": float(max(f[2] for f in found)), "games": pd.NA, "runs": None,
             "note": f"the latest of the {len(found)} methods' half-gain points over {g} games ({which}); interval: "
                     f"each method's from its points' one-run 95% intervals ({runs} run{'s' if runs > 1 else ''}), "
                     "the largest of each end", "agents": sorted({AGENT_OF[m] for m in labels})}]


def variant_rows(table: pd.DataFrame, games: int, rnd) -> list[dict]:
    """Each labelled variant of a learner in a Fig 1 table standing for its method on the
    numbers it changes: the ratios to random and the marginal-returns row."""
    out = []
    for label, _, _ in VARIANTS:
        r = _point(table, label, games)
        if r is None or _method_of(label) not in LEARNERS:
            continue
        out += _ratios(table, games, rnd, swap=(label, r))
        out += marginal_rows(table, games, swap=label)
    return out


def _ratios(table, games, rnd, swap=None) -> list[dict]:
    """The learners' end win rates over random's pooled one (the paper's 'multiplier
    ranging from 30 to 60'); the interval from the two Wilson intervals' ends (conservative).
    swap: (label, row) to stand for its method (a variant's or a reading's run), named in
    the quantity."""
    ends = [(m, _point(table, m, games)) for m in LEARNERS]
    if swap is not None:
        ends = [swap if m == _method_of(swap[0]) else (m, r) for m, r in ends]
    ends = [(m, r) for m, r in ends if r is not None]
    if rnd is None or not ends or rnd["value"] == 0:
        return []
    rnd = pd.Series({"win_rate": rnd["value"], "ci_low": rnd["ci_low"], "ci_high": rnd["ci_high"]})
    ratio = [(r.win_rate / rnd.win_rate, r.ci_low / rnd.ci_high, r.ci_high / rnd.ci_low if rnd.ci_low > 0 else np.inf,
              m) for m, r in ends]
    g = games_label(games)
    with_ = "" if swap is None else f", with {swap[0]}"
    out = []
    for name, pick in (("smallest", min), ("largest", max)):
        v, lo, hi, m = pick(ratio)
        out.append({"item": "Fig 1", "quantity": f"{name} ratio of a method's win rate to random's after {g} games"
                    + with_, "value": float(v), "ci_low": float(lo), "ci_high": float(hi), "games": pd.NA,
                    "note": f"{m}; the interval combines the two Wilson intervals' ends",
                    "agents": [AGENT_OF[m], AGENT_OF["random"]]})
    return out


def _fig01_figure(table, ref, pub, games):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5))
    colours = {label: f"C{i}" for i, (label, _, _) in enumerate(METHODS)}
    for label, part in table.groupby("method", sort=False):
        base = _method_of(label)  # a variant is drawn dashed, in its method's colour
        style = "-" if label == base else "--"
        x = part["games_end"] / 1e6
        ax.plot(x, 100 * part["win_rate"], style, lw=1.4, color=colours.get(base, "0.5"), label=f"{label} (minelab)")
        ax.fill_between(x, 100 * part["ci_low"], 100 * part["ci_high"], color=colours.get(base, "0.5"), alpha=0.2,
                        lw=0)
    best = ref[ref["agent"] == REFERENCE_AGENT]
    if len(best):
        b = best.iloc[0]
        ax.axhline(100 * b.win_rate, color="k", lw=1, ls=":")
        ax.text(0, 100 * b.win_rate + 0.8, f"minelab best solver, same rules: {100 * b.win_rate:.1f}% "
                f"({int(b.games):,} games)", fontsize=8)
    ends = pub[pub["item"] == "Fig 1"]
    for r in ends.itertuples():
        if "after 30M games" in r.quantity and "ratio" not in r.quantity:
            err = None if np.isnan(r.ci_low) else [[100 * (r.value - r.ci_low)], [100 * (r.ci_high - r.value)]]
            ax.errorbar([PAPER_GAMES / 1e6], [100 * r.value], fmt="D", ms=5, mfc="none", color="0.3", yerr=err)
            ax.annotate(f"{r.relation}{100 * r.value:g}% {r.quantity.split(' win rate')[0]} (published)",
                        (PAPER_GAMES / 1e6, 100 * r.value), xytext=(4, 0), textcoords="offset points", fontsize=7)
    ax.set_xlabel("training games (millions)")
    ax.set_ylabel("evaluation win rate (%)")
    ax.set_title("Fig 1: 5x5 with 5 mines, no first-click rule; shaded: 95% intervals; ◇ published (30M games)")
    ax.legend(fontsize=7, loc="lower right", ncol=2)
    ax.set_ylim(bottom=0)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------- Fig A1
def figA1_mcts_simulations(games: int = SIZES["quick"]["a1_games"], every: int = SIZES["quick"]["a1_every"],
                           eval_games: int = SIZES["quick"]["eval_games"], seed: int = 0, executor="processes",
                           leaky: bool = True) -> PaperResult:
    """Fig A1: MCTS with 1 vs 10 simulations per state over the first `games` games (and,
    with leaky=True, the program's leaky simulations beside, labelled)."""
    _check_sizes(games=games, every=every, eval_games=eval_games)
    specs = [("MCTS, 1 simulation", {"simulations": 1}), ("MCTS, 10 simulations", {"simulations": 10})]
    if leaky:
        specs += [("MCTS, 1 simulation, leaky (cheat)", {"simulations": 1, "leaky": True}),
                  ("MCTS, 10 simulations, leaky (cheat)", {"simulations": 10, "leaky": True})]
    tasks = {(label, 0): _eval_task("mcts", p, games, every, eval_games, seed) for label, p in specs}
    table = summarize(_curve_rows(run_sweep(list(tasks.values()), executor=executor, progress=True), tasks))
    measured = _a1_measured(table, games, "MCTS")
    return PaperResult("figA1_mcts_simulations", _curve_figure(table, "Fig A1: MCTS by simulations per state "
                                                               "(5x5, 5 mines; 95% Wilson intervals)"), table, measured)


def _a1_measured(table, games, label) -> list[dict]:
    """Fig A1's rows for the runs "<label>, 1 simulation" and "<label>, 10 simulations"."""
    measured = []
    one, ten = _point(table, f"{label}, 1 simulation", games), _point(table, f"{label}, 10 simulations", games)
    g = games_label(games)
    if ten is not None:
        measured.append(_row("Fig A1", f"{label}, 10 simulations per state: win rate after {g} games", ten,
                             agents="mcts"))
    if one is not None:
        measured.append(_row("Fig A1", f"{label}, 1 simulation per state: win rate after {g} games", one,
                             agents="mcts"))
    if one is not None and ten is not None and one.win_rate > 0:
        hi = ten.ci_high / one.ci_low if one.ci_low > 0 else np.inf
        named = "" if label == "MCTS" else f", {label}"
        measured.append({"item": "Fig A1", "quantity": f"ratio of MCTS win rates, 10 vs 1 simulations per state, "
                         f"after {g} games{named}", "value": ten.win_rate / one.win_rate,
                         "ci_low": ten.ci_low / one.ci_high, "ci_high": hi, "games": pd.NA,
                         "note": "the interval combines the two Wilson intervals' ends", "agents": "mcts"})
    return measured


# ---------------------------------------------------------------------- MCTS readings
def mcts_readings(fig1: PaperResult, mcts_games: int = SIZES["quick"]["mcts_games"],
                  every: int = SIZES["quick"]["every"], eval_games: int = SIZES["quick"]["eval_games"],
                  a1_games: int = SIZES["quick"]["a1_games"], a1_every: int = SIZES["quick"]["a1_every"],
                  replicates: int = SIZES["quick"]["reading_replicates"], seed: int = 0,
                  executor="processes") -> PaperResult:
    """The registered readings of §4.4's MCTS (MCTS_READINGS) on every number they change:
    Fig 1's MCTS win rate (trained `mcts_games` games, Fig 1's seeds: paired with its
    honest MCTS), the ratios to random with the reading standing for MCTS (the other
    learners and random from `fig1`, the Fig 1 result of the same seed), and Fig A1 with
    1 and 10 simulations (`a1_games`)."""
    if not isinstance(fig1, PaperResult) or fig1.table is None:
        raise ValueError("fig1 must be the PaperResult of fig01_win_rate_curves (same seed)")
    _check_sizes(games=mcts_games, every=every, eval_games=eval_games, replicates=replicates)
    _check_sizes(games=a1_games, every=a1_every, eval_games=eval_games)
    long, short = {}, {}
    for label, agent, params in MCTS_READINGS:
        for r in range(replicates):
            long[(label, r)] = _eval_task(agent, params, mcts_games, every, eval_games, seed, r)
        for sims in (1, 10):
            short[(f"{label}, {sims} simulation{'s' if sims > 1 else ''}", 0)] = _eval_task(
                agent, {**params, "simulations": sims}, a1_games, a1_every, eval_games, seed)
    df = run_sweep(list(long.values()) + list(short.values()), executor=executor, progress=True)  # long ones first
    table = summarize(pd.concat([_curve_rows(df, long), _curve_rows(df, short)], ignore_index=True))
    end = int(fig1.table["games_end"].max())
    rnd = next((m for m in fig1.measured if m["quantity"] == "random policy win rate"), None)
    g, measured = games_label(mcts_games), []
    for label, _, _ in MCTS_READINGS:
        r = _point(table, label, mcts_games)
        if r is not None:
            measured.append(_row("Fig 1", f"{label} win rate after {g} games", r,
                                 f"{r.interval} interval; {int(r.boards):,} evaluation boards a run", "mcts"))
        at_end = _point(table, label, end)
        if at_end is not None:
            measured += _ratios(fig1.table, end, rnd, swap=(label, at_end))
            both = pd.concat([fig1.table, table[table["method"] == label]], ignore_index=True)
            measured += marginal_rows(both, end, swap=label)
        measured += _a1_measured(table, a1_games, label)
    return PaperResult("mcts_readings", _readings_figure(table, fig1.table), table, measured)


def _readings_figure(table, fig1_table):
    """Left: the readings' Fig 1 runs beside Fig 1's MCTS; right: their Fig A1 runs."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    long = {label for label, _, _ in MCTS_READINGS} | {"MCTS"}
    both = pd.concat([fig1_table[fig1_table["method"] == "MCTS"], table], ignore_index=True)
    for label, part in both.groupby("method", sort=False):
        ax, scale = (left, 1e6) if label in long else (right, 1e3)
        x = part["games_end"] / scale
        line, = ax.plot(x, 100 * part["win_rate"], lw=1.2, label=f"{label} (minelab)")
        ax.fill_between(x, 100 * part["ci_low"], 100 * part["ci_high"], color=line.get_color(), alpha=0.2, lw=0)
    left.set_xlabel("training games (millions)")
    right.set_xlabel("training games (thousands)")
    left.set_title("Fig 1 runs: MCTS and its readings of §4.4")
    right.set_title("Fig A1 runs: the readings with 1 and 10 simulations")
    for ax in (left, right):
        ax.set_ylabel("evaluation win rate (%)")
        ax.legend(fontsize=7)
        ax.set_ylim(bottom=0)
    fig.tight_layout()
    return fig


def _curve_figure(table, title):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for label, part in table.groupby("method", sort=False):
        x = part["games_end"] / 1e3
        line, = ax.plot(x, 100 * part["win_rate"], "--" if "leaky" in label else "-", marker=".", label=label)
        ax.fill_between(x, 100 * part["ci_low"], 100 * part["ci_high"], color=line.get_color(), alpha=0.2, lw=0)
    ax.set_xlabel("training games (thousands)")
    ax.set_ylabel("evaluation win rate (%)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------- Fig A2
def figA2_state_count(games: int = SIZES["quick"]["games"], every: int = SIZES["quick"]["every"],
                      eval_games: int = SIZES["quick"]["eval_games"], seed: int = 0,
                      executor="processes") -> PaperResult:
    """Fig A2: distinct states in the Q-learning table vs games played (the Fig 1 run:
    served from the sweep's cache when Fig 1 ran with the same sizes), and the rate of
    new states per game over the last tenth of the run."""
    curves = run_curves(["Q-learning"], games, every, eval_games, seed, 1, executor)
    table, measured = _a2_measured(curves, games, every)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(table["games_end"] / 1e6, table["states"] / 1e6, label="Q-learning (minelab)")
    from .. import report

    pub = report.load_published(PAPER, claims=False)
    hit = pub[pub["quantity"] == "Q-learning states stored after 30M games"]
    if len(hit):
        p = hit.iloc[0]
        err = [[(p.value - p.ci_low) / 1e6], [(p.ci_high - p.value) / 1e6]]
        ax.errorbar([PAPER_GAMES / 1e6], [p.value / 1e6], yerr=err, fmt="D", mfc="none", color="0.3",
                    label="published: about 8,000,000 at 30M games")
    ax.set_xlabel("training games (millions)")
    ax.set_ylabel("distinct states in the Q table (millions)")
    ax.set_title("Fig A2: size of the Q table (5x5, 5 mines)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return PaperResult("figA2_state_count", fig, table, measured)


def _a2_measured(curves: pd.DataFrame, games: int, every: int, variant: str = "") -> tuple[pd.DataFrame, list]:
    """Fig A2's table (games_end, states, new_per_game) and its two measured rows from a
    Q-learning run's curves; `variant` names a reading in the quantities."""
    table = curves[["games_end", "states"]].copy()
    span = max(1, len(table) // 10)
    tail = table.tail(span + 1)
    rate = float((tail["states"].iloc[-1] - tail["states"].iloc[0]) / max(1, tail["games_end"].iloc[-1]
                                                                            - tail["games_end"].iloc[0]))
    table["new_per_game"] = table["states"].diff() / table["games_end"].diff()
    g, tag = games_label(games), f" [variant: {variant}]" if variant else ""
    last = int(table["states"].iloc[-1])
    measured = [
        {"item": "Fig A2", "quantity": f"Q-learning states stored after {g} games{tag}", "value": float(last),
         "ci_low": np.nan, "ci_high": np.nan, "games": games, "note": "one training run (a count, not an estimate)",
         "agents": AGENT_OF["Q-learning"]},
        {"item": "Fig A2", "quantity": f"new Q-learning states per game at {g} games{tag}", "value": rate,
         "ci_low": np.nan, "ci_high": np.nan, "games": int(tail["games_end"].iloc[-1] - tail["games_end"].iloc[0]),
         "note": f"states added over the last {span} blocks of {every:,} games",
         "agents": AGENT_OF["Q-learning"]},
    ]
    return table, measured


A2_VARIANT = "unique states counted over next and terminal states"


def figA2_terminal_states(games: int = SIZES["quick"]["games"], every: int = SIZES["quick"]["every"],
                          eval_games: int = SIZES["quick"]["eval_games"], seed: int = 0,
                          executor="processes") -> PaperResult:
    """Fig A2's registered reading: the Q table's states counted over every state met,
    terminal ones included (`store_terminal=True`: a game's end view is stored, never
    acted from; the moves are Fig A2's own, the same seeds). Measured rows are Fig A2's
    quantities with " [variant: unique states counted over next and terminal states]"."""
    _check_sizes(games=games, every=every, eval_games=eval_games)
    tasks = {("Q-learning", 0): _eval_task("q-learning", {"store_terminal": True}, games, every, eval_games, seed)}
    curves = _curve_rows(run_sweep(list(tasks.values()), executor=executor, progress=False), tasks)
    table, measured = _a2_measured(curves, games, every, A2_VARIANT)
    return PaperResult("figA2_terminal_states", None, table, measured)


# ---------------------------------------------------------------------- written comparisons
def _pct(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{100 * x:.1f}%"


def _verdicts(measured: list[dict]) -> pd.DataFrame:
    """The ledger's lines of the published numbers these measured rows are twins of: item,
    quantity, published, minelab (the measurement the ledger judges), profile, verdict,
    category (minelab.papers.ledger_rows)."""
    keys = {(m["item"], m["quantity"]) for m in measured}
    lines = ledger_rows(PAPER)
    lines = lines[[(i, q) in keys for i, q in zip(lines["item"], lines["quantity"])]]
    return lines[["item", "quantity", "published", "minelab", "profile", "verdict", "category"]].reset_index(drop=True)


def _verdict_lines(measured: list[dict]) -> list[str]:
    """One markdown bullet per published number these measured rows are twins of: the
    published value, the measurement the ledger judges and its verdict."""
    return [f"- {r['quantity']}: {verdict_of(r)}" for r in _verdicts(measured).to_dict("records")]


def verdict_table(*results: PaperResult) -> pd.DataFrame:
    """Every published number these results measure a twin of, with the ledger's verdict."""
    return pd.concat([_verdicts(r.measured) for r in results], ignore_index=True)


def fig01_text(result: PaperResult) -> str:
    """Fig 1's written comparison, every number from the run."""
    t = result.table
    end = int(t[t["method"] == "Q-learning"]["games_end"].max()) if (t["method"] == "Q-learning").any() else 0
    if not end:
        return "Fig 1 was run without Q-learning: nothing to compare."
    at = {m: _point(t, m, end) for m in t["method"].unique()}
    rate = {m: (None if r is None else r.win_rate) for m, r in at.items()}
    g = games_label(end)
    lines = [f"After {g} training games (evaluation on {int(at['Q-learning'].boards):,} boards a point):"]
    order = [m for m in ("Q-learning", "SARSA", "linear Q", "MCTS", "random") if m in rate]
    lines.append("- " + ", ".join(f"{m} {_pct(rate[m])}" for m in order) + ".")
    ranked = sorted((m for m in LEARNERS if rate.get(m) is not None), key=lambda m: -rate[m])
    lines.append(f"- Ranking of the learners: {' > '.join(ranked)} (the paper: Q-learning > SARSA > linear Q > MCTS).")
    lines += _variant_lines(at, end)
    lines += _spread_lines(t, ranked, end)
    ref = getattr(result, "reference", None)
    if ref is not None and (ref["agent"] == REFERENCE_AGENT).any():
        b = ref[ref["agent"] == REFERENCE_AGENT].iloc[0]
        best_q = max((rate[m] for m in LEARNERS if rate.get(m) is not None), default=np.nan)
        lines.append(f"- The strongest minelab solver (`{REFERENCE_AGENT}`, no learning) wins {_pct(b.win_rate)} "
                     f"({_pct(b.ci_low)}-{_pct(b.ci_high)}, {int(b.games):,} games) on the same rules: the best "
                     f"learner reaches {100 * best_q / b.win_rate:.0f}% of it. The exact optimum of `5x5x5:none` "
                     "comes with the exact solver (buffet issue); it is at least the solver's rate.")
    if end >= 3_000_000 and rate.get("Q-learning") is not None:
        for m in ranked:
            part = t[t["method"] == m]
            first, at3 = part["win_rate"].iloc[0], _point(t, m, 3_000_000)
            if at3 is not None and rate[m] > first:
                share = (at3.win_rate - first) / (rate[m] - first)
                lines.append(f"- {m}: {100 * share:.0f}% of its gain from the first evaluation point to {g} "
                             "came by 3M games (the paper: the biggest returns in about the first three million).")
    returns = judged(PAPER, "Fig 1", "training games of the biggest marginal returns, all methods")
    if returns:
        lines.append(f"- The ledger's row on the paper's biggest returns: {returns}.")
    verdicts = _verdict_lines(result.measured)
    if verdicts:
        lines += ["", "The ledger on the published numbers (it judges the largest profile measured):", ""]
        lines += verdicts
    return "\n".join(lines)


def _variant_lines(at: dict, end: int) -> list[str]:
    """Each program variant beside the text's algorithm (their win rates and the
    difference); the ledger's verdict on the published end point, listed after them,
    names the readings registered on each number."""
    out = []
    for text_label, prog_label, what in (("SARSA", "SARSA, program's update", "the program's update r + γ Q(s, a')"),
                                         ("linear Q", "linear Q, program's ε=0.1", "the program's constant ε = 0.1"),
                                         ("MCTS", "MCTS, leaky (cheat)", "simulations that see the true board")):
        a, b = at.get(text_label), at.get(prog_label)
        if a is None or b is None:
            continue
        out.append(f"- {text_label} with {what}: {_pct(b.win_rate)} ({_pct(b.ci_low)}-{_pct(b.ci_high)}) against "
                   f"{_pct(a.win_rate)} ({_pct(a.ci_low)}-{_pct(a.ci_high)}) as the text describes it "
                   f"({100 * (b.win_rate - a.win_rate):+.1f} points).")
    return out


def _spread_lines(t: pd.DataFrame, methods, end: int, last: int = 10) -> list[str]:
    """How much one run's greedy policy moves between evaluation points near the end:
    the published end points are single points of such curves."""
    out = []
    for m in methods:
        part = t[(t["method"] == m) & (t["games_end"] <= end)].tail(last)
        if len(part) == last:
            out.append(f"{m} {100 * part['win_rate'].min():.1f}-{100 * part['win_rate'].max():.1f}%")
    if not out:
        return []
    return [f"- One run's curve is noisy: over its last {last} evaluation points the greedy policy scored "
            + ", ".join(out) + " (each point's own interval is about ±1 point): a single end point, ours or "
            "the paper's, carries that much luck of the run."]


def figA1_text(result: PaperResult) -> str:
    t = result.table
    end = int(t["games_end"].max())
    one, ten = _point(t, "MCTS, 1 simulation", end), _point(t, "MCTS, 10 simulations", end)
    if one is None or ten is None:
        return "Fig A1 needs both the 1- and 10-simulation runs."
    lines = [f"After {games_label(end)} games: 10 simulations per state {_pct(ten.win_rate)} "
             f"({_pct(ten.ci_low)}-{_pct(ten.ci_high)}), 1 simulation {_pct(one.win_rate)} "
             f"({_pct(one.ci_low)}-{_pct(one.ci_high)})"
             + (f": {ten.win_rate / one.win_rate:.1f} times as many wins" if one.win_rate > 0 else "") + "."]
    for sims in ("1 simulation", "10 simulations"):
        honest, leak = _point(t, f"MCTS, {sims}", end), _point(t, f"MCTS, {sims}, leaky (cheat)", end)
        if honest is not None and leak is not None:
            gain = 100 * (leak.win_rate - honest.win_rate)
            lines.append(f"- {sims}, simulations seeing the true board (the program's leak): {_pct(leak.win_rate)} "
                         f"against {_pct(honest.win_rate)} honest ({gain:+.1f} points).")
    verdicts = _verdict_lines(result.measured)
    if verdicts:
        lines += ["", "The ledger on the published numbers:", ""] + verdicts
    return "\n".join(lines)


def readings_text(result: PaperResult) -> str:
    """A registered reading's run (`mcts_readings`, `figA2_terminal_states`): each number
    beside the published one it is a variant of, and each reading's status on its scope
    as the ledger judges it (credited only when it reproduces every number of its scope)."""
    lines = reading_lines(PAPER, result.measured)
    return "\n".join(lines) if lines else "No published number has a variant in this run."


def figA2_text(result: PaperResult) -> str:
    t = result.table
    last = t.iloc[-1]
    rate = next(m["value"] for m in result.measured if m["quantity"].startswith("new Q-learning states"))
    lines = [f"After {games_label(int(last.games_end))} games the Q table holds {int(last.states):,} states, "
             f"growing by {rate:.3f} states a game at the end (one new state every {1 / rate:.1f} games)."
             if rate > 0 else f"The Q table holds {int(last.states):,} states."]
    return "\n".join(lines + _verdict_lines(result.measured))
