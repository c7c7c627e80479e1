"""A Slurm-like scheduler: multifactor priority, a FIFO pass at every event and a periodic
backfill pass in which every tested job holds a reservation (sched/backfill).

Composed from the core's pieces: the priority is :class:`.priority.Multifactor`, the backfill
pass is the reservation scan conservative backfilling uses (compiled on the node-count profile,
:class:`.passes.CountScan`; :func:`.profile.reservation_scan` with ``bf_nodes``), limited to
the first ``bf_max_job_test`` pending jobs and run only every ``bf_interval`` seconds
(:class:`.cadence.Ticks`). On the node-count profile the whole pass is compiled
(:class:`.passes.SlurmPass`, called by the kernel without a Python call per pass, with the
arithmetic of the Python pass below; it does not wake for the backfill ticks at which it can
prove that nothing starts and no reservation is recorded). It also serves the gated passes
of coupled runs (:meth:`.passes.SlurmPass.serve_gate`: asked again within a pass after a hold
or a yield, jobs held, hidden or demoted; tests/coupled holds it to the Python pass there),
and ELiSE's clock (a Simulation subclass that copies its lists into the pass's arrays at each
pass and steps to the pass's wake-ups; tests/coloc/elise holds it to the Python pass). The
Python pass runs ``bf_nodes`` (the node-space map places jobs on nodes) and subclasses that
override it; tests/test_properties.py holds the two to the same schedules. Options carry
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
   (:class:`.nodespace.BackfillMap`): a node-space map of the pending jobs' reservations on
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
from bisect import insort
from collections.abc import Mapping
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from ..engine.placement import Placement
from ..errors import InputError
from ..jobs import KeyedArrays
from .base import Scheduler, check_bool, check_choice, check_positive
from .cadence import Ticks
from .nodespace import BackfillMap
from .passes import CountScan, SlurmPass
from .priority import Multifactor, limit_minutes
from .profile import reservation_scan
from .registry import register
from .slurm_conf import conf_option

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.view import View

INF = math.inf
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
    ids = np.asarray(view.ids, dtype=np.int64)  # the kernel's table itself (a buffer)
    by_id = np.argsort(ids, kind="stable")
    pos = np.minimum(np.searchsorted(ids[by_id], jids), max(view.n - 1, 0))
    found = ids[by_id][pos] == jids if view.n else np.zeros(k, bool)
    return (
        np.ascontiguousarray(by_id[pos][found], dtype=np.int64),
        np.ascontiguousarray(origin[found]),
        np.ascontiguousarray(cpus[found]),
        np.ascontiguousarray(limit[found]),
    )


#: the methods of the Python pass: a subclass overriding one of them runs the Python pass
_PASS_METHODS = (
    "schedule", "_pass", "_main", "_backfill", "_key", "_join", "_recalculate", "_end",
    "_state", "_wake", "_wake_for_priorities",
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
        can (the node-count profile, the pass not overridden; with a coupled run's gate and on
        ELiSE's clock too); the Python pass below (``bf_nodes``, subclasses) sets itself up at
        its first call."""
        self._refuse_own_order(Slurm, "its priority (priority=multifactor or fifo)")
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
        self._python = False  # the Python pass's state is made at its first call
        self.compiled_pass = None
        if not self.bf_nodes and self._compilable(Slurm, *_PASS_METHODS):
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
            self.compiled_pass = cp

    def _inherited_size(self, view: View, cpus: int, limit: float) -> float:
        return self.factors.size(view.cluster.nodes_for(cpus), cpus, limit_minutes(limit) * 60.0)

    def _setup_python(self, view: View) -> None:
        """The Python pass's state (its first call: a ``bf_nodes`` run, a subclass)."""
        n = view.n
        self._python = True
        jobs, origin, cpus, limit = self._inherit_arrays
        factors = zip(origin.tolist(), cpus.tolist(), limit.tolist(), strict=True)
        self._inherit: dict[int, tuple[float, int, float]] = dict(
            zip(jobs.tolist(), factors, strict=True)
        )
        self._limit = self._limits.tolist()
        self._counts = CountScan(view.nodes, self._limit, self.bf_resolution)
        self._origin = [0.0] * n
        self._size = [0.0] * n
        self._order: list[tuple[int, int]] = []  # (-priority, j) of pending jobs (lazy removal)
        self._known = bytearray(n)  # jobs that joined (their age origin and size recorded)
        self._listed = bytearray(n)  # jobs in self._order
        self._calc = -INF  # time of the last recalculation
        self._next_calc = -INF
        self._next_bf = -INF
        # the backfill thread's clock and the main scheduler's (:class:`.cadence.Ticks`)
        self._bf_ticks = Ticks(self.bf_interval, self.bf_phase)
        self._sched_ticks = (
            None if self.sched_interval is None else Ticks(self.sched_interval, self.sched_phase)
        )
        self._wakes: set[float] = set()
        self._backfill_passes = 0
        self.started_by: dict[int, str] = {}
        self._taken: list[int] = []  # the jobs the last pass started (checked at the next)
        # what the passes last saw (arrivals, completions, overrides, priorities, starts): a
        # pass over the same state starts nothing, so a tick with nothing new is skipped
        self._arrived = 0
        self._seen_main: tuple | None = None
        self._seen_bf: tuple | None = None

    @property
    def backfill_passes(self) -> int:
        """Backfill passes of the last run (for tests and reports)."""
        if getattr(self, "_python", True) or self.compiled_pass is None:
            return getattr(self, "_backfill_passes", 0)
        return self.compiled_pass.backfill_passes

    # -- priorities -------------------------------------------------------------------------------
    def _key(self, view: View, j: int, now: float) -> tuple[float, int]:
        """Job ``j``'s place in the pending order; the first time, record its age origin
        (eligibility, or the inherited submit time) and size."""
        if self.priority == "fifo":
            self._known[j] = 1
            return (0, j)
        f = self.factors
        if not self._known[j]:
            self._known[j] = 1
            inh = self._inherit.get(j)
            if inh is None:
                self._origin[j] = now
                self._size[j] = f.size(view.nodes[j], view.procs[j], self._limit[j])
            else:
                origin, cpus, limit = inh
                self._origin[j] = origin
                self._size[j] = self._inherited_size(view, cpus, limit)
        origin = self._origin[j]
        # Algorithm 1: a task copies its workflow job's factors as last computed
        return (-f.priority(origin, self._size[j], max(self._calc, min(origin, now))), j)

    def _join(self, view: View, j: int, now: float) -> None:
        insort(self._order, self._key(view, j, now))
        self._listed[j] = 1

    def _recalculate(self, view: View, now: float) -> None:
        period = self.priority_calc_period
        t = math.floor(now / period) * period
        self._calc = t
        self._next_calc = t + period
        queued = view.queued
        f = self.factors
        origin, size = self._origin, self._size
        listed = self._listed
        order = []
        for _, j in self._order:
            if queued[j]:
                order.append((-f.priority(origin[j], size[j], max(t, origin[j])), j))
            else:
                listed[j] = 0
        order.sort()
        self._order = order

    def priority_of(self, j: int, t: float) -> int:
        """Job ``j``'s (view index) multifactor priority at ``t`` from its recorded factors
        (age origin: eligibility, or the inherited submit time; size: its own or inherited)."""
        origin = self.age_origin(j)
        size = self._size[j] if self._python else self.compiled_pass.size_factor(j)
        return self.factors.priority(origin, size, max(t, origin))

    def age_origin(self, j: int) -> float:
        """When job ``j``'s age started counting (eligibility, or the inherited submit time)."""
        return self._origin[j] if self._python else self.compiled_pass.age_origin(j)

    # -- the pass ---------------------------------------------------------------------------------
    def _wake(self, view: View, t: float) -> None:
        if t not in self._wakes:
            self._wakes.add(t)
            view.wake_at(t)

    def schedule(self, view: View) -> list[int]:
        """One pass (Slurm orders its pending jobs by its own priorities). A job the last pass
        started that is still queued (the kernel did not apply the decision: a coupled gate's
        hold or yield) is pending again, with the age origin it joined with."""
        if "_limits" not in vars(self):  # a subclass's setup that skipped Slurm's
            raise self._setup_skipped()
        if not self._python:
            self._setup_python(view)
        if self._taken:
            queued, listed, now = view.queued, self._listed, view.now
            for j in self._taken:
                if queued[j] and not listed[j]:
                    self._join(view, j, now)
            self._taken = []
        return self._pass(view)

    def _state(self, view: View) -> tuple | None:
        """What a pass of the node-level model depends on besides the clock (None when the
        verdict may change with time alone: a running job past its limit, whose planned end
        moves with now, or the node-count profile, whose durations are rounded from now)."""
        est = view.est_sorted
        if not self.bf_nodes or (est and est[0][0] <= view.now):
            return None
        return (
            self._arrived, view.completed, view.free, len(est), self._calc, len(self.started_by)
        )  # fmt: skip

    def _pass(self, view: View) -> list[int]:
        now = view.now
        self._arrived += len(view.joined)
        # a job joins the pending order when it joins the queue, and again when it left the
        # queue without starting (a coupled gate's hold, then release) and came back; each
        # keeps the age origin it first joined with
        listed = self._listed
        for j in view.joined:
            if not listed[j]:
                self._join(view, j, now)
        if self.priority == "multifactor" and now >= self._next_calc:
            self._recalculate(view, now)
        if self._wakes:
            self._wakes = {t for t in self._wakes if t > now}
        order = self._order
        free = view.free
        started: list[int] = []
        # 2. the main scheduler: at every event, or on its own clock (sched_interval)
        if self._sched_ticks is None:
            main = True
        else:
            tick = self._sched_ticks.at_or_after(now)
            main = abs(tick - now) < 1e-9
            state = self._state(view)
            if main and state is not None and state == self._seen_main:
                main = False  # nothing new since the last pass: the same verdict
            elif not main and free > 0 and (state is None or state != self._seen_main):
                self._wake(view, tick)
        if main:
            free = self._main(view, free, started)
            # a pass that started nothing would start nothing again over the same state
            self._seen_main = None if started else self._state(view)
        self._wake_for_priorities(view, free)
        if not order or not self.backfill:
            return started
        # 3. backfill, every bf_interval seconds (at bf_phase past each multiple)
        if self._next_bf == -INF:  # the first backfill: the first tick from now on
            self._next_bf = self._bf_ticks.at_or_after(now)
        state = self._state(view)
        fresh = state is None or state != self._seen_bf
        if now < self._next_bf - 1e-9:
            if free > 0 and fresh:
                self._wake(view, self._next_bf)
            return started
        tick = self._bf_ticks.at_or_after(now)
        if tick > now + 1e-9:  # a tick passed with nothing free: the thread runs on its clock
            self._next_bf = tick
            if free > 0 and fresh:
                self._wake(view, tick)
            return started
        self._next_bf = self._bf_ticks.after(now)  # the first tick after now
        if not fresh:  # nothing new since the last pass: it would start nothing
            return started
        self._backfill_passes += 1
        if free > 0:
            before = len(self.started_by)
            got, free, complete = self._backfill(view, now, free, started)
            started += got
            # only a pass that tested every job and started none would say the same again (a
            # job it starts changes the plans of the jobs it tested before)
            idle = complete and len(self.started_by) == before
            self._seen_bf = state if idle else None
        if free > 0 and order and self._seen_bf is None:
            self._wake(view, self._next_bf)
        return started

    def _wake_for_priorities(self, view: View, free: int) -> None:
        """With an age weight the order changes at each recalculation: a pass then."""
        if (
            free > 0
            and self.bf_nodes
            and self.priority == "multifactor"
            and self.priority_weight_age > 0
            and self._order
            and self._next_calc > view.now
        ):
            self._wake(view, self._next_calc)

    def _main(self, view: View, free: int, started: list[int]) -> int:
        """Priority order, stop at the first job that does not fit; returns the free nodes."""
        queued = view.queued
        nodes = view.nodes
        order = self._order
        k = 0
        n_order = len(order)
        while k < n_order:
            j = order[k][1]
            if queued[j]:
                if nodes[j] > free:
                    break
                self.started_by[j] = "sched"
                self._taken.append(j)
                free -= nodes[j]
                if self.bf_nodes:  # placed now (the kernel's best fit is select/linear's)
                    view.start_now(j)
                else:
                    started.append(j)
            k += 1
        if k:
            listed = self._listed
            for _, j in order[:k]:
                listed[j] = 0
            del order[:k]  # started or no longer pending
        return free

    def _end(self, view: View, est: float, j: int) -> float:
        """When running job ``j`` frees its nodes at the latest: start + its time limit (a
        held job of a coupled system has no start: the view's estimate)."""
        start = view.start[j]
        return est if start != start else start + self._limit[j]

    def _backfill(
        self, view: View, now: float, free: int, started: list[int]
    ) -> tuple[list[int], int, bool]:
        """The backfill pass: the first ``bf_max_job_test`` pending jobs in priority order;
        each starts now if its whole limit fits, else reserves its earliest slot (within
        ``bf_window``; only ``bf_job_part_count_reserve`` of them when set). On the node-count
        profile, or with ``bf_nodes`` on the node-level map (Slurm's node-space map, jobs
        started at once on the nodes planned for them). Returns the jobs to start, the
        nodes left free and whether every pending job was tested."""
        nodes, limit = view.nodes, self._limit
        if self.bf_nodes:  # the jobs of this pass already started (start_now): running
            running = [  # Slurm's end_time: start + the time limit
                (self._end(view, est, r), r,
                 [k for a, b in view.machine.allocation(r) for k in range(a, b)])
                for est, r in view.est_sorted
            ]  # fmt: skip
            space = BackfillMap(
                now, view.cluster.nodes, running, self.bf_resolution, self.bf_window * 60.0
            )
        queued = view.queued
        most = self.bf_max_job_test
        places: list | None = None
        if self.bf_nodes:
            just = set(started)
            tested: list[int] = []  # the first bf_max_job_test pending jobs
            more = False  # and whether any is left untested
            for _, j in self._order:
                if queued[j] and j not in just:
                    if len(tested) == most:
                        more = True
                        break
                    tested.append(j)
            places = []
            out = reservation_scan(
                space, tested, nodes, limit, free, now, view.record_reservation,
                self.bf_job_part_count_reserve, places=places,
            )  # fmt: skip
        else:  # the node-count profile's scan, compiled (:class:`.passes.CountScan`)
            out, more = self._counts.scan(
                now, free, view.est_sorted, view.start, started, self._order, queued, most,
                self.bf_window * 60.0, self.bf_job_part_count_reserve, view.record_reservation,
            )  # fmt: skip
        for j in out:
            self.started_by[j] = "backfill"
            self._taken.append(j)
            free -= nodes[j]
        if places is not None:  # started at once, on the nodes planned for them
            for j, where in zip(out, places, strict=True):
                view.start_now(Placement(j, nodes=where))
            out = []
        # the scan stops when nothing is free; else it tested the first ``most`` jobs
        return out, free, free == 0 or not more
