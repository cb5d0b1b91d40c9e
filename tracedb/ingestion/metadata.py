"""profiler_info_{rank}.json and profiler_metadata.json → rank, device, level, versions.

These files are a few KB; they are read with :mod:`json`.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..engine import insert_rows
from ..errors import InputError
from .sources.errors import printable
from .sources.paths import regular

_INFO = re.compile(r"^profiler_info(?:_(\d+))?\.json$")


def small_int(value) -> int | None:
    """An int, or the text of one (ASCII digits, optional minus, at most 9 digits), else None.
    (``str.isdigit`` is true for "²", which ``int`` refuses.)"""
    if isinstance(value, bool):
        return None
    text = str(value).strip() if isinstance(value, (int, str)) else ""
    return int(text) if re.fullmatch(r"-?[0-9]{1,9}", text) else None


def load_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg}", file=str(path),
                         place=f"line {e.lineno}, column {e.colno}") from e
    except UnicodeDecodeError as e:
        raise InputError("not UTF-8 text.", file=str(path), place=f"byte {e.start}") from e
    except RecursionError as e:
        raise InputError("malformed JSON: nested too deeply.", file=str(path)) from e
    except ValueError as e:         # e.g. an integer of more than 4300 digits
        raise InputError(f"malformed JSON: {printable(str(e), 80)}", file=str(path)) from e
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
    infos = sorted((p for p in folder.glob("profiler_info*.json") if _INFO.match(p.name) and regular(p)),
                   key=lambda p: (_INFO.match(p.name).group(1) is None, p.name))
    if not infos:
        return
    path = infos[0]
    data = load_json(path)
    unit.files["profiler_info"] = path
    m = _INFO.match(path.name)
    rank_id = _int_of(data, "rank_id", path, "rank_id")
    rank = int(m.group(1)) if m.group(1) is not None else rank_id
    if rank is not None and rank >= 0:
        unit.rank, unit.rank_source = rank, "profiler_info"
    config = _object_of(data, "config", path, "config")
    exp = _object_of(config, "experimental_config", path, "config.experimental_config")
    _object_of(config, "common_config", path, "config.common_config")
    unit.profiler_level = _text_of(exp, "_profiler_level", path, "config.experimental_config._profiler_level") \
        or _text_of(data, "profiler_level", path, "profiler_level")
    unit.framework_version = _text_of(data, "torch_npu_version", path, "torch_npu_version") \
        or _text_of(data, "ms_version", path, "ms_version")
    if "ms_version" in data or "torch_npu_version" in data:
        unit.framework = "mindspore" if "ms_version" in data else "torch_npu"
    if regular(folder / "profiler_metadata.json"):
        unit.files["profiler_metadata"] = folder / "profiler_metadata.json"


def _text(value) -> str | None:
    return None if value is None or isinstance(value, (dict, list)) else str(value)


def _domain(path: Path, place: str, value, expected: str) -> InputError:
    shown = printable(json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value), 40)
    return InputError(f"{place} holds {shown}, not {expected}.", file=str(path), place=place,
                      hint="the file was edited or corrupted; re-export it from the profiler.")


def _int_of(data: dict, key: str, path: Path, place: str) -> int | None:
    """``data[key]`` as an integer (an int or its decimal text); None when absent or null.

    Raises:
        InputError: any other value ("²", "abc", 1.5, true, a list).
    """
    value = data.get(key)
    if value is None:
        return None
    n = small_int(value)
    if n is None:
        raise _domain(path, place, value, "an integer")
    return n


def _object_of(data: dict, key: str, path: Path, place: str) -> dict:
    """``data[key]`` when an object, {} when absent or null.

    Raises:
        InputError: any other value.
    """
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _domain(path, place, value, "a JSON object")
    return value


def _text_of(data: dict, key: str, path: Path, place: str) -> str | None:
    """``data[key]`` as text (a string or a number); None when absent, null or empty.

    Raises:
        InputError: an object, a list or a boolean.
    """
    value = data.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, (dict, list, bool)):
        raise _domain(path, place, value, "text")
    return str(value)


def fill_kineto_rank(unit, meta: dict) -> None:
    """Rank and world size from a Kineto trace's ``distributedInfo``.

    Raises:
        InputError: distributedInfo not an object, or its rank / world_size not integers.
    """
    info = _object_of(meta, "distributedInfo", unit.source, "distributedInfo")
    rank = _int_of(info, "rank", unit.source, "distributedInfo.rank")
    size = _int_of(info, "world_size", unit.source, "distributedInfo.world_size")
    if rank is not None and rank >= 0:
        unit.rank, unit.rank_source = rank, "distributedInfo"
        if size is not None and size > 0:
            unit.world_size = size


# keys only kineto's ROCm (HIP) deviceProperties write (hipDeviceProp_t; CUDA's spelling of the
# shared memory key is sharedMemPerMultiprocessor)
HIP_PROPERTY_KEYS = ("maxSharedMemoryPerMultiProcessor", "gcnArchName")


def is_hip_device(p: dict) -> bool:
    """A deviceProperties entry of an AMD GPU (kineto's ROCm build): a HIP-only key, or an AMD
    name (hipDeviceProp_t.name: "AMD Instinct MI300X", "AMD Radeon Graphics" ...)."""
    name = p.get("name")
    return any(k in p for k in HIP_PROPERTY_KEYS) or (isinstance(name, str) and name.strip().upper().startswith("AMD"))


def kineto_devices(meta: dict) -> list[tuple[int, str, str | None, int | None]]:
    """The devices of a Kineto trace's ``deviceProperties`` (a list of objects with id, name,
    totalGlobalMem): (device_id, 'CUDA:<id>' or, for an AMD GPU (:func:`is_hip_device`),
    'HIP:<id>', name, capacity in bytes). Entries without an integer id are left out; a capacity
    that is not a non-negative integer is NULL. (derive/091 gives a device the label its memory
    events use, where they name the same ordinal the other way.)"""
    props = meta.get("deviceProperties")
    out = []
    for p in props if isinstance(props, list) else []:
        if not isinstance(p, dict):
            continue
        dev = small_int(p.get("id"))
        if dev is None or dev < 0:
            continue
        mem = p.get("totalGlobalMem")
        mem = mem if isinstance(mem, int) and not isinstance(mem, bool) and 0 <= mem < 2 ** 63 else None
        out.append((dev, f"{'HIP' if is_hip_device(p) else 'CUDA'}:{dev}", _text(p.get("name")), mem))
    return out


def write_kineto_devices(con, file_id: int, run_id: int, rank: int, meta: dict) -> int:
    """Insert the ``device`` rows of one Kineto trace (its own file's rows); returns how many."""
    rows = kineto_devices(meta)
    if rows:
        insert_rows(con, "device", [[run_id, rank, file_id, *r, "kineto_device_properties"] for r in rows])
    return len(rows)
