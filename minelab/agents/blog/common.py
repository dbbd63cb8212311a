"""The blog's models' shared constants (see minelab.agents.blog)."""
from __future__ import annotations

N_STATES = 10  # a neighbour's state: 0 covered (or flagged), 1 + v for a revealed number v
EMPTY, MINE = 0, 1  # the Naive Bayes classes
PICK_EMPTY, PICK_ARGMAX = 0, 1
PICKS = ("random-empty", "argmax")
FEATURES = ("position", "pooled")
FALLBACKS = ("random", "conditional")
BACKUPS = ("expectation", "path")
BACKUP_EXPECT, BACKUP_PATH = 0, 1
REWARD_SUCCESS, REWARD_FAILURE, REWARD_STEP = 100.0, -100.0, 1.0  # the blog's REWARD
OUT_CONTINUE, OUT_SUCCESS = 0, 1  # edge kinds (FAILURE is counted apart: it has no next state)
SUB = 3  # sub-grid side
MAX_DEPTH = SUB * SUB
