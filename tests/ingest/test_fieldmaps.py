"""Field maps (issue 13): every format's raw names live in ``tracedb/ingestion/fieldmaps/``, the
readers take them from there, and the maps agree with real files."""
from __future__ import annotations

import csv
import importlib
import inspect
import json
import re

import pytest

from conftest import MINDSPORE, RANK0, ingest_paths, rows
from tracedb.ingestion.fieldmaps import Field, missing

OUT = RANK0 / "ASCEND_PROFILER_OUTPUT"
MS = MINDSPORE

# map module -> (reader module, a fixture of the format)
MAPS = {
    "kernel_details": ("kernel_details", OUT / "kernel_details.csv"),
    "step_trace_time": ("step_trace_time", OUT / "step_trace_time.csv"),
    "memory_record": ("memory_csv", OUT / "memory_record.csv"),
    "operator_memory": ("memory_csv", OUT / "operator_memory.csv"),
    "npu_module_mem": ("memory_csv", OUT / "npu_module_mem.csv"),
    "communication": ("communication", OUT / "communication.json"),
    "step_trace_raw": ("step_trace_raw", MS / "step_trace_raw_6_detail_time.csv"),
    "hccl_raw": ("hccl_raw", MS / "hccl_raw_6.csv"),
}
KINDS = {"text", "int", "us", "ms", "ticks", "kb", "mb", "mb_decimal", "ratio", "shape", "json"}
VERSION = re.compile(r"^(torch_npu|MindSpore|CANN) [0-9][0-9A-Za-z.\-]*$")


def fields_of(module) -> list[Field]:
    out = []
    for value in vars(module).values():
        if isinstance(value, Field):
            out.append(value)
        elif isinstance(value, dict):
            out += [v for v in value.values() if isinstance(v, Field)]
    return out


def header(path) -> list[str]:
    with open(path, newline="", encoding="utf-8-sig") as f:
        return [c.strip() for c in next(csv.reader(f))]


@pytest.mark.parametrize("name", sorted(MAPS))
def test_every_entry_is_well_formed(name):
    fields = fields_of(importlib.import_module(f"tracedb.ingestion.fieldmaps.{name}"))
    assert fields
    for f in fields:
        assert f.names and all(isinstance(n, str) and n for n in f.names), f
        assert f.kind in KINDS, f
        assert f.since is None or VERSION.match(f.since), f


@pytest.mark.parametrize("name", sorted(n for n, (_, p) in MAPS.items() if p.suffix == ".csv"))
def test_fixture_headers_hold_every_required_field(name):
    fm = importlib.import_module(f"tracedb.ingestion.fieldmaps.{name}")
    h = header(MAPS[name][1])
    assert missing(fm.FIELDS, h) == []
    # and every column tracedb reads that the fixture has is found under one of its names
    assert [f.name for f in fm.FIELDS.values() if f.find(h) is None and f.since is None and f.required] == []


@pytest.mark.parametrize("name", sorted(MAPS))
def test_readers_take_raw_names_from_the_map(name):
    """No raw field name of a format is spelled inline in its reader (drift between two copies)."""
    reader, _ = MAPS[name]
    source = inspect.getsource(importlib.import_module(f"tracedb.ingestion.readers.{reader}"))
    fm = importlib.import_module(f"tracedb.ingestion.fieldmaps.{name}")
    names = {n for f in fields_of(fm) for n in f.names if len(n) > 5}
    inline = sorted(n for n in names if f'"{n}"' in source or f"'{n}'" in source)
    assert inline == []


def test_a_renamed_csv_column_is_read_through_the_map(tmp_path, monkeypatch):
    """Adding a raw name to the map is all a new profiler version's rename needs."""
    from tracedb.ingestion.fieldmaps import step_trace_time as fm
    monkeypatch.setitem(fm.FIELDS, "free_ns", Field(("Idle", "Free"), "us", required=True))
    f = tmp_path / "step_trace_time.csv"
    f.write_text("Step,Computing,Communication(Not Overlapped),Idle\n3,1.5,2.25,3.125\n")
    ingest_paths(tmp_path / "t.duckdb", f, run="r")
    assert rows(tmp_path / "t.duckdb", "SELECT step, computing_ns, free_ns FROM profiler_step_trace") == [
        (3, 1500, 3125)]


def test_a_renamed_json_key_is_read_through_the_map(tmp_path, monkeypatch):
    from tracedb.ingestion.fieldmaps import communication as fm
    monkeypatch.setitem(fm.TIME_FIELDS, "elapse_ns", Field(("Elapsed(ms)",), "ms"))
    doc = json.loads((OUT / "communication.json").read_text())
    step = next(iter(doc))
    op = next(k for k in doc[step]["collective"] if "@" in k)
    info = doc[step]["collective"][op]["Communication Time Info"]
    info["Elapsed(ms)"] = 1.25
    f = tmp_path / "communication.json"
    f.write_text(json.dumps(doc))
    ingest_paths(tmp_path / "t.duckdb", f, run="r")
    assert rows(tmp_path / "t.duckdb", "SELECT elapse_ns FROM profiler_comm_op WHERE op_key = ?", [op]) == [
        (1_250_000,)]


def test_kernel_details_variant_names_come_from_the_map():
    from tracedb.ingestion.fieldmaps.kernel_details import FIELDS
    from tracedb.ingestion.readers.kernel_details import column_exprs
    exprs = column_exprs(["Step ID", "Name", "Start Time(us)", "Duration(us)", "Block Num"])
    assert '"Step ID"' in exprs["step"] and '"Block Num"' in exprs["block_dim"]
    assert exprs["device_id"] == "NULL"
    assert FIELDS["block_dim"].find(["Block Dim", "Block Num"]) == "Block Dim"
