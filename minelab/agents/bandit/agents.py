"""The agent classes: `BanditAgent` and the registered greedy-mab, egreedy-mab, ucb-mab
and sa-greedy.

Options, their values and their checks live here; the play is `play.bandit_step`
(interactive: `act`) and `play.bandit_batch` (batch: `play_batch`). An agent keeps its
knowledge (`KeyTable`) across runs and levels; `copy()` forks it.
"""
from __future__ import annotations

import copy
import weakref

import numpy as np
import pandas as pd

from ...engine import SP_COLS, SP_ROWS, Move
from ..base import Agent, register
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
from .play import bandit_batch, bandit_step
from .table import INSERTS_PER_CELL, TM_T, KeyTable
from .why import before_step, explain_step, knowledge_of


def _check_choice(field, value, allowed):
    if value not in allowed:
        raise ValueError(f"{field} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return allowed.index(value)


def _check_rate(field, value, lo_open=False):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value) or value < 0 or (lo_open and value == 0):
        raise ValueError(f"{field} must be a finite number {'> 0' if lo_open else '>= 0'}, got {value!r}")
    return float(value)


class BanditAgent(Agent):
    """The paper's MAB learner; `policy` chooses greedy, egreedy or ucb.

    It learns as it plays (`ml.play(agent, level, n, seed)` trains it); its knowledge
    is `table()`; it keeps it across runs and levels (transfer), `copy()` forks it.
    """

    name = "mab"
    learns = True
    _explains = True
    extra_fields = ("actions", "perfect")
    mode = MODE_WINDOW
    policy = "greedy"

    # Twelve keywords, one per option the paper or its program varies (policy rates, the
    # Fig 10 ablations, the text-vs-code variants): each is a named, documented switch.
    def __init__(self, seed=None, *, epsilon: float = 0.0, c: float = 0.0, flags: bool = True,
                 symmetries: bool = True, first_move: str = "first-zero", end_learning: str = "last-all",
                 ucb_bonus: str = "certainty", learning: bool = True, no_flags_rule: str = "pairs",
                 capacity: int = 1 << 16):
        super().__init__(seed)
        for field, v in (("flags", flags), ("symmetries", symmetries), ("learning", learning)):
            if not isinstance(v, (bool, np.bool_)):
                raise ValueError(f"{field} must be True or False, got {v!r}")
        self.epsilon = _check_rate("epsilon", epsilon)
        if self.epsilon > 1:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
        self.c = _check_rate("c", c)
        if self.policy != "egreedy" and self.epsilon != 0:
            raise ValueError(f"epsilon applies to the egreedy-mab agent only, not {self.name}")
        if self.policy != "ucb" and (self.c != 0 or ucb_bonus != "certainty"):
            raise ValueError(f"c and ucb_bonus apply to the ucb-mab agent only, not {self.name}")
        self.flags, self.symmetries, self.learning = bool(flags), bool(symmetries), bool(learning)
        self.first_move, self.end_learning, self.ucb_bonus = first_move, end_learning, ucb_bonus
        self.no_flags_rule = no_flags_rule
        if self.flags and no_flags_rule != "pairs":
            raise ValueError("no_flags_rule applies only with flags=False")
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 16:
            raise ValueError(f"capacity must be an integer >= 16, got {capacity!r}")
        self.cfg = BanditConfig(
            policy=_check_choice("policy", self.policy, POLICIES), flags=int(self.flags),
            symmetries=int(self.symmetries), first_move=_check_choice("first_move", first_move, FIRST_MOVES),
            end_learning=_check_choice("end_learning", end_learning, END_LEARNING),
            ucb_bonus=_check_choice("ucb_bonus", ucb_bonus, UCB_BONUS), learning=int(self.learning),
            mode=int(self.mode), no_flags_rule=_check_choice("no_flags_rule", no_flags_rule, NO_FLAGS_RULES),
            epsilon=self.epsilon, c=self.c)
        self.keys = KeyTable(capacity)
        self._work: dict[tuple[int, int], BanditWork] = {}  # batch scratch, per board shape
        self._game_work = weakref.WeakKeyDictionary()  # interactive: each Game has its own records
        self._cells = None  # state-action agents are tied to one board size

    def params(self) -> dict:
        out = {"flags": self.flags, "symmetries": self.symmetries, "first_move": self.first_move,
               "end_learning": self.end_learning, "learning": self.learning}
        if not self.flags:
            out["no_flags_rule"] = self.no_flags_rule
        if self.policy == "egreedy":
            out["epsilon"] = self.epsilon
        if self.policy == "ucb":
            out["c"] = self.c
            out["ucb_bonus"] = self.ucb_bonus
        return out

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
            done += bandit_batch(gs, ws, self.keys.arrays(), self.cfg, n_games - done,
                                 deal_rng, self.rng, out[done:])
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

    def __init__(self, seed=None, *, epsilon: float = 0.01, **kw):
        super().__init__(seed, epsilon=epsilon, **kw)


@register
class UCBBandit(BanditAgent):
    """UCB MAB agent (c = 0.1 by default, one of the paper's two best)."""

    name = "ucb-mab"
    policy = "ucb"

    def __init__(self, seed=None, *, c: float = 0.1, **kw):
        super().__init__(seed, c=c, **kw)


@register
class StateActionGreedy(BanditAgent):
    """Table II's state-action agent: greedy, keyed by the whole visible board and the
    target (the same rewards, flags and delayed learning as the MAB agents)."""

    name = "sa-greedy"
    policy = "greedy"
    mode = MODE_STATE_ACTION

    def __init__(self, seed=None, **kw):
        if not kw.get("symmetries", True):
            raise ValueError("symmetries: the state-action agent has none to switch off")
        super().__init__(seed, **kw)
