"""Task kinds shared by the papers and studies, and the helpers that build and read them.

Papers never import each other: what two of them need (playing an agent on a level in
paired chunks, training a learner then testing copies of it, a win-rate table) lives
here, once. Each kind is registered with the sweep (`minelab.sweep.task_kind`) and
so cached one file per task, checked against the code that computed it.

    "play"        one agent plays n_games on a level: the runner's one row per game
    "train_test"  one learner trained through a schedule of levels, then copies of it
                  tested on other levels (lordeiro2021's experiments; the leaderboard's
                  learners)
    "train_eval"  one learner trained on a level, its frozen greedy policy evaluated on
                  fresh boards every so many games (bilir2023's curves)

    tasks = play_tasks(["csp", "hcsp"], "9x9x10", 20_000, seed=0)   # paired chunks
    df = run_sweep(tasks)
    win_rates(df, ("agent", "level"))                                # Wilson 95% per agent
"""
from __future__ import annotations

import copy
import time

import numpy as np
import pandas as pd

from .agents import make_agent, pinned_names
from .agents.saved import load_agent, save_agent, saved_extra
from .levels import Level
from .runner import MAX_GAMES, play, play_segments
from .stats import wilson
from .sweep import derive_seed, task_checkpoint, task_kind

__all__ = ["play_task", "train_test_task", "train_eval_task", "play_tasks", "train_spec", "eval_spec",
           "win_rates", "check_games", "CHUNK", "CURVE_POINTS"]

CHUNK = 5_000  # games per play task in play_tasks: a big run is resumable chunk by chunk
CURVE_POINTS = 500  # a training stage is recorded as this many blocks of games
CHECKPOINT_SECONDS = 600.0  # a long training run keeps a checkpoint at most this often
TRAIN_SEGMENT = 50_000  # about this many training games between two looks at the clock


def check_games(name: str, value) -> int:
    """A game count: a positive integer (at most the runner's MAX_GAMES); ValueError naming `name` otherwise.

        >>> check_games("games", 1000)
        1000
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= MAX_GAMES:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


# ---------------------------------------------------------------------- "play"
_PLAY_FIELDS = {"kind", "seed", "module", "agent", "agent_params", "level", "n_games", "flood"}


def _check_agent(task: dict):
    """The task's agent, made from its params (cheap; catches unknown agents and params now)."""
    if type(task.get("agent")) is not str:
        raise ValueError(f"field 'agent' must be an agent name, got {task.get('agent')!r}")
    params = task.get("agent_params", {})
    if type(params) is not dict:
        raise ValueError(f"field 'agent_params' must be a dict, got {params!r}")
    try:
        return make_agent(task["agent"], **params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"field 'agent'/'agent_params': {exc}") from None


def _check_fields(task: dict, kind: str, allowed: set, required=()) -> None:
    """No field outside `allowed`, none of `required` missing; ValueError naming the field."""
    unknown = sorted(set(task) - allowed)
    if unknown:
        raise ValueError(f"field {unknown[0]!r} is not a {kind!r} param (allowed: {', '.join(sorted(allowed))})")
    for field in required:
        if field not in task:
            raise ValueError(f"missing field {field!r}")


def _check_level(task: dict) -> None:
    try:
        Level.parse(task["level"])
    except ValueError as exc:
        raise ValueError(f"field 'level': {exc}") from None


def _check_game_count(task: dict, field: str) -> None:
    n = task[field]
    if type(n) is not int or not 1 <= n <= MAX_GAMES:
        raise ValueError(f"field {field!r} must be an integer in [1, {MAX_GAMES}], got {n!r}")


def _check_play(task: dict) -> None:
    _check_fields(task, "play", _PLAY_FIELDS, ("agent", "level", "n_games"))
    _check_agent(task)
    _check_level(task)
    _check_game_count(task, "n_games")
    if type(task.get("flood", True)) is not bool:
        raise ValueError(f"field 'flood' must be true or false, got {task['flood']!r}")


def _task_agent(params: dict) -> list[str]:
    """The golden playthroughs the task's result rests on (`agents.pinned_names`)."""
    return pinned_names(params["agent"], params.get("agent_params", {}))


@task_kind("play", check=_check_play, agents=_task_agent)
def play_task(params: dict) -> pd.DataFrame:
    """runner.play for one agent on one level: one row per game (the runner's columns)."""
    agent = make_agent(params["agent"], **params.get("agent_params", {}))
    return play(agent, params["level"], params["n_games"], params["seed"],
                flood=params.get("flood", True), progress=False)


def play_tasks(agents, level: str, n_games: int, seed: int, chunk: int = CHUNK,
               agent_params: dict | None = None) -> list[dict]:
    """'play' tasks for `agents` on `level`, n_games each, split in chunks of `chunk` games.

    Chunk i's seed derives from (root seed, level, chunk size, i) only: every agent plays
    the same boards (paired comparisons), and a run of more games reuses the chunks of a
    smaller one. `agent_params`: {agent name: its parameters}.

        >>> len(play_tasks(["csp", "hcsp"], "9x9x10", 12_000, seed=0))   # 3 chunks x 2 agents
        6
    """
    n_games = check_games("n_games", n_games)
    sizes = [chunk] * (n_games // chunk) + ([n_games % chunk] if n_games % chunk else [])
    tasks = []
    for i, size in enumerate(sizes):
        s = derive_seed(seed, {"level": level, "n_games": size, "chunk": i})
        for agent in agents:
            task = {"kind": "play", "agent": agent, "level": level, "n_games": size, "seed": s}
            if agent_params and agent_params.get(agent):
                task["agent_params"] = dict(agent_params[agent])
            tasks.append(task)
    return tasks


def win_rates(df: pd.DataFrame, by=("agent", "level")) -> pd.DataFrame:
    """games, wins, win rate and Wilson 95% interval per group of one-row-per-game results.

        win_rates(run_sweep(play_tasks(["csp"], "9x9x10", 1000, seed=0)))
    """
    rows = []
    for key, part in df.groupby(list(by), sort=False, observed=True):
        wins, n = int(part["won"].sum()), len(part)
        lo, hi = wilson(wins, n)
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))), "games": n, "wins": wins,
                     "win_rate": wins / n, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows, columns=[*by, "games", "wins", "win_rate", "ci_low", "ci_high"])


# ---------------------------------------------------------------------- "train_test"
_TRAIN_FIELDS = {"kind", "module", "seed", "agent", "agent_params", "schedule", "tests", "table"}


def _check_stages(task: dict, field: str) -> None:
    stages = task.get(field, [])
    if type(stages) is not list or (field == "schedule" and not stages):
        raise ValueError(f"field {field!r} must be a list of [level, games] pairs"
                         + (" (at least one)" if field == "schedule" else ""))
    for stage in stages:
        if type(stage) is not list or len(stage) != 2 or type(stage[1]) is not int or not 1 <= stage[1] <= MAX_GAMES:
            raise ValueError(f"field {field!r}: each entry must be [level, positive games], got {stage!r}")
        try:
            Level.parse(stage[0])
        except ValueError as exc:
            raise ValueError(f"field {field!r}: {exc}") from None


def _check_train(task: dict) -> None:
    _check_fields(task, "train_test", _TRAIN_FIELDS)
    agent = _check_agent(task)
    if not agent.learns:
        raise ValueError(f"field 'agent': {task['agent']!r} does not learn; use a 'play' task")
    for field in ("schedule", "tests"):
        _check_stages(task, field)
    if type(task.get("table", False)) is not bool:
        raise ValueError(f"field 'table' must be true or false, got {task['table']!r}")
    if task.get("table", False) and not hasattr(agent, "table"):
        raise ValueError(f"field 'table': {task['agent']!r} has no table() to record")


@task_kind("train_test", check=_check_train, agents=_task_agent)
def train_test_task(params: dict) -> pd.DataFrame:
    """Train one learner through `schedule`, then test copies of it on `tests`.

    Each test plays its own copy of the trained agent, which keeps learning as it plays
    (as the bandit paper's code does). A stage is one run (`play_segments`, in segments
    of whole blocks); run by a sweep, a learner that can be saved is checkpointed between
    segments every CHECKPOINT_SECONDS, with the run's position and the block rows so far,
    and an interrupted task goes on from there to the same result. One long frame, column
    `part`:
      train  one row per block of games (CURVE_POINTS blocks per stage): stage, level,
             games, wins, moves, the agent's extra record fields (their value after the
             block's last game, e.g. a bandit's actions and perfect), games_end
      test   one row per test game: level, game, won, moves
      table  (if params["table"]) one row per action recorded: key, q, n
    """
    agent = make_agent(params["agent"], **params.get("agent_params", {}))
    stages, tests = params["schedule"], params.get("tests", [])
    seeds = np.random.SeedSequence(params["seed"]).spawn(len(stages) + len(tests))
    at = {"stage": 0, "position": None, "rows": []}  # where training stands: stage, run position, block rows
    checkpoint = task_checkpoint() if agent.learns else None
    if checkpoint is not None:
        agent, at = _resumed(checkpoint, agent, at, lambda e: {"stage": int(e["stage"]), "position": e["position"],
                                                               "rows": list(e["rows"])})
    saved_at = time.monotonic()
    while at["stage"] < len(stages):
        i = at["stage"]
        level, games = stages[i]
        size = max(1, games // CURVE_POINTS)  # a block; segments hold whole blocks
        segment = size * max(1, TRAIN_SEGMENT // size)
        for df, position in play_segments(agent, level, games, seeds[i], segment, position=at["position"]):
            at["rows"] += _blocks(df, size, agent.extra_fields)
            at["position"] = position
            if position["games"] == games:
                at = {"stage": i + 1, "position": None, "rows": at["rows"]}
            if checkpoint is not None and time.monotonic() - saved_at >= CHECKPOINT_SECONDS:
                checkpoint = _keep(checkpoint, agent, at)
                saved_at = time.monotonic()
    frames = [_stage_frames(at["rows"], stages, agent.extra_fields)] if stages else []
    for j, (level, games) in enumerate(tests):
        df = play(copy.deepcopy(agent), level, games, seeds[len(stages) + j], progress=False)
        frames.append(pd.DataFrame({"part": "test", "level": level, "game": df["game"], "won": df["won"],
                                    "moves": df["moves"]}))
    if params.get("table", False):
        t = agent.table()
        frames.append(pd.DataFrame({"part": "table", "key": t["key"], "q": t["q"], "n": t["n"]}))
    out = pd.concat(frames, ignore_index=True)
    out["part"] = out["part"].astype("category")
    out["level"] = out["level"].astype("category")
    return out


def _blocks(df: pd.DataFrame, size: int, extra: tuple[str, ...]) -> list[list[int]]:
    """The training records `df` (whole blocks of `size` games of a stage, numbered from
    the stage's first game) as a row per block: games, wins, moves, then each extra
    field's value after the block's last game."""
    block = df["game"].to_numpy() // size
    starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
    ends = np.r_[starts[1:], len(block)]
    sums = {c: np.add.reduceat(df[c].to_numpy(np.int64), starts) for c in ("won", "moves")}
    last = {f: df[f].to_numpy(np.int64)[ends - 1] for f in extra}
    return [[int(ends[k] - starts[k]), int(sums["won"][k]), int(sums["moves"][k]), *(int(last[f][k]) for f in extra)]
            for k in range(len(starts))]


def _stage_frames(rows: list, stages, extra: tuple[str, ...]) -> pd.DataFrame:
    """The train part of a train_test result from every stage's block rows (in order):
    stage, level, games, wins, moves, the extra fields, games_end over all stages."""
    out = pd.DataFrame(np.array(rows, np.int64).reshape(len(rows), 3 + len(extra)),
                       columns=["games", "wins", "moves", *extra])
    per_stage = [len(range(0, games, max(1, games // CURVE_POINTS))) for _, games in stages]
    stage = np.repeat(np.arange(len(stages), dtype=np.int64), per_stage)
    out["games_end"] = out["games"].cumsum()
    out.insert(0, "level", [stages[i][0] for i in stage])
    out.insert(0, "stage", stage)
    out.insert(0, "part", "train")
    return out


def train_spec(agent: str, agent_params: dict, schedule, tests=(), table=False, seed=0) -> dict:
    """A train_test task; its seed derives from the root `seed` and everything else.

        train_spec("greedy-mab", {}, [("8x8x10:none", 30_000)], [("16x16x40:none", 2_000)], seed=0)
    """
    task = {"kind": "train_test", "agent": agent, "agent_params": dict(agent_params),
            "schedule": [[str(lv), int(n)] for lv, n in schedule],
            "tests": [[str(lv), int(n)] for lv, n in tests], "table": bool(table)}
    return {**task, "seed": derive_seed(seed, task)}


# ---------------------------------------------------------------------- "train_eval"
_EVAL_FIELDS = {"kind", "module", "seed", "agent", "agent_params", "level", "games", "every", "eval_games",
                "eval_seed"}


def _check_eval(task: dict) -> None:
    _check_fields(task, "train_eval", _EVAL_FIELDS, ("agent", "level", "games", "every", "eval_games", "eval_seed"))
    agent = _check_agent(task)
    if agent.learns and not hasattr(agent, "frozen"):
        raise ValueError(f"field 'agent': {task['agent']!r} learns but has no frozen() policy to evaluate")
    _check_level(task)
    for field in ("games", "every", "eval_games"):
        _check_game_count(task, field)
    if task["games"] % task["every"]:
        raise ValueError(f"field 'games' ({task['games']}) must be a multiple of 'every' ({task['every']})")
    if type(task["eval_seed"]) is not int or task["eval_seed"] < 0:
        raise ValueError(f"field 'eval_seed' must be a non-negative integer, got {task['eval_seed']!r}")


def evaluation_seed(eval_seed: int, point: int) -> np.random.SeedSequence:
    """The boards (and the evaluated policy's own random choices) of evaluation point
    `point` (1 = after the first block of games): the same for every agent evaluated with
    `eval_seed` (paired comparisons), whatever the run's length."""
    return np.random.SeedSequence(eval_seed, spawn_key=(point,))


@task_kind("train_eval", check=_check_eval, agents=_task_agent)
def train_eval_task(params: dict) -> pd.DataFrame:
    """Train one learner on `level` for `games` games; after every `every` games, play
    its frozen greedy policy (`agent.frozen()`: no exploration, no learning) on
    `eval_games` fresh boards from `evaluation_seed(eval_seed, point)`. An agent that does
    not learn is only evaluated, at the same points (a baseline on the same boards).

    Training block i is dealt from spawn i of the task's seed, so a longer run repeats a
    shorter one's blocks, and the learner's values and training count are all a block
    hands the next: run by a sweep, a learner that can be saved (`agent.save`) is
    checkpointed after a point every CHECKPOINT_SECONDS (`sweep.task_checkpoint`), and an
    interrupted run goes on from there to the same result. One frame, column `part`:
      train  one row per block: games_end, block_games, wins, moves, and the agent's
             extra record fields after the block's last game (e.g. `states`)
      eval   one row per point: games_end, boards, wins
    """
    agent = make_agent(params["agent"], **params.get("agent_params", {}))
    level, every, n_eval = params["level"], params["every"], params["eval_games"]
    points = params["games"] // every
    train_rows, eval_rows, first = [], [], 1
    checkpoint = task_checkpoint() if agent.learns else None
    if checkpoint is not None:
        agent, (train_rows, eval_rows, first) = _resumed(
            checkpoint, agent, (train_rows, eval_rows, first),
            lambda e: (_rows(e["train_rows"]), _rows(e["eval_rows"]), int(e["point"]) + 1))
    saved_at = time.monotonic()
    for point in range(first, points + 1):
        if agent.learns:
            df = play(agent, level, every, np.random.SeedSequence(params["seed"], spawn_key=(point,)),
                      progress=False)
            row = {"games_end": point * every, "block_games": every, "wins": int(df["won"].sum()),
                   "moves": int(df["moves"].sum())}
            row.update({field: int(df[field].iloc[-1]) for field in agent.extra_fields})
            train_rows.append(row)
        policy = agent.frozen() if agent.learns else agent
        ev = play(policy, level, n_eval, evaluation_seed(params["eval_seed"], point), progress=False)
        eval_rows.append({"games_end": point * every, "boards": n_eval, "wins": int(ev["won"].sum())})
        if checkpoint is not None and point < points and time.monotonic() - saved_at >= CHECKPOINT_SECONDS:
            checkpoint = _keep(checkpoint, agent, {"point": point, "train_rows": _table(train_rows),
                                                   "eval_rows": _table(eval_rows)})
            saved_at = time.monotonic()
    frames = [pd.DataFrame(train_rows).assign(part="train")] if train_rows else []
    frames.append(pd.DataFrame(eval_rows).assign(part="eval"))
    out = pd.concat(frames, ignore_index=True)
    out["part"] = out["part"].astype("category")
    return out


def _keep(checkpoint, agent, facts: dict):
    """Write a training run's checkpoint: the learner, and `facts` (where the run stands,
    JSON) in the file's header; the checkpoint, or None when the learner cannot be saved
    (the run goes on without checkpoints)."""
    try:
        save_agent(agent, checkpoint.path, extra={"tag": checkpoint.tag, **facts})
    except ValueError:
        return None
    return checkpoint


def _resumed(checkpoint, agent, start, read):
    """(agent, where the run stands) from the run's checkpoint when there is one of this
    task (its tag), `read(facts)` giving where it stands; else (agent, start). A damaged or
    foreign file, or one of another agent, is ignored."""
    if not checkpoint.path.exists():
        return agent, start
    try:
        facts = saved_extra(checkpoint.path)
        if facts.get("tag") != checkpoint.tag:
            return agent, start
        resumed = load_agent(checkpoint.path)
        where = read(facts)
    except (ValueError, KeyError, TypeError):
        return agent, start
    if resumed.name != agent.name or resumed.params() != agent.params():
        return agent, start
    return resumed, where


def _table(rows: list[dict]) -> dict:
    """Rows of like dicts as {"columns", "values"}: a JSON header sorts an object's keys,
    a list keeps the columns' order."""
    columns = list(rows[0]) if rows else []
    return {"columns": columns, "values": [[r[c] for c in columns] for r in rows]}


def _rows(table: dict) -> list[dict]:
    return [dict(zip(table["columns"], values)) for values in table["values"]]


def eval_spec(agent: str, agent_params: dict, level: str, games: int, every: int, eval_games: int,
              seed: int = 0, eval_seed: int | None = None) -> dict:
    """A train_eval task. Its training boards derive from (seed, level, every) only, and its
    evaluation boards from eval_seed (default: derived from seed): every agent given the
    same seeds trains and is evaluated on the same boards.

        eval_spec("q-learning", {}, "5x5x5:none", 1_000_000, 100_000, 10_000, seed=0)
    """
    base = {"level": str(level), "every": int(every)}
    if eval_seed is None:
        eval_seed = derive_seed(seed, {**base, "evaluation": True})
    return {"kind": "train_eval", "agent": agent, "agent_params": dict(agent_params), "level": str(level),
            "games": int(games), "every": int(every), "eval_games": int(eval_games), "eval_seed": int(eval_seed),
            "seed": derive_seed(seed, base)}
