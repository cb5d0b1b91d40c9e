"""The findings about the device waiting for the host and the host's own losses: why the most
idle stream idles and what the launch thread was in meanwhile (idle_time, capture_breakdown,
host_wait), the top fusion candidate (fusion_candidate) and the copies and synchronisations that
block the host (sync_copy). Each function takes (connection, run name) and gives one
:class:`~.finding.Finding` or None; a missing view, column or threshold row skips it."""
from __future__ import annotations

from .finding import (Finding, all_rows, has_columns, has_view, one, run_rank_count, sql_quote, threshold,
                      view_argument)
from . import words as w

IDLE_CAUSES = {
    "host_wait": "waiting for the host (the next launch came after the stream went idle)",
    "kernel_wait": "between back-to-back kernels (the launch cost itself)",
    "other": "waiting for other streams or events (communication, cross-stream synchronisation)",
}
COPY_KINDS = {"HtoD": "host → device", "DtoH": "device → host", "DtoD": "device → device",
              "HtoH": "host → host"}
# framework ops that synchronise, as the user wrote them
SYNC_OPS = {"aten::_local_scalar_dense": "a tensor's .item()", "aten::item": "a tensor's .item()",
            "aten::copy_": "a copy (.to() / .cpu())", "aten::to": "a copy (.to())",
            "aten::nonzero": "nonzero() (a data-dependent shape)"}
SCOPES = {"optimizer": "In {name}", "module": "In module {name}", "op": "In op {name}"}


def _launch_call(con, run: str, rank: int, stream: str) -> dict | None:
    """The call the launch thread was in for most of the stream's host-wait idle time (host_wait)."""
    if not has_columns(con, "host_wait", "launch_thread_call", "launch_thread_call_ns"):
        return None
    return one(con, """
        WITH interval AS (
            SELECT DISTINCT idle_start_ns, launch_thread_call, launch_thread_call_ns
            FROM host_wait
            WHERE run_name = ? AND rank = ? AND stream_id = ? AND cause = 'host_wait'
              AND launch_thread_call IS NOT NULL)
        SELECT launch_thread_call AS call, sum(launch_thread_call_ns) AS call_ns, count(*) AS interval_count
        FROM interval GROUP BY launch_thread_call ORDER BY call_ns DESC, call LIMIT 1""", [run, rank, stream])


def idle_cause(con, run: str) -> Finding | None:
    """The stream that idles most (share of the rank's capture), its main idle cause (HTA's
    categories) and, for host waits, the call the launch thread was in."""
    if not (has_view(con, "idle_time") and has_view(con, "capture_breakdown")):
        return None
    rows = all_rows(con, """
        SELECT t.rank, t.stream_id, t.cause, t.idle_ns, t.stream_idle_ns, c.e2e_ns,
               t.stream_idle_ns / c.e2e_ns AS stream_idle_ratio
        FROM idle_time AS t JOIN capture_breakdown AS c ON c.run_name = t.run_name AND c.rank = t.rank
        WHERE t.run_name = ? AND t.step IS NULL AND t.stream_id IS NOT NULL AND c.e2e_ns > 0
        ORDER BY stream_idle_ratio DESC, t.rank, t.stream_id, t.idle_ns DESC""", [run])
    if not rows:
        return None
    top = rows[0]
    causes = [r for r in rows if (r["rank"], r["stream_id"]) == (top["rank"], top["stream_id"])]
    main = causes[0]
    where = f"Stream {top['stream_id']}" + (f" on rank {top['rank']}" if run_rank_count(con, run) > 1 else "")
    text = (f"{where} idles {w.pct(top['stream_idle_ratio'])} of the capture ({w.duration(top['stream_idle_ns'])} "
            f"of {w.duration(top['e2e_ns'])}); {w.pct(main['idle_ns'] / top['stream_idle_ns'])} of that is "
            f"{IDLE_CAUSES.get(main['cause'], main['cause'])}")
    call = _launch_call(con, run, top["rank"], top["stream_id"]) if main["cause"] == "host_wait" else None
    if call:
        text += (f", and the launch thread was in {w.short(call['call'], 80)} for "
                 f"{w.duration(call['call_ns'])} of it")
    fields = {"rank": top["rank"], "stream_id": top["stream_id"], "stream_idle_ns": top["stream_idle_ns"],
              "e2e_ns": top["e2e_ns"], "causes": {r["cause"]: r["idle_ns"] for r in causes},
              "launch_thread_call": call}
    delay = view_argument(con, "idle_interval", "idle_interval_with")
    return Finding(run, "idle stream", text + ".",
                   f"SELECT * FROM idle_time WHERE run_name = {sql_quote(run)} AND step IS NULL "
                   f"ORDER BY rank, stream_id, cause", cause="idle", number=top["stream_idle_ratio"],
                   threshold=None if delay is None else f"kernel wait: a gap under {w.duration(delay)} between "
                                                        "back-to-back launches",
                   rule="HolisticTraceAnalysis idle time breakdown (consecutive_kernel_delay)", fields=fields)


def fusion(con, run: str) -> Finding | None:
    """The fusion candidate that would save the most launch time per step (fusion_candidate)."""
    if not has_view(con, "fusion_candidate"):
        return None
    top = one(con, """
        SELECT rank, pattern, scope, scope_name, stream_id, any_value(fix) AS fix,
               arg_max(first_kernel_name, kernel_count) AS first_kernel_name,
               count(*) AS run_count, sum(kernel_count) AS kernel_count, max(kernel_count) AS longest_count,
               greatest(count(DISTINCT step), 1) AS step_count,
               sum(launch_saving_ns) AS launch_saving_ns, sum(gap_ns) AS gap_ns, sum(device_ns) AS device_ns
        FROM fusion_candidate WHERE run_name = ?
        GROUP BY rank, pattern, scope, scope_name, stream_id
        ORDER BY coalesce(sum(launch_saving_ns), 0) DESC, sum(gap_ns) DESC, rank, pattern LIMIT 1""", [run])
    if top is None:
        return None
    steps = top["step_count"]
    scope = SCOPES.get(top["scope"], "").format(name=top["scope_name"])
    where = f"stream {top['stream_id']}" + (f" of rank {top['rank']}" if run_rank_count(con, run) > 1 else "")
    runs, kernels = round(top["run_count"] / steps), round(top["kernel_count"] / steps)
    text = f"{scope + ', ' if scope else ''}{where} runs {w.count(kernels, 'short kernel')} per step one by one"
    text += (f", back to back (the first {w.short(top['first_kernel_name'])})" if runs == 1 else
             f", in {runs} runs of consecutive kernels (the longest has {w.count(top['longest_count'], 'kernel')}, "
             f"the first {w.short(top['first_kernel_name'])})")
    if top["launch_saving_ns"]:
        text += (f": {'one kernel' if runs == 1 else 'one kernel per run'} would save "
                 f"{w.duration(top['launch_saving_ns'] / steps)} of launches per step")
    text += f" and {w.duration(top['gap_ns'] / steps)} of gaps between them."
    text += f" Fix: {top['fix']}." if top["fix"] else ""
    short = threshold(con, "fusion_candidate.short_kernel_ns")
    return Finding(run, "fusion", text[0].upper() + text[1:],
                   f"SELECT * FROM fusion_candidate WHERE run_name = {sql_quote(run)} AND pattern = "
                   f"{sql_quote(top['pattern'])} ORDER BY launch_saving_ns DESC NULLS LAST", cause="host",
                   number=None if top["launch_saving_ns"] is None else top["launch_saving_ns"] / steps,
                   threshold="a kernel shorter than its launch call" + (
                       f" (without one, shorter than {w.duration(short.value)})" if short else ""),
                   rule="HolisticTraceAnalysis short kernels; fusion_pattern " + top["pattern"], fields=top)


def _sync_text(top: dict, steps: int) -> str:
    calls = w.count(round(top["call_count"] / steps, 2), f"{top['call_name']} call")
    op = top["framework_op"]
    under = f" in {op}" if op else ""
    blocked = f"blocking the host {w.duration(top['host_ns'] / steps)} ({w.pct(top['host_ratio'])} of the step)"
    kind = COPY_KINDS.get(top["copy_kind"] or "", top["copy_kind"] or "")
    if top["reason"] == "pageable_copy":
        return (f"Each step copies {w.size((top['copy_bytes'] or 0) / steps)} {kind} from pageable memory in "
                f"{calls}{under}, {blocked}: use pin_memory=True in the DataLoader and .to(device, non_blocking=True).")
    if top["reason"] == "sync_copy_call":
        return (f"Each step makes {calls} ({kind}, {w.size((top['copy_bytes'] or 0) / steps)}){under}, which wait "
                f"for the copy, {blocked}: copy asynchronously from pinned memory (non_blocking=True).")
    op = SYNC_OPS.get(op or "", op)
    return (f"Each step synchronises with the device in {calls}" + (f" under {op}" if op else "")
            + f", {blocked}: the host waits for all queued work; move .item(), .cpu() and printing out of the "
              f"step, or do them once every few steps.")


def sync_copy(con, run: str) -> Finding | None:
    """The group of blocking copies or synchronisations that costs the host the largest share of
    the step (sync_copy), when above the summary's floor."""
    floor = threshold(con, "sync_copy.step_ratio")
    if not has_view(con, "sync_copy") or floor is None:
        return None
    top = one(con, """
        SELECT reason, call_name, copy_kind, memory_kinds, framework_op, any_value(rank) AS rank,
               count(DISTINCT (rank, step)) AS step_count, sum(call_count) AS call_count, sum(host_ns) AS host_ns,
               sum(copy_bytes) AS copy_bytes, sum(host_ns) / sum(step_ns) AS host_ratio
        FROM sync_copy WHERE run_name = ? AND step IS NOT NULL AND step_ns > 0
        GROUP BY reason, call_name, copy_kind, memory_kinds, framework_op
        ORDER BY host_ratio DESC, reason, call_name LIMIT 1""", [run])
    if top is None or top["host_ratio"] is None or top["host_ratio"] <= floor.value:
        return None
    return Finding(run, "blocking call", _sync_text(top, top["step_count"]),
                   f"tracedb query sync_copy --run {run}", cause="host", number=top["host_ratio"],
                   threshold=f"more than {w.pct(floor.value)} of the step ({floor.reference}'s floor)",
                   rule="Nsight Systems cuda_memcpy_async rule, CUDA runtime copy semantics (sync_copy)", fields=top)
