"""Scaling of the batch core: synthetic 10k, 100k and 1M jobs on 100,000 nodes under EASY.

Usage::

    .venv/bin/python benchmarks/bench_scaling.py [--quick] [--sizes 10000,100000,...]
                                                 [--nodes 100000] [--load 0.9] [--seed 0]

Each size runs in its own child process (a fresh interpreter, so peak memory is that size's
own): it generates the workload with :func:`coschedlab.workload.synthetic.synthetic_workload`
(seed 0, offered load 0.9 on ``--nodes`` one-core nodes; see that module for the model), then
calls ``coschedlab.simulate(workload, Cluster(nodes), "easy")``. The child reports

* ``sim s``: ``Result.wall_time``, the event loop only;
* ``total s``: the whole ``simulate()`` call (kernel set-up + run + the per-job result table),
  and ``cpu s`` its CPU time (the better guide on a shared machine);
* jobs/s and days of simulated makespan per wall-clock hour, both from ``sim s``;
* peak RSS: the child's own ``getrusage(RUSAGE_SELF).ru_maxrss`` at the end (the whole
  process: interpreter, NumPy/pandas, workload, simulation state and result table), and the
  RSS right after the imports for reference;

and the parent prints the growth exponent between consecutive sizes,
``log(t2 / t1) / log(n2 / n1)``, next to the exponent n log n would give,
``log(n2 log n2 / (n1 log n1)) / log(n2 / n1)``.

Targets (the issue): 1M jobs in under 90 s and 2 GB, time growing no worse than about n log n.
``--quick`` runs 10k and 100k only.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

from _bench_common import machine_line

TARGET_1M_S = 90.0
TARGET_1M_MB = 2048.0
SLACK = 0.15  # allowed exponent above n log n's before we call it worse than n log n


def child(n: int, nodes: int, load: float, seed: int) -> None:
    t0 = time.perf_counter()
    import numpy as np  # noqa: F401

    import coschedlab
    from coschedlab.platform import Cluster
    from coschedlab.workload.synthetic import offered_load, synthetic_workload

    import_s = time.perf_counter() - t0
    rss_imports = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    w = synthetic_workload(n, nodes, seed=seed, load=load)
    gen_s = time.perf_counter() - t0
    c0, t0 = time.process_time(), time.perf_counter()
    r = coschedlab.simulate(w, Cluster(nodes), "easy")
    total_s = time.perf_counter() - t0
    cpu_s = time.process_time() - c0
    m = r.metrics
    out = {
        "n": n,
        "import_s": import_s,
        "gen_s": gen_s,
        "sim_s": r.wall_time,
        "total_s": total_s,
        "cpu_s": cpu_s,
        "passes": r.passes,
        "makespan_days": m["makespan"] / 86400,
        "days_per_hour": m["days_per_hour"],
        "jobs_per_s": m["jobs_per_s"],
        "utilization": m["utilization"],
        "wait_mean_h": m["wait_mean"] / 3600,
        "offered_load": offered_load(w, nodes),
        "rss_imports_mb": rss_imports,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(json.dumps(out))


def nlogn_exponent(n1: int, n2: int) -> float:
    return math.log((n2 * math.log(n2)) / (n1 * math.log(n1))) / math.log(n2 / n1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="10k and 100k only")
    ap.add_argument("--sizes", type=str, default=None, help="comma-separated job counts")
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=1800.0, help="per size, seconds")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:
        child(args.child, args.nodes, args.load, args.seed)
        return 0
    if args.sizes:
        sizes = [int(s.replace("_", "")) for s in args.sizes.split(",")]
    else:
        sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    print(
        f"# bench_scaling: synthetic workloads, EASY, {args.nodes:,} one-core nodes, "
        f"offered load {args.load}, seed {args.seed}"
    )
    print(f"# {machine_line()}")
    print(
        f"{'jobs':>10}{'gen s':>8}{'sim s':>9}{'total s':>9}{'cpu s':>8}{'jobs/s':>10}"
        f"{'days/hour':>11}{'peak RSS MB':>13}{'(imports)':>10}{'util':>7}{'wait h':>8}"
    )
    rows = []
    for n in sizes:
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            str(n),
            "--nodes",
            str(args.nodes),
            "--load",
            str(args.load),
            "--seed",
            str(args.seed),
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"{n:>10,}  did not finish within {args.timeout:.0f} s")
            break
        if proc.returncode != 0:
            print(f"{n:>10,}  failed:\n{proc.stderr}")
            return 1
        d = json.loads(proc.stdout.strip().splitlines()[-1])
        rows.append(d)
        print(
            f"{n:>10,}{d['gen_s']:>8.2f}{d['sim_s']:>9.2f}{d['total_s']:>9.2f}{d['cpu_s']:>8.2f}"
            f"{d['jobs_per_s']:>10,.0f}{d['days_per_hour']:>11,.0f}{d['peak_rss_mb']:>13,.0f}"
            f"{d['rss_imports_mb']:>10,.0f}{d['utilization']:>7.3f}{d['wait_mean_h']:>8.2f}",
            flush=True,
        )
    print()
    for a, b in zip(rows, rows[1:], strict=False):
        n1, n2 = a["n"], b["n"]
        ref = nlogn_exponent(n1, n2)
        exps = {k: math.log(b[k] / a[k]) / math.log(n2 / n1) for k in ("sim_s", "total_s", "cpu_s")}

        def verdict(e: float, ref: float = ref) -> str:
            return "no worse than n log n" if e <= ref + SLACK else "WORSE than n log n"

        print(
            f"growth {n1:,} -> {n2:,}: exponent {exps['sim_s']:.2f} (sim s), "
            f"{exps['total_s']:.2f} (total s), {exps['cpu_s']:.2f} (cpu s); n log n gives "
            f"{ref:.2f} -> by wall time {verdict(exps['sim_s'])}, by CPU time "
            f"{verdict(exps['cpu_s'])}"
        )
    big = [d for d in rows if d["n"] == 1_000_000]
    if big:
        d = big[0]

        def met(ok: bool) -> str:
            return "MET" if ok else "MISSED"

        print(
            f"1M jobs: sim {d['sim_s']:.1f} s, total {d['total_s']:.1f} s "
            f"(CPU {d['cpu_s']:.1f} s), "
            f"peak RSS {d['peak_rss_mb']:,.0f} MB; target < {TARGET_1M_S:.0f} s -> "
            f"{met(d['total_s'] < TARGET_1M_S)} by wall time, {met(d['cpu_s'] < TARGET_1M_S)} "
            f"by CPU time; target < {TARGET_1M_MB:.0f} MB -> {met(d['peak_rss_mb'] < TARGET_1M_MB)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
