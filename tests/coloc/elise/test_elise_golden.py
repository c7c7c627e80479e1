"""coschedlab against ELiSE itself, job by job, on ELiSE's own runs (golden files).

Every case folder under ``cases/`` holds an unchanged ELiSE experiment file and what ELiSE
(nikosT/elise, HEAD 70efef0) made of it, written by ``regenerate.py``: the workload each
input's generator drew (its clock seeded as ``cases.yaml`` says) and, for every scheduler of
the file, every job's submit, start and finish times and hosts. The tests run the same file
through :mod:`coschedlab.coloc.elise` with ``--compat all`` (ELiSE's bugs reproduced) and
require:

* the generated workloads to be ELiSE's, byte for byte;
* every job of every run to start and end within 1e-6 s of ELiSE's time, on the same hosts
  with the same cores per host, killed exactly where ELiSE aborts it.

Any change that moves one co-schedule fails here. ``test_elise_csv_layout`` holds ELiSE's own
``get_workload`` CSV files of the small case to the writer of :mod:`.outputs`.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from _golden import CASES, load, runs_against_elise

from coschedlab.coloc.elise.experiment import COMPAT
from coschedlab.coloc.elise.generators import workload_csv
from coschedlab.intervals import parse_intervals

TOL = 1e-6


@pytest.mark.parametrize("name", list(CASES))
def test_workloads_are_elises(name: str) -> None:
    case, _exp, made, _ = load(name)
    for i, (_inp, jobs, _pool) in enumerate(made):
        assert workload_csv(jobs) == (case / f"workload-{i}.csv").read_text(), f"input {i}"


@pytest.mark.parametrize("name", list(CASES))
def test_every_job_as_elise(name: str) -> None:
    compat = frozenset(COMPAT)
    for run, s, ours, theirs, ids, start, end in runs_against_elise(name, compat):
        assert len(theirs) == len(ours)
        what = f"{name}: input {run.inp}, {s.base} ({s.spec(compat)})"
        d_start = np.abs(ours.loc[ids, "start"].to_numpy() - start)
        d_end = np.abs(ours.loc[ids, "end"].to_numpy() - end)
        bad = np.flatnonzero((d_start > TOL) | (d_end > TOL))
        assert not len(bad), (
            f"{what}: {len(bad)} of {len(ids)} jobs differ from ELiSE's, first job {ids[bad[0]]}: "
            f"start {ours.loc[ids[bad[0]], 'start']} vs {start[bad[0]]}, end "
            f"{ours.loc[ids[bad[0]], 'end']} vs {end[bad[0]]}"
        )
        for r in theirs:
            jid = int(r["job"])
            mine = ours.loc[jid]
            hosts = parse_intervals(r["hosts"])
            assert parse_intervals(mine["alloc"]) == hosts, f"{what}: hosts of job {jid}"
            assert int(mine["node_cores"]) == int(r["cores_per_host"]), f"{what}: job {jid}"
            assert bool(mine["killed"]) == (r["aborted"] == "1"), f"{what}: kill of job {jid}"


def test_elise_csv_layout(tmp_path: Path) -> None:
    """ELiSE's own get_workload files of the small case: same columns, same cells (times
    within 1e-6 s), the same cores listed for every job."""
    from coschedlab.coloc.elise.run import SWEEP, EliseRun, report, summary

    case, exp, made, runs = load("smoke")
    out = tmp_path / "out"
    er = EliseRun(exp, int(CASES["smoke"]["seed"]), frozenset(COMPAT), made, runs)
    done, _ = SWEEP.run(er, out, jobs=1)
    report(er, out, [])
    table = summary(out)
    assert done.ok and table is not None and len(table[2]) == len(runs)
    golden = sorted((case / "workloads").glob("*.csv"))
    assert golden and sorted(p.name for p in (out / "workloads").glob("*.csv")) == [
        p.name for p in golden
    ]
    for g in golden:
        mine = list(csv.reader((out / "workloads" / g.name).open()))
        theirs = list(csv.reader(g.open()))
        assert mine[0] == theirs[0] and len(mine) == len(theirs), g.name
        for a, b in zip(mine[1:], theirs[1:], strict=True):
            assert len(a) == len(b), g.name
            for col, (x, y) in enumerate(zip(a, b, strict=True)):
                if col in (1, 2, 3, 8):
                    assert abs(float(x) - float(y)) <= TOL, (g.name, a[0], col, x, y)
                else:
                    assert x == y, (g.name, a[0], col)
    report = (out / "time_reports.csv").read_text().splitlines()
    assert report[0].startswith("Simulation ID,Input ID,Scheduler ID,Scheduler Name")
    assert len(report) == 1 + len(runs)
