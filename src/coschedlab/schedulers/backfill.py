"""Backfilling: one mechanism, the reservation depth as a parameter.

Jobs are taken in priority order; a job starts now if it fits now and for its whole requested
time without touching an earlier job's reservation; otherwise, while reservations remain
(``reservations``: 1 for EASY, all for conservative), it reserves its earliest slot on the
availability profile (:func:`.profile.reservation_scan`, the scan of Slurm's backfill pass too;
Mu'alem and Feitelson 2001; pybatsim's ``reservation_depth``).

With one reservation the profile is not needed: the reservation is EASY's shadow time, computed
in closed form by :func:`.easy.shadow_time` (the fast path, on by default; the test-suite checks
that it and the profile give identical schedules). ``easy`` and ``conservative`` are presets of
:class:`Backfill`.

Which EASY runs: the compiled pass (:class:`.passes.EasyPass`, set up as ``compiled_pass`` and
called by the kernel on its C arrays) whenever the queue order is a built-in one and no
subclass overrides ``schedule``, ``_easy``, ``_shadow`` or ``ordered_queue``, in every run
without a gate. :meth:`Backfill._easy` runs the others: a custom order key, such subclasses,
coupled runs (their gate re-asks the policy through the view, :meth:`.Simulation.extra_pass`)
and ELiSE's clock (its own event loop on the Python lists). The plan: it goes once the kernel
takes a custom order as a key array and the gate becomes the kernel's own extension point
(issue 31 item 6); a subclass that overrides the pass is a user policy and keeps its own.

Likewise the profile's backfilling (conservative, ``backfill`` with ``reservations`` and
``compress``) runs as :class:`.passes.ProfilePass`, the compiled :func:`.profile.reservation_scan`
on the profile, under the same conditions (no subclass overriding ``schedule``, ``_profile`` or
``pass_order``, a built-in order, no gate). :meth:`Backfill._profile` on the Python scan runs
the rest; it goes with ``_easy``'s, when the gate becomes the kernel's extension point.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import islice
from typing import TYPE_CHECKING

from ..errors import InputError
from .base import Scheduler, check_bool, check_positive
from .cadence import Ticks
from .easy import NodeCounts, ScanMemo, admit, shadow_time
from .passes import EasyPass, ProfilePass
from .profile import Profile, reservation_scan
from .registry import register
from .strict import start_in_order

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.view import View

INF = math.inf
# A zero requested time still holds its nodes for an instant on the profile, so that a
# zero-length reservation protects the instant it is made for.
INSTANT = 1e-6


@register("backfill")
class Backfill(Scheduler):
    """Backfilling that reserves for the first ``reservations`` queued jobs (``None``: every one).

    The first ``reservations`` jobs that cannot start now hold the earliest slot that fits for
    their whole requested time; a later job starts now only if it touches none of those slots.
    ``compress=True`` re-places previously reserved jobs in the order of their previous slots
    before new ones (Mu'alem and Feitelson's compression): then no reservation is ever delayed
    while jobs end by their estimates.

    EASY's own options (one reservation only): ``extra=False`` applies rule (a) only (ELiSE's
    and RLScheduler's variant); ``depth=K`` tries no more than K queued jobs behind the head
    (Slurm's bf_max_job_test); ``interval=T`` backfills only in the first pass at or after each
    multiple of T seconds (Slurm's bf_interval; a wake-up makes that pass happen on time);
    passes in between only start jobs from the head.
    """

    #: with one reservation, compute it in closed form (EASY's shadow time) instead of on the
    #: availability profile; the tests turn it off to check both give the same schedules
    closed_form = True

    def __init__(
        self,
        reservations: int | None = 1,
        order: str = "fcfs",
        compress: bool = False,
        extra: bool = True,
        depth: int | None = None,
        interval: float | None = None,
    ) -> None:
        super().__init__(order)
        self.reservations = check_positive("reservations", reservations, integer=True)
        self.compress = check_bool("compress", compress)
        self.extra = check_bool("extra", extra)
        self.depth = check_positive("depth", depth, integer=True)
        self.interval = check_positive("interval", interval)
        easy_only = [
            k for k, v in (("extra", not extra), ("depth", depth), ("interval", interval)) if v
        ]
        if easy_only and (reservations != 1 or compress):
            raise InputError(
                f"option {easy_only[0]} is EASY's (one reservation, no compression); "
                "it does not apply to this backfilling"
            )
        fcfs = self.order_key is None
        g: list[str] = []
        if fcfs and not compress:
            g.append("head")
        if fcfs:
            easy = reservations == 1 and not compress
            g.append("reservations" if easy or compress else "reservations-exact")
        self.guarantees = tuple(g)

    def setup(self, view: View) -> None:
        self._slot: dict[int, float] = {}
        self._next_backfill = -INF
        self._woken = -INF
        # Slurm's bf_interval cadence (:class:`.cadence.Ticks`), on exact multiples of T
        self._ticks = None if self.interval is None else Ticks(self.interval, slack=0.0)
        self._reserved = bytearray(view.n)  # heads whose reservation is recorded
        self._memo = ScanMemo(self.order_key is None and self.depth is None and not self.interval)
        self._scanned_to = -1  # the last job the last scan looked at
        easy = self.reservations == 1 and not self.compress and self.closed_form
        if not easy:  # how long each job holds its nodes on the profile
            self._length = [r or INSTANT for r in view.req]
        self.schedule = self._easy if easy else self._profile  # type: ignore[method-assign]
        self.compiled_pass = None
        if easy and self._compilable(Backfill, "schedule", "_easy", "_shadow"):
            self.compiled_pass = EasyPass(
                view.n, self.order_name(), self.extra, self.depth, self.interval
            )
        elif not easy and self._compilable(Backfill, "schedule", "_profile", "pass_order"):
            self.compiled_pass = ProfilePass(
                view.n, self.order_name(), self.reservations, self.compress
            )

    def schedule(self, view: View) -> list[int]:
        """Start jobs now (the method chosen at :meth:`setup`: closed form or profile)."""
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


@register("easy")
class EASY(Backfill):
    """EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001): backfilling with one
    reservation, the head job's shadow time.

    1. start jobs from the head of the queue while they fit;
    2. the head job that does not fit gets the shadow time S (first estimated end at which it
       fits) and ``extra`` nodes (free at S beyond its need);
    3. each later job that fits now starts if it ends by S (rule a) or needs no more than
       ``extra`` nodes (rule b, which then shrinks ``extra``).
    """

    def __init__(
        self,
        extra: bool = True,
        depth: int | None = None,
        interval: float | None = None,
        order: str = "fcfs",
    ) -> None:
        super().__init__(1, order, False, extra, depth, interval)


@register("conservative")
class Conservative(Backfill):
    """Conservative backfilling: every queued job holds a reservation."""

    def __init__(self, order: str = "fcfs", compress: bool = False) -> None:
        super().__init__(None, order, compress)
