"""Micro Kineto traces for the diagnosis tests: events given in µs after BASE_NS, written with
exact decimal ts / dur (as tests/idle/micro.py does)."""
from __future__ import annotations

import json
from pathlib import Path

BASE_NS = 1_700_000_000_000_000_000
PID, TID = 4000, 4000
US = 1000


def x(name: str, ts: str, dur: str, cat: str = "cpu_op", tid: int = TID, **args) -> dict:
    e = {"ph": "X", "cat": cat, "name": name, "pid": PID, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def launch(corr: int, ts: str, dur: str, name: str = "cudaLaunchKernel") -> dict:
    return x(name, ts, dur, cat="cuda_runtime", correlation=corr)


def kernel(corr: int, name: str, ts: str, dur: str, stream: int = 7) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": stream, "correlation": corr}}


def write(path: Path, events: list[dict], rank: int = 0) -> Path:
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 1},
           "deviceProperties": [{"id": 0, "name": "micro"}], "traceEvents": events, "baseTimeNanoseconds": BASE_NS}
    text = json.dumps(doc, indent=1)
    for e in events:
        for key in ("ts", "dur"):
            text = text.replace(f'"{key}": "{e[key]}"', f'"{key}": {e[key]}')
    path.write_text(text)
    return path
