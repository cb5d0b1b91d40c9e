"""Issue 19, reader-level defects F8, F9, F12, F14, F15: each case fails on the code before
the readers-hardening branch (checked against main) and passes after.

Every refusal is an InputError naming the file (and the line where there is one); every
acceptance is checked against values read from the file independently (csv / json / Decimal).
"""
from __future__ import annotations

import csv
import gzip
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import FIXTURES, MINDSPORE, RANK0, ingest_paths, rows
from tracedb.errors import InputError

OUT = RANK0 / "ASCEND_PROFILER_OUTPUT"
MS = MINDSPORE
KINETO = FIXTURES / "kineto/sampled_rank-0.json.gz"

# format -> (file name a lone file is recognised by, fixture)
CSVS = {
    "kernel_details": ("kernel_details.csv", OUT / "kernel_details.csv"),
    "step_trace_time": ("step_trace_time.csv", OUT / "step_trace_time.csv"),
    "memory_record": ("memory_record.csv", OUT / "memory_record.csv"),
    "operator_memory": ("operator_memory.csv", OUT / "operator_memory.csv"),
    "npu_module_mem": ("npu_module_mem.csv", OUT / "npu_module_mem.csv"),
    "step_trace_raw": ("step_trace_raw_6_detail_time.csv", MS / "step_trace_raw_6_detail_time.csv"),
    "hccl_raw": ("hccl_raw_6.csv", MS / "hccl_raw_6.csv"),
}


def refused(tmp_path, path: Path, *words) -> str:
    """Ingest ``path`` alone; it must be refused with a message naming it and holding ``words``."""
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", path, run="r")
    msg = str(e.value)
    assert str(path) in msg and "\x1b" not in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


def write(tmp_path, name: str, data: bytes) -> Path:
    d = tmp_path / "in"
    d.mkdir(exist_ok=True)
    (d / name).write_bytes(data)
    return d / name


def lines_of(data: bytes) -> int:
    """Lines of a file whose last line may lack its line break."""
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


# ---- F9: a CSV cut inside a row ---------------------------------------------------------------

@pytest.mark.parametrize("fmt", sorted(CSVS))
def test_f9_csv_cut_inside_its_last_row_is_refused_with_the_line(fmt, tmp_path):
    name, fixture = CSVS[fmt]
    data = fixture.read_bytes().rstrip(b"\r\n")
    cut = data[:-3]                      # the last row loses its last characters and its line break
    f = write(tmp_path, name, cut)
    refused(tmp_path, f, "truncated", f"line {lines_of(cut)}")


@pytest.mark.parametrize("fmt", ["kernel_details", "memory_record", "step_trace_time"])
def test_f9_csv_whose_last_row_is_short_is_refused(fmt, tmp_path):
    """Cut right after a comma and given a line break: the last row has fewer cells than the header."""
    name, fixture = CSVS[fmt]
    data = fixture.read_bytes()
    last = data.rstrip(b"\r\n").rfind(b"\n") + 1
    row = data[last:]
    short = data[:last] + row[: row.index(b",", row.index(b",") + 1) + 1] + b"\r\n"
    f = write(tmp_path, name, short)
    header = next(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    # "a,b," is three cells: two values and an empty one
    refused(tmp_path, f, "truncated", f"3 of the header's {len(header)} cells", f"line {lines_of(short)}")


# ---- F14: non-numbers in numeric columns ------------------------------------------------------

def replace_cell(path: Path, column: str, value: str, row: int = 0) -> bytes:
    """The file with the cell ``column`` of data row ``row`` replaced (csv module, CRLF kept)."""
    text = path.read_bytes().decode("utf-8-sig")
    table = list(csv.reader(io.StringIO(text, newline="")))
    table[row + 1][table[0].index(column)] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n" if "\r\n" in text else "\n").writerows(table)
    return out.getvalue().encode()


F14_CASES = {
    "memory_record_reserved": ("memory_record", "Total Reserved(MB)", "12x"),
    "memory_record_allocated": ("memory_record", "Total Allocated(MB)", "lots"),
    "operator_memory_release": ("operator_memory", "Release Time(us)", "later"),
    "operator_memory_total": ("operator_memory", "Allocation Total Reserved(MB)", "1.2.3"),
    "npu_module_mem_reserved": ("npu_module_mem", "Total Reserved(MB)", "abc"),
    "step_trace_time_free": ("step_trace_time", "Free", "none at all"),
    "step_trace_time_step": ("step_trace_time", "Step", "2147483648"),
    "step_trace_raw_fp": ("step_trace_raw", "fp_point", "zz"),
    "step_trace_raw_comm": ("step_trace_raw", "stream_24_0_AllReduce-op3143_end_point", "12e"),
}


@pytest.mark.parametrize("case", sorted(F14_CASES))
def test_f14_text_in_a_numeric_column_is_refused_with_column_and_line(case, tmp_path):
    fmt, column, value = F14_CASES[case]
    name, fixture = CSVS[fmt]
    f = write(tmp_path, name, replace_cell(fixture, column, value))
    refused(tmp_path, f, repr(column), "line 2")


def test_f14_text_inside_hccl_raw_json_is_refused_with_the_line(tmp_path):
    name, fixture = CSVS["hccl_raw"]
    text = fixture.read_bytes().decode()
    first = text.index("\n") + 1
    second = text.index("\n", first) + 1
    row = text[first:second]
    at = row.rindex("[4.3")                 # a link's time_ms inside communication_operator_cost
    row = row[:at] + '[""slow""' + row[at + 4:]
    f = write(tmp_path, name, (text[:first] + row + text[second:]).encode())
    refused(tmp_path, f, "communication_operator_cost", "line 2")


def test_f14_empty_and_na_cells_where_the_profiler_writes_them_stay_null(tmp_path):
    """MindSpore writes N/A where torch_npu writes an empty cell (release columns, APP rows)."""
    name, fixture = CSVS["operator_memory"]
    data = replace_cell(fixture, "Release Time(us)", "N/A")
    f = write(tmp_path, name, data)
    ingest_paths(tmp_path / "t.duckdb", f, run="r")
    table = list(csv.DictReader(io.StringIO(data.decode())))
    got = rows(tmp_path / "t.duckdb", "SELECT release_ts_ns, size_bytes FROM memory ORDER BY ts_ns, size_bytes")
    assert len(got) == len(table)
    first = table[0]
    size = int(Decimal(first["Size(KB)"].strip()) * 1024)
    assert (None, size) in got


# ---- F15: BOM and line-break variants ---------------------------------------------------------

@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_f15_kineto_trace_with_a_utf8_bom_is_read_whole(gz, tmp_path):
    raw = gzip.decompress(KINETO.read_bytes())
    events = len(json.loads(raw)["traceEvents"])
    data = b"\xef\xbb\xbf" + raw
    f = write(tmp_path, "rank0.pt.trace.json" + (".gz" if gz else ""), gzip.compress(data) if gz else data)
    ingest_paths(tmp_path / "t.duckdb", f, run="r")
    assert rows(tmp_path / "t.duckdb", "SELECT count(*) FROM event") == [(events,)]


def test_f15_step_trace_time_with_mixed_line_breaks_is_read(tmp_path):
    f = write(tmp_path, "step_trace_time.csv",
              b"Step,Computing,Communication(Not Overlapped),Free\n"
              b"1,2.5,3.0,4.001\r\n2,20.25,30,40\n3,1,1,1\r\n")
    ingest_paths(tmp_path / "t.duckdb", f, run="r")
    assert rows(tmp_path / "t.duckdb", "SELECT step, computing_ns, communication_not_overlapped_ns, free_ns "
                                       "FROM profiler_step_trace ORDER BY step") == [
        (1, 2500, 3000, 4001), (2, 20250, 30000, 40000), (3, 1000, 1000, 1000)]


def test_f15_step_trace_time_with_one_long_row_names_the_line(tmp_path):
    """A row with a cell too many (a lost line break or a stray comma) is refused with its line:
    main took the first cells and dropped the rest silently."""
    f = write(tmp_path, "step_trace_time.csv",
              b"Step,Computing,Communication(Not Overlapped),Free\r\n"
              b"1,2.5,3.0,4.001\r\n2,20.25,30,40,7\r\n3,1,1,1\r\n")
    refused(tmp_path, f, "line 3", "5 cells", "header 4")


def test_f15_a_lost_line_break_does_not_drop_a_row(tmp_path):
    name, fixture = CSVS["kernel_details"]
    data = fixture.read_bytes()
    second = data.index(b"\r\n", data.index(b"\r\n") + 2)
    f = write(tmp_path, name, data[:second] + data[second + 2:])       # rows 2 and 3 merged into line 2
    refused(tmp_path, f, "line 2", "cells")


# ---- F12: file bytes echoed into the error line -----------------------------------------------

def test_f12_terminal_escapes_from_a_cell_are_not_echoed(tmp_path):
    f = write(tmp_path, "hccl_raw_0.csv",
              b"step_num,communication_cost,wait_cost,link_info,communication_operator_cost\r\n"
              b"1,2,3,{},\x1b[2J\x1b]0;pwned\x07evil\r\n")
    msg = refused(tmp_path, f, "line 2", "communication_operator_cost")
    assert "\x07" not in msg


def test_f12_terminal_escapes_from_a_header_are_not_echoed(tmp_path):
    f = write(tmp_path, "memory_record.csv", b"\x1b[2J\x1b]0;pwned\x07Component,Timestamp(us)\r\nPTA,1.0\r\n")
    msg = refused(tmp_path, f, "line 1", "Total Reserved(MB)")
    assert "\x07" not in msg


# ---- F8: failures that named no file ----------------------------------------------------------

def test_f8_profiler_info_with_a_5000_digit_number_names_the_file(tmp_path):
    d = tmp_path / "r_ascend_pt"
    (d / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    (d / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").write_bytes((OUT / "step_trace_time.csv").read_bytes())
    info = d / "profiler_info_0.json"
    info.write_text('{"rank_id": ' + "7" * 5000 + "}")
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", d, run="r")
    assert str(info) in str(e.value)


def test_f8_damaged_gzip_names_the_file(tmp_path):
    raw = gzip.decompress(KINETO.read_bytes())
    gz = bytearray(gzip.compress(raw))
    for i in range(40, 60):
        gz[i] ^= 0x55                       # inside the deflate stream, within the first 64 KiB
    f = write(tmp_path, "rank0.pt.trace.json.gz", bytes(gz))
    refused(tmp_path, f)


def test_f8_start_time_near_int64_max_names_the_file_and_line(tmp_path):
    """9223372036854775.807 µs is int64 max in ns: accepted before, then the derive step failed
    with an overflow that named no file."""
    f = write(tmp_path, "kernel_details.csv",
              b"Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
              b"1,a,A,AI_CORE,1736408883704643.212,1.5\n1,b,B,AI_CORE,9223372036854775.807,1.5\n")
    refused(tmp_path, f, "Start Time(us)", "line 3", "out of range")


def test_f8_communication_json_huge_values_name_the_file_and_place(tmp_path):
    doc = json.loads((OUT / "communication.json").read_text())
    step = next(iter(doc))
    op = next(k for k in doc[step]["collective"] if "@" in k)
    doc[step]["collective"][op]["Communication Time Info"]["Elapse Time(ms)"] = 1e300
    text = json.dumps(doc).replace("1e+300", "1e400")
    f = write(tmp_path, "communication.json", text.encode())
    refused(tmp_path, f, "Elapse Time(ms)", "out of range", op)


def test_f8_step_id_beyond_integer_names_column_and_line(tmp_path):
    """Step Id >= 2^31: main failed with a cast error quoting INT32, without the line."""
    f = write(tmp_path, "kernel_details.csv",
              b"Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Block Dim\n"
              b"1,a,A,AI_CORE,1736408883704643.212,1.5,N/A\n2147483648,b,B,AI_CORE,1736408883704645.212,1.5,8\n")
    refused(tmp_path, f, "'Step Id'", "line 3", "out of range")


def test_kernel_details_na_and_empty_integers_stay_null(tmp_path):
    f = write(tmp_path, "kernel_details.csv",
              b"Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n"
              b",a,A,AI_CORE,1736408883704643.212,1.5,N/A,N/A\n2,b,B,AI_CORE,1736408883704645.212,1.5,0.25,8\n")
    ingest_paths(tmp_path / "t.duckdb", f, run="r")
    assert rows(tmp_path / "t.duckdb", "SELECT step, wait_ns, block_dim FROM kernel ORDER BY kernel_id") == [
        (None, None, None), (2, 250, 8)]


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_f8_kineto_deep_value_after_trace_events_names_the_file(gz, tmp_path):
    """A value nested 100 000 deep after traceEvents: main failed with "RecursionError" (plain)."""
    raw = gzip.decompress(KINETO.read_bytes()).rstrip()
    assert raw.endswith(b"}")
    data = raw[:-1] + b', "deep": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    f = write(tmp_path, "rank0.pt.trace.json" + (".gz" if gz else ""), gzip.compress(data) if gz else data)
    refused(tmp_path, f, "nested too deeply")
