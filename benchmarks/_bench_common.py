"""What every benchmark prints first: the machine and its load (figures are only comparable
on a quiet machine)."""

from __future__ import annotations

import math
import os
import platform
import time

import numpy as np


def machine_line() -> str:
    """Host, CPUs, Python and NumPy versions, load average and UTC time, on one line."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    return (
        f"{platform.node()} | {os.cpu_count()} CPUs | Python {platform.python_version()} | "
        f"NumPy {np.__version__} | load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} | "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
