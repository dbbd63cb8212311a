"""Test-wide settings: hypothesis runs derandomized (the same examples every run), so a
CI result never depends on the luck of the draw; HYPOTHESIS_PROFILE=explore lifts that.
Results published by tests log their runs to a scratch file, not the checkout's run log."""
import os
import tempfile

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

os.environ.setdefault("MINELAB_RUN_LOG", os.path.join(tempfile.mkdtemp(prefix="minelab-runlog-"), "runlog.csv"))
