"""The view library on Spark (local mode) over a Parquet export equals the DuckDB file.

Needs the ``spark`` extra (pyspark) and Java 17+; the README's test command installs it, so CI
runs this test. Without pyspark it is skipped with the reason shown by ``-ra``.
"""
from __future__ import annotations

import math
import shutil

import pytest

from conftest import FIXTURES, ingest_paths, rows
from tracedb.cli import app
from tracedb.registry import load_library
from tracedb.spark import transpile_library

pyspark = pytest.importorskip("pyspark", reason="pyspark not installed: pip install '.[spark]'")
pytestmark = pytest.mark.spark


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12)
    return a == b


def _sorted(rs):
    return sorted((tuple(r) for r in rs), key=lambda r: tuple((x is None, str(x)) for x in r))


def test_every_view_transpiles():
    views, failed = transpile_library()
    assert failed == {}
    public = {o.name for o in load_library() if o.kind == "view" and o.schema == "main"}
    assert public <= set(views)
    # the table macro op_diff_between is inlined into op_diff, with its arguments
    assert "op_diff_between(" not in views["op_diff"] and "tracedb_internal__compare_op" in views["op_diff"]


@pytest.mark.skipif(shutil.which("java") is None, reason="Spark needs a Java runtime")
def test_step_breakdown_and_op_diff_on_spark_equal_duckdb(tmp_path):
    from typer.testing import CliRunner

    from tracedb.spark import register, session

    db = tmp_path / "t.duckdb"
    ingest_paths(db, FIXTURES / "ascend/level1", role="comparison")
    ingest_paths(db, FIXTURES / "kineto", role="baseline")
    out = tmp_path / "pq"
    res = CliRunner().invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert res.exit_code == 0, res.output
    spark = session("tracedb-test")
    try:
        lib = register(spark, out)
        assert lib.failed == {}
        for view in ("step_breakdown", "op_diff", "api_diff", "kernel_diff", "communication_diff", "free_time", "uncovered_communication", "slow_rank",
                     "comm_wait_cross_rank", "comm_op", "comm_matrix", "slow_link", "memory_peak"):
            want = _sorted(rows(db, f"SELECT * FROM {view}"))
            got = _sorted(spark.sql(f"SELECT * FROM {view}").collect())
            assert len(got) == len(want) > 0, view
            for g, w in zip(got, want):
                assert len(g) == len(w) and all(_same(x, y) for x, y in zip(g, w)), (view, repr(g), repr(w))
    finally:
        spark.stop()


@pytest.mark.skipif(shutil.which("java") is None, reason="Spark needs a Java runtime")
def test_cluster_views_on_spark_equal_duckdb(tmp_path):
    """The pipeline-parallel corpus folder (ranks without a trace, stages from the communication
    groups): parallel_layout, cluster_step, cluster_step_stage, slow_rank, comm_op, comm_bandwidth."""
    from typer.testing import CliRunner

    from conftest import corpus_path
    from tracedb.spark import register, session

    db = tmp_path / "t.duckdb"
    ingest_paths(db, corpus_path("msinsight/test/st/level2"))
    out = tmp_path / "pq"
    res = CliRunner().invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert res.exit_code == 0, res.output
    spark = session("tracedb-test")
    try:
        lib = register(spark, out)
        assert lib.failed == {}
        for view in ("parallel_layout", "cluster_step", "cluster_step_stage", "slow_rank", "comm_op", "comm_bandwidth"):
            want = _sorted(rows(db, f"SELECT * FROM {view}"))
            got = _sorted(spark.sql(f"SELECT * FROM {view}").collect())
            assert len(got) == len(want) > 0, view
            for g, w in zip(got, want):
                assert len(g) == len(w) and all(_same(x, y) for x, y in zip(g, w)), (view, repr(g), repr(w))
    finally:
        spark.stop()
