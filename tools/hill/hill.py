#!/usr/bin/env python
"""D. N. Hill's JSMinesweeper solver beside `best`, on the very same positions and boards.

An external reference, not part of minelab: minelab never imports this file, the test suite
never runs it (CI only lints it) and nothing of Hill's code is copied here. `hill_server.js`
loads his solver's scripts from a checkout at the pinned commit at run time (node runs
them) and answers requests over pipes; this file deals minelab's boards, asks it, and
writes what it finds into data/hill/ (see tools/hill/README.md).

    python tools/hill/hill.py --checkout /tmp/hill/JSMinesweeper probabilities --games 40
    python tools/hill/hill.py --checkout /tmp/hill/JSMinesweeper paired --chunks 100
    python tools/hill/hill.py --checkout /tmp/hill/JSMinesweeper shadow --games 1000
    python tools/hill/hill.py merge /tmp/shadow_a.csv /tmp/shadow_b.csv
    python tools/hill/hill.py --checkout /tmp/hill/JSMinesweeper reasons --agent "best 02254c989811dc9f" \
        --params '{"tie_order": "corners"}'

`probabilities`: `best` plays expert games; in every position it meets, Hill's safety of
each covered cell is set beside minelab's exact one (1 - minelab.mine_probabilities).

`paired`: both play the same expert boards, first click safe in the top-left corner. Chunk
k's boards are those `ml.play(best, level, CHUNK, seed=chunk_seed(k))` deals (`deal_layouts`
reproduces them; a check at start replays a few of `best`'s games on them). One row per
chunk and version of `best` (games, the four outcome counts, and Hill's game-by-game wins
in `hill_games`) is appended atomically, so an interrupted run resumes at the next chunk;
a new version of `best` is paired again from `hill_games` where a chunk has them (Hill's
games do not change), and Hill plays only the chunks without.

`shadow`: `best` plays expert games; at each of its guesses Hill's solver is asked for its
move in the same position. Where the two reveals differ, both are valued on the same
SHADOW_LAYOUTS layouts drawn exactly from the position's posterior, each continued by
`best` to the end (`minelab.studies.strength.move_values`): the difference in win
probability with its 95% interval. A row per guess, and a row per game played.

`merge`: the rows of shadow runs' --out files (two processes on two game ranges, `--start`)
put into data/hill/shadow.csv and shadow_games.csv, whole games only.

`resolve`: what a change to `best` does where shadow play found the two solvers apart. The
version of `best` that played the shadow games replays them to each valued disagreement,
and `best` with the change (its parameters, --params) decides there: Hill's cell, best's
old one, or another. The change's cell is valued against best's as the shadow play valued
Hill's, on the same layouts (Hill's cell: the shadow row's difference; best's: 0; another
cell: `move_values` on the row's layouts and seed). A row per disagreement and change
(-> data/hill/resolved.csv); no node needed.

`reasons`: which of Hill's steps made his move at each valued disagreement. A version of
`best` that played shadow games (--agent; today's `best` with --params must play as it
did, which the replay checks move by move) replays them to each disagreement, Hill's
solver is asked again, and the message line his page would show is kept beside his move
(-> data/hill/reasons.csv); minelab.studies.versus_hill sorts the messages into his steps.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "authors"))
sys.path.insert(0, str(REPO_ROOT))

import harness  # noqa: E402  (tools/authors: the pinned checkout's check, the CSV rows)

import minelab as ml  # noqa: E402
from minelab.engine import begin_game, deal_first_click, new_game_state, run_streams  # noqa: E402
from minelab.studies.versus_hill import today_agent  # noqa: E402
from minelab.sweep import derive_seed  # noqa: E402

PROGRAM = "JSMinesweeper"
REPOSITORY = "https://github.com/DavidNHill/JSMinesweeper"
PINNED = "d8ff392543623c77e72b34e437ff30d68ca7178a"
MARKER = "Minesweeper/client/solver_main.js"
SERVER = HERE / "hill_server.js"
DATA = REPO_ROOT / "data" / "hill"
LEVEL = "16x30x99"
FIRST = 0  # the first click under the safe rule: the top-left corner, as `best`'s
OPENING_FIRST = 3 * 30 + 3  # under the opening rule: (3, 3), Hill's zero start on expert (main.js bulkRun)
PAIRED_ROOT = 3100  # root seed of the paired games' chunks (used for nothing else)
PROBABILITY_SEED = 3200  # boards of the probability check
CHUNK = 200  # paired games per row: about 40 s of Hill's solver on expert
SHADOW_ROOT = 1900  # root seed of the shadow games: tuning seeds (what they find may change best)
SHADOW_LAYOUTS = 1_000  # posterior layouts each disagreement's two moves are valued on
SHADOW_COLUMNS = ["level", "game", "seed", "step", "revealed", "covered", "mines_left", "log_layouts", "best_cell",
                  "best_p", "best_frontier", "hill_cell", "hill_p", "hill_frontier", "hill_kind", "layouts",
                  "best_win", "hill_win", "diff", "diff_low", "diff_high", "program", "commit", "agent"]
SHADOW_GAME_COLUMNS = ["level", "game", "seed", "won", "guesses", "differ", "program", "commit", "agent"]
# agent: best's golden playthrough digest
RESOLVED_COLUMNS = ["level", "game", "step", "agent", "change", "best_cell", "hill_cell", "new_cell", "new_diff",
                    "new_diff_low", "new_diff_high"]
# agent: the version of best that played the shadow games; change: the parameters, as JSON;
# new_diff: the change's cell's value - best's, on the shadow row's layouts (95% interval)
REASON_COLUMNS = ["level", "game", "step", "agent", "hill_cell", "message", "program", "commit"]
# agent: the version of best that played the shadow games; message: Hill's page's message line
PAIRED_COLUMNS = ["level", "chunk", "seed", "games", "best_won", "hill_won", "both_won", "program", "commit", "agent",
                  "hill_games"]


def check_checkout(path: Path) -> None:
    harness.check_checkout(path, program=PROGRAM, marker=MARKER, repository=REPOSITORY, pinned=PINNED,
                           patch=HERE / "no.patch", root=REPO_ROOT)


class HillSolver:
    """Hill's solver in a node process: `analyse(view, mines)`, `play(level, layout, first)`.

    A context manager: the process ends when the block does."""

    def __init__(self, checkout: Path, node: str = "node"):
        check_checkout(checkout)
        if shutil.which(node) is None:
            sys.exit(f"{PROGRAM}: node is not installed ({node!r} not found); apt-get install nodejs")
        self.proc = subprocess.Popen([node, str(SERVER), str(checkout)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)

    def request(self, req: dict) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{PROGRAM}: the node process ended (exit code {self.proc.poll()})")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"{PROGRAM}: {reply['error']}")
        return reply

    def analyse(self, view: np.ndarray, mines: int) -> dict:
        """Hill's move in a position: {"actions": [[cell, kind, safety], ...], "safety": [...]}."""
        rows, cols = view.shape
        return self.request({"op": "analyse", "width": cols, "height": rows, "mines": int(mines),
                             "view": [int(v) for v in view.ravel()]})

    def play(self, level: ml.Level, layout: np.ndarray, first: int) -> dict:
        """One whole game on `layout` (mine cells, flat) from the first click `first`."""
        return self.request({"op": "play", "width": level.cols, "height": level.rows, "mines": level.mines,
                             "layout": [int(c) for c in layout], "first": int(first)})

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.proc.stdin.close()
        self.proc.wait(timeout=30)

    def __enter__(self) -> "HillSolver":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def deal_layouts(level: ml.Level, n: int, seed: int, first: int = FIRST) -> list[np.ndarray]:
    """The mine cells of the n boards `ml.play(agent, level, n, seed)` deals to an agent whose
    first click is `first`: the run's board stream deals each game at its first click, and
    nothing else draws from it."""
    deal_rng, _ = run_streams(seed)
    gs = new_game_state(level)
    layouts = []
    for _ in range(n):
        begin_game(gs, deal_rng)
        deal_first_click(gs, first, deal_rng)
        layouts.append(np.flatnonzero(gs.mine))
    return layouts


def check_deals(level: ml.Level, seed: int, first: int, games: int = 3) -> None:
    """Replay `best`'s first games of the run `seed` interactively (minelab.runner.game_of_run)
    and check that each was played on the layout `deal_layouts` gives."""
    layouts = deal_layouts(level, games, seed, first)
    for g in range(games):
        game, agent = ml.runner.game_of_run(best_agent(level, first), level, seed, g)
        agent.play_game(game)
        if not np.array_equal(np.flatnonzero(game.mines_after_game().ravel()), layouts[g]):
            sys.exit(f"{PROGRAM}: game {g} of seed {seed} was not dealt the layout deal_layouts gives")


def chunk_seed(level: str, k: int) -> int:
    return derive_seed(PAIRED_ROOT, {"study": "hill-paired", "level": level, "chunk": k})


def best_agent(level: ml.Level, first: int):
    """`best`, its first click on cell `first` (its default, the corner, under the safe rule)."""
    return ml.make_agent("best", **({} if first == 0 else {"first_click": divmod(first, level.cols)}))


def run_paired(hill: HillSolver, chunks: int, out: Path, level_name: str = LEVEL) -> None:
    """Chunks 0..chunks-1 of paired games on `level_name` (resumes). Under the opening rule
    both solvers' first click is OPENING_FIRST, Hill's own zero start; else the corner."""
    level = ml.Level.parse(level_name)
    first = OPENING_FIRST if level.first_click == "opening" else FIRST
    rows = harness.read_rows(out)
    agent = today_agent()
    ours = [r for r in rows if r["level"] == level_name and r["commit"] == PINNED]
    done = {int(r["chunk"]) for r in ours if r["agent"] == agent}
    hill_games = {int(r["chunk"]): r["hill_games"] for r in ours if r.get("hill_games")}
    best = best_agent(level, first)
    checked = False
    for k in range(chunks):
        if k in done:
            continue
        seed = chunk_seed(level_name, k)
        if not checked:
            check_deals(level, seed, first)
            checked = True
        df = ml.play(best, level, CHUNK, seed=seed, chunk=CHUNK)
        best_won = df["won"].to_numpy(dtype=bool)
        start = time.perf_counter()
        if k in hill_games:  # Hill's games of these boards, played for an earlier best
            hill_won = np.array([c == "1" for c in hill_games[k]], dtype=bool)
        else:
            layouts = deal_layouts(level, CHUNK, seed, first)
            hill_won = np.array([bool(hill.play(level, layout, first)["won"]) for layout in layouts])
        seconds = time.perf_counter() - start
        rows.append({"level": level_name, "chunk": k, "seed": seed, "games": CHUNK, "best_won": int(best_won.sum()),
                     "hill_won": int(hill_won.sum()), "both_won": int((best_won & hill_won).sum()),
                     "program": PROGRAM, "commit": PINNED, "agent": agent,
                     "hill_games": "".join("1" if w else "0" for w in hill_won)})
        rows.sort(key=lambda r: (r["level"], r["agent"], int(r["chunk"])))
        harness.write_rows(out, rows, PAIRED_COLUMNS)
        print(f"chunk {k}: best {best_won.sum()}/{CHUNK}, Hill {hill_won.sum()}/{CHUNK} ({seconds:.0f} s)", flush=True)


def run_probabilities(hill: HillSolver, games: int, out: Path, level_name: str = LEVEL) -> None:
    """Every position `best` meets in `games` games: Hill's safety beside minelab's."""
    level = ml.Level.parse(level_name)
    best = ml.make_agent("best", seed=PROBABILITY_SEED)
    positions = cells = differing = 0
    worst = 0.0
    start = time.perf_counter()
    for g in range(games):
        game = ml.Game(level, seed=derive_seed(PROBABILITY_SEED, {"game": g}))
        game.reveal(0, 0)
        while not game.over:
            view = game.view
            covered = view < 0
            safety = np.array([np.nan if s is None else s for s in hill.analyse(view, level.mines)["safety"]])
            ours = 1.0 - ml.mine_probabilities(view, level.mines).ravel()
            diff = np.abs(safety[covered.ravel()] - ours[covered.ravel()])
            positions += 1
            cells += int(covered.sum())
            differing += int((diff > 1e-6).any())
            worst = max(worst, float(diff.max()))
            best.act(game)
    row = {"level": level_name, "games": games, "seed": PROBABILITY_SEED, "positions": positions, "cells": cells,
           "positions_differing": differing, "max_abs_difference": f"{worst:.3g}", "tolerance": "1e-06",
           "program": PROGRAM, "commit": PINNED}
    harness.write_rows(out, [row], list(row))
    print(json.dumps(row), f"({time.perf_counter() - start:.0f} s)")


def _frontier(view: np.ndarray, cell: int) -> bool:
    """True when `cell` touches a revealed number."""
    rows, cols = view.shape
    r, c = divmod(cell, cols)
    return bool((view[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2] >= 0).any())


def shadow_seed(level: str, g: int) -> int:
    return derive_seed(SHADOW_ROOT, {"study": "hill-shadow", "level": level, "game": g})


def layouts_seed(seed: int, step: int) -> int:
    """The seed of the posterior layouts a disagreement at guess `step` of the game dealt
    from `seed` is valued on: `shadow` draws them with it and `resolve` draws them again."""
    return derive_seed(seed, {"step": step})


def opened_game(level: ml.Level, seed: int) -> ml.Game:
    """The game dealt from `seed`, its first click (FIRST) made."""
    game = ml.Game(level, seed=seed)
    game.reveal(*divmod(FIRST, level.cols))
    return game


def best_guesses(best, game: ml.Game):
    """`best` plays `game` to the end; before each of its guesses, yields (step, sol, own):
    the guess's number from 1, the position's exact solve and the cell best reveals."""
    step = 0
    while not game.over:
        sol = ml.probability.solve(game.view, game.level.mines)
        own = next(q for kind, q in best.decision(game) if kind == ml.REVEAL)
        if sol.probabilities.ravel()[own] > 0:
            step += 1
            yield step, sol, own
        best.act(game)


def shadow_game(hill: HillSolver, best, level: ml.Level, g: int, seed: int) -> tuple[list[dict], bool]:
    """`best` plays game g (dealt from `seed`); at each of its guesses Hill's solver is asked
    too, and where their reveals differ both are valued on the same posterior layouts
    (minelab.studies.strength.move_values). Returns a row per guess, and whether best won."""
    from minelab.studies.strength import move_values

    game = opened_game(level, seed)
    rows = []
    for step, sol, own in best_guesses(best, game):
        view = game.view
        p = sol.probabilities.ravel()
        reply = hill.analyse(view, level.mines)
        first = reply["actions"][0]
        row = {"level": str(level), "game": g, "seed": seed, "step": step, "revealed": game.revealed,
               "covered": int((view < 0).sum()), "mines_left": level.mines - int(sol.mine.sum()),
               "log_layouts": f"{sol.log_layouts:.4f}", "best_cell": own, "best_p": f"{p[own]:.6f}",
               "best_frontier": _frontier(view, own), "hill_cell": first[0], "hill_p": f"{p[first[0]]:.6f}",
               "hill_frontier": _frontier(view, first[0]), "hill_kind": first[1], "layouts": 0,
               "program": PROGRAM, "commit": PINNED, "agent": today_agent()}
        if first[1] == 1 and first[0] != own:
            t = move_values(view, level.mines, [divmod(own, level.cols), divmod(first[0], level.cols)],
                            layouts=SHADOW_LAYOUTS, seed=layouts_seed(seed, step))
            row.update(layouts=SHADOW_LAYOUTS, best_win=t["win_rate"][0], hill_win=t["win_rate"][1],
                       **{k: f"{t[k][1]:.6f}" for k in ("diff", "diff_low", "diff_high")})
        rows.append(row)
    return rows, game.won


def run_shadow(hill: HillSolver, games: int, out: Path, level_name: str = LEVEL, start: int = 0) -> None:
    """Shadow play by today's `best` over games start..games-1 (two processes on two
    ranges, each with its own `out`, use both cores). `out` holds a row per guess;
    `<out>_games.csv` a row per game played (the denominator), written after the game's
    guesses, so a run resumes at the first game today's `best` has not listed there (its
    guesses, if any were written, are dropped and made again). Rows of other levels, commits
    and versions of `best` stay in both files as they are."""
    level = ml.Level.parse(level_name)
    agent = today_agent()
    games_out = out.with_name(out.stem + "_games.csv")

    def ours(r: dict) -> bool:
        return r["level"] == level_name and r["commit"] == PINNED and r.get("agent") == agent

    all_played = harness.read_rows(games_out)
    others = [r for r in all_played if not ours(r)]
    played = [r for r in all_played if ours(r)]
    done = {int(r["game"]) for r in played}
    all_rows = harness.read_rows(out)
    other_rows = [r for r in all_rows if not ours(r)]
    rows = [r for r in all_rows if ours(r) and int(r["game"]) in done]
    best = ml.make_agent("best", seed=SHADOW_ROOT)
    for g in range(start, games):
        if g in done:
            continue
        began = time.perf_counter()
        seed = shadow_seed(level_name, g)
        new, won = shadow_game(hill, best, level, g, seed)
        rows += new
        harness.write_rows(out, other_rows + rows, SHADOW_COLUMNS)
        differ = sum(1 for r in new if r["layouts"])
        played.append({"level": level_name, "game": g, "seed": seed, "won": won, "guesses": len(new),
                       "differ": differ, "program": PROGRAM, "commit": PINNED, "agent": agent})
        harness.write_rows(games_out, others + played, SHADOW_GAME_COLUMNS)
        print(f"game {g}: {len(new)} guesses, {differ} differ ({time.perf_counter() - began:.0f} s)", flush=True)


def _game_key(r: dict) -> tuple:
    return r["level"], r["commit"], r.get("agent", ""), int(r["game"])


def merge_shadow(parts: list[Path], out: Path) -> None:
    """Put the rows of shadow runs' `--out` files (`parts`, each with its `_games.csv`) into
    `out` and its `_games.csv`. Only games a part lists as played are taken (a game cut off
    mid-way has guesses but no game row); a game that two parts both played is an error.
    The rows of those games in `out` are replaced, every other row stays, and each version
    of `best`'s rows are sorted by game and guess. Both files are written atomically."""
    games_out = out.with_name(out.stem + "_games.csv")
    new_games: dict[tuple, dict] = {}
    new_rows: list[dict] = []
    for part in parts:
        played = harness.read_rows(part.with_name(part.stem + "_games.csv"))
        if not played:
            raise SystemExit(f"{part}: no game rows in {part.stem}_games.csv (is it a shadow run's --out?)")
        keys = {_game_key(r) for r in played}
        twice = sorted(keys & set(new_games), key=lambda k: k[3])
        if twice:
            raise SystemExit(f"{part}: game {twice[0][3]} of {twice[0][2]!r} is in another part too")
        new_games.update((_game_key(r), r) for r in played)
        new_rows += [r for r in harness.read_rows(part) if _game_key(r) in keys]

    def merged(old: list[dict], new: list[dict], step: bool) -> list[dict]:
        rows = [r for r in old if _game_key(r) not in new_games] + new
        first: dict[str, int] = {}
        for r in rows:
            first.setdefault(r.get("agent", ""), len(first))
        return sorted(rows, key=lambda r: (first[r.get("agent", "")], int(r["game"]),
                                           int(r["step"]) if step else 0))

    games = merged(harness.read_rows(games_out), list(new_games.values()), step=False)
    rows = merged(harness.read_rows(out), new_rows, step=True)
    harness.write_rows(out, rows, SHADOW_COLUMNS)
    harness.write_rows(games_out, games, SHADOW_GAME_COLUMNS)
    print(f"{len(new_games)} games ({len(new_rows)} guesses) from {len(parts)} parts -> {out}: "
          f"{len(games)} games, {len(rows)} guesses in all")


def run_resolve(params: dict, out: Path, shadow: Path) -> None:
    """Today's `best` replays its shadow games to each valued disagreement, where `best`
    with `params` decides (a replay that leaves the shadow rows' moves stops: today's best
    did not play them). The rows replace those of the same version and change in `out`."""
    agent = today_agent()
    rows = [r for r in harness.read_rows(shadow) if r["agent"] == agent and r["layouts"] not in ("", "0")]
    if not rows:
        raise SystemExit(f"{shadow} has no valued disagreement of {agent}")
    change = json.dumps(params, sort_keys=True)
    new = ml.make_agent("best", seed=SHADOW_ROOT, **params)
    found = []
    for r, game in replay_disagreements(rows, {}):
        cell = next(q for kind, q in new.decision(game) if kind == ml.REVEAL)
        found.append({"level": LEVEL, "game": int(r["game"]), "step": int(r["step"]), "agent": agent,
                      "change": change, "best_cell": int(r["best_cell"]), "hill_cell": int(r["hill_cell"]),
                      "new_cell": cell, **_value_of_new_cell(r, game, cell)})
    keep = [r for r in harness.read_rows(out) if (r["agent"], r["change"]) != (agent, change)]
    harness.write_rows(out, keep + found, RESOLVED_COLUMNS)
    takes = [("hill" if f["new_cell"] == f["hill_cell"] else "old" if f["new_cell"] == f["best_cell"] else "other")
             for f in found]
    print(f"{change}: {len(found)} disagreements; takes Hill's cell {takes.count('hill')}, best's "
          f"{takes.count('old')}, another {takes.count('other')}")


def _value_of_new_cell(r: dict, game: ml.Game, cell: int) -> dict:
    """The change's cell's value - best's at the shadow row r (the position of `game`): the
    row's own difference where it is Hill's cell, 0 where it is best's, else valued by
    `move_values` on the row's layouts (the same draw: the row's seed and step)."""
    from minelab.studies.strength import move_values

    keys = ("new_diff", "new_diff_low", "new_diff_high")
    if cell == int(r["hill_cell"]):
        return {k: r[k[4:]] for k in keys}
    if cell == int(r["best_cell"]):
        return dict.fromkeys(keys, f"{0.0:.6f}")
    cols = game.level.cols
    t = move_values(game.view, game.level.mines, [divmod(int(r["best_cell"]), cols), divmod(cell, cols)],
                    layouts=int(r["layouts"]), seed=layouts_seed(int(r["seed"]), int(r["step"])))
    return {k: f"{t[k[4:]][1]:.6f}" for k in keys}


def replay_disagreements(rows: list[dict], params: dict, left: list | None = None):
    """`best` with `params` replays the shadow games of `rows` (valued disagreements of one
    version) to each of them; yields (row, game) there. Where the replay leaves the rows'
    moves (`best` with `params` is not the version that played), it stops with an error,
    or, given a list `left`, goes on with the next game, the rows it could not reach
    appended to `left`."""
    level = ml.Level.parse(LEVEL)
    old = ml.make_agent("best", seed=SHADOW_ROOT, **params)
    by_game: dict[int, dict[int, dict]] = {}
    for r in rows:
        by_game.setdefault(int(r["game"]), {})[int(r["step"])] = r
    for g, steps in sorted(by_game.items()):
        game = opened_game(level, int(next(iter(steps.values()))["seed"]))
        for step, _, own in best_guesses(old, game):
            if step in steps:
                r = steps[step]
                if own != int(r["best_cell"]):
                    if left is None:
                        raise SystemExit(f"game {g} guess {step}: the replay takes {own}, the shadow row "
                                         f"{r['best_cell']}: best with {params} is not the version that played")
                    left.extend(steps[k] for k in sorted(steps) if k >= step)
                    break
                yield r, game
                if step == max(steps):
                    break


def run_reasons(hill: HillSolver, agent: str, params: dict, out: Path, shadow: Path) -> None:
    """Hill's message at each valued disagreement of `agent`'s shadow games, replayed by
    today's `best` with `params` (see `replay_disagreements`). Hill's move must be the
    shadow row's (his solver is deterministic). `agent`'s rows already in `out` for a
    disagreement of `shadow` are kept and not asked again, so a rerun after more shadow
    games asks only the new ones; its other rows in `out` are dropped."""
    rows = [r for r in harness.read_rows(shadow) if r["agent"] == agent and r["layouts"] not in ("", "0")]
    if not rows:
        raise SystemExit(f"{shadow} has no valued disagreement of {agent!r}")
    wanted = {(r["game"], r["step"]) for r in rows}
    before = harness.read_rows(out)
    found = [r for r in before if r["agent"] == agent and (r["game"], r["step"]) in wanted]
    have = {(r["game"], r["step"]) for r in found}
    rows = [r for r in rows if (r["game"], r["step"]) not in have]
    print(f"{agent}: {len(have)} disagreements already in {out}, {len(rows)} to ask", flush=True)
    keep = [r for r in before if r["agent"] != agent]

    def write() -> None:
        found.sort(key=lambda r: (int(r["game"]), int(r["step"])))
        harness.write_rows(out, keep + found, REASON_COLUMNS)

    left = []
    for k, (r, game) in enumerate(replay_disagreements(rows, params, left=left), 1):
        reply = hill.analyse(game.view, game.level.mines)
        cell = reply["actions"][0][0]
        if cell != int(r["hill_cell"]):
            raise SystemExit(f"game {r['game']} guess {r['step']}: Hill's solver now takes {cell}, the shadow row "
                             f"{r['hill_cell']}")
        found.append({"level": LEVEL, "game": r["game"], "step": r["step"], "agent": agent, "hill_cell": cell,
                      "message": reply["message"], "program": PROGRAM, "commit": PINNED})
        if k % 100 == 0:
            write()  # an interrupted run keeps what it has asked
    write()
    print(f"{agent}: {len(found) - len(have)} of {len(rows)} disagreements replayed, Hill's message at each -> "
          f"{out} ({len(found)} in all); {len(left)} not reached (best with {params} plays otherwise there)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, help="JSMinesweeper at the pinned commit (all but resolve, merge)")
    parser.add_argument("--node", default="node")
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("probabilities", help="Hill's safety beside minelab's in every position best meets")
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--out", type=Path, default=DATA / "probabilities.csv")
    r = sub.add_parser("shadow", help="best plays; at each of its guesses Hill's solver is asked too")
    r.add_argument("--games", type=int, default=100, help="games START..N-1 (resumes)")
    r.add_argument("--start", type=int, default=0, help="the first game (default 0)")
    r.add_argument("--out", type=Path, default=DATA / "shadow.csv")
    q = sub.add_parser("paired", help="Hill's solver and best on the same expert boards")
    q.add_argument("--chunks", type=int, default=100, help=f"chunks of {CHUNK} games (resumes)")
    q.add_argument("--rule", choices=("safe", "opening"), default="safe",
                   help="the first click: safe in the corner, or a zero at (3, 3)")
    q.add_argument("--out", type=Path, default=DATA / "paired.csv")
    v = sub.add_parser("resolve", help="replay shadow disagreements: where does best with a change move?")
    v.add_argument("--params", type=json.loads, required=True,
                   help='best\'s parameters, e.g. \'{"tie_order": "hill"}\'')
    v.add_argument("--shadow", type=Path, default=DATA / "shadow.csv")
    v.add_argument("--out", type=Path, default=DATA / "resolved.csv")
    w = sub.add_parser("reasons", help="Hill's message (which of his steps moved) at each shadow disagreement")
    w.add_argument("--agent", default=None, help="the version of best whose shadow games (default: today's)")
    w.add_argument("--params", type=json.loads, default={},
                   help="best's parameters with which today's best plays as that version did")
    w.add_argument("--shadow", type=Path, default=DATA / "shadow.csv")
    w.add_argument("--out", type=Path, default=DATA / "reasons.csv")
    m = sub.add_parser("merge", help="put the rows of shadow runs' --out files into the shadow data")
    m.add_argument("parts", type=Path, nargs="+", help="shadow runs' --out files (each with its _games.csv)")
    m.add_argument("--out", type=Path, default=DATA / "shadow.csv")
    args = parser.parse_args(argv)
    if args.what == "resolve":
        run_resolve(args.params, args.out, args.shadow)
        return
    if args.what == "merge":
        merge_shadow(args.parts, args.out)
        return
    if args.checkout is None:
        parser.error(f"{args.what} needs --checkout (JSMinesweeper at the pinned commit)")
    with HillSolver(args.checkout.resolve(), args.node) as hill:
        if args.what == "probabilities":
            run_probabilities(hill, args.games, args.out)
        elif args.what == "shadow":
            run_shadow(hill, args.games, args.out, start=args.start)
        elif args.what == "reasons":
            run_reasons(hill, args.agent or today_agent(), args.params, args.out, args.shadow)
        else:
            run_paired(hill, args.chunks, args.out, LEVEL if args.rule == "safe" else f"{LEVEL}:opening")


if __name__ == "__main__":
    main()
