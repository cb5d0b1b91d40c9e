"""tracedb export --parquet: a DuckDB session over the Parquet files answers the same views."""
from __future__ import annotations

import math

import duckdb
import pyarrow.parquet as pq
from typer.testing import CliRunner

from conftest import FIXTURES, ingest_paths, rows
from tracedb.cli import app
from tracedb.registry import load_library

runner = CliRunner()


def same_rows(a: list[tuple], b: list[tuple]) -> bool:
    """Equal rows; DOUBLEs to 1e-9 relative (a parallel sum adds in any order: measured
    -1.8952699049524322 against ...295 for the same slow_link row)."""
    return len(a) == len(b) and all(
        len(x) == len(y) and all(math.isclose(u, v, rel_tol=1e-9) if isinstance(u, float) and isinstance(v, float)
                                 else u == v for u, v in zip(x, y))
        for x, y in zip(a, b))


def test_parquet_views_equal_the_database(tmp_path, monkeypatch):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, FIXTURES / "ascend/level1", role="baseline")
    ingest_paths(db, FIXTURES / "ascend/level1_2024_rank0_ascend_pt", role="comparison")
    ingest_paths(db, FIXTURES / "kineto")
    out = tmp_path / "pq"
    res = runner.invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert res.exit_code == 0, res.output
    # partitioned by run and rank, ns columns stay INT64
    assert (out / "event" / "run_id=1" / "rank=1").is_dir()
    schema = pq.read_schema(next((out / "kernel").rglob("*.parquet")))
    assert str(schema.field("ts_ns").type) == "int64" and str(schema.field("rank").type) == "int32"
    monkeypatch.chdir(out)
    con = duckdb.connect()
    con.execute((out / "views.sql").read_text())
    for o in load_library():
        if o.kind != "view" or o.schema != "main":
            continue
        got = con.execute(f"SELECT * FROM {o.name}").fetchall()
        assert same_rows(got, rows(db, f"SELECT * FROM {o.name}")), o.name
    assert con.execute("SELECT count(*) FROM kernel_diff_between('level1', 'kineto')").fetchone()[0] > 0
    # comments travel with views.sql
    assert con.execute("SELECT comment FROM duckdb_columns() WHERE table_name = 'kernel' "
                       "AND column_name = 'ts_ns'").fetchone()[0].startswith("Kernel start")
    res = runner.invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert res.exit_code == 1 and "not empty" in res.stderr
