"""The golden cases of ELiSE's own runs (``cases/``), read and run the way both
``test_elise_golden.py`` and ``agreement.py`` need them."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import yaml

from coschedlab.coloc.elise.experiment import expand, read_experiment
from coschedlab.coloc.elise.run import RunTask, simulate_run
from coschedlab.sweeps.store import RunKey

HERE = Path(__file__).resolve().parent
CASES: dict = yaml.safe_load((HERE / "cases.yaml").read_text())


def load(name: str):
    """Case ``name``: its folder, experiment, inputs as ELiSE draws them and runs."""
    case = HERE / "cases" / name
    cwd = os.getcwd()
    os.chdir(case)  # ELiSE reads the file's paths from where it runs
    try:
        exp = read_experiment("experiment.yaml")
        made, runs = expand(exp, int(CASES[name]["seed"]))
    finally:
        os.chdir(cwd)
    return case, exp, made, runs


def run_tasks(name: str, compat: frozenset[str]) -> Iterator[tuple]:
    """Every run of case ``name`` as ``coschedlab elise run`` runs it with ``compat``: (case
    folder, run, ELiSE scheduler, its RunTask)."""
    case, exp, made, runs = load(name)
    scheds = {s.index: s for s in exp.schedulers}
    for run in runs:
        inp, jobs, _ = made[run.inp]
        s = scheds[run.k]
        table = tuple((j.id, j.app, j.procs, j.run, j.submit, j.wall) for j in jobs)
        task = RunTask(RunKey(f"input_{run.inp}", str(run.k), 0), run, table, inp.pool,
                       inp.heatmap, inp.cluster, s.spec(compat), s.base, compat)  # fmt: skip
        yield case, run, s, task


def runs_against_elise(name: str, compat: frozenset[str]) -> Iterator[tuple]:
    """Every run of case ``name`` simulated with ``compat``: (run, ELiSE scheduler, our jobs
    table indexed by job id, ELiSE's rows, ELiSE's job ids, start and finish times)."""
    for case, run, s, task in run_tasks(name, compat):
        ours = simulate_run(task)[0].jobs.set_index("job_id")
        with open(case / f"elise-{run.inp}-{run.k}.csv") as fd:
            theirs = list(csv.DictReader(fd))
        ids = [int(r["job"]) for r in theirs]
        start = np.array([float(r["start"]) for r in theirs])
        finish = np.array([float(r["finish"]) for r in theirs])
        yield run, s, ours, theirs, ids, start, finish
