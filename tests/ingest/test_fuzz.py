"""Seeded fuzz campaign over every input format (issue 19, "Done when").

For each format, >= 50 mutations of a fixture file (truncations, byte flips, deep nesting, huge
numbers, wrong types, BOM / CRLF variants, ragged rows, stray quotes, terminal escapes) are
ingested, in-process through :func:`tracedb.ingestion.ingest`, into a database that already holds
a good run. Each must end in one of two ways:

* success, with as many rows as a strict, independent parser (Python's json / csv) finds in
  the mutated file (no row silently dropped); or
* an :class:`~tracedb.errors.InputError` whose message names the mutated file, with every table
  of the database exactly as before (count and content hash of each).

Any other exception (a traceback), a message without the file name, a changed database or a
case running longer than ``TIMEOUT`` seconds fails the test. Seeds are fixed; the view library
is installed once (``tracedb.store.library.install`` does not read input files) to keep the campaign within
about three minutes; a sample per format also runs through the CLI with everything.
"""
from __future__ import annotations

import csv
import gzip
import importlib
import io
import json
import random
import re
import shutil
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import FIXTURES, MINDSPORE, RANK0
from tracedb.cli import app
from tracedb.store.db import connect
from tracedb.errors import InputError, TracedbError

ingest_pkg = importlib.import_module("tracedb.ingestion")
pytestmark = pytest.mark.slow        # minutes of ingests: CI runs the campaign, the default set does not
N = 52                      # mutations per format
TIMEOUT = 60                # seconds per case
ASCEND = RANK0
OUT = ASCEND / "ASCEND_PROFILER_OUTPUT"
MS = MINDSPORE

HUGE = [b"1e400", b"-1e400", b"9223372036854775.807", b"9223372036854775807", b"99999999999999999999999",
        b"2147483648", b"1e308", b"NaN", b"Infinity", b"-0", b"0x1F", b"1" * 5000]
TEXT = [b"abc", b"N/A", b"", b"\x1b[31mred\x1b[0m", b"\xff\xfe", b"\"\"", b"1.2.3", b"--5"]
JSON_WRONG = [b'{"a": 1}', b"[1, 2]", b'"text"', b"null", b"true"]


# ---- seeds: small files cut from the fixtures --------------------------------------------------

def _csv_head(path: Path, rows: int) -> bytes:
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    return b"".join(lines[: rows + 1])


def _trace_view_seed() -> bytes:
    events = json.loads((OUT / "trace_view.json").read_bytes())
    meta = [e for e in events if e.get("ph") == "M"]
    other = [e for e in events if e.get("ph") != "M"][:150]
    return json.dumps(meta + other).encode()


def _kineto_seed() -> bytes:
    doc = json.loads(gzip.decompress((FIXTURES / "kineto/sampled_rank-0.json.gz").read_bytes()))
    doc["traceEvents"] = doc["traceEvents"][:150] + [e for e in doc["traceEvents"] if e.get("ph") == "M"][:20]
    doc["traceEvents"].append({"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1.5, "s": "t",
                               "args": {"Addr": 1, "Bytes": 512, "Total Allocated": 512, "Total Reserved": 2048,
                                        "Device Type": 1, "Device Id": 0}})
    return json.dumps(doc, indent=1).encode()


# format -> (relative path of the file in a case folder, seed bytes, kind)
def seeds() -> dict[str, tuple[str, bytes, str]]:
    return {
        "trace_view": ("x_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", _trace_view_seed(), "json"),
        "kernel_details": ("kernel_details.csv", _csv_head(OUT / "kernel_details.csv", 60), "csv"),
        "step_trace_time": ("step_trace_time.csv", (OUT / "step_trace_time.csv").read_bytes(), "csv"),
        "communication": ("communication.json", (OUT / "communication.json").read_bytes(), "json"),
        "communication_matrix": ("communication_matrix.json", (OUT / "communication_matrix.json").read_bytes(), "json"),
        "memory_record": ("memory_record.csv", _csv_head(OUT / "memory_record.csv", 120), "csv"),
        "operator_memory": ("operator_memory.csv", _csv_head(OUT / "operator_memory.csv", 80), "csv"),
        "npu_module_mem": ("npu_module_mem.csv", _csv_head(OUT / "npu_module_mem.csv", 120), "csv"),
        "profiler_info": ("x_ascend_pt/profiler_info_0.json", (ASCEND / "profiler_info_0.json").read_bytes(), "json"),
        "kineto": ("rank3.pt.trace.json", _kineto_seed(), "json"),
        "kineto_gz": ("rank3.pt.trace.json.gz", _kineto_seed(), "json"),
        "step_trace_raw": ("step_trace_raw_6_detail_time.csv", (MS / "step_trace_raw_6_detail_time.csv").read_bytes(), "csv"),
        "hccl_raw": ("hccl_raw_6.csv", (MS / "hccl_raw_6.csv").read_bytes(), "csv"),
        "hccl_trace": ("hccl_info_6/allReduce_1_1/iter1.trace",
                       (MS / "hccl_info/allReduce_1_1/iter1.trace").read_bytes(), "json"),
    }


# ---- mutations ---------------------------------------------------------------------------------

_NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
_VALUE = re.compile(rb'(?<=": )("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)')


def _replace_match(data: bytes, pattern: re.Pattern, rng: random.Random, new: bytes) -> bytes:
    found = list(pattern.finditer(data))
    if not found:
        return data + new
    m = rng.choice(found)
    return data[:m.start()] + new + data[m.end():]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def mutations(data: bytes, kind: str, rng: random.Random) -> list[tuple[str, bytes, bytes]]:
    """At least ``N`` (name, mutated bytes, bytes for the oracle) of one seed. The oracle's copy
    differs only where Python's parser has limits tracedb has not (nesting depth, 4300-digit
    integers): there the inserted value is replaced by a plain number."""
    out = _mutations(data, kind, rng)
    assert len(out) >= N, len(out)
    return [(name, m, oracle.get(name, m)) for name, m in out]


oracle: dict[str, bytes] = {}


def _mutations(data: bytes, kind: str, rng: random.Random) -> list[tuple[str, bytes]]:
    out = []
    n = len(data)
    for i in range(6):
        out.append((f"truncate{i}", data[: rng.randrange(1, n)]))
    lines = _lines(data)
    for i in range(3):
        cut = rng.randrange(1, len(lines)) if len(lines) > 1 else 1
        out.append((f"cut_at_line{i}", b"".join(lines[:cut])))
    out.append(("cut_last_byte", data[:-1]))
    out.append(("cut_last_line_half", data[: n - max(2, len(lines[-1]) // 2)]))
    for i in range(8):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(n)] = rng.randrange(256)
        out.append((f"flip{i}", bytes(b)))
    for i in range(3):
        p = rng.randrange(n)
        out.append((f"delete_byte{i}", data[:p] + data[p + 1:]))
    out.append(("bom", b"\xef\xbb\xbf" + data))
    crlf = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    lf = data.replace(b"\r\n", b"\n")
    out.append(("crlf", crlf))
    out.append(("lf", lf))
    out.append(("bom_crlf", b"\xef\xbb\xbf" + crlf))
    mixed = _lines(lf)
    for i in range(2):
        k = rng.randrange(len(mixed))
        if mixed[k].endswith(b"\n"):
            mixed[k] = mixed[k][:-1] + b"\r\n"
        out.append((f"mixed_newlines{i}", b"".join(mixed)))
    oracle.clear()
    for i, h in enumerate(rng.sample(HUGE, 7)):
        state = rng.getstate()
        out.append((f"huge{i}", _replace_match(data, _NUMBER, rng, h)))
        if len(h) > 4000:
            rng.setstate(state)
            oracle[f"huge{i}"] = _replace_match(data, _NUMBER, rng, b"1")
    for i, t in enumerate(rng.sample(TEXT, 4)):
        out.append((f"text_for_number{i}", _replace_match(data, _NUMBER, rng, t)))
    if kind == "json":
        deep = [(f"deep{i}", b"[" * d + b"]" * d) for i, d in enumerate((100_000, 3_000, 1_100))]
        for name, value in deep + [("deep_object", b'{"a":' * 50_000 + b"1" + b"}" * 50_000)]:
            state = rng.getstate()
            out.append((name, _replace_match(data, _VALUE, rng, value)))
            rng.setstate(state)
            oracle[name] = _replace_match(data, _VALUE, rng, b"[]")
        for i, w in enumerate(JSON_WRONG):
            out.append((f"wrong_type{i}", _replace_match(data, _VALUE, rng, w)))
        out.append(("args_as_string", re.sub(rb'"args": ?\{', b'"args": "{', data, count=1)))
        out.append(("args_string_valid", re.sub(rb'("args": ?)(\{[^{}]*\})',
                                                lambda m: m.group(1) + json.dumps(m.group(2).decode()).encode(),
                                                data, count=3)))
        out.append(("top_level_scalar", b"42"))
        out.append(("empty", b""))
        out.append(("nul_bytes", data[: n // 2] + b"\x00" * 16 + data[n // 2:]))
    else:
        body = _lines(data)
        for i in range(3):
            k = rng.randrange(1, len(body)) if len(body) > 1 else 0
            body2 = list(body)
            body2[k] = body2[k].replace(b",", b"", 1)
            out.append((f"ragged_short{i}", b"".join(body2)))
        for i in range(2):
            k = rng.randrange(1, len(body)) if len(body) > 1 else 0
            body2 = list(body)
            body2[k] = body2[k].replace(b",", b",,", 1)
            out.append((f"ragged_long{i}", b"".join(body2)))
        for i in range(2):
            p = rng.randrange(n)
            out.append((f"stray_quote{i}", data[:p] + b'"' + data[p:]))
        k = rng.randrange(1, len(body)) if len(body) > 1 else 0
        out.append(("merged_lines", b"".join(body[:k]) + body[k].rstrip(b"\r\n") + b"".join(body[k + 1:])))
        out.append(("escape_in_header", b"\x1b[2J\x1b]0;pwned\x07" + data))
        out.append(("header_only", body[0]))
        out.append(("blank_line", b"".join(body[:2]) + b"\n" + b"".join(body[2:])))
        out.append(("empty", b""))
        out.append(("nul_bytes", data[: n // 2] + b"\x00" + data[n // 2:]))
    return out


# ---- independent oracles: rows a strict parser finds ---------------------------------------------

class Invalid(Exception):
    """The strict parser refuses the file (so tracedb must refuse it too, or it is a finding)."""


def _csv_rows(data: bytes) -> tuple[list[str], list[list[str]]]:
    # bytes that are not UTF-8 are kept (replaced): tracedb reads only the columns it uses
    text = data.decode("utf-8-sig", "replace")
    rows = [r for r in csv.reader(io.StringIO(text, newline=""), strict=True) if r]
    if not rows:
        raise Invalid("empty")
    return [c.strip() for c in rows[0]], rows[1:]


def _json(data: bytes):
    try:
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        return json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError, EOFError, OSError) as e:
        raise Invalid(e) from e


_STEP_ROW = re.compile(r"0*[1-9][0-9]*")


def expected_rows(fmt: str, data: bytes) -> int | None:
    """Rows of the format's own table a strict parser finds; None: no check beyond success."""
    if fmt in ("trace_view",):
        doc = _json(data)
        return len(doc) if isinstance(doc, list) else None
    if fmt in ("kineto", "kineto_gz"):
        doc = _json(data)
        return len(doc["traceEvents"]) if isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list) else None
    if fmt == "hccl_trace":
        doc = _json(data)
        return sum(1 for e in doc["traceEvents"] if isinstance(e, dict) and e.get("ph") == "X")
    if fmt in ("communication", "communication_matrix", "profiler_info"):
        _json(data)
        return None
    header, body = _csv_rows(data)
    if fmt == "step_trace_raw":
        return sum(1 for r in body if r and _STEP_ROW.fullmatch(r[0].strip()))
    if fmt == "hccl_raw":
        col = header.index("communication_operator_cost")
        n = 0
        for r in body:
            if _STEP_ROW.fullmatch(r[0].strip()):
                # pairs, not dicts: a repeated key is two links for DuckDB's JSON -> MAP
                for _, op in json.loads(r[col], object_pairs_hook=list):
                    n += sum(len(t) for _, t in op[3])
        return n
    return len(body)


_TABLE = {"trace_view": "event", "kineto": "event", "kineto_gz": "event", "kernel_details": "kernel",
          "step_trace_time": "profiler_step_trace", "memory_record": "memory", "operator_memory": "memory",
          "npu_module_mem": "memory", "communication": "profiler_comm_op",
          "communication_matrix": "profiler_comm_matrix", "step_trace_raw": "step_trace_raw_row",
          "hccl_raw": "link", "hccl_trace": "link"}


# ---- the campaign ------------------------------------------------------------------------------

def snapshot(con) -> dict:
    """Count and content hash of every table."""
    tables = con.execute("SELECT schema_name, table_name FROM duckdb_tables() WHERE NOT temporary "
                         "ORDER BY 1, 2").fetchall()
    return {t: con.execute(f'SELECT count(*), sum(hash(COLUMNS(*))::HUGEINT) FROM "{s}"."{t}"').fetchall()
            for s, t in tables}


@pytest.fixture(scope="module")
def good_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("fuzz") / "good.duckdb"
    con = connect(db)
    ingest_pkg.ingest(con, [str(FIXTURES / "ascend/level1/rank1_ascend_pt")], run="good")
    con.close()
    return db


def _place(rel: str, data: bytes, fmt: str, root: Path) -> tuple[Path, Path]:
    """Write a case file; return (path to ingest, the mutated file)."""
    f = root / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "kineto_gz" and data[:2] != b"\x1f\x8b":
        data = gzip.compress(data, mtime=0)
    f.write_bytes(data)
    if fmt == "profiler_info":
        out = f.parent / "ASCEND_PROFILER_OUTPUT"
        out.mkdir(exist_ok=True)
        shutil.copy(OUT / "step_trace_time.csv", out / "step_trace_time.csv")
        return f.parent, f
    return f, f


def run_case(con, target: Path, bad: Path, fmt: str, data: bytes, run: str, oracle_data: bytes,
             before: dict) -> str:
    """Ingest one case; return its outcome ('ok' or 'refused'); assert the contract. ``before``:
    the snapshot of the database before the case."""
    timer = threading.Timer(TIMEOUT, con.interrupt)
    timer.start()
    t0 = time.perf_counter()
    try:
        ingest_pkg.ingest(con, [str(target)], run=run)
    except InputError as e:
        assert time.perf_counter() - t0 < TIMEOUT, f"hang: {bad}"
        msg = str(e)
        assert str(bad) in msg, msg
        assert "\x1b" not in msg and "\n" not in msg, repr(msg)
        assert snapshot(con) == before, f"database changed by a refused input: {msg}"
        return "refused"
    except TracedbError as e:       # not an input error: still one clean line, but say so
        raise AssertionError(f"{type(e).__name__} for bad input: {e}") from e
    finally:
        timer.cancel()
    # accepted: as many rows as the strict parser finds
    try:
        want = expected_rows(fmt, oracle_data)
    except Invalid as e:
        raise AssertionError(f"accepted, but a strict parser refuses the file ({e!r}): {bad}") from e
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as e:
        raise AssertionError(f"accepted, but its structure is not the format's ({e!r}): {bad}") from e
    if want is not None:
        got = con.execute(f"SELECT count(*) FROM {_TABLE[fmt]} WHERE file_id IN "
                          "(SELECT file_id FROM source_file WHERE path = ?)", [str(bad)]).fetchone()[0]
        assert got == want, f"{bad}: {got} rows, a strict parser finds {want}"
    return "ok"


FORMATS = sorted(seeds())
FAST = 26                   # cases per format in test_fuzz_format; the rest in test_fuzz_format_rest


def campaign(fmt: str, part: slice, good_db: Path, tmp_path: Path, monkeypatch) -> Counter:
    """Run the cases ``part`` of a format's seeded, shuffled mutations; assert every contract."""
    rel, seed, kind = seeds()[fmt]
    rng = random.Random(f"tracedb-fuzz-{fmt}")
    cases = mutations(seed, kind, rng)
    random.Random(f"tracedb-order-{fmt}").shuffle(cases)
    db = tmp_path / "t.duckdb"
    shutil.copy(good_db, db)
    # installed once, in good_db (the ingest's install_if_changed of tracedb.store.library)
    monkeypatch.setattr(ingest_pkg.library, "install", lambda con, *a, **kw: [])
    con = connect(db)
    outcomes, failures = Counter(), []
    before = snapshot(con)
    try:
        for i, (name, data, oracle_data) in list(enumerate(cases))[part]:
            target, bad = _place(rel, data, fmt, tmp_path / f"{i:03d}_{name}")
            try:
                outcome = run_case(con, target, bad, fmt, data, f"fuzz{i}", oracle_data, before)
                outcomes[outcome] += 1
                if outcome == "ok":         # a refused case leaves the snapshot as it was (checked)
                    before = snapshot(con)
            except AssertionError as e:
                failures.append(f"{name}: {e}")
                before = snapshot(con)
            except Exception as e:      # noqa: BLE001 - a traceback: the defect this campaign hunts
                failures.append(f"{name}: TRACEBACK {type(e).__name__}: {e}")
                before = snapshot(con)
    finally:
        con.close()
    assert not failures, "\n".join(failures)
    print(f"\n{fmt} {part.start}-{part.stop}: {dict(outcomes)}")
    return outcomes


@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzz_format(fmt, good_db, tmp_path, monkeypatch):
    """The first FAST shuffled cases of the format (every kind of mutation is likely among them)."""
    assert sum(campaign(fmt, slice(0, FAST), good_db, tmp_path, monkeypatch).values()) == FAST


@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzz_format_rest(fmt, good_db, tmp_path, monkeypatch):
    """The other cases: with the first part, >= 50 per format."""
    n = sum(campaign(fmt, slice(FAST, None), good_db, tmp_path, monkeypatch).values())
    assert FAST + n >= 50


CLI_SAMPLE = ["kernel_details", "communication", "kineto_gz", "hccl_raw"]


@pytest.mark.parametrize("fmt", CLI_SAMPLE)
def test_fuzz_sample_through_the_cli(fmt, good_db, tmp_path):
    """A few mutations per format through the CLI (view library included): exit 0, or exit 1 with
    one line naming the file and the database unchanged."""
    rel, seed, kind = seeds()[fmt]
    rng = random.Random(f"tracedb-cli-{fmt}")
    cases = mutations(seed, kind, rng)
    for i in (12,):
        name, data, _ = cases[i]
        db = tmp_path / f"{i}.duckdb"
        shutil.copy(good_db, db)
        target, bad = _place(rel, data, fmt, tmp_path / f"{i:03d}_{name}")
        con = connect(db, read_only=True)
        before = snapshot(con)
        con.close()
        res = CliRunner().invoke(app, ["ingest", str(target), "--db", str(db), "--run", "fuzz"])
        assert isinstance(res.exception, SystemExit) or res.exception is None, (name, res.exception)
        assert "Traceback" not in res.output
        if res.exit_code != 0:
            err = res.stderr.strip().splitlines()[-1]         # before it: progress lines only
            assert res.exit_code == 1 and err.startswith("tracedb: error: "), res.stderr
            assert str(bad) in err, err
            con = connect(db, read_only=True)
            assert snapshot(con) == before, name
            con.close()
