"""tracedb command line: parse → call :mod:`tracedb.api` → render. No SQL and no parsing here.

:mod:`.base` holds the app and what the commands share, :mod:`.commands` the commands.
"""
from __future__ import annotations

import atexit
import copy
import gc
import os
import sys

import typer

from . import commands  # noqa: F401 - registers the commands on the app
from .base import app, install_signal_handlers

__all__ = ["app", "main"]


def app_for(args: list[str]) -> typer.Typer:
    """The app to run for the command line ``args``: with only the command they name when it is
    one of the top-level commands, else the whole app.

    Typer turns every registered command into a click command (reading each function's
    signature and annotations) at every start, though one runs: 13-19 ms of each command's
    start-up for the eleven (issue #20's cold start). The global flags take no value, so the
    first argument that is not a flag names the command; ``tracedb --help``, a group
    (``runs``), a typo or no command get the whole app and its messages."""
    name = next((a for a in args if not a.startswith("-")), None)
    infos = [c for c in app.registered_commands if (c.name or c.callback.__name__) == name]
    if not infos:
        return app
    one = copy.copy(app)
    one.registered_commands, one.registered_groups = infos, []
    return one


def main() -> None:
    """Console-script entry point."""
    # at exit, the collector's passes over every object of the process (typer's, DuckDB's
    # and tracedb's modules) took ~10 ms of each command; the process ends and the memory goes
    # back with it, so they are frozen out of those passes (atexit handlers run before them)
    atexit.register(gc.freeze)
    if os.environ.get("NO_COLOR") is None and not sys.stderr.isatty():
        os.environ.setdefault("NO_COLOR", "1")
    install_signal_handlers()
    app_for(sys.argv[1:])()


