"""One module per paper: its task kinds, figure functions and run sizes."""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class PaperResult:
    """What a figure function hands the notebook: the figure (None for a table), its
    data, and the measured rows for REPORT.md."""

    name: str
    figure: object
    table: pd.DataFrame
    measured: list[dict] = field(default_factory=list)


def publish(result: PaperResult, paper: str, notebook: str, profile: str) -> PaperResult:
    """Save a result's figure and table under figures/<paper>/ and record its measured
    numbers. Files are named after the function, with the profile appended unless it is
    the default `quick` (fig07_win_rate_curves_paper.png), so a quick rerun never
    overwrites a paper-size figure."""
    from .. import report

    name = result.name if profile == "quick" else f"{result.name}_{profile}"
    if result.figure is not None:
        report.save_figure(result.figure, paper, name)
    report.save_table(result.table, paper, name)
    if result.measured:
        report.record_measured(paper, result.measured, notebook=notebook, profile=profile)
    return result
