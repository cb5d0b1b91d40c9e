"""kernel_details.csv (every header variant) → ``kernel_details_parsed`` (this command's
staging table, derive/_session.sql), ``kernel_details_raw`` (its own Step Id and Stream ID) and
``kernel_pmu_raw`` (HF32 Eligible, operand formats, the PMU columns of Level1/Level2 files).

DuckDB's CSV reader parses the file (all columns as text); columns are matched by header name
through :mod:`tracedb.ingestion.fieldmaps.kernel_details`. Start times carry a trailing TAB and
are parsed exactly to integer ns; shapes lose their literal quotes; the staging rows keep the
file order (their rowid order; the kernel table's kernel_id). The derive step (derive/020)
writes the kernel rows, with the trace's task type, stream and group and the window step,
whatever order the files come in: the rows are written once, as kernel rows.

:func:`read_set` parses the files of a batch of ranks that share a header in one INSERT (one
file per DuckDB thread), each row with its own file's id, run and rank, in file order: the rows
:func:`read` writes file by file.
"""
from __future__ import annotations

from contextlib import ExitStack
from typing import Callable

from ...engine import duckdb, execute

from ...errors import InputError
from ...timeconv import clean_text, int_text, us_text_to_ns
from ..fieldmaps.kernel_details import COMMUNICATION_CORES, FIELDS
from ..fieldmaps import kernel_pmu
from ..fieldmaps import missing
from ..sources.csvsource import CsvFile, ident, ns_in_range, open_csv, run
from ..sources.file import SourceFile
from .chrome import SplitReadFailed

FILENAME = "tracedb_filename"    # read_csv's column of the file each row of a set read comes from


def column_exprs(header: list[str], csv: CsvFile | None = None) -> dict[str, str]:
    """SQL expression per kernel_details_parsed column from the header (NULL for absent columns).
    With ``csv``, integer and wait cells holding text (or out of INTEGER range) raise an error
    naming the column and line; start and duration are checked after the insert."""
    present = set(header)
    exprs = {}
    for col, fld in FIELDS.items():
        src, kind = fld.find(present), fld.kind
        if src is None:
            exprs[col] = "NULL"
            continue
        q = ident(src)
        trimmed = csv is not None and kind in ("us", "int", "shape")
        # with csv, the cell trimmed, cleaned and converted once per row (CsvFile.cell, clean, value)
        t = csv.cell(src) if trimmed else q
        checked = csv is not None and (kind == "int" or col == "wait_ns")
        clean = (csv.clean(src) if trimmed else clean_text(q)) if checked or kind == "shape" else None
        if kind == "us":
            ns = us_text_to_ns(t, compact=csv is not None and csv.compact, trimmed=trimmed)
            exprs[col] = ns_in_range(csv.value(ns) if csv is not None else ns)
        elif kind == "int":
            exprs[col] = f"TRY_CAST({int_text(t, trimmed)} AS INTEGER)"
        elif kind == "shape":
            exprs[col] = f"nullif(trim(replace({clean}, '\"', '')), '')"
        else:
            exprs[col] = f"trim(CAST({q} AS VARCHAR), ' ' || chr(9) || chr(13))"
        if checked:
            exprs[col] = csv.number(src, exprs[col], clean)
    return exprs


def pmu_exprs(header: list[str], csv: CsvFile | None = None) -> dict[str, str]:
    """SQL expression per kernel_pmu_raw column (:mod:`..fieldmaps.kernel_pmu`) from the header;
    NULL for absent columns. Lenient: a cell that is not a number is NULL (the PMU tail is
    reference data, never a reason to refuse a file)."""
    present = set(header)
    exprs = {}
    for col, fld in kernel_pmu.FIELDS.items():
        src = fld.find(present)
        if src is None:
            exprs[col] = "NULL"
            continue
        clean = csv.clean(src) if csv is not None else clean_text(ident(src))
        if fld.kind == "us":
            exprs[col] = f"TRY_CAST(TRY_CAST({clean} AS DECIMAL(38, 3)) * 1000 AS BIGINT)"
        elif fld.kind == "int":
            exprs[col] = f"TRY_CAST(TRY_CAST({clean} AS DOUBLE) AS BIGINT)"
        elif fld.kind == "ratio":
            exprs[col] = f"TRY_CAST({clean} AS DOUBLE)"
        elif col == "hf32_eligible":
            exprs[col] = (f"CASE upper({clean}) WHEN '{kernel_pmu.HF32_YES}' THEN true "
                          f"WHEN '{kernel_pmu.HF32_NO}' THEN false END")
        else:
            exprs[col] = clean
    return exprs


def read(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Parse one kernel_details.csv for the derive step; returns its rows.

    Raises:
        InputError: empty file, missing required column, unparsable CSV, or a row whose start
            time or duration is not a number, whose duration is negative or whose name is empty
            (the message gives its line).
    """
    with open_csv(f.path, "kernel_details.csv", lambda header: missing(FIELDS, header)) as csv:
        n = _insert(con, f, csv)
        header = list(csv.header)
    _reject_bad_row(con, f)
    con.execute("""
        INSERT INTO kernel_details_raw BY NAME
        SELECT run_id, rank, file_id,
               rowid - (SELECT min(rowid) FROM kernel_details_parsed WHERE file_id = $file_id) + 1 AS kernel_id,
               step, stream_id
        FROM kernel_details_parsed WHERE file_id = $file_id
    """, {"file_id": f.file_id})
    _insert_pmu(con, f, header)
    return n


def _insert_pmu(con: duckdb.DuckDBPyConnection, f: SourceFile, header: list[str]) -> None:
    """The file's kernel_pmu_raw rows: every row with one of those columns set (a Level0 file,
    whose header has none of them, writes none)."""
    cols = [c for c, x in pmu_exprs(header).items() if x != "NULL"]
    if not cols:
        return
    con.execute(f"""
        INSERT INTO kernel_pmu_raw BY NAME
        SELECT run_id, rank, file_id,
               rowid - (SELECT min(rowid) FROM kernel_details_parsed WHERE file_id = $file_id) + 1 AS kernel_id,
               {', '.join(cols)}, 'kernel_details' AS source
        FROM kernel_details_parsed
        WHERE file_id = $file_id AND ({' OR '.join(f"{c} IS NOT NULL" for c in cols)})
    """, {"file_id": f.file_id})


def _insert(con: duckdb.DuckDBPyConnection, f: SourceFile, csv: CsvFile) -> int:
    """The one streaming INSERT of the file's rows."""
    return run(con, csv, _insert_sql(csv, lambda: csv.sql('$path'), "$run_id", "$rank", "$file_id"),
               {"run_id": f.run_id, "rank": f.rank, "file_id": f.file_id, "path": csv.src}).fetchone()[0]


def _insert_sql(csv: CsvFile, source: Callable[[], str], run_id: str, rank: str, file_id: str) -> str:
    """The INSERT of the rows of ``source()`` (the CSV's rows, :meth:`CsvFile.sql`, called once
    the expressions have asked for their cells), with the keys ``run_id``, ``rank``, ``file_id``
    (SQL)."""
    e = column_exprs(csv.header, csv)
    pmu = pmu_exprs(csv.header, csv)
    cores = " OR ".join(f"upper(coalesce({e['accelerator_core']}, '')) = '{c}'" for c in COMMUNICATION_CORES)
    # One parallel INSERT into the staging table, whose rowids follow the file order; nothing in
    # it may be a join, which would give up that order (see timeconv.clean_text), nor a window,
    # which would run on one thread.
    return f"""
            INSERT INTO kernel_details_parsed BY NAME
            SELECT {run_id} AS run_id, {rank} AS rank, {file_id} AS file_id,
                   {e['step']} AS step, {e['name']} AS name, {e['op_type']} AS op_type,
                   {e['accelerator_core']} AS accelerator_core, {e['device_id']} AS device_id,
                   nullif({e['stream_id']}, 'N/A') AS stream_id, {e['ts_ns']} AS ts_ns, {e['dur_ns']} AS dur_ns,
                   {e['wait_ns']} AS wait_ns,
                   ({cores} OR lower({e['name']}) LIKE 'hcom\\_%' ESCAPE '\\') AS is_communication,
                   {e['input_shapes']} AS input_shapes, {e['input_dtypes']} AS input_dtypes,
                   {e['output_shapes']} AS output_shapes, {e['block_dim']} AS block_dim,
                   {', '.join(f"{x} AS {c}" for c, x in pmu.items())}
            FROM {source()}
    """


def _reject_bad_row(con: duckdb.DuckDBPyConnection, f: SourceFile) -> None:
    bad = con.execute("""
        SELECT rowid - (SELECT min(rowid) FROM kernel_details_parsed WHERE file_id = $file_id) + 2,
               ts_ns IS NULL, dur_ns IS NULL, dur_ns < 0
        FROM kernel_details_parsed
        WHERE file_id = $file_id AND (ts_ns IS NULL OR dur_ns IS NULL OR dur_ns < 0 OR name IS NULL)
        ORDER BY rowid LIMIT 1
    """, {"file_id": f.file_id}).fetchone()
    if not bad:
        return
    line, no_ts, no_dur, negative = bad
    if no_ts or no_dur:
        col = FIELDS["ts_ns" if no_ts else "dur_ns"].name
        raise InputError(f"column {col!r} is empty, not a number or out of range.", file=str(f.path),
                         place=f"line {line}",
                         hint="the file may be truncated or edited.")
    if negative:
        raise InputError(f"column {FIELDS['dur_ns'].name!r} is negative.", file=str(f.path), place=f"line {line}",
                         hint="a kernel cannot take negative time; the file was edited or corrupted.")
    raise InputError(f"column {FIELDS['name'].name!r} is empty.", file=str(f.path), place=f"line {line}",
                     hint="the file may be truncated or edited.")


def read_set(con: duckdb.DuckDBPyConnection, files: list[SourceFile]) -> dict[int, int]:
    """Parse the kernel_details.csv files of a batch of ranks: those that share a header in one
    INSERT each (a header of its own: :func:`read`); returns {file_id: rows}. The checks of
    :func:`open_csv` run file by file first; a bad row raises the error :func:`read` gives.

    Raises:
        InputError: a file that :func:`read` refuses before reading it, or a bad row.
        SplitReadFailed: DuckDB failed reading the files (the ingest reads them again one by one).
    """
    out = {}
    with ExitStack() as stack:
        groups: dict[tuple, list[tuple[SourceFile, CsvFile]]] = {}
        for f in files:
            csv = stack.enter_context(open_csv(f.path, "kernel_details.csv", lambda header: missing(FIELDS, header)))
            groups.setdefault(tuple(csv.header), []).append((f, csv))
        for members in groups.values():
            if len(members) == 1:
                f, csv = members[0]
                out[f.file_id] = _insert(con, f, csv)
                continue
            case = " ".join(f"WHEN '{csv.src.replace(chr(39), chr(39) * 2)}' THEN "
                            f"{{'run_id': {int(f.run_id)}, 'rank': {int(f.rank)}, 'file_id': {int(f.file_id)}}}"
                            for f, csv in members)
            # the expressions of a large member (compact ones give the same values, slower per row)
            csv = min((c for _, c in members), key=lambda c: c.compact)
            paths = f"$paths, filename = '{FILENAME}'"
            sql = _insert_sql(csv, lambda: f"(SELECT *, CASE {FILENAME} {case} END AS tracedb_file "
                                            f"FROM {csv.sql(paths)})",
                              "tracedb_file.run_id", "tracedb_file.rank", "tracedb_file.file_id")
            try:
                execute(con, sql, {"paths": [c.src for _, c in members]})
            except duckdb.Error as e:
                raise SplitReadFailed(str(e)) from e
    ids = ", ".join(str(int(f.file_id)) for f in files)
    out.update(dict(con.execute(f"SELECT file_id, count(*) FROM kernel_details_parsed WHERE file_id IN ({ids}) "
                                "GROUP BY file_id").fetchall()))
    bad = {r[0] for r in con.execute(f"""
        SELECT DISTINCT file_id FROM kernel_details_parsed
        WHERE file_id IN ({ids}) AND (ts_ns IS NULL OR dur_ns IS NULL OR dur_ns < 0 OR name IS NULL)""").fetchall()}
    for f in files:                 # the first file with a bad row, in file order, as read() would
        if f.file_id in bad:
            _reject_bad_row(con, f)
    first = f"""(SELECT file_id, min(rowid) AS first_row FROM kernel_details_parsed WHERE file_id IN ({ids})
                 GROUP BY file_id)"""
    con.execute(f"""
        INSERT INTO kernel_details_raw BY NAME
        SELECT p.run_id, p.rank, p.file_id, p.rowid - f.first_row + 1 AS kernel_id, p.step, p.stream_id
        FROM kernel_details_parsed AS p JOIN {first} AS f USING (file_id)
    """)
    for header, members in groups.items():
        cols = [c for c, x in pmu_exprs(list(header)).items() if x != "NULL"]
        if cols:
            group = ", ".join(str(int(f.file_id)) for f, _ in members)
            con.execute(f"""
                INSERT INTO kernel_pmu_raw BY NAME
                SELECT p.run_id, p.rank, p.file_id, p.rowid - f.first_row + 1 AS kernel_id,
                       {', '.join('p.' + c for c in cols)}, 'kernel_details' AS source
                FROM kernel_details_parsed AS p JOIN {first} AS f USING (file_id)
                WHERE p.file_id IN ({group}) AND ({' OR '.join(f"p.{c} IS NOT NULL" for c in cols)})
            """)
    return {f.file_id: out.get(f.file_id, 0) for f in files}
