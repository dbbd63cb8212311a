"""Test-wide settings: hypothesis runs derandomized (the same examples every run), so a
CI result never depends on the luck of the draw; HYPOTHESIS_PROFILE=explore lifts that."""
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
