# distutils: language = c++
"""The co-schedulers' pass, compiled: deploy in order while jobs fit, then EASY backfilling on
shared nodes (:class:`ColocPass`), for every co-scheduler: nodes in the default order
(``easy-coloc``, ``filler``), in best-pair's with the compiled co-location model, or by the
ranks family's node keys on the co-location model's inputs (``ranks``, ``jungle``,
``slowdown``, and ``bester``, whose backfill keeps no reservation: :meth:`_bester_backfill`);
a subclass's own ``node_order``/``node_key`` (and best-pair on another speed model) and
``deploy_order`` are Python hooks it calls (``nodes_hook``, ``deploy_hook``: then it runs from
the scheduler's ``schedule``, :meth:`ColocPass.run_view`).

Per pass it reads the kernel's view and the compiled segments
(:class:`~coschedlab.engine.segments.SharedNodes`) in C: where each job would go
(the former ``CoScheduler.choose``'s rule: partly used nodes with room by node id, or
for best-pair by the job's predicted speedup beside their jobs, then the lowest idle nodes;
whole idle nodes for a compact job; ``fallback``), the head's shadow time on a
:class:`~coschedlab.engine.segments.CoreProjection` (the first running job's estimated end at
which enough nodes have the cores it needs, even when it fits now, as ELiSE's backfill
computes it), and EASY's two rules for later jobs that fit now (``admit_c``, the one
statement of the rules). The kernel calls it as a
:class:`~coschedlab.engine.cshared.SharedPass` (no Python call per pass or per job: jobs start
through the kernel's C starter); a kernel subclass with a loop of its own (ELiSE's clock)
calls :meth:`ColocPass.run_view` from the scheduler's ``schedule``, and jobs start through
``view.start_now``.

The backfill scans job *classes* (cores per node, nodes, requested time, and for best-pair the
application): jobs of a class are interchangeable for it, so the next job to start is the
first job of some class, and a pass costs O(classes) per start rather than O(queue). The
classes are kept between the kernel's passes (arrivals join at the end) and listed afresh
when the queue changed otherwise. It decides as the plain scan in queue order does (the
oracle of ``tests/coloc/reference_coloc.py``, beside the Python class scan this pass
replaced, ``python_scan``).
"""

from libc.limits cimport LONG_MAX
from libc.stdint cimport int32_t, uint64_t
from libc.string cimport memcpy
from libc.math cimport INFINITY
from libcpp.algorithm cimport sort as csort
from libcpp.algorithm cimport lower_bound, make_heap, pop_heap, stable_sort, upper_bound
from libcpp.utility cimport pair
from libcpp.vector cimport vector

from coschedlab.engine.cpass cimport Est, PassState
from coschedlab.engine.cshared cimport SharedPass
from coschedlab.engine.cspeed cimport NeighbourSpeed
from coschedlab.engine.cspeed cimport doubles_of as _doubles, longs_of as _longs
from coschedlab.engine.segments cimport CoreProjection, SharedCores, SharedNodes
from coschedlab.engine.view cimport FrozenList, View
from coschedlab.schedulers.rules cimport admit_c

import numpy as np

from coschedlab.engine.placement import Placement

__all__ = ["ColocPass", "filler_order", "pair_predictor"]

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil


cdef long _number(const vector[long]& key, vector[long]& out, vector[long]& first) noexcept:
    """Number the distinct values of ``key`` in order of first appearance: ``out[j]`` the
    number of ``key[j]``, ``first[c]`` the first position holding value number ``c``; returns
    how many. One look-up per job in an open-addressing table (Fibonacci hashing, linear
    probing, at most half full), where ``np.unique`` sorted the jobs."""
    cdef vector[long] slot
    cdef long j, n = key.size(), c, x, bits = 6, r
    cdef unsigned long h, mask = (1UL << bits) - 1
    out.resize(n)
    first.clear()
    slot.assign(mask + 1, -1)
    for j in range(n):
        x = key[j]
        h = (<unsigned long>x * 11400714819323198485UL) >> (64 - bits)
        while True:
            c = slot[h]
            if c < 0:
                c = first.size()
                first.push_back(j)
                slot[h] = c
                break
            if key[first[c]] == x:
                break
            h = (h + 1) & mask
        out[j] = c
        if 2 * <long>first.size() > <long>mask:  # more than half full: twice as large
            bits += 1
            mask = (1UL << bits) - 1
            slot.assign(mask + 1, -1)
            for r in range(<long>first.size()):
                h = (<unsigned long>key[first[r]] * 11400714819323198485UL) >> (64 - bits)
                while slot[h] >= 0:
                    h = (h + 1) & mask
                slot[h] = r
    return first.size()


ctypedef pair[double, long] Keyed
ctypedef pair[pair[double, double], long] KeyedSeg

# the ranks family's node keys (:class:`.schedulers._RankedNodes`)
cdef enum:
    KEY_RANKS = 1
    KEY_JUNGLE = 2
    KEY_SLOWDOWN = 3


cdef void _filler_keys(vector[Keyed]& out, const long* q, long nq, const long* procs,
                       const double* ids, long free) noexcept:  # fmt: skip
    """Filler's deploy order (ELiSE Algorithm 2) of the ``nq`` jobs ``q``, into ``out`` as
    ``(-key, j)`` sorted (stable: queue order among equal keys)."""
    _filler_unsorted(out, q, nq, procs, ids, free, nq)
    stable_sort(out.begin(), out.end(), _first_less)


cdef void _filler_unsorted(vector[Keyed]& out, const long* q, long nq, const long* procs,
                           const double* ids, long free, long length) noexcept:  # fmt: skip
    """The keys of :func:`_filler_keys`, in the order of ``q``, for a queue of ``length``
    jobs (``q`` may be part of it)."""
    cdef long i, j, diff
    cdef double f0, f1, m = length if length > 1 else 1
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


def pair_predictor(View view) -> NeighbourSpeed | None:
    """The compiled speed model whose pair speedups ``view.speedup`` answers with (a
    :class:`~.speed.ColocationSpeed`, bound), or None (no model, or another one): best-pair's
    node order then runs compiled on its tables."""
    from .speed import ColocationSpeed  # (the model's module imports the engine, not this)

    pred = view._predicted
    model = getattr(pred, "__self__", None)
    if (
        isinstance(model, NeighbourSpeed)
        and getattr(pred, "__func__", None) is ColocationSpeed.predicted
        and (<NeighbourSpeed>model).sh is view.machine._acct.nodes
    ):
        return model
    return None


cdef inline long _take_runs(vector[long]* iv, uint64_t bits, long x, long need,
                            long* seen) noexcept:
    """Append to ``iv`` the runs of touching nodes of word ``x``'s set ``bits`` (nodes
    ``64 x`` ..), lowest first, as intervals ``a b``, until ``need`` nodes are taken (the last
    run cut short); ``seen`` less each run's whole length. Returns the nodes still needed
    (:meth:`ColocPass.choose_c`, bester's backfill)."""
    cdef long lo, hi, a, b
    cdef uint64_t rest
    while bits and need:
        lo = __builtin_ctzll(bits)
        rest = ~bits & (~(<uint64_t>0) << lo)  # the run ends at the next node without
        hi = __builtin_ctzll(rest) if rest else 64
        bits = bits & ~((<uint64_t>0) - 1 >> (64 - hi)) if hi < 64 else 0
        a = (x << 6) + lo
        b = (x << 6) + hi
        seen[0] -= b - a
        if b - a > need:
            b = a + need
        iv.push_back(a)
        iv.push_back(b)
        need -= b - a
    return need


cdef inline long _rows_in_use(const long* by_free, long c, long cpn, long* fl,
                              long* nodes) noexcept:  # fmt: skip
    """The free-core values ``c`` .. ``cpn - 1`` that some node has now (``by_free``), into
    ``fl``; their nodes added to ``nodes[0]``; returns how many values. The other rows are
    empty, so a word's nodes with room for ``c`` cores are the OR of these rows alone
    (:func:`_or_rows`: one row, not ``cpn - c``, when the jobs take one size)."""
    cdef long f, nf = 0
    for f in range(c, cpn):
        if by_free[f]:
            fl[nf] = f
            nf += 1
            nodes[0] += by_free[f]
    return nf


cdef inline uint64_t _or_rows(const uint64_t* word_rows, const long* fl, long nf) noexcept:
    """The OR of rows ``fl[0 .. nf - 1]`` of one word (its rows side by side at
    ``word_rows``): the word's partly used nodes with room (:func:`_rows_in_use`)."""
    cdef uint64_t bits = 0
    cdef long i
    for i in range(nf):
        bits |= word_rows[fl[i]]
    return bits


cdef void _starts_with_room(SharedNodes sh, long c, long cpn, long* fl,
                            vector[long]* out) noexcept:  # fmt: skip
    """Append to ``out`` the first nodes of the partly used segments with at least ``c`` free
    cores, by node: the segment starts (``sbit``) among the nodes of the free-core rows in use
    from ``c`` to ``cpn - 1`` (``fl``: scratch of ``cpn`` values), a word of 64 nodes at a time
    (best-pair's and the ranks family's orders), only the words holding a segment start
    (``stop``: on 10^7 nodes a few of 156,250)."""
    cdef long v, w, nv = sh.stop.size(), part = 0
    cdef const uint64_t* rows = sh.rows.data()
    cdef const uint64_t* sb = sh.sbit.data()
    cdef const uint64_t* top = sh.stop.data()
    cdef uint64_t bits, words
    cdef long nf = _rows_in_use(sh.by_free.data(), c, cpn, fl, &part)
    if nf == 0:
        return
    for v in range(nv):
        words = top[v]
        while words:
            w = (v << 6) + __builtin_ctzll(words)
            words &= words - 1
            bits = _or_rows(rows + w * cpn, fl, nf) & sb[w]
            while bits:
                out.push_back((w << 6) + __builtin_ctzll(bits))
                bits &= bits - 1


cdef class ColocPass(SharedPass):
    """One co-scheduler's compiled pass (module doc); made at the scheduler's ``setup``."""

    cdef SharedNodes sh
    cdef SharedCores acct
    cdef vector[long] cores, k, whole  # per job: cores per node, nodes, whole nodes (fallback)
    cdef vector[double] req
    cdef long cpn, depth  # depth -1: no limit
    cdef bint extra, backfill, fallback
    cdef vector[long] iv  # scratch: the chosen nodes, flat intervals
    cdef vector[long] frows  # scratch: the free-core rows in use (:func:`_rows_in_use`)
    cdef vector[long] held  # scratch: a running job's nodes, flat intervals
    cdef vector[long] q   # scratch: a copy of the queue of a pass called from Python
    cdef const long* qp   # the queue of this pass (the kernel's array, or q)
    cdef long nq
    cdef vector[pair[long, long]] sorted_iv
    cdef public long deployed  # jobs started by deploy (not by backfill)
    cdef vector[long] shape      # per job: its (cores, nodes) class
    cdef vector[long] shape_c, shape_k  # per class: cores per node, nodes
    cdef vector[long] broke      # per class: the stamp at which it broke rule (b)
    cdef bint nested             # the default node order: a job's nodes are the first with
                                 # room for its cores, so more nodes on as many cores include
                                 # fewer (a rule (b) loss grows with the nodes)
    cdef vector[long] broke_at, broke_k  # per cores per node (nested): the stamp at which a
                                         # job broke rule (b), the fewest nodes that did
    cdef long stamp
    cdef vector[long] taken      # per job: the pass that started it
    cdef long pass_id
    cdef bint filler             # deploy in Filler's order (else queue order)
    cdef vector[long] procs
    cdef vector[double] ids
    cdef vector[Keyed] keyed
    cdef vector[long] fq         # scratch: Filler's jobs within the free cores
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
    cdef CoreProjection proj_            # the one projection object, reset at each use
    # the queued jobs by class (cores per node, nodes, requested time): jobs of a class are
    # interchangeable for the backfill (same room, same rule (a), same nodes so same rule
    # (b)), so its scan looks at the first job of each class, not at every queued job
    cdef vector[long] cls                # per job: its class
    cdef vector[long] cls_c, cls_k, cls_shape
    cdef vector[double] cls_req
    cdef vector[vector[long]] members    # per class: its queued jobs' keys, ascending
    cdef vector[long] nonempty, slot     # the classes with members; slot[c]: c's place there
    cdef vector[char] listed             # per job: in members (keys are job indices)
    cdef vector[long] pos                # per job: its place in the queue (keys are places)
    cdef long nlisted, l_epoch
    cdef bint by_index                   # keys are job indices (the queue is ascending)
    cdef vector[pair[long, long]] cand   # scratch: (key, class) of rule (b) candidates
    # best-pair's node order: partly used nodes by the job's predicted speedup beside the
    # jobs there (highest first, then by node), from the speed model's tables
    cdef NeighbourSpeed model            # None: the default order (by node)
    cdef vector[long] rank_of            # per (row, column) of the model: the rank of that
                                         # pair speedup among its row's values (0: highest)
    cdef long nrank                      # ranks per row (at most the columns)
    cdef vector[long] ranked             # scratch: partly used segments in best-pair's order
    cdef vector[long] seg_at, seg_rank   # scratch: those segments by node (first nodes), ranks
    cdef vector[long] bucket             # scratch: segments by rank
    # the ranks family's node order (ranks, jungle, slowdown): every node with room, idle ones
    # included, by a key of the job and the jobs there (highest first, then by node), from
    # the co-location model's inputs (``view.coloc``) as C arrays
    cdef int keys                        # 0: none; KEY_RANKS, KEY_JUNGLE, KEY_SLOWDOWN
    cdef vector[long] k_app              # per job: its heatmap row (-1: unknown)
    cdef vector[double] k_rows           # pair speedups, k_nrow x k_nrow (NaN: unmeasured)
    cdef vector[double] k_alone, k_mean  # per row: spread-alone and mean measured speedup
    cdef long k_nrow
    cdef vector[KeyedSeg] kseg           # scratch: (-key1, -key2, first node) per segment
    cdef vector[long] kidle              # scratch: the lowest idle nodes, intervals
    cdef bint bester                     # bester's backfill (:meth:`_bester_backfill`)
    # a co-scheduler's own public hooks, called from the pass (run_view only: they take the
    # view): ``nodes_hook(view, j)``, the nodes of a job that fits spread (its node_order
    # hook's runs, then the lowest idle nodes); ``deploy_hook(view)``, its deploy order
    cdef object nodes_hook, deploy_hook

    def __init__(self, View view, cores, k, bint extra, depth, bint backfill,
                 bint fallback, bint filler=False, group=None,
                 NeighbourSpeed model=None, keys=None, info=None,
                 bint bester=False, nodes_hook=None,
                 deploy_hook=None) -> None:  # fmt: skip
        """``group`` (per job, optional): jobs of different groups are never
        interchangeable (best-pair: the application, which its node order depends on);
        ``model``: best-pair's node order on that model's pair speedups
        (:func:`pair_predictor`), else nodes by id; ``keys`` (``"ranks"``, ``"jungle"``,
        ``"slowdown"``): the ranks family's node order on ``info`` (the co-location model's
        :class:`~.speed.ColocInfo`, ``view.coloc``); ``bester``: bester's backfill (no
        reservation) instead of EASY's; ``nodes_hook(view, j)``: the intervals of a job that
        fits spread, from a Python node order (a hook of the scheduler's); ``deploy_hook(view)``:
        the deploy order, from Python (both called only by :meth:`run_view`)."""
        self.acct = view.machine._acct
        self.sh = self.acct.nodes
        self.cpn = view.machine.cores_per_node
        self.frows.assign(self.cpn + 1, 0)
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
        # the (cores, nodes) shapes, numbered in order of first appearance
        key = c_arr * (int(k_arr.max(initial=0)) + 1) + k_arr
        if group is not None:  # (cores, nodes, group) shapes
            groups, gid = np.unique(np.asarray(group, dtype=np.int64), return_inverse=True)
            key = key * len(groups) + gid.reshape(-1)
        self.model = model
        if model is not None:
            self._rank_pairs()
        self.bester = bester
        self.nodes_hook = nodes_hook
        self.deploy_hook = deploy_hook
        self.keys = 0
        if keys is not None:
            self._key_tables(keys, info)
        self._classes(_longs(key))
        self.broke.assign(self.shape_c.size(), 0)
        self.nested = keys is None and model is None and nodes_hook is None
        self.broke_at.assign(self.cpn + 1, -1)
        self.broke_k.assign(self.cpn + 1, 0)
        self.stamp = 0
        self.taken.assign(view.n, -1)
        self.pass_id = 0
        self.filler = filler
        self.procs = _longs(procs)
        self.ids = _doubles(view.ids)
        self.memo_on = not view.has_dependencies  # (released dependents join mid-queue)
        self.members.resize(self.cls_c.size())
        self.slot.assign(self.cls_c.size(), -1)
        self.listed.assign(view.n, 0)
        self.pos.assign(view.n, -1)
        self.nlisted = 0
        self.l_epoch = -1
        self.by_index = False
        self.m_valid = False
        self.nstarts = 0

    cdef void _classes(self, const vector[long]& key) noexcept:
        """The jobs' shapes (distinct ``key``: cores, nodes and for best-pair the group) and
        classes (shape and requested time), each numbered in order of first appearance."""
        cdef vector[long] first, rid, key2, bits
        cdef long j, n = key.size(), nreq
        cdef double t
        _number(key, self.shape, first)
        self.shape_c.clear()
        self.shape_k.clear()
        for j in first:
            self.shape_c.push_back(self.cores[j])
            self.shape_k.push_back(self.k[j])
        # classes: (shape, requested time), the times numbered first (by their bits; -0.0
        # is 0.0, as np.unique counts them)
        bits.resize(n)
        for j in range(n):
            t = self.req[j] if self.req[j] != 0 else 0.0
            memcpy(&bits[j], &t, sizeof(double))
        nreq = _number(bits, rid, first)
        key2.resize(n)
        for j in range(n):
            key2[j] = self.shape[j] * nreq + rid[j]
        _number(key2, self.cls, first)
        self.cls_c.clear()
        self.cls_k.clear()
        self.cls_req.clear()
        self.cls_shape.clear()
        for j in first:
            self.cls_c.push_back(self.cores[j])
            self.cls_k.push_back(self.k[j])
            self.cls_req.push_back(self.req[j])
            self.cls_shape.push_back(self.shape[j])

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

    cdef long choose_c(self, long j) except -1:
        """Where job ``j`` would go now, in :attr:`iv` (sorted, touching intervals joined);
        its cores per node, or 0 if it does not fit (the former ``CoScheduler.choose``
        with the default node order)."""
        cdef SharedNodes sh = self.sh
        cdef long c = self.cores[j], need = self.k[j], cpn = self.cpn, nf
        cdef long part = 0, npart, x
        cdef long* fl
        cdef const long* by_free
        cdef const uint64_t* rows
        cdef uint64_t bits
        self.iv.clear()
        if c == cpn:
            if sh.n_idle < need:
                return 0
            self._idle(need)
            self._join_iv(0)
            return c
        by_free = sh.by_free.data()
        fl = self.frows.data()  # the rows in use, and the partly used nodes with room
        nf = _rows_in_use(by_free, c, cpn, fl, &part)
        if part + by_free[cpn] < need:  # idle nodes count: they have every core free
            if self.fallback and sh.n_idle >= self.whole[j]:  # whole idle nodes instead
                self._idle(self.whole[j])
                self._join_iv(0)
                return cpn
            return 0
        if self.nodes_hook is not None:  # the scheduler's own node order (Python)
            for a, b in self.nodes_hook(self.view, j):
                self.iv.push_back(a)
                self.iv.push_back(b)
            self._join_iv(-1)
            return c
        if self.keys and part:  # (no partly used node: the lowest idle ones, as by key)
            return self._choose_keyed(j, c, need)
        if self.model is not None and part:
            return self._choose_ranked(j, c, need)
        # those nodes, by node id (up to the last of them): 64 nodes at a time, the nodes with
        # c..cpn-1 free cores (the segments' rows by free cores in use), in runs of touching
        # nodes
        rows = sh.rows.data()
        x = 0
        while need and part:
            bits = _or_rows(rows, fl, nf)
            need = _take_runs(&self.iv, bits, x, need, &part)
            rows += cpn
            x += 1
        npart = self.iv.size() // 2
        if need:
            self._idle(need)
        self._join_iv(npart)
        return c

    def _rank_pairs(self) -> None:
        """:attr:`rank_of`: each pair speedup of the model by its rank in its row (equal
        values, equal ranks), so that a node's speedup (the smallest beside its jobs) is the
        largest rank beside them and nodes sort by rank in a counting pass."""
        cdef NeighbourSpeed sm = self.model
        cdef long ncol = sm.ncol, rows = sm.m_.size() // ncol if ncol else 0
        table = np.asarray([sm.m_[i] for i in range(rows * ncol)], dtype=np.float64)
        table = table.reshape(rows, ncol)
        ranks = np.zeros((rows, ncol), dtype=np.int64)
        for a in range(rows):
            values = np.unique(table[a])[::-1]  # highest first
            ranks[a] = np.searchsorted(-values, -table[a])
        self.rank_of = _longs(ranks.reshape(-1))
        self.nrank = ncol if ncol else 1

    cdef long _choose_ranked(self, long j, long c, long need) noexcept:
        """:meth:`choose_c` with best-pair's node order (:meth:`.schedulers.BestPair.node_order`):
        the partly used nodes with room go highest predicted speedup of ``j`` beside their jobs
        first (the smallest pair speedup among them; ties by node), then idle nodes."""
        cdef SharedNodes sh = self.sh
        cdef NeighbourSpeed sm = self.model
        cdef long i, a, b, x, r, app = sm.app_[j]
        cdef long rk, nr = self.nrank, total
        cdef const long* rank_row = self.rank_of.data() + (app * sm.ncol if app >= 0 else 0)
        cdef const int32_t* jobs
        self.bucket.assign(nr + 1, 0)  # counts per rank, then where each rank starts
        self.seg_at.clear()  # the partly used segments with room, by node, and their ranks
        _starts_with_room(sh, c, self.cpn, self.frows.data(), &self.seg_at)
        total = self.seg_at.size()
        self.seg_rank.clear()
        for i in range(total):
            a = self.seg_at[i]
            rk = 0  # (an unknown application: 1 beside anyone, so all equal)
            if app >= 0:
                jobs = sh._slot(a)
                for x in range(1, jobs[0] + 1):
                    r = rank_row[sm.col_[jobs[x]]]
                    if r > rk:
                        rk = r
            self.seg_rank.push_back(rk)
            self.bucket[rk + 1] += 1
        for r in range(nr):
            self.bucket[r + 1] += self.bucket[r]
        self.ranked.resize(total)
        for i in range(total):  # counting sort: by rank, by node within a rank
            rk = self.seg_rank[i]
            self.ranked[self.bucket[rk]] = self.seg_at[i]
            self.bucket[rk] += 1
        for r in range(total):
            if need == 0:
                break
            a = self.ranked[r]
            b = sh.next_c(a)
            if b - a > need:
                b = a + need
            self.iv.push_back(a)
            self.iv.push_back(b)
            need -= b - a
        if need:
            self._idle(need)
        self._join_iv(-1)
        return c

    def _key_tables(self, keys, info) -> None:
        """The ranks family's node keys (:meth:`_choose_keyed`) on ``info``'s tables (its
        per-job rows, pair speedups, spread-alone and mean speedups), copied once."""
        self.keys = {"ranks": KEY_RANKS, "jungle": KEY_JUNGLE, "slowdown": KEY_SLOWDOWN}[keys]
        rows = info._rows
        self.k_nrow = len(rows)
        self.k_app = _longs(info._app)
        self.k_rows = _doubles([v for r in rows for v in r])
        self.k_alone = _doubles(info._alone)
        self.k_mean = _doubles(info._mean)

    cdef inline double _pair_or_mean(self, long a, long b) noexcept:
        """:meth:`.speed.ColocInfo.pair_or_mean` of rows ``a`` beside ``b`` (-1: unknown)."""
        cdef double v
        if a >= 0 and b >= 0:
            v = self.k_rows[a * self.k_nrow + b]
            if v == v:
                return v
        return self.k_mean[a] if a >= 0 else 1.0

    cdef pair[double, double] _node_key(self, long j, const int32_t* jobs) noexcept:
        """The key of a node holding ``jobs`` (``[count, job, ...]``; count 0: idle) for job
        ``j``: :meth:`.schedulers.Ranks.node_key`, ``Jungle``'s or ``Slowdown``'s (one
        number: ``(key, 0)``), the same sums in the same order (ties decide the order)."""
        cdef long a = self.k_app[j], n = jobs[0], x, b
        cdef double v, worst, total, count, alone = self.k_alone[a] if a >= 0 else 1.0
        if self.keys == KEY_RANKS:
            if n == 0:
                return pair[double, double](alone, 0.0)
            worst = INFINITY
            for x in range(1, n + 1):
                b = self.k_app[jobs[x]]
                v = self.k_rows[a * self.k_nrow + b] if a >= 0 and b >= 0 else 1.0
                if v != v:
                    v = 1.0
                if v < worst:
                    worst = v
            return pair[double, double](worst, 0.0)
        if n == 0:
            if self.keys == KEY_JUNGLE:
                return pair[double, double](alone, INFINITY)
            return pair[double, double](INFINITY, alone)
        # _pair_stats: the mean of j beside each job, then of each beside j, summed in that
        # order, and how many are >= 1
        total = 0.0
        count = 0.0
        for x in range(1, n + 1):
            v = self._pair_or_mean(a, self.k_app[jobs[x]])
            total += v
            count += v >= 1
        for x in range(1, n + 1):
            v = self._pair_or_mean(self.k_app[jobs[x]], a)
            total += v
            count += v >= 1
        total = total / <double>(n * 2)
        if self.keys == KEY_JUNGLE:
            return pair[double, double](total, count)
        return pair[double, double](count, total)

    cdef long _choose_keyed(self, long j, long c, long need) noexcept:
        """:meth:`choose_c` with the ranks family's node order
        (:meth:`.schedulers._RankedNodes.node_order`): every node with room for ``c`` cores,
        idle ones included, highest key first (:meth:`_node_key`), ties by node id (a stable
        descending sort of the nodes in id order). The partly used segments are sorted by
        ``(-key, node)``; idle nodes share one key, and go where it falls (by node among the
        segments of an equal key)."""
        cdef SharedNodes sh = self.sh
        cdef long i, a, b, ns, nidle, t = 0
        cdef int32_t none = 0
        cdef pair[double, double] key, ik
        cdef bint idle_first
        self.seg_at.clear()  # the partly used segments with room (their first nodes)
        _starts_with_room(sh, c, self.cpn, self.frows.data(), &self.seg_at)
        self.kseg.clear()
        for i in range(<long>self.seg_at.size()):
            a = self.seg_at[i]
            key = self._node_key(j, sh._slot(a))
            self.kseg.push_back(KeyedSeg(pair[double, double](-key.first, -key.second), a))
        csort(self.kseg.begin(), self.kseg.end())
        ns = self.kseg.size()
        # the idle nodes that could be used: the lowest ``need`` (all of one key)
        nidle = need if sh.n_idle > need else sh.n_idle
        self.kidle.clear()
        if nidle:
            sh.lowest_idle_c(nidle, &self.kidle)
        ik = self._node_key(j, &none)
        ik = pair[double, double](-ik.first, -ik.second)
        i = 0
        while need:
            if i < ns and t < <long>self.kidle.size():  # a segment or an idle run next
                if self.kseg[i].first < ik:
                    idle_first = False
                elif ik < self.kseg[i].first:
                    idle_first = True
                else:  # equal keys: by node
                    idle_first = self.kidle[t] < self.kseg[i].second
            elif i < ns:
                idle_first = False
            else:
                idle_first = True
            if idle_first:
                a = self.kidle[t]
                b = self.kidle[t + 1]
                t += 2
            else:
                a = self.kseg[i].second
                b = sh.next_c(a)
                i += 1
            if b - a > need:
                b = a + need
            self.iv.push_back(a)
            self.iv.push_back(b)
            need -= b - a
        self._join_iv(-1)
        return c

    cdef void _join_iv(self, long npart) noexcept:
        """Sort :attr:`iv` by node and join touching intervals (the nodes as the kernel's
        check keeps them): its first ``npart`` intervals (partly used nodes) and the rest
        (idle nodes) are each sorted already; ``npart`` < 0: in any order."""
        cdef long r, n = self.iv.size() // 2, w = 0, x = 0, y = npart
        cdef long* v = self.iv.data()
        if npart == 0 or npart == n:  # one run, sorted: join only
            for r in range(n):
                if w and v[2 * w - 1] == v[2 * r]:
                    v[2 * w - 1] = v[2 * r + 1]
                else:
                    v[2 * w] = v[2 * r]
                    v[2 * w + 1] = v[2 * r + 1]
                    w += 1
            self.iv.resize(2 * w)
            return
        self.sorted_iv.resize(n)
        if npart < 0:
            for r in range(n):
                self.sorted_iv[r] = pair[long, long](v[2 * r], v[2 * r + 1])
            csort(self.sorted_iv.begin(), self.sorted_iv.end())
        else:  # merge the two runs
            for r in range(n):
                if y == n or (x < npart and v[2 * x] < v[2 * y]):
                    self.sorted_iv[r] = pair[long, long](v[2 * x], v[2 * x + 1])
                    x += 1
                else:
                    self.sorted_iv[r] = pair[long, long](v[2 * y], v[2 * y + 1])
                    y += 1
        for r in range(n):
            if w and v[2 * w - 1] == self.sorted_iv[r].first:
                v[2 * w - 1] = self.sorted_iv[r].second
            else:
                v[2 * w] = self.sorted_iv[r].first
                v[2 * w + 1] = self.sorted_iv[r].second
                w += 1
        self.iv.resize(2 * w)

    cdef long _iv_nodes(self) noexcept:
        """The nodes of :attr:`iv`."""
        cdef long r, total = 0
        for r in range(<long>self.iv.size() // 2):
            total += self.iv[2 * r + 1] - self.iv[2 * r]
        return total

    cdef int _start(self, long j, long c) except -1:
        """Start job ``j`` now on :attr:`iv` with ``c`` cores per node."""
        cdef long r, n = self.iv.size() // 2
        self.taken[j] = self.pass_id
        self.nstarts += 1
        self._unlist(j)
        if self.s != NULL:
            return self.starter.start_c(j, self.iv.data(), n, c)
        self.view.start_now(Placement(
            j, intervals=[(self.iv[2 * r], self.iv[2 * r + 1]) for r in range(n)], cores=c
        ))  # fmt: skip
        return 0

    # -- the queued jobs by class ------------------------------------------------------------
    cdef inline long _job(self, long key) noexcept:
        return key if self.by_index else self.qp[key]

    cdef void _list(self, long j, long key) noexcept:
        cdef long c = self.cls[j]
        if self.members[c].empty():
            self.slot[c] = self.nonempty.size()
            self.nonempty.push_back(c)
        self.members[c].push_back(key)
        self.nlisted += 1
        if self.by_index:
            self.listed[j] = 1

    cdef void _unlist(self, long j) noexcept:
        """Job ``j`` starts: it leaves its class."""
        cdef long c = self.cls[j], key = j if self.by_index else self.pos[j], last
        cdef vector[long]* lst = &self.members[c]
        lst.erase(lower_bound(lst.begin(), lst.end(), key))
        self.nlisted -= 1
        self.listed[j] = 0
        if lst.empty():  # out of nonempty: the last one takes its slot
            last = self.nonempty.back()
            self.nonempty[self.slot[c]] = last
            self.slot[last] = self.slot[c]
            self.nonempty.pop_back()
            self.slot[c] = -1

    cdef void _sync(self, bint keep) noexcept:
        """The classes hold the jobs of this pass's queue. ``keep``: those of the last pass
        (the kernel's ascending queue, changed since by arrivals at its end and by this
        pass's own starts) are kept and the arrivals added; anything else, or a count that
        does not add up (a released dependent joined mid-queue), lists the queue afresh."""
        cdef long i, j, t, c, nq = self.nq
        cdef const long* q = self.qp
        if keep and self.by_index:
            i = nq
            while i > 0 and not self.listed[q[i - 1]]:
                i -= 1
            while i < nq:
                j = q[i]
                c = self.cls[j]
                if self.members[c].size() and self.members[c].back() >= j:
                    break
                self._list(j, j)
                i += 1
            if i == nq and self.nlisted == nq:
                return
        for t in range(<long>self.nonempty.size()):  # afresh
            c = self.nonempty[t]
            if self.by_index:
                for j in self.members[c]:
                    self.listed[j] = 0
            self.members[c].clear()
            self.slot[c] = -1
        self.nonempty.clear()
        self.nlisted = 0
        self.by_index = True
        for i in range(1, nq):
            if q[i] <= q[i - 1]:
                self.by_index = False  # (keys are then places in this pass's queue)
                break
        for i in range(nq):
            j = q[i]
            self.pos[j] = i
            self._list(j, j if self.by_index else i)

    # -- the pass ---------------------------------------------------------------------------
    cdef int run(self, PassState* s) except -1:
        """One pass called by the kernel (its state in ``s``)."""
        if self.nodes_hook is not None or self.deploy_hook is not None:
            raise RuntimeError("a co-pass with Python hooks runs from the scheduler (run_view)")
        self.s = s
        self.view = None
        self.now = s.now
        self.qp = s.queue  # (unchanged during the pass: started jobs leave it afterwards)
        self.nq = s.nq
        self._sync(s.epoch == self.l_epoch)
        self.l_epoch = s.epoch
        try:
            self._pass()
        finally:
            self.s = NULL
        return 0

    def run_view(self, View view) -> None:
        """One pass called from Python (the scheduler's ``schedule``), on ``view``."""
        cdef object q = view.queue  # a FrozenList over the kernel's list (read in C)
        cdef list queue = (<FrozenList>q)._items if type(q) is FrozenList else list(q)
        cdef long i, nq = len(queue)
        self.s = NULL
        self.view = view
        self.now = view.now
        self.q.resize(nq)
        for i in range(nq):
            self.q[i] = queue[i]
        self.qp = self.q.data()
        self.nq = nq
        self._sync(False)  # (a kernel of its own may hold, hide and bring back jobs)
        self.l_epoch = -1
        try:
            self._pass()
        finally:
            self.view = None

    cdef int _pass(self) except -1:
        """Deploy the queued jobs in order while they fit, then backfill."""
        cdef long j, c, i, nq = self.nq, free
        self.pass_id += 1
        if self.filler:
            # Filler's order, taken from a heap until a job does not fit: (-key, j) pairs in
            # lexicographic order are the stable sort by key of a queue in ascending j. Only
            # jobs within the free cores can start: the others have factor0 -1, so they come
            # after all of those and the first of them ends the deploy (nothing starts with
            # no core free)
            free = self.sh.total_free
            self.fq.clear()
            for i in range(nq if free > 0 else 0):
                j = self.qp[i]
                if self.procs[j] <= free:
                    self.fq.push_back(j)
            _filler_unsorted(self.keyed, self.fq.data(), self.fq.size(), self.procs.data(),
                             self.ids.data(), free, nq)  # fmt: skip
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
        elif self.deploy_hook is not None:  # the scheduler's own deploy order (Python)
            for j in self.view._kernel._hook_jobs(self.deploy_hook(self.view), "deploy_order"):
                c = self.choose_c(j)
                if not c:
                    break
                self._start(j, c)
                self.deployed += 1
        else:
            for i in range(nq):
                j = self.qp[i]
                c = self.choose_c(j)
                if not c:
                    break
                self._start(j, c)
                self.deployed += 1
        if self.backfill:
            if self.bester:
                self._bester_backfill()
            else:
                self._backfill()
        return 0

    cdef int _bester_backfill(self) except -1:
        """Bester's backfill (``tests/coloc/reference_coloc.py``'s, ELiSE's ``bester.py``):
        the ``depth`` queued jobs after the head (all without a depth), shortest requested
        time first (stable: queue order among equals), each on the lowest-numbered nodes with
        room for its cores (idle or partly used), until one does not fit. No reservation."""
        cdef SharedNodes sh = self.sh
        cdef long i, j, c, need, x, nf, cpn = self.cpn, seen = 0
        cdef long* fl = self.frows.data()
        cdef bint head = False
        cdef const uint64_t* rows = sh.rows.data()
        cdef const uint64_t* idle = sh.idle_.data()
        cdef uint64_t bits
        self.keyed.clear()
        for i in range(self.nq):
            j = self.qp[i]
            if self.taken[j] == self.pass_id:
                continue
            if not head:
                head = True
                continue
            if self.depth >= 0 and <long>self.keyed.size() >= self.depth:
                break
            self.keyed.push_back(Keyed(self.req[j], j))
        stable_sort(self.keyed.begin(), self.keyed.end(), _first_less)
        for i in range(<long>self.keyed.size()):
            j = self.keyed[i].second
            c = self.cores[j]
            need = self.k[j]
            if sh.count_with(c) < need:
                break
            # the lowest nodes with at least c free cores (rows c..cpn-1 and the idle ones),
            # 64 at a time, in runs of touching nodes
            self.iv.clear()
            x = 0
            nf = _rows_in_use(sh.by_free.data(), c, cpn, fl, &seen)
            while need:
                bits = idle[x] | _or_rows(rows + x * cpn, fl, nf)
                need = _take_runs(&self.iv, bits, x, need, &seen)
                x += 1
            self._join_iv(0)
            self._start(j, c)
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
        acct.ivs.flat_c(kk, &self.held)
        if (
            proj.add_c(self.held.data(), self.held.size() // 2, acct.cr[kk]) >= k_h
            and shadow[0] == INFINITY
        ):
            shadow[0] = est
        return True

    cdef CoreProjection _projection(self, long threshold):
        """The segments now as a projection watching ``threshold`` free cores: one object per
        pass kept and reset (the memo's projection is that object, and is rebuilt only when
        the memo no longer holds)."""
        if self.proj_ is None:
            self.proj_ = CoreProjection(self.sh, threshold)
        else:
            self.proj_.reset_c(self.sh, threshold)
        return self.proj_

    cdef long _first_after(self, long c, long after) noexcept:
        """The key of class ``c``'s first queued job after key ``after`` (LONG_MAX: none)."""
        cdef vector[long]* lst = &self.members[c]
        cdef long i = upper_bound(lst.begin(), lst.end(), after) - lst.begin()
        return LONG_MAX if i == <long>lst.size() else lst[0][i]

    cdef int _backfill(self) except -1:
        cdef SharedNodes sh = self.sh
        cdef CoreProjection proj
        cdef long i, j, h, head, k_h, c, kk, nq = self.nq, loss, ne = 0, e, t, cl, n_left
        cdef long after, limit = LONG_MAX - 1, best, key, started  # (LONG_MAX: no job)
        cdef long extra
        cdef double now = self.now, shadow = INFINITY, est
        cdef bint any_fits = False, past, volatile
        cdef long completed, overrides
        cdef const Est* run = NULL
        self._room()
        for i in range(<long>self.shape_c.size()):
            if self.shape_k[i] <= self.room[self.shape_c[i]]:
                break
        else:
            return 0  # no job of any shape fits now (a full machine): nothing to backfill
        # the head: the first queued job not started in this pass; the jobs after it that
        # backfilling looks at: the next ``depth`` still queued (up to key ``limit``)
        for h in range(nq):
            if self.taken[self.qp[h]] != self.pass_id:
                break
        else:
            return 0
        head = self.qp[h]
        if self.depth >= 0:
            n_left = self.depth
            if n_left == 0:
                return 0
            for i in range(h + 1, nq):
                j = self.qp[i]
                if self.taken[j] != self.pass_id:
                    n_left -= 1
                    if n_left == 0:
                        limit = j if self.by_index else i
                        break
        after = head if self.by_index else h
        # none of those fits now: nothing to backfill (and no shadow time taken)
        for t in range(<long>self.nonempty.size()):
            cl = self.nonempty[t]
            if (
                self.cls_k[cl] <= self.room[self.cls_c[cl]]
                and self._first_after(cl, after) <= limit
            ):
                any_fits = True
                break
        if not any_fits:
            return 0
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
            proj = self._projection(self.cores[head])
            volatile = proj.count >= k_h  # (a head that fits now: Filler's order left it)
            run = self.starter.running(&ne)
            for e in range(ne):
                if not self._gives_back(proj, run[e].first, run[e].second, now, k_h, &shadow):
                    break
            if self.s.reservation[head] != self.s.reservation[head]:  # the first one only
                self.s.reservation[head] = shadow
        else:
            proj = self._projection(self.cores[head])
            volatile = proj.count >= k_h
            for est, kk in self.view.est_sorted:
                if not self._gives_back(proj, est, kk, now, k_h, &shadow):
                    break
            self.view.record_reservation(head, shadow)
        if shadow == INFINITY:
            return 0
        # EASY's scan in queue order, a class at a time: the next job to start is the first
        # (in queue order) that fits now and ends by S (rule a) or, with its cores still in
        # use at S, leaves the head room (rule b: a verdict per shape, the nodes it would get)
        while True:
            best = LONG_MAX  # the first job of a class that passes rule (a)
            self.cand.clear()  # the first jobs of classes that would need rule (b)
            for t in range(<long>self.nonempty.size()):
                cl = self.nonempty[t]
                if self.cls_k[cl] > self.room[self.cls_c[cl]]:
                    continue
                key = self._first_after(cl, after)
                if key > limit or key > best:
                    continue
                if admit_c(now, self.cls_req[cl], shadow, 0, 0, False) == 0:  # rule (a)
                    best = key
                elif self.extra and self.broke[self.cls_shape[cl]] != self.stamp:
                    self.cand.push_back(pair[long, long](key, cl))
            started = -1
            csort(self.cand.begin(), self.cand.end())
            for t in range(<long>self.cand.size()):
                key = self.cand[t].first
                cl = self.cand[t].second
                if key > best:
                    break
                if self.broke[self.cls_shape[cl]] == self.stamp:
                    continue  # a job of the same shape broke rule (b): same nodes, same verdict
                c = self.cls_c[cl]
                if (
                    self.nested and self.broke_at[c] == self.stamp
                    and self.cls_k[cl] >= self.broke_k[c]
                ):  # fmt: skip
                    continue  # it would take the nodes of one that broke it, and more
                j = self._job(key)
                c = self.choose_c(j)
                extra = proj.count - k_h
                if self._iv_nodes() <= extra:  # (its loss is at most its nodes: it fits)
                    loss = 0
                else:  # (only whether it fits matters: the walk stops past extra)
                    loss = proj.loss_c(self.iv.data(), self.iv.size() // 2, c, extra)
                if admit_c(now, self.cls_req[cl], shadow, loss, extra, True) < 0:
                    self.broke[self.cls_shape[cl]] = self.stamp
                    c = self.cls_c[cl]
                    if self.broke_at[c] != self.stamp or self.cls_k[cl] < self.broke_k[c]:
                        self.broke_at[c] = self.stamp
                        self.broke_k[c] = self.cls_k[cl]
                    continue
                proj.add_c(self.iv.data(), self.iv.size() // 2, -c)
                started = key
                break
            if started < 0:
                if best == LONG_MAX:
                    break
                started = best
                j = self._job(best)
                c = self.choose_c(j)
            self.stamp += 1  # the machine changed: verdicts of rule (b) no longer hold
            self._start(j, c)
            self._room()
            after = started
        if shadow > now and not volatile:  # (a shadow time of "now" moves with the clock)
            self.m_valid = True
            self.m_head, self.m_completed, self.m_overrides = head, completed, overrides
            self.m_starts = self.nstarts
            self.m_shadow = shadow
            self.m_proj = proj
        return 0
