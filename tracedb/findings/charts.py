"""The report's charts, as data: each :class:`ChartSpec` names its view, the cause it belongs to
(the report's section, :data:`~.finding.CAUSES`), the SQL that feeds it and how its rows become a
plotly figure (:mod:`.plots`); :data:`CHARTS` lists them in page order. :func:`draw` is the one
path every chart takes (SQL → rows → figure, or a note saying why it is skipped)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..engine import duckdb
from . import plots
from .finding import all_rows, has_macro, has_view, sql_quote

MAX_STEP_BARS = 400          # (rank, step) bars in the step stack; the first ones by rank, step
MAX_OP_BARS = 20             # op types in the op diff chart (op_diff's first rows, in its order)
MAX_FREE_BARS = 5000         # free intervals in the free-time timeline
MAX_GROUP_BARS = 20          # fusion candidates, annotated ranges, matrix-op groups
MEMORY_BUCKETS = 400         # time buckets per memory series (max reserved per bucket)


@dataclass
class Chart:
    """One chart of the report: a key (its div id), a title, the view it comes from, the SQL
    that fed it, the cause it belongs to, and the plotly figure (None: the chart is skipped,
    ``note`` says why)."""

    key: str
    title: str
    view: str
    sql: str
    figure: object | None = None
    note: str = ""
    cause: str = "step"


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
    it names, the SQL that feeds it, the note when that SQL has no row, ``draw`` (rows → plotly
    figure, or None with ``chart.note`` set) and its cause. ``pair``: needs a baseline/comparison
    pair; ``requires``: a view or macro that must exist in the file."""

    key: str
    title: str
    view: str
    sql: Callable[[Scope], str]
    draw: Callable[[Chart, list[dict], Scope, duckdb.DuckDBPyConnection], object]
    empty: str
    cause: str = "step"
    pair: bool = False
    requires: str | None = None


def draw(con: duckdb.DuckDBPyConnection, spec: ChartSpec, scope: Scope) -> Chart:
    """The one path every chart takes: SQL → rows → figure, or a note saying why it is skipped."""
    chart = Chart(spec.key, spec.title.format(baseline=scope.baseline, comparison=scope.comparison),
                  spec.view, spec.sql(scope), cause=spec.cause)
    if spec.pair and not (scope.baseline and scope.comparison):
        chart.note = "no baseline/comparison pair (set roles with 'tracedb runs set-role', or --baseline/--comparison)"
        return chart
    if spec.requires and not (has_view(con, spec.requires) or has_macro(con, spec.requires)):
        chart.note = f"{spec.requires} is not in this database"
        return chart
    rows = all_rows(con, chart.sql)
    if not rows:
        chart.note = spec.empty
        return chart
    chart.figure = spec.draw(chart, rows, scope, con)
    if chart.figure is None and not chart.note:
        chart.note = "nothing to draw"
    return chart


def _pair_args(s: Scope) -> str:
    return f"{sql_quote(s.baseline or '')}, {sql_quote(s.comparison or '')}"


CHARTS: tuple[ChartSpec, ...] = (
    ChartSpec(
        "overall_comparison", "Step split: {baseline} (baseline) vs {comparison} (comparison), ms per rank",
        "overall_comparison_between",
        lambda s: (f"SELECT CASE WHEN count(*) OVER (PARTITION BY metric) > 1 "
                   f"THEN metric || ' (' || coalesce(parent_metric, 'total') || ')' ELSE metric END AS label, "
                   f"metric, parent_metric, baseline_dur_ns, comparison_dur_ns, diff_ns "
                   f"FROM overall_comparison_between({_pair_args(s)}) "
                   f"WHERE baseline_dur_ns IS NOT NULL OR comparison_dur_ns IS NOT NULL ORDER BY sort_key"),
        plots.paired_bars("label", "baseline_dur_ns", "comparison_dur_ns", "duration per rank, ms"),
        "overall_comparison_between has no row for this pair", cause="comparison", pair=True,
        requires="overall_comparison_between"),
    ChartSpec(
        "op_diff", "Device time per op, in op_diff's order: {baseline} (baseline) vs {comparison} (comparison)",
        "op_diff_between",
        lambda s: (f"SELECT op_type, baseline_total_ns, comparison_total_ns, diff_total_ns, total_ratio "
                   f"FROM op_diff_between({_pair_args(s)}) LIMIT {MAX_OP_BARS}"),
        plots.paired_bars("op_type", "baseline_total_ns", "comparison_total_ns", "total device time, ms"),
        "op_diff_between has no row for this pair", cause="comparison", pair=True, requires="op_diff_between"),
    ChartSpec(
        "step_stack", "Step time per rank and step: computing / exposed communication / free", "step_breakdown",
        lambda s: (f"SELECT rank, step, computing_ns, communication_not_overlapped_ns, free_ns, e2e_ns "
                   f"FROM step_breakdown WHERE run_name = {s.q} AND e2e_ns IS NOT NULL "
                   f"ORDER BY rank, step NULLS FIRST LIMIT {MAX_STEP_BARS}"),
        plots.step_stack, "step_breakdown has no row for this run"),
    ChartSpec(
        "rank_step_heatmap", "Step time (ms), rank × step", "step_breakdown",
        lambda s: (f"SELECT rank, step, e2e_ns FROM step_breakdown WHERE run_name = {s.q} "
                   f"AND e2e_ns IS NOT NULL AND step IS NOT NULL ORDER BY rank, step"),
        plots.rank_step_heatmap("e2e_ns", "ms"), "step_breakdown has no row with a step for this run"),
    ChartSpec(
        "input_bound", "Data-loading share of each step (red: input-bound)", "input_bound",
        lambda s: (f"SELECT rank, step, data_loading_source, step_ns, data_loading_ns, data_loading_ratio, "
                   f"is_input_bound FROM input_bound WHERE run_name = {s.q} ORDER BY rank, step LIMIT {MAX_STEP_BARS}"),
        plots.input_bound, "input_bound has no step for this run", cause="input", requires="input_bound"),
    ChartSpec(
        "idle_cause", "Idle time per stream over the capture, by cause", "idle_time",
        lambda s: (f"SELECT rank, stream_id, cause, idle_ns, stream_idle_ns FROM idle_time WHERE run_name = {s.q} "
                   f"AND step IS NULL AND stream_id IS NOT NULL ORDER BY rank, stream_id, cause"),
        plots.idle_cause, "idle_time has no stream of this run", cause="idle", requires="idle_time"),
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
        plots.free_timeline, "free_time has no interval in this run's slowest step", cause="idle"),
    ChartSpec(
        "fusion", "Fusion candidates: launch time one kernel per run would save, and the gaps between the kernels",
        "fusion_candidate",
        lambda s: (f"SELECT pattern || ' · ' || coalesce(scope_name, 'stream') || ' · stream ' || stream_id "
                   f"|| ' · rank ' || rank AS label, count(*) AS run_count, sum(kernel_count) AS kernel_count, "
                   f"sum(launch_saving_ns) AS launch_saving_ns, sum(gap_ns) AS gap_ns FROM fusion_candidate "
                   f"WHERE run_name = {s.q} GROUP BY pattern, scope_name, stream_id, rank "
                   f"ORDER BY launch_saving_ns DESC NULLS LAST, gap_ns DESC, label LIMIT {MAX_GROUP_BARS}"),
        plots.labelled_bars("label", (("launch_saving_ns", "launch saving", "#4c78a8"),
                                      ("gap_ns", "gaps between the kernels", "#bab0ac")),
                            "over the capture, ms"),
        "fusion_candidate has no run of short kernels in this run", cause="host", requires="fusion_candidate"),
    ChartSpec(
        "range_time", "Annotated ranges: host time and the GPU time they project to (Nsight's projection)",
        "range_time",
        lambda s: (f"SELECT kind || ' · ' || name AS label, count(*) AS range_count, sum(host_ns) AS host_ns, "
                   f"sum(gpu_proj_ns) AS gpu_proj_ns, sum(gpu_busy_ns) AS gpu_busy_ns FROM range_time "
                   f"WHERE run_name = {s.q} GROUP BY kind, name "
                   f"ORDER BY gpu_proj_ns DESC NULLS LAST, host_ns DESC, label LIMIT {MAX_GROUP_BARS}"),
        plots.labelled_bars("label", (("host_ns", "host range", "#bab0ac"),
                                      ("gpu_proj_ns", "GPU projected", "#4c78a8"),
                                      ("gpu_busy_ns", "GPU busy", "#54a24b")), "summed over instances, ms"),
        "range_time has no annotated range (NVTX, record_function, mstx) in this run", cause="host",
        requires="range_time"),
    ChartSpec(
        "comm_matrix", "Communication links: bandwidth (GB/s) source rank → destination rank, all ops", "comm_matrix",
        lambda s: (f"SELECT src_rank, dst_rank, sum(transit_size_bytes) AS size_bytes, sum(transit_ns) AS transit_ns, "
                   f"round(sum(transit_size_bytes) / nullif(sum(transit_ns), 0), 4) AS bandwidth_gbps "
                   f"FROM comm_matrix WHERE run_name = {s.q} GROUP BY src_rank, dst_rank "
                   f"ORDER BY src_rank, dst_rank"),
        plots.comm_matrix, "comm_matrix has no row for this run", cause="cluster"),
    ChartSpec(
        "shape_efficiency", "Matrix ops by shape: device time (red: the shape misses the matrix unit's multiple)",
        "shape_efficiency",
        lambda s: (f"SELECT name, operand_shapes, precision, device_ns, aligned, misaligned_dims, required_multiple "
                   f"FROM shape_efficiency WHERE run_name = {s.q} "
                   f"ORDER BY device_ns DESC, name LIMIT {MAX_GROUP_BARS}"),
        plots.shape_efficiency, "shape_efficiency has no matrix op in this run", cause="compute",
        requires="shape_efficiency"),
    ChartSpec(
        "flops_heatmap", "Achieved TFLOPS, rank × step", "rank_flops",
        lambda s: (f"SELECT rank, step, achieved_tflops, mfu_ratio FROM rank_flops WHERE run_name = {s.q} "
                   f"AND step IS NOT NULL ORDER BY rank, step"),
        plots.rank_step_heatmap("achieved_tflops", "TFLOPS", 1.0, "Viridis"),
        "rank_flops has no step for this run", cause="compute", requires="rank_flops"),
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
        plots.memory, "no memory samples (memory_record.csv / Kineto [memory] events) for this run", cause="memory"),
)
