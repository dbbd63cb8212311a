"""The fidelity ledger: a computed verdict for every published number.

Pure functions over four tables (no files, no imports above numpy/pandas/scipy): the
published numbers (`data/published/<paper>.csv`, as `report.load_published` reads them),
minelab's measured ones (`figures/<paper>/measured.csv`), the registered readings
(`data/published/readings.csv`, with `reading_twins.csv`) and, where they were run, the
numbers of the authors' own programs (`data/authors/<paper>.csv`). `report.build_report`
renders what this returns; notebooks read it through `report.ledger`.

One interval rule. Our number is judged on the 95% *prediction* interval of one run
(mean ± t(0.975, runs-1) · s · sqrt(1 + 1/runs)) when it is a mean of independent runs
(learners, whose games teach each other) and the published number is one run; otherwise
on its 95% interval. The same interval serves every relation:

* ``=`` a point value: agrees when the published value (widened by half a unit of its last
  printed digit) lies in that interval. When both sides are win rates of one run of
  independent games with game counts, Fisher's exact two-proportion test at 0.05 decides;
  when the source prints an interval (± half-width, read as a 95% interval), a z-test on
  the difference with both sides' standard errors.
* ``≈`` an approximation: ci_low..ci_high of the published row hold the range the wording
  implies; agrees when the interval meets it.
* ``<`` ``>`` ``≤`` ``≥`` a bound: met when the whole interval is on its side, not met when
  it is wholly on the other, undecided otherwise.
* *uninformative*: the published row names the values the quantity can take (`range`) and
  the interval covers all of them: no outcome could have disagreed.

A published row whose twin is ``difference: A minus B`` is a claim about two quantities (a
comparison, a step of an ordering): ours is A - B of the measured rows, its interval the
two sides' combined (`difference_row`).

Registered readings. A reading is a row of `readings.csv` written before it runs: the item,
what it changes, its support (a quoted sentence and its place, the behaviour of the
authors' program, "open" where the text leaves the point open, or "none") and its *scope*:
every published number of the item the change affects (glob patterns over the quantity),
set from the change. `reading_twins.csv` names, per published number, the measured
quantity that is the reading's run. A reading is *credited* only when it reproduces every
number in its scope (and has support); otherwise it is "partial: k of n" and credits
nothing. A number that does not agree is "differs: credited reading" when a credited
reading's scope holds it, else "differs: unexplained" with every reading tried listed
beside it. A reading chosen because it matched (the published row's `chosen_to_match`) is
reported as such and never counted.

Which measurement is judged: the largest profile measured (paper, else quick, else smoke)
among the rows that are not stale (a measured row's `stale` field, filled by
`report.load_measured`, says when an agent it measured plays differently today). A number
whose every measurement is stale is "not yet reproduced", with the reason.
"""
from __future__ import annotations

import fnmatch
import math

import pandas as pd
from scipy import stats as _st

# Ledger categories, in the order the ledger shows them.
AGREES = "agrees"
BOUND_MET = "bound met"
CAUSE = "differs: credited reading"
UNEXPLAINED = "differs: unexplained"
BOUND_NOT_MET = "bound not met"
UNDECIDED = "undecided"
UNINFORMATIVE = "uninformative"
CHOSEN = "agrees by a chosen reading (not counted)"
NOT_YET = "not yet reproduced"
NO_TWIN = "no minelab twin"
CATEGORIES = (AGREES, BOUND_MET, CAUSE, UNEXPLAINED, BOUND_NOT_MET, UNDECIDED, UNINFORMATIVE, CHOSEN, NOT_YET,
              NO_TWIN)
REPRODUCED = (AGREES, BOUND_MET)  # the headline's first share
GOOD = (AGREES, BOUND_MET, CAUSE)  # its second share: with the credited readings
PROFILE_RANK = {"paper": 3, "quick": 2, "smoke": 1}
READINGS_COLUMNS = ("paper", "item", "reading", "kind", "change", "support", "scope", "experiment")
# variant: the measured quantity that is the reading's run ("" for the number's own twin);
# published_as: "low..high", the published number's interval under a reading of how it was
# printed (what a printed ± is, how wide "approximately" is), "" when the reading changes
# our run instead.
TWINS_COLUMNS = ("paper", "item", "quantity", "reading", "variant", "published_as")
AUTHORS_COLUMNS = ("paper", "item", "quantity", "value", "ci_low", "ci_high", "games", "runs", "program", "commit",
                   "command", "seeds", "note")
# A reading's support: a sentence of the text, the behaviour of the authors' program, a point
# the text leaves open (one of its possible readings), or none (picked from the numbers: never
# credited).
KINDS = ("text", "program", "open", "none")
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


DIFFERENCE = "difference:"  # a published row's twin naming two measured quantities: "A minus B"


def parse_difference(twin: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """((item A, quantity A), (item B, quantity B)) of a twin "difference: <item A> |
    <quantity A> minus <item B> | <quantity B>"; ValueError naming what is missing.

        >>> parse_difference("difference: Conditional model | success rate, 1 mines minus "
        ...                  "Marginal model | success rate, 1 mines")
        (('Conditional model', 'success rate, 1 mines'), ('Marginal model', 'success rate, 1 mines'))
    """
    text = (twin or "").strip()
    if not text.lower().startswith(DIFFERENCE):
        raise ValueError(f"a difference twin starts with {DIFFERENCE!r}")
    sides = text[len(DIFFERENCE):].split(" minus ")
    if len(sides) != 2:
        raise ValueError("it needs exactly one ' minus ' between its two quantities")
    out = []
    for side in sides:
        item, sep, quantity = side.partition(" | ")
        if not sep or not item.strip() or not quantity.strip():
            raise ValueError(f"{side.strip()!r} is not '<item> | <quantity>'")
        out.append((item.strip(), quantity.strip()))
    return out[0], out[1]


def parse_range(text: str) -> tuple[float, float]:
    """(low, high) of a quantity's possible values written "low..high" ("1..7")."""
    low, sep, high = (text or "").partition("..")
    try:
        lo, hi = float(low), float(high)
    except ValueError:
        raise ValueError("write it as 'low..high' with two numbers") from None
    if not sep or not lo < hi:
        raise ValueError("write it as 'low..high' with low < high")
    return lo, hi


def _prediction_half(low: float, high: float, runs: int) -> float:
    """Half-width of the 95% prediction interval of one more run, from the t-interval
    (low, high) of the mean of `runs` runs."""
    t = _st.t.ppf(1 - ALPHA / 2, runs - 1)
    s = (high - low) / 2 / t * math.sqrt(runs)
    return t * s * math.sqrt(1 + 1 / runs)


def _judging_interval(ours: float, low: float, high: float, runs) -> tuple[float, float, str]:
    """(low, high, what) of the interval a verdict uses: the prediction interval of one run
    when ours is a mean of independent runs, else our 95% interval (a point without one:
    the point)."""
    if runs is not None and runs > 1 and high > low:
        half = _prediction_half(low, high, runs)
        return ours - half, ours + half, f"95% prediction interval of one run, {runs} runs"
    low = ours if math.isnan(low) else low
    high = ours if math.isnan(high) else high
    return low, high, "our 95% interval"


def judging_interval(ours: float, low: float, high: float, runs=None) -> tuple[float, float]:
    """The (low, high) a verdict uses for a measured value: the 95% prediction interval of
    one run when `ours` is a mean of `runs` independent runs, else its own interval. For
    quantities derived from measured curves, so that they are judged by the one rule.

        judging_interval(0.30, 0.28, 0.32, 3)   # wider than (0.28, 0.32): one run's spread
    """
    return _judging_interval(float(ours), float(low), float(high), None if runs is None else int(runs))[:2]


# 11 parameters: the numbers of verdict (see its reason below) that the equality tests read.
def _equal_test(published, pub_low, pub_high, ours, low, high, pub_games, games, runs, rounding,
                proportion) -> tuple[bool, str]:
    """(agrees, how it was decided) for a published point value."""
    has_ours = not (math.isnan(low) or math.isnan(high))
    if has_ours and runs is not None and runs > 1:
        lo, hi, what = _judging_interval(ours, low, high, runs)
        return lo - rounding <= published <= hi + rounding, what
    if proportion and pub_games and games and math.isnan(pub_low) and 0 <= ours <= 1 and 0 <= published <= 1:
        table = [[round(published * pub_games), pub_games - round(published * pub_games)],
                 [round(ours * games), games - round(ours * games)]]
        p = float(_st.fisher_exact(table).pvalue)
        return p >= ALPHA, f"two-proportion test p = {p:.3g}"
    if not (math.isnan(pub_low) or math.isnan(pub_high)) and has_ours:
        se = math.hypot((pub_high - pub_low) / 2, (high - low) / 2) / _st.norm.ppf(1 - ALPHA / 2)
        p = float(2 * _st.norm.sf(abs(published - ours) / se)) if se > 0 else float(published == ours)
        return p >= ALPHA, f"difference test on both intervals p = {p:.3g}"
    lo, hi, what = _judging_interval(ours, low, high, None)
    return lo - rounding <= published <= hi + rounding, f"published value in {what}"


# 13 parameters: verdict takes both sides' numbers as plain arguments (the published value, range and
# count, ours with its interval, count and runs, the printed rounding, the kind, the possible
# values) so that a notebook can judge any pair of numbers without building rows; `judge`
# takes rows.
def verdict(relation: str, published: float, pub_low: float, pub_high: float,
            ours: float, low: float, high: float, *, pub_games=None, games=None, runs=None,
            rounding: float = 0.0, proportion: bool = False, span: tuple[float, float] | None = None) -> str:
    """How minelab's number (ours, 95% interval low..high, over `games` games or `runs`
    independent runs) stands to a published one stated with `relation`: "agrees",
    "differs", "bound met", "bound not met", "undecided (our interval meets the bound)",
    "uninformative" (the interval covers every value in `span`, the values the quantity
    can take), "not yet reproduced" (no number of ours) or "" (relation not classified).
    See the module docstring for the tests.

        >>> verdict(">", 0.31, float("nan"), float("nan"), 0.35, 0.34, 0.36)
        'bound met'
        >>> verdict("≈", 0.26, 0.255, 0.265, 0.20, 0.19, 0.21)
        'differs'
        >>> verdict("=", 0.70, float("nan"), float("nan"), 0.69, 0.68, 0.70, runs=3)
        'agrees'
        >>> verdict("=", 2, float("nan"), float("nan"), 3.33, 0.46, 6.2, runs=3, span=(1, 7))
        'uninformative'
    """
    return _verdict(relation, published, pub_low, pub_high, ours, low, high, pub_games=pub_games, games=games,
                    runs=runs, rounding=rounding, proportion=proportion, span=span)[0]


# 13 parameters: verdict's, which this implements (it also says how the verdict was decided).
def _verdict(relation, published, pub_low, pub_high, ours, low, high, *, pub_games=None, games=None, runs=None,
             rounding=0.0, proportion=False, span=None) -> tuple[str, str]:
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
    lo, hi, what = _judging_interval(ours, low, high, runs)
    if span is not None and lo <= span[0] and hi >= span[1]:
        return UNINFORMATIVE, f"{what} ({lo:.4g}, {hi:.4g}) covers every value the quantity can take " \
                              f"({span[0]:g}..{span[1]:g})"
    if relation == "=":
        ok, how = _equal_test(published, pub_low, pub_high, ours, low, high, pub_games, games, runs, rounding,
                              proportion)
        return ("agrees" if ok else "differs"), how
    if relation == "≈":
        plo = published if math.isnan(pub_low) else pub_low
        phi = published if math.isnan(pub_high) else pub_high
        return ("agrees" if lo <= phi and plo <= hi else "differs"), f"{what} meets the published range"
    above = {">": lo > published, "≥": lo >= published, "<": hi < published, "≤": hi <= published}[relation]
    against = {">": hi <= published, "≥": hi < published, "<": lo >= published, "≤": lo > published}[relation]
    if above:
        return "bound met", f"{what} wholly on the bound's side"
    return ("bound not met" if against else "undecided (our interval meets the bound)"), what


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
    none of its rows is stale), e.g. "the paper measurement was made by an earlier
    version of best: rerun its notebook"."""
    stale = [r for r in rows if r.get("stale")]
    if not stale:
        return ""
    r = max(stale, key=lambda r: PROFILE_RANK.get(r.get("profile", ""), 0))
    return (f"the {r.get('profile', '')} measurement was {r['stale']}: "
            "rerun its notebook")


def judge(pub: dict, meas: dict | None) -> tuple[str, str]:
    """(verdict, how) of one published row (a dict of the published CSV, with `rounding`)
    against one measured row (or None)."""
    if meas is None:
        return NOT_YET, ""
    span = parse_range(pub["range"]) if pub.get("range") else None
    return _verdict(pub.get("relation", ""), pub["value"], pub["ci_low"], pub["ci_high"], meas["value"],
                    meas["ci_low"], meas["ci_high"], pub_games=pub.get("games"), games=meas.get("games"),
                    runs=meas.get("runs"), rounding=pub.get("rounding", 0.0),
                    proportion=is_proportion(pub["quantity"], _f(pub["value"])), span=span)


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


def _se(value, low, high, runs) -> float:
    """Standard error of one side from its 95% interval (t for a mean of runs, else normal)."""
    if _nan(low) or _nan(high) or float(high) <= float(low):
        return float("nan")
    q = _st.t.ppf(1 - ALPHA / 2, int(runs) - 1) if not _nan(runs) and int(runs) > 1 else _st.norm.ppf(1 - ALPHA / 2)
    return (float(high) - float(low)) / 2 / q


def difference_row(a: dict, b: dict) -> dict:
    """The measured row of A - B (two measured rows): its value, and the 95% interval of one
    run's difference (each side a prediction interval of one run when it is a mean of runs,
    else its own interval; the two combined as independent errors). `runs` is left empty:
    the interval already is the one a verdict uses."""
    halves = []
    for r in (a, b):
        value, low, high = _f(r["value"]), _f(r["ci_low"]), _f(r["ci_high"])
        lo, hi, _ = _judging_interval(value, low, high, None if _nan(r.get("runs")) else int(r["runs"]))
        halves.append((hi - lo) / 2)
    value = _f(a["value"]) - _f(b["value"])
    half = math.hypot(*halves)
    games = a.get("games") if not _nan(a.get("games")) and a.get("games") == b.get("games") else None
    return {"item": a["item"], "quantity": f"{a['quantity']} minus {b['quantity']}", "value": value,
            "ci_low": value - half, "ci_high": value + half, "games": games, "runs": None,
            "profile": min((a.get("profile", ""), b.get("profile", "")), key=lambda p: PROFILE_RANK.get(p, 0)),
            "stale": a.get("stale") or b.get("stale") or ""}


def twin_rows(pub: dict, by_key: dict) -> list[dict]:
    """The measured rows a published row is judged on: its twin's (same item and quantity),
    or for a `difference:` twin the difference rows of A and B at each profile both have."""
    twin = (pub.get("twin") or "").strip()
    if not twin.lower().startswith(DIFFERENCE):
        return by_key.get((pub["item"], pub["quantity"]), [])
    key_a, key_b = parse_difference(twin)
    rows_a = {r.get("profile", ""): r for r in by_key.get(key_a, [])}
    rows_b = {r.get("profile", ""): r for r in by_key.get(key_b, [])}
    return [difference_row(rows_a[p], rows_b[p]) for p in rows_a if p in rows_b]


def in_scope(quantity: str, scope: str, item: str = "", reading_item: str = "") -> bool:
    """Whether a published quantity (of `item`) is in the scope of a reading of
    `reading_item`: ";"-separated glob patterns over the quantity, each of the reading's
    own item unless written "<item> | <pattern>" (a change that reaches another figure)."""
    for pat in (x.strip() for x in scope.split(";")):
        where, sep, what = pat.partition(" | ")
        target, pattern = (where.strip(), what.strip()) if sep else (reading_item, pat)
        if pattern and item == target and fnmatch.fnmatchcase(quantity, pattern):
            return True
    return False


REPRODUCES, FAILS, NOT_RUN = "reproduces", "does not reproduce", "not run"


def reading_results(published: list[dict], readings: list[dict], twins: list[dict], by_key: dict) -> list[dict]:
    """Each registered reading of one paper judged on its whole scope: the reading's row plus
    `scope_results` ((item, quantity) -> (status, the variant's measured row or None)), `k` (numbers
    it reproduces), `n` (numbers in its scope), `run`, `credited` and a `status` text
    ("credited: reproduces all 3", "partial: 7 of 10", "partial: 2 of 8 (6 not run)",
    "reproduces all 12, but has no support: not credited")."""
    twin_of = {(t["item"], t["quantity"], t["reading"]): t for t in twins}
    out = []
    for r in readings:
        scope = {}
        for p in published:
            if row_kind(p) == "claim" or not in_scope(p["quantity"], r["scope"], p["item"], r["item"]):
                continue  # a reading is judged on the published numbers; claims on the default reading
            t = twin_of.get((p["item"], p["quantity"], r["reading"]))
            row = None
            if t is not None:
                rows = by_key.get((p["item"], t["variant"]), []) if t["variant"] else twin_rows(p, by_key)
                row = pick_measured(rows)
                if t.get("published_as"):
                    low, high = parse_range(t["published_as"])
                    p = {**p, "ci_low": low, "ci_high": high}
            if row is None:
                scope[(p["item"], p["quantity"])] = (NOT_RUN, None)
            else:
                v, _ = judge(p, row)
                scope[(p["item"], p["quantity"])] = (REPRODUCES if v in ("agrees", "bound met") else FAILS, row)
        n = len(scope)
        k = sum(st == REPRODUCES for st, _ in scope.values())
        run = sum(st != NOT_RUN for st, _ in scope.values())
        credited = n > 0 and k == n and r["kind"] != "none"
        if credited:
            status = f"credited: reproduces all {n}"
        elif n and k == n:
            status = f"reproduces all {n}, but has no support: not credited"
        else:
            status = f"partial: {k} of {n}" + (f" ({n - run} not run)" if run < n else "")
        out.append({**r, "scope_results": scope, "k": k, "n": n, "run": run, "credited": credited,
                    "status": status})
    return out


def _readings_text(key: tuple[str, str], tried: list[dict]) -> str:
    """Every reading whose scope holds this number (item, quantity): its status on its
    scope and on this number."""
    parts = []
    for r in tried:
        st, row = r["scope_results"][key]
        shown = "" if row is None else fmt_value(row["value"], row["ci_low"], row["ci_high"], row.get("games"),
                                                  row.get("runs"))
        here = f"{st}: {shown}" if shown else st
        parts.append(f"'{r['reading']}' ({r['kind']}; {r['status']}; here {here})")
    return "; ".join(parts)


def classify(pub: dict, meas_rows: list[dict], readings: list[dict], by_key: dict) -> dict:
    """The ledger line of one published number: the measurement judged, its category (one
    of CATEGORIES), a short `verdict` (a few words) and the `detail` behind it (readings
    tried, the comparison set beside). A number without a twin whose twin field names a
    quantity set beside it (BESIDE) gets that comparison; it stays a number without a twin
    (another program: not a reproduction). `readings` are `reading_results` rows."""
    twin = (pub.get("twin") or "").strip()
    meas = pick_measured(meas_rows)
    line = {"measured": meas, "how": "", "detail": ""}
    if twin.lower().startswith("none"):
        why, _, beside = twin.split(":", 1)[-1].partition(BESIDE)
        detail = f"no minelab twin: {why.strip()}"
        beside = beside.strip()
        short = NO_TWIN
        if beside:
            beside_rows = by_key.get((pub["item"], beside), [])
            ours = pick_measured(beside_rows)
            if ours is None:
                why_not = stale_note(beside_rows)
                detail += f"; beside it, {beside}: not yet measured" + (f" ({why_not})" if why_not else "")
                short = f"{NO_TWIN}; beside it, {beside}: not yet measured"
            else:
                cmp, how = compare_beside(pub, ours)  # ours is shown in the line's minelab column
                detail += f"; beside it, {beside}: {cmp}"
                short = f"{NO_TWIN}; beside it, {beside}: {cmp.split(': ', 1)[-1]}"
                line = {"measured": ours, "how": how}
        return {**line, "category": NO_TWIN, "verdict": short, "detail": detail}
    if meas is None:
        why_not = stale_note(meas_rows)
        if not meas_rows and twin.lower().startswith(DIFFERENCE):
            (ia, qa), (ib, qb) = parse_difference(twin)
            why_not = f"the claim needs '{ia} | {qa}' and '{ib} | {qb}' measured at one profile"
        return {**line, "category": NOT_YET, "verdict": NOT_YET, "detail": why_not}
    v, how = judge(pub, meas)
    line["how"] = how
    chosen = (pub.get("chosen_to_match") or "").strip()
    key = (pub["item"], pub["quantity"])
    tried = [r for r in readings if key in r["scope_results"]]
    listed = ("readings registered on this number: " + _readings_text(key, tried)) if tried else ""
    if v == UNINFORMATIVE:
        return {**line, "category": UNINFORMATIVE, "verdict": UNINFORMATIVE, "detail": listed}  # `how` says why
    if v in ("agrees", "bound met"):
        if chosen:
            return {**line, "category": CHOSEN, "verdict": f"{v}, by a chosen reading",
                    "detail": f"reading chosen to match: {chosen}"}
        return {**line, "category": AGREES if v == "agrees" else BOUND_MET, "verdict": v, "detail": listed}
    if not v:
        return {**line, "category": UNDECIDED, "verdict": "relation not classified", "detail": ""}
    if v.startswith("undecided"):
        return {**line, "category": UNDECIDED, "verdict": "undecided", "detail": f"{v}; {listed}".strip("; ")}
    base = "differs" if v == "differs" else v
    credited = [r for r in tried if r["credited"]]
    if credited:
        return {**line, "category": CAUSE, "verdict": f"{base}; credited reading: {credited[0]['reading']}",
                "detail": listed}
    short = f"{base}; {len(tried)} reading{'s' if len(tried) != 1 else ''} tried, none credited" if tried else base
    category = BOUND_NOT_MET if v == "bound not met" else UNEXPLAINED
    return {**line, "category": category, "verdict": short, "detail": listed}


def same_number(a: dict, b: dict) -> bool:
    """Whether two measured rows (ours, the authors' program's) cannot be told apart: their
    difference within 1.96 standard errors of the two combined (each from its interval, t
    for a mean of runs)."""
    diff = _f(a["value"]) - _f(b["value"])
    se = math.hypot(*(x if not math.isnan(x) else 0.0 for x in
                      (_se(a["value"], a["ci_low"], a["ci_high"], a.get("runs")),
                       _se(b["value"], b["ci_low"], b["ci_high"], b.get("runs")))))
    return abs(diff) <= (_st.norm.ppf(1 - ALPHA / 2) * se if se > 0 else 0.0)


def compare_program(pub: dict, ours: dict | None, prog: dict) -> str:
    """The authors' program's number (a row of data/authors/<paper>.csv) set between the
    paper's and ours: "agrees with the authors' program", "the authors' program gives ours,
    not the paper's number", "differs from the authors' program too", "differs from the
    authors' program" (ours agrees with the paper), with how the program stands to the paper."""
    prog_v, _ = judge(pub, prog)
    prog_paper = prog_v in ("agrees", "bound met")
    if ours is None:
        return "the authors' program " + ("agrees with the paper" if prog_paper else "differs from the paper")
    same = same_number(ours, prog)
    ours_paper = judge(pub, ours)[0] in ("agrees", "bound met")
    if same:
        return ("agrees with the authors' program, which agrees with the paper" if prog_paper else
                "the authors' program gives ours, not the paper's number")
    return "differs from the authors' program too" if not ours_paper else "differs from the authors' program"


def ledger_lines(published: pd.DataFrame, measured: pd.DataFrame, readings: pd.DataFrame, twins: pd.DataFrame,
                 programs: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per published number of one paper: item, quantity, relation, kind (number or
    claim, `row_kind`), published (text), minelab (text, the measurement judged), profile,
    verdict (short), category,
    how (the test), detail (readings tried and the rest) and, where the authors' program
    was run, program (its number) and program_verdict."""
    by_key = rows_by_key(measured)
    pubs = published.to_dict("records")
    results = reading_results(pubs, readings.to_dict("records"), twins.to_dict("records"), by_key)
    prog_by = {} if programs is None else {(r["item"], r["quantity"]): r for r in programs.to_dict("records")}
    rows = []
    for p in pubs:
        line = classify(p, twin_rows(p, by_key), results, by_key)
        m = line["measured"]
        rel = p.get("relation", "")
        prog = prog_by.get((p["item"], p["quantity"]))
        prog_text = "" if prog is None else (
            fmt_value(prog["value"], prog["ci_low"], prog["ci_high"], prog.get("games"), prog.get("runs"))
            + f" ({prog['program']} {str(prog['commit'])[:7]})")
        prog_verdict = "" if prog is None else compare_program(p, m if line["category"] != NO_TWIN else None, prog)
        if prog is not None and m is not None and not same_number(m, prog):  # name what in minelab differs
            like = [r["reading"] for r in results if (p["item"], p["quantity"]) in r["scope_results"]
                    and r["scope_results"][(p["item"], p["quantity"])][1] is not None
                    and same_number(r["scope_results"][(p["item"], p["quantity"])][1], prog)]
            if like:
                prog_verdict += "; the program gives the reading " + ", ".join(f"'{x}'" for x in like)
        rows.append({
            "item": p["item"], "quantity": p["quantity"], "relation": rel, "kind": row_kind(p),
            "published": (f"{rel} " if rel and rel != "=" else "")
            + fmt_value(p["value"], p["ci_low"], p["ci_high"], p["games"]),
            "minelab": "" if m is None else fmt_value(m["value"], m["ci_low"], m["ci_high"], m.get("games"),
                                                      m.get("runs")),
            "profile": "" if m is None else m.get("profile", ""),
            "verdict": line["verdict"], "category": line["category"], "how": line["how"], "detail": line["detail"],
            "program": prog_text, "program_verdict": prog_verdict})
    return pd.DataFrame(rows, columns=["item", "quantity", "relation", "kind", "published", "minelab", "profile",
                                       "verdict", "category", "how", "detail", "program", "program_verdict"])


def row_kind(pub: dict) -> str:
    """"claim" for a published row comparing two of the paper's quantities (a `difference:`
    twin: the paper states an order, not a number), else "number". The headline counts
    the two apart, so that one sentence written as many rows does not weigh as many numbers."""
    return "claim" if (pub.get("twin") or "").strip().lower().startswith(DIFFERENCE) else "number"


def reading_summary(published: pd.DataFrame, measured: pd.DataFrame, readings: pd.DataFrame,
                    twins: pd.DataFrame) -> pd.DataFrame:
    """Per registered reading of one paper: item, reading, kind, change, support, scope (n
    numbers), run, reproduces (k), credited and status: the forking paths, all visible."""
    res = reading_results(published.to_dict("records"), readings.to_dict("records"), twins.to_dict("records"),
                          rows_by_key(measured))
    cols = ["item", "reading", "kind", "change", "support", "n", "run", "k", "credited", "status"]
    return pd.DataFrame([{c: r[c] for c in cols} for r in res], columns=cols)


def counts(lines: pd.DataFrame) -> dict:
    """The ledger's figures for a set of lines: published numbers, with a twin, each
    category, and the headline's two shares of the numbers with a twin: `reproduced share`
    (agrees or meets its bound) and `explained share` (those, or a credited reading). A
    number not yet reproduced has a twin that has not been measured: it counts among the
    numbers with a twin (the shares' denominator)."""
    out = {"published": len(lines)}
    cats = lines["category"].value_counts()
    out.update({c: int(cats.get(c, 0)) for c in CATEGORIES})
    out["with a twin"] = out["published"] - out[NO_TWIN]
    n = out["with a twin"]
    out["reproduced share"] = sum(out[c] for c in REPRODUCED) / n if n else float("nan")
    out["explained share"] = sum(out[c] for c in GOOD) / n if n else float("nan")
    return out


__all__ = ["CATEGORIES", "GOOD", "REPRODUCED", "BESIDE", "KINDS", "verdict", "judge", "classify", "compare_beside",
           "compare_program", "ledger_lines", "counts", "reading_results", "reading_summary", "difference_row",
           "twin_rows", "row_kind", "in_scope", "parse_difference", "parse_range", "rounding_of", "is_proportion",
           "pick_measured", "rows_by_key", "fmt_value"]
