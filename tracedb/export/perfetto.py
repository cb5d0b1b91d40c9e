"""tracedb export --perfetto: one run/rank (optionally one step) as Chrome trace JSON.

The file opens in ui.perfetto.dev and chrome://tracing. DuckDB builds every line of it (string
building in SQL, written by one COPY); Python runs a handful of statements, never a loop over events.

Tracks:

* ``Device <device_id> (rank R)`` process, one thread per stream (``Stream 3``) from ``kernel``.
  Kernels on one stream that overlap (the Ascend trace's own problem, Ascend/pytorch #133) go to
  extra threads ``Stream 3 (overlap 1)``, ``(overlap 2)`` …, so that no track holds two slices
  that overlap (device streams run one task at a time: nothing needs to nest there); see
  ``_MOD_PASS`` for how lanes are chosen.
* ``Host (rank R)`` process, one thread per host thread, from ``op`` (framework ops nest on
  their thread: ``op.parent_op_id``); empty when ``op`` has no rows.
* ``tracedb findings (rank R)`` process: ``Steps`` (device window of each step), ``Free time
  (free_time)`` (one slice per row of view free_time) and ``Uncovered communication
  (uncovered_communication)`` (ops of that view with uncovered_ns > 0), each with lanes as above.

Timestamps: Chrome JSON ``ts``/``dur`` are microseconds; they are written as the exact decimal
text of the integer ns with 3 decimals (``1736408883704643.212``), never through a float, and
``displayTimeUnit`` is ``ns``. Each slice's args carry the key to find it again (kernel_id,
op_id, step).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..engine import duckdb
from ..errors import InputError

# exact µs text of an integer-ns expression (x): integer part, '.', 3 digits; sign kept
_US = ("(CASE WHEN ({x}) < 0 THEN '-' ELSE '' END || (abs({x}) // 1000)::VARCHAR || '.' || "
       "lpad((abs({x}) % 1000)::VARCHAR, 3, '0'))")


def us_text(expr: str) -> str:
    """SQL for the exact microsecond text (3 decimals) of an integer-ns SQL expression."""
    return _US.format(x=expr)


def _pick(con, run: str | None, rank: int | None, step: int | None) -> tuple[int, str, int]:
    runs = con.execute("SELECT run_id, run_name FROM main.run ORDER BY run_id").fetchall()
    if run is None:
        if len(runs) != 1:
            raise InputError("the database holds several runs: pass --run NAME.",
                             hint=f"runs: {', '.join(r[1] for r in runs)}.")
        run_id, run_name = runs[0]
    else:
        match = [r for r in runs if r[1] == run]
        if not match:
            raise InputError(f"no run named {run!r}.", hint=f"runs: {', '.join(r[1] for r in runs)}.")
        run_id, run_name = match[0]
    ranks = [r[0] for r in con.execute("SELECT rank FROM main.rank WHERE run_id = ? ORDER BY rank",
                                       [run_id]).fetchall()]
    if rank is None:
        if len(ranks) != 1:
            raise InputError(f"run {run_name} has {len(ranks)} ranks: pass --rank N (one rank per file).",
                             hint=f"ranks: {', '.join(map(str, ranks))}.")
        rank = ranks[0]
    elif rank not in ranks:
        raise InputError(f"run {run_name} has no rank {rank}.", hint=f"ranks: {', '.join(map(str, ranks))}.")
    if step is not None and not con.execute("SELECT 1 FROM main.step WHERE run_id = ? AND rank = ? AND step = ?",
                                            [run_id, rank, step]).fetchone():
        steps = [str(r[0]) for r in con.execute("SELECT step FROM main.step WHERE run_id = ? AND rank = ? "
                                                "ORDER BY step", [run_id, rank]).fetchall()]
        raise InputError(f"run {run_name} rank {rank} has no step {step}.",
                         hint=f"steps: {', '.join(steps) or 'none'}.")
    return run_id, run_name, rank


# Every slice of the export, before lanes: (pid, pname, track, lanes?, ts_ns, dur_ns, name, cat, args).
# $run_id, $rank, $run_name and the window ($h0,$h1 host, $d0,$d1 device; NULL without --step)
# are bound as parameters; "in_window" keeps a slice that overlaps the host or the device window.
_IN_WINDOW = """(getvariable('pf_step') IS NULL
   OR ({ts} <= getvariable('pf_h1') AND {ts} + {dur} >= getvariable('pf_h0'))
   OR ({ts} <= getvariable('pf_d1') AND {ts} + {dur} >= getvariable('pf_d0')))"""


def _in_window(ts: str, dur: str) -> str:
    return _IN_WINDOW.format(ts=ts, dur=dur)


_SLICES = f"""
CREATE OR REPLACE TEMP TABLE pf_slice AS
WITH dev AS (
    SELECT device_id, dense_rank() OVER (ORDER BY device_id NULLS LAST) AS n
    FROM (SELECT DISTINCT coalesce(k.device_id, r.device_id) AS device_id
          FROM main.kernel k LEFT JOIN main.rank r ON r.run_id = k.run_id AND r.rank = k.rank
          WHERE k.run_id = getvariable('pf_run') AND k.rank = getvariable('pf_rank'))
),
s AS (
    -- device kernels: one track per (device, stream)
    SELECT 100 + d.n AS pid,
           'Device ' || coalesce(d.device_id::VARCHAR, '?') || ' (rank ' || k.rank || ')' AS pname,
           coalesce('Stream ' || k.stream_id, 'Stream ? (no stream id)') AS track,
           2 AS track_order, TRUE AS lanes,
           k.ts_ns, k.dur_ns, coalesce(k.name, '?') AS name,
           CASE WHEN k.is_communication THEN 'communication' WHEN k.copy_kind IS NOT NULL THEN 'copy'
                ELSE 'kernel' END AS cat,
           json_object('kernel_id', k.kernel_id, 'stream', k.stream_id, 'step', k.step, 'op_type', k.op_type,
                       'accelerator_core', k.accelerator_core, 'op_id', k.op_id) AS args
    FROM main.kernel k
    LEFT JOIN main.rank r ON r.run_id = k.run_id AND r.rank = k.rank
    JOIN dev d ON d.device_id IS NOT DISTINCT FROM coalesce(k.device_id, r.device_id)
    WHERE k.run_id = getvariable('pf_run') AND k.rank = getvariable('pf_rank')
      AND {_in_window('k.ts_ns', 'k.dur_ns')}
    UNION ALL
    -- framework ops on host-thread tracks (nested by the op tree)
    SELECT 1, 'Host (rank ' || o.rank || ')', 'Thread ' || coalesce(o.tid, '?'), 1, FALSE,
           o.ts_ns, o.dur_ns, o.name, 'op',
           json_object('op_id', o.op_id, 'parent_op_id', o.parent_op_id, 'step', o.step,
                       'input_dims', o.input_dims, 'device_total_ns', o.device_total_ns)
    FROM main.op o
    WHERE o.run_id = getvariable('pf_run') AND o.rank = getvariable('pf_rank')
      AND {_in_window('o.ts_ns', 'o.dur_ns')}
    UNION ALL
    -- findings: steps, then the views' rows
    SELECT 2, 'tracedb findings (rank ' || st.rank || ')', 'Steps (device window)', 0, TRUE,
           st.device_start_ns, st.device_end_ns - st.device_start_ns, 'Step ' || st.step, 'step',
           json_object('step', st.step, 'host_start_ns', st.host_start_ns, 'host_end_ns', st.host_end_ns)
    FROM main.step st
    WHERE st.run_id = getvariable('pf_run') AND st.rank = getvariable('pf_rank')
      AND st.device_start_ns IS NOT NULL
      AND (getvariable('pf_step') IS NULL OR st.step = getvariable('pf_step'))
    UNION ALL
    SELECT 2, 'tracedb findings (rank ' || f.rank || ')', 'Free time (view free_time)', 1, TRUE,
           f.start_ns, f.dur_ns, 'free', 'free_time',
           json_object('step', f.step, 'kernel_before', f.kernel_before, 'kernel_after', f.kernel_after,
                       'dur_ns', f.dur_ns)
    FROM main.free_time f
    WHERE f.run_name = getvariable('pf_run_name') AND f.rank = getvariable('pf_rank')
      AND (getvariable('pf_step') IS NULL OR f.step = getvariable('pf_step'))
    UNION ALL
    SELECT 2, 'tracedb findings (rank ' || u.rank || ')',
           'Uncovered communication (view uncovered_communication)', 2, TRUE,
           u.start_ns, u.dur_ns, u.op_name, 'uncovered_communication',
           json_object('step', u.step, 'group_name', u.group_name, 'uncovered_ns', u.uncovered_ns,
                       'uncovered_self_ns', u.uncovered_self_ns, 'uncovered_ratio', u.uncovered_ratio)
    FROM main.uncovered_communication u
    WHERE u.run_name = getvariable('pf_run_name') AND u.rank = getvariable('pf_rank')
      AND u.uncovered_ns > 0
      AND (getvariable('pf_step') IS NULL OR u.step = getvariable('pf_step'))
)
SELECT row_number() OVER (ORDER BY pid, track, ts_ns, dur_ns DESC, name) AS id,
       *, CASE WHEN lanes THEN NULL ELSE 0 END::INTEGER AS lane
FROM s
"""

# Lanes: a track's slices that overlap without nesting go to extra lanes, so that no lane holds
# two overlapping slices (device streams run one task at a time: nothing needs to nest there).
# Slices are cut into islands (a new island starts at or after the end of every earlier slice).
# In an island where each slice overlaps at most m-1 of the slices that start after it, slice
# number i goes to lane i mod m: the slice m places later starts after it ended. That settles the
# usual case in one statement (Ascend #133: consecutive tasks that overlap by a little: m = 2).
_MOD_PASS = """
UPDATE pf_slice SET lane = $base + x.pos % x.m
FROM (
    WITH r AS (
        SELECT id, pid, track, ts_ns, ts_ns + dur_ns AS end_ns,
               row_number() OVER w AS rn,
               max(ts_ns + dur_ns) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
        FROM pf_slice WHERE lane IS NULL
        WINDOW w AS (PARTITION BY pid, track ORDER BY ts_ns, dur_ns DESC, id)
    ),
    starts AS (SELECT pid, track, ts_ns, min(rn) - 1 AS n_before FROM r GROUP BY ALL),   -- slices starting before ts_ns
    total AS (SELECT pid, track, count(*) AS n FROM r GROUP BY ALL),
    c AS (
        SELECT r.id, r.pid, r.track, r.rn,
               greatest(coalesce(s.n_before, t.n) - r.rn, 0) AS later_overlapping,
               sum(CASE WHEN r.prev_end IS NULL OR r.ts_ns >= r.prev_end THEN 1 ELSE 0 END)
                   OVER (PARTITION BY r.pid, r.track ORDER BY r.rn) AS island
        FROM r
        ASOF LEFT JOIN starts AS s ON s.pid = r.pid AND s.track = r.track AND s.ts_ns >= r.end_ns
        JOIN total AS t ON t.pid = r.pid AND t.track = r.track
    )
    SELECT id, rn - min(rn) OVER i AS pos, 1 + max(later_overlapping) OVER i AS m
    FROM c WINDOW i AS (PARTITION BY pid, track, island)
) AS x
WHERE pf_slice.id = x.id AND x.m <= $max_m
"""

# Islands with a long slice over many short ones (m large) go through greedy passes instead: a
# pass takes every slice that starts at or after the end of all earlier slices still without a lane.
_GREEDY_PASS = """
UPDATE pf_slice SET lane = $lane
WHERE id IN (
    SELECT id FROM (
        SELECT id, ts_ns,
               max(ts_ns + dur_ns) OVER (PARTITION BY pid, track ORDER BY ts_ns, dur_ns DESC, id
                                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
        FROM pf_slice WHERE lane IS NULL)
    WHERE prev_end IS NULL OR ts_ns >= prev_end)
"""

# lane numbers of a track as 0, 1, 2 … in the order they were made
_RENUMBER = """
UPDATE pf_slice SET lane = x.n
FROM (SELECT id, dense_rank() OVER (PARTITION BY pid, track ORDER BY lane) - 1 AS n FROM pf_slice) AS x
WHERE pf_slice.id = x.id
"""
SMALL_M, GREEDY_PASSES = 4, 8


def _assign_lanes(con) -> None:
    """Give every slice of pf_slice a lane (a few statements per export, none per slice)."""
    def left() -> int:
        return con.execute("SELECT count(*) FROM pf_slice WHERE lane IS NULL").fetchone()[0]

    con.execute(_MOD_PASS, {"base": 0, "max_m": SMALL_M})
    # the islands left are apart in time from those placed: their lanes count from 0 again
    lane = 0
    for _ in range(GREEDY_PASSES):
        if not left():
            break
        con.execute(_GREEDY_PASS, {"lane": lane})
        lane += 1
    if left():   # still overlapping after the passes: i mod m always fits, with as many lanes as it needs
        con.execute(_MOD_PASS, {"base": lane, "max_m": 2**62})
    con.execute(_RENUMBER)


_LINES = f"""
WITH t AS (
    SELECT pid, pname, track, track_order, lane,
           track || CASE WHEN lane > 0 THEN ' (overlap ' || lane || ')' ELSE '' END AS tname,
           dense_rank() OVER (ORDER BY pid, track_order, track, lane) AS tid
    FROM (SELECT DISTINCT pid, pname, track, track_order, lane FROM pf_slice)
),
ev AS (
    SELECT 0 AS part, pid AS k1, 0 AS k2, 0::BIGINT AS k3,
           json_object('ph', 'M', 'name', 'process_name', 'pid', pid, 'tid', 0,
                       'args', json_object('name', any_value(pname)))::VARCHAR AS line
    FROM t GROUP BY pid
    UNION ALL
    SELECT 0, pid, tid, 0,
           json_object('ph', 'M', 'name', 'thread_name', 'pid', pid, 'tid', tid, 'args', json_object('name', tname))
    FROM t
    UNION ALL
    SELECT 0, pid, tid, 1,
           json_object('ph', 'M', 'name', 'thread_sort_index', 'pid', pid, 'tid', tid, 'args',
                       json_object('sort_index', tid))
    FROM t
    UNION ALL
    SELECT 1, s.pid, t.tid, s.id,
           '{{"ph":"X","ts":' || {us_text('s.ts_ns')} || ',"dur":' || {us_text('s.dur_ns')} || ',' ||
           substr(json_object('pid', s.pid, 'tid', t.tid, 'name', s.name, 'cat', s.cat,
                              'args', s.args)::VARCHAR, 2)
    FROM pf_slice s JOIN t USING (pid, track, lane)
),
body AS (
    SELECT 1 AS sec, row_number() OVER (ORDER BY part, k1, k2, k3) AS n, line FROM ev
)
SELECT line FROM (
    SELECT 0 AS sec, 0 AS n,
           '{{"displayTimeUnit":"ns","otherData":' || getvariable('pf_meta') || ',"traceEvents":[' AS line
    UNION ALL
    SELECT sec, n, CASE WHEN n > 1 THEN ',' ELSE '' END || line FROM body
    UNION ALL
    SELECT 2, 0, ']}}'
) ORDER BY sec, n
"""


def export_perfetto(con: duckdb.DuckDBPyConnection, path: str | os.PathLike, run: str | None = None,
                    rank: int | None = None, step: int | None = None) -> dict[str, int]:
    """Write one run/rank (optionally one step window) as Chrome trace JSON to ``path``.

    The step window is the step's host window ∪ its device window: a slice is kept when it
    overlaps either; free_time / uncovered_communication rows are those of the step.
    Returns slices written per category plus ``tracks``. The file is written next to ``path``
    and renamed into place, so a failure leaves no half-written file.
    """
    out = Path(path)
    if not out.parent.is_dir() or out.is_dir():
        raise InputError(f"cannot write {out}: " + ("it is a folder." if out.is_dir() else
                                                    f"the folder {out.parent} does not exist."))
    run_id, run_name, rank = _pick(con, run, rank, step)
    window = (None,) * 4
    if step is not None:
        window = con.execute("SELECT host_start_ns, host_end_ns, device_start_ns, device_end_ns FROM main.step "
                             "WHERE run_id = ? AND rank = ? AND step = ?", [run_id, rank, step]).fetchone()
    for name, value in (("pf_run", run_id), ("pf_run_name", run_name), ("pf_rank", rank), ("pf_step", step),
                        ("pf_h0", window[0]), ("pf_h1", window[1]), ("pf_d0", window[2]), ("pf_d1", window[3])):
        con.execute(f"SET VARIABLE {name} = ?", [value])
    con.execute(_SLICES)
    _assign_lanes(con)
    counts = dict(con.execute("SELECT cat, count(*) FROM pf_slice GROUP BY cat ORDER BY cat").fetchall())
    counts["tracks"] = con.execute("SELECT count(*) FROM (SELECT DISTINCT pid, track, lane FROM pf_slice)"
                                   ).fetchone()[0]
    tmp = out.with_name(out.name + ".tmp")
    meta = {"source": "tracedb export --perfetto", "run": run_name, "rank": rank, "step": step}
    con.execute("SET VARIABLE pf_meta = ?", [_json(meta)])
    try:
        con.execute(f"COPY ({_LINES}) TO '{_sql_str(str(tmp))}' "
                    "(FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\x1f')")
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()
        con.execute("DROP TABLE IF EXISTS pf_slice")
    return counts


def _sql_str(s: str) -> str:
    return s.replace("'", "''")


def _json(obj) -> str:
    return json.dumps(obj)
