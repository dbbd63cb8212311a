"""The writing around the code says what is: no module docstring grows into a lab notebook,
the package, README and docs carry no internal tracker numbers, no "session" and no
dated history (numbers and their dates live in data: figures/, data/), and no function
takes more than 10 parameters without a reason beside it."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = sorted((ROOT / "minelab").rglob("*.py"))
TEXTS = PACKAGE + [ROOT / "README.md", ROOT / "CONTRIBUTING.md"] + sorted((ROOT / "docs").glob("*.md"))
MAX_DOCSTRING_LINES = 120
MAX_PARAMETERS = 10
# a reason beside a long signature: a comment right above it (or its decorators) saying
# "N parameters: why"
REASON = re.compile(r"#\s*(\d+) parameters: \S")

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


def _parameter_count(fn: ast.FunctionDef) -> int:
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    return len(names) - (1 if names[:1] in (["self"], ["cls"]) else 0)


def _unexplained_signatures(source: str, where: str) -> list[str]:
    """Functions of `source` over MAX_PARAMETERS parameters without a "# N parameters: ..."
    comment (N their count) in the comment block right above them."""
    lines = source.splitlines()
    out = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        n = _parameter_count(fn)
        if n <= MAX_PARAMETERS:
            continue
        i = min([fn.lineno] + [d.lineno for d in fn.decorator_list]) - 2
        block = []
        while i >= 0 and lines[i].lstrip().startswith("#"):
            block.append(lines[i])
            i -= 1
        said = [int(m.group(1)) for m in map(REASON.search, block) if m]
        if said != [n]:
            out.append(f"{where}:{fn.lineno}: {fn.name} takes {n} parameters; write the reason right above it "
                       f"as '# {n} parameters: ...' or take fewer")
    return out


def test_long_signatures_say_why():
    found = []
    for path in PACKAGE:
        found += _unexplained_signatures(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == []


def test_the_checks_can_fail():
    eleven = "def f(a, b, c, d, e, f, g, h, i, j, k):\n    pass\n"
    assert _unexplained_signatures(eleven, "x") and _unexplained_signatures("# 12 parameters: a\n" + eleven, "x")
    assert not _unexplained_signatures("# 11 parameters: the reason\n@kernel\n" + eleven, "x")
    assert not _unexplained_signatures("class A:\n    def m(self, a, b, c, d, e, f, g, h, i, j):\n        pass\n", "x")
    assert TRACKER.search("wide_fifty_fifty, issue 15") and not TRACKER.search(
        "issue #38 of the public repository DavidNHill/JSMinesweeper")
    assert SESSION.search("what did not help (this session)")
    assert DATE.search("Final evaluation (2026-11-26)")
