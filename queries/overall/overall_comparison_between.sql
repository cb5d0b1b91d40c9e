-- overall_comparison_between — msprof-analyze compare's overall table for two runs: every
-- overall_summary metric of a baseline run next to a comparison run, with the difference.
-- Grain:     one row per (metric, parent_metric) present in either run; ordered as msprof-analyze's
--            OverallMetrics sheet (sort_key).
--            Scope: whole capture (not per step).
-- Source:    overall_summary (whole-capture numbers per rank, from kernel / kernel_class_rule / link /
--            memory).
-- Reference: msprof-analyze compare OverallMetrics (analyses.md §2.4, §0.3): Diff Duration =
--            comparison − baseline, Diff Ratio = comparison / baseline (msprof-analyze prints inf
--            when only the baseline is 0 and 1.0 when both are; here NULL and 1.0), Duration Ratio =
--            duration / E2E of that side. msprof-analyze compares one rank with one rank; runs with
--            several ranks are averaged per rank (Σ over ranks / number of ranks of the run with a
--            device event; a metric a rank lacks counts as 0), as the framework-op comparison does.
--            *_msprof_dur_ns: msprof-analyze's own numbers (overall_summary.msprof_dur_ns) where its
--            reading of a capture differs (docs/msprof-analyze.md).
-- Units:     *_ns integer nanoseconds (rank averages rounded to the ns); *_kernel_count kernels (rank
--            average, rounded); *_step_count steps; *_bytes bytes; *_gbps GB/s (bandwidth rows: mean
--            of the ranks that have the row); *_ratio plain ratios (*_e2e_ratio 0–1; diff_ratio
--            comparison / baseline); ratio the same comparison / baseline of the row's duration,
--            Mem Usage or bandwidth, NULL when the baseline has none; change_pct percent (+93.5 =
--            93.5 % longer). Whole capture: the step counts say how many steps each side adds up
--            (step_comparison compares a mean step).
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
-- Method:    overall_summary is read once and both sides are taken from it by conditional
--            aggregation (no self-join): Spark inlines every use of a view or CTE, and the
--            join of two sides read separately did not finish there.
-- Browse:    overall_comparison(baseline, comparison) — what tracedb compare prints first
CREATE OR REPLACE MACRO overall_comparison_between(baseline_run, comparison_run) AS TABLE
WITH runs AS (
    SELECT baseline_run AS baseline_name, comparison_run AS comparison_name
),
per_metric AS (
    SELECT
        s.run_name, s.metric, s.parent_metric, min(s.sort_key) AS sort_key,
        sum(s.dur_ns) AS dur_ns, sum(s.kernel_count) AS kernel_count, sum(s.size_bytes) AS size_bytes,
        avg(s.bandwidth_gbps) AS bandwidth_gbps, sum(s.msprof_dur_ns) AS msprof_dur_ns,
        count(DISTINCT CASE WHEN s.metric = 'E2E Time' THEN s.rank END) AS e2e_rank_count
    FROM overall_summary AS s
    CROSS JOIN runs AS r
    WHERE s.run_name IN (r.baseline_name, r.comparison_name)
    GROUP BY s.run_name, s.metric, s.parent_metric
),
side AS (
    -- per-rank averages; a run without an E2E Time row (no device event) has no side
    SELECT
        run_name, metric, parent_metric, sort_key,
        dur_ns::DOUBLE / rank_count AS dur_ns,
        kernel_count::DOUBLE / rank_count AS kernel_count,
        size_bytes::DOUBLE / rank_count AS size_bytes,
        bandwidth_gbps,
        msprof_dur_ns::DOUBLE / rank_count AS msprof_dur_ns
    FROM (SELECT *, max(e2e_rank_count) OVER (PARTITION BY run_name) AS rank_count FROM per_metric) AS m
    WHERE rank_count > 0
),
joined AS (
    SELECT
        s.metric, s.parent_metric,
        coalesce(min(CASE WHEN s.run_name = r.baseline_name THEN s.sort_key END),
                 min(CASE WHEN s.run_name = r.comparison_name THEN s.sort_key END)) AS sort_key,
        max(CASE WHEN s.run_name = r.baseline_name THEN s.dur_ns END) AS baseline_dur_ns,
        max(CASE WHEN s.run_name = r.baseline_name THEN s.kernel_count END) AS baseline_kernel_count,
        max(CASE WHEN s.run_name = r.baseline_name THEN s.size_bytes END) AS baseline_size_bytes,
        max(CASE WHEN s.run_name = r.comparison_name THEN s.dur_ns END) AS comparison_dur_ns,
        max(CASE WHEN s.run_name = r.comparison_name THEN s.kernel_count END) AS comparison_kernel_count,
        max(CASE WHEN s.run_name = r.comparison_name THEN s.size_bytes END) AS comparison_size_bytes,
        max(CASE WHEN s.run_name = r.baseline_name THEN s.bandwidth_gbps END) AS baseline_bandwidth_gbps,
        max(CASE WHEN s.run_name = r.comparison_name THEN s.bandwidth_gbps END) AS comparison_bandwidth_gbps,
        max(CASE WHEN s.run_name = r.baseline_name THEN s.msprof_dur_ns END) AS baseline_msprof_dur_ns,
        max(CASE WHEN s.run_name = r.comparison_name THEN s.msprof_dur_ns END) AS comparison_msprof_dur_ns
    FROM side AS s
    CROSS JOIN runs AS r
    GROUP BY s.metric, s.parent_metric
),
steps AS (
    SELECT r.run_name, count(DISTINCT s.step) AS step_count
    FROM step AS s
    JOIN run AS r
        ON r.run_id = s.run_id
    CROSS JOIN runs AS p
    WHERE r.run_name IN (p.baseline_name, p.comparison_name)
    GROUP BY r.run_name
),
with_e2e AS (
    SELECT
        *,
        max(CASE WHEN metric = 'E2E Time' THEN baseline_dur_ns END) OVER () AS baseline_e2e_ns,
        max(CASE WHEN metric = 'E2E Time' THEN comparison_dur_ns END) OVER () AS comparison_e2e_ns,
        coalesce(baseline_dur_ns, baseline_size_bytes, baseline_bandwidth_gbps) AS baseline_value,
        coalesce(comparison_dur_ns, comparison_size_bytes, comparison_bandwidth_gbps) AS comparison_value
    FROM joined
)
SELECT
    j.metric::VARCHAR                                              AS metric,                    -- OverallMetrics row (overall_summary.metric)
    j.parent_metric::VARCHAR                                       AS parent_metric,             -- row it is indented under; NULL for a top row
    round(j.baseline_dur_ns)::BIGINT                               AS baseline_dur_ns,           -- baseline duration, ns (rank average); NULL when the run lacks the row
    round(j.comparison_dur_ns)::BIGINT                             AS comparison_dur_ns,         -- comparison duration, ns (rank average)
    (round(coalesce(j.comparison_dur_ns, 0)) - round(coalesce(j.baseline_dur_ns, 0)))::BIGINT
                                                                   AS diff_ns,                   -- Diff Duration: comparison − baseline, ns
    CASE WHEN j.baseline_value > 0
         THEN (coalesce(j.comparison_value, 0) - j.baseline_value) * 100.0 / j.baseline_value END::DOUBLE
                                                                   AS change_pct,                -- (comparison − baseline) / baseline × 100 of the row's duration (Mem Usage: bytes; bandwidth rows: GB/s); NULL when the baseline has none
    CASE WHEN j.baseline_value > 0
         THEN coalesce(j.comparison_value, 0) / j.baseline_value END::DOUBLE
                                                                   AS ratio,                     -- comparison / baseline of the same quantity (1.0 = unchanged); NULL when the baseline has none
    round(j.baseline_kernel_count)::BIGINT                         AS baseline_kernel_count,     -- baseline kernel count (rank average); NULL where msprof-analyze prints "/"
    round(j.comparison_kernel_count)::BIGINT                       AS comparison_kernel_count,   -- comparison kernel count (rank average)
    (j.baseline_dur_ns / j.baseline_e2e_ns)::DOUBLE                AS baseline_e2e_ratio,        -- baseline duration / baseline E2E (Duration Ratio)
    (j.comparison_dur_ns / j.comparison_e2e_ns)::DOUBLE            AS comparison_e2e_ratio,      -- comparison duration / comparison E2E
    CASE WHEN coalesce(j.baseline_dur_ns, 0) = 0 AND coalesce(j.comparison_dur_ns, 0) = 0 THEN 1.0
         WHEN coalesce(j.baseline_dur_ns, 0) = 0 THEN NULL
         ELSE coalesce(j.comparison_dur_ns, 0) / j.baseline_dur_ns END::DOUBLE
                                                                   AS diff_ratio,                -- Diff Ratio: comparison / baseline duration, as msprof-analyze (1.0 when both are 0 or absent; NULL when only the baseline is 0); the table shows it ×100 as diff_%, ratio and change_pct read easier
    round(j.baseline_size_bytes)::BIGINT                           AS baseline_size_bytes,       -- Mem Usage of the baseline, bytes (rank average); NULL for other rows
    round(j.comparison_size_bytes)::BIGINT                         AS comparison_size_bytes,     -- Mem Usage of the comparison, bytes (rank average)
    j.baseline_bandwidth_gbps::DOUBLE                              AS baseline_bandwidth_gbps,   -- RDMA / SDMA Bandwidth of the baseline, GB/s (mean of its ranks that have the row); NULL for other rows
    j.comparison_bandwidth_gbps::DOUBLE                            AS comparison_bandwidth_gbps, -- RDMA / SDMA Bandwidth of the comparison, GB/s (mean of its ranks that have the row)
    coalesce(bs.step_count, 0)::BIGINT
                                                                   AS baseline_step_count,       -- steps the baseline capture holds (its whole-capture numbers add them all up)
    coalesce(cs.step_count, 0)::BIGINT
                                                                   AS comparison_step_count,     -- steps the comparison capture holds
    j.sort_key::VARCHAR                                            AS sort_key,                  -- msprof-analyze's row order
    round(j.baseline_msprof_dur_ns)::BIGINT                        AS baseline_msprof_dur_ns,    -- msprof-analyze's own baseline duration for the row (overall_summary.msprof_dur_ns, rank average), ns
    round(j.comparison_msprof_dur_ns)::BIGINT                      AS comparison_msprof_dur_ns,  -- msprof-analyze's own comparison duration for the row (overall_summary.msprof_dur_ns, rank average), ns
    r.baseline_name::VARCHAR                                       AS baseline_run,              -- baseline run name
    r.comparison_name::VARCHAR                                     AS comparison_run             -- comparison run name
FROM with_e2e AS j
CROSS JOIN runs AS r
LEFT JOIN steps AS bs
    ON bs.run_name = r.baseline_name
LEFT JOIN steps AS cs
    ON cs.run_name = r.comparison_name
ORDER BY j.sort_key;
