"""tracedb export --parquet: a DuckDB session over the Parquet files answers the same views."""
from __future__ import annotations

import math

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from conftest import KINETO, LEVEL1, LEVEL1_2024, ingested_runs, rows
from tracedb.cli import app
from tracedb.store.library import load_library

runner = CliRunner()


def same_rows(a: list[tuple], b: list[tuple]) -> bool:
    """Equal rows; DOUBLEs to 1e-9 relative (a parallel sum adds in any order: measured
    -1.8952699049524322 against ...295 for the same slow_link row)."""
    return len(a) == len(b) and all(
        len(x) == len(y) and all(math.isclose(u, v, rel_tol=1e-9) if isinstance(u, float) and isinstance(v, float)
                                 else u == v for u, v in zip(x, y))
        for x, y in zip(a, b))


@pytest.mark.slow     # a campaign over every view (10-20 s): CI runs it; the default set stays ~3 min
def test_parquet_views_equal_the_database(tmp_path, monkeypatch):
    db = tmp_path / "t.duckdb"
    ingested_runs(db, (LEVEL1, {"role": "baseline"}), (LEVEL1_2024, {"role": "comparison"}), (KINETO, {}))
    out = tmp_path / "pq"
    res = runner.invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert res.exit_code == 0, res.output
    # partitioned by run name and rank; the keys are in the folder names only; ns columns stay INT64
    assert (out / "event" / "run_name=level1" / "rank=1").is_dir()
    schema = pq.read_schema(next((out / "kernel").rglob("*.parquet")))
    assert str(schema.field("ts_ns").type) == "int64" and str(schema.field("run_id").type) == "int32"
    assert "rank" not in schema.names and "run_name" not in schema.names
    # pandas (pyarrow's hive discovery) reads a table folder as it is (ux-review F32)
    kernel = pd.read_parquet(out / "kernel")
    want = dict(((r, k), n) for r, k, n in rows(db, "SELECT run_name, rank, count(*) FROM kernel JOIN run USING (run_id) "
                                                  "GROUP BY ALL"))
    got = {(str(r), int(k)): n for (r, k), n in kernel.groupby(["run_name", "rank"], observed=True).size().items()}
    assert got == want and len(kernel) == rows(db, "SELECT count(*) FROM kernel")[0][0]
    assert kernel["ts_ns"].dtype == "int64"
    assert list(pd.read_parquet(out / "run")["run_name"]) == ["level1", "level1_2024_rank0_ascend_pt", "kineto"]
    views = [o.name for o in load_library() if o.kind == "view" and o.schema == "main"]
    file = duckdb.connect(str(db), read_only=True)        # the database's rows, on one connection
    try:
        want = {name: file.execute(f"SELECT * FROM {name}").fetchall() for name in views}
    finally:
        file.close()
    monkeypatch.chdir(out)
    con = duckdb.connect()
    con.execute((out / "views.sql").read_text())
    for name in views:
        got = con.execute(f"SELECT * FROM {name}").fetchall()
        assert same_rows(got, want[name]), name
    assert con.execute("SELECT count(*) FROM kernel_diff_between('level1', 'kineto')").fetchone()[0] > 0
    # comments travel with views.sql
    assert con.execute("SELECT comment FROM duckdb_columns() WHERE table_name = 'kernel' "
                       "AND column_name = 'ts_ns'").fetchone()[0].startswith("Kernel start")
    res = runner.invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert res.exit_code == 1 and "not empty" in res.stderr
