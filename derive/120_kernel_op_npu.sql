-- kernel.op_id: the innermost framework op that launched each kernel of (run, rank) read from
-- trace_view.json (Kineto's kernels: 121_kernel_op_kineto; the op rows' kernel counts and
-- device times: 122_op_kernel_count).
-- NPU (trace_view.json): the async_npu flow that ends at the kernel's device task (compute
-- kernel: Ascend Hardware task with its stream and start; HCCL op: its slice on the
-- "Group ... Communication" thread, same name, start within 1 us) starts at the op: the
-- innermost op of the flow start's thread that starts at the flow start.
-- Kernels nothing links to an op keep op_id NULL.
-- when: SELECT EXISTS (FROM op WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'trace_view')
UPDATE kernel SET op_id = a.op_id
FROM (
    WITH ops AS (
        SELECT file_id, tid, op_id, ts_ns, dur_ns, depth, source FROM op
        WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'trace_view'
    ),
    -- NPU: the async_npu flows ending at the kernels (_session.sql)
    flow_start AS (
        FROM npu_flow_starts('async_npu')
    ),
    npu AS (
        SELECT fs.run_id, fs.rank, fs.source, fs.kernel_id, arg_max(o.op_id, (o.depth, o.op_id)) AS op_id
        FROM flow_start AS fs
        JOIN ops AS o ON o.file_id = fs.file_id AND o.tid = fs.tid AND o.ts_ns = fs.ts_ns
        GROUP BY fs.run_id, fs.rank, fs.source, fs.kernel_id
    )
    FROM npu
) AS a
WHERE kernel.run_id = a.run_id AND kernel.rank = a.rank
  AND kernel.source = a.source AND kernel.kernel_id = a.kernel_id;
