"""What the report is given for one run: its jobs table, its cluster and its stored metrics.

The report draws the series from the jobs table but never computes a run-level number: the
makespan, waits, utilization, speedups, ... it shows are the run's ``metrics`` as given, i.e.
what its ``metrics.json`` holds (:attr:`Result.metrics <coschedlab.engine.result.Result.metrics>`,
computed once by :func:`coschedlab.metrics.summary` and
:func:`coschedlab.metrics.colocation_summary`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..errors import InputError
from ..platform import Cluster

__all__ = ["Run", "as_runs", "largest", "longest_span", "metric", "span"]

_REQUIRED = ("submit", "start", "end", "procs")


class Run(NamedTuple):
    """One schedule to report: the jobs table, the cluster and the run's metrics dict (the
    ``"metrics"`` of its metrics.json)."""

    jobs: pd.DataFrame
    cluster: Cluster
    metrics: Mapping[str, Any]
    #: the run's metrics per user (:func:`coschedlab.metrics.by_group`), as stored; None: none
    users: Any = None


def _as_run(name: str, value: Any) -> Run:
    users = None
    if isinstance(value, Run):
        jobs, cluster, metrics, users = value
    elif isinstance(value, tuple):
        if len(value) != 3:
            raise InputError(
                f"result {name!r} must be (jobs DataFrame, Cluster, metrics dict) or a Result; "
                "the report shows the run's stored metrics and does not compute them"
            )
        jobs, cluster, metrics = value
    elif all(hasattr(value, a) for a in ("jobs", "cluster", "metrics")):  # a Result
        jobs, cluster, metrics = value.jobs, value.cluster, value.metrics
        users = _users(value)
    else:
        raise InputError(
            f"result {name!r} must be (jobs DataFrame, Cluster, metrics dict) or a Result, "
            f"got {type(value).__name__}"
        )
    if not isinstance(jobs, pd.DataFrame):
        raise InputError(f"result {name!r}: the jobs table must be a DataFrame")
    if not isinstance(cluster, Cluster):
        raise InputError(f"result {name!r}: second item must be a Cluster")
    if not isinstance(metrics, Mapping):
        raise InputError(f"result {name!r}: the metrics must be a dict (metrics.json's)")
    missing = [c for c in _REQUIRED if c not in jobs.columns]
    if missing:
        raise InputError(f"result {name!r}: jobs table lacks columns {missing}")
    return Run(jobs, cluster, metrics, users)


def _users(result: Any) -> Any:
    """A result's metrics per user, or None when it has none (e.g. a table without users)."""
    try:
        return result.groups("user") if hasattr(result, "groups") else None
    except InputError:
        return None


def as_runs(results: Mapping[str, Any]) -> dict[str, Run]:
    """``results`` (name -> :class:`Run`, ``(jobs, cluster, metrics)`` or a Result) as Runs,
    checked (:class:`~coschedlab.errors.InputError` naming the bad one)."""
    if not results:
        raise InputError("the report needs at least one result")
    return {name: _as_run(name, value) for name, value in results.items()}


def metric(metrics: Mapping[str, Any], key: str) -> float:
    """``metrics[key]`` as a float; NaN when absent or null (metrics.json stores NaN as null)."""
    v = metrics.get(key)
    return math.nan if v is None else float(v)


def largest(runs: Mapping[str, Run], key: str) -> float:
    """The largest finite ``key`` over the runs' metrics (0 when none has one), for axis units."""
    values = [metric(r.metrics, key) for r in runs.values()]
    return max((v for v in values if math.isfinite(v)), default=0.0)


def span(jobs: pd.DataFrame) -> tuple[float, float]:
    """``(first submission, last end - first submission)`` of a jobs table, in seconds: the
    origin and the length of its time axes (``(0, 0)`` without jobs)."""
    if not len(jobs):
        return 0.0, 0.0
    t0 = float(np.nanmin(jobs["submit"].to_numpy(dtype=float)))
    end = float(np.nanmax(jobs["end"].to_numpy(dtype=float)))
    return t0, max(end - t0, 0.0) if math.isfinite(end) else 0.0


def longest_span(runs: Mapping[str, Run]) -> float:
    """The longest run, in seconds: the largest stored makespan or time-axis :func:`span`."""
    drawn = max((span(r.jobs)[1] for r in runs.values()), default=0.0)
    return max(largest(runs, "makespan"), drawn)
