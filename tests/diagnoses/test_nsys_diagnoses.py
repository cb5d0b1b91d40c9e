"""range_time, the NVTX ops, sync_copy, host_thread_state, thread_state and host_wait's
launch_thread_call on the micro Nsight export drawn in nsys_micro.py; numbers read off the drawing,
and Nsight's own projection rule (nvtx_gpu_proj_trace's SQL, without its R-tree index) run on
the export with sqlite3."""
from __future__ import annotations

import sqlite3

import pytest

import nsys_micro as m
from conftest import ingest_paths, rows

E = m.EPOCH


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    return m.write(tmp_path_factory.mktemp("nsys") / "micro.sqlite")


@pytest.fixture(scope="module")
def db(export, tmp_path_factory):
    db = tmp_path_factory.mktemp("nsys_db") / "t.duckdb"
    ingest_paths(db, export, run="micro")
    return db


def test_range_time_by_hand(db):
    got = rows(db, "SELECT name, step, depth, gpu_op_count, kernel_count, innermost_op_count, gpu_start_ns - ?, "
                   "gpu_proj_ns, gpu_busy_ns, host_ns FROM range_time ORDER BY range_id", [E])
    assert got == [
        # all 10 operations of step 1 (c1..c7, c9, c10, c12; c8 launches nothing): K1 2000 .. M2 13900;
        # busy = K1 500 + K2 100 + K3 1000 + M1 1000 + K4..K6 30 + K7 100 + K9 100 + M2 800
        ("ProfilerStep#1", 1, 0, 10, 8, 2, 2000, 11900, 3630, 19000),
        ("loader", 1, 0, 0, 0, 0, None, None, None, 8000),          # T2 launches nothing
        ("forward", 1, 1, 3, 3, 1, 2000, 3200, 1600, 4900),          # c1 c2 c3 (c9 ends after 6000)
        ("layer1", 1, 2, 2, 2, 2, 2000, 700, 600, 1800),             # c1 c2 → K1 2000..2500, K2 2600..2700
        ("optimizer", 1, 1, 5, 4, 5, 6700, 2500, 1130, 6000),        # c4 c5 c6 c7 c12 → M1 6700 .. K9 9200
        ("ProfilerStep#2", 2, 0, 1, 1, 0, 21500, 400, 400, 10000),
        ("layer1", 2, 1, 1, 1, 1, 21500, 400, 400, 1000),
    ]


def _nsight_projection(path) -> dict[str, tuple[int, int, int]]:
    """nvtx_gpu_proj_trace's projection query on the export (ranges that end on their start
    thread; GPU ops = kernels, memcpys, memsets joined to their runtime call by correlation id and
    process; contained when the call lies within the range on its thread), summed per name as
    nvtx_gpu_proj_sum does: name → (Total Proj Time, Range Instances, Total GPU Ops)."""
    con = sqlite3.connect(path)
    try:
        return {name: (proj, n, ops) for name, proj, n, ops in con.execute("""
            WITH gpuops AS (
                SELECT start, end, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL
                UNION ALL SELECT start, end, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMCPY
            ),
            ranges AS (
                SELECT rowid AS rangeId, start, end, globalTid AS tid, text AS name FROM NVTX_EVENTS
                WHERE eventType IN (59, 60, 70, 71) AND endGlobalTid IS NULL AND end IS NOT NULL
            ),
            projection AS (
                SELECT rt.name, rt.rangeId, max(op.end) - min(op.start) AS projDuration,
                       count(DISTINCT r.correlationId) AS opNb
                FROM gpuops AS op
                JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r
                    ON op.correlationId = r.correlationId AND op.globalPid = (r.globalTid & 0xFFFFFFFFFF000000)
                JOIN ranges AS rt ON rt.start <= r.start AND rt.end >= r.end AND rt.tid = r.globalTid
                GROUP BY rt.rangeId
            )
            SELECT name, sum(projDuration), count(*), sum(opNb) FROM projection GROUP BY name""")}
    finally:
        con.close()


def test_gpu_projection_equals_nsight_rule(db, export):
    want = _nsight_projection(export)
    assert want == {"ProfilerStep#1": (11900, 1, 10), "forward": (3200, 1, 3), "layer1": (1100, 2, 3),
                    "optimizer": (2500, 1, 5), "ProfilerStep#2": (400, 1, 1)}
    got = rows(db, "SELECT name, sum(gpu_proj_ns), count(*), sum(gpu_op_count) FROM range_time "
                   "WHERE gpu_op_count > 0 GROUP BY name")
    assert {n: (p, c, o) for n, p, c, o in got} == want


def test_every_kernel_inside_a_range_is_linked_to_it(db, export):
    """A kernel whose launch call lies in NVTX ranges of its thread is linked to each of them, the
    deepest as innermost; op_id is its innermost range that is not a step range (derive/123)."""
    con = sqlite3.connect(export)
    try:
        inside = con.execute("""
            SELECT r.correlationId, n.text, n.start FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r
            JOIN NVTX_EVENTS AS n ON n.globalTid = r.globalTid AND n.start <= r.start AND r.end <= n.end
            WHERE r.correlationId IN (SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL
                                      UNION SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY)""").fetchall()
    finally:
        con.close()
    got = rows(db, "SELECT k.correlation_id, h.name, h.ts_ns - ? FROM kernel_range AS kr "
                   "JOIN kernel AS k USING (run_id, rank, kernel_id) JOIN host_range AS h USING (run_id, rank, range_id)",
               [E])
    assert sorted(got) == sorted(inside) and len(got) == 10 + 3 + 2 + 5 + 1 + 1   # per range, as test_range_time_by_hand
    innermost = rows(db, "SELECT k.correlation_id, h.name FROM kernel_range AS kr JOIN kernel AS k USING "
                         "(run_id, rank, kernel_id) JOIN host_range AS h USING (run_id, rank, range_id) "
                         "WHERE kr.is_innermost ORDER BY 1")
    assert innermost == [(1, "layer1"), (2, "layer1"), (3, "forward"), (4, "optimizer"), (5, "optimizer"),
                         (6, "optimizer"), (7, "optimizer"), (9, "ProfilerStep#1"), (10, "ProfilerStep#1"),
                         (11, "layer1"), (12, "optimizer")]
    ops = rows(db, "SELECT k.correlation_id, o.name FROM kernel AS k LEFT JOIN op AS o USING (run_id, rank, op_id) "
                   "ORDER BY 1")
    assert ops == [(c, None if n.startswith("ProfilerStep") else n) for c, n in innermost]
    assert rows(db, "SELECT name, depth, kernel_count, kernel_total_count, device_total_ns FROM op ORDER BY op_id") == [
        ("loader", 0, 0, 0, 0), ("forward", 0, 1, 3, 1600), ("layer1", 1, 2, 2, 600), ("optimizer", 0, 4, 4, 130),
        ("layer1", 0, 1, 1, 400)]


def test_sync_copy_by_hand(db):
    assert rows(db, "SELECT step, reason, call_name, copy_kind, memory_kinds, call_count, host_ns, copy_bytes, "
                    "step_ns FROM sync_copy ORDER BY host_ns DESC") == [
        (1, "sync_copy_call", "cudaMemcpy_v3020", "DtoH", "Device -> Pinned", 1, 1000, 8192, 19000),
        (1, "synchronize", "cudaStreamSynchronize_v3020", None, None, 1, 600, None, 19000),
        (1, "pageable_copy", "cudaMemcpyAsync_v3020", "HtoD", "Pageable -> Device", 1, 100, 4096, 19000),
    ]


def test_thread_state_from_sched_events(db):
    assert rows(db, "SELECT tid, thread_name, ts_ns - ?, dur_ns, state, cpu, block_reason FROM thread_state "
                    "ORDER BY tid, ts_ns", [E]) == [
        ("100", "python", 1000, 7200, "running", 0, None),
        ("100", "python", 8200, 800, "Interruptible", 0, "Mutex"),
        ("100", "python", 9000, 11000, "running", 1, None),
        ("100", "python", 20000, 100, "preempted", 1, "NonBlocked"),   # left the CPU still Running
        ("101", "pt_data_worker", 1000, 500, "running", 2, None),
        ("101", "pt_data_worker", 1500, 3500, "Uninterruptible", 2, "PageIn"),
        ("101", "pt_data_worker", 5000, 100, "running", 2, None),
        ("101", "pt_data_worker", 5100, 2900, "Interruptible", 2, "Nanosleep"),
    ]


def test_host_thread_state_by_hand(db):
    got = rows(db, "SELECT tid, source, state, detail, interval_count, state_ns FROM host_thread_state "
                   "WHERE step = 1 ORDER BY tid, source, state, detail")
    assert got == [
        ("100", "osrt", "lock", "pthread_mutex_lock", 1, 800),
        ("100", "runtime", "copy", "cudaMemcpyAsync_v3020", 1, 100),
        ("100", "runtime", "copy", "cudaMemcpy_v3020", 1, 1000),
        ("100", "runtime", "launch", "cudaLaunchKernel_v7000", 8, 4 * 100 + 4 * 50),  # c1 c2 c3 c9: 100 each; c5 c6 c7 c12: 50
        ("100", "runtime", "sync", "cudaStreamSynchronize_v3020", 1, 600),
        ("100", "sched", "Interruptible", "Mutex", 1, 800),
        ("100", "sched", "running", None, 2, 7200 + 11000),   # the second interval clipped at the step end 20000
        ("101", "osrt", "io", "read", 1, 4000),
        ("101", "osrt", "sleep", "nanosleep", 1, 3000),
        ("101", "sched", "Interruptible", "Nanosleep", 1, 2900),
        ("101", "sched", "Uninterruptible", "PageIn", 1, 3500),
        ("101", "sched", "running", None, 2, 500 + 100),
    ]
    assert rows(db, "SELECT DISTINCT step_ns FROM host_thread_state WHERE step = 1") == [(19000,)]


def test_host_wait_says_which_call_the_launch_thread_was_in(db):
    """Stream 7 idles from K7's end (8100) to K9 (9100); K9's launch c12 starts at 9000, after the
    idle start: host_wait. The launch thread spent 800 of those 1000 ns in pthread_mutex_lock."""
    got = rows(db, "SELECT DISTINCT cause, idle_ns, launch_thread_call, launch_thread_call_ns FROM host_wait "
                   "WHERE stream_id = '7' AND idle_start_ns = ?", [E + 8100])
    assert got == [("host_wait", 1000, "pthread_mutex_lock", 800)]
    assert rows(db, "SELECT host_kind, host_name, overlap_ns FROM host_wait WHERE stream_id = '7' AND idle_start_ns = ? "
                    "ORDER BY overlap_ns DESC", [E + 8100]) == [
        ("osrt", "pthread_mutex_lock", 800), ("runtime", "cudaLaunchKernel_v7000", 50)]


NSYS = "flameox/tests/fixtures/nsight_systems/nsight-2025.5.2.sqlite"


@pytest.mark.corpus
def test_corpus_export_host_calls_and_sync_copy(tmp_path):
    """The corpus export (nsys 2025.5.2): every CUDA runtime and OS runtime call becomes an event;
    its one memcpy is a pageable HtoD cudaMemcpyAsync and its two cudaStreamSynchronize block the
    host: sync_copy's host time equals the calls' durations read with sqlite3. It has no
    NVTX_EVENTS table (nothing for range_time) and no SCHED_EVENTS."""
    from conftest import corpus_path
    path = corpus_path(NSYS)
    con = sqlite3.connect(path)
    try:
        n_rt = con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0]
        n_os = con.execute("SELECT count(*) FROM OSRT_API").fetchone()[0]
        sync = con.execute("SELECT count(*), sum(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
                           "JOIN StringIds AS s ON s.id = r.nameId WHERE s.value LIKE 'cudaStreamSynchronize%'").fetchone()
        copy = con.execute("SELECT r.end - r.start, m.bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY AS m JOIN "
                           "CUPTI_ACTIVITY_KIND_RUNTIME AS r USING (correlationId)").fetchone()
    finally:
        con.close()
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path, run="nsys")
    assert dict(rows(db, "SELECT cat, count(*) FROM event WHERE ph = 'X' GROUP BY cat")) == {
        "cuda_runtime": n_rt, "osrt": n_os} == {"cuda_runtime": 33, "osrt": 654}
    assert rows(db, "SELECT reason, call_count, host_ns, copy_bytes, memory_kinds FROM sync_copy ORDER BY reason") == [
        ("pageable_copy", 1, copy[0], copy[1], "Pageable -> Device"), ("synchronize", sync[0], sync[1], None, None)]
    assert rows(db, "SELECT count(*) FROM range_time") == [(0,)]
