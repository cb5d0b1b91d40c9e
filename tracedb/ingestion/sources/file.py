"""One input file as a reader sees it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable


@dataclass
class SourceFile:
    """An input file claimed by the catalog for one (run, rank).

    ``rank`` is None for a Kineto trace until its reader has read the rank from the file
    (``assign_rank(meta)`` turns the trace's top-level keys into the rank number).
    """

    file_id: int
    run_id: int
    rank: int | None
    format: str
    path: Path
    framework: str | None = None          # torch_npu | mindspore | None (unknown)
    op_tag: str | None = None             # HCCL .trace files: the op folder (allReduce_1_1)
    split: bool = True                    # large arrays may be read as parallel slices
    bar: Callable[[str, float], None] | None = None
    assign_rank: Callable[[dict], int] | None = None
    step_range_pattern: str | None = None  # Nsight NVTX ranges that mark steps (tracedb ingest --step-range-pattern)
