"""Reinforcement learners of Bilir, Kong & Wittenbrink (2023), "Minesweeper: A
Reinforcement Learning Approach": `q-learning`, `sarsa`, `linear-q` and `mcts`.

    common.py   the paper's rewards, the exploration schedule, greedy choice
    table.py    whole-board states -> a row of values (open addressing over numpy)
    agent.py    RLAgent: the Python side they share (board binding, frozen views)
    tabular.py  Q-learning and SARSA
    linear.py   linear action values over a one-hot of the board
    mcts.py     Monte Carlo tree search with statistics kept across games

Every agent learns as it plays and is evaluated through `frozen()` (greedy, learning
nothing). See docs/reproductions.md for what the authors' program did differently.
"""
from .tabular import QLearningAgent, SarsaAgent  # noqa: F401  (registers them)
from .linear import LinearQAgent  # noqa: F401
from .mcts import MctsAgent  # noqa: F401
