"""Chrome-trace events (trace_view.json, Kineto) → the ``event`` table and ProfilerStep#N → ``step``.

DuckDB's C++ JSON reader parses the event array straight into ``event`` (one streaming INSERT,
memory bounded by DuckDB's memory_limit), large array files as parallel slices. Process and
thread names from the metadata ("M") events are joined on in SQL. ``ts``/``dur`` are read as
text and converted to integer ns exactly (see :mod:`tracedb.timeconv`).
"""
from __future__ import annotations

import ctypes
import json
import re
import sys
from pathlib import Path

import duckdb

from ..errors import InputError
from ..timeconv import json_us_to_ns
from .jsonsource import SplitArray, split_parts

# args is read as VARCHAR: DuckDB hands the object over as its JSON text (measured: cheaper than
# reading JSON and casting).
READ_COLUMNS = ("{ph: 'VARCHAR', name: 'VARCHAR', cat: 'VARCHAR', pid: 'VARCHAR', tid: 'VARCHAR', "
                "ts: 'VARCHAR', dur: 'VARCHAR', id: 'VARCHAR', bp: 'VARCHAR', args: 'VARCHAR'}")
# largest single event (Call stack args can be large). DuckDB reserves twice this per reading
# thread (measured: 256 MiB made each thread allocate 512 MiB), so keep it moderate.
MAX_OBJECT = 32 << 20


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



NAMES_P = "_tracedb_process_names"
NAMES_T = "_tracedb_thread_names"
_PH_KEY = re.compile(rb'"ph"\s*:\s*\Z')   # "ph": right before a hit
_DECODER = json.JSONDecoder()
SCAN_CHUNK = 16 << 20


class SplitReadFailed(Exception):
    """Reading an array file in parallel slices failed (a cut inside an event, or a damaged
    file). DuckDB has aborted the transaction, so the caller re-runs the whole ingest reading
    every file in one piece; a damaged file then fails with its precise place."""


def scan_metadata(path: Path, start: int = 0) -> list[dict]:
    """The metadata ("ph": "M") events of an uncompressed trace file, found by a byte scan from
    byte ``start`` to the end.

    Only a few hundred events name processes and threads. The file is read in 16 MiB chunks
    (not a memory map: its pages would count as resident memory); the literal ``"M"`` (rare
    outside ph values) is searched with :func:`_find_all`, each hit must follow ``"ph":``, and
    the enclosing object is decoded (0.75 s per GB, against 1.65 s for a regex stopping at every
    ``"ph"``). Missed events (before ``start``, or an event cut by it) are caught afterwards
    (see :func:`insert_events`), so this is an optimisation, never the source of truth.
    """
    found, seen = [], set()
    back, ahead = 4096, 65536          # an M event starts ≤ 4 KiB before "ph" and is < 64 KiB long
    # one buffer for the whole scan: a fresh 16 MiB bytes object per chunk costs more in page
    # faults than the search itself (measured 0.6 s per GB)
    buf = bytearray(SCAN_CHUNK + back + ahead)
    view = memoryview(buf)
    with open(path, "rb") as f:
        f.seek(start)
        filled, base = 0, start        # buf[:filled] holds file bytes [base, base + filled)
        while True:
            got = f.readinto(view[filled:filled + SCAN_CHUNK])
            filled += got
            end = filled if not got else max(0, filled - ahead)
            for hit in _find_all(buf, b'"M"', end):
                key = _PH_KEY.search(buf, max(0, hit - 64), hit)
                start = buf.rfind(b"{", max(0, hit - back), hit) if key else -1
                if start >= 0 and base + start not in seen:
                    try:
                        ev, _ = _DECODER.raw_decode(buf[start:min(start + ahead, filled)].decode("utf-8", "replace"))
                    except ValueError:
                        ev = None
                    if isinstance(ev, dict) and ev.get("ph") == "M":
                        seen.add(base + start)
                        found.append(ev)
            if not got:
                view.release()
                return found
            keep = max(0, end - back)
            view[:filled - keep] = view[keep:filled]
            filled, base = filled - keep, base + keep


def _libc_memmem():
    try:
        fn = ctypes.CDLL(None).memmem
    except (AttributeError, OSError, TypeError):
        return None
    fn.restype = ctypes.c_void_p
    fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
    return fn


_MEMMEM = _libc_memmem() if sys.platform != "win32" else None


def _find_all(buf: bytearray, needle: bytes, end: int):
    """Offsets of ``needle`` in ``buf[:end]``. libc ``memmem`` where there is one: JSON is full
    of the quote character that ``bytes.find`` keys on, so it runs 3× slower here (measured 1.5
    against 0.35 s per GB for ``"M"``)."""
    if _MEMMEM is None or end <= 0:
        hit = buf.find(needle, 0, end)
        while hit != -1:
            yield hit
            hit = buf.find(needle, hit + len(needle), end)
        return
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    off = 0
    while off < end:
        r = _MEMMEM(base + off, end - off, needle, len(needle))
        if not r:
            return
        hit = r - base
        yield hit
        off = hit + len(needle)


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


def _text(v) -> str | None:
    """A pid/tid as DuckDB's JSON reader turns it into VARCHAR."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def insert_events(con: duckdb.DuckDBPyConnection, source: Path, read_path: str | None, run_id: int, rank: int,
                  file_id: int, base_ns: int = 0, *, split: bool = True, offset: int = 0,
                  span: tuple[int, int] | None = None, meta: list[dict] | None = None) -> int:
    """Parse a Chrome-trace event array and insert it into ``event`` in one streaming statement.

    ``read_path`` is the file itself (array files) or a FIFO carrying the traceEvents array of
    an object file. Process and thread names come from the metadata events: for an array file a
    byte scan finds them before the read (:func:`scan_metadata`), so the INSERT joins them on;
    otherwise, or when the scan missed some, they are set afterwards from the inserted rows.
    A large array file is parsed as parallel slices (:class:`SplitArray`) when ``split``;
    ``span`` (from :func:`~tracedb.ingest.jsonsource.object_span`) does the same for the
    traceEvents array inside an uncompressed object trace. ``meta``: the metadata events if the
    caller scanned the file already.

    Returns:
        number of events inserted.

    Raises:
        InputError: malformed or truncated JSON (the place in the message).
        SplitReadFailed: the parallel read failed; retry the ingest with ``split=False``.
    """
    scanned = span is not None or read_path == str(source)
    if not scanned:
        meta = []
    elif meta is None:
        meta = scan_metadata(source)
    _names_tables(con, meta)
    threads = int(con.execute("SELECT current_setting('threads')").fetchone()[0])
    parts = split_parts(source, threads) if (scanned and split) else 1
    sql = f"""
        INSERT INTO event
        SELECT ?, ?, ?, r.ph, r.name, r.cat, r.pid, r.tid, p.process_name, t.thread_name,
               {json_us_to_ns('r.ts')} + ?, {json_us_to_ns('r.dur')}, r.id, r.bp, r.args
        FROM read_json(?, format = 'array', columns = {READ_COLUMNS}, maximum_object_size = {MAX_OBJECT}) AS r
        LEFT JOIN {NAMES_P} AS p ON p.pid = r.pid
        LEFT JOIN {NAMES_T} AS t ON t.pid = r.pid AND t.tid = r.tid
    """
    if parts > 1:
        try:
            with SplitArray(source, parts, span) as sliced:
                n = con.execute(sql, [run_id, rank, file_id, base_ns, sliced.paths]).fetchone()[0]
        except duckdb.Error as e:
            raise SplitReadFailed(str(e)) from e
    elif span is not None:
        with SplitArray(source, 1, span) as whole:
            try:
                n = con.execute(sql, [run_id, rank, file_id, base_ns, whole.paths[0]]).fetchone()[0]
            except duckdb.Error as e:
                raise translate_read_error(e, str(source), offset) from e
    else:
        try:
            n = con.execute(sql, [run_id, rank, file_id, base_ns, read_path]).fetchone()[0]
        except duckdb.Error as e:
            raise translate_read_error(e, str(source), offset) from e
    named = con.execute("SELECT count(*) FROM event WHERE file_id = ? AND ph = 'M' "
                        "AND name IN ('process_name', 'thread_name')", [file_id]).fetchone()[0]
    if named != sum(1 for e in meta if e.get("name") in ("process_name", "thread_name")):
        _names_from_rows(con, file_id)
    return n


def _names_from_rows(con: duckdb.DuckDBPyConnection, file_id: int) -> None:
    """Resolve process/thread names from the metadata rows already in ``event`` (object traces,
    whose metadata may sit anywhere in a stream, and array files the byte scan missed)."""
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


def insert_steps(con: duckdb.DuckDBPyConnection, run_id: int, rank: int, file_id: int) -> int:
    """ProfilerStep#N host slices of one file → ``step`` rows (host window). Returns the
    rank's step count.

    A step row that has no host window yet (made from a kernel_details.csv ingested before
    the trace) gets this one; a step that has one keeps it. GPU copies of the step (cat
    gpu_user_annotation) are not host steps and are skipped.
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
        GROUP BY run_id, rank, step
        ON CONFLICT (run_id, rank, step) DO UPDATE
            SET host_start_ns = excluded.host_start_ns, host_end_ns = excluded.host_end_ns
            WHERE step.host_start_ns IS NULL
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
