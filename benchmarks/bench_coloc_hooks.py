"""Co-schedulers with hooks of their own: the compiled pass calling the hook against the Python
class scan it replaced (``tests/coloc/reference_coloc.py``'s ``python_scan``), in one run.

For each subclass (a ``node_order`` hook: ``examples/best_fit_coloc.py``; a ``node_key`` hook on
ranks; a ``deploy_order`` hook; best-pair on a speed model other than the compiled one) it
prints the CPU time of the event loop (this thread's, best of ``--repeat``, the two runs
alternating) and exits 1 if the two schedules differ.

    python benchmarks/bench_coloc_hooks.py [--jobs 3000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from _bench_common import machine_line
from bench_coloc import POOL

import coschedlab
from coschedlab.coloc import load_pool
from coschedlab.coloc.schedulers import BestPair, EasyColoc, Ranks
from coschedlab.coloc.speed import ColocationSpeed
from coschedlab.engine.kernel import Simulation
from coschedlab.engine.result import Result
from coschedlab.generate import generate_workload

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "coloc"), str(ROOT / "examples")]
from best_fit_coloc import BestFitColoc  # noqa: E402
from reference_coloc import python_scan  # noqa: E402

COLS = ["start", "end", "alloc", "reservation"]


class FewestJobs(Ranks):
    """node_key: the nodes with the fewest jobs, then the job's lowest pair speedup there."""

    name = "fewest-jobs"

    def node_key(self, view, j, jobs):
        return (-len(jobs), Ranks.node_key(self, view, j, jobs))


class ShortestFirst(EasyColoc):
    """deploy_order: shortest requested time first."""

    name = "shortest-first"

    def deploy_order(self, view):
        return sorted(view.queue, key=lambda j: view.req[j])


class MeanSpeed(ColocationSpeed):
    """best-pair's node order on the mean pair speedup beside a node's jobs (no pair table)."""

    def predicted(self, j, others):
        if not others:
            return math.inf
        return sum(ColocationSpeed.predicted(self, j, (k,)) for k in others) / len(others)


CASES = [(BestFitColoc, ColocationSpeed), (FewestJobs, ColocationSpeed),
         (ShortestFirst, ColocationSpeed), (BestPair, MeanSpeed)]  # fmt: skip


def run(w, cluster, pool, cls, model):
    sim = Simulation(w, cluster, cls(), kill_at_walltime=True,
                     speed_model=model.from_pool(pool), shared_nodes=True)  # fmt: skip
    t0 = time.thread_time()
    sim.run()
    return time.thread_time() - t0, Result.from_simulation(sim).jobs[COLS]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--arrival", default="poisson:6")
    args = ap.parse_args()
    pool = load_pool(POOL)
    cluster = coschedlab.Cluster(256, 2, 10)
    w = generate_workload(pool.app_frame(), args.jobs, arrival=args.arrival, seed=0)
    print(machine_line())
    print(f"{len(w)} jobs, {args.arrival} arrivals, {cluster}, best of {args.repeat}\n")
    print(f"{'scheduler':<20} {'class scan s':>13} {'compiled s':>11} {'ratio':>7}  same")
    bad = 0
    for cls, model in CASES:
        best = {"scan": math.inf, "compiled": math.inf}
        jobs = {}
        for _ in range(args.repeat):
            for kind, c in (("scan", python_scan(cls)), ("compiled", cls)):
                t, jobs[kind] = run(w, cluster, pool, c, model)
                best[kind] = min(best[kind], t)
        same = jobs["scan"].equals(jobs["compiled"])
        bad += not same
        label = cls.__name__ + ("+" + model.__name__ if model is not ColocationSpeed else "")
        print(f"{label:<20} {best['scan']:>13.3f} {best['compiled']:>11.3f} "
              f"{best['scan'] / best['compiled']:>6.2f}x  {'yes' if same else 'NO'}")  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
