"""MindSpore / CANN HCCL ``hccl_info[_{rank}]/<op>/iter{i}.trace`` → ``link`` tasks of one op
execution (formats.md §6.5). ``ts`` counts the device counter in µs (the step_trace_raw clock);
the step is the file's iteration here, and the derive step replaces it by the step_trace_raw
step whose window holds the op when the rank has that file.
"""
from __future__ import annotations


from ...engine import duckdb

from ...errors import InputError
from ...timeconv import json_us_to_ns
from ..sources.errors import translate_read_error
from ..sources.paths import literal_path



def read(con: duckdb.DuckDBPyConnection, f) -> int:
    """One HCCL ``iter{i}.trace`` file → link tasks of one op execution; returns rows.

    ``size``: macro ``hccl_size_bytes`` (derive/_session.sql); ``bandwidth``
    "NULL" → NULL; ``Notify Wait`` → ``Notify_Wait``; plane = tid. op_name = the op folder
    (``allReduce_1_1``); op_ts_ns = the first task start; step = the file's iteration (the
    derive step puts the op into its step_trace_raw window when the rank has one).

    Raises:
        InputError: not JSON, or no traceEvents array (the file is named).
    """
    size = "hccl_size_bytes(CAST(json_extract(e, '$.args.size') AS VARCHAR))"
    with literal_path(f.path) as src:
        try:
            # one document (a second one after it would double every task), its traceEvents an
            # array of objects: the first element that is not one, 1-based (0: none)
            docs = con.execute("""
                SELECT json_type(json, '$.traceEvents'),
                       coalesce(list_position(list_transform(json_extract(json, '$.traceEvents[*]'),
                                                             lambda e: json_type(e) = 'OBJECT'), false), 0)
                FROM read_json_objects(?, format = 'unstructured')""", [src]).fetchall()
            if not docs or docs[0][0] != "ARRAY":
                raise InputError("no traceEvents array.", file=str(f.path), place="byte 0",
                                 hint="expected an HCCL .trace file: {\"device id\", \"iteration\", "
                                      "\"traceEvents\": [...]}.")
            if len(docs) > 1:
                raise InputError(f"the file holds {len(docs)} JSON documents; an HCCL .trace file holds one.",
                                 file=str(f.path), place="JSON document 2",
                                 hint="the file was written twice or concatenated; re-export it.")
            if docs[0][1]:
                raise InputError("an element of traceEvents is not a JSON object (each task must be one).",
                                 file=str(f.path), place=f"traceEvents[{docs[0][1] - 1}]",
                                 hint="the file was edited or corrupted; re-export it.")
            return con.execute(f"""
                INSERT INTO link BY NAME
                WITH f AS (
                    SELECT json->>'$.iteration' AS iteration, unnest(json_extract(json, '$.traceEvents[*]')) AS e
                    FROM read_json_objects($path, format = 'unstructured')
                ),
                t AS (
                    SELECT iteration, e, {json_us_to_ns("e->>'$.ts'")} AS ts_ns,
                           {json_us_to_ns("e->>'$.dur'")} AS dur_ns
                    FROM f
                ),
                first AS (SELECT min(ts_ns) AS op_ts_ns, any_value(iteration) AS iteration FROM t)
                SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id,
                       (SELECT TRY_CAST(iteration AS INTEGER) FROM first) AS step, $op AS op_name,
                       TRY_CAST(e->>'$.tid' AS INTEGER) AS plane_id,
                       replace(trim(coalesce(e->>'$.args."task type"', e->>'$.name')), ' ', '_') AS task_name,
                       TRY_CAST(e->>'$.args."src rank"' AS BIGINT) AS src_rank,
                       TRY_CAST(e->>'$.args."dst rank"' AS BIGINT) AS dst_rank,
                       e->>'$.args."transport type"' AS transport_type,
                       ts_ns, dur_ns, {size} AS size_bytes,
                       TRY_CAST(e->>'$.args.bandwidth' AS DOUBLE) AS bandwidth_gbps,
                       e->>'$.args."notify id"' AS notify_id,
                       (SELECT op_ts_ns FROM first) AS op_ts_ns
                FROM t
                WHERE e->>'$.ph' = 'X'
            """, {"path": src, "run_id": f.run_id, "rank": f.rank, "file_id": f.file_id,
                  "op": f.op_tag}).fetchone()[0]
        except duckdb.Error as e:
            raise translate_read_error(e, str(f.path)) from e


def same_execution(con: duckdb.DuckDBPyConnection, run_id: int, rank: int, file_id: int) -> str | None:
    """Path of an earlier .trace file of the rank holding the same tasks as ``file_id`` (same
    start, task names, planes, durations and sizes), else None."""
    row = con.execute("""
        WITH sig AS (
            SELECT file_id, list(struct_pack(t := ts_ns, n := task_name, p := plane_id, d := dur_ns, s := size_bytes)
                                 ORDER BY ts_ns, plane_id, task_name, dur_ns) AS tasks
            FROM link
            WHERE run_id = ? AND rank = ? AND op_ts_ns IS NOT NULL
              AND op_ts_ns = (SELECT min(op_ts_ns) FROM link WHERE file_id = ?)
            GROUP BY file_id
        )
        SELECT f.path FROM sig AS a JOIN sig AS b ON a.tasks = b.tasks AND b.file_id <> a.file_id
        JOIN source_file AS f ON f.file_id = b.file_id
        WHERE a.file_id = ? ORDER BY b.file_id LIMIT 1
    """, [run_id, rank, file_id, file_id]).fetchone()
    return row[0] if row else None
