"""The policies: which (target, window) action a decision takes (paper §IV-B).

* greedy: the most certain action (largest |Q|, ties to the larger N, then to scan
  order), read from the per-target bests the caches keep;
* epsilon-greedy: with probability epsilon a uniformly random (target, window) pair,
  acted on by the sign of its Q (without flags: only if it looks safe), else greedy;
* UCB, over all decisions t of all games: unseen actions first (as clicks), then the
  score Q +/- c sqrt(ln t / N), recomputed each decision (`ucb_scores`).

Q < 0 reveals the target, Q >= 0 flags it. The choice itself is made in
`play.bandit_step` (one function, for speed) with these kernels: `ucb_scores`,
`random_action`, `pick_target`. `lowest_window` serves the flags > mines rule of
`play.place_flag`.
"""
from __future__ import annotations

import numpy as np

from ...cells import COVERED
from ...engine import kernel, uniform_below
from .caches import action_key, better
from .config import MODE_STATE_ACTION, UCB_CERTAINTY, pairs_rule
from .keys import board_code
from .table import TM_T, action_value, table_find


@kernel
def ucb_scores(view, ws, tb, cfg):
    """Fill the per-target best with UCB scores (they move with t, so no caching)."""
    n = view.shape[0]
    ring_cell = ws.ring_cell
    mode = cfg.mode
    logt = np.log(max(tb.meta[TM_T], 1))
    c = cfg.c
    pairs = pairs_rule(cfg)
    kmax = 1 if mode == MODE_STATE_ACTION else 8
    for t in range(n):
        if view[t] != COVERED:
            ws.best_cert[t] = -1.0
            continue
        best_abs = -1.0
        best_v = 0.0
        best_n = np.int64(-1)
        best_k = np.int64(-1)
        for k in range(kmax):
            if mode != MODE_STATE_ACTION and ring_cell[t, k] < 0:
                continue
            q, nn = action_value(tb, ws.action_slots[8 * t + k])
            if nn == 0:
                v = -1.0
                av = np.inf  # unseen actions are tried first, as clicks
            else:
                bonus = c * np.sqrt(logt / nn)
                if cfg.ucb_bonus == UCB_CERTAINTY:
                    v = q + np.sign(q) * bonus
                else:
                    v = q - bonus
                av = abs(v)
            if better(v, av, nn, best_v, best_abs, best_n, pairs):
                best_abs = av
                best_v = v
                best_n = nn
                best_k = k
        ws.best_value[t] = best_v
        ws.best_cert[t] = best_abs
        ws.best_n[t] = best_n
        ws.best_k[t] = best_k


@kernel
def pick_target(ws, n, flags):
    """The target to act on from the per-target bests; -1 if there is none.

    With flags: the most certain (largest |value|, then N, then scan order). Without:
    tiles whose best value says "mine" are avoided; if every tile is avoided, the one
    with the lowest value is revealed. (Under the "pairs" rule a tile's best is its
    most certain safe-looking action, so only tiles with none are avoided.)
    """
    value = ws.best_value
    cert = ws.best_cert
    cnt = ws.best_n
    best = -1
    for t in range(n):
        if cert[t] < 0 or (not flags and value[t] >= 0):
            continue
        if best < 0 or cert[t] > cert[best] or (cert[t] == cert[best] and cnt[t] > cnt[best]):
            best = t
    if best >= 0 or flags:
        return best
    for t in range(n):
        if cert[t] < 0:
            continue
        if best < 0 or value[t] < value[best] or (value[t] == value[best] and cnt[t] > cnt[best]):
            best = t
    return best


@kernel
def random_action(view, ws, rng):
    """A uniformly random (target, window) pair: returns 8 t + k, or -1."""
    ring_cell = ws.ring_cell
    total = 0
    for t in range(view.shape[0]):
        if view[t] == COVERED:
            for k in range(8):
                if ring_cell[t, k] >= 0:
                    total += 1
    if total == 0:
        return -1
    pick = uniform_below(rng, total)
    for t in range(view.shape[0]):
        if view[t] == COVERED:
            for k in range(8):
                if ring_cell[t, k] >= 0:
                    if pick == 0:
                        return 8 * t + k
                    pick -= 1
    return -1


@kernel
def lowest_window(view, ws, tb, t, sym, mode):
    """(lowest Q over tile t's windows, that window's key), t judged as if covered."""
    n = view.shape[0]
    code = board_code(view, n) if mode == MODE_STATE_ACTION else 0
    kmax = 1 if mode == MODE_STATE_ACTION else 8
    low = np.inf
    low_key = np.int64(-1)
    for k in range(kmax):
        if mode != MODE_STATE_ACTION and ws.ring_cell[t, k] < 0:
            continue
        key = action_key(view, ws, t, k, sym, mode, code)
        q, _ = action_value(tb, table_find(tb, key))
        if q < low:
            low = q
            low_key = key
    return low, low_key
