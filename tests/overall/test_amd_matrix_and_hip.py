"""AMD GPUs (issue 39, point 8): matrix-core GEMMs (Tensile / hipBLASLt Cijk_* kernels, MFMA) are
classed like NVIDIA's Tensor Core GEMMs (Cube, sub-category cube: "Matmul (Cube)" when launched
by aten::mm), not "Matmul (Vector)"; HIP memory events (c10 device type 6) and AMD devices of
kineto's ROCm deviceProperties are named HIP:<n>, and the device's capacity joins memory_peak.

The micro traces are hand-made in the shape of kineto's ROCm output (deviceProperties keys of
the corpus MI250 trace, hta/tests/data/amd_trace); the corpus test reads that trace."""
from __future__ import annotations

import json

import pytest

from conftest import corpus_path, ingest_paths, rows

MI300X = {"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 205_822_885_888, "computeMajor": 9,
          "computeMinor": 4, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
          "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 304, "maxSharedMemoryPerMultiProcessor": 65536}
GEMM = "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI32x32x8_SN_LDSB1_AFC1_GRVWA8_K1"


def trace(device_type):
    return {"schemaVersion": 1, "deviceProperties": [MI300X, dict(MI300X, id=1)],
            "baseTimeNanoseconds": 1_735_632_360_000_000_000, "traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 9, "tid": 9, "ts": 0.0, "dur": 500.0},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 9, "tid": 9, "ts": 10.0, "dur": 30.0,
         "args": {"External id": 10}},
        {"ph": "X", "cat": "cuda_runtime", "name": "hipExtModuleLaunchKernel", "pid": 9, "tid": 9, "ts": 20.0,
         "dur": 5.0, "args": {"correlation": 5001, "External id": 10}},
        {"ph": "X", "cat": "kernel", "name": GEMM, "pid": 0, "tid": 0, "ts": 100.0, "dur": 50.0,
         "args": {"device": 0, "stream": 0, "correlation": 5001, "External id": 10}},
        {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4>", "pid": 0, "tid": 0,
         "ts": 160.0, "dur": 10.0, "args": {"device": 0, "stream": 0, "correlation": 5002}},
        {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 9, "tid": 9, "ts": 15.0, "s": "t",
         "args": {"Device Type": device_type, "Device Id": 0, "Addr": 1, "Bytes": 1 << 20,
                  "Total Allocated": 3 << 30, "Total Reserved": 4 << 30}},
    ]}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("amd")
    out = {}
    for device_type in (6, 1):
        f = tmp / f"rank0_type{device_type}.pt.trace.json"
        f.write_text(json.dumps(trace(device_type)))
        out[device_type] = tmp / f"t{device_type}.duckdb"
        ingest_paths(out[device_type], f)
    return out


def test_matrix_core_gemm_is_matmul_cube(dbs):
    db = dbs[6]
    assert rows(db, "SELECT name, category, sub_category FROM kernel_category ORDER BY ts_ns") == [
        (GEMM, "Matmul", "cube"), ("void at::native::vectorized_elementwise_kernel<4>", "Vector", "vector")]
    got = {m: d for m, d in rows(db, "SELECT metric, dur_ns FROM overall_summary")}
    assert got.get("Matmul (Cube)") == 50_000 and "Matmul (Vector)" not in got


def test_hip_memory_device_has_its_name_and_capacity(dbs):
    """Device Type 6 is HIP: memory rows HIP:0 (not DeviceType6:0); the device rows of the ROCm
    deviceProperties are HIP:0 / HIP:1 with the name and totalGlobalMem as written."""
    db = dbs[6]
    assert rows(db, "SELECT DISTINCT device FROM memory") == [("HIP:0",)]
    assert rows(db, "SELECT device, device_name, memory_capacity_bytes FROM device ORDER BY device_id") == [
        ("HIP:0", "AMD Instinct MI300X", 205_822_885_888), ("HIP:1", "AMD Instinct MI300X", 205_822_885_888)]
    assert rows(db, "SELECT device, peak_reserved_bytes, capacity_bytes FROM memory_peak") == [
        ("HIP:0", 4 << 30, 205_822_885_888)]


def test_rocm_memory_recorded_as_cuda_keeps_the_capacity(dbs):
    """PyTorch on ROCm may record its allocations as CUDA (1): the device row of that ordinal takes
    the label its memory events use, so memory_peak still has the capacity."""
    db = dbs[1]
    assert rows(db, "SELECT device, capacity_bytes FROM memory_peak") == [("CUDA:0", 205_822_885_888)]
    assert rows(db, "SELECT device FROM device ORDER BY device_id") == [("CUDA:0",), ("HIP:1",)]


@pytest.mark.corpus
def test_mi250_tensile_gemms_are_cube_and_devices_hip(tmp_path):
    """The corpus MI250 trace (ROCm 6.2): its two Cijk_* kernels (rocBLAS/hipBLASLt Tensile GEMMs,
    MI16x16x1 = MFMA) are cube; its 4 deviceProperties entries are HIP devices of 68702699520 B."""
    db = tmp_path / "t.duckdb"
    ingest_paths(db, corpus_path("hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"))
    assert rows(db, "SELECT count(*), min(sub_category), max(sub_category) FROM kernel_category "
                    "WHERE name LIKE 'Cijk\\_%' ESCAPE '\\'") == [(2, "cube", "cube")]
    assert rows(db, "SELECT device, device_name, memory_capacity_bytes FROM device ORDER BY device_id") == [
        (f"HIP:{i}", "AMD Radeon Graphics", 68_702_699_520) for i in range(4)]
