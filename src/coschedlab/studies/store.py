"""The result store: finished runs, spatially indexed (SimX's SISOL, Table 3).

Every finished run is kept with its design, its reuse class, its objectives, its timesteps
and where its final state (checkpoint) is. Two queries serve the study:

* :meth:`ResultStore.nearest`: the finished design *of the same reuse class* closest to a
  design (weighted Euclidean distance in the unit-scaled design space, SISOL's
  ``QueryClosest``); its final state seeds the new run. One k-d tree per class
  (``scipy.spatial.cKDTree``), rebuilt lazily after inserts.
* :meth:`ResultStore.results`: every finished design's objectives, for the sampler.

Persistence is SQLite (one row per finished run, committed as it is stored), so a study killed
and started again finds its finished runs; ``":memory:"`` keeps a simulated study in memory.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np
from scipy.spatial import cKDTree

from ..errors import InputError
from .model import unit_coords
from .sampling import Design, DesignSpace

__all__ = ["ResultStore", "StoredRun"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    design TEXT PRIMARY KEY,
    class TEXT NOT NULL,
    objectives TEXT NOT NULL,
    steps INTEGER NOT NULL,
    checkpoint TEXT,
    record TEXT NOT NULL
)
"""


@dataclass(frozen=True)
class StoredRun:
    """A finished run: its design, objectives, timesteps, final state and free-form record."""

    design: Design
    objectives: tuple[float, ...]
    steps: int
    checkpoint: str | None
    record: dict


class ResultStore:
    """Finished runs of one study (module doc). ``reuse`` names the parameters that define a
    reuse class (equal values: same class); ``weights`` weigh the distance per parameter."""

    def __init__(
        self,
        space: DesignSpace,
        reuse: Sequence[str] = (),
        path: str | Path = ":memory:",
        weights: Sequence[float] | None = None,
    ) -> None:
        unknown = [r for r in reuse if r not in space.names]
        if unknown:
            raise InputError(f"reuse class parameter {unknown[0]!r} is not a design parameter")
        self.space = space
        self._class_axes = [space.names.index(r) for r in reuse]
        self.weights = np.ones(len(space.names)) if weights is None else np.asarray(weights)
        if self.weights.shape != (len(space.names),) or np.any(self.weights < 0):
            raise InputError("weights: one number >= 0 per design parameter")
        try:
            self._db = sqlite3.connect(str(path))
            self._db.execute(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"not a study result store ({exc})", str(path)) from None
        self._runs: dict[Design, StoredRun] = {}
        self._results: dict[Design, tuple[float, ...]] = {}
        self._members: dict[tuple, list[Design]] = {}
        self._trees: dict[tuple, cKDTree] = {}
        for row in self._db.execute(
            "SELECT design, objectives, steps, checkpoint, record FROM runs"
        ):
            d = tuple(json.loads(row[0]))
            self._index(StoredRun(d, tuple(json.loads(row[1])), row[2], row[3], json.loads(row[4])))

    def reuse_class(self, d: Design) -> tuple:
        """The reuse class of design ``d``: its indices on the reuse parameters."""
        return tuple(d[a] for a in self._class_axes)

    def _index(self, run: StoredRun) -> None:
        self._runs[run.design] = run
        self._results[run.design] = run.objectives
        self._members.setdefault(self.reuse_class(run.design), []).append(run.design)
        self._trees.pop(self.reuse_class(run.design), None)

    def add(self, run: StoredRun, commit: bool = True) -> None:
        """Store a finished run (replacing none: a design is finished once)."""
        if run.design in self._runs:
            raise ValueError(f"design {run.design} is already stored")
        self._db.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)",
            (
                json.dumps(list(run.design)),
                json.dumps(list(self.reuse_class(run.design))),
                json.dumps(list(run.objectives)),
                run.steps,
                run.checkpoint,
                json.dumps(run.record),
            ),
        )
        if commit:
            self._db.commit()
        self._index(run)

    def commit(self) -> None:
        self._db.commit()

    def close(self) -> None:
        self._db.commit()
        self._db.close()

    def __contains__(self, d: Design) -> bool:
        return d in self._runs

    def __len__(self) -> int:
        return len(self._runs)

    def get(self, d: Design) -> StoredRun:
        return self._runs[d]

    def runs(self) -> list[StoredRun]:
        return list(self._runs.values())

    def results(self) -> Mapping[Design, tuple[float, ...]]:
        """Every finished design's objectives (a live read-only view)."""
        return MappingProxyType(self._results)

    def class_done(self, d: Design) -> bool:
        """True when a run of ``d``'s reuse class has finished."""
        return bool(self._members.get(self.reuse_class(d)))

    def nearest(self, d: Design) -> Design | None:
        """The finished design of ``d``'s reuse class nearest to ``d`` (None if none);
        ties go to the design stored first."""
        cls = self.reuse_class(d)
        members = self._members.get(cls)
        if not members:
            return None
        tree = self._trees.get(cls)
        if tree is None:
            pts = np.array([unit_coords(self.space, m) for m in members]) * self.weights
            tree = self._trees[cls] = cKDTree(pts)
        dist, _ = tree.query(unit_coords(self.space, d) * self.weights, k=1)
        # the k-d tree's answer among equals is arbitrary: keep the first stored
        near = tree.query_ball_point(
            unit_coords(self.space, d) * self.weights, dist * (1 + 1e-12) + 1e-15
        )
        return members[min(near)]
