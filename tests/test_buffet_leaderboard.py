"""Buffet 2012 Table 1 and the leaderboard: published data, table rows, run sizes, errors."""
import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402
from fractions import Fraction  # noqa: E402

import minelab as ml  # noqa: E402
from minelab import provenance, report  # noqa: E402
from minelab.sweep import validate_tasks  # noqa: E402
from minelab.papers import buffet2012 as buffet
from minelab.studies import leaderboard as board  # noqa: E402
from minelab.profiles import PROFILES, resolve_params  # noqa: E402


@pytest.fixture(autouse=True)
def results_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("MINELAB_FIGURES_DIR", str(tmp_path / "figures"))


# --------------------------------------------------------------------------- published data
def test_buffet_published_table1_loads_with_every_printed_value():
    df = report.load_published("buffet2012")
    assert set(df["item"]) == {"Table 1", "Fig 2", "Fig 3"} and df["value"].between(0, 1).all()
    fig2 = df[df["item"] == "Fig 2"].set_index("quantity")
    centre = fig2.loc["win rate, 5x5 with 15 mines, GnoMine rule, first move in the centre"]
    assert (centre["value"], centre["relation"]) == (1.0, "=")  # the caption's 100% for the centre opening
    assert fig2.loc["win rate, 5x5 with 15 mines, GnoMine rule, first move in the corner", "relation"] == "<"
    pub = buffet.published()
    counts = pub.groupby("column").size().to_dict()
    # blanks where the paper prints none: 1x3 (HCSP), 8x8 (CSP-PGMS), 8x8 and bigger (BSSUCT)
    assert counts == {"CSP-PGMS": 10, "HCSP": 10, "BSSUCT": 7, "OH": 11}
    cell = pub.set_index(["level", "column"])
    assert cell.loc[("9x9x10", "HCSP"), "value"] == pytest.approx(0.905)
    assert cell.loc[("16x30x99", "HCSP"), "games"] == 10_000
    assert cell.loc[("16x16x40", "HCSP"), ["ci_low", "ci_high"]].tolist() == pytest.approx([0.760, 0.768])
    assert cell.loc[("16x30x99", "OH"), ["ci_low", "ci_high"]].tolist() == pytest.approx([0.369, 0.405])
    assert ("8x8x10", "CSP-PGMS") not in cell.index and ("1x3x1", "HCSP") not in cell.index


def test_leaderboard_published_numbers_load_and_parse():
    df = board.load_published()
    assert set(df["level"]) == set(board.LEVELS)
    assert set(df["rule"]) <= set(board.RULES) | set(board.PUBLISHED_ONLY_RULES)
    # the bandit paper's program opens the first zero of a column-major scan: neither safe nor opening
    assert set(df.loc[df["program"] == "Lordeiro et al.'s greedy MAB", "rule"]) == {"first-zero scan"}
    got = df.set_index(["level", "program", "rule"])["value"]
    assert got[("8x8x10", "PSEQ-D256", "safe")] == pytest.approx(0.817711)
    assert got[("9x9x10", "PSEQ-D256", "safe")] == pytest.approx(0.916949)
    assert got[("16x16x40", "PSEQ-D256", "safe")] == pytest.approx(0.782295)
    assert got[("16x30x99", "Hill's solver", "safe")] == pytest.approx(0.4113)
    assert got[("16x30x99", "Hill's solver", "opening")] == pytest.approx(0.543)
    assert (df["source"] != "").all()


# --------------------------------------------------------------------------- run sizes
@pytest.mark.parametrize("module", [buffet, board], ids=["buffet2012", "leaderboard"])
def test_profile_sizes_are_valid_and_ordered(module):
    assert set(module.SIZES) == set(PROFILES)
    keys = set(module.SIZES["quick"])
    for profile in PROFILES:
        assert set(module.SIZES[profile]) == keys
        run = resolve_params(module.SIZES, profile, 0)
        assert all(isinstance(run[k], int) and run[k] >= 1 for k in keys)
    for k in keys:
        assert module.SIZES["smoke"][k] <= module.SIZES["quick"][k] <= module.SIZES["paper"][k]
    with pytest.raises(ValueError, match="games must be a positive integer"):
        resolve_params(module.SIZES, "quick", 0, {"games": 0})


def test_paper_profiles_are_the_papers_sizes():
    assert buffet.SIZES["paper"] == {"games": 100_000, "expert_games": 10_000, "tree_games": 4_000,
                                     "fig2_games": 10_000}
    assert [buffet.simulations(lv) for lv in ("4x4x4", "9x9x10", "16x16x40", "16x30x99")] == [10_000, 10_000, 100, 100]
    assert board.SIZES["paper"]["games"] == 100_000 and board.SIZES["paper"]["expert_games"] == 20_000


# --------------------------------------------------------------------------- tables
def test_table1_has_every_format_and_column():
    res = buffet.table1_win_rates(games=6, expert_games=3, tree_games=0, seed=1, executor="serial",
                                  agents={buffet.CSP: "random", "HCSP": "not-an-agent", "BSSUCT": "uct", "OH": "oh"})
    t = res.table
    assert len(t) == 11 * 5  # the four published columns and minelab csp beside them
    assert list(dict.fromkeys(t["level"])) == [lv for _, lv in buffet.FORMATS]
    by = t.set_index(["level", "column"])
    bss = by.xs("BSSUCT", level="column")
    documented = bss["published"].notna()
    assert documented.sum() == 7 and (bss.loc[~documented, "status"] == "not documented in the paper").all()
    assert (bss.loc[documented, "status"] == "not run (tree_games=0)").all()
    assert (by.xs("OH", level="column")["status"] == "not run (tree_games=0)").all()
    assert (by.xs("HCSP", level="column")["status"] == "agent 'not-an-agent' not registered").all()
    assert (by.xs("CSP-PGMS", level="column")["status"] == "no minelab twin").all()
    csp = by.xs(buffet.CSP, level="column")
    assert (csp["status"] == "measured").all()
    assert csp.loc["16x30x99", "games"] == 3 and csp.loc["4x4x4", "games"] == 6
    assert (csp["ci_low"] <= csp["win_rate"]).all() and (csp["win_rate"] <= csp["ci_high"]).all()
    assert by.loc[("1x3x1", "CSP-PGMS"), "published"] == 1.0
    # measured rows pair with the published ones in REPORT.md: same item and quantity
    assert {m["quantity"] for m in res.measured} == {buffet.quantity(buffet.CSP, lv) for _, lv in buffet.FORMATS}
    assert all("standing in" in m["note"] for m in res.measured)
    assert {m["agents"] for m in res.measured} == {"random"}  # the agent that played it (its code stamp)
    layout = buffet.table1_layout(t)
    assert len(layout) == 11 and (layout["OH minelab"] == "not run (tree_games=0)").all()
    assert res.figure is not None


def test_table1_measures_csp_and_hcsp_on_the_same_boards():
    if not {"csp", "hcsp"} <= set(ml.list_agents()):
        pytest.skip("csp / hcsp not registered yet")
    res = buffet.table1_win_rates(games=20, expert_games=2, tree_games=3, seed=0, executor="serial",
                                  formats=["1x3x1", "4x4x4"])
    t = res.table.set_index(["level", "column"])
    assert t.loc[("1x3x1", buffet.CSP), "win_rate"] == 1.0  # a corner click on 1x3x1 always wins
    assert t.loc[("4x4x4", "HCSP"), "status"] == "measured"
    for col in buffet.TREE_COLUMNS:  # the tree searches, at the paper's 10,000 simulations per move
        assert t.loc[("4x4x4", col), "status"] == "measured" and t.loc[("4x4x4", col), "games"] == 3
        assert t.loc[("4x4x4", col), "simulations"] == 10_000 and t.loc[("1x3x1", col), "win_rate"] == 1.0
    published = set(report.load_published("buffet2012")["quantity"])
    assert {m["quantity"] for m in res.measured} <= published | {buffet.quantity("HCSP", "1x3x1")} | {
        buffet.quantity(buffet.CSP, lv) for _, lv in buffet.FORMATS}


def test_leaderboard_has_every_level_and_rule_for_every_agent():
    agents = ["random", "oracle", "sa-greedy", "greedy-mab", "marginal"]
    sizes = dict(board.SIZES["smoke"], games=6, expert_games=3, slow_expert_games=2, train_games=20,
                 expert_train_games=5, test_games=4, expert_test_games=2)
    res = board.leaderboard_win_rates(**sizes, seed=2, executor="serial", agents=agents, slow=["oracle"])
    t = res.table
    ours = t[t["kind"] != "published"]
    assert len(ours) == len(agents) * len(board.LEVELS) * len(board.RULES)
    for agent in agents:
        part = ours[ours["agent"] == agent]
        assert set(zip(part["level"], part["rule"])) == {(lv, r) for lv in board.LEVELS for r in board.RULES}
    kind = ours.groupby("agent")["kind"].first()
    assert kind["oracle"] == "cheat (ceiling)" and kind["sa-greedy"] == "skipped" and kind["random"] == "minelab"
    assert (ours.loc[ours["agent"] == "oracle", "win_rate"] == 1.0).all()
    assert ours.loc[ours["agent"] == "sa-greedy", "note"].str.contains("16 cells").all()
    games = ours.set_index(["agent", "level", "rule"])["games"]
    assert games[("random", "8x8x10", "safe")] == 6 and games[("random", "16x30x99", "opening")] == 3
    assert games[("oracle", "16x30x99", "safe")] == 2 and games[("oracle", "9x9x10", "safe")] == 6  # slow
    assert games[("greedy-mab", "9x9x10", "opening")] == 4 and games[("marginal", "16x30x99", "safe")] == 2
    learner = ours[ours["agent"].isin(["greedy-mab", "marginal"])]
    assert learner["training"].str.startswith("trained ").all()
    assert learner.loc[learner["level"] == "16x30x99", "training"].str.contains("trained 5 games").all()
    # published rows are there, labelled, and the measured rows use the published quantities' form
    pub = t[t["kind"] == "published"]
    assert len(pub) == len(board.load_published())
    quantities = {(m["item"], m["quantity"]) for m in res.measured}
    assert ("16x30x99", "random win rate, first click opening") in quantities
    assert not any("sa-greedy" in q for _, q in quantities)
    assert all(m["quantity"].startswith(m["agents"] + " win rate") for m in res.measured)  # each row's code stamp
    summary = board.summary(t)
    assert "random" in summary.index and "PSEQ-D256 (published)" in summary.index
    assert list(summary.columns)[:2] == ["8x8x10, safe", "8x8x10, opening"]
    report.publish(res, board.PAPER, board.NOTEBOOK, "smoke")
    cmp = board.compare()
    assert not cmp.empty
    # a published program minelab does not implement reads "no minelab twin", never "not yet reproduced"
    peers = cmp[cmp["quantity"].str.startswith("PSEQ-D256")]
    assert len(peers) == 8 and peers["verdict"].str.startswith("no minelab twin").all()
    assert peers["verdict"].str.contains("beside it, best win rate, first click").all()


def test_no_guess_column_plays_every_agent_on_no_guess_boards():
    """The no-guess column: csp (exact deduction, then the least probable cell) wins every
    board, random does not; learners train on the no-guess level; no published row."""
    agents = ["csp", "random", "greedy-mab"]
    sizes = dict(board.SIZES["smoke"], games=8, expert_games=4, slow_expert_games=2, train_games=20,
                 expert_train_games=5, test_games=6, expert_test_games=3)
    res = board.no_guess_win_rates(**sizes, seed=1, executor="serial", agents=agents)
    t = res.table
    assert res.name == "no_guess_win_rates" and set(t["kind"]) == {"minelab"} and set(t["rule"]) == {"no-guess"}
    assert len(t) == len(agents) * len(board.LEVELS)
    rates = t.set_index(["agent", "level"])["win_rate"]
    assert (rates["csp"] == 1.0).all() and (rates["random"] < 1.0).any()
    mab = t[t["agent"] == "greedy-mab"]
    assert mab["training"].str.contains(":no-guess").all() and (mab["games"] > 0).all()
    assert {m["quantity"] for m in res.measured} >= {"csp win rate, first click no-guess"}
    assert list(board.summary(t).columns) == [f"{lv}, no-guess" for lv in board.LEVELS]
    assert provenance.function_token(board.no_guess_win_rates) in provenance.take()  # its stamp names its own code


def test_table_learners_are_the_learners_whose_memory_is_whole_boards():
    from minelab.agents.rl.table import CoveredTable, StateTable
    whole = set()
    for r in board.roster().itertuples():
        agent = ml.make_agent(r.agent)
        if r.how == "learner" and hasattr(agent, "_allocate"):
            agent._allocate(16)  # the table a 16-cell board gives it
        if isinstance(getattr(agent, "table", None), (StateTable, CoveredTable)):
            whole.add(r.agent)
    assert whole == set(board.TABLE_LEARNERS)


def test_table_learners_train_at_most_table_train_games(monkeypatch):
    class Stop(Exception):
        pass

    seen = {}

    def capture(tasks, **kwargs):
        seen["tasks"] = tasks
        raise Stop

    monkeypatch.setattr(board, "run_sweep", capture)
    sizes = dict(board.SIZES["smoke"], train_games=50, expert_train_games=40, table_train_games=30)
    with pytest.raises(Stop):
        board.leaderboard_win_rates(**sizes, agents=["q-learning", "mcts", "greedy-mab"], levels=["8x8x10", "16x30x99"])
    trained = {(t["agent"], t["schedule"][0][0].split(":")[0]): t["schedule"][0][1] for t in seen["tasks"]
               if t["kind"] == "train_test"}
    assert trained == {("q-learning", "8x8x10"): 30, ("q-learning", "16x30x99"): 30, ("mcts", "8x8x10"): 30,
                       ("mcts", "16x30x99"): 30, ("greedy-mab", "8x8x10"): 50, ("greedy-mab", "16x30x99"): 40}
    assert "q-learning, sarsa, mcts at most 200,000" in board.training_sizes("paper")


def test_roster_lists_every_registered_agent():
    who = board.roster()
    assert list(who["agent"]) == ml.list_agents()
    how = who.set_index("agent")["how"]
    assert how["oracle"] == "cheat" and how["sa-greedy"] == "skip" and how["greedy-mab"] == "bandit"
    assert how["marginal"] == "learner" and how["random"] == "plain"


def test_play_tasks_share_boards_across_agents_and_sizes():
    quick = board.play_tasks(["a", "b"], "9x9x10", 10_000, seed=3)
    paper = board.play_tasks(["a", "b"], "9x9x10", 100_000, seed=3)
    assert len(quick) == 4 and len(paper) == 40
    assert quick[0]["seed"] == quick[1]["seed"] != quick[2]["seed"]
    assert quick == paper[:4]  # a paper run reuses the quick run's chunks
    odd = board.play_tasks(["a"], "9x9x10", 12_345, seed=3)
    assert [t["n_games"] for t in odd] == [5_000, 5_000, 2_345]


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("kwargs, needle", [
    ({"games": 0}, "games must be a positive integer"),
    ({"expert_games": "many"}, "expert_games must be a positive integer"),
    ({"seed": -1}, "seed must be a non-negative integer"),
    ({"agents": {"PSEQ": "csp"}}, "is not one minelab measures"),
    ({"tree_games": -1}, "tree_games must be a non-negative integer"),
    ({"agents": ["csp"]}, "agents must be a dict"),
    ({"formats": ["7x7x7"]}, "not a Table 1 format"),
])
def test_table1_rejects_bad_parameters(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        buffet.table1_win_rates(executor="serial", **kwargs)


@pytest.mark.parametrize("kwargs, needle", [
    ({"games": -3}, "games must be a positive integer"),
    ({"train_games": 1.5}, "train_games must be a positive integer"),
    ({"seed": "zero"}, "seed must be a non-negative integer"),
    ({"agents": ["no-such-agent"]}, "is not one of"),
    ({"agents": "random"}, "agents must be a list"),
    ({"rules": ["none"]}, "rules: 'none' is not one of"),
    ({"levels": ["8x8x10:opening"]}, "the rules come from `rules`"),
    ({"levels": ["8x8"]}, "levels:"),
    ({"slow": "best"}, "slow must be a list of agent names"),
])
def test_leaderboard_rejects_bad_parameters(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        board.leaderboard_win_rates(executor="serial", **kwargs)


def test_train_test_task_is_checked():
    from minelab.tasks import train_spec

    base = train_spec("marginal", {}, [("9x9x10", 10)], [("9x9x10", 5)], seed=1)
    validate_tasks([base])
    with pytest.raises(ValueError, match="does not learn"):
        validate_tasks([{**base, "agent": "random"}])
    with pytest.raises(ValueError, match="each entry must be \\[level, positive games\\]"):
        validate_tasks([{**base, "tests": [["9x9x10", 0]]}])
    with pytest.raises(ValueError, match="not a 'train_test' param"):
        validate_tasks([{**base, "flood": False}])
    with pytest.raises(ValueError, match="has no table"):
        validate_tasks([{**base, "table": True}])


def test_fig2_gnomine_centre_opening_wins_every_game(tmp_path, monkeypatch):
    """Fig 2 (bottom): `best` opening in the centre of 5x5/15 under GnoMine's rule wins every
    game (the caption's 100%); from the corner it loses most."""
    monkeypatch.setenv("MINELAB_RESULTS", str(tmp_path))
    r = buffet.fig02_gnomine_first_move(games=200, seed=3, executor="serial")
    t = r.table.set_index("first_click")
    assert t.loc["centre", "wins"] == 200 and t.loc["centre", "published"] == 1.0
    assert t.loc["corner", "win_rate"] < 0.2
    assert {m["quantity"] for m in r.measured} == {buffet.fig2_quantity("centre"), buffet.fig2_quantity("corner")}


def test_fig2_positions_analysed_find_the_safe_cell_and_the_better_least_probable_cell():
    """Fig 2's positions through ml.analyse: after GnoMine's centre click one layout is left
    and best reveals its one safe outer cell; on the surveyed top position the least
    probable cells differ in exact value and best takes an optimal one."""
    r = buffet.fig02_positions_analysed(buffet.SURVEY_LEVELS["smoke"])
    t = r.table.set_index("position")
    for cell in buffet.FIG2_GNOMINE_CASES:
        row = t.loc[f"Fig 2 bottom, safe outer cell {cell}"]
        assert row["layouts"] == 1 and row["certain_safe"] == row["best_move"] == f"{cell[0]},{cell[1]}"
    top = t.loc["Fig 2 top: least probable cells of different value"]
    values = {Fraction(v) for v in top["least_values"].split()}
    assert len(values) > 1 and Fraction(top["best_value"]) == Fraction(top["optimum"]) == max(values)
    assert top["best_optimal"] and len(r.analyses) == len(t)
