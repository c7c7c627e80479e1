"""A user-written fair-share policy: who consumed least goes first, then EASY backfilling.

Run it through the command line (``half_life`` in seconds; ``by=group`` shares among groups):

    coschedlab simulate coschedlab:KTH-SP2-1996-2.1-cln.swf.gz \\
        --scheduler examples/fair_share.py:half_life=3600

or from Python: ``coschedlab.simulate(workload, cluster, FairShare(half_life=3600))``.
"""

from coschedlab.schedulers import NodeCounts, Scheduler, admit, shadow_time, start_in_order
from coschedlab.schedulers.base import check_choice, check_positive


class FairShare(Scheduler):
    """Order the queue by each user's decayed usage in core-seconds (a running job counts what
    it has run so far; a finished one its whole run, halved every ``half_life`` seconds after
    its end), ties in queue order; start jobs in that order, then backfill EASY-style behind
    the first that does not fit.

    The policy sees ends at its passes. While jobs wait, every end makes a pass, so the ends
    are exact; a job that ended while none waited is counted until its estimated end (start +
    requested time), within the time since the last pass."""

    name = "fair-share"

    def __init__(self, half_life: float = 86400.0, by: str = "user") -> None:
        super().__init__()
        self.half_life = check_positive("half_life", half_life, allow_none=False)
        self.by = check_choice("by", by, ("user", "group"))

    def setup(self, view):
        self.owner = view.users if self.by == "user" else view.groups
        self.done = {}  # owner -> (decayed core-seconds of its finished jobs, as of time)
        self.live = {}  # owner -> [procs running, sum of procs * start]: p * now - s so far
        self.running, self.last, self.ended, self.waiting = set(), view.now, 0, False

    def decayed(self, u, now):
        value, at = self.done.get(u, (0.0, now))
        return value * 2.0 ** ((at - now) / self.half_life)

    def usage(self, u, now):
        p, s = self.live.get(u, (0, 0.0))
        return self.decayed(u, now) + p * now - s

    def charge_ended(self, view):
        """Move the jobs that ended since the last pass from ``live`` to ``done``."""
        now, procs, start = view.now, view.procs, view.start
        still = {j for _, j in view.est_sorted}
        for j in sorted(self.running - still):
            end = now if self.waiting else max(self.last, min(now, start[j] + view.req[j]))
            u, used = self.owner[j], procs[j] * (end - start[j])
            self.done[u] = (self.decayed(u, now) + used * 2 ** ((end - now) / self.half_life), now)
            live = self.live[u]
            live[0] -= procs[j]
            live[1] -= procs[j] * start[j]
            if live[0] == 0:
                del self.live[u]  # no rounding residue left behind
        self.running, self.ended = still, view.completed

    def schedule(self, view):
        now, nodes, req = view.now, view.nodes, view.req
        if view.completed != self.ended:
            self.charge_ended(view)
        usage = {u: self.usage(u, now) for u in {self.owner[j] for j in view.queue}}
        q = sorted(view.queue, key=lambda j: (usage[self.owner[j]], j))
        started = start_in_order(view, q, view.free)
        free = view.free - sum(nodes[j] for j in started)
        if len(started) < len(q) and free > 0:  # EASY: the first blocked job's shadow time
            just = [(now + req[j], j) for j in started]
            shadow, extra = shadow_time(view, nodes[q[len(started)]], NodeCounts(free, nodes), just)
            for j in q[len(started) + 1 :]:
                left = admit(now, req[j], shadow, nodes[j], extra, True) if nodes[j] <= free else -1
                if left >= 0:  # it ends by the shadow time, or fits in the extra nodes
                    started.append(j)
                    free, extra = free - nodes[j], left
        for j in started:  # they run from now on
            live = self.live.setdefault(self.owner[j], [0, 0.0])
            live[0] += view.procs[j]
            live[1] += view.procs[j] * now
            self.running.add(j)
        self.last, self.waiting = now, len(started) < len(q)
        return started
