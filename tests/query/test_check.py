"""tracedb check: no error on real profiler output; flags a hand-broken run."""
from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from conftest import CORPUS, KINETO, LEVEL0, LEVEL1, RANK0, corpus_path, ingest_paths, ingested_runs, rows
from tracedb.cli import app

runner = CliRunner()


def real_runs(where: str):
    """The fixtures, or every corpus Ascend rank folder and Kineto trace."""
    if where == "fixtures":
        return [LEVEL1, KINETO, LEVEL0]
    found = [p.parent for p in corpus_path(".").rglob("ASCEND_PROFILER_OUTPUT")]
    return sorted(set(found)) + sorted(CORPUS.rglob("*.json.gz"))


@pytest.mark.parametrize("where", ["fixtures", pytest.param("corpus", marks=pytest.mark.corpus)])
def test_check_exits_0_on_every_real_run(tmp_path, where):
    db = tmp_path / "t.duckdb"
    ingested_runs(db, *((path, {"run": f"run{i}"}) for i, path in enumerate(real_runs(where))))
    res = runner.invoke(app, ["check", "--db", str(db), "--format", "csv"])
    assert res.exit_code == 0, res.stdout
    assert not any(line.startswith("error,") for line in res.stdout.splitlines())


def test_check_flags_a_hand_broken_run(tmp_path):
    broken = tmp_path / "broken_ascend_pt"
    shutil.copytree(RANK0, broken)
    out = broken / "ASCEND_PROFILER_OUTPUT"
    # the profiler's reference says Computing was 1 ms more than the kernels show
    st = (out / "step_trace_time.csv").read_text().splitlines()
    cells = st[1].split(",")
    cells[1] = str(float(cells[1]) + 1000.0)
    (out / "step_trace_time.csv").write_text("\n".join([st[0], ",".join(cells)]) + "\n")
    db = tmp_path / "t.duckdb"
    ingest_paths(db, broken)
    # a kernel stretched to 1 s, longer than the 156 ms step, and a trace event with negative dur
    con_rows = rows(db, "SELECT count(*) FROM kernel")
    assert con_rows[0][0] > 0
    import duckdb
    con = duckdb.connect(str(db))
    con.execute("UPDATE kernel SET dur_ns = 1000000000 WHERE kernel_id = 1")
    con.execute("UPDATE event SET dur_ns = -5 WHERE name = 'aten::empty' AND ph = 'X'")
    con.close()
    res = runner.invoke(app, ["check", "--db", str(db), "--format", "csv"])
    assert res.exit_code == 1
    found = {tuple(line.split(",")[:2]) for line in res.stdout.splitlines()[1:]}
    assert ("error", "negative_duration") in found
    assert ("warning", "profiler_difference") in found
    assert ("warning", "kernel_longer_than_step") in found


def test_negative_kernel_duration_is_rejected_at_ingest(tmp_path):
    f = tmp_path / "kernel_details.csv"
    f.write_text("Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
                 "a,A,AI_CORE,1.000,2.0\n"
                 "b,B,AI_CORE,5.000,-3.5\n")
    res = runner.invoke(app, ["ingest", str(f), "--db", str(tmp_path / "t.duckdb")])
    assert res.exit_code == 1 and str(f) in res.stderr and "line 3" in res.stderr and "negative" in res.stderr
