"""The documentation is true: the examples in the docstrings and every ```python block of
README.md and docs/*.md run, the README's generated tables (agents, papers) are those of
the code today, and every relative link points to a file that exists."""
import doctest
import importlib
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\S*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
LANGUAGES = {"python", "bash", "text"}  # python runs; bash and text are shown, never run

MODULES = ["minelab.levels", "minelab.engine", "minelab.stats", "minelab.runner", "minelab.agents.base",
           "minelab.sweep", "minelab.tasks", "minelab.report", "minelab.reproduce", "minelab.playthrough",
           "minelab.paths", "minelab.render", "minelab.probability", "minelab.envs", "minelab.agents.rl.table",
           "minelab.exact", "minelab.catalog", "minelab.noguess"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch, tmp_path):
    monkeypatch.setenv("MINELAB_FIGURES_DIR", str(tmp_path / "figures"))
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


def test_help_lists_the_entry_points():
    import minelab as ml

    for entry in ("ml.Level", "ml.Game", "ml.make_agent", "ml.play", "ml.summarize", "ml.mine_probabilities",
                  "ml.BoardViewer", "ml.list_agents", "minelab.sweep", "minelab.papers"):
        assert entry in ml.__doc__, entry


# --------------------------------------------------------------------------- README and docs/

def _blocks(path: Path) -> list[tuple[str, int, str]]:
    """(language, line of the opening fence, code) of every fenced block of a markdown file."""
    text = path.read_text()
    return [(m.group(1), text.count("\n", 0, m.start()) + 1, m.group(2)) for m in FENCE.finditer(text)]


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_every_fence_says_its_language():
    """A block is python (run below), bash or text (shown only): none is left out of the run
    by a missing or unknown language."""
    for path in DOCS:
        for lang, line, _ in _blocks(path):
            assert lang in LANGUAGES, f"{_name(path)}:{line}: fence the block as one of {sorted(LANGUAGES)}"


@pytest.mark.parametrize("path", [p for p in DOCS if any(b[0] == "python" for b in _blocks(p))], ids=_name)
def test_python_blocks_run(path, tmp_path, monkeypatch):
    """A file's python blocks, in order, in one namespace (fresh per file), run from an empty
    directory: what a reader who pastes them gets."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MINELAB_PROJECT", str(tmp_path))
    monkeypatch.setenv("MINELAB_FIGURES_DIR", str(tmp_path / "figures"))
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))
    namespace = {"__name__": "__main__"}
    for lang, line, code in _blocks(path):
        if lang == "python":
            exec(compile(code, f"{_name(path)}:{line + 1}", "exec"), namespace)


def test_readme_tables_are_generated():
    """The agents and papers tables of README.md are what `make docs` writes today."""
    from minelab import catalog

    text = catalog.README.read_text()
    assert catalog.rewrite(text) == text, "README.md's tables are out of date: run `make docs`"


def test_the_agents_page_lists_every_parameter_as_the_specs_say():
    """docs/agents.md's parameters table is what `make docs` writes today."""
    from minelab import catalog

    text = catalog.AGENTS_DOC.read_text()
    names = catalog.SECTIONS[catalog.AGENTS_DOC]
    assert catalog.rewrite(text, names) == text, "docs/agents.md's parameters table is out of date: run `make docs`"
    assert "| `best` | `max_work` |" in text and "`first_click`" in text


def test_the_benchmarks_page_shows_the_saved_figures():
    """docs/benchmarks.md's tables are what `make docs` writes from data/bench today."""
    from minelab import catalog

    text = catalog.BENCH_DOC.read_text()
    assert catalog.rewrite(text, catalog.SECTIONS[catalog.BENCH_DOC]) == text, (
        "docs/benchmarks.md's saved figures are out of date: run `make docs`")


def test_the_deal_speed_in_the_docs_is_the_saved_one():
    """docs/index.md's no-guess deal table is what `make docs` writes from data/bench/deal.csv."""
    from minelab import benchdata, catalog

    text = catalog.INDEX_DOC.read_text()
    assert catalog.rewrite(text, catalog.SECTIONS[catalog.INDEX_DOC]) == text, (
        "docs/index.md's deal table is out of date: run `make docs`")
    expert = benchdata.load("deal").set_index("level").loc["16x30x99:no-guess"]
    assert f"| 16x30x99 | (3, 3) | {100 * expert['acceptance']:.1f}% | {expert['boards_per_second']:,.0f} |" in text


def test_a_stale_table_is_caught():
    from minelab import catalog

    text = catalog.README.read_text()
    stale = text.replace("| `hcsp` |", "| `hcsp-old` |")
    assert stale != text and catalog.rewrite(stale) == text


def test_the_catalog_knows_every_agent():
    import minelab as ml
    from minelab import catalog

    table = catalog.agents_table()
    for name in ml.list_agents():
        assert f"| `{name}` |" in table


def test_readme_reads_top_down():
    """Title first, the quick start early, short enough to read in five minutes."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert lines[0] == "# minelab"
    assert len(lines) <= 220
    first_python = next(line for lang, line, _ in _blocks(ROOT / "README.md") if lang == "python")
    assert first_python <= 60


LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)\)")


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of a markdown file's headings."""
    out = set()
    text = FENCE.sub("", path.read_text())
    for heading in re.findall(r"^#+\s+(.*?)\s*$", text, re.M):
        slug = unicodedata.normalize("NFKC", heading).lower().replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", slug).replace(" ", "-")
        out.add(slug)
    return out


@pytest.mark.parametrize("path", DOCS, ids=_name)
def test_relative_links_point_to_files(path):
    text = FENCE.sub("", path.read_text())
    links = LINK.findall(text)
    for link in links:
        if re.match(r"[a-z][a-z0-9+.-]*:", link):  # http:, https:, mailto:
            continue
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        assert file.exists(), f"{_name(path)}: {link} points to nothing"
        if anchor and file.suffix == ".md":
            assert anchor in _anchors(file), f"{_name(path)}: {link}: no heading #{anchor} in {file.name}"
