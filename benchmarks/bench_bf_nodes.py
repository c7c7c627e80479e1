"""Slurm with ``bf_nodes`` (Slurm's node-space map): two source trees side by side, each run in
a fresh process, alternating, on the first ``--jobs`` jobs of a bundled trace.

Usage::

    .venv/bin/python benchmarks/bench_bf_nodes.py --before /work/main/src --after src \
        [--trace KTH] [--jobs 5000] [--repeat 3]

Prints per tree the CPU seconds of ``simulate`` (the event loop and the policy, trace already
parsed; best of ``--repeat``), the backfill passes, and whether the two trees' schedules (every
job's start and node list) are identical.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

TRACES = {"KTH": "KTH-SP2-1996-2.1-cln.swf.gz"}


def child(trace: str, jobs: int, opts: dict) -> None:
    """One run in this process (the tree on PYTHONPATH): prints JSON."""
    from coschedlab.api import simulate
    from coschedlab.schedulers.slurm import Slurm
    from coschedlab.workload.swf import cluster_from_header, read_swf

    path = Path(__import__("coschedlab").__file__).parent / "data" / TRACES[trace]
    cluster = cluster_from_header(read_swf(path).header)
    workload = read_swf(path, cluster=cluster).head(jobs)
    simulate(workload.head(50), cluster, Slurm(bf_nodes=True, **opts))  # lazy imports
    sched = Slurm(bf_nodes=True, **opts)
    t0 = time.process_time()
    res = simulate(workload, cluster, sched)
    cpu = time.process_time() - t0
    key = repr((res.jobs.start.tolist(), res.jobs.alloc.tolist())).encode()
    print(json.dumps({"cpu": cpu, "passes": sched.backfill_passes,
                      "schedule": hashlib.sha256(key).hexdigest()[:16]}))  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="the src directory of the baseline tree")
    ap.add_argument("--after", required=True, help="the src directory of the tree measured")
    ap.add_argument("--trace", default="KTH", choices=sorted(TRACES))
    ap.add_argument("--jobs", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--opts", default="{}", help="Slurm options as JSON")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.trace, a.jobs, json.loads(a.opts))
        return
    best: dict[str, dict] = {}
    for _ in range(a.repeat):
        for name in ("before", "after"):
            env = {**os.environ, "PYTHONPATH": str(Path(getattr(a, name)).resolve())}
            out = subprocess.run(
                [sys.executable, __file__, "--child", "--before", "-", "--after", "-",
                 "--trace", a.trace, "--jobs", str(a.jobs), "--opts", a.opts],
                env=env, check=True, capture_output=True, text=True,
            ).stdout  # fmt: skip
            r = json.loads(out.splitlines()[-1])
            if name not in best or r["cpu"] < best[name]["cpu"]:
                best[name] = r
    b, f = best["before"], best["after"]
    print(f"{a.trace}, first {a.jobs} jobs, bf_nodes, options {a.opts}: "
          f"{f['passes']} backfill passes")  # fmt: skip
    for name, r in best.items():
        print(f"  {name:7s} {r['cpu']:8.3f} s CPU (best of {a.repeat}), schedule {r['schedule']}")
    print(f"  before/after {b['cpu'] / f['cpu']:.2f}x; identical schedules: "
          f"{b['schedule'] == f['schedule'] and b['passes'] == f['passes']}")  # fmt: skip


if __name__ == "__main__":
    main()
