"""Communication views against the profiler's own communication.json / communication_matrix.json.

The expected numbers are read from the JSON files in the test (json.load), independently of the
reference tables; the rank folders are ingested WITHOUT those files, so nothing can be copied.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import CORPUS, FIXTURES, ingest_paths, rows

TOL_NS = lambda ref: max(1000, 0.001 * abs(ref))   # noqa: E731 — max(1 µs, 0.1 %)


def corpus_comm_folders() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p.parent.parent for p in CORPUS.rglob("ASCEND_PROFILER_OUTPUT/communication.json"))


def copy_without_comm(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("communication*.json"))
    return dst


def op_entries(data: dict):
    for step_key, kinds in data.items():
        for kind, ops in kinds.items():
            for key, info in ops.items():
                if "@" in key:
                    yield key.split("@")[0], info


@pytest.mark.parametrize("folder", corpus_comm_folders(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_comm_views_equal_communication_json(folder, tmp_path):
    out = folder / "ASCEND_PROFILER_OUTPUT"
    comm = json.loads((out / "communication.json").read_text())
    matrix = json.loads((out / "communication_matrix.json").read_text())
    db = tmp_path / "t.duckdb"
    ingest_paths(db, copy_without_comm(folder, tmp_path / folder.name), run="r")
    assert rows(db, "SELECT count(*) FROM profiler_comm_op")[0][0] == 0      # really ingested without them
    if not (out / "trace_view.json").exists():
        # no trace, no link tasks: the views are empty, not wrong
        assert rows(db, "SELECT count(*) FROM comm_op")[0][0] == 0
        # with the files, every op of communication.json is reported as missing from the trace
        db2 = tmp_path / "with.duckdb"
        ingest_paths(db2, folder, run="r")
        n_ops = sum(1 for _ in op_entries(comm))
        assert rows(db2, "SELECT status, count(*) FROM comm_op_check GROUP BY ALL") == [("missing_in_trace", n_ops)]
        return
    ours = {r[0]: r[1:] for r in rows(db, "SELECT op_name, elapse_ns, transit_ns, wait_ns, synchronization_ns, idle_ns "
                                         "FROM comm_op")}
    checked = 0
    for op, info in op_entries(comm):
        t = info["Communication Time Info"]
        want = [t[k] * 1e6 for k in ("Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)",
                                      "Synchronization Time(ms)", "Idle Time(ms)")]
        got = ours[op]
        for g, w, name in zip(got, want, ("elapse", "transit", "wait", "synchronization", "idle")):
            assert abs(g - w) <= TOL_NS(w), (op, name, g, w)
        bw = {r[0]: r[1:] for r in rows(db, "SELECT transport_type, transit_size_bytes, transit_ns, bandwidth_gbps "
                                            "FROM comm_bandwidth WHERE op_name = ?", [op])}
        for transport, b in info["Communication Bandwidth Info"].items():
            size, time_ns = b["Transit Size(MB)"] * 1e6, b["Transit Time(ms)"] * 1e6
            g_size, g_time, g_bw = bw.get(transport, (0, 0, None))
            assert abs(g_size - size) <= max(1, 0.001 * size), (op, transport, g_size, size)
            assert abs(g_time - time_ns) <= TOL_NS(time_ns), (op, transport, g_time, time_ns)
            if size:
                assert g_bw == pytest.approx(b["Bandwidth(GB/s)"], rel=1e-3), (op, transport)
        checked += 1
    assert checked == len(ours) > 0
    # Σ comm_matrix sizes per op type and link = the <type>-total entries
    got = {(r[0], r[1], r[2]): r[3] for r in rows(db, """
        SELECT lower(split_part(op_name, '_', 2)), src_rank, dst_rank, sum(transit_size_bytes)
        FROM comm_matrix GROUP BY ALL""")}
    totals = 0
    for step_key, kinds in matrix.items():
        for kind, ops in kinds.items():
            for key, links in ops.items():
                if "-total@" not in key:
                    continue
                op_type = key.split("-total@")[0]
                for link, li in links.items():
                    src, dst = map(int, link.split("-"))
                    want = li["Transit Size(MB)"] * 1e6
                    assert abs(got[(op_type, src, dst)] - want) <= max(1, 1e-6 * want), (key, link)
                    totals += 1
    assert totals > 0


def test_fixture_comm_op_check_all_match(tmp_path):
    """With the reference files bundled, comm_op_check says match for every op of both fixtures."""
    db = tmp_path / "t.duckdb"
    ingest_paths(db, FIXTURES / "ascend/level1")
    ingest_paths(db, FIXTURES / "ascend/level1_2024_rank0_ascend_pt")
    got = rows(db, "SELECT run_name, status, count(*), bool_and(bandwidth_matches) FROM comm_op_check "
                   "GROUP BY ALL ORDER BY ALL")
    assert got == [("level1", "match", 8, True), ("level1_2024_rank0_ascend_pt", "match", 4, True)]
    # hand check of one op (rank 0, hcom_allReduce__586_1_1) against communication.json:
    # Transit 1.2285845 ms, Wait 0.0724014375 ms, Synchronization 2e-05 ms, Elapse 2.2811055625 ms
    assert rows(db, "SELECT transit_ns, wait_ns, synchronization_ns, elapse_ns, plane_count FROM comm_op "
                    "WHERE rank = 0 AND op_name = 'hcom_allReduce__586_1_1'") == [(1228585, 72401, 20, 2281106, 8)]
    # the reference tables hold what the files say (ms → ns, MB → bytes)
    assert rows(db, "SELECT transit_ns, wait_ns FROM profiler_comm_op WHERE rank = 0 "
                    "AND op_key = 'hcom_allReduce__586_1_1@17522688603477080586'") == [(1228585, 72401)]
    assert rows(db, "SELECT transit_size_bytes, bandwidth_gbps FROM profiler_comm_matrix WHERE rank = 0 "
                    "AND op_key = 'allreduce-top1@17522688603477080586' AND src_rank = 0 AND dst_rank = 0") \
        == [(4128776, 502.2746)]


def test_comm_matrix_summary_picks_like_the_profiler(tmp_path):
    """≥6.0 communication_matrix.json summary entries: top1/middle/bottom1..3 name the same execution."""
    db = tmp_path / "t.duckdb"
    ingest_paths(db, FIXTURES / "ascend/level1_2024_rank0_ascend_pt")
    want = {}
    for key, links in json.loads((FIXTURES / "ascend/level1_2024_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                                  "communication_matrix.json").read_text())["step50"]["collective"].items():
        summary = key.split("@")[0].split("-")[1]
        for link, li in links.items():
            if "Op Name" in li:
                want[(summary, link)] = li["Op Name"]
    got = {(r[0], f"{r[1]}-{r[2]}"): r[3] for r in rows(
        db, "SELECT summary, src_rank, dst_rank, op_name FROM comm_matrix_summary WHERE summary <> 'total'")}
    assert len(want) == 10 and got == want


def _plane_trace(tmp_path: Path, events: list[dict]) -> Path:
    d = tmp_path / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    d.mkdir(parents=True)
    (d / "trace_view.json").write_text(json.dumps(events))
    return d.parent


def test_old_layout_hex_sizes_and_self_links(tmp_path):
    """2023-era layout: planes at tid 0, 1 and the op row at tid 70000 (after them); hex sizes,
    task names with spaces, dst rank 4294967295 (a self link)."""
    pid = 7
    meta = [{"ph": "M", "name": "process_name", "pid": pid, "args": {"name": "HCCL"}},
            {"ph": "M", "name": "thread_name", "pid": pid, "tid": 0, "args": {"name": "Plane 0"}},
            {"ph": "M", "name": "thread_name", "pid": pid, "tid": 1, "args": {"name": "Plane 1"}},
            {"ph": "M", "name": "thread_name", "pid": pid, "tid": 70000, "args": {"name": "Group 5 Communication"}}]

    def task(tid, name, ts, dur, src, dst, size, link="HCCS", transport="SDMA"):
        return {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur,
                "args": {"src rank": src, "dst rank": dst, "transport type": transport, "link type": link,
                         "size(Byte)": size, "notify_id": "18446744073709551615"}}

    events = meta + [
        {"ph": "X", "name": "hcom_broadcast__9_0_1", "pid": pid, "tid": 70000, "ts": "1000.000", "dur": 20.0},
        task(0, "Notify Wait", "1000.000", 2.0, 0, 1, 0, "INVALID_TYPE", "LOCAL"),       # sync (before transit)
        task(0, "Memcpy", "1002.000", 4.0, 0, 1, "0x100000"),                            # 1 MiB over HCCS
        task(0, "Notify Wait", "1006.000", 3.0, 0, 1, 0, "INVALID_TYPE", "LOCAL"),       # wait, not sync
        task(1, "Reduce Inline", "1001.000", 1.0, 0, 4294967295, "400", "ON_CHIP"),      # 0x400 = 1024 B, self link
        task(1, "Memcpy", "1010.000", 10.0, 0, 1, 2097152, "HCCS"),                      # 2 MiB, other plane
    ]
    db = tmp_path / "t.duckdb"
    ingest_paths(db, _plane_trace(tmp_path, events), run="r")
    assert rows(db, "SELECT plane_id, task_name, size_bytes, group_name, op_name FROM link ORDER BY ts_ns") == [
        (0, "Notify_Wait", 0, "5", "hcom_broadcast__9_0_1"),
        (1, "Reduce_Inline", 1024, "5", "hcom_broadcast__9_0_1"),
        (0, "Memcpy", 1048576, "5", "hcom_broadcast__9_0_1"),
        (0, "Notify_Wait", 0, "5", "hcom_broadcast__9_0_1"),
        (1, "Memcpy", 2097152, "5", "hcom_broadcast__9_0_1")]
    # master plane = plane 0 (lowest with a non-ON_CHIP task); elapse 1000 → 1020 µs over all planes
    assert rows(db, "SELECT elapse_ns, transit_ns, wait_ns, synchronization_ns, idle_ns, op_type, comm_kind "
                    "FROM comm_op") == [(20000, 4000, 5000, 2000, 11000, "broadcast", "collective")]
    # bandwidth over all planes: HCCS 1 MiB + 2 MiB in 4 + 10 µs; on-chip is not a transport
    assert rows(db, "SELECT transport_type, transit_size_bytes, transit_ns FROM comm_bandwidth ORDER BY 1") == [
        ("HCCS", 3145728, 14000), ("SDMA", 3145728, 14000)]
    assert rows(db, "SELECT src_rank, dst_rank, transport_type, transit_size_bytes FROM comm_matrix ORDER BY 1, 2") \
        == [(0, 0, "LOCAL", 1024), (0, 1, "HCCS", 3145728)]


def test_bad_communication_json(tmp_path):
    from conftest import ingest_paths as ing
    from tracedb.errors import InputError

    d = copy_without_comm(FIXTURES / "ascend/level1/rank0_ascend_pt", tmp_path / "rank0_ascend_pt")
    (d / "ASCEND_PROFILER_OUTPUT/communication.json").write_text('{"step50": {"collective": {"a@1": ')
    with pytest.raises(InputError) as e:
        ing(tmp_path / "t.duckdb", d)
    assert "communication.json" in str(e.value) and "line 1" in str(e.value)
    (d / "ASCEND_PROFILER_OUTPUT/communication.json").write_text(
        '{"step50": {"collective": {"a@1": {"Communication Time Info": {"Elapse Time(ms)": "fast"}}}}}')
    with pytest.raises(InputError) as e:
        ing(tmp_path / "t.duckdb", d)
    assert "not a number" in str(e.value) and "a@1" in str(e.value)
    # nothing was written: the failed command rolled back (the file holds no tables)
    assert rows(tmp_path / "t.duckdb", "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'event'") == [(0,)]
