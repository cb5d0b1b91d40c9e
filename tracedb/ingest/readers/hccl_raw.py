"""MindSpore ``hccl_raw_{rank}.csv`` → ``link`` rows per (step, op, link, transport) from the JSON
in ``communication_operator_cost`` (task_name ``hccl_raw``: a per-op sum, not one task;
formats.md §6.4.3). DuckDB parses the CSV and the nested JSON (JSON → MAP casts).
"""
from __future__ import annotations

from pathlib import Path

import duckdb

from ...errors import InputError
from ...timeconv import clean_text, json_us_to_ns
from ..sources.csvsource import READ_CSV, ident as _sql_ident, read_header, require_columns
from ..sources.errors import translate_read_error
from ..sources.paths import literal_path
from .step_trace_raw import STEP_ROW


def read(con: duckdb.DuckDBPyConnection, f) -> int:
    """hccl_raw_{rank}.csv → link rows per (step, op, link, transport); returns rows.

    From ``communication_operator_cost`` ({op: [step, cost_ms, wait_ms, {"src-dst": {"SDMA"|"RDMA":
    [time_ms, size_KB, bandwidth, (RDMA wait_ms)]}}]}): size KB = 1000 B → bytes, time ms → ns,
    bandwidth recomputed as bytes/ns (the file's third element is a sum of per-op bandwidths at
    step level, KB/s at op level). The '-' average row is skipped.

    Raises:
        InputError: missing columns, or JSON in a cell that does not parse.
    """
    path = f.path
    header = read_header(path)
    require_columns(header, path, ("step_num", "communication_operator_cost"), "MindSpore hccl_raw_{rank}.csv")
    num = lambda e, i: f"TRY_CAST(({e})->>{i} AS DECIMAL(38, 12))"   # noqa: E731
    with literal_path(path) as src:
        try:
            con.execute(f"""
                INSERT INTO link (run_id, rank, file_id, step, group_name, op_name, plane_id, task_name,
                                  src_rank, dst_rank, transport_type, link_type, ts_ns, dur_ns, size_bytes,
                                  bandwidth_gbps, notify_id, op_ts_ns, rdma_type)
                WITH r AS (
                    SELECT step_num, communication_operator_cost::JSON AS j FROM {READ_CSV} WHERE {STEP_ROW}
                ),
                ops AS (SELECT step_num, unnest(map_entries(j::MAP(VARCHAR, JSON))) AS e FROM r),
                links AS (
                    SELECT step_num, e.key AS op, e.value->>0 AS op_step,
                           unnest(map_entries((e.value->3)::MAP(VARCHAR, JSON))) AS l
                    FROM ops
                ),
                tr AS (
                    SELECT step_num, op, op_step, l.key AS link_key,
                           unnest(map_entries(l.value::MAP(VARCHAR, JSON))) AS t
                    FROM links
                ),
                vals AS (
                    SELECT *, TRY_CAST(round({num('t.value', 1)} * 1000) AS BIGINT) AS size_bytes,
                           TRY_CAST(round({num('t.value', 0)} * 1000000) AS BIGINT) AS dur_ns
                    FROM tr
                )
                SELECT ?, ?, ?, coalesce(TRY_CAST(op_step AS INTEGER), TRY_CAST(trim(step_num) AS INTEGER)),
                       NULL, op, NULL, 'hccl_raw',
                       TRY_CAST(split_part(link_key, '-', 1) AS BIGINT), TRY_CAST(split_part(link_key, '-', 2) AS BIGINT),
                       t.key, NULL, NULL, dur_ns, size_bytes,
                       CASE WHEN dur_ns > 0 THEN size_bytes / dur_ns END, NULL, NULL, NULL
                FROM vals
            """, [src, f.run_id, f.rank, f.file_id])
        except duckdb.Error as e:
            raise InputError(f"cannot read: {str(e).splitlines()[0]}", file=str(path),
                             hint="communication_operator_cost must hold the JSON MindSpore writes.") from e
    return con.execute("SELECT count(*) FROM link WHERE file_id = ?", [f.file_id]).fetchone()[0]


