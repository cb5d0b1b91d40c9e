"""kernel_stats and copy_bandwidth on hand-made kernel rows (numbers worked out by hand)."""
from __future__ import annotations

import pytest

from tracedb.store.db import connect
from tracedb.store.library import install
from tracedb.store.schema import apply_schema


@pytest.fixture
def con(tmp_path):
    c = connect(tmp_path / "t.duckdb")
    apply_schema(c)
    install(c)
    c.execute("INSERT INTO run (run_id, run_name, platform) VALUES (1, 'r', 'gpu')")
    yield c
    c.close()


def add(con, rows):
    """rows: (kernel_id, step, name, ts_ns, dur_ns, is_comm, copy_kind, size_bytes)"""
    for kid, step, name, ts, dur, comm, kind, size in rows:
        con.execute("""INSERT INTO kernel (run_id, rank, file_id, kernel_id, step, name, op_type, accelerator_core,
                                           stream_id, ts_ns, dur_ns, is_communication, copy_kind, size_bytes, source)
                       VALUES (1, 0, 0, ?, ?, ?, ?, 'KERNEL', '7', ?, ?, ?, ?, ?, 'test')""",
                    [kid, step, name, name, ts, dur, comm, kind, size])


def test_kernel_stats_by_hand(con):
    #   step 1: gemm 10, 20, 60 µs; nccl 50 µs          step 2: gemm 40 µs
    add(con, [(1, 1, "gemm", 0, 10_000, False, None, None), (2, 1, "gemm", 20_000, 20_000, False, None, None),
              (3, 1, "gemm", 50_000, 60_000, False, None, None), (4, 1, "ncclKernel_AllReduce", 0, 50_000, True, None, None),
              (5, 2, "gemm", 200_000, 40_000, False, None, None)])
    got = con.execute("""SELECT step, kernel_type, call_count, total_ns, mean_ns, min_ns, max_ns, std_ns, p50_ns, p90_ns,
                                p99_ns, kernel_time_ratio, step_span_ratio
                         FROM kernel_stats WHERE kernel_name = 'gemm' ORDER BY step NULLS LAST""").fetchall()
    # step 1: mean 30 µs; sample std sqrt((20² + 10² + 30²) / 2) = sqrt(700) = 26.4575 µs; nearest
    # rank p50 = 2nd of 3 = 20, p90 = p99 = 3rd = 60; share of kernel time 90 / 140; span 0..110 µs
    assert got[0] == (1, "COMPUTATION", 3, 90_000, 30_000, 10_000, 60_000, 26_458, 20_000, 60_000, 60_000,
                      pytest.approx(90 / 140), pytest.approx(90 / 110))
    assert got[1] == (2, "COMPUTATION", 1, 40_000, 40_000, 40_000, 40_000, 0, 40_000, 40_000, 40_000, 1.0, 1.0)
    # whole capture: 4 calls, 10 20 40 60 → mean 32.5, std sqrt((22.5² + 12.5² + 7.5² + 27.5²) / 3)
    # = sqrt(1475 / 3) = 22.174 µs; p50 = 2nd = 20, p90 = 4th = 60
    assert got[2][:10] == (None, "COMPUTATION", 4, 130_000, 32_500, 10_000, 60_000, 22_174, 20_000, 60_000)
    assert con.execute("SELECT kernel_type FROM kernel_stats WHERE kernel_name LIKE 'nccl%' AND step = 1").fetchall() == \
        [("COMMUNICATION",)]


def test_copy_bandwidth_by_hand(con):
    #   step 1: HtoD 1 MB in 100 µs (10 GB/s), HtoD 3 MB in 100 µs (30 GB/s), Memset 4 kB in 0 ns
    #   step 2: DtoH 2 MB in 1 ms (2 GB/s)
    add(con, [(1, 1, "Memcpy HtoD (Pageable -> Device)", 0, 100_000, False, "HtoD", 1_000_000),
              (2, 1, "Memcpy HtoD (Pageable -> Device)", 200_000, 100_000, False, "HtoD", 3_000_000),
              (3, 1, "Memset (Device)", 400_000, 0, False, "Memset", 4096),
              (4, 2, "Memcpy DtoH (Device -> Pageable)", 500_000, 1_000_000, False, "DtoH", 2_000_000)])
    got = con.execute("""SELECT step, copy_kind, copy_count, size_bytes, dur_ns, bandwidth_gbps, mean_copy_gbps,
                                min_copy_gbps, max_copy_gbps FROM copy_bandwidth ORDER BY step NULLS LAST, copy_kind""").fetchall()
    assert got == [
        (1, "HtoD", 2, 4_000_000, 200_000, 20.0, 20.0, 10.0, 30.0),
        (1, "Memset", 1, 4096, 0, None, None, None, None),      # 0 ns: no bandwidth (HTA would take 1 µs)
        (2, "DtoH", 1, 2_000_000, 1_000_000, 2.0, 2.0, 2.0, 2.0),
        (None, "DtoH", 1, 2_000_000, 1_000_000, 2.0, 2.0, 2.0, 2.0),
        (None, "HtoD", 2, 4_000_000, 200_000, 20.0, 20.0, 10.0, 30.0),
        (None, "Memset", 1, 4096, 0, None, None, None, None),
    ]
