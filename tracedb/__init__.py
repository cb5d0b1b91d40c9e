"""tracedb: a columnar trace database with a SQL view library for AI-training profiler output.

Public API (see :mod:`tracedb.api`): ``connect``, ``ingest``, ``query``, ``views``, ``describe``,
``runs``. They are imported on first use, so that ``import tracedb.cli`` (every command's
start) does not pay for the ingest machinery.
"""
__version__ = "0.1.0"

_API = ("connect", "describe", "ingest", "query", "runs", "views")
__all__ = list(_API)


def __getattr__(name: str):
    if name in _API:
        from . import api
        return getattr(api, name)
    raise AttributeError(f"module 'tracedb' has no attribute {name!r}")
