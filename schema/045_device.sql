-- Devices a profiler file describes: name and memory capacity (the denominator of memory_peak's
-- capacity_ratio).

CREATE TABLE IF NOT EXISTS device (
    run_id                INTEGER NOT NULL,
    rank                  INTEGER NOT NULL,
    file_id               INTEGER NOT NULL,
    device_id             INTEGER NOT NULL,
    device                VARCHAR NOT NULL,
    device_name           VARCHAR,
    memory_capacity_bytes BIGINT,
    source                VARCHAR NOT NULL
);
COMMENT ON TABLE device IS 'One row per device a profiler file describes (a trace lists every device of its host, not only the rank''s). Source: Kineto deviceProperties[] (id, name, totalGlobalMem). Ascend output has no device memory capacity: profiler_info_{rank}.json, profiler_metadata.json, memory_record.csv and npu_module_mem.csv carry none, and the torch_npu DB names the chip only (NPU_INFO.name, e.g. Ascend910B) while NPU_MEM holds usage samples; so Ascend ranks have no row.';
COMMENT ON COLUMN device.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN device.rank IS 'Rank (rank.rank) of the file that lists the device.';
COMMENT ON COLUMN device.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN device.device_id IS 'Device index as written (Kineto deviceProperties[].id: the CUDA/HIP device ordinal).';
COMMENT ON COLUMN device.device IS 'Device label in the form of memory.device (CUDA:<id>), so memory rows join on it.';
COMMENT ON COLUMN device.device_name IS 'Device name as written (deviceProperties[].name, e.g. NVIDIA H100 80GB HBM3).';
COMMENT ON COLUMN device.memory_capacity_bytes IS 'Total device memory in bytes (deviceProperties[].totalGlobalMem, an exact JSON integer); NULL if absent.';
COMMENT ON COLUMN device.source IS 'Where the row comes from: kineto_device_properties.';
