"""MindSpore MindData files beside the pipeline profile: minddata_cpu_utilization_{rank}.json
(cpu_utilization), device_queue_profiling / dataset_iterator_profiling_{rank}.txt, hand-made in
MindSpore's layout (CpuSampler::SaveToFile, MinddataProfilingAnalyzer's record format)."""
from __future__ import annotations

import json

import pytest

from conftest import ingest_paths, rows
from tracedb.errors import InputError

# 3 samples; op 1 = MapOp with 4 workers, op 2 = ImageFolderOp with 2 workers, op -1 = no op
CPU = {"cpu_processor_num": 8,
       "device_info": {"user_utilization": [40, 50, 60], "sys_utilization": [5, 6, 7], "io_utilization": [1, 1, 4],
                       "idle_utilization": [54, 43, 29], "runnable_process": [3, 4, 5],
                       "context_switch_count": [100, 200, 300]},
       "process_info": {"user_utilization": [300, 330, 360], "sys_utilization": [30, 30, 30]},
       "op_info": [{"op_id": 1, "metrics": {"user_utilization": [300, 320, 340], "sys_utilization": [10, 20, 30]}},
                   {"op_id": 2, "metrics": {"user_utilization": [10, 20, 30], "sys_utilization": [0, 0, 0]}},
                   {"op_id": -1, "metrics": {"user_utilization": [1, 2, 3], "sys_utilization": [0, 0, 0]}}],
       "sampling_interval": 10, "time_stamp": [1000, 1010, 1020]}
PIPELINE = {"sampling_interval": 10, "op_info": [
    {"op_id": 0, "op_type": "BatchOp", "num_workers": 4, "children": [1],
     "metrics": {"output_queue": {"length": 8, "size": [1, 2, 3], "throughput": [0.0, 1.0, 1.0]}}},
    {"op_id": 1, "op_type": "MapOp", "num_workers": 4, "children": [2],
     "metrics": {"output_queue": {"length": 8, "size": [1, 2, 3], "throughput": [0.0, 1.0, 1.0]}}},
    {"op_id": 2, "op_type": "ImageFolderOp", "num_workers": 2,
     "metrics": {"output_queue": {"length": 8, "size": [1, 2, 3]}}}]}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("minddata")
    folder = tmp / "profiler"
    folder.mkdir()
    (folder / "minddata_cpu_utilization_3.json").write_text(json.dumps(CPU))
    (folder / "pipeline_profiling_3.json").write_text(json.dumps(PIPELINE))
    (folder / "dataset_iterator_profiling_3.txt").write_text("0 2 1 7 100\r\n1 16 1 2 100\r\n\r\n")
    db = tmp / "t.duckdb"
    ingest_paths(db, folder, run="md")
    return db


def test_cpu_samples_as_written(db):
    assert rows(db, "SELECT rank, scope, op_id, sample, ts_ms, user_pct, sys_pct, io_pct, idle_pct, runnable_processes, "
                    "context_switch_count, cpu_processor_count, sampling_interval_ms FROM minddata_cpu_sample "
                    "WHERE sample = 2 ORDER BY scope, op_id") == [
        (3, "device", None, 2, 1020, 60.0, 7.0, 4.0, 29.0, 5, 300, 8, 10),
        (3, "op", -1, 2, 1020, 3.0, 0.0, None, None, None, None, 8, 10),
        (3, "op", 1, 2, 1020, 340.0, 30.0, None, None, None, None, 8, 10),
        (3, "op", 2, 2, 1020, 30.0, 0.0, None, None, None, None, 8, 10),
        (3, "process", None, 2, 1020, 360.0, 30.0, None, None, None, None, 8, 10)]
    assert rows(db, "SELECT count(*) FROM minddata_cpu_sample") == [(15,)]


def test_cpu_utilization_averages_and_verdicts(db):
    """MapOp: (310 + 340 + 370) / 3 = 340 % over 4 workers = 85 % per worker > 75 → add_workers;
    ImageFolderOp: 20 % over 2 workers = 10 % < 20 with 2 workers → workers_idle."""
    got = rows(db, "SELECT scope, pipeline_op_id, pipeline_op_type, worker_count, sample_count, user_pct, sys_pct, "
                   "io_pct, idle_pct, cpu_pct, cpu_per_worker_pct, verdict FROM cpu_utilization")
    assert got == [("device", None, None, None, 3, 50.0, 6.0, 2.0, 42.0, 56.0, None, None),
                   ("process", None, None, None, 3, 330.0, 30.0, None, None, 360.0, None, None),
                   ("op", -1, None, None, 3, 2.0, 0.0, None, None, 2.0, None, None),
                   ("op", 1, "MapOp", 4, 3, 320.0, 20.0, None, None, 340.0, 85.0, "add_workers"),
                   ("op", 2, "ImageFolderOp", 2, 3, 20.0, 0.0, None, None, 20.0, 10.0, "workers_idle")]


def test_dataset_iterator_trace_and_throughput(db):
    assert rows(db, "SELECT line, kind, batch, time_ms, queue_size, queue_capacity, ts_ms, source FROM data_queue_record "
                    "ORDER BY line") == [(1, "batch_time", 1, 7, None, None, 100, "dataset_iterator_profiling"),
                                         (2, "queue", 1, None, 2, 16, 100, "dataset_iterator_profiling")]
    assert rows(db, "SELECT op_id, sample, throughput_rows_per_ms FROM data_pipeline WHERE sample = 1 ORDER BY op_id") == [
        (0, 1, 1.0), (1, 1, 1.0), (2, 1, None)]


def test_cpu_file_alone_older_key_names(tmp_path):
    """A single minddata_cpu_utilization file is a MindSpore rank of its own (it was refused as
    "not a Kineto trace"); MindSpore before 1.6 wrote runable_processes."""
    old = dict(CPU, device_info=dict({k: v for k, v in CPU["device_info"].items() if k != "runnable_process"},
                                     runable_processes=[7, 8, 9]))
    path = tmp_path / "minddata_cpu_utilization_5.json"
    path.write_text(json.dumps(old))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path, run="cpu")
    assert rows(db, "SELECT rank, runnable_processes FROM minddata_cpu_sample WHERE scope = 'device' ORDER BY sample") == [
        (5, 7), (5, 8), (5, 9)]


def test_bad_queue_record_names_the_line(tmp_path):
    path = tmp_path / "device_queue_profiling_0.txt"
    path.write_text("0 1 1 4 10\n1 64 x 0 10\n")
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", path)
    assert "line 2" in str(e.value) and "device_queue_profiling_0.txt" in str(e.value)


def test_not_a_cpu_file(tmp_path):
    path = tmp_path / "minddata_cpu_utilization_0.json"
    path.write_text('{"something": 1}')
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", path)
    assert "not a MindSpore minddata_cpu_utilization file" in str(e.value)
