"""Time series and summary numbers of a simulated schedule, for the report's figures.

Input is a result's jobs DataFrame (``job_id, submit, start, end, wait, procs, nodes, alloc,
app, bounded_slowdown``, ...; with co-location also ``cores``, ``speedup``, ``placement``) and
the :class:`~coschedlab.platform.Cluster`. Every series is a right-continuous step function
computed by one vectorised event sweep (sort the +/- events, cumulative sum, keep the last value
at each instant), so 100k-job schedules take milliseconds.

Definitions (REFERENCE.md section 1 "Metrics"; ELiSE seed paper 4.1):

- used cores of a job = ``cores`` (cores really assigned) when present, else ``procs``;
- allocated cores = ``nodes`` x cores per node, halved for ``placement == "spread"`` (a
  co-located job holds half of each socket), else the used cores when ``nodes`` is absent;
- utilization = used cores / total cores; unused cores = total - used cores;
- queue size = jobs submitted and not started; throughput = cumulative finished jobs.

The event sweep itself (:class:`Series`, :func:`step_sum`) lives in :mod:`coschedlab.metrics`.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import InputError
from ..metrics import Series, step_sum
from ..platform import Cluster

__all__ = [
    "Series",
    "allocated_cores",
    "app_names_from_header",
    "busy_cores",
    "cores_by_group",
    "node_ranges",
    "queue_size",
    "running_jobs",
    "step_sum",
    "summary",
    "throughput",
    "unused_cores",
    "used_cores",
    "utilization",
]


def _col(jobs: pd.DataFrame, name: str) -> np.ndarray:
    if name not in jobs.columns:
        raise InputError(f"the jobs table has no {name!r} column")
    return jobs[name].to_numpy(dtype=np.float64)


def used_cores(jobs: pd.DataFrame) -> np.ndarray:
    """Cores each job really uses: ``cores`` when present, else ``procs``."""
    return _col(jobs, "cores" if "cores" in jobs.columns else "procs")


def allocated_cores(jobs: pd.DataFrame, cluster: Cluster) -> np.ndarray:
    """Cores each job holds: nodes x cores per node (half for spread placement)."""
    if "nodes" not in jobs.columns:
        return used_cores(jobs)
    held = _col(jobs, "nodes") * cluster.cores_per_node
    if "placement" in jobs.columns:
        held = np.where(jobs["placement"].to_numpy() == "spread", held / 2, held)
    return held


def busy_cores(jobs: pd.DataFrame) -> Series:
    """Used cores over time."""
    return step_sum(_col(jobs, "start"), _col(jobs, "end"), used_cores(jobs))


def utilization(jobs: pd.DataFrame, cluster: Cluster) -> Series:
    """Fraction of the cluster's cores in use over time (0..1)."""
    s = busy_cores(jobs)
    return Series(s.t, s.v / cluster.total_cores)


def unused_cores(jobs: pd.DataFrame, cluster: Cluster) -> Series:
    """Cores no job uses over time (idle nodes plus unused cores of allocated nodes)."""
    s = busy_cores(jobs)
    return Series(s.t, cluster.total_cores - s.v)


def queue_size(jobs: pd.DataFrame) -> Series:
    """Waiting jobs (submitted, not yet started) over time."""
    return step_sum(_col(jobs, "submit"), _col(jobs, "start"))


def running_jobs(jobs: pd.DataFrame) -> Series:
    """Running jobs over time."""
    return step_sum(_col(jobs, "start"), _col(jobs, "end"))


def throughput(jobs: pd.DataFrame) -> Series:
    """Cumulative number of finished jobs over time (ELiSE's throughput plot)."""
    end = _col(jobs, "end")
    return step_sum(end, np.full_like(end, np.inf))


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


_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def _parse_ranges(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.replace(",", " ").split():
        m = _RANGE.match(part)
        if not m:
            raise InputError(f"bad node list {text!r}: expected ranges like '0-3 7'")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
        if b < a:
            raise InputError(f"bad node list {text!r}: range {part} runs backwards")
        out.append((a, b - a + 1))
    return out


def node_ranges(alloc: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse ``alloc`` strings ("0-3 7" = nodes 0..3 and 7) into contiguous ranges.

    Returns ``(row, first_node, count)``: one entry per range, ``row`` = the job's position.
    Empty or missing strings give no range.
    """
    values = pd.Series(alloc).to_numpy(dtype=object)
    cache: dict[str, list[tuple[int, int]]] = {}
    rows, firsts, counts = [], [], []
    for i, text in enumerate(values):
        if not isinstance(text, str) or not text.strip():
            continue
        ranges = cache.get(text)
        if ranges is None:
            ranges = cache[text] = _parse_ranges(text)
        for a, c in ranges:
            rows.append(i)
            firsts.append(a)
            counts.append(c)
    return (
        np.asarray(rows, dtype=np.int64),
        np.asarray(firsts, dtype=np.int64),
        np.asarray(counts, dtype=np.int64),
    )


def app_names_from_header(text: str | None) -> dict[int, str]:
    """``"0=lu.E.2048 1=cg.D.64"`` (a generated workload's ``Applications`` header) -> dict."""
    names: dict[int, str] = {}
    for part in (text or "").split():
        key, sep, name = part.partition("=")
        if sep and key.lstrip("-").isdigit():
            names[int(key)] = name
    return names


def summary(jobs: pd.DataFrame, cluster: Cluster) -> dict[str, float]:
    """Headline numbers of one schedule (REFERENCE.md section 1; ELiSE seed paper 4.1).

    ``makespan`` = max end - min submit; ``utilization`` = used core-seconds / (total cores x
    makespan); ``utilization_until_queue_empty`` = the same up to the last start (ELiSE's
    definition); means of wait, response and bounded slowdown; mean speedup when present.
    """
    submit, start, end = _col(jobs, "submit"), _col(jobs, "start"), _col(jobs, "end")
    n = len(jobs)
    out: dict[str, float] = {"jobs": float(n)}
    if not n:
        return out
    t0 = float(np.nanmin(submit))
    makespan = float(np.nanmax(end)) - t0
    area = float(np.nansum(used_cores(jobs) * (end - start)))
    out["makespan"] = makespan
    out["utilization"] = area / (cluster.total_cores * makespan) if makespan > 0 else 0.0
    last_start = float(np.nanmax(start))
    busy = busy_cores(jobs)
    out["utilization_until_queue_empty"] = (
        busy.mean(t0, last_start) / cluster.total_cores if last_start > t0 else out["utilization"]
    )
    wait = jobs["wait"].to_numpy(dtype=np.float64) if "wait" in jobs else start - submit
    out["mean_wait"] = float(np.nanmean(wait))
    out["max_wait"] = float(np.nanmax(wait))
    out["mean_response"] = float(np.nanmean(end - submit))
    if "bounded_slowdown" in jobs.columns:
        bsld = jobs["bounded_slowdown"].to_numpy(dtype=np.float64)
    else:
        bsld = np.maximum(1.0, (end - submit) / np.maximum(end - start, 10.0))
    out["mean_bsld"] = float(np.nanmean(bsld))
    if "speedup" in jobs.columns:
        sp = jobs["speedup"].to_numpy(dtype=np.float64)
        if np.isfinite(sp).any():
            out["mean_speedup"] = float(np.nanmean(sp))
            out["slowed_down_jobs"] = float((sp < 1).sum())
    return out
