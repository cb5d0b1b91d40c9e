-- kernel_pmu — every compute kernel with the matrix unit it ran on, its precision, HF32 Eligible and the Ascend PMU counters.
-- Grain:     one row per kernel that is neither communication nor a copy (tracedb_internal.kernel_class).
-- Source:    kernel; kernel_pmu_raw (kernel_details.csv HF32 Eligible, Input Formats and PMU columns
--            aicore_time(us), aic_mac_ratio, aic_mte2_ratio, aiv_vec_ratio, cube_utilization(%) ...;
--            Ascend DB TASK_PMU_INFO); kernel_precision (derive/141); matrix_unit_rule (GPU
--            kernel names); tracedb_internal.rank_hardware (vendor).
-- Reference: GPU: a kernel runs on the Tensor Core / Matrix Core when an enabled matrix_unit_rule
--            matches its name (the shipped rules start from the TensorBoard plugin's TC_Allowlist,
--            pytorch/kineto tb_plugin tensor_core.py, and add the kernel families it misses,
--            kineto #1041); its precision is the rule's (tf32) else the launching op's. NPU: on the
--            Cube when the PMU counted MAC time (aic_mac_time / aic_mac_ratio > 0; msprof-analyze's
--            cube test), else, without PMU columns, when the Accelerator Core is AI_CORE or MIX_AIC;
--            precision from the kernel's input types, hf32 when HF32 Eligible says YES.
-- Units:     *_ns integer nanoseconds; *_ratio 0–1; *_pct 0–100; *_cycles cycles; *_fops floating-point operations.
CREATE OR REPLACE VIEW kernel_pmu AS
WITH kc AS (
    SELECT c.run_id, c.rank, c.kernel_id, c.step, c.name, c.dur_ns, c.op_id, c.category, k.file_id, k.op_type,
           k.accelerator_core, k.source
    FROM tracedb_internal.kernel_class AS c
    JOIN kernel AS k
        ON k.run_id = c.run_id AND k.rank = c.rank AND k.kernel_id = c.kernel_id
    WHERE NOT c.is_communication AND NOT c.is_copy
),
hw AS (
    SELECT run_id, rank, run_name, platform, vendor FROM tracedb_internal.rank_hardware
),
names AS (
    SELECT DISTINCT kc.run_id, kc.rank, kc.name FROM kc
),
name_rule AS (
    -- the GPU kernel-name rules, matched once per distinct name of a rank
    SELECT
        n.run_id, n.rank, n.name,
        arg_min(u.unit, u.rule_id) FILTER (WHERE u.unit IS NOT NULL) AS unit,
        arg_min(u.precision, u.rule_id) FILTER (WHERE u.precision IS NOT NULL) AS rule_precision
    FROM names AS n
    JOIN hw AS h
        ON h.run_id = n.run_id AND h.rank = n.rank AND h.platform = 'gpu'
    JOIN matrix_unit_rule AS u
        ON u.enabled AND (u.vendor IS NULL OR h.vendor IS NULL OR u.vendor = h.vendor)
        AND lower(n.name) LIKE lower(u.pattern) ESCAPE '\'
    GROUP BY n.run_id, n.rank, n.name
)
SELECT
    h.run_name::VARCHAR                      AS run_name,             -- run name
    kc.rank::INTEGER                         AS rank,                 -- rank
    kc.step::INTEGER                         AS step,                 -- step of the kernel (kernel.step)
    kc.kernel_id::BIGINT                     AS kernel_id,            -- kernel.kernel_id
    kc.name::VARCHAR                         AS name,                 -- kernel name
    kc.op_type::VARCHAR                      AS op_type,              -- NPU op type (kernel_details.csv Type); NULL on GPU
    kc.accelerator_core::VARCHAR             AS accelerator_core,     -- NPU Accelerator Core (AI_CORE, MIX_AIC, AI_VECTOR_CORE ...); NULL on GPU
    kc.category::VARCHAR                     AS category,             -- kernel class (kernel_class_rule: Matmul, Conv, Flash Attention, Cube, Vector ...)
    kc.op_id::BIGINT                         AS op_id,                -- launching framework op (op.op_id)
    kc.dur_ns::BIGINT                        AS dur_ns,               -- kernel duration, ns
    CASE WHEN h.platform = 'gpu' THEN r.unit
         WHEN p.aic_mac_time_ns > 0 OR p.aic_mac_ratio > 0 THEN 'Cube'
         WHEN p.aic_mac_ratio IS NULL AND p.aic_mac_time_ns IS NULL
              AND upper(kc.accelerator_core) IN ('AI_CORE', 'MIX_AIC') THEN 'Cube' END::VARCHAR
                                             AS matrix_unit,          -- Tensor Core, Matrix Core (MFMA) or Cube the kernel ran on; NULL = not on the matrix unit
    (CASE WHEN h.platform = 'gpu' THEN r.unit
          WHEN p.aic_mac_time_ns > 0 OR p.aic_mac_ratio > 0 THEN 'Cube'
          WHEN p.aic_mac_ratio IS NULL AND p.aic_mac_time_ns IS NULL
               AND upper(kc.accelerator_core) IN ('AI_CORE', 'MIX_AIC') THEN 'Cube' END IS NOT NULL)::BOOLEAN
                                             AS on_matrix_unit,       -- TRUE when matrix_unit is set
    CASE WHEN h.platform = 'gpu' THEN CASE WHEN r.unit IS NOT NULL THEN 'name rule' ELSE 'no name rule' END
         WHEN p.aic_mac_time_ns IS NOT NULL OR p.aic_mac_ratio IS NOT NULL THEN 'pmu'
         ELSE 'accelerator core' END::VARCHAR AS unit_source,         -- what matrix_unit comes from: name rule / no name rule (GPU), pmu or accelerator core (NPU)
    coalesce(CASE WHEN kp.precision = 'fp32' OR kp.precision IS NULL THEN r.rule_precision END,
             kp.precision)::VARCHAR          AS precision,            -- fp64, fp32, tf32, hf32, bf16, fp16, fp8, int8, other; NULL when no type was recorded
    p.hf32_eligible::BOOLEAN                 AS hf32_eligible,        -- kernel_details.csv HF32 Eligible: TRUE = YES, FALSE = NO, NULL = N/A or not recorded
    p.input_formats::VARCHAR                 AS input_formats,        -- Input Formats as written (ND, FRACTAL_NZ, NC1HWC0 ...)
    p.aicore_time_ns::BIGINT                 AS aicore_time_ns,       -- aicore_time(us): time on the cube cores, ns
    p.aic_total_cycles::BIGINT               AS aic_total_cycles,     -- aic_total_cycles
    p.aic_mac_time_ns::BIGINT                AS aic_mac_time_ns,      -- aic_mac_time(us): time the Cube computed, ns
    p.aic_mac_ratio::DOUBLE                  AS aic_mac_ratio,        -- aic_mac_ratio: Cube busy share of the cube-core time, 0–1
    p.aic_scalar_ratio::DOUBLE               AS aic_scalar_ratio,     -- aic_scalar_ratio, 0–1
    p.aic_mte1_ratio::DOUBLE                 AS aic_mte1_ratio,       -- aic_mte1_ratio (L1 → L0 moves), 0–1
    p.aic_mte2_ratio::DOUBLE                 AS aic_mte2_ratio,       -- aic_mte2_ratio (global memory → L1 moves; high = memory bound), 0–1
    p.aic_fixpipe_ratio::DOUBLE              AS aic_fixpipe_ratio,    -- aic_fixpipe_ratio, 0–1
    p.aic_mac_fp16_ratio::DOUBLE             AS aic_mac_fp16_ratio,   -- aic_mac_fp16_ratio (ArithmeticUtilization), 0–1
    p.aic_mac_int8_ratio::DOUBLE             AS aic_mac_int8_ratio,   -- aic_mac_int8_ratio (ArithmeticUtilization), 0–1
    p.aic_cube_fops::DOUBLE                  AS aic_cube_fops,        -- aic_cube_fops (ArithmeticUtilization): Cube floating-point operations
    p.aiv_time_ns::BIGINT                    AS aiv_time_ns,          -- aiv_time(us): time on the vector cores, ns
    p.aiv_total_cycles::BIGINT               AS aiv_total_cycles,     -- aiv_total_cycles
    p.aiv_vec_time_ns::BIGINT                AS aiv_vec_time_ns,      -- aiv_vec_time(us): time the Vector unit computed, ns
    p.aiv_vec_ratio::DOUBLE                  AS aiv_vec_ratio,        -- aiv_vec_ratio, 0–1
    p.aiv_scalar_ratio::DOUBLE               AS aiv_scalar_ratio,     -- aiv_scalar_ratio, 0–1
    p.aiv_mte2_ratio::DOUBLE                 AS aiv_mte2_ratio,       -- aiv_mte2_ratio, 0–1
    p.aiv_mte3_ratio::DOUBLE                 AS aiv_mte3_ratio,       -- aiv_mte3_ratio, 0–1
    p.aiv_vec_fp32_ratio::DOUBLE             AS aiv_vec_fp32_ratio,   -- aiv_vec_fp32_ratio (ArithmeticUtilization), 0–1
    p.aiv_vec_fp16_ratio::DOUBLE             AS aiv_vec_fp16_ratio,   -- aiv_vec_fp16_ratio (ArithmeticUtilization), 0–1
    p.aiv_vector_fops::DOUBLE                AS aiv_vector_fops,      -- aiv_vector_fops (ArithmeticUtilization): vector floating-point operations
    p.cube_utilization_pct::DOUBLE           AS cube_utilization_pct  -- cube_utilization(%) as written, 0–100
FROM kc
JOIN hw AS h
    ON h.run_id = kc.run_id AND h.rank = kc.rank
LEFT JOIN name_rule AS r
    ON r.run_id = kc.run_id AND r.rank = kc.rank AND r.name = kc.name
LEFT JOIN kernel_pmu_raw AS p
    ON p.run_id = kc.run_id AND p.rank = kc.rank AND p.file_id = kc.file_id AND p.kernel_id = kc.kernel_id
LEFT JOIN kernel_precision AS kp
    ON kp.run_id = kc.run_id AND kp.rank = kc.rank AND kp.kernel_id = kc.kernel_id
ORDER BY run_name, rank, kernel_id;
