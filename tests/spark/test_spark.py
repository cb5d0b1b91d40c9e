"""The view library on Spark (local mode) over a Parquet export equals the DuckDB file.

Needs the ``spark`` extra (pyspark) and Java 17+; .ci/run installs it, so CI
runs this test. Without pyspark it is skipped with the reason shown by ``-ra``.

The run's one Spark session (conftest's ``spark_session``) and one export serve every test
(registering the library is the slow part):
the bundled fixtures (a baseline and a comparison run) and, when ../shared/corpus is beside the
checkout, a corpus Kineto trace (resnet50) and a corpus Ascend rank (torch_npu Level1 text).
The cluster views run last, over an export of the corpus pipeline-parallel folder alone (with
the other runs in one export, Spark's driver heap ran out on them).
Views are compared row by row: every value equal (doubles to 1e-12 relative), not only counts.
"""
from __future__ import annotations

import math

import duckdb
import pytest

from conftest import CORPUS, FIXTURES, ingest_paths, rows
from tracedb.cli import app
from tracedb.compare.store import align_role_pair
from tracedb.store.library import load_library
from tracedb.spark import transpile_library

pyspark = pytest.importorskip("pyspark", reason="pyspark not installed: pip install '.[spark]'")
pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]   # one worker holds the Spark session

KINETO = CORPUS / "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
ASCEND = CORPUS / "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt"
LEVEL2 = CORPUS / "msinsight/test/st/level2"   # pipeline parallel: ranks without a trace, two stages


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12)
    return a == b


def _sorted(rs):
    return sorted((tuple(r) for r in rs), key=lambda r: tuple((x is None, str(x)) for x in r))


def _assert_equal(spark, db, view: str, where: str = "", nonempty: bool = True) -> int:
    want = _sorted(rows(db, f"SELECT * FROM {view} {where}"))
    got = _sorted(spark.sql(f"SELECT * FROM {view} {where}").collect())
    assert len(got) == len(want) and (len(want) > 0 or not nonempty), (view, where, len(got), len(want))
    for g, w in zip(got, want):
        assert len(g) == len(w) and all(_same(x, y) for x, y in zip(g, w)), (view, repr(g), repr(w))
    return len(want)


def test_every_view_transpiles():
    views, failed = transpile_library()
    assert failed == {}
    public = {o.name for o in load_library() if o.kind == "view" and o.schema == "main"}
    assert public <= set(views)
    # the table macro op_diff_between is inlined into op_diff, with its arguments
    assert "op_diff_between(" not in views["op_diff"] and "tracedb_internal__compare_op" in views["op_diff"]


@pytest.fixture(scope="module")
def on_spark(spark_session, tmp_path_factory):
    from typer.testing import CliRunner

    from tracedb.spark import register

    tmp = tmp_path_factory.mktemp("spark")
    db = tmp / "t.duckdb"
    ingest_paths(db, FIXTURES / "ascend/level1", role="comparison")
    ingest_paths(db, FIXTURES / "kineto", role="baseline")
    corpus = KINETO.is_file() and ASCEND.is_dir()
    if corpus:
        ingest_paths(db, KINETO, run="resnet")
        ingest_paths(db, ASCEND, run="npu")
    con = duckdb.connect(str(db))        # the alignments tracedb ingest --role writes (op_match, module_match)
    try:
        assert align_role_pair(con) is not None
    finally:
        con.close()
    out = tmp / "pq"
    res = CliRunner().invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert res.exit_code == 0, res.output
    lib = register(spark_session, out)
    assert lib.failed == {}
    return spark_session, db, corpus


def test_step_breakdown_and_op_diff_on_spark_equal_duckdb(on_spark):
    spark, db, _ = on_spark
    for view in ("step_breakdown", "op_diff", "api_diff", "kernel_diff", "communication_diff", "free_time", "uncovered_communication", "slow_rank",
                 "comm_wait_cross_rank", "comm_op", "comm_matrix", "slow_link", "memory_peak"):
        _assert_equal(spark, db, view)


def test_module_views_on_spark_equal_duckdb(on_spark):
    # the comparison run (fixtures ascend/level1) has nn.Module events, the baseline (Kineto) none:
    # comparison-only modules
    spark, db, _ = on_spark
    assert _assert_equal(spark, db, "module_diff") == 51           # 55 modules a rank, 51 paths
    assert _assert_equal(spark, db, "module_alignment") == 2 * 55   # two ranks, all comparison-only


def test_overall_comparison_on_spark_equals_duckdb(on_spark):
    # overall_comparison_between reads overall_summary once: Spark inlines every use of a view,
    # and the earlier form (two reads joined, three uses of one side) did not finish on local[2]
    spark, db, _ = on_spark
    assert _assert_equal(spark, db, "overall_comparison") == 25   # 24 OverallMetrics rows + SDMA Bandwidth


IDLE_VIEWS = ("idle_time", "idle_interval", "kernel_launch", "kernel_launch_stats", "queue_length",
              "queue_length_summary", "kernel_stats", "copy_bandwidth", "host_wait", "free_analysis")


@pytest.mark.corpus
def test_idle_views_on_spark_equal_duckdb_on_corpus_ranks(on_spark):
    spark, db, corpus = on_spark
    if not corpus:
        pytest.skip(f"corpus not available under {CORPUS}")
    for view in IDLE_VIEWS:
        for run in ("resnet", "npu"):
            _assert_equal(spark, db, view, f"WHERE run_name = '{run}'")


@pytest.mark.corpus
def test_cluster_views_on_spark_equal_duckdb(on_spark, tmp_path):
    """The pipeline-parallel corpus folder (ranks without a trace, stages from the communication
    groups): parallel_layout, cluster_step, cluster_step_stage, slow_rank, comm_op, comm_bandwidth.
    Registered over an export of that folder alone, in the same Spark session (last test)."""
    from typer.testing import CliRunner

    from tracedb.spark import register

    spark = on_spark[0]
    if not LEVEL2.is_dir():
        pytest.skip(f"corpus not available under {CORPUS}")
    db = tmp_path / "t.duckdb"
    ingest_paths(db, LEVEL2, run="level2")
    out = tmp_path / "pq"
    res = CliRunner().invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert res.exit_code == 0, res.output
    lib = register(spark, out)
    assert lib.failed == {}
    for view in ("parallel_layout", "cluster_step", "cluster_step_stage", "slow_rank", "comm_op", "comm_bandwidth"):
        _assert_equal(spark, db, view)
