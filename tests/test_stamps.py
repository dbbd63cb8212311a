"""Committed results are what today's code makes: every result file under figures/ and
every measured row carries the code stamp of what made it (minelab.provenance), and a
stamp that no longer matches today's agents, task kinds or functions fails here, naming
the file or row and the one command that refreshes it."""
import ast
import importlib
import pkgutil
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")

import minelab.papers  # noqa: E402
import minelab.studies  # noqa: E402
from minelab import provenance, report, sweep  # noqa: E402
from minelab.paths import golden_digests  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "figures"
NOT_RESULTS = {"measured.csv", report.STAMPS_FILE}

for package in (minelab.papers, minelab.studies):  # every task kind registered
    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")


def refresh(notebook: str, profile: str) -> str:
    stem = Path(notebook).stem
    return f"minelab reproduce --only {stem}" + ("" if profile == "quick" else f" --profile {profile}")


def result_stems(paper: str) -> list[str]:
    folder = FIGURES / paper
    return sorted({p.stem for p in folder.iterdir()
                   if p.suffix in (".csv", ".png", ".md") and p.name not in NOT_RESULTS})


def stamps(paper: str) -> pd.DataFrame:
    path = FIGURES / paper / report.STAMPS_FILE
    return pd.read_csv(path, dtype=str, keep_default_na=False) if path.exists() else \
        pd.DataFrame(columns=list(report.STAMPS_COLUMNS))


def today_reason(code: str) -> str:
    return provenance.stale_reason(code, golden_digests(), sweep.kind_revisions(), functions=True)


PAPERS = [p for p in report.PAPERS if (FIGURES / p).is_dir()]


@pytest.mark.parametrize("paper", PAPERS)
def test_every_result_file_has_a_stamp(paper):
    known = set(stamps(paper)["file"])
    missing = [s for s in result_stems(paper) if s not in known]
    assert not missing, (f"figures/{paper}: result file(s) without a row in {report.STAMPS_FILE}: {missing}; "
                         "rerun the notebook that makes each (minelab reproduce --only NAME)")
    gone = sorted(known - set(result_stems(paper)))
    assert not gone, f"figures/{paper}/{report.STAMPS_FILE} stamps files that do not exist: {gone}"


def names_in_source() -> set[str]:
    """Every string constant and function name of the package: a result's name is one of
    them (a PaperResult's name, or the function that makes it)."""
    names = set()
    for path in (ROOT / "minelab").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
    return names


def test_every_stamped_result_is_named_by_the_code():
    """A result file no code names (a one-off run published under a name of its own) is not
    what `minelab reproduce` makes: a rerun would never refresh it."""
    known = names_in_source()
    orphans = []
    for paper in PAPERS:
        for r in stamps(paper).to_dict("records"):
            name = r["file"].removesuffix(report.output_name("", r["profile"]))  # the profile's suffix
            if name not in known:
                orphans.append(f"figures/{paper}/{r['file']}.* ({r['profile']})")
    assert not orphans, "result files no code of the package names, so no rerun makes them:\n" + \
        "\n".join(orphans)


@pytest.mark.parametrize("paper", PAPERS)
def test_every_stamped_result_is_made_by_todays_code(paper):
    stale = []
    for r in stamps(paper).to_dict("records"):
        reason = today_reason(r["code"])
        if reason:
            stale.append(f"figures/{paper}/{r['file']}.*: {reason}; refresh: {refresh(r['notebook'], r['profile'])}")
    assert not stale, "\n".join(stale)


@pytest.mark.parametrize("paper", PAPERS)
def test_every_stamped_measured_row_is_made_by_todays_code(paper):
    stale = []
    for r in report.load_measured(paper).to_dict("records"):
        reason = today_reason(r["code"])
        if reason:
            stale.append(f"figures/{paper}/measured.csv ({r['item']}, {r['quantity']}, {r['profile']}): {reason}; "
                         f"refresh: {refresh(r['notebook'], r['profile'])}")
    assert not stale, "\n".join(stale)


def unstamped() -> list[str]:
    out = []
    for paper in PAPERS:
        for r in stamps(paper).to_dict("records"):
            if not r["code"]:
                out.append(f"figures/{paper}/{r['file']}: {refresh(r['notebook'], r['profile'])}")
        for r in report.load_measured(paper).to_dict("records"):
            if not r["code"]:
                out.append(f"figures/{paper}/measured.csv ({r['item']}, {r['quantity']}, {r['profile']}): "
                           f"{refresh(r['notebook'], r['profile'])}")
    return out


def test_every_result_is_stamped():
    missing = unstamped()
    assert not missing, f"{len(missing)} results without a code stamp:\n" + "\n".join(missing)


def test_every_kept_result_is_made_by_todays_code():
    """data/kept holds long tasks' results (`minelab keep`); one that today's code would not
    serve is dead weight that a reader could take for evidence."""
    root = Path(__file__).resolve().parent.parent / "data" / "kept"
    stale = []
    for path in sweep._result_files(root):
        problem = sweep._served_problem(path)
        if problem:
            stale.append(f"{path.relative_to(root.parent.parent)}: {problem}")
    assert not stale, "kept results today's code would not serve (minelab keep --prune removes them):\n" + \
        "\n".join(stale)


def test_the_committed_report_is_what_the_committed_data_gives(monkeypatch):
    """figures/REPORT.md is built from the data (report.build_report): a committed result
    whose report was not rebuilt leaves numbers a reader never sees."""
    written = {}

    def keep(path, text):
        written[Path(path)] = text
        return Path(path)
    monkeypatch.setattr(report, "_write_text", keep)  # built, not written
    report.build_report()
    path = FIGURES / "REPORT.md"
    assert written[path] == path.read_text(), \
        "figures/REPORT.md is not what the committed data gives: run minelab.report.build_report()"
