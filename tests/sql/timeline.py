"""Build tiny hand-made kernel timelines directly in the kernel/step tables."""
from __future__ import annotations


def add_run(con, run_id=1, name="r", role=None):
    con.execute("INSERT INTO run VALUES (?, ?, ?, 'npu', NULL, NULL)", [run_id, name, role])


def add_kernels(con, kernels, run_id=1, rank=0):
    """kernels: list of (name, start_ns, end_ns, is_comm, step)."""
    for i, (name, start, end, comm, step) in enumerate(kernels, 1):
        con.execute("""INSERT INTO kernel (run_id, rank, file_id, kernel_id, step, name, op_type, ts_ns, dur_ns,
                                           is_communication, source)
                       VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?, 'test')""",
                    [run_id, rank, i, step, name, name.split("_")[0], start, end - start, comm])


def add_step(con, step, host_start, host_end, run_id=1, rank=0):
    con.execute("INSERT INTO step (run_id, rank, step, host_start_ns, host_end_ns) VALUES (?, ?, ?, ?, ?)",
                [run_id, rank, step, host_start, host_end])


def fetch_dicts(con, sql, params=None):
    cur = con.execute(sql, params or [])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]
