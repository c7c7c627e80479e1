"""What every benchmark prints first: the machine and its load (figures are only comparable
on a quiet machine)."""

from __future__ import annotations

import math
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def byte_compile(src: Path) -> None:
    """Write the bytecode of the tree ``src`` as an installed package has it, before a
    whole command is timed: with ``PYTHONDONTWRITEBYTECODE`` set (some shells and CI
    runners) a tree never imported without it has none, and every run compiles its ~300
    modules (SDSC-SP2's command: ~0.05 s, ~390 M instructions, a "regression" of 20% that
    is not in the code)."""
    import compileall

    compileall.compile_dir(str(src), quiet=2)


def machine_line() -> str:
    """Host, CPUs, Python and NumPy versions, load average and UTC time, on one line."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    return (
        f"{platform.node()} | {os.cpu_count()} CPUs | Python {platform.python_version()} | "
        f"NumPy {np.__version__} | load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} | "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )


def coupled_systems(
    combo: str, large: object, small: object, scheduler: Callable[[], object]
) -> list:
    """The two systems of the coupled benchmarks: ``large`` on Theta's 4,360 nodes and
    ``small`` on the 100-node cluster, each with its gate's scheme from its letter of
    ``combo`` (H: hold, Y: yield) and a scheduler of its own (``scheduler()``)."""
    from coschedlab.coupled import System
    from coschedlab.coupled.workloads import cluster_of

    return [
        System(name, w, cluster_of(n), scheduler=scheduler(),
               scheme="hold" if letter == "H" else "yield")
        for name, w, n, letter in (("theta", large, 4360, combo[0]),
                                   ("cluster", small, 100, combo[1]))
    ]  # fmt: skip
