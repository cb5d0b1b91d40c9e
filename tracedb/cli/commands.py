"""The ``tracedb`` commands: each parses its arguments, calls :mod:`tracedb.api` and renders
the result. No SQL and no parsing of data here."""
from __future__ import annotations

import sys
from typing import List, Optional

import typer

from .. import __version__, api, lazy
from ..compare.name_map import parse_name_map
from ..progress import terminal_bar
from ..query.objects import derivation_text, describe_text, short_listing
from ..render.table import DEFAULT_MAX_ROWS
from .base import (HELP_WIDTH, DbOption, ExcelSafeOption, Format, FormatOption, HelpGroup, Role, RoleOrNone,
                   TopLevel, UnitsOption, VerticalOption, WideOption, app, command, err, guarded, print_result,
                   print_rows, state, terminal_width, view_names)


def version_flag(value: bool) -> None:
    if value:
        print(f"tracedb {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(
    debug: bool = typer.Option(False, "--debug", help="Show the Python traceback on errors (also after the "
                                                      "command)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress messages on stderr (also after the "
                                                            "command)."),
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True,
                                 callback=version_flag),
) -> None:
    state["debug"] = debug
    state["quiet"] = quiet
    state["signal"] = None


@command()
def ingest(
    paths: List[str] = typer.Argument(..., help="Rank folder(s) (*_ascend_pt, *_ascend_ms), a folder of rank "
                                                "folders, a MindSpore profiler/ folder, Kineto *.pt.trace.json(.gz) "
                                                "or a folder of them, or single files: trace_view.json, "
                                                "kernel_details.csv, step_trace_time.csv, communication(_matrix).json, "
                                                "memory_record.csv, operator_memory.csv, npu_module_mem.csv, "
                                                "MindSpore (ascend_)timeline_display_{rank}.json / "
                                                "pipeline_profiling_{rank}.json, Nsight Systems *.sqlite exports."),
    db: DbOption = None,
    run: Optional[str] = typer.Option(None, "--run", help="Run name (default: the folder of PATH, or the folder "
                                                          "holding all PATHs)."),
    role: Optional[Role] = typer.Option(None, "--role", help="Mark the run as baseline or comparison for op_diff."),
    replace: bool = typer.Option(False, "--replace", help="Replace a rank's recorded file by a different one of the "
                                                          "same kind (another capture is refused without it)."),
    run_per_path: bool = typer.Option(False, "--run-per-path",
                                      help="One run per PATH (default: one ingest command is one run)."),
    allow_mixed_platforms: bool = typer.Option(False, "--allow-mixed-platforms",
                                               help="Allow GPU and NPU ranks in one run."),
    memory_limit: str = typer.Option(api.DEFAULT_INGEST_MEMORY, "--memory-limit",
                                     help="DuckDB memory limit; peak RSS stays about 100 MB above it."),
    threads: Optional[int] = typer.Option(None, "--threads", help="DuckDB threads (default: all cores)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j",
                                       help="Worker processes for the new ranks of a folder; each gets "
                                            "--memory-limit / N and --threads / N, so memory stays bounded "
                                            "by --memory-limit whatever the number of ranks. 1: the ranks in "
                                            "batches in this process, each format's files of a batch in one "
                                            "DuckDB statement. Default: one per two cores."),
    step_range_pattern: Optional[str] = typer.Option(
        None, "--step-range-pattern", help="Nsight exports: NVTX ranges whose text matches this regular expression "
                                           "(RE2) are steps; group 1 is the step number, else their order. "
                                           "Default: ^ProfilerStep#(\\d+)$."),
    storage_version: Optional[str] = typer.Option(None, "--storage-version",
                                                  help="DuckDB storage version of a new database file "
                                                       "(default v1.4.0: DuckDB 1.4 and later open it); "
                                                       "v1.0.0 for DuckDB 1.1-1.3 readers. An existing "
                                                       "file keeps its own."),
) -> None:
    """Ingest profiler output into the database, in one transaction.

    One command is one run: all PATHs are ranks of it (rank numbers from profiler_info_{rank}.json,
    Kineto distributedInfo or the file name; each is printed with its origin). A file already in
    the run (same content) is skipped; a different capture for a rank that has one is refused
    (--run NAME for a new run, --replace to replace). A failure leaves the database as it was
    (and creates no database file).

    Examples:  tracedb ingest ./job/rank0_ascend_pt ./job/rank1_ascend_pt --run npu_run --role comparison
               tracedb ingest ./gpu_traces --run gpu_run --role baseline
    """
    say = (lambda s: None) if state["quiet"] else err
    bar = terminal_bar(sys.stderr) if sys.stderr.isatty() and not state["quiet"] else None
    report = api.ingest(paths, db=db, run=run, role=role.value if role else None, replace=replace,
                        run_per_path=run_per_path, allow_mixed_platforms=allow_mixed_platforms,
                        progress=say, bar=bar, memory_limit=memory_limit, threads=threads,
                        step_range_pattern=step_range_pattern, storage_version=storage_version, jobs=jobs)
    rows = ", ".join(f"{n:,} {t}" for t, n in sorted(report.rows.items())) or "no new rows"
    skipped = len(report.files_skipped)
    what = f", skipped {skipped} already in the database" if skipped else ""
    say(f"ingested {len(report.files_ingested)} file(s){what}: {rows} into run(s) {', '.join(report.runs)} "
        f"in {report.seconds:.1f} s")


@command()
def query(
    name_or_sql: str = typer.Argument(..., help="A view name (see 'tracedb views') or a SQL statement.",
                                      autocompletion=view_names),
    db: DbOption = None,
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Baseline run name (op_diff)."),
    comparison: Optional[str] = typer.Option(None, "--comparison", help="Comparison run name (op_diff)."),
    run: Optional[str] = typer.Option(None, "--run", help="Only rows of this run name."),
    rank: Optional[int] = typer.Option(None, "--rank", help="Only rows of this rank."),
    step: Optional[int] = typer.Option(None, "--step", help="Only rows of this step."),
    fmt: FormatOption = Format.table,
    limit: Optional[int] = typer.Option(None, "--limit", help=f"At most this many rows (the table shows "
                                                             f"{DEFAULT_MAX_ROWS} without --limit or --all)."),
    all_rows: bool = typer.Option(False, "--all", help="Table: every row."),
    units: UnitsOption = None,
    wide: WideOption = False,
    vertical: VerticalOption = False,
    write: bool = typer.Option(False, "--write", help="Open the database read-write (SQL that changes data, "
                                                      "writes files or changes settings)."),
    excel_safe: ExcelSafeOption = False,
) -> None:
    """Run a named view or SQL on a read-only connection and print the result.

    Without --write only SELECT statements run: no file is written or created, no extension is
    installed or loaded, no setting changes. Local files can be read (read_csv, read_parquet).

    The table shows times in ms (or the unit that fits), bytes in MiB/GiB, ratios in %, and at
    most 40 rows, fitted to the terminal; csv, json, ndjson and markdown print the raw values
    (integer ns, bytes).

    Examples:

    \b
      tracedb query step_breakdown --rank 0 --format csv
      tracedb query op_diff --baseline gpu_run --comparison npu_run --limit 20
      tracedb query "SELECT run_name, rank, sum(dur_ns) AS free_ns FROM free_time GROUP BY run_name, rank"
      tracedb query free_time --all --units us
      tracedb query slow_rank -x --limit 2
      tracedb query kernel --rank 0 --limit 5 --wide
    """
    with api.query_rows(name_or_sql, db=db, baseline=baseline, comparison=comparison, run=run, rank=rank,
                        step=step, limit=limit, write=write) as rows:
        shown = print_rows(rows, fmt, units=units, wide=wide, vertical=vertical, excel=excel_safe,
                           max_rows=None if (all_rows or limit is not None) else DEFAULT_MAX_ROWS)
        hint = rows.empty_hint() if shown == 0 else None
    if hint and not state["quiet"]:
        err(f"hint: {hint}.")


@command()
def views(db: DbOption = None, fmt: FormatOption = Format.table) -> None:
    """List the public views and table macros installed in the database, one line each (the
    other formats give each whole summary).

    Example:  tracedb views --format markdown
    """
    res = api.views(db)
    print_result(short_listing(res) if fmt == Format.table else res, fmt)


@command()
def describe(
    name: str = typer.Argument(..., help="View, macro or table name.", autocompletion=view_names),
    db: DbOption = None,
    fmt: FormatOption = Format.table,
) -> None:
    """Show what a view answers, its units, the reference tool's name for it and its columns; then
    how it is computed (grain, source, reference, method).

    Example:  tracedb describe step_breakdown
    """
    header, res = api.describe(name, db)
    width = terminal_width()
    if fmt == Format.table:
        sys.stdout.write(describe_text(name, header, width) + "\n")
    print_result(res, fmt, wrap_last=True)
    if fmt == Format.table:
        derivation = derivation_text(header, width)
        sys.stdout.write(("\n" + derivation) if derivation else "")


runs_app = typer.Typer(cls=HelpGroup, no_args_is_help=False, rich_markup_mode=None,
                       context_settings={"max_content_width": HELP_WIDTH})
app.add_typer(runs_app, name="runs")


@runs_app.callback(invoke_without_command=True)
@guarded
def runs(ctx: typer.Context, db: DbOption = None, fmt: FormatOption = Format.table) -> None:
    """List the runs with their role, platform, ranks, steps, files, kernels and events;
    remove, rename or re-role a run with the commands below (each one transaction).

    Examples:

    \b
      tracedb runs
      tracedb runs set-role npu_run baseline
      tracedb runs rename npu_run npu_cann8
      tracedb runs rm old_run
    """
    ctx.obj = {"db": db}
    if ctx.invoked_subcommand is None:
        print_result(api.runs(db), fmt)


def runs_db(ctx: typer.Context, db: Optional[str]) -> Optional[str]:
    """--db of the subcommand, else of ``tracedb runs --db X …``."""
    return db or (ctx.obj or {}).get("db")


@command("rm", app=runs_app)
def runs_rm(ctx: typer.Context, run: str = typer.Argument(..., help="Run name (see 'tracedb runs')."),
            db: DbOption = None) -> None:
    """Delete a run and all its rows (every table with a run_id), in one transaction.

    Example:  tracedb runs rm old_run
    """
    deleted = api.runs_rm(run, runs_db(ctx, db))
    if not state["quiet"]:
        err(f"removed run {run}: {sum(deleted.values()):,} rows in {len(deleted)} tables")


@command("rename", app=runs_app)
def runs_rename(ctx: typer.Context, old: str = typer.Argument(..., help="Current run name."),
                new: str = typer.Argument(..., help="New run name."), db: DbOption = None) -> None:
    """Rename a run.

    Example:  tracedb runs rename npu_run npu_cann8
    """
    api.runs_rename(old, new, runs_db(ctx, db))
    if not state["quiet"]:
        err(f"renamed run {old} to {new.strip()}")


@command("set-role", app=runs_app)
def runs_set_role(ctx: typer.Context, run: str = typer.Argument(..., help="Run name."),
                  role: RoleOrNone = typer.Argument(..., help="baseline, comparison or none."),
                  db: DbOption = None) -> None:
    """Make a run the baseline or the comparison of op_diff (the run that held the role loses it), or
    clear its role with none.

    Example:  tracedb runs set-role gpu_run baseline
    """
    change = api.runs_set_role(run, role.value, runs_db(ctx, db))
    if not state["quiet"]:
        notes = ([f"{change.taken_from} is no longer {role.value}"] if change.taken_from else []) + (
            [f"it is no longer {change.previous_role}"] if change.previous_role else [])
        what = f"is now {role.value}" if role != RoleOrNone.none else "has no role now"
        err(f"run {run} {what}" + (f" ({'; '.join(notes)})" if notes else ""))


@command()
def summary(
    db: DbOption = None,
    run: Optional[str] = typer.Option(None, "--run", help="Only this run (default: every run)."),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Baseline run of the comparison (default: "
                                                                    "the run with the role)."),
    comparison: Optional[str] = typer.Option(None, "--comparison", help="Comparison run (default: the run with "
                                                                        "the role)."),
    fmt: FormatOption = Format.table,
) -> None:
    """Say in plain words what is slow and why: for a baseline/comparison pair the headline (the
    comparison's step against the baseline's, the part that grew most) and the top op of op_diff;
    per run the step's split, input-bound steps and the pipeline op to blame, the stream that idles
    most and what the host was in, why the device is free, the slowest rank and the one it waits
    for, the slowest link, unaligned communication sizes, the top fusion candidate, blocking copies,
    misaligned matrix shapes and the precision mix (where the file has those views), dynamic shapes,
    the memory peak and the check findings. Each finding has its number, threshold, rule and the
    query that shows it; --format json keeps the raw fields.

    Examples:

    \b
      tracedb summary
      tracedb summary --run npu_run
      tracedb summary --baseline gpu_run --comparison npu_run --format json
    """
    findings = api.summary(db, run=run, baseline=baseline, comparison=comparison)
    if fmt == Format.table:
        sys.stdout.write(lazy.summary.render_text(findings, terminal_width()))
    else:
        summary_mod = lazy.summary
        print_result(api.Result(summary_mod.FINDING_COLUMNS,
                                summary_mod.finding_rows(findings, as_text=fmt.value in ("csv", "markdown"))), fmt)


@command()
def report(
    output: str = typer.Option(..., "--output", "-o", help="HTML file to write (self-contained, works offline)."),
    db: DbOption = None,
    run: Optional[str] = typer.Option(None, "--run", help="Run of the charts (default: the comparison run, else "
                                                          "the first run); the findings cover every run."),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Baseline run of the op diff chart (default: "
                                                                    "the run with the role)."),
    comparison: Optional[str] = typer.Option(None, "--comparison", help="Comparison run (default: the run with "
                                                                        "the role)."),
    png: Optional[str] = typer.Option(None, "--png", help="Also write each chart as DIR/<chart>.png (needs "
                                                          "headless Chromium: apt-get install chromium)."),
) -> None:
    """Write one HTML page with a section per cause (comparison, step, input pipeline, idle time,
    host, ranks and links, compute, memory, data checks): the summary's findings of that cause, then
    its charts, each drawn from a view it names, the SQL folded under it — overall comparison and op
    diff bars of a baseline/comparison pair, step stack and rank × step heat map (step_breakdown),
    data-loading share per step (input_bound), idle time per stream by cause (idle_time), the
    free-time timeline of the slowest step, fusion candidates, annotated ranges (range_time), the
    link bandwidth matrix (comm_matrix), matrix-op shapes and FLOPS (where the file has those
    views), memory over time. plotly.js is embedded: the file opens offline.

    Examples:

    \b
      tracedb report -o report.html
      tracedb report -o report.html --baseline gpu_run --comparison npu_run
    """
    rep = api.report(output, db=db, run=run, baseline=baseline, comparison=comparison, png=png)
    if not state["quiet"]:
        skipped = [f"{c.key} ({c.note})" for c in rep.charts if c.figure is None]
        err(f"wrote {output}: {len(rep.drawn)} charts" + (f"; skipped: {'; '.join(skipped)}" if skipped else ""))


@command()
def export(
    parquet: Optional[str] = typer.Option(None, "--parquet", help="Folder to write (must be new or empty)."),
    perfetto: Optional[str] = typer.Option(None, "--perfetto", help="Chrome trace JSON file to write (opens in "
                                                                    "ui.perfetto.dev): one run/rank/step."),
    db: DbOption = None,
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the folder's content."),
    run: Optional[str] = typer.Option(None, "--run", help="--perfetto: run name (needed when there are several)."),
    rank: Optional[int] = typer.Option(None, "--rank", help="--perfetto: rank (needed when the run has several)."),
    step: Optional[int] = typer.Option(None, "--step", help="--perfetto: only this step's host and device window."),
) -> None:
    """Export every table as Parquet partitioned by run and rank, plus views.sql for other engines;
    or (--perfetto) one rank's timeline as Chrome trace JSON for ui.perfetto.dev.

    Run views.sql from the export folder to get the same views in any DuckDB session (the
    tables become views over read_parquet); Spark and Trino can read the same files.

    The --perfetto file has one track per device stream (kernels; overlapping ones on extra
    "overlap" tracks), the framework ops per host thread, and tracks with the rows of free_time and
    uncovered_communication; timestamps keep their integer ns.

    Examples:

    \b
      tracedb export --parquet out/ && cd out && duckdb -c ".read views.sql" -c "FROM op_diff"
      tracedb export --perfetto rank0.json --run npu_run --rank 0 --step 50
    """
    if (parquet is None) == (perfetto is None):
        err("tracedb: error: give exactly one of --parquet DIR (every table) or --perfetto FILE (one rank's "
             "timeline).")
        raise typer.Exit(2)
    if perfetto is not None:
        counts = api.export_perfetto(perfetto, db=db, run=run, rank=rank, step=step)
        if not state["quiet"]:
            tracks = counts.pop("tracks")
            err(f"exported {sum(counts.values()):,} slices on {tracks} tracks to {perfetto}: "
                 + ", ".join(f"{n:,} {c}" for c, n in counts.items()))
        return
    written = api.export(parquet, db=db, overwrite=overwrite)
    if not state["quiet"]:
        err(f"exported {sum(written.values()):,} rows of {len(written)} tables to {parquet}")


@command()
def check(
    db: DbOption = None,
    run: Optional[str] = typer.Option(None, "--run", help="Only findings of this run name."),
    fmt: FormatOption = Format.table,
) -> None:
    """Check the data for inconsistencies; exit 1 when there is an error finding.

    Errors: steps that do not tile, negative durations. Warnings: differences to the profiler's own
    step_trace_time.csv, kernels outside every step or longer than their step, kernels without a
    launching framework op, skewed step starts, missing ranks, communication op counts that differ
    across ranks.

    Example:  tracedb check --format markdown
    """
    res, errors = api.check(db, run=run)
    print_result(res, fmt, wrap_last=True)
    if not state["quiet"]:
        err(f"{errors} error(s), {len(res.rows) - errors} warning(s)")
    raise typer.Exit(1 if errors else 0)


@command()
def reclassify(db: DbOption = None) -> None:
    """Apply the kernel classification rules again to every kernel in the database.

    The rules are the table kernel_class_rule (category, sub-category, direction, collective per
    kernel name / op type / core / launching op pattern); ingest applies them once per rank.
    After adding or changing a rule with SQL, run this so step_breakdown, kernel_category and
    the other views follow it.

    Examples:
      tracedb query --write "UPDATE kernel_class_rule SET enabled = false WHERE rule_id = 25"
      tracedb reclassify
    """
    n = api.reclassify(db)
    if not state["quiet"]:
        err(f"classified the kernels of {n} rank(s)")


@command()
def compare(
    baseline: str = typer.Argument(..., help="Baseline: a run name, or a profiler folder / trace file to ingest "
                                             "(run name = its folder name)."),
    comparison: str = typer.Argument(..., help="Comparison: a run name, or a profiler folder / trace file to ingest."),
    db: DbOption = None,
    op_name_map: List[str] = typer.Option([], "--op-name-map", help="BASELINE_NAME=COMPARISON_NAME: ops that are the "
                                                                    "same on both sides (repeatable; kept in table "
                                                                    "op_name_map)."),
    op_name_map_file: Optional[str] = typer.Option(None, "--op-name-map-file",
                                                   help="File of BASELINE_NAME=COMPARISON_NAME lines (# comments)."),
    use_input_shape: bool = typer.Option(False, "--use-input-shape",
                                         help="Match ops on name + input dims, not the name alone."),
    max_kernel_num: Optional[int] = typer.Option(None, "--max-kernel-num",
                                                 help="Align the children of a matched op pair with more kernels "
                                                      "than this (default: top-level ops only)."),
    top_level: TopLevel = typer.Option(TopLevel.thread, "--top-level",
                                       help="Whose top-level ops are aligned: tracedb's, per host thread "
                                            "(thread), or msprof-analyze's, one tree over every thread "
                                            "(msprof: an op inside another thread's '## backward ##' "
                                            "annotation is not top level)."),
    baseline_step: Optional[int] = typer.Option(None, "--baseline-step", help="Compare only this step of the baseline."),
    comparison_step: Optional[int] = typer.Option(None, "--comparison-step",
                                                  help="Compare only this step of the comparison."),
    per_step: bool = typer.Option(False, "--per-step", help="First table: step_comparison, the mean step of "
                                                            "each run, instead of the whole-capture "
                                                            "overall_comparison (as when a step is chosen)."),
    limit: int = typer.Option(20, "--limit", help="Rows of op_diff to print."),
    memory_limit: Optional[str] = typer.Option(
        None, "--memory-limit", help="DuckDB memory limit (default when a side is a path: 1300MB, as tracedb "
                                     "ingest). Two path sides are ingested at the same time when their files "
                                     "together take at most half of it, else one after the other."),
    fmt: FormatOption = Format.table,
    excel_safe: ExcelSafeOption = False,
) -> None:
    """Compare two runs at the framework-op level (msprof-analyze compare, in SQL views).

    Ingests the sides given as paths (same process), makes them the baseline and comparison run,
    stores the op name map, the steps and the op and module alignments (tables op_match,
    module_match), then prints, each table titled with the runs and fitted to the terminal:
    overall_comparison (whole capture; with --baseline-step / --comparison-step or --per-step
    step_comparison, the compared steps, instead), step_comparison as well when the captures hold
    different numbers of steps (with a warning), and the top of op_diff (ops both runs have first,
    then by |diff|). Notes on stderr suggest --op-name-map items for ops that differ only by the
    autograd prefix of newer PyTorch versions. The views stay in the file: op_diff, op_alignment,
    kernel_diff, api_diff, communication_diff, module_diff, module_alignment, step_comparison (and
    their *_between macros) answer further questions with 'tracedb query'. markdown prints each
    view's own columns; csv / json / ndjson print op_diff only.

    Examples:

    \b
      tracedb compare ./gpu_traces ./npu_run --db cmp.duckdb
      tracedb compare gpu_run npu_run --op-name-map 'Optimizer.step#SGD.step=Optimizer.step#NpuFusedSGD.step'
      tracedb compare old_run npu_run --baseline-step 50 --comparison-step 50 --max-kernel-num 10
      tracedb compare gpu_run npu_run --top-level msprof
      tracedb query op_alignment --limit 50
    """
    say = (lambda s: None) if state["quiet"] else err
    report = api.compare(baseline, comparison, db, name_map=parse_name_map(op_name_map, op_name_map_file),
                         use_input_shape=use_input_shape, max_kernel_num=max_kernel_num,
                         baseline_step=baseline_step, comparison_step=comparison_step, limit=limit, progress=say,
                         memory_limit=memory_limit, per_step=per_step, top_level=top_level.value)
    say(f"baseline {report.baseline}, comparison {report.comparison}: {report.pairs:,} aligned op rows, "
        f"{report.matched:,} matched pairs (tracedb query op_alignment)")
    for note in report.notes:
        err(f"note: {note}")
    sys.stdout.write(lazy.compare_show.render_report(report, fmt.value, terminal_width(), excel=excel_safe))


