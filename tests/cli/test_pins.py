"""The two places tracedb reaches into a library's unpublished parts for start-up time, pinned
to the releases they were written and measured against (issue 38): DuckDB's engine module
``_duckdb`` (tracedb.engine; importing the duckdb package costs every command 0.1-0.2 s) and
typer's runtime-parameter builder (tracedb.cli.typer_coercion; pydantic costs ~0.1 s of CPU).
A new release outside the range fails here first: measure again, then widen the range."""
from __future__ import annotations

import duckdb
import typer

from tracedb import engine
from tracedb.cli import typer_coercion

TESTED_DUCKDB = ("1.4", "1.5", "2.0")


def test_the_engine_module_is_duckdbs_own():
    assert ".".join(duckdb.__version__.split(".")[:2]) in TESTED_DUCKDB, duckdb.__version__
    assert engine.duckdb.__name__ == "_duckdb"
    # the exception classes tracedb catches are the ones the package raises
    assert engine.duckdb.Error is duckdb.Error and engine.duckdb.CatalogException is duckdb.CatalogException


def test_typer_is_a_release_the_coercion_was_written_against():
    assert ".".join(typer.__version__.split(".")[:2]) in typer_coercion.TESTED_TYPER, typer.__version__
    assert typer_coercion.install()
