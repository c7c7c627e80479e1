"""Synthetic workloads drawn from a table of applications (the ELiSE paper, 3.1, "Creating
workloads"; model layer: this module knows nothing about co-location).

Input is a plain table of applications (``app`` name, ``procs``, ``compact_time`` in seconds),
for example ``Pool.app_frame()`` or a compact-time CSV. ``N`` jobs are picked from it

- uniformly at random (default),
- with given frequencies (``weights``: relative weight per application name), or
- from an explicit list of names (``names``, optionally shuffled),

and submitted with inter-arrival times given by a spec string (:func:`parse_arrival`):

==========================  ============================================================
``constant:S``              every gap is S seconds (``constant:0``: all jobs at time 0)
``uniform:S``               gaps uniform in [0, 2S] (mean S); ``uniform:LO,HI`` in [LO, HI]
``poisson:MEAN``            exponential gaps of mean MEAN (a Poisson arrival process)
``weibull:SHAPE,SCALE``     gaps SCALE * Weibull(SHAPE)
==========================  ============================================================

The paper lists "constant, random, Poisson and Weibull" without parameters; ``uniform:S`` is
chosen so that S is the mean gap, as for ``constant`` and ``poisson``.
Each job: run time = compact time, requested time = ``requested_factor`` x compact time (1.4
as in ELiSE's generator), procs = the application's procs, ``app`` = the application's index in
the table (SWF field 14); ``header["Applications"]`` = ``"0=name0 1=name1 ..."``. Ids are 1..N,
the first job is submitted at 0. Every random choice comes from ``numpy.random.default_rng(seed)``.

The machine the workload is made for (``cluster``) goes into the header as SWF's ``MaxNodes``
and ``MaxProcs`` plus ``CoresPerNode`` and ``SocketsPerNode`` comments, so that a simulation of
the written file runs on that machine without being told (``cluster_from_header``); a job
larger than the machine is an error. Without a machine the header has no machine size.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import InputError
from .jobs import Workload
from .platform import Cluster
from .workload.swf import MAX_TIME

__all__ = ["AppTable", "Arrival", "app_table", "generate_workload", "parse_arrival"]

DEFAULT_REQUESTED_FACTOR = 1.4


@dataclass(frozen=True)
class AppTable:
    """Applications as parallel arrays: ``names``, ``procs`` (int), ``compact_time`` (s)."""

    names: tuple[str, ...]
    procs: np.ndarray
    compact_time: np.ndarray

    def __len__(self) -> int:
        return len(self.names)


def app_table(
    apps: AppTable | pd.DataFrame | Mapping[str, Sequence] | Sequence[tuple[str, int, float]],
) -> AppTable:
    """Normalise and check an application table.

    Accepts a DataFrame or mapping with columns ``app`` (or ``name``), ``procs``,
    ``compact_time``, or a sequence of ``(name, procs, compact_time)`` tuples.
    """
    if isinstance(apps, AppTable):
        return apps
    if isinstance(apps, pd.DataFrame | Mapping):
        cols = dict(apps.items()) if isinstance(apps, Mapping) else apps
        key = "app" if "app" in cols else "name"
        missing = [c for c in (key, "procs", "compact_time") if c not in cols]
        if missing:
            raise InputError(
                f"application table needs columns app, procs, compact_time (missing {missing})"
            )
        names = [str(x) for x in cols[key]]
        procs, times = list(cols["procs"]), list(cols["compact_time"])
    else:
        rows = list(apps)
        if any(not isinstance(r, Sequence) or len(r) != 3 for r in rows):
            raise InputError("application rows must be (name, procs, compact_time) tuples")
        names = [str(r[0]) for r in rows]
        procs = [r[1] for r in rows]
        times = [r[2] for r in rows]
    if not names:
        raise InputError("the application table is empty")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"application {dup!r} appears twice in the table")
    try:
        procs_f = np.asarray(procs, dtype=np.float64)
        times_a = np.asarray(times, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("procs and compact_time must be numbers") from None
    for name, p, t in zip(names, procs_f, times_a, strict=True):
        if not (p >= 1 and float(p).is_integer()):
            raise InputError(f"application {name!r}: procs must be an integer >= 1, got {p}")
        if not (math.isfinite(t) and t > 0):
            raise InputError(f"application {name!r}: compact time must be > 0 s, got {t}")
    return AppTable(tuple(names), procs_f.astype(np.int64), times_a)


@dataclass(frozen=True)
class Arrival:
    """An inter-arrival law: ``kind`` in constant/uniform/poisson/weibull and its parameters."""

    kind: str
    params: tuple[float, ...]

    def gaps(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` inter-arrival gaps (seconds) drawn with ``rng``."""
        if self.kind == "constant":
            return np.full(n, self.params[0])
        if self.kind == "uniform":
            lo, hi = self.params
            return rng.uniform(lo, hi, size=n)
        if self.kind == "poisson":
            return rng.exponential(self.params[0], size=n)
        shape, scale = self.params
        return scale * rng.weibull(shape, size=n)

    def __str__(self) -> str:
        return f"{self.kind}:" + ",".join(f"{p:g}" for p in self.params)


_ARRIVAL_FORMS = "constant:S, uniform:S, uniform:LO,HI, poisson:MEAN, weibull:SHAPE,SCALE"


def parse_arrival(spec: str | Arrival) -> Arrival:
    """Parse an inter-arrival spec string (see module doc); InputError says what is accepted."""
    if isinstance(spec, Arrival):
        return spec
    text = str(spec).strip()
    kind, sep, rest = text.partition(":")
    kind = kind.strip().lower()
    if kind not in ("constant", "uniform", "poisson", "weibull") or not sep:
        raise InputError(f"bad inter-arrival {text!r}: expected one of {_ARRIVAL_FORMS}")
    try:
        params = tuple(float(x) for x in rest.split(","))
    except ValueError:
        raise InputError(f"bad inter-arrival {text!r}: parameters must be numbers") from None
    if not all(math.isfinite(p) for p in params):
        raise InputError(f"bad inter-arrival {text!r}: parameters must be finite")
    expected = {"constant": (1,), "uniform": (1, 2), "poisson": (1,), "weibull": (2,)}[kind]
    if len(params) not in expected:
        form = {
            "constant": "constant:S",
            "uniform": "uniform:S or uniform:LO,HI",
            "poisson": "poisson:MEAN",
            "weibull": "weibull:SHAPE,SCALE",
        }[kind]
        raise InputError(f"bad inter-arrival {text!r}: expected {form}")
    if any(p < 0 for p in params):
        raise InputError(f"bad inter-arrival {text!r}: parameters must be >= 0")
    if kind == "uniform":
        params = (0.0, 2 * params[0]) if len(params) == 1 else params
        if params[0] > params[1]:
            raise InputError(f"bad inter-arrival {text!r}: LO must not exceed HI")
    if kind == "weibull" and params[0] <= 0:
        raise InputError(f"bad inter-arrival {text!r}: SHAPE must be > 0")
    return Arrival(kind, params)


def _choose(
    table: AppTable,
    n: int | None,
    weights: Mapping[str, float] | None,
    names: Sequence[str] | None,
    shuffle: bool,
    rng: np.random.Generator,
) -> tuple[np.ndarray, str]:
    """Application index of each job, and a short description of the mix."""
    index = {name: i for i, name in enumerate(table.names)}

    def lookup(name: str) -> int:
        if name not in index:
            raise InputError(f"unknown application {name!r} (known: {', '.join(table.names)})")
        return index[name]

    if names is not None:
        if weights is not None:
            raise InputError("give either weights or an explicit list of names, not both")
        if isinstance(names, str):
            raise InputError("names must be a list of application names, not one string")
        idx = np.array([lookup(str(x)) for x in names], dtype=np.int64)
        if n is not None and n != len(idx):
            raise InputError(f"n={n} but the list of names holds {len(idx)} jobs")
        if shuffle:
            idx = rng.permutation(idx)
        return idx, "list" + (" (shuffled)" if shuffle else "")
    if n is None or isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise InputError(f"the number of jobs must be an integer >= 0, got {n!r}")
    if weights is None:
        return rng.integers(0, len(table), size=n), "uniform"
    p = np.zeros(len(table))
    for name, w in weights.items():
        w = float(w)
        if not (math.isfinite(w) and w >= 0):
            raise InputError(f"weight of {name!r} must be a number >= 0, got {w}")
        p[lookup(str(name))] = w
    if p.sum() <= 0:
        raise InputError("the application weights sum to 0")
    return rng.choice(len(table), size=n, p=p / p.sum()), "weights"


def generate_workload(
    apps: AppTable | pd.DataFrame | Mapping[str, Sequence] | Sequence[tuple[str, int, float]],
    n: int | None = None,
    *,
    weights: Mapping[str, float] | None = None,
    names: Sequence[str] | None = None,
    shuffle: bool = False,
    arrival: str | Arrival = "constant:0",
    requested_factor: float = DEFAULT_REQUESTED_FACTOR,
    seed: int | None = 0,
    cluster: Cluster | None = None,
) -> Workload:
    """A synthetic workload of ``n`` jobs drawn from ``apps`` (the ELiSE paper, section 3.1).

    Mix: uniform by default, ``weights`` = relative frequency per application name, or
    ``names`` = the explicit job list (``shuffle`` permutes it; ``n`` may be omitted).
    ``arrival``: inter-arrival spec, see :func:`parse_arrival`. Requested time =
    ``requested_factor`` x compact time, run time = compact time. ``cluster``: the machine
    the workload is for, written in the header (every job must fit it).
    """
    from .workload.swf import cluster_header

    table = app_table(apps)
    law = parse_arrival(arrival)
    if not (math.isfinite(requested_factor) and requested_factor > 0):
        raise InputError(f"requested_factor must be > 0, got {requested_factor}")
    rng = np.random.default_rng(seed)
    idx, mix = _choose(table, n, weights, names, shuffle, rng)
    count = len(idx)
    submit = np.zeros(count)
    if count > 1:
        submit[1:] = np.cumsum(law.gaps(count - 1, rng))
        if not submit[-1] <= MAX_TIME:  # a trace nothing can read back (SWF's sane range)
            raise InputError(
                f"arrival {law} puts the last of {count} jobs at t={submit[-1]:.3g} s, beyond "
                f"the {MAX_TIME:.0e} s a trace may span; use a shorter gap or fewer jobs"
            )
    run = table.compact_time[idx]
    if cluster is not None and count:
        big = int(np.argmax(table.procs[idx]))
        if table.procs[idx[big]] > cluster.total_cores:
            name = table.names[idx[big]]
            raise InputError(
                f"application {name!r} needs {table.procs[idx[big]]} processors, more than "
                f"the machine has: {cluster}"
            )
    header = {
        "Applications": " ".join(f"{i}={name}" for i, name in enumerate(table.names)),
        "MaxJobs": str(count),
        "MaxRecords": str(count),
        **(cluster_header(cluster) if cluster is not None else {}),
        "Note": (
            f"coschedlab generator: {count} jobs, mix {mix}, arrival {law}, "
            f"requested time {requested_factor:g} x compact time, seed {seed}"
            + (f", machine {cluster}" if cluster is not None else "")
        ),
    }
    columns = {
        "id": np.arange(1, count + 1, dtype=np.int64),
        "submit": submit,
        "run": run,
        "requested_time": requested_factor * run,
        "procs": table.procs[idx],
        "app": idx.astype(np.int64),
        "status": np.ones(count, dtype=np.int64),
    }
    return Workload(columns=columns, header=header, source=f"generated ({mix}, {law})")
