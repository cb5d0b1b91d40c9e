"""Hand-written trace_view.json HCCL tasks → link and the comm views, numbers derived by hand.

Timeline of the newer-layout op (µs after B = 1719000000001000.000; plane 1 is the master plane
since no plane has RDMA tasks):

    op   hcom_allReduce__1_0_1  [0 ........................................ 100)
    P0   Memcpy ON_CHIP 0->local [0, 2.5)                       Notify_Record [95, 100)
    P1   Notify Wait [3, 13)  Reduce_Inline HCCS [20, 28)  Notify Wait [30, 34)
         Memcpy HCCS_SW [40, 56)  Memcpy ON_CHIP [60, 61)
"""
from __future__ import annotations

import json

import pytest

from conftest import ingest_paths, rows
from tracedb.errors import InputError

B = 1719000000001000_000   # ns
PID = 93422752


def at(us: float) -> str:
    """µs text after B with 3 decimals, as torch_npu writes ts."""
    return f"{1719000000001000 + int(us)}.{round((us - int(us)) * 1000):03d}"


def task(tid, name, us, dur, src=0, dst=1, transport="SDMA", link="HCCS", size=0, pid=PID, **extra):
    args = {"notify_id": "18446744073709551615", "src rank": src, "dst rank": dst, "transport type": transport,
            "size(Byte)": size, "link type": link, "bandwidth(GB/s)": 0.0, "task type": name, **extra}
    return {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": at(us), "dur": dur, "args": args}


def meta(pid, tid, kind, value):
    key = "sort_index" if kind.endswith("sort_index") else "name"
    return {"ph": "M", "name": kind, "pid": pid, "tid": tid, "args": {key: value}}


NEWER = [
    meta(1, 0, "process_name", "Python"),
    {"ph": "X", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": at(-100), "dur": 300.0, "args": {}},
    meta(PID, 0, "process_name", "HCCL"),
    meta(PID, 0, "thread_name", "Group 7 Communication"),
    meta(PID, 1, "thread_name", "Plane 0"),
    meta(PID, 2, "thread_name", "Plane 1"),
    meta(PID, 0, "thread_sort_index", 0), meta(PID, 1, "thread_sort_index", 1), meta(PID, 2, "thread_sort_index", 2),
    {"ph": "X", "name": "hcom_allReduce__1_0_1", "pid": PID, "tid": 0, "ts": at(0), "dur": 100.0,
     "args": {"alg_type": "MESH"}},
    task(1, "Memcpy", 0, 2.5, dst=4294967295, link="ON_CHIP", size="0x200000"),
    task(1, "Notify_Record", 95, 5.0, link="INVALID_TYPE"),
    task(2, "Notify Wait", 3, 10.0, link="INVALID_TYPE"),
    task(2, "Reduce_Inline", 20, 8.0, size=4000000),
    task(2, "Notify Wait", 30, 4.0, link="INVALID_TYPE"),
    task(2, "Memcpy", 40, 16.0, link="HCCS_SW", size="1e8480"),
    task(2, "Memcpy", 60, 1.0, dst=4294967295, link="ON_CHIP", size=1000),
]


def write_rank(tmp_path, events, name="host_1_20250101_ascend_pt"):
    d = tmp_path / name
    (d / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    (d / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").write_text(json.dumps(events))
    return d


@pytest.fixture
def newer_db(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, write_rank(tmp_path, NEWER))
    return db


def test_link_rows_hex_sizes_sentinel_and_names(newer_db):
    got = rows(newer_db, """SELECT plane_id, task_name, src_rank, dst_rank, size_bytes, ts_ns - ?, dur_ns,
                                   group_name, op_name, op_ts_ns - ?, step
                            FROM link ORDER BY ts_ns""", [B, B])
    assert got == [
        (0, "Memcpy", 0, 4294967295, 0x200000, 0, 2500, "7", "hcom_allReduce__1_0_1", 0, 4),
        (1, "Notify_Wait", 0, 1, 0, 3000, 10000, "7", "hcom_allReduce__1_0_1", 0, 4),
        (1, "Reduce_Inline", 0, 1, 4000000, 20000, 8000, "7", "hcom_allReduce__1_0_1", 0, 4),
        (1, "Notify_Wait", 0, 1, 0, 30000, 4000, "7", "hcom_allReduce__1_0_1", 0, 4),
        (1, "Memcpy", 0, 1, 2000000, 40000, 16000, "7", "hcom_allReduce__1_0_1", 0, 4),   # "1e8480" hex
        (1, "Memcpy", 0, 4294967295, 1000, 60000, 1000, "7", "hcom_allReduce__1_0_1", 0, 4),
        (0, "Notify_Record", 0, 1, 0, 95000, 5000, "7", "hcom_allReduce__1_0_1", 0, 4),
    ]


def test_comm_op_by_hand(newer_db):
    got = rows(newer_db, """SELECT step, group_name, op_name, op_type, comm_kind, start_ns - ?, elapse_ns,
                                   transit_ns, wait_ns, synchronization_ns, idle_ns, wait_ratio,
                                   synchronization_ratio FROM comm_op""", [B])
    transit = 8000 + 16000              # HCCS copies on plane 1; ON_CHIP copies are not transit
    wait = 10000 + 4000                 # both Notify_Wait of plane 1
    sync = 10000                        # the one before the first transfer (Reduce_Inline at 20 µs)
    elapse = 100000                     # plane 0's first start to its last end (all planes)
    assert got == [(4, "7", "hcom_allReduce__1_0_1", "allreduce", "collective", 0, elapse, transit, wait, sync,
                    elapse - transit - wait, round(wait / (wait + transit), 4), round(sync / (sync + transit), 4))]


def test_comm_bandwidth_and_matrix_by_hand(newer_db):
    bw = {r[0]: r[1:] for r in rows(newer_db, """SELECT transport_type, transit_size_bytes, transit_ns,
                                                         bandwidth_gbps, large_packet_ratio, packet_count
                                                  FROM comm_bandwidth""")}
    assert bw == {"HCCS": (6000000, 24000, 250.0, 0.0, 2), "SDMA": (6000000, 24000, 250.0, 0.0, 2),
                  "PCIE": (0, 0, 0.0, 0.0, 0), "SIO": (0, 0, 0.0, 0.0, 0), "RDMA": (0, 0, 0.0, 0.0, 0)}
    matrix = rows(newer_db, """SELECT src_rank, dst_rank, transport_type, transit_size_bytes, transit_ns
                               FROM comm_matrix ORDER BY src_rank, dst_rank""")
    assert matrix == [(0, 0, "LOCAL", 0x200000 + 1000, 2500 + 1000),   # dst 4294967295 → self link
                      (0, 1, "HCCS", 4000000 + 2000000, 8000 + 16000)]
    summary = rows(newer_db, """SELECT op_key, dst_rank, transit_size_bytes, op_name FROM comm_matrix_summary
                                WHERE src_rank = 0 ORDER BY dst_rank, variant""")
    assert summary == [("allreduce-bottom1", 0, 2098152, "hcom_allReduce__1_0_1"),
                       ("allreduce-middle", 0, 2098152, "hcom_allReduce__1_0_1"),
                       ("allreduce-top1", 0, 2098152, "hcom_allReduce__1_0_1"),
                       ("allreduce-total", 0, 2098152, None),
                       ("allreduce-bottom1", 1, 6000000, "hcom_allReduce__1_0_1"),
                       ("allreduce-middle", 1, 6000000, "hcom_allReduce__1_0_1"),
                       ("allreduce-top1", 1, 6000000, "hcom_allReduce__1_0_1"),
                       ("allreduce-total", 1, 6000000, None)]
    # no communication.json: every number is reported as unchecked
    assert rows(newer_db, "SELECT DISTINCT status FROM comm_op_check") == [("missing_in_profiler",)]


def test_rdma_window_consumes_its_notify_tasks(tmp_path):
    """Single plane (master). Payloads at seq 2-3, k = 5 (not send/receive): window closes at
    seq 2 + 2 + 5 − 2 = 7 (the Notify_Record), so the Notify_Waits at seq 5, 6 are not wait."""
    g = "Group 9 Communication"
    ev = [meta(PID, 0, "process_name", "Communication"), meta(PID, 0, "thread_name", g),
          meta(PID, 1, "thread_name", "Plane 0"),
          {"ph": "X", "name": "hcom_allGather__2_0_1", "pid": PID, "tid": 0, "ts": at(0), "dur": 35.0, "args": {}},
          task(1, "Notify_Wait", 0, 1.0, transport="RDMA", link="ROCE"),
          task(1, "RDMASend", 10, 2.0, transport="RDMA", link="ROCE", size=1000000),
          task(1, "RDMASend", 13, 2.0, transport="RDMA", link="ROCE", size=1000000),
          task(1, "RDMASend", 16, 1.0, transport="RDMA", link="ROCE", size=0),
          task(1, "Notify_Wait", 18, 3.0, transport="RDMA", link="ROCE"),
          task(1, "Notify_Wait", 22, 2.0, transport="RDMA", link="ROCE"),
          task(1, "Notify_Record", 25, 1.0, transport="RDMA", link="ROCE"),
          task(1, "Notify_Wait", 30, 5.0, transport="RDMA", link="ROCE")]
    db = tmp_path / "t.duckdb"
    ingest_paths(db, write_rank(tmp_path, ev))
    window = 26000 - 10000
    assert rows(db, "SELECT elapse_ns, transit_ns, wait_ns, synchronization_ns, idle_ns FROM comm_op") == [
        (35000, window, 1000 + 5000, 1000, 35000 - window - 6000)]
    assert rows(db, """SELECT transit_size_bytes, transit_ns, bandwidth_gbps, large_packet_ratio, packet_count
                       FROM comm_bandwidth WHERE transport_type = 'RDMA'""") == [(2000000, window, 125.0, 1.0, 1)]
    assert rows(db, "SELECT src_rank, dst_rank, transport_type, transit_size_bytes, transit_ns FROM comm_matrix") == [
        (0, 1, "RDMA", 2000000, window)]


def test_older_layout_planes_before_the_group_row(tmp_path):
    """2023-era CANN: planes at tid 0, 1 and the op row at tid 70000; no thread_sort_index."""
    pid = 77
    ev = [meta(pid, 0, "process_name", "Communication"),
          meta(pid, 70000, "thread_name", "Group 3 Communication"),
          meta(pid, 0, "thread_name", "Plane 0"), meta(pid, 1, "thread_name", "Plane 1"),
          {"ph": "X", "name": "hcom_send__5_0", "pid": pid, "tid": 70000, "ts": at(0), "dur": 10.0, "args": {}},
          task(0, "Memcpy", 1, 2.0, size=64, pid=pid), task(1, "Notify Record", 4, 1.0, pid=pid),
          task(0, "Memcpy", 50, 2.0, size=64, pid=pid)]    # outside every op slice
    db = tmp_path / "t.duckdb"
    ingest_paths(db, write_rank(tmp_path, ev))
    assert rows(db, "SELECT plane_id, task_name, group_name, op_name FROM link ORDER BY ts_ns") == [
        (0, "Memcpy", "3", "hcom_send__5_0"), (1, "Notify_Record", "3", "hcom_send__5_0"),
        (0, "Memcpy", "3", None)]
    # two planes without RDMA: plane 1 is the master plane, and it moved nothing
    assert rows(db, "SELECT op_name, comm_kind, op_type, elapse_ns, transit_ns FROM comm_op") == [
        ("hcom_send__5_0", "p2p", "send", 5000 - 1000, 0)]


def test_trace_without_planes_has_no_links(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, write_rank(tmp_path, NEWER[:2]))
    assert rows(db, "SELECT count(*) FROM link") == [(0,)]
    assert rows(db, "SELECT count(*) FROM comm_op") == [(0,)]


def test_single_communication_json_and_bad_values(tmp_path):
    out = tmp_path / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    f = out / "communication.json"
    f.write_text(json.dumps({"hcom_send__1_0@55": {
        "Communication Time Info": {"Start Timestamp(us)": "START", "Elapse Time(ms)": 0.0012345,
                                    "Transit Time(ms)": 0.001, "Wait Time(ms)": 0, "Synchronization Time(ms)": 0,
                                    "Idle Time(ms)": 0.0002345, "Wait Time Ratio": 0, "Synchronization Time Ratio": 0},
        "Communication Bandwidth Info": {"RDMA": {"Transit Size(MB)": 16.777216, "Transit Time(ms)": 0.001,
                                                  "Bandwidth(GB/s)": 16777.216, "Large Packet Ratio": 1.0,
                                                  "Size Distribution": {"16.777216": [1, 0.001]}}}},
        "Total HCCL Operators": {"Communication Time Info": {"Elapse Time(ms)": 0.0012345}}})
                 .replace('"START"', "1719000000001000.125"))   # more digits than a float keeps
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f)     # a single file path is accepted (CANN flat shape)
    assert rows(db, """SELECT step, comm_kind, op_name, group_name, is_total, start_ns, elapse_ns, idle_ns
                       FROM profiler_comm_op ORDER BY is_total""") == [
        (None, None, "hcom_send__1_0", "55", False, 1719000000001000125, 1234, 234),
        (None, None, "Total HCCL Operators", None, True, None, 1234, None)]
    assert rows(db, "SELECT transport_type, transit_size_bytes, transit_ns, packet_count FROM profiler_comm_bandwidth") == [
        ("RDMA", 16777216, 1000, 1)]
    assert rows(db, "SELECT status FROM comm_op_check WHERE metric = 'elapse_ns'") == [("missing_in_trace",)]

    bad = tmp_path / "b_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    bad.mkdir(parents=True)
    (bad / "communication.json").write_text(json.dumps(
        {"step1": {"collective": {"hcom_allReduce__1@9": {"Communication Time Info": {"Elapse Time(ms)": "abc"}}}}}))
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "b.duckdb", bad / "communication.json")
    assert "communication.json" in str(e.value) and "step1 → collective" in str(e.value)
    assert "Elapse Time(ms)" in str(e.value)
    (bad / "communication_matrix.json").write_text('{"step1": {"collective": {"x@1": {"0-1": ')
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "c.duckdb", bad / "communication_matrix.json")
    assert "communication_matrix.json" in str(e.value) and "line 1" in str(e.value)
