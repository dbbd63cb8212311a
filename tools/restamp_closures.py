"""Checked `dep:` stamps for committed results made before `dep:` existed.

A result's stamp names the function that built it: `fn:` with the digest of its own
source, and `dep:` with the digest of it and every definition it reaches
(`minelab.provenance.closure_digest`). For each committed row with `fn:` and no `dep:`,
this tool finds the commit that wrote the row's numbers, computes the closure on that
commit's source files, and adds the `dep:` token only when it reads as today's. A row
whose helpers or constants differ between that commit and today keeps its `fn:` token
alone and is listed with the definitions that differ: for it only the function's own
source is checked, and a rerun of its notebook gives it a `dep:` token.

Which commit wrote a row's numbers: the oldest commit of the unbroken run up to today in
which they read as they do today, floats compared at the 12 significant digits results
are written with (a rewrite of the digits alone is not a new number, nor is a new code
stamp). For a row of a paper's `stamps.csv`, that is its table (figures/<paper>/<file>.csv;
a figure without a table: the last commit that changed one of its files); for a row of
`measured.csv`, the row itself without its code column. If the closure at that commit
reads as today's, today's code gives those numbers; a closure that differs only flags
the row (the numbers may still be what today's code gives; a rerun tells).

    python tools/restamp_closures.py            # report only
    python tools/restamp_closures.py --write    # add dep: to the rows that check out

It needs git and the repository's history; minelab never imports it.
"""
from __future__ import annotations

import argparse
import csv
import io
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from minelab import provenance, report  # noqa: E402

FIGURES = ROOT / "figures"


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout


def commit_reader(commit: str):
    """`read(module)` over the files of `commit`, for `provenance.closure`."""
    names = set(git("ls-tree", "-r", "--name-only", commit, "minelab").split())
    cache: dict[str, tuple[str, bool] | None] = {}

    def read(module: str):
        if module not in cache:
            stem = module.replace(".", "/")
            cache[module] = None
            for path, is_package in ((f"{stem}.py", False), (f"{stem}/__init__.py", True)):
                if path in names:
                    cache[module] = (git("show", f"{commit}:{path}"), is_package)
                    break
        return cache[module]
    return read


def file_history(path: Path) -> list[str]:
    """Commits that changed `path`, newest first."""
    return git("log", "--format=%H", "--", str(path.relative_to(ROOT))).split()


def _cell(text: str) -> str:
    """A CSV cell as its number reads at the significant digits results are written in
    (`report.stable_float`), so a rewrite of the digits alone is not a new number."""
    try:
        return repr(report.stable_float(float(text)))
    except ValueError:
        return text


def _rows(text: str, drop: str | None = None) -> list[tuple[str, ...]]:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return []
    keep = [i for i, name in enumerate(rows[0]) if name != drop]
    return [tuple(_cell(row[i]) if i < len(row) else "" for i in keep) for row in rows]


def row_commits(path: Path) -> dict[tuple[str, ...], str]:
    """{row of the CSV `path` as it reads today, without its code column: the oldest
    commit of the unbroken run up to today in which the file has that row}."""
    rel = str(path.relative_to(ROOT))
    alive = set(_rows(path.read_text(), drop="code")[1:])
    since: dict[tuple[str, ...], str] = {}
    for commit in file_history(path):
        rows = set(_rows(git("show", f"{commit}:{rel}"), drop="code")[1:])
        for row in list(alive):
            if row in rows:
                since[row] = commit
            else:
                alive.discard(row)
        if not alive:
            break
    return since


def result_commit(paper: Path, stem: str) -> str | None:
    """The oldest commit of the unbroken run up to today in which the result's table
    (figures/<paper>/<stem>.csv) reads as today; a result without a table: the last
    commit that changed one of its files."""
    table = paper / f"{stem}.csv"
    if not table.exists():
        rels = [str(p.relative_to(ROOT)) for p in sorted(paper.glob(stem + ".*"))]
        return git("log", "-1", "--format=%H", "--", *rels).strip() or None
    today = _rows(table.read_text())
    found = None
    for commit in file_history(table):
        if _rows(git("show", f"{commit}:{table.relative_to(ROOT)}")) != today:
            break
        found = commit
    return found


# Edits that leave every value the same, each checked by reading it in full: an older
# syntax tree is rewritten to today's form before the two are compared.
#
# minelab.stats imported scipy.stats once as `_st` at the top of the module; it now calls
# `_stats()`, a function returning the same module, imported on first use. The calls made
# (binomtest, chisquare, chi2.ppf, mannwhitneyu, fisher_exact, t.ppf) and their arguments
# are unchanged.
_ST_MODULE = "Name(id='_st', ctx=Load())"
_STATS_CALL = "Call(func=Name(id='_stats', ctx=Load()), args=[], keywords=[])"
ADDED = {"minelab.stats._stats"}  # a definition that only serves such an edit


def _as_today(name: str, dump: str) -> str:
    if name.startswith("minelab.stats."):
        return dump.replace(_ST_MODULE, _STATS_CALL)
    return dump


class Checker:
    def __init__(self):
        self.readers: dict[str, object] = {}
        self.today: dict[str, dict | None] = {}
        self.then: dict[tuple[str, str], dict | None] = {}

    def differs(self, path: str, commit: str) -> list[str] | None:
        """The definitions of `path`'s closure that differ between `commit` and today
        ([] when none do); None when the function is missing at either."""
        if path not in self.today:
            self.today[path] = provenance.closure(path)
        if (path, commit) not in self.then:
            if commit not in self.readers:
                self.readers[commit] = commit_reader(commit)
            self.then[(path, commit)] = provenance.closure(path, self.readers[commit])
        now, then = self.today[path], self.then[(path, commit)]
        if now is None or then is None:
            return None
        then = {k: _as_today(k, v) for k, v in then.items()}
        added = {k for k in ADDED if k not in then}
        return sorted(k for k in now.keys() | then.keys() if now.get(k) != then.get(k) and k not in added)


def restamp_code(code: str, commit: str | None, checker: Checker, problems: list[str], where: str) -> str:
    """`code` with a `dep:` token for each `fn:` function whose closure at `commit` reads
    as today's; the others are listed in `problems` and left without one."""
    tokens = set(code.split())
    for path in provenance.helpers_unchecked(code):
        if commit is None:
            problems.append(f"{where}: {path}: no commit wrote it")
            continue
        diff = checker.differs(path, commit)
        if diff:
            problems.append(f"{where}: {path} (written at {commit[:8]}) differs today in: {', '.join(diff)}")
        elif diff is None:
            problems.append(f"{where}: {path}: not a function at {commit[:8]} or today")
        else:
            tokens.add(f"dep:{path}={provenance.closure_digest(path)}")
    return " ".join(sorted(tokens))


def rewrite_csv(path: Path, fix) -> tuple[str, int]:
    """(new text, rows changed) of CSV `path` with fix(row, line) applied to each row."""
    text = path.read_text()
    lines = text.splitlines()
    rows = list(csv.DictReader(io.StringIO(text)))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0].keys()) if rows else [], lineterminator="\n")
    writer.writeheader()
    changed = 0
    for row, line in zip(rows, lines[1:]):
        new = fix(row, line)
        changed += new["code"] != row["code"]
        writer.writerow(new)
    return out.getvalue(), changed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite the rows that check out")
    args = ap.parse_args(argv)
    checker = Checker()
    problems: list[str] = []
    total = 0
    for paper in sorted(p for p in FIGURES.iterdir() if p.is_dir()):
        stamps = paper / "stamps.csv"
        if stamps.exists():
            def fix_stamp(row, line, paper=paper):
                if not provenance.helpers_unchecked(row["code"]):
                    return row
                commit = result_commit(paper, row["file"])
                return {**row, "code": restamp_code(row["code"], commit, checker, problems,
                                                    f"{paper.name}/{row['file']}")}
            text, n = rewrite_csv(stamps, fix_stamp)
            total += n
            if args.write and n:
                stamps.write_text(text)
        measured = paper / "measured.csv"
        if measured.exists():
            since = row_commits(measured)
            header = next(csv.reader(io.StringIO(measured.read_text())))

            def fix_measured(row, line, since=since, paper=paper, header=header):
                if not provenance.helpers_unchecked(row["code"]):
                    return row
                key = tuple(_cell(row[name]) for name in header if name != "code")
                return {**row, "code": restamp_code(row["code"], since.get(key), checker, problems,
                                                    f"{paper.name}/measured.csv {row['item']!r} {row['quantity']!r}")}
            text, n = rewrite_csv(measured, fix_measured)
            total += n
            if args.write and n:
                measured.write_text(text)
    print(f"{total} rows given a dep: token" + ("" if args.write else " (dry run)"))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
