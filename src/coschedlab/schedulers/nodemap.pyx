# distutils: language = c++
"""Slurm 22.05's backfill node-space map and select/linear's will-run test, compiled (issue 31
item 2): :class:`NodeMap` is the Python ``BackfillMap`` of tests/nodespace_oracle.py (the
same rules, documented there) on bitsets of 64-bit words (``vector<uint64_t>``; any number
of nodes, 100,000 included) instead of Python ints. Its Python surface is BackfillMap's
(``test``, ``reserve`` or ``hold``, ``start``; node lists in and out), so
:func:`.profile.reservation_scan` drives
either; tests/test_nodemap.py holds the two to the same answers on random machines, running
sets and sequences of tests, reservations and starts.

Bitsets: ``W = ceil(n / 64)`` words per set, bit ``i`` of word ``i >> 6`` = node ``i``, the
bits past node ``n - 1`` always 0. Every bitset (the running jobs' nodes, the slices' available
nodes) lives in one pool (``pool``), addressed by its offset; a split slice copies its set to
the pool's end.
"""

from libc.math cimport INFINITY, floor
from libc.stdint cimport uint64_t
from libcpp.algorithm cimport stable_sort
from libcpp.vector cimport vector

cdef extern from *:
    int popcount "__builtin_popcountll"(unsigned long long) noexcept nogil
    int ctz "__builtin_ctzll"(unsigned long long) noexcept nogil

__all__ = ["NodeMap"]


cdef inline void set_bits(vector[uint64_t]& v, long a, long b) noexcept:
    """Set bits ``a`` to ``b - 1`` of ``v``, a word at a time."""
    cdef long w, wa = a >> 6, wb = (b - 1) >> 6
    cdef uint64_t lo = (~<uint64_t>0) << (a & 63), hi = (~<uint64_t>0) >> (63 - ((b - 1) & 63))
    if b <= a:
        return
    if wa == wb:
        v[wa] |= lo & hi
        return
    v[wa] |= lo
    for w in range(wa + 1, wb):
        v[w] = ~<uint64_t>0
    v[wb] |= hi


cdef inline bint run_before(const Run& x, const Run& y) noexcept:
    return x.end < y.end or (x.end == y.end and x.order < y.order)


cdef class NodeMap:
    """One backfill pass's view of the machine, compiled (the arguments and methods of
    tests/nodespace_oracle.py's ``BackfillMap``): ``running`` holds ``(end, order, nodes)`` of
    the running jobs (distinct ``order``\\ s); every other node is idle.

    In C (:class:`.passes.SlurmPass`) one map serves every pass: :meth:`reset` to a new
    ``now``, :meth:`add_run_iv` per running job (its node intervals), :meth:`seal`, then
    :meth:`scan_c`."""

    def __init__(
        self, double now, long n_nodes, running, double resolution=1.0, double window=INFINITY,
        bint ranges=False,
    ):
        cdef Run r
        if n_nodes < 0:
            raise ValueError(f"n_nodes must be >= 0, got {n_nodes}")
        self.n = n_nodes
        self.W = (n_nodes + 63) >> 6
        self.last = (~<uint64_t>0) >> ((64 - (n_nodes & 63)) & 63) if n_nodes & 63 else ~<uint64_t>0
        self.reset(now, resolution)
        for end, order, nodes in running:
            r.end = end
            r.order = order
            r.off = self.new_set()
            if ranges:
                self.fill_ranges(r.off, nodes)
            else:
                self.fill(r.off, nodes)
            self.running.push_back(r)
        self.seal(window)

    cdef void reset(self, double now, double resolution) noexcept:
        """An empty map at ``now`` (no running job, no slice): :meth:`add_run_iv`, then
        :meth:`seal`."""
        self.now = now
        self.res = resolution
        self.pool.clear()
        self.running.clear()
        self.slices.clear()
        self.idle.assign(self.W, ~<uint64_t>0)
        if self.W:
            self.idle[self.W - 1] = self.last
        self.avail.assign(self.W, 0)
        self.acc.assign(self.W, 0)
        self.plan.assign(self.W, 0)

    cdef void add_run_iv(self, double end, long order, const long* iv, long niv) noexcept:
        """A running job until ``end`` on ``niv`` flat node intervals (the kernel's: sorted,
        within the machine)."""
        cdef Run r
        r.end = end
        r.order = order
        r.off = self.new_set()
        self.set_ranges(r.off, iv, niv)
        self.running.push_back(r)

    cdef void seal(self, double window) noexcept:
        """The running jobs sorted by (end, order), the idle nodes, and the map's one slice
        (from ``now`` rounded down to the resolution to the end of the ``window``)."""
        cdef long k, w
        cdef Slc s
        cdef double now = self.now, resolution = self.res
        stable_sort(self.running.begin(), self.running.end(), run_before)
        for k in range(<long>self.running.size()):
            for w in range(self.W):
                self.idle[w] &= ~self.pool[self.running[k].off + w]
        s.b = floor(now / resolution) * resolution
        s.e = floor((now + window) / resolution) * resolution if window < INFINITY else INFINITY
        self.window_end = now + window
        s.off = self.new_set()
        for w in range(self.W):
            self.pool[s.off + w] = ~(<uint64_t>0)
        if self.W:
            self.pool[s.off + self.W - 1] = self.last
        self.slices.push_back(s)

    # -- bitsets ---------------------------------------------------------------------------
    cdef long new_set(self) noexcept:
        cdef long off = self.pool.size()
        self.pool.resize(off + self.W, 0)
        return off

    cdef long copy_set(self, long src) noexcept:
        cdef long off = self.new_set(), w
        for w in range(self.W):
            self.pool[off + w] = self.pool[src + w]
        return off

    cdef void set_ranges(self, long off, const long* iv, long niv) noexcept:
        """The nodes of ``niv`` flat intervals ``a0 b0 a1 b1 ...`` into the set at ``off``."""
        cdef long k, i, b
        for k in range(niv):
            i = iv[2 * k]
            b = iv[2 * k + 1]
            while i < b:
                if (i & 63) == 0 and i + 64 <= b:
                    self.pool[off + (i >> 6)] = ~(<uint64_t>0)
                    i += 64
                else:
                    self.pool[off + (i >> 6)] |= (<uint64_t>1) << (i & 63)
                    i += 1

    cdef int fill(self, long off, nodes) except -1:
        cdef long node
        for node in nodes:
            if node < 0 or node >= self.n:
                raise ValueError(f"node {node} is not one of the map's {self.n} nodes")
            self.pool[off + (node >> 6)] |= (<uint64_t>1) << (node & 63)
        return 0

    cdef int fill_ranges(self, long off, ranges) except -1:
        cdef long iv[2]
        for a, b in ranges:
            if a < 0 or b > self.n or a > b:
                raise ValueError(f"nodes [{a}, {b}) are not among the map's {self.n} nodes")
            iv[0] = a
            iv[1] = b
            self.set_ranges(off, iv, 1)
        return 0

    cdef int fill_vec(self, vector[uint64_t]& v, nodes) except -1:
        cdef long node
        v.assign(self.W, 0)
        for node in nodes:
            if node < 0 or node >= self.n:
                raise ValueError(f"node {node} is not one of the map's {self.n} nodes")
            v[node >> 6] |= (<uint64_t>1) << (node & 63)
        return 0

    cdef list to_list(self, const vector[uint64_t]& v):
        cdef list out = []
        cdef long w
        cdef uint64_t x
        for w in range(self.W):
            x = v[w]
            while x:
                out.append((w << 6) + ctz(x))
                x &= x - 1
        return out

    cdef void to_intervals(self, const vector[uint64_t]& v, vector[long]& out) noexcept:
        """The nodes of ``v`` as maximal intervals, ascending, appended flat to ``out``."""
        cdef long k
        self.runs(v)
        for k in range(<long>self.rs.size()):
            out.push_back(self.rs[k])
            out.push_back(self.rs[k] + self.rl[k])

    cdef long count(self, const vector[uint64_t]& v) noexcept:
        cdef long w, c = 0
        for w in range(self.W):
            c += popcount(v[w])
        return c

    # -- select/linear ---------------------------------------------------------------------
    cdef void runs(self, const vector[uint64_t]& v) noexcept:
        """The runs of consecutive nodes of ``v``, ascending, into ``rs`` (first node) and
        ``rl`` (length): a word at a time (the next set bit, then the next clear one)."""
        cdef long i = 0, a, w, end = self.W << 6
        cdef uint64_t x
        self.rs.clear()
        self.rl.clear()
        while i < end:
            w = i >> 6
            x = v[w] >> (i & 63)
            if x == 0:
                i = (w + 1) << 6
                continue
            i += ctz(x)
            a = i
            while i < end:  # the next clear bit (the bits past node n - 1 are clear)
                w = i >> 6
                x = (~v[w]) >> (i & 63)
                if x == 0:
                    i = (w + 1) << 6
                    continue
                i += ctz(x)
                break
            if i > end:
                i = end
            self.rs.push_back(a)
            self.rl.push_back(i - a)

    cdef void best_fit(self, const vector[uint64_t]& pool, long need, vector[uint64_t]& out):
        """``best_fit`` (tests/nodespace_oracle.py) on a bitset: the smallest run of
        consecutive nodes that holds the rest (its lowest ids; the lowest run among equals),
        else the longest run whole (the lowest among equals), until ``need`` nodes are taken."""
        cdef long i, k, best
        self.runs(pool)
        self.gone.assign(self.rs.size(), 0)
        out.assign(self.W, 0)
        while need > 0:
            best = -1
            for k in range(<long>self.rs.size()):  # the smallest run that holds the rest
                if not self.gone[k] and self.rl[k] >= need and (
                    best < 0 or self.rl[k] < self.rl[best]
                ):
                    best = k
            if best >= 0:
                set_bits(out, self.rs[best], self.rs[best] + need)
                break
            for k in range(<long>self.rs.size()):  # else the longest run, whole
                if not self.gone[k] and (best < 0 or self.rl[k] > self.rl[best]):
                    best = k
            if best < 0:
                break
            self.gone[best] = 1
            set_bits(out, self.rs[best], self.rs[best] + self.rl[best])
            need -= self.rl[best]

    cdef double will_run(self, long need):
        """``_will_run_test`` over the usable nodes ``avail``: the start (inf: never) and, in
        ``plan``, the nodes."""
        cdef long w, k, c = 0
        cdef uint64_t add
        cdef double end
        for w in range(self.W):
            self.acc[w] = self.avail[w] & self.idle[w]
            c += popcount(self.acc[w])
        if c >= need:
            self.best_fit(self.acc, need, self.plan)
            return self.now
        for k in range(<long>self.running.size()):
            for w in range(self.W):
                add = self.pool[self.running[k].off + w] & self.avail[w] & ~self.acc[w]
                if add:
                    c += popcount(add)
                    self.acc[w] |= add
            if c >= need:
                end = self.running[k].end
                self.best_fit(self.acc, need, self.plan)
                return self.now + 1 if end <= self.now else end
        return INFINITY

    # -- the node-space map ----------------------------------------------------------------
    cdef double usable(self, double start_res, double end_time) noexcept:
        """``avail``: the nodes available in every slice that overlaps [start_res, end_time];
        returns ``later_start`` (0: none)."""
        cdef double later = 0.0
        cdef long k, w, ns = self.slices.size(), off, nxt
        cdef Slc s
        for w in range(self.W):
            self.avail[w] = ~<uint64_t>0
        if self.W:
            self.avail[self.W - 1] = self.last
        for k in range(ns):
            s = self.slices[k]
            off = s.off
            if s.e > start_res and later == 0.0 and k + 1 < ns:
                nxt = self.slices[k + 1].off
                for w in range(self.W):  # the next slice frees nodes
                    if self.pool[nxt + w] & ~(self.avail[w] & self.pool[off + w]):
                        later = s.e
                        break
            if s.e <= start_res:
                continue
            if s.b <= end_time:
                for w in range(self.W):
                    self.avail[w] &= self.pool[off + w]
            else:
                break
        return later

    cdef bint overlap(self, const vector[uint64_t]& nodes, double start, double end) noexcept:
        cdef long k, w, off
        for k in range(<long>self.slices.size()):
            if self.slices[k].e > start and self.slices[k].b < end:
                off = self.slices[k].off
                for w in range(self.W):
                    if nodes[w] & ~self.pool[off + w]:
                        return True
        return False

    cdef (double, double) span(self, double start, double limit) noexcept:
        cdef double r = self.res
        cdef double st = floor(start / r) * r
        cdef double er = floor((start + limit) / r) * r
        return st, (er if er > st + r else st + r)

    cdef double test_c(self, long need, double limit):
        """:meth:`test`: the start (inf: none) and, in ``plan``, the nodes."""
        cdef double now = self.now, start_res, later_start = now, end_time, start, st, er
        cdef long it
        for it in range(10_000):
            start_res = later_start
            end_time = (start_res if start_res > now else now) + limit
            later_start = self.usable(start_res, end_time)
            if self.count(self.avail) < need:
                if later_start != 0.0:
                    continue
                return INFINITY
            start = self.will_run(need)
            if start == INFINITY:
                if later_start != 0.0:
                    continue
                return INFINITY
            if start_res > start:
                start = start_res
            if start <= now:
                return now
            if later_start != 0.0 and start > later_start:
                continue
            if start > self.window_end:
                return INFINITY
            st, er = self.span(start, limit)
            if self.overlap(self.plan, st, er):
                later_start = start
                continue
            return start
        return INFINITY

    def test(self, long need, double limit) -> tuple:
        """When and where a pending job of ``need`` nodes and ``limit`` seconds can start:
        ``(now, nodes)``, ``(t, nodes)`` for a reservation at ``t``, or ``(inf, [])``."""
        cdef double t = self.test_c(need, limit)
        if t == INFINITY:
            return INFINITY, []
        return t, self.to_list(self.plan)

    cdef void reserve_c(self, const vector[uint64_t]& nodes, double start, double limit):
        cdef double st, er
        cdef long k, j = -1, first, w, off, last
        cdef Slc s
        st, er = self.span(start, limit)
        if self.slices[0].b > st:
            st = self.slices[0].b
        for k in range(<long>self.slices.size()):
            if self.slices[k].e > st:  # split: [b, st) keeps its nodes, [st, e) is reserved
                s.b = st
                s.e = self.slices[k].e
                s.off = self.copy_set(self.slices[k].off)
                self.slices.insert(self.slices.begin() + k + 1, s)
                self.slices[k].e = st
                j = k + 1
                break
            if self.slices[k].e == st:
                j = k + 1
                break
        if j < 0:
            return
        first = j - 2 if j >= 2 else 0
        while j < <long>self.slices.size():
            if er < self.slices[j].e:
                s.b = er
                s.e = self.slices[j].e
                s.off = self.copy_set(self.slices[j].off)
                self.slices.insert(self.slices.begin() + j + 1, s)
                self.slices[j].e = er
            off = self.slices[j].off
            for w in range(self.W):
                self.pool[off + w] &= ~nodes[w]
            if er == self.slices[j].e:
                break
            j += 1
        # drop one record whose bitmap equals its predecessor's (as Slurm does)
        last = <long>self.slices.size() - 1
        for k in range(first, j + 1 if j + 1 < last else last):
            if self.same(self.slices[k].off, self.slices[k + 1].off):
                self.slices[k].e = self.slices[k + 1].e
                self.slices.erase(self.slices.begin() + k + 1)
                break

    cdef bint same(self, long a, long b) noexcept:
        cdef long w
        for w in range(self.W):
            if self.pool[a + w] != self.pool[b + w]:
                return False
        return True

    def reserve(self, nodes, double start, double limit) -> None:
        """``_add_reservation``: take ``nodes`` out of the slices during [start, start + limit)
        (rounded down to the resolution, at least one resolution long)."""
        self.fill_vec(self.acc, nodes)
        self.reserve_c(self.acc, start, limit)

    def hold(self, nodes, double start, double limit) -> None:
        """:meth:`reserve` (:class:`.profile.Space`'s name)."""
        self.fill_vec(self.acc, nodes)
        self.reserve_c(self.acc, start, limit)

    cdef void start_c(self, const vector[uint64_t]& nodes, long order, double limit):
        cdef Run r
        cdef long w, k
        r.end = self.now + limit
        r.order = order
        r.off = self.new_set()
        for w in range(self.W):
            self.pool[r.off + w] = nodes[w]
            self.idle[w] &= ~nodes[w]
        k = self.running.size()
        while k > 0 and run_before(r, self.running[k - 1]):
            k -= 1
        self.running.insert(self.running.begin() + k, r)

    def start(self, nodes, long order, double limit) -> None:
        """A job started now on ``nodes``: busy until now + its limit (no record in the map)."""
        self.fill_vec(self.acc, nodes)
        self.start_c(self.acc, order, limit)

    cdef long scan_c(
        self, const long* jobs, long njobs, const long* nodes, const double* limit, long free,
        long reservations, vector[long]& started, vector[long]& iv, vector[long]& ivoff,
        vector[long]& rjobs, vector[double]& rtimes,
    ) except -1:
        """:meth:`scan` in C: the ``njobs`` jobs ``jobs`` in order (``nodes[j]`` nodes for
        ``limit[j]`` seconds; ``reservations`` < 0: every job holds its slot). Appends the
        started jobs to ``started`` and their nodes, as flat intervals, to ``iv`` (job ``k``'s
        from ``ivoff[k]`` to ``ivoff[k + 1]``; ``ivoff`` starts with ``iv``'s size), and the
        jobs that hold a slot to ``rjobs`` with its start in ``rtimes``; returns the nodes
        left free."""
        cdef long k, j, nj, reserved = 0
        cdef double t, d
        cdef bint where
        ivoff.push_back(iv.size())
        for k in range(njobs):
            if free == 0:
                break
            j = jobs[k]
            nj = nodes[j]
            d = limit[j]
            t = self.test_c(nj, d)
            where = t != INFINITY and self.count(self.plan) > 0
            if t <= self.now and where and nj <= free:
                self.to_intervals(self.plan, iv)
                ivoff.push_back(iv.size())
                self.start_c(self.plan, j, d)
                free -= nj
                started.push_back(j)
            elif where and (reservations < 0 or reserved < reservations):
                self.reserve_c(self.plan, t, d)
                reserved += 1
                rjobs.push_back(j)
                rtimes.push_back(t)
        return free

    def scan(
        self, jobs, const long long[::1] nodes, const double[::1] limit, long free, record,
        reservations=None,
    ) -> tuple:
        """:func:`.profile.reservation_scan` on this map (``while_full`` off, no ``slots``):
        each job ``j`` of ``jobs`` in order, ``nodes[j]`` nodes for ``limit[j]`` seconds,
        starts now on its planned nodes if it can and they are among the ``free`` ones, else
        holds its slot while ``reservations`` remain (None: every job; ``record(j, t)`` gets
        the slot's start, in order, after the scan); the scan stops when nothing is free.
        Returns the started jobs and their nodes (lists), in order (:meth:`scan_c`)."""
        cdef vector[long] js, started, iv, ivoff, rjobs
        cdef vector[double] rtimes
        cdef long k
        for j in jobs:
            if not 0 <= j < nodes.shape[0] or j >= limit.shape[0]:
                raise IndexError(f"job {j} has no size or limit")
            js.push_back(j)
        self.scan_c(
            js.data(), js.size(), <const long*>&nodes[0] if nodes.shape[0] else NULL,
            &limit[0] if limit.shape[0] else NULL, free,
            -1 if reservations is None else reservations, started, iv, ivoff, rjobs, rtimes,
        )  # fmt: skip
        for k in range(<long>rjobs.size()):
            record(rjobs[k], rtimes[k])
        places = []
        for k in range(<long>started.size()):
            places.append(
                [i for m in range(ivoff[k], ivoff[k + 1], 2) for i in range(iv[m], iv[m + 1])]
            )
        return [started[k] for k in range(<long>started.size())], places

    # -- for tests -------------------------------------------------------------------------
    def map_slices(self) -> list:
        """The map's ``[begin, end, nodes]`` slices (nodes as lists)."""
        cdef list out = []
        cdef long k, w
        for k in range(<long>self.slices.size()):
            for w in range(self.W):
                self.acc[w] = self.pool[self.slices[k].off + w]
            out.append([self.slices[k].b, self.slices[k].e, self.to_list(self.acc)])
        return out

    def idle_nodes(self) -> list:
        """The idle nodes."""
        return self.to_list(self.idle)
