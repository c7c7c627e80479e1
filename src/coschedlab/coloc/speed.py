"""ELiSE's co-location speed model (the ELiSE paper, section 3.5).

A job on whole nodes (compact) runs at speedup 1. A job sharing nodes (spread) runs at the
minimum, over every neighbour on any of its nodes, of ``heatmap[job][neighbour]``, starting from
its spread-alone speedup; an unmeasured pair counts as the job's mean measured speedup. When the
speedup changes, the remaining time is rescaled:
``remaining_new = speedup_old * remaining_old / speedup_new`` (equivalently: the job has
``work`` compact-seconds left and progresses at ``speedup`` compact-seconds per second).

Spread-alone speedup: the pool's measured spread timings when it has them; otherwise, as ELiSE's
own code does (``compengine.calculate_job_rem_time`` starts from ``max_speedup``), the job's
largest measured pair speedup. ELiSE's code takes the larger of the two even when the spread
timings exist (``setup_preloaded_jobs`` seeds ``max_speedup`` with the spread speedup and
raises it to any larger pair speedup): ``alone="elise"`` does the same.

Policies see the model's inputs, not its state, through :class:`ColocInfo` (``view.coloc``).

Per-job result columns: ``compact_run`` (compact time), ``speedup`` (compact time / time
taken), ``neighbours`` (how many jobs it shared a node with during its run) and ``in_pool``
(whether its application is in the heatmap; a job whose application is not runs at speedup 1).
"""

from __future__ import annotations

import math
import warnings
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.cspeed import NeighbourSpeed
from ..engine.speed import SpeedModel
from ..errors import InputError
from ..jobs import app_names_from_header
from .heatmap import Heatmap
from .pool import check_spread_speedup

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.kernel import Simulation
    from ..jobs import Workload
    from .pool import Pool


def unknown_app_jobs(workload: Workload, names: list[str]) -> np.ndarray:
    """Positions (in ``workload`` order) of the jobs whose application is not among ``names``
    (the pool's): they run at speedup 1 beside any neighbour, and neighbours see the pool's
    mean speedup beside them."""
    known = set(names)
    return np.flatnonzero([n is None or n not in known for n in app_names_of(workload, names)])


def _distinct_names(workload: Workload, names: list[str]) -> tuple[list[str | None], np.ndarray]:
    """The application name of each distinct app id of ``workload`` (:func:`app_names_of`'s
    rule) and, per job, the position of its app id among them."""
    app = np.asarray(workload.columns["app"])
    if app.dtype.kind in "iu" and len(app) and app.min() >= 0 and app.max() < 4 * len(app):
        # small non-negative ids (the usual case): np.unique's result by counting, not sorting
        ids = np.flatnonzero(np.bincount(app))
        number = np.zeros(int(ids[-1]) + 1, dtype=np.int64)
        number[ids] = np.arange(len(ids))
        index = number[app]
    else:
        ids, index = np.unique(app, return_inverse=True)
    mapping = app_names_from_header(workload.header.get("Applications"))
    if mapping:
        distinct = [mapping.get(a) for a in ids.tolist()]
    else:
        distinct = [names[a] if 0 <= a < len(names) else None for a in ids.tolist()]
    return distinct, index.reshape(-1)


def app_names_of(workload: Workload, names: list[str]) -> list[str | None]:
    """Application name of each job: the workload header's ``Applications`` map
    (``"0=lu.E.2048 1=..."``, written by the generator) or else app id k -> ``names[k]``."""
    distinct, index = _distinct_names(workload, names)
    return list(map(distinct.__getitem__, index.tolist()))


def app_rows_of(workload: Workload, names: list[str]) -> np.ndarray:
    """Position in ``names`` of each job's application (:func:`app_names_of`), -1 when it
    is not there (an array, in workload order)."""
    distinct, index = _distinct_names(workload, names)
    row = {n: i for i, n in enumerate(names)}
    rows = np.asarray([-1 if n is None else row.get(n, -1) for n in distinct], dtype=np.int64)
    return rows[index]


class ColocInfo:
    """What a policy may know of the co-location model (``view.coloc``): the measured pair
    speedups and the spread-alone speedup of each job's application. Inputs of the run, not
    its state: nothing here tells when a job will end."""

    __slots__ = ("_app_in", "_app_t", "_rows", "_alone", "_mean")

    def __init__(self, app: list[int] | np.ndarray, values: list[list[float]], alone, mean) -> None:
        # heatmap row of each job (queue order), -1 unknown: a copy no policy can write (the
        # speed model's own array gave the result's in_pool column: a write changed it)
        self._app_in = (
            np.frombuffer(np.ascontiguousarray(app, dtype=np.int64).tobytes(), dtype=np.int64)
            if isinstance(app, np.ndarray)
            else tuple(app)
        )
        self._app_t = None
        self._rows = tuple(tuple(r) for r in values)  # NaN: unmeasured
        self._alone = tuple(alone)
        self._mean = tuple(mean)

    @property
    def _app(self) -> tuple[int, ...]:
        """The heatmap row of each job, as a tuple of ints made on first use (a policy that
        never asks costs no Python object per job)."""
        if self._app_t is None:
            a = self._app_in
            self._app_t = tuple(a.tolist() if isinstance(a, np.ndarray) else a)
        return self._app_t

    def pair(self, j: int, k: int) -> float | None:
        """Measured speedup of job ``j`` beside job ``k`` (heatmap[app j][app k]); None when
        the pair was not measured or an application is unknown."""
        a, b = self._app[j], self._app[k]
        if a < 0 or b < 0:
            return None
        v = self._rows[a][b]
        return None if v != v else v

    def pair_or_mean(self, j: int, k: int) -> float:
        """:meth:`pair`, an unmeasured pair answered by ``j``'s mean measured speedup (the
        speed model's fallback, ELiSE 3.5); 1.0 for an unknown application."""
        v = self.pair(j, k)
        if v is not None:
            return v
        a = self._app[j]
        return self._mean[a] if a >= 0 else 1.0

    def alone(self, j: int) -> float:
        """Speedup of job ``j`` spread on nodes of its own (1.0 for an unknown application)."""
        a = self._app[j]
        return self._alone[a] if a >= 0 else 1.0

    def known(self, j: int) -> bool:
        """Whether job ``j``'s application is in the heatmap."""
        return self._app[j] >= 0


class ColocationSpeed(NeighbourSpeed, SpeedModel):
    """Speed of co-located jobs from a pairwise speedup heatmap (dynamic: neighbours change).

    ``alone``: measured spread-alone speedups by application name; ``alone_rule``:
    ``"measured"`` (those, else the best pair speedup) or ``"elise"`` (the larger of the two,
    as ELiSE's code computes it).

    The per-event work (a job's speedup beside its neighbours, the moved ends of its
    neighbours at each start and end) is compiled (:class:`~..engine.cspeed.NeighbourSpeed`,
    called by the kernel in C); this class sets its inputs and answers policies' questions."""

    dynamic = True

    def __init__(
        self,
        heatmap: Heatmap,
        alone: dict[str, float] | None = None,
        alone_rule: str = "measured",
    ) -> None:
        if alone_rule not in ("measured", "elise"):
            raise InputError(f"alone_rule must be 'measured' or 'elise', got {alone_rule!r}")
        self.heatmap = heatmap
        self.alone_rule = alone_rule
        matrix = heatmap.matrix()
        values = heatmap.values
        known = np.isfinite(values)
        row_max = np.where(known.any(axis=1), np.where(known, values, -np.inf).max(axis=1), 1.0)
        alone = alone or {}
        for name, s in alone.items():
            check_spread_speedup(name, s)
        if alone_rule == "elise":
            self._alone = [
                max(float(alone[n]), float(row_max[i])) if n in alone else float(row_max[i])
                for i, n in enumerate(heatmap.names)
            ]
        else:
            self._alone = [float(alone.get(n, row_max[i])) for i, n in enumerate(heatmap.names)]
        self._row_mean = [float(heatmap.app_mean(n)) for n in heatmap.names]
        # one extra column for neighbours of an unknown application: the row's mean
        self._m = np.column_stack([matrix, np.asarray(self._row_mean)])

    @classmethod
    def from_pool(cls, pool: Pool, alone_rule: str = "measured") -> ColocationSpeed:
        """The model of an application pool (its heatmap and measured spread-alone speedups)."""
        alone = {a.name: a.spread_speedup for a in pool.apps if a.spread_speedup is not None}
        return cls(pool.heatmap, alone, alone_rule)

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        if not sim.acct.shared:
            raise InputError("the co-location speed model needs shared nodes")
        app = app_rows_of(sim.workload, list(self.heatmap.names))[sim.order]
        self._app_rows = app  # (also the result's in_pool column)
        # column of each job's application in self._m (unknown -> the row-mean column)
        self._col_rows = np.where(app >= 0, app, self._m.shape[1] - 1)
        vars(self).pop("app", None)  # (the lists of an earlier run)
        vars(self).pop("_col", None)
        self._rows = self._m.tolist()  # plain lists: one lookup per neighbour, no NumPy call
        self.info = ColocInfo(app, self.heatmap.values.tolist(), self._alone, self._row_mean)
        self._setup(sim, app, self._col_rows, self._rows, self._alone)

    @cached_property
    def app(self) -> list[int]:
        """The heatmap row of each job (-1: unknown), a list made on first use."""
        return self._app_rows.tolist()

    @cached_property
    def _col(self) -> list[int]:
        """The column of each job's application in the pair table, a list made on first use."""
        return self._col_rows.tolist()

    def predicted(self, j: int, others: tuple[int, ...] | list[int]) -> float:
        """Predicted speedup of job ``j`` beside all of ``others`` (the minimum pair speedup;
        inf beside nobody)."""
        a = self.app[j]
        if a < 0:
            return 1.0 if others else math.inf
        row, col = self._rows[a], self._col
        return min((row[col[k]] for k in others), default=math.inf)

    def speed_range(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`speed_bounds` of the run's jobs (their applications and cores per node)."""
        sim = self.sim
        cores = np.asarray(sim.acct.cores, dtype=np.int64)
        return self.speed_bounds(self._app_rows, cores == sim.cluster.cores_per_node)

    def speed_bounds(self, app_rows: Any, compact: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(slowest, fastest)`` speedup of each job whose heatmap row is ``app_rows`` (-1:
        unknown) and that runs ``compact`` (on whole nodes) or not: 1 and 1 for a compact job
        or an unknown application; else (a spread job starts at its spread-alone speedup and
        each neighbour can only lower it, :mod:`~coschedlab.engine.cspeed`) the least of its
        spread-alone speedup and its row's pair speedups (unmeasured: the row's mean), and
        its spread-alone speedup. The validator's bounds (:func:`~..validator.
        run_time_violations`), for a run here and a loaded one (``validate --pool``)."""
        a = np.asarray(app_rows, dtype=np.int64)
        alone = np.asarray(self._alone, dtype=np.float64)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (a row of no measured pair)
            least = np.fmin(alone, np.nanmin(self._m, axis=1)) if len(alone) else alone
        spread = ~np.asarray(compact, dtype=bool) & (a >= 0)
        slowest = np.ones(len(a))
        fastest = np.ones(len(a))
        slowest[spread] = least[a[spread]]
        fastest[spread] = alone[a[spread]]
        return slowest, fastest

    def result_columns(self) -> dict:
        sim = self.sim
        compact = np.asarray(sim.run_time, dtype=np.float64)
        took = np.asarray(sim.end, dtype=np.float64) - np.asarray(sim.start, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            speedup = np.where(took > 0, compact / np.where(took > 0, took, 1.0), math.nan)
        return {
            "compact_run": compact,
            "speedup": speedup,
            "neighbours": np.asarray(self.met, dtype=np.int64),
            "in_pool": self._app_rows >= 0,
        }
