"""`TrainedAgent`: agents whose knowledge comes from a training run their parameters name.

Gardea et al.'s learners (local classifiers, kernel ridge regression, simplified
Q-learning) are trained first and then play frozen: nothing is learnt from the games
they play, so their games are independent given the model. Training is part of what
defines the agent, so it is given by three parameters, like any other:

    agent = ml.make_agent("gardea-logreg", train_level="8x8x10", train_size=20_000, train_seed=0)
    ml.play(agent, "8x8x10", 1_000, seed=1)          # trains on first use, then plays

`train_size` is the family's budget (labelled samples for the classifiers and the
regression, training games for Q-learning). The same parameters give the same model on
any machine (every random number flows from `train_seed`), so a sweep caches their games
like any agent's. `fit(level, size, seed)` trains now and sets the three parameters;
`save(path)` writes the model (numpy arrays + JSON, no pickle: minelab.agents.saved) and
`load_agent(path)` restores it without retraining. An agent with no training asked of it refuses to play
with an error that says how to train it.

A model is tied to the board shape it learnt on unless the family sets `transfers`
(local features mean the same on any board: the classifiers).

A family implements:
    _train(level, size, seed_sequence) -> dict of numpy arrays (the model) and a dict of
        facts about the training (samples, seconds, accuracy, ...: `training_info`)
    _play(model, gs, n_games, deal_rng, out)   its numba batch kernel on the model
    _decide(model, view, rng) -> cell           the same njit decision, one view (flat int8)
        (or _decide_board(model, view, rows, cols, rng) when the decision needs the shape)
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass

import numpy as np

from ...cells import REVEAL
from ...engine import SP_COLS, SP_ROWS, Move
from ...levels import Level
from ..base import Agent
from ..spec import Spec, given, integer
_MEMO: dict[str, tuple[dict, dict]] = {}  # (name, params) -> trained model, per process (a sweep's chunks)
_MEMO_MAX = 16
# The memo's budget: models are kept, oldest dropped first, while they hold at most this many
# bytes together; a larger model is not kept (an 8x8 Q-learning table is about a gigabyte:
# keeping it, and copying it for each agent, would hold the table two or more times).
_MEMO_BYTES = 256 * 2**20


def _nbytes(model: dict) -> int:
    return sum(getattr(v, "nbytes", 0) for v in model.values())


def _train_level(level):
    """The level's name, or None; ValueError naming train_level."""
    if level is None:
        return None
    try:
        return str(Level.parse(level))
    except ValueError as exc:
        raise ValueError(f"train_level: {exc}") from None


def _train_size(size):
    """A positive integer, or None; ValueError naming train_size."""
    if size is not None and (isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1):
        raise ValueError(f"train_size must be a positive integer, got {size!r}")
    return None if size is None else int(size)


def _check_train_params(train_level, train_size, train_seed):
    train_level, train_size = _train_level(train_level), _train_size(train_size)
    if (train_level is None) != (train_size is None):
        raise ValueError("train_level and train_size go together: give both (or neither, then fit() or load)")
    if isinstance(train_seed, bool) or not isinstance(train_seed, (int, np.integer)) or train_seed < 0:
        raise ValueError(f"train_seed must be a non-negative integer, got {train_seed!r}")
    return train_level, train_size, int(train_seed)


def _trained(agent) -> bool:
    """The training parameters define the agent only when it trains itself (train_level given)."""
    return agent.train_level is not None


TRAINING = ("train_level", "train_size", "train_seed")


@dataclass(frozen=True)
class TrainedParams(Spec):
    """The training every trained family shares; each family's spec adds its own."""

    train_level: object = given(None, _train_level, "a level, or None", keep=_trained,
                                doc="the level it trains on (None: fit() or load a model)")
    train_size: object = given(None, _train_size, "a positive integer, or None", keep=_trained,
                               doc="the training budget, in the family's unit")
    train_seed: int = integer(0, 0, keep=_trained, doc="the training's seed")

    def __post_init__(self):
        super().__post_init__()
        _check_train_params(self.train_level, self.train_size, self.train_seed)  # the two go together


class TrainedAgent(Agent):
    """Base of the agents trained before they play (see the module docstring)."""

    transfers = False  # True: a model trained on one board shape plays any other
    Params = TrainedParams

    def __init__(self, seed=None, **params):
        super().__init__(seed)
        self._set_params(params)
        self._model: dict | None = None
        self.training_info: dict = {}

    # --- parameters --------------------------------------------------------------
    def hyperparams(self) -> dict:
        """The family's own parameters (other than training) that differ from their
        defaults, for params() and saved files."""
        return {k: v for k, v in self.params().items() if k not in TRAINING}

    # --- training ----------------------------------------------------------------
    @property
    def trained(self) -> bool:
        return self._model is not None or self.train_level is not None

    def fit(self, level, size: int, seed: int = 0) -> "TrainedAgent":
        """Train on `level` with a budget of `size` (the family's unit) from `seed`; returns self."""
        self.train_level, self.train_size, self.train_seed = _check_train_params(level, size, seed)
        self._model = None
        self.model()
        return self

    def model(self) -> dict:
        """The trained model's arrays (training it first if the parameters ask for it)."""
        if self._model is None:
            if self.train_level is None:
                raise ValueError(f"{self.name} is not trained: give train_level and train_size, call "
                                 f"fit(level, size, seed), or load a saved model (minelab.agents.load_agent)")
            key = json.dumps([self.name, self.params()], sort_keys=True)
            if key in _MEMO:
                model, info = _MEMO[key]
                model = {k: v.copy() for k, v in model.items()}  # agents never share mutable arrays
            else:
                t0 = time.perf_counter()
                seq = np.random.SeedSequence(self.train_seed)
                model, info = self._train(Level.parse(self.train_level), self.train_size, seq)
                info = {**info, "seconds": time.perf_counter() - t0}
                size = _nbytes(model)
                if size <= _MEMO_BYTES:
                    while _MEMO and (len(_MEMO) >= _MEMO_MAX
                                     or size + sum(_nbytes(m) for m, _ in _MEMO.values()) > _MEMO_BYTES):
                        _MEMO.pop(next(iter(_MEMO)))
                    _MEMO[key] = (model, info)
                    model = {k: v.copy() for k, v in model.items()}
            self._model = model
            self.training_info = dict(info)
        return self._model

    def _train(self, level: Level, size: int, seq: np.random.SeedSequence) -> tuple[dict, dict]:
        raise NotImplementedError

    @property
    def trained_shape(self) -> tuple[int, int] | None:
        if self.train_level is None:
            return None
        lv = Level.parse(self.train_level)
        return lv.rows, lv.cols

    def check_board(self, rows: int, cols: int) -> dict:
        """The model, after checking it may play a rows x cols board (ValueError if not)."""
        model = self.model()
        shape = self.trained_shape
        if not self.transfers and shape is not None and shape != (rows, cols):
            raise ValueError(f"this {self.name} model was trained on {shape[0]}x{shape[1]} boards; its "
                             f"features are the whole board, so it cannot play {rows}x{cols}")
        return model

    # --- play --------------------------------------------------------------------
    def play_batch(self, gs, n_games, deal_rng, out):
        model = self.check_board(int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS]))
        self._play(model, gs, n_games, deal_rng, out)

    def _choose(self, game):
        rows, cols = game.level.rows, game.level.cols
        model = self.check_board(rows, cols)
        cell = int(self._decide_board(model, game._gs.shown, rows, cols, self.rng))
        why = self._explain(model, game, cell)
        self._why = f"{self.name}: {why}" if why else None
        return Move(REVEAL, cell // game.level.cols, cell % game.level.cols)

    def _explain(self, model, game, cell: int) -> str | None:
        """Why the decision just made on `game` chose `cell` (from the decision's scratch);
        None in a family that does not explain (one that does sets `_explains = True`)."""
        return None

    def choose_cell(self, view, rng=None) -> int:
        """The cell (flat index) this model plays on `view` (rows x cols, minelab codes):
        how test accuracies are measured on positions that are not games."""
        v = np.ascontiguousarray(view, dtype=np.int8)
        if v.ndim != 2:
            raise ValueError(f"view must be a 2-d board, got shape {v.shape}")
        model = self.check_board(*v.shape)
        return int(self._decide_board(model, v.ravel(), v.shape[0], v.shape[1], self.rng if rng is None else rng))

    def _play(self, model, gs, n_games, deal_rng, out):
        raise NotImplementedError

    def _decide(self, model, view, rng) -> int:
        raise NotImplementedError

    def _decide_board(self, model, view, rows, cols, rng) -> int:
        """`_decide` told the board's shape (the flat view does not say it): what
        interactive play calls. A family whose model transfers to other shapes (local
        windows) overrides this one; the default is `_decide`."""
        return self._decide(model, view, rng)

    # --- files (minelab.agents.saved) -------------------------------------------
    def _saved(self) -> tuple[dict, dict]:
        return dict(self.model()), {"training_info": self.training_info}

    def _restore(self, arrays: dict, facts: dict) -> None:
        if not arrays:
            raise ValueError(f"the file holds no {self.name} model")
        self._model = arrays
        self.training_info = dict(facts.get("training_info", {}))


__all__ = ["TrainedAgent"]
