"""Build the workload of one run from its :class:`~.spec.WorkloadSpec` and repetition seed.

Pool workloads are drawn with :func:`coschedlab.generate.generate_workload` from the whole pool's
application table, so a job's ``app`` is its application's index in the pool (what the
co-location speed model expects); ``select`` only sets the weight of the other applications to 0.
Trace workloads are the trace's usable jobs (those that fit the cluster), the first ``limit``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..coloc.pool import Pool, cached_pool, file_stamp
from ..errors import InputError
from ..generate import generate_workload
from ..jobs import Workload
from .spec import WorkloadSpec

__all__ = ["build_workload"]


@lru_cache(maxsize=8)
def _read_trace(path: str, stamp: tuple[int, int]) -> Workload:
    """The trace in ``path`` as of ``stamp``; callers take copies (``select``), never modify it."""
    from ..workload.swf import read_swf

    return read_swf(path)


def _pool_weights(w: WorkloadSpec, pool: Pool) -> dict[str, float] | None:
    """Weights per application after ``select`` (None: uniform over the whole pool)."""
    if w.select_procs is None:
        return dict(w.weights) if w.weights is not None else None
    keep = {a.name for a in pool.apps if a.procs in set(w.select_procs)}
    if not keep:
        have = sorted({a.procs for a in pool.apps})
        raise InputError(
            f"select.procs {list(w.select_procs)} matches no application (procs in pool: {have})"
        )
    if w.weights is None:
        return {name: 1.0 for name in pool.names if name in keep}
    for name, _ in w.weights:
        pool.app(name)  # unknown names are an error, not silently ignored
    weights = {name: wt for name, wt in w.weights if name in keep}
    if not any(weights.values()):
        raise InputError("no selected application has a weight > 0")
    return weights


def build_workload(w: WorkloadSpec, seed: int) -> tuple[Workload, Pool | None]:
    """The jobs of one run and, for a pool workload, its :class:`Pool`.

    ``seed`` seeds the generator of a pool workload (the runner passes ``spec.seed + rep``);
    trace workloads ignore it.
    """
    if w.kind == "trace":
        trace = _read_trace(w.path, file_stamp(w.path))
        keep = np.asarray(trace.procs <= w.cluster.total_cores)
        workload = trace.select(keep)
        dropped = int((~keep).sum())
        if dropped:
            workload.dropped["larger than the machine"] += dropped
        if w.limit is not None:
            workload = workload.head(w.limit)
        if not len(workload):
            raise InputError(f"no job of {w.path} fits the cluster ({w.cluster})")
        return workload, None
    pool = cached_pool(w.path)
    if w.names is not None and w.select_procs is not None:
        raise InputError("give either 'names' or 'select', not both")
    weights = _pool_weights(w, pool)
    frame = pool.app_frame()
    workload = generate_workload(
        frame,
        w.jobs,
        weights=weights,
        names=list(w.names) if w.names is not None else None,
        shuffle=w.shuffle,
        arrival=w.arrival,
        requested_factor=w.requested_factor,
        seed=seed,
    )
    _check_fit(w, pool, weights)  # after the generator's own checks (unknown names, ...)
    return workload, pool


def _check_fit(w: WorkloadSpec, pool: Pool, weights: dict[str, float] | None) -> None:
    """Every application the workload may draw must fit the cluster (whatever the seed)."""
    if w.names is not None:
        candidates = list(dict.fromkeys(w.names))
    elif weights is not None:
        candidates = [name for name, wt in weights.items() if wt > 0]
    else:
        candidates = pool.names
    cores = w.cluster.total_cores
    for name in candidates:
        app = pool.app(name)
        if app.procs > cores:
            raise InputError(
                f"application {app.name!r} needs {app.procs} processors but the cluster has "
                f"{cores} cores; use 'select' or a larger 'cluster'"
            )
