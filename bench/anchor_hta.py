"""HolisticTraceAnalysis's own numbers on every Kineto trace of the corpus, unrounded, in ns.

The reference side of ``tests/idle/test_temporal_breakdown_hta.py`` (which holds the output as
literals and does not need HTA). Run it with HTA's interpreter, not tracedb's::

    python3 -m venv /work/venvs/h39v-hta
    /work/venvs/h39v-hta/bin/pip install traceinsight==0.6.1     # HTA 0.6.x's PyPI name
    HTA_DISABLE_NS_ROUNDING=1 /work/venvs/h39v-hta/bin/python bench/anchor_hta.py [--corpus DIR]

What it does, per trace (one HTA TraceAnalysis per run; the two sampled ranks together):

- a copy of the trace with every ``ts`` moved back by a whole number of µs, in exact decimal
  text (HTA reads ts as float64, whose step at epoch-µs magnitudes is 0.25 µs; durations, gaps
  and every comparison HTA makes are unchanged by the shift);
- ``get_temporal_breakdown``: idle, compute, non-compute and kernel time per rank (HTA's
  window: the GPU events launched before the last ProfilerStep starts);
- ``get_idle_time_breakdown`` (all ranks, all streams, consecutive_kernel_delay 30): the sums
  and interval counts per (rank, stream, category) as ``_analyze_idle_time_for_stream``
  returns them, before the public output rounds to 0.01 µs;
- ``get_temporal_breakdown`` again with ``include_last_profiler_step=True`` (kernels launched up
  to the end of the last ProfilerStep kept);
- per HTA iteration (the ``iteration`` column HTA gives each GPU event: the ProfilerStep of its
  launching runtime call): HTA's temporal-breakdown formula (``_get_idle_time_for_kernels`` and
  the union of COMPUTATION kernels) over that iteration's GPU events. HTA has no per-step
  temporal breakdown; this is its rule applied per step.

Every value is printed in integer ns (µs × 1000, rounded to the nearest ns: float64 error on
these sums is below 1e-6 ns). The environment variable HTA_DISABLE_NS_ROUNDING=1 must be set:
without it HTA ceils every start and floors every end to whole µs.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

TRACES = {
    # run name: {rank: path under the corpus}
    "amd": {0: "hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"},
    "ns": {0: "hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"},
    "sampled": {0: "hta/tests/data/trace_filter/sampled_rank-0.json.gz",
                1: "hta/tests/data/trace_filter/sampled_rank-1.json.gz"},
    "ddp": {1: "hta/tests/data/df_index_resolver/df_index_resolver.json.gz"},
    "resnet": {0: "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"},
    "resnet_2021": {0: "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz"},
    "h100": {0: "tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz"},
    "mi210": {0: "tracelens/tests/traces/mi210/gpu_only_trace/gpu_only_trace.json.gz"},
    "a100_nodist": {0: "hta/tests/data/distributed_info_unavailable/distributed_info_not_found.json.gz"},
    "cpu_only": {0: "hta/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"},
}


def ns(us) -> int:
    return int(round(float(us) * 1000))


def shifted_copy(src: Path, dst: Path) -> int:
    """Copy a trace with every event's ts moved back by floor(min ts) µs, exactly; returns the shift."""
    with gzip.open(src, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    starts = [Decimal(str(e["ts"])) for e in events if "ts" in e and "dur" in e]
    shift = int(min(starts)) if starts else 0
    for e in events:
        if "ts" in e:
            e["ts"] = Decimal(str(e["ts"])) - shift

    class Exact(json.JSONEncoder):
        def default(self, o):
            if isinstance(o, Decimal):
                # ≤ 15 significant digits: float() then repr() gives back the same decimal text
                return int(o) if o == o.to_integral_value() else float(o)
            return super().default(o)

    with gzip.open(dst, "wt") as f:
        json.dump(doc, f, cls=Exact)
    return shift


def per_iteration(t, rank):
    """HTA's temporal-breakdown formula over the GPU events of each HTA iteration."""
    from hta.analyzers.breakdown_analysis import BreakdownAnalysis
    from hta.utils.utils import get_kernel_type, KernelType, merge_kernel_intervals

    sym_table = t.symbol_table.get_sym_table()
    df = t.get_trace(rank)
    gpu = df[df["stream"].ne(-1)].copy()
    if gpu.empty:
        return {}
    gpu["kernel_type"] = gpu["name"].apply(lambda n: get_kernel_type(sym_table[n]))
    out = {}
    for it, g in gpu.groupby("iteration"):
        idle, span = BreakdownAnalysis._get_idle_time_for_kernels(g.copy())
        comp = merge_kernel_intervals(g[g["kernel_type"].eq(KernelType.COMPUTATION.name)].copy())
        compute = comp.end.sum() - comp.ts.sum() if not comp.empty else 0
        out[int(it)] = {"idle_ns": ns(idle), "compute_ns": ns(compute),
                        "non_compute_ns": ns(span - compute - idle), "kernel_time_ns": ns(span),
                        "kernels": int(len(g))}
    return out


def run(name: str, files: dict[int, Path], tmp: Path) -> dict:
    from hta.analyzers.breakdown_analysis import BreakdownAnalysis
    from hta.trace_analysis import TraceAnalysis

    local = {}
    shifts = {}
    for rank, src in files.items():
        dst = tmp / f"{name}-rank{rank}.json.gz"
        shifts[rank] = shifted_copy(src, dst)
        local[rank] = str(dst)
    result: dict = {"shift_us": shifts}
    try:
        ta = TraceAnalysis(trace_files=local, trace_dir=str(tmp))
    except Exception as exc:  # noqa: BLE001 - the reference's own failure is a result too
        return {**result, "error": f"TraceAnalysis: {type(exc).__name__}: {exc}"}
    ranks = sorted(ta.t.traces)
    result["profiler_steps"] = [int(s) for s in ta.get_profiler_steps()]

    try:
        tb = ta.get_temporal_breakdown(visualize=False)
        result["temporal"] = {
            int(r["rank"]): {"idle_ns": ns(r["idle_time(us)"]), "compute_ns": ns(r["compute_time(us)"]),
                             "non_compute_ns": ns(r["non_compute_time(us)"]),
                             "kernel_time_ns": ns(r["kernel_time(us)"]),
                             "idle_pct": float(r["idle_time_pctg"]), "compute_pct": float(r["compute_time_pctg"]),
                             "non_compute_pct": float(r["non_compute_time_pctg"])}
            for _, r in tb.iterrows()}
    except Exception as exc:  # noqa: BLE001
        result["temporal"] = f"{type(exc).__name__}: {exc}"

    # the unrounded per-stream sums and counts, as _analyze_idle_time_for_stream returns them
    captured = []
    original = BreakdownAnalysis._analyze_idle_time_for_stream.__func__

    def spy(cls, stream, gpu_kernels, delay, show_stats=False):
        res, stats = original(cls, stream, gpu_kernels, delay, True)
        captured.append((stream, res, stats))
        return res, stats if show_stats else None

    BreakdownAnalysis._analyze_idle_time_for_stream = classmethod(spy)
    idle: dict = {}
    try:
        for rank in ranks:
            captured.clear()
            try:
                ta.get_idle_time_breakdown(ranks=[rank], visualize=False, show_idle_interval_stats=False)
            except Exception as exc:  # noqa: BLE001
                idle[rank] = f"{type(exc).__name__}: {exc}"
                continue
            names = {0: "host_wait", 1: "kernel_wait", 2: "other"}
            rows = []
            for stream, res, stats in captured:
                for cat, r in res.iterrows():
                    count = int(stats.loc[cat, "count"]) if stats is not None and cat in stats.index else 0
                    rows.append([int(stream), names[int(cat)], ns(r["idle_time"]), count])
            idle[rank] = sorted(rows)
    finally:
        BreakdownAnalysis._analyze_idle_time_for_stream = classmethod(original)
    result["idle"] = idle
    # the same with include_last_profiler_step=True: HTA keeps the kernels launched up to the end
    # of the last ProfilerStep (a second TraceAnalysis: the window is cut when the trace loads)
    try:
        tb_all = TraceAnalysis(trace_files=local, trace_dir=str(tmp),
                               include_last_profiler_step=True).get_temporal_breakdown(visualize=False)
        result["temporal_include_last_step"] = {
            int(r["rank"]): {"idle_ns": ns(r["idle_time(us)"]), "compute_ns": ns(r["compute_time(us)"]),
                             "non_compute_ns": ns(r["non_compute_time(us)"]),
                             "kernel_time_ns": ns(r["kernel_time(us)"])}
            for _, r in tb_all.iterrows()}
    except Exception as exc:  # noqa: BLE001
        result["temporal_include_last_step"] = f"{type(exc).__name__}: {exc}"
    result["per_iteration"] = {}
    for rank in ranks:
        try:
            result["per_iteration"][rank] = per_iteration(ta.t, rank)
        except Exception as exc:  # noqa: BLE001
            result["per_iteration"][rank] = f"{type(exc).__name__}: {exc}"
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    ap.add_argument("--runs", default=",".join(TRACES), help="comma-separated run names")
    ap.add_argument("--out", help="write the JSON here (default: stdout)")
    args = ap.parse_args()
    if os.environ.get("HTA_DISABLE_NS_ROUNDING") != "1":
        print("set HTA_DISABLE_NS_ROUNDING=1 (HTA rounds every event to whole µs otherwise)", file=sys.stderr)
        return 2
    import hta
    out = {"hta_version": getattr(hta, "__version__", "?"), "runs": {}}
    corpus = Path(args.corpus)
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.runs.split(","):
            files = {r: corpus / p for r, p in TRACES[name].items()}
            out["runs"][name] = run(name, files, Path(tmp))
    text = json.dumps(out, indent=1, sort_keys=True)
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
