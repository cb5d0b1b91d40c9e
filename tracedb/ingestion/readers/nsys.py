"""Nsight Systems SQLite export (``nsys export --type sqlite``) → ``kernel`` and ``event``.

* CUPTI_ACTIVITY_KIND_KERNEL → kernel rows (stream, device, grid/block, correlation id);
  NCCL kernels (the Kineto rule: names nccl*/rccl*, *ncclKernel*, *ncclDevKernel*) are
  communication.
* CUPTI_ACTIVITY_KIND_MEMCPY / MEMSET → kernel rows with ``copy_kind`` (HtoD, DtoH, DtoD, PtoP,
  HtoH from copyKind, via the file's ENUM_CUDA_MEMCPY_OPER when present; Memset) and
  ``size_bytes``.
* CUPTI_ACTIVITY_KIND_MEMCPY srcKind / dstKind → ``src_kind`` / ``dst_kind`` (Pageable, Pinned,
  Device ... via ENUM_CUDA_MEM_KIND).
* CUPTI_ACTIVITY_KIND_RUNTIME → each kernel's / copy's ``launch_*`` columns: the runtime call
  with the same correlationId in the same process; and every runtime call → ``event`` (cat
  ``cuda_runtime``, ph X, with its thread's ThreadNames name), as Kineto traces have them.
* OSRT_API → ``event`` (cat ``osrt``: pthread_mutex_lock, sem_wait, read, ioctl ...);
  SCHED_EVENTS → ``thread_state`` (running / off-CPU intervals per thread, with the state and
  block reason the schedule-out recorded).
* NVTX_EVENTS → ``event`` rows (cat ``nvtx``: ranges ph X, marks ph i). A range whose text
  matches the step pattern (default ``^ProfilerStep#(\\d+)$``, ``tracedb ingest
  --step-range-pattern``) is written as ``ProfilerStep#N`` (N = the pattern's first group, else
  the range's order), its own text in args.nvtx_text; the derive step then makes it a step.
  derive/123 makes the other ranges ops (kernels link to the innermost holding their launch
  call), derive/124 host ranges (range_time).

Names are resolved through StringIds inside SQLite. Timestamps stay integers: the export's
ns on the session clock plus ``TARGET_INFO_SESSION_START_TIME.utcEpochNs`` (UTC epoch ns of
the session start), so ts_ns is epoch ns like the other readers'; an export without that
table (older schema) keeps the session-relative ns. The tables are read through the ADBC
SQLite driver as Arrow record batches (C), checked in the SELECT that reads them and staged
into DuckDB temporary tables (:mod:`tracedb.ingestion.sources.sqlitesource`: read-only and
immutable, tables only, values of their column's kind, interruptible); no Python loop over
rows. A kernel's step is the NVTX step range of the same file that holds its launch call
(HolisticTraceAnalysis's rule, as derive/040 for Kineto), else the last step range that started
at or before the kernel; derive/010 makes the same ranges the rank's steps.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ...engine import duckdb, insert_rows

from ...errors import InputError
from ..fieldmaps import Field
from ..fieldmaps import nsys as fm
from ..sources.file import SourceFile
from ..sources.sqlitecheck import Col
from ..sources.sqlitesource import SqliteInput, rows_for
from .nsys_sql import PREFIX, THREAD_NAMES, calls_sql, kernels_sql, nvtx_sql, sched_sql

WHAT = "an Nsight Systems export"
# fields holding integer ns on the session clock: refused beyond ±2^62 (see sqlitesource)
TIME_FIELDS = frozenset({"start", "end"})


def _cols(fields: dict[str, Field], table_cols: dict[str, str], table: str, path: Path,
          non_null: frozenset[str] = frozenset()) -> tuple[list[Col], list[str]]:
    """The checked columns of ``table`` for ``fields`` (NULL for an optional field the table
    lacks; a string id as its StringIds text, joined in SQLite, the id itself checked; the
    fields of ``non_null`` must not be NULL) and the StringIds joins they need.

    Raises:
        InputError: a required column is missing.
    """
    cols, joins = [], []
    for key, f in fields.items():
        col = f.find(table_cols)
        if col is None:
            if f.required:
                raise InputError(f"table {table} has no column {f.name}.", file=str(path), place=table,
                                 hint="export the report again with nsys export --type sqlite.")
            cols.append(Col(key, None, "sql", "NULL"))
        elif key in fm.STRING_ID_FIELDS:
            s = f"s_{key}"
            joins.append(f'LEFT JOIN {fm.STRINGS_TABLE} AS {s} ON {s}.id = a."{col}"')
            # '' for a missing string: the text table is checked before (SqliteInput.text_table)
            cols.append(Col(key, None, "sql", f"coalesce(CAST({s}.value AS TEXT), '')"))
            cols.append(Col(f"{key}_id", col, "int"))
        elif f.kind == "text":
            cols.append(Col(key, col, "text"))
        else:
            cols.append(Col(key, col, "ns" if key in TIME_FIELDS else "int", required=key in non_null))
    return cols, joins


def _types(cols: list[Col], fields: dict[str, Field]) -> dict[str, str]:
    """DuckDB type of each staged column: text for strings, BIGINT for the rest."""
    return {c.name: "VARCHAR" if c.name in fm.STRING_ID_FIELDS or c.name == "kind"
            or (c.name in fields and fields[c.name].kind == "text") else "BIGINT" for c in cols}


def _copy_kinds(src: SqliteInput) -> dict[int, str]:
    """copyKind id → HtoD/DtoH/...: from the file's ENUM_CUDA_MEMCPY_OPER names when it has
    the table, else the CUPTI ids (fieldmaps.nsys.COPY_KINDS)."""
    kinds = dict(fm.COPY_KINDS)
    cols = src.columns(fm.COPY_KIND_ENUM)
    if "id" in cols and "name" in cols:
        short = {"HTOD": "HtoD", "DTOH": "DtoH", "DTOD": "DtoD", "HTOH": "HtoH", "PTOP": "PtoP",
                 "HTOA": "HtoD", "ATOH": "DtoH", "ATOA": "DtoD", "ATOD": "DtoD", "DTOA": "DtoD"}
        for i, n in src.rows(fm.COPY_KIND_ENUM, [Col("id", "id", "int"), Col("name", "name", "text")]):
            if i is None:
                continue
            code = str(n).rsplit("_", 1)[-1].upper()
            if code in short:
                kinds[int(i)] = short[code]
            elif code == "UNKNOWN":
                kinds.pop(int(i), None)
    return kinds


def _export_version(src: SqliteInput) -> dict:
    """The export's product and schema version (META_DATA_EXPORT; absent in the oldest exports,
    whose layout the column checks of :func:`_cols` then tell apart)."""
    out = {"schema_version": None, "product_version": None}
    cols = src.columns(fm.EXPORT_META_TABLE)
    if "name" in cols and "value" in cols:
        got = {n: v for n, v in src.rows(fm.EXPORT_META_TABLE, [Col("name", "name", "text"),
                                                                  Col("value", "value", "text")],
                                         where=f"a.name IN ('{fm.EXPORT_SCHEMA_VERSION}', '{fm.EXPORT_PRODUCT_VERSION}')")}
        out = {"schema_version": got.get(fm.EXPORT_SCHEMA_VERSION), "product_version": got.get(fm.EXPORT_PRODUCT_VERSION)}
    return out


def _session_start(src: SqliteInput) -> int:
    """utcEpochNs of TARGET_INFO_SESSION_START_TIME (the session's time 0), 0 without it."""
    col = fm.SESSION_START.find(src.columns(fm.SESSION_START_TABLE))
    if col is None:
        return 0
    got = [t for (t,) in src.rows(fm.SESSION_START_TABLE, [Col("t", col, "ns")]) if t is not None]
    return int(min(got)) if got else 0


def step_pattern(pattern: str | None) -> tuple[str, bool]:
    """The step pattern and whether it has a group giving the step number.

    Raises:
        InputError: not a valid regular expression.
    """
    pattern = pattern or fm.DEFAULT_STEP_PATTERN
    try:
        duckdb.connect().execute("SELECT regexp_matches('', ?)", [pattern]).fetchall()
    except duckdb.Error as e:
        raise InputError(f"--step-range-pattern {pattern!r} is not a valid regular expression: "
                         f"{str(e).splitlines()[0]}") from e
    try:
        groups = re.compile(pattern).groups
    except re.error:
        groups = 1 if "(" in pattern.replace(r"\(", "") else 0
    return pattern, groups > 0


def read(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Insert the kernels, copies and NVTX events of one Nsight Systems export.

    Returns:
        number of kernel rows (kernels + memcpy + memset).

    Raises:
        InputError: not a SQLite file, not an Nsight Systems export, a required column missing,
            a view where a table is expected, a value not of its column's kind, an invalid step
            pattern (see :mod:`tracedb.ingestion.sources.sqlitesource`).
    """
    pattern, grouped = step_pattern(getattr(f, "step_range_pattern", None))
    staged = ["nvtx", "act", "rt", "kinds", "mem", "tnames_raw", "tnames", "osrt", "sched", "enum"]
    try:
        with SqliteInput(f.path, WHAT) as src:
            activity = [t for t in (fm.KERNEL_TABLE, fm.MEMCPY_TABLE, fm.MEMSET_TABLE) if src.has_table(t)]
            has_nvtx = src.has_table(fm.NVTX_TABLE)
            if not src.has_table(fm.STRINGS_TABLE) or not (activity or has_nvtx):
                raise InputError("not an Nsight Systems export: no StringIds and no CUPTI_ACTIVITY_KIND_KERNEL / "
                                 "MEMCPY / MEMSET or NVTX_EVENTS table.", file=str(f.path),
                                 hint="export the report with: nsys export --type sqlite report.nsys-rep "
                                      "(with CUDA trace on: nsys profile -t cuda,nvtx).")
            longest = src.text_table(fm.STRINGS_TABLE, "id", "value")
            epoch0 = _session_start(src)
            kinds = _copy_kinds(src)
            version = _export_version(src)
            con.execute("INSERT INTO event (run_id, rank, file_id, ph, name, cat, args) "
                        "VALUES (?, ?, ?, 'M', 'nsys_export', 'nsys', ?)",
                        [f.run_id, f.rank, f.file_id, json.dumps(version)])

            if has_nvtx:
                _stage_table(con, src, f.path, "nvtx", fm.NVTX_TABLE, fm.NVTX, longest)
                _insert_nvtx(con, f, epoch0, pattern, grouped)

            _read_host(con, src, f, epoch0, longest)
            if not activity:
                return 0
            has_pid = _stage_activity(con, src, f.path, activity, longest)
            _names_resolved(con, src, f.path)
            _stage_table(con, src, f.path, "rt", fm.RUNTIME_TABLE, fm.RUNTIME, longest)
            mem_kinds = _enum(src, fm.MEM_KIND_ENUM, fm.MEM_KINDS)
        _insert_calls(con, f, epoch0, "rt", "cuda_runtime")
        return _insert_kernels(con, f, epoch0, kinds, has_pid, mem_kinds)
    finally:
        _drop(con, staged)


def _stage_activity(con, src: SqliteInput, path: Path, activity: list[str], longest: int) -> bool:
    """Stage the kernel, memcpy and memset rows into one table (``act``: the same columns for
    the three, NULL where a table has none); whether every activity table has globalPid.

    Raises:
        InputError: a required column missing, a value not of its column's kind, a kernel
            without its start or end.
    """
    has_pid = True
    names = ["kind", *fm.KERNEL, "bytes", "copy_kind", "src_kind", "dst_kind", "name_id", "short_name_id"]
    types = {n: "VARCHAR" if n in ("kind", "name", "short_name") else "BIGINT" for n in names}
    for i, (table, kind, fields) in enumerate(((fm.KERNEL_TABLE, "kernel", fm.KERNEL),
                                               (fm.MEMCPY_TABLE, "memcpy", fm.COPY),
                                               (fm.MEMSET_TABLE, "memset", fm.COPY))):
        table_cols = src.columns(table) if table in activity else {}
        has_pid = has_pid and (table not in activity or fm.ACTIVITY["global_pid"].find(table_cols) is not None)
        # a kernel row needs its start and end (kernel.ts_ns / dur_ns are NOT NULL)
        got, joins = (_cols(fields, table_cols, table, path, TIME_FIELDS) if table in activity
                      else ([], []))
        by_name = {c.name: c for c in got}
        by_name["kind"] = Col("kind", None, "sql", f"'{kind}'")
        cols = [by_name.get(n) or Col(n, None, "sql", "NULL") for n in names]
        src.stage(con, f"{PREFIX}act", table, cols, types, joins=" ".join(joins),
                  batch_rows=rows_for(longest, 2), append=i > 0)
    return has_pid


def _stage_table(con, src: SqliteInput, path: Path, name: str, table: str, fields: dict[str, Field],
                 longest: int) -> None:
    """Stage the checked ``fields`` of ``table`` into the temporary table ``<prefix><name>``
    (string ids resolved through StringIds); empty when the file has no such table.

    Raises:
        InputError: a required column missing, a value not of its column's kind.
    """
    cols, joins = (_cols(fields, src.columns(table), table, path) if src.has_table(table)
                   else ([Col(k, None, "sql", "NULL") for k in fields], []))
    repeats = sum(1 for k in fields if k in fm.STRING_ID_FIELDS)
    src.stage(con, f"{PREFIX}{name}", table, cols, _types(cols, fields), joins=" ".join(joins),
              batch_rows=rows_for(longest, repeats))


def _names_resolved(con, src: SqliteInput, path: Path) -> None:
    """Refuse a kernel whose name id StringIds does not hold (it would be a kernel without a
    name)."""
    row = con.execute(f"SELECT name_id FROM {PREFIX}act WHERE kind = 'kernel' AND name = '' LIMIT 1").fetchone()
    if row:
        col = fm.KERNEL["name"].find(src.columns(fm.KERNEL_TABLE))
        raise InputError(f"{fm.KERNEL_TABLE}.{col} holds the string id {row[0]}, which {fm.STRINGS_TABLE} does not "
                         "have (a kernel without a name).", file=str(path),
                         place=f"table {fm.KERNEL_TABLE}, column {col}",
                         hint="the file may be damaged; export the report again with nsys export --type sqlite.")


def _drop(con, names) -> None:
    """Drop the staged tables; after a failed statement the transaction is aborted (the ingest
    rolls it back): leave them, and the first error, alone."""
    try:
        for name in names:
            con.execute(f"DROP TABLE IF EXISTS {PREFIX}{name}")
    except duckdb.Error:
        pass


def _enum(src: SqliteInput, table: str, default: dict[int, str]) -> dict[int, str]:
    """id → label of an ENUM_* table of the export (its ids checked unique), else ``default``."""
    cols = src.columns(table)
    label = "label" if "label" in cols else "name"
    if "id" not in cols or label not in cols:
        return dict(default)
    src.text_table(table, "id", label)
    return {int(i): str(v) for i, v in src.rows(table, [Col("id", "id", "int"), Col("label", label, "text")])
            if i is not None}


def _read_host(con, src: SqliteInput, f: SourceFile, epoch0: int, longest: int) -> None:
    """The host side of the export: OS runtime calls (OSRT_API → event cat osrt) and thread
    scheduling (SCHED_EVENTS → thread_state), with the thread names of ThreadNames."""
    _stage_table(con, src, f.path, "tnames_raw", fm.THREAD_NAMES_TABLE, fm.THREAD_NAMES, longest)
    con.execute(THREAD_NAMES)
    if src.has_table(fm.OSRT_TABLE):
        _stage_table(con, src, f.path, "osrt", fm.OSRT_TABLE, fm.OSRT, longest)
        _insert_calls(con, f, epoch0, "osrt", "osrt")
    if src.has_table(fm.SCHED_TABLE):
        _stage_table(con, src, f.path, "sched", fm.SCHED_TABLE, fm.SCHED, longest)
        states = _enum(src, fm.THREAD_STATE_ENUM, {})
        blocks = _enum(src, fm.THREAD_BLOCK_ENUM, {})
        _insert_sched(con, f, epoch0, states, blocks)


def _insert_calls(con, f: SourceFile, epoch0: int, staged: str, cat: str) -> None:
    """Host API calls (CUDA runtime / OS runtime, staged as ``staged``) → event rows of cat ``cat``."""
    con.execute(calls_sql(staged, cat, epoch0), {"run": f.run_id, "rank": f.rank, "file": f.file_id})


def _insert_sched(con, f: SourceFile, epoch0: int, states: dict[int, str], blocks: dict[int, str]) -> None:
    """SCHED_EVENTS (staged) → thread_state, with the labels of the thread states and block
    reasons (:func:`.nsys_sql.sched_sql`)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {PREFIX}enum (kind VARCHAR, id BIGINT, label VARCHAR)")
    rows = [["state", k, v] for k, v in states.items()] + [["block", k, v] for k, v in blocks.items()]
    if rows:
        insert_rows(con, f"{PREFIX}enum", rows)
    con.execute(sched_sql(epoch0), {"run": f.run_id, "rank": f.rank, "file": f.file_id})


def _insert_kernels(con, f: SourceFile, epoch0: int, kinds: dict[int, str], has_pid: bool,
                    mem_kinds: dict[int, str]) -> int:
    """Kernel rows from the staged activity rows (``act``), with the launch call of each from the
    staged runtime rows (``rt``, empty without a runtime table) and the step from this file's
    NVTX step ranges (already in ``event``); copy and memory kinds by their labels."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {PREFIX}kinds (id BIGINT, copy_kind VARCHAR)")
    if kinds:
        insert_rows(con, f"{PREFIX}kinds", [[k, v] for k, v in kinds.items()])
    con.execute(f"CREATE OR REPLACE TEMP TABLE {PREFIX}mem (id BIGINT, label VARCHAR)")
    if mem_kinds:
        insert_rows(con, f"{PREFIX}mem", [[k, v] for k, v in mem_kinds.items()])
    params = {"run": f.run_id, "rank": f.rank, "file": f.file_id}
    return con.execute(kernels_sql(epoch0, has_pid), params).fetchone()[0]


def _insert_nvtx(con, f: SourceFile, epoch0: int, pattern: str, grouped: bool) -> None:
    """NVTX ranges and marks → event; step ranges renamed ProfilerStep#N."""
    con.execute(nvtx_sql(epoch0, grouped), {"pattern": pattern, "run": f.run_id, "rank": f.rank, "file": f.file_id})
