"""The one table of imports that wait until first use (PEP 562).

``tracedb query`` starts in about a third of a second; importing sqlglot, pandas, NumPy,
pyarrow or plotly would each add tens to hundreds of milliseconds to every command, though only
some commands need them. A module that uses one writes ``from .. import lazy`` at its top and
``lazy.np.asarray(...)`` where it needs it: the library is imported at that first attribute
access, once per process. Everything else is imported at the top of its module.
"""
from __future__ import annotations

import importlib
from typing import Any

MODULES = {
    # tracedb's own rooms that only some commands need (tracedb query imports none of them)
    "api": "tracedb.api",                        # the public names of the tracedb package
    "ingestion": "tracedb.ingestion",            # tracedb ingest, compare, reclassify
    "compare_command": "tracedb.compare.command",  # tracedb compare
    "compare_show": "tracedb.compare.show",      # tracedb compare: its tables
    "compare_store": "tracedb.compare.store",    # tracedb ingest --role: the op alignment of the pair
    "summary": "tracedb.findings.summary",       # tracedb summary, report
    "report": "tracedb.findings.report",         # tracedb report
    "browser": "tracedb.findings.browser",       # tracedb report --png
    "library": "tracedb.store.library",          # installing the view library (new databases); completion
    "template": "tracedb.store.template",        # seeding a new database
    "export_parquet": "tracedb.export.parquet",  # tracedb export --parquet
    "export_perfetto": "tracedb.export.perfetto",  # tracedb export --perfetto
    # libraries
    "adbc_sqlite": "adbc_driver_sqlite.dbapi",   # SQLite inputs (torch_npu DB, Nsight exports)
    "duckdb_package": "duckdb",                  # the relation API and Arrow scans (tracedb.engine.use_package)
    "go": "plotly.graph_objects",                # tracedb report
    "np": "numpy",                               # op alignment of tracedb compare
    "pa": "pyarrow",                             # SQLite rows staged as Arrow
    "pc": "pyarrow.compute",                     # the checks of SQLite rows staged as Arrow
    "pd": "pandas",                              # Result.df()
    "pio": "plotly.io",                          # tracedb report
    "plotly_offline": "plotly.offline",          # tracedb report: the embedded plotly.js
    "pyspark_sql": "pyspark.sql",                # tracedb.export.spark
    "sqlglot": "sqlglot",                        # parsing the view library (not needed to install it)
    "exp": "sqlglot.expressions",
    "tabulate": "tabulate",                      # --format markdown
}


def __getattr__(name: str) -> Any:
    try:
        module = importlib.import_module(MODULES[name])
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = module
    return module


def __dir__() -> list[str]:
    return sorted([*globals(), *MODULES])
