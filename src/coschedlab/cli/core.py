"""``coschedlab simulate | schedulers | demo``: the batch simulation core."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from .batch import console, run_simulate
from .options import ForceOpt

DEMO_TRACE = "KTH-SP2-1996-2.1-cln.swf.gz"
DEMO_SCHEDULERS = ("fcfs", "easy", "conservative")


def simulate(
    trace: Annotated[
        str,  # (not a Path: "./-" names a file, "-" standard input)
        typer.Argument(help="SWF trace (.swf or .swf.gz; - reads it from standard input)"),
    ],
    scheduler: Annotated[
        list[str], typer.Option("--scheduler", "-s", help="name[:opt=val,...] or file.py; repeat")
    ] = ["easy"],  # noqa: B006
    nodes: Annotated[int | None, typer.Option(help="nodes (default: from the header)")] = None,
    cores_per_node: Annotated[
        int | None, typer.Option(help="cores per node (default: from the header)")
    ] = None,
    sockets: Annotated[
        int | None, typer.Option(help="sockets per node (default: from the header)")
    ] = None,
    pool: Annotated[Path | None, typer.Option(help="co-location: ELiSE pool JSON")] = None,
    heatmap: Annotated[Path | None, typer.Option(help="co-location: heatmap CSV/JSON")] = None,
    compact_times: Annotated[Path | None, typer.Option(help="with --heatmap: CSV")] = None,
    kill_at_walltime: Annotated[
        bool, typer.Option("--kill-at-walltime", help="end jobs at their requested time")
    ] = False,
    dependencies: Annotated[
        bool,
        typer.Option(
            "--dependencies",
            help="enforce SWF fields 17/18: start a job no earlier than its preceding job's "
            "end plus its think time",
        ),
    ] = False,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="a job that cannot run (unknown run time, no processors, larger than the "
            "machine) is an error (file:line) instead of being dropped and counted",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            help="output directory (default: a new one named after the trace in out/simulate/)"
        ),
    ] = None,
    force: ForceOpt = False,
    pass_timeout: Annotated[
        float | None,
        typer.Option(help="stop with an error when one scheduling pass takes longer (seconds)"),
    ] = None,
    validate: Annotated[bool, typer.Option(help="check the invariants on each run")] = True,
    swf_integers: Annotated[
        bool,
        typer.Option(
            "--swf-integers", help="write result.swf with whole seconds only (integer-only readers)"
        ),
    ] = False,
) -> None:
    """Simulate an SWF trace under one or more schedulers; write jobs.parquet, jobs.csv,
    result.swf and metrics.json (one sub-directory per scheduler when several). With --pool
    (or --heatmap) jobs share nodes and run at the heatmap's co-location speed. The outputs
    appear together when every run is done; an earlier result is replaced only with --force."""
    code = run_simulate(
        trace, scheduler, nodes, cores_per_node, sockets, pool, heatmap, compact_times,
        kill_at_walltime, dependencies, strict, out, force, pass_timeout, validate, swf_integers,
    )  # fmt: skip
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
    simulate(trace, list(DEMO_SCHEDULERS), out=out, force=force, swf_integers=False)
