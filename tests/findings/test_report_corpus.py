"""tracedb report on corpus comparisons renders in headless Chromium, every chart drawn.

Issue #17's done-when: "`tracedb report` on a corpus comparison renders in headless Chromium with
every chart drawn and no console error; the screenshot is attached to the CI run's output".

* NPU↔NPU: the 2024 torch_npu capture (msinsight-2024 level1 rank 0, baseline) against the 2025
  capture (msinsight level1 ranks 0 and 1, comparison), roles set at ingest. Every chart whose
  view has rows draws (the rank × step heat map needs 2 steps); its screenshot is
  artifacts/report.png (the CI artefact).
* GPU↔NPU: the 2025 NPU run (baseline) against a Kineto trace (TraceLens BERT-small on one
  H100, comparison) by --baseline/--comparison. One GPU, no collective: the link matrix is
  skipped with its reason; the others draw. Screenshot: artifacts/report-gpu-npu.png.

The browser part skips without Chromium unless CI=1 or TRACEDB_REQUIRE_BROWSER=1.
"""
from __future__ import annotations

import html as htmllib
import json
import re

import pytest
from typer.testing import CliRunner

from conftest import ROOT, corpus_path, ingest_paths, rows
from test_report import _browser_or_skip, _plot_json
from tracedb.cli import app
from tracedb.findings.browser import run_browser
from tracedb.findings.charts import CHARTS

OLD = "msinsight-2024/test/data/pytorch/text/level1/rank0_ascend_pt"
NEW = "msinsight/test/data/pytorch/text/level1"
BERT = "tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz"
ALL = [spec.key for spec in CHARTS]
# drawn for the NPU comparison run (2 ranks × 1 step: no rank × step heat map; no annotated range;
# the hardware charts wait for their views)
NPU_DRAWN = ["overall_comparison", "op_diff", "step_stack", "input_bound", "idle_cause", "free_timeline", "fusion",
             "comm_matrix", "memory"]
NPU_MAYBE = {"rank_step_heatmap", "range_time", "shape_efficiency", "flops_heatmap"}

runner = CliRunner()
pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    old, new, bert = corpus_path(OLD), corpus_path(NEW), corpus_path(BERT)
    path = tmp_path_factory.mktemp("corpus_report") / "c.duckdb"
    ingest_paths(path, old, run="npu2024", role="baseline")
    ingest_paths(path, new / "rank0_ascend_pt", new / "rank1_ascend_pt", run="npu2025", role="comparison")
    ingest_paths(path, bert, run="gpu_bert")
    return path


def _report(db, out, *args) -> str:
    res = runner.invoke(app, ["report", "--db", str(db), "-o", str(out), *args])
    assert res.exit_code == 0, res.stderr
    return out.read_text()


def _render(out, browser) -> dict:
    """The page's status element after headless Chromium ran its scripts."""
    dom = run_browser(out.as_uri(), "--dump-dom", browser=browser)
    m = re.search(r'<div id="report-status"([^>]*)>', dom)
    assert m, "the page's status element is missing from the DOM"
    attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', m.group(1)))
    assert attrs["done"] == "1", attrs
    return attrs


def _screenshot(out, name, browser):
    artifacts = ROOT / "artifacts"
    artifacts.mkdir(exist_ok=True)
    shot = artifacts / name
    shot.unlink(missing_ok=True)
    run_browser(out.as_uri(), f"--screenshot={shot}", "--window-size=1280,5200", browser=browser)
    assert shot.stat().st_size > 20_000
    print(f"\nreport screenshot: {shot}")


@pytest.fixture(scope="module")
def npu_page(db, tmp_path_factory):
    out = tmp_path_factory.mktemp("npu_page") / "report.html"
    return out, _report(db, out)          # the pair and the chart run come from the roles


def test_npu_comparison_charts_carry_the_profilers_numbers(npu_page, db):
    out, text = npu_page
    assert "<h1>tracedb report: run npu2025</h1>" in text
    for key in NPU_DRAWN:
        assert f'id="chart-{key}"' in text, key
    skipped = set(re.findall(r"<section id='section-(\w+)'><h3>[^<]*</h3><div class='src'>from view <b>[^<]*</b></div>"
                             r"<p class='note'>chart skipped", text))
    assert skipped <= NPU_MAYBE and "rank_step_heatmap" in skipped
    # overall comparison bars: ms per rank, against each capture's own step_trace_time.csv (µs):
    # 2024 rank 0: Computing 9847.664, Communication(Not Overlapped) 66526.545, Free 7268.626,
    # Stage 83643.0; 2025 ranks 0 / 1: 8873.756 / 8878.295, 101963.203 / 96359.047,
    # 25744.050 / 26675.274, 136581.0 / 131912.5 (the comparison side is the mean of its ranks).
    base, comp = _plot_json(text, "overall_comparison")
    assert (base["name"], comp["name"]) == ("baseline npu2024", "comparison npu2025")
    got = {label: (b, c) for label, b, c in zip(base["y"], base["x"], comp["x"])}
    for label, b_us, c_us in (("Computing Time", 9847.664, (8873.756 + 8878.295) / 2),
                              ("Uncovered Communication Time", 66526.545, (101963.203 + 96359.047) / 2),
                              ("Free Time", 7268.626, (25744.050 + 26675.274) / 2),
                              ("E2E Time", 83643.0, (136581.0 + 131912.5) / 2)):
        assert got[label] == pytest.approx((b_us / 1000, c_us / 1000), abs=1e-3), label   # within 1 µs
    assert base["y"][-1] == "Computing Time" and base["y"][0] == "E2E Time"     # msprof's order, top down
    # op diff bars: op_diff_between's first row (in the view's own order) on top, its ns in ms
    top = rows(db, "SELECT op_type, baseline_total_ns, comparison_total_ns FROM op_diff_between('npu2024', 'npu2025') "
                   "LIMIT 1")[0]
    b, c = _plot_json(text, "op_diff")
    assert (b["y"][-1], b["x"][-1], c["x"][-1]) == (top[0], top[1] / 1e6, top[2] / 1e6)
    # the step stack: Stage of each 2025 rank (step_trace_time.csv, µs), within 1 µs; one step, so
    # no rank × step heat map (it needs 2 × 2)
    stack = _plot_json(text, "step_stack")
    assert [sum(t["y"][i] for t in stack) for i in range(2)] == pytest.approx([136.581, 131.9125], abs=1e-3)
    assert "chart skipped: 2 rank(s) × 1 step(s): a heat map needs at least 2 × 2" in text
    # the NPU output has no device capacity: the memory finding says so
    assert "the profiler output does not give the device&#x27;s capacity" in text


@pytest.mark.browser
def test_npu_comparison_renders_in_headless_chromium(npu_page):
    browser = _browser_or_skip()
    out, _ = npu_page
    attrs = _render(out, browser)
    assert json.loads(htmllib.unescape(attrs["errors"])) == []
    drawn = [k for k in ALL if f'id="chart-{k}"' in out.read_text()]
    assert attrs["drawn"].split(",") == [f"plot-{k}" for k in drawn] and set(NPU_DRAWN) <= set(drawn)
    assert int(attrs["charts"]) == len(drawn)
    _screenshot(out, "report.png", browser)


@pytest.mark.browser
def test_gpu_npu_comparison_renders_in_headless_chromium(db, tmp_path):
    out = tmp_path / "gpu.html"
    text = _report(db, out, "--baseline", "npu2025", "--comparison", "gpu_bert")
    assert "<h1>tracedb report: run gpu_bert</h1>" in text
    drawn = [k for k in ALL if f'id="chart-{k}"' in text]
    assert "chart skipped: comm_matrix has no row for this run" in text     # one GPU, no collective
    assert {"overall_comparison", "op_diff", "step_stack", "memory"} <= set(drawn)
    # the memory chart's peak line: Total Reserved of the trace's [memory] events on device 0 peaks at
    # 121634816 B (0.11 GiB); deviceProperties[0].totalGlobalMem = 85018279936 B (79.18 GiB): 0.1 %
    assert "memory_peak: 0.11 GiB (rank 0 PyTorch), 0.1 % of the device's 79.18 GiB" in text
    op_names = _plot_json(text, "op_diff")[0]["y"]
    assert op_names and "op_diff_between('npu2025', 'gpu_bert')" in htmllib.unescape(text)
    browser = _browser_or_skip()
    attrs = _render(out, browser)
    assert json.loads(htmllib.unescape(attrs["errors"])) == []
    assert attrs["drawn"].split(",") == [f"plot-{k}" for k in drawn]
    assert int(attrs["charts"]) == len(drawn)
    _screenshot(out, "report-gpu-npu.png", browser)
