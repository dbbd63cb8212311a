"""The fidelity ledger: a computed verdict for every published number.

Pure functions over three tables (no files, no imports above numpy/pandas/scipy):
the published numbers (`data/published/<paper>.csv`, as `report.load_published` reads
them), minelab's measured ones (`figures/<paper>/measured.csv`) and the tested causes
(`data/published/causes.csv`). `report.build_report` renders what this returns.

How a published number is compared (`verdict`), by the relation the text states:

* ``=`` a point value. When our number is the mean of several independent runs
  (`runs` > 1: learners, whose games teach each other) the published number, itself one
  run, agrees when it lies inside the 95% *prediction* interval of one more run
  (mean ± t(0.975, runs-1) · s · sqrt(1 + 1/runs)): both sides' run-to-run error is
  counted. When both sides are win rates with game counts (one run, independent games),
  Fisher's exact two-proportion test at 0.05 decides. When the source prints an interval
  (± half-width, read as a 95% interval), a z-test on the difference with both sides'
  standard errors. Otherwise the published value, widened by half a unit of its last
  printed digit, must lie in our 95% interval.
* ``≈`` an approximation: ci_low..ci_high of the published row hold the range the wording
  implies ("approximately 26 percent": 25.5-26.5%); agrees when our interval (the
  prediction interval of one run when ours is a mean of runs) meets it.
* ``<`` ``>`` ``≤`` ``≥`` a bound: met when our whole interval is on its side, not met
  when it is wholly on the other, undecided otherwise.

A number that does not agree is then checked against its tested causes: each names a
variant that minelab ran beside (a measured quantity of the same item, e.g. the authors'
code where the text says otherwise). When a variant's number agrees with (or meets) the
published one, the verdict is "differs — cause: ..."; when none does, "differs —
unexplained", listing what was tried. A reading chosen *because* it matched the published
number (the published row's `chosen_to_match`) is reported as such and never counted as
agreement. Which measurement is judged: the largest profile measured (paper, else quick,
else smoke) among the rows that are not stale (a measured row's `stale` field, filled by
`report.load_measured`, says when an agent it measured plays differently today). A number
whose every measurement is stale is "not yet reproduced", with the reason.
"""
from __future__ import annotations

import math

import pandas as pd
from scipy import stats as _st

# Ledger categories, in the order the ledger shows them.
AGREES = "agrees"
BOUND_MET = "bound met"
CAUSE = "differs: tested cause"
UNEXPLAINED = "differs: unexplained"
BOUND_NOT_MET = "bound not met"
UNDECIDED = "undecided"
CHOSEN = "agrees by a chosen reading (not counted)"
NOT_YET = "not yet reproduced"
NO_TWIN = "no minelab twin"
CATEGORIES = (AGREES, BOUND_MET, CAUSE, UNEXPLAINED, BOUND_NOT_MET, UNDECIDED, CHOSEN, NOT_YET, NO_TWIN)
GOOD = (AGREES, BOUND_MET, CAUSE)  # the target: at least 90% of the twins read one of these
PROFILE_RANK = {"paper": 3, "quick": 2, "smoke": 1}
CAUSES_COLUMNS = ("paper", "item", "quantity", "variant", "cause", "experiment")
ALPHA = 0.05


def _nan(x) -> bool:
    return x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x))


def _f(x) -> float:
    return float("nan") if _nan(x) else float(x)


def rounding_of(text: str) -> float:
    """Half a unit of the last printed digit of a number as written ("0.7025" -> 5e-05,
    "13940" -> 0.5); 0 for a number without digits after the point written in
    scientific notation or empty.

        >>> rounding_of("0.647"), rounding_of("99.2432"), rounding_of("15170")
        (0.0005, 5e-05, 0.5)
    """
    text = (text or "").strip()
    if not text or "e" in text.lower():
        return 0.0
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0 ** -decimals


def _prediction_half(low: float, high: float, runs: int) -> float:
    """Half-width of the 95% prediction interval of one more run, from the t-interval
    (low, high) of the mean of `runs` runs."""
    t = _st.t.ppf(1 - ALPHA / 2, runs - 1)
    s = (high - low) / 2 / t * math.sqrt(runs)
    return t * s * math.sqrt(1 + 1 / runs)


def _equal_test(published, pub_low, pub_high, ours, low, high, pub_games, games, runs, rounding,
                proportion) -> tuple[bool, str]:
    """(agrees, how it was decided) for a published point value."""
    has_ours = not (math.isnan(low) or math.isnan(high))
    if has_ours and runs is not None and runs > 1:
        half = _prediction_half(low, high, runs)
        return abs(published - ours) <= half + rounding, f"95% prediction interval of one run, {runs} runs"
    if proportion and pub_games and games and math.isnan(pub_low) and 0 <= ours <= 1 and 0 <= published <= 1:
        table = [[round(published * pub_games), pub_games - round(published * pub_games)],
                 [round(ours * games), games - round(ours * games)]]
        p = float(_st.fisher_exact(table).pvalue)
        return p >= ALPHA, f"two-proportion test p = {p:.3g}"
    if not (math.isnan(pub_low) or math.isnan(pub_high)) and has_ours:
        se = math.hypot((pub_high - pub_low) / 2, (high - low) / 2) / _st.norm.ppf(1 - ALPHA / 2)
        p = float(2 * _st.norm.sf(abs(published - ours) / se)) if se > 0 else float(published == ours)
        return p >= ALPHA, f"difference test on both intervals p = {p:.3g}"
    low = ours if math.isnan(low) else low
    high = ours if math.isnan(high) else high
    return low - rounding <= published <= high + rounding, "published value in our 95% interval"


# verdict takes both sides' numbers as plain arguments (12: the published value, range and
# count, ours with its interval, count and runs, the printed rounding, the kind) so that a
# notebook can judge any pair of numbers without building rows; `judge` takes rows.
def verdict(relation: str, published: float, pub_low: float, pub_high: float,
            ours: float, low: float, high: float, *, pub_games=None, games=None, runs=None,
            rounding: float = 0.0, proportion: bool = False) -> str:
    """How minelab's number (ours, 95% interval low..high, over `games` games or `runs`
    independent runs) stands to a published one stated with `relation`: "agrees",
    "differs", "bound met", "bound not met", "undecided (our interval meets the bound)",
    "not yet reproduced" (no number of ours) or "" (relation not classified). See the
    module docstring for the tests.

        >>> verdict(">", 0.31, float("nan"), float("nan"), 0.35, 0.34, 0.36)
        'bound met'
        >>> verdict("≈", 0.26, 0.255, 0.265, 0.20, 0.19, 0.21)
        'differs'
        >>> verdict("=", 0.70, float("nan"), float("nan"), 0.69, 0.68, 0.70, runs=3)
        'agrees'
    """
    return _verdict(relation, published, pub_low, pub_high, ours, low, high, pub_games=pub_games, games=games,
                    runs=runs, rounding=rounding, proportion=proportion)[0]


def _verdict(relation, published, pub_low, pub_high, ours, low, high, *, pub_games=None, games=None, runs=None,
             rounding=0.0, proportion=False) -> tuple[str, str]:
    """(verdict, how it was decided)."""
    if not relation:
        return "", ""
    ours, low, high = _f(ours), _f(low), _f(high)
    published, pub_low, pub_high = _f(published), _f(pub_low), _f(pub_high)
    if math.isnan(ours):
        return NOT_YET, ""
    runs = None if _nan(runs) else int(runs)
    pub_games = None if _nan(pub_games) else int(pub_games)
    games = None if _nan(games) else int(games)
    if relation == "=":
        ok, how = _equal_test(published, pub_low, pub_high, ours, low, high, pub_games, games, runs, rounding,
                              proportion)
        return ("agrees" if ok else "differs"), how
    low = ours if math.isnan(low) else low
    high = ours if math.isnan(high) else high
    if relation == "≈" and runs is not None and runs > 1 and high > low:
        half = _prediction_half(low, high, runs)  # the published number is one run: one more run's range
        low, high = ours - half, ours + half
    if relation == "≈":
        lo = published if math.isnan(pub_low) else pub_low
        hi = published if math.isnan(pub_high) else pub_high
        return ("agrees" if low <= hi and lo <= high else "differs"), "our interval meets the published range"
    above = {">": low > published, "≥": low >= published, "<": high < published, "≤": high <= published}[relation]
    against = {">": high <= published, "≥": high < published, "<": low >= published, "≤": low > published}[relation]
    if above:
        return "bound met", "our whole interval on the bound's side"
    return ("bound not met" if against else "undecided (our interval meets the bound)"), ""


def is_proportion(quantity: str, value: float) -> bool:
    """A win rate or a share: a proportion of independent games (Fisher's test applies)."""
    q = quantity.lower()
    return ("win rate" in q or "share" in q) and "ratio" not in q and "decrease" not in q and 0 <= value <= 1


def rows_by_key(measured: pd.DataFrame) -> dict:
    """(item, quantity) -> that quantity's measured rows (one per profile measured)."""
    by_key: dict = {}
    for r in measured.to_dict("records"):
        by_key.setdefault((r["item"], r["quantity"]), []).append(r)
    return by_key


def pick_measured(rows: list[dict]) -> dict | None:
    """The measurement the ledger judges: the largest profile (paper > quick > smoke) of
    the rows that are not stale; None when there is none."""
    current = [r for r in rows if not r.get("stale")]
    return max(current, key=lambda r: PROFILE_RANK.get(r.get("profile", ""), 0)) if current else None


def stale_note(rows: list[dict]) -> str:
    """Why a quantity measured only by stale rows has no measurement to judge ("" when
    none of its rows is stale), e.g. "the paper measurement of 2026-11-22 was made by an
    earlier version of best: rerun its notebook"."""
    stale = [r for r in rows if r.get("stale")]
    if not stale:
        return ""
    r = max(stale, key=lambda r: PROFILE_RANK.get(r.get("profile", ""), 0))
    return (f"the {r.get('profile', '')} measurement of {str(r.get('date', ''))[:10]} was {r['stale']}: "
            "rerun its notebook")


def judge(pub: dict, meas: dict | None) -> tuple[str, str]:
    """(verdict, how) of one published row (a dict of the published CSV, with `rounding`)
    against one measured row (or None)."""
    if meas is None:
        return NOT_YET, ""
    return _verdict(pub.get("relation", ""), pub["value"], pub["ci_low"], pub["ci_high"], meas["value"],
                    meas["ci_low"], meas["ci_high"], pub_games=pub.get("games"), games=meas.get("games"),
                    runs=meas.get("runs"), rounding=pub.get("rounding", 0.0),
                    proportion=is_proportion(pub["quantity"], _f(pub["value"])))


def fmt_value(value, lo=float("nan"), hi=float("nan"), games=None, runs=None) -> str:
    """'0.7041 (0.7032, 0.7050), 1,000,000 games' / '..., 3 runs of 1,000,000 games'."""
    if _nan(value):
        return ""
    value = float(value)
    text = f"{value:.6g}"
    if not (_nan(lo) and _nan(hi)):
        text += f" ({'?' if _nan(lo) else f'{float(lo):.6g}'}, {'?' if _nan(hi) else f'{float(hi):.6g}'})"
    if not _nan(runs) and int(runs) > 1:
        text += f", {int(runs)} runs" + ("" if _nan(games) else f" of {int(games):,} games")
    elif not _nan(games):
        text += f", {int(games):,} games"
    return text


def _cause_verdict(pub: dict, base: str, meas: dict, causes: list[dict], by_key: dict) -> tuple[str, str]:
    """(category, verdict text) of a published number whose main twin does not agree."""
    tried, found = [], []
    for c in causes:
        rows = by_key.get((c["item"], c["variant"]), [])
        same = [r for r in rows if r.get("profile") == meas.get("profile")]
        variant = pick_measured(same) or pick_measured(rows)
        if variant is None:
            why_not = stale_note(rows)
            tried.append(f"{c['cause']} (variant '{c['variant']}' not yet run{'; ' + why_not if why_not else ''})")
            continue
        v, _ = judge(pub, variant)
        shown = fmt_value(variant["value"], variant["ci_low"], variant["ci_high"], variant.get("games"),
                          variant.get("runs"))
        if v in ("agrees", "bound met"):
            where = f"; {c['experiment']}" if c.get("experiment") else ""
            found.append(f"{c['cause']} (variant '{c['variant']}': {shown}, {v}{where})")
        else:
            tried.append(f"{c['cause']} (variant '{c['variant']}': {shown}, {v})")
    if found:  # every variant that reproduces the number is named: the data may not tell them apart
        text = f"{base} — cause: {found[0]}"
        if len(found) > 1:
            text += "; as well reproduced by: " + "; ".join(found[1:])
        return CAUSE, text + ("; tested and rejected: " + "; ".join(tried) if tried else "")
    if tried:
        return UNEXPLAINED, f"{base} — unexplained; tested: " + "; ".join(tried)
    return UNEXPLAINED, f"{base} — unexplained"


BESIDE = "; beside: "  # in a twin "none: <why>; beside: <measured quantity of the same item>"


def compare_beside(pub: dict, ours: dict) -> tuple[str, str]:
    """(text, how) of a published number of another program against minelab's number set
    beside it (`ours`, a measured row of the same item): which is higher, by how much
    (points, with a 95% interval), or that the data cannot tell them apart. Both are win
    rates of independent games: the difference's standard error combines both sides'
    intervals (a side with a game count and no interval: its binomial error). A published
    number with neither gets only "ours is above / below / around it" (its printed
    rounding counted)."""
    def se(value, low, high, games):
        if not (_nan(low) or _nan(high)):
            return (float(high) - float(low)) / 2 / _st.norm.ppf(1 - ALPHA / 2)
        if not _nan(games) and int(games) > 0:
            return math.sqrt(float(value) * (1 - float(value)) / int(games))
        return float("nan")

    theirs, mine = _f(pub["value"]), _f(ours["value"])
    if math.isnan(mine):
        return "not yet measured", ""
    diff = 100 * (mine - theirs)
    s_pub = se(theirs, pub["ci_low"], pub["ci_high"], pub.get("games"))
    s_ours = se(mine, ours["ci_low"], ours["ci_high"], ours.get("games"))
    if math.isnan(s_pub):
        low, high = (mine if _nan(ours[k]) else float(ours[k]) for k in ("ci_low", "ci_high"))
        r = pub.get("rounding", 0.0) or 0.0
        word = ("above it" if low > theirs + r else "below it" if high < theirs - r
                else "not distinguishable from it")
        return f"{diff:+.3f} points: ours {word} (no published interval or game count)", \
            "our 95% interval against the published value"
    both = math.hypot(s_pub, s_ours) if not math.isnan(s_ours) else s_pub
    half = 100 * _st.norm.ppf(1 - ALPHA / 2) * both
    p = float(2 * _st.norm.sf(abs(mine - theirs) / both)) if both > 0 else float(mine == theirs)
    word = "not distinguishable" if p >= ALPHA else ("ours higher" if mine > theirs else "ours lower")
    return f"{diff:+.3f} points [{diff - half:+.3f}, {diff + half:+.3f}]: {word}", \
        f"difference test on both sides' errors p = {p:.3g}"


def classify(pub: dict, meas_rows: list[dict], causes: list[dict], by_key: dict) -> dict:
    """The ledger line of one published number: the measurement judged, its verdict and
    category (one of CATEGORIES). A number without a twin whose twin field names a
    quantity set beside it (BESIDE) gets that comparison in its verdict; it stays a
    number without a twin (another program: not a reproduction)."""
    twin = (pub.get("twin") or "").strip()
    meas = pick_measured(meas_rows)
    line = {"measured": meas, "how": ""}
    if twin.lower().startswith("none"):
        why, _, beside = twin.split(":", 1)[-1].partition(BESIDE)
        text = f"no minelab twin: {why.strip()}"
        beside = beside.strip()
        if beside:
            beside_rows = by_key.get((pub["item"], beside), [])
            ours = pick_measured(beside_rows)
            if ours is None:
                why_not = stale_note(beside_rows)
                text += f"; beside it, {beside}: not yet measured" + (f" ({why_not})" if why_not else "")
            else:
                cmp, how = compare_beside(pub, ours)  # ours is shown in the line's minelab column
                text += f"; beside it, {beside}: {cmp}"
                line = {"measured": ours, "how": how}
        return {**line, "category": NO_TWIN, "verdict": text}
    if meas is None:
        why_not = stale_note(meas_rows)
        return {**line, "category": NOT_YET, "verdict": NOT_YET + (f" ({why_not})" if why_not else "")}
    v, how = judge(pub, meas)
    line["how"] = how
    chosen = (pub.get("chosen_to_match") or "").strip()
    if v in ("agrees", "bound met"):
        if chosen:
            return {**line, "category": CHOSEN, "verdict": f"{v}, but by a reading chosen to match: {chosen}"}
        return {**line, "category": AGREES if v == "agrees" else BOUND_MET, "verdict": v}
    if not v:
        return {**line, "category": UNDECIDED, "verdict": "relation not classified"}
    base = "differs" if v == "differs" else v.split(" (")[0]
    cat, text = _cause_verdict(pub, base, meas, causes, by_key)
    if cat == UNEXPLAINED and v.startswith("undecided"):
        return {**line, "category": UNDECIDED, "verdict": v}
    if cat == UNEXPLAINED and v == "bound not met":
        return {**line, "category": BOUND_NOT_MET, "verdict": text}
    return {**line, "category": cat, "verdict": text}


def ledger_lines(published: pd.DataFrame, measured: pd.DataFrame, causes: pd.DataFrame) -> pd.DataFrame:
    """One row per published number of one paper: item, quantity, relation, published
    (text), minelab (text, the measurement judged), profile, verdict, category, how."""
    by_key = rows_by_key(measured)
    causes_by: dict = {}
    for c in causes.to_dict("records"):
        causes_by.setdefault((c["item"], c["quantity"]), []).append(c)
    rows = []
    for p in published.to_dict("records"):
        key = (p["item"], p["quantity"])
        line = classify(p, by_key.get(key, []), causes_by.get(key, []), by_key)
        m = line["measured"]
        rel = p.get("relation", "")
        rows.append({
            "item": p["item"], "quantity": p["quantity"], "relation": rel,
            "published": (f"{rel} " if rel and rel != "=" else "")
            + fmt_value(p["value"], p["ci_low"], p["ci_high"], p["games"]),
            "minelab": "" if m is None else fmt_value(m["value"], m["ci_low"], m["ci_high"], m.get("games"),
                                                      m.get("runs")),
            "profile": "" if m is None else m.get("profile", ""),
            "verdict": line["verdict"], "category": line["category"], "how": line["how"]})
    return pd.DataFrame(rows, columns=["item", "quantity", "relation", "published", "minelab", "profile", "verdict",
                                       "category", "how"])


def cause_summary(published: pd.DataFrame, measured: pd.DataFrame, causes: pd.DataFrame) -> pd.DataFrame:
    """Per tested cause (its text, within one item): on how many published numbers its
    variant was run and how many it reproduces. A cause that reproduces only some of the
    numbers it was tested on is weaker evidence than the per-number verdicts suggest: the
    REPORT shows this beside the ledger."""
    by_key = rows_by_key(measured)
    pubs = {(p["item"], p["quantity"]): p for p in published.to_dict("records")}
    rows: dict = {}
    for c in causes.to_dict("records"):
        p = pubs.get((c["item"], c["quantity"]))
        variant = pick_measured(by_key.get((c["item"], c["variant"]), []))
        if p is None or variant is None:
            continue
        row = rows.setdefault((c["item"], c["cause"]), {"item": c["item"], "cause": c["cause"], "tested on": 0,
                                                       "reproduces": 0})
        row["tested on"] += 1
        row["reproduces"] += judge(p, variant)[0] in ("agrees", "bound met")
    return pd.DataFrame(list(rows.values()), columns=["item", "cause", "tested on", "reproduces"])


def counts(lines: pd.DataFrame) -> dict:
    """The ledger's figures for a set of lines: published numbers, with a twin, each category.
    A number not yet reproduced has a twin that has not been measured: it counts among the
    numbers with a twin (the share's denominator) and not among the explained ones."""
    out = {"published": len(lines)}
    cats = lines["category"].value_counts()
    out.update({c: int(cats.get(c, 0)) for c in CATEGORIES})
    out["with a twin"] = out["published"] - out[NO_TWIN]
    good = sum(out[c] for c in GOOD)
    out["explained share"] = good / out["with a twin"] if out["with a twin"] else float("nan")
    return out


__all__ = ["CATEGORIES", "GOOD", "BESIDE", "verdict", "judge", "classify", "compare_beside", "ledger_lines", "counts",
           "cause_summary", "rounding_of", "is_proportion", "pick_measured", "rows_by_key", "fmt_value"]
