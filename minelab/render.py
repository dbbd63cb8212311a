"""Static board pictures: inline SVG / HTML (Jupyter) and matplotlib (paper figures).

Pure functions over a *view* array: any 2-d integer array (rows, cols) holding the
view convention of `minelab.cells` (COVERED -1, FLAGGED -2, MINE -3, revealed 0..8).

    board_svg(view, cell=24, highlight=[(r, c), ...], frame=(r0, c0, r1, c1), title=...)
    board_html(view, title=...)        # what Game._repr_html_ shows
    draw_board(view, ax=None, ...)     # a matplotlib Axes, for PNG figures

`highlight` outlines single cells; `frame` outlines an inclusive rectangle of cells
(a 3x3 window, say). The frame may reach past the board edge (r0 < 0, c1 >= cols, ...):
the off-board cells it covers are drawn hatched with a dashed border, so a window at a
corner reads as a window at a corner.

Layering: this module imports numpy and minelab.cells only; matplotlib is imported
lazily inside draw_board.
"""
from __future__ import annotations

from html import escape

import numpy as np

from .cells import COVERED, FLAGGED, MINE

__all__ = ["board_svg", "board_html", "draw_board", "check_view", "NUMBER_COLOURS"]

# Classic Windows number colours.
NUMBER_COLOURS = {
    1: "#0000ff",  # blue
    2: "#008000",  # green
    3: "#ff0000",  # red
    4: "#000080",  # navy
    5: "#800000",  # maroon
    6: "#008080",  # teal
    7: "#000000",  # black
    8: "#808080",  # grey
}
COVERED_FILL = "#c0c0c0"
BEVEL_LIGHT = "#ffffff"
BEVEL_DARK = "#7b7b7b"
REVEALED_FILL = "#e6e6e6"
GRID_LINE = "#a0a0a0"
OFFBOARD_FILL = "#f4f4f4"
OFFBOARD_LINE = "#9a9a9a"
FLAG_RED = "#e00000"
HIGHLIGHT = "#ff8c00"  # dark orange
FRAME = "#1f5fd6"  # blue
FONT = "Tahoma, Verdana, 'DejaVu Sans', Arial, sans-serif"

_VALID = frozenset(range(-3, 9))


# ----------------------------------------------------------------------- validation
def check_view(view) -> np.ndarray:
    """The view as a 2-d integer ndarray; ValueError naming the first bad value otherwise.

        >>> check_view([[0, 1], [-1, -2]]).shape
        (2, 2)
    """
    arr = np.asarray(view)
    if arr.ndim != 2:
        raise ValueError(f"view must be a 2-d array (rows, cols), got {arr.ndim} dimension(s) with shape {arr.shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"view must hold integers, got dtype {arr.dtype}")
    if arr.size == 0:
        raise ValueError(f"view must have at least one cell, got shape {arr.shape}")
    bad = (arr < -3) | (arr > 8)
    if bad.any():
        r, c = (int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"view value {int(arr[r, c])} at ({r}, {c}) is not a cell state: allowed are "
            f"{MINE} (mine), {FLAGGED} (flag), {COVERED} (covered) and 0..8 (revealed)"
        )
    return arr


def _check_cell_size(cell) -> float:
    if isinstance(cell, bool) or not isinstance(cell, (int, float, np.integer, np.floating)) or not cell > 0:
        raise ValueError(f"cell must be a positive number of pixels, got {cell!r}")
    return float(cell)


def _check_highlight(highlight, rows: int, cols: int) -> list[tuple[int, int]]:
    if highlight is None:
        return []
    out = []
    for item in highlight:
        try:
            r, c = item
        except (TypeError, ValueError):
            raise ValueError(f"highlight must hold (row, col) pairs, got {item!r}") from None
        for name, v, hi in (("row", r, rows), ("col", c, cols)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"highlight {name} must be an integer, got {v!r}")
            if not 0 <= v < hi:
                raise ValueError(f"highlight {name} must be in [0, {hi - 1}] on a {rows}x{cols} board, got {v}")
        out.append((int(r), int(c)))
    return out


def _check_frame(frame) -> tuple[int, int, int, int] | None:
    if frame is None:
        return None
    try:
        vals = tuple(frame)
    except TypeError:
        raise ValueError(f"frame must be (r0, c0, r1, c1), got {frame!r}") from None
    if len(vals) != 4 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in vals):
        raise ValueError(f"frame must be four integers (r0, c0, r1, c1), got {frame!r}")
    r0, c0, r1, c1 = (int(v) for v in vals)
    if r0 > r1 or c0 > c1:
        raise ValueError(f"frame must have r0 <= r1 and c0 <= c1 (inclusive corners), got {frame!r}")
    return r0, c0, r1, c1


def _extent(rows, cols, frame):
    """Cell rectangle drawn: the board, grown to hold the frame. (rmin, cmin, rmax, cmax) inclusive."""
    if frame is None:
        return 0, 0, rows - 1, cols - 1
    r0, c0, r1, c1 = frame
    return min(0, r0), min(0, c0), max(rows - 1, r1), max(cols - 1, c1)


def _offboard_cells(rows, cols, frame):
    if frame is None:
        return []
    r0, c0, r1, c1 = frame
    return [
        (r, c)
        for r in range(r0, r1 + 1)
        for c in range(c0, c1 + 1)
        if not (0 <= r < rows and 0 <= c < cols)
    ]


def _hatch_segments(s: float, step: float):
    """45-degree hatch lines clipped to an s x s square at the origin: [(x0, y0, x1, y1)]."""
    segs = []
    d = step
    while d < 2 * s - 1e-9:  # the line x + y = d
        x0, y0 = max(0.0, d - s), min(d, s)
        x1, y1 = min(d, s), max(0.0, d - s)
        segs.append((x0, y0, x1, y1))
        d += step
    return segs


# ----------------------------------------------------------------------------- SVG
def _f(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def board_svg(view, *, cell=24, highlight=None, frame=None, title=None) -> str:
    """The board as an inline SVG string.

    Covered cells raised grey, revealed light with classic number colours, flags as a
    red flag glyph, mines as black discs. `highlight`: iterable of (r, c) board cells,
    outlined in orange. `frame`: (r0, c0, r1, c1) inclusive, drawn as a thick blue
    outline; it may extend beyond the board (off-board cells are drawn hatched).
    `title` is shown above the board (escaped) and as the SVG's <title>.
    Every board cell is one `<rect class="cell" ...>` (off-board ones are class "offboard").
    """
    arr = check_view(view)
    s = _check_cell_size(cell)
    rows, cols = arr.shape
    marks = _check_highlight(highlight, rows, cols)
    fr = _check_frame(frame)
    rmin, cmin, rmax, cmax = _extent(rows, cols, fr)

    pad = max(2.0, s / 8)  # room for the thick frame outline
    title_text = None if title is None else str(title)
    font_title = max(11.0, s * 0.55)
    title_h = font_title * 1.6 if title_text else 0.0
    board_w = (cmax - cmin + 1) * s
    board_h = (rmax - rmin + 1) * s
    width = board_w + 2 * pad
    if title_text:
        width = max(width, len(title_text) * font_title * 0.62 + 2 * pad)
    height = board_h + 2 * pad + title_h
    ox = pad - cmin * s  # x of column 0
    oy = pad + title_h - rmin * s  # y of row 0

    def x(c):
        return ox + c * s

    def y(r):
        return oy + r * s

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="minelab-board" '
        f'width="{_f(width)}" height="{_f(height)}" viewBox="0 0 {_f(width)} {_f(height)}" '
        f'font-family="{escape(FONT)}" role="img">'
    ]
    if title_text:
        t = escape(title_text)
        out.append(f"<title>{t}</title>")
        out.append(
            f'<text class="title" x="{_f(pad)}" y="{_f(pad + font_title)}" '
            f'font-size="{_f(font_title)}" fill="#222">{t}</text>'
        )

    # off-board cells inside the frame: hatched, dashed border
    bevel = max(1.0, s / 10)
    for r, c in _offboard_cells(rows, cols, fr):
        x0, y0 = x(c), y(r)
        out.append(
            f'<rect class="offboard" x="{_f(x0)}" y="{_f(y0)}" width="{_f(s)}" height="{_f(s)}" '
            f'fill="{OFFBOARD_FILL}" stroke="{OFFBOARD_LINE}" stroke-width="1" stroke-dasharray="3,2"/>'
        )
        path = "".join(
            f"M{_f(x0 + a)},{_f(y0 + b)}L{_f(x0 + e)},{_f(y0 + f)}" for a, b, e, f in _hatch_segments(s, s / 4)
        )
        out.append(f'<path d="{path}" stroke="{OFFBOARD_LINE}" stroke-width="0.8" fill="none"/>')

    # board cells
    for r in range(rows):
        for c in range(cols):
            v = int(arr[r, c])
            x0, y0 = x(c), y(r)
            if v == COVERED or v == FLAGGED:
                out.append(
                    f'<rect class="cell covered" x="{_f(x0)}" y="{_f(y0)}" width="{_f(s)}" height="{_f(s)}" '
                    f'fill="{COVERED_FILL}"/>'
                )
                b = bevel
                out.append(  # raised: light top-left, dark bottom-right
                    f'<path d="M{_f(x0)},{_f(y0 + s)}L{_f(x0)},{_f(y0)}L{_f(x0 + s)},{_f(y0)}'
                    f'L{_f(x0 + s - b)},{_f(y0 + b)}L{_f(x0 + b)},{_f(y0 + b)}L{_f(x0 + b)},{_f(y0 + s - b)}Z" '
                    f'fill="{BEVEL_LIGHT}"/>'
                )
                out.append(
                    f'<path d="M{_f(x0 + s)},{_f(y0)}L{_f(x0 + s)},{_f(y0 + s)}L{_f(x0)},{_f(y0 + s)}'
                    f'L{_f(x0 + b)},{_f(y0 + s - b)}L{_f(x0 + s - b)},{_f(y0 + s - b)}L{_f(x0 + s - b)},{_f(y0 + b)}Z" '
                    f'fill="{BEVEL_DARK}"/>'
                )
                if v == FLAGGED:
                    out.append(_svg_flag(x0, y0, s))
            else:
                kind = "mine" if v == MINE else f"n{v}"
                out.append(
                    f'<rect class="cell revealed {kind}" x="{_f(x0)}" y="{_f(y0)}" width="{_f(s)}" height="{_f(s)}" '
                    f'fill="{REVEALED_FILL}" stroke="{GRID_LINE}" stroke-width="0.5"/>'
                )
                if v == MINE:
                    out.append(_svg_mine(x0, y0, s))
                elif v > 0:
                    out.append(
                        f'<text x="{_f(x0 + s / 2)}" y="{_f(y0 + s / 2)}" text-anchor="middle" '
                        f'dominant-baseline="central" font-size="{_f(s * 0.62)}" font-weight="bold" '
                        f'fill="{NUMBER_COLOURS[v]}">{v}</text>'
                    )

    # highlights, then the frame on top
    hw = max(2.0, s / 9)
    for r, c in marks:
        out.append(
            f'<rect class="highlight" x="{_f(x(c) + hw / 2)}" y="{_f(y(r) + hw / 2)}" '
            f'width="{_f(s - hw)}" height="{_f(s - hw)}" fill="none" stroke="{HIGHLIGHT}" stroke-width="{_f(hw)}"/>'
        )
    if fr is not None:
        r0, c0, r1, c1 = fr
        fw = max(2.5, s / 7)
        out.append(
            f'<rect class="frame" x="{_f(x(c0))}" y="{_f(y(r0))}" width="{_f((c1 - c0 + 1) * s)}" '
            f'height="{_f((r1 - r0 + 1) * s)}" fill="none" stroke="{FRAME}" stroke-width="{_f(fw)}"/>'
        )
    out.append("</svg>")
    return "".join(out)


def _svg_flag(x0, y0, s):
    px = x0 + s * 0.56  # pole
    return (
        f'<g class="flag">'
        f'<polygon points="{_f(px)},{_f(y0 + s * 0.18)} {_f(x0 + s * 0.24)},{_f(y0 + s * 0.34)} '
        f'{_f(px)},{_f(y0 + s * 0.50)}" fill="{FLAG_RED}"/>'
        f'<line x1="{_f(px)}" y1="{_f(y0 + s * 0.18)}" x2="{_f(px)}" y2="{_f(y0 + s * 0.74)}" '
        f'stroke="#000" stroke-width="{_f(max(1.0, s / 16))}"/>'
        f'<rect x="{_f(x0 + s * 0.30)}" y="{_f(y0 + s * 0.72)}" width="{_f(s * 0.46)}" '
        f'height="{_f(s * 0.09)}" fill="#000"/>'
        f"</g>"
    )


def _svg_mine(x0, y0, s):
    cx, cy = x0 + s / 2, y0 + s / 2
    rad = s * 0.26
    k = s * 0.38
    d = k * 0.7071
    spikes = "".join(
        f"M{_f(cx - a)},{_f(cy - b)}L{_f(cx + a)},{_f(cy + b)}" for a, b in ((k, 0), (0, k), (d, d), (d, -d))
    )
    return (
        f'<g class="mine"><path d="{spikes}" stroke="#000" stroke-width="{_f(max(1.0, s / 14))}"/>'
        f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(rad)}" fill="#000"/>'
        f'<circle cx="{_f(cx - rad * 0.35)}" cy="{_f(cy - rad * 0.35)}" r="{_f(rad * 0.25)}" fill="#fff"/></g>'
    )


def board_html(view, title=None, **kw) -> str:
    """A <div> holding the (escaped) title and the board's SVG; keyword args go to board_svg.

        >>> board_html([[-1, 1], [1, -2]], title="a corner").startswith("<div")
        True
    """
    svg = board_svg(view, **kw)
    head = (
        ""
        if title is None
        else f'<div class="minelab-title" style="font-family:{escape(FONT)};font-size:13px;'
        f'margin:0 0 4px 0">{escape(str(title))}</div>'
    )
    return f'<div class="minelab-board-html" style="display:inline-block">{head}{svg}</div>'


# ------------------------------------------------------------------------ matplotlib
def draw_board(view, ax=None, *, highlight=None, frame=None, title=None):
    """Draw the board on a matplotlib Axes (a new figure when ax is None); returns the Axes.

    The same picture as board_svg: row 0 at the top, equal aspect, no ticks. Text sizes
    follow the Axes' size at draw time, so size the figure before calling.
    """
    arr = check_view(view)
    rows, cols = arr.shape
    marks = _check_highlight(highlight, rows, cols)
    fr = _check_frame(frame)
    rmin, cmin, rmax, cmax = _extent(rows, cols, fr)
    nr, nc = rmax - rmin + 1, cmax - cmin + 1

    from matplotlib.collections import LineCollection, PatchCollection, PolyCollection
    from matplotlib.patches import Circle, Polygon, Rectangle

    if ax is None:
        import matplotlib.pyplot as plt

        inch = 0.32
        _, ax = plt.subplots(figsize=(max(1.5, nc * inch + 0.3), max(1.5, nr * inch + (0.6 if title else 0.3))))

    ax.set_xlim(cmin - 0.15, cmax + 1.15)
    ax.set_ylim(rmax + 1.15, rmin - 0.15)  # row 0 at the top
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    if title is not None:
        ax.set_title(str(title))

    # points per cell, for text and line sizes
    fig = ax.figure
    pos = ax.get_position()
    w_in, h_in = fig.get_size_inches()
    cell_pt = max(2.0, min(pos.width * w_in * 72 / (nc + 0.3), pos.height * h_in * 72 / (nr + 0.3)))

    # off-board cells inside the frame
    for r, c in _offboard_cells(rows, cols, fr):
        ax.add_patch(
            Rectangle((c, r), 1, 1, facecolor=OFFBOARD_FILL, edgecolor=OFFBOARD_LINE, hatch="///",
                      linestyle="--", linewidth=0.6, zorder=1)
        )

    covered = (arr == COVERED) | (arr == FLAGGED)
    cov_rc = np.argwhere(covered)
    rev_rc = np.argwhere(~covered)
    b = 0.1
    if len(rev_rc):
        ax.add_collection(PatchCollection(
            [Rectangle((c, r), 1, 1) for r, c in rev_rc],
            facecolor=REVEALED_FILL, edgecolor=GRID_LINE, linewidth=0.5, zorder=2))
    if len(cov_rc):
        ax.add_collection(PatchCollection(
            [Rectangle((c, r), 1, 1) for r, c in cov_rc], facecolor=COVERED_FILL, edgecolor="none", zorder=2))
        light = [[(c, r + 1), (c, r), (c + 1, r), (c + 1 - b, r + b), (c + b, r + b), (c + b, r + 1 - b)]
                 for r, c in cov_rc]
        dark = [[(c + 1, r), (c + 1, r + 1), (c, r + 1), (c + b, r + 1 - b), (c + 1 - b, r + 1 - b), (c + 1 - b, r + b)]
                for r, c in cov_rc]
        ax.add_collection(PolyCollection(light, facecolors=BEVEL_LIGHT, edgecolors="none", zorder=3))
        ax.add_collection(PolyCollection(dark, facecolors=BEVEL_DARK, edgecolors="none", zorder=3))

    lw = max(0.5, cell_pt / 16)
    for r, c in np.argwhere(arr == FLAGGED):
        px = c + 0.56
        ax.add_patch(Polygon([(px, r + 0.18), (c + 0.24, r + 0.34), (px, r + 0.50)], closed=True,
                             facecolor=FLAG_RED, edgecolor="none", zorder=4))
        ax.plot([px, px], [r + 0.18, r + 0.74], color="black", linewidth=lw, zorder=4, solid_capstyle="butt")
        ax.add_patch(Rectangle((c + 0.30, r + 0.72), 0.46, 0.09, facecolor="black", edgecolor="none", zorder=4))
    mine_rc = np.argwhere(arr == MINE)
    if len(mine_rc):
        k, d = 0.38, 0.38 * 0.7071
        segs = []
        for r, c in mine_rc:
            cx, cy = c + 0.5, r + 0.5
            segs += [[(cx - a, cy - e), (cx + a, cy + e)] for a, e in ((k, 0), (0, k), (d, d), (d, -d))]
            ax.add_patch(Circle((cx, cy), 0.26, facecolor="black", edgecolor="none", zorder=5))
            ax.add_patch(Circle((cx - 0.09, cy - 0.09), 0.065, facecolor="white", edgecolor="none", zorder=6))
        ax.add_collection(LineCollection(segs, colors="black", linewidths=max(0.5, cell_pt / 14), zorder=4))
    for r, c in np.argwhere(arr > 0):
        v = int(arr[r, c])
        ax.text(c + 0.5, r + 0.54, str(v), ha="center", va="center", fontsize=cell_pt * 0.6,
                fontweight="bold", color=NUMBER_COLOURS[v], zorder=5)

    for r, c in marks:
        h = 0.06
        ax.add_patch(Rectangle((c + h, r + h), 1 - 2 * h, 1 - 2 * h, fill=False, edgecolor=HIGHLIGHT,
                               linewidth=max(1.0, cell_pt / 9), zorder=7))
    if fr is not None:
        r0, c0, r1, c1 = fr
        ax.add_patch(Rectangle((c0, r0), c1 - c0 + 1, r1 - r0 + 1, fill=False, edgecolor=FRAME,
                               linewidth=max(1.5, cell_pt / 7), zorder=8))
    return ax
