"""``coschedlab compare SPEC.yaml``: workloads x schedulers x repetitions on a process pool."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from .batch import console, err_console
from .options import ExecutorOpt, FreshOpt, JobsOpt, SweepOutOpt, executor_of
from .progress import run_sweep_shown


def _resume_command(
    spec: Path, out: Path | None, jobs: int | None, executor: str | None = None
) -> str:
    args = ["coschedlab", "compare", str(spec)]
    if out is not None:
        args += ["--out", str(out)]
    if jobs is not None:
        args += ["--jobs", str(jobs)]
    if executor is not None:
        args += ["--executor", executor]
    return shlex.join(args)


def compare(
    spec: Annotated[Path, typer.Argument(help="comparison spec (YAML, see docs/experiments.md)")],
    jobs: JobsOpt = None,
    out: SweepOutOpt = None,
    executor: ExecutorOpt = None,
    fresh: FreshOpt = False,
) -> None:
    """Run every workload x scheduler x repetition of SPEC (resuming: finished runs are kept),
    print the comparison table and write comparison.csv and the plots."""
    from ..experiments import load_spec, run_comparison, write_analysis
    from ..sweeps.store import run_dir

    where = executor_of(jobs, executor)
    s = load_spec(spec)
    target = out if out is not None else s.output
    title = (f"{s.name}: {len(s.workloads)} workload(s) x {len(s.schedulers)} scheduler(s) x "
             f"{s.repetitions} repetition(s)")  # fmt: skip
    summary, _ = run_sweep_shown(
        err_console, title, len(s.workloads) * len(s.schedulers) * s.repetitions, target,
        lambda **cb: (run_comparison(s, target, jobs=jobs, fresh=fresh, executor=where,
                                     on_info=lambda text: err_console.print(text, soft_wrap=True),
                                     **cb), []),
        say=console, resume=f"resume with: {_resume_command(spec, out, jobs, executor)}",
        rows=False,
    )  # fmt: skip
    table, paths = write_analysis(s, target)
    if len(table):
        from ..experiments.compare import rich_table

        console.print(rich_table(table, s, console.width))
    console.print(escape(f"comparison.csv and {len(paths) - 2} plot file(s) in {target}/"))
    if summary.failed:
        err_console.print(f"[red]{len(summary.failed)} run(s) failed:[/red]")
        for key, error in sorted(summary.failed.items()):
            err_console.print(
                f"  {key}: {error} (see {run_dir(target, key) / 'error.txt'})", soft_wrap=True
            )
        err_console.print(
            f"fix the cause and resume with: {_resume_command(spec, out, jobs, executor)}",
            soft_wrap=True,
        )
        raise typer.Exit(1)
