"""Gardea et al. (2015) §III-B-1: local classifiers played by Algorithm 1 (`gardea-logreg`, `gardea-svm`).

    agent = ml.make_agent("gardea-logreg", train_level="8x8x10", train_size=20_000)
    ml.play(agent, "8x8x10", 1_000, seed=1)              # trains on first use, then plays
    ml.play(agent, "16x16x40", 1_000, seed=1)            # the same model on another board

Training (`_train`): `train_size` labelled samples from the §III-B generator
(`samples.generate`, seeded by `train_seed`) fit a scikit-learn estimator:
* `gardea-logreg`: LogisticRegression (lbfgs, L2, `C`).
* `gardea-svm`: the paper's weighted SVM, its beta_i as scikit-learn class weights.
  `kernel="linear"` (default) fits the primal of the same problem with liblinear
  (LinearSVC, hinge loss: cost linear in the samples); `kernel="rbf"` fits the dual with
  K(x_i, x_j) = exp(-gamma |x_i - x_j|^2) by libsvm (SVC: cost between quadratic and cubic
  in the samples, and each decision then sums over every support vector), so the
  default stays linear and rbf is the option.
Both weigh the classes by `class_weight`: the paper gives "the positive class higher
weight" (66% of its data is negative) without saying how much; "balanced" (default)
weighs each class by n / (2 n_class); a number w weighs the positive class w and the
negative 1; None weighs both 1.

Features: the window of radius `radius` around the target (samples.py), encoded as
integers (default: the text gives "each square ... a feature with an integer") or
one-hot (`encoding="onehot"`: scikit-learn OneHotEncoder over the 11 codes -2..8, so the
arbitrary order of the codes no longer matters to a linear model).

Play (Algorithm 1, `local_decide`, one njit function for interactive and batch play):
score every perimeter cell (every covered cell with `targets="covered"`, trained then on
covered targets too; the estimator's decision function, recomputed in numba from
the stored coefficients or support vectors: prediction runs once per perimeter cell
inside the batch kernel, where scikit-learn cannot be called); if no perimeter cell is
classified safe (score > 0) there is "no reasonable move": a uniformly random covered
cell off the perimeter (any covered cell if none is off it); else probe the perimeter
cell with the highest safe score, i.e. the lowest chance of a mine (exact ties:
uniformly at random). With nothing revealed the perimeter is empty: `first_click`
"corner" (default; the paper's §III argues a corner most often gives a zero) opens the
top-left cell, "random" a uniformly random cell.

Local features mean the same on any board, so the model transfers (`transfers = True`):
a model trained on one board size plays any other.

`training_info`: samples, games, negative_share, train_accuracy, converged (False when the
solver stopped at its iteration limit), test_accuracy (label accuracy
on a fresh sample set from a spawned seed: other games), test_precision (share of
held-out samples predicted safe that are safe), move_accuracy (share of held-out
positions where the agent's move has the minimum exact mine probability, as for every
learner; samples.move_accuracy), seconds.
"""
from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cells import COVERED, REVEAL
from ...engine import SP_COLS, SP_ROWS, _tables, kernel, random_covered_cell, uniform_below
from ..base import register
from ..batch import hook, hooks, play_games
from ..spec import choice, given, integer, number
from ..why import at, count, num
from .samples import (FEATURE_CODES, PERIMETER_PROB, TARGETS, any_revealed, board_states, generate, move_accuracy,
                      n_features, negative_share, perimeter_mask, window_features)
from .trained import TrainedAgent, TrainedParams

ENCODINGS = ("integer", "onehot")
ENC_INTEGER, ENC_ONEHOT = range(2)
N_CODES = len(FEATURE_CODES)  # one-hot columns per window cell
SVM_KERNELS = ("linear", "rbf")
K_LINEAR, K_RBF = range(2)
FIRST_CLICKS = ("corner", "random")
TEST_STATES = 500  # held-out positions of the move accuracy
MAX_ITER = 5_000  # lbfgs (logistic regression)
LINEAR_SVM_MAX_ITER = 200_000  # liblinear's dual coordinate descent: ~25,000 on 20,000 integer samples (measured)


class LocalModel(NamedTuple):
    """A trained local classifier as the kernels read it (`model_arrays` / `local_model`)."""

    radius: int
    encoding: int  # ENC_INTEGER or ENC_ONEHOT
    kernel: int  # K_LINEAR (coef) or K_RBF (support, dual, gamma)
    gamma: float
    intercept: float
    coef: np.ndarray  # float64 [d] (linear; empty for rbf)
    support: np.ndarray  # float64 [k, d] support vectors (rbf; (0, d) for linear)
    dual: np.ndarray  # float64 [k] their dual coefficients y_i alpha_i


class Scratch(NamedTuple):
    perim: np.ndarray  # uint8 [cells]
    feat: np.ndarray  # int8 [features]
    x: np.ndarray  # float64 [encoded features]


# ------------------------------------------------------------------------- kernels
@kernel
def encode(encoding, feat, x):
    """x = the encoded features: as numbers, or one-hot (feature j, code v -> column j * 11 + v + 2)."""
    if encoding == ENC_INTEGER:
        for j in range(feat.shape[0]):
            x[j] = feat[j]
    else:
        x[:] = 0.0
        for j in range(feat.shape[0]):
            x[j * N_CODES + feat[j] - FEATURE_CODES[0]] = 1.0


@kernel
def local_score(m, feat, x):
    """The estimator's decision function on one window (> 0: classified safe)."""
    encode(m.encoding, feat, x)
    score = m.intercept
    if m.kernel == K_LINEAR:
        for j in range(x.shape[0]):
            score += m.coef[j] * x[j]
        return score
    for k in range(m.support.shape[0]):
        d2 = 0.0
        for j in range(x.shape[0]):
            diff = m.support[k, j] - x[j]
            d2 += diff * diff
        score += m.dual[k] * np.exp(-m.gamma * d2)
    return score


@kernel
def off_perimeter_cell(view, perim, rng):
    """A uniformly random covered cell off the perimeter (any covered cell when none is)."""
    k = 0
    for i in range(view.shape[0]):
        if view[i] == COVERED and perim[i] == 0:
            k += 1
    if k == 0:
        return random_covered_cell(view, rng)
    pick = uniform_below(rng, k)
    for i in range(view.shape[0]):
        if view[i] == COVERED and perim[i] == 0:
            if pick == 0:
                return i
            pick -= 1
    return -1


@kernel
def opening_cell(view, first, rng):
    """The first click: cell `first` (>= 0, the corner), or a uniformly random covered cell (-1)."""
    if first >= 0 and view[first] == COVERED:
        return first
    return random_covered_cell(view, rng)


@kernel
def local_decide(m, view, rows, cols, nbr, nbr_count, first, covered, s, rng):
    """Algorithm 1 with a local classifier (see the module docstring); `covered` 1 scores
    every covered cell instead of the perimeter's (targets="covered")."""
    if not any_revealed(view):
        return opening_cell(view, first, rng)
    perimeter_mask(view, nbr, nbr_count, s.perim)
    best = -np.inf
    choice = -1
    ties = 0
    for i in range(view.shape[0]):
        if s.perim[i] == 0 and not (covered and view[i] == COVERED):
            continue
        window_features(view, rows, cols, i, m.radius, s.feat)
        score = local_score(m, s.feat, s.x)
        if score > best:
            best = score
            choice = i
            ties = 1
        elif score == best:
            ties += 1
            if rng.random() * ties < 1.0:  # reservoir: each tie kept w.p. 1/ties
                choice = i
    if choice >= 0 and best > 0.0:
        return choice
    return off_perimeter_cell(view, s.perim, rng)


class LocalBatch(NamedTuple):
    """A local classifier's batch state (minelab.agents.batch): its model, opening, targets
    and scratch."""

    m: LocalModel
    first: int
    covered: int
    s: Scratch
    extra: np.ndarray  # int64[0]


@hook
def _local_move(state, gs, rng, deal_rng):
    cell = local_decide(state.m, gs.shown, gs.spec[SP_ROWS], gs.spec[SP_COLS], gs.nbr, gs.nbr_count, state.first,
                        state.covered, state.s, rng)
    return REVEAL, cell


hooks(LocalBatch, _local_move)


# ------------------------------------------------------------------------- Python side
def one_thread():
    """A context in which BLAS / OpenMP run one thread: minelab parallelises across tasks,
    and a second BLAS thread fighting the other core's task made KernelRidge fits ~40x
    slower on a 2-core machine (measured)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1)


def encoded_width(radius: int, encoding: int) -> int:
    f = n_features(radius)
    return f * N_CODES if encoding == ENC_ONEHOT else f


def encode_rows(X: np.ndarray, encoding: str) -> np.ndarray:
    """The estimators' input (float64): the features as numbers, or scikit-learn's
    OneHotEncoder over the fixed codes -2..8 (the same columns `encode` writes)."""
    if encoding == "integer":
        return X.astype(np.float64)
    from sklearn.preprocessing import OneHotEncoder

    enc = OneHotEncoder(categories=[FEATURE_CODES.astype(np.int64)] * X.shape[1], sparse_output=False,
                        dtype=np.float64)
    return enc.fit_transform(X.astype(np.int64))


def local_model(model: dict) -> LocalModel:
    """The kernels' LocalModel from a model's arrays (as trained or loaded)."""
    def arr(key):
        return np.ascontiguousarray(model[key], np.float64)

    return LocalModel(radius=int(model["radius"]), encoding=int(model["encoding"]), kernel=int(model["kernel"]),
                      gamma=float(model["gamma"]), intercept=float(model["intercept"]), coef=arr("coef"),
                      support=arr("support"), dual=arr("dual"))


def _positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)


def check_class_weight(cw):
    """"balanced", None, or a positive number (the positive class's weight; the negative's is 1)."""
    if cw is None or cw == "balanced":
        return cw
    if isinstance(cw, str):
        raise ValueError(f"class_weight must be 'balanced', None or a positive number, got {cw!r}")
    try:
        return _positive("class_weight", cw)
    except ValueError:
        raise ValueError(f"class_weight must be 'balanced', None or a positive number, got {cw!r}") from None


def sklearn_class_weight(cw):
    return {False: 1.0, True: cw} if isinstance(cw, float) else cw


@dataclass(frozen=True)
class LocalClassifierParams(TrainedParams):
    """gardea-logreg's parameters: the training's, the window's and the classifier's."""

    radius: int = integer(1, 1, doc="the window's radius (1: 8 features)")
    encoding: str = choice("integer", ENCODINGS, doc="a window cell as one integer, or one-hot")
    perimeter_prob: float = number(PERIMETER_PROB, 0.0, 1.0, doc="the training generator's perimeter probability")
    class_weight: object = given("balanced", check_class_weight, "balanced, None or a positive number",
                                 doc="the positive class's weight")
    C: float = number(1.0, 0.0, lo_open=True, doc="inverse regularisation")
    first_click: str = choice("corner", FIRST_CLICKS, doc="the first probe")
    targets: str = choice("perimeter", TARGETS, doc="train on and score the perimeter, or every covered cell")


@dataclass(frozen=True)
class SVMParams(LocalClassifierParams):
    """gardea-svm's parameters: gardea-logreg's, and the kernel."""

    kernel: str = choice("linear", SVM_KERNELS, doc="linear (liblinear) or rbf (libsvm)")
    gamma: object = given("scale", lambda g: g if isinstance(g, str) and g == "scale" else _gamma(g),
                          "scale or a positive number", doc="the rbf width")


class LocalClassifierAgent(TrainedAgent):
    """Base of the local classifiers (see the module docstring); a family sets `_estimator`."""

    transfers = True  # local windows mean the same on any board
    _explains = True
    Params = LocalClassifierParams

    def __init__(self, seed=None, **params):
        super().__init__(seed, **params)
        self._scratch: dict[int, Scratch] = {}

    # --- training ----------------------------------------------------------------
    def _estimator(self, seed: int):
        raise NotImplementedError

    def _model_arrays(self, est) -> dict:
        """The fitted estimator as arrays (linear models: coef_ and intercept_)."""
        d = encoded_width(self.radius, ENCODINGS.index(self.encoding))
        return {"kernel": np.array(K_LINEAR), "gamma": np.array(0.0), "coef": np.asarray(est.coef_, np.float64)[0],
                "intercept": np.array(float(est.intercept_[0])), "support": np.zeros((0, d)), "dual": np.zeros(0)}

    def _train(self, level, size, seq):
        s_train, s_test, s_boards, s_play, s_fit = seq.spawn(5)
        data = generate(level, size, self.radius, s_train, perimeter_prob=self.perimeter_prob, targets=self.targets)
        if data.y.all() or not data.y.any():
            raise ValueError(f"train_size {size} gives samples of one class only on {level}: train on more samples")
        X = encode_rows(data.X, self.encoding)
        est, converged = self._fit(X, data.y, int(s_fit.generate_state(1)[0]))
        model = {"radius": np.array(self.radius), "encoding": np.array(ENCODINGS.index(self.encoding)),
                 **self._model_arrays(est)}
        with one_thread():
            train_accuracy = float(est.score(X, data.y))
        info = {"samples": int(size), "games": int(data.game[-1] + 1), "negative_share": negative_share(data),
                "train_accuracy": train_accuracy, "converged": converged}
        info.update(self._held_out(level, size, est, s_test))
        info.update(self._move_accuracy(level, model, s_boards, s_play))
        if len(model["dual"]):
            info["support_vectors"] = int(len(model["dual"]))
        return model, info

    def _fit(self, X, y, seed: int):
        """(the fitted estimator, False when its solver stopped at its iteration limit: kept in
        training_info as `converged` rather than warned about; the accuracies say how good it is)."""
        from sklearn.exceptions import ConvergenceWarning

        est = self._estimator(seed)
        with warnings.catch_warnings(record=True) as caught, one_thread():
            warnings.simplefilter("always", ConvergenceWarning)
            est.fit(X, y)
        for w in caught:
            if not issubclass(w.category, ConvergenceWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return est, not any(issubclass(w.category, ConvergenceWarning) for w in caught)

    def _held_out(self, level, size, est, seq) -> dict:
        """Label accuracy on a fresh sample set (other games: a spawned seed)."""
        test = generate(level, min(max(size // 4, 1_000), 50_000), self.radius, seq, perimeter_prob=self.perimeter_prob,
                        targets=self.targets)
        with one_thread():
            pred = est.predict(encode_rows(test.X, self.encoding))
        return {"test_samples": int(len(test.y)), "test_accuracy": float((pred == test.y).mean()),
                "test_precision": float(test.y[pred].mean()) if pred.any() else float("nan")}

    def _move_accuracy(self, level, model, s_boards, s_play) -> dict:
        """samples.move_accuracy on TEST_STATES held-out positions, the agent's own decision kernel."""
        boards = board_states(level, TEST_STATES, s_boards, perimeter_prob=self.perimeter_prob)
        lm, scratch = local_model(model), self._new_scratch(level.cells)
        nbr, nbr_count = _tables(level.rows, level.cols)
        rng = np.random.default_rng(s_play)
        first = self._first()
        covered = self._covered()
        acc = move_accuracy(boards, lambda v: local_decide(lm, v, level.rows, level.cols, nbr, nbr_count, first,
                                                           covered, scratch, rng))
        return {"move_accuracy": float(acc), "test_states": TEST_STATES}

    # --- play --------------------------------------------------------------------
    def _new_scratch(self, cells: int) -> Scratch:
        f = n_features(self.radius)
        return Scratch(perim=np.zeros(cells, np.uint8), feat=np.zeros(f, np.int8),
                       x=np.zeros(encoded_width(self.radius, ENCODINGS.index(self.encoding))))

    def scratch(self, cells: int) -> Scratch:
        if cells not in self._scratch:
            self._scratch[cells] = self._new_scratch(cells)
        return self._scratch[cells]

    def _first(self) -> int:
        """The flat index of the opening click (the top-left corner), -1 for a random one."""
        return 0 if self.first_click == "corner" else -1

    def _covered(self) -> int:
        """1 when the decision scores every covered cell (targets="covered"), 0 for the perimeter."""
        return int(self.targets == "covered")

    def _play(self, model, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        state = LocalBatch(self._kernel_model(model), self._first(), self._covered(), self.scratch(rows * cols),
                           np.zeros(0, np.int64))
        play_games(gs, n_games, deal_rng, self.rng, state, out)

    def _kernel_model(self, model: dict) -> LocalModel:
        if int(model["radius"]) != self.radius or int(model["encoding"]) != ENCODINGS.index(self.encoding):
            raise ValueError("the model's radius / encoding differ from the agent's parameters")
        return local_model(model)

    def _explain(self, model, game, cell) -> str:
        """The classifier's score of the chosen cell among the perimeter's (scored again by
        `local_score` over the perimeter the decision marked)."""
        view, rows, cols = game._gs.shown, game.level.rows, game.level.cols
        if not (view >= 0).any():
            return opening_why(self.first_click, view, cell, cols)
        m = self._kernel_model(model)
        s = self.scratch(rows * cols)
        perim = np.flatnonzero((s.perim > 0) | ((view == COVERED) & bool(self._covered())))  # the cells scored
        feat, x = np.zeros_like(s.feat), np.zeros_like(s.x)
        scores = np.empty(len(perim))
        for t, i in enumerate(perim):
            window_features(view, rows, cols, i, m.radius, feat)
            scores[t] = local_score(m, feat, x)
        best = scores.max() if len(perim) else -np.inf
        if best <= 0.0:
            said = f"no perimeter cell is classified safe (best score {num(best)})" if len(perim) else "no perimeter"
            return f"{said}: {off_perimeter_why(view, s.perim, cell, cols)}"
        score = scores[perim == cell][0]
        safe = int(np.count_nonzero(scores > 0))
        said = f"reveal {at(cell, cols)}: classified safe, score {num(score)}"
        if self.name == "gardea-logreg":
            said += f" (P(certainly safe) = {num(1.0 / (1.0 + np.exp(-score)))})"
        ties = int(np.count_nonzero(scores == best))
        scored = "covered cell" if self._covered() else "perimeter cell"
        said += f", the highest of the {count(len(perim), scored)} ({safe} classified safe)"
        return said + (f"; tied with {ties - 1} more, chosen at random" if ties > 1 else "")

    def _decide_board(self, model, view, rows, cols, rng) -> int:
        nbr, nbr_count = _tables(rows, cols)
        return int(local_decide(self._kernel_model(model), view, rows, cols, nbr, nbr_count, self._first(),
                                self._covered(), self.scratch(rows * cols), rng))


@register
class LogRegAgent(LocalClassifierAgent):
    """Gardea et al.'s local logistic regression, played by Algorithm 1 (see minelab.agents.gardea.classifiers).

    radius: window radius (1: 8 features); encoding: "integer" | "onehot"; perimeter_prob:
    the training generator's; class_weight: "balanced" | None | positive-class weight; C:
    inverse regularisation; first_click: "corner" | "random"; targets: "perimeter" (train on
    and score the perimeter) | "covered" (every covered cell); train_level, train_size
    (labelled samples), train_seed: the training (see TrainedAgent).
    """

    name = "gardea-logreg"

    def _estimator(self, seed: int):
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=self.C, class_weight=sklearn_class_weight(self.class_weight), max_iter=MAX_ITER)


@register
class SVMAgent(LocalClassifierAgent):
    """Gardea et al.'s weighted SVM over local windows, played by Algorithm 1 (see minelab.agents.gardea.classifiers).

    As gardea-logreg, plus kernel: "linear" (default; liblinear, fast) | "rbf" (libsvm;
    slow on many samples); gamma: the rbf width, "scale" (scikit-learn's 1 / (d var X))
    or a positive number.
    """

    name = "gardea-svm"
    Params = SVMParams

    def _estimator(self, seed: int):
        from sklearn.svm import SVC, LinearSVC

        cw = sklearn_class_weight(self.class_weight)
        if self.kernel == "linear":
            return LinearSVC(C=self.C, loss="hinge", dual=True, class_weight=cw, max_iter=LINEAR_SVM_MAX_ITER,
                             random_state=seed)
        return SVC(kernel="rbf", C=self.C, gamma=self.gamma, class_weight=cw)

    def _model_arrays(self, est) -> dict:
        if self.kernel == "linear":
            return super()._model_arrays(est)
        d = encoded_width(self.radius, ENCODINGS.index(self.encoding))
        return {"kernel": np.array(K_RBF), "gamma": np.array(float(est._gamma)), "coef": np.zeros(d),
                "intercept": np.array(float(est.intercept_[0])),
                "support": np.asarray(est.support_vectors_, np.float64),
                "dual": np.asarray(est.dual_coef_, np.float64)[0]}


def opening_why(first_click: str, view, cell: int, cols: int) -> str:
    """Algorithm 1's first click (nothing revealed: no perimeter)."""
    if first_click == "corner":
        return f"opening click at the corner {at(cell, cols)} (nothing revealed: no perimeter)"
    return f"opening click {at(cell, cols)}, uniformly at random among {count((view == COVERED).sum(), 'cell')}"


def off_perimeter_why(view, perim, cell: int, cols: int) -> str:
    """Algorithm 1's "no reasonable move": a uniformly random covered cell off the perimeter."""
    off = int(np.count_nonzero((view == COVERED) & (perim == 0)))
    if off == 0:
        return f"reveal {at(cell, cols)}, uniformly at random among the covered cells (none is off the perimeter)"
    return f"reveal {at(cell, cols)}, uniformly at random among the {count(off, 'covered cell')} off the perimeter"


def _gamma(gamma) -> float:
    try:
        return _positive("gamma", gamma)
    except ValueError:
        raise ValueError(f"gamma must be 'scale' or a positive number, got {gamma!r}") from None


__all__ = ["LocalModel", "one_thread", "LogRegAgent", "SVMAgent", "encode_rows", "local_decide", "local_model",
           "off_perimeter_cell", "opening_cell"]
