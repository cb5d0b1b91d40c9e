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
SQLite driver as Arrow record batches (C), which DuckDB scans directly: no Python loop over
rows. A kernel's step is the NVTX step range of the same file that holds its launch call
(HolisticTraceAnalysis's rule, as derive/040 for Kineto), else the last step range that started
at or before the kernel; derive/010 makes the same ranges the rank's steps.
"""
from __future__ import annotations

import json
import re
from contextlib import contextmanager
from pathlib import Path

from ...engine import duckdb, insert_rows, register_arrow

from ...errors import InputError
from ..fieldmaps import Field
from ..fieldmaps import nsys as fm
from ..sources.file import SourceFile

SQLITE_MAGIC = b"SQLite format 3\x00"
_PREFIX = "_tracedb_nsys_"


@contextmanager
def _sqlite(path: Path):
    """A read-only ADBC connection to the export."""
    try:
        import adbc_driver_sqlite.dbapi as adbc_sqlite
    except ImportError as e:   # pragma: no cover - a dependency of tracedb
        raise InputError("reading SQLite exports needs the adbc-driver-sqlite package.", file=str(path),
                         hint="pip install adbc-driver-sqlite adbc-driver-manager") from e
    with open(path, "rb") as fh:
        if fh.read(16) != SQLITE_MAGIC:
            raise InputError("not a SQLite database (no 'SQLite format 3' header).", file=str(path), place="byte 0")
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    conn = adbc_sqlite.connect(uri)
    try:
        yield conn
    finally:
        conn.close()


def _arrow(lite, sql: str):
    """Run ``sql`` on the export; the result as an Arrow table (built in C by the driver)."""
    cur = lite.cursor()
    try:
        cur.execute(sql)
        return cur.fetch_arrow_table()
    finally:
        cur.close()


def _columns(lite, table: str) -> set[str]:
    t = _arrow(lite, f"SELECT name FROM pragma_table_info('{table}')")
    return set(t.column(0).to_pylist())


def _expr(alias: str, fields: dict[str, Field], cols: set[str], table: str, path: Path) -> tuple[dict[str, str], list[str]]:
    """Column key → SQL expression for every field (NULL for an optional one the table lacks)
    and the StringIds joins they need.

    Raises:
        InputError: a required column is missing.
    """
    items, joins = {}, []
    for key, f in fields.items():
        col = f.find(cols)
        if col is None:
            if f.required:
                raise InputError(f"table {table} has no column {f.name}.", file=str(path), place=table,
                                 hint="export the report again with nsys export --type sqlite.")
            items[key] = "NULL"
        elif key in fm.STRING_ID_FIELDS:
            s = f"s_{key}"
            joins.append(f"LEFT JOIN {fm.STRINGS_TABLE} AS {s} ON {s}.id = {alias}.\"{col}\"")
            # '' for a missing string: the driver types a column from its first rows, and a
            # column that starts NULL is taken as integer (a later string then fails)
            items[key] = f"coalesce({s}.value, '')"
        elif f.kind == "text":
            items[key] = f"coalesce(CAST({alias}.\"{col}\" AS TEXT), '')"
        else:
            items[key] = f"{alias}.\"{col}\""
    return items, joins


def _select(items: dict[str, str], keys) -> str:
    return ", ".join(f"{items.get(k, 'NULL')} AS \"{k}\"" for k in keys)


def _stage(con, lite, name: str, sql: str) -> None:
    """Copy one SQLite query result into a DuckDB temp table through Arrow."""
    data = _arrow(lite, sql)
    view = f"{_PREFIX}arrow"
    register_arrow(con, view, data)
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREFIX}{name} AS SELECT * FROM {view}")
    finally:
        con.unregister(view)


def _copy_kinds(lite, tables: set[str]) -> dict[int, str]:
    """copyKind id → HtoD/DtoH/...: from the file's ENUM_CUDA_MEMCPY_OPER names when it has
    the table, else the CUPTI ids (fieldmaps.nsys.COPY_KINDS)."""
    kinds = dict(fm.COPY_KINDS)
    if fm.COPY_KIND_ENUM in tables:
        t = _arrow(lite, f"SELECT id, name FROM {fm.COPY_KIND_ENUM}").to_pydict()
        short = {"HTOD": "HtoD", "DTOH": "DtoH", "DTOD": "DtoD", "HTOH": "HtoH", "PTOP": "PtoP",
                 "HTOA": "HtoD", "ATOH": "DtoH", "ATOA": "DtoD", "ATOD": "DtoD", "DTOA": "DtoD"}
        for i, n in zip(t["id"], t["name"]):
            code = str(n).rsplit("_", 1)[-1].upper()
            if code in short:
                kinds[int(i)] = short[code]
            elif code == "UNKNOWN":
                kinds.pop(int(i), None)
    return kinds


def _export_version(lite, tables: set[str]) -> dict:
    """The export's product and schema version (META_DATA_EXPORT; absent in the oldest exports,
    whose layout the column checks of :func:`_expr` then tell apart)."""
    out = {"schema_version": None, "product_version": None}
    if fm.EXPORT_META_TABLE in tables:
        t = _arrow(lite, f"SELECT name, CAST(value AS TEXT) AS value FROM {fm.EXPORT_META_TABLE} "
                         f"WHERE name IN ('{fm.EXPORT_SCHEMA_VERSION}', '{fm.EXPORT_PRODUCT_VERSION}')").to_pydict()
        got = dict(zip(t["name"], t["value"]))
        out = {"schema_version": got.get(fm.EXPORT_SCHEMA_VERSION), "product_version": got.get(fm.EXPORT_PRODUCT_VERSION)}
    return out


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
            an invalid step pattern.
    """
    pattern, grouped = step_pattern(getattr(f, "step_range_pattern", None))
    with _sqlite(f.path) as lite:
        tables = set(_arrow(lite, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
                     .column(0).to_pylist())
        activity = [t for t in (fm.KERNEL_TABLE, fm.MEMCPY_TABLE, fm.MEMSET_TABLE) if t in tables]
        if fm.STRINGS_TABLE not in tables or not (activity or fm.NVTX_TABLE in tables):
            raise InputError("not an Nsight Systems export: no StringIds and no CUPTI_ACTIVITY_KIND_KERNEL / "
                             "MEMCPY / MEMSET or NVTX_EVENTS table.", file=str(f.path),
                             hint="export the report with: nsys export --type sqlite report.nsys-rep "
                                  "(with CUDA trace on: nsys profile -t cuda,nvtx).")
        epoch0 = 0
        start_col = fm.SESSION_START.find(_columns(lite, fm.SESSION_START_TABLE)) \
            if fm.SESSION_START_TABLE in tables else None
        if start_col is not None:
            got = _arrow(lite, f'SELECT min("{start_col}") FROM {fm.SESSION_START_TABLE}').column(0).to_pylist()
            epoch0 = int(got[0]) if got and got[0] is not None else 0
        kinds = _copy_kinds(lite, tables)
        version = _export_version(lite, tables)
        con.execute("INSERT INTO event (run_id, rank, file_id, ph, name, cat, args) "
                    "VALUES (?, ?, ?, 'M', 'nsys_export', 'nsys', ?)",
                    [f.run_id, f.rank, f.file_id, json.dumps(version)])

        if fm.NVTX_TABLE in tables:
            items, joins = _expr("a", fm.NVTX, _columns(lite, fm.NVTX_TABLE), fm.NVTX_TABLE, f.path)
            # inline text, else the registered string
            items["text"] = f"coalesce(nullif({items['text']}, ''), {items['text_id']})"
            items["text_id"] = "NULL"
            types = ", ".join(str(t) for t in fm.NVTX_RANGE_TYPES + fm.NVTX_MARK_TYPES)
            _stage(con, lite, "nvtx", f"SELECT {_select(items, fm.NVTX)} FROM {fm.NVTX_TABLE} AS a {' '.join(joins)} "
                                      f"WHERE a.\"{fm.NVTX['event_type'].name}\" IN ({types})")
            _insert_nvtx(con, f, epoch0, pattern, grouped)
            con.execute(f"DROP TABLE IF EXISTS {_PREFIX}nvtx")

        _read_host(con, lite, f, epoch0, tables)

        parts, has_pid = [], True
        cols = ["kind", *fm.KERNEL, "bytes", "copy_kind", "src_kind", "dst_kind"]
        for table, kind, fields in ((fm.KERNEL_TABLE, "kernel", fm.KERNEL), (fm.MEMCPY_TABLE, "memcpy", fm.COPY),
                                    (fm.MEMSET_TABLE, "memset", fm.COPY)):
            if table in tables:
                table_cols = _columns(lite, table)
                has_pid = has_pid and fm.ACTIVITY["global_pid"].find(table_cols) is not None
                items, joins = _expr("a", fields, table_cols, table, f.path)
                items["kind"] = f"'{kind}'"
                parts.append(f"SELECT {_select(items, cols)} FROM {table} AS a {' '.join(joins)}")
        if not parts:
            return 0
        runtime = None
        if fm.RUNTIME_TABLE in tables:
            items, joins = _expr("a", fm.RUNTIME, _columns(lite, fm.RUNTIME_TABLE), fm.RUNTIME_TABLE, f.path)
            runtime = f"SELECT {_select(items, fm.RUNTIME)} FROM {fm.RUNTIME_TABLE} AS a {' '.join(joins)}"
        # Arrow tables, not a RecordBatchReader: the INSERT reads the rows more than once, and a
        # one-pass stream made DuckDB run it on one thread (bench/RESULTS.md)
        act = _arrow(lite, " UNION ALL ".join(parts))
        rt = _arrow(lite, runtime) if runtime is not None else None
        mem_kinds = _enum(lite, tables, fm.MEM_KIND_ENUM, fm.MEM_KINDS)
    if rt is not None:
        _insert_calls(con, f, epoch0, rt, "cuda_runtime")
    return _insert_kernels(con, f, epoch0, kinds, act, rt, has_pid, mem_kinds)


def _enum(lite, tables: set[str], table: str, default: dict[int, str]) -> dict[int, str]:
    """id → label of an ENUM_* table of the export, else ``default``."""
    if table not in tables:
        return dict(default)
    cols = _columns(lite, table)
    label = "label" if "label" in cols else "name"
    t = _arrow(lite, f"SELECT id, CAST({label} AS TEXT) AS label FROM {table}").to_pydict()
    return {int(i): str(v) for i, v in zip(t["id"], t["label"])}


def _thread_names(con, lite, tables: set[str]) -> None:
    """ThreadNames → temp table (global_tid, name); empty without the table."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREFIX}tnames (global_tid BIGINT, name VARCHAR)")
    if fm.THREAD_NAMES_TABLE not in tables or fm.STRINGS_TABLE not in tables:
        return
    data = _arrow(lite, f"SELECT t.globalTid AS global_tid, coalesce(s.value, '') AS name FROM {fm.THREAD_NAMES_TABLE} AS t "
                        f"JOIN {fm.STRINGS_TABLE} AS s ON s.id = t.nameId")
    view = f"{_PREFIX}arrow"
    register_arrow(con, view, data)
    try:
        con.execute(f"INSERT INTO {_PREFIX}tnames SELECT global_tid, arg_max(nullif(CAST(name AS VARCHAR), ''), "
                    f"length(CAST(name AS VARCHAR))) FROM {view} GROUP BY global_tid")
    finally:
        con.unregister(view)


def _read_host(con, lite, f: SourceFile, epoch0: int, tables: set[str]) -> None:
    """The host side of the export: OS runtime calls (OSRT_API → event cat osrt) and thread
    scheduling (SCHED_EVENTS → thread_state), with the thread names of ThreadNames."""
    _thread_names(con, lite, tables)
    if fm.OSRT_TABLE in tables and fm.STRINGS_TABLE in tables:
        items, joins = _expr("a", fm.OSRT, _columns(lite, fm.OSRT_TABLE), fm.OSRT_TABLE, f.path)
        _insert_calls(con, f, epoch0, _arrow(lite, f"SELECT {_select(items, fm.OSRT)} FROM {fm.OSRT_TABLE} AS a "
                                                   f"{' '.join(joins)}"), "osrt")
    if fm.SCHED_TABLE in tables:
        items, joins = _expr("a", fm.SCHED, _columns(lite, fm.SCHED_TABLE), fm.SCHED_TABLE, f.path)
        sched = _arrow(lite, f"SELECT {_select(items, fm.SCHED)} FROM {fm.SCHED_TABLE} AS a {' '.join(joins)}")
        states = _enum(lite, tables, fm.THREAD_STATE_ENUM, {})
        blocks = _enum(lite, tables, fm.THREAD_BLOCK_ENUM, {})
        _insert_sched(con, f, epoch0, sched, states, blocks)


def _insert_calls(con, f: SourceFile, epoch0: int, calls, cat: str) -> None:
    """Host API calls (CUDA runtime / OS runtime: start, end, global_tid, name) → event rows
    (ph X, cat ``cat``), with the thread's name."""
    view = f"{_PREFIX}calls"
    register_arrow(con, view, calls)
    try:
        con.execute(f"""
            INSERT INTO event (run_id, rank, file_id, ph, name, cat, pid, tid, thread_name, ts_ns, dur_ns)
            SELECT $run, $rank, $file, 'X', nullif(CAST(c.name AS VARCHAR), ''), '{cat}',
                   CAST((c.global_tid >> 24) & 16777215 AS VARCHAR), CAST(c.global_tid & 16777215 AS VARCHAR),
                   t.name, {int(epoch0)} + c.start, greatest(c."end" - c.start, 0)
            FROM {view} AS c
            LEFT JOIN {_PREFIX}tnames AS t ON t.global_tid = c.global_tid
            ORDER BY c.start
        """, {"run": f.run_id, "rank": f.rank, "file": f.file_id})
    finally:
        con.unregister(view)


def _insert_sched(con, f: SourceFile, epoch0: int, sched, states: dict[int, str], blocks: dict[int, str]) -> None:
    """SCHED_EVENTS → thread_state: per thread, each event to the next one of the thread is an
    interval, running after a schedule-in, off CPU (with the state and reason the
    schedule-out recorded) after a schedule-out."""
    view = f"{_PREFIX}sched"
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREFIX}enum (kind VARCHAR, id BIGINT, label VARCHAR)")
    rows = [["state", k, v] for k, v in states.items()] + [["block", k, v] for k, v in blocks.items()]
    if rows:
        insert_rows(con, f"{_PREFIX}enum", rows)
    register_arrow(con, view, sched)
    try:
        con.execute(f"""
            INSERT INTO thread_state (run_id, rank, file_id, pid, tid, thread_name, ts_ns, dur_ns, state, cpu,
                                      block_reason, source)
            WITH ev AS (
                SELECT start, cpu, sched_in <> 0 AS sched_in, global_tid, state, block,
                       lead(start) OVER (PARTITION BY global_tid ORDER BY start, sched_in) AS next_start
                FROM {view}
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
    finally:
        con.unregister(view)
        con.execute(f"DROP TABLE IF EXISTS {_PREFIX}enum")


def _insert_kernels(con, f: SourceFile, epoch0: int, kinds: dict[int, str], act, rt, has_pid: bool,
                    mem_kinds: dict[int, str] | None = None) -> int:
    """Kernel rows from the activity stream ``act``, with the launch call of each from the
    runtime stream ``rt`` (None without a runtime table) and the step from this file's NVTX
    step ranges (already in ``event``)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREFIX}kinds (id BIGINT, copy_kind VARCHAR)")
    if kinds:
        insert_rows(con, f"{_PREFIX}kinds", [[k, v] for k, v in kinds.items()])
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREFIX}mem (id BIGINT, label VARCHAR)")
    if mem_kinds:
        insert_rows(con, f"{_PREFIX}mem", [[k, v] for k, v in mem_kinds.items()])
    act_view, rt_view = f"{_PREFIX}act", f"{_PREFIX}rt"
    register_arrow(con, act_view, act)
    if rt is not None:
        register_arrow(con, rt_view, rt)
    # the launch call with the same correlation id in the same process (older exports have no
    # globalPid on the GPU activity: the correlation id alone); the earliest if one repeats
    key = "correlation, pid" if has_pid else "correlation"
    runtime = (f"""SELECT {key}, arg_min(tid, start) AS tid, arg_min(name, start) AS name, min(start) AS start,
                          arg_min("end", start) AS "end"
                   FROM (SELECT correlation, (global_tid >> 24) & 16777215 AS pid, global_tid & 16777215 AS tid,
                                nullif(CAST(name AS VARCHAR), '') AS name, start, "end" FROM {rt_view})
                   GROUP BY {key}""" if rt is not None else
               "SELECT NULL::BIGINT AS correlation, NULL::BIGINT AS pid, NULL::BIGINT AS tid, "
               "NULL::VARCHAR AS name, NULL::BIGINT AS start, NULL::BIGINT AS \"end\" WHERE false")
    launch_on = "l.correlation = n.correlation" + (" AND l.pid = n.pid" if has_pid else "")
    try:
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
    finally:
        con.unregister(act_view)
        if rt is not None:
            con.unregister(rt_view)
        con.execute(f"DROP TABLE IF EXISTS {_PREFIX}kinds")
        con.execute(f"DROP TABLE IF EXISTS {_PREFIX}mem")
        con.execute(f"DROP TABLE IF EXISTS {_PREFIX}tnames")


def _insert_nvtx(con, f: SourceFile, epoch0: int, pattern: str, grouped: bool) -> None:
    """NVTX ranges and marks → event; step ranges renamed ProfilerStep#N."""
    number = ("TRY_CAST(regexp_extract(text, $pattern, 1) AS INTEGER)" if grouped else
              "CAST(row_number() OVER (PARTITION BY regexp_matches(text, $pattern) ORDER BY start, \"end\" DESC) "
              "AS INTEGER)")
    con.execute(f"""
        INSERT INTO event
        WITH e AS (
            SELECT start, "end", event_type, nullif(CAST(text AS VARCHAR), '') AS text,
                   CASE WHEN global_tid IS NULL THEN NULL ELSE (global_tid >> 24) & 16777215 END AS pid,
                   CASE WHEN global_tid IS NULL THEN NULL ELSE global_tid & 16777215 END AS tid
            FROM {_PREFIX}nvtx
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
