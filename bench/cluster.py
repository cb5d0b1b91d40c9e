#!/usr/bin/env python3
"""Benchmark: a cluster of N Ascend ranks — ingest wall, MB/s against DuckDB's bare one-core
read_json of the same trace files, peak RSS, every cross-rank view.

Generates synthetic ranks with ../shared/bench/gen_traces.py into --data (never into git;
skipped when already there), and for each set:

* the anchor: DuckDB's bare one-core ``read_json`` of all its trace_view.json files in one call
  (typed columns, into a database file, CHECKPOINT; its own process), run right before the
  ingest, back to back, so both see the same machine;
* ``tracedb ingest FOLDER`` into a fresh database (its own process), with DuckDB's default
  threads and, with ``--one-thread``, again with ``--threads 1``;
* with ``--check``, the same ingest rank by rank (the per-rank path,
  ``TRACEDB_INGEST_PER_RANK=1``) and a hash of every table of both databases
  (bench/table_hash.py): identical or the tables that differ;
* unless ``--no-views``, every cross-rank view as ``tracedb query VIEW --format csv``.

CPU seconds are the children's rusage (worker processes included); peak RSS is the peak of
the SUM over the command's process tree, sampled every 0.1 s from /proc. The ratio is tracedb's
MB/s over the whole input (trace_view + kernel_details + the small files) ÷ the anchor's MB/s
over its trace_view files; "wall ratio" is the anchor's wall ÷ tracedb's (same work, no bytes).

    python bench/cluster.py --ranks 8 32 64 128 --events-per-step 13400 48000 \\
        --data /work/benchdata/cluster --subsets --one-thread --check --no-views

``--events-per-step`` sets the rank size: 13400 ≈ 28 MB, 24000 ≈ 50 MB, 48000 ≈ 100 MB per rank.
``--subsets``: generate the largest N once and make the smaller sets of its first ranks (hard
links, no extra disk); without it each N is generated on its own (the generator's communication
groups depend on N). The commands run in this script's checkout (``python -m tracedb.cli`` with that working
directory, which comes first on the path): to time an older checkout, run *its*
``bench/cluster.py`` (a PYTHONPATH pointing elsewhere does not apply). A benchmark, never a
test: nothing asserts times.
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
ANCHOR = """
import duckdb, glob, sys
files = sorted(glob.glob(sys.argv[1] + '/*/ASCEND_PROFILER_OUTPUT/trace_view.json'))
con = duckdb.connect(sys.argv[2], config={'threads': 1})
con.execute("CREATE TABLE ev AS SELECT * FROM read_json(?, format='array', columns={ph:'VARCHAR',name:'VARCHAR',"
            "cat:'VARCHAR',pid:'VARCHAR',tid:'VARCHAR',ts:'VARCHAR',dur:'VARCHAR',id:'VARCHAR',args:'JSON'})", [files])
con.execute('CHECKPOINT')
"""


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


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s = user + system of the process and its children, peak RSS MiB of the
    process tree's sum) of cmd, stdout thrown away. On a shared, overloaded machine the CPU
    seconds are the steadier figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT,
                                env=None if env is None else {**os.environ, **env})
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
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return ascend


def subset(full: Path, folder: Path, ranks: int) -> Path:
    """``folder``/ascend holding the first ``ranks`` rank folders of ``full`` (hard links)."""
    ascend = folder / "ascend"
    if ascend.is_dir() and len(list(ascend.glob("rank*_ascend_pt"))) == ranks:
        return ascend
    ascend.mkdir(parents=True, exist_ok=True)
    for r in range(ranks):
        src = next(full.glob(f"rank{r}_*_ascend_pt"))
        subprocess.run(["cp", "-al", str(src), str(ascend)], check=True)
    return ascend


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, nargs="+", default=[8, 32, 64, 128])
    ap.add_argument("--data", default="/work/benchdata/cluster",
                    help="where the generated ranks go (r<N>-<events per step>/)")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--events-per-step", type=int, nargs="+", default=[24000],
                    help="rank sizes: 13400 ≈ 28 MB, 24000 ≈ 50 MB, 48000 ≈ 100 MB per rank")
    ap.add_argument("--subsets", action="store_true", help="smaller sets are the first ranks of the largest")
    ap.add_argument("--subsets-of", type=int, default=None,
                    help="with --subsets: the ranks of the full set (default: the largest of --ranks)")
    ap.add_argument("--db-dir", default=None, help="folder for the databases (default: a temporary one)")
    ap.add_argument("--ingest-args", default="", help="extra tracedb ingest options, e.g. '--jobs 2'")
    ap.add_argument("--one-thread", action="store_true", help="also ingest with --threads 1")
    ap.add_argument("--check", action="store_true", help="also ingest rank by rank and compare every table")
    ap.add_argument("--no-views", action="store_true", help="skip the views")
    args = ap.parse_args()
    py = [sys.executable, "-m", "tracedb.cli"]
    sys.path.insert(0, str(ROOT / "bench"))
    from table_hash import differing
    print("| MB/rank | ranks | GB | anchor wall / CPU s | anchor MB/s | ingest wall / CPU s | MB/s | ratio (MB/s) | "
          "wall ratio | peak RSS MiB | 1 thread: wall / CPU s, MB/s, ratio | per-rank path: wall / CPU s | "
          "tables | load |", flush=True)
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---:|", flush=True)
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        for eps in args.events_per_step:
            top = args.subsets_of or max(args.ranks)
            full = generate(Path(args.data) / f"r{top}-{eps}", top, args.steps, eps) if args.subsets else None
            for n in args.ranks:
                if full is None:
                    folder = generate(Path(args.data) / f"r{n}-{eps}", n, args.steps, eps)
                elif n == top:
                    folder = full
                else:
                    folder = subset(full, Path(args.data) / f"sub{n}-{eps}", n)
                files = [p for p in folder.rglob("*") if p.is_file()]
                size = sum(p.stat().st_size for p in files)
                trace = sum(p.stat().st_size for p in files if p.name == "trace_view.json")
                load = os.getloadavg()[0]
                bare = Path(tmp) / "bare.duckdb"
                aw, ac, _ = timed([sys.executable, "-c", ANCHOR, str(folder), str(bare)])
                bare.unlink()
                anchor = trace / 1e6 / aw
                db = Path(tmp) / f"c{n}.duckdb"
                wall, cpu, rss = timed([*py, "-q", "ingest", str(folder), "--db", str(db), "--run", f"c{n}",
                                        *args.ingest_args.split()])
                one = ""
                if args.one_thread:
                    db1 = Path(tmp) / f"c{n}-1.duckdb"
                    w1, c1, _ = timed([*py, "-q", "ingest", str(folder), "--db", str(db1), "--run", f"c{n}",
                                       "--threads", "1", *args.ingest_args.split()])
                    db1.unlink()
                    one = f"{w1:.1f} / {c1:.1f}, {size / 1e6 / w1:.0f}, {size / w1 / (trace / aw):.2f}×"
                per_rank, same = "", ""
                if args.check:
                    dbr = Path(tmp) / f"c{n}-rank.duckdb"
                    wr, cr, _ = timed([*py, "-q", "ingest", str(folder), "--db", str(dbr), "--run", f"c{n}",
                                       *args.ingest_args.split()], env={"TRACEDB_INGEST_PER_RANK": "1"})
                    per_rank = f"{wr:.1f} / {cr:.1f}"
                    diff = differing(str(db), str(dbr))
                    same = "identical" if not diff else "differ: " + ", ".join(diff)
                    dbr.unlink()
                load = max(load, os.getloadavg()[0])
                print(f"| {size / n / 1e6:.0f} | {n} | {size / 1e9:.2f} | {aw:.1f} / {ac:.1f} | {anchor:.0f} | "
                      f"{wall:.1f} / {cpu:.1f} | {size / 1e6 / wall:.0f} | {size / 1e6 / wall / anchor:.2f}× | "
                      f"{aw / wall:.2f}× | {rss:.0f} | {one} | {per_rank} | {same} | {load:.1f} |", flush=True)
                if not args.no_views:
                    times = []
                    for view in VIEWS:
                        t, c, r = timed([*py, "query", view, "--db", str(db), "--format", "csv"])
                        times.append(f"{view} {t:.1f} / {c:.1f} s ({r:.0f} MiB)")
                    print("  views: " + "; ".join(times), flush=True)
                db.unlink()


if __name__ == "__main__":
    main()
