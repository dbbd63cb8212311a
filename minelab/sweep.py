"""The sweep and its result cache: many independent tasks, each cached as one parquet
file, run on any executor.

A *task* is a plain dict of JSON values that fully determines its result:

    {"kind": "play", "agent": "random", "level": "9x9x10", "n_games": 10_000, "seed": 3}

"kind" names a function registered with `@task_kind(name)`; "seed" (a non-negative
int) is its only source of randomness; an optional "module" ("minelab.papers.x")
names the module that registers the kind, so worker processes can import it. The
kinds shared by several papers ("play", "train_test") live in `minelab.tasks`.

    tasks = grid({"kind": "play", "n_games": 10_000}, seeds=2024,
                 agent=["random", "marginal"], level=["8x8x10", "9x9x10"])
    df = run_sweep(tasks)                       # computes what is missing, reuses the rest
    df = run_sweep(tasks, executor="serial")    # same numbers, bit for bit
    df = load_results(tasks)                    # read only (e.g. in a figure notebook)

Why one file per task: a finished task is saved the moment it finishes (by the worker
that ran it), so an interrupted or crashed sweep loses only the tasks in flight, and a
rerun computes exactly what is missing. Files are named by a hash of the task's params
(`task_key`), carry the params in their metadata, and are checked on every read, so a
stale, foreign, truncated or otherwise damaged file is never read as data.

Why a file computed by other code is never served: each file also records the *code
stamp* of its task (`code_stamp`): the kind's `revision` (bumped by hand when the task
function's own analysis changes) and, for every agent the task plays, the digest of
that agent's golden playthrough (`minelab/agents/behaviour.json`, rewritten by
`python -m minelab.playthrough --regenerate`, which the playthrough test forces on any
change of play). A file whose stamp differs from today's is recomputed
(`StaleResultWarning`), and `load_results` treats it as missing. Every file records
the minelab version that wrote it too (provenance only).

Why a forgotten revision bump is caught: `kind_code(name)` lists every module-level
definition of minelab (the agents' play aside: their golden playthroughs pin it) that the
kind's function reaches by name, each with a digest of its syntax tree.
`tests/test_task_kinds.py` compares it with a committed record and fails, naming the kind
and the changed definitions, until the change is recorded: with the revision bumped when
it changes what the kind returns, as it stands when it does not.

Why a long task can stop and go on: a task that runs for hours (a learner's training
run) may keep a checkpoint of where it is (`task_checkpoint()`: a file beside its result,
`<key>.checkpoint.npz`, tagged with the task's key and code stamp). A rerun of the
interrupted task, by any executor, goes on from it; the checkpoint is deleted once the
result is written, and one made by other code or for another task is never read. The
task decides what goes into it and must give the same result resumed as uninterrupted.

Why some results are committed: a paper-size run holds tasks of an hour or more each,
more than a machine may be kept for. `keep` copies the results that took at least
`min_seconds` from the cache into the project's data/kept (`paths.kept_root`), under the
same names; `run_sweep` and `load_results` serve a task missing from the cache from there,
checked exactly as a cached file is (a kept result made by other code is recomputed, and
`prune_kept` removes it). A task is computed only where neither holds today's result.

Why results are bitwise identical on every executor: a task's result depends only on
its params (the seed is one of them; workers share no state), and the frame handed
back is always the one read from the parquet file, whether the task ran just now, in
another process, on a dask cluster, or in last week's run.
"""
from __future__ import annotations

import concurrent.futures as cf
import contextvars
import copy
import functools
import hashlib
import importlib
import itertools
import json
import math
import multiprocessing
import os
import re
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from . import paths, provenance
from ._version import __version__
from .agents import behaviour_digests
from .agents.base import params_are_values
from .atomic import atomic_write
from .engine import new_deal_work
from .levels import Level

__all__ = [
    "task_kind", "list_task_kinds", "task_key", "result_path", "default_results_dir", "kept_path", "keep",
    "prune_kept",
    "validate_tasks", "run_sweep", "load_results", "task_rows", "grid", "derive_seed",
    "code_stamp", "kind_revisions", "kind_code", "task_checkpoint", "Checkpoint", "TaskError", "MissingResultsError",
    "CorruptResultWarning", "StaleResultWarning",
]

RESULTS_ENV = paths.RESULTS_ENV
# Bump when the file layout changes: files of another format are then recomputed.
FORMAT = "1"
_META_FORMAT = b"minelab.format"
_META_TASK = b"minelab.task"  # the task's canonical JSON: the proof of what the file holds
_META_KEY = b"minelab.key"
_META_INFO = b"minelab.info"  # provenance only (version, seconds, attrs); never checked
_META_CODE = b"minelab.code"  # the task's code stamp: a file computed by other code is recomputed

# Kind names become directory and file names, so keep them to portable characters.
_KIND_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class TaskError(RuntimeError):
    """A task function raised. The message names the task's index, key and params."""


class MissingResultsError(FileNotFoundError):
    """load_results found no valid file for some tasks (the message lists them)."""


class CorruptResultWarning(UserWarning):
    """A result file could not be read back as the task's result; it is recomputed."""


class StaleResultWarning(UserWarning):
    """A result file was computed by other code (another agent behaviour or task revision); it is recomputed."""


# --- the registry of task kinds -----------------------------------------------------

class _Kind(NamedTuple):
    fn: Callable[[dict], pd.DataFrame]
    check: Callable[[dict], None] | None
    agents: Callable[[dict], Iterable[str]] | None
    revision: int


_KINDS: dict[str, _Kind] = {}


def task_kind(name: str, *, check: Callable[[dict], None] | None = None,
              agents: Callable[[dict], Iterable[str]] | None = None, revision: int = 1):
    """Decorator: register `fn(params: dict) -> pandas.DataFrame` as task kind `name`.

    `check(params)`, optional, validates a task's params cheaply before a sweep starts
    (raise ValueError naming the field), so a typo in task 37 fails at once instead of
    after the first 36 tasks have run.

    `agents(params)` names the registered agents whose play the result depends on (None:
    every registered agent, the safe default), and `revision` numbers the task function's
    own logic: both go into the code stamp that every result file is checked against, so
    bump `revision` when the function's analysis changes what it returns.

    The function must depend on nothing but `params` (the same params must always give
    the same frame), and for process or dask executors it must live in a module that
    workers can import: `minelab` itself or the module named in the task's "module".
    Re-registering the same function (a reloaded module, a re-run notebook cell) replaces
    it; registering a different function under a taken name is an error.

        @task_kind("mine_counts", check=_check, agents=lambda p: [], revision=2)
        def mine_counts(params): ...
    """
    if not isinstance(name, str) or not _KIND_NAME.fullmatch(name):
        raise ValueError(f"task kind name must match {_KIND_NAME.pattern}, got {name!r}")
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
        raise ValueError(f"revision must be a positive integer, got {revision!r}")

    def register(fn):
        if name in _KINDS:
            old = _KINDS[name].fn
            if (old.__module__, old.__qualname__) != (fn.__module__, fn.__qualname__):
                raise ValueError(
                    f"task kind {name!r} is already registered by {old.__module__}.{old.__qualname__}"
                )
        _KINDS[name] = _Kind(fn, check, agents, revision)
        return fn

    return register


def list_task_kinds() -> list[str]:
    """The registered task kinds, sorted (`minelab.tasks` registers the shared ones).

        >>> import minelab
        >>> {"play", "train_test"} <= set(list_task_kinds())
        True
    """
    return sorted(_KINDS)


def kind_revisions() -> dict[str, int]:
    """{kind: revision} of every registered task kind: what a code stamp's "kind@revision"
    tokens are checked against (minelab.provenance)."""
    return {name: kind.revision for name, kind in _KINDS.items()}


# What kind_code follows: all of minelab but the agents, whose play their golden playthroughs
# pin; their saving and loading (a training task's learners go through it) is followed.
KIND_CODE_FOLLOWED = ("minelab", "minelab.agents.saved")
KIND_CODE_SKIPPED = ("minelab.agents",)


def kind_code(name: str) -> dict:
    """What a registered task kind computes with, besides its params and its agents:
    {"function": dotted path of its function, "revision": its revision, "parts": {dotted
    name: 12 hex digits of sha256 over its syntax tree, docstrings removed}} of the function
    and of every module-level function, class and constant of minelab (the agents aside,
    but for their saving and loading: `KIND_CODE_FOLLOWED`, `KIND_CODE_SKIPPED`) that it
    reaches by name (`provenance.closure`). A part that changes may change what the kind
    returns, and a cached or kept result is checked against the revision only:
    tests/test_task_kinds.py holds every kind to a record of this, so each change is a
    revision bump considered."""
    if name not in _KINDS:
        raise ValueError(f"task kind {name!r} is not registered (known: {', '.join(list_task_kinds())})")
    kind = _KINDS[name]
    path = f"{kind.fn.__module__}.{kind.fn.__qualname__}"
    parts = provenance.closure(path, followed=KIND_CODE_FOLLOWED, skipped=KIND_CODE_SKIPPED)
    if parts is None:
        raise ValueError(f"task kind {name!r}: {path} is not a module-level function of minelab")
    return {"function": path, "revision": kind.revision,
            "parts": {part: hashlib.sha256(dump.encode()).hexdigest()[:12] for part, dump in sorted(parts.items())}}


def _import_task_module(module) -> None:
    """Import the module a task names (it registers the task's kind)."""
    # Only minelab's own modules: a task file must not be a way to run arbitrary code.
    if not isinstance(module, str) or not module.startswith("minelab."):
        raise ValueError(f"'module' must be the name of a minelab module ('minelab.…'), got {module!r}")
    importlib.import_module(module)


def _lookup_kind(task: dict) -> _Kind:
    """The registered kind of the task, importing the task's module first."""
    if "module" in task:
        _import_task_module(task["module"])
    kind = task["kind"]
    if kind not in _KINDS:
        raise ValueError(
            f"unknown task kind {kind!r} in process {os.getpid()} (registered: "
            f"{', '.join(list_task_kinds()) or 'none'}). Kinds registered outside minelab (a "
            f"notebook, a test) exist only in that process: use executor='serial', or register "
            f"the kind in a minelab module and name it in the task's 'module' field."
        )
    return _KINDS[kind]


# --- keys and files -----------------------------------------------------------------

def _canonical(task: Mapping) -> str:
    """One JSON text per task: sorted keys, no spaces, ASCII, no NaN. The basis of keys."""
    return json.dumps(task, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def task_key(task: Mapping) -> str:
    """'<kind>-<16 hex>': the kind, then sha256 of the task's canonical JSON.

    Stable across runs, machines and Python versions (canonical JSON is), and
    independent of the dict's key order. Params are hashed as written: leaving out a
    default ({"flood": True}) gives another key than spelling it out.
    """
    kind = task.get("kind") if isinstance(task, Mapping) else None
    if not isinstance(kind, str) or not _KIND_NAME.fullmatch(kind):
        raise ValueError(f"a task needs a 'kind' matching {_KIND_NAME.pattern}, got {task!r}")
    digest = hashlib.sha256(_canonical(task).encode("ascii")).hexdigest()
    return f"{kind}-{digest[:16]}"


def default_results_dir() -> Path:
    """$MINELAB_RESULTS if set, else <project>/data/results (minelab.paths: the checkout
    you run from, or the current directory)."""
    return paths.results_root()


def _results_dir(results_dir) -> Path:
    # Absolute, so workers with another working directory write to the same place.
    return (Path(results_dir).expanduser() if results_dir is not None else default_results_dir()).resolve()


def result_path(task: Mapping, results_dir=None) -> Path:
    """Where the task's result lives: <results_dir>/<kind>/<task_key>.parquet.

        >>> result_path({"kind": "play", "agent": "csp", "level": "9x9x10", "n_games": 10, "seed": 1}, "/r").name
        'play-7c4fde2258d59b44.parquet'
    """
    return _results_dir(results_dir) / task["kind"] / f"{task_key(task)}.parquet"


def kept_path(task: Mapping, kept_dir=None) -> Path:
    """Where the task's kept result lives: <kept_dir>/<kind>/<task_key>.parquet, kept_dir
    defaulting to the project's data/kept (`paths.kept_root`)."""
    root = Path(kept_dir).expanduser() if kept_dir is not None else paths.kept_root()
    return root.resolve() / task["kind"] / f"{task_key(task)}.parquet"


def _read_kept(task: dict, stamp: bytes, kept_dir=None, warn: bool = True) -> pd.DataFrame | None:
    """The task's kept result if it is today's, else None (a kept file that is not: warned)."""
    path = kept_path(task, kept_dir)
    if not path.exists():
        return None
    frame, problem = _read_result(path, task, stamp)
    if frame is None and warn:
        warnings.warn(f"kept result {path} is {problem}; not served (minelab keep --prune removes it)",
                      StaleResultWarning if problem.startswith(STALE) else CorruptResultWarning, stacklevel=3)
    return frame


def _result_files(folder: Path) -> list[Path]:
    """The result files under folder/<kind>/, in name order (checkpoints are not results)."""
    return sorted(p for p in folder.glob("*/*.parquet") if p.is_file())


def _file_task(path: Path) -> tuple[dict | None, dict]:
    """(task, info) from a result file's metadata; (None, {}) when it is not one."""
    try:
        meta = pq.read_schema(path).metadata or {}
        if meta.get(_META_FORMAT) != FORMAT.encode():
            return None, {}
        return json.loads(meta[_META_TASK]), json.loads(meta.get(_META_INFO, b"{}"))
    except Exception:  # not a result file: nothing to keep
        return None, {}


def _today_stamp(task: dict) -> bytes | None:
    """The canonical code stamp today's code gives `task`; None for a task it cannot run."""
    try:
        return _canonical(code_stamp(task)).encode("ascii")
    except (ValueError, KeyError, TypeError, ImportError):
        return None


def keep(min_seconds: float = 600.0, results_dir=None, kept_dir=None) -> list[Path]:
    """Copy into the kept results (`kept_path`) every result in the cache that took at
    least `min_seconds` to compute and that today's code made (read back and checked
    like any served file). Returns the kept files written (those already kept with the
    same bytes are left alone)."""
    if isinstance(min_seconds, bool) or not isinstance(min_seconds, (int, float)) or not min_seconds >= 0:
        raise ValueError(f"min_seconds must be a number >= 0, got {min_seconds!r}")
    written = []
    for path in _result_files(_results_dir(results_dir)):
        task, info = _file_task(path)
        if task is None or float(info.get("seconds", 0.0)) < min_seconds:
            continue
        stamp = _today_stamp(task)
        if stamp is None:
            continue  # a kind no longer registered: nothing today's code made
        if _read_result(path, task, stamp)[0] is None:
            continue
        target = kept_path(task, kept_dir)
        data = path.read_bytes()
        if target.exists() and target.read_bytes() == data:
            continue
        atomic_write(target, lambda f: f.write(data), mode="wb")
        written.append(target)
    return written


def prune_kept(kept_dir=None) -> list[Path]:
    """Remove every kept result that today's code would not serve (made by other code,
    of a kind no longer registered, or damaged). Returns the files removed."""
    root = Path(kept_dir).expanduser() if kept_dir is not None else paths.kept_root()
    removed = []
    for path in _result_files(root.resolve()):
        if _served_problem(path):
            path.unlink()
            removed.append(path)
    return removed


def _served_problem(path: Path) -> str | None:
    """Why today's code would not serve the result file `path` (None: it would)."""
    task, _ = _file_task(path)
    stamp = None if task is None else _today_stamp(task)
    if stamp is None:
        return "not a result file of a task today's code can run"
    return _read_result(path, task, stamp)[1]


def code_stamp(task: Mapping) -> dict:
    """What a task's result depends on besides its params: its kind's `revision` and the
    golden-playthrough digest of every agent it plays (see the module docstring).

        code_stamp({"kind": "play", "agent": "csp", ...})
        # {"revision": 1, "agents": {"csp": "9a1b43fab9734e3b"}}
    """
    kind = _lookup_kind(dict(task))
    names = None if kind.agents is None else sorted(set(kind.agents(dict(task))))
    return {"revision": kind.revision, "agents": behaviour_digests(names)}


def _stamps(tasks: list[dict]) -> list[bytes]:
    """Each task's code stamp as the canonical JSON bytes its file must carry."""
    try:
        stamps = [code_stamp(t) for t in tasks]
    except ValueError as exc:
        raise ValueError(f"cannot check result files against their code: {exc}") from None
    # The results served are what a published table is made of: note their code for its stamp.
    provenance.note({f"{t['kind']}@{s['revision']}" for t, s in zip(tasks, stamps)}
                    | {f"{name}={digest}" for s in stamps for name, digest in s["agents"].items()})
    return [_canonical(s).encode("ascii") for s in stamps]


def _write_result(path: Path, task: dict, frame: pd.DataFrame, seconds: float) -> None:
    """Write atomically (minelab.atomic): the final name only ever names a complete file."""
    attrs, frame = frame.attrs, frame.copy(deep=False)
    # attrs (e.g. the runner's timing) vary between runs; keep them out of the data.
    frame.attrs = {}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    info = {"minelab_version": __version__, "seconds": seconds, "attrs": attrs}
    table = table.replace_schema_metadata({
        **(table.schema.metadata or {}),
        _META_FORMAT: FORMAT.encode(),
        _META_TASK: _canonical(task).encode("ascii"),
        _META_KEY: task_key(task).encode("ascii"),
        _META_INFO: json.dumps(info, default=str).encode(),
        _META_CODE: _canonical(code_stamp(task)).encode("ascii"),
    })
    # Page checksums let a read detect bit rot inside the data, not just a bad footer.
    atomic_write(path, lambda f: pq.write_table(table, f, write_page_checksum=True), mode="wb")


STALE = "computed by other code"  # the start of _read_result's reason for a stale file


def _read_result(path: Path, task: dict, stamp: bytes) -> tuple[pd.DataFrame | None, str | None]:
    """(frame, None) when `path` holds this task's complete result, computed by the code
    whose stamp is `stamp` (canonical JSON of `code_stamp(task)`), else (None, reason).

    Never raises for a bad file: a truncated or garbage file, a file of another format,
    one holding another task (a hash collision, a copied file) or one computed by other
    code are all just invalid.
    """
    try:
        table = pq.read_table(path, page_checksum_verification=True)
        meta = table.schema.metadata or {}
        if meta.get(_META_FORMAT) != FORMAT.encode():
            return None, f"not a minelab result file of format {FORMAT}"
        if meta.get(_META_TASK) != _canonical(task).encode("ascii"):
            return None, "its metadata names another task"
        if meta.get(_META_CODE) != stamp:
            return None, (f"{STALE} (stamp {(meta.get(_META_CODE) or b'none').decode('ascii', 'replace')}, "
                          f"now {stamp.decode('ascii')})")
        return table.to_pandas(), None
    except FileNotFoundError:
        return None, "missing"
    except Exception as exc:  # ArrowInvalid, OSError, ... : whatever it is, it is not data
        return None, f"unreadable ({type(exc).__name__}: {exc})"


# --- validation ---------------------------------------------------------------------

_JSON_SCALARS = (str, int, float, bool, type(None))


def _check_json(value, where: str) -> None:
    """Exact JSON types only, so the task hashes and reads back as exactly itself.

    Exact types on purpose: numpy scalars, tuples and non-str keys would change type in
    a JSON round trip (and np.int64 does not serialise at all).
    """
    if type(value) in _JSON_SCALARS:
        if type(value) is float and not math.isfinite(value):
            raise ValueError(f"field {where!r} is {value!r}; JSON has no NaN or infinity")
        return
    if type(value) is list:
        for i, item in enumerate(value):
            _check_json(item, f"{where}[{i}]")
        return
    if type(value) is dict:
        for k, item in value.items():
            if type(k) is not str:
                raise ValueError(f"field {where!r} has a non-string key {k!r}; JSON keys are strings")
            _check_json(item, f"{where}.{k}")
        return
    hint = " (use .item() or int()/float())" if isinstance(value, np.generic) else ""
    hint = " (use a list)" if isinstance(value, tuple) else hint
    raise ValueError(
        f"field {where!r} is {value!r} of type {type(value).__name__}, which is not a JSON value "
        f"(str, int, float, bool, None, list, dict){hint}"
    )


def _check_task_shape(task) -> None:
    """The checks that need no registry: dict, JSON values, kind, seed, module."""
    if type(task) is not dict:
        raise ValueError(f"a task must be a dict, got {type(task).__name__}")
    for field, value in task.items():
        if type(field) is not str:
            raise ValueError(f"field names must be strings, got {field!r}")
        _check_json(value, field)
    if "kind" not in task:
        raise ValueError("missing field 'kind' (the name of a registered task kind)")
    if type(task["kind"]) is not str or not _KIND_NAME.fullmatch(task["kind"]):
        raise ValueError(f"field 'kind' must be a name matching {_KIND_NAME.pattern}, got {task['kind']!r}")
    if "seed" not in task:
        raise ValueError("missing field 'seed' (a non-negative integer)")
    if type(task["seed"]) is not int or task["seed"] < 0:
        raise ValueError(f"field 'seed' must be a non-negative integer, got {task['seed']!r}")
    if "module" in task and (type(task["module"]) is not str or not task["module"].startswith("minelab.")):
        raise ValueError(f"field 'module' must name a minelab module ('minelab.…'), got {task['module']!r}")


def validate_tasks(tasks, *, registered: bool = True) -> list[str]:
    """Check every task before anything runs; return their keys (in order).

    ValueError names the task's index and the field. With registered=True the kind must
    be registered (after importing the task's "module") and pass the kind's own check.
    """
    if isinstance(tasks, (dict, str)) or not isinstance(tasks, Iterable):
        raise ValueError(f"tasks must be a list of dicts, got {type(tasks).__name__}")
    keys: list[str] = []
    seen: dict[str, int] = {}
    for i, task in enumerate(tasks):
        try:
            _check_task_shape(task)
            if registered:
                if "module" in task:
                    try:
                        _import_task_module(task["module"])
                    except ImportError as exc:
                        raise ValueError(f"field 'module': cannot import {task['module']!r}: {exc}") from exc
                if task["kind"] not in _KINDS:
                    raise ValueError(
                        f"field 'kind': unknown task kind {task['kind']!r} (registered: "
                        f"{', '.join(list_task_kinds()) or 'none'}; a kind defined in a minelab module "
                        f"needs that module in the task's 'module' field)"
                    )
                check = _KINDS[task["kind"]].check
                if check is not None:
                    check(task)
        except ValueError as exc:
            raise ValueError(f"task {i}: {exc}") from exc
        key = task_key(task)
        if key in seen:
            raise ValueError(f"task {i}: duplicate of task {seen[key]} (same params, same result file)")
        seen[key] = i
        keys.append(key)
    return keys


# --- running one task (in whatever process the executor picks) -----------------------

def _result_columns_clash(task: dict, frame: pd.DataFrame) -> None:
    """The output frame gets one column per task param: a result column may not take one's name."""
    clash = sorted(set(map(str, frame.columns)) & set(task))
    if clash:
        raise ValueError(f"the result frame has columns named like task params: {', '.join(clash)}")


class Checkpoint(NamedTuple):
    """Where the task running now may keep its checkpoint (`task_checkpoint`)."""

    path: Path  # <results_dir>/<kind>/<key>.checkpoint.npz, beside the result
    tag: str  # the task's key and code stamp: a checkpoint that does not carry it is not this task's


_CHECKPOINT: contextvars.ContextVar = contextvars.ContextVar("minelab_checkpoint", default=None)


def task_checkpoint() -> Checkpoint | None:
    """The checkpoint place of the task the sweep is running now, None outside a sweep.
    The task writes its file atomically with the tag inside and reads it back only when
    the tag matches; the sweep deletes it once the task's result is written."""
    return _CHECKPOINT.get()


def _execute(task: dict, results_dir: str) -> str:
    """Run one task and save its result; return the file's path. Runs in the worker.

    The kind is looked up here, by name, after importing the task's module: functions
    are never pickled, so any worker that can import minelab can run any task.
    """
    fn = _lookup_kind(task).fn
    path = result_path(task, results_dir)
    checkpoint = Checkpoint(path.with_name(f"{task_key(task)}.checkpoint.npz"),
                            f"{task_key(task)} {_canonical(code_stamp(task))}")
    start = time.perf_counter()
    token = _CHECKPOINT.set(checkpoint)
    try:
        # A copy: a task function that edits its params must not change the caller's task.
        frame = fn(copy.deepcopy(task))
    finally:
        _CHECKPOINT.reset(token)
    seconds = time.perf_counter() - start
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"task kind {task['kind']!r} returned {type(frame).__name__}, not a DataFrame")
    if any(type(c) is not str for c in frame.columns) or frame.columns.has_duplicates:
        raise ValueError("a task's result frame needs unique string column names")
    if any(name is not None for name in frame.index.names):
        # parquet stores columns; a named index carries data that would be dropped.
        raise ValueError("a task's result frame has a named index; move it to columns with reset_index()")
    _result_columns_clash(task, frame)
    _write_result(path, task, frame, seconds)
    checkpoint.path.unlink(missing_ok=True)
    return str(path)


# --- executors ----------------------------------------------------------------------

def _run_serial(todo, results_dir, on_done):
    for i, task in todo:
        try:
            _execute(task, results_dir)
        except Exception as exc:  # KeyboardInterrupt is not caught: it stops the sweep
            on_done(i, exc)
        else:
            on_done(i, None)


# A level string inside a task ("9x9x10", "16x30x99:no-guess"): the type of its rule's
# deal scratch is part of the game state's type (minelab.engine.new_deal_work), so it
# decides which kernels compile; safe and opening share one (no scratch).
_LEVEL_STRING = re.compile(r"^\d+x\d+x\d+(:.+)?$")


@functools.lru_cache(maxsize=256)
def _deal_kind(level: str) -> str:
    try:
        return "deal:" + type(new_deal_work(Level.parse(level))).__name__
    except (TypeError, ValueError):
        return level  # not a valid level: the task itself reports it when it runs, as without this key


def compile_key(task) -> str:
    """What decides the numba kernels a task compiles: the task with every number replaced
    by its type and every level string by the type of its deal scratch (board sizes,
    seeds and the safe / opening rules are values to the kernels, not types), without the
    agent's parameters when its family declares them values (`Agent.params_are_values`:
    best's variants compile one set of kernels). Tasks of one key compile the same kernels."""
    def shape(v):
        if isinstance(v, Mapping):
            return {k: shape(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [shape(x) for x in v]
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, (int, float, np.integer, np.floating)):
            return type(v).__name__
        if isinstance(v, str) and _LEVEL_STRING.match(v):
            return _deal_kind(v)
        return v
    if isinstance(task, Mapping) and isinstance(task.get("agent"), str) and params_are_values(task["agent"]):
        task = {k: v for k, v in task.items() if k != "agent_params"}
    return json.dumps(shape(task), sort_keys=True, default=str)


def compile_first(todo):
    """(first, rest): the first task of each `compile_key`, then the others, each in order."""
    seen, first, rest = set(), [], []
    for i, task in todo:
        key = compile_key(task)
        (rest if key in seen else first).append((i, task))
        seen.add(key)
    return first, rest


def _run_processes(todo, results_dir, on_done, max_workers):
    # Numba keeps what it compiled in the process that compiled it (the LLVM modules it
    # links into later callers): a worker that compiles many agents' kernels grows by
    # about a gigabyte for the largest, while one that loads the same kernels from the
    # on-disk cache stays small. So the first task of each compile key runs in a worker
    # that exits after it (its kernels reach the cache, its memory goes back), and the
    # other tasks run in long-lived workers that only load them. The order of tasks never
    # changes a result: each depends on its params only.
    first, rest = compile_first(todo)
    for batch, per_child in ((first, 1), (rest, None)):
        if batch:
            _run_pool(batch, results_dir, on_done, min(max_workers, len(batch)), per_child)


def _run_pool(todo, results_dir, on_done, max_workers, max_tasks_per_child):
    # spawn: workers start from a clean interpreter (no forked threads, locks or numba
    # state), and behave the same on Linux, macOS and Windows.
    pool = cf.ProcessPoolExecutor(max_workers=max_workers, mp_context=multiprocessing.get_context("spawn"),
                                  max_tasks_per_child=max_tasks_per_child)
    try:
        futures = {pool.submit(_execute, task, results_dir): i for i, task in todo}
        for future in cf.as_completed(futures):
            on_done(futures[future], future.exception())
    except BaseException:
        # Interrupted (or this process failed): cancel the tasks not yet handed to a
        # worker and return at once. Tasks already handed over (the running ones plus a
        # small queue) finish in the background and still write their files atomically,
        # so their work is kept; a script's exit waits for them. (Ctrl-C in a terminal
        # also interrupts the workers themselves, which then stop at once.)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _run_dask(todo, results_dir, on_done, client):
    from distributed import as_completed

    # pure=False plus a unique key: dask must not reuse an old in-memory result (the
    # file may since have been deleted or recompute=True asked for a fresh run).
    futures = {
        client.submit(_execute, task, results_dir, pure=False, key=f"{task_key(task)}-{uuid.uuid4().hex[:8]}"): i
        for i, task in todo
    }
    try:
        for future in as_completed(futures):
            try:
                future.result()  # a path string: cheap to fetch; raises the task's error
            except Exception as exc:  # includes CancelledError (e.g. a lost worker)
                on_done(futures[future], exc)
            else:
                on_done(futures[future], None)
    except BaseException:
        client.cancel(list(futures))
        raise


def _dask_client_type():
    try:
        from distributed import Client
    except ImportError:  # dask is optional: only needed when asked for
        return None
    return Client


# --- sweeps -------------------------------------------------------------------------

def _scalar(value):
    """A task param as a column value: nested values as canonical JSON strings."""
    return _canonical(value) if isinstance(value, (dict, list)) else value


def _with_params(frame: pd.DataFrame, task: dict) -> pd.DataFrame:
    """The task's params as constant columns (task order) before the result's columns."""
    _result_columns_clash(task, frame)
    n = len(frame)
    params = pd.DataFrame({name: [_scalar(value)] * n for name, value in task.items()}, index=frame.index)
    return pd.concat([params, frame], axis=1)


def task_rows(df: pd.DataFrame, task: Mapping) -> pd.DataFrame:
    """The rows of a `run_sweep` / `load_results` frame that came from `task` (its params
    are the frame's leading columns: nested ones as canonical JSON)."""
    mask = np.ones(len(df), bool)
    for name, value in task.items():
        if name not in df.columns:
            return df.iloc[0:0]
        mask &= (df[name] == _scalar(value)).to_numpy()
    return df[mask]


def _assemble(tasks: list[dict], frames: list[pd.DataFrame]) -> pd.DataFrame:
    if not tasks:
        return pd.DataFrame()
    return pd.concat([_with_params(f, t) for t, f in zip(tasks, frames)], ignore_index=True)


def run_sweep(tasks, *, results_dir=None, executor="processes", max_workers=None,
              progress: bool = True, recompute: bool = False) -> pd.DataFrame:
    """Run every task whose result is not saved yet; return all results as one frame.

    `executor`:
      * "processes": a ProcessPoolExecutor of `max_workers` (default min(2, cpu count))
        spawned workers; a script must call run_sweep under `if __name__ == "__main__":`
        since spawn re-imports the script in each worker. The first task of each
        `compile_key` runs in a worker that exits after it, so the memory of compiling
        its kernels is given back (see `_run_processes`);
      * "serial": in this process, the only one that sees kinds registered in a
        notebook or a test;
      * a dask.distributed Client, or a scheduler address ("tcp://host:8786") for which
        a Client is opened here and closed afterwards.
    Workers write the files: `results_dir` must be on a filesystem they share with us.

    Saved results are reused unless `recompute`: the cache's, else the kept ones (`keep`);
    a file that does not read back as its task's result is reported (CorruptResultWarning)
    and recomputed. If tasks fail, the others still run and are saved, then TaskError
    names the first failure.

    Returns the tasks' result frames in task order, each preceded by the task's params as
    columns (dict/list params as JSON strings), with a fresh RangeIndex. The numbers
    depend only on the tasks: the same on every executor and worker count.
    """
    tasks = list(tasks) if not isinstance(tasks, (dict, str)) else tasks
    keys = validate_tasks(tasks)
    root = _results_dir(results_dir)
    client_type = _dask_client_type()
    is_address = isinstance(executor, str) and "://" in executor
    is_client = client_type is not None and isinstance(executor, client_type)
    if not (executor in ("processes", "serial") or is_address or is_client):
        raise ValueError(
            f"executor must be 'processes', 'serial', a dask.distributed Client or a scheduler "
            f"address like 'tcp://host:8786', got {executor!r}"
        )
    if max_workers is not None:
        if executor != "processes":
            raise ValueError("max_workers applies to executor='processes' only (a dask cluster sets its own)")
        if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
            raise ValueError(f"max_workers must be a positive integer, got {max_workers!r}")
    if is_address and client_type is None:
        raise ValueError("a dask scheduler address needs dask.distributed: pip install 'minelab[dask]'")

    frames: list[pd.DataFrame | None] = [None] * len(tasks)
    stamps = _stamps(tasks)
    if not recompute:
        for i, task in enumerate(tasks):
            path = result_path(task, root)
            if not path.exists():
                continue
            frame, problem = _read_result(path, task, stamps[i])
            if frame is None:
                stale = problem.startswith(STALE)
                warnings.warn(f"result file {path} of task {i} is {problem}; recomputing it",
                              StaleResultWarning if stale else CorruptResultWarning, stacklevel=2)
            frames[i] = frame
        for i, task in enumerate(tasks):
            if frames[i] is None:
                frames[i] = _read_kept(task, stamps[i])
    todo = [(i, tasks[i]) for i in range(len(tasks)) if frames[i] is None]

    failures: list[tuple[int, BaseException]] = []
    bar = tqdm(total=len(tasks), initial=len(tasks) - len(todo), disable=not progress,
               desc="sweep", unit="task")

    def on_done(i: int, exc: BaseException | None) -> None:
        # Runs in this process as each task ends. Read the file back now (not the
        # worker's frame) so fresh and reused results are the very same bytes and dtypes.
        if exc is not None:
            failures.append((i, exc))
        else:
            path = result_path(tasks[i], root)
            frame, problem = _read_result(path, tasks[i], stamps[i])
            if frame is None:
                failures.append((i, RuntimeError(
                    f"the worker saved {path} but it reads back as {problem} here "
                    f"(is results_dir on a filesystem the workers share?)")))
            frames[i] = frame
        bar.update(1)

    try:
        if todo:
            if executor == "serial":
                _run_serial(todo, str(root), on_done)
            elif executor == "processes":
                workers = max_workers or min(2, os.cpu_count() or 1)
                _run_processes(todo, str(root), on_done, min(workers, len(todo)))
            elif is_client:
                _run_dask(todo, str(root), on_done, executor)
            else:
                client = client_type(executor)
                try:
                    _run_dask(todo, str(root), on_done, client)
                finally:
                    client.close()
    finally:
        bar.close()

    if failures:
        failures.sort(key=lambda f: f[0])
        i, exc = failures[0]
        more = f" ({len(failures) - 1} more task(s) failed too)" if len(failures) > 1 else ""
        raise TaskError(
            f"task {i} ({keys[i]}) failed: {type(exc).__name__}: {exc}{more}\n"
            f"  params: {_canonical(tasks[i])}\n"
            f"  the other {len(tasks) - len(failures)} of {len(tasks)} tasks are saved; "
            f"a rerun computes only the failed ones"
        ) from exc
    return _assemble(tasks, frames)


def load_results(tasks, results_dir=None) -> pd.DataFrame:
    """The saved results of `tasks` (the cache's, else the kept ones), as run_sweep
    returns them, without computing anything.

    Raises MissingResultsError listing every task with no valid file (damaged files, and
    files computed by other code, are also warned about). The kinds must be importable
    (minelab's own, or the module a task names): each file is checked against its
    task's code stamp.
    """
    tasks = list(tasks) if not isinstance(tasks, (dict, str)) else tasks
    keys = validate_tasks(tasks, registered=False)
    root = _results_dir(results_dir)
    stamps = _stamps(tasks)
    frames, missing = [], []
    for i, task in enumerate(tasks):
        path = result_path(task, root)
        frame, problem = _read_result(path, task, stamps[i])
        if frame is None:
            frame = _read_kept(task, stamps[i])
        if frame is None:
            if problem != "missing":
                warnings.warn(f"result file {path} of task {i} is {problem}",
                              StaleResultWarning if problem.startswith(STALE) else CorruptResultWarning,
                              stacklevel=2)
            missing.append(f"  task {i} ({keys[i]}): {_canonical(task)}")
        frames.append(frame)
    if missing:
        shown = "\n".join(missing[:20]) + (f"\n  … and {len(missing) - 20} more" if len(missing) > 20 else "")
        raise MissingResultsError(
            f"{len(missing)} of {len(tasks)} tasks have no valid result in {root} "
            f"(run them with run_sweep):\n{shown}"
        )
    return _assemble(tasks, frames)


# --- grids and seeds ----------------------------------------------------------------

def derive_seed(root: int, params: Mapping) -> int:
    """A task's seed from a root seed and its params (any "seed" among them is ignored).

    seed = SeedSequence(entropy=root, spawn_key=<the 8 32-bit words of sha256 of the
    params' canonical JSON>), first 64-bit word of its state, halved to fit int64.
    It depends on the params' values only (not on a grid's shape or a task's position),
    so growing a grid never changes the seeds of the tasks it had. The long spawn_key
    keeps these streams apart from root's own and from root.spawn() children.
    """
    if isinstance(root, bool) or not isinstance(root, int) or root < 0:
        raise ValueError(f"root seed must be a non-negative integer, got {root!r}")
    body = {k: v for k, v in params.items() if k != "seed"}
    digest = hashlib.sha256(_canonical(body).encode("ascii")).digest()
    words = tuple(int(w) for w in np.frombuffer(digest, dtype="<u4"))
    state = np.random.SeedSequence(entropy=root, spawn_key=words).generate_state(1, np.uint64)
    return int(state[0]) >> 1


def _plain(value):
    """numpy scalars (np.linspace, np.arange) as the Python values a task needs."""
    return value.item() if isinstance(value, np.generic) else value


def grid(base: dict, seeds, *, seed_by: Iterable[str] | None = None, **axes) -> list[dict]:
    """The cartesian product of `axes` over `base`, one task per combination.

        grid({"kind": "play", "n_games": 1000}, seeds=7,
             agent=["random", "marginal"], level=["8x8x10", "16x16x40"])

    Order: the first axis varies slowest (itertools.product). Keys: base, then the axes,
    then "seed".

    `seeds`:
      * an int: a root seed. Each task's seed is derive_seed(root, params): a function
        of the task's own params, so adding a value to an axis (or a new axis value in
        a later sweep) leaves every existing task's seed, key and saved file unchanged.
        `seed_by` (param names) makes the seed depend on those params only: tasks that
        agree on them share a seed, e.g. seed_by=["level", "n_games"] plays every agent
        on the very same boards (common random numbers: paired comparisons).
      * a list of ints: replicates. Every combination runs once per seed, seed used as
        given (the innermost axis), so equal seeds mean equal boards across agents.
    """
    if type(base) is not dict:
        raise ValueError(f"base must be a dict of task params, got {type(base).__name__}")
    if "seed" in base or "seed" in axes:
        raise ValueError("grid sets 'seed' itself: pass seeds=<root int> or seeds=[replicate seeds]")
    axis_values: dict[str, list] = {}
    for name, values in axes.items():
        if name in base:
            raise ValueError(f"axis {name!r} is also in base; keep it in one place")
        if isinstance(values, (str, bytes, dict)) or not isinstance(values, Iterable):
            raise ValueError(f"axis {name!r} must be a list of values, got {values!r}")
        values = [_plain(v) for v in values]
        if not values:
            raise ValueError(f"axis {name!r} is empty")
        texts = [_canonical(v) if type(v) in (dict, list) else repr((type(v), v)) for v in values]
        if len(set(texts)) != len(texts):
            raise ValueError(f"axis {name!r} repeats a value: {values!r}")
        axis_values[name] = values

    combos = [{**base, **dict(zip(axis_values, combo))} for combo in itertools.product(*axis_values.values())]
    if isinstance(seeds, (bool, str, bytes, dict)) or not isinstance(seeds, (int, np.integer, Iterable)):
        raise ValueError(f"seeds must be a root seed (int) or a list of seeds, got {seeds!r}")
    if isinstance(seeds, (int, np.integer)):
        root = int(seeds)
        names = None if seed_by is None else list(seed_by)
        if names is not None:
            if isinstance(seed_by, str):
                raise ValueError("seed_by must be a list of param names, not a string")
            unknown = [n for n in names if n not in base and n not in axis_values]
            if unknown:
                raise ValueError(f"seed_by names params that are not in the grid: {', '.join(unknown)}")
        tasks = []
        for combo in combos:
            basis = combo if names is None else {n: combo[n] for n in names}
            tasks.append({**combo, "seed": derive_seed(root, basis)})
    else:
        if seed_by is not None:
            raise ValueError("seed_by applies to a root seed only; a list of seeds is used as given")
        seed_list = [_plain(s) for s in seeds]
        if not seed_list or any(type(s) is not int or s < 0 for s in seed_list):
            raise ValueError(f"seeds must be non-negative integers, got {seeds!r}")
        if len(set(seed_list)) != len(seed_list):
            raise ValueError(f"seeds repeats a value: {seed_list!r}")
        tasks = [{**combo, "seed": s} for combo in combos for s in seed_list]
    for i, task in enumerate(tasks):  # fail here, where the values were given, not in run_sweep
        try:
            _check_task_shape(task)
        except ValueError as exc:
            raise ValueError(f"grid task {i}: {exc}") from exc
    return tasks
