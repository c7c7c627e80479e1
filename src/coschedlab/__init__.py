"""coschedlab: design, simulate and plan co-scheduling on HPC systems.

The public names below are imported on first use (PEP 562), so that ``import coschedlab`` and
the command line start fast and load NumPy, pandas and the capabilities only when needed.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "simulate": ".api",
    "Simulation": ".engine.kernel",
    "Placement": ".engine.placement",
    "View": ".engine.view",
    "Result": ".engine.result",
    "InputError": ".errors",
    "Job": ".jobs",
    "Workload": ".jobs",
    "Cluster": ".platform",
    "Scheduler": ".schedulers",
    "get_scheduler": ".schedulers",
    "register": ".schedulers",
    "validate_jobs": ".validator",
}

__all__ = [
    "Cluster",
    "InputError",
    "Job",
    "Placement",
    "Result",
    "Scheduler",
    "Simulation",
    "View",
    "Workload",
    "__version__",
    "get_scheduler",
    "register",
    "simulate",
    "validate_jobs",
]

if TYPE_CHECKING:  # pragma: no cover
    from .api import simulate
    from .engine.kernel import Simulation
    from .engine.placement import Placement
    from .engine.result import Result
    from .engine.view import View
    from .errors import InputError
    from .jobs import Job, Workload
    from .platform import Cluster
    from .schedulers import Scheduler, get_scheduler, register
    from .validator import validate_jobs


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'coschedlab' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
