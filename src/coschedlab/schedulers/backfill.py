"""Backfilling: EASY (one reservation) and conservative (a reservation for every job).

Both are settings of one mechanism, the availability profile of :mod:`.profile`: jobs are
taken in priority order; a job starts now if it fits now and for its whole requested time
without touching an earlier job's reservation; otherwise, while reservations remain
(``reservations``: 1 for EASY, all for conservative), it reserves its earliest slot.

:class:`EASY` computes the same schedule as ``backfill:reservations=1`` in closed form
(shadow time and extra nodes, Lifka 1995; Mu'alem & Feitelson 2001), which is what makes it
fast; the test-suite checks that both give identical schedules.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .base import Scheduler
from .profile import Profile
from .registry import register

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.kernel import Simulation

INF = math.inf
# A zero requested time still holds its nodes for an instant on the profile, so that a
# zero-length reservation protects the instant it is made for.
INSTANT = 1e-6


def _positive(name: str, value: Any, allow_none: bool = True) -> Any:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise InputError(f"option {name} must be a positive number, got {value!r}")
    return value


@register("easy")
class EASY(Scheduler):
    """EASY backfilling (REFERENCE.md section 1).

    1. start jobs from the head of the queue while they fit;
    2. the head job that does not fit gets the shadow time S (first estimated end at which it
       fits) and ``extra`` nodes (free at S beyond its need);
    3. each later job that fits now starts if it ends by S (rule a) or needs no more than
       ``extra`` nodes (rule b, which then shrinks ``extra``).

    ``extra=False`` applies rule (a) only (ELiSE's and RLScheduler's variant); ``depth=K``
    looks at no more than K queued jobs behind the head (Slurm's bf_max_job_test);
    ``interval=T`` backfills only in the first pass at or after each multiple of T seconds
    (Slurm's bf_interval; a wake-up makes that pass happen on time when jobs wait behind the
    head even if no job arrives or ends then); passes in between only start from the head.
    """

    def __init__(
        self,
        extra: bool = True,
        depth: int | None = None,
        interval: float | None = None,
        order: str = "fcfs",
    ) -> None:
        super().__init__(order)
        if not isinstance(extra, bool):
            raise InputError(f"option extra must be true or false, got {extra!r}")
        self.extra = extra
        self.depth = _positive("depth", depth)
        if depth is not None and not isinstance(depth, int):
            raise InputError(f"option depth must be a whole number, got {depth!r}")
        self.interval = _positive("interval", interval)

    def params(self) -> dict[str, Any]:
        p = super().params()
        if not self.extra:
            p["extra"] = False
        if self.depth is not None:
            p["depth"] = self.depth
        if self.interval is not None:
            p["interval"] = self.interval
        return p

    def setup(self, view: Simulation) -> None:
        self._next_backfill = -INF
        self._woken = -INF
        # what the last backfill scan saw: (head, jobs completed, last job scanned)
        self._last = (-1, -1, -1)
        self._incremental = self.order_key is None and self.depth is None and not self.interval

    def schedule(self, view: Simulation) -> list[int]:
        q = self.ordered_queue(view)
        nodes = view.nodes
        free = view.free
        nq = len(q)
        started: list[int] = []
        i = 0
        while i < nq and nodes[q[i]] <= free:
            started.append(q[i])
            free -= nodes[q[i]]
            i += 1
        if i == nq:
            return started
        head = q[i]
        now = view.now
        backfill = free > 0 and i + 1 < nq
        if self.interval is not None:
            if now >= self._next_backfill:
                # a backfill pass is due (Slurm's bf_interval cadence: multiples of T)
                self._next_backfill = (math.floor(now / self.interval) + 1) * self.interval
            else:
                if backfill and self._woken != self._next_backfill:
                    view.wake_at(self._next_backfill)
                    self._woken = self._next_backfill
                backfill = False
        first_time = view.reservation[head] != view.reservation[head]
        if not (backfill or first_time):
            return started
        req = view.req
        just = [(now + req[j], nodes[j]) for j in started]
        shadow, extra = view.shadow(nodes[head], free, just)
        view.record_reservation(head, shadow)
        if not backfill:
            return started
        use_extra = self.extra
        limit = nq if self.depth is None else min(nq, i + 1 + self.depth)
        first = i + 1
        if self._incremental:
            # Since the last scan, if no job ended, the head is the same and no running job is
            # past its estimate, then S and extra are what that scan left and "now" only grew:
            # every job it did not start still cannot start. Only new arrivals need a look.
            est = view.est_sorted
            key = (head, view.completed)
            if not started and self._last[:2] == key and (not est or est[0][0] >= now):
                first = max(first, bisect_right(q, self._last[2]))
            self._last = (head, view.completed, q[-1])
        for k in range(first, limit):
            j = q[k]
            nj = nodes[j]
            if nj > free:
                continue
            if now + req[j] <= shadow:
                started.append(j)
                free -= nj
            elif use_extra and nj <= extra:
                started.append(j)
                free -= nj
                extra -= nj
            else:
                continue
            if free == 0:
                break
        return started


@register("backfill")
class Backfill(Scheduler):
    """Backfilling with ``reservations`` reservations on the availability profile.

    The profile is rebuilt from scratch at every pass from the running jobs' estimated ends
    (``now`` for a job past its estimate); jobs are placed in priority order, each at its
    earliest slot that fits for its whole requested time; jobs whose slot is now start. Only the
    first ``reservations`` jobs that cannot start hold a slot (``None``: every job,
    i.e. conservative backfilling; 1: EASY).

    ``compress=True`` places previously reserved jobs in the order of their previous slots
    before new ones (Mu'alem & Feitelson's compression). Then no reservation is ever delayed
    while jobs end by their estimates; in queue order (the default) a job that ends early can
    let an earlier-queued job take the slot of a later one (docs/semantics.md).
    """

    def __init__(
        self, reservations: int | None = 1, order: str = "fcfs", compress: bool = False
    ) -> None:
        super().__init__(order)
        self.reservations = _positive("reservations", reservations)
        if reservations is not None and not isinstance(reservations, int):
            raise InputError(f"option reservations must be a whole number, got {reservations!r}")
        if not isinstance(compress, bool):
            raise InputError(f"option compress must be true or false, got {compress!r}")
        self.compress = compress

    def params(self) -> dict[str, Any]:
        p = super().params()
        p["reservations"] = "all" if self.reservations is None else self.reservations
        if self.compress:
            p["compress"] = True
        return p

    def setup(self, view: Simulation) -> None:
        self._slot: dict[int, float] = {}

    def pass_order(self, view: Simulation) -> list[int]:
        q = self.ordered_queue(view)
        if not self.compress:
            return q
        slot = self._slot
        rank = {j: r for r, j in enumerate(q)}
        return sorted(q, key=lambda j: (slot.get(j, INF), rank[j]))

    def schedule(self, view: Simulation) -> list[int]:
        now = view.now
        nodes, req = view.nodes, view.req
        free = view.free
        prof = Profile(now, free, [(e, nodes[j]) for e, j in view.est_sorted])
        limit = self.reservations
        full = self.compress
        reserved = 0
        started: list[int] = []
        slot = self._slot
        for j in self.pass_order(view):
            if free == 0 and not full and (limit is None or reserved >= limit):
                break  # nothing else can start now; later slots are recomputed next pass
            nj = nodes[j]
            d = req[j] or INSTANT
            t = prof.earliest(nj, d)
            if t == now and nj <= free:
                started.append(j)
                free -= nj
                prof.reserve(now, d, nj)
                if full:
                    slot.pop(j, None)
            elif limit is None or reserved < limit:
                prof.reserve(t, d, nj)
                reserved += 1
                if full:
                    slot[j] = t
                view.record_reservation(j, t)
        return started


@register("conservative")
class Conservative(Backfill):
    """Conservative backfilling: every queued job holds a reservation (REFERENCE.md s. 1)."""

    def __init__(self, order: str = "fcfs", compress: bool = False) -> None:
        super().__init__(reservations=None, order=order, compress=compress)

    def params(self) -> dict[str, Any]:
        p = super().params()
        p.pop("reservations")
        return p
