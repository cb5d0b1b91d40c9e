"""``profiler_metadata.json`` → ``profiler_parallel_group``, ``profiler_distributed_args``.

The file is a few KB, read with :mod:`json` (as :mod:`tracedb.ingestion.metadata` reads it at
detection for the rank). ``parallel_group_info`` maps a group id (``group_name_5``) to its
process-group name (``pg_name``: dp, tp, pp, ...), this rank's place in it and its global ranks;
communication.json names the same group by a hash of the group id, which is computed here
(msprof-analyze ``double_hash``) so that the views can join the two. A file without these keys
(older torch_npu, MindSpore) gives no rows; a value of the wrong type is refused with its key.
"""
from __future__ import annotations

from ...engine import duckdb, insert_rows

from ...errors import InputError
from ..metadata import load_json, small_int

_MASK = 0xFFFFFFFF
_SIZES = ("world_size", "tensor_model_parallel_size", "pipeline_model_parallel_size", "data_parallel_size",
          "context_parallel_size", "expert_model_parallel_size")


def double_hash(text: str) -> str:
    """msprof-analyze's group-name hash: two 32-bit polynomial hashes (primes 29, 131) as
    ``high << 32 | low``, decimal. ``group_name_0`` → ``5862276093215481612``."""
    h0 = h1 = 0
    for ch in text:
        h0 = (h0 * 29 + ord(ch)) & _MASK
        h1 = (h1 * 131 + ord(ch)) & _MASK
    return str((h0 << 32) | h1)


def read(con: duckdb.DuckDBPyConnection, f) -> int:
    """Insert the parallel groups and distributed args of one profiler_metadata.json; returns
    the group rows inserted.

    Raises:
        InputError: malformed JSON, or parallel_group_info / distributed_args / a group entry /
            global_ranks of the wrong type (the message names the key).
    """
    data = load_json(f.path)
    groups = data.get("parallel_group_info")
    args = data.get("distributed_args")
    rows: list[tuple] = []
    if groups is not None:
        if not isinstance(groups, dict):
            raise InputError("parallel_group_info is not a JSON object.", file=str(f.path), place="parallel_group_info")
        for gid, info in groups.items():
            place = f"parallel_group_info.{gid}"
            if not isinstance(info, dict):
                raise InputError("group entry is not a JSON object.", file=str(f.path), place=place)
            members = info.get("global_ranks")
            if members is None:
                members = []
            if not isinstance(members, list) or any(small_int(m) is None for m in members):
                raise InputError("global_ranks is not a list of integers.", file=str(f.path),
                                 place=f"{place}.global_ranks")
            pg = info.get("group_name")
            base = (f.run_id, f.rank, f.file_id, str(gid), double_hash(str(gid)),
                    None if pg is None or isinstance(pg, (dict, list)) else str(pg), small_int(info.get("group_rank")))
            rows.extend(base + (small_int(m),) for m in (members or [None]))
    if rows:
        insert_rows(con, "profiler_parallel_group", rows)
    if args is not None:
        if not isinstance(args, dict):
            raise InputError("distributed_args is not a JSON object.", file=str(f.path), place="distributed_args")
        sp = args.get("sequence_parallel")
        con.execute("INSERT INTO profiler_distributed_args VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [f.run_id, f.rank, f.file_id, *(small_int(args.get(k)) for k in _SIZES),
                     sp if isinstance(sp, bool) else None, small_int(args.get("rank"))])
    return len(rows)
