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
    that is not built at all is left to its import (which names it)."""
    out = []
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    for folder, dirs, files in os.walk(_ROOT):
        dirs[:] = [d for d in dirs if d not in ("data", "__pycache__")]
        for name in files:
            if not name.endswith(".pyx"):
                continue
            stem = os.path.join(folder, name[:-4])
            built = [stem + s for s in suffixes if os.path.exists(stem + s)]
            if not built:
                continue
            when = max(os.path.getmtime(b) for b in built)
            for source in (stem + ".pyx", stem + ".pxd"):
                if os.path.exists(source) and os.path.getmtime(source) > when:
                    rel = os.path.relpath(stem, os.path.dirname(_ROOT))
                    out.append((rel.replace(os.sep, "."), source))
                    break
    return sorted(out)


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
