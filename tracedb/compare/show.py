"""``tracedb compare``'s tables for people: the report of :mod:`tracedb.compare.command` through
the same table code as ``tracedb query`` (:func:`tracedb.render.table.render_table`), fitted to the
terminal.

Each table has a title line naming the runs and what is compared; the run names are not repeated
in columns. Columns go metric · baseline · comparison · diff · change %, then the counts: one op
column (op_diff's op_type is the same name), durations in the unit that fits (one for baseline,
comparison and diff), whole numbers as integers. overall_comparison's Mem Usage and bandwidth
rows, which have no duration, get a small table of their own.
"""
from __future__ import annotations

import textwrap
from typing import Any, Sequence

from ..render.machine import render
from ..render.table import render_table
from .command import CompareReport

# (display name, view column) of each table; the display names pick the unit suffixes the table
# code reads (*_ns durations, *_pct percent, *_bytes, *_gbps)
OVERALL = (("metric", "metric"), ("baseline_ns", "baseline_dur_ns"), ("comparison_ns", "comparison_dur_ns"),
           ("diff_ns", "diff_ns"), ("change_pct", "change_pct"), ("baseline_kernels", "baseline_kernel_count"),
           ("comparison_kernels", "comparison_kernel_count"))
MEMORY = (("metric", "metric"), ("baseline_bytes", "baseline_size_bytes"),
          ("comparison_bytes", "comparison_size_bytes"), ("change_pct", "change_pct"))
BANDWIDTH = (("metric", "metric"), ("baseline_gbps", "baseline_bandwidth_gbps"),
             ("comparison_gbps", "comparison_bandwidth_gbps"), ("change_pct", "change_pct"))
STEPS = (("metric", "metric"), ("baseline_ns", "baseline_dur_ns"), ("comparison_ns", "comparison_dur_ns"),
         ("diff_ns", "diff_ns"), ("change_pct", "change_pct"))
OPS = (("op_name", "op_name"), ("baseline_ns", "baseline_total_ns"), ("comparison_ns", "comparison_total_ns"),
       ("diff_ns", "diff_total_ns"), ("change_pct", "change_pct"), ("baseline_calls", "baseline_calls"),
       ("comparison_calls", "comparison_calls"))


def _title(text: str, width: int | None) -> str:
    """A table's title line, wrapped at ``width`` (continuation lines indented)."""
    return "\n".join(textwrap.wrap(text, width, subsequent_indent="  ")) if width else text


def _pick(columns: Sequence[str], rows: Sequence[Sequence[Any]], spec) -> tuple[list[str], list[tuple]]:
    idx = [columns.index(col) for _, col in spec]
    return [name for name, _ in spec], [tuple(r[i] for i in idx) for r in rows]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _depth(rows: list[dict]) -> dict[str, int]:
    """How deep each overall row sits under its parent rows (Computing Time 0, Conv 1, Conv (Cube) 2)."""
    parent = {r["metric"]: r["parent_metric"] for r in rows}
    out = {}
    for metric in parent:
        d, seen, p = 0, {metric}, parent[metric]
        while p is not None and p in parent and p not in seen:
            d, p = d + 1, parent[p]
            seen.add(p)
        out[metric] = d
    return out


def _overall(report: CompareReport, columns, rows, width) -> str:
    b, c = report.steps
    title = (f"overall_comparison — whole capture, per rank: {report.baseline} {_plural(b, 'step')}, "
             f"{report.comparison} {_plural(c, 'step')}")
    named = [dict(zip(columns, r)) for r in rows]
    depth = _depth(named)
    timed = [r for r in named if r["baseline_dur_ns"] is not None or r["comparison_dur_ns"] is not None]
    indented = [{**r, "metric": "  " * depth[r["metric"]] + r["metric"]} for r in timed]
    cols, picked = _pick(columns, [tuple(r[k] for k in columns) for r in indented], OVERALL)
    out = [_title(title, width), render_table(cols, picked, width=width, max_rows=None)]
    for spec, key in ((MEMORY, "baseline_size_bytes"), (BANDWIDTH, "baseline_bandwidth_gbps")):
        other = key.replace("baseline", "comparison")
        extra = [tuple(r[k] for k in columns) for r in named
                 if r not in timed and (r[key] is not None or r[other] is not None)]
        if extra:
            cols, picked = _pick(columns, extra, spec)
            out.append(render_table(cols, picked, width=width, max_rows=None))
    return "\n".join(out)


def _steps(report: CompareReport, columns, rows, width) -> str:
    named = dict(zip(columns, rows[0])) if rows else {}
    sides = []
    for name, chosen, key in ((report.baseline, report.chosen[0], "baseline_step_count"),
                              (report.comparison, report.chosen[1], "comparison_step_count")):
        sides.append(f"{name} step {chosen}" if chosen is not None
                     else f"{name} mean of {_plural(named.get(key) or 0, 'step')}")
    title = "step_comparison — one step, per rank: " + ", ".join(sides)
    cols, picked = _pick(columns, rows, STEPS)
    return _title(title, width) + "\n" + render_table(cols, picked, width=width, max_rows=None)


def _ops(report: CompareReport, columns, rows, width) -> str:
    steps = [f"step {s}" for s in report.chosen if s is not None]
    scope = f"steps chosen ({', '.join(steps)})" if steps else "every step"
    title = (f"op_diff — device time per rank, {scope}; ops both runs have first, then by |diff|"
             + (f"; the first {report.limit} (--limit)" if report.limit is not None and len(rows) >= report.limit
                else ""))
    cols, picked = _pick(columns, rows, OPS)
    return _title(title, width) + "\n" + render_table(cols, picked, width=width, max_rows=None)


SHOW = {"overall_comparison": _overall, "step_comparison": _steps, "op_diff": _ops}


def render_report(report: CompareReport, fmt: str, width: int | None = None, excel: bool = False) -> str:
    """The report as ``tracedb compare`` prints it: table (the tables above, fitted to ``width``)
    or markdown (each view's own columns and raw values under a ``##`` heading); the other
    formats print op_diff's rows only."""
    out = []
    if fmt == "table":
        out.append(_title(f"{report.baseline} (baseline) → {report.comparison} (comparison)", width) + "\n")
        for view, columns, rows in report.sections:
            out.append(SHOW[view](report, columns, rows, width) + "\n")
        return "\n".join(out)
    if fmt == "markdown":
        return "".join(f"## {view}\n\n" + render(columns, rows, "markdown") + "\n"
                       for view, columns, rows in report.sections)
    return "".join(render(columns, rows, fmt, excel=excel) for view, columns, rows in report.sections
                   if view == "op_diff")
