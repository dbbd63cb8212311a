"""The `minelab` command: play, analyse, bench, reproduce, keep.

    minelab play AGENT LEVEL --games N --seed S [--json]
    minelab analyse FILE [--top N] [--seed S] [--json]     (FILE: a position, or - for stdin)
    minelab bench engine|agents|bandit|csp|rl|uct|samples|learned|viewer|deal [--json] [--save] [--seconds T]
                  [--train-games N]
    minelab bench reproduce [--profile P] [--save]
    minelab reproduce [--profile smoke|quick|paper] [--only NAME] [--scheduler ADDR]
    minelab keep [--min-seconds S] [--prune]
"""
from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
import time

from .profiles import PROFILES

BENCH_LEVELS = ("8x8x10", "9x9x10", "16x16x40", "16x30x99")
BENCH_AGENTS = ("random", "marginal", "oracle")


def _number(convert, ok, what: str):
    """An argparse type: `convert` the text, then require ok(value); errors say `what`."""
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value

    return parse


_positive_int = _number(int, lambda v: v >= 1, "a positive integer")
_seed = _number(int, lambda v: v >= 0, "a non-negative integer")
_positive_float = _number(float, lambda v: v > 0, "a positive number")  # also refuses nan


def _param(text: str) -> tuple[str, object]:
    """NAME=VALUE -> (name, value); VALUE as a Python literal (0.05, True, (2, 2)) or text."""
    name, eq, raw = text.partition("=")
    if not eq or not name.strip().isidentifier():
        raise argparse.ArgumentTypeError(f"must be NAME=VALUE with NAME a parameter name, got {text!r}")
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        value = raw.strip()
    return name.strip(), value


def build_parser() -> argparse.ArgumentParser:
    from .agents import list_agents

    parser = argparse.ArgumentParser(prog="minelab", description="Minesweeper agents research lab.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("play", help="play N games with an agent and print its win rate")
    p.add_argument("agent", help="registered agent name: " + ", ".join(list_agents()))
    p.add_argument("level", help="ROWSxCOLSxMINES[:rule] or a preset (beginner, beginner_9, intermediate, expert)")
    p.add_argument("--games", type=_positive_int, default=10_000, help="number of games (default 10000)")
    p.add_argument("--seed", type=_seed, default=0, help="root seed (default 0)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", type=_param,
                   help="an agent parameter, repeatable (e.g. --param epsilon=0.05 --param first_click=centre "
                        "--param 'first_click=(2, 2)'); VALUE is read as a Python literal when it is one, "
                        "else as text")
    p.add_argument("--no-flood", action="store_true", help="reveal one cell per click (no flood fill)")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    a = sub.add_parser("analyse", help="a position's exact probabilities, best's move and its reason",
                       description="Analyse a position written in the text format of minelab.position "
                                   "(JSMinesweeper's .mine: a line WIDTHxHEIGHTxMINES, then a line per row "
                                   "of H covered, F flag, 0-8 numbers).")
    a.add_argument("file", help="the position's file, or - to read it from standard input")
    a.add_argument("--top", type=_positive_int, default=5, help="the safest cells listed (default 5)")
    a.add_argument("--seed", type=_seed, default=0, help="the layout best's game is dealt from (default 0)")
    a.add_argument("--json", action="store_true", help="print one JSON object")

    b = sub.add_parser("bench", help="measure throughput (games/s on one core)")
    b.add_argument("what", choices=("engine", "agents", "bandit", "csp", "rl", "uct", "samples", "learned", "viewer",
                                    "deal", "reproduce"),
                   help="engine: oracle play per level (the floor under every agent); agents: each agent on 9x9x10; "
                        "bandit: greedy MAB training on 8x8x10 (first games, and after --train-games) "
                        "and the trained agent's test play on expert; csp: the exact-probability kernel per "
                        "position, then csp and hcsp on beginner (8x8x10) and expert, best on all four standard "
                        "levels; rl: the RL agents training on 5x5x5:none (Q-learning's random phase and after "
                        "--train-games), the Q "
                        "table's bytes, the Gymnasium environments' steps/s, and each RL agent's first training "
                        "games on 16x30x99; uct: simulations/s of the tree "
                        "searches oh and uct on 4x4x4, 8x8x10 and 16x30x99 (the paper's 10,000 simulations a "
                        "move, 100 on 16x30), then oh with each further-work option of buffet2012 on 8x8x10 and "
                        "16x30x99, each beside oh's figure; samples: gardea2015's training-data generator, labelled "
                        "samples/s (exactly solved positions) and whole-board positions/s; learned: play of the "
                        "learned models (gardea2015's, trained on the level first; the blog's) on 8x8x10 and "
                        "9x9x10; viewer: the kernel's side of a BoardViewer move (Agent step + board update, "
                        "probability overlay off and on) on 8x8x10 and 16x30x99, milliseconds a move (the page's "
                        "side: tests/test_browser.py); "
                        "deal: the no-guess rule's deal on the four standard levels, boards dealt per second and the "
                        "share of the boards tried that deduction wins; reproduce: `minelab reproduce --profile "
                        "PROFILE`, each notebook's time and peak memory, and whether the results and numba caches "
                        "were empty at the start (the README's table: from a fresh checkout, both empty)")
    b.add_argument("--train-games", type=_positive_int, default=None,
                   help="bandit / rl: training games before the trained-rate measurements "
                        "(default 100000 for bandit, 10000000 for rl)")
    b.add_argument("--seconds", type=_positive_float, default=2.0, help="time per measurement (default 2)")
    b.add_argument("--profile", choices=PROFILES, default="quick",
                   help="reproduce: the profile the notebooks run at (default quick)")
    b.add_argument("--json", action="store_true", help="print JSON rows (one per line)")
    b.add_argument("--save", action="store_true",
                   help="also write the rows, with the machine they were measured on, to data/bench/WHAT.csv of "
                        "the project directory (replacing that file: current figures only; `make docs` renders "
                        "them in docs/benchmarks.md)")

    from . import exact

    exact.add_arguments(sub.add_parser("optimal", help="the exact optimal win probability of a small level"))

    r = sub.add_parser("reproduce", help="execute the notebooks with papermill and rebuild figures/REPORT.md")
    r.add_argument("--profile", choices=PROFILES, default="quick")
    r.add_argument("--only", action="append", help="notebook stem to run (repeatable)")
    r.add_argument("--scheduler", default=None, help="dask scheduler address, e.g. tcp://host:8786")
    r.add_argument("--seed", type=_seed, default=0)

    k = sub.add_parser("keep", help="copy long tasks' results from the sweep's cache into data/kept, to commit")
    k.add_argument("--min-seconds", type=_number(float, lambda v: v >= 0, "a number >= 0"), default=600.0,
                   help="keep the results that took at least this long to compute (default 600)")
    k.add_argument("--prune", action="store_true",
                   help="first remove the kept results that today's code would not serve")
    return parser


def cmd_play(args) -> int:
    from . import make_agent, play, summarize

    params = dict(args.param)
    if len(params) != len(args.param):
        raise ValueError("--param: a parameter is given twice")
    agent = make_agent(args.agent, **params)
    df = play(agent, args.level, args.games, args.seed, flood=not args.no_flood)
    s = summarize(df)
    row = {"agent": args.agent, "params": agent.params(), "level": df.attrs["level"], "games": s["games"],
           "wins": s["wins"], "win_rate": s["win_rate"], "ci_low": s["ci_low"], "ci_high": s["ci_high"],
           "seconds": s["seconds"], "games_per_second": s["games_per_second"],
           "compile_seconds": s["compile_seconds"]}
    if args.json:
        print(json.dumps(row, default=str))
    else:
        compiled = f" (compiling first: {row['compile_seconds']:.1f} s)" if row["compile_seconds"] >= 0.05 else ""
        print(f"{agent!r} on {row['level']}: win rate {row['win_rate']:.4f} "
              f"(95% CI {row['ci_low']:.4f}-{row['ci_high']:.4f}, {row['games']} games) "
              f"at {row['games_per_second']:,.0f} games/s{compiled}")
    return 0


def cmd_analyse(args) -> int:
    from .analysis import analyse
    from .position import Position

    pos = Position.from_text(sys.stdin.read()) if args.file == "-" else Position.read(args.file)
    a = analyse(pos, top=args.top, seed=args.seed)
    if not args.json:
        print(a)
        return 0
    cell = lambda rc: list(rc)  # noqa: E731
    print(json.dumps({
        "position": pos.to_text(), "log_layouts": a.log_layouts, "exact": a.exact,
        "safe": [cell(c) for c in a.safe], "mines": [cell(c) for c in a.mines],
        "move": None if a.move is None else cell(a.move), "reason": a.reason,
        "probabilities": [[float(p) if p == p else None for p in row] for row in a.probabilities],  # NaN: revealed
        "candidates": [{**r, "cell": cell(r["cell"])} for r in a.candidates.to_dict("records")],
        "values": None if a.values is None else [{**r, "cell": cell(r["cell"])} for r in a.values.to_dict("records")],
    }))
    return 0


def measure(agent_name: str, level: str, seconds: float, start_games: int = 1000, params=None) -> dict:
    """games/s of one agent on one level, after a warm-up that triggers compilation (its
    time is reported apart, as compile_seconds: numba compiling, or loading its cache) and,
    for an agent trained before it plays, its training (memoised: not timed again)."""
    from . import make_agent, play

    params = dict(params or {})
    agent = make_agent(agent_name, **params)
    warm = play(agent, level, min(100, start_games), seed=0, progress=False)  # compile / load the cache
    n, elapsed = start_games, 0.0
    while True:
        start = time.perf_counter()
        play(make_agent(agent_name, **params), level, n, seed=1, progress=False, chunk=max(n, 1))
        elapsed = time.perf_counter() - start
        if elapsed >= seconds or n >= 10**8:
            break
        n = int(n * min(10.0, max(2.0, 1.2 * seconds / max(elapsed, 1e-3))))
    return {"bench": "", "agent": agent_name, "level": level, "games": n, "seconds": round(elapsed, 4),
            "games_per_second": n / elapsed, "compile_seconds": round(warm.attrs["compile_seconds"], 3)}


def _timed(fn, seconds: float, n: int = 1000):
    """Run fn(n) with growing n until one call takes `seconds`; (n, elapsed)."""
    while True:
        start = time.perf_counter()
        fn(n)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds or n >= 10**8:
            return n, elapsed
        n = int(n * min(10.0, max(2.0, 1.2 * seconds / max(elapsed, 1e-3))))


def bench_bandit(seconds: float, train_games: int) -> list[dict]:
    """Greedy MAB throughput, as the paper's runs see it: training on 8x8x10 (none rule,
    the authors' setting) at the start and after `train_games` games, when games are
    longer and the table large; then the trained agent's test play on expert (learning on)."""
    from . import make_agent, play

    train, test = "8x8x10:none", "16x30x99:none"
    play(make_agent("greedy-mab"), train, 50, seed=0, progress=False)  # compile / load the cache
    rows = []
    fresh = make_agent("greedy-mab")
    start = time.perf_counter()
    play(fresh, train, 5000, seed=1, progress=False)
    elapsed = time.perf_counter() - start
    rows.append({"what": "greedy training, first 5000 games", "level": train, "games": 5000, "seconds": elapsed})
    agent = make_agent("greedy-mab")
    start = time.perf_counter()
    play(agent, train, train_games, seed=2, progress=False)
    rows.append({"what": f"greedy training, games 1..{train_games}", "level": train, "games": train_games,
                 "seconds": time.perf_counter() - start})
    seed = iter(range(3, 10**6))
    n, elapsed = _timed(lambda k: play(agent, train, k, seed=next(seed), progress=False), seconds)
    rows.append({"what": f"greedy training after {train_games} games", "level": train, "games": n, "seconds": elapsed})
    n, elapsed = _timed(lambda k: play(agent.copy(), test, k, seed=next(seed), progress=False), seconds, n=20)
    rows.append({"what": f"test play on expert, agent trained {train_games} games", "level": test, "games": n,
                 "seconds": elapsed})
    for r in rows:
        r.update({"bench": "bandit", "agent": "greedy-mab", "seconds": round(r["seconds"], 4),
                  "games_per_second": r["games"] / r["seconds"], "actions_recorded": agent.actions_recorded})
    return rows


RL_LEVEL = "5x5x5:none"  # bilir2023's game
RL_EXPERT = "16x30x99"  # the leaderboard's expert level, where its learners train longest


def bench_rl(seconds: float, train_games: int) -> list[dict]:
    """The RL agents' training throughput on bilir2023's game (one core), the Q table's
    memory, the Gymnasium environments' steps/s, and each learner's first games on expert.
    Q-learning: its random phase (a fresh agent: the first 500,000 games explore at random),
    then after `train_games` games (epsilon-greedy, the table large); each other learner
    from a fresh agent."""
    from . import make_agent, play
    from .envs import bench_envs

    seed = iter(range(10, 10**6))
    rows = []
    for name in ("q-learning", "sarsa", "linear-q", "mcts"):
        play(make_agent(name), RL_LEVEL, 100, seed=0, progress=False)  # compile / load the cache
    # a fresh agent each call, at most 400,000 games: all of it inside the 500,000-game random phase
    n, elapsed = _timed(lambda k: play(make_agent("q-learning"), RL_LEVEL, min(k, 400_000), seed=next(seed),
                                       progress=False), seconds, n=10_000)
    n = min(n, 400_000)
    rows.append({"what": "q-learning training, random phase", "agent": "q-learning", "games": n, "seconds": elapsed})
    agent = make_agent("q-learning")
    start = time.perf_counter()
    play(agent, RL_LEVEL, train_games, seed=next(seed), progress=False)
    rows.append({"what": f"q-learning training, games 1..{train_games:,}", "agent": "q-learning",
                 "games": train_games, "seconds": time.perf_counter() - start})
    n, elapsed = _timed(lambda k: play(agent, RL_LEVEL, k, seed=next(seed), progress=False), seconds, n=10_000)
    rows.append({"what": f"q-learning training after {train_games:,} games", "agent": "q-learning", "games": n,
                 "seconds": elapsed, "states": agent.states, "table_bytes": agent.table.nbytes,
                 "bytes_per_state": agent.table.nbytes / max(1, agent.states)})
    frozen = agent.frozen()
    n, elapsed = _timed(lambda k: play(frozen, RL_LEVEL, k, seed=next(seed), progress=False), seconds, n=10_000)
    rows.append({"what": "q-learning greedy evaluation (frozen)", "agent": "q-learning", "games": n,
                 "seconds": elapsed})
    for name, params in (("sarsa", {}), ("linear-q", {}), ("mcts", {}), ("mcts", {"simulations": 10})):
        fresh = make_agent(name, **params)
        n, elapsed = _timed(lambda k: play(fresh, RL_LEVEL, k, seed=next(seed), progress=False), seconds, n=10_000)
        label = f"{name} training, first games" + (f" ({params})" if params else "")
        rows.append({"what": label, "agent": name, "games": n, "seconds": elapsed})
    # the leaderboard trains them on expert too, where a move costs more (linear Q's sums grow as n^2)
    for name in ("q-learning", "sarsa", "linear-q", "mcts"):
        fresh = make_agent(name)
        play(fresh, RL_EXPERT, 20, seed=0, progress=False)  # compile / load the cache
        n, elapsed = _timed(lambda k: play(fresh, RL_EXPERT, k, seed=next(seed), progress=False), seconds, n=1_000)
        table = getattr(fresh, "table", None)  # linear Q has weights of a fixed size instead
        room = {} if table is None else {"states": fresh.states, "table_bytes": table.nbytes,
                                          "bytes_per_state": table.nbytes / max(1, fresh.states)}
        rows.append({"what": f"{name} training on expert, first games", "agent": name, "level": RL_EXPERT,
                     "games": n, "seconds": elapsed, **room})
    for r in rows:
        r.update({"bench": "rl", "level": r.get("level", RL_LEVEL), "seconds": round(r["seconds"], 4),
                  "games_per_second": r["games"] / r["seconds"]})
    for r in bench_envs(seconds):
        rows.append({**r, "bench": "rl", "games_per_second": r.get("steps_per_second")})
    return rows


CSP_BENCH = (("csp", "8x8x10", 1000), ("csp", "16x30x99", 100), ("hcsp", "8x8x10", 1000),
             ("hcsp", "16x30x99", 100), ("best", "8x8x10", 200), ("best", "9x9x10", 200), ("best", "16x16x40", 100),
             ("best", "16x30x99", 20))


def game_positions(level: str, games: int, seed: int = 0):
    """The positions `csp` solves in `games` real games: (views int8[n], mines) for timing
    the probability kernel on what agents actually meet."""
    import numpy as np

    from . import Game, make_agent

    agent = make_agent("csp", seed=seed)
    views = []
    for g in range(games):
        game = Game(level, seed=np.random.SeedSequence([seed, g]))
        while not game.over:
            if (game._gs.shown >= 0).any():
                views.append(np.where(game._gs.shown == -2, -1, game._gs.shown).astype(np.int8))
            agent.act(game)
    return views, game.level.mines


def bench_probability(level: str, seconds: float) -> dict:
    """Mean time of one exact solve (the numba kernel, no Python overhead) over the
    positions of real csp games on `level`."""
    import numpy as np

    from .engine import _tables
    from .levels import Level
    from .probability import DEFAULT_MAX_WORK, new_workspace, solve_fields

    lv = Level.parse(level)
    views, mines = game_positions(level, 200 if lv.cells < 200 else 30)
    nbr, nbr_count = _tables(lv.rows, lv.cols)
    ws = tuple(new_workspace(lv.cells, mines))  # a plain tuple: numba's dispatcher types it in C
    known = np.zeros(lv.cells, np.uint8)
    solve_fields(ws, views[0], known, mines, nbr, nbr_count, DEFAULT_MAX_WORK)

    def run(reps):
        for _ in range(reps):
            for v in views:
                solve_fields(ws, v, known, mines, nbr, nbr_count, DEFAULT_MAX_WORK)

    reps, elapsed = _timed(run, seconds, n=1)
    solves = reps * len(views)
    return {"what": f"exact probabilities, one position ({len(views)} positions of real csp games)", "agent": "-",
            "level": level, "games": solves, "seconds": round(elapsed, 4), "games_per_second": solves / elapsed,
            "microseconds_per_position": 1e6 * elapsed / solves}


# best's options from D. Hill's steps and the larger endgame search (off by default), and
# their combinations, timed beside best's defaults on these levels: what turning one on
# costs in games/s. Each is named by its short name here and by its name in the strength
# study, whose parameters it plays (strength.JUDGED: every set the study's tables judge).
CSP_OPTIONS = {"isolated_edges": "isolated components of a fixed mine count played by the exact search "
                                 "(D. Hill's isolated edge)",
               "chain_fifty_fifty": "chains of 50/50s: a cell that is a mine only in one state of a chain "
                                    "guessed at once",
               "chain_join_cells 8": "the same, two chains joined through any number needing one mine "
                                     "(chain_join_cells 8)",
               "chain_shared_cell": "the same, and links through a cell three-cell numbers share "
                                    "(chain_shared_cell)",
               "sure_mines": "certain mines known at every guess",
               "all three": "all three of D. Hill's steps above",
               "endgame 1024 layouts": "endgame search over up to 1024 layouts",
               "all three and endgame 1024 layouts": "all three of D. Hill's steps and the endgame search over up "
                                                     "to 1024 layouts",
               "dead_by_numbers": "dead cells one step ahead also where a number fixes their mines (dead_by_numbers)",
               "safest_next": "the single safest next cell, if safer, revealed first (safest_next: D. Hill's "
                              "dominating tile)",
               "64 candidates, no off-frontier cut": "64 candidates and no off-frontier cut (max_candidates 64, "
                                                     "float_cut 1)",
               "combined": "chains joined through one-mine numbers, 64 candidates, no off-frontier cut",
               "combined, with all three and endgame 1024 layouts":
                   "the same, with D. Hill's three steps and the endgame search over up to 1024 layouts"}
# best's speed options: they change no move where the endgame search finishes without them
# (their gain in games is that of the settings they go with), timed the same way.
CSP_SPEED_OPTIONS = {"endgame_prune": {"endgame_prune": True},
                     "endgame 1024 layouts, pruned": {"endgame_layouts": 1024, "endgame_budget": 8_000_000,
                                                      "endgame_prune": True}}
CSP_OPTION_LEVELS = (("8x8x10", 200), ("16x30x99", 20))


def bench_csp(seconds: float):
    """The exact-probability kernel per position, the CSP agents' games/s, then best with
    each of CSP_OPTIONS and CSP_SPEED_OPTIONS on CSP_OPTION_LEVELS, each with its share of
    best's games/s on that level (`paired_share`: `relative`, with `relative_to` naming best)."""
    for level in ("8x8x10", "16x30x99"):
        yield {**bench_probability(level, seconds), "bench": "csp"}
    for agent, level, start in CSP_BENCH:
        yield {**measure(agent, level, seconds, start), "bench": "csp"}
    from .studies.strength import JUDGED

    plays = {**{option: JUDGED[name] for option, name in CSP_OPTIONS.items()}, **CSP_SPEED_OPTIONS}
    for level, start in CSP_OPTION_LEVELS:
        for option, params in plays.items():
            row, share = paired_share("best", level, seconds, start, params)
            yield {**row, "bench": "csp", "what": f"best with {option}, {level}", "option": option,
                   "relative": share, "relative_to": "best"}


SHARE_ROUNDS = 3  # an option's share of its agent's speed: the median of this many paired rounds


def paired_share(agent: str, level: str, seconds: float, start: int, params: dict,
                 rounds: int = SHARE_ROUNDS) -> tuple[dict, float]:
    """(row, share): `agent` with `params` timed in turn with `agent`'s defaults, `rounds`
    times, each measurement seconds / 2 long (at least 1 s): the row of the option's median
    round and the median of the rounds' ratios (option / defaults). Timing the two in turn
    keeps a drift of the machine's speed out of the share, which single measurements minutes
    apart do not (they move by 10-20% between sittings)."""
    each = max(1.0, seconds / 2)
    return share_in_turn(lambda: measure(agent, level, each, start), lambda: measure(agent, level, each, start, params),
                         "games_per_second", rounds)


def share_in_turn(time_base, time_option, figure: str, rounds: int = SHARE_ROUNDS) -> tuple[dict, float]:
    """(row, share): `time_base()` and `time_option()` (each a measurement's row) called in
    turn, `rounds` times: the option's row of its median round by `figure` and the median
    of the rounds' ratios of `figure` (option / base)."""
    runs, ratios = [], []
    for _ in range(rounds):
        base = time_base()
        row = time_option()
        runs.append(row)
        ratios.append(row[figure] / base[figure])
    runs.sort(key=lambda r: r[figure])
    return runs[len(runs) // 2], statistics.median(ratios)


UCT_BENCH = (("oh", "4x4x4"), ("uct", "4x4x4"), ("oh", "8x8x10"), ("uct", "8x8x10"), ("oh", "16x30x99"),
             ("uct", "16x30x99"))
UCT_OPTION_LEVELS = ("8x8x10", "16x30x99")  # each further-work option of oh, beside oh's row of the level


def _uct_row(agent: str, level: str, seconds: float, option: str | None = None, params: dict | None = None) -> dict:
    """One tree search's simulations/s on `level`, whole games at the paper's simulations per
    move (100 on 16x30x99); the warm-up game (compilation) is not counted."""
    from . import make_agent, play

    sims = 100 if level == "16x30x99" else 10_000
    params = {"seed": 0, "simulations": sims, **(params or {})}
    last = {}

    def run(n):
        last["df"] = play(make_agent(agent, **params), level, n, seed=1, progress=False, chunk=max(n, 1))

    warm = play(make_agent(agent, **params), level, 1, seed=0, progress=False)
    n, elapsed = _timed(run, seconds, n=4)
    done = int(last["df"]["simulations"].sum())
    what = f"{agent} on {level}, {sims:,} simulations a move" + (f", {option}" if option else "")
    return {"bench": "uct", "what": what, "agent": agent, "option": option or "", "level": level,
            "simulations_per_move": sims, "games": n, "simulations": done, "seconds": round(elapsed, 4),
            "simulations_per_second": done / elapsed, "games_per_second": n / elapsed,
            "compile_seconds": round(warm.attrs["compile_seconds"], 3)}


def bench_uct(seconds: float):
    """Simulations/s of the tree searches (one core), then of oh with each further-work option
    of buffet2012 on (its OPTIONS) on UCT_OPTION_LEVELS, each with its share of oh's
    simulations/s on that level: the median of SHARE_ROUNDS rounds timed in turn with oh's
    defaults, as `paired_share` times best's options (`relative`, `relative_to` oh)."""
    from .papers.buffet2012_further import OPTIONS

    base = {}
    for agent, level in UCT_BENCH:
        row = _uct_row(agent, level, seconds)
        if agent == "oh":
            base[level] = row["simulations_per_second"]
        share = row["simulations_per_second"] / base[level] if level in base else None
        yield {**row, "relative": share, "relative_to": "oh" if share is not None else None}
    each = max(1.0, seconds / 2)
    for level in UCT_OPTION_LEVELS:
        for option, params in OPTIONS.items():
            row, share = share_in_turn(lambda: _uct_row("oh", level, each),
                                       lambda: _uct_row("oh", level, each, option, params), "simulations_per_second")
            yield {**row, "relative": share, "relative_to": "oh"}


SAMPLES_BENCH = (("8x8x10", 1, "perimeter"), ("8x8x10", 2, "perimeter"), ("8x8x10", 1, "covered"),
                 ("16x16x40", 1, "perimeter"))
BOARDS_BENCH = ("4x4x3", "8x8x10")


def bench_samples(seconds: float):
    """gardea2015's §III-B generator (one core): labelled local samples/s (every position
    solved exactly), then whole-board positions/s (the regression's data); a warm-up call
    compiles first. games_per_second: the generator's games."""
    from .agents.gardea.samples import board_states, generate, negative_share

    seed = iter(range(1, 10**6))
    for level, radius, targets in SAMPLES_BENCH:
        generate(level, 100, radius, 0, targets=targets)  # compile / load the cache
        last = {}

        def run(n):
            last["data"] = generate(level, n, radius, next(seed), targets=targets)

        n, elapsed = _timed(run, seconds, n=10_000)
        games = int(last["data"].game[-1] + 1)
        yield {"bench": "samples", "what": f"labelled samples, radius {radius}, {targets} targets", "level": level,
               "samples": n, "games": games, "seconds": round(elapsed, 4), "samples_per_second": n / elapsed,
               "games_per_second": games / elapsed, "negative_share": negative_share(last["data"])}
    for level in BOARDS_BENCH:
        board_states(level, 100, 0)
        last = {}

        def run_boards(n):
            last["data"] = board_states(level, n, next(seed))

        n, elapsed = _timed(run_boards, seconds, n=1_000)
        games = int(last["data"].game[-1] + 1)
        yield {"bench": "samples", "what": "whole-board positions with exact probabilities", "level": level,
               "samples": n, "games": games, "seconds": round(elapsed, 4), "samples_per_second": n / elapsed,
               "games_per_second": games / elapsed}


LEARNED_LEVELS = ("8x8x10", "9x9x10")
# (label, agent, params): gardea2015's learners trained on the level they play (modest
# budgets: play speed, not strength, is measured), then the blog's learners and inference.
LEARNED_BENCH = (
    ("gardea-logreg, 20,000 samples", "gardea-logreg", {"train_size": 20_000}),
    ("gardea-svm, 20,000 samples", "gardea-svm", {"train_size": 20_000}),
    ("gardea-krr, 1,000 states", "gardea-krr", {"train_size": 1_000}),
    ("gardea-q, 20,000 games", "gardea-q", {"train_size": 20_000}),
    ("conditional", "conditional", {}),
    ("graphical", "graphical", {}),
    ("semi-deterministic", "semi-deterministic", {}),
    ("semi-deterministic, conditional fallback", "semi-deterministic", {"fallback": "conditional"}),
)


def bench_learned(seconds: float):
    """Play of the learned models on beginner boards (one core): gardea2015's trained on
    the level first (training not timed), the blog's learning as they play."""
    for level in LEARNED_LEVELS:
        for label, agent, params in LEARNED_BENCH:
            if agent.startswith("gardea-"):
                params = {**params, "train_level": level}
            row = measure(agent, level, seconds, start_games=200, params=params)
            yield {**row, "bench": "learned", "what": f"{label} on {level}"}


VIEWER_LEVELS = ("8x8x10", "16x30x99")


def bench_viewer(seconds: float):
    """The Python side of a viewer move: hcsp's `Agent step` and the board's update (the
    exact probabilities recomputed when the overlay is on), without a browser; games are
    dealt again (New game) until `seconds` of moves are timed. Warmed up first."""
    import numpy as np

    from . import make_agent
    from .viewer import BoardViewer

    for level in VIEWER_LEVELS:
        for overlay in (False, True):
            viewer = BoardViewer(level, agent=make_agent("hcsp", seed=0), seed=0, warm=False)
            viewer.play_to_end()  # compiles (or loads) the kernels: not timed
            viewer.new_game()
            viewer.toggle_probabilities(overlay)
            times, start = [], time.perf_counter()
            while time.perf_counter() - start < seconds or len(times) < 20:
                if viewer.game.over:
                    viewer.new_game()
                t0 = time.perf_counter()
                viewer.step()
                times.append(time.perf_counter() - t0)
            ms = 1000 * np.asarray(times)
            yield {"bench": "viewer", "what": f"hcsp Agent step, overlay {'on' if overlay else 'off'}",
                   "level": level, "moves": len(times), "milliseconds_per_move": round(float(np.median(ms)), 3),
                   "milliseconds_p90": round(float(np.percentile(ms, 90)), 3),
                   "seconds": round(float(ms.sum()) / 1000, 4)}


# (level, first click) of `minelab bench deal`: the zero start's first cells
# (studies.strength.OPENING_FIRST_CELLS)
DEAL_BENCH = (("8x8x10", (2, 2)), ("9x9x10", (2, 2)), ("16x16x40", (2, 2)), ("16x30x99", (3, 3)))


def bench_deal(seconds: float):
    """The no-guess rule's deal (minelab.noguess.deal_boards, one core): boards dealt per
    second from the first click of DEAL_BENCH, and the share of the boards tried (the
    opening rule's deal) that exact deduction wins; a warm-up deal compiles first."""
    from .noguess import deal_boards

    seed = iter(range(1, 10**6))
    for level, first in DEAL_BENCH:
        deal_boards(level, 2, first, seed=0)  # compile / load the cache
        last = {}

        def run(n):
            last["tried"] = deal_boards(level, n, first, seed=next(seed))[1]

        n, elapsed = _timed(run, seconds, n=10)
        tried = int(last["tried"].sum())
        yield {"bench": "deal", "what": f"no-guess deal, first click {first}: {n / tried:.1%} of boards kept",
               "level": f"{level}:no-guess", "boards": n, "boards_tried": tried, "acceptance": n / tried,
               "seconds": round(elapsed, 4), "boards_per_second": n / elapsed,
               "boards_tried_per_second": tried / elapsed}


def bench_reproduce(profile: str) -> list[dict]:
    """`minelab reproduce` at `profile`, one row per notebook (reproduce.run's record), each
    with the state of the caches when the run began: `results_cache` "empty" when the
    sweep's result cache held no result, `numba_cache` "empty" when this source version's
    numba cache held no kernel (so the times include computing every task and compiling)."""
    from pathlib import Path

    import numba

    from . import paths, reproduce

    def empty(folder: Path, pattern: str) -> str:
        return "warm" if folder.is_dir() and any(folder.rglob(pattern)) else "empty"

    kernels = Path(numba.config.CACHE_DIR) if numba.config.CACHE_DIR else Path(__file__).resolve().parent
    caches = {"results_cache": empty(paths.results_root(), "*.parquet"), "numba_cache": empty(kernels, "*.nbi")}
    rows: list[dict] = []
    reproduce.run(profile=profile, record=rows)
    return [{"bench": "reproduce", "what": r["notebook"], **r, **caches} for r in rows]


def cmd_bench(args) -> int:
    if args.what == "reproduce":
        rows = bench_reproduce(args.profile)
    elif args.what == "bandit":
        rows = bench_bandit(args.seconds, args.train_games or 100_000)
    elif args.what == "rl":
        rows = bench_rl(args.seconds, args.train_games or 10_000_000)
    elif args.what == "csp":
        rows = bench_csp(args.seconds)
    elif args.what == "uct":
        rows = bench_uct(args.seconds)
    elif args.what == "samples":
        rows = bench_samples(args.seconds)
    elif args.what == "learned":
        rows = bench_learned(args.seconds)
    elif args.what == "viewer":
        rows = bench_viewer(args.seconds)
    elif args.what == "deal":
        rows = bench_deal(args.seconds)
    else:
        jobs = [("oracle", level) for level in BENCH_LEVELS] if args.what == "engine" else \
            [(agent, "9x9x10") for agent in BENCH_AGENTS]
        rows = ({**measure(agent, level, args.seconds), "bench": args.what} for agent, level in jobs)
    saved = []
    for row in rows:  # printed as measured (a generator for engine / agents)
        saved.append(row)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            if "milliseconds_per_move" in row:
                print(f"{args.what:7s} {row['what'] + ', ' + row['level']:55s} "
                      f"{row['milliseconds_per_move']:>10.2f} ms a move, median "
                      f"(90% under {row['milliseconds_p90']:.2f} ms; {row['moves']} moves)", flush=True)
                continue
            if "largest_process_gib" in row:
                print(f"{args.what:7s} {row['what']:55s} {row['seconds']:>10,.1f} s, largest process "
                      f"{row['largest_process_gib']:.1f} GB, all {row['all_processes_gib']:.1f} GB", flush=True)
                continue
            if "boards_per_second" in row:
                print(f"{args.what:7s} {row['what'] + ', ' + row['level']:55s} {row['boards_per_second']:>14,.0f} "
                      f"boards/s ({row['boards']:,} boards of {row['boards_tried']:,} tried, "
                      f"{row['seconds']:.2f} s)", flush=True)
                continue
            if "microseconds_per_position" in row:
                print(f"{args.what:7s} {'exact probabilities':10s} {row['level']:10s} "
                      f"{row['microseconds_per_position']:>10.1f} us per position "
                      f"({row['games']} solves in {row['seconds']:.2f} s)", flush=True)
                continue
            label = f"{row['what']:55s}" if "what" in row else f"{row['agent']:10s} {row['level']:10s}"
            if "samples_per_second" in row:
                print(f"{args.what:7s} {row['what'] + ', ' + row['level']:55s} {row['samples_per_second']:>14,.0f} "
                      f"samples/s ({row['samples']:,} from {row['games']:,} games, {row['seconds']:.2f} s)", flush=True)
                continue
            if "simulations_per_second" in row:
                print(f"{args.what:7s} {row['what']:88s} {row['simulations_per_second']:>10,.0f} simulations/s "
                      f"({row['simulations']:,} in {row['games']} games, {row['seconds']:.2f} s)", flush=True)
                continue
            unit, count = ("steps", row["steps"]) if "steps" in row else ("games", row["games"])
            memory = (f"; table {row['states']:,} states, {row['table_bytes'] / 2**20:,.0f} MiB "
                      f"({row['bytes_per_state']:.0f} B a state)") if "table_bytes" in row else ""
            print(f"{args.what:7s} {label} {row['games_per_second']:>14,.0f} {unit}/s "
                  f"({count} {unit} in {row['seconds']:.2f} s){memory}", flush=True)
    if args.save:
        from .benchdata import save

        path = save(args.what, saved, seconds=None if args.what == "reproduce" else args.seconds)
        print(f"saved {len(saved)} rows to {path}", file=sys.stderr)
    return 0


def cmd_optimal(args) -> int:
    from .exact import run

    return run(args)


def cmd_reproduce(args) -> int:
    from .reproduce import run

    run(profile=args.profile, only=args.only, scheduler=args.scheduler, seed=args.seed)
    return 0


def cmd_keep(args) -> int:
    from . import paths, sweep

    if args.prune:
        for path in sweep.prune_kept():
            print(f"removed {path}")
    written = sweep.keep(args.min_seconds)
    for path in written:
        print(f"kept {path}")
    print(f"{len(written)} result(s) kept in {paths.kept_root()}")
    return 0


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = {"play": cmd_play, "analyse": cmd_analyse, "bench": cmd_bench, "reproduce": cmd_reproduce,
               "optimal": cmd_optimal, "keep": cmd_keep}[args.command]
    try:
        return handler(args)
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"minelab {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
