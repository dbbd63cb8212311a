"""Buffet, Lee, Lin & Teytaud (2012): the further work of the conclusion, measured.

The conclusion lists improvements of OH it leaves open: pairing simulations, ordering a
node's legal decisions with what HCSP knows (lexicographic, by mine probability then
distance to the frontier, at random), progressive widening (k n^alpha children after n
simulations, or a rule depending on the rewards), several simulations to evaluate a node
before new simulations start from the root, and RAVE. Each is an option of `oh`
(minelab.agents.uct, "Further work", where the reading of each is written down); this
module plays OH with one option on (OPTIONS) against OH as published (every option off)
on the small formats of Table 1 (FORMATS).

Pairing of games: both agents play the same deals (the chunks of `minelab.tasks.play_tasks`
derive their seeds from the root seed, the format and the chunk only), so each deal gives
a per-game difference of outcomes (+1, 0, -1: the option won and OH lost, both the same,
the reverse). The table gives both win rates and the mean of those differences with its
95% t-interval (`minelab.stats.t_interval`, the paired t-interval), beside the number of
deals each side alone won.

The options' settings (OPTIONS) were fixed before any run: progressive widening at k = 1,
alpha = 0.5 (alpha = 1/2 is Wang, Audibert & Munos's number of arms for a uniform prior, as
in Fig 3) and on the reward threshold of Fig 3; four playouts per new node; RAVE with Gelly
& Silver's (2007) equivalence parameter k = 1,000.

Profiles (SIZES): "paper" is what a claim about the further work needs: 4,000 paired games
per (option, format) at the paper's 10,000 simulations per move (OH's games reuse Table 1's
chunks at the same seed). Measured on a few games of each (one core, shared machine): a
deal of one format played by OH and by each of the eight options costs about 1.0 s at
10,000 simulations (OH 0.10 s of it, four simulations per new node 0.17 s), so the paper
profile is about 6 formats x 4,000 deals x 1.0 s = 24,000 core-seconds (under seven hours
of one core, 2,400 of them OH's). "quick" plays 1,000 deals per format at 500 simulations
per move (about 0.065 s a deal for all nine agents: some seven minutes of one core), and
the table says both in its `games` and `simulations` columns: a quick row is a statement
about OH at 500 simulations per move, not at the paper's 10,000.

A second stage then plays, on the standard levels (LEVELS: 8x8x10 and 9x9x10 at the first
stage's simulations per move, `second_games` deals each; 16x16x40 and 16x30x99 at the
paper's 100 simulations per move, or fewer if the first stage plays fewer, half as many
deals), every option whose paired difference on the small formats is not clearly negative.
The reading of "not clearly negative", fixed before the second stage was first run: the
text speaks of one paired difference per option ("every option whose paired difference is
not clearly negative"), so it is the option's difference pooled over all its first-stage
deals (every deal of the six formats counted once; with as many deals in each format, the
mean of the six differences), and "clearly negative" is a 95% t-interval of that pooled
difference wholly below 0. The pooled rows are in the table (stage "pooled"), so the
selection can be checked against them.

An option that beats OH beyond its interval would join the leaderboard; "beats" is read on
the same single difference per option: an option beats OH when its pooled first-stage
difference has a 95% t-interval wholly above 0 (`clearly_positive`). One format's or one
level's row wholly above 0 is not taken as such: the table holds up to 80 of those rows (8
options x 10 formats and levels), and with no effect at all about 2 of them (2.5% each)
would lie wholly above 0 by chance; they are shown, not acted on.
"""
from __future__ import annotations

import json

import pandas as pd

from ..report import PaperResult
from ..stats import t_interval
from ..sweep import run_sweep
from ..tasks import check_games, play_tasks
from .buffet2012 import NOTEBOOK, PAPER

ITEM = "Further work"
AGENT = "oh"
FORMATS = ("4x4x4", "2x5x3", "5x5x10", "1x10x5", "3x7x10", "5x5x15")  # Table 1's small formats
LEVELS = ("8x8x10", "9x9x10", "16x16x40", "16x30x99")  # the second stage
BIG = ("16x16x40", "16x30x99")  # at most the paper's 100 simulations a move, half the deals
BIG_SIMULATIONS = 100
POOLED = "small formats, pooled"
BASE = "OH (as published)"
# (name, oh's parameters): one further-work option on each
OPTIONS = {
    "pairing": {"pairing": True},
    "ordering: lexicographic": {"ordering": "lexicographic"},
    "ordering: probability": {"ordering": "probability"},
    "ordering: random": {"ordering": "random"},
    "progressive widening k=1 alpha=0.5": {"widening_k": 1.0, "widening_alpha": 0.5},
    "widening on a reward threshold": {"widening_k": 1.0, "widening": "reward"},
    "4 simulations per new node": {"sims_per_node": 4},
    "RAVE k=1000": {"rave": 1000.0},
}
CHUNK = 500  # games per task (buffet2012's TREE_CHUNK: the paper profile reuses Table 1's OH chunks)
SIZES = {
    "smoke": {"further_games": 10, "further_simulations": 50, "second_games": 4, "second_simulations": 20},
    "quick": {"further_games": 1_000, "further_simulations": 500, "second_games": 400, "second_simulations": 500},
    "paper": {"further_games": 4_000, "further_simulations": 10_000, "second_games": 1_000,
              "second_simulations": 10_000},
}
STAGES = ("small formats", "pooled", "standard levels")
COLUMNS = ("stage", "option", "format", "games", "simulations", "win rate OH", "win rate option", "difference",
           "ci_low", "ci_high", "only_option_won", "only_oh_won")


def _params_key(df: pd.DataFrame) -> pd.Series:
    """Each row's agent parameters as canonical JSON."""
    raw = df["agent_params"] if "agent_params" in df else pd.Series("{}", index=df.index)
    return raw.fillna("{}").map(lambda s: json.dumps(json.loads(s), sort_keys=True))


def _options(options) -> dict:
    """{name: oh's parameters} of `options` (names of OPTIONS); ValueError otherwise."""
    if isinstance(options, str) or not all(o in OPTIONS for o in options) or not options:
        raise ValueError(f"options must be a non-empty list of {', '.join(OPTIONS)}; got {options!r}")
    return {o: OPTIONS[o] for o in options}


def _check(games, simulations, options, formats) -> tuple[int, int, dict, tuple]:
    games = check_games("games", games)
    simulations = check_games("simulations", simulations)
    options = _options(options)
    if isinstance(formats, str) or not all(f in FORMATS for f in formats) or not formats:
        raise ValueError(f"formats must be a non-empty list of {', '.join(FORMATS)}; got {formats!r}")
    return games, simulations, options, tuple(formats)


def _play(plan: dict, seed: int, options: dict, executor, results_dir) -> pd.DataFrame:
    """One row per game of `plan` ({format: (deals, simulations per move)}): OH as published
    and OH with each of `options`, on the same deals; column `option` (BASE for OH)."""
    tasks, names = [], {}
    for lv, (games, simulations) in plan.items():
        variants = {BASE: {"simulations": simulations}} | {o: {"simulations": simulations, **p}
                                                           for o, p in options.items()}
        names[lv] = {json.dumps(p, sort_keys=True): name for name, p in variants.items()}
        tasks += [t for p in variants.values()
                  for t in play_tasks([AGENT], lv, games, seed, chunk=CHUNK, agent_params={AGENT: p})]
    df = run_sweep(tasks, results_dir=results_dir, executor=executor, progress=False)
    key = _params_key(df)
    parts = [df[(df["level"] == lv) & (key == k)].assign(option=name)
             for lv in plan for k, name in names[lv].items()]
    return pd.concat(parts, ignore_index=True)


def play_further(games: int, simulations: int, seed: int = 0, options=tuple(OPTIONS), formats=FORMATS,
                 executor="processes", results_dir=None) -> pd.DataFrame:
    """The first stage, one row per game: OH as published and OH with each option, `games`
    paired deals per small format at `simulations` per move; column `option` (BASE for OH)."""
    games, simulations, options, formats = _check(games, simulations, options, formats)
    return _play({lv: (games, simulations) for lv in formats}, seed, options, executor, results_dir)


def second_plan(games: int, simulations: int) -> dict:
    """The second stage's {level: (deals, simulations per move)}: `games` deals at
    `simulations` on 8x8x10 and 9x9x10; on BIG, half the deals at no more than
    BIG_SIMULATIONS.

        >>> second_plan(1_000, 10_000)["16x30x99"]
        (500, 100)
    """
    games = check_games("second_games", games)
    simulations = check_games("second_simulations", simulations)
    return {lv: (max(games // 2, 1), min(simulations, BIG_SIMULATIONS)) if lv in BIG else (games, simulations)
            for lv in LEVELS}


def play_second(games: int, simulations: int, seed: int = 0, options=tuple(OPTIONS), executor="processes",
                results_dir=None) -> pd.DataFrame:
    """The second stage, one row per game: `play_further` on LEVELS, sized by `second_plan`."""
    return _play(second_plan(games, simulations), seed, _options(options), executor, results_dir)


def _simulations(part: pd.DataFrame) -> int:
    """The simulations per move of a format's games (every agent of a format plays the same)."""
    return int(json.loads(part["agent_params"].iloc[0])["simulations"])


def _row(stage: str, name: str, lv: str, simulations: int, a: pd.Series, b: pd.Series) -> dict:
    """A table row: OH's outcomes `a` and the option's `b` on the same deals."""
    diff = (b - a).to_numpy()
    mean, lo, hi = t_interval(diff) if diff.any() else (0.0, 0.0, 0.0)  # no discordant deal: no spread
    return {"stage": stage, "option": name, "format": lv, "games": len(diff), "simulations": simulations,
            "win rate OH": float(a.mean()), "win rate option": float(b.mean()), "difference": mean, "ci_low": lo,
            "ci_high": hi, "only_option_won": int((diff > 0).sum()), "only_oh_won": int((diff < 0).sum())}


def _pairs(df: pd.DataFrame):
    """(format, option, simulations, OH's outcomes, the option's) on the same deals, per
    format and option of `df` (a `play_further` or `play_second` frame)."""
    for lv in dict.fromkeys(df["level"]):
        part = df[df["level"] == lv]
        base = part[part["option"] == BASE].set_index(["seed", "game"])["won"].astype(int)
        for name in dict.fromkeys(part["option"]):
            if name != BASE:
                other = part[part["option"] == name].set_index(["seed", "game"])["won"].astype(int)
                a, b = base.align(other, join="inner")
                yield lv, name, _simulations(part), a, b


def paired_rows(df: pd.DataFrame, stage: str = STAGES[0]) -> pd.DataFrame:
    """The table of `play_further`'s (or `play_second`'s) games: per (option, format), both
    win rates and the paired difference (option - OH) with its 95% t-interval (COLUMNS)."""
    rows = [_row(stage, name, lv, sims, a, b) for lv, name, sims, a, b in _pairs(df)]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def pooled_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Each option's first-stage difference pooled over every small format's deals (each
    deal once): the number the second stage's selection reads (`clearly_negative`)."""
    by_option: dict = {}
    for _, name, sims, a, b in _pairs(df):
        by_option.setdefault(name, []).append((sims, a.reset_index(drop=True), b.reset_index(drop=True)))
    rows = []
    for name, parts in by_option.items():  # play_further: one number of simulations for every format
        a = pd.concat([p[1] for p in parts], ignore_index=True)
        b = pd.concat([p[2] for p in parts], ignore_index=True)
        rows.append(_row(STAGES[1], name, POOLED, parts[0][0], a, b))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def clearly_negative(pooled: pd.DataFrame) -> list[str]:
    """The options whose pooled difference has its 95% interval wholly below 0 (they do not
    play the second stage)."""
    return [r["option"] for r in pooled.to_dict("records") if r["ci_high"] < 0]


def clearly_positive(pooled: pd.DataFrame) -> list[str]:
    """The options whose pooled difference has its 95% interval wholly above 0: the
    options that beat OH as published (see the module docstring)."""
    return [r["option"] for r in pooled.to_dict("records") if r["ci_low"] > 0]


def _panel(ax, part: pd.DataFrame, title: str) -> None:
    """One format's differences (option - OH), each with its 95% interval, zero marked."""
    y = range(len(part))
    err = [part["difference"] - part["ci_low"], part["ci_high"] - part["difference"]]
    ax.errorbar(part["difference"], y, xerr=err, fmt="o", ms=4, capsize=2, color="C0")
    ax.axvline(0.0, color="grey", lw=1, ls="--")
    oh = part["win rate OH"].dropna()
    ax.set_title(f"{title} (OH {oh.iloc[0]:.3f})" if len(oh) else title, fontsize=9)
    ax.set_xlabel("win rate, option - OH", fontsize=8)
    ax.tick_params(labelsize=7)


def _figure(table: pd.DataFrame):
    """A panel per format, the first stage (and its pooled difference) on the top row and
    the second stage below: each option's paired difference with its 95% interval."""
    import matplotlib.pyplot as plt

    options = list(dict.fromkeys(table["option"]))
    first = table[table["stage"] != STAGES[2]]
    second = table[table["stage"] == STAGES[2]]
    rows = [list(dict.fromkeys(first["format"])), list(dict.fromkeys(second["format"]))]
    rows = [r for r in rows if r]
    width = max(len(r) for r in rows)
    fig, axes = plt.subplots(len(rows), width, figsize=(2.6 * width + 2.6, (0.35 * len(options) + 1.6) * len(rows)),
                             sharey=True, squeeze=False)
    for i, formats in enumerate(rows):
        for ax, lv in zip(axes[i], formats):
            part = table[table["format"] == lv].set_index("option").reindex(options)
            sims = part["simulations"].dropna()
            title = lv if i == 0 or not len(sims) else f"{lv}, {int(sims.iloc[0]):,} sims"
            _panel(ax, part, title)
        for ax in axes[i][len(formats):]:
            ax.set_axis_off()
        axes[i][0].set_yticks(range(len(options)), options, fontsize=7)
    axes[0][0].invert_yaxis()
    games, sims = int(first["games"].min()), int(first["simulations"].max())
    fig.suptitle(f"Buffet et al.'s further work as options of OH: paired difference on the same deals (95% "
                 f"t-interval). Top: small formats, {games:,} deals each at {sims:,} simulations a move, and "
                 f"pooled; below: standard levels", fontsize=9)
    fig.tight_layout()
    return fig


def table_further_work(further_games: int = SIZES["quick"]["further_games"],
                       further_simulations: int = SIZES["quick"]["further_simulations"],
                       second_games: int = SIZES["quick"]["second_games"],
                       second_simulations: int = SIZES["quick"]["second_simulations"], seed: int = 0,
                       executor="processes", options=tuple(OPTIONS), formats=FORMATS) -> PaperResult:
    """The further-work table: each option of OPTIONS against OH as published on FORMATS,
    paired deals (`paired_rows`), pooled (`pooled_rows`), then every option not
    `clearly_negative` on LEVELS (`play_second`), and its figure. No measured rows: the
    paper publishes no number to set beside these (nothing to judge)."""
    second_plan(second_games, second_simulations)  # bad input fails before the first stage plays
    df = play_further(further_games, further_simulations, seed, options, formats, executor)
    first, pooled = paired_rows(df), pooled_rows(df)
    negative = clearly_negative(pooled)
    keep = [o for o in options if o not in negative]
    parts = [first, pooled]
    if keep:
        parts.append(paired_rows(play_second(second_games, second_simulations, seed, keep, executor), STAGES[2]))
    table = pd.concat(parts, ignore_index=True)
    return PaperResult("table_further_work", _figure(table), table)


__all__ = ["OPTIONS", "FORMATS", "LEVELS", "SIZES", "STAGES", "BASE", "COLUMNS", "play_further", "second_plan",
           "play_second", "paired_rows", "pooled_rows", "clearly_negative", "clearly_positive", "table_further_work",
           "NOTEBOOK", "PAPER"]
