"""The SQL of the Nsight Systems reader (:mod:`.nsys`), run on the rows it has staged from the
export as DuckDB temporary tables ``_tracedb_nsys_<name>``: ``act`` (kernels, copies and memsets),
``rt`` (CUDA runtime calls), ``nvtx``, ``osrt``, ``sched``, ``tnames_raw`` (ThreadNames), and
the id → label tables ``kinds``, ``mem`` and ``enum`` it fills from the ENUM_* tables.

Each function returns one statement with the named parameters ``$run``, ``$rank`` and
``$file`` (``$pattern`` too for the NVTX one); ``epoch0`` (the session start, UTC epoch ns) is
written into the statement.
"""
from __future__ import annotations

from ..fieldmaps import nsys as fm

PREFIX = "_tracedb_nsys_"
_RANGES = ", ".join(str(t) for t in fm.NVTX_RANGE_TYPES)
_MARKS = ", ".join(str(t) for t in fm.NVTX_MARK_TYPES)

# a thread's name: its longest ThreadNames entry
THREAD_NAMES = f"""
CREATE OR REPLACE TEMP TABLE {PREFIX}tnames AS
SELECT global_tid, arg_max(nullif(name, ''), length(name)) AS name FROM {PREFIX}tnames_raw GROUP BY global_tid
"""

_CALLS = """
INSERT INTO event (run_id, rank, file_id, ph, name, cat, pid, tid, thread_name, ts_ns, dur_ns)
SELECT $run, $rank, $file, 'X', nullif(CAST(c.name AS VARCHAR), ''), '{cat}',
       CAST((c.global_tid >> 24) & 16777215 AS VARCHAR), CAST(c.global_tid & 16777215 AS VARCHAR),
       t.name, {epoch0} + c.start, greatest(c."end" - c.start, 0)
FROM {p}{staged} AS c
LEFT JOIN {p}tnames AS t ON t.global_tid = c.global_tid
ORDER BY c.start
"""

_SCHED = """
INSERT INTO thread_state (run_id, rank, file_id, pid, tid, thread_name, ts_ns, dur_ns, state, cpu,
                          block_reason, source)
WITH ev AS (
    SELECT start, cpu, sched_in <> 0 AS sched_in, global_tid, state, block,
           lead(start) OVER (PARTITION BY global_tid ORDER BY start, sched_in) AS next_start
    FROM {p}sched
    WHERE global_tid IS NOT NULL
)
SELECT $run, $rank, $file, CAST((e.global_tid >> 24) & 16777215 AS VARCHAR),
       CAST(e.global_tid & 16777215 AS VARCHAR), t.name, {epoch0} + e.start, e.next_start - e.start,
       CASE WHEN e.sched_in THEN 'running'
            WHEN s.label = 'Running' THEN 'preempted'
            ELSE coalesce(s.label, 'off_cpu') END,
       CAST(e.cpu AS INTEGER),
       CASE WHEN NOT e.sched_in THEN b.label END,
       'nsys'
FROM ev AS e
LEFT JOIN {p}tnames AS t ON t.global_tid = e.global_tid
LEFT JOIN {p}enum AS s ON s.kind = 'state' AND s.id = e.state
LEFT JOIN {p}enum AS b ON b.kind = 'block' AND b.id = e.block
WHERE e.next_start IS NOT NULL AND e.next_start > e.start
ORDER BY e.global_tid, e.start
"""

# the launch call with the same correlation id in the same process (older exports have no
# globalPid on the GPU activity: the correlation id alone); the earliest if one repeats
_LAUNCH = """
    SELECT {key}, arg_min(tid, start) AS tid, arg_min(name, start) AS name, min(start) AS start,
           arg_min("end", start) AS "end"
    FROM (SELECT correlation, (global_tid >> 24) & 16777215 AS pid, global_tid & 16777215 AS tid,
                 nullif(CAST(name AS VARCHAR), '') AS name, start, "end" FROM {p}rt)
    GROUP BY {key}
"""

_KERNELS = """
INSERT INTO kernel BY NAME
WITH a AS (
    SELECT * REPLACE (CAST(nullif(CAST(name AS VARCHAR), '') AS VARCHAR) AS name,
                      CAST(nullif(CAST(short_name AS VARCHAR), '') AS VARCHAR) AS short_name),
           row_number() OVER () AS arow,
           CASE WHEN global_pid IS NULL THEN NULL ELSE (global_pid >> 24) & 16777215 END AS pid
    FROM {p}act
),
named AS (
    SELECT a.*,
           CASE a.kind WHEN 'kernel' THEN a.name
                       WHEN 'memset' THEN 'Memset'
                       ELSE 'Memcpy ' || coalesce(k.copy_kind, 'Unknown') END AS kname,
           CASE a.kind WHEN 'memset' THEN 'Memset' WHEN 'memcpy' THEN k.copy_kind END AS ckind
    FROM a LEFT JOIN {p}kinds AS k ON a.kind = 'memcpy' AND k.id = a.copy_kind
),
mem AS (
    SELECT n.arow, sk.label AS src_label, dk.label AS dst_label
    FROM named AS n
    LEFT JOIN {p}mem AS sk ON sk.id = n.src_kind
    LEFT JOIN {p}mem AS dk ON dk.id = n.dst_kind
    WHERE n.kind = 'memcpy'
),
launch AS ({runtime}),
rows AS (
    SELECT n.*, l.name AS launch_name, l.tid AS launch_tid,
           {epoch0} + l.start AS launch_ts_ns, l."end" - l.start AS launch_dur_ns,
           {epoch0} + n.start AS ts_ns,
           n.kind = 'kernel' AND (lower(n.name) LIKE 'nccl%' OR lower(n.name) LIKE 'rccl%'
               OR n.name LIKE '%ncclKernel%' OR n.name LIKE '%ncclDevKernel%') AS is_comm
    FROM named AS n LEFT JOIN launch AS l ON {launch_on}
),
steps AS (
    -- this file's NVTX step ranges, as derive/010 makes steps of them
    SELECT TRY_CAST(regexp_extract(name, '#(\\d+)', 1) AS INTEGER) AS step,
           min(ts_ns) AS host_start_ns, max(ts_ns + coalesce(dur_ns, 0)) AS host_end_ns
    FROM event
    WHERE file_id = $file AND ph = 'X' AND name LIKE 'ProfilerStep#%'
    GROUP BY 1 HAVING step IS NOT NULL
),
by_launch AS (
    -- the step whose range holds the launch call (the latest range started at or before it)
    SELECT r.arow, CASE WHEN r.launch_ts_ns < s.host_end_ns THEN s.step END AS step
    FROM (SELECT arow, launch_ts_ns FROM rows WHERE launch_ts_ns IS NOT NULL) AS r
    ASOF JOIN steps AS s ON r.launch_ts_ns >= s.host_start_ns
),
by_window AS (
    -- no launch call: the last step whose range started at or before the kernel
    SELECT r.arow, s.step
    FROM (SELECT arow, ts_ns FROM rows WHERE launch_ts_ns IS NULL) AS r
    ASOF JOIN steps AS s ON r.ts_ns >= s.host_start_ns
)
SELECT $run AS run_id, $rank AS rank, $file AS file_id,
       row_number() OVER (ORDER BY r.start, r.kname, r.arow) AS kernel_id,
       coalesce(bl.step, bw.step) AS step, r.kname AS name,
       CASE WHEN r.kind = 'kernel' THEN coalesce(r.short_name, r.name) ELSE r.kname END AS op_type,
       CASE WHEN r.kind = 'memcpy' THEN 'MEMCPY' WHEN r.kind = 'memset' THEN 'MEMSET'
            WHEN r.is_comm THEN 'COMMUNICATION' ELSE 'KERNEL' END AS accelerator_core,
       r.device AS device_id, CAST(r.stream AS VARCHAR) AS stream_id,
       r.ts_ns, greatest(r."end" - r.start, 0) AS dur_ns, r.is_comm AS is_communication,
       r.grid_x, r.grid_y, r.grid_z, r.block_x, r.block_y, r.block_z,
       r.correlation AS correlation_id,
       r.launch_name, CAST(r.launch_tid AS VARCHAR) AS launch_tid, r.launch_ts_ns, r.launch_dur_ns,
       r.ckind AS copy_kind, CASE WHEN r.kind <> 'kernel' THEN r.bytes END AS size_bytes,
       m.src_label AS src_kind, m.dst_label AS dst_kind,
       'nsys' AS source
FROM rows AS r
LEFT JOIN by_launch AS bl USING (arow)
LEFT JOIN by_window AS bw USING (arow)
LEFT JOIN mem AS m USING (arow)
ORDER BY kernel_id
"""

# the step number: the pattern's first group, else the range's order among the matching ranges
_STEP_GROUP = "TRY_CAST(regexp_extract(text, $pattern, 1) AS INTEGER)"
_STEP_ORDER = ("CAST(row_number() OVER (PARTITION BY regexp_matches(text, $pattern) ORDER BY start, \"end\" DESC) "
               "AS INTEGER)")

_NVTX = """
INSERT INTO event
WITH e AS (
    -- inline text, else the registered string
    SELECT start, "end", event_type, coalesce(nullif(text, ''), nullif(text_id, '')) AS text,
           CASE WHEN global_tid IS NULL THEN NULL ELSE (global_tid >> 24) & 16777215 END AS pid,
           CASE WHEN global_tid IS NULL THEN NULL ELSE global_tid & 16777215 END AS tid
    FROM {p}nvtx
    WHERE event_type IN ({kept})
),
s AS (
    SELECT *, CASE WHEN event_type IN ({ranges})
                        AND "end" IS NOT NULL AND "end" >= start AND regexp_matches(text, $pattern)
                   THEN {number} END AS step
    FROM e
)
SELECT $run, $rank, $file,
       CASE WHEN event_type IN ({marks}) THEN 'i' ELSE 'X' END,
       CASE WHEN step IS NOT NULL THEN 'ProfilerStep#' || step ELSE text END,
       'nvtx', CAST(pid AS VARCHAR), CAST(tid AS VARCHAR), NULL, NULL,
       {epoch0} + start,
       CASE WHEN "end" IS NOT NULL AND "end" >= start AND event_type NOT IN
            ({marks}) THEN "end" - start END,
       NULL, NULL,
       CASE WHEN step IS NOT NULL THEN json_object('nvtx_text', text) END
FROM s
ORDER BY start
"""


def calls_sql(staged: str, cat: str, epoch0: int) -> str:
    """Host API calls (CUDA runtime / OS runtime: start, end, global_tid, name; staged as
    ``staged``) → event rows (ph X, cat ``cat``), with the thread's name."""
    return _CALLS.format(p=PREFIX, staged=staged, cat=cat, epoch0=int(epoch0))


def sched_sql(epoch0: int) -> str:
    """SCHED_EVENTS (staged as ``sched``) → thread_state: per thread, each event to the next one
    of the thread is an interval, running after a schedule-in, off CPU (with the state and
    reason the schedule-out recorded) after a schedule-out."""
    return _SCHED.format(p=PREFIX, epoch0=int(epoch0))


def kernels_sql(epoch0: int, has_pid: bool) -> str:
    """Kernel rows from the staged activity rows (``act``), with the launch call of each from
    the staged runtime rows (``rt``) and the step from this file's NVTX step ranges (already
    in ``event``); ``has_pid``: the activity rows carry globalPid."""
    key = "correlation, pid" if has_pid else "correlation"
    launch = _LAUNCH.format(p=PREFIX, key=key)
    launch_on = "l.correlation = n.correlation" + (" AND l.pid = n.pid" if has_pid else "")
    return _KERNELS.format(p=PREFIX, epoch0=int(epoch0), runtime=launch, launch_on=launch_on)


def nvtx_sql(epoch0: int, grouped: bool) -> str:
    """NVTX ranges and marks (staged as ``nvtx``) → event; step ranges renamed ProfilerStep#N
    (``grouped``: the step pattern has a group giving the number)."""
    return _NVTX.format(p=PREFIX, epoch0=int(epoch0), number=_STEP_GROUP if grouped else _STEP_ORDER,
                        ranges=_RANGES, marks=_MARKS, kept=f"{_RANGES}, {_MARKS}")
