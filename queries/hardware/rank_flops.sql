-- rank_flops — FLOPs, achieved TFLOPS and MFU of each rank and step, with MindInsight's slow-rank rule (FLOPS 20 % below the mean).
-- Grain:     one row per (run, rank, step) with counted op_flops rows (step NULL: ops outside every
--            step); plus, for a rank whose FLOPs tracedb cannot compute but whose MindSpore
--            flops_summary_{rank}.json was read, one row with step NULL and source
--            mindspore_flops_summary.
-- Source:    op_flops (counted rows: flops, peak_tflops); step_breakdown (step span
--            step_end_ns − step_start_ns, computing_ns); profiler_flops_summary (FLOPs, FLOPS,
--            FLOPS_Utilization).
-- Reference: MFU = model FLOPs / (span x peak): here Σ over the step's counted ops of flops /
--            peak of the op's precision, divided by the step span (one precision: the usual FLOPs /
--            (time x peak)); NULL when a counted op's peak is unknown. MindInsight
--            (parallel_proposer _flops_per_second_analyze): a rank is slow when (mean FLOPS − its
--            FLOPS) / mean FLOPS > 0.2, the mean over the run's ranks; here per step, over the
--            ranks with the same source. MindSpore rows carry the profiler's own numbers: FLOPs x
--            10^6, FLOPS (mean op GFLOPS) / 1000, FLOPS_Utilization / 100.
-- Units:     flops floating-point operations; *_tflops 10^12 FLOP/s; *_ns integer nanoseconds;
--            *_ratio 0–1; *_count ops.
CREATE OR REPLACE VIEW rank_flops AS
WITH counted AS (
    SELECT run_name, rank, step, flops, peak_tflops
    FROM op_flops
    WHERE counted
),
per_step AS (
    SELECT
        run_name, rank, step,
        count(*) AS op_count,
        sum(flops) AS flops,
        sum(flops::DOUBLE / (peak_tflops * 1e12)) AS peak_seconds,
        count(*) FILTER (WHERE peak_tflops IS NULL OR peak_tflops <= 0) AS no_peak_count
    FROM counted
    GROUP BY run_name, rank, step
),
with_time AS (
    SELECT
        p.run_name, p.rank, p.step, p.op_count, p.flops, p.peak_seconds, p.no_peak_count,
        b.step_end_ns - b.step_start_ns AS span_ns, b.computing_ns,
        'op_flops' AS source, NULL::DOUBLE AS profiler_tflops, NULL::DOUBLE AS profiler_mfu
    FROM per_step AS p
    LEFT JOIN step_breakdown AS b
        ON b.run_name = p.run_name AND b.rank = p.rank AND b.step IS NOT DISTINCT FROM p.step
    UNION ALL
    SELECT
        r.run_name, f.rank, NULL::INTEGER, NULL::BIGINT, f.total_mflop * 1e6, NULL::DOUBLE, NULL::BIGINT,
        NULL::BIGINT, NULL::BIGINT, 'mindspore_flops_summary', f.avg_op_gflops / 1000, f.utilization_pct / 100
    FROM profiler_flops_summary AS f
    JOIN run AS r
        ON r.run_id = f.run_id
    WHERE NOT EXISTS (SELECT 1 FROM per_step AS p WHERE p.run_name = r.run_name AND p.rank = f.rank)
),
rates AS (
    SELECT *,
           coalesce(profiler_tflops, CASE WHEN span_ns > 0 THEN flops::DOUBLE / span_ns / 1000 END) AS tflops
    FROM with_time
),
mean_rate AS (
    SELECT run_name, step, source, avg(tflops) AS mean_tflops, count(*) AS ranks
    FROM rates
    GROUP BY run_name, step, source
)
SELECT
    r.run_name::VARCHAR                                   AS run_name,               -- run name
    r.rank::INTEGER                                       AS rank,                   -- rank
    r.step::INTEGER                                       AS step,                   -- step; NULL outside every step (or a MindSpore whole-capture row)
    r.source::VARCHAR                                     AS source,                 -- op_flops (tracedb) or mindspore_flops_summary (the profiler's own numbers)
    r.op_count::BIGINT                                    AS op_count,               -- counted op_flops rows in the step
    r.flops::DOUBLE                                       AS flops,                  -- FLOPs of the step (MindSpore: FLOPs x 10^6 of one execution of every op)
    r.span_ns::BIGINT                                     AS span_ns,                -- step span: last device event end − first device event start (step_breakdown), ns
    r.computing_ns::BIGINT                                AS computing_ns,           -- step computing time (step_breakdown.computing_ns), ns
    r.tflops::DOUBLE                                      AS achieved_tflops,        -- achieved FLOPS over the step span, 10^12 FLOP/s (MindSpore: FLOPS / 1000)
    CASE WHEN r.computing_ns > 0 THEN r.flops::DOUBLE / r.computing_ns / 1000 END::DOUBLE
                                                          AS computing_tflops,       -- FLOPs / computing time, 10^12 FLOP/s
    coalesce(r.profiler_mfu,
             CASE WHEN r.no_peak_count = 0 AND r.span_ns > 0 THEN r.peak_seconds * 1e9 / r.span_ns END)::DOUBLE
                                                          AS mfu_ratio,              -- model FLOPs utilisation: Σ flops / peak over the span, 0–1; NULL when a peak is unknown (MindSpore: FLOPS_Utilization / 100)
    m.mean_tflops::DOUBLE                                 AS mean_tflops,            -- mean achieved_tflops of the run's ranks in this step (same source)
    CASE WHEN m.mean_tflops > 0 THEN (m.mean_tflops - r.tflops) / m.mean_tflops END::DOUBLE
                                                          AS below_mean_ratio,       -- (mean − achieved_tflops) / mean: how far the rank is below the mean, 0–1 (negative above it)
    coalesce(m.ranks > 1 AND m.mean_tflops > 0 AND (m.mean_tflops - r.tflops) / m.mean_tflops > 0.2, false)::BOOLEAN
                                                          AS slow_by_flops           -- MindInsight's rule: FLOPS more than 20 % below the mean of the ranks
FROM rates AS r
JOIN mean_rate AS m
    ON m.run_name = r.run_name AND m.step IS NOT DISTINCT FROM r.step AND m.source = r.source
ORDER BY run_name, source, step, rank;
