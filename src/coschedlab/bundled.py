"""Data files shipped with the package (traces, application pools, studies, sweep specs),
named ``coschedlab:NAME`` wherever a file is asked for: in specs, on the command line and in
the dashboard."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .errors import InputError

__all__ = ["PREFIX", "bundled", "data_path", "in_words", "is_bundled"]

#: how a spec or a command names a bundled file: ``coschedlab:KTH-SP2-1996-2.1-cln.swf.gz``
PREFIX = "coschedlab:"


def is_bundled(value: str) -> bool:
    """Whether ``value`` names a bundled file (``coschedlab:NAME``)."""
    return str(value).startswith(PREFIX)


def bundled(name: str) -> Path:
    """The installed path of the bundled data file ``name`` (``pools/aris.json``, with or
    without the ``coschedlab:`` prefix); :class:`InputError` when there is none."""
    name = str(name).removeprefix(PREFIX)
    parts = Path(name).parts
    if not name or Path(name).is_absolute() or ".." in parts:
        raise InputError(f"no bundled data file {name!r}")
    ref = resources.files("coschedlab") / "data" / name
    if not ref.is_file():
        raise InputError(f"no bundled data file {name!r}")
    return Path(str(ref)).resolve()


def data_path(value: str, base: Path | None = None) -> Path:
    """A data file a spec or a command names: ``coschedlab:NAME`` (:func:`bundled`), else a
    path, relative to ``base`` (a spec's folder) when given; it must exist (else
    :class:`InputError`)."""
    if is_bundled(value):
        return bundled(value)
    file = Path(value).expanduser()
    if base is not None and not file.is_absolute():
        file = base / file
    if not file.is_file():
        raise InputError(f"no such file {str(file)!r}")
    return file.resolve()


def in_words(text: str) -> str:
    """``text`` (a message) with the installed data folder named as users name it
    (``.../site-packages/coschedlab/data/sweeps/x.yaml`` -> ``coschedlab:sweeps/x.yaml``)."""
    folder = str(Path(str(resources.files("coschedlab") / "data")).resolve())
    return text.replace(folder + "/", PREFIX)
