"""``coschedlab study ...``: simulation-collection studies (SimX; issue 13, in progress)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError

app = typer.Typer(
    help="Studies of many runs of a moldable simulation code (SimX): batching so far.",
    no_args_is_help=True,
)


def load_scaling(text: str):
    """A scaling table inline (``4:1.95,8:1.14``) or from a CSV file of
    ``processors,seconds_per_timestep`` lines (a header line allowed)."""
    from ..errors import read_bytes
    from ..studies import parse_scaling

    path = Path(text)
    if ":" in text and not path.exists():
        return parse_scaling(text)
    if path.is_dir():
        raise InputError("is a directory, not a scaling table", str(path))
    if not path.is_file():
        raise InputError(
            f"--scaling {text!r}: not a file; give PROCESSORS:SECONDS,... or a CSV file"
        )
    lines = read_bytes(path).decode("utf-8-sig", errors="replace").splitlines()
    items = []
    for lineno, line in enumerate(lines, 1):
        cells = [c.strip() for c in line.split(",")]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if len(cells) != 2:
            raise InputError("expected processors,seconds_per_timestep", f"{path}:{lineno}")
        try:
            int(cells[0]), float(cells[1])
        except ValueError:
            if not items and lineno == 1:
                continue  # a header
            raise InputError(
                f"expected processors,seconds_per_timestep, got {line.strip()!r}",
                f"{path}:{lineno}",
            ) from None
        items.append(f"{cells[0]}:{cells[1]}")
    try:
        return parse_scaling(",".join(items))
    except InputError as exc:
        raise InputError(exc.what, str(path)) from None


@app.command()
def batch(
    scaling: Annotated[
        str,
        typer.Option(
            "--scaling",
            help="seconds per timestep by processors: 4:1.95,8:1.14,... or a CSV file",
        ),
    ],
    jobs: Annotated[int, typer.Option("--jobs", "-n", help="simulations in the study")],
    procs: Annotated[int, typer.Option("--procs", "-p", help="processors of the study")],
) -> None:
    """The optimal batches of JOBS equal simulations on PROCS processors (SimX 4.2): sizes,
    processors per simulation and the time per timestep, against one batch and one by one."""
    from rich.console import Console
    from rich.table import Table

    from ..studies import batch_time, optimal_batches

    table = load_scaling(scaling)
    b = optimal_batches(jobs, table, procs)
    t = Table(title=f"{jobs} runs on {procs} processors; n = timesteps per run")
    for col in ("batch", "simulations", "procs each", "time"):
        t.add_column(col, justify="right")
    for i, (k, p) in enumerate(zip(b.sizes, b.groups, strict=True), 1):
        t.add_row(str(i), str(k), str(p), f"{batch_time(k, table, procs):.4g}n s")
    con = Console(width=80)
    con.print(t)
    one = batch_time(1, table, procs) * jobs
    together = batch_time(jobs, table, procs) if jobs else 0.0
    con.print(f"optimal: {b.time:.4g}n s in {len(b.sizes)} batches")
    con.print(f"one at a time on {table.group(1, procs)} processors: {one:.4g}n s")
    con.print(
        "all at once: "
        + (f"{together:.4g}n s" if together != float("inf") else "impossible (too many)")
    )
