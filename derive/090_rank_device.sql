-- The device id of each rank: trace process labels (Ascend), else the smallest device id of
-- its kernels (kernel_details.csv Device_id, Kineto kernel args.device); NULL when unknown.
UPDATE rank SET device_id = d.device_id
FROM (
    SELECT r.run_id, r.rank, coalesce(n.device_id, k.device_id) AS device_id
    FROM derive_rank() AS r
    LEFT JOIN npu_device() AS n ON n.run_id = r.run_id AND n.rank = r.rank
    LEFT JOIN (SELECT run_id, rank, min(device_id) AS device_id FROM kernel
               WHERE (run_id, rank) IN (FROM derive_rank()) GROUP BY run_id, rank) AS k
        ON k.run_id = r.run_id AND k.rank = r.rank
) AS d
WHERE rank.run_id = d.run_id AND rank.rank = d.rank
  AND rank.device_id IS DISTINCT FROM d.device_id;
