"""Gardea, Koontz & Silva (2015)'s learned models, trained by minelab from nothing.

    trained.py      TrainedAgent: training named by parameters, save / load_agent
"""
from .trained import TrainedAgent, load_agent  # noqa: F401
from . import qlearning  # noqa: F401  (registers gardea-q)
