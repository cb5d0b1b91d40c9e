"""Cold start: read-only commands import no ingest machinery and never write the database; an
ingest applies the schema files and installs the view library only when they changed."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from tracedb.ingestion import derive as ingest_module
from tracedb.store import library as registry
from tracedb.cli import app

from conftest import RANK0, RANK1, ROOT, ingest_paths, ingested, rows

runner = CliRunner()


def _state(path: Path) -> tuple:
    st = os.stat(path)
    return hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mtime_ns, st.st_size


def test_read_only_commands_leave_the_file_untouched(db_path):
    ingested(db_path, RANK0, run="r")
    before = _state(db_path)
    for args in (["query", "step_breakdown"], ["query", "SELECT count(*) FROM kernel"], ["runs"],
                 ["describe", "step_breakdown"], ["describe", "kernel"], ["views"]):
        res = runner.invoke(app, [*args, "--db", str(db_path)])
        assert res.exit_code == 0, (args, res.output)
        assert _state(db_path) == before, args
        assert not Path(str(db_path) + ".wal").exists(), args


@pytest.mark.process
def test_query_command_imports_no_ingest_or_parser():
    code = ("import sys, tracedb.cli, tracedb.api, tracedb.render.machine; "
            "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('sqlglot', 'pandas', 'pyarrow', 'numpy') or m.startswith('tracedb.ingest'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _spy(monkeypatch):
    calls = {"schema": [], "install": 0}
    apply_schema, install = ingest_module.apply_schema, registry.install

    def spy_schema(con):
        calls["schema"].append(apply_schema(con))
        return calls["schema"][-1]

    def spy_install(con, *a, **kw):
        calls["install"] += 1
        return install(con, *a, **kw)

    monkeypatch.setattr(ingest_module, "apply_schema", spy_schema)
    monkeypatch.setattr(registry, "install", spy_install)
    return calls


def test_ingest_skips_schema_and_library_when_current(db_path, monkeypatch):
    monkeypatch.setenv("TRACEDB_CACHE_DIR", "off")   # built in place (tests/test_template.py: copied)
    calls = _spy(monkeypatch)
    ingest_paths(db_path, RANK0, run="r")
    assert calls == {"schema": [True], "install": 1}
    digest = registry.library_hash()
    assert rows(db_path, "SELECT value FROM tracedb_meta WHERE key = 'library_hash'") == [(digest,)]

    ingest_paths(db_path, RANK1, run="r")            # same library and schema: neither runs
    assert calls == {"schema": [True, False], "install": 1}
    assert rows(db_path, "SELECT count(DISTINCT rank) FROM kernel") == [(2,)]

    con = duckdb.connect(str(db_path))                # an older library in the file
    con.execute("UPDATE tracedb_meta SET value = 'old' WHERE key = 'library_hash'")
    con.execute("DROP VIEW step_breakdown")
    con.close()
    ingest_paths(db_path, RANK1, run="r")            # nothing new to read, but the library is stale
    assert calls["install"] == 2
    assert rows(db_path, "SELECT value FROM tracedb_meta WHERE key = 'library_hash'") == [(digest,)]
    assert rows(db_path, "SELECT count(*) > 0 FROM step_breakdown") == [(True,)]


# the heavy libraries, and tracedb's rooms that only other commands need (the layout of issue 38:
# the compare command and alignment, the findings; tracedb.compare.name_map and tracedb.progress
# are a few lines each, and the CLI imports them)
HEAVY = ("pydantic", "rich", "pandas", "pyarrow", "sqlglot", "numpy", "tracedb.ingestion", "tracedb.compare.command",
         "tracedb.compare.store", "tracedb.compare.align", "tracedb.compare.concurrency", "tracedb.findings.report",
         "tracedb.findings.summary", "tracedb.findings.charts", "tracedb.findings.browser", "tracedb.store.library",
         "tracedb.store.template", "plotly")
try:        # DuckDB ≥ 1.4: the engine is the module _duckdb; the duckdb package's Python layer is not needed
    import _duckdb  # noqa: F401
    HEAVY += ("duckdb",)
except ImportError:
    pass


@pytest.mark.process
@pytest.mark.parametrize("args", [["query", "step_breakdown"], ["query", "free_time", "--rank", "0", "-f", "csv"],
                                  ["query", "SELECT count(*) FROM kernel", "-f", "json"], ["runs"],
                                  ["describe", "step_breakdown"], ["views"]])
def test_read_commands_load_no_heavy_module(args, tmp_path):
    """The read-only commands run (in a new interpreter, as the console script does) without
    importing pydantic (typer's value conversion), rich, pandas, pyarrow, numpy, sqlglot, the
    duckdb package's relation layer (the engine module is enough) or the ingest code: issue #20's
    cold start. Checked on sys.modules after the command ran."""
    db = tmp_path / "t.duckdb"
    ingested(db, RANK0, run="r")
    code = ("import sys, tracedb.cli as cli\n"
            f"sys.argv = ['tracedb', *{args!r}, '--db', {str(db)!r}]\n"
            "try:\n    cli.main()\nexcept SystemExit as e:\n    code = e.code\n"
            f"heavy = sorted(m for m in sys.modules if m in {HEAVY!r} or m.startswith('tracedb.ingestion.'))\n"
            "print('HEAVY:', ' '.join(heavy), file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "Traceback" not in out.stderr and out.stdout, out.stderr
    assert out.stderr.strip().splitlines()[-1] == "HEAVY:", out.stderr


BAD_VALUES = [["--rank", "abc"], ["--rank", "1.5"], ["--rank", " 7"], ["--rank", "+3"], ["--rank", "007"],
              ["-f", "xml"], ["-f", "CSV"], ["--units", "MS"], ["--limit", ""], ["--rank", "9" * 25]]


def test_fast_value_conversion_is_typers(tmp_path):
    """tracedb converts plain values without typer's pydantic adapters (tracedb._coerce); for valid
    and invalid values alike the exit code, output and error text are typer's own."""
    import typer.core
    from tracedb.cli import typer_coercion as _coerce

    db = tmp_path / "t.duckdb"
    ingested(db, RANK0, run="r")
    cases = [["query", "step_breakdown", "--db", str(db), "-f", "csv", *bad] for bad in BAD_VALUES] + [
        ["runs", "set-role", "r", "Baseline", "--db", str(db)], ["runs", "set-role", "nope", "none", "--db", str(db)],
        ["ingest", "--role", "foo", "x"], ["query", "--help"], ["--help"], ["compare", "a", "--limit", "x"]]

    def outcomes():
        return [(r.exit_code, r.stdout, r.stderr) for r in (runner.invoke(app, c) for c in cases)]

    assert _coerce.install() and getattr(typer.core.build_runtime_param, "_tracedb_fast", False)
    fast = outcomes()
    original = typer.core.build_runtime_param
    try:
        typer.core.build_runtime_param = original.typer_build
        slow = outcomes()
    finally:
        typer.core.build_runtime_param = original
    for case, f, s in zip(cases, fast, slow):
        assert f == s, case
    assert [f[0] for f in fast[:len(BAD_VALUES)]] == [2, 2, 0, 0, 0, 2, 2, 2, 2, 0]
    assert "Invalid value for '--rank'" in fast[0][2]


@pytest.mark.process
def test_the_objects_of_a_command_are_frozen_out_of_the_exit_collection():
    """A command's process leaves the collector's passes at interpreter exit (~10 ms of each
    command over typer's, DuckDB's and tracedb's objects) by freezing the objects at exit; a
    handler registered before main() runs after main's, so it sees them frozen."""
    code = ("import atexit, gc, sys\n"
            "atexit.register(lambda: print('FROZEN', gc.get_freeze_count() > 1000))\n"
            "import tracedb.cli as cli\n"
            "print('BEFORE', gc.get_freeze_count())\n"
            "sys.argv = ['tracedb', '--version']\n"
            "cli.main()\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert "BEFORE 0" in lines and "FROZEN True" in lines, out.stdout
