"""One reader per input format: ``read(con, f: SourceFile) -> rows`` turns one file into rows
carrying ``f.file_id`` and touches nothing else. What needs two files is derived afterwards
(:mod:`tracedb.ingestion.derive`).

``READERS`` maps a format (``source_file.format``) to its reader and the table its row count
is reported for.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

from . import (communication, hccl_raw, hccl_trace, kernel_details, kineto, memory_csv, msprof_timeline,
               profiler_info, profiler_metadata, step_trace_raw, step_trace_time, trace_view)
from . import minddata, minddata_profile, mindspore_flops, mindspore_timeline, nsys
from . import ascend_db, trace_set
from .chrome import SplitReadFailed  # noqa: F401  (re-exported for the ingest loop)


class Reader(NamedTuple):
    read: Callable
    table: str           # the table whose rows ``read`` returns the count of


READERS: dict[str, Reader] = {
    "trace_view": Reader(trace_view.read, "event"),
    "kineto": Reader(kineto.read, "event"),
    "msprof_timeline": Reader(msprof_timeline.read, "event"),
    "kernel_details": Reader(kernel_details.read, "kernel"),
    "step_trace_time": Reader(step_trace_time.read, "profiler_step_trace"),
    "communication": Reader(communication.read, "profiler_comm_op"),
    "communication_matrix": Reader(communication.read_matrix, "profiler_comm_matrix"),
    "memory_record": Reader(memory_csv.READERS["memory_record"], "memory"),
    "operator_memory": Reader(memory_csv.READERS["operator_memory"], "memory"),
    "npu_module_mem": Reader(memory_csv.READERS["npu_module_mem"], "memory"),
    "profiler_info": Reader(profiler_info.read, "rank"),
    "profiler_metadata": Reader(profiler_metadata.read, "profiler_parallel_group"),
    "step_trace_raw": Reader(step_trace_raw.read, "step_trace_raw_row"),
    "hccl_raw": Reader(hccl_raw.read, "link"),
    "hccl_trace": Reader(hccl_trace.read, "link"),
    "nsys": Reader(nsys.read, "kernel"),
    "mindspore_timeline": Reader(mindspore_timeline.read, "event"),
    "step_trace_point": Reader(mindspore_timeline.read_point_info, "step_point"),
    "minddata_pipeline": Reader(lambda con, f: (minddata.read_csv if f.path.suffix.lower() == ".csv"
                                                else minddata.read_json)(con, f), "data_pipeline"),
    "minddata_queue": Reader(minddata_profile.read_queue, "data_queue_record"),
    "minddata_cpu": Reader(minddata_profile.read_cpu, "minddata_cpu_sample"),
    "mindspore_flops_summary": Reader(mindspore_flops.read_summary, "profiler_flops_summary"),
    "mindspore_flops_scope": Reader(mindspore_flops.read_scope, "profiler_flops_scope"),
    "ascend_db": Reader(ascend_db.read, "kernel"),
    "analysis_db": Reader(ascend_db.read_analysis, "profiler_step_trace"),
}



class SetReader(NamedTuple):
    """A reader of many files of one format in one statement (the files of a batch of ranks)."""
    takes: Callable      # path -> True if this reader reads the file (else the format's READERS one)
    read: Callable       # (con, [SourceFile]) -> {file_id: rows}
    # SourceFile -> True once it has set the file's rank from the file (a format whose rank the
    # file holds: Kineto); False: the file is read on its own. None: the rank is the input's.
    prepare: Callable | None = None


SET_READERS: dict[str, SetReader] = {
    "trace_view": SetReader(trace_set.eligible, trace_set.read),
    "kernel_details": SetReader(lambda path: True, kernel_details.read_set),
    "kineto": SetReader(kineto.eligible, kineto.read_set, kineto.prepare),
}

# formats of which a (run, rank) holds several files (one per op execution / timeline slice);
# every other format is one file per (run, rank): a second, different one is another capture
MULTI_FILE_FORMATS = ("hccl_trace", "msprof_timeline")
