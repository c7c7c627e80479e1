"""``coschedlab workflows ...``: workflow-aware scheduling (WoAS; issue 11)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError
from ..tables import count, number
from ..workflows import workload  # (its generate declares the options it takes)
from .options import WATCHDOG_HELP, ForceOpt, JsonOpt, csv_items, passes

app = typer.Typer(
    help="Workflows as chained jobs, pilot jobs or WoAS jobs in a loaded machine.",
    no_args_is_help=True,
)

CoarseOpt = Annotated[
    str | None,
    typer.Option(
        "--coarse",
        help="fuse same-stage tasks into one task per stage: 'all' or stage names "
        "(comma-separated), as the WoAS authors did",
    ),
]
MaxCoresOpt = Annotated[
    int | None, typer.Option("--max-cores", help="with --coarse: cap a fused stage's cores")
]
MachineOpt = Annotated[
    str,
    typer.Option("--machine", help="edison (5576 nodes x 24 cores) or NODESxCORES, e.g. 1394x24"),
]


def _load(spec: str, coarse: str | None, max_cores: int | None):
    from ..workflows.formats import load_workflow

    stages: bool | list[str] = False
    if coarse is not None:
        stages = True if coarse.strip().lower() == "all" else csv_items(coarse) or []
        if not stages:
            raise InputError("give stage names (comma-separated) or all", "--coarse")
    return load_workflow(spec, coarse=stages, max_cores=max_cores)


def _hms(s: float) -> str:
    return f"{s / 3600:.2f} h" if s >= 3600 else f"{s:.0f} s"


def ascii_profile(wf: Any, width: int = 50, rows: int = 12) -> list[str]:
    """The ASAP core profile as text: one line per time slice (its start, in one unit: hours
    when the profile lasts an hour or more, else seconds), the most cores in use during the
    slice (so the peak shows however short it is) and a bar scaled to the peak."""
    prof = wf.profile()
    end = prof[-1][0]
    if end <= 0:
        return []
    top = max(c for _, c in prof) or 1
    hours = end >= 3600
    out = [f"{'from (h)' if hours else 'from (s)':>9} {'cores':>6}"]
    for k in range(rows):
        a, b = end * k / rows, end * (k + 1) / rows
        before = [c for when, c in prof if when <= a]
        level = max([before[-1] if before else 0, *(c for when, c in prof if a < when < b)])
        bar = "#" * max(1 if level else 0, round(width * level / top))
        start = number(a / 3600, 2) if hours else number(a, 0)
        out.append(f"{start:>9} {level:>6,} {bar}")
    return out


@app.command()
def show(
    workflow: Annotated[
        str,
        typer.Argument(
            help="a built-in name (montage, cybershake, sipht, "
            "floodplain, longwide, widelong, A8, B4, C2...) or a "
            ".json/.xml/.dax file"
        ),
    ],
    coarse: CoarseOpt = None,
    max_cores: MaxCoresOpt = None,
    as_json: JsonOpt = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="write the profile as a PNG")] = None,
    force: ForceOpt = False,
) -> None:
    """The tasks of a workflow and its derived values (critical path, pilot geometry, waste)."""
    wf = _load(workflow, coarse, max_cores)
    if plot is not None:
        from ..outputs import atomic_file, check_target

        check_target(plot, force, "file", "--plot")
        from ..workflows.plots import profile_figure

        fmt = plot.suffix.lower().lstrip(".") or "png"
        if fmt not in ("png", "pdf", "svg"):
            raise InputError(f"a plot is .png, .pdf or .svg, not .{fmt}", "--plot")
        fig = profile_figure(wf)
        with atomic_file(plot, force, "--plot") as tmp:
            fig.savefig(tmp, format=fmt, dpi=110)
    if as_json:
        manifest = {"tasks": wf.to_manifest()["tasks"], "profile": wf.profile()}
        print(json.dumps({**wf.summary(), **manifest}))
        return
    from .progress import text_console
    from .sweeps import print_table

    con = text_console(width=80)
    s = wf.summary()
    shown = wf.tasks if len(wf.tasks) <= 40 else wf.tasks[:40]
    staged = any(task.stage for task in shown)  # built-in workflows name no stage
    cols = ["task", *(["stage"] if staged else []), "cores", "runtime (s)", "limit (s)", "after"]
    rows = [
        [
            task.id,
            *([task.stage[:16]] if staged else []),
            f"{task.cores:,}",
            number(task.runtime, 1),
            number(task.limit, 1),
            deps if len(deps := ", ".join(task.deps)) <= 24 else deps[:21] + "...",
        ]
        for task in shown
    ]
    title = f"workflow {wf.name} ({count(len(wf.tasks), 'task')})"
    print_table(title, cols, rows, left={"task", "stage", "after"})
    if len(wf.tasks) > 40:
        con.print(f"... {len(wf.tasks) - 40} more tasks (--coarse all fuses them by stage)")
    con.print(
        f"critical path  {_hms(wf.critical_path)} ({s['critical_path_tasks']} tasks: "
        f"{' -> '.join(wf.critical_tasks[:8])}{' ...' if len(wf.critical_tasks) > 8 else ''})\n"
        f"time limit     {_hms(wf.critical_path_limit)} (pilot and WoAS job)\n"
        f"max cores      {wf.max_cores:,} (pilot and WoAS job; the profile's peak)\n"
        f"usage          {number(s['usage_core_h'])} core-h "
        f"(limits: {number(s['usage_limit_core_h'])})\n"
        f"pilot waste    {number(s['potential_waste_core_h'])} core-h "
        f"(limits: {number(s['potential_waste_limit_core_h'])})"
    )
    con.print("profile (as soon as possible, actual run times; most cores in each slice):")
    for line in ascii_profile(wf):
        con.print(line, highlight=False)


@app.command()
@passes(
    workload.generate,
    share="workflows' share of core-hours, 0-1",
    period="one workflow every PERIOD seconds",
    seed="random seed",
    warmup="seconds simulated, not analysed",
    window="analysis window (s)",
    pressure="job pressure target (fitted: queue stationary)",
    target_wait="pre-fill wait baseline (s)",
    scale_jobs="regular job sizes x (machine cores / Edison's)",
)
def generate(
    workflow: Annotated[
        list[str] | None,
        typer.Option("--workflow", "-w", help="a workflow name or file (repeat for several)"),
    ] = None,
    machine: MachineOpt = "edison",
    coarse: CoarseOpt = None,
    max_cores: MaxCoresOpt = None,
    out: Annotated[Path, typer.Option("--out", help="directory to write")] = Path("workload"),
    force: ForceOpt = False,
    **options: Any,
) -> None:
    """Write a workload of regular jobs and workflows (the WoAS paper's generator)."""
    from ..outputs import atomic_dir, check_target

    files = [w for w in workflow or [] if Path(w).suffix and Path(w).exists()]  # not names
    check_target(out, force, inputs=files)
    if workflow and options["share"] is None and options["period"] is None:
        raise InputError("give --share or --period for the workflows (-w)", "--share")
    wfs = [_load(w, coarse, max_cores) for w in (workflow or [])]
    ww = workload.generate(wfs, cluster=workload.machine_of(machine), **options)
    with atomic_dir(out, force) as tmp:
        ww.save(tmp)
    w = ww.work()
    share = 100 * w["workflows"] / max(1.0, sum(w.values()))
    from .batch import say

    say(
        f"wrote {len(ww.regular):,} regular jobs ({int(ww.filler.sum()):,} pre-fill) and "
        f"{count(ww.n_workflows, 'workflow')} ({share:.1f}% "
        f"of the core-hours) on {ww.cluster} to {out}",
        err=True,
    )


@app.command()
def simulate(
    workload: Annotated[Path, typer.Argument(help="a directory made by `workflows generate`")],
    mode: Annotated[
        str, typer.Option("--mode", help="chained | pilot | woas | all (the three, compared)")
    ] = "all",
    scheduler: Annotated[
        str, typer.Option("--scheduler", "-s", help="scheduler spec (default: slurm)")
    ] = "slurm",
    out: Annotated[
        Path | None, typer.Option("--out", help="write jobs, workflows and summary here")
    ] = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    pass_timeout: Annotated[
        float | None,
        typer.Option(
            "--pass-timeout",
            help=WATCHDOG_HELP["pass_timeout"],
        ),
    ] = None,
    wake_limit: Annotated[
        int | None,
        typer.Option(
            "--wake-limit",
            help=WATCHDOG_HELP["wake_limit"],
        ),
    ] = None,
) -> None:
    """Simulate a workload with its workflows submitted in one mode (or all three)."""
    from ..engine.watchdog import check_limit, check_wake_limit
    from ..jsonsafe import json_safe
    from ..outputs import atomic_dir, check_target
    from ..schedulers import get_scheduler
    from ..workflows.metrics import compared_title, summary_cells
    from ..workflows.modes import MODES
    from ..workflows.simulate import check_woas, simulate_modes
    from ..workflows.workload import WorkflowWorkload
    from .progress import progress_bar, text_console
    from .sweeps import print_table

    modes = MODES if mode == "all" else (mode,)
    if mode != "all" and mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; choose chained, pilot, woas or all", "--mode")
    get_scheduler(scheduler)  # a bad spec fails before the workload is read
    check_limit(pass_timeout)
    check_wake_limit(wake_limit)
    skipped = None
    try:
        check_woas(scheduler)
    except InputError as exc:
        if mode == "woas":
            raise InputError(exc.what, "--mode woas") from None
        modes, skipped = tuple(m for m in modes if m != "woas"), exc.what
    if out is not None:
        inside = Path(out).resolve()
        if inside == Path(workload).resolve() or Path(workload).resolve() in inside.parents:
            raise InputError("--out is the workload directory (or inside it); choose another",
                             "--out")  # fmt: skip
        check_target(out, force, inputs=[workload])  # nor one that holds it
    ww = WorkflowWorkload.load(workload)
    err = text_console(stderr=True)
    if skipped is not None and mode == "all":
        err.print(f"note: woas left out: {skipped}", soft_wrap=True)
    with progress_bar(err, "workload", None, unit="jobs") as bar:
        runs, summaries = simulate_modes(
            ww, modes, scheduler, progress=bar, pass_timeout=pass_timeout, wake_limit=wake_limit
        )
    if out is not None:
        with atomic_dir(out, force) as tmp:
            for m, r in runs.items():
                d = tmp / m
                d.mkdir()
                r.result.write(d)
                r.workflows.to_csv(d / "workflows.csv", index=False)
            (tmp / "summary.json").write_text(json.dumps(json_safe(summaries), indent=1) + "\n")
    if as_json:
        print(json.dumps(json_safe(summaries)))
    else:
        title, caption = compared_title(summaries)
        print_table(title, ["metric", *summaries], summary_cells(summaries), caption)
    found = {m: r.validate() for m, r in runs.items()}
    bad = {m: violations for m, violations in found.items() if violations}
    for m, violations in bad.items():  # (the results are written: they show what went wrong)
        for v in violations[:5]:
            err.print(f"{m}: {v}", soft_wrap=True, highlight=False, markup=False)
    if bad:
        raise typer.Exit(1)
