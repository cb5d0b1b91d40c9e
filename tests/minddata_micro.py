"""The hand-drawn MindSpore minddata capture (step_trace_raw, pipeline profile, device queue)
that the input-bound diagnosis tests and the summary/report micro run share; the numbers each
test asserts follow from the comments here."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import FIXTURES, corpus_path

# MindSpore flat folder: step_trace_raw in 10 ns ticks
#   step 1 [0, 100000) fp 0 → interval 0
#   step 2 [100000, 300000) fp 200000 → interval 100000 ticks = 1 ms of a 2 ms step (ratio 0.5)
#   step 3 [300000, 400000) fp 300040 → interval 400 ns (below MindInsight's 0.5 ms)
STEP_TRACE = ("step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail\n"
              "1,0,100000,100000,0,80000,0,80000,20000\n"
              "2,100000,300000,200000,200000,280000,100000,80000,20000\n"
              "3,300000,400000,100000,300040,380000,40,79960,20000\n")
# pipeline: DeviceQueueOp 0 (root, no queue) <- BatchOp 1 <- MapOp 2 (1 worker) <- ImageFolderOp 3
#   queue sizes per sample     BatchOp [0, 0, 0, 2]  MapOp [0, 0, 0, 1]  ImageFolderOp [8, 9, 8, 9]
#   samples 0-2: the device's queue (BatchOp) is empty, MapOp's is empty while its input holds data
#   → MapOp is to blame (3 of 3 waits); pipeline empty ratio 3/4
PIPELINE = {"sampling_interval": 10, "op_info": [
    {"op_id": 0, "op_type": "DeviceQueueOp", "num_workers": 1, "children": [1], "metrics": None},
    {"op_id": 1, "op_type": "BatchOp", "num_workers": 4, "children": [2],
     "metrics": {"output_queue": {"length": 64, "size": [0, 0, 0, 2], "throughput": [0.0, 0.5, 0.5, 0.25]}}},
    {"op_id": 2, "op_type": "MapOp", "num_workers": 1, "children": [3],
     "metrics": {"output_queue": {"length": 64, "size": [0, 0, 0, 1], "throughput": [0.0, 2.0, 4.0, 6.0]}}},
    {"op_id": 3, "op_type": "ImageFolderOp", "num_workers": 8,
     "metrics": {"output_queue": {"length": 64, "size": [8, 9, 8, 9], "throughput": [0.0, 9.0, 9.0, 9.0]}}}]}
# device queue: batches 1..3 found 0, 0, 3 batches (capacity 64) → empty ratio 2/3
QUEUE = "0 0 1 5 100\n1 64 1 0 100\n1 64 2 0 200\n0 1 2 3 200\n1 64 3 3 300\n"


def write_minddata(folder: Path) -> Path:
    """The three files into ``folder`` (made), as a MindSpore flat profiler folder holds them."""
    folder.mkdir(parents=True)
    (folder / "step_trace_raw_0_detail_time.csv").write_text(STEP_TRACE)
    (folder / "pipeline_profiling_0.json").write_text(json.dumps(PIPELINE))
    (folder / "device_queue_profiling_0.txt").write_text(QUEUE)
    return folder


def write_corpus_minddata(folder: Path) -> Path:
    """MindInsight's test capture (corpus: step_trace_raw, pipeline profile of a ResNet-50 job)
    with the device-queue file it lacks (fixtures/mindspore/minddata) into ``folder`` (made)."""
    folder.mkdir(parents=True)
    for name in ("step_trace_raw_0_detail_time.csv", "pipeline_profiling_0.json"):
        shutil.copy(corpus_path(f"mindinsight/tests/utils/resource/profiler/{name}"), folder / name)
    shutil.copy(FIXTURES / "mindspore/minddata/device_queue_profiling_0.txt", folder)
    return folder
