"""The CSV rows both harnesses write (data/authors/<paper>.csv) and their intervals.

Shared by run_banditsweeper.py and run_cs238project.py, which import it from beside them
(they run as scripts). Columns as minelab.ledger.AUTHORS_COLUMNS; a file is rewritten
whole through a temporary file and a rename, so an interrupted run leaves the last
complete file.
"""
from __future__ import annotations

import contextlib
import csv
import os
import tempfile
from pathlib import Path

COLUMNS = ["paper", "item", "quantity", "value", "ci_low", "ci_high", "games", "runs", "program", "commit",
           "command", "seeds", "note"]


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


def write_rows(out: Path, rows: list[dict]) -> None:
    """Write the whole CSV to a temporary file beside it and rename it over the old one."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        os.replace(tmp, out)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def fmt(x: float | None, digits: int) -> str:
    return "" if x is None else f"{x:.{digits}f}"
