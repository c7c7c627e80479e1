"""The built-in passes in Python: the oracles of the compiled ones (issue 31 item 2).

The package runs one implementation of each built-in pass, the compiled one
(:mod:`coschedlab.schedulers.passes`, called by the kernel on its C arrays). These are the
Python passes they replaced, kept here only to check them on random workloads
(tests/test_properties.py, tests/test_slurm_lookahead.py, tests/coupled, tests/coloc/elise):
:func:`python_pass` turns a built-in scheduler into one that runs its Python pass through the
view (a subclass overriding ``schedule`` runs its own pass); :class:`PySlurm` is Slurm's
Python pass (:func:`python_slurm`), :func:`same_as_python` runs Slurm both ways.
"""

from __future__ import annotations

import math
from bisect import bisect_right, insort
from itertools import islice
from typing import TYPE_CHECKING

from nodespace_oracle import BackfillMap

from coschedlab import Cluster, Workload, simulate
from coschedlab.engine.placement import Placement
from coschedlab.schedulers import Slurm, get_scheduler
from coschedlab.schedulers.backfill import INSTANT, Backfill
from coschedlab.schedulers.base import Scheduler
from coschedlab.schedulers.cadence import Ticks
from coschedlab.schedulers.easy import NodeCounts, ScanMemo, admit, shadow_time
from coschedlab.schedulers.passes import CountScan
from coschedlab.schedulers.priority import limit_minutes
from coschedlab.schedulers.profile import Profile, reservation_scan
from coschedlab.schedulers.strict import FCFS, FirstFit, start_in_order

if TYPE_CHECKING:  # pragma: no cover
    from coschedlab.engine.view import View

INF = math.inf


class PyBackfill(Backfill):
    """:class:`~coschedlab.schedulers.backfill.Backfill`'s pass in Python (closed-form EASY
    with one reservation, else the reservation scan on the profile)."""

    def setup(self, view: View) -> None:
        super().setup(view)
        self._slot: dict[int, float] = {}
        self._next_backfill = -INF
        self._woken = -INF
        # Slurm's bf_interval cadence (:class:`.cadence.Ticks`), on exact multiples of T
        self._ticks = None if self.interval is None else Ticks(self.interval, slack=0.0)
        self._reserved = bytearray(view.n)  # heads whose reservation is recorded
        self._memo = ScanMemo(self.order_key is None and self.depth is None and not self.interval)
        self._scanned_to = -1  # the last job the last scan looked at
        self._length = [r or INSTANT for r in view.req]

    def schedule(self, view: View) -> list[int]:
        if self.reservations == 1 and not self.compress and self.closed_form:
            return self._easy(view)
        return self._profile(view)

    # -- one reservation in closed form (EASY) ---------------------------------------------------
    def _easy(self, view: View) -> list[int]:
        """EASY (Lifka 1995; Mu'alem and Feitelson 2001; :mod:`.easy`): the jobs that fit
        from the head in order (:func:`.strict.start_in_order`), the head's shadow time
        (:func:`.easy.shadow_time`), then the later jobs that fit now by rule (a) or (b)
        (:func:`.easy.admit`)."""
        q = self.ordered_queue(view)
        nodes = view.nodes
        free = view.free
        started = start_in_order(view, q, free)
        i = len(started)
        nq = len(q)
        if i == nq:
            return started
        for j in started:
            free -= nodes[j]
        head = q[i]
        now = view.now
        backfill = free > 0 and i + 1 < nq
        if self._ticks is not None:
            if now >= self._next_backfill:
                # a backfill pass is due (the first pass at or after a multiple of T)
                self._next_backfill = self._ticks.after(now)
            else:
                if backfill and self._woken != self._next_backfill:
                    view.wake_at(self._next_backfill)
                    self._woken = self._next_backfill
                backfill = False
        shadow = extra = None  # computed when needed: a new head, or a job that fits now
        if not self._reserved[head]:
            shadow, extra = self._shadow(view, head, free, started)
            view.record_reservation(head, shadow)
            self._reserved[head] = 1
        if not backfill:
            return started
        req = view.req
        use_extra = self.extra
        limit = nq if self.depth is None else min(nq, i + 1 + self.depth)
        first = i + 1
        # nothing changed since the last scan: every job it did not start still cannot start
        # ("now" only grew), so only the jobs that arrived since need a look
        if self._memo.same(view, head) and not started:
            first = max(first, bisect_right(q, self._scanned_to))
        self._scanned_to = q[-1]
        # EASY's step 2 for the jobs that fit now: rule (a) ends by S, rule (b) fits in extra
        for j in islice(q, first, limit):
            nj = nodes[j]
            if nj > free:
                continue
            if shadow is None:  # before any job started by these rules: free is as above
                shadow, extra = self._shadow(view, head, free, started)
            left = admit(now, req[j], shadow, nj, extra, use_extra)
            if left < 0:
                continue
            extra = left
            started.append(j)
            free -= nj
            if free == 0:
                break
        return started

    def _shadow(self, view: View, head: int, free: int, started: list[int]) -> tuple[float, int]:
        """EASY's shadow time and extra nodes (:func:`.easy.shadow_time`) for ``head`` with
        ``free`` nodes idle, the jobs of ``started`` running from now."""
        now, req = view.now, view.req
        just = [(now + req[j], j) for j in started] if started else ()
        return shadow_time(view, view.nodes[head], NodeCounts(free, view.nodes), just)

    # -- the availability profile ------------------------------------------------------------------
    def pass_order(self, view: View) -> list[int]:
        q = self.ordered_queue(view)
        if not self.compress:
            return q
        slot = self._slot
        rank = {j: r for r, j in enumerate(q)}
        return sorted(q, key=lambda j: (slot.get(j, INF), rank[j]))

    def _profile(self, view: View) -> list[int]:
        """The reservation scan (:func:`.profile.reservation_scan`) on the profile of the
        running jobs' estimated ends."""
        now = view.now
        nodes = view.nodes
        free = view.free
        prof = Profile(now, free, [(e, nodes[j]) for e, j in view.est_sorted])
        full = self.compress
        # with a limited number of reservations (or compression) the scan goes on while
        # nothing is free, until they are made; with all of them it stops there (nothing
        # else can start now, later slots are recomputed next pass)
        return reservation_scan(
            prof, self.pass_order(view), nodes, self._length, free, now,
            view.record_reservation, self.reservations, full or self.reservations is not None,
            self._slot if full else None,
        )  # fmt: skip


class PyFCFS(FCFS):
    """Strict list scheduling (fcfs, sjf) in Python."""

    def schedule(self, view: View) -> list[int]:
        return start_in_order(view, self.ordered_queue(view), view.free)


class PyFirstFit(FirstFit):
    """First fit in Python."""

    def schedule(self, view: View) -> list[int]:
        nodes = view.nodes
        free = view.free
        started = []
        for j in self.ordered_queue(view):
            if free == 0:
                break
            if nodes[j] <= free:
                free -= nodes[j]
                started.append(j)
        return started


class PySlurm(Slurm):
    """:class:`~coschedlab.schedulers.slurm.Slurm`'s pass in Python, as the package ran it
    before the compiled :class:`~coschedlab.schedulers.passes.SlurmPass` replaced it: the
    node-count profile's scan (the compiled :class:`~coschedlab.schedulers.passes.CountScan`,
    called once per backfill pass) or, with ``bf_nodes``, Slurm's node-space map
    (:class:`nodespace_oracle.BackfillMap`, tests/nodespace_oracle.py) with
    :func:`profile.reservation_scan`.
    It overrides ``schedule``, so the kernel asks it through the view."""

    name = "slurm"

    def setup(self, view: View) -> None:
        super().setup(view)
        self._python = False  # the Python pass's state is made at its first call

    def _inherited_size(self, view: View, cpus: int, limit: float) -> float:
        return self.factors.size(view.cluster.nodes_for(cpus), cpus, limit_minutes(limit) * 60.0)

    def _setup_python(self, view: View) -> None:
        """The Python pass's state (made at its first call)."""
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
        """Backfill passes of the last run."""
        return getattr(self, "_backfill_passes", 0)

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
        size = self._size[j]
        return self.factors.priority(origin, size, max(t, origin))

    def age_origin(self, j: int) -> float:
        """When job ``j``'s age started counting (eligibility, or the inherited submit time)."""
        return self._origin[j]

    # -- the pass ---------------------------------------------------------------------------------
    def _wake(self, view: View, t: float) -> None:
        if t not in self._wakes:
            self._wakes.add(t)
            view.wake_at(t)

    def schedule(self, view: View) -> list[int]:
        """One pass (Slurm orders its pending jobs by its own priorities). A job the last pass
        started that is still queued (the kernel did not apply the decision: a coupled gate's
        hold or yield) is pending again, with the age origin it joined with."""
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
            cores = view.cluster.cores_per_node if view.machine.shared else 0  # whole nodes
            for j, where in zip(out, places, strict=True):
                view.start_now(Placement(j, nodes=where, cores=cores))
            out = []
        # the scan stops when nothing is free; else it tested the first ``most`` jobs
        return out, free, free == 0 or not more


def python_pass(spec: str) -> Scheduler:
    """``spec``'s built-in scheduler, with the same options, running its Python pass."""
    sched = get_scheduler(spec)
    for oracle in (PyBackfill, PyFirstFit, PyFCFS):
        if isinstance(sched, oracle.__mro__[1]):
            sched.__class__ = type("PythonPass", (oracle, type(sched)), {"name": sched.name})
            return sched
    raise ValueError(f"no Python pass for {spec}")


def python_slurm(**opts) -> Slurm:
    """A ``Slurm`` with these options that runs the Python pass (:class:`PySlurm`)."""
    return PySlurm(**opts)


def same_as_python(w: Workload, cluster: Cluster, opts: dict, kill: bool) -> tuple[Slurm, Slurm]:
    """Run Slurm's compiled pass and its Python pass; assert the same starts, nodes, first
    reservations and backfill passes; return both schedulers (compiled, Python)."""
    fast = Slurm(**opts)
    compiled = simulate(w, cluster, fast, kill_at_walltime=kill)
    assert fast.compiled_pass is not None
    slow = python_slurm(**opts)
    python = simulate(w, cluster, slow, kill_at_walltime=kill)
    assert slow.compiled_pass is None
    assert compiled.jobs.start.tolist() == python.jobs.start.tolist()
    assert compiled.jobs.alloc.tolist() == python.jobs.alloc.tolist()
    assert compiled.jobs.reservation.fillna(-1).tolist() == (
        python.jobs.reservation.fillna(-1).tolist()
    )
    assert fast.backfill_passes == slow.backfill_passes
    return fast, slow
