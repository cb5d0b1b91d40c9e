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
from ..sources.sqlitesource import Col, SqliteInput, rows_for

_PREFIX = "_tracedb_nsys_"
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
                cols, joins = _cols(fm.NVTX, src.columns(fm.NVTX_TABLE), fm.NVTX_TABLE, f.path)
                src.stage(con, f"{_PREFIX}nvtx", fm.NVTX_TABLE, cols, _types(cols, fm.NVTX), joins=" ".join(joins),
                          batch_rows=rows_for(longest, 1))
                _insert_nvtx(con, f, epoch0, pattern, grouped)

            _read_host(con, src, f, epoch0, longest)
            if not activity:
                return 0
            has_pid = True
            # one staged table for the three: the same columns in each (NULL where a table has none)
            names = ["kind", *fm.KERNEL, "bytes", "copy_kind", "src_kind", "dst_kind", "name_id", "short_name_id"]
            types = {n: "VARCHAR" if n in ("kind", "name", "short_name") else "BIGINT" for n in names}
            for i, (table, kind, fields) in enumerate(((fm.KERNEL_TABLE, "kernel", fm.KERNEL),
                                                       (fm.MEMCPY_TABLE, "memcpy", fm.COPY),
                                                       (fm.MEMSET_TABLE, "memset", fm.COPY))):
                table_cols = src.columns(table) if table in activity else {}
                has_pid = has_pid and (table not in activity or fm.ACTIVITY["global_pid"].find(table_cols) is not None)
                # a kernel row needs its start and end (kernel.ts_ns / dur_ns are NOT NULL)
                got, joins = (_cols(fields, table_cols, table, f.path, TIME_FIELDS) if table in activity
                              else ([], []))
                by_name = {c.name: c for c in got}
                by_name["kind"] = Col("kind", None, "sql", f"'{kind}'")
                cols = [by_name.get(n) or Col(n, None, "sql", "NULL") for n in names]
                src.stage(con, f"{_PREFIX}act", table, cols, types, joins=" ".join(joins),
                          batch_rows=rows_for(longest, 2), append=i > 0)
            _names_resolved(con, src, f.path)
            _stage_table(con, src, f.path, "rt", fm.RUNTIME_TABLE, fm.RUNTIME, longest)
            mem_kinds = _enum(src, fm.MEM_KIND_ENUM, fm.MEM_KINDS)
        _insert_calls(con, f, epoch0, "rt", "cuda_runtime")
        return _insert_kernels(con, f, epoch0, kinds, has_pid, mem_kinds)
    finally:
        _drop(con, staged)


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
    src.stage(con, f"{_PREFIX}{name}", table, cols, _types(cols, fields), joins=" ".join(joins),
              batch_rows=rows_for(longest, repeats))


def _names_resolved(con, src: SqliteInput, path: Path) -> None:
    """Refuse a kernel whose name id StringIds does not hold (it would be a kernel without a
    name)."""
    row = con.execute(f"SELECT name_id FROM {_PREFIX}act WHERE kind = 'kernel' AND name = '' LIMIT 1").fetchone()
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
            con.execute(f"DROP TABLE IF EXISTS {_PREFIX}{name}")
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
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREFIX}tnames AS "
                f"SELECT global_tid, arg_max(nullif(name, ''), length(name)) AS name "
                f"FROM {_PREFIX}tnames_raw GROUP BY global_tid")
    if src.has_table(fm.OSRT_TABLE):
        _stage_table(con, src, f.path, "osrt", fm.OSRT_TABLE, fm.OSRT, longest)
        _insert_calls(con, f, epoch0, "osrt", "osrt")
    if src.has_table(fm.SCHED_TABLE):
        _stage_table(con, src, f.path, "sched", fm.SCHED_TABLE, fm.SCHED, longest)
        states = _enum(src, fm.THREAD_STATE_ENUM, {})
        blocks = _enum(src, fm.THREAD_BLOCK_ENUM, {})
        _insert_sched(con, f, epoch0, states, blocks)


def _insert_calls(con, f: SourceFile, epoch0: int, staged: str, cat: str) -> None:
    """Host API calls (CUDA runtime / OS runtime: start, end, global_tid, name; staged as
    ``staged``) → event rows (ph X, cat ``cat``), with the thread's name."""
    con.execute(f"""
        INSERT INTO event (run_id, rank, file_id, ph, name, cat, pid, tid, thread_name, ts_ns, dur_ns)
        SELECT $run, $rank, $file, 'X', nullif(CAST(c.name AS VARCHAR), ''), '{cat}',
               CAST((c.global_tid >> 24) & 16777215 AS VARCHAR), CAST(c.global_tid & 16777215 AS VARCHAR),
               t.name, {int(epoch0)} + c.start, greatest(c."end" - c.start, 0)
        FROM {_PREFIX}{staged} AS c
        LEFT JOIN {_PREFIX}tnames AS t ON t.global_tid = c.global_tid
        ORDER BY c.start
    """, {"run": f.run_id, "rank": f.rank, "file": f.file_id})


def _insert_sched(con, f: SourceFile, epoch0: int, states: dict[int, str], blocks: dict[int, str]) -> None:
    """SCHED_EVENTS (staged) → thread_state: per thread, each event to the next one of the
    thread is an interval, running after a schedule-in, off CPU (with the state and reason the
    schedule-out recorded) after a schedule-out."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREFIX}enum (kind VARCHAR, id BIGINT, label VARCHAR)")
    rows = [["state", k, v] for k, v in states.items()] + [["block", k, v] for k, v in blocks.items()]
    if rows:
        insert_rows(con, f"{_PREFIX}enum", rows)
    con.execute(f"""
        INSERT INTO thread_state (run_id, rank, file_id, pid, tid, thread_name, ts_ns, dur_ns, state, cpu,
                                  block_reason, source)
        WITH ev AS (
            SELECT start, cpu, sched_in <> 0 AS sched_in, global_tid, state, block,
                   lead(start) OVER (PARTITION BY global_tid ORDER BY start, sched_in) AS next_start
            FROM {_PREFIX}sched
            WHERE global_tid IS NOT NULL
        )
        SELECT $run, $rank, $file, CAST((e.global_tid >> 24) & 16777215 AS VARCHAR),
               CAST(e.global_tid & 16777215 AS VARCHAR), t.name, {int(epoch0)} + e.start, e.next_start - e.start,
               CASE WHEN e.sched_in THEN 'running'
                    WHEN s.label = 'Running' THEN 'preempted'
                    ELSE coalesce(s.label, 'off_cpu') END,
               CAST(e.cpu AS INTEGER),
               CASE WHEN NOT e.sched_in THEN b.label END,
               'nsys'
        FROM ev AS e
        LEFT JOIN {_PREFIX}tnames AS t ON t.global_tid = e.global_tid
        LEFT JOIN {_PREFIX}enum AS s ON s.kind = 'state' AND s.id = e.state
        LEFT JOIN {_PREFIX}enum AS b ON b.kind = 'block' AND b.id = e.block
        WHERE e.next_start IS NOT NULL AND e.next_start > e.start
        ORDER BY e.global_tid, e.start
    """, {"run": f.run_id, "rank": f.rank, "file": f.file_id})


def _insert_kernels(con, f: SourceFile, epoch0: int, kinds: dict[int, str], has_pid: bool,
                    mem_kinds: dict[int, str]) -> int:
    """Kernel rows from the staged activity rows (``act``), with the launch call of each from the
    staged runtime rows (``rt``, empty without a runtime table) and the step from this file's
    NVTX step ranges (already in ``event``)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREFIX}kinds (id BIGINT, copy_kind VARCHAR)")
    if kinds:
        insert_rows(con, f"{_PREFIX}kinds", [[k, v] for k, v in kinds.items()])
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREFIX}mem (id BIGINT, label VARCHAR)")
    if mem_kinds:
        insert_rows(con, f"{_PREFIX}mem", [[k, v] for k, v in mem_kinds.items()])
    act_view, rt_view = f"{_PREFIX}act", f"{_PREFIX}rt"
    # the launch call with the same correlation id in the same process (older exports have no
    # globalPid on the GPU activity: the correlation id alone); the earliest if one repeats
    key = "correlation, pid" if has_pid else "correlation"
    runtime = f"""SELECT {key}, arg_min(tid, start) AS tid, arg_min(name, start) AS name, min(start) AS start,
                          arg_min("end", start) AS "end"
                   FROM (SELECT correlation, (global_tid >> 24) & 16777215 AS pid, global_tid & 16777215 AS tid,
                                nullif(CAST(name AS VARCHAR), '') AS name, start, "end" FROM {rt_view})
                   GROUP BY {key}"""
    launch_on = "l.correlation = n.correlation" + (" AND l.pid = n.pid" if has_pid else "")
    return con.execute(f"""
        INSERT INTO kernel BY NAME
        WITH a AS (
            SELECT * REPLACE (CAST(nullif(CAST(name AS VARCHAR), '') AS VARCHAR) AS name,
                              CAST(nullif(CAST(short_name AS VARCHAR), '') AS VARCHAR) AS short_name),
                   row_number() OVER () AS arow,
                   CASE WHEN global_pid IS NULL THEN NULL ELSE (global_pid >> 24) & 16777215 END AS pid
            FROM {act_view}
        ),
        named AS (
            SELECT a.*,
                   CASE a.kind WHEN 'kernel' THEN a.name
                               WHEN 'memset' THEN 'Memset'
                               ELSE 'Memcpy ' || coalesce(k.copy_kind, 'Unknown') END AS kname,
                   CASE a.kind WHEN 'memset' THEN 'Memset' WHEN 'memcpy' THEN k.copy_kind END AS ckind
            FROM a LEFT JOIN {_PREFIX}kinds AS k ON a.kind = 'memcpy' AND k.id = a.copy_kind
        ),
        mem AS (
            SELECT n.arow, sk.label AS src_label, dk.label AS dst_label
            FROM named AS n
            LEFT JOIN {_PREFIX}mem AS sk ON sk.id = n.src_kind
            LEFT JOIN {_PREFIX}mem AS dk ON dk.id = n.dst_kind
            WHERE n.kind = 'memcpy'
        ),
        launch AS ({runtime}),
        rows AS (
            SELECT n.*, l.name AS launch_name, l.tid AS launch_tid,
                   {int(epoch0)} + l.start AS launch_ts_ns, l."end" - l.start AS launch_dur_ns,
                   {int(epoch0)} + n.start AS ts_ns,
                   n.kind = 'kernel' AND (lower(n.name) LIKE 'nccl%' OR lower(n.name) LIKE 'rccl%'
                       OR n.name LIKE '%ncclKernel%' OR n.name LIKE '%ncclDevKernel%') AS is_comm
            FROM named AS n LEFT JOIN launch AS l ON {launch_on}
        ),
        steps AS (
            -- this file's NVTX step ranges, as derive/010 makes steps of them
            SELECT TRY_CAST(regexp_extract(name, '#(\\d+)', 1) AS INTEGER) AS step,
                   min(ts_ns) AS host_start_ns, max(ts_ns + coalesce(dur_ns, 0)) AS host_end_ns
            FROM event
            WHERE file_id = $file AND ph = 'X' AND name LIKE 'ProfilerStep#%'
            GROUP BY 1 HAVING step IS NOT NULL
        ),
        by_launch AS (
            -- the step whose range holds the launch call (the latest range started at or before it)
            SELECT r.arow, CASE WHEN r.launch_ts_ns < s.host_end_ns THEN s.step END AS step
            FROM (SELECT arow, launch_ts_ns FROM rows WHERE launch_ts_ns IS NOT NULL) AS r
            ASOF JOIN steps AS s ON r.launch_ts_ns >= s.host_start_ns
        ),
        by_window AS (
            -- no launch call: the last step whose range started at or before the kernel
            SELECT r.arow, s.step
            FROM (SELECT arow, ts_ns FROM rows WHERE launch_ts_ns IS NULL) AS r
            ASOF JOIN steps AS s ON r.ts_ns >= s.host_start_ns
        )
        SELECT $run AS run_id, $rank AS rank, $file AS file_id,
               row_number() OVER (ORDER BY r.start, r.kname, r.arow) AS kernel_id,
               coalesce(bl.step, bw.step) AS step, r.kname AS name,
               CASE WHEN r.kind = 'kernel' THEN coalesce(r.short_name, r.name) ELSE r.kname END AS op_type,
               CASE WHEN r.kind = 'memcpy' THEN 'MEMCPY' WHEN r.kind = 'memset' THEN 'MEMSET'
                    WHEN r.is_comm THEN 'COMMUNICATION' ELSE 'KERNEL' END AS accelerator_core,
               r.device AS device_id, CAST(r.stream AS VARCHAR) AS stream_id,
               r.ts_ns, greatest(r."end" - r.start, 0) AS dur_ns, r.is_comm AS is_communication,
               r.grid_x, r.grid_y, r.grid_z, r.block_x, r.block_y, r.block_z,
               r.correlation AS correlation_id,
               r.launch_name, CAST(r.launch_tid AS VARCHAR) AS launch_tid, r.launch_ts_ns, r.launch_dur_ns,
               r.ckind AS copy_kind, CASE WHEN r.kind <> 'kernel' THEN r.bytes END AS size_bytes,
               m.src_label AS src_kind, m.dst_label AS dst_kind,
               'nsys' AS source
        FROM rows AS r
        LEFT JOIN by_launch AS bl USING (arow)
        LEFT JOIN by_window AS bw USING (arow)
        LEFT JOIN mem AS m USING (arow)
        ORDER BY kernel_id
    """, {"run": f.run_id, "rank": f.rank, "file": f.file_id}).fetchone()[0]


def _insert_nvtx(con, f: SourceFile, epoch0: int, pattern: str, grouped: bool) -> None:
    """NVTX ranges and marks → event; step ranges renamed ProfilerStep#N."""
    number = ("TRY_CAST(regexp_extract(text, $pattern, 1) AS INTEGER)" if grouped else
              "CAST(row_number() OVER (PARTITION BY regexp_matches(text, $pattern) ORDER BY start, \"end\" DESC) "
              "AS INTEGER)")
    con.execute(f"""
        INSERT INTO event
        WITH e AS (
            -- inline text, else the registered string
            SELECT start, "end", event_type, coalesce(nullif(text, ''), nullif(text_id, '')) AS text,
                   CASE WHEN global_tid IS NULL THEN NULL ELSE (global_tid >> 24) & 16777215 END AS pid,
                   CASE WHEN global_tid IS NULL THEN NULL ELSE global_tid & 16777215 END AS tid
            FROM {_PREFIX}nvtx
            WHERE event_type IN ({', '.join(str(t) for t in fm.NVTX_RANGE_TYPES + fm.NVTX_MARK_TYPES)})
        ),
        s AS (
            SELECT *, CASE WHEN event_type IN ({', '.join(str(t) for t in fm.NVTX_RANGE_TYPES)})
                                AND "end" IS NOT NULL AND "end" >= start AND regexp_matches(text, $pattern)
                           THEN {number} END AS step
            FROM e
        )
        SELECT $run, $rank, $file,
               CASE WHEN event_type IN ({', '.join(str(t) for t in fm.NVTX_MARK_TYPES)}) THEN 'i' ELSE 'X' END,
               CASE WHEN step IS NOT NULL THEN 'ProfilerStep#' || step ELSE text END,
               'nvtx', CAST(pid AS VARCHAR), CAST(tid AS VARCHAR), NULL, NULL,
               {int(epoch0)} + start,
               CASE WHEN "end" IS NOT NULL AND "end" >= start AND event_type NOT IN
                    ({', '.join(str(t) for t in fm.NVTX_MARK_TYPES)}) THEN "end" - start END,
               NULL, NULL,
               CASE WHEN step IS NOT NULL THEN json_object('nvtx_text', text) END
        FROM s
        ORDER BY start
    """, {"pattern": pattern, "run": f.run_id, "rank": f.rank, "file": f.file_id})
