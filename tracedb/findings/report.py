"""``tracedb report``: one self-contained HTML page with the summary's findings and charts.

Every chart is drawn from a view (its caption names it and the SQL that fed it); DuckDB does
the aggregation, Python only shapes the few hundred rows a chart shows. plotly.js is embedded
in the page (no CDN), so the file opens offline and can be attached to a ticket.

Charts (a chart whose view has no rows, or does not exist in the file, is left out with a note):

* step stack per rank and step — step_breakdown (computing / exposed communication / free);
* rank × step heat map of the step time — step_breakdown.e2e_ns;
* op diff bars of a baseline/comparison pair — op_diff_between (roles or --baseline/--comparison);
* overall comparison bars of the pair (computing, its op classes, uncovered communication, free,
  E2E: msprof-analyze's OverallMetrics) — overall_comparison_between;
* communication link matrix heat map — comm_matrix (bandwidth per src → dst link);
* memory over time — memory (kind record/event, reserved bytes), the peak and its share of the
  device's capacity from memory_peak;
* free-time timeline of the slowest step (largest e2e_ns) — free_time, per rank.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from .. import lazy
from ..engine import duckdb
from .charts import CHARTS, Chart, Scope, draw
from .summary import Finding, summarize


@dataclass
class Report:
    run: str | None
    findings: list[Finding]
    charts: list[Chart] = field(default_factory=list)

    @property
    def drawn(self) -> list[Chart]:
        return [c for c in self.charts if c.figure is not None]


def _default_run(con, run, baseline, comparison) -> str | None:
    if run:
        return run
    if comparison:
        return comparison
    row = con.execute("SELECT run_name FROM run "
                      "ORDER BY role = 'comparison' DESC NULLS LAST, run_id LIMIT 1").fetchone()
    return row[0] if row else None


def _pair(con, baseline, comparison):
    if baseline and comparison:
        return baseline, comparison
    roles = dict(con.execute("SELECT role, min(run_name) FROM run WHERE role IS NOT NULL GROUP BY role").fetchall())
    return baseline or roles.get("baseline"), comparison or roles.get("comparison")


def build(con: duckdb.DuckDBPyConnection, run: str | None = None, baseline: str | None = None,
          comparison: str | None = None) -> Report:
    """The findings and the charts of one run (default: the comparison run, else the first one)."""
    findings = summarize(con, run=run, baseline=baseline, comparison=comparison)
    chart_run = _default_run(con, run, baseline, comparison)
    report = Report(chart_run, findings)
    if chart_run is None:
        return report
    scope = Scope(chart_run, *_pair(con, baseline, comparison))
    report.charts = [draw(con, spec, scope) for spec in CHARTS]
    return report


# The page records its own errors (window errors, console.error, a chart without an SVG) and
# writes them into <div id="report-status">, so a headless browser's --dump-dom can check it.
_STATUS_SCRIPT = """
window.__reportErrors = [];
window.addEventListener('error', function (e) { window.__reportErrors.push(String(e.message || e)); });
window.addEventListener('unhandledrejection', function (e) { window.__reportErrors.push('rejection: ' + e.reason); });
(function () { var ce = console.error; console.error = function () {
  window.__reportErrors.push(Array.prototype.join.call(arguments, ' ')); return ce.apply(console, arguments); }; })();
"""

_CHECK_SCRIPT = """
window.addEventListener('load', function () { setTimeout(function () {
  var charts = document.querySelectorAll('.chart-plot'); var drawn = [];
  charts.forEach(function (c) { if (c.querySelector('svg.main-svg')) drawn.push(c.id); });
  var st = document.getElementById('report-status');
  st.setAttribute('data-charts', String(charts.length));
  st.setAttribute('data-drawn', drawn.join(','));
  st.setAttribute('data-errors', JSON.stringify(window.__reportErrors));
  st.setAttribute('data-done', '1');
}, 200); });
"""

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; }
.finding { margin: .3em 0; } .src, .sql { font-family: monospace; font-size: .85em; color: #555; }
pre.sql { white-space: pre-wrap; background: #f6f6f6; padding: .4em; }
.note { color: #777; font-style: italic; }
"""


def render_html(report: Report, *, embed_js: bool = True) -> str:
    """The page: findings on top, then each chart with the view and SQL it was drawn from."""
    pio, get_plotlyjs = lazy.pio, lazy.plotly_offline.get_plotlyjs
    esc = html.escape
    parts = ["<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>",
             f"<title>tracedb report{' — ' + esc(report.run) if report.run else ''}</title>",
             f"<style>{_CSS}</style>", f"<script>{_STATUS_SCRIPT}</script>"]
    if embed_js:
        parts.append(f"<script type='text/javascript'>{get_plotlyjs()}</script>")
    parts.append("</head><body>")
    parts.append(f"<h1>tracedb report{': run ' + esc(report.run) if report.run else ''}</h1>")
    parts.append("<h2>Findings (tracedb summary)</h2>")
    current = None
    for f in report.findings:
        if f.run_name != current:
            current = f.run_name
            parts.append(f"<h3>{'comparison' if '→' in f.run_name else 'run'} {esc(f.run_name)}</h3>")
        parts.append(f"<div class='finding'>{esc(f.text)}<br><span class='src'>→ {esc(f.source)}</span></div>")
    if not report.findings:
        parts.append("<p class='note'>no runs</p>")
    for c in report.charts:
        parts.append(f"<section id='section-{c.key}'><h2>{esc(c.title)}</h2>")
        parts.append(f"<div class='src'>from view <b>{esc(c.view)}</b>:</div><pre class='sql'>{esc(c.sql)}</pre>")
        if c.figure is None:
            parts.append(f"<p class='note'>chart skipped: {esc(c.note)}</p></section>")
            continue
        c.figure.update_layout(template="plotly_white", margin=dict(l=60, r=30, t=30, b=60))
        body = pio.to_html(c.figure, full_html=False, include_plotlyjs=False, div_id=f"chart-{c.key}",
                           config={"displaylogo": False, "responsive": True})
        parts.append(f"<div class='chart-plot' id='plot-{c.key}'>{body}</div></section>")
    parts.append(f"<div id='report-status' data-done='0'></div><script>{_CHECK_SCRIPT}</script>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_report(con: duckdb.DuckDBPyConnection, path: str | Path, *, run: str | None = None,
                 baseline: str | None = None, comparison: str | None = None) -> Report:
    """Build the report and write it to ``path`` (through a temporary file: nothing half-written)."""
    report = build(con, run=run, baseline=baseline, comparison=comparison)
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(render_html(report), encoding="utf-8")
    tmp.replace(path)
    return report
