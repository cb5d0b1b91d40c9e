"""temporal_breakdown and idle_time_hta on every Kineto trace of the corpus against
HolisticTraceAnalysis 0.6.1's own numbers, at exact ns.

How the HTA numbers were produced (the test does not need HTA): ``bench/anchor_hta.py``, i.e.
HolisticTraceAnalysis 0.6.1 (PyPI ``traceinsight==0.6.1``) in a throwaway venv, run with
``HTA_DISABLE_NS_ROUNDING=1`` (without it HTA ceils every start and floors every end to the µs),
one ``TraceAnalysis(trace_files={rank: file})`` per run (the two sampled ranks together), on copies
of the traces with every ts moved back by a whole number of µs (HTA reads ts as float64, whose
step at epoch-µs magnitudes is 0.25 µs; gaps and durations are unchanged by the shift, so tracedb
reads the original files here). Values are HTA's µs × 1000:

- HTA_TEMPORAL: ``get_temporal_breakdown()`` — idle_time, compute_time, non_compute_time,
  kernel_time (us) and the three *_pctg;
- HTA_TEMPORAL_INCLUDE_LAST_STEP: the same with ``TraceAnalysis(..., include_last_profiler_step=True)``;
- HTA_IDLE: ``get_idle_time_breakdown(ranks=[r])`` — per (stream, idle_category) the idle_time
  sum and the interval count, unrounded, as ``BreakdownAnalysis._analyze_idle_time_for_stream``
  returns them (its describe() ``count``; the public table rounds to 0.01 µs);
- HTA_PER_STEP: HTA has no per-step breakdown; HTA's own formula (``_get_idle_time_for_kernels``
  and the union of its COMPUTATION kernels) applied to the GPU events of each HTA ``iteration``
  (the ProfilerStep of the launching call; HTA gives the AMD trace's stream-0 kernels none).

HTA fails on the two traces without GPU events (IndexError / ValueError); tracedb has no row there.
"""
from __future__ import annotations

import pytest

from conftest import corpus_path, ingest_paths, rows

pytestmark = pytest.mark.corpus

TRACES = {
    "amd": ["hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"],
    "ddp": ["hta/tests/data/df_index_resolver/df_index_resolver.json.gz"],
    "h100": ["tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz"],
    "mi210": ["tracelens/tests/traces/mi210/gpu_only_trace/gpu_only_trace.json.gz"],
    "ns": ["hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"],
    "resnet": ["kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"],
    "resnet_2021": ["kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz"],
    "sampled": ["hta/tests/data/trace_filter/sampled_rank-0.json.gz",
                "hta/tests/data/trace_filter/sampled_rank-1.json.gz"],
    "a100_nodist": ["hta/tests/data/distributed_info_unavailable/distributed_info_not_found.json.gz"],
    "cpu_only": ["hta/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"],
}

HTA_TEMPORAL = {   # (run, rank): idle, compute, non-compute, kernel_time ns; idle, compute, non-compute pctg
    ("amd", 0): (8_762_845, 110_881, 38_161, 8_911_887, 98.33, 1.24, 0.43),
    ("ddp", 1): (643_612_000, 496_485_000, 256_572_000, 1_396_669_000, 46.08, 35.55, 18.37),
    ("h100", 0): (3_598_388, 307_197, 2_240, 3_907_825, 92.08, 7.86, 0.06),
    ("mi210", 0): (636_081, 5_343_422, 0, 5_979_503, 10.64, 89.36, 0.0),
    ("ns", 0): (6_452_701, 374_738_006, 3_443_756, 384_634_463, 1.68, 97.43, 0.9),
    ("resnet", 0): (327_463_000, 492_891_000, 10_140_000, 830_494_000, 39.43, 59.35, 1.22),
    ("resnet_2021", 0): (208_143_000, 504_477_000, 10_990_000, 723_610_000, 28.76, 69.72, 1.52),
    ("sampled", 0): (321_378_000, 106_252_000, 172_428_000, 600_058_000, 53.56, 17.71, 28.74),
    ("sampled", 1): (328_671_000, 135_548_000, 136_455_000, 600_674_000, 54.72, 22.57, 22.72),
}
HTA_TEMPORAL_INCLUDE_LAST_STEP = {   # (run, rank): idle, compute, non-compute, kernel_time ns
    ("amd", 0): (8_762_845, 110_881, 38_161, 8_911_887),
    ("ddp", 1): (732_352_000, 620_516_000, 380_097_000, 1_732_965_000),
    ("h100", 0): (3_598_388, 307_197, 2_240, 3_907_825),
    ("mi210", 0): (636_081, 5_343_422, 0, 5_979_503),
    ("ns", 0): (7_574_738, 468_153_602, 4_300_839, 480_029_179),
    ("resnet", 0): (392_919_000, 591_532_000, 12_026_000, 996_477_000),
    ("resnet_2021", 0): (263_654_000, 605_209_000, 13_148_000, 882_011_000),
    ("sampled", 0): (675_191_000, 210_320_000, 337_336_000, 1_222_847_000),
    ("sampled", 1): (651_136_000, 271_973_000, 308_077_000, 1_231_186_000),
}
HTA_IDLE = {   # (run, rank): [(stream, idle_category, idle_time ns, interval count)]
    ("amd", 0): [
        ("0", "host_wait", 8_762_845, 15),
        ("0", "other", 0, 0),
    ],
    ("ddp", 1): [
        ("7", "host_wait", 791_330_000, 8778),
        ("7", "kernel_wait", 16_727_000, 7304),
        ("7", "other", 73_829_000, 133),
        ("14", "host_wait", 933_139_000, 988),
        ("14", "kernel_wait", 5_568_000, 543),
        ("14", "other", 4_444_000, 84),
    ],
    ("h100", 0): [
        ("7", "host_wait", 3_598_388, 60),
        ("7", "other", 0, 0),
    ],
    ("mi210", 0): [
        ("0", "host_wait", 595_858, 18),
        ("0", "kernel_wait", 40_223, 543),
        ("0", "other", 0, 0),
    ],
    ("ns", 0): [
        ("7", "host_wait", 1_347_125, 47),
        ("7", "kernel_wait", 5_105_576, 4828),
        ("7", "other", 0, 0),
    ],
    ("resnet", 0): [
        ("7", "host_wait", 318_934_000, 1243),
        ("7", "kernel_wait", 8_529_000, 6336),
        ("7", "other", 0, 0),
    ],
    ("resnet_2021", 0): [
        ("7", "host_wait", 197_384_000, 808),
        ("7", "kernel_wait", 10_759_000, 6926),
        ("7", "other", 0, 0),
    ],
    ("sampled", 0): [
        ("7", "host_wait", 213_825_000, 82),
        ("7", "kernel_wait", 1_985_000, 196),
        ("7", "other", 261_740_000, 247),
        ("23", "host_wait", 596_037_000, 52),
        ("23", "kernel_wait", 70_000, 9),
        ("23", "other", 34_000, 1),
        ("25", "kernel_wait", 9_000, 1),
        ("25", "other", 47_865_000, 6),
        ("84", "host_wait", 148_934_000, 2),
        ("84", "kernel_wait", 6_000, 1),
        ("84", "other", 0, 0),
        ("203", "other", 0, 0),
    ],
    ("sampled", 1): [
        ("7", "host_wait", 156_827_000, 87),
        ("7", "kernel_wait", 1_816_000, 185),
        ("7", "other", 281_064_000, 228),
        ("23", "host_wait", 596_313_000, 52),
        ("23", "kernel_wait", 100_000, 10),
        ("23", "other", 0, 0),
        ("25", "kernel_wait", 9_000, 1),
        ("25", "other", 53_028_000, 6),
        ("84", "host_wait", 251_860_000, 2),
        ("84", "other", 23_247_000, 1),
        ("203", "other", 0, 0),
    ],
}
HTA_PER_STEP = {   # (run, rank, step): idle, compute, non-compute, kernel_time ns, GPU events
    ("ddp", 1, 2): (152_358_000, 124_235_000, 64_207_000, 340_800_000, 4458),
    ("ddp", 1, 3): (172_069_000, 124_096_000, 64_118_000, 360_283_000, 4458),
    ("ddp", 1, 4): (153_051_000, 123_957_000, 64_146_000, 341_154_000, 4458),
    ("ddp", 1, 5): (151_353_000, 124_197_000, 64_101_000, 339_651_000, 4458),
    ("h100", 0, 6): (3_598_388, 307_197, 2_240, 3_907_825, 61),
    ("ns", 0, 101): (3_093_100, 93_696_680, 873_115, 97_662_895, 1219),
    ("ns", 0, 102): (1_144_888, 93_734_470, 856_668, 95_736_026, 1219),
    ("ns", 0, 103): (1_110_425, 93_601_607, 857_755, 95_569_787, 1219),
    ("ns", 0, 104): (1_101_856, 93_705_249, 856_218, 95_663_323, 1219),
    ("resnet", 0, 5): (18_243_000, 98_598_000, 2_031_000, 118_872_000, 1516),
    ("resnet", 0, 6): (17_200_000, 98_570_000, 2_036_000, 117_806_000, 1516),
    ("resnet", 0, 7): (18_203_000, 98_596_000, 2_022_000, 118_821_000, 1516),
    ("resnet", 0, 8): (17_752_000, 98_623_000, 2_027_000, 118_402_000, 1516),
    ("resnet", 0, 9): (19_305_000, 98_504_000, 2_024_000, 119_833_000, 1516),
    ("resnet_2021", 0, 5): (17_364_000, 100_863_000, 2_017_000, 120_244_000, 1547),
    ("resnet_2021", 0, 6): (18_237_000, 100_576_000, 2_505_000, 121_318_000, 1547),
    ("resnet_2021", 0, 7): (8_736_000, 100_821_000, 2_180_000, 111_737_000, 1547),
    ("resnet_2021", 0, 8): (10_219_000, 101_109_000, 2_147_000, 113_475_000, 1547),
    ("resnet_2021", 0, 9): (13_111_000, 101_108_000, 2_141_000, 116_360_000, 1547),
    ("sampled", 0, 551): (321_378_000, 106_252_000, 172_428_000, 600_058_000, 602),
    ("sampled", 1, 551): (328_671_000, 135_548_000, 136_455_000, 600_674_000, 577),
}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hta_corpus")
    folders = []
    for run, files in TRACES.items():
        folder = tmp / run           # one folder per run: ingest names the run after it
        folder.mkdir()
        for rel in files:
            src = corpus_path(rel)
            (folder / src.name).symlink_to(src)
        folders.append(folder)
    d = tmp / "t.duckdb"
    ingest_paths(d, *folders, run_per_path=True)
    return d


def by_key(sql, db, n_key):
    return {tuple(r[:n_key]): tuple(r[n_key:]) for r in rows(db, sql)}


def test_hta_scope_equals_hta_temporal_breakdown(db):
    got = by_key("""SELECT run_name, rank, idle_ns, compute_ns, non_compute_ns, kernel_time_ns,
                           round(100 * idle_ratio, 2), round(100 * compute_ratio, 2), round(100 * non_compute_ratio, 2)
                    FROM temporal_breakdown WHERE scope = 'hta'""", db, 2)
    assert got == HTA_TEMPORAL


def test_idle_time_hta_equals_hta_idle_time_breakdown(db):
    got = {}
    for run, rank, *row in rows(db, "SELECT run_name, rank, stream_id, cause, idle_ns, interval_count "
                                    "FROM idle_time_hta ORDER BY ALL"):
        got.setdefault((run, rank), []).append(tuple(row))
    assert got == {k: sorted(v) for k, v in HTA_IDLE.items()}


def test_step_scope_equals_htas_rule_per_step(db):
    got = by_key("""SELECT run_name, rank, step, idle_ns, compute_ns, non_compute_ns, kernel_time_ns, event_count
                    FROM temporal_breakdown WHERE scope = 'step'""", db, 3)
    assert {k: got[k] for k in HTA_PER_STEP} == HTA_PER_STEP
    # the last step, which HTA drops, is there too; mi210 has no steps
    assert {k[:2] for k in got} == {k for k in HTA_TEMPORAL if k[0] != "mi210"}
    assert rows(db, "SELECT DISTINCT window_source FROM temporal_breakdown WHERE scope = 'step'") == [("launch",)]


def test_capture_scope_is_the_whole_capture(db):
    """The capture row counts every kernel, the last step's too: HTA with
    include_last_profiler_step=True gives the same numbers, except on resnet_2021, whose 733
    kernels at the start of the capture have no launch call in the trace (HTA drops them)."""
    got = by_key("SELECT run_name, rank, idle_ns, compute_ns, non_compute_ns, kernel_time_ns "
                 "FROM temporal_breakdown WHERE scope = 'capture'", db, 2)
    expected = dict(HTA_TEMPORAL_INCLUDE_LAST_STEP)
    expected[("resnet_2021", 0)] = (274_446_000, 640_354_000, 13_173_000, 927_973_000)
    assert got == expected
    assert rows(db, "SELECT count(*) FROM kernel JOIN run USING (run_id) "
                    "WHERE run_name = 'resnet_2021' AND launch_name IS NULL") == [(733,)]
    # and it is capture_breakdown's whole capture
    assert rows(db, """SELECT count(*) FROM temporal_breakdown AS t JOIN capture_breakdown AS c USING (run_name, rank)
                       WHERE t.scope = 'capture' AND (t.idle_ns, t.compute_ns, t.kernel_time_ns)
                             <> (c.free_excl_copy_ns, c.computing_ns, c.e2e_ns)""") == [(0,)]


def test_both_numbers_on_one_capture(db):
    """ns trace: HTA's window stops at the cut (ProfilerStep#105's host start); the capture goes
    on to the last kernel of step 105. Same rules, different windows."""
    got = rows(db, "SELECT scope, idle_ns, kernel_time_ns, event_count, window_source FROM temporal_breakdown "
                   "WHERE run_name = 'ns' AND scope <> 'step' ORDER BY scope")
    assert got == [("capture", 7_574_738, 480_029_179, 6095, "all_events"),
                   ("hta", 6_452_701, 384_634_463, 4876, "launch_before_last_host_step")]
    # idle_time's whole-capture rows against HTA's: the last step's gaps make the difference
    assert rows(db, "SELECT cause, idle_ns, interval_count FROM idle_time WHERE run_name = 'ns' AND step IS NULL "
                    "ORDER BY cause") == [("host_wait", 1_347_125, 47), ("kernel_wait", 6_227_613, 6047)]


def test_no_rows_where_hta_finds_no_gpu_event(db):
    assert rows(db, "SELECT count(*) FROM temporal_breakdown WHERE run_name IN ('a100_nodist', 'cpu_only')") == [(0,)]
    assert rows(db, "SELECT count(*) FROM idle_time_hta WHERE run_name IN ('a100_nodist', 'cpu_only')") == [(0,)]


def test_zero_length_gaps_on_a_corpus_trace(db):
    """resnet (whole-µs trace): 150 kernels start at the µs their predecessor ends. HTA counts them
    (6336 kernel waits), tracedb does not (6186); the kernel-wait time is the same."""
    assert rows(db, "SELECT interval_count, zero_interval_count, idle_ns, tracedb_interval_count, tracedb_idle_ns "
                    "FROM idle_time_hta WHERE run_name = 'resnet' AND cause = 'kernel_wait'") == \
        [(6336, 150, 8_529_000, 6186, 8_529_000)]
