#!/usr/bin/env python
"""Run cs238project's linear Q (Bilir, Kong & Wittenbrink 2023) headless at its pinned commit.

An external reference, not part of minelab: minelab never imports this file and CI skips it.
It executes the authors' own training script ``gym-minesweeper/minesweeper/q_linear_approx.py``
from a checkout given with ``--checkout`` (at the pinned commit plus
tools/authors/patches/cs238project.patch, which restores the script's cold start), one seeded
run per seed, then plays the trained weights greedily on fresh boards (the paper's evaluation,
§5) and appends one row to ``--out`` (see tools/authors/README.md).

It needs a Python with numpy, scipy, six and gym 0.26.2 (the program imports ``gym``).

Example (Fig 1, linear Q after 10^6 training games, three seeds)::

    python tools/authors/run_cs238project.py --checkout /tmp/authors/cs238project \\
        --agent linear-q --games 1000000 --seeds 1,2,3 --out data/authors/bilir2023.csv
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
SCRIPTS = {"linear-q": "q_linear_approx.py"}
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


def run_one(checkout: Path, agent: str, games: int, eval_games: int, seed: int) -> dict:
    """One seeded training run of the authors' script in this process, then a greedy evaluation."""
    code_dir = checkout / "gym-minesweeper" / "minesweeper"
    script = code_dir / SCRIPTS[agent]
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

    # Hook 1: the environments the script makes get their action space seeded (gym seeds a space
    # from the OS otherwise, and the script's exploration samples from it).
    base = getattr(ms, "_minelab_base", ms.MinesweeperEnv)
    ms._minelab_base = base

    class SeededEnv(base):
        space_seed = seed

        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.action_space.seed(SeededEnv.space_seed)

    ms.MinesweeperEnv = SeededEnv

    # Hook 2: the script's progress bar, tqdm(range(NUM_ITERS)), is replaced by a counter of exactly
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
    random.seed(EVAL_SEED_BASE + seed)
    np.random.seed(EVAL_SEED_BASE + seed)
    SeededEnv.space_seed = EVAL_SEED_BASE + seed
    env = ms.MinesweeperEnv()
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










def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, required=True,
                        help=f"work tree of {REPOSITORY} at commit {PINNED} plus the committed patch")
    parser.add_argument("--agent", choices=sorted(SCRIPTS), default="linear-q",
                        help="linear-q: gym-minesweeper/minesweeper/q_linear_approx.py")
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

    checkout = args.checkout.resolve()
    check_checkout(checkout)
    seeds = [int(s) for s in args.seeds.split(",")]
    seeds_text = ";".join(str(s) for s in seeds)
    quantity = f"linear Q win rate after {games_label(args.games)} games"
    out = args.out
    if any((r["quantity"], r["seeds"], r["commit"]) == (quantity, seeds_text, PINNED) for r in read_rows(out)):
        print(f"run_cs238project: row {quantity!r}, seeds {seeds_text} already in {out}; skipped", file=sys.stderr)
        return

    results = []
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        key = args.cache_dir / f"cs238project_{PINNED[:12]}_{args.agent}_{args.games}_{args.eval_games}_{seed}.json"
        if key.is_file():
            result = json.loads(key.read_text())
        else:
            print(f"run_cs238project: {args.agent}, {args.games} games, seed {seed}", file=sys.stderr)
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
    train = ";".join(f"{r['train_last_wins'] / max(r['train_last_games'], 1):.4f}" for r in results)
    note = (f"greedy win rate on {args.eval_games} fresh 5x5/5 boards after {args.games} training games of the "
            f"authors' q_linear_approx.py (alpha 0.01, gamma 0.9, epsilon 0.1 from the first game, cold start), "
            f"mean over {runs} run(s); per run: {';'.join(f'{x:.4f}' for x in rates)}. {ci} "
            f"(games: the evaluation games per run, as the published row counts them) "
            f"The script's own training win rate (epsilon-greedy) over its last "
            f"{results[0]['train_last_games']} games: {train}. "
            f"Changes: cold start restored (patch); Python random, numpy and the gym action space seeded with the "
            f"seed; the script's tqdm loop made to run exactly {args.games} games (its NUM_ITERS is 10^7); the greedy "
            f"evaluation (argmax of the script's Q over closed cells, the paper's §5 protocol, as the script's "
            f"qtable.py eval) added by the driver, its boards seeded with {EVAL_SEED_BASE} + seed.")
    row = {
        "paper": PAPER, "item": ITEM, "quantity": quantity, "value": f"{mean:.6f}", "ci_low": f"{lo:.6f}",
        "ci_high": f"{hi:.6f}", "games": str(args.eval_games), "runs": str(runs), "program": PROGRAM, "commit": PINNED,
        "command": shlex.join(["python", os.path.relpath(Path(__file__).resolve(), REPO_ROOT), *raw_argv]),
        "seeds": seeds_text, "note": note,
    }
    # A row over more seeds replaces the rows of the same quantity whose seeds it includes.
    included = set(map(str, seeds))
    rows = [r for r in read_rows(out)
            if (r["quantity"], r["commit"]) != (quantity, PINNED) or not set(r["seeds"].split(";")) <= included]
    rows.append(row)
    write_rows(out, rows)
    print(f"run_cs238project: wrote {quantity} = {row['value']} [{row['ci_low']}, {row['ci_high']}]", file=sys.stderr)


if __name__ == "__main__":
    main()
