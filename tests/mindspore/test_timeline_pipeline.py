"""MindSpore timeline_display (+ step_trace_point_info.json) and the MindData pipeline files.

Expected values are computed here from the JSON / CSV text with Python's json + Decimal (µs →
ns rounded half away from zero, the rule of tracedb.timeconv), or read off the files by hand."""
from __future__ import annotations

import json
import shutil
from decimal import ROUND_HALF_UP, Decimal

import pytest

from conftest import corpus_path, ingest_paths, rows
from tracedb.errors import InputError

RUN2 = "mindinsight/tests/utils/resource/run_2/normal_run/profiler"
RUN1_TIMELINE = "mindinsight/tests/utils/resource/run_1/normal_run/profiler/timeline_display_1.json"
PIPELINE = "mindinsight/tests/utils/resource/profiler/pipeline_profiling_0.json"
PIPELINE_CSV = "mindinsight/tests/utils/resource/profiler/minddata_pipeline_raw_0.csv"


def _ns(us) -> int:
    return int((Decimal(str(us)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _ops(path):
    """(start ns, end ns, fullname) of the device ops (records with args) of a timeline."""
    out = []
    for e in json.loads(path.read_text()):
        if e.get("ph") == "X" and isinstance(e.get("args"), dict):
            s = _ns(e["ts"])
            out.append((s, s + _ns(e["dur"]), e["args"].get("fullname")))
    return out


def _union(intervals) -> int:
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


@pytest.fixture
def run2_timeline_only(tmp_path):
    src = corpus_path(RUN2)
    d = tmp_path / "profiler"
    d.mkdir()
    for name in ("ascend_timeline_display_1.json", "step_trace_point_info.json"):
        shutil.copy(src / name, d / name)
    return d


@pytest.mark.corpus
def test_timeline_with_point_info_has_steps(run2_timeline_only, db_path):
    """One step, cut at the bp_end op Default/AssignAdd-op138; fp_start (EndOfSequence-op131)
    is not a device op of this timeline, so the step starts at the first device op."""
    ingest_paths(db_path, run2_timeline_only, run="ms")
    ops = _ops(run2_timeline_only / "ascend_timeline_display_1.json")
    assert len(ops) == 107
    assert rows(db_path, "SELECT count(*) FROM event") == [(112,)]
    assert rows(db_path, "SELECT count(*), count(DISTINCT step), min(step), count_if(is_communication) "
                         "FROM kernel WHERE source = 'mindspore_timeline'") == [(107, 1, 1, 0)]
    bp = [e for s, e, fn in ops if fn == "Default/AssignAdd-op138"]
    assert bp == [6066641210]                 # 6066639.729976654 µs + 1.48 µs
    start, end = min(s for s, _, _ in ops), max(e for _, e, _ in ops)
    assert rows(db_path, "SELECT rank, step, device_start_ns, device_end_ns, fp_ns, bp_ns FROM step") == [
        (1, 1, start, end, None, bp[0])]
    got = rows(db_path, "SELECT step, e2e_ns, computing_ns, free_ns, tail_ns, kernel_count FROM step_breakdown")
    computing = _union((s, e) for s, e, _ in ops)
    assert got == [(1, end - start, computing, end - start - computing, end - bp[0], 107)]


@pytest.mark.corpus
def test_timeline_beside_step_trace_raw(db_path):
    """The corpus folder also has step_trace_raw_1: the step keeps its step_trace_raw window and
    points; the timeline's kernels belong to that step."""
    ingest_paths(db_path, corpus_path(RUN2), run="ms")
    assert rows(db_path, "SELECT step, fp_ns, bp_ns FROM step") == [(1, 154907896068750, 154907919736830)]
    assert rows(db_path, "SELECT count(*), min(step), max(step) FROM kernel") == [(107, 1, 1)]


@pytest.mark.corpus
def test_old_timeline_display_without_points(db_path):
    """MindSpore 0.x timeline_display: device ops on pid 1 and the step trace's
    stream_{id}_parallel_0 lanes (11 streams x 322 steps) as communication; no steps without
    step_trace_point_info.json."""
    path = corpus_path(RUN1_TIMELINE)
    events = json.loads(path.read_text())
    lanes = sum(1 for e in events if str(e["name"]).startswith("stream_"))
    assert lanes == 11 * 322
    ingest_paths(db_path, path, run="ms1")
    assert rows(db_path, "SELECT count(*), count_if(is_communication), count(step) FROM kernel") == [
        (len(events), lanes, 0)]
    assert rows(db_path, "SELECT min(ts_ns) FROM kernel") == [(0,)]   # relative timeline


@pytest.mark.corpus
def test_point_info_list_form(tmp_path, db_path):
    d = tmp_path / "profiler"
    d.mkdir()
    shutil.copy(corpus_path(RUN2) / "ascend_timeline_display_1.json", d)
    (d / "step_trace_point_info.json").write_text(json.dumps(
        [{"fp_start": "Default/AssignAdd-op142", "bp_end": "Default/AssignAdd-op138"}, {"fp_start": "a", "bp_end": "b"}]))
    ingest_paths(db_path, d, run="ms")
    assert rows(db_path, "SELECT point_index, fp_start FROM step_point ORDER BY 1") == [
        (0, "Default/AssignAdd-op142"), (1, "a")]
    # fp_start found: step 1 starts at the first AssignAdd-op142 (6042909.559994936 µs)
    assert rows(db_path, "SELECT step, fp_ns FROM step") == [(1, 6042909560)]


@pytest.mark.corpus
def test_bad_point_info(tmp_path, db_path):
    d = tmp_path / "profiler"
    d.mkdir()
    shutil.copy(corpus_path(RUN2) / "ascend_timeline_display_1.json", d)
    (d / "step_trace_point_info.json").write_text('{"fp_start": "x"}')
    with pytest.raises(InputError, match="bp_end"):
        ingest_paths(db_path, d, run="ms")


@pytest.mark.corpus
def test_pipeline_profiling_wait_by_hand(db_path):
    """pipeline_profiling_0.json: EpochCtrlOp (root, no metrics) <- BatchOp (queue 64, sizes
    [0, 2]) <- MapOp <- MapOp <- ImageFolderOp (all sizes [0, 0]), every 10 ms. Sample 0: the
    device queue (BatchOp's) is empty and so is every queue down to the source, so the source
    ImageFolderOp is to blame; sample 1: 2 batches wait. Empty ratio 1/2 > 0.3."""
    path = corpus_path(PIPELINE)
    ingest_paths(db_path, path, run="md")
    assert rows(db_path, "SELECT op_id, parent_op_id, depth, count(sample) FROM data_pipeline "
                         "GROUP BY ALL ORDER BY op_id") == [(0, 4, 1, 2), (1, 0, 2, 2), (2, 1, 3, 2), (3, 2, 4, 2),
                                                           (4, None, 0, 0)]
    got = rows(db_path, "SELECT sample, sample_offset_ns, device_queue_op_type, device_queue_batch_count, "
                        "device_queue_capacity_count, device_waited, empty_queue_op_id, empty_queue_op_type, "
                        "queue_empty_ratio, data_pipeline_bound FROM data_pipeline_wait ORDER BY sample")
    assert got == [(0, 0, "BatchOp", 0, 64, True, 3, "ImageFolderOp", 0.5, True),
                   (1, 10_000_000, "BatchOp", 2, 64, False, None, None, 0.5, True)]


@pytest.mark.corpus
def test_pipeline_csv_and_json_read_once(db_path):
    """The corpus profiler/ folder holds both files for rank 0: only the JSON is read."""
    ingest_paths(db_path, corpus_path(PIPELINE).parent, run="md")
    assert rows(db_path, "SELECT DISTINCT source FROM data_pipeline") == [("pipeline_profiling",)]
    assert rows(db_path, "SELECT count(*) FROM source_file WHERE path LIKE '%minddata_pipeline_raw%'") == [(0,)]


@pytest.mark.corpus
def test_pipeline_csv(tmp_path, db_path):
    """minddata_pipeline_raw_0.csv (hand-made sizes [10, 20, 30]): Batch is the root (no
    samples), Shuffle feeds the device and is never empty."""
    src = tmp_path / "minddata_pipeline_raw_0.csv"
    shutil.copy(corpus_path(PIPELINE_CSV), src)
    ingest_paths(db_path, src, run="md")
    assert rows(db_path, "SELECT op_id, op_type, parent_op_id, children_op_ids, depth, list(queue_size ORDER BY sample) "
                         "FROM data_pipeline GROUP BY ALL ORDER BY op_id") == [
        (0, "Batch", None, [1], 0, [None]), (1, "Shuffle", 0, [2, 3], 1, [10, 20, 30]),
        (2, "TFReader", 1, None, 2, [10, 20, 30]), (3, "TFReader", 1, None, 2, [10, 20, 30])]
    assert rows(db_path, "SELECT count(*), count_if(device_waited), max(queue_empty_ratio), "
                         "any_value(device_queue_op_type) FROM data_pipeline_wait") == [(3, 0, 0.0, "Shuffle")]


def test_pipeline_json_without_op_info(tmp_path, db_path):
    src = tmp_path / "pipeline_profiling_0.json"
    src.write_text('{"sampling_interval": 10}')
    with pytest.raises(InputError, match="op_info"):
        ingest_paths(db_path, src)


@pytest.mark.corpus
def test_timeline_steps_do_not_depend_on_file_order(tmp_path):
    """The timeline's steps need two files (the timeline and step_trace_point_info.json), and a
    step_trace_raw beside them changes which steps win: every order gives the same tables."""
    from tests.ingest.test_order import snapshot

    folder = corpus_path(RUN2)
    timeline, point, raw = (folder / "ascend_timeline_display_1.json", folder / "step_trace_point_info.json",
                            folder / "step_trace_raw_1_detail_time.csv")
    orders = {"folder": [[folder]], "one by one": [[timeline], [point], [raw]],
              "reversed": [[raw], [point], [timeline]], "points first": [[point], [timeline, raw]]}
    snaps = {}
    for name, commands in orders.items():
        db = tmp_path / f"{name}.duckdb"
        for paths in commands:
            ingest_paths(db, *paths, run="r")
        snaps[name] = snapshot(db)
    first = snaps.pop("folder")
    assert first["step"] and first["kernel"]
    for name, snap in snaps.items():
        assert snap == first, name
