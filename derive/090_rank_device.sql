-- The device id of (run, rank): trace process labels (Ascend), else the smallest device id of
-- its kernels (kernel_details.csv Device_id, Kineto kernel args.device); NULL when unknown.
UPDATE rank SET device_id = d.device_id
FROM (SELECT coalesce(npu_device_of(getvariable('run_id'), getvariable('rank')),
                      (SELECT min(device_id) FROM kernel
                       WHERE run_id = getvariable('run_id') AND rank = getvariable('rank'))) AS device_id) AS d
WHERE rank.run_id = getvariable('run_id') AND rank.rank = getvariable('rank')
  AND rank.device_id IS DISTINCT FROM d.device_id;
