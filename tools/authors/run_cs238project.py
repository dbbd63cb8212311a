#!/usr/bin/env python
"""Run cs238project's linear Q and MCTS (Bilir, Kong & Wittenbrink 2023) headless at its pinned commit.

An external reference, not part of minelab: minelab never imports this file and CI skips it.
From a checkout given with ``--checkout`` (at the pinned commit plus
tools/authors/patches/cs238project.patch, which restores the linear Q script's cold start), one
seeded run per seed:

* ``--agent linear-q`` executes the authors' own training script
  ``gym-minesweeper/minesweeper/q_linear_approx.py``;
* ``--agent mcts`` drives the authors' ``MCTS`` class (``gym-minesweeper/minesweeper/MCTS.py``;
  the repository has no script that trains or evaluates it): each training game calls its
  ``run_mcts_search`` with ``--simulations`` simulations on every state of a real game and plays
  the action it returns, with the paper's c = 100 (§4.4; the class's default is 1.0).

Then the trained agent plays greedily on fresh boards (the paper's evaluation, §5) and one row
is appended to ``--out`` (see tools/authors/README.md); for MCTS at 400,000 games, once both
1 and 10 simulations are in ``--out`` with the same seeds, also Fig A1's ratio row.

It needs a Python with numpy, scipy, six and gym 0.26.2 (the program imports ``gym``).

Example (Fig 1, linear Q after 10^6 training games, three seeds)::

    python tools/authors/run_cs238project.py --checkout /tmp/authors/cs238project \\
        --agent linear-q --games 1000000 --seeds 1,2,3 --out data/authors/bilir2023.csv

Example (Fig A1, MCTS with 10 simulations per state after 400,000 games, one seed)::

    python tools/authors/run_cs238project.py --checkout /tmp/authors/cs238project \\
        --agent mcts --simulations 10 --games 400000 --seeds 1 --out data/authors/bilir2023.csv
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shlex
import sys
import tempfile
import time
import types
from pathlib import Path

import harness  # beside this file (the drivers run as scripts)
from harness import read_rows, t_interval, wilson, write_rows

PROGRAM = "cs238project"
REPOSITORY = "https://github.com/benjaminhwittenbrink/cs238project"
PINNED = "f566e3ea2d7be5acf1241e4b8b8b36d5c7c80181"
PAPER = "bilir2023"
ITEM = "Fig 1"
SCRIPTS = {"linear-q": "q_linear_approx.py", "mcts": "MCTS.py"}
MCTS_C = 100.0  # §4.4: "exploration parameter c = 100" (the class's own default is 1.0)
FIG_A1_GAMES = 400_000  # Fig A1: "By the first 400,000 games"
EVAL_SEED_BASE = 1_000_000  # evaluation boards: Python random and numpy seeded with this + the run's seed
HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
PATCH = HERE / "patches" / "cs238project.patch"


def fail(message: str) -> None:
    sys.exit(f"run_cs238project: {message}")


def check_checkout(path: Path) -> None:
    """Refuse a missing checkout, another commit, or changes other than the committed patch."""
    harness.check_checkout(path, program=Path(__file__).stem, marker="gym-minesweeper/minesweeper/minesweeper.py",
                           repository=REPOSITORY, pinned=PINNED, patch=PATCH, root=REPO_ROOT)


def games_label(games: int) -> str:
    return f"{games // 1_000_000}M" if games % 1_000_000 == 0 else str(games)


def seeded_program(checkout: Path, seed: int):
    """Seed Python's random and numpy's global generator, import the program's `minesweeper`
    module from the checkout, and make every environment it builds seed its action space
    (gym seeds a space from the OS otherwise, and the scripts' exploration samples from it).
    Returns the module and that environment class (its `space_seed` can be reset)."""
    code_dir = checkout / "gym-minesweeper" / "minesweeper"
    random.seed(seed)
    import numpy as np
    np.random.seed(seed)
    if str(code_dir) not in sys.path:
        sys.path.insert(0, str(code_dir))
    try:
        import gym  # noqa: F401  (the program's dependency; checked here for a clear message)
    except ImportError:
        fail("the program imports gym: run this driver with a Python that has gym 0.26.2 "
             "(pip install gym==0.26.2 six numpy scipy), see tools/authors/README.md")
    import minesweeper as ms

    base = getattr(ms, "_minelab_base", ms.MinesweeperEnv)
    ms._minelab_base = base

    class SeededEnv(base):
        space_seed = seed

        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.action_space.seed(SeededEnv.space_seed)

    ms.MinesweeperEnv = SeededEnv
    return ms, SeededEnv


def evaluation_env(ms, SeededEnv, seed: int):
    """A fresh environment for the greedy evaluation, with Python random, numpy and its action
    space seeded with EVAL_SEED_BASE + seed (boards apart from the training run's)."""
    import numpy as np

    random.seed(EVAL_SEED_BASE + seed)
    np.random.seed(EVAL_SEED_BASE + seed)
    SeededEnv.space_seed = EVAL_SEED_BASE + seed
    return ms.MinesweeperEnv()


def run_mcts(checkout: Path, games: int, eval_games: int, seed: int, simulations: int) -> dict:
    """One seeded training run of the authors' MCTS class in this process, then a greedy evaluation.

    Training: `games` games on one environment; on every state of a game the class's
    run_mcts_search(state, simulations) runs its simulations (each on a deep copy of the real
    environment, hidden mines included, as the program does) and returns its UCB1 choice, which is
    played. Its Q and N tables are kept across games. Evaluation: `eval_games` fresh boards, the
    argmax of the stored Q over the state's actions (first among equals, the class's action order),
    a uniformly random covered cell in a state never stored (the paper's §5, as minelab's frozen
    MCTS plays)."""
    ms, SeededEnv = seeded_program(checkout, seed)
    import MCTS as program

    start = time.time()
    env = ms.MinesweeperEnv()
    agent = program.MCTS(env, exploration_param=MCTS_C)
    for _ in range(games):
        state, done = env.reset(), False
        while not done:
            action = agent.run_mcts_search(ms.board2str(state), num_simulations=simulations)
            state, _, done, _ = env.step(action)
    train_seconds = time.time() - start

    env = evaluation_env(ms, SeededEnv, seed)
    wins = unseen = 0
    for _ in range(eval_games):
        state, done, reward = env.reset(), False, 0
        while not done:
            q = agent.Q.get(ms.board2str(state))
            if q:
                action = max(q, key=q.get)
            else:
                unseen += 1
                action = random.choice(env.get_valid_actions(state))
            state, reward, done, _ = env.step(action)
        wins += reward > 0
    return {"eval_wins": int(wins), "eval_games": eval_games, "states": len(agent.Q), "unseen_moves": unseen,
            "train_seconds": train_seconds, "seconds": time.time() - start}


def run_one(checkout: Path, agent: str, games: int, eval_games: int, seed: int) -> dict:
    """One seeded training run of the authors' script in this process, then a greedy evaluation."""
    script = checkout / "gym-minesweeper" / "minesweeper" / SCRIPTS[agent]
    ms, SeededEnv = seeded_program(checkout, seed)
    import numpy as np

    # The script's progress bar, tqdm(range(NUM_ITERS)), is replaced by a counter of exactly
    # `games` training games, whatever the script's NUM_ITERS (10^7: stopping at it would train a
    # 3 x 10^7-game run for 10^7 games only, as the paper's runs did not).
    played = [0]

    def counter(iterable, *a, **k):
        for i in range(games):
            played[0] = i + 1
            yield i

    saved_tqdm = sys.modules.get("tqdm")
    sys.modules["tqdm"] = types.SimpleNamespace(tqdm=counter)
    g = {"__name__": "__main__", "__file__": str(script)}
    cwd = os.getcwd()
    start = time.time()
    # the script saves its weights every 100,000 games into linear_weights_55_warm/: a scratch folder
    with tempfile.TemporaryDirectory(prefix="cs238project-") as scratch:
        os.mkdir(os.path.join(scratch, "linear_weights_55_warm"))
        try:
            os.chdir(scratch)
            with contextlib.redirect_stdout(sys.stderr):
                exec(compile(script.read_text(), str(script), "exec"), g)
        finally:
            os.chdir(cwd)
            if saved_tqdm is None:
                del sys.modules["tqdm"]
            else:
                sys.modules["tqdm"] = saved_tqdm
    train_seconds = time.time() - start
    if played[0] != games:
        fail(f"the script trained {played[0]} games, not {games}")
    last_wins = list(g["wins"])  # the script's own record: games since its last 100,000-game checkpoint

    # Greedy evaluation on fresh boards: the script's weights and features, the argmax over closed
    # cells (the script's greedy choice with epsilon 0), a win is a game ending with a positive reward.
    env = evaluation_env(ms, SeededEnv, seed)
    W, B, features = g["W"], g["B"], g["convert_state_to_features"]
    wins = 0
    for _ in range(eval_games):
        state = env.reset()
        done = False
        reward = 0
        while not done:
            Q = (W.dot(features(state)) + B).reshape(ms.BOARD_SIZE, ms.BOARD_SIZE)
            Q[state != ms.CLOSED] = -np.inf
            action = np.unravel_index(Q.argmax(), Q.shape)
            state, reward, done, _ = env.step(action)
        wins += reward > 0
    return {"eval_wins": int(wins), "eval_games": eval_games, "train_last_wins": int(sum(last_wins)),
            "train_last_games": len(last_wins), "train_seconds": train_seconds,
            "seconds": time.time() - start}










def describe(agent: str, games: int, simulations: int) -> tuple[str, str]:
    """(item, quantity) of a run, those of the published row it stands beside."""
    if agent == "linear-q":
        return ITEM, f"linear Q win rate after {games_label(games)} games"
    per = f"{simulations} simulation{'s' if simulations != 1 else ''} per state"
    if games == FIG_A1_GAMES:
        return "Fig A1", f"MCTS, {per}: win rate after 400,000 games"
    if simulations != 1:
        fail("Fig 1's MCTS runs 1 simulation per state (§5); other counts are Fig A1's, at 400,000 games")
    return ITEM, f"MCTS win rate after {games_label(games)} games"


def run_note(agent: str, args, results: list[dict], rates: list[float], ci: str) -> str:
    """The row's note: what was run, per-run figures, and what the driver changed."""
    runs = len(results)
    common = (f"mean over {runs} run(s); per run: {';'.join(f'{x:.4f}' for x in rates)}. {ci} "
              f"(games: the evaluation games per run, as the published row counts them) ")
    if agent == "linear-q":
        train = ";".join(f"{r['train_last_wins'] / max(r['train_last_games'], 1):.4f}" for r in results)
        return (f"greedy win rate on {args.eval_games} fresh 5x5/5 boards after {args.games} training games of the "
                f"authors' q_linear_approx.py (alpha 0.01, gamma 0.9, epsilon 0.1 from the first game, cold start), "
                + common + f"The script's own training win rate (epsilon-greedy) over its last "
                f"{results[0]['train_last_games']} games: {train}. "
                f"Changes: cold start restored (patch); Python random, numpy and the gym action space seeded with the "
                f"seed; the script's tqdm loop made to run exactly {args.games} games (its NUM_ITERS is 10^7); the "
                f"greedy evaluation (argmax of the script's Q over closed cells, the paper's §5 protocol, as the "
                f"script's qtable.py eval) added by the driver, its boards seeded with {EVAL_SEED_BASE} + seed.")
    states = ";".join(f"{r['states']:,}" for r in results)
    unseen = ";".join(f"{r['unseen_moves']:,}" for r in results)
    return (f"greedy win rate on {args.eval_games} fresh 5x5/5 boards after {args.games} training games of the "
            f"authors' MCTS class (MCTS.py: UCB1 with c = {MCTS_C:g}, gamma 0.9, {args.simulations} simulation(s) per "
            f"state of every training game, each on a deep copy of the real environment, so its simulations see the "
            f"hidden mines), " + common + f"States stored per run: {states}; evaluation moves made in a state never "
            f"stored (a random covered cell): {unseen}. Changes: none to the program; the driver seeds Python random, "
            f"numpy and the gym action space with the seed, sets c = {MCTS_C:g} (the paper's §4.4; the class's default "
            f"is 1.0), plays each training game by the action run_mcts_search returns (the repository has no training "
            f"script for it), and adds the greedy evaluation (argmax of the stored Q, a random covered cell in a state "
            f"never stored: §5), its boards seeded with {EVAL_SEED_BASE} + seed.")


def ratio_row(rows: list[dict], seeds_text: str, command: str) -> dict | None:
    """Fig A1's ratio row (10 vs 1 simulations per state at 400,000 games) when both rows are in
    `rows` with these seeds: the ratio of the two means, its interval from the ends of the two
    intervals (the 10-simulation low over the 1-simulation high, and the reverse), as minelab's
    own Fig A1 row combines them."""
    def find(sims):
        q = describe("mcts", FIG_A1_GAMES, sims)[1]
        return next((r for r in rows if (r["quantity"], r["seeds"], r["commit"]) == (q, seeds_text, PINNED)), None)

    ten, one = find(10), find(1)
    if ten is None or one is None or float(one["value"]) <= 0 or float(one["ci_low"]) <= 0:
        return None
    value = float(ten["value"]) / float(one["value"])
    lo, hi = float(ten["ci_low"]) / float(one["ci_high"]), float(ten["ci_high"]) / float(one["ci_low"])
    return {"paper": PAPER, "item": "Fig A1",
            "quantity": "ratio of MCTS win rates, 10 vs 1 simulations per state, after 400,000 games",
            "value": f"{value:.6f}", "ci_low": f"{lo:.6f}", "ci_high": f"{hi:.6f}", "games": "", "runs": ten["runs"],
            "program": PROGRAM, "commit": PINNED, "command": command, "seeds": seeds_text,
            "note": "the 10-simulation row over the 1-simulation row of this file (same seeds, 400,000 training games "
                    "each); the interval combines the two intervals' ends, as minelab's own Fig A1 ratio does"}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, required=True,
                        help=f"work tree of {REPOSITORY} at commit {PINNED} plus the committed patch")
    parser.add_argument("--agent", choices=sorted(SCRIPTS), default="linear-q",
                        help="linear-q: gym-minesweeper/minesweeper/q_linear_approx.py; mcts: its MCTS class")
    parser.add_argument("--simulations", type=int, default=1,
                        help="mcts only: simulations per state (Fig 1: 1; Fig A1: 1 and 10)")
    parser.add_argument("--board", default="5,5,5",
                        help="the program's board, fixed in its minesweeper.py (only 5,5,5 is accepted)")
    parser.add_argument("--games", type=int, required=True, help="training games per run")
    parser.add_argument("--eval-games", type=int, default=10_000, help="greedy evaluation games per run")
    parser.add_argument("--seeds", required=True, help="comma-separated seeds, one independent run each")
    parser.add_argument("--out", type=Path, required=True, help="CSV to append rows to")
    parser.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "minelab-authors",
                        help="per-run results, so an interrupted command resumes at the next seed")
    args = parser.parse_args(argv)
    raw_argv = sys.argv[1:] if argv is None else argv
    if args.board != "5,5,5":
        fail("the program's board is fixed at 5x5 with 5 mines (minesweeper.py BOARD_SIZE, NUM_MINES)")
    if args.games < 1 or args.eval_games < 1:
        fail(f"--games and --eval-games must be positive, got {args.games} and {args.eval_games}")
    if args.simulations < 1 or (args.agent != "mcts" and args.simulations != 1):
        fail(f"--simulations must be a positive count, and is for --agent mcts only (got {args.simulations})")

    checkout = args.checkout.resolve()
    check_checkout(checkout)
    seeds = [int(s) for s in args.seeds.split(",")]
    seeds_text = ";".join(str(s) for s in seeds)
    item, quantity = describe(args.agent, args.games, args.simulations)
    out = args.out
    command = shlex.join(["python", os.path.relpath(Path(__file__).resolve(), REPO_ROOT), *raw_argv])
    if any((r["quantity"], r["seeds"], r["commit"]) == (quantity, seeds_text, PINNED) for r in read_rows(out)):
        print(f"run_cs238project: row {quantity!r}, seeds {seeds_text} already in {out}; skipped", file=sys.stderr)
        return

    results = []
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    sims = f"_{args.simulations}sims" if args.agent == "mcts" else ""
    for seed in seeds:
        name = f"cs238project_{PINNED[:12]}_{args.agent}{sims}_{args.games}_{args.eval_games}_{seed}.json"
        key = args.cache_dir / name
        if key.is_file():
            result = json.loads(key.read_text())
        else:
            print(f"run_cs238project: {args.agent}{sims}, {args.games} games, seed {seed}", file=sys.stderr)
            if args.agent == "mcts":
                result = run_mcts(checkout, args.games, args.eval_games, seed, args.simulations)
            else:
                result = run_one(checkout, args.agent, args.games, args.eval_games, seed)
            key.write_text(json.dumps(result))
        print(f"run_cs238project: seed {seed}: greedy win rate {result['eval_wins'] / result['eval_games']:.4f} "
              f"({result['seconds']:.0f} s)", file=sys.stderr)
        results.append(result)

    runs = len(results)
    rates = [r["eval_wins"] / r["eval_games"] for r in results]
    mean = sum(rates) / runs
    if runs > 1:
        lo, hi = t_interval(rates)
        ci = "95% t-interval over the runs."
    else:
        lo, hi = wilson(results[0]["eval_wins"], results[0]["eval_games"])
        ci = "Wilson 95% interval over the independent evaluation games of the one run."
    row = {
        "paper": PAPER, "item": item, "quantity": quantity, "value": f"{mean:.6f}", "ci_low": f"{lo:.6f}",
        "ci_high": f"{hi:.6f}", "games": str(args.eval_games), "runs": str(runs), "program": PROGRAM, "commit": PINNED,
        "command": command, "seeds": seeds_text, "note": run_note(args.agent, args, results, rates, ci),
    }
    # A row over more seeds replaces the rows of the same quantity whose seeds it includes.
    included = set(map(str, seeds))
    rows = [r for r in read_rows(out)
            if (r["quantity"], r["commit"]) != (quantity, PINNED) or not set(r["seeds"].split(";")) <= included]
    rows.append(row)
    if args.agent == "mcts" and args.games == FIG_A1_GAMES:
        ratio = ratio_row(rows, seeds_text, command)
        if ratio is not None:
            rows = [r for r in rows if (r["quantity"], r["seeds"]) != (ratio["quantity"], seeds_text)] + [ratio]
    write_rows(out, rows)
    print(f"run_cs238project: wrote {quantity} = {row['value']} [{row['ci_low']}, {row['ci_high']}]", file=sys.stderr)


if __name__ == "__main__":
    main()
