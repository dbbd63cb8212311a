"""minelab.levels: presets, parsing, round-trips, validation of every field."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minelab.levels import (
    BEGINNER,
    BEGINNER_9,
    EXPERT,
    FIRST_CLICK_RULES,
    INTERMEDIATE,
    MAX_CELLS,
    PRESETS,
    Level,
    max_mines,
    opening_size,
)

RULES = ("none", "safe", "opening", "no-guess")


def allowed_mines(rows: int, cols: int, rule: str) -> int:
    """Independent statement of the documented per-rule maximum."""
    cells = rows * cols
    kept = min(3, rows) * min(3, cols)  # the first click and its neighbours
    return {"none": cells, "safe": cells - 1, "opening": cells - kept, "no-guess": cells - kept}[rule]


@st.composite
def levels(draw, max_side: int = 40):
    rows = draw(st.integers(1, max_side))
    cols = draw(st.integers(1, max_side))
    rule = draw(st.sampled_from(RULES))
    mines = draw(st.integers(0, allowed_mines(rows, cols, rule)))
    return rows, cols, mines, rule


# ----------------------------------------------------------------------------- presets
@pytest.mark.parametrize(
    "level, rows, cols, mines",
    [(BEGINNER, 8, 8, 10), (BEGINNER_9, 9, 9, 10), (INTERMEDIATE, 16, 16, 40), (EXPERT, 16, 30, 99)],
)
def test_presets(level, rows, cols, mines):
    assert (level.rows, level.cols, level.mines, level.first_click) == (rows, cols, mines, "safe")
    assert level.cells == rows * cols
    assert level.safe_cells == rows * cols - mines
    assert level.density == pytest.approx(mines / (rows * cols))
    assert level.rule_code == 1


def test_rule_names_and_codes():
    assert FIRST_CLICK_RULES == RULES
    for code, rule in enumerate(RULES):
        assert Level(4, 4, 0, rule).rule_code == code


def test_default_rule_is_safe():
    assert Level(3, 3, 1).first_click == "safe"


# ----------------------------------------------------------------------------- parse
@pytest.mark.parametrize(
    "text, expected",
    [
        ("8x8x10", Level(8, 8, 10, "safe")),
        ("16x30x99:opening", Level(16, 30, 99, "opening")),
        ("9x9x10:none", Level(9, 9, 10, "none")),
        ("9x9x10:safe", Level(9, 9, 10, "safe")),
        ("  8X8X10  ", Level(8, 8, 10)),
        ("1x1x0", Level(1, 1, 0)),
        ("beginner", BEGINNER),
        ("BEGINNER", BEGINNER),
        ("Beginner_9", BEGINNER_9),
        ("beginner9", BEGINNER_9),
        ("Intermediate", INTERMEDIATE),
        ("eXpErT", EXPERT),
        ("beginner:none", Level(8, 8, 10, "none")),
        ("EXPERT:opening", Level(16, 30, 99, "opening")),
        ("  Expert:Opening ", Level(16, 30, 99, "opening")),
        ("intermediate:safe", INTERMEDIATE),
        ("16x30x99:no-guess", Level(16, 30, 99, "no-guess")),
        ("Expert:No-Guess", Level(16, 30, 99, "no-guess")),
        ("beginner_9:no-guess", Level(9, 9, 10, "no-guess")),
    ],
)
def test_parse(text, expected):
    level = Level.parse(text)
    assert level == expected
    assert isinstance(level, Level)


def test_parse_level_passthrough():
    assert Level.parse(EXPERT) is EXPERT


def test_every_preset_parses_by_name():
    for name, level in PRESETS.items():
        assert Level.parse(name) == level
        assert Level.parse(name.upper()) == level


@pytest.mark.parametrize(
    "level, text",
    [
        (BEGINNER, "8x8x10"),
        (EXPERT, "16x30x99"),
        (Level(16, 30, 99, "opening"), "16x30x99:opening"),
        (Level(8, 8, 10, "none"), "8x8x10:none"),
        (Level(16, 30, 99, "no-guess"), "16x30x99:no-guess"),
        (Level(16, 30, 99, first_click="no-guess"), "16x30x99:no-guess"),
    ],
)
def test_str(level, text):
    assert str(level) == text


@settings(max_examples=100, deadline=None)
@given(levels())
def test_str_round_trip(spec):
    rows, cols, mines, rule = spec
    level = Level(rows, cols, mines, rule)
    text = str(level)
    assert text.startswith(f"{rows}x{cols}x{mines}")
    assert (":" in text) == (rule != "safe")
    back = Level.parse(text)
    assert back == level
    assert str(back) == text
    assert hash(back) == hash(level)
    assert Level.parse(text.upper()) == level


@settings(max_examples=100, deadline=None)
@given(levels())
def test_max_mines_matches_rules(spec):
    rows, cols, _, rule = spec
    top = allowed_mines(rows, cols, rule)
    assert max_mines(rows, cols, rule) == top
    assert opening_size(rows, cols) == min(3, rows) * min(3, cols)
    assert Level(rows, cols, top, rule).mines == top  # the bound itself is allowed
    with pytest.raises(ValueError, match="mines"):
        Level(rows, cols, top + 1, rule)


def test_with_first_click():
    assert BEGINNER.with_first_click("opening") == Level(8, 8, 10, "opening")
    assert EXPERT.with_first_click("no-guess") == Level("16x30x99:no-guess")
    assert BEGINNER.first_click == "safe"  # unchanged


def test_numpy_integers_are_accepted_and_normalised():
    level = Level(np.int64(8), np.int32(8), np.uint8(10), "safe")
    assert level == BEGINNER
    assert all(type(v) is int for v in (level.rows, level.cols, level.mines))


# ----------------------------------------------------------------------------- frozen
@pytest.mark.parametrize("field", ["rows", "cols", "mines", "first_click"])
def test_frozen(field):
    level = Level(8, 8, 10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(level, field, 3)
    assert level == BEGINNER


# ----------------------------------------------------------------------------- bad input
NON_INTEGERS = [1.5, 8.0, "8", True, False, None, [8]]


@pytest.mark.parametrize("bad", NON_INTEGERS)
def test_rows_must_be_integer(bad):
    with pytest.raises(ValueError, match="rows must be an integer"):
        Level(bad, 8, 1)


@pytest.mark.parametrize("bad", NON_INTEGERS)
def test_cols_must_be_integer(bad):
    with pytest.raises(ValueError, match="cols must be an integer"):
        Level(8, bad, 1)


@pytest.mark.parametrize("bad", NON_INTEGERS)
def test_mines_must_be_integer(bad):
    with pytest.raises(ValueError, match="mines must be an integer"):
        Level(8, 8, bad)


@pytest.mark.parametrize("bad", [0, -1, -100])
def test_rows_at_least_one(bad):
    with pytest.raises(ValueError, match="rows must be >= 1"):
        Level(bad, 8, 0)


@pytest.mark.parametrize("bad", [0, -1, -100])
def test_cols_at_least_one(bad):
    with pytest.raises(ValueError, match="cols must be >= 1"):
        Level(8, bad, 0)


@pytest.mark.parametrize("rule", RULES)
def test_mines_not_negative(rule):
    with pytest.raises(ValueError, match=r"mines must be in \[0, "):
        Level(8, 8, -1, rule)


@pytest.mark.parametrize(
    "rows, cols, rule, top",
    [
        (8, 8, "none", 64),
        (8, 8, "safe", 63),
        (8, 8, "opening", 55),
        (1, 1, "none", 1),
        (1, 1, "safe", 0),
        (1, 1, "opening", 0),
        (1, 7, "opening", 4),  # 1 x 3 kept free
        (2, 2, "opening", 0),  # 2 x 2 kept free
        (2, 5, "opening", 4),  # 2 x 3 kept free
        (16, 30, "opening", 471),
        (16, 30, "no-guess", 471),
        (9, 9, "no-guess", 72),
        (1, 7, "no-guess", 4),
    ],
)
def test_too_many_mines(rows, cols, rule, top):
    assert Level(rows, cols, top, rule).mines == top
    with pytest.raises(ValueError, match=rf"mines must be in \[0, {top}\], got {top + 1}"):
        Level(rows, cols, top + 1, rule)


@pytest.mark.parametrize("bad", ["", "Safe", "open", "random", None, 1, ("safe",)])
def test_unknown_rule(bad):
    with pytest.raises(ValueError, match="first_click must be one of none, safe, opening, no-guess; got"):
        Level(8, 8, 10, bad)


@pytest.mark.parametrize("text", ["8x8x10:noguess", "8x8x10:no_guess", "expert:no guess", "9x9x10:"])
def test_misspelt_no_guess_lists_the_rules(text):
    with pytest.raises(ValueError, match="no-guess"):
        Level.parse(text)


def test_too_many_cells():
    with pytest.raises(ValueError, match=r"rows \* cols"):
        Level(MAX_CELLS, 2, 0)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "novice", "beginners", "8x8", "8x8x", "x8x10", "8x8x10x1", "-8x8x10", "8 x 8 x 10",
     "8x8x1.5", "eightxeightxten", "8,8,10", "8x8x10;opening", "hard:none"],
)
def test_parse_garbage(text):
    with pytest.raises(ValueError, match="level must look like"):
        Level.parse(text)


@pytest.mark.parametrize("bad", [None, 8, 8.0, b"8x8x10", ("8", "8", "10"), ["beginner"]])
def test_parse_non_string(bad):
    with pytest.raises(ValueError, match="level must be a string"):
        Level.parse(bad)


@pytest.mark.parametrize("text", ["8x8x10:bogus", "beginner:unknown", "expert:open", "8x8x10:safe:none"])
def test_parse_unknown_rule(text):
    with pytest.raises(ValueError, match="first_click"):
        Level.parse(text)


@pytest.mark.parametrize(
    "text, field",
    [("0x8x1", "rows"), ("8x0x1", "cols"), ("8x8x65", "mines"), ("8x8x64", "mines"),
     ("3x3x9:opening", "mines"), ("3x3x1:opening", "mines"), ("16x30x472:no-guess", "mines"),
     ("9x9x73:no-guess", "mines")],
)
def test_parse_validates_fields(text, field):
    with pytest.raises(ValueError, match=field):
        Level.parse(text)


@pytest.mark.parametrize("text", ["8x8x64:none", "3x3x0:opening", "8x8x63", "1x1x1:none", "16x30x471:no-guess"])
def test_parse_accepts_bounds(text):
    assert str(Level.parse(text)) == text


# ----------------------------------------------------------------------------- Level("...")
@pytest.mark.parametrize("text, expected", [("8x8x10", Level(8, 8, 10)), ("expert", Level(16, 30, 99)),
                                            ("16x30x99:opening", Level(16, 30, 99, "opening")),
                                            ("beginner:none", Level(8, 8, 10, "none")),
                                            ("16x30x99:no-guess", Level(16, 30, 99, first_click="no-guess"))])
def test_level_from_one_string_is_parse(text, expected):
    assert Level(text) == expected == Level.parse(text)
    assert hash(Level(text)) == hash(expected)


def test_level_string_with_a_first_click_keyword():
    assert Level("9x9x10", first_click="opening") == Level(9, 9, 10, "opening")
    with pytest.raises(ValueError, match="contradicts"):
        Level("9x9x10:none", first_click="opening")


@pytest.mark.parametrize("args, needle", [((8, 8), "mines must be an integer"), ((8,), "needs rows, cols and mines"),
                                          (("8x8",), "must look like ROWSxCOLSxMINES")])
def test_level_with_too_little_says_what_to_give(args, needle):
    with pytest.raises(ValueError, match=needle):
        Level(*args)
