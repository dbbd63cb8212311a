"""What both harnesses share: the pinned checkout's check, the CSV rows they write
(data/authors/<paper>.csv) and their intervals.

Imported by run_banditsweeper.py and run_cs238project.py from beside them (they run as
scripts). Columns as minelab.ledger.AUTHORS_COLUMNS; a file is rewritten whole through a
temporary file and a rename, so an interrupted run leaves the last complete file.
"""
from __future__ import annotations

import contextlib
import csv
import os
import subprocess
import sys
import tempfile
from pathlib import Path

COLUMNS = ["paper", "item", "quantity", "value", "ci_low", "ci_high", "games", "runs", "program", "commit",
           "command", "seeds", "note"]


def check_checkout(path: Path, *, program: str, marker: str, repository: str, pinned: str, patch: Path,
                   root: Path) -> None:
    """Exit with a message naming `program` unless `path` is a git work tree at `pinned` whose
    changes are exactly `patch` (empty or missing: none). `marker`: a file of the program,
    relative to the checkout; `root`: the folder the patch's path is shown from."""
    def fail(message: str) -> None:
        sys.exit(f"{program}: {message}")

    apply = f" && git -C {path} apply {patch}" if patch.is_file() and patch.read_text() else ""
    how = (f"get one with: git clone {repository} {path} && git -C {path} checkout {pinned}{apply} "
           f"(see tools/authors/README.md)")
    if not (path / marker).is_file():
        fail(f"no checkout at {path} ({marker} is missing); {how}")
    try:
        head = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], check=True, capture_output=True,
                              text=True).stdout.strip()
        diff = subprocess.run(["git", "-C", str(path), "diff", "HEAD"], check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        fail(f"{path} is not a git work tree ({exc}); {how}")
    if head != pinned:
        fail(f"{path} is at commit {head}, not the pinned {pinned}; run: git -C {path} checkout {pinned}")
    if diff != (patch.read_text() if patch.is_file() else ""):
        fail(f"{path} is not commit {pinned} plus {patch.relative_to(root)} exactly (git -C {path} diff HEAD); "
             f"reset it (git -C {path} checkout -- .){apply.replace(' && ', ' and run: ', 1)}")


def t_interval(values: list[float]) -> tuple[float, float]:
    """95% t-interval of the mean of independent runs."""
    from scipy import stats

    lo, hi = stats.t.interval(0.95, len(values) - 1, loc=sum(values) / len(values), scale=stats.sem(values))
    return float(lo), float(hi)


def wilson(wins: int, n: int) -> tuple[float, float]:
    """95% Wilson interval of a win rate over n independent games."""
    from scipy import stats

    ci = stats.binomtest(wins, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def read_rows(out: Path) -> list[dict]:
    if not out.is_file():
        return []
    with out.open(newline="") as fh:
        return list(csv.DictReader(fh))


def atomic_write(out: Path, fill, binary: bool = False) -> None:
    """Write a file through a temporary file beside it, readable by all, renamed over `out`
    at the end (`fill(fh)` writes the content), so an interrupted write leaves the old file."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
    try:
        os.chmod(tmp, 0o644)
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"newline": ""})) as fh:
            fill(fh)
        os.replace(tmp, out)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_rows(out: Path, rows: list[dict], columns: list[str] = COLUMNS) -> None:
    """Write the whole CSV (`columns`; other keys of a row are left out) atomically."""
    def fill(fh):
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)

    atomic_write(out, fill)


def fmt(x: float | None, digits: int) -> str:
    return "" if x is None else f"{x:.{digits}f}"
