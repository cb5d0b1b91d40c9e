"""The alignment's storage: the two runs' ops and modules read from the database, the pairs
of :mod:`tracedb.compare.align` written into ``op_match`` / ``module_match``.

Ranks are paired in rank order (i-th baseline rank with i-th comparison rank; a rank without a
partner gives unmatched rows). The views (op_alignment, op_diff, module_alignment, …) are SQL
over these tables.
"""
from __future__ import annotations

from itertools import zip_longest
from typing import Callable

from .. import lazy
from ..engine import duckdb
from ..store.db import transaction
from .align import Module, Op, align_modules, align_ops

NUMPY_ROWS = 10_000      # alignment rows from which insert_match loads NumPy


# the op tree the alignment walks (tracedb compare --top-level): (top-level flag, parent, kernel
# count) columns of tracedb_internal.compare_op
TOP_LEVELS = {
    # tracedb's: per host thread, the children of ProfilerStep#N and the roots outside steps
    "thread": ("is_top", "parent_op_id", "kernel_total_count"),
    # msprof-analyze's: one tree over every host thread (an op inside another thread's
    # "## backward ##" annotation is not top level), with its kernel_num
    "msprof": ("is_top_msprof", "msprof_parent_op_id", "msprof_kernel_total_count"),
}


def load_ops(con: duckdb.DuckDBPyConnection, run_id: int, use_input_shape: bool,
             all_levels: bool, top_level: str = "thread") -> dict[int, list[Op]]:
    """Top-level ops per rank, sorted by start (children attached when ``all_levels``); with
    ``all_levels`` only the ops under a top-level op. ``top_level`` picks the op tree
    (:data:`TOP_LEVELS`)."""
    is_top, parent_col, kernels = TOP_LEVELS[top_level]
    key = "concat(op_key, input_dims)" if use_input_shape else "op_key"
    rows = con.execute(f"""
        SELECT rank, op_id, coalesce({parent_col}, -1) AS parent, {key} AS k,
               CASE WHEN is_backward IS NULL THEN -1 ELSE is_backward::INT END AS bwd,
               {kernels} AS kernels, {is_top} AS is_top
        FROM tracedb_internal.compare_op
        WHERE run_id = ? {'' if all_levels else f'AND {is_top}'}
        ORDER BY rank, ts_ns, op_id
    """, [run_id]).fetchall()
    top: dict[int, list[Op]] = {}
    ops: dict[tuple[int, int], Op] = {}
    for rank, op_id, parent, k, bwd, n, is_top in rows:
        op = Op(op_id, rank, k, None if bwd < 0 else bool(bwd), n)
        ranked = top.setdefault(rank, [])       # every rank with ops has its list
        if is_top:
            ranked.append(op)
        elif parent >= 0 and (p := ops.get((rank, parent))) is not None:
            p.children.append(op)          # rows are in start order, so a parent comes first
        if all_levels:
            ops[(rank, op_id)] = op
    return top


def load_modules(con: duckdb.DuckDBPyConnection, run_id: int) -> dict[int, list[list[Module]]]:
    """Per rank, the top modules of its forward tree and of its backward tree
    (``tracedb_internal.compare_module``: the module path after ``op_name_map``, the
    ``compare_step`` steps only), children attached, all in start order; a module whose parent
    is left out is a top module."""
    rows = con.execute("""
        SELECT rank, module_id, coalesce(parent_module_id, -1) AS parent, (kind = 'backward')::INT AS bwd,
               module_key AS k, ts_ns
        FROM tracedb_internal.compare_module
        WHERE run_id = ?
        ORDER BY rank, ts_ns, module_id
    """, [run_id]).fetchall()
    trees: dict[int, list[list[Module]]] = {}
    seen: dict[tuple[int, int], Module] = {}
    for rank, module_id, parent, bwd, k, ts in rows:
        m = Module(module_id, rank, k, ts)
        seen[(rank, module_id)] = m
        if (p := seen.get((rank, parent))) is not None:
            p.children.append(m)           # rows are in start order, so a parent comes first
        else:
            trees.setdefault(rank, [[], []])[bwd].append(m)
    return trees


def insert_match(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple]) -> None:
    """Append alignment rows (baseline_run_id, comparison_run_id, order_id, baseline_rank,
    baseline id, comparison_rank, comparison id[, match_key]) to op_match / module_match in one
    statement: as list parameters when they are few, as NumPy columns (one scan) when many. List
    parameters cost ~4 µs a row to convert, the NumPy import ~0.05 s: below :data:`NUMPY_ROWS`
    rows the lists are faster."""
    cols = list(zip(*rows))
    key, key_col = ("", "") if len(cols) < 8 else (", match_key", ", unnest($k::VARCHAR[])")
    if len(rows) < NUMPY_ROWS:
        con.execute(f"""INSERT INTO {table}
                        SELECT $b, $c, unnest($o::BIGINT[]), unnest($br::INTEGER[]), unnest($bi::BIGINT[]),
                               unnest($cr::INTEGER[]), unnest($ci::BIGINT[]){key_col}""",
                    {"b": rows[0][0], "c": rows[0][1], "o": list(cols[2]), "br": list(cols[3]),
                     "bi": list(cols[4]), "cr": list(cols[5]), "ci": list(cols[6]),
                     **({"k": list(cols[7])} if key else {})})
        return
    np = lazy.np

    def ints(values):
        return np.array([-1 if v is None else v for v in values], np.int64)

    _match_rows = {"order_id": np.array(cols[2], np.int64), "b_rank": ints(cols[3]),  # noqa: F841 — read by name
                   "b_id": ints(cols[4]), "c_rank": ints(cols[5]), "c_id": ints(cols[6])}
    if key:
        _match_rows["match_key"] = np.array(cols[7], dtype=object)
    con.execute(f"""INSERT INTO {table}
                    SELECT ?, ?, order_id, nullif(b_rank, -1), nullif(b_id, -1), nullif(c_rank, -1),
                           nullif(c_id, -1){key}
                    FROM _match_rows""", [rows[0][0], rows[0][1]])


def align(con: duckdb.DuckDBPyConnection, baseline_run_id: int, comparison_run_id: int, *,
          use_input_shape: bool = False, max_kernel_num: int | None = None, top_level: str = "thread") -> int:
    """Align the two runs' ops and replace their ``op_match`` rows (inside the caller's
    transaction). ``top_level``: whose top-level ops are aligned, tracedb's per host thread
    (``thread``) or msprof-analyze's over all threads (``msprof``), see :data:`TOP_LEVELS`.
    Returns the number of rows written."""
    deep = max_kernel_num is not None
    base = load_ops(con, baseline_run_id, use_input_shape, deep, top_level)
    comp = load_ops(con, comparison_run_id, use_input_shape, deep, top_level)
    rows = []
    order = 0
    for b_rank, c_rank in zip_longest(sorted(base), sorted(comp)):
        pairs = align_ops(base.get(b_rank, []) if b_rank is not None else [],
                          comp.get(c_rank, []) if c_rank is not None else [], max_kernel_num)
        for b, c in pairs:
            order += 1
            rows.append((baseline_run_id, comparison_run_id, order,
                         b.rank if b else None, b.op_id if b else None,
                         c.rank if c else None, c.op_id if c else None,
                         b.key if b and c else None))
    con.execute("DELETE FROM op_match WHERE (baseline_run_id = ? AND comparison_run_id = ?) "
                "OR baseline_run_id NOT IN (SELECT run_id FROM run) "
                "OR comparison_run_id NOT IN (SELECT run_id FROM run)", [baseline_run_id, comparison_run_id])
    if rows:
        insert_match(con, "op_match", rows)
    store_module_match(con, baseline_run_id, comparison_run_id)
    return len(rows)


def store_module_match(con: duckdb.DuckDBPyConnection, baseline_run_id: int, comparison_run_id: int) -> int:
    """Align the two runs' module trees (:func:`align_modules`, ranks paired in rank order) and
    replace their ``module_match`` rows. Returns the number of rows written; 0 without writing in
    a database an earlier tracedb wrote (no ``module`` / ``module_match`` table: ``tracedb compare``
    of two run names does not change its schema, and its ranks have no modules until ingested
    again)."""
    if con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
                   "AND schema_name = 'main' AND table_name IN ('module', 'module_match')").fetchone()[0] < 2:
        return 0
    base, comp = load_modules(con, baseline_run_id), load_modules(con, comparison_run_id)
    rows = []
    for b_rank, c_rank in zip_longest(sorted(base), sorted(comp)):
        for b, c in align_modules(base.get(b_rank, [[], []]), comp.get(c_rank, [[], []])):
            rows.append((baseline_run_id, comparison_run_id, len(rows) + 1, b.rank if b else None,
                         b.module_id if b else None, c.rank if c else None, c.module_id if c else None))
    con.execute("DELETE FROM module_match WHERE (baseline_run_id = ? AND comparison_run_id = ?) "
                "OR baseline_run_id NOT IN (SELECT run_id FROM run) "
                "OR comparison_run_id NOT IN (SELECT run_id FROM run)", [baseline_run_id, comparison_run_id])
    if rows:
        insert_match(con, "module_match", rows)
    return len(rows)


def align_role_pair(con: duckdb.DuckDBPyConnection, progress: Callable[[str], None] = lambda s: None) -> int | None:
    """Rebuild ``op_match`` for the pair the roles name (the runs with role ``baseline`` and
    ``comparison``), with the default settings (names alone, top-level ops), in a transaction of
    its own. Called after ``tracedb ingest --role`` commits, so the op_alignment of a pair set up
    by two ingests is there without ``tracedb compare``. Returns the rows written, or None when
    the roles do not name two runs.

    A failure leaves the ingest (already committed) and ``op_match`` as they were and is told
    through ``progress``: the ingest succeeded, only its alignment did not.
    """
    ids = dict(con.execute("SELECT role, run_id FROM run WHERE role IN ('baseline', 'comparison')").fetchall())
    if len(ids) != 2 or ids["baseline"] == ids["comparison"]:
        return None
    try:
        with transaction(con):
            n = align(con, ids["baseline"], ids["comparison"])
    except duckdb.Error as e:
        progress(f"note: the op alignment of the baseline/comparison pair failed ({str(e).splitlines()[0]}); "
                 "tracedb compare BASELINE COMPARISON builds it")
        return None
    progress(f"aligned the baseline and comparison runs' ops: {n:,} op_alignment rows (tracedb query op_alignment)")
    return n


