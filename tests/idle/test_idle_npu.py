"""Idle views on a corpus Ascend rank (torch_npu Level1, kernel_details.csv + trace_view.json):
launches come from the HostToDevice / async_npu flows (kernel.launch_*), gaps from the tasks."""
from __future__ import annotations

import pytest

from conftest import corpus_path, ingest_paths, rows

pytestmark = pytest.mark.corpus          # every test reads ../shared/corpus


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    d = tmp_path_factory.mktemp("npu") / "t.duckdb"
    ingest_paths(d, corpus_path("msinsight/test/data/pytorch/text/level1/rank0_ascend_pt"), run="npu")
    return d


def test_every_kernel_has_its_cann_launch(db):
    # 191 kernel_details.csv rows: 187 compute tasks, whose HostToDevice flow starts inside a
    # Node@launch, and 4 HCCL ops, whose flow starts in AscendCL@hcom_allReduce_ itself; plus the
    # trace's 24 copy tasks (SDMA_SQE / PCIE_DMA_SQE), whose flows start in the CANN call that
    # issued them (aclrtMemcpyAsync, aclnnInplaceCopy ...)
    assert rows(db, "SELECT launch_name, count(*), count_if(launch_dur_ns > 0) FROM kernel_launch "
                    "GROUP BY ALL ORDER BY ALL") == \
        [("AscendCL@aclnnDropoutGenMaskV2", 2, 2), ("AscendCL@aclnnInplaceCopy", 10, 10),
         ("AscendCL@aclopCompileAndExecute", 10, 10), ("AscendCL@aclrtMemcpyAsync", 2, 2),
         ("AscendCL@hcom_allReduce_", 4, 4), ("Node@launch", 187, 187)]
    (n, p50), = rows(db, "SELECT kernel_count, p50_launch_delay_ns FROM kernel_launch_stats WHERE step IS NULL")
    assert n == 191 + 24 and p50 > 0


def test_gaps_equal_the_profilers_wait_time(db):
    # kernel_details.csv "Wait Time(us)" is the profiler's own gap before a task on its stream,
    # counted from the previous kernel_details row (copy tasks are not rows there). Where the task
    # before the gap is a kernel, idle_interval's gap is the same to the ns (the CSV rounds to
    # 1 ns) or longer (an event record ... ran in between), never shorter; where it is a copy
    # (MEMCPY_ASYNC), the gap starts at the copy's end: shorter than the profiler's
    got = rows(db, """SELECT i.kernel_before = 'MEMCPY_ASYNC', count(*), count_if(abs(i.dur_ns - k.wait_ns) <= 1),
                             count_if(i.dur_ns < k.wait_ns - 1)
                      FROM idle_interval AS i JOIN run AS r ON r.run_name = i.run_name
                      JOIN kernel AS k ON k.run_id = r.run_id AND k.rank = i.rank AND k.kernel_id = i.kernel_id
                      WHERE i.stream_id = '2' AND k.copy_kind IS NULL GROUP BY ALL ORDER BY ALL""")
    assert got == [(False, 171, 167, 0), (True, 14, 0, 13)]


def test_idle_causes_from_the_cann_launches(db):
    got = dict(rows(db, "SELECT cause, interval_count FROM idle_time WHERE step IS NULL AND stream_id = '2'"))
    assert set(got) == {"host_wait", "kernel_wait", "other"} and sum(got.values()) == 185 + 21   # gaps before kernels + before copies
    # what the launching (task-queue) thread ran while stream 2 waited for the host: CANN calls and
    # the dequeued framework ops (Dequeue@Conv2D ...)
    assert rows(db, "SELECT DISTINCT host_kind FROM host_wait WHERE cause = 'host_wait' ORDER BY 1") == \
        [("framework_op",), ("runtime",)]
    assert rows(db, "SELECT count(*) FROM host_wait WHERE host_kind = 'framework_op' AND host_name NOT LIKE 'Dequeue@%'") \
        == [(0,)]
