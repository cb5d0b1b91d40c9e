"""One renderer for every output format: table, csv, json, ndjson, markdown.

JSON keeps integers exact (Python ints, never floats); NaN and infinities become null.
"""
from __future__ import annotations

import csv
import decimal
import io
import json
import math
from typing import Any, Sequence

from tabulate import tabulate

FORMATS = ("table", "csv", "json", "ndjson", "markdown")


def _json_value(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    return str(v)


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return format(v, ".10g") if math.isfinite(v) else str(v)
    return str(v)


def render(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table") -> str:
    """Render a result.

    Args:
        columns: column names.
        rows: row tuples (Python values as DuckDB returns them).
        fmt: table | csv | json | ndjson | markdown.

    Returns:
        The text to print (ends with a newline unless empty).

    >>> print(render(["a", "b"], [(1, 2.5)], "csv"), end="")
    a,b
    1,2.5
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if v is None else (_cell(v) if isinstance(v, float) else v) for v in r])
        return buf.getvalue()
    if fmt in ("json", "ndjson"):
        objs = [{c: _json_value(v) for c, v in zip(columns, r)} for r in rows]
        if fmt == "json":
            return json.dumps(objs, ensure_ascii=False, indent=1) + "\n"
        return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)
    cells = [[_cell(v) for v in r] for r in rows]
    tablefmt = "github" if fmt == "markdown" else "simple"
    text = tabulate(cells, headers=list(columns), tablefmt=tablefmt, disable_numparse=True)
    return text + "\n"
