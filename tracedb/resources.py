"""Where tracedb's files live: the SQL library (``schema/``, ``queries/`` and ``derive/`` at the
top of a checkout, installed inside the package as ``tracedb/_schema``, ``_queries`` and
``_derive``) and the user's cache folder (templates, the parsed view library)."""
from __future__ import annotations

import os
from pathlib import Path


def sql_dir(name: str) -> Path:
    """Folder of the SQL library ``name`` (``schema``, ``queries`` or ``derive``): the installed
    copy when there is one, else the checkout's folder."""
    here = Path(__file__).resolve().parent
    installed = here / f"_{name}"
    return installed if installed.is_dir() else here.parent / name


def cache_dir() -> Path | None:
    """The cache folder: ``$TRACEDB_CACHE_DIR``, else ``$XDG_CACHE_HOME/tracedb``, else
    ``~/.cache/tracedb``; None when turned off (``TRACEDB_CACHE_DIR=off``)."""
    env = os.environ.get("TRACEDB_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "tracedb"
