-- compute_island — islands of the union of computing kernels per step (the "Computing" slices).
-- Grain:     one row per maximal interval covered by at least one computing kernel of a step.
-- Source:    tracedb_internal.kernel_island (kind computing) over tracedb_internal.step_kernel
--            where NOT is_communication.
-- Reference: CANN Overlap Analysis "Computing" = U(compute tasks); touching intervals merge
--            (next.start <= running max end), as msprof-analyze and CANN do.
-- Units:     *_ns integer nanoseconds.
CREATE OR REPLACE VIEW tracedb_internal.compute_island AS
SELECT
    run_id,
    rank,
    step,
    island,
    start_ns,
    end_ns
FROM tracedb_internal.kernel_island
WHERE kind = 'computing';
