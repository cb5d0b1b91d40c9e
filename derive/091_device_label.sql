-- The label of the rank's GPU device rows (device.device, from Kineto deviceProperties: CUDA:<n>,
-- HIP:<n> for an AMD GPU) is the one its memory events use for the same ordinal: PyTorch on
-- ROCm records its allocations as c10 device type HIP (6) or, masquerading as CUDA, as CUDA (1),
-- and memory_peak joins a device's capacity on the label. A device row relabelled is one whose
-- ordinal the rank's memory rows name only with the other label (CUDA <-> HIP).
-- when-format: kineto
UPDATE device SET device = m.device
FROM (
    SELECT DISTINCT run_id, rank, device, split_part(device, ':', 1) AS label_kind,
           TRY_CAST(split_part(device, ':', 2) AS INTEGER) AS ordinal
    FROM memory
    WHERE (run_id, rank) IN (FROM derive_rank()) AND kind = 'event'
      AND (device LIKE 'CUDA:%' OR device LIKE 'HIP:%')
) AS m
WHERE device.run_id = m.run_id AND device.rank = m.rank
  AND device.device_id = m.ordinal AND device.device <> m.device
  AND split_part(device.device, ':', 1) IN ('CUDA', 'HIP')
  AND NOT EXISTS (SELECT 1 FROM memory AS x
                  WHERE x.run_id = device.run_id AND x.rank = device.rank AND x.kind = 'event'
                    AND x.device = device.device);
