"""Chrome-trace event arrays (trace_view.json, Kineto, CANN msprof timeline slices) → ``event``.

Shared by the three Chrome-trace readers. DuckDB's C++ JSON reader parses the event array
straight into ``event`` (one streaming INSERT, memory bounded by DuckDB's memory_limit), large
arrays as parallel slices. Process and thread names from the metadata ("M") events are joined
on in the INSERT when a byte scan found them first, else set from the inserted rows. ``ts`` /
``dur`` are read as text and converted to integer ns exactly (:mod:`tracedb.timeconv`); values
beyond ±2^62 ns (year 2116) become NULL, so that ts + dur always fits in BIGINT.
"""
from __future__ import annotations

from pathlib import Path

import duckdb

from ...timeconv import json_us_to_ns
from ..sources.csvsource import ns_in_range
from ..sources.errors import MAX_OBJECT, translate_read_error
from ..sources.file import SourceFile
from ..sources.jsonsource import SplitArray, split_parts
from ..sources.paths import literal_path

# args is read as VARCHAR: DuckDB hands the object over as its JSON text (cheaper than reading
# JSON and casting).
READ_COLUMNS = ("{ph: 'VARCHAR', name: 'VARCHAR', cat: 'VARCHAR', pid: 'VARCHAR', tid: 'VARCHAR', "
                "ts: 'VARCHAR', dur: 'VARCHAR', id: 'VARCHAR', bp: 'VARCHAR', args: 'VARCHAR'}")
NAMES_P = "_tracedb_process_names"
NAMES_T = "_tracedb_thread_names"


class SplitReadFailed(Exception):
    """Reading an array in parallel slices failed (a cut inside an event, or a damaged file).
    DuckDB has aborted the transaction, so the caller re-runs the whole ingest reading every
    file in one piece; a damaged file then fails with its precise place."""


def _text(v) -> str | None:
    """A pid/tid as DuckDB's JSON reader turns it into VARCHAR."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _names_tables(con: duckdb.DuckDBPyConnection, meta: list[dict]) -> None:
    con.execute(f"CREATE OR REPLACE TEMP TABLE {NAMES_P} (pid VARCHAR, process_name VARCHAR)")
    con.execute(f"CREATE OR REPLACE TEMP TABLE {NAMES_T} (pid VARCHAR, tid VARCHAR, thread_name VARCHAR)")
    procs, threads = {}, {}
    for e in meta:
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        name = args.get("name")
        if not isinstance(name, str):
            continue
        if e.get("name") == "process_name":
            procs.setdefault(_text(e.get("pid")), name)
        elif e.get("name") == "thread_name":
            threads.setdefault((_text(e.get("pid")), _text(e.get("tid"))), name)
    if procs:
        con.executemany(f"INSERT INTO {NAMES_P} VALUES (?, ?)", [[k, v] for k, v in procs.items()])
    if threads:
        con.executemany(f"INSERT INTO {NAMES_T} VALUES (?, ?, ?)", [[k[0], k[1], v] for k, v in threads.items()])


def _insert_sql(base_ns: int) -> str:
    return f"""
        INSERT INTO event
        SELECT ?, ?, ?, r.ph, r.name, r.cat, r.pid, r.tid, p.process_name, t.thread_name,
               {ns_in_range(f"{json_us_to_ns('r.ts')} + {int(base_ns)}")}, {ns_in_range(json_us_to_ns('r.dur'))},
               r.id, r.bp, r.args
        FROM read_json(?, format = 'array', columns = {READ_COLUMNS}, maximum_object_size = {MAX_OBJECT}) AS r
        LEFT JOIN {NAMES_P} AS p ON p.pid = r.pid
        LEFT JOIN {NAMES_T} AS t ON t.pid = r.pid AND t.tid = r.tid
    """


def insert_events(con: duckdb.DuckDBPyConnection, f: SourceFile, rank: int, *, fifo: str | None = None,
                  span: tuple[int, int] | None = None, meta: list[dict] | None = None, base_ns: int = 0) -> int:
    """Parse one Chrome-trace event array into ``event`` in one streaming statement.

    The array is ``fifo`` (a FIFO carrying the traceEvents array of a gzip object trace), else
    the byte ``span`` of the traceEvents array inside ``f.path`` (plain object trace), else
    ``f.path`` itself (an array file). ``meta``: the metadata events found by a byte scan
    (:func:`~tracedb.ingest.sources.jsonsource.scan_metadata`), None if not scanned. File
    arrays of 64 MiB and more are read as parallel slices when ``f.split``.

    Returns:
        number of events inserted.

    Raises:
        InputError: malformed or truncated JSON (the place in the message).
        SplitReadFailed: the parallel read failed; retry the ingest with ``split=False``.
    """
    _names_tables(con, meta or [])
    params = [f.run_id, rank, f.file_id]
    sql = _insert_sql(base_ns)
    if fifo is not None:
        n = _run(con, sql, params + [fifo], f.path)
    else:
        threads = int(con.execute("SELECT current_setting('threads')").fetchone()[0])
        parts = split_parts(f.path, threads) if f.split else 1
        if parts > 1:
            try:
                with SplitArray(f.path, parts, span) as sliced:
                    n = con.execute(sql, params + [sliced.paths]).fetchone()[0]
            except duckdb.Error as e:
                raise SplitReadFailed(str(e)) from e
        elif span is not None:
            with SplitArray(f.path, 1, span) as whole:
                n = _run(con, sql, params + [whole.paths[0]], f.path)
        else:
            with literal_path(f.path) as read_path:
                n = _run(con, sql, params + [read_path], f.path)
    named = con.execute("SELECT count(*) FROM event WHERE file_id = ? AND ph = 'M' "
                        "AND name IN ('process_name', 'thread_name')", [f.file_id]).fetchone()[0]
    if named != sum(1 for e in (meta or []) if e.get("name") in ("process_name", "thread_name")):
        _names_from_rows(con, f.file_id)
    return n


def _run(con, sql: str, params: list, source: Path) -> int:
    try:
        return con.execute(sql, params).fetchone()[0]
    except duckdb.Error as e:
        raise translate_read_error(e, str(source)) from e


def _names_from_rows(con: duckdb.DuckDBPyConnection, file_id: int) -> None:
    """Process/thread names from the metadata rows already in ``event``: object traces, whose
    metadata may sit anywhere in a stream, and array files the byte scan missed."""
    con.execute("""
        UPDATE event SET process_name = m.process_name
        FROM (SELECT pid, any_value(json_extract_string(args, '$.name')) AS process_name
              FROM event WHERE file_id = ? AND ph = 'M' AND name = 'process_name' GROUP BY pid) AS m
        WHERE event.file_id = ? AND event.pid IS NOT DISTINCT FROM m.pid
          AND event.process_name IS DISTINCT FROM m.process_name
    """, [file_id, file_id])
    con.execute("""
        UPDATE event SET thread_name = m.thread_name
        FROM (SELECT pid, tid, any_value(json_extract_string(args, '$.name')) AS thread_name
              FROM event WHERE file_id = ? AND ph = 'M' AND name = 'thread_name' GROUP BY pid, tid) AS m
        WHERE event.file_id = ? AND event.pid IS NOT DISTINCT FROM m.pid AND event.tid IS NOT DISTINCT FROM m.tid
          AND event.thread_name IS DISTINCT FROM m.thread_name
    """, [file_id, file_id])
