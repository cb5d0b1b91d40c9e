"""step_trace_time.csv → ``profiler_step_trace`` (the profiler's own numbers, reference only).

Columns are matched by name (``Device_id`` and ``Preparing`` exist only in newer files). µs
values are converted to integer ns with an exact decimal parse.
"""
from __future__ import annotations

from pathlib import Path

import duckdb

from ..errors import InputError
from ..timeconv import int_text, us_text_to_ns
from .events import translate_read_error
from .kernel_details import _sql_ident, read_header

COLUMNS = {
    "computing_ns": "Computing",
    "communication_not_overlapped_ns": "Communication(Not Overlapped)",
    "overlapped_ns": "Overlapped",
    "communication_ns": "Communication",
    "free_ns": "Free",
    "stage_ns": "Stage",
    "bubble_ns": "Bubble",
    "communication_not_overlapped_exclude_receive_ns": "Communication(Not Overlapped and Exclude Receive)",
    "preparing_ns": "Preparing",
}
REQUIRED = ("Step", "Computing", "Communication(Not Overlapped)", "Free")


def ingest_step_trace_time(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int,
                           file_id: int) -> int:
    """Insert one step_trace_time.csv; returns rows inserted.

    Raises:
        InputError: empty file or a missing required column.
    """
    header = read_header(path)
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(repr(m) for m in missing)}.", file=str(path),
                         place="line 1", hint="is this a step_trace_time.csv written by torch_npu?")
    vals = [us_text_to_ns(_sql_ident(COLUMNS[c])) if COLUMNS[c] in header else "NULL" for c in COLUMNS]
    device = int_text(_sql_ident("Device_id")) if "Device_id" in header else "NULL"
    try:
        con.execute(f"""
            INSERT INTO profiler_step_trace
            SELECT ?, ?, ?, {device}, {int_text(_sql_ident('Step'))}, {', '.join(vals)}
            FROM read_csv(?, header = true, all_varchar = true)
        """, [run_id, rank, file_id, str(path)])
    except duckdb.Error as e:
        raise translate_read_error(e, str(path)) from e
    return con.execute("SELECT count(*) FROM profiler_step_trace WHERE file_id = ?", [file_id]).fetchone()[0]
