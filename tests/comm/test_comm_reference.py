"""comm_op, comm_bandwidth and comm_matrix against the profiler's own communication(_matrix).json.

The rank folders are ingested *without* communication*.json (copied to tmp_path without them), so
the views can only have computed their numbers from the trace's HCCL Plane tasks. The expected
numbers are read here with json.load (Decimal), independently of tracedb's reference ingest.
"""
from __future__ import annotations

import json
import re
import shutil
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import CORPUS, FIXTURES, ingest_paths, rows

MATRIX_TYPES = re.compile("send|reduce|invalid|broadcast|allreduce|receive|allgather|reducescatter|scatter|"
                          "alltoall|alltoallv|alltoallvc|batchsendrecv")


def trace_rank_dirs(first: bool = False) -> list:
    """The fixture rank folders, and the corpus rank folders with trace_view.json and
    communication.json (marked corpus: CI runs them); ``first``: the first of each."""
    found = []
    if CORPUS.exists():
        for out in sorted(CORPUS.rglob("ASCEND_PROFILER_OUTPUT")):
            if (out / "trace_view.json").exists() and (out / "communication.json").exists():
                found.append(out.parent)
    fixtures = [FIXTURES / "ascend/level1/rank0_ascend_pt", FIXTURES / "ascend/level1/rank1_ascend_pt"]
    if first:
        fixtures, found = fixtures[:1], found[:1]
    return ([pytest.param(p, id=f"fixtures/{p.name}") for p in fixtures]
            + [pytest.param(p, marks=pytest.mark.corpus, id=short_id(p)) for p in found])


def json_only_rank_dirs() -> list:
    """Corpus rank folders with communication.json but no trace_view.json (the test is marked
    corpus: without the corpus its parameter set is empty)."""
    found = []
    if CORPUS.exists():
        for out in sorted(CORPUS.rglob("ASCEND_PROFILER_OUTPUT")):
            if (out / "communication.json").exists() and not (out / "trace_view.json").exists():
                found.append(out.parent)
    return [pytest.param(p, marks=pytest.mark.corpus, id=short_id(p)) for p in found]


def short_id(p: Path) -> str:
    try:
        parts = p.relative_to(CORPUS).parts
        return f"{parts[0]}/{'/'.join(parts[-2:])}"
    except ValueError:
        return p.name


def ops_of(doc: dict):
    """(step, kind, op name, group, info) of every per-op entry of either shape (totals left out)."""
    if all(re.match(r"^step\d*$", k) for k in doc):
        for kinds in doc.values():
            for kind, ops in kinds.items():
                for key, info in ops.items():
                    if "@" in key and not key.startswith("Total"):
                        name, _, group = key.rpartition("@")
                        yield kind, name, group, info
    else:
        for key, info in doc.items():
            if "@" in key:
                name, _, group = key.rpartition("@")
                yield None, name, group, info


def ms_to_ns(v) -> Decimal:
    return Decimal(v) * 1_000_000


def close_ns(ours: int, ref: Decimal) -> bool:
    return abs(Decimal(ours) - ref) <= max(Decimal(1000), abs(ref) * Decimal("0.001"))


def ingest_without_comm_json(rank_dir: Path, tmp_path: Path) -> Path:
    dst = tmp_path / rank_dir.name
    shutil.copytree(rank_dir, dst, ignore=shutil.ignore_patterns("communication*.json"))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, dst)
    assert rows(db, "SELECT count(*) FROM profiler_comm_op") == [(0,)]
    return db


@pytest.mark.parametrize("rank_dir", trace_rank_dirs())
def test_comm_op_equals_communication_time_info(rank_dir, tmp_path):
    doc = json.loads((rank_dir / "ASCEND_PROFILER_OUTPUT/communication.json").read_text(), parse_float=Decimal)
    expected = {name: info["Communication Time Info"] for _, name, _, info in ops_of(doc)}
    assert expected
    db = ingest_without_comm_json(rank_dir, tmp_path)
    got = {r[0]: r[1:] for r in rows(db, """
        SELECT op_name, elapse_ns, transit_ns, wait_ns, synchronization_ns, idle_ns, start_ns,
               wait_ratio, synchronization_ratio, comm_kind
        FROM comm_op""")}
    assert set(got) == set(expected)
    fields = ("Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)", "Synchronization Time(ms)", "Idle Time(ms)")
    for name, ref in expected.items():
        ours = got[name]
        for i, f in enumerate(fields):
            assert close_ns(ours[i], ms_to_ns(ref[f])), (name, f, ours[i], ref[f])
        # the file prints the start as a float of epoch µs (0.1 µs resolution at this magnitude)
        assert abs(Decimal(ours[5]) - Decimal(ref["Start Timestamp(us)"]) * 1000) <= 1000, name
        # ratios of ns-rounded times may land on the other side of a 4th-decimal rounding edge
        assert abs(ours[6] - float(ref["Wait Time Ratio"])) <= 0.00011, name
        assert abs(ours[7] - float(ref["Synchronization Time Ratio"])) <= 0.00011, name
        assert ours[8] == "collective"


@pytest.mark.parametrize("rank_dir", trace_rank_dirs())
def test_comm_bandwidth_equals_communication_bandwidth_info(rank_dir, tmp_path):
    doc = json.loads((rank_dir / "ASCEND_PROFILER_OUTPUT/communication.json").read_text(), parse_float=Decimal)
    expected = {(name, t): v for _, name, _, info in ops_of(doc)
                for t, v in info["Communication Bandwidth Info"].items()}
    db = ingest_without_comm_json(rank_dir, tmp_path)
    got = {(r[0], r[1]): r[2:] for r in rows(db, """
        SELECT op_name, transport_type, transit_size_bytes, transit_ns, bandwidth_gbps, large_packet_ratio
        FROM comm_bandwidth""")}
    assert set(expected) <= set(got)
    moved = 0
    for key, ref in expected.items():
        size, time_ns, bw, lpr = got[key]
        assert abs(Decimal(size) - Decimal(ref["Transit Size(MB)"]) * 1_000_000) <= 1, key
        assert close_ns(time_ns, ms_to_ns(ref["Transit Time(ms)"])), (key, time_ns, ref["Transit Time(ms)"])
        ref_bw = float(ref["Bandwidth(GB/s)"])
        assert abs(bw - ref_bw) <= max(0.0001, ref_bw * 0.001), (key, bw, ref_bw)
        if key[1] != "SDMA":    # the profiler never fills the SDMA aggregate's ratio
            assert lpr == float(ref["Large Packet Ratio"]), key
        moved += size
    assert moved > 0


@pytest.mark.parametrize("rank_dir", trace_rank_dirs())
def test_comm_matrix_sums_equal_type_totals(rank_dir, tmp_path):
    doc = json.loads((rank_dir / "ASCEND_PROFILER_OUTPUT/communication_matrix.json").read_text(),
                     parse_float=Decimal)
    expected = {}
    for kinds in doc.values():
        for ops in kinds.values():
            for key, links in ops.items():
                op, _, _group = key.rpartition("@")
                if op.endswith("-total"):
                    for link, v in links.items():
                        expected[(op[:-len("-total")], link)] = v
    assert expected
    db = ingest_without_comm_json(rank_dir, tmp_path)
    sums = defaultdict(lambda: [0, 0, None])
    for op_name, src, dst, transport, size, t in rows(db, """
            SELECT op_name, src_rank, dst_rank, transport_type, transit_size_bytes, transit_ns
            FROM comm_matrix ORDER BY op_start_ns"""):
        s = sums[(MATRIX_TYPES.search(op_name.lower()).group(0), f"{src}-{dst}")]
        s[0] += size
        s[1] += t
        s[2] = transport
    assert set(sums) == set(expected)
    for key, ref in expected.items():
        size, t, transport = sums[key]
        assert abs(Decimal(size) - Decimal(ref["Transit Size(MB)"]) * 1_000_000) <= 1, key
        assert close_ns(t, ms_to_ns(ref["Transit Time(ms)"])), (key, t, ref["Transit Time(ms)"])
        assert transport == ref["Transport Type"], key
    # the companion view's total rows are the same sums
    total = {(r[0], f"{r[1]}-{r[2]}"): r[3] for r in rows(db, """
        SELECT matrix_op_type, src_rank, dst_rank, transit_size_bytes FROM comm_matrix_summary
        WHERE variant = 'total'""")}
    assert total == {k: v[0] for k, v in sums.items()}


@pytest.mark.parametrize("rank_dir", trace_rank_dirs(first=True))
def test_comm_op_check_all_ok_with_the_reference_ingested(rank_dir, tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, rank_dir)
    doc = json.loads((rank_dir / "ASCEND_PROFILER_OUTPUT/communication.json").read_text())
    n_ops = sum(1 for _ in ops_of(doc))
    n_bw = sum(len(info["Communication Bandwidth Info"]) for _, _, _, info in ops_of(doc))
    got = rows(db, "SELECT status, count(*) FROM comm_op_check GROUP BY status")
    assert got == [("ok", n_ops * 5 + n_bw * 3)]
    assert rows(db, "SELECT count(*) FROM comm_op_check WHERE NOT within_tolerance") == [(0,)]


@pytest.mark.corpus
@pytest.mark.parametrize("rank_dir", json_only_rank_dirs())
def test_reference_without_trace_ingests_and_is_reported_missing(rank_dir, tmp_path):
    out = rank_dir / "ASCEND_PROFILER_OUTPUT"
    doc = json.loads((out / "communication.json").read_text())
    matrix = json.loads((out / "communication_matrix.json").read_text())
    n_entries = sum(len(ops) for kinds in doc.values() for ops in kinds.values())
    n_links = sum(len(links) for kinds in matrix.values() for ops in kinds.values() for links in ops.values())
    n_ops = sum(1 for _ in ops_of(doc))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, rank_dir)
    assert rows(db, "SELECT count(*) FROM profiler_comm_op") == [(n_entries,)]
    assert rows(db, "SELECT count(*) FROM profiler_comm_op WHERE NOT is_total") == [(n_ops,)]
    assert rows(db, "SELECT count(*) FROM profiler_comm_matrix") == [(n_links,)]
    # no trace: comm_op shows the file's ops (source communication.json), comm_op_check
    # compares only recomputed rows, so every op is still reported missing in the trace
    assert rows(db, "SELECT count(*), min(source), max(source) FROM comm_op") == [
        (n_ops, "communication.json", "communication.json")]
    assert rows(db, "SELECT count(*) FROM link") == [(0,)]
    check = rows(db, "SELECT DISTINCT status, has_trace, within_tolerance FROM comm_op_check")
    assert check == [("missing_in_trace", False, False)]
    assert rows(db, "SELECT count(DISTINCT op_name) FROM comm_op_check") == [(len({n for _, n, _, _ in ops_of(doc)}),)]
    # one op's numbers as the file wrote them, converted exactly
    kind, name, group, info = next(iter(ops_of(doc)))
    t = info["Communication Time Info"]
    got = rows(db, "SELECT group_name, comm_kind, elapse_ns, start_ns FROM profiler_comm_op WHERE op_name = ?", [name])
    assert got[0][:2] == (group, kind)
    assert got[0][2] == int((Decimal(str(t["Elapse Time(ms)"])) * 1_000_000).to_integral_value())
    assert got[0][3] == int((Decimal(str(t["Start Timestamp(us)"])) * 1000).to_integral_value())
