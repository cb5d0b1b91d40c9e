-- MindSpore timeline (ascend_timeline_display_{rank}.json / timeline_display_{rank}.json) → kernel,
-- numbered by start, then name; and its steps.
-- Kernels: the device ops (X events with args.type or args.fullname; tid = stream) and, when the
-- rank has no step_trace_raw file (whose comm-op columns are the same intervals on the device
-- counter clock), the step trace's stream_{id}_… lanes as communication; an op whose args.type
-- is an HCCL op (AllReduce, AllGather, ReduceScatter, Broadcast, Send, Receive, AllToAll, hcom_*)
-- is communication too. Host records (InitData, GetNext, EndOfSequence: no args) are not kernels.
-- Steps (only with step_trace_point_info.json): step k ends at the end of the k-th run of the
-- bp_end op (bp_ns); it starts at the k-th run of the fp_start op (fp_ns) when the timeline
-- has that op, else at the first device op after step k-1's bp_end (step 1: the first device
-- op). A kernel belongs to the last step that started at or before it (ops after the last
-- bp_end: the last step's tail). Times are the timeline's relative ns, not the epoch. Step
-- rows are added for steps the rank does not have yet (step_trace_raw steps keep their own
-- windows and points); derive/050 then sets their device windows from the kernels.
-- when-format: mindspore_timeline
DELETE FROM kernel
WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'mindspore_timeline';

CREATE OR REPLACE TEMP TABLE _ms_timeline_op AS
SELECT run_id, rank, rowid AS erow, file_id, name, tid, ts_ns, dur_ns,
       json_extract_string(args, '$.type') AS op_type, json_extract_string(args, '$.fullname') AS full_name
FROM event
WHERE (run_id, rank) IN (FROM derive_rank())
  AND file_id IN (SELECT file_id FROM derive_files(['mindspore_timeline']))
  AND ph = 'X' AND ts_ns IS NOT NULL AND dur_ns IS NOT NULL
  AND (json_extract_string(args, '$.type') IS NOT NULL OR json_extract_string(args, '$.fullname') IS NOT NULL
       OR (regexp_matches(name, '^stream_[0-9]+_')
           AND (run_id, rank) NOT IN (SELECT run_id, rank FROM derive_files(['step_trace_raw']))));

CREATE OR REPLACE TEMP TABLE _ms_timeline_step AS
WITH point AS (
    SELECT run_id, rank, fp_start, bp_end FROM step_point
    WHERE (run_id, rank) IN (FROM derive_rank())
    QUALIFY row_number() OVER (PARTITION BY run_id, rank ORDER BY file_id, point_index) = 1
),
dev AS (SELECT run_id, rank, erow, ts_ns, dur_ns, full_name FROM _ms_timeline_op WHERE full_name IS NOT NULL),
first_dev AS (SELECT run_id, rank, min(ts_ns) AS ts_ns FROM dev GROUP BY run_id, rank),
bp AS (
    SELECT d.run_id, d.rank, row_number() OVER (PARTITION BY d.run_id, d.rank ORDER BY d.ts_ns, d.erow) AS step,
           d.ts_ns + d.dur_ns AS bp_ns
    FROM dev AS d JOIN point AS p ON p.run_id = d.run_id AND p.rank = d.rank AND d.full_name = p.bp_end
),
fp AS (
    SELECT d.run_id, d.rank, row_number() OVER (PARTITION BY d.run_id, d.rank ORDER BY d.ts_ns, d.erow) AS step,
           d.ts_ns AS fp_ns
    FROM dev AS d JOIN point AS p ON p.run_id = d.run_id AND p.rank = d.rank AND d.full_name = p.fp_start
),
prev AS (
    SELECT run_id, rank, step, bp_ns, lag(bp_ns) OVER (PARTITION BY run_id, rank ORDER BY step) AS prev_bp_ns FROM bp
)
SELECT p.run_id, p.rank, p.step::INTEGER AS step, f.fp_ns, p.bp_ns,
       coalesce(f.fp_ns, CASE WHEN p.prev_bp_ns IS NULL
                              THEN (SELECT fd.ts_ns FROM first_dev AS fd WHERE fd.run_id = p.run_id AND fd.rank = p.rank)
                              ELSE (SELECT min(d.ts_ns) FROM dev AS d
                                    WHERE d.run_id = p.run_id AND d.rank = p.rank AND d.ts_ns >= p.prev_bp_ns) END)
           AS start_ns
FROM prev AS p LEFT JOIN fp AS f USING (run_id, rank, step);

INSERT INTO kernel BY NAME
WITH k AS (
    SELECT *, regexp_matches(name, '^stream_[0-9]+_')
              OR regexp_matches(lower(coalesce(op_type, '')),
                                '^(hcom_?)?(allreduce|allgather|reducescatter|broadcast|send|receive|alltoall)') AS is_comm
    FROM _ms_timeline_op
),
ids AS (SELECT erow, row_number() OVER (PARTITION BY run_id, rank ORDER BY ts_ns, name, erow) AS n FROM k),
starts AS (SELECT run_id, rank, step, start_ns FROM _ms_timeline_step WHERE start_ns IS NOT NULL),
first_step AS (SELECT run_id, rank, min(step) AS step FROM starts GROUP BY run_id, rank),
w AS (
    SELECT k.erow, s.step
    FROM (SELECT run_id, rank, erow, ts_ns FROM k) AS k
    ASOF JOIN starts AS s ON s.run_id = k.run_id AND s.rank = k.rank AND k.ts_ns >= s.start_ns
)
SELECT k.run_id, k.rank, k.file_id, ids.n AS kernel_id,
       coalesce(w.step, fs.step) AS step,
       k.name, coalesce(k.op_type, k.name) AS op_type,
       CASE WHEN k.is_comm THEN 'COMMUNICATION' END AS accelerator_core, k.tid AS stream_id,
       k.ts_ns, k.dur_ns, k.is_comm AS is_communication, 'mindspore_timeline' AS source
FROM k JOIN ids USING (erow) LEFT JOIN w USING (erow)
LEFT JOIN first_step AS fs ON fs.run_id = k.run_id AND fs.rank = k.rank
ORDER BY k.run_id, k.rank, kernel_id;

INSERT INTO step (run_id, rank, step, fp_ns, bp_ns)
SELECT s.run_id, s.rank, s.step, s.fp_ns, s.bp_ns
FROM _ms_timeline_step AS s
WHERE NOT EXISTS (SELECT 1 FROM step AS t WHERE t.run_id = s.run_id AND t.rank = s.rank AND t.step = s.step);

DROP TABLE _ms_timeline_op;
DROP TABLE _ms_timeline_step;
