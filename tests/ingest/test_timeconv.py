"""Exact µs text → ns conversion (tracedb.timeconv) and the metadata byte scan, value by value.

Expected values are written by hand from the decimal text: µs × 1000, exact up to 3 decimals,
half away from zero beyond, NULL for what is not a number."""
from __future__ import annotations

import json
import sys

import duckdb
import pytest

from tracedb.ingestion.sources.jsonsource import scan_metadata
from conftest import FIXTURES
from tracedb.timeconv import clean_text, json_us_to_ns, us_text_to_ns

CASES = [
    ("1700000000123481.664", 1700000000123481664),   # 19 significant digits: a double cannot hold it
    ("1736412474730135.222", 1736412474730135222),
    ("56635868946.3", 56635868946300),
    ("145.57", 145570),
    ("16", 16000),
    ("-0.5", -500),
    (".5", 500),
    ("5.", 5000),
    ("1.23456", 1235),                                # rounded at ns
    ("-1700000000123481.6645", -1700000000123481665),  # half away from zero
    ("1e3", 1000000),                                 # exponent: DOUBLE path
    ("1.2.3", None),
    ("abc", None),
    ("", None),
    ("9999999999999999.999", None),                   # beyond BIGINT ns
]


@pytest.mark.parametrize("text,ns", CASES)
def test_json_us_to_ns(text, ns):
    con = duckdb.connect()
    assert con.execute(f"SELECT {json_us_to_ns('x')} FROM (SELECT ?::VARCHAR AS x)", [text]).fetchone()[0] == ns


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("text,ns", [("1700000000123481.664\t", 1700000000123481664), ("5.5 ", 5500),
                                     (" 0.5", 500), ('"12.25"', 12250), ("N/A", None)] + CASES)
def test_us_text_to_ns_strips_padding(text, ns, compact):
    # the integer shortcut must not read "5.5 " as 55 × 10: padding is trimmed first; the
    # compact form (small files) gives the same values
    con = duckdb.connect()
    sql = f"SELECT {us_text_to_ns('x', compact=compact)} FROM (SELECT ?::VARCHAR AS x)"
    assert con.execute(sql, [text]).fetchone()[0] == ns


def test_json_us_to_ns_rejects_misread_padding():
    # JSON strings are not trimmed: a padded value must not take the integer shortcut
    con = duckdb.connect()
    assert con.execute(f"SELECT {json_us_to_ns('x')} FROM (SELECT '5.5 ' AS x)").fetchone()[0] == 5500


@pytest.mark.parametrize("chunk,memmem", [(16 << 20, True), (70000, True), (70000, False)])
def test_scan_metadata_finds_every_m_event(tmp_path, monkeypatch, chunk, memmem):
    events_mod = sys.modules["tracedb.ingestion.sources.jsonsource"]
    monkeypatch.setattr(events_mod, "SCAN_CHUNK", chunk)   # hits across chunk edges
    if not memmem:
        monkeypatch.setattr(events_mod, "_MEMMEM", None)   # the bytes.find fallback
    # M events in the middle of the file, with both separator styles, and an "M" that is a name
    events = [{"ph": "X", "name": "M", "pid": 1, "tid": 1, "ts": "1.000", "dur": 1}] * 3000
    events += [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "Python"}}]
    events += [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "2.000", "dur": 1}] * 3000
    f = tmp_path / "t.json"
    body = json.dumps(events)
    # torch_npu's Ascend Hardware order: args (an object) before "ph", and a brace in a string
    body = body[:-1] + (', {"name": "process_name", "pid": 2, "tid": 0, "args": {"name": "Ascend {Hardware"}, '
                        '"ph": "M"}, {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"Stream 1"}}]')
    f.write_text(body)
    found = scan_metadata(f)
    assert [(e["name"], e["args"]["name"]) for e in found] == [("process_name", "Python"),
                                                              ("process_name", "Ascend {Hardware"),
                                                              ("thread_name", "Stream 1")]
    # from an offset: only the events that start after it
    tail = scan_metadata(f, start=body.encode().rfind(b'{"ph":"M","name":"thread_name"') - 2)
    assert [(e["name"], e["args"]["name"]) for e in tail] == [("thread_name", "Stream 1")]


def test_scan_metadata_finds_every_m_event_of_a_torch_npu_trace():
    # the level1 trace_view.json (fixtures, a copy of the corpus file): 9 M events with "ph" first (the framework part) and
    # 71 with args before "ph" (CANN's part); the scan must find the same events, in file
    # order, as a full parse of the file
    for rank in (0, 1):
        path = FIXTURES / f"ascend/level1/rank{rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"
        expected = [e for e in json.loads(path.read_text()) if e.get("ph") == "M"]
        assert len(expected) == 80
        assert scan_metadata(path) == expected


def test_csv_cells_trimmed_once_per_row(tmp_path):
    """CsvFile.cell reads a cell trimmed (blanks, TAB, CR, quotes) as a column of CsvFile.sql,
    beside the raw columns, in file order, under a name no header cell takes; the conversions
    give the same values from it (``trimmed=True``) as from the raw cell."""
    from tracedb.ingestion.sources.csvsource import open_csv
    from tracedb.timeconv import clean_text, int_text
    f = tmp_path / "t.csv"
    f.write_bytes(b'a,tracedb_trimmed_0,b\n" 12.5\t",x,3\n"N/A",y, 7 \n1736408883694624.810\t,z,-\n')
    con = duckdb.connect()
    with open_csv(f, "test file") as csv:
        a, b = csv.cell("a"), csv.cell("b")
        assert a != '"tracedb_trimmed_0"' and csv.cell("a") == a          # one trimmed column per cell
        got = con.execute(f"""
            SELECT {a}, "tracedb_trimmed_0", a, {us_text_to_ns(a, compact=True, trimmed=True)},
                   {us_text_to_ns('a', compact=True)}, {clean_text(a, trimmed=True)},
                   {int_text(b, trimmed=True)}, {int_text('b')}
            FROM {csv.sql()}""", [csv.src]).fetchall()
    assert got == [("12.5", "x", " 12.5\t", 12500, 12500, "12.5", 3, 3),
                   ("N/A", "y", "N/A", None, None, None, 7, 7),
                   ("1736408883694624.810", "z", "1736408883694624.810\t", 1736408883694624810,
                    1736408883694624810, "1736408883694624.810", None, None)]


@pytest.mark.parametrize("text,cleaned", [("", None), ("n/a", None), ("N/A", None), ("Na", None), ("null", None),
                                          ("None", None), ("-", None), (None, None), ("\tN/A \r", None),
                                          ("--", "--"), ("nan", "nan"), ("NULLS", "NULLS"), ("na-", "na-"),
                                          ("x", "x"), (' "12.5"\t', "12.5")])
def test_clean_text_null_words(text, cleaned):
    # '', N/A, NA, NULL, None and '-' in any case (after trimming) are empty cells; any other
    # text, even one that starts or ends with such a word, is kept
    con = duckdb.connect()
    assert con.execute(f"SELECT {clean_text('x')} FROM (SELECT ?::VARCHAR AS x)", [text]).fetchone()[0] == cleaned
