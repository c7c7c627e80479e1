"""What a coupled run produced: per system, the core job table with the co-scheduling columns,
the hold episodes, the metrics of Tang et al. (2011, Section V-C) and the validator.

Per-job columns added to each system's :class:`~coschedlab.engine.result.Result` table:
``mate`` (``"SYSTEM:job id"``, empty when unpaired), ``sync`` (paired jobs: start minus the
first time the job held or yielded, 0 if it never did: Cobalt's ``overhead``; NaN when
unpaired), ``hold_time`` (seconds held over every hold episode, released ones included),
``held_node_hours`` (nodes x hold time / 3600) and ``yields``.

Metrics per system (:meth:`CoupledResult.metrics`): ``wait_mean``, ``bounded_slowdown_mean``
(the core's: max(1, response / max(run, 10)), equal to Qsim's max(response, 10) / max(run, 10)
since response >= run), ``utilization`` (useful: running jobs' node-time over nodes x span,
first submit to last end), ``allocated_utilization`` (held nodes counted as busy-but-idle:
useful plus ``su_loss_share``), ``sync_mean`` (paired jobs),
``su_loss_node_hours`` (sum of held nodes x hold time) and ``su_loss_share`` (of nodes x the
system's span, first submit to last end), ``paired_share``, counts of holds, releases, yields
and jobs that started alone.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..engine.result import Result
from ..intervals import format_intervals
from ..jsonsafe import json_safe
from ..validator import check_jobs
from .system import CoupledSimulation

__all__ = ["CoupledResult", "METRIC_KEYS"]

#: the per-system metrics, in table order
METRIC_KEYS = (
    "jobs", "paired", "paired_share", "wait_mean", "bounded_slowdown_mean", "utilization",
    "allocated_utilization", "sync_mean", "su_loss_node_hours", "su_loss_share", "holds",
    "releases", "yields", "started_alone",
)  # fmt: skip


@dataclass
class CoupledResult:
    """The outcome of a :class:`~.system.CoupledSimulation`."""

    names: list[str]
    results: list[Result]
    holds: pd.DataFrame
    pairs: pd.DataFrame
    info: dict[str, Any] = field(default_factory=dict)
    wall_time: float = math.nan

    @classmethod
    def from_simulation(cls, c: CoupledSimulation) -> CoupledResult:
        """Collect a finished coupled run."""
        names = [st.system.name for st in c.state]
        hold_rows = []
        per_job: list[dict[int, list[float]]] = [{} for _ in c.state]  # j -> [secs, node-s]
        for h in c.holds:
            sim = c.state[h.system].sim
            end = h.end if h.end == h.end else c.now  # open at a cut-off: up to the stop
            secs = end - h.start
            acc = per_job[h.system].setdefault(h.j, [0.0, 0.0])
            acc[0] += secs
            acc[1] += secs * h.nodes
            hold_rows.append(
                {
                    "system": names[h.system],
                    "job_id": sim.ids[h.j],
                    "start": h.start,
                    "end": h.end,
                    "nodes": h.nodes,
                    "alloc": format_intervals(h.alloc),
                    "outcome": h.outcome or "open",
                }
            )
        results = []
        for i, st in enumerate(c.state):
            sim = st.sim
            r = Result.from_simulation(sim)
            n = sim.n
            mate = [""] * n
            sync = np.full(n, np.nan)
            for j, (s2, k) in st.mate.items():
                mate[j] = f"{names[s2]}:{c.state[s2].sim.ids[k]}"
                if sim.start[j] == sim.start[j]:
                    sync[j] = sim.start[j] - st.first_wait.get(j, sim.start[j])
            hold_time = np.zeros(n)
            held = np.zeros(n)
            for j, (secs, node_secs) in per_job[i].items():
                hold_time[j] = secs
                held[j] = node_secs / 3600.0
            yields = np.zeros(n, dtype=np.int64)
            for j, y in st.yields.items():
                yields[j] = y
            r.jobs["mate"] = mate
            r.jobs["sync"] = sync
            r.jobs["hold_time"] = hold_time
            r.jobs["held_node_hours"] = held
            r.jobs["yields"] = yields
            r.options = {**r.options, "coupled": c.info()[st.system.name]}
            results.append(r)
        pairs = pd.DataFrame(
            [
                {"system": names[a], "job_id": ja, "mate_system": names[b], "mate_job_id": jb}
                for a, ja, b, jb in c.pairs.table()
            ],
            columns=["system", "job_id", "mate_system", "mate_job_id"],
        )
        holds = pd.DataFrame(
            hold_rows, columns=["system", "job_id", "start", "end", "nodes", "alloc", "outcome"]
        )
        return cls(names, results, holds, pairs, c.info(), c.wall_time)

    # -- metrics ----------------------------------------------------------------------------
    def metrics(self) -> dict[str, dict[str, float]]:
        """Per system name, the metrics of :data:`METRIC_KEYS`."""
        out: dict[str, dict[str, float]] = {}
        for name, r in zip(self.names, self.results, strict=True):
            jobs = r.started_jobs
            m = r.metrics
            paired = jobs["mate"] != ""
            node_hours = float(jobs["held_node_hours"].sum())
            span = float(jobs["end"].max() - r.jobs["submit"].min()) if len(jobs) else 0.0
            capacity = r.cluster.nodes * span / 3600.0
            loss = node_hours / capacity if capacity > 0 else 0.0
            useful = float(m.get("utilization", math.nan))
            h = self.holds[self.holds["system"] == name]
            info = r.options.get("coupled", {})
            out[name] = {
                "jobs": len(r.jobs),
                "paired": int((r.jobs["mate"] != "").sum()),
                "paired_share": float((r.jobs["mate"] != "").mean()) if len(r.jobs) else 0.0,
                "wait_mean": float(m.get("wait_mean", math.nan)),
                "bounded_slowdown_mean": float(m.get("bounded_slowdown_mean", math.nan)),
                "utilization": useful,
                "allocated_utilization": useful + loss,
                "sync_mean": float(jobs.loc[paired, "sync"].mean()) if paired.any() else 0.0,
                "su_loss_node_hours": node_hours,
                "su_loss_share": loss,
                "holds": len(h),
                "releases": int((h["outcome"] == "release").sum()),
                "yields": int(info.get("yields", 0)),
                "started_alone": int(info.get("started_alone", 0)),
            }
        return out

    # -- the validator --------------------------------------------------------------------------
    def validate(self) -> list[str]:
        """Violations: the core invariants per system with the holds counted as node use
        (held nodes never used by another job while held), every pair started at the same
        instant, every hold that ended in a start ended at its job's start on the same nodes."""
        problems: list[str] = []
        by_name = dict(zip(self.names, self.results, strict=True))
        for name, r in by_name.items():
            jobs = r.started_jobs[["job_id", "submit", "start", "end", "nodes", "alloc"]]
            h = self.holds[self.holds["system"] == name]
            if len(h):
                pseudo = pd.DataFrame(
                    {
                        "job_id": -1 - np.arange(len(h)),
                        "submit": h["start"].to_numpy(),
                        "start": h["start"].to_numpy(),
                        "end": h["end"].fillna(jobs["end"].max() if len(jobs) else 0).to_numpy(),
                        "nodes": h["nodes"].to_numpy(),
                        "alloc": h["alloc"].to_numpy(),
                    }
                )
                jobs = pd.concat([jobs, pseudo], ignore_index=True)
            rep = check_jobs(jobs, r.cluster, guarantees=())
            problems += [f"{name}: {v}" for v in rep.violations + r.run_time_violations()]
            started = r.jobs.set_index("job_id")
            for row in h.itertuples():
                if row.outcome == "start":
                    s = started.loc[row.job_id]
                    if s["start"] != row.end or _norm(s["alloc"]) != _norm(row.alloc):
                        problems.append(
                            f"{name}: job {row.job_id} left its hold at {row.end:g} but started "
                            f"at {s['start']:g} on {s['alloc']} (held {row.alloc})"
                        )
        starts = {
            name: dict(zip(r.jobs["job_id"].tolist(), r.jobs["start"].tolist(), strict=True))
            for name, r in by_name.items()
        }
        for p in self.pairs.itertuples():
            a = starts[p.system][p.job_id]
            b = starts[p.mate_system][p.mate_job_id]
            if a != b and not (a != a and b != b):
                problems.append(
                    f"pair {p.system}:{p.job_id} / {p.mate_system}:{p.mate_job_id} started at "
                    f"{a:g} and {b:g}"
                )
        return problems

    # -- files ----------------------------------------------------------------------------------
    def write(self, out: Path, baseline: dict[str, dict[str, float]] | None = None) -> None:
        """Write into the existing directory ``out``: one core result directory per system,
        ``holds.csv``, ``pairs.csv`` and ``coupled.json`` (metrics, the no-pairing baseline
        when given, run facts)."""
        for name, r in zip(self.names, self.results, strict=True):
            d = out / name
            d.mkdir()
            r.write(d)
        self.holds.to_csv(out / "holds.csv", index=False)
        self.pairs.to_csv(out / "pairs.csv", index=False)
        meta = {
            "systems": self.names,
            "metrics": json_safe(self.metrics()),
            "baseline": json_safe(baseline) if baseline is not None else None,
            "info": json_safe(self.info),
            "wall_time": self.wall_time,
        }
        (out / "coupled.json").write_text(json.dumps(meta, indent=2) + "\n")


def _norm(alloc: str) -> str:
    return str(alloc).replace(",", " ").strip()
