"""The fidelity ledger (minelab.ledger, report.ledger, REPORT.md's opening table)."""
import math

import pandas as pd
import pytest

from minelab import ledger, report

NAN = float("nan")


def pub(quantity="win rate, 8x8x10", value=0.5, relation="=", lo=NAN, hi=NAN, games=None, item="Table 1", **kw):
    return {"item": item, "quantity": quantity, "value": value, "ci_low": lo, "ci_high": hi, "games": games,
            "relation": relation, "rounding": kw.pop("rounding", 0.0), "twin": kw.pop("twin", ""),
            "chosen_to_match": kw.pop("chosen_to_match", ""), **kw}


def meas(value, lo=NAN, hi=NAN, games=None, runs=None, profile="paper", quantity="win rate, 8x8x10", item="Table 1",
         **kw):
    return {"item": item, "quantity": quantity, "value": value, "ci_low": lo, "ci_high": hi, "games": games,
            "runs": runs, "profile": profile, **kw}


def test_rounding_is_half_the_last_printed_digit():
    assert ledger.rounding_of("0.647") == pytest.approx(0.0005)
    assert ledger.rounding_of("15170") == 0.5
    assert ledger.rounding_of("1e8") == 0.0
    # 0.6475 lies outside (0.60, 0.6474) but within the printed precision of "0.647"
    assert ledger.verdict("=", 0.647, NAN, NAN, 0.62, 0.60, 0.6466, rounding=0.0005) == "agrees"
    assert ledger.verdict("=", 0.647, NAN, NAN, 0.62, 0.60, 0.6460) == "differs"


def test_runs_use_the_prediction_interval_of_one_run():
    # mean 0.70 of 3 runs, t-interval +-0.01: one more run lies within about +-0.0116 * sqrt(3) * sqrt(4/3) = 0.0232
    assert ledger.verdict("=", 0.72, NAN, NAN, 0.70, 0.69, 0.71, runs=3) == "agrees"
    assert ledger.verdict("=", 0.72, NAN, NAN, 0.70, 0.69, 0.71) == "differs"  # one run: the interval itself
    assert ledger.verdict("=", 0.75, NAN, NAN, 0.70, 0.69, 0.71, runs=3) == "differs"
    assert ledger.verdict("≈", 0.73, 0.725, 0.735, 0.70, 0.69, 0.71, runs=3) == "differs"
    assert ledger.verdict("≈", 0.72, 0.715, 0.725, 0.70, 0.69, 0.71, runs=3) == "agrees"


def test_two_proportion_test_counts_both_sides():
    # 0.799 of 10^5 against 0.787 of 10^5: significant; against 0.797 of 10^5: not
    assert ledger.verdict("=", 0.799, NAN, NAN, 0.787, 0.7845, 0.7895, pub_games=100_000, games=100_000,
                          proportion=True) == "differs"
    assert ledger.verdict("=", 0.799, NAN, NAN, 0.797, 0.7945, 0.7995, pub_games=100_000, games=100_000,
                          proportion=True) == "agrees"
    # a published side of only 1,000 games: a 2-point gap is within both sides' error
    assert ledger.verdict("=", 0.80, NAN, NAN, 0.78, 0.7774, 0.7826, pub_games=1_000, games=100_000,
                          proportion=True) == "agrees"
    assert ledger.verdict("=", 0.80, NAN, NAN, 0.78, 0.7774, 0.7826) == "differs"  # without the count


def _reading(name="the authors' code", kind="program", scope="win rate, *", item="Table 1"):
    return {"paper": "buffet2012", "item": item, "reading": name, "kind": kind, "change": "x", "support": "y",
            "scope": scope, "experiment": "f()"}


def _cat(p, rows, readings=(), twins=(), extra=(), published=None):
    by_key = {}
    for r in [*rows, *extra]:
        by_key.setdefault((r["item"], r["quantity"]), []).append(r)
    results = ledger.reading_results(published or [p], list(readings), list(twins), by_key)
    return ledger.classify(p, rows, results, by_key)


def test_classify_every_category():
    reading = _reading()
    twin = {"paper": "buffet2012", "item": "Table 1", "quantity": "win rate, 8x8x10", "reading": "the authors' code",
            "variant": "win rate, 8x8x10 [variant: code]"}
    variant_ok = meas(0.50, 0.49, 0.51, quantity="win rate, 8x8x10 [variant: code]")
    variant_bad = meas(0.40, 0.39, 0.41, quantity="win rate, 8x8x10 [variant: code]")
    main_bad = [meas(0.45, 0.44, 0.46)]
    assert _cat(pub(), [meas(0.5, 0.49, 0.51)])["category"] == ledger.AGREES
    line = _cat(pub(), main_bad, [reading], [twin], [variant_ok])
    assert line["category"] == ledger.CAUSE and "the authors' code" in line["verdict"]
    assert "credited: reproduces all 1" in line["detail"]
    line = _cat(pub(), main_bad, [reading], [twin], [variant_bad])
    assert line["category"] == ledger.UNEXPLAINED and "1 reading tried, none credited" in line["verdict"]
    assert "partial: 0 of 1" in line["detail"]
    never_run = _cat(pub(), main_bad, [reading], [twin])  # variant never run: not a credited reading
    assert never_run["category"] == ledger.UNEXPLAINED and "not run" in never_run["detail"]
    assert _cat(pub(), main_bad)["category"] == ledger.UNEXPLAINED
    assert _cat(pub(relation="<", value=0.1), main_bad)["category"] == ledger.BOUND_NOT_MET
    assert _cat(pub(relation="<", value=0.9), main_bad)["category"] == ledger.BOUND_MET
    assert _cat(pub(relation="<", value=0.455), main_bad)["category"] == ledger.UNDECIDED
    assert _cat(pub(), [])["category"] == ledger.NOT_YET
    assert _cat(pub(twin="none: another program"), main_bad)["category"] == ledger.NO_TWIN
    chosen = _cat(pub(chosen_to_match="picked because it matched"), [meas(0.5, 0.49, 0.51)])
    assert chosen["category"] == ledger.CHOSEN and "chosen" in chosen["verdict"]
    assert _cat(pub(range="0..1"), [meas(0.5, -0.1, 1.2)])["category"] == ledger.UNINFORMATIVE


def test_a_reading_is_credited_only_when_it_reproduces_its_whole_scope():
    """Scope comes from the change: a reading that matches one number of three (the others
    failing or never run) credits nothing; one without support never credits."""
    pubs = [pub(quantity=f"win rate, {lv}", value=0.5) for lv in ("a", "b", "c")]
    rows = [meas(0.45, 0.44, 0.46, quantity=f"win rate, {lv}") for lv in ("a", "b", "c")]

    def twins(reading, levels):
        return [{"paper": "buffet2012", "item": "Table 1", "quantity": f"win rate, {lv}", "reading": reading,
                 "variant": f"win rate, {lv} [{reading}]"} for lv in levels]

    def variants(reading, values):
        return [meas(v, v - 0.01, v + 0.01, quantity=f"win rate, {lv} [{reading}]") for lv, v in values.items()]

    def line(reading, tw, extra):
        return _cat(pubs[0], rows[:1], [reading], tw, [*rows[1:], *extra], published=pubs)

    r = _reading("r")
    # runs on one number only (where it matches): partial, 2 not run
    partial = line(r, twins("r", "a"), variants("r", {"a": 0.5}))
    assert partial["category"] == ledger.UNEXPLAINED and "partial: 1 of 3 (2 not run)" in partial["detail"]
    # runs everywhere, fails on one: partial
    mixed = line(r, twins("r", "abc"), variants("r", {"a": 0.5, "b": 0.5, "c": 0.3}))
    assert mixed["category"] == ledger.UNEXPLAINED and "partial: 2 of 3" in mixed["detail"]
    # reproduces all three: credited
    full = line(r, twins("r", "abc"), variants("r", {"a": 0.5, "b": 0.5, "c": 0.5}))
    assert full["category"] == ledger.CAUSE
    # the same with no support: not credited
    bare = _reading("r", kind="none")
    unsupported = line(bare, twins("r", "abc"), variants("r", {"a": 0.5, "b": 0.5, "c": 0.5}))
    assert unsupported["category"] == ledger.UNEXPLAINED and "no support" in unsupported["detail"]
    summary = ledger.reading_summary(pd.DataFrame(pubs), pd.DataFrame([*rows, *variants("r", {"a": 0.5})]),
                                     pd.DataFrame([r]), pd.DataFrame(twins("r", "abc")))
    assert summary.iloc[0][["n", "run", "k", "credited"]].tolist() == [3, 1, 1, False]


def test_a_reading_of_the_printed_number_rereads_its_interval():
    """A reading of how a number was printed (what its ± is) judges our own twin against
    the published interval under that reading."""
    p = pub("win rate, 8x8x10", 0.70, lo=0.695, hi=0.705)
    ours = meas(0.69, 0.685, 0.695)
    reading = _reading("± as one standard error", kind="open")
    twin = {"paper": "buffet2012", "item": "Table 1", "quantity": "win rate, 8x8x10", "reading": reading["reading"],
            "variant": "", "published_as": "0.690..0.710"}
    assert _cat(p, [ours])["category"] == ledger.UNEXPLAINED
    assert _cat(p, [ours], [reading], [twin])["category"] == ledger.CAUSE
    narrow = {**twin, "published_as": "0.6951..0.7049"}
    assert _cat(p, [ours], [reading], [narrow])["category"] == ledger.UNEXPLAINED


def test_one_interval_rule_for_points_approximations_and_bounds():
    # mean 0.72 of 3 runs, t-interval +-0.01: one more run lies within about +-0.02
    assert ledger.verdict(">", 0.70, NAN, NAN, 0.72, 0.71, 0.73) == "bound met"  # one run: its own interval
    assert ledger.verdict(">", 0.70, NAN, NAN, 0.72, 0.71, 0.73, runs=3).startswith("undecided")
    assert ledger.verdict(">", 0.60, NAN, NAN, 0.72, 0.71, 0.73, runs=3) == "bound met"
    assert ledger.verdict("<", 0.705, NAN, NAN, 0.72, 0.71, 0.73, runs=3).startswith("undecided")
    assert ledger.verdict("<", 0.70, NAN, NAN, 0.72, 0.71, 0.73) == "bound not met"


def test_uninformative_when_the_interval_covers_every_possible_value():
    # a rank among 7 agents: runs 4, 4, 2 -> the prediction interval covers 1..7
    low, high = 10 / 3 - 2.868, 10 / 3 + 2.868
    assert ledger.verdict("=", 2, NAN, NAN, 10 / 3, low, high, runs=3, span=(1, 7)) == ledger.UNINFORMATIVE
    assert ledger.verdict("=", 2, NAN, NAN, 10 / 3, low, high, runs=3) == "agrees"  # without the range it "agrees"
    assert ledger.verdict("=", 2, NAN, NAN, 2.2, 1.9, 2.5, runs=30, span=(1, 7)) == "agrees"
    with pytest.raises(ValueError, match="low..high"):
        ledger.parse_range("7")


def test_a_claim_about_two_quantities_is_judged_on_their_difference():
    twin = "difference: Conditional model | success rate, 1 mines minus Marginal model | success rate, 1 mines"
    claim = pub("Conditional minus Marginal, 1 mine", 0.05, relation="≤", item="Model comparison", twin=twin)
    a = meas(0.95, 0.94, 0.96, games=10**5, item="Conditional model", quantity="success rate, 1 mines")
    b = meas(0.75, 0.74, 0.76, games=10**5, item="Marginal model", quantity="success rate, 1 mines")
    by_key = ledger.rows_by_key(pd.DataFrame([a, b]))
    rows = ledger.twin_rows(claim, by_key)
    assert len(rows) == 1 and rows[0]["value"] == pytest.approx(0.20)
    assert rows[0]["ci_high"] - rows[0]["value"] == pytest.approx(math.hypot(0.01, 0.01))
    assert ledger.classify(claim, rows, [], by_key)["category"] == ledger.BOUND_NOT_MET
    assert ledger.classify({**claim, "value": 0.3}, rows, [], by_key)["category"] == ledger.BOUND_MET
    # means of runs: each side's prediction interval of one run
    ra = meas(0.70, 0.69, 0.71, runs=3, item="Fig 7", quantity="greedy")
    rb = meas(0.66, 0.65, 0.67, runs=3, item="Fig 7", quantity="UCB")
    d = ledger.difference_row(ra, rb)
    half = ledger._prediction_half(0.69, 0.71, 3)
    assert d["ci_high"] - d["value"] == pytest.approx(math.hypot(half, half)) and d["runs"] is None
    with pytest.raises(ValueError, match="minus"):
        ledger.parse_difference("difference: a | b")


def test_the_authors_program_column_says_whose_number_it_gives():
    paper = pub("MAB actions recorded", 13940, games=None)
    ours = meas(2700, 2600, 2800, runs=3, quantity="MAB actions recorded")
    prog = {**meas(2688, 2590, 2790, runs=3, quantity="MAB actions recorded"), "program": "P", "commit": "c"}
    assert ledger.compare_program(paper, ours, prog) == "the authors' program gives ours, not the paper's number"
    far = {**prog, "value": 13900, "ci_low": 13800, "ci_high": 14000}
    assert ledger.compare_program(paper, ours, far) == "differs from the authors' program too"
    near_paper = meas(13950, 13800, 14100, runs=3, quantity="MAB actions recorded")
    assert ledger.compare_program(paper, near_paper, far).startswith("agrees with the authors' program")


def test_the_largest_profile_is_judged():
    rows = [meas(0.1, 0.09, 0.11, profile="quick"), meas(0.5, 0.49, 0.51, profile="paper"),
            meas(0.2, 0.19, 0.21, profile="smoke")]
    assert ledger.pick_measured(rows)["profile"] == "paper"
    assert ledger.classify(pub(), rows, [], {})["category"] == ledger.AGREES


def test_counts_and_explained_share():
    lines = pd.DataFrame({"category": [ledger.AGREES, ledger.CAUSE, ledger.UNEXPLAINED, ledger.NOT_YET,
                                       ledger.NO_TWIN, ledger.CHOSEN]})
    c = ledger.counts(lines)
    assert c["published"] == 6 and c["with a twin"] == 5  # not yet reproduced: a twin, not explained
    assert c["explained share"] == pytest.approx(2 / 5)  # agrees + credited reading
    assert c["reproduced share"] == pytest.approx(1 / 5)  # agrees only: the headline's first share


@pytest.fixture
def figs(tmp_path, monkeypatch):
    folder = tmp_path / "figures"
    monkeypatch.setenv("MINELAB_FIGURES_DIR", str(folder))
    return folder


def test_report_opens_with_the_ledger_computed_from_the_data(figs):
    report.record_measured("antimatroid2012", [
        {"item": "Mine uniformity", "quantity": "degrees of freedom", "value": 80},
        {"item": "Mine uniformity", "quantity": "chi2 critical 0.05", "value": 50.0},
    ], notebook="antimatroid2012_agents.ipynb", profile="quick")
    text = report.build_report().read_text()
    head = text.split("\n## lordeiro2021\n")[0]
    assert "## Ledger: every published number and its verdict" in head
    full = report.ledger()
    numbers = full[full["kind"] == "number"]  # the first table: numbers; claims are counted apart
    total = ledger.counts(numbers)
    row = next(line for line in head.splitlines() if line.startswith("| **total** |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert int(cells[1]) == total["published"] == len(numbers)
    assert f"{total['reproduced share']:.0%} agree or meet their bound" in head
    assert int(cells[2]) == total["with a twin"]
    anti = full[(full["paper"] == "antimatroid2012") & (full["item"] == "Mine uniformity")].set_index("quantity")
    assert anti.loc["degrees of freedom", "category"] == ledger.AGREES
    assert anti.loc["chi2 critical 0.05", "category"] in (ledger.UNEXPLAINED, ledger.CAUSE)
    assert "differs" in anti.loc["chi2 critical 0.05", "verdict"]


def test_every_committed_published_number_has_a_relation_and_a_citation():
    for paper in report.PAPERS:
        df = report.load_published(paper)  # refuses an empty relation, a '≈' without its range
        assert (df["relation"] != "").all()
        cites_us = df["source"].str.contains(r"steering|\.\./shared|authors-code|^issue|minelab issue", regex=True)
        assert not cites_us.any(), paper


READINGS_HEADER = "paper,item,reading,kind,change,support,scope,experiment\n"
GOOD_READING = "buffet2012,Table 1,r,text,x,y,*,\n"
TWINS_HEADER = "paper,item,quantity,reading,variant,published_as\n"


@pytest.mark.parametrize("readings, twins, match", [
    ("nobody2020,Table 1,r,text,x,y,*,\n", None, "readings.csv.*unknown paper"),
    ("buffet2012,Table 1,r,maybe,x,y,*,\n", None, "kind 'maybe'"),
    ("buffet2012,Table 1,r,text,x,,*,\n", None, "empty support"),
    (GOOD_READING, "buffet2012,Table 1,q,unregistered,v,\n", "does not register"),
    (GOOD_READING, "buffet2012,Table 1,q,r,,\n", "a variant, a published_as or both"),
    (GOOD_READING, "buffet2012,Table 1,q,r,,0.5\n", "published_as '0.5'"),
])
def test_a_malformed_readings_file_is_refused(tmp_path, readings, twins, match):
    (tmp_path / "readings.csv").write_text(READINGS_HEADER + readings)
    if twins is not None:
        (tmp_path / "reading_twins.csv").write_text(TWINS_HEADER + twins)
    with pytest.raises(ValueError, match=match):
        report.load_reading_twins(tmp_path) if twins is not None else report.load_readings(tmp_path)


def test_committed_readings_name_published_numbers_in_their_scope():
    readings, twins = report.load_readings(), report.load_reading_twins()
    item_of = {(r["paper"], r["reading"]): r for r in readings.to_dict("records")}
    for r in readings.to_dict("records"):  # every committed reading's scope holds a published number
        pub_rows = report.load_published(r["paper"])
        assert any(ledger.in_scope(q, r["scope"], i, r["item"])
                   for i, q in zip(pub_rows["item"], pub_rows["quantity"])), r
    for t in twins.to_dict("records"):  # and every twin names a published number in its reading's scope
        pub_rows = report.load_published(t["paper"])
        assert ((pub_rows["item"] == t["item"]) & (pub_rows["quantity"] == t["quantity"])).any(), t
        r = item_of[(t["paper"], t["reading"])]
        assert ledger.in_scope(t["quantity"], r["scope"], t["item"], r["item"]), t


def test_authors_program_files_are_checked(tmp_path):
    header = ",".join(ledger.AUTHORS_COLUMNS) + "\n"
    (tmp_path / "bilir2023.csv").write_text(header + "bilir2023,Fig 1,q,abc,,,100,1,P,c,cmd,1,\n")
    with pytest.raises(ValueError, match="authors' program CSV.*value"):
        report.load_authors("bilir2023", tmp_path)
    (tmp_path / "bilir2023.csv").write_text(header + "bilir2023,Fig 1,q,0.5,,,100,1,P,,cmd,1,\n")
    with pytest.raises(ValueError, match="commit and command"):
        report.load_authors("bilir2023", tmp_path)
    assert report.load_authors("gardea2015", tmp_path).empty
    for paper in report.PAPERS:  # the committed ones load, and name published or measured numbers, or variants
        prog = report.load_authors(paper)
        if prog.empty:
            continue
        rows = set(zip(*(report.load_published(paper)[c] for c in ("item", "quantity"))))
        rows |= set(zip(*(report.load_measured(paper)[c] for c in ("item", "quantity"))))
        for r in prog.to_dict("records"):
            assert (r["item"], r["quantity"]) in rows or "[authors' program variant" in r["quantity"], r


def test_the_authors_program_stands_beside_a_number_only_minelab_measured(figs):
    """A program's number of a quantity the paper does not publish (MCTS with 1 simulation at
    400,000 games: the paper gives only the 10-simulation rate and the ratio) is shown beside
    minelab's measurement of it, with whether the two can be told apart."""
    item, quantity = "Fig A1", "MCTS, 1 simulation per state: win rate after 400,000 games"
    prog = report.load_authors("bilir2023").set_index("quantity").loc[quantity]
    assert prog["item"] == item and prog["program"] == "cs238project"
    for value, said in ((float(prog["value"]), "the same number as ours"), (0.5, "differs from ours")):
        report.record_measured("bilir2023", {"item": item, "quantity": quantity, "value": value,
                                             "ci_low": value - 0.003, "ci_high": value + 0.003, "games": 10_000},
                               notebook="bilir2023_rl.ipynb", profile="paper")
        text = report.build_report().read_text()
        line = next(x for x in text.splitlines() if x.startswith(f"| {quantity} | no published value"))
        assert "cs238project" in line and line.rstrip(" |").endswith(said), line


def test_fmt_value_says_runs_and_games():
    assert ledger.fmt_value(0.5, 0.4, 0.6, 1000, 3) == "0.5 (0.4, 0.6), 3 runs of 1,000 games"
    assert ledger.fmt_value(0.5, NAN, NAN, 1000) == "0.5, 1,000 games"
    assert ledger.fmt_value(NAN) == ""
    assert ledger.counts(pd.DataFrame({"category": [ledger.NOT_YET]}))["explained share"] == 0
    assert math.isnan(ledger.counts(pd.DataFrame({"category": [ledger.NO_TWIN]}))["explained share"])


def test_a_program_without_twin_is_compared_with_the_number_set_beside_it():
    beside = "best win rate, first click safe, final evaluation"
    twin = f"none: not implemented in minelab{ledger.BESIDE}{beside}"
    peer = pub("PSEQ-D256 win rate, first click safe", 0.8177, lo=0.81764, hi=0.81778, games=10**8, item="8x8x10",
               twin=twin)

    def line(value, lo, hi, games):
        ours = meas(value, lo, hi, games, item="8x8x10", quantity=beside)
        return ledger.classify(peer, [], [], ledger.rows_by_key(pd.DataFrame([ours])))

    higher = line(0.8183, 0.81806, 0.81854, 10**7)
    assert higher["category"] == ledger.NO_TWIN  # another program: never counted as a reproduction
    assert "ours higher" in higher["verdict"] and "+0.060 points" in higher["detail"]
    assert higher["measured"]["quantity"] == beside and "p = " in higher["how"]
    lower = line(0.8170, 0.81676, 0.81724, 10**7)
    assert "ours lower" in lower["verdict"] and "-0.070 points" in lower["detail"]
    # 10^6 games: +0.01 points is within both sides' error
    assert "not distinguishable" in line(0.8178, 0.81704, 0.81855, 10**6)["verdict"]
    # the interval of the difference combines both sides' errors: sqrt(0.00024^2 + 0.00007^2) ~ 0.00025
    text = line(0.8183, 0.81806, 0.81854, 10**7)["detail"]
    low, high = (float(x) for x in text.split("[")[1].split("]")[0].split(", "))
    assert low == pytest.approx(0.060 - 0.025, abs=0.002) and high == pytest.approx(0.060 + 0.025, abs=0.002)
    # not measured yet: said so; no beside quantity: the plain no-twin verdict
    assert "not yet measured" in ledger.classify(peer, [], [], {})["detail"]
    plain = ledger.classify({**peer, "twin": "none: another program"}, [], [], {})
    assert plain["verdict"] == ledger.NO_TWIN and plain["measured"] is None
    assert plain["detail"] == "no minelab twin: another program"
    # a published number with neither interval nor game count: ours above / below / around it
    bare = {**peer, "ci_low": NAN, "ci_high": NAN, "games": None, "value": 0.543, "rounding": 0.0005}
    ours = meas(0.5396, 0.5386, 0.5406, 10**6, item="8x8x10", quantity=beside)
    text, _ = ledger.compare_beside(bare, ours)
    assert "ours below it" in text
    assert "not distinguishable" in ledger.compare_beside({**bare, "value": 0.5405}, ours)[0]


def test_a_stale_row_is_never_judged():
    rows = [meas(0.5, 0.49, 0.51, profile="paper", stale="made by an earlier version of best"),
            meas(0.1, 0.09, 0.11, profile="quick")]
    assert ledger.pick_measured(rows)["profile"] == "quick"
    assert ledger.classify(pub(), rows, [], {})["category"] != ledger.AGREES  # the stale 0.5 would agree
    line = ledger.classify(pub(), rows[:1], [], {})
    assert line["category"] == ledger.NOT_YET
    assert "paper measurement was made by an earlier version of best" in line["detail"]


def test_a_measurement_by_an_earlier_version_of_its_agent_is_shown_not_judged(figs, monkeypatch):
    item, quantity = "Mine uniformity", "degrees of freedom"  # published: 80
    report.record_measured("antimatroid2012", {"item": item, "quantity": quantity, "value": 80, "agents": "csp"},
                           notebook="x.ipynb", profile="paper")
    report.record_measured("antimatroid2012", {"item": item, "quantity": quantity, "value": 70,
                                               "agents": ["random", "csp"]}, notebook="x.ipynb", profile="quick")
    stored = report.load_measured("antimatroid2012")
    today = report.golden_digests()
    assert list(stored["code"]) == [f"csp={today['csp']}", f"csp={today['csp']} random={today['random']}"]
    assert list(stored["stale"]) == ["", ""]

    def line():
        full = report.ledger("antimatroid2012")
        return full[(full["item"] == item) & (full["quantity"] == quantity)].iloc[0]

    def changed(name):  # the golden digests after `name`'s play changed
        monkeypatch.setattr(report, "golden_digests", lambda: {**today, name: "0" * 16})

    assert line()["category"] == ledger.AGREES and line()["profile"] == "paper"
    changed("csp")
    stored = report.load_measured("antimatroid2012")
    assert list(stored["stale"]) == ["made by an earlier version of csp"] * 2
    assert line()["category"] == ledger.NOT_YET and "earlier version of csp" in line()["detail"]
    shown = report.compare("antimatroid2012", item).set_index("quantity").loc[[quantity]]
    assert shown["verdict"].str.startswith("stale, not judged").all()
    assert "(stale, not judged: made by an earlier version of csp)" in report.build_report().read_text()
    changed("random")  # the csp-only paper row is current again: it is judged
    assert line()["category"] == ledger.AGREES and line()["profile"] == "paper"
    with pytest.raises(ValueError, match="agents: unknown agent"):
        report.record_measured("antimatroid2012", {"item": item, "quantity": quantity, "value": 1,
                                                   "agents": "no-such-agent"}, notebook="x.ipynb", profile="quick")
    with pytest.raises(ValueError, match="agents must be an agent name or a list"):
        report.record_measured("antimatroid2012", {"item": item, "quantity": quantity, "value": 1,
                                                   "agents": 3}, notebook="x.ipynb", profile="quick")


def test_each_verdict_detail_says_each_thing_once():
    """A detail line of REPORT.md never repeats its verdict or its test ("no minelab twin.
    no minelab twin: ...", the interval's sentence twice)."""
    from pathlib import Path

    report = (Path(__file__).resolve().parent.parent / "figures" / "REPORT.md").read_text()
    details = [line for line in report.splitlines() if line.startswith("- **")]
    assert len(details) > 50
    for line in details:
        verdict_and_test, _, rest = line.split("**: ", 1)[1].partition(". ")
        assert not rest.startswith(verdict_and_test.split(";")[0] + ":"), line  # "no minelab twin. no minelab twin:"
        parts = [p.strip(" .") for p in line.split("**: ", 1)[1].split(". ")]
        long_parts = [p for p in parts if len(p) > 40]
        assert len(long_parts) == len(set(long_parts)), line
