"""Outputs of the notebooks: figures, tables, measured numbers and figures/REPORT.md.

Notebooks write everything they produce through this module, so that every file lands
in `figures/<paper>/`, every write is atomic (a temporary file in the same directory,
then `os.replace`), and `build_report()` can set minelab's numbers beside the published
ones (`data/published/<paper>.csv`, always labelled "published")::

    from minelab import report
    report.save_figure(fig, "antimatroid2012", "check_mine_uniformity")
    report.save_table(df, "antimatroid2012", "fig_success_rates")
    report.record_measured("antimatroid2012", rows, notebook="antimatroid2012_agents.ipynb",
                           profile=profile)
    report.build_report()

Outputs go to `<project>/figures` (see minelab.paths: the checkout you run from, or the
current directory), or to $MINELAB_FIGURES_DIR (the tests set it). This module depends on pandas, numpy, matplotlib and
the standard library only: it sits above the engine, agents and runner and imports none
of them.
"""
from __future__ import annotations

import datetime as _dt
import fnmatch
import math
import os
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from .atomic import atomic_write
from .ledger import (AUTHORS_COLUMNS as _AUTHORS_COLUMNS, CATEGORIES as _CATEGORIES, KINDS as _KINDS,
                     READINGS_COLUMNS as _READINGS_COLUMNS, TWINS_COLUMNS as _TWINS_COLUMNS, counts as _counts,
                     fmt_value as _fmt_value, judge as _judge, ledger_lines as _ledger_lines,
                     reading_summary as _reading_summary, rounding_of as _rounding_of, rows_by_key as _rows_by_key,
                     parse_difference as _parse_difference, parse_range as _parse_range, same_number as _same_number,
                     verdict)
from .paths import figures_root, golden_digests, published_dir, results_root
from .profiles import PROFILES
from .provenance import helpers_unchecked, maker_token as _maker_token, stale_reason as _stamp_stale, \
    take as _take_noted


#: paper id -> title (DESIGN.md's table of papers), in report order.
PAPERS: dict[str, str] = {
    "lordeiro2021": "Lordeiro et al. 2021: multi-armed bandits over 3x3 window actions "
                    "(greedy, epsilon-greedy, UCB), symmetries, flags, transfer learning",
    "buffet2012": "Buffet et al. 2012: CSP, HCSP, UCT (BSSUCT) and Optimistic Heuristics",
    "bilir2023": "Bilir et al. 2023: Q-learning, SARSA, linear Q approximation and MCTS on 5x5 with 5 mines",
    "gardea2015": "Gardea et al. 2015: local classifiers, kernel ridge regression, simplified "
                  "Q-learning and CSP across board sizes and densities",
    "antimatroid2012": "Antimatroid 2012 (blog): engine chi-squared checks; Random, Marginal, "
                       "Conditional, Graphical and Semi-deterministic models on 9x9 with 1..10 mines",
    "leaderboard": "Leaderboard: every agent on the standard levels beside the strongest published solvers "
                   "(not a paper: PSEQ-D256, D. Hill's solver and each paper's own best)",
}


# twin: "" when minelab measures the same quantity (same item and quantity in measured.csv),
# "none: <why>" for a published program minelab does not implement (shown beside, not judged;
# "none: <why>; beside: <quantity>" names a measured quantity of the same item to compare it with),
# "difference: <item A> | <quantity A> minus <item B> | <quantity B>" for a claim about two of
# the paper's quantities (a comparison, one step of an ordering): ours is the difference of
# the two measured quantities, with its interval (minelab.ledger.difference_row);
# chosen_to_match: why minelab's reading was chosen because it matched this number (the
# agreement then is not counted), else "";
# range: "low..high", every value the quantity can take (a rank among 7 agents: "1..7"), so
# that a verdict whose interval covers all of them is "uninformative"; "" when unbounded.
PUBLISHED_COLUMNS = ("paper", "item", "quantity", "value", "ci_low", "ci_high", "games", "source", "note", "relation",
                     "twin", "chosen_to_match", "range")
ITEMS_COLUMNS = ("paper", "item", "title", "notebook", "function", "files", "note")
# note (optional column): one sentence REPORT.md prints under the item, e.g. why an item is not redrawn
ITEMS_OPTIONAL = ("note",)
# runs: independent runs the value averages (its interval is then a t-interval over runs);
# empty for one run or an independent-games measurement (Wilson).
# agents (optional): the agents whose play the number measures (a name or a list; each must
# have a golden playthrough).
# record_measured stamps the row with the code that made it (`code`: the golden-playthrough
# digest of each agent named and, through publish, the result's whole code stamp; see
# minelab.provenance), and load_measured marks a row `stale` when one of its agents plays
# differently today: a stale row is shown, never judged (the sweep's rule for its cached
# files, applied to the recorded numbers). When and where a row was made is not data: it
# goes to the run log beside the results cache (`run_log_path`), so a rerun that changes no
# value rewrites no committed file.
MEASURED_INPUT = ("item", "quantity", "value", "ci_low", "ci_high", "games", "runs", "note", "agents")
MEASURED_COLUMNS = MEASURED_INPUT[:-1] + ("notebook", "profile", "code")
# figures/<paper>/stamps.csv: one row per published result file stem (its .csv, .md, .png),
# the profile and notebook that made it and its code stamp.
STAMPS_COLUMNS = ("file", "profile", "notebook", "code")
STAMPS_FILE = "stamps.csv"
RUN_LOG_COLUMNS = ("date", "host", "paper", "file", "profile", "notebook", "code")
# How a published number is stated: "=" a point value (ci_low / ci_high: the interval the
# source prints, if any), "≈" an approximation (ci_low / ci_high then hold the range the
# wording implies), or a bound. "" (not classified) is refused by load_published.
RELATIONS = ("=", "≈", "<", ">", "≤", "≥")
OUTPUT_SUFFIXES = (".png", ".csv", ".md", ".svg", ".pdf", ".html", ".json", ".parquet")

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


# --------------------------------------------------------------------------- paths

def figures_dir(paper: str | None = None) -> Path:
    """`<project>/figures` (or $MINELAB_FIGURES_DIR), or its `<paper>` subfolder; created on demand.

        figures_dir("lordeiro2021")   # e.g. PosixPath('/home/me/minelab/figures/lordeiro2021')
    """
    root = figures_root()
    path = root if paper is None else root / _check_paper(paper)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _check_paper(paper) -> str:
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    return paper


def _check_name(name) -> str:
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {name!r}")
    for suffix in OUTPUT_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    if not _NAME_RE.match(name):
        raise ValueError(f"name must be a plain file stem (letters, digits, _ . -), got {name!r}")
    return name


# --------------------------------------------------------------------------- atomic writes

_atomic_write = atomic_write


def _write_text(path: Path, text: str) -> Path:
    return _atomic_write(path, lambda fh: fh.write(text))


# --------------------------------------------------------------------------- results: the one way to save

@dataclass
class PaperResult:
    """What a figure or table function returns: its name (the function's), the figure
    (None for a table), its tidy data (None for a drawing) and the measured rows
    REPORT.md sets beside the published ones (dicts of MEASURED_INPUT columns)."""

    name: str
    figure: object
    table: pd.DataFrame | None
    measured: list[dict] = field(default_factory=list)
    runs: pd.DataFrame | None = None  # a replicated result's per-run tables (column `run`); None for one run
    maker: str = ""  # "fn:<module>.<function>=<digest> dep:..." of the function that built it (found when built)

    def __post_init__(self):
        if not self.maker:
            self.maker = _maker_token(self.name)


def output_name(name: str, profile: str) -> str:
    """The file stem of a result at `profile`: `name` at quick (the default), else
    `name_<profile>` (fig07_win_rate_curves_paper), so a quick rerun never overwrites a
    paper-size result.

        >>> output_name("fig07_win_rate_curves", "paper")
        'fig07_win_rate_curves_paper'
    """
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    return name if profile == "quick" else f"{name}_{profile}"


def publish(result: PaperResult, paper: str, notebook: str, profile: str) -> PaperResult:
    """Save a result: the one way every notebook writes what it made.

    The figure goes to figures/<paper>/<name>.png, the table to <name>.csv and <name>.md
    (name = `output_name(result.name, profile)`), the measured rows into
    figures/<paper>/measured.csv under this profile, and the result's code stamp (the
    function that built it, the agents and task kinds that produced its numbers since the
    previous publish: minelab.provenance) into figures/<paper>/stamps.csv and each measured
    row's `code`. Every write is atomic. Returns the result, so a notebook cell can end
    with it and show the figure.

        result = publish(paper.fig07_win_rate_curves(**sizes), paper.PAPER, paper.NOTEBOOK, profile)
    """
    if not isinstance(result, PaperResult):
        raise ValueError(f"publish needs a PaperResult, got {type(result).__name__}")
    _check_paper(paper)
    name = output_name(_check_name(result.name), profile)
    code = " ".join(sorted({token for noted in [*_take_noted(), result.maker] for token in noted.split()}))
    if result.figure is not None:
        save_figure(result.figure, paper, name)
    if result.table is not None:
        save_table(result.table, paper, name)
    if result.figure is not None or result.table is not None:
        record_stamp(paper, name, profile=profile, notebook=notebook, code=code)
    if result.measured:
        record_measured(paper, result.measured, notebook=notebook, profile=profile, code=code)
    return result


def load_stamps(paper: str) -> pd.DataFrame:
    """figures/<paper>/stamps.csv: each published file stem with its profile, notebook and code stamp."""
    path = figures_dir(paper) / STAMPS_FILE
    if not path.exists():
        return pd.DataFrame({c: pd.Series(dtype=object) for c in STAMPS_COLUMNS})
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the code stamps ({exc})") from None
    missing = [c for c in STAMPS_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; expected {', '.join(STAMPS_COLUMNS)}")
    return df[list(STAMPS_COLUMNS)]


def record_stamp(paper: str, file: str, *, profile: str, notebook: str, code: str) -> Path:
    """Set the code stamp of result file stem `file` in figures/<paper>/stamps.csv (rows
    sorted by file, so the manifest changes only where a stamp does) and log the run."""
    df = load_stamps(paper)
    df = df[df["file"] != file]
    row = pd.DataFrame([{"file": file, "profile": profile, "notebook": notebook, "code": code}])
    df = pd.concat([df, row], ignore_index=True).sort_values("file", kind="stable")
    path = _atomic_write(figures_dir(paper) / STAMPS_FILE, lambda fh: df.to_csv(fh, index=False))
    _log_run(paper, file, profile, notebook, code)
    return path


def run_log_path() -> Path:
    """The run log: when, where and by which code each result was made (`RUN_LOG_COLUMNS`),
    one line per published file or measured batch, beside the results cache
    (<project>/data/results/runlog.csv; not committed), or $MINELAB_RUN_LOG."""
    return Path(os.environ.get("MINELAB_RUN_LOG") or results_root() / "runlog.csv")


def _log_run(paper: str, file: str, profile: str, notebook: str, code: str) -> None:
    path = run_log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    row = pd.DataFrame([{"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                         "host": socket.gethostname(), "paper": paper, "file": file, "profile": profile,
                         "notebook": notebook, "code": code}], columns=list(RUN_LOG_COLUMNS))
    text = row.to_csv(index=False, header=not path.exists())
    with open(path, "a", encoding="utf-8") as fh:  # one write of whole lines: an append never interleaves
        fh.write(text)


# --------------------------------------------------------------------------- figures and tables

def save_figure(fig, paper: str, name: str) -> Path:
    """Save a matplotlib figure as figures/<paper>/<name>.png (dpi 120, tight bbox); return the path.
    Notebooks save through `publish`, which adds the profile suffix; this is its building block.

        save_figure(fig, "antimatroid2012", "check_mine_uniformity")
    """
    path = figures_dir(paper) / f"{_check_name(name)}.png"
    return _atomic_write(path, lambda fh: fig.savefig(fh, format="png", dpi=120, bbox_inches="tight"),
                         mode="wb")


#: Significant digits every float of a result table and measured row is written with. Twelve
#: keep every measured number exact far below its interval, and drop the last bits that
#: another numpy or pandas (another summation order) changes, so a rerun writes the same bytes.
FLOAT_DIGITS = 12


def stable_float(value):
    """`value` rounded to FLOAT_DIGITS significant digits if it is a finite float, else unchanged.

        >>> stable_float(1958.6298292427286) == stable_float(1958.6298292427282) == 1958.62982924
        True
    """
    if isinstance(value, (float, np.floating)) and math.isfinite(value):
        return float(f"{float(value):.{FLOAT_DIGITS}g}")
    return value


def stable_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of `df` whose floats (float columns, and floats inside object columns) are
    rounded by `stable_float`; other values untouched."""
    out = df.copy()
    for col in out.columns:
        series = out[col]
        if pd.api.types.is_float_dtype(series.dtype):
            out[col] = series.map(stable_float).astype(series.dtype)
        elif series.dtype == object:
            out[col] = series.map(stable_float)
    return out


def save_table(df: pd.DataFrame, paper: str, name: str) -> tuple[Path, Path]:
    """Save a DataFrame as figures/<paper>/<name>.csv and <name>.md (a pipe table); return both
    paths. Floats are written to FLOAT_DIGITS significant digits (`stable_frame`). Notebooks
    save through `publish`; this is its building block.

        csv_path, md_path = save_table(df, "buffet2012", "table1_layout")
    """
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"save_table needs a pandas DataFrame, got {type(df).__name__}")
    name = _check_name(name)
    out = stable_frame(df if isinstance(df.index, pd.RangeIndex) and df.index.name is None else df.reset_index())
    folder = figures_dir(paper)
    csv_path = _atomic_write(folder / f"{name}.csv", lambda fh: out.to_csv(fh, index=False))
    md_path = _write_text(folder / f"{name}.md", markdown_table(out) + "\n")
    return csv_path, md_path


def _fmt_number(value) -> str:
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return ""
        if float(value).is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.6g}"
    return str(value)


def _md_cell(value) -> str:
    try:
        if pd.isna(value):
            return ""
    except (TypeError, ValueError):
        pass
    text = _fmt_number(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def markdown_table(df: pd.DataFrame) -> str:
    """A GitHub pipe table of df (no index; numbers right-aligned; NaN shown empty).

        >>> print(markdown_table(pd.DataFrame({"agent": ["csp"], "win_rate": [0.5]})))
        | agent | win_rate |
        |---|---:|
        | csp | 0.5 |
    """
    header = [_md_cell(str(c)) for c in df.columns]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
               for c in df.columns]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" if num else "---" for num in numeric) + "|"]
    for row in df.itertuples(index=False, name=None):
        lines.append("| " + " | ".join(_md_cell(v) for v in row) + " |")
    return "\n".join(lines)


def _pipe_table(header: list[str], rows: Iterable[list[str]]) -> str:
    esc = lambda s: str(s).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = ["| " + " | ".join(esc(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# --------------------------------------------------------------------------- measured numbers

def _as_float(value, what: str) -> float:
    if value is None or value is pd.NA or (isinstance(value, str) and value.strip() == ""):
        return math.nan
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None


def _as_games(value, what: str):
    if value is None or value is pd.NA or (isinstance(value, str) and value.strip() == ""):
        return pd.NA
    if isinstance(value, (float, np.floating)) and math.isnan(value):
        return pd.NA
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be a non-negative integer, got {value!r}")
    try:
        as_float = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a non-negative integer, got {value!r}") from None
    if not as_float.is_integer() or as_float < 0:
        raise ValueError(f"{what} must be a non-negative integer, got {value!r}")
    return int(as_float)


def _as_text(value) -> str:
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return ""
    return str(value)


def _as_agents(value, what: str) -> str:
    """A measured row's `agents` (None, a name or a list of names of agents with a golden
    playthrough) as one string of sorted, distinct names separated by spaces ("" for none)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple, set, frozenset)) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{what} must be an agent name or a list of agent names, got {value!r}")
    known = golden_digests()
    unknown = sorted(n for n in names if n not in known)
    if unknown:
        raise ValueError(f"{what}: unknown agent(s) {unknown}: a stamped number needs an agent with a golden "
                         f"playthrough (minelab/agents/behaviour.json): {', '.join(sorted(known))}")
    return " ".join(sorted(set(names)))


def code_stamp(agents: str, code: str = "") -> str:
    """The code stamp of a row measuring `agents` (names separated by spaces): "name=digest"
    of each one's golden playthrough (behaviour.json), merged with the tokens of stamp
    `code` (minelab.provenance), sorted; "" for none.

        code_stamp("best csp")   # 'best=df459fc4be109e20 csp=...'
    """
    digests = golden_digests()
    return " ".join(sorted({f"{n}={digests[n]}" for n in agents.split()} | set(code.split())))


def stale_reason(code: str, digests: Mapping[str, str] | None = None) -> str:
    """"" when the agents a row's `code` names play today as they did when it was measured,
    else which ones changed ("made by an earlier version of best"). `digests`: today's
    (default: behaviour.json's); an agent without a digest today counts as changed. Task
    kinds and functions in the stamp are checked by tests/test_stamps.py, which imports
    every paper (this module imports none)."""
    digests = golden_digests() if digests is None else digests
    return _stamp_stale(code, digests, kinds=None, functions=False)


def _normalize_measured(rows) -> pd.DataFrame:
    if isinstance(rows, pd.DataFrame):
        records = rows.to_dict("records")
    elif isinstance(rows, Mapping):
        records = [dict(rows)]
    else:
        records = [dict(r) for r in rows]
    clean = []
    for i, rec in enumerate(records):
        unknown = set(rec) - set(MEASURED_INPUT)
        if unknown:
            raise ValueError(f"measured row {i}: unknown column(s) {sorted(unknown)}; "
                             f"allowed: {', '.join(MEASURED_INPUT)}")
        for key in ("item", "quantity", "value"):
            if key not in rec:
                raise ValueError(f"measured row {i}: missing {key!r}")
        item, quantity = _as_text(rec["item"]).strip(), _as_text(rec["quantity"]).strip()
        if not item or not quantity:
            raise ValueError(f"measured row {i}: item and quantity must be non-empty strings")
        value = stable_float(_as_float(rec["value"], f"measured row {i} ({item}, {quantity}): value"))
        if math.isnan(value):
            raise ValueError(f"measured row {i} ({item}, {quantity}): value is missing")
        lo = stable_float(_as_float(rec.get("ci_low"), f"measured row {i} ({item}, {quantity}): ci_low"))
        hi = stable_float(_as_float(rec.get("ci_high"), f"measured row {i} ({item}, {quantity}): ci_high"))
        if not math.isnan(lo) and not math.isnan(hi) and lo > hi:
            raise ValueError(f"measured row {i} ({item}, {quantity}): ci_low {lo} > ci_high {hi}")
        games = _as_games(rec.get("games"), f"measured row {i} ({item}, {quantity}): games")
        runs = _as_games(rec.get("runs"), f"measured row {i} ({item}, {quantity}): runs")
        if runs is not pd.NA and runs < 1:
            raise ValueError(f"measured row {i} ({item}, {quantity}): runs must be at least 1, got {runs}")
        agents = _as_agents(rec.get("agents"), f"measured row {i} ({item}, {quantity}): agents")
        clean.append({"item": item, "quantity": quantity, "value": value, "ci_low": lo, "ci_high": hi,
                      "games": games, "runs": runs, "note": _as_text(rec.get("note")), "agents": agents})
    df = pd.DataFrame(clean, columns=list(MEASURED_INPUT))
    dup = df.duplicated(["item", "quantity"], keep=False)
    if dup.any():
        pairs = sorted(set(zip(df.loc[dup, "item"], df.loc[dup, "quantity"])))
        raise ValueError(f"measured rows repeat (item, quantity): {pairs}")
    return df


def _read_measured(path: Path) -> pd.DataFrame:
    try:
        df = pd.read_csv(path, dtype={"item": str, "quantity": str, "note": str, "notebook": str,
                                      "profile": str, "code": str},
                         keep_default_na=False,
                         na_values={"value": [""], "ci_low": [""], "ci_high": [""], "games": [""], "runs": [""]})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read measured results ({exc})") from None
    if "runs" not in df.columns:  # written before rows said how many runs they average
        df["runs"] = pd.NA
    if "code" not in df.columns:  # written before rows carried their agents' code stamp
        df["code"] = ""
    missing = [c for c in MEASURED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; expected {', '.join(MEASURED_COLUMNS)}")
    df = df[list(MEASURED_COLUMNS)].copy()
    for col in ("value", "ci_low", "ci_high"):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    for col in ("games", "runs"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype("Int64")
    return df


def load_measured(paper: str) -> pd.DataFrame:
    """figures/<paper>/measured.csv as a DataFrame (empty, with the columns, if none yet),
    with a column `stale`: "" for a current row, else why it is not (`stale_reason`: an
    agent it measured plays differently today). The ledger never judges a stale row.

        load_measured("buffet2012").query("profile == 'paper' and stale == ''")
    """
    path = figures_dir(paper) / "measured.csv"
    df = _read_measured(path) if path.exists() else _empty_measured()
    if df.empty:
        return df.assign(stale=pd.Series(dtype=object))
    digests = golden_digests()
    return df.assign(stale=[stale_reason(code, digests) for code in df["code"]])


def _empty_measured() -> pd.DataFrame:
    df = pd.DataFrame({c: pd.Series(dtype=float if c in ("value", "ci_low", "ci_high") else object)
                       for c in MEASURED_COLUMNS})
    for col in ("games", "runs"):
        df[col] = df[col].astype("Int64")
    return df


def record_measured(paper: str, rows, notebook: str, profile: str, code: str = "") -> Path:
    """Merge measured numbers into figures/<paper>/measured.csv; return its path.

    rows: a DataFrame, a list of dicts or one dict with item, quantity, value and
    optionally ci_low, ci_high (NaN when none), games (int or NA), runs, note and agents
    (the registered agents whose play it measures). A row with the same (item, quantity)
    and profile as an earlier one replaces it in place; new rows are appended, so a quick
    run never overwrites a paper-size measurement: REPORT.md shows one line per profile
    measured. Each row is stamped with notebook, profile and its code stamp (`code_stamp`
    of its agents, merged with `code`, the stamp of the result it belongs to).
    """
    _check_paper(paper)
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    if not isinstance(notebook, str) or not notebook.strip():
        raise ValueError(f"notebook must be a non-empty string (the notebook file name), got {notebook!r}")
    new = _normalize_measured(rows)
    new["notebook"] = notebook
    new["profile"] = profile
    new["code"] = [code_stamp(a, code) for a in new.pop("agents")]
    path = figures_dir(paper) / "measured.csv"
    old = _read_measured(path) if path.exists() else _empty_measured()
    key_new = {k: i for i, k in enumerate(zip(new["item"], new["quantity"], new["profile"]))}
    merged, used = [], set()
    for rec in old.to_dict("records"):
        key = (rec["item"], rec["quantity"], rec["profile"])
        if key in key_new:
            merged.append(new.iloc[key_new[key]].to_dict())
            used.add(key)
        else:
            merged.append(rec)
    merged += [rec for rec in new.to_dict("records")
               if (rec["item"], rec["quantity"], rec["profile"]) not in used]
    out = pd.DataFrame(merged, columns=list(MEASURED_COLUMNS))
    for col in ("games", "runs"):
        out[col] = pd.array([_as_games(g, col) for g in out[col]], dtype="Int64")
    written = _atomic_write(path, lambda fh: out.to_csv(fh, index=False))
    _log_run(paper, "measured", profile, notebook, " ".join(sorted(set(new["code"]))))
    return written


# --------------------------------------------------------------------------- published numbers

def _published_dir(directory=None) -> Path:
    return Path(directory) if directory is not None else published_dir()


def _read_strict_csv(path: Path, columns: tuple[str, ...], what: str, optional: tuple[str, ...] = ()) -> pd.DataFrame:
    """The CSV at `path` with exactly `columns` (all str, stripped); a column of `optional`
    may be absent from the file and then reads as empty."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: no {what} file")
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: malformed {what} CSV ({str(exc).strip()})") from None
    for c in optional:
        if c not in df.columns:
            df[c] = ""
    missing = [c for c in columns if c not in df.columns]
    extra = [c for c in df.columns if c not in columns]
    if missing or extra:
        raise ValueError(f"{path}: malformed {what} CSV: expected columns {', '.join(columns)}"
                         + (f"; missing {missing}" if missing else "")
                         + (f"; unexpected {extra}" if extra else ""))
    return df[list(columns)].apply(lambda s: s.str.strip())


def load_published(paper: str, directory: str | os.PathLike | None = None, *, claims: bool = True) -> pd.DataFrame:
    """Published numbers of one paper from data/published/<paper>.csv.

    Columns: paper, item, quantity, value, ci_low, ci_high, games, source, note,
    relation, twin, chosen_to_match, range (value/ci_low/ci_high float, games Int64) and
    rounding. `claims=False` leaves out the claims (rows comparing two quantities, a
    `difference:` twin): what a figure draws as published values. Raises ValueError
    naming the file when it is malformed, FileNotFoundError when the paper has no
    published CSV yet.
    """
    _check_paper(paper)
    path = _published_dir(directory) / f"{paper}.csv"
    df = _read_strict_csv(path, PUBLISHED_COLUMNS, "published-numbers")
    problems = []
    for i, rec in enumerate(df.to_dict("records")):
        line = i + 2
        if rec["paper"] != paper:
            problems.append(f"line {line}: paper is {rec['paper']!r}, expected {paper!r}")
        if not rec["item"] or not rec["quantity"]:
            problems.append(f"line {line}: empty item or quantity")
        try:
            if math.isnan(_as_float(rec["value"], "value")):
                problems.append(f"line {line}: value is empty")
        except ValueError:
            problems.append(f"line {line}: value {rec['value']!r} is not a number")
        for col in ("ci_low", "ci_high"):
            try:
                _as_float(rec[col], col)
            except ValueError:
                problems.append(f"line {line}: {col} {rec[col]!r} is not a number")
        try:
            _as_games(rec["games"], "games")
        except ValueError:
            problems.append(f"line {line}: games {rec['games']!r} is not a non-negative integer")
        if rec["relation"] not in RELATIONS:
            problems.append(f"line {line}: relation {rec['relation']!r} is not one of "
                            f"{', '.join(repr(r) for r in RELATIONS)}")
        if rec["twin"] and not rec["twin"].lower().startswith("none:"):
            try:
                _parse_difference(rec["twin"])
            except ValueError as exc:
                problems.append(f"line {line}: twin {rec['twin']!r} must be empty, 'none: <why>' or "
                                f"'difference: <item A> | <quantity A> minus <item B> | <quantity B>' ({exc})")
        if rec["range"]:
            try:
                _parse_range(rec["range"])
            except ValueError as exc:
                problems.append(f"line {line}: range {rec['range']!r}: {exc}")
        lo, hi = (_as_float(rec[c], c) if _is_number(rec[c]) else math.nan for c in ("ci_low", "ci_high"))
        if rec["relation"] == "≈" and (math.isnan(lo) or math.isnan(hi)):
            problems.append(f"line {line}: relation '≈' needs ci_low and ci_high (the range the wording implies)")
    if problems:
        raise ValueError(f"{path}: malformed published-numbers CSV: " + "; ".join(problems[:10]))
    dup = df.duplicated(["item", "quantity"], keep=False)
    if dup.any():
        pairs = sorted(set(zip(df.loc[dup, "item"], df.loc[dup, "quantity"])))
        raise ValueError(f"{path}: malformed published-numbers CSV: repeated (item, quantity) {pairs}")
    out = df.copy()
    for col in ("value", "ci_low", "ci_high"):
        out[col] = [_as_float(v, col) for v in df[col]]
    out["games"] = pd.array([_as_games(v, "games") for v in df["games"]], dtype="Int64")
    out["rounding"] = [_rounding_of(v) for v in df["value"]]  # half a unit of the last digit printed
    if not claims:
        out = out[~out["twin"].str.lower().str.startswith("difference:")].reset_index(drop=True)
    return out


def _is_number(text) -> bool:
    try:
        return not math.isnan(_as_float(text, ""))
    except ValueError:
        return False


def load_readings(directory: str | os.PathLike | None = None) -> pd.DataFrame:
    """The registered readings, data/published/readings.csv: paper, item, reading (its
    name), kind (text / program / open / none: its support), change, support (the sentence
    and its place, or the program's file), scope (";"-separated glob patterns over the
    item's published quantities: every number the change affects) and experiment (the
    function that runs it). See minelab.ledger for how a reading is credited."""
    path = _published_dir(directory) / "readings.csv"
    if not path.exists():
        return pd.DataFrame(columns=list(_READINGS_COLUMNS))
    df = _read_strict_csv(path, _READINGS_COLUMNS, "readings")
    problems = []
    for i, r in enumerate(df.to_dict("records")):
        line = i + 2
        if r["paper"] not in PAPERS:
            problems.append(f"line {line}: unknown paper {r['paper']!r}")
        empty = [c for c in ("item", "reading", "change", "support", "scope") if not r[c]]
        if empty:
            problems.append(f"line {line}: empty {', '.join(empty)}")
        if r["kind"] not in _KINDS:
            problems.append(f"line {line}: kind {r['kind']!r} is not one of {', '.join(_KINDS)}")
    dup = df.duplicated(["paper", "reading"])  # a reading's name is unique in its paper: twins name it so
    if dup.any():
        problems.append(f"repeated (paper, reading) {list(zip(df.loc[dup, 'paper'], df.loc[dup, 'reading']))}")
    if problems:
        raise ValueError(f"{path}: malformed readings CSV: " + "; ".join(problems[:10]))
    return df


def load_reading_twins(directory: str | os.PathLike | None = None) -> pd.DataFrame:
    """data/published/reading_twins.csv: per published number (paper, item, quantity) and
    registered reading, the measured quantity of the same item that is the reading's run
    (variant; "" for the number's own twin) and, for a reading of how the number was
    printed, its interval under that reading (published_as, "low..high"). Each row must
    name a registered reading."""
    path = _published_dir(directory) / "reading_twins.csv"
    if not path.exists():
        return pd.DataFrame(columns=list(_TWINS_COLUMNS))
    df = _read_strict_csv(path, _TWINS_COLUMNS, "reading twins")
    known = set(zip(*(load_readings(directory)[c] for c in ("paper", "reading"))))
    bad = [i + 2 for i, r in enumerate(df.to_dict("records"))
           if not all(r[c] for c in ("paper", "item", "quantity", "reading")) or not (r["variant"] or r["published_as"])
           or (r["paper"], r["reading"]) not in known]
    if bad:
        raise ValueError(f"{path}: malformed reading twins CSV: line(s) {bad[:10]} have an empty field (a row needs "
                         "a variant, a published_as or both) or name a reading that readings.csv does not register")
    for i, r in enumerate(df.to_dict("records")):
        if r["published_as"]:
            try:
                _parse_range(r["published_as"])
            except ValueError as exc:
                raise ValueError(f"{path}: malformed reading twins CSV: line {i + 2}: published_as "
                                 f"{r['published_as']!r}: {exc}") from None
    return df


def authors_dir() -> Path:
    """data/authors/: the numbers of the papers' own programs, run by tools/authors/."""
    return published_dir().parent / "authors"


def load_authors(paper: str, directory: str | os.PathLike | None = None) -> pd.DataFrame:
    """The authors' program's numbers for one paper (data/authors/<paper>.csv, written by
    the harness under tools/authors/): item, quantity (a published quantity, or a labelled
    variant of the program), value with its 95% interval, games, runs, program, commit,
    command, seeds, note. Empty when the program was not run for this paper."""
    _check_paper(paper)
    path = (Path(directory) if directory is not None else authors_dir()) / f"{paper}.csv"
    if not path.exists():
        return pd.DataFrame(columns=list(_AUTHORS_COLUMNS))
    df = _read_strict_csv(path, _AUTHORS_COLUMNS, "authors' program")
    out = df.copy()
    try:
        for col in ("value", "ci_low", "ci_high"):
            out[col] = [_as_float(v, col) for v in df[col]]
        out["games"] = pd.array([_as_games(v, "games") for v in df["games"]], dtype="Int64")
        out["runs"] = pd.array([_as_games(v, "runs") for v in df["runs"]], dtype="Int64")
    except ValueError as exc:
        raise ValueError(f"{path}: malformed authors' program CSV: {exc}") from None
    if (df["commit"] == "").any() or (df["command"] == "").any():
        raise ValueError(f"{path}: malformed authors' program CSV: every row needs its commit and command")
    return out


def ledger(paper: str | None = None, *, published_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """Every published number (of one paper, or all) with the measurement judged, its
    verdict (a few words), ledger category, how it was decided and the detail behind it
    (minelab.ledger), computed from data/published/, figures/<paper>/measured.csv and
    data/authors/ (the `program` and `program_verdict` columns).

        ledger("buffet2012").groupby("category").size()
    """
    readings, twins = load_readings(published_dir), load_reading_twins(published_dir)
    parts = []
    for p in ([_check_paper(paper)] if paper is not None else list(PAPERS)):
        lines = _ledger_lines(_published_or_empty(p, published_dir), load_measured(p),
                              readings[readings["paper"] == p], twins[twins["paper"] == p], load_authors(p))
        parts.append(lines.assign(paper=p))
    out = pd.concat(parts, ignore_index=True)
    return out[["paper"] + [c for c in out.columns if c != "paper"]]


def load_items(directory: str | os.PathLike | None = None) -> pd.DataFrame:
    """Every figure and table of the five papers, from data/published/items.csv (all str columns):
    paper, item, title, the notebook and `function` (dotted path) that make it, the glob
    of its `files` and an optional `note` (a sentence REPORT.md prints under the item).

        >>> items = load_items()
        >>> items.set_index(["paper", "item"]).loc[("lordeiro2021", "Fig 11"), "function"]
        'minelab.papers.lordeiro2021.fig11_size_heatmap'
    """
    path = _published_dir(directory) / "items.csv"
    df = _read_strict_csv(path, ITEMS_COLUMNS, "items", ITEMS_OPTIONAL)
    bad = sorted(set(df["paper"]) - set(PAPERS))
    if bad:
        raise ValueError(f"{path}: malformed items CSV: unknown paper(s) {bad}")
    if (df["item"] == "").any():
        raise ValueError(f"{path}: malformed items CSV: empty item on line(s) "
                         f"{[i + 2 for i in np.flatnonzero(df['item'] == '')]}")
    dup = df.duplicated(["paper", "item"])
    if dup.any():
        raise ValueError(f"{path}: malformed items CSV: repeated (paper, item) "
                         f"{list(zip(df.loc[dup, 'paper'], df.loc[dup, 'item']))}")
    return df


# --------------------------------------------------------------------------- REPORT.md

def _item_files(folder: Path, patterns: str) -> list[Path]:
    globs = [g for g in re.split(r"[;\s]+", patterns or "") if g]
    if not globs or not folder.is_dir():
        return []
    found = [p for p in folder.iterdir()
             if p.is_file() and not p.name.startswith(".") and any(fnmatch.fnmatch(p.name, g) for g in globs)]
    return sorted(found)


def _link(target: Path, base: Path) -> str:
    rel = Path(os.path.relpath(target.resolve(), base)).as_posix()
    return f"[{target.name}]({rel.replace(' ', '%20')})"


def _published_or_empty(paper: str, directory) -> pd.DataFrame:
    """The paper's published numbers; empty when it has no CSV yet (malformed still raises)."""
    try:
        return load_published(paper, directory)
    except FileNotFoundError:
        return pd.DataFrame(columns=list(PUBLISHED_COLUMNS))


def detail_anchor(paper: str, item: str, quantity: str) -> str:
    """The id of a ledger line's detail in REPORT.md (stable: from its paper, item and quantity)."""
    return "d-" + re.sub(r"[^a-z0-9]+", "-", f"{paper} {item} {quantity}".lower()).strip("-")


def _verdict_cell(paper: str, line: dict) -> str:
    cell = line["verdict"]
    if line.get("detail") or line.get("how"):
        cell += f" ([detail](#{detail_anchor(paper, line['item'], line['quantity'])}))"
    return cell


def _comparison_rows(pub: pd.DataFrame, meas: pd.DataFrame, lines: pd.DataFrame,
                     paper: str = "", program: bool = False, own: Mapping | None = None) -> list[list[str]]:
    """Rows of a section's table: each published number with the measurement the ledger
    judged and its short verdict (linked to its detail), the authors' program's number and
    verdict when `program`, then its other profiles (their verdicts in parentheses, not
    counted; a stale one says why it is not judged), then numbers minelab measured that
    have no published value, each beside the authors' program's number of the same
    quantity where `own` ((item, quantity) -> a row of data/authors/) has one."""
    rows = []
    measured_by_key = _rows_by_key(meas)  # (item, quantity) -> its rows, one per profile measured
    by_line = {(r["item"], r["quantity"]): r for r in lines.to_dict("records")}
    seen = set()
    blank = ["", ""] if program else []
    for p in pub.to_dict("records"):
        key = (p["item"], p["quantity"])
        seen.add(key)
        line = by_line[key]
        extra = [line["program"] or "—", line["program_verdict"]] if program else []
        rows.append([p["quantity"], line["published"] + " (published)", line["minelab"] or "—", line["profile"],
                     _verdict_cell(paper, line), *extra])
        for m in measured_by_key.get(key, []):
            if m["profile"] == line["profile"] and not m.get("stale"):
                continue
            v, _ = _judge(p, m)
            note = (_stale_cell(m) if m.get("stale") else f"({v}; not counted: smaller profile)" if v else "")
            rows.append(["", "", _fmt_value(m["value"], m["ci_low"], m["ci_high"], m["games"], m["runs"]),
                         m["profile"], note, *blank])
    for m in meas.to_dict("records"):
        if (m["item"], m["quantity"]) not in seen:
            prog = (own or {}).get((m["item"], m["quantity"]))
            extra = blank if prog is None else [_program_cell(prog), "the same number as ours" if _same_number(m, prog)
                                                else "differs from ours"]
            rows.append([m["quantity"], "no published value",
                         _fmt_value(m["value"], m["ci_low"], m["ci_high"], m["games"], m["runs"]),
                         m["profile"], _stale_cell(m) if m.get("stale") else "", *extra])
    return rows


def _program_cell(r: Mapping) -> str:
    """The authors' program's number as REPORT.md shows it: value, interval, games or runs, program and commit."""
    return _fmt_value(r["value"], r["ci_low"], r["ci_high"], r["games"], r["runs"]) + f" ({r['program']} " \
        f"{str(r['commit'])[:7]})"


def details_markdown(paper: str, lines: pd.DataFrame) -> list[str]:
    """A paper's verdict details: per ledger line with any, how it was decided and the
    readings tried on it (each with its status on its whole scope), under the anchor its
    table cell links to."""
    out = []
    for r in lines.to_dict("records"):
        if not (r.get("detail") or r.get("how")):
            continue
        verdict, detail = r["verdict"], r.get("detail") or ""
        if detail.startswith(verdict.split(";")[0]):  # the detail restates the verdict, more fully: say it once
            verdict, detail = detail, ""
        out += [f'<a id="{detail_anchor(paper, r["item"], r["quantity"])}"></a>',
                f"- **{r['item']}, {r['quantity']}**: {verdict}"
                + (f"; decided by: {r['how']}" if r.get("how") else "")
                + (f". {detail}" if detail else ""), ""]
    return ["### Verdict details", "", *out] if out else []


def _stale_cell(m: dict) -> str:
    return f"(stale, not judged: {m['stale']})"


COMPARISON_HEADER = ["quantity", "published", "minelab (95% CI, games)", "profile", "verdict"]
PROGRAM_HEADER = ["the authors' program (95% CI)", "ours against the authors' program"]
COMPARE_COLUMNS = ["item", "quantity", "relation", "published", "minelab", "ci_low", "ci_high", "games", "runs",
                   "profile", "verdict"]


def compare(paper: str, item: str | None = None, *,
            published_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """Published numbers beside minelab's measured ones, for display in a notebook.

    One row per (item, quantity) found in either data/published/<paper>.csv or
    figures/<paper>/measured.csv (all items, or only `item`): published value (NaN when
    the paper states none), minelab value with its 95% interval, games and profile
    (NaN / <NA> / "" when not yet reproduced), and the verdict (a published number of a
    program minelab does not implement: the ledger's "no minelab twin" text, with the
    comparison of what is set beside it; a stale measurement: why it is not judged).
    """
    _check_paper(paper)
    pub = _published_or_empty(paper, published_dir)
    meas = load_measured(paper)
    if item is not None:
        pub, meas = pub[pub["item"] == item], meas[meas["item"] == item]
    left = pd.DataFrame({"item": pub["item"], "quantity": pub["quantity"], "relation": pub["relation"],
                         "published": pd.to_numeric(pub["value"], errors="coerce"),
                         "pub_low": pub["ci_low"], "pub_high": pub["ci_high"]})
    right = pd.DataFrame({"item": meas["item"], "quantity": meas["quantity"], "minelab": meas["value"],
                          "ci_low": meas["ci_low"], "ci_high": meas["ci_high"], "games": meas["games"],
                          "runs": meas["runs"], "profile": meas["profile"],
                          "stale": meas["stale"]})
    out = left.merge(right, on=["item", "quantity"], how="outer", sort=False)
    # published rows in file order first, then measured-only rows in recording order
    order: dict = {}
    for key in list(zip(left["item"], left["quantity"])) + list(zip(right["item"], right["quantity"])):
        order.setdefault(key, len(order))
    out["_order"] = [order[k] for k in zip(out["item"], out["quantity"])]
    out = out.sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)
    out["games"] = out["games"].astype("Int64")
    out["runs"] = out["runs"].astype("Int64")
    out["profile"] = out["profile"].fillna("")
    out["relation"] = out["relation"].fillna("")
    for col in ("published", "minelab", "ci_low", "ci_high", "pub_low", "pub_high"):
        out[col] = out[col].astype(float)
    lines = ledger(paper, published_dir=published_dir)  # the one judge: its verdict, on the measurement it judges
    judged = {(r["item"], r["quantity"]): r for r in lines.to_dict("records")}
    verdicts = []
    for r in out.to_dict("records"):
        key = (r["item"], r["quantity"])
        line = judged.get(key)
        if isinstance(r["stale"], str) and r["stale"]:
            verdicts.append(_stale_cell(r).strip("()"))
        elif line is None:
            verdicts.append("")
        elif r["profile"] and line["profile"] and r["profile"] != line["profile"]:
            verdicts.append(f"not judged: the ledger judges the {line['profile']} measurement")
        else:
            verdicts.append(line["verdict"])
    out["verdict"] = verdicts
    return out[COMPARE_COLUMNS]


_LEDGER_HEADER = ["document", "published numbers", "with a twin", *_CATEGORIES, "agrees or bound met",
                  "with credited readings", "readings tried"]


def _ledger_row(name: str, lines: pd.DataFrame, readings: int) -> list[str]:
    c = _counts(lines)

    def pct(x):
        return "" if math.isnan(x) else f"{x:.0%}"
    return [name, c["published"], c["with a twin"], *(c[k] for k in _CATEGORIES), pct(c["reproduced share"]),
            pct(c["explained share"]), readings]


def ledger_markdown(all_lines: pd.DataFrame, readings: pd.DataFrame | None = None) -> list[str]:
    """The ledger's opening tables, published numbers and claims apart (per document and in
    total, with the headline's two shares and the readings tried), and how to read them."""
    readings = load_readings() if readings is None else readings
    tried = readings["paper"].value_counts()

    def table(lines):
        rows = [_ledger_row(f"[{p}](#{p})", lines[lines["paper"] == p], int(tried.get(p, 0))) for p in PAPERS]
        rows.append(_ledger_row("**total**", lines, len(readings)))
        return _pipe_table([_md_cell(h) for h in _LEDGER_HEADER], [[str(x) for x in r] for r in rows])

    kind = all_lines["kind"] if "kind" in all_lines else pd.Series("number", index=all_lines.index)
    numbers, claims = all_lines[kind != "claim"], all_lines[kind == "claim"]
    c = _counts(numbers)

    def pct(x):
        return "" if math.isnan(x) else f"{x:.0%}"
    return [
        "## Ledger: every published number and its verdict", "",
        f"**Headline:** of the {c['with a twin']} published numbers minelab measures, "
        f"{pct(c['reproduced share'])} agree or meet their bound; {pct(c['explained share'])} with the numbers "
        "a credited reading explains. Claims comparing two of a paper's quantities are counted apart, below.", "",
        "Each published number (`data/published/<paper>.csv`, with the relation its source states) is set "
        "against minelab's twin (the same quantity, largest profile measured) and given a computed verdict "
        "(`minelab.ledger`). One interval serves every relation: the 95% prediction interval of one run when "
        "our number is a mean of independent runs, else our 95% interval (a two-proportion test when both "
        "sides are win rates with game counts). "
        "*agrees* / *bound met* / *bound not met* / *undecided* (the interval meets the bound) / "
        "*uninformative* (the interval covers every value the quantity can take) / *differs: credited reading* "
        "(a registered reading, `data/published/readings.csv`, with support in the text or the authors' "
        "program, reproduces every number in its scope) / *differs: unexplained* (readings tried are listed "
        "in the detail, each with how many of its scope it reproduces) / *not yet reproduced* / *no minelab "
        "twin* (another program, shown beside). An agreement by a reading chosen to match is not counted. "
        "The two shares are of the numbers with a twin: those that agree or meet their bound, and those "
        "together with the ones a credited reading explains.", "",
        table(numbers), "",
        "### Claims: comparisons and orderings the papers state", "",
        "A claim about two of a paper's quantities (\"only slightly better\", one step of an ordering) is a "
        "row whose twin is the difference of our two measured quantities, with the reading of its words "
        "written in its note before the numbers were computed. A claim stated for every point of a figure is "
        "one row per point.", "",
        table(claims), ""]


def reading_summary(paper: str, published_dir=None) -> pd.DataFrame:
    """The registered readings of `paper` judged on their scopes now (minelab.ledger.
    reading_summary: item, reading, kind, change, support, n, run, k, credited, status)."""
    readings, twins = load_readings(published_dir), load_reading_twins(published_dir)
    return _reading_summary(_published_or_empty(paper, published_dir), load_measured(paper),
                            readings[readings["paper"] == paper], twins[twins["paper"] == paper])


def readings_markdown(published_dir=None) -> list[str]:
    """Every registered reading, paper by paper: its kind of support, what it changes, and
    how many numbers of its scope it reproduces (minelab.ledger.reading_summary)."""
    readings, twins = load_readings(published_dir), load_reading_twins(published_dir)
    rows = []
    for p in PAPERS:
        part = readings[readings["paper"] == p]
        if part.empty:
            continue
        summary = _reading_summary(_published_or_empty(p, published_dir), load_measured(p), part,
                                   twins[twins["paper"] == p])
        rows += [[p, r["item"], r["reading"], r["kind"], r["change"], r["support"], f"{r['run']} of {r['n']}",
                  r["status"]] for r in summary.to_dict("records")]
    if not rows:
        return []
    return ["### Registered readings", "",
            "Each reading was written down (what it changes, its support, its scope: every published number the "
            "change affects) before it ran. It is credited only when it reproduces every number in its scope; a "
            "reading without support is never credited.", "",
            _pipe_table(["paper", "item", "reading", "support kind", "what it changes", "support", "run",
                         "status"], [[_md_cell(c) for c in r] for r in rows]), ""]


def _item_section(paper: str, it: dict, folder: Path, base: Path, published: pd.DataFrame,
                  measured: pd.DataFrame, lines: pd.DataFrame) -> list[str]:
    item = it["item"]
    sec = [f"### {paper} {item}: {it['title']}", ""]
    if it["function"]:
        sec.append(f"- made by: `{it['function']}()`" + (f" in `notebooks/{it['notebook']}`" if it["notebook"] else ""))
    elif it["notebook"]:
        sec.append(f"- notebook: `notebooks/{it['notebook']}`")
    else:  # "yet" unless the item's note says why it has none
        sec.append("- notebook: none" + ("" if it.get("note") else " yet"))
    files = _item_files(folder, it["files"])
    sec.append("- files: " + (", ".join(_link(f, base) for f in files) if files
                              else "none" + ("" if it.get("note") else " yet")))
    pub, meas = published[published["item"] == item], measured[measured["item"] == item]
    sec.append("")
    if it.get("note"):
        sec += [it["note"], ""]
    if pub.empty and meas.empty:
        status = "figure regenerated" if files else "not reproduced" if it.get("note") else "not yet reproduced"
        sec.append(f"No numeric published value (figure only); {status}.")
    else:
        if pub.empty:
            sec += ["No numeric published value (figure only); minelab measured:", ""]
        item_lines = lines[lines["item"] == item]
        own = load_authors(paper)
        own = own[own["item"] == item]
        program = bool((item_lines["program"] != "").any()) or not own.empty
        published, measured = set(pub["quantity"]), set(meas["quantity"])
        beside = {(r["item"], r["quantity"]): r for r in own.to_dict("records")
                  if r["quantity"] not in published and r["quantity"] in measured}
        rows = _comparison_rows(pub, meas, item_lines, paper, program, beside)
        # the program's other numbers (its labelled variants: no published or measured twin), below
        rest = own[~own["quantity"].isin(published | {q for _, q in beside})]
        rows += [[r["quantity"], "—", "—", "", "", _program_cell(r), r["note"]] for r in rest.to_dict("records")]
        sec.append(_pipe_table(COMPARISON_HEADER + (PROGRAM_HEADER if program else []), rows))
    return sec + [""]


def build_report(path: str | os.PathLike | None = None, *,
                 published_dir: str | os.PathLike | None = None) -> Path:
    """Regenerate figures/REPORT.md (atomically) and return its path.

    It opens with the ledger (every published number's verdict, counted per document),
    then, for each paper, every figure and table of data/published/items.csv with its
    notebook, the files found under figures/<paper>/ and its published numbers (labelled
    "published") beside minelab's measured ones with their verdicts. Links are relative
    to the report's folder.
    """
    fig_root = figures_dir()
    path = Path(path) if path is not None else fig_root / "REPORT.md"
    base = path.parent.resolve()
    items = load_items(published_dir)
    all_lines = ledger(published_dir=published_dir)
    head = [
        "# minelab: paper vs minelab", "",
        "Every figure and table of the five papers, the notebook that regenerates it, the files it "
        "wrote and minelab's numbers beside the published ones (published numbers come from "
        "`data/published/` and are labelled \"published\"; minelab's carry their 95% interval and "
        "game count (or runs), and the profile they were run with). Written by `minelab.report.build_report()` "
        "(`make reproduce`) from the data; do not edit by hand.", "",
        *ledger_markdown(all_lines, load_readings(published_dir)),
        *readings_markdown(published_dir),
        "Each measured number and each result file carries the code stamp of what made it; the last "
        "column counts those whose stamp covers only the source of the function that built them, not "
        "the helpers and constants it reaches (`minelab.provenance.helpers_unchecked`): a rerun of "
        "their notebook covers them.", "",
        "| paper | figures and tables | with a notebook | measured numbers | stamps checked on the function only |",
        "|---|---:|---:|---:|---:|",
    ]
    sections = []
    for paper, title in PAPERS.items():
        paper_items = items[items["paper"] == paper]
        published = _published_or_empty(paper, published_dir)
        folder = fig_root / paper
        measured = load_measured(paper)
        lines = all_lines[all_lines["paper"] == paper]
        stamps = list(measured["code"]) + list(load_stamps(paper)["code"])
        unchecked = sum(bool(helpers_unchecked(code)) for code in stamps)
        head.append(f"| [{paper}](#{paper}) | {len(paper_items)} | {(paper_items['notebook'] != '').sum()} "
                    f"| {len(measured)} | {unchecked} of {len(stamps)} |")
        sec = ["", f"## {paper}", "", f"{title}", ""]
        if paper_items.empty:
            sec += ["No figures or tables listed in `data/published/items.csv`.", ""]
        for it in paper_items.to_dict("records"):
            sec += _item_section(paper, it, folder, base, published, measured, lines)
        # numbers recorded under items that items.csv does not list (extra checks)
        extra_items = [i for i in dict.fromkeys(list(published["item"]) + list(measured["item"]))
                       if i not in set(paper_items["item"])]
        if extra_items:
            rows = [[item] + row for item in extra_items
                    for row in _comparison_rows(published[published["item"] == item],
                                                measured[measured["item"] == item], lines[lines["item"] == item],
                                                paper)]
            sec += ["### Other measured checks", "", _pipe_table(["item"] + COMPARISON_HEADER, rows), ""]
        sec += details_markdown(paper, lines)
        sections += sec
    text = "\n".join(head + sections).rstrip() + "\n"
    return _write_text(path, text)


__all__ = ["PAPERS", "PROFILES", "RELATIONS", "verdict", "ledger", "load_readings", "load_reading_twins",
           "load_authors", "ledger_markdown", "readings_markdown", "details_markdown", "detail_anchor",
           "PaperResult",
           "publish", "output_name", "figures_dir",
           "save_figure", "save_table",
           "markdown_table", "record_measured", "load_measured", "load_published", "load_items", "compare",
           "build_report"]
