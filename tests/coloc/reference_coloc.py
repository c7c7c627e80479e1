"""The co-schedulers' Python class scan and an independent, plain version of easy-coloc's
backfill (the oracles of the tests).

:class:`PyCoScheduler`: the Python class scan the compiled pass (``coloc/copass.pyx``)
replaced, as it was in ``coloc/schedulers.py``: deploy in ``deploy_order`` with ``choose``,
then EASY's backfill over job classes (or bester's), with the scheduler's hooks.
:func:`python_scan` puts a co-scheduler on it.

:class:`PlainBackfill`: every pass, from scratch: the head's shadow time on shared nodes (the
first running job's estimated end at which it fits, even when it fits now), then every later
job in queue order that fits now starts if it ends by the shadow time (rule a) or if the head
still fits at the shadow time with its cores in use (rule b). No caches, no job classes.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort

from coschedlab.coloc.schedulers import Bester, CoScheduler, first_nodes
from coschedlab.engine.placement import Placement
from coschedlab.schedulers.easy import CoreCounts, ScanMemo, admit, shadow_time

INF = math.inf
View = object  # (annotations only)


class PyCoScheduler:
    """Mixin: a co-scheduler's passes on the Python class scan (its compiled pass made but
    not run; its own ``schedule`` keeps the kernel from calling it)."""

    #: reuse the last backfill's shadow time and skip jobs it already ruled out (the tests
    #: turn it off to check that it changes nothing)
    incremental = True

    def setup(self, view: View) -> None:
        super().setup(view)
        self.compiled_pass = None
        self._deployed = 0  # jobs started by deploy passes (they change the shadow time)
        self._memo = ScanMemo(self.incremental)
        self._broke: set = set()
        self._proj: tuple[CoreCounts, float] | None = None
        self._volatile = False  # the last shadow time was taken with the head fitting now
        self._classes(view)

    def choose(self, view: View, j: int) -> Placement | None:
        """Where job ``j`` would go now, or None if it does not fit."""
        c = self._cores[j]
        k = self._k[j]
        sh = view.machine
        if c == self._cpn:
            if sh.idle < k:
                return None
            return Placement(j, intervals=sh.idle_intervals(k), cores=c)
        if sh.count_with(c) < k:  # idle nodes count: they have every core free
            if self.fallback:  # cannot spread now: whole idle nodes if enough are free
                k = -(-view.procs[j] // self._cpn)
                if sh.idle >= k:
                    return Placement(j, intervals=sh.idle_intervals(k), cores=self._cpn)
            return None
        if self.orders_idle_nodes:
            runs = self.node_order(view, j, sh.free_runs(c))
        elif self._ordered:
            runs = self.node_order(view, j, sh.partly_free(c))
        else:
            runs = sh.partly_free(c, limit=k)
        chosen, need = first_nodes(runs, k)
        if need:
            chosen += sh.idle_intervals(need)
        return Placement(j, intervals=chosen, cores=c)

    def schedule(self, view: View) -> list:
        self._sync(view)
        for j in self.deploy_order(view):
            p = self.choose(view, j)
            if p is None:
                break
            view.start_now(p)
            self._leave(j)
            self._deployed += 1
        if self.backfill:
            if isinstance(self, Bester):
                self._bester_backfill(view)
            else:
                self._backfill(view)
        return []

    # Backfilling looks at job *classes*, not jobs: jobs with the same cores per node, nodes,
    # requested time and choice key are interchangeable for it (same room, same rule (a),
    # same nodes so same rule (b)), so the first startable job of the queue is the earliest
    # first-member of a startable class. A pass costs O(classes), not O(queue): a generated
    # workload has a few dozen classes however long its queue grows.
    def _classes(self, view: View) -> None:
        ids: dict[tuple, int] = {}
        self._cls_of = cls_of = []
        self._cls_c, self._cls_k, self._cls_req, self._cls_choice = [], [], [], []
        req = view.req
        for j in range(view.n):
            choice = self.choice_key(view, j)
            key = (choice, self._cores[j], self._k[j], req[j])
            cid = ids.get(key)
            if cid is None:
                cid = ids[key] = len(ids)
                self._cls_c.append(self._cores[j])
                self._cls_k.append(self._k[j])
                self._cls_req.append(req[j])
                self._cls_choice.append(choice)
            cls_of.append(cid)
        self._members: list[list[int]] = [[] for _ in ids]  # queued jobs of each class
        self._nonempty: set[int] = set()
        self._seen = bytearray(view.n)
        self._deps = view.has_dependencies

    def _sync(self, view: View) -> None:
        """Put the jobs that joined the queue since the last pass in their classes."""
        queue, seen = view.queue, self._seen
        if self._deps:  # released dependents join anywhere in the queue
            new = [j for j in queue if not seen[j]]
        else:  # arrivals join at the end
            i = len(queue)
            while i and not seen[queue[i - 1]]:
                i -= 1
            new = queue[i:]
        members, cls_of, nonempty = self._members, self._cls_of, self._nonempty
        for j in new:
            seen[j] = 1
            cid = cls_of[j]
            lst = members[cid]
            if not lst or lst[-1] < j:
                lst.append(j)
            else:
                insort(lst, j)
            nonempty.add(cid)

    def _leave(self, j: int) -> None:
        cid = self._cls_of[j]
        lst = self._members[cid]
        del lst[bisect_left(lst, j)]
        if not lst:
            self._nonempty.discard(cid)

    def _backfill(self, view: View) -> None:
        queue, queued = view.queue, view.queued
        pos = 0
        while pos < len(queue) and not queued[queue[pos]]:
            pos += 1
        if pos + 1 >= len(queue):
            return
        head = queue[pos]
        limit = INF  # ELiSE's backfill depth: only the first ``depth`` jobs behind the head
        if self.depth is not None:
            left = self.depth
            for j in queue[pos + 1 :]:
                if queued[j]:
                    left -= 1
                    if left == 0:
                        limit = j
                        break
        sh = view.machine
        now = view.now
        # Same head, no job ended or was deployed since the last backfill and no running job
        # past its estimate: the shadow time and the projection at it are what the last
        # backfill left, and so are the rule (b) verdicts it reached after its last start.
        same = self._memo.same(view, head, self._deployed) and not self._volatile
        if not same or (self._proj is not None and self._proj[1] <= now):
            self._proj = None  # (a shadow time of "now" moves with the clock)
            self._broke.clear()
        broke = self._broke  # choice keys that broke rule (b) in the current state
        members, nonempty = self._members, self._nonempty
        cls_c, cls_k, cls_req = self._cls_c, self._cls_k, self._cls_req
        cls_choice = self._cls_choice
        extra = self.extra
        k_h = self._k[head]
        room = sh.room()
        proj = shadow = None
        after = head  # the scan moves forward through the queue, as EASY's does
        while True:
            best = INF  # first job that starts by rule (a)
            rule_b: list[tuple[int, int]] = []
            for cid in nonempty:
                if cls_k[cid] > room[cls_c[cid]]:
                    continue
                lst = members[cid]
                i = bisect_right(lst, after)
                if i == len(lst):
                    continue
                j = lst[i]
                if j > limit or j > best:
                    continue
                if proj is None:
                    if self._proj is None:
                        self._proj = self._shadow(view, head)
                    proj, shadow = self._proj
                    if shadow == INF:
                        return
                if admit(now, cls_req[cid], shadow, 0, 0, False) == 0:  # rule (a)
                    best = j
                elif extra and cls_choice[cid] not in broke:
                    rule_b.append((j, cid))
            start = None
            rule_b.sort()
            for j, cid in rule_b:
                if j > best:
                    break
                choice = cls_choice[cid]
                if choice in broke:
                    continue
                # rule (b): with j's cores still in use at S, does the head still fit?
                p = self.choose(view, j)
                if admit(now, cls_req[cid], shadow, proj.loss(p), proj.count - k_h, extra) < 0:
                    broke.add(choice)
                    continue
                proj.take(p)
                start = p
                break
            if start is None:
                if best == INF:
                    return
                start = self.choose(view, best)
            view.start_now(start)
            after = start.job
            self._leave(after)
            room = sh.room()
            broke.clear()

    def _shadow(self, view: View, head: int) -> tuple[CoreCounts, float]:
        """The head's shadow time S on shared nodes and the free cores projected at S: the
        first estimated end at which enough nodes have the cores it needs (recorded as its
        reservation)."""
        proj = CoreCounts(view, self._cores[head])
        # A head that fits now (Filler's order left it) gets the first end as its shadow
        # time; jobs started by rule (a) may then make it not fit now and the shadow time
        # earlier, so that one is not kept for the next pass (``_volatile``).
        self._volatile = proj.count >= self._k[head]
        shadow, _ = shadow_time(view, self._k[head], proj, at_an_end=True)
        view.record_reservation(head, shadow)
        return proj, shadow

    def _bester_backfill(self, view: View) -> None:
        """Bester's backfill (ELiSE's ``bester.py``): no reservation for the head."""
        queue, queued = view.queue, view.queued
        waiting = [j for j in queue if queued[j]]
        cands = waiting[1 : None if self.depth is None else self.depth + 1]
        cands.sort(key=lambda j: view.req[j])  # stable: queue order among equals
        sh = view.machine
        for j in cands:
            c, k = self._cores[j], self._k[j]
            if sh.count_with(c) < k:
                break
            chosen, _ = first_nodes(sh.free_runs(c), k)
            view.start_now(Placement(j, intervals=chosen, cores=c))
            self._leave(j)


def python_scan(cls: type[CoScheduler]) -> type[CoScheduler]:
    """``cls`` on the Python class scan (its hooks called there)."""
    return type("Python" + cls.__name__, (PyCoScheduler, cls), {})


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
    """``cls`` on the Python class scan with the plain backfill."""
    return type("Plain" + cls.__name__, (PlainBackfill, PyCoScheduler, cls), {})
