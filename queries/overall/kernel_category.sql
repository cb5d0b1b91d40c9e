-- kernel_category — the category of every device kernel, communication op and copy, from the
-- rules in the table kernel_class_rule (extend or change them with plain SQL, then tracedb
-- reclassify; every view that splits computing from communication follows).
-- Grain:     one row per kernel (kernel table row).
--            Scope: whole capture (every kernel); step is kernel.step.
-- Source:    kernel (name, op_type, accelerator_core, task_type, copy_kind, source), run.platform,
--            op.name of the launching framework op (kernel.op_id) and its 3 enclosing ops;
--            kernel_class_rule.
-- Reference: msprof-analyze compare's kernel categorisation (analyses.md §2.2:
--            compare_config.ini masks, base_profiling_parser order): Paged Attention, SDMA (Tensor
--            Move), MC2, Flash Attention / Conv / Matmul by the launching op, else by Type (NPU),
--            Cube, Vector (trans / no trans). Cube test without PMU columns: Accelerator Core
--            AI_CORE or MIX_AIC (NPU), name with gemm|conv|cutlass|wgrad|gemvx (GPU).
--            Communication: NPU HCCL/COMMUNICATION ops and hcom_*; GPU NCCL/RCCL/MSCCL, DeepEP
--            (::ep::, internode::, intranode::), NVSHMEM, kernels launched by c10d::* /
--            record_param_comms / nccl:* ops. Each column takes the matching rule with the lowest
--            (priority, rule_id) that sets it; no category rule → Other. FA / Conv / Matmul go by
--            the outermost op of any host thread running at the launch (rules of match_field
--            enclosing_op: msprof-analyze's cpu_cube_op), so a kernel launched deep under
--            aten::convolution_backward is Conv (Backward). msprof_category / _sub_category /
--            _direction: msprof-analyze's own reading of the same rules (docs/msprof-analyze.md).
-- Units:     *_ns integer nanoseconds; size_bytes bytes.
CREATE OR REPLACE VIEW kernel_category AS
SELECT
    r.run_name::VARCHAR          AS run_name,          -- run name
    k.rank::INTEGER              AS rank,              -- global rank
    k.kernel_id::BIGINT          AS kernel_id,         -- kernel.kernel_id
    k.step::INTEGER              AS step,              -- step number (kernel.step)
    k.name::VARCHAR              AS name,              -- kernel name
    k.category::VARCHAR          AS category,          -- Communication, Lccl, MC2, Flash Attention, Paged Attention, Conv, Matmul, Cube, Vector, SDMA (Tensor Move), SDMA, Memcpy, Memset or Other
    k.sub_category::VARCHAR      AS sub_category,      -- cube, vector or trans for compute kernels (msprof-analyze Cube / Vector (No Trans) / Vector (Trans)); NULL otherwise
    k.direction::VARCHAR         AS direction,         -- fwd or bwd when a rule tells (launching op or Type with bwd/backward/back/grad); NULL otherwise
    k.collective::VARCHAR        AS collective,        -- communication: allreduce, allgather, reducescatter, alltoall, broadcast, reduce, send, recv, sendrecv, dispatch, combine, barrier; NULL otherwise or unknown
    k.rule_id::INTEGER           AS rule_id,           -- kernel_class_rule.rule_id that gave the category; NULL = no rule (Other)
    k.is_communication::BOOLEAN  AS is_communication,  -- counted as communication by every view
    k.is_copy::BOOLEAN           AS is_copy,           -- a copy (Memcpy, Memset, SDMA): neither computing nor communication
    k.copy_kind::VARCHAR         AS copy_kind,         -- HtoD, DtoH, DtoD, PtoP, Memset (kernel.copy_kind)
    k.ts_ns::BIGINT              AS ts_ns,             -- start, ns since the epoch
    k.dur_ns::BIGINT             AS dur_ns,            -- duration, ns
    k.msprof_category::VARCHAR   AS msprof_category,   -- category msprof-analyze compare gives the kernel where its reading differs (op link only through its flows, no categories on Level0 / trace-only torch_npu ranks, Ascend DB: uncategorised compute tasks in Vector); copies: SDMA / Memcpy where it reads them, NULL where it does not
    k.msprof_sub_category::VARCHAR AS msprof_sub_category, -- cube, vector or trans as msprof-analyze splits the kernel
    k.msprof_direction::VARCHAR  AS msprof_direction   -- fwd or bwd as msprof-analyze gives it
FROM tracedb_internal.kernel_class AS k
JOIN run AS r
    ON r.run_id = k.run_id
ORDER BY r.run_name, k.rank, k.kernel_id;
