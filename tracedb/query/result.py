"""A query result held in memory: :class:`Result`."""
from __future__ import annotations

from dataclasses import dataclass

from .. import lazy
from ..render.table import render_html, render_table


@dataclass
class Result:
    """A query result: column names and row tuples, exactly as the database holds them (integer
    ns, bytes). Printed, or shown in a notebook, it is the human table of ``tracedb query``.

    >>> r = Result(["rank", "dur_ns"], [(0, 1_500_000), (1, None)])
    >>> r.df().dtypes["dur_ns"].name, int(r.df()["dur_ns"][0])
    ('float64', 1500000)
    >>> print(r)
    rank  dur_ms
    ----  ------
       0   1.500
       1       —
    """

    columns: list[str]
    rows: list[tuple]

    def df(self):
        """The rows as a pandas DataFrame with the raw values (ns, bytes)."""
        return lazy.pd.DataFrame(self.rows, columns=self.columns)

    to_pandas = df

    def __str__(self) -> str:
        return render_table(self.columns, self.rows, max_rows=None).rstrip("\n")

    def _repr_html_(self) -> str:
        return render_html(self.columns, self.rows)
