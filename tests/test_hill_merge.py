"""tools/hill/hill.py merge: the rows of two shadow runs put into the shadow data, whole games
only (the harness itself needs node and Hill's checkout; merging needs neither)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

HILL = Path(__file__).resolve().parent.parent / "tools" / "hill" / "hill.py"


@pytest.fixture(scope="module")
def hill():
    spec = importlib.util.spec_from_file_location("hill_tool", HILL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NEW, OLD = "best new", "best old"


def run(hill, out: Path, games: list[tuple], guesses: list[tuple], tag: str) -> None:
    """A shadow file and its _games file: a game row per (game, agent), a guess row per
    (game, step, agent); `tag` marks which file a row came from."""
    base = {"level": "16x30x99", "commit": "c", "seed": tag}
    hill.harness.write_rows(out, [{**base, "game": g, "step": s, "agent": a} for g, s, a in guesses],
                            hill.SHADOW_COLUMNS)
    hill.harness.write_rows(out.with_name(out.stem + "_games.csv"),
                            [{**base, "game": g, "agent": a} for g, a in games], hill.SHADOW_GAME_COLUMNS)


def test_merge_takes_whole_games_keeps_other_rows_and_refuses_a_game_played_twice(hill, tmp_path):
    read = hill.harness.read_rows
    data = tmp_path / "shadow.csv"
    run(hill, data, [(0, OLD), (1, OLD), (5, OLD)], [(0, 1, OLD), (1, 1, OLD), (5, 2, OLD)], "old")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    # part a: games 1 and 0 of the new version, out of order; game 2 was cut off mid-game
    run(hill, a, [(1, NEW), (0, NEW)], [(1, 2, NEW), (1, 1, NEW), (0, 3, NEW), (2, 1, NEW)], "a")
    # part b: game 3 of the new version, and game 5 of the old one again (its old rows go)
    run(hill, b, [(3, NEW), (5, OLD)], [(3, 1, NEW), (5, 1, OLD)], "b")

    hill.merge_shadow([a, b], data)

    rows = [(r["agent"], int(r["game"]), int(r["step"]), r["seed"]) for r in read(data)]
    assert rows == [(OLD, 0, 1, "old"), (OLD, 1, 1, "old"), (OLD, 5, 1, "b"),
                    (NEW, 0, 3, "a"), (NEW, 1, 1, "a"), (NEW, 1, 2, "a"), (NEW, 3, 1, "b")]  # not game 2
    games = [(r["agent"], int(r["game"]), r["seed"]) for r in read(tmp_path / "shadow_games.csv")]
    assert games == [(OLD, 0, "old"), (OLD, 1, "old"), (OLD, 5, "b"), (NEW, 0, "a"), (NEW, 1, "a"), (NEW, 3, "b")]

    before = (data.read_text(), (tmp_path / "shadow_games.csv").read_text())
    c, empty = tmp_path / "c.csv", tmp_path / "empty.csv"
    run(hill, c, [(3, NEW)], [(3, 1, NEW)], "c")
    run(hill, empty, [], [], "")
    with pytest.raises(SystemExit, match=r"game 3 of 'best new' is in another part too"):
        hill.merge_shadow([c, c], data)
    with pytest.raises(SystemExit, match="no game rows"):
        hill.merge_shadow([empty], data)
    assert (data.read_text(), (tmp_path / "shadow_games.csv").read_text()) == before  # nothing half-written
