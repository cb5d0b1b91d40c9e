-- msprof-analyze's own rules beside tracedb's, where the two differ (docs/msprof-analyze.md): what
-- msprof-analyze compare gives each kernel in its OverallMetrics sheet (derive/130), and its op
-- tree over all host threads with the device time it gives each op, copies included (derive/126).

-- Databases written before the enclosing_op match field: the shipped FA / Conv / Matmul mask
-- rules matched the launching op and its 3 enclosing ops of its thread (framework_op); they
-- now match the ops of any thread running at the launch, as msprof-analyze does. Only rows
-- still as shipped are changed (a user's edit of them stays).
UPDATE kernel_class_rule SET match_field = 'enclosing_op'
WHERE rule_id BETWEEN 60 AND 70 AND match_field = 'framework_op'
  AND note IN ('msprof-analyze FA_MASK', 'msprof-analyze CONV_MASK', 'msprof-analyze MATMUL_MASK');

ALTER TABLE kernel_rule_match ADD COLUMN IF NOT EXISTS msprof_category VARCHAR;
ALTER TABLE kernel_rule_match ADD COLUMN IF NOT EXISTS msprof_sub_category VARCHAR;
ALTER TABLE kernel_rule_match ADD COLUMN IF NOT EXISTS msprof_direction VARCHAR;
COMMENT ON COLUMN kernel_rule_match.msprof_category IS 'Category msprof-analyze compare gives the kernel (OverallMetrics), by the same rules read as it reads the inputs: op rules only where it links the kernel to the op (NPU async_npu flow / DB connection id; Kineto: only in traces with ac2g / async flows); no category (Other) on a torch_npu text rank without PMU columns (Level0, or trace_view.json alone); DB ranks: uncategorised compute tasks in Vector; copies: SDMA (SDMA_SQE / PCIE_DMA_SQE tasks whose trace args have "Stream Id", DB tasks of those types), Memcpy (other DB copies, Kineto gpu_memcpy), NULL for a copy it does not read (Kineto gpu_memset, 2021 Memcpy / Memset, text MEMCPY_ASYNC).';
COMMENT ON COLUMN kernel_rule_match.msprof_sub_category IS 'cube, vector or trans as msprof-analyze splits the kernel (NULL where it does not).';
COMMENT ON COLUMN kernel_rule_match.msprof_direction IS 'fwd or bwd as msprof-analyze gives it (rules as in direction, op rules only where it links the kernel to the op).';

-- msprof-analyze's op tree (compare_backend/utils/tree_builder.py): one tree over all the rank's
-- host threads, ops sorted by start, parent = the last earlier op still running (end >= start).
ALTER TABLE op ADD COLUMN IF NOT EXISTS msprof_parent_op_id BIGINT;
ALTER TABLE op ADD COLUMN IF NOT EXISTS is_top_level_msprof BOOLEAN;
ALTER TABLE op ADD COLUMN IF NOT EXISTS msprof_kernel_count INTEGER;
ALTER TABLE op ADD COLUMN IF NOT EXISTS msprof_kernel_total_count INTEGER;
ALTER TABLE op ADD COLUMN IF NOT EXISTS msprof_device_self_ns BIGINT;
ALTER TABLE op ADD COLUMN IF NOT EXISTS msprof_device_total_ns BIGINT;
COMMENT ON COLUMN op.msprof_parent_op_id IS 'Parent in msprof-analyze compare''s op tree (tree_builder): one tree over all host threads of the rank, ops by start (then op_id), the parent of an op = the last earlier op whose end is at or after its start, on any thread (an autograd-thread op inside a main-thread "## backward ##" annotation is its child); NULL at the top (derive/126).';
COMMENT ON COLUMN op.is_top_level_msprof IS 'TRUE when msprof-analyze compare counts the op as top layer (children of ProfilerStep#N and roots outside steps in its cross-thread tree): no earlier op of any thread of the rank is still running at its start. tracedb''s own top level (tracedb_internal.compare_op.is_top) is per thread.';
COMMENT ON COLUMN op.msprof_kernel_count IS 'Device tasks msprof-analyze attaches to this op itself: kernel.op_id = this op, copies included where it counts them (see msprof_device_self_ns).';
COMMENT ON COLUMN op.msprof_kernel_total_count IS 'msprof_kernel_count of the op and of every op below it in msprof-analyze''s tree (msprof_parent_op_id): its kernel_num, which --max_kernel_num compares.';
COMMENT ON COLUMN op.msprof_device_self_ns IS 'Sum of dur_ns of the device tasks msprof-analyze attaches to this op itself: kernels and communication ops, plus the copies it links by flow (torch_npu text: the MEMCPY_ASYNC / SDMA / PCIE DMA tasks; Kineto: gpu_memcpy copies, not memsets); Ascend DB: compute tasks only (COMPUTE_TASK_INFO); Kineto traces without ac2g / async flows: 0 (its only link). Integer ns.';
COMMENT ON COLUMN op.msprof_device_total_ns IS 'msprof_device_self_ns of the op and of every op below it in msprof-analyze''s tree: its Device Duration (OperatorCompare, OperatorCompareStatistic). Integer ns.';
