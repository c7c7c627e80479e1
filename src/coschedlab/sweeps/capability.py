"""The capability registry: each capability registers ONE :class:`Capability` object (its
sweep spec loader, its sweep, its summary table and figures, its bundled specs), and the
interfaces are generated from the registry: the command line's sweep command
(``coschedlab NAME compare SPEC``), the dashboard's sweep section and page, the readers of
uploaded specs, and :func:`~.sweep.sweep_kind`.

A new capability is its package, one :func:`register` call (in the module named in
:data:`BUILTIN`, or anywhere before the interfaces are built: a test, a plugin) and its docs.
The runtime knows capabilities only through this registry: :data:`BUILTIN` names modules,
imported on first use, never at import time.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from .sweep import Sweep

__all__ = [
    "BUILTIN", "Capability", "Table", "capabilities", "capability", "check_sweep", "read_spec",
    "limit", "read_table", "register", "unregister",
]  # fmt: skip

#: the modules registering the built-in capabilities (imported by :func:`capabilities`)
BUILTIN = (
    "coschedlab.experiments.comparison",
    "coschedlab.experiments.workflows",
    "coschedlab.experiments.coupled",
    "coschedlab.experiments.studies",
    "coschedlab.insitu.sweep",
)

#: a summary table as the command line prints it and the dashboard shows it
Table = tuple[str, list[str], list[list[str]]]


def _no_table(out: Path) -> Table | None:
    return None


def _no_report(spec: Any, out: Path, rows: list[Any]) -> list[Path]:
    return []


@dataclass(frozen=True)
class Capability:
    """A capability as the interfaces see it.

    ``name``: the command group (``coschedlab NAME ...``) and the dashboard page's name;
    ``sweep``: its :class:`~.sweep.Sweep` (run one, result shape, store, resume);
    ``load_spec(path)``: reads and checks a sweep spec (YAML; errors name file:line); the spec
    gives ``name``, ``output`` and ``configs()`` (key -> configuration);
    ``summary(out)``: the summary table of a finished sweep in ``out`` (title, columns, text
    rows; None while there is none); ``report(spec, out, rows)``: writes its tables and figures
    from the finished runs' records, returns the files written; ``bundled``: (label,
    ``coschedlab:NAME``) specs offered; ``title``: what the dashboard's sweep section says;
    ``help``: the command's help; ``upload``: the name of its uploaded specs' reader;
    ``prefix``: the dashboard's component ids; ``most``: the most runs the dashboard starts
    (more are the command line's, on a cluster); ``generated``: whether the command line's
    ``compare`` command and the dashboard's page are generated (False: the capability's own
    command and page use the registry's parts); ``args(spec, out)``: the command line's
    arguments of a sweep (after ``coschedlab``; default ``NAME compare SPEC --out OUT``);
    ``check(spec, out)``: what the command refuses before it starts (default: read the spec,
    count its runs against ``most``, check the folder)."""

    name: str
    sweep: Sweep
    load_spec: Callable[[Path], Any] | None = None
    summary: Callable[[Path], Table | None] = _no_table
    report: Callable[[Any, Path, list[Any]], list[Path]] = _no_report
    bundled: tuple[tuple[str, str], ...] = ()
    title: str = ""
    help: str = ""
    upload: str = ""
    prefix: str = ""
    default_out: str = ""
    most: int = 10_000
    generated: bool = True
    args: Callable[[str, str], list[str]] | None = None
    check: Callable[[str, str], None] | None = None

    @property
    def what(self) -> str:
        """The kind of sweep (spec.json's ``"sweep"``)."""
        return self.sweep.what

    def command_args(self, spec: str, out: str) -> list[str]:
        """The command line's arguments running (or resuming) a sweep of ``spec`` into
        ``out`` (after ``coschedlab``)."""
        if self.args is not None:
            return self.args(spec, out)
        return [self.name, "compare", spec, "--out", out]

    def check_command(self, spec: str, out: str) -> None:
        """What the sweep command refuses before it starts (the dashboard runs it in a
        process of its own, through :func:`check_sweep`)."""
        if self.check is not None:
            self.check(spec, out)
            return
        if self.load_spec is None:
            raise InputError(f"{self.name} has no sweep spec to check")
        s = self.load_spec(Path(spec))
        limit(len(s.configs()), self.most, "runs", f"{self.name} compare")
        self.sweep.check_output(Path(out), s)


def limit(count: int, most: int, what: str, command: str) -> None:
    """Refuse a sweep of more than ``most`` ``what`` in the dashboard (one line naming the
    command that runs it, where a cluster can take it)."""
    if count > most:
        raise InputError(f"this sweep has {count:,} {what}: the dashboard starts at most "
                         f"{most:,} (run it with coschedlab {command}, on a cluster with "
                         "--executor)")  # fmt: skip


_REGISTRY: dict[str, Capability] = {}
_LOADED = [False]


def register(cap: Capability) -> Capability:
    """Register ``cap`` (by its name; registering the same name again replaces it)."""
    _REGISTRY[cap.name] = cap
    return cap


def unregister(name: str) -> None:
    """Remove the capability ``name`` (a test's toy capability)."""
    _REGISTRY.pop(name, None)


def capabilities() -> list[Capability]:
    """Every registered capability (the built-in ones imported on first use), by name."""
    if not _LOADED[0]:
        _LOADED[0] = True
        for module in BUILTIN:
            importlib.import_module(module)
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def capability(name: str) -> Capability:
    """The registered capability ``name``."""
    for cap in capabilities():
        if cap.name == name:
            return cap
    raise InputError(f"no capability {name!r}; known: "
                     f"{', '.join(c.name for c in capabilities())}")  # fmt: skip


def check_sweep(name: str, spec: str, out: str) -> None:
    """:meth:`Capability.check_command` of the capability ``name`` (a top-level function:
    the dashboard calls it in a process of its own)."""
    capability(name).check_command(spec, out)


def read_spec(name: str, path: str | Path) -> Any:
    """Read the sweep spec ``path`` with the loader of the capability whose uploads are
    named ``name`` (the dashboard's reader of an uploaded spec)."""
    for cap in capabilities():
        if cap.upload == name and cap.load_spec is not None:
            return cap.load_spec(Path(path))
    raise ValueError(f"unknown upload kind {name!r}")


def read_table(path: Path) -> Any:
    """A table a sweep wrote (CSV) as a DataFrame; None when it is not there yet;
    :class:`InputError` (one line) when it cannot be read."""
    import pandas as pd

    if not path.is_file():
        return None
    try:
        return pd.read_csv(path)
    except (ValueError, OSError, UnicodeDecodeError):
        raise InputError("damaged table: run the sweep again to rewrite it", path.name) from None
