"""Board rendering (SVG / HTML / matplotlib); the interactive viewer is tested in test_viewer.py."""
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import minelab as ml
from minelab.cells import COVERED, FLAGGED, MINE
from minelab.render import NUMBER_COLOURS, board_html, board_svg, draw_board

SVG = "{http://www.w3.org/2000/svg}"

VIEW = np.array(
    [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [8, COVERED, FLAGGED, MINE],
    ],
    np.int8,
)


def parse(svg):
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def rects(root, cls):
    return [e for e in root.iter(SVG + "rect") if cls in e.get("class", "").split()]


# ----------------------------------------------------------------------------- SVG
def test_svg_well_formed_one_rect_per_cell():
    root = parse(board_svg(VIEW))
    assert len(rects(root, "cell")) == VIEW.size
    assert len(rects(root, "covered")) == 2  # covered + flagged
    assert len(rects(root, "mine")) == 1
    assert not rects(root, "offboard")


def test_svg_numbers_in_classic_colours():
    root = parse(board_svg(VIEW))
    texts = {e.text: e.get("fill") for e in root.iter(SVG + "text")}
    for n in range(1, 9):
        assert texts[str(n)] == NUMBER_COLOURS[n]
    assert "0" not in texts  # zeros are blank
    assert NUMBER_COLOURS[1] == "#0000ff" and NUMBER_COLOURS[3] == "#ff0000"


def test_svg_flag_and_mine_glyphs():
    root = parse(board_svg(VIEW))
    groups = [g.get("class") for g in root.iter(SVG + "g")]
    assert groups.count("flag") == 1 and groups.count("mine") == 1


def test_svg_size_follows_cell():
    small = parse(board_svg(VIEW, cell=10))
    big = parse(board_svg(VIEW, cell=40))
    assert float(big.get("width")) > 3 * float(small.get("width"))
    with pytest.raises(ValueError, match="cell"):
        board_svg(VIEW, cell=0)


def test_svg_title_escaped():
    title = '<script>alert("x")</script> & co'
    svg = board_svg(VIEW, title=title)
    root = parse(svg)  # still well-formed
    assert "<script>" not in svg
    assert root.find(SVG + "title").text == title
    html = board_html(VIEW, title=title)
    assert "<script>" not in html and "&lt;script&gt;" in html and "<svg" in html
    ET.fromstring(html)  # the div is well-formed too


def test_svg_highlight_and_frame():
    root = parse(board_svg(VIEW, highlight=[(0, 0), (2, 3)], frame=(0, 0, 2, 2)))
    assert len(rects(root, "highlight")) == 2
    assert len(rects(root, "frame")) == 1
    assert not rects(root, "offboard")
    with pytest.raises(ValueError, match="highlight row"):
        board_svg(VIEW, highlight=[(3, 0)])
    with pytest.raises(ValueError, match="frame"):
        board_svg(VIEW, frame=(2, 0, 0, 2))


def test_svg_frame_off_board_is_hatched():
    # a 3x3 window around the corner cell (0, 0): 5 of its 9 cells are off the board
    root = parse(board_svg(VIEW, frame=(-1, -1, 1, 1), cell=20))
    assert len(rects(root, "offboard")) == 5
    assert len(rects(root, "cell")) == VIEW.size
    for e in rects(root, "offboard"):
        assert e.get("stroke-dasharray")
    # the picture grows by one cell up and left
    plain = parse(board_svg(VIEW, cell=20))
    assert float(root.get("width")) == pytest.approx(float(plain.get("width")) + 20)
    assert float(root.get("height")) == pytest.approx(float(plain.get("height")) + 20)
    # every coordinate is inside the picture
    w, h = float(root.get("width")), float(root.get("height"))
    for e in root.iter(SVG + "rect"):
        assert 0 <= float(e.get("x")) and float(e.get("x")) + float(e.get("width")) <= w + 1e-6
        assert 0 <= float(e.get("y")) and float(e.get("y")) + float(e.get("height")) <= h + 1e-6


@pytest.mark.parametrize(
    "view, needle",
    [
        (np.array([[0, 9]]), "9"),
        (np.array([[-4, 0]]), "-4"),
        (np.array([[0, 1], [2, 100]]), "100"),
    ],
)
def test_bad_values_raise_naming_the_value(view, needle):
    for fn in (board_svg, board_html, draw_board):
        with pytest.raises(ValueError, match=f"value {needle} "):
            fn(view)


@pytest.mark.parametrize(
    "view, needle",
    [
        (np.zeros(4, int), "2-d"),
        (np.zeros((2, 2, 2), int), "2-d"),
        (np.zeros((2, 2), float), "integers"),
        (np.zeros((2, 2), bool), "integers"),
        (np.zeros((0, 3), int), "at least one cell"),
    ],
)
def test_bad_shapes_and_dtypes_raise(view, needle):
    with pytest.raises(ValueError, match=needle):
        board_svg(view)


def test_accepts_any_int_dtype_and_lists():
    a = board_svg(VIEW)
    assert board_svg(VIEW.astype(np.int64)) == a
    assert board_svg(VIEW.tolist()) == a


# ------------------------------------------------------------------------ matplotlib
def test_draw_board_returns_axes():
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    ax = draw_board(VIEW, title="t", highlight=[(1, 1)], frame=(-1, 2, 1, 4))
    try:
        assert isinstance(ax, Axes)
        assert ax.get_title() == "t"
        assert list(ax.get_xticks()) == [] and list(ax.get_yticks()) == []
        assert ax.get_aspect() == 1.0
        assert ax.get_ylim()[0] > ax.get_ylim()[1]  # row 0 at the top
        assert sorted(t.get_text() for t in ax.texts) == [str(n) for n in range(1, 9)]
        ax.figure.canvas.draw()
    finally:
        plt.close(ax.figure)

    fig, given = plt.subplots()
    try:
        assert draw_board(VIEW, ax=given) is given
    finally:
        plt.close(fig)


# ------------------------------------------------------------------------------ Game
def test_game_repr_html_has_svg():
    game = ml.Game(ml.Level(5, 5, 3), seed=1)
    game.reveal(2, 2)
    html = game._repr_html_()
    assert "<svg" in html and "5x5x3" in html
    ET.fromstring(html)


def test_lost_game_renders_mines():
    for seed in range(20):  # 14 of the 15 cells left after the safe first click are mines
        game = ml.Game(ml.Level(4, 4, 14), seed=seed)
        game.reveal(0, 0)
        game.reveal(3, 3)
        if game.lost:
            break
    assert game.lost
    root = parse(board_svg(game.view))
    assert len(rects(root, "mine")) == int((game.view == MINE).sum()) == 14
