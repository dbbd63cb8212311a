"""Why an RL agent revealed its last cell, and its action values of a position (the viewer's overlay).

Q-learning, SARSA and linear Q choose the action a game reveals next at the end of the
step before (the a' of their updates), epsilon-greedy inside one numba function. To say
whether that choice explored, `replay_choice` runs the same draws on a copy of the
agent's stream, positioned where the step drew them (the agent's own stream is never
touched): `epsilon_greedy` draws rng.random() < epsilon, then the random cell. The
values the choice ranked are read where the step left them (the table row of s', not
changed by the update of Q(s, a); linear Q's work.q).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...cells import COVERED
from ...engine import random_covered_cell
from ..why import at, count, num
from .common import argmax_covered, epsilon_at


class Choice(NamedTuple):
    """How the action a game reveals next was chosen."""

    cell: int
    explored: bool  # a uniformly random covered cell (epsilon-greedy's random branch)
    epsilon: float
    value: float  # its value when chosen (NaN: none)
    covered: int  # covered cells then
    state: str  # "" (a stored state), "new" (stored now, all values 0) or "unseen" (frozen: never stored)
    games: int  # training games played then (the exploration schedule's i)


def replay_choice(values, view, epsilon: float, rng) -> tuple[int, bool]:
    """(cell, explored) of `common.epsilon_greedy(values, view, epsilon, rng)`, with the
    same draws from `rng` (a copy of the agent's stream)."""
    if epsilon >= 1.0 or (epsilon > 0.0 and rng.random() < epsilon):
        return int(random_covered_cell(view, rng)), True
    return int(argmax_covered(values, view)), False


def choose_like(values, view, explore, games, rng, state: str = "") -> Choice:
    """The Choice epsilon-greedy makes at `view` over `values` (None: a frozen agent's
    state never stored, a uniformly random covered cell)."""
    covered = int(np.count_nonzero(view == COVERED))
    if values is None:
        return Choice(int(random_covered_cell(view, rng)), True, 0.0, float("nan"), covered, "unseen", games)
    epsilon = float(epsilon_at(explore, games))
    cell, explored = replay_choice(values, view, epsilon, rng)
    return Choice(cell, explored, epsilon, float(values[cell]), covered, state, games)


def describe(choice: "Choice | None", cell: int, cols: int, random_games: int) -> str:
    """The explanation of revealing choice.cell."""
    said = f"reveal {at(cell, cols)}: "
    if choice is None or choice.cell != cell:  # not seen being chosen (an episode driven by observe(), say)
        return said + "the action chosen at the end of the step before"
    if choice.state == "unseen":
        return said + f"a state never stored (frozen play): uniformly at random among {count(choice.covered, 'cell')}"
    if choice.explored:
        why = (f"the first {random_games} games explore" if choice.games < random_games
               else f"epsilon = {num(choice.epsilon)}")
        said += f"random exploration ({why}), uniformly among {count(choice.covered, 'covered cell')}"
        return said + (", in a new state (all values 0)" if choice.state == "new"
                       else f"; Q(s, a) = {num(choice.value)}")
    if choice.state == "new":
        return said + ("a new state (all values 0): the greedy argmax over zeros is the lowest covered cell "
                       f"(epsilon = {num(choice.epsilon)})")
    return said + (f"greedy, Q(s, a) = {num(choice.value)}, the largest of the {count(choice.covered, 'covered cell')}'"
                   f" values (ties to the lowest index; epsilon = {num(choice.epsilon)})")


def covered_values(values, view, shape, label: str, counts=None):
    """CellValues of `values` on the covered cells of `view` (NaN elsewhere; values None:
    all NaN), coloured over their own range, high = the move preferred."""
    from ..why import cell_values, value_range

    covered = view == COVERED
    v = np.full(view.shape[0], np.nan) if values is None else np.where(covered, values, np.nan)
    c = None if counts is None else np.where(covered, counts, 0)
    lo, hi = value_range(v, default=(-10.0, 10.0))
    return cell_values(v, c, shape, label, lo, hi, "good")
