"""A file written before link carried its task columns (derive/075) gets them at the next ingest.

comm_task reads link.plane_seq, is_master_plane and the RDMA window columns instead of windowing
link per query; an older file has link rows without them. The next ingest into it (here: the
same rank again, every file skipped) adds the columns and fills them for the rows already there,
so the comm views give what a new file gives (and what test_comm_reference checks against the
profiler's own communication.json).
"""
from __future__ import annotations

import duckdb

from conftest import FIXTURES, ingest_paths, rows

TASK_COLUMNS = ["plane_seq", "is_master_plane", "in_rdma_window", "starts_rdma_window", "rdma_window_ns",
                "rdma_window_bytes", "rdma_payload_count"]
LINK_TASKS = (f"SELECT file_id, op_name, op_ts_ns, plane_id, ts_ns, task_name, {', '.join(TASK_COLUMNS)} "
              "FROM link WHERE op_name IS NOT NULL AND op_ts_ns IS NOT NULL ORDER BY ALL")


def test_older_file_gets_the_link_task_columns(db_path):
    rank = FIXTURES / "ascend/level1/rank0_ascend_pt"
    ingest_paths(db_path, rank)
    tasks = rows(db_path, LINK_TASKS)
    comm_op = rows(db_path, "SELECT * FROM comm_op ORDER BY ALL")
    check = rows(db_path, "SELECT status, count(*) FROM comm_op_check GROUP BY ALL ORDER BY ALL")
    assert len(tasks) > 100 and comm_op
    assert all(t[6] is not None for t in tasks)                 # every op task has its position
    assert dict(check).get("ok", 0) > 0

    # the file as an older tracedb left it: link without the task columns, another schema
    con = duckdb.connect(str(db_path))
    for column in TASK_COLUMNS:
        con.execute(f"ALTER TABLE link DROP COLUMN {column}")
    con.execute("UPDATE tracedb_meta SET value = 'older' WHERE key = 'schema_hash'")
    con.close()

    ingest_paths(db_path, rank)          # nothing new to read; the schema is brought up to date
    assert rows(db_path, LINK_TASKS) == tasks
    assert rows(db_path, "SELECT * FROM comm_op ORDER BY ALL") == comm_op
    assert rows(db_path, "SELECT status, count(*) FROM comm_op_check GROUP BY ALL ORDER BY ALL") == check
