"""npu_module_mem.csv (formats.md §7.3) → ``memory`` rows of kind ``module``.

torch_npu writes ``Total Reserved(MB)`` (CANN KB ÷ 1024); MindSpore >= 2.4 copies CANN's file
with ``Total Reserved(KB)``: the unit comes from the header. The device is ``Device``
(torch_npu), ``Device Type``, or only ``Device_id``.
"""
from . import Field

FIELDS = {
    "component": Field(("Component",), "text", required=True),
    "ts_ns": Field(("Timestamp(us)",), "us", required=True),
    "device": Field(("Device", "Device Type"), "text"),
    "device_id": Field(("Device_id",), "int"),
}
# one of the two is required; MB preferred
RESERVED_MB = Field(("Total Reserved(MB)",), "mb")
RESERVED_KB = Field(("Total Reserved(KB)",), "kb", since="MindSpore 2.4")
