"""The command line run as a user runs it: a fresh process, output captured."""

from __future__ import annotations

import re
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


def doc_commands(text: str, inline: bool = True) -> list[str]:
    """The ``coschedlab`` commands of the bash blocks of a markdown text, in order
    (continuation lines joined, comments dropped), then, with ``inline``, the complete ones
    quoted inline (not a bare command name, ``DIR...`` or a ``...`` elision)."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith("coschedlab "):
                out.append(line)
    if not inline:
        return out
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for span in re.findall(r"`(coschedlab [^`]+)`", text):
        if len(span.split()) > 2 and "..." not in span and "DIR" not in span:
            out.append(" ".join(span.split()))
    return out
