"""Micro inputs for the summary and report tests, drawn by hand (µs after BASE_NS), and the one
database the tests of this folder share (:func:`shared`, built once per session).

Kineto run "micro" — one host thread, stream 7, two steps of 1000 µs (t0 = 0, 1000):
  ProfilerStep#s                     [t0, t0+1000)
  DataLoader fetch (single process)  [t0, t0+400)            → 40 % of each step: input-bound
  aten::copy_ [t0+400, t0+425) ⊃ cudaMemcpyAsync [t0+401, t0+421) → Memcpy HtoD (Pageable -> Device)
      [t0+405, t0+409), 10 000 000 bytes: a pageable copy blocking the host 20 µs (2 % of the step)
  aten::mm [t0+430, t0+440), Input Dims [[8, 16], [16, 32]] in step 1, [[8, 17], [17, 32]] in step 2
      ⊃ cudaLaunchKernel [t0+431, t0+436) → volta_sgemm [t0+440, t0+700)
  Optimizer.zero_grad#SGD.zero_grad [t0+710, t0+790) ⊃ 4 × aten::fill_ [t0+712+15i, +10)
      ⊃ cudaLaunchKernel [t0+713+15i, +8) → fill kernel [t0+800+3i, +2), i = 0..3: short (2 < 8)
      and back to back → one fusion candidate per step: launches 4 × 8 = 32, saving 32 − 8 = 24 µs,
      gaps 3 × 1 = 3 µs.
Stream 7's gaps (HTA rule: host wait when the launch starts after the previous end, else kernel wait
under 30 µs): step 1: 409→440 (31, launch 431 > 409: host), 700→800 (100, launch 713 > 700: host),
3 × 1 µs (launches before: kernel wait); step 2: 811→1405 (594, launch 1401: host; the launch
thread was in the DataLoader fetch [1000, 1400) for 400 µs of it), 31, 100, 3 × 1 the same.
Host wait = 31 + 100 + 594 + 31 + 100 = 856 µs, kernel wait 6 µs: stream idle 862 µs of the capture
405 → 1811 = 1406 µs (61 %), 99 % of it host wait.

MindSpore run "ms" — step_trace_raw (10 ns ticks), pipeline profile, device queue and CPU file:
  step 2's iteration interval 1 ms of a 2 ms step (input-bound above 0.5 ms); steps 1, 3 not;
  pipeline DeviceQueueOp 0 ← BatchOp 1 ← MapOp 2 (1 worker) ← ImageFolderOp 3: MapOp's queue is
  empty while its input holds data in the 3 samples where the device's queue is empty → MapOp is
  the producer to blame; the device queue found 0, 0, 3 batches → empty 2/3.
  CPU: MapOp (op 2) user 80, 90, 100 % → 90 % per worker with 1 worker (above 75 %).
"""
from __future__ import annotations

import json
from pathlib import Path

from conftest import FIXTURES, ingest_paths, ingested
from minddata_micro import write_minddata

BASE_NS = 1_700_000_000_000_000_000
PID = TID = 4000
US = 1000
DL = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >()"
GEMM = "volta_sgemm_128x64_nn"
COPY = "Memcpy HtoD (Pageable -> Device)"
COPY_BYTES = 10_000_000


def _x(name, ts, dur, cat="cpu_op", **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": PID, "tid": TID, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def _gpu(cat, name, ts, dur, corr, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr, **args}}


def kineto_events() -> list[dict]:
    events, corr = [], 0
    for s, dims in ((1, [[8, 16], [16, 32]]), (2, [[8, 17], [17, 32]])):
        t0 = (s - 1) * 1000
        corr += 10
        events += [_x(f"ProfilerStep#{s}", t0, 1000, cat="user_annotation"), _x(DL, t0, 400),
                   _x("aten::copy_", t0 + 400, 25),
                   _x("cudaMemcpyAsync", t0 + 401, 20, cat="cuda_runtime", correlation=corr),
                   _gpu("gpu_memcpy", COPY, t0 + 405, 4, corr, bytes=COPY_BYTES),
                   _x("aten::mm", t0 + 430, 10, **{"Input Dims": dims}),
                   _x("cudaLaunchKernel", t0 + 431, 5, cat="cuda_runtime", correlation=corr + 1),
                   _gpu("kernel", GEMM, t0 + 440, 260, corr + 1),
                   _x("Optimizer.zero_grad#SGD.zero_grad", t0 + 710, 80, cat="user_annotation")]
        for i in range(4):
            events += [_x("aten::fill_", t0 + 712 + 15 * i, 10),
                       _x("cudaLaunchKernel", t0 + 713 + 15 * i, 8, cat="cuda_runtime", correlation=corr + 2 + i),
                       _gpu("kernel", FILL, t0 + 800 + 3 * i, 2, corr + 2 + i)]
    return events


def write_kineto(path: Path) -> Path:
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
           "deviceProperties": [{"id": 0, "name": "micro"}], "traceEvents": kineto_events(),
           "baseTimeNanoseconds": BASE_NS}
    path.write_text(json.dumps(doc, indent=1))
    return path


CPU = {"cpu_processor_num": 8,
       "device_info": {"user_utilization": [40, 50, 60], "sys_utilization": [5, 6, 7], "io_utilization": [1, 1, 4],
                       "idle_utilization": [54, 43, 29]},
       "process_info": {"user_utilization": [300, 330, 360], "sys_utilization": [30, 30, 30]},
       "op_info": [{"op_id": 2, "metrics": {"user_utilization": [80, 90, 100], "sys_utilization": [0, 0, 0]}}],
       "sampling_interval": 10, "time_stamp": [1000, 1010, 1020]}


def write_mindspore(folder: Path) -> Path:
    write_minddata(folder)
    (folder / "minddata_cpu_utilization_0.json").write_text(json.dumps(CPU))
    return folder


def build(tmp: Path) -> Path:
    """level1 (2 NPU ranks, baseline) and its 2024 capture (comparison), the Kineto micro run and
    the MindSpore micro run, in one database."""
    db = tmp / "findings.duckdb"
    ingested(db, FIXTURES / "ascend/level1", role="baseline")
    ingest_paths(db, FIXTURES / "ascend/level1_2024_rank0_ascend_pt", role="comparison")
    ingest_paths(db, write_kineto(tmp / "micro.pt.trace.json"), run="micro")
    ingest_paths(db, write_mindspore(tmp / "ms" / "profiler"), run="ms")
    return db


_SHARED: dict[str, Path] = {}


def shared(tmp_path_factory) -> Path:
    """The database of :func:`build`, built once per test session."""
    if "db" not in _SHARED:
        _SHARED["db"] = build(tmp_path_factory.mktemp("findings"))
    return _SHARED["db"]
