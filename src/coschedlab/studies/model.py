"""A model of each run's work: timesteps from scratch and from a reused checkpoint, the time
per timestep on ``p`` processors, and the run's objectives (SimX, Sections 2.3 and 4.1).

A run of a timestepping code takes ``start_time(p) + steps x t(p) x time_scale`` seconds on
``p`` processors: ``t`` is the code's scaling table (seconds per timestep, the seed's Table 4),
``time_scale`` an optional factor on it, and ``start_time(p)`` the run's time outside its
timesteps (start-up, reading and writing its state): ``overhead`` seconds, in proportion to
``p`` when ``overhead_procs`` is set (``overhead`` is then the time on ``overhead_procs``
processors). The seed's 34.3-minute mean run on 32 processors is 2900 timesteps x 0.60 s
plus 318 s. What a preemption costs beyond the work re-done since the last checkpoint is
``preemption_cost``: ``"startup"`` (the default) restarts the run on its new group, which pays
``start_time`` there again (the seed's Section 5: "the overhead required to perform the
reconfigurations"); ``"redo"`` charges the re-done work only (Section 4.4: "at a cost of
having to re-do the work that the original process group has done from the time it left the
last checkpoint", the cost its rule ``alpha < 1 - sigma`` weighs) (:meth:`restart_time`).
``slowdown`` maps a machine size to a factor on every run's time there (the seed's runs are
36.3 / 34.3 times longer on its 64-worker machine: :meth:`WorkModel.machine_factor`).

Timesteps differ from design to design. Design ``d`` draws a factor ``X_d`` from a gamma law
of mean 1 and coefficient of variation ``spread``, with a generator seeded by ``(seed, d)``
alone (so the draw does not depend on the order runs are made in); it needs
``scratch x X_d`` timesteps from scratch and ``reuse x X_d`` from the final state of a
finished run of its reuse class (the seed: 2900 and 1641 on average). ``normalize`` rescales
the factors so that their mean over the whole design grid is exactly 1 (the means are then
the study's means, as the seed reports them).

Objectives (minimised) are squared weighted distances, in the unit-scaled design space, to
one *target* design per objective (the best match for each measured height): the Pareto
front is then the set of grid designs nearest the segment between the targets, a
non-trivial front as in the seed's Figure 2. ``noise`` adds a seeded Gaussian term.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from .batching import ScalingTable
from .sampling import Design, DesignSpace

__all__ = ["PREEMPTION_COSTS", "WorkModel", "unit_coords"]

#: what a preemption costs beyond the re-done work (module doc)
PREEMPTION_COSTS = ("startup", "redo")


def unit_coords(space: DesignSpace, d: Design) -> np.ndarray:
    """Design ``d`` scaled to [0, 1] on every axis (by index: grids need not be uniform)."""
    return np.array([i / (n - 1) if n > 1 else 0.0 for i, n in zip(d, space.shape, strict=True)])


@dataclass(frozen=True)
class WorkModel:
    """Timesteps and objectives of each design (module doc)."""

    space: DesignSpace
    scaling: ScalingTable
    scratch: float = 2900.0
    reuse: float = 1641.0
    spread: float = 0.25
    seed: int = 0
    time_scale: float = 1.0
    overhead: float = 0.0
    overhead_procs: int = 0
    slowdown: tuple[tuple[int, float], ...] = ()
    preemption_cost: str = "startup"
    targets: tuple[tuple[float, ...], ...] = ((0.2, 0.3), (0.7, 0.8))
    noise: float = 0.0
    normalize: bool = True
    _norm: float = field(default=1.0, init=False, repr=False, compare=False)
    _factors: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 0 < self.reuse <= self.scratch:
            raise InputError(
                f"timesteps from a checkpoint ({self.reuse}) must be > 0 and at most those "
                f"from scratch ({self.scratch})"
            )
        if not 0 <= self.overhead < float("inf"):
            raise InputError(f"overhead must be a number of seconds >= 0, got {self.overhead}")
        if self.overhead_procs < 0:
            raise InputError(f"overhead_procs must be >= 0, got {self.overhead_procs}")
        for procs, f in self.slowdown:
            if not 0 < f < float("inf"):
                raise InputError(
                    f"slowdown on {procs} processors must be a positive factor, got {f}"
                )
        if self.preemption_cost not in PREEMPTION_COSTS:
            raise InputError(
                f"preemption_cost must be one of {', '.join(PREEMPTION_COSTS)}, "
                f"got {self.preemption_cost!r}"
            )
        if not 0 <= self.spread <= 2:
            raise InputError(f"spread must be from 0 to 2, got {self.spread}")
        dims = len(self.space.names)
        for t in self.targets:
            if len(t) != dims:
                raise InputError(f"a target needs {dims} coordinates (one per parameter)")
        if not self.targets:
            raise InputError("the model needs at least one target (one per objective)")
        if self.normalize and self.spread >= 1e-6:
            n = int(np.prod(self.space.shape))
            if n <= 100_000:
                raw = {d: self._raw(d) for d in self.space.designs()}
                object.__setattr__(self, "_norm", len(raw) / sum(raw.values()))
                self._factors.update((d, v * self._norm) for d, v in raw.items())

    def _rng(self, d: Design, stream: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, stream, *d])

    def _raw(self, d: Design) -> float:
        if self.spread < 1e-6:  # no spread (and no overflow of 1 / spread^2)
            return 1.0
        k = 1.0 / self.spread**2
        return float(self._rng(d, 0).gamma(k, 1.0 / k))

    def factor(self, d: Design) -> float:
        """``X_d``: design ``d``'s share of the mean timesteps."""
        x = self._factors.get(d)
        return self._raw(d) * self._norm if x is None else x

    def steps(self, d: Design, reused: bool) -> int:
        """Timesteps design ``d`` needs, from scratch or from a reused final state (>= 1)."""
        mean = self.reuse if reused else self.scratch
        return max(1, round(mean * self.factor(d)))

    def step_time(self, p: int) -> float:
        """Seconds per timestep on ``p`` processors (a tabulated count), calibrated."""
        return self.scaling.time(p) * self.time_scale

    def start_time(self, p: int) -> float:
        """Seconds a run (or a restart) on ``p`` processors spends outside its timesteps:
        ``overhead``, in proportion to ``p`` when ``overhead_procs`` is set (module doc)."""
        if self.overhead_procs:
            return self.overhead * p / self.overhead_procs
        return self.overhead

    def restart_time(self, p: int) -> float:
        """Seconds a preempted run's new group of ``p`` processors spends before it steps
        again, beyond the spec's ``restart``: ``start_time(p)``, or 0 when
        ``preemption_cost`` is ``"redo"`` (module doc)."""
        return self.start_time(p) if self.preemption_cost == "startup" else 0.0

    def machine_factor(self, procs: int) -> float:
        """The factor every run's time is multiplied by on a machine of ``procs`` processors
        (``slowdown``; 1 for a size it does not list)."""
        return dict(self.slowdown).get(procs, 1.0)

    def objectives(self, d: Design) -> tuple[float, ...]:
        """The objectives of design ``d`` (squared distances to the targets, module doc)."""
        x = unit_coords(self.space, d)
        out = [float(np.sum((x - np.asarray(t)) ** 2)) for t in self.targets]
        if self.noise:
            out = [
                v + float(e)
                for v, e in zip(out, self._rng(d, 1).normal(0, self.noise, len(out)), strict=True)
            ]
        return tuple(out)
