# distutils: language = c++
"""The built-in schedulers' passes, compiled (issue 31 item 1): EASY, strict list scheduling
(fcfs, sjf), first fit and backfilling on the availability profile (conservative, ``backfill``
with ``reservations`` and ``compress``: :class:`ProfilePass`), called by the kernel through
:class:`~coschedlab.engine.cpass.CompiledPass` on its own C arrays, with no Python call per
pass or per job; and Slurm's backfill scan on its node-count profile (:class:`CountScan`,
called once per backfill pass by :meth:`.slurm.Slurm._backfill`, whose priorities and
cadence stay Python). :class:`CProfile` is the one profile in C, :func:`.profile.
reservation_scan` on :class:`.profile.Profile` the Python one, kept for what is not compiled (below).

Each is the one implementation of its mechanism, for every run: any queue order (the kernel
presents ``s.queue`` sorted by the policy's order, :mod:`coschedlab.engine.cpass`), coupled
runs (the kernel's gate holds, yields and demotes jobs in the queue it presents) and ELiSE's
clock (the kernel copies its Python lists into the arrays). The Python passes they replaced
are the test-suite's oracles (tests/reference_passes.py). The Python scan
(:func:`.profile.reservation_scan`) still runs Slurm's ``bf_nodes`` pass
(:class:`.nodespace.BackfillMap`: which nodes rather than how many).
"""

from libc.math cimport INFINITY, ceil, floor
from libcpp.algorithm cimport lower_bound, sort, upper_bound
from libcpp.utility cimport pair
from libcpp.vector cimport vector

from coschedlab.engine.cpass cimport CUSTOM, FCFS, LXF, OWN, SJF, WFP, CompiledPass, Est, PassState

ctypedef pair[double, long] Keyed

# a zero requested time holds its nodes for an instant on the profile (backfill.INSTANT)
cdef double INSTANT = 1e-6

cdef inline bint before(const Est& x, const Est& y) noexcept:
    """``x < y`` as tuples."""
    return x.first < y.first or (x.first == y.first and x.second < y.second)


#: the queue orders the kernel presents to a compiled pass (``CompiledPass.order``)
ORDER_CODES = {"fcfs": FCFS, "sjf": SJF, "lxf": LXF, "wfp": WFP, "custom": CUSTOM, "own": OWN}


cdef class OrderedPass(CompiledPass):
    """A pass over the queue in one of the built-in priority orders, or a custom key's
    (``"custom"``: the scheduler's ``order_key``): the kernel presents ``s.queue`` sorted so
    (:mod:`coschedlab.engine.cpass`)."""

    def __init__(self, str order="fcfs"):
        self.order = ORDER_CODES[order]


cdef class StrictPass(OrderedPass):
    """fcfs and sjf: the longest prefix of the ordered queue that fits
    (:func:`.strict.start_in_order`)."""

    cdef int run(self, PassState* s) except -1:
        cdef const long* q = s.queue
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
        cdef const long* q = s.queue
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
    scan memo (:class:`.easy.ScanMemo`, keyed on ``s.epoch`` too)."""

    cdef bint use_extra, memo_on, has_key
    cdef long depth  # -1: no limit
    cdef double interval  # 0: backfill at every pass
    cdef double next_backfill, woken
    cdef vector[char] reserved
    cdef long key_head, key_completed, key_epoch, scanned_to
    cdef vector[Est] just

    def __init__(self, long n, str order="fcfs", bint extra=True, depth=None, interval=None):
        OrderedPass.__init__(self, order)
        self.use_extra = extra
        self.depth = -1 if depth is None else depth
        self.interval = 0.0 if interval is None else interval
        self.next_backfill = -INFINITY
        self.woken = -INFINITY
        self.reserved.assign(n, 0)
        self.memo_on = self.order == FCFS and depth is None and interval is None
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
        cdef const long* q = s.queue
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
            and self.key_completed == s.completed and self.key_epoch == s.epoch
            and (s.nest == 0 or s.est[0].first >= now)
        )
        self.has_key = True
        self.key_head, self.key_completed, self.key_epoch = head, s.completed, s.epoch
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


cdef class CProfile:
    """:class:`.profile.Profile` in C (free nodes as a step function of future time): the same
    breakpoints, the same arithmetic, hence the same slots."""

    cdef vector[double] times
    cdef vector[long] free

    cdef void reset(self, double now, long free):
        """Start at ``now`` with ``free`` nodes, nothing released later."""
        self.times.clear()
        self.free.clear()
        self.times.push_back(now)
        self.free.push_back(free)

    cdef void release(self, double t, long n):
        """``n`` nodes free from ``t`` on (releases come in time order; at or before the
        first breakpoint: released then)."""
        if t <= self.times[0]:
            self.free[0] += n
        elif t == self.times.back():
            self.free[self.free.size() - 1] += n
        else:
            self.times.push_back(t)
            self.free.push_back(self.free.back() + n)

    cdef double test(self, long need, double duration) noexcept:
        """:meth:`.profile.Profile.test`: the earliest breakpoint from which ``need`` nodes
        stay free for ``duration`` (inf: never)."""
        cdef long n = self.times.size(), i = 0, k
        cdef double end
        cdef bint ok
        while i < n:
            if self.free[i] < need:
                i += 1
                continue
            end = self.times[i] + duration
            k = i + 1
            ok = True
            while k < n and self.times[k] < end:
                if self.free[k] < need:
                    ok = False
                    break
                k += 1
            if ok:
                return self.times[i]
            i = k + 1
        return INFINITY

    cdef void hold(self, long need, double t, double duration):
        """:meth:`.profile.Profile.hold`: take ``need`` nodes during ``[t, t + duration)``."""
        cdef long i, k, m
        cdef double end
        i = lower_bound(self.times.begin(), self.times.end(), t) - self.times.begin()
        if i == <long>self.times.size() or self.times[i] != t:
            self.times.insert(self.times.begin() + i, t)
            self.free.insert(self.free.begin() + i, self.free[i - 1])
        end = t + duration
        k = lower_bound(self.times.begin() + i, self.times.end(), end) - self.times.begin()
        if k == <long>self.times.size() or self.times[k] != end:
            self.times.insert(self.times.begin() + k, end)
            self.free.insert(self.free.begin() + k, self.free[k - 1])
        for m in range(i, k):
            self.free[m] -= need


cdef class ProfilePass(OrderedPass):
    """Backfilling on the availability profile (Mu'alem and Feitelson 2001): conservative
    (every job reserved), ``backfill`` with ``reservations`` (None: all) and ``compress``. The
    compiled :func:`.profile.reservation_scan` on :class:`.profile.Profile`, with the same
    arithmetic and in the same order, so the schedules and reservations are the Python scan's
    (tests/reference_passes.py: ``PyBackfill._profile``, the oracle)."""

    cdef long reservations  # -1: every job
    cdef bint compress, while_full
    cdef CProfile prof
    cdef vector[double] slot
    cdef vector[Keyed] ranked
    cdef vector[long] by_slot

    def __init__(self, long n, str order="fcfs", reservations=None, bint compress=False):
        OrderedPass.__init__(self, order)
        self.reservations = -1 if reservations is None else reservations
        self.compress = compress
        # with a limited number of reservations (or compression) the scan goes on while
        # nothing is free, until they are made
        self.while_full = compress or reservations is not None
        self.slot.assign(n, INFINITY)
        self.prof = CProfile()

    cdef const long* pass_order(self, PassState* s) except? NULL:
        """:meth:`.backfill.Backfill.pass_order`: the ordered queue, with compression the
        previously reserved jobs first in the order of their slots."""
        cdef const long* q = s.queue
        cdef long k
        if not self.compress:
            return q
        self.ranked.resize(s.nq)
        for k in range(s.nq):
            self.ranked[k] = Keyed(self.slot[q[k]], k)
        sort(self.ranked.begin(), self.ranked.end())
        self.by_slot.resize(s.nq)
        for k in range(s.nq):
            self.by_slot[k] = q[self.ranked[k].second]
        return self.by_slot.data()

    cdef int run(self, PassState* s) except -1:
        cdef const long* q = self.pass_order(s)
        cdef long k, j, nj, reserved = 0, free = s.free
        cdef double d, t, now = s.now
        cdef CProfile prof = self.prof
        prof.reset(now, free)
        for k in range(s.nest):
            prof.release(s.est[k].first, s.nodes[s.est[k].second])
        for k in range(s.nq):
            if free == 0 and not (
                self.while_full and (self.reservations < 0 or reserved < self.reservations)
            ):
                break
            j = q[k]
            nj = s.nodes[j]
            d = s.req[j] if s.req[j] != 0 else INSTANT
            t = prof.test(nj, d)
            if t <= now and nj != 0 and nj <= free:
                prof.hold(nj, now, d)
                free -= nj
                s.started.push_back(j)
                if self.compress:
                    self.slot[j] = INFINITY
            elif nj != 0 and (self.reservations < 0 or reserved < self.reservations):
                prof.hold(nj, t, d)
                reserved += 1
                if self.compress:
                    self.slot[j] = t
                if s.reservation[j] != s.reservation[j]:  # record_reservation: first only
                    s.reservation[j] = t
        return 0


cdef class CountScan:
    """Slurm's backfill pass on its node-count profile (:meth:`.slurm.Slurm._backfill` without
    ``bf_nodes``), compiled: the reservation scan of :func:`.profile.reservation_scan` on a
    :class:`CProfile`, each job's time limit rounded up to ``bf_resolution`` past ``now``, no
    slot beyond the window. Slurm's pass itself (priorities, cadence, the main scheduler)
    stays Python and calls :meth:`scan` once per backfill pass."""

    cdef CProfile prof
    cdef vector[long] nodes
    cdef vector[double] limit
    cdef vector[char] just
    cdef double resolution

    def __init__(self, nodes, limit, double resolution):
        cdef long j
        self.prof = CProfile()
        self.nodes.resize(len(nodes))
        self.limit.resize(len(nodes))
        for j in range(len(nodes)):
            self.nodes[j] = nodes[j]
            self.limit[j] = limit[j]
        self.just.assign(len(nodes), 0)
        self.resolution = resolution

    cdef inline double round_up(self, double t) noexcept:
        """``Slurm._round``: up to a multiple of ``bf_resolution`` (1e-9 slack)."""
        return ceil(t / self.resolution - 1e-9) * self.resolution

    def scan(self, double now, long free, est_sorted, start, list just, list order, queued,
             long tests, double window, reservations, record):
        """Start now or reserve each of the first ``tests`` pending jobs of ``order`` (``(key,
        j)`` pairs in priority order: those ``queued`` and not in ``just``) in turn
        (``record(j, t)`` for each reservation, only the first ``reservations`` of them unless
        None) on the profile of ``free`` idle nodes and the releases: each running job
        (``est_sorted``) at its ``start`` + time limit (a job with no start, a held one of a
        coupled run: its estimate) and the jobs ``just`` started by this pass from ``now``,
        rounded up. Stops when nothing is free. Returns the jobs to start now, in order, and
        whether a pending job was left untested."""
        cdef CProfile prof = self.prof
        cdef vector[Keyed] rel
        cdef vector[long] tested
        cdef long k, j, nj, reserved = 0
        cdef long most = -1 if reservations is None else reservations
        cdef double d, t, e, st, last = now + window
        cdef list started = []
        cdef bint more = False
        for j in just:
            self.just[j] = 1
        for _, j in order:
            if queued[j] and not self.just[j]:
                if <long>tested.size() == tests:
                    more = True
                    break
                tested.push_back(j)
        for j in just:
            self.just[j] = 0
        for e, j in est_sorted:
            st = start[j]
            if st == st:
                e = st + self.limit[j]
            rel.push_back(Keyed(self.round_up(e), self.nodes[j]))
        for j in just:
            rel.push_back(Keyed(self.round_up(now + self.limit[j]), self.nodes[j]))
        sort(rel.begin(), rel.end())
        prof.reset(now, free)
        for k in range(<long>rel.size()):
            prof.release(rel[k].first, <long>rel[k].second)
        for k in range(<long>tested.size()):
            if free == 0:
                break
            j = tested[k]
            nj = self.nodes[j]
            d = self.round_up(now + self.limit[j]) - now
            t = prof.test(nj, d)
            if not t <= last:  # beyond the window: no slot
                continue
            if t <= now and nj != 0 and nj <= free:
                prof.hold(nj, now, d)
                free -= nj
                started.append(j)
            elif nj != 0 and (most < 0 or reserved < most):
                prof.hold(nj, t, d)
                reserved += 1
                record(j, t)
        return started, more
