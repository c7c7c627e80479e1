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

The pass is compiled, one implementation for every run: :class:`.passes.EasyPass` (closed
form) or :class:`.passes.ProfilePass` (the compiled :func:`.profile.reservation_scan` on the
profile), made at :meth:`Backfill.setup` and called by the kernel on its C arrays with the
queue in the policy's order: a built-in order, any ``order_key`` callable (the kernel sorts
by it once per pass) or a subclass's own ``ordered_queue``; in coupled runs the kernel's gate
holds, yields and demotes jobs in the queue it presents (the pass knows nothing of it); on
ELiSE's clock the kernel copies its Python lists into the pass's arrays. A subclass that
overrides ``schedule`` writes its own pass from the building blocks (:func:`.strict.
start_in_order`, :func:`.easy.shadow_time`, :func:`.easy.admit`, :func:`.profile.
reservation_scan`). The Python passes the compiled ones replaced are the test-suite's oracles
(tests/reference_passes.py).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..errors import InputError
from .base import Scheduler, check_bool, check_positive
from .passes import EasyPass, ProfilePass
from .registry import register

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
        # a subclass's own ordered_queue is another order too: the head the validator checks
        # (the first in FCFS order) is not its head
        fcfs = self.order_key is None and type(self).ordered_queue is Scheduler.ordered_queue
        g: list[str] = []
        if fcfs and not compress:
            g.append("head")
        if fcfs:
            easy = reservations == 1 and not compress
            g.append("reservations" if easy or compress else "reservations-exact")
        self.guarantees = tuple(g)

    def setup(self, view: View) -> None:
        easy = self.reservations == 1 and not self.compress and self.closed_form
        self.compiled_pass = None
        if self._compilable(Backfill, "schedule"):
            self.compiled_pass = (
                EasyPass(view.n, self.order_name(), self.extra, self.depth, self.interval)
                if easy
                else ProfilePass(view.n, self.order_name(), self.reservations, self.compress)
            )

    def schedule(self, view: View) -> list[int]:
        """The kernel runs this policy's compiled pass (:attr:`compiled_pass`) instead; a
        subclass that overrides ``schedule`` writes its own pass (from :func:`.strict.
        start_in_order`, :func:`.easy.shadow_time`, :func:`.easy.admit`,
        :func:`.profile.reservation_scan`)."""
        raise self._no_python_pass(Backfill)


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
