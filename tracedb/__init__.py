"""tracedb: a columnar trace database with a SQL view library for AI-training profiler output.

Public API (see :mod:`tracedb.api`): ``open`` (a :class:`~tracedb.api.Database` with one
connection, for a notebook), ``connect``, ``ingest``, ``query``, ``views``, ``describe``,
``runs``; results are :class:`~tracedb.api.Result` (``.df()`` for pandas).
"""
__version__ = "0.1.0"

# imported eagerly: a lazy module __getattr__ cannot serve ``ingest``, because importing api
# imports the subpackage tracedb.ingest, which Python then binds as this module's attribute
from .api import Database, Result, connect, describe, ingest, query, runs, views  # noqa: E402,F401
from .api import open_database as open  # noqa: E402,F401,A004 - tracedb.open(path), as sqlite3.connect

# ``from tracedb import *`` leaves the builtin open() alone
__all__ = ["Database", "Result", "connect", "describe", "ingest", "query", "runs", "views"]
