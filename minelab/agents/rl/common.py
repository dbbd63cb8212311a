"""What the RL agents share: the paper's rewards, the exploration schedule, the greedy
choice over covered cells, and the checks of their parameters.

Rewards (Bilir, Kong & Wittenbrink 2023, §3): +1 for a safe click that does not end the
game, +10 for the winning click, -10 for a mine. A game is won when its last reward is
positive.

Exploration (§4.5): random actions for the first `random_games` games, then
epsilon-greedy with epsilon = epsilon_min + (1 - epsilon_min) exp(-epsilon_decay (i -
random_games)), i the number of games the agent has trained on (the paper: 500,000,
0.01, 1e-5). A constant `epsilon` replaces the decay (the authors' program used 0.1
for its linear approximation). The greedy action is the argmax of the values over the
covered cells, ties to the lowest index.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ...cells import COVERED, WON
from ...engine import kernel, random_covered_cell

REWARD_SAFE, REWARD_WIN, REWARD_MINE = 1.0, 10.0, -10.0


class Exploration(NamedTuple):
    """The exploration schedule, as kernels take it."""

    random_games: int
    epsilon_min: float
    epsilon_decay: float
    constant: float  # < 0: the decay schedule; otherwise epsilon after the random phase


@kernel
def epsilon_at(ex, games):
    """Epsilon for a game played after `games` training games."""
    if games < ex.random_games:
        return 1.0
    if ex.constant >= 0.0:
        return ex.constant
    return ex.epsilon_min + (1.0 - ex.epsilon_min) * math.exp(-ex.epsilon_decay * (games - ex.random_games))


@kernel
def game_reward(status, got):
    """The paper's reward of a click: `got` = open_cell's result, `status` the game's after it."""
    if got < 0:
        return REWARD_MINE
    if status == WON:
        return REWARD_WIN
    return REWARD_SAFE


@kernel
def argmax_covered(values, view):
    """The covered cell of largest value, ties to the lowest index (-1 if none is covered)."""
    best = -1
    top = -np.inf
    for i in range(view.shape[0]):
        if view[i] == COVERED and (best < 0 or values[i] > top):
            best = i
            top = values[i]
    return best


@kernel
def max_covered(values, view):
    """The largest value over the covered cells (0.0 when none is covered)."""
    cell = argmax_covered(values, view)
    return values[cell] if cell >= 0 else 0.0


@kernel
def epsilon_greedy(values, view, epsilon, rng):
    """A uniformly random covered cell with probability epsilon, else argmax_covered.
    Draws: none when epsilon == 0, one (the cell) when epsilon >= 1, else one or two."""
    if epsilon >= 1.0 or (epsilon > 0.0 and rng.random() < epsilon):
        return random_covered_cell(view, rng)
    return argmax_covered(values, view)


__all__ = ["REWARD_SAFE", "REWARD_WIN", "REWARD_MINE", "Exploration", "epsilon_at", "game_reward",
           "argmax_covered", "max_covered", "epsilon_greedy", "check_rate"]


def check_rate(field: str, value, lo: float = 0.0, hi: float = math.inf, lo_open: bool = False) -> float:
    """A finite number in [lo, hi] ((lo, hi] with lo_open); ValueError naming `field` otherwise."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    if not ok or not math.isfinite(value) or value > hi or value < lo or (lo_open and value == lo):
        bound = f"{'(' if lo_open else '['}{lo}, {hi}]"
        raise ValueError(f"{field} must be a finite number in {bound}, got {value!r}")
    return float(value)
