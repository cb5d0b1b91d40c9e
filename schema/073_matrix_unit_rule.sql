-- Which GPU kernels run on the matrix unit (NVIDIA Tensor Core, AMD MFMA Matrix Core), and the
-- precision a kernel name proves (TF32): data, not code, matched on the kernel name at query
-- time (kernel_pmu, precision_share, op_flops), so a rule added with plain SQL shows at once.
-- A kernel-name allowlist goes stale as libraries rename kernels (pytorch/kineto #1041: Conv3d
-- kernels missing from the TensorBoard plugin's list showed 0 % Tensor Core use): add a rule
-- with rule_id >= 1000 for a kernel family the shipped rules miss. Shipped rules have rule_id <
-- 1000 and are inserted when missing (INSERT OR IGNORE); set enabled = false to drop one.
--
-- A kernel runs on the matrix unit when an enabled rule of its vendor (or of every vendor)
-- with unit set matches its name (LIKE, case-insensitive); its precision is that of the
-- matching rule with a precision set and the lowest rule_id, else the launching op's.
-- Ascend kernels need no rule: the PMU says (kernel_pmu: aic_mac_ratio > 0), else the
-- Accelerator Core (AI_CORE / MIX_AIC run on the Cube).

CREATE TABLE IF NOT EXISTS matrix_unit_rule (
    rule_id   INTEGER PRIMARY KEY,
    vendor    VARCHAR,
    pattern   VARCHAR NOT NULL,
    unit      VARCHAR,
    precision VARCHAR,
    enabled   BOOLEAN NOT NULL DEFAULT true,
    source    VARCHAR NOT NULL
);
COMMENT ON TABLE matrix_unit_rule IS 'GPU kernel-name rules: which kernels run on the matrix unit (Tensor Core, Matrix Core) and which precision a name proves (tf32). Shipped rules rule_id < 1000, yours >= 1000; applied at query time.';
COMMENT ON COLUMN matrix_unit_rule.rule_id IS 'Rule key; shipped rules < 1000.';
COMMENT ON COLUMN matrix_unit_rule.vendor IS 'nvidia or amd; NULL = every GPU vendor.';
COMMENT ON COLUMN matrix_unit_rule.pattern IS 'SQL LIKE pattern on kernel.name, matched case-insensitively; \ escapes _ and %.';
COMMENT ON COLUMN matrix_unit_rule.unit IS 'Tensor Core or Matrix Core: a matching kernel runs on it; NULL = the rule sets the precision only.';
COMMENT ON COLUMN matrix_unit_rule.precision IS 'Precision a matching kernel computes in (tf32 for TF32 kernels of fp32 ops); NULL = the launching op''s.';
COMMENT ON COLUMN matrix_unit_rule.enabled IS 'FALSE switches the rule off.';
COMMENT ON COLUMN matrix_unit_rule.source IS 'Where the rule comes from.';

INSERT OR IGNORE INTO matrix_unit_rule (rule_id, vendor, pattern, unit, precision, source)
VALUES
    -- the TensorBoard plugin's allowlist (from NVIDIA PyProf tc.py), one rule per substring
    (1,  'nvidia', '%h884%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist (from NVIDIA PyProf tc.py)'),
    (2,  'nvidia', '%s884%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (3,  'nvidia', '%h1688%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (4,  'nvidia', '%s1688%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (5,  'nvidia', '%hmma%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (6,  'nvidia', '%i8816%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (7,  'nvidia', '%16816%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (8,  'nvidia', '%dgrad\_1x1\_stride\_2x2%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (9,  'nvidia', '%first\_layer\_wgrad\_kernel%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (10, 'nvidia', '%conv1x1%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (11, 'nvidia', '%conv2d\_c1\_k1%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (12, 'nvidia', '%direct\_group%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (13, 'nvidia', '%xmma\_implicit\_gemm%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (14, 'nvidia', '%xmma\_sparse\_conv%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (15, 'nvidia', '%xmma\_warp\_specialized\_implicit\_gemm%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (16, 'nvidia', '%xmma\_gemm%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (17, 'nvidia', '%xmma\_sparse\_gemm%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    (18, 'nvidia', '%c1688%', 'Tensor Core', NULL, 'pytorch/kineto tb_plugin tensor_core.py TC_Allowlist'),
    -- kernel families newer than the allowlist (kineto #1041)
    (30, 'nvidia', '%xmma%', 'Tensor Core', NULL, 'cuDNN / cuBLAS xmma kernels of sm70+ (sm80_xmma_fprop_implicit_gemm_*, sm90_xmma_gemm_*): the allowlist names only some; kineto #1041'),
    (31, 'nvidia', '%tensorop%', 'Tensor Core', NULL, 'CUTLASS kernels are named cutlass_<arch>_tensorop_* / *OpClassTensorOp* when they use Tensor Cores (CUTLASS kernel naming)'),
    (32, 'nvidia', '%nvjet%', 'Tensor Core', NULL, 'cuBLAS 12.x Hopper/Blackwell GEMM kernels (nvjet_*) are Tensor Core kernels'),
    (33, 'nvidia', '%gmma%', 'Tensor Core', NULL, 'Hopper warpgroup MMA kernels (wgmma / gmma in the name)'),
    (34, 'nvidia', '%16832%', 'Tensor Core', NULL, 'INT8 / FP8 m16n8k32 MMA kernels (i16832, e4m3 16832)'),
    (35, 'nvidia', '%flash\_fwd%', 'Tensor Core', NULL, 'FlashAttention kernels (flash_fwd_kernel, pytorch_flash::flash_fwd_*) compute with mma on Tensor Cores'),
    (36, 'nvidia', '%flash\_bwd%', 'Tensor Core', NULL, 'FlashAttention backward kernels compute with mma on Tensor Cores'),
    (37, 'nvidia', '%fmha%', 'Tensor Core', NULL, 'fused multi-head attention kernels (fmha_*, cuDNN / xformers) compute with mma on Tensor Cores'),
    -- AMD: Tensile / hipBLASLt names carry the MFMA instruction (MI32x32x8...), composable-kernel
    -- and MIOpen kernels xdlops
    (50, 'amd', 'Cijk%\_MI%', 'Matrix Core', NULL, 'rocBLAS / hipBLASLt Tensile kernel names: _MI<m>x<n>x<k> = the MFMA instruction used'),
    (51, 'amd', '%xdl%', 'Matrix Core', NULL, 'composable_kernel / MIOpen kernels named *xdl* / *xdlops* use MFMA (XDL) instructions'),
    (52, 'amd', '%gtcx%', 'Matrix Core', NULL, 'MIOpen igemm_*_gtcx_* kernels (xdlops implicit GEMM)'),
    -- precision proven by the name
    (70, 'nvidia', '%tf32%', 'Tensor Core', 'tf32', 'cuDNN / cuBLAS kernels of fp32 ops running TF32 name it (sm80_xmma_gemm_f32f32_tf32f32_f32_*, *_tf32f32_*)'),
    (71, 'nvidia', '%tensorop\_s1688%', 'Tensor Core', 'tf32', 'CUTLASS cutlass_80_tensorop_s1688gemm_*: SGEMM on sm80+ Tensor Cores = TF32 math'),
    (72, 'nvidia', '%tensorop\_s1684%', 'Tensor Core', 'tf32', 'CUTLASS cutlass_80_tensorop_s1684gemm_*: TF32 m16n8k4');
