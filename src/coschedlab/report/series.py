"""The report's view of a schedule: the series of :mod:`coschedlab.metrics` on a cluster, and
what only drawing needs (cores per group, cores held, application names).

Every number and series is defined once, in :mod:`coschedlab.metrics`; this module re-exports
the series for the figures and adds the presentation helpers (no run-level number: the report
shows the run's stored metrics, see :mod:`.runs`; node ranges of the ``alloc`` texts come from
the one parser, :func:`coschedlab.intervals.parse_alloc_column`):

- allocated cores = ``nodes`` x cores per node, halved for ``placement == "spread"`` (a
  co-located job holds half of each socket), else the used cores when ``nodes`` is absent;
- unused cores = total - used cores; the packing-free "cores over time" view of the Gantt
  chart sums used cores per group (:func:`cores_by_group`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import metrics as M
from ..errors import InputError
from ..jobs import app_names_from_header
from ..metrics import (
    Series,
    busy_cores,
    queue_size,
    running_jobs,
    step_sum,
    throughput,
    used_cores,
)
from ..platform import Cluster

__all__ = [
    "Series",
    "allocated_cores",
    "app_names_from_header",
    "busy_cores",
    "cores_by_group",
    "queue_size",
    "running_jobs",
    "step_sum",
    "throughput",
    "unused_cores",
    "used_cores",
    "utilization",
]


def _col(jobs: pd.DataFrame, name: str) -> np.ndarray:
    if name not in jobs.columns:
        raise InputError(f"the jobs table has no {name!r} column")
    return jobs[name].to_numpy(dtype=np.float64)


def allocated_cores(jobs: pd.DataFrame, cluster: Cluster) -> np.ndarray:
    """Cores each job holds: nodes x the cores per node it holds (``node_cores``, on shared
    nodes), else whole nodes; the used cores when there is no ``nodes`` column."""
    if "nodes" not in jobs.columns:
        return used_cores(jobs)
    per_node = _col(jobs, "node_cores") if "node_cores" in jobs.columns else cluster.cores_per_node
    return _col(jobs, "nodes") * per_node


def utilization(jobs: pd.DataFrame, cluster: Cluster) -> Series:
    """Fraction of the cluster's cores in use over time (0..1): :func:`metrics.utilization`."""
    return M.utilization(jobs, cluster.total_cores)


def unused_cores(jobs: pd.DataFrame, cluster: Cluster) -> Series:
    """Cores no job uses over time: :func:`metrics.unused_cores`."""
    return M.unused_cores(jobs, cluster.total_cores)


def cores_by_group(
    jobs: pd.DataFrame, groups: np.ndarray, max_groups: int = 10
) -> tuple[np.ndarray, list, np.ndarray]:
    """Used cores per group on a common time grid: ``(t, labels, values[len(labels), len(t)])``.

    The ``max_groups - 1`` groups with the most core-seconds are kept, the rest summed as
    ``"other"`` (the packing-free "cores over time" view of the Gantt chart).
    """
    start, end, cores = _col(jobs, "start"), _col(jobs, "end"), used_cores(jobs)
    labels, inverse = np.unique(np.asarray(groups), return_inverse=True)
    weight = np.bincount(inverse, weights=cores * np.nan_to_num(end - start))
    order = np.argsort(-weight, kind="stable")
    if len(labels) > max_groups:
        keep = order[: max_groups - 1]
        remap = np.full(len(labels), max_groups - 1)
        remap[keep] = np.arange(max_groups - 1)
        inverse = remap[inverse]
        names = [labels[k] for k in keep] + ["other"]
    else:
        remap = np.empty(len(labels), dtype=np.int64)
        remap[order] = np.arange(len(labels))
        inverse = remap[inverse]
        names = [labels[k] for k in order]
    t = np.unique(np.concatenate((start, end))[np.isfinite(np.concatenate((start, end)))])
    values = np.zeros((len(names), len(t)))
    for g in range(len(names)):
        m = inverse == g
        values[g] = step_sum(start[m], end[m], cores[m]).at(t)
    return t, names, values
