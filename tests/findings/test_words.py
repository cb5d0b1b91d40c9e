"""The summary's numbers in words: units that read best, no "None", steps as runs, text wrapped at
words with a number and its unit kept together."""
from __future__ import annotations

from tracedb.findings import words as w


def test_durations_shares_sizes():
    assert [w.duration(n) for n in (12_345_678_901, 1_234_567_890, 157_200_000, 940_000, 72_000, 850, None)] == [
        "12.3 s", "1.23 s", "157.2 ms", "0.94 ms", "72 µs", "850 ns", "unknown"]
    assert w.signed_duration(-32_634_573) == "−32.6 ms" and w.signed_duration(796_200) == "+0.80 ms"
    assert [w.pct(r) for r in (0.39, 0.066, 0.05, 0.0004, 0, None)] == ["39 %", "6.6 %", "5 %", "< 0.1 %", "0 %",
                                                                         "unknown %"]
    assert w.pct_range([0.381, 0.414, 0.39]) == "38–41 %" and w.pct_range([0.4, 0.4]) == "40 %"
    assert w.size(19_267_840) == "19.3 MB" and w.size(512) == "512 B"
    assert w.count(1, "rank") == "1 rank" and w.count(1092, "kernel") == "1,092 kernels"
    assert w.count(2, "SDMA copy", "SDMA copies") == "2 SDMA copies"


def test_steps_as_runs():
    assert w.steps([5, 6, 7, 8, 9, 10]) == "steps 5–10"
    assert w.steps([2]) == "step 2" and w.steps([1, 3, 5, 6, 7]) == "steps 1, 3 and 5–7"
    assert w.steps([None]) == "the capture"


def test_wrap_at_words_keeps_names_and_units():
    text = ("the launch thread was in enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ for "
            "283.7 ms, 51–60 % of the step")
    lines = w.wrap(text, 40, "  ", "    ").splitlines()
    assert "    enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" in lines       # not cut
    assert all(not line.rstrip().endswith(("283.7", "51–60")) for line in lines)          # number with its unit
    assert " ".join(line.strip() for line in lines) == text
