"""Memory: memory_record.csv, operator_memory.csv, npu_module_mem.csv and Kineto ``[memory]``
events → the ``memory`` table (sizes in bytes, times in integer ns).

Units (formats.md §7): torch_npu MB = 1024² B and KB = 1024 B; MindSpore ≥ 2.4 memory_record /
operator_memory "MB" = KB ÷ 1000 = 1 024 000 B (recognised by an ``*_ascend_ms`` rank folder, or
a memory_record.csv with ``Total Active(MB)`` but no ``Stream Ptr``); npu_module_mem.csv says MB
or KB in its header. Sizes are multiplied exactly (DECIMAL with 12 decimals: MB values are KB ÷
1024 and carry up to 10) and rounded to whole bytes. DuckDB's CSV reader parses the files.
"""
from __future__ import annotations

from pathlib import Path

import duckdb

from ..errors import InputError
from ..timeconv import clean_text, us_text_to_ns
from .events import translate_read_error
from .kernel_details import _sql_ident, read_header

MIB = 1024 * 1024
MINDSPORE_MB = 1024 * 1000
_CSV = ("read_csv(?, header = true, all_varchar = true, quote = '\"', escape = '\"', strict_mode = false, "
        "null_padding = true)")


def _bytes(col: str | None, factor: int) -> str:
    if col is None:
        return "NULL"
    t = clean_text(_sql_ident(col))
    return f"TRY_CAST(round(TRY_CAST({t} AS DECIMAL(38, 12)) * {factor}) AS BIGINT)"


def _text(col: str | None) -> str:
    return "NULL" if col is None else clean_text(_sql_ident(col))


def _ts(col: str | None) -> str:
    return "NULL" if col is None else us_text_to_ns(_sql_ident(col))


def _require(header: list[str], path: Path, *cols: str, what: str) -> None:
    missing = [c for c in cols if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(repr(m) for m in missing)}.", file=str(path),
                         place="line 1", hint=f"is this a {what} written by torch_npu or MindSpore?")


def is_mindspore_memory(header: list[str], rank_dir: Path | None) -> bool:
    """MindSpore's memory CSVs use MB = 1 024 000 B."""
    if rank_dir is not None and rank_dir.name.endswith("_ascend_ms"):
        return True
    return "Total Active(MB)" in header and "Stream Ptr" not in header


def _insert(con, path: Path, select: str, params: list, check_col: str, label: str, file_id: int) -> int:
    try:
        con.execute(f"INSERT INTO memory {select}", params)
    except duckdb.Error as e:
        raise translate_read_error(e, str(path)) from e
    bad = con.execute(f"SELECT count(*) FROM memory WHERE file_id = ? AND {check_col} IS NULL", [file_id]).fetchone()[0]
    if bad:
        line = con.cursor().execute(f"""
            SELECT line FROM (SELECT row_number() OVER () + 1 AS line, {us_text_to_ns(_sql_ident(label))} AS v
                              FROM {_CSV}) WHERE v IS NULL ORDER BY line LIMIT 1""", [str(path)]).fetchone()
        raise InputError(f"column {label!r} is empty or not a number.", file=str(path),
                         place=f"line {line[0]}" if line else None, hint="the file may be truncated or edited.")
    return con.execute("SELECT count(*) FROM memory WHERE file_id = ?", [file_id]).fetchone()[0]


def ingest_memory_record(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int, file_id: int,
                         rank_dir: Path | None = None) -> int:
    """memory_record.csv → memory rows of kind 'record'; returns rows.

    Raises:
        InputError: empty file, missing Component / Timestamp(us) / Total Reserved(MB), or a row
            whose timestamp is not a number.
    """
    h = read_header(path)
    _require(h, path, "Component", "Timestamp(us)", "Total Reserved(MB)", what="memory_record.csv")
    mb = MINDSPORE_MB if is_mindspore_memory(h, rank_dir) else MIB
    col = lambda c: c if c in h else None   # noqa: E731
    select = f"""
        SELECT ?, ?, ?, 'record', {_text('Component')}, NULL, {_text(col('Device Type'))},
               {_ts('Timestamp(us)')}, NULL, NULL, NULL,
               {_bytes(col('Total Allocated(MB)'), mb)}, {_bytes('Total Reserved(MB)', mb)},
               {_bytes(col('Total Active(MB)'), mb)}, {_text(col('Stream Ptr'))}
        FROM {_CSV}"""
    return _insert(con, path, select, [run_id, rank, file_id, str(path)], "ts_ns", "Timestamp(us)", file_id)


def ingest_operator_memory(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int, file_id: int,
                           rank_dir: Path | None = None) -> int:
    """operator_memory.csv (both header generations) → memory rows of kind 'operator'.

    Allocation columns may be empty (allocated before the capture: ts_ns NULL) and release
    columns too (still live at the end: release_ts_ns NULL); CANN rows with only the free
    captured have a negative size.

    Raises:
        InputError: empty file or missing Name / Size(KB).
    """
    h = read_header(path)
    _require(h, path, "Name", "Size(KB)", what="operator_memory.csv")
    mb = MINDSPORE_MB if is_mindspore_memory(h, rank_dir) else MIB
    col = lambda c: c if c in h else None   # noqa: E731
    select = f"""
        SELECT ?, ?, ?, 'operator', NULL, {_text('Name')}, {_text(col('Device Type'))},
               {_ts(col('Allocation Time(us)'))}, {_ts(col('Release Time(us)'))}, {_ts(col('Duration(us)'))},
               {_bytes('Size(KB)', 1024)},
               {_bytes(col('Allocation Total Allocated(MB)'), mb)}, {_bytes(col('Allocation Total Reserved(MB)'), mb)},
               {_bytes(col('Allocation Total Active(MB)'), mb)}, {_text(col('Stream Ptr'))}
        FROM {_CSV}"""
    return _insert(con, path, select, [run_id, rank, file_id, str(path)], "size_bytes", "Size(KB)", file_id)


def ingest_npu_module_mem(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int, file_id: int) -> int:
    """npu_module_mem.csv → memory rows of kind 'module' (reserved bytes per CANN component).

    Raises:
        InputError: empty file, or no Component / Timestamp(us) / Total Reserved(MB|KB) column.
    """
    h = read_header(path)
    unit_col = "Total Reserved(MB)" if "Total Reserved(MB)" in h else "Total Reserved(KB)"
    _require(h, path, "Component", "Timestamp(us)", unit_col, what="npu_module_mem.csv")
    factor = MIB if unit_col.endswith("(MB)") else 1024
    dev = "Device" if "Device" in h else None
    select = f"""
        SELECT ?, ?, ?, 'module', {_text('Component')}, NULL, {_text(dev)},
               {_ts('Timestamp(us)')}, NULL, NULL, NULL, NULL, {_bytes(unit_col, factor)}, NULL, NULL
        FROM {_CSV}"""
    return _insert(con, path, select, [run_id, rank, file_id, str(path)], "ts_ns", "Timestamp(us)", file_id)


def insert_kineto_memory(con: duckdb.DuckDBPyConnection, run_id: int, rank: int, file_id: int) -> int:
    """Kineto ``[memory]`` instant events of one ingested trace → memory rows of kind 'event'.

    ``Bytes`` > 0 is an allocation, < 0 a free; totals are absent in 2021-era traces (NULL).
    component 'PyTorch' (the caching allocator); device 'CPU' or 'cuda:<Device Id>' (Device Type
    1; other types as 'type<N>:<id>').
    """
    arg = lambda k: f"json_extract_string(args, '$.\"{k}\"')"   # noqa: E731
    con.execute(f"""
        INSERT INTO memory
        SELECT ?, ?, ?, 'event', 'PyTorch', NULL,
               CASE TRY_CAST({arg('Device Type')} AS INTEGER)
                    WHEN 0 THEN 'CPU'
                    WHEN 1 THEN 'cuda:' || {arg('Device Id')}
                    ELSE 'type' || coalesce({arg('Device Type')}, '?') || ':' || coalesce({arg('Device Id')}, '?') END,
               ts_ns, NULL, NULL,
               TRY_CAST({arg('Bytes')} AS BIGINT),
               TRY_CAST({arg('Total Allocated')} AS BIGINT),
               TRY_CAST({arg('Total Reserved')} AS BIGINT),
               NULL, NULL
        FROM event
        WHERE file_id = ? AND name = '[memory]' AND ph IN ('i', 'I')
    """, [run_id, rank, file_id, file_id])
    return con.execute("SELECT count(*) FROM memory WHERE file_id = ? AND kind = 'event'", [file_id]).fetchone()[0]
