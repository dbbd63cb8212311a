"""The runner owns loops, seeds and records: play(agent, level, n_games, seed).

One row per game in a tidy DataFrame. A run draws two independent streams from its
seed (boards, agent choices: see engine.run_streams). Games run in chunks through the
agent's numba kernel so a tqdm bar can follow long runs; the streams carry on from
chunk to chunk, so the chunk size never changes a number. Learning agents keep
learning across the games of a run (and across runs: the learning lives in the agent).
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from . import provenance
from .agents import Agent, make_agent, pinned_names
from .engine import N_RECORD, RECORD_FIELDS, Game, new_game_state, run_streams
from .levels import Level
from .paths import golden_digests
from .stats import win_rate

MAX_GAMES = 10**10


def play(agent: "Agent | str", level: "Level | str", n_games: int, seed: int = 0, *,
         flood: bool = True, progress: bool | None = None, chunk: int = 20_000) -> pd.DataFrame:
    """Play n_games and return one row per game.

        >>> import minelab as ml
        >>> df = ml.play(ml.make_agent("hcsp"), "9x9x10", n_games=1000, seed=0)
        >>> len(df), df["won"].dtype
        (1000, dtype('bool'))

    `agent`: an Agent or a registered name; `level`: a Level or a string ("9x9x10",
    "expert:opening"); `seed`: the run's root seed (boards and the agent's choices draw
    from two streams of it, so every agent played with one seed meets the same boards).

    Columns: game, won, moves, clicks, safe_clicks, revealed, flag_moves,
    fraction_revealed, clicks_before_loss (safe clicks made before the losing click;
    <NA> for a won game), then the agent's own `extra_fields` (e.g. a learner's table
    size after each game). df.attrs holds agent, level, seed, seconds (playing only) and
    compile_seconds (numba compiling or loading the agent's kernels first; ~0 once warm).
    `progress`: None shows a bar only for runs over a few seconds' worth of games.
    """
    if isinstance(agent, str):
        agent = make_agent(agent)
    if not isinstance(agent, Agent):
        raise ValueError(f"agent must be an Agent or a registered name, got {agent!r}")
    level = Level.parse(level)
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or not 1 <= n_games <= MAX_GAMES:
        raise ValueError(f"n_games must be an integer in [1, {MAX_GAMES}], got {n_games!r}")
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}")
    n_games = int(n_games)
    _note(agent)
    deal_rng, agent_rng = run_streams(seed)
    agent.rng = agent_rng
    gs = new_game_state(level, flood)
    out = np.zeros((n_games, N_RECORD + len(agent.extra_fields)), np.int64)
    show = progress if progress is not None else n_games > 20 * chunk
    # A zero-game batch compiles the agent's kernels (or loads them from numba's cache)
    # before the clock starts: games/s never counts compilation; it is reported apart.
    start = time.perf_counter()
    agent.play_batch(gs, 0, deal_rng, out[:0])
    compile_seconds = time.perf_counter() - start
    start = time.perf_counter()
    with tqdm(total=n_games, disable=not show, desc=f"{agent.name} {level}", unit="game") as bar:
        for lo in range(0, n_games, chunk):
            hi = min(n_games, lo + chunk)
            agent.play_batch(gs, hi - lo, deal_rng, out[lo:hi])
            bar.update(hi - lo)
    seconds = time.perf_counter() - start
    return _records_frame(out, level, agent, seed, seconds, compile_seconds)


def game_of_run(agent: "Agent | str", level: "Level | str", seed: int, game: int, *, flood: bool = True,
                chunk: int = 20_000) -> "tuple[Game, Agent]":
    """Game number `game` of the run `ml.play(agent, level, n, seed)` (any n > game), before
    its first move: (the game, dealt from the run's board stream, and the agent as it was
    at that game). Games 0..game-1 are played first in batch on the run's two streams, so
    a learner has learnt from them and both streams stand where the run had them; then

        game, agent = ml.runner.game_of_run("hcsp", "9x9x10", seed=0, game=4711)
        agent.play_game(game)     # the same moves as game 4,711 of ml.play("hcsp", "9x9x10", n, seed=0)

    The agent (an Agent or a name) is used as given: pass a fresh one to replay a run
    that began with a fresh one. Boards and moves equal the run's because batch and
    interactive play make the same moves from the same streams (the agent contract).
    """
    if isinstance(agent, str):
        agent = make_agent(agent)
    if not isinstance(agent, Agent):
        raise ValueError(f"agent must be an Agent or a registered name, got {agent!r}")
    level = Level.parse(level)
    if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or not 0 <= game < MAX_GAMES:
        raise ValueError(f"game must be an integer in [0, {MAX_GAMES - 1}] (the game's index in the run), got {game!r}")
    deal_rng, agent_rng = run_streams(seed)
    agent.rng = agent_rng
    gs = new_game_state(level, flood)
    out = np.zeros((min(int(game), chunk), N_RECORD + len(agent.extra_fields)), np.int64)
    for lo in range(0, int(game), chunk):
        n = min(int(game), lo + chunk) - lo
        agent.play_batch(gs, n, deal_rng, out[:n])
    return Game(level, seed=deal_rng, flood=flood), agent


def play_segments(agent: Agent, level: "Level | str", n_games: int, seed, segment: int, *,
                  position: dict | None = None, flood: bool = True):
    """The run `play(agent, level, n_games, seed)` in segments of `segment` games: yields
    (the segment's records, numbered as in the whole run; the run's position after it).
    The position ({"games", "deal", "agent"}: games played and both streams' states,
    JSON-able) given back as `position`, with the agent as it was there (e.g. saved and
    loaded), goes on with the next game: the records are those of the uninterrupted run,
    since the streams carry on across segments as across play's chunks."""
    level = Level.parse(level)
    _note(agent)
    deal_rng, agent_rng = run_streams(seed)
    done = 0
    if position is not None:
        done = int(position["games"])
        deal_rng.bit_generator.state = position["deal"]
        agent_rng.bit_generator.state = position["agent"]
    agent.rng = agent_rng
    gs = new_game_state(level, flood)
    width = N_RECORD + len(agent.extra_fields)
    agent.play_batch(gs, 0, deal_rng, np.zeros((0, width), np.int64))  # compile (or load) first
    while done < n_games:
        n = min(segment, n_games - done)
        out = np.zeros((n, width), np.int64)
        agent.play_batch(gs, n, deal_rng, out)
        df = _records_frame(out, level, agent, seed, 0.0, first=done)
        done += n
        yield df, {"games": done, "deal": deal_rng.bit_generator.state, "agent": agent_rng.bit_generator.state}


def _note(agent: Agent) -> None:
    """Numbers made by this agent carry its golden digests when published: its own, and
    its options playthrough's where its parameters switch on an optional step."""
    digests = golden_digests()
    provenance.note([f"{name}={digests[name]}" for name in pinned_names(agent.name, agent.params())
                     if name in digests])


def _records_frame(out: np.ndarray, level: Level, agent: Agent, seed, seconds: float,
                   compile_seconds: float = 0.0, first: int = 0) -> pd.DataFrame:
    df = pd.DataFrame(out, columns=list(RECORD_FIELDS) + list(agent.extra_fields))
    df.insert(0, "game", np.arange(first, first + len(df), dtype=np.int64))
    df["won"] = df["won"].astype(bool)
    df["fraction_revealed"] = df["revealed"] / level.safe_cells if level.safe_cells else 1.0
    df["clicks_before_loss"] = df["safe_clicks"].astype("Int64").where(~df["won"])
    df.attrs.update({"agent": agent.name, "agent_params": agent.params(), "level": str(level),
                     "seed": seed if isinstance(seed, int) else repr(seed), "seconds": seconds,
                     "compile_seconds": compile_seconds})
    return df


def summarize(df: pd.DataFrame) -> dict:
    """Win rate with its Wilson 95% interval and game count, plus games/s when timed
    (compilation excluded: `compile_seconds` says what it cost).

        >>> import minelab as ml
        >>> s = ml.summarize(ml.play("oracle", "8x8x10", 1000, seed=0))
        >>> s["win_rate"], s["games"]
        (1.0, 1000)
    """
    summary = win_rate(df["won"].to_numpy())
    seconds = df.attrs.get("seconds")
    if seconds:
        summary["seconds"] = seconds
        summary["games_per_second"] = summary["games"] / seconds
        summary["compile_seconds"] = df.attrs.get("compile_seconds", 0.0)
    return summary
