"""``coschedlab elise``: run ELiSE's experiment files as they are (docs/coloc.md, "ELiSE")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from .batch import console, err_console
from .options import ExecutorOpt, FreshOpt, JobsOpt, executor_of

app = typer.Typer(
    help="Run ELiSE's experiment files (the YAML of ELiSE's framework/batch/submit.py) "
    "and write ELiSE's output files beside coschedlab's.",
    no_args_is_help=True,
)


@app.command()
def run(
    experiment: Annotated[Path, typer.Argument(help="ELiSE experiment file (YAML)")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="output folder (default: the 'dir' of the file's "
            "actions, where ELiSE writes; else out/elise/NAME)",
        ),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            help="the first reading of the clock ELiSE's generators seed "
            "from (ELiSE reads the time; the same seed draws the same workloads)",
        ),
    ] = 0,
    compat: Annotated[
        str | None,
        typer.Option(
            "--compat",
            help="reproduce ELiSE's bugs too: all, or any of late-kill, "
            "clock, conservative, alone (default: none; see docs/elise.md)",
        ),
    ] = None,
    jobs: JobsOpt = None,
    executor: ExecutorOpt = None,
    fresh: FreshOpt = False,
) -> None:
    """Run every input x scheduler of an ELiSE EXPERIMENT file (resuming: finished runs are
    kept), print a table of the runs, and write ELiSE's files (workloads/*.csv, plots,
    time_reports.csv) and coschedlab's results (coschedlab/) into the output folder."""
    from ..coloc.elise.experiment import expand, parse_compat, read_experiment
    from ..coloc.elise.run import OWN_DIR, check_output, output_folder, run_experiment
    from ..errors import InputError, check_seed
    from ..tables import Col, fit_table
    from .progress import report_step, run_sweep_shown

    check_seed(seed)
    where = executor_of(jobs, executor)
    flags = parse_compat(compat)
    exp = read_experiment(experiment)
    target = output_folder(exp, out)
    made, runs = expand(exp, seed)
    check_output(exp, target, seed, flags, fresh)
    for note in exp.notes:
        err_console.print(f"note: {note}", soft_wrap=True)
    n_jobs = sum(len(j) for _, j, _ in made)
    title = f"{exp.name}: {len(made)} input(s), {n_jobs:,} jobs x "
    title += f"{len(exp.schedulers)} scheduler(s)"
    state = {}

    def sweep(**cb):
        summary, table = run_experiment(
            exp,
            target,
            seed=seed,
            compat=flags,
            jobs=jobs,
            fresh=fresh,
            executor=where,
            expanded=(made, runs),
            **cb,
        )
        state["table"] = table
        return summary, [1] if summary.stored else []

    with report_step(err_console, target):
        summary, _ = run_sweep_shown(err_console, title, len(runs), target, sweep)
    table = state.get("table")
    if summary.failed or table is None:
        raise InputError(
            f"{len(summary.failed)} run(s) failed (see {target}/{OWN_DIR}/*/*/"
            "rep0/error.txt); fix the cause and run the same command again"
        )
    cols = [Col("sim"), Col("in"), Col("scheduler", "left", wrap=True)]
    cols += [Col(c) for c in ("makespan s", "mean wait s", "mean bsld", "killed")]
    rows = [
        [
            str(r.sim),
            str(r.input),
            _short(r.scheduler),
            f"{r.makespan:,.1f}",
            f"{r.mean_wait:,.1f}",
            f"{r.mean_bounded_slowdown:,.2f}",
            str(r.killed),
        ]
        for r in table.itertuples()
    ]
    console.print(fit_table(exp.name, cols, rows, console.width, keep=3))
    how = "ELiSE's bugs fixed (--compat all reproduces them)"
    if flags:
        how = "ELiSE's bugs reproduced: " + ", ".join(sorted(flags))
    console.print(
        escape(f"{how}; ELiSE's files and coschedlab's results in {target}/"), soft_wrap=True
    )


def _short(name: str) -> str:
    """ELiSE's scheduler names without their common ending: "Filler (co)", "EASY"."""
    if name.endswith(" Co-Scheduler"):
        return name.removesuffix(" Co-Scheduler") + " (co)"
    return name.removesuffix(" Scheduler")


@app.command()
def schedulers() -> None:
    """ELiSE's scheduler names and the coschedlab schedulers that run them."""
    from ..coloc.elise.experiment import SCHEDULERS, EliseScheduler
    from ..tables import Col, fit_table

    rows = [[name, EliseScheduler(0, name, True, 100, True).spec()] for name in SCHEDULERS]
    cols = [Col("ELiSE scheduler", "left"), Col("coschedlab (backfill_enabled: true)", "left")]
    console.print(fit_table("", cols, rows, console.width, keep=1))
    lines = [
        "backfill_depth: N sets depth=N. ELiSE's co-schedulers backfill only with "
        "backfill_enabled: true (else: NAME:backfill=false); EASY and Conservative unless "
        "backfill_enabled: false (then: fcfs).",
        "--compat conservative runs ELiSE's Conservative Scheduler as its code does: "
        "elise-conservative:depth=N (docs/elise.md).",
    ]
    for line in lines:
        console.print(line, soft_wrap=False)
