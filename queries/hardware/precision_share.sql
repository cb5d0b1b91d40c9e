-- precision_share — device time of each step's compute kernels by precision (fp32 / tf32 / hf32 / bf16 / fp16 / int8 / fp8) and kernel class.
-- Grain:     one row per (run, rank, step, kernel class, precision) with compute kernels (kernel_pmu:
--            communication and copies aside); step NULL for kernels outside every step.
-- Source:    kernel_pmu (kernel.dur_ns; precision: NPU kernel_details.csv Input Data Types + HF32
--            Eligible, GPU the launching op's Kineto "Input type" + matrix_unit_rule tf32 names;
--            category: kernel_class_rule).
-- Reference: tracedb's own (no reference tool splits device time by precision). A kernel's
--            precision is that of its own inputs (NPU) or of the op that launched it (GPU), TF32 /
--            HF32 from the kernel name / HF32 Eligible; share_ratio divides by the step's compute
--            kernel time (a sum of kernel durations, not a union: overlapping kernels count twice).
-- Units:     *_ns integer nanoseconds; *_count kernels; *_ratio 0–1.
CREATE OR REPLACE VIEW precision_share AS
WITH k AS (
    SELECT run_name, rank, step, coalesce(category, 'Other') AS category, coalesce(precision, 'unknown') AS precision,
           dur_ns, on_matrix_unit
    FROM kernel_pmu
),
grouped AS (
    SELECT run_name, rank, step, category, precision, count(*) AS kernel_count, sum(dur_ns) AS device_ns,
           sum(CASE WHEN on_matrix_unit THEN dur_ns ELSE 0 END) AS matrix_unit_ns
    FROM k
    GROUP BY run_name, rank, step, category, precision
),
step_total AS (
    SELECT run_name, rank, step, sum(device_ns) AS step_ns
    FROM grouped
    GROUP BY run_name, rank, step
)
SELECT
    g.run_name::VARCHAR              AS run_name,        -- run name
    g.rank::INTEGER                  AS rank,            -- rank
    g.step::INTEGER                  AS step,            -- step (kernel.step); NULL outside every step
    g.category::VARCHAR              AS category,        -- kernel class (kernel_class_rule: Matmul, Conv, Flash Attention, Cube, Vector, Other ...)
    g.precision::VARCHAR             AS precision,       -- fp64, fp32, tf32, hf32, bf16, fp16, fp8, int8, other (integer / bool), unknown (no type recorded)
    g.kernel_count::BIGINT           AS kernel_count,    -- kernels of this class and precision in the step
    g.device_ns::BIGINT              AS device_ns,       -- their total duration, ns
    g.matrix_unit_ns::BIGINT         AS matrix_unit_ns,  -- of which on the matrix unit (Tensor Core, Matrix Core, Cube; kernel_pmu.on_matrix_unit), ns
    CASE WHEN t.step_ns > 0 THEN g.device_ns::DOUBLE / t.step_ns END::DOUBLE
                                     AS share_ratio      -- device_ns / the step's compute kernel time (all classes and precisions), 0–1
FROM grouped AS g
JOIN step_total AS t
    ON t.run_name = g.run_name AND t.rank = g.rank AND t.step IS NOT DISTINCT FROM g.step
ORDER BY run_name, rank, step, device_ns DESC, category, precision;
