"""Speed of the SimX study executors (issue 13 targets).

    .venv/bin/python benchmarks/bench_studies.py [--quick]

1. Simulated executor: a 10,000-run study (a 100 x 100 design grid) on 4,096 processors,
   configurations O (every design, 32 processors per run) and E (active sampler, reuse,
   optimal batching, reuse class first, preemption), against a textbook list-scheduling loop
   of the same 10,000 runs (a heap of worker-group end times, no sampler, no store) measured
   in the same run. Target: <= 10 s per study.
2. Real executor: the overhead per run (start, store, bookkeeping) of 30 runs of a command
   that only prints its JSON result, against the same command run 30 times by a plain
   ``subprocess.run`` loop in the same run. Target: <= 0.2 s per run.
"""

from __future__ import annotations

import argparse
import heapq
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from coschedlab.studies import DesignSpace, parse_scaling
from coschedlab.studies.manager import CONFIGS
from coschedlab.studies.model import WorkModel
from coschedlab.studies.real import run_real_study
from coschedlab.studies.simulate import simulate_study

TABLE = parse_scaling("4:1.95,8:1.14,16:0.80,32:0.60,64:1.82")


def textbook(model: WorkModel, procs: int, per_run: int) -> float:
    """Greedy list scheduling of every design on groups of ``per_run`` processors."""
    groups = [0.0] * (procs // per_run)
    heapq.heapify(groups)
    end = 0.0
    t = model.step_time(per_run)
    for d in model.space.designs():
        start = heapq.heappop(groups)
        finish = start + model.steps(d, False) * t
        end = max(end, finish)
        heapq.heappush(groups, finish)
    return end


def simulated(n: int) -> None:
    axis = list(np.linspace(0.0, 1.0, n))
    space = DesignSpace.of({"a": axis, "b": axis})
    t0 = time.perf_counter()
    model = WorkModel(space, TABLE, spread=0.25, time_scale=1.18, targets=((0.1, 0.2), (0.6, 0.9)))
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    base_end = textbook(model, 4096, 32)
    base = time.perf_counter() - t0
    print(f"simulated executor, {n * n:,} designs on 4,096 processors "
          f"(model set-up {build:.2f} s; textbook loop {base:.3f} s)")  # fmt: skip
    for c in "OE":
        t0 = time.perf_counter()
        r = simulate_study(model, CONFIGS[c], 4096, 32, reuse=("b",), checkpoint_every=100,
                           restart=60)  # fmt: skip
        secs = time.perf_counter() - t0
        m = r.metrics
        extra = (
            f", same makespan as textbook: {abs(m['total_time'] - base_end) < 1e-6}"
            if c == "O"
            else ""
        )
        print(f"  {c}: {m['runs']:,} runs, {m['preemptions']:,} preemptions in {secs:.2f} s "
              f"({secs / base:.0f}x the textbook loop; target 10 s: "
              f"{'met' if secs <= 10 else 'MISSED'}){extra}")  # fmt: skip


FAKE = (
    "import json,sys; print(json.dumps({'objectives': [1.0, 2.0], 'steps': 1, 'mode': 'scratch'}))"
)


def real(runs: int) -> None:
    space = DesignSpace.of({"a": list(range(runs))})
    cmd = [sys.executable, "-c", FAKE]
    t0 = time.perf_counter()
    for _ in range(runs):
        subprocess.run(cmd, check=True, capture_output=True)
    plain = (time.perf_counter() - t0) / runs
    template = " ".join([json.dumps(sys.executable), "-c", json.dumps(FAKE), "--", "{params}"])
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run_real_study(space, CONFIGS["O"], 1, 1, template, Path(tmp) / "s",
                       scaling=parse_scaling("1:1"))  # fmt: skip
        ours = (time.perf_counter() - t0) / runs
    over = ours - plain
    print(f"real executor, {runs} runs of a command that prints its result: "
          f"{ours * 1000:.1f} ms per run, plain subprocess loop {plain * 1000:.1f} ms; "
          f"overhead {over * 1000:.1f} ms per run (target 200 ms: "
          f"{'met' if over <= 0.2 else 'MISSED'})")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a 50 x 50 grid and 10 real runs")
    args = ap.parse_args()
    simulated(50 if args.quick else 100)
    real(10 if args.quick else 30)


if __name__ == "__main__":
    main()
