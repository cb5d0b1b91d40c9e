"""Write a large synthetic torch_npu profiler DB (ascend_pytorch_profiler_{rank}.db) with the
corpus schema, to measure the DB ingest (bench/RESULTS.md, "Ascend profiler DB ingest").

The corpus capture (../shared/corpus/msinsight/.../rank0_ascend_pt, 0.77 MB, one step) is
repeated until the file reaches --size: every repetition k shifts the times by k × the session
span and the ids (globalTaskId, connectionId, opId, CONNECTION_IDS.id, callchain ids) by k × 10^7,
and becomes step 50 + k, so the result is one long capture of many steps whose joins stay valid.
STRING_IDS, the ENUM_* tables and the metadata stay as they are. Done inside SQLite
(INSERT … SELECT from the attached corpus file), so generating 1 GB takes about a minute.

    python bench/gen_ascend_db.py --size 500m --out /tmp/bench_db/rank0_ascend_pt
    python -m tracedb.cli ingest /tmp/bench_db/rank0_ascend_pt --db /tmp/bench_db/t.duckdb

The output goes outside the repository (no generated data in git).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT.parent / "shared/corpus/msinsight/test/data/pytorch/db/level1/rank0_ascend_pt"

ONCE = re.compile(r"^(STRING_IDS|ENUM_.*|META_DATA|NPU_INFO|RANK_DEVICE_MAP|HOST_INFO|SESSION_TIME_INFO)$")
ID_COLUMNS = {"globalTaskId", "connectionId", "opId", "callchainId"}
ID_TABLE_COLUMNS = {("CONNECTION_IDS", "id"), ("PYTORCH_CALLCHAINS", "id")}
TIME = re.compile(r"(Ns|^timestamp|Time)$")
ID_STRIDE = 10 ** 7


def size_arg(text: str) -> int:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kmg]?)", text.lower())
    if not m:
        raise argparse.ArgumentTypeError(f"size like 500m or 1g, not {text!r}")
    return int(float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)])


def column_expr(table: str, col: str, decl: str) -> str:
    q = f'"{col}"'
    if table == "STEP_TIME" and col == "id":
        return f"{q} + :k"
    if col in ID_COLUMNS or (table, col) in ID_TABLE_COLUMNS:
        return f"CASE WHEN {q} IS NULL THEN NULL ELSE CAST({q} AS INTEGER) + :k * {ID_STRIDE} END"
    if TIME.search(col) and col not in ("duration", "activeDuration"):
        # torch_npu writes PYTORCH_API times into TEXT columns: they stay text
        shifted = f"CAST({q} AS INTEGER) + :k * :span"
        if decl.upper() == "TEXT":
            shifted = f"CAST({shifted} AS TEXT)"
        return f"CASE WHEN {q} IS NULL OR {q} = '' THEN {q} ELSE {shifted} END"
    return q


def generate(out_dir: Path, size: int, src: Path = SRC) -> Path:
    src_db = next((src / "ASCEND_PROFILER_OUTPUT").glob("ascend_pytorch_profiler_*.db"))
    out = out_dir / "ASCEND_PROFILER_OUTPUT"
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out.mkdir(parents=True)
    for info in src.glob("profiler_info_*.json"):
        shutil.copy(info, out_dir / info.name)
    dst = out / src_db.name
    con = sqlite3.connect(dst)
    con.execute("ATTACH DATABASE ? AS src", [f"file:{src_db}?mode=ro"])
    tables = con.execute("SELECT name, sql FROM src.sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
    for _name, sql in tables:
        con.execute(sql)
    start, end = con.execute("SELECT startTimeNs, endTimeNs FROM src.SESSION_TIME_INFO").fetchone()
    span = end - start + 1_000_000
    selects = {}
    for name, _ in tables:
        cols = con.execute(f'PRAGMA src.table_info("{name}")').fetchall()
        exprs = [column_expr(name, c[1], c[2]) for c in cols]
        selects[name] = f'INSERT INTO main."{name}" SELECT {", ".join(exprs)} FROM src."{name}"'
    src_size = src_db.stat().st_size
    k = 0
    while True:
        for name, sql in selects.items():
            if k == 0 or not ONCE.match(name):
                con.execute(sql, {"k": k, "span": span})
        con.commit()
        k += 1
        if k % 50 == 0 or k * src_size >= size:
            if dst.stat().st_size >= size:
                break
    con.execute("UPDATE SESSION_TIME_INFO SET endTimeNs = endTimeNs + ? * ?", [k - 1, span])
    con.commit()
    con.execute("DETACH DATABASE src")
    con.close()
    print(json.dumps({"file": str(dst), "bytes": dst.stat().st_size, "repetitions": k}))
    return dst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=size_arg, default=size_arg("500m"), help="target file size (500m, 1g)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/bench_ascend_db/rank0_ascend_pt"),
                    help="rank folder to write (replaced)")
    args = ap.parse_args()
    generate(args.out, args.size)


if __name__ == "__main__":
    main()
