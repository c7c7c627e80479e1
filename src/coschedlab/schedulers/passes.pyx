# distutils: language = c++
"""The built-in schedulers' passes, compiled (issue 31 item 1): EASY, strict list scheduling
(fcfs, sjf), first fit and backfilling on the availability profile (conservative, ``backfill``
with ``reservations`` and ``compress``: :class:`ProfilePass`), called by the kernel through
:class:`~coschedlab.engine.cpass.CompiledPass` on its own C arrays, with no Python call per
pass or per job; and Slurm's pass (:class:`SlurmPass`: multifactor priority with the WoAS
inheritance, the main scheduler, the backfill scan on the node-count profile every
``bf_interval``) for its runs on the count profile with the main scheduler at every event.
Slurm's backfill scan (:func:`count_scan`) is also called by the Python pass, through
:class:`CountScan`, for ``sched_interval`` runs. :class:`CProfile` is the one profile in C,
:func:`.profile.reservation_scan` on :class:`.profile.Profile` the Python one, kept for what is
not compiled (below).

Each is the one implementation of its mechanism for the runs it covers: the built-in queue
orders (``fcfs``, ``sjf``, ``lxf``, ``wfp``, computed here with the same arithmetic as
:data:`coschedlab.schedulers.base.ORDERS`) and runs without a gate. The Python methods of
:class:`~.backfill.Backfill` and :mod:`.strict` run the others (a custom order key, a subclass
that overrides the pass or the order, gated passes of coupled runs) until those reach the
kernel's C queue too (the order as a key array, the gate as item 6's extension point); then
they go. The Python scan also runs Slurm's ``bf_nodes`` pass (:class:`.nodespace.BackfillMap`,
which nodes rather than how many); :meth:`.slurm.Slurm._pass` runs Slurm's ``bf_nodes`` and
``sched_interval`` runs and its gated ones (tests/test_slurm_pass.py holds it to the compiled
pass's schedules); they go with the kernel's gate point too.
"""

from cython.operator cimport dereference as deref
from libc.math cimport INFINITY, ceil, floor, pow
from libcpp.algorithm cimport lower_bound, sort, upper_bound
from libcpp.utility cimport pair
from libcpp.vector cimport vector

from coschedlab.engine.cpass cimport CompiledPass, Est, PassState

ctypedef pair[double, long] Keyed

# a zero requested time holds its nodes for an instant on the profile (backfill.INSTANT)
cdef double INSTANT = 1e-6

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
    (:meth:`.backfill.Backfill._profile`)."""

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
        # nothing is free, until they are made (Backfill._profile)
        self.while_full = compress or reservations is not None
        self.slot.assign(n, INFINITY)
        self.prof = CProfile()

    cdef const long* pass_order(self, PassState* s) except? NULL:
        """:meth:`.backfill.Backfill.pass_order`: the ordered queue, with compression the
        previously reserved jobs first in the order of their slots."""
        cdef const long* q = self.ordered_queue(s)
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


cdef inline double round_up(double t, double resolution) noexcept:
    """``Slurm._round``: up to a multiple of ``bf_resolution`` (1e-9 slack)."""
    return ceil(t / resolution - 1e-9) * resolution


cdef long count_scan(CProfile prof, double now, long free, vector[long]& tested,
                     const long* nodes, const double* limit, double resolution, double last,
                     long most, vector[long]& started, vector[Keyed]& reserved_at) except -1:
    """Slurm's backfill scan on its node-count profile (the one implementation, for
    :class:`CountScan` and :class:`SlurmPass`): on ``prof`` (``free`` idle nodes at ``now``
    and the running jobs' releases), each ``tested`` job in turn starts now if its limit
    (rounded up to ``resolution`` past ``now``) fits from now, else reserves its earliest slot
    up to ``last`` (only the first ``most`` of them unless -1). Appends the jobs to start to
    ``started`` and ``(slot, j)`` of each reservation to ``reserved_at``; stops when nothing
    is free. Returns the nodes left free."""
    cdef long k, j, nj, reserved = 0
    cdef double d, t
    for k in range(<long>tested.size()):
        if free == 0:
            break
        j = tested[k]
        nj = nodes[j]
        d = round_up(now + limit[j], resolution) - now
        t = prof.test(nj, d)
        if not t <= last:  # beyond the window: no slot
            continue
        if t <= now and nj != 0 and nj <= free:
            prof.hold(nj, now, d)
            free -= nj
            started.push_back(j)
        elif nj != 0 and (most < 0 or reserved < most):
            prof.hold(nj, t, d)
            reserved += 1
            reserved_at.push_back(Keyed(t, j))
    return free


cdef class CountScan:
    """Slurm's backfill pass on its node-count profile (:meth:`.slurm.Slurm._backfill` without
    ``bf_nodes``), for the Python pass (``bf_nodes`` off but ``sched_interval`` set, or a run
    the compiled :class:`SlurmPass` does not cover): :func:`count_scan` on Python inputs,
    called once per backfill pass."""

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
        cdef vector[Keyed] rel, reserved_at
        cdef vector[long] tested, out
        cdef long k, j
        cdef double e, st
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
            rel.push_back(Keyed(round_up(e, self.resolution), self.nodes[j]))
        for j in just:
            rel.push_back(Keyed(round_up(now + self.limit[j], self.resolution), self.nodes[j]))
        sort(rel.begin(), rel.end())
        self.prof.reset(now, free)
        for k in range(<long>rel.size()):
            self.prof.release(rel[k].first, <long>rel[k].second)
        count_scan(self.prof, now, free, tested, self.nodes.data(), self.limit.data(),
                   self.resolution, now + window, -1 if reservations is None else reservations,
                   out, reserved_at)
        for k in range(<long>reserved_at.size()):
            record(reserved_at[k].second, reserved_at[k].first)
        return [out[k] for k in range(<long>out.size())], more


ctypedef pair[long, long] Ranked  # a pending job's place: (-priority, j)


cdef inline double ticks_at_or_after(double t, double interval, double phase) noexcept:
    """:meth:`.cadence.Ticks.at_or_after` (slack 1e-9)."""
    return ceil((t - phase) / interval - 1e-9) * interval + phase


cdef inline double ticks_after(double t, double interval, double phase) noexcept:
    """:meth:`.cadence.Ticks.after` (slack 1e-9)."""
    return (floor((t - phase) / interval + 1e-9) + 1) * interval + phase


cdef class SlurmPass(CompiledPass):
    """:class:`.slurm.Slurm`'s pass, compiled, for its runs on the node-count profile with the
    main scheduler at every event (``bf_nodes`` off, no ``sched_interval``; the WoAS
    experiments' configuration): multifactor (or FIFO) priority with its recalculation every
    ``priority_calc_period``, the WoAS inheritance of priority factors, the main scheduler in
    priority order, and every ``bf_interval`` the backfill scan (:func:`count_scan`). The same
    arithmetic, order and lazily pruned pending list as :meth:`.slurm.Slurm._pass`, hence the
    same schedules, reservations and wake-ups (tests/schedulers/test_slurm_pass.py compares
    the two on random workloads)."""

    cdef CountScan counts
    cdef bint multifactor, backfill, favor_small, relative_to_time
    cdef double weight_age, weight_size, max_age, period, interval, phase, window
    cdef double total_cpus, cores_per_node
    cdef long tests, reserve  # reserve -1: every tested job
    cdef vector[long] procs, inh_cpus, inh_nodes
    cdef vector[double] inh_origin, inh_limit
    cdef vector[double] origin, size, released
    cdef vector[char] known, pending
    cdef vector[Ranked] order, reorder
    # the running jobs' releases on the profile, (start + time limit rounded up, j), sorted
    cdef vector[Keyed] running
    cdef vector[Keyed] reserved_at
    cdef vector[long] tested
    cdef double calc, next_calc, next_bf, woken
    #: backfill passes run (``Slurm.backfill_passes``)
    cdef public long backfill_passes
    #: whether the kernel called this pass (else the run used the Python one)
    cdef public bint ran

    def __init__(self, sched, view, inherit):
        """From a set-up :class:`.slurm.Slurm` ``sched`` (its options and ``_limit``), the
        ``view`` and the inheritance table by view index (``{j: (origin, cpus, limit)}``)."""
        cdef long n = view.n, j
        c = view.cluster
        self.counts = CountScan(view.nodes, sched._limit, sched.bf_resolution)
        self.multifactor = sched.priority == "multifactor"
        self.backfill = sched.backfill
        self.weight_age = sched.priority_weight_age
        self.weight_size = sched.priority_weight_job_size
        self.max_age = sched.priority_max_age
        self.favor_small = sched.priority_favor_small
        self.relative_to_time = sched.small_relative_to_time
        self.period = sched.priority_calc_period
        self.interval = sched.bf_interval
        self.phase = sched.bf_phase
        self.window = sched.bf_window * 60.0
        self.tests = sched.bf_max_job_test
        reserve = sched.bf_job_part_count_reserve
        self.reserve = -1 if reserve is None else reserve
        self.total_cpus = c.total_cores
        self.cores_per_node = c.cores_per_node
        self.procs.resize(n)
        procs = view.procs
        for j in range(n):
            self.procs[j] = procs[j]
        self.inh_origin.assign(n, float("nan"))
        self.inh_cpus.assign(n, 0)
        self.inh_nodes.assign(n, 0)
        self.inh_limit.assign(n, 0.0)
        cdef long cpus, cpn = c.cores_per_node
        for j, (o, cpus, limit) in inherit.items():
            self.inh_origin[j] = o
            self.inh_cpus[j] = cpus
            # Cluster.nodes_for (C division truncates: the Python one for cpus <= 0)
            self.inh_nodes[j] = (cpus + cpn - 1) // cpn if cpus > 0 else c.nodes_for(cpus)
            self.inh_limit[j] = limit_seconds(limit)
        self.origin.assign(n, 0.0)
        self.size.assign(n, 0.0)
        self.released.assign(n, 0.0)
        self.known.assign(n, 0)
        self.pending.assign(n, 0)
        self.calc = -INFINITY
        self.next_calc = -INFINITY
        self.next_bf = -INFINITY
        self.woken = -INFINITY
        self.backfill_passes = 0
        self.ran = False

    # -- priorities (:class:`.priority.Multifactor`, the same arithmetic) ------------------------
    cdef inline double size_factor(self, long nodes, long cpus, double limit) noexcept:
        """:meth:`.priority.Multifactor.size` (``limit`` in seconds)."""
        cdef double s, a = <double>nodes * self.cores_per_node
        if <double>cpus > a:
            a = <double>cpus
        s = a / self.total_cpus
        if self.relative_to_time:
            s = s / minutes(limit)
        s = min(1.0, max(0.0, s))
        return 1.0 - s if self.favor_small else s

    cdef inline long priority(self, double origin, double size, double t) noexcept:
        """:meth:`.priority.Multifactor.priority`."""
        cdef double age
        if self.max_age <= 0:
            age = 1.0
        else:
            age = min(1.0, max(0.0, (t - origin) / self.max_age))
        return <long>(self.weight_age * age + self.weight_size * size)

    cdef Ranked key(self, long j, double now, const long* nodes) noexcept:
        """``Slurm._key``: ``j``'s place; the first time, its age origin and size."""
        cdef double o
        if not self.multifactor:
            self.known[j] = 1
            return Ranked(0, j)
        if not self.known[j]:
            self.known[j] = 1
            o = self.inh_origin[j]
            if o != o:
                self.origin[j] = now
                self.size[j] = self.size_factor(nodes[j], self.procs[j], self.counts.limit[j])
            else:
                self.origin[j] = o
                self.size[j] = self.size_factor(self.inh_nodes[j], self.inh_cpus[j],
                                                self.inh_limit[j])
        o = self.origin[j]
        return Ranked(-self.priority(o, self.size[j], max(self.calc, min(o, now))), j)

    cdef void recalculate(self, double now) noexcept:
        """``Slurm._recalculate``: every pending job's priority at the period's start."""
        cdef double t = floor(now / self.period) * self.period
        cdef long k, j
        self.calc = t
        self.next_calc = t + self.period
        self.reorder.clear()
        for k in range(<long>self.order.size()):
            j = self.order[k].second
            if self.pending[j]:
                self.reorder.push_back(Ranked(
                    -self.priority(self.origin[j], self.size[j], max(t, self.origin[j])), j))
        sort(self.reorder.begin(), self.reorder.end())
        self.order.swap(self.reorder)

    def origin_of(self, long j) -> float:
        """Job ``j``'s recorded age origin (``Slurm.age_origin``)."""
        return self.origin[j]

    def size_of(self, long j) -> float:
        """Job ``j``'s recorded job-size factor."""
        return self.size[j]

    # -- the pass ---------------------------------------------------------------------------------
    cdef inline void wake(self, PassState* s, double t) noexcept:
        if t != self.woken:  # asked once (``Slurm._wake``)
            self.woken = t
            s.wake = t

    cdef inline long take(self, PassState* s, long j, long free) noexcept:
        """Start ``j`` now (main scheduler): its release joins the profile's."""
        self.pending[j] = 0
        s.started.push_back(j)
        self.running_add(j, s.now)
        return free - s.nodes[j]

    cdef inline void running_add(self, long j, double now) noexcept:
        cdef double t = round_up(now + self.counts.limit[j], self.counts.resolution)
        cdef Keyed e = Keyed(t, j)
        self.released[j] = t
        self.running.insert(upper_bound(self.running.begin(), self.running.end(), e), e)

    cdef int run(self, PassState* s) except -1:
        cdef double now = s.now, tick
        cdef long k, j, n_order, free = s.free
        cdef Ranked r
        self.ran = True
        cdef vector[Keyed].iterator at
        for k in range(s.nended):
            j = s.ended[k]
            at = lower_bound(self.running.begin(), self.running.end(), Keyed(self.released[j], j))
            if at == self.running.end() or deref(at).second != j:
                raise RuntimeError(f"slurm's compiled pass: job index {j} ended but it never "
                                   "started it (a job started outside the pass)")
            self.running.erase(at)
        for k in range(s.njoined):
            j = s.joined[k]
            if not self.known[j]:
                r = self.key(j, now, s.nodes)
                self.order.insert(upper_bound(self.order.begin(), self.order.end(), r), r)
                self.pending[j] = 1
        if self.multifactor and now >= self.next_calc:
            self.recalculate(now)
        # the main scheduler: priority order, stop at the first job that does not fit
        k = 0
        n_order = self.order.size()
        while k < n_order:
            j = self.order[k].second
            if self.pending[j]:
                if s.nodes[j] > free:
                    break
                free = self.take(s, j, free)
            k += 1
        if k:
            self.order.erase(self.order.begin(), self.order.begin() + k)
        if self.order.empty() or not self.backfill:
            return 0
        # backfill every bf_interval seconds, on the backfill thread's clock
        if self.next_bf == -INFINITY:
            self.next_bf = ticks_at_or_after(now, self.interval, self.phase)
        if now < self.next_bf - 1e-9:
            if free > 0:
                self.wake(s, self.next_bf)
            return 0
        tick = ticks_at_or_after(now, self.interval, self.phase)
        if tick > now + 1e-9:  # a tick passed with nothing free
            self.next_bf = tick
            if free > 0:
                self.wake(s, tick)
            return 0
        self.next_bf = ticks_after(now, self.interval, self.phase)
        self.backfill_passes += 1
        if free > 0:
            free = self.backfill_scan(s, free)
        if free > 0 and not self.order.empty():
            self.wake(s, self.next_bf)
        return 0

    cdef long backfill_scan(self, PassState* s, long free) except -1:
        """``Slurm._backfill`` on the node-count profile: the first ``bf_max_job_test`` pending
        jobs; the running jobs (and those the main scheduler just started) release their nodes
        at start + time limit, rounded up."""
        cdef long k, j, n0
        cdef double now = s.now
        cdef CProfile prof = self.counts.prof
        self.tested.clear()
        for k in range(<long>self.order.size()):
            j = self.order[k].second
            if self.pending[j]:
                if <long>self.tested.size() == self.tests:
                    break
                self.tested.push_back(j)
        prof.reset(now, free)
        for k in range(<long>self.running.size()):
            prof.release(self.running[k].first, s.nodes[self.running[k].second])
        n0 = s.started.size()
        self.reserved_at.clear()
        free = count_scan(prof, now, free, self.tested, s.nodes, self.counts.limit.data(),
                          self.counts.resolution, now + self.window, self.reserve,
                          s.started[0], self.reserved_at)
        for k in range(n0, <long>s.started.size()):
            j = s.started[0][k]
            self.pending[j] = 0
            self.running_add(j, now)
        for k in range(<long>self.reserved_at.size()):
            j = self.reserved_at[k].second
            if s.reservation[j] != s.reservation[j]:  # record_reservation: the first only
                s.reservation[j] = self.reserved_at[k].first
        return free


cdef inline double minutes(double seconds) noexcept:
    """:func:`.priority.limit_minutes`: whole minutes, rounded up, at least one."""
    cdef double m = ceil(seconds / 60.0 - 1e-9)
    return m if m > 1.0 else 1.0


cdef inline double limit_seconds(double seconds) noexcept:
    """Slurm's time limit of a requested time: :func:`.priority.limit_minutes` x 60."""
    return minutes(seconds) * 60.0
