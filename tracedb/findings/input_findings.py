"""The findings about the input pipeline: steps that wait for their input, why, and the dataset
pipeline op to blame (input_bound), and the pipeline ops' CPU per worker (cpu_utilization).
Each function takes (connection, run name) and gives one :class:`~.finding.Finding` or None; a
view, column or threshold row missing from the file skips it."""
from __future__ import annotations

from .finding import Finding, all_rows, has_view, one, run_rank_count, threshold
from . import words as w


def _ranks(con, run: str, rows: list[dict]) -> str:
    ranks = sorted({r["rank"] for r in rows})
    if run_rank_count(con, run) <= 1:
        return ""
    return f" on rank {ranks[0]}" if len(ranks) == 1 else f" on {w.count(len(ranks), 'rank')}"


def _dataloader_text(bound: list[dict], limit) -> str:
    modes = {r["dataloader_mode"] for r in bound}
    share = w.pct_range(r["data_loading_ratio"] for r in bound)
    busy = [r["device_busy_ratio"] for r in bound if r["device_busy_ratio"] is not None]
    text = f"the DataLoader takes {share} of each step (threshold {w.pct(limit.value)})"
    if modes == {"single_process"}:
        text += (" and runs in the training process (num_workers=0), so the device waits while each batch is "
                 "loaded")
        fix = "use DataLoader workers (num_workers > 0)"
    elif modes == {"multi_process"}:
        text += " although it runs in worker processes: the workers do not keep up"
        fix = "raise num_workers, or make loading cheaper (pin_memory=True, prefetch_factor)"
    else:
        text += ", the device waiting for each batch"
        fix = "load in DataLoader workers (num_workers > 0) and prefetch"
    if busy:
        text += f" (busy {w.pct_range(busy)} of the step)"
    return f"{text}: {fix}."


def _pipeline_text(con, bound: list[dict]) -> tuple[str, list[str]]:
    """The MindSpore iteration-interval sentence and the thresholds it applied."""
    wait = sum(r["data_loading_ns"] for r in bound) / len(bound)
    share = sum(r["data_loading_ratio"] or 0 for r in bound) / len(bound)
    interval = threshold(con, "input_bound.iteration_interval_ns")
    queue = threshold(con, "input_bound.device_queue_empty_ratio")
    used = [f"iteration interval above {w.duration(interval.value)}"] if interval else []
    text = f"the device waits {w.duration(wait)} ({w.pct(share)}) for each batch"
    if interval:
        text += f" (threshold {w.duration(interval.value)})"
    r = bound[0]
    empty = (r["device_queue_empty_ratio"] if r["device_queue_empty_ratio"] is not None
             else r["pipeline_queue_empty_ratio"])
    if empty is not None and queue:
        used.append(f"device queue empty in more than {w.pct(queue.value)} of the batches")
        text += f"; the device queue was empty for {w.pct(empty)} of the batches (threshold {w.pct(queue.value)})"
    if r["producer_op_type"] is not None:
        workers = r["producer_worker_count"]
        text += (f"; the dataset pipeline's {r['producer_op_type']} (op {r['producer_op_id']}) produces too slowly: "
                 + (f"raise its num_parallel_workers above {workers}." if workers is not None
                    else "give it more num_parallel_workers."))
    elif r["data_pipeline_bound"] is False:
        text += "; the dataset pipeline keeps the device queue filled, so the wait is on the host side of the step."
    else:
        text += "; look at the dataset pipeline (tracedb query data_pipeline_wait)."
    return text, used


def input_bound(con, run: str) -> Finding | None:
    """Steps that wait for their input, why, and the pipeline op to blame (input_bound)."""
    if not has_view(con, "input_bound"):
        return None
    rows = all_rows(con, "SELECT * FROM input_bound WHERE run_name = ? ORDER BY rank, step", [run])
    bound = [r for r in rows if r["is_input_bound"]]
    if not bound:
        return None
    source = max({r["data_loading_source"] for r in bound}, key=lambda s: sum(r["data_loading_source"] == s
                                                                             for r in bound))
    bound = [r for r in bound if r["data_loading_source"] == source]
    numbers = {r["step"] for r in bound}
    head = (f"{w.steps(numbers).capitalize()}{_ranks(con, run, bound)} "
            f"{'is' if len(numbers) == 1 else 'are'} input-bound: ")
    if source == "dataloader":
        limit = threshold(con, "input_bound.dataloader_ratio")
        if limit is None:
            return None
        text, used, rule = head + _dataloader_text(bound, limit), [f"DataLoader share of the step above "
                                                                   f"{w.pct(limit.value)}"], limit.reference
    else:
        body, used = _pipeline_text(con, bound)
        text = head + body
        rule = "; ".join(t.reference for t in (threshold(con, "input_bound.iteration_interval_ns"),
                                              threshold(con, "input_bound.device_queue_empty_ratio")) if t)
    keys = ("data_loading_source", "dataloader_mode", "producer_op_id", "producer_op_type", "producer_worker_count",
            "producer_throughput_rows_per_ms", "device_queue_empty_ratio", "pipeline_queue_empty_ratio")
    fields = {k: bound[0].get(k) for k in keys if k in bound[0]}
    fields.update(steps=sorted({r["step"] for r in bound}), ranks=sorted({r["rank"] for r in bound}),
                  data_loading_ratio_min=min(r["data_loading_ratio"] or 0 for r in bound),
                  data_loading_ratio_max=max(r["data_loading_ratio"] or 0 for r in bound),
                  data_loading_ns_mean=sum(r["data_loading_ns"] for r in bound) / len(bound))
    return Finding(run, "input-bound", text, f"tracedb query input_bound --run {run}", cause="input",
                   number=sum(r["data_loading_ratio"] or 0 for r in bound) / len(bound), threshold="; ".join(used),
                   rule=rule, fields=fields)


def pipeline_cpu(con, run: str) -> Finding | None:
    """A dataset pipeline op whose workers are overloaded or idle (cpu_utilization's verdict)."""
    if not has_view(con, "cpu_utilization"):
        return None
    op = one(con, """
        SELECT * FROM cpu_utilization WHERE run_name = ? AND verdict IN ('add_workers', 'workers_idle')
        ORDER BY verdict = 'add_workers' DESC, CASE WHEN verdict = 'add_workers' THEN -cpu_per_worker_pct
                 ELSE cpu_per_worker_pct END, rank, pipeline_op_id LIMIT 1""", [run])
    if op is None:
        return None
    hi, lo = threshold(con, "cpu_utilization.per_worker_max_pct"), threshold(con, "cpu_utilization.per_worker_min_pct")
    limit = hi if op["verdict"] == "add_workers" else lo
    name = f"The dataset pipeline's {op['pipeline_op_type']} (op {op['pipeline_op_id']})"
    use = (f"uses {op['cpu_per_worker_pct']:.0f} % CPU per worker with {w.count(op['worker_count'], 'worker')}")
    if op["verdict"] == "add_workers":
        text = f"{name} {use} (above {limit.value:g} %): raise its num_parallel_workers." if limit else None
    else:
        text = (f"{name} {use} (below {limit.value:g} %): its workers mostly wait, fewer would do." if limit else None)
    if text is None:
        return None
    return Finding(run, "pipeline CPU", text, f"tracedb query cpu_utilization --run {run}", cause="input",
                   number=op["cpu_per_worker_pct"], threshold=f"CPU per worker above {hi.value:g} % or below "
                   f"{lo.value:g} %" if hi and lo else None, rule=limit.reference, fields=op)
