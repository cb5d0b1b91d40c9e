"""The findings about the step itself, the ranks and links of a run, its memory and its data:
where the step goes (step_breakdown), why the device is free (free_analysis, msprof-analyze's
rules), which rank is slow and which one it waits for (slow_rank), the slowest link (slow_link),
the memory peak (memory_peak) and the consistency checks (check_finding). Each function takes
(connection, run name) and gives one :class:`~.finding.Finding` or None."""
from __future__ import annotations

from .finding import Finding, all_rows, has_columns, has_view, one, sql_quote, view_argument
from . import words as w

PART_WORDS = {"computing": "computing", "free": "free time", "bubble": "pipeline bubble (waiting to receive "
              "from the previous stage)", "communication_not_overlapped": "exposed communication"}

# msprof-analyze free_analysis reasons (free_analysis.reason), in words
FREE_REASONS = {
    "pytorch_idle": "the framework dispatching nothing (the host was slow to issue work)",
    "device_task": "a device task (a copy) running in the gap",
    "cann_launch_gap": "a long wait between two CANN launches",
    "cann_long_launch": "a slow CANN launch call",
    "no_op": "gaps without a framework op on one side (no reason)",
    "unknown_launch": "gaps without a known launch call (no reason)",
}
SLOW_RULES = (("msprof_slow_5pct", "msprof-analyze's 5 % rule"), ("mindinsight_slow_20pct", "MindInsight's 20 % rule"))


def step_split(con, run: str) -> Finding | None:
    """The step's split into computing / exposed communication / free (step_breakdown)."""
    s = one(con, """
        SELECT count(*) AS n, count(DISTINCT rank) AS ranks, count(DISTINCT step) AS steps,
               sum(e2e_ns) AS e2e, sum(computing_ns) AS computing,
               sum(communication_not_overlapped_ns) AS exposed, sum(free_ns) AS free,
               sum(overlapped_ns) AS overlapped, avg(e2e_ns) AS mean_e2e
        FROM step_breakdown WHERE run_name = ? AND e2e_ns IS NOT NULL""", [run])
    if not (s and s["n"]):
        return None
    shape = f"{w.count(s['ranks'], 'rank')} × {w.count(s['steps'], 'step')}"
    if s["computing"] is None:     # MindSpore step_trace_raw: phases only, no kernel intervals
        text = (f"Step: mean {w.duration(s['mean_e2e'])} over {shape}; the input has no computing "
                f"intervals, so the step is not split.")
    else:
        e2e = s["e2e"]
        text = (f"Step: mean {w.duration(s['mean_e2e'])} over {shape}: computing {w.pct(s['computing'] / e2e)}, "
                f"exposed communication {w.pct(s['exposed'] / e2e)}, free {w.pct(s['free'] / e2e)} "
                f"(communication hidden behind computing: {w.pct(s['overlapped'] / e2e)}).")
    return Finding(run, "step", text, "SELECT rank, step, e2e_ns, computing_ns, communication_not_overlapped_ns, "
                   f"free_ns FROM step_breakdown WHERE run_name = {sql_quote(run)}", cause="step",
                   number=s["mean_e2e"], rule="msprof-analyze step_trace_time (Computing, Communication(Not "
                   "Overlapped), Free)", fields=s)


def free_time(con, run: str) -> Finding | None:
    """Why the device is free: msprof-analyze's free_analysis reasons by time, and the longest gap."""
    if not has_view(con, "free_analysis"):
        return None
    reasons = all_rows(con, "SELECT reason, count(*) AS n, sum(dur_ns) AS dur_ns FROM free_analysis "
                            "WHERE run_name = ? GROUP BY reason ORDER BY dur_ns DESC, reason", [run])
    total = sum(r["dur_ns"] for r in reasons)
    if not total or all(r["reason"] in ("no_op", "unknown_launch") for r in reasons):
        return None
    top = reasons[0]
    gap = one(con, "SELECT rank, step, dur_ns, reason, prev_kernel, next_kernel FROM free_analysis WHERE run_name = ? "
                   "ORDER BY dur_ns DESC, rank, start_ns LIMIT 1", [run])
    where = f"rank {gap['rank']}" + (f", step {gap['step']}" if gap["step"] is not None else "")
    text = (f"Free time: the device is idle {w.duration(total)} in {w.count(sum(r['n'] for r in reasons), 'gap')}; "
            f"{w.pct(top['dur_ns'] / total)} of it is {FREE_REASONS.get(top['reason'], top['reason'])}. The longest "
            f"gap: {w.duration(gap['dur_ns'])} on {where}, after {w.short(gap['prev_kernel'])}, before "
            f"{w.short(gap['next_kernel'])}.")
    wait = view_argument(con, "free_analysis", "free_analysis_with")
    return Finding(run, "free time", text,
                   f"SELECT rank, free_order, step, dur_ns, reason, prev_kernel, next_kernel FROM free_analysis "
                   f"WHERE run_name = {sql_quote(run)} AND free_order <= 10 ORDER BY rank, free_order",
                   cause="idle", number=top["dur_ns"] / total,
                   threshold=None if wait is None else f"host idle when the two sides' dispatch waits differ by "
                                                       f"less than {w.duration(wait)}",
                   rule="msprof-analyze cluster free_analysis (DIFF_WAIT_THRESHOLD_NS)",
                   fields={"free_ns": total, "reasons": {r["reason"]: r["dur_ns"] for r in reasons}, "longest": gap})


def _verdict(row: dict) -> str:
    rules = [name for col, name in SLOW_RULES if row.get(col)]
    return (f"slow by {' and '.join(rules)}" if rules else
            "not slow by msprof-analyze's 5 % rule nor MindInsight's 20 % rule")


def _part(row: dict, with_value: bool = True) -> str:
    part = row.get("slowest_part")
    if not part:
        return "no part of it is above the ranks' median"
    excess = row.get(f"{part}_excess_ns")
    words = PART_WORDS.get(part, part.replace("_", " "))
    return f"its {words} is {w.duration(excess)} above the ranks' median" if with_value and excess is not None \
        else f"its slowest part is {words}"


def slow_rank(con, run: str) -> Finding | None:
    """The slowest rank (the victim) and, where slow_rank names it, the rank the others waited for
    (the cause: it arrived last at the collectives)."""
    slow = one(con, "SELECT * FROM slow_rank WHERE run_name = ? AND rank_count > 1 "
                    "ORDER BY behind_fastest_ns DESC, e2e_ns DESC, step, rank LIMIT 1", [run])
    if not slow:
        return None
    step = f" in step {slow['step']}" if slow["step"] is not None else ""
    text = (f"Slowest rank: rank {slow['rank']}{step}, {w.duration(slow['e2e_ns'])}, "
            f"{w.duration(slow['behind_fastest_ns'])} behind the fastest of {slow['rank_count']} ranks; "
            f"{_part(slow)}; {_verdict(slow)}.")
    fields = dict(slow)
    if has_columns(con, "slow_rank", "cause_rank", "cause_lateness_ns", "arrived_last_count") \
            and slow.get("cause_rank") is not None:
        cause = one(con, "SELECT * FROM slow_rank WHERE run_name = ? AND step IS NOT DISTINCT FROM ? AND rank = ?",
                    [run, slow["step"], slow["cause_rank"]]) or {}
        arrived = w.count(cause.get("arrived_last_count"), "collective")
        if slow["cause_rank"] == slow["rank"]:
            text += (f" It is also the cause: it arrived last at {arrived}, the others waited up to "
                     f"{w.duration(slow['cause_lateness_ns'])} for it.")
        else:
            text += (f" Rank {slow['rank']} is the victim: the cause is rank {slow['cause_rank']}, which arrived "
                     f"last at {arrived} (the others waited up to {w.duration(slow['cause_lateness_ns'])} for it; "
                     f"{_part(cause, with_value=False)}): look at rank {slow['cause_rank']} first.")
        fields["cause"] = cause
    return Finding(run, "slow rank", text, f"tracedb query slow_rank --run {run}"
                   + (f" --step {slow['step']}" if slow["step"] is not None else ""), cause="cluster",
                   number=slow["behind_fastest_ns"], threshold="more than 5 % of the mean step behind the fastest "
                   "rank (msprof-analyze), step more than 20 % above the ranks' mean (MindInsight)",
                   rule="msprof-analyze advisor slow rank; MindInsight cluster page", fields=fields)


def slow_link(con, run: str) -> Finding | None:
    """The link furthest below its transport's median bandwidth (slow_link)."""
    link = one(con, """
        SELECT * FROM slow_link WHERE run_name = ? AND link_count > 1 AND below_median_ratio IS NOT NULL
        ORDER BY below_median_ratio DESC, step, src_rank, dst_rank LIMIT 1""", [run])
    if not link:
        return None
    where = ", ".join(p for p in (link["transport_type"],
                                  f"group {link['group_name']}" if link["group_name"] is not None else None,
                                  f"step {link['step']}" if link["step"] is not None else None) if p)
    text = (f"Slowest link: rank {link['src_rank']} → rank {link['dst_rank']} ({where}) at "
            f"{link['bandwidth_gbps']:.2f} GB/s, {w.pct(link['below_median_ratio'])} below the "
            f"{link['transport_type']} median of {link['transport_median_gbps']:.2f} GB/s; {_verdict(link)}.")
    return Finding(run, "slow link", text, f"tracedb query slow_link --run {run}", cause="cluster",
                   number=link["below_median_ratio"], threshold="more than 5 % below the transport's median "
                   "(msprof-analyze), more than 20 % below its mean (MindInsight)",
                   rule="msprof-analyze cluster slow link; MindInsight cluster page", fields=link)


def memory_peak(con, run: str) -> Finding | None:
    """The largest reserved-memory peak, against the device capacity where the input gives one."""
    mem = one(con, """
        SELECT * FROM memory_peak WHERE run_name = ? AND peak_reserved_bytes IS NOT NULL
        ORDER BY peak_reserved_bytes DESC, rank, component LIMIT 1""", [run])
    if not mem:
        return None
    allocated = ("" if mem["peak_allocated_bytes"] is None
                 else f", {w.gib(mem['peak_allocated_bytes'])} allocated")
    device = f" ({mem['device']})" if mem["device"] else ""
    capacity = ("the profiler output does not give the device's capacity" if mem["capacity_bytes"] is None
                else f"{w.pct(mem['capacity_ratio'])} of the device's {w.gib(mem['capacity_bytes'])}")
    text = (f"Memory peak: {w.gib(mem['peak_reserved_bytes'])} reserved by {mem['component']} on rank "
            f"{mem['rank']}{device}{allocated}; {capacity}.")
    return Finding(run, "memory", text, f"tracedb query memory_peak --run {run}", cause="memory",
                   number=mem["peak_reserved_bytes"], fields=mem)


def check(con, run: str) -> Finding:
    """The consistency checks (check_finding): errors first."""
    checks = all_rows(con, "SELECT severity, check_name, message FROM check_finding WHERE run_name = ? "
                           "ORDER BY severity = 'error' DESC, check_name", [run])
    if checks:
        errors = sum(1 for c in checks if c["severity"] == "error")
        text = (f"Data: {w.count(errors, 'error')} and {w.count(len(checks) - errors, 'warning')} from tracedb "
                f"check; the first: {checks[0]['check_name']}: {checks[0]['message'].rstrip('.')}.")
    else:
        text = "Data: tracedb check finds nothing inconsistent."
    return Finding(run, "check", text, f"tracedb check --run {run}", cause="data", number=len(checks),
                   fields={"checks": checks})
