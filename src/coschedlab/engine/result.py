"""What a run produced: the per-job table, the summary metrics and the writers."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..metrics import job_metrics
from ..platform import Cluster

if TYPE_CHECKING:  # pragma: no cover
    from .kernel import Simulation

# Columns of Result.jobs, in order (docs/semantics.md describes each).
JOB_TABLE_COLUMNS = (
    "job_id", "submit", "start", "end", "wait", "response", "run", "requested_time", "procs",
    "nodes", "alloc", "user", "group", "app", "queue", "partition", "status", "killed",
    "slowdown", "bounded_slowdown", "reservation", "start_pass",
)  # fmt: skip


@dataclass
class Result:
    """The outcome of one simulation.

    ``jobs`` has one row per job (see :data:`JOB_TABLE_COLUMNS`), in (submit, id) order;
    ``metrics`` the summary (:mod:`coschedlab.metrics`) plus the simulator's own speed.
    """

    jobs: pd.DataFrame
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

    @classmethod
    def from_simulation(cls, sim: Simulation) -> Result:
        """Collect a finished :class:`Simulation` into a table."""
        w = sim.workload
        order = sim.order
        cols = w.columns
        start = np.asarray(sim.start, dtype=np.float64)
        end = np.asarray(sim.end, dtype=np.float64)
        submit = np.asarray(sim.submit, dtype=np.float64)
        acct = sim.acct
        frame = pd.DataFrame(
            {
                "job_id": np.asarray(sim.ids, dtype=np.int64),
                "submit": submit,
                "start": start,
                "end": end,
                "requested_time": np.asarray(sim.req, dtype=np.float64),
                "procs": np.asarray(sim.procs, dtype=np.int64),
                "nodes": np.asarray(sim.nodes, dtype=np.int64),
                "alloc": acct.alloc_texts(sim.n),
                "user": cols["user"][order],
                "group": cols["group"][order],
                "app": cols["app"][order],
                "queue": cols["queue"][order],
                "partition": cols["partition"][order],
                "status": cols["status"][order],
                "killed": np.frombuffer(sim.killed, dtype=np.uint8).astype(bool),
                "reservation": np.frombuffer(sim.reservation, dtype=np.float64).copy(),
                "start_pass": np.frombuffer(sim.start_pass, dtype=np.int64).copy(),
            }
        )
        deps = sim.dependency_texts()
        if deps is not None:
            frame["deps"], frame["think"] = deps[0], np.asarray(deps[1], dtype=np.float64)
        if acct.shared:
            frame["nodes"] = np.asarray(
                [sum(b - a for a, b in acct.allocation(j)) for j in range(sim.n)], dtype=np.int64
            )
            node_cores = np.asarray(acct.cores, dtype=np.int64)
            frame["node_cores"] = node_cores
            frame["cores"] = node_cores * frame["nodes"].to_numpy()
            frame["placement"] = np.where(
                node_cores == sim.cluster.cores_per_node, "compact", "spread"
            )
        extra_cols = list(w.extra)
        for name, arr in w.extra.items():
            frame[name] = arr[order]
        model_cols = sim.speed_model.result_columns()
        for name, arr in model_cols.items():
            frame[name] = arr
        frame = job_metrics(frame)
        return cls(
            jobs=frame[
                list(JOB_TABLE_COLUMNS)
                + [c for c in ("deps", "think", "node_cores", "cores", "placement") if c in frame]
                + list(model_cols)
                + extra_cols
            ],
            cluster=sim.cluster,
            scheduler=sim.scheduler.describe(),
            wall_time=sim.wall_time,
            passes=sim.passes,
            options=sim.info(),
            header=dict(w.header),
            guarantees=_names(getattr(sim.scheduler, "guarantees", ())),
        )

    # -- metrics ----------------------------------------------------------------------------
    @cached_property
    def metrics(self) -> dict[str, float]:
        """Summary metrics (makespan, utilization, wait/slowdown statistics, speed); for a
        loaded result, exactly what its metrics.json holds."""
        from ..metrics import colocation_summary, simulator_speed, summary

        if self.stored_metrics is not None:
            return dict(self.stored_metrics)
        if not len(self.jobs):
            return {"n_jobs": 0}
        m = dict(summary(self.jobs, self.cluster.total_cores))
        m.update(colocation_summary(self.jobs, self.cluster))
        if self.wall_time == self.wall_time and len(self.jobs):
            m.update(simulator_speed(m["makespan"], self.wall_time, len(self.jobs)))
            m["wall_time_s"] = self.wall_time
        return m

    def validate(self, **kwargs) -> list[str]:
        """Check the schedule invariants (every schedule's, plus the scheduler's declared
        guarantees); returns the violations (empty when valid)."""
        from ..validator import validate_jobs

        kwargs.setdefault("guarantees", self.guarantees)
        return validate_jobs(self.jobs, self.cluster, scheduler=self.scheduler, **kwargs)

    # -- writers ----------------------------------------------------------------------------
    def to_swf(self, path: str | Path) -> None:
        """Write the simulated run as SWF v2.2 (wait and run times filled in)."""
        from ..workload.swf import cluster_header, write_swf

        header = dict(self.header)
        header["Scheduler"] = self.scheduler
        header.update(cluster_header(self.cluster))
        write_swf(path, self.jobs, header)

    def to_batsim_csv(self, path: str | Path) -> None:
        """Write a Batsim-style ``jobs.csv`` that evalys can read."""
        from ..workload.batsim import write_jobs_csv

        write_jobs_csv(path, self.jobs)

    def save(self, out_dir: str | Path) -> list[Path]:
        """Write jobs.parquet, jobs.csv (Batsim style), result.swf and metrics.json."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / "jobs.parquet", out / "jobs.csv", out / "result.swf", out / "metrics.json"]
        self.jobs.to_parquet(paths[0], index=False)
        self.to_batsim_csv(paths[1])
        self.to_swf(paths[2])
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
            "metrics": {k: _jsonable(v) for k, v in self.metrics.items()},
        }
        paths[3].write_text(json.dumps(meta, indent=2) + "\n")
        return paths

    @classmethod
    def load(cls, out_dir: str | Path) -> Result:
        """Read a result written by :meth:`save`."""
        out = Path(out_dir)
        meta = json.loads((out / "metrics.json").read_text())
        jobs = pd.read_parquet(out / "jobs.parquet")
        c = meta["cluster"]
        return cls(
            jobs=jobs,
            cluster=Cluster(c["nodes"], c["sockets_per_node"], c["cores_per_socket"]),
            scheduler=meta["scheduler"],
            passes=meta.get("passes", 0),
            options=meta.get("options", {}),
            header=meta.get("header", {}),
            guarantees=tuple(meta.get("guarantees", ())),
            stored_metrics=meta.get("metrics"),
        )


def _names(value: Any) -> tuple[str, ...]:
    """A policy's ``guarantees`` as a tuple of names (a single name may be given as a string)."""
    return (value,) if isinstance(value, str) else tuple(value or ())


def _jsonable(v: Any) -> Any:
    if isinstance(v, (np.floating, float)):
        v = float(v)
        return v if math.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    return v
