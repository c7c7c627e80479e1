"""The workloads of the coupled-systems study, built from bundled real traces.

The paper's Intrepid and Eureka traces are not public. We use (docs/coupled.md):

* **the large system**: one month of ALCF Theta 2022 (4,360 nodes, Argonne's later
  Cobalt-scheduled machine; bundled ``theta_2022.swf.gz``, January by default: 3,119 jobs,
  offered load 0.86), submit times counted from the start of the month;
* **the analysis cluster**: KTH-SP2 (100 nodes, bundled), its arrivals compressed or stretched
  so that the jobs falling in the month offer a target utilization (:func:`stretch_to_load`:
  every inter-arrival gap times one factor, as the paper did for Eureka); the seed picks where
  in the KTH trace the month starts;
* **the paired-proportion study**: a cluster workload with as many jobs as the month of Theta,
  each submitted with its Theta twin, shapes (nodes, run and requested time) drawn with a seed
  from KTH and run and requested times scaled to the target load (:func:`twin_workload`), so
  that pairing every k-th twin gives exactly the proportion 1/k (the paper's "special Eureka
  workload that has the same number of jobs and is within the same time span").

Calibrated to the paper's baselines (``calibrate: paper``; :data:`PAPER_LARGE_NODES`,
:data:`PAPER_LARGE_LOAD`, :data:`PAPER_SMALL_LOADS`, :data:`PAPER_TWIN_LOAD`): the large
machine is five Thetas (21,800 nodes) and the month of Theta with the following months
compressed into it to one offered load (:func:`large_at_load`): Intrepid's 9,219 jobs a month
and its 61-min mean wait; the cluster's utilization labels run at the offered loads that give
Eureka's slowdowns.
"""

from __future__ import annotations

import calendar
import math
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import InputError, check_seed
from ..jobs import Workload
from ..platform import Cluster
from ..workload.swf import read_swf

__all__ = [
    "KTH",
    "THETA",
    "PAPER_BASELINES",
    "PAPER_LARGE_LOAD",
    "PAPER_LARGE_NODES",
    "PAPER_LARGE_SCALE",
    "PAPER_SMALL_LOADS",
    "PAPER_TWIN_LOAD",
    "cluster_of",
    "large_at_load",
    "month_of",
    "paper_small_load",
    "stretch_to_load",
    "twin_workload",
]

_DATA = resources.files("coschedlab") / "data"
THETA = str(_DATA / "theta_2022.swf.gz")
KTH = str(_DATA / "KTH-SP2-1996-2.1-cln.swf.gz")
TRACES = {"theta": THETA, "kth": KTH}  #: the bundled traces' files by their short names
THETA_NODES = 4360
KTH_NODES = 100


def cluster_of(nodes: int) -> Cluster:
    """A machine of ``nodes`` single-core nodes (the traces count nodes as processors)."""
    return Cluster(nodes=nodes, sockets_per_node=1, cores_per_socket=1)


def month_of(
    path: str | Path, year: int, month: int, nodes: int | None = None, onward: bool = False
) -> Workload:
    """The jobs of a trace with absolute (epoch) submit times submitted in ``year-month``
    (UTC), submit times counted from the month's start; with ``onward``, every job submitted
    from the month's start to the year's end, then the year's jobs before the month as if
    submitted a year later (ids offset past the largest), so that a late month has as many
    jobs to compress (:func:`stretch_to_load`) as an early one."""
    if not 1 <= month <= 12:
        raise InputError(f"month must be 1..12, got {month}")
    w = read_swf(path, max_procs=nodes)
    a = calendar.timegm((year, month, 1, 0, 0, 0))
    b = calendar.timegm((year + (month == 12), month % 12 + 1, 1, 0, 0, 0))
    y0, y1 = calendar.timegm((year, 1, 1, 0, 0, 0)), calendar.timegm((year + 1, 1, 1, 0, 0, 0))
    sub = w.columns["submit"]
    if onward:
        late = w.select((sub >= a) & (sub < y1))
        early = w.select((sub >= y0) & (sub < a))
        if len(late) and len(early):
            early.columns["submit"] = early.columns["submit"] + (y1 - y0)
            early.columns["id"] = early.columns["id"] + int(w.columns["id"].max()) + 1
            cols = {k: np.concatenate([late.columns[k], early.columns[k]]) for k in late.columns}
            extra = {k: np.concatenate([late.extra[k], early.extra[k]]) for k in late.extra}
            w = Workload(cols, {}, dict(w.header), w.dropped, w.source, extra)
        else:
            w = late
    else:
        w = w.select((sub >= a) & (sub < b))
    if not len(w):
        raise InputError(f"no job submitted in {year}-{month:02d}", str(path))
    w.columns["submit"] = w.columns["submit"] - a
    return w


def stretch_to_load(
    w: Workload, nodes: int, target: float, span: float, seed: int = 0
) -> tuple[Workload, float]:
    """``w``'s jobs from a seeded starting point, every inter-arrival gap multiplied by one
    factor, those submitted within ``span`` kept, the factor found (bisection on its log) so
    that they offer ``target`` load on ``nodes`` nodes. Returns the workload and the factor."""
    check_seed(seed)
    if not (0 < target < 10):
        raise InputError(f"the target load must be in (0, 10), got {target!r}")
    n = len(w)
    if n < 2:
        raise InputError("stretching needs at least two jobs")
    first = int(np.random.default_rng(seed).integers(0, n // 2)) if seed else 0
    c = w.columns
    order = np.lexsort((c["id"], c["submit"]))[first:]  # submit order from the start point
    gaps = c["submit"][order] - c["submit"][order[0]]  # time since the start, unstretched
    work = (c["procs"] * c["run"])[order]

    def kept(factor: float) -> np.ndarray:
        return gaps * factor < span

    lo, hi = -12.0, 12.0  # log factor: more compression (lower) offers more load
    for _ in range(60):
        mid = (lo + hi) / 2
        if float(np.sum(work[kept(math.exp(mid))])) / (nodes * span) > target:
            lo = mid
        else:
            hi = mid
    factor = math.exp(hi)
    keep = np.zeros(n, dtype=bool)
    keep[order[kept(factor)]] = True
    submit = np.empty(n)
    submit[order] = gaps * factor
    out = w.select(keep)
    out.columns["submit"] = submit[keep]
    return out, factor


#: Tang et al.'s published baselines (Section V; no pairing, WFP + backfilling): Intrepid's
#: mean wait (s) and mean slowdown; Eureka's mean slowdown per utilization label
PAPER_BASELINES = {"large_wait": 61 * 60.0, "large_slowdown": 6.1,
                   "small_slowdown": {0.25: 1.7, 0.5: 12.5, 0.75: 37.1}}  # fmt: skip
#: the calibration to :data:`PAPER_BASELINES` (``benchmarks/coupled_calibration.py`` fits it
#: again; docs/coupled.md, "Calibration"). The large machine: this many Thetas, the whole
#: number whose month at the fitted load holds Intrepid's 9,219 jobs (January-June 2022: 5,
#: 9,225 jobs), so its jobs are as small against the machine and as many as Intrepid's
PAPER_LARGE_SCALE = 5
PAPER_LARGE_NODES = PAPER_LARGE_SCALE * THETA_NODES
#: its offered load: fitted on Theta's January-June 2022 (the geometric mean of the months'
#: baseline mean waits 61 min)
PAPER_LARGE_LOAD = 0.72
#: the small system's offered load per paper utilization label: the load whose mean
#: baseline bounded slowdown over seeds 0-2 is the paper's slowdown for that label
PAPER_SMALL_LOADS = {0.25: 0.12, 0.5: 0.36, 0.75: 0.6}
#: the twin workload's (paired-proportion study) offered load for the "medium" (0.5) baseline
PAPER_TWIN_LOAD = 0.43


def large_at_load(
    path: str | Path, month: int, nodes: int, load: float, year: int = 2022
) -> tuple[Workload, float]:
    """The large system of month ``year-month`` at an offered ``load``: the trace's jobs from
    the month's start on (:func:`month_of` with ``onward``), every inter-arrival gap times one
    factor so that those submitted within the month offer ``load`` (:func:`stretch_to_load`,
    from the month's first job). Returns the workload and the factor."""
    w = month_of(path, year, month, nodes, onward=True)
    return stretch_to_load(w, nodes, load, calendar.monthrange(year, month)[1] * 86400.0)


def paper_small_load(label: float, twin: bool = False) -> float:
    """The small system's offered load for the paper's utilization ``label`` (0.25, 0.5 or
    0.75; the twin workload: 0.5) under the paper calibration."""
    loads = {0.5: PAPER_TWIN_LOAD} if twin else PAPER_SMALL_LOADS
    for k, v in loads.items():
        if math.isclose(label, k):
            return v
    raise InputError(
        f"calibrate=paper knows the {'twin workload' if twin else 'small system'}'s "
        f"load{'s' * (len(loads) > 1)} {' / '.join(f'{k:g}' for k in loads)} (the paper's "
        f"baselines), got {label:g}"
    )


def twin_workload(
    twins: Workload, pool: Workload, nodes: int, target: float, span: float, seed: int = 0
) -> Workload:
    """A workload with one job per job of ``twins``, submitted at the same time, its nodes,
    run and requested times drawn (seeded) from ``pool``, run and requested times scaled by
    one factor so that the jobs offer ``target`` load on ``nodes`` nodes over ``span``."""
    check_seed(seed)
    rng = np.random.default_rng(seed)
    pc = pool.columns
    ok = np.flatnonzero((pc["procs"] <= nodes) & (pc["run"] > 0))
    if not len(ok):
        raise InputError("the job pool has no job that fits the machine")
    pick = rng.choice(ok, size=len(twins))
    tc = twins.columns
    order = np.lexsort((tc["id"], tc["submit"]))
    run = pc["run"][pick].astype(float)
    req = np.maximum(pc["requested_time"][pick].astype(float), run)
    procs = pc["procs"][pick]
    work = float(np.sum(procs * run))
    scale = target * nodes * span / work if work > 0 else 1.0
    return Workload.from_records(
        [
            {
                "id": i + 1,
                "submit": float(tc["submit"][order[i]]),
                "run": float(run[i] * scale),
                "requested_time": float(req[i] * scale),
                "procs": int(procs[i]),
            }
            for i in range(len(twins))
        ],
        source=f"twins of {twins.source} drawn from {pool.source} (seed {seed})",
    )
