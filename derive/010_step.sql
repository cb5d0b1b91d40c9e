-- Steps of the ranks of derive_rank() (derive/_session.sql), rebuilt: the host window of every
-- ProfilerStep#N slice (trace_view.json, Kineto; the GPU copies of the step, cat
-- gpu_user_annotation, are not host steps) and the MindSpore step_trace_raw windows (device
-- counter time) with their fp/bp points.
-- Steps known only from kernels are added by 050_step_from_kernels.sql.
DELETE FROM step WHERE (run_id, rank) IN (FROM derive_rank());

INSERT INTO step (run_id, rank, step, host_start_ns, host_end_ns, device_start_ns, device_end_ns, fp_ns, bp_ns)
WITH host AS (
    SELECT run_id, rank, step, min(ts_ns) AS host_start_ns, max(ts_ns + coalesce(dur_ns, 0)) AS host_end_ns
    FROM (
        SELECT run_id, rank, ts_ns, dur_ns, TRY_CAST(regexp_extract(name, '#(\d+)', 1) AS INTEGER) AS step
        FROM event
        WHERE (run_id, rank) IN (FROM derive_rank()) AND ph = 'X'
          AND name LIKE 'ProfilerStep#%' AND coalesce(lower(cat), '') NOT LIKE 'gpu%'
    )
    WHERE step IS NOT NULL
    GROUP BY run_id, rank, step
),
mindspore AS (
    SELECT run_id, rank, step, any_value(start_ns) AS start_ns, any_value(end_ns) AS end_ns,
           any_value(fp_ns) AS fp_ns, any_value(bp_ns) AS bp_ns
    FROM step_trace_raw_row
    WHERE (run_id, rank) IN (FROM derive_rank())
    GROUP BY run_id, rank, step
)
SELECT coalesce(h.run_id, m.run_id), coalesce(h.rank, m.rank), coalesce(h.step, m.step), h.host_start_ns,
       h.host_end_ns, m.start_ns, m.end_ns, m.fp_ns, m.bp_ns
FROM host AS h
FULL JOIN mindspore AS m ON m.run_id = h.run_id AND m.rank = h.rank AND m.step = h.step;
