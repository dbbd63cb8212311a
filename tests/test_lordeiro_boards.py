"""Lordeiro et al. (2021) Figs 1-6: the figures draw, their positions are real games, and
the windows, actions and symmetric images are the ones the paper shows."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.figure import Figure

from minelab.agents.bandit import encode_window, symmetric_images, target_actions, view_window, window_case
from minelab.cells import COVERED, FLAGGED
from minelab.engine import board_text
from minelab.papers import lordeiro2021_boards as lb


@pytest.mark.parametrize("name", sorted(lb.FIGURES))
def test_figure_draws(name):
    fig = lb.FIGURES[name]()
    assert isinstance(fig, Figure)
    assert fig.axes
    fig.canvas.draw()


def neighbour_counts(mines):
    padded = np.pad(mines.astype(int), 1)
    rows, cols = mines.shape
    return sum(padded[1 + dr:1 + dr + rows, 1 + dc:1 + dc + cols]
               for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))


@pytest.mark.parametrize("fig", [1, 2, 3, 4])
def test_positions_are_consistent_games(fig):
    game, mines = lb.position(fig), lb.layout(fig).astype(bool)
    view = game.view
    assert not game.over
    shown = view >= 0
    assert not (shown & mines).any()
    np.testing.assert_array_equal(view[shown], neighbour_counts(mines)[shown])
    assert mines[view == FLAGGED].all()  # every flag sits on a mine
    assert set(np.unique(view[~shown])) <= {COVERED, FLAGGED}


def test_fig1_matches_the_caption():
    assert board_text(lb.position(1).view).splitlines() == ["#####", "F312F", "11.11", ".....", "....."]
    assert lb.layout(1).sum() == 4
    assert not any(lb.layout(1)[rc] for rc in lb.FIG1_SAFE)


def test_fig2_actions_are_the_papers():
    paper = {"S": "(0,0,1,1,2,3,2,C,C,S)", "SE": "(-1,0,0,-1,1,2,-1,2,C,SE)", "E": "(-1,1,2,-1,2,C,-1,C,C,E)",
             "NE": "(-1,2,C,-1,C,C,-1,C,C,NE)", "N": "(2,C,C,C,C,C,C,C,C,N)", "NW": "(C,C,C,C,C,C,C,C,C,NW)",
             "W": "(2,3,C,C,C,C,C,C,C,W)", "SW": "(0,1,C,2,3,C,C,C,C,SW)"}
    view = lb.position(2).view
    got = {a["direction"]: lb.action_tuple(a["window"], a["direction"]) for a in target_actions(view, lb.FIG2_TARGET)}
    assert got == paper
    assert lb.layout(2)[lb.FIG2_TARGET]  # the target is the mine the caption finds


def test_fig3_flag_makes_the_star_tiles_safe():
    view, mines = lb.position(3).view, lb.layout(3)
    # the paper's picture, except (2,3) and (3,2) read 2 (see the module docstring)
    assert board_text(view).splitlines() == ["..1##", ".12##", "12F##", "###1#", "#####"]
    assert view[2, 2] == FLAGGED and mines[2, 2]
    assert not any(mines[rc] for rc in lb.FIG3_SAFE)
    # the *-tiles are the covered neighbours of the 1 at (4,4) besides the flag
    around = {(3 + dr, 3 + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)}
    assert {rc for rc in around if view[rc] == COVERED} == set(lb.FIG3_SAFE)


def test_fig4_shift_changes_the_case_and_is_impossible():
    w, t = view_window(lb.position(4).view, (1, 1)), (0, 2)
    assert w.tolist() == [[0, 1, 9], [0, 1, 9], [0, 1, 9]]
    w2, t2 = lb.shift_border(w, t)
    assert w2.tolist() == [[0, 0, 1], [0, 1, 9], [1, 9, 9]] and t2 == (1, 2)
    assert window_case(encode_window(w, t)) == "diagonal"
    assert window_case(encode_window(w2, t2)) == "cardinal"
    assert not lb.impossible(w) and lb.impossible(w2)


@pytest.mark.parametrize("centre, target, case", [((1, 0), (2, 2), "diagonal"), ((1, 1), (2, 1), "cardinal")])
def test_fig5_fig6_images_share_a_key(centre, target, case):
    window = view_window(lb.position(2).view, centre)
    images = symmetric_images(window, target)
    assert len(images) == 8
    assert len({(w.tobytes(), t) for w, t in images}) == 8  # the chosen windows have no symmetry of their own
    keys = {encode_window(w, t) for w, t in images}
    assert keys == {encode_window(window, target)}
    assert window_case(keys.pop()) == case
    # the paper's first row turns clockwise: image 1 of CLOCKWISE is np.rot90 clockwise
    w1, _ = images[lb.CLOCKWISE[1]]
    np.testing.assert_array_equal(w1, np.rot90(window, -1))
