#!/usr/bin/env python3
"""Ingest the same inputs with two tracedb checkouts (or two settings of one) and compare every
table (bench/table_hash.py): the check that the set-based ingest writes what the per-rank one
did.

    python bench/same_tables.py --a /path/to/old/checkout --b . --out /work/benchdata/same
    python bench/same_tables.py --a . --b . --a-env TRACEDB_INGEST_BATCH=rank --out /tmp/same

Each input (the bundled fixtures, the corpus inputs of every format the tests read, and any
--extra PATH) is ingested by ``python -m tracedb.cli ingest`` into a fresh database per side; a
row per input says identical or which tables differ. A benchmark tool, never a test.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from table_hash import differing  # noqa: E402

CORPUS = Path(os.environ.get("TRACEDB_CORPUS", ROOT.parent / "shared" / "corpus"))
INPUTS = [
    ["fixtures/ascend/level1"],
    ["fixtures/ascend/level0_rank0_ascend_pt"],
    ["fixtures/ascend/level1_2024_rank0_ascend_pt"],
    ["fixtures/kineto"],
    ["fixtures/mindspore/profiler"],
    ["fixtures/ascend/level1", "fixtures/kineto", "--run-per-path", "--allow-mixed-platforms"],
    [f"{CORPUS}/msinsight/test/data/pytorch/db/level1"],
    [f"{CORPUS}/msinsight-2024/test/data/pytorch/db/level1/rank0_ascend_pt"],
    [f"{CORPUS}/msinsight/test/st/level2"],
    [f"{CORPUS}/flameox/tests/fixtures/nsight_systems/nsight-2025.5.2.sqlite"],
    [f"{CORPUS}/mindinsight/tests/utils/resource/profiler"],
    [f"{CORPUS}/mindinsight/tests/utils/resource/run_2/normal_run/profiler"],
    [f"{CORPUS}/mindinsight/tests/utils/resource/cluster_propose"],
    [f"{CORPUS}/hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"],
    [f"{CORPUS}/hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"],
    [f"{CORPUS}/kineto/tb_plugin/samples/resnet50_num_workers_0"],
    [f"{CORPUS}/tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz"],
    [f"{CORPUS}/msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json"],
]


def ingest(code: str, env_extra: list[str], args: list[str], db: Path) -> str | None:
    """Ingest into ``db`` with the checkout ``code``; the error text, or None."""
    for p in (db, Path(str(db) + ".wal")):
        p.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(Path(code).resolve()))
    for kv in env_extra:
        k, _, v = kv.partition("=")
        env[k] = v
    paths = [a if a.startswith("-") or Path(a).is_absolute() else str(ROOT / a) for a in args]
    r = subprocess.run([sys.executable, "-m", "tracedb.cli", "-q", "ingest", *paths, "--db", str(db)],
                       env=env, capture_output=True, text=True, cwd=str(db.parent))
    return None if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[-1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="checkout of side A (the reference)")
    ap.add_argument("--b", required=True, help="checkout of side B")
    ap.add_argument("--a-env", nargs="*", default=[], help="NAME=VALUE for side A's process")
    ap.add_argument("--b-env", nargs="*", default=[], help="NAME=VALUE for side B's process")
    ap.add_argument("--out", required=True, help="folder for the databases")
    ap.add_argument("--extra", nargs="*", default=[], help="more inputs (one PATH each)")
    ap.add_argument("--only", type=int, nargs="*", help="only these input numbers")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    inputs = INPUTS + [[p] for p in a.extra]
    bad = 0
    for i, args in enumerate(inputs):
        if a.only and i not in a.only:
            continue
        if not all(x.startswith("-") or (ROOT / x).exists() or Path(x).exists() for x in args):
            print(f"{i:2d} skipped (absent): {args[0]}")
            continue
        dba, dbb = out / f"{i}-a.duckdb", out / f"{i}-b.duckdb"
        ea, eb = ingest(a.a, a.a_env, args, dba), ingest(a.b, a.b_env, args, dbb)
        if ea or eb:
            same = ea == eb
            print(f"{i:2d} {'same error' if same else 'ERROR'}: {args[0]}\n   A: {ea}\n   B: {eb}")
            bad += not same
            continue
        diff = differing(str(dba), str(dbb))
        print(f"{i:2d} {'identical' if not diff else 'DIFFERS ' + ', '.join(diff)}: {' '.join(args)}", flush=True)
        bad += bool(diff)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
