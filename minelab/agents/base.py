"""The agent interface and the registry.

An agent decides with one njit function. Interactive play calls it through
`choose(game)`; batch play (`play_batch`, used by the runner) runs a numba kernel that
loops over games and calls the *same* function, so both paths make identical choices
from the same random stream.
"""
from __future__ import annotations

import copy
import inspect
from typing import NamedTuple

import numpy as np

from ..engine import Game, Move, as_generator
from ..levels import Level
from .spec import Spec
from ..paths import BEHAVIOUR_FILE, golden_digests as _behaviour_table  # noqa: F401 (playthrough uses both)

_REGISTRY: dict[str, type["Agent"]] = {}


def register(cls):
    """Class decorator: make the agent available as make_agent(cls.name)."""
    if cls.name in _REGISTRY:
        raise ValueError(f"agent name {cls.name!r} is registered twice")
    _REGISTRY[cls.name] = cls
    return cls


def params_are_values(name: str) -> bool:
    """Whether the registered family `name` declares that its parameters never change its
    kernels' types (`Agent.params_are_values`); False for a name not registered."""
    cls = _REGISTRY.get(name)
    return bool(cls is not None and cls.params_are_values)


def list_agents() -> list[str]:
    """The names of every registered agent, sorted.

        >>> import minelab as ml
        >>> "hcsp" in ml.list_agents()
        True
    """
    return sorted(_REGISTRY)


def make_agent(name: str, **params) -> "Agent":
    """A new agent of the registered family `name`, with its parameters.

    `seed` (int, SeedSequence or Generator) seeds the agent's own choices in interactive
    play; `ml.play` gives it a stream of its own. Unknown names and bad parameters raise
    ValueError naming the field; `help(type(agent))` shows a family's parameters.

        >>> import minelab as ml
        >>> agent = ml.make_agent("egreedy-mab", epsilon=0.05)
        >>> agent.params()["epsilon"]
        0.05
    """
    if name not in _REGISTRY:
        raise ValueError(f"agent must be one of {', '.join(list_agents())}; got {name!r}")
    cls = _REGISTRY[name]
    try:
        return cls(**params)
    except TypeError as exc:  # an unknown keyword: say which ones the family takes
        allowed = [p for p in inspect.signature(cls.__init__).parameters if p not in ("self", "kw", "kwargs")]
        raise ValueError(f"{name}: {exc}; its parameters are {', '.join(allowed)}") from None


def behaviour_digests(names=None) -> dict[str, str]:
    """{agent: digest of its golden playthrough} for `names` (default: every registered
    agent), from behaviour.json beside this module (written by `python -m
    minelab.playthrough --regenerate`). An agent without a golden file (registered in a
    notebook, say) is "unpinned". The sweep stamps its result files with these.

        >>> import minelab as ml
        >>> sorted(ml.agents.behaviour_digests(["random"]))
        ['random']
    """
    table = _behaviour_table()
    names = list_agents() if names is None else names
    return {name: table.get(name, "unpinned") for name in names}


OPTIONS_SUFFIX = "+options"


def pinned_names(name: str, params: dict | None = None) -> list[str]:
    """The golden playthroughs a result of agent `name` with parameters `params` rests on:
    its own, and "<name>+options" (the playthrough of its optional steps) when `params`
    sets one of the family's `option_fields` away from its default, or when `params` cannot
    be read as the family's parameters (then nothing shows that no option is on; the task
    checks name the bad field).

        >>> pinned_names("best", {"chain_fifty_fifty": True})
        ['best', 'best+options']
        >>> pinned_names("best", {"first_click": (3, 3)})
        ['best']
    """
    cls = _REGISTRY.get(name)
    if cls is None or not cls.option_fields or not params:
        return [name]
    try:
        given = cls.Params.make(name, **{k: v for k, v in params.items() if k != "seed"}).params()
    except (TypeError, ValueError):
        return [name, name + OPTIONS_SUFFIX]
    return [name, name + OPTIONS_SUFFIX] if cls.option_fields & set(given) else [name]


class CellValues(NamedTuple):
    """What a learner knows about a position, one number per cell (`Agent.knowledge`):
    the viewer draws it as an overlay, on a colour scale from `lo` to `hi`."""

    values: np.ndarray  # float64 (rows, cols); NaN where the learner has no value
    counts: "np.ndarray | None"  # int64 (rows, cols): the updates behind each value (N), or None
    label: str  # what the numbers are, in one line ("Q of each target's most certain window")
    lo: float  # the colour scale's ends
    hi: float
    high_means: str  # "mine": a high value says mine; "good": a high value is the move the learner prefers


class Agent:
    """Base class of every agent. A family sets `name` and implements `_choose(game)`
    (interactive) and `play_batch(gs, n_games, deal_rng, out)` (its numba batch kernel),
    which must make the same moves from the same streams; a family whose decision is
    several moves overrides `act`. Register it with `@register` and it is in
    `list_agents()`, the contract tests and the golden playthroughs.

        >>> import minelab as ml
        >>> game = ml.Game("9x9x10", seed=1)
        >>> moves = ml.make_agent("hcsp", seed=0).act(game)   # one decision
        >>> moves[0]
        Move(reveal, 0, 0)
    """

    name = "agent"
    Params: "type[Spec] | None" = None  # the family's parameter spec (minelab.agents.spec), if it has one
    cheat = False  # True only for the labelled oracle: reads hidden mines during play
    learns = False  # True when the agent keeps learning across the games it plays
    extra_fields: tuple[str, ...] = ()  # per-game columns the agent's batch kernel adds to the records
    # True when no parameter changes the numba types of the agent's kernels (each is a value
    # they read at run time): tasks that differ only in its parameters compile the same
    # kernels (minelab.sweep.compile_key). A family that sets it has a test comparing the
    # types of its batch state across its parameters.
    params_are_values = False
    # Parameters that switch on code the golden playthrough never runs (best's optional
    # steps): a result of the agent with any of them away from its default is pinned by a
    # second playthrough too, "<name>+options" (`pinned_names`).
    option_fields: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.Params is not None:  # help() and inspect show the spec's parameters, not **params
            cls.__signature__ = cls.Params.signature()

    def __init__(self, seed=None):
        self.rng = as_generator(seed)

    def _set_params(self, params: dict) -> None:
        """Check `params` against the family's spec (ValueError naming the field) and keep
        every value, defaults included, as an attribute of the same name."""
        self.Params.make(self.name, **params).apply(self)

    def params(self) -> dict:
        """The parameters that define the agent, other than defaults (records, task keys, repr)."""
        return {} if self.Params is None else self.Params.params_of(self)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({inner})"

    # --- interactive ---------------------------------------------------------------
    def choose(self, game: Game) -> Move:
        """The next move for `game` (which must be in progress)."""
        if game.over:
            raise ValueError("choose() needs a game in progress; this one is over")
        return self._choose(game)

    def _choose(self, game: Game) -> Move:
        raise NotImplementedError

    def game_over(self, game: Game) -> None:
        """Learning hook after an interactive game ends (no-op for non-learners)."""

    def act(self, game: Game) -> list[Move]:
        """Make the agent's next decision on `game` and return the moves made: one move
        here; an agent whose decision is several moves, learning as it goes, overrides it."""
        move = self.choose(game)
        game.apply(move)
        return [move]

    # --- why, and what it knows (the viewer shows these) ------------------------------
    def explain(self) -> str:
        """Why the agent made its last interactive decision (`act` / `choose`), in one line,
        from the agent's own reasoning; a family that cannot explain says so."""
        why = getattr(self, "_why", None)
        if why:
            return why
        if type(self)._explains:
            return f"{self.name}: no decision yet"
        return f"{self.name} does not explain its moves"

    _explains = False  # True in a family whose act / choose record `self._why`

    def knowledge(self, game: Game) -> "CellValues | None":
        """What a learner knows about the position of `game` (a value per cell: a bandit's
        most certain window value per target, a tabular learner's action values), or None
        when the agent has nothing of the kind to show. Never reads the hidden mines."""
        return None

    def warm_up(self, level: "Level | str") -> None:
        """Compile (or load from numba's cache) the kernels of interactive play on `level`,
        and do any one-off work (a trained model's training): the agent plays a throwaway
        game and its knowledge and random stream are left as they were (a learner plays
        through a copy; any other agent has its stream put back). The viewer calls it in
        the background when it is created."""
        level = Level.parse(level)
        rng = copy.deepcopy(self.rng)
        twin = copy.deepcopy(self) if self.learns else self
        game = Game(level, seed=0)
        try:
            for _ in range(4 * level.cells + 10):
                if game.over:
                    break
                twin.act(game)
        finally:
            self.rng = rng
            self._why = None

    def play_game(self, game: Game) -> Game:
        """Play `game` to its end with this agent, then let it learn."""
        while not game.over:
            self.act(game)
        self.game_over(game)
        return game

    # --- what it has learnt (minelab.agents.saved) -----------------------------------
    def save(self, path):
        """Write this agent's parameters and what it has learnt to `path` (.npz, atomic);
        `minelab.agents.load_agent(path)` gives it back. An agent that learns nothing raises."""
        from .saved import save_agent

        return save_agent(self, path)

    def _saved(self) -> tuple[dict, dict]:
        """(arrays, JSON-able facts) to save; a family that learns overrides it."""
        raise ValueError(self._unsaved())

    def _restore(self, arrays: dict, facts: dict) -> None:
        """Take back what `_saved` wrote."""
        raise ValueError(self._unsaved())

    def _unsaved(self) -> str:
        if self.learns:
            return (f"{self.name}: saving what it learnt to a file is not supported (agent.copy() or "
                    f"copy.deepcopy keeps it in memory)")
        return f"{self.name} learns nothing: there is nothing to save (make_agent gives it back)"

    # --- batch ---------------------------------------------------------------------
    def play_batch(self, gs, n_games: int, deal_rng: np.random.Generator, out: np.ndarray) -> None:
        """Play n_games on the game state `gs`, one row of `out` per game
        (engine.RECORD_FIELDS, then the agent's extra_fields). With n_games == 0 it must
        still call its kernel and change nothing: the runner's warm-up compiles that way,
        so games/s never counts compilation."""
        raise NotImplementedError


def cell_to_move(kind: int, cell: int, level: Level) -> Move:
    return Move(kind, int(cell) // level.cols, int(cell) % level.cols)
