"""MindSpore ``step_trace_raw_{rank}_detail_time.csv`` → ``step_trace_raw_row`` (start/end/fp/bp
points x 10 ns) and one communication row of ``kernel`` per (step, comm op column triple)
(formats.md §5). Times count device-counter ticks of 10 ns (the clock of the HCCL .trace
files, not the epoch). The step table takes its device windows from these rows (derive step).
"""
from __future__ import annotations

from pathlib import Path

import duckdb

from ...errors import InputError
from ...timeconv import clean_text, json_us_to_ns
from ..sources.csvsource import READ_CSV, ident as _sql_ident, read_header, require_columns
from ..sources.errors import translate_read_error
from ..sources.paths import literal_path

# a real step row: step_num all digits and not 0 (the last row is the average: '-', or '0' in old files)
STEP_ROW = "regexp_full_match(trim(step_num), '[0-9]+') AND TRY_CAST(trim(step_num) AS INTEGER) > 0"


def _ticks(col: str) -> str:
    """SQL: a 10 ns tick count (text) → BIGINT ns, exact."""
    return f"(TRY_CAST({clean_text(_sql_ident(col))} AS BIGINT) * 10)"


def comm_op_fields(header: list[str]) -> list[str]:
    """The comm-op column triples ``{f}``, ``{f}_start_point``, ``{f}_end_point``, matched by
    suffix (both orders occur), in header order."""
    present = set(header)
    return [h[: -len("_start_point")] for h in header
            if h.endswith("_start_point") and h[: -len("_start_point")] + "_end_point" in present]


def read(con: duckdb.DuckDBPyConnection, f) -> int:
    """One step_trace_raw_{rank}_detail_time.csv → step_trace_raw_row and communication kernel
    rows; returns the number of steps.

    Raises:
        InputError: empty file, missing step_num / start_point / end_point, or a step row whose
            points are not integers (the message gives its line).
    """
    path = f.path
    header = read_header(path)
    require_columns(header, path, ("step_num", "start_point", "end_point"), "MindSpore step_trace_raw_{rank}_detail_time.csv")
    fp = _ticks("fp_point") if "fp_point" in header else "NULL"
    bp = _ticks("bp_point") if "bp_point" in header else "NULL"
    ids = {"run_id": f.run_id, "rank": f.rank, "file_id": f.file_id}
    src = READ_CSV.replace("?", "$path")
    with literal_path(path) as ids["path"]:
        try:
            bad = con.execute(f"""
                SELECT line FROM (SELECT row_number() OVER () + 1 AS line, * FROM {src})
                WHERE {STEP_ROW} AND ({_ticks('start_point')} IS NULL OR {_ticks('end_point')} IS NULL)
                ORDER BY line LIMIT 1""", {"path": ids["path"]}).fetchone()
            if bad:
                raise InputError("start_point or end_point is empty or not an integer.", file=str(path),
                                 place=f"line {bad[0]}", hint="the file may be truncated or edited.")
            n = con.execute(f"""
                INSERT INTO step_trace_raw_row BY NAME
                SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id,
                       TRY_CAST(trim(step_num) AS INTEGER) AS step, {_ticks('start_point')} AS start_ns,
                       {_ticks('end_point')} AS end_ns, {fp} AS fp_ns, {bp} AS bp_ns
                FROM {src} WHERE {STEP_ROW}
            """, ids).fetchone()[0]
            fields = comm_op_fields(header)
            if fields:
                _comm_kernels(con, fields, src, ids)
        except duckdb.Error as e:
            raise translate_read_error(e, str(path)) from e
    return n


def _comm_kernels(con: duckdb.DuckDBPyConnection, fields: list[str], src: str, ids: dict) -> None:
    """One communication kernel per (step, comm op column triple), numbered in file order."""
    # one scan: each row becomes a list of (name, start, end) structs, unnested
    structs = ", ".join(
        "{'n': '" + f.replace("'", "''") + "', 's': " + _sql_ident(f + "_start_point")
        + ", 'e': " + _sql_ident(f + "_end_point") + "}" for f in fields)
    tick = lambda x: f"(TRY_CAST({clean_text(x)} AS BIGINT) * 10)"   # noqa: E731
    con.execute(f"""
        INSERT INTO kernel BY NAME
        WITH ops AS (
            SELECT TRY_CAST(trim(step_num) AS INTEGER) AS step, unnest([{structs}]) AS o
            FROM {src} WHERE {STEP_ROW}
        ),
        vals AS (SELECT step, o.n AS name, {tick('o.s')} AS ts_ns, {tick('o.e')} - {tick('o.s')} AS dur_ns FROM ops)
        SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id,
               row_number() OVER () AS kernel_id, step, name,
               coalesce(nullif(regexp_extract(name, '^stream_\\d+_\\d+_([A-Za-z]+)', 1), ''), name) AS op_type,
               ts_ns, dur_ns, true AS is_communication, 'step_trace_raw' AS source
        FROM vals
        WHERE ts_ns > 0 AND dur_ns >= 0
    """, ids)
