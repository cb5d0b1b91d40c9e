"""Nsight Systems SQLite export (``nsys export --type sqlite``) → ``kernel`` and ``event``.

* CUPTI_ACTIVITY_KIND_KERNEL → kernel rows (stream, device, grid/block, correlation id);
  NCCL kernels (the Kineto rule: names nccl*/rccl*, *ncclKernel*, *ncclDevKernel*) are
  communication.
* CUPTI_ACTIVITY_KIND_MEMCPY / MEMSET → kernel rows with ``copy_kind`` (HtoD, DtoH, DtoD, PtoP,
  HtoH from copyKind, via the file's ENUM_CUDA_MEMCPY_OPER when present; Memset) and
  ``size_bytes``.
* CUPTI_ACTIVITY_KIND_RUNTIME → each kernel's / copy's ``launch_*`` columns: the runtime call
  with the same correlationId in the same process.
* NVTX_EVENTS → ``event`` rows (cat ``nvtx``: ranges ph X, marks ph i). A range whose text
  matches the step pattern (default ``^ProfilerStep#(\\d+)$``, ``tracedb ingest
  --step-range-pattern``) is written as ``ProfilerStep#N`` (N = the pattern's first group, else
  the range's order), its own text in args.nvtx_text; the derive step then makes it a step.

Names are resolved through StringIds inside SQLite. Timestamps stay integers: the export's
ns on the session clock plus ``TARGET_INFO_SESSION_START_TIME.utcEpochNs`` (UTC epoch ns of
the session start), so ts_ns is epoch ns like the other readers'; an export without that
table (older schema) keeps the session-relative ns. The tables are read through the ADBC
SQLite driver as Arrow record batches (C), which DuckDB scans directly: no Python loop over
rows. The kernel steps are set by ``derive/045_kernel_step_nsys.sql``.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path

import duckdb

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
        elif f.kind == "string_id":
            s = f"s_{key}"
            joins.append(f"LEFT JOIN {fm.STRINGS_TABLE} AS {s} ON {s}.id = {alias}.\"{col}\"")
            items[key] = f"{s}.value"
        elif f.kind == "text":
            items[key] = f"CAST({alias}.\"{col}\" AS TEXT)"
        else:
            items[key] = f"{alias}.\"{col}\""
    return items, joins


def _select(items: dict[str, str], keys) -> str:
    return ", ".join(f"{items.get(k, 'NULL')} AS \"{k}\"" for k in keys)


def _stage(con, lite, name: str, sql: str) -> None:
    """Copy one SQLite query result into a DuckDB temp table through Arrow."""
    data = _arrow(lite, sql)
    view = f"{_PREFIX}arrow"
    con.register(view, data)
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


def step_pattern(pattern: str | None) -> tuple[str, bool]:
    """The step pattern and whether it has a group giving the step number.

    Raises:
        InputError: not a valid regular expression.
    """
    pattern = pattern or fm.DEFAULT_STEP_PATTERN
    try:
        duckdb.sql("SELECT regexp_matches('', ?)", params=[pattern]).fetchall()
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
        if fm.SESSION_START_TABLE in tables and "utcEpochNs" in _columns(lite, fm.SESSION_START_TABLE):
            got = _arrow(lite, f"SELECT min(utcEpochNs) FROM {fm.SESSION_START_TABLE}").column(0).to_pylist()
            epoch0 = int(got[0]) if got and got[0] is not None else 0
        kinds = _copy_kinds(lite, tables)

        parts = []
        cols = ["kind", *fm.KERNEL, "bytes", "copy_kind"]
        for table, kind, fields in ((fm.KERNEL_TABLE, "kernel", fm.KERNEL), (fm.MEMCPY_TABLE, "memcpy", fm.COPY),
                                    (fm.MEMSET_TABLE, "memset", fm.COPY)):
            if table in tables:
                items, joins = _expr("a", fields, _columns(lite, table), table, f.path)
                items["kind"] = f"'{kind}'"
                parts.append(f"SELECT {_select(items, cols)} FROM {table} AS a {' '.join(joins)}")
        if parts:
            _stage(con, lite, "activity", " UNION ALL ".join(parts))
        if fm.RUNTIME_TABLE in tables:
            items, joins = _expr("a", fm.RUNTIME, _columns(lite, fm.RUNTIME_TABLE), fm.RUNTIME_TABLE, f.path)
            _stage(con, lite, "runtime", f"SELECT {_select(items, fm.RUNTIME)} FROM {fm.RUNTIME_TABLE} AS a "
                                         f"{' '.join(joins)}")
        if fm.NVTX_TABLE in tables:
            items, joins = _expr("a", fm.NVTX, _columns(lite, fm.NVTX_TABLE), fm.NVTX_TABLE, f.path)
            types = ", ".join(str(t) for t in fm.NVTX_RANGE_TYPES + fm.NVTX_MARK_TYPES)
            _stage(con, lite, "nvtx", f"SELECT {_select(items, fm.NVTX)} FROM {fm.NVTX_TABLE} AS a {' '.join(joins)} "
                                      f"WHERE a.eventType IN ({types})")

    n = _insert_kernels(con, f, epoch0, kinds) if parts else 0
    if fm.NVTX_TABLE in tables:
        _insert_nvtx(con, f, epoch0, pattern, grouped)
    for t in ("activity", "runtime", "nvtx", "kinds"):
        con.execute(f"DROP TABLE IF EXISTS {_PREFIX}{t}")
    return n


def _insert_kernels(con, f: SourceFile, epoch0: int, kinds: dict[int, str]) -> int:
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREFIX}kinds (id BIGINT, copy_kind VARCHAR)")
    if kinds:
        con.executemany(f"INSERT INTO {_PREFIX}kinds VALUES (?, ?)", [[k, v] for k, v in kinds.items()])
    has_runtime = con.execute(f"SELECT count(*) FROM duckdb_tables() WHERE temporary "
                              f"AND table_name = '{_PREFIX}runtime'").fetchone()[0]
    runtime = (f"(SELECT correlation, (global_tid >> 24) & 16777215 AS pid, global_tid & 16777215 AS tid, "
               f"name, start, \"end\" FROM {_PREFIX}runtime)" if has_runtime else
               "(SELECT NULL::BIGINT AS correlation, NULL::BIGINT AS pid, NULL::BIGINT AS tid, NULL::VARCHAR AS name, "
               "NULL::BIGINT AS start, NULL::BIGINT AS \"end\" WHERE false)")
    return con.execute(f"""
        INSERT INTO kernel BY NAME
        WITH a AS (
            SELECT * REPLACE (CAST(name AS VARCHAR) AS name, CAST(short_name AS VARCHAR) AS short_name),
                   row_number() OVER () AS arow,
                   CASE WHEN global_pid IS NULL THEN NULL ELSE (global_pid >> 24) & 16777215 END AS pid
            FROM {_PREFIX}activity
        ),
        named AS (
            SELECT a.*,
                   CASE a.kind WHEN 'kernel' THEN a.name
                               WHEN 'memset' THEN 'Memset'
                               ELSE 'Memcpy ' || coalesce(k.copy_kind, 'Unknown') END AS kname,
                   CASE a.kind WHEN 'memset' THEN 'Memset' WHEN 'memcpy' THEN k.copy_kind END AS ckind
            FROM a LEFT JOIN {_PREFIX}kinds AS k ON a.kind = 'memcpy' AND k.id = a.copy_kind
        ),
        launch AS (
            -- one runtime call per (process, correlation id); the earliest if a file repeats one
            SELECT correlation, pid, arg_min(tid, start) AS tid, arg_min(name, start) AS name,
                   min(start) AS start, arg_min("end", start) AS "end"
            FROM {runtime}
            GROUP BY correlation, pid
        ),
        launch_any AS (
            -- older exports have no globalPid on the GPU activity: match on the correlation id
            SELECT correlation, arg_min(tid, start) AS tid, arg_min(name, start) AS name,
                   min(start) AS start, arg_min("end", start) AS "end"
            FROM launch GROUP BY correlation
        )
        SELECT ? AS run_id, ? AS rank, ? AS file_id,
               row_number() OVER (ORDER BY n.start, n.kname, n.arow) AS kernel_id,
               NULL AS step, n.kname AS name,
               CASE WHEN n.kind = 'kernel' THEN coalesce(n.short_name, n.name) ELSE n.kname END AS op_type,
               CASE WHEN n.kind = 'memcpy' THEN 'MEMCPY' WHEN n.kind = 'memset' THEN 'MEMSET'
                    WHEN is_comm THEN 'COMMUNICATION' ELSE 'KERNEL' END AS accelerator_core,
               n.device AS device_id, CAST(n.stream AS VARCHAR) AS stream_id,
               {int(epoch0)} + n.start AS ts_ns, greatest(n."end" - n.start, 0) AS dur_ns,
               is_comm AS is_communication,
               n.grid_x, n.grid_y, n.grid_z, n.block_x, n.block_y, n.block_z,
               n.correlation AS correlation_id,
               coalesce(l.name, la.name) AS launch_name, CAST(coalesce(l.tid, la.tid) AS VARCHAR) AS launch_tid,
               {int(epoch0)} + coalesce(l.start, la.start) AS launch_ts_ns,
               coalesce(l."end" - l.start, la."end" - la.start) AS launch_dur_ns,
               n.ckind AS copy_kind, CASE WHEN n.kind <> 'kernel' THEN n.bytes END AS size_bytes,
               'nsys' AS source
        FROM (SELECT *, kind = 'kernel' AND (lower(name) LIKE 'nccl%' OR lower(name) LIKE 'rccl%'
                        OR name LIKE '%ncclKernel%' OR name LIKE '%ncclDevKernel%') AS is_comm FROM named) AS n
        LEFT JOIN launch AS l ON l.correlation = n.correlation AND l.pid = n.pid
        LEFT JOIN launch_any AS la ON n.pid IS NULL AND la.correlation = n.correlation
        ORDER BY kernel_id
    """, [f.run_id, f.rank, f.file_id]).fetchone()[0]


def _insert_nvtx(con, f: SourceFile, epoch0: int, pattern: str, grouped: bool) -> None:
    """NVTX ranges and marks → event; step ranges renamed ProfilerStep#N."""
    number = ("TRY_CAST(regexp_extract(text, $pattern, 1) AS INTEGER)" if grouped else
              "CAST(row_number() OVER (PARTITION BY regexp_matches(text, $pattern) ORDER BY start, \"end\" DESC) "
              "AS INTEGER)")
    con.execute(f"""
        INSERT INTO event
        WITH e AS (
            SELECT start, "end", event_type, CAST(coalesce(CAST(text AS VARCHAR), CAST(text_id AS VARCHAR)) AS VARCHAR) AS text,
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
