"""Copies (Kineto gpu_memcpy / gpu_memset) are kernel rows, neither computing nor communication,
and step_breakdown splits free time into copy_ns + free_excl_copy_ns.

Expected numbers are computed here from the trace JSON alone (exact decimals, plain interval
arithmetic): a device event belongs to the ProfilerStep#N host window holding its runtime launch
(same correlation), the step window runs from its first to its last device event, and
copy_ns = |U(copies) minus U(other device events)| inside it."""
from __future__ import annotations

import gzip
import json
from decimal import Decimal

import pytest

from conftest import corpus_path, ingest_paths, rows

pytestmark = pytest.mark.corpus          # every test reads ../shared/corpus

COPY_CATS = {"gpu_memcpy", "gpu_memset", "memcpy", "memset"}
RUNTIME_CATS = {"cuda_runtime", "runtime", "cuda_driver", "privateuse1_runtime", "privateuse1_driver", "hip_runtime"}
TRACES = [
    "hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "hta/tests/data/df_index_resolver/df_index_resolver.json.gz",
    "hta/tests/data/trace_filter/sampled_rank-0.json.gz",
    "hta/tests/data/trace_filter/sampled_rank-1.json.gz",
    "hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
    "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz",
]


def ns(v) -> int:
    return int(Decimal(str(v)) * 1000)


def union_len(intervals) -> int:
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def expected_from_json(path):
    doc = json.load(gzip.open(path), parse_float=Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    steps = []
    for e in events:
        if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#") \
                and not str(e.get("cat", "")).lower().startswith("gpu"):
            steps.append((int(e["name"].split("#")[1]), ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
    launch = {}
    for e in events:
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() in RUNTIME_CATS:
            c = (e.get("args") or {}).get("correlation")
            if c is not None:
                launch[str(c)] = min(launch.get(str(c), ns(e["ts"])), ns(e["ts"]))
    per_step: dict[int, dict] = {}
    for e in events:
        cat = str(e.get("cat", "")).lower()
        if e.get("ph") != "X" or (cat != "kernel" and cat not in COPY_CATS):
            continue
        t = launch.get(str((e.get("args") or {}).get("correlation")))
        hit = [n for n, s, end in steps if t is not None and s <= t < end]
        if not hit:
            continue
        d = per_step.setdefault(min(hit), {"copy": [], "other": [], "copy_dur": 0, "copy_count": 0})
        iv = (ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0)))
        if cat in COPY_CATS:
            d["copy"].append(iv)
            d["copy_dur"] += iv[1] - iv[0]
            d["copy_count"] += 1
        else:
            d["other"].append(iv)
    out = {}
    for n, d in per_step.items():
        copy_ns = union_len(d["copy"] + d["other"]) - union_len(d["other"])
        out[n] = (d["copy_count"], d["copy_dur"], copy_ns)
    return out


@pytest.mark.parametrize("rel", TRACES, ids=lambda r: r.split("/")[-1][:40])
def test_copy_rows_and_copy_time_per_step(tmp_path, rel):
    path = corpus_path(rel)
    want = expected_from_json(path)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path)
    got_rows = {s: (n, d) for s, n, d in rows(
        db, "SELECT step, count(*), sum(dur_ns)::BIGINT FROM kernel WHERE copy_kind IS NOT NULL "
            "AND step IS NOT NULL GROUP BY step")}
    got = {s: (c, ) for s, c in rows(db, "SELECT step, copy_ns FROM step_breakdown WHERE step IS NOT NULL")}
    for step, (count, dur, copy_ns) in want.items():
        assert got_rows.get(step, (0, 0)) == (count, dur), (rel, step)
        assert got[step] == (copy_ns,), (rel, step)
    assert {s for s, (c, _d, _n) in want.items() if c} == set(got_rows)
    # free = copy + the rest, on every row
    assert rows(db, "SELECT count(*) FROM step_breakdown WHERE free_ns <> copy_ns + free_excl_copy_ns") == [(0,)]
    assert rows(db, "SELECT count(*) FROM step_breakdown_check WHERE NOT tiles") == [(0,)]


def test_ns_resolution_trace_copy_kinds_and_bytes(tmp_path):
    """V100 trace: 1600 DtoD copies and 145 memsets; bytes from args "bytes" (summed from the JSON)."""
    path = corpus_path(TRACES[0])
    doc = json.load(gzip.open(path))
    want = {}
    for e in doc["traceEvents"]:
        if e.get("cat") in ("gpu_memcpy", "gpu_memset"):
            kind = "Memset" if e["cat"] == "gpu_memset" else e["name"].split()[1]
            n, b = want.get(kind, (0, 0))
            want[kind] = (n + 1, b + e["args"]["bytes"])
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path)
    got = {k: (n, b) for k, n, b in rows(db, "SELECT copy_kind, count(*), sum(size_bytes)::BIGINT FROM kernel "
                                             "WHERE copy_kind IS NOT NULL GROUP BY ALL")}
    assert got == want == {"DtoD": (1600, 512205160), "Memset": (145, 287705000)}
    assert rows(db, "SELECT DISTINCT is_communication, accelerator_core FROM kernel WHERE copy_kind = 'DtoD'") == \
        [(False, "MEMCPY")]
    # copies are not computing: computing equals the union of the kernel events alone
    assert rows(db, "SELECT count(*) FROM kernel_category WHERE is_copy AND category NOT IN ('Memcpy', 'Memset')") \
        == [(0,)]


def test_rocm_copy_kind_from_args(tmp_path):
    path = corpus_path(TRACES[4])
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path)
    assert rows(db, "SELECT copy_kind, count(*) FROM kernel WHERE copy_kind IS NOT NULL GROUP BY ALL") == [("HtoD", 2)]
