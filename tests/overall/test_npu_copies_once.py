"""NPU copies counted once in the text form (issue 39, point 3): an Ascend Hardware task that is
the twin of an HCCL Plane task (same start, same stream: CANN draws each HCCL task on both) is
part of its communication op, never also a copy row. Hand-made trace_view.json; the 2024 corpus
export is checked in tests/overall/test_npu_copies.py (17 of its 57 MEMCPY_ASYNC tasks)."""
from __future__ import annotations

import json

from conftest import ingest_paths, rows

HW, HCCL = 7, 9


def write_rank(tmp_path, events):
    d = tmp_path / "host_1_20250101_ascend_pt"
    (d / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    (d / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").write_text(json.dumps(events))
    (d / "profiler_info_0.json").write_text(json.dumps({"rank_id": 0, "torch_npu_version": "2.1.0"}))
    return d


def hw(name, tid, ts, dur, task_type):
    return {"ph": "X", "name": name, "pid": HW, "tid": tid, "ts": ts, "dur": dur, "args": {"Task Type": task_type}}


def plane(name, ts, dur, stream, size):
    return {"ph": "X", "name": name, "pid": HCCL, "tid": 1, "ts": ts, "dur": dur,
            "args": {"stream id": stream, "task type": name, "src rank": 0, "dst rank": 1,
                     "transport type": "SDMA", "size(Byte)": size, "link type": "HCCS"}}


EVENTS = [
    {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "Python"}},
    {"ph": "M", "name": "process_name", "pid": HW, "tid": 0, "args": {"name": "Ascend Hardware"}},
    {"ph": "M", "name": "process_labels", "pid": HW, "tid": 0, "args": {"labels": "NPU 0"}},
    {"ph": "M", "name": "process_name", "pid": HCCL, "tid": 0, "args": {"name": "HCCL"}},
    {"ph": "M", "name": "thread_name", "pid": HCCL, "tid": 0, "args": {"name": "Group 7 Communication"}},
    {"ph": "M", "name": "thread_name", "pid": HCCL, "tid": 1, "args": {"name": "Plane 0"}},
    {"ph": "X", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": "1000.000", "dur": 500, "cat": "cpu_op"},
    hw("MatMul", 2, "1010.000", 40, "AI_CORE"),
    # a user copy: 2024 CANN labels every task Other
    hw("MEMCPY_ASYNC", 2, "1060.000", 10, "Other"),
    # the allreduce [1100, 1300) and its Memcpy task, drawn on stream 3 of Ascend Hardware too
    {"ph": "X", "name": "hcom_allReduce__1_0_1", "pid": HCCL, "tid": 0, "ts": "1100.000", "dur": 200, "args": {}},
    plane("Memcpy", "1110.000", 80, 3, 1 << 20),
    hw("MEMCPY_ASYNC", 3, "1110.000", 80, "Other"),
    # same start on another stream: not the Memcpy task's twin, a copy
    hw("MEMCPY_ASYNC", 4, "1110.000", 5, "MEMCPY_ASYNC"),
    hw("Add", 2, "1400.000", 20, "AI_VECTOR_CORE"),
]


def test_an_hccl_task_is_not_also_a_copy(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, write_rank(tmp_path, EVENTS))
    # before issue 39: three copy rows (the stream-3 Memcpy task's 80 µs counted twice)
    assert rows(db, "SELECT ts_ns, dur_ns, stream_id FROM kernel WHERE copy_kind IS NOT NULL ORDER BY ts_ns") == [
        (1_060_000, 10_000, "2"), (1_110_000, 5_000, "4")]
    assert rows(db, "SELECT name FROM kernel WHERE copy_kind IS NULL ORDER BY ts_ns") == [
        ("MatMul",), ("hcom_allReduce__1_0_1",), ("Add",)]
    assert rows(db, "SELECT task_name, ts_ns, size_bytes, op_name FROM link") == [
        ("Memcpy", 1_110_000, 1 << 20, "hcom_allReduce__1_0_1")]
    # step [1010, 1420): computing 40 + 20, communication 200, copies 15 µs of which the 10 µs
    # stream-2 copy fills free time (the stream-4 one lies under the allreduce)
    assert rows(db, "SELECT computing_ns, communication_ns, copy_ns, copy_count FROM step_breakdown") == [
        (60_000, 200_000, 10_000, 2)]
