"""Gardea, Koontz & Silva (2015)'s learned models, trained by minelab from nothing.

    trained.py      TrainedAgent: training named by parameters (files: minelab.agents.saved)
"""
from .trained import TrainedAgent  # noqa: F401
from . import qlearning  # noqa: F401  (registers gardea-q)
from . import classifiers, regression  # noqa: F401  (registers gardea-logreg, gardea-svm, gardea-krr)
from . import csp  # noqa: F401  (registers gardea-csp)
