"""The comparison job, tracedb against msprof-analyze ``compare``, back to back on the same pairs.

For each pair (baseline, comparison) it runs, one after the other, as separate processes:

- ``tracedb compare BASELINE_PATH COMPARISON_PATH --db FRESH.duckdb`` (one process: ingest of
  both sides, roles, alignment, overall_comparison and op_diff printed);
- ``msprof-analyze compare -d COMPARISON -bp BASELINE -o OUT`` (its xlsx is checked: the file
  exists and its sheets and row counts are printed, so a run that skipped work shows).

tracedb is this checkout installed with ``pip install`` into a throwaway venv (as the README
installs it; ``--tracedb`` names another command), msprof-analyze the PyPI release in its own.
Wall, CPU (user + system) and peak RSS come from the operating system's accounting of each
finished child (``os.wait4``). Pairs:

- ``20m`` / ``100m``: synthetic Ascend ranks from ``../shared/bench/gen_traces.py`` (trace_view.json
  of ~20 / ~100 MB + kernel_details.csv), baseline ``--seed 1``, comparison ``--seed 2`` (different
  op sequences and durations, so the alignment has gaps), generated once under ``--data``;
- ``corpus-npu``: the corpus torch_npu level1 export, rank 0 against rank 1;
- ``corpus-gpu``: the corpus Kineto resnet50 trace ``worker0.pt.trace.json`` (gunzipped into
  ``--data``: msprof-analyze refuses .gz) against the level1 rank 0.

msprof-analyze and openpyxl (which reads its xlsx back) go into their own venv first::

    python -m venv /tmp/venv-msprof && /tmp/venv-msprof/bin/pip install msprof-analyze openpyxl

Usage (from the repository root, ``../shared`` beside it)::

    python bench/compare_bench.py --data /work/benchdata/pairs --repeat 3
    python bench/compare_bench.py --pairs corpus-npu,corpus-gpu --repeat 5

Generated data and outputs stay outside git (``--data``, a temporary folder).
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
LEVEL1 = CORPUS / "msinsight/test/data/pytorch/text/level1"
KINETO = CORPUS / "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz"
SIZES = {"20m": 10_700, "100m": 53_500}          # --events-per-step for 10 steps


# Both tools run as installed packages do: with their modules' bytecode cached. pip compiles
# it at install (tracedb is installed from this checkout, see install_tracedb); a --tracedb
# command from a checkout gets its own on the warm-up run, which PYTHONDONTWRITEBYTECODE (set
# in some sandboxes) would otherwise prevent, making Python compile ~60 modules from source on
# every timed run (~0.1 s).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def install_tracedb(tmp: Path) -> list[str]:
    """The ``tracedb`` command of this checkout installed as the README installs it
    (``pip install .``, its dependencies from the package index) into a throwaway venv, as
    msprof-analyze is installed from PyPI into its own. A development (editable) install is
    not what users run: it imports tracedb through a path finder, ~10 ms of each process.

    pip builds in the source tree, and setuptools packs everything in its ``build/lib``: a
    ``build/`` left by an earlier install of the checkout carries the SQL files renamed or
    removed since (a checkout installed before derive/100 and 120 were split ran both old
    steps as well, 7 % of the corpus comparison). The checkout is installed from a copy
    without ``build/``, as from a fresh clone."""
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", ".git", "__pycache__"))
    venv = tmp / "venv-tracedb"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(src)], check=True, env=ENV)
    return [str(venv / "bin" / "tracedb")]


def run(cmd: list[str], stdout=subprocess.DEVNULL) -> dict:
    """Run one process; wall, CPU and peak RSS of it (and its children) from wait4."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, env=ENV)
    # wait4 reaps the child; read stderr first so a chatty child cannot block on a full pipe
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mib": ru.ru_maxrss / 1024,
            "rc": p.returncode, "stderr": err.decode(errors="replace")}


def ascend_pair(data: Path, size: str) -> tuple[Path, Path]:
    sides = []
    for seed in (1, 2):
        out = data / size / f"seed{seed}"
        if not (out / "ascend").exists():
            subprocess.run([sys.executable, str(SHARED / "bench/gen_traces.py"), "--out", str(out), "--ranks", "1",
                            "--steps", "10", "--events-per-step", str(SIZES[size]), "--seed", str(seed),
                            "--format", "ascend"], check=True, capture_output=True)
        sides.append(next((out / "ascend").iterdir()))
    return sides[0], sides[1]


def gpu_trace(data: Path) -> Path:
    """The Kineto trace gunzipped; given as the file (msprof-analyze does not recognise the
    folder of a single trace as a PyTorch profiling path)."""
    folder = data / "corpus-gpu"
    trace = folder / KINETO.name.removesuffix(".gz")
    if not trace.exists():
        folder.mkdir(parents=True, exist_ok=True)
        with gzip.open(KINETO) as fin, open(trace, "wb") as fout:
            shutil.copyfileobj(fin, fout)
    return trace


def pairs(data: Path, names: list[str]) -> dict[str, tuple[Path, Path]]:
    out = {}
    for name in names:
        if name in SIZES:
            out[name] = ascend_pair(data, name)
        elif name == "corpus-npu":
            out[name] = (LEVEL1 / "rank0_ascend_pt", LEVEL1 / "rank1_ascend_pt")
        elif name == "corpus-gpu":
            out[name] = (gpu_trace(data), LEVEL1 / "rank0_ascend_pt")
        else:
            raise SystemExit(f"unknown pair {name!r}: one of {', '.join([*SIZES, 'corpus-npu', 'corpus-gpu'])}")
    return out


def mib(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20 if path.is_dir() \
        else path.stat().st_size / 2**20


def xlsx_sheets(msprof: Path, out: Path) -> str:
    """The sheets of msprof-analyze's xlsx with their row counts, or why there is none."""
    files = sorted(out.glob("*.xlsx"))
    if not files:
        return "NO xlsx written"
    py = msprof.parent / "python"
    code = ("import openpyxl, sys; wb = openpyxl.load_workbook(sys.argv[1], read_only=True); "
            "print(', '.join(f'{ws.title} {ws.max_row - 1}' for ws in wb.worksheets))")
    res = subprocess.run([str(py), "-c", code, str(files[-1])], capture_output=True, text=True)
    return res.stdout.strip() or res.stderr.strip().splitlines()[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("/work/benchdata/pairs"),
                    help="where generated pairs live (outside git)")
    ap.add_argument("--pairs", default="20m,100m,corpus-npu,corpus-gpu")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each tool per pair (median quoted)")
    ap.add_argument("--msprof", type=Path, default=Path("/tmp/venv-msprof/bin/msprof-analyze"),
                    help="msprof-analyze of a venv that also has openpyxl, which reads its xlsx back "
                         "(pip install msprof-analyze openpyxl)")
    ap.add_argument("--no-msprof", action="store_true", help="time tracedb only")
    ap.add_argument("--tracedb", default=None,
                    help="the tracedb command (split on spaces; default: this checkout installed into a "
                         "throwaway venv, see install_tracedb)")
    a = ap.parse_args()
    chosen = pairs(a.data, a.pairs.split(","))
    rows = []
    with tempfile.TemporaryDirectory(prefix="compare-bench-") as tmp:
        tmp = Path(tmp)
        tracedb = a.tracedb.split() if a.tracedb else install_tracedb(tmp)
        print(f"tracedb: {' '.join(tracedb)}", file=sys.stderr)
        # warm-up, not timed: bytecode of tracedb's modules and its template database in the
        # user cache, as after any first use of an installed tracedb
        base, comp = next(iter(chosen.values()))
        run([*tracedb, "compare", str(base), str(comp), "--db", str(tmp / "warm-up.duckdb")])
        for name, (base, comp) in chosen.items():
            size = (mib(base) + mib(comp)) / 2
            ours, theirs, sheets = [], [], ""
            for i in range(a.repeat):       # interleaved: tracedb, msprof, tracedb, msprof …
                db = tmp / f"{name}-{i}.duckdb"
                r = run([*tracedb, "compare", str(base), str(comp), "--db", str(db)])
                if r["rc"] != 0:
                    raise SystemExit(f"tracedb compare failed on {name}:\n{r['stderr']}")
                ours.append(r)
                db.unlink()
                if a.no_msprof:
                    continue
                out = tmp / f"{name}-{i}-msprof"
                out.mkdir()
                r = run([str(a.msprof), "compare", "-d", str(comp), "-bp", str(base), "-o", str(out)])
                sheets = xlsx_sheets(a.msprof, out) + ("" if r["rc"] == 0 else f" (exit {r['rc']})")
                theirs.append(r)
                shutil.rmtree(out)
                print(f"{name} run {i + 1}: tracedb {ours[-1]['wall']:.2f} s wall {ours[-1]['cpu']:.2f} s CPU, "
                      f"msprof-analyze {theirs[-1]['wall']:.2f} s wall {theirs[-1]['cpu']:.2f} s CPU", file=sys.stderr)
            rows.append((name, size, ours, theirs, sheets))

    def med(rs, k):
        return statistics.median(r[k] for r in rs) if rs else float("nan")

    print(f"\n{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end, median of {a.repeat}\n")
    print("| pair | MiB per side | tracedb wall s | tracedb CPU s | tracedb peak RSS MiB | msprof-analyze wall s "
          "| msprof-analyze CPU s | msprof-analyze peak RSS MiB | ratio wall | ratio CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, size, ours, theirs, _ in rows:
        ow, oc, tw, tc = med(ours, "wall"), med(ours, "cpu"), med(theirs, "wall"), med(theirs, "cpu")
        print(f"| {name} | {size:.1f} | {ow:.2f} | {oc:.2f} | {med(ours, 'rss_mib'):.0f} | {tw:.2f} | {tc:.2f} "
              f"| {med(theirs, 'rss_mib'):.0f} | {tw / ow:.1f}× | {tc / oc:.1f}× |")
    if not a.no_msprof:
        print("\nmsprof-analyze xlsx sheets (data rows):")
        for name, _, _, _, sheets in rows:
            print(f"- {name}: {sheets}")


if __name__ == "__main__":
    main()
