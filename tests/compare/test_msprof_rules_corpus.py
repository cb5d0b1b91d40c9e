"""msprof-analyze's rules beside tracedb's on corpus captures (issue 39, point 3).

Expected numbers: msprof-analyze 26.2.0 (pip install msprof-analyze openpyxl into a throwaway venv;
CI does not run it), run by hand on 2026-11-28, read from its xlsx:

- OverallMetrics: ``msprof-analyze compare -d X -bp X --enable_profiling_compare -o OUT`` for the
  2024 torch_npu text and DB exports (msinsight-2024 .../level1/rank0_ascend_pt);
- OperatorCompare / OperatorCompareStatistic: ``msprof-analyze compare -d X -bp X
  --enable_operator_compare --disable_module -o OUT`` for the Kineto trace
  hta/tests/data/ns_resolution_trace (gunzipped: it refuses .gz); for the level1 text pair
  (rank 0 baseline, rank 1 comparison) the numbers of tests/compare/test_msprof_reference.py.
"""
from __future__ import annotations

import pytest

from conftest import corpus_path, ingest_paths, rows

pytestmark = pytest.mark.corpus

L1 = "msinsight/test/data/pytorch/text/level1"
OLD_TEXT = "msinsight-2024/test/data/pytorch/text/level1/rank0_ascend_pt"
OLD_DB = "msinsight-2024/test/data/pytorch/db/level1/rank0_ascend_pt"
NS_TRACE = "hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"


def close(ns, us) -> bool:
    return abs(ns / 1000 - us) <= max(1.0, 0.001 * abs(us))


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    out = tmp_path_factory.mktemp("msprof_rules") / "c.duckdb"
    ingest_paths(out, corpus_path(OLD_TEXT), run="old_text")
    ingest_paths(out, corpus_path(OLD_DB), run="old_db")
    ingest_paths(out, corpus_path(f"{L1}/rank0_ascend_pt"), run="r0", role="baseline")
    ingest_paths(out, corpus_path(f"{L1}/rank1_ascend_pt"), run="r1", role="comparison")
    ingest_paths(out, corpus_path(NS_TRACE), run="ns")
    return out


@pytest.mark.parametrize("run, ms", [("old_text", 1.510711), ("old_db", 1.602325)])
def test_conv_backward_by_the_outermost_conv_op_at_the_launch(db, run, ms):
    # OverallMetrics Conv (Backward): 63 kernels, all Cube (Ascend910A: every task AI_CORE). Three
    # of them (Slice99 and two TransData, 21.63 µs in the text export) are launched by Slice, 5 ops
    # below aten::convolution_backward: today's main looked 3 ops up and booked them as Cube (60).
    ((d, n),) = rows(db, "SELECT dur_ns, kernel_count FROM overall_summary "
                         "WHERE run_name = ? AND metric = 'Conv (Backward)'", [run])
    assert n == 63 and close(d, ms * 1000)
    ((md, mn),) = rows(db, "SELECT msprof_dur_ns, msprof_kernel_count FROM overall_summary "
                           "WHERE run_name = ? AND metric = 'Conv (Backward)'", [run])
    assert mn == 63 and close(md, ms * 1000)
    assert rows(db, "SELECT count(*) FROM kernel_category WHERE run_name = ? AND category = 'Conv' AND direction = 'bwd' "
                    "AND name IN ('Slice99', 'trans_TransData_188', 'trans_TransData_189')", [run]) == [(3,)]


def test_msprof_op_device_time_counts_the_memcpy_async_copies(db):
    # OperatorCompareStatistic rank 0 vs rank 1: aten::to base 0.844977 ms (its OperatorCompare
    # kernel details: MEMCPY_ASYNC 840.07675 µs and 2.30003125 µs, two Cast kernels 1.3200625 and
    # 1.28003125 µs); an op without copies is the same both ways (AccumulateGrad 106.246823 ms, 16;
    # op_diff names it by the comparison's spelling: the shipped op_name_map row, schema/027)
    got = {n: (t, m, c) for n, t, m, c in rows(
        db, "SELECT op_name, baseline_total_ns, baseline_msprof_total_ns, baseline_calls FROM op_diff")}
    t, m, c = got["aten::to"]
    assert close(t, 1.3200625 + 1.28003125) and close(m, 844.977)
    t, m, c = got["torch::autograd::AccumulateGrad"]
    assert c == 16 and close(t, 106246.823) and close(m, 106246.823)


def test_msprof_top_level_ops_of_a_trace_with_backward_annotations(db):
    # OperatorCompare: 26 rows, the 20 framework ops Optimizer.zero_grad#SGD.zero_grad, ## forward ##,
    # ## backward ##, ## optimizer ## per step (5 steps) and 6 CUDA runtime calls (cudaDeviceSynchronize,
    # 5 × cudaEventQuery: runtime events, not framework ops in tracedb). Per thread, tracedb has
    # 3 340 top-level ops: the autograd thread's ops run inside the main thread's "## backward ##".
    got = rows(db, "SELECT name FROM op JOIN run USING (run_id) WHERE run_name = 'ns' AND is_top_level_msprof "
                   "ORDER BY ts_ns")
    assert [r[0] for r in got] == ["Optimizer.zero_grad#SGD.zero_grad", "## forward ##", "## backward ##",
                                   "## optimizer ##"] * 5
    assert rows(db, "SELECT count(*) FILTER (WHERE is_top), count(*) FILTER (WHERE is_top_msprof) "
                    "FROM tracedb_internal.compare_op JOIN run USING (run_id) WHERE run_name = 'ns'") == [(3340, 20)]
    # OperatorCompare Device Duration (µs) of the first step's four ops, and
    # OperatorCompareStatistic Base Device Duration (ms) per name over the 5 steps
    first = rows(db, "SELECT msprof_device_total_ns FROM op JOIN run USING (run_id) WHERE run_name = 'ns' "
                     "AND is_top_level_msprof ORDER BY ts_ns LIMIT 4")
    assert all(close(g, w) for (g,), w in zip(first, [0, 30056.887, 63292.66, 1103.706]))
    total = dict(rows(db, "SELECT name, sum(msprof_device_total_ns) FROM op JOIN run USING (run_id) "
                          "WHERE run_name = 'ns' AND is_top_level_msprof GROUP BY name"))
    assert close(total["## forward ##"], 150350.18) and close(total["## backward ##"], 315986.024)
    assert close(total["## optimizer ##"], 5532.802) and total["Optimizer.zero_grad#SGD.zero_grad"] == 0
    # tracedb's per-thread total of "## backward ##" holds only the main thread's few kernels
    (bwd,), = rows(db, "SELECT sum(device_total_ns) FROM op JOIN run USING (run_id) WHERE run_name = 'ns' "
                       "AND name = '## backward ##'")
    assert bwd < 0.001 * total["## backward ##"]
