"""``coschedlab simulate | schedulers | demo``: the batch simulation core."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from .batch import console, run_simulate
from .options import WATCHDOG_HELP, ForceOpt, passes

DEMO_TRACE = "KTH-SP2-1996-2.1-cln.swf.gz"
DEMO_SCHEDULERS = ("fcfs", "easy", "conservative")


@passes(
    run_simulate,
    nodes="nodes (default: from the header)",
    cores_per_node="cores per node (default: from the header)",
    sockets="sockets per node (default: from the header)",
    pool="co-location: ELiSE pool JSON",
    heatmap="co-location: heatmap CSV/JSON",
    compact_times="with --heatmap: CSV",
    kill_at_walltime="end jobs at their requested time",
    dependencies="enforce SWF fields 17/18: start a job no earlier than its preceding job's "
    "end plus its think time",
    strict="a job that cannot run (unknown run time, no processors, larger than the machine) "
    "is an error (file:line) instead of being dropped and counted",
    out="output directory (default: a new one named after the trace in out/simulate/)",
    **WATCHDOG_HELP,
    validate="check the invariants on each run",
    swf_integers="write result.swf with whole seconds only (integer-only readers)",
)
def simulate(
    trace: Annotated[
        str,  # (not a Path: "./-" names a file, "-" standard input)
        typer.Argument(help="SWF trace (.swf or .swf.gz; - reads it from standard input)"),
    ],
    scheduler: Annotated[
        list[str], typer.Option("--scheduler", "-s", help="name[:opt=val,...] or file.py; repeat")
    ] = ["easy"],  # noqa: B006
    force: ForceOpt = False,
    **options: Any,
) -> None:
    """Simulate an SWF trace under one or more schedulers; write jobs.parquet, jobs.csv,
    result.swf and metrics.json (one sub-directory per scheduler when several). With --pool
    (or --heatmap) jobs share nodes and run at the heatmap's co-location speed. The outputs
    appear together when every run is done; an earlier result is replaced only with --force."""
    code = run_simulate(trace, scheduler, force=force, **options)
    if code:
        raise typer.Exit(code)


def schedulers() -> None:
    """List the schedulers known by name (built-ins and installed plug-ins)."""
    import inspect

    from ..schedulers import available
    from ..tables import plain

    # two columns: at 80 columns a third one cuts the long option values (Slurm's weights)
    table = Table(title="schedulers (options and their defaults below each description)")
    table.add_column("name", no_wrap=True)
    table.add_column("description; options", overflow="fold")
    for name, cls in sorted(available().items()):
        sig = inspect.signature(cls.__init__)
        opts = ", ".join(
            f"{p.name}={p.default!r}"
            for p in sig.parameters.values()
            if p.name != "self" and p.name not in getattr(cls, "api_only", ())
        )
        doc = plain((inspect.getdoc(cls) or "").split("\n\n")[0])  # the first paragraph
        table.add_row(name, Text(doc) + (Text("\n" + opts, style="dim") if opts else Text()))
    console.print(table)


def demo(
    out: Annotated[Path, typer.Option(help="output directory")] = Path("out/demo"),
    force: ForceOpt = False,
) -> None:
    """The main job: the bundled KTH-SP2 trace under FCFS, EASY and conservative."""
    from ..bundled import PREFIX

    trace = PREFIX + DEMO_TRACE  # named as a user names it: coschedlab:KTH-SP2-...
    simulate(trace, list(DEMO_SCHEDULERS), out=out, force=force)
