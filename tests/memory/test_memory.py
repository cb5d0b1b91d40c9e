"""Memory CSVs and Kineto [memory] events → memory, memory_peak, op_memory.

Expected values are computed in the test from the CSV text with Decimal (exact), not from tracedb.
"""
from __future__ import annotations

import csv
import gzip
import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import CORPUS, FIXTURES, corpus_path, ingest_paths, rows
from tracedb.errors import InputError

MIB = 1024 * 1024


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8-sig") as f:
        return [{k.strip(): (v or "").strip() for k, v in r.items()} for r in csv.DictReader(f)]


def corpus_memory_records() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.rglob("ASCEND_PROFILER_OUTPUT/memory_record.csv"))


@pytest.mark.parametrize("path", corpus_memory_records(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_peak_reserved_equals_memory_record_max(path, tmp_path):
    """memory_peak.peak_reserved_bytes = max Total Reserved(MB) × 1024² per component and rank."""
    want: dict[str, int] = {}
    for r in read_csv(path):
        if r["Total Reserved(MB)"]:
            v = Decimal(r["Total Reserved(MB)"]) * MIB
            want[r["Component"]] = max(want.get(r["Component"], v), v)
    want = {c: int(v.to_integral_value()) for c, v in want.items()}
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path, run="r")
    got = dict(rows(db, "SELECT component, peak_reserved_bytes FROM memory_peak WHERE source = 'memory_record'"))
    assert got == want and len(want) >= 1


def test_fixture_memory_by_hand(tmp_path):
    rank0 = FIXTURES / "ascend/level1/rank0_ascend_pt"
    out = rank0 / "ASCEND_PROFILER_OUTPUT"
    db = tmp_path / "t.duckdb"
    ingest_paths(db, rank0)
    # memory_record.csv line 2: APP,"1736408883573957.920\t",,2109.6015625,,,NPU:0
    assert rows(db, "SELECT ts_ns, allocated_bytes, reserved_bytes, device FROM memory WHERE kind = 'record' "
                    "AND component = 'APP' ORDER BY ts_ns LIMIT 1") == [
        (1736408883573957920, None, 2212077568, "NPU:0")]           # 2109.6015625 × 1048576
    # op_memory: one row per operator_memory.csv row; Σ size = Σ Size(KB) × 1024
    ops = read_csv(out / "operator_memory.csv")
    total = sum(Decimal(r["Size(KB)"]) * 1024 for r in ops)
    assert rows(db, "SELECT count(*), sum(size_bytes) FROM op_memory") == [(len(ops), int(total))]
    # first row: aten::empty_strided, 18816.5 KB, allocated at 1736408883694624.810 µs, never released
    assert rows(db, "SELECT op_name, size_bytes, alloc_ts_ns, release_ts_ns, step FROM op_memory "
                    "ORDER BY alloc_ts_ns LIMIT 1") == [("aten::empty_strided", 19268096, 1736408883694624810, None, 50)]
    # npu_module_mem: HCCL reserved 404.0625 MB → bytes
    hccl = max(Decimal(r["Total Reserved(MB)"]) for r in read_csv(out / "npu_module_mem.csv") if r["Component"] == "HCCL")
    assert rows(db, "SELECT peak_reserved_bytes FROM memory_peak WHERE source = 'npu_module_mem' "
                    "AND component = 'HCCL'") == [(int(hccl * MIB),)]
    # re-ingesting the same folder adds nothing
    n = rows(db, "SELECT count(*) FROM memory")[0][0]
    ingest_paths(db, rank0)
    assert rows(db, "SELECT count(*) FROM memory")[0][0] == n


def test_mindspore_megabytes(tmp_path):
    """MindSpore memory_record "MB" = KB ÷ 1000 = 1 024 000 B (no Stream Ptr column)."""
    d = tmp_path / "rank0_ascend_ms" / "ASCEND_PROFILER_OUTPUT"
    d.mkdir(parents=True)
    (d / "memory_record.csv").write_text(
        "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Device Type\n"
        "MindSpore,1700000000000001.5,1.5,2.25,1.5,NPU:0\n"
        "MindSpore,1700000000000002.5,1.0,3.0,1.0,NPU:0\n")
    db = tmp_path / "t.duckdb"
    ingest_paths(db, d.parent, run="ms")
    assert rows(db, "SELECT component, peak_allocated_bytes, peak_reserved_bytes, ts_ns FROM memory_peak") == [
        ("MindSpore", 1536000, 3072000, 1700000000000002500)]       # 1.5 × 1 024 000, 3.0 × 1 024 000


def test_kineto_memory_events(tmp_path):
    """[memory] events: peak Total Reserved; an old trace without totals gets the running sum."""
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 100, "dur": 10},
        {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 101,
         "args": {"Total Reserved": 4096, "Total Allocated": 1024, "Bytes": 1024, "Addr": 1, "Device Type": 1, "Device Id": 0}},
        {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 102,
         "args": {"Total Reserved": 8192, "Total Allocated": 3072, "Bytes": 2048, "Addr": 2, "Device Type": 1, "Device Id": 0}},
        {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 103,
         "args": {"Total Reserved": 8192, "Total Allocated": 2048, "Bytes": -1024, "Addr": 1, "Device Type": 1, "Device Id": 0}},
        {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 104,
         "args": {"Device Type": 0, "Device Id": -1, "Bytes": 16}},
        {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 105,
         "args": {"Device Type": 0, "Device Id": -1, "Bytes": 32}},
        {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 106,
         "args": {"Device Type": 0, "Device Id": -1, "Bytes": -16}},
    ]
    f = tmp_path / "rank0.pt.trace.json"
    f.write_text(json.dumps({"traceEvents": events}))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f, run="g")
    assert rows(db, "SELECT device, peak_allocated_bytes, peak_reserved_bytes, ts_ns FROM memory_peak ORDER BY 1") == [
        ("CPU", 48, None, 105000),            # running sum 16, 48, 32
        ("cuda:0", 3072, 8192, 102000)]


def test_kineto_corpus_trace_memory(tmp_path):
    path = corpus_path("tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz")
    data = json.loads(gzip.decompress(path.read_bytes()))
    mem = [e["args"] for e in data["traceEvents"] if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1]
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path, run="g")
    assert rows(db, "SELECT peak_reserved_bytes, peak_allocated_bytes, samples FROM memory_peak "
                    "WHERE device LIKE 'cuda:%'") == [
        (max(a["Total Reserved"] for a in mem), max(a["Total Allocated"] for a in mem), len(mem))]


def test_bad_memory_csv(tmp_path):
    d = tmp_path / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    shutil.copytree(FIXTURES / "ascend/level0_rank0_ascend_pt", tmp_path / "rank0_ascend_pt", dirs_exist_ok=True)
    (d / "memory_record.csv").write_text("Component,Total Reserved(MB)\nAPP,1.0\n")
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", d.parent)
    assert "memory_record.csv" in str(e.value) and "Timestamp(us)" in str(e.value) and "line 1" in str(e.value)
    (d / "memory_record.csv").write_text("Component,Timestamp(us),Total Reserved(MB)\nAPP,1.0,1.0\nAPP,soon,2.0\n")
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", d.parent)
    assert "line 3" in str(e.value)
