"""Micro Kineto traces for the idle views, drawn as timelines (µs after baseTimeNanoseconds).

Each trace is a list of events built by the helpers below; ``write`` turns it into a
``*.pt.trace.json`` file that ``tracedb ingest`` (and HolisticTraceAnalysis) reads.
"""
from __future__ import annotations

import json
from pathlib import Path

BASE_NS = 1_700_000_000_000_000_000
HOST_PID, HOST_TID = 4000, 4000


def step(n: int, ts: str, dur: str) -> dict:
    return {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": HOST_PID, "tid": HOST_TID,
            "ts": ts, "dur": dur}


def host(name: str, ts: str, dur: str, cat: str = "cpu_op") -> dict:
    return {"ph": "X", "cat": cat, "name": name, "pid": HOST_PID, "tid": HOST_TID, "ts": ts, "dur": dur}


def launch(corr: int, ts: str, dur: str, name: str = "cudaLaunchKernel", cat: str = "cuda_runtime") -> dict:
    return {"ph": "X", "cat": cat, "name": name, "pid": HOST_PID, "tid": HOST_TID, "ts": ts, "dur": dur,
            "args": {"correlation": corr}}


def kernel(corr: int, name: str, ts: str, dur: str, stream: int = 7, cat: str = "kernel") -> dict:
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": stream, "correlation": corr}}


def write(path: Path, events: list[dict], rank: int = 0) -> Path:
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 1},
           "deviceProperties": [{"id": 0, "name": "micro"}],
           "traceEvents": events, "baseTimeNanoseconds": BASE_NS}
    # ts / dur stay exact decimal text in the file: json would write the strings quoted
    text = json.dumps(doc, indent=1)
    for e in events:
        for key in ("ts", "dur"):
            text = text.replace(f'"{key}": "{e[key]}"', f'"{key}": {e[key]}')
    path.write_text(text)
    return path


# One cause per gap on stream 7, step 1 (ProfilerStep#1 = [0, 1000) µs), and a step 2 that
# HTA drops (the last ProfilerStep).
#
# host thread   |--aten::conv2d 5..30--|        |sync 100..150|  |DataLoader 168..199||aten::to 199..206|
#   launches     L1 10  L2 12  L3 14                                                   L4 200..205
# stream 7          [K1 20..40]  [K2 50..60]          [K3 160..170]                     [K4 210..220]
# idle               40..50 kernel_wait (10 µs < 30 µs, L2 at 12 before K1's end 40)
#                                 60..160 other (100 µs ≥ 30 µs, L3 at 14 before 60)
#                                                     170..210 host_wait (L4 at 200 after K3's end 170)
# step 2: ProfilerStep#2 [1000, 2000): L5 1010 → K5 [1020, 1030); gap 220..1020 = 800 µs, L5 at
# 1010 after 220: host_wait, in step 2 (the kernel after the gap).
CAUSES = [
    step(1, "0.000", "1000.000"),
    host("aten::conv2d", "5.000", "25.000"),
    launch(1, "10.000", "5.000"),
    launch(2, "12.000", "5.000"),
    launch(3, "14.000", "5.000"),
    kernel(1, "k1_gemm", "20.000", "20.000"),
    kernel(2, "k2_relu", "50.000", "10.000"),
    kernel(3, "k3_gemm", "160.000", "10.000"),
    host("cudaStreamSynchronize", "100.000", "50.000", cat="cuda_runtime"),
    host("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "168.000", "31.000", cat="user_annotation"),
    host("aten::to", "199.000", "7.000"),
    launch(4, "200.000", "5.000"),
    kernel(4, "k4_add", "210.000", "10.000"),
    step(2, "1000.000", "1000.000"),
    launch(5, "1010.000", "5.000"),
    kernel(5, "k5_add", "1020.000", "10.000"),
]

# Sub-µs gaps: HTA ceils starts and floors ends to whole µs. Stream 7, ProfilerStep#1 [0, 100),
# ProfilerStep#2 [100, 200) (the dropped last step, empty).
#   L1 1.0  L2 1.5  L3 2.0  L4 2.5      (all before the kernels: no host wait)
#   K1 [10.1, 10.9)  K2 [11.2, 11.7)  K3 [12.05, 12.95)  K4 [13.3, 13.8)
#   exact gaps 0.3 + 0.35 + 0.35 = 1.0 µs of kernel wait
#   HTA: K1 [11, 10) K2 [12, 11) K3 [13, 12) K4 [14, 13) → gaps 2 + 2 + 2 = 6 µs (×6)
SUB_US = [
    step(1, "0.000", "100.000"),
    launch(1, "1.000", "0.400"),
    launch(2, "1.500", "0.400"),
    launch(3, "2.000", "0.400"),
    launch(4, "2.500", "0.400"),
    kernel(1, "k1", "10.100", "0.800"),
    kernel(2, "k2", "11.200", "0.500"),
    kernel(3, "k3", "12.050", "0.900"),
    kernel(4, "k4", "13.300", "0.500"),
    step(2, "100.000", "100.000"),
]
