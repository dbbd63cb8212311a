"""minelab: a research lab for Minesweeper-playing agents.

    import minelab as ml
    game = ml.Game(ml.BEGINNER, seed=1); game.reveal(0, 0); game
    df = ml.play("random", "9x9x10", n_games=10_000, seed=0)
"""
from .cells import COVERED, FLAG, FLAGGED, LOST, MINE, ONGOING, REVEAL, UNFLAG, WON
from .levels import BEGINNER, BEGINNER_9, EXPERT, INTERMEDIATE, PRESETS, Level
from .engine import Game, IllegalMove, Move
from . import probability
from .probability import mine_probabilities
from .agents import Agent, list_agents, make_agent
from .runner import play, summarize
from .stats import wilson

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
    "Game", "IllegalMove", "Move", "probability", "mine_probabilities", "Agent", "make_agent", "list_agents", "play", "summarize", "wilson", "BoardViewer",
]
