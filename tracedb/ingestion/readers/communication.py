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

from ...engine import duckdb, insert_rows

from ...errors import InputError
from ..fieldmaps.communication import (BANDWIDTH_FIELDS as BW, BANDWIDTH_INFO, KINDS as _KINDS, LINK_KEY,
                                       MATRIX_FIELDS as MX, STEP_KEY, TIME_FIELDS as TF, TIME_INFO, TOTAL_KEYS)
from ..sources.errors import printable

_STEP = re.compile(STEP_KEY)
# kind → factor to integer units: ms → ns, decimal MB → bytes, µs → ns
_FACTOR = {"ms": 10**6, "mb_decimal": 10**6, "us": 1000}


def _load(path: Path) -> object:
    try:
        with open(path, "rb") as f:
            return json.loads(f.read().decode("utf-8-sig"), parse_float=Decimal)
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror}", file=str(path)) from e
    except RecursionError as e:
        raise InputError("not valid JSON (nested too deeply).", file=str(path)) from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        place = f"line {e.lineno} column {e.colno}" if isinstance(e, json.JSONDecodeError) else f"byte {e.start}"
        raise InputError(f"not valid JSON ({e.msg if isinstance(e, json.JSONDecodeError) else e}).",
                         file=str(path), place=place) from e
    except ValueError as e:         # e.g. an integer of more than 4300 digits
        raise InputError(f"not valid JSON ({printable(str(e), 80)}).", file=str(path)) from e


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
        step = int(n) if n and len(n) < 10 else None
        if n and step is None:
            raise InputError(f"step number {n[:30]} is out of range.", file=str(path), place=step_key[:40])
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
        raise InputError(f"{field!r} is not a number ({printable(repr(value))}).", file=str(path), place=place)
    try:
        d = Decimal(value) if not isinstance(value, Decimal) else value
    except InvalidOperation as e:
        raise InputError(f"{field!r} is not a number ({printable(repr(value))}).", file=str(path),
                         place=place) from e
    if not d.is_finite():
        raise InputError(f"{field!r} is not a finite number ({printable(repr(value))}).", file=str(path),
                         place=place)
    return d


def _scaled(value, factor: int, path: Path, place: str, field: str) -> int | None:
    d = _num(value, path, place, field)
    if d is None:
        return None
    if d.adjusted() > 18 or abs(n := int((d * factor).to_integral_value())) >= 1 << 63:
        raise InputError(f"{field!r} is out of range ({printable(str(value))}).", file=str(path), place=place)
    return n


def _ratio(value, path: Path, place: str, field: str) -> float | None:
    d = _num(value, path, place, field)
    if d is None:
        return None
    if d.adjusted() > 300:
        raise InputError(f"{field!r} is out of range ({printable(str(value))}).", file=str(path), place=place)
    return float(d)


def _value(entry: dict, fld, path: Path, place: str):
    """The value of field ``fld`` in a JSON entry, converted by its kind (None when absent)."""
    value = entry.get(fld.name)
    if fld.kind == "text":
        if isinstance(value, (dict, list)):
            raise InputError(f"{fld.name!r} is not a text value.", file=str(path), place=place)
        return None if value is None else str(value)
    if fld.kind == "ratio":
        return _ratio(value, path, place, fld.name)
    return _scaled(value, _FACTOR[fld.kind], path, place, fld.name)


def _rank(text: str, path: Path, place: str) -> int:
    """A rank of a link key; refused beyond BIGINT."""
    n = int(text)
    if n >= 1 << 63:
        raise InputError(f"rank {text[:30]} in a link key is out of range.", file=str(path), place=place)
    return n


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
    for step, kind, key, info, place in _blocks(doc, path, TIME_INFO):
        info = _obj(info, path, place, "op entry")
        if TIME_INFO not in info and BANDWIDTH_INFO not in info:
            raise InputError(f"op entry has neither {TIME_INFO!r} nor {BANDWIDTH_INFO!r}.", file=str(path),
                             place=place, hint="is this a communication.json written by torch_npu, MindSpore or msprof?")
        name, group, total = _split_key(key)
        t = _obj(info.get(TIME_INFO, {}), path, place, repr(TIME_INFO))
        tp = f"{place} → {TIME_INFO}"
        ops.append([run_id, rank, file_id, step, kind, key, name, group, total,
                    *[_value(t, fld, path, tp) for fld in TF.values()]])
        b = _obj(info.get(BANDWIDTH_INFO, {}), path, place, repr(BANDWIDTH_INFO))
        for transport, v in b.items():
            bp = f"{place} → {BANDWIDTH_INFO} → {printable(str(transport))}"
            v = _obj(v, path, bp, repr(printable(str(transport))))
            dist = v.get(BW["packet_count"].name)
            packets = None
            if isinstance(dist, dict):
                try:
                    packets = sum(int(c[0]) for c in dist.values())
                except (TypeError, ValueError, IndexError, KeyError) as e:
                    raise InputError(f"{BW['packet_count'].name!r} entries must be [count, ms].", file=str(path),
                                     place=bp) from e
            bws.append([run_id, rank, file_id, step, kind, key, name, group, total, transport,
                        *[_value(v, fld, path, bp) for c, fld in BW.items() if c != "packet_count"],
                        packets])
    insert_rows(con, "profiler_comm_op", ops)
    insert_rows(con, "profiler_comm_bandwidth", bws)
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
            m = re.fullmatch(LINK_KEY, str(link_key))
            if m is None:
                raise InputError(f"link key {printable(str(link_key))!r} is not \"<src>-<dst>\".", file=str(path),
                                 place=lp)
            out.append([run_id, rank, file_id, step, kind, key, name, group, link_key,
                        _rank(m.group(1), path, lp), _rank(m.group(2), path, lp),
                        *[_value(v, fld, path, lp) for fld in MX.values()]])
    insert_rows(con, "profiler_comm_matrix", out)
    return len(out)
