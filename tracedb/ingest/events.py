"""Chrome-trace events (trace_view.json, Kineto) → the ``event`` table and ProfilerStep#N → ``step``.

DuckDB's C++ reader parses the event array into a staging table with typed columns; process
and thread names from the metadata ("M") events are joined on in SQL. ``ts``/``dur`` are read
as text and converted to integer ns exactly (see :mod:`tracedb.timeconv`).
"""
from __future__ import annotations

import re

import duckdb

from ..errors import InputError
from ..timeconv import us_text_to_ns

READ_COLUMNS = ("{ph: 'VARCHAR', name: 'VARCHAR', cat: 'VARCHAR', pid: 'VARCHAR', tid: 'VARCHAR', "
                "ts: 'VARCHAR', dur: 'VARCHAR', id: 'VARCHAR', bp: 'VARCHAR', args: 'JSON'}")
MAX_OBJECT = 256 << 20   # one event (Call stack args can be large); not the file size

STAGE = "_tracedb_stage"


def translate_read_error(e: duckdb.Error, file: str, offset: int = 0) -> InputError:
    """A DuckDB read_json/read_csv error → one-line InputError naming the file and the place."""
    msg = str(e)
    m = re.search(r"at byte (\d+) in record/value (\d+)", msg)
    if m:
        place = f"event {int(m.group(2)):,}, byte {int(m.group(1))} of it"
    else:
        m = re.search(r"at byte (\d+)", msg)
        place = f"byte {int(m.group(1)) + offset}" if m else None
    if place is None:
        m = re.search(r"[Ll]ine:? (\d+)", msg)
        place = f"line {m.group(1)}" if m else None
    first = msg.splitlines()[0]
    first = re.sub(r"^[\w ]+ Error: ", "", first)
    first = re.sub(r' in file "[^"]*"', "", first)
    first = re.sub(r", at byte \d+( in record/value \d+)?", "", first)
    first = re.sub(r"\s*\(.*maximum_object_size.*\)", "", first)
    if "maximum_object_size" in msg or "object that is too large" in msg:
        first = "an event is larger than 256 MiB, or the JSON is malformed"
    return InputError(f"cannot parse: {first.strip()}", file=file, place=place,
                      hint="the file may be truncated or not a trace; re-export it from the profiler.")


def stage_events(con: duckdb.DuckDBPyConnection, read_path: str, file: str, offset: int = 0) -> int:
    """Parse the event array at ``read_path`` into the temp table ``_tracedb_stage``.

    Columns: ph, name, cat, pid, tid, ts_ns (relative to the file's own time base), dur_ns,
    flow_id, flow_bp, args (JSON text).

    Returns:
        number of events.

    Raises:
        InputError: malformed or truncated JSON (byte offset in the message).
    """
    con.execute(f"DROP TABLE IF EXISTS {STAGE}")
    sql = f"""
        CREATE TEMP TABLE {STAGE} AS
        SELECT ph, name, cat, pid, tid,
               {us_text_to_ns('ts')} AS ts_ns,
               {us_text_to_ns('dur')} AS dur_ns,
               id AS flow_id, bp AS flow_bp,
               CAST(args AS VARCHAR) AS args
        FROM read_json(?, format = 'array', columns = {READ_COLUMNS},
                       maximum_object_size = {MAX_OBJECT})
    """
    try:
        con.execute(sql, [read_path])
    except duckdb.Error as e:
        raise translate_read_error(e, file, offset) from e
    return con.execute(f"SELECT count(*) FROM {STAGE}").fetchone()[0]


def insert_events(con: duckdb.DuckDBPyConnection, run_id: int, rank: int, file_id: int,
                  base_ns: int = 0) -> int:
    """Move the staged events into ``event`` with process/thread names resolved; returns the count."""
    con.execute(f"""
        INSERT INTO event
        WITH process_names AS (
            SELECT pid, any_value(json_extract_string(args, '$.name')) AS process_name
            FROM {STAGE} WHERE ph = 'M' AND name = 'process_name' GROUP BY pid
        ),
        thread_names AS (
            SELECT pid, tid, any_value(json_extract_string(args, '$.name')) AS thread_name
            FROM {STAGE} WHERE ph = 'M' AND name = 'thread_name' GROUP BY pid, tid
        )
        SELECT ?, ?, ?, s.ph, s.name, s.cat, s.pid, s.tid, p.process_name, t.thread_name,
               s.ts_ns + ?, s.dur_ns, s.flow_id, s.flow_bp, s.args
        FROM {STAGE} AS s
        LEFT JOIN process_names AS p ON p.pid IS NOT DISTINCT FROM s.pid
        LEFT JOIN thread_names AS t ON t.pid IS NOT DISTINCT FROM s.pid AND t.tid IS NOT DISTINCT FROM s.tid
    """, [run_id, rank, file_id, base_ns])
    n = con.execute(f"SELECT count(*) FROM {STAGE}").fetchone()[0]
    con.execute(f"DROP TABLE {STAGE}")
    return n


def insert_steps(con: duckdb.DuckDBPyConnection, run_id: int, rank: int, file_id: int) -> int:
    """ProfilerStep#N host slices of one file → ``step`` rows (host window). Returns steps added.

    GPU copies of the step (cat gpu_user_annotation) are not host steps and are skipped.
    """
    con.execute("""
        INSERT INTO step (run_id, rank, step, host_start_ns, host_end_ns)
        SELECT run_id, rank, step, min(ts_ns), max(ts_ns + coalesce(dur_ns, 0))
        FROM (
            SELECT run_id, rank, ts_ns, dur_ns,
                   TRY_CAST(regexp_extract(name, '#(\\d+)', 1) AS INTEGER) AS step
            FROM event
            WHERE run_id = ? AND rank = ? AND file_id = ? AND ph = 'X'
              AND name LIKE 'ProfilerStep#%'
              AND coalesce(lower(cat), '') NOT LIKE 'gpu%'
        ) AS s
        WHERE step IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM step AS o WHERE o.run_id = s.run_id AND o.rank = s.rank AND o.step = s.step)
        GROUP BY run_id, rank, step
    """, [run_id, rank, file_id])
    return con.execute("SELECT count(*) FROM step WHERE run_id = ? AND rank = ?", [run_id, rank]).fetchone()[0]


def npu_device_id(con: duckdb.DuckDBPyConnection, file_id: int) -> int | None:
    """Device id of an Ascend trace: process_labels "NPU n"; for a plain "NPU" label, the low 5
    bits of the Ascend Hardware pid, which newer CANN encodes as (host_pid << 10) | (layer << 5) |
    device (formats.md §2.3; 31 = host). None when neither tells."""
    row = con.execute("""
        SELECT coalesce(
            min(TRY_CAST(regexp_extract(json_extract_string(args, '$.labels'), 'NPU\\s*(\\d+)', 1) AS INTEGER))
                FILTER (WHERE name = 'process_labels'),
            min(CASE WHEN TRY_CAST(pid AS BIGINT) >= 1024 AND TRY_CAST(pid AS BIGINT) % 32 <> 31
                     THEN TRY_CAST(pid AS BIGINT) % 32 END)
                FILTER (WHERE name = 'process_name' AND json_extract_string(args, '$.name') = 'Ascend Hardware'))
        FROM event WHERE file_id = ? AND ph = 'M'
    """, [file_id]).fetchone()
    return int(row[0]) if row and row[0] is not None else None
