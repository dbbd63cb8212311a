"""Multi-armed bandit agents for Minesweeper (Lordeiro, Haddad & Cardoso 2021).

The model, top to bottom:

* **Actions** (paper §IV-A). For every covered, unflagged *target* tile and every
  on-board neighbour of it, one action: the 3x3 window centred on that neighbour, with
  the target on the window's border. Window cells take one of 12 states: 0-8, covered,
  flagged, outside the board. A tile is judged by its single most certain window.
* **Keys** (§IV-C, `keys`). The 8 border cells are packed clockwise into a 32-bit
  *ring* word (4 bits a cell), so a quarter turn of the window is a rotation of the word
  by 8 bits and a mirror is the reversed word rotated. With symmetries on, the window is
  turned so the target sits at the top-left corner (diagonal case) or the top edge
  (cardinal case), and the smaller of it and its mirror through the target is kept:
  the 8 images of the square share a key, and the case bit keeps the two cases apart.
  key = ring << 8 | centre << 4 | field, field = case (0/1) with symmetries, 8 | d
  (the target's ring position) without. The target's own cell always reads "covered".
* **Values** (§IV-B, `table`). Reward +1 for a mine, -1 for a safe reveal: Q(a) is the
  mean reward (kept as integer counts, so Q = 2 P(mine) - 1 exactly and a "perfect"
  action, Q = -1 or +1, is one whose every outcome agreed). Unseen actions are valued -1
  ("certainly safe", optimistic). Greedy picks the most certain action, largest |Q|,
  ties to the larger N, then to scan order; Q < 0 reveals the target, Q >= 0 flags it.
  A flag is learned only at game end, unless a new flag would make flags > mines: then
  the flagged tile whose lowest window value is smallest is unflagged and revealed,
  and that reveal is learned at once. At game end every flag of the game is learned
  with the truth, and so are the actions of the last decision (`play`).
* **Policies** (`policies`): greedy; epsilon-greedy (a uniformly random (target,
  window) pair with probability epsilon, acted on by the sign of its Q); UCB over all
  decisions t of all games, unseen actions first (as clicks), score Q +/- c sqrt(ln t / N).
* **State-action agent** (Table II): the same learner keyed by the whole visible board
  and the target (boards of at most 16 cells, so a key fits in an int64).

Where the paper's text and the authors' published program differ, both are named
options and the program's behaviour is the default, because the program produced the
published numbers:

  first_move   "first-zero" (program): mines anywhere (use a `none`-rule level); the
               program clicks, for the agent, the first zero cell in a column-major
               scan, which the agent neither chooses nor learns. "agent" (text): the
               agent makes its first click itself (with the level's rule, e.g. `safe`).
               "first-zero-only" (a reading of the program, not its known behaviour;
               Table II variants): as "first-zero", but a board without a zero cell
               gets no opening click at all (the program's scan finds nothing to
               click) and the agent makes its first decision on the covered board,
               which may hit a mine. "first-zero" clicks the first safe cell of the
               scan instead (minelab's choice: what the program does then is not known).
  end_learning "last-all" (program): every (covered tile, window) pair of the last
               decision's board, the chosen one included (so it counts twice).
               "last-passed-over" (text): the pairs passed over at that decision only.
  ucb_bonus    "certainty" (program): Q + sign(Q) c sqrt(ln t/N), pushing |Q| away from 0.
               "optimism" (textbook UCB for this reward): Q - c sqrt(ln t/N).

The flags-off ablation ("just avoided risky tiles instead of explicitly flagging them")
is described in detail neither by the text nor in what is known of the authors' program;
two readings,
`no_flags_rule`:
  "pairs"  only the mine-looking (target, window) pairs are skipped: the most certain of
           the safe-looking pairs is revealed, even if another window of its tile is
           surely a mine (default: it reproduces the paper's "below 12%"; inferred from
           that match, not from the program).
  "tiles"  a tile whose most certain window says "mine" is never revealed (a stronger
           agent: about twice the win rate).

Speed. The authors' Python played ~25 beginner games/s, two thirds of it building keys.
Here a game's windows are cached per cell and only the windows a move changed are
rebuilt (`caches`); the key table is open addressing over numpy arrays (`table`). A
kernel never allocates: the table grows in Python between games.

The modules, in reading order: `keys` (window keys), `table` (the key table), `config`
(options, and the settings the kernels take), `caches` (the work state and its
incremental caches), `policies` (choosing an action), `play` (a decision, learning,
batches), `agents` (the registered agents), `windows` (keys as data, for tests and
figures).
"""
from __future__ import annotations

from .agents import (
    BanditAgent,
    EpsilonGreedyBandit,
    GreedyBandit,
    StateActionGreedy,
    UCBBandit,
)
from .caches import BanditWork, new_bandit_work
from .config import (
    END_LEARNING,
    FIRST_MOVES,
    MODE_STATE_ACTION,
    MODE_WINDOW,
    NO_FLAGS_RULES,
    POLICIES,
    UCB_BONUS,
    BanditConfig,
)
from .keys import (
    DIRECTION_NAMES,
    RING,
    S_COVERED,
    S_FLAGGED,
    S_OUTSIDE,
    SA_MAX_CELLS,
    STATE_NAMES,
)
from .table import INSERTS_PER_CELL, TM_T, KeyTable, TableArrays
from .windows import (
    decode_key,
    encode_window,
    symmetric_images,
    target_actions,
    view_window,
    window_case,
)

__all__ = [
    "DIRECTION_NAMES",
    "END_LEARNING",
    "FIRST_MOVES",
    "INSERTS_PER_CELL",
    "MODE_STATE_ACTION",
    "MODE_WINDOW",
    "NO_FLAGS_RULES",
    "POLICIES",
    "RING",
    "SA_MAX_CELLS",
    "STATE_NAMES",
    "S_COVERED",
    "S_FLAGGED",
    "S_OUTSIDE",
    "TM_T",
    "UCB_BONUS",
    "BanditAgent",
    "BanditConfig",
    "BanditWork",
    "EpsilonGreedyBandit",
    "GreedyBandit",
    "KeyTable",
    "StateActionGreedy",
    "TableArrays",
    "UCBBandit",
    "decode_key",
    "encode_window",
    "new_bandit_work",
    "symmetric_images",
    "target_actions",
    "view_window",
    "window_case",
]
