"""``coschedlab insitu ...``: in situ ensemble planning and SimGrid simulation (issue 4)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Plan and simulate in situ workflow ensembles.", no_args_is_help=True)
