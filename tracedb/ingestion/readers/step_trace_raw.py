"""MindSpore ``step_trace_raw_{rank}_detail_time.csv`` → ``step_trace_raw_row`` (start/end/fp/bp
points x 10 ns) and one communication row of ``kernel`` per (step, comm op column triple)
(formats.md §5). Times count device-counter ticks of 10 ns (the clock of the HCCL .trace
files, not the epoch). The step table takes its device windows from these rows (derive step).
Column names come from :mod:`tracedb.ingestion.fieldmaps.step_trace_raw`.
"""
from __future__ import annotations

from ...engine import duckdb

from ...errors import InputError
from ...timeconv import clean_text
from ..fieldmaps import missing
from ..fieldmaps.step_trace_raw import COMM_END_SUFFIX, COMM_START_SUFFIX, FIELDS
from ..sources.csvsource import CsvFile, ident as _sql_ident, ns_in_range, open_csv, run
from ..sources.errors import printable

_STEP = _sql_ident(FIELDS["step"].name)
# a real step row: step_num all digits and not 0 (the last row is the average: '-', or '0' in old files)
STEP_ROW = f"regexp_full_match(trim({_STEP}), '0*[1-9][0-9]*')"


def check_steps(con: duckdb.DuckDBPyConnection, csv: CsvFile, src: str, params) -> None:
    """Refuse a row whose step_num is neither a step number (a positive integer) nor the
    average row's '-' (or '0' in old files): such a row would be skipped as the average row,
    silently. ``src``: the read_csv call of ``csv`` with its path bound by ``params``."""
    bad = run(con, csv, f"""
        SELECT line, {_STEP} FROM (SELECT row_number() OVER () + 1 AS line, * FROM {src})
        WHERE NOT ({STEP_ROW} OR coalesce(trim({_STEP}), '') IN ('-', '0'))
        ORDER BY line LIMIT 1""", params).fetchone()
    if bad:
        raise InputError(f"column {FIELDS['step'].name!r} holds {printable(str(bad[1] or ''))!r}, not a step number "
                         "(a positive integer, or '-' on the average row).", file=str(csv.path),
                         place=f"line {bad[0]}", hint="the file was edited or corrupted; re-export it.")


def _ticks_sql(col: str) -> str:
    """SQL: a 10 ns tick count (text) → BIGINT ns, exact; NULL for blanks, text and overflow."""
    return ns_in_range(f"TRY_CAST(TRY_CAST({clean_text(col)} AS BIGINT)::HUGEINT * 10 AS BIGINT)")


def _ticks(csv: CsvFile, name: str) -> str:
    """SQL: the tick cell ``name`` of a step row in ns; text in it → error with the line."""
    q = _sql_ident(name)
    return csv.number(name, _ticks_sql(q), f"CASE WHEN {STEP_ROW} THEN {clean_text(q)} END")


def _step(csv: CsvFile) -> str:
    """SQL: the step number of a step row (a number beyond INTEGER → error with the line)."""
    return csv.number(FIELDS["step"].name, f"TRY_CAST(trim({_STEP}) AS INTEGER)",
                      f"CASE WHEN {STEP_ROW} THEN trim({_STEP}) END")


def comm_op_fields(header: list[str]) -> list[str]:
    """The comm-op column triples ``{f}``, ``{f}_start_point``, ``{f}_end_point``, matched by
    suffix (both orders occur), in header order."""
    present = set(header)
    return [h[: -len(COMM_START_SUFFIX)] for h in header
            if h.endswith(COMM_START_SUFFIX) and h[: -len(COMM_START_SUFFIX)] + COMM_END_SUFFIX in present]


def read(con: duckdb.DuckDBPyConnection, f) -> int:
    """One step_trace_raw_{rank}_detail_time.csv → step_trace_raw_row and communication kernel
    rows; returns the number of steps.

    Raises:
        InputError: empty or truncated file, missing step_num / start_point / end_point, or a step
            row whose points are not integers (the message gives its line).
    """
    with open_csv(f.path, "MindSpore step_trace_raw_{rank}_detail_time.csv", lambda h: missing(FIELDS, h)) as csv:
        ids = {"run_id": f.run_id, "rank": f.rank, "file_id": f.file_id, "path": csv.src}
        src = csv.sql("$path")
        check_steps(con, csv, src, {"path": csv.src})
        start, end = FIELDS["start_ns"].name, FIELDS["end_ns"].name
        bad = run(con, csv, f"""
            SELECT line FROM (SELECT row_number() OVER () + 1 AS line, * FROM {src})
            WHERE {STEP_ROW} AND ({_ticks_sql(_sql_ident(start))} IS NULL OR {_ticks_sql(_sql_ident(end))} IS NULL)
            ORDER BY line LIMIT 1""", {"path": csv.src}).fetchone()
        if bad:
            raise InputError(f"{start} or {end} is empty or not an integer.", file=str(f.path),
                             place=f"line {bad[0]}", hint="the file may be truncated or edited.")
        points = {col: _ticks(csv, fld.name) if csv.has(fld.name) else "NULL"
                  for col, fld in FIELDS.items() if fld.kind == "ticks"}
        n = run(con, csv, f"""
            INSERT INTO step_trace_raw_row BY NAME
            SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id,
                   {_step(csv)} AS step,
                   {', '.join(f'{sql} AS {col}' for col, sql in points.items())}
            FROM {src} WHERE {STEP_ROW}
        """, ids).fetchone()[0]
        fields = comm_op_fields(csv.header)
        if fields:
            _comm_kernels(con, csv, fields, src, ids)
    return n


def _comm_kernels(con: duckdb.DuckDBPyConnection, csv: CsvFile, fields: list[str], src: str, ids: dict) -> None:
    """One communication kernel per (step, comm op column triple), numbered in file order."""
    # one scan: each row becomes a list of (name, start, end) structs, unnested
    structs = ", ".join(
        "{'n': '" + fld.replace("'", "''") + "', 's': " + _ticks(csv, fld + COMM_START_SUFFIX)
        + ", 'e': " + _ticks(csv, fld + COMM_END_SUFFIX) + "}" for fld in fields)
    run(con, csv, f"""
        INSERT INTO kernel BY NAME
        WITH ops AS (
            SELECT {_step(csv)} AS step, unnest([{structs}]) AS o
            FROM {src} WHERE {STEP_ROW}
        ),
        vals AS (SELECT step, o.n AS name, o.s AS ts_ns, o.e - o.s AS dur_ns FROM ops)
        SELECT $run_id AS run_id, $rank AS rank, $file_id AS file_id,
               row_number() OVER () AS kernel_id, step, name,
               coalesce(nullif(regexp_extract(name, '^stream_\\d+_\\d+_([A-Za-z]+)', 1), ''), name) AS op_type,
               ts_ns, dur_ns, true AS is_communication, 'step_trace_raw' AS source
        FROM vals
        WHERE ts_ns > 0 AND dur_ns >= 0
    """, ids)
