"""Typer's parameter coercion without importing pydantic for the values tracedb's commands take.

Typer 0.2x turns every command-line value into its annotated type through a pydantic
``TypeAdapter``, built when the parameter is first processed; importing pydantic for that costs
about 0.07 s of every command's start (issue #20: cold start ≤ 0.3 s), more than the read-only
query itself. No typer setting turns it off (``rich_markup_mode=None`` and
``pretty_exceptions_enable=False`` already keep rich out).

:func:`install` wraps typer's ``build_runtime_param`` so that the plain cases are converted
directly — a ``str``, a ``list[str]``, an ``int`` written as decimal digits, an Enum choice given
exactly (typer's own :func:`coerce_cli_choice`) — and everything else, every invalid value
included, goes to typer's own adapter. Values, errors and ``--help`` are therefore typer's
(tests/cli/test_cold_start.py compares the error texts of both paths). With a typer that has no
``build_runtime_param`` (click-based typer before the pydantic coercion) nothing is changed.
"""
from __future__ import annotations

import re
from enum import Enum
from typing import Any, List, get_args, get_origin

import typer.core as core

try:
    from typer._coercion import RuntimeParam
    from typer._param_types import coerce_cli_choice
except ImportError:          # a typer without the pydantic coercion: nothing to route around
    RuntimeParam = coerce_cli_choice = None

# the typer releases this module was written against: tests/cli/test_cold_start.py checks that the
# installed one is among them, and that the conversions give typer's own values and errors
TESTED_TYPER = ("0.24", "0.25", "0.26", "0.27", "0.28", "0.29")

_DIGITS = re.compile(r"-?[0-9]{1,18}")
_MISS = object()


def _fast(annotation: Any, info: Any, value: Any, choice) -> Any:
    """The value typer's adapter would return, or ``_MISS`` when the adapter must decide."""
    if annotation is str:
        return value if isinstance(value, str) else _MISS
    if annotation is int:
        if type(value) is int:
            return value
        if isinstance(value, str) and _DIGITS.fullmatch(value):
            return int(value)
        return _MISS
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        if isinstance(value, annotation):
            return value
        if isinstance(value, str):
            try:
                return choice(value, choices=list(annotation), case_sensitive=info.case_sensitive, ctx=None)
            except ValueError:
                return _MISS
        return _MISS
    if get_origin(annotation) in (list, List) and get_args(annotation) == (str,):
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return list(value)
        return _MISS
    return _MISS


def _fast_param_class(build):
    """A RuntimeParam that converts a plain value itself and hands anything else to ``build``'s."""

    class FastRuntimeParam(RuntimeParam):
        """A plain value converted here; anything else by typer's own runtime parameter."""

        def __init__(self, descriptor):
            super().__init__(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation)
            object.__setattr__(self, "_descriptor", descriptor)
            object.__setattr__(self, "_typer", None)

        def _coerce_value(self, value, param, ctx):
            info = self.parameter_info
            plain = (info.parser is None and getattr(info, "click_type", None) is None
                     and getattr(info, "min", None) is None and getattr(info, "max", None) is None)
            if plain and ctx is not None and getattr(ctx, "token_normalize_func", None) is None:
                out = _fast(self.annotation, info, value, coerce_cli_choice)
                if out is not _MISS:
                    return out
            if self._typer is None:
                object.__setattr__(self, "_typer", build(self._descriptor))
            return self._typer._coerce_value(value, param=param, ctx=ctx)

    return FastRuntimeParam


def install() -> bool:
    """Route typer's plain parameter conversions around pydantic (see the module docstring);
    True when typer has the pydantic coercion this replaces."""
    build = getattr(core, "build_runtime_param", None) if RuntimeParam is not None else None
    if build is None or getattr(build, "_tracedb_fast", False):
        return build is not None
    fast_param = _fast_param_class(build)

    def build_fast(descriptor):
        if descriptor.file_annotation is not None:
            return build(descriptor)
        return fast_param(descriptor)

    build_fast._tracedb_fast = True
    build_fast.typer_build = build       # typer's own, for tests comparing the two
    core.build_runtime_param = build_fast
    return True
