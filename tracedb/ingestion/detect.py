"""Recognise what a PATH holds: Ascend rank folders, Kineto traces, or single files.

Returns :class:`RankInput` units (one rank's files) grouped into :class:`RunInput` (one run).
Nothing is read beyond file names, the first bytes of JSON files and small metadata files.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from . import metadata
from .sources.jsonbytes import first_byte
from .sources.paths import regular

ASCEND_DIR_SUFFIXES = ("_ascend_pt", "_ascend_ms")
OUTPUT_DIR = "ASCEND_PROFILER_OUTPUT"

# file name -> format, inside a rank folder's ASCEND_PROFILER_OUTPUT
ASCEND_FILES = {
    "trace_view.json": "trace_view",
    "kernel_details.csv": "kernel_details",
    "step_trace_time.csv": "step_trace_time",
    "communication.json": "communication",
    "communication_matrix.json": "communication_matrix",
    "memory_record.csv": "memory_record",
    "operator_memory.csv": "operator_memory",
    "npu_module_mem.csv": "npu_module_mem",
}
STEP_TRACE_RAW = re.compile(r"^step_trace_raw_(\d+)_detail_time\.csv$", re.I)
# torch_npu export_type=db: the profiler DB and its analysis.db (same folder)
ASCEND_DB = re.compile(r"^ascend_pytorch_profiler(?:_(\d+))?\.db$", re.I)
ANALYSIS_DB = "analysis.db"
# a rank folder holding the DB form reads only it (and analysis.db): the text files are the same capture
TEXT_FORMS = ("trace_view", "kernel_details", "step_trace_time", "communication", "communication_matrix",
              "memory_record", "operator_memory", "npu_module_mem")
HCCL_RAW = re.compile(r"^hccl_raw_(\d+)\.csv$", re.I)
HCCL_INFO = re.compile(r"^hccl_info(?:_(\d+))?$", re.I)
# MindSpore flat-folder files with the rank in the name: format, pattern (group 1 = rank);
# the first format of a rank wins where two describe the same data (see mindspore_ranks)
MS_FILES = (("mindspore_timeline", re.compile(r"^ascend_timeline_display_(\d+)\.json$", re.I)),
            ("mindspore_timeline", re.compile(r"^timeline_display_(\d+)\.json$", re.I)),
            ("minddata_pipeline", re.compile(r"^pipeline_profiling_(\d+)\.json$", re.I)),
            ("minddata_pipeline", re.compile(r"^minddata_pipeline_raw_(\d+)\.csv$", re.I)),
            # the device-queue trace: sink mode's device queue, else non-sink mode's dataset iterator
            # (MindSpore MinddataProfilingAnalyzer looks for them in this order)
            ("minddata_queue", re.compile(r"^device_queue_profiling_(\d+)\.txt$", re.I)),
            ("minddata_queue", re.compile(r"^dataset_iterator_profiling_(\d+)\.txt$", re.I)),
            ("minddata_cpu", re.compile(r"^minddata_cpu_utilization_(\d+)\.json$", re.I)),
            ("mindspore_flops_summary", re.compile(r"^flops_summary_(\d+)\.json$", re.I)),
            ("mindspore_flops_scope", re.compile(r"^flops_scope_(\d+)\.json$", re.I)))
STEP_POINT = re.compile(r"^step_trace_point_info(?:_(\d+))?\.json$", re.I)
_KINETO_NAME = re.compile(r"\.(pt\.trace\.)?json(\.gz)?$", re.I)
_PT_TRACE_NAME = re.compile(r"\.pt\.trace\.json(\.gz)?$", re.I)
_NSYS_NAME = re.compile(r"\.sqlite3?$", re.I)     # nsys export --type sqlite writes <report>.sqlite
_RANK_IN_NAME = re.compile(r"(?:^|[^a-z])rank[_-]?(\d+)", re.I)


@dataclass
class RankInput:
    """One rank's input files."""

    platform: str                       # npu | gpu
    source: Path                        # rank folder or trace file
    files: dict[str, Path] = field(default_factory=dict)   # format -> path
    rank: int | None = None
    rank_source: str = "default"
    device_id: int | None = None
    world_size: int | None = None
    profiler_level: str | None = None
    framework_version: str | None = None
    framework: str | None = None        # torch_npu | mindspore, when profiler_info or the folder says
    layout: str = "ascend"              # ascend (rank folder) | kineto | mindspore (flat profiler/ folder)
    hccl_traces: list[tuple[str, Path]] = field(default_factory=list)   # (op tag, iter*.trace)
    timelines: list[Path] = field(default_factory=list)   # CANN PROF_*/device_*/timeline/*.json slices


@dataclass
class RunInput:
    """One run: a default name and its ranks."""

    default_name: str
    ranks: list[RankInput]
    folder: Path | None = None          # the folder the default name is taken from


DEVICE_DIR = re.compile(r"^device_(\d+)$")
TIMELINE_FILE = re.compile(r"^(msprof|task_time|hccl|step_trace)_.*\.json$")


def timeline_dirs(folder: Path) -> list[Path]:
    """The CANN msprof timeline folders (PROF_*/device_<n>/timeline) in or at ``folder``: a folder
    holding PROF_* folders, a PROF_* folder, a device_<n> folder or the timeline folder itself."""
    if folder.name == "timeline" and DEVICE_DIR.match(folder.parent.name):
        return [folder]
    if DEVICE_DIR.match(folder.name):
        return [folder / "timeline"] if (folder / "timeline").is_dir() else []
    if folder.name.startswith("PROF_"):
        return sorted(d for d in folder.glob("device_*/timeline") if DEVICE_DIR.match(d.parent.name))
    return sorted(d for d in folder.glob("PROF_*/device_*/timeline") if DEVICE_DIR.match(d.parent.name))


def mindspore_ranks(folder: Path) -> list[RankInput]:
    """Ranks of a MindSpore flat ``profiler/`` folder (or of a folder holding ``profiler/``):
    step_trace_raw_{rank}_detail_time.csv, hccl_raw_{rank}.csv, hccl_info[_{rank}]/<op>/iter*.trace.
    A ``hccl_info`` folder without a rank belongs to the only rank of the folder."""
    if not folder.is_dir():
        return []
    if (folder / "profiler").is_dir() and not any(STEP_TRACE_RAW.match(c.name) for c in folder.iterdir()):
        folder = folder / "profiler"
    units: dict[int, RankInput] = {}

    def unit(rank: int) -> RankInput:
        if rank not in units:
            units[rank] = RankInput(platform="npu", source=folder, rank=rank, rank_source="file_name",
                                    layout="mindspore")
        return units[rank]

    infos, points = [], []
    children = sorted(folder.iterdir())
    # ascend_timeline_display before timeline_display, pipeline_profiling JSON before the CSV
    # MindSpore parses from it: one file per (rank, format), the first pattern's
    for fmt, pattern in MS_FILES:
        for c in children:
            m = pattern.match(c.name)
            if m and regular(c):
                unit(int(m.group(1))).files.setdefault(fmt, c)
    for c in children:
        m = STEP_POINT.match(c.name)
        if m and regular(c):
            points.append((int(m.group(1)) if m.group(1) else None, c))
    for c in children:
        m = STEP_TRACE_RAW.match(c.name) or HCCL_RAW.match(c.name)
        if m and regular(c):
            unit(int(m.group(1))).files["step_trace_raw" if c.name.lower().startswith("step") else "hccl_raw"] = c
        m = HCCL_INFO.match(c.name)
        if m and c.is_dir():
            infos.append((int(m.group(1)) if m.group(1) else None, c))
    # CANN msprof timeline slices: the combined msprof_*.json holds the hccl_* and task_time_*
    # slices, so those are read only when no msprof_*.json is there; step_trace_* always
    for tl in timeline_dirs(folder):
        dev = DEVICE_DIR.match(tl.parent.name)
        files = sorted(f for f in tl.glob("*.json") if regular(f))
        combined = [f for f in files if f.name.startswith("msprof_")]
        keep = [f for f in files if f.name.startswith("step_trace_")] + (combined or [
            f for f in files if f.name.startswith(("hccl_", "task_time_"))])
        if keep and dev:
            unit(int(dev.group(1))).timelines.extend(sorted(keep))
    for rank, path in points:
        # step_trace_point_info[_{device}].json: of the rank of that number, else of the only rank
        if rank not in units:
            if len(units) != 1:
                continue
            rank = next(iter(units))
        units[rank].files["step_trace_point"] = path
    for rank, d in infos:
        if rank is None:
            if len(units) > 1:
                continue   # cannot tell whose tasks they are
            rank = next(iter(units)) if units else 0
        for trace in sorted(d.glob("*/iter*.trace")):
            if regular(trace):
                unit(rank).hccl_traces.append((trace.parent.name, trace))
    return [units[r] for r in sorted(units)]


def is_ascend_rank_dir(path: Path) -> bool:
    return path.is_dir() and (path.name.endswith(ASCEND_DIR_SUFFIXES) or (path / OUTPUT_DIR).is_dir())


def rank_from_name(name: str) -> int | None:
    m = _RANK_IN_NAME.search(name)
    return int(m.group(1)) if m else None


def ascend_rank(folder: Path) -> RankInput:
    """Collect the files of one Ascend rank folder (``*_ascend_pt`` / ``*_ascend_ms``)."""
    unit = RankInput(platform="npu", source=folder,
                     framework="mindspore" if folder.name.endswith("_ascend_ms") else None)
    out = folder / OUTPUT_DIR
    for name, fmt in ASCEND_FILES.items():
        if regular(out / name):
            unit.files[fmt] = out / name
    _add_db_files(unit, out)
    metadata.fill_ascend_rank(unit, folder)
    if unit.rank is None:
        r = rank_from_name(folder.name)
        if r is None and "ascend_db" in unit.files:
            r = db_rank(unit.files["ascend_db"])
        if r is not None:
            unit.rank, unit.rank_source = r, "file_name"
    if not unit.files:
        raise InputError(f"rank folder has no {OUTPUT_DIR}/trace_view.json, kernel_details.csv, "
                         "step_trace_time.csv or ascend_pytorch_profiler_{rank}.db." + reference_only(folder),
                         file=str(folder),
                         hint="point tracedb at a *_ascend_pt / *_ascend_ms folder written by the profiler.")
    return unit


def db_rank(path: Path) -> int | None:
    """The rank in ascend_pytorch_profiler_{rank}.db (torch_npu names the file after it)."""
    m = ASCEND_DB.match(path.name)
    return int(m.group(1)) if m and m.group(1) else None


def _add_db_files(unit: RankInput, out: Path) -> None:
    """The DB form of the capture in ``out`` (ascend_pytorch_profiler_{rank}.db, analysis.db): when
    present it is read instead of the text files (one capture is read once; see docs/formats.md)."""
    dbs = sorted(c for c in out.glob("*.db") if ASCEND_DB.match(c.name) and regular(c)) if out.is_dir() else []
    if not dbs:
        return
    for fmt in TEXT_FORMS:
        unit.files.pop(fmt, None)
    unit.files["ascend_db"] = dbs[0]
    if regular(out / ANALYSIS_DB):
        unit.files["analysis_db"] = out / ANALYSIS_DB


# files tracedb knows but does not ingest on their own: what they are, for the error that names them
REFERENCE_ONLY = (
    (re.compile(r"^analysis\.db$", re.I),
     "torch_npu's analysis.db, statistics derived from the profiler DB: tracedb reads it only beside "
     "ascend_pytorch_profiler_{rank}.db in the same ASCEND_PROFILER_OUTPUT"),
    (re.compile(r"^msprof_[\w.-]*\.db$", re.I),
     "CANN msprof's database export, which tracedb does not read: ingest the torch_npu rank folder "
     "(*_ascend_pt with ASCEND_PROFILER_OUTPUT) or CANN's timeline JSON (PROF_*/device_*/timeline)"),
)


def reference_only(folder: Path) -> str:
    """`` It holds X, what X is.`` for the files in ``folder`` (and two levels below) that tracedb
    knows but cannot ingest on their own (analysis.db without the profiler DB, CANN's msprof_*.db);
    '' when there is none."""
    found = []
    for depth in ("*", "*/*", "*/*/*"):
        for f in sorted(folder.glob(depth)):
            what = next((text for pattern, text in REFERENCE_ONLY if pattern.match(f.name)), None)
            if what and f.is_file() and len(found) < 3:
                found.append(f"{f.relative_to(folder)}, {what}")
    return (" It holds " + "; ".join(found) + ".") if found else ""


def msprof_analyze_output(path: Path) -> None:
    """msprof-analyze's own output (cluster_analysis_output/, cluster_analysis.db) is refused
    with what to ingest instead."""
    name = path.name.lower()
    inside = any(p.name.lower() == "cluster_analysis_output" for p in [path, *path.parents])
    if name == "cluster_analysis.db" or inside:
        raise InputError("this is msprof-analyze's cluster analysis output (derived from the profiler data), "
                         "not profiler data.", file=str(path),
                         hint="ingest the folder msprof-analyze read instead: the *_ascend_pt / *_ascend_ms "
                              "rank folders (their ASCEND_PROFILER_OUTPUT).")


def kineto_rank(path: Path) -> RankInput:
    unit = RankInput(platform="gpu", source=path, files={"kineto": path}, layout="kineto")
    r = rank_from_name(path.name)
    if r is not None:
        unit.rank, unit.rank_source = r, "file_name"
    return unit


def nsys_rank(path: Path) -> RankInput:
    """An Nsight Systems SQLite export: one GPU rank (the rank from the file name, else the next free)."""
    unit = RankInput(platform="gpu", source=path, files={"nsys": path}, layout="nsys")
    r = rank_from_name(path.name)
    if r is not None:
        unit.rank, unit.rank_source = r, "file_name"
    return unit


def _classify_file(path: Path) -> RankInput:
    name = path.name
    if not path.exists():
        raise InputError("no such file or folder.", file=str(path))
    parent = path.parent
    rank_dir = parent.parent if parent.name == OUTPUT_DIR else None
    fmt = ASCEND_FILES.get(name)
    if ASCEND_DB.match(name):
        fmt = "ascend_db"
    elif name.lower() == ANALYSIS_DB:
        fmt = "analysis_db"
    if fmt is None and name.lower().endswith(".csv") and name.lower().startswith("kernel_details"):
        fmt = "kernel_details"
    if fmt is None and name.lower().endswith(".json") and name.lower().startswith("communication_matrix"):
        fmt = "communication_matrix"
    elif fmt is None and name.lower().endswith(".json") and name.lower().startswith("communication"):
        fmt = "communication"
    m = STEP_TRACE_RAW.match(name) or HCCL_RAW.match(name)
    if fmt is None and m:
        unit = RankInput(platform="npu", source=parent, rank=int(m.group(1)), rank_source="file_name",
                         layout="mindspore")
        unit.files["step_trace_raw" if name.lower().startswith("step") else "hccl_raw"] = path
        return unit
    if fmt is None and name.endswith(".trace"):
        r = HCCL_INFO.match(parent.parent.name)
        rank = int(r.group(1)) if r and r.group(1) else 0
        unit = RankInput(platform="npu", source=parent, rank=rank, rank_source="file_name" if r and r.group(1)
                         else "default", layout="mindspore")
        unit.hccl_traces.append((parent.name, path))
        return unit
    ms = next(((f, m) for f, pattern in MS_FILES if (m := pattern.match(name))), None)
    if fmt is None and ms:
        unit = RankInput(platform="npu", source=parent, rank=int(ms[1].group(1)), rank_source="file_name",
                         layout="mindspore", framework="mindspore")
        unit.files[ms[0]] = path
        return unit
    if fmt is None and STEP_POINT.match(name):
        # the rank of the folder's other MindSpore files when they name exactly one
        ranks = [u.rank for u in mindspore_ranks(parent)]
        unit = RankInput(platform="npu", source=parent, files={"step_trace_point": path}, layout="mindspore",
                         framework="mindspore")
        if len(ranks) == 1:
            unit.rank, unit.rank_source = ranks[0], "file_name"
        return unit
    if fmt is None and TIMELINE_FILE.match(name) and parent.name == "timeline" and DEVICE_DIR.match(parent.parent.name):
        # one CANN msprof timeline file (PROF_*/device_<n>/timeline): a rank numbered by its device
        unit = RankInput(platform="npu", source=parent, rank=int(DEVICE_DIR.match(parent.parent.name).group(1)),
                         rank_source="file_name", layout="mindspore")
        unit.timelines.append(path)
        return unit
    if fmt is None and _NSYS_NAME.search(name):
        return nsys_rank(path)
    if fmt is None and _KINETO_NAME.search(name):
        kind = first_byte(path)
        if kind == b"[":
            fmt = "trace_view"
        elif kind == b"{":
            return kineto_rank(path)
        elif kind == b"":
            raise InputError("file is empty.", file=str(path), place="byte 0")
        else:
            raise InputError(f"not a JSON trace (starts with {kind!r}).", file=str(path), place="byte 0")
    if fmt is None:
        raise InputError("unrecognised file: expected trace_view.json, kernel_details.csv, "
                         "step_trace_time.csv, communication(_matrix).json, memory_record.csv, operator_memory.csv, "
                         "npu_module_mem.csv, ascend_pytorch_profiler_{rank}.db, analysis.db, MindSpore step_trace_raw_*_detail_time.csv / hccl_raw_*.csv / *.trace / flops_summary_*.json / flops_scope_*.json, "
                         "MindSpore pipeline_profiling_*.json / device_queue_profiling_*.txt / minddata_cpu_utilization_*.json, "
                         "a Kineto *.pt.trace.json(.gz), an Nsight Systems *.sqlite export, "
                         "or a folder of them.",
                         file=str(path))
    unit = RankInput(platform="npu", source=rank_dir or path, files={fmt: path})
    if rank_dir is not None:
        metadata.fill_ascend_rank(unit, rank_dir)
    if unit.rank is None:
        r = rank_from_name((rank_dir or parent).name)
        if r is None and fmt == "ascend_db":
            r = db_rank(path)
        if r is not None:
            unit.rank, unit.rank_source = r, "file_name"
    return unit


def _run_folder(path: Path) -> Path:
    """The folder that names a run by default: the folder itself, the rank folder of a file in
    ASCEND_PROFILER_OUTPUT, else the file's folder."""
    path = path.resolve()
    if path.is_dir():
        return path.parent if path.name == OUTPUT_DIR else path
    if path.parent.name == OUTPUT_DIR:
        return path.parent.parent
    return path.parent


def detect(path: Path) -> RunInput:
    """Recognise PATH.

    Args:
        path: a supported file, a rank folder, a folder of rank folders, a Kineto trace or a
            folder of Kineto traces.

    Returns:
        RunInput with one RankInput per rank found.

    Raises:
        InputError: nothing recognisable, or the path does not exist.
    """
    path = Path(path)
    if not path.exists():
        raise InputError("no such file or folder.", file=str(path))
    msprof_analyze_output(path.resolve())
    folder = _run_folder(path)
    name = folder.name
    if path.is_file():
        return RunInput(name, [_classify_file(path)], folder)
    if not path.is_dir():
        raise InputError("not a regular file or folder.", file=str(path))
    if path.name == OUTPUT_DIR:
        return RunInput(path.parent.name, [ascend_rank(path.parent)], folder)
    if is_ascend_rank_dir(path):
        return RunInput(name, [ascend_rank(path)], folder)
    try:
        children = sorted(path.iterdir())
    except PermissionError as e:
        raise InputError("cannot list folder (permission denied).", file=str(path)) from e
    ms = mindspore_ranks(path)
    if ms:
        # MindSpore writes into <output dir>/profiler: the output dir names the job
        if path.name == "profiler":
            folder = path.resolve().parent
        return RunInput(folder.name, ms, folder)
    rank_dirs = [c for c in children if is_ascend_rank_dir(c)]
    if not rank_dirs:   # one more level: e.g. PROF folders or host folders holding rank folders
        rank_dirs = [g for c in children if c.is_dir() for g in sorted(c.iterdir()) if is_ascend_rank_dir(g)]
    units = [ascend_rank(d) for d in rank_dirs]
    for c in children:
        # a *.pt.trace.json(.gz) or *.sqlite name is a profiler's; a plain *.json may be anything
        if _NSYS_NAME.search(c.name) or _PT_TRACE_NAME.search(c.name):
            if not regular(c):
                continue
        elif not c.is_file():
            continue
        if _KINETO_NAME.search(c.name) and first_byte(c) == b"{":
            units.append(kineto_rank(c))
        elif _NSYS_NAME.search(c.name):
            units.append(nsys_rank(c))
    if not units:
        raise InputError("nothing recognisable in this folder: no *_ascend_pt / *_ascend_ms rank folder, "
                         "no ASCEND_PROFILER_OUTPUT, no MindSpore profiler/ files, no Kineto *.json(.gz) trace, no Nsight *.sqlite export."
                         + reference_only(path), file=str(path))
    return RunInput(name, units, folder)
