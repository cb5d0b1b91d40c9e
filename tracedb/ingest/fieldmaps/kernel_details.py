"""kernel_details.csv header variants (formats.md §3.3): match by name, never by position.

Each entry: kernel column → (accepted header names in order of preference, kind). Kinds:
``text`` as written; ``int`` integer cell (N/A → NULL); ``us`` microseconds → exact ns;
``shape`` text with the literal quotes removed.
"""
REQUIRED = ("name", "ts_ns", "dur_ns")

FIELDS = {
    "step": (("Step Id", "Step ID", "step_id", "Step"), "int"),
    "device_id": (("Device_id", "Device Id", "Device ID"), "int"),
    "name": (("Name", "Op Name"), "text"),
    "op_type": (("Type", "OP Type", "Op Type"), "text"),
    "accelerator_core": (("Accelerator Core", "Task Type"), "text"),
    "stream_id": (("Stream ID", "Stream Id"), "text"),
    "ts_ns": (("Start Time(us)", "Task Start Time(us)"), "us"),
    "dur_ns": (("Duration(us)", "Task Duration(us)"), "us"),
    "wait_ns": (("Wait Time(us)", "Task Wait Time(us)"), "us"),
    "input_shapes": (("Input Shapes",), "shape"),
    "input_dtypes": (("Input Data Types",), "text"),
    "output_shapes": (("Output Shapes",), "shape"),
    "block_dim": (("Block Dim", "Block Num"), "int"),
}

# Accelerator Core values of communication ops (older CANN HCCL, newer COMMUNICATION)
COMMUNICATION_CORES = ("HCCL", "COMMUNICATION")
