"""The capability registry: each capability registers ONE :class:`Capability` object (its
sweep spec loader, its sweep, its summary table and figures, its bundled specs), and the
interfaces are generated from the registry: the command line's sweep commands
(``coschedlab NAME compare SPEC``, ``compare``, ``insitu reproduce``, ``study reproduce``,
``elise run``), the dashboard's sweep section and page, the readers of uploaded specs, and
:func:`~.sweep.sweep_kind`.

The built-in capabilities register in :mod:`coschedlab.capabilities` (:data:`BUILTIN`,
imported on first use); anything else registers before the interfaces are built (a test, a
plugin). A capability's parts may be named ``"module:attribute"`` (imported when first used):
the command line starts without importing every capability. A new capability is its package,
its registration and its docs.
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
    "BUILTIN", "Capability", "Option", "Table", "capabilities", "capability", "check_sweep",
    "limit", "read_table", "readers", "register", "resolve", "unregister", "write_summary",
]  # fmt: skip

#: the modules registering the built-in capabilities (imported by :func:`capabilities`)
BUILTIN = ("coschedlab.capabilities",)

#: a summary table as the command line prints it and the dashboard shows it
Table = tuple[str, list[str], list[list[str]]]


def resolve(part: Any) -> Any:
    """``part`` itself, or the object a ``"module:attribute"`` text names."""
    if not isinstance(part, str):
        return part
    module, _, name = part.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Option:
    """An option of a capability's command beyond the common ones: its parameter ``name``
    (the keyword its ``load_spec`` gets), ``flags`` (none: the positional argument),
    ``type`` (None: the common one of this name removed), ``default`` (``...``: required)
    and ``help``."""

    name: str
    flags: tuple[str, ...] = ()
    type: Any = None
    default: Any = ...
    help: str = ""


@dataclass(frozen=True)
class Capability:
    """A capability as the interfaces see it; the parts marked (lazy) may be given as
    ``"module:attribute"``.

    ``name``: the command group (``coschedlab NAME ...``) and the dashboard page's name;
    ``sweep`` (lazy): its :class:`~.sweep.Sweep` (run one, result shape, store, resume);
    ``load_spec(path, **options)`` (lazy): reads and checks a sweep spec (YAML; errors name
    file:line; ``options``: the values of the command's own :attr:`options`), which gives
    ``name`` (a ``title`` too, when the command's first line says more; ``notes`` said
    before the runs, when it has any), ``output`` and ``configs()`` (key -> configuration);
    ``summary(out)`` (lazy): the summary table of the sweep in ``out`` (title, columns, text
    rows; None while there is none); ``report(spec, out, rows)`` (lazy): writes its tables
    and figures from the finished runs' records, returns the files written; ``shown(spec,
    out, width)`` (lazy): what the command prints after the report (default: the summary
    table); ``bundled``: (label, ``coschedlab:NAME``) specs offered; ``title``: the
    dashboard's sweep section; ``help``: the command's help; ``upload``: the name of its
    uploaded specs (the dashboard's reader); ``prefix``: the dashboard's component ids;
    ``default_out``: the dashboard's output folder; ``page``: the dashboard page its sweep
    section ends (default its name: a page module of that name, else a page generated for
    it; None: no sweep section, its own pages show it); ``most``: the most runs the
    dashboard starts (more are the command line's, on a cluster); ``spec_file``: where its
    sweep's spec.json lives under the output folder (:func:`~.sweep.sweep_kind` reads it);
    ``label``: its name as people write it (a generated page's title; default: the name).

    Its command (generated, like every other's): ``command``, the words after
    ``coschedlab`` (default ``NAME compare``; one word: a top-level command); ``options``,
    its own :class:`Option` declarations beside the common ``SPEC``, ``--jobs``, ``--out`` and
    ``--executor`` (one of the same name replaces it; of type None removes it);
    ``failed_exit``: its exit status when some runs failed; ``stdout``: its notes on
    stdout, with its table (else on stderr); ``check(spec, out)`` (lazy): what the dashboard
    refuses before it starts it (default: read the spec, count its runs against ``most``,
    check the folder)."""

    name: str
    sweep: Sweep | str
    load_spec: Callable[..., Any] | str | None = None
    summary: Callable[[Path], Table | None] | str | None = None
    report: Callable[[Any, Path, list[Any]], list[Path]] | str | None = None
    bundled: tuple[tuple[str, str], ...] = ()
    title: str = ""
    help: str = ""
    upload: str = ""
    prefix: str = ""
    default_out: str = ""
    page: str | None = ""
    most: int = 10_000
    command: str = ""
    options: tuple[Option, ...] = ()
    failed_exit: int = 2
    stdout: bool = False
    shown: Callable[[Any, Path, int], Any] | str | None = None
    check: Callable[[str, str], None] | str | None = None
    spec_file: str = "spec.json"
    label: str = ""

    def the_sweep(self) -> Sweep:
        """Its :class:`~.sweep.Sweep` (imported on first use)."""
        return resolve(self.sweep)

    @property
    def what(self) -> str:
        """The kind of sweep (spec.json's ``"sweep"``)."""
        return self.the_sweep().what

    def table(self, out: Path) -> Table | None:
        """The summary table of the sweep in ``out`` (None while there is none)."""
        return None if self.summary is None else resolve(self.summary)(Path(out))

    def write_report(self, spec: Any, out: Path, rows: list[Any]) -> list[Path]:
        """Write its tables and figures of a finished (or partial) sweep; the files (listed in
        the folder's manifest: ``--force``/``--fresh`` may replace them)."""
        from ..outputs import record

        written = [] if self.report is None else resolve(self.report)(spec, Path(out), rows)
        record(p for p in written if Path(p).is_file())
        return written

    @property
    def words(self) -> list[str]:
        """Its command's words after ``coschedlab``."""
        return (self.command or f"{self.name} compare").split()

    def read(self, path: Path | str | None, **options: Any) -> Any:
        """Its sweep spec ``path`` (None: its command takes no SPEC), read and checked with
        the values of the command's own ``options``."""
        if self.load_spec is None:
            raise InputError(f"{self.name} sweeps have no spec file")
        return resolve(self.load_spec)(None if path is None else Path(path), **options)

    def show(self, spec: Any, out: Path, width: int) -> Any:
        """What its command prints after the report: ``shown``'s, else the summary table."""
        if self.shown is not None:
            return resolve(self.shown)(spec, Path(out), width)
        return self.table(out)

    def command_args(self, spec: str | None, out: str | None) -> list[str]:
        """The command line's arguments running (or resuming) a sweep of ``spec`` into
        ``out`` (after ``coschedlab``; None: not given)."""
        flag = [o.flags[0] for o in self.options if o.name == "spec" and o.flags]
        return [*self.words, *([] if spec is None else [*flag, spec]),
                *([] if out is None else ["--out", out])]  # fmt: skip

    def check_command(self, spec: str, out: str) -> None:
        """What the sweep command refuses before it starts (the dashboard runs it in a
        process of its own, through :func:`check_sweep`)."""
        if self.check is not None:
            resolve(self.check)(spec, out)
            return
        s = self.read(spec)
        limit(len(s.configs()), self.most, "runs", " ".join(self.words))
        self.the_sweep().check_output(Path(out), s)


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


def readers() -> dict[str, str]:
    """The reader (``module:function`` of a path) of each capability's uploaded specs, by
    upload name (the dashboard's :data:`~coschedlab.gui.workspace.READERS` gains them)."""
    return {cap.upload: cap.load_spec for cap in capabilities()
            if cap.upload and isinstance(cap.load_spec, str)}  # fmt: skip


def write_summary(df: Any, target: Path, what: str) -> Path:
    """``target/summary.csv`` from the aggregated runs ``df`` (written atomically, replacing
    the sweep's own earlier one); :class:`InputError` when no ``what`` run finished."""
    from ..outputs import atomic_file

    if df.empty:
        raise InputError(f"no {what} run finished (see runs/*.error.txt)", str(target))
    with atomic_file(target / "summary.csv", force=True) as tmp:
        df.to_csv(tmp, index=False, float_format="%.6g")
    return target / "summary.csv"


#: the fields of a checked sweep spec that say where it runs and is stored, not what its runs
#: depend on (:func:`spec_place` reads them, :func:`spec_record` leaves them out)
PLACE = ("path", "name", "output", "executor")


def spec_place(ck: Any, raw: Any, path: Path, most: int | None = None, out: Any = None) -> dict:
    """The :data:`PLACE` fields of the sweep spec file ``path`` (``raw``: its mapping, ``ck``
    its checker): its ``name`` (default: the file's stem; a folder's name, or with ``most``
    any text of at most ``most`` characters), ``output`` (default ``out``, else out/NAME) and
    ``executor`` (default None: the command's)."""
    from .executors import checked_executor

    given = raw.get("name", path.stem)
    name = ck.name(given, "name") if most is None else ck.string(given, "name", most)
    output = Path(ck.string(raw["output"], "output")) if "output" in raw else out
    executor = checked_executor(ck, raw["executor"]) if "executor" in raw else None
    folder = name
    if name in (".", "..") or any(c in name for c in "/\\\0"):
        # a text name (any characters) is one folder under out/: 'name: ../x' wrote ./x
        from ..outputs import slug

        folder = slug(name).strip(".") or "sweep"
    return dict(zip(PLACE, (path, name, output or Path("out") / folder, executor), strict=True))


def spec_record(spec: Any, **extra: Any) -> dict[str, Any]:
    """What the stored runs of a sweep depend on (its spec.json): the fields of the checked
    spec but its :data:`PLACE`, and ``extra``."""
    return {k: v for k, v in spec.__dict__.items() if k not in PLACE} | extra


def save_figures(target: Path, figures: Any) -> list[Path]:
    """Each ``(file name, figure)`` of ``figures`` saved as a PNG in ``target`` (atomically;
    a None figure is skipped); the files written."""
    from ..outputs import atomic_file

    written = []
    for name, fig in figures:
        if fig is not None:
            with atomic_file(target / name, force=True) as tmp:
                fig.savefig(tmp, format="png", dpi=110)
            written.append(target / name)
    return written


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
