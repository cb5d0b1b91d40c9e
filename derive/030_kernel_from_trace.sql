-- Without kernel_details.csv: the Ascend Hardware compute tasks and the HCCL op slices of the
-- rank's trace_view.json, or of its CANN msprof timeline files (PROF_*/device_*/timeline:
-- msprof_*.json, or its task_time_* and hccl_* slices; the same form, source trace_view) → kernel,
-- numbered by start then name. The msprof timeline files of a rank that has MindSpore's own
-- timeline (ascend_timeline_display_{rank}.json, built from the same CANN data: derive/035) give
-- no kernels here; with a step_trace_raw file (whose comm-op columns are the rank's
-- communication ops, kernel source step_trace_raw) their HCCL op slices give none.
-- Compute = any Task Type but the stream events, DMA copies and HCCL tasks below (everything
-- else: AI_CORE, AI_VECTOR_CORE, AI_CPU, MIX_AIC/AIV, FFTS_PLUS, DSA_SQE, and "Other" of older
-- CANN, whose Overlap Analysis counts it as Computing), excluding names ending in
-- AicpuKernel/AivKernel (communication kernels on compute engines, excluded by CANN's Overlap
-- Analysis too) and tasks named after a task type (older CANN labels every task "Other" and
-- names the non-kernel ones NOTIFY_WAIT, MEMCPY_ASYNC, Other ...; kernels have op names).
-- Communication = op-level slices on "Group <g> Communication" threads of the HCCL /
-- Communication process. The Step Trace rows of graph-mode CANN (Iteration, FP_BP Time,
-- Reduce ... on an Ascend Hardware thread "Step Trace(Model ID:n)", or a "Step Trace" process)
-- are steps, not tasks (derive/036). Step: the last step whose host window started at or before
-- the task (msprof timeline files: derive/036 sets it from the Iteration windows).
-- when-format: trace_view msprof_timeline
-- unless-format: kernel_details
INSERT INTO kernel BY NAME
WITH ms_files AS (
    SELECT file_id FROM derive_files(['msprof_timeline'])
    WHERE (run_id, rank) NOT IN (SELECT run_id, rank FROM derive_files(['mindspore_timeline']))
),
with_details AS (
    -- written by 020 when the rank has kernel_details.csv
    SELECT DISTINCT run_id, rank FROM kernel
    WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'kernel_details'
),
tasks AS (
    SELECT run_id, rank, file_id, name, ts_ns, dur_ns, tid, thread_name,
           json_extract_string(args, '$."Task Type"') AS task_type,
           process_name IN ('HCCL', 'Communication') AS is_communication
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank())
      AND (file_id IN (SELECT file_id FROM derive_files(['trace_view'])) OR file_id IN (FROM ms_files))
      AND ph = 'X' AND ts_ns IS NOT NULL AND dur_ns IS NOT NULL
      AND (
        (process_name = 'Ascend Hardware' AND coalesce(thread_name, '') NOT LIKE 'Step Trace%'
         AND coalesce(json_extract_string(args, '$."Task Type"'), '') NOT IN (
             'EVENT_WAIT_SQE', 'EVENT_RECORD_SQE', 'NOTIFY_WAIT_SQE', 'NOTIFY_RECORD_SQE', 'SDMA_SQE',
             'PCIE_DMA_SQE', 'PLACE_HOLDER_SQE', 'C_CORE_SQE', 'WRITE_VALUE_SQE', 'CAPTURE_RECORD_SQE',
             'CAPTURE_WAIT_SQE', 'SDMA', 'Notify Wait', 'Notify_Wait', 'Notify Record', 'Notify_Record',
             'Write Value', 'Write_Value', 'Memcpy', 'Reduce Inline', 'Reduce_Inline', 'RDMASend',
             'RDMA_SEND', 'MEMCPY_ASYNC', 'EVENT_WAIT', 'EVENT_RECORD', 'PROFILING_ENABLE',
             'PROFILING_DISABLE', 'PLACE_HOLDER', 'C_CORE')
         AND name NOT LIKE '%AicpuKernel' AND name NOT LIKE '%AivKernel'
         AND lower(name) <> lower(coalesce(json_extract_string(args, '$."Task Type"'), ''))
         AND NOT regexp_full_match(name, '[A-Z0-9_]+')
         AND lower(name) NOT IN ('memcopyasync', 'other'))
        OR (process_name IN ('HCCL', 'Communication') AND thread_name LIKE '%Communication%'
            AND NOT (file_id IN (FROM ms_files)
                     AND (run_id, rank) IN (SELECT run_id, rank FROM derive_files(['step_trace_raw']))))
      )
      AND (run_id, rank) NOT IN (FROM with_details)
),
step_start AS (FROM host_step_starts())
SELECT t.run_id, t.rank, t.file_id,
       row_number() OVER (PARTITION BY t.run_id, t.rank ORDER BY t.ts_ns, t.name) AS kernel_id, w.step, t.name,
       CASE WHEN t.is_communication THEN regexp_replace(t.name, '_\d+_\d+_\d+$', '') ELSE t.name END AS op_type,
       CASE WHEN t.is_communication THEN 'COMMUNICATION' ELSE t.task_type END AS accelerator_core,
       t.task_type, d.device_id,
       CASE WHEN t.is_communication THEN NULL ELSE t.tid END AS stream_id,
       t.ts_ns, t.dur_ns, t.is_communication,
       CASE WHEN t.is_communication
            THEN nullif(regexp_extract(t.thread_name, '^Group (.+?) (Aicpu )?Communication$', 1), '') END AS group_name,
       'trace_view' AS source
FROM tasks AS t
LEFT JOIN npu_device() AS d ON d.run_id = t.run_id AND d.rank = t.rank
ASOF LEFT JOIN step_start AS w ON w.run_id = t.run_id AND w.rank = t.rank AND t.ts_ns >= w.host_start_ns
ORDER BY t.run_id, t.rank, kernel_id;
