"""Sweeps: task keys, result files (atomic, verified, reused, resumed) and executors."""
import json
import os
import warnings

import numpy as np
import pandas as pd
import pandas.testing as tm
import pyarrow.parquet as pq
import pytest

import minelab as ml
from minelab import sweep as ex
from minelab.sweep import (
    CorruptResultWarning,
    MissingResultsError,
    TaskError,
    derive_seed,
    grid,
    load_results,
    result_path,
    run_sweep,
    task_key,
)

# --- a cheap kind that records its calls (in-process only: executor="serial") ----------

CALLS: list[int] = []  # seeds of the probe tasks actually computed
FAIL_SEEDS: set[int] = set()  # probe tasks with these seeds raise
INTERRUPT_SEEDS: set[int] = set()  # ... or are "interrupted" (KeyboardInterrupt)


@ex.task_kind("test.probe")
def probe(params):
    seed = params["seed"]
    if seed in FAIL_SEEDS:
        raise RuntimeError(f"probe {seed} fails on purpose")
    if seed in INTERRUPT_SEEDS:
        raise KeyboardInterrupt
    CALLS.append(seed)
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"i": np.arange(params.get("n", 3)), "x": rng.random(params.get("n", 3))})


@pytest.fixture(autouse=True)
def _reset_probe():
    CALLS.clear(), FAIL_SEEDS.clear(), INTERRUPT_SEEDS.clear()
    yield
    CALLS.clear(), FAIL_SEEDS.clear(), INTERRUPT_SEEDS.clear()


def probes(seeds, **extra):
    return [{"kind": "test.probe", "seed": s, **extra} for s in seeds]


def play_tasks():
    """Four small play tasks: two levels x two seeds of the random agent."""
    return [
        {"kind": "play", "agent": "random", "level": level, "n_games": 200, "seed": seed}
        for level in ("5x5x3", "5x5x3:none") for seed in (0, 1)
    ]


def files(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


# --- keys ---------------------------------------------------------------------------

def test_task_key_is_stable_and_order_independent():
    task = {"kind": "play", "agent": "random", "level": "5x5x3", "n_games": 200, "seed": 0}
    # Pinned: a change here would orphan every saved result.
    assert task_key(task) == "play-8dfc97e525247fa3"
    assert task_key(dict(reversed(list(task.items())))) == task_key(task)
    assert task_key({**task, "seed": 1}) != task_key(task)
    assert task_key({**task, "n_games": 200.0}) != task_key(task)  # params hashed as written
    assert task_key({**task, "agent_params": {"b": 1, "a": 2}}) == task_key({**task, "agent_params": {"a": 2, "b": 1}})


def test_default_results_dir(monkeypatch, tmp_path):
    monkeypatch.delenv(ex.RESULTS_ENV, raising=False)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(ex.__file__)))
    assert ex.default_results_dir() == ex.Path(repo) / "data" / "results"
    monkeypatch.setenv(ex.RESULTS_ENV, str(tmp_path))
    task = probes([4])[0]
    assert result_path(task) == tmp_path.resolve() / "test.probe" / f"{task_key(task)}.parquet"
    assert result_path(task, tmp_path / "other").parent.parent == (tmp_path / "other").resolve()


# --- files --------------------------------------------------------------------------

def test_one_file_per_task_with_params_in_metadata(tmp_path):
    tasks = probes([0, 1, 2])
    run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    assert files(tmp_path) == sorted(f"test.probe/{task_key(t)}.parquet" for t in tasks)
    meta = pq.read_schema(result_path(tasks[1], tmp_path)).metadata
    assert json.loads(meta[b"minelab.task"]) == tasks[1]


def test_atomic_write_leaves_no_temp_files(tmp_path, monkeypatch):
    run_sweep(probes([0, 1]), results_dir=tmp_path, executor="serial", progress=False)
    assert all(name.endswith(".parquet") for name in files(tmp_path))

    # A write that dies half-way leaves neither the final file nor its temp file.
    real_write = pq.write_table

    def dying_write(table, where, **kw):
        real_write(table.slice(0, 1), where, **kw)
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", dying_write)
    with pytest.raises(TaskError, match="disk full"):
        run_sweep(probes([2]), results_dir=tmp_path, executor="serial", progress=False)
    assert files(tmp_path) == sorted(f"test.probe/{task_key(t)}.parquet" for t in probes([0, 1]))


# --- reuse, resume ------------------------------------------------------------------

def test_rerun_reuses_saved_results(tmp_path, monkeypatch):
    tasks = play_tasks()[:2]
    first = run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)

    def must_not_run(params):
        raise AssertionError("a saved task was recomputed")

    monkeypatch.setitem(ex._KINDS, "play", ex._KINDS["play"]._replace(fn=must_not_run))
    again = run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    tm.assert_frame_equal(first, again)
    tm.assert_frame_equal(first, load_results(tasks, tmp_path))
    with pytest.raises(TaskError, match="recomputed"):
        run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False, recompute=True)


def test_output_frame_is_the_runner_frame_plus_params(tmp_path):
    tasks = [{"kind": "play", "agent": "random", "agent_params": {}, "level": "5x5x3", "n_games": 200,
              "seed": 3, "flood": False}, {"kind": "play", "agent": "random", "level": "5x5x3",
                                            "n_games": 100, "seed": 4}]
    df = run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    assert len(df) == 300 and df.index.equals(pd.RangeIndex(300))
    assert list(df.columns[:7]) == ["kind", "agent", "agent_params", "level", "n_games", "seed", "flood"]
    assert (df["agent_params"].iloc[:200] == "{}").all() and df["agent_params"].iloc[200:].isna().all()
    expected = ml.play("random", "5x5x3", 200, 3, flood=False, progress=False)
    expected.attrs = {}
    got = df.iloc[:200][list(expected.columns)].reset_index(drop=True)
    tm.assert_frame_equal(got, expected)


def test_resume_after_a_failed_task(tmp_path):
    tasks = probes([0, 1, 2, 3])
    FAIL_SEEDS.add(1)
    with pytest.raises(TaskError) as info:
        run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    message = str(info.value)
    assert "task 1" in message and task_key(tasks[1]) in message and '"seed":1' in message
    assert "fails on purpose" in message
    assert isinstance(info.value.__cause__, RuntimeError)
    # The other tasks ran and are saved.
    assert sorted(CALLS) == [0, 2, 3]
    assert [result_path(t, tmp_path).exists() for t in tasks] == [True, False, True, True]
    with pytest.raises(MissingResultsError, match=task_key(tasks[1])):
        load_results(tasks, tmp_path)

    FAIL_SEEDS.clear(), CALLS.clear()
    df = run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    assert CALLS == [1]
    assert df.groupby("seed").size().to_dict() == {0: 3, 1: 3, 2: 3, 3: 3}


def test_resume_after_an_interrupt(tmp_path):
    tasks = probes([0, 1, 2, 3])
    INTERRUPT_SEEDS.add(2)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    assert CALLS == [0, 1]
    INTERRUPT_SEEDS.clear(), CALLS.clear()
    run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    assert CALLS == [2, 3]


# --- damaged files ------------------------------------------------------------------

def _truncate(path, other):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage(path, other):
    path.write_bytes(b"PAR1 this is not a parquet file PAR1")


def _empty(path, other):
    path.write_bytes(b"")


def _foreign(path, other):
    path.write_bytes(other.read_bytes())  # a valid result file, of another task


def _no_metadata(path, other):
    pd.DataFrame({"i": [0, 1, 2], "x": [0.5, 0.5, 0.5]}).to_parquet(path)


def _edited_metadata(path, other):
    table = pq.read_table(path)
    meta = dict(table.schema.metadata)
    meta[b"minelab.task"] = meta[b"minelab.task"].replace(b'"seed":0', b'"seed":9')
    pq.write_table(table.replace_schema_metadata(meta), path)


def _flipped_data_byte(path, other):
    # Corrupt the values inside the first data page (the footer stays valid): the page
    # checksums catch it.
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(1)  # column "x"
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    data = bytearray(path.read_bytes())
    data[start + chunk.total_compressed_size // 2] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [_truncate, _garbage, _empty, _foreign, _no_metadata,
                                    _edited_metadata, _flipped_data_byte])
def test_damaged_file_is_warned_about_and_recomputed(tmp_path, damage):
    tasks = probes([0, 1], n=50)
    good = run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    path = result_path(tasks[0], tmp_path)
    damage(path, result_path(tasks[1], tmp_path))
    CALLS.clear()
    with pytest.warns(CorruptResultWarning, match=path.name):
        with pytest.raises(MissingResultsError, match="1 of 2 tasks"):
            load_results(tasks, tmp_path)
    with pytest.warns(CorruptResultWarning, match=path.name):
        again = run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    assert CALLS == [0]
    tm.assert_frame_equal(again, good)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tm.assert_frame_equal(load_results(tasks, tmp_path), good)


# --- validation ---------------------------------------------------------------------

PLAY = {"kind": "play", "agent": "random", "level": "5x5x3", "n_games": 10, "seed": 0}


@pytest.mark.parametrize("tasks, pattern", [
    ([{"seed": 0}], r"task 0: missing field 'kind'"),
    ([PLAY, {"kind": "play", "agent": "random", "level": "5x5x3", "n_games": 10}], r"task 1: missing field 'seed'"),
    ([{**PLAY, "seed": -1}], r"task 0: field 'seed' must be a non-negative integer"),
    ([{**PLAY, "seed": True}], r"task 0: field 'seed'"),
    ([{**PLAY, "seed": 1.0}], r"task 0: field 'seed'"),
    ([{**PLAY, "kind": "no-such-kind"}], r"task 0: field 'kind': unknown task kind 'no-such-kind'"),
    ([{**PLAY, "kind": "../etc"}], r"task 0: field 'kind'"),
    ([{**PLAY, "n_games": np.int64(10)}], r"task 0: field 'n_games'.*not a JSON value"),
    ([{**PLAY, "agent_params": {"alpha": np.float64(0.5)}}], r"task 0: field 'agent_params.alpha'"),
    ([{**PLAY, "level": (5, 5, 3)}], r"task 0: field 'level'.*use a list"),
    ([{**PLAY, "agent_params": {"x": float("nan")}}], r"task 0: field 'agent_params.x'.*NaN"),
    ([{**PLAY, "agent_params": {1: 2}}], r"task 0: field 'agent_params' has a non-string key"),
    ([PLAY, {**PLAY, "seed": 1}, dict(reversed(list(PLAY.items())))], r"task 2: duplicate of task 0"),
    ([{**PLAY, "module": "os"}], r"task 0: field 'module'"),
    ([{**PLAY, "module": "minelab.no_such_module"}], r"task 0: field 'module': cannot import"),
    ([{**PLAY, "flod": False}], r"task 0: field 'flod' is not a 'play' param"),
    ([{**PLAY, "level": "5x5"}], r"task 0: field 'level'"),
    ([{**PLAY, "n_games": 0}], r"task 0: field 'n_games'"),
    ([{k: v for k, v in PLAY.items() if k != "level"}], r"task 0: missing field 'level'"),
    ([{**PLAY, "agent": "psychic"}], r"task 0: field 'agent'"),
    ([{**PLAY, "agent_params": {"nonsense": 1}}], r"task 0: field 'agent'/'agent_params'"),
    ([{**PLAY, "flood": 1}], r"task 0: field 'flood'"),
    ([[("kind", "play")]], r"task 0: a task must be a dict"),
])
def test_bad_tasks_are_rejected_before_anything_runs(tmp_path, tasks, pattern):
    with pytest.raises(ValueError, match=pattern):
        run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    assert not tmp_path.exists() or files(tmp_path) == []


def test_bad_executor_arguments(tmp_path):
    with pytest.raises(ValueError, match="executor"):
        run_sweep([PLAY], results_dir=tmp_path, executor="threads")
    with pytest.raises(ValueError, match="max_workers"):
        run_sweep([PLAY], results_dir=tmp_path, executor="serial", max_workers=2)
    with pytest.raises(ValueError, match="max_workers"):
        run_sweep([PLAY], results_dir=tmp_path, executor="processes", max_workers=0)


def test_task_kind_registry():
    with pytest.raises(ValueError, match="already registered"):
        ex.task_kind("test.probe")(lambda params: pd.DataFrame())
    ex.task_kind("test.probe")(probe)  # the same function again (a reloaded module) is fine
    with pytest.raises(ValueError, match="kind name"):
        ex.task_kind("a/b")


def test_result_columns_may_not_shadow_params(tmp_path):
    @ex.task_kind("test.shadow")
    def shadow(params):
        return pd.DataFrame({"seed": [1]})

    with pytest.raises(TaskError, match="columns named like task params: seed"):
        run_sweep([{"kind": "test.shadow", "seed": 0}], results_dir=tmp_path, executor="serial", progress=False)
    assert files(tmp_path) == []


# --- executors ----------------------------------------------------------------------

def test_results_identical_on_every_executor(tmp_path):
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    tasks = play_tasks()
    serial = run_sweep(tasks, results_dir=tmp_path / "serial", executor="serial", progress=False)
    assert len(serial) == 800
    procs = run_sweep(tasks, results_dir=tmp_path / "procs", executor="processes", max_workers=2, progress=False)
    tm.assert_frame_equal(procs, serial, check_exact=True)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            dask = run_sweep(tasks, results_dir=tmp_path / "dask", executor=client, progress=False)
        # an address: run_sweep opens its own client, and closes it
        addr = run_sweep(tasks, results_dir=tmp_path / "addr", executor=cluster.scheduler_address, progress=False)
    tm.assert_frame_equal(dask, serial, check_exact=True)
    tm.assert_frame_equal(addr, serial, check_exact=True)
    # Same bytes of data on disk whichever process wrote them.
    for task in tasks:
        tables = [pq.read_table(result_path(task, tmp_path / d)) for d in ("serial", "procs", "dask", "addr")]
        assert all(t.equals(tables[0]) for t in tables)


def test_compile_key_ignores_values_but_not_rules_or_agents():
    key = ex.compile_key
    a = {"kind": "play", "agent": "csp", "level": "9x9x10", "n_games": 100, "seed": 3}
    assert key(a) == key({**a, "level": "16x30x99", "n_games": 7, "seed": 11})  # sizes and seeds: values
    assert key(a) == key({**a, "level": "9x9x10:opening"})  # safe and opening: the same kernels
    assert key(a) != key({**a, "level": "9x9x10:no-guess"})  # the rule changes the kernels' types
    assert key(a) != key({**a, "agent": "best"})
    assert key(a) != key({**a, "n_games": 1.5})  # a number of another type
    t = {"kind": "train_test", "agent": "mcts", "agent_params": {"alpha": 0.1}, "schedule": [["8x8x10", 10]],
         "seed": 1}
    assert key(t) == key({**t, "agent_params": {"alpha": 0.5}, "schedule": [["16x16x40", 99]], "seed": 2})
    assert key(t) != key({**t, "schedule": [["8x8x10:no-guess", 10]]})
    assert "9x9x100" in key({**a, "level": "9x9x100"})  # no valid level: kept as it is, the task reports it
    b = {"kind": "play", "agent": "best", "level": "9x9x10", "n_games": 100, "seed": 3}
    assert key(b) == key({**b, "agent_params": {"endgame_layouts": 0, "tie_order": "corners"}})  # values to best
    u = {"kind": "play", "agent": "uct", "level": "9x9x10", "n_games": 100, "seed": 3}
    assert key(u) != key({**u, "agent_params": {"rave": 1000.0}})  # uct's options may change its types


def test_compile_first_puts_one_task_of_each_key_first_in_order():
    tasks = [{"kind": "play", "agent": a, "level": lv, "n_games": 10, "seed": s}
             for s in range(2) for a in ("csp", "best") for lv in ("9x9x10", "8x8x10:no-guess")]
    first, rest = ex.compile_first(list(enumerate(tasks)))
    assert [i for i, _ in first] == [0, 1, 2, 3] and [i for i, _ in rest] == [4, 5, 6, 7]
    assert ex.compile_first([]) == ([], [])


def test_kind_unknown_to_workers_is_reported(tmp_path):
    # Kinds registered in a test exist in this process only; a worker says so clearly.
    with pytest.raises(TaskError, match="executor='serial'"):
        run_sweep(probes([0]), results_dir=tmp_path, executor="processes", max_workers=1, progress=False)


# --- grids and seeds ----------------------------------------------------------------

def test_grid_product_and_order():
    tasks = grid({"kind": "play", "n_games": 10}, seeds=[5, 6], agent=["random", "marginal"],
                 level=["5x5x3", "6x6x4", "7x7x5"])
    assert len(tasks) == 12
    assert [(t["agent"], t["level"], t["seed"]) for t in tasks[:3]] == [
        ("random", "5x5x3", 5), ("random", "5x5x3", 6), ("random", "6x6x4", 5)]
    assert list(tasks[0]) == ["kind", "n_games", "agent", "level", "seed"]
    ex.validate_tasks(tasks)


def test_grid_seeds_are_stable_when_an_axis_grows():
    base = {"kind": "play", "n_games": 10}
    small = grid(base, seeds=2024, agent=["random"], level=["5x5x3", "6x6x4"])
    big = grid(base, seeds=2024, agent=["random", "marginal"], level=["4x4x2", "5x5x3", "6x6x4"])
    by_params = {(t["agent"], t["level"]): t["seed"] for t in big}
    for task in small:
        assert by_params[task["agent"], task["level"]] == task["seed"]
        assert task in big  # same params, same key, same saved file
    seeds = [t["seed"] for t in big]
    assert len(set(seeds)) == len(seeds) and all(0 <= s < 2**63 for s in seeds)
    assert grid(base, seeds=2025, agent=["random"], level=["5x5x3"])[0]["seed"] != small[0]["seed"]
    # A derived seed is a function of the params only (any seed among them is ignored).
    assert small[0]["seed"] == derive_seed(2024, {"level": "5x5x3", "agent": "random", "kind": "play",
                                                  "n_games": 10, "seed": 99})


def test_grid_seed_by_shares_boards_across_agents():
    tasks = grid({"kind": "play", "n_games": 10}, seeds=1, seed_by=["level"],
                 agent=["random", "marginal"], level=["5x5x3", "6x6x4"])
    seeds = {(t["agent"], t["level"]): t["seed"] for t in tasks}
    assert seeds["random", "5x5x3"] == seeds["marginal", "5x5x3"] != seeds["random", "6x6x4"]


def test_grid_rejects_ambiguity():
    base = {"kind": "play", "n_games": 10}
    with pytest.raises(ValueError, match="seed"):
        grid({**base, "seed": 1}, seeds=0, agent=["random"])
    with pytest.raises(ValueError, match="also in base"):
        grid(base, seeds=0, n_games=[1, 2])
    with pytest.raises(ValueError, match="repeats"):
        grid(base, seeds=0, agent=["random", "random"])
    with pytest.raises(ValueError, match="seed_by"):
        grid(base, seeds=0, seed_by=["levle"], level=["5x5x3"])
    # numpy values from linspace/arange are turned into plain Python numbers
    tasks = grid({"kind": "test.probe"}, seeds=0, n=np.arange(2, 4))
    assert [type(t["n"]) for t in tasks] == [int, int]


# --- a result computed by other code is never served -----------------------------------

def _digests(monkeypatch, **changed):
    """Pretend the golden playthroughs of `changed` agents now have other digests."""
    table = dict(ml.agents.base._behaviour_table())
    table.update(changed)
    monkeypatch.setattr(ml.agents.base, "_behaviour_table", lambda: table)


def test_code_stamp_names_the_task_agents_and_revision():
    stamp = ex.code_stamp({"kind": "play", "agent": "csp", "level": "5x5x3", "n_games": 1, "seed": 0})
    assert stamp == {"revision": 1, "agents": {"csp": ml.agents.behaviour_digests(["csp"])["csp"]}}
    assert len(stamp["agents"]["csp"]) == 16 and stamp["agents"]["csp"] != "unpinned"
    # a kind that names no agents depends on every registered agent's play
    assert set(ex.code_stamp(probes([0])[0])["agents"]) == set(ml.list_agents())


def test_changed_play_of_the_tasks_agent_recomputes_the_file(tmp_path, monkeypatch):
    tasks = play_tasks()[:1]
    first = run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    _digests(monkeypatch, oracle="0" * 16)  # another agent's change: the file still serves
    tm.assert_frame_equal(first, load_results(tasks, tmp_path))
    _digests(monkeypatch, random="0" * 16)  # the task's own agent plays differently now
    with pytest.warns(ex.StaleResultWarning, match="computed by other code"):
        with pytest.raises(MissingResultsError):
            load_results(tasks, tmp_path)
    calls = []
    real = ex._KINDS["play"]
    monkeypatch.setitem(ex._KINDS, "play", real._replace(fn=lambda p: calls.append(p) or real.fn(p)))
    with pytest.warns(ex.StaleResultWarning):
        again = run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    assert len(calls) == 1  # recomputed, then served from the new file
    tm.assert_frame_equal(first, again)
    run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    assert len(calls) == 1


def test_bumped_revision_recomputes_the_file(tmp_path, monkeypatch):
    run_sweep(probes([5]), results_dir=tmp_path, executor="serial", progress=False)
    assert CALLS == [5]
    monkeypatch.setitem(ex._KINDS, "test.probe", ex._KINDS["test.probe"]._replace(revision=2))
    with pytest.warns(ex.StaleResultWarning):
        run_sweep(probes([5]), results_dir=tmp_path, executor="serial", progress=False)
    assert CALLS == [5, 5]


def test_result_file_records_version_and_stamp(tmp_path):
    tasks = play_tasks()[:1]
    run_sweep(tasks, results_dir=tmp_path, executor="serial", progress=False)
    meta = pq.read_schema(result_path(tasks[0], tmp_path)).metadata
    assert json.loads(meta[b"minelab.info"])["minelab_version"] == ml.__version__
    assert json.loads(meta[b"minelab.code"]) == ex.code_stamp(tasks[0])


def test_revision_must_be_a_positive_integer():
    with pytest.raises(ValueError, match="revision must be a positive integer"):
        ex.task_kind("test.bad", revision=0)


# --- kept results: long tasks' results committed with the project ------------------------

def test_kept_results_serve_a_fresh_cache_until_other_code_would_make_them(tmp_path, monkeypatch):
    kept = tmp_path / "kept"
    monkeypatch.setenv("MINELAB_KEPT", str(kept))
    first = run_sweep(probes([1, 2]), results_dir=tmp_path / "a", executor="serial", progress=False)
    assert ex.keep(min_seconds=1e9, results_dir=tmp_path / "a") == []  # none took that long
    written = ex.keep(min_seconds=0, results_dir=tmp_path / "a")
    assert sorted(written) == sorted(ex.kept_path(t) for t in probes([1, 2]))
    assert ex.keep(min_seconds=0, results_dir=tmp_path / "a") == []  # kept already, the same bytes
    CALLS.clear()
    run_sweep(probes([1, 2, 3]), results_dir=tmp_path / "b", executor="serial", progress=False)
    assert CALLS == [3]  # 1 and 2 come from the kept results, and stay there only
    assert files(tmp_path / "b") == [f"test.probe/{task_key(probes([3])[0])}.parquet"]
    tm.assert_frame_equal(first, load_results(probes([1, 2]), tmp_path / "b"))

    (kept / "test.probe" / "junk.parquet").write_bytes(b"not a result")
    monkeypatch.setitem(ex._KINDS, "test.probe", ex._KINDS["test.probe"]._replace(revision=2))
    assert ex.keep(min_seconds=0, results_dir=tmp_path / "a") == []  # the cache's files are stale now
    CALLS.clear()
    with pytest.warns(ex.StaleResultWarning, match="kept result .* computed by other code"):
        run_sweep(probes([1]), results_dir=tmp_path / "c", executor="serial", progress=False)
    assert CALLS == [1]
    removed = ex.prune_kept()
    assert sorted(p.name for p in removed) == sorted([ex.kept_path(t).name for t in probes([1, 2])]
                                                     + ["junk.parquet"])
    assert files(kept) == []


def test_keep_command(tmp_path, monkeypatch, capsys):
    from minelab import cli

    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("MINELAB_KEPT", str(tmp_path / "kept"))
    run_sweep(probes([4]), executor="serial", progress=False)
    assert cli.main(["keep", "--min-seconds", "0", "--prune"]) == 0
    assert "1 result(s) kept" in capsys.readouterr().out
    assert files(tmp_path / "kept") == [f"test.probe/{task_key(probes([4])[0])}.parquet"]
    with pytest.raises(SystemExit):
        cli.main(["keep", "--min-seconds", "-1"])
    assert "--min-seconds: must be a number >= 0" in capsys.readouterr().err
    with pytest.raises(ValueError, match="min_seconds"):
        ex.keep(min_seconds=-1)
