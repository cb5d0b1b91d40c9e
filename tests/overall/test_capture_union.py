"""tracedb_internal.capture_union: the union lengths overall_summary and capture_breakdown read.

Computing, communication, busy and all come from one running maximum per kind over a rank's
kernels; the group kinds from capture_member. Checked by hand on made-up kernels (a kernel
nested in an earlier long one, touching kernels, NPU copies clipped to the extent or left out)
and, on the corpus level1 ranks, against the islands of tracedb_internal.capture_island (two
windows over capture_member per kind: an independent path to the same lengths)."""
from __future__ import annotations

import pytest

from conftest import corpus_path, ingest_paths, rows
from tracedb.ingestion.derive import reclassify

LEVEL1 = "msinsight/test/data/pytorch/text/level1"
KINETO = "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz"

# NPU rank, ns:      0         50 60   100    120 130 140 150 160           300 310
# A MatMul (comp)    [-------------------)                                         [0, 100)
# B Add (comp)         [10, 20)                                                     inside A
# B2 Add (comp)                [50, 60)                                             inside A, after B ends
# C MatMul (comp)                        [--------)                                [100, 130), touches A
# D allReduce (comm)                          [-------)                             [120, 140), group g
# E Add (comp)                                            [---)                     [150, 160)
# F Memcpy     [-50, 20)                                                            clipped to [0, 20)
# I Memcpy                                           [---)                          [140, 150), fills the gap
# G Memcpy                                                                 [---)    outside the extent [0, 160)
KERNELS = """
INSERT INTO run (run_id, run_name, platform, role) VALUES (1, 'r', 'npu', 'baseline');
INSERT INTO kernel (run_id, rank, file_id, kernel_id, name, op_type, accelerator_core, ts_ns, dur_ns,
                    is_communication, group_name, copy_kind, source) VALUES
    (1, 0, 0, 1, 'MatMulV2', 'MatMulV2', 'AI_CORE', 0, 100, false, NULL, NULL, 'case'),
    (1, 0, 0, 2, 'Add', 'Add', 'AI_VECTOR_CORE', 10, 10, false, NULL, NULL, 'case'),
    (1, 0, 0, 3, 'Add', 'Add', 'AI_VECTOR_CORE', 50, 10, false, NULL, NULL, 'case'),
    (1, 0, 0, 4, 'MatMulV2', 'MatMulV2', 'AI_CORE', 100, 30, false, NULL, NULL, 'case'),
    (1, 0, 0, 5, 'hcom_allReduce__1_1_1', 'hcom_allReduce_', 'COMMUNICATION', 120, 20, true, 'g', NULL, 'case'),
    (1, 0, 0, 6, 'Add', 'Add', 'AI_VECTOR_CORE', 150, 10, false, NULL, NULL, 'case'),
    (1, 0, 0, 7, 'MEMCPY_ASYNC', 'MEMCPY_ASYNC', NULL, -50, 70, false, NULL, 'DtoD', 'case'),
    (1, 0, 0, 8, 'MEMCPY_ASYNC', 'MEMCPY_ASYNC', NULL, 140, 10, false, NULL, 'DtoD', 'case'),
    (1, 0, 0, 9, 'MEMCPY_ASYNC', 'MEMCPY_ASYNC', NULL, 300, 10, false, NULL, 'DtoD', 'case');
"""


def test_unions_of_made_up_kernels(empty_db):
    con = empty_db
    con.execute(KERNELS)
    reclassify(con)       # rows written with SQL: apply the rules, as tracedb reclassify does
    got = con.execute("SELECT kind, group_name, union_ns, start_ns, end_ns FROM tracedb_internal.capture_union "
                      "ORDER BY kind, group_name").fetchall()
    assert got == [
        ("all", None, 160, 0, 160),               # [0, 160): busy, the copies fill [140, 150); G left out
        ("busy", None, 150, 0, 160),              # [0, 140) + [150, 160)
        ("communication", None, 20, 120, 140),
        ("computing", None, 140, 0, 160),         # [0, 130) + [150, 160): B and B2 add nothing
        ("group", "g", 150, 0, 160),              # computing ∪ group g = busy here (no link rows: no wait)
    ]
    assert con.execute("SELECT computing_ns, communication_ns, uncovered_communication_ns, free_ns, copy_ns, "
                       "free_excl_copy_ns, e2e_ns FROM capture_breakdown").fetchall() == [(140, 20, 10, 10, 10, 0, 160)]


@pytest.mark.corpus
@pytest.mark.parametrize("inputs, kinds", [
    ((f"{LEVEL1}/rank0_ascend_pt", f"{LEVEL1}/rank1_ascend_pt"),
     {"computing", "communication", "busy", "all", "group", "wait"}),       # NPU: copies clipped
    ((KINETO,), {"computing", "busy", "all"}),                               # GPU: copies as they are
])
def test_unions_equal_the_islands_on_the_corpus(tmp_path, inputs, kinds):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, *(corpus_path(p) for p in inputs))
    unions = rows(db, "SELECT kind, run_id, rank, group_name, other_group_name, union_ns, start_ns, end_ns "
                      "FROM tracedb_internal.capture_union ORDER BY ALL")
    islands = rows(db, """
        SELECT kind, run_id, rank, group_name, other_group_name, sum(end_ns - start_ns), min(start_ns), max(end_ns)
        FROM tracedb_internal.capture_island GROUP BY ALL ORDER BY ALL""")
    assert {u[0] for u in unions} >= kinds
    assert unions == islands
