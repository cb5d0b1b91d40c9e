"""MindSpore ``hccl_raw_{rank}.csv`` → ``link`` rows per (step, op, link, transport) from the JSON
in ``communication_operator_cost`` (task_name ``hccl_raw``: a per-op sum, not one task;
formats.md §6.4.3). DuckDB parses the CSV and the nested JSON (JSON → MAP casts). Names and
positions come from :mod:`tracedb.ingestion.fieldmaps.hccl_raw`.
"""
from __future__ import annotations

from ...engine import duckdb

from ..fieldmaps import missing
from ..fieldmaps.hccl_raw import FIELDS, LINK_SIZE_KB, LINK_TIME_MS, OP_LINKS, OP_STEP, SIZE_KB_BYTES
from ..sources.csvsource import CsvFile, ident as _sql_ident, open_csv, run
from .step_trace_raw import STEP_ROW, check_steps


def _scaled(csv: CsvFile, element: str, factor: int) -> str:
    """SQL: a number inside the op JSON (``element``: JSON) × ``factor`` → BIGINT; text there →
    error naming the column and the line."""
    raw = f"nullif(({element})->>'$', '')"
    converted = f"TRY_CAST(round(TRY_CAST({raw} AS DECIMAL(38, 12)) * {factor}) AS BIGINT)"
    return csv.number(FIELDS["op_cost"].name, converted, raw, line="line")


def _rank(csv: CsvFile, part: int) -> str:
    """SQL: the src (1) or dst (2) rank of a link key "src-dst"; anything else → error with line."""
    raw = f"nullif(trim(split_part(link_key, '-', {part})), '')"
    return csv.number(FIELDS["op_cost"].name, f"TRY_CAST({raw} AS BIGINT)", f"coalesce({raw}, '?')", line="line")


def read(con: duckdb.DuckDBPyConnection, f) -> int:
    """hccl_raw_{rank}.csv → link rows per (step, op, link, transport); returns rows.

    From ``communication_operator_cost`` ({op: [step, cost_ms, wait_ms, {"src-dst": {"SDMA"|"RDMA":
    [time_ms, size_KB, bandwidth, (RDMA wait_ms)]}}]}): size KB = 1000 B → bytes, time ms → ns,
    bandwidth recomputed as bytes/ns (the file's third element is a sum of per-op bandwidths at
    step level, KB/s at op level). The '-' average row is skipped.

    Raises:
        InputError: missing columns, truncated file, JSON in a cell that does not parse, a
            step_num that is neither a step nor the average row's '-', or a size or time that is
            not a number (with the line).
    """
    step = _sql_ident(FIELDS["step"].name)
    with open_csv(f.path, "MindSpore hccl_raw_{rank}.csv", lambda h: missing(FIELDS, h)) as csv:
        check_steps(con, csv, csv.sql(), [csv.src])
        size = _scaled(csv, f"t.value->{LINK_SIZE_KB}", SIZE_KB_BYTES)
        dur = _scaled(csv, f"t.value->{LINK_TIME_MS}", 1_000_000)
        run(con, csv, f"""
            INSERT INTO link (run_id, rank, file_id, step, group_name, op_name, plane_id, task_name,
                              src_rank, dst_rank, transport_type, link_type, ts_ns, dur_ns, size_bytes,
                              bandwidth_gbps, notify_id, op_ts_ns, rdma_type)
            WITH r AS (
                SELECT line, {step} AS step_num, {csv.json(FIELDS["op_cost"].name, "line")} AS j
                FROM (SELECT row_number() OVER () + 1 AS line, * FROM {csv.sql()}) WHERE {STEP_ROW}
            ),
            ops AS (SELECT line, step_num, unnest(map_entries(j::MAP(VARCHAR, JSON))) AS e FROM r),
            links AS (
                SELECT line, step_num, e.key AS op, e.value->>{OP_STEP} AS op_step,
                       unnest(map_entries((e.value->{OP_LINKS})::MAP(VARCHAR, JSON))) AS l
                FROM ops
            ),
            tr AS (
                SELECT line, step_num, op, op_step, l.key AS link_key,
                       unnest(map_entries(l.value::MAP(VARCHAR, JSON))) AS t
                FROM links
            ),
            vals AS (SELECT *, {size} AS size_bytes, {dur} AS dur_ns FROM tr)
            SELECT ?, ?, ?, coalesce(TRY_CAST(op_step AS INTEGER), TRY_CAST(trim(step_num) AS INTEGER)),
                   NULL, op, NULL, 'hccl_raw',
                   {_rank(csv, 1)}, {_rank(csv, 2)},
                   t.key, NULL, NULL, dur_ns, size_bytes,
                   CASE WHEN dur_ns > 0 THEN size_bytes / dur_ns END, NULL, NULL, NULL
            FROM vals
        """, [csv.src, f.run_id, f.rank, f.file_id])
    return con.execute("SELECT count(*) FROM link WHERE file_id = ?", [f.file_id]).fetchone()[0]
