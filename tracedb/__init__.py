"""tracedb: a columnar trace database with a SQL view library for AI-training profiler output.

Public API (see :mod:`tracedb.api`): ``connect``, ``ingest``, ``query``, ``views``, ``describe``,
``runs``.
"""
__version__ = "0.1.0"

from .api import connect, describe, ingest, query, runs, views  # noqa: E402,F401
