"""The leaderboard: every registered agent on the standard levels, beside the strongest
published results.

Levels 8x8x10, 9x9x10, 16x16x40 and 16x30x99, each under two first-click rules:
`safe` (the first click never loses; the package's default and every paper's rule) and
`opening` (the first click is a zero). One function, `leaderboard_win_rates`, returns a
`PaperResult`: a tidy table (agent, level, rule, games, win rate, Wilson 95% interval,
training, source), a figure, and the measured rows REPORT.md sets beside
`data/published/leaderboard.csv` (the strongest published solvers and each seed
paper's own best numbers on these levels, always labelled "published").
`no_guess_win_rates` is a third column, measured the same way: every agent on boards
that exact deduction alone wins from the first click (the `no-guess` rule), where a
perfect reasoner wins every game.

How each agent is measured:

* a plain agent (random, the CSP family, ...) plays `games` games per level and rule
  (`expert_games` on 16x30x99; `slow_expert_games` for the agents in SLOW_AGENTS), in
  chunks of `minelab.tasks.CHUNK` games. Chunk i of a level is dealt from the same seed for every agent
  (common random numbers: paired comparisons), and a bigger run reuses a smaller one's
  chunks from the result cache;
* a learner is trained first, then measured, through the shared `train_test` task
  (`minelab.tasks`: train on the level, then test a copy of the trained agent; as in
  the bandit paper's code the copy keeps learning while it is tested). A bandit agent
  makes its own first click (`first_move="agent"`: the authors' program instead opens
  a zero for the agent by reading the mines). The learners whose memory is a table of
  whole boards (TABLE_LEARNERS) train at most `table_train_games` games: they almost
  never meet a board twice, so their tables grow by a few states every game, on every
  standard level, and 10^6 games of mcts on expert outgrow a 24 GB machine;
* the oracle reads the hidden mines (a labelled cheat): it is measured and shown
  separately, as the ceiling, never ranked with the agents;
* an agent in SKIP is listed with its reason and not run.

Every agent registered when the function runs is included; nothing registered is left
out silently.
"""
from __future__ import annotations

import re

import pandas as pd

from .. import paths, report
from ..agents import list_agents, make_agent
from ..agents.bandit import BanditAgent
from ..agents.gardea import TrainedAgent
from ..engine import check_seed
from ..levels import Level
from ..provenance import function_token, note
from ..report import PaperResult
from ..stats import wilson
from ..sweep import run_sweep
from ..tasks import check_games, play_tasks, train_spec, win_rates

PAPER = "leaderboard"
NOTEBOOK = "leaderboard.ipynb"
LEVELS = ("8x8x10", "9x9x10", "16x16x40", "16x30x99")
EXPERT = "16x30x99"
RULES = ("safe", "opening")
NO_GUESS = "no-guess"  # boards exact deduction wins from the first click (minelab.noguess): its own column
ALL_RULES = RULES + (NO_GUESS,)
BANDIT_PARAMS = {"first_move": "agent"}  # the agent makes its own first click, under the level's rule
SKIP = {
    "sa-greedy": "state-action agent (lordeiro2021 Table II): its keys are whole boards of at most 16 cells, "
                 "so it cannot play these levels",
    "uct": "tree search at 10,000 simulations a move (seconds a game on 8x8, minutes on 16x30): measured in "
           "buffet2012's Table 1 at the paper's simulations and game counts instead",
    "oh": "tree search at 10,000 simulations a move (seconds a game on 8x8, minutes on 16x30): measured in "
          "buffet2012's Table 1 at the paper's simulations and game counts instead",
    "optimal": "exact solver: boards of at most 64 cells and 5 million layouts, smaller than every level here",
}
TRAINED_REASON = ("trained before it plays (minelab.agents.gardea): its strength is its training budget's, and the "
                  "whole-board models play only the board they learnt on; measured in gardea2015's figures instead")
# Agents slower than ~50 expert games/s: they play slow_expert_games on 16x30x99. None is
# (`minelab bench csp` measures the CSP family's expert games/s: docs/benchmarks.md).
SLOW_AGENTS: tuple[str, ...] = ()

# The learners whose memory is a table keyed by the whole board (minelab.agents.rl.table):
# a state is a whole view, so on these levels nearly every state of a game is new.
TABLE_LEARNERS = ("q-learning", "sarsa", "mcts")

# Run sizes per profile. paper: 10^5 games (2x10^4 on expert), as asked for the CSP family;
# learners train 10^6 games on the level (the bandit paper's training size) and are tested
# on 10^4 games (its test size); TABLE_LEARNERS train at most table_train_games: their
# tables grow with every game (`minelab bench rl`'s expert rows give the bytes a state),
# and 2x10^5 games keep each within about 4 GiB, so two sweep workers fit in 16 GB.
SIZES = {
    "smoke": {"games": 20, "expert_games": 10, "slow_expert_games": 4, "train_games": 200,
              "expert_train_games": 100, "table_train_games": 200, "test_games": 20, "expert_test_games": 10},
    "quick": {"games": 10_000, "expert_games": 2_000, "slow_expert_games": 200, "train_games": 20_000,
              "expert_train_games": 5_000, "table_train_games": 20_000, "test_games": 2_000,
              "expert_test_games": 500},
    "paper": {"games": 100_000, "expert_games": 20_000, "slow_expert_games": 2_000, "train_games": 1_000_000,
              "expert_train_games": 1_000_000, "table_train_games": 200_000, "test_games": 10_000,
              "expert_test_games": 10_000},
}
# Published rules: minelab's two, and "first-zero scan" (the bandit paper's program opens for
# its agent the first zero cell of a column-major scan: neither safe nor opening; shown apart).
PUBLISHED_ONLY_RULES = ("first-zero scan",)
_QUANTITY = re.compile(r"^(?P<program>.+) win rate, first click (?P<rule>safe|opening|first-zero scan)$")


def load_published() -> pd.DataFrame:
    """data/published/leaderboard.csv, with `program` and `rule` parsed from each quantity."""
    df = report.load_published(PAPER, claims=False)
    parts = df["quantity"].str.extract(_QUANTITY)
    if parts.isna().any().any():
        bad = df.loc[parts.isna().any(axis=1), "quantity"].tolist()
        raise ValueError(f"leaderboard.csv: quantities must read '<program> win rate, first click <rule>', got {bad}")
    return df.assign(program=parts["program"], rule=parts["rule"], level=df["item"])


# ---------------------------------------------------------------------- checks
def _names(name: str, values, allowed) -> list[str]:
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be a list of names, got {values!r}")
    values = list(values)
    if not values:
        raise ValueError(f"{name} is empty")
    for v in values:
        if v not in allowed:
            raise ValueError(f"{name}: {v!r} is not one of {', '.join(allowed)}")
    if len(set(values)) != len(values):
        raise ValueError(f"{name} repeats a value: {values!r}")
    return values


def _levels(levels) -> list[str]:
    if isinstance(levels, str) or not hasattr(levels, "__iter__"):
        raise ValueError(f"levels must be a list of level strings like '9x9x10', got {levels!r}")
    out = []
    for lv in levels:
        try:
            level = Level.parse(lv)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"levels: {exc}") from None
        if level.first_click != "safe":
            raise ValueError(f"levels: give the board only ({level.rows}x{level.cols}x{level.mines}); "
                             f"the rules come from `rules`, got {lv!r}")
        out.append(str(level))
    if not out:
        raise ValueError("levels is empty")
    return out


def level_string(level: str, rule: str) -> str:
    """'8x8x10' under `rule`: '8x8x10' (safe, the default) or '8x8x10:opening'."""
    return str(Level.parse(f"{level}:{rule}"))


# ---------------------------------------------------------------------- who plays how
def roster(agents=None, skip=None) -> pd.DataFrame:
    """Every agent (default: all registered) with how it is measured: 'plain', 'bandit'
    (trained, its own first click), 'learner' (trained), 'cheat' (the oracle: the
    ceiling) or 'skip' (with the reason)."""
    skip = SKIP if skip is None else dict(skip)
    names = list_agents() if agents is None else _names("agents", agents, list_agents())
    rows = []
    for name in names:
        agent = make_agent(name)
        if name in skip:
            how, reason = "skip", skip[name]
        elif isinstance(agent, TrainedAgent):
            how, reason = "skip", TRAINED_REASON
        elif agent.cheat:
            how, reason = "cheat", "reads the hidden mines during play (a labelled cheat): the ceiling, not ranked"
        elif isinstance(agent, BanditAgent):
            how, reason = "bandit", ""
        elif agent.learns:
            how, reason = "learner", ""
        else:
            how, reason = "plain", ""
        rows.append({"agent": name, "how": how, "reason": reason})
    return pd.DataFrame(rows, columns=["agent", "how", "reason"])


def _sizes(level: str, sizes: dict, slow: bool, agent: str | None = None) -> tuple[int, int, int]:
    """(games, train_games, test_games) for one level (train_games: `agent`'s)."""
    if level == EXPERT:
        games, train, test = (sizes["slow_expert_games"] if slow else sizes["expert_games"],
                              sizes["expert_train_games"], sizes["expert_test_games"])
    else:
        games, train, test = sizes["games"], sizes["train_games"], sizes["test_games"]
    if agent in TABLE_LEARNERS:
        train = min(train, sizes["table_train_games"])
    return games, train, test


# ---------------------------------------------------------------------- the leaderboard
# 15 parameters: eight run sizes as keyword defaults (one per kind of run, as every figure
# function has them), then the seed, the executor and the roster.
def leaderboard_win_rates(games: int = SIZES["quick"]["games"], expert_games: int = SIZES["quick"]["expert_games"],
                          slow_expert_games: int = SIZES["quick"]["slow_expert_games"],
                          train_games: int = SIZES["quick"]["train_games"],
                          expert_train_games: int = SIZES["quick"]["expert_train_games"],
                          table_train_games: int = SIZES["quick"]["table_train_games"],
                          test_games: int = SIZES["quick"]["test_games"],
                          expert_test_games: int = SIZES["quick"]["expert_test_games"],
                          seed: int = 0, executor="processes", agents=None, levels=LEVELS, rules=RULES,
                          slow=SLOW_AGENTS, skip=None) -> PaperResult:
    """Win rate (Wilson 95%) of every agent on every level and rule, beside the published
    numbers of data/published/leaderboard.csv. See the module docstring for how each agent
    is measured; `agents` (default: every registered agent) restricts the roster."""
    sizes = {k: check_games(k, v) for k, v in dict(
        games=games, expert_games=expert_games, slow_expert_games=slow_expert_games, train_games=train_games,
        expert_train_games=expert_train_games, table_train_games=table_train_games, test_games=test_games,
        expert_test_games=expert_test_games).items()}
    seed = check_seed(seed)
    levels = _levels(levels)
    rules = _names("rules", rules, ALL_RULES)
    who = roster(agents, skip)
    if isinstance(slow, str) or not hasattr(slow, "__iter__"):
        raise ValueError(f"slow must be a list of agent names, got {slow!r}")
    slow = set(slow)

    play_specs, learn_specs = [], {}  # learn_specs: (agent, level, rule) -> task
    for lv in levels:
        for rule in rules:
            ls = level_string(lv, rule)
            for is_slow in (False, True):
                names = [r.agent for r in who.itertuples()
                         if r.how in ("plain", "cheat") and (r.agent in slow) == is_slow]
                if names:
                    n, _, _ = _sizes(lv, sizes, is_slow)
                    play_specs += play_tasks(names, ls, n, seed)
            for r in who.itertuples():
                if r.how in ("bandit", "learner"):
                    _, n_train, n_test = _sizes(lv, sizes, False, r.agent)
                    params = BANDIT_PARAMS if r.how == "bandit" else {}
                    learn_specs[(r.agent, lv, rule)] = train_spec(r.agent, params, [(ls, n_train)], [(ls, n_test)],
                                                                  seed=seed)

    tasks = play_specs + list(learn_specs.values())
    df = run_sweep(tasks, executor=executor, progress=len(tasks) > 8) if tasks else pd.DataFrame()
    rows = []
    if play_specs:
        played = df[df["kind"] == "play"]
        for r in win_rates(played, ("agent", "level")).itertuples(index=False):
            level = Level.parse(r.level)
            rows.append({**r._asdict(), "level": f"{level.rows}x{level.cols}x{level.mines}",
                         "rule": level.first_click, "training": ""})
    for (agent, lv, rule), task in learn_specs.items():
        part = df[df["seed"] == task["seed"]]
        test = part[part["part"] == "test"]
        train_wins = int(part.loc[part["part"] == "train", "wins"].sum())
        n_train = task["schedule"][0][1]
        wins, n = int(test["won"].sum()), len(test)
        lo, hi = wilson(wins, n)
        extra = ", own first click" if task["agent_params"] == BANDIT_PARAMS else ""
        rows.append({"agent": agent, "level": lv, "rule": rule, "games": n, "wins": wins, "win_rate": wins / n,
                     "ci_low": lo, "ci_high": hi,
                     "training": f"trained {n_train:,} games on {level_string(lv, rule)} "
                                 f"(training win rate {train_wins / n_train:.3f}){extra}; tested on a copy "
                                 "that keeps learning"})
    measured = pd.DataFrame(rows, columns=["agent", "level", "rule", "games", "wins", "win_rate", "ci_low",
                                           "ci_high", "training"])
    how = dict(zip(who["agent"], who["how"]))
    reason = dict(zip(who["agent"], who["reason"]))
    measured["kind"] = ["cheat (ceiling)" if how[a] == "cheat" else "minelab" for a in measured["agent"]]
    measured["source"] = "minelab"
    measured["note"] = [reason[a] if how[a] == "cheat" else
                        ("slow agent: fewer games on expert" if a in slow and lv == EXPERT else "")
                        for a, lv in zip(measured["agent"], measured["level"])]
    skipped = pd.DataFrame([{"agent": r.agent, "level": lv, "rule": rule, "kind": "skipped", "source": "minelab",
                             "note": r.reason} for r in who.itertuples() if r.how == "skip"
                            for lv in levels for rule in rules])
    pub = load_published()
    beside = list(PUBLISHED_ONLY_RULES) if set(rules) & set(RULES) else []  # shown beside the standard rules
    pub = pub[pub["level"].isin(levels) & pub["rule"].isin(list(rules) + beside)]
    published = pd.DataFrame({"agent": pub["program"], "level": pub["level"], "rule": pub["rule"],
                              "games": pub["games"], "win_rate": pub["value"], "ci_low": pub["ci_low"],
                              "ci_high": pub["ci_high"], "kind": "published", "source": pub["source"],
                              "note": pub["note"]})
    table = pd.concat([t for t in (measured, skipped, published) if not t.empty], ignore_index=True)
    table = _order(table, levels, rules)
    cols = ["level", "rule", "agent", "kind", "games", "wins", "win_rate", "ci_low", "ci_high", "training",
            "source", "note"]
    table = table.reindex(columns=cols)
    table["games"] = table["games"].astype("Int64")
    table["wins"] = table["wins"].astype("Int64")
    table["training"] = table["training"].fillna("")

    fig = _figure(table, levels, rules)
    out = []
    for r in table[table["kind"] != "published"].dropna(subset=["win_rate"]).itertuples():
        out.append({"item": r.level, "quantity": f"{r.agent} win rate, first click {r.rule}", "value": r.win_rate,
                    "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games),
                    "note": "; ".join(x for x in (r.training, r.note) if x), "agents": r.agent})
    return PaperResult("leaderboard_win_rates", fig, table, out)


def no_guess_win_rates(seed: int = 0, executor="processes", agents=None, levels=LEVELS, **sizes) -> PaperResult:
    """The no-guess column: every agent on boards that exact deduction alone wins from the
    first click (`Level("...:no-guess")`), measured as `leaderboard_win_rates` measures
    the other rules (`sizes`: its run sizes; learners train on the same no-guess level).
    A perfect reasoner wins every game, so an agent's win rate here is how much of its
    play is deduction; no paper measured it, so no published row stands beside it."""
    result = leaderboard_win_rates(**sizes, seed=seed, executor=executor, agents=agents, levels=levels,
                                   rules=(NO_GUESS,))
    result.name = "no_guess_win_rates"
    note([function_token(no_guess_win_rates)])  # its stamp: this function's code beside leaderboard_win_rates'
    result.figure.suptitle("No-guess boards: every minelab agent (a perfect reasoner wins 100%)", fontsize=10)
    return result


def _order(table: pd.DataFrame, levels, rules) -> pd.DataFrame:
    kinds = {"minelab": 0, "published": 1, "cheat (ceiling)": 2, "skipped": 3}
    t = table.assign(_l=table["level"].map({lv: i for i, lv in enumerate(levels)}),
                     _r=table["rule"].map({r: i for i, r in enumerate(rules)}),
                     _k=table["kind"].map(kinds), _w=-table["win_rate"].fillna(-1))
    return t.sort_values(["_l", "_r", "_k", "_w"], kind="stable").drop(columns=["_l", "_r", "_k", "_w"]) \
        .reset_index(drop=True)


def _figure(table: pd.DataFrame, levels, rules):
    import matplotlib.pyplot as plt

    colors = {"safe": "C0", "opening": "C3", NO_GUESS: "C1", "first-zero scan": "C2"}
    n = len(levels)
    ncols = 2 if n > 1 else 1
    nrows = (n + ncols - 1) // ncols
    shown = table[table["kind"].isin(["minelab", "published"])]
    height = max(3.0, 0.32 * shown.groupby("level")["agent"].nunique().max() + 1.5) if not shown.empty else 3.0
    fig, axes = plt.subplots(nrows, ncols, figsize=(7 * ncols, height * nrows), squeeze=False)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    rules = list(rules) + [r for r in PUBLISHED_ONLY_RULES if r in set(shown["rule"])]
    offset = {r: (i - (len(rules) - 1) / 2) * 0.3 for i, r in enumerate(rules)}
    for ax, lv in zip(axes.ravel(), levels):
        part = shown[shown["level"] == lv]
        ours = list(dict.fromkeys(part.loc[part["kind"] == "minelab", "agent"]))
        theirs = list(dict.fromkeys(part.loc[part["kind"] == "published", "agent"]))
        entries = [("minelab", a) for a in ours] + [("published", a) for a in theirs]
        for y, (kind, name) in enumerate(entries):
            for rule in rules:
                r = part[(part["kind"] == kind) & (part["agent"] == name) & (part["rule"] == rule)]
                if r.empty:
                    continue
                r = r.iloc[0]
                lo = r.win_rate - r.ci_low if pd.notna(r.ci_low) else 0.0
                hi = r.ci_high - r.win_rate if pd.notna(r.ci_high) else 0.0
                face = colors[rule] if kind == "minelab" else "white"
                ax.errorbar(r.win_rate, y + offset[rule], xerr=[[max(lo, 0)], [max(hi, 0)]],
                            fmt="o" if kind == "minelab" else "D", ms=5, capsize=2, color=colors[rule],
                            mfc=face, label=f"{'minelab' if kind == 'minelab' else 'published'}, first click {rule}")
        ceiling = table[(table["level"] == lv) & (table["kind"] == "cheat (ceiling)")]
        for r in ceiling.itertuples():
            ax.axvline(r.win_rate, color="grey", ls="--", lw=1, label=f"{r.agent} (cheat): the ceiling")
        ax.set_yticks(range(len(entries)),
                      [name if kind == "minelab" else f"{name} (published)" for kind, name in entries], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel("win rate (95% Wilson interval; published: as printed)", fontsize=8)
        ax.set_title(lv, fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    handles = {}
    for ax in axes.ravel()[:n]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    if handles:
        fig.legend(handles.values(), handles.keys(), fontsize=8, loc="lower center", ncol=min(3, len(handles)),
                   bbox_to_anchor=(0.5, 0.0))
    fig.suptitle("Leaderboard: minelab agents (filled) beside published solvers (hollow, labelled published)",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """The leaderboard at a glance: one row per agent (minelab's, then the published
    programs, then the cheat), one column per level and rule: win rate in % with its
    95% interval (published: as printed). Game counts are in the tidy table."""
    kinds = ["minelab", "published", "cheat (ceiling)"]
    t = table[table["kind"].isin(kinds) & table["win_rate"].notna()].copy()

    def cell(r):
        text = f"{100 * r.win_rate:.1f}"
        if pd.notna(r.ci_low) and pd.notna(r.ci_high):
            text += f" ({100 * r.ci_low:.1f}-{100 * r.ci_high:.1f})"
        return text

    t["cell"] = [cell(r) for r in t.itertuples()]
    t["who"] = [a if k == "minelab" else f"{a} ({'published' if k == 'published' else 'cheat'})"
                for a, k in zip(t["agent"], t["kind"])]
    t["column"] = t["level"] + ", " + t["rule"]
    columns = list(dict.fromkeys(t["column"]))
    t["_k"] = t["kind"].map({k: i for i, k in enumerate(kinds)})
    rows = list(dict.fromkeys(t.sort_values("_k", kind="stable")["who"]))
    wide = t.pivot_table(index="who", columns="column", values="cell", aggfunc="first")
    return wide.reindex(index=rows, columns=columns).fillna("").rename_axis(index="agent", columns=None)


def compare() -> pd.DataFrame:
    """report.compare for the leaderboard: published beside measured, by (level, quantity)."""
    return report.compare(PAPER)


def training_sizes(profile: str) -> str:
    """One line saying how the learners are trained at `profile`."""
    s = SIZES[profile]
    return (f"learners train {s['train_games']:,} games on each level ({s['expert_train_games']:,} on {EXPERT}; "
            f"{', '.join(TABLE_LEARNERS)} at most {s['table_train_games']:,}) "
            f"and are tested on {s['test_games']:,} ({s['expert_test_games']:,})")


# ---------------------------------------------------------------------- the opening square
OPENING_CELL = (2, 2)  # the cell a zero start opens on instead of the corner (row, col, 0-based)


def check_opening_square(expert_games: int = SIZES["quick"]["expert_games"], seed: int = 0, executor="processes",
                         agent: str = "best", cell=OPENING_CELL) -> PaperResult:
    """`agent` on 16x30x99 under the opening rule (the first click is a zero), its first
    click in the corner (the papers' opening, as in the leaderboard) or on `cell`, on the
    same boards (chunk seeds as in `leaderboard_win_rates`, so the corner games are the
    leaderboard's own). A table only: first click, games, wins, win rate, Wilson 95%."""
    n = check_games("expert_games", expert_games)
    seed = check_seed(seed)
    cell = tuple(int(v) for v in cell)
    level = level_string(EXPERT, "opening")
    frames = []
    for first, params in (("corner", None), (str(cell), {agent: {"first_click": list(cell)}})):
        tasks = play_tasks([agent], level, n, seed, agent_params=params)
        frames.append(run_sweep(tasks, executor=executor, progress=False).assign(first_click=first))
    table = win_rates(pd.concat(frames, ignore_index=True), by=("agent", "first_click"))
    table.insert(1, "level", level)
    measured = [{"item": EXPERT, "quantity": f"{agent} win rate, first click opening, first move {r.first_click}",
                 "value": r.win_rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "games": int(r.games),
                 "note": "paired boards: the same deals for both first moves", "agents": agent}
                for r in table.itertuples() if r.first_click != "corner"]
    return PaperResult("check_opening_square", None, table, measured)


# ---------------------------------------------------------------------- texts
# The notebook's commentary: every number below comes from the result; every verdict on a
# published number is the fidelity ledger's (report.ledger).
CITATIONS = {
    "PSEQ-D256": "a variant of Tu et al.'s PSEQ, from the results table of the README of the public repository "
                 "b1f6c1c4/MineSweeperProb (2024), not from a paper",
    "PSEQ": "Tu, Li, Chen, Zu & Gu, *Exploring Efficient Strategies for Minesweeper*, AAAI-17 Workshop on What's Next "
            "for AI in Games (2017)",
    "Hill's solver": "D. N. Hill's JSMinesweeper solver, from the README and issue #38 of the public repository "
                     "DavidNHill/JSMinesweeper (2025), not from a paper",
    "HCSP": "HCSP of Legendre, Hollard, Buffet & Dutech (*MineSweeper: Where to Probe?*, INRIA research report "
            "RR-8041, 2012), as measured in Table 1 of Buffet, Lee, Lin & Teytaud, *Optimistic Heuristics for "
            "MineSweeper*, International Computer Symposium (ICS 2012)",
    "OH": "the Optimistic Heuristics of Buffet et al. (ICS 2012), Table 1",
    "CSP-PGMS": "the PGMS program's own CSP solver, as measured in Buffet et al.'s Table 1 (ICS 2012)",
    "Gardea et al.'s CSP": "the CSP solver of Gardea, Koontz & Silva, *Training a Minesweeper Solver*, Stanford CS 221 "
                  "project report (2015): \"approximately 80%\"",
    "Lordeiro et al.'s greedy MAB": "the best greedy agent of Lordeiro, Haddad & Cardoso, *Multi-Armed Bandits for "
                                    "Minesweeper*, preprint, CEFET-RJ (2021), trained on 8x8 with 15 mines; its "
                                    "program opens for it the first zero cell of a column-major scan (neither the "
                                    "safe nor the opening rule: shown under its own rule, first-zero scan)",
}


def snapshot(level: str = "9x9x10", rule: str = "safe", profile: str = "quick", top: int | None = None) -> pd.DataFrame:
    """The committed leaderboard (figures/leaderboard/leaderboard_win_rates[_paper].csv,
    written by the last `minelab reproduce`) on one level and rule, best first: agent,
    kind (minelab / published / cheat (ceiling)), games, win rate in % with its 95%
    interval, training. Nothing is played: it reads what is committed.

        >>> snapshot("8x8x10").columns.tolist()[:3]
        ['agent', 'kind', 'games']
    """
    level = Level.parse(level)
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}; got {rule!r}")
    suffix = {"quick": "", "paper": "_paper"}.get(profile)
    if suffix is None:
        raise ValueError(f"profile must be 'quick' or 'paper' (the committed leaderboards), got {profile!r}")
    path = paths.figures_root() / PAPER / f"leaderboard_win_rates{suffix}.csv"
    if not path.exists():
        raise ValueError(f"no committed leaderboard at {path}: run `minelab reproduce --only leaderboard`")
    table = pd.read_csv(path)
    name = f"{level.rows}x{level.cols}x{level.mines}"
    rows = table[(table["level"] == name) & (table["rule"] == rule) & (table["kind"] != "skipped")]
    if rows.empty:
        raise ValueError(f"level must be one of {', '.join(LEVELS)} (the leaderboard's levels), got {name!r}")
    rows = rows.sort_values("win_rate", ascending=False)
    out = pd.DataFrame({
        "agent": rows["agent"], "kind": rows["kind"], "games": rows["games"].astype("Int64"),
        "win rate % (95% CI)": [_pct_ci(r) for r in rows.itertuples()],
        "training": rows["training"].fillna(""),
    }).reset_index(drop=True)
    return out if top is None else out.head(int(top))


def _pct(value, digits: int = 1) -> str:
    return "n/a" if pd.isna(value) else f"{100 * value:.{digits}f}"


def _pct_ci(r, digits: int = 1, unit: str = "") -> str:
    text = _pct(r.win_rate, digits) + unit
    if pd.notna(r.ci_low) and pd.notna(r.ci_high):
        text += f" ({_pct(r.ci_low, digits)}-{_pct(r.ci_high, digits)})"
    return text


def _ledger_says(lines: pd.DataFrame, level: str, program: str, rule: str) -> str:
    """The fidelity ledger's verdict on one published number of the leaderboard (verbatim;
    "" when data/published/leaderboard.csv has no such number). `lines`: report.ledger(PAPER).
    A study imports no paper, so this reads the ledger itself, as minelab.papers.judged does."""
    hit = lines[(lines["item"] == level) & (lines["quantity"] == f"{program} win rate, first click {rule}")]
    return "" if hit.empty else str(hit["verdict"].iloc[0])


def published_text() -> str:
    """Markdown list of the published numbers the leaderboard sets beside ours (from
    data/published/leaderboard.csv), one line per program with its source."""
    pub = load_published()
    lines = []
    for program, part in pub.groupby("program", sort=False):
        cells = "; ".join(f"{r.level} first click {r.rule}: {_pct(r.value, 2)}%" for r in part.itertuples())
        lines.append(f"* **{program}** ({CITATIONS.get(program, 'see data/published/leaderboard.csv')}): {cells}.")
    return "\n".join(lines)


def _plain(table: pd.DataFrame) -> pd.DataFrame:
    """minelab's agents that play without training (no `training` entry)."""
    return table[(table["kind"] == "minelab") & (table["training"] == "")]


def _by_points(gain: pd.Series) -> str:
    lo, hi = float(gain.min()), float(gain.max())
    return f" (by {lo:.1f} points)" if round(lo, 1) == round(hi, 1) else f" (by {lo:.1f} to {hi:.1f} points)"


def reading_text(result: PaperResult, opening: PaperResult | None = None) -> str:
    """Markdown reading of `leaderboard_win_rates`: per level, our best plain agents beside
    the published programs (each with the ledger's verdict: another program, no minelab
    twin); why gardea-csp's order helps; what the opening rule adds (with
    `check_opening_square`'s result when given); the learners; the chance line and the
    ceiling."""
    t = result.table
    plain = _plain(t)
    pub = t[t["kind"] == "published"]
    levels = list(dict.fromkeys(t["level"]))
    if plain.empty:
        return "No plain agent was measured, so there is nothing to read yet."
    games = plain.loc[plain["level"] != EXPERT, "games"]
    expert = plain.loc[plain["level"] == EXPERT, "games"]
    size = f"{int(games.max()):,} games per level and rule" if len(games) else ""
    if len(expert):
        size += f" ({int(expert.max()):,} on 16x30)" if size else f"{int(expert.max()):,} games on 16x30"
    ledger = report.ledger(PAPER)
    lines = [f"**Reading the leaderboard** ({size} for the plain agents). Win rates are in %, with 95% Wilson "
             "intervals. The plain agents play the same boards, so their differences are paired; chunk i of a level "
             "is dealt from the same seed in every notebook, so the safe-rule boards are the buffet2012 notebook's "
             "wherever the two play the same chunks.", "", "**First click safe, beside the strongest published "
             "solvers** (other programs: the ledger sets `best`'s final evaluation beside some of them):", ""]
    for lv in levels:
        ours = plain[(plain["level"] == lv) & (plain["rule"] == "safe")].sort_values("win_rate", ascending=False)
        theirs = pub[(pub["level"] == lv) & (pub["rule"] == "safe")].sort_values("win_rate", ascending=False)
        if ours.empty:
            continue
        top = ours.iloc[0]
        text = (f"* {lv}: ours: `{top.agent}` {_pct_ci(top)}, "
                + ", ".join(f"`{r.agent}` {_pct(r.win_rate)}" for r in ours.iloc[1:4].itertuples()))
        if len(theirs):
            strongest = theirs.iloc[0]
            says = _ledger_says(ledger, lv, strongest.agent, "safe")
            text += ("; published: " + ", ".join(f"{r.agent} {_pct(r.win_rate, 2)}" for r in theirs.itertuples())
                     + f". The strongest published is {strongest.agent} ({_pct(strongest.win_rate, 2)})"
                     + (f"; the ledger: {says}." if says else "."))
        else:
            text += "."
        lines.append(text)

    lines += _gardea_lines(plain, levels)
    lines += _opening_lines(plain, pub, opening, ledger)
    lines += _learner_lines(t, pub, levels)
    lines += _chance_lines(t)
    return "\n".join(lines)


def _gardea_lines(plain: pd.DataFrame, levels) -> list[str]:
    """reading_text: gardea-csp's order among equally safe cells, against csp and hcsp."""
    lines: list[str] = []
    safe = plain[plain["rule"] == "safe"].pivot_table(index="level", columns="agent", values="win_rate")
    if {"gardea-csp", "csp", "hcsp"} <= set(safe.columns):
        gain = 100 * (safe["gardea-csp"] - safe[["csp", "hcsp"]].max(axis=1))
        ahead = [lv for lv in levels if lv in gain.index and gain[lv] > 0]
        lines += ["", f"**`gardea-csp` against our `csp` and `hcsp`** (first click safe, the same boards): ahead of "
                  f"both on {', '.join(ahead) if ahead else 'no level'}"
                  + (_by_points(gain[ahead]) if ahead else "") + "."]
        if ahead:
            lines += ["", "* It is the order among equally safe cells. When the unconstrained area is safest, "
                      "Gardea's solver probes a corner, then an edge cell.",
                      "* `csp` picks at random among the least probable cells; `hcsp` picks those nearest the "
                      "revealed area.",
                      "* `best` orders equally safe cells too (D. Hill's candidates: frontier cells first, then "
                      "those with fewer neighbours); its ablation table below measures that order."]
        behind = [lv for lv in levels if lv in gain.index and gain[lv] < 0]
        if EXPERT in behind:
            lines.append(f"* On 16x30 Gardea's solver falls behind ({_pct(safe.loc[EXPERT, 'gardea-csp'])} vs "
                         f"{_pct(safe.loc[EXPERT, ['csp', 'hcsp']].max())}). Its counts are not weighted by the ways "
                         "to place the other mines, and that weighting matters most on a large board.")
    return lines


def _opening_lines(plain: pd.DataFrame, pub: pd.DataFrame, opening: PaperResult | None,
                   ledger: pd.DataFrame) -> list[str]:
    """reading_text: what the opening rule (a zero first) adds, and the first cell on expert
    (the published programs beside it, with the ledger's verdicts)."""
    lines: list[str] = []
    both = plain.pivot_table(index=["agent", "level"], columns="rule", values="win_rate")
    if {"safe", "opening"} <= set(both.columns):
        solvers = both[both["safe"] >= 0.05]
        gain = 100 * (solvers["opening"] - solvers["safe"])
        if len(gain):
            verb = (f"adds {gain.min():.1f} to {gain.max():.1f} points" if gain.min() > 0 else
                    f"changes the win rate by {gain.min():+.1f} to {gain.max():+.1f} points")
            lines += ["", f"**The opening rule** (first click a zero) {verb} on every level for every plain agent "
                      "that wins at least 5% of its games.", ""]
        top = plain[(plain["level"] == EXPERT) & (plain["rule"] == "opening")].sort_values("win_rate",
                                                                                          ascending=False)
        theirs = pub[(pub["level"] == EXPERT) & (pub["rule"] == "opening")]
        theirs = theirs[theirs["win_rate"] > 0.3]  # the solvers, not the bandit agent
        if len(top) and len(theirs):
            b = top.iloc[0]
            lines.append(f"* On 16x30 with a zero start, `{b.agent}` gets {_pct_ci(b)}; published: "
                         + "; ".join(f"{r.agent} {_pct(r.win_rate, 2)}"
                                     + (f" (the ledger: {_ledger_says(ledger, EXPERT, r.agent, 'opening')})"
                                        if _ledger_says(ledger, EXPERT, r.agent, "opening") else "")
                                     for r in theirs.itertuples())
                         + ".")
            lines.append("* This is the first click. A zero in the corner guarantees only 4 revealed cells (itself "
                         "and its 3 neighbours), a zero inside the board 9.")
            if opening is not None:
                o = opening.table.set_index("first_click")
                other = [f for f in o.index if f != "corner"]
                if "corner" in o.index and other:
                    c, s = o.loc["corner"], o.loc[other[0]]
                    lines.append(f"* `{s.agent}` with `first_click={other[0]}` wins {_pct_ci(s, 2, '%')} against "
                                 f"{_pct_ci(c, 2, '%')} at the corner, on {int(s.games):,} paired expert games.")
            lines.append("* The table keeps the corner, the papers' opening.")
    return lines


def _learner_lines(t: pd.DataFrame, pub: pd.DataFrame, levels) -> list[str]:
    """reading_text: the bandit agents, trained on the level, beside the bandit paper's best."""
    lines: list[str] = []
    learners = t[(t["kind"] == "minelab") & t["training"].str.contains("own first click", regex=False)]
    if len(learners):
        agents = list(dict.fromkeys(learners["agent"]))
        trained = learners.assign(n=learners["training"].str.extract(r"trained ([\d,]+) games")[0]
                                  .str.replace(",", "").astype(float))
        n_level = trained.loc[trained["level"] != EXPERT, "n"].max()
        n_expert = trained.loc[trained["level"] == EXPERT, "n"].max()
        size = " and ".join(x for x in (f"{int(n_level):,} games" if pd.notna(n_level) else "",
                                        f"{int(n_expert):,} on 16x30" if pd.notna(n_expert) else "") if x)
        lines += ["", f"**The bandit agents** are trained {size} on the level itself and make their own first "
                  "click. Their win rates, safe / opening rule:", "",
                  "| level | " + " | ".join(agents) + " |", "|---|" + "---|" * len(agents)]

        def cell(lv, agent):
            out = []
            for rule in RULES:
                r = learners[(learners["level"] == lv) & (learners["agent"] == agent) & (learners["rule"] == rule)]
                if r.empty:
                    out.append("-")
                else:
                    r = r.iloc[0]
                    out.append(f"no win in {int(r.games):,}" if r.wins == 0 else _pct(r.win_rate))
            return " / ".join(out)

        lines += [f"| {lv} | " + " | ".join(cell(lv, a) for a in agents) + " |" for lv in levels]
        theirs = pub[pub["agent"] == "Lordeiro et al.'s greedy MAB"]
        if len(theirs):
            lines += ["", "The bandit paper's best greedy agent reached "
                      + " / ".join(_pct(v, 2) for v in theirs["win_rate"]) + " on "
                      + " / ".join(theirs["level"]) + ". It was trained 10^6 games on 8x8x15, with its program "
                      "opening for it the first zero cell of a column-major scan: far more training."]
        if {"greedy-mab", "ucb-mab"} <= set(agents):
            g = learners.loc[learners["agent"] == "greedy-mab", "win_rate"].max()
            u = learners.loc[learners["agent"] == "ucb-mab", "win_rate"].max()
            lines[-1] += (f" `ucb-mab` wins at most {_pct(u)}% here against `greedy-mab`'s {_pct(g)}% (the bandit "
                          "paper's Fig 7: UCB starts near zero and needs far more games).")
    return lines


def _chance_lines(t: pd.DataFrame) -> list[str]:
    """reading_text: the chance line (random, marginal) and the ceiling (the oracle)."""
    lines: list[str] = []
    chance = t[(t["kind"] == "minelab") & t["agent"].isin(["random", "marginal"])]
    if len(chance):
        best = chance.sort_values("win_rate", ascending=False).iloc[0]
        never = chance["win_rate"].max() < 0.01
        detail = (f"{int(chance['wins'].sum()):,} wins in {int(chance['games'].sum()):,} games over every level and "
                  "rule")
        if best.wins > 0:
            detail += (f"; at best `{best.agent}`: {int(best.wins):,} in {int(best.games):,} on {best.level}, first "
                       f"click {best.rule}")
        lines += ["", f"**`random` and `marginal`** {'essentially never win' if never else 'sometimes win'} on these "
                  f"boards ({detail})" + (". They are the chance line." if never else ".")]
    ceiling = t[t["kind"] == "cheat (ceiling)"]
    if len(ceiling):
        every = bool((ceiling["wins"] == ceiling["games"]).all())
        lines += ["", f"**The oracle** {'wins every game' if every else 'loses some games'} "
                  f"({int(ceiling['wins'].sum()):,} of {int(ceiling['games'].sum()):,}) because it reads the mines. It "
                  "is the ceiling, shown apart, not a competitor."]
    return lines
