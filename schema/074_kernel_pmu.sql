-- What kernel_details.csv and the Ascend profiler DB say of a kernel's use of the AI Core that
-- the kernel table does not keep: HF32 Eligible, the operand formats and the PMU counters.
-- Written by the readers, one row per kernel of their own file (keyed like kernel_details_raw);
-- the view kernel_pmu joins it to kernel.

CREATE TABLE IF NOT EXISTS kernel_pmu_raw (
    run_id               INTEGER NOT NULL,
    rank                 INTEGER NOT NULL,
    file_id              INTEGER NOT NULL,
    kernel_id            BIGINT NOT NULL,
    hf32_eligible        BOOLEAN,
    input_formats        VARCHAR,
    output_dtypes        VARCHAR,
    aicore_time_ns       BIGINT,
    aic_total_cycles     BIGINT,
    aic_mac_time_ns      BIGINT,
    aic_mac_ratio        DOUBLE,
    aic_scalar_ratio     DOUBLE,
    aic_mte1_ratio       DOUBLE,
    aic_mte2_ratio       DOUBLE,
    aic_fixpipe_ratio    DOUBLE,
    aic_mac_fp16_ratio   DOUBLE,
    aic_mac_int8_ratio   DOUBLE,
    aic_cube_fops        DOUBLE,
    aiv_time_ns          BIGINT,
    aiv_total_cycles     BIGINT,
    aiv_vec_time_ns      BIGINT,
    aiv_vec_ratio        DOUBLE,
    aiv_scalar_ratio     DOUBLE,
    aiv_mte2_ratio       DOUBLE,
    aiv_mte3_ratio       DOUBLE,
    aiv_vec_fp32_ratio   DOUBLE,
    aiv_vec_fp16_ratio   DOUBLE,
    aiv_vector_fops      DOUBLE,
    cube_utilization_pct DOUBLE,
    source               VARCHAR NOT NULL
);
COMMENT ON TABLE kernel_pmu_raw IS 'Per kernel of kernel_details.csv (Level1/Level2 columns) or of an Ascend profiler DB (TASK_PMU_INFO, COMPUTE_TASK_INFO): HF32 Eligible, operand formats and the AI Core PMU counters, as written (µs → exact ns; DB times are ns). The PMU set depends on aic_metrics (PipeUtilization by default; ArithmeticUtilization gives the *_fp16_ratio / *_fops columns) and the chip: older single-core chips (Ascend 910A) write unprefixed names (mac_ratio, vec_ratio, mte2_ratio ...), read into the aic_ / aiv_ column of the unit they measure. Columns a file lacks are NULL; a file with none of them writes no rows.';
COMMENT ON COLUMN kernel_pmu_raw.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN kernel_pmu_raw.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN kernel_pmu_raw.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN kernel_pmu_raw.kernel_id IS 'Kernel (kernel.kernel_id): the row number in kernel_details.csv; the DB reader''s kernel number.';
COMMENT ON COLUMN kernel_pmu_raw.hf32_eligible IS 'HF32 Eligible (DB COMPUTE_TASK_INFO hf32Eligible): TRUE for YES (the Cube ran fp32 inputs as HF32: torch_npu allow_hf32, on by default for conv, off for matmul), FALSE for NO, NULL for N/A or absent.';
COMMENT ON COLUMN kernel_pmu_raw.input_formats IS 'Input Formats as written (ND;ND, NC1HWC0;FRACTAL_Z;NCHW, FRACTAL_NZ ...): how derive/140 reads kernel.input_shapes.';
COMMENT ON COLUMN kernel_pmu_raw.output_dtypes IS 'Output Data Types as written.';
COMMENT ON COLUMN kernel_pmu_raw.aicore_time_ns IS 'aicore_time(us) (DB aic_total_time): time the cube cores (AI Core) ran the kernel, ns.';
COMMENT ON COLUMN kernel_pmu_raw.aic_total_cycles IS 'aic_total_cycles (older: total_cycles): cube core cycles.';
COMMENT ON COLUMN kernel_pmu_raw.aic_mac_time_ns IS 'aic_mac_time(us) (older: mac_time(us)): time the Cube (MAC) unit computed, ns.';
COMMENT ON COLUMN kernel_pmu_raw.aic_mac_ratio IS 'aic_mac_ratio (older: mac_ratio): share of the cube core time the Cube computed, 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aic_scalar_ratio IS 'aic_scalar_ratio (older: scalar_ratio), 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aic_mte1_ratio IS 'aic_mte1_ratio (older: mte1_ratio): L1 → L0 moves, 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aic_mte2_ratio IS 'aic_mte2_ratio (older: mte2_ratio): global memory → L1 moves (memory bound when high), 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aic_fixpipe_ratio IS 'aic_fixpipe_ratio, 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aic_mac_fp16_ratio IS 'aic_mac_fp16_ratio (ArithmeticUtilization), 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aic_mac_int8_ratio IS 'aic_mac_int8_ratio (ArithmeticUtilization), 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aic_cube_fops IS 'aic_cube_fops (ArithmeticUtilization): floating-point operations the Cube counted.';
COMMENT ON COLUMN kernel_pmu_raw.aiv_time_ns IS 'aiv_time(us) (DB aiv_total_time): time the vector cores ran the kernel, ns.';
COMMENT ON COLUMN kernel_pmu_raw.aiv_total_cycles IS 'aiv_total_cycles: vector core cycles.';
COMMENT ON COLUMN kernel_pmu_raw.aiv_vec_time_ns IS 'aiv_vec_time(us) (older: vec_time(us)): time the Vector unit computed, ns.';
COMMENT ON COLUMN kernel_pmu_raw.aiv_vec_ratio IS 'aiv_vec_ratio (older: vec_ratio), 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aiv_scalar_ratio IS 'aiv_scalar_ratio, 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aiv_mte2_ratio IS 'aiv_mte2_ratio, 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aiv_mte3_ratio IS 'aiv_mte3_ratio (older: mte3_ratio), 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aiv_vec_fp32_ratio IS 'aiv_vec_fp32_ratio (ArithmeticUtilization), 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aiv_vec_fp16_ratio IS 'aiv_vec_fp16_ratio (ArithmeticUtilization), 0–1.';
COMMENT ON COLUMN kernel_pmu_raw.aiv_vector_fops IS 'aiv_vector_fops (ArithmeticUtilization): floating-point operations the vector units counted.';
COMMENT ON COLUMN kernel_pmu_raw.cube_utilization_pct IS 'cube_utilization(%) as written, 0–100.';
COMMENT ON COLUMN kernel_pmu_raw.source IS 'kernel_details or ascend_db.';
