"""Running a planned query: :class:`Rows` (fetched as they are read, for results of millions of
rows) and :func:`run_query` (every row, as a :class:`~tracedb.query.result.Result`)."""
from __future__ import annotations

import re
from typing import Iterator

from ..engine import duckdb
from ..render.machine import csv_line_sql, render
from .plan import empty_filter_hint, plan
from .result import Result


class Rows:
    """A query whose rows are fetched as they are needed: ``tracedb query`` prints csv / json /
    ndjson a batch at a time and the table's first rows plus a count, so a result of millions of
    rows is never held in Python (4.2 GB RSS for comm_op_check at 128 ranks when it was). Valid
    inside :func:`tracedb.api.query_rows` only."""

    BATCH = 10_000
    TEMP = "tracedb_query_result"

    def __init__(self, con, sql: str, params: list, write: bool, filters: tuple = (None, None, None)):
        self._con, self._sql, self._params, self._write = con, sql, params, write
        self._filters = filters             # (run, rank, step) of the query, for empty_hint
        self._cur = None
        self._columns: list[str] = []
        self._head: list[tuple] = []
        self._done = False

    def _start(self) -> None:
        if self._cur is None:
            self._cur = self._con.execute(self._sql, self._params)
            self._done = self._cur.description is None
            self._columns = [] if self._done else [d[0] for d in self._cur.description]

    @property
    def columns(self) -> list[str]:
        self._start()
        return self._columns

    def _fetch(self, n: int) -> list[tuple]:
        self._start()
        if self._done:
            return []
        got = self._cur.fetchmany(n)
        if len(got) < n:
            self._done = True
        return got

    def empty_hint(self) -> str | None:
        """Why an empty result of a --rank / --step filter is empty: the run lacks that rank or
        step (:func:`tracedb.query.plan.empty_filter_hint`); None otherwise."""
        run, rank, step = self._filters
        return None if rank is None and step is None else empty_filter_hint(self._con, run, rank, step)

    def batches(self, size: int | None = None) -> Iterator[list[tuple]]:
        """Every row, ``size`` (default :attr:`BATCH`) at a time."""
        size = size or self.BATCH
        if self._head:
            head, self._head = self._head, []
            yield head
        while not self._done:
            batch = self._fetch(size)
            if batch:
                yield batch

    def first(self, n: int) -> tuple[list[tuple], int]:
        """The first ``n`` rows and the number of rows of the whole result, the query run once.

        A SELECT goes into a temporary table (DuckDB keeps the rows, in their order; none
        reaches Python but the ``n``), which gives the count; SQL that is not a single SELECT
        (DESCRIBE, several statements) or runs with ``write`` (never run twice) is read as a
        stream, the rows after the first ``n`` fetched and dropped to count them."""
        if self._cur is None and not self._write:
            try:
                self._con.execute(f"CREATE TEMP TABLE {self.TEMP} AS SELECT * FROM (\n{self._sql}\n) AS q",
                                  self._params)
            except duckdb.Error:
                pass
            else:
                try:
                    cur = self._con.execute(f"SELECT * FROM temp.{self.TEMP} LIMIT {int(n)}")
                    columns = [d[0] for d in cur.description]
                    if not _renamed(columns):
                        head = cur.fetchall()
                        total = self._con.execute(f"SELECT count(*) FROM temp.{self.TEMP}").fetchone()[0]
                        self._columns, self._cur, self._done = columns, cur, True
                        return head, total
                finally:
                    self._con.execute(f"DROP TABLE IF EXISTS temp.{self.TEMP}")
        if len(self._head) < n:
            self._head += self._fetch(n - len(self._head))
        total = len(self._head)
        while not self._done:
            total += len(self._fetch(self.BATCH))
        return self._head[:n], total

    def write_csv(self, out) -> bool:
        """Write the whole result to ``out`` as csv, the text :func:`tracedb.render.machine.write_stream`
        writes, with every line made by DuckDB (:func:`tracedb.render.machine.csv_line_sql`): Python
        fetches one string a row, not a value a cell for the csv module (3.5 M rows × 14 cells of
        comm_op_check took 26.9 s that way at 128 ranks, bench/RESULTS.md).

        Returns:
            False, with nothing written, when the rows must go through the csv module instead: the
            query is not one SELECT, runs with ``write`` or has started, or a column's type has
            no exact SQL text (timestamps, lists, structs, …: see
            :func:`tracedb.render.machine.csv_cells_sql`); else True.
        """
        if self._cur is not None or self._write:
            return False
        try:
            statements = self._con.extract_statements(self._sql)
            if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
                return False
            described = self._con.execute(f"DESCRIBE {self._sql}", self._params).fetchall()
        except (duckdb.Error, ValueError):      # the query's own error comes from the csv module's path
            return False
        columns = [r[0] for r in described]
        aliases = [f"c{i}" for i in range(len(columns))]
        line = csv_line_sql(aliases, [r[1] for r in described])
        if line is None:
            return False
        try:
            cur = self._con.execute(f"SELECT {line} FROM (\n{self._sql}\n) AS q({', '.join(aliases)})",
                                    self._params)
        except (duckdb.BinderException, duckdb.ParserException, duckdb.CatalogException):
            return False        # the query does not bind in a subquery: the csv module's path says why, or runs
        self._cur, self._columns = cur, columns
        out.write(render(columns, [], "csv"))
        while True:
            batch = cur.fetchmany(self.BATCH)
            if not batch:
                break
            out.write("".join([r[0] for r in batch]))
        self._done = True
        return True

    def result(self) -> Result:
        """Every row as a :class:`Result` (the table with --all, markdown)."""
        columns = self.columns
        return Result(columns, [r for b in self.batches() for r in b])


def _renamed(columns: list[str]) -> bool:
    """Whether a table made from a result may have renamed its columns: DuckDB makes duplicate
    names unique (``a, a`` → ``a, a_1``), which the result itself keeps."""
    names = set(columns)
    return any(m and m.group(1) in names for m in (re.match(r"^(.*)_\d+$", c) for c in columns))


def run_query(con, text: str, *, baseline=None, comparison=None, run=None, rank=None, step=None,
              limit=None, write: bool = False) -> Result:
    """A planned query (:func:`tracedb.query.plan.plan`) on an open connection, every row (DuckDB errors pass through)."""
    sql, params = plan(con, text, baseline=baseline, comparison=comparison, run=run, rank=rank, step=step,
                             limit=limit, write=write)
    cur = con.execute(sql, params)
    if cur.description is None:
        return Result([], [])
    return Result([d[0] for d in cur.description], cur.fetchall())


