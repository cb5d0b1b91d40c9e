"""The SQL of the Ascend profiler DB reader (:mod:`.ascend_db`), run on the SQLite tables it
has staged as DuckDB temporary tables ``_adb_<table>``.

``READ_SQL`` builds the reader's own temporary tables (the op tree, modules, launchers, steps,
kernels and their counts per op), ``INSERT_SQL`` writes the file's rows into the schema's
tables, ``ANALYSIS_SQL`` reads analysis.db. Statements are separated by a blank line after
their ``;`` and take named parameters (``$run_id``, ...).
"""
from __future__ import annotations

from ..fieldmaps.kernel_pmu import DB_PMU

READ_SQL = """
-- framework ops: PYTORCH_API rows of type op except the ProfilerStep#N ranges (steps, not ops),
-- numbered by start, then longer first; nesting per thread as derive/110_op.sql does for trace
-- events: a sweep over the op boundaries (+1 at a start, -1 at an end; at equal time ends first,
-- then starts longer first, a zero-length op's end right after its start) gives the depth; the
-- parent is the last op of the thread at depth - 1 to start before it
CREATE OR REPLACE TEMP TABLE _adb_op AS
WITH api AS (
    SELECT a.globalTid AS gtid, CAST(a.globalTid % 4294967296 AS VARCHAR) AS tid, a.startNs AS ts_ns,
           a.endNs - a.startNs AS dur_ns, coalesce(s.value, '') AS name, a.connectionId AS conn, a.sequenceNumber,
           a.inputShapes, a.inputDtypes, a.fwdThreadId
    FROM _adb_PYTORCH_API AS a
    LEFT JOIN _adb_STRING_IDS AS s ON s.id = a.name
    WHERE a.type = coalesce((SELECT min(id) FROM _adb_ENUM_API_TYPE WHERE name = $op_type_name), $op_type_code)
      AND a.startNs IS NOT NULL AND a.endNs >= a.startNs AND NOT starts_with(coalesce(s.value, ''), 'ProfilerStep#')
),
numbered AS (
    SELECT *, row_number() OVER (ORDER BY ts_ns, dur_ns DESC, tid, name, conn) AS op_id FROM api
),
sweep AS (
    SELECT op_id, delta, sum(delta) OVER (PARTITION BY gtid ORDER BY t, kind, ord ROWS UNBOUNDED PRECEDING) AS running
    FROM (SELECT gtid, op_id, ts_ns AS t, 1 AS kind, 2 * op_id AS ord, 1 AS delta FROM numbered
          UNION ALL
          SELECT gtid, op_id, ts_ns + dur_ns, CASE WHEN dur_ns > 0 THEN 0 ELSE 1 END,
                 CASE WHEN dur_ns > 0 THEN 0 ELSE 2 * op_id + 1 END, -1
          FROM numbered)
)
SELECT n.*, (d.running - 1)::INTEGER AS depth, d.running - 2 AS parent_depth
FROM numbered AS n JOIN sweep AS d ON d.op_id = n.op_id AND d.delta = 1;

CREATE OR REPLACE TEMP TABLE _adb_op_tree AS
SELECT o.*, p.op_id AS parent_op_id
FROM _adb_op AS o
ASOF LEFT JOIN _adb_op AS p
    ON p.gtid = o.gtid AND p.depth = o.parent_depth AND o.op_id > p.op_id;

-- modules (table module; derive/125 names the backward ones, nests them all and adds their
-- device time): the nn.Module python trace rows, the Optimizer.* ops, and per forward/backward
-- pair of ops (two ops sharing a connection id, msprof-analyze's DB rule) the later op, called
-- at the earlier op's start
CREATE OR REPLACE TEMP TABLE _adb_module AS
WITH fwd AS (
    SELECT a.globalTid AS gtid, a.startNs AS ts_ns, a.endNs - a.startNs AS dur_ns,
           substr(s.value, length('nn.Module: ') + 1) AS name, 'forward' AS kind, NULL::BIGINT AS called_at_ns
    FROM _adb_PYTORCH_API AS a
    JOIN _adb_STRING_IDS AS s ON s.id = a.name
    WHERE a.type = coalesce((SELECT min(id) FROM _adb_ENUM_API_TYPE WHERE name = $trace_type_name), $trace_type_code)
      AND starts_with(s.value, 'nn.Module: ') AND a.startNs IS NOT NULL AND a.endNs >= a.startNs
    UNION ALL
    SELECT gtid, ts_ns, dur_ns, name, 'optimizer', NULL FROM _adb_op WHERE starts_with(lower(name), 'optimizer')
),
pair AS (
    SELECT min(o.ts_ns) AS called_at_ns, arg_max(o.op_id, o.ts_ns) AS end_op
    FROM _adb_op AS o JOIN _adb_CONNECTION_IDS AS c ON c.id = o.conn
    WHERE EXISTS (FROM fwd WHERE kind = 'forward')
    GROUP BY c.connectionId HAVING count(*) = 2
),
rows AS (
    SELECT * FROM fwd WHERE EXISTS (FROM fwd WHERE kind = 'forward')
    UNION ALL
    SELECT o.gtid, o.ts_ns, o.dur_ns, '[ BACKWARD ]', 'backward', p.called_at_ns
    FROM pair AS p JOIN _adb_op AS o ON o.op_id = p.end_op
)
SELECT row_number() OVER (ORDER BY kind = 'backward', ts_ns, dur_ns DESC, name, gtid, called_at_ns) AS module_id, *
FROM rows;

-- connection id → the innermost op that launched it
CREATE OR REPLACE TEMP TABLE _adb_launcher AS
SELECT c.connectionId AS conn, arg_max(o.op_id, (o.depth, o.op_id)) AS op_id
FROM _adb_op_tree AS o
JOIN _adb_CONNECTION_IDS AS c ON c.id = o.conn
GROUP BY c.connectionId;

CREATE OR REPLACE TEMP TABLE _adb_steps AS
SELECT id AS step, startNs AS start_ns, endNs AS end_ns FROM _adb_STEP_TIME WHERE id IS NOT NULL;

-- kernels: compute tasks, then one row per HCCL op
CREATE OR REPLACE TEMP TABLE _adb_kernel AS
WITH compute AS (
    SELECT t.startNs AS ts_ns, t.endNs - t.startNs AS dur_ns, t.deviceId AS device_id,
           CAST(t.streamId AS VARCHAR) AS stream_id, t.connectionId AS conn, false AS is_communication,
           ns.value AS name, ot.value AS op_type, core.value AS accelerator_core, tt.value AS task_type,
           NULL::VARCHAR AS group_name, replace(ish.value, '"', '') AS input_shapes, idt.value AS input_dtypes,
           replace(osh.value, '"', '') AS output_shapes, c.blockDim AS block_dim,
           NULL::VARCHAR AS copy_kind, t.globalTaskId AS gtask, ifm.value AS input_formats,
           odt.value AS output_dtypes, upper(coalesce(hf.value, c.hf32Eligible)) AS hf32
    FROM _adb_TASK AS t
    JOIN _adb_COMPUTE_TASK_INFO AS c ON c.globalTaskId = t.globalTaskId
    LEFT JOIN _adb_STRING_IDS AS ns ON ns.id = c.name
    LEFT JOIN _adb_STRING_IDS AS ot ON ot.id = c.opType
    LEFT JOIN _adb_STRING_IDS AS core ON core.id = c.taskType
    LEFT JOIN _adb_STRING_IDS AS tt ON tt.id = t.taskType
    LEFT JOIN _adb_STRING_IDS AS ish ON ish.id = c.inputShapes
    LEFT JOIN _adb_STRING_IDS AS idt ON idt.id = c.inputDataTypes
    LEFT JOIN _adb_STRING_IDS AS osh ON osh.id = c.outputShapes
    LEFT JOIN _adb_STRING_IDS AS ifm ON ifm.id = c.inputFormats
    LEFT JOIN _adb_STRING_IDS AS odt ON odt.id = c.outputDataTypes
    LEFT JOIN _adb_STRING_IDS AS hf ON hf.id = TRY_CAST(c.hf32Eligible AS BIGINT)
),
comm AS (
    SELECT o.startNs, o.endNs - o.startNs, (SELECT min(deviceId) FROM _adb_TASK), NULL, o.connectionId, true,
           ns.value, ot.value, 'HCCL', NULL, g.value, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM _adb_COMMUNICATION_OP AS o
    LEFT JOIN _adb_STRING_IDS AS ns ON ns.id = o.opName
    LEFT JOIN _adb_STRING_IDS AS ot ON ot.id = o.opType
    LEFT JOIN _adb_STRING_IDS AS g ON g.id = o.groupName
),
copy AS (
    -- copy tasks (TASK type MEMCPY_ASYNC; SDMA_SQE / PCIE_DMA_SQE in other CANN versions), which
    -- COMPUTE_TASK_INFO does not list: kernel rows with copy_kind Unknown (the TASK table gives
    -- no direction nor size), as derive/031 for trace_view.json
    SELECT t.startNs, t.endNs - t.startNs, t.deviceId, CAST(t.streamId AS VARCHAR), t.connectionId, false,
           tt.value, tt.value, tt.value, tt.value, NULL, NULL, NULL, NULL, NULL, 'Unknown', NULL, NULL, NULL, NULL
    FROM _adb_TASK AS t
    JOIN _adb_STRING_IDS AS tt ON tt.id = t.taskType
    WHERE tt.value IN ('MEMCPY_ASYNC', 'SDMA_SQE', 'PCIE_DMA_SQE') AND t.startNs IS NOT NULL AND t.endNs IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM _adb_COMPUTE_TASK_INFO AS c WHERE c.globalTaskId = t.globalTaskId)
      -- HCCL's own copies (the Memcpy tasks of a communication op, listed in
      -- COMMUNICATION_TASK_INFO; the 2024 schema types them MEMCPY_ASYNC) are part of the op
      -- (link rows), never also copies: their time would count twice
      AND NOT EXISTS (SELECT 1 FROM _adb_COMMUNICATION_TASK_INFO AS ci WHERE ci.globalTaskId = t.globalTaskId)
),
k AS (
    SELECT * FROM compute WHERE ts_ns IS NOT NULL AND dur_ns IS NOT NULL
    UNION ALL
    SELECT * FROM comm
    UNION ALL
    SELECT * FROM copy
),
launch AS (
    SELECT a.connectionId AS conn, s.value AS launch_name, CAST(a.globalTid % 4294967296 AS VARCHAR) AS launch_tid,
           a.startNs AS launch_ts_ns, a.endNs - a.startNs AS launch_dur_ns
    FROM _adb_CANN_API AS a
    LEFT JOIN _adb_STRING_IDS AS s ON s.id = a.name
),
joined AS (
    SELECT k.*, l.launch_name, l.launch_tid, l.launch_ts_ns, l.launch_dur_ns, w.op_id
    FROM k
    LEFT JOIN launch AS l ON l.conn = k.conn
    LEFT JOIN _adb_launcher AS w ON w.conn = k.conn
)
SELECT row_number() OVER (ORDER BY j.ts_ns, j.name, j.stream_id, j.dur_ns) AS kernel_id, j.*,
       -- the step whose host window holds the launch, else the last step started at or before the
       -- kernel (ASOF joins: one sorted merge, not a step lookup per kernel)
       coalesce(CASE WHEN j.launch_ts_ns <= hl.end_ns THEN hl.step END, wk.step) AS step
FROM joined AS j
ASOF LEFT JOIN _adb_steps AS hl ON j.launch_ts_ns >= hl.start_ns
ASOF LEFT JOIN _adb_steps AS wk ON j.ts_ns >= wk.start_ns;

-- kernel counts and device time per op: its own kernels, and those of its subtree (the ops
-- after it on its thread that start before it ends)
CREATE OR REPLACE TEMP TABLE _adb_op_counts AS
WITH own AS (
    SELECT op_id, count(*) AS n, sum(dur_ns) AS ns FROM _adb_kernel
    WHERE op_id IS NOT NULL AND copy_kind IS NULL   -- kernels, not copies (msprof-analyze's DB path: COMPUTE_TASK_INFO)
    GROUP BY op_id
),
cum AS (
    SELECT o.op_id, o.gtid AS tid, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns, coalesce(w.n, 0) AS n,
           coalesce(w.ns, 0) AS ns,
           sum(coalesce(w.n, 0)) OVER (PARTITION BY o.gtid ORDER BY o.op_id) AS cn,
           sum(coalesce(w.ns, 0)) OVER (PARTITION BY o.gtid ORDER BY o.op_id) AS cns
    FROM _adb_op AS o LEFT JOIN own AS w ON w.op_id = o.op_id
),
per_ts AS (SELECT tid, ts_ns, max(cn) AS cn, max(cns) AS cns FROM cum GROUP BY tid, ts_ns)
SELECT c.op_id, c.n AS kernel_count, c.ns AS device_self_ns,
       greatest(coalesce(p.cn, 0), c.cn) - (c.cn - c.n) AS kernel_total_count,
       greatest(coalesce(p.cns, 0), c.cns) - (c.cns - c.ns) AS device_total_ns
FROM cum AS c
ASOF LEFT JOIN per_ts AS p ON p.tid = c.tid AND c.end_ns > p.ts_ns;
"""


def _pmu_column(name: str, column: str, kind: str) -> str:
    """One kernel_pmu_raw column from the TASK_PMU_INFO rows named ``name`` (times and counts
    rounded to integers)."""
    value = f"max(value) FILTER (WHERE pmu_name = '{name}')"
    if kind == "ns" or kind == "int":
        value = f"TRY_CAST(round({value}) AS BIGINT)"
    return f"{value} AS {column}"


# one column per TASK_PMU_INFO name tracedb keeps (fieldmaps/kernel_pmu.py DB_PMU)
PMU_COLUMNS = ",\n           ".join(_pmu_column(n, c, k) for n, (c, k) in DB_PMU.items())


_INSERT_TEMPLATE = """
INSERT INTO op BY NAME
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, o.op_id, o.tid, o.ts_ns, o.dur_ns, o.name,
       o.parent_op_id, o.depth,
       -- the DBs of the corpus (torch_npu 2024-09 and 2025-01) hold the types in inputShapes and
       -- the shapes in inputDtypes: each is taken from the column whose text looks like it
       CASE WHEN regexp_matches(ish.value, '[A-Za-z]') AND NOT regexp_matches(coalesce(idt.value, ''), '[A-Za-z]')
            THEN idt.value ELSE ish.value END AS input_dims,
       CASE WHEN regexp_matches(ish.value, '[A-Za-z]') AND NOT regexp_matches(coalesce(idt.value, ''), '[A-Za-z]')
            THEN ish.value ELSE idt.value END AS input_types,
       o.sequenceNumber AS sequence_number,
       -- the autograd thread: the one whose ops carry a forward thread id (trace_view.json: the
       -- tid at the end of the fwdbwd flows); NULL when no op carries one
       CASE WHEN b.tids IS NOT NULL THEN list_contains(b.tids, o.tid) END AS is_backward,
       NULL::VARCHAR AS module_path,   -- derive/125 (the module tree)
       CASE WHEN o.ts_ns < s.end_ns THEN s.step END AS step,
       c.kernel_count, c.kernel_total_count, c.device_self_ns, c.device_total_ns,
       'ascend_db' AS source
FROM _adb_op_tree AS o
CROSS JOIN (SELECT list(DISTINCT tid) AS tids FROM _adb_op_tree WHERE fwdThreadId > 0) AS b
LEFT JOIN _adb_op_counts AS c ON c.op_id = o.op_id
ASOF LEFT JOIN _adb_steps AS s ON o.ts_ns >= s.start_ns
LEFT JOIN _adb_STRING_IDS AS ish ON ish.id = o.inputShapes
LEFT JOIN _adb_STRING_IDS AS idt ON idt.id = o.inputDtypes
ORDER BY o.op_id;

INSERT INTO module BY NAME
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, module_id, kind, name,
       CAST(gtid % 4294967296 AS VARCHAR) AS tid, ts_ns, dur_ns, called_at_ns, 'ascend_db' AS source
FROM _adb_module
ORDER BY module_id;

INSERT INTO kernel BY NAME
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, kernel_id, step, name, op_type, accelerator_core,
       task_type, device_id, stream_id, ts_ns, dur_ns, NULL::BIGINT AS wait_ns, is_communication, group_name,
       input_shapes, input_dtypes, output_shapes, block_dim, op_id, launch_name, launch_tid, launch_ts_ns,
       launch_dur_ns, copy_kind, 'ascend_db' AS source
FROM _adb_kernel
ORDER BY kernel_id;

-- HF32 Eligible, formats and the PMU counters of the compute kernels (kernel_pmu_raw): TASK_PMU_INFO
-- rows by name (fieldmaps/kernel_pmu.py DB_PMU, passed as $pmu_names / $pmu_cols / $pmu_kinds)
INSERT INTO kernel_pmu_raw BY NAME
WITH pmu AS (
    SELECT p.globalTaskId AS gtask, s.value AS pmu_name, p.value
    FROM _adb_TASK_PMU_INFO AS p
    JOIN _adb_STRING_IDS AS s ON s.id = p.name
    WHERE list_contains($pmu_names, s.value)
),
wide AS (
    SELECT gtask,
           {pmu_columns}
    FROM pmu
    GROUP BY gtask
)
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, k.kernel_id,
       CASE k.hf32 WHEN $hf32_yes THEN true WHEN $hf32_no THEN false END AS hf32_eligible,
       k.input_formats, k.output_dtypes, w.* EXCLUDE (gtask), 'ascend_db' AS source
FROM _adb_kernel AS k
LEFT JOIN wide AS w ON w.gtask = k.gtask
WHERE k.gtask IS NOT NULL
  AND (k.hf32 IS NOT NULL OR k.input_formats IS NOT NULL OR k.output_dtypes IS NOT NULL OR w.gtask IS NOT NULL)
ORDER BY k.kernel_id;

INSERT INTO link BY NAME
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, k.step, g.value AS group_name, ons.value AS op_name,
       ti.planeId AS plane_id, replace(tn.value, ' ', '_') AS task_name, ti.srcRank AS src_rank,
       ti.dstRank AS dst_rank, nullif(nullif(tr.name, 'INVALID_TYPE'), 'N/A') AS transport_type,
       nullif(nullif(lt.name, 'INVALID_TYPE'), 'N/A') AS link_type, t.startNs AS ts_ns, t.endNs - t.startNs AS dur_ns,
       ti.size AS size_bytes,
       CASE WHEN t.endNs > t.startNs THEN round(ti.size / (t.endNs - t.startNs), 4) END AS bandwidth_gbps,
       ti.notifyId AS notify_id, o.startNs AS op_ts_ns,
       nullif(nullif(rd.name, 'INVALID_TYPE'), 'N/A') AS rdma_type
FROM _adb_COMMUNICATION_TASK_INFO AS ti
JOIN _adb_TASK AS t ON t.globalTaskId = ti.globalTaskId
LEFT JOIN _adb_COMMUNICATION_OP AS o ON o.opId = ti.opId
LEFT JOIN _adb_STRING_IDS AS ons ON ons.id = coalesce(o.opName, ti.name)
LEFT JOIN _adb_STRING_IDS AS g ON g.id = coalesce(o.groupName, ti.groupName)
LEFT JOIN _adb_STRING_IDS AS tn ON tn.id = ti.taskType
LEFT JOIN _adb_ENUM_HCCL_TRANSPORT_TYPE AS tr ON tr.id = ti.transportType
LEFT JOIN _adb_ENUM_HCCL_LINK_TYPE AS lt ON lt.id = ti.linkType
LEFT JOIN _adb_ENUM_HCCL_RDMA_TYPE AS rd ON rd.id = ti.rdmaType
LEFT JOIN _adb_kernel AS k ON k.is_communication AND k.ts_ns = o.startNs AND k.conn IS NOT DISTINCT FROM o.connectionId
ORDER BY t.startNs, ti.planeId;

INSERT INTO memory BY NAME
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, 'record' AS kind, c.value AS component,
       'NPU:' || m.deviceId AS device, m.timestamp AS ts_ns, m.totalAllocated AS allocated_bytes,
       m.totalReserved AS reserved_bytes, m.totalActive AS active_bytes, m.streamPtr AS stream_ptr
FROM _adb_MEMORY_RECORD AS m LEFT JOIN _adb_STRING_IDS AS c ON c.id = m.component;

INSERT INTO memory BY NAME
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, 'operator' AS kind,
       CASE WHEN n.value LIKE 'cann::%' THEN 'GE' ELSE 'PTA' END AS component, n.value AS name,
       'NPU:' || m.deviceId AS device, m.allocationTime AS ts_ns, m.releaseTime AS release_ts_ns,
       coalesce(m.duration, m.releaseTime - m.allocationTime) AS dur_ns, m.size AS size_bytes,
       m.allocationTotalAllocated AS allocated_bytes, m.allocationTotalReserved AS reserved_bytes,
       m.allocationTotalActive AS active_bytes, m.streamPtr AS stream_ptr,
       m.activeReleaseTime AS active_release_ts_ns, m.activeDuration AS active_dur_ns,
       m.releaseTotalAllocated AS release_allocated_bytes, m.releaseTotalReserved AS release_reserved_bytes,
       m.releaseTotalActive AS release_active_bytes
FROM _adb_OP_MEMORY AS m LEFT JOIN _adb_STRING_IDS AS n ON n.id = m.name;

INSERT INTO memory BY NAME
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, 'module' AS kind, e.name AS component,
       'NPU:' || m.deviceId AS device, m.timestampNs AS ts_ns, m.totalReserved AS reserved_bytes
FROM _adb_NPU_MODULE_MEM AS m LEFT JOIN _adb_ENUM_MODULE AS e ON e.id = m.moduleId;

INSERT INTO ascend_db_step
SELECT $run_id, $rank, $file_id, step, start_ns, end_ns FROM _adb_steps ORDER BY step;

-- mstx ranges (push/pop, start/end) and marks → event rows of cat mstx on the thread that
-- started them (globalTid = pid << 32 | tid, as PYTORCH_API's)
INSERT INTO event (run_id, rank, file_id, ph, name, cat, pid, tid, ts_ns, dur_ns)
SELECT $run_id, $rank, $file_id, CASE WHEN r.is_range THEN 'X' ELSE 'i' END, s.value, 'mstx',
       CAST(m.globalTid // 4294967296 AS VARCHAR), CAST(m.globalTid % 4294967296 AS VARCHAR), m.startNs,
       CASE WHEN r.is_range THEN greatest(m.endNs - m.startNs, 0) END
FROM _adb_MSTX_EVENTS AS m
LEFT JOIN _adb_STRING_IDS AS s ON s.id = m.message
CROSS JOIN LATERAL (
    SELECT coalesce((SELECT lower(name) IN ($mstx_range_a, $mstx_range_b) FROM _adb_ENUM_MSTX_EVENT_TYPE
                     WHERE id = m.eventType), m.eventType IN ($mstx_code_a, $mstx_code_b))
           AND m.endNs IS NOT NULL AND m.endNs >= m.startNs AS is_range
) AS r
WHERE m.startNs IS NOT NULL
ORDER BY m.startNs;

INSERT INTO profiler_db_meta
SELECT $run_id, $rank, $file_id, name, value FROM _adb_META_DATA WHERE name IS NOT NULL
UNION ALL SELECT $run_id, $rank, $file_id, 'npu_name', name FROM _adb_NPU_INFO
UNION ALL SELECT $run_id, $rank, $file_id, 'rank_id', CAST(rankId AS VARCHAR) FROM _adb_RANK_DEVICE_MAP
UNION ALL SELECT $run_id, $rank, $file_id, 'device_id', CAST(deviceId AS VARCHAR) FROM _adb_RANK_DEVICE_MAP
UNION ALL SELECT $run_id, $rank, $file_id, 'host_name', hostName FROM _adb_HOST_INFO;
"""
INSERT_SQL = _INSERT_TEMPLATE.replace("{pmu_columns}", PMU_COLUMNS)

ANALYSIS_SQL = """
CREATE OR REPLACE TEMP MACRO _adb_ns(x, factor) AS CAST(round(x * factor) AS BIGINT);
CREATE OR REPLACE TEMP MACRO _adb_step(s) AS TRY_CAST(regexp_extract(s, '(\\d+)$', 1) AS INTEGER);

INSERT INTO profiler_step_trace
SELECT $run_id, $rank, $file_id, deviceId, _adb_step(step), _adb_ns(computing, 1000),
       _adb_ns(communication_not_overlapped, 1000), _adb_ns(overlapped, 1000), _adb_ns(communication, 1000),
       _adb_ns(free, 1000), _adb_ns(stage, 1000), _adb_ns(bubble, 1000),
       _adb_ns(communication_not_overlapped_and_exclude_receive, 1000), _adb_ns(preparing, 1000)
FROM _adb_StepTraceTime;

INSERT INTO profiler_comm_op BY NAME
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, _adb_step(step) AS step, type AS comm_kind,
       hccl_op_name || '@' || group_name AS op_key, hccl_op_name AS op_name, group_name,
       hccl_op_name LIKE 'Total%' AS is_total, _adb_ns(start_timestamp, 1000) AS start_ns,
       _adb_ns(elapse_time, 1000000) AS elapse_ns, _adb_ns(transit_time, 1000000) AS transit_ns,
       _adb_ns(wait_time, 1000000) AS wait_ns, _adb_ns(synchronization_time, 1000000) AS synchronization_ns,
       _adb_ns(idle_time, 1000000) AS idle_ns,
       CASE WHEN wait_time + transit_time > 0 THEN round(wait_time / (wait_time + transit_time), 4) ELSE 0 END
           AS wait_ratio,
       CASE WHEN synchronization_time + transit_time > 0
            THEN round(synchronization_time / (synchronization_time + transit_time), 4) ELSE 0 END
           AS synchronization_ratio
FROM _adb_CommAnalyzerTime;

-- one row per (op, transport): the packet-size rows of a transport repeat its totals
INSERT INTO profiler_comm_bandwidth BY NAME
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, _adb_step(step) AS step, type AS comm_kind,
       hccl_op_name || '@' || group_name AS op_key, hccl_op_name AS op_name, group_name,
       hccl_op_name LIKE 'Total%' AS is_total, transport_type,
       _adb_ns(any_value(transit_size), 1000000) AS transit_size_bytes,
       _adb_ns(any_value(transit_time), 1000000) AS transit_ns, CAST(any_value(bandwidth) AS DOUBLE) AS bandwidth_gbps,
       CAST(any_value(large_packet_ratio) AS DOUBLE) AS large_packet_ratio,
       CAST(sum(count) AS BIGINT) AS packet_count
FROM _adb_CommAnalyzerBandwidth
GROUP BY ALL;

INSERT INTO profiler_comm_matrix BY NAME
SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id, _adb_step(step) AS step, type AS comm_kind,
       hccl_op_name || '@' || group_name AS op_key, hccl_op_name AS op_name, group_name,
       src_rank || '-' || dst_rank AS link_key, TRY_CAST(src_rank AS BIGINT) AS src_rank,
       TRY_CAST(dst_rank AS BIGINT) AS dst_rank, transport_type,
       _adb_ns(transit_size, 1000000) AS transit_size_bytes, _adb_ns(transit_time, 1000000) AS transit_ns,
       CAST(bandwidth AS DOUBLE) AS bandwidth_gbps, op_name AS link_op_name
FROM _adb_CommAnalyzerMatrix;
"""
