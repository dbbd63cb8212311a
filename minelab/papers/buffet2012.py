"""Buffet, Lee, Lin & Teytaud (2012), "Optimistic Heuristics for MineSweeper": Table 1, Figs 1 and 2.

Table 1 gives the win rates of four programs on 11 board formats, first click safe
("one can not lose at the first move", the package's default rule): CSP-PGMS (PGMS's
own CSP), HCSP (CSP breaking ties toward the frontier, Legendre et al.), BSSUCT (UCT of
Sebag & Teytaud) and OH (the paper's Optimistic Heuristics). minelab measures the HCSP
column with `hcsp`, BSSUCT with `uct` and OH with `oh` (minelab.agents.uct), the tree
searches at the paper's simulations per move (10,000; 100 on 16x16 and 16x30; the paper
gives no count for BSSUCT: the same). BSSUCT is run only where the paper has a number
for it (the caption: "not documented for cases in which it was too slow").

The CSP-PGMS column has no minelab twin: PGMS's CSP is another program, which does not
compute exact probabilities. minelab's own `csp` (exact probabilities, ties at random)
is measured beside, on every format, under its own name ("minelab csp", quantity
"minelab csp win rate, <level>"), never as CSP-PGMS. The published numbers live in
data/published/buffet2012.csv and are only drawn beside ours, labelled "published".

`hcsp_variants` runs the other readings of HCSP's tie rule (§2.2) beside the default
on the same boards (see its docstring for the reading the text supports).

`fig01_mcts_overview` draws Fig 1 (the four phases of one MCTS simulation) from `oh`'s
own search kernels, driven one simulation at a time on one position (`search_tree`).

Each format's games are played in chunks of CHUNK games; chunk i of a format is dealt
from the same seed for both agents (paired comparison), and a paper-size run reuses
the chunks of a quick one from the result cache. The tree searches play chunks of
TREE_CHUNK games (a decision costs up to 10,000 simulations), again the same boards for
`uct` and `oh`. Their games are independent (nothing is learnt across games): Wilson
intervals.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from ..agents import list_agents
from ..levels import Level
from ..sweep import run_sweep
from ..stats import wilson
from ..tasks import check_games, play_tasks, win_rates
from ..report import PaperResult
from . import judged, judged_lines, ledger_line, ledger_rows, tally

PAPER = "buffet2012"
NOTEBOOK = "buffet2012_optimistic_heuristics.ipynb"
MODULE = __name__
ITEM = "Table 1"
# (the paper's row label, our level string): rows x cols x mines, first click safe
FORMATS = (
    ("4 mines on 4x4", "4x4x4"), ("1 mine on 1x3", "1x3x1"), ("3 mines on 2x5", "2x5x3"),
    ("10 mines on 5x5", "5x5x10"), ("5 mines on 1x10", "1x10x5"), ("10 mines on 3x7", "3x7x10"),
    ("15 mines on 5x5", "5x5x15"), ("10 mines on 8x8", "8x8x10"), ("10 mines on 9x9", "9x9x10"),
    ("40 mines on 16x16", "16x16x40"), ("99 mines on 16x30", "16x30x99"),
)
EXPERT = "16x30x99"  # the format the paper averages over 10^4 games instead of 10^5
COLUMNS = ("CSP-PGMS", "HCSP", "BSSUCT", "OH")  # the published programs, in the paper's order
CSP = "minelab csp"  # minelab's exact-probability csp, measured beside the table: no published twin
TABLE_COLUMNS = ("CSP-PGMS", CSP, "HCSP", "BSSUCT", "OH")  # table1_win_rates' rows per format
AGENTS = {CSP: "csp", "HCSP": "hcsp", "BSSUCT": "uct", "OH": "oh"}  # the agent of each measured column
NO_TWIN = {"CSP-PGMS": "no minelab twin"}  # published columns minelab does not measure (status)
NO_TWIN_WHY = {"CSP-PGMS": "PGMS's own CSP is another program (not exact probabilities); minelab csp, exact "
                           "probabilities, is measured beside it under its own name"}
TREE_COLUMNS = ("BSSUCT", "OH")  # tree searches: simulations per move, games of their own
SIMULATIONS = 10_000  # per move (Table 1's caption, for OH)
FEW_SIMULATIONS = {"16x16x40": 100, "16x30x99": 100}  # "except expert mode and intermediate mode"
CHUNK = 5_000
TREE_CHUNK = 500

# Run sizes per profile. paper = the paper's: 10^5 games per format, 10^4 on 16x30.
# tree_games: per (format, tree column); the paper does not say how many games OH or BSSUCT
# played. 4,000 each is what two hours on 2 cores allows: measured seconds a game at the
# paper's simulations per move, one core, summed over both tree columns and all formats,
# come to about 3.2 s (OH on 8x8x10 alone 0.86 s, on 5x5x10 0.34 s), so 4,000 games are about
# 12,800 core-seconds. The dask path (executor=) and a larger tree_games serve more: a
# larger run reuses these chunks (minelab.tasks.play_tasks).
SIZES = {
    "smoke": {"games": 40, "expert_games": 10, "tree_games": 4, "fig2_games": 20},
    "quick": {"games": 10_000, "expert_games": 1_000, "tree_games": 200, "fig2_games": 2_000},
    "paper": {"games": 100_000, "expert_games": 10_000, "tree_games": 4_000, "fig2_games": 10_000},
}
NOTES = {
    CSP: "minelab csp (exact probabilities, ties at random), measured beside Table 1: no published twin (the "
         "CSP-PGMS column is PGMS's own CSP, another program)",
    "HCSP": "minelab hcsp (exact probabilities, ties toward the frontier)",
    "BSSUCT": "minelab uct (UCT over belief states, exact layout sampling, CSP default policy), {sims:,} simulations "
              "per move; the paper gives no simulation count for BSSUCT",
    "OH": "minelab oh (Alg. 2: UCT over the least probable cells, HCSP default policy), {sims:,} simulations per move",
}


def simulations(level: str) -> int:
    """The tree searches' simulations per move on a Table 1 format."""
    return FEW_SIMULATIONS.get(level, SIMULATIONS)


def quantity(column: str, level: str) -> str:
    """The (item 'Table 1') quantity of one cell of the table, in buffet2012.csv and measured.csv."""
    return f"{column} win rate, {level}"


def published() -> pd.DataFrame:
    """Table 1's published cells: format, level, column, value, ci_low, ci_high, games, note."""
    from .. import report

    pub = report.load_published(PAPER, claims=False)
    pub = pub[pub["item"] == ITEM]
    rows = []
    for label, level in FORMATS:
        for col in COLUMNS:
            hit = pub[pub["quantity"] == quantity(col, level)]
            if not hit.empty:
                r = hit.iloc[0]
                rows.append({"format": label, "level": level, "column": col, "value": r["value"],
                             "ci_low": r["ci_low"], "ci_high": r["ci_high"], "games": r["games"], "note": r["note"]})
    return pd.DataFrame(rows, columns=["format", "level", "column", "value", "ci_low", "ci_high", "games", "note"])


def _agents(agents) -> dict:
    if not isinstance(agents, dict):
        raise ValueError(f"agents must be a dict {{column: agent name}}, got {agents!r}")
    for col, name in agents.items():
        if col in NO_TWIN:
            raise ValueError(f"agents: the column {col!r} has no minelab twin ({NO_TWIN_WHY[col]}); "
                             f"minelab's csp is the column {CSP!r}")
        if col not in AGENTS:
            raise ValueError(f"agents: column {col!r} is not one minelab measures ({', '.join(AGENTS)})")
        if not isinstance(name, str) or not name:
            raise ValueError(f"agents: the agent for {col} must be an agent name, got {name!r}")
    return dict(agents)


def _formats(formats) -> list[tuple[str, str]]:
    known = dict((lv, label) for label, lv in FORMATS)
    if isinstance(formats, str) or not hasattr(formats, "__iter__"):
        raise ValueError(f"formats must be a list of Table 1 levels, got {formats!r}")
    out = []
    for lv in formats:
        if lv not in known:
            raise ValueError(f"formats: {lv!r} is not a Table 1 format ({', '.join(known)})")
        out.append((known[lv], lv))
    if not out:
        raise ValueError("formats is empty")
    return out


def _table1_tasks(formats, agents, games, expert_games, tree_games, seed, documented) -> list[dict]:
    """The sweep of Table 1: csp-like columns in CHUNK-game chunks, the tree columns at
    their simulations per move in TREE_CHUNK-game chunks (BSSUCT only where `documented`)."""
    registered = set(list_agents())
    tasks = []
    for _, lv in formats:
        flat = [a for c, a in agents.items() if c not in TREE_COLUMNS and a in registered]
        if flat:
            tasks += play_tasks(list(dict.fromkeys(flat)), lv, expert_games if lv == EXPERT else games, seed)
        tree = [a for c, a in agents.items() if c in TREE_COLUMNS and a in registered
                and (c != "BSSUCT" or (lv, c) in documented)]
        if tree and tree_games:
            params = {a: {"simulations": simulations(lv)} for a in tree}
            tasks += play_tasks(list(dict.fromkeys(tree)), lv, tree_games, seed, chunk=TREE_CHUNK,
                                agent_params=params)
    return tasks


def table1_win_rates(games: int = SIZES["quick"]["games"], expert_games: int = SIZES["quick"]["expert_games"],
                     tree_games: int = SIZES["quick"]["tree_games"], seed: int = 0, executor="processes",
                     agents=None, formats=None) -> PaperResult:
    """Table 1: win rates of `hcsp` (HCSP), `uct` (BSSUCT) and `oh` (OH) on the 11
    formats with Wilson 95% intervals, beside every published value, and minelab's `csp`
    beside them as "minelab csp" (the published CSP-PGMS column has no minelab twin).

    One row per (format, column of TABLE_COLUMNS): ours (games, wins, win rate, interval),
    the published value with its +- where printed, and whether the published value lies
    outside our interval. `games` / `expert_games`: per format for the csp-like columns (16x30 takes
    expert_games); `tree_games`: per format for the tree searches (0: not run). An agent
    that is not registered is reported as such in `status`, not run; BSSUCT is run only
    where the paper has a number. `agents` maps columns to agent names (default: AGENTS),
    so another agent can stand in for a column."""
    games, expert_games = check_games("games", games), check_games("expert_games", expert_games)
    if isinstance(tree_games, bool) or not isinstance(tree_games, (int, np.integer)) or tree_games < 0:
        raise ValueError(f"tree_games must be a non-negative integer, got {tree_games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    agents = _agents(AGENTS if agents is None else agents)
    formats = _formats([lv for _, lv in FORMATS] if formats is None else formats)
    pub = published().set_index(["level", "column"])
    tasks = _table1_tasks(formats, agents, games, expert_games, int(tree_games), int(seed), set(pub.index))
    df = run_sweep(tasks, executor=executor, progress=len(tasks) > 8) if tasks else pd.DataFrame()
    ours = win_rates(df, ("agent", "level")) if tasks else pd.DataFrame(columns=["agent", "level"])
    registered = set(list_agents())
    rows = []
    for label, lv in formats:
        for col in TABLE_COLUMNS:
            rows.append(_table1_row(label, lv, col, agents.get(col), ours, pub, registered, tree_games))
    table = pd.DataFrame(rows)
    for col in ("games", "wins", "published_games"):
        table[col] = table[col].astype("Int64")
    table["published_outside_ci"] = table["published_outside_ci"].astype("boolean")

    measured = []
    for r in table[table["status"] == "measured"].itertuples():
        note = (NOTES[r.column].format(sims=simulations(r.level)) if agents[r.column] == AGENTS[r.column]
                else f"minelab {r.agent} standing in")
        if outside_flag(r.published_outside_ci):
            note += "; the published value lies outside our 95% interval"
        measured.append({"item": ITEM, "quantity": quantity(r.column, r.level), "value": r.win_rate,
                         "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games), "note": note,
                         "agents": r.agent})
    return PaperResult("table1_win_rates", _figure(table, formats), table, measured)


def _table1_row(label, lv, col, agent, ours, pub, registered, tree_games) -> dict:
    """One (format, column) row of table1_win_rates: ours (or why not), the published value."""
    row = {"format": label, "level": lv, "column": col, "agent": agent or "", "status": "",
           "games": pd.NA, "wins": pd.NA, "win_rate": np.nan, "ci_low": np.nan, "ci_high": np.nan,
           "simulations": simulations(lv) if col in TREE_COLUMNS else pd.NA}
    hit = ours[(ours["agent"] == agent) & (ours["level"] == lv)] if agent else ours.iloc[:0]
    if col in NO_TWIN:
        row["status"] = NO_TWIN[col]
    elif agent not in registered:
        row["status"] = f"agent {agent!r} not registered"
    elif col == "BSSUCT" and (lv, col) not in pub.index:
        row["status"] = "not documented in the paper"
    elif col in TREE_COLUMNS and not tree_games:
        row["status"] = "not run (tree_games=0)"
    elif not hit.empty:
        r = hit.iloc[0]
        row.update(status="measured", games=int(r.games), wins=int(r.wins), win_rate=r.win_rate,
                   ci_low=r.ci_low, ci_high=r.ci_high)
    if (lv, col) in pub.index:
        p = pub.loc[(lv, col)]
        row.update(published=p["value"], published_low=p["ci_low"], published_high=p["ci_high"],
                   published_games=p["games"])
    else:
        row.update(published=np.nan, published_low=np.nan, published_high=np.nan, published_games=pd.NA)
    measured = row["status"] == "measured" and not np.isnan(row["published"])
    row["published_outside_ci"] = (bool(row["published"] < row["ci_low"] or row["published"] > row["ci_high"])
                                   if measured else pd.NA)
    return row


def outside_flag(value) -> bool:
    """True when a `published_outside_ci` cell says so, whatever its type: Python or
    numpy bool, pandas' nullable boolean, or missing (pd.NA / None / NaN: False). An
    `is True` test misses numpy's True_, and bool(pd.NA) raises."""
    return False if value is None or pd.isna(value) else bool(value)


def _pct(value, low=np.nan, high=np.nan, games=pd.NA) -> str:
    if pd.isna(value):
        return ""
    text = f"{100 * value:.2f}%"
    if not (pd.isna(low) or pd.isna(high)):
        text += f" ({100 * low:.2f}-{100 * high:.2f})"
    if not pd.isna(games):
        text += f", {int(games):,} games"
    return text


CSP_LAYOUT = "minelab csp (exact probabilities; no published twin)"  # its column in table1_layout


def table1_layout(table: pd.DataFrame) -> pd.DataFrame:
    """Table 1 as the paper lays it out: one row per format, and for each program the
    published value (+- as printed) beside minelab's (95% Wilson interval, games); the
    CSP-PGMS column says it has no minelab twin, and minelab's csp has a column of its own
    (`CSP_LAYOUT`), with nothing published beside it. A dagger (†) marks every published
    value outside our interval (`published_outside_ci`, of any boolean type)."""
    rows = []
    for (label, lv), part in table.groupby(["format", "level"], sort=False):
        row = {"format": label, "level": lv}
        for r in part.itertuples():
            ours = _pct(r.win_rate, r.ci_low, r.ci_high, r.games) if r.status == "measured" else r.status
            if r.column == CSP:
                row[CSP_LAYOUT] = ours
                continue
            spread = ""
            if not (pd.isna(r.published_low) or pd.isna(r.published_high)):
                spread = f" ± {100 * (r.published_high - r.published_low) / 2:.2g}%"
            pub = "" if pd.isna(r.published) else f"{100 * r.published:.2f}%{spread}"
            if outside_flag(r.published_outside_ci):
                pub += " †"
            row[f"{r.column} published"] = pub
            row[f"{r.column} minelab"] = ours
        rows.append(row)
    return pd.DataFrame(rows)


def layout_result(result: PaperResult) -> PaperResult:
    """table1_layout as a PaperResult of its own (a table only), to publish beside the tidy one."""
    return PaperResult("table1_layout", None, table1_layout(result.table), [])


def outside(table: pd.DataFrame) -> pd.DataFrame:
    """The cells whose published value lies outside our 95% interval, with the gap."""
    out = table[table["published_outside_ci"].map(outside_flag).astype(bool)]
    return out.assign(gap=out["win_rate"] - out["published"])[
        ["format", "column", "agent", "published", "win_rate", "ci_low", "ci_high", "games", "gap"]
    ].reset_index(drop=True)


OUTSIDE_GID = "published_outside_ci"  # the gid of the figure's ring collection (one ring per dagger)


def _figure(table: pd.DataFrame, formats):
    """Top: win rates per format (log scale), ours filled with Wilson intervals, the
    published hollow (± as printed), a ring around every published value outside our
    interval (the figure's dagger; its collection has gid OUTSIDE_GID). The published
    CSP-PGMS column has no minelab twin: minelab csp is drawn beside it in a colour of its
    own. Bottom: minelab minus published, in percentage points, with our interval, for
    the columns that have a twin."""
    import matplotlib.pyplot as plt

    style = {"CSP-PGMS": ("C0", "o"), CSP: ("C4", "p"), "HCSP": ("C1", "s"), "BSSUCT": ("C2", "^"),
             "OH": ("C3", "D")}
    ours_dx = {CSP: -0.3, "HCSP": -0.16, "BSSUCT": 0.06, "OH": 0.28}
    pub_dx = {"CSP-PGMS": -0.38, "HCSP": -0.08, "BSSUCT": 0.14, "OH": 0.36}
    fig, (ax, dax) = plt.subplots(2, 1, figsize=(11, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    x_of = {lv: i for i, (_, lv) in enumerate(formats)}
    floor = 1e-3
    rings_x, rings_y = [], []
    for col in TABLE_COLUMNS:
        color, marker = style[col]
        part = table[table["column"] == col]
        x = part["level"].map(x_of).to_numpy(dtype=float)
        ours = (part["status"] == "measured").to_numpy()
        if ours.any():
            p = part[ours]
            y = p["win_rate"].clip(lower=floor)
            what = ("exact probabilities; no published twin" if col == CSP else f"{col} column")
            ax.errorbar(x[ours] + ours_dx[col], y, yerr=[(y - p["ci_low"].clip(lower=floor)).clip(lower=0),
                                                        (p["ci_high"] - y).clip(lower=0)],
                        fmt=marker, color=color, ms=5, capsize=2, label=f"minelab {p['agent'].iloc[0]} ({what})")
            both = ours & part["published"].notna().to_numpy()
            if both.any():
                q = part[both]
                d = 100 * (q["win_rate"] - q["published"])
                dax.errorbar(x[both] + ours_dx[col], d, yerr=[100 * (q["win_rate"] - q["ci_low"]),
                                                              100 * (q["ci_high"] - q["win_rate"])],
                             fmt=marker, color=color, ms=5, capsize=2,
                             label=f"minelab {q['agent'].iloc[0]} minus published {col}")
        has = part["published"].notna().to_numpy()
        if has.any():
            p = part[has]
            lo = (p["published"] - p["published_low"]).fillna(0)
            hi = (p["published_high"] - p["published"]).fillna(0)
            twin = " (PGMS's own CSP: no minelab twin)" if col in NO_TWIN else ""
            ax.errorbar(x[has] + pub_dx[col], p["published"], yerr=[lo, hi], fmt=marker, mfc="white", color=color,
                        ms=6, capsize=2, label=f"published {col}{twin}")
            bad = p["published_outside_ci"].map(outside_flag).to_numpy(dtype=bool)
            rings_x += list(x[has][bad] + pub_dx[col])
            rings_y += list(p["published"].to_numpy(dtype=float)[bad])
    ax.scatter(rings_x, rings_y, s=130, facecolors="none", edgecolors="k", linewidths=1.2, zorder=5,
               label="published value outside our 95% interval (†)", gid=OUTSIDE_GID)
    ax.set_yscale("log")
    ax.set_ylim(floor, 1.5)
    ax.set_ylabel("win rate (log scale)")
    ax.set_title("Buffet et al. 2012, Table 1: minelab (filled, 95% Wilson) beside the published programs (hollow, "
                 "± as printed)\nHCSP = minelab hcsp, BSSUCT = minelab uct, OH = minelab oh (the paper's simulations "
                 "per move); CSP-PGMS has no minelab twin,\nminelab csp (exact probabilities) is drawn beside it",
                 fontsize=9)
    ax.grid(axis="y", which="both", alpha=0.25)
    ax.legend(fontsize=7, ncol=2, loc="lower left")
    dax.axhline(0, color="k", lw=0.8)
    dax.set_ylabel("minelab - published\n(percentage points)")
    dax.grid(axis="y", alpha=0.25)
    if dax.get_legend_handles_labels()[0]:
        dax.legend(fontsize=7, loc="upper left")
    dax.set_xticks(range(len(formats)), [lv for _, lv in formats], rotation=30, fontsize=8)
    dax.set_xlabel("format (rows x cols x mines; first click safe)")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------- HCSP's tie rule (§2.2)
# every format where Table 1 prints an HCSP number (not 1x3x1)
HCSP_LEVELS = tuple(lv for _, lv in FORMATS if lv != "1x3x1")
HCSP_DEFAULT = "default"
# name: (agent, its parameters, what the variant changes against the default). Each is a
# reading of Buffet §2.2 (see hcsp_variants), run on the boards of Table 1's HCSP column.
HCSP_VARIANTS = {
    HCSP_DEFAULT: ("hcsp", {}, "minelab hcsp as in Table 1: frontier = the revealed cells showing a number, "
                               "Chebyshev distance, remaining ties at random, first click in the corner"),
    "covered-side frontier": ("hcsp", {"frontier": "constrained"},
                              "the frontier read as the covered cells next to a revealed number"),
    "manhattan distance": ("hcsp", {"metric": "manhattan"}, "the distance to the frontier in rook steps (Manhattan)"),
    "euclidean distance": ("hcsp", {"metric": "euclidean"}, "the straight-line (Euclidean) distance to the frontier"),
    "known-mine frontier": ("hcsp", {"frontier": "known-mine"},
                            "the frontier read as the revealed cells next to a mine the agent has deduced"),
    "scan-order ties": ("hcsp", {"ties": "scan"},
                        "the ties left after the distance broken in row-major scan order, not at random"),
    "random first click": ("hcsp", {"first_click": "random"},
                           "no fixed opening: the first click is a uniformly random cell (every cell ties before "
                           "anything is revealed)"),
    "no tie rule (csp)": ("csp", {}, "no frontier rule: every tie broken at random (minelab csp)"),
}


def variant_quantity(level: str, name: str) -> str:
    """The (item 'Table 1') quantity of one HCSP variant on one level, in measured.csv."""
    return f"HCSP win rate, {level} [variant: {name}]"


def hcsp_variants(games: int = SIZES["quick"]["games"], expert_games: int = SIZES["quick"]["expert_games"],
                  seed: int = 0, executor="processes", variants=None, levels=None) -> PaperResult:
    """Table 1's HCSP column under each reading of §2.2's tie rule, on the same boards.

    What the text says (§2.2): among the cells of least mine probability, HCSP plays the
    one "as close as possible to the frontier between covered locations and uncovered
    locations"; the example gives integer distances (1, 1, 2, 2, 2, 1) and "Formally, the
    frontier is defined as the set of locations which are uncovered and next to at least
    one mine". The caption: "breaking ties by playing as close as possible to the
    frontier between covered locations and uncovered locations [11]". Nothing is said of
    HCSP's first click, nor of ties left after the distance, nor of the metric.

    The reading the text supports, written before any variant was run: "uncovered" means
    revealed (the paper's own phrase "frontier between covered locations and uncovered
    locations", used twice), so the frontier is the set of revealed cells that show a
    number (a revealed cell is next to a mine exactly when its number is at least 1);
    the distance is counted in the 8-neighbourhood that defines "next to" (Chebyshev: a
    covered cell touching the revealed area is at distance 1, as the example's smallest
    distance); ties left after it are broken at random, as every other tie; the first
    click is in a corner like OH's ("we fix the first move at a corner"). That is what
    minelab's `hcsp` does (minelab/agents/csp.py): the BFS distance over the
    8-neighbourhood to the nearest revealed cell, which is the Chebyshev distance to the
    nearest revealed *numbered* cell (the nearest revealed cell of a covered cell always
    shows a number: a revealed 0 has every neighbour revealed).

    The other readings, each a named non-default option of `hcsp`, beside it:
    * "covered-side frontier": the example calls its candidate cells "uncovered" too, so
      the word may be loose; then the frontier is the covered cells next to a revealed
      number. With the Chebyshev metric every distance is the default's minus one, so
      the choices are the same: a check that must show no difference at all.
    * "manhattan distance" / "euclidean distance": other metrics (the example's integer
      distances fit Manhattan; Euclidean gives non-integers, the weakest reading).
    * "known-mine frontier": "next to at least one mine" read as a mine the player knows
      (the agent's deduced, flagged mines); before any is known every tie is kept.
    * "scan-order ties": the remaining ties in row-major order (a program's first found).
    * "random first click": HCSP applied from the first move, where every cell ties (no
      mine can be hit, nothing is revealed), so the opening is a uniform random cell.
    * "no tie rule (csp)": minelab csp, ties at random, to size the rule's own effect.

    Every variant plays the same boards as the default (the chunks of Table 1's HCSP
    column: same seeds), so the default and csp come from the cache. Per (variant,
    level): games, wins, win rate with its Wilson interval, the published HCSP value and
    whether the run reproduces it ("on this number", the ledger's test), and the paired difference from the
    default on the same boards (mean of won_variant - won_default, normal 95% interval;
    the boards won by one and lost by the other, with McNemar's exact p). The measured
    rows (quantity `variant_quantity`) are the non-default variants."""
    from scipy.stats import binomtest

    from .. import report

    games, expert_games = check_games("games", games), check_games("expert_games", expert_games)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    names = list(HCSP_VARIANTS) if variants is None else list(variants)
    unknown = [v for v in names if v not in HCSP_VARIANTS]
    if unknown or not names:
        raise ValueError(f"variants must be names of HCSP_VARIANTS ({', '.join(HCSP_VARIANTS)}); got {variants!r}")
    if HCSP_DEFAULT not in names:
        names.insert(0, HCSP_DEFAULT)  # the paired differences need it
    levels = list(HCSP_LEVELS) if levels is None else [lv for _, lv in _formats(levels)]
    pub = report.load_published(PAPER, claims=False)
    pub = {r["quantity"]: r for r in pub[pub["item"] == ITEM].to_dict("records")}
    won = {}
    for name in names:
        agent, params, _ = HCSP_VARIANTS[name]
        tasks = [t for lv in levels for t in play_tasks([agent], lv, expert_games if lv == EXPERT else games,
                                                        int(seed), agent_params={agent: params} if params else None)]
        df = run_sweep(tasks, executor=executor, progress=False)
        for lv, part in df.groupby("level", sort=False):
            won[(name, lv)] = part.set_index(["seed", "game"])["won"].astype(int)
    rows = []
    for name in names:
        agent, params, what = HCSP_VARIANTS[name]
        for lv in levels:
            w = won[(name, lv)]
            base = won[(HCSP_DEFAULT, lv)].reindex(w.index)
            n, wins = len(w), int(w.sum())
            lo, hi = wilson(wins, n)
            d = (w - base).to_numpy(dtype=float)
            half = 1.96 * d.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
            gained, lost = int((d > 0).sum()), int((d < 0).sum())
            p = pub.get(quantity("HCSP", lv))
            row = {"variant": name, "level": lv, "agent": agent, "params": _params_text(params), "games": n,
                   "wins": wins, "win_rate": wins / n, "ci_low": lo, "ci_high": hi,
                   "diff": 100 * d.mean(), "diff_low": 100 * (d.mean() - half), "diff_high": 100 * (d.mean() + half),
                   "gained": gained, "lost": lost,
                   "mcnemar_p": binomtest(gained, gained + lost, 0.5).pvalue if gained + lost else 1.0,
                   "published": np.nan, "published_low": np.nan, "published_high": np.nan, "on this number": "",
                   "what": what}
            if p is not None:
                row.update(published=p["value"], published_low=p["ci_low"], published_high=p["ci_high"],
                           **{"on this number": _reproduces(p, wins, n, lo, hi)})
            rows.append(row)
    table = pd.DataFrame(rows)
    measured = [{"item": ITEM, "quantity": variant_quantity(r.level, r.variant), "value": r.win_rate,
                 "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games),
                 "note": f"minelab {r.agent}{' ' + r.params if r.params else ''}: {r.what}; paired with the default "
                         f"hcsp on the same boards: {r.diff:+.2f} points ({r.diff_low:+.2f} to {r.diff_high:+.2f})",
                 "agents": r.agent}
                for r in table.itertuples() if r.variant != HCSP_DEFAULT]
    return PaperResult("hcsp_variants", _variants_figure(table), table, measured)


def _params_text(params: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


def _variants_figure(table: pd.DataFrame):
    """Each variant minus the default hcsp on the same boards (points, 95% interval), per
    level, beside the published HCSP minus the default (black bar, ± as printed)."""
    import matplotlib.pyplot as plt

    levels = list(dict.fromkeys(table["level"]))
    others = [v for v in dict.fromkeys(table["variant"]) if v != HCSP_DEFAULT]
    fig, ax = plt.subplots(figsize=(10, 4.4))
    width = 0.8 / max(1, len(others))
    for i, name in enumerate(others):
        part = table[table["variant"] == name]
        x = np.array([levels.index(lv) for lv in part["level"]]) - 0.4 + (i + 0.5) * width
        ax.errorbar(x, part["diff"], yerr=[part["diff"] - part["diff_low"], part["diff_high"] - part["diff"]],
                    fmt="o", ms=4, capsize=2, color=f"C{i}", label=name)
    base = table[table["variant"] == HCSP_DEFAULT].set_index("level").reindex(levels)
    gap = 100 * (base["published"] - base["win_rate"])
    lo = 100 * (base["published"] - base["published_low"]).fillna(0)
    hi = 100 * (base["published_high"] - base["published"]).fillna(0)
    x = np.arange(len(levels))
    ax.hlines(gap, x - 0.45, x + 0.45, color="k", lw=1.6, ls="--", label="published HCSP minus the default")
    for xi, g, a, b in zip(x, gap, lo, hi):
        if a or b:
            ax.fill_between([xi - 0.45, xi + 0.45], g - a, g + b, color="k", alpha=0.1, lw=0)
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xticks(range(len(levels)), levels)
    ax.set_ylabel("minus the default hcsp, same boards\n(percentage points)")
    ax.set_title("HCSP's tie rule (Buffet §2.2): each reading minus minelab's default hcsp, paired on the same "
                 "boards (95%)", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=3, loc="lower left")
    fig.tight_layout()
    return fig


def hcsp_variants_text(result: PaperResult) -> str:
    """Markdown commentary of `hcsp_variants`: the default beside the published HCSP, each
    variant's paired difference from the default, and the ledger's verdict on each
    published HCSP number (which names the readings registered on it). Every number
    comes from the result's table; every verdict from the ledger."""
    t = result.table
    base = t[t["variant"] == HCSP_DEFAULT].set_index("level")
    levels = list(base.index)
    n = base["games"]
    sizes = ", ".join(f"{lv}: {int(n[lv]):,}" for lv in levels)
    lines = [f"**The readings of HCSP's tie rule on the same boards** ({sizes} games). The reading the text "
             "supports (stated in `hcsp_variants`' docstring before any run): the "
             "frontier is the revealed cells showing a number, the distance is Chebyshev, ties are random, the "
             "first click in a corner: minelab's default `hcsp`.", ""]
    gaps = 100 * (base["published"] - base["win_rate"])
    lines.append("* **Default beside the published HCSP**: "
                 + "; ".join(f"{lv}: {_p(base.loc[lv, 'win_rate'], 2)} ({100 * base.loc[lv, 'ci_low']:.2f}-"
                             f"{100 * base.loc[lv, 'ci_high']:.2f}) vs {_p(base.loc[lv, 'published'], 1)}, "
                             f"{gaps[lv]:+.2f} points to reach it" for lv in levels)
                 + ".")
    for name, part in t[t["variant"] != HCSP_DEFAULT].groupby("variant", sort=False):
        part = part.set_index("level")
        same = int((part["gained"] + part["lost"]).sum()) == 0
        sig = [lv for lv in levels if part.loc[lv, "mcnemar_p"] < 0.05]
        detail = "; ".join(f"{lv} {part.loc[lv, 'diff']:+.2f} ({part.loc[lv, 'diff_low']:+.2f} to "
                           f"{part.loc[lv, 'diff_high']:+.2f}), {_p(part.loc[lv, 'win_rate'], 2)}" for lv in levels)
        head = (f"plays exactly the default's games on every board ({int(part['games'].sum()):,} games, none "
                "differs)" if same else
                f"differs from the default by {part['diff'].mean():+.2f} points on average (paired); significantly "
                "(McNemar p < 0.05) on "
                + (", ".join(sig) if sig else "no level"))
        lines.append(f"* **{name}** ({part['params'].iloc[0] or part['agent'].iloc[0]}): {part['what'].iloc[0]}. "
                     f"It {head}. Per level (minus the default in points, win rate): {detail}.")
    ledger = ledger_rows(PAPER, ITEM)
    quantities = [quantity("HCSP", lv) for lv in levels]
    rows = ledger[ledger["quantity"].isin(quantities)]
    lines += ["", f"**The ledger** on the published HCSP of these {len(rows)} levels ({tally(rows)}); a reading it "
              "credits (one that reproduces every number of its scope) is named in its verdict:", ""]
    lines += judged_lines(PAPER, ITEM, quantities, lines=ledger)
    return "\n".join(lines)


# ---------------------------------------------------------------------- BSSUCT's first click
# every format with a published BSSUCT win rate: the reading is judged on all of them
BSSUCT_LEVELS = ("4x4x4", "1x3x1", "2x5x3", "5x5x10", "1x10x5", "3x7x10", "5x5x15")
BSSUCT_VARIANT = "first click at a best first cell"


def best_first_cell(level: str, exact=None, bounds=None) -> tuple[tuple[int, int], str]:
    """The variant's opening on one format, and why: a cell of the highest exact
    first-click value (data/exact/optimal_first_click.csv); where the exact search is out
    of reach (5x5x10), a cell of the highest proven lower bound (data/exact/optimal_bounds.csv,
    the value of a concrete strategy: the best first click known to be at least that good).
    Among equal cells, the one nearest the centre cell (rows // 2, cols // 2), then the
    first in row order, so the choice is fixed by the tables alone.

        >>> best_first_cell("2x5x3")
        ((1, 2), 'exact optimum 1/4')
    """
    from .. import exact as solver

    shape = Level.parse(level)
    exact = solver.load_table() if exact is None else exact
    values, how = _exact_values(exact).get(level), "exact optimum"
    if not values:
        bounds = solver.load_table(solver.BOUNDS_FILE) if bounds is None else bounds
        values, how = _exact_values(bounds[(bounds["level"] == level) & (bounds["bound"] == "lower")]).get(level), \
            "proven lower bound"
    if not values:
        raise ValueError(f"level {level!r}: no exact first-click value and no proven lower bound")
    top = max(values.values())
    centre = (shape.rows // 2, shape.cols // 2)
    cell = min((c for c, v in values.items() if v == top),
               key=lambda c: ((c[0] - centre[0]) ** 2 + (c[1] - centre[1]) ** 2, c))
    return cell, f"{how} {top}"


def _reproduces(p: dict, wins: int, n: int, lo: float, hi: float) -> str:
    """Whether one run reproduces a published number, by the ledger's own test (the way
    the ledger judges a reading on each number of its scope): "reproduces" or "does not
    reproduce". Whether a reading is credited is the ledger's, on its whole scope."""
    from .. import ledger

    v, _ = ledger.judge(p, {"value": wins / n, "ci_low": lo, "ci_high": hi, "games": n})
    return "reproduces" if v in ("agrees", "bound met") else "does not reproduce"


def bssuct_first_click(games=SIZES["quick"]["tree_games"], seed: int = 0, executor="processes",
                       levels=BSSUCT_LEVELS) -> PaperResult:
    """BSSUCT (minelab uct, the paper's 10,000 simulations a move) opening at a best first
    cell beside its default corner opening, on the same boards, on every format with a
    published BSSUCT win rate.

    What the text says, read before this was run: §3 lists what OH changes in the UCT of
    [13] (BSSUCT), and one item is "we fix the first move at a corner of the board"; the
    conclusion adds "we have no proof that always playing in the corner for the first
    move is a good idea". So the text implies BSSUCT's first move is *not* fixed at a
    corner: it is chosen like every other move, by its search. A search that chooses the
    first move well plays a best first cell; minelab's uct has no search at the opening
    (its first click is a parameter), so the variant opens at a best cell directly
    (`best_first_cell`: by the exact optimum, or on 5x5x10 by the proven lower bound; on
    1x3x1 that is the corner itself). It is the limit of a good first-move search, not
    that search itself. The change reaches every BSSUCT win rate, so every one is run and
    the ledger judges the reading on all of them.

    `games`: per level, an int or {level: int}; chunks of TREE_CHUNK games with Table 1's
    seeds, so the default corner games are Table 1's (cached) and the pairs are the same
    boards. Per (opening, level): win rate with Wilson interval, the exact optimum of that
    opening (empty where unknown), the published BSSUCT and whether the run reproduces it;
    per level the paired difference best - corner. Measured rows: the best-cell opening,
    "BSSUCT win rate, <level> [variant: first click at a best first cell]"."""
    from .. import exact as solver, report

    sizes = {lv: games.get(lv) if isinstance(games, dict) else games for lv in levels}
    for lv, n in sizes.items():
        check_games(f"games[{lv}]", n)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    levels = [lv for _, lv in _formats(levels)]
    table, bounds = solver.load_table(), solver.load_table(solver.BOUNDS_FILE)
    exact = _exact_values(table)
    best = {lv: best_first_cell(lv, table, bounds) for lv in levels}
    pub = report.load_published(PAPER, claims=False)
    pub = {r["quantity"]: r for r in pub[pub["item"] == ITEM].to_dict("records")}
    won = {}
    for opening in ("corner", "best"):
        tasks = []
        for lv in levels:
            params = {"simulations": simulations(lv)}
            if opening != "corner":
                params["first_click"] = list(best[lv][0])  # a JSON value in the task
            tasks += play_tasks(["uct"], lv, sizes[lv], int(seed), chunk=TREE_CHUNK, agent_params={"uct": params})
        df = run_sweep(tasks, executor=executor, progress=False)
        for lv, part in df.groupby("level", sort=False):
            won[(opening, lv)] = part.set_index(["seed", "game"])["won"].astype(int)
    rows = []
    for lv in levels:
        cells = {"corner": ((0, 0), ""), "best": best[lv]}
        for opening in ("corner", "best"):
            w = won[(opening, lv)]
            d = (w - won[("corner", lv)].reindex(w.index)).to_numpy(dtype=float)
            n, wins = len(w), int(w.sum())
            lo, hi = wilson(wins, n)
            half = 1.96 * d.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
            cell, why = cells[opening]
            p = pub.get(quantity("BSSUCT", lv))
            rows.append({"level": lv, "opening": opening, "cell": str(cell), "chosen_by": why, "games": n,
                         "wins": wins, "win_rate": wins / n, "ci_low": lo, "ci_high": hi,
                         "exact_optimum": _float(exact.get(lv, {}).get(cell)),
                         "diff": 100 * d.mean(), "diff_low": 100 * (d.mean() - half),
                         "diff_high": 100 * (d.mean() + half),
                         "published": p["value"] if p else np.nan, "published_low": p["ci_low"] if p else np.nan,
                         "published_high": p["ci_high"] if p else np.nan,
                         "on this number": _reproduces(p, wins, n, lo, hi) if p else ""})
    table = pd.DataFrame(rows)
    measured = [{"item": ITEM, "quantity": f"{quantity('BSSUCT', r.level)} [variant: {BSSUCT_VARIANT}]",
                 "value": r.win_rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games),
                 "note": f"minelab uct, {simulations(r.level):,} simulations a move, first_click={r.cell} (chosen by "
                         f"{r.chosen_by}); paired with the corner opening on the same boards: {r.diff:+.2f} points "
                         f"({r.diff_low:+.2f} to {r.diff_high:+.2f})",
                 "agents": "uct"}
                for r in table.itertuples() if r.opening == "best"]
    return PaperResult("bssuct_first_click", _bssuct_figure(table), table, measured)


def _bssuct_figure(table: pd.DataFrame):
    """Win rate per opening and level (95% Wilson), the exact optimum of each opening
    (bar, where known) and the published BSSUCT (hollow, ± as printed)."""
    import matplotlib.pyplot as plt

    levels = list(dict.fromkeys(table["level"]))
    fig, ax = plt.subplots(figsize=(8, 3.8))
    for i, (opening, label) in enumerate((("corner", "the corner"), ("best", "a best first cell"))):
        part = table[table["opening"] == opening]
        x = np.array([levels.index(lv) for lv in part["level"]]) + (i - 0.5) * 0.3
        ax.errorbar(x, part["win_rate"], yerr=[part["win_rate"] - part["ci_low"], part["ci_high"] - part["win_rate"]],
                    fmt="o", color=f"C{i}", capsize=3, label=f"minelab uct, first click at {label}")
        ax.hlines(part["exact_optimum"], x - 0.12, x + 0.12, color=f"C{i}", lw=2, ls=":",
                  label=f"exact optimum, first click at {label}")
    pub = table.groupby("level", sort=False)[["published", "published_low", "published_high"]].first().reindex(levels)
    ax.errorbar(np.arange(len(levels)) + 0.42, pub["published"],
                yerr=[(pub["published"] - pub["published_low"]).fillna(0),
                      (pub["published_high"] - pub["published"]).fillna(0)],
                fmt="D", mfc="white", color="k", capsize=3, label="published BSSUCT (± as printed)")
    ax.set_xticks(range(len(levels)), levels)
    ax.set_xlim(-0.6, len(levels) - 0.3)
    ax.set_ylabel("win rate")
    ax.set_title("BSSUCT's first click: the corner (minelab's default) vs a best first cell", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    return fig


def bssuct_text(result: PaperResult) -> str:
    """Markdown commentary of `bssuct_first_click`, every number from its table, with the
    ledger's verdict on each published BSSUCT number (the best-cell opening is a reading
    it judges on all of them)."""
    t = result.table
    ledger = ledger_rows(PAPER, ITEM)
    lines = []
    for lv, part in t.groupby("level", sort=False):
        c, m = part.set_index("opening").loc["corner"], part.set_index("opening").loc["best"]
        exact_c = "" if pd.isna(c.exact_optimum) else f"; exact optimum {_p(c.exact_optimum, 2)}"
        exact_m = "" if pd.isna(m.exact_optimum) else f"; exact optimum {_p(m.exact_optimum, 2)}"
        lines.append(f"* **{lv}**: corner {_p(c.win_rate, 2)} ({100 * c.ci_low:.2f}-{100 * c.ci_high:.2f}, "
                     f"{int(c.games):,} games{exact_c}), best cell {m.cell} ({m.chosen_by}) {_p(m.win_rate, 2)} "
                     f"({100 * m.ci_low:.2f}-{100 * m.ci_high:.2f}, {int(m.games):,} games{exact_m}); best minus "
                     f"corner on the same boards {m['diff']:+.2f} points ({m.diff_low:+.2f} to {m.diff_high:+.2f}). "
                     f"Published BSSUCT {_p(c.published, 2)}.")
        verdict = judged(PAPER, ITEM, quantity("BSSUCT", lv), label="the ledger's line", lines=ledger)
        if verdict:
            lines[-1] += f" {verdict[0].upper()}{verdict[1:]}."
    return "\n".join(lines)


# ---------------------------------------------------------------------- Fig 1
# Fig 1 is the paper's picture of one MCTS simulation: selection down the stored tree,
# expansion by one new node, a Monte-Carlo playout below it, back-propagation of its
# reward. fig01_mcts_overview draws the same four phases from oh's own search (the kernels
# of minelab.agents.uct, driven one simulation at a time) on one position.
FIG1_LEVEL = "5x5x5"
FIG1_DEAL = 9  # the Game seed of the drawn position: its first guess has two candidates, (0, 3) and (3, 0), p = 0.2
FIG1_SIMULATIONS = 38  # before the marked one: with seed 0, the 39th goes three stored positions deep, stores a fourth
FIG1_COLOURS = {"selection": "tab:blue", "expansion": "tab:green", "simulation": "tab:orange",
                "backpropagation": "tab:red"}


def fig1_position(level: str = FIG1_LEVEL, deal: int = FIG1_DEAL):
    """The game oh searches in Fig 1: dealt by `Game(level, seed=deal)`, then played as oh
    plays between guesses (the corner opening, every certain move: csp's closure) up to
    its first guess. ValueError when that game ends without one."""
    from ..agents import make_agent
    from ..agents.base import cell_to_move
    from ..agents.csp import opening_or_certain
    from ..cells import COVERED, FLAGGED
    from ..engine import Game

    game = Game(level, seed=deal)
    lv = game.level
    agent = make_agent("oh")
    s = agent.state(lv.cells, lv.mines)
    cfg = agent.config(lv.rows, lv.cols)
    while not game.over:
        s.known[:] = game._gs.shown == FLAGGED
        k = opening_or_certain(game._gs, s, cfg.first, cfg.max_work)
        if k == 0:
            return game
        for kind, cell in s.moves[:k]:
            if not game.over and game._gs.shown[cell] == COVERED:  # a flood may have revealed it already
                game.apply(cell_to_move(int(kind), int(cell), lv))
    raise ValueError(f"the game dealt by seed {deal} on {level} ends without a guess: pick another deal")


def _unpack_view(key: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The view a table row's key packs (minelab.agents.rl.table.pack_view: 4 bits a cell,
    covered 0, number v as v + 1); flags read as covered, as the key stores them."""
    from ..agents.rl.table import CELLS_PER_WORD
    from ..cells import COVERED

    n = rows * cols
    codes = np.array([(int(key[i // CELLS_PER_WORD]) >> (4 * (i % CELLS_PER_WORD))) & 15 for i in range(n)])
    return np.where(codes == 0, COVERED, codes - 1).astype(np.int8).reshape(rows, cols)


def search_tree(game, simulations: int = FIG1_SIMULATIONS, seed: int = 0) -> dict:
    """Run oh's search (minelab.agents.uct: `clear_tree`, then `simulate` once a call, the
    very kernels of `tree_decide`) on `game`'s guess position for `simulations`
    simulations and one more, the marked one, and record the tree it builds.

    The agent is `make_agent("oh", seed=seed)`: its settings and its random stream drive
    the simulations, which draw their layouts from the view (never the game's mines).
    Before each call work.path_row is filled with -1, so the entries written are the
    stored positions of the simulation's path (path_cell: the decision taken at each); a
    position the table did not hold before the call is the simulation's one new node.

    Returns a dict: `table` (a row per node, edge and the marked playout: see
    fig01_mcts_overview), `simulations` (a row per simulation: path rows and cells, the
    new row or -1, the reward), `views` ({row: view}), `root_view`, `candidates` (the
    root's (row, col) decisions), `move` (the real move, Alg. 1's best mean) and
    `final_view` (the marked simulation's last view)."""
    from ..agents import make_agent
    from ..agents.csp import opening_or_certain
    from ..agents.rl.table import SM_ROWS
    from ..agents.uct import best_mean, candidates, clear_tree, simulate
    from ..cells import FLAGGED, WON
    from ..engine import ST_STATUS, board_text
    from ..paths import golden_digests
    from .. import provenance

    if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 1:
        raise ValueError(f"simulations must be a positive integer, got {simulations!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if game.over:
        raise ValueError("search_tree needs a game in progress; this one is over")
    lv = game.level
    gs = game._gs
    total = int(simulations) + 1
    agent = make_agent("oh", seed=int(seed), simulations=total)
    digest = golden_digests().get(agent.name)
    if digest is not None:  # the figure is made by oh's kernels: its stamp names oh's playthrough
        provenance.note([f"{agent.name}={digest}"])
    s = agent.state(lv.cells, lv.mines)
    s.known[:] = gs.shown == FLAGGED
    cfg = agent.config(lv.rows, lv.cols)
    if opening_or_certain(gs, s, cfg.first, cfg.max_work) != 0:
        raise ValueError("search_tree needs a position where oh guesses (no certain move, something revealed)")
    cand = np.zeros(lv.cells, np.int64)
    nc = candidates(gs.shown, s.ws.prob, s.ws.certain, s.known, cfg.candidates, cand)
    if nc < 2:
        raise ValueError(f"the position has {nc} candidate(s): oh searches only where there are two or more")
    root_cand = cand[:nc].copy()
    sim_s, table, work, _ = agent.search_state(lv.cells, lv.mines)  # _: the further-work options' scratch (all off)
    tb = table.arrays()
    clear_tree(tb)
    sims = []
    before = None
    for i in range(total):
        if i == total - 1:
            before = (tb.visits.copy(), tb.q.copy())
        rows0 = int(tb.meta[SM_ROWS])
        work.path_row[:] = -1
        simulate(gs, s, sim_s, tb, cfg, work, agent.rng)
        depth = int(np.argmin(work.path_row >= 0)) if (work.path_row < 0).any() else len(work.path_row)
        grew = int(tb.meta[SM_ROWS]) - rows0
        if grew not in (0, 1) or (grew and work.path_row[depth - 1] != rows0):
            raise RuntimeError("the search stored more than one position, or not at the end of its path")
        sims.append({"simulation": i + 1, "path_rows": work.path_row[:depth].tolist(),
                     "path_cells": work.path_cell[:depth].tolist(), "new_row": rows0 if grew else -1,
                     "reward": 1.0 if work.sim_counters[ST_STATUS] == WON else 0.0})
    final = work.sim_shown.reshape(lv.rows, lv.cols).copy()
    n_rows = int(tb.meta[SM_ROWS])
    root_row = int(sims[0]["path_rows"][0])
    move = int(best_mean(tb, root_row, root_cand, nc))

    def rc(cell):
        return divmod(int(cell), lv.cols)

    def text(view):
        return board_text(view).replace("\n", "/")

    def node_stats(visits, q, row):
        n = int(visits[row].sum())
        return n, (float((visits[row] * q[row]).sum() / n) if n else np.nan)

    views = {row: _unpack_view(tb.row_keys[row], lv.rows, lv.cols) for row in range(n_rows)}
    depth_of, parent_of, created = {}, {}, {}
    edges: dict[tuple[int, int, int], list[float]] = {}
    for sim in sims:
        rows_, cells_ = sim["path_rows"], sim["path_cells"]
        for t, row in enumerate(rows_):
            depth_of.setdefault(row, t)
            if t:
                parent_of.setdefault(row, (rows_[t - 1], cells_[t - 1]))
                edges.setdefault((rows_[t - 1], cells_[t - 1], row), []).append(sim["reward"])
        if sim["new_row"] >= 0:
            created[sim["new_row"]] = sim["simulation"]
    marked = sims[-1]
    m_rows, m_cells = marked["path_rows"], marked["path_cells"]
    new = marked["new_row"]
    m_edges = set(zip(m_rows[:-1], m_cells[:-1], m_rows[1:]))
    out = []
    for row in range(n_rows):
        n, q = node_stats(tb.visits, tb.q, row)
        on_path = row in m_rows
        n0, q0 = node_stats(*before, row) if on_path else (pd.NA, np.nan)
        out.append({"kind": "node", "row": row, "cell": "", "child": pd.NA, "depth": depth_of[row],
                    "parent": parent_of.get(row, (pd.NA,))[0], "visits": n, "q": q,
                    "decision_visits": pd.NA, "decision_q": np.nan, "created_by": created[row],
                    "phase": "expansion" if row == new else "selection" if on_path else "",
                    "visits_before": n0, "q_before": q0, "outcome": "", "view": text(views[row])})
    for (row, cell, child), rewards in sorted(edges.items()):
        on_path = (row, cell, child) in m_edges
        prior = rewards[:-1] if on_path else rewards  # the marked simulation is the last to take an edge
        out.append({"kind": "edge", "row": row, "cell": "{},{}".format(*rc(cell)), "child": child,
                    "depth": depth_of[row], "parent": pd.NA, "visits": len(rewards), "q": float(np.mean(rewards)),
                    "decision_visits": int(tb.visits[row, cell]), "decision_q": float(tb.q[row, cell]),
                    "created_by": pd.NA,
                    "phase": ("expansion" if child == new else "selection") if on_path else "",
                    "visits_before": len(prior) if on_path else pd.NA,
                    "q_before": (float(np.mean(prior)) if prior else np.nan) if on_path else np.nan,
                    "outcome": "", "view": ""})
    last, cell = m_rows[-1], m_cells[-1]
    out.append({"kind": "playout", "row": last, "cell": "{},{}".format(*rc(cell)), "child": pd.NA,
                "depth": depth_of[last], "parent": pd.NA, "visits": 1, "q": marked["reward"],
                "decision_visits": int(tb.visits[last, cell]), "decision_q": float(tb.q[last, cell]),
                "created_by": pd.NA, "phase": "simulation", "visits_before": pd.NA, "q_before": np.nan,
                "outcome": "win" if marked["reward"] == 1.0 else "loss", "view": text(final)})
    frame = pd.DataFrame(out)
    for col in ("child", "parent", "visits_before", "decision_visits", "created_by"):
        frame[col] = frame[col].astype("Int64")
    return {"table": frame, "simulations": pd.DataFrame(sims), "views": views,
            "root_view": gs.shown.reshape(lv.rows, lv.cols).copy(), "candidates": [rc(c) for c in root_cand],
            "move": rc(move), "final_view": final, "level": str(lv)}


def _tree_positions(table: pd.DataFrame) -> tuple[dict, dict]:
    """x and depth of each node of the search tree and of the marked playout's leaf ("leaf"):
    a node's first parent (the one that stored it) is its parent in the drawing, children
    left to right by decision cell, leaves one unit apart, a parent above its children's
    mean."""
    nodes = table[table["kind"] == "node"]
    playout = table[table["kind"] == "playout"].iloc[0]
    edges = table[table["kind"] == "edge"]
    cell_of = {(int(e.row), int(e.child)): e.cell for e in edges.itertuples()}
    children: dict = {}
    for r in nodes.itertuples():
        if not pd.isna(r.parent):
            children.setdefault(int(r.parent), []).append((cell_of[(int(r.parent), int(r.row))], int(r.row)))
    children.setdefault(int(playout.row), []).append((playout.cell, "leaf"))
    depth = {int(r.row): int(r.depth) for r in nodes.itertuples()}
    depth["leaf"] = int(playout.depth) + 1
    xs: dict = {}
    nxt = [0.0]

    def place(node):
        kids = [k for _, k in sorted(children.get(node, []), key=lambda t: (tuple(map(int, t[0].split(","))),
                                                                           str(t[1])))]
        if not kids:
            xs[node] = nxt[0]
            nxt[0] += 1.0
            return
        for k in kids:
            place(k)
        xs[node] = float(np.mean([xs[k] for k in kids]))

    root = int(nodes.loc[nodes["parent"].isna(), "row"].iloc[0])
    place(root)
    return xs, depth


def fig01_mcts_overview(level: str = FIG1_LEVEL, deal: int = FIG1_DEAL, simulations: int = FIG1_SIMULATIONS,
                        seed: int = 0) -> PaperResult:
    """Fig 1 (the four phases of one MCTS simulation) drawn from oh's real search: on the
    first guess of the game `fig1_position(level, deal)` (5x5 with 5 mines, two cells of
    least mine probability), `search_tree` runs oh's kernels for `simulations`
    simulations and one more, the marked one, with `seed` (the agent's stream).

    The tree: a node is a stored position (a view; positions reached by different paths
    are one node), drawn as its board with n (simulations through it) and Q (their mean
    reward, 1 a win, 0 a loss); an edge is a decision cell (row, col) from one position
    to the next stored one, as wide as the simulations that took it. The marked
    simulation's phases: **selection** (blue), the stored positions it went through;
    **expansion** (green), the one position it stored; **simulation** (orange, dashed),
    its playout below that position, nothing stored, ending at a win or a loss (its last
    view drawn); **back-propagation** (red), n and Q of every position on its path before
    and after. The table holds a row per node, edge and the playout: visits and q (for
    an edge: the simulations that took it to that child and their mean reward),
    decision_visits and decision_q (the table's n(s, d) and Q(s, d)), the phase mark, the
    values before the marked simulation, the playout's outcome and each view ('#'
    covered, '/' between rows). Figure only: the paper prints no number for it."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    from ..render import draw_board

    tree = search_tree(fig1_position(level, deal), simulations, seed)
    table = tree["table"]
    xs, depth = _tree_positions(table)
    nodes = table[table["kind"] == "node"].set_index("row")
    playout = table[table["kind"] == "playout"].iloc[0]
    leaves = max(xs.values()) + 1
    levels_ = max(depth.values()) + 1
    unit = 1.15
    fig = plt.figure(figsize=(2.6 + leaves * unit, 1.0 + levels_ * unit))
    side = fig.add_axes((0.01, 0.42, 2.3 / (2.6 + leaves * unit), 0.45))
    ax = fig.add_axes((2.5 / (2.6 + leaves * unit), 0.02, leaves * unit / (2.6 + leaves * unit), 0.9))
    root = tree["root_view"]
    draw_board(root, ax=side)
    for r, c in tree["candidates"]:
        side.add_patch(Rectangle((c + 0.06, r + 0.06), 0.88, 0.88, fill=False, ec="tab:purple", lw=2.2, zorder=6))
    side.text(tree["move"][1] + 0.5, tree["move"][0] + 0.5, "move", ha="center", va="center", fontsize=7,
              color="tab:purple", zorder=7)
    side.set_title(f"{tree['level']}, deal {deal}: the first guess\nframed: oh's candidates (least p(mine));\n"
                   f"its move after {simulations + 1} simulations: {tree['move']}", fontsize=7)
    ax.set_xlim(-0.6, leaves - 0.4)
    ax.set_ylim(-levels_ + 0.35, 0.6)
    ax.set_axis_off()
    box = 0.62
    total = int(nodes["visits"].max())

    def centre(node):
        return xs[node], -depth[node]

    for e in table[table["kind"].isin(["edge", "playout"])].itertuples():
        child = "leaf" if e.kind == "playout" else int(e.child)
        (x0, y0), (x1, y1) = centre(int(e.row)), centre(child)
        colour = FIG1_COLOURS.get(e.phase, "0.55") if e.phase else "0.55"
        ax.plot([x0, x1], [y0 - box / 2 - 0.14, y1 + box / 2 + 0.02], color=colour,
                lw=0.6 + 3.0 * e.visits / total if e.kind == "edge" else 1.6,
                ls="--" if e.kind == "playout" else "-", zorder=1)
        ax.text((x0 + x1) / 2, (y0 - box / 2 - 0.14 + y1 + box / 2) / 2, f"({e.cell})", fontsize=6.5,
                ha="center", va="center", color=colour if e.phase else "0.25",
                bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.9), zorder=3)
    for row, r in nodes.iterrows():
        x, y = centre(row)
        inset = ax.inset_axes((x - box / 2, y - box / 2, box, box), transform=ax.transData)
        draw_board(tree["views"][row], ax=inset)
        if r["phase"]:
            ax.add_patch(Rectangle((x - box / 2 - 0.04, y - box / 2 - 0.04), box + 0.08, box + 0.08, fill=False,
                                   ec=FIG1_COLOURS[r["phase"]], lw=2.2, zorder=2))
        label, colour = f"n={r['visits']} Q={r['q']:.2f}", "k"
        if r["phase"]:  # back-propagation: the marked simulation's n and Q, before -> after
            q0 = "–" if pd.isna(r["q_before"]) else f"{r['q_before']:.2f}"
            label = f"n {r['visits_before']}→{r['visits']}  Q {q0}→{r['q']:.2f}"
            colour = FIG1_COLOURS["backpropagation"]
        ax.text(x, y - box / 2 - 0.06, label, fontsize=6, ha="center", va="top", color=colour)
    x, y = centre("leaf")
    inset = ax.inset_axes((x - box / 2, y - box / 2, box, box), transform=ax.transData)
    draw_board(tree["final_view"], ax=inset)
    ax.add_patch(Rectangle((x - box / 2 - 0.04, y - box / 2 - 0.04), box + 0.08, box + 0.08, fill=False,
                           ec=FIG1_COLOURS["simulation"], lw=1.6, ls="--", zorder=2))
    ax.text(x, y - box / 2 - 0.06, f"playout: {playout['outcome']}\n(not stored)", fontsize=6, ha="center",
            va="top", color=FIG1_COLOURS["simulation"])
    handles = [Line2D([], [], color=FIG1_COLOURS["selection"], lw=2.2, label="selection: stored positions on the path"),
               Line2D([], [], color=FIG1_COLOURS["expansion"], lw=2.2, label="expansion: the one new position"),
               Line2D([], [], color=FIG1_COLOURS["simulation"], lw=1.6, ls="--",
                      label="simulation: playout below it (oh's heuristic)"),
               Line2D([], [], color=FIG1_COLOURS["backpropagation"], lw=0, marker="$n$",
                      label="back-propagation: n, Q before → after on its path")]
    side.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, -0.05), fontsize=6.5, frameon=False)
    stored = ("" if tree["simulations"]["new_row"].iloc[-1] >= 0
              else "; it stored no position: its game ended inside the stored tree")
    fig.suptitle(f"Buffet et al. Fig 1 from minelab oh's search: {simulations} simulations, then simulation "
                 f"{simulations + 1} marked (seed {seed}){stored}\nnode: a stored position (n simulations through "
                 f"it, Q their mean reward); edge: a decision (row, col), as wide as its simulations; one decision "
                 f"leads to several positions by the numbers it reveals", fontsize=9)
    result = PaperResult("fig01_mcts_overview", fig, table, [])
    result.simulations = tree["simulations"]
    return result


# ---------------------------------------------------------------------- Fig 2 (bottom)
FIG2_ITEM = "Fig 2"
FIG2_LEVEL = "5x5x15:opening"  # GnoMine's rule: no mine on or next to the first move
FIG2_FIRST_CLICKS = ("centre", "corner")
FIG2_AGENT = "best"  # exact endgame search: optimal play once at most 256 layouts remain


def fig2_quantity(first_click: str) -> str:
    return f"win rate, 5x5 with 15 mines, GnoMine rule, first move in the {first_click}"


def _fig2_exact(first_clicks) -> list:
    """The exact optimal win probability (minelab.exact) of each first click of Fig 2."""
    from .. import exact

    lv = Level.parse(FIG2_LEVEL)
    cells = {"centre": (lv.rows // 2, lv.cols // 2), "corner": (0, 0)}
    return [exact.first_click_values(FIG2_LEVEL, cells[f])[cells[f]] for f in first_clicks]


def fig02_gnomine_first_move(games: int = SIZES["quick"]["fig2_games"], seed: int = 0,
                             executor="processes") -> PaperResult:
    """Fig 2 (bottom): on 5x5 with 15 mines under GnoMine's rule (no mine on or next to
    the first move), the caption says a first move in the centre wins 100% (the three
    possible boards can all be solved) and any other first move less.

    `best` plays both openings on the same boards; after the first move at most a few
    hundred layouts remain, so its exact endgame search plays optimally from there."""
    games = check_games("games", games)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    frames = []
    for first in FIG2_FIRST_CLICKS:
        tasks = play_tasks([FIG2_AGENT], FIG2_LEVEL, games, int(seed),
                           agent_params={FIG2_AGENT: {"first_click": first}})
        frames.append(run_sweep(tasks, executor=executor, progress=False).assign(first_click=first))
    table = win_rates(pd.concat(frames, ignore_index=True), by=("first_click",))
    from .. import report

    pub = report.load_published(PAPER, claims=False)
    pub = pub[pub["item"] == FIG2_ITEM].set_index("quantity")["value"]
    table["published"] = [pub.get(fig2_quantity(f), np.nan) for f in table["first_click"]]
    table["exact"] = [str(v) for v in _fig2_exact(table["first_click"])]
    measured = [{"item": FIG2_ITEM, "quantity": fig2_quantity(r.first_click), "value": r.win_rate,
                 "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games),
                 "note": f"minelab {FIG2_AGENT}, first_click={r.first_click!r}, level {FIG2_LEVEL}",
                 "agents": FIG2_AGENT}
                for r in table.itertuples()]

    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    x = np.arange(len(table))
    ax.bar(x, table["win_rate"], color=["C2", "C0"], alpha=0.8, label=f"minelab {FIG2_AGENT} (95% Wilson)")
    ax.errorbar(x, table["win_rate"], yerr=[table["win_rate"] - table["ci_low"], table["ci_high"] - table["win_rate"]],
                fmt="none", color="k", capsize=4)
    has = table["published"].notna().to_numpy()
    ax.scatter(x[has], table.loc[has, "published"], marker="*", s=160, color="r", zorder=5,
               label="published (Fig 2 caption)")
    ax.set_xticks(x, [f"first move in the {f}" for f in table["first_click"]])
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("win rate")
    ax.set_title("Buffet et al. Fig 2 (bottom): 5x5, 15 mines, GnoMine rule", fontsize=10)
    ax.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    return PaperResult("fig02_gnomine_first_move", fig, table, measured)


# ---------------------------------------------------------------------- texts
# The notebook's commentary: every number below comes from the result's table (ours beside
# the published values); every verdict on a published number is the fidelity ledger's.
STANDARD = ("8x8x10", "9x9x10", "16x16x40", "16x30x99")  # the standard levels of Table 1


def _p(value, digits: int = 1) -> str:
    return "n/a" if pd.isna(value) else f"{100 * value:.{digits}f}%"


def _ci(r, digits: int = 1) -> str:
    return f"{_p(r.win_rate, digits)} ({100 * r.ci_low:.{digits}f}-{100 * r.ci_high:.{digits}f})"


def _gap(r) -> float:
    """minelab minus published, in percentage points."""
    return 100 * (r.win_rate - r.published)


def table1_text(result: PaperResult) -> str:
    """Markdown commentary of `table1_win_rates`: each column beside ours, with the
    ledger's verdict on every published number (the CSP-PGMS column has no minelab twin:
    minelab csp is set beside it)."""
    t = result.table
    ours = t[t["status"] == "measured"]
    if ours.empty:
        return "No column was measured (the agents are not registered), so there is nothing to compare yet."
    cell = {(r.level, r.column): r for r in ours.itertuples()}
    games = ours.loc[ours["level"] != EXPERT, "games"]
    expert = ours.loc[ours["level"] == EXPERT, "games"]
    size = f"{int(games.max()):,} games per format" if len(games) else ""
    if len(expert):
        size += f" ({int(expert.max()):,} on 16x30)"
    paper = SIZES["paper"]
    ledger = ledger_rows(PAPER, ITEM)
    lines = [f"**Paper vs minelab** at {size}; the paper averages {paper['games']:,} games per format "
             f"({paper['expert_games']:,} on 16x30). Each published number's verdict is the ledger's (it judges "
             "the largest profile measured).", ""]

    # minelab csp beside the published CSP-PGMS: two programs side by side, not a twin
    pub = t[t["column"] == "CSP-PGMS"].set_index("level")
    beside = {lv: cell[(lv, CSP)]._replace(published=pub.loc[lv, "published"]) for _, lv in FORMATS
              if (lv, CSP) in cell and lv in pub.index}
    lines += _pgms_lines(beside, ledger)
    lines += _hcsp_lines(cell, ledger)
    lines += _tree_lines(cell, ledger)
    lines += _special_board_lines(cell, beside, ours, ledger)
    return "\n".join(lines)


def _pgms_lines(beside: dict, ledger: pd.DataFrame) -> list[str]:
    """table1_text: the CSP-PGMS column (no minelab twin) beside minelab csp, the big
    boards, then the small ones. `beside`: {level: minelab csp's row, with the published
    CSP-PGMS value as `published`}; `ledger`: the ledger's lines of Table 1."""
    lines: list[str] = []
    csp = [beside[lv] for _, lv in FORMATS if lv in beside]
    big = [r for r in csp if r.level in STANDARD and not pd.isna(r.published)]
    small = [r for r in csp if r.level not in STANDARD and not pd.isna(r.published)]
    why = ledger_line(PAPER, ITEM, quantity("CSP-PGMS", (big or small)[0].level), ledger) if big or small else None
    if big:
        listing = "; ".join(f"{r.level}: published {_p(r.published, 0)}, `{r.agent}` {_ci(r)} "
                            f"(minelab minus published {_gap(r):+.1f} points)" for r in big)
        lines.append("* **CSP-PGMS column: no minelab twin.** The published CSP-PGMS is PGMS's own CSP, another "
                     "program, which does not compute exact probabilities. minelab's `csp` (exact probabilities, ties "
                     "at random) is measured beside it under its own name (\"minelab csp\"), not as its "
                     f"reproduction; exact probabilities matter most where guesses do, on the big boards. {listing}."
                     + (f" The ledger: {why['verdict']}." if why else ""))
    if small:
        listing = ", ".join(f"{r.level} {_gap(r):+.1f}" for r in small)
        higher = [r.level for r in small if r.published > r.win_rate]
        text = f"  On the {len(small)} small boards, minelab csp minus the published CSP-PGMS, in points: {listing}."
        if higher:
            text += (f" The published PGMS is the higher on {', '.join(higher)}: with few cells, the least probable "
                     "cell is not always the best guess (the paper's Fig 2), and PGMS guesses differently.")
        lines.append(text)
    return lines


def _hcsp_lines(cell: dict, ledger: pd.DataFrame) -> list[str]:
    """table1_text: the HCSP column with the ledger's verdicts, the standard levels, the
    small formats, and the tie-break's gain over csp."""
    lines: list[str] = []
    hcsp = [cell[(lv, "HCSP")] for _, lv in FORMATS
            if (lv, "HCSP") in cell and not pd.isna(cell[(lv, "HCSP")].published)]
    std = [r for r in hcsp if r.level in STANDARD]
    rest = [r for r in hcsp if r.level not in STANDARD]
    if std:
        mean_gap = float(np.mean([_gap(r) for r in std]))
        rows = ledger[ledger["quantity"].isin([quantity("HCSP", r.level) for r in std])]
        lines.append(f"* **HCSP column: ours is {abs(mean_gap):.1f} points {'below' if mean_gap < 0 else 'above'} the "
                     f"published HCSP on average on the standard levels**; the ledger on them: {tally(rows)}.")
        lines += ["  " + v for v in judged_lines(PAPER, ITEM, [quantity("HCSP", r.level) for r in std],
                                                 lines=ledger)]
    if rest:
        rows = ledger[ledger["quantity"].isin([quantity("HCSP", r.level) for r in rest])]
        lines.append(f"  On the small formats (the ledger: {tally(rows)}):")
        lines += ["  " + v for v in judged_lines(PAPER, ITEM, [quantity("HCSP", r.level) for r in rest],
                                                 lines=ledger)]
    gains = [(r.level, 100 * (r.win_rate - cell[(r.level, CSP)].win_rate)) for r in std if (r.level, CSP) in cell]
    if gains:
        best_gain = max(g for _, g in gains)
        lines.append("  The paper describes HCSP in one sentence (ties toward the frontier, from Legendre et al.); "
                     "our `hcsp` breaks exact ties by the distance to the revealed area. Its gain over our `csp` on "
                     f"the same boards is at most {best_gain:.1f} points on the standard levels "
                     f"({', '.join(f'{lv} {g:+.1f}' for lv, g in gains)}). The other readings of the tie rule are run "
                     "beside it in the next section (`hcsp_variants`).")
    return lines


def _tree_lines(cell: dict, ledger: pd.DataFrame) -> list[str]:
    """table1_text: the BSSUCT and OH columns, each published number with the ledger's verdict."""
    lines: list[str] = []
    for col, agent in (("BSSUCT", "uct"), ("OH", "oh")):
        rows = [cell[(lv, col)] for _, lv in FORMATS if (lv, col) in cell and not pd.isna(cell[(lv, col)].published)]
        if not rows:
            continue
        quantities = [quantity(col, r.level) for r in rows]
        judged_rows = ledger[ledger["quantity"].isin(quantities)]
        lines.append(f"* **{col} column** (`{agent}`, {SIMULATIONS:,} simulations a move, 100 on 16x16 and 16x30, "
                     f"{int(max(r.games for r in rows)):,} games a format at most); the ledger: {tally(judged_rows)}.")
        lines += ["  " + v for v in judged_lines(PAPER, ITEM, quantities, lines=ledger)]
    return lines


def _special_board_lines(cell: dict, beside: dict, ours: pd.DataFrame, ledger: pd.DataFrame) -> list[str]:
    """table1_text: a line (1x10x5), the densest board (5x5x15), the trivial board (1x3x1).
    `beside`: as for _pgms_lines (minelab csp with the published CSP-PGMS value)."""
    lines: list[str] = []
    if ("1x10x5", "HCSP") in cell and "1x10x5" in beside:
        h, c = cell[("1x10x5", "HCSP")], beside["1x10x5"]
        effect = "cost" if h.win_rate < c.win_rate else "gain"
        lines.append(f"* **1x10 with 5 mines** shows the tie-break's {effect} on a line: `hcsp` {_ci(h, 2)} "
                     f"vs `csp` {_ci(c, 2)}; published: HCSP {_p(h.published, 2)}, CSP-PGMS (another program) "
                     f"{_p(c.published, 2)}.")
    if ("5x5x15", "HCSP") in cell and "5x5x15" in beside:
        h, c = cell[("5x5x15", "HCSP")], beside["5x5x15"]
        said = (f"both ours win {_ci(h, 2)}" if h.wins == c.wins else
                f"`csp` wins {_ci(c, 2)}, `hcsp` {_ci(h, 2)}")
        verdict = ledger_line(PAPER, ITEM, quantity("HCSP", "5x5x15"), ledger)
        lines.append(f"* **5x5 with 15 mines**: {said}, beside the published {_p(c.published, 2)} (CSP-PGMS, "
                     f"another program) and {_p(h.published, 2)} (HCSP"
                     + (f"; the ledger: {verdict['verdict']}" if verdict else "") + ").")
    trivial = [r for r in ours.itertuples() if r.level == "1x3x1"]
    if trivial:
        all_won = all(r.wins == r.games for r in trivial)
        lines.append("* **1x3 with 1 mine** " + (
            f"is always won ({int(trivial[0].games):,} of {int(trivial[0].games):,} games by each agent): the corner "
            "click is safe and shows where the mine is." if all_won else
            "is not always won here: " + ", ".join(f"`{r.agent}` {int(r.wins)} of {int(r.games)}" for r in trivial)
            + "."))
    return lines


def fig02_text(result: PaperResult) -> str:
    """Markdown commentary of `fig02_gnomine_first_move`: each opening's win rate and exact
    optimum, with the ledger's verdicts on the caption's numbers."""
    t = result.table.set_index("first_click")
    lines = ["| first move | games | wins | win rate (95% Wilson) | exact optimum | published |",
             "|---|---:|---:|---|---|---|"]
    for first, r in t.iterrows():
        pub = "" if pd.isna(r["published"]) else f"{_p(r['published'], 0)} (caption)"
        exact = r.get("exact", "")
        exact = f"{exact} = {100 * float(Fraction(exact)):.2f}%" if exact else ""
        lines.append(f"| {first} | {int(r['games']):,} | {int(r['wins']):,} | {_p(r['win_rate'], 2)} "
                     f"({100 * r['ci_low']:.2f}-{100 * r['ci_high']:.2f}) | {exact} | {pub} |")
    text = "\n".join(lines)
    if "exact" in t.columns:
        text += ("\n\nThe exact optimum (`minelab.exact`: every layout the rule allows, optimal play after the "
                 "first click) answers the caption's claim without sampling: "
                 + ", ".join(f"the {f} {t.loc[f, 'exact']}" for f in t.index) + ".")
    head = []
    if "centre" in t.index:
        c = t.loc["centre"]
        head.append(f"The centre opening wins {int(c['wins']):,} of its {int(c['games']):,} games (the caption: "
                    "100%).")
        others = [(f, t.loc[f]) for f in t.index if f != "centre"]
        if others:
            worth = max(c["win_rate"] - o["win_rate"] for _, o in others)
            head[-1] += (" Other first moves: " + ", ".join(f"the {f} {_p(o['win_rate'], 1)}" for f, o in others)
                         + f"; the one-cell choice of the first move is worth {100 * worth:.0f} points of win rate "
                           "here.")
    verdicts = judged_lines(PAPER, FIG2_ITEM, [fig2_quantity(f) for f in t.index])
    if verdicts:
        head += ["", "The ledger on the caption's numbers:", "", *verdicts]
    return ("\n".join(head) + "\n\n" + text) if head else text


# ---------------------------------------------------------------------- exact optimal play
# Beyond the paper: on its small formats minelab computes the exact optimal win
# probability (minelab.exact, committed in data/exact/optimal_first_click.csv by
# `python -m minelab.exact --table`), which answers what the paper leaves open and
# puts every column of Table 1 against the optimum.
SMALL = ("1x3x1", "2x5x3", "4x4x4", "1x10x5", "3x7x10", "5x5x10", "5x5x15")
GAP_AGENTS = ("best", "hcsp", "csp", "uct", "oh")  # minelab's agents in the gap table, all opening in the corner
# Boards the exhaustive survey walks, per profile (a survey visits every reachable position).
SURVEY_LEVELS = {
    "smoke": ("2x3x1", "2x4x3"),
    "quick": ("2x3x1", "2x4x3", "3x3x3", "1x9x4", "1x10x5", "2x5x3", "3x4x3", "4x4x4"),
    "paper": ("2x3x1", "2x4x3", "3x3x3", "1x9x4", "1x10x5", "2x5x3", "3x4x3", "4x4x4", "2x6x3", "2x6x4", "3x4x4",
              "3x4x5", "3x5x4", "4x4x3", "4x4x5", "4x4x6", "4x5x3", "4x5x4", "5x5x3"),
}


def _float(value) -> float:
    """A Fraction (or None: out of the exact search's reach) as a float (NaN)."""
    return np.nan if value is None or pd.isna(value) else float(value)


def _text(value) -> str:
    return "" if value is None or pd.isna(value) else str(value)


def _exact_values(exact) -> dict[str, dict[tuple[int, int], "object"]]:
    """{level: {(row, col): Fraction}} for every first cell (symmetric classes expanded)."""
    from fractions import Fraction

    out: dict = {}
    for r in exact.itertuples():
        value = Fraction(int(r.numerator), int(r.denominator))
        cells = [tuple(int(v) for v in rc.split(",")) for rc in str(r.cells).split()] or [(r.row, r.col)]
        for cell in cells:
            out.setdefault(r.level, {})[cell] = value
    return out


def table_exact_first_click(exact=None) -> PaperResult:
    """The exact win probability of every first click (safe rule, then optimal play) on
    Table 1's small formats and bilir2023's 5x5x5:none: is the corner the best first
    click? One heat map per format, the best cells outlined."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    from .. import exact as solver

    exact = solver.load_table() if exact is None else exact
    values = _exact_values(exact)
    summary = solver.corner_vs_best(exact)
    summary = summary.assign(corner_rate=summary["corner"].map(_float), best_rate=summary["best"].map(_float),
                             corner=summary["corner"].map(_text), best=summary["best"].map(_text))
    levels = [lv for lv in values]
    fig, axes = plt.subplots(1, len(levels), figsize=(2.1 * len(levels), 2.6), squeeze=False)
    for ax, lv in zip(axes[0], levels):
        v = values[lv]
        shape = Level.parse(lv)
        rows, cols = shape.rows, shape.cols
        grid = np.array([[float(v[(r, c)]) if (r, c) in v else np.nan for c in range(cols)] for r in range(rows)])
        ax.imshow(grid, cmap="viridis", aspect="equal")  # a cell out of the exact search's reach stays blank
        top = max(v.values())
        for (r, c), x in v.items():
            mid = (np.nanmax(grid) + np.nanmin(grid)) / 2
            ax.text(c, r, f"{100 * float(x):.1f}", ha="center", va="center", fontsize=6 if cols > 5 else 7,
                    color="w" if float(x) < mid else "k")
            if x == top:
                ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="r", lw=1.5))
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(lv, fontsize=8)
    fig.suptitle("Exact win probability (%) by first click, then optimal play (red: the best cells)", fontsize=9)
    fig.tight_layout()
    return PaperResult("table_exact_first_click", fig, summary, [])


def fig02_top_equally_safe_cells(levels=SURVEY_LEVELS["quick"]) -> PaperResult:
    """Fig 2 (top) and the paper's open question, by exhaustive search: on each board,
    every reachable position, its least probable cells against its optimal moves.

    The table counts, per format, positions where no least probable cell is optimal
    (the paper: "we are not aware of situations where no move with minimum probability
    of mine is optimal") and positions whose least probable cells differ in value (Fig
    2 top: 2/3 vs 1/3). The figure draws the smallest example of each kind found, every
    covered cell with its exact mine probability p and win probability W."""
    import matplotlib.pyplot as plt

    from .. import exact
    from ..render import draw_board

    found = exact.surveys(list(levels))
    kinds = [k for k in ("least_differ", "no_optimal_least") if any(kk == k for _, kk in found.views)]
    fig, axes = plt.subplots(1, max(1, len(kinds)), figsize=(4.2 * max(1, len(kinds)), 3.4), squeeze=False)
    for ax, kind in zip(axes[0], kinds):
        level = next(lv for lv, kk in found.views if kk == kind)
        view = found.views[(level, kind)]
        cells = found.examples[(found.examples["level"] == level) & (found.examples["example"] == kind)]
        draw_board(view, ax=ax)
        for r in cells.itertuples():
            colour = "tab:green" if r.optimal else "tab:red" if r.least_probable else "0.3"
            ax.text(r.col + 0.5, r.row + 0.5, f"p={r.mine_probability}\nW={r.win_probability}", ha="center",
                    va="center", fontsize=6.5, color=colour, fontweight="bold" if r.least_probable else "normal")
        what = ("least probable cells of different value" if kind == "least_differ"
                else "no least probable cell is optimal")
        ax.set_title(f"{level}: {what}\n(bold: least probable; green: optimal)", fontsize=8)
    if not kinds:
        axes[0][0].text(0.5, 0.5, "no example on these boards", ha="center", va="center")
        axes[0][0].set_axis_off()
    fig.tight_layout()
    table = found.summary.drop(columns="seconds")  # a duration is not a result: `minelab bench` measures speed
    return PaperResult("fig02_top_equally_safe_cells", fig, table, [])


FIG2_GNOMINE_CASES = ((0, 0), (0, 1), (0, 2))  # the outer cell left safe: corner, beside it, mid-edge


def _gnomine_after_centre(safe: tuple[int, int]):
    """Fig 2 (bottom): 5x5x15 under GnoMine's rule after the centre click. The 3x3 around
    the centre is mine-free, so 15 of the 16 outer cells are mines; `safe` is the other."""
    from ..engine import Game
    from ..position import Position

    layout = np.ones((5, 5), dtype=np.uint8)
    layout[1:4, 1:4] = 0
    layout[safe] = 0
    game = Game.from_mines(layout)
    game.reveal(2, 2)
    return Position.from_game(game)


def _least_differ_position(levels):
    """Fig 2 (top): the first position of `levels`' exhaustive surveys whose least
    probable cells differ in exact value (None when none has one)."""
    from .. import exact
    from ..position import Position

    for level in levels:
        found = exact.survey(level)
        if (level, "least_differ") in found.views:
            return level, Position(found.views[(level, "least_differ")], Level.parse(level).mines)
    return None


def fig02_positions_analysed(levels=SURVEY_LEVELS["quick"]) -> PaperResult:
    """Fig 2's positions put to `minelab.analyse`: the three GnoMine 5x5x15 boards after
    the centre click (bottom) and the smallest position of `levels`' surveys whose least
    probable cells differ in value (top, the paper's own picture not being in its text).
    A row per position: its consistent layouts, least probable cells with their exact win
    probabilities (where the exact search reaches), its certainly safe cells, the optimum,
    `best`'s move with its exact value and reason. The
    analyses themselves are `result.analyses`, for the notebook to print."""
    import matplotlib.pyplot as plt

    from ..analysis import analyse
    from ..render import draw_board

    positions = [(f"Fig 2 bottom, safe outer cell {cell}", FIG2_LEVEL, _gnomine_after_centre(cell))
                 for cell in FIG2_GNOMINE_CASES]
    top = _least_differ_position(levels)
    if top is not None:
        positions.insert(0, ("Fig 2 top: least probable cells of different value", top[0], top[1]))
    analyses, rows = [], []
    for label, level, pos in positions:
        a = analyse(pos)
        analyses.append(a)
        values = {} if a.values is None else dict(zip(a.values["cell"], a.values["exact"]))
        p = a.probabilities
        least = [divmod(int(q), p.shape[1]) for q in np.flatnonzero(p.ravel() == np.nanmin(p))]
        optimum = max((Fraction(v) for v in values.values()), default=None)
        rows.append({"position": label, "level": level, "layouts": round(a.layouts),
                     "least_probable": " ".join(f"{r},{c}" for r, c in least),
                     "mine_probability": float(np.nanmin(p)),
                     "least_values": " ".join(values.get(cell, "") for cell in least),
                     "certain_safe": " ".join(f"{r},{c}" for r, c in a.safe),
                     "optimum": "" if optimum is None else str(optimum),
                     "best_move": "" if a.move is None else f"{a.move[0]},{a.move[1]}",
                     "best_value": values.get(a.move, ""),
                     "best_optimal": None if optimum is None else Fraction(values[a.move]) == optimum,
                     "best_reason": a.reason})
    fig, axes = plt.subplots(1, len(positions), figsize=(3.2 * len(positions), 3.6), squeeze=False)
    for ax, (label, level, pos), a in zip(axes[0], positions, analyses):
        draw_board(pos.view, ax=ax, highlight=None if a.move is None else [a.move])
        values = {} if a.values is None else dict(zip(a.values["cell"], a.values["exact"]))
        best_w = max(map(Fraction, values.values()), default=None)
        for r, c in zip(*np.nonzero(~np.isnan(a.probabilities))):
            w = values.get((int(r), int(c)))
            ax.text(c + 0.5, r + 0.5, f"p={a.probabilities[r, c]:.2g}" + ("" if w is None else f"\nW={w}"),
                    ha="center", va="center", fontsize=6,
                    color="tab:green" if (w is not None and Fraction(w) == best_w) or (r, c) in a.safe else "0.3")
        ax.set_title(f"{label}\n{level}; best plays {a.move}", fontsize=7)
    fig.suptitle("Fig 2's positions analysed (p: mine probability, W: exact win probability; green: optimal "
                 "or certainly safe; framed: best's move)", fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    result = PaperResult("fig02_positions_analysed", fig, pd.DataFrame(rows), [])
    result.analyses = analyses
    return result


def optimum_gaps(table1: PaperResult, exact=None, best_games: int = SIZES["quick"]["games"], seed: int = 0,
                 executor="processes") -> PaperResult:
    """On the small formats: the exact optimum (corner first click, and the best first
    cell), then minelab's agents (`best`, `hcsp`, `csp`, `uct`, `oh`; all open in the
    corner) and Buffet's published columns, each as a gap to the corner optimum in
    percentage points with its interval. A published value above the best-first-cell
    optimum cannot be right under the safe rule; above the corner optimum, not for a
    program that opens in the corner (OH does). `table1`: a table1_win_rates result (its
    measured columns are reused); `best` is played here on the same formats."""
    from scipy.stats import binomtest

    from .. import exact as solver

    best_games = check_games("best_games", best_games)
    exact = solver.load_table() if exact is None else exact
    opt = solver.corner_vs_best(exact).set_index("level")
    t1 = table1.table
    levels = [lv for lv in SMALL if lv in set(t1["level"])]
    best = win_rates(run_sweep([t for lv in levels for t in play_tasks(["best"], lv, best_games, seed)],
                               executor=executor, progress=False))
    ours = pd.concat([best, t1[t1["status"] == "measured"][["agent", "level", "games", "wins", "win_rate", "ci_low",
                                                              "ci_high"]]], ignore_index=True)
    rows = []
    for lv in levels:
        corner = _float(opt.loc[lv, "corner"]) if lv in opt.index else np.nan
        top = _float(opt.loc[lv, "best"]) if lv in opt.index else np.nan
        lower, upper = _corner_bounds(lv) if np.isnan(corner) else (corner, corner)
        base = {"level": lv, "optimum_corner": corner, "optimum_best": top, "corner_lower": lower,
                "corner_upper": upper}
        for agent in GAP_AGENTS:
            hit = ours[(ours["agent"] == agent) & (ours["level"] == lv)]
            if hit.empty:
                continue
            r = hit.iloc[0]
            above = binomtest(int(r.wins), int(r.games), corner, alternative="greater").pvalue if corner > 0 else 1.0
            note = (f"above the exact corner optimum (one-sided binomial p = {above:.1e}): impossible for a corner "
                    "opening, a bug" if above < 1e-3 else "")
            rows.append({**base, "who": f"minelab {agent}", "win_rate": r.win_rate, "ci_low": r.ci_low,
                         "ci_high": r.ci_high, "games": int(r.games), "note": note})
        for p in t1[(t1["level"] == lv) & t1["published"].notna()].itertuples():
            note = ""
            if p.published > top + 1e-12:
                note = "above the exact optimum of any first click: cannot be right under the safe rule"
            elif p.published > corner + 1e-12:
                note = ("above the exact corner optimum: cannot be right for OH, which opens in a corner"
                        if p.column == "OH" else "above the exact corner optimum: reachable only by opening elsewhere")
            if np.isnan(corner) and p.column == "OH" and p.published > upper:
                note = "above the proven upper bound of the corner's optimum: cannot be right for OH"
            bound = top if p.published > top + 1e-12 else corner
            if note and p.published_low <= bound:  # NaN (no ± printed) compares False
                note += " (as a point; its printed ± reaches the optimum, so sampling could explain it)"
            rows.append({**base, "who": f"published {p.column}", "win_rate": p.published,
                         "ci_low": p.published_low, "ci_high": p.published_high, "games": p.published_games,
                         "note": note})
    table = pd.DataFrame(rows)
    for col, src in (("gap", "win_rate"), ("gap_low", "ci_low"), ("gap_high", "ci_high")):
        table[col] = 100 * (table[src] - table["optimum_corner"])
    table["games"] = table["games"].astype("Int64")
    return PaperResult("optimum_gaps", _gap_figure(table), table, [])


def _corner_bounds(level: str) -> tuple[float, float]:
    """Proven (lower, upper) bounds of the corner's optimal value where the exact search
    is out of reach (data/exact/optimal_bounds.csv); NaN when none is recorded."""
    from .. import exact

    if not exact.BOUNDS_FILE.exists():
        return np.nan, np.nan
    b = pd.read_csv(exact.BOUNDS_FILE)
    b = b[(b["level"] == level) & (b["row"] == 0) & (b["col"] == 0)].set_index("bound")["win_rate"]
    return float(b.get("lower", np.nan)), float(b.get("upper", np.nan))


def _gap_figure(table: pd.DataFrame):
    """Gap to the exact corner optimum per format: ours filled (95% Wilson), published hollow."""
    import matplotlib.pyplot as plt

    whos = list(dict.fromkeys(table["who"]))
    levels = list(dict.fromkeys(table["level"]))
    fig, ax = plt.subplots(figsize=(10, 4.2))
    width = 0.8 / max(1, len(whos))
    for i, who in enumerate(whos):
        part = table[table["who"] == who]
        x = np.array([levels.index(lv) for lv in part["level"]]) - 0.4 + (i + 0.5) * width
        ours = who.startswith("minelab")
        lo = (part["gap"] - part["gap_low"]).fillna(0).clip(lower=0)
        hi = (part["gap_high"] - part["gap"]).fillna(0).clip(lower=0)
        ax.errorbar(x, part["gap"], yerr=[lo, hi], fmt="o" if ours else "D", ms=4, capsize=2,
                    mfc=None if ours else "white", color=f"C{i}", label=who)
    gap_best = table.groupby("level", sort=False)[["optimum_best", "optimum_corner"]].first()
    ax.scatter(range(len(levels)), 100 * (gap_best["optimum_best"] - gap_best["optimum_corner"]), marker="_", s=400,
               color="k", label="exact optimum, best first cell")
    ax.axhline(0, color="k", lw=1, label="exact optimum, corner first click")
    ax.set_xticks(range(len(levels)), levels)
    ax.set_ylabel("win rate minus the exact corner optimum\n(percentage points)")
    ax.set_title("Table 1's small formats against exact optimal play (safe rule)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=3, loc="lower left")
    fig.tight_layout()
    return fig


def exact_text(first: PaperResult, gaps: PaperResult, survey: PaperResult) -> str:
    """Markdown commentary of the exact sections: the corner question, the gaps to the
    optimum (and published values the optimum rules out), the survey's answer to the
    paper's open question. Every number comes from the three results."""
    lines = []
    f = first.table
    f = f[~f["level"].str.endswith(":none")]
    open_ = f[f["corner_is_best"].isna()]
    f = f[f["corner_is_best"].notna()]
    yes, no = f[f["corner_is_best"].astype(bool)], f[~f["corner_is_best"].astype(bool)]
    lines.append(f"* **Is the corner the best first click (safe rule)?** On {len(yes)} of {len(f)} formats it is one "
                 "of the best cells" + (f" ({', '.join(yes['level'])})" if len(yes) else "") + "; " +
                 ("; ".join(f"on {r.level} it is not: the best cells {r.best_cells} win {r.best} = "
                            f"{100 * r.best_rate:.3f}% against the corner's {r.corner} = {100 * r.corner_rate:.3f}%"
                            for r in no.itertuples()) if len(no) else "it is the best on every one") + "."
                 + "".join(f" On {r.level} not every first cell is within the exact search's reach"
                           + (f" (the corner: {r.corner} = {100 * r.corner_rate:.3f}%)" if r.corner else "")
                           + "; see data/exact/optimal_bounds.csv for what is proven." for r in open_.itertuples()))
    g = gaps.table
    ours = g[g["who"].str.startswith("minelab")]
    if len(ours):
        per = ours.groupby("who", sort=False)["gap"].mean()
        lines.append("* **Gap to the exact corner optimum**, mean over the small formats, in points: "
                     + ", ".join(f"{who.removeprefix('minelab ')} {v:+.2f}" for who, v in per.items())
                     + ". " + (f"{int((ours['note'] != '').sum())} of our values lie above the optimum beyond their "
                               "interval, which would be a bug." if (ours["note"] != "").any() else
                               "None of ours lies above the optimum beyond its interval."))
    for lv, part in g[g["optimum_corner"].isna() & g["corner_lower"].notna()].groupby("level", sort=False):
        r = part.iloc[0]
        pubs = part[part["who"].str.startswith("published")]
        lines.append(f"* **{lv}**: the exact search does not finish (data/exact/README.md); the corner's optimal value "
                     f"is proven to lie in [{100 * r.corner_lower:.2f}%, {100 * r.corner_upper:.2f}%] (the lower "
                     "bound: the exact value of a concrete strategy over every layout). Published: "
                     + ", ".join(f"{w.who.removeprefix('published ')} {100 * w.win_rate:.2f}%"
                                 for w in pubs.itertuples())
                     + "; ours: " + ", ".join(f"{w.who.removeprefix('minelab ')} {100 * w.win_rate:.2f}%"
                                              for w in part[part["who"].str.startswith("minelab")].itertuples()) + ".")
    flagged = g[g["who"].str.startswith("published") & (g["note"] != "")]
    if len(flagged):
        lines.append("* **Published values the exact optimum rules out or constrains**: "
                     + "; ".join(f"{r.who.removeprefix('published ')} on {r.level}: {100 * r.win_rate:.2f}% against "
                                 f"the optimum {100 * r.optimum_corner:.2f}% (corner) / {100 * r.optimum_best:.2f}% "
                                 f"(best first cell): {r.note}" for r in flagged.itertuples()) + ".")
    s = survey.table
    total = int(s["no_optimal_least"].sum())
    differ = s[s["least_differ"] > 0]
    lines.append(f"* **The paper's open question** (\"we are not aware of situations where no move with minimum "
                 f"probability of mine is optimal\"): every reachable position of {len(s)} boards "
                 f"({', '.join(s['level'])}; {int(s['positions'].sum()):,} positions up to symmetry, "
                 f"{int(s['guess_positions'].sum()):,} needing a guess) was searched. "
                 + ("No position of these boards lacks an optimal least probable cell." if total == 0 else
                    f"{total:,} positions have no optimal move among the least probable cells (per board: "
                    + ", ".join(f"{r.level} {int(r.no_optimal_least):,}" for r in s.itertuples()
                                if r.no_optimal_least) + "); the smallest is drawn above.")
                 + (f" Least probable cells of different value (Fig 2 top) appear on {len(differ)} of them, first on "
                    f"{differ['level'].iloc[0]} (drawn above)." if len(differ) else
                    " No position has least probable cells of different value on these boards."))
    return "\n".join(lines)
