"""The agent's options, and `BanditConfig`, the settings as the kernels take them (`cfg`).

Each option's allowed values are listed in a tuple; the kernels get the value's index
in it (the codes below).
"""
from __future__ import annotations

from typing import NamedTuple

from ...engine import kernel

POLICIES = ("greedy", "egreedy", "ucb")
P_GREEDY, P_EGREEDY, P_UCB = range(3)
FIRST_MOVES = ("first-zero", "agent", "first-zero-only")
FIRST_ZERO, FIRST_AGENT, FIRST_ZERO_ONLY = range(3)
END_LEARNING = ("last-all", "last-passed-over")
END_ALL, END_PASSED_OVER = range(2)
UCB_BONUS = ("certainty", "optimism")
UCB_CERTAINTY, UCB_OPTIMISM = range(2)
NO_FLAGS_RULES = ("pairs", "tiles")
NO_FLAGS_PAIRS, NO_FLAGS_TILES = range(2)
MODE_WINDOW, MODE_STATE_ACTION = 0, 1


class BanditConfig(NamedTuple):
    """An agent's settings, as codes (ints, 0/1 for switches) and rates (floats)."""

    policy: int         # P_*
    flags: int          # 1: flag tiles judged mines; 0: only reveal
    symmetries: int     # 1: the 8 images of a window share a key
    first_move: int     # FIRST_*
    end_learning: int   # END_*
    ucb_bonus: int      # UCB_*
    learning: int       # 0: play with the table as it is, learn nothing
    mode: int           # MODE_WINDOW or MODE_STATE_ACTION
    no_flags_rule: int  # NO_FLAGS_* (with flags = 0)
    epsilon: float      # egreedy's exploration rate
    c: float            # UCB's exploration constant


@kernel
def pairs_rule(cfg):
    """Whether the flags-off "pairs" reading applies (see `caches.better`)."""
    return cfg.flags == 0 and cfg.no_flags_rule == NO_FLAGS_PAIRS
