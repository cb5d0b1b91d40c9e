"""memory_record.csv (formats.md §7.2) → ``memory`` rows of kind ``record``.

torch_npu 5.0.x: Component, Timestamp(us), Total Allocated(MB), Total Reserved(MB), Device
Type; >= 6.0.rc1 adds Total Active(MB) and Stream Ptr; MindSpore >= 2.4 writes Total Active
but no Stream Ptr (and its "MB" is KB / 1000). Allocated / Active / Stream Ptr are empty on
APP rows.
"""
from . import Field

FIELDS = {
    "component": Field(("Component",), "text", required=True),
    "ts_ns": Field(("Timestamp(us)",), "us", required=True),
    "allocated_bytes": Field(("Total Allocated(MB)",), "mb"),
    "reserved_bytes": Field(("Total Reserved(MB)",), "mb", required=True),
    "active_bytes": Field(("Total Active(MB)",), "mb", since="torch_npu 6.0.rc1"),
    "stream_ptr": Field(("Stream Ptr",), "text", since="torch_npu 6.0.rc1"),
    "device": Field(("Device Type",), "text"),
}
