-- Device peaks: data, not code. op_flops and rank_flops divide achieved FLOPS by them (MFU).
-- One row per (device model, unit, precision), each number with the vendor document it comes
-- from; what the document does not publish stays NULL, never derived (H100 NVL / H200 Tensor
-- Core figures are published with sparsity only: sparse_tflops holds them, peak_tflops stays
-- NULL until you set it). Shipped rows have peak_id < 1000 and are inserted when missing
-- (INSERT OR IGNORE), so a user's UPDATE survives re-installation; add rows with peak_id >=
-- 1000 (e.g. an Ascend 910B variant: INSERT INTO device_peak VALUES (1000, 'huawei',
-- 'Ascend910B', 'Ascend 910B3', 'Ascend910B3%', 1, 'Cube', 'bf16', <TFLOPS>, NULL, '<source>', NULL)).
--
-- How a rank finds its device (tracedb_internal.rank_hardware): the device name (device_override,
-- else the Kineto deviceProperties name of the rank's device, else the Ascend DB NPU_INFO
-- name) is matched against name_pattern (LIKE, case-insensitive); the longest matching pattern
-- wins.

CREATE TABLE IF NOT EXISTS device_peak (
    peak_id         INTEGER PRIMARY KEY,
    vendor          VARCHAR NOT NULL,
    architecture    VARCHAR,
    device_model    VARCHAR NOT NULL,
    name_pattern    VARCHAR NOT NULL,
    package_devices INTEGER NOT NULL DEFAULT 1,
    unit            VARCHAR NOT NULL,
    precision       VARCHAR NOT NULL,
    peak_tflops     DOUBLE,
    sparse_tflops   DOUBLE,
    source          VARCHAR NOT NULL,
    note            VARCHAR
);
COMMENT ON TABLE device_peak IS 'Peak dense throughput per device model, unit and precision, from the vendor''s data sheet (source column); NULL where the vendor publishes none. Shipped rows peak_id < 1000, yours >= 1000.';
COMMENT ON COLUMN device_peak.peak_id IS 'Row key; shipped rows < 1000.';
COMMENT ON COLUMN device_peak.vendor IS 'nvidia, amd or huawei.';
COMMENT ON COLUMN device_peak.architecture IS 'Volta, Ampere, Hopper, CDNA2, CDNA3, Ascend910, Ascend910B (alignment_rule.architecture).';
COMMENT ON COLUMN device_peak.device_model IS 'Model and form factor as the data sheet names it (V100 SXM2, A100, H100 SXM ...).';
COMMENT ON COLUMN device_peak.name_pattern IS 'LIKE pattern (case-insensitive) matched against the device name the profiler wrote (Kineto deviceProperties name, Ascend DB NPU_INFO name, device_override).';
COMMENT ON COLUMN device_peak.package_devices IS 'Devices the OS shows per package the data sheet describes: 2 for MI250 / MI250X (two GCDs, each its own device), else 1; the per-device peak is peak_tflops / package_devices.';
COMMENT ON COLUMN device_peak.unit IS 'Tensor Core, CUDA Core (NVIDIA non-tensor), Matrix Core (AMD MFMA), Vector (AMD non-matrix), Cube (Ascend).';
COMMENT ON COLUMN device_peak.precision IS 'fp64, fp32, tf32, bf16, fp16, fp8, int8 (op_shape.precision).';
COMMENT ON COLUMN device_peak.peak_tflops IS 'Peak dense throughput per package, TFLOPS (int8: TOPS); NULL = not published without sparsity.';
COMMENT ON COLUMN device_peak.sparse_tflops IS 'Peak with 2:4 structured sparsity as published, TFLOPS; never used for MFU.';
COMMENT ON COLUMN device_peak.source IS 'The vendor document (name and address) the numbers come from.';
COMMENT ON COLUMN device_peak.note IS 'Remarks (clock, footnotes).';

CREATE TABLE IF NOT EXISTS device_override (
    run_name    VARCHAR NOT NULL,
    only_rank   INTEGER,
    device_name VARCHAR NOT NULL,
    note        VARCHAR
);
COMMENT ON TABLE device_override IS 'The device a run (or one of its ranks) ran on, when the profiler output does not say (torch_npu text exports name no chip) or says it in words device_peak does not match (AMD "Radeon Graphics"): INSERT INTO device_override VALUES (''my_run'', NULL, ''Ascend910B3'', ''from npu-smi''). Wins over what the files say.';
COMMENT ON COLUMN device_override.run_name IS 'Run (run.run_name).';
COMMENT ON COLUMN device_override.only_rank IS 'Rank it applies to; NULL = every rank of the run.';
COMMENT ON COLUMN device_override.device_name IS 'Device name, matched against device_peak.name_pattern (e.g. NVIDIA H100 80GB HBM3, AMD Instinct MI250X, Ascend910B3).';
COMMENT ON COLUMN device_override.note IS 'Where the name comes from.';

INSERT OR IGNORE INTO device_peak
    (peak_id, vendor, architecture, device_model, name_pattern, package_devices, unit, precision, peak_tflops,
     sparse_tflops, source, note)
VALUES
    -- NVIDIA V100 (Volta): Double / Single / Tensor Performance; no BF16, TF32, INT8 or FP8 Tensor Cores
    (1,  'nvidia', 'Volta', 'V100 SXM2', '%V100-SXM2%', 1, 'CUDA Core', 'fp64', 7.8, NULL,
     'NVIDIA Tesla V100 GPU Accelerator data sheet (https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf)', 'Double-Precision Performance'),
    (2,  'nvidia', 'Volta', 'V100 SXM2', '%V100-SXM2%', 1, 'CUDA Core', 'fp32', 15.7, NULL,
     'NVIDIA Tesla V100 GPU Accelerator data sheet (https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf)', 'Single-Precision Performance'),
    (3,  'nvidia', 'Volta', 'V100 SXM2', '%V100-SXM2%', 1, 'Tensor Core', 'fp16', 125, NULL,
     'NVIDIA Tesla V100 GPU Accelerator data sheet (https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf)', 'Tensor Performance (mixed precision, FP16 inputs)'),
    (4,  'nvidia', 'Volta', 'V100 PCIe', '%V100-PCIE%', 1, 'CUDA Core', 'fp64', 7, NULL,
     'NVIDIA Tesla V100 GPU Accelerator data sheet (https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf)', 'Double-Precision Performance'),
    (5,  'nvidia', 'Volta', 'V100 PCIe', '%V100-PCIE%', 1, 'CUDA Core', 'fp32', 14, NULL,
     'NVIDIA Tesla V100 GPU Accelerator data sheet (https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf)', 'Single-Precision Performance'),
    (6,  'nvidia', 'Volta', 'V100 PCIe', '%V100-PCIE%', 1, 'Tensor Core', 'fp16', 112, NULL,
     'NVIDIA Tesla V100 GPU Accelerator data sheet (https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf)', 'Tensor Performance'),
    (7,  'nvidia', 'Volta', 'V100 DGX Station', '%V100-DGXS%', 1, 'Tensor Core', 'fp16', NULL, NULL,
     'NVIDIA DGX Station data sheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/dgx-station/dgx-station-print-explorer-datasheet-letter-final-web.pdf)', 'the data sheet gives 480 TFLOPS (FP16) for the station of 4 GPUs, no per-GPU figure'),
    -- NVIDIA A100 (Ampere): every A100 form factor has the same compute figures (the data sheet gives dense | sparse)
    (10, 'nvidia', 'Ampere', 'A100', '%A100%', 1, 'CUDA Core', 'fp64', 9.7, NULL,
     'NVIDIA A100 Tensor Core GPU data sheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)', 'FP64'),
    (11, 'nvidia', 'Ampere', 'A100', '%A100%', 1, 'Tensor Core', 'fp64', 19.5, NULL,
     'NVIDIA A100 Tensor Core GPU data sheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)', 'FP64 Tensor Core'),
    (12, 'nvidia', 'Ampere', 'A100', '%A100%', 1, 'CUDA Core', 'fp32', 19.5, NULL,
     'NVIDIA A100 Tensor Core GPU data sheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)', 'FP32'),
    (13, 'nvidia', 'Ampere', 'A100', '%A100%', 1, 'Tensor Core', 'tf32', 156, 312,
     'NVIDIA A100 Tensor Core GPU data sheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)', 'Tensor Float 32 (TF32)'),
    (14, 'nvidia', 'Ampere', 'A100', '%A100%', 1, 'Tensor Core', 'bf16', 312, 624,
     'NVIDIA A100 Tensor Core GPU data sheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)', 'BFLOAT16 Tensor Core'),
    (15, 'nvidia', 'Ampere', 'A100', '%A100%', 1, 'Tensor Core', 'fp16', 312, 624,
     'NVIDIA A100 Tensor Core GPU data sheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)', 'FP16 Tensor Core'),
    (16, 'nvidia', 'Ampere', 'A100', '%A100%', 1, 'Tensor Core', 'int8', 624, 1248,
     'NVIDIA A100 Tensor Core GPU data sheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)', 'INT8 Tensor Core, TOPS'),
    -- NVIDIA H100 (Hopper): the data sheet lists Tensor Core figures with sparsity only; the dense
    -- figures come from the architecture white paper's dense / sparse table
    (20, 'nvidia', 'Hopper', 'H100 SXM', '%H100%HBM3%', 1, 'CUDA Core', 'fp64', 34, NULL,
     'NVIDIA H100 Tensor Core GPU data sheet (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)', 'FP64; the SXM5 board reports itself as "NVIDIA H100 80GB HBM3"'),
    (21, 'nvidia', 'Hopper', 'H100 SXM', '%H100%HBM3%', 1, 'Tensor Core', 'fp64', 67, NULL,
     'NVIDIA H100 Tensor Core GPU data sheet (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)', 'FP64 Tensor Core'),
    (22, 'nvidia', 'Hopper', 'H100 SXM', '%H100%HBM3%', 1, 'CUDA Core', 'fp32', 67, NULL,
     'NVIDIA H100 Tensor Core GPU data sheet (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)', 'FP32'),
    (23, 'nvidia', 'Hopper', 'H100 SXM', '%H100%HBM3%', 1, 'Tensor Core', 'tf32', 494.7, 989.4,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, table "NVIDIA H100 SXM5 ... Peak TF32 Tensor TFLOPS" (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper); data sheet: 989 with sparsity', NULL),
    (24, 'nvidia', 'Hopper', 'H100 SXM', '%H100%HBM3%', 1, 'Tensor Core', 'bf16', 989.4, 1978.9,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, Peak BF16 Tensor TFLOPS with FP32 Accumulate (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper); data sheet: 1,979 with sparsity', NULL),
    (25, 'nvidia', 'Hopper', 'H100 SXM', '%H100%HBM3%', 1, 'Tensor Core', 'fp16', 989.4, 1978.9,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, Peak FP16 Tensor TFLOPS with FP32 Accumulate (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper); data sheet: 1,979 with sparsity', NULL),
    (26, 'nvidia', 'Hopper', 'H100 SXM', '%H100%HBM3%', 1, 'Tensor Core', 'fp8', 1978.9, 3957.8,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, Peak FP8 Tensor TFLOPS with FP32 Accumulate (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper); data sheet: 3,958 with sparsity', NULL),
    (27, 'nvidia', 'Hopper', 'H100 SXM', '%H100%HBM3%', 1, 'Tensor Core', 'int8', 1978.9, 3957.8,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, Peak INT8 Tensor TOPS (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper); data sheet: 3,958 with sparsity', 'TOPS'),
    (30, 'nvidia', 'Hopper', 'H100 PCIe', '%H100%PCIe%', 1, 'CUDA Core', 'fp64', 25.6, NULL,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, H100 PCIe column (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper)', 'data sheet: 26'),
    (31, 'nvidia', 'Hopper', 'H100 PCIe', '%H100%PCIe%', 1, 'CUDA Core', 'fp32', 51.2, NULL,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, H100 PCIe column (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper)', 'data sheet: 51'),
    (32, 'nvidia', 'Hopper', 'H100 PCIe', '%H100%PCIe%', 1, 'Tensor Core', 'tf32', 378, 756,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, H100 PCIe column (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper)', NULL),
    (33, 'nvidia', 'Hopper', 'H100 PCIe', '%H100%PCIe%', 1, 'Tensor Core', 'bf16', 756, 1513,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, H100 PCIe column (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper)', NULL),
    (34, 'nvidia', 'Hopper', 'H100 PCIe', '%H100%PCIe%', 1, 'Tensor Core', 'fp16', 756, 1513,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, H100 PCIe column (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper)', NULL),
    (35, 'nvidia', 'Hopper', 'H100 PCIe', '%H100%PCIe%', 1, 'Tensor Core', 'fp8', 1513, 3026,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, H100 PCIe column (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper)', NULL),
    (36, 'nvidia', 'Hopper', 'H100 PCIe', '%H100%PCIe%', 1, 'Tensor Core', 'int8', 1513, 3026,
     'NVIDIA H100 Tensor Core GPU Architecture white paper, H100 PCIe column (https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper)', 'TOPS'),
    (40, 'nvidia', 'Hopper', 'H100 NVL', '%H100%NVL%', 1, 'CUDA Core', 'fp64', 30, NULL,
     'NVIDIA H100 Tensor Core GPU data sheet, H100 NVL column (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)', NULL),
    (41, 'nvidia', 'Hopper', 'H100 NVL', '%H100%NVL%', 1, 'CUDA Core', 'fp32', 60, NULL,
     'NVIDIA H100 Tensor Core GPU data sheet, H100 NVL column (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)', NULL),
    (42, 'nvidia', 'Hopper', 'H100 NVL', '%H100%NVL%', 1, 'Tensor Core', 'tf32', NULL, 835,
     'NVIDIA H100 Tensor Core GPU data sheet, H100 NVL column (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)', 'published with sparsity only'),
    (43, 'nvidia', 'Hopper', 'H100 NVL', '%H100%NVL%', 1, 'Tensor Core', 'bf16', NULL, 1671,
     'NVIDIA H100 Tensor Core GPU data sheet, H100 NVL column (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)', 'published with sparsity only'),
    (44, 'nvidia', 'Hopper', 'H100 NVL', '%H100%NVL%', 1, 'Tensor Core', 'fp16', NULL, 1671,
     'NVIDIA H100 Tensor Core GPU data sheet, H100 NVL column (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)', 'published with sparsity only'),
    (45, 'nvidia', 'Hopper', 'H100 NVL', '%H100%NVL%', 1, 'Tensor Core', 'fp8', NULL, 3341,
     'NVIDIA H100 Tensor Core GPU data sheet, H100 NVL column (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)', 'published with sparsity only'),
    -- NVIDIA H200 (Hopper): Tensor Core figures published with sparsity only
    (50, 'nvidia', 'Hopper', 'H200 SXM', '%H200%', 1, 'CUDA Core', 'fp64', 34, NULL,
     'NVIDIA H200 Tensor Core GPU data sheet (https://resources.nvidia.com/en-us-data-center-overview-mc/en-us-data-center-overview/hpc-datasheet-sc23-h200)', 'FP64'),
    (51, 'nvidia', 'Hopper', 'H200 SXM', '%H200%', 1, 'CUDA Core', 'fp32', 67, NULL,
     'NVIDIA H200 Tensor Core GPU data sheet (https://resources.nvidia.com/en-us-data-center-overview-mc/en-us-data-center-overview/hpc-datasheet-sc23-h200)', 'FP32'),
    (52, 'nvidia', 'Hopper', 'H200 SXM', '%H200%', 1, 'Tensor Core', 'tf32', NULL, 989,
     'NVIDIA H200 Tensor Core GPU data sheet (https://resources.nvidia.com/en-us-data-center-overview-mc/en-us-data-center-overview/hpc-datasheet-sc23-h200)', 'published with sparsity only'),
    (53, 'nvidia', 'Hopper', 'H200 SXM', '%H200%', 1, 'Tensor Core', 'bf16', NULL, 1979,
     'NVIDIA H200 Tensor Core GPU data sheet (https://resources.nvidia.com/en-us-data-center-overview-mc/en-us-data-center-overview/hpc-datasheet-sc23-h200)', 'published with sparsity only'),
    (54, 'nvidia', 'Hopper', 'H200 SXM', '%H200%', 1, 'Tensor Core', 'fp16', NULL, 1979,
     'NVIDIA H200 Tensor Core GPU data sheet (https://resources.nvidia.com/en-us-data-center-overview-mc/en-us-data-center-overview/hpc-datasheet-sc23-h200)', 'published with sparsity only'),
    (55, 'nvidia', 'Hopper', 'H200 SXM', '%H200%', 1, 'Tensor Core', 'fp8', NULL, 3958,
     'NVIDIA H200 Tensor Core GPU data sheet (https://resources.nvidia.com/en-us-data-center-overview-mc/en-us-data-center-overview/hpc-datasheet-sc23-h200)', 'published with sparsity only'),
    (56, 'nvidia', 'Hopper', 'H200 SXM', '%H200%', 1, 'Tensor Core', 'int8', NULL, 3958,
     'NVIDIA H200 Tensor Core GPU data sheet (https://resources.nvidia.com/en-us-data-center-overview-mc/en-us-data-center-overview/hpc-datasheet-sc23-h200)', 'published with sparsity only, TOPS'),
    -- AMD Instinct MI250X / MI250 (CDNA2): per OAM module of two GCDs, each GCD its own device
    (60, 'amd', 'CDNA2', 'MI250X', '%MI250X%', 2, 'Vector', 'fp64', 47.9, NULL,
     'AMD Instinct MI250X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250x-brochure.pdf)', 'Peak FP64 Vector'),
    (61, 'amd', 'CDNA2', 'MI250X', '%MI250X%', 2, 'Matrix Core', 'fp64', 95.7, NULL,
     'AMD Instinct MI250X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250x-brochure.pdf)', 'Peak FP64 Matrix'),
    (62, 'amd', 'CDNA2', 'MI250X', '%MI250X%', 2, 'Matrix Core', 'fp32', 95.7, NULL,
     'AMD Instinct MI250X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250x-brochure.pdf)', 'Peak FP32 Matrix'),
    (63, 'amd', 'CDNA2', 'MI250X', '%MI250X%', 2, 'Matrix Core', 'fp16', 383, NULL,
     'AMD Instinct MI250X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250x-brochure.pdf)', 'Peak FP16'),
    (64, 'amd', 'CDNA2', 'MI250X', '%MI250X%', 2, 'Matrix Core', 'bf16', 383, NULL,
     'AMD Instinct MI250X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250x-brochure.pdf)', 'Peak bfloat16'),
    (65, 'amd', 'CDNA2', 'MI250X', '%MI250X%', 2, 'Matrix Core', 'int8', 383, NULL,
     'AMD Instinct MI250X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250x-brochure.pdf)', 'Peak INT8, TOPS'),
    (70, 'amd', 'CDNA2', 'MI250', '%MI250%', 2, 'Vector', 'fp64', 45.3, NULL,
     'AMD Instinct MI250 accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250-brochure.pdf)', 'Peak FP64 Vector'),
    (71, 'amd', 'CDNA2', 'MI250', '%MI250%', 2, 'Matrix Core', 'fp64', 90.5, NULL,
     'AMD Instinct MI250 accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250-brochure.pdf)', 'Peak FP64 Matrix'),
    (72, 'amd', 'CDNA2', 'MI250', '%MI250%', 2, 'Matrix Core', 'fp32', 90.5, NULL,
     'AMD Instinct MI250 accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250-brochure.pdf)', 'Peak FP32 Matrix'),
    (73, 'amd', 'CDNA2', 'MI250', '%MI250%', 2, 'Matrix Core', 'fp16', 362.1, NULL,
     'AMD Instinct MI250 accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250-brochure.pdf)', 'Peak FP16'),
    (74, 'amd', 'CDNA2', 'MI250', '%MI250%', 2, 'Matrix Core', 'bf16', 362.1, NULL,
     'AMD Instinct MI250 accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250-brochure.pdf)', 'Peak bfloat16'),
    (75, 'amd', 'CDNA2', 'MI250', '%MI250%', 2, 'Matrix Core', 'int8', 362.1, NULL,
     'AMD Instinct MI250 accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250-brochure.pdf)', 'Peak INT8, TOPS'),
    -- AMD Instinct MI300X (CDNA3)
    (80, 'amd', 'CDNA3', 'MI300X', '%MI300X%', 1, 'Vector', 'fp64', 81.7, NULL,
     'AMD Instinct MI300X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf)', 'Peak FP64 Vector'),
    (81, 'amd', 'CDNA3', 'MI300X', '%MI300X%', 1, 'Matrix Core', 'fp64', 163.4, NULL,
     'AMD Instinct MI300X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf)', 'Peak FP64 Matrix'),
    (82, 'amd', 'CDNA3', 'MI300X', '%MI300X%', 1, 'Matrix Core', 'fp32', 163.4, NULL,
     'AMD Instinct MI300X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf)', 'Peak FP32 Matrix'),
    (83, 'amd', 'CDNA3', 'MI300X', '%MI300X%', 1, 'Matrix Core', 'tf32', 653.7, 1307.4,
     'AMD Instinct MI300X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf)', 'Peak TF32'),
    (84, 'amd', 'CDNA3', 'MI300X', '%MI300X%', 1, 'Matrix Core', 'fp16', 1307.4, 2614.9,
     'AMD Instinct MI300X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf)', 'Peak FP16'),
    (85, 'amd', 'CDNA3', 'MI300X', '%MI300X%', 1, 'Matrix Core', 'bf16', 1307.4, 2614.9,
     'AMD Instinct MI300X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf)', 'Peak bfloat16'),
    (86, 'amd', 'CDNA3', 'MI300X', '%MI300X%', 1, 'Matrix Core', 'fp8', 2614.9, 5229.8,
     'AMD Instinct MI300X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf)', 'Peak FP8'),
    (87, 'amd', 'CDNA3', 'MI300X', '%MI300X%', 1, 'Matrix Core', 'int8', 2614.9, 5229.8,
     'AMD Instinct MI300X accelerator data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf)', 'Peak INT8, TOPS'),
    -- Huawei Ascend 910 (the NPU_INFO name Ascend910A): FP16 and INT8 published at launch
    (90, 'huawei', 'Ascend910', 'Ascend 910', 'Ascend910A%', 1, 'Cube', 'fp16', 256, NULL,
     'Huawei press release "Huawei launches Ascend 910, the world''s most powerful AI processor", 2019-08-23 (https://www.huawei.com/en/news/2019/8/huawei-ascend-910-most-powerful-ai-processor)', '256 TeraFLOPS FP16'),
    (91, 'huawei', 'Ascend910', 'Ascend 910', 'Ascend910A%', 1, 'Cube', 'int8', 512, NULL,
     'Huawei press release "Huawei launches Ascend 910, the world''s most powerful AI processor", 2019-08-23 (https://www.huawei.com/en/news/2019/8/huawei-ascend-910-most-powerful-ai-processor)', '512 TeraOPS INT8'),
    (92, 'huawei', 'Ascend910', 'Ascend 910', 'Ascend910A%', 1, 'Cube', 'fp32', NULL, NULL,
     'Huawei press release, 2019-08-23 (https://www.huawei.com/en/news/2019/8/huawei-ascend-910-most-powerful-ai-processor)', 'no FP32 figure published'),
    -- Huawei Ascend 910B: no per-chip peak published by Huawei; set peak_tflops for your variant
    (95, 'huawei', 'Ascend910B', 'Ascend 910B', 'Ascend910B%', 1, 'Cube', 'fp16', NULL, NULL,
     'Huawei Ascend product pages (https://www.hiascend.com/hardware/product): no per-chip peak for the 910B series', 'set it with UPDATE device_peak SET peak_tflops = ... WHERE peak_id = 95'),
    (96, 'huawei', 'Ascend910B', 'Ascend 910B', 'Ascend910B%', 1, 'Cube', 'bf16', NULL, NULL,
     'Huawei Ascend product pages (https://www.hiascend.com/hardware/product): no per-chip peak for the 910B series', NULL),
    (97, 'huawei', 'Ascend910B', 'Ascend 910B', 'Ascend910B%', 1, 'Cube', 'fp32', NULL, NULL,
     'Huawei Ascend product pages (https://www.hiascend.com/hardware/product): no per-chip peak for the 910B series', NULL),
    (98, 'huawei', 'Ascend910B', 'Ascend 910B', 'Ascend910B%', 1, 'Cube', 'hf32', NULL, NULL,
     'Huawei Ascend product pages (https://www.hiascend.com/hardware/product): no per-chip peak for the 910B series', NULL),
    (99, 'huawei', 'Ascend910B', 'Ascend 910B', 'Ascend910B%', 1, 'Cube', 'int8', NULL, NULL,
     'Huawei Ascend product pages (https://www.hiascend.com/hardware/product): no per-chip peak for the 910B series', NULL);
