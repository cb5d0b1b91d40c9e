"""free_analysis against msprof-analyze's own free_analysis output on a corpus Ascend capture.

Reference numbers: msprof-analyze 26.2.0 (``pip install msprof-analyze`` in a throwaway venv),

    msprof-analyze cluster -d ../shared/corpus/msinsight/test/data/pytorch/db/level1 \
        -m free_analysis --export_type text -o OUT

OUT/cluster_analysis_output/FreeAnalysis/free_analysis.csv, copied below as written (µs text;
its top_num = 10 longest free intervals per rank). Start/end are exact (Decimal ns / 1000).
Its PyTorch / CANN idle times are not: msprof reads the linked PYTORCH_API / CANN_API ends
through a float64 pandas column (the column has NULLs), whose step at epoch-ns magnitude is
256 ns; test_idle_times_are_msprofs_through_float64 shows it.
"""
from __future__ import annotations

import sqlite3
from decimal import Decimal

import duckdb
import pytest

from conftest import corpus_path, ingest_paths, rows

DB_LEVEL1 = "msinsight/test/data/pytorch/db/level1"

# Rank ID, Start Time(us), End Time(us), Pytorch Idle Time(us), Cann Idle Time(us), Reason
MSPROF = """\
0,1736410576409657.787,1736410576411996.394,938.24,2784.768,Abnormal CANN layer: long time between two node@launch 2773.248 us
0,1736410576407095.896,1736410576409106.456,979.712,2851.328,Abnormal CANN layer: long time between two node@launch 2839.296 us
0,1736410576417131.316,1736410576418312.78,1178.88,1179.648,Idle Pytorch layer: no task dispatched in 1178.88 us
0,1736410576418707.788,1736410576419875.131,1169.408,1169.664,Idle Pytorch layer: no task dispatched in 1169.408 us
0,1736410576414039.634,1736410576415142.217,1341.696,1335.552,Idle Pytorch layer: no task dispatched in 1341.696 us
0,1736410576428472.243,1736410576429567.585,1092.864,1098.24,Idle Pytorch layer: no task dispatched in 1092.864 us
0,1736410576425723.268,1736410576426678.027,948.224,952.576,Idle Pytorch layer: no task dispatched in 948.224 us
0,1736410576415606.246,1736410576416498.944,,,"Device task running: 1 MEMCPY_ASYNC tasks, max remaining free 889.978 us"
0,1736410576420737.168,1736410576421582.005,868.608,868.352,Idle Pytorch layer: no task dispatched in 868.608 us
0,1736410576422323.12,1736410576423127.476,908.544,901.376,Idle Pytorch layer: no task dispatched in 908.544 us
1,1736410576410691.203,1736410576411992.549,984.832,1991.68,Abnormal CANN layer: long time between two node@launch 1975.552 us
1,1736410576417838.805,1736410576419092.75,1272.832,1267.456,Idle Pytorch layer: no task dispatched in 1272.832 us
1,1736410576421070.81,1736410576422231.833,1167.616,1166.848,Idle Pytorch layer: no task dispatched in 1167.616 us
1,1736410576422637.961,1736410576423791.344,1154.304,1156.864,Idle Pytorch layer: no task dispatched in 1154.304 us
1,1736410576416085.03,1736410576417180.152,,,"Device task running: 1 MEMCPY_ASYNC tasks, max remaining free 1092.582 us"
1,1736410576432145.331,1736410576433194.112,1043.2,1050.112,Idle Pytorch layer: no task dispatched in 1043.2 us
1,1736410576429370.316,1736410576430320.935,945.408,950.784,Idle Pytorch layer: no task dispatched in 945.408 us
1,1736410576408685.822,1736410576409578.86,1006.848,1858.816,Abnormal CANN layer: long time between two node@launch 1841.152 us
1,1736410576419570.96,1736410576420461.238,,,"Device task running: 1 MEMCPY_ASYNC tasks, max remaining free 887.838 us"
1,1736410576424619.441,1736410576425403.837,797.44,797.184,Idle Pytorch layer: no task dispatched in 797.44 us
"""


def _ns(us: str) -> int:
    return int(Decimal(us) * 1000)


def _msprof():
    out = []
    for line in MSPROF.splitlines():
        rank, start, end, py, cann, reason = line.split(",", 5)
        kind = ("device_task" if reason.startswith('"Device task running') else
                "pytorch_idle" if reason.startswith("Idle Pytorch") else
                "cann_launch_gap" if "long time between" in reason else "cann_long_launch")
        out.append((int(rank), _ns(start), _ns(end), _ns(py) if py else None, _ns(cann) if cann else None,
                    kind, reason.strip('"')))
    return out


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    d = tmp_path_factory.mktemp("free") / "t.duckdb"
    ingest_paths(d, corpus_path(DB_LEVEL1), run="dbl1")
    return d


def _memcpy_tasks(rank: int) -> list[tuple[int, int]]:
    """The profiler DB's MEMCPY_ASYNC tasks of a rank (TASK startNs / endNs, exact ints)."""
    path = corpus_path(f"{DB_LEVEL1}/rank{rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_{rank}.db")
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT t.startNs, t.endNs FROM TASK AS t JOIN STRING_IDS AS s ON s.id = t.taskType "
                           "WHERE s.value = 'MEMCPY_ASYNC' ORDER BY 1").fetchall()
    finally:
        con.close()


@pytest.mark.corpus
def test_free_intervals_equal_msprofs_top_ten(db):
    want = [(r, s, e) for r, s, e, *_ in _msprof()]
    got = rows(db, "SELECT rank, start_ns, end_ns FROM free_analysis WHERE free_order <= 10 ORDER BY rank, free_order")
    assert got == want
    # every interval, not only the top ten: msprof's own busy query (free_analysis_export
    # QUERY_OVERLAP_BUSY_TIME_SQL, run with sqlite3 on each rank's ascend_pytorch_profiler_N.db)
    # gives 91 busy islands per rank, so 90 gaps, summing to 25,258,144 and 25,840,499 ns
    assert rows(db, "SELECT rank, count(*), sum(dur_ns), min(dur_ns) FROM free_analysis GROUP BY ALL ORDER BY 1") == \
        [(0, 90, 25258144, 2040), (1, 90, 25840499, 1960)]


@pytest.mark.corpus
def test_reasons_equal_msprofs_where_the_tasks_are_stored(db):
    got = {(r, s): reason for r, s, reason in
           rows(db, "SELECT rank, start_ns, reason FROM free_analysis WHERE free_order <= 10")}
    copies = rows(db, "SELECT count(*) FROM kernel WHERE copy_kind IS NOT NULL")[0][0]
    for rank, start, _, _, _, kind, _ in _msprof():
        if kind == "device_task" and copies == 0:
            # the reader does not store the DB's MEMCPY_ASYNC tasks (yet): with nothing inside
            # the interval, the launch rule decides, as msprof would without that task
            assert got[(rank, start)] == "pytorch_idle"
        else:
            assert got[(rank, start)] == kind, (rank, start)


@pytest.mark.corpus
def test_device_task_rule_with_the_memcpy_tasks_as_copies(db, tmp_path):
    # store the profiler DB's MEMCPY_ASYNC tasks as copy rows (as an NPU copy reader would):
    # the three intervals msprof finds a MEMCPY_ASYNC in become device_task with msprof's
    # "max remaining free", and nothing else changes
    d = tmp_path / "copies.duckdb"
    d.write_bytes(db.read_bytes())
    con = duckdb.connect(str(d))
    try:
        if con.execute("SELECT count(*) FROM kernel WHERE copy_kind IS NOT NULL").fetchone()[0] == 0:
            for rank in (0, 1):
                for i, (s, e) in enumerate(_memcpy_tasks(rank)):
                    con.execute("""INSERT INTO kernel (run_id, rank, file_id, kernel_id, name, task_type, ts_ns, dur_ns,
                                                       is_communication, source, copy_kind)
                                   SELECT run_id, ?, 0, 100000 + ?, 'MEMCPY_ASYNC', 'MEMCPY_ASYNC', ?, ?, false, 'test', 'DtoD'
                                   FROM run""", [rank, i, s, e - s])
        got = {(r, s): (reason, n, rem, py, cann) for r, s, reason, n, rem, py, cann in con.execute(
            "SELECT rank, start_ns, reason, device_task_count, max_remaining_free_ns, pytorch_idle_ns, cann_idle_ns "
            "FROM free_analysis WHERE free_order <= 10").fetchall()}
        assert con.execute("SELECT count(*) FROM free_analysis").fetchone()[0] == 180   # copies are not busy
    finally:
        con.close()
    for rank, start, _, py, cann, kind, text in _msprof():
        reason, n, rem, gpy, gcann = got[(rank, start)]
        assert reason == kind, (rank, start)
        if kind == "device_task":
            assert n == 1 and gpy is None and gcann is None
            assert f"max remaining free {round(rem * 0.001, 3)} us" in text
        else:
            assert n == 0 and abs(gpy - py) <= 512 and abs(gcann - cann) <= 512


@pytest.mark.corpus
def test_idle_times_are_msprofs_through_float64(db):
    # msprof's Pytorch / Cann Idle Time = next end − previous end of the linked PyTorch op /
    # CANN launch call, computed on float64 values: the same subtraction on our exact ends cast
    # to DOUBLE gives msprof's numbers to the ns; the exact values differ by < 512 ns
    got = rows(db, """
        WITH t AS (SELECT k.run_id, k.rank, k.ts_ns, k.ts_ns + k.dur_ns AS end_ns, o.ts_ns + o.dur_ns AS op_end,
                          k.launch_ts_ns + k.launch_dur_ns AS launch_end
                   FROM kernel AS k JOIN op AS o USING (run_id, rank, op_id))
        SELECT f.rank, f.start_ns,
               (n.op_end::DOUBLE - p.op_end::DOUBLE)::BIGINT, (n.launch_end::DOUBLE - p.launch_end::DOUBLE)::BIGINT,
               f.pytorch_idle_ns, f.cann_idle_ns
        FROM free_analysis AS f
        JOIN t AS p ON p.rank = f.rank AND p.end_ns = f.start_ns
        JOIN t AS n ON n.rank = f.rank AND n.ts_ns = f.end_ns
        WHERE f.free_order <= 10 AND f.reason <> 'device_task'""")
    want = {(r, s): (py, cann) for r, s, _, py, cann, kind, _ in _msprof() if kind != "device_task"}
    got = [g for g in got if (g[0], g[1]) in want]
    assert len(got) == len(want) == 17
    for rank, start, py64, cann64, py, cann in got:
        assert (py64, cann64) == want[(rank, start)]
        assert abs(py - py64) < 512 and abs(cann - cann64) < 512
    assert any(py != py64 for _, _, py64, _, py, _ in got)   # the exact values are not msprof's


US = 1000

# A drawn timeline, in µs (rows written straight into op / kernel: msprof's rules need the
# framework op, the launch call and the task, as the Ascend readers store them).
#
#   framework op   A[0,10)  B[100,110)  C[150,160)  D[250,260)  E[280,285)  F[650,660)  G[750,760)
#   launch call     L1[12,15) L2[112,115) L3[165,170) L9[166,169) L4[320,325) L5[400,495)  (none for k7, k8)
#   stream 7        k1[20,30)  k2[120,130)  k3[200,210)  k4[330,340)  k5[500,510)  k6[600,610)  k7[700,710)  k8[800,810)
#   stream 8                                   k9[205,215) (op C, L9)
#   copy (str 7)            m[40,50)
#   device free     [30,120)    [130,200)  [215,330)   [340,500)   [510,600)  [610,700)  [710,800)
#
# [30,120)  copy m inside → device_task; remaining free max(40−30, 120−50) = 70 µs
# [130,200) dispatch wait k2: 112−110 = 2, k3: 165−160 = 5; 5 − 2 < 50 → pytorch_idle;
#           PyTorch idle 160−110 = 50 µs, CANN idle 170−115 = 55 µs
# [215,330) prev = k9 (device-wide: stream 8 ends last; HTA's stream 7 gap is [210,330)):
#           wait k9 166−160 = 6, k4 320−260 = 60; 54 ≥ 50 → CANN; gap 320−169 = 151 ≥ 3, 5 → cann_launch_gap
# [340,500) wait k4 60, k5 400−285 = 115; 55 ≥ 50 → CANN; gap 400−325 = 75 < L5's 95 → cann_long_launch
# [510,600) k6 has no framework op → no_op (msprof skips it)
# [610,700) k6 has no op → no_op;  [710,800) k7 and k8 have ops, no launch call → unknown_launch
OPS = {"A": (0, 10), "B": (100, 110), "C": (150, 160), "D": (250, 260), "E": (280, 285), "F": (650, 660), "G": (750, 760)}
KERNELS = [  # name, stream, start, end, op, launch start, launch end, copy
    ("k1", "7", 20, 30, "A", 12, 15, None), ("m", "7", 40, 50, None, None, None, "DtoD"),
    ("k2", "7", 120, 130, "B", 112, 115, None), ("k3", "7", 200, 210, "C", 165, 170, None),
    ("k9", "8", 205, 215, "C", 166, 169, None), ("k4", "7", 330, 340, "D", 320, 325, None),
    ("k5", "7", 500, 510, "E", 400, 495, None), ("k6", "7", 600, 610, None, 550, 555, None),
    ("k7", "7", 700, 710, "F", None, None, None), ("k8", "7", 800, 810, "G", None, None, None),
]


def test_rules_on_a_drawn_timeline(tmp_path):
    import micro
    d = tmp_path / "t.duckdb"
    ingest_paths(d, micro.write(tmp_path / "rank0.pt.trace.json", micro.CAUSES), run="drawn")
    con = duckdb.connect(str(d))
    try:
        con.execute("DELETE FROM kernel; DELETE FROM op")
        op_id = {n: i for i, n in enumerate(OPS)}
        for n, (s, e) in OPS.items():
            con.execute("INSERT INTO op (run_id, rank, file_id, op_id, ts_ns, dur_ns, name, depth, source) "
                        "SELECT run_id, 0, 0, ?, ?, ?, ?, 0, 'test' FROM run", [op_id[n], s * US, (e - s) * US, n])
        for i, (n, stream, s, e, op, ls, le, copy) in enumerate(KERNELS):
            con.execute("""INSERT INTO kernel (run_id, rank, file_id, kernel_id, step, name, stream_id, ts_ns, dur_ns,
                               is_communication, source, copy_kind, op_id, launch_name, launch_ts_ns, launch_dur_ns)
                           SELECT run_id, 0, 0, ?, 1, ?, ?, ?, ?, false, 'test', ?, ?, ?, ?, ? FROM run""",
                        [i, n, stream, s * US, (e - s) * US, copy, op_id.get(op),
                         None if ls is None else "Node@launch", None if ls is None else ls * US,
                         None if ls is None else (le - ls) * US])
        got = con.execute("""SELECT start_ns // 1000, end_ns // 1000, reason, device_task_count, max_remaining_free_ns // 1000,
                                    pytorch_idle_ns // 1000, cann_idle_ns // 1000, launch_gap_ns // 1000, prev_kernel, next_kernel
                             FROM free_analysis ORDER BY start_ns""").fetchall()
        ranks = con.execute("SELECT free_order FROM free_analysis ORDER BY start_ns").fetchall()
        strict = con.execute("SELECT start_ns // 1000, reason FROM free_analysis_with(54001) ORDER BY start_ns").fetchall()
    finally:
        con.close()
    assert got == [
        (30, 120, "device_task", 1, 70, None, None, 97, "k1", "k2"),
        (130, 200, "pytorch_idle", 0, None, 50, 55, 50, "k2", "k3"),
        (215, 330, "cann_launch_gap", 0, None, 100, 156, 151, "k9", "k4"),
        (340, 500, "cann_long_launch", 0, None, 25, 170, 75, "k4", "k5"),
        (510, 600, "no_op", 0, None, None, 60, 55, "k5", "k6"),
        (610, 700, "no_op", 0, None, None, None, None, "k6", "k7"),
        (710, 800, "unknown_launch", 0, None, 100, None, None, "k7", "k8"),
    ]
    # longest first: [340,500) 160 µs, [215,330) 115, then the four 90 µs ones by start, [130,200) 70
    assert [r for r, in ranks] == [3, 7, 2, 1, 4, 5, 6]
    # the dispatch-wait threshold is a parameter: at 54.001 µs the 54 µs rise before k4 is pytorch_idle
    assert [r for _, r in strict][2] == "pytorch_idle"
