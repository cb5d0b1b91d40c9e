"""Memory CSVs → ``memory``: operator_memory.csv, memory_record.csv, npu_module_mem.csv (the
``[memory]`` events of Kineto traces are derived from ``event``: ``derive/memory_from_kineto.sql``).

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

from ...errors import InputError
from ...timeconv import clean_text, us_text_to_ns
from ..sources.errors import translate_read_error
from ..sources.csvsource import READ_CSV, first_bad_line, ident as _sql_ident, read_header, require_columns
from ..sources.paths import literal_path

MIB = 1024 * 1024
KIB = 1024
MINDSPORE_MB = 1000 * 1024      # MindSpore memory_record "MB" = KB / 1000


_COLUMNS = ("run_id, rank, file_id, kind, component, name, device, ts_ns, release_ts_ns, dur_ns, "
            "size_bytes, allocated_bytes, reserved_bytes, active_bytes, stream_ptr, active_release_ts_ns, "
            "active_dur_ns, release_allocated_bytes, release_reserved_bytes, release_active_bytes, addr")


def bytes_expr(expr: str, factor: int) -> str:
    """SQL: a decimal number of some unit (CSV text, maybe TAB-padded or N/A) × ``factor`` bytes →
    BIGINT, exact: DECIMAL(38, 18) arithmetic, rounded half away from zero; NULL for blanks/N/A."""
    t = clean_text(expr)
    return f"TRY_CAST(round(TRY_CAST({t} AS DECIMAL(38, 18)) * {factor}) AS BIGINT)"


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


def _col(header: list[str], name: str) -> str | None:
    return _sql_ident(name) if name in header else None


def _insert(con, path: Path, select: str, params: list, file_id: int, check: str, column: str) -> int:
    """Run the INSERT … SELECT … FROM read_csv, then reject the file if a required value is missing
    (``check`` is a SQL condition on the inserted rows; ``column`` names the CSV column)."""
    with literal_path(path) as src:
        try:
            con.execute(f"INSERT INTO memory ({_COLUMNS}) {select} FROM {READ_CSV}", params + [src])
        except duckdb.Error as e:
            raise translate_read_error(e, str(path)) from e
        n = con.execute("SELECT count(*) FROM memory WHERE file_id = ?", [file_id]).fetchone()[0]
        bad = con.execute(f"SELECT count(*) FROM memory WHERE file_id = ? AND ({check})", [file_id]).fetchone()[0]
        if bad:
            raise InputError(f"column {column!r} is empty or not a number.", file=str(path),
                             place=first_bad_line(con, src, _LINE_CHECKS[column]),
                             hint="the file may be truncated or edited.")
    return n


# per required column: SQL over the raw CSV row that is true when the cell is unusable
_LINE_CHECKS = {
    "Timestamp(us)": f"{us_text_to_ns(_sql_ident('Timestamp(us)'))} IS NULL",
    "Size(KB)": f"{bytes_expr(_sql_ident('Size(KB)'), KIB)} IS NULL",
}


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
    require_columns(header, path, ("Name", "Size(KB)", "Allocation Time(us)"), "operator_memory.csv")
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
    device = clean_text(_sql_ident("Device Type")) if "Device Type" in header else "NULL"
    stream = clean_text(_sql_ident("Stream Ptr")) if "Stream Ptr" in header else "NULL"
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
    require_columns(header, path, ("Component", "Timestamp(us)", "Total Reserved(MB)"), "memory_record.csv")
    factor = MINDSPORE_MB if is_mindspore(path, header) else MIB

    def mb(name):
        c = _col(header, name)
        return bytes_expr(c, factor) if c else "NULL"

    device = clean_text(_sql_ident("Device Type")) if "Device Type" in header else "NULL"
    stream = clean_text(_sql_ident("Stream Ptr")) if "Stream Ptr" in header else "NULL"
    select = f"""
        SELECT ?, ?, ?, 'record', {clean_text(_sql_ident('Component'))}, NULL, {device},
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
        require_columns(header, path, ("Component", "Timestamp(us)"), "npu_module_mem.csv")
    else:
        require_columns(header, path, ("Component", "Timestamp(us)", "Total Reserved(KB)"), "npu_module_mem.csv")
        reserved = bytes_expr(_sql_ident("Total Reserved(KB)"), KIB)
    device = next((clean_text(_sql_ident(c)) for c in ("Device", "Device Type") if c in header), None)
    if device is None and "Device_id" in header:
        device = f"'NPU:' || {clean_text(_sql_ident('Device_id'))}"
    select = f"""
        SELECT ?, ?, ?, 'module', {clean_text(_sql_ident('Component'))}, NULL, {device or 'NULL'},
               {us_text_to_ns(_sql_ident('Timestamp(us)'))}, NULL, NULL, NULL,
               NULL, {reserved}, NULL, NULL,
               NULL, NULL, NULL, NULL, NULL, NULL"""
    return _insert(con, path, select, [run_id, rank, file_id], file_id, "ts_ns IS NULL", "Timestamp(us)")


def _reader(ingest_one):
    return lambda con, f: ingest_one(con, f.path, f.run_id, f.rank, f.file_id)


READERS = {
    "operator_memory": _reader(ingest_operator_memory),
    "memory_record": _reader(ingest_memory_record),
    "npu_module_mem": _reader(ingest_npu_module_mem),
}
