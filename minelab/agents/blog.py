"""The blog's learning and inference models (antimatroid 2012, "Minesweeper Agent"):
`conditional` (Naive Bayes), `graphical` (3x3 sub-grid MDP) and `semi-deterministic`.

Like the Marginal model (minelab.agents.marginal), the learners start with no prior
experience ("each model would have knowledge of game's mechanics and no prior
experience") and learn only after a game ends, from the final layout (all mines are known
then). Each keeps its memory per board shape. Where the blog is vague, the reading its
text supports comes first below, then the choice made, and the alternative is a named
parameter.

Conditional (Naive Bayes), `conditional`
    P(C = c | N) is proportional to P(C = c) prod_k P(X_k = x_k | C = c), classes Empty /
    Mine, X_k the state (covered, or a revealed number 0..8) of the k-th neighbour within
    Chebyshev radius r (`radius`, the blog's NEIGHBORS r, default 1). Neighbours off the
    board are not in the product (NEIGHBORS holds board cells only).
    * The pseudocode multiplies P(X_{i,j} = V_{i,j} | C) inside the loop over the
      neighbours (u, v): an index slip; read as the neighbour's P(X_{u,v} = V_{u,v} | C).
    * Observations: every covered cell at every decision of the game, its class read from
      the final layout when the game ends (a cell that stays covered over many decisions
      counts once per decision, as the decisions met it).
    * `features="position"` (default; the blog writes X_i, one variable per neighbour):
      one distribution per neighbour offset; "pooled": one for all neighbours.
    * Smoothing: with no prior experience a value never seen would give probability 0;
      `alpha` (default 1: add-one) is added to every count, prior included; alpha = 0 is
      the raw empirical rule (a zero count rules a class out; 0/0 reads as 1).
    * The pseudocode returns RANDOM(T), T = the cells classified Empty (P(Empty)... >=
      P(Mine)...: the loop meets Empty first and Mine must beat it strictly): `pick=
      "random-empty"` (default). When no cell is classified Empty it plays the covered
      cell of greatest P(Empty | N) (ties at random). The text's formula instead names
      argmax P(C = Empty | N): `pick="argmax"`.

Graphical (3x3 sub-grid MDP), `graphical`
    The text: states are the observable grids, an action exposes a covered cell, the
    transition probabilities P(s' | s) are estimated from experience, REWARD is +100 on
    SUCCESS, -100 on FAILURE, +1 otherwise, and OPTIMAL-ACTION recurses over the outcomes.
    It restricts the states to 3x3 boards and evaluates every 3x3 sub-grid of the board,
    taking the action of the sub-grid with the greatest reward. Our reading:
    * A state is a 3x3 sub-grid of the visible board (each cell covered or its number:
      numbers count the whole board's mines), packed 4 bits a cell; all sub-grids lying
      inside the board (49 on 9x9). An action exposes one of its covered cells.
    * An outcome of (s, a) is FAILURE (a is a mine), SUCCESS (after it every safe cell of
      the sub-grid is exposed: the sub-grid's own game is won; read from the final layout
      after the game) or the next sub-grid s'. Counts n(s, a, outcome) come from the
      model's own games: each move counts once for every sub-grid holding its cell.
    * `backup="expectation"` (default): the MDP the blog names (Sutton and Barto 3.6),
      Q(s, a) = sum_o P(o | s, a) (REWARD(o) + V(s'_o)), V(s) = max_a Q(s, a), reading the
      printed `r <- r_V' + P(V' | V) REWARD(V')` as the expectation over outcomes.
      `backup="path"` follows the printed recursion and the path formula literally: the
      best single path, Q(s, a) = max_o [P(o | s, a) REWARD(o) + V(s'_o)], future values
      added unweighted (the risk of a mine then weighs almost nothing).
    * `depth` (default 9: the whole sub-grid game, which the text's unbounded recursion
      is; a sub-grid has at most 9 moves): how many moves ahead the recursion looks; 1 is
      the greedy one-step reward.
    * An action never tried in a state has no estimated outcome; it is worth `unseen`
      (default 0.0: between a sure +1 step and a mine risk above 1/101).
    * GRAPHICAL-MODEL keeps every sub-grid's best (action, reward) and picks among the
      best at random; OPTIMAL-ACTION's `>=` would keep the last of equal actions (scan
      order): read as ties at random. We pick uniformly among the distinct cells whose
      value (in any of their sub-grids) is the maximum.
    * Boards with fewer than 3 rows or columns have no sub-grid: a random covered cell.
    * Computing it: a move uncovers at least one cell of the sub-grid, so the graph is
      acyclic (the blog's "longest path" by dynamic programming). In the default mode
      (expectation, depth 9) every value is kept up to date as the model learns: after a
      game, the states whose counts changed are revalued, fewest covered cells first, and
      each change of V is passed on to the states leading to it (`settle`). Other modes
      compute values on demand, memoised, and learning invalidates what it changed. An
      intermediate depth (3..8) is slow (a few hundred games/s on 9x9 with 10 mines): the
      memo holds one depth per state and the lookahead asks for several.

Semi-deterministic, `semi-deterministic`
    E_{i,j} = the covered neighbours of (i,j); M = every covered neighbour of a number
    V_{i,j} (not 0) with V_{i,j} = E_{i,j} (a mine); F_{i,j} = the inferred mines around
    (i,j); S = the covered neighbours, not in M, of every revealed (i,j) with F_{i,j} =
    V_{i,j} (safe). It reveals a uniformly random cell of S.
    * The pseudocode tests `V_{i,j} = U` and `V_{i,j} != U` inside the loops over the
      neighbours (u, v): read as V_{u,v}; "a mine location is chosen" from S: read as a
      safe location (S holds the cells inferred safe).
    * One pass is complete: the mine rule does not use M, and safe cells stay covered.
    * When S is empty "an alternative model can be used": `fallback="random"` (default:
      the blog names no model; random keeps the agent a non-learner whose games are
      independent, so its curve measures the inference alone) or "conditional" (the
      Conditional model above, with its defaults; it then learns from every decision of
      every game). `avoid_mines=True` keeps the fallback off the cells in M (the text
      hands the alternative model the board only: default False).
    Records: `guesses`, the decisions made by the fallback in each game.
"""
from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np
from numba import njit

from ..cells import COVERED, REVEAL
from ..engine import (N_RECORD, SP_COLS, SP_ROWS, ST_DEALT, ST_STATUS, Move, begin_game, deal_first_click, kernel,
                      open_cell, random_covered_cell, record_game, uniform_below)
from .base import Agent, cell_to_move, register
from .saved import pickled, unpickled
from .why import at, cell_values, count, num
from .rl.table import SM_ROWS, StateArrays, StateTable, find_row, insert_row, table_room

N_STATES = 10  # a neighbour's state: 0 covered (or flagged), 1 + v for a revealed number v
EMPTY, MINE = 0, 1  # the Naive Bayes classes
PICK_EMPTY, PICK_ARGMAX = 0, 1
PICKS = ("random-empty", "argmax")
FEATURES = ("position", "pooled")
FALLBACKS = ("random", "conditional")
BACKUPS = ("expectation", "path")
BACKUP_EXPECT, BACKUP_PATH = 0, 1
REWARD_SUCCESS, REWARD_FAILURE, REWARD_STEP = 100.0, -100.0, 1.0  # the blog's REWARD
OUT_CONTINUE, OUT_SUCCESS = 0, 1  # edge kinds (FAILURE is counted apart: it has no next state)
SUB = 3  # sub-grid side
MAX_DEPTH = SUB * SUB


def _check_choice(field, value, allowed):
    if value not in allowed:
        raise ValueError(f"{field} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def _check_number(field, value, lo, hi=None, integer=False):
    kinds = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(value, bool) or not isinstance(value, kinds) or not np.isfinite(value) \
            or value < lo or (hi is not None and value > hi):
        span = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise ValueError(f"{field} must be {'an integer' if integer else 'a number'} {span}, got {value!r}")
    return int(value) if integer else float(value)


# ============================================================================ Naive Bayes
class NBTables(NamedTuple):
    """What the Conditional model has learnt (one board shape)."""

    counts: np.ndarray    # int64[2, K, N_STATES]: observations of neighbour position k in state s, per class
    obs: np.ndarray       # int64[2]: observations (covered cell, decision) per class
    logp: np.ndarray      # float64[2, K, N_STATES]: log P(X_k = s | C), rebuilt after each game
    logprior: np.ndarray  # float64[2]: log P(C)


class NBWork(NamedTuple):
    """One game's observations (their class is known when it ends) and decision scratch."""

    pending: np.ndarray    # int32[n, K, N_STATES]
    pending_n: np.ndarray  # int32[n]: decisions at which the cell was covered
    score: np.ndarray      # float64[n]: log P(Empty | N) - log P(Mine | N) of the decision
    exclude: np.ndarray    # uint8[n]: cells not to play (the semi-deterministic M); zeros otherwise


@njit(cache=True)
def radius_table(rows, cols, r):
    """int32[n, (2r+1)^2 - 1]: the cell at each neighbour offset (row-major), -1 off the board."""
    side = 2 * r + 1
    near = np.full((rows * cols, side * side - 1), -1, np.int32)
    for i in range(rows * cols):
        y, x = i // cols, i % cols
        k = 0
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                if dy == 0 and dx == 0:
                    continue
                if 0 <= y + dy < rows and 0 <= x + dx < cols:
                    near[i, k] = (y + dy) * cols + x + dx
                k += 1
    return near


@kernel
def state_code(v):
    return v + 1 if v >= 0 else 0


@kernel
def nb_scores(view, near, tab, work):
    """work.score[i] = log P(Empty | N_i) - log P(Mine | N_i) for every playable covered
    cell (0 when both classes are ruled out: 0/0 reads as even). Returns how many are
    classified Empty (score >= 0: the pseudocode keeps Empty unless Mine beats it)."""
    n_empty = 0
    for i in range(view.shape[0]):
        if view[i] != COVERED or work.exclude[i]:
            continue
        le = tab.logprior[EMPTY]
        lm = tab.logprior[MINE]
        for k in range(near.shape[1]):
            j = near[i, k]
            if j >= 0:
                s = state_code(view[j])
                le += tab.logp[EMPTY, k, s]
                lm += tab.logp[MINE, k, s]
        if le == lm:  # also both -inf
            d = 0.0
        else:
            d = le - lm
        work.score[i] = d
        if d >= 0.0:
            n_empty += 1
    return n_empty


@kernel
def nb_decide(view, near, tab, work, pick, rng):
    """The Conditional model's cell (see the module docstring); -1 if nothing is playable."""
    n_empty = nb_scores(view, near, tab, work)
    if pick == PICK_EMPTY and n_empty > 0:
        k = uniform_below(rng, n_empty)
        for i in range(view.shape[0]):
            if view[i] == COVERED and not work.exclude[i] and work.score[i] >= 0.0:
                if k == 0:
                    return i
                k -= 1
    best = -np.inf
    ties = 0
    for i in range(view.shape[0]):
        if view[i] == COVERED and not work.exclude[i]:
            if work.score[i] > best or ties == 0:
                best = work.score[i]
                ties = 1
            elif work.score[i] == best:
                ties += 1
    if ties == 0:
        return -1
    k = uniform_below(rng, ties)
    for i in range(view.shape[0]):
        if view[i] == COVERED and not work.exclude[i] and work.score[i] == best:
            if k == 0:
                return i
            k -= 1
    return -1


@kernel
def nb_observe(view, near, work):
    """Count this decision's observations: every covered cell and its neighbours' states."""
    for i in range(view.shape[0]):
        if view[i] != COVERED:
            continue
        work.pending_n[i] += 1
        for k in range(near.shape[1]):
            j = near[i, k]
            if j >= 0:
                work.pending[i, k, state_code(view[j])] += 1


@kernel
def _log_ratio(num, den):
    if den == 0.0:
        return 0.0  # no observation at all: uninformative
    if num == 0.0:
        return -np.inf
    return np.log(num / den)


@kernel
def nb_tables(tab, alpha, pooled):
    """Rebuild log P(C) and log P(X_k = s | C) from the counts, `alpha` added to each."""
    total = tab.obs[EMPTY] + tab.obs[MINE]
    for c in range(2):
        tab.logprior[c] = _log_ratio(tab.obs[c] + alpha, total + 2.0 * alpha)
        n_pos = tab.counts.shape[1]
        for k in range(n_pos):
            den = 0.0
            for s in range(N_STATES):
                if pooled:
                    for kk in range(n_pos):
                        den += tab.counts[c, kk, s]
                else:
                    den += tab.counts[c, k, s]
            for s in range(N_STATES):
                num = 0.0
                if pooled:
                    for kk in range(n_pos):
                        num += tab.counts[c, kk, s]
                else:
                    num = float(tab.counts[c, k, s])
                tab.logp[c, k, s] = _log_ratio(num + alpha, den + N_STATES * alpha)


@kernel
def nb_learn(mine, tab, work, alpha, pooled):
    """After a game: each observed cell's counts go to its class (from the final layout)."""
    for i in range(mine.shape[0]):
        m = work.pending_n[i]
        if m == 0:
            continue
        c = MINE if mine[i] else EMPTY
        tab.obs[c] += m
        work.pending_n[i] = 0
        for k in range(work.pending.shape[1]):
            for s in range(N_STATES):
                tab.counts[c, k, s] += work.pending[i, k, s]
                work.pending[i, k, s] = 0
    nb_tables(tab, alpha, pooled)


@kernel
def nb_batch(gs, n_games, deal_rng, rng, near, tab, work, pick, alpha, pooled, out):
    st = gs.counters
    view = gs.shown
    for g in range(n_games):
        begin_game(gs, deal_rng)
        while st[ST_STATUS] == 0:
            cell = nb_decide(view, near, tab, work, pick, rng)
            nb_observe(view, near, work)
            if st[ST_DEALT] == 0:
                deal_first_click(gs, cell, deal_rng)
            open_cell(gs, cell)
        nb_learn(gs.mine, tab, work, alpha, pooled)
        record_game(gs, out, g)


def new_nb_tables(positions: int, alpha: float, pooled: bool) -> NBTables:
    tab = NBTables(np.zeros((2, positions, N_STATES), np.int64), np.zeros(2, np.int64),
                   np.zeros((2, positions, N_STATES)), np.zeros(2))
    nb_tables(tab, alpha, pooled)
    return tab


def new_nb_work(cells: int, positions: int) -> NBWork:
    return NBWork(np.zeros((cells, positions, N_STATES), np.int32), np.zeros(cells, np.int32), np.zeros(cells),
                  np.zeros(cells, np.uint8))


class _NaiveBayes:
    """The Conditional model's parameters, memory (per board shape) and per-game work."""

    def __init__(self, radius, features, alpha, pick):
        self.radius = _check_number("radius", radius, 1, 8, integer=True)
        self.features = _check_choice("features", features, FEATURES)
        self.alpha = _check_number("alpha", alpha, 0.0)
        self.pick = _check_choice("pick", pick, PICKS)
        self.positions = (2 * self.radius + 1) ** 2 - 1
        self._memory: dict[tuple[int, int], tuple[np.ndarray, NBTables]] = {}
        self._batch_work: dict[tuple[int, int], NBWork] = {}
        self._game_work = weakref.WeakKeyDictionary()

    @property
    def pooled(self) -> bool:
        return self.features == "pooled"

    @property
    def pick_code(self) -> int:
        return PICKS.index(self.pick)

    def params(self) -> dict:
        defaults = {"radius": 1, "features": "position", "alpha": 1.0, "pick": "random-empty"}
        return {k: getattr(self, k) for k, v in defaults.items() if getattr(self, k) != v}

    def memory(self, rows: int, cols: int) -> tuple[np.ndarray, NBTables]:
        """(the neighbour-position table, the learnt tables) for this board shape."""
        key = (rows, cols)
        if key not in self._memory:
            near = radius_table(rows, cols, self.radius)
            self._memory[key] = (near, new_nb_tables(self.positions, self.alpha, self.pooled))
        return self._memory[key]

    def batch_work(self, rows: int, cols: int) -> NBWork:
        if (rows, cols) not in self._batch_work:
            self._batch_work[(rows, cols)] = new_nb_work(rows * cols, self.positions)
        return self._batch_work[(rows, cols)]

    def game_work(self, game) -> NBWork:
        if game not in self._game_work:
            self._game_work[game] = new_nb_work(game.level.cells, self.positions)
        return self._game_work[game]

    def learn(self, game) -> None:
        near, tab = self.memory(game.level.rows, game.level.cols)
        work = self._game_work.pop(game, None)
        if work is not None:
            nb_learn(game._gs.mine, tab, work, self.alpha, self.pooled)


@register
class ConditionalAgent(Agent):
    """The blog's Conditional model: a Naive Bayes classifier of each covered cell from its
    neighbours' states, learnt from its own past games; reveals a random cell classified
    Empty. Parameters: radius (1), features ("position" | "pooled"), alpha (1.0: add-one),
    pick ("random-empty" | "argmax"). See minelab.agents.blog."""

    name = "conditional"
    learns = True
    _explains = True

    def __init__(self, seed=None, *, radius: int = 1, features: str = "position", alpha: float = 1.0,
                 pick: str = "random-empty"):
        super().__init__(seed)
        self.nb = _NaiveBayes(radius, features, alpha, pick)

    def params(self) -> dict:
        return self.nb.params()

    def tables(self, rows: int, cols: int) -> NBTables:
        """What it has learnt on rows x cols boards (counts, observations, log tables)."""
        return self.nb.memory(rows, cols)[1]

    def _saved(self):
        return {"memory": pickled(self.nb._memory)}, {}

    def _restore(self, arrays, facts):
        self.nb._memory = unpickled(arrays["memory"])

    def _choose(self, game):
        near, tab = self.nb.memory(game.level.rows, game.level.cols)
        work = self.nb._game_work.get(game) or new_nb_work(game.level.cells, self.nb.positions)
        cell = nb_decide(game._gs.shown, near, tab, work, self.nb.pick_code, self.rng)
        self._why = f"{self.name}: {nb_why(game._gs.shown, tab, work, cell, self.nb.pick, game.level.cols)}"
        return cell_to_move(REVEAL, cell, game.level)

    def knowledge(self, game):
        """P(mine | neighbours) of each covered cell by the Naive Bayes model learnt so far."""
        near, tab = self.nb.memory(game.level.rows, game.level.cols)
        view = game._gs.shown
        work = NBWork(np.zeros((1, 1, N_STATES), np.int32), np.zeros(1, np.int32), np.zeros(view.shape[0]),
                      np.zeros(view.shape[0], np.uint8))
        nb_scores(view, near, tab, work)
        values = np.where(view == COVERED, p_mine(work.score), np.nan)
        label = f"{self.name}: Naive Bayes P(mine | neighbours), from {count(tab.obs.sum(), 'observation')}"
        return cell_values(values, None, (game.level.rows, game.level.cols), label, 0.0, 1.0, "mine")

    def act(self, game):
        move = self.choose(game)
        near, _ = self.nb.memory(game.level.rows, game.level.cols)
        nb_observe(game._gs.shown, near, self.nb.game_work(game))
        game.apply(move)
        return [move]

    def game_over(self, game):
        self.nb.learn(game)

    def play_batch(self, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        near, tab = self.nb.memory(rows, cols)
        nb_batch(gs, n_games, deal_rng, self.rng, near, tab, self.nb.batch_work(rows, cols), self.nb.pick_code,
                 self.nb.alpha, self.nb.pooled, out)


def p_mine(score):
    """P(mine | N) from nb_scores' log P(Empty | N) - log P(Mine | N) (+-inf: certain)."""
    return 0.5 * (1.0 - np.tanh(np.asarray(score, np.float64) / 2.0))


def nb_why(view, tab, work, cell, pick, cols) -> str:
    """Why nb_decide chose `cell` (work.score: the decision's scores of the playable covered cells)."""
    playable = (view == COVERED) & (work.exclude == 0)
    scores = work.score[playable]
    n_empty = int(np.count_nonzero(scores >= 0.0))
    said = (f"{at(cell, cols)}: P(mine | neighbours) = {num(p_mine(work.score[cell]))} (Naive Bayes, "
            f"{count(tab.obs.sum(), 'observation')})")
    if pick == "random-empty" and n_empty:
        return f"{said}, classified empty: uniformly at random among the {count(n_empty, 'cell')} classified empty"
    ties = int(np.count_nonzero(scores == scores.max()))
    said += "; no cell is classified empty" if pick == "random-empty" else ""
    said += f"; the least of the {count(playable.sum(), 'covered cell')}"
    return said + (f" (tied with {ties - 1} more, chosen at random)" if ties > 1 else "")


# ====================================================================== semi-deterministic
class SemiWork(NamedTuple):
    """Scratch of one inference (all int8/uint8/int32 of n cells)."""

    covered_nbrs: np.ndarray  # int8: E, covered neighbours
    mine: np.ndarray          # uint8: M, inferred mines
    mine_nbrs: np.ndarray     # int8: F, inferred mines around
    safe: np.ndarray          # int32: the safe set S, as a list
    in_safe: np.ndarray       # uint8: membership of S


def new_semi_work(cells: int) -> SemiWork:
    return SemiWork(np.zeros(cells, np.int8), np.zeros(cells, np.uint8), np.zeros(cells, np.int8),
                    np.zeros(cells, np.int32), np.zeros(cells, np.uint8))


@kernel
def semi_infer(view, nbr, nbr_count, w):
    """The blog's inference: fills w.mine (M) and w.safe (S); returns |S|."""
    n = view.shape[0]
    for i in range(n):
        e = 0
        for k in range(nbr_count[i]):
            if view[nbr[i, k]] < 0:  # covered (or flagged): U
                e += 1
        w.covered_nbrs[i] = e
        w.mine[i] = 0
        w.in_safe[i] = 0
    for i in range(n):
        v = view[i]
        if v <= 0 or v != w.covered_nbrs[i]:
            continue
        for k in range(nbr_count[i]):
            j = nbr[i, k]
            if view[j] < 0:
                w.mine[j] = 1
    for i in range(n):
        f = 0
        for k in range(nbr_count[i]):
            f += w.mine[nbr[i, k]]
        w.mine_nbrs[i] = f
    size = 0
    for i in range(n):
        v = view[i]
        if v < 0 or w.mine_nbrs[i] != v:
            continue
        for k in range(nbr_count[i]):
            j = nbr[i, k]
            if view[j] == COVERED and not w.mine[j] and not w.in_safe[j]:
                w.in_safe[j] = 1
                w.safe[size] = j
                size += 1
    return size


@kernel
def random_unexcluded(view, exclude, rng):
    """A uniformly random covered cell not in `exclude`; any covered cell if all are."""
    k = 0
    for i in range(view.shape[0]):
        if view[i] == COVERED and not exclude[i]:
            k += 1
    if k == 0:
        return random_covered_cell(view, rng)
    pick = uniform_below(rng, k)
    for i in range(view.shape[0]):
        if view[i] == COVERED and not exclude[i]:
            if pick == 0:
                return i
            pick -= 1
    return -1


@kernel
def semi_decide(view, nbr, nbr_count, w, fallback, avoid, near, tab, nbw, pick, rng):
    """(cell, 1 if the fallback chose it). S first; else the fallback model."""
    size = semi_infer(view, nbr, nbr_count, w)
    if size > 0:
        return np.int64(w.safe[uniform_below(rng, size)]), 0
    for i in range(view.shape[0]):
        nbw.exclude[i] = w.mine[i] if avoid else 0
    if fallback == 1:
        cell = nb_decide(view, near, tab, nbw, pick, rng)
        if cell < 0:
            cell = random_covered_cell(view, rng)
        return cell, 1
    return random_unexcluded(view, nbw.exclude, rng), 1


@kernel
def semi_batch(gs, n_games, deal_rng, rng, w, fallback, avoid, near, tab, nbw, pick, alpha, pooled, out):
    st = gs.counters
    view = gs.shown
    for g in range(n_games):
        begin_game(gs, deal_rng)
        guesses = 0
        while st[ST_STATUS] == 0:
            cell, guessed = semi_decide(view, gs.nbr, gs.nbr_count, w, fallback, avoid, near, tab, nbw, pick, rng)
            guesses += guessed
            if fallback == 1:
                nb_observe(view, near, nbw)
            if st[ST_DEALT] == 0:
                deal_first_click(gs, cell, deal_rng)
            open_cell(gs, cell)
        if fallback == 1:
            nb_learn(gs.mine, tab, nbw, alpha, pooled)
        record_game(gs, out, g)
        out[g, N_RECORD] = guesses


@register
class SemiDeterministicAgent(Agent):
    """The blog's Semi-deterministic model: infers certain mines (a number equal to its
    covered neighbours) and then safe cells (a number whose inferred mines are all there),
    reveals a random safe cell; when there is none, its `fallback` model ("random" |
    "conditional") decides. `avoid_mines` keeps the fallback off the inferred mines.
    See minelab.agents.blog."""

    name = "semi-deterministic"
    extra_fields = ("guesses",)
    _explains = True

    def __init__(self, seed=None, *, fallback: str = "random", avoid_mines: bool = False):
        super().__init__(seed)
        self.fallback = _check_choice("fallback", fallback, FALLBACKS)
        if not isinstance(avoid_mines, (bool, np.bool_)):
            raise ValueError(f"avoid_mines must be True or False, got {avoid_mines!r}")
        self.avoid_mines = bool(avoid_mines)
        self.learns = self.fallback == "conditional"
        self.nb = _NaiveBayes(1, "position", 1.0, "random-empty")
        self._work: dict[int, SemiWork] = {}

    def params(self) -> dict:
        out = {}
        if self.fallback != "random":
            out["fallback"] = self.fallback
        if self.avoid_mines:
            out["avoid_mines"] = True
        return out

    @property
    def _fb(self) -> int:
        return FALLBACKS.index(self.fallback)

    def _saved(self):
        if not self.learns:
            return super()._saved()
        return {"memory": pickled(self.nb._memory)}, {}

    def _restore(self, arrays, facts):
        if not self.learns:
            super()._restore(arrays, facts)
        self.nb._memory = unpickled(arrays["memory"])

    def _semi_work(self, cells: int) -> SemiWork:
        if cells not in self._work:
            self._work[cells] = new_semi_work(cells)
        return self._work[cells]

    def _decide(self, gs, level, nbw):
        near, tab = self.nb.memory(level.rows, level.cols)
        w = self._semi_work(level.cells)
        cell, guessed = semi_decide(gs.shown, gs.nbr, gs.nbr_count, w, self._fb, self.avoid_mines, near, tab, nbw,
                                    self.nb.pick_code, self.rng)
        self._why = f"{self.name}: {self._explain(gs.shown, w, tab, nbw, int(cell), guessed, level.cols)}"
        return cell_to_move(REVEAL, cell, level)

    def _explain(self, view, w, tab, nbw, cell, guessed, cols) -> str:
        """From the inference's sets (w.in_safe: S, w.mine: M) and the fallback's scores."""
        covered = view == COVERED
        mines = f"{count(np.count_nonzero(w.mine.astype(bool) & covered), 'inferred mine')}"
        if not guessed:
            size = int(w.in_safe.sum())
            among = "the only safe cell inferred" if size == 1 else f"uniformly at random among the {size} inferred"
            return (f"{at(cell, cols)} is inferred safe (next to a number with all its inferred mines around it): "
                    f"{among} ({mines})")
        said = f"no cell inferred safe ({mines}): fallback {self.fallback!r}"
        if self.fallback == "conditional":
            return f"{said}: {nb_why(view, tab, nbw, cell, self.nb.pick, cols)}"
        pool = covered & (nbw.exclude == 0)
        avoid = ", avoiding the inferred mines" if self.avoid_mines and pool.any() and not pool[covered].all() else ""
        among = count(pool.sum() or covered.sum(), "cell")
        return f"{said}: {at(cell, cols)}, uniformly at random among {among}{avoid}"

    def _choose(self, game):
        nbw = self.nb._game_work.get(game) or new_nb_work(game.level.cells, self.nb.positions)
        return self._decide(game._gs, game.level, nbw)

    def act(self, game):
        if game.over:
            raise ValueError("act() needs a game in progress; this one is over")
        nbw = self.nb.game_work(game)
        move = self._decide(game._gs, game.level, nbw)
        if self.learns:
            nb_observe(game._gs.shown, self.nb.memory(game.level.rows, game.level.cols)[0], nbw)
        game.apply(move)
        return [move]

    def game_over(self, game):
        if self.learns:
            self.nb.learn(game)
        else:
            self.nb._game_work.pop(game, None)

    def play_batch(self, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        near, tab = self.nb.memory(rows, cols)
        semi_batch(gs, n_games, deal_rng, self.rng, self._semi_work(rows * cols), self._fb, self.avoid_mines,
                   near, tab, self.nb.batch_work(rows, cols), self.nb.pick_code, self.nb.alpha, self.nb.pooled, out)


# ============================================================================= graphical
# Graph meta fields: edges used, games learnt
GM_EDGES, GM_GAMES = range(2)
# GraphWork.meta fields: transitions recorded this game, first transition of the move in progress
GW_N, GW_START = range(2)
NIBBLE = np.uint64(15)


class GraphArrays(NamedTuple):
    """The Graphical model's memory as kernels take it (`ga`). States live in a StateTable
    of 9-cell keys (minelab.agents.rl.table): its `visits[row, a]` is n(s, a); its `q` is
    unused. Per state row: the failure and success counts of each action, the head of its
    list of observed outcomes (edges), the head of the list of edges into it, and its value
    (memo_val, memo_q). In the incremental mode (see `incremental`) the values are always
    current: act_sum holds each action's sum of count x V(next state), kept by `settle`.
    Otherwise they are a memo: learning invalidates the memo of each state whose counts
    change and, through the edges into them, of every state whose value depends on them;
    a valid memo's dependencies are valid, so the walk stops at invalid states. Either way
    a game recomputes only what its predecessor's learning changed, not the whole graph."""

    tb: StateArrays
    n_fail: np.ndarray      # int32[cap, 9]
    n_succ: np.ndarray      # int32[cap, 9]
    head: np.ndarray        # int32[cap, 9]: first edge of (s, a), -1 none
    rev_head: np.ndarray    # int32[cap]: first edge into the state, -1 none
    memo_val: np.ndarray    # float64[cap]: V(s) looking memo_depth moves ahead, valid when memo_ok
    memo_q: np.ndarray      # float64[cap, 9]: Q(s, a) beside it (covered cells of s only)
    memo_depth: np.ndarray  # int8[cap]
    memo_ok: np.ndarray     # uint8[cap]
    n_covered: np.ndarray   # int8[cap]: covered cells of the state (set when it is stored)
    stack: np.ndarray       # int64[cap]: scratch of `invalidate`
    act_sum: np.ndarray     # float64[cap, 9]: sum over the continue edges of (s, a) of count x edge_val
    dirty: np.ndarray       # uint8[cap]: queued for `settle`
    dirty_next: np.ndarray  # int32[cap]: the next state of the same queue
    queue_head: np.ndarray  # int32[MAX_DEPTH + 1]: a queue per covered count, -1 empty
    edge_from: np.ndarray   # int32[E]: the state's row
    edge_to: np.ndarray     # int32[E]: the next state's row
    edge_next: np.ndarray   # int32[E]: next edge of the same (s, a), -1 none
    rev_next: np.ndarray    # int32[E]: next edge into the same next state, -1 none
    edge_count: np.ndarray  # int32[E]
    edge_kind: np.ndarray   # int8[E]: OUT_CONTINUE or OUT_SUCCESS
    edge_action: np.ndarray  # int8[E]: the action of the edge
    edge_val: np.ndarray    # float64[E]: V(next state) as counted in act_sum
    meta: np.ndarray        # int64[2]: GM_*
    frames: "Frames"        # scratch of state_value


class Frames(NamedTuple):
    """The explicit stack of `state_value` (one frame a lookahead level)."""

    row: np.ndarray   # int64[MAX_DEPTH + 1]: the state
    d: np.ndarray     # int64: its clamped depth
    a: np.ndarray     # int64: the action being valued (SUB * SUB: all done)
    e: np.ndarray     # int64: the next edge of that action to walk, -1 none
    n: np.ndarray     # int64: n(s, a)
    acc: np.ndarray   # float64: the action's value so far
    best: np.ndarray  # float64: the best action value so far


def new_frames() -> Frames:
    k = MAX_DEPTH + 1
    return Frames(*(np.zeros(k, np.int64) for _ in range(5)), np.zeros(k), np.zeros(k))


class GraphConfig(NamedTuple):
    depth: int
    backup: int  # BACKUP_*
    unseen: float


class GraphWork(NamedTuple):
    """The transitions of the game in progress and decision scratch."""

    p_key: np.ndarray     # uint64[P]: the sub-grid before the move
    p_next: np.ndarray    # uint64[P]: after it (unused on failure)
    p_window: np.ndarray  # int32[P]: the sub-grid's top-left cell
    p_action: np.ndarray  # int8[P]: the move's position in the sub-grid
    p_fail: np.ndarray    # uint8[P]
    meta: np.ndarray      # int64[2]: GW_*
    key: np.ndarray       # uint64[1]: scratch key
    cand: np.ndarray      # int32[n]: the cells tied at the best value
    marked: np.ndarray    # uint8[n]


@kernel
def pack_window(view, cols, top):
    """The 3x3 sub-grid with top-left cell `top`, 4 bits a cell (covered 0, number v: v + 1)."""
    key = np.uint64(0)
    for p in range(SUB * SUB - 1, -1, -1):
        v = view[top + (p // SUB) * cols + p % SUB]
        key = (key << np.uint64(4)) | np.uint64(v + 1 if v >= 0 else 0)
    return key


@kernel
def nibble(key, p):
    return (key >> np.uint64(4 * p)) & NIBBLE


@kernel
def covered_in(key):
    k = 0
    for p in range(SUB * SUB):
        if nibble(key, p) == 0:
            k += 1
    return k


@kernel
def _memo_hit(ga, row, depth):
    """(the memoised V(s) or 0 for nothing left to play, whether that answer is known)."""
    d = min(depth, ga.n_covered[row])
    if d == 0:
        return 0.0, True
    if ga.memo_ok[row] and ga.memo_depth[row] == d:
        return ga.memo_val[row], True
    return 0.0, False


@kernel
def _push(ga, fr, top, row, depth):
    fr.row[top] = row
    fr.d[top] = min(depth, ga.n_covered[row])
    fr.a[top] = -1
    fr.e[top] = -1
    fr.best[top] = -np.inf
    return top + 1


@kernel
def _next_action(ga, cfg, fr, t):
    """Start frame t's next covered action: its reward part in fr.acc, its first edge in
    fr.e (-1: none to walk). Returns False when every action is done."""
    row = fr.row[t]
    key = ga.tb.row_keys[row, 0]
    a = fr.a[t] + 1
    while a < SUB * SUB and nibble(key, a) != 0:
        a += 1
    fr.a[t] = a
    if a == SUB * SUB:
        return False
    n = ga.tb.visits[row, a]
    fr.n[t] = n
    fr.e[t] = -1
    if n == 0:
        fr.acc[t] = cfg.unseen
    elif cfg.backup == BACKUP_EXPECT:
        nf, ns = ga.n_fail[row, a], ga.n_succ[row, a]
        fr.acc[t] = REWARD_FAILURE * nf + REWARD_SUCCESS * ns + REWARD_STEP * (n - nf - ns)
        if fr.d[t] > 1:
            fr.e[t] = ga.head[row, a]
    else:
        fr.acc[t] = REWARD_FAILURE * ga.n_fail[row, a] / n if ga.n_fail[row, a] > 0 else -np.inf
        fr.e[t] = ga.head[row, a]
    return True


@kernel
def _take_edge(ga, cfg, fr, t, child):
    """Add frame t's current edge to its action's value (`child`: V of the next state)."""
    e = fr.e[t]
    if cfg.backup == BACKUP_EXPECT:
        fr.acc[t] += ga.edge_count[e] * child
    else:
        p = ga.edge_count[e] / fr.n[t]
        if ga.edge_kind[e] == OUT_SUCCESS:
            r = p * REWARD_SUCCESS
        else:
            r = p * REWARD_STEP
            if fr.d[t] > 1:
                r += child
        fr.acc[t] = max(fr.acc[t], r)
    fr.e[t] = ga.edge_next[e]


@kernel
def _finish_action(ga, cfg, fr, t):
    n = fr.n[t]
    q = fr.acc[t] if n == 0 or cfg.backup == BACKUP_PATH else fr.acc[t] / n
    ga.memo_q[fr.row[t], fr.a[t]] = q
    fr.best[t] = max(fr.best[t], q)


@kernel
def state_value(ga, cfg, row, depth):
    """V(s) looking `depth` moves ahead (clamped to the covered cells of s), with Q(s, a)
    of its covered cells in ga.memo_q[row]. Memoised (see GraphArrays). Written as a loop
    over an explicit stack of frames (at most 10: a level uses at least one covered cell):
    numba's cache cannot reload a recursive function."""
    value, known = _memo_hit(ga, row, depth)
    if known:
        return value
    fr = ga.frames
    top = _push(ga, fr, 0, row, depth)
    _next_action(ga, cfg, fr, 0)
    while True:
        t = top - 1
        pushed = False
        while not pushed:
            if fr.a[t] == SUB * SUB:
                break
            e = fr.e[t]
            if e < 0:
                _finish_action(ga, cfg, fr, t)
                _next_action(ga, cfg, fr, t)
                continue
            if ga.edge_kind[e] == OUT_SUCCESS or fr.d[t] == 1:  # no next state to value
                if cfg.backup == BACKUP_EXPECT:
                    fr.e[t] = ga.edge_next[e]  # success is in the action's reward part
                else:
                    _take_edge(ga, cfg, fr, t, 0.0)
                continue
            child, known = _memo_hit(ga, ga.edge_to[e], fr.d[t] - 1)
            if known:
                _take_edge(ga, cfg, fr, t, child)
            else:
                top = _push(ga, fr, top, ga.edge_to[e], fr.d[t] - 1)
                _next_action(ga, cfg, fr, top - 1)
                pushed = True
        if pushed:
            continue
        done = fr.row[t]  # every action of frame t is valued: memoise and pop
        ga.memo_val[done] = fr.best[t]
        ga.memo_depth[done] = fr.d[t]
        ga.memo_ok[done] = 1
        top -= 1
        if top == 0:
            return fr.best[t]
        _take_edge(ga, cfg, fr, top - 1, fr.best[t])


@kernel
def _offer(work, cell, value, best, count):
    """Keep the distinct cells of greatest value: returns (best, count) after `cell`."""
    if value > best or count == 0:
        for t in range(count):
            work.marked[work.cand[t]] = 0
        best = value
        count = 0
    if value == best and not work.marked[cell]:
        work.marked[cell] = 1
        work.cand[count] = cell
        count += 1
    return best, count


@kernel
def graph_decide(view, rows, cols, ga, cfg, work, rng):
    """The Graphical model's cell: over every 3x3 sub-grid and its covered cells, the
    greatest value; uniform among the distinct cells that reach it."""
    if rows < SUB or cols < SUB:
        return random_covered_cell(view, rng)
    best = -np.inf
    count = 0
    for r0 in range(rows - SUB + 1):
        for c0 in range(cols - SUB + 1):
            top = r0 * cols + c0
            key = pack_window(view, cols, top)
            if covered_in(key) == 0:
                continue
            work.key[0] = key
            row = find_row(ga.tb, work.key)
            if row >= 0:
                state_value(ga, cfg, row, cfg.depth)
            for a in range(SUB * SUB):
                if nibble(key, a) != 0:
                    continue
                value = cfg.unseen if row < 0 else ga.memo_q[row, a]
                best, count = _offer(work, top + (a // SUB) * cols + a % SUB, value, best, count)
    for t in range(count):
        work.marked[work.cand[t]] = 0
    return work.cand[uniform_below(rng, count)]


@kernel
def cell_best_values(view, rows, cols, ga, unseen, key, out):
    """out[c] = the greatest value graph_decide gives cell c over the sub-grids holding it
    (-inf for a cell in none, or revealed); reads the memo graph_decide just filled."""
    for i in range(out.shape[0]):
        out[i] = -np.inf
    for r0 in range(rows - SUB + 1):
        for c0 in range(cols - SUB + 1):
            top = r0 * cols + c0
            k = pack_window(view, cols, top)
            if covered_in(k) == 0:
                continue
            key[0] = k
            row = find_row(ga.tb, key)
            for a in range(SUB * SUB):
                if nibble(k, a) != 0:
                    continue
                value = unseen if row < 0 else ga.memo_q[row, a]
                c = top + (a // SUB) * cols + a % SUB
                if value > out[c]:
                    out[c] = value


@kernel
def graph_note_before(view, rows, cols, cell, work):
    """Record the sub-grids holding `cell` as they are before it is revealed."""
    r, c = cell // cols, cell % cols
    m = work.meta[GW_N]
    work.meta[GW_START] = m
    for r0 in range(max(0, r - SUB + 1), min(r, rows - SUB) + 1):
        for c0 in range(max(0, c - SUB + 1), min(c, cols - SUB) + 1):
            top = r0 * cols + c0
            work.p_key[m] = pack_window(view, cols, top)
            work.p_window[m] = top
            work.p_action[m] = (r - r0) * SUB + (c - c0)
            m += 1
    work.meta[GW_N] = m


@kernel
def graph_note_after(view, cols, lost, work):
    """Record the outcome of the move in each of those sub-grids."""
    for t in range(work.meta[GW_START], work.meta[GW_N]):
        work.p_fail[t] = 1 if lost else 0
        work.p_next[t] = 0 if lost else pack_window(view, cols, work.p_window[t])


@kernel
def graph_room(ga, work):
    """Whether a whole game's transitions fit (two new states and one edge each)."""
    p = work.p_key.shape[0]
    return table_room(ga.tb, 2 * p) and ga.meta[GM_EDGES] + p <= ga.edge_to.shape[0]


@kernel
def _sub_grid_won(key, top, cols, mine):
    for p in range(SUB * SUB):
        if nibble(key, p) == 0 and mine[top + (p // SUB) * cols + p % SUB] == 0:
            return False
    return True


@kernel
def _add_edge(ga, row, a, to, kind):
    """Count the outcome (to, kind) of (row, a); returns its edge."""
    e = ga.head[row, a]
    while e >= 0:
        if ga.edge_to[e] == to and ga.edge_kind[e] == kind:
            ga.edge_count[e] += 1
            return e
        e = ga.edge_next[e]
    e = ga.meta[GM_EDGES]
    ga.meta[GM_EDGES] = e + 1
    ga.edge_from[e] = row
    ga.edge_to[e] = to
    ga.edge_kind[e] = kind
    ga.edge_action[e] = a
    ga.edge_val[e] = ga.memo_val[to] if kind == OUT_CONTINUE else 0.0
    ga.edge_count[e] = 1
    ga.edge_next[e] = ga.head[row, a]
    ga.head[row, a] = e
    ga.rev_next[e] = ga.rev_head[to]
    ga.rev_head[to] = e
    return e


@kernel
def invalidate(ga, row, reach):
    """Drop the memo of `row` and of every valid state within `reach` moves before it (the
    lookahead depth - 1: a value looks no further), breadth first so each state is met at
    its shortest distance. A valid memo's own lookahead is valid, so the walk stops at
    invalid states."""
    if not ga.memo_ok[row]:
        return
    ga.memo_ok[row] = 0
    head, tail = 0, 1
    ga.stack[0] = row * 16  # row and distance packed: distance < 16
    while head < tail:
        item = ga.stack[head]
        head += 1
        dist = item % 16
        if dist >= reach:
            continue
        e = ga.rev_head[item // 16]
        while e >= 0:
            p = ga.edge_from[e]
            if ga.memo_ok[p]:
                ga.memo_ok[p] = 0
                ga.stack[tail] = p * 16 + dist + 1
                tail += 1
            e = ga.rev_next[e]


@kernel
def incremental(cfg):
    """Whether values are kept up to date as the model learns (the default: the expected
    value over the whole sub-grid game), rather than computed on demand."""
    return cfg.backup == BACKUP_EXPECT and cfg.depth >= MAX_DEPTH


@kernel
def _store(ga, cfg, key, scratch):
    """The row of state `key`, stored if new: all its actions unseen."""
    before = ga.tb.meta[SM_ROWS]
    scratch[0] = key
    row = insert_row(ga.tb, scratch)
    if row >= before:
        k = covered_in(key)
        ga.n_covered[row] = k
        ga.memo_val[row] = cfg.unseen if k > 0 else 0.0
        for a in range(SUB * SUB):
            ga.memo_q[row, a] = cfg.unseen
        ga.memo_depth[row] = k
        ga.memo_ok[row] = 1 if incremental(cfg) else 0
    return row


@kernel
def _queue(ga, row):
    if not ga.dirty[row]:
        ga.dirty[row] = 1
        k = ga.n_covered[row]
        ga.dirty_next[row] = ga.queue_head[k]
        ga.queue_head[k] = row


@kernel
def _revalue(ga, cfg, row):
    """V(s) and Q(s, .) from the counts and act_sum (the incremental mode)."""
    key = ga.tb.row_keys[row, 0]
    best = -np.inf if ga.n_covered[row] > 0 else 0.0
    for a in range(SUB * SUB):
        if nibble(key, a) != 0:
            continue
        n = ga.tb.visits[row, a]
        if n == 0:
            q = cfg.unseen
        else:
            nf, ns = ga.n_fail[row, a], ga.n_succ[row, a]
            q = (REWARD_FAILURE * nf + REWARD_SUCCESS * ns + REWARD_STEP * (n - nf - ns) + ga.act_sum[row, a]) / n
        ga.memo_q[row, a] = q
        best = max(best, q)
    return best


@kernel
def settle(ga, cfg):
    """Revalue the queued states, fewest covered cells first (a next state always has
    fewer than its state), passing each change of V on to the states leading to it."""
    for k in range(MAX_DEPTH + 1):
        while ga.queue_head[k] >= 0:
            row = ga.queue_head[k]
            ga.queue_head[k] = ga.dirty_next[row]
            ga.dirty[row] = 0
            v = _revalue(ga, cfg, row)
            if v == ga.memo_val[row]:
                continue
            ga.memo_val[row] = v
            e = ga.rev_head[row]
            while e >= 0:
                if ga.edge_kind[e] == OUT_CONTINUE:
                    p = ga.edge_from[e]
                    ga.act_sum[p, ga.edge_action[e]] += ga.edge_count[e] * (v - ga.edge_val[e])
                    ga.edge_val[e] = v
                    _queue(ga, p)
                e = ga.rev_next[e]


@kernel
def graph_learn(ga, cfg, work, mine, cols):
    """After a game (room checked): count every recorded transition; SUCCESS read from the
    final layout. Then the values: kept up to date (`settle`) in the incremental mode, else
    the memo of what changed is invalidated."""
    inc = incremental(cfg)
    for t in range(work.meta[GW_N]):
        row = _store(ga, cfg, work.p_key[t], work.key)
        if inc:
            _queue(ga, row)
        else:
            invalidate(ga, row, cfg.depth - 1)
        a = work.p_action[t]
        ga.tb.visits[row, a] += 1
        if work.p_fail[t]:
            ga.n_fail[row, a] += 1
            continue
        nxt = work.p_next[t]
        kind = OUT_SUCCESS if _sub_grid_won(nxt, work.p_window[t], cols, mine) else OUT_CONTINUE
        to = _store(ga, cfg, nxt, work.key)
        e = _add_edge(ga, row, a, to, kind)
        if kind == OUT_SUCCESS:
            ga.n_succ[row, a] += 1
        else:
            ga.act_sum[row, a] += ga.edge_val[e]
    if inc:
        settle(ga, cfg)
    work.meta[GW_N] = 0
    ga.meta[GM_GAMES] += 1


@kernel
def graph_batch(gs, ga, cfg, work, n_games, deal_rng, rng, out):
    """Play up to n_games; returns the games played (fewer when the memory must grow)."""
    st = gs.counters
    view = gs.shown
    rows, cols = gs.spec[SP_ROWS], gs.spec[SP_COLS]
    for g in range(n_games):
        if not graph_room(ga, work):
            return g
        begin_game(gs, deal_rng)
        work.meta[GW_N] = 0
        while st[ST_STATUS] == 0:
            cell = graph_decide(view, rows, cols, ga, cfg, work, rng)
            graph_note_before(view, rows, cols, cell, work)
            if st[ST_DEALT] == 0:
                deal_first_click(gs, cell, deal_rng)
            got = open_cell(gs, cell)
            graph_note_after(view, cols, got < 0, work)
        graph_learn(ga, cfg, work, gs.mine, cols)
        record_game(gs, out, g)
        out[g, N_RECORD] = ga.tb.meta[SM_ROWS]
    return n_games


def new_graph_work(cells: int) -> GraphWork:
    p = SUB * SUB * (cells + 1)
    return GraphWork(np.zeros(p, np.uint64), np.zeros(p, np.uint64), np.zeros(p, np.int32), np.zeros(p, np.int8),
                     np.zeros(p, np.uint8), np.zeros(2, np.int64), np.zeros(1, np.uint64), np.zeros(cells, np.int32),
                     np.zeros(cells, np.uint8))


def _grown(a: np.ndarray, size: int, fill) -> np.ndarray:
    out = np.full((size,) + a.shape[1:], fill, a.dtype)
    out[: a.shape[0]] = a
    return out


class GraphMemory:
    """The Graphical model's memory of one board shape: a StateTable of sub-grid states
    and the arrays beside it (GraphArrays); `reserve` grows them together."""

    def __init__(self, capacity: int = 1 << 12):
        self.table = StateTable(SUB * SUB, visits=True, capacity=capacity)
        cap = self.table.q.shape[0]
        self.n_fail = np.zeros((cap, SUB * SUB), np.int32)
        self.n_succ = np.zeros((cap, SUB * SUB), np.int32)
        self.head = np.full((cap, SUB * SUB), -1, np.int32)
        self.rev_head = np.full(cap, -1, np.int32)
        self.memo_val = np.zeros(cap)
        self.memo_q = np.zeros((cap, SUB * SUB))
        self.memo_depth = np.zeros(cap, np.int8)
        self.memo_ok = np.zeros(cap, np.uint8)
        self.n_covered = np.zeros(cap, np.int8)
        self.stack = np.zeros(cap, np.int64)
        self.act_sum = np.zeros((cap, SUB * SUB))
        self.dirty = np.zeros(cap, np.uint8)
        self.dirty_next = np.zeros(cap, np.int32)
        self.queue_head = np.full(MAX_DEPTH + 1, -1, np.int32)
        edges = 2 * cap
        self.edge_from = np.zeros(edges, np.int32)
        self.edge_to = np.zeros(edges, np.int32)
        self.edge_next = np.zeros(edges, np.int32)
        self.rev_next = np.zeros(edges, np.int32)
        self.edge_count = np.zeros(edges, np.int32)
        self.edge_kind = np.zeros(edges, np.int8)
        self.edge_action = np.zeros(edges, np.int8)
        self.edge_val = np.zeros(edges)
        self.meta = np.zeros(2, np.int64)
        self.frames = new_frames()

    def __len__(self) -> int:
        return len(self.table)

    @property
    def edges(self) -> int:
        return int(self.meta[GM_EDGES])

    def arrays(self) -> GraphArrays:
        return GraphArrays(self.table.arrays(), *(getattr(self, name) for name in GraphArrays._fields[1:]))

    def reserve(self, transitions: int) -> None:
        """Room for `transitions` more (two states and one edge each)."""
        self.table.reserve(2 * transitions)
        cap = self.table.q.shape[0]
        if self.n_fail.shape[0] < cap:
            self.n_fail = _grown(self.n_fail, cap, 0)
            self.n_succ = _grown(self.n_succ, cap, 0)
            self.head = _grown(self.head, cap, -1)
            self.rev_head = _grown(self.rev_head, cap, -1)
            self.memo_val = _grown(self.memo_val, cap, 0.0)
            self.memo_q = _grown(self.memo_q, cap, 0.0)
            self.memo_depth = _grown(self.memo_depth, cap, 0)
            self.memo_ok = _grown(self.memo_ok, cap, 0)
            self.n_covered = _grown(self.n_covered, cap, 0)
            self.stack = _grown(self.stack, cap, 0)
            self.act_sum = _grown(self.act_sum, cap, 0.0)
            self.dirty = _grown(self.dirty, cap, 0)
            self.dirty_next = _grown(self.dirty_next, cap, 0)
        need = self.edges + transitions
        if need > self.edge_to.shape[0]:
            size = self.edge_to.shape[0]
            while size < need:
                size += size // 2
            for name in ("edge_from", "edge_to", "edge_next", "rev_next", "edge_count", "edge_kind", "edge_action",
                         "edge_val"):
                setattr(self, name, _grown(getattr(self, name), size, 0))

    def counts(self, window_key: int) -> dict | None:
        """{"n", "fail", "success", "outcomes": {(next key, kind): count}} per action of
        the state `window_key` (a packed sub-grid), or None if it was never stored."""
        key = np.array([window_key], np.uint64)
        row = int(find_row(self.table.arrays(), key))
        if row < 0:
            return None
        out = {}
        for a in range(SUB * SUB):
            outcomes = {}
            e = int(self.head[row, a])
            while e >= 0:
                to_key = int(self.table.row_keys[self.edge_to[e], 0])
                kind = "success" if self.edge_kind[e] == OUT_SUCCESS else "continue"
                outcomes[(to_key, kind)] = int(self.edge_count[e])
                e = int(self.edge_next[e])
            out[a] = {"n": int(self.table.visits[row, a]), "fail": int(self.n_fail[row, a]),
                      "success": int(self.n_succ[row, a]), "outcomes": outcomes}
        return out


def window_key(view, top: tuple[int, int]) -> int:
    """The packed key of the 3x3 sub-grid of `view` (rows, cols) at top-left `top`."""
    v = np.ascontiguousarray(view, dtype=np.int8)
    return int(pack_window(v.ravel(), v.shape[1], top[0] * v.shape[1] + top[1]))


@register
class GraphicalAgent(Agent):
    """The blog's Graphical model: an MDP over 3x3 sub-grids of the board, transition
    probabilities counted from its own games, rewards +100 (sub-grid won) / -100 (mine) /
    +1; the best sub-grid action is played, ties at random. Parameters: depth (9: the
    whole sub-grid game; 1: one step), backup ("expectation" | "path": the printed
    recursion), unseen (0.0: the value of an action never tried). See minelab.agents.blog."""

    name = "graphical"
    learns = True
    _explains = True
    extra_fields = ("states",)  # sub-grid states stored after each game

    def __init__(self, seed=None, *, depth: int = MAX_DEPTH, backup: str = "expectation", unseen: float = 0.0):
        super().__init__(seed)
        self.depth = _check_number("depth", depth, 1, MAX_DEPTH, integer=True)
        self.backup = _check_choice("backup", backup, BACKUPS)
        self.unseen = _check_number("unseen", unseen, REWARD_FAILURE, REWARD_SUCCESS * MAX_DEPTH)
        self._memory: dict[tuple[int, int], GraphMemory] = {}
        self._batch_work: dict[int, GraphWork] = {}
        self._game_work = weakref.WeakKeyDictionary()

    def params(self) -> dict:
        out = {}
        if self.depth != MAX_DEPTH:
            out["depth"] = self.depth
        if self.backup != "expectation":
            out["backup"] = self.backup
        if self.unseen != 0.0:
            out["unseen"] = self.unseen
        return out

    @property
    def config(self) -> GraphConfig:
        return GraphConfig(self.depth, BACKUPS.index(self.backup), self.unseen)

    def _saved(self):
        return {"memory": pickled(self._memory)}, {}

    def _restore(self, arrays, facts):
        self._memory = unpickled(arrays["memory"])

    def memory(self, rows: int, cols: int) -> GraphMemory:
        """What it has learnt on rows x cols boards."""
        if (rows, cols) not in self._memory:
            self._memory[(rows, cols)] = GraphMemory()
        return self._memory[(rows, cols)]

    def _decide(self, game, work) -> Move:
        mem = self.memory(game.level.rows, game.level.cols)
        cell = graph_decide(game._gs.shown, game.level.rows, game.level.cols, mem.arrays(), self.config, work,
                            self.rng)
        self._why = f"{self.name}: {self._explain(game, mem, int(cell))}"
        return cell_to_move(REVEAL, cell, game.level)

    def _explain(self, game, mem, cell) -> str:
        """The chosen cell's value, its best sub-grid and the counts behind it (the memo the
        decision filled), and how many cells tie for the best value."""
        view, rows, cols = game._gs.shown, game.level.rows, game.level.cols
        where = at(cell, cols)
        if rows < SUB or cols < SUB:
            return f"{where}: no 3x3 sub-grid on this board: uniformly at random among the covered cells"
        ga = mem.arrays()
        key = np.zeros(1, np.uint64)
        best = np.empty(view.shape[0])
        cell_best_values(view, rows, cols, ga, self.unseen, key, best)
        value = best[cell]
        ties = int(np.count_nonzero(best == value))
        r, c = cell // cols, cell % cols
        for r0 in range(max(0, r - SUB + 1), min(r, rows - SUB) + 1):  # a sub-grid where the cell reaches its value
            for c0 in range(max(0, c - SUB + 1), min(c, cols - SUB) + 1):
                key[0] = pack_window(view, cols, r0 * cols + c0)
                row, a = int(find_row(ga.tb, key)), (r - r0) * SUB + (c - c0)
                if (self.unseen if row < 0 else ga.memo_q[row, a]) == value:
                    break
            else:
                continue
            break
        if row < 0:
            said = f"an action never tried (sub-grid state never seen), worth unseen = {num(self.unseen)}"
        else:
            n = int(ga.tb.visits[row, a])
            said = (f"value {num(value)} in the sub-grid at {at(r0 * cols + c0, cols)}, from {count(n, 'try', 'tries')}"
                    f" ({ga.n_fail[row, a]} on a mine, {ga.n_succ[row, a]} winning the sub-grid)")
            if n == 0:
                said = f"an action never tried in a known sub-grid state, worth unseen = {num(self.unseen)}"
        said = f"{where}: {said}, the greatest over the sub-grids ({self.backup}, depth {self.depth})"
        return said + (f"; tied with {count(ties - 1, 'more cell')}, chosen at random" if ties > 1 else "")

    def _choose(self, game):
        return self._decide(game, self._game_work.get(game) or new_graph_work(game.level.cells))

    def act(self, game):
        if game.over:
            raise ValueError("act() needs a game in progress; this one is over")
        if game not in self._game_work:
            self._game_work[game] = new_graph_work(game.level.cells)
        work = self._game_work[game]
        move = self._decide(game, work)
        rows, cols = game.level.rows, game.level.cols
        graph_note_before(game._gs.shown, rows, cols, move.row * cols + move.col, work)
        got = game.apply(move)
        graph_note_after(game._gs.shown, cols, got < 0, work)
        return [move]

    def game_over(self, game):
        work = self._game_work.pop(game, None)
        if work is None:
            return
        mem = self.memory(game.level.rows, game.level.cols)
        mem.reserve(int(work.meta[GW_N]))
        graph_learn(mem.arrays(), self.config, work, game._gs.mine, game.level.cols)

    def play_batch(self, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        mem = self.memory(rows, cols)
        if rows * cols not in self._batch_work:
            self._batch_work[rows * cols] = new_graph_work(rows * cols)
        work = self._batch_work[rows * cols]
        done = 0
        while True:  # at least one call: a zero-game batch compiles the kernel
            mem.reserve(work.p_key.shape[0])
            done += graph_batch(gs, mem.arrays(), self.config, work, n_games - done, deal_rng, self.rng,
                                out[done:])
            if done >= n_games:
                break
