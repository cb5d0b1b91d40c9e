"""Issue 40 ("Reliability, round 3"), the readers' part: points 2, 4, 5 (SQLite values, gzip
whitespace) and 7 (-shm beside a WAL input, split folders after SIGKILL). Every case here
fails on the code before this branch.

A refusal is an InputError naming the file (and the place: line, table / column / rowid, JSON
path) and what was expected, with every table of the database as before (a good run is in it);
an acceptance is checked against rows counted independently (Python's sqlite3 / json / csv).
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import FIXTURES, ROOT, ingest_paths
from sqlite_micro import connect as sqlite_connect, expected_kernels, nsys_export, profiler_db
from tracedb.cli import app
from tracedb.store.db import connect
from tracedb.errors import InputError
from tracedb.ingestion import ingest as ingest_into
from tracedb.ingestion.sources import jsonsource

OUT = FIXTURES / "ascend/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"
MS = FIXTURES / "mindspore/profiler"
TRACE = MS / "hccl_info/allReduce_1_1/iter1.trace"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def snapshot(con) -> list:
    """Count and content hash of every table (one statement)."""
    tables = con.execute("SELECT schema_name, table_name FROM duckdb_tables() WHERE NOT temporary "
                         "ORDER BY 1, 2").fetchall()
    return con.execute(" UNION ALL ".join(
        f"SELECT '{s}.{t}', count(*), sum(hash(x)::HUGEINT) FROM \"{s}\".\"{t}\" AS x" for s, t in tables)
        + " ORDER BY 1").fetchall()


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    """One database for the module, holding a good run; each case ingests into it (a refused
    case leaves it as it was, an accepted one adds a run of its own)."""
    db = tmp_path_factory.mktemp("good") / "good.duckdb"
    ingest_paths(db, OUT / "step_trace_time.csv", run="good")
    c = connect(db)
    yield c
    c.close()


_runs = iter(range(10**6))


def ingest(con, target: Path) -> str:
    """Ingest ``target`` as a new run (the schema and views are current); its name."""
    run = f"case{next(_runs)}"
    ingest_into(con, [str(target)], run=run, checkpoint=False, schema_current=True)
    return run


def rows_of(con, run: str, sql: str) -> list[tuple]:
    """``sql`` over the rows of one run: ``{run}`` in it is the run's id."""
    run_id = con.execute("SELECT run_id FROM run WHERE run_name = ?", [run]).fetchone()[0]
    return con.execute(sql.format(run=run_id)).fetchall()


def refused(con, target: Path, bad: Path, *words) -> str:
    """Ingest ``target``: an InputError naming ``bad`` and holding ``words``, every table of
    the database as before."""
    before = snapshot(con)
    with pytest.raises(InputError) as e:
        ingest(con, target)
    msg = str(e.value)
    assert str(bad) in msg and "\n" not in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    assert snapshot(con) == before
    return msg


def write(tmp_path: Path, rel: str, data: bytes) -> Path:
    p = tmp_path / "in" / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p


def rank_folder(tmp_path: Path, replace: dict[str, bytes | None] | None = None) -> Path:
    """A copy of the fixture rank folder with some output files replaced (None: removed)."""
    d = tmp_path / "in" / "r0_ascend_pt"
    shutil.copytree(OUT.parent, d)
    for name, data in (replace or {}).items():
        (d / "ASCEND_PROFILER_OUTPUT" / name).unlink()
        if data is not None:
            (d / "ASCEND_PROFILER_OUTPUT" / name).write_bytes(data)
    return d


# ---- point 2: SQLite inputs --------------------------------------------------------------------

def test_p2_nsight_view_where_a_table_is_expected_is_refused_naming_it(con, tmp_path):
    """main read the kernels through the view (a recursive one never ended)."""
    src = nsys_export(tmp_path / "v.sqlite")
    lite = sqlite_connect(src)
    lite.execute("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k0")
    lite.execute("CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM k0")
    lite.commit()
    lite.close()
    refused(con, src, src, "view CUPTI_ACTIVITY_KIND_KERNEL", "is a view, not a table")


def test_p2_profiler_db_view_where_a_table_is_expected_is_refused(con, tmp_path):
    """main took a view named TASK for an absent table: 0 kernels, exit 0."""
    src = profiler_db(tmp_path / "in" / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db")
    lite = sqlite_connect(src)
    lite.execute("ALTER TABLE TASK RENAME TO t0")
    lite.execute("CREATE VIEW TASK AS SELECT * FROM t0")
    lite.commit()
    lite.close()
    refused(con, src.parent.parent, src, "view TASK", "not a table")


@pytest.mark.process
def test_p2_endless_recursive_view_through_the_cli_ends_at_once(tmp_path):
    """main ran for ever (RSS growing, SIGTERM ignored inside the SQLite driver)."""
    src = nsys_export(tmp_path / "rec.sqlite")
    lite = sqlite_connect(src)
    lite.execute("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL")
    lite.execute("CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                "SELECT n + 1 FROM r) SELECT n AS start, n AS end, 0 AS deviceId, 0 AS streamId, n AS correlationId, "
                "0 AS globalPid, 0 AS demangledName, 0 AS shortName FROM r")
    lite.commit()
    lite.close()
    db = tmp_path / "t.duckdb"
    proc = subprocess.Popen([sys.executable, "-m", "tracedb.cli", "-q", "ingest", "--db", str(db), str(src)],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("ingest of an export with a recursive view did not end within 60 s")
    assert proc.returncode == 1, err
    assert err.startswith("tracedb: error: ") and str(src) in err and "is a view" in err, err
    assert not db.exists()


_SLOW_READ = """
import sys
from tracedb.ingestion.sources import sqlitesource
# a read that never ends, as an endless query inside SQLite would (a hostile file can no longer
# make one: views are refused)
endless = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT NULL AS tracedb_rowid FROM r WHERE n < 0"
def endless_select(self, *a, **k):
    print("reading", flush=True)
    return endless
sqlitesource.SqliteInput._select = endless_select
print("ready", flush=True)
from tracedb.cli import main
sys.argv = ["tracedb", "-q", "ingest", "--db", sys.argv[1], sys.argv[2]]
main()
"""


@pytest.mark.process
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_p2_a_signal_stops_a_read_inside_sqlite(tmp_path, sig):
    """A read that does not end inside the driver: SIGTERM / SIGINT end the command within a
    second, exit 130, nothing written (main: the signal waited for the driver, for ever)."""
    src = nsys_export(tmp_path / "n.sqlite")
    db = tmp_path / "t.duckdb"
    # the signal's default disposition in the child: a test run started in the background of a
    # non-interactive shell ignores SIGINT, which tracedb (rightly) keeps ignoring
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_READ, str(db), str(src)], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        # the first read's SQL is made: inside the endless read a moment later (a fixed wait
        # from "ready" could land in the start-up on a loaded machine)
        assert proc.stdout.readline().strip() == "reading", proc.stderr.read()
        time.sleep(0.5)
        assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(sig)
        t0 = time.monotonic()
        _, err = proc.communicate(timeout=30)
        assert time.monotonic() - t0 < 5, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130 and "tracedb: interrupted" in err, (proc.returncode, err)
    assert not db.exists()


@pytest.mark.parametrize("fmt", ["nsys", "ascend_db"])
def test_p2_text_beyond_the_limit_is_refused_with_table_column_and_rowid(con, tmp_path, fmt):
    """A 2 MiB text value (the limit is 1 MiB: real values are < 2 KB): main read it, and a
    200 MB one took 4.1 GB RSS (see the slow test below)."""
    if fmt == "nsys":
        src = nsys_export(tmp_path / "n.sqlite")
        table, col, where, target = "StringIds", "value", "id = 0", src
    else:
        src = profiler_db(tmp_path / "in" / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db")
        table, col, where, target = "META_DATA", "value", "name = 'ENV_VARIABLES'", src.parent.parent
    lite = sqlite_connect(src)
    lite.execute(f"UPDATE {table} SET {col} = printf('%.*c', 2097152, 'x') WHERE {where}")
    rowid = lite.execute(f"SELECT rowid FROM {table} WHERE {where}").fetchone()[0]
    lite.commit()
    lite.close()
    refused(con, target, src, f"table {table}, column {col}, rowid {rowid}",
            "a text of 2,097,152 bytes", "at most 1 MiB")


@pytest.mark.slow
@pytest.mark.process
def test_p2_a_200_mb_text_value_is_refused_in_bounded_memory(tmp_path):
    """main: exit 1 after 19 s at 4.4 GB RSS with "Current transaction is aborted"; now the
    value is refused from its size (SQLite's octet_length does not read it): ~0.2 GB. The value
    is written, and the ingest started, by a small shell (a child's peak RSS counts the memory
    of the process it was forked from)."""
    src = nsys_export(tmp_path / "big.sqlite")
    fill = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
            "c.execute(\"UPDATE StringIds SET value = printf('%.*c', 200000000, 'x') WHERE id = 0\"); c.commit()")
    subprocess.run([sys.executable, "-c", fill, str(src)], check=True, timeout=300)
    code = ("import resource, sys\nfrom tracedb.cli import main\nsys.argv = ['tracedb', '-q', 'ingest', '--db', "
            f"{str(tmp_path / 't.duckdb')!r}, {str(src)!r}]\ntry:\n    main()\nexcept SystemExit as e:\n"
            "    print(e.code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    script = tmp_path / "run.py"
    script.write_text(code)
    res = subprocess.run(["sh", "-c", f'"{sys.executable}" "{script}"; exit $?'], env=ENV, capture_output=True,
                         text=True, timeout=300)
    code, rss_kb = res.stdout.split()
    assert code == "1" and "StringIds.value holds a text of 200,000,000 bytes" in res.stderr, res.stderr
    assert int(rss_kb) < 400_000, rss_kb


@pytest.mark.parametrize("fmt", ["nsys", "ascend_db"])
def test_p7_a_wal_mode_input_gets_no_shm_or_wal_file_beside_it(con, tmp_path, fmt):
    """The file is opened immutable: main left <file>-shm and <file>-wal beside a WAL-mode
    input."""
    if fmt == "nsys":
        (tmp_path / "in").mkdir()
        src = target = nsys_export(tmp_path / "in" / "w.sqlite", wal=True)
    else:
        src = profiler_db(tmp_path / "in" / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db",
                          wal=True)
        target = src.parent.parent
    before = sorted(p.name for p in src.parent.iterdir())
    run = ingest(con, target)
    assert sorted(p.name for p in src.parent.iterdir()) == before == [src.name]
    assert rows_of(con, run, "SELECT count(*) FROM kernel WHERE run_id = {run}") == [(expected_kernels(src, fmt),)]


# ---- point 5: wrong-typed SQLite values --------------------------------------------------------

@pytest.mark.parametrize("value, words", [
    ("'abc'", ("the text 'abc'",)),
    ("2.5", ("the real number 2.5",)),             # main rounded it into the int64 column
    ("x'00ff'", ("a blob of 2 bytes",)),          # main kept it as text
    ("9223372036854775807", ("the integer 9223372036854775807", "±2^62")),
], ids=["text", "real", "blob", "beyond_2^62"])
def test_p5_a_wrong_typed_value_names_table_column_rowid_and_the_value(con, tmp_path, value, words):
    """main: "Current transaction is aborted (please ROLLBACK)" for text, silent for the others."""
    src = nsys_export(tmp_path / "n.sqlite")
    lite = sqlite_connect(src)
    lite.execute(f"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = {value} WHERE rowid = 2")
    lite.commit()
    lite.close()
    msg = refused(con, src, src, "table CUPTI_ACTIVITY_KIND_KERNEL, column start, rowid 2",
                  "CUPTI_ACTIVITY_KIND_KERNEL.start holds", "not an integer time in ns", *words)
    assert "transaction" not in msg


@pytest.mark.parametrize("update, words", [
    ("demangledName = 99", ("column demangledName", "the string id 99, which StringIds does not have")),
    ("start = NULL", ("column start, rowid 2", "holds NULL")),
], ids=["dangling_name", "null_start"])
def test_p5_a_kernel_without_its_name_or_start_is_refused_naming_the_column(con, tmp_path, update, words):
    """main: "Current transaction is aborted" (a NOT NULL column of kernel, hidden)."""
    src = nsys_export(tmp_path / "n.sqlite")
    lite = sqlite_connect(src)
    lite.execute(f"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET {update} WHERE rowid = 2")
    lite.commit()
    lite.close()
    refused(con, src, src, "CUPTI_ACTIVITY_KIND_KERNEL", *words)


def test_p5_a_repeated_string_id_is_refused_not_a_doubled_kernel(con, tmp_path):
    src = nsys_export(tmp_path / "n.sqlite")
    lite = sqlite_connect(src)
    lite.execute("CREATE TABLE s2 (id INTEGER, value TEXT)")
    lite.execute("INSERT INTO s2 SELECT id, value FROM StringIds")
    lite.execute("INSERT INTO s2 VALUES (0, 'add_one again')")
    lite.execute("DROP TABLE StringIds")
    lite.execute("ALTER TABLE s2 RENAME TO StringIds")
    lite.commit()
    lite.close()
    refused(con, src, src, "StringIds.id holds the id 0 more than once")


# ---- point 5: a valid .json.gz with much whitespace --------------------------------------------

def _gzip_with_blanks(path: Path, head: bytes, blanks: int, tail: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    z = zlib.compressobj(6, zlib.DEFLATED, 31)
    block = b" \n" * (1 << 19)
    with open(path, "wb") as f:
        f.write(z.compress(head))
        for _ in range(blanks // len(block)):
            f.write(z.compress(block))
        f.write(z.compress(tail) + z.flush())
    return path


EVENTS = [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "1.0", "dur": 1},
          {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": "3.0", "dur": 1}]


@pytest.mark.parametrize("where", ["after", "before"])
def test_p5_trace_view_gzip_with_much_whitespace_is_read_whole(con, tmp_path, where):
    """1 MiB of blanks. main: "the JSON array is not closed: the file is truncated" (after: main
    looked at the last 4 KiB), "file is empty" (before: the first 64 KiB)."""
    doc = json.dumps(EVENTS).encode()
    head, tail = (doc, b"") if where == "after" else (b"", doc)
    f = _gzip_with_blanks(tmp_path / "in" / "trace_view.json.gz", head, 1 << 20, tail)
    run = ingest(con, f)
    assert rows_of(con, run, "SELECT name, ts_ns FROM event WHERE run_id = {run} ORDER BY ts_ns") == [
        ("a", 1000), ("b", 3000)]


@pytest.mark.parametrize("where", ["after", "inside", "before"])
def test_p5_kineto_gzip_with_much_whitespace_is_read_whole(con, tmp_path, monkeypatch, where):
    """2 MiB of blanks, more than the window the end of the array is looked for in. main:
    "the traceEvents array has no end" (after the object, or between its array and its end),
    "file is empty" (before)."""
    monkeypatch.setattr(jsonsource, "TAIL_WINDOW", 1 << 20)        # 8 MiB and 4 MiB by default: the same
    monkeypatch.setattr(jsonsource, "CHUNK", 1 << 18)              # logic, on less whitespace
    doc = json.dumps({"traceEvents": EVENTS, "baseTimeNanoseconds": 7}).encode()
    head, tail = {"after": (doc, b""), "inside": (doc[:-1], b"}"), "before": (b"", doc)}[where]
    f = _gzip_with_blanks(tmp_path / "in" / "rank0.pt.trace.json.gz", head, 2 << 20, tail)
    run = ingest(con, f)
    assert rows_of(con, run, "SELECT name, ts_ns FROM event WHERE run_id = {run} ORDER BY ts_ns") == [
        ("a", 1007), ("b", 3007)]


# ---- point 4: doubled documents, short rows, non-object events ---------------------------------

def test_p4_hccl_trace_holding_its_document_twice_is_refused(con, tmp_path):
    """main stored every task twice (38 links for 19), exit 0."""
    data = TRACE.read_bytes()
    f = write(tmp_path, "hccl_info_6/allReduce_1_1/iter1.trace", data + b"\n" + data)
    refused(con, f, f, "JSON document 2", "holds 2 JSON documents")


def test_p4_pipeline_profiling_holding_its_document_twice_is_refused(con, tmp_path):
    doc = json.dumps({"sampling_interval": 10, "op_info": [
        {"op_id": 0, "op_type": "Batch", "num_workers": 1, "children": [1], "metrics": {"output_queue": {"length": 4, "size": [1, 2]}}},
        {"op_id": 1, "op_type": "Map", "num_workers": 2, "metrics": None}]}).encode()
    once = write(tmp_path, "once/pipeline_profiling_0.json", doc)
    run = ingest(con, once)
    assert rows_of(con, run, "SELECT count(*) FROM data_pipeline WHERE run_id = {run}") == [(3,)]   # 2 samples + 1 op
    f = write(tmp_path, "pipeline_profiling_0.json", doc + b"\n" + doc)
    refused(con, f, f, "JSON document 2", "holds 2 JSON documents")


MIDDLE_SHORT = ["memory_record.csv", "operator_memory.csv", "npu_module_mem.csv", "kernel_details.csv"]


@pytest.mark.parametrize("name", MIDDLE_SHORT)
def test_p4_a_short_row_in_the_middle_is_refused_with_its_line(con, tmp_path, name):
    """main padded it with NULLs (a row of NULLs in memory)."""
    lines = (OUT / name).read_bytes().splitlines(keepends=True)
    k = len(lines) // 2
    cells = lines[k].split(b",")
    lines[k] = b",".join(cells[:2]) + b"\r\n"
    f = write(tmp_path, name, b"".join(lines))
    n_header = len(lines[0].split(b","))
    refused(con, f, f, f"line {k + 1}", f"the row has 2 cells, the header {n_header}")


def test_p4_a_short_row_in_the_middle_of_the_minddata_csv_is_refused(con, tmp_path):
    f = write(tmp_path, "minddata_pipeline_raw_0.csv",
              b"op_id,op_type,num_workers,output_queue_size,output_queue_average_size,output_queue_length,"
              b"output_queue_usage_rate,sample_interval,parent_id,children_id\n"
              b"0,Batch,1,[1],1,4,0.25,10,,[1]\n1,Map\n2,Shuffle,1,[1],1,4,0.25,10,0,\n")
    refused(con, f, f, "line 3", "the row has 2 cells, the header 10")


@pytest.mark.parametrize("case", ["trace_view", "kineto", "kineto_gz", "hccl_trace"])
def test_p4_an_event_that_is_not_an_object_is_refused(con, tmp_path, case):
    """main made a row of NULLs of 42 (and of "x", [2] ...)."""
    if case == "trace_view":
        f = write(tmp_path, "trace_view.json", json.dumps([EVENTS[0], 42, EVENTS[1]]).encode())
        words = ("event 2", "not a JSON object")
    elif case.startswith("kineto"):
        doc = json.dumps({"traceEvents": [EVENTS[0], "x", EVENTS[1]]}).encode()
        gz = case.endswith("gz")
        f = write(tmp_path, "r.pt.trace.json" + (".gz" if gz else ""), gzip.compress(doc) if gz else doc)
        words = ("traceEvents", "not a JSON object")
    else:
        doc = json.loads(TRACE.read_text())
        doc["traceEvents"].insert(3, [1, 2])
        f = write(tmp_path, "hccl_info_6/allReduce_1_1/iter1.trace", json.dumps(doc).encode())
        words = ("traceEvents[3]", "not a JSON object")
    refused(con, f, f, *words)


@pytest.mark.parametrize("target", ["fifo", "device"])
def test_p4_a_profiler_file_name_that_is_not_a_regular_file_is_refused_through_the_cli(tmp_path, target):
    """main: "ingested 6 file(s), skipped 0", 0 kernels from kernel_details, exit 0."""
    d = rank_folder(tmp_path, {"kernel_details.csv": None})
    k = d / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    if target == "fifo":
        os.mkfifo(k)
    else:
        os.symlink("/dev/null", k)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, OUT / "step_trace_time.csv", run="good")
    with connect(db, read_only=True) as c:
        before = snapshot(c)
    res = CliRunner().invoke(app, ["ingest", str(d), "--db", str(db)])
    assert res.exit_code == 1, res.output
    err = res.stderr.strip().splitlines()[-1]
    assert err.startswith("tracedb: error: ") and str(k) in err and "not a regular file" in err, err
    with connect(db, read_only=True) as c:
        assert snapshot(c) == before


@pytest.mark.parametrize("bad", [b"\x00", b"\xff\xfe"], ids=["NUL", "not_utf8"])
def test_p4_nul_or_invalid_utf8_in_a_cell_no_reader_uses_is_refused(con, tmp_path, bad):
    """The Model ID cell of line 3 (kernel_details reads neither it nor its Task ID)."""
    data = (OUT / "kernel_details.csv").read_bytes()
    line3 = data.index(b"\n", data.index(b"\n") + 1) + 1
    at = data.index(b",", line3) + 1                 # the second cell of line 3
    f = write(tmp_path, "kernel_details.csv", data[:at] + b"12" + bad + b"3" + data[at:])
    refused(con, f, f, "line 3", f"byte {at + 2}",
            "NUL byte" if bad == b"\x00" else "not UTF-8")


def test_p4_hccl_raw_step_num_that_is_not_a_step_is_refused(con, tmp_path):
    """main skipped the row as if it were the '-' average row."""
    lines = (MS / "hccl_raw_6.csv").read_bytes().splitlines(keepends=True)
    lines[2] = b"abc" + lines[2][lines[2].index(b","):]
    f = write(tmp_path, "hccl_raw_6.csv", b"".join(lines))
    refused(con, f, f, "line 3", "'step_num' holds 'abc'", "not a step number")


@pytest.mark.parametrize("key, value, words", [
    ("config", "x", ("(config)", "config holds 'x', not a JSON object")),
    ("rank_id", "²", ("(rank_id)", "rank_id holds '²', not an integer")),
    ("rank_id", 1.5, ("(rank_id)", "rank_id holds 1.5, not an integer")),
])
def test_p4_profiler_info_values_outside_their_domain_are_refused(con, tmp_path, key, value, words):
    """main took them for absent (rank from the file name or the next free number)."""
    d = rank_folder(tmp_path)
    info = d / "profiler_info_0.json"
    doc = json.loads(info.read_text())
    doc[key] = value
    info.write_text(json.dumps(doc, ensure_ascii=False))
    refused(con, d, info, *words)


def test_p4_metadata_args_5000_deep_are_refused(con, tmp_path):
    deep = '{"a":' * 5000 + "1" + "}" * 5000
    f = write(tmp_path, "trace_view.json", ('[{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "p", '
                                            '"x": ' + deep + '}}, ' + json.dumps(EVENTS[0]) + "]").encode())
    refused(con, f, f, "metadata event 'process_name' of pid 1", "5,001 levels deep")


def test_p4_a_bad_metadata_args_is_reported_against_the_file(con, tmp_path):
    """args a string: main stored it unquoted and the derive step failed naming the rank folder."""
    d = rank_folder(tmp_path)
    tv = d / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    events = json.loads(tv.read_text())
    first_meta = next(i for i, e in enumerate(events) if e.get("ph") == "M")
    events[first_meta]["args"] = "notjson{"
    tv.write_text(json.dumps(events))
    refused(con, d, tv, f"event {first_meta + 1:,}", "args is not a JSON object")


# ---- point 7: split folders left by SIGKILL -------------------------------------------------------

_KILLED_IN_SPLIT_READ = """
import sys, time
from tracedb.ingestion.readers import chrome
chrome.split_parts = lambda path, threads: 2           # a split read however small the file
enter = chrome.SplitArray.__enter__
def stop_here(self):
    print(self.dir, flush=True)
    time.sleep(120)
    return enter(self)
chrome.SplitArray.__enter__ = stop_here
from tracedb.cli import main
sys.argv = ["tracedb", "-q", "ingest", "--db", sys.argv[1], sys.argv[2]]
main()
"""


@pytest.mark.process
def test_p7_split_folders_of_a_killed_ingest_are_removed_by_the_next(tmp_path):
    """main left tracedb-split-* (its FIFOs) in $TMPDIR for good."""
    tmp = tmp_path / "tmpdir"
    tmp.mkdir()
    env = {**ENV, "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_IN_SPLIT_READ, str(tmp_path / "a.duckdb"),
                             str(OUT / "trace_view.json")], env=env, stdout=subprocess.PIPE, text=True)
    try:
        split = Path(proc.stdout.readline().strip())
        assert split.is_dir() and split.name.startswith("tracedb-split-") and list(split.iterdir())
    finally:
        proc.kill()
        proc.wait()
    assert split.is_dir()                     # SIGKILL: nothing cleaned up
    res = subprocess.run([sys.executable, "-m", "tracedb.cli", "-q", "ingest", "--db", str(tmp_path / "b.duckdb"),
                          str(OUT / "step_trace_time.csv")], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert not split.exists()
    assert not [p for p in tmp.iterdir() if p.name.startswith("tracedb-")]
