"""tracedb summary: the findings carry the views' numbers (slow_rank, op_diff), which match the
profiler's own step_trace_time.csv."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import FIXTURES, ingest_paths, rows
from tracedb.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("sum") / "t.duckdb"
    ingest_paths(path, FIXTURES / "ascend/level1", role="baseline")
    ingest_paths(path, FIXTURES / "ascend/level1_2024_rank0_ascend_pt", role="comparison")
    return str(path)


def findings(db, *args) -> dict[tuple[str, str], dict]:
    res = runner.invoke(app, ["summary", "--db", db, "--format", "json", *args])
    assert res.exit_code == 0, res.stderr
    return {(f["run_name"], f["topic"]): f for f in json.loads(res.stdout)}


def test_step_split_and_slowest_rank(db):
    got = findings(db, "--run", "level1")
    # step_trace_time.csv, ranks 0 and 1 of step 50 (µs): Stage 136581.0 / 131912.5, Computing
    # 8873.756 / 8878.295, Not Overlapped 101963.203 / 96359.047, Free 25744.050 / 26675.274
    stage = 136581.0 + 131912.5
    split = got[("level1", "step")]["finding"]
    for word, part in (("computing", 8873.756 + 8878.295), ("exposed communication", 101963.203 + 96359.047),
                       ("free", 25744.050 + 26675.274)):
        assert f"{word} {100 * part / stage:.1f} %" in split, split
    assert "mean 134.247 ms over 2 rank(s) × 1 step(s)" in split            # (136581.0 + 131912.5) / 2 µs
    # the slowest rank with slow_rank's own numbers
    (r,) = rows(db, "SELECT rank, step, e2e_ns, behind_fastest_ns, slowest_part, "
                    "communication_not_overlapped_excess_ns FROM slow_rank WHERE behind_fastest_ns > 0")
    assert r[:2] == (0, 50) and abs(r[2] - 136_581_000) <= 500 and abs(r[3] - 4_668_500) <= 500   # step_breakdown_check tolerance
    assert r[4] == "communication_not_overlapped"
    slow = got[("level1", "slow rank")]
    assert slow["finding"].startswith(f"slowest rank: rank 0 in step 50, {r[2] / 1e6:.3f} ms, "
                                      f"{r[3] / 1e6:.3f} ms behind the fastest of 2 ranks; its slowest part is "
                                      f"exposed communication (communication_not_overlapped_excess_ns: "
                                      f"{r[5] / 1e6:.3f} ms")
    assert "not slow by the msprof-analyze 5 % or MindInsight 20 % rule" in slow["finding"]   # 4.7 of 134 ms
    assert slow["source"] == "tracedb query slow_rank --run level1 --step 50"
    assert ("level1_2024_rank0_ascend_pt", "step") not in got
    (g,) = rows(db, "SELECT rank, step, dur_ns, kernel_before, kernel_after FROM free_time WHERE run_name = 'level1' "
                    "AND dur_ns = (SELECT max(dur_ns) FROM free_time WHERE run_name = 'level1')")
    assert got[("level1", "free gap")]["finding"] == (f"largest free gap: {g[2] / 1e6:.3f} ms on rank {g[0]} in step "
                                                      f"{g[1]}, after {g[3]}, before {g[4]}")


def test_top_degraded_op_is_op_diffs(db):
    got = findings(db)
    tops = rows(db, "SELECT op_type, diff_total_ns, total_ratio FROM op_diff WHERE diff_total_ns > 0 "
                    "ORDER BY diff_total_ns DESC, op_type LIMIT 1")
    op = got[("level1 → level1_2024_rank0_ascend_pt", "op diff")]["finding"]
    if not tops:     # op_diff by framework op (branch compare) needs the op tree of both runs
        assert op == "no op takes longer in the comparison run"
        return
    (top,) = tops
    assert op.startswith(f"top degraded op: {top[0]}, ") and f"+{top[1] / 1e6:,.3f} ms" in op
    if top[2] is None:
        assert op.endswith("; new in the comparison run")
    else:
        assert op.endswith(f"×{top[2]:.2f}; " + ("degraded by MindInsight's ±20 % rule" if top[2] > 1.2
                                                  else "within MindInsight's ±20 %"))
    res = runner.invoke(app, ["summary", "--db", db])
    assert res.exit_code == 0 and "comparison level1 → level1_2024_rank0_ascend_pt" in res.stdout
    assert "      → tracedb query op_diff --baseline level1 --comparison level1_2024_rank0_ascend_pt" in res.stdout
    res = runner.invoke(app, ["summary", "--db", db, "--run", "nosuch"])
    assert res.exit_code == 1 and "no run named 'nosuch'" in res.stderr


def test_readme_sample_is_real_output(tmp_path):
    import re

    from conftest import ROOT
    text = (ROOT / "README.md").read_text()
    sample = re.search(r"```text\n\$ tracedb summary\n(.*?)```", text, re.S).group(1)
    path = tmp_path / "t.duckdb"
    ingest_paths(path, FIXTURES / "ascend/level1")
    res = runner.invoke(app, ["summary", "--db", str(path)])
    assert res.exit_code == 0 and res.stdout == sample
