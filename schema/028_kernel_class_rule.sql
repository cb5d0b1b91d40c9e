-- Kernel classification rules: data, not code. Every view that splits computing from
-- communication and copies (step_breakdown, free_time, uncovered_communication,
-- capture_breakdown, overall_summary, kernel_category, ...) follows them. Ingest applies them to
-- each rank's kernels once (table kernel_rule_match); after adding or changing a rule with plain
-- SQL, `tracedb reclassify` applies it to the kernels already in the file (no re-ingest).
--
-- How a kernel is classified (kernel_category): every enabled rule of the kernel's platform (or
-- of any platform) whose pattern matches the chosen field is a match; each output column
-- (category, sub_category, direction, collective) takes its value from the matching rule with the
-- lowest priority (then lowest rule_id) that sets that column (NULL = the rule does not set it).
-- A kernel no category rule matches is Other.
-- Rules of match_field enclosing_op look at the ops of every host thread running when the kernel's
-- launching op started (msprof-analyze's rule for its FA / Conv / Matmul masks): they are tried
-- op by op from the outermost (earliest start) in, and the first op a rule of the column matches
-- decides that column's candidate.
--
-- Shipped rules have rule_id < 1000 and are inserted when missing (INSERT OR IGNORE), so a user's
-- changes to them survive re-installation; to drop one, set enabled = false. Give new rules
-- rule_id >= 1000.

CREATE TABLE IF NOT EXISTS kernel_class_rule (
    rule_id      INTEGER PRIMARY KEY,
    platform     VARCHAR,
    match_field  VARCHAR NOT NULL,
    pattern      VARCHAR NOT NULL,
    category     VARCHAR,
    sub_category VARCHAR,
    direction    VARCHAR,
    collective   VARCHAR,
    priority     INTEGER NOT NULL,
    enabled      BOOLEAN NOT NULL DEFAULT true,
    note         VARCHAR
);
COMMENT ON TABLE kernel_class_rule IS 'Kernel classification rules (shipped: rule_id < 1000; add yours with rule_id >= 1000). kernel_category applies them: per output column, the matching rule with the lowest priority that sets it wins. Defaults follow msprof-analyze compare (compare_config.ini masks, base_profiling_parser order).';
COMMENT ON COLUMN kernel_class_rule.rule_id IS 'Rule key; shipped rules < 1000.';
COMMENT ON COLUMN kernel_class_rule.platform IS 'gpu or npu (run.platform); NULL = every platform.';
COMMENT ON COLUMN kernel_class_rule.match_field IS 'What the pattern is matched against: name (kernel.name), op_type, accelerator_core, task_type, copy_kind, source (kernel.source), is_communication (the flag the reader set, as true or false), framework_op (op.name of the launching op kernel.op_id or of one of its 3 enclosing ops on its thread), enclosing_op (op.name of the ops of any host thread of the rank running at the launch: whose [start, end] holds the start of kernel.op_id; tried outermost first, the first op a rule matches decides: msprof-analyze''s cpu_cube_op rule for its FA / Conv / Matmul masks).';
COMMENT ON COLUMN kernel_class_rule.pattern IS 'SQL LIKE pattern, matched case-insensitively (lower(field) LIKE lower(pattern)); _ and % are wildcards, \ escapes them.';
COMMENT ON COLUMN kernel_class_rule.category IS 'Category the rule gives: Communication, Lccl, MC2, Flash Attention, Paged Attention, Conv, Matmul, Cube, Vector, SDMA (Tensor Move), SDMA, Memcpy, Memset, Other; NULL = the rule sets other columns only. Communication rows are communication in every view; Memcpy, Memset and SDMA rows are copies (neither computing nor communication).';
COMMENT ON COLUMN kernel_class_rule.sub_category IS 'cube, vector or trans (msprof-analyze Cube / Vector (No Trans) / Vector (Trans)); NULL = not set by this rule.';
COMMENT ON COLUMN kernel_class_rule.direction IS 'fwd or bwd; NULL = not set by this rule.';
COMMENT ON COLUMN kernel_class_rule.collective IS 'Normalised collective type of a communication kernel: allreduce, allgather, reducescatter, alltoall, broadcast, reduce, send, recv, sendrecv, dispatch, combine, barrier; NULL = not set.';
COMMENT ON COLUMN kernel_class_rule.priority IS 'Lower wins; ties: lower rule_id.';
COMMENT ON COLUMN kernel_class_rule.enabled IS 'FALSE switches the rule off (shipped rules come back on re-install only when deleted).';
COMMENT ON COLUMN kernel_class_rule.note IS 'Where the rule comes from (reference tool and function, library).';

INSERT OR IGNORE INTO kernel_class_rule
    (rule_id, platform, match_field, pattern, category, sub_category, direction, collective, priority, note)
VALUES
    -- copies first: a copy is never computing nor communication
    (1,  NULL,  'copy_kind', 'Memset', 'Memset', NULL, NULL, NULL, 1, 'Kineto gpu_memset / Memset events'),
    (2,  NULL,  'copy_kind', '%', 'Memcpy', NULL, NULL, NULL, 2, 'Kineto gpu_memcpy / Memcpy events (copy_kind HtoD, DtoH, DtoD, PtoP)'),
    (5,  'npu', 'copy_kind', '%', 'SDMA', NULL, NULL, NULL, 1, 'NPU copy tasks (trace_view.json SDMA_SQE / PCIE_DMA_SQE / MEMCPY_ASYNC, Ascend DB TASK MEMCPY_ASYNC): msprof-analyze books them as SDMA'),
    (3,  'npu', 'task_type', 'SDMA%', 'SDMA', NULL, NULL, NULL, 3, 'msprof-analyze trace_event_bean _SDMA_TASK_TYPES (SDMA_SQE)'),
    (4,  'npu', 'task_type', 'PCIE_DMA%', 'SDMA', NULL, NULL, NULL, 3, 'msprof-analyze trace_event_bean _SDMA_TASK_TYPES (PCIE_DMA_SQE)'),
    -- communication: the reader's own flag (kernel_details.csv Accelerator Core HCCL/COMMUNICATION or
    -- hcom_*, trace_view.json HCCL process, step_trace_raw comm ops, Kineto nccl*/rccl*), then names
    (9,  NULL,  'is_communication', 'true', 'Communication', NULL, NULL, NULL, 10, 'kernel.is_communication as the reader set it (disable this rule to classify by the rules below alone)'),
    (10, 'npu', 'accelerator_core', 'HCCL', 'Communication', NULL, NULL, NULL, 10, 'kernel_details.csv Accelerator Core HCCL'),
    (11, 'npu', 'accelerator_core', 'COMMUNICATION', 'Communication', NULL, NULL, NULL, 10, 'kernel_details.csv Accelerator Core COMMUNICATION; trace_view.json HCCL op slices'),
    (12, 'npu', 'name', 'hcom\_%', 'Communication', NULL, NULL, NULL, 10, 'HCCL op names hcom_<type>_...'),
    (13, 'npu', 'source', 'step_trace_raw', 'Communication', NULL, NULL, NULL, 10, 'MindSpore step_trace_raw comm-op columns'),
    (20, 'gpu', 'name', 'nccl%', 'Communication', NULL, NULL, NULL, 10, 'NCCL kernels (msprof-analyze is_nccl_name)'),
    (21, 'gpu', 'name', '%ncclKernel%', 'Communication', NULL, NULL, NULL, 10, 'NCCL kernels (void ncclKernel_...)'),
    (22, 'gpu', 'name', '%ncclDevKernel%', 'Communication', NULL, NULL, NULL, 10, 'NCCL 2.19+ kernels'),
    (23, 'gpu', 'name', 'rccl%', 'Communication', NULL, NULL, NULL, 10, 'RCCL (ROCm) kernels'),
    (24, 'gpu', 'name', '%msccl%', 'Communication', NULL, NULL, NULL, 10, 'MSCCL / MSCCL++ kernels'),
    (25, 'gpu', 'name', '%::ep::%', 'Communication', NULL, NULL, NULL, 10, 'DeepEP expert-parallel kernels (deep_ep::, dpsk::ep::)'),
    (26, 'gpu', 'name', '%internode::%', 'Communication', NULL, NULL, NULL, 10, 'DeepEP internode kernels'),
    (27, 'gpu', 'name', '%intranode::%', 'Communication', NULL, NULL, NULL, 10, 'DeepEP intranode kernels'),
    (28, 'gpu', 'name', '%nvshmem%', 'Communication', NULL, NULL, NULL, 10, 'NVSHMEM kernels'),
    (29, 'gpu', 'framework_op', 'c10d::%', 'Communication', NULL, NULL, NULL, 11, 'kernels launched by a c10d collective op'),
    (30, 'gpu', 'framework_op', 'record_param_comms%', 'Communication', NULL, NULL, NULL, 11, 'kernels launched inside record_param_comms (PyTorch distributed)'),
    (31, 'gpu', 'framework_op', 'nccl:%', 'Communication', NULL, NULL, NULL, 11, 'kernels launched by an nccl:* op (nccl:all_reduce, ...)'),
    (32, 'gpu', 'name', '%deep_ep%', 'Communication', NULL, NULL, NULL, 10, 'DeepEP kernels'),
    -- msprof-analyze compute categories, in its order (base_profiling_parser, compare_config.ini)
    (40, 'npu', 'name', 'kernel_aivec', 'Lccl', NULL, NULL, NULL, 20, 'msprof-analyze is_lccl (Lccl Time)'),
    (50, 'npu', 'op_type', '%pagedattention%', 'Paged Attention', NULL, NULL, NULL, 100, 'msprof-analyze is_page_attention'),
    (51, 'npu', 'name', 'aclnninplacecopy%tensormove%', 'SDMA (Tensor Move)', NULL, NULL, NULL, 110, 'msprof-analyze kernel_details_bean.is_sdma'),
    (52, 'npu', 'name', 'allgathermatmul', 'MC2', NULL, NULL, NULL, 120, 'msprof-analyze MC2_KERNEL'),
    (53, 'npu', 'name', 'matmulreducescatter', 'MC2', NULL, NULL, NULL, 120, 'msprof-analyze MC2_KERNEL'),
    (54, 'npu', 'name', 'matmulallreduce', 'MC2', NULL, NULL, NULL, 120, 'msprof-analyze MC2_KERNEL'),
    (60, NULL,  'enclosing_op', '%flash_attention%', 'Flash Attention', NULL, NULL, NULL, 200, 'msprof-analyze FA_MASK (cpu_cube_op: outermost op running at the launch)'),
    (61, NULL,  'enclosing_op', '%fusion_attention%', 'Flash Attention', NULL, NULL, NULL, 200, 'msprof-analyze FA_MASK (cpu_cube_op: outermost op running at the launch)'),
    (62, NULL,  'enclosing_op', '%flashattn%', 'Flash Attention', NULL, NULL, NULL, 200, 'msprof-analyze FA_MASK (cpu_cube_op: outermost op running at the launch)'),
    (63, NULL,  'enclosing_op', '%xformers_flash%', 'Flash Attention', NULL, NULL, NULL, 200, 'msprof-analyze FA_MASK (cpu_cube_op: outermost op running at the launch)'),
    (64, NULL,  'enclosing_op', '%efficient_attention%', 'Flash Attention', NULL, NULL, NULL, 200, 'msprof-analyze FA_MASK (cpu_cube_op: outermost op running at the launch)'),
    (65, NULL,  'enclosing_op', '%flash2attn%', 'Flash Attention', NULL, NULL, NULL, 200, 'msprof-analyze FA_MASK (cpu_cube_op: outermost op running at the launch)'),
    (66, NULL,  'enclosing_op', '%aten::conv%', 'Conv', NULL, NULL, NULL, 210, 'msprof-analyze CONV_MASK (cpu_cube_op: outermost op running at the launch)'),
    (67, NULL,  'enclosing_op', '%aten::addmm%', 'Matmul', NULL, NULL, NULL, 220, 'msprof-analyze MATMUL_MASK (cpu_cube_op: outermost op running at the launch)'),
    (68, NULL,  'enclosing_op', '%aten::bmm%', 'Matmul', NULL, NULL, NULL, 220, 'msprof-analyze MATMUL_MASK (cpu_cube_op: outermost op running at the launch)'),
    (69, NULL,  'enclosing_op', '%aten::mm%', 'Matmul', NULL, NULL, NULL, 220, 'msprof-analyze MATMUL_MASK (cpu_cube_op: outermost op running at the launch)'),
    (70, NULL,  'enclosing_op', '%aten::matmul%', 'Matmul', NULL, NULL, NULL, 220, 'msprof-analyze MATMUL_MASK (cpu_cube_op: outermost op running at the launch)'),
    (80, 'npu', 'op_type', '%flashattention%', 'Flash Attention', NULL, NULL, NULL, 300, 'msprof-analyze kernel_details_bean.is_flash_attention (no flow)'),
    (81, 'npu', 'op_type', '%fusedinferattention%', 'Flash Attention', NULL, NULL, NULL, 300, 'msprof-analyze kernel_details_bean.is_flash_attention (no flow)'),
    (82, 'npu', 'op_type', 'conv%', 'Conv', NULL, NULL, NULL, 310, 'msprof-analyze kernel_details_bean.is_conv (no flow)'),
    (83, 'npu', 'op_type', '%matmul%', 'Matmul', NULL, NULL, NULL, 320, 'msprof-analyze kernel_details_bean.is_matmul (no flow)'),
    -- cube / vector: category for the rest, sub-category for every compute kernel
    (90, 'npu', 'accelerator_core', 'AI_CORE', 'Cube', 'cube', NULL, NULL, 400, 'cube test without PMU columns: Accelerator Core AI_CORE (analyses.md 2.2)'),
    (91, 'npu', 'accelerator_core', 'MIX_AIC', 'Cube', 'cube', NULL, NULL, 400, 'cube test without PMU columns: Accelerator Core MIX_AIC'),
    (92, 'gpu', 'name', '%gemm%', 'Cube', 'cube', NULL, NULL, 400, 'msprof-analyze CUBE_MASK'),
    (93, 'gpu', 'name', '%conv%', 'Cube', 'cube', NULL, NULL, 400, 'msprof-analyze CUBE_MASK'),
    (94, 'gpu', 'name', '%cutlass%', 'Cube', 'cube', NULL, NULL, 400, 'msprof-analyze CUBE_MASK'),
    (95, 'gpu', 'name', '%wgrad%', 'Cube', 'cube', NULL, NULL, 400, 'msprof-analyze CUBE_MASK'),
    (96, 'gpu', 'name', '%gemvx%', 'Cube', 'cube', NULL, NULL, 400, 'msprof-analyze CUBE_MASK'),
    -- AMD matrix cores (MFMA), as the Tensor Core GEMMs above: Tensile kernels (rocBLAS and
    -- hipBLASLt name theirs Cijk_<layout>_..._MI<m>x<n>x<k>_...) and kernels named after MFMA
    (104, 'gpu', 'name', 'Cijk\_%', 'Cube', 'cube', NULL, NULL, 400, 'AMD rocBLAS / hipBLASLt Tensile GEMM kernels (Cijk_*, matrix-core MFMA)'),
    (105, 'gpu', 'name', '%mfma%', 'Cube', 'cube', NULL, NULL, 400, 'AMD kernels named after MFMA (matrix-core) instructions'),
    (97, 'npu', 'name', '%cast%', 'Vector', 'trans', NULL, NULL, 410, 'msprof-analyze TRANS_MASK (NPU only)'),
    (98, 'npu', 'name', '%transdata%', 'Vector', 'trans', NULL, NULL, 410, 'msprof-analyze TRANS_MASK'),
    (99, 'npu', 'name', '%transpose%', 'Vector', 'trans', NULL, NULL, 410, 'msprof-analyze TRANS_MASK'),
    (100, 'npu', 'accelerator_core', 'AI_CPU', 'Other', NULL, NULL, NULL, 420, 'AI_CPU rows have no PMU values: msprof-analyze leaves them in Other'),
    (101, 'npu', 'accelerator_core', 'AI_VECTOR_CORE', 'Vector', 'vector', NULL, NULL, 430, 'Vector (No Trans)'),
    (102, 'npu', 'accelerator_core', 'MIX_AIV', 'Vector', 'vector', NULL, NULL, 430, 'Vector (No Trans)'),
    (103, 'gpu', 'name', '%', 'Vector', 'vector', NULL, NULL, 900, 'msprof-analyze GPU: a non-cube kernel is Vector (No Trans)'),
    -- direction (FA: msprof-analyze BWD_LIST on the op name; NPU fallback on Type)
    (110, NULL,  'framework_op', '%bwd%', NULL, NULL, 'bwd', NULL, 500, 'msprof-analyze BWD_LIST'),
    (111, NULL,  'framework_op', '%backward%', NULL, NULL, 'bwd', NULL, 500, 'msprof-analyze BWD_LIST'),
    (112, NULL,  'framework_op', '%back%', NULL, NULL, 'bwd', NULL, 500, 'msprof-analyze BWD_LIST'),
    (113, NULL,  'framework_op', '%grad%', NULL, NULL, 'bwd', NULL, 500, 'msprof-analyze BWD_LIST'),
    (114, 'npu', 'op_type', '%bwd%', NULL, NULL, 'bwd', NULL, 510, 'msprof-analyze BWD_LIST on Type'),
    (115, 'npu', 'op_type', '%grad%', NULL, NULL, 'bwd', NULL, 510, 'msprof-analyze BWD_LIST on Type'),
    (116, 'npu', 'op_type', '%backward%', NULL, NULL, 'bwd', NULL, 510, 'msprof-analyze BWD_LIST on Type'),
    (117, 'npu', 'op_type', '%back%', NULL, NULL, 'bwd', NULL, 510, 'msprof-analyze BWD_LIST on Type (Conv2DBackpropFilter ...)'),
    (120, NULL,  'enclosing_op', '%bwd%', NULL, NULL, 'bwd', NULL, 500, 'msprof-analyze BWD_LIST on the op running at the launch (a launch deep under aten::convolution_backward)'),
    (121, NULL,  'enclosing_op', '%backward%', NULL, NULL, 'bwd', NULL, 500, 'msprof-analyze BWD_LIST on the op running at the launch'),
    (122, NULL,  'enclosing_op', '%back%', NULL, NULL, 'bwd', NULL, 500, 'msprof-analyze BWD_LIST on the op running at the launch'),
    (123, NULL,  'enclosing_op', '%grad%', NULL, NULL, 'bwd', NULL, 500, 'msprof-analyze BWD_LIST on the op running at the launch'),
    -- collective type of communication kernels (name, then launching op)
    (200, NULL, 'name', '%all\_reduce%', NULL, NULL, NULL, 'allreduce', 600, 'collective from the name'),
    (201, NULL, 'name', '%allreduce%', NULL, NULL, NULL, 'allreduce', 600, 'collective from the name'),
    (202, NULL, 'name', '%all\_gather%', NULL, NULL, NULL, 'allgather', 600, 'collective from the name'),
    (203, NULL, 'name', '%allgather%', NULL, NULL, NULL, 'allgather', 600, 'collective from the name'),
    (204, NULL, 'name', '%reduce\_scatter%', NULL, NULL, NULL, 'reducescatter', 600, 'collective from the name'),
    (205, NULL, 'name', '%reducescatter%', NULL, NULL, NULL, 'reducescatter', 600, 'collective from the name'),
    (206, NULL, 'name', '%all\_to\_all%', NULL, NULL, NULL, 'alltoall', 600, 'collective from the name'),
    (207, NULL, 'name', '%alltoall%', NULL, NULL, NULL, 'alltoall', 600, 'collective from the name'),
    (208, NULL, 'name', '%broadcast%', NULL, NULL, NULL, 'broadcast', 600, 'collective from the name'),
    (209, NULL, 'name', '%sendrecv%', NULL, NULL, NULL, 'sendrecv', 605, 'collective from the name'),
    (210, NULL, 'name', '%send%', NULL, NULL, NULL, 'send', 610, 'collective from the name'),
    (211, NULL, 'name', '%recv%', NULL, NULL, NULL, 'recv', 610, 'collective from the name'),
    (212, NULL, 'name', '%receive%', NULL, NULL, NULL, 'recv', 610, 'collective from the name'),
    (213, NULL, 'name', '%dispatch%', NULL, NULL, NULL, 'dispatch', 610, 'DeepEP dispatch / notify_dispatch'),
    (214, NULL, 'name', '%combine%', NULL, NULL, NULL, 'combine', 610, 'DeepEP combine'),
    (215, NULL, 'name', '%barrier%', NULL, NULL, NULL, 'barrier', 610, 'collective from the name'),
    (216, NULL, 'name', '%reduce%', NULL, NULL, NULL, 'reduce', 620, 'collective from the name (after allreduce / reducescatter)'),
    (217, NULL, 'framework_op', '%all\_reduce%', NULL, NULL, NULL, 'allreduce', 650, 'collective from the launching op'),
    (218, NULL, 'framework_op', '%allgather%', NULL, NULL, NULL, 'allgather', 650, 'collective from the launching op'),
    (219, NULL, 'framework_op', '%reduce\_scatter%', NULL, NULL, NULL, 'reducescatter', 650, 'collective from the launching op');

CREATE TABLE IF NOT EXISTS kernel_rule_match (
    run_id       INTEGER NOT NULL,
    rank         INTEGER NOT NULL,
    kernel_id    BIGINT NOT NULL,
    category     VARCHAR,
    sub_category VARCHAR,
    direction    VARCHAR,
    collective   VARCHAR,
    rule_id      INTEGER
);
COMMENT ON TABLE kernel_rule_match IS 'What kernel_class_rule gives each kernel, stored at ingest (derive/130), one row per kernel, so the views do not match the rules on every query; a NULL category is Other. A kernel without a row (inserted with SQL since) counts by its reader''s is_communication flag and copy_kind. After adding or changing a rule, run tracedb reclassify (or re-ingest) to apply it.';
COMMENT ON COLUMN kernel_rule_match.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN kernel_rule_match.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN kernel_rule_match.kernel_id IS 'Kernel (kernel.kernel_id).';
COMMENT ON COLUMN kernel_rule_match.category IS 'Category of the winning rule that sets one (Flash Attention, Conv, Matmul, Cube, Vector, Communication, Memcpy, SDMA ...); NULL = Other.';
COMMENT ON COLUMN kernel_rule_match.sub_category IS 'cube, vector or trans from the winning rule that sets one.';
COMMENT ON COLUMN kernel_rule_match.direction IS 'fwd or bwd from the winning rule that sets one.';
COMMENT ON COLUMN kernel_rule_match.collective IS 'Normalised collective type (allreduce, allgather, ...) from the winning rule that sets one.';
COMMENT ON COLUMN kernel_rule_match.rule_id IS 'kernel_class_rule.rule_id that gave the category.';
