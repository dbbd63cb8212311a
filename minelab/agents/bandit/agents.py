"""The agent classes: `BanditAgent` and the registered greedy-mab, egreedy-mab, ucb-mab
and sa-greedy.

Options, their values and their checks live here; the play is `play.bandit_step`
(interactive: `act`; batch, `play_batch`: its hooks `play.BanditBatch`). An agent keeps its
knowledge (`KeyTable`) across runs and levels; `copy()` forks it.
"""
from __future__ import annotations

import copy
import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...engine import SP_COLS, SP_ROWS, Move
from ..base import Agent, register
from ..batch import play_games
from ..spec import ALWAYS, Spec, choice, flag, integer, number
from .caches import WC_NMOVES, BanditWork, new_bandit_work
from .config import (
    END_LEARNING,
    FIRST_MOVES,
    MODE_STATE_ACTION,
    MODE_WINDOW,
    NO_FLAGS_RULES,
    POLICIES,
    UCB_BONUS,
    BanditConfig,
)
from .keys import SA_MAX_CELLS
from .play import BANDIT_EXTRA, BanditBatch, bandit_step
from .table import INSERTS_PER_CELL, TM_T, KeyTable
from .why import before_step, explain_step, knowledge_of


def _without_flags(agent) -> bool:
    """no_flags_rule defines the agent only when it plays without flags."""
    return not agent.flags


def _never(agent) -> bool:
    """A sizing hint (the table's first capacity): no part of what the agent is."""
    return False


@dataclass(frozen=True)
class BanditParams(Spec):
    """greedy-mab's parameters; every other agent of the family adds its own."""

    flags: bool = flag(True, keep=ALWAYS, doc="flag the mines it deduces (False: the no-flags reading)")
    symmetries: bool = flag(True, keep=ALWAYS, doc="key a window by its 8 symmetries as one")
    first_move: str = choice("first-zero", FIRST_MOVES, keep=ALWAYS, doc="how a game opens")
    end_learning: str = choice("last-all", END_LEARNING, keep=ALWAYS,
                               doc="which of a lost game's actions learn the loss")
    learning: bool = flag(True, keep=ALWAYS, doc="False: play on what it knows, learning nothing")
    no_flags_rule: str = choice("pairs", NO_FLAGS_RULES, keep=_without_flags,
                                doc="without flags: what an action is (a window pair, or a tile)")
    capacity: int = integer(1 << 16, 16, keep=_never, doc="the table's first capacity (it grows)")

    def __post_init__(self):
        super().__post_init__()
        if self.flags and self.no_flags_rule != "pairs":
            raise ValueError("no_flags_rule applies only with flags=False")


@dataclass(frozen=True)
class EpsilonParams(BanditParams):
    """egreedy-mab's parameters."""

    epsilon: float = number(0.01, 0.0, 1.0, keep=ALWAYS, doc="the chance of a random action")


@dataclass(frozen=True)
class UCBParams(BanditParams):
    """ucb-mab's parameters."""

    c: float = number(0.1, 0.0, keep=ALWAYS, doc="the bonus's weight")
    ucb_bonus: str = choice("certainty", UCB_BONUS, keep=ALWAYS, doc="what the bonus rewards")


@dataclass(frozen=True)
class StateActionParams(BanditParams):
    """sa-greedy's parameters (its keys are whole boards: no symmetries to switch off)."""

    def __post_init__(self):
        super().__post_init__()
        if not self.symmetries:
            raise ValueError("symmetries: the state-action agent has none to switch off")


class BanditAgent(Agent):
    """The paper's MAB learner; `policy` chooses greedy, egreedy or ucb.

    It learns as it plays (`ml.play(agent, level, n, seed)` trains it); its knowledge
    is `table()`; it keeps it across runs and levels (transfer), `copy()` forks it.
    """

    name = "mab"
    learns = True
    _explains = True
    extra_fields = BANDIT_EXTRA
    mode = MODE_WINDOW
    policy = "greedy"
    Params = BanditParams

    # the options of the other policies, at the values that leave this one's play as it is
    epsilon, c, ucb_bonus = 0.0, 0.0, "certainty"

    def __init__(self, seed=None, **params):
        super().__init__(seed)
        self._set_params(params)
        self.cfg = BanditConfig(
            policy=POLICIES.index(self.policy), flags=int(self.flags), symmetries=int(self.symmetries),
            first_move=FIRST_MOVES.index(self.first_move), end_learning=END_LEARNING.index(self.end_learning),
            ucb_bonus=UCB_BONUS.index(self.ucb_bonus), learning=int(self.learning), mode=int(self.mode),
            no_flags_rule=NO_FLAGS_RULES.index(self.no_flags_rule), epsilon=self.epsilon, c=self.c)
        self.keys = KeyTable(self.capacity)
        self._work: dict[tuple[int, int], BanditWork] = {}  # batch scratch, per board shape
        self._game_work = weakref.WeakKeyDictionary()  # interactive: each Game has its own records
        self._cells = None  # state-action agents are tied to one board size

    # --- knowledge -----------------------------------------------------------------
    def table(self) -> pd.DataFrame:
        """One row per action recorded: key, q, n, mines, perfect."""
        return self.keys.frame()

    @property
    def actions_recorded(self) -> int:
        return len(self.keys)

    @property
    def perfect_actions(self) -> int:
        return self.keys.perfect

    @property
    def decisions(self) -> int:
        """Decisions made over all games (UCB's t)."""
        return int(self.keys.meta[TM_T])

    def _saved(self):
        """The key table slot for slot, and the board shape a state-action agent is tied
        to; the caches are rebuilt as play goes (they are a speed device only)."""
        return self.keys.saved(), {"cells": None if self._cells is None else list(self._cells)}

    def _restore(self, arrays, facts):
        cells = facts.get("cells")
        if cells is not None and (not isinstance(cells, list) or len(cells) != 2
                                  or not all(type(v) is int and v >= 1 for v in cells)):
            raise ValueError(f"facts.cells: {cells!r} is not a board shape [rows, cols]")
        self.keys.put_saved(arrays)
        self._cells = None if cells is None else tuple(cells)

    def copy(self) -> BanditAgent:
        """An independent agent with the same knowledge (to test one trained agent on
        several levels without one test teaching the next)."""
        return copy.deepcopy(self)

    # --- play ----------------------------------------------------------------------
    def _work_for(self, rows, cols):
        n = rows * cols
        if self.mode == MODE_STATE_ACTION:
            if n > SA_MAX_CELLS:
                raise ValueError(f"the state-action agent keys whole boards: at most {SA_MAX_CELLS} cells, "
                                 f"got {rows}x{cols}")
            if self._cells is not None and self._cells != (rows, cols):
                raise ValueError(f"this state-action agent learned on {self._cells[0]}x{self._cells[1]} "
                                 f"boards; its keys mean nothing on {rows}x{cols}")
            self._cells = (rows, cols)
        key = (rows, cols)
        if key not in self._work:
            self._work[key] = new_bandit_work(rows, cols)
        return self._work[key]

    def play_batch(self, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        ws = self._work_for(rows, cols)
        done = 0
        while True:  # at least one call: a zero-game batch compiles the kernel (the runner's warm-up)
            self.keys.reserve(INSERTS_PER_CELL * rows * cols)
            state = BanditBatch(ws, self.keys.arrays(), self.cfg, np.zeros(len(BANDIT_EXTRA), np.int64))
            done += play_games(gs, n_games - done, deal_rng, self.rng, state, out[done:])
            if done >= n_games:
                break

    def act(self, game) -> list:
        """Make one decision on `game` (in progress) and learn from it, as in batch
        play: returns the moves made (the program's opening click, a reveal, a flag, or
        flag + unflag + reveal when flags would exceed mines). The game-end learning
        happens inside the decision that ends the game."""
        if game.over:
            raise ValueError("act() needs a game in progress; this one is over")
        self._work_for(game.level.rows, game.level.cols)  # checks the board size
        if game not in self._game_work:
            self._game_work[game] = new_bandit_work(game.level.rows, game.level.cols)
        ws = self._game_work[game]
        self.keys.reserve(INSERTS_PER_CELL * game.level.cells)
        before = before_step(self, game, ws)
        bandit_step(game._gs, ws, self.keys.arrays(), self.cfg, game._rng, self.rng, 0)
        self._why = f"{self.name}: {explain_step(self, game, ws, before)}"
        moves = []
        for kind, cell in ws.moves[: ws.counters[WC_NMOVES]]:
            moves.append(Move(int(kind), int(cell) // game.level.cols, int(cell) % game.level.cols))
        game.moves.extend(moves)
        return moves

    def _choose(self, game):
        """The first move `step` would make, without making it or learning (a dry run
        on a copy of the game and of the agent)."""
        twin_game = copy.deepcopy(game)
        twin = self.copy()
        twin.rng = copy.deepcopy(self.rng)
        move = twin.act(twin_game)[0]
        self._why = twin._why
        return move

    def knowledge(self, game):
        """Q (and N) of each covered tile's most certain action on the game's current view:
        what the greedy policy ranks the tiles by (computed from the view and the key table;
        the caches are not touched)."""
        if self.mode == MODE_STATE_ACTION and game.level.cells > SA_MAX_CELLS:
            return None
        return knowledge_of(self, game)

    step = act  # the name the tests and notebooks use for one decision


@register
class GreedyBandit(BanditAgent):
    """Greedy MAB agent: always the most certain action."""

    name = "greedy-mab"
    policy = "greedy"


@register
class EpsilonGreedyBandit(BanditAgent):
    """epsilon-greedy MAB agent (epsilon = 0.01 by default, the paper's best)."""

    name = "egreedy-mab"
    policy = "egreedy"

    Params = EpsilonParams


@register
class UCBBandit(BanditAgent):
    """UCB MAB agent (c = 0.1 by default, one of the paper's two best)."""

    name = "ucb-mab"
    policy = "ucb"

    Params = UCBParams


@register
class StateActionGreedy(BanditAgent):
    """Table II's state-action agent: greedy, keyed by the whole visible board and the
    target (the same rewards, flags and delayed learning as the MAB agents)."""

    name = "sa-greedy"
    policy = "greedy"
    mode = MODE_STATE_ACTION

    Params = StateActionParams
