"""Workload readers and writers: SWF traces (:mod:`.swf`) and Batsim job logs (:mod:`.batsim`).

The names are imported on first use, so reading an SWF trace does not load pandas.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "cluster_from_header": ".swf",
    "cluster_header": ".swf",
    "read_swf": ".swf",
    "write_swf": ".swf",
    "write_workload_swf": ".swf",
    "write_jobs_csv": ".batsim",
}

__all__ = [
    "cluster_from_header",
    "cluster_header",
    "read_swf",
    "write_jobs_csv",
    "write_swf",
    "write_workload_swf",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)
