-- step_comparison_between — the mean step of a comparison run against the mean step of a baseline
-- run: computing, uncovered communication, free and E2E per step, over the steps compared.
-- Grain:     one row per metric (Computing Time, Uncovered Communication Time, Free Time, E2E
--            Time) that either run has; the steps compared are those compare_step keeps for the
--            run (tracedb compare --baseline-step / --comparison-step), else all its steps.
-- Source:    step_breakdown (computing_ns, communication_not_overlapped_ns, free_ns, e2e_ns per
--            run, rank and step), compare_step, step (the step counts).
-- Reference: msprof-analyze compare's overall rows (OverallMetrics: Computing Time, Uncovered
--            Communication Time, Free Time, E2E Time) for one step, as its DB path computes them
--            with --base_step / --comparison_step; here the mean over the compared steps and the
--            run's ranks, so a 6-step capture and a 1-step capture compare step for step (the
--            whole-capture numbers of overall_comparison add up all the steps each side holds).
--            Diff = comparison − baseline, ratio = comparison / baseline.
-- Units:     *_ns integer nanoseconds per step (mean over the compared steps and ranks, rounded
--            to the ns); *_count steps; change_pct percent (+93.5 = 93.5 % longer); ratio plain
--            (1.0 = unchanged).
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
-- Browse:    step_comparison(baseline, comparison) — what tracedb compare prints first when the
--            step counts differ or a step is chosen
CREATE OR REPLACE MACRO step_comparison_between(baseline_run, comparison_run) AS TABLE
WITH pair AS (
    SELECT r.run_id, r.run_name, CASE WHEN r.run_name = baseline_run THEN 'b' ELSE 'c' END AS side
    FROM run AS r
    WHERE r.run_name IN (baseline_run, comparison_run)
),
kept AS (
    -- the compared steps of each run: compare_step's, else every step (and a stepless rank's
    -- one row, step NULL)
    SELECT p.side, s.rank, s.step, s.computing_ns, s.communication_not_overlapped_ns, s.free_ns, s.e2e_ns
    FROM step_breakdown AS s
    JOIN pair AS p
        ON p.run_name = s.run_name
    LEFT JOIN (SELECT DISTINCT run_id FROM compare_step) AS rs
        ON rs.run_id = p.run_id
    LEFT JOIN (SELECT DISTINCT run_id, step FROM compare_step) AS cs
        ON cs.run_id = p.run_id AND cs.step = s.step
    WHERE rs.run_id IS NULL OR cs.step IS NOT NULL
),
metric AS (
    SELECT side, 1 AS position, 'Computing Time' AS metric, computing_ns AS dur_ns FROM kept
    UNION ALL
    SELECT side, 2, 'Uncovered Communication Time', communication_not_overlapped_ns FROM kept
    UNION ALL
    SELECT side, 3, 'Free Time', free_ns FROM kept
    UNION ALL
    SELECT side, 4, 'E2E Time', e2e_ns FROM kept
),
per_side AS (
    SELECT metric, min(position) AS position,
           avg(CASE WHEN side = 'b' THEN dur_ns END) AS b_ns,
           avg(CASE WHEN side = 'c' THEN dur_ns END) AS c_ns
    FROM metric
    GROUP BY metric
    HAVING count(dur_ns) > 0
),
step_count AS (
    SELECT count(DISTINCT CASE WHEN side = 'b' THEN step END) AS b_steps,
           count(DISTINCT CASE WHEN side = 'c' THEN step END) AS c_steps
    FROM kept
)
SELECT
    m.metric::VARCHAR                                    AS metric,                 -- step_breakdown column as msprof-analyze's overall row: Computing Time, Uncovered Communication Time, Free Time, E2E Time
    round(m.b_ns)::BIGINT                                AS baseline_dur_ns,        -- baseline mean per step and rank, ns; NULL when the run lacks it (MindSpore without computing kernels)
    round(m.c_ns)::BIGINT                                AS comparison_dur_ns,      -- comparison mean per step and rank, ns
    (round(m.c_ns) - round(m.b_ns))::BIGINT              AS diff_ns,                -- comparison − baseline, ns per step
    CASE WHEN m.b_ns > 0 THEN (m.c_ns - m.b_ns) * 100.0 / m.b_ns END::DOUBLE
                                                         AS change_pct,             -- (comparison − baseline) / baseline × 100; NULL when the baseline has none
    CASE WHEN m.b_ns > 0 THEN m.c_ns / m.b_ns END::DOUBLE AS ratio,                 -- comparison / baseline (1.0 = unchanged); NULL when the baseline has none
    n.b_steps::BIGINT                                    AS baseline_step_count,    -- steps of the baseline compared (compare_step's, else all; a rank without steps counts none)
    n.c_steps::BIGINT                                    AS comparison_step_count,  -- steps of the comparison compared
    CAST(baseline_run AS VARCHAR)                        AS baseline_run,           -- baseline run name
    CAST(comparison_run AS VARCHAR)                      AS comparison_run          -- comparison run name
FROM per_side AS m
CROSS JOIN step_count AS n
ORDER BY m.position;
