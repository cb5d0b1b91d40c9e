-- The [memory] instant events of the rank's Kineto traces → memory rows of kind event,
-- component PyTorch, rebuilt. size_bytes = args Bytes (positive allocation, negative free);
-- allocated/reserved bytes = Total Allocated / Total Reserved (NULL in old traces that lack
-- them); device = CPU or <c10 device type>:<Device Id> (c10::DeviceType names: 1 CUDA, 6 HIP
-- (ROCm), 12 XPU, 13 MPS, 20 PrivateUse1, ...; DeviceType<n> for a number c10 does not define);
-- addr = Addr; name = the innermost cpu_op (old traces: Operator) of the same thread that
-- contains the event (the shortest wins; NULL if none).
-- Owner op: "same thread and op start <= event <= op end". Every thread gets its own band of
-- one number line (thread x span + time since the first event, HUGEINT: no overflow), so the
-- condition becomes two inequalities on one key, which DuckDB runs as an IEJoin instead of a
-- hash join on the thread filtered pair by pair (threads of every rank of the batch share the
-- line: the files differ); the steps go through temporary tables (inside
-- one INSERT the planner picked a piecewise merge join).
-- when-format: kineto
DELETE FROM memory WHERE (run_id, rank) IN (FROM derive_rank()) AND kind = 'event';

CREATE OR REPLACE TEMP TABLE _memory_event AS
WITH mem AS (
    SELECT run_id, rank, file_id, pid, tid, ts_ns,
           json_extract_string(args, ['$."Device Type"', '$."Device Id"', '$.Bytes', '$."Total Allocated"',
                                      '$."Total Reserved"', '$.Addr']) AS a,
           row_number() OVER () AS seq
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank())
      AND file_id IN (SELECT file_id FROM derive_files(['kineto']))
      AND name = '[memory]' AND ph IN ('i', 'I')
),
threads AS (
    SELECT file_id, pid, tid, row_number() OVER (ORDER BY file_id, pid, tid) - 1 AS thread
    FROM (SELECT DISTINCT file_id, pid, tid FROM mem)
),
frame AS (
    SELECT min(ts_ns) AS t0, max(ts_ns + coalesce(dur_ns, 0)) - min(ts_ns) + 1 AS span
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank())
      AND file_id IN (SELECT DISTINCT file_id FROM mem) AND ts_ns IS NOT NULL
)
SELECT m.*, th.thread, f.t0, f.span, th.thread::HUGEINT * f.span + (m.ts_ns - f.t0) AS k
FROM mem AS m
JOIN threads AS th ON th.file_id = m.file_id AND th.pid = m.pid AND th.tid = m.tid
CROSS JOIN frame AS f;

CREATE OR REPLACE TEMP TABLE _memory_op AS
WITH threads AS (SELECT DISTINCT file_id, pid, tid, thread, t0, span FROM _memory_event)
SELECT e.name, e.dur_ns,
       th.thread::HUGEINT * th.span + (e.ts_ns - th.t0) AS k_start,
       th.thread::HUGEINT * th.span + (e.ts_ns + e.dur_ns - th.t0) AS k_end
FROM event AS e
JOIN threads AS th ON th.file_id = e.file_id AND th.pid = e.pid AND th.tid = e.tid
WHERE (e.run_id, e.rank) IN (FROM derive_rank())
  AND e.ph = 'X' AND lower(e.cat) IN ('cpu_op', 'operator') AND e.dur_ns >= 0;

CREATE OR REPLACE TEMP TABLE _memory_owner AS
SELECT m.seq, arg_min(o.name, o.dur_ns) AS op_name
FROM _memory_event AS m
JOIN _memory_op AS o ON o.k_start <= m.k AND m.k <= o.k_end
GROUP BY m.seq;

INSERT INTO memory BY NAME
SELECT m.run_id, m.rank, m.file_id, 'event' AS kind,
       'PyTorch' AS component, w.op_name AS name,
       CASE WHEN TRY_CAST(m.a[1] AS INTEGER) = 0 THEN 'CPU'
            WHEN TRY_CAST(m.a[1] AS INTEGER) IS NULL THEN NULL
            ELSE coalesce(CASE TRY_CAST(m.a[1] AS INTEGER)
                               WHEN 1 THEN 'CUDA' WHEN 2 THEN 'MKLDNN' WHEN 3 THEN 'OPENGL' WHEN 4 THEN 'OPENCL'
                               WHEN 5 THEN 'IDEEP' WHEN 6 THEN 'HIP' WHEN 7 THEN 'FPGA' WHEN 8 THEN 'MAIA'
                               WHEN 9 THEN 'XLA' WHEN 10 THEN 'Vulkan' WHEN 11 THEN 'Metal' WHEN 12 THEN 'XPU'
                               WHEN 13 THEN 'MPS' WHEN 14 THEN 'Meta' WHEN 15 THEN 'HPU' WHEN 16 THEN 'VE'
                               WHEN 17 THEN 'Lazy' WHEN 18 THEN 'IPU' WHEN 19 THEN 'MTIA'
                               WHEN 20 THEN 'PrivateUse1' END,
                          'DeviceType' || TRY_CAST(m.a[1] AS INTEGER)) || ':' || m.a[2] END AS device,
       m.ts_ns, TRY_CAST(m.a[3] AS BIGINT) AS size_bytes, TRY_CAST(m.a[4] AS BIGINT) AS allocated_bytes,
       TRY_CAST(m.a[5] AS BIGINT) AS reserved_bytes, m.a[6] AS addr
FROM _memory_event AS m
LEFT JOIN _memory_owner AS w ON w.seq = m.seq
ORDER BY m.seq;

DROP TABLE _memory_event;
DROP TABLE _memory_op;
DROP TABLE _memory_owner;
