"""``coschedlab simulate | schedulers | demo``: the batch simulation core."""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from ..errors import InputError

if TYPE_CHECKING:  # pragma: no cover (imported where used: the CLI starts fast)
    from ..engine.result import Result
    from ..jobs import Workload
    from ..platform import Cluster

console = Console(width=None if Console().is_terminal else 150)
err_console = Console(stderr=True)

DEMO_TRACE = "KTH-SP2-1996-2.1-cln.swf.gz"
DEMO_SCHEDULERS = ("fcfs", "easy", "conservative")


def machine_options(
    nodes: int | None,
    cores_per_node: int | None,
    sockets: int | None,
    default: Cluster | None,
    missing: str,
) -> Cluster:
    """The machine of ``--nodes/--cores-per-node/--sockets``, each part not given taken from
    ``default`` (a trace header's or a pool's machine): cores per node else 1, sockets else
    ``default``'s when they divide the cores per node, else 1. No nodes anywhere: InputError
    ``missing``."""
    from ..platform import Cluster

    for name, value in (("--nodes", nodes), ("--cores-per-node", cores_per_node),
                        ("--sockets", sockets)):  # fmt: skip
        if value is not None and value < 1:
            raise InputError(f"{name} must be positive, got {value}")
    if nodes is None and default is None:
        raise InputError(missing)
    n = nodes if nodes is not None else default.nodes
    cpn = cores_per_node or (default.cores_per_node if default else 1)
    if sockets is None:
        kept = default.sockets_per_node if default else 1
        sockets = kept if cpn % kept == 0 else 1
    if cpn % sockets:
        raise InputError(f"--cores-per-node {cpn} does not split into {sockets} sockets")
    return Cluster(n, sockets, cpn // sockets)


def load_trace(
    path: Path,
    nodes: int | None,
    cores_per_node: int | None,
    sockets: int | None = None,
    strict: bool = False,
) -> tuple[Workload, Cluster]:
    """Read an SWF trace; the machine comes from the options, each part not given from the
    header (:func:`machine_options`). Jobs that cannot run are dropped and counted, or with
    ``strict`` the first is an error (file:line)."""
    from ..workload.swf import cluster_from_header, read_swf

    workload = read_swf(path)
    cluster = machine_options(
        nodes,
        cores_per_node,
        sockets,
        cluster_from_header(workload.header),
        f"{path}: no MaxNodes/MaxProcs in the header; give --nodes",
    )
    if strict and (workload.dropped or (workload.procs > cluster.total_cores).any()):
        read_swf(path, cluster=cluster, strict=True)  # names the first such job's line
    workload = workload.drop_oversized(cluster.total_cores)
    if not len(workload):
        raise InputError(f"{path}: no job left to simulate ({workload.summary()})")
    return workload, cluster


def _progress_run(
    workload: Workload,
    cluster: Cluster,
    spec: str,
    kill: bool,
    pool: object = None,
    dependencies: bool = False,
) -> Result:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from ..api import simulate as run_simulation

    opts = {"kill_at_walltime": kill, "pool": pool, "dependencies": dependencies}
    if len(workload) < 100_000 or not console.is_terminal:
        return run_simulation(workload, cluster, spec, **opts)
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    ) as bar:
        task = bar.add_task(spec, total=len(workload))
        return run_simulation(
            workload,
            cluster,
            spec,
            progress=lambda done, total: bar.update(task, completed=done),
            **opts,
        )


def _fmt(v: float, digits: int = 1) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return f"{v:,.{digits}f}"


def metrics_table(results: dict[str, Result], title: str) -> Table:
    """One row per scheduler: the headline metrics and the simulator's speed; with
    co-location also the mean job speedup, the share slower than compact, the share spread
    and the makespan gain over the first scheduler."""
    from ..metrics import improvement

    table = Table(title=title)
    coloc = any("speedup_mean" in r.metrics for r in results.values())
    cols = ["scheduler", "makespan h", "util %", "wait mean h", "wait p95 h", "bsld mean",
            "bsld p95"]  # fmt: skip
    if coloc:
        cols += ["speedup", "slower %", "spread %", "gain %"]
    cols += ["sim s", "jobs/s", "days/hour", "valid"]
    for col in cols:
        table.add_column(col, justify="left" if col == "scheduler" else "right")
    base = next(iter(results.values()), None)
    for name, r in results.items():
        m = r.metrics
        valid = getattr(r, "_violations", None)
        extra = []
        if coloc:
            gain = improvement(r.jobs, base.jobs)["makespan_improvement"]
            extra = [
                _fmt(m.get("speedup_mean", math.nan), 3),
                _fmt(100 * m.get("slower_than_compact", math.nan)),
                _fmt(100 * m.get("spread_share", math.nan)),
                _fmt(gain, 1),
            ]
        table.add_row(
            name,
            _fmt(m["makespan"] / 3600),
            _fmt(100 * m["utilization"]),
            _fmt(m["wait_mean"] / 3600, 2),
            _fmt(m["wait_p95"] / 3600, 2),
            _fmt(m["bounded_slowdown_mean"], 2),
            _fmt(m["bounded_slowdown_p95"], 2),
            *extra,
            _fmt(r.wall_time, 3),
            _fmt(m.get("jobs_per_s", math.nan), 0),
            _fmt(m.get("days_per_hour", math.nan), 0),
            "-" if valid is None else ("yes" if not valid else f"NO ({len(valid)})"),
        )
    return table


def coloc_notice(name: str, metrics: dict, cluster: Cluster) -> str | None:
    """One line when co-scheduler ``name`` could not co-locate anything, with the reason
    (from :func:`coschedlab.metrics.spread_reasons`); None when it could."""
    from ..coloc.spread import spread_cores

    n = int(metrics.get("n_jobs", 0))
    if not n or "spread_share" not in metrics:
        return None
    if metrics["spread_share"] == 0:
        why = []
        large = int(metrics.get("too_large_to_spread", 0))
        if large:
            half = spread_cores(cluster)
            why.append(
                f"{large:,} too large to spread on {cluster.nodes:,} nodes "
                f"(at most {cluster.nodes * half:,} processors at {half} cores per node)"
            )
        chosen = int(metrics.get("compact_by_choice", 0))
        if chosen:
            why.append(f"{chosen:,} placed compact when nothing was free to spread them")
        return f"note: {name} spread no job" + (f": {'; '.join(why)}" if why else "")
    if metrics.get("shared_share", 1) == 0:
        return (
            f"note: {name} spread {metrics['spread_share']:.0%} of the jobs but no two ever "
            "shared a node (never a partner waiting beside a running job)"
        )
    if metrics.get("unknown_app", 0) == n:
        return (
            f"note: {name}: no job's application is in the pool (SWF field 14 and the "
            "Applications header), so every job ran at speedup 1"
        )
    return None


def simulate(
    trace: Annotated[Path, typer.Argument(help="SWF trace (.swf or .swf.gz)")],
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
        bool, typer.Option(help="end jobs at their requested time")
    ] = False,
    dependencies: Annotated[
        bool,
        typer.Option(
            help="enforce SWF fields 17/18: start a job no earlier than its preceding job's "
            "end plus its think time"
        ),
    ] = False,
    strict: Annotated[
        bool,
        typer.Option(
            help="a job that cannot run (unknown run time, no processors, larger than the "
            "machine) is an error (file:line) instead of being dropped and counted"
        ),
    ] = False,
    out: Annotated[Path, typer.Option(help="output directory")] = Path("out/simulate"),
    validate: Annotated[bool, typer.Option(help="check the invariants on each run")] = True,
) -> None:
    """Simulate an SWF trace under one or more schedulers; write jobs.parquet, jobs.csv,
    result.swf and metrics.json (one sub-directory per scheduler when several). With --pool
    (or --heatmap) jobs share nodes and run at the heatmap's co-location speed."""
    from ..coloc.schedulers import CoScheduler
    from ..schedulers import get_scheduler
    from .coloc import load_pool_option

    # fail fast on a bad name or option; co-schedulers that spread get a notice if they can't
    spreads = [
        isinstance(s, CoScheduler) and s.placement == "spread"
        for s in map(get_scheduler, scheduler)
    ]
    the_pool = load_pool_option(pool, heatmap, compact_times)
    workload, cluster = load_trace(trace, nodes, cores_per_node, sockets, strict)
    console.print(f"{workload.summary()} on {cluster}")
    results = {}
    notices = []
    for spec, spreading in zip(scheduler, spreads, strict=True):
        r = _progress_run(workload, cluster, spec, kill_at_walltime, the_pool, dependencies)
        if spreading:
            notices.append(coloc_notice(r.scheduler, r.metrics, cluster))
        if validate:
            r._violations = r.validate()
        target = out if len(scheduler) == 1 else out / r.scheduler.replace(":", "_")
        r.save(target)
        results[r.scheduler] = r
    console.print(metrics_table(results, f"{trace.name}"))
    for line in filter(None, notices):
        console.print(line, highlight=False, soft_wrap=True)
    console.print(f"outputs in {out}/")
    bad = [name for name, r in results.items() if getattr(r, "_violations", None)]
    for name in bad:
        for v in results[name]._violations[:5]:
            err_console.print(f"[red]{name}: {v}[/red]")
    if bad:
        raise typer.Exit(1)


def schedulers() -> None:
    """List the schedulers known by name (built-ins and installed plug-ins)."""
    import inspect

    from ..schedulers import available

    table = Table(title="schedulers")
    table.add_column("name")
    table.add_column("options")
    table.add_column("description")
    for name, cls in sorted(available().items()):
        sig = inspect.signature(cls.__init__)
        opts = ", ".join(
            f"{p.name}={p.default!r}" for p in sig.parameters.values() if p.name != "self"
        )
        doc = (inspect.getdoc(cls) or "").split("\n")[0]
        table.add_row(name, opts, doc)
    console.print(table)


def demo(
    out: Annotated[Path, typer.Option(help="output directory")] = Path("out/demo"),
) -> None:
    """The main job: the bundled KTH-SP2 trace under FCFS, EASY and conservative."""
    trace = resources.files("coschedlab") / "data" / DEMO_TRACE
    with resources.as_file(trace) as path:
        simulate(path, list(DEMO_SCHEDULERS), out=out)
