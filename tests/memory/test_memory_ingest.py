"""Memory CSVs and Kineto [memory] events → ``memory``; memory_peak / op_memory against the files.

Expected numbers are derived here, independently of tracedb: the CSVs are read with the csv
module and converted with Decimal (torch_npu MB = 1024² B, KB = 1024 B), Kineto traces with json.
"""
from __future__ import annotations

import csv
import gzip
import json
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from conftest import CORPUS, FIXTURES, LEVEL1, RANK0, ingest_paths, ingested, rows
from tracedb.errors import InputError
from tracedb.ingestion.readers.memory_csv import is_mindspore

MIB = Decimal(1024 * 1024)
KIB = Decimal(1024)
OUT0 = RANK0 / "ASCEND_PROFILER_OUTPUT"


def corpus_files(name: str) -> list[Path]:
    found = sorted(CORPUS.rglob(name)) if CORPUS.exists() else []
    return found or sorted(FIXTURES.rglob(name))


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def num(cell: str | None) -> Decimal | None:
    t = (cell or "").strip().strip('"').strip()
    return None if t in ("", "N/A") else Decimal(t)


def to_int(d: Decimal) -> int:
    return int(d.to_integral_value(rounding=ROUND_HALF_UP))


def ns(cell: str) -> int:
    return to_int(Decimal(cell.strip()) * 1000)


# --- Done-when: memory_peak.peak_reserved_bytes = max Total Reserved(MB) x 1024^2 per component, rank ---

@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files("memory_record.csv"), ids=lambda p: str(p.parent.parent.name))
def test_memory_peak_equals_max_total_reserved_per_component(path, tmp_path):
    expected = defaultdict(lambda: [None, None, None, None])   # reserved, allocated, active, first ts of reserved peak
    for r in read_csv(path):
        e = expected[r["Component"]]
        res, alloc = num(r["Total Reserved(MB)"]), num(r["Total Allocated(MB)"])
        act = num(r.get("Total Active(MB)"))
        t = ns(r["Timestamp(us)"])
        if res is not None and (e[0] is None or res > e[0] or (res == e[0] and t < e[3])):
            e[0], e[3] = res, t
        for i, v in ((1, alloc), (2, act)):
            if v is not None and (e[i] is None or v > e[i]):
                e[i] = v
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path)       # a single file is accepted too
    got = {c: (res, alloc, act, ts) for c, res, alloc, act, ts in rows(db, """
        SELECT component, peak_reserved_bytes, peak_allocated_bytes, peak_active_bytes, ts_ns FROM memory_peak""")}
    want = {c: (to_int(e[0] * MIB), None if e[1] is None else to_int(e[1] * MIB),
                None if e[2] is None else to_int(e[2] * MIB), e[3]) for c, e in expected.items()}
    assert got == want
    assert rows(db, "SELECT count(*) FROM memory WHERE kind = 'record'") == [(len(read_csv(path)),)]


@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files("operator_memory.csv"), ids=lambda p: str(p.parent.parent.name))
def test_op_memory_rows_and_sizes_equal_operator_memory_csv(path, tmp_path):
    ref = read_csv(path)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path)
    ((n, total, live, alloc_sum),) = rows(db, """
        SELECT count(*), sum(size_bytes)::BIGINT, count(*) FILTER (WHERE release_ts_ns IS NULL),
               sum(allocated_bytes)::BIGINT
        FROM op_memory""")
    assert n == len(ref)
    assert total == sum(to_int(num(r["Size(KB)"]) * KIB) for r in ref)
    assert live == sum(1 for r in ref if num(r["Release Time(us)"]) is None)
    assert alloc_sum == sum(to_int(num(r["Allocation Total Allocated(MB)"]) * MIB) for r in ref
                            if num(r["Allocation Total Allocated(MB)"]) is not None)
    # lifetimes: Duration(us) exactly
    want = sorted(ns(r["Duration(us)"]) for r in ref if num(r["Duration(us)"]) is not None)
    assert sorted(d for (d,) in rows(db, "SELECT lifetime_ns FROM op_memory WHERE lifetime_ns IS NOT NULL")) == want


@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files("npu_module_mem.csv"), ids=lambda p: str(p.parent.parent.name))
def test_module_memory_peaks(path, tmp_path):
    peak = {}
    for r in read_csv(path):
        v = to_int(num(r["Total Reserved(MB)"]) * MIB)
        peak[r["Component"]] = max(peak.get(r["Component"], v), v)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path)
    assert dict(rows(db, "SELECT component, peak_reserved_bytes FROM module_memory")) == peak


def test_one_operator_row_by_hand(tmp_path):
    """level1 rank0 line 4: aten::_convolution,25009.5,"1736408883702735.700\t","1736408883736793.940\t",
    "1736408883736793.430\t","34058.240\t","34057.730\t",978.7939453125,1452.0,978.7939453125,..."""
    db = tmp_path / "t.duckdb"
    ingested(db, RANK0)
    assert rows(db, """
        SELECT size_bytes, alloc_ts_ns, release_ts_ns, lifetime_ns, allocated_bytes, reserved_bytes, step
        FROM op_memory WHERE alloc_ts_ns = 1736408883702735700""") == [(
            25609728,                   # 25009.5 KB x 1024
            1736408883702735700,
            1736408883736793940,
            34058240,                   # 34058.240 µs
            1026339840,                 # 978.7939453125 MB = 978 x 1048576 + 0.7939453125 x 1048576 (= 832512)
            1522532352,                 # 1452.0 MB x 1048576
            50)]                        # inside ProfilerStep#50
    assert rows(db, """SELECT active_release_ts_ns, active_dur_ns, release_allocated_bytes FROM memory
                       WHERE kind = 'operator' AND ts_ns = 1736408883702735700""") == \
        [(1736408883736793430, 34057730, 1025100800)]   # 977.6123046875 MB x 1048576


def test_step_of_each_allocation_from_the_profiler_step_window(tmp_path):
    trace = json.loads((OUT0 / "trace_view.json").read_text())
    (step,) = [e for e in trace if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
    start = ns(str(step["ts"]))
    end = start + ns(str(step["dur"]))
    ref = read_csv(OUT0 / "operator_memory.csv")
    inside = sum(1 for r in ref if num(r["Allocation Time(us)"]) is not None
                 and start <= ns(r["Allocation Time(us)"]) < end)
    db = tmp_path / "t.duckdb"
    ingested(db, RANK0)
    assert rows(db, "SELECT step, count(*) FROM op_memory WHERE step IS NOT NULL GROUP BY step") == [(50, inside)]


def test_reingest_does_not_duplicate(tmp_path):
    db = tmp_path / "t.duckdb"
    ingested(db, RANK0)                          # the second ingest, below, is the one watched
    before = rows(db, "SELECT kind, count(*) FROM memory GROUP BY kind ORDER BY kind")
    report = ingest_paths(db, RANK0)
    assert report.files_ingested == []
    assert rows(db, "SELECT kind, count(*) FROM memory GROUP BY kind ORDER BY kind") == before
    assert dict(before) == {"module": len(read_csv(OUT0 / "npu_module_mem.csv")),
                            "operator": len(read_csv(OUT0 / "operator_memory.csv")),
                            "record": len(read_csv(OUT0 / "memory_record.csv"))}


# --- MindSpore units ---

MS_RECORD = ("Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Device Type\r\n"
             "MindSpore,\"1719000000100011.402\t\",10.5,20.25,10.5,NPU:3\r\n"
             "MindSpore,\"1719000000100020.000\t\",12.0,20.25,11.0,NPU:3\r\n"
             "APP,1719000000100030.5,N/A,30.125,N/A,NPU:3\r\n")


def ms_rank(tmp_path: Path, name="worker_1_20250101_ascend_ms") -> Path:
    out = tmp_path / name / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (out / "memory_record.csv").write_bytes(MS_RECORD.encode())
    (out / "operator_memory.csv").write_text(
        "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
        "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),"
        "Allocation Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),"
        "Release Total Active(MB),Stream Ptr,Device Type\n"
        "Default/MatMul-op1,1024,1719000000100011.402,N/A,N/A,N/A,N/A,1.0,2.0,1.0,N/A,N/A,N/A,N/A,NPU:3\n")
    (out / "npu_module_mem.csv").write_text(
        "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n"
        "3,HCCL,1719000000100000.000,2048,NPU:3\n3,RUNTIME,1719000000100000.000,-1,NPU:3\n")
    return out.parent


def test_mindspore_memory_record_mb_is_1024000_bytes(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, ms_rank(tmp_path))
    assert rows(db, """SELECT component, device, peak_allocated_bytes, peak_reserved_bytes, peak_active_bytes, ts_ns
                       FROM memory_peak ORDER BY component""") == [
        ("APP", "NPU:3", None, 30848000, None, 1719000000100030500),          # 30.125 x 1 024 000
        ("MindSpore", "NPU:3", 12288000, 20736000, 11264000, 1719000000100011402)]  # 12, 20.25, 11 x 1 024 000
    # operator_memory keeps torch_npu units; release N/A = still live
    assert rows(db, "SELECT component, op_name, size_bytes, release_ts_ns, lifetime_ns, allocated_bytes FROM op_memory") \
        == [("MindSpore", "Default/MatMul-op1", 1048576, None, None, 1048576)]
    # npu_module_mem in KB (header): 2048 KB, and CANN's -1 KB sentinel
    assert rows(db, "SELECT component, peak_reserved_bytes FROM module_memory ORDER BY component") == \
        [("HCCL", 2097152), ("RUNTIME", -1024)]


def test_mindspore_recognised_without_folder_suffix(tmp_path):
    out = tmp_path / "plain" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    header = ["Component", "Timestamp(us)", "Total Allocated(MB)", "Total Reserved(MB)", "Total Active(MB)",
              "Device Type"]
    assert is_mindspore(out / "memory_record.csv", header)                       # no Stream Ptr column
    assert not is_mindspore(out / "memory_record.csv", header[:5] + ["Stream Ptr", "Device Type"])
    (out.parent / "profiler_info_0.json").write_text(json.dumps({"ms_version": "2.4.0", "rank_id": 0}))
    assert is_mindspore(out / "memory_record.csv", header[:5] + ["Stream Ptr", "Device Type"])
    assert not is_mindspore(tmp_path / "a_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "memory_record.csv", header)


def test_torch_npu_50_header_and_crlf(tmp_path):
    """torch_npu 5.0.x memory_record (no Total Active, no Stream Ptr) is torch_npu MB."""
    out = tmp_path / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (out / "memory_record.csv").write_bytes(
        b"Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Device Type\r\n"
        b"PTA,1695115378714622.8,4599.74072265625,8664.0,NPU:0\r\n")
    db = tmp_path / "t.duckdb"
    ingest_paths(db, out / "memory_record.csv")
    # 4599.74072265625 MB = 4599 x 1048576 + 776704 B; 8664 x 1048576
    assert rows(db, "SELECT peak_allocated_bytes, peak_reserved_bytes, peak_active_bytes, ts_ns FROM memory_peak") == \
        [(4599 * 1048576 + 776704, 8664 * 1048576, None, 1695115378714622800)]


# --- Kineto [memory] events ---

def kineto_doc(events, **top):
    return {"schemaVersion": 1, "baseTimeNanoseconds": 1719000000000000000, **top, "traceEvents": events}


def mem(ts, nbytes, addr, alloc=None, reserved=None, dtype=1, did=0, tid=7):
    args = {"Addr": addr, "Bytes": nbytes, "Device Type": dtype, "Device Id": did}
    if alloc is not None:
        args.update({"Total Allocated": alloc, "Total Reserved": reserved})
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": tid,
            "ts": ts, "args": args}


def test_kineto_memory_peak_and_allocation_pairs(tmp_path):
    # timeline (µs after base), CUDA:0, tid 7:
    #   10 ─ aten::empty [10, 20] ─┐      alloc A 4 MiB at 12      (alloc 4 MiB, reserved 20 MiB)
    #   30 ─ aten::mm   [30, 40] ──┤      alloc B 2 MiB at 31      (alloc 6 MiB, reserved 20 MiB)
    #                                     free A at 35             (alloc 2 MiB, reserved 20 MiB)
    #                                     alloc C 8 MiB at 38      (alloc 10 MiB, reserved 20 MiB)  <- allocated peak
    #   50                                free C at 50             (alloc 2 MiB, reserved 20 MiB); B stays live
    # CPU: one 64 B alloc at 11 (Device Type 0, Device Id -1), totals 64 / 0
    M = 1 << 20
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 7, "tid": 7, "ts": 10.0, "dur": 10.0},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 30.0, "dur": 10.0},
        {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 7, "tid": 7, "ts": 37.0, "dur": 2.0},
        mem(12.0, 4 * M, 1000, 4 * M, 20 * M),
        mem(31.0, 2 * M, 2000, 6 * M, 20 * M),
        mem(35.5, -4 * M, 1000, 2 * M, 20 * M),
        mem(38.0, 8 * M, 1000, 10 * M, 20 * M),
        mem(50.0, -8 * M, 1000, 2 * M, 20 * M),
        mem(11.0, 64, 9, 64, 0, dtype=0, did=-1),
    ]
    f = tmp_path / "rank-0.pt.trace.json"
    f.write_text(json.dumps(kineto_doc(events)))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f)
    base = 1719000000000000000
    assert rows(db, """SELECT component, device, peak_allocated_bytes, peak_reserved_bytes, peak_active_bytes, ts_ns,
                              samples FROM memory_peak ORDER BY device""") == [
        ("PyTorch", "CPU", 64, 0, None, base + 11000, 1),
        ("PyTorch", "CUDA:0", 10 * M, 20 * M, None, base + 12000, 5)]   # first event at the reserved peak
    assert rows(db, """SELECT device, op_name, size_bytes, alloc_ts_ns, release_ts_ns, lifetime_ns, allocated_bytes
                       FROM op_memory ORDER BY alloc_ts_ns""") == [
        ("CPU", "aten::empty", 64, base + 11000, None, None, 64),
        ("CUDA:0", "aten::empty", 4 * M, base + 12000, base + 35500, 23500, 4 * M),
        ("CUDA:0", "aten::mm", 2 * M, base + 31000, None, None, 6 * M),
        ("CUDA:0", "aten::empty", 8 * M, base + 38000, base + 50000, 12000, 10 * M)]   # innermost op


def test_old_kineto_memory_events_without_totals(tmp_path):
    doc = {"schemaVersion": 1, "traceEvents": [
        {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1623142623460121,
         "args": {"Device Type": 1, "Device Id": 0, "Bytes": 512}}]}
    f = tmp_path / "worker0.pt.trace.json"
    f.write_text(json.dumps(doc))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f)
    assert rows(db, "SELECT device, size_bytes, ts_ns, allocated_bytes, reserved_bytes FROM memory") == \
        [("CUDA:0", 512, 1623142623460121000, None, None)]
    assert rows(db, "SELECT peak_allocated_bytes, peak_reserved_bytes, ts_ns, samples FROM memory_peak") == \
        [(None, None, None, 1)]


@pytest.mark.corpus
@pytest.mark.parametrize("rel", ["tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz"])
def test_kineto_corpus_trace_peak_reserved(rel, tmp_path):
    path = CORPUS / rel
    if not path.exists():
        pytest.skip(f"corpus file not available: {path}")
    doc = json.loads(gzip.open(path).read())
    ev = [e for e in doc["traceEvents"] if e.get("name") == "[memory]"]
    cuda = [e["args"] for e in ev if e["args"].get("Device Type") == 1]
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path)
    assert rows(db, "SELECT peak_reserved_bytes, peak_allocated_bytes, samples FROM memory_peak "
                    "WHERE device = 'CUDA:0'") == \
        [(max(a["Total Reserved"] for a in cuda), max(a["Total Allocated"] for a in cuda), len(cuda))]
    assert rows(db, "SELECT count(*) FROM memory") == [(len(ev),)]


# --- bad input ---

def test_missing_column_names_file_and_line_1(tmp_path):
    out = tmp_path / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    f = out / "memory_record.csv"
    f.write_text("Component,Timestamp(us),Total Allocated(MB)\nPTA,1.0,2.0\n")
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", f)
    assert e.value.file == str(f) and e.value.place == "line 1" and "Total Reserved(MB)" in e.value.message


def test_empty_file_is_rejected(tmp_path):
    out = tmp_path / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    f = out / "operator_memory.csv"
    f.write_text("")
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", f)
    assert e.value.file == str(f) and "empty" in e.value.message


def test_bad_timestamp_names_its_line(tmp_path):
    out = tmp_path / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    f = out / "npu_module_mem.csv"
    f.write_text("Component,Timestamp(us),Total Reserved(MB),Device\n"
                 "HCCL,\"1719000000100000.000\t\",1.0,NPU:0\nHCCL,garbage,1.0,NPU:0\n")
    db = tmp_path / "t.duckdb"
    with pytest.raises(InputError) as e:
        ingest_paths(db, f)
    assert e.value.file == str(f) and e.value.place == "line 3" and "Timestamp(us)" in e.value.message
    # the whole ingest was rolled back: not even the schema was written
    assert not db.exists() or rows(db, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'memory'") == [(0,)]


def test_two_ranks_peak_per_rank(tmp_path):
    """Both level1 ranks in one run: each rank's peaks come from its own memory_record.csv."""
    want = {}
    for rank in (0, 1):
        for r in read_csv(FIXTURES / f"ascend/level1/rank{rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv"):
            key = (rank, r["Component"])
            v = to_int(num(r["Total Reserved(MB)"]) * MIB)
            want[key] = max(want.get(key, v), v)
    db = tmp_path / "t.duckdb"
    ingested(db, LEVEL1)
    got = {(rk, c): v for rk, c, v in rows(db, "SELECT rank, component, peak_reserved_bytes FROM memory_peak")}
    assert got == want


@pytest.mark.corpus
def test_old_kineto_corpus_trace_memory_events(tmp_path):
    """2021 Kineto trace: [memory] events carry only Device Type / Device Id / Bytes."""
    path = CORPUS / "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
    if not path.exists():
        pytest.skip(f"corpus file not available: {path}")
    ev = [e["args"] for e in json.loads(gzip.open(path).read())["traceEvents"] if e.get("name") == "[memory]"]
    per_device = defaultdict(lambda: [0, 0])
    for a in ev:
        d = "CPU" if a["Device Type"] == 0 else f"CUDA:{a['Device Id']}"
        per_device[d][0] += 1
        per_device[d][1] += a["Bytes"]
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path)
    got = rows(db, "SELECT device, count(*), sum(size_bytes)::BIGINT, count(reserved_bytes) FROM memory "
                   "GROUP BY device ORDER BY device")
    assert got == [(d, n, b, 0) for d, (n, b) in sorted(per_device.items())]
