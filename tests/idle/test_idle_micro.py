"""Idle views on micro Kineto traces drawn in tests/idle/micro.py (one gap per cause).

Expected numbers are read off the drawn timelines; the HolisticTraceAnalysis numbers quoted were
produced by running HTA 0.5.0 on the same files (``TraceAnalysis(trace_dir).get_idle_time_breakdown
(ranks=[0])``, ``get_cuda_kernel_launch_stats``, ``get_queue_length_summary``), once as shipped
(µs rounding) and once with ``HTA_DISABLE_NS_ROUNDING=1`` (HTA's rules on the exact values).
"""
from __future__ import annotations

import pytest

import micro
from conftest import ingest_paths, rows

US = 1000
T0 = micro.BASE_NS


@pytest.fixture
def causes_db(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, micro.write(tmp_path / "rank0.pt.trace.json", micro.CAUSES), run="micro")
    return db


@pytest.fixture
def sub_us_db(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, micro.write(tmp_path / "rank0.pt.trace.json", micro.SUB_US), run="sub")
    return db


def test_one_gap_per_cause(causes_db):
    got = rows(causes_db, "SELECT step, stream_id, start_ns - $t0, end_ns - $t0, dur_ns, cause, kernel_before, "
                          "kernel_after, host_late_ns FROM idle_interval ORDER BY start_ns", {"t0": T0})
    assert got == [
        (1, "7", 40 * US, 50 * US, 10 * US, "kernel_wait", "k1_gemm", "k2_relu", None),
        (1, "7", 60 * US, 160 * US, 100 * US, "other", "k2_relu", "k3_gemm", None),
        (1, "7", 170 * US, 210 * US, 40 * US, "host_wait", "k3_gemm", "k4_add", 30 * US),
        # the gap before step 2's kernel belongs to step 2 (HTA drops it with the last step)
        (2, "7", 220 * US, 1020 * US, 800 * US, "host_wait", "k4_add", "k5_add", 790 * US),
    ]


def test_idle_time_per_step_equals_hta(causes_db):
    got = rows(causes_db, "SELECT step, cause, idle_ns, interval_count, stream_idle_ns, round(idle_ratio, 4) "
                          "FROM idle_time ORDER BY step NULLS LAST, cause")
    assert got == [
        # HTA (rounded and exact alike): host_wait 40, kernel_wait 10, other 100 µs; ratios 0.27, 0.07, 0.67
        (1, "host_wait", 40 * US, 1, 150 * US, round(40 / 150, 4)),
        (1, "kernel_wait", 10 * US, 1, 150 * US, round(10 / 150, 4)),
        (1, "other", 100 * US, 1, 150 * US, round(100 / 150, 4)),
        (2, "host_wait", 800 * US, 1, 800 * US, 1.0),
        (None, "host_wait", 840 * US, 2, 950 * US, round(840 / 950, 4)),
        (None, "kernel_wait", 10 * US, 1, 950 * US, round(10 / 950, 4)),
        (None, "other", 100 * US, 1, 950 * US, round(100 / 950, 4)),
    ]


def test_kernel_wait_threshold_is_a_parameter(causes_db):
    # at 5 µs the 10 µs gap is no longer kernel wait; at 200 µs the 100 µs gap is
    assert rows(causes_db, "SELECT cause, sum(dur_ns) FROM idle_interval_with(5000) WHERE step = 1 "
                           "GROUP BY cause ORDER BY cause") == [("host_wait", 40 * US), ("other", 110 * US)]
    assert rows(causes_db, "SELECT cause, sum(dur_ns) FROM idle_interval_with(200000) WHERE step = 1 "
                           "GROUP BY cause ORDER BY cause") == [("host_wait", 40 * US), ("kernel_wait", 110 * US)]


def test_host_wait_names_the_data_loader_and_the_sync(causes_db):
    got = rows(causes_db, "SELECT cause, idle_start_ns - $t0, host_kind, host_name, overlap_ns FROM host_wait "
                          "WHERE step = 1 ORDER BY idle_start_ns, host_ts_ns", {"t0": T0})
    assert got == [
        # 60..160 (other): the thread sat in cudaStreamSynchronize 100..150
        ("other", 60 * US, "sync", "cudaStreamSynchronize", 50 * US),
        # 170..210 (host wait): the data loader 168..199, then aten::to 199..206 with the launch 200..205
        ("host_wait", 170 * US, "dataloader", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 29 * US),
        ("host_wait", 170 * US, "framework_op", "aten::to", 7 * US),
        ("host_wait", 170 * US, "runtime", "cudaLaunchKernel", 5 * US),
    ]
    # "the GPU waited for the data loader" as one query
    assert rows(causes_db, "SELECT sum(overlap_ns) FROM host_wait WHERE cause = 'host_wait' "
                           "AND host_kind = 'dataloader'") == [(29 * US,)]


def test_kernel_launch_delays_equal_hta(causes_db):
    got = rows(causes_db, "SELECT step, kernel_name, launch_name, launch_dur_ns, kernel_dur_ns, launch_delay_ns, "
                          "hta_launch_delay_ns FROM kernel_launch ORDER BY kernel_ts_ns")
    assert got == [
        # HTA cpu_duration 5, gpu_duration 20/10/10/10, launch_delay 5, 33, 141, 5 µs
        (1, "k1_gemm", "cudaLaunchKernel", 5 * US, 20 * US, 10 * US, 5 * US),
        (1, "k2_relu", "cudaLaunchKernel", 5 * US, 10 * US, 38 * US, 33 * US),
        (1, "k3_gemm", "cudaLaunchKernel", 5 * US, 10 * US, 146 * US, 141 * US),
        (1, "k4_add", "cudaLaunchKernel", 5 * US, 10 * US, 10 * US, 5 * US),
        (2, "k5_add", "cudaLaunchKernel", 5 * US, 10 * US, 10 * US, 5 * US),   # in the step HTA drops
    ]
    got = rows(causes_db, "SELECT step, kernel_count, max_hta_launch_delay_ns, p50_launch_delay_ns, "
                          "runtime_outlier_count, launch_delay_outlier_count, short_kernel_count "
                          "FROM kernel_launch_stats ORDER BY step NULLS LAST")
    # one launch delay above HTA's 100 µs cutoff (141 µs); no launch call above 50 µs; no kernel
    # shorter than its 5 µs launch call
    assert got == [(1, 4, 141 * US, 10 * US, 0, 1, 0), (2, 1, 5 * US, 10 * US, 0, 0, 0),
                   (None, 5, 141 * US, 10 * US, 0, 1, 0)]
    assert rows(causes_db, "SELECT step, launch_delay_outlier_count, short_kernel_count "
                           "FROM kernel_launch_stats_with(4000, 1000) ORDER BY step NULLS LAST") == \
        [(1, 4, 0), (2, 1, 0), (None, 5, 0)]


def test_queue_length_equals_hta(causes_db):
    assert rows(causes_db, "SELECT ts_ns - $t0, event, queued_count FROM queue_length ORDER BY ts_ns",
                {"t0": T0}) == [
        (10 * US, "launch", 1), (12 * US, "launch", 2), (14 * US, "launch", 3), (20 * US, "start", 2),
        (50 * US, "start", 1), (160 * US, "start", 0), (200 * US, "launch", 1), (210 * US, "start", 0),
        (1010 * US, "launch", 1), (1020 * US, "start", 0)]
    got = rows(causes_db, "SELECT step, point_count, max_queued_count, min_queued_count, queued_point_total_count, "
                          "queued_ns, zero_queue_ns FROM queue_length_summary ORDER BY step NULLS LAST")
    # HTA (step 1 only): count 8, mean 1.25 = 10 / 8, min 0, max 3. queued_ns = Σ start − launch
    # = 10 + 38 + 146 + 10 µs; zero: 160..200 and 210..1010
    assert got[0] == (1, 8, 3, 0, 10, 204 * US, 840 * US)
    assert got[1][:5] == (2, 2, 1, 0, 1)
    assert got[2][:5] == (None, 10, 3, 0, 11)


def test_sub_us_gaps_exact_where_hta_rounds(sub_us_db):
    # HTA as shipped: kernel_wait 6 µs (each start ceiled, each end floored: 3 gaps of 2 µs);
    # HTA with HTA_DISABLE_NS_ROUNDING=1: 1.0 µs = 0.3 + 0.35 + 0.35 µs
    assert rows(sub_us_db, "SELECT step, cause, idle_ns, interval_count FROM idle_time WHERE step = 1") == \
        [(1, "kernel_wait", 1000, 3)]
    assert rows(sub_us_db, "SELECT dur_ns FROM idle_interval ORDER BY start_ns") == [(300,), (350,), (350,)]
    # launch: HTA as shipped says cpu_duration 0 / -1 µs, gpu_duration -1 µs, launch_delay 10, 11,
    # 11, 12 µs; exact HTA: 0.4, 0.8/0.5/0.9/0.5, 8.70, 9.30, 9.65, 10.40 µs
    assert rows(sub_us_db, "SELECT launch_dur_ns, kernel_dur_ns, hta_launch_delay_ns FROM kernel_launch "
                           "ORDER BY kernel_ts_ns") == \
        [(400, 800, 8700), (400, 500, 9300), (400, 900, 9650), (400, 500, 10400)]
    # HTA queue length: count 8, mean 2.0, max 4
    assert rows(sub_us_db, "SELECT point_count, queued_point_total_count, max_queued_count "
                           "FROM queue_length_summary WHERE step = 1") == [(8, 16, 4)]
