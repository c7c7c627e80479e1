"""Co-location speed: ELiSE's "10,000 jobs on 25,600 cores" case, and the cost of co-location.

Prints, for 10,000 jobs drawn from the ARIS NPB pool on 1,280 ARIS-like nodes (2 sockets x 10
cores = 25,600 cores):
* easy-coloc's days of simulated makespan per wall-clock hour and jobs/s, beside ELiSE's
  published 0.63 days/hour (EASY) for that case, and the ratio;
* the time of easy-coloc, filler and best-pair relative to plain easy (no co-location) on the
  same generated workload (target: at most 2x), and of easy run in the shared-node engine with
  the speed model on (``easy+pool``: compact placements, so the cost of the accounting alone);
  the ``x easy+pool`` column is the cost of spreading and of the neighbour-dependent speeds.

With ``--cpu``: the CPU time of each run's event loop instead (the thread's CPU time of
``Simulation.run``, best of ``--repeat``), which a machine shared with other work disturbs
far less than the wall-clock time; the same ratios.

    python benchmarks/bench_coloc.py [--jobs 10000] [--repeat 3] [--cpu]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _bench_common import machine_line

import coschedlab
from coschedlab.coloc import load_pool
from coschedlab.coloc.speed import ColocationSpeed
from coschedlab.engine.kernel import Simulation
from coschedlab.generate import generate_workload
from coschedlab.schedulers import get_scheduler

#: the ARIS NPB pool: shared/ beside the repository (a worktree elsewhere: /work/shared)
POOL = next(
    (
        p
        for d in (Path(__file__).resolve().parents[2], Path("/work"))
        if (p := d / "shared" / "data" / "coloc" / "lm-aris.compute-NAS.json").exists()
    ),
    Path(__file__).resolve().parents[2] / "shared" / "data" / "coloc" / "lm-aris.compute-NAS.json",
)
ELISE_DAYS_PER_HOUR = 0.63


def best_of(repeat, *args, **kwargs):
    runs = [coschedlab.simulate(*args, **kwargs) for _ in range(repeat)]
    return min(runs, key=lambda r: r.wall_time)


def run_case(w, cluster, pool, repeat: int) -> list[tuple[str, object]]:
    """easy, easy in the shared-node engine, and the co-schedulers on one workload."""
    rows = [("easy", best_of(repeat, w, cluster, "easy"))]
    # easy in the shared-node engine with the speed model on (compact placements)
    rows.append(
        ("easy+pool", best_of(repeat, w, cluster, "easy", pool=pool, kill_at_walltime=True))
    )
    for s in ("easy-coloc", "filler", "best-pair"):
        rows.append((s, best_of(repeat, w, cluster, s, pool=pool, kill_at_walltime=True)))
    return rows


def cpu_of(repeat: int, w, cluster, name: str, pool) -> float:
    """Best CPU time (this thread's) of ``repeat`` runs of ``name``'s event loop on ``w``
    (with ``pool``: shared nodes, the co-location model and kill at walltime)."""
    best = float("inf")
    for _ in range(repeat):
        if pool is None:
            sim = Simulation(w, cluster, get_scheduler(name))
        else:
            model = ColocationSpeed.from_pool(pool)
            sim = Simulation(w, cluster, get_scheduler(name), kill_at_walltime=True,
                             speed_model=model, shared_nodes=True)  # fmt: skip
        t0 = time.thread_time()
        sim.run()
        best = min(best, time.thread_time() - t0)
    return best


def cpu_table(arrivals: list[str], n: int, cluster, pool, repeat: int) -> None:
    """The ``--cpu`` table: CPU seconds of each run and its ratio to plain easy."""
    names = ("easy", "easy+pool", "easy-coloc", "filler", "best-pair")
    print(f"CPU s of the event loop, best of {repeat}, and its ratio to plain easy")
    print(f"{'arrivals':<12}" + "".join(f"{s:>13}" for s in names))
    for arrival in arrivals:
        w = generate_workload(pool.app_frame(), n, arrival=arrival, seed=0)
        base = cpu_of(repeat, w, cluster, "easy", None)
        cells = [f"{base:.3f}  1.00x"]
        for s in names[1:]:
            t = cpu_of(repeat, w, cluster, s.removesuffix("+pool"), pool)
            cells.append(f"{t:.3f} {t / base:5.2f}x")
        print(f"{arrival:<12}" + "".join(f"{c:>13}" for c in cells))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--arrival",
        default="poisson:20,poisson:6,poisson:2",
        help="comma-separated inter-arrivals: light load to a saturated machine",
    )
    ap.add_argument("--quick", action="store_true", help="one repetition")
    ap.add_argument("--cpu", action="store_true", help="CPU time of the event loop (module doc)")
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat
    pool = load_pool(POOL)
    cluster = coschedlab.Cluster(1280, 2, 10)
    print(machine_line())
    print(f"pool: {pool.summary()}\ncluster: {cluster}, best of {repeat}\n")
    if args.cpu:
        cpu_table(args.arrival.split(","), args.jobs, cluster, pool, repeat)
        return
    verdicts = []
    for arrival in args.arrival.split(","):
        w = generate_workload(pool.app_frame(), args.jobs, arrival=arrival, seed=0)
        rows = run_case(w, cluster, pool, repeat)
        plain, shared = rows[0][1], rows[1][1]
        print(f"{len(w)} jobs, {arrival} arrivals")
        print(f"{'scheduler':<12} {'sim s':>8} {'jobs/s':>9} {'days/hour':>10} {'x ELiSE':>9} "
              f"{'x easy time':>12} {'x easy+pool':>12} {'makespan gain %':>16}")  # fmt: skip
        base_span = plain.metrics["makespan"]
        for name, r in rows:
            m = r.metrics
            assert r.validate() == [], name
            gain = 100 * (base_span - m["makespan"]) / base_span
            print(f"{name:<12} {r.wall_time:8.3f} {m['jobs_per_s']:9.0f} "
                  f"{m['days_per_hour']:10.1f} {m['days_per_hour'] / ELISE_DAYS_PER_HOUR:9.0f} "
                  f"{r.wall_time / plain.wall_time:12.2f} {r.wall_time / shared.wall_time:12.2f} "
                  f"{gain:16.1f}")  # fmt: skip
        co = rows[2][1]
        verdicts.append((arrival, co.metrics["days_per_hour"] / ELISE_DAYS_PER_HOUR,
                         co.wall_time / plain.wall_time))  # fmt: skip
        print()
    for arrival, x_elise, x_easy in verdicts:
        print(f"{arrival}: easy-coloc {x_elise:,.0f}x ELiSE's days/hour (target >= 1000x: "
              f"{'met' if x_elise >= 1000 else 'NOT met'}); {x_easy:.2f}x the time of plain easy "
              f"(target <= 2x: {'met' if x_easy <= 2 else 'NOT met'})")  # fmt: skip


if __name__ == "__main__":
    main()
