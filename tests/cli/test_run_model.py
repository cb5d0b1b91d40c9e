"""The run model through the CLI: one command is one run, rank numbers say where they came
from, another capture is refused (never appended), a run holds one platform."""
from __future__ import annotations

import shutil

import duckdb
from typer.testing import CliRunner

from conftest import FIXTURES, LEVEL1, LEVEL1_2024, rows
from tracedb.cli import app

OTHER = LEVEL1_2024                                          # another capture, also rank 0
KINETO = FIXTURES / "kineto/sampled_rank-0.json.gz"


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def kd_rows(path) -> int:
    """Data rows of a kernel_details.csv (every line after the header)."""
    return len(path.read_text().strip().splitlines()) - 1


def test_two_rank_folders_in_one_command_are_one_run(tmp_path):
    db = tmp_path / "t.duckdb"
    res = run("ingest", LEVEL1 / "rank0_ascend_pt", LEVEL1 / "rank1_ascend_pt", "--db", db)
    assert res.exit_code == 0, res.output
    # named after the folder holding both PATHs
    assert rows(db, "SELECT run_name, count(*) FROM run JOIN rank USING (run_id) GROUP BY ALL") == [("level1", 2)]
    assert "run level1: rank 0 (profiler_info_0.json)" in res.stderr
    assert "run level1: rank 1 (profiler_info_1.json)" in res.stderr


def test_run_per_path_makes_one_run_per_path(tmp_path):
    db = tmp_path / "t.duckdb"
    res = run("ingest", LEVEL1 / "rank0_ascend_pt", LEVEL1 / "rank1_ascend_pt", "--db", db, "--run-per-path")
    assert res.exit_code == 0, res.output
    assert rows(db, "SELECT run_name, rank FROM run JOIN rank USING (run_id) ORDER BY 1") == [
        ("rank0_ascend_pt", 0), ("rank1_ascend_pt", 1)]
    res = run("ingest", LEVEL1 / "rank0_ascend_pt", LEVEL1 / "rank1_ascend_pt", "--db", db, "--run-per-path",
              "--run", "x")
    assert res.exit_code == 1 and "pass one of them" in res.stderr


def test_another_capture_is_refused_not_appended(tmp_path):
    """A second capture whose folder has the same default run name (rank0_ascend_pt) used to be
    appended to the first capture's rank 0 (one 57-minute step)."""
    db = tmp_path / "t.duckdb"
    second = tmp_path / "other" / "rank0_ascend_pt"
    shutil.copytree(OTHER, second)
    assert run("ingest", LEVEL1 / "rank0_ascend_pt", "--db", db).exit_code == 0
    before = rows(db, "SELECT (SELECT count(*) FROM event), (SELECT count(*) FROM kernel), (SELECT count(*) FROM step)")
    res = run("ingest", second, "--db", db)
    assert res.exit_code == 1
    assert "another capture: rank 0 of run 'rank0_ascend_pt' already has" in res.stderr
    assert "--run NAME" in res.stderr and "--replace" in res.stderr
    assert rows(db, "SELECT (SELECT count(*) FROM event), (SELECT count(*) FROM kernel), "
                    "(SELECT count(*) FROM step)") == before
    # as a run of its own it goes in
    assert run("ingest", second, "--db", db, "--run", "second").exit_code == 0
    assert rows(db, "SELECT count(*) FROM kernel JOIN run USING (run_id) WHERE run_name = 'second' "
                    "AND copy_kind IS NULL") == [
        (kd_rows(OTHER / "ASCEND_PROFILER_OUTPUT/kernel_details.csv"),)]


def test_replace_swaps_a_changed_kernel_details_without_doubling(tmp_path):
    """Issue F5: a changed kernel_details.csv from another folder doubled the rank's kernels."""
    db = tmp_path / "t.duckdb"
    kd = LEVEL1 / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv"
    changed = tmp_path / "elsewhere" / "rank0" / "kernel_details.csv"
    changed.parent.mkdir(parents=True)
    lines = kd.read_text().splitlines(keepends=True)
    changed.write_text("".join(lines[:-1]))                    # one kernel fewer
    assert run("ingest", LEVEL1 / "rank0_ascend_pt", "--db", db, "--run", "r").exit_code == 0
    res = run("ingest", changed, "--db", db, "--run", "r")
    assert res.exit_code == 1 and "another capture" in res.stderr
    assert rows(db, "SELECT count(*) FROM kernel WHERE copy_kind IS NULL") == [(kd_rows(kd),)]   # + the trace's copy tasks
    res = run("ingest", changed, "--db", db, "--run", "r", "--replace")
    assert res.exit_code == 0, res.output
    assert rows(db, "SELECT count(*) FROM kernel WHERE copy_kind IS NULL") == [(kd_rows(kd) - 1,)]
    assert rows(db, "SELECT count(*) FROM source_file WHERE format = 'kernel_details'") == [(1,)]


def test_a_gpu_trace_does_not_join_an_npu_run(tmp_path):
    db = tmp_path / "t.duckdb"
    assert run("ingest", LEVEL1 / "rank0_ascend_pt", "--db", db, "--run", "npu").exit_code == 0
    res = run("ingest", KINETO, "--db", db, "--run", "npu")
    assert res.exit_code == 1 and "run 'npu' holds npu ranks; this input is gpu" in res.stderr
    assert "--allow-mixed-platforms" in res.stderr
    assert rows(db, "SELECT count(*) FROM rank") == [(1,)]
    # allowed, a GPU trace still cannot become the NPU capture's rank 0 ...
    res = run("ingest", KINETO, "--db", db, "--run", "npu", "--allow-mixed-platforms")
    assert res.exit_code == 1 and "another capture: rank 0 of run 'npu' already has" in res.stderr
    # ... but can be a rank of its own (distributedInfo rank 1)
    res = run("ingest", FIXTURES / "kineto/sampled_rank-1.json.gz", "--db", db, "--run", "npu",
              "--allow-mixed-platforms")
    assert res.exit_code == 0, res.output
    assert rows(db, "SELECT platform FROM run") == [("mixed",)]
    assert rows(db, "SELECT rank, rank_source FROM rank ORDER BY rank") == [(0, "profiler_info"), (1, "distributedInfo")]


def test_rank_origin_is_printed(tmp_path):
    db = tmp_path / "t.duckdb"
    kd = LEVEL1 / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv"
    named = tmp_path / "job" / "rank3" / "kernel_details.csv"
    plain = tmp_path / "job" / "plain" / "kernel_details.csv"
    for p in (named, plain):
        p.parent.mkdir(parents=True)
        shutil.copy(kd, p)
    res = run("ingest", named, "--db", db, "--run", "a")
    assert res.exit_code == 0 and "run a: rank 3 (file name)" in res.stderr
    res = run("ingest", plain, "--db", db, "--run", "b")
    assert res.exit_code == 0 and "run b: rank 0 (guessed: no rank in the file)" in res.stderr


def test_check_reports_two_captures_in_one_rank_as_an_error(tmp_path):
    """A database written before the refusal can hold two trace_view.json in one rank."""
    db = tmp_path / "t.duckdb"
    assert run("ingest", LEVEL1 / "rank0_ascend_pt", "--db", db, "--run", "r").exit_code == 0
    assert run("check", "--db", db).exit_code == 0
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO source_file SELECT 99, run_id, rank, format, path || '.old', size_bytes, 'x', 0, "
                "ingested_at FROM source_file WHERE format = 'trace_view'")
    con.close()
    res = run("check", "--db", db, "--format", "csv")
    assert res.exit_code == 1
    assert "error,two_captures,r,0," in res.stdout and "2 trace_view files in one rank" in res.stdout
