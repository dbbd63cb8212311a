"""The examples in the docstrings run: a newcomer who copies one gets what it shows."""
import doctest
import importlib

import pytest

MODULES = ["minelab.levels", "minelab.engine", "minelab.stats", "minelab.runner", "minelab.agents.base",
           "minelab.sweep", "minelab.tasks", "minelab.report", "minelab.reproduce", "minelab.playthrough",
           "minelab.paths", "minelab.render", "minelab.probability", "minelab.envs", "minelab.agents.rl.table",
           "minelab.optimal"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch, tmp_path):
    monkeypatch.setenv("MINELAB_FIGURES_DIR", str(tmp_path / "figures"))
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


def test_help_lists_the_entry_points():
    import minelab as ml

    for entry in ("ml.Level", "ml.Game", "ml.make_agent", "ml.play", "ml.summarize", "ml.mine_probabilities",
                  "ml.BoardViewer", "ml.list_agents", "minelab.sweep", "minelab.papers"):
        assert entry in ml.__doc__, entry
