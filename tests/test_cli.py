"""The `minelab` command: play and bench output, and clear errors for bad arguments."""
import json
import subprocess
import sys

import pandas as pd
import pytest

from minelab.cli import main

PLAY_KEYS = {"agent", "level", "games", "wins", "win_rate", "ci_low", "ci_high", "seconds", "games_per_second",
             "params", "compile_seconds"}


def test_play_json(capsys):
    assert main(["play", "random", "9x9x3", "--games", "500", "--seed", "1", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert set(row) == PLAY_KEYS
    assert row["games"] == 500 and row["ci_low"] <= row["win_rate"] <= row["ci_high"]


def test_play_text_and_same_seed_same_numbers(capsys):
    main(["play", "marginal", "beginner", "--games", "300", "--seed", "4", "--json"])
    a = json.loads(capsys.readouterr().out)
    main(["play", "marginal", "beginner", "--games", "300", "--seed", "4", "--json"])
    b = json.loads(capsys.readouterr().out)
    assert a["wins"] == b["wins"]
    main(["play", "oracle", "expert", "--games", "50"])
    assert "win rate 1.0000" in capsys.readouterr().out


@pytest.mark.parametrize("argv, needle", [
    (["play", "nobody", "9x9x10"], "agent must be one of"),
    (["play", "random", "9x9x99"], "mines must be in"),
    (["play", "random", "huge"], "level must look like"),
])
def test_play_bad_values_exit_2_with_message(argv, needle, capsys):
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


@pytest.mark.parametrize("argv, needle", [
    (["play", "random", "9x9x10", "--games", "0"], "--games"),
    (["play", "random", "9x9x10", "--games", "ten"], "--games"),
    (["play", "random", "9x9x10", "--seed", "-3"], "--seed"),
    (["bench", "everything"], "invalid choice"),
    (["reproduce", "--profile", "huge"], "invalid choice"),
    (["bench", "engine", "--seconds", "0"], "--seconds"),
    (["bench", "bandit", "--train-games", "0"], "--train-games"),
])
def test_argument_errors_exit_2(argv, needle, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert needle in capsys.readouterr().err


def test_bench_bandit_json_rows(capsys):
    assert main(["bench", "bandit", "--seconds", "0.01", "--train-games", "300", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["bench"] for r in rows] == ["bandit"] * 4
    assert all(r["games_per_second"] > 0 and r["games"] >= 1 for r in rows)
    assert rows[1]["games"] == 300 and rows[-1]["level"] == "16x30x99:none"


def test_bench_json_rows(capsys):
    assert main(["bench", "agents", "--seconds", "0.01", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["agent"] for r in rows] == ["random", "marginal", "oracle"]
    assert all(r["games_per_second"] > 0 and r["bench"] == "agents" for r in rows)


def test_bench_save_writes_the_rows_with_their_machine(capsys, tmp_path, monkeypatch):
    from minelab import benchdata

    monkeypatch.setenv("MINELAB_PROJECT", str(tmp_path))
    assert main(["bench", "engine", "--seconds", "0.01", "--save", "--json"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    df = benchdata.load("engine", tmp_path)
    assert len(df) == len(printed) == 4 and list(df["level"]) == [r["level"] for r in printed]
    assert set(benchdata.MACHINE_FIELDS) <= set(df.columns) and (df["cores"] > 0).all()
    assert df["source"].nunique() == 1 and df["games_per_second"].gt(0).all()
    text = benchdata.tables(tmp_path)
    assert "`minelab bench engine`" in text and "| oracle | 16x30x99 |" in text and "games/s" in text
    assert benchdata.tables(tmp_path / "nowhere").startswith("No figures are saved yet")
    with pytest.raises(ValueError, match="what must be one of"):
        benchdata.save("everything", printed, 0.01, tmp_path)


def test_bench_table_gives_a_share_beside_the_row_it_is_of():
    from minelab import benchdata

    rows = pd.DataFrame([
        {"bench": "uct", "what": "oh", "agent": "oh", "option": "", "level": "8x8x10",
         "simulations_per_second": 100.0, "relative": 1.0, "relative_to": "oh"},
        {"bench": "uct", "what": "uct", "agent": "uct", "option": "", "level": "8x8x10",
         "simulations_per_second": 50.0, "relative": 0.5, "relative_to": "oh"},
        {"bench": "uct", "what": "oh, pairing", "agent": "oh", "option": "pairing", "level": "8x8x10",
         "simulations_per_second": 25.0, "relative": 0.25, "relative_to": "oh"},
        {"bench": "uct", "what": "oh", "agent": "oh", "option": "", "level": "4x4x4",
         "simulations_per_second": 10.0, "relative": None, "relative_to": None},
    ])
    for field, value in {"cpu": "x", "cores": 2, "load": 0.0, "python": "3", "numba": "0", "source": "s",
                         "seconds_per_measurement": 1.0}.items():
        rows[field] = value
    lines = benchdata.table(rows).splitlines()[2:6]
    assert ["of oh's" in line for line in lines] == [False, True, True, False]
    assert "(0.50 of oh's)" in lines[1] and "(0.25 of oh's)" in lines[2]


def test_bench_viewer_rows(capsys):
    assert main(["bench", "viewer", "--seconds", "0.01"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and all("ms a move, median" in line for line in lines)
    assert "overlay on, 16x30x99" in lines[-1]


def test_console_script_help():
    out = subprocess.run([sys.executable, "-m", "minelab.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "reproduce" in out.stdout and "bench" in out.stdout


def test_play_passes_agent_parameters(capsys):
    assert main(["play", "egreedy-mab", "6x6x5:none", "--games", "200", "--param", "epsilon=0.05", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["params"]["epsilon"] == 0.05 and row["compile_seconds"] >= 0
    assert main(["play", "csp", "9x9x10", "--games", "50", "--param", "first_click=(2, 2)", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["first_click"] == [2, 2]


def test_play_bad_parameter_names_it(capsys):
    assert main(["play", "csp", "9x9x10", "--games", "5", "--param", "epsilon=0.05"]) == 2
    err = capsys.readouterr().err
    assert "epsilon" in err and "max_work" in err  # names the bad one and the ones csp takes
    with pytest.raises(SystemExit):
        main(["play", "csp", "9x9x10", "--param", "epsilon"])
    assert "NAME=VALUE" in capsys.readouterr().err


def test_bench_learned_json_rows(capsys, monkeypatch):
    """`minelab bench learned` trains each gardea learner on the level first (not timed) and
    times play; here with tiny budgets on one small level."""
    from minelab import cli

    monkeypatch.setattr(cli, "LEARNED_LEVELS", ("5x5x4",))
    monkeypatch.setattr(cli, "LEARNED_BENCH", (("gardea-q, 300 games", "gardea-q", {"train_size": 300}),
                                               ("conditional", "conditional", {})))
    assert main(["bench", "learned", "--seconds", "0.01", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["what"] for r in rows] == ["gardea-q, 300 games on 5x5x4", "conditional on 5x5x4"]
    assert all(r["games_per_second"] > 0 and r["bench"] == "learned" for r in rows)


def test_reproduce_measures_the_peak_memory_of_the_processes_it_starts():
    from minelab.reproduce import PeakMemory
    grab = "import time; block = bytearray(300 * 2**20); time.sleep(1.5)"  # 300 MiB, touched
    with PeakMemory(interval=0.1) as peak:
        subprocess.run([sys.executable, "-c", grab], check=True)
    assert peak.process >= 300 * 2**20 and peak.which == "kernel"  # a direct child: what papermill's kernel is
    assert 250 * 2**20 <= peak.total  # proportional sizes: the child's own pages count whole
    assert "GB in one process (kernel)" in peak.text()
    with PeakMemory(interval=0.1) as idle:
        pass
    assert (idle.process, idle.total) == (0, 0)


def test_the_csp_bench_times_the_options_the_strength_study_judges():
    from minelab.cli import CSP_OPTIONS
    from minelab.studies import strength

    assert all(name in strength.JUDGED for name in CSP_OPTIONS.values()), CSP_OPTIONS


def test_an_option_s_share_is_the_median_of_rounds_timed_in_turn_with_the_defaults(monkeypatch):
    """`paired_share` times the defaults and the option in turn and takes the median of
    the rounds' ratios: a machine that slows down between rounds moves both alike."""
    from minelab import cli

    speeds = iter([100.0, 50.0, 200.0, 110.0, 40.0, 16.0])  # defaults, option; three rounds
    calls = []

    def fake_measure(agent, level, seconds, start, params=None):
        calls.append((agent, level, seconds, dict(params or {})))
        return {"agent": agent, "level": level, "games_per_second": next(speeds)}

    monkeypatch.setattr(cli, "measure", fake_measure)
    row, share = cli.paired_share("best", "8x8x10", 5.0, 200, {"endgame_prune": True})
    assert share == pytest.approx(0.5)  # ratios 0.5, 0.55, 0.4
    assert row["games_per_second"] == 50.0  # the option's median round
    assert [c[3] for c in calls] == [{}, {"endgame_prune": True}] * 3 and {c[2] for c in calls} == {2.5}


def test_bench_uct_times_each_option_in_turn_with_oh(monkeypatch):
    """`bench uct` gives an option's share as the median of rounds timed in turn with oh's
    defaults on the same level, like best's options in `bench csp`."""
    from minelab import cli
    from minelab.papers.buffet2012_further import OPTIONS

    calls = []

    def fake_row(agent, level, seconds, option=None, params=None):
        calls.append((agent, level, option))
        speed = 100.0 if option is None else 100.0 - 10 * sum(c[1:] == (level, option) for c in calls)
        return {"agent": agent, "level": level, "option": option or "", "simulations_per_second": speed}

    monkeypatch.setattr(cli, "_uct_row", fake_row)
    rows = list(cli.bench_uct(2.0))
    options = [r for r in rows if r["option"]]
    assert len(options) == len(OPTIONS) * len(cli.UCT_OPTION_LEVELS)
    assert all(r["relative"] == pytest.approx(0.8) and r["relative_to"] == "oh" for r in options)  # 0.9, 0.8, 0.7
    expected = [call for level in cli.UCT_OPTION_LEVELS for option in OPTIONS
                for call in [("oh", level, None), ("oh", level, option)] * cli.SHARE_ROUNDS]
    assert calls[len(cli.UCT_BENCH):] == expected


def test_bench_reproduce_saves_each_notebooks_time_memory_and_caches(capsys, tmp_path, monkeypatch):
    """`minelab bench reproduce --save` runs the notebooks and keeps what each one's printed
    line says, with the caches' state at the start; the README's table is made from it."""
    import nbformat

    from minelab import benchdata, catalog, reproduce

    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell('profile = "quick"\nseed = 0\nscheduler = None',
                                          metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("import time\nblock = b'x' * (200 * 2**20)\ntime.sleep(1.5)")]  # 200 MiB
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "tiny.ipynb")
    real = reproduce.run
    monkeypatch.setattr(reproduce, "run", lambda **kw: real(**kw, notebooks_dir=folder, build_dir=tmp_path / "build"))
    monkeypatch.setenv("MINELAB_PROJECT", str(tmp_path))
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))
    assert main(["bench", "reproduce", "--profile", "smoke", "--save"]) == 0
    df = benchdata.load("reproduce", tmp_path)
    row = df.iloc[0]
    assert list(df["what"]) == ["tiny"] and row["profile"] == "smoke" and row["seconds"] > 0
    assert row["largest_process"] == "kernel" and row["largest_process_gib"] >= 0.19
    assert row["all_processes_gib"] >= 0.15 and row["results_cache"] == "empty"
    assert row["numba_cache"] in ("empty", "warm") and pd.isna(row["seconds_per_measurement"])
    assert "| tiny |" in catalog.reproduce_table(tmp_path) and "| tiny |" in benchdata.tables(tmp_path)
    assert "a measurement" not in benchdata.tables(tmp_path)  # not timed for a set time


@pytest.mark.parametrize("caches, says", [(("empty", "empty"), "every task computed"),
                                          (("warm", "empty"), "a warm results cache and an empty numba cache")])
def test_the_readme_run_table_says_which_caches_it_ran_with(tmp_path, caches, says):
    from minelab import benchdata, catalog

    rows = [{"bench": "reproduce", "what": name, "notebook": name, "profile": "quick", "seconds": s,
             "largest_process_gib": 1.04, "largest_process": "worker", "all_processes_gib": 1.5,
             "results_cache": caches[0], "numba_cache": caches[1]} for name, s in (("a", 100.4), ("b", 20.0))]
    benchdata.save("reproduce", rows, None, tmp_path)
    text = catalog.reproduce_table(tmp_path)
    assert "| a | 100 s | 1.0 GB | 1.5 GB |" in text and "120 s in all" in text and says in text
    assert catalog.reproduce_table(tmp_path / "nowhere").startswith("No run is saved yet")
