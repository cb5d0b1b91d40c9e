"""Device kernels: from trace_view.json tasks (when there is no kernel_details.csv), from Kineto
kernel events, their step attribution and the steps' device windows. All in SQL.
"""
from __future__ import annotations

import duckdb

# Ascend Hardware "Task Type" values that are not computing: stream events, DMA copies and the
# HCCL tasks CANN also draws on the hardware streams. Everything else (AI_CORE, AI_VECTOR_CORE,
# AI_CPU, MIX_AIC/AIV, FFTS_PLUS, and "Other" in older CANN, whose Overlap Analysis counts it as
# Computing, and DSA_SQE, which kernel_details.csv lists as a kernel) is a computing task.
NON_COMPUTE_TASK_TYPES = ("EVENT_WAIT_SQE", "EVENT_RECORD_SQE", "NOTIFY_WAIT_SQE", "NOTIFY_RECORD_SQE",
                          "SDMA_SQE", "PCIE_DMA_SQE", "PLACE_HOLDER_SQE", "C_CORE_SQE", "WRITE_VALUE_SQE",
                          "CAPTURE_RECORD_SQE", "CAPTURE_WAIT_SQE", "SDMA", "Notify Wait", "Notify_Wait", "Notify Record", "Notify_Record",
                          "Write Value", "Write_Value", "Memcpy", "Reduce Inline", "Reduce_Inline",
                          "RDMASend", "RDMA_SEND", "MEMCPY_ASYNC", "EVENT_WAIT", "EVENT_RECORD",
                          "PROFILING_ENABLE", "PROFILING_DISABLE", "PLACE_HOLDER", "C_CORE")
HCCL_PROCESSES = ("HCCL", "Communication")
# Kineto categories of host runtime/driver calls that launch kernels (matched on lower(cat))
_RUNTIME_CATS = ("('cuda_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime', 'privateuse1_driver', "
                 "'hip_runtime')")

_NEXT_ID = "(SELECT coalesce(max(kernel_id), 0) FROM kernel WHERE run_id = $run_id AND rank = $rank)"

# Start of each host step of ($run_id, $rank); a kernel without a step of its own belongs to the
# last step that started at or before it (ASOF join on ts_ns >= host_start_ns; the last step is
# open-ended).
STEP_STARTS = ("SELECT step, host_start_ns FROM step "
               "WHERE run_id = $run_id AND rank = $rank AND host_start_ns IS NOT NULL")

# A kernel_details.csv row ``{k}`` and its trace_view.json task ``t``: same start; same name, or
# MindSpore >= 2.5's ``fwk_op/kernel`` name.
TASK_MATCH = "t.ts_ns = {k}.ts_ns AND (t.name = {k}.name OR {k}.name LIKE '%/' || t.name)"


def trace_task_ctes() -> str:
    """SQL: two CTEs over the trace_view.json events of ($run_id, $rank): ``task`` (name,
    ts_ns, tid, task_type) — the Ascend Hardware tasks with their Task Type; ``hccl_group``
    (name, group_name) — the communication group of each HCCL op (from the ``Group <g>
    Communication`` thread it was drawn on). Empty when the rank has no trace."""
    procs = ", ".join(f"'{p}'" for p in HCCL_PROCESSES)
    return f"""task AS (
            SELECT name, ts_ns, any_value(tid) AS tid,
                   any_value(json_extract_string(args, '$."Task Type"')) AS task_type
            FROM event
            WHERE run_id = $run_id AND rank = $rank AND process_name = 'Ascend Hardware' AND ph = 'X'
            GROUP BY name, ts_ns
        ),
        hccl_group AS (
            SELECT name, any_value(nullif(regexp_extract(thread_name, 'Group (.+?) (Aicpu )?Communication', 1), ''))
                       AS group_name
            FROM event
            WHERE run_id = $run_id AND rank = $rank AND process_name IN ({procs}) AND ph = 'X'
              AND thread_name LIKE '%Communication%'
            GROUP BY name
        )"""


def npu_kernels_from_trace(con: duckdb.DuckDBPyConnection, run_id: int, rank: int, file_id: int,
                           device_id: int | None) -> int:
    """Ascend Hardware compute tasks and HCCL op slices of one trace_view.json → ``kernel``.

    Used only when the rank has no kernel_details.csv. Compute = any Task Type but
    NON_COMPUTE_TASK_TYPES, excluding names ending in AicpuKernel/AivKernel
    (communication kernels on compute engines, excluded by CANN's Overlap Analysis too), and
    excluding tasks named after a task type (older CANN labels every task "Other" and names the
    non-kernel ones NOTIFY_WAIT, MEMCPY_ASYNC, Other ...; kernels have op names). Communication = op-level
    slices on "Group <g> Communication" threads of the HCCL/Communication process.
    """
    types = ", ".join(f"'{t}'" for t in NON_COMPUTE_TASK_TYPES)
    procs = ", ".join(f"'{p}'" for p in HCCL_PROCESSES)
    before = con.execute("SELECT count(*) FROM kernel WHERE run_id = ? AND rank = ?", [run_id, rank]).fetchone()[0]
    # the step is set here (the window rule) rather than by an UPDATE of the new rows: an
    # UPDATE sends every updated row through the WAL at COMMIT
    con.execute(f"""
        INSERT INTO kernel
        WITH tasks AS (
            SELECT name, ts_ns, dur_ns, tid, thread_name,
                   json_extract_string(args, '$."Task Type"') AS task_type,
                   process_name IN ({procs}) AS is_communication
            FROM event
            WHERE file_id = $file_id AND ph = 'X' AND ts_ns IS NOT NULL AND dur_ns IS NOT NULL
              AND (
                (process_name = 'Ascend Hardware'
                 AND coalesce(json_extract_string(args, '$."Task Type"'), '') NOT IN ({types})
                 AND name NOT LIKE '%AicpuKernel' AND name NOT LIKE '%AivKernel'
                 -- older CANN names non-kernel tasks after their type (Other, NOTIFY_WAIT,
                 -- MEMCPY_ASYNC, REDUCE_ASYNC_V2, MemcopyAsync) and labels them all Task Type Other
                 AND lower(name) <> lower(coalesce(json_extract_string(args, '$."Task Type"'), ''))
                 AND NOT regexp_full_match(name, '[A-Z0-9_]+')
                 AND lower(name) NOT IN ('memcopyasync', 'other'))
                OR (process_name IN ({procs}) AND thread_name LIKE '%Communication%')
              )
        ),
        step_start AS ({STEP_STARTS})
        SELECT $run_id, $rank, $file_id, {_NEXT_ID} + row_number() OVER (ORDER BY ts_ns, name) AS kernel_id,
               w.step, name,
               CASE WHEN is_communication THEN regexp_replace(name, '_\\d+_\\d+_\\d+$', '') ELSE name END,
               CASE WHEN is_communication THEN 'COMMUNICATION' ELSE task_type END,
               task_type, $device_id, CASE WHEN is_communication THEN NULL ELSE tid END,
               ts_ns, dur_ns, NULL, is_communication,
               CASE WHEN is_communication
                    THEN nullif(regexp_extract(thread_name, 'Group (.+?) (Aicpu )?Communication', 1), '') END,
               NULL, NULL, NULL, NULL, 'trace_view'
        FROM tasks
        ASOF LEFT JOIN step_start AS w ON tasks.ts_ns >= w.host_start_ns
        ORDER BY kernel_id
    """, {"run_id": run_id, "rank": rank, "file_id": file_id, "device_id": device_id})
    after = con.execute("SELECT count(*) FROM kernel WHERE run_id = ? AND rank = ?", [run_id, rank]).fetchone()[0]
    return after - before


def link_kernel_details_to_trace(con: duckdb.DuckDBPyConnection, run_id: int, rank: int) -> None:
    """kernel_details.csv rows ingested before their rank's trace_view.json: Task Type and
    stream from the matching trace task (:data:`TASK_MATCH`), HCCL op group (a kernel_details
    file ingested after the trace gets them in its INSERT)."""
    ids = {"run_id": run_id, "rank": rank}
    con.execute(f"""
        UPDATE kernel SET task_type = t.task_type, stream_id = coalesce(kernel.stream_id, t.tid)
        FROM (WITH {trace_task_ctes()} SELECT * FROM task) AS t
        WHERE kernel.run_id = $run_id AND kernel.rank = $rank AND kernel.source = 'kernel_details'
          AND NOT kernel.is_communication AND {TASK_MATCH.format(k='kernel')}
    """, ids)
    con.execute(f"""
        UPDATE kernel SET group_name = g.group_name
        FROM (WITH {trace_task_ctes()} SELECT * FROM hccl_group) AS g
        WHERE kernel.run_id = $run_id AND kernel.rank = $rank AND kernel.is_communication AND g.name = kernel.name
    """, ids)


def kineto_kernels(con: duckdb.DuckDBPyConnection, run_id: int, rank: int, file_id: int) -> int:
    """Kineto events of category kernel → ``kernel``, with the step of their launch.

    Step: the ProfilerStep#N host window that holds the cuda/hip runtime event with the same
    ``correlation`` (HTA's rule; a launch outside every step leaves the kernel outside, NULL).
    A trace with no runtime events at all falls back to the window rule (:data:`STEP_STARTS`).
    Communication: names starting nccl/rccl or containing ncclKernel/ncclDevKernel.
    """
    launched = con.execute(f"SELECT count(*) FROM (SELECT 1 FROM event WHERE file_id = ? AND ph = 'X' "
                           f"AND lower(cat) IN {_RUNTIME_CATS} LIMIT 1)", [file_id]).fetchone()[0] > 0
    before = con.execute("SELECT count(*) FROM kernel WHERE run_id = ? AND rank = ?", [run_id, rank]).fetchone()[0]
    # kernel_id is numbered by a window over (ts, name, event rowid) only, joined back: the window
    # over the full kernel rows ran the whole INSERT on one thread (measured on 564 k kernels:
    # 3.9 -> 2.6 s). args is parsed once for its three fields (0.50 -> 0.22 s). The rows are
    # written in kernel_id order: the parallel insert left a partial row group per thread, which
    # the next CHECKPOINT merged by rewriting most of the table (0.6-1.2 s, against 0.1-0.3 s
    # for the sort).
    con.execute(f"""
        INSERT INTO kernel
        WITH k AS (
            SELECT erow, name, ts_ns, dur_ns, pid, tid, a[1] AS corr, TRY_CAST(a[2] AS INTEGER) AS device,
                   a[3] AS stream
            FROM (SELECT rowid AS erow, name, ts_ns, dur_ns, pid, tid,
                         json_extract_string(args, ['$.correlation', '$.device', '$.stream']) AS a
                  FROM event
                  WHERE file_id = $file_id AND ph = 'X' AND lower(cat) = 'kernel' AND ts_ns IS NOT NULL)
        ),
        ids AS (
            SELECT erow, row_number() OVER (ORDER BY ts_ns, name, erow) AS n FROM k
        ),
        launch AS (
            SELECT corr, min(ts_ns) AS ts_ns
            FROM (SELECT json_extract_string(args, '$.correlation') AS corr, ts_ns
                  FROM event
                  WHERE file_id = $file_id AND ph = 'X' AND lower(cat) IN {_RUNTIME_CATS})
            WHERE corr IS NOT NULL
            GROUP BY corr
        ),
        launch_step AS (
            SELECT l.corr, min(s.step) AS step
            FROM launch AS l
            JOIN step AS s
              ON s.run_id = $run_id AND s.rank = $rank AND l.ts_ns >= s.host_start_ns AND l.ts_ns < s.host_end_ns
            GROUP BY l.corr
        ),
        step_start AS ({STEP_STARTS})
        SELECT $run_id, $rank, $file_id, {_NEXT_ID} + ids.n,
               {'ls.step' if launched else 'w.step'}, k.name, k.name,
               CASE WHEN is_comm THEN 'COMMUNICATION' ELSE 'KERNEL' END,
               NULL, coalesce(k.device, TRY_CAST(k.pid AS INTEGER)), coalesce(k.stream, k.tid),
               k.ts_ns, coalesce(k.dur_ns, 0), NULL, is_comm, NULL, NULL, NULL, NULL, NULL, 'kineto'
        FROM (SELECT *, (lower(name) LIKE 'nccl%' OR lower(name) LIKE 'rccl%'
                         OR name LIKE '%ncclKernel%' OR name LIKE '%ncclDevKernel%') AS is_comm FROM k) AS k
        JOIN ids ON ids.erow = k.erow
        LEFT JOIN launch_step AS ls ON ls.corr = k.corr
        {'' if launched else 'ASOF LEFT JOIN step_start AS w ON k.ts_ns >= w.host_start_ns'}
        ORDER BY ids.n
    """, {"run_id": run_id, "rank": rank, "file_id": file_id})
    after = con.execute("SELECT count(*) FROM kernel WHERE run_id = ? AND rank = ?", [run_id, rank]).fetchone()[0]
    return after - before


def refresh_step_windows(con: duckdb.DuckDBPyConnection, run_id: int, rank: int) -> None:
    """Add step rows for kernel steps without a ProfilerStep slice, then set every step's
    device window (first kernel start, last kernel end)."""
    con.execute("""
        INSERT INTO step (run_id, rank, step)
        SELECT DISTINCT k.run_id, k.rank, k.step FROM kernel AS k
        WHERE k.run_id = ? AND k.rank = ? AND k.step IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM step AS s WHERE s.run_id = k.run_id AND s.rank = k.rank AND s.step = k.step)
    """, [run_id, rank])
    con.execute("""
        UPDATE step SET device_start_ns = w.start_ns, device_end_ns = w.end_ns
        FROM (
            SELECT step, min(ts_ns) AS start_ns, max(ts_ns + dur_ns) AS end_ns
            FROM kernel WHERE run_id = ? AND rank = ? AND step IS NOT NULL GROUP BY step
        ) AS w
        WHERE step.run_id = ? AND step.rank = ? AND step.step = w.step
    """, [run_id, rank, run_id, rank])
