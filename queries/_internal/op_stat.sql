-- op_stat — per run and op type: calls and device time of its kernels.
-- Grain:     one row per (run, op type) over every kernel row of the run (all ranks, all steps,
--            communication ops included).
-- Source:    kernel.op_type (kernel_details.csv "Type"; GPU: kernel name), kernel.dur_ns.
-- Reference: msprof-analyze compare OperatorCompareStatistic counts and sums kernels per op type.
-- Units:     *_ns integer nanoseconds; *_count rows.
CREATE OR REPLACE VIEW tracedb_internal.op_stat AS
SELECT
    run_id::INTEGER          AS run_id,      -- run
    op_type::VARCHAR         AS op_type,     -- op type (kernel.op_type)
    count(*)::BIGINT         AS call_count,  -- kernel rows
    sum(dur_ns)::BIGINT      AS total_ns,    -- total device time, ns
    min(dur_ns)::BIGINT      AS min_ns,      -- shortest kernel, ns
    max(dur_ns)::BIGINT      AS max_ns       -- longest kernel, ns
FROM kernel
GROUP BY run_id, op_type;
