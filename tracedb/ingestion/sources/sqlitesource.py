"""SQLite inputs (torch_npu's profiler DB and analysis.db, Nsight Systems exports), read as
untrusted files.

* **Read-only and immutable**: the file is opened with the URI ``mode=ro&immutable=1``, so
  SQLite writes nothing beside it (a WAL-mode file gets no ``-shm`` / ``-wal``) and takes no lock.
* **Untrusted schema**: ``PRAGMA trusted_schema=OFF``; only objects of type ``table`` are read.
  A view (an endless recursive one runs forever), a virtual table or an index where a reader
  expects a table is refused naming the object; generated columns are never read.
* **Every value checked where it is read**: the SELECT that reads a table checks each value
  against its column's kind (:class:`.sqlitecheck.Col`: an integer, a time within ±2^62 ns, a
  number, text of at most :data:`MAX_TEXT_BYTES` bytes, ...) and hands over a marker instead of
  a bad value, so that SQLite never hands over a 200 MB string or a REAL where an integer ns is
  expected; a marked row is refused with the table, the column, the rowid and what was
  expected. Text crosses into Arrow
  as ``''`` (NULL) or ``'s'`` + the value: the driver types a column from its first batch,
  and a first batch of NULLs would type it integer.
* **A signal can stop it**: every SQLite call runs on a worker thread
  (:class:`.sqliteworker.Worker`) while the main thread waits in short slices, so Ctrl-C /
  SIGTERM (a KeyboardInterrupt in the main thread) ends the command at once. The worker, which
  cannot be cancelled inside the driver (ADBC's SQLite driver has no cancel), is left to finish
  its call on its own (a daemon thread; the connection is closed by it).

Rows are read through the ADBC SQLite driver as Arrow record batches (built in C) and appended
to a DuckDB temporary table a batch at a time (:meth:`SqliteInput.stage`); DuckDB does the
joins and conversions.
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from ... import lazy
from ...engine import register_arrow
from ...errors import InputError
from .csvsource import NS_LIMIT
from .errors import printable
from .sqlitecheck import (EXPECTED, FAST_KINDS, MAX_NUMBER, MAX_TEXT_BYTES, TEXT_KINDS, Col, describe, duck_value,
                          lit, ok_sql, quote, value_sql)
from .sqliteworker import Worker

SQLITE_MAGIC = b"SQLite format 3\x00"
BATCH_ROWS = 65536           # rows per Arrow batch (the driver's default, 1024, measured slower)
BATCH_BYTES = 256 << 20      # text bytes a batch may hold when joined strings repeat (see rows_for)
# rows a staging INSERT takes at least (DuckDB's row group: one INSERT of a 65,536-row batch
# cost about 4x the CPU of one of two batches, measured on the profiler DB's PYTORCH_API), unless
# the batches held reach STAGE_BYTES
STAGE_ROWS = 122880
STAGE_BYTES = 64 << 20
_ROWID = "tracedb_rowid"
_STAGE_VIEW = "_tracedb_sqlite_batch"


class SqliteInput:
    """One SQLite input file, open for checked reads (use as a context manager).

    Raises (on opening):
        InputError: not a regular file, not SQLite, or a schema SQLite cannot read.
    """

    def __init__(self, path: Path, what: str):
        """``what``: the kind of file in words, for messages ("a torch_npu profiler DB")."""
        self.path = Path(path)
        self.what = what
        self._conn = None
        self._worker: Worker | None = None
        self.objects: dict[str, tuple[str, str]] = {}    # lower-case name → (type, name as written)
        self._without_rowid: set[str] = set()
        self._columns: dict[str, dict[str, str]] = {}

    # -- opening ---------------------------------------------------------------------------
    def __enter__(self):
        try:
            self.open()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _fail(self, message: str, place: str | None = None, hint: str | None = None) -> InputError:
        return InputError(message, file=str(self.path), place=place,
                          hint=hint or "the file may be damaged; re-export it from the profiler.")

    def open(self) -> None:
        try:
            st = os.stat(self.path)
        except OSError as e:
            raise InputError(f"cannot read file: {e.strerror}", file=str(self.path)) from e
        if not stat.S_ISREG(st.st_mode):
            raise self._fail("not a regular file (a FIFO, a device or a socket).",
                             hint=f"copy {self.what} into a regular file and ingest that.")
        try:
            with open(self.path, "rb") as f:
                head = f.read(16)
        except OSError as e:
            raise InputError(f"cannot read file: {e.strerror}", file=str(self.path)) from e
        if head != SQLITE_MAGIC:
            raise self._fail(f"not a SQLite database (no 'SQLite format 3' header; {self.what} is SQLite).",
                             place="byte 0",
                             hint="re-export it from the profiler.")
        try:
            adbc = lazy.adbc_sqlite      # imported on first use: only SQLite inputs need the driver
        except ImportError as e:   # pragma: no cover - a dependency of tracedb
            raise InputError("reading SQLite inputs needs the adbc-driver-sqlite package.", file=str(self.path),
                             hint="pip install adbc-driver-sqlite adbc-driver-manager") from e
        uri = self.path.resolve().as_uri() + "?mode=ro&immutable=1"
        self._worker = Worker()

        def connect():
            conn = adbc.connect(uri)
            cur = conn.cursor()
            try:
                for pragma in ("trusted_schema = OFF", "query_only = ON", "cell_size_check = ON", "mmap_size = 0"):
                    cur.execute(f"PRAGMA {pragma}")
                    if cur.description:
                        cur.fetchall()
                cur.execute("SELECT type, name, coalesce(sql, '') FROM sqlite_master")
                objects = cur.fetchall()
            finally:
                cur.close()
            return conn, objects

        try:
            self._conn, objects = self._worker.call(connect)
        except (InputError, KeyboardInterrupt):
            raise
        except Exception as e:   # noqa: BLE001 - the driver's errors (a damaged file)
            raise self._fail(f"not a readable SQLite database ({_first_line(e)}).") from e
        for typ, name, sql in objects:
            if not isinstance(name, str):
                continue
            if typ == "table" and re.match(r"\s*CREATE\s+VIRTUAL\s+TABLE", sql, re.I):
                typ = "virtual table"
            if typ == "table" and re.search(r"\)\s*WITHOUT\s+ROWID\s*[,;]?\s*$", sql, re.I):
                self._without_rowid.add(name.lower())
            self.objects.setdefault(name.lower(), (typ, name))

    def close(self) -> None:
        """Close the connection, on the worker after any call still running there."""
        if self._worker is None:
            return
        conn, self._conn = self._conn, None
        self._worker.stop((lambda: conn.close()) if conn is not None else None)
        self._worker = None

    # -- the schema --------------------------------------------------------------------------
    def kind_of(self, name: str) -> str | None:
        """The type of the object ``name`` (table, view, virtual table, index, trigger), None if absent."""
        found = self.objects.get(name.lower())
        return found[0] if found else None

    def has_table(self, name: str) -> bool:
        """Whether the file has a table ``name``.

        Raises:
            InputError: it has an object of that name that is not a table (a view, ...).
        """
        kind = self.kind_of(name)
        if kind is None:
            return False
        if kind != "table":
            raise self._fail(f"{name} is a {kind}, not a table; tracedb reads only tables from an SQLite input.",
                             place=f"{kind} {self.objects[name.lower()][1]}",
                             hint=f"{self.what} written by the profiler holds a table {name}; re-export it.")
        return True

    def columns(self, table: str) -> dict[str, str]:
        """{column: declared type (upper case)} of the table (generated columns left out: they
        are computed by SQLite when read, and a profiler never writes them). {} when absent.

        Raises:
            InputError: ``table`` is a view or another object that is not a table.
        """
        if not self.has_table(table):
            return {}
        key = table.lower()
        if key not in self._columns:
            got = self.query(f"SELECT name, upper(coalesce(type, '')), hidden FROM pragma_table_xinfo({lit(table)})")
            self._columns[key] = {n: t for n, t, hidden in zip(*(got.column(i).to_pylist() for i in range(3)))
                                  if isinstance(n, str) and hidden == 0}
        return self._columns[key]

    # -- reads -------------------------------------------------------------------------------
    def query(self, sql: str):
        """The result of a small query (the schema, one aggregate) as an Arrow table."""
        def run():
            cur = self._conn.cursor()
            try:
                cur.execute(sql)
                return cur.fetch_arrow_table()
            finally:
                cur.close()
        try:
            return self._worker.call(run)
        except KeyboardInterrupt:
            raise
        except Exception as e:   # noqa: BLE001
            raise self._fail(f"cannot read the SQLite file ({_first_line(e)}).") from e

    def _select(self, table: str, alias: str, cols: list[Col], joins: str, where: str) -> str:
        rowid = f"{alias}.rowid" if table.lower() not in self._without_rowid else "NULL"
        parts = [f"{rowid} AS {_ROWID}"]
        for c in cols:
            if c.kind == "sql":
                parts.append(f"{c.sql} AS {quote(c.name)}")
            else:
                v = f"{alias}.{quote(c.column)}"
                parts.append(f"{value_sql(v, c.kind, c.limit, c.required)} AS {quote(c.name)}")
        return (f"SELECT {', '.join(parts)} FROM {quote(table)} AS {alias} {joins}"
                + (f" WHERE {where}" if where else ""))

    def batches(self, table: str, cols: list[Col], *, alias: str = "a", joins: str = "", where: str = "",
                batch_rows: int = BATCH_ROWS):
        """Yield the checked rows of ``table`` as Arrow record batches (columns: ``cols`` and the
        rowid); a bad value is refused (InputError) before its batch is yielded.

        Raises:
            InputError: a value not of its column's kind, or text that is not UTF-8.
        """
        self.has_table(table)
        sql = self._select(table, alias, cols, joins, where)

        def start():
            cur = self._conn.cursor()
            cur.adbc_statement.set_options(**{"adbc.sqlite.query.batch_rows": str(max(1, int(batch_rows)))})
            cur.execute(sql)
            return cur, cur.fetch_record_batch()

        def step(reader):
            try:
                return reader.read_next_batch()
            except StopIteration:
                return None

        try:
            cur, reader = self._worker.call(start)
        except KeyboardInterrupt:
            raise
        except Exception as e:   # noqa: BLE001
            raise self._fail(f"cannot read table {table} ({_first_line(e)}).", place=f"table {table}") from e
        seen = 0
        try:
            while True:
                try:
                    batch = self._worker.call(lambda: step(reader))
                except KeyboardInterrupt:
                    raise
                except Exception as e:   # noqa: BLE001 - the driver: a type it cannot carry, a damaged page
                    self._find_bad(table, alias, where, [c for c in cols if c.kind in FAST_KINDS])
                    raise self._fail(f"cannot read table {table} ({_first_line(e)}).",
                                     place=f"table {table}, after row {seen:,}") from e
                if batch is None:
                    return
                self._check_batch(table, alias, cols, joins, where, batch, seen)
                seen += batch.num_rows
                yield batch
        finally:
            if self._worker is not None and not self._worker.busy:
                try:
                    self._worker.call(cur.close)
                except Exception:   # noqa: BLE001
                    pass

    def _find_bad(self, table: str, alias: str, where: str, cols: list[Col]) -> None:
        """Refuse the first row of ``table`` (within ``where``) whose value of one of ``cols``
        is not of its kind; return when there is none (slow path: one scan per column)."""
        rowid = f"{alias}.rowid" if table.lower() not in self._without_rowid else "NULL"
        for c in cols:
            v = f"{alias}.{quote(c.column)}"
            hit = self.query(f"SELECT {rowid} FROM {quote(table)} AS {alias} WHERE "
                             + (f"({where}) AND " if where else "") + f"NOT {ok_sql(v, c.kind, c.limit, c.required)} LIMIT 1")
            if hit.num_rows:
                self._refuse(table, alias, c, hit.column(0)[0].as_py(), 0)

    def _check_batch(self, table: str, alias: str, cols: list[Col], joins: str, where: str, batch, seen: int) -> None:
        pa, pc = lazy.pa, lazy.pc
        for c in cols:
            if c.kind not in FAST_KINDS:
                continue
            arr = batch.column(c.name)
            typ = arr.type
            bad = not (pa.types.is_integer(typ) or pa.types.is_null(typ)) or (c.required and arr.null_count > 0)
            if not bad and c.kind in ("ns", "ns_text") and pa.types.is_integer(typ) and arr.null_count < len(arr):
                lo, hi = pc.min_max(arr).values()
                bad = lo.as_py() <= -NS_LIMIT or hi.as_py() >= NS_LIMIT
            if bad:
                self._find_bad(table, alias, where, [c])
                raise self._fail(f"{table}.{c.column} holds a value that is not {EXPECTED[c.kind]}.",
                                 place=f"table {table}, column {c.column}")
        # a bad text or number crossed as NULL (a good NULL as ''): the first row holding one,
        # in it the first such column
        first = None
        for c in cols:
            if c.kind in TEXT_KINDS and batch.column(c.name).null_count:
                i = pc.index(pc.is_null(batch.column(c.name)), True).as_py()
                if first is None or i < first[0]:
                    first = (i, c)
        if first is not None:
            i, col = first
            self._refuse(table, alias, col, batch.column(_ROWID)[i].as_py(), seen + i + 1)
        try:
            batch.validate(full=True)
        except Exception:   # noqa: BLE001 - pyarrow.ArrowInvalid: text that is not UTF-8
            for c in cols:
                arr = batch.column(c.name)
                try:
                    arr.validate(full=True)
                    continue
                except Exception:   # noqa: BLE001
                    pass
                values = arr.view(pa.binary()).to_pylist()
                for i, v in enumerate(values):
                    try:
                        if v is not None:
                            v.decode("utf-8")
                    except UnicodeDecodeError as e:
                        rowid = batch.column(_ROWID)[i].as_py()
                        where_ = f"table {table}, column {c.column or c.name}, " + (
                            f"rowid {rowid}" if rowid is not None else f"row {seen + i + 1:,}")
                        raise self._fail(f"{table}.{c.column or c.name} holds text that is not UTF-8 "
                                         f"(byte {max(0, e.start - (1 if c.kind in TEXT_KINDS else 0))} of the value).",
                                         place=where_) from None
            raise self._fail(f"table {table} holds text that is not UTF-8.", place=f"table {table}")

    def _refuse(self, table: str, alias: str, col: Col, rowid, ordinal: int) -> None:
        """Raise the InputError for the bad value of ``col`` in the row ``rowid`` (else the
        ``ordinal``-th row read): its type and size, or its text when short."""
        v = quote(col.column)
        desc = None
        if rowid is not None:
            try:
                got = self.query(f"SELECT typeof({v}), octet_length({v}), "
                                 f"CASE WHEN octet_length({v}) <= 64 AND typeof({v}) <> 'blob' THEN CAST({v} AS TEXT) END "
                                 f"FROM {quote(table)} WHERE rowid = {int(rowid)}")
                if got.num_rows:
                    typ, size, text = (got.column(i)[0].as_py() for i in range(3))
                    desc = describe(typ, size, text)
            except InputError:
                desc = None
        where = f"table {table}, column {col.column}, " + (f"rowid {rowid}" if rowid is not None else f"row {ordinal:,}")
        expected = EXPECTED[col.kind].format(limit=col.limit or MAX_NUMBER)
        raise self._fail(f"{table}.{col.column} holds {desc or 'a value'}, not {expected}.", place=where)

    def stage(self, con, target: str, table: str, cols: list[Col], types: dict[str, str], *, alias: str = "a",
              joins: str = "", where: str = "", batch_rows: int = BATCH_ROWS, append: bool = False) -> int:
        """Copy the checked rows of ``table`` into the DuckDB temporary table ``target`` (created
        with ``types``: output column → DuckDB type, unless ``append``), one INSERT per
        :data:`STAGE_ROWS` rows or :data:`STAGE_BYTES` bytes of batches; returns the rows copied. An absent table gives an empty ``target``.

        Raises:
            InputError: a bad value (see :meth:`batches`); ``table`` is not a table.
        """
        pa = lazy.pa
        if not append:
            defs = ", ".join(f"{quote(c.name)} {types[c.name]}" for c in cols)
            con.execute(f"CREATE OR REPLACE TEMP TABLE {quote(target)} ({defs})")
        if not self.has_table(table):
            return 0
        insert = f"INSERT INTO {quote(target)} SELECT " + ", ".join(
            duck_value(c.name, c.kind, types[c.name], c.none) for c in cols) + f" FROM {_STAGE_VIEW}"
        n, held = 0, []
        for batch in self.batches(table, cols, alias=alias, joins=joins, where=where, batch_rows=batch_rows):
            if batch.num_rows:
                held.append(batch)
                n += batch.num_rows
            if sum(b.num_rows for b in held) >= STAGE_ROWS or sum(b.nbytes for b in held) >= STAGE_BYTES:
                _insert(con, insert, pa.Table.from_batches(held))
                held = []
        if held:
            _insert(con, insert, pa.Table.from_batches(held))
        return n

    def rows(self, table: str, cols: list[Col], *, where: str = "") -> list[tuple]:
        """The checked rows of a small table as Python tuples (text kinds as str or None)."""
        out = []
        for batch in self.batches(table, cols, where=where):
            data = [batch.column(c.name).to_pylist() for c in cols]
            for i, c in enumerate(cols):
                if c.kind in TEXT_KINDS:
                    data[i] = [v[1:] if v else None for v in data[i]]
            out.extend(zip(*data))
        return out

    def text_table(self, table: str, id_col: str, text_col: str) -> int:
        """Check a string table (``id`` a unique integer: a repeated one would repeat every row
        that joins it; ``text`` text within the limit) in one scan; returns its longest text in
        bytes (what a row that joins it may repeat)."""
        if not self.has_table(table):
            return 0
        cols = self.columns(table)
        checks = [(c, k) for c, k in ((id_col, "int"), (text_col, "text")) if c in cols]
        if not checks:
            return 0
        conds = " OR ".join(f"NOT {ok_sql(quote(c), k)}" for c, k in checks)
        # the longest within the limit (a longer one is refused), in a CASE: SQLite's max() of
        # octet_length(column) reads the value itself (measured: 200 MB read for a 200 MB text)
        t = quote(text_col)
        longest = f"max(CASE WHEN octet_length({t}) <= {MAX_TEXT_BYTES} THEN octet_length({t}) END)" \
            if text_col in cols else "0"
        distinct = f"count(*) - count(DISTINCT {quote(id_col)})" if id_col in cols else "0"
        got = self.query(f"SELECT {longest}, count(*) FILTER (WHERE {conds}), {distinct} FROM {quote(table)}")
        longest_n, n_bad, n_repeated = (got.column(i)[0].as_py() for i in range(3))
        if n_bad:
            rowid = "rowid" if table.lower() not in self._without_rowid else "NULL"
            for c, k in checks:
                hit = self.query(f"SELECT {rowid} FROM {quote(table)} WHERE NOT {ok_sql(quote(c), k)} LIMIT 1")
                if hit.num_rows:
                    self._refuse(table, "a", Col(c, c, k), hit.column(0)[0].as_py(), 0)
        if n_repeated:
            q = quote(id_col)
            hit = self.query(f"SELECT {q} FROM {quote(table)} WHERE {q} IS NOT NULL GROUP BY {q} HAVING count(*) > 1 "
                             f"ORDER BY {q} LIMIT 1")
            raise self._fail(f"{table}.{id_col} holds the id {hit.column(0)[0].as_py()} more than once (an id names "
                             "one string).", place=f"table {table}, column {id_col}")
        return int(longest_n or 0)


def _insert(con, insert: str, data) -> None:
    """Run ``insert`` on the Arrow table ``data`` (registered as the staging view)."""
    register_arrow(con, _STAGE_VIEW, data)
    try:
        con.execute(insert)
    finally:
        try:
            con.unregister(_STAGE_VIEW)
        except Exception:   # noqa: BLE001 - an aborted transaction: the caller rolls back
            pass


def rows_for(longest_text: int, repeats: int) -> int:
    """Rows per batch when each row repeats up to ``repeats`` strings of up to ``longest_text``
    bytes (names joined from a string table): at most :data:`BATCH_BYTES` of text a batch."""
    per_row = 256 + repeats * max(0, longest_text)
    return max(64, min(BATCH_ROWS, BATCH_BYTES // per_row))


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return printable(text.splitlines()[0] if text else type(e).__name__, 160)
