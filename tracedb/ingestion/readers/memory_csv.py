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

from ...engine import duckdb

from ...errors import InputError
from ...timeconv import clean_text, us_text_to_ns
from ..fieldmaps import missing, operator_memory as OPERATOR, memory_record as RECORD, npu_module_mem as MODULE
from ..sources.csvsource import (CsvFile, first_bad_line, ident as _sql_ident, ns_in_range, open_csv, read_header,
                                 run)

MIB = 1024 * 1024
KIB = 1024
MINDSPORE_MB = 1000 * 1024      # MindSpore memory_record "MB" = KB / 1000


_COLUMNS = ("run_id, rank, file_id, kind, component, name, device, ts_ns, release_ts_ns, dur_ns, "
            "size_bytes, allocated_bytes, reserved_bytes, active_bytes, stream_ptr, active_release_ts_ns, "
            "active_dur_ns, release_allocated_bytes, release_reserved_bytes, release_active_bytes, addr")


def bytes_expr(clean: str, factor: int) -> str:
    """SQL: a decimal number of some unit × ``factor`` bytes → BIGINT, exact: DECIMAL(38, 18)
    arithmetic, rounded half away from zero. ``clean``: the cell's text, trimmed and NULL for
    blanks/N/A (:meth:`tracedb.ingestion.sources.csvsource.CsvFile.clean`)."""
    return f"TRY_CAST(round(TRY_CAST({clean} AS DECIMAL(38, 18)) * {factor}) AS BIGINT)"


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
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            if "ms_version" in data:
                return True
            if "torch_npu_version" in data:
                return False
    return RECORD.FIELDS["active_bytes"].name in header and RECORD.FIELDS["stream_ptr"].name not in header


class _Columns:
    """SQL expressions for the fields of one memory CSV (NULL for absent columns); numeric cells
    that hold text raise an error naming the column (reported with its line)."""

    def __init__(self, csv: CsvFile, fields: dict, mb: int = MIB):
        self.csv, self.fields, self.mb = csv, fields, mb

    def __getitem__(self, column: str) -> str:
        fld = self.fields[column]
        name = fld.find(self.csv.header)
        if name is None:
            return "NULL"
        clean = self.csv.clean(name)        # trimmed and cleaned once per row
        if fld.kind == "text":
            return clean
        if fld.kind == "us":
            ns = us_text_to_ns(self.csv.cell(name), compact=self.csv.compact, trimmed=True)
            converted = ns_in_range(self.csv.value(ns))
        else:
            converted = bytes_expr(clean, {"kb": KIB, "mb": self.mb}[fld.kind])
        return self.csv.number(name, converted, clean)


def _insert(con, csv: CsvFile, select: str, params: list, file_id: int, required: dict[str, str]) -> int:
    """Run the INSERT … SELECT … FROM read_csv, then reject the file if a required value is empty
    (``required``: CSV column → SQL condition on the inserted rows that is true when it is)."""
    run(con, csv, f"INSERT INTO memory ({_COLUMNS}) {select} FROM {csv.sql()}", params + [csv.src])
    checks = list(required.items())
    n, *bad = con.execute("SELECT count(*)" + "".join(f", count(*) FILTER (WHERE {check})" for _, check in checks)
                          + " FROM memory WHERE file_id = ?", [file_id]).fetchone()
    for (column, _check), bad_rows in zip(checks, bad):
        if bad_rows:
            raw = clean_text(_sql_ident(column))
            raise InputError(f"column {column!r} is empty.", file=str(csv.path),
                             place=first_bad_line(con, csv, f"{raw} IS NULL"),
                             hint="the file may be truncated or edited.")
    return n


def ingest_operator_memory(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int,
                           file_id: int) -> int:
    """operator_memory.csv (both header variants) → ``memory`` rows of kind ``operator``.

    One row per allocation. Empty or ``N/A`` release columns → NULL (still live at the end of the
    capture); ``cann::`` rows get component GE, other rows PTA (torch_npu) or MindSpore.

    Returns:
        rows inserted.

    Raises:
        InputError: empty or truncated file, missing Name / Size(KB) / Allocation Time(us) column,
            a row whose Size(KB) is empty, or a numeric cell that is not a number (with its line).
    """
    with open_csv(path, "operator_memory.csv", lambda h: missing(OPERATOR.FIELDS, h)) as csv:
        framework = "MindSpore" if is_mindspore(path, csv.header) else "PTA"
        c = _Columns(csv, OPERATOR.FIELDS)
        name = f"nullif(trim(CAST({_sql_ident(OPERATOR.FIELDS['name'].find(csv.header))} AS VARCHAR), ' ' || chr(9) || chr(13)), '')"
        dur = c["dur_ns"]
        if dur == "NULL":
            dur = f"({c['release_ts_ns']}) - ({c['ts_ns']})"
        select = f"""
            SELECT ?, ?, ?, 'operator',
                   CASE WHEN {name} LIKE 'cann::%' THEN 'GE' ELSE '{framework}' END,
                   {name}, {c['device']}, {c['ts_ns']}, {c['release_ts_ns']}, {dur},
                   {c['size_bytes']}, {c['allocated_bytes']}, {c['reserved_bytes']},
                   {c['active_bytes']}, {c['stream_ptr']},
                   {c['active_release_ts_ns']}, {c['active_dur_ns']},
                   {c['release_allocated_bytes']}, {c['release_reserved_bytes']},
                   {c['release_active_bytes']}, NULL"""
        return _insert(con, csv, select, [run_id, rank, file_id], file_id,
                       {OPERATOR.FIELDS["size_bytes"].find(csv.header): "size_bytes IS NULL"})


def ingest_memory_record(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int,
                         file_id: int) -> int:
    """memory_record.csv → ``memory`` rows of kind ``record`` (every component: PTA, GE, PTA+GE,
    APP, WORKSPACE, MindSpore, …).

    Returns:
        rows inserted.

    Raises:
        InputError: empty or truncated file, missing Component / Timestamp(us) / Total Reserved(MB)
            column, a row whose timestamp is empty, or a numeric cell that is not a number.
    """
    with open_csv(path, "memory_record.csv", lambda h: missing(RECORD.FIELDS, h)) as csv:
        c = _Columns(csv, RECORD.FIELDS, MINDSPORE_MB if is_mindspore(path, csv.header) else MIB)
        select = f"""
            SELECT ?, ?, ?, 'record', {c['component']}, NULL, {c['device']},
                   {c['ts_ns']}, NULL, NULL, NULL,
                   {c['allocated_bytes']}, {c['reserved_bytes']}, {c['active_bytes']}, {c['stream_ptr']},
                   NULL, NULL, NULL, NULL, NULL, NULL"""
        return _insert(con, csv, select, [run_id, rank, file_id], file_id,
                       {RECORD.FIELDS["ts_ns"].find(csv.header): "ts_ns IS NULL"})


def ingest_npu_module_mem(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int,
                          file_id: int) -> int:
    """npu_module_mem.csv → ``memory`` rows of kind ``module`` (reserved bytes per CANN module).

    The unit comes from the header: ``Total Reserved(MB)`` (1024² B) or ``Total Reserved(KB)``
    (1024 B). CANN's "-1 KB" (only the release was seen) stays as -1024 B.

    Returns:
        rows inserted.

    Raises:
        InputError: empty or truncated file, missing Component / Timestamp(us) / Total Reserved
            column, a row whose timestamp is empty, or a numeric cell that is not a number.
    """
    header = read_header(path)
    reserved = MODULE.RESERVED_MB if MODULE.RESERVED_MB.find(header) else MODULE.RESERVED_KB
    fields = {**MODULE.FIELDS, "reserved_bytes": reserved._replace(required=True)}
    with open_csv(path, "npu_module_mem.csv", lambda h: missing(fields, h)) as csv:
        c = _Columns(csv, fields)
        device = c["device"]
        if device == "NULL" and c["device_id"] != "NULL":
            device = f"'NPU:' || {clean_text(_sql_ident(MODULE.FIELDS['device_id'].find(csv.header)))}"
        select = f"""
            SELECT ?, ?, ?, 'module', {c['component']}, NULL, {device},
                   {c['ts_ns']}, NULL, NULL, NULL,
                   NULL, {c['reserved_bytes']}, NULL, NULL,
                   NULL, NULL, NULL, NULL, NULL, NULL"""
        return _insert(con, csv, select, [run_id, rank, file_id], file_id,
                       {MODULE.FIELDS["ts_ns"].find(csv.header): "ts_ns IS NULL"})


def _reader(ingest_one):
    return lambda con, f: ingest_one(con, f.path, f.run_id, f.rank, f.file_id)


READERS = {
    "operator_memory": _reader(ingest_operator_memory),
    "memory_record": _reader(ingest_memory_record),
    "npu_module_mem": _reader(ingest_npu_module_mem),
}
