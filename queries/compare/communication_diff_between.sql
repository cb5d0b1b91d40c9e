-- communication_diff_between — per collective type (allreduce, allgather, ...), communication time of a comparison run against a baseline run.
-- Grain:     one row per normalised communication op type present in either run; steps restricted
--            by compare_step; ordered by diff_total_ns descending.
-- Source:    kernel rows with is_communication (NPU: kernel_details.csv / trace_view.json HCCL ops
--            hcom_<type>_...; GPU: NCCL kernels nccl(Dev)Kernel_<Type>_...), kernel.dur_ns. The type is
--            the op name lower-cased and matched on allreduce, allgather, reducescatter /
--            reduce_scatter, alltoall, broadcast, sendrecv, send, recv / receive, reduce, barrier;
--            else the second "_" token of an hcom_ name, else the first.
-- Reference: msprof-analyze compare CommunicationCompare (Calls, Total/Avg/Max/Min Duration, Diff
--            Duration = comparison − baseline, Diff Ratio = comparison / baseline). msprof-analyze
--            types NCCL kernels by the first "_" token (ncclkernel / nccldevkernel), so they never
--            meet HCCL's; tracedb normalises both. Totals and calls per rank.
-- Units:     *_ns integer nanoseconds (per-rank totals rounded to the ns); *_calls per rank;
--            *_ratio plain ratio.
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
-- Browse:    communication_diff(baseline, comparison)
CREATE OR REPLACE MACRO communication_diff_between(baseline_run, comparison_run) AS TABLE
WITH comm AS (
    SELECT k.run_id, k.rank, k.dur_ns,
        CASE
            WHEN lower(k.name) LIKE '%allreduce%' THEN 'allreduce'
            WHEN lower(k.name) LIKE '%allgather%' THEN 'allgather'
            WHEN lower(k.name) LIKE '%reducescatter%' OR lower(k.name) LIKE '%reduce_scatter%' THEN 'reducescatter'
            WHEN lower(k.name) LIKE '%alltoall%' THEN 'alltoall'
            WHEN lower(k.name) LIKE '%broadcast%' THEN 'broadcast'
            WHEN lower(k.name) LIKE '%sendrecv%' THEN 'sendrecv'
            WHEN lower(k.name) LIKE '%send%' THEN 'send'
            WHEN lower(k.name) LIKE '%recv%' OR lower(k.name) LIKE '%receive%' THEN 'recv'
            WHEN lower(k.name) LIKE '%reduce%' THEN 'reduce'
            WHEN lower(k.name) LIKE '%barrier%' THEN 'barrier'
            WHEN lower(k.name) LIKE 'hcom_%' THEN split_part(lower(k.name), '_', 2)
            ELSE split_part(lower(k.name), '_', 1)
        END AS comm_type
    FROM kernel AS k
    LEFT JOIN (SELECT DISTINCT run_id FROM compare_step) AS rs ON rs.run_id = k.run_id
    LEFT JOIN (SELECT DISTINCT run_id, step FROM compare_step) AS cs
        ON cs.run_id = k.run_id AND cs.step = k.step
    WHERE k.is_communication AND (rs.run_id IS NULL OR cs.step IS NOT NULL)
),
b_c AS (
    SELECT comm.* FROM comm JOIN run AS r ON r.run_id = comm.run_id WHERE r.run_name = baseline_run
),
c_c AS (
    SELECT comm.* FROM comm JOIN run AS r ON r.run_id = comm.run_id WHERE r.run_name = comparison_run
),
b AS (
    SELECT comm_type, count(*) AS calls, sum(dur_ns) AS total_ns, max(dur_ns) AS max_ns, min(dur_ns) AS min_ns,
           (SELECT count(DISTINCT rank) FROM b_c) AS ranks
    FROM b_c GROUP BY comm_type
),
c AS (
    SELECT comm_type, count(*) AS calls, sum(dur_ns) AS total_ns, max(dur_ns) AS max_ns, min(dur_ns) AS min_ns,
           (SELECT count(DISTINCT rank) FROM c_c) AS ranks
    FROM c_c GROUP BY comm_type
),
joined AS (
    SELECT
        coalesce(b.comm_type, c.comm_type) AS comm_type,
        coalesce(b.calls, 0) AS b_calls, coalesce(b.total_ns, 0) AS b_total, b.max_ns AS b_max, b.min_ns AS b_min,
        CASE WHEN b.ranks > 0 THEN round(b.total_ns::DOUBLE / b.ranks) ELSE 0 END AS b_total_pr,
        CASE WHEN b.ranks > 0 THEN b.calls::DOUBLE / b.ranks ELSE 0 END AS b_calls_pr,
        coalesce(c.calls, 0) AS c_calls, coalesce(c.total_ns, 0) AS c_total, c.max_ns AS c_max, c.min_ns AS c_min,
        CASE WHEN c.ranks > 0 THEN round(c.total_ns::DOUBLE / c.ranks) ELSE 0 END AS c_total_pr,
        CASE WHEN c.ranks > 0 THEN c.calls::DOUBLE / c.ranks ELSE 0 END AS c_calls_pr
    FROM b
    FULL OUTER JOIN c ON b.comm_type = c.comm_type
)
SELECT
    CAST(baseline_run AS VARCHAR)                  AS baseline_run,          -- baseline run name
    CAST(comparison_run AS VARCHAR)                AS comparison_run,        -- comparison run name
    comm_type::VARCHAR                             AS comm_type,             -- collective type: allreduce, allgather, reducescatter, alltoall, broadcast, send, recv, ...
    b_calls_pr::DOUBLE                             AS baseline_calls,        -- communication ops per baseline rank (Calls)
    b_total_pr::BIGINT                             AS baseline_total_ns,     -- communication time per baseline rank, ns (Total Duration)
    CASE WHEN b_calls > 0 THEN b_total // b_calls END::BIGINT AS baseline_avg_ns,  -- time per baseline op, ns (Avg Duration; integer division)
    b_max::BIGINT                                  AS baseline_max_ns,       -- longest baseline op, ns
    b_min::BIGINT                                  AS baseline_min_ns,       -- shortest baseline op, ns
    c_calls_pr::DOUBLE                             AS comparison_calls,      -- communication ops per comparison rank (Calls)
    c_total_pr::BIGINT                             AS comparison_total_ns,   -- communication time per comparison rank, ns (Total Duration)
    CASE WHEN c_calls > 0 THEN c_total // c_calls END::BIGINT AS comparison_avg_ns,  -- time per comparison op, ns (Avg Duration; integer division)
    c_max::BIGINT                                  AS comparison_max_ns,     -- longest comparison op, ns
    c_min::BIGINT                                  AS comparison_min_ns,     -- shortest comparison op, ns
    (c_total_pr - b_total_pr)::BIGINT              AS diff_total_ns,         -- comparison − baseline time per rank, ns (Diff Duration)
    CASE WHEN b_total_pr > 0 THEN c_total_pr::DOUBLE / b_total_pr END::DOUBLE AS total_ratio  -- comparison / baseline time (Diff Ratio); NULL when the baseline has none
FROM joined
ORDER BY diff_total_ns DESC, comm_type;
