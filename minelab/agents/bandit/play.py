"""Playing and learning: one decision of the agent (`bandit_step`) and the hooks of batch
play (`BanditBatch`, played by `minelab.agents.batch.play_games`).

Rewards (paper §IV-B): +1 for a mine, -1 for a safe reveal. A reveal is learned at once.
A flag is learned only at game end, unless a new flag would make flags > mines: then
the flagged tile whose lowest window value is smallest is unflagged and revealed, and
that reveal is learned at once. At game end every flag of the game is learned with the
truth, and so are the actions of the last decision (`end_learning`).

The moves a step makes are recorded in the work state (`ws.moves[:ws.counters[WC_NMOVES]]`)
for interactive play, which reports them.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...cells import COVERED, FLAG, FLAGGED, ONGOING, REVEAL, UNFLAG
from ...engine import (
    SP_COLS,
    SP_MINES,
    SP_ROWS,
    ST_CLICKS,
    ST_DEALT,
    ST_FLAGS,
    ST_STATUS,
    deal_first_click,
    flag_cell,
    kernel,
    open_cell,
    random_covered_cell,
    unflag_cell,
)
from ..batch import PLAYED, extra_index, hook, hooks
from .caches import (
    WC_DECISIONS,
    WC_LAST_K,
    WC_LAST_T,
    WC_NFLAGS,
    WC_NMOVES,
    WC_OPENED,
    BanditWork,
    after_learning,
    invalidate,
    sync,
)
from .config import (END_PASSED_OVER, FIRST_ZERO, FIRST_ZERO_ONLY, MODE_STATE_ACTION, P_EGREEDY, P_UCB, BanditConfig,
                     pairs_rule)
from .keys import board_code, state_action_key, window_key, window_words
from .policies import lowest_window, pick_target, random_action, ucb_scores
from .table import TM_PERFECT, TM_SIZE, TM_T, TableArrays, action_value, table_learn, table_room


# ------------------------------------------------------------------ moves
@kernel
def add_move(ws, kind, cell):
    """Record a move of this step."""
    w = ws.counters
    ws.moves[w[WC_NMOVES], 0] = kind
    ws.moves[w[WC_NMOVES], 1] = cell
    w[WC_NMOVES] += 1


@kernel
def click(gs, ws, cell, deal_rng):
    if gs.counters[ST_DEALT] == 0:
        deal_first_click(gs, cell, deal_rng)
    open_cell(gs, cell)
    add_move(ws, REVEAL, cell)


@kernel
def first_zero_click(gs, ws, deal_rng, safe_fallback):
    """The authors' program's opening: the first zero cell in a column-major scan from
    the top-left; not the agent's. A board without a zero: with `safe_fallback` the
    first safe cell of the scan is clicked (first_move "first-zero", minelab's choice),
    without it nothing is (first_move "first-zero-only"). Returns whether it clicked."""
    rows = gs.spec[SP_ROWS]
    cols = gs.spec[SP_COLS]
    if gs.counters[ST_DEALT] == 0:
        deal_first_click(gs, 0, deal_rng)  # first-click rules protect the top-left cell
    mine = gs.mine
    counts = gs.counts
    fallback = -1
    for c in range(cols):
        for r in range(rows):
            i = r * cols + c
            if mine[i] == 0 and gs.shown[i] == COVERED:
                if counts[i] == 0:
                    click(gs, ws, i, deal_rng)
                    return True
                if fallback < 0:
                    fallback = i
    if not safe_fallback:
        return False
    click(gs, ws, fallback, deal_rng)
    return True


# ------------------------------------------------------------------ learning
@kernel
def learn(gs, ws, tb, cfg, key):
    """Reveal-time learning of `key` from the click just made; keeps the caches in step."""
    if cfg.learning == 0:
        return
    lost = gs.counters[ST_STATUS] < 0
    slot = table_learn(tb, key, 1 if lost else -1)
    if gs.counters[ST_STATUS] == ONGOING:
        after_learning(gs.shown, ws, tb, key, slot, cfg.symmetries, cfg.mode, cfg.policy != P_UCB, pairs_rule(cfg))


@kernel
def put_flag(gs, ws, t, key):
    """Flag t and record the action (key) that placed it, to learn at game end."""
    w = ws.counters
    flag_cell(gs, t)
    add_move(ws, FLAG, t)
    ws.flag_keys[w[WC_NFLAGS]] = key
    ws.flag_cells[w[WC_NFLAGS]] = t
    w[WC_NFLAGS] += 1


@kernel
def place_flag(gs, ws, tb, cfg, t, key, deal_rng):
    """Flag t (learned at game end); if that would make flags > mines, reveal instead the
    tile, among the flagged ones and t, whose lowest window value is smallest."""
    view = gs.shown
    if gs.counters[ST_FLAGS] < gs.spec[SP_MINES]:
        put_flag(gs, ws, t, key)
        return
    pick = -1
    pick_key = np.int64(-1)
    low = np.inf
    for i in range(view.shape[0]):
        if i == t or view[i] == FLAGGED:
            v, k = lowest_window(view, ws, tb, i, cfg.symmetries, cfg.mode)
            if v < low:
                low = v
                pick = i
                pick_key = k
    if pick != t:
        put_flag(gs, ws, t, key)
        unflag_cell(gs, pick)
        add_move(ws, UNFLAG, pick)
    click(gs, ws, pick, deal_rng)
    learn(gs, ws, tb, cfg, pick_key)


@kernel
def learn_last_decision(gs, ws, tb, cfg):
    """Every (covered tile, window) pair of the last decision's board, learned with the
    truth; with end_learning "last-passed-over", all but the one chosen."""
    mine = gs.mine
    w = ws.counters
    last = ws.last_view
    n = last.shape[0]
    ring_cell = ws.ring_cell
    skip_chosen = cfg.end_learning == END_PASSED_OVER
    code = board_code(last, n) if cfg.mode == MODE_STATE_ACTION else 0
    for t in range(n):
        if last[t] != COVERED:
            continue
        reward = 1 if mine[t] else -1
        if cfg.mode == MODE_STATE_ACTION:
            if not (skip_chosen and t == w[WC_LAST_T]):
                table_learn(tb, state_action_key(code, last, t, n), reward)
            continue
        for k in range(8):
            c = ring_cell[t, k]
            if c < 0 or (skip_chosen and t == w[WC_LAST_T] and k == w[WC_LAST_K]):
                continue
            ring, rev, centre = window_words(last, ring_cell, c)
            table_learn(tb, window_key(ring, rev, centre, (k + 4) & 7, cfg.symmetries), reward)


@kernel
def end_of_game(gs, ws, tb, cfg):
    """Delayed learning: every flag of the game, and the last decision's actions, with the truth."""
    if cfg.learning == 0:
        return
    w = ws.counters
    mine = gs.mine
    for i in range(w[WC_NFLAGS]):
        table_learn(tb, ws.flag_keys[i], 1 if mine[ws.flag_cells[i]] else -1)
    if w[WC_DECISIONS] > 0:
        learn_last_decision(gs, ws, tb, cfg)


# ------------------------------------------------------------------ one decision, and batches
@kernel
def bandit_step(gs, ws, tb, cfg, deal_rng, agent_rng, incremental):
    """One decision of the agent on game gs (and the end-of-game learning if it ends the
    game). The moves made are in ws.moves[:ws.counters[WC_NMOVES]]. Batch and interactive
    play both run this function; interactive play passes incremental=0 (rebuild all
    caches, since the game may have been changed between steps). ws's per-game records
    (flags, last decision) belong to this one game: the caller starts them at zero per game.

    One function on purpose: this is the per-move path, and a further kernel call that
    takes the whole state (about 250 machine words of arguments), even in a branch
    rarely taken, made every move measurably slower."""
    st = gs.counters
    view = gs.shown
    n = view.shape[0]
    w = ws.counters
    w[WC_NMOVES] = 0
    if st[ST_STATUS] != ONGOING:
        return
    if st[ST_CLICKS] == 0 and (cfg.first_move == FIRST_ZERO or (cfg.first_move == FIRST_ZERO_ONLY
                                                                 and w[WC_OPENED] == 0)):
        # the program's opening, not a decision ("first-zero-only" on a board without a
        # zero: no opening, and this step is the agent's first decision, on a covered board)
        w[WC_OPENED] = 1
        if first_zero_click(gs, ws, deal_rng, cfg.first_move == FIRST_ZERO):
            if st[ST_STATUS] != ONGOING:
                end_of_game(gs, ws, tb, cfg)
            return
    # bring the caches up to date (UCB scores every action anew)
    if not incremental:
        invalidate(ws)
    sync(view, ws, tb, cfg.symmetries, cfg.mode, cfg.policy != P_UCB, pairs_rule(cfg))
    tb.meta[TM_T] += 1
    if cfg.policy == P_UCB:
        ucb_scores(view, ws, tb, cfg)
    # choose the action (t, k): epsilon-greedy's random pair, acted on by the sign of its Q
    # (without flags only if it looks safe), else the most certain
    t = -1
    k = -1
    value = 0.0
    if cfg.policy == P_EGREEDY and agent_rng.random() < cfg.epsilon:
        if cfg.mode == MODE_STATE_ACTION:  # one action per covered tile
            a = random_covered_cell(view, agent_rng)
            a = 8 * a if a >= 0 else -1
        else:
            a = random_action(view, ws, agent_rng)
        if a >= 0:
            value, _ = action_value(tb, ws.action_slots[a])
            if cfg.flags or value < 0:
                t = a // 8
                k = a % 8
    if t < 0:
        t = pick_target(ws, n, cfg.flags != 0)
        if t < 0:  # no tile has a window (a 1x1 board): reveal, nothing to learn
            for i in range(n):
                if view[i] == COVERED:
                    click(gs, ws, i, deal_rng)
                    break
            if st[ST_STATUS] != ONGOING:
                end_of_game(gs, ws, tb, cfg)
            return
        k = ws.best_k[t]
        value = ws.best_value[t]
    # act on it: reveal (learned at once) or flag (learned at game end)
    key = ws.action_keys[8 * t + k]
    for i in range(n):
        ws.last_view[i] = view[i]
    w[WC_DECISIONS] += 1
    w[WC_LAST_T] = t
    w[WC_LAST_K] = k
    if value < 0 or not cfg.flags:
        click(gs, ws, t, deal_rng)
        learn(gs, ws, tb, cfg, key)
    else:
        place_flag(gs, ws, tb, cfg, t, key, deal_rng)
    if st[ST_STATUS] != ONGOING:
        end_of_game(gs, ws, tb, cfg)


#: the record columns the bandits add: the actions recorded and the perfect actions,
#: after each game
BANDIT_EXTRA = ("actions", "perfect")
_X_ACTIONS, _X_PERFECT = (extra_index(BANDIT_EXTRA, f) for f in BANDIT_EXTRA)


class BanditBatch(NamedTuple):
    """The bandits' batch state (minelab.agents.batch): the work arrays, the table and the
    settings. A decision plays its own moves (PLAYED): the program's opening, a reveal
    learned at once, a flag learned at the game's end, or flag + unflag + reveal. A batch
    stops before a game when the table must grow (`table_room`)."""

    ws: BanditWork
    tb: TableArrays
    cfg: BanditConfig
    extra: np.ndarray  # int64[len(BANDIT_EXTRA)]


@hook
def _bandit_room(state, gs):
    return table_room(state.tb, gs.shown.shape[0])


@hook
def _bandit_begin(state, gs):
    invalidate(state.ws)
    state.ws.counters[:] = 0  # this game's records (flags, last decision) start empty


@hook
def _bandit_move(state, gs, rng, deal_rng):
    bandit_step(gs, state.ws, state.tb, state.cfg, deal_rng, rng, 1)
    return np.int64(PLAYED), np.int64(-1)


@hook
def _bandit_end(state, gs):
    state.extra[_X_ACTIONS] = state.tb.meta[TM_SIZE]
    state.extra[_X_PERFECT] = state.tb.meta[TM_PERFECT]


hooks(BanditBatch, _bandit_move, room_fn=_bandit_room, begin_fn=_bandit_begin, end_fn=_bandit_end)
