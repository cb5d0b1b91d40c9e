"""step_trace_time.csv → ``profiler_step_trace`` (the profiler's own numbers, reference only).

Columns are matched by name through :mod:`tracedb.ingestion.fieldmaps.step_trace_time`
(``Device_id`` and ``Preparing`` exist only in newer files). µs values are converted to
integer ns with an exact decimal parse; a cell that is neither a number nor empty/N/A is
refused with its line.
"""
from __future__ import annotations

from ...engine import duckdb

from ...timeconv import int_text, us_text_to_ns
from ..fieldmaps import missing
from ..fieldmaps.step_trace_time import DEVICE, FIELDS, STEP
from ..sources.csvsource import CsvFile, ns_in_range, open_csv, run
from ..sources.file import SourceFile


def integer(f: CsvFile, name: str) -> str:
    """SQL: an INTEGER cell (N/A/empty → NULL; text or out of range → error with the line)."""
    return f.number(name, f"TRY_CAST({int_text(f.cell(name), trimmed=True)} AS INTEGER)", f.clean(name))


def microseconds(f: CsvFile, name: str) -> str:
    """SQL: a µs cell → exact BIGINT ns (N/A/empty → NULL; text → error with the line)."""
    ns = f.value(us_text_to_ns(f.cell(name), compact=f.compact, trimmed=True))
    return f.number(name, ns_in_range(ns), f.clean(name))


def read(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Insert one step_trace_time.csv; returns rows inserted.

    Raises:
        InputError: empty or truncated file, a missing required column, or a cell that is not a
            number (the message gives its line).
    """
    with open_csv(f.path, "step_trace_time.csv", lambda header: missing({"step": STEP, **FIELDS}, header)) as csv:
        vals = [microseconds(csv, name) if (name := fld.find(csv.header)) else "NULL" for fld in FIELDS.values()]
        device = integer(csv, name) if (name := DEVICE.find(csv.header)) else "NULL"
        run(con, csv, f"""
            INSERT INTO profiler_step_trace
            SELECT ?, ?, ?, {device}, {integer(csv, STEP.find(csv.header))}, {', '.join(vals)}
            FROM {csv.sql()}
        """, [f.run_id, f.rank, f.file_id, csv.src])
    return con.execute("SELECT count(*) FROM profiler_step_trace WHERE file_id = ?", [f.file_id]).fetchone()[0]
