"""overall_summary on hand-made kernels: two communication groups exposed at once, Wait from the
Notify_Wait tasks of the plane with the least wait."""
from __future__ import annotations

from tracedb.ingestion.derive import reclassify

# compute MatMul   [0, 10)          (AI_CORE: Cube)
# group A op       [5, 30)
# group B op            [20, 40)
# uncovered = [10, 40) = 30; A \ C = [10, 30) = 20; B \ C = [20, 40) = 20; both = [20, 30) = 10
KERNELS = """
INSERT INTO run (run_id, run_name, platform, role) VALUES (1, 'r', 'npu', 'baseline');
INSERT INTO kernel (run_id, rank, file_id, kernel_id, name, op_type, accelerator_core, ts_ns, dur_ns,
                    is_communication, group_name, source) VALUES
    (1, 0, 0, 1, 'MatMulV2', 'MatMulV2', 'AI_CORE', 0, 10, false, NULL, 'case'),
    (1, 0, 0, 2, 'hcom_allReduce__1_1_1', 'hcom_allReduce_', 'COMMUNICATION', 5, 25, true, 'A', 'case'),
    (1, 0, 0, 3, 'hcom_send__2_1_1', 'hcom_send_', 'COMMUNICATION', 20, 20, true, 'B', 'case');
"""


def summary(con):
    return {(m, p): (d, n) for m, p, d, n in con.execute(
        "SELECT metric, parent_metric, dur_ns, kernel_count FROM overall_summary").fetchall()}


def test_two_groups_exposed_at_once(empty_db):
    con = empty_db
    con.execute(KERNELS)
    reclassify(con)       # rows written with SQL: apply the rules, as tracedb reclassify does
    got = summary(con)
    assert got == {
        ("Computing Time", None): (10, 1),
        ("Matmul", "Computing Time"): (10, 1),
        ("Matmul (Cube)", "Matmul"): (10, 1),
        ("Uncovered Communication Time", None): (30, None),
        ("Group A Communication", "Uncovered Communication Time"): (20, None),
        ("Transmit", "Group A Communication"): (20, None),
        ("Group B Communication", "Uncovered Communication Time"): (20, None),
        ("Transmit", "Group B Communication"): (20, None),
        ("Uncovered Communication Overlapped", "Uncovered Communication Time"): (10, None),
        ("Group A Communication & Group B Communication", "Uncovered Communication Overlapped"): (10, None),
        ("Free Time", None): (0, None),
        ("E2E Time", None): (40, None),
    }
    assert con.execute("SELECT computing_ns, communication_ns, uncovered_communication_ns, free_ns, e2e_ns "
                       "FROM capture_breakdown").fetchall() == [(10, 35, 30, 0, 40)]


def test_wait_is_the_least_waiting_plane_outside_rdma_patterns(empty_db):
    """Group A's op runs 5-30 on two planes. Plane 0: Notify_Wait 12-16 (4 ns) and one right
    after two RDMASend (RDMA transfer: not wait). Plane 1: Notify_Wait 8-18 (10 ns). The plane
    with the least wait is 0; of its 4 ns, all lie outside computing (ends at 10): Wait = 4."""
    con = empty_db
    con.execute(KERNELS)
    reclassify(con)       # rows written with SQL: apply the rules, as tracedb reclassify does
    con.execute("""INSERT INTO link (run_id, rank, file_id, group_name, op_name, plane_id, task_name, ts_ns, dur_ns)
        VALUES (1, 0, 0, 'A', 'hcom_allReduce__1_1_1', 0, 'Notify_Wait', 12, 4),
               (1, 0, 0, 'A', 'hcom_allReduce__1_1_1', 0, 'RDMASend', 17, 1),
               (1, 0, 0, 'A', 'hcom_allReduce__1_1_1', 0, 'RDMASend', 19, 1),
               (1, 0, 0, 'A', 'hcom_allReduce__1_1_1', 0, 'Notify_Wait', 21, 6),
               (1, 0, 0, 'A', 'hcom_allReduce__1_1_1', 1, 'Notify_Wait', 8, 10)""")
    got = summary(con)
    assert got[("Wait", "Group A Communication")] == (4, None)
    assert got[("Transmit", "Group A Communication")] == (16, None)
