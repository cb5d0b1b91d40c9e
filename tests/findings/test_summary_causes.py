"""tracedb summary around causes, on the hand-drawn micro runs (findings_micro: every number below
is read off its drawing) and the bundled level1 fixture pair (numbers from the profiler's own
step_trace_time.csv and trace_view.json, parsed here)."""
from __future__ import annotations

import json
import re
import shutil

import duckdb
import pytest
from typer.testing import CliRunner

import findings_micro as m
from conftest import FIXTURES, rows
from tracedb.cli import app
from tracedb.findings import compute_findings, host_findings, step_findings
from tracedb.findings.charts import CHARTS, Scope, draw
from tracedb.findings.summary import RUN_FINDINGS, Finding, render_text

runner = CliRunner()
PAIR = "level1 → level1_2024_rank0_ascend_pt"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return m.shared(tmp_path_factory)


@pytest.fixture(scope="module")
def listed(db) -> list[dict]:
    """The whole summary, once: tracedb summary --format json."""
    res = runner.invoke(app, ["summary", "--db", str(db), "--format", "json"])
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def found(listed) -> dict[tuple[str, str], dict]:
    return {(f["run_name"], f["topic"]): f for f in listed}


def test_input_bound_dataloader_says_why(found):
    f = found[("micro", "input-bound")]
    # DataLoader 400 of 1000 µs in both steps; device busy 4 + 260 + 4 × 2 = 272 µs of 1000
    assert f["finding"] == ("Steps 1–2 are input-bound: the DataLoader takes 40 % of each step (threshold 5 %) "
                            "and runs in the training process (num_workers=0), so the device waits while each "
                            "batch is loaded (busy 27 % of the step): use DataLoader workers (num_workers > 0).")
    assert f["cause"] == "input" and f["number"] == pytest.approx(0.4)
    assert f["threshold"] == "DataLoader share of the step above 5 %" and f["rule"] == "PyTorch TensorBoard profiler"
    assert f["fields"]["steps"] == [1, 2] and f["fields"]["dataloader_mode"] == "single_process"
    assert f["source"] == "tracedb query input_bound --run micro"


def test_input_bound_mindspore_names_the_producer(found):
    f = found[("ms", "input-bound")]
    # step 2: interval 100000 ticks = 1 ms of 2 ms; queue empty 2 of 3 batches; MapOp op 2, 1 worker
    assert f["finding"] == ("Step 2 is input-bound: the device waits 1.00 ms (50 %) for each batch (threshold "
                            "0.50 ms); the device queue was empty for 67 % of the batches (threshold 30 %); the "
                            "dataset pipeline's MapOp (op 2) produces too slowly: raise its num_parallel_workers "
                            "above 1.")
    assert (f["fields"]["producer_op_type"], f["fields"]["producer_worker_count"]) == ("MapOp", 1)
    cpu = found[("ms", "pipeline CPU")]["finding"]
    assert cpu == ("The dataset pipeline's MapOp (op 2) uses 90 % CPU per worker with 1 worker (above 75 %): "
                   "raise its num_parallel_workers.")


def test_idle_cause_names_the_launch_thread_call(found):
    f = found[("micro", "idle stream")]
    # idle 862 of 1406 µs (61 %), host wait 856 (99 %), the DataLoader fetch 400 µs of the 594 µs gap
    assert f["finding"] == ("Stream 7 idles 61 % of the capture (0.86 ms of 1.41 ms); 99 % of that is waiting for "
                            "the host (the next launch came after the stream went idle), and the launch thread was "
                            f"in {m.DL} for 0.40 ms of it.")
    assert f["fields"]["causes"] == {"host_wait": 856 * m.US, "kernel_wait": 6 * m.US}
    assert f["threshold"] == "kernel wait: a gap under 30 µs between back-to-back launches"


def test_fusion_sync_copy_and_dynamic_shapes(found):
    fusion = found[("micro", "fusion")]["finding"]
    # 4 fills per step, launches 4 × 8 µs → 24 µs saved, gaps 3 × 1 µs
    assert fusion.startswith("In Optimizer.zero_grad#SGD.zero_grad, stream 7 runs 4 short kernels per step one by "
                             "one, back to back (the first void at::native::vectorized_elementwise_kernel<4, ")
    assert "one kernel would save 24 µs of launches per step and 3 µs of gaps between them. Fix: " in fusion
    assert found[("micro", "blocking call")]["finding"] == (
        "Each step copies 10.0 MB host → device from pageable memory in 1 cudaMemcpyAsync call in aten::copy_, "
        "blocking the host 20 µs (2 % of the step): use pin_memory=True in the DataLoader and .to(device, "
        "non_blocking=True).")
    dyn = found[("micro", "dynamic shapes")]
    assert dyn["finding"].startswith("Dynamic shapes: 1 framework op (aten::mm) take inputs whose dims change from "
                                     "step to step (aten::mm: 2 shape sequences over 2 steps)")
    assert [o["name"] for o in dyn["fields"]["ops"]] == ["aten::mm"]   # the fills keep their shapes


def test_comparison_headline_first(listed):
    """step_trace_time.csv (µs): level1 Stage 136581.0 / 131912.5, Not Overlapped 101963.203 /
    96359.047; the 2024 capture Stage 83643.0, Not Overlapped 66526.545: 83.6 / 134.2 = 0.62×,
    exposed communication 99.2 → 66.5 ms (−32.6), the part that shrank most."""
    first = listed[0]
    assert (first["run_name"], first["topic"]) == (PAIR, "headline")
    assert first["finding"] == ("Comparison step = 0.62× baseline: 83.6 ms vs 134.2 ms per step (faster, beyond "
                                "MindInsight's ±20 %); exposed communication shrank most: −32.6 ms per step "
                                "(99.2 ms → 66.5 ms).")
    assert first["number"] == pytest.approx(83643.0 / ((136581.0 + 131912.5) / 2), abs=1e-5)


def test_summary_report_and_query_name_the_same_top_op(db, found):
    """One "top op" order: the summary, the report's op diff chart and `tracedb query op_diff
    --limit 1` all take op_diff's own order."""
    res = runner.invoke(app, ["query", "op_diff", "--db", str(db), "--limit", "1", "--format", "json"])
    (top,) = json.loads(res.stdout)
    first = found[(PAIR, "op diff")]
    con = duckdb.connect(str(db), read_only=True)
    try:
        chart = draw(con, next(s for s in CHARTS if s.key == "op_diff"),
                     Scope("level1_2024_rank0_ascend_pt", "level1", "level1_2024_rank0_ascend_pt"))
    finally:
        con.close()
    assert first["finding"].startswith(f"Top op of op_diff: {top['op_name']}, ")
    assert first["fields"]["op_name"] == top["op_name"]
    assert chart.figure.data[0].y[-1] == top["op_type"]        # the top bar (plotly draws the last y on top)


def test_comm_alignment_against_the_trace(found):
    """msprof-analyze's ByteAlignmentChecker on the trace_view.json of both ranks, parsed here:
    SDMA Memcpy / Reduce_Inline tasks not on chip, above 512 bytes, no multiple of 512."""
    bad, checked = [], 0.0
    for r in (0, 1):
        ev = json.loads((FIXTURES / f"ascend/level1/rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json")
                        .read_text())
        for e in ev:
            a = e.get("args") or {}
            if (a.get("transport type") == "SDMA" and a.get("link type") != "ON_CHIP"
                    and e["name"] in ("Memcpy", "Reduce_Inline") and int(a["size(Byte)"]) > 512):
                checked += e["dur"]
                if int(a["size(Byte)"]) % 512:
                    bad.append((e["dur"], int(a["size(Byte)"])))
    assert len(bad) == 8 and {b for _, b in bad} == {1937312, 1162496}
    f = found[("level1", "communication size")]["finding"]
    share = 100 * sum(d for d, _ in bad) / checked
    assert f.startswith(f"Communication sizes: 2 communication ops move 8 SDMA copies whose size is not a multiple "
                        f"of 512 bytes ({share:.1f} % of the checked copy time; e.g. ")
    assert f"{max(bad)[1]:,} bytes)" in f


def test_no_none_no_column_names_and_wrapped_at_words(listed):
    findings = [Finding(f["run_name"], f["topic"], f["finding"], f["source"], f["cause"], f["number"], f["threshold"],
                        f["rule"], f["fields"]) for f in listed]
    assert len(findings) >= 30
    columns = re.compile(r"\b[a-z]+(?:_[a-z]+)+_(?:ns|ratio|bytes|count|pct)\b")
    for f in findings:
        assert "None" not in f.text and not columns.search(f.text), f.text
    text = render_text(findings, 60)
    words = set(" ".join(f.text for f in findings).split())
    for line in text.splitlines():
        for word in line.split():
            assert word in words or not line.startswith("  ") or line.startswith("      "), word
        assert len(line) <= 60 or " " not in line.strip(), line


def _hardware_views(con):
    """Issue 41's views, as the findings expect their columns (not shipped yet: hand-made rows)."""
    con.execute("""CREATE TEMP VIEW shape_efficiency AS SELECT * FROM (VALUES
        ('micro', 0, 'op', 'aten::bmm', 'bmm', '[16,5185,64] x [16,64,5185]', 'fp16', 16, 5185, 5185, 64,
         NULL, NULL, 10, 229000000, 22900000, 'Tensor Core', 1, 8, 8, 'M,N', '', false, true, 5192, 5192, 64,
         NULL, NULL, 0.3, 0.21),
        ('micro', 0, 'op', 'aten::mm', 'mm', '[64,64] x [64,64]', 'fp16', NULL, 64, 64, 64, NULL, NULL, 10,
         300000000, 30000000, 'Tensor Core', 1, 8, 8, '', '', true, true, 64, 64, 64, NULL, NULL, 0.4, 0.3))
        AS t(run_name, rank, kind, name, family, operand_shapes, precision, batch, m, n, k, c_in, c_out, call_count,
             device_ns, avg_device_ns, matrix_unit, rule_id, required_multiple, efficient_multiple, misaligned_dims,
             inefficient_dims, aligned, aligned_efficient, padded_m, padded_n, padded_k, padded_c_in, padded_c_out,
             computing_ratio, e2e_ratio)""")
    con.execute("""CREATE TEMP VIEW precision_share AS SELECT * FROM (VALUES
        ('micro', 0, 1, 'Matmul', 'fp32', 2, 600, 0, 0.6), ('micro', 0, 1, 'Matmul', 'bf16', 1, 300, 300, 0.3),
        ('micro', 0, 1, 'Vector', 'fp32', 1, 100, 0, 0.1))
        AS t(run_name, rank, step, category, precision, kernel_count, device_ns, matrix_unit_ns, share_ratio)""")


def test_hardware_findings_only_where_their_views_exist(db, tmp_path):
    """A run whose kernels carry no shapes, precisions or FLOPs (the micro runs) gets none of the
    hardware findings (issue 41's views are there, empty for it); with rows they speak."""
    hardware = (compute_findings.misaligned_shape, compute_findings.precision_mix, compute_findings.flops)
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert [f(con, "micro") for f in hardware] == [None, None, None]
        _hardware_views(con)
        got = {f.topic: f for f in (f(con, "micro") for f in hardware) if f is not None}
    finally:
        con.close()
    assert got["matrix shape"].text == ("aten::bmm takes 229.0 ms in 10 calls (21 % of the E2E time) with M = 5185 "
                                        "and N = 5185, not a multiple of 8 for the Tensor Core at fp16: pad M to 5192, "
                                        "N to 5192 (operands [16,5185,64] x [16,64,5185]).")
    assert got["precision"].text.startswith("Precision mix of the compute kernels' time: fp32 70 %, bf16 30 %; "
                                            "30 % of it on the matrix unit")
    assert "flops" not in got


def test_slow_rank_cause_beside_the_victim(db, tmp_path):
    """Issue 39's slow_rank columns (cause_rank, cause_lateness_ns, arrived_last_count): the summary
    says which rank is the victim and which the cause."""
    copy = tmp_path / "c.duckdb"
    shutil.copyfile(db, copy)
    con = duckdb.connect(str(copy))
    try:
        con.execute("""CREATE TEMP VIEW slow_rank AS SELECT * FROM (VALUES
            ('level1', 50, 0, 136581000, 4668500, 'communication_not_overlapped', false, false,
             2802000, NULL, NULL, 0, NULL, 1, 3000000, 2),
            ('level1', 50, 1, 131912500, 0, 'computing', false, false, NULL, 500000, NULL, 3, 3000000, 1,
             3000000, 2)) AS t(run_name, step, rank, e2e_ns, behind_fastest_ns, slowest_part, msprof_slow_5pct,
             mindinsight_slow_20pct, communication_not_overlapped_excess_ns, computing_excess_ns, free_excess_ns,
             arrived_last_count, lateness_ns, cause_rank, cause_lateness_ns, rank_count)""")
        f = step_findings.slow_rank(con, "level1")
    finally:
        con.close()
    assert f.text.endswith("Rank 0 is the victim: the cause is rank 1, which arrived last at 3 collectives (the "
                           "others waited up to 3.00 ms for it; its slowest part is computing): look at rank 1 "
                           "first.")


def test_a_missing_view_or_threshold_skips_its_finding(db, tmp_path):
    copy = tmp_path / "c.duckdb"
    shutil.copyfile(db, copy)
    con = duckdb.connect(str(copy))
    try:
        con.execute("DROP VIEW fusion_candidate")
        con.execute("DELETE FROM diagnosis_threshold WHERE name = 'sync_copy.step_ratio'")
        assert host_findings.fusion(con, "micro") is None and host_findings.sync_copy(con, "micro") is None
        assert host_findings.idle_cause(con, "micro") is not None
    finally:
        con.close()
    assert len(RUN_FINDINGS) == 16


def test_csv_keeps_fields_as_json_text(db):
    res = runner.invoke(app, ["summary", "--db", str(db), "--run", "ms", "--format", "csv"])
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0] == "run_name,topic,cause,finding,number,threshold,rule,source,fields"
    assert rows(db, "SELECT value FROM diagnosis_threshold WHERE name = 'comm_alignment.base_size_bytes'") == [(512,)]
