"""kernel_details.csv columns beside the kernel table's (formats.md §3.2): HF32 Eligible, the
operand formats and the AI Core PMU tail, and the Ascend DB's TASK_PMU_INFO names for the same
counters → ``kernel_pmu_raw``.

The PMU tail depends on ``aic_metrics`` (PipeUtilization by default: *_time / *_ratio;
ArithmeticUtilization: *_fp16_ratio, *_fops) and on the chip: Ascend 910B writes ``aic_`` (cube
core) and ``aiv_`` (vector core) prefixes; older single-core chips (910A, the 2024 corpus file)
write the names without prefix (``mac_ratio``, ``vec_ratio``, ``total_cycles`` ...), read here
into the column of the unit they measure. Kinds: ``text``, ``us`` (µs → ns), ``int``, ``ratio``
(a plain number, kept as DOUBLE).
"""
from . import Field

FIELDS = {
    "hf32_eligible": Field(("HF32 Eligible",), "text"),
    "input_formats": Field(("Input Formats",), "text"),
    "output_dtypes": Field(("Output Data Types",), "text"),
    "aicore_time_ns": Field(("aicore_time(us)",), "us"),
    "aic_total_cycles": Field(("aic_total_cycles", "total_cycles"), "int"),
    "aic_mac_time_ns": Field(("aic_mac_time(us)", "mac_time(us)"), "us"),
    "aic_mac_ratio": Field(("aic_mac_ratio", "mac_ratio"), "ratio"),
    "aic_scalar_ratio": Field(("aic_scalar_ratio", "scalar_ratio"), "ratio"),
    "aic_mte1_ratio": Field(("aic_mte1_ratio", "mte1_ratio"), "ratio"),
    "aic_mte2_ratio": Field(("aic_mte2_ratio", "mte2_ratio"), "ratio"),
    "aic_fixpipe_ratio": Field(("aic_fixpipe_ratio",), "ratio"),
    "aic_mac_fp16_ratio": Field(("aic_mac_fp16_ratio", "mac_fp16_ratio"), "ratio"),
    "aic_mac_int8_ratio": Field(("aic_mac_int8_ratio", "mac_int8_ratio"), "ratio"),
    "aic_cube_fops": Field(("aic_cube_fops", "cube_fops"), "ratio"),
    "aiv_time_ns": Field(("aiv_time(us)",), "us"),
    "aiv_total_cycles": Field(("aiv_total_cycles",), "int"),
    "aiv_vec_time_ns": Field(("aiv_vec_time(us)", "vec_time(us)"), "us"),
    "aiv_vec_ratio": Field(("aiv_vec_ratio", "vec_ratio"), "ratio"),
    "aiv_scalar_ratio": Field(("aiv_scalar_ratio",), "ratio"),
    "aiv_mte2_ratio": Field(("aiv_mte2_ratio",), "ratio"),
    "aiv_mte3_ratio": Field(("aiv_mte3_ratio", "mte3_ratio"), "ratio"),
    "aiv_vec_fp32_ratio": Field(("aiv_vec_fp32_ratio", "vec_fp32_ratio"), "ratio"),
    "aiv_vec_fp16_ratio": Field(("aiv_vec_fp16_ratio", "vec_fp16_ratio"), "ratio"),
    "aiv_vector_fops": Field(("aiv_vector_fops", "vector_fops"), "ratio"),
    "cube_utilization_pct": Field(("cube_utilization(%)",), "ratio"),
}

# HF32 Eligible words → hf32_eligible
HF32_YES, HF32_NO = "YES", "NO"

# the Ascend DB (ascend_pytorch_profiler_{rank}.db): TASK_PMU_INFO name → (column, kind); its
# times are ns already (aic_total_time 345511.25 for a 358247 ns MatMulV2 task in the 2025
# corpus DB), rounded to integer ns; COMPUTE_TASK_INFO columns for the rest
DB_PMU = {
    "aic_total_time": ("aicore_time_ns", "ns"),
    "aic_total_cycles": ("aic_total_cycles", "int"),
    "aic_mac_time": ("aic_mac_time_ns", "ns"),
    "aic_mac_ratio": ("aic_mac_ratio", "ratio"),
    "aic_scalar_ratio": ("aic_scalar_ratio", "ratio"),
    "aic_mte1_ratio": ("aic_mte1_ratio", "ratio"),
    "aic_mte2_ratio": ("aic_mte2_ratio", "ratio"),
    "aic_fixpipe_ratio": ("aic_fixpipe_ratio", "ratio"),
    "aic_mac_fp16_ratio": ("aic_mac_fp16_ratio", "ratio"),
    "aic_mac_int8_ratio": ("aic_mac_int8_ratio", "ratio"),
    "aic_cube_fops": ("aic_cube_fops", "ratio"),
    "aiv_total_time": ("aiv_time_ns", "ns"),
    "aiv_total_cycles": ("aiv_total_cycles", "int"),
    "aiv_vec_time": ("aiv_vec_time_ns", "ns"),
    "aiv_vec_ratio": ("aiv_vec_ratio", "ratio"),
    "aiv_scalar_ratio": ("aiv_scalar_ratio", "ratio"),
    "aiv_mte2_ratio": ("aiv_mte2_ratio", "ratio"),
    "aiv_mte3_ratio": ("aiv_mte3_ratio", "ratio"),
    "aiv_vec_fp32_ratio": ("aiv_vec_fp32_ratio", "ratio"),
    "aiv_vec_fp16_ratio": ("aiv_vec_fp16_ratio", "ratio"),
    "aiv_vector_fops": ("aiv_vector_fops", "ratio"),
}
# COMPUTE_TASK_INFO columns (newer schemas) beside the kernel table's
DB_HF32 = "hf32Eligible"
DB_INPUT_FORMATS = "inputFormats"
DB_OUTPUT_DTYPES = "outputDataTypes"
