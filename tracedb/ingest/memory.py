"""Memory inputs → ``memory``: operator_memory.csv, memory_record.csv, npu_module_mem.csv and the
``[memory]`` instant events of Kineto traces.

DuckDB's CSV reader parses each file (all columns as text); columns are matched by header name.
Units (formats.md §7, §0.4):

* ``Size(KB)``: KB = 1024 B (negative for CANN rows whose free only was captured).
* ``*(MB)`` totals: torch_npu MB = 1024² B. MindSpore ≥ 2.4 ``memory_record.csv`` writes
  KB ÷ 1000 as "MB", so its MB = 1 024 000 B (recognised by the ``*_ascend_ms`` rank folder,
  ``ms_version`` in profiler_info, or a header with ``Total Active(MB)`` but no ``Stream Ptr``).
* ``npu_module_mem.csv``: ``Total Reserved(MB)`` (torch_npu, 1024² B) or ``Total Reserved(KB)``
  (MindSpore copies CANN's KB file), read from the header.

Sizes are converted exactly: the text is parsed as DECIMAL(38, 18), multiplied by the unit in
bytes and rounded to an integer (10240.5 MB → 10 737 942 528 B). µs timestamps (with the
trailing TAB torch_npu writes) become integer ns through :mod:`tracedb.timeconv`.
"""
from __future__ import annotations

import json
from pathlib import Path

import duckdb

from ..errors import InputError
from ..timeconv import clean_text, us_text_to_ns
from .events import translate_read_error
from .kernel_details import _sql_ident, read_header

MIB = 1024 * 1024
KIB = 1024
MINDSPORE_MB = 1000 * 1024      # MindSpore memory_record "MB" = KB / 1000

# formats this module reads, file name inside ASCEND_PROFILER_OUTPUT -> format
FILES = {
    "operator_memory.csv": "operator_memory",
    "memory_record.csv": "memory_record",
    "npu_module_mem.csv": "npu_module_mem",
}

_SRC = ("read_csv(?, header = true, all_varchar = true, delim = ',', quote = '\"', escape = '\"', "
        "strict_mode = false, null_padding = true)")

_COLUMNS = ("run_id, rank, file_id, kind, component, name, device, ts_ns, release_ts_ns, dur_ns, "
            "size_bytes, allocated_bytes, reserved_bytes, active_bytes, stream_ptr, active_release_ts_ns, "
            "active_dur_ns, release_allocated_bytes, release_reserved_bytes, release_active_bytes, addr")


def bytes_expr(expr: str, factor: int) -> str:
    """SQL: a decimal number of some unit (CSV text, maybe TAB-padded or N/A) × ``factor`` bytes →
    BIGINT, exact: DECIMAL(38, 18) arithmetic, rounded half away from zero; NULL for blanks/N/A."""
    t = clean_text(expr)
    return f"TRY_CAST(round(TRY_CAST({t} AS DECIMAL(38, 18)) * {factor}) AS BIGINT)"


def _text(expr: str) -> str:
    return clean_text(expr)


def is_mindspore(path: Path, header: list[str]) -> bool:
    """Whether a memory CSV was written by MindSpore (its memory_record "MB" is 1 024 000 B)."""
    parent = path.parent
    rank_dir = parent.parent if parent.name == "ASCEND_PROFILER_OUTPUT" else parent
    if rank_dir.name.endswith("_ascend_ms"):
        return True
    if rank_dir.name.endswith("_ascend_pt"):
        return False
    for info in sorted(rank_dir.glob("profiler_info*.json")):
        try:
            data = json.loads(info.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            if "ms_version" in data:
                return True
            if "torch_npu_version" in data:
                return False
    return "Total Active(MB)" in header and "Stream Ptr" not in header


def _require(header: list[str], path: Path, required: tuple[str, ...], what: str) -> None:
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(repr(m) for m in missing)}; header has "
                         f"{len(header)} columns starting {', '.join(header[:4])}.",
                         file=str(path), place="line 1",
                         hint=f"is this a {what} written by torch_npu or MindSpore?")


def _col(header: list[str], name: str) -> str | None:
    return _sql_ident(name) if name in header else None


def _insert(con, path: Path, select: str, params: list, file_id: int, check: str, column: str) -> int:
    """Run the INSERT … SELECT … FROM read_csv, then reject the file if a required value is missing
    (``check`` is a SQL condition on the inserted rows; ``column`` names the CSV column)."""
    try:
        con.execute(f"INSERT INTO memory ({_COLUMNS}) {select} FROM {_SRC}", params + [str(path)])
    except duckdb.Error as e:
        raise translate_read_error(e, str(path)) from e
    n = con.execute("SELECT count(*) FROM memory WHERE file_id = ?", [file_id]).fetchone()[0]
    bad = con.execute(f"SELECT count(*) FROM memory WHERE file_id = ? AND ({check})", [file_id]).fetchone()[0]
    if bad:
        raise InputError(f"column {column!r} is empty or not a number.", file=str(path),
                         place=_first_bad_line(con, path, check_sql=_LINE_CHECKS[column]),
                         hint="the file may be truncated or edited.")
    return n


# per required column: SQL over the raw CSV row that is true when the cell is unusable
_LINE_CHECKS = {
    "Timestamp(us)": f"{us_text_to_ns(_sql_ident('Timestamp(us)'))} IS NULL",
    "Size(KB)": f"{bytes_expr(_sql_ident('Size(KB)'), KIB)} IS NULL",
}


def _first_bad_line(con, path: Path, check_sql: str) -> str | None:
    """'line N' of the first bad data row (slow path, errors only)."""
    try:
        row = con.cursor().execute(f"""
            SELECT line FROM (SELECT row_number() OVER () + 1 AS line, ({check_sql}) AS bad FROM {_SRC})
            WHERE bad ORDER BY line LIMIT 1
        """, [str(path)]).fetchone()
    except duckdb.Error:
        row = None
    return f"line {row[0]}" if row else None


def ingest_operator_memory(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int,
                           file_id: int) -> int:
    """operator_memory.csv (both header variants) → ``memory`` rows of kind ``operator``.

    One row per allocation. Empty or ``N/A`` release columns → NULL (still live at the end of the
    capture); ``cann::`` rows get component GE, other rows PTA (torch_npu) or MindSpore.

    Returns:
        rows inserted.

    Raises:
        InputError: empty file, missing Name / Size(KB) / Allocation Time(us) column, or a row
            whose Size(KB) is empty or not a number.
    """
    header = read_header(path)
    _require(header, path, ("Name", "Size(KB)", "Allocation Time(us)"), "operator_memory.csv")
    framework = "MindSpore" if is_mindspore(path, header) else "PTA"

    def us(name):
        c = _col(header, name)
        return us_text_to_ns(c) if c else "NULL"

    def mb(name):
        c = _col(header, name)
        return bytes_expr(c, MIB) if c else "NULL"

    name = f"nullif(trim(CAST({_sql_ident('Name')} AS VARCHAR), ' ' || chr(9) || chr(13)), '')"
    alloc, release = us("Allocation Time(us)"), us("Release Time(us)")
    dur = us("Duration(us)")
    if dur == "NULL":
        dur = f"({release}) - ({alloc})"
    device = _text(_sql_ident("Device Type")) if "Device Type" in header else "NULL"
    stream = _text(_sql_ident("Stream Ptr")) if "Stream Ptr" in header else "NULL"
    select = f"""
        SELECT ?, ?, ?, 'operator',
               CASE WHEN {name} LIKE 'cann::%' THEN 'GE' ELSE '{framework}' END,
               {name}, {device}, {alloc}, {release}, {dur},
               {bytes_expr(_sql_ident('Size(KB)'), KIB)},
               {mb('Allocation Total Allocated(MB)')}, {mb('Allocation Total Reserved(MB)')},
               {mb('Allocation Total Active(MB)')}, {stream},
               {us('Active Release Time(us)')}, {us('Active Duration(us)')},
               {mb('Release Total Allocated(MB)')}, {mb('Release Total Reserved(MB)')},
               {mb('Release Total Active(MB)')}, NULL"""
    return _insert(con, path, select, [run_id, rank, file_id], file_id, "size_bytes IS NULL", "Size(KB)")


def ingest_memory_record(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int,
                         file_id: int) -> int:
    """memory_record.csv → ``memory`` rows of kind ``record`` (every component: PTA, GE, PTA+GE,
    APP, WORKSPACE, MindSpore, …).

    Returns:
        rows inserted.

    Raises:
        InputError: empty file, missing Component / Timestamp(us) / Total Reserved(MB) column, or a
            row whose timestamp is empty or not a number.
    """
    header = read_header(path)
    _require(header, path, ("Component", "Timestamp(us)", "Total Reserved(MB)"), "memory_record.csv")
    factor = MINDSPORE_MB if is_mindspore(path, header) else MIB

    def mb(name):
        c = _col(header, name)
        return bytes_expr(c, factor) if c else "NULL"

    device = _text(_sql_ident("Device Type")) if "Device Type" in header else "NULL"
    stream = _text(_sql_ident("Stream Ptr")) if "Stream Ptr" in header else "NULL"
    select = f"""
        SELECT ?, ?, ?, 'record', {_text(_sql_ident('Component'))}, NULL, {device},
               {us_text_to_ns(_sql_ident('Timestamp(us)'))}, NULL, NULL, NULL,
               {mb('Total Allocated(MB)')}, {mb('Total Reserved(MB)')}, {mb('Total Active(MB)')}, {stream},
               NULL, NULL, NULL, NULL, NULL, NULL"""
    return _insert(con, path, select, [run_id, rank, file_id], file_id, "ts_ns IS NULL", "Timestamp(us)")


def ingest_npu_module_mem(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int,
                          file_id: int) -> int:
    """npu_module_mem.csv → ``memory`` rows of kind ``module`` (reserved bytes per CANN module).

    The unit comes from the header: ``Total Reserved(MB)`` (1024² B) or ``Total Reserved(KB)``
    (1024 B). CANN's "-1 KB" (only the release was seen) stays as -1024 B.

    Returns:
        rows inserted.

    Raises:
        InputError: empty file, missing Component / Timestamp(us) / Total Reserved column, or a
            row whose timestamp is empty or not a number.
    """
    header = read_header(path)
    if "Total Reserved(MB)" in header:
        reserved = bytes_expr(_sql_ident("Total Reserved(MB)"), MIB)
        _require(header, path, ("Component", "Timestamp(us)"), "npu_module_mem.csv")
    else:
        _require(header, path, ("Component", "Timestamp(us)", "Total Reserved(KB)"), "npu_module_mem.csv")
        reserved = bytes_expr(_sql_ident("Total Reserved(KB)"), KIB)
    device = next((_text(_sql_ident(c)) for c in ("Device", "Device Type") if c in header), None)
    if device is None and "Device_id" in header:
        device = f"'NPU:' || {_text(_sql_ident('Device_id'))}"
    select = f"""
        SELECT ?, ?, ?, 'module', {_text(_sql_ident('Component'))}, NULL, {device or 'NULL'},
               {us_text_to_ns(_sql_ident('Timestamp(us)'))}, NULL, NULL, NULL,
               NULL, {reserved}, NULL, NULL,
               NULL, NULL, NULL, NULL, NULL, NULL"""
    return _insert(con, path, select, [run_id, rank, file_id], file_id, "ts_ns IS NULL", "Timestamp(us)")


INGESTORS = {
    "operator_memory": ingest_operator_memory,
    "memory_record": ingest_memory_record,
    "npu_module_mem": ingest_npu_module_mem,
}

# c10::DeviceType numbers of the devices Kineto traces report memory for
_DEVICE_TYPES = {0: "CPU", 1: "CUDA", 12: "XPU", 13: "MPS", 20: "PrivateUse1"}


def insert_kineto_memory(con: duckdb.DuckDBPyConnection, file_id: int) -> int:
    """The ``[memory]`` instant events of one ingested Kineto trace (already in ``event``) →
    ``memory`` rows of kind ``event``, component ``PyTorch``.

    size_bytes = args Bytes (positive allocation, negative free); allocated/reserved bytes =
    Total Allocated / Total Reserved (NULL in old traces that lack them); device = ``CPU`` or
    ``CUDA:<Device Id>`` (from Device Type / Device Id); addr = Addr; name = the innermost
    ``cpu_op`` (old traces: ``Operator``) of the same thread that contains the event (NULL if
    none; the shortest wins).

    Returns:
        rows inserted.
    """
    # args fields, parsed once per event (m.a[i]; nine json_extract_string calls cost 0.4 s more
    # on 282 k events, measured): 1 Device Type, 2 Device Id, 3 Bytes, 4 Total Allocated,
    # 5 Total Reserved, 6 Addr
    fields = "['$.\"Device Type\"', '$.\"Device Id\"', '$.Bytes', '$.\"Total Allocated\"', '$.\"Total Reserved\"', '$.Addr']"
    dtype = "TRY_CAST(m.a[1] AS INTEGER)"
    names = " ".join(f"WHEN {k} THEN '{v}'" for k, v in _DEVICE_TYPES.items())
    device = (f"CASE WHEN {dtype} = 0 THEN 'CPU' WHEN {dtype} IS NULL THEN NULL "
              f"ELSE coalesce(CASE {dtype} {names} END, 'DeviceType' || {dtype}) || ':' || m.a[2] END")
    num = "TRY_CAST(m.a[{}] AS BIGINT)"
    # Owner op: "same thread and op start <= event <= op end". Every thread gets its own band of
    # one number line (thread x span + time since the trace start, HUGEINT: no overflow), so the condition becomes two
    # inequalities on one key, which DuckDB runs as an IEJoin (n log n + output) instead of a hash
    # join on the thread filtered pair by pair. Steps go through temporary tables: inside one
    # INSERT the planner picked a piecewise merge join (1.5 s instead of 20 ms on 13 k events).
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _memory_event AS
        WITH mem AS (
            SELECT run_id, rank, file_id, pid, tid, ts_ns, json_extract_string(args, {fields}) AS a,
                   row_number() OVER () AS seq
            FROM event
            WHERE file_id = ? AND name = '[memory]' AND ph IN ('i', 'I')
        ),
        threads AS (
            SELECT pid, tid, row_number() OVER (ORDER BY pid, tid) - 1 AS thread
            FROM (SELECT DISTINCT pid, tid FROM mem)
        ),
        frame AS (
            SELECT min(ts_ns) AS t0, max(ts_ns + coalesce(dur_ns, 0)) - min(ts_ns) + 1 AS span
            FROM event
            WHERE file_id = ? AND ts_ns IS NOT NULL
        )
        SELECT m.*, th.thread, f.t0, f.span, th.thread::HUGEINT * f.span + (m.ts_ns - f.t0) AS k
        FROM mem AS m
        JOIN threads AS th ON th.pid = m.pid AND th.tid = m.tid
        CROSS JOIN frame AS f
    """, [file_id, file_id])
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _memory_op AS
        WITH threads AS (SELECT DISTINCT pid, tid, thread, t0, span FROM _memory_event)
        SELECT e.name, e.dur_ns,
               th.thread::HUGEINT * th.span + (e.ts_ns - th.t0) AS k_start,
               th.thread::HUGEINT * th.span + (e.ts_ns + e.dur_ns - th.t0) AS k_end
        FROM event AS e
        JOIN threads AS th ON th.pid = e.pid AND th.tid = e.tid
        WHERE e.file_id = ? AND e.ph = 'X' AND lower(e.cat) IN ('cpu_op', 'operator') AND e.dur_ns >= 0
    """, [file_id])
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _memory_owner AS
        SELECT m.seq, arg_min(o.name, o.dur_ns) AS op_name
        FROM _memory_event AS m
        JOIN _memory_op AS o
            ON o.k_start <= m.k AND m.k <= o.k_end
        GROUP BY m.seq
    """)
    con.execute(f"""
        INSERT INTO memory ({_COLUMNS})
        SELECT m.run_id, m.rank, m.file_id, 'event', 'PyTorch', w.op_name, {device}, m.ts_ns,
               NULL, NULL, {num.format(3)}, {num.format(4)}, {num.format(5)}, NULL, NULL,
               NULL, NULL, NULL, NULL, NULL, m.a[6]
        FROM _memory_event AS m
        LEFT JOIN _memory_owner AS w
            ON w.seq = m.seq
        ORDER BY m.seq
    """)
    for t in ("_memory_event", "_memory_op", "_memory_owner"):
        con.execute(f"DROP TABLE {t}")
    return con.execute("SELECT count(*) FROM memory WHERE file_id = ? AND kind = 'event'", [file_id]).fetchone()[0]
