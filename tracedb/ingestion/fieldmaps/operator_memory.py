"""operator_memory.csv (formats.md §7.1) → ``memory`` rows of kind ``operator``.

torch_npu 5.0.x: Name, Size(KB), Allocation Time(us), Release Time(us), Duration(us),
Allocation/Release Total Allocated/Reserved(MB), Device Type; torch_npu >= 6.0.rc1 and
MindSpore >= 2.4 add the Active columns and Stream Ptr. Release columns are empty (torch_npu)
or N/A (MindSpore) when the free was not captured; allocation columns empty when the malloc
was not. Size(KB) is negative for CANN rows whose free only was captured.
"""
from . import Field

FIELDS = {
    "name": Field(("Name",), "text", required=True),
    "size_bytes": Field(("Size(KB)",), "kb", required=True),
    "ts_ns": Field(("Allocation Time(us)",), "us", required=True),
    "release_ts_ns": Field(("Release Time(us)",), "us"),
    "active_release_ts_ns": Field(("Active Release Time(us)",), "us", since="torch_npu 6.0.rc1"),
    "dur_ns": Field(("Duration(us)",), "us"),
    "active_dur_ns": Field(("Active Duration(us)",), "us", since="torch_npu 6.0.rc1"),
    "allocated_bytes": Field(("Allocation Total Allocated(MB)",), "mb"),
    "reserved_bytes": Field(("Allocation Total Reserved(MB)",), "mb"),
    "active_bytes": Field(("Allocation Total Active(MB)",), "mb", since="torch_npu 6.0.rc1"),
    "release_allocated_bytes": Field(("Release Total Allocated(MB)",), "mb"),
    "release_reserved_bytes": Field(("Release Total Reserved(MB)",), "mb"),
    "release_active_bytes": Field(("Release Total Active(MB)",), "mb", since="torch_npu 6.0.rc1"),
    "stream_ptr": Field(("Stream Ptr",), "text", since="torch_npu 6.0.rc1"),
    "device": Field(("Device Type",), "text"),
}
