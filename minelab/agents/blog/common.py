"""The blog's models' shared constants and parameter checks (see minelab.agents.blog)."""
from __future__ import annotations

import numpy as np

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


def _check_choice(field, value, allowed):
    if value not in allowed:
        raise ValueError(f"{field} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def _check_number(field, value, lo, hi=None, integer=False):
    kinds = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(value, bool) or not isinstance(value, kinds) or not np.isfinite(value) \
            or value < lo or (hi is not None and value > hi):
        span = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise ValueError(f"{field} must be {'an integer' if integer else 'a number'} {span}, got {value!r}")
    return int(value) if integer else float(value)


