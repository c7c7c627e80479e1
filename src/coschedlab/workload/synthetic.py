"""A seeded synthetic workload for scaling tests (:func:`synthetic_workload`).

The model has the shape of Lublin & Feitelson's (2003) rigid-job model, simplified and with
parameter values chosen here (they are *not* the published fitted values). Everything is drawn
with one NumPy generator, ``np.random.default_rng(seed)``, in vectorised form (a million jobs
take well under a second), so the same arguments always give the same workload.

Job sizes (processors = whole nodes: the workload is meant for one-core nodes, so
``procs == nodes``), with ``max_size`` defaulting to ``nodes // 8``:

* with probability ``p_serial`` (0.2) a job is serial (1 node);
* otherwise ``u = log2(size)`` follows a two-stage uniform law: with probability
  ``p_small`` (0.8) ``u`` is uniform in ``[1, u_med]``, else uniform in ``[u_med, u_hi]``,
  where ``u_hi = log2(max_size)`` and ``u_med = max(1, u_hi - 2.5)``; so most parallel jobs are
  small and a few are wide;
* with probability ``p_pow2`` (0.6) the size is rounded to the nearest power of two
  ``2**round(u)``, else to the nearest integer ``round(2**u)`` (the power-of-two bias of real
  traces); sizes are finally clipped to ``[1, max_size]``.

Run times are log-uniform in ``[min_run, max_run]`` (default 1 minute .. 1 day), rounded to
whole seconds and independent of the size. The requested time (the user's estimate) is the run
time times a factor uniform in ``req_factor`` (default ``[1, 3]``), rounded up to whole seconds
and capped at ``max_request`` (default ``2 * max_run``) but never below the run time, so no job
overruns its estimate.

Arrivals are a Poisson process: exponential inter-arrival times with rate
``lambda = load * nodes / mean(procs * run)``, using the mean of the drawn jobs, so the offered
load ``sum(procs * run) / (nodes * span of the submit times)`` is ``load`` up to Poisson noise
(about ``1/sqrt(n_jobs)`` relative). The first job arrives at 0; submit times are rounded to whole
seconds (several jobs may share a second). Job ids are ``1..n_jobs`` in submit order.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InputError
from ..jobs import Workload

__all__ = ["offered_load", "synthetic_workload"]


def synthetic_workload(
    n_jobs: int,
    nodes: int,
    *,
    seed: int = 0,
    load: float = 0.9,
    max_size: int | None = None,
    p_serial: float = 0.2,
    p_small: float = 0.8,
    p_pow2: float = 0.6,
    min_run: float = 60.0,
    max_run: float = 86_400.0,
    req_factor: tuple[float, float] = (1.0, 3.0),
    max_request: float | None = None,
) -> Workload:
    """``n_jobs`` synthetic rigid jobs offering ``load`` to a machine of ``nodes`` one-core nodes.

    See the module docstring for the model. The returned :class:`Workload` has integer times,
    ``procs`` in ``[1, max_size]`` (default ``max(1, nodes // 8)``), ids ``1..n_jobs`` and a
    header with ``MaxNodes``/``MaxProcs`` = ``nodes`` (so ``cluster_from_header`` gives
    ``nodes`` one-core nodes) and the generator's arguments in ``Note``.
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise InputError(f"n_jobs must be a positive integer, got {n_jobs!r}")
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or nodes < 1:
        raise InputError(f"nodes must be a positive integer, got {nodes!r}")
    if not load > 0:
        raise InputError(f"load must be positive, got {load!r}")
    if max_size is None:
        max_size = max(1, nodes // 8)
    if not 1 <= max_size <= nodes:
        raise InputError(f"max_size must be in [1, nodes={nodes}], got {max_size!r}")
    for name, p in (("p_serial", p_serial), ("p_small", p_small), ("p_pow2", p_pow2)):
        if not 0.0 <= p <= 1.0:
            raise InputError(f"{name} must be a probability, got {p!r}")
    if not 0 < min_run <= max_run:
        raise InputError(f"need 0 < min_run <= max_run, got {min_run!r}, {max_run!r}")
    lo_f, hi_f = req_factor
    if not 1.0 <= lo_f <= hi_f:
        raise InputError(f"req_factor must be (lo, hi) with 1 <= lo <= hi, got {req_factor!r}")
    if max_request is None:
        max_request = 2.0 * max_run
    n = int(n_jobs)
    rng = np.random.default_rng(seed)

    # sizes: serial, or two-stage uniform log2(size), power-of-two biased
    u_hi = math.log2(max_size)
    u_med = max(1.0, u_hi - 2.5)
    small = rng.random(n) < p_small
    u_small = rng.uniform(1.0, u_med, n) if u_hi >= 1.0 else np.zeros(n)
    u_big = rng.uniform(min(u_med, u_hi), u_hi, n)
    u = np.where(small, np.minimum(u_small, u_hi), u_big)
    pow2 = rng.random(n) < p_pow2
    size = np.where(pow2, np.exp2(np.round(u)), np.round(np.exp2(u)))
    size[rng.random(n) < p_serial] = 1.0
    procs = np.clip(size, 1, max_size).astype(np.int64)

    # run times: log-uniform, whole seconds (at least 1)
    run = np.exp(rng.uniform(math.log(min_run), math.log(max_run), n))
    run = np.maximum(1.0, np.round(run))
    # requested time: run x U[lo, hi], whole seconds, capped, never below the run time
    req = np.ceil(run * rng.uniform(lo_f, hi_f, n))
    req = np.maximum(np.minimum(req, max_request), run)

    # Poisson arrivals at the rate giving the offered load
    rate = load * nodes / float(np.mean(procs * run))
    gaps = rng.exponential(1.0 / rate, n)
    gaps[0] = 0.0
    submit = np.round(np.cumsum(gaps))

    note = (
        f"coschedlab synthetic_workload(n_jobs={n}, nodes={nodes}, seed={seed}, load={load}, "
        f"max_size={max_size}, p_serial={p_serial}, p_small={p_small}, p_pow2={p_pow2}, "
        f"min_run={min_run}, max_run={max_run}, req_factor={tuple(req_factor)}, "
        f"max_request={max_request})"
    )
    columns = {
        "id": np.arange(1, n + 1, dtype=np.int64),
        "submit": submit,
        "run": run,
        "requested_time": req,
        "procs": procs,
    }
    header = {"MaxNodes": str(nodes), "MaxProcs": str(nodes), "Note": note}
    return Workload(columns=columns, header=header, source=f"synthetic(seed={seed})")


def offered_load(workload: Workload, nodes: int) -> float:
    """``sum(procs * run) / (nodes * (last submit - first submit))`` of a workload."""
    c = workload.columns
    span = float(c["submit"].max() - c["submit"].min())
    if span <= 0:
        return math.inf
    return float(np.sum(c["procs"] * c["run"])) / (nodes * span)
