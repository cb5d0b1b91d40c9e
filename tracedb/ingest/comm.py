"""Communication: HCCL link tasks of trace_view.json → ``link``; communication.json and
communication_matrix.json → the reference tables ``profiler_comm_op``, ``profiler_comm_bandwidth``
and ``profiler_comm_matrix``.

Link tasks are the ``Plane N`` threads of the HCCL / Communication process (formats.md §6.3).
One INSERT … SELECT over ``event`` finds, per plane, its group row (the ``Group {g}
Communication`` thread of the same process that precedes it in thread_sort_index order, else by
tid) and, per task, the op slice of that group row that contains the task start (ASOF join).
Task names are normalised to underscores (``Notify Wait`` → ``Notify_Wait``); ``size(Byte)``
may be an integer or a hex string.

The reference files are small (one entry per op and step) and are read with :mod:`json`.
"""
from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

import duckdb

from ..errors import InputError

# ``size(Byte)`` / ``size``: a JSON number is bytes; a JSON string is hex (older HCCL data:
# MindSpore's parser applies int(x, 16) to every non-integer value); null / "NULL" → NULL
_SIZE = """CASE
    WHEN json_type({args}, '{path}') IN ('UBIGINT', 'BIGINT') THEN TRY_CAST(json_extract_string({args}, '{path}') AS BIGINT)
    WHEN json_type({args}, '{path}') = 'DOUBLE' THEN TRY_CAST(round(TRY_CAST(json_extract_string({args}, '{path}') AS DOUBLE)) AS BIGINT)
    WHEN json_type({args}, '{path}') = 'VARCHAR'
         AND regexp_full_match(lower(json_extract_string({args}, '{path}')), '(0x)?[0-9a-f]+')
        THEN TRY_CAST(('0x' || regexp_replace(lower(json_extract_string({args}, '{path}')), '^0x', '')) AS BIGINT)
END"""


def insert_trace_links(con: duckdb.DuckDBPyConnection, run_id: int, rank: int, file_id: int) -> int:
    """Insert the HCCL link tasks of one ingested trace_view.json; returns rows inserted.

    A trace without ``Plane N`` threads inserts nothing.
    """
    size = _SIZE.format(args="t.args", path='$."size(Byte)"')
    con.execute(f"""
        INSERT INTO link
        WITH threads AS (
            SELECT pid, tid, any_value(thread_name) AS thread_name,
                   max(TRY_CAST(json_extract_string(args, '$.sort_index') AS BIGINT))
                       FILTER (WHERE ph = 'M' AND name = 'thread_sort_index') AS sort_index
            FROM event
            WHERE file_id = ? AND (thread_name LIKE 'Plane %' OR thread_name LIKE '%Communication')
            GROUP BY pid, tid
        ),
        group_rows AS (
            SELECT pid, tid, sort_index,
                   CASE WHEN thread_name LIKE 'Group % Communication'
                        THEN regexp_extract(thread_name, '^Group (.*?) (Aicpu )?Communication$', 1) END
                       AS group_name
            FROM threads
            WHERE thread_name LIKE '%Communication'
        ),
        planes AS (
            SELECT p.pid, p.tid, TRY_CAST(regexp_extract(p.thread_name, '^Plane (\\d+)', 1) AS INTEGER) AS plane_id,
                   -- the group row that precedes the plane (sort index, else tid); a single group
                   -- row of the process owns every plane (2023-era traces put it after them)
                   coalesce(
                       (SELECT g.tid FROM group_rows AS g WHERE g.pid = p.pid
                          AND coalesce(g.sort_index, TRY_CAST(g.tid AS BIGINT))
                              < coalesce(p.sort_index, TRY_CAST(p.tid AS BIGINT))
                        ORDER BY coalesce(g.sort_index, TRY_CAST(g.tid AS BIGINT)) DESC LIMIT 1),
                       (SELECT min(g.tid) FROM group_rows AS g WHERE g.pid = p.pid
                        HAVING count(*) = 1)) AS group_tid
            FROM threads AS p
            WHERE p.thread_name LIKE 'Plane %'
        ),
        ops AS (
            SELECT e.pid, e.tid, e.name, e.ts_ns, e.ts_ns + e.dur_ns AS end_ns, g.group_name
            FROM event AS e
            JOIN group_rows AS g ON g.pid = e.pid AND g.tid = e.tid
            WHERE e.file_id = ? AND e.ph = 'X'
        ),
        tasks AS (
            SELECT e.*, p.plane_id, p.group_tid
            FROM event AS e
            JOIN planes AS p ON p.pid = e.pid AND p.tid = e.tid
            WHERE e.file_id = ? AND e.ph = 'X'
        )
        SELECT
            ?, ?, ?, NULL,
            o.group_name,
            CASE WHEN t.ts_ns <= o.end_ns THEN o.name END,
            t.plane_id,
            replace(trim(t.name), ' ', '_'),
            TRY_CAST(json_extract_string(t.args, '$."src rank"') AS BIGINT),
            TRY_CAST(json_extract_string(t.args, '$."dst rank"') AS BIGINT),
            json_extract_string(t.args, '$."transport type"'),
            json_extract_string(t.args, '$."link type"'),
            t.ts_ns, t.dur_ns,
            {size},
            TRY_CAST(json_extract_string(t.args, '$."bandwidth(GB/s)"') AS DOUBLE),
            json_extract_string(t.args, '$.notify_id')
        FROM tasks AS t
        ASOF LEFT JOIN ops AS o
            ON o.pid = t.pid AND o.tid = t.group_tid AND t.ts_ns >= o.ts_ns
    """, [file_id, file_id, file_id, run_id, rank, file_id])
    return con.execute("SELECT count(*) FROM link WHERE file_id = ?", [file_id]).fetchone()[0]


def refresh_link_steps(con: duckdb.DuckDBPyConnection, run_id: int, rank: int) -> None:
    """Set ``link.step`` to the step of the task's op in ``kernel`` (the op's kernel row carries
    the step from kernel_details.csv Step Id or the step windows)."""
    con.execute("""
        UPDATE link SET step = k.step
        FROM (SELECT name, min(step) AS step FROM kernel
              WHERE run_id = ? AND rank = ? AND is_communication GROUP BY name) AS k
        WHERE link.run_id = ? AND link.rank = ? AND link.op_name = k.name
          AND link.step IS DISTINCT FROM k.step
    """, [run_id, rank, run_id, rank])


# -- communication.json / communication_matrix.json --------------------------------------------------

_STEP_KEY = re.compile(r"^step(\d*)$", re.I)


def _load(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror}", file=str(path)) from e
    if not text.strip():
        raise InputError("file is empty.", file=str(path), place="byte 0")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"cannot parse: {e.msg}", file=str(path), place=f"line {e.lineno}, column {e.colno}",
                         hint="the file may be truncated; re-export it from the profiler.") from e
    if not isinstance(data, dict):
        raise InputError("expected a JSON object at the top level.", file=str(path), place="byte 0")
    return data


def _blocks(data: dict, path: Path, leaf: str | None):
    """Yield (step, comm_kind, op_key, value) for both layouts.

    ``leaf``: a key that marks an op value in the flat CANN layout ("Communication Time Info"),
    or None for the matrix (flat when the values' values look like links).
    """
    def is_op_value(v) -> bool:
        if not isinstance(v, dict):
            return False
        if leaf is not None:
            return leaf in v
        return any(isinstance(x, dict) and "Transport Type" in x for x in v.values())

    if data and all(is_op_value(v) for v in data.values()):
        for key, v in data.items():
            yield None, None, key, v
        return
    for step_key, kinds in data.items():
        m = _STEP_KEY.match(step_key)
        if not m or not isinstance(kinds, dict):
            raise InputError(f"unexpected top-level key {step_key!r} (expected stepN or op@group).", file=str(path),
                             place=f"key {step_key!r}")
        step = int(m.group(1)) if m.group(1) else None
        for kind, ops in kinds.items():
            if not isinstance(ops, dict):
                raise InputError(f"{step_key}.{kind} is not an object.", file=str(path), place=f"key {step_key}.{kind}")
            for key, v in ops.items():
                if not isinstance(v, dict):
                    raise InputError(f"{step_key}.{kind}.{key} is not an object.", file=str(path),
                                     place=f"key {step_key}.{kind}.{key}")
                yield step, kind, key, v


def _split_key(key: str) -> tuple[str, str | None]:
    if "@" in key:
        op, group = key.rsplit("@", 1)
        return op, group
    return key, None


def _scaled(v, factor: int, path: Path, where: str) -> int | None:
    if v is None:
        return None
    try:
        return int((Decimal(str(v)) * factor).to_integral_value(rounding=ROUND_HALF_UP))
    except (InvalidOperation, ValueError) as e:
        raise InputError(f"not a number: {v!r}.", file=str(path), place=where) from e


def _num(v, path: Path, where: str) -> float | None:
    if v is None:
        return None
    try:
        return float(v)
    except (TypeError, ValueError) as e:
        raise InputError(f"not a number: {v!r}.", file=str(path), place=where) from e


def _insert(con, table: str, rows: list[tuple]) -> None:
    if rows:
        marks = ", ".join("?" * len(rows[0]))
        con.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)


def ingest_communication(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int, file_id: int) -> int:
    """communication.json → profiler_comm_op + profiler_comm_bandwidth; returns op rows.

    Raises:
        InputError: not JSON, an unexpected layout, or a non-numeric value (file and key named).
    """
    data = _load(path)
    ops, bws = [], []
    for step, kind, key, v in _blocks(data, path, "Communication Time Info"):
        op, group = _split_key(key)
        where = f"key {key!r}"
        t = v.get("Communication Time Info")
        if not isinstance(t, dict):
            raise InputError("op has no \"Communication Time Info\".", file=str(path), place=where)
        ms = lambda k: _scaled(t.get(k), 10**6, path, f"{where}, {k}")   # noqa: E731
        ops.append((run_id, rank, file_id, step, kind, key, op, group,
                    _scaled(t.get("Start Timestamp(us)"), 1000, path, where),
                    ms("Elapse Time(ms)"), ms("Transit Time(ms)"), ms("Wait Time(ms)"),
                    ms("Synchronization Time(ms)"), ms("Idle Time(ms)"),
                    _num(t.get("Wait Time Ratio"), path, where), _num(t.get("Synchronization Time Ratio"), path, where)))
        for transport, b in (v.get("Communication Bandwidth Info") or {}).items():
            if not isinstance(b, dict):
                continue
            w = f"{where}, {transport}"
            bws.append((run_id, rank, file_id, step, kind, key, op, group, transport,
                        _scaled(b.get("Transit Size(MB)"), 10**6, path, w),
                        _scaled(b.get("Transit Time(ms)"), 10**6, path, w),
                        _num(b.get("Bandwidth(GB/s)"), path, w), _num(b.get("Large Packet Ratio"), path, w)))
    _insert(con, "profiler_comm_op", ops)
    _insert(con, "profiler_comm_bandwidth", bws)
    return len(ops)


def ingest_communication_matrix(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int,
                                file_id: int) -> int:
    """communication_matrix.json → profiler_comm_matrix; returns rows.

    Raises:
        InputError: not JSON, an unexpected layout, a bad link key or a non-numeric value.
    """
    data = _load(path)
    rows = []
    for step, kind, key, links in _blocks(data, path, None):
        op, group = _split_key(key)
        for link_key, li in links.items():
            where = f"key {key!r}, link {link_key!r}"
            m = re.fullmatch(r"\s*(-?\d+)\s*-\s*(-?\d+)\s*", link_key)
            if not m or not isinstance(li, dict):
                raise InputError("link key is not \"src-dst\".", file=str(path), place=where)
            rows.append((run_id, rank, file_id, step, kind, key, op, group, int(m.group(1)), int(m.group(2)),
                         li.get("Transport Type"),
                         _scaled(li.get("Transit Size(MB)"), 10**6, path, where),
                         _scaled(li.get("Transit Time(ms)"), 10**6, path, where),
                         _num(li.get("Bandwidth(GB/s)"), path, where), li.get("Op Name")))
    _insert(con, "profiler_comm_matrix", rows)
    return len(rows)
