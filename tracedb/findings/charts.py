"""The report's charts, as data: each :class:`ChartSpec` names its view, the SQL that feeds it
and how its rows become a plotly figure (:data:`CHARTS`); :func:`draw` is the one path every
chart takes (SQL → rows → figure, or a note saying why it is skipped)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .. import lazy
from ..engine import duckdb
from .summary import has_view, sql_quote

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


def _rows(con, sql: str) -> list[dict]:
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _exists(con, name: str) -> bool:
    if has_view(con, name):
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
        return sql_quote(self.run)


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


def draw(con: duckdb.DuckDBPyConnection, spec: ChartSpec, scope: Scope) -> Chart:
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
    go = lazy.go
    x = [f"rank {r['rank']} · step {'—' if r['step'] is None else r['step']}" for r in rows]
    fig = go.Figure()
    for col, name, color in (("computing_ns", "computing", "#4c78a8"),
                             ("communication_not_overlapped_ns", "exposed (uncovered) communication", "#e45756"),
                             ("free_ns", "free", "#bab0ac")):
        fig.add_bar(x=x, y=[_ms(r[col]) for r in rows], name=name, marker_color=color)
    fig.update_layout(barmode="stack", yaxis_title="ms", xaxis_title="rank · step")
    return fig


def _draw_rank_step_heatmap(chart, rows, scope, con):
    go = lazy.go
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
        go = lazy.go
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
    go = lazy.go
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
    go = lazy.go
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
    go = lazy.go
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
                   f"FROM op_diff_between({sql_quote(s.baseline or '')}, {sql_quote(s.comparison or '')}) "
                   f"ORDER BY abs(diff_total_ns) DESC, op_type LIMIT {MAX_OP_BARS}"),
        _paired_bars("op_type", "baseline_total_ns", "comparison_total_ns", "total device time, ms"),
        "op_diff_between has no row for this pair", pair=True, requires="op_diff_between"),
    ChartSpec(
        "overall_comparison", "Step split: {baseline} (baseline) vs {comparison} (comparison), ms per rank",
        "overall_comparison_between",
        lambda s: (f"SELECT CASE WHEN count(*) OVER (PARTITION BY metric) > 1 "
                   f"THEN metric || ' (' || coalesce(parent_metric, 'total') || ')' ELSE metric END AS label, "
                   f"metric, parent_metric, baseline_dur_ns, comparison_dur_ns, diff_ns "
                   f"FROM overall_comparison_between({sql_quote(s.baseline or '')}, {sql_quote(s.comparison or '')}) "
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
