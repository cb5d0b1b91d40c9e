"""``tracedb summary``: what is slow and why, in plain words, from the views.

The summary is a list of findings, one function each (:data:`RUN_FINDINGS` per run,
:data:`COMPARISON_FINDINGS` per baseline/comparison pair), each giving one
:class:`~.finding.Finding` or None: the sentence with its number, the threshold it was judged
against and the rule's source, and the query that shows it. Nothing here computes a metric of its
own: every number is a view's (step_breakdown, input_bound, idle_time, host_wait, free_analysis,
fusion_candidate, sync_copy, slow_rank, slow_link, memory_peak, check_finding, op_diff_between,
and the hardware views shape_efficiency, precision_share, rank_flops where the file has them),
aggregated at most by a sum or a mean; the two advisor rules read link and op directly, with the
SQL they print. Thresholds are rows of ``diagnosis_threshold`` (:func:`~.finding.threshold`).

A finding whose view, column or threshold row the file lacks is skipped, so a database written by
another tracedb version still gets the findings it can support.
"""
from __future__ import annotations

import json

from ..engine import duckdb
from . import comparison_findings, compute_findings, host_findings, input_findings, step_findings
from . import words as w
from .finding import CAUSES, Finding, has_view, sql_quote

__all__ = ["CAUSES", "COMPARISON_FINDINGS", "Finding", "RUN_FINDINGS", "comparison_findings_of", "finding_rows",
           "has_view", "render_text", "rule_text", "run_findings", "sql_quote", "summarize"]

# per run, in the order they are printed: what the step is, then the causes, then the rest
RUN_FINDINGS = (
    step_findings.step_split,
    input_findings.input_bound,
    input_findings.pipeline_cpu,
    host_findings.idle_cause,
    step_findings.free_time,
    step_findings.slow_rank,
    step_findings.slow_link,
    compute_findings.comm_alignment,
    host_findings.fusion,
    host_findings.sync_copy,
    compute_findings.misaligned_shape,
    compute_findings.precision_mix,
    compute_findings.flops,
    compute_findings.dynamic_shapes,
    step_findings.memory_peak,
    step_findings.check,
)

# per baseline/comparison pair: the headline first
COMPARISON_FINDINGS = (comparison_findings.headline, comparison_findings.top_op)

DEFAULT_WIDTH = 100      # the text's width when the output is no terminal


def run_findings(con: duckdb.DuckDBPyConnection, run: str) -> list[Finding]:
    """The findings of one run (:data:`RUN_FINDINGS`, each a function of the run giving one
    finding or none)."""
    return [f for finding in RUN_FINDINGS if (f := finding(con, run)) is not None]


def comparison_findings_of(con: duckdb.DuckDBPyConnection, baseline: str, comparison: str) -> list[Finding]:
    """The findings of a pair (:data:`COMPARISON_FINDINGS`): the headline, the top op of op_diff."""
    return [f for finding in COMPARISON_FINDINGS if (f := finding(con, baseline, comparison)) is not None]


def pair(con: duckdb.DuckDBPyConnection, baseline: str | None, comparison: str | None) -> tuple:
    """The baseline/comparison pair: as given, else the runs with the roles (None when missing)."""
    if baseline and comparison:
        return baseline, comparison
    roles = dict(con.execute("SELECT role, min(run_name) FROM run WHERE role IS NOT NULL GROUP BY role").fetchall())
    return baseline or roles.get("baseline"), comparison or roles.get("comparison")


def summarize(con: duckdb.DuckDBPyConnection, run: str | None = None, baseline: str | None = None,
              comparison: str | None = None) -> list[Finding]:
    """The comparison's findings (the pair given, or by role) first, then each run's (one run, or
    every run)."""
    runs = [r[0] for r in con.execute("SELECT run_name FROM run ORDER BY run_id").fetchall()]
    baseline, comparison = pair(con, baseline, comparison)
    out: list[Finding] = []
    if baseline and comparison and (run is None or run in (baseline, comparison)):
        out += comparison_findings_of(con, baseline, comparison)
    for name in ([run] if run else runs):
        out += run_findings(con, name)
    return out


def render_text(findings: list[Finding], width: int | None = None) -> str:
    """The findings as text grouped by run, each wrapped at words to ``width`` (the terminal's;
    :data:`DEFAULT_WIDTH` when unknown), with its threshold and rule, then the query below it."""
    width = width or DEFAULT_WIDTH
    lines, current = [], None
    for f in findings:
        if f.run_name != current:
            current = f.run_name
            lines.append(("" if not lines else "\n") + (f"comparison {f.run_name}" if f.cause == "comparison"
                                                         else f"run {f.run_name}"))
        lines.append(w.wrap(f.text, width, "  ", "    "))
        rule = rule_text(f)
        if rule:
            lines.append(w.wrap(rule, width, "      ", "        "))
        lines.append(w.wrap(f"→ {f.source}", width, "      ", "        "))
    return "\n".join(lines) + "\n" if lines else "no runs\n"


def rule_text(f: Finding) -> str:
    """"rule: …; threshold: …" of a finding, "" when it has neither."""
    return "; ".join(p for p in (f.rule and f"rule: {f.rule}", f.threshold and f"threshold: {f.threshold}") if p)


FINDING_COLUMNS = ["run_name", "topic", "cause", "finding", "number", "threshold", "rule", "source", "fields"]


def finding_rows(findings: list[Finding], *, as_text: bool = False) -> list[tuple]:
    """The findings as rows of :data:`FINDING_COLUMNS` for the machine formats: ``fields`` stays a
    dict (json, ndjson), or JSON text (``as_text``: csv, markdown)."""
    return [(f.run_name, f.topic, f.cause, f.text, f.number, f.threshold, f.rule, f.source,
             json.dumps(f.fields, default=str, ensure_ascii=False) if as_text else f.fields) for f in findings]
