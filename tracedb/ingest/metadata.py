"""profiler_info_{rank}.json and profiler_metadata.json → rank, device, level, versions.

These files are a few KB; they are read with :mod:`json`.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import InputError

_INFO = re.compile(r"^profiler_info(?:_(\d+))?\.json$")


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise InputError(f"malformed JSON: {e.msg}", file=str(path),
                         place=f"line {e.lineno}, column {e.colno}") from e
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror}", file=str(path)) from e
    if not isinstance(data, dict):
        raise InputError("expected a JSON object.", file=str(path), place="byte 0")
    return data


def fill_ascend_rank(unit, folder: Path) -> None:
    """Set rank, level and versions of ``unit`` from the profiler_info file of ``folder``.

    Rank: the number in ``profiler_info_{rank}.json`` (what msprof-analyze uses), else the
    file's ``rank_id`` (an int or a string). Several profiler_info files: the one with a rank.
    """
    infos = sorted((p for p in folder.glob("profiler_info*.json") if _INFO.match(p.name)),
                   key=lambda p: (_INFO.match(p.name).group(1) is None, p.name))
    if not infos:
        return
    path = infos[0]
    data = _load(path)
    unit.files["profiler_info"] = path
    m = _INFO.match(path.name)
    rank = int(m.group(1)) if m.group(1) is not None else None
    if rank is None and str(data.get("rank_id", "")).strip().lstrip("-").isdigit():
        rank = int(str(data["rank_id"]).strip())
    if rank is not None and rank >= 0:
        unit.rank, unit.rank_source = rank, "profiler_info"
    exp = (data.get("config") or {}).get("experimental_config") or {}
    unit.profiler_level = exp.get("_profiler_level") or data.get("profiler_level")
    unit.framework_version = data.get("torch_npu_version") or data.get("ms_version")
    if (folder / "profiler_metadata.json").is_file():
        unit.files["profiler_metadata"] = folder / "profiler_metadata.json"


def fill_kineto_rank(unit, meta: dict) -> None:
    """Rank and world size from a Kineto trace's ``distributedInfo``."""
    info = meta.get("distributedInfo") or {}
    if isinstance(info, dict) and str(info.get("rank", "")).lstrip("-").isdigit():
        unit.rank, unit.rank_source = int(info["rank"]), "distributedInfo"
        if str(info.get("world_size", "")).isdigit():
            unit.world_size = int(info["world_size"])
