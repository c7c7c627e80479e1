"""Reading a user's file in a process of its own: an upload's check (a policy file, or a
sweep spec naming one, runs module code when it is loaded) and a sweep's checks before it
starts never run in the dashboard's server, and a file that hangs or ends its process costs
the server nothing but a one-line error."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InputError

__all__ = ["call_isolated", "dotted"]

_CALL = """
import importlib, json, sys
from coschedlab.errors import InputError
module, _, name = sys.argv[1].partition(":")
try:
    getattr(importlib.import_module(module), name)(*sys.argv[2:])
    print(json.dumps({"ok": True}))
except InputError as exc:
    print(json.dumps({"what": exc.what, "where": exc.where}))
    sys.exit(2)
except BaseException as exc:
    text = " ".join(str(exc).split())
    print(json.dumps({"what": f"reading it failed ({type(exc).__name__}: {text})",
                      "where": None}))
    sys.exit(2)
"""


def dotted(fn: Callable[..., Any]) -> str:
    """``module:function`` of a top-level function (what :func:`call_isolated` calls)."""
    return f"{fn.__module__}:{fn.__qualname__}"


def call_isolated(target: str, *args: str, cwd: Path, timeout: float, where: str) -> None:
    """Call ``target`` (``module:function``) with the text arguments ``args`` in a fresh
    Python process in ``cwd``, for at most ``timeout`` seconds; its :class:`InputError` (or
    any failure, or the process ending) comes back as one :class:`InputError` (``where``:
    the place named when the process ends or takes too long)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CALL, target, *args], capture_output=True, text=True,
            cwd=cwd, timeout=timeout, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise InputError(f"reading it took over {timeout:.0f} s", where) from None
    try:
        doc = json.loads(done.stdout.strip().splitlines()[-1])
        if done.returncode == 0 and doc == {"ok": True}:
            return  # it returned: not merely a process that ended with code 0
        what, said = str(doc["what"]), doc.get("where")
    except (ValueError, IndexError, KeyError, TypeError):
        raise InputError(f"reading it ended the process (exit code {done.returncode})",
                         where) from None  # fmt: skip
    raise InputError(what, said)
