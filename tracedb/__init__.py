"""tracedb: a columnar trace database with a SQL view library for AI-training profiler output.

Public API (see :mod:`tracedb.api`): ``open`` (a :class:`~tracedb.api.Database` with one
connection, for a notebook), ``connect``, ``ingest``, ``query``, ``views``, ``describe``,
``runs``; results are :class:`~tracedb.query.result.Result` (``.df()`` for pandas). The names
are served from :mod:`tracedb.api` on first use (PEP 562), so ``import tracedb`` stays cheap.
"""
from __future__ import annotations

__version__ = "0.1.0"

from . import lazy  # noqa: E402 - after __version__, which the modules lazy serves import

# tracedb.open is api.open_database: tracedb.open(path), as sqlite3.connect
_API = {"Database": "Database", "Result": "Result", "connect": "connect", "describe": "describe",
        "ingest": "ingest", "open": "open_database", "query": "query", "runs": "runs", "views": "views"}

# ``from tracedb import *`` leaves the builtin open() alone
__all__ = ["Database", "Result", "connect", "describe", "ingest", "query", "runs", "views"]


def __getattr__(name: str):
    if name in _API:
        value = getattr(lazy.api, _API[name])
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])
