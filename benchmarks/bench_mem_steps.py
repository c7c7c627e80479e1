"""Peak memory of each step of the ``simulate`` command, in one process.

Usage::

    PYTHONPATH=src .venv/bin/python benchmarks/bench_mem_steps.py TRACE OUT [-s easy]

Runs ``coschedlab simulate TRACE -s SCHEDULER --out OUT --force`` in this process, with a
thread sampling the resident set (``/proc/self/statm``) every 2 ms, and prints for each step
(reading the trace, the kernel's set-up and run, the result table, validation, the metrics,
each output file) the highest resident set sampled during it and ``ru_maxrss`` at its end (a
peak shorter than 2 ms shows only there), in MB. A step's name is set by wrapping the function
that does it; "after X" is the time between that step and the next. Linux only. With
``PYTHONPATH`` another tree's ``src``, the same for that tree (the before of a comparison).
"""

from __future__ import annotations

import argparse
import os
import resource
import threading
import time
from pathlib import Path
from typing import Any

PAGE = os.sysconf("SC_PAGE_SIZE")
state: dict[str, Any] = {"step": "imports", "peaks": {}, "maxrss": {}, "order": []}


def rss() -> float:
    """This process's resident set, MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


def _sample() -> None:
    while True:
        r, step = rss(), state["step"]
        if r > state["peaks"].get(step, 0):
            state["peaks"][step] = r
        time.sleep(0.002)


def mark(name: str) -> None:
    """Step ``name`` begins (the one before it ends)."""
    state["maxrss"][state["step"]] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    state["step"] = name
    if name not in state["order"]:
        state["order"].append(name)
    state["peaks"][name] = max(state["peaks"].get(name, 0), rss())


def wrap(owner: Any, attr: str, name: str, after: str | None = None) -> None:
    """Mark step ``name`` while ``owner.attr`` runs, ``after`` (else "after NAME") after."""
    f = getattr(owner, attr)

    def g(*a: Any, **k: Any) -> Any:
        mark(name)
        try:
            return f(*a, **k)
        finally:
            mark(after or f"after {name}")

    setattr(owner, attr, g)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("-s", "--scheduler", default="easy")
    args = ap.parse_args()
    threading.Thread(target=_sample, daemon=True).start()
    import coschedlab.cli.batch as batch
    import coschedlab.engine.result as res
    import coschedlab.metrics as metrics
    import coschedlab.outputs as outputs
    import coschedlab.simulation as simulation

    wrap(batch, "load_trace", "read the SWF")
    wrap(simulation, "Simulation", "kernel set-up and run", after="kernel set-up and run")
    wrap(res.Result, "from_simulation", "the result table (kernel alive)")
    trim = simulation.trim_heap

    def trimmed() -> None:
        trim()
        mark("after simulate()")

    simulation.trim_heap = trimmed
    wrap(res.Result, "validate", "validate")
    wrap(metrics, "summary", "summary metrics")
    wrap(res.Result, "_group_metrics", "per-group metrics")
    wrap(outputs, "write_parquet", "jobs.parquet")
    wrap(res.Result, "to_batsim_csv", "jobs.csv")
    wrap(res.Result, "to_swf", "result.swf")
    batch.run_simulate(args.trace, [args.scheduler], out=args.out, force=True)
    mark("end")
    time.sleep(0.01)
    print(f"{'step':<40}{'peak MB':>9}{'maxrss':>9}")
    for step in state["order"][:-1]:
        print(f"{step:<40}{state['peaks'][step]:9.0f}{state['maxrss'].get(step, 0):9.0f}")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{'whole process (ru_maxrss)':<40}{usage.ru_maxrss / 1024:9.0f}")
    print(f"CPU (user + system): {usage.ru_utime + usage.ru_stime:.2f} s")


if __name__ == "__main__":
    main()
