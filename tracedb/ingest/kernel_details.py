"""kernel_details.csv (every header variant) → ``kernel``.

DuckDB's CSV reader parses the file (all columns as text); columns are matched by header
name through :mod:`tracedb.ingest.fieldmaps.kernel_details`. Start times carry a trailing TAB
and are parsed exactly to integer ns; shapes lose their literal quotes.
"""
from __future__ import annotations

import csv
from pathlib import Path

import duckdb

from ..errors import InputError
from ..timeconv import clean_text, int_text, us_text_to_ns
from .events import translate_read_error
from .fieldmaps.kernel_details import COMMUNICATION_CORES, FIELDS, REQUIRED


def read_header(path: Path) -> list[str]:
    """The CSV header cells, BOM and blanks stripped.

    Raises:
        InputError: empty file or unreadable.
    """
    try:
        with open(path, newline="", encoding="utf-8-sig", errors="replace") as f:
            row = next(csv.reader(f), None)
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror}", file=str(path)) from e
    if not row or not any(c.strip() for c in row):
        raise InputError("file is empty (no header line).", file=str(path), place="line 1")
    return [c.strip() for c in row]


def _sql_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def column_exprs(header: list[str], path: Path, required=REQUIRED) -> tuple[dict[str, str], bool]:
    """SQL expression per kernel column from the header; second value: whether a step column exists."""
    present = set(header)
    exprs = {}
    for col, (names, kind) in FIELDS.items():
        src = next((n for n in names if n in present), None)
        if src is None:
            exprs[col] = "NULL"
            continue
        q = _sql_ident(src)
        if kind == "us":
            exprs[col] = us_text_to_ns(q)
        elif kind == "int":
            exprs[col] = int_text(q)
        elif kind == "shape":
            exprs[col] = f"nullif(trim(replace({clean_text(q)}, '\"', '')), '')"
        else:
            exprs[col] = f"trim(CAST({q} AS VARCHAR), ' ' || chr(9) || chr(13))"
    missing = [FIELDS[c][0][0] for c in required if exprs[c] == "NULL"]
    if missing:
        raise InputError(f"missing column(s) {', '.join(repr(m) for m in missing)}; header has "
                         f"{len(header)} columns starting {', '.join(header[:4])}.",
                         file=str(path), place="line 1",
                         hint="is this a kernel_details.csv written by torch_npu or MindSpore?")
    return exprs, exprs["step"] != "NULL"


def ingest_kernel_details(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int,
                          file_id: int) -> tuple[int, bool]:
    """Insert one kernel_details.csv into ``kernel``.

    Returns:
        (rows inserted, whether the file had a step column).

    Raises:
        InputError: empty file, missing required column, unparsable CSV, or a row whose start
            time or duration is not a number (the message gives its line).
    """
    header = read_header(path)
    e, has_step = column_exprs(header, path)
    cores = ", ".join(f"'{c}'" for c in COMMUNICATION_CORES)
    src = (f"read_csv(?, header = true, all_varchar = true, quote = '\"', escape = '\"', "
           f"strict_mode = false, null_padding = true)")
    try:
        con.execute(f"DROP TABLE IF EXISTS _tracedb_kd")
        con.execute(f"CREATE TEMP TABLE _tracedb_kd AS SELECT row_number() OVER () AS line_no, * FROM {src}",
                    [str(path)])
    except duckdb.Error as err:
        raise translate_read_error(err, str(path)) from err
    bad = con.execute(f"""
        SELECT line_no + 1, {e['ts_ns']} IS NULL, {e['dur_ns']} IS NULL, {e['dur_ns']} < 0 FROM _tracedb_kd
        WHERE {e['ts_ns']} IS NULL OR {e['dur_ns']} IS NULL OR {e['name']} IS NULL OR {e['dur_ns']} < 0
        ORDER BY line_no LIMIT 1
    """).fetchone()
    if bad:
        if bad[3]:
            raise InputError("column 'Duration(us)' is negative.", file=str(path), place=f"line {bad[0]}",
                             hint="a kernel cannot take negative time; the file was edited or corrupted.")
        col = "Start Time(us)" if bad[1] else ("Duration(us)" if bad[2] else "Name")
        raise InputError(f"column {col!r} is empty or not a number.", file=str(path),
                         place=f"line {bad[0]}", hint="the file may be truncated or edited.")
    next_id = con.execute("SELECT coalesce(max(kernel_id), 0) FROM kernel WHERE run_id = ? AND rank = ?",
                          [run_id, rank]).fetchone()[0]
    con.execute(f"""
        INSERT INTO kernel
        SELECT ?, ?, ?, ? + line_no,
               {e['step']}, {e['name']}, {e['op_type']}, {e['accelerator_core']}, NULL,
               {e['device_id']}, nullif({e['stream_id']}, 'N/A'),
               {e['ts_ns']}, {e['dur_ns']}, {e['wait_ns']},
               (upper(coalesce({e['accelerator_core']}, '')) IN ({cores})
                OR lower({e['name']}) LIKE 'hcom\\_%' ESCAPE '\\'),
               NULL, {e['input_shapes']}, {e['input_dtypes']}, {e['output_shapes']}, {e['block_dim']},
               'kernel_details'
        FROM _tracedb_kd
    """, [run_id, rank, file_id, next_id])
    n = con.execute("SELECT count(*) FROM _tracedb_kd").fetchone()[0]
    con.execute("DROP TABLE _tracedb_kd")
    return n, has_step
