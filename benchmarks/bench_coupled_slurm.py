"""Coupled systems under Slurm: its compiled pass serving the gates (``SlurmPass.serve_gate``)
against its Python pass (tests/reference_passes.py ``python_slurm``), in the same run,
alternating (prints figures; not a test).

The inputs of bench_coupled.py cut to Theta's first ``--jobs`` jobs: ALCF Theta (4,360
nodes) and a 100-node cluster with KTH shapes, ``--proportion`` of Theta's jobs paired;
both systems run ``slurm`` (the WoAS configuration). For each scheme combination: the CPU
seconds of the coupled run with each pass (best of ``--repeat``), and whether the schedules
are the same (the run exits 1 if any differs).

Run: .venv/bin/python benchmarks/bench_coupled_slurm.py [--jobs 3000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _bench_common import coupled_systems, machine_line

from coschedlab.coupled import CoupledSimulation, pair_every
from coschedlab.coupled.workloads import KTH, THETA, month_of, twin_workload
from coschedlab.schedulers import Slurm
from coschedlab.workload.swf import read_swf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from reference_passes import python_slurm  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=3000)
    ap.add_argument("--proportion", type=float, default=0.1)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    print(machine_line())
    large = month_of(THETA, 2022, 1).head(args.jobs)
    sub = large.columns["submit"]
    span = float(sub.max() - sub.min()) + 1.0
    small = twin_workload(large, read_swf(KTH), 100, 0.5, span, 0)
    pairs = pair_every(large, small, max(1, round(1 / args.proportion)))
    print(f"theta: {len(large)} jobs; cluster: {len(small)} jobs; {len(pairs)} pairs")
    differ = []
    print(f"{'combo':<6} {'compiled s':>10} {'python s':>9} {'ratio':>6} {'same':>5}")
    for combo in ("HH", "HY", "YH", "YY"):
        best = {"compiled": float("inf"), "python": float("inf")}
        out = {}
        for _ in range(args.repeat):
            for kind, make in (("compiled", Slurm), ("python", python_slurm)):
                systems = coupled_systems(combo, large, small, make)
                t0 = time.process_time()
                c = CoupledSimulation(systems, pairs).run()
                best[kind] = min(best[kind], time.process_time() - t0)
                out[kind] = [s.start.tolist() for s in c.sims]
                if kind == "compiled":
                    assert all(s.scheduler.compiled_pass.gated for s in c.sims)
        same = out["compiled"] == out["python"]
        if not same:
            differ.append(combo)
        print(
            f"{combo:<6} {best['compiled']:>10.2f} {best['python']:>9.2f} "
            f"{best['python'] / best['compiled']:>6.1f} {'yes' if same else 'NO':>5}"
        )
    if differ:
        sys.exit(f"schedules differ (compiled against Python) in {', '.join(differ)}")


if __name__ == "__main__":
    main()
