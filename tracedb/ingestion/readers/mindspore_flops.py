"""MindSpore ``flops_summary_{rank}.json`` → ``profiler_flops_summary`` and
``flops_scope_{rank}.json`` → ``profiler_flops_scope`` (tiny JSON objects; fields:
:mod:`..fieldmaps.mindspore_flops`). The profiler's numbers are kept as written: rank_flops shows
them beside tracedb's own, never mixes them in.
"""
from __future__ import annotations

import json
import math

from ...engine import duckdb, insert_rows

from ...errors import InputError
from ..fieldmaps import mindspore_flops as fm
from ..sources.file import SourceFile


def _load(f: SourceFile) -> dict:
    try:
        doc = json.loads(f.path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"not a JSON document: {e}", file=str(f.path)) from e
    if not isinstance(doc, dict):
        raise InputError(f"expected a JSON object, found {type(doc).__name__}.", file=str(f.path), place="top level")
    return doc


def _number(f: SourceFile, doc: dict, key: str, place: str) -> float | None:
    v = doc.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InputError(f"{key!r} is not a number: {v!r}.", file=str(f.path), place=place)
    return float(v)


def read_summary(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Insert the one row of flops_summary_{rank}.json; returns 1.

    Raises:
        InputError: not a JSON object, none of the known keys, or a value that is not a number.
    """
    doc = _load(f)
    keys = {col: fld.find(doc) for col, fld in fm.SUMMARY.items()}
    if not any(keys.values()):
        raise InputError("none of the flops_summary keys "
                         f"({', '.join(fld.name for fld in fm.SUMMARY.values())}).", file=str(f.path),
                         place="top level", hint="tracedb reads MindSpore's flops_summary_{rank}.json.")
    values = [None if k is None else _number(f, doc, k, f"key {k!r}") for k in keys.values()]
    insert_rows(con, "profiler_flops_summary", [[f.run_id, f.rank, f.file_id, *values]])
    return 1


def read_scope(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Insert the links of flops_scope_{rank}.json; returns their number.

    Raises:
        InputError: not a JSON object, no data.links list, or a link without source / target or
            with a value that is not a number (the message names the link).
    """
    doc = _load(f)
    data = doc.get(fm.SCOPE_DATA.name)
    links = data.get(fm.SCOPE_LINKS.name) if isinstance(data, dict) else None
    if not isinstance(links, list):
        raise InputError(f"expected {fm.SCOPE_DATA.name}.{fm.SCOPE_LINKS.name}, a list of links.", file=str(f.path),
                         place="top level", hint="tracedb reads MindSpore's flops_scope_{rank}.json.")
    depth = _number(f, doc, fm.MAX_SCOPE_NUM.name, f"key {fm.MAX_SCOPE_NUM.name!r}")
    out = []
    for i, link in enumerate(links, 1):
        place = f"{fm.SCOPE_DATA.name}.{fm.SCOPE_LINKS.name}[{i - 1}]"
        if not isinstance(link, dict) or not isinstance(link.get(fm.LINK_SOURCE.name), str) \
                or not isinstance(link.get(fm.LINK_TARGET.name), str):
            raise InputError(f"a link needs a {fm.LINK_SOURCE.name!r} and a {fm.LINK_TARGET.name!r} name.",
                             file=str(f.path), place=place)
        out.append([f.run_id, f.rank, f.file_id, i, link[fm.LINK_SOURCE.name], link[fm.LINK_TARGET.name],
                    _number(f, link, fm.LINK_VALUE.name, place), None if depth is None else int(depth)])
    insert_rows(con, "profiler_flops_scope", out)
    return len(out)
