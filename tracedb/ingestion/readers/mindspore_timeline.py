"""MindSpore timeline (``ascend_timeline_display_{rank}.json`` / ``timeline_display_{rank}.json``)
→ ``event``, and ``step_trace_point_info.json`` → ``step_point``.

The timeline is a Chrome-trace array read like trace_view.json (:mod:`.chrome`): ``ts`` is
relative (µs from the file's first record), so ``event.ts_ns`` counts ns from that origin, not
the epoch; string ``tid`` values are kept as text. Its kernels and steps are derived by
``derive/035_kernel_from_mindspore_timeline.sql`` (fields: :mod:`..fieldmaps.mindspore_timeline`).
"""
from __future__ import annotations

import json

from ...engine import duckdb, insert_rows

from ...errors import InputError
from ..fieldmaps import mindspore_timeline as fm
from ..sources.file import SourceFile
from . import trace_view


def read(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Insert the timeline's events; see :func:`tracedb.ingestion.readers.trace_view.read`."""
    return trace_view.read(con, f)


def read_point_info(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Insert the fp_start / bp_end op names of step_trace_point_info.json (a tiny JSON object,
    or a list of them); returns the number of point pairs.

    Raises:
        InputError: not JSON, or an object without fp_start / bp_end.
    """
    try:
        doc = json.loads(f.path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"not a JSON document: {e}", file=str(f.path)) from e
    points = doc if isinstance(doc, list) else [doc]
    out = []
    for i, p in enumerate(points):
        if not isinstance(p, dict) or fm.FP_START.find(p) is None or fm.BP_END.find(p) is None:
            raise InputError(f"expected an object with {fm.FP_START.name} and {fm.BP_END.name}.",
                             file=str(f.path), place=f"point {i}")
        fp, bp = p[fm.FP_START.find(p)], p[fm.BP_END.find(p)]
        out.append([f.run_id, f.rank, f.file_id, i, None if fp is None else str(fp), None if bp is None else str(bp)])
    if out:
        insert_rows(con, "step_point", out)
    return len(out)
