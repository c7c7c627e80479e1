"""Slurm with ``bf_nodes`` (Slurm 22.05's node-space map): the compiled pass
(``SlurmPass.node_map``: the cycle, the map and its scan compiled) against the Python pass
it replaced (tests/reference_passes.py ``python_slurm``), in the same run, alternating (prints
figures; not a test).

The bundled KTH-SP2 trace's first ``--jobs`` jobs on its 100 nodes, ``slurm:bf_nodes=true``
with the WoAS defaults, and again on a real Slurm's clocks (``sched_interval=1``, phases as
docs/workflows.md measures them). For each: the CPU seconds of ``simulate()`` with each pass
(best of ``--repeat``), the backfill passes, and whether the starts and nodes are the same
(the run exits 1 if any differs).

Run: .venv/bin/python benchmarks/bench_slurm_nodes.py [--jobs 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _bench_common import machine_line

from coschedlab import Cluster, simulate
from coschedlab.bundled import bundled
from coschedlab.schedulers import Slurm
from coschedlab.workload.swf import read_swf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from reference_passes import python_slurm  # noqa: E402

CASES = {
    "WoAS defaults": {},
    "Slurm's clocks": dict(sched_interval=1.0, sched_phase=0.5, bf_phase=0.3),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(machine_line())
    w = read_swf(bundled("KTH-SP2-1996-2.1-cln.swf.gz")).head(args.jobs)
    cluster = Cluster(100)
    print(f"KTH-SP2: the first {len(w)} jobs on {cluster}, slurm bf_nodes=true")
    print(f"{'case':<16} {'compiled s':>10} {'python s':>9} {'ratio':>6} {'passes':>7} {'same':>5}")
    differ = []
    for name, opts in CASES.items():
        best = {"compiled": float("inf"), "python": float("inf")}
        out, passes = {}, {}
        for _ in range(args.repeat):
            for kind, make in (("compiled", Slurm), ("python", python_slurm)):
                sched = make(bf_nodes=True, **opts)
                t0 = time.process_time()
                r = simulate(w, cluster, sched)
                best[kind] = min(best[kind], time.process_time() - t0)
                out[kind] = (r.jobs.start.tolist(), r.jobs.alloc.tolist())
                passes[kind] = sched.backfill_passes
        same = out["compiled"] == out["python"] and passes["compiled"] == passes["python"]
        if not same:
            differ.append(name)
        ratio = best["python"] / best["compiled"]
        print(f"{name:<16} {best['compiled']:>10.2f} {best['python']:>9.2f} {ratio:>6.2f} "
              f"{passes['compiled']:>7} {'yes' if same else 'NO':>5}")  # fmt: skip
    if differ:
        print(f"schedules differ: {', '.join(differ)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
