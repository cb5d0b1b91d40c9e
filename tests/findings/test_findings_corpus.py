"""The summary and the report on real captures of the corpus, against numbers parsed here from the
raw files (json / csv), not from tracedb's tables.

* PyTorch Kineto ResNet-50, num_workers=0 (pytorch/kineto tb_plugin sample, PyTorch 1.9, V100):
  the data-loading share near 0.4 per step and the summary saying the steps are input-bound and why.
* The MindInsight MindSpore ResNet-50 capture with its minddata pipeline (step_trace_raw,
  pipeline_profiling; device_queue_profiling_0.txt from fixtures/mindspore/minddata, same
  repository): the summary says the steps are input-bound and names the producer op and its
  num_parallel_workers.
* The 2-rank NPU run (msinsight level1, ranks 0 and 1): the link matrix's colour scale is the real
  links' own range, from the profiler's communication_matrix.json; in headless Chromium its
  screenshot is kept as artifacts/report-comm-matrix.png (the CI artefact).
"""
from __future__ import annotations

import csv
import gzip
import json
import re
import shutil
from collections import defaultdict

import pytest
from typer.testing import CliRunner

from conftest import ROOT, corpus_path, ingest_paths
from minddata_micro import write_corpus_minddata
from tracedb import api
from tracedb.cli import app
from tracedb.findings.browser import find_browser

pytestmark = pytest.mark.corpus
runner = CliRunner()

RESNET = "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
MS = "mindinsight/tests/utils/resource/profiler"
NPU = "msinsight/test/data/pytorch/text/level1"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("findings_corpus")
    db = tmp / "c.duckdb"
    ingest_paths(db, corpus_path(RESNET), run="resnet_w0")
    ingest_paths(db, write_corpus_minddata(tmp / "ms" / "profiler"), run="mindspore")
    npu = corpus_path(NPU)
    ingest_paths(db, npu / "rank0_ascend_pt", npu / "rank1_ascend_pt", run="npu2025")
    return db


@pytest.fixture(scope="module")
def found(db) -> dict[tuple[str, str], dict]:
    res = runner.invoke(app, ["summary", "--db", str(db), "--format", "json"])
    assert res.exit_code == 0, res.stderr
    return {(f["run_name"], f["topic"]): f for f in json.loads(res.stdout)}


def test_resnet_num_workers_0_is_input_bound_and_why(found):
    """Per ProfilerStep, the one DataLoader fetch inside it over the step: 0.38 .. 0.42."""
    with gzip.open(corpus_path(RESNET)) as f:
        ev = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    steps = {int(e["name"].split("#")[1]): (e["ts"], e["ts"] + e["dur"]) for e in ev
             if e["name"].startswith("ProfilerStep#")}
    loaders = [e for e in ev if e["name"].startswith("enumerate(DataLoader)#_SingleProcessDataLoaderIter")]
    share = {n: sum(e["dur"] for e in loaders if s <= e["ts"] and e["ts"] + e["dur"] <= t) / (t - s)
             for n, (s, t) in steps.items()}
    assert sorted(share) == [5, 6, 7, 8, 9, 10] and all(0.38 < r < 0.42 for r in share.values())
    f = found[("resnet_w0", "input-bound")]
    lo, hi = round(100 * min(share.values())), round(100 * max(share.values()))
    assert f["finding"].startswith(f"Steps 5–10 are input-bound: the DataLoader takes {lo}–{hi} % of each step "
                                   f"(threshold 5 %) and runs in the training process (num_workers=0), so the device "
                                   f"waits while each batch is loaded")
    assert f["finding"].endswith(": use DataLoader workers (num_workers > 0).")
    assert f["number"] == pytest.approx(sum(share.values()) / 6, rel=1e-9)
    # the stream waits for the host, whose launch thread was in the DataLoader fetch
    idle = found[("resnet_w0", "idle stream")]["finding"]
    assert idle.startswith("Stream 7 idles ") and "waiting for the host" in idle
    assert "the launch thread was in enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ for " in idle
    # each step copies its batch from pageable memory: 2 cudaMemcpyAsync calls per step
    copies = [e for e in ev if e["name"] == "Memcpy HtoD (Pageable -> Device)"]
    per_step = sum(e["args"]["bytes"] for e in copies) / len(steps)
    assert found[("resnet_w0", "blocking call")]["finding"].startswith(
        f"Each step copies {per_step / 1e6:.1f} MB host → device from pageable memory in 2 cudaMemcpyAsync calls")


def test_mindspore_capture_names_the_producer_and_its_workers(found):
    """step_trace_raw_0: iteration intervals (10 ns ticks) of steps 2..20 above MindInsight's
    0.5 ms; pipeline_profiling_0.json: the source ImageFolderOp (op 3, 8 workers) is empty in the
    first sample with every queue after it."""
    with open(corpus_path(f"{MS}/step_trace_raw_0_detail_time.csv")) as f:
        steps = [r for r in csv.DictReader(f) if r["step_num"] != "-"]
    bound = [r for r in steps if int(r["iteration_interval"]) * 10 > 500_000]
    assert [int(r["step_num"]) for r in bound] == list(range(2, 21))
    wait = sum(int(r["iteration_interval"]) * 10 for r in bound) / len(bound)
    share = sum(int(r["iteration_interval"]) / int(r["total"]) for r in bound) / len(bound)
    pipeline = json.loads(corpus_path(f"{MS}/pipeline_profiling_0.json").read_text())
    source = next(o for o in pipeline["op_info"] if not o.get("children"))
    f = found[("mindspore", "input-bound")]["finding"]
    assert f.startswith(f"Steps 2–20 are input-bound: the device waits {wait / 1e6:.1f} ms ({100 * share:.0f} %) for "
                        f"each batch (threshold 0.50 ms); ")
    assert f.endswith(f"the dataset pipeline's {source['op_type']} (op {source['op_id']}) produces too slowly: raise "
                      f"its num_parallel_workers above {source['num_workers']}.")
    assert (source["op_type"], source["op_id"], source["num_workers"]) == ("ImageFolderOp", 3, 8)


def _profiler_links() -> dict[tuple[int, int], float]:
    """Bandwidth per link over the step's ops, from communication_matrix.json: Σ MB / Σ ms (GB/s)."""
    agg = defaultdict(lambda: [0.0, 0.0])
    for r in (0, 1):
        doc = json.loads((corpus_path(NPU) / f"rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/communication_matrix.json")
                         .read_text())
        for kinds in doc.values():
            for groups in kinds.values():
                for links in groups.values():
                    for key, v in links.items():
                        src, dst = map(int, key.split("-"))
                        agg[(src, dst)][0] += v["Transit Size(MB)"]
                        agg[(src, dst)][1] += v["Transit Time(ms)"]
    return {k: mb / ms for k, (mb, ms) in agg.items() if ms}


def _matrix(text: str) -> list[dict]:
    m = re.search(r'Plotly\.newPlot\(\s*"chart-comm_matrix",\s*(\[.*?\]),\s*\{', text, re.S)
    return json.loads(m.group(1))


@pytest.mark.process     # the PNGs: headless Chromium in a child process
def test_link_matrix_keeps_the_links_own_colour_range(db, tmp_path):
    """Self-links (~420 GB/s on-chip copies) out of the colour scale: it spans the real links
    (~15 GB/s) only; the self-links sit in a grey trace, their value on hover."""
    links = _profiler_links()
    real = [v for (s, d), v in links.items() if s != d]
    selfs = [v for (s, d), v in links.items() if s == d]
    assert max(real) < 17 < 400 < min(selfs)
    out = tmp_path / "npu.html"
    pngs = tmp_path / "png"
    browser = find_browser()
    api.report(out, db=db, run="npu2025", png=pngs if browser else None)
    trace, grey = _matrix(out.read_text())
    assert trace["zmin"] == pytest.approx(min(real), rel=5e-3) and trace["zmax"] == pytest.approx(max(real), rel=5e-3)
    assert sorted(v for row in grey["z"] for v in row if v is not None) == pytest.approx(sorted(selfs), rel=5e-3)
    assert "outside the colour scale" in grey["hovertemplate"]
    if browser is None:
        pytest.skip("no headless Chromium for the screenshot (apt-get install chromium)")
    artifacts = ROOT / "artifacts"
    artifacts.mkdir(exist_ok=True)
    shot = artifacts / "report-comm-matrix.png"
    shutil.copyfile(pngs / "comm_matrix.png", shot)
    assert shot.stat().st_size > 10_000
    print(f"\ncomm matrix screenshot: {shot}")
