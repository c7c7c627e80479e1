# distutils: language = c++
"""The built-in schedulers' passes, compiled (issue 31 item 1): EASY, strict list scheduling
(fcfs, sjf) and first fit, called by the kernel through :class:`~coschedlab.engine.cpass.
CompiledPass` on its own C arrays, with no Python call per pass or per job.

Each is the one implementation of its mechanism for the runs it covers: the built-in queue
orders (``fcfs``, ``sjf``, ``lxf``, ``wfp``, computed here with the same arithmetic as
:data:`coschedlab.schedulers.base.ORDERS`) and runs without a gate. The Python methods of
:class:`~.backfill.Backfill` and :mod:`.strict` run the others (a custom order key, a subclass
that overrides the pass or the order, gated passes of coupled runs) until those reach the
kernel's C queue too (the order as a key array, the gate as item 6's extension point); then
they go.
"""

from libc.math cimport INFINITY, floor, pow
from libcpp.algorithm cimport sort, upper_bound
from libcpp.utility cimport pair
from libcpp.vector cimport vector

from coschedlab.engine.cpass cimport CompiledPass, Est, PassState

ctypedef pair[double, long] Keyed

cdef inline bint before(const Est& x, const Est& y) noexcept:
    """``x < y`` as tuples."""
    return x.first < y.first or (x.first == y.first and x.second < y.second)


#: queue orders the compiled passes compute (the rest run in Python)
ORDER_CODES = {"fcfs": 0, "sjf": 1, "lxf": 2, "wfp": 3}


cdef class OrderedPass(CompiledPass):
    """A pass over the queue in one of the built-in priority orders."""

    cdef int order
    cdef vector[Keyed] keyed
    cdef vector[long] ordered

    def __init__(self, str order="fcfs"):
        self.order = ORDER_CODES[order]

    cdef const long* ordered_queue(self, PassState* s) except? NULL:
        """The queue in this pass's order (``Scheduler.ordered_queue`` for the built-in keys:
        sort by ``(key, j)``)."""
        cdef long k, j
        cdef double r, key
        if self.order == 0:
            return s.queue
        self.keyed.resize(s.nq)
        for k in range(s.nq):
            j = s.queue[k]
            if self.order == 1:  # sjf: requested time
                key = s.req[j]
            else:
                r = s.req[j] if s.req[j] != 0 else 1.0
                if self.order == 2:  # lxf: largest expansion factor first
                    key = -(s.now - s.submit[j] + r) / r
                else:  # wfp: (queued time / requested time)^3 x nodes, highest first
                    key = -pow((s.now - s.submit[j]) / r, 3.0) * <double>s.nodes[j]
            self.keyed[k] = Keyed(key, j)
        sort(self.keyed.begin(), self.keyed.end())
        self.ordered.resize(s.nq)
        for k in range(s.nq):
            self.ordered[k] = self.keyed[k].second
        return self.ordered.data()


cdef class StrictPass(OrderedPass):
    """fcfs and sjf: the longest prefix of the ordered queue that fits
    (:func:`.strict.start_in_order`)."""

    cdef int run(self, PassState* s) except -1:
        cdef const long* q = self.ordered_queue(s)
        cdef long k, j, free = s.free
        for k in range(s.nq):
            j = q[k]
            if s.nodes[j] > free:
                break
            free -= s.nodes[j]
            s.started.push_back(j)
        return 0


cdef class FirstFitPass(OrderedPass):
    """firstfit: every job that fits now, in priority order (:class:`.strict.FirstFit`)."""

    cdef int run(self, PassState* s) except -1:
        cdef const long* q = self.ordered_queue(s)
        cdef long k, j, free = s.free
        for k in range(s.nq):
            if free == 0:
                break
            j = q[k]
            if s.nodes[j] <= free:
                free -= s.nodes[j]
                s.started.push_back(j)
        return 0


cdef class EasyPass(OrderedPass):
    """EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001), the closed form of
    :class:`.backfill.Backfill` with one reservation: the jobs that fit from the head, the
    head's shadow time and extra nodes (:func:`.easy.shadow_time`), then later jobs that fit
    now by rule (a) or (b) (:func:`.easy.admit`); ``extra``, ``depth``, ``interval`` and the
    scan memo (:class:`.easy.ScanMemo`) as in ``Backfill._easy``."""

    cdef bint use_extra, memo_on, has_key
    cdef long depth  # -1: no limit
    cdef double interval  # 0: backfill at every pass
    cdef double next_backfill, woken
    cdef vector[char] reserved
    cdef long key_head, key_completed, key_overrides, scanned_to
    cdef vector[Est] just

    def __init__(self, long n, str order="fcfs", bint extra=True, depth=None, interval=None):
        OrderedPass.__init__(self, order)
        self.use_extra = extra
        self.depth = -1 if depth is None else depth
        self.interval = 0.0 if interval is None else interval
        self.next_backfill = -INFINITY
        self.woken = -INFINITY
        self.reserved.assign(n, 0)
        self.memo_on = self.order == 0 and depth is None and interval is None
        self.has_key = False
        self.scanned_to = -1

    cdef (double, long) shadow(self, PassState* s, const long* q, long i, long head, long free):
        """EASY's shadow time and extra nodes for ``head`` with ``free`` nodes idle, the jobs
        ``q[:i]`` running from now (the merge of ``s.est`` and their estimated ends)."""
        cdef double now = s.now, found, e
        cdef long need = s.nodes[head], count = free, a = 0, b = 0, k, j
        self.just.clear()
        for k in range(i):
            self.just.push_back(Est(now + s.req[q[k]], q[k]))
        sort(self.just.begin(), self.just.end())
        found = now if count >= need else INFINITY
        while a < s.nest or b < <long>self.just.size():
            if b >= <long>self.just.size() or (a < s.nest and before(s.est[a], self.just[b])):
                e, j = s.est[a].first, s.est[a].second
                a += 1
            else:
                e, j = self.just[b].first, self.just[b].second
                b += 1
            if e < now:
                e = now
            if e > found:
                break
            count += s.nodes[j]
            if found == INFINITY and count >= need:
                found = e
        if found == INFINITY:
            return INFINITY, 0
        return found, count - need

    cdef int run(self, PassState* s) except -1:
        cdef const long* q = self.ordered_queue(s)
        cdef long nq = s.nq, i = 0, j, nj, head, limit, first, k, extra = 0
        cdef long free = s.free
        cdef double now = s.now, shadow = 0.0
        cdef bint backfill, have = False, same
        while i < nq and s.nodes[q[i]] <= free:
            free -= s.nodes[q[i]]
            s.started.push_back(q[i])
            i += 1
        if i == nq:
            return 0
        head = q[i]
        backfill = free > 0 and i + 1 < nq
        if self.interval > 0:
            if now >= self.next_backfill:  # a backfill pass is due (cadence.Ticks.after)
                self.next_backfill = (floor(now / self.interval) + 1) * self.interval
            else:
                if backfill and self.woken != self.next_backfill:
                    s.wake = self.next_backfill
                    self.woken = self.next_backfill
                backfill = False
        if not self.reserved[head]:
            shadow, extra = self.shadow(s, q, i, head, free)
            have = True
            if s.reservation[head] != s.reservation[head]:  # record_reservation: first only
                s.reservation[head] = shadow
            self.reserved[head] = 1
        if not backfill:
            return 0
        limit = nq if self.depth < 0 else min(nq, i + 1 + self.depth)
        first = i + 1
        # ScanMemo.same: nothing changed since the last scan, only new jobs need a look
        same = (
            self.memo_on and self.has_key and self.key_head == head
            and self.key_completed == s.completed and self.key_overrides == s.overrides
            and (s.nest == 0 or s.est[0].first >= now)
        )
        self.has_key = True
        self.key_head, self.key_completed, self.key_overrides = head, s.completed, s.overrides
        if same and i == 0:
            k = upper_bound(q, q + nq, self.scanned_to) - q
            if k > first:
                first = k
        self.scanned_to = q[nq - 1]
        for k in range(first, limit):
            j = q[k]
            nj = s.nodes[j]
            if nj > free:
                continue
            if not have:  # before any job started by these rules: free is as above
                shadow, extra = self.shadow(s, q, i, head, free)
                have = True
            if now + s.req[j] <= shadow:  # rule (a)
                pass
            elif self.use_extra and nj <= extra:  # rule (b)
                extra -= nj
            else:
                continue
            s.started.push_back(j)
            free -= nj
            if free == 0:
                break
        return 0
