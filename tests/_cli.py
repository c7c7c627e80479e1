"""The command line run as a user runs it: a fresh process (``cli``), or, where a test's point
is what a command writes, prints and exits with, the same entry point in this process
(``cli_here``: no interpreter start-up and package import per call); output captured."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

#: a three-job SWF trace on 4 nodes (the CLI tests' smallest input)
SMALL = """\
; MaxNodes: 4
; MaxProcs: 4
1 0 -1 50 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1 60 2 -1 -1 2 100 -1 1 2 1 -1 -1 -1 -1 -1
3 20 -1 70 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1
"""


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``coschedlab ARGS`` in a new process (``cwd``: where it runs); stdout/stderr as text."""
    return subprocess.run(
        [sys.executable, "-m", "coschedlab.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def cli_here(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``coschedlab ARGS`` run by ``coschedlab.cli.main.main`` in this process, from ``cwd``, as
    ``cli`` runs it: stdout/stderr as text (not a terminal, 80 columns), the exit code; an
    exception escaping ``main`` is exit code 1 with its traceback on stderr, as in a process."""
    from coschedlab.cli.main import main

    out, err = (io.TextIOWrapper(io.BytesIO(), "utf-8", write_through=True) for _ in "oe")
    old_argv, old_cwd, old_columns = sys.argv, os.getcwd(), os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"  # what a process whose output is a pipe falls back to
    sys.argv = ["coschedlab", *args]
    code = 0
    try:
        if cwd is not None:
            os.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                if isinstance(exc.code, str):
                    print(exc.code, file=sys.stderr)
            except Exception:
                traceback.print_exc()
                code = 1
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
        if old_columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old_columns
    out.flush(), err.flush()
    return subprocess.CompletedProcess(
        ["coschedlab", *args], code, out.buffer.getvalue().decode(), err.buffer.getvalue().decode()
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
