"""Measure the example solver's (heat.py) seconds per timestep on 1 and 2 processes (the
scaling table of examples/heat_study.yaml): a study needs its code's scaling to batch and to
preempt.

    .venv/bin/python examples/heat_scaling.py [--grid 192] [--steps 800]
"""

from __future__ import annotations

import argparse
import os
import time

import heat  # beside this file


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grid", type=int, default=192)
    ap.add_argument("--steps", type=int, default=800)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    table = {}
    for n in range(1, (os.cpu_count() or 1) + 1):
        best = float("inf")
        for _ in range(args.repeat):
            t = time.perf_counter()
            r = heat.solve({"diffusivity": 1.5, "velocity": 1.5}, nprocs=n, grid=args.grid,
                           max_steps=args.steps, checkpoint_every=0)  # fmt: skip
            best = min(best, (time.perf_counter() - t) / r["steps"])
        table[n] = best
        print(f"{n} processes: {best * 1e3:.3f} ms per timestep")
    print("scaling: {" + ", ".join(f"{n}: {t:.6f}" for n, t in table.items()) + "}")


if __name__ == "__main__":
    main()
