"""Test data for the comparison tests: a tiny pool, a small SWF trace and spec files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

APPS = {"A": (4, 100.0), "B": (8, 200.0), "C": (4, 50.0)}


def write_pool(path: Path) -> Path:
    """A complete 3-application pool (every pair measured)."""
    loads = []
    for name, (procs, t) in APPS.items():
        co = {other: [[t * (1.1 if other == name else 0.9)]] for other in APPS}
        loads.append(
            {
                "load_name": name,
                "num_of_processes": procs,
                "compact_timelogs": [t],
                "coscheduled_timelogs": co,
            }
        )
    path.write_text(json.dumps({"machine": "tiny", "suite": "T", "loads": loads}))
    return path


def write_trace(path: Path, n: int = 40) -> Path:
    """A deterministic SWF trace of ``n`` jobs on 4 nodes x 4 cores."""
    lines = ["; MaxNodes: 4", "; MaxProcs: 16"]
    for i in range(1, n + 1):
        submit = 7 * i
        run = 30 + (i * 37) % 200
        procs = 1 + (i * 5) % 16
        req = run + (i * 13) % 60
        lines.append(f"{i} {submit} -1 {run} {procs} -1 -1 {procs} {req} -1 1 1 1 1 1 1 -1 -1")
    path.write_text("\n".join(lines) + "\n")
    return path


BOOM = '''
import os
from coschedlab.schedulers import Scheduler, start_in_order


class Boom(Scheduler):
    """FCFS that fails in the middle of the run (RuntimeError, or KeyboardInterrupt when
    COSCHEDLAB_TEST_INTERRUPT is set; nothing at all when COSCHEDLAB_TEST_CALM is set)."""

    name = "boom"

    def setup(self, view):
        self.passes = 0

    def schedule(self, view):
        self.passes += 1
        if self.passes == 3 and not os.environ.get("COSCHEDLAB_TEST_CALM"):
            if os.environ.get("COSCHEDLAB_TEST_INTERRUPT"):
                raise KeyboardInterrupt
            raise RuntimeError("boom in the middle of the run")
        return start_in_order(view, view.queue, view.free)
'''


def write_boom(path: Path) -> Path:
    """A scheduler file that raises in its 3rd scheduling pass."""
    path.write_text(BOOM)
    return path


def base_spec(tmp: Path) -> dict[str, Any]:
    """2 pool workloads + 1 trace, fcfs vs easy, 2 repetitions (12 runs)."""
    write_pool(tmp / "pool.json")
    write_trace(tmp / "trace.swf")
    return {
        "name": "tiny",
        "cluster": {"nodes": 4, "sockets_per_node": 1, "cores_per_socket": 4},
        "repetitions": 2,
        "seed": 3,
        "baseline": "fcfs",
        "plots": "none",
        "schedulers": ["fcfs", "easy"],
        "workloads": [
            {
                "name": "mix",
                "pool": "pool.json",
                "jobs": 12,
                "arrival": "poisson:20",
                "colocation": False,
            },
            {
                "name": "small",
                "pool": "pool.json",
                "jobs": 8,
                "select": {"procs": [4]},
                "colocation": False,
            },
            {"name": "trace", "trace": "trace.swf", "limit": 30},
        ],
    }


def write_spec(path: Path, doc: dict[str, Any] | str) -> Path:
    """Write a spec (a dict dumped as YAML, or YAML text)."""
    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False))
    return path
