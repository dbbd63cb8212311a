"""minelab.position (positions as text, boards as .mbf), minelab.analysis and `minelab analyse`,
on files written by another program (tests/data/README.md)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minelab as ml
from minelab.cli import main
from minelab.position import Position, mbf_bytes, mbf_layout, read_mbf, write_mbf

DATA = Path(__file__).resolve().parent / "data"
MBF = DATA / "jsminesweeper_expert.mbf"
MINE = DATA / "jsminesweeper_expert.mine"


def test_files_of_another_program_round_trip(tmp_path):
    layout = read_mbf(MBF)
    assert layout.shape == (16, 30) and layout.sum() == 99
    write_mbf(tmp_path / "b.mbf", layout)
    assert (tmp_path / "b.mbf").read_bytes() == MBF.read_bytes()  # the same bytes: mines in row-major order
    pos = Position.read(MINE)
    assert pos.view.shape == (16, 30) and pos.mines == 99 and (pos.view == ml.FLAGGED).sum() == 1
    pos.write(tmp_path / "p.mine")
    assert (tmp_path / "p.mine").read_text() == MINE.read_text()
    assert Position.read(tmp_path / "p.mine") == pos
    # the position is of that board: each number counts the board's mines around it
    game = ml.Game.from_mines(layout)
    for r, c in np.argwhere(pos.view >= 0):
        game_counts = layout[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2].sum()
        assert pos.view[r, c] == game_counts and not layout[r, c]
    assert layout[tuple(np.argwhere(pos.view == ml.FLAGGED)[0])]
    assert not game.over


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("30x16\nH", "line 1: expected WIDTHxHEIGHTxMINES"),
    ("2x2x1\nHH", "expected 2 rows after the header"),
    ("2x2x1\nHH\nHHH", r"line 3 \(row 1\): expected 2 cells, got 3"),
    ("2x2x1\nH?\nHH", r"line 2 \(row 0\), column 1: '\?' is not H"),
    ("2x2x5\nHH\nHH", "5 mines do not fit in the 4"),
    ("3x2x1\n5HH\nHHH", r"no layout is consistent with \(0, 0\) = 5: it has 3 unrevealed neighbours"),
    ("3x2x1\n1H2\nHHH", "no layout of 1 mine is consistent with the numbers"),
])
def test_a_bad_position_names_its_line_and_field(text, message):
    with pytest.raises(ValueError, match=message):
        Position.from_text(text)


@pytest.mark.parametrize("data, message", [
    (b"\x02\x02\x00", "too short"),
    (b"\x02\x02\x00\x02\x00\x00", "bytes 2-3 give 2 mines, so 8 bytes; the file has 6"),
    (b"\x02\x02\x00\x01\x02\x00", "byte 4: mine 0 at x=2, y=0 is off the 2x2 board"),
    (b"\x02\x02\x00\x02\x01\x01\x01\x01", "byte 6: mine 1 at x=1, y=1 is listed twice"),
])
def test_a_bad_mbf_names_its_byte(data, message):
    with pytest.raises(ValueError, match=message):
        mbf_layout(data)
    with pytest.raises(ValueError, match="at most 255x255"):
        mbf_bytes(np.zeros((2, 256), bool))


def test_a_position_plays_as_a_game_on_a_consistent_layout():
    pos = Position.read(MINE)
    for seed in range(3):
        game = pos.game(seed)
        assert Position.from_game(game) == pos  # the same view: flags placed, zeros flooded as shown
        agent = ml.make_agent("csp", seed=0)
        agent.play_game(game)
        assert game.over
    with pytest.raises(ValueError, match="a whole board"):
        Position.read(MBF)


def test_a_zero_beside_covered_cells_plays_as_a_game_without_flood_and_is_analysed():
    # a hand-made 0 at (1, 1) with every neighbour covered: a flooding game would open them
    pos = Position.from_text("4x4x2\nHHHH\nH0HH\nHHHH\nHHHH")
    game = pos.game(0)
    assert not game.flood and Position.from_game(game) == pos
    a = ml.analyse(pos)
    assert len(a.safe) == 8 and a.move in a.safe
    assert pos.game(0).flood is False and Position.from_text("3x1x1\n0HH").game(0).flood is False
    assert Position.from_text("3x1x1\n01H").game(0).flood  # its 0's neighbours are shown: the usual game


def test_analyse_gives_exact_values_on_a_small_board_and_best_s_move_with_its_reason():
    # 1x4, 1 mine: the 1 at (0, 0) puts the mine at (0, 1); (0, 2) and (0, 3) are safe
    a = ml.analyse("4x1x1\n1HHH")
    assert a.safe == [(0, 2), (0, 3)] and a.mines == [(0, 1)] and round(a.layouts) == 1
    assert a.move in a.safe and a.reason  # best flags (0, 1) and reveals a safe cell
    # 2x2 with one mine and a 1 showing: every covered cell 1/3, and exact values say which wins
    a = ml.analyse(Position.from_text("2x2x1\n1H\nHH"), top=3)
    assert list(a.candidates["mine_probability"].round(6)) == [round(1 / 3, 6)] * 3
    assert a.values is not None and a.values["win_probability"].iloc[0] == pytest.approx(1 / 3)
    assert set(a.candidates.columns) >= {"cell", "safety", "progress", "frontier"}
    assert "layouts agree with the view" in str(a)
    # a large board: no exact values, the candidates' progress in [0, 1]
    pos = Position.read(MINE)
    a = ml.analyse(pos, top=4)
    assert a.values is None and len(a.candidates) == 4 and a.candidates["progress"].between(0, 1).all()
    assert pos.view[a.move] == ml.COVERED


def test_minelab_analyse_prints_the_analysis_and_refuses_a_bad_file(tmp_path, capsys):
    assert main(["analyse", str(MINE), "--top", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["move"]) == 2 and len(out["candidates"]) == 2
    assert len(out["probabilities"]) == 16 and out["probabilities"][0][0] is None  # a revealed cell
    bad = tmp_path / "bad.mine"
    bad.write_text("3x2x1\n5HH\nHHH\n")
    assert main(["analyse", str(bad)]) == 2
    assert "bad.mine: no layout is consistent with (0, 0) = 5" in capsys.readouterr().err


def test_best_s_endgame_enumeration_stops_at_its_budget():
    # 240 layouts: the endgame step takes the position, but enumerating its layouts in
    # board order passes the budget of cells assigned (unbounded, it ran for tens of
    # minutes); best then guesses by its lookahead and says why
    pos = Position.read(DATA / "best_slow_endgame.mine")
    assert round(pos.solve().log_layouts, 6) == round(np.log(240), 6)
    agent = ml.make_agent("best")
    move = agent.decision(pos.game(0))[0]
    assert move[0] == ml.REVEAL and "the endgame search ran out of budget" in agent.explain()
