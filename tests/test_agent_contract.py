"""The contract every registered agent keeps, checked for every name in ml.list_agents():
an agent registered tomorrow is covered without editing this file.

- its golden playthrough (tests/playthroughs/<agent>.txt) is what it plays today, and
  behaviour.json (the digests the sweep stamps result files with) matches the files;
- batch play (numba kernels) makes the same games as interactive play (act / game_over);
- the same seed gives the same games; bad parameters raise ValueError naming the field;
- records have the runner's columns plus the agent's extra fields, with sane values;
- no agent but a labelled cheat reads the hidden mines during play.
"""
import copy
import json

import numpy as np
import pandas as pd
import pytest

import minelab as ml
from minelab import playthrough, provenance
from minelab.engine import RECORD_FIELDS, neighbour_counts, run_streams

AGENTS = ml.list_agents()
SMALL_ONLY = set(playthrough.SMALL_BOARD_AGENTS)  # agents that play boards of at most 16 cells


def make(name, **kw):
    """The agent as the contract plays it: an agent tied to one board size (an RL learner)
    with its playthrough parameters, so its greedy choices and updates are exercised too;
    a tree search with few simulations (playthrough.SEARCH_AGENTS); a trained agent with
    its small training (playthrough.TRAINED_AGENTS)."""
    return ml.make_agent(name, **playthrough.agent_params(name), **kw)


def levels_for(name):
    return ["4x4x3", "4x4x2:opening"] if name in SMALL_ONLY else ["5x5x3", "8x8x10:opening", "6x7x8:none"]


# --------------------------------------------------------------------------- golden playthroughs
def _same_as_file(path, got: str, what: str) -> None:
    """Fail with the start of a diff unless `got` is the text of golden file `path`."""
    assert path.exists(), f"no {path.name}: run `make playthroughs`"
    expected = path.read_text()
    if got != expected:
        import difflib

        diff = "".join(list(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                                 "golden", "now", n=2))[:60])
        pytest.fail(f"{what} ({path.name}). If you meant it, run `make playthroughs` and say so in the commit.\n{diff}")


@pytest.mark.parametrize("name", [pytest.param(a, marks=pytest.mark.slow) if a == "best" else a for a in AGENTS])
def test_golden_playthrough_is_what_the_agent_plays(name):  # best's: about a minute
    got = playthrough.playthrough(name)
    _same_as_file(playthrough.default_dir() / f"{name}.txt", got,
                  f"{name} plays differently from its golden playthrough")
    if name in playthrough.DEEP_BATCHES:  # here, so the kernels the golden file compiled serve them
        problem = playthrough.deep_check(name, playthrough.digest(got))
        assert problem is None, problem
    if name in playthrough.OPTION_BATCHES:
        _same_as_file(playthrough.options_path(name), playthrough.options_playthrough(name),
                      f"{name} plays differently with an option on")


def test_deep_batches_catch_play_the_golden_file_misses(tmp_path, monkeypatch):
    """A deep batch whose records changed while the golden file did not fails the check and
    `regenerate` refuses, writing nothing; a golden file changed with it only asks for
    `make playthroughs`."""
    monkeypatch.setattr(playthrough, "DEEP_BATCHES", {"csp": (("8x8x10", 50, 1),)})
    golden = playthrough.digest((playthrough.default_dir() / "csp.txt").read_text())
    text = playthrough.deep_batches("csp", golden)
    assert "golden digest " + golden in text and "records sha256" in text
    path = playthrough.deep_path("csp", tmp_path)
    path.write_text(text)
    assert playthrough.deep_check("csp", golden, tmp_path) is None
    line = next(x for x in text.splitlines() if "records sha256" in x)
    path.write_text(text.replace(line, line[:-16] + "0" * 16))
    problem = playthrough.deep_check("csp", golden, tmp_path)
    assert problem and "while its golden playthrough" in problem and "EXTRA_BATCHES" in problem
    before = ml.agents.base.BEHAVIOUR_FILE.read_text()
    with pytest.raises(ValueError, match="EXTRA_BATCHES"):
        playthrough.regenerate(tmp_path, ["csp"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["csp.deep.txt"]
    assert ml.agents.base.BEHAVIOUR_FILE.read_text() == before
    assert "make playthroughs" in playthrough.deep_check("csp", "0" * 16, tmp_path)
    path.unlink()
    assert "no deep batches file" in playthrough.deep_check("csp", golden, tmp_path)


def test_behaviour_digests_match_the_golden_files():
    """behaviour.json is rewritten with the files: a change of play cannot keep old digests,
    so the sweep's cached results of that agent are recomputed."""
    table = json.loads(ml.agents.base.BEHAVIOUR_FILE.read_text())
    options = [name + ml.agents.base.OPTIONS_SUFFIX for name in playthrough.OPTION_BATCHES]
    assert sorted(table) == sorted(AGENTS + options)
    for name in AGENTS:
        text = (playthrough.default_dir() / f"{name}.txt").read_text()
        assert table[name] == playthrough.digest(text), f"behaviour.json is stale for {name}: run `make playthroughs`"
    for name in playthrough.OPTION_BATCHES:
        text = playthrough.options_path(name).read_text()
        assert table[name + ml.agents.base.OPTIONS_SUFFIX] == playthrough.digest(text), \
            f"behaviour.json is stale for {name}'s options: run `make playthroughs`"


def test_option_batches_switch_on_every_option_field():
    """Each of an agent's option_fields is set away from its default in some option batch,
    and a batch sets nothing else: the options playthrough runs every optional step."""
    for name in AGENTS:
        cls = type(ml.make_agent(name, **playthrough.agent_params(name)))
        assert bool(cls.option_fields) == (name in playthrough.OPTION_BATCHES), name
        if not cls.option_fields:
            continue
        switched = set()
        for options in playthrough.OPTION_BATCHES[name]:
            assert set(options) <= cls.option_fields, f"{name}: {sorted(set(options) - cls.option_fields)}"
            switched |= set(cls.Params.make(name, **options).params())
        assert switched == set(cls.option_fields), f"{name}: no batch sets {sorted(cls.option_fields - switched)}"


def test_every_option_the_studies_judge_is_pinned_as_it_is_played():
    """The option sets the strength study judges (its ablations, options table, options check,
    guess details, chain check, and the changes undone) are option batches as they stand (a
    first click aside): a change of any of their plays changes best+options, so their
    results are recomputed, not served."""
    from minelab.studies import strength

    batches = [dict(o) for o in playthrough.OPTION_BATCHES["best"]]
    undone = {name: params for name, (_, params) in strength.CHANGES.items()}
    for table in (strength.ABLATIONS, strength.OPTIONS, strength.CHECK_OPTIONS, strength.GUESS_DETAILS,
                  strength.CHAIN_CHECK, undone):
        for label, options in table.items():
            played = {k: v for k, v in options.items() if k != "first_click"}
            assert played in batches, f"{label!r} ({played}) is not in OPTION_BATCHES['best']"


def test_results_with_an_option_on_rest_on_the_options_playthrough():
    """A task (and a runner's numbers) of best with an optional step on carries the digest of
    best+options beside best's; the defaults, a first click and other agents do not."""
    from minelab import sweep

    task = {"kind": "play", "agent": "best", "level": "8x8x10", "n_games": 5, "seed": 1}
    assert set(sweep.code_stamp(task)["agents"]) == {"best"}
    assert set(sweep.code_stamp({**task, "agent_params": {"first_click": [3, 3]}})["agents"]) == {"best"}
    stamp = sweep.code_stamp({**task, "agent_params": {"chain_fifty_fifty": True}})["agents"]
    assert stamp == {"best": playthrough._behaviour_table()["best"],
                     "best+options": playthrough._behaviour_table()["best+options"]}
    assert set(sweep.code_stamp({**task, "agent": "csp"})["agents"]) == {"csp"}
    assert ml.agents.pinned_names("best", {"no_such_setting": 1}) == ["best", "best+options"]  # unread: both
    provenance.take()
    ml.play(ml.make_agent("best", sure_mines=True), "4x4x2", 2, seed=0, progress=False)
    assert {t.partition("=")[0] for t in provenance.take()} == {"best", "best+options"}


def test_playthrough_check_reports_a_changed_file(tmp_path):
    (tmp_path / "random.txt").write_text(playthrough.playthrough("random").replace("reveal", "flag", 1))
    (tmp_path / "oracle.txt").write_text(playthrough.playthrough("oracle"))
    assert playthrough.changed(tmp_path, ["random", "oracle"]) == ["random"]


# --------------------------------------------------------------------------- batch == interactive
def play_interactively(name, level, n_games, seed):
    """The runner's contract by hand: Game + act() until over, then game_over(), on the
    run's two streams."""
    deal_rng, agent_rng = run_streams(seed)
    agent = make(name)
    agent.rng = agent_rng
    rows = []
    for _ in range(n_games):
        game = agent.play_game(ml.Game(level, seed=deal_rng))
        rows.append((bool(game.won), len(game.moves), game.revealed))
    return rows


@pytest.mark.parametrize("name", AGENTS)
def test_batch_play_equals_interactive_play(name):
    for level in levels_for(name):
        df = ml.play(make(name), level, 40, seed=13)
        assert list(zip(df["won"], df["moves"], df["revealed"])) == play_interactively(name, level, 40, 13), level


# --------------------------------------------------------------------------- determinism, records
@pytest.mark.parametrize("name", AGENTS)
def test_same_seed_same_games(name):
    level = levels_for(name)[0]
    a, b = ml.play(make(name), level, 150, seed=4), ml.play(make(name), level, 150, seed=4)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("name", AGENTS)
def test_records_have_the_runner_columns_and_sane_values(name):
    level = ml.Level(levels_for(name)[0])
    agent = make(name)
    df = ml.play(agent, level, 100, seed=2)
    assert list(df.columns[1:1 + len(RECORD_FIELDS)]) == list(RECORD_FIELDS)
    assert set(agent.extra_fields) <= set(df.columns)
    assert ((df["revealed"] >= 0) & (df["revealed"] <= level.safe_cells)).all()
    assert (df["won"] == (df["revealed"] == level.safe_cells)).all()
    assert (df["clicks"] >= 1).all() and (df["safe_clicks"] <= df["clicks"]).all()
    assert (df["moves"] == df["clicks"] + df["flag_moves"]).all()
    assert set(df.attrs) >= {"agent", "level", "seed", "seconds", "compile_seconds"}


@pytest.mark.parametrize("name", AGENTS)
def test_unknown_parameter_is_a_clear_error(name):
    with pytest.raises(ValueError, match="no_such_param"):
        ml.make_agent(name, no_such_param=1)


@pytest.mark.parametrize("name", AGENTS)
def test_agent_describes_itself(name):
    agent = ml.make_agent(name)
    assert agent.name == name and type(agent).__doc__
    assert repr(agent).startswith(type(agent).__name__)
    json.dumps(agent.params(), default=str)  # params are plain values (records, task keys)


# --------------------------------------------------------------------------- no peeking
def _scramble_hidden(game, rng):
    """Another hidden layout under the same view: the covered cells' mines (and counts)
    are redealt; what the player sees does not change."""
    gs = game._gs
    covered = np.flatnonzero(gs.shown < 0)
    mines_left = int(gs.mine[covered].sum())
    gs.mine[covered] = 0
    gs.mine[rng.choice(covered, mines_left, replace=False)] = 1
    shown_counts = gs.counts.copy()
    neighbour_counts(gs.mine, gs.nbr, gs.nbr_count, gs.counts)
    revealed = gs.shown >= 0
    gs.counts[revealed] = shown_counts[revealed]


@pytest.mark.parametrize("name", [a for a in AGENTS if not ml.make_agent(a).cheat])
def test_no_agent_reads_the_hidden_mines(name):
    """Same view, same agent state, another hidden layout: the same next move. (From the
    second decision on: the bandit agents' default opening is the authors' program
    clicking the first zero for them, documented as not the agent's move.)"""
    level = levels_for(name)[1]
    checked = 0
    for seed in range(30):
        game, agent = ml.Game(level, seed=seed), make(name, seed=seed)
        agent.act(game)
        while not game.over and checked < 40:
            # copied together, so an agent's per-game memory follows its game into the copy
            same, same_agent = copy.deepcopy((game, agent))
            twin, twin_agent = copy.deepcopy((game, agent))
            _scramble_hidden(twin, np.random.default_rng(seed))
            assert same_agent.choose(same) == twin_agent.choose(twin), \
                f"{name} read the hidden mines ({level}, seed {seed})"
            checked += 1
            agent.act(game)
    assert checked >= 10


def test_the_peeking_check_catches_the_oracle():
    """The check above fails for an agent that reads the mines: the labelled cheat."""
    caught = False
    for seed in range(6):
        game, agent = ml.Game("8x8x10", seed=seed), ml.make_agent("oracle")
        agent.act(game)
        twin = copy.deepcopy(game)
        _scramble_hidden(twin, np.random.default_rng(seed))
        caught |= agent.choose(game) != agent.choose(twin)
    assert caught
