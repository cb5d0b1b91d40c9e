"""NPU copies (SDMA_SQE / PCIE_DMA_SQE / MEMCPY_ASYNC tasks) as kernel rows; the SDMA row of
overall_summary and the RDMA / SDMA bandwidth rows against msprof-analyze.

Expected numbers come from the trace JSON itself (Decimal arithmetic on the text) or from
msprof-analyze 26.2.0 run by hand on 2026-11-24 (CI does not run it):

    msprof-analyze compare -d level1/rank1_ascend_pt -bp level1/rank0_ascend_pt -o OUT

On the corpus files msprof-analyze prints no SDMA row: its text path reads the stream of a task
from args "Stream Id" (trace_event_bean.stream_id), which these traces write as "Physic Stream
Id", so every task has no stream and is skipped. With the key renamed in a copy of the two rank
folders (sed 's/"Physic Stream Id"/"Stream Id"/') the same command prints the SDMA numbers below
(OverallMetrics, ms; the terminal's SDMA Time(Num) 33 = 22 stream copies + 11 Tensor Move).
"""
from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal

import pytest

from conftest import corpus_path, ingest_paths, rows

LEVEL1 = "msinsight/test/data/pytorch/text/level1"
OLD = "msinsight-2024/test/data/pytorch/text/level1/rank0_ascend_pt"
# rank: (SDMA ms, SDMA copies, Free ms), OverallMetrics of the renamed-key run
MSPROF_SDMA = {0: ("0.87417759375", 22, "24.86987240625"), 1: ("1.3056060625", 22, "25.36966793749999")}
# terminal table, "SDMA Bandwidth" column (communication.json, GB/s, 3 decimals)
MSPROF_SDMA_BW = {0: "15.654", 1: "15.502"}
COPY_TYPES = {"SDMA_SQE", "PCIE_DMA_SQE"}


def us_to_ns(v) -> int:
    """µs text → ns, rounded half away from zero beyond 3 decimals (as tracedb's parser)."""
    return int((Decimal(str(v)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def trace_tasks(folder):
    """(process name by pid, Ascend Hardware X events) of a rank folder's trace_view.json."""
    events = json.loads((folder / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").read_text(), parse_float=Decimal)
    pname = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    hw = [e for e in events if e.get("ph") == "X" and pname.get(e["pid"]) == "Ascend Hardware"]
    return events, pname, hw


@pytest.fixture(scope="module")
def level1_db(tmp_path_factory):
    root = corpus_path(LEVEL1)
    db = tmp_path_factory.mktemp("l1copies") / "t.duckdb"
    ingest_paths(db, root / "rank0_ascend_pt", root / "rank1_ascend_pt")
    return db


@pytest.mark.corpus
def test_copy_tasks_are_kernel_rows(level1_db):
    """Every SDMA_SQE / PCIE_DMA_SQE task of the trace is one kernel row with its exact start,
    duration and stream (tid); no other task is."""
    for rank in (0, 1):
        _, _, hw = trace_tasks(corpus_path(LEVEL1) / f"rank{rank}_ascend_pt")
        want = sorted((us_to_ns(e["ts"]), us_to_ns(e["dur"]), str(e["tid"]), e["args"]["Task Type"])
                      for e in hw if e["args"].get("Task Type") in COPY_TYPES)
        assert len(want) == 24
        got = rows(level1_db, "SELECT ts_ns, dur_ns, stream_id, task_type FROM kernel "
                              "WHERE rank = ? AND copy_kind IS NOT NULL ORDER BY ALL", [rank])
        assert got == want
        # the trace says nothing of direction or size; no row is communication
        assert rows(level1_db, "SELECT DISTINCT copy_kind, size_bytes, is_communication, name FROM kernel "
                               "WHERE rank = ? AND copy_kind IS NOT NULL", [rank]) \
            == [("Unknown", None, False, "MEMCPY_ASYNC")]
    # classified SDMA (neither computing nor communication), after every kernel_details.csv line
    assert rows(level1_db, "SELECT DISTINCT c.category, c.is_copy FROM tracedb_internal.kernel_class AS c "
                           "JOIN kernel AS k USING (run_id, rank, kernel_id) WHERE k.copy_kind IS NOT NULL") \
        == [("SDMA", True)]
    assert rows(level1_db, "SELECT min(kernel_id) FILTER (WHERE copy_kind IS NOT NULL) "
                           "> max(kernel_id) FILTER (WHERE copy_kind IS NULL) FROM kernel GROUP BY rank") \
        == [(True,), (True,)]


@pytest.mark.corpus
def test_sdma_row_equals_msprof_analyze_reading_the_stream(level1_db):
    """SDMA = Σ dur and count of the copies on the compute stream (stream 2; stream 3 holds two
    copies and DSA tasks only); Free = Free Time − SDMA."""
    root = corpus_path(LEVEL1)
    _, _, hw = trace_tasks(root / "rank0_ascend_pt")
    # the quirk: the corpus tasks carry "Physic Stream Id", not the "Stream Id" msprof-analyze reads
    copies = [e for e in hw if e["args"].get("Task Type") in COPY_TYPES]
    assert all("Physic Stream Id" in e["args"] and "Stream Id" not in e["args"] for e in copies)
    by_stream = {}
    for e in copies:
        by_stream.setdefault(e["tid"], []).append(us_to_ns(e["dur"]))
    got = {(r, m, p): (d, n) for r, m, p, d, n in rows(
        level1_db, "SELECT rank, metric, parent_metric, dur_ns, kernel_count FROM overall_summary")}
    assert got[(0, "SDMA", "Free Time")] == (sum(by_stream[2]), len(by_stream[2]))
    for rank, (sdma_ms, n, free_ms) in MSPROF_SDMA.items():
        d, count = got[(rank, "SDMA", "Free Time")]
        assert count == n
        assert abs(Decimal(d) - Decimal(sdma_ms) * 1_000_000) <= 1000, (rank, d)
        free, _ = got[(rank, "Free", "Free Time")]
        assert abs(Decimal(free) - Decimal(free_ms) * 1_000_000) <= 1000, (rank, free)
        assert free + d == got[(rank, "Free Time", None)][0]


@pytest.mark.corpus
def test_sdma_bandwidth_row(level1_db):
    """communication.json Total Op Info SDMA: 427.596096 MB in 27.315706 ms (rank 0); no RDMA row
    (0 MB moved), as msprof-analyze prints no RDMA Bandwidth column."""
    got = {(r, m): bw for r, m, bw in rows(
        level1_db, "SELECT rank, metric, bandwidth_gbps FROM overall_summary WHERE bandwidth_gbps IS NOT NULL")}
    assert set(got) == {(0, "SDMA Bandwidth"), (1, "SDMA Bandwidth")}
    assert got[(0, "SDMA Bandwidth")] == pytest.approx(427.596096 / 27.315706)
    for rank, bw in MSPROF_SDMA_BW.items():
        assert f"{got[(rank, 'SDMA Bandwidth')]:.3f}" == bw
    # a run of two ranks compares the mean of its ranks' bandwidths
    ((b, c),) = rows(level1_db, "SELECT baseline_bandwidth_gbps, comparison_bandwidth_gbps "
                                "FROM overall_comparison_between('level1', 'level1') WHERE metric = 'SDMA Bandwidth'")
    assert b == c == pytest.approx((got[(0, "SDMA Bandwidth")] + got[(1, "SDMA Bandwidth")]) / 2)


@pytest.mark.corpus
def test_copies_do_not_widen_an_npu_step_and_fill_its_free_time(level1_db):
    """The first task of rank 0 is an 840 µs host-to-device copy 4.58 ms before the first kernel;
    CANN's Overlap Analysis (and step_trace_time.csv) start the step at the first kernel, and so
    does step_breakdown. copy_ns = the copies inside the Overlap Analysis "Free" slices, and
    free_ns = copy_ns + free_excl_copy_ns."""
    events, pname, hw = trace_tasks(corpus_path(LEVEL1) / "rank0_ascend_pt")
    overlap = [e for e in events if e.get("ph") == "X" and pname.get(e["pid"]) == "Overlap Analysis"]
    span = (min(us_to_ns(e["ts"]) for e in overlap), max(us_to_ns(e["ts"]) + us_to_ns(e["dur"]) for e in overlap))
    free = [(us_to_ns(e["ts"]), us_to_ns(e["ts"]) + us_to_ns(e["dur"])) for e in overlap if e["name"] == "Free"]
    copies = [(us_to_ns(e["ts"]), us_to_ns(e["ts"]) + us_to_ns(e["dur"]))
              for e in hw if e["args"].get("Task Type") in COPY_TYPES]
    assert min(s for s, _ in copies) < span[0]          # the early copy exists
    # |U(copies) ∩ U(Free slices)|, by a sweep over 1 ns points of each pair (few intervals)
    pieces = sorted((max(a, c), min(b, d)) for a, b in copies for c, d in free if max(a, c) < min(b, d))
    want, end = 0, None
    for s, e in pieces:
        s = s if end is None else max(s, end)
        if e > s:
            want += e - s
            end = e
    ((e2e, start, free_ns, copy_ns, excl, n),) = rows(
        level1_db, "SELECT e2e_ns, step_start_ns, free_ns, copy_ns, free_excl_copy_ns, copy_count "
                   "FROM step_breakdown WHERE rank = 0")
    assert (start, e2e) == (span[0], span[1] - span[0])
    assert abs(copy_ns - want) <= 100, (copy_ns, want)    # Overlap Analysis slices are within tens of ns
    assert free_ns == copy_ns + excl and n == 22          # 2 copies lie wholly before the first kernel
    assert rows(level1_db, "SELECT sum(dur_ns)::BIGINT FROM free_time WHERE rank = 0") == [(free_ns,)]
    # the whole capture alike
    assert rows(level1_db, "SELECT e2e_ns, copy_count FROM capture_breakdown WHERE rank = 0") == [(e2e, 24)]


@pytest.mark.corpus
def test_older_cann_memcpy_async_tasks_are_copies(tmp_path):
    """The 2024 export labels every task "Other"; of its 57 MEMCPY_ASYNC tasks, the 17 on stream 1
    are copies, as kernel rows with the trace's start, duration and stream; the 40 on stream 3
    are HCCL's own Memcpy tasks (a Plane task with the same start and "stream id"), part of
    their allreduce, not also copies (issue 39)."""
    folder = corpus_path(OLD)
    events, pname, hw = trace_tasks(folder)
    hccl = {(e["ts"], str(e["args"].get("stream id"))) for e in events
            if e.get("ph") == "X" and pname.get(e["pid"]) == "HCCL" and "stream id" in e.get("args", {})}
    mem = [e for e in hw if e["name"] == "MEMCPY_ASYNC"]
    want = sorted((us_to_ns(e["ts"]), us_to_ns(e["dur"]), str(e["tid"])) for e in mem
                  if (e["ts"], str(e["tid"])) not in hccl)
    assert len(mem) == 57 and len(want) == 17
    db = tmp_path / "t.duckdb"
    ingest_paths(db, folder)
    assert rows(db, "SELECT ts_ns, dur_ns, stream_id FROM kernel WHERE copy_kind IS NOT NULL ORDER BY ALL") == want
    assert rows(db, "SELECT count(*) FROM tracedb_internal.kernel_class WHERE is_copy") == [(17,)]


@pytest.mark.corpus
def test_ascend_db_memcpy_tasks_are_copies(tmp_path):
    """The DB export's TASK rows of type MEMCPY_ASYNC (22 on stream 2, 2 on stream 3 of rank 0) are
    copy rows; msprof-analyze's DB path looks for SDMA_SQE / PCIE_DMA_SQE type names, which this
    TASK table does not use, and prints SDMA 0 (its OverallMetrics: no SDMA row)."""
    import sqlite3
    f = corpus_path("msinsight/test/data/pytorch/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                    "ascend_pytorch_profiler_0.db")
    con = sqlite3.connect(f"file:{f}?mode=ro", uri=True)
    want = sorted((s, e - s, str(st)) for s, e, st in con.execute(
        "SELECT t.startNs, t.endNs, t.streamId FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType "
        "WHERE s.value = 'MEMCPY_ASYNC'"))
    con.close()
    assert len(want) == 24
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f.parent.parent)
    assert rows(db, "SELECT ts_ns, dur_ns, stream_id FROM kernel WHERE copy_kind IS NOT NULL ORDER BY ALL") == want
    # op device time counts kernels only (COMPUTE_TASK_INFO, as msprof-analyze's DB path)
    assert rows(db, "SELECT count(*) FROM kernel WHERE copy_kind IS NOT NULL AND op_id IS NOT NULL") == [(0,)]


def write_rank(tmp_path, events, rank=0):
    d = tmp_path / "host_1_20250101_ascend_pt"
    (d / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    (d / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").write_text(json.dumps(events))
    (d / f"profiler_info_{rank}.json").write_text(json.dumps({"rank_id": str(rank), "torch_npu_version": "2.5.1",
                                                               "config": {"experimental_config":
                                                                          {"_profiler_level": "Level1"}}}))
    return d


HW = 7


def task(name, tid, ts, dur, task_type, **args):
    return {"ph": "X", "name": name, "pid": HW, "tid": tid, "ts": ts, "dur": dur,
            "args": {"Task Type": task_type, **args}}


MICRO = [
    {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "Python"}},
    {"ph": "M", "name": "process_name", "pid": HW, "tid": 0, "args": {"name": "Ascend Hardware"}},
    {"ph": "M", "name": "process_labels", "pid": HW, "tid": 0, "args": {"labels": "NPU 0"}},
    {"ph": "X", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": "1000.000", "dur": 200, "cat": "cpu_op"},
    # an input copy before the first kernel (does not widen the step)
    task("MEMCPY_ASYNC", 2, "1005.000", 10, "PCIE_DMA_SQE", **{"size(B)": 4096, "operation": "host to device"}),
    task("MatMulV2", 2, "1020.000", 30, "AI_CORE"),
    task("EVENT_WAIT_SQE", 2, "1050.000", 5, "EVENT_WAIT_SQE"),
    # a device copy in a gap of stream 2: 10 µs of free time filled
    task("MEMCPY_ASYNC", 2, "1060.000", 10, "SDMA_SQE", **{"size(B)": "1048576", "operation": "Device To Device"}),
    task("Add", 2, "1080.000", 20, "AI_VECTOR_CORE"),
    # a copy on a stream without computing kernels: a copy, not in msprof-analyze's SDMA row
    task("MEMCPY_ASYNC", 5, "1085.000", 30, "PCIE_DMA_SQE", operation="device to host"),
    # older CANN: Task Type Other
    task("MEMCPY_ASYNC", 2, "1102.000", 4, "Other"),
    # HCCL's own SDMA task on its stream: part of a communication op, not a copy
    task("SDMA", 9, "1090.000", 3, "SDMA"),
]


def test_micro_copy_kind_size_and_sdma_row(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, write_rank(tmp_path, MICRO))
    assert rows(db, "SELECT ts_ns, stream_id, copy_kind, size_bytes, step FROM kernel WHERE copy_kind IS NOT NULL "
                    "ORDER BY ts_ns") == [
        (1_005_000, "2", "HtoD", 4096, 1),
        (1_060_000, "2", "DtoD", 1_048_576, 1),
        (1_085_000, "5", "DtoH", None, 1),
        (1_102_000, "2", "Unknown", None, 1),
    ]
    assert rows(db, "SELECT count(*) FROM kernel WHERE copy_kind IS NULL") == [(2,)]    # MatMulV2, Add
    # step [1020, 1100) (first to last kernel): computing 30 + 20 = 50 µs, free [1050, 1080) = 30 µs,
    # of which the stream-2 copy fills [1060, 1070); the stream-5 copy, clipped to [1085, 1100), lies
    # under Add; the copies at 1005 and 1102 lie outside the step: copy_ns = 10 µs, 2 copies
    assert rows(db, "SELECT step_start_ns, e2e_ns, computing_ns, free_ns, copy_ns, free_excl_copy_ns, copy_count "
                    "FROM step_breakdown") == [(1_020_000, 80_000, 50_000, 30_000, 10_000, 20_000, 2)]
    got = {(m, p): (d, n) for m, p, d, n in rows(
        db, "SELECT metric, parent_metric, dur_ns, kernel_count FROM overall_summary")}
    # msprof-analyze's SDMA: every copy on stream 2 (it has computing kernels), whole durations
    assert got[("SDMA", "Free Time")] == (10_000 + 10_000 + 4_000, 3)
    assert got[("Free", "Free Time")] == (30_000 - 24_000, None)
    assert got[("E2E Time", None)] == (80_000, None)
    # copy_bandwidth: 4096 B in 10 µs, 1 MiB in 10 µs; the others have no size
    assert rows(db, "SELECT copy_kind, copy_count, size_bytes, bandwidth_gbps FROM copy_bandwidth "
                    "WHERE step IS NULL ORDER BY copy_kind") == [
        ("DtoD", 1, 1_048_576, 1_048_576 / 10_000), ("DtoH", 1, None, None),
        ("HtoD", 1, 4096, 4096 / 10_000), ("Unknown", 1, None, None)]
