"""``coschedlab study ...``: simulation-collection studies (SimX): run a study simulated or
for real, report it, reproduce the seed's Table 5, and compute optimal batches."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError, check_counts
from .options import ForceOpt

app = typer.Typer(
    help="Studies of many runs of a moldable simulation code (SimX): sampling, reuse, "
    "batching and preemption, simulated or for real.",
    no_args_is_help=True,
)


@app.command()
def batch(
    scaling: Annotated[
        str,
        typer.Option(
            "--scaling",
            help="seconds per timestep by processors: 4:1.95,8:1.14,... or a CSV file",
        ),
    ],
    jobs: Annotated[int, typer.Option("--jobs", "-n", help="simulations in the study")],
    procs: Annotated[int, typer.Option("--procs", "-p", help="processors of the study")],
) -> None:
    """The optimal batches of JOBS equal simulations on PROCS processors (SimX 4.2): sizes,
    processors per simulation and the time per timestep, against one batch and one by one."""
    from ..studies import batch_time, optimal_batches
    from ..studies.batching import load_scaling
    from .progress import text_console
    from .sweeps import print_table

    if jobs < 1:  # (a study of no simulation printed an empty table, exit 0)
        raise InputError(f"--jobs: must be at least 1, got {jobs}")
    table = load_scaling(scaling)
    b = optimal_batches(jobs, table, procs)
    rows, first = [], 1  # equal batches in a row share one line: "2-7,500"
    pairs = list(zip(b.sizes, b.groups, strict=True))
    for i, (k, p) in enumerate(pairs, 1):
        if i < len(pairs) and pairs[i] == (k, p):
            continue
        label = f"{first:,}" if first == i else f"{first:,}-{i:,}"
        rows.append([label, str(k), str(p), f"{_per_step(batch_time(k, table, procs))}n s"])
        first = i + 1
    print_table(f"{jobs:,} runs on {procs:,} processors; n = timesteps per run",
                ["batch", "simulations", "procs each", "time"], rows)  # fmt: skip
    con = text_console(width=80)
    one = batch_time(1, table, procs) * jobs
    together = batch_time(jobs, table, procs) if jobs else 0.0
    con.print(f"optimal: {_per_step(b.time)}n s in {len(b.sizes):,} batches")
    con.print(f"one at a time on {table.group(1, procs)} processors: {_per_step(one)}n s")
    at_once = f"{_per_step(together)}n s" if together != float("inf") else "impossible (too many)"
    con.print(f"all at once: {at_once}")


def _per_step(seconds: float) -> str:
    """Seconds per timestep, 4 significant digits, never in scientific notation."""
    return f"{seconds:,.0f}" if abs(seconds) >= 1000 else f"{seconds:.4g}"


def _table(rows: list[dict], title: str) -> None:
    from ..studies.result import metrics_cells
    from .sweeps import print_table

    print_table(title, *metrics_cells(rows))


@app.command()
def run(
    spec: Annotated[str, typer.Argument(help="study spec (YAML), or 'helium' (bundled)")],
    out: Annotated[Path, typer.Option("--out", help="output directory")],
    config: Annotated[
        list[str] | None,
        typer.Option(
            "--config", "-c", help="O, A, B, C, D or E; repeat, or 'all' (default: the spec's)"
        ),
    ] = None,
    executor: Annotated[
        str, typer.Option("--executor", help="simulated (the work model) or real (command)")
    ] = "simulated",
    procs: Annotated[
        int | None, typer.Option("--procs", "-p", help="processors (default: the spec's)")
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Run a study: the runs of each configuration, the scheduling graph, the Pareto front.
    One configuration writes OUT/{runs.csv, segments.csv, metrics.json, schedule.png,
    pareto.png}; several write one such directory each under OUT. With --executor real,
    OUT also holds the runs' store, checkpoints and logs, and running the same command
    again resumes the study: no finished run is lost or redone."""
    from ..outputs import atomic_dir, check_target
    from ..studies.manager import CONFIGS, config_of
    from ..studies.run import check_executor
    from ..studies.sweep import load_study
    from .progress import text_console
    from .sweeps import read_as

    s = read_as("study run", load_study, spec)
    executor = check_executor(s, executor)
    check_counts(procs=procs)
    if procs is not None:
        s = s.with_procs(procs)
    names = config or [s.config.name]
    if any(c.lower() == "all" for c in names):
        names = list(CONFIGS)
    configs = list(dict.fromkeys(map(config_of, names)))  # each once, in the order given
    from .progress import progress_bar

    err = text_console(stderr=True)
    results = []
    with progress_bar(err, s.name, None, "runs") as bar:
        if executor == "simulated":
            check_target(out, force)
            with atomic_dir(out, force) as tmp:
                for cfg in configs:
                    target = tmp if len(configs) == 1 else tmp / cfg.name
                    results.append(_run_one(s, cfg, executor, target, bar))
        else:  # real runs take long: OUT is the study's working directory, resumed when rerun
            _real_target(out, s, configs, force)
            for cfg in configs:
                target = out if len(configs) == 1 else out / cfg.name
                results.append(_run_one(s, cfg, executor, target, bar))
    _table([r.metrics for r in results],
           f"{s.name}: {len(s.space.designs())} designs, {s.processors} processors, "
           f"{executor}")  # fmt: skip
    print(f"written to {out}")


def _real_target(out: Path, s: Any, configs: list, force: bool) -> None:
    """Make ``out`` the working directory of a real study, or resume the same study there;
    another study's directory is refused (replaced only with --force, and only if ours)."""
    import json
    import shutil

    from ..outputs import check_target, mark, record

    identity = {"spec": Path(s.source).read_text(), "procs": s.processors,
                "configs": [c.name for c in configs]}  # fmt: skip
    stamp = out / "study.json"
    if stamp.is_file():
        try:
            same = json.loads(stamp.read_text()) == identity
        except ValueError:
            same = False
        if same:
            return  # resume
    if out.exists() and not (out.is_dir() and not any(out.iterdir())):
        check_target(out, force)  # refuses without --force, and never a user's files
        shutil.rmtree(out)
    mark(out)
    record([stamp])
    stamp.write_text(json.dumps(identity))


def _run_one(s: Any, cfg: Any, executor: str, target: Path, bar: Any) -> Any:
    """Run configuration ``cfg`` into ``target``, shown on progress ``bar`` (a new phase: the
    full grid's run count, unknown for the active sampler, which stops when it has its front;
    the runs issued so far are not the total)."""
    from ..outputs import record
    from ..studies.plots import pareto_figure, scheduling_graph
    from ..studies.result import OUTPUTS
    from ..studies.run import run_study

    total = len(s.space.designs()) if cfg.sampler == "grid" else None
    bar.phase(f"configuration {cfg.name}", total)
    r = run_study(s, cfg, executor, target, on_finish=lambda done, _issued: bar(done))
    target.mkdir(parents=True, exist_ok=True)
    if executor == "real":  # written in place (the study's folder): listed for --force first
        record(target / n for n in (*OUTPUTS, "schedule.png", "pareto.png"))
    r.write(target)
    scheduling_graph(r, target / "schedule.png")
    pareto_figure(r, s.space, target / "pareto.png", s.objectives)
    return r


@app.command()
def report(
    folder: Annotated[Path, typer.Argument(help="a study result (coschedlab study run --out)")],
    spec: Annotated[
        str | None, typer.Option("--spec", help="the study's spec, for the Pareto figure")
    ] = None,
) -> None:
    """Print a study result's table; redraw its scheduling graph and Pareto figure (the
    design space the result stored, or that of --spec)."""
    from ..studies.plots import pareto_figure, scheduling_graph
    from ..studies.result import load_result
    from ..studies.sweep import load_study

    folders = [folder] if (folder / "metrics.json").is_file() else sorted(
        p for p in folder.iterdir() if (p / "metrics.json").is_file()
    ) if folder.is_dir() else []  # fmt: skip
    if not folders:
        raise InputError("not a study result (no metrics.json)", str(folder))
    results = [load_result(f) for f in folders]
    s = load_study(spec) if spec is not None else None
    if s is not None:  # the spec must be this result's study (else: a wrong Pareto figure)
        for f, r in zip(folders, results, strict=True):
            if not all(_fits(s.space, rec) for rec in r.records):
                raise InputError(
                    f"the result's designs do not fit the design space of --spec {spec}", str(f)
                )
    for f, r in zip(folders, results, strict=True):
        scheduling_graph(r, f / "schedule.png")
        space, objectives = (s.space, s.objectives) if s is not None else _stored_space(r)
        if space is not None:
            pareto_figure(r, space, f / "pareto.png", objectives)
    _table([r.metrics for r in results], f"{folder}")


def _stored_space(r: Any) -> tuple[Any, tuple[str, ...]]:
    """The design space and objective names a result stored (``study run`` writes them), or
    (None, ()) when they are missing or do not fit its runs."""
    from ..studies.sampling import DesignSpace

    design, objectives = r.info.get("design"), r.info.get("objectives") or ()
    try:
        space = DesignSpace.of({str(k): list(v) for k, v in design.items()})
    except (AttributeError, TypeError, ValueError):
        return None, ()
    if not all(_fits(space, rec) for rec in r.records):
        return None, ()
    return space, tuple(str(o) for o in objectives) or ("objective 1", "objective 2")


def _fits(space: Any, rec: dict) -> bool:
    """Whether a run record is a design of ``space`` (its indices and parameter values)."""
    import math

    d = rec.get("design")
    if not isinstance(d, list) or len(d) != len(space.names):
        return False
    for axis, (name, i) in enumerate(zip(space.names, d, strict=True)):
        vals = space.values[axis]
        if not isinstance(i, int) or not 0 <= i < len(vals) or name not in rec:
            return False
        try:
            if not math.isclose(float(rec[name]), float(vals[i]), rel_tol=1e-9, abs_tol=1e-12):
                return False
        except (TypeError, ValueError):
            return False
    return True
