"""The ingest result does not depend on the order a rank's files arrive in, in one command or
several: readers write only their own file's rows and the derive step rebuilds the rest.

Every table row (file ids aside: they number files in arrival order) and every public view's
result must be identical across the orders below."""
from __future__ import annotations

import duckdb
import pytest

from conftest import KINETO, RANK0, ingest_paths

OUT = RANK0 / "ASCEND_PROFILER_OUTPUT"
TABLES = ("run", "rank", "step", "event", "kernel", "op", "link", "memory", "kernel_details_raw",
          "profiler_step_trace", "profiler_comm_op", "profiler_comm_bandwidth", "profiler_comm_matrix",
          "profiler_parallel_group", "profiler_distributed_args")
MEMORY = [OUT / n for n in ("memory_record.csv", "operator_memory.csv", "npu_module_mem.csv")]
COMM = [OUT / n for n in ("communication.json", "communication_matrix.json")]
REST = [OUT / n for n in ("step_trace_time.csv",)] + [RANK0]

ASCEND_ORDERS = {
    "folder at once": [[RANK0]],
    "kernel_details.csv first, then trace_view.json": [[OUT / "kernel_details.csv"], [OUT / "trace_view.json"], REST],
    "trace_view.json first, then kernel_details.csv": [[OUT / "trace_view.json"], [OUT / "kernel_details.csv"], REST],
    "memory CSVs first": [MEMORY, [RANK0]],
    "communication JSONs last": [[OUT / "trace_view.json", OUT / "kernel_details.csv"] + MEMORY, COMM, REST],
    "every file alone, reversed": [[p] for p in sorted(OUT.iterdir(), reverse=True)] + [[RANK0]],
    "one command, files reversed": [sorted(OUT.iterdir(), reverse=True) + [RANK0]],
}


def _exact(row: tuple) -> tuple:
    """DOUBLEs to 12 significant digits: parallel sums round differently from run to run."""
    return tuple(float(f"{v:.12g}") if isinstance(v, float) else v for v in row)


def snapshot(db) -> dict[str, list[tuple]]:
    """Every table (without file ids and ingest times) and every public view, sorted."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for table in TABLES:
            cols = [c for (c,) in con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE table_name = ? AND schema_name = 'main' "
                "AND column_name NOT IN ('file_id', 'ingested_at', 'source_path', 'source_dir') "
                "ORDER BY column_index", [table]).fetchall()]
            out[table] = con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY ALL").fetchall()
        views = [v for (v,) in con.execute("SELECT name FROM tracedb_object WHERE schema_name = 'main' "
                                           "AND kind = 'view' ORDER BY name").fetchall()]
        for view in views:
            out[view] = [_exact(r) for r in con.execute(f"SELECT * FROM {view} ORDER BY ALL").fetchall()]
        return out
    finally:
        con.close()


def ingest_in_order(db, commands, **kw):
    for paths in commands:
        ingest_paths(db, *paths, run="r", **kw)


@pytest.mark.slow           # a campaign: seven orders of up to eleven ingests each (17 s of CPU)
def test_ascend_rank_in_every_order_gives_identical_rows(tmp_path):
    base = None
    for i, (name, commands) in enumerate(ASCEND_ORDERS.items()):
        db = tmp_path / f"{i}.duckdb"
        ingest_in_order(db, commands)
        snap = snapshot(db)
        assert snap["kernel"] and snap["op"] and snap["link"] and snap["memory"] and snap["step_breakdown"], name
        if base is None:
            base = snap
            continue
        for key in base:
            assert snap[key] == base[key], f"{name}: {key} differs from ingesting the folder at once"


@pytest.mark.parametrize("split", [False, True], ids=["one_command", "two_commands"])
def test_kineto_ranks_in_either_order(tmp_path, split):
    """Two Kineto traces (distributedInfo ranks 0 and 1) in either order: the same ranks and rows."""
    traces = sorted(KINETO.glob("*.json.gz"))
    snaps = []
    for i, order in enumerate((traces, traces[::-1])):
        db = tmp_path / f"{i}.duckdb"
        ingest_in_order(db, [[t] for t in order] if split else [order])
        snaps.append(snapshot(db))
    assert snaps[0]["kernel"] and snaps[0]["op"] and snaps[0]["step_breakdown"]
    assert [r[1] for r in snaps[0]["rank"]] == [0, 1]
    for key in snaps[0]:
        assert snaps[1][key] == snaps[0][key], key
