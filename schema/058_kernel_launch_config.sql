-- GPU launch configuration of a kernel (Nsight Systems CUPTI_ACTIVITY_KIND_KERNEL) and the
-- correlation id that ties a kernel or copy to the host call that launched it. A database
-- written before these columns existed gets them here (NULL for its rows).
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS grid_x INTEGER;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS grid_y INTEGER;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS grid_z INTEGER;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS block_x INTEGER;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS block_y INTEGER;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS block_z INTEGER;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS correlation_id BIGINT;
COMMENT ON COLUMN kernel.grid_x IS 'Grid size in blocks, x (Nsight CUPTI_ACTIVITY_KIND_KERNEL.gridX); NULL for copies and NPU rows.';
COMMENT ON COLUMN kernel.grid_y IS 'Grid size in blocks, y (Nsight gridY); NULL for copies and NPU rows.';
COMMENT ON COLUMN kernel.grid_z IS 'Grid size in blocks, z (Nsight gridZ); NULL for copies and NPU rows.';
COMMENT ON COLUMN kernel.block_x IS 'Block size in threads, x (Nsight blockX); NULL for copies and NPU rows.';
COMMENT ON COLUMN kernel.block_y IS 'Block size in threads, y (Nsight blockY); NULL for copies and NPU rows.';
COMMENT ON COLUMN kernel.block_z IS 'Block size in threads, z (Nsight blockZ); NULL for copies and NPU rows.';
COMMENT ON COLUMN kernel.correlation_id IS 'CUPTI correlation id shared by the kernel / copy and its CUDA runtime launch call (Nsight correlationId); NULL where the source has none.';
