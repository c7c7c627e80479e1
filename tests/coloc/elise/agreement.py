"""How far each of ELiSE's bugs moves the schedules: coschedlab against ELiSE's golden runs
with ``--compat`` all, all but one, and none (the table of docs/coloc.md, "ELiSE").

    .venv/bin/python tests/coloc/elise/agreement.py

For every ELiSE scheduler, over every run of every case: how many jobs start and end within
1e-6 s of ELiSE's times, and the run whose mean wait is furthest from ELiSE's (relative).
"""

from __future__ import annotations

import csv
import os
from collections import defaultdict
from pathlib import Path

import numpy as np
import yaml

from coschedlab.coloc.elise.experiment import COMPAT, expand, read_experiment
from coschedlab.coloc.elise.run import RunTask, simulate_run
from coschedlab.experiments.store import RunKey

HERE = Path(__file__).resolve().parent


def settings() -> dict[str, frozenset[str]]:
    """``--compat`` settings: all, all but one (``clock`` implies ``late-kill``), none."""
    every = frozenset(COMPAT)
    return {
        "all": every,
        "all but clock": every - {"clock"},
        "all but clock, late-kill": every - {"clock", "late-kill"},
        "all but conservative": every - {"conservative"},
        "all but alone": every - {"alone"},
        "none (default)": frozenset(),
    }


def main() -> None:
    cases = yaml.safe_load((HERE / "cases.yaml").read_text())
    table: dict[tuple[str, str], list] = defaultdict(lambda: [0, 0, 0.0, ""])
    for name, case in cases.items():
        cwd = os.getcwd()
        os.chdir(HERE / "cases" / name)
        try:
            exp = read_experiment("experiment.yaml")
            made, runs = expand(exp, int(case["seed"]))
        finally:
            os.chdir(cwd)
        scheds = {s.index: s for s in exp.schedulers}
        for run in runs:
            inp, jobs, _ = made[run.inp]
            s = scheds[run.k]
            with open(HERE / "cases" / name / f"elise-{run.inp}-{run.k}.csv") as fd:
                theirs = list(csv.DictReader(fd))
            ids = [int(r["job"]) for r in theirs]
            t_start = np.array([float(r["start"]) for r in theirs])
            t_end = np.array([float(r["finish"]) for r in theirs])
            t_wait = float(np.sum(t_start - np.array([float(r["submit"]) for r in theirs])))
            table_rows = tuple((j.id, j.app, j.procs, j.run, j.submit, j.wall) for j in jobs)
            for label, compat in settings().items():
                task = RunTask(
                    RunKey("x", "y", 0),
                    run,
                    table_rows,
                    inp.pool,
                    inp.heatmap,
                    inp.cluster,
                    s.spec(compat),
                    s.base,
                    compat,
                )
                ours = simulate_run(task)[0].jobs.set_index("job_id").loc[ids]
                same = (np.abs(ours["start"].to_numpy() - t_start) <= 1e-6) & (
                    np.abs(ours["end"].to_numpy() - t_end) <= 1e-6
                )
                row = table[(s.base, label)]
                row[0] += int(same.sum())
                row[1] += len(ids)
                rel = (float(ours["wait"].sum()) - t_wait) / t_wait * 100 if t_wait else 0.0
                if abs(rel) > abs(row[2]):
                    row[2], row[3] = rel, f"{name}/{run.inp}"
    print("| ELiSE scheduler | --compat | jobs as ELiSE's | furthest mean wait (run) |")
    print("|---|---|---|---|")
    for (base, label), (same, n, rel, where) in sorted(table.items()):
        far = f"{rel:+.1f}% ({where})" if abs(rel) >= 0.05 else "0.0%"
        print(f"| {base} | {label} | {same:,} / {n:,} | {far} |")


if __name__ == "__main__":
    main()
