"""Micro Kineto traces where tracedb's rules and HolisticTraceAnalysis's differ, drawn as timelines
(µs after baseTimeNanoseconds; stream 7). Built with the helpers of tests/idle/micro.py.

``python tests/idle/micro_hta.py DIR`` writes them as DIR/<name>/rank0.pt.trace.json, the folder
layout HTA's TraceAnalysis(trace_dir=...) reads (see tests/idle/test_hta_reference.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import micro  # noqa: E402
from micro import host, kernel, launch, step  # noqa: E402


def gpu_step(n: int, ts: str, dur: str) -> dict:
    """The GPU-side copy of ProfilerStep#N that newer Kineto writes (cat gpu_user_annotation)."""
    return {"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{n}", "pid": 0, "tid": 7,
            "ts": ts, "dur": dur, "args": {"External id": n}}


def stream_sync(corr: int, ts: str, dur: str, stream: int = 7) -> dict:
    """A CUPTI synchronization record as Kineto writes it (cat cuda_sync)."""
    return {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": stream, "ts": ts, "dur": dur,
            "args": {"cuda_sync_kind": "Stream Sync", "stream": stream, "correlation": corr, "device": 0,
                     "context": 1}}


# The window edges (issue 39 point 2: HTA's idle-time breakdown counts more host waits than the
# step rows of idle_time before the last step):
#
# host     L0a 2 L0b 21 | ProfilerStep#1 [50, 200) L1 60 L3 62 L4 63  L5 150 sync 165..177 |
#                       | ProfilerStep#2 [200, 400) L7 210 | ProfilerStep#3 [400, 600) L8 405 L9 425
# GPU-side steps          #1 [70, 176)                      #2 [230, 260)    #3 [420, 470)
# stream 7  K0a [10,20) K0b [22,30)   K1 [70,80) K3 [95,130) K4 [120,125) K5 [160,170) Sync [170,176)
#           K7 [230,260)   K8 [420,440)   K9 [450,470)
# gaps      K0b 2 host_wait (launched before step 1: step NULL)   K1 40 host_wait
#           K3 15 kernel_wait   K4 −10 (starts before K3 ends: HTA adds a negative gap, tracedb none)
#           K5 35 host_wait (from K4's end 125)   K7 60 host_wait   K8 160 host_wait   K9 10 kernel_wait
# HTA's cut: the last ProfilerStep#3 starts at 400 on the host, at 420 on the GPU: the later, 420.
# HTA keeps K0a, K0b (before the first step), K8 (launched at 405 < 420) and drops K9 (425).
EDGES = [
    launch(100, "2.000", "3.000"),
    kernel(100, "k0a_gemm", "10.000", "10.000"),
    launch(101, "21.000", "0.500"),
    kernel(101, "k0b_gemm", "22.000", "8.000"),
    step(1, "50.000", "150.000"),
    launch(1, "60.000", "0.500"),
    kernel(1, "k1_gemm", "70.000", "10.000"),
    launch(3, "62.000", "0.500"),
    kernel(3, "k3_gemm", "95.000", "35.000"),
    launch(4, "63.000", "0.500"),
    kernel(4, "k4_gemm", "120.000", "5.000"),
    launch(5, "150.000", "1.000"),
    kernel(5, "k5_gemm", "160.000", "10.000"),
    host("cudaStreamSynchronize", "165.000", "12.000", cat="cuda_runtime") | {"args": {"correlation": 6}},
    stream_sync(6, "170.000", "6.000"),
    gpu_step(1, "70.000", "106.000"),
    step(2, "200.000", "200.000"),
    launch(7, "210.000", "1.000"),
    kernel(7, "k7_gemm", "230.000", "30.000"),
    gpu_step(2, "230.000", "30.000"),
    step(3, "400.000", "200.000"),
    launch(8, "405.000", "1.000"),
    kernel(8, "k8_gemm", "420.000", "20.000"),
    launch(9, "425.000", "1.000"),
    kernel(9, "k9_gemm", "450.000", "20.000"),
    gpu_step(3, "420.000", "50.000"),
]

# Zero-length gaps: kernels that start exactly where the one before ends.
# ProfilerStep#1 [0, 100) launches L1..L4 at 1..4; ProfilerStep#2 [100, 200) is empty.
# stream 7  K1 [10,20) K2 [20,25) K3 [27,30) K4 [30,40)
# gaps      K2 0   K3 2 kernel_wait   K4 0: 2 µs of kernel wait in 1 interval (tracedb), in 3 (HTA)
ZERO_GAPS = [
    step(1, "0.000", "100.000"),
    launch(1, "1.000", "0.500"),
    launch(2, "2.000", "0.500"),
    launch(3, "3.000", "0.500"),
    launch(4, "4.000", "0.500"),
    kernel(1, "k1_gemm", "10.000", "10.000"),
    kernel(2, "k2_gemm", "20.000", "5.000"),
    kernel(3, "k3_gemm", "27.000", "3.000"),
    kernel(4, "k4_gemm", "30.000", "10.000"),
    step(2, "100.000", "100.000"),
]

# The same without the GPU-side step copies (older Kineto): HTA cuts at the host start of
# ProfilerStep#3 (400) and drops K8 (launched at 405) too.
EDGES_HOST_ONLY = [e for e in EDGES if e["cat"] != "gpu_user_annotation"]

# Kernel types: HTA's name patterns against tracedb's kernel_class_rule. One ProfilerStep (HTA
# cuts nothing). stream 7  gemm [10,20) bn_Sync [20,30) nccl [30,40) Memcpy [40,50)
# HTA: compute = gemm only (a name with "Sync" in it is not COMPUTATION), non-compute 30 µs;
# tracedb: computing = gemm and the SyncBN kernel (neither communication nor copy), 20 µs.
KERNEL_TYPES = [
    step(1, "0.000", "100.000"),
    launch(1, "1.000", "0.500"),
    launch(2, "2.000", "0.500"),
    launch(3, "3.000", "0.500"),
    launch(4, "4.000", "0.500", name="cudaMemcpyAsync"),
    kernel(1, "k_gemm", "10.000", "10.000"),
    kernel(2, "batch_norm_SyncBN_kernel", "20.000", "10.000"),
    kernel(3, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "30.000", "10.000"),
    kernel(4, "Memcpy DtoD (Device -> Device)", "40.000", "10.000", cat="gpu_memcpy"),
]

TRACES = {"edges": EDGES, "edges_host_only": EDGES_HOST_ONLY, "zero_gaps": ZERO_GAPS,
          "kernel_types": KERNEL_TYPES}


def write_all(folder: Path) -> dict[str, Path]:
    out = {}
    for name, events in TRACES.items():
        (folder / name).mkdir(parents=True, exist_ok=True)
        out[name] = micro.write(folder / name / "rank0.pt.trace.json", events)
    return out


if __name__ == "__main__":
    print(write_all(Path(sys.argv[1])))
