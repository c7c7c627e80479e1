"""Errors raised on bad user input.

Every error a user can cause is an :class:`InputError`: the command line prints its one-line
message (``where: what``) and exits with code 2, without a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path


class InputError(ValueError):
    """Bad user input: a malformed file line, an impossible job, an unknown name, a bad key."""

    def __init__(self, message: str, where: str | None = None) -> None:
        self.where = where
        self.what = message
        super().__init__(f"{where}: {message}" if where else message)


class OutputError(RuntimeError):
    """The machine failed while writing a result (full disk, I/O error): the command line prints
    one line naming the file and exits with code 1; the earlier result, if any, is intact."""

    def __init__(self, message: str, where: str | None = None) -> None:
        self.where = where
        self.what = message
        super().__init__(f"{where}: {message}" if where else message)


def check_seed(seed: int, where: str = "--seed") -> int:
    """A random seed: an integer in [0, 2**63); anything else is an :class:`InputError`."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InputError(f"a seed must be an integer from 0 to 2**63 - 1, got {seed!r}", where)
    return seed


def read_json(path: str | Path) -> object:
    """Parse a JSON file; a missing or malformed file is an :class:`InputError` naming it."""
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError("no such file", where=str(path)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not valid JSON ({exc})", where=str(path)) from None
