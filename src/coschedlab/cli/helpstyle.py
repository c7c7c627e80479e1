"""``--help`` as a command-line user reads it: a flag shows no value type (typer 0.29 shows
``<bool>``, which reads as if ``--strict`` took ``true``: "unexpected extra argument"), a
repeated option or argument the type of one value (``<str>``, ``<path>``; not
``<list[str]>``, ``<list[Path]>``), every type in lower case (``<path>``, not ``<Path>``
beside it), and an argument in the usage line its name in capitals (``TRACE``, or ``[OUT]``
when optional; not ``{trace}``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["install"]


def _value_type(shown: Any) -> Any:
    """A parameter's ``display_type_rich`` (``shown``): none for a flag, one value's type
    for a list, in lower case."""

    def display_type_rich(self: Any, ctx: Any) -> str | None:
        if getattr(self, "is_flag", False):
            return None
        label = shown(self, ctx)
        if isinstance(label, str) and label.startswith("<list[") and label.endswith("]>"):
            label = f"<{label[6:-2]}>"
        return label.lower() if isinstance(label, str) and label.startswith("<") else label

    display_type_rich.plain_help = True  # type: ignore[attr-defined]
    return display_type_rich


def _usage_name(self: Any) -> str:
    """An argument in the usage line: ``NAME``, ``[NAME]`` when optional, ``...`` after a
    repeated one (its metavar when it has one)."""
    name = self.metavar if self.metavar is not None else self.name.upper()
    name = name if self.required else f"[{name}]"
    return f"{name}..." if self.nargs != 1 else name


def install() -> None:
    """Make typer's help read so (once; a typer without these hooks is left as it is)."""
    from typer import core

    option = getattr(core, "TyperOption", None)
    argument = getattr(core, "TyperArgument", None)
    shown = getattr(option, "display_type_rich", None)
    if shown is None or getattr(shown, "plain_help", False):
        return
    option.display_type_rich = _value_type(shown)
    if hasattr(argument, "display_type_rich"):
        argument.display_type_rich = _value_type(argument.display_type_rich)
    if hasattr(argument, "_usage_display_name"):
        argument._usage_display_name = _usage_name
