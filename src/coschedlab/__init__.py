"""coschedlab: design, simulate and plan co-scheduling on HPC systems."""

from __future__ import annotations

from .api import simulate
from .coloc import schedulers as _coloc_schedulers  # noqa: F401  (registers the co-schedulers)
from .engine.kernel import Simulation
from .engine.result import Result
from .errors import InputError
from .jobs import Job, Workload
from .platform import Cluster
from .schedulers import Scheduler, get_scheduler, register
from .validator import validate_jobs

__version__ = "0.1.0"

__all__ = [
    "Cluster",
    "InputError",
    "Job",
    "Result",
    "Scheduler",
    "Simulation",
    "Workload",
    "__version__",
    "get_scheduler",
    "register",
    "simulate",
    "validate_jobs",
]
