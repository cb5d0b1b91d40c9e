"""CANN msprof timeline files as a rank (issue 39, point 5): PROF_*/device_<n>/timeline, as
MindSpore 2.x jobs leave them. Ascend Hardware tasks → kernels, the Step Trace "Iteration <n>"
slices → steps, HCCL → communication ops and links; the combined msprof_*.json and the
task_time_* / hccl_* slices give the same rows.

The micro test writes both forms by hand in the shape of the corpus files (CANN 6.x, 2023:
numeric ts in µs of a monotonic clock, Step Trace as an Ascend Hardware thread in the combined
file and as a process of its own in the step_trace_* slice). The corpus test checks the real
capture's step 1 against the file's own Overlap Analysis slices.
"""
from __future__ import annotations

import json
import shutil
from decimal import Decimal

import pytest

from conftest import corpus_path, ingest_paths, rows

HW, CANN_PID, HCCL, STEP = 3, 1003602, 1003611, 10036
M = "ph"


def meta(pid, name, labels=None, threads=()):
    out = [{"name": "process_name", "pid": pid, "tid": 0, "args": {"name": name}, M: "M"}]
    if labels:
        out.append({"name": "process_labels", "pid": pid, "tid": 0, "args": {"labels": labels}, M: "M"})
    for tid, tname in threads:
        out.append({"name": "thread_name", "pid": pid, "tid": tid, "args": {"name": tname}, M: "M"})
    return out


def task(name, tid, ts, dur, task_type):
    return {"name": name, "pid": HW, "tid": tid, "ts": ts, "dur": dur,
            "args": {"Task Type": task_type, "Stream Id": tid, "Task Id": 1, "Batch Id": 0}, M: "X"}


def iteration(pid, tid, n, ts, dur, fp, bp):
    return [{"name": f"Iteration {n}", "pid": pid, "tid": tid, "ts": ts, "dur": dur, "cat": "Iteration Time",
             "args": {"Iteration ID": n, "FP Start": fp, "BP End": bp, "Iteration End": ts + dur,
                      "Iteration Time(ns)": dur * 1000}, M: "X"},
            {"name": f"FP_BP Time {n}", "pid": pid, "tid": tid, "ts": fp, "dur": bp - fp, "cat": "FP_BP Time",
             "args": {"Iteration ID": n}, M: "X"}]


TASKS = [
    task("Default/network/MatMul-op1", 2, 100.5, 20.25, "AI_CORE"),
    task("Default/network/DropoutGenMask-op2", 4, 130.0, 10.0, "AI_CPU"),
    task("NOTIFY_WAIT", 12, 150.0, 2.0, "NOTIFY_WAIT"),
    task("MEMCPY_ASYNC", 12, 152.0, 30.0, "MEMCPY_ASYNC"),       # the allreduce's Memcpy task
    task("Default/network/Add-op3", 2, 1100.0, 5.5, "AI_CORE"),   # iteration 2
]
HCCL_EVENTS = meta(HCCL, "HCCL", "NPU", [(0, "Plane 0"), (70000, "Communication Kernel")]) + [
    {"name": "Default/AllReduce-op9_0", "pid": HCCL, "tid": 70000, "ts": 150.0, "dur": 40.0, M: "X"},
    {"name": "Notify_Wait", "pid": HCCL, "tid": 0, "ts": 150.0, "dur": 2.0,
     "args": {"stream id": 12, "task id": 2, "task type": "Notify_Wait", "src rank": 0, "dst rank": 4294967295,
              "transport type": "LOCAL", "size(Byte)": 0, "link type": "INVALID_TYPE"}, M: "X"},
    {"name": "Memcpy", "pid": HCCL, "tid": 0, "ts": 152.0, "dur": 30.0,
     "args": {"stream id": 12, "task id": 3, "task type": "Memcpy", "src rank": 0, "dst rank": 1,
              "transport type": "SDMA", "size(Byte)": 4096, "link type": "HCCS"}, M: "X"},
]
HW_META = meta(HW, "Ascend Hardware", "NPU", [(2, "Stream 2"), (4, "Stream 4"), (12, "Stream 12")])
STEP_ROWS = iteration(STEP, STEP, 1, 90.0, 200.0, 100.5, 140.0) + iteration(STEP, STEP, 2, 1090.0, 100.0, 1100.0, 1105.5)

# the combined file holds iteration 1 only (one model iteration per msprof_<model>_<iter>.json);
# the step_trace slice holds every iteration
COMBINED = (HW_META + meta(HW, "Ascend Hardware", "NPU", [(STEP, "Step Trace(Model ID:1)")])
            + [dict(e, pid=HW) for e in STEP_ROWS[:2]] + TASKS
            + meta(CANN_PID, "CANN", "CPU", [(16027, "Thread 16027")])
            + [{"name": "GE@Infer", "pid": CANN_PID, "tid": 16027, "ts": 80.0, "dur": 300.0, "args": {}, M: "X"}]
            + HCCL_EVENTS)
SLICES = {"task_time_0_1_1.json": HW_META + TASKS, "hccl_0_1_1.json": HCCL_EVENTS}
STEP_SLICE = meta(STEP, "Step Trace", threads=[(STEP, "Model ID:1")]) + STEP_ROWS


def write(folder, files):
    tl = folder / "PROF_000001_20230818142704322_ABCDEFGHIJKLMNOP" / "device_3" / "timeline"
    tl.mkdir(parents=True)
    for name, events in {**files, "step_trace_0_1_1.json": STEP_SLICE}.items():
        (tl / name).write_text(json.dumps(events))
    return folder


ROW_QUERIES = {
    "kernel": "SELECT rank, step, name, ts_ns, dur_ns, stream_id, is_communication, copy_kind, accelerator_core "
              "FROM kernel ORDER BY ALL",
    "step": "SELECT rank, step, host_start_ns, device_start_ns, device_end_ns, fp_ns, bp_ns FROM step ORDER BY ALL",
    "link": "SELECT rank, step, op_name, task_name, ts_ns, dur_ns, src_rank, dst_rank, size_bytes, plane_id "
            "FROM link ORDER BY ALL",
    "comm_op": "SELECT rank, step, op_name, op_type FROM comm_op ORDER BY ALL",
    "step_breakdown": "SELECT rank, step, computing_ns, communication_ns, communication_not_overlapped_ns, free_ns "
                      "FROM step_breakdown ORDER BY ALL",
}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cann")
    out = {}
    for form, files in (("combined", {"msprof_0_1_1.json": COMBINED}), ("slices", SLICES)):
        db = tmp / f"{form}.duckdb"
        ingest_paths(db, write(tmp / form, files))
        out[form] = db
    return out


def test_tasks_are_kernels_and_iterations_are_steps(dbs):
    db = dbs["combined"]
    # rank = the device folder's number (no rank is written anywhere else)
    assert rows(db, "SELECT rank FROM rank") == [(3,)]
    # compute tasks (not the HCCL task twins, not the Step Trace rows), the HCCL op; steps by iteration
    assert rows(db, "SELECT step, name, ts_ns, dur_ns, stream_id, is_communication FROM kernel ORDER BY ts_ns") == [
        (1, "Default/network/MatMul-op1", 100_500, 20_250, "2", False),
        (1, "Default/network/DropoutGenMask-op2", 130_000, 10_000, "4", False),
        (1, "Default/AllReduce-op9_0", 150_000, 40_000, None, True),
        (2, "Default/network/Add-op3", 1_100_000, 5_500, "2", False),
    ]
    # step windows: 050 sets the device window from the kernels; fp / bp from the Iteration args
    assert rows(db, "SELECT step, device_start_ns, device_end_ns, fp_ns, bp_ns FROM step ORDER BY step") == [
        (1, 100_500, 190_000, 100_500, 140_000), (2, 1_100_000, 1_105_500, 1_100_000, 1_105_500)]
    assert rows(db, "SELECT step, task_name, op_name FROM link ORDER BY ts_ns") == [
        (1, "Notify_Wait", "Default/AllReduce-op9_0"), (1, "Memcpy", "Default/AllReduce-op9_0")]
    # step 1 [100.5, 190): computing MatMul 20.25 + DropoutGenMask 10, communication 40 (none
    # overlapped), free 89.5 - 30.25 - 40 = 19.25 µs; the HCCL Memcpy task is no copy
    assert rows(db, "SELECT step, computing_ns, communication_ns, communication_not_overlapped_ns, free_ns "
                    "FROM step_breakdown ORDER BY step") == [
        (1, 30_250, 40_000, 40_000, 19_250), (2, 5_500, 0, 0, 0)]
    assert rows(db, "SELECT count(*) FROM kernel WHERE copy_kind IS NOT NULL") == [(0,)]


def test_combined_file_and_slices_give_identical_rows(dbs):
    for table, q in ROW_QUERIES.items():
        assert rows(dbs["combined"], q) == rows(dbs["slices"], q), table


def test_a_prof_device_or_timeline_folder_and_one_file_are_a_rank(tmp_path):
    from tracedb.ingestion.detect import detect
    root = write(tmp_path / "job", {"msprof_0_1_1.json": COMBINED})
    tl = next(root.glob("PROF_*/device_3/timeline"))
    for p in (tl.parent.parent, tl.parent, tl):
        assert [(u.rank, [t.name for t in u.timelines]) for u in detect(p).ranks] == [
            (3, ["msprof_0_1_1.json", "step_trace_0_1_1.json"])], p
    db = tmp_path / "prof.duckdb"
    ingest_paths(db, tl.parent.parent)
    assert rows(db, "SELECT rank, count(*) FROM kernel GROUP BY ALL") == [(3, 4)]
    assert rows(db, "SELECT count(*) FROM step") == [(2,)]
    db = tmp_path / "one.duckdb"
    ingest_paths(db, tl / "msprof_0_1_1.json")
    assert rows(db, "SELECT rank, count(*), count(step) FROM kernel GROUP BY ALL") == [(3, 4, 4)]


# ---- the real capture (corpus) ------------------------------------------------------------

CORPUS_DIR = "mindinsight/tests/utils/resource/profiler"


def overlap_sums(path):
    """Σ dur (µs, exact decimals) of the Overlap Analysis slices of a combined msprof file."""
    events = json.loads(path.read_text(), parse_float=Decimal)
    pid = {e["pid"] for e in events if e.get(M) == "M" and e.get("name") == "process_name"
           and e["args"]["name"] == "Overlap Analysis"}
    out: dict[str, Decimal] = {}
    for e in events:
        if e.get(M) == "X" and e["pid"] in pid:
            out[e["name"]] = out.get(e["name"], Decimal(0)) + e["dur"]
    return out


@pytest.mark.corpus
def test_corpus_capture_steps_kernels_and_overlap(tmp_path):
    """The 2023 MindSpore capture (CANN 6.x, device 0, model 2, iteration 1 in msprof_0_2_1.json,
    iterations 1-10 in step_trace_0_2_1.json): its Ascend Hardware compute tasks (137 AI_CORE + 2
    AI_CPU, counted in the file) and its one allreduce are kernels of step 1; step 1's computing,
    communication, not-overlapped and free time equal the sums of the file's own Overlap Analysis
    slices (CANN's numbers); the combined file and the slices give the same rows."""
    src = next(corpus_path(CORPUS_DIR).glob("PROF_*/device_0/timeline"))
    forms = {"combined": ("msprof_0_2_1.json", "step_trace_0_2_1.json"),
             "slices": ("task_time_0_2_1.json", "hccl_0_2_1.json", "step_trace_0_2_1.json")}
    dbs = {}
    for form, names in forms.items():
        tl = tmp_path / form / "PROF_000001" / "device_0" / "timeline"
        tl.mkdir(parents=True)
        for n in names:
            shutil.copy(src / n, tl / n)
        dbs[form] = tmp_path / f"{form}.duckdb"
        ingest_paths(dbs[form], tmp_path / form)
    events = json.loads((src / "task_time_0_2_1.json").read_text())
    compute = [e for e in events if e.get(M) == "X" and e["args"]["Task Type"] in ("AI_CORE", "AI_CPU")]
    assert len(compute) == 139
    db = dbs["combined"]
    assert rows(db, "SELECT is_communication, count(*), min(step), max(step) FROM kernel GROUP BY ALL ORDER BY ALL") == [
        (False, 139, 1, 1), (True, 1, 1, 1)]
    assert rows(db, "SELECT count(*), min(step), max(step) FROM step") == [(10, 1, 10)]
    # Iteration 2 of step_trace_0_2_1.json: FP Start 56635944375.25, BP End 56635948644.4 (µs)
    assert rows(db, "SELECT fp_ns, bp_ns FROM step WHERE step = 2") == [(56_635_944_375_250, 56_635_948_644_400)]
    ov = overlap_sums(src / "msprof_0_2_1.json")
    ns = {k: int(v * 1000) for k, v in ov.items()}
    assert rows(db, "SELECT computing_ns, communication_ns, communication_not_overlapped_ns, free_ns "
                    "FROM step_breakdown WHERE step = 1") == [
        (ns["Computing"], ns["Communication"], ns["Communication(Not Overlapped)"], ns["Free"])]
    for table, q in ROW_QUERIES.items():
        assert rows(dbs["combined"], q) == rows(dbs["slices"], q), table
