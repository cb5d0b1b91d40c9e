-- rank_hardware — the device each rank ran on: its name, vendor, architecture and the device_peak model it matches.
-- Grain:     one row per (run, rank) of table rank.
-- Source:    device_override (run_name, only_rank); device.device_name of the rank's device
--            (Kineto deviceProperties[].name, rank.device_id, else device 0); profiler_db_meta
--            npu_name (Ascend DB NPU_INFO.name); kernel.launch_name (cuda* / hip* launches);
--            device_peak.name_pattern.
-- Reference: tracedb's own: the device name is matched against device_peak.name_pattern (LIKE,
--            case-insensitive; the longest matching pattern wins); without a match the vendor
--            comes from the name (NVIDIA / Tesla / GeForce / Quadro → nvidia; AMD / Radeon /
--            Instinct → amd; Ascend or an npu run → huawei), else from the launch calls
--            (cudaLaunchKernel → nvidia, hipLaunchKernel → amd).
-- Units:     *_count devices.
CREATE OR REPLACE VIEW tracedb_internal.rank_hardware AS
WITH named AS (
    SELECT
        r.run_id, r.rank, ru.run_name, ru.platform,
        coalesce(o_rank.device_name, o_run.device_name, gpu.device_name, gpu0.device_name, npu.npu_name) AS device_name,
        CASE WHEN o_rank.device_name IS NOT NULL OR o_run.device_name IS NOT NULL THEN 'device_override'
             WHEN gpu.device_name IS NOT NULL OR gpu0.device_name IS NOT NULL THEN 'kineto_device_properties'
             WHEN npu.npu_name IS NOT NULL THEN 'ascend_db_npu_info' END AS name_source
    FROM rank AS r
    JOIN run AS ru
        ON ru.run_id = r.run_id
    LEFT JOIN (SELECT run_name, only_rank, min(device_name) AS device_name FROM device_override
               WHERE only_rank IS NOT NULL GROUP BY run_name, only_rank) AS o_rank
        ON o_rank.run_name = ru.run_name AND o_rank.only_rank = r.rank
    LEFT JOIN (SELECT run_name, min(device_name) AS device_name FROM device_override
               WHERE only_rank IS NULL GROUP BY run_name) AS o_run
        ON o_run.run_name = ru.run_name
    LEFT JOIN (SELECT run_id, rank, device_id, min(device_name) AS device_name FROM device
               GROUP BY run_id, rank, device_id) AS gpu
        ON gpu.run_id = r.run_id AND gpu.rank = r.rank AND gpu.device_id = r.device_id
    LEFT JOIN (SELECT run_id, rank, min(device_name) AS device_name FROM device
               GROUP BY run_id, rank) AS gpu0
        ON gpu0.run_id = r.run_id AND gpu0.rank = r.rank AND r.device_id IS NULL
    LEFT JOIN (SELECT run_id, rank, min(value) AS npu_name FROM profiler_db_meta
               WHERE name = 'npu_name' GROUP BY run_id, rank) AS npu
        ON npu.run_id = r.run_id AND npu.rank = r.rank
),
models AS (
    SELECT DISTINCT vendor, architecture, device_model, name_pattern, package_devices FROM device_peak
),
matched AS (
    SELECT
        n.run_id, n.rank,
        arg_max(m.device_model, length(m.name_pattern)) AS device_model,
        arg_max(m.vendor, length(m.name_pattern)) AS vendor,
        arg_max(m.architecture, length(m.name_pattern)) AS architecture,
        arg_max(m.package_devices, length(m.name_pattern)) AS package_devices
    FROM named AS n
    JOIN models AS m
        ON lower(n.device_name) LIKE lower(m.name_pattern)
    GROUP BY n.run_id, n.rank
),
launch AS (
    SELECT
        run_id, rank,
        max(CASE WHEN launch_name LIKE 'cuda%' THEN 1 ELSE 0 END) AS cuda,
        max(CASE WHEN launch_name LIKE 'hip%' THEN 1 ELSE 0 END) AS hip
    FROM kernel
    WHERE launch_name IS NOT NULL
    GROUP BY run_id, rank
)
SELECT
    n.run_id::INTEGER                    AS run_id,           -- run
    n.rank::INTEGER                      AS rank,             -- rank
    n.run_name::VARCHAR                  AS run_name,         -- run name
    n.platform::VARCHAR                  AS platform,         -- run.platform (npu, gpu)
    n.device_name::VARCHAR               AS device_name,      -- device name as the profiler (or device_override) wrote it; NULL when unknown
    n.name_source::VARCHAR               AS name_source,      -- device_override, kineto_device_properties or ascend_db_npu_info
    m.device_model::VARCHAR              AS device_model,     -- device_peak.device_model matched; NULL when none matches
    coalesce(m.vendor,
             CASE WHEN lower(n.device_name) LIKE '%nvidia%' OR lower(n.device_name) LIKE '%tesla%'
                       OR lower(n.device_name) LIKE '%geforce%' OR lower(n.device_name) LIKE '%quadro%' THEN 'nvidia'
                  WHEN lower(n.device_name) LIKE '%amd%' OR lower(n.device_name) LIKE '%radeon%'
                       OR lower(n.device_name) LIKE '%instinct%' THEN 'amd'
                  WHEN lower(n.device_name) LIKE 'ascend%' OR n.platform = 'npu' THEN 'huawei'
                  WHEN l.cuda = 1 THEN 'nvidia'
                  WHEN l.hip = 1 THEN 'amd' END)::VARCHAR
                                         AS vendor,           -- nvidia, amd or huawei; NULL when nothing tells
    m.architecture::VARCHAR              AS architecture,     -- device_peak.architecture of the matched model (Volta, Ampere, Hopper, CDNA2, Ascend910B ...)
    coalesce(m.package_devices, 1)::BIGINT AS package_device_count  -- devices per data-sheet package (2 for MI250 / MI250X)
FROM named AS n
LEFT JOIN matched AS m
    ON m.run_id = n.run_id AND m.rank = n.rank
LEFT JOIN launch AS l
    ON l.run_id = n.run_id AND l.rank = n.rank;
