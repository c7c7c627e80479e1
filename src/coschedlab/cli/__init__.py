"""The ``coschedlab`` command line (typer + rich)."""

from __future__ import annotations

import time

#: when the command started (``time.monotonic()``): progress bars count elapsed time from it
STARTED = time.monotonic()

from .main import app, main  # noqa: E402 (STARTED first)

__all__ = ["app", "main"]
