"""Per-job metrics, run summaries and time series: the one definition of every number.

Every consumer reads them from here: the result's ``metrics.json`` (:class:`Result.metrics`),
the reports (which read the stored ``metrics.json``), the comparison tables.

Input is a jobs DataFrame with columns ``submit``, ``start``, ``end`` and ``procs`` (and
optionally ``cores``, the cores really assigned to the job, used instead of ``procs`` for
utilization; and ``job_id`` or ``id`` to name jobs in error messages). Times are seconds.

Definitions (Feitelson, Rudolph, Schwiegelshohn, Sevcik and Wong, "Theory and practice in
parallel job scheduling", 1997; the bounded slowdown of Feitelson, "Metrics for parallel job
scheduling and their convergence", 2001), for job j with submit s, start b, end e:

* run r = e - b; wait = b - s; response (turnaround) = e - s;
* slowdown = (e - s) / r. **Rule for r == 0**: the slowdown is undefined and set to NaN; such
  jobs are left out of the slowdown statistics of :func:`summary` (which reports how many in
  ``slowdown_undefined``). Bounded slowdown is the measure that covers them;
* bounded slowdown = max(1, (e - s) / max(r, tau)), tau = 10 s by default;
* makespan = max e - min s; utilization = sum(cores_j * r_j) / (total cores * makespan)
  (0 when the makespan is 0); ``utilization_until_queue_empty`` = the mean of the busy cores
  from the first submit to the last start, over the total cores (the ELiSE paper's
  utilization "until the waiting queue is empty");
* co-location: job speedup = compact time / actual execution time (the ELiSE paper, 4.1);
  a job is *slower than compact* when its speedup is below ``1 - SPEEDUP_TOLERANCE`` (a compact
  job's speedup is 1 up to the rounding of end - start);
* throughput = cumulative finished jobs over time (ELiSE), and jobs per hour of makespan;
* simulator speed = days of simulated makespan per wall-clock hour, with jobs per second;
* per user, group, queue or partition (:func:`by_group`): jobs, core-hours (cores_j * r_j, the
  work of the utilization), their share of all jobs' core-hours, wait mean and p95, bounded
  slowdown mean, mean response and killed jobs; the SWF's -1 ("unknown") is a row of its own.

Percentiles use NumPy's default (linear interpolation between order statistics).
Everything is vectorised: a million-job frame takes a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InputError
from .platform import too_large_to_spread

if TYPE_CHECKING:  # pragma: no cover (pandas is imported where a frame is made)
    import pandas as pd

    from .platform import Cluster

#: A jobs table: a pandas DataFrame, or any mapping from column name to a 1-D array.
Jobs = Mapping[str, Any]

__all__ = [
    "DEFAULT_TAU",
    "GROUP_COLUMNS",
    "SPEEDUP_TOLERANCE",
    "UNKNOWN",
    "Series",
    "busy_cores",
    "by_group",
    "colocation_summary",
    "group_label",
    "group_metrics",
    "group_table",
    "improvement",
    "job_metrics",
    "queue_size",
    "rows",
    "running_jobs",
    "simulator_speed",
    "spread_reasons",
    "step_sum",
    "summary",
    "throughput",
    "unused_cores",
    "used_cores",
    "utilization",
]

#: Default bounded-slowdown threshold tau, in seconds.
DEFAULT_TAU = 10.0
#: The one tolerance of "slower than compact": a job is slower when its speedup is below
#: ``1 - SPEEDUP_TOLERANCE``. A compact job's speedup is 1 only up to float rounding (compact
#: time / (end - start), where end = start + compact time was rounded), e.g. 1 - 1e-13.
SPEEDUP_TOLERANCE = 1e-9
_STATS = ("mean", "median", "p90", "p95", "p99", "max")
_REQUIRED = ("submit", "start", "end", "procs")


def column(frame: Jobs, col: str) -> np.ndarray:
    """Column ``col`` of a jobs table as a float array (NaN for missing values).

    A jobs table is a pandas DataFrame or any mapping from column name to a 1-D array."""
    v = frame[col]
    to_numpy = getattr(v, "to_numpy", None)
    if to_numpy is not None:
        return to_numpy(dtype=np.float64, na_value=np.nan)
    return np.asarray(v, dtype=np.float64)


def rows(frame: Jobs) -> int:
    """Rows of a jobs table: a DataFrame's length, or the length of a mapping's first column
    (0 without columns)."""
    if hasattr(frame, "columns"):
        return len(frame)
    return len(next(iter(frame.values()), ()))


def _job_name(frame: Jobs, i: int) -> str:
    for col in ("job_id", "id"):
        if col in frame:
            return f"job {np.asarray(frame[col])[i]}"
    return f"row {i}"


def _times(frame: Jobs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Checked submit, start, end arrays."""
    if not hasattr(frame, "__getitem__") or not hasattr(frame, "__contains__"):
        raise InputError(
            f"expected a jobs table (DataFrame or mapping), got {type(frame).__name__}"
        )
    missing = [c for c in _REQUIRED if c not in frame]
    if missing:
        raise InputError(
            f"jobs frame is missing column(s) {missing}; metrics need {list(_REQUIRED)}"
        )
    out = []
    for col in ("submit", "start", "end"):
        try:
            a = column(frame, col)
        except (TypeError, ValueError):
            raise InputError(f"column {col!r} must be numeric") from None
        bad = ~np.isfinite(a)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{_job_name(frame, i)} has no finite {col} time ({a[i]!r}): metrics need "
                "finished jobs; filter out jobs that never started or ended"
            )
        out.append(a)
    submit, start, end = out
    for bad, what in (
        (start < submit, "starts before it is submitted"),
        (end < start, "ends before it starts"),
    ):
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{_job_name(frame, i)} {what} (submit {submit[i]}, start {start[i]}, end {end[i]})"
            )
    return submit, start, end


def _cores(frame: Jobs) -> np.ndarray:
    col = "cores" if "cores" in frame else "procs"
    a = column(frame, col)
    bad = ~np.isfinite(a) | (a < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{_job_name(frame, i)} has an invalid {col!r} value {a[i]!r}")
    return a


def _check_tau(tau: float) -> float:
    tau = float(tau)
    if not np.isfinite(tau) or tau <= 0:
        raise InputError(f"bounded-slowdown tau must be a positive number of seconds, got {tau}")
    return tau


def _slowdowns(
    wait_plus_run: np.ndarray, run: np.ndarray, tau: float
) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(divide="ignore", invalid="ignore"):
        slowdown = np.where(run > 0, wait_plus_run / np.where(run > 0, run, 1.0), np.nan)
    bounded = np.maximum(1.0, wait_plus_run / np.maximum(run, tau))
    return slowdown, bounded


def job_columns(
    submit: np.ndarray, start: np.ndarray, end: np.ndarray, *, tau: float = DEFAULT_TAU
) -> dict[str, np.ndarray]:
    """The per-job metric columns: wait, response, run, slowdown, bounded_slowdown.

    Definitions in the module docstring; slowdown is NaN for jobs with run time 0."""
    tau = _check_tau(tau)
    run = end - start
    response = end - submit
    slowdown, bounded = _slowdowns(response, run, tau)
    return {
        "wait": start - submit,
        "response": response,
        "run": run,
        "slowdown": slowdown,
        "bounded_slowdown": bounded,
    }


def job_metrics(frame: pd.DataFrame, *, tau: float = DEFAULT_TAU) -> pd.DataFrame:
    """A copy of ``frame`` with the :func:`job_columns` added (an existing ``run`` column is
    replaced by end - start)."""
    submit, start, end = _times(frame)
    out = frame.copy()
    for name, values in job_columns(submit, start, end, tau=tau).items():
        out[name] = values
    return out


def percentiles(values: np.ndarray, qs: tuple[float, ...]) -> tuple[float, list[float]]:
    """``(np.median(values), np.percentile(values, qs))`` of numbers without NaN, the same
    floats (the same ranks, numpy's linear interpolation and its mean of the two middle values)
    from one partition, without ``np.median`` and ``np.percentile``'s calls to
    ``numpy.ma`` (imported on first use: tens of ms of a short command)."""
    n = len(values)
    virtual = (n - 1) * np.true_divide(np.asarray(qs), 100)
    below = np.floor(virtual)
    top = virtual >= n - 1  # numpy takes the last value (index -1) for both neighbours
    lo = np.where(top, n - 1, below).astype(np.intp)
    hi = np.where(top, n - 1, below + 1).astype(np.intp)
    gamma = virtual - np.where(top, -1.0, below)
    half = n // 2
    middle = [half] if n % 2 else [half - 1, half]
    ordered = np.partition(values, sorted({0, n - 1, *middle, *lo.tolist(), *hi.tolist()}))
    median = float(ordered[middle[0] : middle[-1] + 1].mean())
    a, b = ordered[lo], ordered[hi]
    diff = b - a  # numpy's _lerp: a + diff * t, from b's side where t >= 0.5
    out = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
    return median, [float(x) for x in out]


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """The two float columns hold the same doubles, bit for bit."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != np.float64 or b.dtype != np.float64:
        return False
    return bool(np.array_equal(a.view(np.uint64), b.view(np.uint64)))


def _stats(prefix: str, values: np.ndarray) -> dict[str, float]:
    nan = np.isnan(values)
    if nan.any():  # (no copy when there is none)
        values = values[~nan]
    del nan
    if len(values) == 0:
        return {f"{prefix}_{s}": float("nan") for s in _STATS}
    median, (p90, p95, p99) = percentiles(values, (90, 95, 99))
    return {
        f"{prefix}_mean": float(values.mean()),
        f"{prefix}_median": median,
        f"{prefix}_p90": float(p90),
        f"{prefix}_p95": float(p95),
        f"{prefix}_p99": float(p99),
        f"{prefix}_max": float(values.max()),
    }


def summary(
    frame: pd.DataFrame,
    total_cores: int,
    *,
    tau: float = DEFAULT_TAU,
    per_job: Mapping[str, np.ndarray] | None = None,
    orders: Mapping[str, np.ndarray] | None = None,
) -> dict:
    """Run-level metrics (module docstring) as a flat dict of Python numbers.

    Keys: n_jobs, first_submit, last_end, makespan, utilization,
    utilization_until_queue_empty, throughput_jobs_per_hour
    (NaN when the makespan is 0), slowdown_undefined (jobs with run 0), and for each of wait,
    response, slowdown and bounded_slowdown: ``_mean, _median, _p90, _p95, _p99, _max``
    (e.g. ``wait_p95``). Raises :class:`InputError` for an empty frame or bad values.
    ``per_job``: the frame's :func:`job_columns` (with this ``tau``) when already made, used
    as they are (a simulated result's: no second copy of each). ``orders``: the stable
    orders of the rows by ``"start"`` and by ``"end"`` when already made (the validator's, see
    :func:`step_sum`).
    """
    tau = _check_tau(tau)
    if total_cores is None or int(total_cores) != total_cores or total_cores < 1:
        raise InputError(f"total_cores must be a positive integer, got {total_cores!r}")
    submit, start, end = _times(frame)
    if len(submit) == 0:
        raise InputError("no jobs: cannot summarise an empty jobs frame")
    # each per-job array made when needed and dropped once summarised (a million jobs: the
    # peak is a few of them, not all at once)
    cores = _cores(frame)
    run = end - start if per_job is None else per_job["run"]
    first, last = float(submit.min()), float(end.max())
    makespan = last - first
    work = float((cores * run).sum())  # no BLAS call: its threads spin on after it
    utilization = work / (total_cores * makespan) if makespan > 0 else 0.0
    last_start = float(start.max())
    until_empty = (
        step_sum(start, end, cores, orders=orders).mean(first, last_start) / total_cores
        if last_start > first
        else utilization
    )
    del cores
    throughput = len(submit) / (makespan / 3600.0) if makespan > 0 else float("nan")
    stats = _stats("wait", start - submit if per_job is None else per_job["wait"])
    response = end - submit if per_job is None else per_job["response"]
    stats.update(_stats("response", response))
    if per_job is None:
        slowdown, bounded = _slowdowns(response, run, tau)
    else:
        slowdown, bounded = per_job["slowdown"], per_job["bounded_slowdown"]
    del response, run
    undefined = int(np.isnan(slowdown).sum())
    stats.update(_stats("slowdown", slowdown))
    if _same_bits(slowdown, bounded):  # every job ran at least tau: the same statistics
        stats.update({f"bounded_{k}": v for k, v in stats.items() if k.startswith("slowdown_")})
    else:
        stats.update(_stats("bounded_slowdown", bounded))
    del slowdown
    out: dict = {
        "n_jobs": len(submit),
        "first_submit": first,
        "last_end": last,
        "makespan": makespan,
        "utilization": utilization,
        "utilization_until_queue_empty": until_empty,
        "throughput_jobs_per_hour": throughput,
        "slowdown_undefined": undefined,
    }
    out.update(stats)
    return out


@dataclass(frozen=True)
class Series:
    """A step function: ``v[k]`` holds on ``[t[k], t[k+1])``; 0 before ``t[0]``."""

    t: np.ndarray
    v: np.ndarray

    def __len__(self) -> int:
        return len(self.t)

    def at(self, times: np.ndarray | float) -> np.ndarray:
        """Values at ``times`` (right-continuous: the value after the events at that instant)."""
        k = np.searchsorted(self.t, times, side="right") - 1
        if not len(self.t) or np.ndim(k) == 0:
            return np.where(k >= 0, self.v[np.maximum(k, 0)], 0.0) if len(self.t) else 0.0 * k
        # the same values as that np.where, with one temporary less at a time (a million
        # jobs' series: 16 MB each)
        before = k < 0
        np.maximum(k, 0, out=k)
        out = self.v[k].astype(np.result_type(self.v, 0.0), copy=False)
        del k
        out[before] = 0.0
        return out

    def integral(self, t0: float, t1: float) -> float:
        """Integral of the step function over [t0, t1]."""
        if t1 <= t0 or not len(self.t):
            return 0.0
        t = self.t
        # the instants inside (t0, t1): a slice, t being sorted
        lo = int(np.searchsorted(t, t0, side="right"))
        hi = int(np.searchsorted(t, t1, side="left"))
        edges = np.concatenate(([t0], t[lo:hi], [t1]))
        widths = np.diff(edges)
        del edges
        # the products diff(edges) * at(edges[:-1]), made in place; at an instant inside,
        # at() is that instant's own value when no instant repeats (a step_sum's series): the
        # values themselves, not an index array and a copy of them (a million jobs: 32 MB)
        if hi - lo < 2 or bool((t[lo + 1 : hi] > t[lo : hi - 1]).all()):
            widths[0] *= self.at(t0)
            widths[1:] *= self.v[lo:hi]
        else:
            widths *= self.at(np.concatenate(([t0], t[lo:hi])))
        return float(widths.sum())

    def mean(self, t0: float, t1: float) -> float:
        """Time-weighted mean over [t0, t1]."""
        return self.integral(t0, t1) / (t1 - t0) if t1 > t0 else float(self.at(t0))


def step_sum(
    starts: np.ndarray,
    ends: np.ndarray,
    weights: np.ndarray | float = 1.0,
    *,
    orders: Mapping[str, np.ndarray] | None = None,
) -> Series:
    """Sum of ``weights`` over the intervals [start, end) active at each instant (event sweep:
    the events in time order, starts before ends at a tie, their weights added up; compiled,
    :func:`coschedlab._core.order.step_levels`). Times that are not finite are left out.
    ``orders``: ``{"start": ..., "end": ...}``, the stable orders of ``starts`` and ``ends``
    (:func:`coschedlab._core.order.stable_argsort`'s) when already made: not sorted again
    (checked while read; a wrong one is a ValueError)."""
    from ._core.order import step_levels

    starts = np.ascontiguousarray(starts, dtype=np.float64)
    ends = np.ascontiguousarray(ends, dtype=np.float64)
    w = np.broadcast_to(np.asarray(weights, dtype=np.float64), starts.shape)
    zero = 1e-9 * max(1.0, float(np.abs(w).max(initial=0)))  # a level this small is 0
    by = (None, None) if orders is None else (orders["start"], orders["end"])
    return Series(*step_levels(starts, ends, w, zero, *by))


def used_cores(frame: pd.DataFrame) -> np.ndarray:
    """Cores each job really uses: ``cores`` when present (co-location), else ``procs``."""
    return _cores(frame)


def busy_cores(frame: pd.DataFrame) -> Series:
    """Used cores over time."""
    _, start, end = _times(frame)
    return step_sum(start, end, _cores(frame))


def utilization(frame: pd.DataFrame, total_cores: int) -> Series:
    """Fraction of the machine's cores in use over time (0..1)."""
    _check_total(total_cores)
    s = busy_cores(frame)
    return Series(s.t, s.v / total_cores)


def unused_cores(frame: pd.DataFrame, total_cores: int) -> Series:
    """Cores no job uses over time (idle nodes plus unused cores of allocated nodes)."""
    _check_total(total_cores)
    s = busy_cores(frame)
    return Series(s.t, total_cores - s.v)


def queue_size(frame: pd.DataFrame) -> Series:
    """Waiting jobs (submitted, not yet started) over time; a job started at its submit time
    is never counted."""
    submit, start, _ = _times(frame)
    return step_sum(submit, start)


def running_jobs(frame: pd.DataFrame) -> Series:
    """Running jobs over time."""
    _, start, end = _times(frame)
    return step_sum(start, end)


def throughput(frame: pd.DataFrame) -> Series:
    """Cumulative finished jobs over time (the ELiSE paper's throughput)."""
    _, _, end = _times(frame)
    return step_sum(end, np.full_like(end, np.inf))


def _check_total(total_cores: int) -> None:
    if total_cores is None or int(total_cores) != total_cores or total_cores < 1:
        raise InputError(f"total_cores must be a positive integer, got {total_cores!r}")


def simulator_speed(makespan_s: float, wall_s: float, n_jobs: int) -> dict[str, float]:
    """Simulator speed as the ELiSE paper publishes it.

    ``days_per_hour`` = (makespan_s / 86400) / (wall_s / 3600), days of simulated makespan per
    wall-clock hour, and ``jobs_per_s`` = n_jobs / wall_s.
    """
    if not wall_s > 0:
        raise InputError(f"wall-clock time must be positive, got {wall_s!r}")
    return {
        "days_per_hour": (makespan_s / 86400.0) / (wall_s / 3600.0),
        "jobs_per_s": n_jobs / wall_s,
    }


def colocation_summary(frame: Jobs, cluster: Cluster | None = None) -> dict[str, float]:
    """Co-location metrics (the ELiSE paper, section 4): job speedup = compact time / actual
    time (mean, median), the share of jobs slower than compact (speedup below
    ``1 - SPEEDUP_TOLERANCE``), the share killed at their walltime and the share spread.

    Why co-location could not act, for a run on shared nodes (:func:`spread_reasons`):
    ``shared_share`` (jobs that shared a node with another job), and job counts
    ``too_large_to_spread``, ``compact_by_choice``, ``spread_alone`` and ``unknown_app``.
    """
    out: dict[str, float] = {}
    if "speedup" in frame:
        s = column(frame, "speedup")
        s = s[np.isfinite(s)]
        if len(s):
            out["speedup_mean"] = float(s.mean())
            out["speedup_median"] = float(np.median(s))
            out["slower_than_compact"] = float((s < 1.0 - SPEEDUP_TOLERANCE).mean())
    if "killed" in frame:
        killed = np.asarray(frame["killed"], dtype=bool)
        if len(killed):
            out["killed_share"] = float(killed.mean())
    if "placement" in frame:
        placement = np.asarray(frame["placement"])
        if len(placement):
            out["spread_share"] = float((placement == "spread").mean())
            out.update(spread_reasons(frame, cluster))
    return out


def spread_reasons(frame: Jobs, cluster: Cluster | None = None) -> dict[str, float]:
    """Why jobs of a run on shared nodes (a ``placement`` column) were not spread, or spread
    without effect. Counts of jobs, each under one reason:

    * ``too_large_to_spread``: compact, and too large to be spread on ``cluster`` (their spread
      form needs more nodes than it has; needs ``cluster``);
    * ``compact_by_choice``: compact though they could be spread (a compact scheduler such as
      ``easy``, ``placement=compact``, or ``fallback=true`` when nothing was free to spread);
    * ``spread_alone``: spread, but no other job ever ran on their nodes (nothing to pair
      with: the queue was empty);

    and ``unknown_app`` (any placement): jobs whose application is not in the pool or heatmap,
    which run at speedup 1. ``shared_share`` = share of jobs that shared a node.
    """
    placement = np.asarray(frame["placement"])
    out: dict[str, float] = {}
    if not len(placement):
        return out
    compact = placement == "compact"
    if cluster is not None and "procs" in frame:
        large = compact & too_large_to_spread(column(frame, "procs"), cluster)
        out["too_large_to_spread"] = int(large.sum())
        out["compact_by_choice"] = int((compact & ~large).sum())
    if "neighbours" in frame:
        met = column(frame, "neighbours") > 0
        out["shared_share"] = float(met.mean())
        out["spread_alone"] = int(((placement == "spread") & ~met).sum())
    if "in_pool" in frame:
        out["unknown_app"] = int((~np.asarray(frame["in_pool"], dtype=bool)).sum())
    return out


def improvement(frame: Jobs, baseline: Jobs) -> dict[str, float]:
    """Improvement (%) of a run over a baseline run of the same workload: makespan, mean
    turnaround and mean wait; positive = better than the baseline (the ELiSE paper, Fig. 9 and
    Table 2)."""

    def pct(base: float, new: float) -> float:
        return 100.0 * (base - new) / base if base else float("nan")

    (sa, ba, ea), (sb, bb, eb) = _times(frame), _times(baseline)
    return {
        "makespan_improvement": pct(float(eb.max() - sb.min()), float(ea.max() - sa.min())),
        "turnaround_improvement": pct(float((eb - sb).mean()), float((ea - sa).mean())),
        "wait_improvement": pct(float((bb - sb).mean()), float((ba - sa).mean())),
    }


# -- per user, group, queue, partition ---------------------------------------------------------
#: The SWF's "unknown" value of the user, group, queue and partition fields.
UNKNOWN = -1
#: The job-table columns :func:`group_metrics` summarises, each under the key ``by_<column>``.
GROUP_COLUMNS = ("user", "group", "queue", "partition")
#: The columns of a :func:`by_group` table, in order.
GROUP_METRICS = (
    "jobs", "core_hours", "core_share", "wait_mean", "wait_p95", "bounded_slowdown_mean",
    "response_mean", "killed",
)  # fmt: skip


def by_group(frame: Jobs, col: str, *, tau: float = DEFAULT_TAU) -> pd.DataFrame:
    """Metrics per value of ``col`` (``user``, ``group``, ``queue``, ``partition`` or any
    whole-number column), one row each, indexed by that value, by core-hours (descending, then
    by value).

    Columns (:data:`GROUP_METRICS`): ``jobs``; ``core_hours`` = sum of cores_j * r_j / 3600
    (cores as in :func:`used_cores`, so the core-hours of all rows over the machine's core-hours
    in the makespan is the utilization); ``core_share`` = the row's share of all jobs'
    core-hours (NaN when they are 0); ``wait_mean``, ``wait_p95``, ``bounded_slowdown_mean``,
    ``response_mean`` as in :func:`summary` (same definitions and percentile rule);
    ``killed`` = jobs killed at their walltime (only when the frame has a ``killed`` column).
    The SWF's unknown value -1 (:data:`UNKNOWN`) is a row like any other
    (:func:`group_label` names it).
    """
    import pandas as pd

    values, table = _group_columns(frame, col, tau)
    out = pd.DataFrame(table, index=pd.Index(values, name=col))
    return out


def _group_columns(
    frame: Jobs,
    col: str,
    tau: float = DEFAULT_TAU,
    per_job: dict | None = None,
    wait_order: np.ndarray | None = None,
    done: list | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """:func:`by_group` in NumPy: (the values of ``col``, one per row, and the columns), rows
    by core-hours (descending, then by value). Sums and means add each group's jobs in table
    order with Kahan compensation and the 95th percentile interpolates linearly, as pandas'
    groupby does, so that metrics.json is the same with or without pandas. ``per_job``: the
    frame's :func:`job_columns` when already made, ``wait_order`` the stable order of its
    waits (one table grouped by several columns). ``done``: a list of ``(labels, columns)``
    of the columns of the same frame grouped before (this one's is added): a column whose
    jobs fall into the same groups in the same order (the labels equal, e.g. two columns of
    one value, the SWF's -1) has the same per-group columns, taken from there."""
    if per_job is None:
        per_job = job_columns(*_times(frame), tau=tau)
    if col not in frame:
        raise InputError(f"jobs frame has no column {col!r} to group by")
    key = frame[col]
    if not (isinstance(key, np.ndarray) and key.dtype in (np.int32, np.int64)):
        try:  # (a result's labels are whole numbers already: no float copy to check)
            key = column(frame, col)
        except (TypeError, ValueError):
            raise InputError(f"column {col!r} must hold whole numbers") from None
        if not (np.isfinite(key).all() and (key == np.round(key)).all()):
            raise InputError(f"column {col!r} must hold whole numbers (SWF: -1 for unknown)")
        key = key.astype(np.int64)
    values, labels = _unique_inverse(key)
    for seen, columns in done or ():
        if np.array_equal(seen, labels):  # the same groups: the same sums, bit for bit
            return _group_rows(values, columns)
    out = _group_sums_of(frame, labels, len(values), per_job, wait_order)
    if done is not None:  # (the labels kept in the smallest type: a million jobs, 1 MB)
        done.append((labels.astype(np.min_scalar_type(max(len(values) - 1, 0))), out))
    return _group_rows(values, out)


def _group_rows(
    values: np.ndarray, out: dict[str, np.ndarray]
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The groups' values and columns, rows by core-hours (descending, then by value)."""
    rows = np.lexsort((values, -out["core_hours"]))
    return values[rows], {name: v[rows] for name, v in out.items()}


def _group_sums_of(
    frame: Jobs, labels: np.ndarray, n: int, per_job: Mapping, wait_order: np.ndarray | None
) -> dict[str, np.ndarray]:
    """The per-group columns of :func:`_group_columns` for the ``n`` groups of ``labels``,
    in label order."""
    count = np.bincount(labels, minlength=n).astype(np.int64)
    core_hours = _group_sums(labels, used_cores(frame) * per_job["run"], n) / 3600.0
    total = float(core_hours.sum())
    out = {
        "jobs": count,
        "core_hours": core_hours,
        "core_share": core_hours / total if total > 0 else np.full(n, np.nan),
        "wait_mean": _group_sums(labels, per_job["wait"], n) / count,
        "wait_p95": _group_quantile(labels, per_job["wait"], count, 0.95, wait_order),
        "bounded_slowdown_mean": _group_sums(labels, per_job["bounded_slowdown"], n) / count,
        "response_mean": _group_sums(labels, per_job["response"], n) / count,
    }
    if "killed" in frame:
        killed = np.asarray(frame["killed"], dtype=bool)
        out["killed"] = np.bincount(labels, weights=killed, minlength=n).astype(np.int64)
    return out


def _unique_inverse(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` of whole numbers: counted over their range when
    it is small (user, group, queue numbers: no sort), else NumPy's."""
    from ._core.kahan import range_labels  # compiled: the count over the range

    if key.dtype not in (np.int32, np.int64):
        key = key.astype(np.int64)
    found = range_labels(np.ascontiguousarray(key), 1024)
    if found is not None:
        return found
    values, labels = np.unique(key, return_inverse=True)
    return values.astype(np.int64, copy=False), labels


def _group_sums(labels: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Per-label sums, each label's values added in row order with Kahan compensation (the
    rule of pandas' groupby sum and mean), compiled. (Whole numbers whose total stays below
    2**53 add up exactly, the compensation staying 0: the same bits as ``np.bincount``'s
    plain sums, which this used for them after a check that cost more than the loop.)"""
    from ._core.kahan import group_sums  # the sequential loop, compiled

    labels = np.ascontiguousarray(labels, dtype=np.int64)
    return group_sums(labels, np.ascontiguousarray(values, dtype=np.float64), n)


def _group_quantile(
    labels: np.ndarray,
    values: np.ndarray,
    count: np.ndarray,
    q: float,
    by_value: np.ndarray | None = None,
) -> np.ndarray:
    """Per-label quantile ``q``, linear between the two nearest ranks (val + (next - val) *
    frac, as pandas' groupby quantile computes it; the percentile rule of :func:`summary`).
    ``by_value``: ``np.argsort(values, kind="stable")`` when already made."""
    from ._core.kahan import ordered_by_group  # compiled: a counting sort

    values = np.ascontiguousarray(values, dtype=np.float64)
    if by_value is None:
        by_value = np.argsort(values, kind="stable")
    # by label, then by value (ties in row order): np.lexsort((values, labels)), the value
    # sort shared by the columns a table is grouped by
    ordered = ordered_by_group(
        np.ascontiguousarray(labels, dtype=np.int64), values,
        np.ascontiguousarray(by_value, dtype=np.int64), np.asarray(count, dtype=np.int64),
    )  # fmt: skip
    first = np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.int64)
    pos = q * (count - 1).astype(np.float64)
    lo = first + pos.astype(np.int64)
    frac = pos % 1.0
    val = ordered[lo]
    nxt = ordered[np.minimum(lo + 1, len(ordered) - 1)]
    return np.where(frac == 0.0, val, val + (nxt - val) * frac)


def group_label(value: int) -> str:
    """How a user, group, queue or partition number is shown: ``unknown`` for the SWF's -1."""
    return "unknown" if value == UNKNOWN else str(value)


def group_metrics(
    frame: Jobs,
    columns: tuple[str, ...] = GROUP_COLUMNS,
    *,
    tau: float = DEFAULT_TAU,
    per_job: Mapping[str, np.ndarray] | None = None,
) -> dict[str, dict[str, list]]:
    """:func:`by_group` for each of ``columns`` the frame has, as metrics.json stores them:
    ``{"by_user": {"user": [ids...], "jobs": [...], "core_hours": [...], ...}, ...}``, one list
    per column in :func:`by_group`'s row order (compact: one entry per user), NaN as None.
    :func:`group_frame` turns one back into the table. ``per_job``: as :func:`summary`'s."""
    from ._core.order import stable_argsort  # np.argsort(kind="stable")'s order, compiled

    out: dict[str, dict[str, list]] = {}
    wait_order = None
    done: list = []  # the groupings made: a column grouped as an earlier one reuses its sums
    for col in columns:
        if col not in frame:
            continue
        if wait_order is None:
            if per_job is None:
                per_job = job_columns(*_times(frame), tau=tau)
            wait_order = stable_argsort(np.ascontiguousarray(per_job["wait"], dtype=float))
        keys, table = _group_columns(frame, col, tau, per_job, wait_order, done)
        entry: dict[str, list] = {col: keys.astype(np.int64).tolist()}
        for name, values in table.items():
            if values.dtype.kind in "iub":
                entry[name] = values.astype(np.int64).tolist()
            else:  # Python floats (as float(v)), None where not finite
                entry[name] = values.astype(np.float64).tolist()
                for k in np.flatnonzero(~np.isfinite(values)).tolist():
                    entry[name][k] = None
        out[f"by_{col}"] = entry
    return out


def group_frame(stored: Mapping[str, list], col: str) -> pd.DataFrame:
    """The :func:`by_group` table of ``col`` back from its :func:`group_metrics` form (None as
    NaN)."""
    import pandas as pd

    if col not in stored:
        raise InputError(f"stored per-{col} metrics have no {col!r} list")
    frame = pd.DataFrame(dict(stored))
    for name in frame.columns:
        whole = name in (col, "jobs", "killed")
        frame[name] = frame[name].astype(np.int64 if whole else np.float64)
    return frame.set_index(col)


def group_table(table: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The first ``n`` rows of a :func:`by_group` table (the largest users of core-hours) as a
    table to show: the user (group, ...) labelled by :func:`group_label`, core-hours, share in
    %, waits in hours, the bounded slowdown and, when known, the killed jobs. When rows are
    left out, a last row ``others (K)`` gives their jobs, core-hours, share, mean wait and mean
    bounded slowdown (no p95: it cannot be combined from the rows)."""
    import pandas as pd

    if n < 1:
        raise InputError(f"the number of rows to show must be at least 1, got {n}")
    col = table.index.name or "group"
    top = table.iloc[:n]
    shown = pd.DataFrame(
        {
            col: [group_label(int(v)) for v in top.index],
            "jobs": top["jobs"].to_numpy(),
            "core_h": top["core_hours"].to_numpy(),
            "share_%": 100.0 * top["core_share"].to_numpy(),
            "wait_h": top["wait_mean"].to_numpy() / 3600.0,
            "wait_p95_h": top["wait_p95"].to_numpy() / 3600.0,
            "bsld": top["bounded_slowdown_mean"].to_numpy(),
        }
    )
    if "killed" in table:
        shown["killed"] = top["killed"].to_numpy()
    rest = table.iloc[n:]
    if len(rest):
        row = {c: np.nan for c in shown.columns}
        row.update(
            {
                col: f"others ({len(rest)})",
                "jobs": int(rest["jobs"].sum()),
                "core_h": float(rest["core_hours"].sum()),
                "share_%": 100.0 * float(rest["core_share"].sum()),
                # means over the left-out jobs (each row's mean weighted by its jobs)
                "wait_h": _weighted(rest["wait_mean"], rest["jobs"]) / 3600.0,
                "bsld": _weighted(rest["bounded_slowdown_mean"], rest["jobs"]),
            }
        )
        if "killed" in table:
            row["killed"] = int(rest["killed"].sum())
        shown = pd.concat([shown, pd.DataFrame([row])], ignore_index=True)
    return shown


def _weighted(values: pd.Series, weights: pd.Series) -> float:
    w = weights.to_numpy(dtype=np.float64)
    return float(np.dot(values.to_numpy(dtype=np.float64), w) / w.sum()) if w.sum() else np.nan
