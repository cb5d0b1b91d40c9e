"""``tracedb summary``: what is slow, in plain words, from the views that already exist.

Each finding carries its number and the query that shows it, so a user can dig further. Nothing
here computes a metric of its own: every number is a view's (step_breakdown, slow_rank,
slow_link, memory_peak, check_finding, op_diff_between), aggregated at most by a sum. The memory
peak is set against the device's capacity where the input has one (memory_peak.capacity_bytes:
Kineto deviceProperties; Ascend output has none).

Thresholds are the reference tools' own, named where they are used:

* slow rank: msprof-analyze's cluster rule (more than 5 % of the mean step behind the fastest
  rank, ``slow_rank.msprof_slow_5pct``) and MindInsight's (step more than 20 % above the ranks'
  mean, ``mindinsight_slow_20pct``);
* slow link: msprof-analyze (more than 5 % below the transport's median,
  ``slow_link.msprof_slow_5pct``) and MindInsight (20 % below the mean);
* degraded op: MindInsight's ±20 % comparison rule (comparison / baseline device time > 1.2).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..engine import duckdb
from ..render.table import fixed

MINDINSIGHT_DEGRADED_RATIO = 1.2     # MindInsight: ±20 % counts as a change


@dataclass
class Finding:
    """One plain-language finding: the run it is about, a topic, the sentence (with its
    number) and the query that shows it."""

    run_name: str
    topic: str
    text: str
    source: str


def _ms(ns) -> str:
    return "—" if ns is None else f"{fixed(int(ns), 1_000_000, 3)} ms"


def _pct(part, whole) -> str:
    return "—" if not whole or part is None else f"{100 * part / whole:.1f} %"


def _gib(b) -> str:
    return "—" if b is None else f"{fixed(int(b), 2 ** 30, 2)} GiB"


def _calls(n) -> str:
    """Calls as op_diff gives them: a count, or a mean per rank (a DOUBLE) with up to 2 decimals."""
    return "— calls" if n is None else f"{float(n):,.2f}".rstrip("0").rstrip(".") + " calls"


def _short(name: str | None, width: int = 60) -> str:
    return "nothing" if name is None else name if len(name) <= width else name[: width - 1] + "…"


def sql_quote(name: str) -> str:
    """A SQL string literal of ``name``."""
    return "'" + name.replace("'", "''") + "'"


def _one(con, sql: str, params: list) -> dict | None:
    cur = con.execute(sql, params)
    row = cur.fetchone()
    return None if row is None else dict(zip([d[0] for d in cur.description], row))


def has_view(con, name: str) -> bool:
    """Whether schema main has a view of that name."""
    return bool(con.execute("SELECT count(*) FROM duckdb_views() WHERE schema_name = 'main' AND view_name = ?",
                            [name]).fetchone()[0])


def _step_split(con, run: str) -> Finding | None:
    split = _one(con, """
        SELECT count(*) AS n, count(DISTINCT rank) AS ranks, count(DISTINCT step) AS steps,
               sum(e2e_ns) AS e2e, sum(computing_ns) AS computing,
               sum(communication_not_overlapped_ns) AS exposed, sum(free_ns) AS free,
               sum(overlapped_ns) AS overlapped, avg(e2e_ns) AS mean_e2e
        FROM step_breakdown WHERE run_name = ? AND e2e_ns IS NOT NULL""", [run])
    if not (split and split["n"]):
        return None
    if split["computing"] is None:     # MindSpore step_trace_raw: phases only, no kernel intervals
        text = (f"{split['steps']} step(s) on {split['ranks']} rank(s), mean step {_ms(split['mean_e2e'])}; "
                f"the input has no computing intervals, so the step is not split")
    else:
        text = (f"step: mean {_ms(split['mean_e2e'])} over {split['ranks']} rank(s) × {split['steps']} step(s); "
                f"computing {_pct(split['computing'], split['e2e'])}, exposed communication "
                f"{_pct(split['exposed'], split['e2e'])}, free {_pct(split['free'], split['e2e'])} of the step "
                f"(communication hidden behind computing: {_pct(split['overlapped'], split['e2e'])})")
    return Finding(run, "step", text, "SELECT rank, step, e2e_ns, computing_ns, communication_not_overlapped_ns, "
                                      f"free_ns FROM step_breakdown WHERE run_name = {sql_quote(run)}")


def _slow_rank(con, run: str) -> Finding | None:
    slow = _one(con, """
        SELECT * FROM slow_rank WHERE run_name = ? AND rank_count > 1
        ORDER BY behind_fastest_ns DESC, e2e_ns DESC, step, rank LIMIT 1""", [run])
    if not slow:
        return None
    part = slow["slowest_part"]
    excess = {"computing": slow["computing_excess_ns"], "free": slow["free_excess_ns"],
              "communication_not_overlapped": slow["communication_not_overlapped_excess_ns"]}.get(part)
    words = {"computing": "computing", "free": "free time",
             "communication_not_overlapped": "exposed communication"}.get(part)
    rules = [name for name, hit in (("msprof-analyze 5 % rule", slow["msprof_slow_5pct"]),
                                    ("MindInsight 20 % rule", slow["mindinsight_slow_20pct"])) if hit]
    text = (f"slowest rank: rank {slow['rank']} in step {slow['step']}, {_ms(slow['e2e_ns'])}, "
            f"{_ms(slow['behind_fastest_ns'])} behind the fastest of {slow['rank_count']} ranks; ")
    text += (f"its slowest part is {words} ({part}_excess_ns: {_ms(excess)} over the ranks' median)"
             if part else "no part of it is above the ranks' median")
    text += (f"; slow by the {' and the '.join(rules)}" if rules
             else "; not slow by the msprof-analyze 5 % or MindInsight 20 % rule")
    return Finding(run, "slow rank", text, f"tracedb query slow_rank --run {run} --step {slow['step']}")


def _free_gap(con, run: str) -> Finding | None:
    gap = _one(con, """
        SELECT * FROM free_time WHERE run_name = ? ORDER BY dur_ns DESC, rank, step, start_ns LIMIT 1""", [run])
    if not gap:
        return None
    text = (f"largest free gap: {_ms(gap['dur_ns'])} on rank {gap['rank']} in step {gap['step']}, after "
            f"{_short(gap['kernel_before'])}, before {_short(gap['kernel_after'])}")
    return Finding(run, "free gap", text, f"SELECT * FROM free_time WHERE run_name = {sql_quote(run)} "
                                          "ORDER BY dur_ns DESC LIMIT 10")


def _slow_link(con, run: str) -> Finding | None:
    link = _one(con, """
        SELECT * FROM slow_link WHERE run_name = ? AND link_count > 1 AND below_median_ratio IS NOT NULL
        ORDER BY below_median_ratio DESC, step, src_rank, dst_rank LIMIT 1""", [run])
    if not link:
        return None
    rules = [name for name, hit in (("msprof-analyze 5 % rule", link["msprof_slow_5pct"]),
                                    ("MindInsight 20 % rule", link["mindinsight_slow_20pct"])) if hit]
    text = (f"slowest link: {link['src_rank']} → {link['dst_rank']} ({link['transport_type']}, group "
            f"{link['group_name']}, step {link['step']}) at {link['bandwidth_gbps']:.2f} GB/s, "
            f"{100 * link['below_median_ratio']:.1f} % below the {link['transport_type']} median "
            f"{link['transport_median_gbps']:.2f} GB/s")
    text += (f"; slow by the {' and the '.join(rules)}" if rules
             else "; not slow by the msprof-analyze 5 % or MindInsight 20 % rule")
    return Finding(run, "slow link", text, f"tracedb query slow_link --run {run}")


def _memory_peak(con, run: str) -> Finding | None:
    mem = _one(con, """
        SELECT * FROM memory_peak WHERE run_name = ? AND peak_reserved_bytes IS NOT NULL
        ORDER BY peak_reserved_bytes DESC, rank, component LIMIT 1""", [run])
    if not mem:
        return None
    allocated = ("" if mem["peak_allocated_bytes"] is None
                 else f", {_gib(mem['peak_allocated_bytes'])} allocated")
    capacity = ("the device capacity is not in the profiler output" if mem["capacity_bytes"] is None
                else f"{_pct(mem['peak_reserved_bytes'], mem['capacity_bytes'])} of the device's "
                     f"{_gib(mem['capacity_bytes'])} (capacity_ratio)")
    text = (f"memory peak: {_gib(mem['peak_reserved_bytes'])} reserved by {mem['component']} on rank "
            f"{mem['rank']} ({mem['device']}){allocated}; {capacity}")
    return Finding(run, "memory", text, f"tracedb query memory_peak --run {run}")


def _check(con, run: str) -> Finding:
    checks = con.execute("SELECT severity, check_name, message FROM check_finding WHERE run_name = ? "
                         "ORDER BY severity = 'error' DESC, check_name", [run]).fetchall()
    if checks:
        errors = sum(1 for c in checks if c[0] == "error")
        text = (f"data: {errors} error(s), {len(checks) - errors} warning(s) from check; first: "
                f"{checks[0][1]}: {checks[0][2]}")
    else:
        text = "data: no consistency finding"
    return Finding(run, "check", text, f"tracedb check --run {run}")


RUN_FINDINGS = (_step_split, _slow_rank, _free_gap, _slow_link, _memory_peak, _check)


def run_findings(con: duckdb.DuckDBPyConnection, run: str) -> list[Finding]:
    """The findings of one run: step split, slowest rank, largest free gap, slowest link, memory
    peak, check (:data:`RUN_FINDINGS`, each a function of the run giving one finding or none)."""
    return [f for finding in RUN_FINDINGS if (f := finding(con, run)) is not None]


def comparison_findings(con: duckdb.DuckDBPyConnection, baseline: str, comparison: str) -> list[Finding]:
    """The top degraded op of a comparison (largest diff_total_ns of op_diff_between)."""
    top = _one(con, "SELECT * FROM op_diff_between(?, ?) WHERE diff_total_ns > 0 "
                    "ORDER BY diff_total_ns DESC, op_type LIMIT 1", [baseline, comparison])
    source = f"tracedb query op_diff --baseline {baseline} --comparison {comparison} --limit 10"
    label = f"{baseline} → {comparison}"
    if top is None:
        return [Finding(label, "op diff", "no op takes longer in the comparison run", source)]
    ratio = top["total_ratio"]
    if ratio is None:
        verdict = "new in the comparison run"
    elif ratio > MINDINSIGHT_DEGRADED_RATIO:
        verdict = "degraded by MindInsight's ±20 % rule"
    else:
        verdict = "within MindInsight's ±20 %"
    text = (f"top degraded op: {top['op_type']}, {_ms(top['baseline_total_ns'])} "
            f"({_calls(top['baseline_calls'])}) → {_ms(top['comparison_total_ns'])} "
            f"({_calls(top['comparison_calls'])}), "
            f"+{_ms(top['diff_total_ns'])}" + (f", ×{ratio:.2f}" if ratio is not None else "") + f"; {verdict}")
    return [Finding(label, "op diff", text, source)]


def summarize(con: duckdb.DuckDBPyConnection, run: str | None = None, baseline: str | None = None,
              comparison: str | None = None) -> list[Finding]:
    """Findings of one run (or every run), then of the comparison (given, or by role)."""
    runs = [r[0] for r in con.execute("SELECT run_name FROM run ORDER BY run_id").fetchall()]
    out: list[Finding] = []
    for name in ([run] if run else runs):
        out += run_findings(con, name)
    if not (baseline and comparison):
        roles = dict(con.execute("SELECT role, min(run_name) FROM run WHERE role IS NOT NULL GROUP BY role").fetchall())
        baseline = baseline or roles.get("baseline")
        comparison = comparison or roles.get("comparison")
    if baseline and comparison and (run is None or run in (baseline, comparison)):
        out += comparison_findings(con, baseline, comparison)
    return out


def render_text(findings: list[Finding]) -> str:
    """The findings as lines of plain text, grouped by run, each with the query below it."""
    lines, current = [], None
    for f in findings:
        if f.run_name != current:
            current = f.run_name
            lines.append(("" if not lines else "\n") + (f"comparison {f.run_name}" if "→" in f.run_name
                                                         else f"run {f.run_name}"))
        lines.append(f"  {f.text}")
        lines.append(f"      → {f.source}")
    return "\n".join(lines) + "\n" if lines else "no runs\n"
