"""Shared constants: what a view cell can hold, game status codes, move kinds.

Kept in a module of its own so the engine, the renderers and every agent agree on
them without importing each other.
"""

# View cells (int8): numbers 0..8 are revealed counts.
COVERED = -1
FLAGGED = -2
MINE = -3  # only after a loss: every mine is shown

# Game status.
ONGOING = 0
WON = 1
LOST = -1

# Move kinds.
REVEAL = 0
FLAG = 1
UNFLAG = 2
MOVE_NAMES = ("reveal", "flag", "unflag")

# First-click rules, as the engine's kernels see them.
RULE_NONE = 0
RULE_SAFE = 1
RULE_OPENING = 2
RULE_NO_GUESS = 3
RULE_NAMES = ("none", "safe", "opening", "no-guess")
