"""`RLAgent`: the Python side the RL families share (Q-learning, SARSA, linear Q, MCTS).

An agent learns as it plays (`ml.play(agent, "5x5x5:none", n, seed)` trains it) and
keeps what it learned across runs; it is tied to the board size it first played.
`frozen()` gives a view of it that plays greedily on its current values and learns
nothing (the paper's evaluation), sharing its values without copying them.

A family supplies three kernels' worth of methods: `_step(gs, work, deal_rng)` (one
decision: choose, click, learn), `_batch(gs, work, n_games, deal_rng, out)` (returns the
games it played; fewer than asked when its table must grow first, see `_make_room`) and
`_peek(game, work)` (the next cell without side effects, for `choose`).
"""
from __future__ import annotations

import copy
import weakref
from dataclasses import dataclass

import numpy as np

from ...cells import REVEAL
from ...engine import SP_COLS, SP_ROWS, Move
from ...levels import MAX_CELLS
from ..base import Agent
from ..spec import ALWAYS, Spec, flag, integer, number
from .common import Exploration

P_ROW, P_ACTION = 0, 1  # pending decision of a game in progress: its state's row, the action chosen


def _decays(agent) -> bool:
    """epsilon_min and epsilon_decay define the agent only when no constant epsilon replaces them."""
    return agent.epsilon is None


@dataclass(frozen=True)
class RLParams(Spec):
    """The exploration schedule and the learning switch (§4.5), shared by Q-learning,
    SARSA and linear Q."""

    random_games: int = integer(500_000, 0, keep=ALWAYS, doc="games of random actions first")
    epsilon_min: float = number(0.01, 0.0, 1.0, keep=_decays, doc="epsilon's floor after the random phase")
    epsilon_decay: float = number(1e-5, 0.0, keep=_decays, doc="epsilon's decay rate a game")
    epsilon: float | None = number(None, 0.0, 1.0, optional=True,
                                   doc="a constant epsilon after the random phase instead of the decay")
    learning: bool = flag(True, doc="False: play greedily on the values, learning nothing")


#: the record column the RL agents add: the states stored after each game (linear Q, which
#: stores none, adds no column)
RL_EXTRA = ("states",)


class RLAgent(Agent):
    """Base of the RL families (see the module docstring). Their explanations (`explain`)
    come from two hooks around the step: `_why_before(game, work, rng)` and
    `_why_after(game, work, rng, before, cell)`, rng a copy of the agent's stream taken
    before the step (minelab.agents.rl.why)."""

    Params = RLParams
    learns = True
    extra_fields = RL_EXTRA

    # the schedule of a family whose spec has no exploration (MCTS): none, ever
    random_games, epsilon_min, epsilon_decay, epsilon = 0, 0.01, 1e-5, None

    def __init__(self, seed=None, **params):
        super().__init__(seed)
        self._set_params(params)
        self.games = np.zeros(1, np.int64)  # training games played (the exploration schedule's i)
        self._shape = None  # (rows, cols) of the boards it plays
        self._work = {}  # batch scratch
        self._game_work = weakref.WeakKeyDictionary()  # interactive: each Game its own pending decision

    @property
    def explore(self) -> Exploration:
        """The exploration schedule as the kernels take it."""
        return Exploration(int(self.random_games), float(self.epsilon_min), float(self.epsilon_decay),
                           -1.0 if self.epsilon is None else float(self.epsilon))

    # --- the board it learns on ------------------------------------------------------
    def _bind(self, rows: int, cols: int) -> None:
        if self._shape is None:
            self._shape = (rows, cols)
            self._allocate(rows * cols)
        elif self._shape != (rows, cols):
            raise ValueError(f"this {self.name} agent learned on {self._shape[0]}x{self._shape[1]} boards; "
                             f"its states mean nothing on {rows}x{cols}")

    def _allocate(self, cells: int) -> None:
        """Create the values for boards of `cells` cells (the families' tables)."""
        raise NotImplementedError

    def _new_work(self, cells: int):
        raise NotImplementedError

    def _make_room(self) -> None:
        """Grow the table before a game (tabular families); nothing for linear Q."""

    # --- what it has learnt, in a file (minelab.agents.saved) --------------------------
    def _saved(self) -> tuple[dict, dict]:
        """The training games played and, once it has played, the board shape and the
        family's values (`_saved_values`): loaded back, it plays on as it would have."""
        arrays = {"games": self.games.copy()}
        if self._shape is not None:
            arrays.update(self._saved_values())
        return arrays, {"shape": None if self._shape is None else list(self._shape)}

    def _restore(self, arrays: dict, facts: dict) -> None:
        games = arrays.get("games")
        if games is None or games.dtype != np.int64 or games.shape != (1,) or games[0] < 0:
            raise ValueError("member games: expected int64[1], the training games played (>= 0)")
        shape = facts.get("shape")
        if shape is not None:
            if (not isinstance(shape, list) or len(shape) != 2 or not all(type(v) is int and v >= 1 for v in shape)
                    or shape[0] * shape[1] > MAX_CELLS):
                raise ValueError(f"facts.shape: {shape!r} is not a board shape [rows, cols] "
                                 f"(at most {MAX_CELLS} cells)")
            self._bind(*shape)
            try:
                self._restore_values(arrays)
            except ValueError:
                self._shape = None
                raise
        self.games[:] = games

    def _saved_values(self) -> dict:
        """The family's values as plain arrays (views of them: written at once); here its
        state table's (`table.saved`), which linear Q, holding weights, overrides."""
        return self.table.saved()

    def _restore_values(self, arrays: dict) -> None:
        """Take back what `_saved_values` wrote (the values of the bound shape exist, empty)."""
        self.table.put_saved(arrays)

    def frozen(self) -> "RLAgent":
        """A greedy, non-learning view of this agent sharing its values (evaluation):
        epsilon 0, nothing stored, a state never stored plays a uniformly random covered
        cell. Valid until this agent plays again (its table may grow and move)."""
        twin = copy.copy(self)
        twin.learning = False
        twin.random_games, twin.epsilon = 0, 0.0
        twin.games = self.games.copy()
        twin._work = {}
        twin._game_work = weakref.WeakKeyDictionary()
        twin._chosen = weakref.WeakKeyDictionary()
        twin._why = None
        return twin

    def copy(self) -> "RLAgent":
        """An independent agent with the same knowledge (and the same stream state)."""
        return copy.deepcopy(self)

    def _stream_copy(self) -> np.random.Generator:
        """The agent's stream, copied: a dry run (`choose`) draws from it, not from the agent's."""
        return copy.deepcopy(self.rng)

    # --- play ----------------------------------------------------------------------
    def play_batch(self, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        self._bind(rows, cols)
        if (rows, cols) not in self._work:
            self._work[(rows, cols)] = self._new_work(rows * cols)
        work = self._work[(rows, cols)]
        done = 0
        while True:  # at least one call: a zero-game batch compiles the kernel (the runner's warm-up)
            self._make_room()
            done += self._batch(gs, work, n_games - done, deal_rng, out[done:])
            if done >= n_games:
                break

    def act(self, game) -> list:
        """One decision on `game` (in progress): choose a cell, reveal it, learn from the
        reward (the learning of the game's last click happens in the decision that ends it)."""
        if game.over:
            raise ValueError("act() needs a game in progress; this one is over")
        self._bind(game.level.rows, game.level.cols)
        if game not in self._game_work:
            self._game_work[game] = self._new_work(game.level.cells)
        self._make_room()
        work = self._game_work[game]
        rng = self._stream_copy()  # replays the step's draws, to explain them; the agent's stream is not touched
        before = self._why_before(game, work, rng)
        cell = int(self._step(game._gs, work, game._rng))
        why = self._why_after(game, work, rng, before, cell)
        self._why = f"{self.name}: {why}" if why else None
        move = Move(REVEAL, cell // game.level.cols, cell % game.level.cols)
        game.moves.append(move)
        return [move]

    def _choose(self, game):
        self._bind(game.level.rows, game.level.cols)
        work = self._game_work.get(game) or self._new_work(game.level.cells)
        cell = int(self._peek(game, work))
        why = self._why_peek(game, work, cell)
        self._why = f"{self.name}: {why}" if why else None
        return Move(REVEAL, cell // game.level.cols, cell % game.level.cols)

    # --- why (explain) ---------------------------------------------------------------
    @property
    def _chosen_by_game(self) -> weakref.WeakKeyDictionary:
        """{game: rl.why.Choice} how the action each game reveals next was chosen."""
        if getattr(self, "_chosen", None) is None:
            self._chosen = weakref.WeakKeyDictionary()
        return self._chosen

    def _why_before(self, game, work, rng):
        """What the explanation needs from before the step (rng: a copy of the agent's stream)."""
        return None

    def _why_after(self, game, work, rng, before, cell) -> str | None:
        """The explanation of the step that revealed `cell` (None: the family does not explain;
        one that does sets `_explains = True`)."""
        return None

    def _why_peek(self, game, work, cell) -> str | None:
        """The explanation of the cell `choose` returns (nothing is played)."""
        return None
