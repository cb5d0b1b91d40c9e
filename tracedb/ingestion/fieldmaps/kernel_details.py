"""kernel_details.csv header variants (formats.md §3.3): match by name, never by position.

Each entry: kernel column → :class:`~tracedb.ingestion.fieldmaps.Field` (accepted header names
in order of preference, kind, first version). Kinds used: ``text``, ``int`` (N/A → NULL),
``us`` (microseconds → exact ns), ``shape`` (text with the literal quotes removed).
"""
from . import Field

FIELDS = {
    # torch_npu "Step Id"; MindSpore >= 2.5 "Step ID"; only when ProfilerStep ranges exist
    "step": Field(("Step Id", "Step ID", "step_id", "Step"), "int"),
    "device_id": Field(("Device_id", "Device Id", "Device ID"), "int", since="torch_npu 7.1.0"),
    "name": Field(("Name", "Op Name"), "text", required=True),
    "op_type": Field(("Type", "OP Type", "Op Type"), "text"),
    "accelerator_core": Field(("Accelerator Core", "Task Type"), "text"),
    "stream_id": Field(("Stream ID", "Stream Id"), "text"),          # Level1+ only; N/A for comm ops
    "ts_ns": Field(("Start Time(us)", "Task Start Time(us)"), "us", required=True),
    "dur_ns": Field(("Duration(us)", "Task Duration(us)"), "us", required=True),
    "wait_ns": Field(("Wait Time(us)", "Task Wait Time(us)"), "us"),
    "input_shapes": Field(("Input Shapes",), "shape"),
    "input_dtypes": Field(("Input Data Types",), "text"),
    "output_shapes": Field(("Output Shapes",), "shape"),
    # "Block Dim" up to torch_npu 7.x, "Block Num" from the 26.x releases (v2.7.1-26.0.0)
    "block_dim": Field(("Block Dim", "Block Num"), "int"),
}

# Accelerator Core values of communication ops (older CANN HCCL, newer COMMUNICATION)
COMMUNICATION_CORES = ("HCCL", "COMMUNICATION")
