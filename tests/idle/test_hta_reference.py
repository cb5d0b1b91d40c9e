"""temporal_breakdown and idle_time_hta on the micro traces of tests/idle/micro_hta.py: tracedb's
own numbers (per step, whole capture) beside HolisticTraceAnalysis's (its window, its rules).

How the HTA numbers were produced (the test does not need HTA): HTA 0.6.1 (PyPI package
``traceinsight==0.6.1``) in a throwaway venv, ``python tests/idle/micro_hta.py DIR`` to write the
traces, then with ``HTA_DISABLE_NS_ROUNDING=1`` per trace ``TraceAnalysis(trace_dir=DIR/<name>)``,
``get_temporal_breakdown(visualize=False)`` and ``get_idle_time_breakdown(ranks=[0],
visualize=False)``; the interval counts are the ``count`` of ``show_idle_interval_stats``. The
micro timestamps are small µs values, which float64 holds exactly: HTA's sums are whole µs.
The timelines are drawn in micro_hta.py; every other expected number is read off them.
"""
from __future__ import annotations

import pytest

import micro_hta
from conftest import ingest_paths, rows

US = 1000
T0 = 1_700_000_000_000_000_000   # baseTimeNanoseconds of the micro traces


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hta_micro")
    d = tmp / "t.duckdb"
    # one command, one run per folder (named after it: edges, zero_gaps ...)
    ingest_paths(d, *[p.parent for p in micro_hta.write_all(tmp).values()], run_per_path=True)
    return d


def breakdown(db, run):
    return rows(db, "SELECT scope, step, idle_ns, compute_ns, non_compute_ns, kernel_time_ns, window_source, "
                    "event_count FROM temporal_breakdown WHERE run_name = ? ORDER BY ALL", [run])


def test_temporal_breakdown_per_step_whole_capture_and_hta_window(db):
    assert breakdown(db, "edges") == [
        # HTA get_temporal_breakdown: idle 301, compute 123, non-compute 6, kernel_time 430 µs
        # (70.0 / 28.6 / 1.4 %): K0a..K8 and the Stream Sync [170, 176), K9 cut
        ("capture", None, 317 * US, 143 * US, 0, 460 * US, "all_events", 9),
        ("hta", None, 301 * US, 123 * US, 6 * US, 430 * US, "launch_before_last_gpu_step", 9),
        # step 1: K1 K3 K4 K5 over [70, 170): busy 10 + 35 + 10; the sync record is no kernel row
        ("step", 1, 45 * US, 55 * US, 0, 100 * US, "launch", 4),
        ("step", 2, 0, 30 * US, 0, 30 * US, "launch", 1),
        ("step", 3, 10 * US, 40 * US, 0, 50 * US, "launch", 2),
    ]
    # the capture row is capture_breakdown's; the step rows are step_breakdown's
    assert rows(db, "SELECT free_excl_copy_ns, computing_ns, e2e_ns FROM capture_breakdown WHERE run_name = 'edges'") \
        == [(317 * US, 143 * US, 460 * US)]
    assert rows(db, "SELECT step, free_excl_copy_ns, computing_ns, e2e_ns FROM step_breakdown "
                    "WHERE run_name = 'edges' ORDER BY step") == \
        [(1, 45 * US, 55 * US, 100 * US), (2, 0, 30 * US, 30 * US), (3, 10 * US, 40 * US, 50 * US)]
    # HTA prints round(100 × ratio, 2)
    assert rows(db, "SELECT round(100 * idle_ratio, 2), round(100 * compute_ratio, 2), "
                    "round(100 * non_compute_ratio, 2) FROM temporal_breakdown "
                    "WHERE run_name = 'edges' AND scope = 'hta'") == [(70.0, 28.6, 1.4)]


def test_the_window_bounds_and_what_bounded_them(db):
    got = rows(db, """SELECT scope, step, window_start_ns - $t0, window_end_ns - $t0, host_start_ns - $t0,
                             host_end_ns - $t0, gpu_start_ns - $t0, gpu_end_ns - $t0, hta_cut_ns - $t0
                      FROM temporal_breakdown WHERE run_name = 'edges' ORDER BY ALL""", {"t0": T0})
    assert got == [
        ("capture", None, 10 * US, 470 * US, None, None, None, None, None),
        # HTA cuts at the later start of ProfilerStep#3: 420 (GPU side), not 400 (host)
        ("hta", None, 10 * US, 440 * US, None, None, None, None, 420 * US),
        ("step", 1, 70 * US, 170 * US, 50 * US, 200 * US, 70 * US, 176 * US, None),
        ("step", 2, 230 * US, 260 * US, 200 * US, 400 * US, 230 * US, 260 * US, None),
        ("step", 3, 420 * US, 470 * US, 400 * US, 600 * US, 420 * US, 470 * US, None),
    ]
    # without the GPU-side copies HTA cuts at the host start (400) and drops K8 (launched at 405):
    # HTA idle 141, compute 103, non-compute 6, kernel_time 250 µs (56.4 / 41.2 / 2.4 %)
    assert rows(db, "SELECT idle_ns, compute_ns, non_compute_ns, kernel_time_ns, window_source, hta_cut_ns - $t0 "
                    "FROM temporal_breakdown WHERE run_name = 'edges_host_only' AND scope = 'hta'", {"t0": T0}) \
        == [(141 * US, 103 * US, 6 * US, 250 * US, "launch_before_last_host_step", 400 * US)]


def test_gpu_side_records(db):
    assert rows(db, "SELECT s.step, s.gpu_start_ns - $t0, s.gpu_end_ns - $t0 FROM step AS s JOIN run AS r "
                    "USING (run_id) WHERE r.run_name = 'edges' ORDER BY 1", {"t0": T0}) == \
        [(1, 70 * US, 176 * US), (2, 230 * US, 260 * US), (3, 420 * US, 470 * US)]
    assert rows(db, "SELECT cat, name, stream_id, ts_ns - $t0, dur_ns, correlation_id, launch_name, launch_ts_ns - $t0 "
                    "FROM stream_event AS e JOIN run AS r USING (run_id) WHERE r.run_name = 'edges'", {"t0": T0}) == \
        [("cuda_sync", "Stream Sync", "7", 170 * US, 6 * US, 6, "cudaStreamSynchronize", 165 * US)]
    # a trace without GPU-side copies has none
    assert rows(db, "SELECT count(gpu_start_ns) FROM step JOIN run USING (run_id) WHERE run_name = 'edges_host_only'") \
        == [(0,)]


def test_hta_kernel_types_beside_tracedbs(db):
    # HTA: compute 10 µs (k_gemm), non-compute 30 (the SyncBN kernel's name matches ".*Sync",
    # NCCL, the copy); tracedb's kernel_class_rule counts the SyncBN kernel as computing
    assert breakdown(db, "kernel_types") == [
        ("capture", None, 0, 20 * US, 20 * US, 40 * US, "all_events", 4),
        ("hta", None, 0, 10 * US, 30 * US, 40 * US, "all_events", 4),       # one ProfilerStep: no cut
        ("step", 1, 0, 20 * US, 20 * US, 40 * US, "launch", 4),
    ]
    assert rows(db, "SELECT name, kernel_type FROM tracedb_internal.hta_gpu_event AS e JOIN run AS r "
                    "USING (run_id) WHERE r.run_name = 'kernel_types' ORDER BY ts_ns") == [
        ("k_gemm", "COMPUTATION"), ("batch_norm_SyncBN_kernel", "OTHER"),
        ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "COMMUNICATION"), ("Memcpy DtoD (Device -> Device)", "MEMORY")]


IDLE_HTA = """SELECT stream_id, cause, idle_ns, interval_count, round(idle_ratio, 6), zero_interval_count, overlap_count,
                     overlap_ns, tracedb_idle_ns, tracedb_interval_count
              FROM idle_time_hta WHERE run_name = ? ORDER BY ALL"""


def test_idle_time_hta_counts_the_window_edges_the_step_rows_leave_out(db):
    """Issue 39 point 2: HTA's host_wait had more intervals and more time than idle_time's step
    rows before the last step (the way idle_time's header said to compare): HTA keeps the kernels
    launched before the first step and those launched in the last step before its GPU-side copy
    starts."""
    assert rows(db, IDLE_HTA, ["edges"]) == [
        # HTA: host_wait 297 µs in 5 gaps (K0b 2, K1 40, K5 35, K7 60, K8 160), ratio 0.9834437086092715;
        # kernel_wait 5 µs in 2 (K3 15, K4 −10: K4 starts before K3 ends), other 0 in 0
        ("7", "host_wait", 297 * US, 5, 0.983444, 0, 0, 0, 297 * US, 5),
        ("7", "kernel_wait", 5 * US, 2, 0.016556, 0, 1, -10 * US, 15 * US, 1),
        ("7", "other", 0, 0, 0.0, 0, 0, 0, 0, 0),
    ]
    # idle_time's step rows before the last step: K1 40 + K5 35 + K7 60 = 135 µs in 3 gaps; K0b
    # (launched outside every step) and K8 (step 3) are not in them
    assert rows(db, """SELECT cause, sum(idle_ns), sum(interval_count) FROM idle_time
                       WHERE run_name = 'edges' AND step < 3 GROUP BY cause ORDER BY cause""") == \
        [("host_wait", 135 * US, 3), ("kernel_wait", 15 * US, 1)]
    # the whole-capture rows hold every gap, K9's (launched after HTA's cut) too
    assert rows(db, "SELECT cause, idle_ns, interval_count FROM idle_time WHERE run_name = 'edges' AND step IS NULL "
                    "ORDER BY cause") == [("host_wait", 297 * US, 5), ("kernel_wait", 25 * US, 2)]
    # without the GPU-side copies HTA cuts at 400 and drops K8: host_wait 137 µs in 4 gaps
    assert rows(db, IDLE_HTA, ["edges_host_only"])[0][:4] == ("7", "host_wait", 137 * US, 4)


def test_zero_length_gaps_count_in_hta_not_in_tracedb(db):
    """Kernels starting exactly where the previous one ends: HTA counts a gap of 0, tracedb has no
    idle interval; the totals are equal, the counts differ."""
    # HTA: kernel_wait 2 µs in 3 gaps (0 + 2 + 0), idle_time_ratio 1.0
    assert rows(db, IDLE_HTA, ["zero_gaps"]) == [
        ("7", "kernel_wait", 2 * US, 3, 1.0, 2, 0, 0, 2 * US, 1),
        ("7", "other", 0, 0, 0.0, 0, 0, 0, 0, 0),
    ]
    assert rows(db, "SELECT step, cause, idle_ns, interval_count FROM idle_time WHERE run_name = 'zero_gaps' "
                    "ORDER BY step NULLS LAST") == [(1, "kernel_wait", 2 * US, 1), (None, "kernel_wait", 2 * US, 1)]
    assert rows(db, "SELECT count(*), count_if(dur_ns = 0) FROM idle_interval WHERE run_name = 'zero_gaps'") == [(1, 0)]
    # HTA on kernel_types (three zero gaps only): kernel_wait 0 µs in 3 gaps, ratios NaN
    assert rows(db, IDLE_HTA, ["kernel_types"])[0] == ("7", "kernel_wait", 0, 3, None, 3, 0, 0, 0, 0)
