"""Every notebook executes with profile="smoke" through papermill, rejects bad parameters, and
saves what it makes through `minelab.report.publish` only."""
import json
import re
from pathlib import Path

import papermill as pm
import pytest

from minelab import reproduce
from minelab.profiles import executor_for

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = reproduce.list_notebooks()
# report's lower-level writers: a notebook goes through report.publish instead, so every file
# gets its profile suffix and every measured number its profile
DIRECT_WRITERS = re.compile(r"\b(save_figure|save_table|record_measured)\b")


def _sources(path, cell_type=None):
    nb = json.loads(path.read_text())
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in nb["cells"] if cell_type is None or c["cell_type"] == cell_type]


def test_notebooks_are_committed():
    assert {p.stem for p in NOTEBOOKS} >= {"antimatroid2012_agents", "buffet2012_optimistic_heuristics",
                                          "gardea2015_training_solver", "leaderboard", "lordeiro2021_bandits"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_saves_only_through_publish(path):
    code = "\n".join(_sources(path, "code"))
    direct = sorted(set(DIRECT_WRITERS.findall(code)))
    assert not direct, f"{path.name} calls report.{', '.join(direct)} directly: use report.publish"
    assert "publish(" in code, f"{path.name} saves nothing through report.publish"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_points_at_nothing_outside_the_repository(path):
    """A clone holds nothing beside the repository: a notebook says what it means in its own
    words and cites papers by authors, title, venue and year, never a sibling folder's notes."""
    outside = "../" + "shared"
    for source in _sources(path):
        assert outside not in source, f"{path.name} points at {outside}"


def test_direct_writer_pattern():
    assert DIRECT_WRITERS.search("report.save_figure(fig, paper.PAPER, name)")
    assert DIRECT_WRITERS.search("report.record_measured(paper.PAPER, rows, notebook=n, profile=p)")
    assert DIRECT_WRITERS.search("from minelab.report import save_table")
    assert not DIRECT_WRITERS.search("publish(result, paper.PAPER, paper.NOTEBOOK, profile)")



@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_its_sweeps_where_executor_for_says(path):
    """A notebook that runs sweeps takes its executor from `profiles.executor_for`: smoke runs
    in the kernel's own process, larger profiles in workers or on the given scheduler."""
    code = "\n".join(_sources(path, "code"))
    if "executor=" in code:
        assert "executor = executor_for(profile, scheduler)" in code, f"{path.name} picks its executor itself"


def test_executor_for_names_the_bad_field():
    assert executor_for("smoke") == "serial"
    assert executor_for("quick") == "processes" and executor_for("paper", None) == "processes"
    assert executor_for("smoke", "tcp://host:8786") == "tcp://host:8786"
    with pytest.raises(ValueError, match="profile"):
        executor_for("huge")
    with pytest.raises(ValueError, match="scheduler"):
        executor_for("quick", "  ")

@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """Figures and results go to tmp: a test run never touches the committed figures/."""
    monkeypatch.setenv("MINELAB_FIGURES_DIR", str(tmp_path / "figures"))
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))
    return tmp_path


def test_there_is_a_notebook():
    assert any(p.stem == "antimatroid2012_agents" for p in NOTEBOOKS)


RERUN = "gardea2015_training_solver"  # run twice: a rerun must rewrite no file


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow  # 10-110 s a notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_with_smoke_profile(path, sandbox, monkeypatch):
    out = reproduce.run("smoke", only=path.stem, build_dir=sandbox / "build")
    assert [p.name for p in out] == [path.name]
    executed = json.loads(out[0].read_text())
    errors = [o for c in executed["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    figures = sandbox / "figures"
    assert (figures / "REPORT.md").exists()
    measured = list(figures.glob("*/measured.csv"))
    assert measured, "a notebook records its measured numbers"
    # the committed notebook stays without outputs
    committed = json.loads(path.read_text())
    assert all(not c.get("outputs") for c in committed["cells"] if c["cell_type"] == "code")
    if path.stem == RERUN:  # same profile and seed, every task computed afresh: byte for byte the same files
        first = _snapshot(figures)
        monkeypatch.setenv("MINELAB_RESULTS", str(sandbox / "results-again"))
        reproduce.run("smoke", only=path.stem, build_dir=sandbox / "build")
        again = _snapshot(figures)
        assert first.keys() == again.keys() and any(p.name == "stamps.csv" for p in first)
        changed = sorted(str(p) for p in first if first[p] != again[p])
        assert not changed, f"a rerun rewrote {changed}"


@pytest.mark.parametrize("params, needle", [
    ({"profile": "huge"}, "profile must be one of"),
    ({"success_games": -5}, "success_games must be a positive integer"),
    ({"seed": -1}, "seed must be a non-negative integer"),
])
def test_notebook_rejects_bad_parameters(params, needle, sandbox):
    nb = REPO_ROOT / "notebooks" / "antimatroid2012_agents.ipynb"
    with pytest.raises(pm.PapermillExecutionError) as exc:
        pm.execute_notebook(str(nb), str(sandbox / "bad.ipynb"), parameters={"profile": "smoke", **params},
                            progress_bar=False, cwd=str(nb.parent))
    assert needle in str(exc.value)


def test_a_failing_notebook_stops_the_run_with_its_name_and_error(sandbox):
    import nbformat

    folder = sandbox / "nbs"
    folder.mkdir()
    for stem, body in [("a_fails", "raise ValueError('boom at 42')"), ("b_never_runs", "x = 1")]:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell('profile = "quick"\nseed = 0\nscheduler = None',
                                              metadata={"tags": ["parameters"]}),
                    nbformat.v4.new_code_cell(body)]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, folder / f"{stem}.ipynb")
    with pytest.raises(RuntimeError, match=r"notebook a_fails failed in cell \d+: ValueError: boom at 42"):
        reproduce.run("smoke", notebooks_dir=folder, build_dir=sandbox / "build")
    assert not (sandbox / "build" / "b_never_runs.ipynb").exists()
