"""What a study gives: one record per run, the scheduling graph's segments and the seed's
Table 5 metrics, with saving and loading.

Metrics (SimX, Table 5): the total time (first start to last end), the worker utilization
(worker-seconds assigned to a run, redone work and restart costs included, over
``procs x total time``), the mean run time of one simulation (its first start to its end,
preemptions included), the runs, the timesteps done and lost, and the Pareto front found.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from ..errors import InputError
from ..jsonsafe import json_safe
from ..outputs import atomic_dir

__all__ = ["OUTPUTS", "Segment", "StudyResult", "hours_minutes", "load_result", "metrics_cells"]

#: the files :meth:`StudyResult.write` writes
OUTPUTS = ("runs.csv", "segments.csv", "metrics.json")


class Segment(NamedTuple):
    """Worker ``worker`` served run ``run`` from ``start`` to ``end`` (a scheduling-graph
    bar)."""

    worker: int
    run: int
    start: float
    end: float
    kind: str = "run"


@dataclass
class StudyResult:
    """A finished study (module doc)."""

    config: str
    procs: int
    records: list[dict]
    segments: list[Segment]
    front: list = field(default_factory=list)
    batches: int = 0
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def runs(self) -> pd.DataFrame:
        """One row per run, in finishing order."""
        return pd.DataFrame(self.records)

    @property
    def metrics(self) -> dict[str, Any]:
        """The seed's Table 5 figures and a few more (module doc)."""
        if not self.records:
            return {"config": self.config, "procs": self.procs, "runs": 0, "total_time": 0.0}
        start = min(r["start"] for r in self.records)
        end = max(r["end"] for r in self.records)
        total = end - start
        busy = sum(s.end - s.start for s in self.segments)
        n = len(self.records)
        return {
            "config": self.config,
            "procs": self.procs,
            "runs": n,
            "total_time": total,
            "utilization": busy / (self.procs * total) if total > 0 else 1.0,
            "mean_run_time": sum(r["end"] - r["start"] for r in self.records) / n,
            "reused": sum(r["source"] is not None for r in self.records),
            "steps": int(sum(r["steps"] for r in self.records)),
            "lost_steps": float(sum(r["lost_steps"] for r in self.records)),
            "preemptions": int(sum(r["preemptions"] for r in self.records)),
            "batches": self.batches,
            "front": [list(d) for d in self.front],
        }

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON values (a sweep's stored run: :meth:`from_dict`)."""
        return json.loads(json.dumps(json_safe({
            "config": self.config, "procs": self.procs, "records": self.records,
            "segments": [list(s) for s in self.segments], "front": [list(d) for d in self.front],
            "batches": self.batches, "info": self.info,
        }, allow_nan=True)))  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StudyResult:
        """The result :meth:`to_dict` gave."""
        return cls(
            config=d["config"], procs=int(d["procs"]), records=list(d["records"]),
            segments=[Segment(int(w), int(r), float(a), float(b), str(k))
                      for w, r, a, b, k in d["segments"]],
            front=[tuple(x) for x in d["front"]], batches=int(d["batches"]),
            info=dict(d["info"]),
        )  # fmt: skip

    def write(self, folder: Path) -> None:
        """Write ``runs.csv``, ``segments.csv`` and ``metrics.json`` into ``folder`` (a
        directory being built: :meth:`save` makes it atomic)."""
        folder.mkdir(parents=True, exist_ok=True)
        self.runs.to_csv(folder / "runs.csv", index=False)
        pd.DataFrame(self.segments, columns=list(Segment._fields)).to_csv(
            folder / "segments.csv", index=False
        )  # fmt: skip
        (folder / "metrics.json").write_text(
            json.dumps({**self.metrics, "info": self.info}, indent=1) + "\n"
        )

    def save(self, out: str | Path, force: bool = False) -> Path:
        """Write the result into ``out`` atomically (:meth:`write`); an existing result is
        replaced only with ``force``."""
        with atomic_dir(out, force, option="out=") as tmp:  # (said as Python's words)
            self.write(tmp)
        return Path(out)


def hours_minutes(seconds: float) -> str:
    """A duration for a table: 1h05m, 4m05s or 12.3s."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    if seconds < 3600:
        whole = round(seconds)
        return f"{whole // 60}m{whole % 60:02d}s"
    minutes = round(seconds / 60)
    return f"{minutes // 60}h{minutes % 60:02d}m"


def metrics_cells(metrics: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """The table of configurations' :attr:`StudyResult.metrics` (one row each) as
    ``coschedlab study run`` prints it and the dashboard shows it: columns and text cells."""
    hm = hours_minutes
    return ["config", "runs", "total", "util.", "mean run", "reused", "moves"], [
        [m["config"], str(m["runs"]), hm(m["total_time"]), f"{m['utilization']:.1%}",
         hm(m["mean_run_time"]), str(m["reused"]), str(m["preemptions"])] for m in metrics
    ]  # fmt: skip


def load_result(folder: str | Path) -> StudyResult:
    """A study result written by :meth:`StudyResult.save` (or by ``coschedlab study run``)."""
    folder = Path(folder)
    need = [folder / n for n in ("runs.csv", "segments.csv", "metrics.json")]
    missing = [p.name for p in need if not p.is_file()]
    if missing:
        raise InputError(f"not a study result: {missing[0]} is missing", str(folder))
    try:
        m = json.loads((folder / "metrics.json").read_text())
        runs = pd.read_csv(folder / "runs.csv")
        segs = pd.read_csv(folder / "segments.csv")
    except (ValueError, OSError) as exc:
        raise InputError(f"not a study result ({exc.__class__.__name__})", str(folder)) from None
    records = runs.to_dict("records")
    for r in records:  # tuples as the CSV wrote them, read back as lists
        for key in ("design", "source", "objectives"):
            v = r.get(key)
            r[key] = (
                json.loads(v.replace("(", "[").replace(")", "]")) if isinstance(v, str) else None
            )
    segments = [Segment(int(s.worker), int(s.run), float(s.start), float(s.end), str(s.kind))
                for s in segs.itertuples()]  # fmt: skip
    return StudyResult(
        config=m.get("config", "?"),
        procs=int(m.get("procs", 0)),
        records=records,
        segments=segments,
        front=[tuple(d) for d in m.get("front", [])],
        batches=int(m.get("batches", 0)),
        info=m.get("info", {}),
    )
