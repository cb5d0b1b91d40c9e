-- What the readers and the derive steps share on the ingest connection: temporary macros
-- and the staging table of kernel_details.csv (created at the start of every ingest; nothing
-- here is stored in the database).
-- Every step rebuilds the rows of a set of ranks at once: derive_rank() below. In the DuckDB
-- shell, run this file first, then SET VARIABLE run_id = 1; SET VARIABLE rank = 0; (one rank)
-- or SET VARIABLE derive_ranks = [{'run_id': 1, 'rank': 0}, {'run_id': 1, 'rank': 1}]; and
-- the numbered files in order.

-- ASOF joins always as a sorted merge. DuckDB replaces an ASOF join by a nested loop when it
-- estimates <= 64 rows on the probe side, and its estimates of the joined CTEs the steps and
-- readers build are that low on hundreds of thousands of rows (a 100 MB trace's HCCL tasks:
-- 30 ms become 0.7-1.4 s; a 400k-event rank's launches: 5 s become > 5 min). A merge over a
-- truly tiny side costs no more than the loop.
SET asof_loop_join_threshold = 0;

-- The (run_id, rank) pairs a derive step rebuilds: the variable derive_ranks (a list of
-- {run_id, rank} structs; tracedb.ingestion.derive sets it for the ranks of a batch), else the
-- one rank of the variables run_id and rank. 075 and 130 spell it out (they also run on
-- connections without these macros: tracedb reclassify, the SQL cases of tests/sql).
CREATE OR REPLACE TEMP MACRO derive_rank() AS TABLE
    SELECT unnest(coalesce(getvariable('derive_ranks'),
                           [{'run_id': getvariable('run_id')::INTEGER, 'rank': getvariable('rank')::INTEGER}]),
                  recursive := true);

-- An HCCL task size given as JSON text: a JSON number is bytes; a JSON string is hex (older
-- HCCL data; MindSpore's parser applies int(x, 16) to non-integers); anything else NULL.
-- Source: trace_view.json Plane task args "size(Byte)", HCCL .trace args "size".
CREATE OR REPLACE TEMP MACRO hccl_size_bytes(raw) AS (
    CASE WHEN starts_with(raw, '"')
         THEN TRY_CAST('0x' || regexp_replace(lower(trim(raw, '" ')), '^0x', '') AS BIGINT)
         ELSE TRY_CAST(TRY_CAST(raw AS DOUBLE) AS BIGINT) END
);

-- Device id of each Ascend rank of derive_rank() from its trace: process_labels "NPU n"; for a
-- plain "NPU" label, the low 5 bits of the Ascend Hardware pid, which newer CANN encodes as
-- (host_pid << 10) | (layer << 5) | device (formats.md §2.3; 31 = host). NULL when neither
-- tells; a rank without metadata events has no row.
CREATE OR REPLACE TEMP MACRO npu_device() AS TABLE
    SELECT run_id, rank, coalesce(
        min(TRY_CAST(regexp_extract(json_extract_string(args, '$.labels'), 'NPU\s*(\d+)', 1) AS INTEGER))
            FILTER (WHERE name = 'process_labels'),
        min(CASE WHEN TRY_CAST(pid AS BIGINT) >= 1024 AND TRY_CAST(pid AS BIGINT) % 32 <> 31
                 THEN TRY_CAST(pid AS BIGINT) % 32 END)
            FILTER (WHERE name = 'process_name' AND json_extract_string(args, '$.name') = 'Ascend Hardware'))
        AS device_id
    FROM event WHERE (run_id, rank) IN (FROM derive_rank()) AND ph = 'M'
    GROUP BY run_id, rank;

-- The window rule: a kernel (or op) without a step of its own belongs to the last step of its
-- rank whose host window (ProfilerStep#N) started at or before it; the last step is open-ended.
-- This is the table to ASOF-join on (run_id, rank) and ts >= host_start_ns.
CREATE OR REPLACE TEMP MACRO host_step_starts() AS TABLE
    SELECT run_id, rank, step, host_start_ns FROM step
    WHERE (run_id, rank) IN (FROM derive_rank()) AND host_start_ns IS NOT NULL;

-- The files of the ranks of derive_rank() of one of the formats fmts.
CREATE OR REPLACE TEMP MACRO derive_files(fmts) AS TABLE
    SELECT file_id, run_id, rank FROM source_file
    WHERE (run_id, rank) IN (FROM derive_rank()) AND list_contains(fmts, format);

-- kernel_details.csv rows parsed by this ingest command (readers/kernel_details.py), in file
-- order (rowid order); derive/020 turns them into kernel rows. A file read by an earlier command is
-- in kernel (its verbatim columns) and kernel_details_raw (its own Step Id and Stream ID).
CREATE OR REPLACE TEMP TABLE kernel_details_parsed (
    run_id INTEGER, rank INTEGER, file_id INTEGER, step INTEGER, name VARCHAR, op_type VARCHAR,
    accelerator_core VARCHAR, device_id INTEGER, stream_id VARCHAR, ts_ns BIGINT, dur_ns BIGINT, wait_ns BIGINT,
    is_communication BOOLEAN, input_shapes VARCHAR, input_dtypes VARCHAR, output_shapes VARCHAR, block_dim INTEGER,
    -- beside the kernel table's: kernel_details.csv's HF32 Eligible, formats and PMU columns
    -- (kernel_pmu_raw, fieldmaps/kernel_pmu.py); NULL where the file lacks them
    hf32_eligible BOOLEAN, input_formats VARCHAR, output_dtypes VARCHAR, aicore_time_ns BIGINT,
    aic_total_cycles BIGINT, aic_mac_time_ns BIGINT, aic_mac_ratio DOUBLE, aic_scalar_ratio DOUBLE,
    aic_mte1_ratio DOUBLE, aic_mte2_ratio DOUBLE, aic_fixpipe_ratio DOUBLE, aic_mac_fp16_ratio DOUBLE,
    aic_mac_int8_ratio DOUBLE, aic_cube_fops DOUBLE, aiv_time_ns BIGINT, aiv_total_cycles BIGINT,
    aiv_vec_time_ns BIGINT, aiv_vec_ratio DOUBLE, aiv_scalar_ratio DOUBLE, aiv_mte2_ratio DOUBLE,
    aiv_mte3_ratio DOUBLE, aiv_vec_fp32_ratio DOUBLE, aiv_vec_fp16_ratio DOUBLE, aiv_vector_fops DOUBLE,
    cube_utilization_pct DOUBLE
);

-- NPU (trace_view.json) flows of category flow_cat (HostToDevice: the launch, derive/101;
-- async_npu: the framework op, derive/120) that end at a kernel of a rank of derive_rank(): one
-- row per (kernel, flow start). The flow ends at the kernel's device-side event: a compute
-- kernel's Ascend Hardware task (its stream and start); an HCCL op's slice on the
-- HCCL/Communication "Group ... Communication" thread with its name, starting within 1 us of it
-- (kernel_details.csv rounds), the nearest. Empty for a rank whose trace_view has no flow of that
-- category.
CREATE OR REPLACE TEMP MACRO npu_flow_starts(flow_cat) AS TABLE
    WITH flow AS (
        SELECT run_id, rank, file_id, ph, flow_id, process_name, tid, ts_ns
        FROM event
        WHERE (run_id, rank) IN (FROM derive_rank()) AND file_id IN (SELECT file_id FROM derive_files(['trace_view']))
          AND ph IN ('s', 'f') AND cat = flow_cat
    ),
    flow_rank AS (SELECT DISTINCT run_id, rank FROM flow),
    nk AS (
        SELECT run_id, rank, source, kernel_id, name, ts_ns, stream_id, is_communication
        FROM kernel
        WHERE (run_id, rank) IN (FROM flow_rank) AND source IN ('kernel_details', 'trace_view')
    ),
    hccl_slice AS (
        SELECT run_id, rank, name, tid, ts_ns
        FROM event
        WHERE (run_id, rank) IN (FROM flow_rank) AND file_id IN (SELECT file_id FROM derive_files(['trace_view']))
          AND ph = 'X' AND process_name IN ('HCCL', 'Communication') AND thread_name LIKE '%Communication%'
    ),
    device_end AS (
        -- (kernel, process, tid, ts) of the device-side event a flow ends at
        SELECT run_id, rank, source, kernel_id, 'Ascend Hardware' AS process_name, stream_id AS tid, ts_ns
        FROM nk WHERE NOT is_communication
        UNION ALL
        SELECT nk.run_id, nk.rank, nk.source, nk.kernel_id, NULL, arg_min(h.tid, abs(h.ts_ns - nk.ts_ns)),
               arg_min(h.ts_ns, abs(h.ts_ns - nk.ts_ns))
        FROM nk JOIN hccl_slice AS h ON h.run_id = nk.run_id AND h.rank = nk.rank AND h.name = nk.name
                                   AND abs(h.ts_ns - nk.ts_ns) <= 1000
        WHERE nk.is_communication
        GROUP BY nk.run_id, nk.rank, nk.source, nk.kernel_id
    )
    SELECT d.run_id, d.rank, d.source, d.kernel_id, s.file_id, s.tid, s.ts_ns
    FROM device_end AS d
    JOIN flow AS f ON f.run_id = d.run_id AND f.rank = d.rank AND f.ph = 'f' AND f.tid = d.tid AND f.ts_ns = d.ts_ns
                  AND (f.process_name = d.process_name
                       OR (d.process_name IS NULL AND f.process_name IN ('HCCL', 'Communication')))
    JOIN flow AS s ON s.ph = 's' AND s.file_id = f.file_id AND s.flow_id = f.flow_id;

-- The tree of the module rows of each rank of derive_rank() of one kind: backward rows (bwd
-- true) or the forward and optimizer rows (bwd false), derive/125. Spans are closed,
-- [ts_ns, ts_ns + dur_ns], as msprof-analyze nests them (a module starting at another's end is
-- its child): a sweep over the boundaries (+1 at a start, in module_id order; -1 one ns after an
-- end, before the starts there) gives the depth; the parent is the last module at depth - 1 to
-- come before it in module_id order (module_id follows the start, longer first); the path joins
-- the names from the top down.
CREATE OR REPLACE TEMP MACRO module_tree(bwd) AS TABLE
    WITH RECURSIVE m AS (
        SELECT run_id, rank, module_id, name, ts_ns, ts_ns + dur_ns AS end_ns FROM module
        WHERE (run_id, rank) IN (FROM derive_rank()) AND (kind = 'backward') = bwd
    ),
    sweep AS (
        SELECT run_id, rank, module_id, delta,
               sum(delta) OVER (PARTITION BY run_id, rank ORDER BY t, kind, ord ROWS UNBOUNDED PRECEDING) AS running
        FROM (SELECT run_id, rank, module_id, ts_ns AS t, 1 AS kind, module_id AS ord, 1 AS delta FROM m
              UNION ALL SELECT run_id, rank, module_id, end_ns + 1, 0, 0, -1 FROM m)
    ),
    depth AS (
        SELECT m.run_id, m.rank, m.module_id, m.name, s.running - 1 AS depth
        FROM m JOIN sweep AS s ON s.run_id = m.run_id AND s.rank = m.rank AND s.module_id = m.module_id
                              AND s.delta = 1
    ),
    parent AS (
        SELECT c.run_id, c.rank, c.module_id, c.name, c.depth, p.module_id AS parent_module_id
        FROM depth AS c
        ASOF LEFT JOIN depth AS p ON p.run_id = c.run_id AND p.rank = c.rank AND p.depth = c.depth - 1
                                 AND c.module_id > p.module_id
    ),
    path AS (
        SELECT run_id, rank, module_id, parent_module_id, name AS module_path, depth FROM parent
        WHERE parent_module_id IS NULL
        UNION ALL
        SELECT c.run_id, c.rank, c.module_id, c.parent_module_id, p.module_path || '/' || c.name, c.depth
        FROM parent AS c JOIN path AS p ON c.run_id = p.run_id AND c.rank = p.rank AND c.parent_module_id = p.module_id
    )
    SELECT run_id, rank, module_id, parent_module_id, module_path, depth FROM path;

-- Shapes and types as the profilers record them (derive/140, 141): op.input_dims is JSON text
-- ([[16,5185,64],[16,64,5185]], Kineto) or ';'-separated text with CR/LF (32,4096;\r\n4096,9216,
-- torch_npu trace_view.json and DB); kernel.input_shapes is ';'-separated (4096,1024;4096,1024).
-- shape_list → one BIGINT list per operand ([] for a scalar); NULL when it is neither form.
CREATE OR REPLACE TEMP MACRO shape_list(t) AS (
    CASE WHEN t IS NULL THEN NULL
         WHEN starts_with(ltrim(t), '[') THEN TRY_CAST(t AS BIGINT[][])
         ELSE TRY_CAST('[[' || replace(regexp_replace(t, '[\s"]', '', 'g'), ';', '],[') || ']]' AS BIGINT[][])
    END
);
-- dtype_list → one type name per operand ('' for an untyped argument): JSON strings, else ';'-separated
CREATE OR REPLACE TEMP MACRO dtype_list(t) AS (
    CASE WHEN t IS NULL THEN NULL
         WHEN starts_with(ltrim(t), '[') THEN regexp_extract_all(t, '"([^"]*)"', 1)
         ELSE list_transform(string_split(t, ';'), lambda x: trim(x, ' ' || chr(9) || chr(10) || chr(13) || '"'))
    END
);
-- A recorded data type → precision: fp64, fp32, fp16, bf16, fp8, int8, other (an integer or bool
-- tensor); NULL for what is no tensor type (Scalar, ScalarList, GenericList, TensorList, Int,
-- Bool, '' of Kineto; N/A, UNDEFINED of CANN).
CREATE OR REPLACE TEMP MACRO precision_of(dtype) AS (
    CASE
        WHEN lower(dtype) IN ('float', 'float32', 'dt_float', 'dt_float32', 'fp32') THEN 'fp32'
        WHEN lower(dtype) IN ('double', 'float64', 'dt_double', 'dt_float64', 'fp64') THEN 'fp64'
        WHEN lower(dtype) IN ('c10::half', 'half', 'float16', 'dt_float16', 'fp16') THEN 'fp16'
        WHEN lower(dtype) IN ('c10::bfloat16', 'bfloat16', 'dt_bf16', 'dt_bfloat16', 'bf16') THEN 'bf16'
        WHEN lower(dtype) LIKE '%float8%' OR lower(dtype) LIKE 'dt_fp8%' OR lower(dtype) LIKE '%hifloat8%' THEN 'fp8'
        WHEN lower(dtype) IN ('signed char', 'int8', 'dt_int8', 'c10::qint8', 'qint8') THEN 'int8'
        WHEN lower(dtype) IN ('int', 'long int', 'long', 'short int', 'unsigned char', 'bool', 'int16', 'int32',
                              'int64', 'uint8', 'dt_int16', 'dt_int32', 'dt_int64', 'dt_uint8', 'dt_bool',
                              'c10::quint8', 'c10::qint32', 'complex<float>', 'c10::complex<float>') THEN 'other'
    END
);
