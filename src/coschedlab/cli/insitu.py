"""``coschedlab insitu ...``: in situ ensemble planning and SimGrid simulation (issue 4)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError, check_counts
from ..insitu import simulate as simulation  # (these declare the options they take)
from ..insitu import spec
from ..insitu.plan import make_plan
from ..insitu.search import plan_file
from .options import ForceOpt, JobsOpt, JsonOpt, executor_of, passes

app = typer.Typer(help="Plan and simulate in situ workflow ensembles.", no_args_is_help=True)

EnsembleArg = Annotated[Path, typer.Argument(help="ensemble YAML file")]
#: ``insitu plan``'s and ``insitu simulate``'s planning options (of make_plan, declared there)
planning = passes(
    make_plan,
    scenario="ideal | in-transit | increasing-25/50/75 | "
    "decreasing-25/50/75 (default: the file's mapping, else ideal)",
    node_alloc="node-level heuristic: co | ev (default co)",
    core_alloc="core-level heuristic: co | ev (default co)",
    bandwidth_model="model makespan with B | B1 | B2 | B3 (Table II)",
    alloc_bandwidth="bandwidth the allocation is computed with: B3 (the authors' Fig. 4 runs) | "
    "B (their Table II runs) | B1 | B2",
    rounding="authors (their scheduler.py) | min-time (n_NC by the smaller model time)",
)


def _print_plan(plan: Any) -> None:
    from ..insitu.model import step_times
    from .progress import text_console
    from .sweeps import print_table

    con = text_console()
    d = plan.to_dict()
    con.print(
        f"[bold]scenario[/] {d['scenario']}   nodes {d['node_alloc']}   "
        f"cores {d['core_alloc']}   bandwidth {d['bandwidth_model']} = "
        f"{d['bandwidth']:.4g} GB/s"
    )
    if plan.moved:
        con.print(f"Theorem 2 normal form moved to the pool: {', '.join(plan.moved)}")
    pool = plan.mapping.pool()
    con.print(
        f"co-scheduled with their simulation: {len(plan.mapping.placement) - len(pool)}; "
        f"in the analysis-only pool: {len(pool)}"
    )
    times = step_times(plan.ensemble, plan.mapping, plan.allocation, plan.bandwidth)
    rows = [
        [b.name if i == 0 else "", str(b.nodes) if i == 0 else "", c, str(k), f"{times[c]:.3f}"]
        for b in plan.allocation.blocks
        for i, (c, k) in enumerate(b.cores)
    ]
    cols = ["block", "nodes", "component", "cores/node", "t(x) per step (s)"]
    print_table("allocation", cols, rows, left={"component"}, width=None)
    con.print(
        f"[bold]model makespan[/] {plan.model_makespan:.1f} s   "
        + "  ".join(f"{k}: {v:.1f}" for k, v in d["model_makespans"].items())
    )


@app.command()
@passes(
    spec.generate_ensemble,
    simulations="number of simulations S",
    data="data per step V (GB)",
    nodes="number of nodes N",
    steps="time steps of each simulation",
    seed="seed of the random ensemble",
    network="paper | per-node",
)
def generate(
    analyses: Annotated[int, typer.Option("--analyses", help="analyses per simulation")],
    out: Annotated[Path | None, typer.Option("--out", help="write here instead of stdout")] = None,
    force: ForceOpt = False,
    **ensemble: Any,
) -> None:
    """Write the paper's random ensemble (analysis work uniform in [0.5, 1.5] x 5000 GFLOP)."""
    if ensemble["network"] not in spec.NETWORKS:
        raise InputError(f"network must be one of {spec.NETWORKS}", where="--network")
    text = spec.dump_ensemble(spec.generate_ensemble(analyses_per_sim=analyses, **ensemble))
    if out is None:
        sys.stdout.write(text)
        return
    from ..outputs import atomic_file

    with atomic_file(out, force) as tmp:
        tmp.write_text(text)
    from .batch import say

    say(
        "wrote an ensemble of {simulations} simulations x {analyses} analyses on {nodes} nodes "
        "({steps} steps, seed {seed}) to {out}".format(analyses=analyses, out=out, **ensemble),
        err=True,
    )


@app.command()
@planning
def plan(ensemble: EnsembleArg, as_json: JsonOpt = False, **options: Any) -> None:
    """Print the mapping, the allocation table and the model makespan."""
    from .sweeps import read_as

    p = read_as("insitu plan", plan_file, ensemble, **options)
    if as_json:
        print(json.dumps(p.to_dict()))
    else:
        _print_plan(p)


@app.command()
@passes(
    simulation.simulate,
    network="paper | per-node (default: the file's)",
    engine="activities (LV08, one actor per node piece, the authors' job manager) | "
    "ptask (L07, pieces in lockstep; the bundled reproduction's engine)",
    io="store-and-forward (a file is read from disk, then sent, as the authors' "
    "storage service does) | fluid (disk and network at once)",
)
@planning
def simulate(
    ensemble: EnsembleArg,
    search: Annotated[
        bool,
        typer.Option("--search", help="try every scenario x heuristic pair, recommend the best"),
    ] = False,
    jobs: JobsOpt = None,
    gantt: Annotated[Path | None, typer.Option("--gantt", help="write a stage Gantt PNG")] = None,
    gantt_steps: Annotated[
        int | None, typer.Option("--gantt-steps", help="plot only the first K steps")
    ] = None,
    timeline: Annotated[
        Path | None,
        typer.Option(
            "--timeline",
            help="write the per-node stage timeline CSV (the authors' job and stage names)",
        ),
    ] = None,
    as_json: JsonOpt = False,
    force: ForceOpt = False,
    **options: Any,
) -> None:
    """Run SimGrid on the plan: simulated makespan, idle times, stage timelines."""
    executor_of(jobs, None)  # --jobs (of --search) checked as every sweep's
    network, engine, io = (options.pop(k) for k in ("network", "engine", "io"))  # not the plan's
    from .sweeps import read_as

    p = read_as("insitu simulate", plan_file, ensemble, **options)
    net = network or p.ensemble.platform.network
    simulation.check_options(net, engine, io)
    ens = p.ensemble
    where = str(ensemble)
    simulation.check_size(ens.n_steps, len(ens.simulations) + len(ens.analyses), where=where)
    if search:
        _search(
            ensemble,
            tuple(options[k] for k in ("bandwidth_model", "alloc_bandwidth", "rounding")),
            (net, engine, io),
            jobs or os.cpu_count() or 1,
            as_json,
        )
        return
    from ..outputs import atomic_file, check_target

    for option, path in (("--timeline", timeline), ("--gantt", gantt)):
        if path is not None:
            check_target(path, force, "file", option)  # before the simulation, not after
    check_counts(gantt_steps=gantt_steps)
    res = simulation.simulate(p, net, engine, io=io)
    if timeline is not None:
        with atomic_file(timeline, force, "--timeline") as tmp, open(tmp, "w") as f:
            f.write(",".join(simulation.TIMELINE) + "\n")
            for r in res.timeline(p):
                r["start"], r["end"] = f"{r['start']:.6f}", f"{r['end']:.6f}"
                f.write(",".join(str(v) for v in r.values()) + "\n")
    if gantt is not None:
        from ..insitu.plots import plot_gantt

        with atomic_file(gantt, force, "--gantt") as tmp:
            plot_gantt(res, tmp, gantt_steps)
    out = p.to_dict()
    out.update(res.summary())
    if as_json:
        print(json.dumps(out))
        return
    _print_plan(p)
    from .progress import text_console

    text_console().print(
        f"[bold]simulated makespan[/] {res.makespan:.1f} s ({net} network, {engine} engine; "
        f"simulated / model = {res.makespan / p.model_makespan:.3f})\n"
        f"idle simulation time {out['idle_simulation_time']:.1f} s, idle analysis time "
        f"{out['idle_analysis_time']:.1f} s (summed over components); "
        f"SimGrid wall time {res.wall_time:.2f} s"
    )


def _search(
    path: Path, planning: tuple[str, str, str], sim: tuple[str, str, str], jobs: int, as_json: bool
) -> None:
    from ..insitu.mapping import SCENARIOS
    from ..insitu.reproduce import HEURISTIC_PAIRS
    from ..insitu.search import search
    from ..tables import number
    from .progress import progress_bar, text_console
    from .sweeps import print_table

    n = len(SCENARIOS) * len(HEURISTIC_PAIRS)
    with progress_bar(text_console(stderr=True), "search", n, unit="plans") as bar:
        rows, _ = search(path, planning, sim, jobs, on_done=lambda _: bar(bar.done + 1))
    best = rows[0]
    if as_json:
        keys = ("scenario", "node_alloc", "core_alloc", "model_makespan", "simulated_makespan")
        print(json.dumps({"best": best, "candidates": [{k: r[k] for k in keys} for r in rows]}))
        return
    print_table(f"search ({sim[0]} network)",
                ["scenario", "nodes", "cores", "model (s)", "simulated (s)"],
                [[r["scenario"], r["node_alloc"], r["core_alloc"], number(r["model_makespan"], 1),
                  number(r["simulated_makespan"], 1)] for r in rows])  # fmt: skip
    text_console().print(
        f"[bold]best[/]: --scenario {best['scenario']} --node-alloc {best['node_alloc']} "
        f"--core-alloc {best['core_alloc']} -> simulated makespan "
        f"{best['simulated_makespan']:.1f} s"
    )
