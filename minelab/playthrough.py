"""Golden playthroughs: every agent's moves, written out, so a change of play is a diff.

Like open_spiel's playthrough files: for every name in `list_agents()`, a few fixed
(level, seed) games played interactively (`agent.act(game)`, learning between games as
a learner does), every move with the board after it; then one short batch run
(`ml.play`) summarised by its win count and a digest of its records, so the batch
kernels are pinned too (`best` adds an expert batch, `EXTRA_BATCHES`). The files live
in `tests/playthroughs/<agent>.txt` and a test diffs them against what the code plays now.
`best` also has deep batches (`DEEP_BATCHES`: 22,000 games, outside the digest) that test
the golden file's reach: they may change only when the golden file changes too. Its
optional steps have a golden file of their own (`OPTION_BATCHES`, `<agent>.options.txt`).

    python -m minelab.playthrough --regenerate      # rewrite every file (also `make playthroughs`)
    python -m minelab.playthrough --check           # exit 1 and name the agents whose play changed
    python -m minelab.playthrough best              # print one agent's playthrough

When a file changes, the change of play is yours to mean: say so in the commit. The
digest of each file is also written to `minelab/agents/behaviour.json`, which ships with
the package: the sweep's result files record the digests of the agents a task used and
are recomputed when those differ (`minelab.sweep`), so a result computed by other code
is never served.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from .agents import list_agents, make_agent
from .agents.base import BEHAVIOUR_FILE, OPTIONS_SUFFIX, _behaviour_table
from .atomic import atomic_write
from .engine import Game, board_text
from .levels import Level
from .runner import play

MOVE_WORDS = ("reveal", "flag", "unflag")
# (level, game seed) of the interactive games; the agent's own seed is AGENT_SEED
GAMES = (("4x4x4", 0), ("8x8x10", 1), ("9x9x10:opening", 2), ("6x6x6:none", 3))
SMALL_GAMES = (("4x4x4", 0), ("4x4x3:none", 1), ("4x4x2:opening", 2))  # agents of small boards only
# exact optimal play: boards the exact solver (minelab.exact) handles in a moment
SMALL_BOARD_AGENTS = {"sa-greedy": SMALL_GAMES, "optimal": SMALL_GAMES, "gardea-krr": SMALL_GAMES,
                      "gardea-q": SMALL_GAMES}
BATCH = ("8x8x10", 200, 0)  # level, games, run seed of the batch summary
SMALL_BATCH = ("4x4x4", 200, 0)
# More batches for agents whose play on large boards the 8x8 batch does not pin: best's
# rules for positions that arise on expert boards (a change there must change the digest,
# or the sweep would serve results its earlier version computed).
EXTRA_BATCHES = {"best": (("16x30x99", 200, 0),)}
# Larger batches, outside the digest, that test the golden file's reach: a change of play
# they see must change the golden file too (`deep_check`), or the digest would stay the
# same over play that differs. Kept in tests/playthroughs/<agent>.deep.txt with the digest
# of the golden file they were written beside. best's rarer rules (an endgame search that
# runs out of budget, say) meet a few games in 10^4, which 400 games mostly miss.
DEEP_BATCHES = {"best": (("8x8x10", 20_000, 1), ("16x30x99", 2_000, 1))}
# Batches of an agent's optional steps (`Agent.option_fields`: best's settings whose other
# values run code its default play never does), each with the parameters that switch
# them on. They make a second golden file, tests/playthroughs/<agent>.options.txt, whose
# digest ("<agent>+options" in behaviour.json) stamps every result of the agent played
# with an option on (`agents.pinned_names`): a change of an option's play makes those
# results stale although the default play, and its digest, stayed the same. Each field
# of option_fields is set away from its default in at least one batch (a test checks),
# and the options the studies judge are here as they play them.
_HILL_STEPS = {"isolated_edges": True, "chain_fifty_fifty": True, "sure_mines": True}
_ENDGAME_1024 = {"endgame_layouts": 1024, "endgame_budget": 8_000_000}
_CHAINS = {"chain_fifty_fifty": True, "chain_join_cells": 8}
OPTION_LEVELS = (("16x30x99", 300, 0), ("8x8x10", 200, 0))
OPTION_BATCHES = {"best": (
    # steps turned off (the ablations) or undone (the changes the catalogue pointed to)
    {"endgame_layouts": 0}, {"max_candidates": 1}, {"long_term_risk": 0.0},
    {"guess_rule": "blend", "margin": 0.05, "progress_weight": 0.1, "long_term_risk": 0.0},
    {"progress_weight": 0.1, "long_term_risk": 0.0}, {"tie_order": "frontier"}, {"tie_order": "corners"},
    {"fifty_fifty": False}, {"wide_fifty_fifty": False}, {"dominance": False}, {"pseudo_fifty_fifty": False},
    # other guess rules and settings
    {"guess_rule": "blend", "margin": 0.05, "progress_weight": 0.1}, {"guess_rule": "pseq", "margin": 0.01},
    {"guess_rule": "two-step"}, {"max_candidates": 24}, {"margin": 0.15}, {"progress_weight": 0.1},
    {"float_cut": 1.0}, {"memo_revealed": 0},
    # optional steps, alone and together
    _ENDGAME_1024, {"endgame_layouts": 4096, "endgame_budget": 32_000_000}, {**_ENDGAME_1024, "endgame_prune": True},
    {"isolated_edges": True}, {"chain_fifty_fifty": True}, {"sure_mines": True}, _HILL_STEPS,
    {**_HILL_STEPS, **_ENDGAME_1024}, _CHAINS, {**_CHAINS, "chain_shared_cell": True},
    {"dead_by_numbers": True}, {"safest_next": True}, {"dead_by_numbers": True, "safest_next": True},
)}
# Agents tied to one board size (bilir2023's learners: their states are whole 5x5 boards),
# with the parameters their playthrough uses: a short random phase, then a constant
# epsilon, so the files pin the greedy choices and the updates, not only random play.
RL_GAMES = (("5x5x5:none", 0), ("5x5x5:none", 1), ("5x5x5", 2), ("5x5x5:opening", 3))
RL_BATCH = ("5x5x5:none", 200, 0)
_RL_EXPLORE = {"random_games": 20, "epsilon": 0.1}
ONE_SIZE_AGENTS = {"q-learning": _RL_EXPLORE, "sarsa": _RL_EXPLORE, "linear-q": _RL_EXPLORE, "mcts": {}}
# Tree searches play with few simulations here (their default, the paper's 10,000 per
# move, would make the files slow to check); the search itself is the same.
SEARCH_AGENTS = {"uct": {"simulations": 100}, "oh": {"simulations": 100}}
# Agents trained before they play (minelab.agents.gardea): the training their files and the
# contract tests use, small enough to take a second. The classifiers' local features play
# any board; the whole-board models are trained on 4x4 and play 4x4 boards only.
TRAINED_AGENTS = {
    "gardea-logreg": {"train_level": "8x8x10", "train_size": 2_000},
    "gardea-svm": {"train_level": "8x8x10", "train_size": 2_000},
    "gardea-krr": {"train_level": "4x4x3", "train_size": 300},
    "gardea-q": {"train_level": "4x4x3", "train_size": 2_000},
}
AGENT_SEED = 7
TRAINED_GAME_SEED = 5


def agent_params(name: str) -> dict:
    """The parameters an agent plays its golden playthrough (and the contract tests) with."""
    return {**ONE_SIZE_AGENTS.get(name, {}), **SEARCH_AGENTS.get(name, {}), **TRAINED_AGENTS.get(name, {})}


def default_dir() -> Path:
    """tests/playthroughs of the checkout this module lives in (`--dir` picks another)."""
    return Path(__file__).resolve().parent.parent / "tests" / "playthroughs"


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _game_lines(agent, level: str, seed: int) -> list[str]:
    """One interactive game: each decision's moves, each followed by the board.

    The moves are replayed afterwards on the game's own layout (`Game.from_mines`), so
    the board after every move is shown even when one decision makes several (and
    whatever the first-click rule did when dealing)."""
    game = Game(level, seed=seed)
    decisions = []
    while not game.over:
        moves = agent.act(game)
        if not moves:
            raise RuntimeError(f"{agent.name} made no move on an ongoing game ({level}, seed {seed})")
        decisions.append(moves)
    agent.game_over(game)
    shadow = Game.from_mines(game.mines_after_game(), flood=game.flood)
    lines = [f"== game: level {Level.parse(level)}, seed {seed} =="]
    for d, moves in enumerate(decisions, 1):
        for move in moves:
            got = shadow.apply(move)
            what = "a mine" if got < 0 else f"{got} cell(s) revealed" if move.kind == 0 else "ok"
            lines.append(f"decision {d}: {MOVE_WORDS[move.kind]} ({move.row}, {move.col}) -> {what}")
            lines.append(_indent(board_text(shadow.view)))
    if not np.array_equal(game.view, shadow.view):
        raise RuntimeError(f"{agent.name}: the moves it reported do not rebuild the board it played")
    lines.append(f"result: {'won' if game.won else 'lost'} after {len(game.moves)} moves")
    return lines


def playthrough(name: str) -> str:
    """The golden playthrough text of agent `name` (deterministic: fixed seeds).

        >>> print(playthrough("oracle").splitlines()[0])
        # minelab golden playthrough: oracle
    """
    params = agent_params(name)
    agent = make_agent(name, seed=AGENT_SEED, **params)
    games = RL_GAMES if name in ONE_SIZE_AGENTS else SMALL_BOARD_AGENTS.get(name, GAMES)
    lines = [f"# minelab golden playthrough: {name}",
             "# regenerate with: python -m minelab.playthrough --regenerate  (a diff here is a change of play)",
             f"agent: {name} {json.dumps(agent.params(), sort_keys=True, default=str)}, agent seed {AGENT_SEED}",
             "boards: '#' covered, 'F' flag, '*' mine (after a loss), '.' zero, digits", ""]
    for level, seed in games:
        lines += _game_lines(agent, level, seed)
        lines.append("")
    level, n, seed = RL_BATCH if name in ONE_SIZE_AGENTS else SMALL_BATCH if name in SMALL_BOARD_AGENTS else BATCH
    trained = make_agent(name, seed=AGENT_SEED, **params)
    lines += _batch_lines(trained, name, params, level, n, seed)
    if trained.learns:  # how the batch-trained learner plays afterwards
        lines += ["", "after the batch run, the same (trained) agent plays on:"]
        lines += _game_lines(trained, level, TRAINED_GAME_SEED)
    for level, n, seed in EXTRA_BATCHES.get(name, ()):
        lines += [""] + _batch_lines(make_agent(name, seed=AGENT_SEED, **params), name, params, level, n, seed)
    return "\n".join(lines) + "\n"


def options_path(name: str, directory: Path | None = None) -> Path:
    """The file of an agent's option batches (OPTION_BATCHES)."""
    return (Path(directory) if directory else default_dir()) / f"{name}.options.txt"


def options_playthrough(name: str) -> str:
    """The text of an agent's option batches: each set of OPTION_BATCHES[name] played on
    OPTION_LEVELS, summarised like the golden file's batch (wins and a records digest)."""
    lines = [f"# minelab option batches: {name} (its optional steps; digest {name}{OPTIONS_SUFFIX} in behaviour.json)",
             "# regenerate with: python -m minelab.playthrough --regenerate  (a diff here is a change of play)", ""]
    for options in OPTION_BATCHES[name]:
        params = {**agent_params(name), **options}
        for level, n, seed in OPTION_LEVELS:
            lines += _batch_lines(make_agent(name, seed=AGENT_SEED, **params), name, params, level, n, seed) + [""]
    return "\n".join(lines)


def deep_path(name: str, directory: Path | None = None) -> Path:
    """The file of an agent's deep batches (DEEP_BATCHES)."""
    return (Path(directory) if directory else default_dir()) / f"{name}.deep.txt"


def deep_batches(name: str, golden: str) -> str:
    """The text of an agent's deep batches, headed by the digest of its golden file `golden`."""
    params = agent_params(name)
    lines = [f"# minelab deep batches: {name} (outside its digest; written beside its golden file's)",
             f"golden digest {golden}", ""]
    for level, n, seed in DEEP_BATCHES[name]:
        lines += _batch_lines(make_agent(name, seed=AGENT_SEED, **params), name, params, level, n, seed) + [""]
    return "\n".join(lines)


def deep_check(name: str, golden: str, directory: Path | None = None) -> str | None:
    """None when the deep batches of `name` play as their file says; else what is wrong.
    `golden` is the digest of the golden file as it is now. Deep batches whose play changed
    while the golden digest did not are the failure this exists for: the sweep would
    serve results of the earlier play under the same digest."""
    path = deep_path(name, directory)
    if not path.exists():
        return f"no deep batches file for {name}: run `make playthroughs`"
    return _deep_problem(name, path.name, path.read_text(), deep_batches(name, golden), golden)


def _written_beside(deep_text: str, golden: str) -> bool:
    """Whether a deep batches text was written beside the golden file of digest `golden`."""
    return f"golden digest {golden}\n" in deep_text


def _deep_problem(name: str, file: str, old: str, now: str, golden: str) -> str | None:
    """What is wrong with the deep batches text `old` (in `file`) when the code plays `now`."""
    if old == now:
        return None
    if _written_beside(old, golden):
        return (f"{name} plays differently in its deep batches ({file}) while its golden playthrough "
                f"(digest {golden}) is the same: the sweep would serve results of the earlier play. Add to "
                f"EXTRA_BATCHES a batch that shows the change, then run `make playthroughs`.")
    return f"{file} was not written beside {name}'s golden file as it is now: run `make playthroughs`"


def _batch_lines(agent, name: str, params: dict, level: str, n: int, seed: int) -> list[str]:
    """A batch run (`ml.play`) summarised: its win count and a digest of its records."""
    df = play(agent, level, n, seed=seed, progress=False)
    kept = [c for c in df.columns if c not in ("fraction_revealed", "clicks_before_loss")]  # the integer records
    digest = hashlib.sha256(np.ascontiguousarray(df[kept].to_numpy(np.int64)).tobytes()).hexdigest()[:16]
    args = "".join(f", {k}={v!r}" for k, v in params.items())
    return [f"== batch: play(make_agent({name!r}, seed={AGENT_SEED}{args}), {level!r}, {n}, seed={seed}) ==",
            f"columns: {', '.join(kept)}",
            f"wins {int(df['won'].sum())} of {n}; moves {int(df['moves'].sum())}; records sha256 {digest}"]


def digest(text: str) -> str:
    """The 16-hex digest of a playthrough text, as behaviour.json keeps it."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def regenerate(directory: Path | None = None, names=None) -> dict[str, str]:
    """Write tests/playthroughs/<agent>.txt (and <agent>.deep.txt, <agent>.options.txt) and
    the digest table; return {agent: digest} (and {"<agent>+options": digest}). Only after
    a change of play you mean (`make playthroughs` runs it for every agent). Refused
    (ValueError, nothing written) when an agent's deep batches changed but its golden file
    did not (`deep_check`).

        regenerate(names=["best"])
    """
    directory = Path(directory) if directory else default_dir()
    names = list(names) if names else list_agents()
    table = dict(_behaviour_table())  # a copy: the cached table is shared
    texts = {name: playthrough(name) for name in names}
    deep = {name: deep_batches(name, digest(texts[name])) for name in names if name in DEEP_BATCHES}
    for name, text in deep.items():  # refused before anything is written
        path = deep_path(name, directory)
        old, golden = (path.read_text() if path.exists() else text), digest(texts[name])
        if old != text and _written_beside(old, golden):
            raise ValueError(_deep_problem(name, path.name, old, text, golden))
    options = {name: options_playthrough(name) for name in names if name in OPTION_BATCHES}
    for name, text in texts.items():
        if name in deep:
            atomic_write(deep_path(name, directory), lambda f, t=deep[name]: f.write(t))
        if name in options:
            atomic_write(options_path(name, directory), lambda f, t=options[name]: f.write(t))
            table[name + OPTIONS_SUFFIX] = digest(options[name])
        atomic_write(directory / f"{name}.txt", lambda f, t=text: f.write(t))
        table[name] = digest(text)
    pinned = set(list_agents()) | {name + OPTIONS_SUFFIX for name in OPTION_BATCHES}
    table = {k: table[k] for k in sorted(table) if k in pinned}
    atomic_write(BEHAVIOUR_FILE, lambda f: f.write(json.dumps(table, indent=1, sort_keys=True) + "\n"))
    _behaviour_table.cache_clear()
    return table


def changed(directory: Path | None = None, names=None) -> list[str]:
    """The agents whose play no longer matches their golden file (missing files count).

        changed(names=["csp", "hcsp"])   # [] when both play as their files say
    """
    directory = Path(directory) if directory else default_dir()
    out = []
    for name in names or list_agents():
        path = directory / f"{name}.txt"
        if not path.exists() or path.read_text() != (text := playthrough(name)):
            out.append(name)
        elif name in DEEP_BATCHES and deep_check(name, digest(text), directory):
            out.append(name)
        elif name in OPTION_BATCHES and options_changed(name, directory):
            out.append(name)
    return out


def options_changed(name: str, directory: Path | None = None) -> bool:
    """True when the agent's option batches no longer play as their file says (or the file,
    or its digest in behaviour.json, is missing or out of date)."""
    path = options_path(name, directory)
    if not path.exists():
        return True
    old = path.read_text()
    return old != options_playthrough(name) or _behaviour_table().get(name + OPTIONS_SUFFIX) != digest(old)


def main(argv=None) -> int:
    """`python -m minelab.playthrough [--regenerate | --check] [AGENT ...]`."""
    parser = argparse.ArgumentParser(prog="python -m minelab.playthrough", description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="*", help="agent names (default: every registered agent)")
    parser.add_argument("--regenerate", action="store_true", help="rewrite the golden files and behaviour.json")
    parser.add_argument("--check", action="store_true", help="exit 1 if any agent's play differs from its file")
    parser.add_argument("--dir", type=Path, default=None, help="directory of the files (default tests/playthroughs)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.agents) - set(list_agents()))
    if unknown:
        parser.error(f"unknown agent(s) {', '.join(unknown)}; registered: {', '.join(list_agents())}")
    if args.regenerate:
        table = regenerate(args.dir, args.agents)
        for name in args.agents or list_agents():
            print(f"{name:12s} {table[name]}")
        return 0
    if args.check:
        bad = changed(args.dir, args.agents)
        for name in bad:
            print(f"{name}: play differs from its golden playthrough", file=sys.stderr)
        return 1 if bad else 0
    for name in args.agents or list_agents():
        sys.stdout.write(playthrough(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
