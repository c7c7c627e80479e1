"""Is the compiled core up to date? (standard library only: checked before anything loads it)

Every ``*.pyx`` under ``src/coschedlab`` is built into an extension module next to it
(``setup.py``). A source (``.pyx``, or its ``.pxd``) edited or checked out after that build
leaves a module that no longer matches its source: :func:`check_built` says so in one line
and names the command that rebuilds it, instead of running the old code.
"""

from __future__ import annotations

import importlib.machinery
import os

_ROOT = os.path.dirname(os.path.abspath(__file__))
_checked = False


class StaleBuild(ImportError):
    """A compiled module is older than its source (``name``: the module)."""


def stale_modules() -> list[tuple[str, str]]:
    """(module, source) of each compiled module older than its ``.pyx`` or ``.pxd``; a module
    that is not built at all is left to its import (which names it). One directory listing
    per folder (symbolic links to folders not followed, as ``os.walk``), one ``stat`` per file
    looked at: it runs at every start of the command line."""
    out = []
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    folders = [_ROOT]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = {e.name: e for e in listing}
        except OSError:
            continue  # (os.walk skips a folder it cannot list)
        for name, entry in entries.items():
            if not name.endswith(".pyx"):
                if name not in ("data", "__pycache__") and _is_folder(entry):
                    folders.append(entry.path)
                continue
            if _is_folder(entry):
                continue
            stem = name[:-4]
            built = [_mtime(entries.get(stem + s)) for s in suffixes]
            built = [t for t in built if t is not None]
            if not built:
                continue
            when = max(built)
            for source in (name, stem + ".pxd"):
                t = _mtime(entries.get(source))
                if t is not None and t > when:
                    rel = os.path.relpath(os.path.join(folder, stem), os.path.dirname(_ROOT))
                    out.append((rel.replace(os.sep, "."), os.path.join(folder, source)))
                    break
    return sorted(out)


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir() and not entry.is_symlink()
    except OSError:
        return False


def _mtime(entry: os.DirEntry | None) -> float | None:
    """The modification time of what ``entry`` names (a link followed), None when absent."""
    if entry is None:
        return None
    try:
        return entry.stat().st_mtime
    except OSError:
        return None


def check_built() -> None:
    """Raise :class:`StaleBuild` (one line: which module, and how to rebuild) when a compiled
    module is older than its source; checked once per process."""
    global _checked
    if _checked:
        return
    stale = stale_modules()
    if stale:
        module, source = stale[0]
        more = f" (and {len(stale) - 1} more)" if len(stale) > 1 else ""
        raise StaleBuild(
            f"the compiled core is out of date: {module} is older than its source "
            f"{os.path.basename(source)}{more}; run scripts/setup.sh (or make run) to rebuild it",
            name=module,
        )
    _checked = True
