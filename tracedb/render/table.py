"""The human table (and its HTML twin for notebooks): ``tracedb query``'s default output.

``table`` is for people (the default of every command). Units come from the
column names, as the views name them (``*_ns``, ``*_bytes``, ``*_ratio``, ``*_pct``,
``*_gbps``), and the header says the unit shown:

* durations (``dur_ns``, ``computing_ns`` …) in the unit that fits — µs below 1 ms, ms below
  100 s, else s — with 3 fixed decimals (``computing_ms 136.612``); columns of one family (the
  same name but for a side or statistic word: ``baseline_total_ns`` / ``comparison_total_ns`` /
  ``diff_total_ns``, ``p50_launch_delay_ns`` / ``p90_launch_delay_ns``) share one unit, and a
  column without values takes its family's or the table's; ``units`` forces one unit (``ns``
  prints the exact integers);
* instants (``ts_ns``, ``start_ns``, ``step_end_ns`` …) as UTC time of day with µs
  (``08:01:23.704643``) when they are epoch times, else in seconds;
* bytes in GiB / MiB / KiB (2 decimals, one unit per family), ratios as % (1 decimal),
  bandwidth in GB/s;
* other numbers right-aligned with digit grouping (keys such as rank and step without), whole
  numbers as integers (a DOUBLE count of 16.0 prints ``16``), others with the decimals they need
  (at most 3); text of digits only (stream ids) right-aligned; NULL as ``—``;
* control characters, bidi overrides and other invisible format characters in text as visible
  escapes (``\x1b``, ``\u202e``), a newline as ``⏎``: what a trace names cannot drive the terminal;
* the table fits ``width`` characters: long text loses the prefix all its rows share, then its
  middle (``sm80_xmma_fprop…_tn_n``: the ends tell rows apart), then columns are left out with a
  ``+N columns`` note — first those without a value in the rows shown, then the trailing ones
  (``wide`` shows them all, ``vertical`` one field a line);
* at most ``max_rows`` rows, with an ``N rows (40 shown)`` note.
"""
from __future__ import annotations

import datetime as _dt
import decimal
import html
import math
import re
import textwrap
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .text import ELLIPSIS, cut, shared_prefix, visible

UNITS = ("ns", "us", "ms", "s")
DEFAULT_MAX_ROWS = 40
NULL = "—"
_NS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_UNIT_LABEL = {"ns": "ns", "us": "µs", "ms": "ms", "s": "s"}
_BYTE_UNITS = (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10))
_INSTANT = re.compile(r"(^|_)(ts|start|end)_ns$")
_KEY_INT = re.compile(r"^(rank|step|execution|device|device_id|run_id|rank_id|step_id)$|_(rank|id|step)$")
# words that name a side or a statistic of a quantity, not the quantity: columns that differ only
# by them form one family and share a unit (p50_launch_delay_ns, p90_launch_delay_ns)
_FAMILY_NOISE = re.compile(r"^(baseline|comparison|diff|p\d+|mean|median|min|max|std|stddev)$")
_EPOCH_NS = 10 ** 18          # 2001-09-09: below this an instant is a device counter or relative time
_TEXT_CAP = 40                # longest text cell before the table has to shrink further
_TEXT_MIN = 24                # text cells are cut down to this before columns are left out
_PREFIX_MIN = 6               # a shared prefix shorter than this is kept
_HEADER_LINES = 3
_HEADER_MIN = 12              # a header this long stays on one line
_DIGITS = re.compile(r"^-?\d+$")


def cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return format(v, ".10g") if math.isfinite(v) else str(v)
    return str(v)


# ---- human cells ---------------------------------------------------------------------------

def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool)


def fixed(v: Any, scale: int, decimals: int) -> str:
    """``v / scale`` with ``decimals`` fixed decimals and digit grouping; exact for integers
    (rounded half up in integer arithmetic, never through a float)."""
    if isinstance(v, int):
        q = 10 ** decimals
        n = (abs(v) * q * 2 + scale) // (2 * scale)
        whole, frac = divmod(n, q)
        text = f"{whole:,}" + (f".{frac:0{decimals}d}" if decimals else "")
        return ("-" + text) if v < 0 and n else text
    f = float(v) / scale
    return f"{f:,.{decimals}f}" if math.isfinite(f) else str(f)


def _decimals(values: list) -> int:
    """The decimals (0–3) a column of plain numbers needs: 0 when every value is whole (a DOUBLE
    count of calls, 16.0), else the most any value needs at 3 decimals."""
    need = 0
    for v in values:
        if isinstance(v, int) or not math.isfinite(float(v)):
            continue
        text = f"{abs(float(v)):.3f}".rstrip("0")
        need = max(need, len(text) - text.index(".") - 1)
        if need == 3:
            break
    return need


def _plain_number(v: Any, group: bool = True, decimals: int = 3) -> str:
    if isinstance(v, int):
        return f"{v:,}" if group else str(v)
    f = float(v)
    if not math.isfinite(f):
        return str(f)
    if 0 < abs(f) < 0.001:
        return f"{f:.3g}"
    return f"{f:,.{decimals}f}" if group else f"{f:.{decimals}f}"


def _text(v: Any) -> str:
    if v is None:
        return NULL
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return visible(v)
    return visible(str(v))


@dataclass
class _Col:
    header: str                    # the name shown, with the unit it is shown in
    fmt: Callable[[Any], str]
    numeric: bool


def _max_abs(values: list) -> float:
    nums = [abs(float(v)) for v in values if _is_number(v) and math.isfinite(float(v))]
    return max(nums) if nums else 0.0


def _stem(name: str, suffix: str) -> str:
    return name[: -len(suffix)] if name.endswith(suffix) else name


def _family(name: str) -> str:
    """The quantity a column measures, without side and statistic words:
    ``p90_launch_delay_ns`` → ``launch_delay_ns``, ``comparison_total_ns`` → ``total_ns``."""
    words = name.lower().split("_")
    kept = [w for w in words[:-1] if not _FAMILY_NOISE.match(w)]
    return "_".join(kept + words[-1:])


def _duration_unit(top: float) -> str:
    return "us" if top < 1e6 else "ms" if top < 1e11 else "s"


def _byte_unit(top: float) -> tuple[str, int]:
    return next(((u, s) for u, s in _BYTE_UNITS if top >= s), ("B", 1))


def _is_duration(lower: str) -> bool:
    return (lower.endswith("_ns") or lower == "ns") and not (_INSTANT.search(lower) and not lower.startswith("late_"))


def _shared_units(columns: Sequence[str], values: list[list]) -> dict[int, Any]:
    """The unit of every duration and bytes column: the one that fits the largest value of its
    family; a family without values takes the unit most columns of its kind have. For the other
    number columns: the decimals their family needs."""
    out: dict[int, Any] = {}
    for kind, pick, test in (("ns", _duration_unit, _is_duration), ("bytes", _byte_unit,
                                                                    lambda n: n.endswith("_bytes"))):
        idx = [i for i, c in enumerate(columns) if test(c.lower())
               and all(v is None or _is_number(v) for v in values[i])]
        tops: dict[str, float | None] = {}
        for i in idx:
            fam = _family(columns[i])
            has = any(v is not None for v in values[i])
            top = _max_abs(values[i]) if has else None
            if top is not None:
                tops[fam] = max(tops.get(fam) or 0.0, top)
            else:
                tops.setdefault(fam, None)
        units = {fam: pick(top) for fam, top in tops.items() if top is not None}
        common = Counter(units[_family(columns[i])] for i in idx if units.get(_family(columns[i])) is not None)
        fallback = common.most_common(1)[0][0] if common else None
        for i in idx:
            out[i] = units.get(_family(columns[i]), fallback)
    # plain numbers: one number of decimals per family (baseline_calls 24.5 beside comparison_calls 16.0)
    plain = [i for i, c in enumerate(columns) if i not in out and not re.search(r"_(ns|ratio|pct|gbps)$", c.lower())
             and any(v is not None for v in values[i]) and all(v is None or _is_number(v) for v in values[i])]
    need: dict[str, int] = {}
    for i in plain:
        fam = _family(columns[i])
        need[fam] = max(need.get(fam, 0), _decimals([v for v in values[i] if v is not None]))
    out.update({i: need[_family(columns[i])] for i in plain})
    return out


def _column(name: str, values: list, units: str | None, shared: Any = None) -> _Col:
    """How one column is shown: its header (with the unit) and its cell formatter."""
    nums = [v for v in values if _is_number(v)]
    numeric = all(v is None or _is_number(v) for v in values)     # an all-NULL column keeps its unit
    lower = name.lower()
    if not numeric:
        present = [v for v in values if v is not None]
        if present and all(isinstance(v, str) and _DIGITS.match(v) for v in present):
            return _Col(name, _text, True)          # ids written as text (stream ids): numbers to the eye
        return _Col(name, _text, False)
    if lower.endswith("_ns") or lower == "ns":
        stem = _stem(name, name[-3:]).rstrip("_")
        if _INSTANT.search(lower) and not lower.startswith("late_"):
            if units is None and nums and all(isinstance(v, int) for v in nums):
                epoch = [v >= _EPOCH_NS for v in nums]
                if all(epoch):
                    return _Col(f"{stem}_utc", _clock, True)
                if any(epoch):      # epoch times next to device counters (e.g. MindSpore): each as it is
                    return _Col(stem, lambda v: _clock(v) if v >= _EPOCH_NS else fixed(v, 10 ** 9, 6) + " s", True)
            if units == "ns":
                return _Col(name, lambda v: NULL if v is None else str(v), True)
            unit, dec = (units, 3) if units else ("s", 6)
        elif units is not None:
            unit, dec = units, (0 if units == "ns" else 3)
        else:
            unit, dec = shared or _duration_unit(_max_abs(values)), 3
        scale = _NS[unit]
        return _Col(f"{stem}_{_UNIT_LABEL[unit]}", lambda v: NULL if v is None else fixed(v, scale, dec), True)
    if lower.endswith("_bytes"):
        unit, scale = shared or _byte_unit(_max_abs(values))
        dec = 0 if scale == 1 else 2
        return _Col(f"{_stem(name, name[-6:])}_{unit}", lambda v: NULL if v is None else fixed(v, scale, dec), True)
    if lower.endswith("_ratio"):
        return _Col(f"{_stem(name, name[-6:])}_%", lambda v: NULL if v is None else fixed(v * 100, 1, 1), True)
    if lower.endswith("_pct"):
        return _Col(f"{_stem(name, name[-4:])}_%", lambda v: NULL if v is None else fixed(v, 1, 1), True)
    if lower.endswith("_gbps"):
        return _Col(f"{_stem(name, name[-5:])}_GB/s", lambda v: NULL if v is None else fixed(v, 1, 2), True)
    group = not _KEY_INT.search(lower)
    dec = shared if isinstance(shared, int) else _decimals(nums)
    return _Col(name, lambda v: NULL if v is None else _plain_number(v, group, dec), True)


def _clock(v: int) -> str:
    """Epoch ns as UTC time of day with µs: 1736408883704643212 → 07:48:03.704643."""
    secs, ns = divmod(v, 10 ** 9)
    return _dt.datetime.fromtimestamp(secs, _dt.timezone.utc).strftime("%H:%M:%S") + f".{ns // 1000:06d}"


def human_cells(columns: Sequence[str], rows: Sequence[Sequence[Any]],
                units: str | None = None) -> tuple[list[str], list[list[str]], list[bool]]:
    """The rows as people read them: headers with units, formatted cells, right-alignment flags.

    >>> human_cells(["rank", "computing_ns", "size_bytes", "wait_ratio", "name"],
    ...             [(0, 136_612_345, 3 * 2**30, 0.25, "MatMul"), (1, None, 2**30, None, None)])
    (['rank', 'computing_ms', 'size_GiB', 'wait_%', 'name'], [['0', '136.612', '3.00', '25.0', 'MatMul'], ['1', '—', '1.00', '—', '—']], [True, True, True, True, False])
    """
    if units is not None and units not in UNITS:
        raise ValueError(f"unknown unit {units!r}; use one of {', '.join(UNITS)}")
    values = [[r[i] for r in rows] for i in range(len(columns))]
    shared = _shared_units(columns, values) if units is None else {}
    cols = [_column(c, values[i], units, shared.get(i)) for i, c in enumerate(columns)]
    cells = [[col.fmt(v) if v is not None else NULL for col, v in zip(cols, r)] for r in rows]
    return [visible(c.header) for c in cols], cells, [c.numeric for c in cols]


# ---- the table -----------------------------------------------------------------------------

def _header_lines(header: str, width: int) -> list[str]:
    """The header wrapped at underscores into lines of at most ``width`` (one word may be longer)."""
    if len(header) <= width:
        return [header]
    lines: list[str] = []
    for word in header.split("_"):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += "_" + word
        else:
            lines.append(word)
    return lines


def _header_width(header: str, data_width: int) -> int:
    """The narrowest width ≥ the data's at which the header takes at most three lines; a header of
    up to ``_HEADER_MIN`` characters stays on one line, a longer one wraps at its words."""
    w = max(data_width, max(len(p) for p in header.split("_")), len(header) if len(header) <= _HEADER_MIN else 0)
    while len(_header_lines(header, w)) > _HEADER_LINES:
        w += 1
    return w


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def render_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, width: int | None = None,
                 max_rows: int | None = DEFAULT_MAX_ROWS, units: str | None = None, vertical: bool = False,
                 wide: bool = False, wrap_last: bool = False, total: int | None = None) -> str:
    """The human table (see the module docstring).

    Args:
        width: characters per line to fit (None: no limit).
        max_rows: rows shown at most (None: all); a note says how many there are.
        units: force one time unit (ns, us, ms, s) for every ``*_ns`` column.
        vertical: one ``column | value`` line per field, a block per row.
        wide: show every column, text uncut, whatever the width.
        wrap_last: wrap a text column that comes last instead of cutting it (descriptions).
        total: the number of rows of the whole result when ``rows`` holds only its first rows
            (at least the ``max_rows`` shown; default ``len(rows)``).

    >>> print(render_table(["rank", "free_ns", "op"], [(0, 1_500_000, "MatMul"), (1, 12_000_000, None)]), end="")
    rank  free_ms  op
    ----  -------  ------
       0    1.500  MatMul
       1   12.000  —
    """
    total = len(rows) if total is None else total
    shown = list(rows if max_rows is None else rows[:max_rows])
    headers, cells, right = human_cells(columns, shown, units)
    notes = []
    if len(shown) < total:
        notes.append(f"{_plural(total, 'row')} ({len(shown):,} shown): --limit N or --all for more")
    if not columns:
        return "\n".join(notes) + ("\n" if notes else "")
    if vertical:
        body = _vertical(headers, cells, None if wide else width)
    else:
        fit = None if wide else width
        prefixes = _drop_prefixes(headers, cells, right, fit)
        body, dropped = _horizontal(headers, cells, right, fit, wrap_last)
        notes += [_prefix_note(h, p, width) for h, p in prefixes if h not in dropped]
        if dropped:
            notes.append(_dropped_note(dropped, width))
        if not shown:
            notes.insert(0, "0 rows")
    return body + "".join(n + "\n" for n in notes)


def _dropped_note(dropped: list[str], width: int | None) -> str:
    """``+N columns not shown (a, b, …): --wide or -x/--vertical``, as many names as fit."""
    for k in range(len(dropped), -1, -1):
        names = (" (" + ", ".join(dropped[:k]) + (", …" if k < len(dropped) else "") + ")") if k else ""
        note = f"+{_plural(len(dropped), 'column')} not shown{names}: --wide or -x/--vertical"
        if width is None or len(note) <= width or k == 0:
            return note
    return ""


def _prefix_note(header: str, prefix: str, width: int | None) -> str:
    """``op_name: every value starts with 'autograd::engine::evaluate_function: ' (shown as …)``,
    the prefix cut in its middle when the line would be longer than ``width``."""
    text = f"{header}: every value starts with '' (shown as …)"
    room = None if width is None else max(width - len(text), 8)
    return f"{header}: every value starts with '{prefix if room is None else cut(prefix, room)}' (shown as …)"


def _drop_prefixes(headers, cells, right, width) -> list[tuple[str, str]]:
    """In a table wider than ``width``, each text column longer than the text cap loses the start
    all its values share (``/data/job/``, ``autograd::engine::evaluate_function: ``): the cells
    become ``…rest``. Returns (header, prefix) of each column cut so."""
    if width is None or _natural_width(headers, cells) <= width:
        return []
    out = []
    for i, h in enumerate(headers):
        values = [r[i] for r in cells if r[i] != NULL]
        if right[i] or max(map(len, values), default=0) <= _TEXT_MIN:
            continue
        prefix = shared_prefix(values)
        if len(prefix) >= _PREFIX_MIN and all(v.startswith(prefix) for v in values):
            for r in cells:
                if r[i] != NULL:
                    r[i] = ELLIPSIS + r[i][len(prefix):]
            out.append((h, prefix))
    return out


def _natural_width(headers, cells) -> int:
    return sum(_header_width(h, max([len(r[i]) for r in cells] or [0])) for i, h in enumerate(headers)) \
        + 2 * (len(headers) - 1)


def _kept_columns(headers, cells, ws: list[int], width: int) -> list[int]:
    """The columns that fit ``width``, in order: columns without a value in the rows shown are
    left out first (from the right), then trailing columns; the first column always stays."""
    keep = list(range(len(headers)))

    def total(idx: list[int]) -> int:
        return sum(ws[i] for i in idx) + 2 * (len(idx) - 1)

    empty = [i for i in range(len(headers)) if cells and all(r[i] == NULL for r in cells)]
    for i in reversed(empty):
        if total(keep) <= width or len(keep) == 1:
            break
        if i:
            keep.remove(i)
    while len(keep) > 1 and total(keep) > width:
        keep.pop()
    return keep


def _horizontal(headers, cells, right, width, wrap: bool) -> tuple[str, list[str]]:
    n = len(headers)
    data_w = [max([len(r[i]) for r in cells] or [0]) for i in range(n)]
    text_cols = [i for i in range(n) if not right[i]]

    def widths(cap: int | None) -> list[int]:
        return [_header_width(headers[i], min(data_w[i], cap) if (cap and i in text_cols) else data_w[i])
                for i in range(n)]

    def total(ws: list[int]) -> int:
        return sum(ws) + 2 * (len(ws) - 1)

    keep, ws, wrap_last = list(range(n)), widths(None), False
    if width is not None:
        for cap in (_TEXT_CAP, _TEXT_MIN):
            if total(ws) <= width:
                break
            ws = widths(cap)
        keep = _kept_columns(headers, cells, ws, width)
        ws = [ws[i] for i in keep]
        room = width - total(ws)
        for j, i in enumerate(keep):        # room left goes to the text columns cut to the cap, in order
            extra = min(room, max(0, _header_width(headers[i], data_w[i]) - ws[j]))
            ws[j] += extra
            room -= extra
        last = len(keep) - 1
        if wrap and not right[keep[last]]:     # the last text column takes the room that is left, wrapped
            room = width - total(ws[:last]) - (2 if last else 0)
            if room >= _header_width(headers[keep[last]], 1) and data_w[keep[last]] > ws[last]:
                ws[last] = max(min(room, data_w[keep[last]]), ws[last])
                wrap_last = ws[last] < data_w[keep[last]]
            ws[last] = min(ws[last], max(room, 1))
    head = [_header_lines(headers[i], w) for i, w in zip(keep, ws)]
    depth = max(len(h) for h in head)
    lines = []
    for k in range(depth):
        parts = []
        for j, i in enumerate(keep):
            h = head[j]
            text = h[k - (depth - len(h))] if k >= depth - len(h) else ""
            text = cut(text, ws[j])
            parts.append(text.rjust(ws[j]) if right[i] else text.ljust(ws[j]))
        lines.append("  ".join(parts).rstrip())
    lines.append("  ".join("-" * w for w in ws))
    for r in cells:
        row_lines = [[]]
        for j, i in enumerate(keep):
            text = r[i]
            if j == len(keep) - 1 and wrap_last and len(text) > ws[j]:
                wrapped = textwrap.wrap(text, ws[j], break_long_words=True, break_on_hyphens=False) or [""]
                row_lines[0].append(wrapped[0].ljust(ws[j]))
                for extra in wrapped[1:]:
                    row_lines.append(["".ljust(w) for w in ws[:j]] + [extra])
                continue
            text = cut(text, ws[j])
            row_lines[0].append(text.rjust(ws[j]) if right[i] else text.ljust(ws[j]))
        lines += ["  ".join(p).rstrip() for p in row_lines]
    return "\n".join(lines) + "\n", [headers[i] for i in range(n) if i not in keep]


def _vertical(headers, cells, width) -> str:
    name_w = max(len(h) for h in headers)
    out = []
    for k, r in enumerate(cells, 1):
        title = f"-[ row {k} ]"
        out.append(title + "-" * max(0, min(width or 40, 40) - len(title)))
        for h, v in zip(headers, r):
            room = None if width is None else max(width - name_w - 3, 8)
            out.append(f"{h.ljust(name_w)} | {v if room is None else cut(v, room)}".rstrip())
    return "\n".join(out) + ("\n" if out else "")


def render_html(columns: Sequence[str], rows: Sequence[Sequence[Any]], *,
                max_rows: int | None = DEFAULT_MAX_ROWS, units: str | None = None) -> str:
    """An HTML table of the human cells (for notebooks), with the row-count note."""
    total = len(rows)
    shown = list(rows if max_rows is None else rows[:max_rows])
    headers, cells, right = human_cells(columns, shown, units)
    style = ' style="text-align: right"'
    head = "".join(f"<th{style if r else ''}>{html.escape(h)}</th>" for h, r in zip(headers, right))
    body = "".join("<tr>" + "".join(f"<td{style if r else ''}>{html.escape(c)}</td>" for c, r in zip(row, right))
                   + "</tr>" for row in cells)
    note = (f"<p>{_plural(total, 'row')} ({len(shown):,} shown); <code>.df()</code> has them all, "
            "in the database's units</p>" if len(shown) < total else f"<p>{_plural(total, 'row')}</p>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"


