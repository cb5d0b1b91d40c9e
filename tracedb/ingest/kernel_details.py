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
    src = ("read_csv(?, header = true, all_varchar = true, quote = '\"', escape = '\"', "
           "strict_mode = false, null_padding = true)")
    next_id = con.execute("SELECT coalesce(max(kernel_id), 0) FROM kernel WHERE run_id = ? AND rank = ?",
                          [run_id, rank]).fetchone()[0]
    try:
        # one pass: only the mapped columns are read. kernel_id is numbered afterwards from the
        # rowid, which follows insertion = file order (row_number() OVER () would run the whole
        # insert on one thread: 1.6 s more per 100 MB, measured).
        con.execute(f"""
            INSERT INTO kernel
            SELECT ?, ?, ?, 0,
                   {e['step']}, {e['name']}, {e['op_type']}, {e['accelerator_core']}, NULL,
                   {e['device_id']}, nullif({e['stream_id']}, 'N/A'),
                   {e['ts_ns']}, {e['dur_ns']}, {e['wait_ns']},
                   (upper(coalesce({e['accelerator_core']}, '')) IN ({cores})
                    OR lower({e['name']}) LIKE 'hcom\\_%' ESCAPE '\\'),
                   NULL, {e['input_shapes']}, {e['input_dtypes']}, {e['output_shapes']}, {e['block_dim']},
                   'kernel_details'
            FROM {src}
        """, [run_id, rank, file_id, str(path)])
        con.execute("UPDATE kernel SET kernel_id = ? + rowid - (SELECT min(rowid) FROM kernel WHERE file_id = ?) + 1 "
                    "WHERE file_id = ?", [next_id, file_id, file_id])
    except duckdb.ConstraintException as err:
        # NOT NULL on ts_ns/dur_ns: find the first offending line for the message
        raise _first_bad_line(con, path, e, src) from err
    except duckdb.Error as err:
        raise translate_read_error(err, str(path)) from err
    bad = con.execute("""
        SELECT kernel_id - ? + 1, dur_ns < 0, name IS NULL FROM kernel
        WHERE file_id = ? AND (dur_ns < 0 OR name IS NULL) ORDER BY kernel_id LIMIT 1
    """, [next_id, file_id]).fetchone()
    if bad:
        if bad[1]:
            raise InputError("column 'Duration(us)' is negative.", file=str(path), place=f"line {bad[0]}",
                             hint="a kernel cannot take negative time; the file was edited or corrupted.")
        raise InputError("column 'Name' is empty.", file=str(path), place=f"line {bad[0]}",
                         hint="the file may be truncated or edited.")
    n = con.execute("SELECT count(*) FROM kernel WHERE file_id = ?", [file_id]).fetchone()[0]
    return n, has_step


def _first_bad_line(con, path: Path, e: dict, src: str) -> InputError:
    """The first data line whose start or duration is empty or not a number (slow path, errors only).
    Runs on a separate cursor: the failed INSERT has aborted the ingest's transaction."""
    try:
        row = con.cursor().execute(f"""
            SELECT line, ts IS NULL FROM (
                SELECT row_number() OVER () + 1 AS line, {e['ts_ns']} AS ts, {e['dur_ns']} AS dur FROM {src})
            WHERE ts IS NULL OR dur IS NULL ORDER BY line LIMIT 1
        """, [str(path)]).fetchone()
    except duckdb.Error:
        row = None
    if row is None:
        return InputError("a row has an empty or non-numeric start time or duration.", file=str(path))
    col = "Start Time(us)" if row[1] else "Duration(us)"
    return InputError(f"column {col!r} is empty or not a number.", file=str(path), place=f"line {row[0]}",
                      hint="the file may be truncated or edited.")
