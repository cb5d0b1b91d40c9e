"""``tracedb compare``: set the baseline/comparison pair, align their framework ops, return the views.

The alignment is msprof-analyze's (``compare_backend/data_prepare/sequence_pre_matching.py``,
``utils/common_func.py``, ``utils/name_function.py``), applied to tracedb's ``op`` table:

1. the ops compared are the top-level ops of each rank (children of ``ProfilerStep#N`` and ops
   outside every step; only the steps of ``compare_step`` when a step is chosen), by start time;
2. when both runs know their autograd thread (``op.is_backward`` not NULL), each side is cut into
   maximal runs of backward / non-backward ops, and the runs are paired in order (if the first
   runs differ in kind, the first run of the side with more runs is emitted unmatched);
3. each pair of runs is aligned with ``difflib.SequenceMatcher(None, a, b, autojunk=False)`` on
   a key per op: the op name after ``op_name_map`` (+ ``op.input_dims`` with --use-input-shape);
   the gaps between matching blocks become ``(op, None)`` / ``(None, op)`` rows;
4. with --max-kernel-num K, a matched pair whose both ops have children and whose larger kernel
   count (kernels of the subtree) exceeds K is replaced by the alignment of their children,
   recursively, in place.

Ranks are paired in rank order (i-th baseline rank with i-th comparison rank; a rank without a
partner gives unmatched rows). The pairs are stored in ``op_match``; the views are SQL over it.
The module trees (table ``module``) are aligned with the same matcher (:func:`align_modules`)
into ``module_match`` whenever the ops are.
Everything else is SQL: this module only runs the sequence matcher, which needs an algorithm.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from collections import deque
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from itertools import zip_longest
from pathlib import Path
from typing import Callable, Sequence

from .db import duckdb, transaction   # duckdb: the engine module, see tracedb.db
from .errors import QueryError, TracedbError, out_of_memory

NUMPY_ROWS = 10_000      # alignment rows from which _insert_match loads NumPy


@dataclass
class _Op:
    op_id: int
    rank: int
    key: str
    is_backward: bool | None
    kernels: int
    children: list = field(default_factory=list)


def _load(con: duckdb.DuckDBPyConnection, run_id: int, use_input_shape: bool,
          all_levels: bool) -> dict[int, list[_Op]]:
    """Top-level ops per rank, sorted by start (children attached when ``all_levels``); with
    ``all_levels`` only the ops under a top-level op."""
    key = "concat(op_key, input_dims)" if use_input_shape else "op_key"
    rows = con.execute(f"""
        SELECT rank, op_id, coalesce(parent_op_id, -1) AS parent, {key} AS k,
               CASE WHEN is_backward IS NULL THEN -1 ELSE is_backward::INT END AS bwd,
               kernel_total_count AS kernels, is_top
        FROM tracedb_internal.compare_op
        WHERE run_id = ? {'' if all_levels else 'AND is_top'}
        ORDER BY rank, ts_ns, op_id
    """, [run_id]).fetchall()
    top: dict[int, list[_Op]] = {}
    ops: dict[tuple[int, int], _Op] = {}
    for rank, op_id, parent, k, bwd, n, is_top in rows:
        op = _Op(op_id, rank, k, None if bwd < 0 else bool(bwd), n)
        ranked = top.setdefault(rank, [])       # every rank with ops has its list
        if is_top:
            ranked.append(op)
        elif parent >= 0 and (p := ops.get((rank, parent))) is not None:
            p.children.append(op)          # rows are in start order, so a parent comes first
        if all_levels:
            ops[(rank, op_id)] = op
    return top


@dataclass
class _Module:
    module_id: int
    rank: int
    key: str
    ts_ns: int
    children: list = field(default_factory=list)


def _load_modules(con: duckdb.DuckDBPyConnection, run_id: int) -> dict[int, list[list[_Module]]]:
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
    trees: dict[int, list[list[_Module]]] = {}
    seen: dict[tuple[int, int], _Module] = {}
    for rank, module_id, parent, bwd, k, ts in rows:
        m = _Module(module_id, rank, k, ts)
        seen[(rank, module_id)] = m
        if (p := seen.get((rank, parent))) is not None:
            p.children.append(m)           # rows are in start order, so a parent comes first
        else:
            trees.setdefault(rank, [[], []])[bwd].append(m)
    return trees


def align_modules(base: list[list[_Module]], comp: list[list[_Module]]) -> list:
    """msprof-analyze's module alignment (``_match_nn_module``, ``ModuleComparator``): per tree
    (forward, then backward), breadth first from the tops, the children of each pair are
    aligned as ``longest_common_subsequence_matching`` aligns them (a module one side lacks
    pairs with None, and its children with None in turn); the pairs are then ordered by the
    baseline module's start, each comparison-only module placed before the first pair whose
    comparison module starts after it."""
    pairs = []
    for b_top, c_top in zip(base, comp):
        queue = deque([(b_top, c_top)])
        while queue:
            b_children, c_children = queue.popleft()
            if not b_children and not c_children:
                continue
            for b, c in _lcs_match(b_children, c_children):
                pairs.append((b, c))
                queue.append((b.children if b else [], c.children if c else []))
    based = sorted((p for p in pairs if p[0] is not None), key=lambda p: p[0].ts_ns)
    alone = sorted((p for p in pairs if p[0] is None), key=lambda p: p[1].ts_ns)
    out, i = [], 0
    for b, c in based:
        while c is not None and i < len(alone) and alone[i][1].ts_ns < c.ts_ns:
            out.append(alone[i])
            i += 1
        out.append((b, c))
    return out + alone[i:]


_P1, _P2 = 2_147_483_647, 2_147_483_629          # primes < 2**31: products stay below 2**62
_B1, _B2 = 1_000_003, 998_244_353 % _P2


class _Matcher(SequenceMatcher):
    """``difflib.SequenceMatcher(None, a, b, autojunk=False)`` with the same matching blocks,
    found faster on long sequences.

    difflib's ``find_longest_match`` visits every pair of equal items in the window: on two
    9 000-op sequences of 18 op names that is ~11 M dictionary probes per call, quadratic in
    the length, and most of ``tracedb compare`` on a 20 MB pair. Without junk its answer is
    the longest common substring of ``a[alo:ahi]`` and ``b[blo:bhi]``; of several, the one
    starting first in ``a``, then first in ``b`` (its scan keeps the first block that reaches
    the longest length, scanning ``a`` then ``b`` in order). Here the length is found by a
    binary search on "some substring of length L of the ``a`` window occurs in the ``b``
    window" (monotone in L), each test a vectorised set membership of polynomial hashes of all
    L-long substrings (two moduli, so a collision needs both to collide); the chosen block is
    then compared item by item, and if it is not equal (a hash collision) the window falls
    back to difflib's scan (:meth:`_scan`). Small windows use that scan directly. ``get_matching_blocks``
    is difflib's, unchanged.
    """

    SMALL = 5_000          # window area (len a × len b) below which the scan is cheaper

    def __init__(self, a: list, b: list):
        super().__init__(None, a, b, autojunk=False)
        import numpy as np
        self._caps: dict[tuple[int, int, int, int], int] = {}
        codes: dict = {}
        self._ca = np.fromiter((codes.setdefault(x, len(codes) + 1) for x in a), np.int64, len(a))
        self._cb = np.fromiter((codes.setdefault(x, len(codes) + 1) for x in b), np.int64, len(b))
        self._ha = [self._prefix(self._ca, p, base) for p, base in ((_P1, _B1), (_P2, _B2))]
        self._hb = [self._prefix(self._cb, p, base) for p, base in ((_P1, _B1), (_P2, _B2))]
        n = max(len(a), len(b)) + 1
        self._pow = []
        for p, base in ((_P1, _B1), (_P2, _B2)):
            pw = np.empty(n, np.int64)
            pw[0] = 1
            for k in range(1, n):          # n ≤ ops per rank; once per matcher
                pw[k] = pw[k - 1] * base % p
            self._pow.append(pw)

    @staticmethod
    def _prefix(codes, p: int, base: int):
        import numpy as np
        h = np.zeros(len(codes) + 1, np.int64)
        acc = 0
        for k, c in enumerate(codes.tolist(), 1):
            acc = (acc * base + c) % p
            h[k] = acc
        return h

    def _keys(self, h, lo: int, hi: int, length: int):
        """Hash of every substring of length ``length`` starting in [lo, hi - length]."""
        import numpy as np
        starts = np.arange(lo, hi - length + 1)
        out = None
        for (pref, p, pw) in ((h[0], _P1, self._pow[0]), (h[1], _P2, self._pow[1])):
            v = (pref[starts + length] - pref[starts] * pw[length] % p) % p
            out = v if out is None else out * _P2 + v
        return out

    def _scan(self, alo: int, ahi: int, blo: int, bhi: int):
        """difflib's scan (no junk), with each item's positions in ``b`` entered by bisection:
        difflib walks them from the start of ``b``, which costs more than the window itself
        once the recursion reaches the end of a long ``b``."""
        from bisect import bisect_left
        from difflib import Match
        a, b2j = self.a, self.b2j
        besti, bestj, bestsize = alo, blo, 0
        j2len: dict = {}
        for i in range(alo, ahi):
            new: dict = {}
            where = b2j.get(a[i], ())
            for x in range(bisect_left(where, blo), len(where)):
                j = where[x]
                if j >= bhi:
                    break
                k = new[j] = j2len.get(j - 1, 0) + 1
                if k > bestsize:
                    besti, bestj, bestsize = i - k + 1, j - k + 1, k
            j2len = new
        return Match(besti, bestj, bestsize)

    def find_longest_match(self, alo=0, ahi=None, blo=0, bhi=None):
        import numpy as np
        from difflib import Match
        ahi = len(self.a) if ahi is None else ahi
        bhi = len(self.b) if bhi is None else bhi
        if (ahi - alo) * (bhi - blo) < self.SMALL:
            return self._scan(alo, ahi, blo, bhi)
        # a window inside the one of an earlier match holds no longer match than that one
        cap = self._caps.pop((alo, ahi, blo, bhi), None)
        top = min(ahi - alo, bhi - blo, ahi - alo if cap is None else cap)
        capped = cap is not None
        lo, hi, found = 0, top, None        # a common substring of length lo exists, none longer than hi

        def test(length):
            ka = self._keys(self._ha, alo, ahi, length)
            kb = self._keys(self._hb, blo, bhi, length)
            hit = np.isin(ka, kb)
            return (ka, kb, hit) if hit.any() else None

        step = 1                            # gallop up (the longest block is short in most windows) ...
        if capped and hi > 1:               # the enclosing match's length is the likeliest
            if (t := test(hi)) is not None:
                lo, found = hi, t
            else:
                hi -= 1
        while lo < hi:
            mid = min(lo + step, hi)
            if (t := test(mid)) is None:
                hi = mid - 1
                break
            lo, found, step = mid, t, step * 2
        while lo < hi:                      # ... then bisect
            mid = (lo + hi + 1) // 2
            if (t := test(mid)) is None:
                hi = mid - 1
            else:
                lo, found = mid, t
        if lo == 0:
            return Match(alo, blo, 0)
        ka, kb, hit = found
        i = int(np.argmax(hit))
        j = int(np.argmax(kb == ka[i]))
        i, j = alo + i, blo + j
        if not np.array_equal(self._ca[i:i + lo], self._cb[j:j + lo]):   # a hash collision
            return self._scan(alo, ahi, blo, bhi)
        # the two windows difflib's get_matching_blocks searches next
        self._caps[(alo, i, blo, j)] = self._caps[(i + lo, ahi, j + lo, bhi)] = lo
        return Match(i, j, lo)


def _lcs_match(base: list, comp: list) -> list[tuple]:
    """msprof-analyze ``longest_common_subsequence_matching`` of two lists of ops or modules
    (their ``key``). The same keys on both sides are one matching block; short lists go to
    difflib itself (the hashed search pays off on long ones: its set-up is most of the time of
    the thousands of two-or-three-child lists a module tree has)."""
    a, b = [o.key for o in base], [o.key for o in comp]
    if a == b:
        return list(zip(base, comp))
    matcher = SequenceMatcher(None, a, b, autojunk=False) if len(a) * len(b) <= 4096 else _Matcher(a, b)
    out: list[tuple] = []
    i = j = 0
    for block in matcher.get_matching_blocks():
        while i < block.a:
            out.append((base[i], None))
            i += 1
        while j < block.b:
            out.append((None, comp[j]))
            j += 1
        for k in range(block.size):
            out.append((base[i + k], comp[j + k]))
        i += block.size
        j += block.size
    out += [(o, None) for o in base[i:]]
    out += [(None, o) for o in comp[j:]]
    return out


def _match(base: list[_Op], comp: list[_Op], max_kernel_num: int | None) -> list:
    """``_match_torch_op``: the alignment, drilled down where a pair has too many kernels."""
    if not base and not comp:
        return []
    result = _lcs_match(base, comp)
    if max_kernel_num is None:
        return result
    out = []
    todo = deque(reversed(result))
    while todo:
        b, c = todo.pop()
        if b is None or c is None or not b.children or not c.children \
                or max(b.kernels, c.kernels) <= max_kernel_num:
            out.append((b, c))
            continue
        todo.extend(reversed(_lcs_match(b.children, c.children)))
    return out


def _segments(ops: list[_Op]) -> list[tuple[bool, list[_Op]]]:
    """Maximal runs of backward / other ops (``_split_operator_data``)."""
    out: list[tuple[bool, list[_Op]]] = []
    for op in ops:
        bwd = bool(op.is_backward)
        if out and out[-1][0] == bwd:
            out[-1][1].append(op)
        else:
            out.append((bwd, [op]))
    return out


def align_ops(base: list[_Op], comp: list[_Op], max_kernel_num: int | None = None) -> list:
    """The aligned pairs of two ranks' top-level ops (SequencePreMatching.run, op mode)."""
    if any(o.is_backward is None for o in base) or any(o.is_backward is None for o in comp) \
            or not base or not comp:
        return _match(base, comp, max_kernel_num)
    bs, cs = _segments(base), _segments(comp)
    out = []
    bi = ci = 0
    if bs[0][0] != cs[0][0]:
        if len(bs) > len(cs):
            out += _match(bs[0][1], [], max_kernel_num)
            bi = 1
        else:
            out += _match([], cs[0][1], max_kernel_num)
            ci = 1
    while bi < len(bs):
        out += _match(bs[bi][1], cs[ci][1] if ci < len(cs) else [], max_kernel_num)
        bi += 1
        ci += 1
    while ci < len(cs):
        out += _match([], cs[ci][1], max_kernel_num)
        ci += 1
    return out


def _insert_match(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple]) -> None:
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
    import numpy as np

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
          use_input_shape: bool = False, max_kernel_num: int | None = None) -> int:
    """Align the two runs' ops and replace their ``op_match`` rows (inside the caller's
    transaction). Returns the number of rows written."""
    deep = max_kernel_num is not None
    base = _load(con, baseline_run_id, use_input_shape, deep)
    comp = _load(con, comparison_run_id, use_input_shape, deep)
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
        _insert_match(con, "op_match", rows)
    _store_module_match(con, baseline_run_id, comparison_run_id)
    return len(rows)


def _store_module_match(con: duckdb.DuckDBPyConnection, baseline_run_id: int, comparison_run_id: int) -> int:
    """Align the two runs' module trees (:func:`align_modules`, ranks paired in rank order) and
    replace their ``module_match`` rows. Returns the number of rows written; 0 without writing in
    a database an earlier tracedb wrote (no ``module`` / ``module_match`` table: ``tracedb compare``
    of two run names does not change its schema, and its ranks have no modules until ingested
    again)."""
    if con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
                   "AND schema_name = 'main' AND table_name IN ('module', 'module_match')").fetchone()[0] < 2:
        return 0
    base, comp = _load_modules(con, baseline_run_id), _load_modules(con, comparison_run_id)
    rows = []
    for b_rank, c_rank in zip_longest(sorted(base), sorted(comp)):
        for b, c in align_modules(base.get(b_rank, [[], []]), comp.get(c_rank, [[], []])):
            rows.append((baseline_run_id, comparison_run_id, len(rows) + 1, b.rank if b else None,
                         b.module_id if b else None, c.rank if c else None, c.module_id if c else None))
    con.execute("DELETE FROM module_match WHERE (baseline_run_id = ? AND comparison_run_id = ?) "
                "OR baseline_run_id NOT IN (SELECT run_id FROM run) "
                "OR comparison_run_id NOT IN (SELECT run_id FROM run)", [baseline_run_id, comparison_run_id])
    if rows:
        _insert_match(con, "module_match", rows)
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


# ---- the compare command -----------------------------------------------------------------------

def parse_name_map(pairs: Sequence[str] = (), path: str | None = None) -> list[tuple[str, str]]:
    """``A=B`` items (from --op-name-map and the lines of --op-name-map-file; blank lines and
    ``#`` comments skipped) as (baseline_name, comparison_name).

    >>> parse_name_map(["Optimizer.step#SGD.step=Optimizer.step#NpuFusedSGD.step"])
    [('Optimizer.step#SGD.step', 'Optimizer.step#NpuFusedSGD.step')]
    """
    items = [(p, "--op-name-map", None) for p in pairs]
    if path is not None:
        try:
            text = Path(path).read_text()
        except OSError as e:
            raise TracedbError(f"cannot read the op name map: {e.strerror}.", file=path) from e
        items += [(line.strip(), path, n) for n, line in enumerate(text.splitlines(), 1)
                  if line.strip() and not line.strip().startswith("#")]
    out = []
    for item, where, line in items:
        a, sep, b = item.partition("=")
        if not sep or not a.strip() or not b.strip():
            raise TracedbError(f"op name map entry {item!r} is not BASELINE_NAME=COMPARISON_NAME.",
                               file=where if line else None, place=f"line {line}" if line else None,
                               hint="e.g. --op-name-map 'Optimizer.step#SGD.step=Optimizer.step#NpuFusedSGD.step'")
        out.append((a.strip(), b.strip()))
    return out


@dataclass
class CompareReport:
    baseline: str
    comparison: str
    pairs: int
    matched: int
    sections: list = field(default_factory=list)     # (view name, columns, rows)


def _side_name(arg: str) -> tuple[str, bool]:
    """(run name, is a path): a path that exists is ingested under its default run name (the
    folder name)."""
    if not os.path.exists(arg):
        return arg, False
    from .api import ingest_package
    ingest_package()
    from .ingest.detect import detect
    return detect(Path(arg)).default_name, True


def _overall(cur: duckdb.DuckDBPyConnection, baseline: str, comparison: str) -> list:
    """overall_comparison of the two runs (when installed) as a report section: the view's
    own rows, through its macro (the view picks the runs by role)."""
    if not cur.execute("SELECT 1 FROM tracedb_object WHERE name = 'overall_comparison'").fetchone():
        return []
    cur.execute("SELECT * FROM overall_comparison_between(?, ?)", [baseline, comparison])
    return [("overall_comparison", [d[0] for d in cur.description], cur.fetchall())]


def _settle_pair(con: duckdb.DuckDBPyConnection, ids: dict[str, int], b_name: str, c_name: str,
                 name_map: Sequence[tuple[str, str]], baseline_step: int | None, comparison_step: int | None,
                 use_input_shape: bool, max_kernel_num: int | None) -> int:
    """Roles, name map, steps and alignment of the pair, in one transaction; returns the
    alignment's rows.

    Raises:
        QueryError: a step the run does not have (nothing written).
    """
    with transaction(con):
        for role, run_id in (("baseline", ids["BASELINE"]), ("comparison", ids["COMPARISON"])):
            con.execute("UPDATE run SET role = NULL WHERE role = ? AND run_id <> ?", [role, run_id])
            con.execute("UPDATE run SET role = ? WHERE run_id = ?", [role, run_id])
        for a, b in name_map:
            con.execute("DELETE FROM op_name_map WHERE baseline_name = ?", [a])
            con.execute("INSERT INTO op_name_map VALUES (?, ?)", [a, b])
        for run_id, name, step, flag in ((ids["BASELINE"], b_name, baseline_step, "--baseline-step"),
                                         (ids["COMPARISON"], c_name, comparison_step, "--comparison-step")):
            con.execute("DELETE FROM compare_step WHERE run_id = ?", [run_id])
            if step is None:
                continue
            if not con.execute("SELECT 1 FROM step WHERE run_id = ? AND step = ?", [run_id, step]).fetchone():
                have = [r[0] for r in con.execute("SELECT DISTINCT step FROM step WHERE run_id = ? ORDER BY 1",
                                                  [run_id]).fetchall()]
                raise QueryError(f"{flag} {step}: run {name} has no step {step}.",
                                 hint=f"its steps: {', '.join(map(str, have)) or 'none'}.")
            con.execute("INSERT INTO compare_step VALUES (?, ?)", [run_id, step])
        pairs = align(con, ids["BASELINE"], ids["COMPARISON"], use_input_shape=use_input_shape,
                      max_kernel_num=max_kernel_num)
    return pairs


def _op_diff(con: duckdb.DuckDBPyConnection, ids: dict[str, int], b_name: str, c_name: str, pairs: int,
             limit: int | None, progress: Callable[[str], None]) -> CompareReport:
    """The report of an aligned pair without overall_comparison: matched pairs and the first
    ``limit`` op_diff rows; a note for a run without framework ops."""
    report = CompareReport(b_name, c_name, pairs, 0)
    for name, run_id in ((b_name, ids["BASELINE"]), (c_name, ids["COMPARISON"])):
        if not con.execute("SELECT count(*) FROM op WHERE run_id = ?", [run_id]).fetchone()[0]:
            progress(f"note: run {name} has no framework ops (cpu_op events with flows to its kernels), so "
                     "op_diff, op_alignment, api_diff and memory_diff have nothing of it; kernel_diff and "
                     "communication_diff compare its kernels")
    report.matched = con.execute(
        "SELECT count(*) FROM op_match WHERE baseline_run_id = ? AND comparison_run_id = ? "
        "AND baseline_op_id IS NOT NULL AND comparison_op_id IS NOT NULL",
        [ids["BASELINE"], ids["COMPARISON"]]).fetchone()[0]
    cur = con.execute("SELECT * FROM op_diff" + (f" LIMIT {int(limit)}" if limit is not None else ""))
    report.sections.append(("op_diff", [d[0] for d in cur.description], cur.fetchall()))
    return report


@contextmanager
def _threads(con: duckdb.DuckDBPyConnection, n: int | None):
    """DuckDB's ``threads`` set to ``n`` inside the block (None: left as it is), restored after.
    A failed restore cannot hide the block's own error (the caller closes the connection)."""
    if n is None:
        yield
        return
    before = con.execute("SELECT current_setting('threads')").fetchone()[0]
    con.execute(f"SET threads = {int(n)}")
    try:
        yield
    finally:
        try:
            con.execute(f"SET threads = {int(before)}")
        except duckdb.Error:
            pass


def _open_seeded(db: str | Path | None, memory_limit: str) -> tuple[duckdb.DuckDBPyConnection, int | None, bool]:
    """(connection, vacuum setting to restore, seeded) for a command that ingests: the database
    opened read-write, its vacuum paused (:func:`_pause_vacuum`) and, when new, seeded from the
    cached template (:func:`tracedb.template.seed`)."""
    from . import db as _db, template
    con = _db.connect(db, memory_limit=memory_limit)
    try:
        vacuum = _pause_vacuum(con)
        return con, vacuum, template.seed(con)
    except BaseException:
        con.close()
        raise


def _discard(opening, created: tuple[Path, bool] | None) -> None:
    """Close the database :func:`_open_seeded` opened (or failed to), and remove it as a failed
    ``tracedb ingest`` does when ``created`` is (its path, whether a .wal was there before):
    the file this command created."""
    from .api import _remove_created
    try:
        opening.result()[0].close()
    except BaseException:
        pass
    if created is not None:
        _remove_created(*created)


def _pause_vacuum(con: duckdb.DuckDBPyConnection) -> int | None:
    """Let this command's checkpoints write the new rows as they are (``max_vacuum_tasks = 0``,
    a global DuckDB setting; returns its value to restore, None if this DuckDB lacks it).

    Each side's ingest leaves a partial last row group in every table it fills; the first
    checkpoint that may vacuum merges neighbouring partial row groups, re-compressing them
    (a quarter of a second for two 100 MB ranks, on the path of every ``tracedb compare``).
    Leaving them costs one more row group per table and side; the next ``tracedb ingest``
    merges them.
    """
    try:
        before = con.execute("SELECT current_setting('max_vacuum_tasks')").fetchone()[0]
        con.execute("SET max_vacuum_tasks = 0")
        return int(before)
    except duckdb.Error:
        return None


def _ingest_sides(con: duckdb.DuckDBPyConnection, sides: list[tuple[str, str, str]],
                  progress: Callable[[str], None], seeded: bool = False, threads: int | None = None) -> None:
    """Ingest the sides given as paths ((path, run name, role) each).

    Two sides whose files together take at most half of DuckDB's memory limit are ingested at
    the same time, each in its own thread, connection and transaction: DuckDB runs the
    statements of both, and a side's own statements keep both cores busy only while a large
    trace is parsed (bench/RESULTS.md has the wall times). The caller gives DuckDB one thread
    fewer than it has (see :func:`run_compare`). Larger sides go one after the other, as their
    memory would add up, each with DuckDB's ``threads`` set to ``threads`` (None: as it is).
    The ids are the ones a sequential ingest gives (the comparison's above every id the
    baseline can take).

    A side that fails is rolled back and the other is kept, as when they run one after the
    other; the baseline's error is raised first (a path tracedb does not recognise is refused
    before the database is opened, see :func:`_side_name`). An interrupt (Ctrl-C, SIGTERM)
    rolls back both sides. ``seeded``: the database was just filled from the template
    (:func:`tracedb.template.seed`), so its tables and view library are current.

    Raises:
        InputError: a side cannot be ingested.
    """
    from . import registry
    from .api import ingest_package
    from .ingest.staging import setting_bytes
    from .schema import apply_schema
    pkg = ingest_package()
    if len(sides) == 2:
        sizes = [pkg.input_size([path]) for path, _, _ in sides]
        limit = setting_bytes(str(con.execute("SELECT current_setting('memory_limit')").fetchone()[0]))
    if len(sides) < 2 or (limit and 2 * (sizes[0][1] + sizes[1][1]) > limit):
        with _threads(con, threads):
            for path, name, role in sides:
                progress(f"ingesting {path} as run {name} ({role})")
                pkg.ingest(con, [path], run=name, role=role, progress=progress, checkpoint=False)
        return
    # an older file gets its tables and views here, once, not in both transactions
    if not seeded:
        with transaction(con):
            apply_schema(con)
            registry.install_if_changed(con)
    new_run, top_run = con.execute("SELECT count(*) FILTER (WHERE run_name = ?) = 0, coalesce(max(run_id), 0) "
                                   "FROM run", [sides[0][1]]).fetchone()
    top_file = con.execute("SELECT coalesce(max(file_id), 0) FROM source_file").fetchone()[0]
    floors = [(0, 0), (top_run + new_run, top_file + sizes[0][0])]
    jobs = max(1, pkg.default_jobs() // 2)      # worker processes of a side with many ranks
    cursors = [con.cursor() for _ in sides]
    stop = threading.Event()

    def side(cur, floor: tuple[int, int], path: str, name: str, role: str) -> None:
        def say(line: str) -> None:
            if stop.is_set():       # between two statements: roll this side back
                raise KeyboardInterrupt
            progress(f"{role}: {line}")         # the two sides' lines interleave

        say(f"ingesting {path} as run {name}")
        pkg.ingest(cur, [path], run=name, role=role, progress=say, checkpoint=False, id_floor=floor, jobs=jobs,
                   schema_current=True)

    try:
        with ThreadPoolExecutor(2, thread_name_prefix="tracedb-side") as pool:
            futures = [pool.submit(side, cur, floor, *s) for cur, floor, s in zip(cursors, floors, sides)]
            try:
                wait(futures)
            except BaseException:
                stop.set()
                while not all(f.done() for f in futures):   # an interrupt reaches a running statement only
                    for cur in cursors:
                        cur.interrupt()
                    wait(futures, timeout=0.05)
                raise
        for f in futures:
            f.result()
    finally:
        for cur in cursors:
            cur.close()


def run_compare(baseline: str, comparison: str, db: str | Path | None = None, *,
                name_map: Sequence[tuple[str, str]] = (), use_input_shape: bool = False,
                max_kernel_num: int | None = None, baseline_step: int | None = None,
                comparison_step: int | None = None, limit: int | None = 20,
                progress: Callable[[str], None] = lambda s: None,
                memory_limit: str | None = None) -> CompareReport:
    """Ingest the sides given as paths, set the roles, store the name map, the steps and the
    alignment (one transaction), and return overall_comparison (when installed) and op_diff.

    ``memory_limit`` is DuckDB's for the whole command (default when a side is a path:
    ``tracedb ingest``'s 1300MB; two sides ingested at the same time share it, see
    :func:`_ingest_sides`).

    Raises:
        QueryError: a side is neither a path nor a run; both sides are the same run; a step the
            run does not have.
        InputError: a path cannot be ingested (that side's ingest is rolled back).
    """
    from . import db as _db

    if max_kernel_num is not None and max_kernel_num < 0:
        raise QueryError("--max-kernel-num must be 0 or more.")
    if os.path.exists(baseline) or os.path.exists(comparison):
        # a side to ingest: DuckDB opens the database and seeds a new one (tables and views
        # copied from the cached template) in a helper thread, releasing the GIL, while this
        # one imports the ingest code and detects the paths' formats
        # the modules the helper runs, imported here (the ingest code imports them too): no
        # module is imported by both threads at once
        from . import registry, schema, template  # noqa: F401
        from .api import DEFAULT_INGEST_MEMORY
        target = _db.resolve_db_path(db)
        created = None if target.exists() else (target, _db.wal_path(target).exists())
        with ThreadPoolExecutor(1, thread_name_prefix="tracedb-open") as opener:
            opening = opener.submit(_open_seeded, db, memory_limit or DEFAULT_INGEST_MEMORY)
            try:
                b_name, b_path = _side_name(baseline)
                c_name, c_path = _side_name(comparison)
            except BaseException:
                _discard(opening, created)   # a refused path leaves no new file
                raise
        con, vacuum, seeded = opening.result()
    else:
        b_name, b_path = _side_name(baseline)
        c_name, c_path = _side_name(comparison)
        con = _db.connect(db, must_exist=True, memory_limit=memory_limit)
        vacuum, seeded = _pause_vacuum(con), False
    if b_path and c_path and b_name == c_name:
        b_name, c_name = f"{b_name}_baseline", f"{c_name}_comparison"
    try:
        sides = [(arg, name, role) for arg, name, is_path, role in ((baseline, b_name, b_path, "baseline"),
                                                                    (comparison, c_name, c_path, "comparison"))
                 if is_path]
        # two of this command's threads run statements from here on: the two sides, then
        # overall_comparison beside the alignment and op_diff. DuckDB counts the thread that
        # runs a statement as one of its threads, so it gets one thread fewer meanwhile (once for
        # both: each change of the setting starts or stops a worker) and runs no more threads
        # than it was given (on 2 cores: each statement on the thread that runs it, without
        # hand-offs to a shared worker)
        threads = int(con.execute("SELECT current_setting('threads')").fetchone()[0])
        with _threads(con, max(1, threads - 1)):
            _ingest_sides(con, sides, progress, seeded, threads)
            has_run = con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' "
                                  "AND table_name = 'run'").fetchone()[0]
            ids = {}
            for name, flag in ((b_name, "BASELINE"), (c_name, "COMPARISON")):
                row = con.execute("SELECT run_id FROM run WHERE run_name = ?", [name]).fetchone() if has_run else None
                if row is None:
                    names = [r[0] for r in con.execute("SELECT run_name FROM run ORDER BY run_id").fetchall()] \
                        if has_run else []
                    raise QueryError(f"{flag} {name!r} is neither a path nor a run in the database.",
                                     file=str(_db.resolve_db_path(db)),
                                     hint=f"runs: {', '.join(names) or 'none yet'}; "
                                          "or give a profiler folder / trace file.")
                ids[flag] = row[0]
            if ids["BASELINE"] == ids["COMPARISON"]:
                raise QueryError(f"baseline and comparison are the same run ({b_name}).",
                                 hint="compare two runs, e.g. tracedb compare gpu_run npu_run.")
            with ThreadPoolExecutor(1, thread_name_prefix="tracedb-overall") as pool:
                # overall_comparison needs neither the roles nor the alignment: a second connection
                # reads it for the two runs by name while this one aligns the ops (Python, one core)
                # and reads op_diff
                cur = con.cursor()
                overall = pool.submit(_overall, cur, b_name, c_name)
                try:
                    pairs = _settle_pair(con, ids, b_name, c_name, name_map, baseline_step, comparison_step,
                                         use_input_shape, max_kernel_num)
                    report = _op_diff(con, ids, b_name, c_name, pairs, limit, progress)
                    # the alignment is committed and no write transaction is open: the data goes
                    # into the file while the other connection still reads overall_comparison
                    try:
                        con.execute("CHECKPOINT")
                    except duckdb.Error:
                        pass        # committed (durable in the .wal); DuckDB checkpoints at the next open
                except BaseException:
                    cur.interrupt()
                    raise
                finally:
                    wait([overall])
                    cur.close()
            report.sections[:0] = overall.result()        # overall_comparison first, then op_diff
            return report
    except duckdb.Error as e:
        raise out_of_memory(e) or TracedbError(f"compare failed: {str(e).splitlines()[0]}") from e
    finally:
        if vacuum is not None:
            try:
                con.execute(f"SET max_vacuum_tasks = {int(vacuum)}")
            except duckdb.Error:
                pass
        con.close()
