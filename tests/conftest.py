"""Test-wide settings: hypothesis runs derandomized (the same examples every run), so a
CI result never depends on the luck of the draw; HYPOTHESIS_PROFILE=explore lifts that.
Results published by tests log their runs to a scratch file, not the checkout's run log."""
import os
import tempfile

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

os.environ.setdefault("MINELAB_RUN_LOG", os.path.join(tempfile.mkdtemp(prefix="minelab-runlog-"), "runlog.csv"))


@pytest.fixture
def table_never_copied(monkeypatch):
    """StateTable grows an array in place only when nothing else refers to it; else it
    copies it (`_grown`) and the table is held twice at its largest. With this fixture a
    copy is an error naming the shapes."""
    from minelab.agents.rl import table

    def copied(a, rows):
        raise AssertionError(f"the state table was copied ({a.shape} -> {rows} rows): something still held it")

    monkeypatch.setattr(table, "_grown", copied)


@pytest.fixture(autouse=True)
def _close_figures():
    """Close the figures a test leaves open (results carry their figures), so a long run of
    tests never holds more than one test's worth of them."""
    yield
    import sys

    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")
