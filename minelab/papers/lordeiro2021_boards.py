"""Lordeiro, Haddad & Cardoso (2021), Figures 1-6: the board pictures of §II and §IV.

Every position is a real minelab game (`Game.from_mines` on a fixed layout, then the
reveals and flags that reach it) and every window, key and symmetric image comes
from the bandit agent's own helpers (`view_window`, `target_actions`,
`encode_window`, `symmetric_images`), drawn by `minelab.render.draw_board`.
Each function returns a matplotlib Figure; the caller saves it.

    fig01_example_board        Fig 1: 5x5x4, two trivial flags, two deduced-safe tiles
    fig02_framed_windows       Fig 2: the board framed by its out-of-bounds ring, and
                               the 8 actions that target tile (3,2)
    fig03_flag_deduction       Fig 3: a flag at (3,3) makes the *-tiles safe
    fig04_case_mismatch        Fig 4: a diagonal-case window and its clockwise border
                               shift, an impossible cardinal-case window
    fig05_diagonal_symmetries  Fig 5: the 8 images of a diagonal-case action
    fig06_cardinal_symmetries  Fig 6: the 8 images of a cardinal-case action

Coordinates in titles are the paper's (1-based row, column); code uses 0-based.
Window cells outside the board are hatched; keys are printed in hex (one nibble per
cell: 0-8, 9 covered, a flagged, b outside; then the centre and the case field).
Fig 3 differs from the paper: its (2,3) and (3,2) read 1 there, which no layout
allows next to the 1s at (1,3) and (3,1); here they read 2.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..agents.bandit import (
    DIRECTION_NAMES,
    RING,
    S_COVERED,
    S_FLAGGED,
    S_OUTSIDE,
    STATE_NAMES,
    encode_window,
    symmetric_images,
    target_actions,
    view_window,
    window_case,
)
from ..cells import COVERED, FLAGGED
from ..engine import Game
from ..render import OFFBOARD_FILL, OFFBOARD_LINE, draw_board

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# The paper's order of the 8 actions of Fig 2, and of the images in Figs 5-6
# (symmetric_images turns counter-clockwise; the paper's rows turn clockwise).
FIG2_ORDER = ("S", "SE", "E", "NE", "N", "NW", "W", "SW")
CLOCKWISE = (0, 3, 2, 1, 4, 7, 6, 5)
IMAGE_LABELS = ("as played", "90° cw", "180°", "270° cw")


# ------------------------------------------------------------------ positions
# (shape, mines, moves), 0-based; a move is ("reveal" | "flag", row, col).
POSITIONS = {
    # Fig 1: mines (1,1), (1,3), (2,1), (2,5); one click floods the bottom, then the two flags
    1: ((5, 5), ((0, 0), (0, 2), (1, 0), (1, 4)), (("reveal", 4, 0), ("flag", 1, 0), ("flag", 1, 4))),
    # Fig 2: mines (1,4), (3,2), (3,3), (4,1); clicks on (1,1) (floods) and (3,1)
    2: ((5, 5), ((0, 3), (2, 1), (2, 2), (3, 0)), (("reveal", 0, 0), ("reveal", 2, 0))),
    # Fig 3: mines (2,4), (3,3), (4,1); click (1,1) (floods the top-left), click (4,4), flag (3,3)
    3: ((5, 5), ((1, 3), (2, 2), (3, 0)), (("reveal", 0, 0), ("reveal", 3, 3), ("flag", 2, 2))),
    # Fig 4 (left window): 3x4, mines (2,3), (1,4); one click floods the two left columns
    4: ((3, 4), ((1, 2), (0, 3)), (("reveal", 0, 0),)),
}
FIG1_SAFE = ((0, 3), (0, 4))
FIG2_TARGET = (2, 1)
FIG3_SAFE = ((2, 3), (2, 4), (3, 2), (3, 4), (4, 2), (4, 3), (4, 4))
FIG3_FLAG_WINDOW = (1, 1)  # the 1 at (2,2): its only covered neighbour is (3,3)


def layout(fig: int) -> np.ndarray:
    """The 0/1 mine layout of the position of paper figure `fig` (1-4)."""
    shape, mines, _ = POSITIONS[fig]
    out = np.zeros(shape, np.uint8)
    out[tuple(np.transpose(mines))] = 1
    return out


def position(fig: int) -> Game:
    """The real game of paper figure `fig` (1-4), after its moves."""
    game = Game.from_mines(layout(fig))
    for kind, r, c in POSITIONS[fig][2]:
        getattr(game, kind)(r, c)
    return game


# ------------------------------------------------------------------ drawing helpers
def action_tuple(window, direction: str) -> str:
    """The paper's notation: window cells row by row ('C' covered, 'F' flag, '-1' outside), then the direction."""
    cells = ["-1" if s == S_OUTSIDE else STATE_NAMES[s] for s in np.asarray(window).ravel()]
    return "(" + ",".join(cells + [direction]) + ")"


def window_view(window) -> np.ndarray:
    """Window states 0-11 as a view: numbers, COVERED, FLAGGED (outside cells read COVERED;
    draw_window hatches them)."""
    w = np.asarray(window)
    return np.where(w <= 8, w, np.where(w == S_FLAGGED, FLAGGED, COVERED)).astype(np.int8)


def _figure(size) -> Figure:
    from matplotlib.figure import Figure  # lazily, as render.py does: no pyplot, no global state

    return Figure(figsize=size)


def draw_window(ax, window, target, title=None):
    """Draw a 3x3 window (states 0-11) on `ax`, its target highlighted, outside cells hatched."""
    from matplotlib.patches import Rectangle

    draw_board(window_view(window), ax, highlight=[target], frame=(0, 0, 2, 2), title=title)
    for r, c in np.argwhere(np.asarray(window) == S_OUTSIDE):  # render.py's off-board style
        ax.add_patch(Rectangle((c, r), 1, 1, facecolor=OFFBOARD_FILL, edgecolor=OFFBOARD_LINE, hatch="///",
                               linestyle="--", linewidth=0.6, zorder=6))
    return ax


def _mark(ax, cells, text):
    for r, c in cells:
        ax.text(c + 0.5, r + 0.56, text, ha="center", va="center", fontsize=14, fontweight="bold", zorder=9)


def _paper(rc) -> str:
    return f"({rc[0] + 1},{rc[1] + 1})"


# ------------------------------------------------------------------ figures
def fig01_example_board() -> Figure:
    """Fig 1: flags beside the 1s are trivial; the 3 at (2,2) puts the last two mines in
    the three leftmost tiles of row 1, so its last two tiles (highlighted) are safe."""
    fig = _figure((3.4, 3.8))
    ax = fig.add_axes([0.05, 0.03, 0.9, 0.8])
    draw_board(position(1).view, ax, highlight=FIG1_SAFE)
    ax.set_title("5x5, 4 mines: (1,4) and (1,5) are safe", fontsize=10)
    return fig


def fig02_framed_windows() -> Figure:
    """Fig 2: the framed board (hatched out-of-bounds ring), target (3,2) highlighted, and
    the 8 actions that target it (window centred on each neighbour), in the paper's order."""
    view = position(2).view
    rows, cols = view.shape
    actions = {a["direction"]: a for a in target_actions(view, FIG2_TARGET)}
    fig = _figure((13, 5.2))
    gs = fig.add_gridspec(2, 6, left=0.01, right=0.99, bottom=0.02, top=0.86, wspace=0.15, hspace=0.35)
    ax = fig.add_subplot(gs[:, :2])
    draw_board(view, ax, highlight=[FIG2_TARGET], frame=(-1, -1, rows, cols))
    ax.set_title(f"framed 5x5 board, target {_paper(FIG2_TARGET)}", fontsize=10)
    for i, name in enumerate(FIG2_ORDER):
        a = actions[name]
        dr, dc = RING[DIRECTION_NAMES.index(name)]
        wax = fig.add_subplot(gs[i // 4, 2 + i % 4])
        draw_window(wax, a["window"], (1 + dr, 1 + dc))
        wax.set_title(f"centre {_paper(a['centre'])}\n{action_tuple(a['window'], name)}", fontsize=8)
    fig.suptitle("Fig 2: the 8 actions that target tile (3,2); S and SE show it is a mine", fontsize=11)
    return fig


def fig03_flag_deduction() -> Figure:
    """Fig 3: the flag at (3,3), placed from the window of the 1 at (2,2) (framed), leaves
    the 1 at (4,4) no other mine: the *-tiles are safe."""
    fig = _figure((3.4, 3.8))
    ax = fig.add_axes([0.05, 0.03, 0.9, 0.8])
    r, c = FIG3_FLAG_WINDOW
    draw_board(position(3).view, ax, highlight=FIG3_SAFE, frame=(r - 1, c - 1, r + 1, c + 1))
    _mark(ax, FIG3_SAFE, "*")
    ax.set_title("flag at (3,3): the * tiles are safe", fontsize=10)
    return fig


def shift_border(window, target, steps: int = 1):
    """The window with its 8 border cells (and the target) moved `steps` places clockwise."""
    w = np.asarray(window)
    ring = [w[1 + dr, 1 + dc] for dr, dc in RING]
    out = w.copy()
    for i, (dr, dc) in enumerate(RING):
        out[1 + dr, 1 + dc] = ring[(i - steps) % 8]
    d = (RING.index((target[0] - 1, target[1] - 1)) + steps) % 8
    return out, (1 + RING[d][0], 1 + RING[d][1])


def impossible(window) -> bool:
    """A revealed 0 that touches a covered or flagged cell inside the window."""
    w = np.asarray(window)
    for r, c in np.argwhere(w == 0):
        near = w[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2]
        if ((near == S_COVERED) | (near == S_FLAGGED)).any():
            return True
    return False


def fig04_case_mismatch() -> Figure:
    """Fig 4: a diagonal-case window (target top-right) from a real game, and the window
    its border makes shifted clockwise by one: cardinal case, and impossible."""
    left = view_window(position(4).view, (1, 1)), (0, 2)
    right = shift_border(*left)
    fig = _figure((5.6, 3.2))
    for i, (w, t) in enumerate((left, right)):
        ax = fig.add_axes([0.04 + 0.5 * i, 0.04, 0.42, 0.62])
        key = encode_window(w, t)
        note = "impossible: a 0 touches a covered tile" if impossible(w) else "seen in a real game"
        draw_window(ax, w, t)
        ax.set_title(f"{window_case(key)} case, key {key:#x}\n{note}", fontsize=8)
    fig.suptitle("Fig 4: shifting the border clockwise changes the case", fontsize=10)
    return fig


def _symmetry_figure(window, target, title) -> Figure:
    images = symmetric_images(window, target)
    fig = _figure((9, 5.4))
    axes = fig.subplots(2, 4, gridspec_kw=dict(left=0.02, right=0.98, bottom=0.02, top=0.82, hspace=0.45))
    for k, ax in zip(CLOCKWISE, axes.ravel()):
        w, t = images[k]
        pos = CLOCKWISE.index(k)
        label = IMAGE_LABELS[pos % 4] + (", mirrored" if pos >= 4 else "")
        draw_window(ax, w, t)
        ax.set_title(f"{label}\nkey {encode_window(w, t):#x}", fontsize=8)
    fig.suptitle(f"{title}: rotations (top), their mirrors through the target axis (bottom)\n"
                 f"all 8 images share the key {encode_window(window, target):#x}", fontsize=10)
    return fig


def fig05_diagonal_symmetries() -> Figure:
    """Fig 5: the SE action of Fig 2 (window of the 1 at (2,1), target (3,2)) and its 8 images."""
    return _symmetry_figure(view_window(position(2).view, (1, 0)), (2, 2), "Fig 5, diagonal case")


def fig06_cardinal_symmetries() -> Figure:
    """Fig 6: the S action of Fig 2 (window of the 2 at (2,2), target (3,2)) and its 8 images."""
    return _symmetry_figure(view_window(position(2).view, (1, 1)), (2, 1), "Fig 6, cardinal case")


FIGURES = {
    "fig01_example_board": fig01_example_board,
    "fig02_framed_windows": fig02_framed_windows,
    "fig03_flag_deduction": fig03_flag_deduction,
    "fig04_case_mismatch": fig04_case_mismatch,
    "fig05_diagonal_symmetries": fig05_diagonal_symmetries,
    "fig06_cardinal_symmetries": fig06_cardinal_symmetries,
}


def drawing(make):
    """One of the drawing functions above as a `PaperResult` named after it (a figure, no
    table, no measured numbers), so the notebook saves it with `report.publish` like any
    other result:

        publish(drawing(fig01_example_board), PAPER, NOTEBOOK, profile)
    """
    from ..provenance import function_token
    from ..report import PaperResult

    name = getattr(make, "__name__", "")
    if FIGURES.get(name) is not make:
        raise ValueError(f"drawing needs one of {', '.join(FIGURES)}, got {make!r}")
    return PaperResult(name, make(), None, maker=function_token(make))
