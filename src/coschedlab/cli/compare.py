"""``coschedlab compare SPEC.yaml``: workloads x schedulers x repetitions on a process pool."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from .core import console, err_console
from .options import ExecutorOpt, FreshOpt, JobsOpt, SweepOutOpt
from .progress import progress_bar


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
    from ..sweeps.executors import parse_executor
    from ..sweeps.store import run_dir
    from ..sweeps.tasks import Outcome

    where = parse_executor(executor) if executor is not None else None
    s = load_spec(spec)
    target = out if out is not None else s.output
    n_runs = len(s.workloads) * len(s.schedulers) * s.repetitions
    console.print(
        f"{s.name}: {len(s.workloads)} workload(s) x {len(s.schedulers)} scheduler(s) x "
        f"{s.repetitions} repetition(s) = {n_runs:,} runs -> {target}/"
    )
    with progress_bar(err_console, "runs", n_runs, unit="runs") as bar:

        def started(todo: int, total: int) -> None:
            if todo < total:
                console.print(f"{total - todo:,} of {total:,} runs already stored; {todo:,} to do")
            bar(total - todo, total)

        def finished(outcome: Outcome) -> None:
            bar(bar.done + 1)
            if outcome.error:
                err_console.print(f"[red]{outcome.key}: {outcome.error}[/red]")

        summary = run_comparison(
            s, target, jobs=jobs, fresh=fresh, on_start=started, on_done=finished,
            executor=where, on_info=lambda text: err_console.print(text, soft_wrap=True),
        )  # fmt: skip
    if summary.interrupted:
        err_console.print(
            f"interrupted: {summary.stored} of {summary.total} runs are stored in {target}/; "
            f"resume with: {_resume_command(spec, out, jobs, executor)}",
            soft_wrap=True,
        )
        raise SystemExit(130)  # said how to resume: main() adds nothing
    table, paths = write_analysis(s, target)
    if len(table):
        from ..experiments.compare import rich_table

        console.print(rich_table(table, s, console.width))
    console.print(f"comparison.csv and {len(paths) - 2} plot file(s) in {target}/")
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
