"""The derive step: everything that needs two files, computed per (run, rank) after all of
that rank's files in the command, from the rows the readers wrote (``event``,
``kernel_details_parsed`` / ``kernel_details_raw``, ``step_trace_raw_row``, ``link``). The SQL
lives in ``derive/*.sql`` at the top of the repository (installed as ``tracedb/_derive``): the
numbered files of :data:`STEPS` run in order, each once for a whole set of ranks (the DuckDB
variable ``derive_ranks``, a list of ``{run_id, rank}``; the steps read it through
``derive_rank()``); each rebuilds its rows of those ranks (DELETE + INSERT), so the result does
not depend on the order the files arrived in, in one command or several, nor on how the ranks
are grouped. ``_session.sql`` holds the temporary macros and the staging table the readers and
the steps share.

A step's header may say when it has work (a step with nothing to do would still scan the
ranks' events): ``-- when-format: F …`` runs it only for the ranks with a file of one of these
formats (``source_file.format``, e.g. the Kineto steps only for ranks with a Kineto trace) and
``-- unless-format: F …`` only for the ranks with none of them (the formats of the ranks are
read once, not by one query per step); ``-- when: <query>`` only when that query returns true
over the ranks (for what an earlier step wrote). The steps stay correct when run without their
guards.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..engine import duckdb, execute
from ..resources import sql_dir
from ..store.schema import apply_schema


@dataclass(frozen=True)
class Step:
    """One numbered derive file and its guards (see the module docstring)."""
    name: str
    formats: frozenset[str] | None      # -- when-format: (None: any rank)
    not_formats: frozenset[str]         # -- unless-format:
    guard: str | None                   # -- when: query
    sql: str

    def applies(self, formats: set[str]) -> bool:
        """True if a rank with files of ``formats`` passes the format guards."""
        return (self.formats is None or bool(self.formats & formats)) and not self.not_formats & formats


def _header(sql: str, key: str) -> str | None:
    return next((line[len(key):].strip() for line in sql.splitlines() if line.startswith(key)), None)


# The steps, in the order they run: derive/{name}.sql. Named here, not found by listing the
# folder: pip builds in the source tree and setuptools packs all of its build/lib, so a
# checkout installed again after a step was renamed or removed ships the old file beside the
# new ones, and a listed folder ran both (tests/ingest/test_derive_steps.py checks this list
# against derive/).
STEPS = ("010_step", "015_step_from_ascend_db", "020_kernel_from_details", "030_kernel_from_trace",
         "031_kernel_copy_from_trace", "035_kernel_from_mindspore_timeline", "036_step_from_msprof_timeline",
         "040_kernel_from_kineto",
         "050_step_from_kernels", "060_link_from_trace", "070_link_hccl_trace_step", "075_comm_task",
         "080_memory_from_kineto", "090_rank_device", "091_device_label", "100_kernel_launch_kineto",
         "101_kernel_launch_npu", "110_op", "120_kernel_op_npu", "121_kernel_op_kineto", "122_op_kernel_count",
         "123_op_nsys", "124_host_range", "125_module", "126_op_msprof",
         "130_kernel_class", "131_gpu_side_kineto", "132_stream_event_launch", "140_op_shape", "141_precision")


@lru_cache(maxsize=1)
def _steps() -> tuple[Step, ...]:
    """The derive files of :data:`STEPS`, in order."""
    out = []
    for name in STEPS:
        sql = (sql_dir("derive") / f"{name}.sql").read_text()
        formats, not_formats = _header(sql, "-- when-format:"), _header(sql, "-- unless-format:")
        out.append(Step(name, None if formats is None else frozenset(formats.split()),
                        frozenset((not_formats or "").split()), _header(sql, "-- when:"), sql))
    return tuple(out)


@lru_cache(maxsize=1)
def _session_sql() -> str:
    return (sql_dir("derive") / "_session.sql").read_text()


def install_session(con: duckdb.DuckDBPyConnection) -> None:
    """Create the temporary macros and staging table of ``derive/_session.sql`` on this
    connection, and set ``asof_loop_join_threshold = 0`` on it (ASOF joins stay sorted merges).
    The setting is the connection's: a caller who passes its own connection keeps it after the
    ingest (it changes only how ASOF joins run, not their rows)."""
    execute(con, _session_sql())


def run(con: duckdb.DuckDBPyConnection, run_id: int, rank: int) -> None:
    """Rebuild the derived rows of (run_id, rank): steps, kernels, HCCL link tasks and their
    steps, Kineto memory events, the rank's device id (:func:`run_set` of one rank)."""
    run_set(con, [(run_id, rank)])


def run_set(con: duckdb.DuckDBPyConnection, ranks: list[tuple[int, int]]) -> None:
    """Rebuild the derived rows of every (run_id, rank) of ``ranks``: each step runs once, for
    the ranks its format guards let through (``-- when:`` guards: over those ranks)."""
    ranks = sorted({(int(r), int(k)) for r, k in ranks})
    if not ranks:
        return
    formats: dict[tuple[int, int], set[str]] = {key: set() for key in ranks}
    for run_id, rank, fmt in con.execute(
            "SELECT DISTINCT run_id, rank, format FROM source_file WHERE (run_id, rank) IN "
            "(SELECT unnest(?::STRUCT(run_id INTEGER, rank INTEGER)[], recursive := true))",
            [[{"run_id": r, "rank": k} for r, k in ranks]]).fetchall():
        formats[(run_id, rank)].add(fmt)
    current = None
    try:
        for step in _steps():
            subset = [key for key in ranks if step.applies(formats[key])]
            if not subset:
                continue
            if subset != current:
                _at(con, subset)
                current = subset
            if step.guard is None or execute(con, step.guard).fetchone()[0]:
                execute(con, step.sql)
    finally:
        _at(con, None)


def upgrade(con: duckdb.DuckDBPyConnection) -> bool:
    """Make the database's tables current (:func:`tracedb.store.schema.apply_schema`) and fill
    what a schema change added to the rows already there (:func:`fill_comm_task`). Returns True
    if the schema files ran."""
    if not apply_schema(con):
        return False
    fill_comm_task(con)     # link rows of a file written before link.plane_seq & co. existed
    return True


def fill_comm_task(con: duckdb.DuckDBPyConnection) -> int:
    """Set link.plane_seq, is_master_plane and the RDMA window columns (derive/075) for every
    rank whose op tasks lack them: the rows of a file written before those columns existed.
    Returns the number of ranks filled."""
    return _run_step(con, "075_", con.execute(
        "SELECT DISTINCT run_id, rank FROM link WHERE plane_seq IS NULL AND op_name IS NOT NULL "
        "AND op_ts_ns IS NOT NULL ORDER BY run_id, rank").fetchall())


def reclassify(con: duckdb.DuckDBPyConnection) -> int:
    """Apply ``kernel_class_rule`` again to every kernel in the file (derive/130 for every rank
    that has kernels), after a rule was added or changed; returns the number of ranks."""
    ranks = con.execute("SELECT DISTINCT run_id, rank FROM kernel ORDER BY run_id, rank").fetchall()
    con.execute("DELETE FROM kernel_rule_match WHERE (run_id, rank) NOT IN (SELECT DISTINCT run_id, rank FROM kernel)")
    return _run_step(con, "130_", ranks)


def _at(con: duckdb.DuckDBPyConnection, ranks: list[tuple[int, int]] | None) -> None:
    """Point the steps' ``derive_rank()`` at ``ranks`` (the variable ``derive_ranks``); None
    resets it (the variables run_id / rank a user sets in the shell apply again)."""
    if ranks is None:
        con.execute("RESET VARIABLE derive_ranks")
        return
    items = ", ".join(f"{{'run_id': {int(r)}, 'rank': {int(k)}}}" for r, k in ranks)
    con.execute(f"SET VARIABLE derive_ranks = [{items}]::STRUCT(run_id INTEGER, rank INTEGER)[]")


# ranks per statement of a step run for many ranks of the file (tracedb reclassify, the schema
# upgrade): a batch's rows fit the memory limit as one ingest batch's do
RANKS_PER_STEP = 16


def _run_step(con: duckdb.DuckDBPyConnection, prefix: str, ranks: list[tuple[int, int]]) -> int:
    """Run the one derive step whose name starts with ``prefix`` for the (run_id, rank) pairs of
    ``ranks`` (:data:`RANKS_PER_STEP` at a time), its guard aside; returns the number of ranks."""
    sql = next(step.sql for step in _steps() if step.name.startswith(prefix))
    try:
        for i in range(0, len(ranks), RANKS_PER_STEP):
            _at(con, ranks[i:i + RANKS_PER_STEP])
            execute(con, sql)
    finally:
        _at(con, None)
    return len(ranks)
