-- op_shape: the matrix ops of (run, rank) with their dimensions, parsed once (schema/070).
-- Op rows: framework ops of a matrix family (by name: aten::mm, addmm, bmm, baddbmm, linear,
-- matmul, _scaled_mm, the conv / convolution / cudnn_convolution chain and its backward, the
-- scaled_dot_product / flash / efficient attention ops, npu_fusion_attention) and ops whose event
-- carries a Kineto "flops" arg (with_flops=True). Their dims come from op.input_dims /
-- input_types (shape_list / dtype_list, derive/_session.sql) and, for a trace event, the
-- "Concrete Inputs" (conv stride, padding, dilation, output mask) and "flops" args.
-- Kernel rows: NPU kernels of a matrix op type (MatMul*, BatchMatMul*, Conv2D*,
-- Conv2DBackpropInput* / Filter*, FlashAttentionScore*), dims from kernel.input_shapes,
-- input_dtypes, output_shapes and the formats kernel_pmu_raw kept (FRACTAL_NZ matrices and
-- NC1HWC0 / FRACTAL_Z convolutions are read back into plain M, N, K and channels; a MatMul's
-- transposes are found by matching the inner dims and the output shape).
-- A row whose dims cannot be read keeps parsed = false and the reason (counted, not dropped).
-- FLOPs: torch.utils.flop_counter's formulas (the Kineto with_flops ones for mm / addmm / bmm /
-- baddbmm / conv2d): GEMM 2·batch·M·N·K; conv 2·N·prod(out spatial)·C_out·(C_in/groups)·
-- prod(kernel) per gradient (conv_bwd: the output mask's gradients, both when not recorded);
-- attention 2·B·H·S_q·S_kv·(D_q + D_v) forward, 2·B·H·S_q·S_kv·(3·D_q + 2·D_v) backward.
-- Innermost: an op row with no op_shape op below it (4 levels down), the TensorBoard plugin's
-- "bottom" Tensor Core eligible op: the one whose kernels do the work.
-- when: SELECT EXISTS (FROM op WHERE (run_id, rank) IN (FROM derive_rank()) AND input_dims IS NOT NULL) OR EXISTS (FROM kernel WHERE (run_id, rank) IN (FROM derive_rank()) AND input_shapes IS NOT NULL) OR EXISTS (FROM source_file WHERE (run_id, rank) IN (FROM derive_rank()) AND format = 'kineto')
DELETE FROM op_shape WHERE (run_id, rank) IN (FROM derive_rank());

-- the op rows (three statements: one statement of every step plans for longer than it runs)
CREATE OR REPLACE TEMP TABLE _op_shape_rank AS
WITH op_rank AS (
    SELECT run_id, rank, op_id, file_id, step, tid, ts_ns, dur_ns, name, parent_op_id, input_dims, input_types, device_total_ns,
           sequence_number,
           CASE
               WHEN name = 'aten::mm' THEN 'mm'
               WHEN name IN ('aten::addmm', 'aten::addmm_') THEN 'addmm'
               WHEN name = 'aten::bmm' THEN 'bmm'
               WHEN name IN ('aten::baddbmm', 'aten::baddbmm_') THEN 'baddbmm'
               WHEN name = 'aten::linear' THEN 'linear'
               WHEN name = 'aten::matmul' THEN 'matmul'
               WHEN name = 'aten::_scaled_mm' THEN 'scaled_mm'
               WHEN name IN ('aten::conv1d', 'aten::conv2d', 'aten::conv3d', 'aten::convolution', 'aten::_convolution',
                             'aten::cudnn_convolution', 'aten::miopen_convolution', 'aten::mkldnn_convolution')
                   THEN 'conv'
               WHEN name IN ('aten::conv_transpose1d', 'aten::conv_transpose2d', 'aten::conv_transpose3d',
                             'aten::cudnn_convolution_transpose', 'aten::miopen_convolution_transpose')
                   THEN 'conv_transpose'
               WHEN name IN ('aten::convolution_backward', 'aten::cudnn_convolution_backward',
                             'aten::miopen_convolution_backward') THEN 'conv_bwd'
               WHEN name IN ('aten::cudnn_convolution_backward_input', 'aten::miopen_convolution_backward_input')
                   THEN 'conv_bwd_input'
               WHEN name IN ('aten::cudnn_convolution_backward_weight', 'aten::miopen_convolution_backward_weight')
                   THEN 'conv_bwd_weight'
               WHEN name IN ('aten::scaled_dot_product_attention', 'aten::_scaled_dot_product_flash_attention',
                             'aten::_scaled_dot_product_efficient_attention',
                             'aten::_scaled_dot_product_cudnn_attention') THEN 'sdpa'
               WHEN name IN ('aten::_scaled_dot_product_flash_attention_backward',
                             'aten::_scaled_dot_product_efficient_attention_backward',
                             'aten::_scaled_dot_product_cudnn_attention_backward') THEN 'sdpa_bwd'
               WHEN name IN ('aten::_flash_attention_forward', 'aten::_efficient_attention_forward',
                             'npu::npu_fusion_attention') THEN 'flash_attention'
               WHEN name IN ('aten::_flash_attention_backward', 'aten::_efficient_attention_backward',
                             'npu::npu_fusion_attention_grad') THEN 'flash_attention_bwd'
           END AS family
    FROM op
    WHERE (run_id, rank) IN (FROM derive_rank())
),
trace_files AS (
    SELECT file_id FROM source_file
    WHERE (run_id, rank) IN (FROM derive_rank()) AND format IN ('kineto', 'trace_view')
),
cand AS (
    SELECT DISTINCT file_id, tid, ts_ns, dur_ns, name FROM op_rank WHERE family IS NOT NULL
),
op_args AS (
    -- what the op events say beyond op.input_dims / input_types: Concrete Inputs and flops
    SELECT e.file_id, e.tid, e.ts_ns, e.dur_ns, e.name,
           any_value(json_extract_string(e.args, '$."Concrete Inputs"')) AS concrete,
           any_value(TRY_CAST(json_extract_string(e.args, '$.flops') AS BIGINT)) AS profiler_flops
    FROM event AS e
    WHERE (e.run_id, e.rank) IN (FROM derive_rank())
      AND e.file_id IN (SELECT file_id FROM trace_files) AND e.ph = 'X' AND lower(e.cat) IN ('cpu_op', 'operator')
      AND e.args IS NOT NULL
      AND (contains(e.args, '"flops"')
           OR (e.file_id, e.tid, e.ts_ns, e.dur_ns, e.name) IN (SELECT file_id, tid, ts_ns, dur_ns, name FROM cand))
    GROUP BY e.file_id, e.tid, e.ts_ns, e.dur_ns, e.name
),
ops AS (
    SELECT o.*, a.profiler_flops,
           CASE WHEN a.concrete IS NOT NULL THEN regexp_extract_all(a.concrete, '"([^"]*)"', 1) END AS ci,
           -- the DB of torch_npu holds the types in inputShapes: take each from the text that looks like it
           CASE WHEN regexp_matches(o.input_dims, '[A-Za-z]') AND NOT regexp_matches(coalesce(o.input_types, ''), '[A-Za-z]')
                THEN shape_list(o.input_types) ELSE shape_list(o.input_dims) END AS d,
           CASE WHEN regexp_matches(o.input_dims, '[A-Za-z]') AND NOT regexp_matches(coalesce(o.input_types, ''), '[A-Za-z]')
                THEN dtype_list(o.input_dims) ELSE dtype_list(o.input_types) END AS t
    FROM op_rank AS o
    LEFT JOIN op_args AS a
        ON a.file_id = o.file_id AND a.tid = o.tid AND a.ts_ns = o.ts_ns AND a.dur_ns = o.dur_ns AND a.name = o.name
    WHERE o.family IS NOT NULL OR a.profiler_flops IS NOT NULL
)
SELECT * FROM ops;

CREATE OR REPLACE TEMP TABLE _op_shape_dims AS
WITH ops AS (FROM _op_shape_rank),
op_operands AS (
    -- the operands each family reads (1-based argument positions of the aten signatures)
    SELECT *,
           CASE WHEN family IN ('addmm', 'baddbmm') THEN 2 ELSE 1 END AS ia,
           CASE WHEN family IN ('addmm', 'baddbmm') THEN 3 ELSE 2 END AS ib,
           -- conv: x (input), w (weight), g (output gradient)
           CASE family WHEN 'conv_bwd' THEN CASE WHEN name = 'aten::convolution_backward' THEN 2 ELSE 1 END
                       WHEN 'conv_bwd_weight' THEN 3 WHEN 'conv_bwd_input' THEN NULL ELSE 1 END AS ix,
           CASE family WHEN 'conv_bwd_weight' THEN NULL ELSE 2 + (family IN ('conv_bwd', 'conv_bwd_input'))::INTEGER END AS iw,
           CASE family WHEN 'conv_bwd' THEN CASE WHEN name = 'aten::convolution_backward' THEN 1 ELSE 2 END
                       WHEN 'conv_bwd_input' THEN 2 WHEN 'conv_bwd_weight' THEN 2 END AS ig,
           -- Concrete Inputs positions of stride, padding, dilation, output mask
           CASE WHEN name IN ('aten::conv1d', 'aten::conv2d', 'aten::conv3d', 'aten::convolution', 'aten::_convolution',
                              'aten::conv_transpose1d', 'aten::conv_transpose2d', 'aten::conv_transpose3d') THEN 4
                WHEN name = 'aten::convolution_backward' THEN 5
                WHEN name IN ('aten::miopen_convolution', 'aten::mkldnn_convolution') THEN 5
                WHEN name IN ('aten::cudnn_convolution', 'aten::cudnn_convolution_transpose') THEN 4
                WHEN family IN ('conv_bwd', 'conv_bwd_input', 'conv_bwd_weight') THEN 5 END AS i_stride,
           CASE WHEN name IN ('aten::conv1d', 'aten::conv2d', 'aten::conv3d', 'aten::convolution', 'aten::_convolution',
                              'aten::conv_transpose1d', 'aten::conv_transpose2d', 'aten::conv_transpose3d') THEN 5
                WHEN name = 'aten::convolution_backward' THEN 6
                WHEN name IN ('aten::miopen_convolution', 'aten::mkldnn_convolution') THEN 4
                WHEN name IN ('aten::cudnn_convolution', 'aten::cudnn_convolution_transpose') THEN 3
                WHEN family IN ('conv_bwd', 'conv_bwd_input', 'conv_bwd_weight') THEN 4 END AS i_pad,
           CASE WHEN name IN ('aten::conv1d', 'aten::conv2d', 'aten::conv3d', 'aten::convolution', 'aten::_convolution')
                    THEN 6
                WHEN name = 'aten::convolution_backward' THEN 7
                WHEN name IN ('aten::miopen_convolution', 'aten::mkldnn_convolution') THEN 6
                WHEN name = 'aten::cudnn_convolution' THEN 5
                WHEN family IN ('conv_bwd', 'conv_bwd_input', 'conv_bwd_weight') THEN 6 END AS i_dil,
           CASE WHEN name = 'aten::convolution_backward' THEN 11
                WHEN family = 'conv_bwd' THEN 11 END AS i_mask
    FROM ops
),
op_parsed AS (
    SELECT *,
           d[ia] AS a, d[ib] AS b, len(d[ia]) AS na, len(d[ib]) AS nb,
           d[ix] AS x, d[iw] AS w, d[ig] AS g,
           TRY_CAST(ci[i_stride] AS BIGINT[]) AS stride_l,
           TRY_CAST(ci[i_pad] AS BIGINT[]) AS pad_l,
           TRY_CAST(ci[i_dil] AS BIGINT[]) AS dil_l,
           CASE WHEN ci[i_mask] IS NOT NULL
                THEN (lower(string_split(trim(ci[i_mask], '[]'), ',')[1]) LIKE '%true%')::INTEGER
                     + (lower(string_split(trim(ci[i_mask], '[]'), ',')[2]) LIKE '%true%')::INTEGER END AS grads
    FROM op_operands
),
op_gemm AS (
    SELECT *,
           -- (batch, M, K, K of B, N) per family; matmul folds like PyTorch
           CASE WHEN family IN ('mm', 'addmm', 'scaled_mm') AND na = 2 AND nb = 2 THEN 1
                WHEN family IN ('bmm', 'baddbmm') AND na = 3 AND nb = 3 THEN a[1]
                WHEN family = 'linear' AND na >= 1 AND nb = 2 THEN 1
                WHEN family = 'matmul' AND na >= 1 AND nb >= 1 THEN
                    CASE WHEN nb <= 2 OR na = 1 THEN coalesce(list_aggregate(list_slice(b, 1, nb - 2), 'product'), 1)
                         ELSE greatest(coalesce(list_aggregate(list_slice(a, 1, na - 2), 'product'), 1),
                                       coalesce(list_aggregate(list_slice(b, 1, nb - 2), 'product'), 1)) END
           END AS g_batch,
           CASE WHEN family IN ('mm', 'addmm', 'scaled_mm') AND na = 2 AND nb = 2 THEN a[1]
                WHEN family IN ('bmm', 'baddbmm') AND na = 3 AND nb = 3 THEN a[2]
                WHEN family = 'linear' AND na >= 1 AND nb = 2 THEN coalesce(list_aggregate(list_slice(a, 1, na - 1), 'product'), 1)
                WHEN family = 'matmul' AND na >= 1 AND nb >= 1 THEN
                    CASE WHEN na = 1 THEN 1
                         WHEN nb <= 2 THEN coalesce(list_aggregate(list_slice(a, 1, na - 1), 'product'), 1)
                         ELSE a[na - 1] END
           END AS g_m,
           CASE WHEN family IN ('mm', 'addmm', 'scaled_mm', 'bmm', 'baddbmm', 'linear', 'matmul') THEN a[na] END AS g_k,
           CASE WHEN family IN ('mm', 'addmm', 'scaled_mm') AND nb = 2 THEN b[1]
                WHEN family IN ('bmm', 'baddbmm') AND nb = 3 THEN b[2]
                WHEN family = 'linear' AND nb = 2 THEN b[2]
                WHEN family = 'matmul' AND nb = 1 THEN b[1]
                WHEN family = 'matmul' AND nb >= 2 THEN b[nb - 1] END AS g_kb,
           CASE WHEN family IN ('mm', 'addmm', 'scaled_mm') AND nb = 2 THEN b[2]
                WHEN family IN ('bmm', 'baddbmm') AND nb = 3 THEN b[3]
                WHEN family = 'linear' AND nb = 2 THEN b[1]
                WHEN family = 'matmul' AND nb = 1 THEN 1
                WHEN family = 'matmul' AND nb >= 2 THEN b[nb] END AS g_n
    FROM op_parsed
),
op_dims0 AS (
    SELECT *,
           family IN ('mm', 'addmm', 'scaled_mm', 'bmm', 'baddbmm', 'linear', 'matmul') AS is_gemm,
           family IN ('conv', 'conv_transpose', 'conv_bwd', 'conv_bwd_input', 'conv_bwd_weight') AS is_conv,
           family IN ('sdpa', 'sdpa_bwd', 'flash_attention', 'flash_attention_bwd') AS is_attn,
           -- conv: spatial dims of x / g / w (1-d, 2-d, 3-d), the output spatial dims from g or
           -- from stride / padding / dilation
           CASE WHEN family = 'conv_bwd_weight' THEN TRY_CAST(ci[1] AS BIGINT[]) ELSE w END AS wt,
           CASE WHEN x IS NOT NULL THEN list_slice(x, 3, len(x)) END AS x_sp,
           CASE WHEN g IS NOT NULL THEN list_slice(g, 3, len(g)) END AS g_sp,
           -- attention: q, k, v positions (the backward ops take the output gradient first)
           CASE WHEN family IN ('sdpa_bwd', 'flash_attention_bwd') THEN d[2] ELSE d[1] END AS q,
           CASE WHEN family IN ('sdpa_bwd', 'flash_attention_bwd') THEN d[3] ELSE d[2] END AS kk,
           CASE WHEN family IN ('sdpa_bwd', 'flash_attention_bwd') THEN d[4] ELSE d[3] END AS v
    FROM op_gemm
)
FROM op_dims0;

CREATE OR REPLACE TEMP TABLE _op_shape_op AS
WITH op_rank AS (
    SELECT run_id, rank, op_id, parent_op_id, sequence_number FROM op WHERE (run_id, rank) IN (FROM derive_rank())
),
op_dims AS (FROM _op_shape_dims),
conv_seq AS (
    -- autograd sequence number of a conv op, its own or of one of its 3 enclosing ops (the op
    -- that recorded the autograd node: aten::conv2d, aten::cudnn_convolution ...)
    SELECT c.run_id, c.rank, c.op_id, coalesce(o0.sequence_number, o1.sequence_number, o2.sequence_number, o3.sequence_number) AS seq
    FROM op_dims AS c
    JOIN op_rank AS o0 ON o0.run_id = c.run_id AND o0.rank = c.rank AND o0.op_id = c.op_id
    LEFT JOIN op_rank AS o1 ON o1.run_id = o0.run_id AND o1.rank = o0.rank AND o1.op_id = o0.parent_op_id
    LEFT JOIN op_rank AS o2 ON o2.run_id = o1.run_id AND o2.rank = o1.rank AND o2.op_id = o1.parent_op_id
    LEFT JOIN op_rank AS o3 ON o3.run_id = o2.run_id AND o3.rank = o2.rank AND o3.op_id = o2.parent_op_id
    WHERE c.is_conv
),
bwd_out AS (
    -- a forward conv without stride / padding records no output size; its backward (the autograd
    -- node of the same sequence number and step) records the output gradient, whose shape it is
    SELECT c.run_id, c.rank, s.seq, c.step, any_value(c.g) AS g
    FROM op_dims AS c
    JOIN conv_seq AS s ON s.run_id = c.run_id AND s.rank = c.rank AND s.op_id = c.op_id
    WHERE c.family IN ('conv_bwd', 'conv_bwd_input', 'conv_bwd_weight') AND len(c.g) >= 3 AND s.seq >= 0
    GROUP BY c.run_id, c.rank, s.seq, c.step
),
op_conv AS (
    SELECT c.*,
           CASE WHEN c.wt IS NOT NULL AND c.is_conv THEN list_slice(c.wt, 3, len(c.wt)) END AS w_sp,
           CASE WHEN c.is_conv AND c.family <> 'conv_transpose' THEN
               coalesce(c.g_sp,
                        CASE WHEN c.x_sp IS NOT NULL AND c.wt IS NOT NULL AND len(c.stride_l) = len(c.x_sp)
                                  AND len(c.pad_l) = len(c.x_sp) AND len(c.dil_l) = len(c.x_sp)
                             THEN list_transform(generate_series(1, len(c.x_sp)),
                                                 lambda i: (c.x_sp[i] + 2 * c.pad_l[i] - c.dil_l[i] * (c.wt[i + 2] - 1) - 1)
                                                           // c.stride_l[i] + 1) END,
                        CASE WHEN b.g[1] = c.x[1] AND b.g[2] = c.wt[1] AND len(b.g) = len(c.x)
                             THEN list_slice(b.g, 3, len(b.g)) END)
           END AS o_sp
    FROM op_dims AS c
    LEFT JOIN conv_seq AS s ON s.run_id = c.run_id AND s.rank = c.rank AND s.op_id = c.op_id
    LEFT JOIN bwd_out AS b ON b.run_id = c.run_id AND b.rank = c.rank AND b.seq = s.seq
                          AND b.step IS NOT DISTINCT FROM c.step AND c.family = 'conv'
),
op_rows AS (
    SELECT
        run_id, rank, 'op' AS kind, op_id, NULL::BIGINT AS kernel_id, file_id, step, name, NULL::VARCHAR AS op_type,
        coalesce(family, 'elementwise') AS family, device_total_ns AS device_ns, profiler_flops,
        CASE WHEN is_gemm THEN t[ia] WHEN is_conv THEN t[coalesce(ix, ig)] WHEN is_attn THEN t[CASE WHEN family IN ('sdpa_bwd', 'flash_attention_bwd') THEN 2 ELSE 1 END]
             ELSE list_filter(t, lambda y: precision_of(y) IS NOT NULL)[1] END AS dtype,
        CASE WHEN is_gemm THEN '[' || array_to_string(a, ',') || '] x [' || array_to_string(b, ',') || ']'
             WHEN is_conv THEN '[' || array_to_string(coalesce(x, g), ',') || '] x [' || array_to_string(coalesce(wt, g), ',') || ']'
             WHEN is_attn THEN '[' || array_to_string(q, ',') || '] x [' || array_to_string(kk, ',') || ']' END AS operand_shapes,
        CASE WHEN family IS NULL THEN 'no matrix family (an op with a profiler flops arg)'
             WHEN d IS NULL THEN 'no shapes recorded'
             WHEN is_gemm AND (a IS NULL OR b IS NULL) THEN 'too few operands'
             WHEN is_gemm AND (g_m IS NULL OR g_n IS NULL OR g_k IS NULL) THEN 'operand rank'
             WHEN is_gemm AND g_k <> g_kb THEN 'inner dimensions disagree'
             WHEN is_conv AND (coalesce(x, g) IS NULL OR len(coalesce(x, g)) NOT IN (3, 4, 5)) THEN 'operand rank'
             WHEN is_conv AND family <> 'conv_bwd_weight' AND (wt IS NULL OR len(wt) <> len(coalesce(x, g))) THEN 'operand rank'
             WHEN is_attn AND (len(q) <> 4 OR len(kk) <> 4) THEN 'operand rank (variable-length or 3-d attention)'
        END AS unparsed_reason,
        'ND' AS layout,
        CASE WHEN is_gemm THEN g_batch WHEN is_conv THEN coalesce(x, g)[1] WHEN is_attn THEN q[1] END AS batch,
        CASE WHEN is_gemm THEN g_m END AS m,
        CASE WHEN is_gemm THEN g_n END AS n,
        CASE WHEN is_gemm THEN g_k END AS k,
        CASE WHEN family = 'conv_transpose' THEN wt[1] WHEN is_conv THEN coalesce(x[2], wt[2]) END AS c_in,
        CASE WHEN family = 'conv_transpose' THEN wt[2] WHEN is_conv THEN coalesce(g[2], wt[1]) END AS c_out,
        CASE WHEN is_conv AND len(x_sp) >= 2 THEN x_sp[len(x_sp) - 1] WHEN is_conv AND len(x_sp) = 1 THEN 1 END AS in_h,
        CASE WHEN is_conv AND len(x_sp) >= 1 THEN x_sp[len(x_sp)] END AS in_w,
        CASE WHEN len(o_sp) >= 2 THEN o_sp[len(o_sp) - 1] WHEN len(o_sp) = 1 THEN 1 END AS out_h,
        CASE WHEN len(o_sp) >= 1 THEN o_sp[len(o_sp)] END AS out_w,
        CASE WHEN len(w_sp) >= 2 THEN w_sp[len(w_sp) - 1] WHEN len(w_sp) = 1 THEN 1 END AS kernel_h,
        CASE WHEN len(w_sp) >= 1 THEN w_sp[len(w_sp)] END AS kernel_w,
        CASE WHEN len(stride_l) >= 2 THEN stride_l[len(stride_l) - 1] WHEN len(stride_l) = 1 THEN 1 END AS stride_h,
        CASE WHEN len(stride_l) >= 1 THEN stride_l[len(stride_l)] END AS stride_w,
        CASE WHEN is_conv AND family <> 'conv_transpose' AND x[2] IS NOT NULL AND wt[2] > 0 THEN x[2] // wt[2] END AS groups,
        -- attention layouts: sdpa ops [B, H, S, D]; _flash / _efficient_attention ops [B, S, H, D]
        CASE WHEN family IN ('sdpa', 'sdpa_bwd') THEN q[2] WHEN is_attn THEN q[3] END AS heads,
        CASE WHEN family IN ('sdpa', 'sdpa_bwd') THEN q[3] WHEN is_attn THEN q[2] END AS seq_q,
        CASE WHEN family IN ('sdpa', 'sdpa_bwd') THEN kk[3] WHEN is_attn THEN kk[2] END AS seq_kv,
        CASE WHEN is_attn THEN q[4] END AS head_dim,
        CASE WHEN is_attn THEN v[4] END AS v_dim,
        CASE WHEN family IN ('sdpa', 'sdpa_bwd') THEN 'BNSD' WHEN is_attn THEN 'BSND' END AS attn_layout,
        CASE WHEN family IN ('conv_bwd') THEN coalesce(grads, 2) ELSE 1 END AS grads,
        is_gemm, is_conv, is_attn, w_sp, o_sp, x_sp, parent_op_id, tid
    FROM op_conv
)
SELECT run_id, rank, kind, op_id, kernel_id, file_id, step, name, op_type, family, device_ns, profiler_flops, dtype,
       precision_of(dtype) AS precision0, NULL::BOOLEAN AS hf32_eligible, operand_shapes,
       CASE WHEN is_attn THEN attn_layout ELSE layout END AS layout, unparsed_reason,
       batch, m, n, k, c_in, c_out, in_h, in_w, out_h, out_w, kernel_h, kernel_w, stride_h, stride_w,
       coalesce(groups, CASE WHEN is_conv THEN 1 END) AS groups,
       heads, seq_q, seq_kv, head_dim, CASE WHEN is_attn THEN heads * head_dim END AS hidden,
       -- FLOPs (HUGEINT on the way: a product of dims must not overflow the statement)
       CASE WHEN unparsed_reason IS NOT NULL OR family = 'elementwise' THEN NULL
            WHEN is_gemm THEN 2::HUGEINT * batch * m * n * k
            WHEN is_conv AND family = 'conv_transpose'
                THEN 2::HUGEINT * batch * list_aggregate(x_sp, 'product') * c_in * c_out
                     * list_aggregate(w_sp, 'product')
            WHEN is_conv THEN 2::HUGEINT * grads * batch * list_aggregate(o_sp, 'product') * c_out
                              * (c_in // coalesce(groups, 1)) * list_aggregate(w_sp, 'product')
            WHEN family IN ('sdpa', 'flash_attention') THEN 2::HUGEINT * batch * heads * seq_q * seq_kv * (head_dim + v_dim)
            WHEN family IN ('sdpa_bwd', 'flash_attention_bwd')
                THEN 2::HUGEINT * batch * heads * seq_q * seq_kv * (3 * head_dim + 2 * v_dim)
       END AS flops,
       parent_op_id
FROM op_rows;

-- the NPU kernel rows
CREATE OR REPLACE TEMP TABLE _op_shape_knd AS
WITH k_rank AS (
    SELECT k.run_id, k.rank, k.kernel_id, k.file_id, k.step, k.name, k.op_type, k.op_id, k.dur_ns, k.input_shapes, k.input_dtypes,
           k.output_shapes, p.input_formats, p.hf32_eligible,
           CASE
               WHEN lower(k.op_type) LIKE '%batchmatmul%' THEN 'bmm'
               WHEN lower(k.op_type) LIKE '%matmul%' OR lower(k.op_type) LIKE '%gemm%' THEN 'mm'
               WHEN lower(k.op_type) LIKE 'conv%backpropinput%' THEN 'conv_bwd_input'
               WHEN lower(k.op_type) LIKE 'conv%backpropfilter%' THEN 'conv_bwd_weight'
               WHEN lower(k.op_type) LIKE 'conv%transpose%' THEN 'conv_transpose'
               WHEN regexp_matches(lower(k.op_type), '^conv[123]d') THEN 'conv'
               WHEN lower(k.op_type) LIKE '%flashattention%grad%' THEN 'flash_attention_bwd'
               WHEN lower(k.op_type) LIKE '%flashattention%' OR lower(k.op_type) LIKE '%fusedinferattention%'
                   THEN 'flash_attention'
           END AS family
    FROM kernel AS k
    JOIN run AS r ON r.run_id = k.run_id AND r.platform = 'npu'
    LEFT JOIN kernel_pmu_raw AS p
        ON p.run_id = k.run_id AND p.rank = k.rank AND p.file_id = k.file_id AND p.kernel_id = k.kernel_id
    WHERE (k.run_id, k.rank) IN (FROM derive_rank()) AND NOT k.is_communication
      AND k.copy_kind IS NULL
),
k_lists AS (
    SELECT *,
           shape_list(input_shapes) AS d,
           dtype_list(input_dtypes) AS t,
           shape_list(output_shapes) AS od,
           list_transform(string_split(coalesce(input_formats, ''), ';'),
                          lambda f: upper(regexp_replace(trim(f), '^FORMAT_|:[0-9]+$', '', 'g'))) AS fmt
    FROM k_rank
    WHERE family IS NOT NULL
),
k_nd AS (
    -- FRACTAL_NZ [..., c1, r1, r0, c0] → ND [..., r1·r0, c1·c0]
    SELECT *,
           fmt[1] = 'FRACTAL_NZ' AS nz,
           CASE WHEN fmt[1] = 'FRACTAL_NZ' AND len(d[1]) >= 4
                THEN list_concat(list_slice(d[1], 1, len(d[1]) - 4),
                                 [d[1][len(d[1]) - 2] * d[1][len(d[1]) - 1], d[1][len(d[1]) - 3] * d[1][len(d[1])]])
                ELSE d[1] END AS a,
           CASE WHEN fmt[2] = 'FRACTAL_NZ' AND len(d[2]) >= 4
                THEN list_concat(list_slice(d[2], 1, len(d[2]) - 4),
                                 [d[2][len(d[2]) - 2] * d[2][len(d[2]) - 1], d[2][len(d[2]) - 3] * d[2][len(d[2])]])
                ELSE d[2] END AS b,
           CASE WHEN fmt[1] = 'FRACTAL_NZ' AND len(od[1]) >= 4
                THEN list_concat(list_slice(od[1], 1, len(od[1]) - 4),
                                 [od[1][len(od[1]) - 2] * od[1][len(od[1]) - 1], od[1][len(od[1]) - 3] * od[1][len(od[1])]])
                ELSE od[1] END AS o,
           -- conv operands by format: the FRACTAL_Z filter, the first and last NC1HWC0 tensors
           list_position(fmt, 'FRACTAL_Z') AS i_fz,
           list_position(fmt, 'NC1HWC0') AS i_5hd,
           len(fmt) + 1 - list_position(list_reverse(fmt), 'NC1HWC0') AS i_5hd_last
    FROM k_lists
),
k_mm0 AS (
    -- the transposes: the first of (A, B), (A, Bᵀ), (Aᵀ, B), (Aᵀ, Bᵀ) whose inner dims agree and
    -- whose M x N is the output's
    SELECT *,
           a[len(a) - 1] AS a1, a[len(a)] AS a2, b[len(b) - 1] AS b1, b[len(b)] AS b2,
           o[len(o) - 1] AS o1, o[len(o)] AS o2
    FROM k_nd
)
FROM k_mm0;

CREATE OR REPLACE TEMP TABLE _op_shape_kernel AS
WITH k_mm AS (FROM _op_shape_knd),
k_pick AS (
    SELECT *,
           CASE WHEN a2 = b1 AND (o IS NULL OR (o1 = a1 AND o2 = b2)) THEN 1
                WHEN a2 = b2 AND (o IS NULL OR (o1 = a1 AND o2 = b1)) THEN 2
                WHEN a1 = b1 AND (o IS NULL OR (o1 = a2 AND o2 = b2)) THEN 3
                WHEN a1 = b2 AND (o IS NULL OR (o1 = a2 AND o2 = b1)) THEN 4 END AS tr
    FROM k_mm
),
k_rows AS (
    SELECT
        run_id, rank, 'kernel' AS kind, op_id, kernel_id, file_id, step, name, op_type, family, dur_ns AS device_ns,
        NULL::BIGINT AS profiler_flops,
        family IN ('mm', 'bmm') AS is_gemm,
        family IN ('conv', 'conv_transpose', 'conv_bwd_input', 'conv_bwd_weight') AS is_conv,
        family IN ('flash_attention', 'flash_attention_bwd') AS is_attn,
        CASE WHEN family IN ('conv_bwd_input') THEN t[i_5hd] WHEN family = 'conv_bwd_weight' THEN t[i_5hd] ELSE t[1] END AS dtype,
        hf32_eligible,
        input_shapes AS operand_shapes,
        CASE WHEN family IN ('mm', 'bmm') THEN CASE WHEN nz THEN 'FRACTAL_NZ' ELSE 'ND' END
             WHEN family LIKE 'conv%' THEN CASE WHEN i_5hd > 0 THEN 'NC1HWC0' ELSE 'NCHW' END END AS layout,
        -- conv (NC1HWC0 x [N, C1, H, W, C0], FRACTAL_Z filter [C1·kh·kw, Cout/16, 16, C0]; NCHW plain)
        CASE family WHEN 'conv' THEN d[1] WHEN 'conv_bwd_weight' THEN d[i_5hd] WHEN 'conv_bwd_input' THEN od[1] END AS cx,
        CASE family WHEN 'conv' THEN od[1] WHEN 'conv_bwd_weight' THEN d[i_5hd_last] WHEN 'conv_bwd_input' THEN d[i_5hd] END AS cy,
        CASE family WHEN 'conv' THEN d[2] WHEN 'conv_bwd_weight' THEN od[1] WHEN 'conv_bwd_input' THEN d[i_fz] END AS cw,
        d, od, a, b, o, a1, a2, b1, b2, tr, i_5hd
    FROM k_pick
),
k_out AS (
    SELECT *,
           CASE WHEN is_gemm THEN coalesce(list_aggregate(list_slice(a, 1, len(a) - 2), 'product'), 1) END AS batch,
           CASE WHEN is_gemm THEN CASE tr WHEN 1 THEN a1 WHEN 2 THEN a1 WHEN 3 THEN a2 WHEN 4 THEN a2 END END AS m,
           CASE WHEN is_gemm THEN CASE tr WHEN 1 THEN b2 WHEN 2 THEN b1 WHEN 3 THEN b2 WHEN 4 THEN b1 END END AS n,
           CASE WHEN is_gemm THEN CASE tr WHEN 1 THEN a2 WHEN 2 THEN a2 WHEN 3 THEN a1 WHEN 4 THEN a1 END END AS k,
           -- conv dims: 5-HD (N, C1, H, W, C0): C = C1·C0; NCHW: C = dim 2
           CASE WHEN is_conv AND len(cx) = 5 AND len(cy) = 5 AND len(cw) = 4 THEN cx[2] * cx[5]
                WHEN is_conv AND len(cx) = 4 AND len(cy) = 4 AND len(cw) = 4 THEN cx[2] END AS c_in,
           CASE WHEN is_conv AND len(cx) = 5 AND len(cy) = 5 AND len(cw) = 4 THEN cy[2] * cy[5]
                WHEN is_conv AND len(cx) = 4 AND len(cy) = 4 AND len(cw) = 4 THEN cy[2] END AS c_out,
           CASE WHEN is_conv AND len(cx) = 5 AND len(cy) = 5 AND len(cw) = 4 AND cx[2] > 0 AND cw[1] % cx[2] = 0
                THEN cw[1] // cx[2]
                WHEN is_conv AND len(cx) = 4 AND len(cy) = 4 AND len(cw) = 4 THEN cw[3] * cw[4] END AS k_area,
           CASE WHEN is_conv AND len(cx) IN (4, 5) THEN cx[3] END AS in_h,
           CASE WHEN is_conv AND len(cx) IN (4, 5) THEN cx[4] END AS in_w,
           CASE WHEN is_conv AND len(cy) IN (4, 5) THEN cy[3] END AS out_h,
           CASE WHEN is_conv AND len(cy) IN (4, 5) THEN cy[4] END AS out_w,
           CASE WHEN is_conv THEN cx[1] END AS conv_n
    FROM k_rows
),
k_final AS (
    SELECT *,
           CASE WHEN is_conv AND len(cw) = 4 AND len(cx) = 4 THEN cw[3]
                WHEN is_conv AND k_area IS NOT NULL AND round(sqrt(k_area)) * round(sqrt(k_area)) = k_area
                THEN CAST(round(sqrt(k_area)) AS BIGINT) END AS kernel_h,
           CASE WHEN is_conv AND len(cw) = 4 AND len(cx) = 4 THEN cw[4]
                WHEN is_conv AND k_area IS NOT NULL AND round(sqrt(k_area)) * round(sqrt(k_area)) = k_area
                THEN CAST(round(sqrt(k_area)) AS BIGINT) END AS kernel_w,
           -- attention: 4-d [B, N, S, D] / [B, S, N, D] (the longer of dims 2, 3 taken as S);
           -- 3-d [B, S, H] / [S, B, H] (the longer of dims 1, 2 taken as S); the layout attribute
           -- is not recorded; a 3-d query with a head-sized last dim is a variable-length (TND) one
           d[1] AS q, d[2] AS kk
    FROM k_out
),
k_attn AS (
    SELECT *,
           CASE WHEN is_attn AND len(q) = 4 THEN q[1]
                WHEN is_attn AND len(q) = 3 THEN least(q[1], q[2]) END AS a_batch,
           CASE WHEN is_attn AND len(q) = 4 THEN least(q[2], q[3]) END AS a_heads,
           CASE WHEN is_attn AND len(q) = 4 THEN greatest(q[2], q[3])
                WHEN is_attn AND len(q) = 3 THEN greatest(q[1], q[2]) END AS a_seq_q,
           CASE WHEN is_attn AND len(kk) = 4 THEN greatest(kk[2], kk[3])
                WHEN is_attn AND len(kk) = 3 THEN greatest(kk[1], kk[2]) END AS a_seq_kv,
           CASE WHEN is_attn AND len(q) = 4 THEN q[4] END AS a_head_dim,
           CASE WHEN is_attn AND len(q) = 4 THEN least(q[2], q[3]) * q[4]
                WHEN is_attn AND len(q) = 3 THEN q[3] END AS a_hidden,
           CASE WHEN is_attn AND len(q) = 4 THEN CASE WHEN q[3] >= q[2] THEN 'BNSD' ELSE 'BSND' END
                WHEN is_attn AND len(q) = 3 THEN CASE WHEN q[1] >= q[2] THEN 'SBH' ELSE 'BSH' END END AS a_layout
    FROM k_final
),
k_out_rows AS (
    SELECT run_id, rank, kind, op_id, kernel_id, file_id, step, name, op_type, family, device_ns, profiler_flops, dtype,
           precision_of(dtype) AS precision0, hf32_eligible, operand_shapes,
           CASE WHEN is_attn THEN a_layout ELSE layout END AS layout,
           CASE WHEN d IS NULL OR len(d) = 0 THEN 'no shapes recorded'
                WHEN is_gemm AND (a IS NULL OR b IS NULL OR len(a) < 2 OR len(b) < 2) THEN 'too few operands'
                WHEN is_gemm AND tr IS NULL THEN 'inner dimensions disagree'
                WHEN is_conv AND (c_in IS NULL OR c_out IS NULL OR k_area IS NULL) THEN 'unknown layout'
                WHEN is_attn AND (q IS NULL OR len(q) NOT IN (3, 4)) THEN 'operand rank'
                WHEN is_attn AND len(q) = 3 AND q[3] <= 256 AND q[2] <= 128 THEN 'variable-length (TND) layout'
           END AS unparsed_reason,
           CASE WHEN is_gemm THEN batch WHEN is_conv THEN conv_n WHEN is_attn THEN a_batch END AS batch,
           m, n, k, c_in, c_out, in_h, in_w, out_h, out_w, kernel_h, kernel_w,
           NULL::BIGINT AS stride_h, NULL::BIGINT AS stride_w, CASE WHEN is_conv THEN 1 END AS groups,
           a_heads AS heads, a_seq_q AS seq_q, a_seq_kv AS seq_kv, a_head_dim AS head_dim, a_hidden AS hidden,
           CASE WHEN is_gemm AND tr IS NOT NULL THEN 2::HUGEINT * batch * m * n * k
                WHEN is_conv THEN 2::HUGEINT * conv_n * out_h * out_w * c_out * c_in * k_area
                WHEN is_attn AND NOT (len(q) = 3 AND q[3] <= 256 AND q[2] <= 128)
                    THEN (CASE WHEN family = 'flash_attention' THEN 4 ELSE 10 END)::HUGEINT
                         * a_batch * a_seq_q * a_seq_kv * a_hidden END AS flops,
           NULL::BIGINT AS parent_op_id
    FROM k_attn
)
FROM k_out_rows;

INSERT INTO op_shape BY NAME
WITH op_rank AS (
    SELECT run_id, rank, op_id, parent_op_id FROM op WHERE (run_id, rank) IN (FROM derive_rank())
),
all_rows AS (
    FROM _op_shape_op
    UNION ALL BY NAME
    FROM _op_shape_kernel
),
shape_ops AS (
    SELECT run_id, rank, op_id, parent_op_id FROM all_rows WHERE kind = 'op' AND family <> 'elementwise'
),
shape_keys AS (SELECT DISTINCT run_id, rank, op_id FROM shape_ops),
ancestors AS (
    -- the nearest op_shape op among the 4 ops above each op row
    -- (left joins to the shape ops, not IN lists: DuckDB runs those as mark joins hashed on the
    -- run alone, quadratic in a batch's ops)
    SELECT s.run_id, s.rank, s.op_id,
           CASE WHEN q1.op_id IS NOT NULL THEN p1.op_id
                WHEN q2.op_id IS NOT NULL THEN p2.op_id
                WHEN q3.op_id IS NOT NULL THEN p3.op_id
                WHEN q4.op_id IS NOT NULL THEN p4.op_id END AS parent_shape_op_id
    FROM shape_ops AS s
    LEFT JOIN op_rank AS p1 ON p1.run_id = s.run_id AND p1.rank = s.rank AND p1.op_id = s.parent_op_id
    LEFT JOIN op_rank AS p2 ON p2.run_id = p1.run_id AND p2.rank = p1.rank AND p2.op_id = p1.parent_op_id
    LEFT JOIN op_rank AS p3 ON p3.run_id = p2.run_id AND p3.rank = p2.rank AND p3.op_id = p2.parent_op_id
    LEFT JOIN op_rank AS p4 ON p4.run_id = p3.run_id AND p4.rank = p3.rank AND p4.op_id = p3.parent_op_id
    LEFT JOIN shape_keys AS q1 ON q1.run_id = p1.run_id AND q1.rank = p1.rank AND q1.op_id = p1.op_id
    LEFT JOIN shape_keys AS q2 ON q2.run_id = p2.run_id AND q2.rank = p2.rank AND q2.op_id = p2.op_id
    LEFT JOIN shape_keys AS q3 ON q3.run_id = p3.run_id AND q3.rank = p3.rank AND q3.op_id = p3.op_id
    LEFT JOIN shape_keys AS q4 ON q4.run_id = p4.run_id AND q4.rank = p4.rank AND q4.op_id = p4.op_id
)
SELECT r.run_id, r.rank, r.file_id, r.kind, r.op_id, r.kernel_id,
       r.step, r.name, r.op_type, r.family,
       r.unparsed_reason IS NULL AS parsed, r.unparsed_reason, r.operand_shapes,
       r.layout, r.dtype,
       CASE WHEN r.precision0 = 'fp32' AND r.hf32_eligible THEN 'hf32' ELSE r.precision0 END AS precision,
       r.batch, r.m, r.n, r.k, r.c_in, r.c_out, r.in_h, r.in_w, r.out_h, r.out_w, r.kernel_h, r.kernel_w,
       r.stride_h, r.stride_w, r.groups, r.heads, r.seq_q, r.seq_kv, r.head_dim, r.hidden,
       TRY_CAST(r.flops AS BIGINT) AS shape_flops, r.profiler_flops,
       a.parent_shape_op_id,
       r.kind = 'kernel' OR (r.family <> 'elementwise'
                             AND NOT EXISTS (SELECT 1 FROM ancestors AS c WHERE c.run_id = r.run_id AND c.rank = r.rank
                                                             AND c.parent_shape_op_id = r.op_id))
           AS is_innermost,
       r.device_ns
FROM all_rows AS r
LEFT JOIN ancestors AS a ON r.kind = 'op' AND a.run_id = r.run_id AND a.rank = r.rank AND a.op_id = r.op_id
ORDER BY r.run_id, r.rank, r.kind DESC, r.op_id, r.kernel_id;

DROP TABLE _op_shape_rank;
DROP TABLE _op_shape_dims;
DROP TABLE _op_shape_op;
DROP TABLE _op_shape_knd;
DROP TABLE _op_shape_kernel;
