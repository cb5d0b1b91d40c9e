"""fusion_candidate on a micro Kineto trace drawn below (µs after BASE_NS, stream 7)."""
from __future__ import annotations

import pytest

import diag_kineto as k
from conftest import ingest_paths, rows

US = k.US
EW = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float> >()"

# Optimizer.step#SGD.step [100, 300) launches, one aten op each:
#   K1 130..131  K2 132..133  K3 134..135   short elementwise (1 µs each, launches 6 µs)
#   K4 150..170  a gemm: not elementwise, ends the run
#   K5 172..173  K6 177..178                short elementwise, a run of 2 (< min_kernels 3)
#   K7 187..197  elementwise but 10 µs, longer than its 4 µs launch: not short, ends the run
#   K8 198..199  short, alone
# after the optimizer: aten::add_ 310..320 → K9 320..321, short elementwise outside every optimizer op
# Run K1..K3: 3 kernels, span 130..135 = 5, device 3, gaps 2, launches 6 + 6 + 6 = 18,
# saving = 18 − the longest (6) = 12
OPS = [("aten::add_", "110", "112", "6", 1, EW, "130", "1"), ("aten::mul_", "120", "122", "6", 2, EW, "132", "1"),
       ("aten::add_", "130", "132", "6", 3, EW, "134", "1"), ("aten::addmm", "140", "142", "8", 4, "volta_sgemm", "150", "20"),
       ("aten::add_", "160", "162", "5", 5, EW, "172", "1"), ("aten::add_", "170", "172", "4", 6, EW, "177", "1"),
       ("aten::add_", "180", "182", "4", 7, EW, "187", "10"), ("aten::add_", "190", "192", "4", 8, EW, "198", "1"),
       ("aten::add_", "310", "312", "6", 9, EW, "320", "1")]
EVENTS = [k.x("ProfilerStep#1", "0.000", "1000.000", cat="user_annotation"),
          k.x("Optimizer.step#SGD.step", "100.000", "200.000", cat="user_annotation")]
for name, op_ts, l_ts, l_dur, corr, kname, k_ts, k_dur in OPS:
    EVENTS += [k.x(name, f"{op_ts}.000", "10.000"), k.launch(corr, f"{l_ts}.000", f"{l_dur}.000"),
               k.kernel(corr, kname, f"{k_ts}.000", f"{k_dur}.000")]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fusion")
    db = tmp / "t.duckdb"
    ingest_paths(db, k.write(tmp / "opt.pt.trace.json", EVENTS), run="opt")
    return db


def test_optimizer_elementwise_run_by_hand(db):
    got = rows(db, "SELECT step, pattern, scope, scope_name, stream_id, first_kernel_name, kernel_name_count, "
                   "kernel_count, start_ns - ?, span_ns, device_ns, gap_ns, launch_ns, launch_saving_ns "
                   "FROM fusion_candidate", [k.BASE_NS])
    assert got == [(1, "optimizer_elementwise", "optimizer", "Optimizer.step#SGD.step", "7", EW, 1, 3, 130 * US,
                    5 * US, 3 * US, 2 * US, 18 * US, 12 * US)]


def test_user_annotation_ranges_project_their_kernels(db):
    """Kineto user_annotation ranges in range_time: Optimizer.step#SGD.step holds the launches of
    K1..K8 (K1 starts 130, K8 ends 199); ProfilerStep#1 holds all nine (K9 ends 321)."""
    assert rows(db, "SELECT kind, name, depth, gpu_op_count, gpu_start_ns - ?, gpu_proj_ns, gpu_sum_ns "
                    "FROM range_time ORDER BY range_id", [k.BASE_NS]) == [
        ("user_annotation", "ProfilerStep#1", 0, 9, 130 * US, 191 * US, (7 + 20 + 10) * US),
        ("user_annotation", "Optimizer.step#SGD.step", 1, 8, 130 * US, 69 * US, (6 + 20 + 10) * US)]


def test_patterns_are_data(db):
    """A pattern with min_kernels 2 also finds K5..K6; a disabled pattern finds nothing."""
    import duckdb
    con = duckdb.connect(str(db))
    try:
        con.execute("INSERT INTO fusion_pattern (pattern_id, platform, name, scope, scope_pattern, match_field, "
                    "pattern, min_kernels, short_only, fix, source) VALUES (1000, 'gpu', 'pairs', 'optimizer', "
                    "'Optimizer.%', 'name', '%elementwise%', 2, true, 'test', 'test')")
        con.execute("UPDATE fusion_pattern SET enabled = false WHERE pattern_id = 1")
    finally:
        con.close()
    assert rows(db, "SELECT pattern, kernel_count, launch_saving_ns FROM fusion_candidate ORDER BY start_ns") == [
        ("pairs", 3, 12 * US), ("pairs", 2, (5 + 4 - 5) * US)]
