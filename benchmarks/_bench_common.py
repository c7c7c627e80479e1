"""What every benchmark prints first: the machine and its load (figures are only comparable
on a quiet machine)."""

from __future__ import annotations

import math
import os
import platform
import time
from collections.abc import Callable

import numpy as np


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
