"""The set-based ingest (issue 44): a batch of ranks is read with one statement per format
(the trace_view.json files together) and derived once, and writes the same rows as the
per-rank path (``TRACEDB_INGEST_PER_RANK=1``: each file on its own, each rank derived right
after its files); a bad file among many is named as the per-rank path names it."""
from __future__ import annotations

import gzip
import json
import re

import duckdb
import pytest

from conftest import KINETO, LEVEL1, ingest_paths, rows
from tracedb.errors import InputError
from tracedb.ingestion import derive
from tracedb.ingestion.readers import SET_READERS, SetReader, trace_set


def _rank(root, rank: int, events: list[dict], numeric_ts: bool = False, kernels: str | None = None):
    """A rank folder with ``events`` as trace_view.json; ``numeric_ts``: every ts written as a
    JSON number (its digits as they are) instead of a string; ``kernels``: its kernel_details.csv."""
    d = root / f"host{rank}_123_20250101_ascend_pt"
    (d / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    text = json.dumps(events)
    if numeric_ts:
        text = re.sub(r'"ts": "([0-9.]+)"', r'"ts": \1', text)
    (d / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").write_text(text)
    (d / f"profiler_info_{rank}.json").write_text(json.dumps({"rank_id": str(rank)}))
    if kernels is not None:
        (d / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv").write_text(kernels)
    return d


def _events(rank: int) -> list[dict]:
    """A small torch_npu trace: names, a step, an op, a device task and its flow; ts as text."""
    base = 1719000000100000 + rank * 1000

    def ts(us: str) -> str:         # base + "10.125": µs with 3 decimals, as torch_npu writes them
        whole, frac = us.split(".")
        return f"{base + int(whole)}.{frac}"
    return [
        {"ph": "M", "name": "process_name", "pid": 10 + rank, "tid": 0, "args": {"name": "Python"}},
        {"ph": "M", "name": "process_name", "pid": 93422560, "tid": 0, "args": {"name": "Ascend Hardware"}},
        {"ph": "M", "name": "process_labels", "pid": 93422560, "tid": 0, "args": {"labels": f"NPU {rank}"}},
        {"ph": "M", "name": "thread_name", "pid": 93422560, "tid": 2, "args": {"name": "Stream 2"}},
        {"ph": "X", "name": "ProfilerStep#1", "pid": 10 + rank, "tid": 1, "ts": ts("0.250"), "dur": 900.5,
         "cat": "cpu_op"},
        {"ph": "X", "name": "aten::mm", "pid": 10 + rank, "tid": 1, "ts": ts("10.125"), "dur": 100,
         "cat": "cpu_op", "args": {"Input Dims": [[64, 32], [32, 16]], "Input type": ["float", "float"]}},
        {"ph": "X", "name": "aclnnMm_MatMulV2", "pid": 93422560, "tid": 2, "ts": ts("120.500"), "dur": 50.5,
         "args": {"Task Type": "AI_CORE"}},
        {"ph": "s", "name": "torch_to_npu", "id": 7, "pid": 10 + rank, "tid": 1, "ts": ts("10.125"),
         "cat": "async_npu", "bp": "e"},
        {"ph": "f", "name": "torch_to_npu", "id": 7, "pid": 93422560, "tid": 2, "ts": ts("120.500"),
         "cat": "async_npu", "bp": "e"},
    ]


def _tables(db) -> dict[str, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall():
            cols = [c for (c,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE schema_name = 'main' "
                                              "AND table_name = ? ORDER BY column_index", [t]).fetchall()
                    if c != "ingested_at"]
            out[t] = sorted(map(repr, con.execute(f'SELECT {", ".join(chr(34) + c + chr(34) for c in cols)} '
                                                  f'FROM "{t}"').fetchall()))
        return out
    finally:
        con.close()


@pytest.fixture
def spy(monkeypatch):
    """The files of each read of many files (trace_view.json reads), the kernel_details.csv
    reads, and the ranks of each derive."""
    seen = {"reads": [], "csv_reads": [], "kineto_reads": [], "derives": []}
    for fmt, key in (("trace_view", "reads"), ("kernel_details", "csv_reads"), ("kineto", "kineto_reads")):
        reader = SET_READERS[fmt]
        monkeypatch.setitem(SET_READERS, fmt, SetReader(reader.takes, lambda con, files, r=reader.read, k=key:
                                                        seen[k].append(len(files)) or r(con, files),
                                                        reader.prepare))
    run_set = derive.run_set
    monkeypatch.setattr(derive, "run_set", lambda con, ranks: seen["derives"].append(len(set(ranks))) or
                        run_set(con, ranks))
    return seen


def _both(tmp_path, monkeypatch, *paths):
    """(set-based database, per-rank database) of the same inputs."""
    a, b = tmp_path / "set.duckdb", tmp_path / "rank.duckdb"
    ingest_paths(a, *paths)
    monkeypatch.setenv("TRACEDB_INGEST_PER_RANK", "1")
    ingest_paths(b, *paths)
    monkeypatch.delenv("TRACEDB_INGEST_PER_RANK")
    return a, b


def test_set_ingest_writes_the_per_rank_rows_level1(tmp_path, monkeypatch, spy):
    """Two real torch_npu ranks (trace_view, kernel_details, communication, memory, …): their
    trace_view.json files in one read, one derive over both ranks; every table holds the rows of
    the per-rank path."""
    a, b = _both(tmp_path, monkeypatch, LEVEL1)
    assert spy["reads"] == [2] and spy["csv_reads"] == [2] and spy["derives"] == [2, 1, 1]
    assert _tables(a) == _tables(b)
    assert rows(a, "SELECT count(*) FROM event")[0][0] > 0


def test_set_ingest_writes_the_per_rank_rows_kineto(tmp_path, monkeypatch, spy):
    """Two sampled Kineto ranks (gzip object traces: read one by one), derived together."""
    a, b = _both(tmp_path, monkeypatch, KINETO)
    assert spy["reads"] == [] and spy["kineto_reads"] == [] and spy["derives"] == [2, 1, 1]
    assert _tables(a) == _tables(b)


def test_plain_kineto_traces_read_together(tmp_path, monkeypatch, spy):
    """The same two Kineto ranks as plain files: their ranks come from their heads
    (distributedInfo) before the read, both arrays are read in one statement, and every table
    holds the rows of the per-rank path (each file on its own)."""
    plain = tmp_path / "plain"
    plain.mkdir()
    for f in sorted(KINETO.glob("*.json.gz")):
        (plain / f.name[:-3]).write_bytes(gzip.decompress(f.read_bytes()))
    a, b = _both(tmp_path, monkeypatch, plain)
    assert spy["kineto_reads"] == [2] and spy["derives"] == [2, 1, 1]
    assert _tables(a) == _tables(b)
    assert rows(a, "SELECT rank, rank_source FROM rank ORDER BY rank") == [(0, "distributedInfo"),
                                                                          (1, "distributedInfo")]


def _kineto_doc(rank: int, tail: dict) -> dict:
    """A Kineto trace of rank ``rank``: a step and a kernel at 1000 and 1120.512 µs after its
    baseTimeNanoseconds (in ``tail``, after the array)."""
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
            "traceEvents": [
                {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1,
                 "ts": 1000.000, "dur": 500.5},
                {"ph": "X", "cat": "kernel", "name": "ampere_sgemm", "pid": 0, "tid": 7, "ts": 1120.512,
                 "dur": 95.25, "args": {"device": 0, "stream": 7, "correlation": 5001}}],
            **tail}


@pytest.mark.parametrize("tail_array", [False, True], ids=["short_tail", "long_array_after_events"])
def test_kineto_base_time_after_the_array(tmp_path, monkeypatch, spy, tail_array):
    """Two plain Kineto traces whose baseTimeNanoseconds follows the array: each one's ts are
    offset by its own. With an array of 100 KB after traceEvents (longer than the last 64 KiB
    where the end of the array is looked for first), the first end found is that array's: the
    read fails on the content after it and the ingest reads the files again in one piece,
    with the same rows as the per-rank path."""
    tail = {"samples": [{"n": i, "frames": [i, i + 1]} for i in range(6000)]} if tail_array else {}
    root = tmp_path / "job"
    root.mkdir()
    for r in (0, 1):
        doc = _kineto_doc(r, {**tail, "traceName": "x", "baseTimeNanoseconds": 1719000000000000000 + r * 10**9})
        (root / f"rank{r}.pt.trace.json").write_text(json.dumps(doc, indent=1))
    said = []
    a = tmp_path / "set.duckdb"
    ingest_paths(a, root, progress=said.append)
    assert rows(a, "SELECT rank, ts_ns, step FROM kernel ORDER BY rank") == [
        (0, 1719000000001120512, 3), (1, 1719000001001120512, 3)]
    assert ("parallel read failed; reading the files again in one piece" in said) == tail_array
    b = tmp_path / "rank.duckdb"
    monkeypatch.setenv("TRACEDB_INGEST_PER_RANK", "1")
    ingest_paths(b, root)
    assert _tables(a) == _tables(b)


def test_raw_ts_file_in_a_set_is_read_again_on_its_own(tmp_path, monkeypatch, spy):
    """Three ranks read together; rank 1's ts are JSON numbers of epoch µs with decimals, which
    the typed read cannot give exactly (a double): its rows come from the raw read, exact to the
    ns, the others' from the set read."""
    root = tmp_path / "job"
    for r in range(3):
        _rank(root, r, _events(r), numeric_ts=(r == 1))
    again = []
    insert_events = trace_set.insert_events
    monkeypatch.setattr(trace_set, "insert_events", lambda con, f, *a, **k: again.append(f.rank) or
                        insert_events(con, f, *a, **k))
    a, b = _both(tmp_path, monkeypatch, root)
    assert spy["reads"] == [3] and again == [1]
    assert _tables(a) == _tables(b)
    # 1719000000101000 + 10.125 µs, written as a JSON number: 1719000000101010.125 in ns exactly
    assert rows(a, "SELECT rank, ts_ns FROM event WHERE name = 'aten::mm' ORDER BY rank") == [
        (0, 1719000000100010125), (1, 1719000000101010125), (2, 1719000000102010125)]
    assert rows(a, "SELECT DISTINCT rank, process_name, thread_name FROM event WHERE name = 'aclnnMm_MatMulV2' "
                   "ORDER BY rank") == [(0, "Ascend Hardware", "Stream 2"), (1, "Ascend Hardware", "Stream 2"),
                                        (2, "Ascend Hardware", "Stream 2")]
    assert rows(a, "SELECT rank, device_id FROM rank ORDER BY rank") == [(0, 0), (1, 1), (2, 2)]
    # aten::mm is each rank's one op (ProfilerStep#1 is a step), launching its one kernel
    assert rows(a, "SELECT rank, op_id FROM kernel ORDER BY rank") == [(0, 1), (1, 1), (2, 1)]


def test_a_bad_file_among_many_is_named_as_on_its_own(tmp_path, monkeypatch):
    """A trace_view.json broken inside (an event cut, the array still closed) among three: the
    set read fails in DuckDB, the ingest reads the files again one by one, and the error is the
    per-rank path's: the file and the place; nothing is written."""
    root = tmp_path / "job"
    for r in range(3):
        _rank(root, r, _events(r))
    bad = next(root.glob("host1_*")) / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    text = bad.read_text()
    bad.write_text(text.replace('"aten::mm", "pid": 11,', '"aten::mm", "pid": 11 "oops",', 1))
    errors = []
    for per_rank in (False, True):
        if per_rank:
            monkeypatch.setenv("TRACEDB_INGEST_PER_RANK", "1")
        db = tmp_path / f"bad{per_rank}.duckdb"
        with pytest.raises(InputError) as e:
            ingest_paths(db, root)
        errors.append((str(e.value), e.value.file, e.value.place))
        assert not db.exists()          # the file this ingest created is removed again
    assert errors[0] == errors[1]
    assert errors[0][1] == str(bad)


# kernel_details.csv of two header variants: Level1 with a PMU column (ranks 0 and 2, read in one
# INSERT) and Level0 (rank 1, a header of its own: read alone); start times with torch_npu's TAB
LEVEL1_CSV = ("Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),"
              "aic_mac_ratio\n"
              "1,2,aclnnMm_MatMulV2,MatMulV2,AI_CORE,{a}.500\t,50.5,0,0.25\n"
              "1,2,aclnnAdd_Add,Add,AI_VECTOR_CORE,{b}.001\t,3.25,1.5,N/A\n")
LEVEL0_CSV = ("Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
              "aclnnMm_MatMulV2,MatMulV2,AI_CORE,{a}.500\t,50.5\n")


def _kernel_ranks(root, bad: dict[int, tuple[str, str]] | None = None):
    """Three ranks with trace_view.json and kernel_details.csv (rank 1 Level0); ``bad``: rank →
    (text, replacement) made once in its CSV."""
    for r in range(3):
        base = 1719000000100000 + r * 1000         # as _events: the kernels at +120.5 and +200.001 µs
        text = (LEVEL0_CSV if r == 1 else LEVEL1_CSV).format(a=base + 120, b=base + 200)
        if bad and r in bad:
            text = text.replace(*bad[r], 1)
        _rank(root, r, _events(r), kernels=text)


def test_kernel_details_of_a_set_read_together(tmp_path, monkeypatch, spy):
    """The kernel_details.csv files of three ranks go to the set reader together (ranks 0 and 2
    share a header: one INSERT; rank 1's own header: alone); every table equals the per-rank
    path's, kernel ids are each file's row numbers and the PMU rows only the Level1 files'."""
    root = tmp_path / "job"
    _kernel_ranks(root)
    a, b = _both(tmp_path, monkeypatch, root)
    assert spy["csv_reads"] == [3]
    assert _tables(a) == _tables(b)
    # by hand from LEVEL1_CSV / LEVEL0_CSV: (rank, kernel_id, step, stream_id) per row
    assert rows(a, "SELECT rank, kernel_id, step, stream_id FROM kernel_details_raw ORDER BY rank, kernel_id") == [
        (0, 1, 1, "2"), (0, 2, 1, "2"), (1, 1, None, None), (2, 1, 1, "2"), (2, 2, 1, "2")]
    assert rows(a, "SELECT rank, kernel_id, aic_mac_ratio FROM kernel_pmu_raw ORDER BY rank, kernel_id") == [
        (0, 1, 0.25), (2, 1, 0.25)]
    # 1719000000102000 + 200.001 µs = 1719000000102200001 ns; 3.25 µs; wait 1.5 µs
    assert rows(a, "SELECT ts_ns, dur_ns, wait_ns FROM kernel WHERE rank = 2 AND name = 'aclnnAdd_Add'") == [
        (1719000000102200001, 3250, 1500)]


@pytest.mark.parametrize("rank, edit, message", [
    # a Step Id that is not a number: DuckDB fails the shared INSERT of ranks 0 and 2
    (2, ("1,2,aclnnAdd", "x,2,aclnnAdd"), "column 'Step Id' holds a value that is not a number"),
    # a negative duration: the INSERT succeeds, the row check after it refuses the file
    (2, (",3.25,", ",-1,"), "column 'Duration(us)' is negative"),
    # a duration that is not a number in the file read alone (its own header)
    (1, (",50.5", ",x"), "column 'Duration(us)' is empty, not a number or out of range"),
])
def test_a_bad_kernel_details_among_many_is_named(tmp_path, spy, rank, edit, message):
    """A bad cell on line 3 of one of three kernel_details.csv read together: the error names
    that file and line (as the per-rank path does: the ingest reads the files again rank by
    rank to name the first bad one); nothing is written."""
    root = tmp_path / "job"
    _kernel_ranks(root, {rank: edit})
    bad = next(root.glob(f"host{rank}_*")) / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    db = tmp_path / "bad.duckdb"
    with pytest.raises(InputError) as e:
        ingest_paths(db, root)
    assert spy["csv_reads"][0] == 3            # the set read ran first
    assert (e.value.file, e.value.place) == (str(bad), "line 3" if rank != 1 else "line 2")
    assert message in str(e.value)
    assert not db.exists()


def _deep(levels: int):
    """A JSON value nested ``levels`` deep (lists in lists)."""
    v: list = []
    for _ in range(levels - 1):
        v = [v]
    return v


@pytest.mark.parametrize("edit, what, place", [
    # an args that is not an object: DuckDB stops the one statement (main's check, chrome.args_sql)
    (lambda ev: ev[5].update(args="oops"), "an event's args is not a JSON object", "event 6"),
    # metadata args nested 40 deep (> MAX_META_DEPTH 32): refused after the read (chrome.check_metadata);
    # the object counts one level: 1 + 40 lists = 41
    (lambda ev: ev[0]["args"].update(x=_deep(40)), "nest 41 levels deep", "metadata event 'process_name' of pid 11, tid 0"),
])
def test_main_checks_hold_in_a_set(tmp_path, spy, edit, what, place):
    """The checks a trace_view.json read on its own makes hold for a file read with two others:
    the error names the file and the place."""
    root = tmp_path / "job"
    for r in range(3):
        events = _events(r)
        if r == 1:
            edit(events)
        _rank(root, r, events)
    bad = next(root.glob("host1_*")) / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    db = tmp_path / "bad.duckdb"
    with pytest.raises(InputError) as e:
        ingest_paths(db, root)
    assert spy["reads"][0] == 3
    assert (e.value.file, e.value.place) == (str(bad), place) and what in str(e.value)
    assert not db.exists()


def test_kineto_traces_with_epoch_decimal_ts_are_read_on_their_own(tmp_path, monkeypatch, spy):
    """Kineto traces whose ts are epoch µs with decimals (no baseTimeNanoseconds; older Kineto)
    need the raw text for exact ns, which the set read's typed columns cannot give: they are
    read one by one the raw way, not read together and then again."""
    root = tmp_path / "job"
    root.mkdir()
    for r in (0, 1):
        doc = _kineto_doc(r, {"traceName": "x"})
        for e in doc["traceEvents"]:
            e["ts"] = 1719000000000000 + r * 10**6 + e["ts"]
        text = json.dumps(doc, indent=1)
        # the digits as Kineto prints them (json.dumps of the float would round them)
        text = text.replace("1719000000001000.0", "1719000000001000.000").replace(
            "1719000000001120.5", "1719000000001120.512").replace(
            "1719000001001000.0", "1719000001001000.000").replace("1719000001001120.5", "1719000001001120.512")
        (root / f"rank{r}.pt.trace.json").write_text(text)
    a, b = _both(tmp_path, monkeypatch, root)
    assert spy["kineto_reads"] == []
    assert rows(a, "SELECT rank, ts_ns FROM kernel ORDER BY rank") == [
        (0, 1719000000001120512), (1, 1719000001001120512)]
    assert _tables(a) == _tables(b)


@pytest.mark.parametrize("damage, message", [
    (lambda t: t.replace('"traceEvents"', '"traceEventz"'), 'no "traceEvents" array found'),
    (lambda t: t[:len(t) * 2 // 3], "the traceEvents array has no end"),
], ids=["no_events_key", "truncated"])
def test_a_bad_kineto_trace_among_many_is_named(tmp_path, damage, message):
    """A Kineto trace of a batch without its traceEvents key (refused when its rank is read) or
    cut short (its end not found: read on its own, as a stream): the error names that file, as
    when it is read alone, and no database is left."""
    root = tmp_path / "job"
    root.mkdir()
    for r in (0, 1):
        text = json.dumps(_kineto_doc(r, {"baseTimeNanoseconds": 1719000000000000000}), indent=1)
        (root / f"rank{r}.pt.trace.json").write_text(damage(text) if r == 1 else text)
    db = tmp_path / "t.duckdb"
    with pytest.raises(InputError, match=message) as e:
        ingest_paths(db, root)
    assert e.value.file.endswith("rank1.pt.trace.json")
    assert not db.exists()
