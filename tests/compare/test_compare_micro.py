"""Hand-built op trees → the alignment (op_match), op_diff, op_alignment, api_diff, the name map and
the step restriction. Every expected value below is worked out by hand from the rows written here
(msprof-analyze's rules: tracedb/compare/align.py docstring).

Two runs: ``base`` (run 1, one rank) and ``comp`` (run 2, two ranks 0 and 1).
"""
from __future__ import annotations

import pytest

from tracedb.compare.command import run_compare
from tracedb.compare.name_map import parse_name_map
from tracedb.compare.store import align
from tracedb.errors import QueryError, TracedbError

OP_COLS = ("run_id, rank, file_id, op_id, step, tid, ts_ns, dur_ns, name, parent_op_id, depth, input_dims, "
           "is_backward, kernel_count, kernel_total_count, device_self_ns, device_total_ns, source")


def add_run(con, run_id, name, ranks):
    con.execute("INSERT INTO run (run_id, run_name, platform) VALUES (?, ?, 'npu')", [run_id, name])
    for r in ranks:
        con.execute("INSERT INTO rank (run_id, rank) VALUES (?, ?)", [run_id, r])


def add_ops(con, run_id, rank, ops, step=1):
    """ops: (op_id, name, ts, dur, parent, device_total_ns, kernels[, is_backward[, dims[, step]]])."""
    for o in ops:
        op_id, name, ts, dur, parent, dev, kernels = o[:7]
        bwd = o[7] if len(o) > 7 else None
        dims = o[8] if len(o) > 8 else None
        st = o[9] if len(o) > 9 else step
        con.execute(f"INSERT INTO op ({OP_COLS}) VALUES (?, ?, 1, ?, ?, 'main', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                    "'trace_view')",
                    [run_id, rank, op_id, st, ts, dur, name, parent, 0 if parent is None else 1, dims, bwd,
                     kernels, kernels, dev, dev])


def pairs(con, b=1, c=2):
    return con.execute("""
        SELECT bo.name, co.name FROM op_match m
        LEFT JOIN op bo ON bo.run_id = m.baseline_run_id AND bo.rank = m.baseline_rank AND bo.op_id = m.baseline_op_id
        LEFT JOIN op co ON co.run_id = m.comparison_run_id AND co.rank = m.comparison_rank
                       AND co.op_id = m.comparison_op_id
        WHERE m.baseline_run_id = ? AND m.comparison_run_id = ? ORDER BY m.order_id""", [b, c]).fetchall()


@pytest.fixture
def two_runs(empty_db):
    con = empty_db
    add_run(con, 1, "base", [0])
    add_run(con, 2, "comp", [0, 1])
    # base rank 0: ProfilerStep#1 [0, 1000) holding A B C D; B has two children b1 b2
    add_ops(con, 1, 0, [(1, "ProfilerStep#1", 0, 1000, None, 0, 0),
                        (2, "A", 10, 50, 1, 100, 1), (3, "B", 100, 100, 1, 300, 3),
                        (4, "b1", 110, 20, 3, 100, 1), (5, "b2", 140, 20, 3, 200, 2),
                        (6, "C", 300, 50, 1, 50, 1), (7, "D", 400, 50, 1, 10, 1)])
    # comp rank 0: A C X D (B missing, X extra); rank 1: A B C D
    add_ops(con, 2, 0, [(1, "ProfilerStep#1", 0, 1000, None, 0, 0),
                        (2, "A", 10, 50, 1, 300, 1), (3, "C", 100, 50, 1, 70, 1),
                        (4, "X", 200, 50, 1, 5, 1), (5, "D", 300, 50, 1, 20, 1)])
    add_ops(con, 2, 1, [(1, "ProfilerStep#1", 0, 1000, None, 0, 0),
                        (2, "A", 10, 50, 1, 100, 1), (3, "B", 100, 50, 1, 400, 2),
                        (4, "C", 200, 50, 1, 30, 1), (5, "D", 300, 50, 1, 20, 1)])
    return con


def test_alignment_is_difflib_on_top_level_ops_per_rank_pair(two_runs):
    con = two_runs
    n = align(con, 1, 2)
    # rank 0 vs 0: A=A, B unmatched, C=C, X unmatched, D=D; rank 1 of comp has no partner: 4 rows
    assert pairs(con) == [("A", "A"), ("B", None), ("C", "C"), (None, "X"), ("D", "D"),
                          (None, "A"), (None, "B"), (None, "C"), (None, "D")]
    assert n == 9
    keys = con.execute("SELECT match_key FROM op_match ORDER BY order_id").fetchall()
    assert [k[0] for k in keys][:3] == ["A", None, "C"]


def test_op_diff_counts_each_side_per_rank(two_runs):
    con = two_runs
    align(con, 1, 2)
    got = {r[0]: r[1:] for r in con.execute(
        "SELECT op_name, baseline_calls, baseline_total_ns, comparison_rank_count, comparison_calls, comparison_total_ns, "
        "diff_total_ns, total_ratio FROM op_diff_between('base', 'comp')").fetchall()}
    # A: base 100; comp (300 + 100) / 2 ranks = 200, calls 2 / 2 = 1
    assert got["A"] == (1.0, 100, 2, 1.0, 200, 100, 2.0)
    # B: base 300 (its subtree); comp only rank 1: 400 / 2 = 200, calls 0.5
    assert got["B"] == (1.0, 300, 2, 0.5, 200, -100, pytest.approx(200 / 300))
    # X: comparison only: 5 / 2 ranks = 2.5 ns, rounded half away from zero (DuckDB and Spark round)
    assert got["X"][:2] == (0.0, 0) and got["X"][4] == 3 and got["X"][6] is None
    order = [r[0] for r in con.execute("SELECT op_name FROM op_diff_between('base', 'comp')").fetchall()]
    # ops both runs have first, then |diff_total_ns| desc (issue 43): A 100, B |-100| (A before B by
    # name), D 20 - 10 = 10, C (70 + 30) / 2 - 50 = 0; then X (comparison only) 3
    assert order == ["A", "B", "D", "C", "X"]


def test_op_alignment_rows_carry_both_sides(two_runs):
    con = two_runs
    align(con, 1, 2)
    rows = con.execute("SELECT order_id, baseline_op_name, comparison_op_name, baseline_device_ns, "
                       "comparison_device_ns, diff_ns, device_ratio FROM op_alignment_between('base', 'comp') "
                       "LIMIT 4").fetchall()
    assert rows == [(1, "A", "A", 100, 300, 200, 3.0), (2, "B", None, 300, None, -300, 0.0),
                    (3, "C", "C", 50, 70, 20, 1.4), (4, None, "X", None, 5, 5, None)]


def test_drill_down_aligns_children_of_a_pair_with_many_kernels(empty_db):
    con = empty_db
    add_run(con, 1, "base", [0])
    add_run(con, 2, "comp", [0])
    add_ops(con, 1, 0, [(1, "P", 0, 100, None, 30, 3), (2, "p1", 0, 10, 1, 10, 1), (3, "p2", 20, 10, 1, 20, 2)])
    add_ops(con, 2, 0, [(1, "P", 0, 100, None, 40, 3), (2, "p1", 0, 10, 1, 15, 1), (3, "p3", 20, 10, 1, 25, 2)])
    align(con, 1, 2, max_kernel_num=3)           # 3 kernels: not more than 3, kept whole
    assert pairs(con) == [("P", "P")]
    align(con, 1, 2, max_kernel_num=2)           # more than 2: replaced by its children's alignment
    assert pairs(con) == [("p1", "p1"), ("p2", None), (None, "p3")]
    got = con.execute("SELECT op_name, baseline_total_ns, comparison_total_ns FROM op_diff_between('base', 'comp') "
                      "ORDER BY op_name").fetchall()
    assert got == [("p1", 10, 15), ("p2", 20, 0), ("p3", 0, 25)]


def test_forward_backward_segments_are_aligned_separately(empty_db):
    con = empty_db
    add_run(con, 1, "base", [0])
    add_run(con, 2, "comp", [0])
    # base: fwd [a b] bwd [c]; comp: bwd [z] fwd [a b] bwd [c] — first kinds differ, comp has more
    # segments, so its first segment [z] is emitted unmatched, then [a b]~[a b] and [c]~[c]
    add_ops(con, 1, 0, [(1, "a", 0, 5, None, 1, 1, False), (2, "b", 10, 5, None, 1, 1, False),
                        (3, "c", 20, 5, None, 1, 1, True)])
    add_ops(con, 2, 0, [(1, "z", 0, 5, None, 1, 1, True), (2, "a", 10, 5, None, 1, 1, False),
                        (3, "b", 20, 5, None, 1, 1, False), (4, "c", 30, 5, None, 1, 1, True)])
    align(con, 1, 2)
    assert pairs(con) == [(None, "z"), ("a", "a"), ("b", "b"), ("c", "c")]
    # without segmentation difflib would match the same here; a case where it matters: the same
    # name in both segments. base fwd [c] bwd [c]; comp bwd [c]: seg kinds differ, base has more
    # segments → base fwd [c] unmatched, base bwd c = comp bwd c.
    con.execute("DELETE FROM op")
    add_ops(con, 1, 0, [(1, "c", 0, 5, None, 1, 1, False), (2, "c", 10, 5, None, 1, 1, True)])
    add_ops(con, 2, 0, [(1, "c", 0, 5, None, 1, 1, True)])
    align(con, 1, 2)
    got = con.execute("SELECT baseline_op_id, comparison_op_id FROM op_match ORDER BY order_id").fetchall()
    assert got == [(1, None), (2, 1)]            # plain difflib would have matched op 1 with op 1


def test_name_map_and_input_shape_keys(empty_db):
    con = empty_db
    add_run(con, 1, "base", [0])
    add_run(con, 2, "comp", [0])
    add_ops(con, 1, 0, [(1, "Optimizer.step#SGD.step", 0, 5, None, 7, 1, None, "[[2,3]]"),
                        (2, "aten::add", 10, 5, None, 1, 1, None, "[[4]]")])
    add_ops(con, 2, 0, [(1, "Optimizer.step#NpuFusedSGD.step", 0, 5, None, 9, 1, None, "[[2,3]]"),
                        (2, "aten::add", 10, 5, None, 1, 1, None, "[[5]]")])
    align(con, 1, 2)
    assert pairs(con) == [("Optimizer.step#SGD.step", None), (None, "Optimizer.step#NpuFusedSGD.step"),
                          ("aten::add", "aten::add")]
    con.execute("INSERT INTO op_name_map VALUES ('Optimizer.step#SGD.step', 'Optimizer.step#NpuFusedSGD.step')")
    align(con, 1, 2)
    assert pairs(con)[0] == ("Optimizer.step#SGD.step", "Optimizer.step#NpuFusedSGD.step")
    got = con.execute("SELECT op_name, baseline_total_ns, comparison_total_ns FROM op_diff_between('base', 'comp') "
                      "WHERE op_name LIKE 'Opt%'").fetchall()
    assert got == [("Optimizer.step#NpuFusedSGD.step", 7, 9)]
    align(con, 1, 2, use_input_shape=True)       # aten::add differs in dims now
    assert pairs(con)[1:] == [("aten::add", None), (None, "aten::add")]


def test_step_restriction_keeps_the_chosen_steps(two_runs):
    con = two_runs
    add_ops(con, 1, 0, [(8, "ProfilerStep#2", 1000, 1000, None, 0, 0, None, None, 2),
                        (9, "E", 1010, 50, 8, 1000, 1, None, None, 2)])
    align(con, 1, 2)
    assert ("E", None) in pairs(con)
    con.execute("INSERT INTO compare_step VALUES (1, 2)")
    align(con, 1, 2)
    assert [p for p in pairs(con) if p[0]] == [("E", None)]
    assert con.execute("SELECT baseline_total_ns FROM op_diff_between('base', 'comp') WHERE op_name = 'E'"
                       ).fetchall() == [(1000,)]
    assert con.execute("SELECT count(*) FROM op_diff_between('base', 'comp') WHERE baseline_calls > 0"
                       ).fetchone()[0] == 1


def test_api_diff_total_and_self_time(two_runs):
    con = two_runs
    got = con.execute("SELECT baseline_calls, baseline_total_ns, baseline_self_ns FROM api_diff_between('base', 'comp') "
                      "WHERE op_name = 'B'").fetchall()
    assert got == [(1.0, 100, 100 - 20 - 20)]
    got = con.execute("SELECT comparison_calls, comparison_total_ns FROM api_diff_between('base', 'comp') "
                      "WHERE op_name = 'A'").fetchall()
    assert got == [(1.0, 50)]                    # (50 + 50) / 2 ranks
    assert not con.execute("SELECT * FROM api_diff_between('base', 'comp') WHERE op_name LIKE 'ProfilerStep%'"
                           ).fetchall()


def test_op_diff_without_alignment_uses_top_level_ops(two_runs):
    con = two_runs
    got = {r[0]: r[1] for r in con.execute("SELECT op_name, baseline_total_ns FROM op_diff_between('base', 'comp')")
           .fetchall()}
    assert got == {"A": 100, "B": 300, "C": 50, "D": 10, "X": 0}


def test_parse_name_map(tmp_path):
    f = tmp_path / "map.txt"
    f.write_text("# GPU = NPU\nA=B\n\n  C = D \n")
    assert parse_name_map(["X=Y"], str(f)) == [("X", "Y"), ("A", "B"), ("C", "D")]
    f.write_text("A=B\nnonsense\n")
    with pytest.raises(TracedbError, match="nonsense"):
        parse_name_map([], str(f))


def test_run_compare_sets_roles_and_refuses_bad_sides(two_runs, db_path):
    con = two_runs
    con.execute("INSERT INTO step (run_id, rank, step) VALUES (1, 0, 1), (2, 0, 1), (2, 1, 1)")
    con.close()
    rep = run_compare("base", "comp", db_path, name_map=[("X", "A")], limit=3)
    assert (rep.pairs, rep.matched) == (9, 3)
    view, cols, rows = rep.sections[-1]
    assert view == "op_diff" and len(rows) == 3 and cols[0] == "op_name"      # issue 43: op_name first
    import duckdb
    with duckdb.connect(str(db_path), read_only=True) as c:
        assert c.execute("SELECT run_name, role FROM run ORDER BY run_id").fetchall() == [
            ("base", "baseline"), ("comp", "comparison")]
        assert c.execute("SELECT * FROM op_name_map WHERE baseline_name = 'X'").fetchall() == [("X", "A")]
    with pytest.raises(QueryError, match="same run"):
        run_compare("base", "base", db_path)
    with pytest.raises(QueryError, match="neither a path nor a run"):
        run_compare("base", "nope", db_path)
    with pytest.raises(QueryError, match="has no step 7"):
        run_compare("base", "comp", db_path, baseline_step=7)
    rep = run_compare("base", "comp", db_path, comparison_step=1)
    assert rep.pairs == 9


def test_memory_diff_attaches_allocations_to_the_op_window(two_runs):
    con = two_runs
    # base: 2 KB at t=20 (inside A [10, 60]), 1 KB at t=150 (inside B [100, 200]), one row without an
    # allocation time (left out); comp rank 0: 4 KB at t=10 (A starts at 10: inclusive)
    con.execute("""INSERT INTO memory (run_id, rank, file_id, kind, name, ts_ns, dur_ns, size_bytes) VALUES
        (1, 0, 1, 'operator', 'x', 20, 7, 2048), (1, 0, 1, 'operator', 'y', 150, 3, 1024),
        (1, 0, 1, 'operator', 'z', NULL, 5, 999), (2, 0, 1, 'operator', 'x', 10, 9, 4096)""")
    got = {r[0]: r[1:] for r in con.execute(
        "SELECT op_name, baseline_memory_bytes, baseline_alloc_ns, comparison_memory_bytes, comparison_alloc_ns, "
        "diff_memory_bytes FROM memory_diff_between('base', 'comp')").fetchall()}
    assert got["A"] == (2048, 7, 2048, 5, 0)       # comp: 4096 B and 9 ns over 2 ranks (4.5, rounded half up)
    assert got["B"] == (1024, 3, 0, 0, -1024)


def add_modules(con, run_id, rank, mods):
    """mods: (module_id, kind, path, step, op_count, device_self_ns, device_total_ns)."""
    for module_id, kind, path, step, ops, self_ns, total_ns in mods:
        con.execute("INSERT INTO module (run_id, rank, file_id, module_id, kind, name, module_path, step, ts_ns, "
                    "dur_ns, op_count, device_self_ns, device_total_ns, source) "
                    "VALUES (?, ?, 1, ?, ?, ?, ?, ?, 0, 1, ?, ?, ?, 'trace_view')",
                    [run_id, rank, module_id, kind, path.rsplit("/", 1)[-1], path, step, ops, self_ns, total_ns])


def test_module_diff_sums_calls_per_path_per_rank(empty_db):
    con = empty_db
    add_run(con, 1, "base", [0])
    add_run(con, 2, "comp", [0, 1])
    # base: Net_0 called in steps 1 and 2 (Conv2d_1 inside it each time), one backward module
    add_modules(con, 1, 0, [(1, "forward", "Net_0", 1, 1, 10, 70), (2, "forward", "Net_0/Conv2d_1", 1, 2, 60, 60),
                            (3, "forward", "Net_0", 2, 1, 10, 50), (4, "forward", "Net_0/Conv2d_1", 2, 2, 40, 40),
                            (5, "backward", "[ BACKWARD ]/Net_0/Conv2d_1", 2, 3, 90, 90)])
    # comp: two ranks, Net_0 once each (no Conv2d_1), the backward module on rank 1 only
    add_modules(con, 2, 0, [(1, "forward", "Net_0", 1, 1, 15, 15)])
    add_modules(con, 2, 1, [(1, "forward", "Net_0", 1, 3, 25, 25),
                            (2, "backward", "[ BACKWARD ]/Net_0/Conv2d_1", 1, 1, 31, 31)])
    cols = ("module_path, module_class, module_level, baseline_calls, baseline_op_count, baseline_self_ns, "
            "baseline_total_ns, comparison_calls, comparison_self_ns, comparison_total_ns, diff_total_ns")
    got = con.execute(f"SELECT {cols} FROM module_diff_between('base', 'comp')").fetchall()
    # per comparison rank: Net_0 2 calls / 2 ranks = 1, self (15 + 25) / 2 = 20; backward 31 / 2 = 15.5 → 16
    # ordered by diff_total_ns descending, then path
    assert got == [("[ BACKWARD ]/Net_0/Conv2d_1", "Conv2d", 3, 1, 3, 90, 90, 1, 16, 16, -74),
                   ("Net_0", "Net", 1, 2, 2, 20, 120, 1, 20, 20, -100),
                   ("Net_0/Conv2d_1", "Conv2d", 2, 2, 4, 100, 100, 0, 0, 0, -100)]
    # --baseline-step 2 keeps the base modules of step 2 only
    con.execute("INSERT INTO compare_step VALUES (1, 2)")
    got = con.execute(f"SELECT {cols} FROM module_diff_between('base', 'comp') WHERE module_path = 'Net_0'").fetchall()
    assert got == [("Net_0", "Net", 1, 1, 1, 10, 50, 1, 20, 20, -30)]



def test_module_diff_applies_the_name_map_to_whole_paths(empty_db):
    con = empty_db
    add_run(con, 1, "base", [0])
    add_run(con, 2, "comp", [0])
    add_modules(con, 1, 0, [(1, "optimizer", "Optimizer.step#SGD.step", 1, 5, 700, 700)])
    add_modules(con, 2, 0, [(1, "optimizer", "Optimizer.step#NpuFusedSGD.step", 1, 3, 400, 400)])
    q = "SELECT module_path, baseline_total_ns, comparison_total_ns FROM module_diff_between('base', 'comp')"
    assert sorted(con.execute(q).fetchall()) == [("Optimizer.step#NpuFusedSGD.step", 0, 400),
                                                     ("Optimizer.step#SGD.step", 700, 0)]
    con.execute("INSERT INTO op_name_map VALUES ('Optimizer.step#SGD.step', 'Optimizer.step#NpuFusedSGD.step')")
    assert con.execute(q).fetchall() == [("Optimizer.step#NpuFusedSGD.step", 700, 400)]


def test_alignment_of_a_database_without_module_tables(two_runs):
    # a file an earlier tracedb wrote has no module / module_match table; tracedb compare of two
    # run names aligns the ops and leaves the schema alone
    con = two_runs
    con.execute("DROP VIEW IF EXISTS module_alignment")
    con.execute("DROP MACRO TABLE IF EXISTS module_alignment_between")
    con.execute("DROP VIEW IF EXISTS module_diff")
    con.execute("DROP MACRO TABLE IF EXISTS module_diff_between")
    con.execute("DROP TABLE module_match")
    con.execute("DROP TABLE module")
    assert align(con, 1, 2) == 9
    assert con.execute("SELECT count(*) FROM op_match").fetchone() == (9,)


def test_cli_compare_ingests_paths_in_one_process(tmp_path):
    import json

    from typer.testing import CliRunner

    from conftest import FIXTURES, rows
    from tracedb.cli import app

    db = tmp_path / "c.duckdb"
    base = FIXTURES / "ascend" / "level1_2024_rank0_ascend_pt"
    comp = FIXTURES / "ascend" / "level1" / "rank0_ascend_pt"
    res = CliRunner().invoke(app, ["compare", str(base), str(comp), "--db", str(db), "--format", "json",
                                   "--op-name-map", "a=b"])
    assert res.exit_code == 0, res.output
    assert isinstance(json.loads(res.stdout), list)          # op_diff rows (empty until ops are derived)
    assert rows(db, "SELECT run_name, role FROM run ORDER BY run_id") == [
        ("level1_2024_rank0_ascend_pt", "baseline"), ("rank0_ascend_pt", "comparison")]
    assert rows(db, "SELECT * FROM op_name_map WHERE baseline_name = 'a'") == [("a", "b")]
    # the same two runs by name: nothing ingested again, roles kept
    res = CliRunner().invoke(app, ["compare", "level1_2024_rank0_ascend_pt", "rank0_ascend_pt", "--db", str(db)])
    assert res.exit_code == 0 and "op_diff" in res.stdout
    res = CliRunner().invoke(app, ["compare", "rank0_ascend_pt", "nope", "--db", str(db)])
    assert res.exit_code == 1 and "neither a path nor a run" in res.output
