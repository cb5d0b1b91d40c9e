"""The alignment's sequence matcher gives difflib's matching blocks (msprof-analyze runs
``difflib.SequenceMatcher(None, a, b, autojunk=False)``; tracedb must align the same pairs).

Each case is checked against difflib itself, with the fast search forced on every window
(``SMALL = 0``) and with the default threshold.
"""
from __future__ import annotations

import random
from difflib import SequenceMatcher

import pytest

from tracedb.compare.align import Matcher as _Matcher


def blocks(a, b, small=None, monkeypatch=None):
    if small is not None:
        monkeypatch.setattr(_Matcher, "SMALL", small)
    return _Matcher(a, b).get_matching_blocks()


def reference(a, b):
    return SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()


def cases():
    rnd = random.Random(7)
    names = [f"aten::op{k}" for k in range(18)]
    yield [], []
    yield ["x"], []
    yield ["a", "b", "c"], ["a", "b", "c"]
    yield list("abcabcabc"), list("cbacbacba")
    yield list("aaaaaaaab"), list("baaaaaaaa")            # ties: the first in a, then first in b
    yield list("abab" * 30), list("baba" * 30)
    for n, m, k in ((300, 280, 18), (500, 500, 3), (200, 600, 2), (400, 400, 50)):
        a = [rnd.choice(names[:k]) for _ in range(n)]
        yield a, [rnd.choice(names[:k]) for _ in range(m)]
        b = list(a)                                        # a near-copy: long blocks, a few edits
        for _ in range(10):
            pos = rnd.randrange(len(b))
            if rnd.random() < 0.5:
                del b[pos]
            else:
                b.insert(pos, rnd.choice(names))
        yield a, b


@pytest.mark.parametrize("small", [0, None])
def test_same_blocks_as_difflib(small, monkeypatch):
    for a, b in cases():
        got = blocks(a, b, small, monkeypatch) if small is not None else _Matcher(a, b).get_matching_blocks()
        assert got == reference(a, b), (a[:20], b[:20])


def test_hash_collision_falls_back_to_difflib(monkeypatch):
    """A block whose items differ though its hashes agreed is not returned: the window is
    scanned by difflib instead."""
    monkeypatch.setattr(_Matcher, "SMALL", 0)
    a, b = list("abcdefgh"), list("xbcdyfgz")
    m = _Matcher(a, b)
    monkeypatch.setattr(m, "_keys", lambda h, lo, hi, length: __import__("numpy").zeros(hi - length + 1 - lo, "int64"))
    assert m.get_matching_blocks() == reference(a, b)


def test_align_modules_order_is_msprof_module_comparator():
    """Baseline A(10) [a1(11)] B(20) D(40); comparison A(12) [a1(13) a2(14)] C(25) D(41). Tops
    align A=A, B-, -C, D=D, then A's children a1=a1, -a2 (breadth first). ModuleComparator's
    order: by baseline start; a comparison-only module goes before the first *matched* pair
    whose comparison module starts after it, so a2 (14) lands after B, not after a1."""
    from tracedb.compare.align import Module as _Module, align_modules

    def mod(key, ts, *children):
        return _Module(module_id=ts, rank=0, key=key, ts_ns=ts, children=list(children))

    base = [[mod("A", 10, mod("A/a1", 11)), mod("B", 20), mod("D", 40)], []]
    comp = [[mod("A", 12, mod("A/a1", 13), mod("A/a2", 14)), mod("C", 25), mod("D", 41)], []]
    got = [(b.key if b else None, c.key if c else None) for b, c in align_modules(base, comp)]
    assert got == [("A", "A"), ("A/a1", "A/a1"), ("B", None), (None, "A/a2"), (None, "C"), ("D", "D")]


@pytest.mark.parametrize("numpy_rows", [0, 10_000])
def test_insert_match_paths_write_the_same_rows(numpy_rows, monkeypatch):
    """_insert_match writes few rows as list parameters and many as NumPy columns: both give
    the rows as given, NULLs (a gap's missing side) and the match key included."""
    import duckdb

    from tracedb.compare import store as compare
    monkeypatch.setattr(compare, "NUMPY_ROWS", numpy_rows)
    con = duckdb.connect()
    con.execute("CREATE TABLE op_match (baseline_run_id INTEGER, comparison_run_id INTEGER, order_id BIGINT, "
                "baseline_rank INTEGER, baseline_op_id BIGINT, comparison_rank INTEGER, comparison_op_id BIGINT, "
                "match_key VARCHAR)")
    con.execute("CREATE TABLE module_match AS SELECT * EXCLUDE (match_key) FROM op_match")
    rows = [(3, 4, 1, 0, 2**40 + 1, 1, 7, "aten::mm"), (3, 4, 2, None, None, 1, 9, None),
            (3, 4, 3, 2, 11, None, None, None), (3, 4, 4, 0, 12, 1, 13, "it's \"quoted\"")]
    compare.insert_match(con, "op_match", rows)
    compare.insert_match(con, "module_match", [r[:7] for r in rows])
    assert con.execute("SELECT * FROM op_match ORDER BY order_id").fetchall() == rows
    assert con.execute("SELECT * FROM module_match ORDER BY order_id").fetchall() == [r[:7] for r in rows]
