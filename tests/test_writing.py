"""The writing around the code says what is: no module docstring grows into a lab notebook,
and the package, README and docs carry no internal tracker numbers, no "session" and no
dated history (numbers and their dates live in data: figures/, data/)."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = sorted((ROOT / "minelab").rglob("*.py"))
TEXTS = PACKAGE + [ROOT / "README.md", ROOT / "CONTRIBUTING.md"] + sorted((ROOT / "docs").glob("*.md"))
MAX_DOCSTRING_LINES = 120

# a tracker number of this project ("issue 15", "issue #4"); another repository's issue,
# cited as a source, names that repository ("issue #38 of the public repository ...")
TRACKER = re.compile(r"\bissue\s*#?\d+\b(?! of the public repository)", re.IGNORECASE)
SESSION = re.compile(r"\bsessions?\b", re.IGNORECASE)
DATE = re.compile(r"\b(?:19|20)\d\d-\d\d-\d\d\b")
# dates that are part of what the text describes, not a history: a citation's date
DATED_OK = {("docs/reproductions.md", "MineSweeperProb (2024-04-30")}


@pytest.mark.parametrize("path", PACKAGE, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_docstrings_describe_not_log(path):
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert len(doc.splitlines()) <= MAX_DOCSTRING_LINES, (
        f"{path.relative_to(ROOT)}: a {len(doc.splitlines())}-line module docstring; at most {MAX_DOCSTRING_LINES}: "
        "describe the code as it is, and put measurements in data (report.publish)")


def _hits(pattern, allowed=()):
    out = []
    for path in TEXTS:
        rel = str(path.relative_to(ROOT))
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line) and not any(rel == f and s in line for f, s in allowed):
                out.append(f"{rel}:{i}: {line.strip()[:100]}")
    return out


def test_no_tracker_numbers_or_sessions():
    assert _hits(TRACKER) == []
    assert _hits(SESSION) == []


def test_no_dated_history():
    assert _hits(DATE, DATED_OK) == []


def test_the_checks_can_fail():
    assert TRACKER.search("wide_fifty_fifty, issue 15") and not TRACKER.search(
        "issue #38 of the public repository DavidNHill/JSMinesweeper")
    assert SESSION.search("what did not help (this session)")
    assert DATE.search("Final evaluation (2026-11-26)")
