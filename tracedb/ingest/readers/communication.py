"""communication.json / communication_matrix.json → ``profiler_comm_op``,
``profiler_comm_bandwidth``, ``profiler_comm_matrix`` (the profiler's numbers, reference only).

The files are small (one entry per op, or per op type and link), so they are read with
Python's json module, numbers as :class:`~decimal.Decimal` so that ms/MB values convert to
integer ns/bytes without a float round-trip. Both shapes are accepted (formats.md §6.1, §6.2):
framework ``{"step{N}"|"step": {"collective"|"p2p": {key: …}}}`` and CANN flat ``{key: …}``.
"""
from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path

import duckdb

from ...errors import InputError

TOTAL_KEYS = ("Total Op Info", "Total HCCL Operators")
TIME_FIELDS = ("Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)", "Synchronization Time(ms)",
               "Idle Time(ms)")
_STEP = re.compile(r"^step(\d*)$")
_KINDS = ("collective", "p2p")


def _load(path: Path) -> object:
    try:
        with open(path, "rb") as f:
            return json.load(f, parse_float=Decimal)
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror}", file=str(path)) from e
    except RecursionError as e:
        raise InputError("not valid JSON (nested too deeply).", file=str(path)) from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        place = f"line {e.lineno} column {e.colno}" if isinstance(e, json.JSONDecodeError) else None
        raise InputError(f"not valid JSON ({e.msg if isinstance(e, json.JSONDecodeError) else e}).",
                         file=str(path), place=place) from e


def _blocks(doc: object, path: Path, leaf_key: str | None):
    """Yield (step, comm_kind, op_key, value, place) for every op entry of either shape.

    ``leaf_key`` recognises the flat shape: communication.json entries hold that key.
    """
    if not isinstance(doc, dict):
        raise InputError("expected a JSON object at the top level.", file=str(path), place="top level")
    framework = bool(doc) and all(
        _STEP.match(k) and isinstance(v, dict) and set(v) <= set(_KINDS) for k, v in doc.items())
    if not framework:
        for key, value in doc.items():
            yield None, None, key, value, repr(key)
        return
    for step_key, kinds in doc.items():
        n = _STEP.match(step_key).group(1)
        step = int(n) if n else None
        for kind, ops in kinds.items():
            place = f"{step_key} → {kind}"
            if not isinstance(ops, dict):
                raise InputError("expected an object of ops.", file=str(path), place=place)
            for key, value in ops.items():
                yield step, kind, key, value, f"{place} → {key!r}"


def _split_key(key: str) -> tuple[str, str | None, bool]:
    if key in TOTAL_KEYS:
        return key, None, True
    name, sep, group = key.rpartition("@")
    return (name, group, False) if sep else (key, None, False)


def _num(value, path: Path, place: str, field: str) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
        raise InputError(f"{field!r} is not a number ({value!r}).", file=str(path), place=place)
    try:
        d = Decimal(value) if not isinstance(value, Decimal) else value
    except InvalidOperation as e:
        raise InputError(f"{field!r} is not a number ({value!r}).", file=str(path), place=place) from e
    if not d.is_finite():
        raise InputError(f"{field!r} is not a finite number ({value!r}).", file=str(path), place=place)
    return d


def _scaled(value, factor: int, path: Path, place: str, field: str) -> int | None:
    d = _num(value, path, place, field)
    return None if d is None else int((d * factor).to_integral_value())


def _ratio(value, path: Path, place: str, field: str) -> float | None:
    d = _num(value, path, place, field)
    return None if d is None else float(d)


def _obj(value, path: Path, place: str, what: str) -> dict:
    if not isinstance(value, dict):
        raise InputError(f"{what} is not an object.", file=str(path), place=place)
    return value


def read(con: duckdb.DuckDBPyConnection, f) -> int:
    """communication.json → profiler_comm_op + profiler_comm_bandwidth; returns op rows.

    Raises:
        InputError: not JSON, or an entry that is not shaped like communication.json.
    """
    path, run_id, rank, file_id = f.path, f.run_id, f.rank, f.file_id
    doc = _load(path)
    ops, bws = [], []
    for step, kind, key, info, place in _blocks(doc, path, "Communication Time Info"):
        info = _obj(info, path, place, "op entry")
        if "Communication Time Info" not in info and "Communication Bandwidth Info" not in info:
            raise InputError("op entry has neither \"Communication Time Info\" nor \"Communication Bandwidth "
                             "Info\".", file=str(path), place=place,
                             hint="is this a communication.json written by torch_npu, MindSpore or msprof?")
        name, group, total = _split_key(key)
        t = _obj(info.get("Communication Time Info", {}), path, place, "\"Communication Time Info\"")
        tp = f"{place} → Communication Time Info"
        ops.append([run_id, rank, file_id, step, kind, key, name, group, total,
                    _scaled(t.get("Start Timestamp(us)"), 1000, path, tp, "Start Timestamp(us)"),
                    *[_scaled(t.get(f), 10**6, path, tp, f) for f in TIME_FIELDS],
                    _ratio(t.get("Wait Time Ratio"), path, tp, "Wait Time Ratio"),
                    _ratio(t.get("Synchronization Time Ratio"), path, tp, "Synchronization Time Ratio")])
        b = _obj(info.get("Communication Bandwidth Info", {}), path, place, "\"Communication Bandwidth Info\"")
        for transport, v in b.items():
            bp = f"{place} → Communication Bandwidth Info → {transport}"
            v = _obj(v, path, bp, f"{transport!r}")
            dist = v.get("Size Distribution")
            packets = None
            if isinstance(dist, dict):
                try:
                    packets = sum(int(c[0]) for c in dist.values())
                except (TypeError, ValueError, IndexError, KeyError) as e:
                    raise InputError("\"Size Distribution\" entries must be [count, ms].", file=str(path),
                                     place=bp) from e
            bws.append([run_id, rank, file_id, step, kind, key, name, group, total, transport,
                        _scaled(v.get("Transit Size(MB)"), 10**6, path, bp, "Transit Size(MB)"),
                        _scaled(v.get("Transit Time(ms)"), 10**6, path, bp, "Transit Time(ms)"),
                        _ratio(v.get("Bandwidth(GB/s)"), path, bp, "Bandwidth(GB/s)"),
                        _ratio(v.get("Large Packet Ratio"), path, bp, "Large Packet Ratio"),
                        packets])
    if ops:
        con.executemany(f"INSERT INTO profiler_comm_op VALUES ({', '.join(['?'] * 17)})", ops)
    if bws:
        con.executemany(f"INSERT INTO profiler_comm_bandwidth VALUES ({', '.join(['?'] * 15)})", bws)
    return len(ops)


def read_matrix(con: duckdb.DuckDBPyConnection, f) -> int:
    """communication_matrix.json → profiler_comm_matrix; returns rows.

    Raises:
        InputError: not JSON, or a link entry that is not shaped like communication_matrix.json.
    """
    path, run_id, rank, file_id = f.path, f.run_id, f.rank, f.file_id
    doc = _load(path)
    out = []
    for step, kind, key, links, place in _blocks(doc, path, None):
        links = _obj(links, path, place, "op entry")
        name, group, _total = _split_key(key)
        for link_key, v in links.items():
            lp = f"{place} → {link_key!r}"
            v = _obj(v, path, lp, "link entry")
            m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", str(link_key))
            if m is None:
                raise InputError(f"link key {link_key!r} is not \"<src>-<dst>\".", file=str(path), place=lp)
            op_name = v.get("Op Name")
            out.append([run_id, rank, file_id, step, kind, key, name, group, link_key,
                        int(m.group(1)), int(m.group(2)), v.get("Transport Type"),
                        _scaled(v.get("Transit Size(MB)"), 10**6, path, lp, "Transit Size(MB)"),
                        _scaled(v.get("Transit Time(ms)"), 10**6, path, lp, "Transit Time(ms)"),
                        _ratio(v.get("Bandwidth(GB/s)"), path, lp, "Bandwidth(GB/s)"),
                        None if op_name is None else str(op_name)])
    if out:
        con.executemany(f"INSERT INTO profiler_comm_matrix VALUES ({', '.join(['?'] * 16)})", out)
    return len(out)
