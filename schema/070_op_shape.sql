-- Operator shapes and precisions, parsed once at ingest (derive/140 and derive/141) from what
-- the readers stored as written: op.input_dims / op.input_types (Kineto record_shapes,
-- trace_view.json, Ascend DB PYTORCH_API) and kernel.input_shapes / input_dtypes /
-- output_shapes (kernel_details.csv, Ascend DB COMPUTE_TASK_INFO). The views of
-- queries/hardware (shape_efficiency, op_flops, rank_flops, precision_share, kernel_pmu) read
-- them with the rule tables alignment_rule, device_peak and matrix_unit_rule.

CREATE TABLE IF NOT EXISTS op_shape (
    run_id             INTEGER NOT NULL,
    rank               INTEGER NOT NULL,
    file_id            INTEGER NOT NULL,
    kind               VARCHAR NOT NULL,
    op_id              BIGINT,
    kernel_id          BIGINT,
    step               INTEGER,
    name               VARCHAR NOT NULL,
    op_type            VARCHAR,
    family             VARCHAR NOT NULL,
    parsed             BOOLEAN NOT NULL,
    unparsed_reason    VARCHAR,
    operand_shapes     VARCHAR,
    layout             VARCHAR,
    dtype              VARCHAR,
    precision          VARCHAR,
    batch              BIGINT,
    m                  BIGINT,
    n                  BIGINT,
    k                  BIGINT,
    c_in               BIGINT,
    c_out              BIGINT,
    in_h               BIGINT,
    in_w               BIGINT,
    out_h              BIGINT,
    out_w              BIGINT,
    kernel_h           BIGINT,
    kernel_w           BIGINT,
    stride_h           BIGINT,
    stride_w           BIGINT,
    groups             BIGINT,
    heads              BIGINT,
    seq_q              BIGINT,
    seq_kv             BIGINT,
    head_dim           BIGINT,
    hidden             BIGINT,
    shape_flops        BIGINT,
    profiler_flops     BIGINT,
    parent_shape_op_id BIGINT,
    is_innermost       BOOLEAN NOT NULL,
    device_ns          BIGINT
);
COMMENT ON TABLE op_shape IS 'One row per framework op call of a matrix family (mm, addmm, bmm, baddbmm, linear, matmul, scaled_mm, conv, conv_transpose, conv_bwd*, sdpa*, flash_attention*) or carrying a profiler "flops" arg (kind op), and per NPU matrix kernel (MatMul*, BatchMatMul*, Conv2D*, FlashAttentionScore*: kind kernel), with its operand shapes parsed once from the recorded dims and types (derive/140). A row whose shapes cannot be parsed is kept with parsed = false and the reason: counted, never dropped.';
COMMENT ON COLUMN op_shape.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN op_shape.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN op_shape.file_id IS 'Input file of the op or kernel (source_file.file_id).';
COMMENT ON COLUMN op_shape.kind IS 'op: a framework op (op table, shapes from op.input_dims / input_types); kernel: an NPU kernel (kernel table, shapes from kernel.input_shapes / input_dtypes / output_shapes).';
COMMENT ON COLUMN op_shape.op_id IS 'The op (op.op_id); for a kernel row the framework op that launched it (kernel.op_id), NULL when unknown.';
COMMENT ON COLUMN op_shape.kernel_id IS 'The kernel (kernel.kernel_id) of a kernel row; NULL for an op row.';
COMMENT ON COLUMN op_shape.step IS 'Step of the op (op.step) or kernel (kernel.step).';
COMMENT ON COLUMN op_shape.name IS 'Op name (aten::bmm) or kernel name as written.';
COMMENT ON COLUMN op_shape.op_type IS 'Kernel op type (kernel_details.csv Type: MatMulV2, Conv2D, ...); NULL for op rows.';
COMMENT ON COLUMN op_shape.family IS 'Operator family: mm, addmm, bmm, baddbmm, linear, matmul, scaled_mm, conv, conv_transpose, conv_bwd (input and weight gradients), conv_bwd_input, conv_bwd_weight, sdpa, sdpa_bwd, flash_attention, flash_attention_bwd (NPU kernels mapped onto the same names: MatMul* → mm, BatchMatMul* → bmm, Conv2D → conv, Conv2DBackpropInput* / Filter* → conv_bwd_input / conv_bwd_weight, FlashAttentionScore(Grad) → flash_attention(_bwd)); elementwise: another op with a profiler flops arg (aten::add, aten::mul).';
COMMENT ON COLUMN op_shape.parsed IS 'TRUE when the family''s dimensions were read from the shapes; FALSE: counted as unparsable (see unparsed_reason).';
COMMENT ON COLUMN op_shape.unparsed_reason IS 'Why the shapes could not be parsed: no shapes recorded, too few operands, operand rank, inner dimensions disagree, unknown layout ...; NULL when parsed.';
COMMENT ON COLUMN op_shape.operand_shapes IS 'The matrix operands'' shapes as recorded, joined by " x " (e.g. [16,5185,64] x [16,64,5185]); NPU internal layouts as written.';
COMMENT ON COLUMN op_shape.layout IS 'Layout the dims were read in: ND (plain, every framework op), FRACTAL_NZ, NC1HWC0 (+FRACTAL_Z weights: channels padded to C0), NCHW, BSND/BNSD/BSH/SBH (attention; NPU kernels: guessed from the sizes, the kernel attribute is not recorded).';
COMMENT ON COLUMN op_shape.dtype IS 'Data type of the first matrix operand as written (c10::BFloat16, float, DT_BF16, FLOAT16 ...).';
COMMENT ON COLUMN op_shape.precision IS 'dtype normalised: fp64, fp32, bf16, fp16, fp8, int8, other (integer, bool); hf32 for an NPU kernel in fp32 with HF32 Eligible YES; NULL when no type was recorded. TF32 is not visible in shapes: precision_share and op_flops take it from the kernel names (matrix_unit_rule).';
COMMENT ON COLUMN op_shape.batch IS 'Batch: product of the leading (batch) dims of a bmm / batched matmul; N (images) of a conv; B of an attention; 1 for a plain 2-D matmul.';
COMMENT ON COLUMN op_shape.m IS 'GEMM M (rows of the output; for linear / matmul with a 2-D weight every leading dim of the input folded in, as PyTorch folds them).';
COMMENT ON COLUMN op_shape.n IS 'GEMM N (columns of the output).';
COMMENT ON COLUMN op_shape.k IS 'GEMM K (the reduced, inner dimension).';
COMMENT ON COLUMN op_shape.c_in IS 'Conv input channels (NC1HWC0: C1 x C0, the padded channels the Cube computes).';
COMMENT ON COLUMN op_shape.c_out IS 'Conv output channels.';
COMMENT ON COLUMN op_shape.in_h IS 'Conv input height (last-but-one spatial dim; conv3d: not filled).';
COMMENT ON COLUMN op_shape.in_w IS 'Conv input width.';
COMMENT ON COLUMN op_shape.out_h IS 'Conv output height: from the output / gradient shape when recorded, else (H + 2 padding - dilation (kernel - 1) - 1) / stride + 1 from the op''s Concrete Inputs; NULL when neither is recorded.';
COMMENT ON COLUMN op_shape.out_w IS 'Conv output width (as out_h).';
COMMENT ON COLUMN op_shape.kernel_h IS 'Conv kernel (filter) height.';
COMMENT ON COLUMN op_shape.kernel_w IS 'Conv kernel (filter) width.';
COMMENT ON COLUMN op_shape.stride_h IS 'Conv stride (height) from the op''s Concrete Inputs; NULL when not recorded.';
COMMENT ON COLUMN op_shape.stride_w IS 'Conv stride (width); NULL when not recorded.';
COMMENT ON COLUMN op_shape.groups IS 'Conv groups from the op''s Concrete Inputs; 1 when not recorded.';
COMMENT ON COLUMN op_shape.heads IS 'Attention query heads (4-D layouts); NULL when the layout folds them into the hidden size.';
COMMENT ON COLUMN op_shape.seq_q IS 'Attention query sequence length.';
COMMENT ON COLUMN op_shape.seq_kv IS 'Attention key/value sequence length.';
COMMENT ON COLUMN op_shape.head_dim IS 'Attention head dimension (4-D layouts).';
COMMENT ON COLUMN op_shape.hidden IS 'Attention query hidden size = heads x head_dim (the only size a BSH / SBH layout records).';
COMMENT ON COLUMN op_shape.shape_flops IS 'Floating-point operations from the shapes, the formulas of torch.utils.flop_counter (= the Kineto with_flops formulas for mm/addmm/bmm/baddbmm/conv2d): GEMM 2·batch·M·N·K; conv 2·N·out_h·out_w·c_out·(c_in/groups)·kernel_h·kernel_w per gradient; attention forward 4·B·S_q·S_kv·hidden, backward 10·B·S_q·S_kv·hidden (2.5x); NULL when a needed dim is unknown.';
COMMENT ON COLUMN op_shape.profiler_flops IS 'The op event''s "flops" arg (Kineto with_flops=True): aten::mm, addmm, bmm, baddbmm, conv2d, mul, add; NULL when not recorded.';
COMMENT ON COLUMN op_shape.parent_shape_op_id IS 'Op row: the nearest enclosing op (up to 4 levels up) that has an op_shape row itself (aten::linear above aten::addmm); NULL when none.';
COMMENT ON COLUMN op_shape.is_innermost IS 'Op row: no other op_shape op below it (the op whose kernels do the work, the TensorBoard plugin''s "bottom" op); kernel rows: TRUE.';
COMMENT ON COLUMN op_shape.device_ns IS 'Device time: op.device_total_ns (the kernels of the op and its subtree) for an op row, kernel.dur_ns for a kernel row, integer ns.';

CREATE TABLE IF NOT EXISTS op_precision (
    run_id    INTEGER NOT NULL,
    rank      INTEGER NOT NULL,
    op_id     BIGINT NOT NULL,
    dtype     VARCHAR,
    precision VARCHAR
);
COMMENT ON TABLE op_precision IS 'Precision of every framework op that recorded input types (derive/141): the first floating-point input type of op.input_types (record_shapes), normalised. The compare views (op_diff, op_alignment) and precision_share read it.';
COMMENT ON COLUMN op_precision.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN op_precision.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN op_precision.op_id IS 'Op (op.op_id).';
COMMENT ON COLUMN op_precision.dtype IS 'The first floating-point input type as written (c10::BFloat16, float, DT_BF16 ...); else the first typed input''s type; NULL when none.';
COMMENT ON COLUMN op_precision.precision IS 'dtype normalised: fp64, fp32, bf16, fp16, fp8, int8, other.';

CREATE TABLE IF NOT EXISTS kernel_precision (
    run_id    INTEGER NOT NULL,
    rank      INTEGER NOT NULL,
    kernel_id BIGINT NOT NULL,
    dtype     VARCHAR,
    precision VARCHAR,
    source    VARCHAR NOT NULL
);
COMMENT ON TABLE kernel_precision IS 'Precision of every kernel that is not a copy nor communication (derive/141): NPU the kernel''s own first input data type (kernel_details.csv Input Data Types, DB COMPUTE_TASK_INFO), hf32 when it is fp32 and HF32 Eligible says YES; GPU (no types on kernels) the launching op''s precision (op_precision). TF32 comes from the kernel names at query time (matrix_unit_rule).';
COMMENT ON COLUMN kernel_precision.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN kernel_precision.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN kernel_precision.kernel_id IS 'Kernel (kernel.kernel_id).';
COMMENT ON COLUMN kernel_precision.dtype IS 'Data type the precision comes from, as written.';
COMMENT ON COLUMN kernel_precision.precision IS 'fp64, fp32, hf32, bf16, fp16, fp8, int8, other; NULL when neither the kernel nor its op recorded a type.';
COMMENT ON COLUMN kernel_precision.source IS 'kernel (its own input types), op (the launching op''s), none.';
