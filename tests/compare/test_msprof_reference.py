"""The compare views against msprof-analyze's own xlsx on corpus pairs.

Expected numbers were produced by running msprof-analyze 26.2.0 (pip install msprof-analyze, in a
throwaway venv; CI does not run it) on ../shared/corpus and reading the xlsx with pandas:

    msprof-analyze compare -bp <BASELINE> -d <COMPARISON> -o OUT --force
    pandas.read_excel(OUT/performance_comparison_result_*.xlsx, sheet_name=..., header=2)

Pairs: L1 = msinsight/test/data/pytorch/text/level1; "rank0 vs rank1" = L1/rank0_ascend_pt
(baseline) against L1/rank1_ascend_pt; "2024 vs new" = msinsight-2024/.../level1/rank0_ascend_pt
(baseline) against L1/rank0_ascend_pt. msprof-analyze writes µs rounded to 0.01 (KernelCompare) or
unrounded (CommunicationCompare); a value agrees when within max(1 µs, 0.1 %).
"""
from __future__ import annotations

import pytest

from conftest import corpus_path, ingest_paths, rows

L1 = "msinsight/test/data/pytorch/text/level1"
OLD = "msinsight-2024/test/data/pytorch/text/level1/rank0_ascend_pt"


def close(ns, us) -> bool:
    return abs(ns / 1000 - us) <= max(1.0, 0.001 * abs(us))


@pytest.fixture(scope="module")
def pairs_db(tmp_path_factory):
    r0, r1, old = corpus_path(f"{L1}/rank0_ascend_pt"), corpus_path(f"{L1}/rank1_ascend_pt"), corpus_path(OLD)
    db = tmp_path_factory.mktemp("msprof") / "t.duckdb"
    ingest_paths(db, r0, run="r0")
    ingest_paths(db, r1, run="r1")
    ingest_paths(db, old, run="old")
    return db


def kernel_row(db, base, comp, kernel_type, shapes):
    got = rows(db, "SELECT baseline_calls, baseline_total_ns, baseline_max_ns, baseline_min_ns, comparison_calls, "
                   "comparison_total_ns FROM kernel_diff_between(?, ?) WHERE kernel_type = ? AND input_shapes = ?",
               [base, comp, kernel_type, shapes])
    assert len(got) == 1, (kernel_type, shapes, got)
    return got[0]


# KernelCompare rows, rank0 vs rank1: (Kernel, Input Shape without msprof-analyze's quotes) →
# (base Calls, Total, Max, Min (µs), comparison Calls, Total (µs))
RANK0_VS_RANK1 = {
    ("hcom_allReduce_", "N/A"): (4, 105991.88, 79089.52, 2281.11, 4, 100375.28),
    ("MatMulV2", "32,9216;4096,9216;4096"): (1, 346.57, 346.57, 346.57, 1, 357.37),
    ("MemSet", "N/A"): (11, 157.32, None, None, 11, 154.38),
    ("ForeachAddList", "64,3,11,11;64;192,64,5,5;192;384,192,3,3;384;256,384,3,3;256;256,256,3,3;256;4096,9216;4096;"
                       "4096,4096;4096;1000,4096;1000;64,3,11,11;64;192,64,5,5;192;384,192,3,3;384;256,384,3,3;256;"
                       "256,256,3,3;256;4096,9216;4096;4096,4096;4096;1000,4096;1000;"): (3, 1959.08, 706.61, 624.15,
                                                                                        3, 1954.14),
}


def test_kernel_diff_equals_msprof_kernel_compare_rank0_vs_rank1(pairs_db):
    for (kernel_type, shapes), (bc, bt, bmax, bmin, cc, ct) in RANK0_VS_RANK1.items():
        gbc, gbt, gbmax, gbmin, gcc, gct = kernel_row(pairs_db, "r0", "r1", kernel_type, shapes)
        assert (gbc, gcc) == (bc, cc), kernel_type
        assert close(gbt, bt) and close(gct, ct), kernel_type
        assert bmax is None or (close(gbmax, bmax) and close(gbmin, bmin)), kernel_type
    # msprof-analyze: 128 rows; Σ Total Duration 114865.55 / 109253.50 µs (sums of rounded values)
    n, bt, ct = rows(pairs_db, "SELECT count(*), sum(baseline_total_ns), sum(comparison_total_ns) "
                               "FROM kernel_diff_between('r0', 'r1')")[0]
    assert n == 128
    assert abs(bt / 1000 - 114865.55) < 128 * 0.005 and abs(ct / 1000 - 109253.50) < 128 * 0.005


def test_kernel_diff_equals_msprof_kernel_compare_2024_vs_new(pairs_db):
    bc, bt, _, _, cc, ct = kernel_row(pairs_db, "old", "r0", "Mul", "4096,9216;")
    assert (bc, cc) == (2, 1) and close(bt, 604.78) and close(ct, 160.82)
    bc, bt, bmax, bmin, cc, ct = kernel_row(pairs_db, "old", "r0", "hcom_allReduce_", "N/A")
    assert (bc, cc) == (4, 4) and close(bt, 70787.35) and close(ct, 105991.88)
    assert close(bmax, 53398.48) and close(bmin, 2180.14)
    bc, bt, _, _, cc, ct = kernel_row(pairs_db, "old", "r0", "AxpyV2", "4096,9216;4096,9216;")
    assert (bc, cc) == (2, 0) and close(bt, 896.46) and ct == 0


def test_msprof_quirk_quoted_empty_input_shape_is_a_shape_of_its_own(pairs_db):
    # The 2024 kernel_details.csv writes Input Shapes """""" (the text "") for MemSet, the newer
    # one an empty cell. msprof-analyze KernelCompare keeps "" as a shape, so its xlsx has two
    # MemSet rows: ("", base 15 calls 45.22 µs, comparison none) and (N/A, base none, comparison
    # 11 calls 157.32 µs) — 248 rows in all. tracedb reads both cells as empty and puts them in
    # one row, 247 rows in all.
    bc, bt, _, _, cc, ct = kernel_row(pairs_db, "old", "r0", "MemSet", "N/A")
    assert (bc, cc) == (15, 11) and close(bt, 45.22) and close(ct, 157.32)
    assert rows(pairs_db, "SELECT count(*) FROM kernel_diff_between('old', 'r0')") == [(247,)]
    assert rows(pairs_db, "SELECT count(*) FROM kernel_diff_between('old', 'r0') WHERE kernel_type = 'MemSet'") \
        == [(1,)]


def test_communication_diff_equals_msprof_communication_compare(pairs_db):
    # CommunicationCompare rank0 vs rank1: allreduce, base 4 calls, Total 105991.877719 µs, Max
    # 79089.520219, Min 2281.105562; comparison 4 calls, Total 100375.285469 µs, Diff -5616.59
    got = rows(pairs_db, "SELECT comm_type, baseline_calls, baseline_total_ns, baseline_max_ns, baseline_min_ns, "
                         "comparison_calls, comparison_total_ns, diff_total_ns FROM communication_diff_between('r0', 'r1')")
    assert len(got) == 1
    t, bc, bt, bmax, bmin, cc, ct, diff = got[0]
    assert (t, bc, cc) == ("allreduce", 4, 4)
    assert close(bt, 105991.877719) and close(bmax, 79089.520219) and close(bmin, 2281.105562)
    assert close(ct, 100375.285469) and close(diff, -5616.59)
