"""Workflow-aware scheduling: one Edison-scale WoAS experiment (prints figures; not a test).

The paper's experiment unit: Edison (5,576 nodes x 24 cores), job pressure 0.96 (the fitted
default, docs/workflows.md), a 1-day warm-up, a 5-day window and the 6-h drain after it (6.25
simulated days after the pre-fill), 10% of the core-hours as CyberShake workflows, under the
``slurm`` scheduler (multifactor priority, FIFO pass at every event, backfill every 30 s over
50 jobs). For each mode: jobs, scheduling passes, wall time of the event loop and of
the whole run (expansion, simulation, result table, metrics), simulated days per hour, peak
memory. Baselines measured in the same run: the same chained jobs under the core's EASY
(``easy``) and the seed's published simulator speed (20x real time = 480 simulated hours per
hour).

Run: .venv/bin/python benchmarks/bench_workflows.py [--share 0.1] [--workflow cybershake]
"""

from __future__ import annotations

import argparse
import resource
import time

from _bench_common import machine_line

from coschedlab.workflows import builtin, generate, simulate_mode
from coschedlab.workflows.simulate import DRAIN

SEED_SPEED_H_PER_H = 480.0  # "up to 20x faster than real time" (Section 4.2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workflow", default="cybershake")
    ap.add_argument("--share", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(machine_line())
    t0 = time.perf_counter()
    ww = generate(builtin(args.workflow), share=args.share, seed=args.seed)
    t_gen = time.perf_counter() - t0
    sim_days = (ww.window[1] + DRAIN - ww.meta["start"]) / 86400
    print(
        f"workload: {len(ww.regular)} regular jobs ({int(ww.filler.sum())} pre-fill), "
        f"{ww.n_workflows} {args.workflow} workflows ({100 * args.share:g}% of core-hours), "
        f"{sim_days:.0f} simulated days + pre-fill; generated in {t_gen:.2f} s"
    )
    print(
        f"{'mode':<14} {'jobs':>7} {'started':>7} {'passes':>7} {'bf passes':>9} "
        f"{'loop s':>7} {'total s':>7} {'days/h':>7} {'x seed':>6} {'RSS MB':>7}"
    )
    rows = []
    for mode, sched in (("chained", "easy"), ("chained", "slurm"), ("pilot", "slurm"),
                        ("woas", "slurm")):  # fmt: skip
        t0 = time.perf_counter()
        run = simulate_mode(ww, mode, sched)
        run.summary()
        total = time.perf_counter() - t0
        loop = run.events["wall_time_s"]
        days_h = sim_days / (total / 3600)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        label = f"{mode}/{sched}"
        rows.append((label, total))
        print(
            f"{label:<14} {run.events['jobs']:>7} {run.events['jobs_started']:>7} "
            f"{run.events['passes']:>7} {run.events.get('backfill_passes', 0):>9} "
            f"{loop:>7.1f} {total:>7.1f} {days_h:>7.0f} {days_h * 24 / SEED_SPEED_H_PER_H:>6.0f} "
            f"{rss:>7.0f}"
        )
    easy = rows[0][1]
    for label, total in rows[1:]:
        print(f"{label}: {total / easy:.2f}x the time of the same chained jobs under EASY")
    print(
        "days/h = simulated days per wall-clock hour of the whole run; x seed = that over the "
        f"seed's {SEED_SPEED_H_PER_H:.0f} simulated hours per hour (20x real time)"
    )


if __name__ == "__main__":
    main()
