"""kernel_details.csv header variants → kernel (matched by name, exact ns, shapes unquoted)."""
from __future__ import annotations

import csv

import pytest

from conftest import FIXTURES, ingest_paths, rows
from tracedb.errors import InputError

LEVEL1 = FIXTURES / "ascend/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv"


def test_level1_fixture_rows_and_first_row(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, LEVEL1, run="r")
    with open(LEVEL1, newline="") as f:
        reader = list(csv.DictReader(f))
    assert rows(db, "SELECT count(*) FROM kernel") == [(len(reader),)]
    first = rows(db, "SELECT step, name, op_type, accelerator_core, stream_id, ts_ns, dur_ns, wait_ns, "
                     "input_shapes, output_shapes, block_dim, is_communication FROM kernel ORDER BY kernel_id LIMIT 1")
    # first data row of the file: 50,...,trans_TransData_0,TransData,dynamic,AI_VECTOR_CORE,
    # "1736408883704643.212<TAB>",53.741,0,32,...,"""32,3,224,224""",...,"""32,1,224,224,8"""
    assert first == [(50, "trans_TransData_0", "TransData", "AI_VECTOR_CORE", "2", 1736408883704643212, 53741, 0,
                      "32,3,224,224", "32,1,224,224,8", 32, False)]
    comm = rows(db, "SELECT name, stream_id, is_communication FROM kernel WHERE accelerator_core = 'HCCL' "
                    "ORDER BY ts_ns LIMIT 1")
    assert comm == [("hcom_allReduce__586_0_1", None, True)]


def test_variants_mindspore_step_id_block_num_no_device(tmp_path):
    f = tmp_path / "kernel_details.csv"
    f.write_text("Step ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num\r\n"
                 "2,Default/MatMul-op1/aclnnMm_MatMul,MatMul,AI_CORE,1727593954640599.301\t,39.15,0,32\r\n"
                 ",hcom_allReduce__1_2_3,hcom_allReduce_,COMMUNICATION,\"1727593954650726.162\t\",N/A,N/A,N/A\r\n")
    db = tmp_path / "t.duckdb"
    with pytest.raises(InputError) as e:       # Duration N/A on a data row is bad input
        ingest_paths(db, f, run="r")
    assert "Duration(us)" in str(e.value) and "line 3" in str(e.value)
    f.write_text(f.read_text().replace("N/A,N/A,N/A", "812.25,0,0"))
    ingest_paths(db, f, run="r")
    assert rows(db, "SELECT step, name, block_dim, ts_ns, dur_ns, is_communication FROM kernel ORDER BY kernel_id") == [
        (2, "Default/MatMul-op1/aclnnMm_MatMul", 32, 1727593954640599301, 39150, False),
        (None, "hcom_allReduce__1_2_3", 0, 1727593954650726162, 812250, True)]


def test_missing_required_column_names_file_and_column(tmp_path):
    f = tmp_path / "kernel_details.csv"
    f.write_text("Name,Type,Duration(us)\nx,y,1\n")
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", f, run="r")
    msg = str(e.value)
    assert str(f) in msg and "Start Time(us)" in msg and "line 1" in msg
    # nothing written: not even the schema (the whole ingest, schema included, is one transaction)
    db = tmp_path / "t.duckdb"
    assert not db.exists() or rows(db, "SELECT count(*) FROM duckdb_tables() WHERE NOT internal") == [(0,)]


def test_kernel_id_is_file_order_on_a_file_read_in_parallel(tmp_path):
    """kernel_id numbers the rows in file order. A 30 MB file is parsed by several threads,
    whose rows reach the table in file order only if nothing in the statement is a join (an
    IN list of five or more constants becomes one in DuckDB); the names here encode the line,
    and starts run backwards so that no ordering by time can pass for file order."""
    f = tmp_path / "kernel_details.csv"
    n = 120_000
    with open(f, "w") as out:
        out.write("Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),"
                  "Input Shapes,Output Shapes,Padding\n")
        pad = "x" * 180
        for i in range(n):
            shapes = "N/A" if i % 7 == 0 else f'"""{i % 97},4096"""'
            out.write(f"1,k{i},Op,AI_CORE,{1700000001000000 - i}.125\t,1.5,0,{shapes},{shapes},{pad}\n")
    assert f.stat().st_size > 30e6
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f, run="r")
    assert rows(db, "SELECT count(*), min(kernel_id), max(kernel_id), count(DISTINCT kernel_id) FROM kernel") == \
        [(n, 1, n, n)]
    assert rows(db, "SELECT count(*) FROM kernel WHERE name <> 'k' || (kernel_id - 1)") == [(0,)]
    # the N/A shapes are NULL; kernel_id 9 is k8 (line 10): shape "8,4096", start 8 µs before k0
    assert rows(db, "SELECT count(*) FROM kernel WHERE input_shapes IS NULL") == [((n + 6) // 7,)]
    assert rows(db, "SELECT input_shapes, ts_ns FROM kernel WHERE kernel_id = 9") == [("8,4096", 1700000000999992125)]


def test_kernel_details_ingested_before_its_trace(tmp_path):
    """kernel_details.csv first, its rank folder in a second command: the same kernels, steps
    and link steps as ingesting the folder at once. The step row made from the CSV gets the
    ProfilerStep#50 host window of the trace (it kept none before; 222 of the 296 HCCL link
    tasks then had no step)."""
    rank0 = FIXTURES / "ascend/level1/rank0_ascend_pt"
    together, apart = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    ingest_paths(together, rank0, run="r")
    ingest_paths(apart, rank0 / "ASCEND_PROFILER_OUTPUT/kernel_details.csv", run="r")
    ingest_paths(apart, rank0, run="r")
    for sql in ("SELECT kernel_id, step, name, task_type, stream_id, group_name FROM kernel ORDER BY kernel_id",
                "SELECT step, host_start_ns, host_end_ns, device_start_ns, device_end_ns FROM step",
                "SELECT step, op_name, ts_ns, plane_id, task_name FROM link ORDER BY ALL"):
        assert rows(apart, sql) == rows(together, sql), sql
    # ProfilerStep#50 of trace_view.json: ts 1736408883686740.710 µs, dur 155985.800 µs
    assert rows(apart, "SELECT step, host_start_ns, host_end_ns FROM step") == \
        [(50, 1736408883686740710, 1736408883842726510)]
    assert rows(apart, "SELECT step, count(*) FROM link GROUP BY step") == [(50, 296)]
    # the 187 kernels matched to their trace task (the 24 copy rows of the trace have their own)
    assert rows(apart, "SELECT count(task_type), count(group_name) FROM kernel WHERE copy_kind IS NULL") == [(187, 4)]
