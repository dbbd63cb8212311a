"""One module per paper: its figure and table functions (each named after the figure it
makes, run sizes as keyword defaults), its paper-specific task kinds and its run sizes.

A paper module imports the layers below it (agents, runner, sweep, tasks, report) and
never another paper: what two papers share lives in `minelab.tasks`. Each function
returns a `minelab.report.PaperResult`; its notebook saves it with `report.publish`.
`data/published/items.csv` names, for every figure and table, the notebook and the
function that make it.

What a paper's commentary (its `*_text` functions) says about how minelab's number
stands to a published one comes from the functions below, and they read it from the
fidelity ledger (`minelab.report.ledger`): its `category` (one of the constants of
`minelab.ledger`) for any decision, its `verdict` text shown verbatim. Nothing here
compares numbers: the ledger is the one judge.

    lines = ledger_rows("lordeiro2021", "Table III")   # read once, pass to the calls below
    judged("lordeiro2021", "Table III", "training win rate, trained on 8x8x10", lines=lines)
    # 'training win rate, trained on 8x8x10: published 0.7025, 1,000,000 games; ours 0.7031
    #  (0.7022, 0.704), 3 runs of 1,000,000 games (paper profile) — ledger: agrees'
"""

from __future__ import annotations

import pandas as pd


def ledger_rows(paper: str, item: str | None = None) -> pd.DataFrame:
    """The ledger's lines of `paper` (of one `item` when given), computed now from
    data/published/ and figures/<paper>/measured.csv (`report.ledger`)."""
    from .. import report

    lines = report.ledger(paper)
    return lines if item is None else lines[lines["item"] == item].reset_index(drop=True)


def _rows(paper: str, item: str | None, lines: pd.DataFrame | None) -> pd.DataFrame:
    lines = ledger_rows(paper) if lines is None else lines
    return lines if item is None else lines[lines["item"] == item]


def ledger_verdicts(paper: str, item: str, lines: pd.DataFrame | None = None) -> dict[str, tuple[str, str]]:
    """{quantity: (category, verdict)} of every published number of one item."""
    rows = _rows(paper, item, lines)
    return {q: (c, v) for q, c, v in zip(rows["quantity"], rows["category"], rows["verdict"])}


def ledger_line(paper: str, item: str, quantity: str, lines: pd.DataFrame | None = None) -> dict | None:
    """The ledger's line of one published number (item, quantity, relation, published,
    minelab, profile, verdict, category, how); None when the paper publishes no such number."""
    rows = _rows(paper, item, lines)
    rows = rows[rows["quantity"] == quantity]
    return None if rows.empty else rows.iloc[0].to_dict()


def category(paper: str, item: str, quantity: str, lines: pd.DataFrame | None = None) -> str:
    """The ledger category of one published number ("" when there is no such number)."""
    line = ledger_line(paper, item, quantity, lines)
    return "" if line is None else line["category"]


def verdict_of(line: dict) -> str:
    """One ledger line's number and verdict: "published X; ours Y (interval), N games
    (<profile> profile) — ledger: <verdict>"."""
    ours = line["minelab"] or "not measured"
    if line["minelab"] and line["profile"]:
        ours += f" ({line['profile']} profile)"
    return f"published {line['published']}; ours {ours} — ledger: {line['verdict']}"


def judged(paper: str, item: str, quantity: str, *, label: str | None = None,
           lines: pd.DataFrame | None = None) -> str:
    """"<label>: published X; ours Y (interval) — ledger: <verdict>" for one published
    number (label: the quantity unless given); "" when the paper publishes no such number."""
    line = ledger_line(paper, item, quantity, lines)
    return "" if line is None else f"{label or quantity}: {verdict_of(line)}"


def judged_lines(paper: str, item: str, quantities=None, *, lines: pd.DataFrame | None = None,
                 bullet: str = "* ") -> list[str]:
    """One markdown bullet per published number of `item` (all, or those of `quantities`
    in that order), each as `judged` writes it."""
    rows = _rows(paper, item, lines)
    wanted = list(rows["quantity"]) if quantities is None else [q for q in quantities if q in set(rows["quantity"])]
    return [bullet + judged(paper, item, q, lines=rows) for q in wanted]


def claim_judged(paper: str, item: str, quantity: str, lines: pd.DataFrame | None = None) -> str:
    """"the ledger's row '<quantity>' judges this claim: <verdict> (published X; ours Y)"
    for a claim the paper states as a number; "" when data/published has no such row."""
    line = ledger_line(paper, item, quantity, lines)
    if line is None:
        return ""
    return f"the ledger's row '{quantity}' judges this claim: {verdict_of(line)}"


def tally(rows: pd.DataFrame) -> str:
    """How many of these ledger lines fall in each category, in the ledger's order:
    "4 agrees, 2 differs: unexplained" (the category names verbatim)."""
    from .. import ledger

    counts = rows["category"].value_counts()
    order = [c for c in ledger.CATEGORIES if c in counts.index] + [c for c in counts.index
                                                                   if c not in ledger.CATEGORIES]
    return ", ".join(f"{int(counts[c])} {c}" for c in order)


__all__ = ["ledger_rows", "ledger_verdicts", "ledger_line", "category", "verdict_of", "judged", "judged_lines",
           "claim_judged", "tally"]


def reading_lines(paper: str, measured: list[dict]) -> list[str]:
    """Markdown bullets for a reading's run: each measured row that is a registered
    reading's variant of a published number (data/published/reading_twins.csv), beside
    that number, then each such reading's status as the ledger judges it on its scope."""
    from .. import report

    twins = report.load_reading_twins()
    twins = twins[twins["paper"] == paper]
    pub = report.load_published(paper, claims=False).set_index(["item", "quantity"])
    lines, names = [], []
    for m in measured:
        for t in twins[(twins["item"] == m["item"]) & (twins["variant"] == m["quantity"])].to_dict("records"):
            if (t["item"], t["quantity"]) not in pub.index:
                continue
            p = pub.loc[(t["item"], t["quantity"])]
            ours = f"{m['value']:.4g}" + ("" if pd.isna(m.get("ci_low")) or pd.isna(m.get("ci_high"))
                                           else f" ({m['ci_low']:.4g}-{m['ci_high']:.4g})")
            lines.append(f"- {t['item']}, {t['quantity']}: published {p['relation']} {p['value']:g}; "
                         f"under the reading: {ours}")
            names.append(t["reading"])
    summary = report.reading_summary(paper)
    for name in dict.fromkeys(names):
        r = summary[summary["reading"] == name].iloc[0]
        lines.append(f"- reading *{name}*: {r['status']} ({r['run']} of its {r['n']} numbers run)")
    return lines

