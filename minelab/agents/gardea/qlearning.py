"""Gardea, Koontz & Silva (2015) §III-C: simplified Q-learning, agent "gardea-q".

The state is the whole visible board (`minelab.agents.rl.table.StateTable`), so a model
plays only the board shape it was trained on. Training (`train_size` = training games on
`train_level` from `train_seed`), with `algorithm`:

    2 (the paper's "initial Q-learning", Algorithm 2): probe the first cell; then, until
      the game ends, s = the view, uncover a uniformly random covered cell a (anywhere),
      r = -1 if it was a mine else +1, Q(s, a) <- (1 - eta) Q(s, a) + eta r.
    3 (the "improved" one, Algorithm 3, the default): probe the first cell; then, until
      the game ends, s = the view, Array = the frontier cells that are not mines,
      P(s, a) += 1 for each a in Array, probe a uniformly random cell of Array.

The frontier (the paper's perimeter) is every covered cell next to a revealed one.
Algorithm 3's trainer reads the hidden layout to know which frontier cells are safe:
that is how it generates its training data, as the paper's trainer does; the agent that
plays never reads a mine (`q_decide` sees the view only). Algorithm 2's trainer reads
nothing hidden: it learns from the click's outcome.

Where the paper is vague (its reading first, then minelab's choice):
- `eta`: Algorithm 2's learning rate has no value in the paper: minelab takes 0.1
  (any value in (0, 1] is allowed; Algorithm 3 has none).
- Empty Array (Algorithm 3): the loop "probe random square in Array" cannot go on when
  every frontier cell is a mine. `empty_array="off-frontier"` (default) probes a
  uniformly random safe covered cell off the frontier (one exists while the game is
  on), so every training game is played to its win; "stop" abandons the game there, the
  literal reading (the state is still stored and counted, with no P increment).
- The first state (nothing revealed) is never stored: both algorithms "begin by probing a
  corner square" (`first_click="corner"`: the top-left cell, as minelab's other agents;
  "centre" or (row, col) also), and play opens with the same cell.
- n(s), the visits of each state, is stored (`visits`): the text's "seen at least once"
  is n(s) >= 1, and the figure of explored states counts states by visits. Every state
  the trainer acts from is stored, even when Array is empty: that is how the play rule
  tells a seen state whose frontier is all mines from a state never seen.
- P is kept as float32 (the table's values): counts are exact up to 2**24 visits of one
  state (~16.7 million; training warns beyond).

Play (`q_decide`, the same njit function in interactive and batch play): the first move
is the first cell; then the frontier cell of highest P (Algorithm 2: highest Q), ties
uniformly at random; the paper's exception: when no frontier cell has a positive value
(for P: all zero) in a state seen in training, a uniformly random covered cell off the
frontier (when there is none: the highest-value frontier cell). For P this is exactly
the text; for Algorithm 2's Q (whose exception the paper does not state) it reads "no
frontier cell was found safe on balance". The paper does not say what happens in a state
never seen in training: `unseen="frontier"` (default) plays a uniformly random frontier
cell, which is what the stated rule does there (every P is 0 and the exception needs a
seen state); `unseen="covered"` a uniformly random covered cell.

Records carry two extra columns per game: `unseen_moves` (decisions in states never
seen in training) and `off_frontier_moves` (decisions by the exception).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cells import COVERED, REVEAL, WON
from ...engine import (N_RECORD, SP_COLS, SP_ROWS, ST_CLICKS, ST_STATUS, _tables, kernel, new_game_state, open_cell,
                       random_covered_cell, uniform_below)
from ...levels import Level
from ..base import register
from ..batch import PLAYED, extra_index, hook, hooks, play_games
from ..csp import check_first_click, first_cell_index
from ..why import at, cell_values, count, num, opening_where, value_range
from ..spec import choice, given, number
from ..rl.table import (FREE, SM_MASK, SM_ROWS, SM_SHIFT, N_STATE_META, StateArrays, StateTable, _grown, _rehash,
                        find_row, insert_row, key_words, pack_view, table_room)
from .trained import TrainedAgent, TrainedParams

ALGORITHMS = (2, 3)
UNSEEN_RULES = ("frontier", "covered")
UNSEEN_FRONTIER, UNSEEN_COVERED = range(2)
EMPTY_RULES = ("off-frontier", "stop")
EMPTY_OFF_FRONTIER, EMPTY_STOP = range(2)
DEFAULT_ETA = 0.1
EXACT_COUNTS = 2 ** 24  # float32 counts are exact up to here

# how a decision was made (QWork.how)
HOW_FIRST, HOW_BEST, HOW_OFF, HOW_UNSEEN, HOW_OTHER = range(5)
# cell marks in QWork.mark
M_OFF, M_FRONT, M_SAFE_FRONT, M_SAFE_OFF = range(4)
# training statistics (the stats array)
TS_GAMES, TS_WINS, TS_CLICKS, TS_EMPTY, TS_ABANDONED = range(5)
N_TS = 5
TRAIN_CHUNK = 4096  # training games per play_games call (the records it writes are not kept)


class QConfig(NamedTuple):
    """The agent's parameters as kernels take them."""

    algorithm: int  # 2 or 3
    eta: float      # Algorithm 2's learning rate
    first: int      # flat index of the first click
    empty: int      # index in EMPTY_RULES (Algorithm 3's empty Array)
    unseen: int     # index in UNSEEN_RULES


class QWork(NamedTuple):
    """Scratch arrays of one board size (kernels never allocate)."""

    key: np.ndarray   # uint64[words]: the packed view
    mark: np.ndarray  # int8[cells]: M_* of each cell
    how: np.ndarray   # int64[1]: HOW_* of the last decision


def new_work(cells: int) -> QWork:
    return QWork(np.zeros(key_words(cells), np.uint64), np.zeros(cells, np.int8), np.zeros(1, np.int64))


# ------------------------------------------------------------------ kernels shared by training and play
@kernel
def mark_frontier(view, nbr, nbr_count, mark):
    """mark[i] = M_FRONT for covered cells next to a revealed one, else M_OFF; returns how many."""
    k = 0
    for i in range(view.shape[0]):
        f = M_OFF
        if view[i] == COVERED:
            for j in range(nbr_count[i]):
                if view[nbr[i, j]] >= 0:
                    f = M_FRONT
                    break
        mark[i] = f
        k += f
    return k


@kernel
def pick_marked(mark, value, view, rng):
    """A uniformly random covered cell with mark == value (no draw when there is one); -1 if none."""
    k = 0
    last = -1
    for i in range(view.shape[0]):
        if mark[i] == value and view[i] == COVERED:
            k += 1
            last = i
    if k <= 1:
        return last
    pick = uniform_below(rng, k)
    for i in range(view.shape[0]):
        if mark[i] == value and view[i] == COVERED:
            if pick == 0:
                return i
            pick -= 1
    return -1


@kernel
def frontier_max(values, mark):
    """(largest value over the frontier cells, how many frontier cells hold it)."""
    best = -np.inf
    ties = 0
    for i in range(mark.shape[0]):
        if mark[i] == M_FRONT:
            v = values[i]
            if v > best:
                best = v
                ties = 1
            elif v == best:
                ties += 1
    return best, ties


@kernel
def pick_best(values, mark, best, ties, rng):
    """A uniformly random frontier cell of value `best` (one draw only when ties > 1)."""
    pick = uniform_below(rng, ties) if ties > 1 else 0
    for i in range(mark.shape[0]):
        if mark[i] == M_FRONT and values[i] == best:
            if pick == 0:
                return i
            pick -= 1
    return -1


# ------------------------------------------------------------------ play
@kernel
def q_decide(tb, cfg, view, nbr, nbr_count, work, rng):
    """The cell to reveal on `view` (flat, minelab codes) by the paper's playing rule (see
    the module docstring); work.how[0] says which branch decided."""
    mark = work.mark
    if mark_frontier(view, nbr, nbr_count, mark) == 0:
        nothing_revealed = True
        for i in range(view.shape[0]):
            if view[i] >= 0:
                nothing_revealed = False
                break
        if nothing_revealed and view[cfg.first] == COVERED:
            work.how[0] = HOW_FIRST
            return cfg.first
        work.how[0] = HOW_OTHER  # no frontier on a started board: only flags could do that
        return random_covered_cell(view, rng)
    pack_view(view, work.key)
    row = find_row(tb, work.key)
    if row < 0:
        work.how[0] = HOW_UNSEEN
        if cfg.unseen == UNSEEN_COVERED:
            return random_covered_cell(view, rng)
        return pick_marked(mark, M_FRONT, view, rng)
    values = tb.q[row]
    best, ties = frontier_max(values, mark)
    if best <= 0.0:
        off = pick_marked(mark, M_OFF, view, rng)
        if off >= 0:
            work.how[0] = HOW_OFF
            return off
    work.how[0] = HOW_BEST
    return pick_best(values, mark, best, ties, rng)


#: the record columns gardea-q adds, in the order of its batch state's `extra`
Q_EXTRA = ("unseen_moves", "off_frontier_moves")
_X_UNSEEN, _X_OFF = (extra_index(Q_EXTRA, f) for f in Q_EXTRA)


class QPlayBatch(NamedTuple):
    """gardea-q's batch state for play with the frozen table (minelab.agents.batch)."""

    tb: StateArrays
    cfg: QConfig
    work: QWork
    extra: np.ndarray  # int64[len(Q_EXTRA)]: the game's moves from unseen states, off the frontier


@hook
def _q_begin(state, gs):
    state.extra[:] = 0


@hook
def _q_move(state, gs, rng, deal_rng):
    work = state.work
    cell = q_decide(state.tb, state.cfg, gs.shown, gs.nbr, gs.nbr_count, work, rng)
    if work.how[0] == HOW_UNSEEN:
        state.extra[_X_UNSEEN] += 1
    elif work.how[0] == HOW_OFF:
        state.extra[_X_OFF] += 1
    return REVEAL, cell


hooks(QPlayBatch, _q_move, begin_fn=_q_begin)


# ------------------------------------------------------------------ training
@kernel
def algorithm2_step(gs, values, eta, rng):
    """Algorithm 2, lines 4-10: a uniformly random covered cell, then Q(s, a) toward r."""
    cell = random_covered_cell(gs.shown, rng)
    got = open_cell(gs, cell)
    r = -1.0 if got < 0 else 1.0
    values[cell] = (1.0 - eta) * values[cell] + eta * r
    return cell


@kernel
def algorithm3_credit(view, mine, nbr, nbr_count, mark, values):
    """Algorithm 3, lines 4-7: P(s, a) += 1 for every frontier cell a that is not a mine
    (marked M_SAFE_FRONT). Returns len(Array). Reads the hidden layout: training data."""
    mark_frontier(view, nbr, nbr_count, mark)
    k = 0
    for i in range(view.shape[0]):
        if mark[i] == M_FRONT and mine[i] == 0:
            values[i] += 1.0
            mark[i] = M_SAFE_FRONT
            k += 1
    return k


@kernel
def algorithm3_step(gs, values, cfg, work, rng, stats):
    """Algorithm 3, lines 4-8 (empty Array: see EMPTY_RULES). Returns the cell probed,
    -1 when the game is abandoned."""
    view = gs.shown
    mark = work.mark
    k = algorithm3_credit(view, gs.mine, gs.nbr, gs.nbr_count, mark, values)
    if k > 0:
        cell = pick_marked(mark, M_SAFE_FRONT, view, rng)
    else:
        stats[TS_EMPTY] += 1
        if cfg.empty == EMPTY_STOP:
            return -1
        for i in range(view.shape[0]):
            if mark[i] == M_OFF and view[i] == COVERED and gs.mine[i] == 0:
                mark[i] = M_SAFE_OFF
        cell = pick_marked(mark, M_SAFE_OFF, view, rng)
        if cell < 0:
            return -1  # no safe covered cell: the game would be won already
    open_cell(gs, cell)
    return cell


class QTrainBatch(NamedTuple):
    """gardea-q's batch state in training (minelab.agents.batch): the table it fills, its
    visit counts, settings, work arrays and the training counters (TS_*). A decision is
    the first probe (played by the loop) while the game has no click (rule NONE deals
    without one), else Algorithm 2's or 3's step, which probes and learns (PLAYED) or
    abandons the game. A batch stops before a game when the table must grow (a game
    stores at most one state per cell)."""

    tb: StateArrays
    visits: np.ndarray  # int64[rows of tb]
    cfg: QConfig
    work: QWork
    stats: np.ndarray  # int64[N_TS]
    extra: np.ndarray  # int64[0]


@hook
def _q_train_room(state, gs):
    return table_room(state.tb, gs.shown.shape[0])


@hook
def _q_train_move(state, gs, rng, deal_rng):
    if gs.counters[ST_CLICKS] == 0:
        return np.int64(REVEAL), np.int64(state.cfg.first)
    tb, cfg, work = state.tb, state.cfg, state.work
    pack_view(gs.shown, work.key)
    row = insert_row(tb, work.key)
    state.visits[row] += 1
    if cfg.algorithm == 2:
        algorithm2_step(gs, tb.q[row], cfg.eta, rng)
    elif algorithm3_step(gs, tb.q[row], cfg, work, rng, state.stats) < 0:
        state.stats[TS_ABANDONED] += 1
        return np.int64(REVEAL), np.int64(-1)
    return np.int64(PLAYED), np.int64(-1)


@hook
def _q_train_end(state, gs):
    st = gs.counters
    stats = state.stats
    stats[TS_GAMES] += 1
    if st[ST_STATUS] == WON:
        stats[TS_WINS] += 1
    stats[TS_CLICKS] += st[ST_CLICKS]


hooks(QTrainBatch, _q_train_move, room_fn=_q_train_room, end_fn=_q_train_end)


# ------------------------------------------------------------------ the agent
def frozen_table(keys: np.ndarray, values: np.ndarray) -> StateArrays:
    """The table kernels read, over a saved model's rows (no copy): slots rebuilt, kept at
    most half full, as StateTable keeps them."""
    n, cells = values.shape
    bits = max(4, int(2 * max(n, 16) - 1).bit_length())
    meta = np.zeros(N_STATE_META, np.int64)
    meta[SM_ROWS], meta[SM_MASK], meta[SM_SHIFT] = n, (1 << bits) - 1, 64 - bits
    tb = StateArrays(np.full(1 << bits, FREE, np.int32), keys, values, np.zeros((1, cells), np.int32), meta)
    _rehash(tb)
    return tb


def _check_model(model: dict, cells: int) -> None:
    """ValueError unless `model` holds keys uint64[n, words], values float32[n, cells], visits int64[n]."""
    keys, values, visits = model.get("keys"), model.get("values"), model.get("visits")
    ok = all(isinstance(a, np.ndarray) for a in (keys, values, visits))
    if ok:
        n = values.shape[0] if values.ndim == 2 else -1
        ok = (values.dtype == np.float32 and keys.dtype == np.uint64 and visits.dtype == np.int64
              and values.shape == (n, cells) and keys.shape == (n, key_words(cells)) and visits.shape == (n,))
    if not ok:
        raise ValueError(f"this gardea-q model is malformed: for {cells} cells it needs keys uint64[n, "
                         f"{key_words(cells)}], values float32[n, {cells}] and visits int64[n]")


def _algorithm(value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value not in ALGORITHMS:
        raise ValueError(f"algorithm must be 2 or 3 (the paper's Algorithms 2 and 3), got {value!r}")
    return int(value)


def _eta_counts(agent) -> bool:
    """eta defines the agent only under Algorithm 2 (Algorithm 3 has no learning rate)."""
    return agent.algorithm == 2 and agent.eta != DEFAULT_ETA


def _empty_array_counts(agent) -> bool:
    """empty_array defines the agent only under Algorithm 3 (Algorithm 2 never meets it)."""
    return agent.algorithm == 3 and agent.empty_array != EMPTY_RULES[0]


@dataclass(frozen=True)
class GardeaQParams(TrainedParams):
    """gardea-q's parameters: the training's, and the paper's Algorithm and its options."""

    algorithm: int = given(3, _algorithm, "2 or 3", doc="the paper's Algorithm 2 or 3")
    eta: float = number(DEFAULT_ETA, 0.0, 1.0, lo_open=True, keep=_eta_counts, doc="Algorithm 2's learning rate")
    first_click: object = given("corner", check_first_click, "corner, centre or a (row, col) pair",
                                doc="the first probe, in training and play")
    unseen: str = choice(UNSEEN_RULES[0], UNSEEN_RULES, doc="where it plays in a state training never saw")
    empty_array: str = choice(EMPTY_RULES[0], EMPTY_RULES, keep=_empty_array_counts,
                              doc="Algorithm 3 with no safe frontier cell: an off-frontier cell, or stop")


@register
class GardeaQAgent(TrainedAgent):
    """Gardea et al. (2015)'s simplified Q-learning (Algorithms 2 and 3) over whole-board
    states; plays the frontier cell of highest P (see minelab.agents.gardea.qlearning).

        agent = ml.make_agent("gardea-q", train_level="4x4x3", train_size=100_000)
    """

    name = "gardea-q"
    extra_fields = Q_EXTRA
    _explains = True

    Params = GardeaQParams

    def __init__(self, seed=None, **params):
        super().__init__(seed, **params)
        self._unseen_code = UNSEEN_RULES.index(self.unseen)
        self._empty_code = EMPTY_RULES.index(self.empty_array)
        self._frozen = None  # (the model's keys array, its StateArrays)
        self._work: dict[int, QWork] = {}

    def first_cell(self, rows: int, cols: int) -> int:
        """The flat index of the first probe on a rows x cols board."""
        return first_cell_index(self.first_click, rows, cols)

    def config(self, rows: int, cols: int) -> QConfig:
        return QConfig(self.algorithm, self.eta, self.first_cell(rows, cols), self._empty_code, self._unseen_code)

    def work(self, cells: int) -> QWork:
        if cells not in self._work:
            self._work[cells] = new_work(cells)
        return self._work[cells]

    # --- training ----------------------------------------------------------------
    def _train(self, level: Level, size: int, seq: np.random.SeedSequence) -> tuple[dict, dict]:
        deal_ss, agent_ss = seq.spawn(2)
        deal_rng, rng = np.random.Generator(np.random.PCG64(deal_ss)), np.random.Generator(np.random.PCG64(agent_ss))
        cells = level.cells
        gs = new_game_state(level)
        cfg = self.config(level.rows, level.cols)
        table = StateTable(cells)
        visits = np.zeros(table.q.shape[0], np.int64)
        work = new_work(cells)
        stats = np.zeros(N_TS, np.int64)
        extra = np.zeros(0, np.int64)
        records = np.zeros((min(size, TRAIN_CHUNK), N_RECORD), np.int64)
        done = 0
        while done < size:
            table.reserve(cells)
            if visits.shape[0] < table.q.shape[0]:
                visits = _grown(visits, table.q.shape[0])
            state = QTrainBatch(table.arrays(), visits, cfg, work, stats, extra)
            done += play_games(gs, min(size - done, TRAIN_CHUNK), deal_rng, rng, state, records)
            del state  # it holds the table's arrays: they must have no other owner to grow in place
        n = len(table)
        keys, values, _ = table.release()  # the model is the table's own arrays, cut to size: no second copy
        model = {"keys": keys, "values": values, "visits": _grown(visits, n)}
        most = int(visits[:n].max()) if n else 0
        if self.algorithm == 3 and most > EXACT_COUNTS:
            warnings.warn(f"gardea-q: a state was visited {most} times; its float32 P counts are exact only up to "
                          f"{EXACT_COUNTS}", RuntimeWarning, stacklevel=3)
        info = {"games": int(stats[TS_GAMES]), "states": n, "training_wins": int(stats[TS_WINS]),
                "training_clicks": int(stats[TS_CLICKS]), "most_visits": most}
        if self.algorithm == 3:
            info.update(empty_array_steps=int(stats[TS_EMPTY]), abandoned_games=int(stats[TS_ABANDONED]))
        return model, info

    # --- the frozen model ----------------------------------------------------------
    def table(self) -> StateArrays:
        """The model as kernels read it (built once per model; ValueError on a malformed one)."""
        model = self.model()
        if self._frozen is None or self._frozen[0] is not model.get("keys"):
            rows, cols = self.trained_shape
            _check_model(model, rows * cols)
            model["keys"], model["values"] = np.ascontiguousarray(model["keys"]), np.ascontiguousarray(model["values"])
            self._frozen = (model["keys"], frozen_table(model["keys"], model["values"]))
        return self._frozen[1]

    @property
    def states(self) -> int:
        """States stored by training."""
        return int(self.model()["values"].shape[0])

    def _row(self, view) -> tuple[int, tuple[int, int]]:
        v = np.ascontiguousarray(view, dtype=np.int8)
        if v.ndim != 2:
            raise ValueError(f"view must be a 2-d board, got shape {v.shape}")
        self.check_board(*v.shape)
        key = np.zeros(key_words(v.size), np.uint64)
        pack_view(v.ravel(), key)
        return int(find_row(self.table(), key)), v.shape

    def values(self, view) -> np.ndarray | None:
        """P(s, .) (Algorithm 2: Q(s, .)) of the state `view` (rows x cols) as float32
        (rows, cols), or None when training never saw it."""
        row, shape = self._row(view)
        return None if row < 0 else self.model()["values"][row].reshape(shape).copy()

    def visits(self, view) -> int:
        """n(s): how often training acted from the state `view` (0: never seen)."""
        row, _ = self._row(view)
        return 0 if row < 0 else int(self.model()["visits"][row])

    # --- why (explain) and knowledge -----------------------------------------------
    def _explain(self, model, game, cell) -> str:
        """The branch of q_decide that chose (work.how) and the values it read (work.mark:
        the frontier it marked; the state's row in the frozen table)."""
        rows, cols = game.level.rows, game.level.cols
        view = game._gs.shown
        work = self.work(rows * cols)
        how, mark = int(work.how[0]), work.mark
        where = at(cell, cols)
        frontier = int(np.count_nonzero(mark == M_FRONT))
        if how == HOW_FIRST:
            return f"first probe at {opening_where(self.first_click, cell, rows, cols)}"
        if how == HOW_OTHER:
            return f"{where}: no frontier on a started board (only flags there), a random covered cell"
        if how == HOW_UNSEEN:
            pool = count(frontier, "frontier cell") if self.unseen == "frontier" else \
                count((view == COVERED).sum(), "covered cell")
            return f"{where}: a state training never saw: uniformly at random among {pool}"
        key = np.zeros(key_words(rows * cols), np.uint64)
        pack_view(view, key)
        row = int(find_row(self.table(), key))
        values, seen = model["values"][row], int(model["visits"][row])
        name = "P" if self.algorithm == 3 else "Q"
        if how == HOW_OFF:
            off = int(np.count_nonzero((mark == M_OFF) & (view == COVERED)))
            return (f"{where}: no frontier cell has a positive {name} in this state (seen {count(seen, 'time')} in "
                    f"training): uniformly at random among the {count(off, 'covered cell')} off the frontier")
        best = values[mark == M_FRONT].max()
        ties = int(np.count_nonzero((mark == M_FRONT) & (values == best)))
        said = f"{where}: of the {count(frontier, 'frontier cell')}, the highest {name} = {num(best)}"
        said += f" (tied with {ties - 1} more, chosen at random)" if ties > 1 else ""
        if self.algorithm == 3:
            said += f": safe in {num(best)} of the {count(seen, 'training visit')} of this state"
        return said

    def knowledge(self, game):
        """The trained values of the state the game shows (P: Algorithm 3's counts of training
        visits where the cell was a safe frontier cell; Q: Algorithm 2's), on its covered
        cells; NaN when training never saw the state. counts: the state's training visits."""
        rows, cols = game.level.rows, game.level.cols
        view = game._gs.shown
        covered = view == COVERED
        if self.trained_shape != (rows, cols):
            return None
        key = np.zeros(key_words(rows * cols), np.uint64)
        pack_view(view, key)
        row = int(find_row(self.table(), key))
        name = "P(s, a), safe-frontier counts" if self.algorithm == 3 else "Q(s, a)"
        if row < 0:
            values, seen, label = np.full(rows * cols, np.nan), 0, f"{self.name}: {name}: state never seen in training"
        else:
            seen = int(self.model()["visits"][row])
            values = np.where(covered, self.model()["values"][row], np.nan)
            label = f"{self.name}: {name} of this state (seen {count(seen, 'time')} in training)"
        lo, hi = value_range(values, default=(0.0, 1.0))
        return cell_values(values, np.where(covered, seen, 0), (rows, cols), label, min(lo, 0.0), hi, "good")

    # --- play --------------------------------------------------------------------
    def _play(self, model, gs, n_games, deal_rng, out):
        rows, cols = int(gs.spec[SP_ROWS]), int(gs.spec[SP_COLS])
        state = QPlayBatch(self.table(), self.config(rows, cols), self.work(rows * cols),
                           np.zeros(len(Q_EXTRA), np.int64))
        play_games(gs, n_games, deal_rng, self.rng, state, out)

    def _decide(self, model, view, rng) -> int:
        rows, cols = self.trained_shape
        nbr, nbr_count = _tables(rows, cols)  # the engine's shared read-only tables: the batch's types
        return int(q_decide(self.table(), self.config(rows, cols), view, nbr, nbr_count, self.work(rows * cols), rng))


__all__ = ["GardeaQAgent", "q_decide", "QTrainBatch", "algorithm3_credit", "mark_frontier",
           "frozen_table", "ALGORITHMS", "UNSEEN_RULES", "EMPTY_RULES", "DEFAULT_ETA"]
