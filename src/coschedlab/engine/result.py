"""What a run produced: the per-job table, the summary metrics and the writers."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..intervals import AllocColumn
from ..jobs import take
from ..jsonsafe import json_safe as _jsonable
from ..metrics import _times, group_metrics, job_columns, rows
from ..platform import Cluster

if TYPE_CHECKING:  # pragma: no cover (pandas is imported when a table is asked for)
    import pandas as pd

    from .kernel import Simulation

# Columns of Result.jobs, in order (docs/semantics.md describes each).
JOB_TABLE_COLUMNS = (
    "job_id", "submit", "start", "end", "wait", "response", "run", "requested_time", "procs",
    "nodes", "alloc", "user", "group", "app", "queue", "partition", "status", "killed",
    "slowdown", "bounded_slowdown", "reservation", "start_pass",
)  # fmt: skip


class _JobsFrame:
    """``Result.jobs``: the pandas table, made from :attr:`Result.columns` on first use, so
    that a run that only writes its files (the ``simulate`` command) never imports pandas."""

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:  # no class-level default: ``jobs`` stays a required field
            raise AttributeError("jobs")
        frame = obj.__dict__.get("jobs")
        if frame is None and obj.columns is not None:
            import pandas as pd

            columns = {
                name: np.asarray(v) if isinstance(v, AllocColumn) else v
                for name, v in obj.columns.items()
            }
            frame = obj.__dict__["jobs"] = pd.DataFrame(columns)
        return frame

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__["jobs"] = value


#: the columns the per-job metrics are computed from (and named by, in an error)
_TIME_COLUMNS = ("job_id", "submit", "start", "end", "procs")


@dataclass
class Result:
    """The outcome of one simulation.

    ``jobs`` has one row per job (see :data:`JOB_TABLE_COLUMNS`), in (submit, id) order;
    ``metrics`` the summary (:mod:`coschedlab.metrics`) plus the simulator's own speed.
    A simulated result holds the table as NumPy :attr:`columns` and makes ``jobs`` from them
    when first asked.
    """

    jobs: pd.DataFrame = _JobsFrame()  # type: ignore[assignment]
    cluster: Cluster
    scheduler: str
    wall_time: float = math.nan
    passes: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    header: dict[str, str] = field(default_factory=dict)
    #: what the scheduler promises (:attr:`coschedlab.schedulers.Scheduler.guarantees`): the
    #: validator checks these invariants on top of the ones every schedule keeps
    guarantees: tuple[str, ...] = ()
    #: the summary as stored in metrics.json (a loaded result); None: computed from ``jobs``
    stored_metrics: dict[str, Any] | None = None
    #: the per-user/group/queue/partition metrics as stored in metrics.json (``by_user``, ...;
    #: a loaded result); None: computed from ``jobs``
    stored_groups: dict[str, Any] | None = None
    #: the input's run times (table order) when the kernel ran every job at its trace speed
    #: (no co-location speed model); the validator checks each job's run against them. None:
    #: a loaded result or a speed model that changes durations
    input_run: np.ndarray | None = None
    #: ``(slowest, fastest)`` speedup each job may have run at, from a speed model that
    #: changes durations (co-location: :meth:`.speed.SpeedModel.speed_range`); None: speedup 1
    speed_range: tuple[np.ndarray, np.ndarray] | None = None
    #: the per-job table as NumPy arrays, in :attr:`jobs`' column order (a simulated result;
    #: None for a loaded one): the metrics, the validator and the writers read these
    columns: dict[str, np.ndarray] | None = None

    @property
    def table(self) -> Any:
        """The per-job table as the metrics, validator and writers read it: :attr:`jobs` once
        it has been made (it may have been changed), else the NumPy :attr:`columns`."""
        frame = self.__dict__.get("jobs")
        return frame if frame is not None or self.columns is None else self.columns

    @property
    def n_jobs(self) -> int:
        """Rows of the per-job table."""
        return rows(self.table)

    @classmethod
    def from_simulation(cls, sim: Simulation, *, metrics_later: bool = False) -> Result:
        """Collect a finished :class:`Simulation` into a table. ``metrics_later``: the per-job
        metric columns (wait, response, run, slowdowns) are left to
        :meth:`fill_job_metrics`, for a caller that lets the kernel go first (a million jobs:
        their 40 MB not on top of the kernel's memory)."""
        w = sim.workload
        order = sim.order
        cols = w.columns
        if sim.in_order:
            # the trace is in queue order already (most are): the workload's columns as they
            # are when it froze them (the command: a million jobs, ~100 MB less), else copies
            order = slice(None)
            cols = {name: _shared(a) for name, a in cols.items()}
        start = np.asarray(sim.start, dtype=np.float64)
        end = np.asarray(sim.end, dtype=np.float64)
        submit = np.asarray(sim.submit, dtype=np.float64)
        acct = sim.acct
        frame: dict[str, Any] = {
            "job_id": np.asarray(sim.ids, dtype=np.int64),
            "submit": submit,
            "start": start,
            "end": end,
            "requested_time": np.asarray(sim.req, dtype=np.float64),
            "procs": np.asarray(sim.procs, dtype=np.int64),
            "nodes": np.asarray(sim.nodes, dtype=np.int64),
            "alloc": acct.alloc_column(sim.n),  # intervals: the texts are made when written
            "user": take(cols["user"], order),
            "group": take(cols["group"], order),
            "app": take(cols["app"], order),
            "queue": take(cols["queue"], order),
            "partition": take(cols["partition"], order),
            "status": take(cols["status"], order),
            "killed": np.frombuffer(sim.killed, dtype=np.uint8).astype(bool),
            # the finished kernel's own arrays, as start and end (no copy made beside them)
            "reservation": np.frombuffer(sim.reservation, dtype=np.float64),
            "start_pass": np.frombuffer(sim.start_pass, dtype=np.int64),
        }
        deps = sim.dependency_texts()
        if deps is not None:
            frame["deps"] = deps[0]  # (an object column, made by the kernel)
            frame["think"] = np.asarray(deps[1], dtype=np.float64)
        if acct.shared:
            frame["nodes"] = acct.node_counts(sim.n)
            node_cores = np.asarray(acct.cores, dtype=np.int64)
            frame["node_cores"] = node_cores
            frame["cores"] = node_cores * frame["nodes"]
            frame["placement"] = np.where(
                node_cores == sim.cluster.cores_per_node, "compact", "spread"
            ).astype(object)
            # the order jobs took their cores in (which cores of a shared node each got)
            rank = np.full(sim.n, -1, dtype=np.int64)
            rank[np.frombuffer(sim.start_order, dtype=np.int64)] = np.arange(
                len(sim.start_order), dtype=np.int64
            )
            frame["start_rank"] = rank
        extra_cols = list(w.extra)
        for name, arr in w.extra.items():
            frame[name] = _shared(arr) if isinstance(order, slice) else take(arr, order)
        model_cols = sim.speed_model.result_columns()
        speeds = sim.speed_model.speed_range() if sim.speed_model.dynamic else None
        for name, arr in model_cols.items():
            frame[name] = np.asarray(arr)
        if not metrics_later:
            _job_metric_columns(frame, getattr(sim, "truncated", False))
        names = (
            list(JOB_TABLE_COLUMNS)
            + [c for c in ("deps", "think", "node_cores", "cores", "placement") if c in frame]
            + list(model_cols)
            + extra_cols
        )
        result = cls(
            jobs=None,
            columns={name: frame.get(name) for name in names},
            cluster=sim.cluster,
            scheduler=sim.scheduler.describe(),
            wall_time=sim.wall_time,
            passes=sim.passes,
            options=sim.info(),
            header=dict(w.header),
            guarantees=_names(getattr(sim.scheduler, "guarantees", ())),
            # read-only over the kernel's immutable bytes: no copy; a model that changes
            # durations and gives no bounds on them: nothing to check against
            input_run=None
            if sim.speed_model.dynamic and speeds is None
            else np.frombuffer(sim.input_run, dtype=np.float64),
            speed_range=speeds,
        )
        # the kernel's orders of starts and of ends (time order, ties as they came): the
        # stable orders of the start and end columns are made from them in a pass each
        # (:meth:`_time_orders`, checked there), not sorted again; kept in 32 bits (4 bytes a
        # job, not the kernel's 8, while the result waits for its validation)
        if sim.n < 2**31:
            result.__dict__["_order_hints"] = {
                "start": np.frombuffer(sim.start_order, dtype=np.int64).astype(np.int32),
                "end": np.frombuffer(sim.end_order, dtype=np.int64).astype(np.int32),
            }
        return result

    def fill_job_metrics(self) -> None:
        """Make the per-job metric columns a result made with ``from_simulation(...,
        metrics_later=True)`` left empty."""
        if self.columns is not None and self.columns.get("wait") is None:
            _job_metric_columns(self.columns, bool(self.options.get("truncated")))

    def narrow_counts(self) -> None:
        """The per-job ``nodes`` and ``start_pass`` columns in 32 bits when their values fit
        (a million jobs: 8 MB less once the kernel's own int64 arrays are let go); jobs.parquet
        writes them as int64 all the same (:data:`coschedlab.outputs.INT64_COLUMNS`)."""
        if self.columns is None:
            return
        for name in ("nodes", "start_pass"):
            a = self.columns.get(name)
            if not (isinstance(a, np.ndarray) and a.dtype == np.int64 and len(a)):
                continue
            if int(a.min()) >= -(2**31) and int(a.max()) < 2**31:
                self.columns[name] = a.astype(np.int32)

    # -- metrics ----------------------------------------------------------------------------
    @cached_property
    def metrics(self) -> dict[str, float]:
        """Summary metrics (makespan, utilization, wait/slowdown statistics, speed); for a
        loaded result, exactly what its metrics.json holds."""
        from ..metrics import colocation_summary, simulator_speed, summary

        if self.stored_metrics is not None:
            return dict(self.stored_metrics)
        n = self.n_jobs
        if not n:
            return {"n_jobs": 0}
        jobs, started = self._started()
        if not started:
            return {"n_jobs": 0, "jobs_not_started": n}
        # the validator's orders when it ran first (else made here, from the kernel's hints)
        orders = self.__dict__.pop("_orders", None) or self._time_orders(keep=False)
        m = dict(
            summary(jobs, self.cluster.total_cores, per_job=self._per_job(jobs), orders=orders)
        )
        del orders
        if started < n:
            m["jobs_not_started"] = n - started
        m.update(colocation_summary(jobs, self.cluster))
        if self.wall_time == self.wall_time and n:
            m.update(simulator_speed(m["makespan"], self.wall_time, n))
            m["wall_time_s"] = self.wall_time
        return m

    @property
    def started_jobs(self) -> pd.DataFrame:
        """The jobs that started: all of them, unless the run was stopped at a time
        (``Simulation(until=...)``), when those it never started are left out."""
        if not self.options.get("truncated"):
            return self.jobs
        return self.jobs[np.isfinite(self.jobs["start"].to_numpy(dtype=float))]

    def _per_job(self, table: Any) -> dict[str, np.ndarray] | None:
        """The per-job metric columns (:func:`~coschedlab.metrics.job_columns`) of ``table``
        (:meth:`_started`'s) as this simulated result made them, for the metrics to use as they
        are; None when the table is the pandas one (it may have been changed since)."""
        if self.__dict__.get("jobs") is not None or self.columns is None:
            return None
        names = ("wait", "response", "run", "slowdown", "bounded_slowdown")
        if not all(name in table for name in names):
            return None
        return {name: table[name] for name in names}

    def _group_metrics(self) -> dict[str, Any]:
        """The per-user/group/queue/partition metrics of metrics.json."""
        jobs = self._started()[0]
        return group_metrics(jobs, per_job=self._per_job(jobs))

    def _started(self) -> tuple[Any, int]:
        """(:attr:`started_jobs` as :attr:`table` holds them, how many)."""
        t = self.table
        if self.__dict__.get("jobs") is not None:
            t = self.started_jobs
            return t, len(t)
        if self.options.get("truncated"):
            ok = np.isfinite(np.asarray(t["start"], dtype=float))
            t = {name: v[ok] for name, v in t.items()}
        return t, rows(t)

    def groups(self, column: str = "user") -> pd.DataFrame:
        """Metrics per user (``column``: also ``group``, ``queue``, ``partition``), one row
        each by core-hours (:func:`coschedlab.metrics.by_group`); for a loaded result, what its
        metrics.json holds."""
        from ..metrics import by_group, group_frame

        stored = (self.stored_groups or {}).get(f"by_{column}")
        if stored is not None:
            return group_frame(stored, column)
        return by_group(self.started_jobs, column)

    def validate(self, **kwargs) -> list[str]:
        """Check the schedule invariants (every schedule's, plus the scheduler's declared
        guarantees); returns the violations (empty when valid)."""
        from ..validator import validate_jobs

        kwargs.setdefault("guarantees", self.guarantees)
        jobs = self._started()[0]
        if self.options.get("truncated"):
            # a run stopped at a time: the jobs that started keep every invariant (capacity,
            # dependencies, no start before submission); the policy's guarantees (EASY's head,
            # reservations) need the whole queue, which a cut-off table no longer has
            kwargs["guarantees"] = ()
        kwargs.setdefault("orders", self._time_orders())
        return validate_jobs(jobs, self.cluster, scheduler=self.scheduler, **kwargs) + (
            self.run_time_violations()
        )

    def _time_orders(self, keep: bool = True) -> dict[str, np.ndarray] | None:
        """The stable orders of the rows by start and by end (the validator's capacity and
        head checks read them, and so does the summary's sweep of :attr:`metrics`): made once
        for both (from the kernel's orders of starts and ends, which are let go), kept until
        :attr:`metrics` takes them when it has not run yet (``keep``). None when the table is
        the pandas one or cut off at a time (each sorts its own)."""
        if (
            self.__dict__.get("jobs") is not None
            or self.columns is None
            or self.options.get("truncated")
        ):
            return None
        from .._core.order import stable_argsort

        c = self.columns
        hints = self.__dict__.pop("_order_hints", None) or {}
        orders = {
            name: stable_argsort(np.ascontiguousarray(c[name], dtype=np.float64), hints.get(name))
            for name in ("start", "end")
        }
        del hints
        if keep and "metrics" not in self.__dict__:
            self.__dict__["_orders"] = orders
        return orders

    def run_time_violations(self) -> list[str]:
        """Each job ran as long as the input says: its run time, or (killed at its walltime)
        at least its requested time and at most its run time (:meth:`validate` and every
        capability's validator call it); with a co-location model, between the run times at
        the fastest and the slowest speedups each job may have had (:attr:`speed_range`);
        with ``kill_at_walltime``, never past the requested time. Nothing to check without
        the input's run times (a loaded result). In a run cut off at a time, the jobs that
        started (running ones at their planned end; the others have no start: not checked)."""
        if self.input_run is None:
            return []
        from ..validator import run_time_violations

        j = self.table
        return run_time_violations(
            j["job_id"], j["start"], j["end"], j["requested_time"], j["killed"], self.input_run,
            "during the run", self.speed_range, self.options.get("kill_at_walltime") is True,
        )  # fmt: skip

    # -- writers ----------------------------------------------------------------------------
    def to_swf(self, path: str | Path, *, integers: bool = False) -> None:
        """Write the simulated run as SWF v2.2 (wait and run times filled in), with the
        machine it ran on in the header.

        ``integers=True``: whole numbers only, for readers that parse integers only; submit,
        start and end are rounded to the nearest second and wait and run are their differences
        (:func:`coschedlab.workload.swf.integer_times`).
        """
        from ..workload.swf import cluster_header, write_swf

        header = dict(self.header)
        header["Scheduler"] = self.scheduler
        header.update(cluster_header(self.cluster))
        table = self.table
        per_job = None if self.options.get("truncated") else self._per_job(table)
        write_swf(path, table, header, integers=integers, per_job=per_job)

    def to_batsim_csv(self, path: str | Path) -> None:
        """Write a Batsim-style ``jobs.csv`` that evalys can read and draw.

        On shared nodes (co-location) the resources are cores, so that jobs sharing a node
        get disjoint rows: see :func:`coschedlab.workload.batsim.write_jobs_csv`.
        """
        from ..workload.batsim import write_jobs_csv

        table = self.table
        # the per-job columns as they are (a run stopped at a time: its unstarted jobs' times
        # are computed as the file always wrote them)
        per_job = None if self.options.get("truncated") else self._per_job(table)
        write_jobs_csv(path, table, cores_per_node=self.cluster.cores_per_node, per_job=per_job)

    def save(
        self, out_dir: str | Path, force: bool = False, swf_integers: bool = False
    ) -> list[Path]:
        """Write jobs.parquet, jobs.csv (Batsim style), result.swf and metrics.json into
        ``out_dir``, atomically (:func:`coschedlab.outputs.atomic_dir`): all four files appear
        together or none does. An existing non-empty ``out_dir`` is refused unless ``force``."""
        from ..outputs import atomic_dir

        out = Path(out_dir)
        with atomic_dir(out, force, option="out_dir=") as tmp:  # (said as Python's words)
            self.write(tmp, swf_integers)
        return [out / p.name for p in self._paths(out)]

    @staticmethod
    def _paths(out: Path) -> list[Path]:
        return [out / "jobs.parquet", out / "jobs.csv", out / "result.swf", out / "metrics.json"]

    def write(self, out_dir: str | Path, swf_integers: bool = False) -> list[Path]:
        """Write the four files into the existing directory ``out_dir``, not atomically: for
        callers that make the directory atomic themselves (:meth:`save`, the experiments'
        store)."""
        from ..outputs import write_parquet

        out = Path(out_dir)
        paths = self._paths(out)
        # the metrics first: their temporaries not on top of pyarrow's memory (~35 MB)
        metrics = {k: _jsonable(v) for k, v in self.metrics.items()}
        groups = self.stored_groups or self._group_metrics()
        # jobs.parquet last: pyarrow's libraries, once loaded, stay in memory (~27 MB)
        self.to_batsim_csv(paths[1])
        self.to_swf(paths[2], integers=swf_integers)
        write_parquet(paths[0], self.table)
        meta = {
            "scheduler": self.scheduler,
            "cluster": {
                "nodes": self.cluster.nodes,
                "sockets_per_node": self.cluster.sockets_per_node,
                "cores_per_socket": self.cluster.cores_per_socket,
            },
            "options": self.options,
            "guarantees": list(self.guarantees),
            "passes": self.passes,
            "header": self.header,
            "metrics": metrics,
            **groups,  # "by_user", "by_group", ...
        }
        paths[3].write_text(json.dumps(meta, indent=2) + "\n")
        return paths

    @classmethod
    def load(cls, out_dir: str | Path) -> Result:
        """Read a result written by :meth:`save`; a missing, truncated or foreign file is an
        :class:`~coschedlab.errors.InputError` naming it."""
        from ..bundled import read_json
        from ..errors import InputError

        out = Path(out_dir)
        if not out.is_dir():
            raise InputError(
                "not a directory; give a result directory written by simulate", str(out)
            )
        for name in ("metrics.json", "jobs.parquet"):
            if not (out / name).is_file():
                raise InputError(
                    f"no {name} here; give a result directory written by simulate", str(out)
                )
        meta = read_json(out / "metrics.json")
        where = str(out / "metrics.json")
        try:
            c = meta["cluster"]
            cluster = Cluster(c["nodes"], c["sockets_per_node"], c["cores_per_socket"])
            scheduler = str(meta["scheduler"])
        except (KeyError, TypeError) as exc:
            raise InputError(f"not a coschedlab metrics.json (no {exc})", where) from None
        except InputError as exc:
            raise InputError(f"bad cluster: {exc}", where) from None
        stored = meta.get("metrics")
        if stored is not None and not isinstance(stored, dict):
            raise InputError('"metrics" is not an object', where)
        jobs = _read_parquet(out / "jobs.parquet")
        return cls(
            jobs=jobs,
            cluster=cluster,
            scheduler=scheduler,
            passes=meta.get("passes", 0),
            options=meta.get("options", {}),
            header=meta.get("header", {}),
            guarantees=tuple(meta.get("guarantees", ())),
            stored_metrics=stored,
            stored_groups={k: v for k, v in meta.items() if k.startswith("by_")} or None,
        )


def _read_parquet(path: Path) -> pd.DataFrame:
    """A jobs.parquet as a DataFrame; a corrupt or foreign file is an InputError naming it."""
    import pandas as pd

    from ..errors import InputError

    try:
        jobs = pd.read_parquet(path)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"not a readable Parquet file ({first})", str(path)) from None
    missing = [c for c in ("job_id", "submit", "start", "end", "procs") if c not in jobs.columns]
    if missing:
        raise InputError(f"not a coschedlab jobs table (no column {missing[0]!r})", str(path))
    return jobs


def _job_metric_columns(frame: dict[str, Any], truncated: bool) -> None:
    """Put the per-job metric columns (:func:`~coschedlab.metrics.job_columns`) into
    ``frame`` (the jobs a run stopped at a time never started: NaN)."""
    start = frame["start"]
    ok = np.isfinite(start) if truncated else None
    if ok is not None and ok.all():  # every job started: no row left NaN, no masked copies
        ok = None
    checked = _times(  # the checks of job_metrics: finite times, in order
        {c: frame[c] if ok is None else frame[c][ok] for c in _TIME_COLUMNS}
    )
    part = job_columns(*checked)
    del checked
    for name, values in part.items():
        if ok is None:
            frame[name] = values
        else:
            frame[name] = np.full(len(start), np.nan)
            frame[name][ok] = values


def _shared(values: np.ndarray) -> np.ndarray:
    """A workload's column for its result: the column itself when it cannot be written (its
    owner froze it, :meth:`~coschedlab.jobs.Workload.freeze`), else a copy (a workload edited
    in place after the run must not change the result)."""
    return values if not values.flags.writeable else values.copy()


def _names(value: Any) -> tuple[str, ...]:
    """A policy's ``guarantees`` as a tuple of names (a single name may be given as a string)."""
    return (value,) if isinstance(value, str) else tuple(value or ())
