#!/usr/bin/env python
"""Run BanditSweeper (Lordeiro, Haddad & Cardoso 2021) headless at its pinned commit.

An external reference, not part of minelab: minelab never imports this file and CI skips it.
It imports the authors' modules from a checkout given with ``--checkout`` at run time, plays
whole training runs with their own harness (``experihalls.run_trial``), one seeded run per
seed, and appends one row per quantity to ``--out`` (see tools/authors/README.md).

Example (Table II, greedy MAB, 4x4x3, 10^5 games, three seeds)::

    python tools/authors/run_banditsweeper.py --checkout /tmp/authors/BanditSweeper \\
        --board 4,4,3 --games 100000 --seeds 1,2,3 --out data/authors/lordeiro2021.csv
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pickle
import random
import shlex
import sys
import tempfile
import time
from pathlib import Path

import harness  # beside this file (the drivers run as scripts)
from harness import fmt, read_rows, t_interval, wilson, write_rows

PROGRAM = "BanditSweeper"
REPOSITORY = "https://github.com/CanisKalahari/BanditSweeper"
PINNED = "8f08db6c4fee23623df372ff5db3e47f5ea43b75"
PAPER = "lordeiro2021"
ITEM = "Table II"
HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
PATCH = HERE / "patches" / "banditsweeper.patch"
# The player strings of the program's own command line (experihalls.py -p ...).
AGENTS = {"greedy": "megreedy,0,0,-1,1,-1", "ucb": "mucb,0.1,-1,1,-1"}
# The standard levels a trained player is tested on (Tables III and IV), as the program's -s
# (width,height,mines). Expert is 16 wide and 30 high, the paper's "16x30x99": the program's
# get_valid_game indexes its board [column][row] over range(rows) x range(cols), which fails
# on a board wider than high (-s 30,16,99: IndexError) and works on the same board turned.
LEVELS = {"beginner": "8,8,10", "intermediate": "16,16,40", "expert": "16,30,99"}
CHUNK = 50_000  # training games per run_trial call: a checkpoint after each
TEST_SEED_BASE = 2_000_000  # a test's seed: this + 1,000 x the run's seed + the sum of the board's numbers
VARIANTS = {
    "published": "",
    "no-symmetry": " [authors' program variant: symmetry step off]",
}


def fail(message: str) -> None:
    sys.exit(f"run_banditsweeper: {message}")


def check_checkout(path: Path) -> None:
    """Refuse a missing checkout, another commit, or changes other than the committed patch."""
    harness.check_checkout(path, program=Path(__file__).stem, marker="experihalls.py", repository=REPOSITORY,
                           pinned=PINNED, patch=PATCH, root=REPO_ROOT)


def raw_window(i, j, conf_index, game_state, actions):
    """The labelled no-symmetry variant's key: the raw 3x3 window around the neighbour (i, j), outside
    cells -1 as in confms.get_conf_ult, and the target's direction (conf_index, 0..8), with no rotation
    or mirroring (confms.get_conf_ult rotates the window so the direction is 0 or 1 and may mirror it)."""
    rows, cols = len(game_state), len(game_state[0])
    conf = [game_state[i + u][j + v] if 0 <= i + u < rows and 0 <= j + v < cols else -1
            for u in (-1, 0, 1) for v in (-1, 0, 1)]
    conf.append(conf_index)
    return tuple(conf)


def load_program(checkout: Path, variant: str):
    """Import the program's modules from the checkout, with the labelled variant's key (or the
    program's own) in place; returns experihalls."""
    if str(checkout) not in sys.path:
        sys.path.insert(0, str(checkout))
    import confms
    import experihalls

    if not hasattr(confms, "_minelab_original"):
        confms._minelab_original = confms.get_conf_ult
    confms.get_conf_ult = raw_window if variant == "no-symmetry" else confms._minelab_original
    if not hasattr(experihalls, "_minelab_original"):
        experihalls._minelab_original = experihalls.here_comes_a_new_challenger
    return experihalls


def play_trial(experihalls, player_str: str, board: str, games: int, player=None):
    """`games` games of the program's own harness (experihalls.run_trial) on `board`, by `player`
    (a player object to go on with: the program's own way of continuing a player is to load its
    pickle at the start of run_trial; this hands it over in memory) or, when None, a new player
    built from `player_str`. Returns (wins, the player)."""
    original = experihalls._minelab_original
    made = {}

    def challenger(s):
        made["player"] = player if player is not None else original(s)
        return made["player"]

    experihalls.here_comes_a_new_challenger = challenger
    cwd = os.getcwd()
    # run_trial reads and writes ./Pickles (a call over 15 minutes pickles itself there and points
    # sys.stdout at a log file): run it in a scratch folder and put stdout back afterwards.
    with tempfile.TemporaryDirectory(prefix="banditsweeper-") as scratch:
        os.mkdir(os.path.join(scratch, "Pickles"))
        saved = sys.stdout
        try:
            os.chdir(scratch)
            with contextlib.redirect_stdout(sys.stderr):
                # -t 0: threshold 0, so the early stop never fires and every game is played
                _, win_pct = experihalls.run_trial(["-p", player_str, "-s", board, "-r", str(games), "-t", "0"])
        finally:
            sys.stdout = saved
            os.chdir(cwd)
    return round(win_pct / 100.0 * games), made["player"]


def run_one(checkout: Path, board: str, player: str, games: int, seed: int, variant: str,
            checkpoint: Path | None = None, chunk: int = CHUNK) -> dict:
    """One seeded training run in this process with the program's own harness, in calls of at most
    `chunk` games that hand the player on from one to the next; returns its figures and the
    trained player. After each call the player and both random generators' states are pickled to
    `checkpoint` (atomically), so a killed run resumes there and ends exactly as an unbroken one:
    the program draws its random numbers only while it plays."""
    import numpy as np

    experihalls = load_program(checkout, variant)
    state = None
    if checkpoint is not None and checkpoint.is_file():
        state = pickle.loads(checkpoint.read_bytes())
    if state is None:
        random.seed(seed)
        np.random.seed(seed)
        state = {"done": 0, "wins": 0, "seconds": 0.0, "player": None}
    else:
        random.setstate(state["random"])
        np.random.set_state(state["numpy"])
        print(f"run_banditsweeper: resuming at game {state['done']:,} of {games:,}", file=sys.stderr)
    while state["done"] < games:
        start = time.time()
        n = min(chunk, games - state["done"])
        wins, trained = play_trial(experihalls, player, board, n, state["player"])
        state.update(done=state["done"] + n, wins=state["wins"] + wins, player=trained,
                     seconds=state["seconds"] + time.time() - start)
        if checkpoint is not None:
            atomic_bytes(checkpoint, pickle.dumps({**state, "random": random.getstate(),
                                                   "numpy": np.random.get_state()}))
        print(f"run_banditsweeper: {state['done']:,} of {games:,} games, win rate so far "
              f"{state['wins'] / state['done']:.4f} ({state['seconds']:.0f} s)", file=sys.stderr)
    return {"win_rate": state["wins"] / games, "actions": len(state["player"].actions), "seconds": state["seconds"],
            "player": state["player"]}


def test_one(checkout: Path, trained, board: str, player: str, games: int, seed: int, variant: str) -> dict:
    """The trained player's test on another board as the program runs one: run_trial on the test
    board, the player handed on as its pickle would be (the program has no frozen mode: the player
    goes on learning during its test games). Each test starts from the trained player (a copy)
    and its own seed, derived from the run's seed and the board."""
    import numpy as np

    experihalls = load_program(checkout, variant)
    test_seed = TEST_SEED_BASE + 1_000 * seed + sum(int(x) for x in board.split(","))
    random.seed(test_seed)
    np.random.seed(test_seed)
    start = time.time()
    wins, _ = play_trial(experihalls, player, board, games, pickle.loads(pickle.dumps(trained)))
    return {"wins": wins, "games": games, "seconds": time.time() - start, "seed": test_seed}


def atomic_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically (harness.atomic_write)."""
    harness.atomic_write(path, lambda fh: fh.write(data), binary=True)


def quantities_of(agent: str, board: str, games: int, tests: list[str], suffix: str) -> tuple[str, dict]:
    """(item, {kind: quantity}) of a run, those of the published rows it stands beside: Table II
    (win rate and actions of a 4x4 training run) without tests; with tests Table III (greedy) or
    IV (UCB): the training win rate and each test level's."""
    if not tests:
        if agent != "greedy":
            fail("Table II's MAB agent is the greedy one; a UCB run is Table IV's: give --tests")
        return ITEM, {"win_rate": f"MAB win rate, {board}, {games} games{suffix}",
                      "actions": f"MAB actions recorded, {board}, {games} games{suffix}"}
    item = "Table IV" if agent == "ucb" else "Table III"
    out = {"win_rate": f"training win rate, trained on {board}{suffix}"}
    out.update({level: f"{level} win rate, trained on {board}{suffix}" for level in tests})
    return item, out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, required=True,
                        help=f"work tree of {REPOSITORY} at commit {PINNED}")
    parser.add_argument("--board", required=True, help="width,height,mines as the program's -s (e.g. 4,4,3)")
    parser.add_argument("--agent", choices=sorted(AGENTS), default="greedy",
                        help="greedy: the program's megreedy,0,0,-1,1,-1 (Tables II and III); "
                             "ucb: its mucb,0.1,-1,1,-1 (Table IV, c = 0.1)")
    parser.add_argument("--games", type=int, required=True, help="training games per run")
    parser.add_argument("--tests", default="",
                        help="comma-separated standard levels the trained player is then tested on "
                             f"({', '.join(LEVELS)}; Tables III and IV)")
    parser.add_argument("--test-games", type=int, default=10_000, help="games of each test (the paper: 10^4)")
    parser.add_argument("--seeds", required=True, help="comma-separated seeds, one independent run each")
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="published",
                        help="no-symmetry: a labelled variant keying actions by the raw window")
    parser.add_argument("--out", type=Path, required=True, help="CSV to append rows to")
    parser.add_argument("--chunk", type=int, default=CHUNK,
                        help="training games between checkpoints (the run's results do not depend on it)")
    parser.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "minelab-authors",
                        help="per-run results and checkpoints, so an interrupted command resumes where it stopped")
    args = parser.parse_args(argv)
    raw_argv = sys.argv[1:] if argv is None else argv
    tests = [t.strip() for t in args.tests.split(",") if t.strip()]
    unknown = [t for t in tests if t not in LEVELS]
    if unknown:
        fail(f"--tests: {', '.join(unknown)} not a standard level ({', '.join(LEVELS)})")
    if args.games < 1 or args.test_games < 1 or args.chunk < 1:
        fail(f"--games, --test-games and --chunk must be positive, got {args.games}, {args.test_games} "
             f"and {args.chunk}")

    checkout = args.checkout.resolve()
    check_checkout(checkout)
    seeds = [int(s) for s in args.seeds.split(",")]
    w, h, m = (int(x) for x in args.board.split(","))
    board = f"{w}x{h}x{m}"
    suffix = VARIANTS[args.variant]
    item, quantities = quantities_of(args.agent, board, args.games, tests, suffix)
    seeds_text = ";".join(str(s) for s in seeds)
    out = args.out
    present = {(r["quantity"], r["seeds"], r["commit"]) for r in read_rows(out)}
    todo = [k for k, q in quantities.items() if (q, seeds_text, PINNED) not in present]
    if not todo:
        print(f"run_banditsweeper: rows for {board}, {args.games} games, seeds {seeds_text} already in {out}; "
              "skipped", file=sys.stderr)
        return

    player = AGENTS[args.agent]
    results = []
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        stem = f"banditsweeper_{PINNED[:12]}_{args.variant}_{args.agent}_{board}_{args.games}_{seed}"
        key = args.cache_dir / f"{stem}.json"
        result = json.loads(key.read_text()) if key.is_file() else None
        trained_file = args.cache_dir / f"{stem}.player.pickle"
        need_player = tests and not all(f"test_{t}_{args.test_games}" in (result or {}) for t in tests)
        if result is None or (need_player and not trained_file.is_file()):
            print(f"run_banditsweeper: {board}, {args.games} games, {args.variant}, seed {seed}", file=sys.stderr)
            checkpoint = args.cache_dir / f"{stem}.checkpoint.pickle"
            trained = run_one(checkout, args.board, player, args.games, seed, args.variant, checkpoint, args.chunk)
            if tests:
                atomic_bytes(trained_file, pickle.dumps(trained["player"]))
            result = {k: v for k, v in trained.items() if k != "player"}
            key.write_text(json.dumps(result))
            checkpoint.unlink(missing_ok=True)
        print(f"run_banditsweeper: seed {seed}: win rate {result['win_rate']:.6f}, "
              f"actions {result['actions']} ({result['seconds']:.0f} s)", file=sys.stderr)
        for level in tests:
            name = f"test_{level}_{args.test_games}"
            if name not in result:
                print(f"run_banditsweeper: seed {seed}: {args.test_games} test games on {level}", file=sys.stderr)
                load_program(checkout, args.variant)  # the pickle's classes are the program's
                trained = pickle.loads(trained_file.read_bytes())
                result[name] = test_one(checkout, trained, LEVELS[level], player, args.test_games, seed,
                                        args.variant)
                key.write_text(json.dumps(result))
            r = result[name]
            print(f"run_banditsweeper: seed {seed}: {level} win rate {r['wins'] / r['games']:.4f} "
                  f"({r['seconds']:.0f} s)", file=sys.stderr)
        results.append(result)

    command = shlex.join(["python", os.path.relpath(Path(__file__).resolve(), REPO_ROOT), *raw_argv])
    runs = len(results)
    variant_note = ("" if args.variant == "published" else
                    " VARIANT, not the published code: confms.get_conf_ult replaced (in the driver) by the raw "
                    "3x3 window around the neighbour plus the target's direction 0..8, no rotation or mirroring.")
    common = (f"BanditSweeper at {PINNED[:7]} unchanged, run by its own experihalls.run_trial "
              f"(-p {player} -s {args.board} -r {args.games} -t 0, in calls of at most {CHUNK:,} games that hand the "
              f"player on); Python random and numpy seeded with the run's seed before the run; no first-click rule, "
              f"the program opens the first zero cell of its scan.")
    for kind in todo:
        if kind in LEVELS:
            values = [r[f"test_{kind}_{args.test_games}"]["wins"] / args.test_games for r in results]
        else:
            values = [r[kind] for r in results]
        digits = 1 if kind == "actions" else 6
        mean = sum(values) / runs
        per_run = ";".join(str(v) if kind == "actions" else f"{v:.4f}" for v in values)
        if kind == "win_rate":
            what = (f"cumulative win rate over the {args.games} training games of each run (the harness's "
                    f"'Win rate'), mean over {runs} run(s); per run: {per_run}.")
        elif kind == "actions":
            what = (f"distinct actions in the player's table at the end of the run (len(player.actions), "
                    f"the harness's 'Recorded actions'), mean over {runs} run(s); per run: {per_run}.")
        else:
            what = (f"win rate over {args.test_games} test games on the {kind} level ({LEVELS[kind]}) of the player "
                    f"trained {args.games} games on {board}, run by run_trial from the trained player (the program "
                    f"has no frozen mode: the player goes on learning in its test games), each test from a copy of "
                    f"the trained player, its own seed ({TEST_SEED_BASE} + 1,000 x seed + the board's numbers); "
                    f"mean over {runs} run(s); per run: {per_run}.")
        n = args.test_games if kind in LEVELS else args.games
        if runs > 1:
            lo, hi = t_interval(values)
            ci = "95% t-interval over the runs."
        elif kind != "actions":
            lo, hi = wilson(round(values[0] * n), n)
            ci = ("Wilson 95% interval over the games of the one run; a learner's games are not independent, so "
                  "it understates the run-to-run spread.")
        else:
            lo = hi = None
            ci = "one run: no interval."
        row = {
            "paper": PAPER, "item": item, "quantity": quantities[kind], "value": fmt(mean, digits),
            "ci_low": fmt(lo, digits), "ci_high": fmt(hi, digits), "games": str(n), "runs": str(runs),
            "program": PROGRAM, "commit": PINNED, "command": command, "seeds": seeds_text,
            "note": f"{what} {ci} {common}{variant_note}",
        }
        rows = [r for r in read_rows(out) if (r["quantity"], r["seeds"], r["commit"])
                != (row["quantity"], row["seeds"], row["commit"])]
        rows.append(row)
        write_rows(out, rows)
        print(f"run_banditsweeper: wrote {row['quantity']} = {row['value']} [{row['ci_low']}, {row['ci_high']}]",
              file=sys.stderr)


if __name__ == "__main__":
    main()
