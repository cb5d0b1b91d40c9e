-- overall_summary — msprof-analyze compare's OverallMetrics rows for each rank: Computing Time split
-- into kernel categories, Uncovered Communication per group with Wait / Transmit, Free Time with
-- its copy (SDMA) part, E2E Time, Mem Usage and the RDMA / SDMA bandwidth of communication.json.
-- Grain:     one row per (run, rank, metric, parent_metric) that is non-zero (as msprof-analyze drops
--            rows whose durations are ~0); Computing Time, Uncovered Communication Time, Free Time
--            and E2E Time always.
--            Scope: whole capture (not per step).
-- Source:    tracedb_internal.capture_union (whole-capture unions, Notify_Wait of link) and
--            tracedb_internal.kernel_class (kernel categories from kernel_class_rule); kernel (copies,
--            streams); memory (memory_record.csv Total Reserved, Kineto [memory] events);
--            profiler_comm_bandwidth (communication.json).
-- Reference: msprof-analyze compare OverallMetrics sheet (analyses.md §2.4; overall_metrics_bean,
--            base_profiling_parser): category rows are sums of kernel durations with kernel counts
--            (Flash Attention / Conv split by direction, FA / Conv / Matmul into (Cube) and (Vector)
--            by sub_category, Vector into (Trans) and (No Trans)); Other = max(0, Computing − every
--            category) without a count; Computing Time's count = kernels in a named category. Per
--            group: Uncovered = |group ops \ U(computing)|, Wait = chosen plane's Notify_Waits
--            outside computing (capture_union), Transmit = Uncovered − Wait; Uncovered Communication
--            Overlapped (per pair of groups, and their sum) = time two groups are exposed at once.
--            Free Time = E2E −
--            Computing − Uncovered; its SDMA row is msprof-analyze's (npu_profiling_parser
--            __add_sdma_time, gpu_profiling_parser): Σ dur and count of the copies on the compute
--            streams (kernel.copy_kind; NPU: SDMA_SQE / PCIE_DMA_SQE / MEMCPY_ASYNC tasks on every
--            stream with a computing kernel that is not an *_SQE task; GPU: HtoD / DtoH / DtoD copies
--            on the stream with the most computing kernels), Free = Free Time − SDMA (as msprof-analyze,
--            negative when copies overlap computing on another stream; capture_breakdown.copy_ns is
--            the exact union instead). msprof-analyze's text path reads the stream from args "Stream
--            Id", which newer CANN writes as "Physic Stream Id": there it prints SDMA 0.
--            Mem Usage: max Total Reserved (size_bytes). RDMA / SDMA Bandwidth (bandwidth_gbps, no
--            duration): communication.json collective "Total Op Info" Transit Size / Transit Time of
--            the last step (msprof-analyze _update_bandwidth keeps the last step), rows only where the
--            transport moved data. The group label is "Group <g> Communication" (trace thread name),
--            "{pg_name}: Group <g> Communication" where profiler_metadata.json names the group
--            (tracedb_internal.comm_group_label).
--            msprof_dur_ns / msprof_kernel_count / msprof_metric: msprof-analyze's own number and label
--            for the row where its reading of the capture differs (docs/msprof-analyze.md): kernel
--            categories by kernel_rule_match.msprof_* (op link only through its flows, no categories
--            on Level0 / trace-only torch_npu ranks, Ascend DB uncategorised tasks in Vector); Kineto
--            Computing / Uncovered by its 1 µs bitmap (whole µs ticks floor(start) + 1 … floor(end))
--            and E2E over kernel and gpu_memcpy events only; Ascend DB E2E over every task (copies
--            too) and its wait plane among the planes with a Notify_Wait, groups labelled by the raw
--            group name; SDMA only over the copies it reads. A row only msprof-analyze has shows
--            dur_ns 0; a row it does not have, msprof_dur_ns 0.
-- Units:     *_ns integer nanoseconds; *_count kernels; size_bytes bytes; bandwidth_gbps GB/s (10^9
--            bytes/s); ratio_of_e2e = dur_ns / E2E of the rank (0–1).
CREATE OR REPLACE VIEW overall_summary AS
WITH unions AS (
    -- read once: cap, grp and pair use it (one row per union: its length and extent)
    SELECT kind, run_id, rank, group_name, other_group_name, union_ns, start_ns, end_ns
    FROM tracedb_internal.capture_union
),
cap AS (
    SELECT
        run_id, rank,
        sum(CASE WHEN kind = 'computing' THEN union_ns ELSE 0 END) AS computing_ns,
        sum(CASE WHEN kind = 'busy' THEN union_ns ELSE 0 END) AS busy_ns,
        sum(CASE WHEN kind = 'all' THEN union_ns ELSE 0 END) AS all_ns,
        max(CASE WHEN kind = 'all' THEN end_ns END) - min(CASE WHEN kind = 'all' THEN start_ns END) AS e2e_ns
    FROM unions
    WHERE kind IN ('computing', 'busy', 'all')
    GROUP BY run_id, rank
),
rank_kind AS (
    -- which of msprof-analyze's input paths the rank is: Kineto (gpu), Ascend DB, torch_npu text
    SELECT c.run_id, c.rank, r.platform,
           EXISTS (SELECT 1 FROM source_file AS f
                   WHERE f.run_id = c.run_id AND f.rank = c.rank AND f.format = 'ascend_db') AS is_db
    FROM cap AS c
    JOIN run AS r
        ON r.run_id = c.run_id
),
gpu_tick AS (
    -- msprof-analyze's GPU bitmap (gpu_profiling_parser.__add_marks): a kernel marks the whole µs
    -- ticks floor(start) + 1 … floor(end), i.e. [start // 1000 + 1, end // 1000 + 1) in µs
    SELECT k.run_id, k.rank, k.ts_ns // 1000 + 1 AS t0, (k.ts_ns + k.dur_ns) // 1000 + 1 AS t1,
           starts_with(lower(k.name), 'nccl') AS is_nccl
    FROM kernel AS k
    JOIN run AS r
        ON r.run_id = k.run_id
    WHERE r.platform = 'gpu' AND k.copy_kind IS NULL
),
gpu_tick_previous AS (
    SELECT
        *,
        max(CASE WHEN NOT is_nccl THEN t1 END) OVER w AS computing_previous,
        max(t1) OVER w AS all_previous
    FROM gpu_tick
    WINDOW w AS (PARTITION BY run_id, rank ORDER BY t0, t1 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
gpu_ticks AS (
    -- computing = ticks of non-NCCL kernels; uncovered = ticks of NCCL kernels and no other
    SELECT run_id, rank,
           sum(CASE WHEN NOT is_nccl THEN greatest(0, t1 - greatest(t0, coalesce(computing_previous, t0))) ELSE 0 END)
               AS computing_ticks,
           sum(greatest(0, t1 - greatest(t0, coalesce(all_previous, t0)))) AS all_ticks
    FROM gpu_tick_previous
    GROUP BY run_id, rank
),
read_extent AS (
    -- the device rows msprof-analyze's E2E spans: Kineto kernel and gpu_memcpy events; Ascend DB
    -- every task tracedb keeps (compute, communication, MEMCPY_ASYNC)
    SELECT k.run_id, k.rank, min(k.ts_ns) AS start_ns, max(k.ts_ns + k.dur_ns) AS end_ns
    FROM kernel AS k
    JOIN rank_kind AS rk
        ON rk.run_id = k.run_id AND rk.rank = k.rank
    LEFT JOIN kernel_rule_match AS m
        ON m.run_id = k.run_id AND m.rank = k.rank AND m.kernel_id = k.kernel_id
    WHERE rk.is_db OR (rk.platform = 'gpu' AND (k.copy_kind IS NULL OR m.msprof_category = 'Memcpy'))
    GROUP BY k.run_id, k.rank
),
cap_m AS (
    -- msprof-analyze's headline numbers: torch_npu text as tracedb (Overlap Analysis); Ascend DB
    -- E2E over every task; Kineto: the 1 µs bitmap, E2E over kernel and gpu_memcpy events
    SELECT
        c.run_id, c.rank,
        CASE WHEN k.platform = 'gpu' THEN coalesce(t.computing_ticks, 0) * 1000 ELSE c.computing_ns END
            AS computing_ns,
        CASE WHEN k.platform = 'gpu' THEN coalesce(t.all_ticks - t.computing_ticks, 0) * 1000
             ELSE c.busy_ns - c.computing_ns END AS uncovered_ns,
        CASE WHEN (k.platform = 'gpu' OR k.is_db) AND x.start_ns IS NOT NULL THEN x.end_ns - x.start_ns
             ELSE c.e2e_ns END AS e2e_ns
    FROM cap AS c
    JOIN rank_kind AS k
        ON k.run_id = c.run_id AND k.rank = c.rank
    LEFT JOIN gpu_ticks AS t
        ON t.run_id = c.run_id AND t.rank = c.rank
    LEFT JOIN read_extent AS x
        ON x.run_id = c.run_id AND x.rank = c.rank
),
grp AS (
    SELECT
        i.run_id, i.rank, i.group_name,
        sum(CASE WHEN i.kind = 'group' THEN i.union_ns ELSE 0 END) - max(c.computing_ns) AS uncovered_ns,
        CASE WHEN sum(CASE WHEN i.kind = 'wait' THEN 1 ELSE 0 END) > 0
             THEN sum(CASE WHEN i.kind = 'wait' THEN i.union_ns ELSE 0 END) - max(c.computing_ns)
             ELSE 0 END AS wait_ns,
        -- msprof-analyze's Ascend DB path waits on another plane where the chosen one has no Notify_Wait
        CASE WHEN sum(CASE WHEN i.kind = 'msprof_wait' THEN 1 ELSE 0 END) > 0
             THEN sum(CASE WHEN i.kind = 'msprof_wait' THEN i.union_ns ELSE 0 END) - max(c.computing_ns)
             WHEN sum(CASE WHEN i.kind = 'wait' THEN 1 ELSE 0 END) > 0
             THEN sum(CASE WHEN i.kind = 'wait' THEN i.union_ns ELSE 0 END) - max(c.computing_ns)
             ELSE 0 END AS msprof_wait_ns
    FROM unions AS i
    JOIN cap AS c
        ON c.run_id = i.run_id AND c.rank = i.rank
    WHERE i.kind IN ('group', 'wait', 'msprof_wait')
    GROUP BY i.run_id, i.rank, i.group_name
),
grp_label AS (
    -- "{pg_name}: Group <g> Communication" where profiler_metadata.json names the group
    SELECT g.*, coalesce(l.label, 'Group ' || g.group_name || ' Communication') AS label,
           CASE WHEN k.is_db THEN g.group_name
                ELSE coalesce(l.label, 'Group ' || g.group_name || ' Communication') END AS msprof_label
    FROM grp AS g
    JOIN rank_kind AS k
        ON k.run_id = g.run_id AND k.rank = g.rank
    LEFT JOIN tracedb_internal.comm_group_label AS l
        ON l.run_id = g.run_id AND l.rank = g.rank AND l.group_name = g.group_name
),
pair AS (
    -- Uncovered Communication Overlapped of two groups: |A \ C| + |B \ C| − |(A ∪ B) \ C|
    SELECT
        p.run_id, p.rank, p.group_name, p.other_group_name,
        a.uncovered_ns + b.uncovered_ns - (p.pair_ns - c.computing_ns) AS overlapped_ns
    FROM (SELECT run_id, rank, group_name, other_group_name, sum(union_ns) AS pair_ns
          FROM unions
          WHERE kind = 'pair'
          GROUP BY run_id, rank, group_name, other_group_name) AS p
    JOIN cap AS c
        ON c.run_id = p.run_id AND c.rank = p.rank
    JOIN grp AS a
        ON a.run_id = p.run_id AND a.rank = p.rank AND a.group_name = p.group_name
    JOIN grp AS b
        ON b.run_id = p.run_id AND b.rank = p.rank AND b.group_name = p.other_group_name
),
compute AS (
    -- compute kernels with the row they go to (msprof-analyze's labels), once by tracedb's
    -- reading of the rules and once by msprof-analyze's own (kernel_rule_match.msprof_*)
    SELECT
        run_id, rank, reading, name, dur_ns, sub_category,
        CASE category
            WHEN 'Flash Attention' THEN CASE WHEN direction = 'bwd' THEN 'Flash Attention (Backward)'
                                             ELSE 'Flash Attention (Forward)' END
            WHEN 'Conv' THEN CASE WHEN direction = 'bwd' THEN 'Conv (Backward)' ELSE 'Conv (Forward)' END
            WHEN 'Paged Attention' THEN 'Page Attention'
            WHEN 'MC2' THEN name
            ELSE category
        END AS metric,
        category
    FROM (
        SELECT run_id, rank, 'tracedb' AS reading, name, dur_ns, sub_category, category, direction
        FROM tracedb_internal.kernel_class
        WHERE NOT is_communication AND NOT is_copy AND category NOT IN ('Other', 'Lccl')
        UNION ALL
        SELECT run_id, rank, 'msprof', name, dur_ns, msprof_sub_category, msprof_category, msprof_direction
        FROM tracedb_internal.kernel_class
        WHERE msprof_category NOT IN ('Other', 'Lccl', 'Communication', 'Memcpy', 'Memset', 'SDMA')
    ) AS k
),
category_rows AS (
    SELECT run_id, rank, reading, metric, 'Computing Time' AS parent_metric, sum(dur_ns) AS dur_ns,
           count(*) AS kernel_count,
           CASE WHEN any_value(category) = 'MC2' THEN '1' ELSE
           CASE metric WHEN 'Flash Attention (Forward)' THEN '2' WHEN 'Flash Attention (Backward)' THEN '3'
                       WHEN 'Conv (Forward)' THEN '4' WHEN 'Conv (Backward)' THEN '5' WHEN 'Matmul' THEN '6'
                       WHEN 'Page Attention' THEN '7' WHEN 'Vector' THEN '8' WHEN 'Cube' THEN '9'
                       WHEN 'SDMA (Tensor Move)' THEN 'A' ELSE 'B' END END AS position
    FROM compute
    GROUP BY run_id, rank, reading, metric
),
sub_rows AS (
    SELECT run_id, rank, reading, metric, parent_metric, sum(dur_ns) AS dur_ns, count(*) AS kernel_count, position
    FROM (
        SELECT
            run_id, rank, reading, dur_ns, metric AS parent_metric,
            CASE WHEN metric = 'Vector'
                 THEN CASE WHEN sub_category = 'trans' THEN 'Vector (Trans)' ELSE 'Vector (No Trans)' END
                 ELSE metric || CASE WHEN sub_category = 'cube' THEN ' (Cube)' ELSE ' (Vector)' END END AS metric,
            CASE WHEN metric = 'Vector' THEN CASE WHEN sub_category = 'trans' THEN '1' ELSE '2' END
                 ELSE CASE WHEN sub_category = 'cube' THEN '1' ELSE '2' END END AS position
        FROM compute
        WHERE metric IN ('Flash Attention (Forward)', 'Flash Attention (Backward)', 'Conv (Forward)',
                         'Conv (Backward)', 'Matmul', 'Vector')
    ) AS x
    GROUP BY run_id, rank, reading, metric, parent_metric, position
),
stream_use AS (
    -- per stream: computing kernels (msprof-analyze's compute task types: not an *_SQE scheduler
    -- task) and the copies its SDMA row counts (NPU: every copy task; GPU: HtoD / DtoH / DtoD)
    SELECT
        k.run_id, k.rank, k.stream_id, r.platform, min(k.ts_ns) AS first_ns,
        sum(CASE WHEN k.copy_kind IS NULL AND NOT k.is_communication
                      AND (k.task_type IS NULL OR k.task_type NOT LIKE '%SQE') THEN 1 ELSE 0 END) AS compute_n,
        sum(CASE WHEN k.copy_kind IS NOT NULL AND (r.platform = 'npu' OR k.copy_kind IN ('HtoD', 'DtoH', 'DtoD'))
                 THEN 1 ELSE 0 END) AS copy_n,
        sum(CASE WHEN k.copy_kind IS NOT NULL AND (r.platform = 'npu' OR k.copy_kind IN ('HtoD', 'DtoH', 'DtoD'))
                 THEN k.dur_ns ELSE 0 END) AS copy_ns,
        -- the copies msprof-analyze itself reads there (kernel_rule_match.msprof_category): NPU SDMA_SQE /
        -- PCIE_DMA_SQE tasks with a "Stream Id"; Kineto gpu_memcpy events named HtoD / DtoD / DtoH
        sum(CASE WHEN (r.platform = 'npu' AND m.msprof_category = 'SDMA')
                      OR (r.platform = 'gpu' AND m.msprof_category = 'Memcpy'
                          AND regexp_matches(lower(k.name), 'htod|dtod|dtoh'))
                 THEN k.dur_ns ELSE 0 END) AS msprof_copy_ns
    FROM kernel AS k
    JOIN run AS r
        ON r.run_id = k.run_id
    LEFT JOIN kernel_rule_match AS m
        ON m.run_id = k.run_id AND m.rank = k.rank AND m.kernel_id = k.kernel_id
    WHERE k.stream_id IS NOT NULL
    GROUP BY k.run_id, k.rank, k.stream_id, r.platform
),
sdma AS (
    -- msprof-analyze's SDMA row (npu_profiling_parser.__add_sdma_time, gpu_profiling_parser):
    -- Σ dur of the copies on the compute streams (NPU: every stream with a computing kernel; GPU:
    -- the stream with the most computing kernels)
    SELECT run_id, rank, sum(copy_n) AS copy_count, sum(copy_ns) AS copy_ns, sum(msprof_copy_ns) AS msprof_copy_ns
    FROM (SELECT *, row_number() OVER (PARTITION BY run_id, rank ORDER BY compute_n DESC, first_ns, stream_id) AS n
          FROM stream_use
          WHERE compute_n > 0) AS x
    WHERE platform = 'npu' OR n = 1
    GROUP BY run_id, rank
),
bandwidth AS (
    -- communication.json "Total Op Info" of collective communication, its last step (msprof-analyze
    -- _update_bandwidth keeps the last step's numbers): Transit Size / Transit Time per transport
    SELECT b.run_id, b.rank, b.transport_type,
           sum(b.transit_size_bytes) AS transit_size_bytes, sum(b.transit_ns) AS transit_ns
    FROM profiler_comm_bandwidth AS b
    JOIN (SELECT run_id, rank, max(coalesce(step, -1)) AS step
          FROM profiler_comm_bandwidth
          WHERE is_total AND comm_kind = 'collective'
          GROUP BY run_id, rank) AS l
        ON l.run_id = b.run_id AND l.rank = b.rank AND l.step = coalesce(b.step, -1)
    WHERE b.is_total AND b.comm_kind = 'collective' AND b.transport_type IN ('RDMA', 'SDMA')
    GROUP BY b.run_id, b.rank, b.transport_type
    HAVING sum(b.transit_ns) > 0
),
mem AS (
    SELECT run_id, rank, max(reserved_bytes) AS size_bytes
    FROM memory
    WHERE kind IN ('record', 'event')
    GROUP BY run_id, rank
),
overlap_row AS (
    -- Uncovered Communication Overlapped and its pairs of groups (the same for both readings)
    SELECT run_id, rank, 'Uncovered Communication Overlapped' AS metric,
           'Uncovered Communication Time' AS parent_metric, sum(overlapped_ns) AS dur_ns, '2.~' AS sort_key
    FROM pair
    GROUP BY run_id, rank
    UNION ALL
    SELECT run_id, rank, 'Group ' || group_name || ' Communication & Group ' || other_group_name || ' Communication',
           'Uncovered Communication Overlapped', overlapped_ns, '2.~.' || group_name || '.' || other_group_name
    FROM pair
),
rank_total AS (
    SELECT run_id, rank, reading, sum(kernel_count) AS kernel_count, sum(dur_ns) AS dur_ns
    FROM category_rows
    GROUP BY run_id, rank, reading
),
rank_row AS (
    -- the rows of one number per rank, by tracedb's rules (cap) and by msprof-analyze's (cap_m),
    -- each CTE read once: Spark inlines every use of a CTE, and a read per row ran its analyzer
    -- out of heap
    SELECT c.run_id, c.rank, c.reading, k.metric, k.parent_metric, k.sort_key,
           CASE k.metric
               WHEN 'Computing Time' THEN c.computing_ns
               WHEN 'Other' THEN greatest(0, c.computing_ns - coalesce(t.dur_ns, 0))
               WHEN 'Uncovered Communication Time' THEN c.uncovered_ns
               WHEN 'Free Time' THEN c.e2e_ns - c.computing_ns - c.uncovered_ns
               WHEN 'SDMA' THEN c.copy_ns
               WHEN 'Free' THEN c.e2e_ns - c.computing_ns - c.uncovered_ns - c.copy_ns
               ELSE c.e2e_ns
           END AS dur_ns,
           CASE k.metric WHEN 'Computing Time' THEN coalesce(t.kernel_count, 0) WHEN 'SDMA' THEN c.copy_count END
               AS kernel_count
    FROM (
        SELECT x.run_id, x.rank, x.reading, x.computing_ns, x.uncovered_ns, x.e2e_ns,
               CASE WHEN x.reading = 'tracedb' THEN coalesce(d.copy_ns, 0) ELSE coalesce(d.msprof_copy_ns, 0) END
                   AS copy_ns,
               CASE WHEN x.reading = 'tracedb' THEN coalesce(d.copy_count, 0) END AS copy_count
        FROM (SELECT run_id, rank, 'tracedb' AS reading, computing_ns, busy_ns - computing_ns AS uncovered_ns, e2e_ns
              FROM cap
              UNION ALL
              SELECT run_id, rank, 'msprof', computing_ns, uncovered_ns, e2e_ns
              FROM cap_m) AS x
        LEFT JOIN sdma AS d
            ON d.run_id = x.run_id AND d.rank = x.rank
    ) AS c
    LEFT JOIN rank_total AS t
        ON t.run_id = c.run_id AND t.rank = c.rank AND t.reading = c.reading
    CROSS JOIN (VALUES ('Computing Time', CAST(NULL AS VARCHAR), '1'), ('Other', 'Computing Time', '1.C'),
                       ('Uncovered Communication Time', NULL, '2'), ('Free Time', NULL, '3'),
                       ('SDMA', 'Free Time', '3.1'), ('Free', 'Free Time', '3.2'), ('E2E Time', NULL, '4'))
        AS k(metric, parent_metric, sort_key)
),
group_row AS (
    -- per communication group: its uncovered time, Wait and Transmit, by either reading
    -- (msprof-analyze's wait: msprof_wait_ns; its label: msprof_label)
    SELECT g.run_id, g.rank, g.reading,
           CASE k.part WHEN 'group' THEN g.label WHEN 'wait' THEN 'Wait' ELSE 'Transmit' END AS metric,
           CASE k.part WHEN 'group' THEN 'Uncovered Communication Time' ELSE g.label END AS parent_metric,
           CASE k.part WHEN 'group' THEN g.reading_label WHEN 'wait' THEN 'Wait' ELSE 'Transmit' END AS msprof_metric,
           CASE k.part WHEN 'group' THEN g.uncovered_ns WHEN 'wait' THEN g.reading_wait_ns
                       ELSE g.uncovered_ns - g.reading_wait_ns END AS dur_ns,
           '2.' || g.group_name || k.suffix AS sort_key
    FROM (SELECT l.run_id, l.rank, l.group_name, l.label, l.uncovered_ns, r.reading,
                 CASE WHEN r.reading = 'msprof' THEN l.msprof_wait_ns ELSE l.wait_ns END AS reading_wait_ns,
                 CASE WHEN r.reading = 'msprof' THEN l.msprof_label ELSE l.label END AS reading_label
          FROM grp_label AS l
          CROSS JOIN (VALUES ('tracedb'), ('msprof')) AS r(reading)) AS g
    CROSS JOIN (VALUES ('group', ''), ('wait', '.1'), ('transmit', '.2')) AS k(part, suffix)
),
reading_row AS (
    -- every row by either reading; msprof_metric is the label msprof-analyze prints; Mem Usage
    -- is tracedb's row alone (msprof-analyze's number is the same)
    SELECT run_id, rank, reading, metric, parent_metric, metric AS msprof_metric, dur_ns, kernel_count,
           CAST(NULL AS BIGINT) AS size_bytes, sort_key
    FROM rank_row
    UNION ALL
    SELECT run_id, rank, reading, metric, parent_metric, metric, dur_ns, kernel_count, NULL,
           '1.' || position || '.' || metric
    FROM category_rows
    UNION ALL
    SELECT s.run_id, s.rank, s.reading, s.metric, s.parent_metric, s.metric, s.dur_ns, s.kernel_count, NULL,
           '1.' || c.position || '.' || s.parent_metric || '.' || s.position
    FROM sub_rows AS s
    JOIN category_rows AS c
        ON c.run_id = s.run_id AND c.rank = s.rank AND c.reading = s.reading AND c.metric = s.parent_metric
    UNION ALL
    SELECT run_id, rank, reading, metric, parent_metric, msprof_metric, dur_ns, NULL, NULL, sort_key
    FROM group_row
    UNION ALL
    SELECT o.run_id, o.rank, r.reading, o.metric, o.parent_metric, o.metric, o.dur_ns, NULL, NULL, o.sort_key
    FROM overlap_row AS o
    CROSS JOIN (VALUES ('tracedb'), ('msprof')) AS r(reading)
    UNION ALL
    SELECT run_id, rank, 'tracedb', 'Mem Usage', NULL, 'Mem Usage', NULL, NULL, size_bytes, '5'
    FROM mem
),
both_row AS (
    -- tracedb's rows beside msprof-analyze's, keyed by tracedb's labels (a row either reading
    -- has; the other's number 0 where it lacks the row); one read of reading_row, pivoted
    SELECT run_id, rank, metric, parent_metric,
           CASE WHEN t_n > 0 THEN t_dur_ns ELSE 0 END AS dur_ns,
           coalesce(t_kernel_count, CASE WHEN m_kernel_count IS NOT NULL THEN 0 END) AS kernel_count,
           size_bytes, coalesce(t_sort_key, m_sort_key) AS sort_key,
           coalesce(m_metric, metric) AS msprof_metric,
           CASE WHEN m_n > 0 THEN m_dur_ns WHEN t_dur_ns IS NOT NULL THEN 0 END AS msprof_dur_ns,
           CASE WHEN m_n > 0 THEN m_kernel_count WHEN t_kernel_count IS NOT NULL THEN 0 END AS msprof_kernel_count
    FROM (
        SELECT run_id, rank, metric, parent_metric,
               sum(CASE WHEN reading = 'tracedb' THEN 1 ELSE 0 END) AS t_n,
               sum(CASE WHEN reading = 'msprof' THEN 1 ELSE 0 END) AS m_n,
               max(CASE WHEN reading = 'tracedb' THEN dur_ns END) AS t_dur_ns,
               max(CASE WHEN reading = 'msprof' THEN dur_ns END) AS m_dur_ns,
               max(CASE WHEN reading = 'tracedb' THEN kernel_count END) AS t_kernel_count,
               max(CASE WHEN reading = 'msprof' THEN kernel_count END) AS m_kernel_count,
               max(CASE WHEN reading = 'tracedb' THEN size_bytes END) AS size_bytes,
               max(CASE WHEN reading = 'tracedb' THEN sort_key END) AS t_sort_key,
               max(CASE WHEN reading = 'msprof' THEN sort_key END) AS m_sort_key,
               max(CASE WHEN reading = 'msprof' THEN msprof_metric END) AS m_metric
        FROM reading_row
        GROUP BY run_id, rank, metric, parent_metric
    ) AS p
),
bandwidth_row AS (
    SELECT run_id, rank, transport_type || ' Bandwidth' AS metric,
           CASE transport_type WHEN 'RDMA' THEN '6' ELSE '7' END AS sort_key,
           transit_size_bytes::DOUBLE / transit_ns AS bandwidth_gbps
    FROM bandwidth
),
all_row AS (
    SELECT m.run_id, m.rank, m.metric, m.parent_metric, m.dur_ns, m.kernel_count, m.size_bytes,
           CAST(NULL AS DOUBLE) AS bandwidth_gbps, m.sort_key, m.msprof_metric, m.msprof_dur_ns, m.msprof_kernel_count
    FROM both_row AS m
    UNION ALL
    SELECT run_id, rank, metric, NULL, NULL, NULL, NULL, bandwidth_gbps, sort_key, metric, NULL, NULL
    FROM bandwidth_row
)
SELECT
    r.run_name::VARCHAR                              AS run_name,       -- run name
    m.rank::INTEGER                                  AS rank,           -- global rank
    m.metric::VARCHAR                                AS metric,         -- OverallMetrics row name (msprof-analyze's labels; MC2 rows: the kernel name)
    m.parent_metric::VARCHAR                         AS parent_metric,  -- the row it is indented under; NULL for a top row
    m.dur_ns::BIGINT                                 AS dur_ns,         -- duration, ns (NULL for Mem Usage)
    m.kernel_count::BIGINT                           AS kernel_count,   -- kernels counted (msprof-analyze "Number"); NULL where it prints "/"
    CASE WHEN c.e2e_ns > 0 THEN m.dur_ns::DOUBLE / c.e2e_ns END::DOUBLE
                                                     AS ratio_of_e2e,   -- dur_ns / E2E Time of the rank (msprof-analyze "Duration Ratio")
    m.size_bytes::BIGINT                             AS size_bytes,     -- Mem Usage: max Total Reserved, bytes; NULL for other rows
    m.bandwidth_gbps::DOUBLE                         AS bandwidth_gbps, -- RDMA / SDMA Bandwidth: Transit Size / Transit Time of communication.json's last step, GB/s (= MB/ms); NULL for other rows
    m.sort_key::VARCHAR                              AS sort_key,       -- sorts the rows in msprof-analyze's order (hierarchy)
    m.msprof_metric::VARCHAR                         AS msprof_metric,  -- the label msprof-analyze prints for the row (Ascend DB groups: the raw group name)
    m.msprof_dur_ns::BIGINT                          AS msprof_dur_ns,  -- msprof-analyze's duration for the row, by its own rules (docs/msprof-analyze.md): equal to dur_ns where they agree; 0 where it has no such row; NULL for Mem Usage / Bandwidth (same numbers as tracedb's)
    m.msprof_kernel_count::BIGINT                    AS msprof_kernel_count -- msprof-analyze's Number for the row; NULL where it prints "/"
FROM all_row AS m
JOIN cap AS c
    ON c.run_id = m.run_id AND c.rank = m.rank
JOIN run AS r
    ON r.run_id = m.run_id
WHERE m.parent_metric IS NULL OR m.dur_ns <> 0 OR m.msprof_dur_ns <> 0
ORDER BY r.run_name, m.rank, m.sort_key;
