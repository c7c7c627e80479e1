"""The Edison-like load: is it the paper's? (issue 28; figures, not timed asserts).

For a few seeds: CyberShake workflows at a small share of the core-hours on Edison (5,576 x 24
cores; ``--machine 348x24`` a sixteenth, with the regular jobs scaled), 1-day warm-up and
5-day window, chained mode under ``slurm`` with the paper's settings. Prints the realised job
pressure, the utilization in allocated whole nodes over the window (the paper: over 90%),
the regular jobs' median wait (h) by 6-h bin of submit time over the window, and whether it
is stationary: the last day's mean within 30% (or 0.5 h) of the first day's, the last bin
(censored at the window's end) left out. The job pressure was fitted on seeds 0-2; seeds
3-5 are held out.

Run: .venv/bin/python benchmarks/bench_workflow_load.py [--seeds 0 1 2 3 4 5] [--share 0.05]
     [--pressure P] [--machine edison|NODESxCORES]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _bench_common import machine_line

from coschedlab.workflows import builtin, generate, simulate_mode
from coschedlab.workflows.workload import EDISON, PRESSURE, machine_of, wait_profile


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4, 5])
    ap.add_argument("--share", type=float, default=0.05)
    ap.add_argument("--workflow", default="cybershake")
    ap.add_argument("--pressure", type=float, default=PRESSURE)
    ap.add_argument("--machine", default="edison")
    args = ap.parse_args()
    cluster = machine_of(args.machine)
    print(machine_line())
    print(
        f"{args.workflow} {100 * args.share:g}%, {cluster.nodes} x {cluster.cores_per_node} "
        f"cores, pressure {args.pressure:g}, chained under slurm\n"
        "wait = median of the regular jobs submitted in each 6 h of the window (h)"
    )
    for seed in args.seeds:
        t0 = time.perf_counter()
        ww = generate(
            builtin(args.workflow),
            cluster=cluster,
            scale_jobs=cluster != EDISON,
            share=args.share,
            seed=seed,
            pressure=args.pressure,
        )
        run = simulate_mode(ww, "chained")
        took = time.perf_counter() - t0
        w = ww.work()
        realised = (w["regular"] + w["workflows"]) / (
            cluster.total_cores * (ww.window[1] - ww.meta["start"])
        )
        _, med = wait_profile(ww, run.result.jobs)
        hours = med[:-1] / 3600
        first, last = np.nanmean(hours[:4]), np.nanmean(hours[-4:])
        flat = abs(last - first) <= max(0.3 * first, 0.5)
        fit = "fit" if seed in (0, 1, 2) else "held out"
        print(
            f"seed {seed} ({fit}): pressure {realised:.3f}, utilization "
            f"{run.summary()['utilization']:.3f}, wait day 1 {first:.2f} h -> day 5 {last:.2f} h "
            f"({'stationary' if flat else 'NOT stationary'}), {took:.0f} s"
        )
        print("  by 6 h:", " ".join("  - " if np.isnan(x) else f"{x:4.1f}" for x in med / 3600))


if __name__ == "__main__":
    main()
