"""The findings of a baseline/comparison pair: the headline (the comparison's step against the
baseline's and the part of the step that changed most, step_breakdown) and the top op in op_diff's
own order (op_diff_between: the summary, the report and ``tracedb query op_diff --limit 1`` name the
same op). Each function takes (connection, baseline, comparison) and gives a Finding or None."""
from __future__ import annotations

from .finding import Finding, all_rows, has_macro, one, sql_quote, threshold
from . import words as w

PARTS = (("computing", "computing"), ("exposed", "exposed communication"), ("free", "free time"))


def _verdict(ratio, change, up: str = "slower", down: str = "faster") -> str:
    """A comparison / baseline ratio judged by the change threshold (MindInsight's ±20 %)."""
    if ratio is None or change is None:
        return ""
    if ratio > 1 + change.value:
        return f"{up}, beyond {change.reference}'s ±{w.pct(change.value)}"
    if ratio < 1 - change.value:
        return f"{down}, beyond {change.reference}'s ±{w.pct(change.value)}"
    return f"within {change.reference}'s ±{w.pct(change.value)}"


def headline(con, baseline: str, comparison: str) -> Finding | None:
    """Comparison step = N× baseline, and which part of the step grew (or shrank) most."""
    means = {r["run_name"]: r for r in all_rows(con, """
        SELECT run_name, avg(e2e_ns) AS e2e, avg(computing_ns) AS computing,
               avg(communication_not_overlapped_ns) AS exposed, avg(free_ns) AS free, count(*) AS n
        FROM step_breakdown WHERE run_name IN (?, ?) AND e2e_ns IS NOT NULL GROUP BY run_name""",
                                                  [baseline, comparison])}
    b, c = means.get(baseline), means.get(comparison)
    if not (b and c and b["e2e"]):
        return None
    ratio = c["e2e"] / b["e2e"]
    change = threshold(con, "compare.change_ratio")
    verdict = _verdict(ratio, change)
    text = (f"Comparison step = {w.ratio_x(ratio)} baseline: {w.duration(c['e2e'])} vs {w.duration(b['e2e'])} per "
            f"step" + (f" ({verdict})" if verdict else ""))
    diffs = [(c[k] - b[k], name, b[k], c[k]) for k, name in PARTS if b[k] is not None and c[k] is not None]
    if diffs:
        grown = max(diffs) if ratio >= 1 else min(diffs)
        diff, name, before, after = grown
        text += (f"; {name} {'grew' if diff >= 0 else 'shrank'} most: {w.signed_duration(diff)} per step "
                 f"({w.duration(before)} → {w.duration(after)})")
    label = f"{baseline} → {comparison}"
    return Finding(label, "headline", text + ".",
                   f"SELECT run_name, avg(e2e_ns), avg(computing_ns), avg(communication_not_overlapped_ns), "
                   f"avg(free_ns) FROM step_breakdown "
                   f"WHERE run_name IN ({sql_quote(baseline)}, {sql_quote(comparison)}) "
                   "GROUP BY run_name",
                   cause="comparison", number=ratio,
                   threshold=f"a change beyond ±{w.pct(change.value)}" if change else None,
                   rule=change.reference + " comparison rule; msprof-analyze advisor overall summary (the category "
                                           "that grew)" if change else None,
                   fields={"baseline": b, "comparison": c, "step_ratio": ratio})


def top_op(con, baseline: str, comparison: str) -> Finding | None:
    """The first op of op_diff, in the view's own order."""
    if not has_macro(con, "op_diff_between"):
        return None
    source = f"tracedb query op_diff --baseline {baseline} --comparison {comparison} --limit 10"
    label = f"{baseline} → {comparison}"
    top = one(con, "SELECT * FROM op_diff_between(?, ?) LIMIT 1", [baseline, comparison])
    if top is None:
        return Finding(label, "op diff", "Op diff: the two runs have no framework op to compare.", source,
                       cause="comparison")
    ratio = top["total_ratio"]
    change = threshold(con, "compare.change_ratio")
    if ratio is None:
        verdict = "new in the comparison run"
    elif not top["comparison_total_ns"]:
        verdict = "gone from the comparison run"
    else:
        verdict = _verdict(ratio, change, "degraded", "improved")
    text = (f"Top op of op_diff: {top['op_name']}, {w.duration(top['baseline_total_ns'])} "
            f"({w.count(top['baseline_calls'], 'call')}) → {w.duration(top['comparison_total_ns'])} "
            f"({w.count(top['comparison_calls'], 'call')}) per rank, {w.signed_duration(top['diff_total_ns'])}"
            + (f" ({w.ratio_x(ratio)})" if ratio is not None else "") + (f": {verdict}." if verdict else "."))
    return Finding(label, "op diff", text, source, cause="comparison", number=top["diff_total_ns"],
                   threshold=f"a change beyond ±{w.pct(change.value)}" if change else None,
                   rule=f"{change.reference} comparison rule" if change else None, fields=top)
