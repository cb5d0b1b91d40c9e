-- hta_gpu_event — the GPU events HolisticTraceAnalysis analyses on a Kineto rank, with the window
-- HTA cuts and HTA's kernel type (read by temporal_breakdown scope hta and idle_time_hta).
-- Grain:     one row per Kineto kernel or copy (kernel rows of source kineto) and per stream_event
--            row (cuda_sync, cuda_event ... on a stream) of a (run, rank), in HTA's window or not.
-- Source:    kernel (ts_ns, dur_ns, stream_id, launch_name / launch_ts_ns: the runtime call with
--            the kernel's correlation id); stream_event (derive/131); step (host_start_ns:
--            ProfilerStep#N host slice; gpu_start_ns: its GPU-side gpu_user_annotation copy).
-- Reference: HolisticTraceAnalysis 0.6.1 Trace._filter_irrelevant_gpu_kernels (what TraceAnalysis
--            loads): when the run has at least two ProfilerStep#N names (host or GPU-side, over
--            all ranks: HTA's symbol table is shared), a GPU event is kept only if a host event
--            with its correlation id started before the last ProfilerStep#N slice of its rank
--            started, host or GPU-side, whichever is later (include_last_profiler_step=False):
--            so the kernels launched before the first step are in, those launched in the last
--            step are out unless launched before the GPU-side copy of that step starts, and a
--            kernel whose launch call is not in the trace is out. An event on a stream without a
--            correlation id is kept when it starts before that cut. With fewer than two names
--            nothing is cut. Kernel type (hta.utils.get_kernel_type on the name): COMMUNICATION
--            (^nccl, ^hip, ^hccl, ncclKernel anywhere), MEMORY (^Memcpy, ^Memset, ^dma ...),
--            COMPUTATION (none of HTA's non-compute patterns: ^nccl, Memcpy / Memset / dma /
--            Sync anywhere, ^Stream Wait Event, cuda…LaunchKernel, ^runFunction, ^hip, ^hccl,
--            ^job_exe, ^packet, ^pe_exe, ^cpum_exe_subgraph, ^collective_subgraph_execution),
--            else OTHER; only COMPUTATION is compute in HTA's temporal breakdown.
--            Not reproduced: HTA also counts a host op that carries a "stream" argument (Triton
--            cpu_op rows) as GPU time, and sorts equal starts in no fixed order (here: kernel_id).
-- Units:     *_ns integer nanoseconds since the epoch.
CREATE OR REPLACE VIEW tracedb_internal.hta_gpu_event AS
WITH kineto_rank AS (
    SELECT DISTINCT run_id, rank
    FROM kernel
    WHERE source = 'kineto'
),
run_step_names AS (
    -- distinct ProfilerStep#N of the run (host or GPU-side), over all its Kineto ranks
    SELECT s.run_id, count(DISTINCT s.step) AS step_names
    FROM step AS s
    JOIN kineto_rank AS k
        ON k.run_id = s.run_id AND k.rank = s.rank
    WHERE s.host_start_ns IS NOT NULL OR s.gpu_start_ns IS NOT NULL
    GROUP BY s.run_id
),
rank_cut AS (
    -- the start of the rank's last ProfilerStep#N slice, host or GPU-side, whichever is later
    SELECT
        k.run_id, k.rank, coalesce(n.step_names, 0) >= 2 AS is_cut,
        max(greatest(s.host_start_ns, s.gpu_start_ns)) AS cut_ns,
        coalesce(max(s.gpu_start_ns) > max(s.host_start_ns), max(s.gpu_start_ns) IS NOT NULL) AS cut_by_gpu
    FROM kineto_rank AS k
    LEFT JOIN run_step_names AS n
        ON n.run_id = k.run_id
    LEFT JOIN step AS s
        ON s.run_id = k.run_id AND s.rank = k.rank
    GROUP BY k.run_id, k.rank, n.step_names
),
member AS (
    SELECT run_id, rank, kernel_id, name, stream_id, ts_ns, ts_ns + dur_ns AS end_ns,
           CASE WHEN launch_name IS NOT NULL THEN launch_ts_ns END AS launch_ts_ns, true AS is_kernel,
           false AS no_correlation
    FROM kernel
    WHERE source = 'kineto'
    UNION ALL
    SELECT run_id, rank, -row_number() OVER (PARTITION BY run_id, rank ORDER BY ts_ns, stream_id, name, dur_ns),
           name, stream_id, ts_ns, ts_ns + dur_ns, CASE WHEN launch_name IS NOT NULL THEN launch_ts_ns END, false,
           correlation_id IS NULL
    FROM stream_event
),
name_type AS (
    -- HTA's kernel type, matched once per distinct name
    SELECT
        name,
        CASE WHEN regexp_matches(name, '^(?:nccl|hip|hccl|.*ncclKernel)') THEN 'COMMUNICATION'
             WHEN regexp_matches(name, '^(?:(?:hip)?Memcpy|(?:hip)?Memset|dma)') THEN 'MEMORY'
             WHEN NOT regexp_matches(name, '^(?:nccl|.*Memcpy|.*Memset|.*dma|.*Sync|Stream Wait Event'
                                            || '|cuda.*LaunchKernel|runFunction|hip|job_exe|packet|pe_exe'
                                            || '|cpum_exe_subgraph|hccl|collective_subgraph_execution)')
             THEN 'COMPUTATION'
             ELSE 'OTHER' END AS kernel_type
    FROM (SELECT DISTINCT name FROM member WHERE name IS NOT NULL) AS n
)
SELECT
    m.run_id::INTEGER                                          AS run_id,          -- run
    m.rank::INTEGER                                            AS rank,            -- rank
    m.kernel_id::BIGINT                                        AS kernel_id,       -- kernel.kernel_id; negative for a stream_event row
    m.name::VARCHAR                                            AS name,            -- kernel or stream event name
    m.stream_id::VARCHAR                                       AS stream_id,       -- device stream
    m.ts_ns::BIGINT                                            AS ts_ns,           -- start, ns since the epoch
    m.end_ns::BIGINT                                           AS end_ns,          -- end, ns since the epoch
    m.launch_ts_ns::BIGINT                                     AS launch_ts_ns,    -- start of the runtime call with its correlation id (HTA ts_runtime), ns; NULL if none
    m.is_kernel::BOOLEAN                                       AS is_kernel,       -- a kernel or copy (HTA's idle-time breakdown set); false for a stream_event row
    coalesce(t.kernel_type, 'OTHER')::VARCHAR                  AS kernel_type,     -- HTA kernel type: COMPUTATION, COMMUNICATION, MEMORY or OTHER
    coalesce(NOT c.is_cut
             OR (m.no_correlation AND m.ts_ns < c.cut_ns)
             OR (NOT m.no_correlation AND m.launch_ts_ns < c.cut_ns), false)::BOOLEAN
                                                               AS in_window,       -- HTA keeps it (see Reference)
    CASE WHEN c.is_cut THEN c.cut_ns END::BIGINT               AS cut_ns,          -- HTA's cut: start of the rank's last ProfilerStep#N (host or GPU-side, the later), ns; NULL = no cut
    (CASE WHEN NOT c.is_cut THEN 'none'
          WHEN c.cut_by_gpu THEN 'gpu_annotation'
          ELSE 'host_step' END)::VARCHAR                       AS cut_source       -- none (fewer than two ProfilerStep#N names), host_step or gpu_annotation: which slice set the cut
FROM member AS m
JOIN rank_cut AS c
    ON c.run_id = m.run_id AND c.rank = m.rank
LEFT JOIN name_type AS t
    ON t.name = m.name;
