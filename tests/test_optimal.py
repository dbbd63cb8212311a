"""The exact optimal solver (minelab.exact): a public value, an independent unpruned
brute force on boards of at most 12 cells (first clicks, any position, the survey of
every position), first-click rules, bad input, the command, the table, and the
`optimal` agent (its win rate over every layout is the solver's value)."""
import functools
import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

import minelab as ml
from minelab import exact
from minelab.cells import COVERED
from minelab.engine import run_streams
from minelab.levels import Level
from minelab.exact import first_click_values, move_values, win_probability


def test_four_by_four_with_four_mines_and_no_first_click_rule():
    """Public check: 961/1820, reached by opening a non-corner edge cell."""
    values = first_click_values("4x4x4:none")
    assert max(values.values()) == Fraction(961, 1820)
    best = {cell for cell, v in values.items() if v == Fraction(961, 1820)}
    assert (0, 1) in best and (0, 0) not in best and (1, 1) not in best


# --------------------------------------------------------------------------- independent brute force
def _neighbours(rows, cols, i):
    r, c = divmod(i, cols)
    return [rr * cols + cc for rr in range(r - 1, r + 2) for cc in range(c - 1, c + 2)
            if (rr, cc) != (r, c) and 0 <= rr < rows and 0 <= cc < cols]


class Brute:
    """Optimal play by plain recursion over (layouts, revealed): no shortcut and no
    bound, every covered cell is tried and every outcome followed (memoised on the
    belief itself, which changes no value). Layouts as frozensets of mine cells."""

    def __init__(self, level):
        self.lv = lv = Level.parse(level)
        self.nb = [_neighbours(lv.rows, lv.cols, i) for i in range(lv.cells)]
        self.value = functools.lru_cache(maxsize=None)(self._value)

    def reveal(self, mines, revealed, cell):
        out, todo = set(revealed), [cell]
        while todo:
            i = todo.pop()
            if i in out:
                continue
            out.add(i)
            if not any(j in mines for j in self.nb[i]):
                todo += [j for j in self.nb[i] if j not in out]
        return frozenset(out)

    def view_of(self, mines, revealed):
        return tuple(sorted((i, sum(j in mines for j in self.nb[i])) for i in revealed))

    def groups(self, layouts, revealed, c):
        """{(revealed after, view): layouts} of clicking c (the mined layouts dropped)."""
        out = {}
        for lay in layouts:
            if c not in lay:
                rev = self.reveal(lay, revealed, c)
                out.setdefault((rev, self.view_of(lay, rev)), []).append(lay)
        return out

    def click(self, layouts, revealed, c):  # win probability of clicking c, then optimal play
        got = sum(len(g) * self.value(frozenset(g), rev) for (rev, _), g in self.groups(layouts, revealed, c).items())
        return Fraction(got, len(layouts))

    def _value(self, layouts, revealed):
        if self.lv.cells - len(revealed) == self.lv.mines:
            return Fraction(1)
        return max(self.click(layouts, revealed, c) for c in range(self.lv.cells) if c not in revealed)

    def first_layouts(self, cell):
        banned = set()
        if self.lv.first_click == "safe":
            banned = {cell}
        elif self.lv.first_click == "opening":
            banned = {cell, *self.nb[cell]}
        return [frozenset(m) for m in itertools.combinations(range(self.lv.cells), self.lv.mines)
                if not banned & set(m)]

    def position(self, view):
        """(layouts, revealed) of a non-empty view (flat or 2-d, COVERED elsewhere)."""
        flat = np.asarray(view).ravel()
        revealed = frozenset(int(i) for i in np.flatnonzero(flat >= 0))
        layouts = [frozenset(m) for m in itertools.combinations(range(self.lv.cells), self.lv.mines)
                   if not revealed & set(m) and all(sum(j in m for j in self.nb[i]) == flat[i] for i in revealed)]
        return layouts, revealed

    def position_values(self, view):
        layouts, revealed = self.position(view)
        return {divmod(c, self.lv.cols): self.click(layouts, revealed, c)
                for c in range(self.lv.cells) if c not in revealed}


def brute_force(level, first=None):
    b = Brute(level)
    cells = range(b.lv.cells) if first is None else [first]
    return {divmod(c, b.lv.cols): b.click(b.first_layouts(c), frozenset(), c) for c in cells}


@pytest.mark.parametrize("level", ["1x3x1", "2x3x2:none", "2x3x2", "3x3x2", "3x3x3:none", "3x4x2:opening",
                                   "3x4x3:none", "2x6x4"])
def test_agrees_with_an_unpruned_brute_force(level):
    assert first_click_values(level) == brute_force(level)


def test_first_click_choices():
    values = first_click_values("3x3x2")
    assert win_probability("3x3x2", "corner") == values[(0, 0)]
    assert win_probability("3x3x2", (1, 1)) == values[(1, 1)]
    assert win_probability("3x3x2") == max(values.values())
    assert isinstance(win_probability("3x3x2"), Fraction)


@pytest.mark.parametrize("level, first, needle", [
    ("6x6x10", "best", "layouts"), ("9x8x1", "best", "64 cells"), ("3x3x2", "centre", "first_click"),
    ("3x3x2", (3, 0), "off the"), ("3x3x2", (True, 0), "first_click")])
def test_bad_input_is_a_clear_error(level, first, needle):
    with pytest.raises(ValueError, match=needle):
        win_probability(level, first)


# --------------------------------------------------------------------------- any position
C = COVERED


@pytest.mark.parametrize("level, view, expected", [
    # the 1 beside the first click: the mine is at (0, 1), (0, 2) is certainly safe
    ("1x3x1", [[1, C, C]], {(0, 1): 0, (0, 2): 1}),
    # a 1 in the middle: a 50/50
    ("1x3x1", [[C, 1, C]], {(0, 0): Fraction(1, 2), (0, 2): Fraction(1, 2)}),
    # 2x2, one mine among three cells: any click is safe 2/3 of the time, then shows 1: a 50/50
    ("2x2x1", [[1, C], [C, C]], {(0, 1): Fraction(1, 3), (1, 0): Fraction(1, 3), (1, 1): Fraction(1, 3)}),
    # 1x4x1 after a 1 at the end: (0, 1) holds the mine; then every other cell is safe
    ("1x4x1", [[1, C, C, C]], {(0, 1): 0, (0, 2): 1, (0, 3): 1}),
])
def test_move_values_of_hand_derived_positions(level, view, expected):
    assert move_values(level, np.array(view, np.int8)) == expected
    assert Brute(level).position_values(view) == expected


@pytest.mark.parametrize("level, moves", [("2x4x3", [(0, 0)]), ("3x3x2", [(0, 0), (2, 2)]),
                                          ("3x4x3:none", [(1, 1)]), ("2x5x3", [(0, 2)])])
def test_move_values_agree_with_the_brute_force(level, moves):
    """Positions reached by scripted clicks on every layout that survives them."""
    b = Brute(level)
    seen = set()
    for mines in itertools.combinations(range(b.lv.cells), b.lv.mines):
        game = ml.Game.from_mines(np.isin(np.arange(b.lv.cells), mines).reshape(b.lv.rows, b.lv.cols))
        for r, c in moves:
            if not game.over and game.view[r, c] == COVERED:
                game.reveal(r, c)
        if game.over or game.view.tobytes() in seen:
            continue
        seen.add(game.view.tobytes())
        assert move_values(level, game.view) == b.position_values(game.view), game.view
    assert len(seen) >= 3


def test_move_values_of_an_empty_view_are_the_first_click_values():
    assert move_values("3x3x2", np.full((3, 3), C, np.int8)) == first_click_values("3x3x2")


@pytest.mark.parametrize("view, needle", [
    (np.array([[1, 1], [1, C]]), "won"), (np.array([[9, C], [C, C]]), "0..8"), (np.zeros((3, 3)), "shape"),
    (np.array([[0, C], [C, C]]), "no layout"), (np.array([[1.0, C], [C, C]]), "integers")])
def test_bad_views_are_clear_errors(view, needle):
    with pytest.raises(ValueError, match=needle):
        move_values("2x2x1", view)


def test_opening_rule_needs_a_zero_in_the_view():
    with pytest.raises(ValueError, match="opening"):
        move_values("3x4x2:opening", np.array([[1, C, C, C], [C, C, C, C], [C, C, C, C]], np.int8))


# --------------------------------------------------------------------------- the survey
def _canonical_view(view, perms):
    return min(tuple(sorted((int(p[i]), v) for i, v in view)) for p in perms)


def brute_survey(level):
    """Every reachable position (up to symmetry, the empty board excluded) with its flags:
    (no least probable cell is optimal, the least probable cells differ in value)."""
    b = Brute(level)
    n, perms = b.lv.cells, exact.symmetry_permutations(b.lv.rows, b.lv.cols)
    todo = []
    for cell in range(n):
        todo += [(frozenset(g), rev) for (rev, _), g in b.groups(b.first_layouts(cell), frozenset(), cell).items()]
    out = {}
    while todo:
        layouts, revealed = todo.pop()
        if n - len(revealed) == b.lv.mines:
            continue
        key = _canonical_view(b.view_of(next(iter(layouts)), revealed), perms)
        if key in out:
            continue
        covered = [c for c in range(n) if c not in revealed]
        mines = {c: sum(c in lay for lay in layouts) for c in covered}
        wins = {c: b.click(layouts, revealed, c) for c in covered}
        least = [c for c in covered if mines[c] == min(mines.values())]
        out[key] = (max(wins.values()) not in {wins[c] for c in least}, len({wins[c] for c in least}) > 1)
        for c in covered:
            todo += [(frozenset(g), rev) for (rev, _), g in b.groups(layouts, revealed, c).items()]
    return out


@pytest.mark.parametrize("level", ["2x3x2", "2x4x3", "3x3x2", "2x4x2:none"])
def test_survey_agrees_with_the_brute_force(level):
    got = exact.survey(level)
    flags = brute_survey(level)
    row = got.summary.iloc[0]
    assert row["positions"] == len(flags)
    assert row["no_optimal_least"] == sum(a for a, _ in flags.values())
    assert row["least_differ"] == sum(b for _, b in flags.values())
    for (lv, kind), view in got.views.items():  # the examples' values are the brute force's
        cells = got.examples[got.examples["example"] == kind]
        brute = Brute(level).position_values(view)
        assert {(r, c): w for r, c, w in cells[["row", "col", "win_probability"]].itertuples(index=False)} == brute


def test_survey_finds_equally_safe_cells_of_different_value():
    """Buffet et al. 2012 Fig. 2 (top) has equally safe cells winning 2/3 and 1/3: such
    positions exist on 2x4 boards already, and the example shows it."""
    got = exact.survey("2x4x3")
    assert got.summary["least_differ"].iloc[0] > 0
    ex = got.examples[(got.examples["example"] == "least_differ") & got.examples["least_probable"]]
    assert ex["win_probability"].nunique() > 1


# --------------------------------------------------------------------------- the command
def test_command_json(capsys):
    assert exact.main(["2x3x2:none", "--json", "--per-cell"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"level", "first_click", "numerator", "denominator", "win_rate", "seconds", "cells"}
    assert (out["level"], out["first_click"], out["numerator"], out["denominator"]) == ("2x3x2:none", "best", 1, 3)
    assert {(c["row"], c["col"]) for c in out["cells"]} == {(r, c) for r in range(2) for c in range(3)}
    assert set(out["cells"][0]) == {"row", "col", "numerator", "denominator", "win_rate"}
    assert exact.main(["3x3x2", "--first-click", "1,1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"level", "first_click", "numerator", "denominator", "win_rate", "seconds"}
    assert Fraction(out["numerator"], out["denominator"]) == first_click_values("3x3x2")[(1, 1)]


@pytest.mark.parametrize("argv, needle", [
    (["4x4x4", "--first-click", "centre"], "--first-click"), (["8x8x10"], "5,000,000"),
    (["4x4"], "ROWSxCOLSxMINES"), (["4x4x4", "--first-click", "9,9"], "off the"), ([], "level is required"),
    (["4x4x4:sometimes"], "first_click must be one of")])
def test_command_errors_exit_2_with_one_line(argv, needle, capsys):
    assert exact.main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


# --------------------------------------------------------------------------- the table
def test_table_round_trip_and_merge(tmp_path):
    path = tmp_path / "t.csv"
    exact.compute_table(["2x3x2", "1x3x1"], path)
    exact.compute_table(["2x2x1:none"], path)  # added beside the others
    t = exact.load_table(path)
    assert list(t.columns) == list(exact.TABLE_COLUMNS)
    assert sorted(set(t["level"])) == ["1x3x1", "2x2x1:none", "2x3x2"]
    for level, df in t.groupby("level"):
        values = first_click_values(level)
        for row in df.itertuples():
            for cell in row.cells.split():
                r, c = map(int, cell.split(","))
                assert Fraction(row.numerator, row.denominator) == values[(r, c)]
        assert sum(len(row.split()) for row in df["cells"]) == Level.parse(level).cells


def test_committed_table_agrees_with_the_solver():
    t = exact.load_table()
    for level in ("1x3x1", "2x5x3", "4x4x4", "1x10x5"):
        values = first_click_values(level)
        for row in t[t["level"] == level].itertuples():
            assert Fraction(row.numerator, row.denominator) == values[(row.row, row.col)], (level, row.row, row.col)


# --------------------------------------------------------------------------- the optimal agent
def _layouts(level, avoid=()):
    lv = Level.parse(level)
    for mines in itertools.combinations([c for c in range(lv.cells) if c not in avoid], lv.mines):
        yield np.isin(np.arange(lv.cells), mines).reshape(lv.rows, lv.cols)


@pytest.mark.parametrize("level, first", [("2x5x3", "corner"), ("2x5x3", "best"), ("3x3x2", (1, 1))])
def test_agent_wins_exactly_the_optimal_share_of_every_layout(level, first):
    """Played on every layout its first click allows (`Game.from_mines`: the layout is
    fixed, so the rule does not matter), it wins W(first click) of them: optimal."""
    agent = ml.make_agent("optimal", first_click=first)
    lv = Level.parse(level)
    values = first_click_values(level, first)
    target = max(values.values())
    cell = min(c for c, v in values.items() if v == target)
    layouts = list(_layouts(level, avoid={cell[0] * lv.cols + cell[1]}))
    wins = sum(agent.play_game(ml.Game.from_mines(m)).won for m in layouts)
    assert Fraction(wins, len(layouts)) == target


@pytest.mark.parametrize("level, params", [("2x5x3", {}), ("1x10x5", {}),
                                           ("2x7x4", {"endgame_layouts": 1024, "endgame_budget": 10**9})])
def test_best_is_optimal_where_its_endgame_search_covers_the_whole_game(level, params):
    """`best` (exact endgame search once at most 256 layouts remain, or endgame_layouts)
    on boards whose corner opening leaves at most that many layouts: it wins exactly
    W(corner) of them, for any seed (its random tie-breaks only choose among equal
    values). 2x7x4 leaves 715: the search's sets of more than 256 layouts (more words,
    the memo keyed by hashes) are exact too."""
    lv = Level.parse(level)
    target = first_click_values(level, "corner")[(0, 0)]
    layouts = list(_layouts(level, avoid={0}))
    assert len(layouts) <= params.get("endgame_layouts", 256)
    for seed in (0, 1):
        agent = ml.make_agent("best", seed=seed, **params)
        wins = sum(agent.play_game(ml.Game.from_mines(m)).won for m in layouts)
        assert Fraction(wins, len(layouts)) == target, (level, seed, wins, lv)


def test_agent_batch_equals_interactive_and_is_deterministic():
    agent = ml.make_agent("optimal")
    df = ml.play(agent, "4x4x4", 60, seed=5)
    deal_rng, _ = run_streams(5)
    rows = [(g.won, len(g.moves)) for g in (agent.play_game(ml.Game("4x4x4", seed=deal_rng)) for _ in range(60))]
    assert list(zip(df["won"], df["moves"])) == rows
    assert df["guesses"].ge(0).all()
    assert ml.play(ml.make_agent("optimal", seed=9), "4x4x4", 60, seed=5).equals(df)


def test_agent_never_reads_the_hidden_mines():
    """Every view after the corner click on 2x5x3: all the layouts that show it get the
    same decision (whatever mines are hidden)."""
    agent = ml.make_agent("optimal")
    by_view, count = {}, {}
    for m in _layouts("2x5x3", avoid={0}):
        game = ml.Game.from_mines(m)
        game.reveal(0, 0)
        if not game.over:
            key = game.view.tobytes()
            by_view.setdefault(key, set()).add(agent.choose(game))
            count[key] = count.get(key, 0) + 1
    assert all(len(moves) == 1 for moves in by_view.values())
    assert len(by_view) >= 5 and max(count.values()) >= 10


def test_agent_refuses_boards_too_large_for_the_solver():
    agent = ml.make_agent("optimal")
    with pytest.raises(ValueError, match=r"optimal agent: level 8x8x10: .*5,000,000"):
        ml.play(agent, "8x8x10", 1)
    with pytest.raises(ValueError, match="64 cells"):
        agent.choose(ml.Game("9x9x10"))
    with pytest.raises(ValueError, match="first_click"):
        ml.make_agent("optimal", first_click="centre")


# --------------------------------------------------------------------------- bounds
@pytest.mark.parametrize("level", ["3x4x3", "2x6x4", "4x4x4"])
def test_bounds_bracket_the_exact_value(level):
    truth = first_click_values(level)
    for limit in (8, 40):
        low = exact.lower_bounds(level, "best", limit)
        for depth in (0, 1):
            high = exact.upper_bounds(level, "best", limit, depth)
            assert all(low[c] <= truth[c] <= high[c] for c in truth), (limit, depth)
    assert exact.lower_bounds(level, "best", 10**6) == truth == exact.upper_bounds(level, "best", 10**6, 0)
    assert exact.lower_bounds(level, "best", 8) != truth  # the bounds do bound something


def test_bounds_file(tmp_path):
    path = tmp_path / "b.csv"
    exact.compute_bounds("2x6x4", "lower", 8, path=path)
    t = exact.compute_bounds("2x6x4", "upper", 8, 0, path=path)
    assert list(t.columns) == list(exact.BOUNDS_COLUMNS) and set(t["bound"]) == {"lower", "upper"}
    truth = first_click_values("2x6x4")
    for row in t.itertuples():
        value = Fraction(row.numerator, row.denominator)
        assert (value <= truth[(row.row, row.col)]) if row.bound == "lower" else (value >= truth[(row.row, row.col)])
