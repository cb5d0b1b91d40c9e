"""Scale-out ingest on Spark (``tracedb.spark.ingest``, tracedb/spark_ingest.py) on local[2]:
the 2-rank corpus folder ingested by Spark tasks gives the same table rows and the same view
rows as a single-machine ``tracedb ingest``.

Needs the ``spark`` extra (pyspark) and Java 17+, like tests/test_spark.py."""
from __future__ import annotations

import os
import shutil

import duckdb
import pytest

from conftest import FIXTURES, corpus_path, ingest_paths, rows
from test_spark import _same, _sorted

pyspark = pytest.importorskip("pyspark", reason="pyspark not installed: pip install '.[spark]'")
pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark"),
              pytest.mark.skipif(shutil.which("java") is None, reason="Spark needs a Java runtime")]

VIEWS = ("step_breakdown", "free_time", "uncovered_communication", "slow_rank", "comm_wait_cross_rank",
         "comm_op", "comm_matrix", "slow_link", "comm_bandwidth", "memory_peak", "kernel_stats")
SKIP = ("ingested_at", "source_path", "source_dir", "path")


def _from_parquet(folder) -> tuple[dict[str, list[tuple]], dict[str, list[tuple]]]:
    """Every per-run table and every public view of a Parquet export, read back through its
    views.sql in DuckDB."""
    con = duckdb.connect()
    cwd = os.getcwd()
    try:
        os.chdir(folder)
        con.execute((folder / "views.sql").read_text())
        return _tables(con), _views(con)
    finally:
        os.chdir(cwd)
        con.close()


def _views(con) -> dict[str, list[tuple]]:
    names = [v for (v,) in con.execute("SELECT name FROM tracedb_object WHERE schema_name = 'main' "
                                       "AND kind = 'view' ORDER BY name").fetchall()]
    return {v: [tuple(float(f"{x:.12g}") if isinstance(x, float) else x for x in r)
                for r in con.execute(f"SELECT * FROM {v} ORDER BY ALL").fetchall()] for v in names}


def _tables(con) -> dict[str, list[tuple]]:
    tables = [t for (t,) in con.execute(
        "SELECT DISTINCT table_name FROM duckdb_columns() WHERE schema_name = 'main' AND column_name = 'run_id' "
        "AND table_name IN (SELECT table_name FROM duckdb_tables() UNION SELECT view_name FROM duckdb_views() "
        "WHERE NOT internal) ORDER BY 1").fetchall()]
    out = {}
    for t in tables:
        cols = [c for (c,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = ? AND "
                                          "schema_name = 'main' ORDER BY column_index", [t]).fetchall()
                if c not in SKIP]
        if cols and t in {"run", "rank", "step", "event", "kernel", "op", "link", "memory", "source_file",
                          "kernel_details_raw", "kernel_rule_match", "profiler_comm_op", "profiler_comm_matrix",
                          "profiler_step_trace"}:
            out[t] = con.execute(f'SELECT {", ".join(cols)} FROM "{t}" ORDER BY ALL').fetchall()
    return out


@pytest.mark.corpus
def test_spark_ingest_equals_single_machine_ingest(spark_session, tmp_path):
    from tracedb.spark import ingest, register

    folder = corpus_path("msinsight/test/data/pytorch/text/level1")      # rank0_ascend_pt, rank1_ascend_pt
    db = tmp_path / "t.duckdb"
    ingest_paths(db, folder, run="level1")
    out = tmp_path / "pq"
    spark = spark_session
    report = ingest(spark, [folder], out)
    assert report.runs == ["level1"] and report.ranks == 2 and len(report.files_ingested) == 20
    # the layout of tracedb export --parquet: hive folders by run name and rank
    assert (out / "kernel/run_name=level1/rank=1/data_0.parquet").is_file()
    assert (out / "run/data_0.parquet").is_file() and (out / "views.sql").is_file()

    con = duckdb.connect(str(db), read_only=True)
    try:
        want_tables, want_views = _tables(con), _views(con)
    finally:
        con.close()
    got_tables, got_views = _from_parquet(out)
    assert want_tables.keys() == got_tables.keys() and want_tables["kernel"]
    for t in want_tables:
        assert got_tables[t] == want_tables[t], t
    # file ids are unique across the two tasks: 20 files, 1..20
    assert sorted(r[0] for r in got_tables["source_file"]) == list(range(1, 21))
    # every public view over the Spark ingest's Parquet (DuckDB reading views.sql) equals the file's
    assert want_views.keys() == got_views.keys() and want_views["comm_matrix"]
    for v in want_views:
        assert got_views[v] == want_views[v], v

    lib = register(spark, out)
    assert not {v: e for v, e in lib.failed.items() if v in VIEWS}
    for view in VIEWS:
        want = _sorted(rows(db, f"SELECT * FROM {view}"))
        got = _sorted(spark.sql(f"SELECT * FROM {view}").collect())
        assert len(got) == len(want), view
        for g, w in zip(got, want):
            assert len(g) == len(w) and all(_same(x, y) for x, y in zip(g, w)), (view, repr(g), repr(w))
    assert rows(db, "SELECT count(*) FROM slow_rank")[0][0] == 2


def test_spark_ingest_refuses_a_non_empty_folder(tmp_path):
    from tracedb.errors import TracedbError
    from tracedb.spark.executors import ingest

    (tmp_path / "pq").mkdir()
    (tmp_path / "pq" / "x").write_text("x")
    with pytest.raises(TracedbError, match="not empty"):
        ingest(None, [FIXTURES / "ascend/level1"], tmp_path / "pq")
