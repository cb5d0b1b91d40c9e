"""msprof-analyze's rules beside tracedb's on a hand-made Kineto trace (issue 39, point 3).

The trace (µs; thread 1 = main, thread 2 = autograd engine; every launch has its ac2g flow):

    thread 1  aten::to [10, 40]          ## backward ## [50, 1000]                aten::add_ [1100, 1120]
                cudaMemcpyAsync 15 ──┐
    thread 2                  evaluate_function: ConvolutionBackward0 [60, 500]
                                ConvolutionBackward0 [61, 400]
                                  aten::convolution_backward [62, 390]
                                    aten::clone [63, 100] > aten::contiguous [64, 99] > aten::slice [65, 98]
                                      > aten::fill_ [66, 97]: cudaLaunchKernel 70 ──┐
                                    cudaLaunchKernel 300 (in aten::convolution_backward) ──┐
    stream 7  Memcpy HtoD [100, 120] ◄┘   elementwise [200, 210] ◄┘   wgrad [250, 280] ◄┘   add [1200, 1205]

Expected values are read off the drawing:
- the elementwise kernel is launched 4 ops below aten::convolution_backward: msprof-analyze books
  it under Conv (Backward) (Vector) through the outermost op of its Conv mask running at the launch
  (base_profiling_parser.categorize_computing_performance_data); today's main looked 3 ops up only
  and left it in Vector;
- msprof-analyze's op tree is one tree over both threads (tree_builder): the autograd thread's ops
  start inside "## backward ##", so its top level is aten::to, ## backward ##, aten::add_ (3 ops),
  where tracedb's per-thread top level has 4;
- its op device time counts the copy its flow links to aten::to (20 µs) and sums "## backward ##"
  over the autograd thread's kernels (10 + 30 µs).
"""
from __future__ import annotations

import json

import pytest

from conftest import ingest_paths, rows

BASE_NS = 1719000000000000000


def ev(cat, name, tid, ts, dur, pid=100, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def flow(fid, tid, ts, kernel_ts):
    return [{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": fid, "pid": 100, "tid": tid, "ts": ts},
            {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": fid, "pid": 0, "tid": 7, "ts": kernel_ts, "bp": "e"}]


def trace(with_flows: bool) -> list[dict]:
    events = [
        ev("user_annotation", "ProfilerStep#1", 1, 0.0, 2000.0),
        ev("cpu_op", "aten::to", 1, 10.0, 30.0),
        ev("cuda_runtime", "cudaMemcpyAsync", 1, 15.0, 5.0, correlation=1),
        ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 7, 100.0, 20.0, pid=0, correlation=1, stream=7,
           device=0, bytes=4096),
        ev("user_annotation", "## backward ##", 1, 50.0, 950.0),
        ev("cpu_op", "autograd::engine::evaluate_function: ConvolutionBackward0", 2, 60.0, 440.0),
        ev("cpu_op", "ConvolutionBackward0", 2, 61.0, 339.0),
        ev("cpu_op", "aten::convolution_backward", 2, 62.0, 328.0),
        ev("cpu_op", "aten::clone", 2, 63.0, 37.0),
        ev("cpu_op", "aten::contiguous", 2, 64.0, 35.0),
        ev("cpu_op", "aten::slice", 2, 65.0, 33.0),
        ev("cpu_op", "aten::fill_", 2, 66.0, 31.0),
        ev("cuda_runtime", "cudaLaunchKernel", 2, 70.0, 2.0, correlation=2),
        ev("kernel", "void at::native::vectorized_elementwise_kernel<4>", 7, 200.0, 10.0, pid=0, correlation=2,
           stream=7, device=0),
        ev("cuda_runtime", "cudaLaunchKernel", 2, 300.0, 3.0, correlation=3),
        ev("kernel", "cudnn::wgrad_alg0_engine", 7, 250.0, 30.0, pid=0, correlation=3, stream=7, device=0),
        ev("cpu_op", "aten::add_", 1, 1100.0, 20.0),
        ev("cuda_runtime", "cudaLaunchKernel", 1, 1105.0, 3.0, correlation=4),
        ev("kernel", "elementwise_add", 7, 1200.0, 5.0, pid=0, correlation=4, stream=7, device=0),
    ]
    if with_flows:
        events += flow(1, 1, 15.0, 100.0) + flow(2, 2, 70.0, 200.0) + flow(3, 2, 300.0, 250.0) \
            + flow(4, 1, 1105.0, 1200.0)
    return events


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("msprof_rules")
    out = tmp / "m.duckdb"
    for name, flows in (("flows", True), ("noflows", False)):
        (tmp / name).mkdir()
        f = tmp / name / "w.pt.trace.json"
        f.write_text(json.dumps({"schemaVersion": 1, "baseTimeNanoseconds": BASE_NS, "traceEvents": trace(flows)}))
        ingest_paths(out, f, run=name, role="baseline" if name == "flows" else "comparison")
    return out


def category(db, run, kernel):
    return rows(db, "SELECT category, sub_category, direction, msprof_category, msprof_sub_category, msprof_direction "
                    "FROM kernel_category WHERE run_name = ? AND name = ?", [run, kernel])[0]


def test_kernel_launched_deep_under_a_conv_backward_op_is_conv_backward(db):
    got = {m: (d, n) for m, d, n in rows(db, "SELECT metric, dur_ns, kernel_count FROM overall_summary "
                                             "WHERE run_name = 'flows' AND parent_metric = 'Conv (Backward)'")}
    assert got == {"Conv (Backward) (Cube)": (30_000, 1), "Conv (Backward) (Vector)": (10_000, 1)}
    # outermost Conv-mask op at the launch: aten::convolution_backward; bwd from "## backward ##"
    assert category(db, "flows", "void at::native::vectorized_elementwise_kernel<4>") == \
        ("Conv", "vector", "bwd", "Conv", "vector", "bwd")
    # launched by aten::convolution_backward itself; wgrad is a cube kernel name
    assert category(db, "flows", "cudnn::wgrad_alg0_engine") == ("Conv", "cube", "bwd", "Conv", "cube", "bwd")
    # no Conv op around the optimizer's add: Vector both ways
    assert category(db, "flows", "elementwise_add")[:2] == ("Vector", "vector")


def test_msprof_links_kineto_kernels_to_ops_only_through_flows(db):
    # without ac2g flows tracedb still links the launches by correlation id; msprof-analyze links
    # nothing, so its categories come from the kernel names alone
    assert category(db, "noflows", "void at::native::vectorized_elementwise_kernel<4>") == \
        ("Conv", "vector", "bwd", "Vector", "vector", None)
    assert category(db, "noflows", "cudnn::wgrad_alg0_engine")[3:5] == ("Cube", "cube")


def test_msprof_top_level_is_one_tree_over_all_threads(db):
    got = rows(db, "SELECT o.name, o.parent_op_id IS NULL, o.is_top_level_msprof, p.name FROM op AS o "
                   "JOIN run AS r USING (run_id) LEFT JOIN op AS p ON p.run_id = o.run_id AND p.op_id = o.msprof_parent_op_id "
                   "WHERE r.run_name = 'flows' ORDER BY o.ts_ns")
    assert got == [
        ("aten::to", True, True, None),
        ("## backward ##", True, True, None),
        ("autograd::engine::evaluate_function: ConvolutionBackward0", True, False, "## backward ##"),
        ("ConvolutionBackward0", False, False, "autograd::engine::evaluate_function: ConvolutionBackward0"),
        ("aten::convolution_backward", False, False, "ConvolutionBackward0"),
        ("aten::clone", False, False, "aten::convolution_backward"),
        ("aten::contiguous", False, False, "aten::clone"),
        ("aten::slice", False, False, "aten::contiguous"),
        ("aten::fill_", False, False, "aten::slice"),
        ("aten::add_", True, True, None),
    ]
    # compare_op carries both rules: 4 top-level ops per thread, 3 as msprof-analyze counts them
    assert rows(db, "SELECT count(*) FILTER (WHERE is_top), count(*) FILTER (WHERE is_top_msprof) "
                    "FROM tracedb_internal.compare_op JOIN run USING (run_id) WHERE run_name = 'flows'") == [(4, 3)]
    # api_diff: "## backward ##" (950 µs) has no child on its thread; in msprof-analyze's tree the
    # autograd thread's evaluate_function (440 µs) is its child: Self Time 510 µs there
    assert rows(db, "SELECT baseline_self_ns, baseline_msprof_self_ns FROM api_diff WHERE op_name = '## backward ##'") \
        == [(950_000, 510_000)]


def test_msprof_op_device_time_counts_linked_copies_and_the_cross_thread_subtree(db):
    got = rows(db, "SELECT o.name, o.device_total_ns, o.msprof_device_self_ns, o.msprof_device_total_ns, "
                   "o.msprof_kernel_total_count FROM op AS o JOIN run AS r USING (run_id) "
                   "WHERE r.run_name = 'flows' AND o.is_top_level_msprof ORDER BY o.ts_ns")
    assert got == [
        ("aten::to", 0, 20_000, 20_000, 1),              # the HtoD copy: 20 µs, not a kernel for tracedb
        ("## backward ##", 0, 0, 40_000, 2),             # elementwise 10 µs + wgrad 30 µs on thread 2
        ("aten::add_", 5_000, 5_000, 5_000, 1),
    ]
    # op_diff (no alignment stored: the top-level ops per thread) shows msprof-analyze's number beside
    got = {n: (t, m) for n, t, m in rows(db, "SELECT op_name, baseline_total_ns, baseline_msprof_total_ns FROM op_diff")}
    assert got["aten::to"] == (0, 20_000)
    assert got["autograd::engine::evaluate_function: ConvolutionBackward0"] == (40_000, 40_000)
    # without flows msprof-analyze attaches no task to any op
    assert rows(db, "SELECT sum(msprof_device_total_ns), sum(device_total_ns) > 0 FROM op JOIN run USING (run_id) "
                    "WHERE run_name = 'noflows'") == [(0, True)]
