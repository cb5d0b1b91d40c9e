#!/usr/bin/env python3
"""Benchmark: tracedb ingest and views against DuckDB's bare read_json and the reference tools.

Generates synthetic traces with ../shared/bench/gen_traces.py into a temporary folder (never
into git), then runs each method as its own process under /usr/bin/time and prints one table:
wall seconds, MB/s of trace bytes, peak RSS, and the ratio to the bare read_json anchor.

    python bench/bench_ingest.py --size 1g            # one 1 GB Ascend rank + 1 GB Kineto
    python bench/bench_ingest.py --size 100m --ranks 2
    python bench/bench_ingest.py --scaling --size 100m  # 1, 2, 4, 8 ranks of 100 MB in one run
    python bench/bench_ingest.py --size 1g --hta      # also HTA load + temporal breakdown
                                                      # (pip-installs HolisticTraceAnalysis into a
                                                      # throwaway venv)
    python bench/bench_ingest.py --size 1g --msprof   # also msprof-analyze compare of two 100 MB
                                                      # Ascend ranks (pip-installs msprof-analyze
                                                      # into a throwaway venv)

Anchors that are not run are taken from ../shared/bench/README.md (measured on this machine
type, 2026-11-22) and marked "(README)". A second table puts each target of issue #5 next to
what this run measured. This is a benchmark, never a test: nothing asserts times.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_BENCH = Path(os.environ.get("TRACEDB_SHARED_BENCH", ROOT.parent / "shared" / "bench"))
SIZES = {  # events per step for 20 steps (Ascend ≈ 187 B/event, Kineto ≈ 317 B/event)
    "100m": (10, 53500, 31500),
    "1g": (20, 267000, 158000),
    "3g": (30, 535000, 0),
}
README_ANCHORS = {  # 1 GB, from shared/bench/README.md
    "HTA load + temporal breakdown, 1 GB Kineto (README)": (146.0, 4.3 * 1024),
    "msprof-analyze compare, two 100 MB Ascend ranks (README)": (292.0, 4.9 * 1024),
}


def timed(cmd: list[str], env=None) -> tuple[float, float, str]:
    """Run cmd under /usr/bin/time; return (wall s, peak RSS MiB, stdout)."""
    fmt = "%e %M"
    res = subprocess.run(["/usr/bin/time", "-f", fmt, *cmd], capture_output=True, text=True, env=env)
    if res.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    wall, rss_kb = res.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss_kb) / 1024, res.stdout


def generate(out: Path, size: str, ranks: int) -> None:
    steps, ascend_eps, kineto_eps = SIZES[size]
    gen = SHARED_BENCH / "gen_traces.py"
    subprocess.run([sys.executable, str(gen), "--out", str(out), "--ranks", str(ranks), "--steps", str(steps),
                    "--events-per-step", str(ascend_eps), "--seed", "1", "--format", "ascend"], check=True)
    if kineto_eps:
        subprocess.run([sys.executable, str(gen), "--out", str(out), "--ranks", "1", "--steps", str(steps),
                        "--events-per-step", str(kineto_eps), "--seed", "1", "--format", "kineto"], check=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=sorted(SIZES), default="100m")
    ap.add_argument("--ranks", type=int, default=1, help="Ascend ranks (ingested as one run)")
    ap.add_argument("--data", help="reuse generated data in this folder (else a temp folder, deleted after)")
    ap.add_argument("--hta", action="store_true", help="also run HTA (installs it into a throwaway venv)")
    ap.add_argument("--msprof", action="store_true",
                    help="also run msprof-analyze compare on two 100 MB Ascend ranks (installs it into a throwaway venv)")
    ap.add_argument("--scaling", action="store_true",
                    help="only the rank-scaling table: one run of 1, 2, 4 and 8 ranks of --size each")
    a = ap.parse_args(argv)
    if a.scaling:
        return scaling(a)
    tmp = Path(tempfile.mkdtemp(prefix="tracedb-bench-"))
    data = Path(a.data) if a.data else tmp / "data"
    try:
        if not (data / "ascend").exists():
            generate(data, a.size, a.ranks)
        ascend = sorted((data / "ascend").iterdir())
        trace0 = ascend[0] / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
        trace_mb = sum((r / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").stat().st_size for r in ascend) / 1e6
        rows = []
        # anchor: DuckDB's bare one-core read_json of one trace_view.json into a file
        bare_db = tmp / "bare.duckdb"
        sql = ("SET threads=1; CREATE TABLE ev AS SELECT * FROM read_json('%s', format='array', columns={ph:'VARCHAR',"
               "name:'VARCHAR',cat:'VARCHAR',pid:'VARCHAR',tid:'VARCHAR',ts:'VARCHAR',dur:'VARCHAR',id:'VARCHAR',"
               "args:'JSON'}); CHECKPOINT;" % trace0)
        wall, rss, _ = timed([sys.executable, "-c", f"import duckdb; duckdb.connect({str(bare_db)!r}).execute({sql!r})"])
        bare_mbs = trace0.stat().st_size / 1e6 / wall
        rows.append(("DuckDB bare read_json, 1 trace_view.json, 1 thread", wall, bare_mbs, rss))
        tracedb = [sys.executable, "-m", "tracedb.cli", "-q"]
        db = tmp / "t.duckdb"
        rank_mb = sum(f.stat().st_size for f in (ascend[0] / "ASCEND_PROFILER_OUTPUT").iterdir()) / 1e6
        wall, rss, _ = timed(tracedb + ["ingest", "--db", str(db), str(ascend[0])])
        one_rank = (wall, rss)
        rows.append((f"tracedb ingest, 1 rank (trace_view + kernel_details, {rank_mb:.0f} MB)", wall,
                     rank_mb / wall, rss))
        if len(ascend) > 1:
            db2 = tmp / "t2.duckdb"
            wall, rss, _ = timed(tracedb + ["ingest", "--db", str(db2), str(data / "ascend")])
            rows.append((f"tracedb ingest, {len(ascend)} ranks in one run", wall, trace_mb / wall, rss))
        view_s = {}
        for view in ("step_breakdown", "free_time", "uncovered_communication", "op_diff", "comm_op", "slow_rank"):
            wall, rss, _ = timed(tracedb + ["query", "--db", str(db), "--format", "csv",
                                            f"SELECT count(*) FROM {view}"])
            view_s[view] = wall
            rows.append((f"tracedb query {view} (count, whole process)", wall, None, rss))
        kineto = data / "kineto" / "rank0.pt.trace.json"
        kineto_run = None
        if kineto.exists():
            kdb = tmp / "k.duckdb"
            wall, rss, _ = timed(tracedb + ["ingest", "--db", str(kdb), str(kineto)])
            rows.append(("tracedb ingest, Kineto object trace", wall, kineto.stat().st_size / 1e6 / wall, rss))
            qwall, qrss, _ = timed(tracedb + ["query", "--db", str(kdb), "--format", "csv", "step_breakdown"])
            kineto_run = (wall + qwall, max(rss, qrss), kineto.stat().st_size / 1e6 / wall)
            rows.append(("tracedb ingest + step_breakdown, Kineto (HTA's job)", wall + qwall, None, max(rss, qrss)))
        hta = README_ANCHORS["HTA load + temporal breakdown, 1 GB Kineto (README)"] + ("README",)
        if a.hta and kineto.exists():
            venv = tmp / "hta-venv"
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "HolisticTraceAnalysis"], check=True)
            wall, rss, _ = timed([str(venv / "bin" / "python"), str(SHARED_BENCH / "anchor_hta.py"), str(kineto.parent)])
            hta = (wall, rss, "this run")
            rows.append(("HTA load + temporal breakdown, Kineto", wall, kineto.stat().st_size / 1e6 / wall, rss))
        msprof = README_ANCHORS["msprof-analyze compare, two 100 MB Ascend ranks (README)"] + ("README",)
        ours_compare = None
        if a.msprof:
            pair = tmp / "pair"
            subprocess.run([sys.executable, str(SHARED_BENCH / "gen_traces.py"), "--out", str(pair), "--ranks", "2",
                            "--steps", "10", "--events-per-step", "53500", "--seed", "1", "--format", "ascend"],
                           check=True, capture_output=True)
            base, comp = sorted((pair / "ascend").iterdir())
            venv = tmp / "msprof-venv"
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "msprof-analyze"], check=True)
            out = tmp / "msprof-out"
            out.mkdir()
            wall, rss, _ = timed([str(venv / "bin" / "msprof-analyze"), "compare", "-d", str(comp), "-bp", str(base),
                                  "-o", str(out)])
            msprof = (wall, rss, "this run")
            rows.append(("msprof-analyze compare, two 100 MB Ascend ranks", wall, None, rss))
            pdb = tmp / "pair.duckdb"
            script = (f"{' '.join(tracedb)} ingest --db {pdb} --run base --role baseline {base} && "
                      f"{' '.join(tracedb)} ingest --db {pdb} --run comp --role comparison {comp} && "
                      f"{' '.join(tracedb)} query --db {pdb} --format csv op_diff > /dev/null")
            wall, rss, _ = timed(["bash", "-c", script])
            ours_compare = (wall, rss)
            rows.append(("tracedb ingest of both + op_diff (msprof-analyze compare's job)", wall, None, rss))
        else:
            rows.append(("msprof-analyze compare, two 100 MB Ascend ranks (README)", msprof[0], None, msprof[1]))
        if not (a.hta and kineto.exists()):
            rows.append(("HTA load + temporal breakdown, 1 GB Kineto (README)", hta[0], None, hta[1]))
        print(f"\n{('data ' + a.data) if a.data else 'size ' + a.size}, {len(ascend)} Ascend rank(s), trace_view.json {trace0.stat().st_size / 1e6:.0f} MB each, "
              f"{os.cpu_count()} cores\n")
        print(f"| method | wall s | MB/s | peak RSS MiB | MB/s ÷ bare read_json |")
        print("|---|---:|---:|---:|---:|")
        for name, wall, mbs, rss in rows:
            ratio = f"{mbs / bare_mbs:.2f}" if mbs else ""
            print(f"| {name} | {wall:.1f} | {mbs:.0f} | {rss:.0f} | {ratio} |" if mbs else
                  f"| {name} | {wall:.1f} | | {rss:.0f} | |")
        # the targets of issue #5 against this run
        targets = [("1 Ascend rank ingest ÷ bare one-core read_json (MB/s)", "≥ 1.5×",
                    f"{rank_mb / one_rank[0] / bare_mbs:.2f}×")]
        targets.append(("peak RSS of any ingest", "≤ 1536 MiB", f"{max(r[3] for r in rows if r[0].startswith('tracedb')):.0f} MiB"))
        if kineto_run:
            targets.append(("Kineto object trace ingest", "≥ 50 MB/s", f"{kineto_run[2]:.0f} MB/s"))
            targets.append((f"HTA ({hta[2]}) ÷ tracedb ingest + step_breakdown", "≥ 10×", f"{hta[0] / kineto_run[0]:.1f}×"))
        if ours_compare:
            targets.append(("msprof-analyze compare ÷ tracedb ingest + op_diff", "≥ 10×",
                            f"{msprof[0] / ours_compare[0]:.1f}×"))
        targets.append((f"slowest view on one {a.size} rank (whole process)", "≤ 5 s", f"{max(view_s.values()):.1f} s"))
        print("\n| target (issue #5) | wanted | this run |\n|---|---|---|")
        for t in targets:
            print("| %s | %s | %s |" % t)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def scaling(a) -> int:
    """Ingest 1, 2, 4 and 8 ranks as one run each; cost should grow linearly in total bytes."""
    tmp = Path(tempfile.mkdtemp(prefix="tracedb-bench-"))
    data = Path(a.data) if a.data else tmp / "data"
    try:
        if len(list((data / "ascend").glob("*_ascend_pt"))) < 8:
            shutil.rmtree(data, ignore_errors=True)
            steps, ascend_eps, _ = SIZES[a.size]
            subprocess.run([sys.executable, str(SHARED_BENCH / "gen_traces.py"), "--out", str(data), "--ranks", "8",
                            "--steps", str(steps), "--events-per-step", str(ascend_eps), "--seed", "1",
                            "--format", "ascend"], check=True)
        ranks = sorted((data / "ascend").glob("*_ascend_pt"))
        print(f"\nrank scaling: {a.size} per rank, {os.cpu_count()} cores\n")
        print("| ranks | input MB | wall s | MB/s | peak RSS MiB | s per GB |")
        print("|---:|---:|---:|---:|---:|---:|")
        for n in (1, 2, 4, 8):
            run = tmp / f"run{n}"
            run.mkdir()
            for r in ranks[:n]:
                (run / r.name).symlink_to(r)
            mb = sum(f.stat().st_size for r in ranks[:n] for f in (r / "ASCEND_PROFILER_OUTPUT").iterdir()) / 1e6
            wall, rss, _ = timed([sys.executable, "-m", "tracedb.cli", "-q", "ingest", "--db",
                                  str(tmp / f"s{n}.duckdb"), str(run)])
            print(f"| {n} | {mb:.0f} | {wall:.1f} | {mb / wall:.0f} | {rss:.0f} | {wall / mb * 1000:.1f} |")
            (tmp / f"s{n}.duckdb").unlink()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
