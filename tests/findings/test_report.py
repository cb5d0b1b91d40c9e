"""tracedb report: the HTML page renders in headless Chromium with every chart drawn and no error.

The browser test skips when Chromium is absent, unless CI=1 or TRACEDB_REQUIRE_BROWSER=1 (then a
missing browser fails the test). The screenshot is kept at artifacts/report-fixture.png (printed);
the corpus comparison's (tests/test_report_corpus.py) is artifacts/report.png.
"""
from __future__ import annotations

import html as htmllib
import json
import os
import re

import pytest

from conftest import LEVEL1, LEVEL1_2024, ROOT, ingested, ingested_runs, rows
from tracedb import api
from tracedb.findings.browser import find_browser, run_browser

BASE, COMP = "level1", "level1_2024_rank0_ascend_pt"
# the charts the level1 fixture draws, in page order (by cause); the rank × step heat map needs 2 × 2
# (level1 has 2 ranks × 1 step), range_time an annotated range, the hardware charts their views
# shape_efficiency: the level1 fixture's MatMul / Conv kernels carry their shapes (issue 41)
DRAWN = ["overall_comparison", "op_diff", "step_stack", "input_bound", "idle_cause", "free_timeline", "fusion",
         "comm_matrix", "shape_efficiency", "memory"]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "r.duckdb"
    ingested_runs(path, (LEVEL1, {"role": "baseline"}), (LEVEL1_2024, {"role": "comparison"}))
    return path


@pytest.fixture(scope="module")
def page(db, tmp_path_factory):
    out = tmp_path_factory.mktemp("page") / "report.html"
    rep = api.report(out, db=db, run=BASE, baseline=BASE, comparison=COMP)
    return rep, out


def _plot_json(text: str, key: str) -> list:
    """The data traces plotly.js is given for chart ``key`` (the first argument after the div id)."""
    m = re.search(r'Plotly\.newPlot\(\s*"chart-' + key + r'",\s*(\[.*?\]),\s*\{', text, re.S)
    assert m, key
    return json.loads(m.group(1))


def test_every_chart_is_drawn_from_its_view(page, db):
    rep, out = page
    assert [c.key for c in rep.drawn] == DRAWN
    text = out.read_text()
    # offline: plotly.js is inside the page; outside it nothing is loaded from the network
    from plotly.offline import get_plotlyjs
    assert get_plotlyjs() in text
    ours = text.replace(get_plotlyjs(), "")
    assert "src=" not in ours and "http" not in ours.replace("http://www.w3.org", "")
    # the step stack: one bar per (rank, step) of step_breakdown, heights = its ns columns in ms
    expected = rows(db, "SELECT computing_ns, communication_not_overlapped_ns, free_ns FROM step_breakdown "
                        "WHERE run_name = ? ORDER BY rank, step", [BASE])
    traces = _plot_json(text, "step_stack")
    assert [t["name"] for t in traces] == ["computing", "exposed (uncovered) communication", "free"]
    for i, t in enumerate(traces):
        assert t["y"] == pytest.approx([r[i] / 1e6 for r in expected])
    # the link matrix: the fixture's comm_matrix bandwidth per link = Σ bytes / Σ ns; the real links in
    # the first trace (its colour scale), the self-links (on-chip copies) in the second, grey
    src, dst, gbps = rows(db, "SELECT src_rank, dst_rank, sum(transit_size_bytes) / sum(transit_ns) FROM comm_matrix "
                              "WHERE run_name = ? AND src_rank <> dst_rank GROUP BY ALL ORDER BY 3 DESC LIMIT 1",
                          [BASE])[0]
    links, selfs = _plot_json(text, "comm_matrix")
    assert links["z"][links["y"].index(str(src))][links["x"].index(str(dst))] == pytest.approx(gbps, abs=1e-4)
    assert all(links["z"][i][links["x"].index(y)] is None for i, y in enumerate(links["y"]))
    assert all(v is None for i, row in enumerate(selfs["z"]) for j, v in enumerate(row)
               if selfs["y"][i] != selfs["x"][j])
    # the free-time timeline: free_time's intervals of the one step, at their offset from the step start
    free = rows(db, "SELECT f.start_ns - b.step_start_ns, f.dur_ns FROM free_time f JOIN step_breakdown b "
                    "USING (run_name, rank, step) WHERE run_name = ? ORDER BY f.rank, f.start_ns", [BASE])
    bars = _plot_json(text, "free_timeline")[0]
    assert len(free) == 180 and len(bars["x"]) == 180
    assert bars["base"] == pytest.approx([b / 1e6 for b, _ in free])
    assert bars["x"] == pytest.approx([d / 1e6 for _, d in free])
    # a section per cause: its findings, then its charts
    assert text.index("id='cause-step'") < text.index("Step: mean") < text.index("section-step_stack")
    assert text.index("id='cause-cluster'") < text.index("Slowest rank:") < text.index("section-comm_matrix")
    # the SQL each chart was drawn from is folded under it
    assert ("<details><summary>SQL</summary><pre class='sql'>SELECT op_type, baseline_total_ns, comparison_total_ns, "
            "diff_total_ns, total_ratio FROM " + htmllib.escape("op_diff_between('level1', 'level1_2024_rank0_ascend_pt')")
            ) in text


def test_pair_from_roles_and_missing_folder(db, tmp_path):
    rep = api.report(tmp_path / "r.html", db=db, run=BASE)
    assert "op_diff" in [c.key for c in rep.drawn]       # the pair comes from the roles
    with pytest.raises(api.QueryError, match="does not exist"):
        api.report(tmp_path / "missing" / "r.html", db=db)
    assert not (tmp_path / "missing").exists()


def test_skipped_chart_says_why(tmp_path):
    """One run without roles: no op diff chart, and the page says why instead of drawing an empty one."""
    path = tmp_path / "one.duckdb"
    ingested(path, LEVEL1)
    rep = api.report(tmp_path / "r.html", db=path)
    skipped = {c.key: c.note for c in rep.charts if c.figure is None}
    assert list(skipped) == ["overall_comparison", "op_diff", "rank_step_heatmap", "range_time", "flops_heatmap"]
    assert all("baseline/comparison" in skipped[k] for k in ("overall_comparison", "op_diff"))
    assert skipped["rank_step_heatmap"] == ("2 rank(s) × 1 step(s): a heat map needs at least 2 × 2 (the bars show "
                                            "these numbers)")
    text = (tmp_path / "r.html").read_text()
    assert "chart skipped: no baseline/comparison pair" in text and 'id="chart-op_diff"' not in text


def _browser_or_skip() -> str:
    browser = find_browser()
    required = os.environ.get("CI") == "1" or os.environ.get("TRACEDB_REQUIRE_BROWSER") == "1"
    if browser is None:
        if required:
            pytest.fail("Chromium is required (CI=1 or TRACEDB_REQUIRE_BROWSER=1): apt-get install chromium")
        pytest.skip("no headless Chromium (apt-get install chromium)")
    return browser


@pytest.mark.browser
def test_report_renders_in_headless_chromium(page):
    browser = _browser_or_skip()
    rep, out = page
    dom = run_browser(out.as_uri(), "--dump-dom", browser=browser)
    m = re.search(r'<div id="report-status"([^>]*)>', dom)
    assert m, "the page's status element is missing from the DOM"
    attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', m.group(1)))
    assert attrs["done"] == "1", attrs
    assert json.loads(htmllib.unescape(attrs["errors"])) == []
    assert attrs["drawn"].split(",") == [f"plot-{c.key}" for c in rep.drawn]
    assert int(attrs["charts"]) == len(rep.drawn) == len(DRAWN)
    artifacts = ROOT / "artifacts"
    artifacts.mkdir(exist_ok=True)
    shot = artifacts / "report-fixture.png"      # report.png: the corpus comparison (test_report_corpus.py)
    shot.unlink(missing_ok=True)
    run_browser(out.as_uri(), f"--screenshot={shot}", "--window-size=1280,4000", browser=browser)
    assert shot.stat().st_size > 20_000
    print(f"\nreport screenshot: {shot}")


@pytest.mark.browser
def test_a_page_error_is_reported(tmp_path):
    """The status element catches a script error (so the check above can fail)."""
    browser = _browser_or_skip()
    from tracedb.findings.report import Report, render_html
    text = render_html(Report("x", []), embed_js=False).replace("</body>", "<script>undefinedFn();</script></body>")
    page = tmp_path / "bad.html"
    page.write_text(text)
    dom = run_browser(page.as_uri(), "--dump-dom", browser=browser)
    errors = re.search(r'data-errors="([^"]*)"', dom).group(1)
    assert "undefinedFn" in htmllib.unescape(errors)


@pytest.mark.browser
def test_png_writes_each_chart(db, tmp_path):
    browser = _browser_or_skip()
    import struct
    rep = api.report(tmp_path / "r.html", db=db, run=BASE, png=tmp_path / "png")
    assert browser
    files = sorted(p.name for p in (tmp_path / "png").iterdir())
    assert files == sorted(f"{c.key}.png" for c in rep.drawn)
    for name in files:
        head = (tmp_path / "png" / name).read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", head[16:24]) == (1000, 500)       # IHDR width, height
