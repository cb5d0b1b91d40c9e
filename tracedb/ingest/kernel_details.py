"""kernel_details.csv (every header variant) → ``kernel``.

DuckDB's CSV reader parses the file (all columns as text); columns are matched by header
name through :mod:`tracedb.ingest.fieldmaps.kernel_details`. Start times carry a trailing TAB
and are parsed exactly to integer ns; shapes lose their literal quotes.
"""
from __future__ import annotations

import csv
from pathlib import Path

import duckdb

from ..errors import InputError
from ..timeconv import clean_text, int_text, us_text_to_ns
from . import kernels as kn
from .events import translate_read_error
from .fieldmaps.kernel_details import COMMUNICATION_CORES, FIELDS, REQUIRED


KD = "_tracedb_kernel_details"


def read_header(path: Path) -> list[str]:
    """The CSV header cells, BOM and blanks stripped.

    Raises:
        InputError: empty file or unreadable.
    """
    try:
        with open(path, newline="", encoding="utf-8-sig", errors="replace") as f:
            row = next(csv.reader(f), None)
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror}", file=str(path)) from e
    if not row or not any(c.strip() for c in row):
        raise InputError("file is empty (no header line).", file=str(path), place="line 1")
    return [c.strip() for c in row]


def _sql_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def column_exprs(header: list[str], path: Path, required=REQUIRED) -> tuple[dict[str, str], bool]:
    """SQL expression per kernel column from the header; second value: whether a step column exists."""
    present = set(header)
    exprs = {}
    for col, (names, kind) in FIELDS.items():
        src = next((n for n in names if n in present), None)
        if src is None:
            exprs[col] = "NULL"
            continue
        q = _sql_ident(src)
        if kind == "us":
            exprs[col] = us_text_to_ns(q)
        elif kind == "int":
            exprs[col] = int_text(q)
        elif kind == "shape":
            exprs[col] = f"nullif(trim(replace({clean_text(q)}, '\"', '')), '')"
        else:
            exprs[col] = f"trim(CAST({q} AS VARCHAR), ' ' || chr(9) || chr(13))"
    missing = [FIELDS[c][0][0] for c in required if exprs[c] == "NULL"]
    if missing:
        raise InputError(f"missing column(s) {', '.join(repr(m) for m in missing)}; header has "
                         f"{len(header)} columns starting {', '.join(header[:4])}.",
                         file=str(path), place="line 1",
                         hint="is this a kernel_details.csv written by torch_npu or MindSpore?")
    return exprs, exprs["step"] != "NULL"


def ingest_kernel_details(con: duckdb.DuckDBPyConnection, path: Path, run_id: int, rank: int,
                          file_id: int) -> int:
    """Insert one kernel_details.csv into ``kernel``, with what the rank's trace_view.json (if
    ingested) adds: each kernel's Ascend Hardware Task Type and stream, each HCCL op's group
    (:func:`tracedb.ingest.kernels.trace_task_ctes`); and, when the file has no step column,
    the step whose host window holds the kernel start.

    Returns:
        rows inserted.

    Raises:
        InputError: empty file, missing required column, unparsable CSV, or a row whose start
            time or duration is not a number, whose duration is negative or whose name is empty
            (the message gives its line).
    """
    header = read_header(path)
    e, has_step = column_exprs(header, path)
    cores = ", ".join(f"'{c}'" for c in COMMUNICATION_CORES)
    src = ("read_csv(?, header = true, all_varchar = true, quote = '\"', escape = '\"', "
           "strict_mode = false, null_padding = true)")
    next_id = con.execute("SELECT coalesce(max(kernel_id), 0) FROM kernel WHERE run_id = ? AND rank = ?",
                          [run_id, rank]).fetchone()[0]
    # Parsed in parallel into a temporary table whose rowid follows the file order (counted from
    # the transaction's first row id, hence min(rowid)): nothing in this statement may be a join,
    # which would lose the order (see timeconv.clean_text). One INSERT then joins the trace on.
    # UPDATEs of the new kernel rows instead sent the whole table through the WAL at COMMIT
    # (456 k rows, 3 runs each: the stage with COMMIT and CHECKPOINT 4.2 -> 3.9 s).
    try:
        con.execute(f"""
            CREATE OR REPLACE TEMP TABLE {KD} AS
            SELECT {e['step']} AS step, {e['name']} AS name, {e['op_type']} AS op_type,
                   {e['accelerator_core']} AS accelerator_core, {e['device_id']} AS device_id,
                   nullif({e['stream_id']}, 'N/A') AS stream_id,
                   {e['ts_ns']} AS ts_ns, {e['dur_ns']} AS dur_ns, {e['wait_ns']} AS wait_ns,
                   (upper(coalesce({e['accelerator_core']}, '')) IN ({cores})
                    OR lower({e['name']}) LIKE 'hcom\\_%' ESCAPE '\\') AS is_communication,
                   {e['input_shapes']} AS input_shapes, {e['input_dtypes']} AS input_dtypes,
                   {e['output_shapes']} AS output_shapes, {e['block_dim']} AS block_dim
            FROM {src}
        """, [str(path)])
    except duckdb.Error as err:
        raise translate_read_error(err, str(path)) from err
    bad = con.execute(f"""
        SELECT rowid - (SELECT min(rowid) FROM {KD}) + 2, ts_ns IS NULL, dur_ns IS NULL, dur_ns < 0 FROM {KD}
        WHERE ts_ns IS NULL OR dur_ns IS NULL OR dur_ns < 0 OR name IS NULL ORDER BY rowid LIMIT 1
    """).fetchone()
    if bad:
        line, no_ts, no_dur, negative = bad
        if no_ts or no_dur:
            col = "Start Time(us)" if no_ts else "Duration(us)"
            raise InputError(f"column {col!r} is empty or not a number.", file=str(path), place=f"line {line}",
                             hint="the file may be truncated or edited.")
        if negative:
            raise InputError("column 'Duration(us)' is negative.", file=str(path), place=f"line {line}",
                             hint="a kernel cannot take negative time; the file was edited or corrupted.")
        raise InputError("column 'Name' is empty.", file=str(path), place=f"line {line}",
                         hint="the file may be truncated or edited.")
    step = "kd.step" if has_step else "w.step"
    window = "" if has_step else "ASOF LEFT JOIN step_start AS w ON kd.ts_ns >= w.host_start_ns"
    con.execute(f"""
        INSERT INTO kernel
        WITH kd AS (SELECT rowid - (SELECT min(rowid) FROM {KD}) AS r, * FROM {KD}),
        {kn.trace_task_ctes()},
        matched AS (
            SELECT kd.r, any_value(t.task_type) AS task_type, any_value(t.tid) AS tid
            FROM kd JOIN task AS t ON {kn.TASK_MATCH.format(k='kd')}
            WHERE NOT kd.is_communication
            GROUP BY kd.r
        ),
        step_start AS ({kn.STEP_STARTS})
        SELECT $run_id, $rank, $file_id, $next_id + kd.r + 1, {step}, kd.name, kd.op_type, kd.accelerator_core, m.task_type,
               kd.device_id, coalesce(kd.stream_id, m.tid), kd.ts_ns, kd.dur_ns, kd.wait_ns,
               kd.is_communication, g.group_name, kd.input_shapes, kd.input_dtypes, kd.output_shapes,
               kd.block_dim, 'kernel_details'
        FROM kd
        LEFT JOIN matched AS m ON m.r = kd.r
        LEFT JOIN hccl_group AS g ON kd.is_communication AND g.name = kd.name
        {window}
    """, {"run_id": run_id, "rank": rank, "file_id": file_id, "next_id": next_id})
    n = con.execute(f"SELECT count(*) FROM {KD}").fetchone()[0]
    con.execute(f"DROP TABLE {KD}")
    return n


