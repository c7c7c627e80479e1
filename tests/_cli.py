"""The command line run as a user runs it: a fresh process, output captured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``coschedlab ARGS`` in a new process (``cwd``: where it runs); stdout/stderr as text."""
    return subprocess.run(
        [sys.executable, "-m", "coschedlab.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )
