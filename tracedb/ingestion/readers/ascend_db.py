"""Ascend profiler DB (torch_npu ``export_type=db``) → the same tables as the text form.

``ascend_pytorch_profiler_{rank}.db`` (format ``ascend_db``):

* TASK ⋈ COMPUTE_TASK_INFO → ``kernel`` (compute kernels, the rows kernel_details.csv has);
* TASK rows of type MEMCPY_ASYNC / SDMA_SQE / PCIE_DMA_SQE → ``kernel`` copy rows (copy_kind Unknown),
  except HCCL's own tasks (listed in COMMUNICATION_TASK_INFO: part of their op, not copies);
  COMMUNICATION_OP → ``kernel`` (one communication row per HCCL op, as kernel_details.csv);
  COMMUNICATION_TASK_INFO ⋈ TASK → ``link`` (the HCCL Plane tasks of trace_view.json);
* PYTORCH_API rows of type ``op`` → ``op`` (the framework-op tree: parent/depth per thread);
  CONNECTION_IDS links an op to the TASK / COMMUNICATION_OP connection ids it launched
  (trace_view.json's async_npu flows) → ``kernel.op_id``; CANN_API with the task's
  connection id → ``kernel.launch_*``;
* MEMORY_RECORD / OP_MEMORY / NPU_MODULE_MEM → ``memory`` (kinds record / operator / module);
* COMPUTE_TASK_INFO hf32Eligible / inputFormats and TASK_PMU_INFO → ``kernel_pmu_raw``;
* STEP_TIME → ``ascend_db_step`` (derive/015 makes steps of it); META_DATA, NPU_INFO,
  RANK_DEVICE_MAP, HOST_INFO → ``profiler_db_meta``;
* MSTX_EVENTS (profiler option mstx=True) → ``event`` rows of cat ``mstx``: ranges ph X, marks ph i
  (derive/124 makes host ranges of them).

``analysis.db`` (format ``analysis_db``): StepTraceTime / CommAnalyzerTime / Bandwidth / Matrix →
``profiler_step_trace`` / ``profiler_comm_op`` / ``profiler_comm_bandwidth`` /
``profiler_comm_matrix`` (the profiler's numbers, reference only, as step_trace_time.csv and
communication(_matrix).json).

SQLite is read through :mod:`..sources.sqlitesource` (the ADBC SQLite driver; read-only and
immutable, tables only, every value checked against its column's kind, interruptible): each table
arrives as Arrow record batches built in C, staged a batch at a time into a DuckDB temporary
table; all joins and conversions are SQL (:mod:`.ascend_db_sql`).
Times stay integers from SQLite to DuckDB (no float on the way). Strings resolve through
STRING_IDS, codes through the ENUM_* tables.
"""
from __future__ import annotations

import re
from pathlib import Path

from ...engine import duckdb

from ...errors import InputError, out_of_memory
from ..fieldmaps.ascend_db import (ANALYSIS_DB, ANALYSIS_DB_MARKERS, ANALYSIS_EPOCH_US, API_TYPE_OP, API_TYPE_TRACE,
                                   DOUBLE_LIMIT, EPOCH_US_LIMIT, MSTX_RANGE_TYPES, NONE_COLUMNS, PROFILER_DB,
                                   PROFILER_DB_MARKERS, TIME_COLUMNS, UINT32_NONE, UNIQUE_IDS)
from ..fieldmaps.kernel_pmu import DB_PMU, HF32_NO, HF32_YES
from ..sources.file import SourceFile
from ..sources.sqlitecheck import Col, quote
from ..sources.sqlitesource import SqliteInput
from .ascend_db_sql import ANALYSIS_SQL, INSERT_SQL, READ_SQL

_PREFIX = "_adb_"
BATCH_ROWS = 65536          # rows per Arrow batch from the driver (its default, 1024, measured slower)


# columns a kernel row cannot do without (kernel.ts_ns / dur_ns are NOT NULL): a NULL is refused
NON_NULL = {("COMMUNICATION_OP", "startNs"), ("COMMUNICATION_OP", "endNs")}


def _col(table: str, name: str, declared: str | None, duck_type: str) -> Col:
    """How one column of the spec is read: absent → NULL; an integer column as an integer (a
    time within ±2^62 ns; integer text SQLite reads back unchanged where the column is not
    declared INTEGER, as torch_npu's PYTORCH_API TEXT times), a DECIMAL one as a number, text
    as text (see :class:`tracedb.ingestion.sources.sqlitecheck.Col`); CANN's "none"
    (UINT32_MAX) in the columns of ``NONE_COLUMNS`` as NULL."""
    if declared is None:
        return Col(name, None, "sql", "NULL")
    if duck_type == "BIGINT":
        kind = "ns" if name in TIME_COLUMNS else "int"
        return Col(name, name, kind if declared.startswith("INT") else kind + "_text",
                   required=(table, name) in NON_NULL,
                   none=UINT32_NONE if name in NONE_COLUMNS.get(table, ()) else None)
    if duck_type.startswith("DECIMAL"):
        return Col(name, name, "number", limit=EPOCH_US_LIMIT if name in ANALYSIS_EPOCH_US else None)
    if duck_type == "DOUBLE":
        return Col(name, name, "number", limit=DOUBLE_LIMIT)
    return Col(name, name, "text")


def _load_all(con, path: Path, tables: dict[str, dict[str, str]], markers: tuple[str, ...], what: str) -> None:
    """Copy every table of ``tables`` into the temporary DuckDB table ``_adb_<table>`` with its
    spec's columns and types: absent columns are NULL, an absent table is empty; every value
    checked against its column's kind as SQLite reads it (:mod:`..sources.sqlitesource`)."""
    with SqliteInput(path, what) as src:
        if not any(src.has_table(m) for m in markers):
            raise InputError(f"not {what}: none of the tables {', '.join(markers)}.", file=str(path),
                             hint="tracedb reads torch_npu's ascend_pytorch_profiler_{rank}.db and analysis.db.")
        for table, spec in tables.items():
            present = src.columns(table)
            cols = [_col(table, c, present.get(c), t) for c, t in spec.items()]
            src.stage(con, _PREFIX + table, table, cols, spec, batch_rows=BATCH_ROWS)
            if table in UNIQUE_IDS:
                _unique(con, path, table, UNIQUE_IDS[table])


def _unique(con, path: Path, table: str, col: str) -> None:
    """Refuse a lookup table (strings, enums) holding an id twice: every row joining it would
    be repeated, silently."""
    row = con.execute(f"SELECT {quote(col)} FROM {quote(_PREFIX + table)} WHERE {quote(col)} IS NOT NULL "
                      f"GROUP BY {quote(col)} HAVING count(*) > 1 ORDER BY 1 LIMIT 1").fetchone()
    if row:
        raise InputError(f"{table}.{col} holds the id {row[0]} more than once (an id names one value).",
                         file=str(path), place=f"table {table}, column {col}",
                         hint="the file may be damaged; re-export it from the profiler.")


def _run(con, sql: str, params: dict) -> None:
    """Run a script statement by statement (DuckDB binds parameters of one statement at a time),
    each with the named parameters it uses."""
    for stmt in sql.split(";\n\n"):
        if stmt.strip():
            used = {k: v for k, v in params.items() if re.search(rf"\${k}\b", stmt)}
            con.execute(stmt, used or None)


def _drop(con, tables) -> None:
    """Drop the temporary tables; after a failed statement the transaction is aborted (the
    ingest rolls it back): leave them, and the original error, alone."""
    try:
        for table in tables:
            con.execute(f"DROP TABLE IF EXISTS {quote(_PREFIX + table)}")
    except duckdb.Error:
        pass


_DERIVED = ("op", "op_tree", "module", "op_counts", "launcher", "steps", "kernel")


def _convert_error(e: duckdb.Error, path: Path) -> InputError:
    """A failed conversion of rows the SQLite file did hold (a value outside the range of the
    table column it goes to): the file is whole, so no hint that it is cut (a cut or damaged
    SQLite file fails earlier, in the driver, as "malformed")."""
    first = str(e).splitlines()[0] if str(e) else type(e).__name__
    first = re.sub(r"^[\w ]+ Error: ", "", first)
    return InputError(f"cannot convert the profiler DB's rows: {first}", file=str(path),
                      hint="the file holds a value tracedb does not expect there; please report it "
                           "with the torch_npu and CANN versions that wrote it.")


def read(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Read one ascend_pytorch_profiler_{rank}.db; returns the kernel rows written."""
    try:
        _load_all(con, f.path, PROFILER_DB, PROFILER_DB_MARKERS, "a torch_npu profiler DB")
        _run(con, READ_SQL, {"op_type_name": API_TYPE_OP[0], "op_type_code": API_TYPE_OP[1],
                             "trace_type_name": API_TYPE_TRACE[0], "trace_type_code": API_TYPE_TRACE[1]})
        (a, ca), (b, cb) = MSTX_RANGE_TYPES
        _run(con, INSERT_SQL,
             {"run_id": f.run_id, "rank": f.rank, "file_id": f.file_id,
              "mstx_range_a": a, "mstx_range_b": b, "mstx_code_a": ca, "mstx_code_b": cb,
              "pmu_names": list(DB_PMU), "hf32_yes": HF32_YES, "hf32_no": HF32_NO})
        return con.execute("SELECT count(*) FROM kernel WHERE file_id = ?", [f.file_id]).fetchone()[0]
    except duckdb.Error as e:
        if (oom := out_of_memory(e, str(f.path))) is not None:
            raise oom from e
        raise _convert_error(e, f.path) from e
    finally:
        _drop(con, list(PROFILER_DB) + list(_DERIVED))


def read_analysis(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Read one analysis.db into the reference tables; returns the profiler_step_trace rows."""
    _load_all(con, f.path, ANALYSIS_DB, ANALYSIS_DB_MARKERS, "a torch_npu analysis.db")
    try:
        _run(con, ANALYSIS_SQL, {"run_id": f.run_id, "rank": f.rank, "file_id": f.file_id})
        return con.execute("SELECT count(*) FROM profiler_step_trace WHERE file_id = ?", [f.file_id]).fetchone()[0]
    finally:
        _drop(con, ANALYSIS_DB)
