"""The plans DuckDB picks for the derive steps on the ingest connection.

DuckDB replaces an ASOF join by a nested loop when it estimates a small probe side, and its
estimates of the steps' joined CTEs are far too low (often 1 row on hundreds of thousands): on
a 100 MB trace the HCCL tasks' ASOF join took 0.7-1.4 s as a loop instead of 30 ms as a merge
(DuckDB 2.0.1), on a 400k-event rank the launches' joins > 5 min instead of 5 s. The ingest
session (derive/_session.sql) turns the replacement off; this checks every ASOF join of every
step stays one, on a real rank where the estimates are low."""
from __future__ import annotations

import json
import re

import duckdb
import pytest

from conftest import corpus_path, ingest_paths

ASOF = re.compile(r"\bASOF\s+(?:LEFT\s+)?JOIN\b", re.IGNORECASE)


def _operators(node: dict) -> list[str]:
    out = [node.get("name", "")]
    for child in node.get("children", []):
        out += _operators(child)
    return out


@pytest.mark.corpus
def test_every_asof_join_of_the_derive_steps_plans_as_an_asof_join(tmp_path):
    from tracedb.ingestion import derive

    db = tmp_path / "t.duckdb"
    ingest_paths(db, corpus_path("msinsight/test/data/pytorch/text/level1/rank1_ascend_pt"))
    con = duckdb.connect(str(db))
    try:
        derive.install_session(con)
        con.execute("SET VARIABLE run_id = 1")
        con.execute("SET VARIABLE rank = 1")
        checked = []
        for step in derive._steps():     # every step, guards aside: each runs without
            name = step.name
            for statement in con.extract_statements(step.sql):
                text = re.sub(r"--[^\n]*", "", str(statement.query))
                joins = len(ASOF.findall(text))
                if joins:
                    plan = json.loads(con.execute(f"EXPLAIN (FORMAT json) {text}").fetchall()[0][1])
                    found = sum(op == "ASOF_JOIN" for root in plan for op in _operators(root))
                    checked.append((name, joins, found))
                con.execute(statement)
        assert len(checked) >= 10, checked
        assert [c for c in checked if c[1] != c[2]] == [], checked
    finally:
        con.close()


def test_format_guards_name_real_formats_and_select_the_steps():
    """The ``-- when-format:`` / ``-- unless-format:`` headers name formats a reader writes (a
    typo would skip the step for every rank), and a rank's formats pick the steps the SQL guards
    they replaced picked (hand-written: trace_view + kernel_details runs 031/101/110, not 030)."""
    from tracedb.ingestion import derive
    from tracedb.ingestion.readers import READERS

    steps = {s.name[:3]: s for s in derive._steps()}
    for s in steps.values():
        assert (s.formats or frozenset()) | s.not_formats <= set(READERS), s.name
    npu = {"trace_view", "kernel_details", "step_trace_time", "memory_record"}
    picked = {k for k, s in steps.items() if s.formats is not None and s.applies(npu)}
    assert picked == {"031", "036", "101", "110"}   # 036: graph-mode Iteration steps of the trace
    assert steps["030"].applies({"trace_view"}) and not steps["030"].applies({"kineto"})
    gpu = {"kineto"}
    assert {k for k, s in steps.items() if s.formats is not None and s.applies(gpu)} == {
        "040", "080", "091", "100", "110", "131", "132"}
    assert steps["010"].formats is None and steps["010"].applies(set())     # unguarded: every rank
