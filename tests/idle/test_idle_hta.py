"""The idle views on corpus Kineto traces against HolisticTraceAnalysis's own numbers.

How the HTA numbers were produced (CI does not run HTA): HolisticTraceAnalysis 0.5.0 from PyPI in
a throwaway venv, ``TraceAnalysis(trace_files={rank: file})``, run with
``HTA_DISABLE_NS_ROUNDING=1`` so that HTA applies its rules to the trace's own values instead of
whole µs; unrounded sums were read from ``BreakdownAnalysis._analyze_idle_time_for_stream`` (the
public output rounds to 0.01 µs), ``get_cuda_kernel_launch_stats`` (sums of cpu_duration /
launch_delay, counts above its cutoffs 50 / 100 µs), ``get_queue_length_summary``,
``get_memory_bw_summary`` and ``get_gpu_kernel_breakdown(include_memory_kernels=True,
num_kernels=100000, duration_ratio=1.0)``. HTA parses timestamps as float64, which has a 0.25 µs
step at epoch-µs magnitudes (1.7e15): the ns-resolution and AMD traces were therefore given to HTA
(and are given to tracedb here) with every ts moved back by a whole number of µs, exactly, so that
both read the same values. HTA drops the last ProfilerStep (kernels launched after its start); the
tracedb side is the sum of the step rows before the last step, and the last step is checked to be
there too.

HTA as shipped (µs rounding) on the unshifted ns-resolution trace: host_wait 1709 µs, kernel_wait
8404 µs, launch cpu_duration Σ 192088 µs — against the exact 1347.125, 5105.576 and 195772.848 µs
below (+27 %, +65 %, −1.9 %).
"""
from __future__ import annotations

import gzip
import json
from decimal import Decimal

import pytest

from conftest import corpus_path, ingest_paths, rows

pytestmark = pytest.mark.corpus          # every test reads ../shared/corpus

HTA_LAUNCH_NAMES = "('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cudaMemcpyAsync', 'cudaMemsetAsync')"


def shifted(src, dst, offset_us: int):
    """A copy of a Kineto trace with every ts moved back by offset_us, in exact decimal text."""
    doc = json.load(gzip.open(src, "rt"), parse_float=Decimal)
    for e in doc["traceEvents"]:
        if "ts" in e:
            e["ts"] = Decimal(str(e["ts"])) - offset_us

    class Exact(json.JSONEncoder):
        def default(self, o):
            if isinstance(o, Decimal):
                return float(o)       # values below 1e6 µs with 3 decimals print exactly
            return super().default(o)

    with gzip.open(dst, "wt") as f:
        json.dump(doc, f, cls=Exact)
    return dst


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hta")
    d = tmp / "t.duckdb"
    ingest_paths(d, corpus_path("hta/tests/data/trace_filter/sampled_rank-0.json.gz"),
                 corpus_path("hta/tests/data/trace_filter/sampled_rank-1.json.gz"), run="sampled")
    ingest_paths(d, shifted(corpus_path("hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"),
                            tmp / "ns.pt.trace.json.gz", 1712195495000000), run="ns")
    ingest_paths(d, shifted(corpus_path("hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"),
                            tmp / "amd.pt.trace.json.gz", 4203669000000), run="amd")
    ingest_paths(d, corpus_path("kineto/tb_plugin/samples/resnet50_num_workers_0/"
                                "worker0.1623143089861.pt.trace.json.gz"), run="resnet")
    return d


BEFORE_LAST = """(SELECT r.run_name, s.rank, max(s.step) AS last_step FROM step AS s JOIN run AS r USING (run_id)
                  GROUP BY ALL) AS l"""


def test_idle_time_equals_hta_without_its_last_step(db):
    got = rows(db, f"""SELECT run_name, i.rank, stream_id, cause, sum(idle_ns), sum(interval_count)
                       FROM idle_time AS i JOIN {BEFORE_LAST} USING (run_name, rank)
                       WHERE i.step < l.last_step GROUP BY ALL ORDER BY ALL""")
    us = 1000
    assert got == [
        ("amd", 0, "0", "host_wait", 8_762_845, 15),                        # HTA 8762.845 µs
        ("ns", 0, "7", "host_wait", 1_347_125, 47),                         # HTA 1347.125, 47 intervals
        ("ns", 0, "7", "kernel_wait", 5_105_576, 4828),                     # HTA 5105.576, 4828
        ("resnet", 0, "7", "host_wait", 318_934 * us, 1243),                # HTA 318934
        ("resnet", 0, "7", "kernel_wait", 8_529 * us, 6186),                # HTA 8529
        ("sampled", 0, "23", "host_wait", 596_037 * us, 52),                # HTA rank 0: stream 23
        ("sampled", 0, "23", "kernel_wait", 70 * us, 9),
        ("sampled", 0, "23", "other", 34 * us, 1),
        ("sampled", 0, "25", "kernel_wait", 9 * us, 1),                     # stream 25: copies only
        ("sampled", 0, "25", "other", 47_865 * us, 6),
        ("sampled", 0, "7", "host_wait", 213_825 * us, 82),
        ("sampled", 0, "7", "kernel_wait", 1_985 * us, 196),
        ("sampled", 0, "7", "other", 261_740 * us, 247),
        ("sampled", 0, "84", "host_wait", 148_934 * us, 2),
        ("sampled", 0, "84", "kernel_wait", 6 * us, 1),
        ("sampled", 1, "23", "host_wait", 596_313 * us, 52),                # HTA rank 1
        ("sampled", 1, "23", "kernel_wait", 100 * us, 10),
        ("sampled", 1, "25", "kernel_wait", 9 * us, 1),
        ("sampled", 1, "25", "other", 53_028 * us, 6),
        ("sampled", 1, "7", "host_wait", 156_827 * us, 87),
        ("sampled", 1, "7", "kernel_wait", 1_816 * us, 185),
        ("sampled", 1, "7", "other", 281_064 * us, 228),
        ("sampled", 1, "84", "host_wait", 251_860 * us, 2),
        ("sampled", 1, "84", "other", 23_247 * us, 1),
    ]


def test_the_last_step_hta_drops_is_kept(db):
    got = rows(db, f"""SELECT DISTINCT run_name, i.rank FROM idle_time AS i JOIN {BEFORE_LAST} USING (run_name, rank)
                       WHERE i.step = l.last_step AND idle_ns > 0 ORDER BY ALL""")
    # the AMD trace's last step (2) has no kernels; every other last step has idle time
    assert got == [("ns", 0), ("resnet", 0), ("sampled", 0), ("sampled", 1)]
    # the capture rows (step NULL) hold every gap, last step included
    assert rows(db, "SELECT sum(idle_ns) FILTER (WHERE step IS NULL) = sum(idle_ns) FILTER (WHERE step IS NOT NULL) "
                    "FROM idle_time") == [(True,)]


def test_kernel_launch_equals_hta(db):
    got = rows(db, f"""SELECT run_name, k.rank, count(*), sum(launch_dur_ns), sum(hta_launch_delay_ns),
                              count_if(launch_dur_ns > 50000), count_if(hta_launch_delay_ns > 100000),
                              count_if(launch_dur_ns <= 50000 AND kernel_dur_ns < launch_dur_ns)
                       FROM kernel_launch AS k JOIN {BEFORE_LAST} USING (run_name, rank)
                       WHERE k.step < l.last_step AND launch_name IN {HTA_LAUNCH_NAMES}
                       GROUP BY ALL ORDER BY ALL""")
    # HTA: kernels, Σ cpu_duration, Σ launch_delay, runtime outliers (> 50 µs), launch delay
    # outliers (> 100 µs), short kernels
    assert got == [
        ("ns", 0, 4876, 195_772_848, 322_049_145_035, 675, 4713, 2186),
        ("resnet", 0, 7580, 83_728_000, 81_929_231_000, 5, 6048, 4788),
        ("sampled", 0, 602, 5_109_000, 9_880_122_000, 0, 469, 140),
        ("sampled", 1, 577, 4_988_000, 9_761_662_000, 0, 442, 140),
    ]
    # kernel_launch_stats counts the same outliers per step (all launch calls, not only HTA's four)
    assert rows(db, "SELECT sum(launch_delay_outlier_count) FROM kernel_launch_stats "
                    "WHERE run_name = 'ns' AND step < 105") == [(4713,)]


def test_amd_launches_found_where_hta_finds_none(db):
    # HTA's get_cuda_kernel_launch_stats returns 0 rows on this trace (it looks for cuda* names only)
    assert rows(db, "SELECT launch_name, count(*) FROM kernel_launch WHERE run_name = 'amd' GROUP BY ALL ORDER BY 1") == \
        [("hipExtModuleLaunchKernel", 2), ("hipLaunchKernel", 12), ("hipMemcpyWithStream", 2)]
    assert rows(db, "SELECT step, kernel_count FROM kernel_launch_stats WHERE run_name = 'amd' ORDER BY step NULLS LAST") == \
        [(1, 16), (None, 16)]


def test_queue_length_equals_hta(db):
    got = rows(db, f"""SELECT run_name, q.rank, stream_id, sum(point_count), sum(queued_point_total_count),
                              max(max_queued_count)
                       FROM queue_length_summary AS q JOIN {BEFORE_LAST} USING (run_name, rank)
                       WHERE q.step < l.last_step AND run_name IN ('sampled', 'amd') GROUP BY ALL ORDER BY ALL""")
    # HTA count, mean (× count), max per stream
    assert got == [
        ("amd", 0, "0", 32, 16, 1),
        ("sampled", 0, "203", 2, 1, 1), ("sampled", 0, "23", 126, 75, 4), ("sampled", 0, "25", 16, 64, 8),
        ("sampled", 0, "7", 1052, round(23.619771863117872 * 1052), 76), ("sampled", 0, "84", 8, 4, 1),
        ("sampled", 1, "203", 2, 1, 1), ("sampled", 1, "23", 126, 69, 2), ("sampled", 1, "25", 16, 64, 8),
        ("sampled", 1, "7", 1002, round(24.66566866267465 * 1002), 75), ("sampled", 1, "84", 8, 4, 1),
    ]
    # ns trace: HTA's mean 812.4114027891715 over 9752 points is lower than the real queue because
    # HTA drops the last step's launches, which come while step 104's kernels are still queued;
    # the same points counted without them give HTA's number exactly
    (hta_like, ours, top), = rows(db, """
        WITH p AS (SELECT sum(CASE WHEN event = 'launch' THEN 1 ELSE -1 END)
                              OVER (ORDER BY ts_ns, event, kernel_id) AS without_last_step, queued_count
                   FROM queue_length WHERE run_name = 'ns' AND step < 105)
        SELECT avg(without_last_step), avg(queued_count), max(without_last_step) FROM p""")
    assert hta_like == pytest.approx(812.4114027891715, rel=1e-12) and top == 1022
    assert ours > hta_like
    # resnet (whole µs): the same 15160 points and maximum 567; the mean depends on the order of
    # points at the same µs (HTA's sort is not stable: 153.62994722955145)
    assert rows(db, "SELECT sum(point_count), max(max_queued_count) FROM queue_length_summary "
                    "WHERE run_name = 'resnet' AND step < 10") == [(15160, 567)]


def test_copy_bandwidth_equals_hta(db):
    got = rows(db, """SELECT copy_kind, sum(copy_count), min(min_copy_gbps), max(max_copy_gbps),
                             sum(mean_copy_gbps * copy_count) / sum(copy_count)
                      FROM copy_bandwidth WHERE run_name = 'ns' AND step < 105 GROUP BY ALL ORDER BY 1""")
    # HTA get_memory_bw_summary: Memcpy DtoD count 1280, mean 33.20881210558923, min 0.005,
    # max 405.7052297939778; Memset count 116, mean 257.8142478931765, min 0.0754716..., max 904.638...
    # (these copies never overlap, so HTA's summed series is each copy's own bandwidth)
    assert [g[:2] for g in got] == [("DtoD", 1280), ("Memset", 116)]
    assert got[0][2:] == pytest.approx((0.005, 405.7052297939778, 33.20881210558923), rel=1e-12)
    assert got[1][2:] == pytest.approx((0.07547169811320754, 904.638036809816, 257.8142478931765), rel=1e-12)
    # whole-µs traces: HTA reads Kineto's own "memory bandwidth (GB/s)", computed from the duration
    # before it was rounded to the µs the file shows; tracedb divides by the written duration
    # (sampled rank 0 DtoD: HTA max 960.23 GB/s, bytes / written dur 986.90 GB/s)
    assert rows(db, "SELECT round(max(max_copy_gbps), 2) FROM copy_bandwidth WHERE run_name = 'sampled' "
                    "AND rank = 0 AND copy_kind = 'DtoD' AND step = 551") == [(986.9,)]


def test_kernel_stats_equals_hta(db):
    # AMD (one step with kernels; HTA drops the empty last step): Memcpy HtoD sum 38.161, max
    # 22.441, min 15.72, std 4.752464676354785 µs
    assert rows(db, "SELECT kernel_type, call_count, total_ns, max_ns, min_ns, std_ns FROM kernel_stats "
                    "WHERE run_name = 'amd' AND step IS NULL AND kernel_name LIKE 'Memcpy HtoD%'") == \
        [("MEMORY", 2, 38161, 22441, 15720, 4752)]
    # ns: HTA "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, ..." sum 20135.974,
    # max 812.187, min 241.535 µs over steps 101-104
    assert rows(db, "SELECT sum(total_ns), max(max_ns), min(min_ns) FROM kernel_stats WHERE run_name = 'ns' "
                    "AND step < 105 AND kernel_name LIKE 'void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128,%'") == \
        [(20_135_974, 812_187, 241_535)]
