#!/usr/bin/env python3
"""Benchmark: one rank ingested at each DuckDB storage version × compression choice.

For every cell: ingest wall time and peak RSS (its own process, /usr/bin/time), the file size
after the final CHECKPOINT, `tracedb query step_breakdown` time, and which DuckDB versions
open the file read-only (a table and a view selected): Python wheels installed with
``pip install --target /tmp/duckdb-X duckdb==X`` and the DuckDB CLI.

    pip install --target /tmp/duckdb-1.0.0 duckdb==1.0.0     # … 1.1.3 1.2.2 1.3.2 1.4.3 1.5.2
    python bench/storage_matrix.py --rank /work/benchdata/ascend/rank0_…_ascend_pt \\
        --out /tmp/matrix --wheels /tmp/duckdb-*

Compression: ``dictionary`` = the ``USING COMPRESSION dictionary`` hints of schema/020 (DuckDB
writes it up to storage v1.2.0 only), ``none`` = no hints (DuckDB chooses per segment),
``dict_fsst`` = the hints rewritten to dict_fsst (v1.3.0 on). Single runs: use farm-bench
pairs for ratios (RESULTS.md). A benchmark, never a test.
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CELLS = [("v1.0.0", "dictionary"), ("v1.0.0", "none"), ("v1.2.0", "dictionary"), ("v1.2.0", "none"),
         ("v1.3.0", "none"), ("v1.3.0", "dict_fsst"), ("v1.4.0", "none"), ("v1.5.0", "none"),
         ("v1.5.0", "dict_fsst"), ("latest", "none"), ("latest", "dict_fsst")]
INGEST = ("import sys, tracedb.store.schema as s; s.COMPRESSION = sys.argv[1]; from tracedb import api; "
          "api.ingest([sys.argv[2]], db=sys.argv[3], storage_version=sys.argv[4], run='r', threads=None)")
OPEN = ("import sys, duckdb; c = duckdb.connect(sys.argv[1], read_only=True); "
        "c.execute('SELECT count(*) FROM event').fetchone(); "
        "c.execute('SELECT count(*) FROM step_breakdown').fetchone(); print(duckdb.__version__)")


def timed(cmd: list[str], env=None) -> tuple[float, float, float]:
    """(wall s, CPU s = user + system, peak RSS MiB) of cmd."""
    res = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", *cmd], capture_output=True, text=True, env=env,
                         cwd=ROOT)
    if res.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    wall, user, system, rss = res.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(rss) / 1024


def opens(db: Path, wheel: str) -> str:
    env = dict(os.environ, PYTHONPATH=wheel)
    res = subprocess.run([sys.executable, "-c", OPEN, str(db)], capture_output=True, text=True, env=env)
    if res.returncode == 0:
        return "yes"
    err = res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "?"
    return "table only" if "step_breakdown" in err or "Binder" in err or "Catalog" in err else "no"


def cli_opens(db: Path, cli: str) -> str:
    res = subprocess.run([cli, "-readonly", str(db), "-c", "SELECT count(*) FROM event; "
                          "SELECT count(*) FROM step_breakdown;"], capture_output=True, text=True)
    return "yes" if res.returncode == 0 else "no"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rank", required=True)
    ap.add_argument("--out", default="/tmp/tracedb-storage-matrix")
    ap.add_argument("--wheels", nargs="*", default=sorted(glob.glob("/tmp/duckdb-*")))
    ap.add_argument("--cli", default=str(Path(sys.executable).parent / "duckdb"))
    ap.add_argument("--cells", nargs="*", help="storage:compression, e.g. v1.0.0:dictionary")
    ap.add_argument("--keep", action="store_true", help="keep the database files")
    args = ap.parse_args()
    cells = [tuple(c.split(":")) for c in args.cells] if args.cells else CELLS
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wheels = sorted(args.wheels, key=lambda w: [int(x) for x in w.rsplit("-", 1)[1].split(".")])
    names = [f"py {w.rsplit('-', 1)[1]}" for w in wheels] + ["CLI"]
    print("| storage | compression | ingest wall s | ingest CPU s | peak RSS MiB | file MiB | step_breakdown s | "
          + " | ".join(names) + " |", flush=True)
    print("|---|---|---:|---:|---:|---:|---:|" + "---|" * len(names), flush=True)
    for storage, compression in cells:
        db = out / f"{storage}_{compression}.duckdb"
        for p in (db, Path(str(db) + ".wal")):
            if p.exists():
                p.unlink()
        wall, cpu, rss = timed([sys.executable, "-c", INGEST, compression, args.rank, str(db), storage])
        size = db.stat().st_size / 2**20
        qwall, _, _ = timed([sys.executable, "-m", "tracedb.cli", "query", "step_breakdown", "--db", str(db)])
        who = [opens(db, w) for w in wheels] + [cli_opens(db, args.cli)]
        print(f"| {storage} | {compression} | {wall:.1f} | {cpu:.1f} | {rss:.0f} | {size:.0f} | {qwall:.2f} | "
              + " | ".join(who) + " |", flush=True)
        if not args.keep:
            db.unlink()
    shutil.rmtree(out, ignore_errors=True) if not args.keep else None


if __name__ == "__main__":
    main()
