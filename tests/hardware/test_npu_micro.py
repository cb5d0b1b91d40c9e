"""Issue 41 on hand-made Ascend and MindSpore files: kernel_details.csv shapes, HF32 Eligible and PMU
columns (op_shape kernel rows, kernel_pmu, precision_share), MindSpore flops_summary / flops_scope
(rank_flops with MindInsight's -20 % rule), and the precision columns of op_diff / op_alignment.
Every expected value is a cell written here or arithmetic on them, written next to it.
"""
from __future__ import annotations

import json
import shutil

import pytest

from conftest import FIXTURES, ingest_paths, rows

HEADER = ("Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
          "Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,"
          "Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,"
          "aic_mac_time(us),aic_mac_ratio,aic_mte2_ratio,aiv_time(us),aiv_vec_ratio,cube_utilization(%)")
ROWS = [
    # 1. MatMulV2 with B transposed: [32, 4096] x [1000, 4096]ᵀ → [32, 1000]: M 32, N 1000, K 4096
    '1,4294967295,10,2,aclnnMm_MatMulV2,MatMulV2,dynamic,AI_CORE,"1700000000000100.000\t",100.5,0,24,0,NO,'
    '"""32,4096;1000,4096;1000""",FLOAT;FLOAT;FLOAT,FORMAT_ND;FORMAT_ND;FORMAT_ND,"""32,1000""",FLOAT,FORMAT_ND,'
    'N/A,100.25,1000,20.125,0.2,0.7,N/A,N/A,15.5',
    # 2. MatMulV2 with A transposed: [32, 1000]ᵀ x [32, 4096] → [1000, 4096]: M 1000, N 4096, K 32
    '1,4294967295,11,2,aclnnMm_MatMulV2,MatMulV2,dynamic,AI_CORE,"1700000000000300.000\t",50,0,24,0,NO,'
    '"""32,1000;32,4096""",FLOAT;FLOAT,FORMAT_ND;FORMAT_ND,"""1000,4096""",FLOAT,FORMAT_ND,'
    'N/A,49.5,500,10,0.1,0.8,N/A,N/A,9.25',
    # 3. MatMul in FRACTAL_NZ: A [576, 2, 16, 16] = ND [2·16, 576·16] = [32, 9216]; B [576, 256, 16, 16]
    #    = ND [4096, 9216] (transposed); out [256, 2, 16, 16] = [32, 4096]: M 32, N 4096, K 9216
    '1,4294967295,12,2,MatMul12,MatMul,static,AI_CORE,"1700000000000400.000\t",40,0,24,0,NO,'
    '"""576,2,16,16;576,256,16,16""",FLOAT16;FLOAT16,FRACTAL_NZ;FRACTAL_NZ,"""256,2,16,16""",FLOAT16,'
    'FRACTAL_NZ,N/A,39,400,30,0.75,0.2,N/A,N/A,60',
    # 4. Conv2D in NC1HWC0 (C0 = 8): x [32, 1, 224, 224, 8] → C_in 8; filter FRACTAL_Z [121, 4, 16, 8] →
    #    kernel area 121 / C1 1 = 11 x 11, C_out 4·16 = 64; out [32, 8, 55, 55, 8] → 55 x 55, C_out 8·8;
    #    HF32 Eligible YES on FLOAT inputs: hf32
    '1,4294967295,13,2,aclnnConvolution_Conv2D,Conv2D,dynamic,AI_CORE,"1700000000000500.000\t",200,0,24,0,YES,'
    '"""32,1,224,224,8;121,4,16,8;64""",FLOAT;FLOAT;FLOAT,NC1HWC0;FRACTAL_Z;NCHW,"""32,8,55,55,8""",FLOAT,'
    'NC1HWC0,N/A,199,2000,150,0.75,0.3,N/A,N/A,70',
    # 5. FlashAttentionScore [4096, 1, 2048] x [4096, 1, 1024]: SBH, S 4096, B 1, query hidden 2048
    '1,4294967295,14,2,FA_FlashAttentionScore,FlashAttentionScore,dynamic,MIX_AIC,"1700000000000800.000\t",300,0,24,'
    '24,NO,"""4096,1,2048;4096,1,1024;4096,1,1024;;;;2048,2048""",DT_BF16;DT_BF16;DT_BF16;FLOAT;UINT8;FLOAT;'
    'DT_BF16,NCL;NCL;NCL;ND;ND;ND;ND,"""4096,1,2048""",DT_BF16,ND,N/A,299,3000,250,0.8,0.1,290,0.05,80',
    # 6. a MatMul whose dims do not fit together: kept, counted as unparsable
    '1,4294967295,15,2,BadMatMul,MatMulV2,dynamic,AI_CORE,"1700000000001200.000\t",10,0,1,0,NO,'
    '"""32,100;64,200""",DT_BF16;DT_BF16,ND;ND,"""32,200""",DT_BF16,ND,N/A,9,90,0,0,0.5,N/A,N/A,0',
    # 7. a vector kernel: PMU present, no MAC time: not on the Cube
    '1,4294967295,16,2,aclnnAdd_AddAiCore_Add,Add,dynamic,AI_VECTOR_CORE,"1700000000001300.000\t",20,0,8,0,N/A,'
    '"""32,4096;32,4096""",FLOAT;FLOAT,ND;ND,"""32,4096""",FLOAT,ND,N/A,N/A,N/A,N/A,N/A,N/A,19,0.6,N/A',
    # 8. a communication op: neither a matrix kernel nor a compute kernel
    '1,4294967295,N/A,N/A,hcom_allReduce__1_1_1,hcom_allReduce_,N/A,HCCL,"1700000000001400.000\t",30,0,0,0,N/A,'
    'N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A',
]


def matmul_trace(path, dtype, dur_us):
    """A Kineto trace with one top-level aten::linear of ``dtype`` launching one kernel."""
    ev = [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0.0, "dur": 1000.0},
        {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10.0, "dur": 50.0,
         "args": {"Input Dims": [[8, 64], [32, 64], [32]], "Input type": [dtype, dtype, dtype]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20.0, "dur": 5.0,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 100.0, "dur": dur_us,
         "args": {"correlation": 1, "stream": 7, "device": 0}},
    ]
    path.write_text(json.dumps({"schemaVersion": 1, "baseTimeNanoseconds": 1_700_000_000_000_000_000,
                                "traceEvents": ev}))
    return path


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("npu")
    db = tmp / "n.duckdb"
    f = tmp / "kernel_details.csv"
    f.write_text(HEADER + "\n" + "\n".join(ROWS) + "\n")
    ingest_paths(db, f, run="npu")
    # MindSpore: the mindinsight fixture as rank 0, and ranks 1 and 2 with other FLOPS
    ms = tmp / "profiler"
    ms.mkdir()
    for p in (FIXTURES / "mindspore/flops").iterdir():
        shutil.copy(p, ms / p.name)
    (ms / "flops_summary_1.json").write_text('{"FLOPs": 8000.0, "FLOPS": 10000.0, "FLOPS_Utilization": 3.8}')
    (ms / "flops_summary_2.json").write_text('{"FLOPs": 8000.0, "FLOPS": 7000.0, "FLOPS_Utilization": 2.7}')
    ingest_paths(db, ms, run="ms")
    ingest_paths(db, matmul_trace(tmp / "b.pt.trace.json", "float", 40.0), run="base", role="baseline")
    ingest_paths(db, matmul_trace(tmp / "c.pt.trace.json", "c10::BFloat16", 10.0), run="comp", role="comparison")
    return db


def test_npu_kernels_get_their_dims(db):
    got = rows(db, "SELECT kernel_id, family, layout, precision, batch, m, n, k, c_in, c_out, out_h, out_w, kernel_h, "
                   "kernel_w, seq_q, seq_kv, hidden, parsed, unparsed_reason, shape_flops FROM op_shape "
                   "JOIN run USING (run_id) WHERE run_name = 'npu' ORDER BY kernel_id")
    assert got == [
        (1, "mm", "ND", "fp32", 1, 32, 1000, 4096, None, None, None, None, None, None, None, None, None, True, None,
         2 * 32 * 1000 * 4096),
        (2, "mm", "ND", "fp32", 1, 1000, 4096, 32, None, None, None, None, None, None, None, None, None, True, None,
         2 * 1000 * 4096 * 32),
        (3, "mm", "FRACTAL_NZ", "fp16", 1, 32, 4096, 9216, None, None, None, None, None, None, None, None, None, True,
         None, 2 * 32 * 4096 * 9216),
        (4, "conv", "NC1HWC0", "hf32", 32, None, None, None, 8, 64, 55, 55, 11, 11, None, None, None, True, None,
         2 * 32 * 55 * 55 * 64 * 8 * 121),
        (5, "flash_attention", "SBH", "bf16", 1, None, None, None, None, None, None, None, None, None, 4096, 4096, 2048,
         True, None, 4 * 1 * 4096 * 4096 * 2048),
        (6, "mm", "ND", "bf16", 1, None, None, None, None, None, None, None, None, None, None, None, None, False,
         "inner dimensions disagree", None),
    ]


def test_kernel_pmu_reads_the_csv_cells(db):
    got = rows(db, "SELECT kernel_id, matrix_unit, unit_source, precision, hf32_eligible, input_formats, aicore_time_ns, "
                   "aic_total_cycles, aic_mac_time_ns, aic_mac_ratio, aic_mte2_ratio, aiv_time_ns, aiv_vec_ratio, "
                   "cube_utilization_pct FROM kernel_pmu WHERE run_name = 'npu' ORDER BY kernel_id")
    assert got == [
        (1, "Cube", "pmu", "fp32", False, "FORMAT_ND;FORMAT_ND;FORMAT_ND", 100_250, 1000, 20_125, 0.2, 0.7, None, None,
         15.5),
        (2, "Cube", "pmu", "fp32", False, "FORMAT_ND;FORMAT_ND", 49_500, 500, 10_000, 0.1, 0.8, None, None, 9.25),
        (3, "Cube", "pmu", "fp16", False, "FRACTAL_NZ;FRACTAL_NZ", 39_000, 400, 30_000, 0.75, 0.2, None, None, 60.0),
        (4, "Cube", "pmu", "hf32", True, "NC1HWC0;FRACTAL_Z;NCHW", 199_000, 2000, 150_000, 0.75, 0.3, None, None, 70.0),
        (5, "Cube", "pmu", "bf16", False, "NCL;NCL;NCL;ND;ND;ND;ND", 299_000, 3000, 250_000, 0.8, 0.1, 290_000, 0.05,
         80.0),
        # aic_mac_ratio 0: on the vector path although on AI_CORE
        (6, None, "pmu", "bf16", False, "ND;ND", 9_000, 90, 0, 0.0, 0.5, None, None, 0.0),
        (7, None, "accelerator core", "fp32", None, "ND;ND", None, None, None, None, None, 19_000, 0.6, None),
    ]


def test_npu_precision_share(db):
    got = rows(db, "SELECT precision, sum(device_ns)::BIGINT, sum(matrix_unit_ns)::BIGINT FROM precision_share "
                   "WHERE run_name = 'npu' GROUP BY precision ORDER BY precision")
    # kernels 1, 2, 7 fp32 (100.5 + 50 + 20 µs; 7 not on the Cube), 3 fp16, 4 hf32, 5 and 6 bf16 (6: no MAC)
    assert got == [("bf16", 310_000, 300_000), ("fp16", 40_000, 40_000), ("fp32", 170_500, 150_500),
                   ("hf32", 200_000, 200_000)]


def test_npu_kernels_without_a_known_chip_use_the_cube_rules(db):
    got = rows(db, "SELECT operand_shapes, precision, efficient_multiple, misaligned_dims, inefficient_dims, "
                   "aligned, aligned_efficient, padded_n FROM shape_efficiency WHERE run_name = 'npu' "
                   "AND family = 'mm' ORDER BY device_ns")
    assert got == [
        # fp16 fractal 16 x 16 (alignment_rule 60): 32, 4096, 9216 all multiples of 16
        ("576,2,16,16;576,256,16,16", "fp16", 16, None, "", None, True, 4096),
        # fp32 (rule 63, 16): M = 1000 (Aᵀ) is not a multiple of 16 (1000 = 16·62.5)
        ("32,1000;32,4096", "fp32", 16, None, "M", None, False, 4096),
        # fp32: N = 1000 (Bᵀ) → padded to 16·63 = 1008
        ("32,4096;1000,4096;1000", "fp32", 16, None, "N", None, False, 1008),
    ]


def test_mindspore_flops_files_equal_their_totals(db):
    (summary,) = rows(db, "SELECT total_mflop, avg_op_gflops, utilization_pct FROM profiler_flops_summary "
                          "JOIN run USING (run_id) WHERE run_name = 'ms' AND rank = 0")
    # mindinsight tests/utils/resource/profiler/flops_summary_0.json
    assert summary == (8167.743, 9868.936, 3.765)
    (links, total), = rows(db, "SELECT count(*), sum(mflop) FILTER (WHERE source_scope = 'Total') "
                               "FROM profiler_flops_scope JOIN run USING (run_id) WHERE run_name = 'ms'")
    # 34 links; Total → Default 4655.465 + Total → Gradients 3512.277 = 8167.742 (each link rounded to 0.001)
    assert links == 34 and total == pytest.approx(4655.465 + 3512.277)
    assert abs(total - summary[0]) <= 0.001 * 2


def test_rank_flops_applies_mindinsights_rule_to_the_mindspore_ranks(db):
    got = rows(db, "SELECT rank, step, source, flops, achieved_tflops, mfu_ratio, below_mean_ratio, slow_by_flops "
                   "FROM rank_flops WHERE run_name = 'ms' ORDER BY rank")
    mean = (9868.936 + 10000.0 + 7000.0) / 3
    # MindInsight parallel_proposer: (mean FLOPS − FLOPS) / mean FLOPS > 0.2 → rank 2 (7000 GFLOPS)
    want = [(0, 8167.743e6, 9868.936, 0.03765), (1, 8000e6, 10000.0, 0.038), (2, 8000e6, 7000.0, 0.027)]
    assert len(got) == 3
    for g, (rank, flops, gflops, mfu) in zip(got, want):
        assert g[:3] == (rank, None, "mindspore_flops_summary")
        assert g[3] == pytest.approx(flops) and g[4] == pytest.approx(gflops / 1000) and g[5] == pytest.approx(mfu)
        assert g[6] == pytest.approx((mean - gflops) / mean)
        assert g[7] is ((mean - gflops) / mean > 0.2)
    assert [g[7] for g in got] == [False, False, True]


def test_op_diff_and_op_alignment_show_each_sides_precision(db):
    import duckdb

    from tracedb.compare.store import align
    con = duckdb.connect(str(db))
    try:
        ids = dict(con.execute("SELECT run_name, run_id FROM run").fetchall())
        align(con, ids["base"], ids["comp"])
        got = con.execute("SELECT baseline_op_name, baseline_precision, comparison_precision "
                          "FROM op_alignment").fetchall()
        diff = con.execute("SELECT op_name, baseline_precision, comparison_precision, baseline_total_ns, "
                           "comparison_total_ns FROM op_diff").fetchall()
    finally:
        con.close()
    assert got == [("aten::linear", "fp32", "bf16")]
    assert diff == [("aten::linear", "fp32", "bf16", 40_000, 10_000)]


def test_a_flops_file_alone_is_read_and_a_bad_one_named(tmp_path):
    """Before issue 41 a flops_summary_{rank}.json was refused as "not a Kineto trace"."""
    from tracedb.errors import InputError
    db = tmp_path / "f.duckdb"
    ingest_paths(db, FIXTURES / "mindspore/flops/flops_summary_0.json", run="one")
    assert rows(db, "SELECT rank, total_mflop FROM profiler_flops_summary") == [(0, 8167.743)]
    bad = tmp_path / "flops_scope_3.json"
    bad.write_text('{"data": {"links": [{"source": "Total", "value": 1.0}]}, "max_scope_num": 1}')
    with pytest.raises(InputError) as e:
        ingest_paths(db, bad, run="bad")
    assert str(bad) in str(e.value) and "data.links[0]" in str(e.value)
