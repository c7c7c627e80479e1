# distutils: language = c++
"""Per-node core accounting as *segments*, so that several jobs can share a node (co-location).

:class:`SharedNodes` keeps the machine as maximal runs of nodes holding the same jobs;
:class:`CoreProjection` is a scratch copy of it for look-ahead questions (EASY's shadow time on
shared nodes). Both are compiled: the segments, the jobs on them and the jobs beside each
running job are C arrays, so placing, releasing and checking a job cost no Python object per
segment. The Python reference they are tested against is ``tests/coloc/segments_oracle.py``.
"""

from libcpp.algorithm cimport sort as csort
from libcpp.algorithm cimport upper_bound
from libc.stdint cimport int32_t, uint64_t
from libc.string cimport memcmp, memcpy, memmove
from libcpp.vector cimport vector

from .jobintervals cimport JobIntervals

import numpy as np

from array import array

from .placement import normalize

__all__ = ["CoreProjection", "SharedCores", "SharedNodes"]

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil


cdef inline long _bisect(vector[long]& v, long x, long lo) noexcept:
    """Python's ``bisect_right(v, x, lo)``."""
    return upper_bound(v.begin() + lo, v.end(), x) - v.begin()


cdef inline long _gallop(vector[long]& v, long x, long lo) noexcept:
    """:func:`_bisect`, searching forward from ``lo`` in steps that double: a job's next
    interval usually starts a few segments after the last one, so this looks at a few
    neighbouring entries where a binary search over the rest jumps across the array."""
    cdef long m = v.size(), step = 1, hi = lo
    while hi < m and v[hi] <= x:
        lo = hi + 1
        hi += step
        step *= 2
    if hi > m:
        hi = m
    return upper_bound(v.begin() + lo, v.begin() + hi, x) - v.begin()


cdef vector[long] _flat(object intervals) except *:
    """Intervals ``[(a, b), ...]`` as one flat C array ``a0 b0 a1 b1 ...``."""
    cdef vector[long] out
    cdef long a, b
    for a, b in intervals:
        out.push_back(a)
        out.push_back(b)
    return out


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
    machine of thousands of nodes holds a few hundred segments at most, and placing, releasing
    or checking a job costs O(log segments + segments touched). Every running job's node
    intervals are unions of whole segments. The jobs beside each running job
    (``neighbours_of``) are kept up to date as jobs are placed and released. Job numbers are
    ints >= 0.
    """

    def __init__(self, long nodes, long cores_per_node) -> None:
        self.n = nodes
        self.cpn = cores_per_node
        if nodes:
            self.st.push_back(0)
            self.fr.push_back(cores_per_node)
            self.jb.push_back(0)
        self.W = cores_per_node + 1
        self.sb.assign(self.W, 0)  # handle 0: no job
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

    # -- the segments as Python values (tests, tools) ---------------------------------------
    @property
    def starts(self) -> list[int]:
        """First node of every segment."""
        return list(self.st)

    @property
    def seg_free(self) -> list[int]:
        """Free cores on the nodes of every segment."""
        return list(self.fr)

    @property
    def seg_jobs(self) -> list[tuple[int, ...]]:
        """Jobs on the nodes of every segment."""
        return [_tuple(self._slot(self.jb[i])) for i in range(<long>self.jb.size())]

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

    # -- queries ----------------------------------------------------------------------------
    cdef long seg_c(self, long node) noexcept:
        return _bisect(self.st, node, 0) - 1

    cdef long _end(self, long i) noexcept:
        return self.st[i + 1] if i + 1 < <long>self.st.size() else self.n

    def free_cores(self, long node) -> int:
        """Free cores on ``node``."""
        return self.fr[self.seg_c(node)]

    def occupants(self, long node) -> list[int]:
        """The jobs on ``node``."""
        return list(_tuple(self._slot(self.jb[self.seg_c(node)])))

    @property
    def free(self) -> np.ndarray:
        """Free cores of every node (a new array)."""
        cdef long i, m = self.st.size()
        lengths = [self._end(i) - self.st[i] for i in range(m)]
        return np.repeat(np.asarray(list(self.fr), dtype=np.int64), lengths)

    def segments(self) -> list[tuple[int, int, int, tuple[int, ...]]]:
        """Every segment as ``(first node, end node, free cores, jobs)``."""
        cdef long i, m = self.st.size()
        return [
            (self.st[i], self._end(i), self.fr[i], _tuple(self._slot(self.jb[i]))) for i in range(m)
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
        cdef long cpn = self.cpn, i, m = self.st.size(), got = 0, f, b
        if cores < 0:
            cores = 0
        out = []
        for f in range(cores, cpn):
            if self.by_free[f]:
                break
        else:
            return out
        for i in range(m):
            f = self.fr[i]
            if cores <= f < cpn:
                b = self._end(i)
                out.append((self.st[i], b, _tuple(self._slot(self.jb[i]))))
                got += b - self.st[i]
                if limit >= 0 and got >= limit:
                    break
        return out

    def free_runs(self, long cores) -> list[tuple[int, int, tuple]]:
        """Runs of nodes (idle or partly used) with at least ``cores`` free cores, by node id,
        as ``(first, end, jobs)`` (``jobs`` is ``()`` on idle nodes)."""
        cdef long i, m = self.st.size()
        return [
            (self.st[i], self._end(i), _tuple(self._slot(self.jb[i])))
            for i in range(m)
            if self.fr[i] >= cores
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
        cdef long c = p.cores, a, b, i, m = self.st.size()
        if not 0 < c <= self.cpn:
            return f"asks for {c} cores per node on {self.cpn}-core nodes"
        if iv and (iv[0][0] < 0 or iv[len(iv) - 1][1] > self.n):
            return "uses a node that does not exist"
        for a, b in iv:
            i = self.seg_c(a)
            while i < m and self.st[i] < b:
                if self.fr[i] < c:
                    return (
                        f"needs {c} cores on node {max(a, self.st[i])}, which has "
                        f"{self.fr[i]} free"
                    )
                i += 1
        return None

    # -- changes ----------------------------------------------------------------------------
    cdef void _split(self, long i, long at) noexcept:
        """Segment ``i`` splits at node ``at``: a new segment ``i + 1`` starts there."""
        cdef long f = self.fr[i], h = self._copy_set(self.jb[i])
        self.st.insert(self.st.begin() + i + 1, at)
        self.fr.insert(self.fr.begin() + i + 1, f)
        self.jb.insert(self.jb.begin() + i + 1, h)

    cdef long _copy_set(self, long h) noexcept:
        """A new handle holding a copy of the jobs of handle ``h`` (an unused list if any)."""
        cdef long new
        if self.spare.size():
            new = self.spare.back()
            self.spare.pop_back()
        else:
            new = self.sb.size() // self.W
            self.sb.resize((new + 1) * self.W)
        cdef int32_t* src = self._slot(h)  # (after the resize, which may move the slots)
        memcpy(self._slot(new), src, (src[0] + 1) * sizeof(int32_t))
        return new

    cdef int place_c(self, long j, const long* iv, long niv, long cores) except -1:
        """Put job ``j`` on ``niv`` flat intervals ``a0 b0 a1 b1 ...`` (sorted, disjoint) with
        ``cores`` cores on each node, checking as it goes (one walk: the check is the walk
        that places): a ValueError, and nothing changed, if they are out of order or out of
        the machine or do not fit now."""
        cdef long a, b, i = 0, e, m, length, f, total = 0, k, x, cpn = self.cpn, r, prev = 0
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
        self.stamp += 1
        near = &self.near_  # the jobs beside j, listed here, then copied to nb[j] at once
        near.clear()
        for r in range(niv):
            a = iv[2 * r]
            b = iv[2 * r + 1]
            if not (prev <= a < b <= self.n):
                self._undo(j, iv, r, a, cores)
                raise ValueError(f"nodes {a}-{b - 1} out of order or out of the machine")
            prev = b
            i = _gallop(self.st, a, i) - 1
            if self.fr[i] < cores:
                self._undo(j, iv, r, a, cores)
                raise ValueError(f"node {a} has {self.fr[i]} free cores")
            if self.st[i] != a:  # split: the run now starts at a
                self._split(i, a)
                i += 1
            m = self.st.size()
            e = a
            while e < b:
                if e > a and self.fr[i] < cores:  # (nodes a..e placed already)
                    f = self.fr[i]
                    self._undo(j, iv, r, e, cores)
                    raise ValueError(f"node {e} has {f} free cores")
                e = self.st[i + 1] if i + 1 < m else self.n
                if e > b:  # split: the run ends at b
                    self._split(i, b)
                    m += 1
                    e = b
                length = e - self.st[i]
                f = self.fr[i]
                if f == cpn:
                    self.n_idle -= length
                    self._set_idle(self.st[i], e, False)
                self.by_free[f] -= length
                self.by_free[f - cores] += length
                self.fr[i] = f - cores
                held = self._slot(self.jb[i])
                for k in range(1, held[0] + 1):
                    x = held[k]
                    if self.mark[x] != self.stamp:
                        self.mark[x] = self.stamp
                        near.push_back(x)
                held[0] += 1
                held[held[0]] = <int32_t>j
                total += length
                i += 1
        self.total_free -= total * cores
        self.changes += 1
        self.nb[j] = near[0]  # (one allocation of the right size, not a growing list)
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
        cdef long a, b, i = 0, first, m, e, length, f, total = 0, k, cpn = self.cpn, r, n
        cdef int32_t* held
        for r in range(niv):
            a = iv[2 * r]
            b = iv[2 * r + 1]
            i = _gallop(self.st, a, i) - 1
            first = i
            m = self.st.size()
            while i < m and self.st[i] < b:
                e = self._end(i)
                length = e - self.st[i]
                f = self.fr[i] + cores
                self.by_free[f - cores] -= length
                self.by_free[f] += length
                if f == cpn:
                    self.n_idle += length
                    self._set_idle(self.st[i], e, True)
                self.fr[i] = f
                held = self._slot(self.jb[i])
                n = held[0]
                for k in range(1, n + 1):
                    if held[k] == j:  # (out, the later ones move up: the order they came)
                        memmove(held + k, held + k + 1, (n - k) * sizeof(int32_t))
                        held[0] = n - 1
                        break
                total += length
                i += 1
            # only the outer boundaries can join: inside, the job sets differed before
            if i < m and self.fr[i] == self.fr[i - 1]:
                i -= self._merge(i)
            if first and self.fr[first] == self.fr[first - 1]:
                i -= self._merge(first)
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
        self.left_job = j
        return 0

    cdef long _merge(self, long i) noexcept:
        """Join segment ``i`` to segment ``i - 1`` if they hold the same jobs (returns 1)."""
        if i <= 0 or i >= <long>self.st.size():
            return 0
        cdef vector[int32_t] x, y
        cdef int32_t* left = self._slot(self.jb[i - 1])
        cdef int32_t* right = self._slot(self.jb[i])
        cdef long n = left[0]
        if self.fr[i - 1] != self.fr[i] or n != right[0]:
            return 0
        if memcmp(left, right, (n + 1) * sizeof(int32_t)):
            x.assign(left + 1, left + 1 + n)
            y.assign(right + 1, right + 1 + n)
            csort(x.begin(), x.end())
            csort(y.begin(), y.end())
            if x != y:
                return 0
        self.st.erase(self.st.begin() + i)
        self.fr.erase(self.fr.begin() + i)
        right[0] = 0
        self.spare.push_back(self.jb[i])
        self.jb.erase(self.jb.begin() + i)
        return 1

    cdef void _set_idle(self, long a, long b, bint on) noexcept:
        """Nodes ``a..b-1`` become idle (``on``) or stop being idle, in the idle-node index."""
        cdef uint64_t* w = self.idle_.data()
        cdef uint64_t* top = self.idle_top.data()
        cdef long x = a >> 6, y, last = (b - 1) >> 6
        cdef uint64_t mask
        if b <= a:
            return
        while x <= last:
            mask = ~(<uint64_t>0)
            if x == a >> 6:
                mask &= ~(<uint64_t>0) << (a & 63)
            if x == last and (b & 63):
                mask &= ((<uint64_t>1) << (b & 63)) - 1
            if on:
                w[x] |= mask
                top[x >> 6] |= (<uint64_t>1) << (x & 63)
            else:
                w[x] &= ~mask
                if w[x] == 0:
                    top[x >> 6] &= ~((<uint64_t>1) << (x & 63))
            x += 1

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

    cdef void reset_c(self, SharedNodes sh, long threshold) noexcept:
        """Start again from the segments of ``sh`` now, watching ``threshold`` free cores (the
        arrays' memory reused: a pass that looks ahead often allocates nothing)."""
        self.n = sh.n
        self.st = sh.st
        self.fr = sh.fr
        self.threshold = threshold
        self.count = sh.count_with(threshold)

    @property
    def starts(self) -> list[int]:
        return list(self.st)

    @property
    def free(self) -> list[int]:
        return list(self.fr)

    def loss(self, intervals, long cores) -> int:
        """How many nodes would drop below the watched free cores if ``cores`` were taken on
        every node of ``intervals`` (read only: nothing is split or changed)."""
        cdef vector[long] iv = _flat(sorted(intervals))
        return self.loss_c(iv.data(), iv.size() // 2, cores)

    def add(self, intervals, long cores) -> int:
        """Add ``cores`` free cores (negative: take them) on every node of ``intervals``;
        returns the new count of nodes with at least the watched free cores."""
        cdef vector[long] iv = _flat(sorted(intervals))
        return self.add_c(iv.data(), iv.size() // 2, cores)

    cdef long loss_c(self, const long* iv, long niv, long cores) noexcept:
        """:meth:`loss` of flat intervals ``a0 b0 a1 b1 ...``, sorted and disjoint."""
        cdef long a, b, i = 0, m = self.st.size(), f, e, lost = 0, thr = self.threshold, r
        for r in range(niv):
            a = iv[2 * r]
            b = iv[2 * r + 1]
            i = _gallop(self.st, a, i) - 1
            while i < m and self.st[i] < b:
                f = self.fr[i]
                if f >= thr > f - cores:
                    e = self.st[i + 1] if i + 1 < m else self.n
                    lost += min(b, e) - max(a, self.st[i])
                i += 1
        return lost

    cdef long add_c(self, const long* iv, long niv, long cores) noexcept:
        """:meth:`add` of flat intervals ``a0 b0 a1 b1 ...``, sorted."""
        cdef long a, b, i = 0, m, e, f, g, thr = self.threshold, count = self.count, r
        for r in range(niv):
            a = iv[2 * r]
            b = iv[2 * r + 1]
            i = _gallop(self.st, a, i) - 1
            if self.st[i] != a:
                f = self.fr[i]
                i += 1
                self.st.insert(self.st.begin() + i, a)
                self.fr.insert(self.fr.begin() + i, f)
            m = self.st.size()
            e = a
            while e < b:
                e = self.st[i + 1] if i + 1 < m else self.n
                if e > b:
                    f = self.fr[i]
                    self.st.insert(self.st.begin() + i + 1, b)
                    self.fr.insert(self.fr.begin() + i + 1, f)
                    m += 1
                    e = b
                f = self.fr[i]
                g = f + cores
                self.fr[i] = g
                if (f >= thr) != (g >= thr):
                    count += (e - self.st[i]) if g >= thr else self.st[i] - e
                i += 1
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
