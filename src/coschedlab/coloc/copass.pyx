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
(``admit_c``, the one statement of the rules). It starts jobs through ``view.start_now``.

The scan is the plain one (every pass from scratch, in queue order: the oracle of
``tests/coloc/reference_coloc.py``); in C, a pass over a queue of thousands costs
microseconds, so the job classes and kept shadow times of the Python scan are not needed.
"""

from libc.math cimport INFINITY
from libcpp.algorithm cimport sort as csort
from libcpp.utility cimport pair
from libcpp.vector cimport vector

from coschedlab.engine.segments cimport CoreProjection, SharedCores, SharedNodes
from coschedlab.engine.view cimport View
from coschedlab.schedulers.rules cimport admit_c

from coschedlab.engine.placement import Placement

__all__ = ["ColocPass"]


cdef class ColocPass:
    """One co-scheduler's compiled pass (module doc); made at the scheduler's ``setup``."""

    cdef SharedNodes sh
    cdef SharedCores acct
    cdef vector[long] cores, k, whole  # per job: cores per node, nodes, whole nodes (fallback)
    cdef vector[double] req
    cdef long cpn, depth  # depth -1: no limit
    cdef bint extra, backfill, fallback
    cdef vector[long] iv  # scratch: the chosen nodes, flat intervals
    cdef vector[long] q   # scratch: the jobs still queued
    cdef vector[pair[long, long]] sorted_iv
    cdef public long deployed  # jobs started by deploy (not by backfill)

    def __init__(self, View view, cores, k, bint extra, depth, bint backfill,
                 bint fallback) -> None:  # fmt: skip
        self.acct = view.machine._acct
        self.sh = self.acct.nodes
        self.cpn = view.machine.cores_per_node
        self.cores = list(cores)
        self.k = list(k)
        self.whole = [-(-p // self.cpn) for p in view.procs]
        self.req = list(view.req)
        self.extra = extra
        self.depth = -1 if depth is None else depth
        self.backfill = backfill
        self.fallback = fallback
        self.deployed = 0

    # -- where a job would go ---------------------------------------------------------------
    cdef void _idle(self, long need) noexcept:
        """Append the ``need`` lowest idle nodes to :attr:`iv` (there are that many)."""
        cdef SharedNodes sh = self.sh
        cdef long i = 0, a, b, cpn = self.cpn
        while need > 0:
            while sh.fr[i] != cpn:
                i += 1
            a = sh.st[i]
            b = sh._end(i)
            if b - a > need:
                b = a + need
            self.iv.push_back(a)
            self.iv.push_back(b)
            need -= b - a
            i += 1

    cdef long choose_c(self, long j) noexcept:
        """Where job ``j`` would go now, in :attr:`iv`; its cores per node, or 0 if it does
        not fit (:meth:`.schedulers.CoScheduler.choose` with the default node order)."""
        cdef SharedNodes sh = self.sh
        cdef long c = self.cores[j], need = self.k[j], cpn = self.cpn, i, m, f, a, b
        self.iv.clear()
        if c == cpn:
            if sh.n_idle < need:
                return 0
            self._idle(need)
            return c
        if sh.count_with(c) < need:  # idle nodes count: they have every core free
            if self.fallback and sh.n_idle >= self.whole[j]:  # whole idle nodes instead
                self._idle(self.whole[j])
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
        return c

    cdef object _placement(self, long j, long c):
        cdef long r
        return Placement(
            j, intervals=[(self.iv[2 * r], self.iv[2 * r + 1]) for r in range(self.iv.size() // 2)],
            cores=c,
        )

    cdef void _sort_iv(self) noexcept:
        """Sort :attr:`iv` by node (idle nodes may come after partly used ones)."""
        cdef long r, n = self.iv.size() // 2
        self.sorted_iv.resize(n)
        for r in range(n):
            self.sorted_iv[r] = pair[long, long](self.iv[2 * r], self.iv[2 * r + 1])
        csort(self.sorted_iv.begin(), self.sorted_iv.end())
        for r in range(n):
            self.iv[2 * r] = self.sorted_iv[r].first
            self.iv[2 * r + 1] = self.sorted_iv[r].second

    # -- the pass ---------------------------------------------------------------------------
    def run(self, View view, order) -> None:
        """One pass: deploy the queued jobs in ``order`` (None: queue order) while they fit,
        then backfill."""
        cdef long j, c
        for j in (view.queue if order is None else order):
            c = self.choose_c(j)
            if not c:
                break
            view.start_now(self._placement(j, c))
            self.deployed += 1
        if self.backfill:
            self._backfill(view)

    cdef int _backfill(self, View view) except -1:
        cdef const unsigned char[:] queued = view.queued
        cdef list queue = <list>view.queue  # a FrozenList: a list underneath
        cdef SharedNodes sh = self.sh
        cdef SharedCores acct = self.acct
        cdef CoreProjection proj
        cdef long i, j, head, k_h, last, c, kk, nq, loss
        cdef double now = view.now, shadow = INFINITY, est
        cdef bint any_fits = False, rule_a
        self.q.clear()
        for i in range(len(queue)):
            j = queue[i]
            if queued[j]:
                self.q.push_back(j)
        nq = self.q.size()
        if nq < 2:
            return 0
        head = self.q[0]
        last = nq if self.depth < 0 else min(nq, 1 + self.depth)
        for i in range(1, last):
            j = self.q[i]
            if self.k[j] <= sh.count_with(self.cores[j]):
                any_fits = True
                break
        if not any_fits:
            return 0
        # the head's shadow time: running jobs give back their cores at their estimated ends
        k_h = self.k[head]
        proj = CoreProjection(sh, self.cores[head])
        for est, kk in view.est_sorted:
            if est < now:
                est = now
            if est > shadow:
                break
            if (
                proj.add_c(acct.flat.data() + acct.off[kk], acct.cnt[kk], acct.cr[kk]) >= k_h
                and shadow == INFINITY
            ):
                shadow = est
        view.record_reservation(head, shadow)
        if shadow == INFINITY:
            return 0
        for i in range(1, last):
            j = self.q[i]
            if self.k[j] > sh.count_with(self.cores[j]):
                continue
            # rule (a) alone: admit with nothing held at S and no extra
            rule_a = admit_c(now, self.req[j], shadow, 0, 0, False) == 0
            if not (rule_a or self.extra):
                continue  # not rule (a), and rule (b) is off: no need to place it
            c = self.choose_c(j)
            self._sort_iv()
            if not rule_a:  # rule (b): with its cores still in use at S, the head still fits
                loss = proj.loss_c(self.iv.data(), self.iv.size() // 2, c)
                if admit_c(now, self.req[j], shadow, loss, proj.count - k_h, True) < 0:
                    continue
                proj.add_c(self.iv.data(), self.iv.size() // 2, -c)
            view.start_now(self._placement(j, c))
        return 0
