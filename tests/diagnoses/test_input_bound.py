"""input_bound on a micro Kineto trace (drawn below) and a micro MindSpore profiler folder (drawn
in tests/minddata_micro.py); the numbers are read off the drawings."""
from __future__ import annotations

import pytest

import diag_kineto as k
from conftest import ingest_paths, rows
from minddata_micro import write_minddata

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


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("input_bound")
    db = tmp / "t.duckdb"
    ingest_paths(db, k.write(tmp / "loader.pt.trace.json", KINETO), run="loader")
    ingest_paths(db, write_minddata(tmp / "ms" / "profiler"), run="ms")
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
