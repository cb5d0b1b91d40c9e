-- op_flops — FLOPs, achieved TFLOPS and share of the device's peak of every matrix op call and NPU matrix kernel.
-- Grain:     one row per op_shape row (framework op of a matrix family or with a Kineto flops arg; NPU
--            matrix kernel).
-- Source:    op_shape (shape_flops from the recorded shapes; profiler_flops = the op event's Kineto
--            "flops" arg, with_flops=True; device_ns = op.device_total_ns / kernel.dur_ns);
--            kernel_pmu (tf32 / hf32 of the op's kernels); tracedb_internal.rank_hardware and
--            device_peak (the peak for the op's precision).
-- Reference: FLOPs: Kineto's own "flops" where the trace has it (PyTorch profiler computeFlops:
--            aten::mm, addmm, bmm, baddbmm, conv2d, mul, add), else torch.utils.flop_counter's
--            formulas from the shapes (op_shape.shape_flops). achieved TFLOPS = FLOPs / device time
--            (the op's kernels, summed); peak_pct = achieved / the highest dense peak device_peak lists
--            for the rank's device and the op's precision (÷ package_devices).
--            counted: the rows rank_flops adds up, one level per rank so nothing counts twice: the
--            ops with a Kineto flops arg when the rank has any (Kineto's FLOPs exactly), else the
--            innermost framework ops (model FLOPs), else the NPU kernels (padded layouts included).
-- Units:     flops floating-point operations; *_tflops 10^12 FLOP/s; *_ns integer nanoseconds; *_pct 0–100.
CREATE OR REPLACE VIEW op_flops AS
WITH s AS (
    SELECT os.*, h.run_name, h.device_model, h.package_device_count
    FROM op_shape AS os
    JOIN tracedb_internal.rank_hardware AS h
        ON h.run_id = os.run_id AND h.rank = os.rank
),
op_math AS (
    -- TF32 / HF32 is a property of the kernels an op ran: the op takes it when one of its kernels has it
    SELECT run_name, rank, op_id, min(precision) AS math_precision
    FROM kernel_pmu
    WHERE precision IN ('tf32', 'hf32') AND op_id IS NOT NULL
    GROUP BY run_name, rank, op_id
),
rank_level AS (
    SELECT
        run_id, rank,
        max(CASE WHEN profiler_flops IS NOT NULL THEN 1 ELSE 0 END) AS has_profiler,
        max(CASE WHEN kind = 'op' AND is_innermost AND shape_flops IS NOT NULL THEN 1 ELSE 0 END) AS has_op
    FROM op_shape
    GROUP BY run_id, rank
),
peak AS (
    SELECT device_model, precision, max(peak_tflops) AS peak_tflops
    FROM device_peak
    GROUP BY device_model, precision
),
counted_rows AS (
    SELECT
        s.*,
        CASE WHEN s.kind = 'op' THEN coalesce(m.math_precision, s.precision) ELSE s.precision END AS math_precision,
        coalesce(s.profiler_flops, s.shape_flops) AS used_flops,
        CASE WHEN l.has_profiler = 1 THEN s.profiler_flops IS NOT NULL
             WHEN l.has_op = 1 THEN s.kind = 'op' AND s.is_innermost AND s.shape_flops IS NOT NULL
             ELSE s.kind = 'kernel' AND s.shape_flops IS NOT NULL END AS counted
    FROM s
    JOIN rank_level AS l
        ON l.run_id = s.run_id AND l.rank = s.rank
    LEFT JOIN op_math AS m
        ON s.kind = 'op' AND m.run_name = s.run_name AND m.rank = s.rank AND m.op_id = s.op_id
)
SELECT
    r.run_name::VARCHAR                                  AS run_name,         -- run name
    r.rank::INTEGER                                      AS rank,             -- rank
    r.step::INTEGER                                      AS step,             -- step of the op / kernel
    r.kind::VARCHAR                                      AS kind,             -- op (framework op) or kernel (NPU kernel)
    r.op_id::BIGINT                                      AS op_id,            -- op.op_id (kernel rows: the launching op)
    r.kernel_id::BIGINT                                  AS kernel_id,        -- kernel.kernel_id of a kernel row
    r.name::VARCHAR                                      AS name,             -- op or kernel name
    r.family::VARCHAR                                    AS family,           -- op_shape.family (mm, bmm, conv, sdpa ...; elementwise: only a Kineto flops arg)
    r.operand_shapes::VARCHAR                            AS operand_shapes,   -- matrix operands as recorded
    r.math_precision::VARCHAR                            AS precision,        -- precision the op computed in: its type, tf32 / hf32 when its kernels say so
    r.used_flops::BIGINT                                 AS flops,            -- FLOPs: profiler_flops when recorded, else shape_flops; NULL when neither is known
    CASE WHEN r.profiler_flops IS NOT NULL THEN 'kineto'
         WHEN r.shape_flops IS NOT NULL THEN 'shapes' END::VARCHAR
                                                         AS flops_source,     -- kineto (the event's flops arg) or shapes (op_shape.shape_flops)
    r.shape_flops::BIGINT                                AS shape_flops,      -- FLOPs from the shapes (torch.utils.flop_counter formulas)
    r.profiler_flops::BIGINT                             AS profiler_flops,   -- Kineto's "flops" arg (with_flops=True); NULL when not recorded
    r.device_ns::BIGINT                                  AS device_ns,        -- device time of the op's kernels (op.device_total_ns) or of the kernel, ns
    CASE WHEN r.device_ns > 0 THEN r.used_flops::DOUBLE / r.device_ns / 1000 END::DOUBLE
                                                         AS achieved_tflops,  -- flops / device_ns, 10^12 FLOP/s
    r.device_model::VARCHAR                              AS device_model,     -- device_peak.device_model of the rank's device; NULL when unknown
    (p.peak_tflops / r.package_device_count)::DOUBLE          AS peak_tflops,      -- dense peak of the device for this precision, per device, 10^12 FLOP/s; NULL when not published
    CASE WHEN r.device_ns > 0 AND p.peak_tflops > 0
         THEN 100.0 * (r.used_flops::DOUBLE / r.device_ns / 1000) / (p.peak_tflops / r.package_device_count) END::DOUBLE
                                                         AS peak_pct,         -- achieved_tflops / peak_tflops, 0–100
    r.counted::BOOLEAN                                   AS counted,          -- TRUE for the rows rank_flops adds up (see Reference)
    r.is_innermost::BOOLEAN                              AS is_innermost      -- op_shape.is_innermost (no matrix op below it)
FROM counted_rows AS r
LEFT JOIN peak AS p
    ON p.device_model = r.device_model AND p.precision = r.math_precision
ORDER BY run_name, rank, kind, op_id, kernel_id;
