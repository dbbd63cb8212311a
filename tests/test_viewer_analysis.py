"""The BoardViewer's analysis mode without a browser (tests/test_browser.py clicks it in
JupyterLab): edits and their text, the overlay and best's move are those of ml.analyse,
bad input is a status message, and leaving the mode gives the game back."""
import numpy as np
import pytest

import minelab as ml
from minelab.cells import COVERED, FLAGGED
from minelab.position import Position, format_text, parse_text
from minelab.viewer import ANALYSIS_EXACT_LIMIT, ANALYSIS_TOP, MARK_BEST, BoardViewer

# (2, 2) is certainly safe: (0, 1) and (1, 0) put one mine each in (0, 2)/(1, 2) and (2, 0)/(2, 1),
# which are the two mines (1, 1) sees
HANDMADE = """
6x5x4
01HHHH
12HHHH
HHHHHH
HHHHHH
HHHHHH
"""
SMALL = """
4x4x2
1HHH
HHHH
HHHH
HHHH
"""


def make(level="9x9x10", agent="hcsp", seed=3):
    return BoardViewer(ml.Game(level, seed=seed), agent=None if agent is None else ml.make_agent(agent, seed=0),
                       seed=seed, warm=False)


def shown(v):
    """The board's cells, values (NaN for None), certain marks and marks, each (rows, cols)."""
    shape = (v.board.rows, v.board.cols)
    values = np.array([np.nan if x is None else x for x in v.board.values], float)
    return (np.array(v.board.cells).reshape(shape), values.reshape(shape) if values.size else None,
            np.array(v.board.certain).reshape(shape) if v.board.certain else None,
            np.array(v.board.marks).reshape(shape))


def click_message(v, r, c, flag=False):
    """What the page sends for a click on cell (r, c)."""
    v.board._on_msg(v.board, {"event": "click", "r": r, "c": c, "flag": flag}, [])


def test_analysis_starts_from_the_game_and_edits_change_the_position():
    v = make()
    assert v.click(4, 4) and not v.game.over
    v.analysis_toggle.value = True  # the toggle in the page
    assert v.analysing and "minelab-analysis-toggle" in v.analysis_toggle._dom_classes
    assert v.analysis_box.layout.display == "flex" and v.step_button.disabled and v.prob_toggle.disabled
    assert v.edited_position() == Position.from_game(v.game)
    assert v.text_area.value == Position.from_game(v.game).to_text()
    assert v.edit(0, 8, 1) and v.edit(8, 8, "flag") and v.edit(8, 0, 2)
    pos = v.edited_position()
    assert (pos.view[0, 8], pos.view[8, 8], pos.view[8, 0], pos.mines) == (1, FLAGGED, 2, 10)
    assert Position.from_text(v.position_text()) == pos
    assert (shown(v)[0] == pos.view).all()
    assert "(8, 0) set to 2" in v.status_text
    assert v.set_mines(12) and v.edited_position().mines == 12 and v.mines_field.value == 12
    v.mines_field.value = 11  # the field in the page
    assert v.edited_position().mines == 11 and "11 mines" in v.status_text


def test_clicks_step_a_cell_through_its_numbers_and_flags():
    v = make()
    v.analysis_mode(True)
    seen = []
    for _ in range(5):  # a corner has 3 neighbours: covered -> 0 -> 1 -> 2 -> 3 -> covered
        click_message(v, 0, 0)
        seen.append(int(v.edited_view[0, 0]))
    assert seen == [0, 1, 2, 3, COVERED]
    inner = []
    for _ in range(10):
        click_message(v, 4, 4)
        inner.append(int(v.edited_view[4, 4]))
    assert inner == [0, 1, 2, 3, 4, 5, 6, 7, 8, COVERED]
    click_message(v, 4, 4, flag=True)  # right click flags, a second one takes the flag off
    assert v.edited_view[4, 4] == FLAGGED and shown(v)[0][4, 4] == FLAGGED
    click_message(v, 4, 4, flag=True)
    assert v.edited_view[4, 4] == COVERED
    v.flag_mode = True  # Flag mode: a left click flags
    assert v.click(2, 2) and v.edited_view[2, 2] == FLAGGED
    v.flag_mode = False
    assert v.click(2, 2) and v.edited_view[2, 2] == COVERED  # a left click on a flag: covered
    assert v.game.moves == []  # no edit is a move of the game


def test_overlay_and_recommendation_are_those_of_analyse():
    v = make()
    assert v.set_position(HANDMADE)
    pos = Position.from_text(HANDMADE)
    a = ml.analyse(pos)
    cells, values, certain, marks = shown(v)
    assert (cells == pos.view).all() and v.board.overlay == "probability"
    assert np.allclose(values, a.probabilities, atol=1e-6, equal_nan=True)
    assert certain[2, 2] == 1 and [tuple(x) for x in np.argwhere(certain == 1)] == a.safe
    assert [tuple(x) for x in np.argwhere(certain == 2)] == a.mines
    assert v.analysis.move == a.move and [tuple(x) for x in np.argwhere(marks == MARK_BEST)] == [a.move]
    lines = v.analysis_lines()
    assert f"best reveals {a.move}: {a.reason}" in lines
    assert f"{a.candidates.cell[0]} safety {a.candidates.safety[0]:.3f}" in lines[2]
    assert v.analysis.values is None  # C(30, 4) is past the viewer's exact limit
    assert "best reveals (" in v.analysis_label.value


def test_small_boards_show_the_exact_values():
    v = make()
    assert v.set_position(SMALL)
    a = ml.analyse(SMALL, top=ANALYSIS_TOP, exact_limit=ANALYSIS_EXACT_LIMIT)
    assert a.values is not None
    best = a.values.iloc[0]
    line = v.analysis_lines()[-1]
    assert line.startswith("exact win probability") and f"{best.cell} {best.win_probability:.4f} ({best.exact})" in line
    assert f", win {dict(zip(a.values.cell, a.values.win_probability))[a.candidates.cell[0]]:.4f}" in \
        v.analysis_lines()[2]


def test_an_inconsistent_number_is_a_status_message_naming_the_cell():
    v = make()
    v.analysis_mode(True)
    assert v.edit(0, 0, 5)  # kept on the board: the researcher fixes it from there
    assert "(0, 0) = 5" in v.status_text and "(0, 0) = 5" in v.status_label.value
    assert shown(v)[0][0, 0] == 5 and v.board.overlay == "none" and v.board.values == []
    assert MARK_BEST not in v.board.marks and v.analysis is None
    with pytest.raises(ValueError, match=r"\(0, 0\) = 5"):
        v.edited_position()
    assert v.position_text().splitlines()[1].startswith("5")  # the text is there all the same
    assert v.edit(0, 0, 3) and v.board.overlay == "probability" and not v.analysis_error
    assert v.set_mines(200) is True and "mines must be in [0, " in v.status_text and v.board.values == []
    assert v.set_mines(-1) is False and "non-negative" in v.message
    assert v.set_mines(10) and v.board.overlay == "probability"
    assert v.edit(0, 0, 9) is False and "number 0-8" in v.message
    assert v.edit(9, 0, 1) is False and "not a cell of the 9x9 board" in v.message
    assert v.edited_view[0, 0] == 3  # bad input changed nothing


def test_a_zero_beside_covered_cells_is_analysed_and_best_opens_a_neighbour():
    v = make()
    v.analysis_mode(True)
    assert v.edit(4, 4, 0)
    sol = v.edited_position().solve()
    _, values, certain, _ = shown(v)
    assert np.allclose(values, sol.probabilities, atol=1e-6, equal_nan=True) and (certain[3:6, 3:6] == 1).sum() == 8
    r, c = v.analysis.move
    assert max(abs(r - 4), abs(c - 4)) == 1 and MARK_BEST in v.board.marks


def test_pasted_text_loads_or_names_the_line():
    v = make()
    v.analysis_mode(True)
    before = list(v.board.cells)
    v.text_area.value = "3x3x1\n1HH\nHXH\nHHH\n"
    v.load_button.click()
    assert "line 3 (row 1), column 1" in v.status_text and v.board.cells == before
    assert v.set_position("3x3 1\n1HH") is False and "line 1" in v.message
    assert v.set_position(42) is False and "Position or its text" in v.message
    v.text_area.value = "3x3x1\n5HH\nHHH\nHHH\n"  # well formed, but no layout has it
    v.load_button.click()
    assert (v.board.rows, v.board.cols) == (3, 3) and v.board.cells[0] == 5
    assert "(0, 0) = 5" in v.status_text and v.board.overlay == "none"
    v.text_area.value = SMALL
    v.load_button.click()
    assert v.edited_position() == Position.from_text(SMALL) and v.board.overlay == "probability"
    v.edit(3, 3, "flag")
    v.export_button.click()
    assert v.text_area.value == v.position_text() == v.edited_position().to_text()
    assert Position.from_text(v.text_area.value).view[3, 3] == FLAGGED


def test_leaving_analysis_gives_the_game_back():
    v = make(seed=1)
    v.click(4, 4)
    v.step()
    assert not v.game.over
    moves, view = list(v.game.moves), np.array(v.game.view)
    v.analysis_mode(True)
    v.edit(0, 0, 3)
    assert v.step() is False and "analysis mode" in v.message
    assert v.replay_to(0) is False and v.play_to_end() == 0
    v.analysis_toggle.value = False
    assert not v.analysing and v.game.moves == moves and (shown(v)[0] == view).all()
    assert v.analysis_box.layout.display == "none" and not v.step_button.disabled
    assert f"moves {len(moves)}" in v.status_text
    assert v.step() and len(v.game.moves) > len(moves)  # play goes on


def test_play_from_here_starts_a_game_in_the_position():
    v = make("9x9x10", agent="hcsp", seed=5)
    v.set_position(HANDMADE)
    v.edit(0, 0, 5)
    assert v.play_from_here() is False and "play from here" in v.message and v.analysing
    v.edit(0, 0, 0)
    assert v.play_from_here(seed=1)
    assert not v.analysing and v.game.level.rows == 5 and v.game.level.cols == 6
    pos = Position.from_text(HANDMADE)
    assert (v.game.view == pos.view).all() and v.moves_played == 0 and not v.game.over
    assert v.step() and v.moves_played >= 1


def test_edits_outside_analysis_mode_are_messages():
    v = make()
    for call in (lambda: v.edit(0, 0, 1), lambda: v.analysis_click(0, 0), lambda: v.set_mines(3),
                 lambda: v.play_from_here()):
        assert call() is False and "not in analysis mode" in v.message
    assert v.export() == "" and "not in analysis mode" in v.status_text
    with pytest.raises(ValueError, match="not in analysis mode"):
        v.position_text()
    assert v.game.moves == [] and v.edited_view is None


def test_a_lost_game_starts_analysis_from_a_covered_board():
    mines = np.zeros((4, 4), int)
    mines[0, 0] = mines[3, 3] = 1
    v = BoardViewer(ml.Game.from_mines(mines), warm=False)
    v.click(0, 0)
    assert v.game.lost
    v.analysis_mode(True)
    assert (v.edited_view == COVERED).all() and "lost" in v.status_text
    assert v.new_game() is v.game and not v.analysing  # a new game ends analysis mode


def test_position_text_helpers():
    view, mines = parse_text("3x2x4\n5HH\nHHH\n")  # read, not checked
    assert view.tolist() == [[5, -1, -1], [-1, -1, -1]] and mines == 4
    assert format_text(view, mines) == "3x2x4\n5HH\nHHH\n"
    with pytest.raises(ValueError, match="line 3"):
        parse_text("3x2x1\nHHH\nHH\n")
