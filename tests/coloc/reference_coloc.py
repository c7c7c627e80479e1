"""An independent, plain version of easy-coloc's backfill (the oracle of the tests).

Every pass, from scratch: the head's shadow time on shared nodes (the first running job's
estimated end at which it fits, even when it fits now), then every later job in queue
order that fits now starts if it ends by the shadow time (rule a) or if the head still fits
at the shadow time with its cores in use (rule b). No caches, no job classes.
"""

from __future__ import annotations

import math

from coschedlab.coloc.schedulers import CoScheduler


class PlainBackfill:
    """Mixin replacing a co-scheduler's backfill by the plain linear scan."""

    def _backfill(self, view) -> None:
        sh = view.machine
        rest = [j for j in view.queue if view.queued[j]]
        if len(rest) < 2:
            return
        head, cands = rest[0], rest[1:]
        if self.depth is not None:
            cands = cands[: self.depth]
        cores = [self.shape(j)[0] for j in range(view.n)]
        kneed = [self.shape(j)[1] for j in range(view.n)]
        if not any(kneed[j] <= sh.count_with(cores[j]) for j in cands):
            return
        now = view.now
        c_h, k_h = cores[head], kneed[head]
        proj = sh.projection(c_h)
        # the shadow time is a running job's estimated end, even when the head fits now (it
        # did not start: Filler's order), as ELiSE's backfill computes it
        shadow = math.inf
        for est, k in view.est_sorted:
            est = max(est, now)
            if est > shadow:
                break
            if proj.add(sh.allocation(k), sh.cores_of(k)) >= k_h and shadow == math.inf:
                shadow = est
        view.record_reservation(head, shadow)
        if shadow == math.inf:
            return
        for j in cands:
            if kneed[j] > sh.count_with(cores[j]):
                continue
            rule_a = now + view.req[j] <= shadow
            if not (rule_a or self.extra):
                continue
            p = self.choose(view, j)
            if not rule_a and proj.add(p.intervals, -p.cores) < k_h:
                proj.add(p.intervals, p.cores)  # rule (b) broken: undo
                continue
            view.start_now(p)


def plain(cls: type[CoScheduler]) -> type[CoScheduler]:
    """``cls`` with the plain backfill."""
    return type("Plain" + cls.__name__, (PlainBackfill, cls), {})
