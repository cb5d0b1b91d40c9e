"""Chrome-trace event arrays (trace_view.json, Kineto, CANN msprof timeline slices) → ``event``.

Shared by the three Chrome-trace readers. DuckDB's C++ JSON reader parses the event array
straight into ``event`` (one streaming INSERT, memory bounded by DuckDB's memory_limit), large
arrays as parallel slices. Process and thread names from the metadata ("M") events are joined
on in the INSERT when a byte scan found them first, else set from the inserted rows. ``ts`` /
``dur`` are converted to integer ns from their text, exactly (:mod:`tracedb.timeconv`); values
beyond ±2^62 ns (year 2116) become NULL, so that ts + dur always fits in BIGINT.

A JSON *number* is parsed to a double by DuckDB's JSON parser before any column type applies
(``read_json(columns={ts: 'VARCHAR'})`` hands over the double printed again): epoch µs with 3
decimals (``1712195495506220.328``, 19 digits) come back as ``1712195495506220.2``. So each
event is read as its raw text (``read_json_objects``), the columns are taken from it with one
``json_transform``, and ``ts`` is cut out of the raw text (:data:`TS_RAW`). The raw digits are
used where their value equals the parsed double (so a nested ``"ts"`` key met first, say in
``args``, is never taken for the event's own); otherwise the parsed text is. ``dur`` keeps the
parsed text: a double prints any decimal of up to 15 significant digits exactly (durations up
to 11.5 days with 3 decimals). Measured: in the whole ingest of a Kineto trace, reading the
raw text costs the same CPU as ``read_json`` with typed columns; in the read of a 100 MB
trace_view.json alone, ~12 % more (bench/RESULTS.md).

Large array files (trace_view.json read in parallel slices) are read first without the raw
text (``read_json`` with typed columns, :func:`_fast_insert_sql`): every ts that does not need
the raw digits (strings, integers, short numbers: all that torch_npu writes) is converted as
above, and an event whose ts would need them gets the marker :data:`RAW_TS_NEEDED`; if any
did, the file's rows are deleted and it is read again the raw way. Same rows either way.
"""
from __future__ import annotations

from pathlib import Path

from ...engine import duckdb, execute, insert_rows

from ...timeconv import ns_from_parts, us_to_ns_parts
from ..sources.csvsource import ns_in_range
from ...errors import InputError
from ..sources.errors import MAX_OBJECT, printable, translate_read_error
from ..sources.file import SourceFile
from ..sources.jsonsplit import SplitArray, split_parts
from ..sources.paths import literal_path

# the columns taken from each event; args as JSON: DuckDB hands the object over as its JSON text
# (a string as its quoted text, so that an args that is not an object is told from one: see
# ARGS); ts as JSON, so that a string ("…") is told from a number.
TRANSFORM = ('{"ph": "VARCHAR", "name": "VARCHAR", "cat": "VARCHAR", "pid": "VARCHAR", "tid": "VARCHAR", '
             '"ts": "JSON", "dur": "VARCHAR", "id": "VARCHAR", "bp": "VARCHAR", "args": "JSON"}')
# an element of the event array that is not an object, or an args that is not one, stops the
# read with this error (the place is found by :func:`_bad_event_place`)
BAD_EVENT = "tracedb-bad-event:"
# metadata (ph M) args nested deeper than this are refused (real ones are one level deep)
MAX_META_DEPTH = 32


def args_sql(args: str, raw: str | None) -> str:
    """SQL: the event's args (JSON text of an object, or NULL), raising an error for an array
    element ``raw`` (its text; None where not at hand) that is not an object, or for args of
    another JSON type (a string, a number, an array)."""
    not_object = f"WHEN NOT starts_with({raw}, '{{') THEN error('{BAD_EVENT}object') " if raw else ""
    return (f"CASE {not_object}WHEN {args} IS NOT NULL AND NOT starts_with({args}, '{{') "
            f"THEN error('{BAD_EVENT}args') ELSE CAST({args} AS VARCHAR) END")
# the number after a "ts" key in an event's raw JSON text (RE2). A JSON string cannot hold an
# unescaped '"ts"' followed by ':', so a match is a key (maybe a nested one: _ts_text checks).
TS_RAW = r'"ts"\s*:\s*(-?[0-9][0-9.eE+-]*)'


# the columns the ts text is read from: the parsed ts as JSON, and the same as VARCHAR
TS_JSON, TS_STR = "tracedb_ts_json", "tracedb_ts_str"


def _ts_text() -> str:
    """SQL over ``raw`` (an event's raw text), :data:`TS_JSON` and :data:`TS_STR` (its parsed
    ts): the ts text to convert.

    - a JSON string: its content, as written;
    - an integer, or a number below 1e12 µs printed in at most 16 characters: the parsed
      number printed again is the text (the parser keeps integers as int64; a decimal of at
      most 15 significant digits survives a double, and one with at most 3 decimals below
      1e12 has at most 15);
    - else (epoch µs with decimals): the raw digits of the first "ts" key that denote the same
      double as the parsed value (the first key, or when that is a nested one, the first that
      matches), else the parsed text.

    Only the last case runs the regular expression: it costs ~0.35 CPU s per 100 MB, the other
    cases cost what ``read_json`` does (bench/RESULTS.md)."""
    ts, ts_json = TS_STR, TS_JSON
    first = f"regexp_extract(raw, '{TS_RAW}', 1)"
    same = f"TRY_CAST({ts} AS DOUBLE)"
    every = (f"list_filter(regexp_extract_all(raw, '{TS_RAW}', 1), "
             f"lambda x: TRY_CAST(x AS DOUBLE) = {same})[1]")
    return (f"CASE WHEN starts_with({ts}, '\"') THEN "
            f"CASE WHEN contains({ts}, '\\') THEN json_extract_string({ts_json}, '$') ELSE ({ts})[2:-2] END "
            f"WHEN NOT (contains({ts}, '.') OR contains({ts}, 'e') OR contains({ts}, 'E')) THEN {ts} "
            f"WHEN length({ts}) <= 16 AND abs({same}) < 1e12 THEN {ts} "
            f"WHEN TRY_CAST({first} AS DOUBLE) = {same} THEN {first} "
            f"ELSE coalesce({every}, {ts}) END")


# ts_ns of an event whose ts needs the raw text (the fast read's marker; never a real value:
# ns_in_range keeps |ns| < 2^62)
RAW_TS_NEEDED = -(1 << 63)


def fast_ts_text() -> str:
    """:func:`_ts_text` without the raw text: its first three cases, and NULL for an event
    without ts; NULL also where it would cut the raw text (then the caller marks the row)."""
    ts, ts_json = TS_STR, TS_JSON
    return (f"CASE WHEN {ts_json} IS NULL THEN NULL "
            f"WHEN starts_with({ts}, '\"') THEN "
            f"CASE WHEN contains({ts}, '\\') THEN json_extract_string({ts_json}, '$') ELSE ({ts})[2:-2] END "
            f"WHEN NOT (contains({ts}, '.') OR contains({ts}, 'e') OR contains({ts}, 'E')) THEN {ts} "
            f"WHEN length({ts}) <= 16 AND abs(TRY_CAST({ts} AS DOUBLE)) < 1e12 THEN {ts} END")


NAMES_P = "_tracedb_process_names"
NAMES_T = "_tracedb_thread_names"


class SplitReadFailed(Exception):
    """Reading an array in parallel slices failed (a cut inside an event, or a damaged file).
    DuckDB has aborted the transaction, so the caller re-runs the whole ingest reading every
    file in one piece; a damaged file then fails with its precise place."""


def value_text(v) -> str | None:
    """A pid/tid as DuckDB's JSON reader turns it into VARCHAR."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def metadata_names(meta: list[dict]) -> tuple[dict, dict]:
    """The process names {pid: name} and thread names {(pid, tid): name} of a trace's metadata
    events (pid and tid as DuckDB's JSON reader gives them; the first of a pid or a (pid, tid)
    wins)."""
    procs, threads = {}, {}
    for e in meta:
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        name = args.get("name")
        if not isinstance(name, str):
            continue
        if e.get("name") == "process_name":
            procs.setdefault(value_text(e.get("pid")), name)
        elif e.get("name") == "thread_name":
            threads.setdefault((value_text(e.get("pid")), value_text(e.get("tid"))), name)
    return procs, threads


def _names_tables(con: duckdb.DuckDBPyConnection, meta: list[dict]) -> None:
    con.execute(f"CREATE OR REPLACE TEMP TABLE {NAMES_P} (pid VARCHAR, process_name VARCHAR)")
    con.execute(f"CREATE OR REPLACE TEMP TABLE {NAMES_T} (pid VARCHAR, tid VARCHAR, thread_name VARCHAR)")
    procs, threads = metadata_names(meta)
    if procs:
        insert_rows(con, NAMES_P, [[k, v] for k, v in procs.items()])
    if threads:
        insert_rows(con, NAMES_T, [[k[0], k[1], v] for k, v in threads.items()])


def with_ns(src: str, base_ns: int) -> str:
    """``src`` (a subquery with the columns ts_text and dur, µs as text) with the columns
    tracedb_ts_ns (+ ``base_ns``) and tracedb_dur_ns added (:func:`tracedb.timeconv.json_us_to_ns`,
    its parts one projection before the value: each named once, see
    :func:`tracedb.timeconv.us_to_ns_parts`)."""
    ts_short, ts_approx = us_to_ns_parts("ts_text")
    dur_short, dur_approx = us_to_ns_parts("dur")
    parts = (f"(SELECT *, {ts_short} AS tracedb_ts_short, {ts_approx} AS tracedb_ts_approx, "
             f"{dur_short} AS tracedb_dur_short, {dur_approx} AS tracedb_dur_approx FROM {src})")
    return (f"(SELECT *, {ns_from_parts('ts_text', 'tracedb_ts_short', 'tracedb_ts_approx')} + {int(base_ns)} "
            f"AS tracedb_ts_ns, {ns_from_parts('dur', 'tracedb_dur_short', 'tracedb_dur_approx')} AS tracedb_dur_ns "
            f"FROM {parts})")


def _insert_sql(base_ns: int) -> str:
    events = with_ns(f"""(SELECT *, {_ts_text()} AS ts_text
              FROM (SELECT r.* EXCLUDE (ts), r.ts AS {TS_JSON}, CAST(r.ts AS VARCHAR) AS {TS_STR}, raw
                    FROM (SELECT json_transform(json, '{TRANSFORM}') AS r, json AS raw
                          FROM read_json_objects(?, format = 'array', maximum_object_size = {MAX_OBJECT}))))""",
                      base_ns)
    return f"""
        INSERT INTO event
        SELECT ?, ?, ?, r.ph, r.name, r.cat, r.pid, r.tid, p.process_name, t.thread_name,
               {ns_in_range('r.tracedb_ts_ns')}, {ns_in_range('r.tracedb_dur_ns')}, r.id, r.bp,
               {args_sql('r.args', 'r.raw')}
        FROM {events} AS r
        LEFT JOIN {NAMES_P} AS p ON p.pid = r.pid
        LEFT JOIN {NAMES_T} AS t ON t.pid = r.pid AND t.tid = r.tid
    """


def _fast_insert_sql(base_ns: int) -> str:
    """The INSERT of :func:`_insert_sql` reading the typed columns only (``read_json``, no raw
    event text: ~0.13 of ~1.1 CPU s less for a 100 MB trace_view.json, bench/RESULTS.md);
    ts_ns = :data:`RAW_TS_NEEDED` where the ts would need the raw text."""
    columns = TRANSFORM.replace('"', "'")
    events = with_ns(f"""(SELECT *, {fast_ts_text()} AS ts_text
              FROM (SELECT *, ts AS {TS_JSON}, CAST(ts AS VARCHAR) AS {TS_STR}
                    FROM read_json(?, format = 'array', columns = {columns},
                                   maximum_object_size = {MAX_OBJECT})))""", base_ns)
    return f"""
        INSERT INTO event
        SELECT ?, ?, ?, r.ph, r.name, r.cat, r.pid, r.tid, p.process_name, t.thread_name,
               CASE WHEN r.{TS_JSON} IS NOT NULL AND r.ts_text IS NULL THEN {RAW_TS_NEEDED}
                    ELSE {ns_in_range('r.tracedb_ts_ns')} END,
               {ns_in_range('r.tracedb_dur_ns')}, r.id, r.bp, {args_sql('r.args', None)}
        FROM {events} AS r
        LEFT JOIN {NAMES_P} AS p ON p.pid = r.pid
        LEFT JOIN {NAMES_T} AS t ON t.pid = r.pid AND t.tid = r.tid
    """


def insert_events(con: duckdb.DuckDBPyConnection, f: SourceFile, rank: int, *, fifo: str | None = None,
                  span: tuple[int, int] | None = None, meta: list[dict] | None = None, base_ns: int = 0) -> int:
    """Parse one Chrome-trace event array into ``event`` in one streaming statement.

    The array is ``fifo`` (a FIFO carrying the traceEvents array of a gzip object trace), else
    the byte ``span`` of the traceEvents array inside ``f.path`` (plain object trace), else
    ``f.path`` itself (an array file). ``meta``: the metadata events found by a byte scan
    (:func:`~tracedb.ingestion.sources.jsonsource.scan_metadata`), None if not scanned. File
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
                n = None
                if span is None:        # an array file: the fast read first
                    with SplitArray(f.path, parts, span) as sliced:
                        n = con.execute(_fast_insert_sql(base_ns), params + [sliced.paths]).fetchone()[0]
                    if con.execute("SELECT count(*) FROM event WHERE file_id = ? AND ts_ns = ?",
                                   [f.file_id, RAW_TS_NEEDED]).fetchone()[0]:
                        con.execute("DELETE FROM event WHERE file_id = ?", [f.file_id])
                        n = None
                if n is None:
                    with SplitArray(f.path, parts, span) as sliced:
                        n = con.execute(sql, params + [sliced.paths]).fetchone()[0]
            except duckdb.Error as e:
                raise SplitReadFailed(str(e)) from e
        elif span is not None:
            with SplitArray(f.path, 1, span) as whole:
                n = _run(con, sql, params + [whole.paths[0]], f.path)
        else:
            with literal_path(f.path) as read_path:
                n = _run(con, sql, params + [read_path], f.path, read_path)
    check_metadata(con, f)
    named = con.execute("SELECT count(*) FROM event WHERE file_id = ? AND ph = 'M' "
                        "AND name IN ('process_name', 'thread_name')", [f.file_id]).fetchone()[0]
    if named != sum(1 for e in (meta or []) if e.get("name") in ("process_name", "thread_name")):
        names_from_rows(con, f.file_id)
    return n


def _run(con, sql: str, params: list, source: Path, read_path: str | None = None) -> int:
    """Run the INSERT; a DuckDB error becomes an InputError naming the file and the place
    (``read_path``: the array file, read again to find a bad event; None for a stream)."""
    try:
        return execute(con, sql, params).fetchone()[0]
    except duckdb.Error as e:
        if BAD_EVENT in str(e):
            kind = str(e).split(BAD_EVENT, 1)[1][:6]
            what = ("an element of the event array is not a JSON object (each event must be one)." if kind == "object"
                    else "an event's args is not a JSON object (a string, a number or an array).")
            place = _bad_event_place(con, read_path) if read_path else "an element of traceEvents"
            raise InputError(what, file=str(source), place=place,
                             hint="the file was edited or corrupted; re-export it from the profiler.") from e
        raise translate_read_error(e, str(source)) from e


def _bad_event_place(con, read_path: str | None) -> str | None:
    """``event N`` of the first element of the array file that is not an object or whose args
    is not one (None for a stream, or when the file cannot be read again)."""
    if read_path is None:
        return None
    try:
        row = con.cursor().execute(f"""
            SELECT n FROM (SELECT row_number() OVER () AS n, json
                           FROM read_json_objects(?, format = 'array', maximum_object_size = {MAX_OBJECT}))
            WHERE NOT starts_with(json, '{{') OR json_type(json, '$.args') NOT IN ('OBJECT', 'NULL')
            ORDER BY n LIMIT 1""", [read_path]).fetchone()
    except duckdb.Error:
        return None
    return f"event {row[0]:,}" if row else None


def _depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` in a JSON text (brackets inside strings not counted)."""
    depth = deepest = 0
    in_str = escaped = False
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def check_metadata(con, f: SourceFile) -> None:
    """Refuse metadata (ph M) events whose args nest deeper than :data:`MAX_META_DEPTH` (real
    ones are one level deep: a name, a label, a sort index). Only args with that many brackets
    are looked at in Python."""
    rows = con.execute(f"""
        SELECT name, pid, tid, args FROM event
        WHERE file_id = ? AND ph = 'M' AND args IS NOT NULL
          AND length(args) - length(replace(replace(args, '{{', ''), '[', '')) > {MAX_META_DEPTH}
    """, [f.file_id]).fetchall()
    for name, pid, tid, args in rows:
        depth = _depth(args)
        if depth > MAX_META_DEPTH:
            raise InputError(f"the args of a metadata event nest {depth:,} levels deep (at most {MAX_META_DEPTH}).",
                             file=str(f.path), place=f"metadata event {printable(str(name))!r} of pid "
                                                     f"{printable(str(pid))}" + (f", tid {printable(str(tid))}"
                                                                                 if tid is not None else ""),
                             hint="the file was edited or corrupted; re-export it from the profiler.")


def names_from_rows(con: duckdb.DuckDBPyConnection, file_id: int) -> None:
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
