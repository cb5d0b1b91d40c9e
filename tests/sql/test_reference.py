"""step_breakdown, free_time, uncovered_communication and kernel_diff against the profiler's own output.

The expected numbers come from the profiler, not from tracedb: step_trace_time.csv (µs, parsed
here with Decimal) and kernel_details.csv (counted and summed here with the csv module). The
inputs are ingested *without* step_trace_time.csv and with the "Overlap Analysis" process
removed from trace_view.json, so the views cannot have copied them.
"""
from __future__ import annotations

import csv
import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import CORPUS, FIXTURES, LEVEL0, LEVEL1, LEVEL1_2024, RANK0, corpus_path, ingest_paths, ingested, ingested_runs, rows

ASCEND_RANKS = [
    "msinsight/test/data/pytorch/text/level0/rank0_ascend_pt",
    "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt",
    "msinsight/test/data/pytorch/text/level1/rank1_ascend_pt",
    "msinsight-2024/test/data/pytorch/text/level1/rank0_ascend_pt",
]
FIXTURE_RANKS = [
    "ascend/level0_rank0_ascend_pt",
    "ascend/level1/rank0_ascend_pt",
    "ascend/level1/rank1_ascend_pt",
    "ascend/level1_2024_rank0_ascend_pt",
]
STEP_COLUMNS = {
    "Computing": "computing_ns",
    "Communication(Not Overlapped)": "communication_not_overlapped_ns",
    "Overlapped": "overlapped_ns",
    "Communication": "communication_ns",
    "Free": "free_ns",
    "Stage": "stage_ns",
    "Bubble": "bubble_ns",
    "Communication(Not Overlapped and Exclude Receive)": "communication_not_overlapped_exclude_receive_ns",
    "Preparing": "preparing_ns",
}


def us_to_ns(text: str) -> Decimal:
    return Decimal(text.strip()) * 1000


def rank_dirs():
    """The fixture ranks, and every corpus Ascend rank folder with trace_view.json and
    step_trace_time.csv (marked corpus: CI runs them)."""
    found = []
    if CORPUS.exists():
        for out in sorted(CORPUS.rglob("ASCEND_PROFILER_OUTPUT")):
            if (out / "trace_view.json").exists() and (out / "step_trace_time.csv").exists():
                found.append(out.parent)
    return ([pytest.param(FIXTURES / r, id=f"fixtures/{r}") for r in FIXTURE_RANKS]
            + [pytest.param(p, marks=pytest.mark.corpus, id=f"corpus/{p.parent.name}/{p.name}") for p in found])


def strip_reference(src: Path, dst: Path, *also_drop: str) -> Path:
    """Copy a rank folder without step_trace_time.csv and without the Overlap Analysis process."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("step_trace_time.csv", "communication*.json", *also_drop))
    trace = dst / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    events = json.loads(trace.read_text())
    overlap = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
               and (e.get("args") or {}).get("name") == "Overlap Analysis"}
    kept = [e for e in events if e.get("pid") not in overlap]
    assert overlap and len(kept) < len(events)
    trace.write_text(json.dumps(kept))
    return dst


@pytest.mark.parametrize("without", ["", "kernel_details.csv"], ids=["with_kernel_details", "trace_view_only"])
@pytest.mark.parametrize("rank_dir", rank_dirs())
def test_step_breakdown_equals_step_trace_time(rank_dir, without, tmp_path):
    """Without kernel_details.csv the kernels come from the trace's Ascend Hardware/HCCL slices."""
    reference = list(csv.DictReader(open(rank_dir / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv")))
    stripped = strip_reference(rank_dir, tmp_path / rank_dir.name, *([without] if without else []))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, stripped)
    assert rows(db, "SELECT count(*) FROM profiler_step_trace") == [(0,)]
    assert rows(db, "SELECT count(*) FROM event WHERE process_name = 'Overlap Analysis'") == [(0,)]
    # copy tasks (not rows of kernel_details.csv) always come from the trace
    sources = {s for (s,) in rows(db, "SELECT DISTINCT source FROM kernel WHERE copy_kind IS NULL")}
    assert sources == ({"trace_view"} if without else {"kernel_details"})
    for ref in reference:
        step = int(ref["Step"]) if ref["Step"].strip() else None
        cols = ", ".join(STEP_COLUMNS.values())
        got = rows(db, f"SELECT {cols} FROM step_breakdown WHERE step IS NOT DISTINCT FROM ?", [step])
        assert len(got) == 1, f"no step_breakdown row for step {step}"
        for (csv_col, col), value in zip(STEP_COLUMNS.items(), got[0]):
            if csv_col not in ref:
                continue
            expected = us_to_ns(ref[csv_col])
            tol = max(Decimal(500), abs(expected) * Decimal("0.0005"))
            assert abs(Decimal(value) - expected) <= tol, (csv_col, value, expected)
        free = rows(db, "SELECT sum(dur_ns) FROM free_time WHERE step IS NOT DISTINCT FROM ?", [step])[0][0] or 0
        expected_free = us_to_ns(ref["Free"])
        assert abs(Decimal(free) - expected_free) <= max(Decimal(500), expected_free * Decimal("0.0005"))
        uncovered = rows(db, "SELECT sum(uncovered_ns) FROM uncovered_communication "
                             "WHERE step IS NOT DISTINCT FROM ?", [step])[0][0] or 0
        expected_unc = us_to_ns(ref["Communication(Not Overlapped)"])
        assert abs(Decimal(uncovered) - expected_unc) <= max(Decimal(500), expected_unc * Decimal("0.0005"))


def test_step_breakdown_check_matches_fixture_reference(tmp_path):
    db = tmp_path / "t.duckdb"
    ingested(db, LEVEL1)
    got = rows(db, "SELECT rank, step, has_reference, tiles, matches_profiler FROM step_breakdown_check ORDER BY rank")
    assert got == [(0, 50, True, True, True), (1, 50, True, True, True)]


def kernel_details_by_type(path: Path) -> dict[str, tuple[int, Decimal]]:
    out: dict[str, tuple[int, Decimal]] = {}
    with open(path, newline="", encoding="utf-8-sig") as f:
        for row in csv.DictReader(f):
            calls, total = out.get(row["Type"], (0, Decimal(0)))
            out[row["Type"]] = (calls + 1, total + Decimal(row["Duration(us)"].strip()) * 1000)
    return out


def test_kernel_diff_equals_kernel_details_sums(tmp_path):
    base_dir, comp_dir = RANK0, LEVEL1_2024
    db = tmp_path / "t.duckdb"
    ingested_runs(db, (base_dir, {"run": "base", "role": "baseline"}), (comp_dir, {"run": "comp", "role": "comparison"}))
    base = kernel_details_by_type(base_dir / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv")
    comp = kernel_details_by_type(comp_dir / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv")
    got = rows(db, "SELECT kernel_type, sum(baseline_calls)::BIGINT, sum(baseline_total_ns), "
                   "sum(comparison_calls)::BIGINT, sum(comparison_total_ns), sum(diff_total_ns) FROM kernel_diff "
                   "GROUP BY kernel_type ORDER BY 6 DESC")
    base.pop("N/A", None), comp.pop("N/A", None)       # msprof-analyze KernelCompare drops Type N/A
    assert {r[0] for r in got} == set(base) | set(comp)
    for op_type, bc, bt, cc, ct, diff in got:
        eb = base.get(op_type, (0, Decimal(0)))
        ec = comp.get(op_type, (0, Decimal(0)))
        assert (bc, Decimal(bt)) == eb, op_type
        assert (cc, Decimal(ct)) == ec, op_type
        assert Decimal(diff) == ec[1] - eb[1]
    diffs = [r[0] for r in rows(db, "SELECT diff_total_ns FROM kernel_diff")]
    assert diffs == sorted(diffs, reverse=True)
    # the macro compares any pair, in either direction
    swapped = rows(db, "SELECT kernel_type, sum(diff_total_ns) FROM kernel_diff_between('comp', 'base') GROUP BY 1")
    assert {o: -d for o, d in swapped} == {r[0]: r[5] for r in got}


def test_kernel_diff_level0_leaves_type_na_out(tmp_path):
    # Level0 kernel_details.csv writes Type N/A for every compute kernel; kernel_diff leaves them out
    # as msprof-analyze KernelCompare does (KernelDetailsBean.is_invalid_op_type)
    d = LEVEL0
    db = tmp_path / "t.duckdb"
    ingested_runs(db, (d, {"run": "a", "role": "baseline"}), (d, {"run": "b", "role": "comparison"}))
    expected = kernel_details_by_type(d / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv")
    assert set(expected) == {"N/A"} and expected["N/A"][0] == 191
    assert rows(db, "SELECT count(*) FROM kernel WHERE op_type = 'N/A'") == [(2 * 191,)]
    assert rows(db, "SELECT * FROM kernel_diff") == []


@pytest.mark.corpus
def test_trace_only_older_cann_matches_overlap_analysis(tmp_path):
    """Older CANN (msprof-analyze advisor fixture): no kernel_details.csv, every task typed "Other".

    Expected = the trace's own Overlap Analysis Computing / Free slices, summed here from the JSON
    (whole capture: one ProfilerStep). The view ignores those slices (it reads the kernels).
    """
    path = corpus_path("msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json")
    events = json.loads(path.read_text())
    overlap = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
               and e["args"]["name"] == "Overlap Analysis"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name" and e["pid"] in overlap}
    sums: dict[str, Decimal] = {}
    for e in events:
        if e.get("ph") == "X" and e.get("pid") in overlap:
            name = threads.get((e["pid"], e["tid"]), e["name"])
            sums[name] = sums.get(name, Decimal(0)) + Decimal(str(e["dur"])) * 1000
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path)
    ((computing, free),) = rows(db, "SELECT computing_ns, free_ns FROM step_breakdown")
    # the slices' dur are rounded µs floats (their sum is 1 788 250.5 ns; the kernels give 1 788 267)
    assert abs(Decimal(computing) - sums["Computing"]) <= Decimal(500)
    assert abs(Decimal(free) - sums["Free"]) <= max(Decimal(500), sums["Free"] * Decimal("0.0005"))


@pytest.mark.corpus
def test_kernel_details_only_pipeline_parallel_job(tmp_path):
    """torch_npu 2.7 Level2 LLM job (PP=2 x DP=2) whose rank folders have no trace_view.json:
    the kernels of kernel_details.csv alone reproduce step_trace_time.csv (Preparing needs the
    host ProfilerStep, so it stays NULL)."""
    run = corpus_path("msinsight/test/st/level2")
    db = tmp_path / "t.duckdb"
    ingest_paths(db, run)
    checked = rows(db, "SELECT rank, step, matches_profiler FROM step_breakdown_check ORDER BY rank")
    assert checked == [(0, 13, True), (2, 13, True)]
    for rank in (0, 2):
        ref = next(csv.DictReader(open(run / f"rank_{rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv")))
        (got,) = rows(db, "SELECT computing_ns, communication_ns, free_ns, preparing_ns FROM step_breakdown "
                          "WHERE rank = ?", [rank])
        for value, col in zip(got[:3], ("Computing", "Communication", "Free")):
            assert abs(Decimal(value) - us_to_ns(ref[col])) <= 500
        assert got[3] is None
