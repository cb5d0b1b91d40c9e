-- Shape alignment rules of matrix units (Tensor Core, Cube): data, not code. shape_efficiency
-- applies them at query time, so a rule added or changed with plain SQL shows at once (no
-- re-ingest). Shipped rules have rule_id < 1000 and are inserted when missing (INSERT OR
-- IGNORE): a user's changes to them survive re-installation; to drop one, set enabled = false.
-- Give new rules rule_id >= 1000.
--
-- Which rule applies to an op (shape_efficiency): the enabled rules of the rank's vendor whose
-- precision and op_class match; a rule naming the rank's architecture wins over a rule for
-- every architecture (architecture NULL); then the lower rule_id. A precision no rule names
-- (fp32 on Volta: no Tensor Core path) leaves aligned NULL.

CREATE TABLE IF NOT EXISTS alignment_rule (
    rule_id            INTEGER PRIMARY KEY,
    vendor             VARCHAR NOT NULL,
    architecture       VARCHAR,
    unit               VARCHAR NOT NULL,
    precision          VARCHAR NOT NULL,
    op_class           VARCHAR NOT NULL,
    dims               VARCHAR NOT NULL,
    required_multiple  INTEGER,
    efficient_multiple INTEGER,
    enabled            BOOLEAN NOT NULL DEFAULT true,
    source             VARCHAR NOT NULL,
    note               VARCHAR
);
COMMENT ON TABLE alignment_rule IS 'Shape multiples a matrix unit needs (required_multiple) and works best with (efficient_multiple), per (vendor, architecture, unit, precision, op class); shipped rules rule_id < 1000, yours >= 1000. shape_efficiency checks the dims of every matrix op against them; NULL multiples = not published.';
COMMENT ON COLUMN alignment_rule.rule_id IS 'Rule key; shipped rules < 1000.';
COMMENT ON COLUMN alignment_rule.vendor IS 'nvidia, amd or huawei (the rank''s device vendor, tracedb_internal.rank_hardware).';
COMMENT ON COLUMN alignment_rule.architecture IS 'Volta, Turing, Ampere, Hopper, ... (device_peak.architecture of the rank''s device); NULL = every architecture of the vendor.';
COMMENT ON COLUMN alignment_rule.unit IS 'The matrix unit the rule is about: Tensor Core (NVIDIA), Matrix Core (AMD MFMA), Cube (Ascend).';
COMMENT ON COLUMN alignment_rule.precision IS 'Precision of the op (op_shape.precision, tf32 from the kernel names): fp16, bf16, tf32, hf32, fp32, int8, fp8, fp64.';
COMMENT ON COLUMN alignment_rule.op_class IS 'gemm (mm, addmm, bmm, baddbmm, linear, matmul, scaled_mm) or conv (conv, conv_transpose, conv_bwd*).';
COMMENT ON COLUMN alignment_rule.dims IS 'The dimensions checked, comma-separated: M,N,K for gemm, C_in,C_out for conv.';
COMMENT ON COLUMN alignment_rule.required_multiple IS 'Every checked dim must be a multiple of this for the unit to be used at full rate (the minimum); NULL = no published minimum.';
COMMENT ON COLUMN alignment_rule.efficient_multiple IS 'The multiple the vendor names as the most efficient; NULL = none published beyond the minimum.';
COMMENT ON COLUMN alignment_rule.enabled IS 'FALSE switches the rule off.';
COMMENT ON COLUMN alignment_rule.source IS 'Where the numbers come from (document and address).';
COMMENT ON COLUMN alignment_rule.note IS 'What the source says, in short.';

INSERT OR IGNORE INTO alignment_rule
    (rule_id, vendor, architecture, unit, precision, op_class, dims, required_multiple, efficient_multiple, source, note)
VALUES
    -- NVIDIA GEMM: minimum multiples (every Tensor Core architecture) ...
    (1,  'nvidia', NULL, 'Tensor Core', 'fp16', 'gemm', 'M,N,K', 8,  NULL,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 "Tensor Core requirements by cuBLAS or cuDNN version" (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'FP16: multiples of 8 (16 bytes); cuBLAS >= 11 uses Tensor Cores always but is most efficient with multiples of 16 bytes'),
    (2,  'nvidia', NULL, 'Tensor Core', 'bf16', 'gemm', 'M,N,K', 8,  NULL,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'BF16 is a 2-byte type like FP16: multiples of 8 (16 bytes)'),
    (3,  'nvidia', NULL, 'Tensor Core', 'tf32', 'gemm', 'M,N,K', 4,  NULL,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'TF32: multiples of 4 (16 bytes)'),
    (4,  'nvidia', NULL, 'Tensor Core', 'int8', 'gemm', 'M,N,K', 16, NULL,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'INT8: multiples of 16 (16 bytes)'),
    (5,  'nvidia', NULL, 'Tensor Core', 'fp64', 'gemm', 'M,N,K', 2,  NULL,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'FP64: multiples of 2 (16 bytes; A100 and later)'),
    (6,  'nvidia', NULL, 'Tensor Core', 'fp8', 'gemm', 'M,N,K', 16, NULL,
     'cuBLAS documentation, cublasLtMatmul FP8 requirements and "Tensor Core Usage" 16-byte alignment (https://docs.nvidia.com/cuda/cublas/#tensor-core-usage)',
     'FP8 is a 1-byte type: 16-byte alignment = multiples of 16'),
    -- ... and the most efficient ones on A100 and later (128 bytes)
    (10, 'nvidia', 'Ampere', 'Tensor Core', 'fp16', 'gemm', 'M,N,K', 8,  64,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'on A100 most efficient with multiples of 128 bytes: 64 FP16 elements'),
    (11, 'nvidia', 'Ampere', 'Tensor Core', 'bf16', 'gemm', 'M,N,K', 8,  64,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'on A100 multiples of 128 bytes: 64 BF16 elements'),
    (12, 'nvidia', 'Ampere', 'Tensor Core', 'tf32', 'gemm', 'M,N,K', 4,  32,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'on A100 multiples of 128 bytes: 32 TF32 elements'),
    (13, 'nvidia', 'Ampere', 'Tensor Core', 'int8', 'gemm', 'M,N,K', 16, 128,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'on A100 multiples of 128 bytes: 128 INT8 elements'),
    (14, 'nvidia', 'Ampere', 'Tensor Core', 'fp64', 'gemm', 'M,N,K', 2,  16,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'on A100 multiples of 128 bytes: 16 FP64 elements'),
    (20, 'nvidia', 'Hopper', 'Tensor Core', 'fp16', 'gemm', 'M,N,K', 8,  64,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'the guide states 128 bytes for A100; tracedb issue 41 applies it to H100 (same 128-byte rule)'),
    (21, 'nvidia', 'Hopper', 'Tensor Core', 'bf16', 'gemm', 'M,N,K', 8,  64,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'the 128-byte rule of A100 applied to H100'),
    (22, 'nvidia', 'Hopper', 'Tensor Core', 'tf32', 'gemm', 'M,N,K', 4,  32,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'the 128-byte rule of A100 applied to H100'),
    (23, 'nvidia', 'Hopper', 'Tensor Core', 'int8', 'gemm', 'M,N,K', 16, 128,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'the 128-byte rule of A100 applied to H100'),
    (24, 'nvidia', 'Hopper', 'Tensor Core', 'fp8', 'gemm', 'M,N,K', 16, 128,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'the 128-byte rule applied to the 1-byte FP8 type'),
    (25, 'nvidia', 'Hopper', 'Tensor Core', 'fp64', 'gemm', 'M,N,K', 2,  16,
     'NVIDIA Deep Learning Performance Guide, Matrix Multiplication Background, Table 1 (https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html#requirements-tc)',
     'the 128-byte rule of A100 applied to H100'),
    -- NVIDIA convolutions: input and output channels (NHWC layout)
    (40, 'nvidia', NULL, 'Tensor Core', 'fp16', 'conv', 'C_in,C_out', 8,  NULL,
     'NVIDIA Deep Learning Performance Guide, Convolutional Layers User''s Guide, "Tensor Core requirements" (https://docs.nvidia.com/deeplearning/performance/dl-performance-convolutional/index.html#tensor-core-shape)',
     'C and K (input and output channels) multiples of 8 for FP16; NHWC layout'),
    (41, 'nvidia', NULL, 'Tensor Core', 'bf16', 'conv', 'C_in,C_out', 8,  NULL,
     'NVIDIA Deep Learning Performance Guide, Convolutional Layers User''s Guide (https://docs.nvidia.com/deeplearning/performance/dl-performance-convolutional/index.html#tensor-core-shape)',
     'a 2-byte type like FP16: multiples of 8'),
    (42, 'nvidia', NULL, 'Tensor Core', 'tf32', 'conv', 'C_in,C_out', 4,  NULL,
     'NVIDIA Deep Learning Performance Guide, Convolutional Layers User''s Guide (https://docs.nvidia.com/deeplearning/performance/dl-performance-convolutional/index.html#tensor-core-shape)',
     'C and K multiples of 4 for TF32'),
    (43, 'nvidia', NULL, 'Tensor Core', 'int8', 'conv', 'C_in,C_out', 16, NULL,
     'NVIDIA Deep Learning Performance Guide, Convolutional Layers User''s Guide (https://docs.nvidia.com/deeplearning/performance/dl-performance-convolutional/index.html#tensor-core-shape)',
     'C and K multiples of 16 for INT8'),
    -- Ascend Cube: operands are laid out in 32-byte fractals (FRACTAL_NZ for matrices, NC1HWC0 /
    -- FRACTAL_Z for convolutions): a dim that is not a multiple of the fractal edge is padded and
    -- the padding is computed too; no published minimum
    (60, 'huawei', NULL, 'Cube', 'fp16', 'gemm', 'M,N,K', NULL, 16,
     'CANN documentation, data formats FRACTAL_NZ / NC1HWC0: C0 = 32 bytes (https://www.hiascend.com/document, "数据格式")',
     'fp16 fractal 16 x 16: dims padded to 16'),
    (61, 'huawei', NULL, 'Cube', 'bf16', 'gemm', 'M,N,K', NULL, 16,
     'CANN documentation, data formats FRACTAL_NZ / NC1HWC0: C0 = 32 bytes (https://www.hiascend.com/document, "数据格式")',
     'bf16 fractal 16 x 16: dims padded to 16'),
    (62, 'huawei', NULL, 'Cube', 'int8', 'gemm', 'M,N,K', NULL, 32,
     'CANN documentation, data formats FRACTAL_NZ / NC1HWC0: C0 = 32 bytes (https://www.hiascend.com/document, "数据格式")',
     'int8 fractal 16 x 32: the reduced dim padded to 32 (M to 16)'),
    (63, 'huawei', NULL, 'Cube', 'fp32', 'gemm', 'M,N,K', NULL, 16,
     'CANN documentation, data formats FRACTAL_NZ / NC1HWC0: C0 = 32 bytes (https://www.hiascend.com/document, "数据格式")',
     'fp32 fractal 16 x 8: M padded to 16, K and N to 8; tracedb checks 16'),
    (64, 'huawei', NULL, 'Cube', 'hf32', 'gemm', 'M,N,K', NULL, 16,
     'CANN documentation, data formats FRACTAL_NZ / NC1HWC0: C0 = 32 bytes (https://www.hiascend.com/document, "数据格式")',
     'hf32 runs on fp32 operands: fractal 16 x 8; tracedb checks 16'),
    (70, 'huawei', NULL, 'Cube', 'fp16', 'conv', 'C_in,C_out', NULL, 16,
     'CANN documentation, data format NC1HWC0: C0 = 32 bytes = 16 fp16 channels (https://www.hiascend.com/document, "数据格式")',
     'channels padded to C0 = 16'),
    (71, 'huawei', NULL, 'Cube', 'bf16', 'conv', 'C_in,C_out', NULL, 16,
     'CANN documentation, data format NC1HWC0: C0 = 32 bytes = 16 bf16 channels (https://www.hiascend.com/document, "数据格式")',
     'channels padded to C0 = 16'),
    (72, 'huawei', NULL, 'Cube', 'fp32', 'conv', 'C_in,C_out', NULL, 8,
     'CANN documentation, data format NC1HWC0: C0 = 32 bytes = 8 fp32 channels (https://www.hiascend.com/document, "数据格式")',
     'channels padded to C0 = 8'),
    (73, 'huawei', NULL, 'Cube', 'hf32', 'conv', 'C_in,C_out', NULL, 8,
     'CANN documentation, data format NC1HWC0: C0 = 32 bytes = 8 fp32 channels (https://www.hiascend.com/document, "数据格式")',
     'channels padded to C0 = 8');
