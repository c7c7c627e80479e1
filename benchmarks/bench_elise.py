"""coschedlab against ELiSE itself, on ELiSE's own golden workloads, alternately in one run.

Usage::

    .venv/bin/python benchmarks/bench_elise.py --elise /tmp/elise --elise-python \
        /tmp/elise-venv/bin/python [--case NAME ...] [--repeat 2]

ELiSE (nikosT/elise at 70efef0, with the reader fix of tests/coloc/elise/regenerate.py) runs
in its own virtual environment, never in the project's: see regenerate.py for how to build
it. For every case of ``tests/coloc/elise/cases`` (default: all) and every repeat, the script

1. runs ELiSE on the case's experiment file with ``regenerate.py --timing-only`` (a subprocess
   with ELiSE's Python): the CPU seconds of each run's simulation loop (``sim_step`` until the
   queues are empty; the experiment's set-up, generation and output not counted);
2. runs the same runs in coschedlab, ELiSE's bugs reproduced, twice: on coschedlab's kernel
   (late kill, ELiSE's spread-alone rule: the same schedules but for the few jobs where ELiSE's
   clock splits an instant) and on ELiSE's clock (``--compat all``: the same schedules, job by
   job); the CPU seconds of ``Simulation.run`` (the event loop with the scheduler's set-up;
   the workload and result tables not counted);

alternately, and prints per scheduler the best CPU seconds of each side, the ratio, and the
geometric mean of the ratios. The figures go in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import yaml
from _bench_common import machine_line

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "coloc" / "elise"


def elise_times(elise: Path, python: Path, cases: list[str]) -> dict:
    """CPU seconds of every run of ``cases`` in ELiSE: {case: {"I-K": {...}}}."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "timing.json"
        cmd = [
            str(python),
            str(GOLDEN / "regenerate.py"),
            "--elise",
            str(elise),
            "--timing-only",
            str(out),
        ] + [a for c in cases for a in ("--only", c)]
        subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
        return json.loads(out.read_text())


def coschedlab_times(case: str, seed: int) -> dict:
    """CPU seconds of every run of ``case`` in coschedlab: ``cpu_s`` on the kernel (ELiSE's
    late kill and spread-alone rule; the same schedules but where ELiSE's clock splits an
    instant), ``clock_s`` on ELiSE's clock (``--compat all``: the same schedules, job by job)."""
    from coschedlab.coloc.elise.clock import EliseClockSimulation
    from coschedlab.coloc.elise.experiment import COMPAT, expand, read_experiment
    from coschedlab.coloc.elise.run import RunTask, workload_of
    from coschedlab.coloc.speed import ColocationSpeed
    from coschedlab.engine.kernel import Simulation
    from coschedlab.schedulers.registry import get_scheduler
    from coschedlab.sweeps.store import RunKey

    cwd = os.getcwd()
    os.chdir(GOLDEN / "cases" / case)
    try:
        exp = read_experiment("experiment.yaml")
        made, runs = expand(exp, seed)
    finally:
        os.chdir(cwd)
    compat = frozenset(COMPAT)
    scheds = {s.index: s for s in exp.schedulers}
    out = {}
    for run in runs:
        inp, jobs, pool = made[run.inp]
        s = scheds[run.k]
        table = tuple((j.id, j.app, j.procs, j.run, j.submit, j.wall) for j in jobs)
        task = RunTask(RunKey("x", "y", 0), run, table, inp.pool, None, inp.cluster,
                       s.spec(compat), s.base, compat)  # fmt: skip
        workload = workload_of(task, pool.names)
        times = {}
        for key, cls, kill in (("cpu_s", Simulation, "next-event"),
                               ("clock_s", EliseClockSimulation, None)):  # fmt: skip
            model = ColocationSpeed.from_pool(pool, "elise")
            kwargs = {"kill_at_walltime": kill} if kill else {}
            sim = cls(workload, inp.cluster, get_scheduler(task.spec), speed_model=model,
                      shared_nodes=True, **kwargs)  # fmt: skip
            t0 = time.process_time()
            sim.run()
            times[key] = time.process_time() - t0
        out[f"{run.inp}-{run.k}"] = {"scheduler": s.base, "jobs": len(jobs), **times}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elise", type=Path, required=True, help="ELiSE checkout")
    parser.add_argument("--elise-python", type=Path, required=True, help="ELiSE venv's python")
    parser.add_argument("--case", action="append", help="case name (default: every case)")
    parser.add_argument("--repeat", type=int, default=2, help="alternations (best is kept)")
    args = parser.parse_args()
    cases_doc = yaml.safe_load((GOLDEN / "cases.yaml").read_text())
    cases = args.case or list(cases_doc)
    print(machine_line())
    best: dict[tuple[str, str], dict[str, float]] = defaultdict(
        lambda: {"elise": math.inf, "ours": math.inf, "clock": math.inf}
    )
    names: dict[tuple[str, str], str] = {}
    jobs: dict[tuple[str, str], int] = {}
    for rep in range(args.repeat):
        for case in cases:
            theirs = elise_times(args.elise, args.elise_python, [case])[case]
            ours = coschedlab_times(case, int(cases_doc[case]["seed"]))
            for key, t in theirs.items():
                k = (case, key)
                best[k]["elise"] = min(best[k]["elise"], t["cpu_s"])
                best[k]["ours"] = min(best[k]["ours"], ours[key]["cpu_s"])
                best[k]["clock"] = min(best[k]["clock"], ours[key]["clock_s"])
                names[k] = t["scheduler"]
                jobs[k] = t["jobs"]
            print(f"repeat {rep + 1}: {case} done", file=sys.stderr, flush=True)
    ratios: dict[str, list[tuple[float, float]]] = defaultdict(list)
    print(f"\n{'case':22s} {'run':5s} {'scheduler':31s} {'jobs':>5s} {'ELiSE s':>8s} "
          f"{'kernel s':>8s} {'x':>5s} {'clock s':>8s} {'x':>5s}")  # fmt: skip
    for k in sorted(best):
        e, o, c = best[k]["elise"], best[k]["ours"], best[k]["clock"]
        ratios[names[k]].append((e / o, e / c))
        print(f"{k[0]:22s} {k[1]:5s} {names[k]:31s} {jobs[k]:5d} {e:8.3f} {o:8.4f} "
              f"{e / o:5.0f} {c:8.4f} {e / c:5.0f}")  # fmt: skip

    def gmean(xs: list[float]) -> float:
        return math.exp(sum(map(math.log, xs)) / len(xs))

    print("\ngeometric mean of ELiSE CPU / coschedlab CPU, per ELiSE scheduler "
          "(kernel; ELiSE's clock):")  # fmt: skip
    every: list[tuple[float, float]] = []
    for name, rs in sorted(ratios.items()):
        every += rs
        print(f"  {name:31s} {gmean([a for a, _ in rs]):6.0f}x  {gmean([b for _, b in rs]):6.0f}x"
              f"  ({len(rs)} runs)")  # fmt: skip
    print(f"  {'all runs':31s} {gmean([a for a, _ in every]):6.0f}x  "
          f"{gmean([b for _, b in every]):6.0f}x  ({len(every)} runs)")  # fmt: skip


if __name__ == "__main__":
    main()
