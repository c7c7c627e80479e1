"""coschedlab: design, simulate and plan co-scheduling on HPC systems."""

from __future__ import annotations

from .errors import InputError
from .jobs import Job, Workload
from .platform import Cluster

__version__ = "0.1.0"

__all__ = ["Cluster", "InputError", "Job", "Workload", "__version__"]
