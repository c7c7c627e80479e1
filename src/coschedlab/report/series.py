"""The report's view of a schedule: the series of :mod:`coschedlab.metrics` on a cluster, and
what only drawing needs (cores per group, cores held, application names).

Every number and series is defined once, in :mod:`coschedlab.metrics`; this module re-exports
the series for the figures and adds the presentation helpers (no run-level number: the report
shows the run's stored metrics, see :mod:`.runs`; node ranges of the ``alloc`` texts come from
the one parser, :func:`coschedlab.intervals.parse_alloc_column`):

- allocated cores = ``nodes`` x cores per node, halved for ``placement == "spread"`` (a
  co-located job holds half of each socket), else the used cores when ``nodes`` is absent;
- unused cores = total - used cores; the packing-free "cores over time" view of the Gantt
  chart sums used cores per group (:func:`cores_by_group`);
- a series with more steps than a figure has pixels is drawn as bins (:func:`binned`): the
  time-weighted mean of each bin (utilization, cores) or its largest value (queue size,
  finished jobs), so a long trace is a readable curve, not an overplotted block;
- speedups as drawn (:func:`drawn_speedups`): a speedup within ``SPEEDUP_TOLERANCE`` of 1 is 1
  (the float rounding of a compact run), with the tolerance of :mod:`coschedlab.metrics`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import metrics as M
from ..errors import InputError
from ..jobs import app_names_from_header
from ..metrics import (
    SPEEDUP_TOLERANCE,
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
    "binned",
    "busy_cores",
    "cores_by_group",
    "drawn_speedups",
    "for_drawing",
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


def _cumulative(s: Series, x: np.ndarray) -> np.ndarray:
    """Integral of the step function ``s`` from before its first step to each of ``x``."""
    t, v = s.t, s.v
    c = np.concatenate(([0.0], np.cumsum(v[:-1] * np.diff(t))))  # integral up to t[k]
    k = np.searchsorted(t, x, side="right") - 1
    kk = np.maximum(k, 0)
    return np.where(k >= 0, c[kk] + v[kk] * (x - t[kk]), 0.0)


def binned(s: Series, t0: float, t1: float, bins: int, how: str = "mean") -> Series:
    """``s`` on ``[t0, t1)`` in ``bins`` equal bins: the time-weighted mean of each bin
    (``how="mean"``) or the largest value the series takes in it (``how="max"``).

    The result is a step series of ``bins + 1`` points: the value of bin k holds from its start
    ``t[k]``; the last point, at ``t1``, repeats the last bin's value so that a step drawing
    reaches ``t1``. The mean of the bins is the time-weighted mean of ``s`` over ``[t0, t1)``.
    """
    if how not in ("mean", "max"):
        raise ValueError(f"how must be 'mean' or 'max', got {how!r}")
    if not t1 > t0 or bins < 1:
        raise ValueError(f"need t1 > t0 and bins >= 1, got [{t0}, {t1}) and {bins}")
    edges = np.linspace(t0, t1, bins + 1)
    if not len(s):
        values = np.zeros(bins)
    elif how == "mean":
        values = np.diff(_cumulative(s, edges)) / np.diff(edges)
    else:
        values = np.asarray(s.at(edges[:-1]), dtype=float).copy()
        inside = (s.t > t0) & (s.t < t1)
        which = np.searchsorted(edges, s.t[inside], side="right") - 1
        np.maximum.at(values, np.minimum(which, bins - 1), s.v[inside])
    return Series(edges, np.append(values, values[-1]))


def for_drawing(
    series: list[Series], t0: float, t1: float, max_bins: int, how: str = "mean"
) -> tuple[list[Series], float | None]:
    """``series`` on ``[t0, t1]`` as a figure draws them, on one grid (stacked areas need a
    common grid): exact when together they change at most ``max_bins`` times there, else each
    :func:`binned` into ``max_bins`` bins. Returns the drawn series and the bin width in
    seconds (None when exact). An exact series starts at ``t0`` and ends at ``t1`` with the
    values there."""
    if not t1 > t0:
        grid = np.array([t0])
        return [Series(grid, np.asarray(x.at(grid), dtype=float)) for x in series], None
    times = np.unique(np.concatenate([x.t for x in series] + [np.zeros(0)]))
    inside = times[(times > t0) & (times < t1)]
    if len(inside) > max_bins:
        return [binned(x, t0, t1, max_bins, how) for x in series], (t1 - t0) / max_bins
    grid = np.concatenate(([t0], inside, [t1]))
    return [Series(grid, np.asarray(x.at(grid), dtype=float)) for x in series], None


def drawn_speedups(jobs: pd.DataFrame) -> np.ndarray:
    """The jobs' speedups as figures draw them: a speedup within ``SPEEDUP_TOLERANCE`` of 1 is
    exactly 1 (a compact job's speedup is 1 up to the rounding of end - start, e.g.
    1 - 1e-13: not a spread worth drawing); NaN where a job has none."""
    if "speedup" not in jobs.columns:
        return np.full(len(jobs), np.nan)
    s = jobs["speedup"].to_numpy(dtype=float, na_value=np.nan)
    return np.where(np.abs(s - 1.0) <= SPEEDUP_TOLERANCE, 1.0, s)
