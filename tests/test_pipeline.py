"""The reproduction pipeline without executing notebooks: report writers, REPORT.md,
published data files, committed notebooks, and reproduce.run's argument checks."""
from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from minelab import report, reproduce  # noqa: E402
from minelab.profiles import PROFILES  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = ROOT / "data" / "published"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.fixture
def figs(tmp_path, monkeypatch):
    folder = tmp_path / "figures"
    monkeypatch.setenv("MINELAB_FIGURES_DIR", str(folder))
    return folder


def leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.startswith(".") or p.suffix == ".tmp"]


# --------------------------------------------------------------------------- layering

def test_report_imports_no_agents_runner_experiments():
    tree = ast.parse((ROOT / "minelab" / "report.py").read_text())
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            modules.add("." * node.level + (node.module or ""))
    relative = {m for m in modules if m.startswith(".") or m.startswith("minelab")}
    allowed_here = {".atomic", ".profiles", ".paths", "._version", ".ledger",
                    ".provenance"}  # ledger: pure functions over frames; provenance: stdlib only
    assert relative <= allowed_here, f"report.py imports package modules {relative}"
    allowed = {"pandas", "numpy", "matplotlib"}
    import sys
    third_party = ({m.split(".")[0] for m in modules if not m.startswith(".")}
                   - set(sys.stdlib_module_names) - {"__future__"})
    assert third_party <= allowed, third_party
    assert report.PROFILES == PROFILES


# --------------------------------------------------------------------------- figures and tables

def test_figures_dir_env_override_and_paper_subdir(figs):
    assert report.figures_dir() == figs and figs.is_dir()
    assert report.figures_dir("antimatroid2012") == figs / "antimatroid2012"
    with pytest.raises(ValueError, match="unknown paper"):
        report.figures_dir("nope2099")


def test_figures_dir_default_is_the_project_figures(monkeypatch, tmp_path):
    """Outputs go under the checkout one runs from (from any folder inside it), else under
    the current directory: never into the installed package's folder."""
    monkeypatch.delenv("MINELAB_FIGURES_DIR", raising=False)
    monkeypatch.delenv("MINELAB_PROJECT", raising=False)
    monkeypatch.chdir(ROOT / "notebooks")
    assert report.figures_dir() == ROOT / "figures"
    monkeypatch.chdir(tmp_path)
    assert report.figures_dir() == tmp_path.resolve() / "figures"
    monkeypatch.setenv("MINELAB_PROJECT", str(tmp_path / "proj"))
    assert report.figures_dir() == tmp_path.resolve() / "proj" / "figures"


def test_save_figure_atomic(figs):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    path = report.save_figure(fig, "antimatroid2012", "check_demo")
    plt.close(fig)
    assert path == figs / "antimatroid2012" / "check_demo.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # overwrite in place, still no temp files
    fig, ax = plt.subplots()
    report.save_figure(fig, "antimatroid2012", "check_demo.png")
    plt.close(fig)
    assert sorted(p.name for p in path.parent.iterdir()) == ["check_demo.png"]
    assert leftovers(figs) == []
    with pytest.raises(ValueError):
        report.save_figure(fig, "antimatroid2012", "../escape")


def test_save_figure_failure_leaves_no_temp_file(figs):
    class Broken:
        def savefig(self, *args, **kwargs):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        report.save_figure(Broken(), "antimatroid2012", "broken")
    assert list((figs / "antimatroid2012").iterdir()) == []


def test_save_table_csv_and_markdown(figs):
    df = pd.DataFrame({"mines": [1, 2], "win rate": [0.5, 0.123456789], "agent": ["a|b", None]})
    csv_path, md_path = report.save_table(df, "antimatroid2012", "fig_success_rates")
    assert csv_path.name == "fig_success_rates.csv" and md_path.name == "fig_success_rates.md"
    pd.testing.assert_frame_equal(pd.read_csv(csv_path), df.astype({"agent": object}), check_dtype=False)
    md = md_path.read_text().splitlines()
    assert md[0] == "| mines | win rate | agent |"
    assert md[1] == "|---:|---:|---|"
    assert md[2] == "| 1 | 0.5 | a\\|b |"
    assert md[3] == "| 2 | 0.123457 |  |"
    assert leftovers(figs) == []


def test_tables_and_measured_rows_ignore_the_last_bits_of_a_float(figs):
    """A rerun whose floats differ only in their last bits (another numpy's summation order)
    writes the same bytes; a difference in the twelfth significant digit still shows."""
    def write(x):
        df = pd.DataFrame({"k": [1, 2], "expected": [x, 0.1 + 0.2], "mixed": [x, "text"]})
        csv_path, md_path = report.save_table(df, "antimatroid2012", "t")
        measured = report.record_measured("antimatroid2012", {"item": "i", "quantity": "q", "value": x,
                                                              "ci_low": x / 2, "ci_high": x * 2},
                                          notebook="a.ipynb", profile="smoke")
        return [p.read_bytes() for p in (csv_path, md_path, measured)]

    first = write(1958.6298292427282)
    assert write(1958.6298292427286) == first
    assert first[0] == b"k,expected,mixed\n1,1958.62982924,1958.62982924\n2,0.3,text\n"
    assert write(1958.6298293427282)[0] != first[0]
    assert report.stable_float("0.1") == "0.1" and math.isnan(report.stable_float(math.nan))


# --------------------------------------------------------------------------- measured numbers

def test_record_measured_merges_on_item_quantity_profile(figs):
    rows = [
        {"item": "Mine uniformity", "quantity": "chi2 statistic", "value": 70.0, "ci_low": math.nan,
         "ci_high": math.nan, "games": 1000},
        {"item": "Random model", "quantity": "win rate 9x9x3", "value": 0.1, "ci_low": 0.08,
         "ci_high": 0.12, "games": 2000, "note": "first"},
    ]
    path = report.record_measured("antimatroid2012", rows, notebook="a.ipynb", profile="smoke")
    assert path == figs / "antimatroid2012" / "measured.csv"
    report.record_measured(
        "antimatroid2012",
        pd.DataFrame([{"item": "Random model", "quantity": "win rate 9x9x3", "value": 0.2,
                       "ci_low": 0.19, "ci_high": 0.21, "games": 9000, "note": "second"},
                      {"item": "Random model", "quantity": "win rate 9x9x4", "value": 0.05,
                       "ci_low": math.nan, "ci_high": math.nan, "games": pd.NA}]),
        notebook="b.ipynb", profile="smoke")
    report.record_measured("antimatroid2012", {"item": "Random model", "quantity": "win rate 9x9x3",
                                               "value": 0.3, "games": 10**6}, notebook="c.ipynb", profile="paper")
    df = pd.read_csv(path)
    assert list(df.columns) == ["item", "quantity", "value", "ci_low", "ci_high", "games", "runs", "note",
                                "notebook", "profile", "code"]
    assert df["code"].isna().all()  # no agents named, no result's stamp given: no code stamp (never stale)
    # same profile: replaced in place; another profile: kept beside it (a quick run
    # never overwrites a paper-size number)
    assert list(zip(df["item"], df["quantity"], df["profile"])) == [
        ("Mine uniformity", "chi2 statistic", "smoke"), ("Random model", "win rate 9x9x3", "smoke"),
        ("Random model", "win rate 9x9x4", "smoke"), ("Random model", "win rate 9x9x3", "paper")]
    replaced = df.iloc[1]
    assert (replaced["value"], replaced["games"], replaced["note"], replaced["notebook"], replaced["profile"]) \
        == (0.2, 9000, "second", "b.ipynb", "smoke")
    assert df.iloc[3]["value"] == 0.3
    assert df.iloc[0]["notebook"] == "a.ipynb" and df.iloc[0]["profile"] == "smoke"
    assert pd.isna(df.iloc[2]["games"]) and pd.isna(df.iloc[0]["ci_low"])
    logged = pd.read_csv(report.run_log_path())  # when and where: in the run log, not in the data
    assert {"date", "host"} <= set(logged.columns) and pd.Timestamp(logged["date"].iloc[-1]).tzinfo is not None
    loaded = report.load_measured("antimatroid2012")
    assert str(loaded["games"].dtype) == "Int64" and len(loaded) == 4
    assert leftovers(figs) == []


@pytest.mark.parametrize("rows, match", [
    ([{"item": "X", "quantity": "q"}], "missing 'value'"),
    ([{"item": "X", "quantity": "q", "value": "high"}], "value must be a number"),
    ([{"item": "X", "quantity": "q", "value": 1.0, "colour": "red"}], "unknown column"),
    ([{"item": "X", "quantity": "q", "value": 1.0, "games": 2.5}], "games"),
    ([{"item": "X", "quantity": "q", "value": 1.0, "ci_low": 2.0, "ci_high": 1.0}], "ci_low"),
    ([{"item": "X", "quantity": "q", "value": 1.0}, {"item": "X", "quantity": "q", "value": 2.0}], "repeat"),
])
def test_record_measured_rejects_bad_rows(figs, rows, match):
    with pytest.raises(ValueError, match=match):
        report.record_measured("antimatroid2012", rows, notebook="a.ipynb", profile="smoke")
    assert not (figs / "antimatroid2012" / "measured.csv").exists()


def test_record_measured_checks_profile_and_paper(figs):
    row = [{"item": "X", "quantity": "q", "value": 1.0}]
    with pytest.raises(ValueError, match="profile"):
        report.record_measured("antimatroid2012", row, notebook="a.ipynb", profile="fast")
    with pytest.raises(ValueError, match="unknown paper"):
        report.record_measured("antimatroid", row, notebook="a.ipynb", profile="quick")


# --------------------------------------------------------------------------- published data

def test_items_csv_lists_all_five_papers_and_the_leaderboard():
    items = report.load_items()
    assert set(items["paper"]) == set(report.PAPERS) == {
        "lordeiro2021", "buffet2012", "bilir2023", "gardea2015", "antimatroid2012", "leaderboard"}
    lordeiro = set(items.loc[items["paper"] == "lordeiro2021", "item"])
    assert lordeiro == {f"Fig {i}" for i in range(1, 13)} | {"Table I", "Table II", "Table III", "Table IV"}
    assert set(items.loc[items["paper"] == "buffet2012", "item"]) == {"Fig 1", "Fig 2", "Fig 3", "Fig 4", "Table 1",
                                                                           "Further work"}
    assert set(items.loc[items["paper"] == "bilir2023", "item"]) == {"Fig 1", "Fig A1", "Fig A2"}
    anti = items[items["paper"] == "antimatroid2012"].set_index("item")
    assert list(anti.index) == ["Mine uniformity", "Clicks before mine", "Random model", "Marginal model",
                                "Conditional model", "Graphical model", "Semi-deterministic model",
                                "Semi-deterministic (conditional fallback) model"]
    assert (anti["notebook"] == "antimatroid2012_agents.ipynb").all()
    gardea = items[items["paper"] == "gardea2015"].set_index("item")
    csp_items = ["CSP GUI", "CSP board size", "CSP mine density"]  # the CSP part has its own notebook
    assert (gardea.drop(index=csp_items)["notebook"] == "gardea2015_learners.ipynb").all()
    assert (items.loc[items["paper"] == "bilir2023", "notebook"] == "bilir2023_rl.ipynb").all()
    assert (items["title"] != "").all()


def test_items_name_the_function_that_makes_them():
    """'lordeiro2021 Fig 11' -> notebook -> function is one lookup: every item with a
    notebook names an importable function of a paper or study module, named after it."""
    import importlib

    items = report.load_items()
    for rec in items.to_dict("records"):
        if not rec["function"]:
            assert rec["notebook"] == "", f"{rec['paper']} {rec['item']} has a notebook but no function"
            continue
        module, _, name = rec["function"].rpartition(".")
        assert module.startswith(("minelab.papers.", "minelab.studies.")), rec["function"]
        assert callable(getattr(importlib.import_module(module), name)), rec["function"]
        assert name.startswith(("fig", "table", "check", "leaderboard")), rec["function"]
        nb = json.loads((ROOT / "notebooks" / rec["notebook"]).read_text())
        assert any(name in "".join(c["source"]) for c in nb["cells"]), f"{rec['notebook']} does not call {name}"


def test_items_note_is_optional(tmp_path):
    """items.csv's `note` column may be left out: every note then reads as empty."""
    (tmp_path / "items.csv").write_text("paper,item,title,notebook,function,files\n"
                                        "buffet2012,Fig 4,A Go position,,,fig04_*\n")
    items = report.load_items(tmp_path)
    assert list(items.columns) == list(report.ITEMS_COLUMNS) and items["note"].tolist() == [""]
    assert report.load_items().set_index(["paper", "item"]).loc[("buffet2012", "Fig 4"), "note"].startswith("The Go")


def test_items_with_a_notebook_name_an_existing_notebook_or_a_planned_one():
    items = report.load_items()
    for nb in set(items["notebook"]) - {""}:
        assert nb.endswith(".ipynb") and not nb.startswith("_"), nb


def test_published_csvs_load():
    for path in sorted(PUBLISHED.glob("*.csv")):
        if path.name in ("items.csv", "readings.csv", "reading_twins.csv"):
            continue
        assert path.stem in report.PAPERS, f"{path.name}: not a paper id"
        df = report.load_published(path.stem)
        assert len(df) > 0
        assert df["value"].notna().all()


def test_antimatroid_published_numbers():
    df = report.load_published("antimatroid2012").set_index(["item", "quantity"])["value"]
    assert df[("Mine uniformity", "chi2 statistic")] == 71.78
    assert df[("Mine uniformity", "chi2 critical 0.05")] == 101.87
    assert df[("Mine uniformity", "degrees of freedom")] == 80
    assert df[("Clicks before mine", "chi2 statistic")] == 47.24
    assert df[("Clicks before mine", "chi2 critical 0.05")] == 90.53
    assert df[("Clicks before mine", "degrees of freedom")] == 70
    items = report.load_items()
    assert set(df.index.get_level_values("item")) <= set(items.loc[items["paper"] == "antimatroid2012", "item"])


NAN = float("nan")
GOOD_HEADER = "paper,item,quantity,value,ci_low,ci_high,games,source,note,relation,twin,chosen_to_match,range\n"


@pytest.mark.parametrize("text", [
    "paper,item,value\nbilir2023,Fig 1,0.31\n",                                    # missing columns
    GOOD_HEADER + "bilir2023,Fig 1,win rate,abc,,,,Sec 5,,=,,,\n",                # value not a number
    GOOD_HEADER + "bilir2023,Fig 1,win rate,,,,,Sec 5,,=,,,\n",                   # value empty
    GOOD_HEADER + "buffet2012,Fig 1,win rate,0.31,,,,Sec 5,,=,,,\n",              # wrong paper
    GOOD_HEADER + "bilir2023,Fig 1,win rate,0.31,,,1.5,Sec 5,,=,,,\n",            # games not an integer
    GOOD_HEADER + "bilir2023,Fig 1,win rate,0.31,,,,Sec 5,,=,,,\nbilir2023,Fig 1,win rate,0.3,,,,x,,=,,,\n",  # repeat
    GOOD_HEADER + 'bilir2023,Fig 1,win rate,0.31,,,,"Sec 5,\n',                   # broken quoting
    GOOD_HEADER + "bilir2023,Fig 1,win rate,0.31,,,,Sec 5,,=,,,,extra,fields\n",  # too many fields
    GOOD_HEADER + "bilir2023,Fig 1,win rate,0.31,,,,Sec 5,,,,,\n",                # relation missing
    GOOD_HEADER + "bilir2023,Fig 1,win rate,0.26,,,,Sec 5,,≈,,,\n",               # ≈ without its range
    GOOD_HEADER + "bilir2023,Fig 1,win rate,0.26,,,,Sec 5,,=,maybe,,\n",          # twin neither '' nor 'none: ...'
])
def test_load_published_malformed_names_the_file(tmp_path, text):
    path = tmp_path / "bilir2023.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match="bilir2023.csv"):
        report.load_published("bilir2023", directory=tmp_path)


def test_load_published_good_and_missing(tmp_path):
    (tmp_path / "bilir2023.csv").write_text(GOOD_HEADER + 'bilir2023,Fig 1,win rate Q-learning,0.31,0.30,0.32,10000,'
                                            'Sec 5,"just over 31 percent",>,,,\n')
    df = report.load_published("bilir2023", directory=tmp_path)
    assert df.loc[0, "value"] == 0.31 and df.loc[0, "games"] == 10000 and df.loc[0, "note"] == "just over 31 percent"
    assert df.loc[0, "relation"] == ">" and df.loc[0, "rounding"] == 0.005  # half a unit of the last digit printed
    with pytest.raises(FileNotFoundError, match="gardea2015.csv"):
        report.load_published("gardea2015", directory=tmp_path)


# --------------------------------------------------------------------------- REPORT.md

def _sections(text: str) -> dict[str, str]:
    """'### <paper> <item>: ...' heading -> its section text."""
    parts = {}
    chunks = text.split("\n### ")
    for chunk in chunks[1:]:
        head, _, body = chunk.partition("\n")
        parts[head.split(":")[0]] = body.split("\n## ")[0]
    return parts


def test_build_report_lists_every_item(figs):
    path = report.build_report()
    assert path == figs / "REPORT.md"
    text = path.read_text()
    items = report.load_items()
    sections = _sections(text)
    for rec in items.to_dict("records"):
        assert f"{rec['paper']} {rec['item']}" in sections, rec
    for paper in report.PAPERS:
        assert f"\n## {paper}\n" in text
    # nothing measured yet: every published number is labelled and unreproduced
    uni = sections["antimatroid2012 Mine uniformity"]
    assert "| quantity | published | minelab (95% CI, games) | profile |" in uni
    assert "| chi2 statistic | 71.78 (published) | — |  | not yet reproduced |" in uni
    assert "figure only" in sections["antimatroid2012 Random model"]
    assert "notebooks/antimatroid2012_agents.ipynb" in uni
    assert "notebooks/lordeiro2021_bandits.ipynb" in sections["lordeiro2021 Fig 7"]
    assert "made by: `minelab.papers.lordeiro2021.fig11_size_heatmap()`" in sections["lordeiro2021 Fig 11"]
    assert "notebooks/buffet2012_optimistic_heuristics.ipynb" in sections["buffet2012 Table 1"]
    assert "made by: `minelab.papers.buffet2012.fig01_mcts_overview()`" in sections["buffet2012 Fig 1"]
    assert "- notebook: none\n" in sections["buffet2012 Fig 4"]  # no notebook: its note says why
    assert "The Go position itself is outside this suite" in sections["buffet2012 Fig 4"]
    assert leftovers(figs) == []


def test_build_report_joins_measured_and_links_files(figs):
    folder = report.figures_dir("antimatroid2012")
    (folder / "check_mine_uniformity.png").write_bytes(b"png")
    (folder / "fig_success_rates.csv").write_text("a\n1\n")
    (folder / "unrelated.png").write_bytes(b"png")
    report.record_measured("antimatroid2012", [
        {"item": "Mine uniformity", "quantity": "chi2 statistic", "value": 75.5, "games": 100000},
        {"item": "Random model", "quantity": "win rate 9x9x1", "value": 0.5, "ci_low": 0.49,
         "ci_high": 0.51, "games": 10000},
        {"item": "Flood vs no flood", "quantity": "chi2 statistic", "value": 3.0},
    ], notebook="antimatroid2012_agents.ipynb", profile="quick")
    text = report.build_report().read_text()
    sections = _sections(text)
    uni = sections["antimatroid2012 Mine uniformity"]
    assert "| chi2 statistic | 71.78 (published) | 75.5, 100,000 games | quick |" in uni
    assert "| chi2 critical 0.05 | 101.87 (published) | — |  | not yet reproduced |" in uni
    assert "[check_mine_uniformity.png](antimatroid2012/check_mine_uniformity.png)" in uni
    rnd = sections["antimatroid2012 Random model"]
    assert "| win rate 9x9x1 | no published value | 0.5 (0.49, 0.51), 10,000 games | quick |" in rnd
    assert "[fig_success_rates.csv](antimatroid2012/fig_success_rates.csv)" in rnd
    assert "unrelated.png" not in text
    other = sections["Other measured checks"]
    assert "| Flood vs no flood | chi2 statistic | no published value | 3 | quick |" in other


def test_build_report_custom_path_links_relative(figs, tmp_path):
    folder = report.figures_dir("antimatroid2012")
    (folder / "check_mine_uniformity.png").write_bytes(b"png")
    out = tmp_path / "elsewhere" / "R.md"
    assert report.build_report(out) == out
    assert "(../figures/antimatroid2012/check_mine_uniformity.png)" in out.read_text()


# --------------------------------------------------------------------------- notebooks

def notebook_problems(path: Path) -> list[str]:
    """What is wrong with a notebook to be committed: outputs, execution counts, parameters cell."""
    nb = json.loads(path.read_text())
    problems, params = [], []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            problems.append(f"cell {i} has outputs")
        if cell.get("execution_count") is not None:
            problems.append(f"cell {i} has an execution_count")
        if "parameters" in (cell.get("metadata", {}).get("tags") or []):
            params.append(cell)
    if len(params) != 1:
        problems.append(f"{len(params)} cells tagged 'parameters' (need exactly one)")
    else:
        source = params[0]["source"]
        source = "".join(source) if isinstance(source, list) else source
        names = {t.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Assign)
                 for t in node.targets if isinstance(t, ast.Name)}
        # a reproduced notebook runs sweeps (scheduler: where); the tour runs none
        needed = {"profile", "seed"} if path.name in reproduce.NOT_REPRODUCED else {"profile", "seed", "scheduler"}
        missing = needed - names
        if missing:
            problems.append(f"parameters cell does not set {sorted(missing)}")
    return problems


def _write_nb(path: Path, params_source: str, outputs=(), count=None) -> Path:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# title"]},
        {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "execution_count": None,
         "outputs": [], "source": params_source},
        {"cell_type": "code", "metadata": {}, "execution_count": count, "outputs": list(outputs),
         "source": "print(profile)"},
    ]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_notebook_checker(tmp_path):
    good = 'profile = "quick"\nseed = 0\nscheduler = None\nn_games = None\n'
    assert notebook_problems(_write_nb(tmp_path / "a.ipynb", good)) == []
    out = [{"output_type": "stream", "name": "stdout", "text": "quick\n"}]
    assert len(notebook_problems(_write_nb(tmp_path / "b.ipynb", good, outputs=out, count=3))) == 2
    assert notebook_problems(_write_nb(tmp_path / "c.ipynb", 'profile = "quick"\nseed = 0\n')) == [
        "parameters cell does not set ['scheduler']"]


@pytest.mark.skipif(not NOTEBOOKS, reason="no notebooks committed yet")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_notebook_is_clean_and_parameterized(path):
    assert notebook_problems(path) == [], path.name


# --------------------------------------------------------------------------- reproduce.run arguments

def test_reproduce_rejects_bad_profile(tmp_path):
    with pytest.raises(ValueError, match="profile"):
        reproduce.run(profile="fast", notebooks_dir=tmp_path, build_dir=tmp_path / "build")
    assert not (tmp_path / "build").exists()


def test_reproduce_rejects_unknown_notebook(tmp_path):
    (tmp_path / "alpha.ipynb").write_text("{}")
    (tmp_path / "_private.ipynb").write_text("{}")
    with pytest.raises(ValueError, match=r"unknown notebook 'beta'; available: alpha"):
        reproduce.run(profile="smoke", only="beta", notebooks_dir=tmp_path, build_dir=tmp_path / "build")
    with pytest.raises(ValueError, match="_private"):
        reproduce.run(profile="smoke", only=["_private"], notebooks_dir=tmp_path, build_dir=tmp_path / "build")
    assert not (tmp_path / "build").exists()


def test_reproduce_unknown_notebook_in_repo_lists_available():
    with pytest.raises(ValueError, match="available"):
        reproduce.run(profile="smoke", only="no_such_notebook")


def test_reproduce_requires_parameters_cell(tmp_path):
    (tmp_path / "alpha.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                      "nbformat_minor": 5}))
    with pytest.raises(ValueError, match="parameters"):
        reproduce.run(profile="smoke", notebooks_dir=tmp_path, build_dir=tmp_path / "build")


def test_reproduce_lists_notebooks_sorted_skipping_underscore(tmp_path):
    for name in ("b.ipynb", "a.ipynb", "_wip.ipynb"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in reproduce.list_notebooks(tmp_path)] == ["a.ipynb", "b.ipynb"]


def test_reproduce_checks_seed_and_scheduler(tmp_path):
    with pytest.raises(ValueError, match="seed"):
        reproduce.run(profile="smoke", seed=-1, notebooks_dir=tmp_path)
    with pytest.raises(ValueError, match="scheduler"):
        reproduce.run(profile="smoke", scheduler=8786, notebooks_dir=tmp_path)


def test_compare_joins_published_and_measured(figs):
    report.record_measured("antimatroid2012", [
        {"item": "Mine uniformity", "quantity": "chi2 statistic", "value": 75.5, "games": 100000},
        {"item": "Mine uniformity", "quantity": "p value", "value": 0.4},
        {"item": "Random model", "quantity": "success rate, 1 mines", "value": 0.75, "ci_low": 0.7,
         "ci_high": 0.8, "games": 400},
    ], notebook="antimatroid2012_agents.ipynb", profile="smoke")
    df = report.compare("antimatroid2012", "Mine uniformity")
    assert list(df.columns) == ["item", "quantity", "relation", "published", "minelab", "ci_low", "ci_high", "games",
                                "runs", "profile", "verdict"]
    lines = report.ledger("antimatroid2012").set_index(["item", "quantity"])["verdict"]  # the one judge
    assert list(df["verdict"]) == [lines[(r.item, r.quantity)] if r.relation else "" for r in df.itertuples()]
    assert list(df["quantity"]) == ["chi2 statistic", "chi2 critical 0.05", "degrees of freedom", "p value"]
    first = df.iloc[0]
    assert (first["published"], first["minelab"], first["games"], first["profile"]) == (71.78, 75.5, 100000, "smoke")
    assert pd.isna(df.iloc[1]["minelab"]) and df.iloc[1]["profile"] == ""
    assert pd.isna(df.iloc[3]["published"]) and df.iloc[3]["minelab"] == 0.4
    everything = report.compare("antimatroid2012")
    n_published = len(report.load_published("antimatroid2012"))
    assert len(everything) == n_published + 2 and "Random model" in set(everything["item"])  # + 2 measured only
    assert report.compare("antimatroid2012", "no such item").empty


@pytest.mark.parametrize("relation, pub, pub_lo, pub_hi, ours, lo, hi, expected", [
    ("=", 0.5, NAN, NAN, 0.51, 0.49, 0.53, "agrees"),
    ("=", 0.5, NAN, NAN, 0.55, 0.53, 0.57, "differs"),
    ("≈", 0.26, 0.255, 0.265, 0.27, 0.262, 0.28, "agrees"),     # intervals meet
    ("≈", 0.26, 0.255, 0.265, 0.20, 0.19, 0.21, "differs"),
    (">", 0.31, NAN, NAN, 0.35, 0.34, 0.36, "bound met"),
    (">", 0.31, NAN, NAN, 0.25, 0.24, 0.26, "bound not met"),
    (">", 0.31, NAN, NAN, 0.31, 0.30, 0.32, "undecided (our interval meets the bound)"),
    ("≤", 0.25, NAN, NAN, 0.20, 0.19, 0.21, "bound met"),
    ("≤", 0.25, NAN, NAN, 0.30, 0.29, 0.31, "bound not met"),
    ("≈", 8e6, 7.5e6, 8.5e6, 9e6, NAN, NAN, "differs"),        # a count: no interval, the value itself
    ("", 0.5, NAN, NAN, 0.1, 0.0, 0.2, ""),                     # not classified: no verdict
    ("=", 0.5, 0.49, 0.51, 0.53, 0.52, 0.54, "differs"),       # both intervals: the difference is significant
    ("=", 0.5, 0.47, 0.53, 0.53, 0.52, 0.54, "agrees"),
    ("=", 0.5, NAN, NAN, NAN, NAN, NAN, "not yet reproduced"),
])
def test_verdicts_follow_the_published_relation(relation, pub, pub_lo, pub_hi, ours, lo, hi, expected):
    assert report.verdict(relation, pub, pub_lo, pub_hi, ours, lo, hi) == expected


def test_published_relation_is_checked(tmp_path):
    (tmp_path / "bilir2023.csv").write_text(GOOD_HEADER + "bilir2023,Fig 1,win rate,0.31,,,,Sec 5,,~\n")
    with pytest.raises(ValueError, match="relation"):
        report.load_published("bilir2023", tmp_path)


# --------------------------------------------------------------------------- code stamps

def _made_by_a_function():
    """Builds a result the way a paper's figure function does."""
    return report.PaperResult("made_by_a_function", None, pd.DataFrame({"x": [1]}),
                              [{"item": "Stamp", "quantity": "x", "value": 1.0}])


def _papers_table_row(text: str, paper: str) -> str:
    """The row of `paper` in the report's table of papers."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| paper | figures and tables |"))
    return next(line for line in lines[start:] if line.startswith(f"| [{paper}]"))


def test_publish_stamps_the_function_agents_and_kinds_that_made_a_result(figs, monkeypatch):
    from minelab import provenance
    monkeypatch.setattr(report, "_maker_token", lambda name: f"fn:tests.made.{name}=abc")
    provenance.take()
    provenance.note(["play@1", "random=0123"])
    report.publish(_made_by_a_function(), "antimatroid2012", "a.ipynb", "smoke")
    stamped = report.load_stamps("antimatroid2012").set_index("file")
    code = "fn:tests.made.made_by_a_function=abc play@1 random=0123"
    assert stamped.loc["made_by_a_function_smoke", "code"] == code
    assert report.load_measured("antimatroid2012")["code"].tolist() == [code]
    assert provenance.take() == []  # what was noted belongs to that result only
    report.publish(_made_by_a_function(), "antimatroid2012", "a.ipynb", "smoke")  # rerun: nothing noted now
    assert report.load_stamps("antimatroid2012")["code"].tolist() == ["fn:tests.made.made_by_a_function=abc"]
    row = _papers_table_row(report.build_report().read_text(), "antimatroid2012")
    assert row.endswith("| 2 of 2 |")  # the file and the number: stamped on the function's own source only
    monkeypatch.setattr(report, "_maker_token", lambda name: f"fn:tests.made.{name}=abc dep:tests.made.{name}=def")
    report.publish(_made_by_a_function(), "antimatroid2012", "a.ipynb", "smoke")
    assert report.load_stamps("antimatroid2012")["code"].tolist() == [
        "dep:tests.made.made_by_a_function=def fn:tests.made.made_by_a_function=abc"]  # tokens sorted one by one
    row = _papers_table_row(report.build_report().read_text(), "antimatroid2012")
    assert row.endswith("| 0 of 2 |")


def test_the_maker_of_a_result_is_the_function_that_built_it(tmp_path, monkeypatch):
    from minelab import provenance
    from minelab.papers import antimatroid2012, lordeiro2021_boards
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path))
    provenance.take()
    result = antimatroid2012.check_mine_uniformity(boards=40, tasks=1, executor="serial")
    path = "minelab.papers.antimatroid2012.check_mine_uniformity"
    digest, reached = provenance.function_digest(path), provenance.closure_digest(path)
    assert result.maker == f"fn:{path}={digest} dep:{path}={reached}" and len(digest) == len(reached) == 12
    assert "mine_counts@1" in provenance.take()  # the sweep noted the task kind it served
    drawn = lordeiro2021_boards.drawing(lordeiro2021_boards.fig01_example_board)
    assert drawn.maker == provenance.function_token(lordeiro2021_boards.fig01_example_board)
    assert drawn.maker.startswith("fn:minelab.papers.lordeiro2021_boards.fig01_example_board=")
    assert provenance.function_digest("minelab.papers.lordeiro2021_boards.no_such_function") is None


def test_a_source_digest_ignores_docstrings_and_comments_but_not_code():
    from minelab import provenance
    ns = {}
    import linecache
    for name, text in (("a", 'def f(x):\n    """One."""\n    return x + 1  # a comment\n'),
                       ("b", 'def f(x):\n    """Two, longer."""\n\n    return x + 1\n'),
                       ("c", 'def f(x):\n    return x + 2\n')):
        filename = f"<stamp-test-{name}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        exec(compile(text, filename, "exec"), ns)
        ns[name] = ns["f"]
    a, b, c = (provenance.source_digest(ns[k]) for k in "abc")
    assert a == b != c


def _package_copy(tmp_path):
    import shutil
    import minelab
    root = tmp_path / "src"
    shutil.copytree(Path(minelab.__file__).parent, root / "minelab", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_what_a_function_reaches_is_in_its_dep_digest(tmp_path):
    """The dep: digest follows helpers and module constants by name, across the analysis
    layer's modules, from source text alone: a helper's constant, a stats function's
    code change it; a docstring, a comment or code outside what the function reaches do not."""
    from minelab import provenance
    root = _package_copy(tmp_path)
    read = provenance.package_reader(root)
    fn = "minelab.studies.strength.loss_profile"
    assert provenance.closure_digest(fn, read) == provenance.closure_digest(fn)
    reached = provenance.closure(fn)
    assert {"minelab.studies.strength.level_losses", "minelab.studies.strength.EARLY_REVEALED",
            "minelab.stats.wilson"} <= set(reached)  # a helper, its constant, a helper in another module
    assert not any(name.startswith(("minelab.agents", "minelab.engine", "minelab.report")) for name in reached)

    def digest_after(path, old, new):
        target = root / path
        text = target.read_text()
        assert old in text, old
        target.write_text(text.replace(old, new, 1))
        try:
            return provenance.closure_digest(fn, provenance.package_reader(root))
        finally:
            target.write_text(text)

    before = provenance.closure_digest(fn, read)
    strength, stats = "minelab/studies/strength.py", "minelab/stats.py"
    assert digest_after(strength, "EARLY_REVEALED = ", "EARLY_REVEALED = 1 + ") != before
    assert digest_after(stats, 'method="wilson"', 'method="exact"') != before
    assert digest_after(stats, "def wilson(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:\n",
                        "def wilson(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:\n"
                        "    # a comment\n") == before
    assert digest_after(strength, "def loss_profile(", "def _unused():\n    return 1\n\n\ndef loss_profile(") == before
    assert provenance.closure_digest("minelab.studies.strength.no_such_function") is None
    assert provenance.closure_digest("minelab.studies.strength.EARLY_REVEALED") is None  # not a function


def test_a_stamp_is_stale_when_an_agent_kind_or_function_changed():
    from minelab import provenance
    fn = "minelab.papers.antimatroid2012.check_mine_uniformity"
    today = provenance.function_digest(fn)
    code = f"fn:{fn}={today} play@1 csp=aa"
    assert provenance.stale_reason(code, {"csp": "aa"}, {"play": 1}) == ""
    assert provenance.stale_reason(code, {"csp": "bb"}, {"play": 1}) == "made by an earlier version of csp"
    assert "task kind play" in provenance.stale_reason(code, {"csp": "aa"}, {"play": 2})
    old = f"fn:{fn}=000000000000"
    assert "function check_mine_uniformity" in provenance.stale_reason(old, {}, {})
    assert provenance.stale_reason(old, {}, {}, functions=False) == ""
    assert provenance.stale_reason("", {}, {}) == ""
    reached = provenance.closure_digest(fn)
    assert provenance.stale_reason(f"{code} dep:{fn}={reached}", {"csp": "aa"}, {"play": 1}) == ""
    assert "what function check_mine_uniformity reaches" in provenance.stale_reason(
        f"{code} dep:{fn}=000000000000", {"csp": "aa"}, {"play": 1})
    assert provenance.helpers_unchecked(code) == [fn]
    assert provenance.helpers_unchecked(f"{code} dep:{fn}={reached}") == []


def test_a_code_digest_is_the_same_on_every_python():
    # ast.dump is not: 3.12 adds an empty type_params to every def, and 3.13 leaves empty
    # fields out. A committed stamp made on one Python must read as today's on another, so
    # the dump a digest hashes leaves out every field that is None or empty, on all of them.
    from minelab import provenance

    tree = ast.parse("def f(x, *, y=1):\n    '''doc'''\n    return f'{x!r}' + str(y)\n")
    assert provenance._dump(provenance._strip_docstrings(tree)) == (
        "Module(body=[FunctionDef(name='f', args=arguments(args=[arg(arg='x')], kwonlyargs=[arg(arg='y')], "
        "kw_defaults=[Constant(value=1)]), body=[Return(value=BinOp(left=JoinedStr(values=[FormattedValue("
        "value=Name(id='x', ctx=Load()), conversion=114)]), op=Add(), right=Call(func=Name(id='str', ctx=Load()), "
        "args=[Name(id='y', ctx=Load())])))])])")
