"""ELiSE's "Conservative Scheduler" as its code runs (``schedulers/conservative.py``).

It is not conservative backfilling (use ``conservative`` for that). At every pass it starts
jobs in queue order while they fit on whole idle nodes (FIFO), then:

1. the head job gets no reservation; the next ``depth`` jobs get one each, in queue order;
2. the first of them is reserved at the first running job's estimated end (start + requested
   time) at which the idle nodes plus the nodes of the jobs ended so far hold it;
3. each later one at the previous reservation plus the first estimated end (counted from now)
   at which the nodes of the running jobs still listed hold it, idle nodes not counted (ELiSE
   empties its free-node list after the first reservation: ``rslots`` is the same list object
   as ``free_slots``); a running job leaves the list once the estimated ends subtracted so far
   exceed its *actual* remaining time (ELiSE reads ``remaining_time``);
4. a job whose requested time is no longer than its reservation starts now if it fits.

Reading actual remaining run times makes it clairvoyant: it declares ``clairvoyant = True``
and the kernel gives it ``view.remaining`` (no other policy gets it).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ...schedulers.base import Scheduler, check_bool, check_positive
from ...schedulers.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.view import View

INF = math.inf


@register("elise-conservative")
class EliseConservative(Scheduler):
    """ELiSE's Conservative Scheduler, bugs included (see the module doc): FIFO, then
    reservations for the ``depth`` jobs behind the head computed as ELiSE's code does."""

    clairvoyant = True

    def __init__(self, depth: int | None = 100, backfill: bool = True) -> None:
        super().__init__("fcfs")
        self.depth = check_positive("depth", depth, integer=True)
        self.backfill = check_bool("backfill", backfill)

    def schedule(self, view: View) -> list:
        nodes, req, start = view.nodes, view.req, view.start
        waiting = list(view.queue)
        i = 0
        while i < len(waiting) and nodes[waiting[i]] <= view.free:
            view.start_now(waiting[i])
            i += 1
        waiting = waiting[i:]
        if not self.backfill or len(waiting) <= 1:
            return []
        cands = waiting[1 : None if self.depth is None else self.depth + 1]
        now = view.now
        # the execution list: running jobs by estimated end (ties do not change any value)
        alive = [(est, x) for est, x in view.est_sorted]
        left = {x: view.remaining(x) for _, x in alive}
        reserves: list[float] = []
        at = 0.0
        for level, b in enumerate(cands):
            count = view.free if level == 0 else 0
            found = INF
            for _, x in alive:
                count += nodes[x]
                if count >= nodes[b]:
                    found = req[x] - (now - start[x])
                    break
            reserves.append(at + found)
            if found == INF:
                break
            for x in left:
                left[x] -= found
            alive = [(e, x) for e, x in alive if left[x] > 0]
            at += found
        for b, r in zip(cands, reserves, strict=False):
            if req[b] <= r and nodes[b] <= view.free:
                view.start_now(b)
        return []
