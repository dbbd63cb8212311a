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


def test_classify_every_category():
    causes = [{"item": "Table 1", "quantity": "win rate, 8x8x10", "variant": "win rate, 8x8x10 [variant: code]",
               "cause": "the authors' code", "experiment": "f()"}]
    variant_ok = meas(0.50, 0.49, 0.51, quantity="win rate, 8x8x10 [variant: code]")
    variant_bad = meas(0.40, 0.39, 0.41, quantity="win rate, 8x8x10 [variant: code]")
    main_bad = [meas(0.45, 0.44, 0.46)]

    def cat(p, rows, cs=(), extra=()):
        by_key = {}
        for r in [*rows, *extra]:
            by_key.setdefault((r["item"], r["quantity"]), []).append(r)
        return ledger.classify(p, rows, list(cs), by_key)

    assert cat(pub(), [meas(0.5, 0.49, 0.51)])["category"] == ledger.AGREES
    line = cat(pub(), main_bad, causes, [variant_ok])
    assert line["category"] == ledger.CAUSE and "the authors' code" in line["verdict"] and "f()" in line["verdict"]
    line = cat(pub(), main_bad, causes, [variant_bad])
    assert line["category"] == ledger.UNEXPLAINED and "tested: the authors' code" in line["verdict"]
    assert cat(pub(), main_bad, causes)["category"] == ledger.UNEXPLAINED  # variant never run: not a tested cause
    assert "not yet run" in cat(pub(), main_bad, causes)["verdict"]
    assert cat(pub(), main_bad)["category"] == ledger.UNEXPLAINED
    assert cat(pub(relation="<", value=0.1), main_bad)["category"] == ledger.BOUND_NOT_MET
    assert cat(pub(relation="<", value=0.9), main_bad)["category"] == ledger.BOUND_MET
    assert cat(pub(relation="<", value=0.455), main_bad)["category"] == ledger.UNDECIDED
    assert cat(pub(), [])["category"] == ledger.NOT_YET
    assert cat(pub(twin="none: another program"), main_bad)["category"] == ledger.NO_TWIN
    chosen = cat(pub(chosen_to_match="picked because it matched"), [meas(0.5, 0.49, 0.51)])
    assert chosen["category"] == ledger.CHOSEN and "chosen to match" in chosen["verdict"]


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
    assert c["explained share"] == pytest.approx(2 / 5)


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
    total = ledger.counts(full)
    row = next(line for line in head.splitlines() if line.startswith("| **total** |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert int(cells[1]) == total["published"] == len(full)
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


def test_causes_file_is_checked(tmp_path):
    (tmp_path / "causes.csv").write_text("paper,item,quantity,variant,cause,experiment\n"
                                         "nobody2020,Table 1,x,y,z,\n")
    with pytest.raises(ValueError, match="causes.csv.*unknown paper"):
        report.load_causes(tmp_path)
    (tmp_path / "causes.csv").write_text("paper,item,quantity,variant,cause,experiment\n"
                                         "buffet2012,Table 1,x,,z,\n")
    with pytest.raises(ValueError, match="empty field"):
        report.load_causes(tmp_path)
    committed = report.load_causes()
    for r in committed.to_dict("records"):  # every committed cause names a published number
        pub_rows = report.load_published(r["paper"])
        assert ((pub_rows["item"] == r["item"]) & (pub_rows["quantity"] == r["quantity"])).any(), r


def test_fmt_value_says_runs_and_games():
    assert ledger.fmt_value(0.5, 0.4, 0.6, 1000, 3) == "0.5 (0.4, 0.6), 3 runs of 1,000 games"
    assert ledger.fmt_value(0.5, NAN, NAN, 1000) == "0.5, 1,000 games"
    assert ledger.fmt_value(NAN) == ""
    assert ledger.counts(pd.DataFrame({"category": [ledger.NOT_YET]}))["explained share"] == 0
    assert math.isnan(ledger.counts(pd.DataFrame({"category": [ledger.NO_TWIN]}))["explained share"])


def test_cause_summary_counts_what_each_variant_reproduces():
    published = pd.DataFrame([pub(quantity="a"), pub(quantity="b")])
    measured = pd.DataFrame([meas(0.5, 0.49, 0.51, quantity="a [v]"), meas(0.3, 0.29, 0.31, quantity="b [v]")])
    causes = pd.DataFrame([{"item": "Table 1", "quantity": q, "variant": f"{q} [v]", "cause": "v", "experiment": ""}
                           for q in ("a", "b")])
    row = ledger.cause_summary(published, measured, causes).iloc[0]
    assert (row["tested on"], row["reproduces"]) == (2, 1)


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
    assert "ours higher" in higher["verdict"] and "+0.060 points" in higher["verdict"]
    assert higher["measured"]["quantity"] == beside and "p = " in higher["how"]
    lower = line(0.8170, 0.81676, 0.81724, 10**7)
    assert "ours lower" in lower["verdict"] and "-0.070 points" in lower["verdict"]
    # 10^6 games: +0.01 points is within both sides' error
    assert "not distinguishable" in line(0.8178, 0.81704, 0.81855, 10**6)["verdict"]
    # the interval of the difference combines both sides' errors: sqrt(0.00024^2 + 0.00007^2) ~ 0.00025
    text = line(0.8183, 0.81806, 0.81854, 10**7)["verdict"]
    low, high = (float(x) for x in text.split("[")[1].split("]")[0].split(", "))
    assert low == pytest.approx(0.060 - 0.025, abs=0.002) and high == pytest.approx(0.060 + 0.025, abs=0.002)
    # not measured yet: said so; no beside quantity: the plain no-twin verdict
    assert "not yet measured" in ledger.classify(peer, [], [], {})["verdict"]
    plain = ledger.classify({**peer, "twin": "none: another program"}, [], [], {})
    assert plain["verdict"] == "no minelab twin: another program" and plain["measured"] is None
    # a published number with neither interval nor game count: ours above / below / around it
    bare = {**peer, "ci_low": NAN, "ci_high": NAN, "games": None, "value": 0.543, "rounding": 0.0005}
    ours = meas(0.5396, 0.5386, 0.5406, 10**6, item="8x8x10", quantity=beside)
    text, _ = ledger.compare_beside(bare, ours)
    assert "ours below it" in text
    assert "not distinguishable" in ledger.compare_beside({**bare, "value": 0.5405}, ours)[0]


def test_a_stale_row_is_never_judged():
    rows = [meas(0.5, 0.49, 0.51, profile="paper", stale="made by an earlier version of best", date="2026-11-22"),
            meas(0.1, 0.09, 0.11, profile="quick")]
    assert ledger.pick_measured(rows)["profile"] == "quick"
    assert ledger.classify(pub(), rows, [], {})["category"] != ledger.AGREES  # the stale 0.5 would agree
    line = ledger.classify(pub(), rows[:1], [], {})
    assert line["category"] == ledger.NOT_YET
    assert "paper measurement of 2026-11-22 was made by an earlier version of best" in line["verdict"]


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
    assert line()["category"] == ledger.NOT_YET and "earlier version of csp" in line()["verdict"]
    shown = report.compare("antimatroid2012", item).set_index("quantity").loc[[quantity]]
    assert shown["verdict"].str.startswith("stale, not judged").all()
    assert "(stale, not judged: measured" in report.build_report().read_text()
    changed("random")  # the csp-only paper row is current again: it is judged
    assert line()["category"] == ledger.AGREES and line()["profile"] == "paper"
    with pytest.raises(ValueError, match="agents: unknown agent"):
        report.record_measured("antimatroid2012", {"item": item, "quantity": quantity, "value": 1,
                                                   "agents": "no-such-agent"}, notebook="x.ipynb", profile="quick")
    with pytest.raises(ValueError, match="agents must be an agent name or a list"):
        report.record_measured("antimatroid2012", {"item": item, "quantity": quantity, "value": 1,
                                                   "agents": 3}, notebook="x.ipynb", profile="quick")
