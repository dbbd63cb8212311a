"""minelab: a research lab for Minesweeper-playing agents.

Entry points (each has a docstring with an example: help(ml.play), ...):

    import minelab as ml
    level = ml.Level("9x9x10")                       # or ml.BEGINNER, ml.EXPERT, "16x30x99:opening"
    game = ml.Game(level, seed=1)                    # game.reveal(r, c), game.flag(r, c), game.view
    ml.list_agents()                                 # every registered agent
    agent = ml.make_agent("hcsp", seed=0)            # agent.act(game): one decision
    df = ml.play(agent, level, n_games=10_000, seed=0)   # one row per game (numba batch play)
    ml.summarize(df)                                 # win rate, Wilson 95% interval, games/s
    ml.mine_probabilities(game.view, level.mines)    # exact mine probabilities of a position
    ml.analyse(ml.Position.read("board.mine"))       # probabilities, best's move and why, exact values
    ml.BoardViewer("beginner", agent=agent)          # ipywidgets viewer, in JupyterLab

Further down: minelab.sweep (cached task sweeps, any executor), minelab.tasks (the task
kinds papers share), minelab.papers.<paper> (one function per figure or table),
minelab.studies.leaderboard, minelab.report (saving results, REPORT.md),
minelab.playthrough (golden playthroughs). Command line: `minelab --help`.
"""
from . import _jitcache

_jitcache.configure()  # before any kernel is defined: numba's cache follows the source version

from .cells import COVERED, FLAG, FLAGGED, LOST, MINE, ONGOING, REVEAL, UNFLAG, WON
from .levels import BEGINNER, BEGINNER_9, EXPERT, INTERMEDIATE, PRESETS, Level
from .engine import Game, IllegalMove, Move
from . import probability
from . import noguess  # noqa: F401  (the no-guess rule's deal, which the engine calls)
from .probability import mine_probabilities
from .agents import Agent, list_agents, make_agent
from .runner import play, summarize
from .position import Position
from .analysis import analyse
from .stats import wilson
from . import tasks  # noqa: F401  (registers the shared task kinds "play" and "train_test")
from ._gym import ENV_ID, register as _register_env

_register_env()  # gymnasium.make(ENV_ID) works after `import minelab` (minelab.envs loads on make)

from ._version import __version__


def __getattr__(name):
    # BoardViewer needs ipywidgets: imported on first use, so `import minelab` stays light
    if name == "BoardViewer":
        from .viewer import BoardViewer

        return BoardViewer
    raise AttributeError(f"module 'minelab' has no attribute {name!r}")


__all__ = [
    "__version__",
    "COVERED", "FLAGGED", "MINE", "ONGOING", "WON", "LOST", "REVEAL", "FLAG", "UNFLAG",
    "Level", "BEGINNER", "BEGINNER_9", "INTERMEDIATE", "EXPERT", "PRESETS",
    "Game", "IllegalMove", "Move", "probability", "mine_probabilities", "Agent", "make_agent", "list_agents",
    "play", "summarize", "wilson", "BoardViewer", "ENV_ID", "Position", "analyse",
]
