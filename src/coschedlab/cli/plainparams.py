"""Option values of the plain kinds (whole numbers, numbers, text, flags, paths, lists of
text) taken from the command line without pydantic.

typer 0.29 coerces every option value through a pydantic ``TypeAdapter``: importing pydantic
and building one adapter per option costs more than the rest of a short command's parsing
(~0.1 s of CPU). :func:`install` makes typer take a plain value of those kinds the way its
adapter would (``"12"`` -> 12, ``"0.5"`` -> 0.5, a path through typer's own path checks) and
hand every other value (``" 12"``, ``"1_000"``, ``"0x10"``, a value from an environment
variable, any other annotation) to typer's own pydantic coercion, built on first use: the
values and the error messages are typer's, pydantic is imported only for such a value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["install", "plain_value"]

#: the texts a plain value of each kind may be (anything else goes to typer's adapter)
_INT = re.compile(r"-?(0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]{1,3})?")

#: the value :func:`plain_value` returns for a value it leaves to typer
NOT_PLAIN = object()


def _kind(annotation: Any, info: Any) -> str | None:
    """``int``, ``float``, ``str``, ``bool``, ``path``, ``list[str]``, or None (typer's
    adapter)."""
    from typing import get_args, get_origin

    if info.parser is not None or info.min is not None or info.max is not None:
        return None
    if annotation is int or annotation is float or annotation is str or annotation is bool:
        return annotation.__name__
    if annotation is Path:
        plain = info.path_type is None and not info.allow_dash and not info.resolve_path
        return "path" if plain else None
    if get_origin(annotation) is list and get_args(annotation) == (str,):
        return "list[str]"
    return None


def plain_value(kind: str, value: Any) -> Any:
    """``value`` (a command-line text, or a list of them) as typer's adapter for ``kind``
    gives it, or :data:`NOT_PLAIN` when it is not plainly of that kind."""
    if kind == "int":
        if type(value) is int:
            return value
        return int(value) if isinstance(value, str) and _INT.fullmatch(value) else NOT_PLAIN
    if kind == "float":
        if type(value) in (int, float):
            return float(value)
        return float(value) if isinstance(value, str) and _FLOAT.fullmatch(value) else NOT_PLAIN
    if kind == "str":
        return value if isinstance(value, str) else NOT_PLAIN
    if kind == "bool":
        return value if type(value) is bool else NOT_PLAIN
    if kind == "path":
        if isinstance(value, Path):
            return value
        return Path(value) if isinstance(value, str) and value else NOT_PLAIN
    if kind == "list[str]":
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return list(value)
        return NOT_PLAIN
    raise ValueError(f"unknown kind {kind!r}")


def install() -> None:
    """Make typer coerce plain option values without pydantic (once; a typer without the
    hook this relies on is left as it is)."""
    try:
        from typer import core
        from typer._coercion import RuntimeParam, build_runtime_param
        from typer._param_types import coerce_cli_path
    except ImportError:  # pragma: no cover (another typer: its own coercion)
        return
    cls = getattr(core, "_TyperParameter", None)
    original = getattr(cls, "get_runtime_param", None)
    if original is None or getattr(original, "plain_values", False):
        return

    @dataclass(frozen=True)
    class PlainRuntimeParam(RuntimeParam):
        """A plain value coerced here; any other by typer's adapter (built when needed)."""

        kind: str
        descriptor: Any

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            got = plain_value(self.kind, value)
            if got is NOT_PLAIN:
                full = param.__dict__.get("_typer_runtime_param")
                if full is None:
                    full = param.__dict__["_typer_runtime_param"] = build_runtime_param(
                        self.descriptor
                    )
                return full._coerce_value(value, param=param, ctx=ctx)
            if self.kind == "path":  # typer's checks (exists, file or directory, readable)
                return coerce_cli_path(
                    got, self.parameter_info, path_type=Path, param=param, ctx=ctx
                )
            return got

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            d = self.type_descriptor
            kind = None if d.file_annotation is not None else _kind(d.annotation, d.parameter_info)
            if kind is not None:
                self._runtime_param = PlainRuntimeParam(
                    parameter_info=d.parameter_info, annotation=d.annotation, kind=kind,
                    descriptor=d,
                )  # fmt: skip
        return original(self)

    get_runtime_param.plain_values = True  # type: ignore[attr-defined]
    cls.get_runtime_param = get_runtime_param
