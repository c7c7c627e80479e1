"""Options shared by the sweep commands (``compare``, ``workflows compare``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

JobsOpt = Annotated[
    int | None,
    typer.Option("--jobs", "-j", help="worker processes (default: all CPUs; 1 = in-process)"),
]
SweepOutOpt = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="output directory (default: the spec's 'output')"),
]
