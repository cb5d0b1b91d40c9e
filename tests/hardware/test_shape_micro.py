"""Issue 41 on hand-made Kineto traces: op_shape, shape_efficiency, op_flops, rank_flops,
precision_share and kernel_pmu.

The GPU optimisation guide's V100 table (cuBLAS >= 11): an fp16 MatMul [16, 36, 1504] x [1504,
10000] takes 0.267 ms against 1.340 ms in fp32; with K = 1500 or N = 9999 fp16 takes 1.367 /
1.388 ms (no Tensor Core: M, N, K must be multiples of 8 for FP16). The four rows are written
below as recorded shapes (aten::matmul of a 3-d input folds into aten::mm [576, K] x [K, N]),
each launching one kernel of the guide's duration. Every expected value is the guide's or
arithmetic written next to it.
"""
from __future__ import annotations

import json

import pytest

from conftest import ingest_paths, rows

BASE_NS = 1_700_000_000_000_000_000


def X(cat, name, tid, ts, dur, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 100 if cat != "kernel" else 0, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def matmul_call(corr, ts, a, b, dtype, kernel, kernel_ts, kernel_us, flops=None):
    """aten::matmul(a, b) → aten::mm(a folded to 2-d, b) launching one kernel."""
    m = 1
    for d in a[:-1]:
        m *= d
    mm_args = {"Input Dims": [[m, a[-1]], b], "Input type": [dtype, dtype]}
    if flops is not None:
        mm_args["flops"] = flops
    return [
        X("cpu_op", "aten::matmul", 1, ts, 40.0, **{"Input Dims": [a, b], "Input type": [dtype, dtype]}),
        X("cpu_op", "aten::mm", 1, ts + 5.0, 30.0, **mm_args),
        X("cuda_runtime", "cudaLaunchKernel", 1, ts + 10.0, 5.0, correlation=corr),
        X("kernel", kernel, 7, kernel_ts, kernel_us, correlation=corr, stream=7, device=0),
    ]


def trace(tmp_path, name, device_name, events):
    doc = {"schemaVersion": 1, "baseTimeNanoseconds": BASE_NS,
           "deviceProperties": [{"id": 0, "name": device_name, "totalGlobalMem": 17179869184,
                                 "computeMajor": 7, "computeMinor": 0}],
           "traceEvents": events}
    f = tmp_path / f"{name}.pt.trace.json"
    f.write_text(json.dumps(doc))
    return f


HALF, FLOAT = "c10::Half", "float"
GUIDE = [
    X("user_annotation", "ProfilerStep#1", 1, 0.0, 10000.0),
    # row 1: fp16, aligned: 0.267 ms on the Tensor Core (volta_h884gemm: TC_Allowlist "h884")
    *matmul_call(1, 10.0, [16, 36, 1504], [1504, 10000], HALF, "volta_h884gemm_128x128_ldg8_nn", 100.0, 267.0),
    # row 2: the same in fp32: 1.340 ms (no Tensor Core for fp32 on Volta)
    *matmul_call(2, 60.0, [16, 36, 1504], [1504, 10000], FLOAT, "volta_sgemm_128x64_nn", 400.0, 1340.0),
    # row 3: fp16 with K = 1500: 1.367 ms
    *matmul_call(3, 110.0, [16, 36, 1500], [1500, 10000], HALF, "volta_fp16_sgemm_fp16_128x64_nn", 1800.0, 1367.0),
    # row 4: fp16 with N = 9999: 1.388 ms
    *matmul_call(4, 160.0, [16, 36, 1504], [1504, 9999], HALF, "volta_fp16_sgemm_fp16_128x64_nn", 3200.0, 1388.0),
]
# a with_flops trace (Kineto's own "flops" arg on aten::mm and aten::add) on an A100
WITH_FLOPS = [
    X("user_annotation", "ProfilerStep#3", 1, 0.0, 5000.0),
    *matmul_call(1, 10.0, [64, 128], [128, 256], "c10::BFloat16", "ampere_bf16_s16816gemm_bf16_64x64_nn",
                 100.0, 10.0, flops=2 * 64 * 128 * 256),
    X("cpu_op", "aten::add", 1, 100.0, 20.0, **{"Input Dims": [[64, 256], [64, 256], []],
                                                "Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"],
                                                "flops": 16384}),
    X("cuda_runtime", "cudaLaunchKernel", 1, 105.0, 5.0, correlation=2),
    X("kernel", "vectorized_elementwise_kernel", 7, 200.0, 2.0, correlation=2, stream=7, device=0),
    # an fp32 matmul running TF32 (cuDNN / cuBLAS name it)
    *matmul_call(3, 300.0, [64, 128], [128, 256], "float", "sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize64x64x8",
                 400.0, 8.0, flops=2 * 64 * 128 * 256),
    # the issue's H100 case (here on the A100, same rules): aten::bmm [16,5185,64] x [16,64,5185], no flops arg
    X("cpu_op", "aten::bmm", 1, 350.0, 20.0, **{"Input Dims": [[16, 5185, 64], [16, 64, 5185]],
                                                "Input type": ["c10::BFloat16", "c10::BFloat16"]}),
    X("cuda_runtime", "cudaLaunchKernel", 1, 355.0, 5.0, correlation=4),
    X("kernel", "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", 7, 300.0, 50.0, correlation=4, stream=7, device=0),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hw")
    db = tmp / "h.duckdb"
    ingest_paths(db, trace(tmp, "guide", "Tesla V100-SXM2-16GB", GUIDE), run="guide")
    ingest_paths(db, trace(tmp, "flops", "NVIDIA A100-SXM4-80GB", WITH_FLOPS), run="flops")
    return db


def test_op_shape_parses_the_recorded_dims(db):
    got = rows(db, "SELECT name, family, operand_shapes, precision, batch, m, n, k, shape_flops, is_innermost, "
                   "device_ns FROM op_shape JOIN run USING (run_id) WHERE run_name = 'guide' ORDER BY op_id")
    assert got == [
        # aten::matmul folds the leading dims into M = 16·36 = 576 as PyTorch does; it encloses aten::mm
        ("aten::matmul", "matmul", "[16,36,1504] x [1504,10000]", "fp16", 1, 576, 10000, 1504,
         2 * 576 * 10000 * 1504, False, 267_000),
        ("aten::mm", "mm", "[576,1504] x [1504,10000]", "fp16", 1, 576, 10000, 1504, 2 * 576 * 10000 * 1504, True,
         267_000),
        ("aten::matmul", "matmul", "[16,36,1504] x [1504,10000]", "fp32", 1, 576, 10000, 1504,
         2 * 576 * 10000 * 1504, False, 1_340_000),
        ("aten::mm", "mm", "[576,1504] x [1504,10000]", "fp32", 1, 576, 10000, 1504, 2 * 576 * 10000 * 1504, True,
         1_340_000),
        ("aten::matmul", "matmul", "[16,36,1500] x [1500,10000]", "fp16", 1, 576, 10000, 1500,
         2 * 576 * 10000 * 1500, False, 1_367_000),
        ("aten::mm", "mm", "[576,1500] x [1500,10000]", "fp16", 1, 576, 10000, 1500, 2 * 576 * 10000 * 1500, True,
         1_367_000),
        ("aten::matmul", "matmul", "[16,36,1504] x [1504,9999]", "fp16", 1, 576, 9999, 1504,
         2 * 576 * 9999 * 1504, False, 1_388_000),
        ("aten::mm", "mm", "[576,1504] x [1504,9999]", "fp16", 1, 576, 9999, 1504, 2 * 576 * 9999 * 1504, True,
         1_388_000),
    ]


def test_the_guides_four_rows_get_its_verdicts(db):
    got = rows(db, "SELECT operand_shapes, precision, m, n, k, device_ns, matrix_unit, required_multiple, "
                   "misaligned_dims, aligned, aligned_efficient, padded_m, padded_n, padded_k "
                   "FROM shape_efficiency WHERE run_name = 'guide' ORDER BY device_ns")
    assert got == [
        # fp16, M = 576, N = 10000, K = 1504: all multiples of 8 (guide: 0.267 ms, Tensor Core)
        ("[576,1504] x [1504,10000]", "fp16", 576, 10000, 1504, 267_000, "Tensor Core", 8, "", True, True,
         576, 10000, 1504),
        # fp32: no Tensor Core rule for fp32 on Volta (no TF32 there): no verdict
        ("[576,1504] x [1504,10000]", "fp32", 576, 10000, 1504, 1_340_000, None, None, None, None, None,
         None, None, None),
        # K = 1500 = 8·187.5: misaligned K, padded to 1504 = 8·188
        ("[576,1500] x [1500,10000]", "fp16", 576, 10000, 1500, 1_367_000, "Tensor Core", 8, "K", False, False,
         576, 10000, 1504),
        # N = 9999: misaligned N, padded to 10000
        ("[576,1504] x [1504,9999]", "fp16", 576, 9999, 1504, 1_388_000, "Tensor Core", 8, "N", False, False,
         576, 10000, 1504),
    ]
    # the capture's E2E = first kernel start (100 µs) to last kernel end (3200 + 1388 µs) = 4488 µs
    (ratio,), = rows(db, "SELECT e2e_ratio FROM shape_efficiency WHERE run_name = 'guide' AND n = 9999")
    assert ratio == pytest.approx(1388 / 4488)


def test_the_guides_kernels_on_the_tensor_core_and_their_precision(db):
    got = rows(db, "SELECT name, matrix_unit, on_matrix_unit, precision FROM kernel_pmu WHERE run_name = 'guide' "
                   "ORDER BY kernel_id")
    assert got == [
        ("volta_h884gemm_128x128_ldg8_nn", "Tensor Core", True, "fp16"),
        ("volta_sgemm_128x64_nn", None, False, "fp32"),
        ("volta_fp16_sgemm_fp16_128x64_nn", None, False, "fp16"),
        ("volta_fp16_sgemm_fp16_128x64_nn", None, False, "fp16"),
    ]


def test_op_flops_against_the_v100_data_sheet(db):
    got = rows(db, "SELECT precision, flops, flops_source, device_ns, achieved_tflops, peak_tflops, peak_pct, counted "
                   "FROM op_flops WHERE run_name = 'guide' AND name = 'aten::mm' ORDER BY op_id")
    f1, f3, f4 = 2 * 576 * 10000 * 1504, 2 * 576 * 10000 * 1500, 2 * 576 * 9999 * 1504
    # V100 SXM2 data sheet: Tensor Performance 125 TFLOPS, Single-Precision 15.7 TFLOPS
    want = [("fp16", f1, 267_000, 125.0), ("fp32", f1, 1_340_000, 15.7), ("fp16", f3, 1_367_000, 125.0),
            ("fp16", f4, 1_388_000, 125.0)]
    assert len(got) == 4
    for g, (prec, flops, ns, peak) in zip(got, want):
        tflops = flops / ns / 1000        # FLOP per ns = GFLOP/s; / 1000 = TFLOP/s
        assert g[:4] == (prec, flops, "shapes", ns)
        assert g[4] == pytest.approx(tflops) and g[5] == peak and g[6] == pytest.approx(100 * tflops / peak)
        assert g[7] is True
    # aten::matmul encloses aten::mm: not counted (its FLOPs are the same work)
    assert rows(db, "SELECT count(*) FROM op_flops WHERE run_name = 'guide' AND name = 'aten::matmul' AND counted") \
        == [(0,)]


def test_rank_flops_and_mfu_of_the_guide_step(db):
    (got,) = rows(db, "SELECT step, source, op_count, flops, span_ns, achieved_tflops, mfu_ratio, slow_by_flops "
                      "FROM rank_flops WHERE run_name = 'guide'")
    f1, f3, f4 = 2 * 576 * 10000 * 1504, 2 * 576 * 10000 * 1500, 2 * 576 * 9999 * 1504
    span_s = 4488e-6
    assert got[:5] == (1, "op_flops", 4, f1 + f1 + f3 + f4, 4_488_000)
    assert got[5] == pytest.approx((f1 + f1 + f3 + f4) / 4_488_000 / 1000)
    # Σ FLOPs / peak of each op's precision, over the span
    assert got[6] == pytest.approx((f1 / 125e12 + f1 / 15.7e12 + f3 / 125e12 + f4 / 125e12) / span_s)
    assert got[7] is False


def test_with_flops_counts_kinetos_flops_and_tf32_comes_from_the_kernel_name(db):
    got = rows(db, "SELECT name, precision, flops, flops_source, device_ns, achieved_tflops, peak_tflops, counted "
                   "FROM op_flops WHERE run_name = 'flops' AND counted ORDER BY op_id")
    # A100 data sheet: BF16 Tensor Core 312 TFLOPS, TF32 Tensor Core 156 TFLOPS (dense)
    assert got == [
        ("aten::mm", "bf16", 4_194_304, "kineto", 10_000, 4_194_304 / 10_000 / 1000, 312.0, True),
        ("aten::add", "bf16", 16384, "kineto", 2_000, 16384 / 2_000 / 1000, 312.0, True),
        ("aten::mm", "tf32", 4_194_304, "kineto", 8_000, 4_194_304 / 8_000 / 1000, 156.0, True),
    ]
    (r,) = rows(db, "SELECT flops, span_ns, mfu_ratio FROM rank_flops WHERE run_name = 'flops'")
    # Kineto's FLOPs ÷ device time: span = 100 µs (first kernel) … 408 µs (last kernel end)
    assert r[0] == 4_194_304 * 2 + 16384 and r[1] == 308_000
    assert r[2] == pytest.approx((4_194_304 / 312e12 + 16384 / 312e12 + 4_194_304 / 156e12) / 308e-6)


def test_precision_share_splits_the_step(db):
    got = rows(db, "SELECT precision, kernel_count, device_ns, matrix_unit_ns, share_ratio FROM precision_share "
                   "WHERE run_name = 'guide' ORDER BY precision")
    total = 267_000 + 1_340_000 + 1_367_000 + 1_388_000
    assert [g[:4] for g in got] == [("fp16", 3, 267_000 + 1_367_000 + 1_388_000, 267_000),
                                    ("fp32", 1, 1_340_000, 0)]
    assert [g[4] for g in got] == pytest.approx([(total - 1_340_000) / total, 1_340_000 / total])
    # by kernel class too: the bf16 GEMM (Matmul, launched by aten::mm) and the bf16 add (Vector)
    assert rows(db, "SELECT category, precision, device_ns FROM precision_share WHERE run_name = 'flops' "
                    "ORDER BY category, precision") == \
        [("Matmul", "bf16", 10_000 + 50_000), ("Matmul", "tf32", 8_000), ("Vector", "bf16", 2_000)]


def test_rules_are_data(db, tmp_path):
    """A rule changed with SQL applies at query time: require 32 for fp16 on Volta."""
    import shutil

    import duckdb
    copy = tmp_path / "c.duckdb"
    shutil.copy(db, copy)
    con = duckdb.connect(str(copy))
    try:
        con.execute("INSERT INTO alignment_rule (rule_id, vendor, architecture, unit, precision, op_class, dims, "
                    "required_multiple, efficient_multiple, source) VALUES (1000, 'nvidia', 'Volta', 'Tensor Core', "
                    "'fp16', 'gemm', 'M,N,K', 32, NULL, 'test')")
        # 576 = 32·18 and 1504 = 32·47, but 10000 = 32·312.5: N breaks the stricter rule; 313·32 = 10016
        assert con.execute("SELECT rule_id, misaligned_dims, padded_n FROM shape_efficiency "
                           "WHERE run_name = 'guide' AND device_ns = 267000").fetchall() == [(1000, "N", 10016)]
        con.execute("UPDATE device_peak SET peak_tflops = 120 WHERE peak_id = 3")
        assert con.execute("SELECT peak_tflops FROM op_flops WHERE run_name = 'guide' AND name = 'aten::mm' "
                           "ORDER BY op_id LIMIT 1").fetchall() == [(120.0,)]
    finally:
        con.close()


def test_the_issues_bmm_is_misaligned_in_m_and_n(db):
    got = rows(db, "SELECT name, precision, batch, m, n, k, misaligned_dims, aligned, aligned_efficient, padded_m, "
                   "padded_n, padded_k FROM shape_efficiency WHERE run_name = 'flops' AND family = 'bmm'")
    # M = N = 5185 = 8·648 + 1 → 5192 = 8·649; K = 64 fine; Ampere bf16: 8 / 64 (alignment_rule 11)
    assert got == [("aten::bmm", "bf16", 16, 5185, 5185, 64, "M,N", False, False, 5192, 5192, 64)]
    # without Kineto's flops arg the bmm is not counted in a with_flops rank (Kineto's FLOPs only)
    assert rows(db, "SELECT shape_flops, counted FROM op_flops WHERE run_name = 'flops' AND family = 'bmm'") == \
        [(2 * 16 * 5185 * 5185 * 64, False)]
