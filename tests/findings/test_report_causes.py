"""tracedb report by cause, on the hand-drawn micro run (findings_micro: the numbers below are read
off its drawing): a section per cause with its findings, then its charts, the SQL folded under each
chart; the input-bound, idle-cause and fusion charts; heat maps from 2 × 2; free_analysis's
longest-first order."""
from __future__ import annotations

import json
import re

import pytest

import findings_micro as m
from conftest import rows
from tracedb import api
from tracedb.findings import plots
from tracedb.findings.charts import Chart
from tracedb.findings.finding import CAUSES


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return m.shared(tmp_path_factory)


@pytest.fixture(scope="module")
def page(db, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "micro.html"
    rep = api.report(out, db=db, run="micro")
    return rep, out.read_text()


def _traces(text: str, key: str) -> list[dict]:
    match = re.search(r'Plotly\.newPlot\(\s*"chart-' + key + r'",\s*(\[.*?\]),\s*\{', text, re.S)
    assert match, key
    return json.loads(match.group(1))


def test_a_section_per_cause_findings_then_charts(page):
    rep, text = page
    order = [key for key, _ in CAUSES]
    shown = re.findall(r"<section class='cause' id='cause-(\w+)'>", text)
    assert shown == sorted(shown, key=order.index) and {"comparison", "step", "input", "idle", "host"} <= set(shown)
    for key in shown:
        section = text[text.index(f"id='cause-{key}'"):]
        section = section[:section.index("</section>\n")] if "</section>\n" in section else section
        charts = [c for c in rep.charts if c.cause == key]
        findings = [f for f in rep.findings if f.cause == key]
        if charts and findings:      # the findings come before the first chart of the section
            assert section.index("class='finding'") < section.index(f"id='section-{charts[0].key}'")
    # every chart's SQL is folded under it
    assert text.count("<details><summary>SQL</summary>") == len(rep.charts)
    assert "Steps 1–2 are input-bound" in text[text.index("id='cause-input'"):text.index("id='section-input_bound'")]
    nav = re.search(r"<nav>(.*?)</nav>", text).group(1)
    assert re.findall(r"href='#cause-(\w+)'", nav) == shown


def test_input_idle_and_fusion_charts_by_hand(page):
    _, text = page
    (bars,) = _traces(text, "input_bound")               # one rank: DataLoader 400 of 1000 µs per step
    assert bars["x"] == ["1", "2"] and bars["y"] == pytest.approx([40.0, 40.0])
    assert bars["marker"]["color"] == ["#e45756", "#e45756"]            # input-bound: red
    stacks = {t["name"].split(" (")[0]: t for t in _traces(text, "idle_cause")}
    assert stacks["host wait"]["x"] == pytest.approx([0.856]) and stacks["kernel wait"]["x"] == pytest.approx([0.006])
    saving, gaps = _traces(text, "fusion")                # 2 steps × (24 µs saved, 3 µs of gaps)
    assert saving["y"] == ["optimizer_elementwise · Optimizer.zero_grad#SGD.zero_grad · stream 7 · rank 0"]
    assert saving["x"] == pytest.approx([0.048]) and gaps["x"] == pytest.approx([0.006])
    # annotated ranges (Kineto user_annotation): a step projects to 405 → 811 µs, its kernels busy
    # 4 + 260 + 4 × 2 = 272 µs; zero_grad to 800 → 811 (11 µs), busy 8, twice
    host, proj, busy = _traces(text, "range_time")
    assert proj["y"] == ["user_annotation · Optimizer.zero_grad#SGD.zero_grad", "user_annotation · ProfilerStep#2",
                         "user_annotation · ProfilerStep#1"]                    # the largest on top
    assert host["x"] == pytest.approx([0.16, 1.0, 1.0]) and proj["x"] == pytest.approx([0.022, 0.406, 0.406])
    assert busy["x"] == pytest.approx([0.016, 0.272, 0.272])


def test_heat_maps_need_two_ranks_and_two_steps():
    draw = plots.rank_step_heatmap("e2e_ns", "ms")
    chart = Chart("h", "t", "v", "sql")
    one_step = [{"rank": r, "step": 1, "e2e_ns": 10} for r in (0, 1)]
    assert draw(chart, one_step, None, None) is None
    assert chart.note == "2 rank(s) × 1 step(s): a heat map needs at least 2 × 2 (the bars show these numbers)"
    grid = [{"rank": r, "step": s, "e2e_ns": 1_000_000 * (r + s)} for r in (0, 1) for s in (1, 2)]
    fig = draw(Chart("h", "t", "v", "sql"), grid, None, None)
    assert [list(row) for row in fig.data[0].z] == [[1.0, 2.0], [2.0, 3.0]]     # ms, rank rows × step columns


def test_free_analysis_lists_the_longest_interval_first(db):
    """msprof-analyze prints the longest free intervals; the free_analysis view lists them so."""
    got = rows(db, "SELECT rank, free_order, dur_ns FROM free_analysis WHERE run_name = 'level1'")
    for rank in (0, 1):
        mine = [(o, d) for r, o, d in got if r == rank]
        assert [o for o, _ in mine] == list(range(1, len(mine) + 1))
        assert [d for _, d in mine] == sorted((d for _, d in mine), reverse=True)
