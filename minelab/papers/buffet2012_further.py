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
    "smoke": {"further_games": 10, "further_simulations": 50},
    "quick": {"further_games": 1_000, "further_simulations": 500},
    "paper": {"further_games": 4_000, "further_simulations": 10_000},
}
COLUMNS = ("option", "format", "games", "simulations", "win rate OH", "win rate option", "difference", "ci_low",
           "ci_high", "only_option_won", "only_oh_won")


def _params_key(df: pd.DataFrame) -> pd.Series:
    """Each row's agent parameters as canonical JSON."""
    raw = df["agent_params"] if "agent_params" in df else pd.Series("{}", index=df.index)
    return raw.fillna("{}").map(lambda s: json.dumps(json.loads(s), sort_keys=True))


def _check(games, simulations, options, formats) -> tuple[int, int, dict, tuple]:
    games = check_games("games", games)
    simulations = check_games("simulations", simulations)
    if isinstance(options, str) or not all(o in OPTIONS for o in options) or not options:
        raise ValueError(f"options must be a non-empty list of {', '.join(OPTIONS)}; got {options!r}")
    if isinstance(formats, str) or not all(f in FORMATS for f in formats) or not formats:
        raise ValueError(f"formats must be a non-empty list of {', '.join(FORMATS)}; got {formats!r}")
    return games, simulations, {o: OPTIONS[o] for o in options}, tuple(formats)


def play_further(games: int, simulations: int, seed: int = 0, options=tuple(OPTIONS), formats=FORMATS,
                 executor="processes", results_dir=None) -> pd.DataFrame:
    """One row per game: OH as published and OH with each option, `games` paired deals per
    format at `simulations` per move; column `option` (BASE for OH as published)."""
    games, simulations, options, formats = _check(games, simulations, options, formats)
    variants = {BASE: {"simulations": simulations}} | {o: {"simulations": simulations, **p}
                                                       for o, p in options.items()}
    tasks = [t for lv in formats for p in variants.values()
             for t in play_tasks([AGENT], lv, games, seed, chunk=CHUNK, agent_params={AGENT: p})]
    df = run_sweep(tasks, results_dir=results_dir, executor=executor, progress=False)
    key = _params_key(df)
    parts = [df[(df["level"] == lv) & (key == json.dumps(p, sort_keys=True))].assign(option=name)
             for lv in formats for name, p in variants.items()]
    return pd.concat(parts, ignore_index=True)


def paired_rows(df: pd.DataFrame, simulations: int) -> pd.DataFrame:
    """The table of `play_further`'s games: per (option, format), both win rates and the
    paired difference (option - OH) with its 95% t-interval (COLUMNS)."""
    rows = []
    for lv in dict.fromkeys(df["level"]):
        part = df[df["level"] == lv]
        base = part[part["option"] == BASE].set_index(["seed", "game"])["won"].astype(int)
        for name in dict.fromkeys(part["option"]):
            if name == BASE:
                continue
            other = part[part["option"] == name].set_index(["seed", "game"])["won"].astype(int)
            a, b = base.align(other, join="inner")
            diff = (b - a).to_numpy()
            mean, lo, hi = t_interval(diff) if diff.any() else (0.0, 0.0, 0.0)  # no discordant deal: no spread
            rows.append({"option": name, "format": lv, "games": len(diff), "simulations": simulations,
                         "win rate OH": float(a.mean()), "win rate option": float(b.mean()), "difference": mean,
                         "ci_low": lo, "ci_high": hi, "only_option_won": int((diff > 0).sum()),
                         "only_oh_won": int((diff < 0).sum())})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _figure(table: pd.DataFrame):
    """One panel per format: each option's paired difference (option - OH) with its 95%
    interval, zero marked."""
    import matplotlib.pyplot as plt

    formats = list(dict.fromkeys(table["format"]))
    options = list(dict.fromkeys(table["option"]))
    fig, axes = plt.subplots(1, len(formats), figsize=(2.6 * len(formats) + 2.6, 0.35 * len(options) + 1.6),
                             sharey=True, squeeze=False)
    for ax, lv in zip(axes[0], formats):
        part = table[table["format"] == lv].set_index("option").reindex(options)
        y = range(len(options))
        err = [part["difference"] - part["ci_low"], part["ci_high"] - part["difference"]]
        ax.errorbar(part["difference"], y, xerr=err, fmt="o", ms=4, capsize=2, color="C0")
        ax.axvline(0.0, color="grey", lw=1, ls="--")
        oh = part["win rate OH"].dropna()
        ax.set_title(f"{lv} (OH {oh.iloc[0]:.3f})" if len(oh) else lv, fontsize=9)
        ax.set_xlabel("win rate, option - OH", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0][0].set_yticks(range(len(options)), options, fontsize=7)
    axes[0][0].invert_yaxis()
    games, sims = int(table["games"].max()), int(table["simulations"].max())
    fig.suptitle(f"Buffet et al.'s further work as options of OH: paired difference on the same deals (95% "
                 f"t-interval; {games:,} deals a format, {sims:,} simulations a move)", fontsize=9)
    fig.tight_layout()
    return fig


def table_further_work(further_games: int = SIZES["quick"]["further_games"],
                       further_simulations: int = SIZES["quick"]["further_simulations"], seed: int = 0,
                       executor="processes", options=tuple(OPTIONS), formats=FORMATS) -> PaperResult:
    """The further-work table: each option of OPTIONS against OH as published on FORMATS,
    paired deals (`paired_rows`), and its figure. No measured rows: the paper publishes no
    number to set beside these (nothing to judge)."""
    df = play_further(further_games, further_simulations, seed, options, formats, executor)
    table = paired_rows(df, further_simulations)
    return PaperResult("table_further_work", _figure(table), table)


__all__ = ["OPTIONS", "FORMATS", "SIZES", "BASE", "COLUMNS", "play_further", "paired_rows", "table_further_work",
           "NOTEBOOK", "PAPER"]
