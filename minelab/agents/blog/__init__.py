"""The blog's learning and inference models (antimatroid 2012, "Minesweeper Agent"):
`conditional` (Naive Bayes), `graphical` (3x3 sub-grid MDP) and `semi-deterministic`,
one module each (conditional.py, graphical.py, semi.py; common.py their shared
constants and checks). This package exports every name of the three.

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

from .common import *  # noqa: F401,F403
from .conditional import *  # noqa: F401,F403
from .graphical import *  # noqa: F401,F403
from .semi import *  # noqa: F401,F403
