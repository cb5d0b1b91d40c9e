"""slow_rank: the rank that waited (victim) beside the rank it waited for (cause), and the pipeline
bubble as a part of its own (issue 39, point 7).

Every expected number is worked out by hand from the drawing next to it, except the MindSpore
one, which is the corpus files' own step_trace_raw columns.
"""
from __future__ import annotations

import pytest

from conftest import corpus_path, ingest_paths, rows
from timeline import add_kernels, add_run, fetch_dicts


def test_cause_is_the_rank_that_arrived_last_not_the_one_that_waited(empty_db):
    # 4 ranks, one step (ns). Two allreduces end together on every rank; whoever starts its
    # allreduce last has the shortest one and the others wait for it:
    #            compute        allreduce 1    compute      allreduce 2    closing kernel
    #   rank 0   [0, 100)       [100, 200)     [200, 230)   [230, 300)     [300, 310)
    #   rank 1   [0, 100)       [100, 200)     [200, 230)   [230, 300)     [300, 310)
    #   rank 2   [0, 150)       [150, 200) *   [200, 230)   [230, 300)     [300, 310)
    #   rank 3   [0, 120)       [120, 200)     [200, 270)   [270, 300) *   [300, 310)
    # (* = arrived last). Allreduce 1: durations 100, 100, 50, 80 → waits 50, 50, 0, 30; rank 2
    # made the others wait up to 50. Allreduce 2: 70, 70, 70, 30 → waits 40, 40, 40, 0; rank 3 up to 40.
    con = empty_db
    add_run(con)
    plan = {0: (100, 230), 1: (100, 230), 2: (150, 230), 3: (120, 270)}
    for rank, (ar1, ar2) in plan.items():
        add_kernels(con, [("A", 0, ar1, False, 1), ("hcom_allReduce__1_0_1", ar1, 200, True, 1),
                          ("B", 200, ar2 if ar2 > 230 else 230, False, 1),
                          ("hcom_allReduce__1_0_1", ar2, 300, True, 1), ("Z", 300, 310, False, 1)], rank=rank)
    got = {r["rank"]: r for r in fetch_dicts(con, "SELECT * FROM slow_rank")}
    # every rank's step is 310 ns: the step time alone names nobody
    assert {r["e2e_ns"] for r in got.values()} == {310}
    assert [got[r]["collective_wait_ns"] for r in range(4)] == [50 + 40, 50 + 40, 0 + 40, 30 + 0]
    assert [got[r]["arrived_last_count"] for r in range(4)] == [0, 0, 1, 1]
    assert [got[r]["lateness_ns"] for r in range(4)] == [0, 0, 50, 40]
    assert {(r["cause_rank"], r["cause_lateness_ns"]) for r in got.values()} == {(2, 50)}
    assert [got[r]["is_cause"] for r in range(4)] == [False, False, True, False]
    # the victims' side as before: ranks 0 and 1 have the most uncovered communication
    # (not overlapped 100 + 70, 100 + 70, 50 + 70, 80 + 30 → median 145: +25 for ranks 0 and 1)
    assert got[0]["communication_not_overlapped_excess_ns"] == 25
    assert got[0]["slowest_part"] == "communication_not_overlapped"


def test_no_cause_without_waiting(empty_db):
    # one allreduce of equal length on two ranks: nobody waited, nobody is the cause
    con = empty_db
    add_run(con)
    for rank in (0, 1):
        add_kernels(con, [("A", 0, 100, False, 1), ("hcom_allReduce__1_0_1", 100, 150, True, 1)], rank=rank)
    got = fetch_dicts(con, "SELECT rank, collective_wait_ns, arrived_last_count, lateness_ns, cause_rank, is_cause "
                           "FROM slow_rank ORDER BY rank")
    assert got == [dict(rank=r, collective_wait_ns=0, arrived_last_count=0, lateness_ns=0, cause_rank=None,
                        is_cause=False) for r in (0, 1)]


def test_bubble_is_a_slowest_part_of_its_own(empty_db):
    # 3 ranks of a pipeline, one step (ns):
    #   rank 0: compute [0, 100), hcom_receive [100, 300), compute [300, 350)   bubble 200
    #   rank 1: compute [0, 100), hcom_receive [100, 290), compute [290, 350)   bubble 190
    #   rank 2: compute [0, 330), hcom_send [330, 340), compute [340, 350)     bubble 0
    # computing 150, 160, 340 (median 160); not overlapped 200, 190, 10, without receive 0, 0, 10
    # (median 0); bubble median 190; free 0. Rank 0: bubble +10, computing −10, communication 0.
    # (Counting receive as communication, as before, called it communication_not_overlapped.)
    con = empty_db
    add_run(con)
    add_kernels(con, [("A", 0, 100, False, 1), ("hcom_receive_1", 100, 300, True, 1), ("B", 300, 350, False, 1)], rank=0)
    add_kernels(con, [("A", 0, 100, False, 1), ("hcom_receive_1", 100, 290, True, 1), ("B", 290, 350, False, 1)], rank=1)
    add_kernels(con, [("A", 0, 330, False, 1), ("hcom_send_1", 330, 340, True, 1), ("B", 340, 350, False, 1)], rank=2)
    got = {r["rank"]: r for r in fetch_dicts(con, "SELECT * FROM slow_rank")}
    assert [got[r]["bubble_ns"] for r in range(3)] == [200, 190, 0]
    assert [got[r]["bubble_excess_ns"] for r in range(3)] == [10, 0, -190]
    assert got[0]["slowest_part"] == "bubble"
    assert got[2]["slowest_part"] == "computing"      # +180
    assert got[1]["slowest_part"] is None               # nothing above the median


@pytest.mark.corpus
def test_mindspore_pipeline_rank_with_a_receive_bubble(tmp_path):
    # MindSpore 2-stage pipeline job (mindinsight cluster_propose: ranks 0-2 of 4): step 1 of rank 2
    # is 2 163.848 ms, of which Receive-op time 1 993.192 ms (92 %); ranks 0 / 1: 173.855 / 205.563 ms
    # of Receive (step_trace_raw_*_detail_time.csv, 10 ns ticks). MindSpore's step trace has no
    # computing split: before, the NULL parts fell through to "free".
    db = tmp_path / "ms.duckdb"
    ingest_paths(db, corpus_path("mindinsight/tests/utils/resource/cluster_propose"))
    got = {(s, r): (p, b, x) for s, r, p, b, x in rows(
        db, "SELECT step, rank, slowest_part, bubble_ns, bubble_excess_ns FROM slow_rank")}
    assert got[(1, 2)] == ("bubble", 1_993_192_100, 1_993_192_100 - 205_563_410)
    assert got[(1, 0)] == (None, 173_854_700, 173_854_700 - 205_563_410)
    assert "free" not in {p for p, _, _ in got.values()}
