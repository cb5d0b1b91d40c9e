#!/usr/bin/env python3
"""Benchmark: a cluster of N Ascend ranks — ingest wall, MB/s, peak RSS, every cross-rank view.

Generates N synthetic ranks with ../shared/bench/gen_traces.py (one set per N: the generator's
communication groups depend on N) into --data (never into git; skipped when already there),
ingests each set as one run into a fresh database (`tracedb ingest FOLDER`, its own process under
/usr/bin/time) and runs every cross-rank view as `tracedb query VIEW --format csv` (its own
process: start-up included, rows rendered and thrown away).

    python bench/cluster.py --ranks 8 32 64 128 --data /work/benchdata/cluster \\
        --steps 10 --events-per-step 21000        # ≈ 42 MB per rank (trace_view + kernel_details)

A benchmark, never a test: nothing asserts times.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GEN = Path(os.environ.get("TRACEDB_SHARED_BENCH", ROOT.parent / "shared" / "bench")) / "gen_traces.py"
VIEWS = ["step_breakdown", "slow_rank", "comm_wait_cross_rank", "slow_link", "comm_matrix",
         "comm_matrix_summary", "comm_bandwidth", "comm_op", "comm_op_check"]


def timed(cmd: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s = user + system, peak RSS MiB) of cmd, stdout thrown away. On a shared,
    overloaded machine the CPU seconds are the steadier figure."""
    res = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", *cmd], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT)
    if res.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    wall, user, system, rss = res.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(rss) / 1024


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
    ap.add_argument("--data", default="/work/benchdata/cluster", help="where the generated ranks go (r<N>/)")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--events-per-step", type=int, default=21000)
    ap.add_argument("--db-dir", default=None, help="folder for the databases (default: a temporary one)")
    ap.add_argument("--ingest-args", default="", help="extra tracedb ingest options, e.g. '--threads 2'")
    args = ap.parse_args()
    py = [sys.executable, "-m", "tracedb.cli"]
    print("| ranks | GB | ingest wall s | ingest CPU s | MB/s (wall) | MB/s (CPU) | ingest peak RSS MiB | db MiB | "
          + " | ".join(f"{v} wall / CPU s" for v in VIEWS) + " | view peak RSS MiB | load avg |", flush=True)
    print("|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * (len(VIEWS) + 2), flush=True)
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        for n in args.ranks:
            folder = generate(Path(args.data) / f"r{n}", n, args.steps, args.events_per_step)
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
