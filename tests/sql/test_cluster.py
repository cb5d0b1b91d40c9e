"""slow_rank and comm_wait_cross_rank on hand-drawn multi-rank timelines.

Every expected number is worked out by hand from the drawing next to it.
"""
from __future__ import annotations

from timeline import add_kernels, add_run, fetch_dicts


def test_comm_wait_cross_rank_aligns_executions(empty_db):
    # allreduce X, group g, on 3 ranks (start, end):
    #   rank 0: 100-200   rank 1: 150-200   rank 2: 120-205   -> rank 1 arrived last
    # a second execution of an NCCL-style repeated name "nccl_ar" on ranks 0 and 1 only;
    # rank 2 never runs it (incomplete instance).
    con = empty_db
    add_run(con)
    for rank, (s, e) in enumerate([(100, 200), (150, 200), (120, 205)]):
        add_kernels(con, [("hcom_allReduce__1_0_1", s, e, True, 1)], rank=rank)
    con.execute("UPDATE kernel SET group_name = 'g'")
    add_kernels(con, [("nccl_ar", 300, 340, True, 1), ("nccl_ar", 400, 470, True, 1)], rank=0)
    con.execute("UPDATE kernel SET kernel_id = kernel_id + 10 WHERE rank = 0 AND name = 'nccl_ar'")
    add_kernels(con, [("nccl_ar", 310, 340, True, 1), ("nccl_ar", 450, 470, True, 1)], rank=1)
    con.execute("UPDATE kernel SET kernel_id = kernel_id + 10 WHERE rank = 1 AND name = 'nccl_ar'")
    got = fetch_dicts(con, "SELECT op_name, execution, rank, transmit_ns, wait_ns, late_start_ns, "
                           "is_last_to_arrive, rank_count, complete FROM comm_wait_cross_rank "
                           "ORDER BY op_name, execution, rank")
    assert got == [
        # transmit = min(100, 50, 85) = 50; waits 50, 0, 35; late starts 0, 50, 20
        dict(op_name="hcom_allReduce__1_0_1", execution=1, rank=0, transmit_ns=50, wait_ns=50, late_start_ns=0,
             is_last_to_arrive=False, rank_count=3, complete=True),
        dict(op_name="hcom_allReduce__1_0_1", execution=1, rank=1, transmit_ns=50, wait_ns=0, late_start_ns=50,
             is_last_to_arrive=True, rank_count=3, complete=True),
        dict(op_name="hcom_allReduce__1_0_1", execution=1, rank=2, transmit_ns=50, wait_ns=35, late_start_ns=20,
             is_last_to_arrive=False, rank_count=3, complete=True),
        # group '' (no group name) has ranks 0 and 1 only -> complete
        # execution 1: durations 40, 30; execution 2: durations 70, 20
        dict(op_name="nccl_ar", execution=1, rank=0, transmit_ns=30, wait_ns=10, late_start_ns=0,
             is_last_to_arrive=False, rank_count=2, complete=True),
        dict(op_name="nccl_ar", execution=1, rank=1, transmit_ns=30, wait_ns=0, late_start_ns=10,
             is_last_to_arrive=True, rank_count=2, complete=True),
        dict(op_name="nccl_ar", execution=2, rank=0, transmit_ns=20, wait_ns=50, late_start_ns=0,
             is_last_to_arrive=False, rank_count=2, complete=True),
        dict(op_name="nccl_ar", execution=2, rank=1, transmit_ns=20, wait_ns=0, late_start_ns=50,
             is_last_to_arrive=True, rank_count=2, complete=True),
    ]
    # rank 2 now runs only another op of group g: the allreduce instance misses a rank of its group
    con.execute("DELETE FROM kernel WHERE rank = 2")
    con.execute("INSERT INTO kernel (run_id, rank, file_id, kernel_id, step, name, ts_ns, dur_ns, is_communication, "
                "group_name, source) VALUES (1, 2, 0, 99, 1, 'hcom_allGather__2_0_1', 500, 10, true, 'g', 'test')")
    got = fetch_dicts(con, "SELECT rank, rank_count, complete FROM comm_wait_cross_rank "
                           "WHERE op_name = 'hcom_allReduce__1_0_1' ORDER BY rank")
    assert got == [dict(rank=0, rank_count=2, complete=False), dict(rank=1, rank_count=2, complete=False)]


def test_slow_rank_rules(empty_db):
    # 4 ranks, one step; each rank: compute [0, c), communication [c, c + m) not overlapped,
    # then an idle gap f, then a closing kernel of 10 ns.
    #   rank 0: c=100 m=50 f=0   -> e2e 160
    #   rank 1: c=100 m=50 f=0   -> e2e 160
    #   rank 2: c=100 m=60 f=0   -> e2e 170
    #   rank 3: c=150 m=50 f=20  -> e2e 230
    con = empty_db
    add_run(con)
    for rank, (c, m, f) in enumerate([(100, 50, 0), (100, 50, 0), (100, 60, 0), (150, 50, 20)]):
        add_kernels(con, [("A", 0, c, False, 1), ("hcom_x", c, c + m, True, 1),
                          ("Z", c + m + f, c + m + f + 10, False, 1)], rank=rank)
    got = {r["rank"]: r for r in fetch_dicts(con, "SELECT * FROM slow_rank")}
    # e2e: 160, 160, 170, 230 -> median 165, mean 180, fastest 160
    assert [got[r]["e2e_ns"] for r in range(4)] == [160, 160, 170, 230]
    assert got[3]["median_e2e_ns"] == 165 and got[3]["mean_e2e_ns"] == 180
    assert [got[r]["behind_fastest_ns"] for r in range(4)] == [0, 0, 10, 70]
    # computing incl. the closing kernel: 110, 110, 110, 160 -> median 110; rank 3 excess 50
    # not overlapped: 50, 50, 60, 50 -> median 50; free 0, 0, 0, 20 -> median 0
    assert (got[3]["computing_excess_ns"], got[3]["communication_not_overlapped_excess_ns"],
            got[3]["free_excess_ns"]) == (50, 0, 20)
    assert got[3]["slowest_part"] == "computing" and got[2]["slowest_part"] == "communication_not_overlapped"
    assert got[0]["slowest_part"] is None
    # msprof 5 %: mean(computing + not overlapped + free) = (160 + 160 + 170 + 230) / 4 = 180;
    # threshold 9 ns: ranks 2 (10 behind) and 3 (70 behind) are flagged
    assert [got[r]["msprof_slow_5pct"] for r in range(4)] == [False, False, True, True]
    # MindInsight 20 %: e2e > 1.2 × 180 = 216 -> rank 3 only
    assert [got[r]["mindinsight_slow_20pct"] for r in range(4)] == [False, False, False, True]


def test_slow_link_rules(empty_db):
    # four SDMA links of one step (MindSpore hccl_raw rows: bytes, ns), plus a self link that
    # must be left out: bandwidths 10, 10, 9, 6 GB/s
    con = empty_db
    add_run(con)
    for src, dst, size, ns in [(0, 1, 1000, 100), (1, 0, 2000, 200), (0, 2, 900, 100), (2, 0, 600, 100),
                               (0, 0, 5000, 1)]:
        con.execute("INSERT INTO link (run_id, rank, file_id, step, op_name, task_name, src_rank, dst_rank, "
                    "transport_type, dur_ns, size_bytes) VALUES (1, 0, 0, 1, 'op', 'hccl_raw', ?, ?, 'SDMA', ?, ?)",
                    [src, dst, ns, size])
    got = {(r["src_rank"], r["dst_rank"]): r for r in fetch_dicts(con, "SELECT * FROM slow_link")}
    assert set(got) == {(0, 1), (1, 0), (0, 2), (2, 0)}
    assert [got[k]["bandwidth_gbps"] for k in [(0, 1), (1, 0), (0, 2), (2, 0)]] == [10, 10, 9, 6]
    r = got[(2, 0)]
    # median 9.5, mean 8.75, population σ = sqrt(10.75 / 4)
    assert r["transport_median_gbps"] == 9.5 and r["transport_mean_gbps"] == 8.75 and r["link_count"] == 4
    assert abs(r["z_score"] - (6 - 8.75) / (10.75 / 4) ** 0.5) < 1e-12
    # 5 % rule: below 0.95 × 9.5 = 9.025 -> 9 and 6; 20 % rule: below 0.8 × 8.75 = 7 -> 6 only
    assert {k for k, v in got.items() if v["msprof_slow_5pct"]} == {(0, 2), (2, 0)}
    assert {k for k, v in got.items() if v["mindinsight_slow_20pct"]} == {(2, 0)}


def test_slow_link_order_is_total(empty_db):
    """Links of equal bandwidth come out by group, source and destination rank, whatever order
    they were stored in (csv diffs between two runs of the same query stay empty): twelve
    links of one step at 10 GB/s each, stored in reverse."""
    con = empty_db
    add_run(con)
    links = [(3, 2), (2, 3), (3, 1), (1, 3), (2, 1), (1, 2), (3, 0), (0, 3), (2, 0), (0, 2), (1, 0), (0, 1)]
    for src, dst in links:
        con.execute("INSERT INTO link (run_id, rank, file_id, step, op_name, task_name, src_rank, dst_rank, "
                    "transport_type, dur_ns, size_bytes) VALUES (1, 0, 0, 1, 'op', 'hccl_raw', ?, ?, 'SDMA', 100, 1000)",
                    [src, dst])
    got = [(r["src_rank"], r["dst_rank"], r["bandwidth_gbps"]) for r in fetch_dicts(con, "SELECT * FROM slow_link")]
    assert got == [(s, d, 10.0) for s, d in sorted(links)]
