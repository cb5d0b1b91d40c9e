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
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .db import duckdb   # the engine module, see tracedb.db

from .summary import Finding, _has_view, _quote, summarize

MAX_STEP_BARS = 400          # (rank, step) bars in the step stack; the first ones by rank, step
MAX_OP_BARS = 20             # op types in the op diff chart (largest |diff|)
MAX_FREE_BARS = 5000        # free intervals in the free-time timeline
MEMORY_BUCKETS = 400         # time buckets per memory series (max reserved per bucket)


@dataclass
class Chart:
    """One chart of the report: a key (its div id), a title, the view it comes from, the SQL
    that fed it, and the plotly figure (None: the chart is skipped, ``note`` says why)."""

    key: str
    title: str
    view: str
    sql: str
    figure: object | None = None
    note: str = ""


@dataclass
class Report:
    run: str | None
    findings: list[Finding]
    charts: list[Chart] = field(default_factory=list)

    @property
    def drawn(self) -> list[Chart]:
        return [c for c in self.charts if c.figure is not None]


def _rows(con, sql: str) -> list[dict]:
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _exists(con, name: str) -> bool:
    if _has_view(con, name):
        return True
    return bool(con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = ?", [name]).fetchone()[0])


@dataclass(frozen=True)
class Scope:
    """What a chart is drawn for: the run (quoted for SQL) and the baseline/comparison pair."""

    run: str
    baseline: str | None
    comparison: str | None

    @property
    def q(self) -> str:
        return _quote(self.run)


@dataclass(frozen=True)
class ChartSpec:
    """One chart, as data: its key, title (``{baseline}`` / ``{comparison}`` filled in), the view
    it names, the SQL that feeds it, the note when that SQL has no row, and ``draw`` (rows →
    plotly figure). ``pair``: needs a baseline/comparison pair; ``requires``: a view or macro
    that must exist in the file."""

    key: str
    title: str
    view: str
    sql: Callable[[Scope], str]
    draw: Callable[[Chart, list[dict], Scope, duckdb.DuckDBPyConnection], object]
    empty: str
    pair: bool = False
    requires: str | None = None


def _chart(con: duckdb.DuckDBPyConnection, spec: ChartSpec, scope: Scope) -> Chart:
    """The one path every chart takes: SQL → rows → figure, or a note saying why it is skipped."""
    chart = Chart(spec.key, spec.title.format(baseline=scope.baseline, comparison=scope.comparison),
                  spec.view, spec.sql(scope))
    if spec.pair and not (scope.baseline and scope.comparison):
        chart.note = "no baseline/comparison pair (set roles with 'tracedb runs set-role', or --baseline/--comparison)"
        return chart
    if spec.requires and not _exists(con, spec.requires):
        chart.note = f"{spec.requires} is not in this database"
        return chart
    rows = _rows(con, chart.sql)
    if not rows:
        chart.note = spec.empty
        return chart
    chart.figure = spec.draw(chart, rows, scope, con)
    return chart


def _ms(ns) -> float | None:
    return None if ns is None else ns / 1e6


def _draw_step_stack(chart, rows, scope, con):
    import plotly.graph_objects as go
    x = [f"rank {r['rank']} · step {'—' if r['step'] is None else r['step']}" for r in rows]
    fig = go.Figure()
    for col, name, color in (("computing_ns", "computing", "#4c78a8"),
                             ("communication_not_overlapped_ns", "exposed (uncovered) communication", "#e45756"),
                             ("free_ns", "free", "#bab0ac")):
        fig.add_bar(x=x, y=[_ms(r[col]) for r in rows], name=name, marker_color=color)
    fig.update_layout(barmode="stack", yaxis_title="ms", xaxis_title="rank · step")
    return fig


def _draw_rank_step_heatmap(chart, rows, scope, con):
    import plotly.graph_objects as go
    ranks = sorted({r["rank"] for r in rows})
    steps = sorted({r["step"] for r in rows})
    cell = {(r["rank"], r["step"]): r["e2e_ns"] / 1e6 for r in rows}
    z = [[cell.get((rk, st)) for st in steps] for rk in ranks]
    fig = go.Figure(go.Heatmap(z=z, x=[str(s) for s in steps], y=[str(r) for r in ranks],
                               colorscale="YlOrRd", colorbar_title="ms"))
    fig.update_layout(xaxis_title="step", yaxis_title="rank", xaxis_type="category", yaxis_type="category")
    return fig


def _paired_bars(label: str, base: str, comp: str, xaxis_title: str):
    """Horizontal baseline vs comparison bars (ms), the first row at the top: op_diff, overall."""
    def draw(chart, rows, scope, con):
        import plotly.graph_objects as go
        rows = rows[::-1]                 # plotly draws the last y category at the top
        y = [r[label] for r in rows]
        fig = go.Figure()
        fig.add_bar(y=y, x=[_ms(r[base]) for r in rows], name=f"baseline {scope.baseline}",
                    orientation="h", marker_color="#72b7b2")
        fig.add_bar(y=y, x=[_ms(r[comp]) for r in rows], name=f"comparison {scope.comparison}",
                    orientation="h", marker_color="#f58518")
        fig.update_layout(barmode="group", xaxis_title=xaxis_title, height=max(400, 28 * len(rows)),
                          yaxis_automargin=True)
        return fig
    return draw


def _draw_comm_matrix(chart, rows, scope, con):
    import plotly.graph_objects as go
    srcs = sorted({r["src_rank"] for r in rows})
    dsts = sorted({r["dst_rank"] for r in rows})
    cell = {(r["src_rank"], r["dst_rank"]): r for r in rows}
    z = [[(cell.get((s, d)) or {}).get("bandwidth_gbps") for d in dsts] for s in srcs]
    text = [[("" if (s, d) not in cell else f"{cell[(s, d)]['size_bytes'] / 2 ** 20:,.1f} MiB") for d in dsts]
            for s in srcs]
    fig = go.Figure(go.Heatmap(z=z, x=[str(d) for d in dsts], y=[str(s) for s in srcs], text=text,
                               hovertemplate="src %{y} → dst %{x}<br>%{z} GB/s<br>%{text}<extra></extra>",
                               colorscale="Viridis", colorbar_title="GB/s"))
    fig.update_layout(xaxis_title="destination rank (group-local)", yaxis_title="source rank (group-local)",
                      xaxis_type="category", yaxis_type="category")
    return fig


def _draw_memory(chart, rows, scope, con):
    import plotly.graph_objects as go
    series: dict[tuple, list] = {}
    for r in rows:
        series.setdefault((r["rank"], r["component"], r["device"]), []).append(r)
    fig = go.Figure()
    for (rank, comp, dev), pts in series.items():
        fig.add_scatter(x=[p["t_ns"] / 1e6 for p in pts], y=[p["reserved_bytes"] / 2 ** 30 for p in pts],
                        mode="lines", name=f"rank {rank} {comp} {dev or ''}".strip())
    peaks = _rows(con, f"SELECT rank, component, device, peak_reserved_bytes, capacity_bytes FROM memory_peak "
                       f"WHERE run_name = {scope.q} AND peak_reserved_bytes IS NOT NULL "
                       f"ORDER BY peak_reserved_bytes DESC, rank, component LIMIT 1")
    if peaks:
        p = peaks[0]
        capacity = ("" if p["capacity_bytes"] is None else
                    f", {100 * p['peak_reserved_bytes'] / p['capacity_bytes']:.1f} % of the device's "
                    f"{p['capacity_bytes'] / 2 ** 30:.2f} GiB")
        fig.add_hline(y=p["peak_reserved_bytes"] / 2 ** 30, line_dash="dot",
                      annotation_text=f"memory_peak: {p['peak_reserved_bytes'] / 2 ** 30:.2f} GiB "
                                      f"(rank {p['rank']} {p['component']}){capacity}")
    fig.update_layout(xaxis_title="ms since the run's first memory sample", yaxis_title="reserved, GiB")
    return fig


def _draw_free_timeline(chart, rows, scope, con):
    import plotly.graph_objects as go
    chart.title += f" (step {rows[0]['step']})"
    fig = go.Figure()
    fig.add_bar(y=[f"rank {r['rank']}" for r in rows], x=[r["dur_ns"] / 1e6 for r in rows],
                base=[r["offset_ns"] / 1e6 for r in rows], orientation="h", marker_color="#8c8c8c", marker_line_width=0,
                customdata=[[r["kernel_before"] or "", r["kernel_after"] or ""] for r in rows],
                hovertemplate="%{x:.3f} ms free at +%{base:.3f} ms<br>after %{customdata[0]}"
                              "<br>before %{customdata[1]}<extra></extra>", name="free")
    fig.update_layout(xaxis_title="ms since the rank's step start", yaxis_type="category", showlegend=False)
    return fig


CHARTS: tuple[ChartSpec, ...] = (
    ChartSpec(
        "step_stack", "Step time per rank and step: computing / exposed communication / free", "step_breakdown",
        lambda s: (f"SELECT rank, step, computing_ns, communication_not_overlapped_ns, free_ns, e2e_ns "
                   f"FROM step_breakdown WHERE run_name = {s.q} AND e2e_ns IS NOT NULL "
                   f"ORDER BY rank, step NULLS FIRST LIMIT {MAX_STEP_BARS}"),
        _draw_step_stack, "step_breakdown has no row for this run"),
    ChartSpec(
        "rank_step_heatmap", "Step time (ms), rank × step", "step_breakdown",
        lambda s: (f"SELECT rank, step, e2e_ns FROM step_breakdown WHERE run_name = {s.q} "
                   f"AND e2e_ns IS NOT NULL AND step IS NOT NULL ORDER BY rank, step"),
        _draw_rank_step_heatmap, "step_breakdown has no row with a step for this run"),
    ChartSpec(
        "op_diff", "Device time per op type: {baseline} (baseline) vs {comparison} (comparison)", "op_diff_between",
        lambda s: (f"SELECT op_type, baseline_total_ns, comparison_total_ns, diff_total_ns, total_ratio "
                   f"FROM op_diff_between({_quote(s.baseline or '')}, {_quote(s.comparison or '')}) "
                   f"ORDER BY abs(diff_total_ns) DESC, op_type LIMIT {MAX_OP_BARS}"),
        _paired_bars("op_type", "baseline_total_ns", "comparison_total_ns", "total device time, ms"),
        "op_diff_between has no row for this pair", pair=True, requires="op_diff_between"),
    ChartSpec(
        "overall_comparison", "Step split: {baseline} (baseline) vs {comparison} (comparison), ms per rank",
        "overall_comparison_between",
        lambda s: (f"SELECT CASE WHEN count(*) OVER (PARTITION BY metric) > 1 "
                   f"THEN metric || ' (' || coalesce(parent_metric, 'total') || ')' ELSE metric END AS label, "
                   f"metric, parent_metric, baseline_dur_ns, comparison_dur_ns, diff_ns "
                   f"FROM overall_comparison_between({_quote(s.baseline or '')}, {_quote(s.comparison or '')}) "
                   f"WHERE baseline_dur_ns IS NOT NULL OR comparison_dur_ns IS NOT NULL ORDER BY sort_key"),
        _paired_bars("label", "baseline_dur_ns", "comparison_dur_ns", "duration per rank, ms"),
        "overall_comparison_between has no row for this pair", pair=True, requires="overall_comparison_between"),
    ChartSpec(
        "comm_matrix", "Communication links: bandwidth (GB/s) source rank → destination rank, all ops", "comm_matrix",
        lambda s: (f"SELECT src_rank, dst_rank, sum(transit_size_bytes) AS size_bytes, sum(transit_ns) AS transit_ns, "
                   f"round(sum(transit_size_bytes) / nullif(sum(transit_ns), 0), 4) AS bandwidth_gbps "
                   f"FROM comm_matrix WHERE run_name = {s.q} GROUP BY src_rank, dst_rank "
                   f"ORDER BY src_rank, dst_rank"),
        _draw_comm_matrix, "comm_matrix has no row for this run"),
    ChartSpec(
        "memory", "Memory reserved over time (max per time bucket), per rank and component", "memory, memory_peak",
        lambda s: f"""WITH s AS (
    SELECT m.rank, m.component, m.device, m.ts_ns, m.reserved_bytes,
           min(m.ts_ns) OVER () AS t0, max(m.ts_ns) OVER () AS t1
    FROM memory AS m JOIN run AS r USING (run_id)
    WHERE r.run_name = {s.q} AND m.kind IN ('record', 'event') AND m.reserved_bytes IS NOT NULL AND m.ts_ns IS NOT NULL)
SELECT rank, component, device, min(ts_ns - t0) AS t_ns, max(reserved_bytes) AS reserved_bytes
FROM s
GROUP BY rank, component, device, (ts_ns - t0) * {MEMORY_BUCKETS} // greatest(t1 - t0, 1)
ORDER BY rank, component, device, t_ns""",
        _draw_memory, "no memory samples (memory_record.csv / Kineto [memory] events) for this run"),
    ChartSpec(
        "free_timeline", "Free time of the slowest step: device idle intervals per rank", "free_time, step_breakdown",
        lambda s: f"""WITH slowest AS (
    SELECT step FROM step_breakdown WHERE run_name = {s.q} AND step IS NOT NULL AND e2e_ns IS NOT NULL
    ORDER BY e2e_ns DESC, step LIMIT 1)
SELECT f.rank, f.step, f.start_ns - b.step_start_ns AS offset_ns, f.dur_ns, f.kernel_before, f.kernel_after
FROM free_time AS f
JOIN slowest USING (step)
JOIN step_breakdown AS b ON b.run_name = f.run_name AND b.rank = f.rank AND b.step = f.step
WHERE f.run_name = {s.q}
ORDER BY f.rank, f.start_ns LIMIT {MAX_FREE_BARS}""",
        _draw_free_timeline, "free_time has no interval in this run's slowest step"),
)


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
    report.charts = [_chart(con, spec, scope) for spec in CHARTS]
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
    import plotly.io as pio
    from plotly.offline import get_plotlyjs
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


# ---- headless Chromium: the browser test and --png -----------------------------------------

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]


def find_browser() -> str | None:
    """Chromium (Debian's ``chromium`` package: /usr/bin/chromium), or $TRACEDB_CHROMIUM."""
    for cand in (os.environ.get("TRACEDB_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if cand and Path(cand).exists():
            return cand
    return None


def run_browser(url: str, *args: str, browser: str | None = None, timeout: float = 120) -> str:
    """Run headless Chromium on ``url`` with extra flags (--dump-dom, --screenshot=...); its stdout."""
    browser = browser or find_browser()
    if browser is None:
        raise FileNotFoundError("no Chromium found (apt-get install chromium, or set $TRACEDB_CHROMIUM)")
    with tempfile.TemporaryDirectory(prefix="tracedb-chromium-") as profile:
        out = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=10000",
                              *args, url], capture_output=True, text=True, timeout=timeout, check=True)
    return out.stdout


PNG_WIDTH, PNG_HEIGHT = 1000, 500


def write_pngs(report: Report, out_dir: str | Path, *, browser: str | None = None) -> list[Path]:
    """Each drawn chart as ``<out_dir>/<key>.png`` (PNG_WIDTH × PNG_HEIGHT), screenshotted by
    headless Chromium from a one-chart page; returns the files written."""
    import plotly.io as pio
    from plotly.offline import get_plotlyjs
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(prefix="tracedb-png-") as tmp:
        (Path(tmp) / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
        for c in report.drawn:
            fig = c.figure.to_dict()
            fig["layout"].update(width=PNG_WIDTH, height=PNG_HEIGHT, template=pio.templates["plotly_white"],
                                 title={"text": f"{c.title} (view {c.view})", "font": {"size": 14}},
                                 margin=dict(l=70, r=30, t=50, b=60))
            page = Path(tmp) / f"{c.key}.html"
            page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'>"
                            "<script src='plotly.min.js'></script><style>body{margin:0}</style></head><body>"
                            + pio.to_html(fig, full_html=False, include_plotlyjs=False,
                                          config={"staticPlot": True})
                            + "</body></html>", encoding="utf-8")
            target = out_dir / f"{c.key}.png"
            run_browser(page.as_uri(), f"--screenshot={target}", f"--window-size={PNG_WIDTH},{PNG_HEIGHT}",
                        browser=browser)
            written.append(target)
    return written
