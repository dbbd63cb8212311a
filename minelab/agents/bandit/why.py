"""Why a bandit agent made its last step (`explain_step`), and what it knows about a
position (`target_values`, the viewer's overlay).

The step (`play.bandit_step`) is one numba function; what it decided is read back from
its work state afterwards: the chosen action (ws.counters[WC_LAST_T], [WC_LAST_K]) and
the target's best action as the step ranked it (ws.best_value / best_n: the step leaves
them as they were at the decision, since the target is no longer a covered tile after
it). Only epsilon-greedy's random pair is not kept there: `before_step` replays the
step's first draws on a copy of the agent's stream (the agent's own stream is not
touched) and reads the pair's value from the table before the step learns it.

`target_values` computes, from the view alone, what the greedy policy ranks each covered
tile by: the value of its most certain window (the agent's own `better` order), with the
agent's own key kernels, so it is right on the current view whatever the caches hold.
"""
from __future__ import annotations

import copy
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ...cells import COVERED, FLAG, REVEAL, UNFLAG
from ...engine import SP_MINES, ST_CLICKS, ST_DEALT, deal_first_click, kernel, random_covered_cell
from ..why import at, count, num, signed
from .caches import WC_DECISIONS, WC_LAST_K, WC_LAST_T, WC_NMOVES, WC_OPENED, better, ring_cells
from .config import FIRST_ZERO, FIRST_ZERO_ONLY, MODE_STATE_ACTION, P_EGREEDY, P_UCB, UCB_CERTAINTY, pairs_rule
from .keys import DIRECTION_NAMES, board_code, state_action_key, window_key, window_words
from .policies import random_action
from .table import TM_T, action_value, table_find


@kernel
def action_key_of(view, ring_cell, t, k, sym, mode):
    """The key of action (t, k) on `view`, built from the view (not from the caches)."""
    n = view.shape[0]
    if mode == MODE_STATE_ACTION:
        return state_action_key(board_code(view, n), view, t, n)
    ring, rev, centre = window_words(view, ring_cell, ring_cell[t, k])
    return window_key(ring, rev, centre, (k + 4) & 7, sym)


@kernel
def target_values(view, ring_cell, tb, sym, mode, pairs, q_out, n_out):
    """q_out[t], n_out[t] = (Q, N) of covered tile t's most certain action (largest |Q|,
    ties to the larger N, then scan order: `caches.better`); an unseen action is (-1, 0).
    NaN and 0 for the other cells (and a tile with no window)."""
    n = view.shape[0]
    code = board_code(view, n) if mode == MODE_STATE_ACTION else 0
    kmax = 1 if mode == MODE_STATE_ACTION else 8
    for t in range(n):
        q_out[t] = np.nan
        n_out[t] = 0
        if view[t] != COVERED:
            continue
        best_abs = -1.0
        best_q = 0.0
        best_n = np.int64(-1)
        for k in range(kmax):
            if mode == MODE_STATE_ACTION:
                key = state_action_key(code, view, t, n)
            else:
                c = ring_cell[t, k]
                if c < 0:
                    continue
                ring, rev, centre = window_words(view, ring_cell, c)
                key = window_key(ring, rev, centre, (k + 4) & 7, sym)
            q, nn = action_value(tb, table_find(tb, key))
            if better(q, abs(q), nn, best_q, best_abs, best_n, pairs):
                best_abs = abs(q)
                best_q = q
                best_n = nn
        if best_n >= 0:
            q_out[t] = best_q
            n_out[t] = best_n


@lru_cache(maxsize=16)
def board_rings(rows: int, cols: int) -> np.ndarray:
    """ring_cells(rows, cols), made once per shape (read-only)."""
    out = ring_cells(rows, cols)
    out.setflags(write=False)
    return out


class Before(NamedTuple):
    """What `explain_step` needs from before the step."""

    opening: bool  # the program's first-zero click, not a decision
    decisions: int  # ws.counters[WC_DECISIONS]
    explored: bool  # epsilon-greedy drew its random branch
    pair: tuple  # (t, k, Q, N) of the random pair drawn, () if none
    used: bool  # the random pair was acted on (with flags, or when it looked safe)


def before_step(agent, game, ws) -> Before:
    """Read before `bandit_step`: whether it opens, and epsilon-greedy's draw (replayed on
    a copy of the agent's stream: the step's first draw is rng.random() < epsilon, then
    the random pair)."""
    cfg = agent.cfg
    gs = game._gs
    opening = _opens(cfg, game, ws)
    decisions = int(ws.counters[WC_DECISIONS])
    if opening or cfg.policy != P_EGREEDY:
        return Before(opening, decisions, False, (), False)
    rng = copy.deepcopy(agent.rng)
    if not rng.random() < cfg.epsilon:
        return Before(opening, decisions, False, (), False)
    view = gs.shown
    if cfg.mode == MODE_STATE_ACTION:
        a = random_covered_cell(view, rng)
        a = 8 * a if a >= 0 else -1
    else:
        a = random_action(view, ws, rng)
    if a < 0:
        return Before(opening, decisions, True, (), False)
    key = action_key_of(view, ws.ring_cell, a // 8, a % 8, cfg.symmetries, cfg.mode)
    q, nn = action_value(agent.keys.arrays(), table_find(agent.keys.arrays(), key))
    return Before(opening, decisions, True, (a // 8, a % 8, float(q), int(nn)), bool(cfg.flags or q < 0))


def _opens(cfg, game, ws) -> bool:
    """Whether the step about to be made is the program's opening click: always its first
    with first_move "first-zero"; with "first-zero-only" only if the board has a zero
    cell (dealt on a copy when not dealt yet, with a copy of the game's stream)."""
    gs = game._gs
    if gs.counters[ST_CLICKS] != 0 or cfg.first_move not in (FIRST_ZERO, FIRST_ZERO_ONLY):
        return False
    if cfg.first_move == FIRST_ZERO:
        return True
    if ws.counters[WC_OPENED]:
        return False
    if not gs.counters[ST_DEALT]:
        twin = copy.deepcopy(game)
        deal_first_click(twin._gs, 0, twin._rng)
        gs = twin._gs
    return bool(((gs.mine == 0) & (gs.counts == 0)).any())


def explain_step(agent, game, ws, before: Before) -> str:
    """Why the step just made (ws.moves[:ws.counters[WC_NMOVES]]) was made."""
    cols = game.level.cols
    w = ws.counters
    moves = ws.moves[: w[WC_NMOVES]]
    if before.opening:
        return (f"the authors' program's opening click {at(moves[0, 1], cols)}, not the agent's choice: the first "
                f"zero cell in a column-major scan (the program reads the layout for it; nothing is learned)")
    if w[WC_DECISIONS] == before.decisions:
        return f"no tile has a window: revealed the first covered cell {at(moves[0, 1], cols)}"
    t, k = int(w[WC_LAST_T]), int(w[WC_LAST_K])
    how, value, q, n = _ranking(agent, ws, before, t, k)
    if agent.mode == MODE_STATE_ACTION:
        action = "the whole-board state with this target"
    else:
        action = f"window centred on {at(ws.ring_cell[t, k], cols)} (target to its {DIRECTION_NAMES[(k + 4) & 7]})"
    name = "score" if how.startswith("UCB") and n > 0 else "Q"
    done, rule = _acted(agent, game, moves, t, value, name)
    unseen = " (never seen: -1)" if n == 0 else ""
    return f"{done}: {how}; {action}, Q = {signed(q)}{unseen} over N = {n} ({rule})"


def _ranking(agent, ws, before, t, k):
    """(how the action was chosen, the value the step acted on, its Q, its N)."""
    cfg = agent.cfg
    if before.used and before.pair[:2] == (t, k):
        _, _, q, n = before.pair
        return f"random exploration (epsilon = {num(cfg.epsilon)}), a uniformly random (target, window) pair", q, q, n
    value, n = float(ws.best_value[t]), int(ws.best_n[t])
    passed = " (the random pair drawn looked like a mine, flags off)" if before.pair and not before.used else ""
    if cfg.policy != P_UCB:
        most = "the most certain safe-looking action (flags off)" if pairs_rule(cfg) else "the most certain action"
        return f"greedy{passed}, {most} (largest |Q|, then larger N)", value, value, n
    if n == 0:
        return "UCB: an action never taken, tried first", value, -1.0, 0
    steps = int(agent.keys.meta[TM_T])
    bonus = cfg.c * np.sqrt(np.log(max(steps, 1)) / n)
    q = value - np.sign(value) * bonus if cfg.ucb_bonus == UCB_CERTAINTY else value + bonus
    sign = "+ sign(Q)" if cfg.ucb_bonus == UCB_CERTAINTY else "-"
    return (f"UCB, the most certain score {signed(value)} = Q {sign} c sqrt(ln t / N) (c = {num(cfg.c)}, "
            f"t = {steps})"), value, q, n


def _acted(agent, game, moves, t, value, name) -> tuple[str, str]:
    """(what was done with target t, the rule that says so: the value's sign, or flags > mines)."""
    cols = game.level.cols
    if not agent.cfg.flags:
        return f"reveal {at(t, cols)}", "flags off: every action reveals"
    if value < 0:
        return f"reveal {at(t, cols)}", f"{name} < 0: reveal"
    kinds = [int(m[0]) for m in moves]
    if UNFLAG not in kinds and FLAG in kinds:
        return f"flag {at(t, cols)}", f"{name} >= 0: flag"
    over = f"{name} >= 0 says flag, but flags would exceed the {count(game._gs.spec[SP_MINES], 'mine')}"
    if UNFLAG in kinds:
        other = at(moves[kinds.index(UNFLAG), 1], cols)
        return (f"flag {at(t, cols)}, unflag and reveal {other}",
                f"{over}: {other} had the smallest lowest window value of the flagged tiles and this one")
    assert kinds == [REVEAL]
    return (f"reveal {at(t, cols)}",
            f"{over}: of the flagged tiles and this one, its lowest window value is the smallest")


def knowledge_of(agent, game):
    """`BanditAgent.knowledge`: (Q, N) of each covered tile's most certain action on the game's view."""
    from ..why import cell_values

    rows, cols = game.level.rows, game.level.cols
    n = rows * cols
    q = np.empty(n)
    nn = np.empty(n, np.int64)
    cfg = agent.cfg
    target_values(game._gs.shown, board_rings(rows, cols), agent.keys.arrays(), cfg.symmetries, cfg.mode,
                  pairs_rule(cfg), q, nn)
    what = "state-action value of each covered tile" if agent.mode == MODE_STATE_ACTION else \
        "Q of each covered tile's most certain window"
    return cell_values(q, nn, (rows, cols), f"{agent.name}: {what} (+1 mine, -1 safe; never seen: -1)", -1.0, 1.0,
                       "mine")
