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

_NEXT_ID = "(SELECT coalesce(max(kernel_id), 0) FROM kernel WHERE run_id = ? AND rank = ?)"


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
    con.execute(f"""
        INSERT INTO kernel
        WITH tasks AS (
            SELECT name, ts_ns, dur_ns, tid, thread_name,
                   json_extract_string(args, '$."Task Type"') AS task_type,
                   process_name IN ({procs}) AS is_communication
            FROM event
            WHERE file_id = ? AND ph = 'X' AND ts_ns IS NOT NULL AND dur_ns IS NOT NULL
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
        )
        SELECT ?, ?, ?, {_NEXT_ID} + row_number() OVER (ORDER BY ts_ns, name),
               NULL, name,
               CASE WHEN is_communication THEN regexp_replace(name, '_\\d+_\\d+_\\d+$', '') ELSE name END,
               CASE WHEN is_communication THEN 'COMMUNICATION' ELSE task_type END,
               task_type, ?, CASE WHEN is_communication THEN NULL ELSE tid END,
               ts_ns, dur_ns, NULL, is_communication,
               CASE WHEN is_communication
                    THEN nullif(regexp_extract(thread_name, 'Group (.+?) (Aicpu )?Communication', 1), '') END,
               NULL, NULL, NULL, NULL, 'trace_view'
        FROM tasks
    """, [file_id, run_id, rank, file_id, run_id, rank, device_id])
    after = con.execute("SELECT count(*) FROM kernel WHERE run_id = ? AND rank = ?", [run_id, rank]).fetchone()[0]
    return after - before


def link_kernel_details_to_trace(con: duckdb.DuckDBPyConnection, run_id: int, rank: int) -> None:
    """Join kernel_details.csv rows to their trace_view.json task (same start; same name, or
    MindSpore ≥2.5 ``fwk_op/kernel``): Ascend Hardware Task Type and stream; HCCL op group."""
    con.execute("""
        UPDATE kernel SET task_type = t.task_type, stream_id = coalesce(kernel.stream_id, t.tid)
        FROM (
            SELECT name, ts_ns, any_value(tid) AS tid,
                   any_value(json_extract_string(args, '$."Task Type"')) AS task_type
            FROM event
            WHERE run_id = ? AND rank = ? AND process_name = 'Ascend Hardware' AND ph = 'X'
            GROUP BY name, ts_ns
        ) AS t
        WHERE kernel.run_id = ? AND kernel.rank = ? AND kernel.source = 'kernel_details'
          AND NOT kernel.is_communication
          AND t.ts_ns = kernel.ts_ns
          AND (t.name = kernel.name OR kernel.name LIKE '%/' || t.name)
    """, [run_id, rank, run_id, rank])
    procs = ", ".join(f"'{p}'" for p in HCCL_PROCESSES)
    con.execute(f"""
        UPDATE kernel SET group_name = g.group_name
        FROM (
            SELECT name, any_value(nullif(regexp_extract(thread_name, 'Group (.+?) (Aicpu )?Communication', 1), ''))
                       AS group_name
            FROM event
            WHERE run_id = ? AND rank = ? AND process_name IN ({procs}) AND ph = 'X'
              AND thread_name LIKE '%Communication%'
            GROUP BY name
        ) AS g
        WHERE kernel.run_id = ? AND kernel.rank = ? AND kernel.is_communication AND g.name = kernel.name
    """, [run_id, rank, run_id, rank])


def kineto_kernels(con: duckdb.DuckDBPyConnection, run_id: int, rank: int, file_id: int) -> int:
    """Kineto events of category kernel → ``kernel``, with the step of their launch.

    Step: the ProfilerStep#N host window that holds the cuda/hip runtime event with the same
    ``correlation`` (HTA's rule); kernels without a launch event keep NULL for the window rule.
    Communication: names starting nccl/rccl or containing ncclKernel/ncclDevKernel.
    """
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
                  WHERE file_id = ? AND ph = 'X' AND lower(cat) = 'kernel' AND ts_ns IS NOT NULL)
        ),
        ids AS (
            SELECT erow, row_number() OVER (ORDER BY ts_ns, name, erow) AS n FROM k
        ),
        launch AS (
            SELECT corr, min(ts_ns) AS ts_ns
            FROM (SELECT json_extract_string(args, '$.correlation') AS corr, ts_ns
                  FROM event
                  WHERE file_id = ? AND ph = 'X'
                    AND lower(cat) IN ('cuda_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime',
                                       'privateuse1_driver', 'hip_runtime'))
            WHERE corr IS NOT NULL
            GROUP BY corr
        ),
        launch_step AS (
            SELECT l.corr, min(s.step) AS step
            FROM launch AS l
            JOIN step AS s
              ON s.run_id = ? AND s.rank = ? AND l.ts_ns >= s.host_start_ns AND l.ts_ns < s.host_end_ns
            GROUP BY l.corr
        )
        SELECT ?, ?, ?, {_NEXT_ID} + ids.n,
               ls.step, k.name, k.name,
               CASE WHEN is_comm THEN 'COMMUNICATION' ELSE 'KERNEL' END,
               NULL, coalesce(k.device, TRY_CAST(k.pid AS INTEGER)), coalesce(k.stream, k.tid),
               k.ts_ns, coalesce(k.dur_ns, 0), NULL, is_comm, NULL, NULL, NULL, NULL, NULL, 'kineto'
        FROM (SELECT *, (lower(name) LIKE 'nccl%' OR lower(name) LIKE 'rccl%'
                         OR name LIKE '%ncclKernel%' OR name LIKE '%ncclDevKernel%') AS is_comm FROM k) AS k
        JOIN ids ON ids.erow = k.erow
        LEFT JOIN launch_step AS ls ON ls.corr = k.corr
        ORDER BY ids.n
    """, [file_id, file_id, run_id, rank, run_id, rank, file_id, run_id, rank])
    # kernels whose launch event exists but lies outside every step stay outside (step NULL);
    # only kernels without any launch event fall back to the window rule.
    after = con.execute("SELECT count(*) FROM kernel WHERE run_id = ? AND rank = ?", [run_id, rank]).fetchone()[0]
    return after - before


def attribute_steps_by_window(con: duckdb.DuckDBPyConnection, run_id: int, rank: int, file_id: int,
                              only_unlaunched_kineto: bool = False) -> None:
    """Kernels of ``file_id`` without a step: the step whose [host start, next host start)
    holds the kernel start (the last step is open-ended)."""
    extra = ""
    if only_unlaunched_kineto:
        extra = """AND NOT EXISTS (
            SELECT 1 FROM event AS e WHERE e.file_id = kernel.file_id AND e.ph = 'X'
              AND lower(e.cat) IN ('cuda_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime',
                                   'privateuse1_driver', 'hip_runtime')
            LIMIT 1)"""
    con.execute(f"""
        UPDATE kernel SET step = w.step
        FROM (
            SELECT step, host_start_ns,
                   lead(host_start_ns) OVER (ORDER BY host_start_ns) AS next_start_ns
            FROM step WHERE run_id = ? AND rank = ? AND host_start_ns IS NOT NULL
        ) AS w
        WHERE kernel.run_id = ? AND kernel.rank = ? AND kernel.file_id = ? AND kernel.step IS NULL
          AND kernel.ts_ns >= w.host_start_ns
          AND (w.next_start_ns IS NULL OR kernel.ts_ns < w.next_start_ns)
          {extra}
    """, [run_id, rank, run_id, rank, file_id])


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
