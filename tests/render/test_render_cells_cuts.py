"""The human table, round 2 (issue 43): cuts that keep what tells rows apart, one unit per column
family, whole numbers as integers, empty columns left out first; and what a trace may put in a
name (issue 40 #6): control and bidi characters as escapes, markdown cells that stay cells, csv
that a spreadsheet does not run.

Every expected cell is written out by hand from the raw value in the test."""
from __future__ import annotations

import csv
import io

from tracedb.render.machine import render
from tracedb.render.table import human_cells, render_table
from tracedb.render.text import cut, shared_prefix, visible

# five cuDNN kernels that differ only in their last characters (the issue's
# "five rows of sm80_xmma_fprop_implici…")
KERNELS = [f"sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize{t}_stage4_warpsize2x2x1_g1_tensor16x8x16"
           for t in ("128x128x32", "128x64x32", "64x128x32", "256x64x32", "64x64x64")]


def body(text: str) -> list[str]:
    """The data lines of a printed table (below the dashes, above the notes)."""
    lines = text.splitlines()
    dash = next(i for i, line in enumerate(lines) if line and set(line) <= {"-", " "})
    return [line for line in lines[dash + 1:] if not line.startswith(("+", "0 rows"))
            and "every value starts with" not in line]


def test_cut_keeps_both_ends_of_a_name_and_the_start_of_a_sentence():
    assert cut("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 30) \
        == "autograd::e…autograd::AccumulateGrad"[:11] + "…" + "torch::autograd::AccumulateGrad"[-18:]
    assert cut("the profiler's own step_trace_time.csv holds only this rank", 20) == "the profiler's own …"
    assert cut("short", 20) == "short" and cut("abc", 1) == "…"


def test_five_kernels_stay_apart_in_a_narrow_table():
    text = render_table(["name", "dur_ns"], [(k, 1000 * (i + 1)) for i, k in enumerate(KERNELS)], width=60)
    lines = body(text)
    assert len(lines) == 5 and len({line.split()[0] for line in lines}) == 5       # five different cells
    assert all(len(line) <= 60 for line in text.splitlines())
    # the shared start went (a note says which), the tile sizes stayed
    # the shared start ends at the last separator before the names part: "…_nhwc_"
    assert text.splitlines()[-1].startswith("name: every value starts with 'sm80_")
    assert text.splitlines()[-1].endswith("_nhwc_' (shown as …)")
    assert lines[0].startswith("…tilesize128x128x32_") and lines[4].startswith("…tilesize64x64x64_")


def test_shared_prefix_stops_at_a_separator():
    assert shared_prefix(["/data/job/rank0/trace.json", "/data/job/rank1/trace.json"]) == "/data/job/"
    assert shared_prefix(["same", "same"]) == "" and shared_prefix(["MatMul", "Matmul"]) == ""


def test_a_column_family_shares_its_unit():
    # the p50_launch_delay_µs 362.000 beside p90_launch_delay_ms 2.326
    headers, cells, _ = human_cells(["p50_launch_delay_ns", "p90_launch_delay_ns", "dur_ns"],
                                    [(362_000, 2_326_000, 5_000)])
    assert headers == ["p50_launch_delay_ms", "p90_launch_delay_ms", "dur_µs"]
    assert cells == [["0.362", "2.326", "5.000"]]
    # baseline / comparison / diff of one quantity: one unit; sizes likewise
    headers, cells, _ = human_cells(["baseline_total_ns", "comparison_total_ns", "diff_total_ns",
                                     "baseline_size_bytes", "comparison_size_bytes"],
                                    [(500_000, 106_247_000, 105_747_000, None, 2_216_407_040)])
    assert headers == ["baseline_total_ms", "comparison_total_ms", "diff_total_ms", "baseline_size_GiB",
                       "comparison_size_GiB"]
    assert cells == [["0.500", "106.247", "105.747", "—", "2.06"]]


def test_a_column_without_values_takes_the_unit_of_the_table():
    # MindSpore: computing unknown, the step in ms: computing_ms, not computing_µs
    headers, _, _ = human_cells(["computing_ns", "e2e_ns", "stage_ns"], [(None, 33_542_470, 33_542_470)])
    assert headers == ["computing_ms", "e2e_ms", "stage_ms"]


def test_whole_numbers_print_as_integers():
    headers, cells, _ = human_cells(["calls", "share", "ratio"], [(16.0, 0.5, 1.935), (3.0, 16.0, 2.0)])
    assert [r[0] for r in cells] == ["16", "3"]                  # the "16.000"
    assert [r[1] for r in cells] == ["0.5", "16.0"]              # as many decimals as the column needs
    assert [r[2] for r in cells] == ["1.935", "2.000"]
    # one family (baseline / comparison of one count): one number of decimals
    _, cells, _ = human_cells(["baseline_calls", "comparison_calls"], [(24.5, 16.0), (110.0, 3.0)])
    assert cells == [["24.5", "16.0"], ["110.0", "3.0"]]


def test_digit_text_is_right_aligned_like_numbers():
    _, cells, right = human_cells(["stream_id", "name"], [("2", "a"), ("10", "b"), (None, "c")])
    assert right == [True, False] and [r[0] for r in cells] == ["2", "10", "—"]


def test_columns_without_values_are_left_out_first():
    cols = ["name", "computing_ns", "free_ns", "fp_and_bp_ns", "tail_ns", "e2e_ns", "stage_ns", "bubble_ns"]
    rows = [("mindspore", None, None, 28_046_430, 5_496_040, 33_542_470, 33_542_470, 0)]
    text = render_table(cols, rows, width=60)
    head = " ".join(text.splitlines()[:2])
    assert "fp_and_bp_ms" in head and "tail_ms" in head and "e2e_ms" in head
    assert "computing" not in head and "free_ms" not in head
    assert text.splitlines()[-1] == "+3 columns not shown: --wide or -x/--vertical"       # no room for names
    assert "+2 columns not shown (computing_ms, free_ms)" in render_table(cols, rows, width=70)


def test_control_and_bidi_characters_show_as_escapes():
    name = "MatMul\x1b[2J\x1b]0;pwned\x07\x1b]52;c;Y2FsYw==\x07\u202egnp.exe\u2066x\u2069\r\n"
    text = render_table(["name"], [(name,)])
    assert not any(c in text for c in "\x1b\x07\u202e\u2066\u2069\r")
    assert "MatMul\\x1b[2J\\x1b]0;pwned\\x07\\x1b]52;c;Y2FsYw==\\x07\\u202egnp.exe\\u2066x\\u2069⏎" in text
    assert visible("plain ascii and ünïcödé") == "plain ascii and ünïcödé"
    # headers too (a SQL alias is text as well)
    assert "\x1b" not in render_table(["a\x1b[31m"], [(1,)])


def test_markdown_escapes_pipes_newlines_and_controls():
    text = render(["op", "calls"], [("a|b\nc\x1b]52;c;x\x07", 2)], "markdown")
    row = text.splitlines()[2]
    assert row.count("|") - row.count("\\|") == 3             # one cell, one cell: the pipe is escaped
    assert "a\\|b<br>c\\x1b]52;c;x\\x07" in row and "\x1b" not in text and "\x07" not in text


def test_csv_excel_safe_neutralises_formulas_only_in_text():
    rows = [("=cmd|' /C calc'!A0", -5, 1.5), ("+SUM(A1)", 0, None), ("-2+3", 1, 2.0), ("@SUM(1)", 2, 0.0),
            ("\tx", 3, 1.0), ("MatMul", 4, 1.0)]
    plain = list(csv.reader(io.StringIO(render(["name", "n", "x"], rows, "csv"))))
    assert plain[1][0] == "=cmd|' /C calc'!A0"                     # default: the values as they are
    safe = list(csv.reader(io.StringIO(render(["name", "n", "x"], rows, "csv", excel=True))))
    assert [r[0] for r in safe[1:]] == ["'=cmd|' /C calc'!A0", "'+SUM(A1)", "'-2+3", "'@SUM(1)", "'\tx", "MatMul"]
    assert [r[1] for r in safe[1:]] == ["-5", "0", "1", "2", "3", "4"]   # numbers untouched
