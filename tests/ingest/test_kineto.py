"""Kineto *.pt.trace.json(.gz) → event / kernel / step, streamed through a FIFO."""
from __future__ import annotations

import gzip
import json

from conftest import CORPUS, FIXTURES, KINETO, corpus_path, ingest_paths, ingested, rows


def kineto(events, **top):
    doc = {"schemaVersion": 1, **{k: v for k, v in top.items() if k != "tail"}, "traceEvents": events}
    doc.update(top.get("tail", {}))
    return doc


EVENTS = [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 4021, "tid": 4021, "ts": 1000.000,
     "dur": 15000.5},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4021, "tid": 4021, "ts": 1030.0,
     "dur": 5.0, "args": {"correlation": 5001}},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm", "pid": 0, "tid": 7, "ts": 1120.512, "dur": 95.25,
     "args": {"device": 0, "stream": 7, "correlation": 5001, "grid": [64, 8, 1]}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 20,
     "ts": 1200.0, "dur": 100.0, "args": {"device": 0, "stream": 20, "correlation": 5002}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4021, "tid": 4021, "ts": 1040.0,
     "dur": 5.0, "args": {"correlation": 5002}},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#3", "pid": 0, "tid": 7, "ts": 1100.0,
     "dur": 300.0},
    {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
     "ts": 900.0, "dur": 20000.0},
    {"ph": "i", "name": "Record Window End", "pid": "", "tid": "", "ts": 30000.0, "s": "g"},
]


import pytest


@pytest.mark.parametrize("gz", [True, False], ids=["gzip_stream", "plain_span"])
def test_base_time_rank_steps_and_comm(tmp_path, gz):
    """gzip: streamed through a FIFO, metadata read at the end; plain: metadata from head and tail."""
    doc = kineto(EVENTS, distributedInfo={"backend": "nccl", "rank": 3, "world_size": 8},
                 tail={"traceName": "x]\"}", "displayTimeUnit": "ms", "extra": [1, [2]],
                       "baseTimeNanoseconds": 1719000000000000000})
    f = tmp_path / ("w.pt.trace.json.gz" if gz else "w.pt.trace.json")
    with (gzip.open(f, "wt") if gz else open(f, "w")) as g:
        json.dump(doc, g, indent=1)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f)
    assert rows(db, "SELECT rank, rank_source, world_size, device_id FROM rank") == [(3, "distributedInfo", 8, 0)]
    assert rows(db, "SELECT count(*) FROM event") == [(len(EVENTS),)]
    # ts 1120.512 µs after baseTimeNanoseconds
    assert rows(db, "SELECT ts_ns, dur_ns, step, is_communication FROM kernel WHERE name = 'ampere_sgemm'") == \
        [(1719000000001120512, 95250, 3, False)]
    assert rows(db, "SELECT step, is_communication FROM kernel WHERE name LIKE 'nccl%'") == [(3, True)]
    assert rows(db, "SELECT pid, tid FROM event WHERE name = 'Record Window End'") == [("", "")]
    assert rows(db, "SELECT count(*) FROM event WHERE rank <> 3") == [(0,)]
    assert rows(db, "SELECT step, host_start_ns FROM step") == [(3, 1719000000001000000)]
    ((comp, comm, notov),) = rows(db, "SELECT computing_ns, communication_ns, communication_not_overlapped_ns "
                                      "FROM step_breakdown")
    # sgemm 1120.512-1215.762 µs, nccl 1200-1300 µs: they overlap 1200-1215.762 = 15 762 ns
    assert (comp, comm, notov) == (95250, 100000, 100000 - 15762)


def test_names_of_metadata_events_outside_the_scanned_tail(tmp_path, monkeypatch):
    """Plain traces are scanned for metadata events at their end only (where Kineto writes
    them); names given by metadata events elsewhere in the array still reach every row."""
    import sys
    monkeypatch.setattr(sys.modules["tracedb.ingestion.readers.kineto"], "META_TAIL", 400)
    head = [{"ph": "M", "name": "process_name", "pid": 4021, "tid": 0, "args": {"name": "python3"}},
            {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}}]
    tail = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
            {"ph": "M", "name": "thread_name", "pid": 4021, "tid": 4021, "args": {"name": "thread 4021 (python3)"}}]
    f = tmp_path / "w.pt.trace.json"
    f.write_text(json.dumps(kineto(head + EVENTS * 20 + tail), indent=1))
    assert f.stat().st_size > 20 * 400
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f)
    assert rows(db, "SELECT pid, tid, process_name, thread_name, count(*) FROM event "
                    "WHERE name = 'ampere_sgemm' OR name LIKE 'cudaLaunch%' GROUP BY ALL ORDER BY 1") == [
        ("0", "7", "GPU 0", "stream 7", 20), ("4021", "4021", "python3", "thread 4021 (python3)", 40)]


def test_hash_while_parsing_and_same_size_files(tmp_path):
    """A file's SHA-256 is computed while it is parsed unless the run has a file of the same
    format and size: only such a file can repeat one already ingested."""
    import hashlib
    import pytest
    from tracedb.errors import InputError
    doc = kineto(EVENTS, distributedInfo={"rank": 0, "world_size": 1})
    a = tmp_path / "a" / "w.pt.trace.json"
    a.parent.mkdir()
    a.write_text(json.dumps(doc))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, a, run="r")
    assert rows(db, "SELECT path, sha256 FROM source_file") == [
        (str(a.resolve()), hashlib.sha256(a.read_bytes()).hexdigest())]
    copy = tmp_path / "copy" / "w.pt.trace.json"           # same bytes, another path: skipped
    copy.parent.mkdir()
    copy.write_bytes(a.read_bytes())
    report = ingest_paths(db, copy, run="r")
    assert report.files_ingested == [] and report.files_skipped == [str(copy)]
    other = tmp_path / "other" / "w.pt.trace.json"         # same size, one digit changed: not skipped
    other.parent.mkdir()
    other.write_bytes(a.read_bytes().replace(b'"dur": 95.25', b'"dur": 95.26'))
    assert other.stat().st_size == a.stat().st_size and other.read_bytes() != a.read_bytes()
    with pytest.raises(InputError, match="another capture: rank 0 of run 'r' already has"):
        ingest_paths(db, other, run="r")
    assert rows(db, "SELECT count(*) FROM source_file") == [(1,)]


def test_fixture_traces_one_kernel_row_per_kernel_event(tmp_path):
    db = tmp_path / "t.duckdb"
    ingested(db, KINETO)          # a folder of traces: one run, one rank per file
    expected = {}
    for r in (0, 1):
        doc = json.load(gzip.open(FIXTURES / f"kineto/sampled_rank-{r}.json.gz"))
        expected[r] = sum(1 for e in doc["traceEvents"] if str(e.get("cat", "")).lower() == "kernel")
    assert dict(rows(db, "SELECT rank, count(*) FROM kernel WHERE copy_kind IS NULL GROUP BY rank")) == expected
    assert rows(db, "SELECT count(*), count(DISTINCT rank) FROM rank") == [(2, 2)]
    assert rows(db, "SELECT run_name, platform FROM run") == [("kineto", "gpu")]
    # every step row tiles: computing + not overlapped + free = stage + bubble
    assert rows(db, "SELECT count(*) FROM step_breakdown_check WHERE NOT tiles") == [(0,)]
    assert rows(db, "SELECT count(*) > 0 FROM step_breakdown WHERE step IS NOT NULL") == [(True,)]


@pytest.mark.corpus
def test_every_corpus_kineto_trace_ingests(tmp_path):
    import pytest
    traces = sorted(CORPUS.rglob("*.json.gz")) if CORPUS.exists() else []
    if not traces:
        pytest.skip("corpus not available")
    for i, f in enumerate(traces):
        db = tmp_path / f"t{i}.duckdb"
        ingest_paths(db, f)
        doc = json.load(gzip.open(f))
        n_kernel = sum(1 for e in doc["traceEvents"] if str(e.get("cat", "")).lower() == "kernel")
        assert rows(db, "SELECT count(*) FROM kernel WHERE copy_kind IS NULL") == [(n_kernel,)], f
        assert rows(db, "SELECT count(*) FROM event") == [(len(doc["traceEvents"]),)], f
        steps = {e["name"] for e in doc["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#")
                 and e.get("ph") == "X" and not str(e.get("cat", "")).lower().startswith("gpu")}
        if n_kernel:
            got = rows(db, "SELECT count(*), count(step) FROM step_breakdown")[0]
            assert got[1] <= len(steps) and (got[0] >= 1), f
            assert rows(db, "SELECT count(*) FROM step_breakdown_check WHERE NOT tiles") == [(0,)], f


# -- ts written as JSON numbers with more digits than a double holds --------------------------
# Epoch µs with 3 decimals are 19 significant digits; a float64 keeps 15-17 and has a 0.25 µs
# step at 1.7e15 µs, so 1712195495506220.329 read through a double is 1712195495506220.25.
EXACT_TEXT = """{"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 1712195495506220.329, "dur": 2.272,
  "args": {"stream": 7, "correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "args": {"ts": 5.5, "stream": 7},
  "ts": 1712195495506221.001, "dur": 1},
 {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": "1712195495506222.123", "dur": 1,
  "args": {"stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "k4", "pid": 0, "tid": 7, "ts":1712195495506223, "dur": 1,
  "args": {"stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "k5", "pid": 0, "tid": 7, "ts" :  1712195495506224.3, "dur": 0.125,
  "args": {"stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "k6", "pid": 0, "tid": 7, "ts": 1712195495506225.1e0, "dur": 1,
  "args": {"stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "k7", "pid": 0, "tid": 7, "ts": "1712195495506226.12\\u0033", "dur": 1,
  "args": {"stream": 7}}
]}"""
# written by hand from the text above: µs digits × 1000
EXACT_NS = [("k1", 1712195495506220329, 2272),
            ("k2", 1712195495506221001, 1000),    # a nested "ts" key before the event's own
            ("k3", 1712195495506222123, 1000),    # a JSON string
            ("k4", 1712195495506223000, 1000),    # an integer
            ("k5", 1712195495506224300, 125),     # blanks around the colon, one decimal
            ("k6", 1712195495506225100, 1000),    # exponent notation: DECIMAL parse of the raw text
            ("k7", 1712195495506226123, 1000)]    # a JSON string with an escape (\u0033 is "3")


@pytest.mark.parametrize("kind", ["plain", "gzip", "array"])
def test_number_ts_beyond_a_double_keep_their_digits(tmp_path, kind):
    assert float("1712195495506220.329") * 1000 != 1712195495506220329   # the test can fail
    if kind == "array":       # a top-level array (trace_view.json's form): the same event reader
        text, f = EXACT_TEXT[EXACT_TEXT.index("["):EXACT_TEXT.rindex("]") + 1], tmp_path / "trace_view.json"
    else:
        text, f = EXACT_TEXT, tmp_path / ("w.pt.trace.json.gz" if kind == "gzip" else "w.pt.trace.json")
    with (gzip.open(f, "wt") if kind == "gzip" else open(f, "w")) as g:
        g.write(text)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f)
    assert rows(db, "SELECT name, ts_ns, dur_ns FROM event ORDER BY name") == EXACT_NS


@pytest.mark.corpus
def test_hta_ns_resolution_trace_keeps_its_ns(tmp_path):
    """The HTA ns-resolution trace writes epoch µs with 3 decimals as JSON numbers. Expected: the
    first kernel's ts text in the file (1712195495505582.988, read by hand with zcat | grep) and
    every kernel's ts / dur text parsed as Decimal by Python's json module."""
    from decimal import Decimal
    src = corpus_path("hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")
    db = tmp_path / "t.duckdb"
    ingest_paths(db, src)
    got = rows(db, "SELECT ts_ns, dur_ns FROM kernel WHERE copy_kind IS NULL ORDER BY ts_ns")
    assert got[0] == (1712195495505582988, 4928)
    doc = json.load(gzip.open(src, "rt"), parse_float=Decimal)
    want = sorted((int(Decimal(e["ts"]) * 1000), int(Decimal(e["dur"]) * 1000)) for e in doc["traceEvents"]
                  if e.get("cat") == "kernel" and e.get("ph") == "X")
    assert got == want
    # and not one ts of the whole file through a float: every event's ns equal its text's
    evs = sorted(int(Decimal(e["ts"]) * 1000) for e in doc["traceEvents"] if "ts" in e)
    assert [t for (t,) in rows(db, "SELECT ts_ns FROM event WHERE ts_ns IS NOT NULL ORDER BY ts_ns")] == evs
