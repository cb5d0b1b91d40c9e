"""Run model, public surface (issue 13): tracedb runs rm / rename / set-role, "no runs yet",
no database file left by a failed ingest, the ingest options passed through."""
from __future__ import annotations

import json
import shutil

import duckdb
import pytest
from typer.testing import CliRunner

from conftest import LEVEL1_2024, RANK0, rows
from tracedb import lazy
from tracedb.cli import app

runner = CliRunner()
OTHER = LEVEL1_2024


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def run_ids(db):
    return {name: rid for rid, name in rows(db, "SELECT run_id, run_name FROM run")}


def per_run_counts(db, run_id):
    """Rows of ``run_id`` in every table that has a run_id column (on one connection)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [t for (t,) in con.execute("SELECT t.table_name FROM duckdb_columns() c JOIN duckdb_tables() t "
                                            "USING (table_oid) WHERE c.column_name = 'run_id' ORDER BY 1").fetchall()]
        return {t: con.execute(f'SELECT count(*) FROM "{t}" WHERE run_id = ?', [run_id]).fetchone()[0]
                for t in tables}
    finally:
        con.close()


@pytest.fixture(scope="module")
def two_runs_built(tmp_path_factory):
    db = tmp_path_factory.mktemp("two_runs") / "t.duckdb"
    assert run("ingest", RANK0, "--db", db, "--run", "a", "--role", "baseline").exit_code == 0
    assert run("ingest", OTHER, "--db", db, "--run", "b").exit_code == 0
    return db


@pytest.fixture
def two_runs(two_runs_built, tmp_path):
    """The two runs ingested once per module, a copy per test."""
    db = tmp_path / "t.duckdb"
    shutil.copyfile(two_runs_built, db)
    return db


def test_runs_rm_deletes_the_run_from_every_table(two_runs):
    db = two_runs
    ids = run_ids(db)
    con = duckdb.connect(str(db))            # a table added later is covered too: no hard-coded list
    con.execute("CREATE TABLE later_table (run_id INTEGER, x INTEGER)")
    con.execute("INSERT INTO later_table VALUES (?, 1), (?, 2)", [ids["a"], ids["b"]])
    con.close()
    a_before, b_before = per_run_counts(db, ids["a"]), per_run_counts(db, ids["b"])
    assert a_before["kernel"] > 0 and a_before["event"] > 0 and a_before["later_table"] == 1
    res = run("runs", "rm", "a", "--db", db)
    assert res.exit_code == 0, res.output
    assert "removed run a" in res.stderr
    assert set(per_run_counts(db, ids["a"]).values()) == {0}
    assert per_run_counts(db, ids["b"]) == b_before
    assert not (db.parent / "t.duckdb.wal").exists()        # checkpointed
    listed = json.loads(run("runs", "--db", db, "--format", "json").stdout)
    assert [r["run_name"] for r in listed] == ["b"]
    assert run("query", "step_breakdown", "--db", db).exit_code == 0


def test_runs_rm_is_one_transaction(two_runs):
    """A DELETE that fails half-way (a user's foreign key on a table that sorts after kernel)
    leaves every row of the run in place."""
    db = two_runs
    ids = run_ids(db)
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE zz_parent (run_id INTEGER PRIMARY KEY)")
    con.execute("CREATE TABLE zz_child (parent INTEGER REFERENCES zz_parent (run_id))")
    con.execute("INSERT INTO zz_parent VALUES (?)", [ids["a"]])
    con.execute("INSERT INTO zz_child VALUES (?)", [ids["a"]])
    con.close()
    before = per_run_counts(db, ids["a"])
    res = run("runs", "rm", "a", "--db", db)
    assert res.exit_code == 1, res.output
    err = res.stderr.strip()
    assert err.count("\n") == 0 and "cannot remove run 'a'" in err and "zz_parent" in err and "Hint:" in err
    assert per_run_counts(db, ids["a"]) == before and before["kernel"] > 0


def test_runs_errors_name_the_run_and_list_the_runs(two_runs):
    db = two_runs
    for args in (("rm", "nope"), ("rename", "nope", "c"), ("set-role", "nope", "baseline")):
        res = run("runs", *args, "--db", db)
        assert res.exit_code == 1, res.output
        err = res.stderr.strip()
        assert err.count("\n") == 0 and "no run named 'nope'" in err and "runs in this database: a, b" in err
    res = run("runs", "rename", "a", "b", "--db", db)
    assert res.exit_code == 1 and "a run named 'b' exists already" in res.stderr
    res = run("runs", "set-role", "a", "boss", "--db", db)
    assert res.exit_code == 2                    # click rejects the choice
    assert run_ids(db).keys() == {"a", "b"}


def test_runs_rename(two_runs):
    db = two_runs
    res = run("runs", "rename", "a", "npu_run", "--db", db)
    assert res.exit_code == 0, res.output
    assert rows(db, "SELECT run_name, role FROM run ORDER BY run_id") == [("npu_run", "baseline"), ("b", None)]
    res = run("query", "step_breakdown", "--run", "npu_run", "--db", db, "--format", "json")
    assert {r["run_name"] for r in json.loads(res.stdout)} == {"npu_run"}
    # --db given to the group works as well
    assert run("runs", "--db", db, "rename", "npu_run", "a").exit_code == 0
    assert run_ids(db).keys() == {"a", "b"}


def test_set_role_moves_the_role_and_drives_op_diff(two_runs):
    db = two_runs
    res = run("query", "op_diff", "--db", db)
    assert res.exit_code == 1 and "set-role" in res.stderr          # no comparison run yet
    res = run("runs", "set-role", "a", "comparison", "--db", db)
    assert res.exit_code == 0 and "run a is now comparison" in res.stderr
    assert rows(db, "SELECT run_name, role FROM run ORDER BY run_id") == [("a", "comparison"), ("b", None)]
    res = run("runs", "set-role", "b", "comparison", "--db", db)     # one run holds a role at a time
    assert res.exit_code == 0 and "a is no longer comparison" in res.stderr
    res = run("runs", "set-role", "a", "baseline", "--db", db)
    assert res.exit_code == 0 and res.stderr == "run a is now baseline\n"
    res = run("runs", "set-role", "a", "comparison", "--db", db)       # one role per run
    assert res.stderr == "run a is now comparison (b is no longer comparison; it is no longer baseline)\n"
    assert run("runs", "set-role", "b", "comparison", "--db", db).exit_code == 0
    assert run("runs", "set-role", "a", "baseline", "--db", db).exit_code == 0
    assert rows(db, "SELECT run_name, role FROM run ORDER BY run_id") == [("a", "baseline"), ("b", "comparison")]
    by_role = json.loads(run("query", "kernel_diff", "--db", db, "--format", "json").stdout)
    by_flag = json.loads(run("query", "kernel_diff", "--baseline", "a", "--comparison", "b", "--db", db,
                             "--format", "json").stdout)
    assert by_role == by_flag and by_role[0]["baseline_run"] == "a"
    res = run("runs", "set-role", "b", "none", "--db", db)
    assert res.exit_code == 0 and res.stderr == "run b has no role now (it is no longer comparison)\n"
    assert rows(db, "SELECT run_name, role FROM run ORDER BY run_id") == [("a", "baseline"), ("b", None)]


def test_plain_runs_still_lists(two_runs):
    res = run("runs", "--db", two_runs, "--format", "csv")
    assert res.exit_code == 0
    assert [line.split(",")[:2] for line in res.stdout.splitlines()] == [["run_name", "role"], ["a", "baseline"],
                                                                         ["b", ""]]


@pytest.mark.parametrize("kind", ["bare duckdb file", "schema without runs"])
def test_every_query_command_on_a_database_without_runs(tmp_path, kind, empty_db, db_path):
    if kind == "bare duckdb file":
        db = tmp_path / "bare.duckdb"
        duckdb.connect(str(db)).close()
    else:
        empty_db.close()
        db = db_path
    for args in (["runs"], ["query", "step_breakdown"], ["query", "SELECT 1"], ["views"],
                 ["describe", "step_breakdown"], ["check"], ["export", "--parquet", tmp_path / "out"],
                 ["runs", "rm", "x"]):
        res = run(*args, "--db", db)
        assert res.exit_code == 1, (args, res.output)
        assert res.stderr.startswith(f"tracedb: error: {db}: no runs yet: tracedb ingest PATH"), (args, res.stderr)
        assert res.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_failed_ingest_into_a_new_database_creates_no_file(tmp_path):
    db = tmp_path / "new.duckdb"
    res = run("ingest", tmp_path / "does_not_exist", "--db", db)
    assert res.exit_code == 1 and "no such file" in res.stderr
    bad = tmp_path / "bad_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    bad.mkdir(parents=True)
    (bad / "trace_view.json").write_text('[{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "1", "dur": 1},')
    res = run("ingest", bad.parent, "--db", db)
    assert res.exit_code == 1 and "trace_view.json" in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad_ascend_pt"]
    # an existing database is kept (unchanged) when an ingest fails
    assert run("ingest", RANK0, "--db", db).exit_code == 0
    before = rows(db, "SELECT count(*) FROM event")
    assert run("ingest", bad.parent, "--db", db).exit_code == 1
    assert db.exists() and rows(db, "SELECT count(*) FROM event") == before


def test_ingest_options_are_passed_through(monkeypatch, tmp_path):
    seen = []

    def fake(con, paths, **kw):
        seen.append(kw)
        from tracedb.ingestion import IngestReport
        return IngestReport()

    monkeypatch.setattr(lazy.ingestion, "ingest", fake)       # what api.ingest calls
    db = tmp_path / "t.duckdb"
    assert run("ingest", RANK0, "--db", db, "--run-per-path", "--allow-mixed-platforms").exit_code == 0
    assert seen[-1]["run_per_path"] is True and seen[-1]["allow_mixed_platforms"] is True
    assert run("ingest", RANK0, "--db", db).exit_code == 0
    assert seen[-1]["run_per_path"] is False and seen[-1]["allow_mixed_platforms"] is False
    help_text = " ".join(run("ingest", "--help").stdout.split())
    assert "One run per PATH (default: one ingest command is one run)." in help_text
    assert "Allow GPU and NPU ranks in one run." in help_text
