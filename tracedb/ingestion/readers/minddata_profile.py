"""MindSpore MindData profile files beside ``pipeline_profiling_{rank}.json`` (minddata.py):

* ``device_queue_profiling_{rank}.txt`` (sink mode: the DeviceQueueOp that feeds the device) or
  ``dataset_iterator_profiling_{rank}.txt`` (non-sink mode) → ``data_queue_record``: one row per
  line "type extra-info batch value timestamp" (MindSpore MinddataProfilingAnalyzer reads the
  first five integers of a line; so do we).
* ``minddata_cpu_utilization_{rank}.json`` (MindSpore CpuSampler) → ``minddata_cpu_sample``: the
  machine's, the process's and each pipeline op's CPU utilisation per sample.

Field names: :mod:`..fieldmaps.minddata`. DuckDB parses either file in one statement.
"""
from __future__ import annotations

from ...engine import duckdb

from ...errors import InputError
from ..fieldmaps import minddata as fm
from ..sources.errors import translate_read_error
from ..sources.paths import literal_path


def read_queue(con: duckdb.DuckDBPyConnection, f) -> int:
    """device_queue_profiling_{rank}.txt / dataset_iterator_profiling_{rank}.txt →
    data_queue_record; returns the number of rows.

    Raises:
        InputError: a non-empty line without five integers (the line named).
    """
    source = next((s for prefix, s in fm.QUEUE_SOURCES.items() if f.path.name.lower().startswith(prefix)),
                  "device_queue_profiling")
    kinds = " ".join(f"WHEN {k} THEN '{v}'" for k, v in fm.QUEUE_TIME_KINDS.items())
    with literal_path(f.path) as src:
        try:
            con.execute(f"""
                CREATE OR REPLACE TEMP TABLE _tracedb_queue_lines AS
                WITH doc AS (SELECT string_split(replace(content, chr(13), ''), chr(10)) AS lines FROM read_text(?)),
                numbered AS (
                    SELECT unnest(lines) AS text, unnest(range(1, len(lines) + 1)) AS line FROM doc
                ),
                fields AS (
                    SELECT line, list_filter(string_split(trim(text), ' '), lambda x: x <> '') AS parts
                    FROM numbered WHERE trim(text) <> ''
                )
                SELECT line, parts, len(parts) >= {fm.QUEUE_FIELDS}
                       AND len(list_filter(parts[1:{fm.QUEUE_FIELDS}], lambda x: TRY_CAST(x AS BIGINT) IS NULL)) = 0 AS ok
                FROM fields
            """, [src])
        except duckdb.Error as e:
            raise translate_read_error(e, str(f.path)) from e
    try:
        bad = con.execute("SELECT min(line) FROM _tracedb_queue_lines WHERE NOT ok").fetchone()[0]
        if bad is not None:
            raise InputError(f"not a MindData queue record: expected {fm.QUEUE_FIELDS} integers "
                             "(type extra-info batch value timestamp).", file=str(f.path), place=f"line {bad}")
        return con.execute(f"""
            INSERT INTO data_queue_record
                (run_id, rank, file_id, line, kind, batch, time_ms, queue_size, queue_capacity, ts_ms, source)
            SELECT $run, $rank, $file, line,
                   CASE WHEN t = 1 THEN 'queue' WHEN t = 0 THEN CASE x {kinds} ELSE 'unknown' END
                        ELSE 'unknown' END,
                   CAST(b AS INTEGER),
                   CASE WHEN t = 0 THEN v END, CASE WHEN t = 1 THEN v END, CASE WHEN t = 1 THEN x END,
                   ts, '{source}'
            FROM (SELECT line, CAST(parts[1] AS BIGINT) AS t, CAST(parts[2] AS BIGINT) AS x,
                         CAST(parts[3] AS BIGINT) AS b, CAST(parts[4] AS BIGINT) AS v, CAST(parts[5] AS BIGINT) AS ts
                  FROM _tracedb_queue_lines)
            ORDER BY line
        """, {"run": f.run_id, "rank": f.rank, "file": f.file_id}).fetchone()[0]
    finally:
        con.execute("DROP TABLE IF EXISTS _tracedb_queue_lines")


def read_cpu(con: duckdb.DuckDBPyConnection, f) -> int:
    """minddata_cpu_utilization_{rank}.json → minddata_cpu_sample; returns the number of rows.

    Raises:
        InputError: malformed JSON, or neither device_info nor op_info (not MindSpore's file).
    """
    t = fm.CPU_TOP
    cols = ", ".join(f"{t[k].name}: '{'JSON[]' if k == 'ops' else ('VARCHAR' if t[k].kind == 'int' else 'JSON')}'"
                     for k in t)
    runnable = ", ".join(f"json_extract(device, '$.{n}')" for n in fm.CPU_RUNNABLE)

    def series(obj: str, key: str) -> str:
        return f"TRY_CAST(json_extract({obj}, '$.{key}') AS DOUBLE[])"

    with literal_path(f.path) as src:
        try:
            has = con.execute(f"""
                SELECT {t['device'].name} IS NOT NULL OR {t['ops'].name} IS NOT NULL
                FROM read_json(?, format = 'auto', records = true, columns = {{{cols}}})
            """, [src]).fetchall()
        except duckdb.Error as e:
            raise translate_read_error(e, str(f.path)) from e
        if not has or not has[0][0]:
            raise InputError(f"no {t['device'].name} and no {t['ops'].name}: not a MindSpore "
                             "minddata_cpu_utilization file.", file=str(f.path),
                             hint="expected MindSpore's minddata_cpu_utilization_{rank}.json.")
        return con.execute(f"""
            INSERT INTO minddata_cpu_sample
                (run_id, rank, file_id, scope, op_id, sample, ts_ms, user_pct, sys_pct, io_pct, idle_pct,
                 runnable_processes, context_switch_count, cpu_processor_count, sampling_interval_ms, source)
            WITH doc AS (
                SELECT {t['device'].name} AS device, {t['process'].name} AS process, {t['ops'].name} AS ops,
                       TRY_CAST({t['cpus'].name} AS INTEGER) AS cpus,
                       TRY_CAST({t['interval_ms'].name} AS BIGINT) AS interval_ms,
                       TRY_CAST({t['time_stamp'].name} AS BIGINT[]) AS stamps
                FROM read_json($path, format = 'auto', records = true, columns = {{{cols}}})
            ),
            series AS (
                SELECT 'device' AS scope, NULL::INTEGER AS op_id, {series('device', fm.CPU_USER)} AS u,
                       {series('device', fm.CPU_SYS)} AS s, {series('device', fm.CPU_IO)} AS io,
                       {series('device', fm.CPU_IDLE)} AS idle,
                       TRY_CAST(coalesce({runnable}) AS DOUBLE[]) AS runnable,
                       {series('device', fm.CPU_CONTEXT_SWITCH)} AS ctx, cpus, interval_ms, stamps
                FROM doc WHERE device IS NOT NULL
                UNION ALL
                SELECT 'process', NULL, {series('process', fm.CPU_USER)}, {series('process', fm.CPU_SYS)},
                       NULL, NULL, NULL, NULL, cpus, interval_ms, stamps
                FROM doc WHERE process IS NOT NULL
                UNION ALL
                SELECT 'op', TRY_CAST(o->>'op_id' AS INTEGER), {series("o->'metrics'", fm.CPU_USER)},
                       {series("o->'metrics'", fm.CPU_SYS)}, NULL, NULL, NULL, NULL, cpus, interval_ms, stamps
                FROM (SELECT unnest(ops) AS o, cpus, interval_ms, stamps FROM doc WHERE ops IS NOT NULL)
            ),
            samples AS (
                SELECT *, unnest(range(greatest(coalesce(len(u), 0), coalesce(len(s), 0)))) AS i FROM series
            )
            SELECT $run, $rank, $file, scope, op_id, CAST(i AS INTEGER), stamps[i + 1], u[i + 1], s[i + 1],
                   io[i + 1], idle[i + 1], CAST(runnable[i + 1] AS BIGINT), CAST(ctx[i + 1] AS BIGINT), cpus,
                   interval_ms, 'minddata_cpu_utilization'
            FROM samples
            ORDER BY CASE scope WHEN 'device' THEN 0 WHEN 'process' THEN 1 ELSE 2 END, op_id, i
        """, {"path": src, "run": f.run_id, "rank": f.rank, "file": f.file_id}).fetchone()[0]
