"""step_trace_time.csv → ``profiler_step_trace`` (the profiler's own numbers, reference only).

Columns are matched by name (``Device_id`` and ``Preparing`` exist only in newer files). µs
values are converted to integer ns with an exact decimal parse.
"""
from __future__ import annotations

from pathlib import Path

import duckdb

from ...timeconv import int_text, us_text_to_ns
from ..sources.errors import translate_read_error
from ..sources.csvsource import READ_CSV, ident as _sql_ident, read_header, require_columns
from ..sources.paths import literal_path

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


def read(con: duckdb.DuckDBPyConnection, f) -> int:
    """Insert one step_trace_time.csv; returns rows inserted.

    Raises:
        InputError: empty file or a missing required column.
    """
    path, run_id, rank, file_id = f.path, f.run_id, f.rank, f.file_id
    header = read_header(path)
    require_columns(header, path, REQUIRED, "step_trace_time.csv")
    vals = [us_text_to_ns(_sql_ident(COLUMNS[c])) if COLUMNS[c] in header else "NULL" for c in COLUMNS]
    device = int_text(_sql_ident("Device_id")) if "Device_id" in header else "NULL"
    with literal_path(path) as src:
        try:
            con.execute(f"""
                INSERT INTO profiler_step_trace
                SELECT ?, ?, ?, {device}, {int_text(_sql_ident('Step'))}, {', '.join(vals)}
                FROM {READ_CSV}
            """, [run_id, rank, file_id, src])
        except duckdb.Error as e:
            raise translate_read_error(e, str(path)) from e
    return con.execute("SELECT count(*) FROM profiler_step_trace WHERE file_id = ?", [file_id]).fetchone()[0]
