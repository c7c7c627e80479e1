"""Per-job metrics, run summaries and time series for plots (REFERENCE.md section 1, "Metrics").

Input is a jobs DataFrame with columns ``submit``, ``start``, ``end`` and ``procs`` (and
optionally ``cores``, the cores really assigned to the job, used instead of ``procs`` for
utilization; and ``job_id`` or ``id`` to name jobs in error messages). Times are seconds.

Definitions (REFERENCE.md section 1), for job j with submit s, start b, end e:

* run r = e - b; wait = b - s; response (turnaround) = e - s;
* slowdown = (e - s) / r. **Rule for r == 0**: the slowdown is undefined and set to NaN; such
  jobs are left out of the slowdown statistics of :func:`summary` (which reports how many in
  ``slowdown_undefined``). Bounded slowdown is the measure that covers them;
* bounded slowdown = max(1, (e - s) / max(r, tau)), tau = 10 s by default;
* makespan = max e - min s; utilization = sum(cores_j * r_j) / (total cores * makespan)
  (0 when the makespan is 0);
* throughput = cumulative finished jobs over time (ELiSE), and jobs per hour of makespan;
* simulator speed = days of simulated makespan per wall-clock hour, with jobs per second.

Percentiles use NumPy's default (linear interpolation between order statistics).
Everything is vectorised: a million-job frame takes a fraction of a second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import InputError

__all__ = [
    "DEFAULT_TAU",
    "job_metrics",
    "queue_length_series",
    "running_series",
    "simulator_speed",
    "summary",
    "throughput_series",
    "utilization_series",
]

#: Default bounded-slowdown threshold tau, in seconds (REFERENCE.md section 1).
DEFAULT_TAU = 10.0
_STATS = ("mean", "median", "p90", "p95", "p99", "max")
_REQUIRED = ("submit", "start", "end", "procs")


def _job_name(frame: pd.DataFrame, i: int) -> str:
    for col in ("job_id", "id"):
        if col in frame.columns:
            return f"job {frame[col].iloc[i]}"
    return f"row {i}"


def _times(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Checked submit, start, end arrays."""
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame of jobs, got {type(frame).__name__}")
    missing = [c for c in _REQUIRED if c not in frame.columns]
    if missing:
        raise InputError(
            f"jobs frame is missing column(s) {missing}; metrics need {list(_REQUIRED)}"
        )
    out = []
    for col in ("submit", "start", "end"):
        try:
            a = frame[col].to_numpy(dtype=np.float64, na_value=np.nan)
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


def _cores(frame: pd.DataFrame) -> np.ndarray:
    col = "cores" if "cores" in frame.columns else "procs"
    a = frame[col].to_numpy(dtype=np.float64, na_value=np.nan)
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


def job_metrics(frame: pd.DataFrame, *, tau: float = DEFAULT_TAU) -> pd.DataFrame:
    """A copy of ``frame`` with columns wait, response, run, slowdown, bounded_slowdown added.

    Definitions in the module docstring (REFERENCE.md section 1); slowdown is NaN for jobs
    with run time 0. An existing ``run`` column is replaced by end - start.
    """
    tau = _check_tau(tau)
    submit, start, end = _times(frame)
    out = frame.copy()
    run = end - start
    response = end - submit
    slowdown, bounded = _slowdowns(response, run, tau)
    out["wait"] = start - submit
    out["response"] = response
    out["run"] = run
    out["slowdown"] = slowdown
    out["bounded_slowdown"] = bounded
    return out


def _stats(prefix: str, values: np.ndarray) -> dict[str, float]:
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return {f"{prefix}_{s}": float("nan") for s in _STATS}
    p90, p95, p99 = np.percentile(values, [90, 95, 99])
    return {
        f"{prefix}_mean": float(values.mean()),
        f"{prefix}_median": float(np.median(values)),
        f"{prefix}_p90": float(p90),
        f"{prefix}_p95": float(p95),
        f"{prefix}_p99": float(p99),
        f"{prefix}_max": float(values.max()),
    }


def summary(frame: pd.DataFrame, total_cores: int, *, tau: float = DEFAULT_TAU) -> dict:
    """Run-level metrics (REFERENCE.md section 1) as a flat dict of Python numbers.

    Keys: n_jobs, first_submit, last_end, makespan, utilization, throughput_jobs_per_hour
    (NaN when the makespan is 0), slowdown_undefined (jobs with run 0), and for each of wait,
    response, slowdown and bounded_slowdown: ``_mean, _median, _p90, _p95, _p99, _max``
    (e.g. ``wait_p95``). Raises :class:`InputError` for an empty frame or bad values.
    """
    tau = _check_tau(tau)
    if total_cores is None or int(total_cores) != total_cores or total_cores < 1:
        raise InputError(f"total_cores must be a positive integer, got {total_cores!r}")
    submit, start, end = _times(frame)
    if len(submit) == 0:
        raise InputError("no jobs: cannot summarise an empty jobs frame")
    cores = _cores(frame)
    run = end - start
    response = end - submit
    wait = start - submit
    slowdown, bounded = _slowdowns(response, run, tau)
    first, last = float(submit.min()), float(end.max())
    makespan = last - first
    work = float(np.dot(cores, run))
    utilization = work / (total_cores * makespan) if makespan > 0 else 0.0
    throughput = len(submit) / (makespan / 3600.0) if makespan > 0 else float("nan")
    out: dict = {
        "n_jobs": len(submit),
        "first_submit": first,
        "last_end": last,
        "makespan": makespan,
        "utilization": utilization,
        "throughput_jobs_per_hour": throughput,
        "slowdown_undefined": int(np.isnan(slowdown).sum()),
    }
    for name, values in (
        ("wait", wait),
        ("response", response),
        ("slowdown", slowdown),
        ("bounded_slowdown", bounded),
    ):
        out.update(_stats(name, values))
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
        return np.where(k >= 0, self.v[np.maximum(k, 0)], 0.0) if len(self.t) else 0.0 * k

    def integral(self, t0: float, t1: float) -> float:
        """Integral of the step function over [t0, t1]."""
        if t1 <= t0 or not len(self.t):
            return 0.0
        inside = (self.t > t0) & (self.t < t1)
        edges = np.concatenate(([t0], self.t[inside], [t1]))
        return float((np.diff(edges) * self.at(edges[:-1])).sum())

    def mean(self, t0: float, t1: float) -> float:
        """Time-weighted mean over [t0, t1]."""
        return self.integral(t0, t1) / (t1 - t0) if t1 > t0 else float(self.at(t0))

    def resample(self, max_points: int) -> Series:
        """At most ``max_points`` points on a regular grid (for interactive plots)."""
        if len(self.t) <= max_points:
            return self
        grid = np.linspace(self.t[0], self.t[-1], max_points)
        return Series(grid, self.at(grid))


def step_sum(starts: np.ndarray, ends: np.ndarray, weights: np.ndarray | float = 1.0) -> Series:
    """Sum of ``weights`` over the intervals [start, end) active at each instant (event sweep)."""
    starts = np.asarray(starts, dtype=np.float64)
    ends = np.asarray(ends, dtype=np.float64)
    w = np.broadcast_to(np.asarray(weights, dtype=np.float64), starts.shape)
    times = np.concatenate((starts, ends))
    delta = np.concatenate((w, -w))
    ok = np.isfinite(times)
    times, delta = times[ok], delta[ok]
    if not len(times):
        return Series(np.zeros(0), np.zeros(0))
    order = np.argsort(times, kind="stable")
    times, level = times[order], np.cumsum(delta[order])
    last = np.r_[times[1:] != times[:-1], True]  # last event of each instant
    v = level[last]
    v[np.abs(v) < 1e-9 * max(1.0, float(np.abs(w).max(initial=0)))] = 0.0
    return Series(times[last], v)


def queue_length_series(frame: pd.DataFrame) -> pd.DataFrame:
    """Jobs submitted but not yet started, as a step function: DataFrame(time, queued).

    One row per distinct submit/start time; ``queued`` holds from that time until the next row.
    A job started at its submit time is never counted.
    """
    submit, start, _ = _times(frame)
    s = step_sum(submit, start)
    return pd.DataFrame({"time": s.t, "queued": s.v.round().astype(np.int64)})


def running_series(frame: pd.DataFrame) -> pd.DataFrame:
    """Jobs running, as a step function: DataFrame(time, running), one row per start/end time."""
    _, start, end = _times(frame)
    s = step_sum(start, end)
    return pd.DataFrame({"time": s.t, "running": s.v.round().astype(np.int64)})


def utilization_series(frame: pd.DataFrame, total_cores: int) -> pd.DataFrame:
    """Busy cores over time: DataFrame(time, busy_cores, utilization = busy / total_cores).

    Uses the ``cores`` column when present, else ``procs``; a step function with one row per
    distinct start/end time.
    """
    if total_cores is None or int(total_cores) != total_cores or total_cores < 1:
        raise InputError(f"total_cores must be a positive integer, got {total_cores!r}")
    _, start, end = _times(frame)
    cores = _cores(frame)
    s = step_sum(start, end, cores)
    t, busy = s.t, s.v
    if np.all(cores == np.round(cores)):
        busy = np.round(busy).astype(np.int64)
    return pd.DataFrame({"time": t, "busy_cores": busy, "utilization": busy / total_cores})


def throughput_series(frame: pd.DataFrame) -> pd.DataFrame:
    """Cumulative finished jobs over time (ELiSE's throughput): DataFrame(time, finished)."""
    _, _, end = _times(frame)
    s = step_sum(end, np.full_like(end, np.inf))
    return pd.DataFrame({"time": s.t, "finished": s.v.round().astype(np.int64)})


def simulator_speed(makespan_s: float, wall_s: float, n_jobs: int) -> dict[str, float]:
    """Simulator speed as published (REFERENCE.md section 1).

    ``days_per_hour`` = (makespan_s / 86400) / (wall_s / 3600), days of simulated makespan per
    wall-clock hour, and ``jobs_per_s`` = n_jobs / wall_s.
    """
    if not wall_s > 0:
        raise InputError(f"wall-clock time must be positive, got {wall_s!r}")
    return {
        "days_per_hour": (makespan_s / 86400.0) / (wall_s / 3600.0),
        "jobs_per_s": n_jobs / wall_s,
    }


def colocation_summary(frame: pd.DataFrame) -> dict[str, float]:
    """Co-location metrics (ELiSE section 4): job speedup = compact time / actual time, the
    share of jobs slower than compact (speedup < 1), and the share killed at their walltime."""
    out: dict[str, float] = {}
    if "speedup" in frame:
        s = frame["speedup"].to_numpy(dtype=float)
        s = s[np.isfinite(s)]
        if len(s):
            out["speedup_mean"] = float(s.mean())
            out["speedup_median"] = float(np.median(s))
            out["slower_than_compact"] = float((s < 1.0 - 1e-12).mean())
    if "killed" in frame and len(frame):
        out["killed_share"] = float(frame["killed"].to_numpy(dtype=bool).mean())
    if "placement" in frame and len(frame):
        out["spread_share"] = float((frame["placement"] == "spread").mean())
    return out


def improvement(frame: pd.DataFrame, baseline: pd.DataFrame) -> dict[str, float]:
    """Improvement (%) of a run over a baseline run of the same workload: makespan, mean
    turnaround and mean wait; positive = better than the baseline (ELiSE Fig. 9, Table 2)."""

    def pct(base: float, new: float) -> float:
        return 100.0 * (base - new) / base if base else float("nan")

    a, b = job_metrics(frame), job_metrics(baseline)
    span = lambda f: float(f["end"].max() - f["submit"].min())  # noqa: E731
    return {
        "makespan_improvement": pct(span(b), span(a)),
        "turnaround_improvement": pct(float(b["response"].mean()), float(a["response"].mean())),
        "wait_improvement": pct(float(b["wait"].mean()), float(a["wait"].mean())),
    }
