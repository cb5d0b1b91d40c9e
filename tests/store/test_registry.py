"""The view library: documented, portable, installed in dependency order."""
from __future__ import annotations

import fnmatch
import re

import pytest

from tracedb.store.db import STORAGE_VERSION
from tracedb.store.library import load_library
from tracedb.resources import sql_dir

FORBIDDEN = re.compile(r"\b(json_\w+|countif|make_timestamp_ns|nanosecond|weighted_avg|if)\s*\(|GROUP\s+BY\s+ALL|->>|"
                       r"\bx\s*->", re.I)


@pytest.fixture(scope="module")
def library():
    """The parsed library, once for the module's tests that only read it (a parse of every
    file with sqlglot takes about half a second of CPU)."""
    return load_library()


def test_every_file_declares_its_object_with_a_header(library):
    objs = library
    assert objs, "no views found"
    for o in objs:
        assert o.header.startswith(f"{o.name} — "), o.path


def test_no_extension_or_new_functions_in_views():
    for path in sql_dir("queries").glob("*/*.sql"):
        code = "\n".join(line.split("--")[0] for line in path.read_text().splitlines())
        m = FORBIDDEN.search(code)
        assert m is None, f"{path}: {m.group(0)}"


def test_public_views_documented_and_exact_types(empty_db, library):
    con = empty_db
    views = [o for o in library if o.kind == "view" and o.schema == "main"]
    for o in views:
        comment = con.execute("SELECT comment FROM duckdb_views() WHERE view_name = ?", [o.name]).fetchone()[0]
        assert comment and comment.startswith(o.name), o.name
        cols = con.execute("SELECT column_name, data_type, comment FROM duckdb_columns() WHERE table_name = ?",
                           [o.name]).fetchall()
        for name, dtype, ccomment in cols:
            assert ccomment, f"{o.name}.{name} has no comment"
            assert "HUGEINT" not in dtype and "DECIMAL" not in dtype, f"{o.name}.{name} is {dtype}"
            if name.endswith("_ns") or name.endswith("_bytes"):
                assert dtype == "BIGINT", f"{o.name}.{name} is {dtype}"


def test_every_table_and_column_commented(empty_db):
    cols = empty_db.execute("""SELECT table_name, column_name FROM duckdb_columns()
                               WHERE schema_name = 'main' AND comment IS NULL
                                 AND table_name IN (SELECT table_name FROM duckdb_tables())""").fetchall()
    assert cols == []
    assert empty_db.execute("SELECT count(*) FROM duckdb_tables() WHERE comment IS NULL").fetchone()[0] == 0


def test_catalogue_lists_macros_and_internal_helpers(empty_db):
    got = dict(empty_db.execute("SELECT name, kind || ':' || schema_name FROM tracedb_object").fetchall())
    assert got["op_diff_between"] == "table_macro:main"
    assert got["step_breakdown"] == "view:main"
    assert got["compute_island"] == "view:tracedb_internal"
    assert got["comm_booked"] == "view:tracedb_internal"


def test_storage_version_recorded(empty_db):
    assert empty_db.execute("SELECT value FROM tracedb_meta WHERE key = 'storage_version'").fetchone() == (STORAGE_VERSION,)


# --- lint of the parsed library, in the manner of Perfetto's tools/check_sql_modules.py ----------

SECTIONS = ("Grain", "Source", "Reference", "Units")
OPTIONAL_SECTIONS = ("Browse", "Parameters", "Method")

# A diary is a timing: "2.0 s instead of 1.1 s", "took 1.04 s", "measured". Thresholds that are
# part of a rule ("more than 1 s apart") are not diaries. Numbers live in bench/RESULTS.md.
DIARY = re.compile(r"\bmeasured\b|\btook\s+\d|\d\s*m?s\s+(?:instead of|against|vs\.?)\s+\d"
                   r"|\binstead of\s+\d[\d.]*\s*m?s\b|\bon (?:a|one) \d+ ?[GM]i?B\b", re.I)

# Unit suffixes of numeric output columns, with the type each must have.
SUFFIX_TYPES = {"_ns": "BIGINT", "_bytes": "BIGINT", "_count": "BIGINT", "_ratio": "DOUBLE", "_gbps": "DOUBLE",
                "_pct": "DOUBLE",       # percent 0-100 (style.md: *_pct), e.g. cpu_utilization
                "_per_ms": "DOUBLE",    # a rate per millisecond (MindSpore pipeline throughput, rows per ms)
                # issue 41 (queries/hardware): throughput in 10^12 FLOP/s, PMU cycle and
                # floating-point-operation counters, alignment multiples (elements)
                "_tflops": "DOUBLE", "_cycles": "BIGINT", "_fops": "DOUBLE", "_multiple": "INTEGER"}
# Numeric columns that are not quantities: keys, ordinals, ranks.
IDENTIFIERS = {"run_id", "rank", "step", "file_id", "kernel_id", "plane_id", "src_rank", "dst_rank",
               "seq", "island", "execution", "order_id", "op_id", "parent_op_id", "msprof_parent_op_id", "cause_rank", "module_id", "parent_module_id", "module_level", "rule_id", "baseline_rank",
               "comparison_rank", "baseline_op_id", "comparison_op_id", "baseline_module_id", "comparison_module_id",
               "sample", "device_queue_op_id", "empty_queue_op_id",   # data_pipeline_wait: queue sample, pipeline op ids
               "free_order",   # free_analysis: 1 = longest free interval of the rank (msprof top_num)
               "dp_index", "pp_index", "tp_index", "stage_index",     # parallel_layout: positions (msprof-analyze "DP Index" ...)
               "range_id", "parent_range_id", "depth",                # range_time: host_range keys and nesting level
               "pattern_id", "producer_op_id", "pipeline_op_id"}      # fusion_candidate pattern key; MindSpore pipeline op ids
# Public names older than the suffix rule (public columns are a contract: not renamed).
UNSUFFIXED = {
    "baseline_calls": "msprof-analyze compare's 'Calls'", "comparison_calls": "as baseline_calls",
    "diff_calls": "as baseline_calls", "samples": "memory views: samples of the allocator",
    "value": "comm_op_check long format: the unit is in its metric", "profiler_value": "as value",
    "diff": "as value", "z_score": "dimensionless by definition",
    "ratio_of_e2e": "overall_summary, a name issue 15 fixed: dur_ns / E2E (0-1)",
    # issue 41: shape dimensions (elements) in the GEMM / conv names of the field, and FLOP counts
    "batch": "shape dim", "m": "GEMM M", "n": "GEMM N", "k": "GEMM K", "c_in": "conv channels",
    "c_out": "conv channels", "padded_m": "as m", "padded_n": "as n", "padded_k": "as k",
    "padded_c_in": "as c_in", "padded_c_out": "as c_out",
    "flops": "floating-point operations (a count)", "shape_flops": "as flops", "profiler_flops": "as flops",
    "ratio": "overall_comparison, step_comparison: comparison / baseline, a plain number (issue 43's name; "
             "*_ratio columns are shown as %)",
}

# One word per meaning: each word, what it means, and the objects whose name or output columns use
# it. A new use of the word must be added here on purpose (and must mean the same thing).
VOCABULARY = {
    # communication.json "Transit Time"/"Transit Size": time and bytes of the HCCL tasks that move data
    "transit": {"comm_task", "comm_op", "comm_bandwidth", "comm_matrix", "comm_matrix_summary", "slow_link"},
    # msprof-analyze cluster rule: a collective's shortest duration over its ranks (the transfer
    # itself, without waiting); estimated from op durations, not from tasks
    "transmit": {"comm_wait_cross_rank"},
    # time several communication ops share, booked once to the op that started first
    "booked": {"comm_booked"},
    # "exclusive" reads as profilers' self time; the library says "booked" (see above)
    "exclusive": set(),
}
# op_type is the type of the op a row describes: kernel_details.csv "Type" (GPU: kernel name) for
# kernels, and for HCCL ops in the comm views the collective taken from the op name, lower case.
# Its comment must say which.
OP_TYPE_COMMENT = re.compile(r"kernel_details\.csv Type|kernel\.op_type|lower case|collective type")
# Known pairs of names for one thing, kept because the public names are a contract.
GRANDFATHERED_SYNONYMS = {("memory_peak", "ts_ns"): "module_memory.peak_ts_ns",
                          ("memory_peak_step", "ts_ns"): "module_memory.peak_ts_ns"}


def _comment_text(path) -> str:
    return "\n".join(line.split("--", 1)[1] for line in path.read_text().splitlines() if "--" in line)


def _view_columns(con) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for table, col, dtype in con.execute(
            "SELECT table_name, column_name, data_type FROM duckdb_columns() "
            "WHERE table_name IN (SELECT view_name FROM duckdb_views() WHERE NOT internal) "
            "ORDER BY schema_name, table_name, column_index").fetchall():
        out.setdefault(table, []).append((col, dtype))
    return out


def test_every_object_has_the_header_sections(library):
    for o in library:
        missing = [s for s in SECTIONS if not o.header_field(s)]
        assert not missing, f"{o.path}: header lacks {missing}"
        unknown = set(o.sections) - set(SECTIONS) - set(OPTIONAL_SECTIONS)
        assert not unknown, f"{o.path}: unknown header sections {unknown} (a summary line read as one?)"
        assert o.summary, f"{o.path}: no summary after the em dash"


def test_every_macro_parameter_is_documented(library):
    macros = [o for o in library if o.kind == "table_macro"]
    assert macros
    for o in macros:
        params = o.header_field("Parameters") or ""
        missing = [p for p in o.parameters if not re.search(rf"\b{p}\b", params)]
        assert o.parameters and not missing, f"{o.path}: Parameters: does not name {missing}"


def test_no_measurement_diary_in_headers_or_comments():
    assert DIARY.search("made this view take 2.0 s instead of 1.1 s on 35 k ops, measured")
    assert DIARY.search("max() took 1.04 s against 0.75 s")
    assert not DIARY.search("steps that start more than 1 s apart across ranks")
    for path in sql_dir("queries").glob("*/*.sql"):
        m = DIARY.search(_comment_text(path))
        assert m is None, f"{path}: measurement in a comment ({m.group(0)!r}); move it to bench/RESULTS.md"


def test_every_output_column_documented_and_parsed_like_duckdb(empty_db, library):
    cols = _view_columns(empty_db)
    for o in library:
        if o.kind == "view":
            assert o.columns == [c for c, _ in cols[o.name]], f"{o.path}: parsed columns differ from DuckDB's"
        undocumented = [c for c in o.columns if not o.column_comments.get(c)]
        assert not undocumented, f"{o.path}: no trailing -- comment on {undocumented}"


def test_pass_through_columns_inherit_their_comment(empty_db, library):
    lib = {o.name: o for o in library}
    op_diff, macro = lib["op_diff"], lib["op_diff_between"]
    assert op_diff.inherited == {c: "op_diff_between" for c in macro.columns}
    got = dict(empty_db.execute("SELECT column_name, comment FROM duckdb_columns() "
                                "WHERE table_name = 'op_diff'").fetchall())
    assert got == macro.column_comments
    # a computed column never inherits, even when it keeps an upstream name
    assert lib["slow_rank"].inherited == {}


def test_unit_suffixes_are_uniform(empty_db):
    numeric = ("BIGINT", "INTEGER", "DOUBLE", "HUGEINT", "DECIMAL", "FLOAT", "SMALLINT", "TINYINT", "UBIGINT")
    for view, cols in _view_columns(empty_db).items():
        for col, dtype in cols:
            suffix = next((s for s in SUFFIX_TYPES if col.endswith(s)), None)
            if suffix:
                assert dtype == SUFFIX_TYPES[suffix], f"{view}.{col} is {dtype}, {suffix} means {SUFFIX_TYPES[suffix]}"
            elif dtype.startswith(numeric):
                assert col in IDENTIFIERS or col in UNSUFFIXED, \
                    f"{view}.{col} ({dtype}) has no unit suffix {sorted(SUFFIX_TYPES)}"
    used = {c for cols in _view_columns(empty_db).values() for c, _ in cols}
    assert set(UNSUFFIXED) <= used, f"stale exceptions: {set(UNSUFFIXED) - used}"


def test_units_section_names_every_suffix_used(library):
    missing = []
    for o in library:
        units = o.header_field("Units") or ""
        for suffix in SUFFIX_TYPES:
            globs = re.findall(r"\*\w+", units)     # *_ns, *_diff_ns, *_ts_ns ...
            cols = [c for c in o.columns if c.endswith(suffix)
                    and not any(fnmatch.fnmatchcase(c, g) for g in globs) and c not in units]
            if cols:
                missing.append(f"{o.path.name}: {suffix} ({', '.join(cols)})")
    assert not missing, "Units: does not say what these are:\n" + "\n".join(missing)


def test_one_word_per_meaning(empty_db, library):
    lib = library
    for word, allowed in VOCABULARY.items():
        users = {o.name for o in lib if word in o.name.split("_")
                 or any(word in c.split("_") for c in o.columns)}
        assert users == allowed, f"{word!r} used by {sorted(users)}, vocabulary says {sorted(allowed)}"
    for o in lib:
        if "op_type" in o.columns:
            assert OP_TYPE_COMMENT.search(o.column_comments["op_type"]), \
                f"{o.name}.op_type: say which op type (kernel_details.csv Type or the collective)"
    cols = _view_columns(empty_db)
    for (view, col), other in GRANDFATHERED_SYNONYMS.items():
        assert col in dict(cols[view]), f"{view}.{col} is gone: drop it from GRANDFATHERED_SYNONYMS"


def test_dependencies_come_from_table_references_only(tmp_path, library):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.sql").write_text(
        "-- a — reads nothing from b, whatever its comments say.\n"
        "CREATE OR REPLACE VIEW a AS\n"
        "SELECT 'b' AS x,  -- as in b: the literal and this comment name view b\n"
        "       'FROM b' AS y  -- FROM b\n"
        "FROM run;\n")
    (tmp_path / "t" / "b.sql").write_text(
        "-- b — reads a.\nCREATE OR REPLACE VIEW b AS\nSELECT x FROM a;\n")
    lib = {o.name: o for o in load_library(tmp_path)}
    assert lib["a"].dependencies == set() and lib["b"].dependencies == {"a"}
    real = {o.name: o for o in library}
    assert real["comm_bandwidth"].dependencies == {"comm_task"}      # its comments say "as in comm_op"
    assert real["comm_matrix"].dependencies == {"comm_task"}
    assert "comm_op" not in real["check_finding"].dependencies       # it has the literal 'comm_op '
    assert real["check_finding"].dependencies >= {"comm_op_check", "step_breakdown_check"}
    assert [o.name for o in load_library(tmp_path)] == ["a", "b"]
    # the regex registry saw a -> b here, and with b -> a a cycle that stopped every ingest
    assert lib["b"].inherited == {"x": "a"}
    assert lib["b"].column_comments["x"] == "as in b: the literal and this comment name view b"


def test_statement_head_fallback_gives_the_same_model(monkeypatch, library):
    """sqlglot 25 (the floor in pyproject) parses MACRO ... AS TABLE as an opaque Command: the
    registry then reads the head as text and parses only the SELECT. Both paths must give the
    same model."""
    from tracedb.store import library as registry
    full = {o.name: o for o in library}
    monkeypatch.setattr(registry, "_parse_create", lambda sql: None)
    fallback = {o.name: o for o in load_library()}
    assert full.keys() == fallback.keys()
    for name, o in full.items():
        f = fallback[name]
        assert (o.kind, o.schema, o.parameters, o.columns, o.column_comments, o.dependencies, o.sections) == \
            (f.kind, f.schema, f.parameters, f.columns, f.column_comments, f.dependencies, f.sections), name
        assert o.body == f.body, name
