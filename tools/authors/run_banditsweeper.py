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
AGENTS = {"greedy": "megreedy,0,0,-1,1,-1"}
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


def run_one(checkout: Path, board: str, player: str, games: int, seed: int, variant: str) -> dict:
    """One seeded training run in this process with the program's own harness; returns its figures."""
    random.seed(seed)
    import numpy as np
    np.random.seed(seed)
    if str(checkout) not in sys.path:
        sys.path.insert(0, str(checkout))
    import confms
    import experihalls

    if not hasattr(confms, "_minelab_original"):
        confms._minelab_original = confms.get_conf_ult
    confms.get_conf_ult = raw_window if variant == "no-symmetry" else confms._minelab_original
    made = {}
    original = getattr(experihalls, "_minelab_original", experihalls.here_comes_a_new_challenger)
    experihalls._minelab_original = original

    def challenger(player_str):  # keep hold of the player the harness builds
        made["player"] = original(player_str)
        return made["player"]

    experihalls.here_comes_a_new_challenger = challenger
    cwd = os.getcwd()
    start = time.time()
    # run_trial reads and writes ./Pickles (a run over 15 minutes pickles itself there and points
    # sys.stdout at a log file): run it in a scratch folder and put stdout back afterwards.
    with tempfile.TemporaryDirectory(prefix="banditsweeper-") as scratch:
        os.mkdir(os.path.join(scratch, "Pickles"))
        saved = sys.stdout
        try:
            os.chdir(scratch)
            with contextlib.redirect_stdout(sys.stderr):
                # -t 0: threshold 0, so the early stop never fires and every game is played
                _, win_pct = experihalls.run_trial(["-p", player, "-s", board, "-r", str(games), "-t", "0"])
        finally:
            sys.stdout = saved
            os.chdir(cwd)
    return {"win_rate": win_pct / 100.0, "actions": len(made["player"].actions), "seconds": time.time() - start}












def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, required=True,
                        help=f"work tree of {REPOSITORY} at commit {PINNED}")
    parser.add_argument("--board", required=True, help="width,height,mines as the program's -s (e.g. 4,4,3)")
    parser.add_argument("--agent", choices=sorted(AGENTS), default="greedy",
                        help="greedy: the program's megreedy,0,0,-1,1,-1 (Table II's MAB agent)")
    parser.add_argument("--games", type=int, required=True, help="training games per run")
    parser.add_argument("--seeds", required=True, help="comma-separated seeds, one independent run each")
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="published",
                        help="no-symmetry: a labelled variant keying actions by the raw window")
    parser.add_argument("--out", type=Path, required=True, help="CSV to append rows to")
    parser.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "minelab-authors",
                        help="per-run results, so an interrupted command resumes at the next seed")
    args = parser.parse_args(argv)
    raw_argv = sys.argv[1:] if argv is None else argv

    checkout = args.checkout.resolve()
    check_checkout(checkout)
    seeds = [int(s) for s in args.seeds.split(",")]
    w, h, m = (int(x) for x in args.board.split(","))
    board = f"{w}x{h}x{m}"
    suffix = VARIANTS[args.variant]
    quantities = {
        "win_rate": f"MAB win rate, {board}, {args.games} games{suffix}",
        "actions": f"MAB actions recorded, {board}, {args.games} games{suffix}",
    }
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
        name = f"banditsweeper_{PINNED[:12]}_{args.variant}_{args.agent}_{board}_{args.games}_{seed}.json"
        key = args.cache_dir / name
        if key.is_file():
            result = json.loads(key.read_text())
        else:
            print(f"run_banditsweeper: {board}, {args.games} games, {args.variant}, seed {seed}", file=sys.stderr)
            result = run_one(checkout, args.board, player, args.games, seed, args.variant)
            key.write_text(json.dumps(result))
        print(f"run_banditsweeper: seed {seed}: win rate {result['win_rate']:.6f}, "
              f"actions {result['actions']} ({result['seconds']:.0f} s)", file=sys.stderr)
        results.append(result)

    command = shlex.join(["python", os.path.relpath(Path(__file__).resolve(), REPO_ROOT), *raw_argv])
    runs = len(results)
    variant_note = ("" if args.variant == "published" else
                    " VARIANT, not the published code: confms.get_conf_ult replaced (in the driver) by the raw "
                    "3x3 window around the neighbour plus the target's direction 0..8, no rotation or mirroring.")
    common = (f"BanditSweeper at {PINNED[:7]} unchanged, run by its own experihalls.run_trial "
              f"(-p {player} -s {args.board} -r {args.games} -t 0); Python random and numpy seeded with the run's "
              f"seed before the run; no first-click rule, the program opens the first zero cell of its scan.")
    for kind in todo:
        values = [r[kind] for r in results]
        digits = 6 if kind == "win_rate" else 1
        mean = sum(values) / runs
        per_run = ";".join(f"{v:.4f}" if kind == "win_rate" else str(v) for v in values)
        if kind == "win_rate":
            what = (f"cumulative win rate over the {args.games} training games of each run (the harness's "
                    f"'Win rate'), mean over {runs} run(s); per run: {per_run}.")
        else:
            what = (f"distinct actions in the player's table at the end of the run (len(player.actions), "
                    f"the harness's 'Recorded actions'), mean over {runs} run(s); per run: {per_run}.")
        if runs > 1:
            lo, hi = t_interval(values)
            ci = "95% t-interval over the runs."
        elif kind == "win_rate":
            lo, hi = wilson(round(values[0] * args.games), args.games)
            ci = ("Wilson 95% interval over the games of the one run; a learner's training games are not "
                  "independent, so it understates the run-to-run spread.")
        else:
            lo = hi = None
            ci = "one run: no interval."
        row = {
            "paper": PAPER, "item": ITEM, "quantity": quantities[kind], "value": fmt(mean, digits),
            "ci_low": fmt(lo, digits), "ci_high": fmt(hi, digits), "games": str(args.games), "runs": str(runs),
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
