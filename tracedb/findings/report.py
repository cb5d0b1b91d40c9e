"""``tracedb report``: one self-contained HTML page with the summary's findings and charts,
grouped by cause: a section per cause (:data:`~.finding.CAUSES`: the comparison, the step, the
input pipeline, idle time, host losses, ranks and links, compute, memory, data checks), each with
its findings and its charts.

Every chart is drawn from a view (its caption names it; the SQL that fed it is folded under the
chart); DuckDB does the aggregation, Python only shapes the few hundred rows a chart shows.
plotly.js is embedded in the page (no CDN), so the file opens offline and can be attached to a
ticket. A chart whose view has no rows, or does not exist in the file, is left out with a note;
a rank × step heat map is drawn from 2 ranks × 2 steps. The charts (:data:`.charts.CHARTS`):

* comparison: the overall comparison bars (msprof-analyze's OverallMetrics,
  overall_comparison_between) and the op diff bars in op_diff's own order (op_diff_between);
* step: the step stack per rank and step, the rank × step heat map (step_breakdown);
* input: the data-loading share of each step, input-bound steps in red (input_bound);
* idle: idle time per stream by cause (idle_time), the free-time timeline of the slowest step
  (free_time);
* host: fusion candidates (fusion_candidate), annotated ranges' host and GPU time (range_time);
* cluster: the link bandwidth matrix, self-links outside the colour scale (comm_matrix);
* compute: matrix ops by shape (shape_efficiency), achieved TFLOPS rank × step (rank_flops);
* memory: reserved memory over time with the peak (memory, memory_peak).
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from .. import lazy
from ..engine import duckdb
from .charts import CHARTS, Chart, Scope, draw
from .finding import CAUSES
from .summary import Finding, pair, rule_text, summarize


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


def build(con: duckdb.DuckDBPyConnection, run: str | None = None, baseline: str | None = None,
          comparison: str | None = None) -> Report:
    """The findings and the charts of one run (default: the comparison run, else the first one)."""
    findings = summarize(con, run=run, baseline=baseline, comparison=comparison)
    chart_run = _default_run(con, run, baseline, comparison)
    report = Report(chart_run, findings)
    if chart_run is None:
        return report
    scope = Scope(chart_run, *pair(con, baseline, comparison))
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
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05em; margin-top: 1.5em; }
nav a { margin-right: 1em; } .finding { margin: .5em 0; }
.run { font-weight: 600; } .rule { color: #555; font-size: .9em; }
.src, .sql { font-family: monospace; font-size: .85em; color: #555; }
pre.sql { white-space: pre-wrap; background: #f6f6f6; padding: .4em; margin: .2em 0; }
details { margin: .3em 0 1em; } summary { cursor: pointer; color: #555; font-size: .9em; }
.note { color: #777; font-style: italic; }
"""


def _finding_html(f: Finding) -> str:
    esc = html.escape
    who = f"comparison {f.run_name}" if f.cause == "comparison" else f"run {f.run_name}"
    rule = rule_text(f)
    return (f"<div class='finding'><span class='run'>{esc(who)}</span>: {esc(f.text)}"
            + (f"<br><span class='rule'>{esc(rule)}</span>" if rule else "")
            + f"<br><span class='src'>→ {esc(f.source)}</span></div>")


def _chart_html(c: Chart) -> str:
    """A chart: its title and view, the figure (or why it is skipped), the SQL folded below."""
    esc = html.escape
    parts = [f"<section id='section-{c.key}'><h3>{esc(c.title)}</h3>",
             f"<div class='src'>from view <b>{esc(c.view)}</b></div>"]
    if c.figure is None:
        parts.append(f"<p class='note'>chart skipped: {esc(c.note)}</p>")
    else:
        c.figure.update_layout(template="plotly_white", margin=dict(l=60, r=30, t=30, b=60))
        body = lazy.pio.to_html(c.figure, full_html=False, include_plotlyjs=False, div_id=f"chart-{c.key}",
                                config={"displaylogo": False, "responsive": True})
        parts.append(f"<div class='chart-plot' id='plot-{c.key}'>{body}</div>")
    parts.append(f"<details><summary>SQL</summary><pre class='sql'>{esc(c.sql)}</pre></details></section>")
    return "".join(parts)


def render_html(report: Report, *, embed_js: bool = True) -> str:
    """The page: a section per cause, each with its findings and then its charts (the SQL folded
    under each chart)."""
    esc = html.escape
    parts = ["<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>",
             f"<title>tracedb report{' — ' + esc(report.run) if report.run else ''}</title>",
             f"<style>{_CSS}</style>", f"<script>{_STATUS_SCRIPT}</script>"]
    if embed_js:
        parts.append(f"<script type='text/javascript'>{lazy.plotly_offline.get_plotlyjs()}</script>")
    parts.append("</head><body>")
    parts.append(f"<h1>tracedb report{': run ' + esc(report.run) if report.run else ''}</h1>")
    sections = [(key, title, [f for f in report.findings if f.cause == key],
                 [c for c in report.charts if c.cause == key]) for key, title in CAUSES]
    sections = [s for s in sections if s[2] or s[3]]
    parts.append("<nav>" + "".join(f"<a href='#cause-{key}'>{esc(title)}</a>" for key, title, *_ in sections)
                 + "</nav>")
    if not report.findings:
        parts.append("<p class='note'>no runs</p>")
    for key, title, findings, charts in sections:
        parts.append(f"<section class='cause' id='cause-{key}'><h2>{esc(title)}</h2>")
        parts += [_finding_html(f) for f in findings]
        parts += [_chart_html(c) for c in charts]
        parts.append("</section>")
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
