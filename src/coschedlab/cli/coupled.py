"""``coschedlab coupled ...``: co-scheduling across coupled systems (hold / yield; issue 12)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from ..coupled.setup import run_coupled  # (it declares the options it takes)
from ..errors import InputError, ScheduleError
from .options import WATCHDOG_HELP, ForceOpt, passes

app = typer.Typer(
    help="Paired jobs on coupled systems (a machine and its analysis cluster) start together.",
    no_args_is_help=True,
)


@app.command()
@passes(
    run_coupled,
    mate_attempt="queued: the mate's system tries whenever the mate waits (the paper); "
    "yielded: only if it yielded since that system's last event (Cobalt's code)",
    baseline="also run without pairing",
    **WATCHDOG_HELP,
)
def simulate(
    system: Annotated[
        list[str] | None,
        typer.Option(
            "--system",
            help="TRACE[:key=value,...], one per machine (at least two). TRACE: an SWF file, "
            "theta (bundled ALCF Theta 2022, 4,360 nodes, January) or kth (bundled KTH-SP2, "
            "100 nodes). Keys: name, nodes, scheme (hold|yield), hold_cap (0.6), release "
            "(1200 s; none), release_age (600 s), max_yields, month (1-12, epoch-time traces), "
            "load (stretch arrivals to this utilization; a month: its jobs and the following "
            "months'), calibrate (paper: theta and kth as the paper's baselines, kth's load "
            "0.25|0.5|0.75 a label). Default: theta + kth at load 0.5.",
        ),
    ] = None,
    pairs: Annotated[
        str,
        typer.Option(
            "--pairs",
            help="vicinity:SECONDS, every:K, proportion:P, file:PATH (CSV system,job,system,job) "
            "or none",
        ),
    ] = "vicinity:120",
    scheduler: Annotated[
        list[str] | None,
        typer.Option(
            "--scheduler", "-s", help="policy per system (one for all); default easy:order=wfp"
        ),
    ] = None,
    compat: Annotated[
        str,
        typer.Option(
            "--compat",
            help="none: our semantics (docs/coupled.md); cobalt: Cobalt Qsim's own rules where "
            "they differ (60-s exclusion, strict cap, release ticks, summed cluster WFP)",
        ),
    ] = "none",
    seed: Annotated[int, typer.Option("--seed", help="where load-stretched traces start")] = 0,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="output directory")] = None,
    force: ForceOpt = False,
    **options: Any,
) -> None:
    """Simulate coupled systems with paired jobs; print per system the wait, slowdown,
    utilization, sync time and service-unit loss, against the same run without pairing."""
    from ..coupled.mates import parse_pairing
    from ..coupled.setup import COLUMNS, DEFAULT_SYSTEMS, build_systems, table_cells
    from ..coupled.system import ATTEMPTS, COMPATS
    from ..errors import check_seed
    from ..outputs import atomic_dir, check_target
    from .progress import text_console
    from .sweeps import print_table

    check_seed(seed)
    parse_pairing(pairs)  # (a mistyped --pairs said at once, not after the traces are read)
    if options["mate_attempt"] not in ATTEMPTS:
        got = options["mate_attempt"]
        raise InputError(f"--mate-attempt must be queued or yielded, got {got!r}")
    if compat != "none" and compat not in COMPATS:
        raise InputError(f"--compat must be cobalt or none, got {compat!r}")
    if out is not None:
        check_target(out, force, inputs=_inputs(system or DEFAULT_SYSTEMS, pairs))
    err = text_console(stderr=True)
    systems, notes = build_systems(system or DEFAULT_SYSTEMS, scheduler or [], seed)
    for note in notes:  # (word-wrapped at the width, as the lines below)
        err.print(note, highlight=False)
    compat_ = None if compat == "none" else compat
    try:
        r, metrics, base, p, shares = run_coupled(systems, pairs, compat=compat_, **options)
    except ScheduleError as exc:  # (exit code 1, as simulate's: each violation said)
        for v in exc.violations[:5]:
            err.print(v, soft_wrap=True, highlight=False, markup=False)
        raise typer.Exit(1) from None
    each = zip(systems, shares, strict=True)
    said = ", ".join(f"{s.name} {100 * x:.1f}% of {len(s.workload):,} jobs" for s, x in each)
    err.print(f"{len(p):,} pairs: {said}", highlight=False)
    print_table(
        "coupled run (in brackets: change against no pairing)",
        COLUMNS,
        table_cells(metrics, base),
        "util %: useful; a: allocated (held nodes counted as busy)",
        left={"system"},
        show_edge=False,  # two more characters: the cells fit 80 columns without wrapping
    )
    if out is not None:
        with atomic_dir(out, force) as tmp:
            r.write(tmp, base)
        err.print(
            escape(f"wrote {out}/ (one directory per system, holds.csv, pairs.csv, coupled.json)")
        )


def _inputs(systems: list[str], pairs: str) -> list[str]:
    """The files a coupled run reads (traces, a pairs file): --out may not hold them."""
    from ..coupled.setup import parse_system

    traces = [parse_system(text)[0] for text in systems]
    read = [t for t in traces if t not in ("theta", "kth")]
    return read + ([pairs.removeprefix("file:")] if pairs.startswith("file:") else [])
