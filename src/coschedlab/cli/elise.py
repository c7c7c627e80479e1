"""``coschedlab elise``: ELiSE's scheduler names (``elise run``, which runs ELiSE's experiment
files as they are, is generated from its registration: :mod:`coschedlab.capabilities`)."""

from __future__ import annotations

import typer

from .batch import say, say_table

app = typer.Typer(
    help="Run ELiSE's experiment files (the YAML of ELiSE's framework/batch/submit.py) "
    "and write ELiSE's output files beside coschedlab's.",
    no_args_is_help=True,
)


@app.command()
def schedulers() -> None:
    """ELiSE's scheduler names and the coschedlab schedulers that run them."""
    from ..coloc.elise.experiment import SCHEDULERS, EliseScheduler
    from ..tables import Col

    rows = [[name, EliseScheduler(0, name, True, 100, True).spec()] for name in SCHEDULERS]
    cols = [Col("ELiSE scheduler", "left"), Col("coschedlab (backfill_enabled: true)", "left")]
    say_table("", cols, rows)
    say(
        "backfill_depth: N sets depth=N. ELiSE's co-schedulers backfill only with "
        "backfill_enabled: true (else: NAME:backfill=false); EASY and Conservative unless "
        "backfill_enabled: false (then: fcfs)."
    )
    say(
        "--compat conservative runs ELiSE's Conservative Scheduler as its code does: "
        "elise-conservative:depth=N (docs/elise.md)."
    )
