# distutils: language = c++
"""Per-node core accounting as *segments*, so that several jobs can share a node (co-location).

:class:`SharedNodes` keeps the machine as maximal runs of nodes holding the same jobs;
:class:`CoreProjection` is a scratch copy of it for look-ahead questions (EASY's shadow time on
shared nodes). Both are compiled: the segments, the jobs on them and the jobs beside each
running job are C arrays, so placing, releasing and checking a job cost no Python object per
segment. The Python reference they are tested against is ``tests/coloc/segments_oracle.py``.
"""

from libc.limits cimport LONG_MAX
from libcpp.algorithm cimport sort as csort
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy
from libcpp.vector cimport vector

from .jobintervals cimport JobIntervals

import numpy as np

from array import array

from .placement import normalize

__all__ = ["CoreProjection", "SharedCores", "SharedNodes"]

cdef vector[long] _flat(object intervals) except *:
    """Intervals ``[(a, b), ...]`` as one flat C array ``a0 b0 a1 b1 ...``."""
    cdef vector[long] out
    cdef long a, b
    for a, b in intervals:
        out.push_back(a)
        out.push_back(b)
    return out


cdef vector[long] _flat_within(object intervals, long n) except *:
    """:func:`_flat` of ``sorted(intervals)``, each ``(a, b)`` with ``0 <= a <= b <= n`` (a
    :class:`ValueError` otherwise): the projection's Python methods, open to policies, walk
    C arrays over those nodes unchecked (an interval out of range hung or crashed)."""
    cdef vector[long] iv = _flat(sorted(intervals))
    cdef long r
    for r in range(0, <long>iv.size(), 2):
        if not 0 <= iv[r] <= iv[r + 1] <= n:
            raise ValueError(f"nodes {iv[r]}..{iv[r + 1]} are not within the {n} nodes")
    return iv


cdef inline void _move_bits(uint64_t* off, uint64_t* on, long a, long b, long step) noexcept:
    """Clear bits ``a..b-1`` of the bitmap ``off`` and set them in ``on`` (a < b; word x of
    each at ``x * step``, as the rows by free cores are kept): one mask per word for both
    rows (a node's free cores move from one row to another); a run within one word, the
    usual segment, costs one mask."""
    cdef long x = a >> 6, last = (b - 1) >> 6
    cdef uint64_t m = ~(<uint64_t>0) << (a & 63)
    while x < last:
        off[x * step] &= ~m
        on[x * step] |= m
        m = ~(<uint64_t>0)
        x += 1
    m &= ~(<uint64_t>0) >> (63 - ((b - 1) & 63))
    off[last * step] &= ~m
    on[last * step] |= m


cdef inline void _set_bits(uint64_t* w, long a, long b, bint on, long step) noexcept:
    """:func:`mask_range` with one mask per word (a < b; word x at ``x * step``)."""
    cdef long x = a >> 6, last = (b - 1) >> 6
    cdef uint64_t m = ~(<uint64_t>0) << (a & 63)
    while x < last:
        if on:
            w[x * step] |= m
        else:
            w[x * step] &= ~m
        m = ~(<uint64_t>0)
        x += 1
    m &= ~(<uint64_t>0) >> (63 - ((b - 1) & 63))
    if on:
        w[last * step] |= m
    else:
        w[last * step] &= ~m


cdef bint _same_jobs(const int32_t* left, const int32_t* right, long n) noexcept:
    """Two slots of ``n`` jobs each (distinct within a slot) hold the same set."""
    cdef long a, b
    cdef vector[int32_t] x, y
    if n <= 8:  # each one in the other
        for a in range(1, n + 1):
            for b in range(1, n + 1):
                if right[b] == left[a]:
                    break
            else:
                return False
        return True
    x.assign(left + 1, left + 1 + n)
    y.assign(right + 1, right + 1 + n)
    csort(x.begin(), x.end())
    csort(y.begin(), y.end())
    return x == y


cdef inline long _join(SharedNodes sh, long p, long i) noexcept:
    """Join the segment starting at node ``i`` to the one before it, starting at ``p``, if
    they hold the same jobs (returns 1); 0 < i < n."""
    cdef const int32_t* fr = sh.fr.data()
    if fr[p] != fr[i]:
        return 0
    cdef int32_t* left = sh._slot(p)
    cdef int32_t* right = sh._slot(i)
    cdef long n = left[0], k
    if n != right[0]:
        return 0
    for k in range(1, n + 1):
        if left[k] != right[k]:
            if not _same_jobs(left, right, n):
                return 0
            break
    right[0] = 0
    sh._start_at(i, False)
    return 1


cdef inline tuple _tuple(const int32_t* slot):
    """The jobs of a slot ``[count, job, ...]``."""
    cdef long k, m = slot[0]
    if m == 0:
        return ()
    if m == 1:
        return (slot[1],)
    if m == 2:
        return (slot[1], slot[2])
    return tuple([slot[k] for k in range(1, m + 1)])


cdef class SharedNodes:
    """Per-node core accounting, so that several jobs can share a node (co-location).

    The machine is kept as *segments*: maximal runs of consecutive nodes with the same set of
    jobs on them (so the same free cores). Segment ``i`` starts at node ``starts[i]`` and ends
    where the next one starts, with ``seg_free[i]`` free cores on each of its nodes and
    ``seg_jobs[i]`` the jobs on them (in the order they came). Jobs take runs of nodes, so a
    machine of thousands of nodes holds a few hundred segments at most. In C the segments are
    indexed by their first node (a bitmap of segment starts, the free cores and jobs stored
    at the start node), so a split or a merge changes one bit, and placing, releasing or
    checking a job costs a bit scan per interval plus the segments touched; rows of nodes by
    free cores (a bitmap per value) give the nodes with room by node id. Every running job's node
    intervals are unions of whole segments. The jobs beside each running job
    (``neighbours_of``) are kept up to date as jobs are placed and released. Job numbers are
    ints >= 0.
    """

    def __init__(self, long nodes, long cores_per_node) -> None:
        self.n = nodes
        self.cpn = cores_per_node
        self.sbit.assign((nodes >> 6) + 1, 0)
        self.stop.assign((nodes >> 12) + 1, 0)
        self.fr.assign(nodes + 1, 0)
        self.nw = self.sbit.size()
        self.ver = 0
        self.blkver.assign(self.nw, 0)  # (fr has n + 1 entries: blocks 0..n >> 6)
        self.rows.assign(cores_per_node * self.nw, 0)
        if nodes:
            self._start_at(0, True)
            self.fr[0] = cores_per_node
        self.W = cores_per_node + 1
        # (calloc: node 0's slot holds no job; the pages of a large machine are touched only
        # where segments start)
        self.sb = <int32_t*>calloc((nodes + 1) * self.W, sizeof(int32_t))
        if self.sb == NULL:
            raise MemoryError()
        self.by_free.assign(cores_per_node + 1, 0)
        self.by_free[cores_per_node] = nodes
        self.idle_.assign((nodes >> 6) + 1, 0)
        self.idle_top.assign((nodes >> 12) + 1, 0)
        self._set_idle(0, nodes, True)
        self.n_idle = nodes
        self.total_free = nodes * cores_per_node
        self.changes = 0  # places and releases so far
        self.stamp = 0
        self.left_job = -1
        self._runs_key = None
        self._runs = None

    def __dealloc__(self):
        free(self.sb)

    # -- the segments as Python values (tests, tools) ---------------------------------------
    cdef vector[long] _starts(self) noexcept:
        """The first node of every segment, in order."""
        cdef vector[long] out
        cdef long x = 0
        while x < self.n:
            out.push_back(x)
            x = self.next_c(x)
        return out

    @property
    def starts(self) -> list[int]:
        """First node of every segment."""
        return list(self._starts())

    @property
    def seg_free(self) -> list[int]:
        """Free cores on the nodes of every segment."""
        return [self.fr[x] for x in self._starts()]

    @property
    def seg_jobs(self) -> list[tuple[int, ...]]:
        """Jobs on the nodes of every segment."""
        return [_tuple(self._slot(x)) for x in self._starts()]

    @property
    def nodes_by_free(self) -> list[int]:
        """``nodes_by_free[f]``: how many nodes have exactly f free cores."""
        return list(self.by_free)

    @property
    def idle_runs(self) -> list[tuple[int, int]]:
        """The idle-node index read node by node: its runs of idle nodes, by first node
        (they are the idle segments)."""
        cdef long x, a = -1
        out = []
        for x in range(self.n + 1):
            if x < self.n and self.idle_[x >> 6] >> (x & 63) & 1:
                if a < 0:
                    a = x
            elif a >= 0:
                out.append((a, x))
                a = -1
        return out

    @property
    def free_rows(self) -> list[list[int]]:
        """The index of nodes by free cores read bit by bit: ``free_rows[f]`` lists the nodes
        with exactly f free cores, for f below the cores per node (tests)."""
        cdef long f, x
        return [
            [x for x in range(self.n) if self.rows[(x >> 6) * self.cpn + f] >> (x & 63) & 1]
            for f in range(self.cpn)
        ]

    # -- queries ----------------------------------------------------------------------------
    def free_cores(self, long node) -> int:
        """Free cores on ``node``."""
        return self.fr[self.seg_c(node)]

    def occupants(self, long node) -> list[int]:
        """The jobs on ``node``."""
        return list(_tuple(self._slot(self.seg_c(node))))

    @property
    def free(self) -> np.ndarray:
        """Free cores of every node (a new array)."""
        cdef vector[long] st = self._starts()
        lengths = [self.next_c(x) - x for x in st]
        return np.repeat(np.asarray([self.fr[x] for x in st], dtype=np.int64), lengths)

    def segments(self) -> list[tuple[int, int, int, tuple[int, ...]]]:
        """Every segment as ``(first node, end node, free cores, jobs)``."""
        return [
            (x, self.next_c(x), self.fr[x], _tuple(self._slot(x))) for x in self._starts()
        ]

    cpdef long count_with(self, long cores):
        """Nodes (idle or partly used) with at least ``cores`` free cores."""
        cdef long f, s = 0
        if cores < 0:
            cores = 0
        for f in range(cores, self.cpn + 1):
            s += self.by_free[f]
        return s

    def room(self) -> list[int]:
        """``room()[c]`` = ``count_with(c)`` for every c from 0 to the cores per node."""
        cdef long f, s = 0
        out = [0] * (self.cpn + 1)
        for f in range(self.cpn, -1, -1):
            s += self.by_free[f]
            out[f] = s
        return out

    def partly_free(self, long cores, limit=None) -> list[tuple[int, int, tuple]]:
        """Runs of partly used nodes with at least ``cores`` free cores, by node id, as
        ``(first, end, jobs)``; stops once ``limit`` nodes are listed. The whole list (no
        limit) is kept until the next change: treat it as read only."""
        if limit is None:
            key = (self.changes, cores)
            if self._runs_key == key:
                return self._runs
            runs = self._partly_free(cores, -1)
            self._runs_key = key
            self._runs = runs
            return runs
        return self._partly_free(cores, limit)

    cdef list _partly_free(self, long cores, long limit):
        cdef long cpn = self.cpn, x, got = 0, f, b
        if cores < 0:
            cores = 0
        out = []
        for f in range(cores, cpn):
            if self.by_free[f]:
                break
        else:
            return out
        x = 0
        while x < self.n:
            f = self.fr[x]
            b = self.next_c(x)
            if cores <= f < cpn:
                out.append((x, b, _tuple(self._slot(x))))
                got += b - x
                if limit >= 0 and got >= limit:
                    break
            x = b
        return out

    def free_runs(self, long cores) -> list[tuple[int, int, tuple]]:
        """Runs of nodes (idle or partly used) with at least ``cores`` free cores, by node id,
        as ``(first, end, jobs)`` (``jobs`` is ``()`` on idle nodes)."""
        return [
            (x, self.next_c(x), _tuple(self._slot(x)))
            for x in self._starts()
            if self.fr[x] >= cores
        ]

    def idle_intervals(self, long k) -> list[tuple[int, int]]:
        """The ``k`` lowest idle nodes, as intervals (without taking them)."""
        if k > self.n_idle:
            raise ValueError(f"asked for {k} idle nodes, {self.n_idle} idle")
        cdef vector[long] out
        self.lowest_idle_c(k, &out)
        return [(out[i], out[i + 1]) for i in range(0, out.size(), 2)]

    def check(self, p) -> str | None:
        """Why placement ``p`` is impossible now, or None if it fits."""
        iv = normalize(p.intervals)
        if iv is None:
            return "uses a node twice"
        p._iv = iv  # the same nodes, sorted and merged: what claim() places
        cdef long c = p.cores, a, b, x
        if not 0 < c <= self.cpn:
            return f"asks for {c} cores per node on {self.cpn}-core nodes"
        if iv and (iv[0][0] < 0 or iv[len(iv) - 1][1] > self.n):
            return "uses a node that does not exist"
        for a, b in iv:
            x = self.seg_c(a)
            while x < b:
                if self.fr[x] < c:
                    return f"needs {c} cores on node {max(a, x)}, which has {self.fr[x]} free"
                x = self.next_c(x)
        return None

    # -- changes ----------------------------------------------------------------------------
    cdef void _start_at(self, long x, bint on) noexcept:
        """A segment starts at node ``x`` (``on``), or no longer does."""
        cdef long w = x >> 6
        self.nseg += 1 if on else -1  # (set only where none starts, cleared where one does)
        if on:
            self.sbit[w] |= (<uint64_t>1) << (x & 63)
            self.stop[w >> 6] |= (<uint64_t>1) << (w & 63)
        else:
            self.sbit[w] &= ~((<uint64_t>1) << (x & 63))
            if self.sbit[w] == 0:
                self.stop[w >> 6] &= ~((<uint64_t>1) << (w & 63))

    cdef void _split(self, long s, long at) noexcept:
        """The segment starting at node ``s`` splits at node ``at``: a new one starts there."""
        cdef int32_t* src = self._slot(s)
        memcpy(self._slot(at), src, (src[0] + 1) * sizeof(int32_t))
        self.fr[at] = self.fr[s]
        self.blkver[at >> 6] = self.ver
        self._start_at(at, True)

    cdef int place_c(self, long j, const long* iv, long niv, long cores) except -1:
        """Put job ``j`` on ``niv`` flat intervals ``a0 b0 a1 b1 ...`` (sorted, disjoint) with
        ``cores`` cores on each node, checking as it goes (one walk: the check is the walk
        that places): a ValueError, and nothing changed, if they are out of order or out of
        the machine or do not fit now."""
        cdef long a, b, x, e, length, f, total = 0, k, y, cpn = self.cpn, r, prev = 0, m
        cdef long ver, stamp
        cdef int32_t* fr = self.fr.data()
        cdef long* blk
        cdef long* by_free
        cdef long* mark
        cdef uint64_t* rows = self.rows.data()
        cdef long nw = self.nw
        cdef vector[long]* near
        cdef int32_t* held
        if j < 0:
            raise ValueError(f"job numbers are >= 0, got {j}")
        if not 0 < cores <= cpn:
            raise ValueError(f"{cores} cores per node on {cpn}-core nodes")
        if j >= <long>self.running.size():
            self.running.resize(2 * j + 16, 0)
            self.nb.resize(2 * j + 16)
            self.mark.resize(2 * j + 16, 0)
        self.ver += 1  # (the blocks of fr it writes are marked with it)
        ver = self.ver
        blk = self.blkver.data()
        by_free = self.by_free.data()
        self.stamp += 1
        stamp = self.stamp
        mark = self.mark.data()
        near = &self.near_  # the jobs beside j, listed here, then copied to nb[j] at once
        near.clear()
        for r in range(niv):
            a = iv[2 * r]
            b = iv[2 * r + 1]
            if not (prev <= a < b <= self.n):
                self._undo(j, iv, r, a, cores)
                raise ValueError(f"nodes {a}-{b - 1} out of order or out of the machine")
            prev = b
            x = self.seg_c(a)
            if fr[x] < cores:
                self._undo(j, iv, r, a, cores)
                raise ValueError(f"node {a} has {fr[x]} free cores")
            if x != a:  # split: the run now starts at a
                self._split(x, a)
                x = a
            while x < b:
                if x > a and fr[x] < cores:  # (nodes a..x placed already)
                    f = fr[x]
                    self._undo(j, iv, r, x, cores)
                    raise ValueError(f"node {x} has {f} free cores")
                e = self.next_c(x)
                if e > b:  # split: the run ends at b
                    self._split(x, b)
                    e = b
                length = e - x
                f = fr[x]
                if f == cpn:
                    self.n_idle -= length
                    self._set_idle(x, e, False)
                    _set_bits(rows + (f - cores), x, e, True, cpn)
                else:
                    _move_bits(rows + f, rows + (f - cores), x, e, cpn)
                by_free[f] -= length
                by_free[f - cores] += length
                fr[x] = f - cores
                blk[x >> 6] = ver
                held = self._slot(x)
                m = held[0]
                for k in range(1, m + 1):
                    y = held[k]
                    if mark[y] != stamp:
                        mark[y] = stamp
                        near.push_back(y)
                held[0] = <int32_t>(m + 1)
                held[m + 1] = <int32_t>j
                total += length
                x = e
        self.total_free -= total * cores
        self.changes += 1
        if self.nb_spare.size():  # (the memory of an ended job's list: no allocation)
            self.nb[j].swap(self.nb_spare.back())
            self.nb_spare.pop_back()
        self.nb[j].assign(near.begin(), near.end())
        for k in range(<long>near.size()):
            self.nb[near[0][k]].push_back(j)
        self.running[j] = 1
        return 0

    cdef void _undo(self, long j, const long* iv, long r, long upto, long cores) noexcept:
        """:meth:`place_c` stopped at node ``upto`` of interval ``r``: give back what it placed
        (intervals ``0..r-1`` and nodes ``iv[2r]..upto``), joining the runs it split."""
        cdef vector[long] done
        done.assign(iv, iv + 2 * r)
        if upto > iv[2 * r]:
            done.push_back(iv[2 * r])
            done.push_back(upto)
        self._give_back(j, done.data(), done.size() // 2, cores)

    cdef long _give_back(self, long j, const long* iv, long niv, long cores) noexcept:
        """The segments' part of a release: ``cores`` cores back on every node of the flat
        intervals, ``j`` out of their job lists, runs joined at the intervals' ends; returns
        the nodes given back."""
        cdef long a, b, x, first, e, length, f, total = 0, k, cpn = self.cpn, r, n, last = 0, w
        cdef int32_t* fr = self.fr.data()
        cdef long* blk = self.blkver.data()
        cdef long* by_free = self.by_free.data()
        cdef uint64_t* rows = self.rows.data()
        cdef long nw = self.nw, ver, idle = 0
        cdef int32_t* held
        cdef int32_t* slots = self.sb
        cdef long W = self.W, nn = self.n, ntop = self.stop.size()
        cdef const uint64_t* sb = self.sbit.data()  # (joins clear bits: the arrays stay put)
        cdef const uint64_t* top = self.stop.data()
        self.ver += 1  # (the blocks of fr it writes are marked with it)
        ver = self.ver
        for r in range(niv):
            a = iv[2 * r]
            b = iv[2 * r + 1]
            x = seg_of(sb, top, a)
            first = x
            while x < b:
                e = next_of(sb, top, ntop, nn, x)
                length = e - x
                f = fr[x] + cores
                by_free[f - cores] -= length
                by_free[f] += length
                if f == cpn:
                    _set_bits(rows + (f - cores), x, e, False, cpn)
                    idle += length
                    self._set_idle(x, e, True)
                else:
                    _move_bits(rows + (f - cores), rows + f, x, e, cpn)
                fr[x] = f
                blk[x >> 6] = ver
                held = slots + x * W
                n = held[0]
                if held[n] == j:  # j came last (j is in the slot: n >= 1)
                    held[0] = <int32_t>(n - 1)
                else:  # j out, the later ones move up (the order they came), in one pass
                    w = 1
                    for k in range(1, n + 1):
                        if held[k] != j:
                            held[w] = held[k]
                            w += 1
                    held[0] = <int32_t>(w - 1)
                total += length
                last = x
                x = e
            # only the outer boundaries can join: inside, the job sets differed before (the
            # segment before x is the last one walked)
            if first < x < nn:
                _join(self, last, x)
            if first:  # (first < n) and the segment before the first one walked
                _join(self, seg_of(sb, top, first - 1), first)
        self.n_idle += idle
        return total

    cdef int release_c(self, long j, const long* iv, long niv, long cores) except -1:
        cdef long k, x
        cdef vector[long]* other
        if not (0 <= j < <long>self.running.size() and self.running[j]):
            raise KeyError(f"job {j} is not running")
        self.total_free += self._give_back(j, iv, niv, cores) * cores
        self.changes += 1
        for k in range(<long>self.nb[j].size()):  # (lists in any order: the last fills in)
            other = &self.nb[self.nb[j][k]]
            for x in range(<long>other.size()):
                if other[0][x] == j:
                    other[0][x] = other.back()
                    other.pop_back()
                    break
        self.running[j] = 0
        k = self.left_job  # (its list is no longer asked for: its memory is kept for reuse)
        if k >= 0 and k != j and not self.running[k] and self.nb[k].capacity():
            self.nb_spare.resize(self.nb_spare.size() + 1)
            self.nb_spare.back().swap(self.nb[k])
        self.left_job = j
        return 0

    cdef void lowest_idle_c(self, long need, vector[long]* out) noexcept:
        """Append the ``need`` lowest idle nodes to ``out`` as intervals ``a b`` (sorted,
        touching ones apart as the segments are); there must be that many idle nodes. The
        idle segments are the maximal runs of idle nodes, so they are the runs of set bits
        of the idle-node index: found lowest first, a word for 64 nodes (and a word of its
        summary for 4,096), without a walk over the segments in use."""
        cdef const uint64_t* w = self.idle_.data()
        cdef const uint64_t* top = self.idle_top.data()
        cdef long pos = 0, x, t, a, b, nw = self.idle_.size()
        cdef uint64_t bits
        while need > 0:
            x = pos >> 6  # the lowest idle node at or after pos
            bits = w[x] & (~(<uint64_t>0) << (pos & 63))
            if bits == 0:
                t = (x + 1) >> 6  # the next word with an idle node, by the summary
                bits = top[t] & (~(<uint64_t>0) << ((x + 1) & 63)) if x + 1 < nw else 0
                while bits == 0:
                    t += 1
                    bits = top[t]
                x = (t << 6) + __builtin_ctzll(bits)
                bits = w[x]
            a = (x << 6) + __builtin_ctzll(bits)
            bits = ~w[x] & (~(<uint64_t>0) << (a & 63))  # its run's end: the next busy node
            while bits == 0 and x + 1 < nw:
                x += 1
                bits = ~w[x]
            b = (x << 6) + __builtin_ctzll(bits) if bits else nw << 6
            if b > self.n:
                b = self.n
            if b - a > need:
                b = a + need
            out.push_back(a)
            out.push_back(b)
            need -= b - a
            pos = b

    cdef vector[long]* neighbours_c(self, long j) except NULL:
        if 0 <= j < <long>self.running.size() and (self.running[j] or j == self.left_job):
            return &self.nb[j]
        raise KeyError(f"job {j} is not running")

    def place(self, long j, intervals, long cores) -> None:
        """Put job ``j`` on ``intervals`` (sorted, disjoint, not touching) with ``cores`` cores
        on each node; the caller checked they fit."""
        cdef vector[long] iv = _flat(intervals)
        self.place_c(j, iv.data(), iv.size() // 2, cores)

    def release(self, long j, intervals, long cores) -> None:
        """Give back the cores job ``j`` held on ``intervals`` (as given to :meth:`place`)."""
        cdef vector[long] iv = _flat(intervals)
        self.release_c(j, iv.data(), iv.size() // 2, cores)

    def neighbour_list(self, long j) -> list[int]:
        """The list :meth:`neighbours_of` reads, as kept (each job once, in the order the
        placement met them; tests)."""
        return list(self.neighbours_c(j)[0])

    def neighbours_of(self, long j) -> set[int]:
        """The jobs beside running job ``j`` (on any of its nodes), kept up to date as jobs
        start and end; for the job released last, the jobs that were beside it."""
        return set(self.neighbours_c(j)[0])

    def claim(self, p) -> list[tuple[int, int]]:
        """Apply placement ``p`` (checked); returns its nodes as sorted intervals."""
        iv = normalize(p.intervals)
        self.place(p.job, iv, p.cores)
        return iv

    def projection(self, long threshold) -> CoreProjection:
        """A scratch copy of the free cores per segment, for looking ahead (shadow times),
        counting the nodes with at least ``threshold`` free cores."""
        return CoreProjection(self, threshold)


cdef class CoreProjection:
    """Free cores per node as they would be, for what-if questions (EASY's shadow time on
    shared nodes): add or remove cores on node intervals and count the nodes that have at
    least ``threshold`` free (``count``). A copy of the segments of :class:`SharedNodes`,
    split further where needed; it never changes the real accounting."""

    def __init__(self, SharedNodes sh, long threshold) -> None:
        self.reset_c(sh, threshold)

    def reset(self, SharedNodes sh, long threshold) -> None:
        """Start again from the segments of ``sh`` now (:meth:`reset_c`; tests)."""
        self.reset_c(sh, threshold)

    cdef void reset_c(self, SharedNodes sh, long threshold) noexcept:
        """Start again from the segments of ``sh`` now, watching ``threshold`` free cores (the
        arrays' memory reused: a pass that looks ahead often allocates nothing). Reset again
        from the same ``sh``, it copies only the 64-node blocks of free cores that it wrote
        (``ulog``) or ``sh`` wrote (``sh.blkver``) since: after a reset, its free cores equal
        ``sh``'s at every segment start of ``sh``, so the next reset needs only those (a
        segment start appears only where ``sh`` writes its free cores)."""
        cdef long x, w, t, nb
        cdef uint64_t bits, words
        cdef const uint64_t* sb = sh.sbit.data()
        cdef const int32_t* sfr = sh.fr.data()
        cdef const long* blk = sh.blkver.data()
        cdef int32_t* fr
        cdef long* lg
        self.n = sh.n
        self.sbit.assign(sh.sbit.begin(), sh.sbit.end())  # (into the same memory)
        self.stop.assign(sh.stop.begin(), sh.stop.end())
        self.threshold = threshold
        self.count = sh.count_with(threshold)
        nb = sh.blkver.size()
        if self.src is sh and 16 * sh.nseg > sh.n:  # copy the blocks either wrote since
            fr = self.fr.data()
            lg = self.ulog.data()
            for w in range(nb):
                if lg[w] or blk[w] > self.synced:
                    lg[w] = 0
                    x = w << 6
                    memcpy(fr + x, sfr + x, min(64, sh.n + 1 - x) * sizeof(int32_t))
            self.synced = sh.ver
            return
        self.src = sh  # (few segments: each one's free cores, as cheap as the blocks)
        self.synced = sh.ver
        self.ulog.assign(nb, 0)
        if self.fr.size() != sh.fr.size():
            self.fr.resize(sh.fr.size())
        fr = self.fr.data()
        if 16 * sh.nseg > sh.n:  # many segments: one copy of every node's entry is faster
            memcpy(fr, sfr, sh.fr.size() * sizeof(int32_t))
        else:
            for t in range(<long>sh.stop.size()):  # each segment's free cores, at its first node
                words = sh.stop[t]
                while words:
                    w = (t << 6) + __builtin_ctzll(words)
                    words &= words - 1
                    bits = sb[w]
                    while bits:
                        x = (w << 6) + __builtin_ctzll(bits)
                        bits &= bits - 1
                        fr[x] = sfr[x]

    @property
    def starts(self) -> list[int]:
        cdef long x = 0
        out = []
        while x < self.n:
            out.append(x)
            x = next_of(self.sbit.data(), self.stop.data(), self.stop.size(), self.n, x)
        return out

    @property
    def free(self) -> list[int]:
        return [self.fr[x] for x in self.starts]

    def loss(self, intervals, long cores, limit=None) -> int:
        """How many nodes would drop below the watched free cores if ``cores`` were taken on
        every node of ``intervals`` (read only: nothing is split or changed); with ``limit``,
        a count above it when the loss is above it (:meth:`loss_c`)."""
        cdef vector[long] iv = _flat_within(intervals, self.n)
        return self.loss_c(iv.data(), iv.size() // 2, cores, LONG_MAX if limit is None else limit)

    def add(self, intervals, long cores) -> int:
        """Add ``cores`` free cores (negative: take them) on every node of ``intervals``;
        returns the new count of nodes with at least the watched free cores."""
        cdef vector[long] iv = _flat_within(intervals, self.n)
        return self.add_c(iv.data(), iv.size() // 2, cores)

    cdef long loss_c(self, const long* iv, long niv, long cores, long limit) noexcept:
        """:meth:`loss` of flat intervals ``a0 b0 a1 b1 ...``, sorted and disjoint, as far as
        ``limit``: the loss if it is at most ``limit``, else a count above it (the walk stops
        after the interval that passes it: EASY's rule (b) asks only whether it fits)."""
        cdef long a, b, x, f, e, lost = 0, thr = self.threshold, r
        cdef const int32_t* fr = self.fr.data()
        cdef const uint64_t* sb = self.sbit.data()
        cdef const uint64_t* top = self.stop.data()
        cdef long ntop = self.stop.size(), n = self.n
        for r in range(niv):
            a = iv[2 * r]
            b = iv[2 * r + 1]
            x = seg_of(sb, top, a)
            while x < b:
                e = next_of(sb, top, ntop, n, x)
                f = fr[x]
                if f >= thr > f - cores:
                    lost += min(b, e) - max(a, x)
                x = e
            if lost > limit:
                break
        return lost

    cdef long add_c(self, const long* iv, long niv, long cores) noexcept:
        """:meth:`add` of flat intervals ``a0 b0 a1 b1 ...``, sorted."""
        cdef long a, b, x, e, f, g, thr = self.threshold, count = self.count, r
        cdef int32_t* fr = self.fr.data()
        cdef long* dirty = self.ulog.data()  # (per 64-node block: written since the reset)
        cdef uint64_t* sb = self.sbit.data()
        cdef uint64_t* top = self.stop.data()
        cdef long ntop = self.stop.size(), n = self.n
        for r in range(niv):
            a = iv[2 * r]
            b = iv[2 * r + 1]
            x = seg_of(sb, top, a)
            if x != a:  # split: a run starts at a
                dirty[a >> 6] = 1  # (copied again at the next reset)
                fr[a] = fr[x]
                sb[a >> 6] |= (<uint64_t>1) << (a & 63)
                top[a >> 12] |= (<uint64_t>1) << ((a >> 6) & 63)
                x = a
            while x < b:
                e = next_of(sb, top, ntop, n, x)
                if e > b:  # split: the run ends at b
                    dirty[b >> 6] = 1
                    fr[b] = fr[x]
                    sb[b >> 6] |= (<uint64_t>1) << (b & 63)
                    top[b >> 12] |= (<uint64_t>1) << ((b >> 6) & 63)
                    e = b
                f = fr[x]
                g = f + cores
                dirty[x >> 6] = 1
                fr[x] = g
                if (f >= thr) != (g >= thr):
                    count += (e - x) if g >= thr else x - e
                x = e
        self.count = count
        return count


cdef class SharedCores:
    """Core-level accounting on shared nodes (co-location), one implementation of the
    :class:`~.accounting.NodeAccounting` interface: ``nodes`` is the segments
    (:class:`SharedNodes`). A job given as a plain number takes whole idle nodes (the lowest);
    a :class:`~.placement.Placement` takes its cores on its nodes. Allocations are kept in a
    :class:`~.jobintervals.JobIntervals` (``ivs``), as whole-node accounting keeps them;
    ``cores`` (cores per node of each job) is a live ``array('q')``. The kernel calls
    :meth:`take_c` and :meth:`release_c` without a Python call."""

    shared = True  #: jobs may share nodes (placements allowed)

    def __init__(self, cluster, long n_jobs) -> None:
        self.nodes = SharedNodes(cluster.nodes, cluster.cores_per_node)
        self.cpn = cluster.cores_per_node
        self.cores = array("q", [self.cpn]) * n_jobs
        self.cr = self.cores
        self.ivs = JobIntervals(n_jobs)

    @property
    def idle(self) -> int:
        """Whole idle nodes."""
        return self.nodes.n_idle

    def check(self, long j, placement, long procs) -> str | None:
        """Why ``placement`` for job ``j`` is impossible now, or None if it fits."""
        if placement.n_nodes * placement.cores < procs:
            return (
                f"gave {placement.n_nodes} nodes x {placement.cores} cores for {procs} processors"
            )
        return self.nodes.check(placement)

    cdef int take_c(self, long j, long nodes, object placement) except -1:
        cdef SharedNodes sh = self.nodes
        cdef long a, b, k = nodes, c
        self.tmp.clear()
        if placement is None:
            if k > sh.n_idle:
                raise ValueError(f"asked for {k} idle nodes, {sh.n_idle} idle")
            sh.lowest_idle_c(k, &self.tmp)
            c = self.cpn
        else:  # checked (:meth:`check`): its intervals are sorted and joined
            for a, b in placement.intervals:
                self.tmp.push_back(a)
                self.tmp.push_back(b)
            c = placement.cores
        return self.take_iv_c(j, self.tmp.data(), self.tmp.size() // 2, c)

    cdef int take_iv_c(self, long j, const long* iv, long niv, long cores) except -1:
        """Give job ``j`` ``cores`` cores on every node of ``niv`` flat intervals (sorted,
        disjoint); a ValueError, and nothing taken, if they do not fit now (the segments
        check as they place: :meth:`SharedNodes.place_c`)."""
        self.nodes.place_c(j, iv, niv, cores)
        self.ivs.store_c(j, iv, niv)
        self.cr[j] = cores
        return 0

    cdef int release_c(self, long j) except -1:
        self.ivs.flat_c(j, &self.tmp)
        return self.nodes.release_c(j, self.tmp.data(), self.tmp.size() // 2, self.cr[j])

    def take(self, long j, long nodes, placement) -> None:
        """Give job ``j`` its nodes: ``nodes`` whole idle nodes, or ``placement`` (checked)."""
        self.take_c(j, nodes, placement)

    def release(self, long j) -> None:
        """Job ``j`` ended: free what it held."""
        self.release_c(j)

    def allocation(self, long j) -> list[tuple[int, int]]:
        """The node intervals job ``j`` holds (held, for a job that ended; [] never started)."""
        return self.ivs.allocation(j)

    def cores_of(self, long j) -> int:
        """Cores per node job ``j`` holds."""
        return self.cr[j]

    def alloc_column(self, long n):
        """The ``alloc`` column of jobs ``0..n-1`` (:meth:`.JobIntervals.alloc_column`)."""
        return self.ivs.alloc_column(n)

    def node_counts(self, long n) -> np.ndarray:
        """Nodes held by each of jobs ``0..n-1`` (0 for a job that never started)."""
        return self.ivs.node_counts(n)
