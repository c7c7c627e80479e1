"""The built-in passes in Python: the oracles of the compiled ones (issue 31 item 2).

The package runs one implementation of each built-in pass, the compiled one
(:mod:`coschedlab.schedulers.passes`, called by the kernel on its C arrays). These are the
Python passes they replaced, kept here only to check them on random workloads
(tests/test_properties.py, tests/test_slurm_lookahead.py): :func:`python_pass` turns a
built-in scheduler into one that runs its Python pass through the view (a subclass overriding
``schedule`` runs its own pass); :func:`same_as_python` runs Slurm both ways.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import islice
from typing import TYPE_CHECKING

from coschedlab import Cluster, Workload, simulate
from coschedlab.schedulers import Slurm, get_scheduler
from coschedlab.schedulers.backfill import INSTANT, Backfill
from coschedlab.schedulers.base import Scheduler
from coschedlab.schedulers.cadence import Ticks
from coschedlab.schedulers.easy import NodeCounts, ScanMemo, admit, shadow_time
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


def python_pass(spec: str) -> Scheduler:
    """``spec``'s built-in scheduler, with the same options, running its Python pass."""
    sched = get_scheduler(spec)
    for oracle in (PyBackfill, PyFirstFit, PyFCFS):
        if isinstance(sched, oracle.__mro__[1]):
            sched.__class__ = type("PythonPass", (oracle, type(sched)), {"name": sched.name})
            return sched
    raise ValueError(f"no Python pass for {spec}")


def python_slurm(**opts) -> Slurm:
    """A ``Slurm`` that runs the Python pass (its ``schedule`` overridden: not compilable)."""
    slow = Slurm(**opts)
    python_schedule = lambda self, view: Slurm.schedule(self, view)  # noqa: E731
    slow.__class__ = type("PythonPass", (Slurm,), {"schedule": python_schedule, "name": "slurm"})
    return slow


def same_as_python(w: Workload, cluster: Cluster, opts: dict, kill: bool) -> tuple[Slurm, Slurm]:
    """Run Slurm's compiled pass and its Python pass; assert the same starts, first
    reservations and backfill passes; return both schedulers (compiled, Python)."""
    fast = Slurm(**opts)
    compiled = simulate(w, cluster, fast, kill_at_walltime=kill)
    assert fast.compiled_pass is not None
    slow = python_slurm(**opts)
    python = simulate(w, cluster, slow, kill_at_walltime=kill)
    assert slow.compiled_pass is None
    assert compiled.jobs.start.tolist() == python.jobs.start.tolist()
    assert compiled.jobs.reservation.fillna(-1).tolist() == (
        python.jobs.reservation.fillna(-1).tolist()
    )
    assert fast.backfill_passes == slow.backfill_passes
    return fast, slow
