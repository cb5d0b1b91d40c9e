"""step_breakdown / free_time / uncovered_communication on hand-drawn timelines.

Every expected number below is worked out by hand from the drawing next to it.
"""
from __future__ import annotations

import random

from timeline import add_kernels, add_run, add_step, fetch_dicts

COLS = ("computing_ns, communication_ns, communication_not_overlapped_ns, overlapped_ns, free_ns, bubble_ns, "
        "communication_not_overlapped_exclude_receive_ns, stage_ns, preparing_ns")


def breakdown(con, step=1):
    return fetch_dicts(con, f"SELECT {COLS}, step_start_ns, step_end_ns FROM step_breakdown "
                            "WHERE step IS NOT DISTINCT FROM ?", [step])


def test_compute_comm_overlap_and_free(empty_db):
    # time:      0    10   20   30   40   50   60   70   80   90  100
    # compute A: [====)                                            0-10
    # compute B:           [=========)                             20-40
    # comm    C:                 [==============)                  30-60
    # compute D:                                       [====)      80-90
    # host step starts at -5
    con = empty_db
    add_run(con)
    add_step(con, 1, -5, 95)
    add_kernels(con, [("A", 0, 10, False, 1), ("B", 20, 40, False, 1), ("hcom_allReduce__1_0_1", 30, 60, True, 1),
                      ("D", 80, 90, False, 1)])
    (row,) = breakdown(con)
    # computing = 10 + 20 + 10 = 40; communication = 30; overlapped = 30..40 = 10
    # not overlapped = 20; span = 90; busy = 40 + 20 = 60 -> free = 30 (10-20, 60-80)
    assert row == dict(computing_ns=40, communication_ns=30, communication_not_overlapped_ns=20, overlapped_ns=10,
                       free_ns=30, bubble_ns=0, communication_not_overlapped_exclude_receive_ns=20, stage_ns=90,
                       preparing_ns=5, step_start_ns=0, step_end_ns=90)
    free = fetch_dicts(con, "SELECT start_ns, end_ns, dur_ns, kernel_before, kernel_after FROM free_time")
    assert free == [dict(start_ns=10, end_ns=20, dur_ns=10, kernel_before="A", kernel_after="B"),
                    dict(start_ns=60, end_ns=80, dur_ns=20, kernel_before="hcom_allReduce__1_0_1",
                         kernel_after="D")]
    unc = fetch_dicts(con, "SELECT op_name, start_ns, dur_ns, uncovered_ns, uncovered_self_ns, overlapped_ns, "
                           "uncovered_ratio FROM uncovered_communication")
    assert unc == [dict(op_name="hcom_allReduce__1_0_1", start_ns=30, dur_ns=30, uncovered_ns=20,
                        uncovered_self_ns=20, overlapped_ns=10, uncovered_ratio=20 / 30)]


def test_concurrent_comm_ops_booked_once(empty_db):
    # time:    0    10   20   30   40   50
    # comm X:  [===================)        0-40  (group a)
    # comm Y:            [===================)  20-50 (group b, starts later)
    # compute:      [====)                  10-20
    con = empty_db
    add_run(con)
    add_kernels(con, [("hcom_x__1_0_1", 0, 40, True, 1), ("hcom_y__1_0_1", 20, 50, True, 1), ("K", 10, 20, False, 1)])
    (row,) = breakdown(con)
    # U(comm) = 0-50 = 50; compute 10; overlapped 10; not overlapped 40; span 50; free 0
    assert (row["communication_ns"], row["overlapped_ns"], row["communication_not_overlapped_ns"],
            row["free_ns"], row["computing_ns"]) == (50, 10, 40, 0, 10)
    unc = fetch_dicts(con, "SELECT op_name, uncovered_ns, uncovered_self_ns FROM uncovered_communication "
                           "ORDER BY start_ns")
    # X: 40 long, 10 covered by compute -> 30 uncovered (self and booked)
    # Y: 30 long, no compute -> self 30; but 20-40 is already booked to X -> booked 10
    assert unc == [dict(op_name="hcom_x__1_0_1", uncovered_ns=30, uncovered_self_ns=30),
                   dict(op_name="hcom_y__1_0_1", uncovered_ns=10, uncovered_self_ns=30)]
    assert sum(u["uncovered_ns"] for u in unc) == row["communication_not_overlapped_ns"]


def test_touching_nested_and_zero_length(empty_db):
    # A 0-10, B 10-20 (touches A: one island), C 2-5 (nested in A), Z 30-30 (zero length), E 40-50
    con = empty_db
    add_run(con)
    add_kernels(con, [("A", 0, 10, False, 1), ("B", 10, 20, False, 1), ("C", 2, 5, False, 1),
                      ("Z", 30, 30, False, 1), ("E", 40, 50, False, 1)])
    (row,) = breakdown(con)
    assert row["computing_ns"] == 30          # 0-20 and 40-50
    assert row["free_ns"] == 20               # span 50 - 30
    free = fetch_dicts(con, "SELECT start_ns, end_ns FROM free_time")
    # the zero-length kernel splits the gap 20-40 into 20-30 and 30-40
    assert free == [dict(start_ns=20, end_ns=30), dict(start_ns=30, end_ns=40)]
    assert sum(f["end_ns"] - f["start_ns"] for f in free) == row["free_ns"]


def test_receive_is_bubble(empty_db):
    # compute 0-10; hcom_receive 10-40 (pipeline wait); hcom_allReduce 50-60; compute 55-70
    con = empty_db
    add_run(con)
    add_kernels(con, [("K", 0, 10, False, 1), ("hcom_receive__1_0_1", 10, 40, True, 1),
                      ("hcom_allReduce__2_0_1", 50, 60, True, 1), ("K2", 55, 70, False, 1)])
    (row,) = breakdown(con)
    # comm = 30 + 10 = 40; overlapped = 55-60 = 5; not overlapped 35; bubble 30
    # exclude receive = 35 - 30 = 5; span 70; stage = 70 - 30 = 40
    # computing 25; free = 70 - (25 + 35) = 10  (40-50)
    assert row == dict(row, computing_ns=25, communication_ns=40, overlapped_ns=5, communication_not_overlapped_ns=35,
                       bubble_ns=30, communication_not_overlapped_exclude_receive_ns=5, stage_ns=40, free_ns=10)
    assert row["computing_ns"] + row["communication_not_overlapped_ns"] + row["free_ns"] == \
        row["stage_ns"] + row["bubble_ns"]


def test_steps_and_kernels_outside_steps(empty_db):
    # step 1: kernels 0-10, 20-30; step 2: 100-150; an unattributed kernel (step NULL) at 60-90 is dropped
    con = empty_db
    add_run(con)
    add_step(con, 1, 0, 50)
    add_step(con, 2, 95, 200)
    add_kernels(con, [("a", 0, 10, False, 1), ("b", 20, 30, False, 1), ("x", 60, 90, False, None),
                      ("c", 100, 150, False, 2)])
    rows = fetch_dicts(con, f"SELECT step, computing_ns, free_ns, preparing_ns FROM step_breakdown ORDER BY step")
    assert rows == [dict(step=1, computing_ns=20, free_ns=10, preparing_ns=0),
                    dict(step=2, computing_ns=50, free_ns=0, preparing_ns=5)]


def test_no_steps_one_row(empty_db):
    con = empty_db
    add_run(con)
    add_kernels(con, [("a", 100, 110, False, None), ("hcom_b__1_0_1", 105, 130, True, None)])
    rows = fetch_dicts(con, "SELECT step, computing_ns, communication_ns, communication_not_overlapped_ns, free_ns, "
                            "stage_ns FROM step_breakdown")
    assert rows == [dict(step=None, computing_ns=10, communication_ns=25, communication_not_overlapped_ns=20,
                         free_ns=0, stage_ns=30)]


def test_ranks_and_runs_are_separate(empty_db):
    con = empty_db
    add_run(con, 1, "r1")
    add_run(con, 2, "r2")
    add_kernels(con, [("a", 0, 10, False, 1)], run_id=1, rank=0)
    add_kernels(con, [("a", 5, 25, False, 1)], run_id=1, rank=1)
    add_kernels(con, [("a", 0, 40, False, 1)], run_id=2, rank=0)
    rows = con.execute("SELECT run_name, rank, computing_ns FROM step_breakdown ORDER BY 1, 2").fetchall()
    assert rows == [("r1", 0, 10), ("r1", 1, 20), ("r2", 0, 40)]


def _naive(kernels):
    """Bitmap reference over integer ns: computing, communication, not overlapped, free."""
    lo = min(s for _, s, e, _c in kernels)
    hi = max(e for _, s, e, _c in kernels)
    comp = comm = notov = free = 0
    for t in range(lo, hi):
        c = any(s <= t < e for _, s, e, isc in kernels if not isc)
        m = any(s <= t < e for _, s, e, isc in kernels if isc)
        comp += c
        comm += m
        notov += m and not c
        free += not c and not m
    return comp, comm, notov, free


def test_differential_against_bitmap(empty_db):
    rng = random.Random(20261123)
    con = empty_db
    add_run(con)
    cases = []
    for rank in range(25):
        ks = []
        for i in range(rng.randint(1, 12)):
            s = rng.randint(0, 300)
            e = s + rng.randint(0, 60)
            comm = rng.random() < 0.35
            ks.append((f"hcom_{i}" if comm else f"k{i}", s, e, comm))
        if all(e == s for _, s, e, _c in ks):
            ks.append(("k_last", 0, 1, False))
        add_kernels(con, [(n, s, e, c, 1) for n, s, e, c in ks], rank=rank)
        cases.append(ks)
    got = {r[0]: r[1:] for r in con.execute(
        "SELECT rank, computing_ns, communication_ns, communication_not_overlapped_ns, free_ns "
        "FROM step_breakdown").fetchall()}
    for rank, ks in enumerate(cases):
        assert got[rank] == _naive(ks), (rank, ks)
    sums = con.execute("""SELECT u.rank, sum(u.uncovered_ns), any_value(b.communication_not_overlapped_ns)
                          FROM uncovered_communication u JOIN step_breakdown b USING (rank, step)
                          GROUP BY u.rank""").fetchall()
    for rank, s, expected in sums:
        assert s == expected, rank
    free = dict(con.execute("SELECT rank, sum(dur_ns) FROM free_time GROUP BY rank").fetchall())
    for rank in got:
        assert free.get(rank, 0) == got[rank][3]
