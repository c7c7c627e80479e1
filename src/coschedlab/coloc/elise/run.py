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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...engine.result import Result
from ...errors import InputError
from ...jobs import Workload
from ...outputs import (
    MARKER,
    atomic_file,
    check_target,
    first_foreign,
    is_empty,
    mark,
    record,
    slug,
)
from ...platform import Cluster
from ...sweeps.capability import Table, read_table
from ...sweeps.store import RunDirs, RunKey, completed, run_dir
from ...sweeps.sweep import Sweep, check_kind
from ...sweeps.tasks import Task, check_valid
from .experiment import Experiment, Run, describe, dump, expand, parse_compat, read_experiment
from .generators import workload_csv

__all__ = [
    "OWN_DIR", "SWEEP", "EliseRun", "RunTask", "load_experiment", "report", "shown",
    "simulate_run", "summary", "workload_of",
]  # fmt: skip

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


@dataclass(frozen=True)
class EliseRun:
    """An ELiSE experiment file as ``coschedlab elise run`` runs it: the file, the first
    reading of ELiSE's clock (``seed``), the bugs reproduced (``compat``), and its inputs'
    jobs as ELiSE's generators draw them (``made``, :func:`~.experiment.expand`) with the
    runs."""

    exp: Experiment
    seed: int
    compat: frozenset[str]
    made: list
    runs: list[Run]

    @property
    def name(self) -> str:
        return self.exp.name

    @property
    def title(self) -> str:
        jobs = sum(len(j) for _, j, _ in self.made)
        return (f"{self.exp.name}: {len(self.made)} input(s), {jobs:,} jobs x "
                f"{len(self.exp.schedulers)} scheduler(s)")  # fmt: skip

    @property
    def output(self) -> Path:
        """The default output folder: where ELiSE writes (the actions' ``dir``), else
        out/elise/NAME."""
        folder = self.exp.folder
        return Path(folder) if folder is not None else Path("out") / "elise" / slug(self.name)

    @property
    def notes(self) -> list[str]:
        return self.exp.notes

    def configs(self) -> dict[str, Run]:
        """Its runs by key (the dashboard counts them)."""
        return {str(key): run for run, _, _, key in _runs(self)}

    @property
    def described(self) -> dict[str, Any]:
        """What its stored runs depend on (``OUT/coschedlab/spec.json``)."""
        return describe(self.exp, self.seed, self.compat)


def load_experiment(path: Path, *, seed: int = 0, compat: str | None = None) -> EliseRun:
    """The ELiSE experiment file ``path`` read, checked and expanded with ``--seed`` and
    ``--compat`` (:func:`~.experiment.parse_compat`)."""
    from ...errors import check_seed

    check_seed(seed)
    flags = parse_compat(compat)
    exp = read_experiment(path)
    return EliseRun(exp, seed, flags, *expand(exp, seed))


def _clear(out: Path, er: EliseRun) -> None:
    """``--fresh``: an earlier output of coschedlab's in ``out`` removed (never ELiSE's)."""
    _check_folder(out, er, fresh=True)


def _record(out: Path, er: EliseRun) -> None:
    """What the runs are made from: ``OUT/coschedlab/spec.json`` and each input's jobs
    (``input_I/workload.csv``, ELiSE's workload CSV), written before the runs."""
    runs_dir = mark(mark(out) / OWN_DIR)
    record([runs_dir / "spec.json"])  # (the manifest: --fresh replaces only what it lists)
    (runs_dir / "spec.json").write_text(dump(er.described))
    for i, (_, elise_jobs, _) in enumerate(er.made):
        target = mark(runs_dir / f"input_{i}") / "workload.csv"
        if not target.exists():
            with atomic_file(target, force=True, probe=False) as tmp:
                tmp.write_text(workload_csv(elise_jobs))


def _runs(er: EliseRun) -> Iterator[tuple[Run, Any, str, RunKey]]:
    """Every run of ``er`` in ELiSE's order (input by input): the run, its ELiSE scheduler,
    the coschedlab scheduler spec running it and its key in the store."""
    scheds = {s.index: s for s in er.exp.schedulers}
    for run in er.runs:
        s = scheds[run.k]
        spec = s.spec(er.compat)
        yield run, s, spec, RunKey(f"input_{run.inp}", f"s{run.k}-{slug(spec)}", 0)


def _tasks(er: EliseRun) -> list[Task]:
    """One task per run (:func:`_runs`), its input's jobs shared by its runs."""
    tables = [tuple((j.id, j.app, j.procs, j.run, j.submit, j.wall) for j in jobs)
              for _, jobs, _ in er.made]  # fmt: skip
    return [
        Task(key, simulate_run, (RunTask(key, run, tables[run.inp], inp.pool, inp.heatmap,
                                         inp.cluster, spec, s.base, er.compat),))
        for run, s, spec, key in _runs(er)
        for inp in (er.made[run.inp][0],)
    ]  # fmt: skip


def _check_folder(out: Path, er: EliseRun, fresh: bool = False) -> None:
    """``out`` can receive the experiment ``er``: new or empty, or its earlier (maybe
    interrupted) output; ``fresh`` removes an earlier output of coschedlab's."""
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} exists and is not a directory; choose a directory")
    check_kind(out, SWEEP.what)  # another kind's sweep: said as every sweep command says it
    if not out.exists():
        check_target(out)  # a new folder: it can be made
    if not out.is_dir() or is_empty(out):
        return
    if (out / MARKER).is_file():
        foreign = first_foreign(out)
    else:  # not made by coschedlab: any file in it is someone else's
        foreign = next((p for p in sorted(out.rglob("*")) if p.is_file()), out)
    if foreign is not None:
        raise InputError(
            f"--out {out} holds files coschedlab did not write ({foreign}); ELiSE's own "
            "results are never written over: give --out a new folder"
        )
    if fresh:
        shutil.rmtree(out)
        return
    try:
        old = json.loads((out / OWN_DIR / "spec.json").read_text())
    except (OSError, ValueError):
        raise InputError(
            f"--out {out} holds another result; give --fresh to replace it, or another --out"
        ) from None
    described = er.described
    if old != json.loads(dump(described)):
        diffs = [k for k in described if old.get(k) != described[k]]
        verb = "differs" if len(diffs) == 1 else "differ"
        raise InputError(
            f"--out {out} holds the runs of another experiment or settings "
            f"({', '.join(diffs)} {verb}); give --fresh to replace them, or another --out"
        )


#: an ELiSE experiment as a sweep of the one driver: its runs stored as the comparison's,
#: under ``OUT/coschedlab`` beside ELiSE's own files
SWEEP = Sweep("elise", simulate_run, layout=RunDirs(Result.load), runs=OWN_DIR, quiet=False,
              check=_check_folder, record=_record, plan=_tasks, clear=_clear,
              legacy_key="digest")  # fmt: skip


def report(er: EliseRun, out: Path, _rows: list) -> list[Path]:
    """ELiSE's files (as its actions ask, and time_reports.csv) and coschedlab's per-run
    summary table (``OUT/coschedlab/summary.csv``) once every run is stored; the files.
    Nothing is written while a run is missing (a failed run: one line)."""
    from .experiment import ACTIONS
    from .outputs import time_report, workload_table, write_plots

    exp, made, runs = er.exp, er.made, list(_runs(er))
    runs_dir = out / OWN_DIR
    done = completed(runs_dir)
    missing = len(runs) - len(done.intersection(key for *_, key in runs))
    if missing:
        raise InputError(
            f"{missing} run(s) failed (see {out}/{OWN_DIR}/*/*/rep0/error.txt); "
            "fix the cause and run the same command again"
        )
    rows, times = [], []
    for run, sched, spec, key in runs:
        result = SWEEP.layout.read(runs_dir, key)
        jobs = result.jobs
        inp, elise_jobs, _ = made[run.inp]
        names = {j.id: j.app for j in elise_jobs}
        apps = [names[j] for j in jobs["job_id"].tolist()]
        stem = f"sim_{run.sim}_input_{run.inp}_scheduler_{run.k}"
        m = result.metrics
        info = json.loads((run_dir(runs_dir, key) / "run.json").read_text())
        seconds = float(info.get("seconds", 0.0))
        times.append((run.sim, run.inp, run.k, sched.base, seconds, float(m["makespan"])))
        rows.append(
            {
                "sim": run.sim,
                "input": run.inp,
                "scheduler_index": run.k,
                "scheduler": sched.base,
                "spec": spec,
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
            write_plots(out, stem, jobs, inp.cluster, sched.base, plots)
    with atomic_file(out / "time_reports.csv", force=True, probe=False) as tmp:
        tmp.write_text(time_report(sorted(times)))
    with atomic_file(runs_dir / "summary.csv", force=True, probe=False) as tmp:
        pd.DataFrame(rows).to_csv(tmp, index=False, float_format="%.10g")
    return [out / "time_reports.csv", runs_dir / "summary.csv"]


def _short(name: str) -> str:
    """ELiSE's scheduler names without their common ending: "Filler (co)", "EASY"."""
    if name.endswith(" Co-Scheduler"):
        return name.removesuffix(" Co-Scheduler") + " (co)"
    return name.removesuffix(" Scheduler")


def summary(out: Path) -> Table | None:
    """The runs of the experiment in ``out`` (its summary.csv; None before there is one)."""
    df = read_table(Path(out) / OWN_DIR / "summary.csv")
    if df is None:
        return None
    rows = [[str(r.sim), str(r.input), _short(r.scheduler), f"{r.makespan:,.1f}",
             f"{r.mean_wait:,.1f}", f"{r.mean_bounded_slowdown:,.2f}", str(r.killed)]
            for r in df.itertuples()]  # fmt: skip
    columns = ["sim", "in", "scheduler", "makespan s", "mean wait s", "mean bsld", "killed"]
    return "runs", columns, rows


def shown(er: EliseRun, out: Path, width: int) -> Any:
    """What ``elise run`` prints: the runs' table, and which of ELiSE's bugs it reproduced."""
    from rich.console import Group
    from rich.markup import escape

    from ...tables import Col, fit_table

    table = summary(out)
    if table is None:
        return None
    cols = [Col("sim"), Col("in"), Col("scheduler", "left", wrap=True)]
    cols += [Col(c) for c in table[1][3:]]
    how = "ELiSE's bugs fixed (--compat all reproduces them)"
    if er.compat:
        how = "ELiSE's bugs reproduced: " + ", ".join(sorted(er.compat))
    said = escape(f"{how}; ELiSE's files and coschedlab's results in {out}/")
    return Group(fit_table(er.name, cols, table[2], width, keep=3), said)
