"""input_bound on a micro Kineto trace and a micro MindSpore profiler folder, both drawn below;
the numbers are read off the drawings."""
from __future__ import annotations

import json

import pytest

import diag_kineto as k
from conftest import ingest_paths, rows

US = k.US
DL = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"

# µs after BASE_NS, one host thread, stream 7
# step 1 [0, 1000): DataLoader fetches [10, 410) and [400, 500) → union [10, 500) = 490
#   L2 cudaLaunchKernel [300, 310) → K2 [320, 350);  L1 [450, 460) → K1 [470, 800)
#   device busy = 30 + 330 = 360; preparing = K2 start − step start = 320
#   TensorBoard's DataLoader = [10, 500) minus L2 10, K2 30, L1 10, K1∩ [470, 500) 30 = 490 − 80 = 410
# step 2 [1000, 2000): DataLoader [1000, 1010) = 10; L3 [1020, 1030) → K3 [1040, 1900)
#   device busy 860, preparing 40, TensorBoard 10 (nothing overlaps the fetch)
KINETO = [
    k.x("ProfilerStep#1", "0.000", "1000.000", cat="user_annotation"),
    k.x(DL, "10.000", "400.000"), k.x(DL, "400.000", "100.000"),
    k.launch(2, "300.000", "10.000"), k.kernel(2, "k2", "320.000", "30.000"),
    k.launch(1, "450.000", "10.000"), k.kernel(1, "k1", "470.000", "330.000"),
    k.x("ProfilerStep#2", "1000.000", "1000.000", cat="user_annotation"),
    k.x(DL, "1000.000", "10.000"),
    k.launch(3, "1020.000", "10.000"), k.kernel(3, "k3", "1040.000", "860.000"),
]

# MindSpore flat folder: step_trace_raw in 10 ns ticks
#   step 1 [0, 100000) fp 0 → interval 0
#   step 2 [100000, 300000) fp 200000 → interval 100000 ticks = 1 ms of a 2 ms step (ratio 0.5)
#   step 3 [300000, 400000) fp 300040 → interval 400 ns (below MindInsight's 0.5 ms)
STEP_TRACE = ("step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail\n"
              "1,0,100000,100000,0,80000,0,80000,20000\n"
              "2,100000,300000,200000,200000,280000,100000,80000,20000\n"
              "3,300000,400000,100000,300040,380000,40,79960,20000\n")
# pipeline: DeviceQueueOp 0 (root, no queue) <- BatchOp 1 <- MapOp 2 (1 worker) <- ImageFolderOp 3
#   queue sizes per sample     BatchOp [0, 0, 0, 2]  MapOp [0, 0, 0, 1]  ImageFolderOp [8, 9, 8, 9]
#   samples 0-2: the device's queue (BatchOp) is empty, MapOp's is empty while its input holds data
#   → MapOp is to blame (3 of 3 waits); pipeline empty ratio 3/4
PIPELINE = {"sampling_interval": 10, "op_info": [
    {"op_id": 0, "op_type": "DeviceQueueOp", "num_workers": 1, "children": [1], "metrics": None},
    {"op_id": 1, "op_type": "BatchOp", "num_workers": 4, "children": [2],
     "metrics": {"output_queue": {"length": 64, "size": [0, 0, 0, 2], "throughput": [0.0, 0.5, 0.5, 0.25]}}},
    {"op_id": 2, "op_type": "MapOp", "num_workers": 1, "children": [3],
     "metrics": {"output_queue": {"length": 64, "size": [0, 0, 0, 1], "throughput": [0.0, 2.0, 4.0, 6.0]}}},
    {"op_id": 3, "op_type": "ImageFolderOp", "num_workers": 8,
     "metrics": {"output_queue": {"length": 64, "size": [8, 9, 8, 9], "throughput": [0.0, 9.0, 9.0, 9.0]}}}]}
# device queue: batches 1..3 found 0, 0, 3 batches (capacity 64) → empty ratio 2/3
QUEUE = "0 0 1 5 100\n1 64 1 0 100\n1 64 2 0 200\n0 1 2 3 200\n1 64 3 3 300\n"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("input_bound")
    db = tmp / "t.duckdb"
    ingest_paths(db, k.write(tmp / "loader.pt.trace.json", KINETO), run="loader")
    ms = tmp / "ms" / "profiler"
    ms.mkdir(parents=True)
    (ms / "step_trace_raw_0_detail_time.csv").write_text(STEP_TRACE)
    (ms / "pipeline_profiling_0.json").write_text(json.dumps(PIPELINE))
    (ms / "device_queue_profiling_0.txt").write_text(QUEUE)
    ingest_paths(db, ms, run="ms")
    return db


def test_dataloader_share_busy_device_and_verdict(db):
    got = rows(db, "SELECT step, data_loading_source, step_ns, data_loading_ns, data_loading_ratio, loader_call_count, "
                   "dataloader_mode, tb_dataloader_ns, preparing_ns, device_busy_ns, device_busy_ratio, is_input_bound, "
                   "input_bound_rule FROM input_bound WHERE run_name = 'loader' ORDER BY step")
    assert got == [
        (1, "dataloader", 1000 * US, 490 * US, 0.49, 2, "single_process", 410 * US, 320 * US, 360 * US, 0.36, True,
         "data_loading_ratio > 0.05"),
        (2, "dataloader", 1000 * US, 10 * US, 0.01, 1, "single_process", 10 * US, 40 * US, 860 * US, 0.86, False,
         "data_loading_ratio > 0.05"),
    ]


def test_mindspore_iteration_interval_queue_and_producer(db):
    got = rows(db, "SELECT step, data_loading_source, step_ns, data_loading_ns, data_loading_ratio, device_busy_ns, "
                   "is_input_bound, device_queue_batch_count, device_queue_capacity_count FROM input_bound "
                   "WHERE run_name = 'ms' ORDER BY step")
    assert got == [(1, "iteration_interval", 1_000_000, 0, 0.0, 1_000_000, False, 0, 64),
                   (2, "iteration_interval", 2_000_000, 1_000_000, 0.5, 1_000_000, True, 0, 64),
                   (3, "iteration_interval", 1_000_000, 400, 0.0004, 999_600, False, 3, 64)]
    rank = rows(db, "SELECT DISTINCT device_queue_empty_ratio, pipeline_queue_empty_ratio, data_pipeline_bound, "
                    "producer_op_id, producer_op_type, producer_worker_count, producer_throughput_rows_per_ms, "
                    "producer_queue_empty_ratio FROM input_bound WHERE run_name = 'ms'")
    # throughput: the samples after the first, (2 + 4 + 6) / 3; MapOp's queue empty 3 of 4 samples
    assert rank == [(pytest.approx(2 / 3), 0.75, True, 2, "MapOp", 1, 4.0, 0.75)]


def test_a_changed_threshold_changes_the_verdict(db):
    """Thresholds are data: a user's value applies at query time."""
    import duckdb

    def set_ratio(value: float) -> None:
        con = duckdb.connect(str(db))
        try:
            con.execute("UPDATE diagnosis_threshold SET value = ? WHERE name = 'input_bound.dataloader_ratio'", [value])
        finally:
            con.close()

    set_ratio(0.005)
    try:
        assert rows(db, "SELECT step, is_input_bound FROM input_bound WHERE run_name = 'loader' ORDER BY step") == [
            (1, True), (2, True)]
    finally:
        set_ratio(0.05)
    assert rows(db, "SELECT step, is_input_bound FROM input_bound WHERE run_name = 'loader' ORDER BY step") == [
        (1, True), (2, False)]
