"""overall_summary against msprof-analyze's OverallMetrics on every corpus capture it reads, with
its own numbers beside tracedb's where the two deliberately differ (issue 39; docs/msprof-analyze.md).

Expected numbers: msprof-analyze 26.2.0 (pip install msprof-analyze openpyxl into a throwaway venv;
CI does not run it), run by hand on 2026-11-28 for each capture against itself:

    msprof-analyze compare -d CAPTURE -bp CAPTURE --enable_profiling_compare -o OUT --force

and read from OUT/performance_comparison_result_*.xlsx, sheet OverallMetrics (base side: Index
without its indentation, Duration(ms) rounded to 6 decimals, Number; None where it prints "/").
Kineto captures were gunzipped first (it refuses .gz). Mem Usage rows are left out (tested in
test_overall_msprof.py). msprof-analyze refuses the corpus traces without kernel running data it
can read (hta cpu_only, amd_trace, distributed_info_unavailable, tracelens mi210), and reads no
MindSpore or Nsight input: those have no reference here.

A value agrees within max(1 µs, 0.1 %); counts exactly.
"""
from __future__ import annotations

from decimal import Decimal

import pytest

from conftest import corpus_path, ingest_paths, rows

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

# capture: (corpus path, {OverallMetrics Index: (Duration ms, Number)})
MSPROF = {
    "text_l1_rank0": ("msinsight/test/data/pytorch/text/level1/rank0_ascend_pt", {
        'Computing Time': ("8.873756", 185),
        'Conv (Forward)': ("1.11644", 20),
        'Conv (Forward) (Cube)': ("0.723434", 5),
        'Conv (Forward) (Vector)': ("0.393006", 15),
        'Conv (Backward)': ("1.966314", 46),
        'Conv (Backward) (Cube)': ("1.085022", 9),
        'Conv (Backward) (Vector)': ("0.881292", 37),
        'Matmul': ("1.066139", 14),
        'Matmul (Cube)': ("0.997399", 9),
        'Matmul (Vector)': ("0.06874", 5),
        'Vector': ("4.145534", 94),
        'Vector (Trans)': ("0.47737", 25),
        'Vector (No Trans)': ("3.668164", 69),
        'SDMA (Tensor Move)': ("0.57379", 11),
        'Other': ("0.005539", None),
        'Uncovered Communication Time': ("101.963203", None),
        'Group 0 Communication': ("101.963202", None),
        'Transmit': ("101.963202", None),
        'Free Time': ("25.74405", None),
        'Free': ("25.74405", None),
        'E2E Time': ("136.581009", None),
    }),
    "text_l1_rank1": ("msinsight/test/data/pytorch/text/level1/rank1_ascend_pt", {
        'Computing Time': ("8.878295", 185),
        'Conv (Forward)': ("1.11778", 20),
        'Conv (Forward) (Cube)': ("0.722494", 5),
        'Conv (Forward) (Vector)': ("0.395286", 15),
        'Conv (Backward)': ("1.961894", 46),
        'Conv (Backward) (Cube)': ("1.092002", 9),
        'Conv (Backward) (Vector)': ("0.869892", 37),
        'Matmul': ("1.088601", 14),
        'Matmul (Cube)': ("1.022861", 9),
        'Matmul (Vector)': ("0.06574", 5),
        'Vector': ("4.13295", 94),
        'Vector (Trans)': ("0.473527", 25),
        'Vector (No Trans)': ("3.659423", 69),
        'SDMA (Tensor Move)': ("0.57157", 11),
        'Other': ("0.0055", None),
        'Uncovered Communication Time': ("96.359047", None),
        'Group 0 Communication': ("96.359046", None),
        'Transmit': ("96.359046", None),
        'Free Time': ("26.675274", None),
        'Free': ("26.675274", None),
        'E2E Time': ("131.912616", None),
    }),
    "text_l0_rank0": ("msinsight/test/data/pytorch/text/level0/rank0_ascend_pt", {
        'Computing Time': ("8.827473", 0),
        'Other': ("8.827473", None),
        'Uncovered Communication Time': ("81.515607", None),
        'Group 0 Communication': ("81.515606", None),
        'Transmit': ("81.515606", None),
        'Free Time': ("25.908102", None),
        'Free': ("25.908102", None),
        'E2E Time': ("116.251182", None),
    }),
    "text_2024_rank0": ("msinsight-2024/test/data/pytorch/text/level1/rank0_ascend_pt", {
        'Computing Time': ("9.847664", 343),
        'Conv (Forward)': ("0.980989", 25),
        'Conv (Forward) (Cube)': ("0.980989", 25),
        'Conv (Backward)': ("1.510711", 63),
        'Conv (Backward) (Cube)': ("1.510711", 63),
        'Matmul': ("2.542347", 69),
        'Matmul (Cube)': ("2.542347", 69),
        'Cube': ("4.731866", 186),
        'Other': ("0.081751", None),
        'Uncovered Communication Time': ("66.526545", None),
        'Group 0 Communication': ("66.526544", None),
        'Wait': ("54.731246", None),
        'Transmit': ("11.795298", None),
        'Free Time': ("7.268626", None),
        'Free': ("7.268626", None),
        'E2E Time': ("83.642835", None),
    }),
    "trace_view_only": ("msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json", {
        'Computing Time': ("1.78825", 0),
        'Other': ("1.78825", None),
        'Free Time': ("9.481666", None),
        'Free': ("9.481666", None),
        'E2E Time': ("11.269917", None),
    }),
    "db_l1_rank0": ("msinsight/test/data/pytorch/db/level1/rank0_ascend_pt", {
        'Computing Time': ("8.903431", 187),
        'Conv (Forward)': ("1.114784", 20),
        'Conv (Forward) (Cube)': ("0.723694", 5),
        'Conv (Forward) (Vector)': ("0.39109", 15),
        'Conv (Backward)': ("1.970891", 46),
        'Conv (Backward) (Cube)': ("1.101161", 9),
        'Conv (Backward) (Vector)': ("0.86973", 37),
        'Matmul': ("1.103462", 14),
        'Matmul (Cube)': ("1.034241", 9),
        'Matmul (Vector)': ("0.069221", 5),
        'Vector': ("4.13018", 96),
        'Vector (Trans)': ("0.472749", 25),
        'Vector (No Trans)': ("3.657431", 71),
        'SDMA (Tensor Move)': ("0.584114", 11),
        'Uncovered Communication Time': ("98.071947", None),
        '90.91.105.46%enp189s0f0_60000_0_1736410538306028': ("98.071947", None),
        'Wait': ("2.675633", None),
        'Transmit': ("95.396314", None),
        'Free Time': ("30.943917", None),
        'Free': ("30.943917", None),
        'E2E Time': ("137.919295", None),
    }),
    "db_l1_rank1": ("msinsight/test/data/pytorch/db/level1/rank1_ascend_pt", {
        'Computing Time': ("8.915634", 187),
        'Conv (Forward)': ("1.121443", 20),
        'Conv (Forward) (Cube)': ("0.723334", 5),
        'Conv (Forward) (Vector)': ("0.398109", 15),
        'Conv (Backward)': ("1.966937", 46),
        'Conv (Backward) (Cube)': ("1.104923", 9),
        'Conv (Backward) (Vector)': ("0.862014", 37),
        'Matmul': ("1.116804", 14),
        'Matmul (Cube)': ("1.050901", 9),
        'Matmul (Vector)': ("0.065903", 5),
        'Vector': ("4.1347", 96),
        'Vector (Trans)': ("0.463369", 25),
        'Vector (No Trans)': ("3.671331", 71),
        'SDMA (Tensor Move)': ("0.57575", 11),
        'Other': ("0", None),
        'Uncovered Communication Time': ("94.55605", None),
        '90.91.105.46%enp189s0f0_60000_0_1736410538306028': ("94.55605", None),
        'Wait': ("0.00018", None),
        'Transmit': ("94.55587", None),
        'Free Time': ("30.555514", None),
        'Free': ("30.555514", None),
        'E2E Time': ("134.027198", None),
    }),
    "db_2024_rank0": ("msinsight-2024/test/data/pytorch/db/level1/rank0_ascend_pt", {
        'Computing Time': ("10.02166", 345),
        'Conv (Forward)': ("0.977399", 25),
        'Conv (Forward) (Cube)': ("0.977399", 25),
        'Conv (Backward)': ("1.602325", 63),
        'Conv (Backward) (Cube)': ("1.602325", 63),
        'Matmul': ("2.626038", 69),
        'Matmul (Cube)': ("2.626038", 69),
        'Vector': ("0.211692", 2),
        'Vector (No Trans)': ("0.211692", 2),
        'Cube': ("4.725767", 186),
        'Uncovered Communication Time': ("28.136831", None),
        '6071070343286431307': ("28.136831", None),
        'Wait': ("17.225488", None),
        'Transmit': ("10.911343", None),
        'Free Time': ("7.150851", None),
        'Free': ("7.150851", None),
        'E2E Time': ("45.309342", None),
    }),
    "gpu_df_index_resolver": ("hta/tests/data/df_index_resolver/df_index_resolver.json.gz", {
        'Computing Time': ("620.516", 17350),
        'Matmul': ("412.79", 3515),
        'Matmul (Cube)': ("399.676", 2645),
        'Matmul (Vector)': ("13.114", 870),
        'Vector': ("206.511", 13815),
        'Vector (No Trans)': ("206.511", 13815),
        'Cube': ("1.215", 20),
        'Other': ("0", None),
        'Uncovered Communication Time': ("357.343", None),
        'Free Time': ("755.106", None),
        'SDMA': ("21.862", None),
        'Free': ("733.244", None),
        'E2E Time': ("1732.965", None),
    }),
    "gpu_ns_resolution": ("hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", {
        'Computing Time': ("468.159", 4350),
        'Conv (Forward)': ("89.778879", 610),
        'Conv (Forward) (Cube)': ("30.019892", 115),
        'Conv (Forward) (Vector)': ("59.758987", 495),
        'Conv (Backward)': ("211.082158", 1330),
        'Conv (Backward) (Cube)': ("122.313662", 740),
        'Conv (Backward) (Vector)': ("88.768496", 590),
        'Matmul': ("0.385535", 25),
        'Matmul (Cube)': ("0.340928", 15),
        'Matmul (Vector)': ("0.044607", 10),
        'Vector': ("166.90703", 2385),
        'Vector (No Trans)': ("166.90703", 2385),
        'Other': ("0.005398", None),
        'Free Time': ("11.870179", None),
        'SDMA': ("3.715404", None),
        'Free': ("8.154775", None),
        'E2E Time': ("480.029179", None),
    }),
    "gpu_sampled_rank0": ("hta/tests/data/trace_filter/sampled_rank-0.json.gz", {
        'Computing Time': ("210.32", 1144),
        'Vector': ("54.154", 740),
        'Vector (No Trans)': ("54.154", 740),
        'Cube': ("156.166", 404),
        'Uncovered Communication Time': ("336.983", None),
        'Free Time': ("675.544", None),
        'SDMA': ("0.404", None),
        'Free': ("675.14", None),
        'E2E Time': ("1222.847", None),
    }),
    "gpu_sampled_rank1": ("hta/tests/data/trace_filter/sampled_rank-1.json.gz", {
        'Computing Time': ("271.973", 1094),
        'Vector': ("54.293", 700),
        'Vector (No Trans)': ("54.293", 700),
        'Cube': ("217.68", 394),
        'Uncovered Communication Time': ("303.523", None),
        'Free Time': ("655.686", None),
        'SDMA': ("4.327", None),
        'Free': ("651.359", None),
        'E2E Time': ("1231.182", None),
    }),
    "gpu_resnet50_2021": ("kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", {
        'Computing Time': ("591.532", 8772),
        'Conv (Forward)': ("126.619", 606),
        'Conv (Forward) (Cube)': ("88.852", 240),
        'Conv (Forward) (Vector)': ("37.767", 366),
        'Matmul': ("0.472", 36),
        'Matmul (Cube)': ("0.412", 18),
        'Matmul (Vector)': ("0.06", 18),
        'Vector': ("343.462", 7452),
        'Vector (No Trans)': ("343.462", 7452),
        'Cube': ("120.979", 678),
        'Free Time': ("402.568", None),
        'Free': ("402.568", None),
        'E2E Time': ("994.1", None),
    }),
    "gpu_resnet50": ("kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz", {
        'Computing Time': ("640.354", 9564),
        'Conv (Forward)': ("135.735", 576),
        'Conv (Forward) (Cube)': ("104.943", 264),
        'Conv (Forward) (Vector)': ("30.792", 312),
        'Matmul': ("0.496", 36),
        'Matmul (Cube)': ("0.428", 18),
        'Matmul (Vector)': ("0.068", 18),
        'Vector': ("406.436", 8204),
        'Vector (No Trans)': ("406.436", 8204),
        'Cube': ("97.687", 748),
        'Free Time': ("287.616", None),
        'Free': ("287.616", None),
        'E2E Time': ("927.97", None),
    }),
    "gpu_h100_bert": ("tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz", {
        'Computing Time': ("0.312", 60),
        'Flash Attention (Forward)': ("0.037408", 4),
        'Flash Attention (Forward) (Cube)': ("0.037408", 4),
        'Matmul': ("0.197598", 26),
        'Matmul (Cube)': ("0.197598", 26),
        'Vector': ("0.072191", 30),
        'Vector (No Trans)': ("0.072191", 30),
        'Other': ("0.004803", None),
        'Free Time': ("3.595825", None),
        'SDMA': ("0.00224", None),
        'Free': ("3.593585", None),
        'E2E Time': ("3.907825", None),
    }),
}

# Rows where tracedb's own number (dur_ns / kernel_count) differs from msprof-analyze's by a
# documented definition (docs/msprof-analyze.md); its number is in msprof_dur_ns /
# msprof_kernel_count. Every other row agrees both ways.
DIFFERS = {
    # Free = Free Time − SDMA: msprof-analyze reads no SDMA_SQE / PCIE_DMA_SQE copy with a
    # "Stream Id" in these traces (newer CANN: "Physic Stream Id"; 2024: task type "Other") and
    # splits nothing off; tracedb splits the copies on the computing streams off
    "text_l1_rank0": {"Free"},
    "text_l1_rank1": {"Free"},
    "text_2024_rank0": {"Free"},
    # no PMU columns (Level0) / no kernel_details.csv: msprof-analyze hides every category (all in
    # Other, Computing Time Number 0); tracedb classifies by Accelerator Core and the launching op
    "text_l0_rank0": {"Computing Time", "Other", "Free"},
    "trace_view_only": {"Computing Time", "Other"},
    # Ascend DB: its E2E spans every TASK (the MEMCPY_ASYNC copies before the first kernel); its
    # uncategorised compute tasks (DSA, AI_CPU) go to Vector (No Trans); its wait plane is the one
    # with the least Notify_Wait among those that have one (tracedb, like its text path, among
    # all the group's planes: plane 0 has none, Wait 0)
    "db_l1_rank0": {"Computing Time", "Vector", "Vector (No Trans)", "Wait", "Transmit", "Free Time", "Free",
                    "E2E Time"},
    "db_l1_rank1": {"Computing Time", "Vector", "Vector (No Trans)", "Other", "Free Time", "Free", "E2E Time"},
    "db_2024_rank0": {"Computing Time", "Vector", "Vector (No Trans)", "Free"},
    # Kineto: its 1 µs bitmap (Computing counts whole µs ticks, so Other = Computing − categories
    # is not 0); tracedb's unions are exact ns
    "gpu_ns_resolution": {"Other"},
    "gpu_h100_bert": {"Computing Time", "Other", "Free Time", "Free"},
    # no ac2g / async flows: msprof-analyze links no kernel to its op (no Matmul), tracedb links by
    # the launch's correlation id
    "gpu_sampled_rank0": {"Vector", "Vector (No Trans)", "Cube"},
    "gpu_sampled_rank1": {"Vector", "Vector (No Trans)", "Cube"},
    # 2021 Kineto: msprof-analyze does not read the Memcpy / Memset categories (E2E starts at the
    # first kernel, no SDMA); tracedb counts the copies
    "gpu_resnet50_2021": {"Free Time", "Free", "E2E Time"},
    "gpu_resnet50": {"Free"},
}

# tracedb rows msprof-analyze does not print (its number 0 there): the categories it hides, the
# SDMA split of Free Time, the Matmul it cannot link, the DSA tasks tracedb leaves in Other
EXTRA = {
    "text_l1_rank0": {"SDMA"}, "text_l1_rank1": {"SDMA"}, "text_2024_rank0": {"SDMA"},
    "text_l0_rank0": {"Conv (Forward)", "Conv (Forward) (Vector)", "Conv (Backward)", "Conv (Backward) (Vector)",
                      "Matmul", "Matmul (Vector)", "Vector", "Vector (Trans)", "SDMA (Tensor Move)", "SDMA"},
    "trace_view_only": {"Conv (Forward)", "Conv (Forward) (Vector)", "Conv (Backward)", "Conv (Backward) (Vector)",
                        "Matmul", "Matmul (Vector)", "Vector", "Vector (Trans)", "SDMA"},
    "db_l1_rank0": {"Other", "SDMA"}, "db_l1_rank1": {"Other", "SDMA"}, "db_2024_rank0": {"Other", "SDMA"},
    "gpu_sampled_rank0": {"Matmul", "Matmul (Cube)", "Matmul (Vector)"},
    "gpu_sampled_rank1": {"Matmul", "Matmul (Cube)", "Matmul (Vector)"},
    "gpu_resnet50_2021": {"SDMA"}, "gpu_resnet50": {"SDMA"},
}


def close(ns, ms: str) -> bool:
    want = Decimal(ms) * 1_000_000
    return ns is not None and abs(Decimal(ns) - want) <= max(Decimal(1000), abs(want) * Decimal("0.001"))


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    out = tmp_path_factory.mktemp("overall_msprof") / "all.duckdb"
    for name, (path, _) in MSPROF.items():
        ingest_paths(out, corpus_path(path), run=name)
    return out


@pytest.fixture(scope="module")
def summary(db):
    got = {}
    for run, metric, msprof_metric, d, n, md, mn in rows(
            db, "SELECT run_name, metric, msprof_metric, dur_ns, kernel_count, msprof_dur_ns, msprof_kernel_count "
                "FROM overall_summary WHERE metric <> 'Mem Usage' AND metric NOT LIKE '%Bandwidth'"):
        got.setdefault(run, {})[msprof_metric] = (metric, d, n, md, mn)
    return got


@pytest.mark.parametrize("capture", sorted(MSPROF))
def test_msprof_columns_equal_msprof_analyze(summary, capture):
    got = summary[capture]
    for label, (ms, number) in MSPROF[capture][1].items():
        if ms == "0" and label not in got:
            continue                      # a ~0 row msprof-analyze prints, tracedb drops
        _, _, _, md, mn = got[label]
        assert close(md, ms), (label, md, ms)
        assert mn == number, (label, mn, number)
    # and no row of msprof-analyze's own numbers that it does not print
    assert {m for m, (_, _, _, md, _) in got.items() if md} <= set(MSPROF[capture][1]), capture


@pytest.mark.parametrize("capture", sorted(MSPROF))
def test_tracedb_numbers_equal_msprof_analyze_but_for_documented_rules(summary, capture):
    got = summary[capture]
    differ = set()
    for label, (ms, number) in MSPROF[capture][1].items():
        if label not in got:
            continue
        _, d, n, _, _ = got[label]
        if not (close(d, ms) and (number is None or n == number)):
            differ.add(label)
    assert differ == DIFFERS.get(capture, set())
    extra = {metric for label, (metric, d, _, md, _) in got.items() if d and not md}
    assert extra == EXTRA.get(capture, set())


def test_ascend_db_groups_are_labelled_as_msprof_analyze_labels_them(summary):
    # its DB path labels a group by its raw HCCL group name; tracedb as on the text path
    metric, d, _, md, _ = summary["db_l1_rank0"]["90.91.105.46%enp189s0f0_60000_0_1736410538306028"]
    assert metric == "Group 90.91.105.46%enp189s0f0_60000_0_1736410538306028 Communication"
    assert d == md and close(d, "98.071947")
