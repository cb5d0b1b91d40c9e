"""Many Chrome-trace files of a batch of ranks (trace_view.json arrays, Kineto object traces)
→ ``event`` in one statement.

DuckDB reads the files of one ``read_json`` call in parallel, one file per thread, so the
trace_view.json files of a batch of ranks are parsed by every core at once, where a file read
on its own keeps one core busy (below the size at which it is cut into parallel slices:
:func:`tracedb.ingestion.sources.jsonsource.split_parts`). Each file's rows carry its own
``file_id``, run and rank (joined on the ``filename`` column), and its own process and thread
names: the same rows :func:`tracedb.ingestion.readers.chrome.insert_events` writes, file by
file, with its fast read (typed columns; a file whose ``ts`` needs the raw text, marked
:data:`~tracedb.ingestion.readers.chrome.RAW_TS_NEEDED`, is read again on its own the raw way).

A Kineto object trace takes part through a FIFO carrying its traceEvents array (the byte span
:func:`~tracedb.ingestion.sources.jsonbytes.object_span` finds), with its ``baseTimeNanoseconds``
added to its ts: :func:`tracedb.ingestion.readers.kineto.member`.

A DuckDB error in the one statement aborts the ingest's transaction; the caller then runs the
ingest again file by file (:class:`~tracedb.ingestion.readers.chrome.SplitReadFailed`), where
the error names its file and place as a file read on its own does.
"""
from __future__ import annotations

from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Callable, ContextManager, NamedTuple

from ...engine import duckdb, execute, insert_rows
from ...progress import watch
from ..sources.csvsource import ns_in_range
from ..sources.errors import MAX_OBJECT
from ..sources.file import SourceFile
from ..sources.jsonbytes import first_byte, is_gzip
from ..sources.jsonsource import event_array, scan_metadata
from ..sources.paths import literal_path
from .chrome import (RAW_TS_NEEDED, TRANSFORM, TS_JSON, TS_STR, SplitReadFailed, args_sql, check_metadata,
                     fast_ts_text, insert_events, metadata_names, names_from_rows, with_ns)

FILES = "_tracedb_set_files"
NAMES_P = "_tracedb_set_process_names"
NAMES_T = "_tracedb_set_thread_names"


class Member(NamedTuple):
    """One file of a set read."""
    array: ContextManager[str]        # yields the path DuckDB reads the event array from
    meta: list[dict]                  # its metadata events, found by a byte scan
    base_ns: int = 0                  # added to every ts (Kineto's baseTimeNanoseconds)
    span: tuple[int, int] | None = None   # the array's bytes inside an object trace


@contextmanager
def _array_file(path: Path):
    with event_array(path) as (read_path, feeder):
        assert feeder is None, "an object trace is no array file: eligible() keeps it out"
        with literal_path(Path(read_path)) as literal:
            yield literal


def array_member(f: SourceFile) -> Member:
    """A trace_view.json (an array file) as a :class:`Member`."""
    return Member(_array_file(f.path), scan_metadata(f.path))


def eligible(path: Path) -> bool:
    """A plain (not gzip) file holding a JSON array: the files one statement reads together."""
    try:
        return not is_gzip(path) and first_byte(path) == b"["
    except OSError:
        return False


def _names(con: duckdb.DuckDBPyConnection, metas: dict[int, list[dict]]) -> None:
    """The process and thread names of each file's metadata events (the first of a pid or a
    (pid, tid) wins, as in :func:`~tracedb.ingestion.readers.chrome.insert_events`)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {NAMES_P} (file_id INTEGER, pid VARCHAR, process_name VARCHAR)")
    con.execute(f"CREATE OR REPLACE TEMP TABLE {NAMES_T} "
                "(file_id INTEGER, pid VARCHAR, tid VARCHAR, thread_name VARCHAR)")
    procs, threads = [], []
    for file_id, meta in metas.items():
        p, t = metadata_names(meta)
        procs += [[file_id, k, v] for k, v in p.items()]
        threads += [[file_id, k[0], k[1], v] for k, v in t.items()]
    if procs:
        insert_rows(con, NAMES_P, procs)
    if threads:
        insert_rows(con, NAMES_T, threads)


def _insert_sql() -> str:
    """One INSERT of the events of every file of the list bound to ``?``: chrome's fast read,
    with each row's file, run, rank and base ns from :data:`FILES` and its names from the file's."""
    columns = TRANSFORM.replace('"', "'")
    events = with_ns(f"""(SELECT *, {fast_ts_text()} AS ts_text
              FROM (SELECT *, ts AS {TS_JSON}, CAST(ts AS VARCHAR) AS {TS_STR}
                    FROM read_json(?, format = 'array', columns = {columns},
                                   maximum_object_size = {MAX_OBJECT}, filename = true)))""", 0)
    return f"""
        INSERT INTO event
        SELECT f.run_id, f.rank, f.file_id, r.ph, r.name, r.cat, r.pid, r.tid, p.process_name, t.thread_name,
               CASE WHEN r.{TS_JSON} IS NOT NULL AND r.ts_text IS NULL THEN {RAW_TS_NEEDED}
                    ELSE {ns_in_range('(r.tracedb_ts_ns + f.base_ns)')} END,
               {ns_in_range('r.tracedb_dur_ns')}, r.id, r.bp, {args_sql('r.args', None)}
        FROM {events} AS r
        JOIN {FILES} AS f ON f.path = r.filename
        LEFT JOIN {NAMES_P} AS p ON p.file_id = f.file_id AND p.pid = r.pid
        LEFT JOIN {NAMES_T} AS t ON t.file_id = f.file_id AND t.pid = r.pid AND t.tid = r.tid
    """


def read(con: duckdb.DuckDBPyConnection, files: list[SourceFile], label: str = "trace_view.json",
         member: Callable[[SourceFile], Member] = array_member) -> dict[int, int]:
    """Insert the events of every file of ``files`` (each with its run and rank; ``member``
    turns one into a :class:`Member`: by default a plain array file, see :func:`eligible`);
    returns {file_id: events}.

    Raises:
        InputError: a file is empty, not closed or not a JSON array (checked before the read).
        SplitReadFailed: DuckDB failed reading them (the ingest reads every file again on its own).
    """
    with ExitStack() as stack:
        paths, members = {}, {}
        for f in files:
            members[f.file_id] = m = member(f)
            paths[f.file_id] = stack.enter_context(m.array)
        _names(con, {file_id: m.meta for file_id, m in members.items()})
        con.execute(f"CREATE OR REPLACE TEMP TABLE {FILES} (path VARCHAR, file_id INTEGER, run_id INTEGER, "
                    "rank INTEGER, base_ns BIGINT)")
        insert_rows(con, FILES, [[paths[f.file_id], f.file_id, f.run_id, f.rank, members[f.file_id].base_ns]
                                 for f in files])
        try:
            with watch(con, f"{len(files)} {label} files", files[0].bar):
                execute(con, _insert_sql(), [list(paths.values())])
        except duckdb.Error as e:
            raise SplitReadFailed(str(e)) from e
    ids = ", ".join(str(int(f.file_id)) for f in files)
    counts = {file_id: (n, raw, named) for file_id, n, raw, named in con.execute(f"""
        SELECT file_id, count(*), count(*) FILTER (WHERE ts_ns = {RAW_TS_NEEDED}),
               count(*) FILTER (WHERE ph = 'M' AND name IN ('process_name', 'thread_name'))
        FROM event WHERE file_id IN ({ids}) GROUP BY file_id""").fetchall()}
    out = {}
    for f in files:
        n, raw, named = counts.get(f.file_id, (0, 0, 0))
        m = members[f.file_id]
        if raw:     # a ts the typed read cannot give exactly: this file again, the raw way
            con.execute("DELETE FROM event WHERE file_id = ?", [f.file_id])
            out[f.file_id] = insert_events(con, f, f.rank, span=m.span, meta=m.meta, base_ns=m.base_ns)
            continue
        check_metadata(con, f)      # the checks insert_events makes after its read
        if named != sum(1 for e in m.meta if e.get("name") in ("process_name", "thread_name")):
            names_from_rows(con, f.file_id)
        out[f.file_id] = n
    con.execute(f"DROP TABLE {FILES}")
    con.execute(f"DROP TABLE {NAMES_P}")
    con.execute(f"DROP TABLE {NAMES_T}")
    return out
