#!/usr/bin/env python3
"""Benchmark: a cluster of N Ascend ranks — ingest wall, MB/s, peak RSS, every cross-rank view.

Generates N synthetic ranks with ../shared/bench/gen_traces.py (one set per N: the generator's
communication groups depend on N) into --data (never into git; skipped when already there),
ingests each set as one run into a fresh database (`tracedb ingest FOLDER`, its own process) and
runs every cross-rank view as `tracedb query VIEW --format csv` (its own process: start-up
included, rows rendered and thrown away). CPU seconds are the children's rusage (worker
processes of `--jobs N` included); peak RSS is the peak of the SUM over the command's process
tree, sampled every 0.1 s from /proc (with `--jobs N` the main process and its workers together).

    python bench/cluster.py --ranks 8 32 64 128 --data /work/benchdata/cluster \\
        --steps 10 --events-per-step 24000        # ≈ 50 MB per rank (trace_view + kernel_details)

Each set goes into ``DATA/r<N>-<events per step>``, so sets of another size are never reused.

A benchmark, never a test: nothing asserts times.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GEN = Path(os.environ.get("TRACEDB_SHARED_BENCH", ROOT.parent / "shared" / "bench")) / "gen_traces.py"
VIEWS = ["step_breakdown", "slow_rank", "comm_wait_cross_rank", "slow_link", "comm_matrix",
         "comm_matrix_summary", "comm_bandwidth", "comm_op", "comm_op_check"]


def _tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and every descendant (from /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(d))
            rss[int(d)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total


def timed(cmd: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s = user + system of the process and its children, peak RSS MiB of the
    process tree's sum) of cmd, stdout thrown away. On a shared, overloaded machine the CPU
    seconds are the steadier figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.1)
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"failed: {' '.join(cmd)}\n{err.read().decode()[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, peak / 2**20


def generate(folder: Path, ranks: int, steps: int, eps: int) -> Path:
    ascend = folder / "ascend"
    if not (ascend.is_dir() and len(list(ascend.glob("rank*_ascend_pt"))) == ranks):
        subprocess.run([sys.executable, str(GEN), "--out", str(folder), "--ranks", str(ranks), "--steps", str(steps),
                        "--events-per-step", str(eps), "--seed", "1", "--format", "ascend"], check=True,
                       stdout=subprocess.DEVNULL)
    return ascend


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, nargs="+", default=[8, 32, 64, 128])
    ap.add_argument("--data", default="/work/benchdata/cluster", help="where the generated ranks go (r<N>-<events per step>/)")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--events-per-step", type=int, default=24000,
                    help="the rank size: 24000 gives ≈ 50 MB per rank (trace_view.json 44.8 MB + kernel_details.csv)")
    ap.add_argument("--db-dir", default=None, help="folder for the databases (default: a temporary one)")
    ap.add_argument("--ingest-args", default="", help="extra tracedb ingest options, e.g. '--jobs 2'")
    args = ap.parse_args()
    py = [sys.executable, "-m", "tracedb.cli"]
    print("| ranks | GB | ingest wall s | ingest CPU s | MB/s (wall) | MB/s (CPU) | ingest peak RSS MiB | db MiB | "
          + " | ".join(f"{v} wall / CPU s" for v in VIEWS) + " | view peak RSS MiB | load avg |", flush=True)
    print("|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * (len(VIEWS) + 2), flush=True)
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        for n in args.ranks:
            folder = generate(Path(args.data) / f"r{n}-{args.events_per_step}", n, args.steps, args.events_per_step)
            size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
            db = Path(tmp) / f"c{n}.duckdb"
            load = os.getloadavg()[0]
            wall, cpu, rss = timed([*py, "-q", "ingest", str(folder), "--db", str(db), "--run", f"c{n}",
                               *args.ingest_args.split()])
            times, peak = [], 0.0
            for view in VIEWS:
                t, c, r = timed([*py, "query", view, "--db", str(db), "--format", "csv"])
                times.append(f"{t:.1f} / {c:.1f}")
                peak = max(peak, r)
            load = max(load, os.getloadavg()[0])
            print(f"| {n} | {size / 1e9:.2f} | {wall:.1f} | {cpu:.1f} | {size / 1e6 / wall:.0f} | {size / 1e6 / cpu:.0f} | "
                  f"{rss:.0f} | {db.stat().st_size / 2**20:.0f} | " + " | ".join(times)
                  + f" | {peak:.0f} | {load:.0f} |", flush=True)
            db.unlink()


if __name__ == "__main__":
    main()
