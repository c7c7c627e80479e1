"""A Slurm-like scheduler: multifactor priority, a FIFO pass at every event and a periodic
backfill pass in which every tested job holds a reservation (sched/backfill).

Composed from the core's pieces: the priority is :class:`.priority.Multifactor`, the backfill
pass is the reservation scan conservative backfilling uses (compiled on the node-count profile,
:class:`.passes.CountScan`; :meth:`.nodemap.NodeMap.scan` with ``bf_nodes``), limited to
the first ``bf_max_job_test`` pending jobs and run only every ``bf_interval`` seconds
(:class:`.cadence.Ticks`). On the node-count profile the whole pass is compiled
(:class:`.passes.SlurmPass`, called by the kernel without a Python call per pass, with the
arithmetic of the Python pass below; it does not wake for the backfill ticks at which it can
prove that nothing starts and no reservation is recorded). It also serves the gated passes
of coupled runs (:meth:`.passes.SlurmPass.serve_gate`: asked again within a pass after a hold
or a yield, jobs held, hidden or demoted), and ELiSE's clock (a Simulation subclass that
copies its lists into the pass's arrays at each pass and steps to the pass's wake-ups). With
``bf_nodes`` the same compiled pass runs the cycle with Slurm's node-space map
(:meth:`.passes.SlurmPass.node_map`): it builds the map (:class:`.nodemap.NodeMap`) from the
kernel's running jobs and their nodes and scans it in C at each backfill pass, and starts
its jobs itself through the kernel (the main scheduler's where the kernel's best fit puts
them, select/linear's; the map's on the nodes planned for them), with no Python call per
pass (a coupled run's gate and ELiSE's clock start them through ``start_now``). It is
the only implementation: the Python pass it replaced is the tests' oracle
(tests/reference_passes.py ``PySlurm``; tests/test_properties.py, tests/coupled,
tests/coloc/elise and tests/workflows hold the two to the same starts, nodes, reservations
and backfill passes). A subclass changes the pass by overriding ``schedule`` (its own pass);
one that overrides a method of the former Python pass (``_main``, ``_backfill``, ...) is
refused at set-up. Options carry
Slurm's parameter names (slurm.conf); the defaults are the configuration of the WoAS
experiments (Rodrigo et al., HPDC'17, Section 4.2; REFERENCE.md section 4), not Slurm's own
defaults.

One pass at time ``now`` (Slurm 22.05's ``schedule()`` then ``_attempt_backfill()``):

1. priorities: every ``priority_calc_period`` seconds all pending jobs get their priority
   recomputed (Slurm's decay thread); a job that becomes eligible gets its priority then (age
   0). ``priority=fifo`` is Slurm's priority/basic: submission order.
2. main scheduler: pending jobs in priority order (ties: submission order) start while they fit;
   the first one that does not fit stops the pass (one partition).
3. backfill, at each multiple of ``bf_interval`` (plus ``bf_phase``) while a job waits, on
   the backfill thread's own clock (a pass that finds nothing free is not made up at a later
   event): a profile of free nodes from the running jobs' ends (start + time limit, rounded
   up to ``bf_resolution``); each of the first ``bf_max_job_test`` pending jobs in
   priority order starts now if its whole time limit fits from now, else reserves its earliest
   slot within ``bf_window`` minutes (only the first ``bf_job_part_count_reserve`` of them,
   when set: 1 makes it EASY-like). With ``bf_nodes`` the pass is Slurm 22.05's own
   (:class:`.nodemap.NodeMap`): a node-space map of the pending jobs' reservations on
   specific nodes, select/linear's will-run test over the running jobs' ends (freed one job
   at a time), retries from the map's next boundary, reservations rounded down to
   ``bf_resolution``; jobs start on the nodes planned for them. It costs nodes x
   reservations per test: turn it on to match a real Slurm on machines of up to a few
   hundred nodes (docs/workflows.md); the default is the node-count profile.

Slurm's own clock (``sched_interval``, ``sched_phase``, ``bf_phase``): by default the main
scheduler runs at every event (job submitted or ended), as the WoAS experiments assume. A real
slurmctld runs it about once a second at a fixed phase, and the backfill thread every
``bf_interval`` at its own phase; with ``sched_interval=1`` (and the phases measured on a real
Slurm, see docs/workflows.md) starts happen on those ticks, the cycle that makes a real Slurm
start jobs up to a second after the event that freed their nodes.

Time limits are whole minutes, as Slurm keeps them. ``inherit`` (Python API only) maps a job id
to the ``(age origin, cpus, time limit)`` it takes its priority factors from instead of its own:
WoAS task jobs inherit their workflow job's submit time and geometry (the seed's Algorithm 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from ..engine.kernel import id_index
from ..errors import InputError
from ..jobs import KeyedArrays
from .base import Scheduler, check_bool, check_choice, check_positive
from .passes import SlurmPass
from .priority import Multifactor
from .registry import register
from .slurm_conf import conf_option

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.view import View

__all__ = ["Inheritance", "Slurm"]


class Inheritance(KeyedArrays):
    """Slurm's ``inherit`` as arrays: job ``jobs[k]`` (an id) takes its priority factors from
    the age origin ``origin[k]``, ``cpus[k]`` cpus and the time limit ``limit[k]``. It reads as
    the mapping ``{id: (origin, cpus, limit)}``; :class:`Slurm` reads the arrays, so a WoAS
    expansion (:func:`.workflows.modes.expand`) makes no Python object per task job."""

    __slots__ = ("cpus", "jobs", "limit", "origin")

    def __init__(
        self, jobs: np.ndarray, origin: np.ndarray, cpus: np.ndarray, limit: np.ndarray
    ) -> None:
        self.jobs = np.ascontiguousarray(jobs, dtype=np.int64)
        self.origin = np.ascontiguousarray(origin, dtype=np.float64)
        self.cpus = np.ascontiguousarray(cpus, dtype=np.int64)
        self.limit = np.ascontiguousarray(limit, dtype=np.float64)
        m = len(self.jobs)
        if self.jobs.ndim != 1 or not all(
            a.shape == (m,) for a in (self.origin, self.cpus, self.limit)
        ):
            raise InputError(f"inherit: jobs, origin, cpus and limit must be {m} values each")
        self._set_keys(self.jobs, "inherit: a job is given more than once")

    def _row(self, k: int) -> tuple[float, int, float]:
        return (self.origin[k].item(), self.cpus[k].item(), self.limit[k].item())

    def __repr__(self) -> str:
        return f"Inheritance({len(self)} jobs)"


def _inherited(
    inherit: Mapping[int, tuple[float, int, float]] | None, view: View
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``inherit`` (job id -> (age origin, cpus, time limit)) as arrays: the view indices of
    the jobs of this run, in the mapping's order (ids not in the run are left out), and their
    origins, cpus and limits."""
    inherit = inherit or {}
    k = len(inherit)
    if isinstance(inherit, Inheritance):
        jids, origin, cpus, limit = inherit.jobs, inherit.origin, inherit.cpus, inherit.limit
    else:
        jids = np.fromiter(inherit, np.int64, k)
        vals = np.fromiter(chain.from_iterable(inherit.values()), np.float64, 3 * k)
        vals = vals.reshape(k, 3)
        origin, cpus, limit = vals[:, 0], vals[:, 1].astype(np.int64), vals[:, 2]
    # (the kernel's id table, in queue order: rising ids are searched in place, no sort)
    pos, found = id_index(view.ids)(np.asarray(jids, dtype=np.int64))
    return (
        np.ascontiguousarray(pos[found], dtype=np.int64),
        np.ascontiguousarray(origin[found]),
        np.ascontiguousarray(cpus[found]),
        np.ascontiguousarray(limit[found]),
    )


#: the methods of the Python pass the compiled one replaced (tests/reference_passes.py): a
#: subclass that overrides one would change nothing, so it is refused at set-up
_FORMER_PASS_METHODS = (
    "_pass", "_main", "_backfill", "_key", "_join", "_recalculate", "_end", "_state",
    "_wake", "_wake_for_priorities", "_setup_python", "_node_scan",
)  # fmt: skip


@register("slurm")
class Slurm(Scheduler):
    """Slurm's cycle: multifactor priority, a FIFO pass at every event, backfill every
    bf_interval s over the first bf_max_job_test jobs, each tested job reserved (defaults: the
    WoAS experiments' Slurm).

    See the module docstring for the pass and every option."""

    api_only = ("inherit",)

    @conf_option  # conf=FILE: a site's slurm.conf fills in the options not given
    def __init__(
        self,
        priority: str = "multifactor",
        priority_weight_age: float = 5e7,
        priority_weight_job_size: float = 6e8,
        priority_max_age: float = 7 * 86400,
        priority_favor_small: bool = True,
        small_relative_to_time: bool = True,
        priority_calc_period: float = 300,
        backfill: bool = True,
        bf_interval: float = 30,
        bf_max_job_test: int = 50,
        bf_resolution: float = 60,
        bf_window: float = 1440,
        bf_job_part_count_reserve: int | None = None,
        bf_nodes: bool = False,
        bf_phase: float = 0.0,
        sched_interval: float | None = None,
        sched_phase: float = 0.0,
        inherit: Mapping[int, tuple[float, int, float]] | None = None,
        conf: str | None = None,
    ) -> None:
        super().__init__("fcfs")
        self.priority = check_choice("priority", priority, ("multifactor", "fifo"))
        for name in ("priority_weight_age", "priority_weight_job_size"):
            v = locals()[name]
            if (
                isinstance(v, bool)
                or not isinstance(v, int | float)
                or not math.isfinite(v)
                or not 0 <= v <= 2**32
            ):
                raise InputError(
                    f"option {name} must be a finite number from 0 to 2**32, got {v!r}"
                )
        self.priority_weight_age = priority_weight_age
        self.priority_weight_job_size = priority_weight_job_size
        need = {"allow_none": False}  # "none", "all" and "inf" are not values of these
        self.priority_max_age = check_positive("priority_max_age", priority_max_age, **need)
        self.priority_favor_small = check_bool("priority_favor_small", priority_favor_small)
        self.small_relative_to_time = check_bool("small_relative_to_time", small_relative_to_time)
        self.priority_calc_period = check_positive(
            "priority_calc_period", priority_calc_period, **need
        )
        self.backfill = check_bool("backfill", backfill)
        self.bf_interval = check_positive("bf_interval", bf_interval, **need)
        self.bf_max_job_test = check_positive(
            "bf_max_job_test", bf_max_job_test, integer=True, **need
        )
        self.bf_resolution = check_positive("bf_resolution", bf_resolution, **need)
        self.bf_window = check_positive("bf_window", bf_window, **need)
        for name, v in (("bf_interval", bf_interval), ("sched_interval", sched_interval),
                        ("bf_resolution", bf_resolution)):  # fmt: skip
            if v is not None and v < 0.01:
                raise InputError(f"option {name} must be at least 0.01 s, got {v!r}")
        self.bf_job_part_count_reserve = check_positive(
            "bf_job_part_count_reserve", bf_job_part_count_reserve, integer=True
        )
        self.bf_nodes = check_bool("bf_nodes", bf_nodes)
        self.sched_interval = check_positive("sched_interval", sched_interval)
        for name, v, top in (
            ("bf_phase", bf_phase, bf_interval),
            ("sched_phase", sched_phase, sched_interval or 1.0),
        ):
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v < top:
                raise InputError(f"option {name} must be in [0, its interval), got {v!r}")
        self.bf_phase = bf_phase
        self.sched_phase = sched_phase
        self.inherit = inherit
        self.conf = conf

    # -- set-up ---------------------------------------------------------------------------------
    def setup(self, view: View) -> None:
        """Make the compiled pass (:class:`.passes.SlurmPass`) that the kernel calls when it
        always (the node-count profile or ``bf_nodes``' node-space map; with a coupled run's
        gate and on ELiSE's clock too), unless a subclass overrides ``schedule``."""
        self._refuse_own_order(Slurm, "its priority (priority=multifactor or fifo)")
        self._refuse_former_methods(Slurm, _FORMER_PASS_METHODS, "Slurm's pass")
        c = view.cluster
        self.factors = Multifactor(
            self.priority_weight_age,
            self.priority_weight_job_size,
            self.priority_max_age,
            self.priority_favor_small,
            self.small_relative_to_time,
            c.total_cores,
            c.cores_per_node,
        )
        req = np.asarray(view.req, dtype=np.float64)
        # limit_minutes(r) * 60, the same arithmetic
        self._limits = np.maximum(1.0, np.ceil(req / 60.0 - 1e-9)) * 60.0
        self._inherit_arrays = _inherited(self.inherit, view)
        self._view = view
        self.compiled_pass = None
        if self._compilable(Slurm, "schedule"):
            cp = SlurmPass(
                view.nodes, view.procs, self._limits, float(c.total_cores),
                c.cores_per_node, self.priority, self.priority_weight_age,
                self.priority_weight_job_size, self.priority_max_age, self.priority_favor_small,
                self.small_relative_to_time, self.priority_calc_period, self.backfill,
                self.bf_interval, self.bf_max_job_test, self.bf_resolution,
                self.bf_window * 60.0, self.bf_job_part_count_reserve, self.bf_phase,
                self.sched_interval, self.sched_phase,
            )  # fmt: skip
            cp.inherit(*self._inherit_arrays)
            if self.bf_nodes:
                cp.node_map(c.nodes)
            self.compiled_pass = cp

    @property
    def backfill_passes(self) -> int:
        """Backfill passes of the last run (for tests and reports)."""
        cp = getattr(self, "compiled_pass", None)
        return 0 if cp is None else cp.backfill_passes

    # -- priorities -------------------------------------------------------------------------------
    def priority_of(self, j: int, t: float) -> int:
        """Job ``j``'s (view index) multifactor priority at ``t`` from its recorded factors
        (age origin: eligibility, or the inherited submit time; size: its own or inherited)."""
        origin = self.age_origin(j)
        return self.factors.priority(origin, self._compiled().size_factor(j), max(t, origin))

    def age_origin(self, j: int) -> float:
        """When job ``j``'s age started counting (eligibility, or the inherited submit time)."""
        return self._compiled().age_origin(j)

    def _compiled(self) -> SlurmPass:
        cp = getattr(self, "compiled_pass", None)
        if cp is None:
            raise InputError(f"scheduler {self.describe()} has no compiled pass: run it first")
        return cp

    # -- the pass ---------------------------------------------------------------------------------
    def schedule(self, view: View) -> list[int]:
        """The kernel runs this policy's compiled pass (:attr:`compiled_pass`,
        :class:`.passes.SlurmPass`) instead; a subclass that overrides ``schedule`` writes its
        own pass."""
        raise self._no_python_pass(Slurm)
