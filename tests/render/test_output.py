"""The human table (tracedb query's default) and the raw formats beside it.

Values are checked against numbers worked out by hand from the column's raw ns / bytes (the same
row printed as csv), never against what the table printed before."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest
from typer.testing import CliRunner

from conftest import KINETO, LEVEL1, MINDSPORE, ingested, ingested_runs
from tracedb.cli import app
from tracedb.render.machine import render
from tracedb.render.table import human_cells, render_table
from tracedb.store.library import load_library

runner = CliRunner()


# ---- cells ----------------------------------------------------------------------------------

def test_durations_pick_one_unit_per_column_and_round_exactly():
    headers, cells, right = human_cells(
        ["step_ns", "kernel_ns", "capture_ns", "diff_ns"],
        [(136_581_499, 999_999, 250_000_000_000, -1_500_500), (1_000_000, 1, 1, 0)])
    assert headers == ["step_ms", "kernel_µs", "capture_s", "diff_ms"]
    assert cells[0] == ["136.581", "999.999", "250.000", "-1.501"]   # half up: 1.5005 → 1.501
    assert cells[1] == ["1.000", "0.001", "0.000", "0.000"]
    assert right == [True] * 4


def test_forced_units_and_exact_ns():
    headers, cells, _ = human_cells(["dur_ns", "ts_ns"], [(1_234_567, 1736408883704643212)], units="ns")
    assert headers == ["dur_ns", "ts_ns"] and cells == [["1,234,567", "1736408883704643212"]]
    headers, cells, _ = human_cells(["dur_ns"], [(1_234_567,)], units="s")
    assert headers == ["dur_s"] and cells == [["0.001"]]
    with pytest.raises(ValueError):
        human_cells(["dur_ns"], [(1,)], units="min")


def test_instants_as_utc_time_of_day_or_seconds():
    # 1736408883 s = 2025-01-09 07:48:03 UTC
    headers, cells, _ = human_cells(["step_start_ns", "late_start_ns"], [(1736408883704643212, 5_600_000)])
    assert headers == ["step_start_utc", "late_start_ms"] and cells == [["07:48:03.704643", "5.600"]]
    headers, cells, _ = human_cells(["start_ns"], [(616881061968000,)])       # MindSpore device counter
    assert headers == ["start_s"] and cells == [["616,881.061968"]]


def test_bytes_ratios_bandwidth_counts_keys_null():
    headers, cells, _ = human_cells(
        ["peak_bytes", "size_bytes", "small_bytes", "wait_ratio", "free_pct", "bandwidth_gbps", "kernels", "rank",
         "name", "ok"],
        [(2216407040, 3 * 2 ** 20, 512, 0.9553973649, 19.04, 12.3456, 20081, 12345, "a\nb", True),
         (None, None, None, None, None, None, None, None, None, None)])
    assert headers == ["peak_GiB", "size_MiB", "small_B", "wait_%", "free_%", "bandwidth_GB/s", "kernels", "rank",
                       "name", "ok"]
    assert cells[0] == ["2.06", "3.00", "512", "95.5", "19.0", "12.35", "20,081", "12345", "a⏎b", "true"]
    assert cells[1] == ["—"] * 10


def test_table_fits_cuts_drops_and_limits_rows():
    cols = ["name"] + [f"metric_{i}_ns" for i in range(12)]
    rows = [("x" * 60, *range(1_000_000, 13_000_000, 1_000_000))] * 50
    text = render_table(cols, rows, width=80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "x" * 30 not in text and "…" in text
    assert re.search(r"^\+\d+ columns not shown \(metric_\d+_ms", lines[-1])
    assert lines[-2] == "50 rows (40 shown): --limit N or --all for more"
    assert len([line for line in lines if line.startswith("x")]) == 40
    wide = render_table(cols, rows, width=80, wide=True, max_rows=None)
    assert "x" * 60 in wide and "columns not shown" not in wide and "rows (" not in wide
    vertical = render_table(cols, rows[:1], width=80, vertical=True)
    assert "metric_11_ms | 12.000" in vertical


def test_raw_formats_keep_exact_values():
    cols, rows = ["dur_ns", "size_bytes", "wait_ratio"], [(1736408883704643212, 2216407040, 0.5), (None, 1, None)]
    assert render(cols, rows, "csv") == "dur_ns,size_bytes,wait_ratio\n1736408883704643212,2216407040,0.5\n,1,\n"
    assert json.loads(render(cols, rows, "json"))[0] == {"dur_ns": 1736408883704643212, "size_bytes": 2216407040,
                                                        "wait_ratio": 0.5}
    assert "1736408883704643212" in render(cols, rows, "markdown")


# ---- every view on the fixtures ---------------------------------------------------------------

# per view: the numbers a person looks for first, as the 120-column table must show them (a time
# or bytes column in whichever unit fits: _ms, _µs, _s; _GiB, _MiB, _KiB, _B). step_breakdown, free_time and
# uncovered_communication are ordered by branch overall, op_diff by branch compare.
HEADLINE = {
    "step_breakdown": ["computing"],
    "slow_rank": ["e2e", "behind_fastest", "slowest_part"],
    "comm_op": ["elapse", "transit", "wait", "synchronization"],
    "memory_peak": ["peak_reserved"],
    "free_time": ["dur"],
    "uncovered_communication": ["uncovered"],
    "comm_wait_cross_rank": ["dur", "wait", "late_start"],
    "slow_link": ["bandwidth_GB/s", "transport_median_GB/s", "below_median_%"],
    "comm_bandwidth": ["bandwidth_GB/s", "transit_size"],
    "comm_matrix": ["bandwidth_GB/s"],
    "op_memory": ["size", "lifetime"],
}


@pytest.fixture(scope="module")
def fixtures_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("out") / "t.duckdb"
    ingested_runs(db, (LEVEL1, {"role": "comparison"}), (KINETO, {"role": "baseline"}), (MINDSPORE, {}))
    return str(db)


def table_headers(text: str) -> list[str]:
    """The column headers of a printed table (header lines above the dashes, joined with _)."""
    lines = text.splitlines()
    dash = next(i for i, line in enumerate(lines) if line and set(line) <= {"-", " "})
    spans = [m.span() for m in re.finditer(r"-+", lines[dash])]
    heads = []
    for a, b in spans:
        parts = [line[a:b].strip() for line in lines[:dash] if line[a:b].strip()]
        heads.append("_".join(parts))
    return heads


def views():
    return sorted(o.name for o in load_library() if o.kind == "view" and o.schema == "main")


@pytest.mark.parametrize("view", views())
def test_every_view_fits_120_columns(fixtures_db, view):
    res = runner.invoke(app, ["query", view, "--db", fixtures_db], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines and max(len(line) for line in lines) <= 120, view
    heads = table_headers(res.stdout)
    assert not any(h.endswith("_ns") for h in heads), heads
    for h in HEADLINE.get(view, []):
        assert h in heads or any(f"{h}_{u}" in heads for u in ("ms", "µs", "s", "GiB", "MiB", "KiB", "B")), (view, h, heads)
    assert len([line for line in lines if not line.startswith(("+", " "))]) <= 40 + 5


def test_table_numbers_are_the_raw_values_in_ms(fixtures_db):
    """level1 rank 0 step 50: the table's computing_ms is the csv's computing_ns / 1e6, rounded."""
    raw = runner.invoke(app, ["query", "step_breakdown", "--db", fixtures_db, "--run", "level1", "--rank", "0",
                              "--format", "csv"])
    (row,) = list(csv.DictReader(io.StringIO(raw.stdout)))
    assert row["computing_ns"] == "8873737"         # Computing 8873.737 µs in step_trace_time.csv
    res = runner.invoke(app, ["query", "step_breakdown", "--db", fixtures_db, "--run", "level1", "--rank", "0", "-x"],
                        env={"COLUMNS": "120"})
    assert re.search(r"^computing_ms\s+\| 8\.874$", res.stdout, re.M), res.stdout
    assert re.search(r"^step_start_utc\s+\| 07:48:03\.704643$", res.stdout, re.M)
    ns = runner.invoke(app, ["query", "step_breakdown", "--db", fixtures_db, "--run", "level1", "--rank", "0", "-x",
                             "--units", "ns"], env={"COLUMNS": "120"})
    assert re.search(r"^computing_ns\s+\| 8,873,737$", ns.stdout, re.M)
    assert re.search(r"^step_start_ns\s+\| 1736408883704643212$", ns.stdout, re.M)


def test_row_limit_and_all(fixtures_db):
    n = json.loads(runner.invoke(app, ["query", "SELECT count(*) AS n FROM free_time", "--db", fixtures_db,
                                       "--format", "json"]).stdout)[0]["n"]
    assert n > 40
    res = runner.invoke(app, ["query", "free_time", "--db", fixtures_db], env={"COLUMNS": "120"})
    assert f"{n:,} rows (40 shown)" in res.stdout
    res = runner.invoke(app, ["query", "free_time", "--db", fixtures_db, "--all"], env={"COLUMNS": "120"})
    assert "shown" not in res.stdout and len(res.stdout.splitlines()) == n + 2
    res = runner.invoke(app, ["query", "free_time", "--db", fixtures_db, "--format", "csv"])
    assert len(res.stdout.splitlines()) == n + 1      # raw formats are never cut


def test_readme_sample_is_real_output(tmp_path):
    """The manual's "Reading the output" sample is what the command prints on the level1 fixture."""
    from conftest import ROOT
    text = (ROOT / "docs/output.md").read_text()
    sample = re.search(r"```text\n\$ COLUMNS=100 tracedb query slow_rank\n(.*?)```", text, re.S).group(1)
    db = tmp_path / "t.duckdb"
    ingested(db, LEVEL1)
    res = runner.invoke(app, ["query", "slow_rank", "--db", str(db)], env={"COLUMNS": "100"})
    assert res.stdout == sample


@pytest.mark.parametrize("view", ["step_breakdown", "slow_rank", "comm_op", "memory_peak", "free_time"])
def test_csv_and_json_are_the_raw_values(fixtures_db, view):
    """csv and json print what the database holds: integer ns and bytes, exactly."""
    from conftest import rows
    want = rows(fixtures_db, f"SELECT * FROM {view}")
    got = json.loads(runner.invoke(app, ["query", view, "--db", fixtures_db, "--format", "json"]).stdout)
    assert [tuple(r.values()) for r in got] == [tuple(r) for r in want]
    text = runner.invoke(app, ["query", view, "--db", fixtures_db, "--format", "csv"]).stdout
    parsed = list(csv.reader(io.StringIO(text)))[1:]
    assert [[("" if v is None else str(v) if not isinstance(v, float) else format(v, ".10g")) for v in r]
            for r in want] == parsed
