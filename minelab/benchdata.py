"""Speed figures as data: `minelab bench WHAT --save` writes data/bench/WHAT.csv.

Each file holds the rows of the last saved run of one `minelab bench WHAT` (the same
fields as its `--json` rows) and, on every row, the machine and code they were measured
on: the CPU model, its core count, the 1-minute load average when the run ended, Python
and numba versions, the digest of minelab's source (`_jitcache.running_digest`, the key of
numba's cache) and the UTC time. Saving replaces the file, so the figures are always one
run's, current only; `make bench` saves every WHAT and `make docs` renders them in
docs/benchmarks.md (`tables()`).

    python -m minelab.cli bench engine --save     # data/bench/engine.csv
"""
from __future__ import annotations

import datetime as _dt
import os
import platform
from pathlib import Path

import pandas as pd

from . import _jitcache
from .atomic import atomic_write
from .paths import project_dir

#: every `minelab bench WHAT`, in the order the docs show them
WHATS = ("engine", "agents", "bandit", "csp", "rl", "uct", "samples", "learned", "viewer", "deal", "reproduce")
#: the columns saved with every row: where and on what code it was measured
MACHINE_FIELDS = ("cpu", "cores", "load", "python", "numba", "source", "measured_utc", "seconds_per_measurement")
#: each row's headline figure: (column, unit), the first the row has
FIGURES = (("milliseconds_per_move", "ms a move (median)"), ("microseconds_per_position", "µs a position"),
           ("samples_per_second", "samples/s"), ("simulations_per_second", "simulations/s"),
           ("steps_per_second", "steps/s"), ("boards_per_second", "boards/s"), ("games_per_second", "games/s"),
           ("seconds", "s"))


def bench_dir(root: Path | None = None) -> Path:
    """<project>/data/bench (or `root`/data/bench)."""
    return (Path(root) if root is not None else project_dir()) / "data" / "bench"


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo on Linux), else platform.processor()."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine(seconds: float | None) -> dict:
    """The MACHINE_FIELDS of a run saved now, with `seconds` per measurement (None: a run
    whose rows are not timed for a set time, such as `bench reproduce`)."""
    import numba

    return {"cpu": cpu_model(), "cores": os.cpu_count(), "load": round(os.getloadavg()[0], 2),
            "python": platform.python_version(), "numba": numba.__version__, "source": _jitcache.running_digest(),
            "measured_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M"),
            "seconds_per_measurement": seconds}


def save(what: str, rows: list[dict], seconds: float | None, root: Path | None = None) -> Path:
    """Write `rows` (one `minelab bench what` run) with the machine fields to
    data/bench/<what>.csv, replacing the file atomically; its path."""
    if what not in WHATS:
        raise ValueError(f"what must be one of {', '.join(WHATS)}, got {what!r}")
    if not rows:
        raise ValueError(f"bench {what}: no rows to save")
    where = machine(seconds)
    df = pd.DataFrame([{**row, **where} for row in rows])
    path = bench_dir(root) / f"{what}.csv"
    return atomic_write(path, lambda fh: df.to_csv(fh, index=False, lineterminator="\n"))


def load(what: str, root: Path | None = None) -> pd.DataFrame | None:
    """data/bench/<what>.csv, or None when it was never saved."""
    path = bench_dir(root) / f"{what}.csv"
    return pd.read_csv(path) if path.is_file() else None


def _figure(row: pd.Series) -> tuple[str, str]:
    for column, unit in FIGURES:
        if column in row and pd.notna(row[column]):
            value = float(row[column])
            return (f"{value:,.2f}" if value < 100 else f"{value:,.0f}"), unit
    return "", ""


def _label(row: pd.Series) -> str:
    for column in ("what", "agent"):
        if column in row and pd.notna(row[column]) and str(row[column]):
            return str(row[column])
    return ""


def _relative(row) -> str:
    """The text " (0.91 of oh's)" where the row is measured as a share of another row of the same run
    (columns `relative` and `relative_to`, the other's agent); "" for that row itself."""
    share, of = row.get("relative"), row.get("relative_to")
    if not isinstance(of, str) or pd.isna(share):
        return ""
    option = row.get("option")
    if row.get("agent") == of and not (isinstance(option, str) and option):
        return ""
    return f" ({float(share):.2f} of {of}'s)"


def table(df: pd.DataFrame) -> str:
    """One saved run as markdown: the measurement, its level, the figure and its unit, then
    the machine and source it was measured on (its time stays in the CSV)."""
    lines = ["| measurement | level | figure | unit |", "|---|---|---:|---|"]
    for _, row in df.iterrows():
        value, unit = _figure(row)
        unit += _relative(row)
        level = str(row["level"]) if "level" in row and pd.notna(row["level"]) else ""
        lines.append(f"| {_label(row)} | {level} | {value} | {unit} |")
    first = df.iloc[0]
    lines.append("")
    each = first.get("seconds_per_measurement")
    each = f", {float(each):g} s a measurement" if pd.notna(each) else ""
    lines.append(f"Measured on {machine_text(first)}, Python {first['python']}, numba {first['numba']}, minelab "
                 f"source `{first['source']}`{each}.")
    return "\n".join(lines)


def machine_text(row) -> str:
    """The machine a saved row was measured on, as the docs print it: "AMD EPYC (2 cores, load 1.69)"."""
    return f"{row['cpu']} ({int(row['cores'])} cores, load {float(row['load']):.2f})"


def tables(root: Path | None = None) -> str:
    """Every saved run (data/bench/*.csv), one section each, in WHATS order; a line saying
    how to make them where none is saved."""
    parts = []
    for what in WHATS:
        df = load(what, root)
        if df is not None and len(df):
            parts.append(f"#### `minelab bench {what}`\n\n{table(df)}")
    if not parts:
        return "No figures are saved yet: run `make bench`."
    return "\n\n".join(parts)
