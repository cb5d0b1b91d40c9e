#!/usr/bin/env python3
"""Benchmark: the straggler question on a small Kineto job — tracedb (``tracedb ingest DIR`` then
``tracedb query slow_rank``, two processes, into a fresh database) against HolisticTraceAnalysis
(``TraceAnalysis(trace_dir=DIR).get_potential_stragglers()``, one process), side by side in
alternating pairs (A B A B …), wall and CPU seconds (children included) of each side.

    python bench/stragglers.py --data /work/benchdata/stragglers8 --hta-python /work/venvs/hta/bin/python \\
        --pairs 5 [--before /path/to/older/checkout]

The job: ``../shared/bench/gen_traces.py --format kineto --ranks 8 --steps 10 --events-per-step 1000``
(≈ 3.6 MB per rank), rewritten the way a real NCCL job of the NCCL versions HTA 0.6.1 knows
looks: communication kernels named ``ncclKernel_…`` (the generator writes NCCL ≥ 2.19's
``ncclDevKernel_…``, which HTA's straggler analysis does not look for) on one stream id on every
rank (the generator gives rank r the stream 20 + r; HTA compares a (stream, kernel) across
ranks). ``--before`` adds a third side: the same tracedb commands with an older checkout.
A benchmark, never a test.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GEN = Path(os.environ.get("TRACEDB_SHARED_BENCH", ROOT.parent / "shared" / "bench")) / "gen_traces.py"
HTA = """
import sys
from hta.trace_analysis import TraceAnalysis
print(TraceAnalysis(trace_dir=sys.argv[1]).get_potential_stragglers())
"""


def generate(out: Path, ranks: int) -> Path:
    """The job's traces in ``out``/traces (made once)."""
    traces = out / "traces"
    if len(list(traces.glob("rank*.pt.trace.json"))) == ranks:
        return traces
    raw = out / "raw"
    subprocess.run([sys.executable, str(GEN), "--out", str(raw), "--ranks", str(ranks), "--steps", "10",
                    "--events-per-step", "1000", "--seed", "1", "--format", "kineto"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    traces.mkdir(parents=True, exist_ok=True)
    for path in sorted(glob.glob(str(raw / "kineto" / "rank*.pt.trace.json"))):
        r = int(Path(path).name[4:].split(".")[0])
        d = json.load(open(path))
        gpu = {e["pid"] for e in d["traceEvents"] if e.get("cat") == "kernel"}
        for e in d["traceEvents"]:
            if e.get("pid") in gpu and e.get("tid") == 20 + r:
                e["tid"] = 20
            if isinstance(e.get("args"), dict) and e["args"].get("stream") == 20 + r:
                e["args"]["stream"] = 20
            if isinstance(e.get("name"), str):
                e["name"] = e["name"].replace("ncclDevKernel_", "ncclKernel_")
        with open(traces / f"rank{r}.pt.trace.json", "w") as f:
            json.dump(d, f, indent=1)
    return traces


def timed(cmds: list[list[str]], env: dict, cwd: str) -> tuple[float, float, str]:
    """(wall, CPU of the processes and their children, last stdout) of commands run one after
    another in ``cwd`` (not a checkout: ``python -m`` puts the working folder first on the path)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    out = ""
    for cmd in cmds:
        r = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True, cwd=cwd)
        if r.returncode:
            raise SystemExit(f"failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
        out = r.stdout
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/work/benchdata/stragglers8")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--hta-python", required=True, help="python of a venv with HolisticTraceAnalysis")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--before", help="an older tracedb checkout to time as a third side")
    a = ap.parse_args()
    traces = generate(Path(a.data), a.ranks)
    mb = sum(p.stat().st_size for p in traces.iterdir()) / 1e6
    sides = {"tracedb": str(ROOT)}
    if a.before:
        sides["tracedb (before)"] = str(Path(a.before).resolve())
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in [*sides, "HTA"]}
    answers = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.pairs):
            for name, code in sides.items():
                db = Path(tmp) / f"s{i}-{len(name)}.duckdb"
                py = [sys.executable, "-m", "tracedb.cli"]
                w, c, out = timed([[*py, "-q", "ingest", str(traces), "--db", str(db)],
                                   [*py, "query", "slow_rank", "--db", str(db), "--format", "csv"]],
                                  {"PYTHONPATH": code}, tmp)
                times[name].append((w, c))
                answers[name] = out.splitlines()[:3]
            w, c, out = timed([[a.hta_python, "-c", HTA, str(traces)]], {"HTA_DISABLE_NS_ROUNDING": "1"}, tmp)
            times["HTA"].append((w, c))
            answers["HTA"] = out.strip().splitlines()[-1:]
            print(f"pair {i + 1}: " + ", ".join(f"{k} {v[-1][0]:.2f} s ({v[-1][1]:.2f} CPU)" for k, v in times.items())
                  + f", load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"\n{a.ranks} ranks, {mb:.1f} MB of Kineto traces; medians of {a.pairs} alternating runs:\n")
    print("| side | wall s | CPU s | HTA ÷ side (wall) | HTA ÷ side (CPU) |")
    print("|---|---:|---:|---:|---:|")
    hw = statistics.median(w for w, _ in times["HTA"])
    hc = statistics.median(c for _, c in times["HTA"])
    for k, v in times.items():
        w, c = statistics.median(x for x, _ in v), statistics.median(y for _, y in v)
        print(f"| {k} | {w:.2f} | {c:.2f} | {hw / w:.2f}× | {hc / c:.2f}× |")
    ratios = [h[0] / t[0] for h, t in zip(times["HTA"], times["tracedb"])]
    print(f"\nHTA ÷ tracedb wall, pair by pair: {', '.join(f'{r:.2f}' for r in ratios)}")
    for k, v in answers.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
