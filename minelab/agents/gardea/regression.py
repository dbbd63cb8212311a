"""Gardea et al. (2015) §III-B-2: global probability regression (`gardea-krr`).

    agent = ml.make_agent("gardea-krr", train_level="4x4x3", train_size=1_000)
    ml.play(agent, "4x4x3", 1_000, seed=1)

Training (`_train`): `train_size` whole-board positions of the §III-B generator
(`samples.board_states`, seeded by `train_seed`), each the view encoded per cell and,
as label, the exact mine probability of every cell (the "full Minesweeper solver":
`minelab.probability`; 0 on revealed cells). A multi-output kernel ridge regression
(scikit-learn KernelRidge: theta^T x = Y^T (K + lambda I)^-1 k, the paper's closed form)
maps one to the other. Its meta-parameters (kernel rbf or laplacian, gamma, alpha =
the paper's lambda) are chosen by cross-validation (GridSearchCV over `grid`, mean absolute
error, `cv_folds` folds split by game with a seeded shuffle: positions of one game
never sit on both sides), then the best is refit on every position. scikit-learn runs on
one BLAS thread (`classifiers.one_thread`): minelab parallelises across tasks.
Cells are encoded as integers (default, the text: "each square ... a feature with an
integer": the number, COVERED_CODE -1 when covered) or one-hot (`encoding="onehot"`,
scikit-learn OneHotEncoder over the codes -1..8).

KRR keeps every training position (O(m^2) memory to fit, O(m) per prediction), so
train_size is refused above MAX_TRAIN_STATES.

Play (Algorithm 1, `krr_decide`, one njit function for interactive and batch play):
predict the mine probability of every perimeter cell, k(x, X_train) @ dual_coef
recomputed in numba from the stored training boards and dual coefficients (prediction
runs at every decision inside the batch kernel, where scikit-learn cannot be called).
"No reasonable move" = every perimeter cell predicted >= 0.5 (a mine more likely than
not): then a uniformly random covered cell off the perimeter (any covered cell if none
is off it); else the perimeter cell of lowest predicted probability (exact ties at
random). `targets="covered"` ranks every covered cell instead of the perimeter's (the
training is the same: whole boards). With nothing revealed: `first_click` "corner"
(default, the paper's §III) or "random".

The features are the whole board, so a model plays only the board shape it learnt on
(transfers = False: the base class refuses another shape, naming both); the mine count
may differ.

`training_info`: train_states, games, kernel, alpha, gamma, cv_mae, test_mae (every
cell of TEST_STATES held-out positions, a spawned seed), test_mae_covered (covered
cells only), move_accuracy (share of those positions where the agent's move has the
minimum exact mine probability among covered cells: samples.move_accuracy, as for the
classifiers), seconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cells import REVEAL
from ...engine import SP_COLS, SP_ROWS, _tables, kernel
from ..base import register
from ..batch import hook, hooks, play_games
from ..spec import choice, integer, number
from ..why import at, count, num
from .classifiers import (ENCODINGS, ENC_INTEGER, FIRST_CLICKS, off_perimeter_cell, off_perimeter_why,
                          one_thread, opening_cell, opening_why)
from .samples import (COVERED_CODE, PERIMETER_PROB, TARGETS, any_revealed, board_states, move_accuracy, perimeter_mask)
from .trained import TrainedAgent, TrainedParams

MAX_TRAIN_STATES = 4_000  # KRR's kernel matrix: m^2 doubles (128 MB at 4,000), per fold and grid point
TEST_STATES = 500
CELL_CODES = np.arange(COVERED_CODE, 9, dtype=np.int8)  # -1 (covered), 0..8
N_CELL_CODES = len(CELL_CODES)
KERNELS = ("rbf", "laplacian", "linear")
K_RBF, K_LAPLACIAN, K_LINEAR = range(3)
ALPHAS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
GAMMA_FACTORS = (0.1, 1.0, 10.0)  # gamma = factor / encoded width (scikit-learn's default is 1 / width)
GRID_KERNELS = ("rbf", "laplacian")


class KRRModel(NamedTuple):
    """A trained regression as the kernels read it (`krr_model`)."""

    encoding: int  # ENC_INTEGER or ENC_ONEHOT
    kernel: int  # K_RBF, K_LAPLACIAN or K_LINEAR
    gamma: float
    X: np.ndarray  # float64 [m, d] the encoded training boards
    dual: np.ndarray  # float64 [m, cells] dual coefficients (KernelRidge.dual_coef_)


class Scratch(NamedTuple):
    perim: np.ndarray  # uint8 [cells]
    x: np.ndarray  # float64 [d] the encoded board
    k: np.ndarray  # float64 [m] k(x, X_train)


def grid(width: int) -> dict:
    """The cross-validation grid (scikit-learn's param_grid) for boards of encoded width `width`."""
    return {"kernel": list(GRID_KERNELS), "alpha": list(ALPHAS), "gamma": [g / width for g in GAMMA_FACTORS]}


# ------------------------------------------------------------------------- kernels
@kernel
def encode_board(encoding, view, x):
    """x = the board encoded per cell: the number (COVERED_CODE when covered or flagged),
    or one-hot (cell j, code v -> column j * 10 + v + 1)."""
    if encoding == ENC_INTEGER:
        for j in range(view.shape[0]):
            x[j] = view[j] if view[j] >= 0 else COVERED_CODE
    else:
        x[:] = 0.0
        for j in range(view.shape[0]):
            v = view[j] if view[j] >= 0 else COVERED_CODE
            x[j * N_CELL_CODES + v - COVERED_CODE] = 1.0


@kernel
def kernel_value(kind, gamma, a, b):
    """K(a, b) as scikit-learn's pairwise kernels define it."""
    acc = 0.0
    if kind == K_LINEAR:
        for j in range(a.shape[0]):
            acc += a[j] * b[j]
        return acc
    if kind == K_RBF:
        for j in range(a.shape[0]):
            d = a[j] - b[j]
            acc += d * d
    else:
        for j in range(a.shape[0]):
            acc += abs(a[j] - b[j])
    return np.exp(-gamma * acc)


@kernel
def kernel_row(m, view, s):
    """s.k = k(x, X_train) for the board `view` (encoded into s.x)."""
    encode_board(m.encoding, view, s.x)
    for i in range(m.X.shape[0]):
        s.k[i] = kernel_value(m.kernel, m.gamma, m.X[i], s.x)


@kernel
def predict_cell(m, k, j):
    """The predicted mine probability of cell j, from k = k(x, X_train): k @ dual[:, j]."""
    p = 0.0
    for i in range(m.X.shape[0]):
        p += k[i] * m.dual[i, j]
    return p


@kernel
def krr_predict(m, view, s, out):
    """out[j] = the predicted mine probability of every cell j (what KernelRidge.predict gives)."""
    kernel_row(m, view, s)
    for j in range(view.shape[0]):
        out[j] = predict_cell(m, s.k, j)


@kernel
def krr_decide(m, view, nbr, nbr_count, first, covered, s, rng):
    """Algorithm 1 with the regression's probabilities (see the module docstring); `covered`
    1 ranks every covered cell instead of the perimeter's (targets="covered")."""
    if not any_revealed(view):
        return opening_cell(view, first, rng)
    perimeter_mask(view, nbr, nbr_count, s.perim)
    kernel_row(m, view, s)
    best = np.inf
    choice = -1
    ties = 0
    for j in range(view.shape[0]):
        if s.perim[j] == 0 and not (covered and view[j] < 0):
            continue
        p = predict_cell(m, s.k, j)
        if p < best:
            best = p
            choice = j
            ties = 1
        elif p == best:
            ties += 1
            if rng.random() * ties < 1.0:  # reservoir: each tie kept w.p. 1/ties
                choice = j
    if choice >= 0 and best < 0.5:
        return choice
    return off_perimeter_cell(view, s.perim, rng)


class KrrBatch(NamedTuple):
    """The regression's batch state (minelab.agents.batch): its model, opening, targets and
    scratch."""

    m: KRRModel
    first: int
    covered: int
    s: Scratch
    extra: np.ndarray  # int64[0]


@hook
def _krr_move(state, gs, rng, deal_rng):
    return REVEAL, krr_decide(state.m, gs.shown, gs.nbr, gs.nbr_count, state.first, state.covered, state.s, rng)


hooks(KrrBatch, _krr_move)


# ------------------------------------------------------------------------- Python side
def encode_boards(views: np.ndarray, encoding: str) -> np.ndarray:
    """The regression's input (float64 [n, d]): the cells as numbers, or scikit-learn's
    OneHotEncoder over the fixed codes -1..8 (the same columns `encode_board` writes)."""
    cells = np.where(views >= 0, views, COVERED_CODE).astype(np.int64)
    if encoding == "integer":
        return cells.astype(np.float64)
    from sklearn.preprocessing import OneHotEncoder

    enc = OneHotEncoder(categories=[CELL_CODES.astype(np.int64)] * cells.shape[1], sparse_output=False,
                        dtype=np.float64)
    return enc.fit_transform(cells)


def game_folds(game: np.ndarray, k: int, seed) -> list[tuple[np.ndarray, np.ndarray]]:
    """k (train, test) index pairs, whole games on one side: the games shuffled (seeded)
    and dealt to the folds in turn."""
    games = np.unique(game)
    if len(games) < k:
        raise ValueError(f"train_size gives {len(games)} games, fewer than cv_folds={k}: train on more positions")
    order = np.random.default_rng(seed).permutation(games)
    fold_of = dict(zip(order.tolist(), np.arange(len(order)) % k))
    fold = np.array([fold_of[g] for g in game.tolist()])
    return [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(k)]


def krr_model(model: dict) -> KRRModel:
    """The kernels' KRRModel from a model's arrays (as trained or loaded)."""
    return KRRModel(encoding=int(model["encoding"]), kernel=int(model["kernel"]), gamma=float(model["gamma"]),
                    X=np.ascontiguousarray(model["X"], np.float64),
                    dual=np.ascontiguousarray(model["dual"], np.float64))


def _check_size(train_size):
    if train_size is not None and train_size > MAX_TRAIN_STATES:
        raise ValueError(f"train_size must be at most {MAX_TRAIN_STATES:,} positions for kernel ridge regression "
                         f"(it keeps every training position: O(m^2) memory to fit), got {train_size:,}")


@dataclass(frozen=True)
class KRRParams(TrainedParams):
    """gardea-krr's parameters: the training's, the encoding and the cross-validation."""

    encoding: str = choice("integer", ENCODINGS, doc="a board cell as one integer, or one-hot")
    perimeter_prob: float = number(PERIMETER_PROB, 0.0, 1.0, doc="the training generator's perimeter probability")
    cv_folds: int = integer(3, 2, doc="folds of the grid search over the kernel's parameters")
    first_click: str = choice("corner", FIRST_CLICKS, doc="the first probe")
    targets: str = choice("perimeter", TARGETS, doc="score the perimeter, or every covered cell")


@register
class KRRAgent(TrainedAgent):
    """Gardea et al.'s global kernel ridge regression of exact mine probabilities, played by
    Algorithm 1 (see minelab.agents.gardea.regression).

    encoding: "integer" | "onehot"; perimeter_prob: the training generator's; cv_folds:
    folds of the meta-parameter search (split by game); first_click: "corner" | "random";
    targets: "perimeter" | "covered" (the cells ranked); train_level, train_size (positions,
    at most MAX_TRAIN_STATES), train_seed: the training.
    """

    name = "gardea-krr"
    transfers = False  # whole-board features: one board shape
    _explains = True
    Params = KRRParams

    def __init__(self, seed=None, **params):
        super().__init__(seed, **params)
        _check_size(self.train_size)
        self._scratch: dict[tuple[int, int], Scratch] = {}

    # --- training ----------------------------------------------------------------
    def _train(self, level, size, seq):
        from sklearn.kernel_ridge import KernelRidge
        from sklearn.model_selection import GridSearchCV

        _check_size(size)
        s_train, s_test, s_cv, s_play = seq.spawn(4)
        data = board_states(level, size, s_train, perimeter_prob=self.perimeter_prob)
        X = encode_boards(data.views, self.encoding)
        search = GridSearchCV(KernelRidge(), grid(X.shape[1]), scoring="neg_mean_absolute_error",
                              cv=game_folds(data.game, self.cv_folds, s_cv), refit=True)
        with one_thread():
            search.fit(X, data.probs)
        est = search.best_estimator_
        model = {"encoding": np.array(ENCODINGS.index(self.encoding)), "kernel": np.array(KERNELS.index(est.kernel)),
                 "gamma": np.array(float(est.gamma)), "X": X, "dual": np.asarray(est.dual_coef_, np.float64)}
        info = {"train_states": int(size), "games": int(data.game[-1] + 1), "kernel": est.kernel,
                "alpha": float(est.alpha), "gamma": float(est.gamma), "cv_mae": float(-search.best_score_)}
        info.update(self._held_out(level, est, model, s_test, s_play))
        return model, info

    def _held_out(self, level, est, model, s_test, s_play) -> dict:
        """MAE and move accuracy on TEST_STATES positions of other games (a spawned seed)."""
        test = board_states(level, TEST_STATES, s_test, perimeter_prob=self.perimeter_prob)
        with one_thread():
            err = np.abs(est.predict(encode_boards(test.views, self.encoding)) - test.probs)
        m, scratch = krr_model(model), self._new_scratch(level.cells, len(model["X"]), model["X"].shape[1])
        nbr, nbr_count = _tables(level.rows, level.cols)
        rng = np.random.default_rng(s_play)
        first = self._first()
        covered = self._covered()
        acc = move_accuracy(test, lambda v: krr_decide(m, v, nbr, nbr_count, first, covered, scratch, rng))
        return {"test_states": TEST_STATES, "test_mae": float(err.mean()),
                "test_mae_covered": float(err[test.views < 0].mean()), "move_accuracy": float(acc)}

    # --- play --------------------------------------------------------------------
    @staticmethod
    def _new_scratch(cells: int, m: int, d: int) -> Scratch:
        return Scratch(perim=np.zeros(cells, np.uint8), x=np.zeros(d), k=np.zeros(m))

    def scratch(self, model: dict, cells: int) -> Scratch:
        m, d = model["X"].shape
        key = (cells, m, d)
        if key not in self._scratch:
            self._scratch[key] = self._new_scratch(cells, m, d)
        return self._scratch[key]

    def _first(self) -> int:
        """The flat index of the opening click (the top-left corner), -1 for a random one."""
        return 0 if self.first_click == "corner" else -1

    def _covered(self) -> int:
        """1 when the decision ranks every covered cell (targets="covered"), 0 for the perimeter."""
        return int(self.targets == "covered")

    def _play(self, model, gs, n_games, deal_rng, out):
        cells = int(gs.spec[SP_ROWS] * gs.spec[SP_COLS])
        state = KrrBatch(krr_model(model), self._first(), self._covered(), self.scratch(model, cells),
                         np.zeros(0, np.int64))
        play_games(gs, n_games, deal_rng, self.rng, state, out)

    def _explain(self, model, game, cell) -> str:
        """The regression's mine probability of the chosen cell among the perimeter's (from
        the kernel row k(x, X_train) the decision left in the scratch)."""
        view, cols = game._gs.shown, game.level.cols
        if not (view >= 0).any():
            return opening_why(self.first_click, view, cell, cols)
        m = krr_model(model)
        s = self.scratch(model, game.level.cells)
        perim = np.flatnonzero((s.perim > 0) | ((view < 0) & bool(self._covered())))  # the cells ranked
        probs = np.array([predict_cell(m, s.k, j) for j in perim])
        low = probs.min() if len(perim) else np.inf
        if low >= 0.5:
            said = f"every perimeter cell is predicted p(mine) >= 0.5 (lowest {num(low)})" if len(perim) \
                else "no perimeter"
            return f"{said}: {off_perimeter_why(view, s.perim, cell, cols)}"
        ties = int(np.count_nonzero(probs == low))
        said = (f"reveal {at(cell, cols)}: predicted p(mine) = {num(probs[perim == cell][0])}, the lowest of the "
                f"{count(len(perim), 'covered cell' if self._covered() else 'perimeter cell')}")
        return said + (f"; tied with {ties - 1} more, chosen at random" if ties > 1 else "")

    def _decide(self, model, view, rng) -> int:
        rows, cols = self.trained_shape
        nbr, nbr_count = _tables(rows, cols)
        return int(krr_decide(krr_model(model), view, nbr, nbr_count, self._first(), self._covered(),
                              self.scratch(model, rows * cols), rng))


__all__ = ["KRRAgent", "KRRModel", "MAX_TRAIN_STATES", "encode_boards", "game_folds", "krr_decide", "krr_model",
           "krr_predict"]
