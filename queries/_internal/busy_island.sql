-- busy_island — islands of the union of all kernels (computing and communication) per step.
-- Grain:     one row per maximal interval in which the device runs a kernel or communication op.
-- Source:    tracedb_internal.kernel_island (kind busy) over tracedb_internal.step_kernel.
-- Reference: the complement inside the step window is CANN's "Free" = [begin, end] \ (C ∪ M).
-- Units:     *_ns integer nanoseconds.
CREATE OR REPLACE VIEW tracedb_internal.busy_island AS
SELECT
    run_id,
    rank,
    step,
    island,
    start_ns,
    end_ns,
    first_kernel,
    last_kernel
FROM tracedb_internal.kernel_island
WHERE kind = 'busy';
