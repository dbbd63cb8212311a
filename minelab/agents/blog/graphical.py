"""The blog's Graphical model: an MDP over 3x3 sub-grids (see minelab.agents.blog)."""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cells import REVEAL
from ...engine import (
    SP_COLS,
    SP_ROWS,
    Move,
    kernel,
    random_covered_cell,
    uniform_below,
)
from ..base import Agent, cell_to_move, register
from ..batch import extra_index, hook, hooks, play_games
from ..rl.table import SM_ROWS, StateArrays, StateTable, find_row, insert_row, table_room
from ..saved import memory_arrays, memory_from, memory_name
from ..spec import Spec, choice, integer, number
from ..why import at, count, num
from .common import (
    BACKUP_EXPECT,
    BACKUP_PATH,
    BACKUPS,
    MAX_DEPTH,
    OUT_CONTINUE,
    OUT_SUCCESS,
    REWARD_FAILURE,
    REWARD_STEP,
    REWARD_SUCCESS,
    SUB,
)

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


#: the record column graphical adds: the sub-grid states stored after each game
GRAPH_EXTRA = ("states",)
_X_STATES = extra_index(GRAPH_EXTRA, "states")


class GraphBatch(NamedTuple):
    """graphical's batch state (minelab.agents.batch): its memory, settings and work arrays.
    A batch stops before a game when the memory must grow (`graph_room`)."""

    ga: GraphArrays
    cfg: GraphConfig
    work: GraphWork
    extra: np.ndarray  # int64[len(GRAPH_EXTRA)]


@hook
def _graph_room(state, gs):
    return graph_room(state.ga, state.work)


@hook
def _graph_begin(state, gs):
    state.work.meta[GW_N] = 0


@hook
def _graph_move(state, gs, rng, deal_rng):
    view = gs.shown
    rows, cols = gs.spec[SP_ROWS], gs.spec[SP_COLS]
    cell = graph_decide(view, rows, cols, state.ga, state.cfg, state.work, rng)
    graph_note_before(view, rows, cols, cell, state.work)
    return REVEAL, cell


@hook
def _graph_after(state, gs, rng, cell, got):
    graph_note_after(gs.shown, gs.spec[SP_COLS], got < 0, state.work)


@hook
def _graph_end(state, gs):
    graph_learn(state.ga, state.cfg, state.work, gs.mine, gs.spec[SP_COLS])
    state.extra[_X_STATES] = state.ga.tb.meta[SM_ROWS]


hooks(GraphBatch, _graph_move, room_fn=_graph_room, begin_fn=_graph_begin, after_fn=_graph_after,
      end_fn=_graph_end)


def new_graph_work(cells: int) -> GraphWork:
    p = SUB * SUB * (cells + 1)
    return GraphWork(np.zeros(p, np.uint64), np.zeros(p, np.uint64), np.zeros(p, np.int32), np.zeros(p, np.int8),
                     np.zeros(p, np.uint8), np.zeros(2, np.int64), np.zeros(1, np.uint64), np.zeros(cells, np.int32),
                     np.zeros(cells, np.uint8))


def _grown(a: np.ndarray, size: int, fill) -> np.ndarray:
    out = np.full((size,) + a.shape[1:], fill, a.dtype)
    out[: a.shape[0]] = a
    return out


#: What a file keeps of a GraphMemory (minelab.agents.saved), field: (dtype, shape), "states"
#: the states stored and "edges" the edges used: each state's key (table.row_keys[:, 0]),
#: n(s, a) (table.visits) and the arrays beside them, the edges, and meta. Not kept: the
#: table's q (unused: zero), the scratch (stack, frames), the settle queue (dirty,
#: dirty_next, queue_head: empty between games) and the map of states, rebuilt from the keys.
GRAPH_SAVED = {
    "row_keys": (np.uint64, ("states",)),
    "visits": (np.int32, ("states", SUB * SUB)),
    "n_fail": (np.int32, ("states", SUB * SUB)),
    "n_succ": (np.int32, ("states", SUB * SUB)),
    "head": (np.int32, ("states", SUB * SUB)),
    "rev_head": (np.int32, ("states",)),
    "memo_val": (np.float64, ("states",)),
    "memo_q": (np.float64, ("states", SUB * SUB)),
    "memo_depth": (np.int8, ("states",)),
    "memo_ok": (np.uint8, ("states",)),
    "n_covered": (np.int8, ("states",)),
    "act_sum": (np.float64, ("states", SUB * SUB)),
    "edge_from": (np.int32, ("edges",)),
    "edge_to": (np.int32, ("edges",)),
    "edge_next": (np.int32, ("edges",)),
    "rev_next": (np.int32, ("edges",)),
    "edge_count": (np.int32, ("edges",)),
    "edge_kind": (np.int8, ("edges",)),
    "edge_action": (np.int8, ("edges",)),
    "edge_val": (np.float64, ("edges",)),
    "meta": (np.int64, (2,)),
}


def _check_graph(f: dict, n: int, m: int, name) -> None:
    """ValueError naming the field (`name(field)`: its member) unless the saved memory `f`
    of n states and m edges holds together: distinct keys, each state's covered count that
    of its key, edges between stored states and each list of edges (from a state and
    action, into a state) ending: an edge links only to an earlier one, as `_add_edge`
    builds them."""
    def bad(field, why):
        return ValueError(f"memory field {name(field)}: {why}")

    keys = f["row_keys"]
    if np.unique(keys).shape[0] != n:
        raise bad("row_keys", "a state stored twice")
    covered = ((keys[:, None] >> (np.uint64(4) * np.arange(SUB * SUB, dtype=np.uint64))) & NIBBLE) == 0
    if not np.array_equal(f["n_covered"], covered.sum(axis=1)):
        raise bad("n_covered", "not the covered cells of the states' keys")
    if f["meta"][GM_EDGES] != m or f["meta"][GM_GAMES] < 0:
        raise bad("meta", f"{f['meta'].tolist()}: not [{m} edges, games learnt]")
    earlier = np.arange(m)
    checks = [("head", -1, m), ("rev_head", -1, m), ("edge_from", 0, n), ("edge_to", 0, n),
              ("edge_next", -1, earlier), ("rev_next", -1, earlier), ("edge_kind", 0, 2), ("edge_action", 0, SUB * SUB)]
    for field, low, high in checks:
        a = f[field]
        if a.size and not (np.all(a >= low) and np.all(a < high)):
            want = "-1 or an earlier edge" if field in ("edge_next", "rev_next") else f"in [{low}, {high})"
            raise bad(field, f"a value not {want}")


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
        self._fit(self.edges + transitions)

    def _fit(self, edges: int) -> None:
        """The arrays beside the table grown to its rows, the edges' to hold `edges`."""
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
        if edges > self.edge_to.shape[0]:
            size = self.edge_to.shape[0]
            while size < edges:
                size += size // 2
            for name in ("edge_from", "edge_to", "edge_next", "rev_next", "edge_count", "edge_kind", "edge_action",
                         "edge_val"):
                setattr(self, name, _grown(getattr(self, name), size, 0))

    def saved(self) -> dict[str, np.ndarray]:
        """The fields of GRAPH_SAVED: the states and edges stored (minelab.agents.saved)."""
        n, m = len(self), self.edges
        out = {"row_keys": self.table.row_keys[:n, 0], "visits": self.table.visits[:n], "meta": self.meta}
        for name, (_, dims) in GRAPH_SAVED.items():
            if name not in out:
                out[name] = getattr(self, name)[: {"states": n, "edges": m}[dims[0]]]
        return out

    @classmethod
    def restored(cls, f: dict, shape: tuple[int, int]) -> "GraphMemory":
        """The memory `saved` wrote (`f`: its fields, of GRAPH_SAVED's dtypes and shapes),
        with room as a memory grown to hold it has. The values are checked first (ValueError
        naming the field): no kernel reads outside the arrays or walks a list forever."""
        n, m = f["row_keys"].shape[0], f["edge_to"].shape[0]
        _check_graph(f, n, m, lambda field: memory_name(shape, field))
        mem = cls()
        mem.table.put_rows(f["row_keys"].reshape(n, 1), f["visits"])
        mem._fit(m)
        for name, (_, dims) in GRAPH_SAVED.items():
            if name not in ("row_keys", "visits"):
                getattr(mem, name)[: {"states": n, "edges": m}.get(dims[0], dims[0])] = f[name]
        return mem

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


@dataclass(frozen=True)
class GraphicalParams(Spec):
    """graphical's parameters."""

    depth: int = integer(MAX_DEPTH, 1, MAX_DEPTH, doc="steps of the sub-grid game searched (9: all of it)")
    backup: str = choice("expectation", BACKUPS, doc="expectation, or path: the printed recursion")
    unseen: float = number(0.0, REWARD_FAILURE, REWARD_SUCCESS * MAX_DEPTH, doc="the value of an action never tried")


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
    extra_fields = GRAPH_EXTRA

    Params = GraphicalParams

    def __init__(self, seed=None, **params):
        super().__init__(seed)
        self._set_params(params)
        self._memory: dict[tuple[int, int], GraphMemory] = {}
        self._batch_work: dict[int, GraphWork] = {}
        self._game_work = weakref.WeakKeyDictionary()

    @property
    def config(self) -> GraphConfig:
        return GraphConfig(self.depth, BACKUPS.index(self.backup), self.unseen)

    def _saved(self):
        return memory_arrays({shape: mem.saved() for shape, mem in self._memory.items()})

    def _restore(self, arrays, facts):
        memory = memory_from(arrays, facts, lambda rows, cols: GRAPH_SAVED)
        self._memory = {shape: GraphMemory.restored(f, shape) for shape, f in memory.items()}

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
            state = GraphBatch(mem.arrays(), self.config, work, np.zeros(len(GRAPH_EXTRA), np.int64))
            done += play_games(gs, n_games - done, deal_rng, self.rng, state, out[done:])
            del state  # it holds the memory's arrays: the next reserve grows them with no second owner
            if done >= n_games:
                break

