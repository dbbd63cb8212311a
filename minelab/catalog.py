"""The generated tables of the README, docs/agents.md, docs/benchmarks.md and docs/index.md:
every registered agent, every paper's notebooks, every agent's parameters, the saved speed
figures, the no-guess deal's speed, the notebooks' run times and peak memory.

`agents_table()` reads the agent registry (minelab.agents); `papers_table()` reads
data/published/items.csv (minelab.report.load_items); `parameters_table()` reads each
family's parameter spec (`Params`, minelab.agents.spec); `bench_tables()`, `deal_table()`
and `reproduce_table()` read data/bench/*.csv (`minelab bench WHAT --save`, minelab.benchdata).
Each file holds its tables between marker comments, and

    python -m minelab.catalog --write      # or: make docs

rewrites those sections in place; `python -m minelab.catalog --check` exits 1 when they are
out of date (tests/test_docs.py checks the same).

    >>> from minelab.catalog import agents_table, papers_table
    >>> agents_table().splitlines()[0]
    '| agent | family | paper | module | what it does |'
    >>> "`minelab reproduce --only bilir2023_rl`" in papers_table()
    True
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from . import agents as _agents
from . import benchdata
from .report import PAPERS, load_items

README = Path(__file__).resolve().parent.parent / "README.md"
AGENTS_DOC = README.parent / "docs" / "agents.md"
BENCH_DOC = README.parent / "docs" / "benchmarks.md"
INDEX_DOC = README.parent / "docs" / "index.md"

#: the paper each agent family comes from (the family: the module or folder under
#: minelab/agents/ it lives in); None for minelab's own.
FAMILY_PAPER: dict[str, str | None] = {
    "simple": None,
    "marginal": "antimatroid2012",
    "blog": "antimatroid2012",
    "bandit": "lordeiro2021",
    "csp": "buffet2012",
    "uct": "buffet2012",
    "rl": "bilir2023",
    "gardea": "gardea2015",
    "best": None,
    "optimal": None,
}
#: where one agent of a family comes from elsewhere than its family
AGENT_PAPER: dict[str, str | None] = {
    "random": "antimatroid2012",  # the blog's Random model
}

_ABBREVIATIONS = ("al", "e.g", "i.e", "cf", "Alg", "Fig", "Figs", "vs", "etc", "resp")
# a sentence ends at a full stop followed by white space or the end of the paragraph
_SENTENCE_END = re.compile(r"(?<=[.!?])(\s+|$)")


def first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring, on one line ("et al." and the like do not end it).

        >>> first_sentence("Gardea et al.'s CSP. Then more.")
        "Gardea et al.'s CSP."
    """
    paragraph = re.split(r"\n\s*\n", (doc or "").strip())[0]
    text = " ".join(paragraph.split())
    for match in _SENTENCE_END.finditer(text):
        head = text[: match.start()]
        word = re.split(r"[\s(]", head)[-1].rstrip(".")
        if word in _ABBREVIATIONS or word.endswith(" al"):
            continue
        return head
    return text


def family(cls: type) -> str:
    """The family of an agent class: the module or folder under minelab/agents/ it lives in."""
    parts = cls.__module__.split(".")
    if parts[:2] != ["minelab", "agents"] or len(parts) < 3:
        raise ValueError(f"{cls.__name__} lives outside minelab.agents ({cls.__module__})")
    return parts[2]


def paper_of(name: str, cls: type) -> str | None:
    """The paper an agent comes from (a key of minelab.report.PAPERS), or None for minelab's own."""
    if name in AGENT_PAPER:
        return AGENT_PAPER[name]
    fam = family(cls)
    if fam not in FAMILY_PAPER:
        raise ValueError(f"agent family {fam!r} ({name}) is not in minelab.catalog.FAMILY_PAPER: "
                         f"say which paper it comes from (None for minelab's own)")
    return FAMILY_PAPER[fam]


def _module_link(module: str) -> str:
    path = Path(*module.split("."))
    source = f"{path}.py"
    if (README.parent / path).is_dir():
        source = f"{path}/__init__.py"
    return f"[`{module}`]({source})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def agents_table() -> str:
    """Every registered agent, one row each (markdown): name, family, paper, module and the
    first sentence of its class docstring."""
    rows = ["| agent | family | paper | module | what it does |", "|---|---|---|---|---|"]
    for name in _agents.list_agents():
        cls = type(_agents.make_agent(name))
        paper = paper_of(name, cls)
        rows.append(f"| `{name}` | {family(cls)} | {f'`{paper}`' if paper else 'minelab'} | "
                    f"{_module_link(cls.__module__)} | {_cell(first_sentence(cls.__doc__))} |")
    return "\n".join(rows)


def papers_table() -> str:
    """One row per paper of data/published/items.csv (markdown): what it studies, its
    notebooks, how many of its figures and tables a notebook regenerates, and the command."""
    items = load_items()
    rows = ["| paper | what it studies | notebook | figures and tables | command |", "|---|---|---|---|---|"]
    for paper in [p for p in PAPERS if p in set(items["paper"])]:
        mine = items[items["paper"] == paper]
        notebooks = [nb for nb in dict.fromkeys(mine["notebook"]) if nb]
        made = int((mine["notebook"] != "").sum())
        count = f"{made}" if made == len(mine) else f"{made} of {len(mine)}"
        topic = PAPERS[paper].split(": ", 1)[-1]
        links = "<br>".join(f"[`{nb}`](notebooks/{nb})" for nb in notebooks) or "not yet"
        commands = "<br>".join(f"`minelab reproduce --only {Path(nb).stem}`" for nb in notebooks)
        rows.append(f"| `{paper}` | {_cell(topic)} | {links} | {count} | {commands} |")
    return "\n".join(rows)


def parameters_table() -> str:
    """Every registered agent's parameters, one row each (markdown), from its family's spec:
    name, default, what it accepts, what it does."""
    rows = ["| agent | parameter | default | accepts | what it does |", "|---|---|---|---|---|"]
    for name in _agents.list_agents():
        cls = type(_agents.make_agent(name))
        params = cls.Params.describe() if cls.Params is not None else []
        if not params:
            rows.append(f"| `{name}` | none | | | |")
        for i, p in enumerate(params):
            agent = f"`{name}`" if i == 0 else ""
            rows.append(f"| {agent} | `{p['name']}` | `{p['default']!r}` | {_cell(p['accepts'])} | {_cell(p['doc'])} |")
    return "\n".join(rows)


def bench_tables() -> str:
    """The checkout's saved speed figures (data/bench/*.csv), a table per `minelab bench WHAT`."""
    return benchdata.tables(README.parent)


def deal_table() -> str:
    """The no-guess deal's saved speed (data/bench/deal.csv, `minelab bench deal --save`):
    per level, the first click, the share of boards kept and boards dealt a second."""
    df = benchdata.load("deal", README.parent)
    if df is None or not len(df):
        return "No deal speed is saved yet: run `minelab bench deal --save`."
    first = df.iloc[0]
    lines = [f"Measured by `minelab bench deal --seconds {first['seconds_per_measurement']:g}` on one core, from "
             f"the zero start's first cell, on {benchdata.machine_text(first)}:", "",
             "| level | first click | boards kept | boards/s |",
             "|---|---|---:|---:|"]
    for row in df.itertuples(index=False):
        click = re.search(r"first click (\(\d+, \d+\))", str(row.what))
        lines.append(f"| {str(row.level).split(':')[0]} | {click.group(1) if click else ''} | "
                     f"{100 * float(row.acceptance):.1f}% | {float(row.boards_per_second):,.0f} |")
    return "\n".join(lines)


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def reproduce_table(root: Path | None = None) -> str:
    """The README's run times and peak memory: the saved `minelab bench reproduce` run
    (data/bench/reproduce.csv of `root`, default this checkout), one row per notebook, then
    what it was run on and with which caches."""
    df = benchdata.load("reproduce", root if root is not None else README.parent)
    if df is None or not len(df):
        return "No run is saved yet: run `minelab bench reproduce --save`."
    first = df.iloc[0]
    fresh = first["results_cache"] == "empty" and first["numba_cache"] == "empty"
    lines = [f"| notebook ({first['profile']}{', every task computed' if fresh else ''}) | time | largest process "
             f"| all processes |", "|---|---:|---:|---:|"]
    for row in df.itertuples(index=False):
        lines.append(f"| {row.what} | {float(row.seconds):,.0f} s | {float(row.largest_process_gib):.1f} GB "
                     f"| {float(row.all_processes_gib):.1f} GB |")
    caches = ("an empty results cache and an empty numba cache, so each row includes computing every task and "
              "compiling the kernels its notebook is the first in this order to use" if fresh else
              f"{_a(first['results_cache'])} results cache and {_a(first['numba_cache'])} numba cache")
    total = float(df["seconds"].sum())
    lines += ["", f"(`minelab bench reproduce --profile {first['profile']} --save`, {total:,.0f} s in all, on "
              f"{benchdata.machine_text(first)}, minelab source `{first['source']}`, with {caches}. "
              f"GB are GiB.)"]
    return "\n".join(lines)


TABLES = {"agents-table": agents_table, "papers-table": papers_table, "parameters-table": parameters_table,
          "bench-tables": bench_tables, "deal-table": deal_table, "reproduce-table": reproduce_table}
SECTIONS = {README: ("reproduce-table", "agents-table", "papers-table"), AGENTS_DOC: ("parameters-table",),
            BENCH_DOC: ("bench-tables",), INDEX_DOC: ("deal-table",)}


def _section(name: str) -> re.Pattern:
    return re.compile(rf"(<!-- {name}:start -->\n)(.*?)(<!-- {name}:end -->)", re.S)


def rewrite(text: str, names=SECTIONS[README]) -> str:
    """`text` (the README by default; `names` the sections a file holds) with every
    generated section replaced by its table today."""
    for name in names:
        pattern = _section(name)
        if not pattern.search(text):
            raise ValueError(f"no <!-- {name}:start --> ... <!-- {name}:end --> section")
        table = TABLES[name]()
        text = pattern.sub(lambda m: f"{m.group(1)}{table}\n{m.group(3)}", text, count=1)
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minelab.catalog", description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="rewrite the generated sections of every file")
    group.add_argument("--check", action="store_true", help="exit 1 when a file's tables are out of date")
    parser.add_argument("--readme", type=Path, default=README, help="the README to rewrite (default: README.md)")
    args = parser.parse_args(argv)
    if not (args.write or args.check):
        print(agents_table(), papers_table(), parameters_table(), sep="\n\n")
        return 0
    stale = 0
    files = {args.readme if path == README else path: names for path, names in SECTIONS.items()}
    for path, names in files.items():
        old = path.read_text()
        new = rewrite(old, names)
        if new == old:
            continue
        if args.check:
            print(f"{path}: the generated tables are out of date (python -m minelab.catalog --write)")
            stale = 1
        else:
            path.write_text(new)
            print(f"rewrote {path}")
    return stale


if __name__ == "__main__":
    sys.exit(main())
