# distutils: language = c++
"""The co-schedulers' pass, compiled: deploy in order while jobs fit, then EASY backfilling on
shared nodes (:class:`ColocPass`), for the co-schedulers whose nodes go in the default order
(``easy-coloc``, ``filler``; :meth:`.schedulers.CoScheduler.uses_compiled_pass`).

Per pass it reads the kernel's view and the compiled segments
(:class:`~coschedlab.engine.segments.SharedNodes`) in C: where each job would go
(:meth:`.schedulers.CoScheduler.choose`'s rule: partly used nodes with room by node id, then
the lowest idle nodes; whole idle nodes for a compact job; ``fallback``), the head's shadow
time on a :class:`~coschedlab.engine.segments.CoreProjection` (the first running job's
estimated end at which enough nodes have the cores it needs, even when it fits now, as
ELiSE's backfill computes it), and EASY's two rules for every later job that fits now
(``admit_c``, the one statement of the rules). The kernel calls it as a
:class:`~coschedlab.engine.cshared.SharedPass` (no Python call per pass or per job: jobs start
through the kernel's C starter); a kernel subclass with a loop of its own (ELiSE's clock)
calls :meth:`ColocPass.run_view` from the scheduler's ``schedule``, and jobs start through
``view.start_now``.

The scan is the plain one (every pass from scratch, in queue order: the oracle of
``tests/coloc/reference_coloc.py``); in C, a pass over a queue of thousands costs
microseconds, so the job classes and kept shadow times of the Python scan are not needed.
"""

from libc.math cimport INFINITY
from libcpp.algorithm cimport sort as csort
from libcpp.algorithm cimport make_heap, pop_heap, stable_sort
from libcpp.utility cimport pair
from libcpp.vector cimport vector

from coschedlab.engine.cpass cimport Est, PassState
from coschedlab.engine.cshared cimport SharedPass
from coschedlab.engine.segments cimport CoreProjection, SharedCores, SharedNodes
from coschedlab.engine.view cimport View
from coschedlab.schedulers.rules cimport admit_c

import numpy as np

from coschedlab.engine.placement import Placement

__all__ = ["ColocPass", "filler_order"]


cdef vector[long] _longs(object values) except *:
    """A C vector of the integers ``values`` (an array or a sequence), copied at once."""
    cdef const long[::1] a = np.ascontiguousarray(values, dtype=np.int64)
    cdef vector[long] out
    if a.shape[0]:
        out.assign(&a[0], &a[0] + a.shape[0])
    return out


cdef vector[double] _doubles(object values) except *:
    """A C vector of the numbers ``values`` (an array or a sequence), copied at once."""
    cdef const double[::1] a = np.ascontiguousarray(values, dtype=np.float64)
    cdef vector[double] out
    if a.shape[0]:
        out.assign(&a[0], &a[0] + a.shape[0])
    return out


ctypedef pair[double, long] Keyed


cdef void _filler_keys(vector[Keyed]& out, const long* q, long nq, const long* procs,
                       const double* ids, long free) noexcept:  # fmt: skip
    """Filler's deploy order (ELiSE Algorithm 2) of the ``nq`` jobs ``q``, into ``out`` as
    ``(-key, j)`` sorted (stable: queue order among equal keys)."""
    _filler_unsorted(out, q, nq, procs, ids, free)
    stable_sort(out.begin(), out.end(), _first_less)


cdef void _filler_unsorted(vector[Keyed]& out, const long* q, long nq, const long* procs,
                           const double* ids, long free) noexcept:  # fmt: skip
    """The keys of :func:`_filler_keys`, in the order of ``q``."""
    cdef long i, j, diff
    cdef double f0, f1, m = nq if nq > 1 else 1
    out.resize(nq)
    for i in range(nq):
        j = q[i]
        if free > 0:
            diff = free - procs[j]
            f0 = 1.0 - <double>diff / <double>free if diff >= 0 else -1.0
        else:
            f0 = 1.0
        f1 = ids[j] + 1.0
        if f1 < 1.0:
            f1 = 1.0
        out[i] = Keyed(-(f0 / (f1 / m)), j)


cdef bint _first_less(const Keyed& x, const Keyed& y) noexcept:
    return x.first < y.first


cdef bint _greater(const Keyed& x, const Keyed& y) noexcept:
    return x.first > y.first or (x.first == y.first and x.second > y.second)


def filler_order(queue, procs, ids, long free) -> list[int]:
    """Filler's deploy order of the jobs ``queue``: by factor0 / factor1 (highest first), where
    factor0 = 1 - (free - procs) / free if the job fits the ``free`` cores (1 when nothing is
    free, -1 when it does not fit) and factor1 = (job id + 1) / queue length (ELiSE
    Algorithm 2; :class:`.schedulers.Filler`)."""
    cdef vector[long] q = list(queue), p = list(procs)
    cdef vector[double] d = [float(x) for x in ids]
    cdef vector[Keyed] out
    cdef long i
    _filler_keys(out, q.data(), q.size(), p.data(), d.data(), free)
    return [out[i].second for i in range(<long>out.size())]


cdef class ColocPass(SharedPass):
    """One co-scheduler's compiled pass (module doc); made at the scheduler's ``setup``."""

    cdef SharedNodes sh
    cdef SharedCores acct
    cdef vector[long] cores, k, whole  # per job: cores per node, nodes, whole nodes (fallback)
    cdef vector[double] req
    cdef long cpn, depth  # depth -1: no limit
    cdef bint extra, backfill, fallback
    cdef vector[long] iv  # scratch: the chosen nodes, flat intervals
    cdef vector[long] q   # scratch: the jobs queued at the start of the pass
    cdef vector[long] bq  # scratch: the jobs still queued at the backfill
    cdef vector[pair[long, long]] sorted_iv
    cdef public long deployed  # jobs started by deploy (not by backfill)
    cdef vector[long] shape      # per job: its (cores, nodes) class
    cdef vector[long] shape_c, shape_k  # per class: cores per node, nodes
    cdef vector[long] broke      # per class: the stamp at which it broke rule (b)
    cdef long stamp
    cdef vector[long] taken      # per job: the pass that started it
    cdef long pass_id
    cdef bint filler             # deploy in Filler's order (else queue order)
    cdef vector[long] procs
    cdef vector[double] ids
    cdef vector[Keyed] keyed
    cdef vector[long] room       # room[c]: nodes with at least c free cores (now)
    cdef View view               # the view of a Python-called pass (run_view), else None
    cdef PassState* s            # the kernel's state of a C-called pass, else NULL
    cdef double now
    # the last backfill's shadow time and projection, kept while nothing changed (ScanMemo's
    # test): the head, the jobs ended, the overrides, the starts are the same and no running
    # job is past its estimate
    cdef bint memo_on, m_valid
    cdef long m_head, m_completed, m_overrides, m_starts, nstarts
    cdef double m_shadow
    cdef CoreProjection m_proj

    def __init__(self, View view, cores, k, bint extra, depth, bint backfill,
                 bint fallback, bint filler=False) -> None:  # fmt: skip
        self.acct = view.machine._acct
        self.sh = self.acct.nodes
        self.cpn = view.machine.cores_per_node
        c_arr = np.asarray(cores, dtype=np.int64)
        k_arr = np.asarray(k, dtype=np.int64)
        procs = np.asarray(view.procs, dtype=np.int64)
        self.cores = _longs(c_arr)
        self.k = _longs(k_arr)
        self.whole = _longs(-(-procs // self.cpn))
        self.req = _doubles(view.req)
        self.extra = extra
        self.depth = -1 if depth is None else depth
        self.backfill = backfill
        self.fallback = fallback
        self.deployed = 0
        # the (cores, nodes) classes, numbered in order of first appearance
        key = c_arr * (int(k_arr.max(initial=0)) + 1) + k_arr
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        order = np.argsort(first)  # (first indices are distinct)
        rank = np.empty(len(first), dtype=np.int64)
        rank[order] = np.arange(len(first))
        self.shape = _longs(rank[inverse.reshape(-1)])
        self.shape_c = _longs(c_arr[first[order]])
        self.shape_k = _longs(k_arr[first[order]])
        self.broke.assign(len(first), 0)
        self.stamp = 0
        self.taken.assign(view.n, -1)
        self.pass_id = 0
        self.filler = filler
        self.procs = _longs(procs)
        self.ids = _doubles(view.ids)
        self.memo_on = not view.has_dependencies  # (released dependents join mid-queue)
        self.m_valid = False
        self.nstarts = 0

    cdef void _room(self) noexcept:
        cdef long f, acc = 0
        self.room.resize(self.cpn + 1)
        for f in range(self.cpn, -1, -1):
            acc += self.sh.by_free[f]
            self.room[f] = acc

    # -- where a job would go ---------------------------------------------------------------
    cdef void _idle(self, long need) noexcept:
        """Append the ``need`` lowest idle nodes to :attr:`iv` (there are that many)."""
        self.sh.lowest_idle_c(need, &self.iv)

    cdef long choose_c(self, long j) noexcept:
        """Where job ``j`` would go now, in :attr:`iv` (sorted, touching intervals joined);
        its cores per node, or 0 if it does not fit (:meth:`.schedulers.CoScheduler.choose`
        with the default node order)."""
        cdef SharedNodes sh = self.sh
        cdef long c = self.cores[j], need = self.k[j], cpn = self.cpn, i, m, f, a, b
        self.iv.clear()
        if c == cpn:
            if sh.n_idle < need:
                return 0
            self._idle(need)
            self._join_iv()
            return c
        if sh.count_with(c) < need:  # idle nodes count: they have every core free
            if self.fallback and sh.n_idle >= self.whole[j]:  # whole idle nodes instead
                self._idle(self.whole[j])
                self._join_iv()
                return cpn
            return 0
        m = sh.st.size()
        for i in range(m):  # partly used nodes with room, by node id
            if need == 0:
                break
            f = sh.fr[i]
            if c <= f < cpn:
                a = sh.st[i]
                b = sh._end(i)
                if b - a > need:
                    b = a + need
                self.iv.push_back(a)
                self.iv.push_back(b)
                need -= b - a
        if need:
            self._idle(need)
        self._join_iv()
        return c

    cdef void _join_iv(self) noexcept:
        """Sort :attr:`iv` by node (idle nodes may come after partly used ones) and join
        touching intervals (the nodes as the kernel's check keeps them)."""
        cdef long r, n = self.iv.size() // 2, w = 0
        self.sorted_iv.resize(n)
        for r in range(n):
            self.sorted_iv[r] = pair[long, long](self.iv[2 * r], self.iv[2 * r + 1])
        csort(self.sorted_iv.begin(), self.sorted_iv.end())
        for r in range(n):
            if w and self.iv[2 * w - 1] == self.sorted_iv[r].first:
                self.iv[2 * w - 1] = self.sorted_iv[r].second
            else:
                self.iv[2 * w] = self.sorted_iv[r].first
                self.iv[2 * w + 1] = self.sorted_iv[r].second
                w += 1
        self.iv.resize(2 * w)

    cdef int _start(self, long j, long c) except -1:
        """Start job ``j`` now on :attr:`iv` with ``c`` cores per node."""
        cdef long r, n = self.iv.size() // 2
        self.taken[j] = self.pass_id
        self.nstarts += 1
        if self.s != NULL:
            return self.starter.start_c(j, self.iv.data(), n, c)
        self.view.start_now(Placement(
            j, intervals=[(self.iv[2 * r], self.iv[2 * r + 1]) for r in range(n)], cores=c
        ))  # fmt: skip
        return 0

    # -- the pass ---------------------------------------------------------------------------
    cdef int run(self, PassState* s) except -1:
        """One pass called by the kernel (its state in ``s``)."""
        cdef long i
        self.s = s
        self.view = None
        self.now = s.now
        self.q.resize(s.nq)
        for i in range(s.nq):
            self.q[i] = s.queue[i]
        try:
            self._pass()
        finally:
            self.s = NULL
        return 0

    def run_view(self, View view) -> None:
        """One pass called from Python (the scheduler's ``schedule``), on ``view``."""
        cdef list queue = <list>view.queue  # a FrozenList: a list underneath
        cdef long i, nq = len(queue)
        self.s = NULL
        self.view = view
        self.now = view.now
        self.q.resize(nq)
        for i in range(nq):
            self.q[i] = queue[i]
        try:
            self._pass()
        finally:
            self.view = None

    cdef int _pass(self) except -1:
        """Deploy the queued jobs in order while they fit, then backfill."""
        cdef long j, c, i, nq = self.q.size()
        self.pass_id += 1
        if self.filler:
            # Filler's order, taken from a heap until a job does not fit: (-key, j) pairs in
            # lexicographic order are the stable sort by key of a queue in ascending j
            _filler_unsorted(self.keyed, self.q.data(), nq, self.procs.data(),
                             self.ids.data(), self.sh.total_free)  # fmt: skip
            make_heap(self.keyed.begin(), self.keyed.end(), _greater)
            while self.keyed.size():
                pop_heap(self.keyed.begin(), self.keyed.end(), _greater)
                j = self.keyed.back().second
                self.keyed.pop_back()
                c = self.choose_c(j)
                if not c:
                    break
                self._start(j, c)
                self.deployed += 1
        else:
            for i in range(nq):
                j = self.q[i]
                c = self.choose_c(j)
                if not c:
                    break
                self._start(j, c)
                self.deployed += 1
        if self.backfill:
            self._backfill()
        return 0

    cdef bint _gives_back(
        self, CoreProjection proj, double est, long kk, double now, long k_h, double* shadow
    ) noexcept:
        """Running job ``kk`` gives its cores back to the head's projection at its estimated
        end ``est`` (``now`` when past); the first end at which the head's ``k_h`` cores per
        node are free becomes ``shadow``. False once ``est`` is past ``shadow`` (the walk over
        the running jobs, in estimated-end order, stops there)."""
        cdef SharedCores acct = self.acct
        if est < now:
            est = now
        if est > shadow[0]:
            return False
        if (
            proj.add_c(acct.flat.data() + acct.off[kk], acct.cnt[kk], acct.cr[kk]) >= k_h
            and shadow[0] == INFINITY
        ):
            shadow[0] = est
        return True

    cdef int _backfill(self) except -1:
        cdef SharedNodes sh = self.sh
        cdef CoreProjection proj
        cdef long i, j, head, k_h, last, c, kk, nq = self.q.size(), loss, ne = 0, e
        cdef double now = self.now, shadow = INFINITY, est
        cdef bint any_fits = False, rule_a, past, volatile
        cdef long completed, overrides
        cdef const Est* run = NULL
        # the queued jobs (the head, then at most depth more) while none of those fits now
        self._room()
        for i in range(<long>self.shape_c.size()):
            if self.shape_k[i] <= self.room[self.shape_c[i]]:
                break
        else:
            return 0  # no job of any shape fits now (a full machine): nothing to backfill
        self.bq.clear()
        for i in range(nq):
            j = self.q[i]
            if self.taken[j] != self.pass_id:
                self.bq.push_back(j)
                if self.bq.size() > 1 and self.k[j] <= self.room[self.cores[j]]:
                    any_fits = True
                    break
                if self.depth >= 0 and <long>self.bq.size() > self.depth:
                    break
        if not any_fits:
            return 0
        for i in range(i + 1, nq):  # and the rest
            j = self.q[i]
            if self.taken[j] != self.pass_id:
                self.bq.push_back(j)
        nq = self.bq.size()
        head = self.bq[0]
        last = nq if self.depth < 0 else min(nq, 1 + self.depth)
        k_h = self.k[head]
        # nothing changed since the last backfill: its shadow time and projection hold, and
        # so do the rule (b) verdicts it reached after its last start (the machine, the
        # projection and the running jobs are the same; the clock moved on, which can only
        # fail rule (a)): the Python scan's ScanMemo test
        if self.s != NULL:
            run = self.starter.running(&ne)
            completed, overrides = self.s.completed, self.s.epoch
            past = ne > 0 and run[0].first < now
        else:
            completed, overrides = self.view.completed, 0  # never gated
            past = len(self.view.est_sorted) > 0 and self.view.est_sorted[0][0] < now
        if (
            self.memo_on and self.m_valid and self.m_head == head
            and self.m_completed == completed and self.m_overrides == overrides
            and self.m_starts == self.nstarts and not past
        ):  # fmt: skip
            proj = self.m_proj
            shadow = self.m_shadow
        else:
            proj = None
            self.stamp += 1  # rule (b) verdicts of an earlier state no longer hold
        self.m_valid = False
        volatile = False
        if proj is not None:
            pass
        elif self.s != NULL:
            # the head's shadow time: running jobs give back their cores at their estimated ends
            proj = CoreProjection(sh, self.cores[head])
            volatile = proj.count >= k_h  # (a head that fits now: Filler's order left it)
            run = self.starter.running(&ne)
            for e in range(ne):
                if not self._gives_back(proj, run[e].first, run[e].second, now, k_h, &shadow):
                    break
            if self.s.reservation[head] != self.s.reservation[head]:  # the first one only
                self.s.reservation[head] = shadow
        else:
            proj = CoreProjection(sh, self.cores[head])
            volatile = proj.count >= k_h
            for est, kk in self.view.est_sorted:
                if not self._gives_back(proj, est, kk, now, k_h, &shadow):
                    break
            self.view.record_reservation(head, shadow)
        if shadow == INFINITY:
            return 0
        for i in range(1, last):
            j = self.bq[i]
            if self.k[j] > self.room[self.cores[j]]:
                continue
            # rule (a) alone: admit with nothing held at S and no extra
            rule_a = admit_c(now, self.req[j], shadow, 0, 0, False) == 0
            if not (rule_a or self.extra):
                continue  # not rule (a), and rule (b) is off: no need to place it
            if not rule_a and self.broke[self.shape[j]] == self.stamp:
                continue  # a job of the same shape broke rule (b): same nodes, same verdict
            c = self.choose_c(j)
            if not rule_a:  # rule (b): with its cores still in use at S, the head still fits
                loss = proj.loss_c(self.iv.data(), self.iv.size() // 2, c)
                if admit_c(now, self.req[j], shadow, loss, proj.count - k_h, True) < 0:
                    self.broke[self.shape[j]] = self.stamp
                    continue
                proj.add_c(self.iv.data(), self.iv.size() // 2, -c)
            self.stamp += 1  # the machine changed: verdicts of rule (b) no longer hold
            self._start(j, c)
            self._room()
        if shadow > now and not volatile:  # (a shadow time of "now" moves with the clock)
            self.m_valid = True
            self.m_head, self.m_completed, self.m_overrides = head, completed, overrides
            self.m_starts = self.nstarts
            self.m_shadow = shadow
            self.m_proj = proj
        return 0
