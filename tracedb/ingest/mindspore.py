"""MindSpore's flat ``profiler/`` output (formats.md §5, §6.4.3, §6.5):

* ``step_trace_raw_{rank}_detail_time.csv`` → ``step`` (start/end/fp/bp points × 10 ns) and one
  communication row of ``kernel`` per (step, comm op column triple);
* ``hccl_raw_{rank}.csv`` → ``link`` rows per (step, op, link, transport) from the JSON in
  ``communication_operator_cost`` (task_name ``hccl_raw``: a per-op sum, not one task);
* HCCL ``hccl_info[_{rank}]/<op>/iter{i}.trace`` → ``link`` tasks.

Times: step_trace_raw counts device-counter ticks of 10 ns; .trace ``ts`` is the same counter in
µs (ticks ÷ 100), so both land on one ns clock (not the epoch). DuckDB parses every file:
``read_csv`` (all text), ``read_json_objects`` and JSON→MAP casts for the nested JSON.
"""
from __future__ import annotations

import re
from pathlib import Path

import duckdb

from ..errors import InputError
from ..timeconv import clean_text, json_us_to_ns
from .events import translate_read_error
from .kernel_details import _sql_ident, read_header
from .links import size_bytes_sql

STEP_TRACE_RAW = re.compile(r"^step_trace_raw_(\d+)_detail_time\.csv$", re.I)
HCCL_RAW = re.compile(r"^hccl_raw_(\d+)\.csv$", re.I)
HCCL_INFO = re.compile(r"^hccl_info(?:_(\d+))?$", re.I)
_CSV = ("read_csv(?, header = true, all_varchar = true, quote = '\"', escape = '\"', strict_mode = false, "
        "null_padding = true)")
# a real step row: step_num all digits and not 0 (the last row is the average: '-', or '0' in old files)
_STEP_ROW = "regexp_full_match(trim(step_num), '[0-9]+') AND TRY_CAST(trim(step_num) AS INTEGER) > 0"


def _ticks(col: str) -> str:
    """SQL: a 10 ns tick count (text) → BIGINT ns, exact."""
    return f"(TRY_CAST({clean_text(_sql_ident(col))} AS BIGINT) * 10)"


def comm_op_fields(header: list[str]) -> list[str]:
    """The comm-op column triples ``{f}``, ``{f}_start_point``, ``{f}_end_point``, matched by
    suffix (both orders occur), in header order."""
    present = set(header)
    return [h[: -len("_start_point")] for h in header
            if h.endswith("_start_point") and h[: -len("_start_point")] + "_end_point" in present]


def ingest_step_trace_raw(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int, file_id: int) -> int:
    """One step_trace_raw_{rank}_detail_time.csv → step rows and communication kernel rows.

    Returns the number of steps.

    Raises:
        InputError: empty file, missing step_num / start_point / end_point, or a step row whose
            points are not integers (the message gives its line).
    """
    header = read_header(path)
    missing = [c for c in ("step_num", "start_point", "end_point") if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(repr(m) for m in missing)}.", file=str(path),
                         place="line 1", hint="is this a MindSpore step_trace_raw_{rank}_detail_time.csv?")
    fp = _ticks("fp_point") if "fp_point" in header else "NULL"
    bp = _ticks("bp_point") if "bp_point" in header else "NULL"
    try:
        bad = con.execute(f"""
            SELECT line FROM (SELECT row_number() OVER () + 1 AS line, * FROM {_CSV})
            WHERE {_STEP_ROW} AND ({_ticks('start_point')} IS NULL OR {_ticks('end_point')} IS NULL)
            ORDER BY line LIMIT 1""", [str(path)]).fetchone()
        if bad:
            raise InputError("start_point or end_point is empty or not an integer.", file=str(path),
                             place=f"line {bad[0]}", hint="the file may be truncated or edited.")
        # INSERT OR REPLACE: a re-ingested (changed) file replaces its steps
        con.execute(f"""
            INSERT OR REPLACE INTO step (run_id, rank, step, device_start_ns, device_end_ns, fp_ns, bp_ns)
            SELECT ?, ?, TRY_CAST(trim(step_num) AS INTEGER), {_ticks('start_point')}, {_ticks('end_point')}, {fp}, {bp}
            FROM {_CSV} WHERE {_STEP_ROW}
        """, [run_id, rank, str(path)])
        fields = comm_op_fields(header)
        if fields:
            next_id = con.execute("SELECT coalesce(max(kernel_id), 0) FROM kernel WHERE run_id = ? AND rank = ?",
                                  [run_id, rank]).fetchone()[0]
            # one scan: each row becomes a list of (name, start, end) structs, unnested
            structs = ", ".join(
                "{'n': '" + f.replace("'", "''") + "', 's': " + _sql_ident(f + "_start_point")
                + ", 'e': " + _sql_ident(f + "_end_point") + "}" for f in fields)
            tick = lambda x: f"(TRY_CAST({clean_text(x)} AS BIGINT) * 10)"   # noqa: E731
            con.execute(f"""
                INSERT INTO kernel (run_id, rank, file_id, kernel_id, step, name, op_type, ts_ns, dur_ns,
                                    is_communication, source)
                WITH ops AS (
                    SELECT TRY_CAST(trim(step_num) AS INTEGER) AS step, unnest([{structs}]) AS o
                    FROM {_CSV} WHERE {_STEP_ROW}
                ),
                vals AS (SELECT step, o.n AS name, {tick('o.s')} AS ts_ns, {tick('o.e')} - {tick('o.s')} AS dur_ns FROM ops)
                SELECT ?, ?, ?, 0, step, name,
                       coalesce(nullif(regexp_extract(name, '^stream_\\d+_\\d+_([A-Za-z]+)', 1), ''), name),
                       ts_ns, dur_ns, true, 'step_trace_raw'
                FROM vals
                WHERE ts_ns > 0 AND dur_ns >= 0
            """, [str(path), run_id, rank, file_id])
            con.execute("UPDATE kernel SET kernel_id = ? + rowid - (SELECT min(rowid) FROM kernel WHERE file_id = ?) + 1 "
                        "WHERE file_id = ?", [next_id, file_id, file_id])
    except duckdb.Error as e:
        raise translate_read_error(e, str(path)) from e
    return con.execute("SELECT count(*) FROM step WHERE run_id = ? AND rank = ? AND device_start_ns IS NOT NULL "
                       "AND host_start_ns IS NULL", [run_id, rank]).fetchone()[0]


def ingest_hccl_raw(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int, file_id: int) -> int:
    """hccl_raw_{rank}.csv → link rows per (step, op, link, transport); returns rows.

    From ``communication_operator_cost`` ({op: [step, cost_ms, wait_ms, {"src-dst": {"SDMA"|"RDMA":
    [time_ms, size_KB, bandwidth, (RDMA wait_ms)]}}]}): size KB = 1000 B → bytes, time ms → ns,
    bandwidth recomputed as bytes/ns (the file's third element is a sum of per-op bandwidths at
    step level, KB/s at op level). The '-' average row is skipped.

    Raises:
        InputError: missing columns, or JSON in a cell that does not parse.
    """
    header = read_header(path)
    missing = [c for c in ("step_num", "communication_operator_cost") if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(repr(m) for m in missing)}.", file=str(path),
                         place="line 1", hint="is this a MindSpore hccl_raw_{rank}.csv?")
    num = lambda e, i: f"TRY_CAST(({e})->>{i} AS DECIMAL(38, 12))"   # noqa: E731
    try:
        con.execute(f"""
            INSERT INTO link (run_id, rank, file_id, step, group_name, op_name, plane_id, task_name,
                              src_rank, dst_rank, transport_type, link_type, ts_ns, dur_ns, size_bytes,
                              bandwidth_gbps, notify_id, op_ts_ns, rdma_type)
            WITH r AS (
                SELECT step_num, communication_operator_cost::JSON AS j FROM {_CSV} WHERE {_STEP_ROW}
            ),
            ops AS (SELECT step_num, unnest(map_entries(j::MAP(VARCHAR, JSON))) AS e FROM r),
            links AS (
                SELECT step_num, e.key AS op, e.value->>0 AS op_step,
                       unnest(map_entries((e.value->3)::MAP(VARCHAR, JSON))) AS l
                FROM ops
            ),
            tr AS (
                SELECT step_num, op, op_step, l.key AS link_key,
                       unnest(map_entries(l.value::MAP(VARCHAR, JSON))) AS t
                FROM links
            ),
            vals AS (
                SELECT *, TRY_CAST(round({num('t.value', 1)} * 1000) AS BIGINT) AS size_bytes,
                       TRY_CAST(round({num('t.value', 0)} * 1000000) AS BIGINT) AS dur_ns
                FROM tr
            )
            SELECT ?, ?, ?, coalesce(TRY_CAST(op_step AS INTEGER), TRY_CAST(trim(step_num) AS INTEGER)),
                   NULL, op, NULL, 'hccl_raw',
                   TRY_CAST(split_part(link_key, '-', 1) AS BIGINT), TRY_CAST(split_part(link_key, '-', 2) AS BIGINT),
                   t.key, NULL, NULL, dur_ns, size_bytes,
                   CASE WHEN dur_ns > 0 THEN size_bytes / dur_ns END, NULL, NULL, NULL
            FROM vals
        """, [str(path), run_id, rank, file_id])
    except duckdb.Error as e:
        raise InputError(f"cannot read: {str(e).splitlines()[0]}", file=str(path),
                         hint="communication_operator_cost must hold the JSON MindSpore writes.") from e
    return con.execute("SELECT count(*) FROM link WHERE file_id = ?", [file_id]).fetchone()[0]


def ingest_hccl_trace(con: duckdb.DuckDBPyConnection, path: Path, op_tag: str, run_id: int, rank: int,
                      file_id: int) -> int:
    """One HCCL ``iter{i}.trace`` file → link tasks of one op execution; returns rows.

    ``size``: see :func:`~tracedb.ingest.links.size_bytes_sql`; ``bandwidth`` "NULL" → NULL;
    ``Notify Wait`` → ``Notify_Wait``; plane = tid. op_name = the op directory (``allReduce_1_1``);
    op_ts_ns = the first task start; step = the step_trace_raw step whose [start, end) holds it
    (before the first step: the first; after the last: the last), else the file's iteration.

    Raises:
        InputError: not JSON, or no traceEvents array (the file is named).
    """
    size = size_bytes_sql("e", "$.args.size")
    try:
        head = con.execute("SELECT json_type(json, '$.traceEvents') FROM read_json_objects(?) LIMIT 1",
                           [str(path)]).fetchone()
        if not head or head[0] != "ARRAY":
            raise InputError("no traceEvents array.", file=str(path), place="byte 0",
                             hint="expected an HCCL .trace file: {\"device id\", \"iteration\", \"traceEvents\": [...]}.")
        con.execute(f"""
            INSERT INTO link (run_id, rank, file_id, step, group_name, op_name, plane_id, task_name,
                              src_rank, dst_rank, transport_type, link_type, ts_ns, dur_ns, size_bytes,
                              bandwidth_gbps, notify_id, op_ts_ns, rdma_type)
            WITH f AS (
                SELECT json->>'$.iteration' AS iteration, unnest(json_extract(json, '$.traceEvents[*]')) AS e
                FROM read_json_objects(?)
            ),
            t AS (
                SELECT iteration, e, {json_us_to_ns("e->>'$.ts'")} AS ts_ns, {json_us_to_ns("e->>'$.dur'")} AS dur_ns
                FROM f
            ),
            first AS (SELECT min(ts_ns) AS op_ts_ns, any_value(iteration) AS iteration FROM t),
            windows AS (
                SELECT step, device_start_ns, device_end_ns,
                       min(step) OVER () AS first_step, max(step) OVER () AS last_step,
                       min(device_start_ns) OVER () AS first_start, max(device_end_ns) OVER () AS last_end
                FROM step WHERE run_id = ? AND rank = ? AND device_start_ns IS NOT NULL AND host_start_ns IS NULL
            ),
            op_step AS (
                SELECT coalesce(
                    (SELECT min(w.step) FROM windows AS w, first AS o
                     WHERE o.op_ts_ns >= w.device_start_ns AND o.op_ts_ns < w.device_end_ns),
                    (SELECT min(w.first_step) FROM windows AS w, first AS o WHERE o.op_ts_ns < w.first_start),
                    (SELECT min(w.last_step) FROM windows AS w, first AS o WHERE o.op_ts_ns >= w.last_end),
                    (SELECT TRY_CAST(iteration AS INTEGER) FROM first)) AS step
            )
            SELECT ?, ?, ?, (SELECT step FROM op_step), NULL, ?,
                   TRY_CAST(e->>'$.tid' AS INTEGER),
                   replace(trim(coalesce(e->>'$.args."task type"', e->>'$.name')), ' ', '_'),
                   TRY_CAST(e->>'$.args."src rank"' AS BIGINT), TRY_CAST(e->>'$.args."dst rank"' AS BIGINT),
                   e->>'$.args."transport type"', NULL,
                   ts_ns, dur_ns, {size},
                   TRY_CAST(e->>'$.args.bandwidth' AS DOUBLE),
                   e->>'$.args."notify id"',
                   (SELECT op_ts_ns FROM first), NULL
            FROM t
            WHERE e->>'$.ph' = 'X'
        """, [str(path), run_id, rank, run_id, rank, file_id, op_tag])
    except duckdb.Error as e:
        raise translate_read_error(e, str(path)) from e
    return con.execute("SELECT count(*) FROM link WHERE file_id = ?", [file_id]).fetchone()[0]


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
