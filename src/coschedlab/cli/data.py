"""``coschedlab data``: the data files that ship with coschedlab, named ``coschedlab:NAME``
wherever a file is asked for."""

from __future__ import annotations

import textwrap
from typing import Annotated

import typer

from ..errors import InputError
from .progress import text_console

console = text_console()


def data(
    name: Annotated[
        str | None,
        typer.Argument(help="a bundled file: print its installed path (to copy or read it)"),
    ] = None,
) -> None:
    """List the bundled data (traces, ELiSE pools, studies, sweeps) and what each holds; any
    command takes one as ``coschedlab:NAME`` where it takes a file."""
    from ..bundled import CATALOGUE, PREFIX, bundled

    if name is not None:
        print(bundled(name))
        return
    root = bundled(next(iter(CATALOGUE))).parent
    width = max(min(console.width, 100), 24)  # COLUMNS=4 still wraps the lines somewhere
    console.print("bundled data: any command takes coschedlab:NAME where it takes a file\n")
    for file, what in CATALOGUE.items():
        path = root / file
        if not path.is_file():
            raise InputError(f"the bundled file {PREFIX}{file} is missing: reinstall coschedlab")
        size = f"{path.stat().st_size / 1024:,.0f} kB"
        console.print(f"[bold]{file}[/bold]{size:>{max(width - len(file), len(size) + 1)}}")
        for line in textwrap.wrap(what.replace("`", ""), width - 4):
            console.print(f"    {line}", highlight=False)
    example = f"{PREFIX}{next(iter(CATALOGUE))}"
    console.print(f"\ne.g. coschedlab simulate {example} -s easy", highlight=False)
