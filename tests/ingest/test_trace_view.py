"""trace_view.json → event / step / rank: exact ns, names resolved, metadata, idempotence."""
from __future__ import annotations

import json

from conftest import FIXTURES, ingest_paths, rows

MICRO = [
    {"ph": "M", "name": "process_name", "pid": 91234, "tid": 0, "args": {"name": "Python"}},
    {"ph": "M", "name": "process_labels", "pid": 91234, "tid": 0, "args": {"labels": "CPU"}},
    {"ph": "X", "name": "ProfilerStep#3", "pid": 91234, "tid": 91234, "ts": "1719000000100000.250",
     "dur": 15000.5, "cat": "cpu_op", "args": {"Sequence number": -1}},
    {"ph": "X", "name": "aten::mm", "pid": 91234, "tid": 91234, "ts": "1736412474730135.222", "dur": 145.57,
     "cat": "cpu_op", "args": {"Input Dims": [[4096, 512], [512, 1024]]}},
    {"ph": "M", "name": "process_name", "pid": 93422560, "tid": 0, "args": {"name": "Ascend Hardware"}},
    {"ph": "M", "name": "process_labels", "pid": 93422560, "tid": 0, "args": {"labels": "NPU 5"}},
    {"ph": "M", "name": "thread_name", "pid": 93422560, "tid": 2, "args": {"name": "Stream 2"}},
    {"ph": "X", "name": "aclnnMm_MatMulCommon_MatMulV2", "pid": 93422560, "tid": 2, "ts": "1719000000100120.512",
     "dur": 185.5, "args": {"Task Type": "AI_CORE", "Stream Id": 2}},
    {"ph": "X", "name": "EVENT_WAIT_SQE", "pid": 93422560, "tid": 2, "ts": "1719000000100400.000",
     "dur": 1.0, "args": {"Task Type": "EVENT_WAIT_SQE"}},
    {"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 1719000000100120512, "pid": 91234, "tid": 91234,
     "ts": "1719000000100010.000", "cat": "async_npu"},
    {"ph": "f", "bp": "e", "name": "torch_to_npu", "id": "18446744073709551616999", "pid": 93422560, "tid": 2,
     "ts": "1719000000100120.512", "cat": "async_npu"},
    {"ph": "X", "name": "old", "pid": 91234, "tid": 91234, "ts": 56635868946.3, "dur": 2},
]


def write_rank(tmp_path, events, rank=7):
    d = tmp_path / f"host_123_20250101_ascend_pt"
    (d / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    (d / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").write_text(json.dumps(events))
    (d / f"profiler_info_{rank}.json").write_text(json.dumps({"rank_id": str(rank), "torch_npu_version": "2.5.1",
                                                               "config": {"experimental_config":
                                                                          {"_profiler_level": "Level1"}}}))
    return d


def test_exact_ns_names_flows_and_steps(tmp_path):
    d = write_rank(tmp_path, MICRO)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, d)
    ts = dict(rows(db, "SELECT name, ts_ns FROM event WHERE ph = 'X'"))
    assert ts["aten::mm"] == 1736412474730135222          # "1736412474730135.222" µs, no float rounding
    assert ts["ProfilerStep#3"] == 1719000000100000250
    assert ts["old"] == 56635868946300                     # numeric ts (older CANN)
    durs = dict(rows(db, "SELECT name, dur_ns FROM event WHERE ph = 'X'"))
    assert durs["aten::mm"] == 145570 and durs["ProfilerStep#3"] == 15000500
    names = rows(db, "SELECT process_name, thread_name FROM event WHERE name = 'aclnnMm_MatMulCommon_MatMulV2'")
    assert names == [("Ascend Hardware", "Stream 2")]
    flows = sorted(rows(db, "SELECT ph, flow_id, flow_bp FROM event WHERE cat = 'async_npu'"))
    assert flows == [("f", "18446744073709551616999", "e"), ("s", "1719000000100120512", "e")]
    assert rows(db, "SELECT args FROM event WHERE name = 'aten::mm'")[0][0] == \
        '{"Input Dims":[[4096,512],[512,1024]]}'
    assert rows(db, "SELECT step, host_start_ns, host_end_ns, device_start_ns, device_end_ns FROM step") == \
        [(3, 1719000000100000250, 1719000000115000750, 1719000000100120512, 1719000000100306012)]
    # no kernel_details.csv: the AI_CORE task is a kernel, the EVENT_WAIT_SQE task is not
    assert rows(db, "SELECT name, step, task_type, device_id, stream_id, source FROM kernel") == \
        [("aclnnMm_MatMulCommon_MatMulV2", 3, "AI_CORE", 5, "2", "trace_view")]
    assert rows(db, "SELECT rank, device_id, rank_source, profiler_level, framework_version FROM rank") == \
        [(7, 5, "profiler_info", "Level1", "2.5.1")]


def test_reingest_adds_nothing_and_folder_of_ranks_is_one_run(tmp_path):
    db = tmp_path / "t.duckdb"
    level1 = FIXTURES / "ascend" / "level1"
    first = ingest_paths(db, level1)
    counts = rows(db, "SELECT (SELECT count(*) FROM event), (SELECT count(*) FROM kernel), (SELECT count(*) FROM step)")
    second = ingest_paths(db, level1)
    assert rows(db, "SELECT (SELECT count(*) FROM event), (SELECT count(*) FROM kernel), "
                    "(SELECT count(*) FROM step)") == counts
    assert second.files_ingested == [] and len(second.files_skipped) == len(first.files_ingested)
    assert rows(db, "SELECT run_name, platform FROM run") == [("level1", "npu")]
    assert rows(db, "SELECT rank, device_id FROM rank ORDER BY rank") == [(0, 0), (1, 1)]
    # event count = number of JSON events in the two files, counted independently
    n = sum(len(json.loads((level1 / f"rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json").read_text()))
            for r in (0, 1))
    assert counts[0][0] == n


def test_runs_side_by_side_and_roles_move(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, FIXTURES / "ascend" / "level1" / "rank0_ascend_pt", run="a", role="baseline")
    ingest_paths(db, FIXTURES / "ascend" / "level1" / "rank1_ascend_pt", run="b", role="baseline")
    assert rows(db, "SELECT run_name, role FROM run ORDER BY run_name") == [("a", None), ("b", "baseline")]


def test_rank_folders_without_rank_info_get_distinct_ranks(tmp_path):
    import shutil
    run = tmp_path / "job"
    for name in ("nodeA_1_ascend_pt", "nodeB_2_ascend_pt"):
        dst = run / name / "ASCEND_PROFILER_OUTPUT"
        dst.mkdir(parents=True)
        shutil.copy(FIXTURES / "ascend/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", dst)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, run)
    assert rows(db, "SELECT rank, rank_source, source_dir LIKE '%nodeA%' FROM rank ORDER BY rank") == \
        [(0, "default", True), (1, "default", False)]


def test_sliced_read_same_rows_as_one_piece_and_exact_epoch_numbers(tmp_path, monkeypatch):
    """A large array file is read in parallel slices, first without the raw event text
    (readers/chrome.py ``_fast_insert_sql``); an event whose ts needs the raw digits (epoch µs
    as a JSON number with decimals: a double holds 1712195495506220.328 as …220.2) sends the
    file back to the raw read. Either way the rows are those of the one-piece read."""
    import importlib
    chrome = importlib.import_module("tracedb.ingestion.readers.chrome")
    fast_calls = []
    fast = chrome._fast_insert_sql
    monkeypatch.setattr(chrome, "_fast_insert_sql", lambda base_ns: fast_calls.append(1) or fast(base_ns))
    epoch = {"ph": "X", "name": "epoch_number", "pid": 91234, "tid": 91234, "args": {"ts": 5},
             "ts": "@TS@", "dur": 1.5, "cat": "cpu_op"}
    escaped = {"ph": "X", "name": "esc\\\"aped \u00e9", "pid": "p\u00e9", "tid": True, "ts": "@ETS@",
               "dur": "2", "cat": "cpu_op", "args": {"list": ["not", "an", "object"]}, "id": 1.25, "bp": None}

    def table(events, parts):
        monkeypatch.setattr(chrome, "split_parts", lambda path, threads: parts)
        d = write_rank(tmp_path / f"{len(fast_calls)}_{parts}_{len(events)}", events)
        f = d / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
        f.write_text(f.read_text().replace('"@TS@"', "1712195495506220.328")
                     .replace('"@ETS@"', '"1719000000\\u0030.5"'))      # an escape inside the ts string
        db = d / "t.duckdb"
        ingest_paths(db, d)
        return sorted(rows(db, "SELECT * EXCLUDE (run_id, file_id) FROM event"), key=repr)

    plain = MICRO * 40 + [escaped] + MICRO * 40
    one_piece = table(plain, 1)
    assert not fast_calls
    assert table(plain, 2) == one_piece and len(fast_calls) == 1          # fast read kept
    assert [r[8] for r in one_piece if r[2].startswith("esc")] == [17190000000500]
    with_epoch = plain + [epoch]
    one_piece = table(with_epoch, 1)
    sliced = table(with_epoch, 2)
    assert sliced == one_piece and len(fast_calls) == 2                   # fast read, then the raw one
    assert [r[8] for r in sliced if r[2] == "epoch_number"] == [1712195495506220328]
    assert not [r for r in sliced if r[8] == chrome.RAW_TS_NEEDED]
