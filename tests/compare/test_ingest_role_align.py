"""``tracedb ingest --role`` completing a baseline/comparison pair builds the op alignment
(op_match) with the default settings, as ``tracedb compare`` would (issue 14).

Expected values: msprof-analyze 26.2.0's OperatorCompare sheet for the corpus level1 pair
(rank0 baseline, rank1 comparison, run with --disable_module; see test_msprof_reference.py):
115 rows, every one a matched pair, the first six baseline op names below.
"""
from __future__ import annotations

import pytest

from conftest import corpus_path, rows
from tracedb import api
from tracedb.compare.command import run_compare

pytestmark = pytest.mark.corpus          # every test reads ../shared/corpus

L1 = "msinsight/test/data/pytorch/text/level1"
FIRST = ["enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "aten::to", "aten::to",
         "DistributedDataParallel.forward", "aten::cross_entropy_loss", "aten::topk"]
PAIRS = ("SELECT m.order_id, b.name, c.name FROM op_match m LEFT JOIN op b ON b.run_id = m.baseline_run_id "
         "AND b.rank = m.baseline_rank AND b.op_id = m.baseline_op_id LEFT JOIN op c ON c.run_id = "
         "m.comparison_run_id AND c.rank = m.comparison_rank AND c.op_id = m.comparison_op_id ORDER BY 1")


def test_ingest_role_completing_a_pair_aligns_it(tmp_path):
    r0, r1 = corpus_path(f"{L1}/rank0_ascend_pt"), corpus_path(f"{L1}/rank1_ascend_pt")
    db = tmp_path / "t.duckdb"
    said = []
    api.ingest([r0], db, run="r0", role="baseline", progress=said.append)
    assert rows(db, "SELECT count(*) FROM op_match") == [(0,)]         # half a pair: nothing to align
    api.ingest([r1], db, run="r1", role="comparison", progress=said.append)
    got = rows(db, PAIRS)
    assert len(got) == 115 and all(b == c for _, b, c in got)
    assert [b for _, b, _ in got[:6]] == FIRST
    assert rows(db, "SELECT count(*) FROM op_alignment") == [(115,)]
    assert any("115 op_alignment rows" in s for s in said)
    # the same rows tracedb compare stores for the pair
    run_compare("r0", "r1", db)
    assert rows(db, PAIRS) == got


def test_role_moved_by_ingest_realigns_the_new_pair(tmp_path):
    """An ingest that moves the comparison role to a third run aligns the new pair: rank 0
    against a second copy of itself matches its 115 top-level ops one to one."""
    r0, r1 = corpus_path(f"{L1}/rank0_ascend_pt"), corpus_path(f"{L1}/rank1_ascend_pt")
    db = tmp_path / "t.duckdb"
    api.ingest([r0], db, run="r0", role="baseline")
    api.ingest([r1], db, run="r1", role="comparison")
    api.ingest([r0], db, run="r0b", role="comparison")             # rank 0 against itself
    got = rows(db, "SELECT count(*), count(*) FILTER (WHERE baseline_op_id = comparison_op_id) FROM op_match m "
                   "JOIN run c ON c.run_id = m.comparison_run_id WHERE c.run_name = 'r0b'")
    assert got == [(115, 115)]                                        # the same ops, the same ids, in order


def test_removing_a_run_removes_its_alignment(tmp_path):
    """runs rm deletes the run's op_match rows: the next run may get the same run_id."""
    r0, r1 = corpus_path(f"{L1}/rank0_ascend_pt"), corpus_path(f"{L1}/rank1_ascend_pt")
    db = tmp_path / "t.duckdb"
    api.ingest([r0], db, run="r0", role="baseline")
    api.ingest([r1], db, run="r1", role="comparison")
    assert rows(db, "SELECT count(*) FROM op_match") == [(115,)]
    assert api.runs_rm("r1", db)['"main"."op_match"'] == 115
    assert rows(db, "SELECT count(*) FROM op_match") == [(0,)]
