"""The findings about how the hardware is used and the advisor rules whose data is already in the
file: the largest matrix-op group whose shape does not suit the matrix unit (shape_efficiency),
the precision mix (precision_share), MFU and slow ranks by FLOPS (rank_flops), communication sizes
not aligned to 512 bytes (msprof-analyze's ByteAlignmentChecker, on link) and dynamic shapes (ops
whose input dims change between steps, on op). Each function takes (connection, run name) and gives
one :class:`~.finding.Finding` or None; a view, column or threshold row missing from the file
skips it (the hardware views come with the hardware-use work)."""
from __future__ import annotations

from .finding import Finding, all_rows, has_columns, has_table, one, run_platform, sql_quote, threshold
from . import words as w

SHAPE_COLUMNS = ("run_name", "rank", "name", "operand_shapes", "precision", "device_ns", "call_count",
                 "misaligned_dims", "aligned", "required_multiple", "matrix_unit", "e2e_ratio", "rule_id",
                 "m", "n", "k", "c_in", "c_out", "padded_m", "padded_n", "padded_k", "padded_c_in", "padded_c_out")
DIM_NAMES = {"M": "m", "N": "n", "K": "k", "C_in": "c_in", "C_out": "c_out"}


def misaligned_shape(con, run: str) -> Finding | None:
    """The matrix-op group with the most device time whose dims are no multiple of what the matrix
    unit needs (shape_efficiency), with the padded dims."""
    if not has_columns(con, "shape_efficiency", *SHAPE_COLUMNS):
        return None
    g = one(con, "SELECT * FROM shape_efficiency WHERE run_name = ? AND aligned = false "
                 "ORDER BY device_ns DESC, rank, name LIMIT 1", [run])
    if g is None:
        return None
    dims = [d.strip() for d in (g["misaligned_dims"] or "").split(",") if d.strip() in DIM_NAMES]
    said = " and ".join(f"{d} = {g[DIM_NAMES[d]]}" for d in dims) or "its shape"
    pads = ", ".join(f"{d} to {g['padded_' + DIM_NAMES[d]]}" for d in dims if g.get("padded_" + DIM_NAMES[d]))
    unit = f" for the {g['matrix_unit']}" if g["matrix_unit"] else ""
    text = (f"{g['name']} takes {w.duration(g['device_ns'])} in {w.count(g['call_count'], 'call')}"
            + (f" ({w.pct(g['e2e_ratio'])} of the E2E time)" if g["e2e_ratio"] is not None else "")
            + f" with {said}, not a multiple of {g['required_multiple']}{unit} at {g['precision']}"
            + (f": pad {pads}" if pads else "") + f" (operands {g['operand_shapes']}).")
    rule = None
    if g["rule_id"] is not None and has_columns(con, "alignment_rule", "rule_id", "source"):
        row = con.execute("SELECT source FROM alignment_rule WHERE rule_id = ?", [g["rule_id"]]).fetchone()
        rule = row[0] if row else None
    return Finding(run, "matrix shape", text, f"SELECT * FROM shape_efficiency WHERE run_name = {sql_quote(run)} "
                   "AND aligned = false ORDER BY device_ns DESC", cause="compute", number=g["device_ns"],
                   threshold=f"M, N, K and channels multiples of {g['required_multiple']}",
                   rule=rule or "alignment_rule (NVIDIA Deep Learning Performance Guide; Ascend fractal layouts)",
                   fields=g)


def precision_mix(con, run: str) -> Finding | None:
    """Compute time by precision and the share on the matrix unit (precision_share)."""
    if not has_columns(con, "precision_share", "run_name", "precision", "device_ns", "matrix_unit_ns"):
        return None
    mix = all_rows(con, "SELECT precision, sum(device_ns) AS device_ns, sum(matrix_unit_ns) AS matrix_unit_ns "
                        "FROM precision_share WHERE run_name = ? GROUP BY precision ORDER BY device_ns DESC, precision",
                   [run])
    total = sum(r["device_ns"] or 0 for r in mix)
    if not total or all(r["precision"] in (None, "unknown") for r in mix):
        return None         # no kernel of the run says its precision: nothing to tell
    on_unit = sum(r["matrix_unit_ns"] or 0 for r in mix)
    parts = ", ".join(f"{r['precision'] or 'unknown'} {w.pct(r['device_ns'] / total)}" for r in mix[:4])
    text = (f"Precision mix of the compute kernels' time: {parts}; {w.pct(on_unit / total)} of it on the matrix "
            f"unit (Tensor Core / Cube).")
    if mix[0]["precision"] == "fp32":
        text += " Most of it is fp32: mixed precision (bf16 / fp16 autocast) or TF32 / HF32 would use the matrix unit."
    return Finding(run, "precision", text, f"tracedb query precision_share --run {run}", cause="compute",
                   number=on_unit / total, fields={"mix": mix, "compute_ns": total, "matrix_unit_ns": on_unit})


def flops(con, run: str) -> Finding | None:
    """MFU and the rank furthest below the mean FLOPS (rank_flops, MindInsight's 20 % rule); said
    only when there is something to act on: an MFU (the device's peak is known) or a slow rank."""
    if not has_columns(con, "rank_flops", "run_name", "rank", "step", "achieved_tflops", "mfu_ratio",
                       "below_mean_ratio", "slow_by_flops"):
        return None
    s = one(con, "SELECT avg(mfu_ratio) AS mfu, avg(achieved_tflops) AS tflops, count(*) AS n "
                 "FROM rank_flops WHERE run_name = ? AND achieved_tflops IS NOT NULL", [run])
    if not (s and s["n"]):
        return None
    slow = one(con, "SELECT rank, step, below_mean_ratio FROM rank_flops WHERE run_name = ? AND slow_by_flops "
                    "ORDER BY below_mean_ratio DESC, rank, step LIMIT 1", [run])
    if s["mfu"] is None and not slow:
        return None
    rate = (f"{s['tflops']:.1f} TFLOPS" if s["tflops"] >= 1 else f"{s['tflops'] * 1000:.1f} GFLOPS")
    text = f"FLOPS: {rate} achieved per device" + (f", MFU {w.pct(s['mfu'])}" if s["mfu"] is not None else "")
    if slow:
        text += (f"; rank {slow['rank']} runs {w.pct(slow['below_mean_ratio'])} below the ranks' mean FLOPS"
                 + (f" in step {slow['step']}" if slow["step"] is not None else "") + " (MindInsight's 20 % rule)")
    return Finding(run, "flops", text + ".", f"tracedb query rank_flops --run {run}", cause="compute",
                   number=s["mfu"], threshold="FLOPS more than 20 % below the ranks' mean" if slow else None,
                   rule="MindInsight cluster FLOPS rule" if slow else None, fields={**s, "slow": slow})


def comm_alignment(con, run: str) -> Finding | None:
    """SDMA copies of communication ops whose size is no multiple of 512 bytes (msprof-analyze's
    ByteAlignmentChecker: Memcpy / Reduce_Inline tasks, not on chip, larger than min_size)."""
    base, least = threshold(con, "comm_alignment.base_size_bytes"), threshold(con, "comm_alignment.min_size_bytes")
    if base is None or least is None or not has_table(con, "link"):
        return None
    sql = (f"SELECT l.rank, l.op_name, l.task_name, l.size_bytes, l.dur_ns FROM link AS l JOIN run AS r USING (run_id) "
           f"WHERE r.run_name = {sql_quote(run)} AND l.transport_type = 'SDMA' AND coalesce(l.link_type, '') <> "
           f"'ON_CHIP' AND l.task_name IN ('Memcpy', 'Reduce_Inline') AND l.size_bytes > {int(least.value)}")
    s = one(con, f"""
        SELECT count(*) FILTER (WHERE size_bytes % {int(base.value)} <> 0) AS bad_count,
               count(DISTINCT op_name) FILTER (WHERE size_bytes % {int(base.value)} <> 0) AS bad_ops,
               sum(dur_ns) FILTER (WHERE size_bytes % {int(base.value)} <> 0) AS bad_ns, sum(dur_ns) AS checked_ns,
               arg_max(op_name, dur_ns) FILTER (WHERE size_bytes % {int(base.value)} <> 0) AS example_op,
               arg_max(size_bytes, dur_ns) FILTER (WHERE size_bytes % {int(base.value)} <> 0) AS example_bytes
        FROM ({sql}) AS checked""")
    if not (s and s["bad_count"] and s["checked_ns"]):
        return None
    text = (f"Communication sizes: {w.count(s['bad_ops'], 'communication op')} move "
            f"{w.count(s['bad_count'], 'SDMA copy', 'SDMA copies')} whose size is not a multiple of "
            f"{int(base.value)} bytes ({w.pct(s['bad_ns'] / s['checked_ns'])} of the checked copy time; e.g. "
            f"{s['example_op']}, {s['example_bytes']:,} bytes), which slows the transfer: pad or bucket the "
            f"communicated tensors to {int(base.value)}-byte multiples.")
    return Finding(run, "communication size", text, sql + f" AND l.size_bytes % {int(base.value)} <> 0 "
                   "ORDER BY l.dur_ns DESC", cause="cluster", number=s["bad_count"],
                   threshold=f"sizes above {int(least.value)} bytes that are no multiple of {int(base.value)} bytes",
                   rule=base.reference, fields=s)


def dynamic_shapes(con, run: str) -> Finding | None:
    """Framework ops whose input dims, call by call, differ from one step to the next."""
    top = all_rows(con, """
        WITH per_step AS (
            SELECT o.rank, o.step, o.name, string_agg(o.input_dims, '|' ORDER BY o.ts_ns, o.op_id) AS dims,
                   sum(coalesce(o.device_self_ns, 0)) AS device_ns
            FROM op AS o JOIN run AS r USING (run_id)
            WHERE r.run_name = ? AND o.step IS NOT NULL AND o.input_dims IS NOT NULL
            GROUP BY o.rank, o.step, o.name),
        per_rank AS (
            SELECT rank, name, count(DISTINCT dims) AS shape_count, count(*) AS step_count,
                   sum(device_ns) AS device_ns
            FROM per_step GROUP BY rank, name)
        SELECT name, max(shape_count) AS shape_count, max(step_count) AS step_count, sum(device_ns) AS device_ns
        FROM per_rank WHERE shape_count > 1
        GROUP BY name ORDER BY device_ns DESC, name""", [run])
    if not top:
        return None
    fix = ("torch_npu.npu.set_compile_mode(jit_compile=False) uses the pre-built (binary) kernels instead"
           if run_platform(con, run) == "npu" else "torch.compile(dynamic=True) or cudnn.benchmark re-tune per shape")
    text = (f"Dynamic shapes: {w.count(len(top), 'framework op')} ({w.names([t['name'] for t in top])}) take inputs "
            f"whose dims change from step to step ({top[0]['name']}: "
            f"{w.count(top[0]['shape_count'], 'shape sequence')} "
            f"over {w.count(top[0]['step_count'], 'step')}); every new shape recompiles or re-tunes kernels: pad the "
            f"inputs to a few fixed sizes (bucketing); {fix}.")
    return Finding(run, "dynamic shapes", text,
                   f"SELECT step, name, input_dims, count(*) AS calls FROM op JOIN run USING (run_id) WHERE run_name = "
                   f"{sql_quote(run)} AND name = {sql_quote(top[0]['name'])} GROUP BY ALL ORDER BY step, input_dims",
                   cause="compute", number=len(top), threshold="an op's input dims, call by call, differ between steps",
                   rule="tracedb (msprof-analyze's advisor flags dynamic-shape operators from op_summary's op state)",
                   fields={"ops": top})
