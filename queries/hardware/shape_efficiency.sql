-- shape_efficiency — matrix ops grouped by shape and precision: time spent, and whether M, N, K / the channels suit the matrix unit.
-- Grain:     one row per (run, rank, kind, op name, family, operand shapes, precision) of the parsed
--            op_shape rows that do the work: innermost framework ops (kind op) and NPU matrix
--            kernels (kind kernel: the same work as the device saw it).
-- Source:    op_shape (dims; device_ns = op.device_total_ns / kernel.dur_ns); kernel_pmu (tf32 /
--            hf32 of the op's kernels); tracedb_internal.rank_hardware (vendor, architecture);
--            alignment_rule; capture_breakdown (computing_ns, e2e_ns of the rank).
-- Reference: NVIDIA Deep Learning Performance Guide (Tensor Cores need M, N, K multiples of 8 for
--            FP16/BF16, 16 for INT8, 4 for TF32, most efficient on A100/H100 at 128 bytes; conv
--            channels likewise); Ascend fractal layouts (dims padded to 16 / 32 bytes). The rule:
--            the enabled alignment_rule of the rank's vendor for the op's precision and class, one
--            naming the rank's architecture before one for every architecture, then the lower
--            rule_id. aligned = every checked dim is a multiple of required_multiple (NULL: no
--            rule, e.g. fp32 on Volta, or no published minimum); aligned_efficient the same for
--            efficient_multiple; the padded dims are the next multiples of required_multiple
--            (of efficient_multiple when the rule has no minimum). The issue-41 guide: on V100 an fp16 [16,36,1504] x [1504,10000]
--            MatMul takes 0.267 ms, with K = 1500 or N = 9999 1.367 / 1.388 ms (no Tensor Core).
-- Units:     *_ns integer nanoseconds; *_ratio 0–1 of the rank's capture; *_count op calls or kernels;
--            *_multiple, dims (batch, m, n, k, c_in, c_out, padded_*) elements.
CREATE OR REPLACE VIEW shape_efficiency AS
WITH hw AS (
    SELECT run_id, rank, run_name, vendor, architecture FROM tracedb_internal.rank_hardware
),
op_math AS (
    SELECT run_name, rank, op_id, min(precision) AS math_precision
    FROM kernel_pmu
    WHERE precision IN ('tf32', 'hf32') AND op_id IS NOT NULL
    GROUP BY run_name, rank, op_id
),
work AS (
    SELECT
        s.run_id, s.rank, h.run_name, h.vendor, h.architecture, s.kind, s.name, s.family, s.operand_shapes,
        CASE WHEN s.kind = 'op' THEN coalesce(m.math_precision, s.precision) ELSE s.precision END AS precision,
        CASE WHEN s.family IN ('mm', 'addmm', 'bmm', 'baddbmm', 'linear', 'matmul', 'scaled_mm') THEN 'gemm'
             WHEN s.family IN ('conv', 'conv_transpose', 'conv_bwd', 'conv_bwd_input', 'conv_bwd_weight') THEN 'conv'
             ELSE 'attention' END AS op_class,
        s.batch, s.m, s.n, s.k, s.c_in, s.c_out, s.device_ns
    FROM op_shape AS s
    JOIN hw AS h
        ON h.run_id = s.run_id AND h.rank = s.rank
    LEFT JOIN op_math AS m
        ON s.kind = 'op' AND m.run_name = h.run_name AND m.rank = s.rank AND m.op_id = s.op_id
    WHERE s.parsed AND (s.kind = 'kernel' OR s.is_innermost)
),
grp AS (
    SELECT
        run_id, rank, run_name, vendor, architecture, kind, name, family, operand_shapes, precision, op_class,
        batch, m, n, k, c_in, c_out,
        count(*) AS call_count, sum(coalesce(device_ns, 0)) AS device_ns
    FROM work
    GROUP BY run_id, rank, run_name, vendor, architecture, kind, name, family, operand_shapes, precision, op_class,
             batch, m, n, k, c_in, c_out
),
rule_pick AS (
    SELECT
        g.run_id, g.rank, g.kind, g.name, g.family, g.operand_shapes, g.precision,
        arg_min(u.rule_id, CASE WHEN u.architecture IS NULL THEN 1000000 ELSE 0 END + u.rule_id) AS rule_id
    FROM grp AS g
    JOIN alignment_rule AS u
        ON u.enabled AND u.vendor = g.vendor AND u.precision = g.precision AND u.op_class = g.op_class
        AND (u.architecture IS NULL OR u.architecture = g.architecture)
    GROUP BY g.run_id, g.rank, g.kind, g.name, g.family, g.operand_shapes, g.precision
),
ruled AS (
    SELECT
        g.*, u.rule_id, u.unit, u.required_multiple AS req, coalesce(u.efficient_multiple, u.required_multiple) AS eff,
        -- the dims the rule checks (alignment_rule.dims), NULL when not checked
        CASE WHEN (',' || replace(u.dims, ' ', '') || ',') LIKE '%,M,%' THEN g.m END AS dm,
        CASE WHEN (',' || replace(u.dims, ' ', '') || ',') LIKE '%,N,%' THEN g.n END AS dn,
        CASE WHEN (',' || replace(u.dims, ' ', '') || ',') LIKE '%,K,%' THEN g.k END AS dk,
        CASE WHEN (',' || replace(u.dims, ' ', '') || ',') LIKE '%,C_in,%' THEN g.c_in END AS dci,
        CASE WHEN (',' || replace(u.dims, ' ', '') || ',') LIKE '%,C_out,%' THEN g.c_out END AS dco
    FROM grp AS g
    LEFT JOIN rule_pick AS p
        ON p.run_id = g.run_id AND p.rank = g.rank AND p.kind = g.kind AND p.name = g.name AND p.family = g.family
        AND p.operand_shapes IS NOT DISTINCT FROM g.operand_shapes AND p.precision IS NOT DISTINCT FROM g.precision
    LEFT JOIN alignment_rule AS u
        ON u.rule_id = p.rule_id
),
checked AS (
    SELECT *,
           concat_ws(',',
                     CASE WHEN dm % req <> 0 THEN 'M' END, CASE WHEN dn % req <> 0 THEN 'N' END,
                     CASE WHEN dk % req <> 0 THEN 'K' END, CASE WHEN dci % req <> 0 THEN 'C_in' END,
                     CASE WHEN dco % req <> 0 THEN 'C_out' END) AS bad_req,
           concat_ws(',',
                     CASE WHEN dm % eff <> 0 THEN 'M' END, CASE WHEN dn % eff <> 0 THEN 'N' END,
                     CASE WHEN dk % eff <> 0 THEN 'K' END, CASE WHEN dci % eff <> 0 THEN 'C_in' END,
                     CASE WHEN dco % eff <> 0 THEN 'C_out' END) AS bad_eff
    FROM ruled
),
capture AS (
    SELECT r.run_id, c.rank, c.computing_ns, c.e2e_ns
    FROM capture_breakdown AS c
    JOIN run AS r
        ON r.run_name = c.run_name
)
SELECT
    c.run_name::VARCHAR                         AS run_name,             -- run name
    c.rank::INTEGER                             AS rank,                 -- rank
    c.kind::VARCHAR                             AS kind,                 -- op (innermost framework op) or kernel (NPU matrix kernel)
    c.name::VARCHAR                             AS name,                 -- op or kernel name
    c.family::VARCHAR                           AS family,               -- op_shape.family (mm, bmm, addmm, conv, conv_bwd, sdpa, flash_attention ...)
    c.operand_shapes::VARCHAR                   AS operand_shapes,       -- matrix operands as recorded ([16,5185,64] x [16,64,5185])
    c.precision::VARCHAR                        AS precision,            -- fp32, tf32, hf32, bf16, fp16, fp8, int8 ... (tf32 / hf32 from the op's kernels)
    c.batch::BIGINT                             AS batch,                -- batch (bmm batch, conv N, attention B)
    c.m::BIGINT                                 AS m,                    -- GEMM M
    c.n::BIGINT                                 AS n,                    -- GEMM N
    c.k::BIGINT                                 AS k,                    -- GEMM K
    c.c_in::BIGINT                              AS c_in,                 -- conv input channels
    c.c_out::BIGINT                             AS c_out,                -- conv output channels
    c.call_count::BIGINT                        AS call_count,           -- op calls / kernels in the group
    c.device_ns::BIGINT                         AS device_ns,            -- their device time, ns
    (c.device_ns // c.call_count)::BIGINT       AS avg_device_ns,        -- device time per call, ns (integer division)
    c.unit::VARCHAR                             AS matrix_unit,          -- the unit the rule is about (Tensor Core, Cube); NULL without a rule
    c.rule_id::INTEGER                          AS rule_id,              -- alignment_rule.rule_id applied; NULL: no rule for this vendor, precision and class
    c.req::INTEGER                              AS required_multiple,    -- alignment_rule.required_multiple
    c.eff::INTEGER                              AS efficient_multiple,   -- alignment_rule.efficient_multiple, else required_multiple
    CASE WHEN c.req IS NOT NULL THEN c.bad_req END::VARCHAR
                                                AS misaligned_dims,      -- checked dims that are no multiple of required_multiple (M, N, K, C_in, C_out), '' when none; NULL without a minimum
    CASE WHEN c.eff IS NOT NULL THEN c.bad_eff END::VARCHAR
                                                AS inefficient_dims,     -- checked dims that are no multiple of efficient_multiple, '' when none; NULL without a rule
    CASE WHEN c.req IS NOT NULL THEN c.bad_req = '' END::BOOLEAN
                                                AS aligned,              -- every checked dim a multiple of required_multiple; NULL when no rule or no minimum applies
    CASE WHEN c.eff IS NOT NULL THEN c.bad_eff = '' END::BOOLEAN
                                                AS aligned_efficient,    -- every checked dim a multiple of efficient_multiple; NULL when no rule applies
    CASE WHEN c.dm IS NOT NULL AND coalesce(c.req, c.eff) > 0
         THEN (c.dm + coalesce(c.req, c.eff) - 1) // coalesce(c.req, c.eff) * coalesce(c.req, c.eff) END::BIGINT
                                                AS padded_m,             -- M rounded up to required_multiple (efficient_multiple when the rule has no minimum): the padded shape that satisfies the rule
    CASE WHEN c.dn IS NOT NULL AND coalesce(c.req, c.eff) > 0
         THEN (c.dn + coalesce(c.req, c.eff) - 1) // coalesce(c.req, c.eff) * coalesce(c.req, c.eff) END::BIGINT
                                                AS padded_n,             -- N rounded up to required_multiple
    CASE WHEN c.dk IS NOT NULL AND coalesce(c.req, c.eff) > 0
         THEN (c.dk + coalesce(c.req, c.eff) - 1) // coalesce(c.req, c.eff) * coalesce(c.req, c.eff) END::BIGINT
                                                AS padded_k,             -- K rounded up to required_multiple
    CASE WHEN c.dci IS NOT NULL AND coalesce(c.req, c.eff) > 0
         THEN (c.dci + coalesce(c.req, c.eff) - 1) // coalesce(c.req, c.eff) * coalesce(c.req, c.eff) END::BIGINT
                                                AS padded_c_in,          -- C_in rounded up to required_multiple
    CASE WHEN c.dco IS NOT NULL AND coalesce(c.req, c.eff) > 0
         THEN (c.dco + coalesce(c.req, c.eff) - 1) // coalesce(c.req, c.eff) * coalesce(c.req, c.eff) END::BIGINT
                                                AS padded_c_out,         -- C_out rounded up to required_multiple
    CASE WHEN x.computing_ns > 0 THEN c.device_ns::DOUBLE / x.computing_ns END::DOUBLE
                                                AS computing_ratio,      -- device_ns / the rank's computing time over the capture (capture_breakdown), 0–1
    CASE WHEN x.e2e_ns > 0 THEN c.device_ns::DOUBLE / x.e2e_ns END::DOUBLE
                                                AS e2e_ratio             -- device_ns / the rank's E2E time (capture_breakdown), 0–1
FROM checked AS c
LEFT JOIN capture AS x
    ON x.run_id = c.run_id AND x.rank = c.rank
ORDER BY run_name, rank, device_ns DESC, kind, name, family, operand_shapes, precision;
