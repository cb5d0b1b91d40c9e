-- op_precision and kernel_precision of (run, rank) (schema/070): the precision each framework op
-- and each kernel (copies and communication aside) computes in, from the recorded types.
-- Op: the first floating-point input type of op.input_types (dtype_list, derive/_session.sql;
-- the Ascend DB's swapped columns taken by content as in derive/140), else the first integer /
-- bool tensor type (precision other). Kernel: an NPU kernel's own Input Data Types (first
-- floating-point one; hf32 when fp32 and kernel_details.csv / the DB says HF32 Eligible YES),
-- else the launching op's (kernel.op_id), else none. GPU kernels carry no types: TF32 is read
-- from their names at query time (matrix_unit_rule).
DELETE FROM op_precision WHERE (run_id, rank) IN (FROM derive_rank());

INSERT INTO op_precision BY NAME
WITH ops AS (
    SELECT run_id, rank, op_id,
           CASE WHEN regexp_matches(input_dims, '[A-Za-z]') AND NOT regexp_matches(coalesce(input_types, ''), '[A-Za-z]')
                THEN input_dims ELSE input_types END AS types
    FROM op
    WHERE (run_id, rank) IN (FROM derive_rank()) AND input_types IS NOT NULL
),
distinct_types AS (
    -- a trace repeats few type lists many times: each is read once
    SELECT types, dtype_list(types) AS t FROM (SELECT DISTINCT types FROM ops)
),
picked AS (
    SELECT types,
           coalesce(list_filter(t, lambda y: precision_of(y) IN ('fp64', 'fp32', 'fp16', 'bf16', 'fp8', 'int8'))[1],
                    list_filter(t, lambda y: precision_of(y) IS NOT NULL)[1]) AS dtype
    FROM distinct_types
)
SELECT o.run_id, o.rank, o.op_id, p.dtype, precision_of(p.dtype) AS precision
FROM ops AS o
JOIN picked AS p ON p.types = o.types
WHERE p.dtype IS NOT NULL;

DELETE FROM kernel_precision WHERE (run_id, rank) IN (FROM derive_rank());

INSERT INTO kernel_precision BY NAME
WITH k AS (
    SELECT k.run_id, k.rank, k.kernel_id, k.file_id, k.op_id, k.input_dtypes, p.hf32_eligible
    FROM kernel AS k
    LEFT JOIN kernel_pmu_raw AS p
        ON p.run_id = k.run_id AND p.rank = k.rank AND p.file_id = k.file_id AND p.kernel_id = k.kernel_id
    WHERE (k.run_id, k.rank) IN (FROM derive_rank()) AND NOT k.is_communication
      AND k.copy_kind IS NULL
),
distinct_types AS (
    SELECT input_dtypes, dtype_list(input_dtypes) AS t FROM (SELECT DISTINCT input_dtypes FROM k)
),
picked AS (
    SELECT input_dtypes,
           coalesce(list_filter(t, lambda y: precision_of(y) IN ('fp64', 'fp32', 'fp16', 'bf16', 'fp8', 'int8'))[1],
                    list_filter(t, lambda y: precision_of(y) IS NOT NULL)[1]) AS kdtype
    FROM distinct_types
),
own AS (
    SELECT k.*, p.kdtype FROM k LEFT JOIN picked AS p ON p.input_dtypes = k.input_dtypes
)
SELECT o.run_id, o.rank, o.kernel_id,
       coalesce(o.kdtype, p.dtype) AS dtype,
       CASE WHEN o.kdtype IS NOT NULL
            THEN CASE WHEN precision_of(o.kdtype) = 'fp32' AND o.hf32_eligible THEN 'hf32' ELSE precision_of(o.kdtype) END
            ELSE p.precision END AS precision,
       CASE WHEN o.kdtype IS NOT NULL THEN 'kernel' WHEN p.dtype IS NOT NULL THEN 'op' ELSE 'none' END AS source
FROM own AS o
LEFT JOIN op_precision AS p
    ON p.run_id = o.run_id AND p.rank = o.rank AND p.op_id = o.op_id;
