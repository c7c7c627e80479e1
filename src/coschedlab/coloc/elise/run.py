"""Run an ELiSE experiment file: every input x scheduler, on the one sweep runner, resumable.

Output folder ``OUT`` (by default the folder the file's actions name, where ELiSE writes)::

    OUT/workloads/sim_S_input_I_scheduler_K.csv     ELiSE's files, as its actions ask
    OUT/gantts/ waiting_queue/ jobs_throughput/ unused_cores/   (PNGs, idem)
    OUT/time_reports.csv                            ELiSE's --export_reports table
    OUT/coschedlab/spec.json                        what the runs were made from
    OUT/coschedlab/input_I/workload.csv             input I's jobs (ELiSE's workload CSV)
    OUT/coschedlab/input_I/sK-<spec>/rep0/          coschedlab's result of run (I, K)
    OUT/coschedlab/summary.csv                      one row per run: makespan, waits, ...

Runs are stored one by one as they finish (an interrupted experiment resumes); ELiSE's files
are written when every run is stored. A folder holding files coschedlab did not write (ELiSE's
own results) is never written into.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...engine.result import Result
from ...errors import InputError
from ...jobs import Workload
from ...outputs import MARKER, atomic_file, check_target, first_foreign, is_empty, mark, slug
from ...platform import Cluster
from ...sweeps.store import RunDirs, RunKey, completed, run_dir
from ...sweeps.sweep import Sweep
from ...sweeps.tasks import Outcome, Summary, Task, check_valid
from .experiment import Experiment, Run, describe, dump, expand
from .generators import workload_csv

__all__ = [
    "OWN_DIR",
    "RunTask",
    "check_output",
    "output_folder",
    "run_experiment",
    "simulate_run",
    "workload_of",
]

#: where coschedlab's own results go inside the output folder
OWN_DIR = "coschedlab"


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs for one run (picklable)."""

    key: RunKey
    run: Run
    jobs: tuple[tuple, ...]  # (id, app, procs, run, submit, wall) per job
    pool: str
    heatmap: str | None
    cluster: Cluster
    spec: str
    base: str  # ELiSE's scheduler name, or the spec
    compat: frozenset[str]


def workload_of(task: RunTask, names: list[str]) -> Workload:
    """The jobs of ``task`` as a workload whose ``app`` indexes ``names`` (the heatmap's)."""
    index = {n: i for i, n in enumerate(names)}
    ids, apps, procs, run, submit, wall = zip(*task.jobs, strict=True)
    w = Workload(
        columns={
            "id": np.asarray(ids, dtype=np.int64),
            "submit": np.asarray(submit, dtype=np.float64),
            "run": np.asarray(run, dtype=np.float64),
            "requested_time": np.asarray(wall, dtype=np.float64),
            "procs": np.asarray(procs, dtype=np.int64),
            "app": np.asarray([index.get(a, -1) for a in apps], dtype=np.int64),
        }
    )
    w.header["Applications"] = " ".join(f"{i}={n}" for i, n in enumerate(names))
    return w


def simulate_run(task: RunTask) -> tuple[Any, dict[str, Any]]:
    """Simulate and validate one run of the experiment (a worker's task)."""
    from ...simulation import run_simulation
    from ..heatmap import Heatmap
    from ..pool import cached_pool
    from ..speed import ColocationSpeed

    pool = cached_pool(task.pool)
    heatmap = pool.heatmap if task.heatmap is None else Heatmap.from_json(task.heatmap)
    alone = {a.name: a.spread_speedup for a in pool.apps if a.spread_speedup is not None}
    model = ColocationSpeed(heatmap, alone, "elise" if "alone" in task.compat else "measured")
    workload = workload_of(task, list(heatmap.names))
    if "clock" in task.compat:
        from ...engine.result import Result
        from ...schedulers.registry import get_scheduler
        from .clock import EliseClockSimulation

        sim = EliseClockSimulation(
            workload, task.cluster, get_scheduler(task.spec), speed_model=model, shared_nodes=True
        )
        result = Result.from_simulation(sim.run())
    else:
        kill = "next-event" if "late-kill" in task.compat else True
        result = run_simulation(
            workload,
            task.cluster,
            task.spec,
            speed_model=model,
            shared_nodes=True,
            kill_at_walltime=kill,
        )
    check_valid(result)
    info = {
        "key": str(task.key),
        "sim": task.run.sim,
        "input": task.run.inp,
        "scheduler_index": task.run.k,
        "scheduler": task.base,
        "scheduler_spec": task.spec,
        "compat": sorted(task.compat),
    }
    return result, info


def _checked_here(out: Path, exp: Any) -> None:
    """:func:`run_experiment` checks the folder and writes its spec.json itself."""


#: an ELiSE experiment as a sweep of the one driver, its runs stored as the comparison's
SWEEP = Sweep("elise", simulate_run, layout=RunDirs(Result.load), runs="", quiet=False,
              check=_checked_here, record=_checked_here)  # fmt: skip


def output_folder(exp: Experiment, out: Path | None) -> Path:
    """``--out``, else where ELiSE writes (the actions' ``dir``), else out/elise/NAME."""
    if out is not None:
        return Path(out)
    if exp.folder is not None:
        return Path(exp.folder)
    return Path("out") / "elise" / slug(exp.name)


def check_output(
    exp: Experiment, out: Path, seed: int, compat: frozenset[str], fresh: bool
) -> None:
    """Before any work: ``out`` can receive ``exp``'s runs (see :func:`_check_folder`)."""
    _check_folder(Path(out), describe(exp, seed, compat), fresh, clear=False)


def _check_folder(out: Path, described: dict[str, Any], fresh: bool, clear: bool = True) -> bool:
    """``out`` can receive this experiment: new or empty, or this experiment's earlier (maybe
    interrupted) output; ``fresh`` clears an earlier output of coschedlab's (when ``clear``).
    Whether runs are stored there already."""
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} exists and is not a directory; choose a directory")
    if not out.exists():
        check_target(out)  # a new folder: it can be made
    if not out.is_dir() or is_empty(out):
        return False
    if (out / MARKER).is_file():
        foreign = first_foreign(out)
    else:  # not made by coschedlab: any file in it is someone else's
        foreign = next((p for p in sorted(out.rglob("*")) if p.is_file()), out)
    if foreign is not None:
        raise InputError(
            f"--out {out} holds files coschedlab did not write ({foreign}); ELiSE's own "
            "results are never written over: give --out a new folder"
        )
    spec = out / OWN_DIR / "spec.json"
    if fresh:
        if clear:
            shutil.rmtree(out)
        return False
    try:
        old = json.loads(spec.read_text())
    except (OSError, ValueError):
        raise InputError(
            f"--out {out} holds another result; give --fresh to replace it, or another --out"
        ) from None
    if old != json.loads(dump(described)):
        diffs = [k for k in described if old.get(k) != described[k]]
        verb = "differs" if len(diffs) == 1 else "differ"
        raise InputError(
            f"--out {out} holds the runs of another experiment or settings "
            f"({', '.join(diffs)} {verb}); give --fresh to replace them, or another --out"
        )
    return True


def run_experiment(
    exp: Experiment,
    out: Path,
    *,
    seed: int = 0,
    compat: frozenset[str] = frozenset(),
    jobs: int | None = None,
    fresh: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_done: Callable[[Outcome], None] | None = None,
    executor: Any = None,
    expanded: tuple[list, list[Run]] | None = None,
) -> tuple[Summary, pd.DataFrame | None]:
    """Run (or resume) every run of ``exp`` into ``out``; when all are stored, write ELiSE's
    files. Returns the runner's summary and the per-run table (None until every run is
    stored)."""
    out = Path(out)
    described = describe(exp, seed, compat)
    made, runs = expanded if expanded is not None else expand(exp, seed)
    _check_folder(out, described, fresh)
    runs_dir = mark(mark(out) / OWN_DIR)
    (runs_dir / "spec.json").write_text(dump(described))
    scheds = {s.index: s for s in exp.schedulers}
    tasks = []
    for i, (inp, elise_jobs, _) in enumerate(made):
        folder = mark(runs_dir / f"input_{i}")
        target = folder / "workload.csv"
        if not target.exists():
            with atomic_file(target, force=True, probe=False) as tmp:
                tmp.write_text(workload_csv(elise_jobs))
        table = tuple((j.id, j.app, j.procs, j.run, j.submit, j.wall) for j in elise_jobs)
        for run in (r for r in runs if r.inp == i):
            s = scheds[run.k]
            spec = s.spec(compat)
            key = RunKey(f"input_{i}", f"s{run.k}-{slug(spec)}", 0)
            task = RunTask(
                key, run, table, inp.pool, inp.heatmap, inp.cluster, spec, s.base, compat
            )
            tasks.append(Task(key, simulate_run, (task,)))
    summary, _ = SWEEP.run(exp, runs_dir, tasks=tasks, jobs=jobs, on_start=on_start,
                           on_done=on_done, executor=executor)  # fmt: skip
    if not summary.ok:
        return summary, None
    table = write_elise_files(exp, out, made, tasks)
    return summary, table


def write_elise_files(exp: Experiment, out: Path, made: list, tasks: list[Task]) -> pd.DataFrame:
    """ELiSE's files for the stored runs, and coschedlab's per-run summary table."""
    from .experiment import ACTIONS
    from .outputs import time_report, workload_table, write_plots

    runs_dir = out / OWN_DIR
    done = completed(runs_dir)
    rows, times = [], []
    for t in tasks:
        task: RunTask = t.args[0]
        run = task.run
        if task.key not in done:
            continue
        result = SWEEP.layout.read(runs_dir, task.key)
        jobs = result.jobs
        inp, elise_jobs, _ = made[run.inp]
        names = {j.id: j.app for j in elise_jobs}
        apps = [names[j] for j in jobs["job_id"].tolist()]
        stem = f"sim_{run.sim}_input_{run.inp}_scheduler_{run.k}"
        m = result.metrics
        info = json.loads((run_dir(runs_dir, task.key) / "run.json").read_text())
        seconds = float(info.get("seconds", 0.0))
        times.append((run.sim, run.inp, run.k, task.base, seconds, float(m["makespan"])))
        rows.append(
            {
                "sim": run.sim,
                "input": run.inp,
                "scheduler_index": run.k,
                "scheduler": task.base,
                "spec": task.spec,
                "jobs": len(jobs),
                "makespan": m["makespan"],
                "mean_wait": float(jobs["wait"].mean()),
                "max_wait": float(jobs["wait"].max()),
                "mean_bounded_slowdown": float(jobs["bounded_slowdown"].mean()),
                "killed": int(jobs["killed"].sum()),
                "seconds": seconds,
            }
        )
        plots = []
        for action, (inputs, scheds) in exp.actions.items():
            if (inputs != "all" and run.inp not in inputs) or (
                scheds != "all" and run.k not in scheds
            ):
                continue
            if action == "get_workload":
                target = out / "workloads" / f"{stem}.csv"
                target.parent.mkdir(exist_ok=True)
                with atomic_file(target, force=True, probe=False) as tmp:
                    tmp.write_text(workload_table(jobs, apps, inp.cluster))
            else:
                plots.append(ACTIONS[action])
        if plots:
            write_plots(out, stem, jobs, inp.cluster, task.base, plots)
    with atomic_file(out / "time_reports.csv", force=True, probe=False) as tmp:
        tmp.write_text(time_report(sorted(times)))
    table = pd.DataFrame(rows)
    with atomic_file(runs_dir / "summary.csv", force=True, probe=False) as tmp:
        table.to_csv(tmp, index=False, float_format="%.10g")
    return table
