"""Co-location speed: ELiSE's "10,000 jobs on 25,600 cores" case, and the cost of co-location.

Prints, for 10,000 jobs drawn from the ARIS NPB pool on 1,280 ARIS-like nodes (2 sockets x 10
cores = 25,600 cores):
* easy-coloc's days of simulated makespan per wall-clock hour and jobs/s, beside ELiSE's
  published 0.63 days/hour (EASY) for that case, and the ratio;
* the time of easy-coloc, filler and best-pair relative to plain easy (no co-location) on the
  same generated workload (target: at most 2x), and of easy run in the shared-node engine with
  the speed model on (``easy+pool``: compact placements, so the cost of the accounting alone);
  the ``x easy+pool`` column is the cost of spreading and of the neighbour-dependent speeds.

    python benchmarks/bench_coloc.py [--jobs 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import coschedlab
from coschedlab.coloc import load_pool
from coschedlab.generate import generate_workload

POOL = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "coloc" / "lm-aris.compute-NAS.json"
)
ELISE_DAYS_PER_HOUR = 0.63


def best_of(repeat, *args, **kwargs):
    runs = [coschedlab.simulate(*args, **kwargs) for _ in range(repeat)]
    return min(runs, key=lambda r: r.wall_time)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--arrival", default="poisson:20")
    args = ap.parse_args()
    pool = load_pool(POOL)
    cluster = coschedlab.Cluster(1280, 2, 10)
    w = generate_workload(pool.app_frame(), args.jobs, arrival=args.arrival, seed=0)
    print(f"{len(w)} jobs ({args.arrival} arrivals) from {pool.summary()}")
    print(f"cluster: {cluster}\n")
    plain = best_of(args.repeat, w, cluster, "easy")
    print(f"{'scheduler':<12} {'sim s':>8} {'jobs/s':>9} {'days/hour':>10} {'x ELiSE':>9} "
          f"{'x easy time':>12} {'x easy+pool':>12} {'makespan gain %':>16}")  # fmt: skip
    rows = [("easy", plain)]
    shared = best_of(args.repeat, w, cluster, "easy", pool=pool, kill_at_walltime=True)
    rows.append(("easy+pool", shared))  # easy in the shared-node engine (compact, speed model)
    for s in ("easy-coloc", "filler", "best-pair"):
        rows.append((s, best_of(args.repeat, w, cluster, s, pool=pool, kill_at_walltime=True)))
    base_span = plain.metrics["makespan"]
    for name, r in rows:
        m = r.metrics
        assert r.validate() == [], name
        gain = 100 * (base_span - m["makespan"]) / base_span
        print(f"{name:<12} {r.wall_time:8.3f} {m['jobs_per_s']:9.0f} {m['days_per_hour']:10.1f} "
              f"{m['days_per_hour'] / ELISE_DAYS_PER_HOUR:9.0f} "
              f"{r.wall_time / plain.wall_time:12.2f} {r.wall_time / shared.wall_time:12.2f} "
              f"{gain:16.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
