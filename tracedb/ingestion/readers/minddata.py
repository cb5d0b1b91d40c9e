"""MindSpore MindData pipeline profile → ``data_pipeline``: one row per (pipeline op, output
queue sample).

* ``pipeline_profiling_{rank}.json``: ``op_info[]`` with ``op_id``, ``op_type``, ``num_workers``,
  ``children`` and ``metrics.output_queue`` (``length`` = capacity, ``size`` = the samples),
  ``sampling_interval`` (ms). The op listing an op in its ``children`` is its parent.
* ``minddata_pipeline_raw_{rank}.csv`` (MindSpore's parse of the JSON, MindInsight's input):
  ``output_queue_size`` is the JSON list of samples, ``parent_id`` / ``children_id`` given.

A rank folder holding both is read from the JSON only (the CSV is made from it). DuckDB parses
either file in one statement (field names: :mod:`..fieldmaps.minddata`); ``view
data_pipeline_wait`` reads the table.
"""
from __future__ import annotations

from ...engine import duckdb

from ...errors import InputError
from ..fieldmaps import minddata as fm, missing
from ..sources.csvsource import ident, open_csv, run
from ..sources.errors import translate_read_error
from ..sources.paths import literal_path


def _rows(ops: str, source: str) -> str:
    """SQL (the end of a WITH RECURSIVE whose CTE ``ops`` has one row per op: op_id, op_type,
    num_workers, parent_op_id, children, sizes, capacity, interval_ms, thr): each op's depth
    below the root, then one row per queue sample (one row with sample NULL for an op without
    samples), with the op's throughput at the sample (``thr``, a list beside ``sizes``)."""
    return f"""
            , depth_walk AS (
                SELECT op_id, 0 AS depth FROM {ops} WHERE parent_op_id IS NULL
                UNION ALL
                SELECT o.op_id, d.depth + 1 FROM {ops} AS o JOIN depth_walk AS d ON o.parent_op_id = d.op_id
                WHERE d.depth < 64          -- a cycle in a damaged file stops here
            ),
            with_depth AS (
                SELECT o.*, d.depth FROM {ops} AS o
                LEFT JOIN (SELECT op_id, min(depth) AS depth FROM depth_walk GROUP BY op_id) AS d USING (op_id)
            )
            SELECT $run, $rank, $file, op_id, op_type, num_workers, parent_op_id,
                   CASE WHEN len(children) > 0 THEN children END, depth, sample, queue_size, capacity,
                   interval_ms, '{source}', thr[sample + 1]
            FROM (SELECT *, unnest(sizes) AS queue_size, unnest(range(len(sizes)))::INTEGER AS sample
                  FROM with_depth WHERE len(sizes) > 0)
            UNION ALL
            SELECT $run, $rank, $file, op_id, op_type, num_workers, parent_op_id,
                   CASE WHEN len(children) > 0 THEN children END, depth, NULL, NULL, capacity, interval_ms,
                   '{source}', NULL
            FROM with_depth WHERE coalesce(len(sizes), 0) = 0"""


def read_json(con: duckdb.DuckDBPyConnection, f) -> int:
    """pipeline_profiling_{rank}.json → data_pipeline; returns the number of rows.

    Raises:
        InputError: malformed JSON, no op_info array, an op without op_id.
    """
    top, op = fm.JSON_TOP, fm.JSON
    with literal_path(f.path) as src:
        try:
            docs = con.execute(f"""
                SELECT len({top['ops'].name}), len(list_filter({top['ops'].name},
                       lambda o: TRY_CAST(o->>'{op['id'].name}' AS INTEGER) IS NULL))
                FROM read_json(?, format = 'unstructured', records = true,
                               columns = {{{top['ops'].name}: 'JSON[]', {top['interval_ms'].name}: 'VARCHAR'}})
            """, [src]).fetchall()
        except duckdb.Error as e:
            raise translate_read_error(e, str(f.path)) from e
        if len(docs) != 1:
            # a second document after the first would double every op
            raise InputError(f"the file holds {len(docs)} JSON documents; pipeline_profiling_{{rank}}.json holds one.",
                             file=str(f.path), place="JSON document 2" if docs else "byte 0",
                             hint="the file was written twice or concatenated; re-export it.")
        n_ops, bad = docs[0]
        if n_ops is None:
            raise InputError(f"no {top['ops'].name} array.", file=str(f.path),
                             hint="expected MindSpore's pipeline_profiling_{rank}.json.")
        if bad:
            raise InputError(f"an op of {top['ops'].name} has no integer {op['id'].name}.", file=str(f.path))
        return con.execute(f"""
            INSERT INTO data_pipeline
            WITH RECURSIVE doc AS (
                SELECT unnest({top['ops'].name}) AS o,
                       TRY_CAST({top['interval_ms'].name} AS BIGINT) AS interval_ms
                FROM read_json($path, format = 'unstructured', records = true,
                               columns = {{{top['ops'].name}: 'JSON[]', {top['interval_ms'].name}: 'VARCHAR'}})
            ),
            ops AS (
                SELECT CAST(o->>'{op['id'].name}' AS INTEGER) AS op_id, o->>'{op['type'].name}' AS op_type,
                       TRY_CAST(o->>'{op['workers'].name}' AS INTEGER) AS num_workers,
                       TRY_CAST(o->'{op['child_ids'].name}' AS INTEGER[]) AS children,
                       TRY_CAST(json_extract(o->'{op['queue_metrics'].name}', '{fm.QUEUE_SIZE_PATH}') AS BIGINT[]) AS sizes,
                       TRY_CAST(json_extract_string(o->'{op['queue_metrics'].name}', '{fm.QUEUE_LENGTH_PATH}') AS BIGINT)
                           AS capacity,
                       interval_ms,
                       TRY_CAST(json_extract(o->'{op['queue_metrics'].name}', '{fm.QUEUE_THROUGHPUT_PATH}') AS DOUBLE[])
                           AS thr
                FROM doc
            ),
            parent AS (SELECT unnest(children) AS op_id, op_id AS parent_op_id FROM ops WHERE len(children) > 0),
            one AS (
                SELECT o.*, p.parent_op_id
                FROM ops AS o LEFT JOIN (SELECT op_id, min(parent_op_id) AS parent_op_id FROM parent GROUP BY op_id)
                     AS p USING (op_id)
            )
            {_rows('one', 'pipeline_profiling')}
        """, {"path": src, "run": f.run_id, "rank": f.rank, "file": f.file_id}).fetchone()[0]


def read_csv(con: duckdb.DuckDBPyConnection, f) -> int:
    """minddata_pipeline_raw_{rank}.csv → data_pipeline; returns the number of rows.

    Raises:
        InputError: empty or truncated file, a missing required column, an op_id that is not
            an integer (the line named).
    """
    c = fm.CSV
    with open_csv(f.path, "MindSpore minddata_pipeline_raw_{rank}.csv", lambda h: missing(c, h)) as csv:
        def col(key: str) -> str:
            return ident(c[key].name) if csv.has(c[key].name) else "NULL"

        op_id = csv.number(c["id"].name, f"TRY_CAST(trim({col('id')}) AS INTEGER)",
                           f"nullif(trim({col('id')}), '')")
        return run(con, csv, f"""
            INSERT INTO data_pipeline
            WITH RECURSIVE r AS (
                SELECT {op_id} AS op_id, {col('type')} AS op_type,
                       TRY_CAST({col('workers')} AS INTEGER) AS num_workers,
                       TRY_CAST(nullif(trim({col('parent_op_id')}), '') AS INTEGER) AS parent_op_id,
                       TRY_CAST(TRY_CAST(nullif(trim({col('child_ids')}), '') AS JSON) AS INTEGER[]) AS children,
                       TRY_CAST(TRY_CAST(nullif(trim({col('queue_size')}), '') AS JSON) AS BIGINT[]) AS sizes,
                       TRY_CAST(nullif(trim({col('queue_capacity')}), '') AS BIGINT) AS capacity,
                       TRY_CAST(nullif(trim({col('interval_ms')}), '') AS BIGINT) AS interval_ms,
                       NULL::DOUBLE[] AS thr
                FROM {csv.sql('$path')}
            )
            {_rows('r', 'minddata_pipeline_raw')}
        """, {"path": csv.src, "run": f.run_id, "rank": f.rank, "file": f.file_id}).fetchone()[0]
