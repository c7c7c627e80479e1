# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True
"""Which nodes are free: a pool of node ids kept as maximal runs of free nodes.

Whole-node allocation (the batch core). A job gets the **smallest run of free nodes that holds
it whole** (the lowest ids among runs of that length: best fit, as resource managers place jobs
on consecutive nodes); when no run is long enough it takes the longest runs whole, so it gets as
few pieces as possible. This keeps long runs for large jobs and allocations contiguous: on a
loaded 100,000-node machine taking the lowest free ids gives a job 14 pieces on average.
Releasing merges runs back.

Nothing is allocated per take or give: every array is indexed by node id and allocated once,
zeroed by the system (``calloc``: a page costs memory only once a run has touched it; 20
bytes per node at most). A run ``[s, e)`` is written at its two ends (``run[s + 1].end = e``,
``start_of[e - 1] = s + 1``), so releasing merges with its neighbours in O(1); best fit is a
treap of the runs keyed by ``(length, start)`` (O(log runs) per run taken or made) whose links
and priority are kept beside the run's end, indexed by its start: a step down the tree reads
one 16-byte record (it read three arrays: three cache misses on a large machine); a bitmap of
run starts finds the run holding a given node (a policy's placement) by scanning words down
from it.
"""

from libc.stdint cimport int32_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free

from collections.abc import MutableSequence

__all__ = ["NodePool"]

cdef extern from *:
    int __builtin_clzll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil

cdef enum:
    NONE = -1


cdef inline uint32_t _prio(int32_t x) noexcept nogil:
    """The treap priority of run start ``x``: a fixed bijective hash (distinct runs, distinct
    priorities; the same tree in every run)."""
    cdef uint32_t h = <uint32_t>x * 0x9E3779B1u
    h ^= h >> 15
    h *= 0x85EBCA6Bu
    h ^= h >> 13
    return h


cdef class NodePool:
    """Free node ids of a machine of ``n`` nodes."""

    def __cinit__(self, long n) -> None:
        if not 0 <= n < 2**31 - 1:
            raise ValueError(f"a node pool holds 0 to {2**31 - 2} nodes, not {n}")
        self.run = <Run*>calloc(n + 2, sizeof(Run))
        self.start_of = <int32_t*>calloc(n + 1, sizeof(int32_t))
        self.heads = <uint64_t*>calloc((n >> 6) + 1, sizeof(uint64_t))
        if not (self.run and self.start_of and self.heads):
            raise MemoryError()
        self.n = n
        self.free = 0
        self.root = 0
        if n:
            self._add(0, <int32_t>n)
            self.free = n

    def __dealloc__(self):
        free(self.run)
        free(self.start_of)
        free(self.heads)

    # -- the runs and their best-fit index (a run is its u = 1 + start there) -----------------
    cdef bint _before(self, int32_t x, int32_t y) noexcept:
        """Run ``u = x`` comes before run ``u = y`` by (length, start)."""
        cdef int32_t lx = self.run[x].end - x, ly = self.run[y].end - y
        return lx < ly or (lx == ly and x < y)

    cdef void _add(self, int32_t s, int32_t e) noexcept:
        """The nodes ``[s, e)`` form a free run (no free neighbour)."""
        cdef int32_t u = s + 1, t
        cdef int32_t* slot = &self.root
        cdef int32_t* lo
        cdef int32_t* hi
        cdef Run* r = self.run
        cdef uint32_t p = _prio(u)
        r[u].end = e
        r[u].prio = p
        self.start_of[e - 1] = u
        self.heads[s >> 6] |= (<uint64_t>1) << (s & 63)
        while slot[0] and r[slot[0]].prio > p:
            t = slot[0]
            slot = &r[t].lo if self._before(u, t) else &r[t].hi
        t = slot[0]  # split the subtree at u: smaller runs under its lo, larger under its hi
        lo = &r[u].lo
        hi = &r[u].hi
        while t:
            if self._before(t, u):
                lo[0] = t
                lo = &r[t].hi
                t = r[t].hi
            else:
                hi[0] = t
                hi = &r[t].lo
                t = r[t].lo
        lo[0] = 0
        hi[0] = 0
        slot[0] = u

    cdef void _drop(self, int32_t s) noexcept:
        """The free run starting at ``s`` stops being one (taken, or merged into another)."""
        cdef int32_t u = s + 1, a, b, t
        cdef int32_t* slot = &self.root
        cdef Run* r = self.run
        while slot[0] != u:
            t = slot[0]
            slot = &r[t].lo if self._before(u, t) else &r[t].hi
        a = r[u].lo  # merge its two subtrees in its place
        b = r[u].hi
        while a and b:
            if r[a].prio > r[b].prio:
                slot[0] = a
                slot = &r[a].hi
                a = r[a].hi
            else:
                slot[0] = b
                slot = &r[b].lo
                b = r[b].lo
        slot[0] = a if a else b
        self.start_of[r[u].end - 1] = 0
        r[u].end = r[u].lo = r[u].hi = 0
        self.heads[s >> 6] &= ~((<uint64_t>1) << (s & 63))

    cdef int32_t _fit(self, long k) noexcept:
        """The start of the first run by (length, start) of at least ``k`` nodes (NONE:
        none)."""
        cdef int32_t t = self.root, best = 0
        cdef Run* r = self.run
        while t:
            if r[t].end - (t - 1) >= k:
                best = t
                t = r[t].lo
            else:
                t = r[t].hi
        return best - 1

    cdef int32_t _run_at(self, long a) noexcept:
        """The start of the last free run starting at or below node ``a`` (NONE: none)."""
        cdef long w
        cdef uint64_t bits
        if a < 0 or self.n == 0:
            return NONE
        if a >= self.n:
            a = self.n - 1
        w = a >> 6
        bits = self.heads[w] & ((<uint64_t>2 << (a & 63)) - 1)
        while bits == 0:
            if w == 0:
                return NONE
            w -= 1
            bits = self.heads[w]
        return <int32_t>((w << 6) + 63 - __builtin_clzll(bits))

    # -- the C interface (the accounting's) -----------------------------------------------------
    cdef int take_c(self, long k, vector[long]& out) except -1:
        """Remove ``k`` free nodes, append them to ``out`` as flat ``a0, b0, a1, b1, ...``
        intervals; returns how many (best fit, then the longest runs whole)."""
        cdef int32_t s, e, t
        cdef int pieces = 0
        if k > self.free:
            raise ValueError(f"asked for {k} nodes, {self.free} free")
        self.free -= k
        while k > 0:
            s = self._fit(k)
            if s == NONE:  # none holds the rest: the longest run, lowest ids
                t = self.root
                while self.run[t].hi:
                    t = self.run[t].hi
                s = self._fit(self.run[t].end - (t - 1))
            e = self.run[s + 1].end
            self._drop(s)
            pieces += 1
            out.push_back(s)
            if e - s <= k:
                out.push_back(e)
                k -= e - s
            else:
                out.push_back(s + k)
                self._add(<int32_t>(s + k), e)
                k = 0
        return pieces

    cdef bint holds_c(self, long a, long b):
        cdef int32_t s = self._run_at(a)
        return s != NONE and self.run[s + 1].end >= b

    cdef int take_range_c(self, long a, long b) except -1:
        cdef int32_t s = self._run_at(a), e
        if s == NONE or self.run[s + 1].end < b:
            raise ValueError(f"nodes [{a}, {b}) are not all free")
        e = self.run[s + 1].end
        self._drop(s)
        if b < e:
            self._add(<int32_t>b, e)
        if s < a:
            self._add(s, <int32_t>a)
        self.free -= b - a
        return 0

    cdef void give_range_c(self, long a, long b) noexcept:
        cdef int32_t lo = <int32_t>a, hi = <int32_t>b, s
        if b < self.n and self.run[b + 1].end:  # a free run starts where this one ends
            hi = self.run[b + 1].end
            self._drop(<int32_t>b)
        if a > 0 and self.start_of[a - 1]:  # one ends where this one starts
            lo = self.start_of[a - 1] - 1
            self._drop(lo)
        self._add(lo, hi)
        self.free += b - a

    # -- the Python interface -------------------------------------------------------------------
    def take_into(self, long k, out: MutableSequence[int]) -> int:
        """Remove ``k`` free nodes, append them to ``out`` as flat half-open intervals; returns
        how many intervals (see the module docstring for the choice)."""
        cdef vector[long] flat
        pieces = self.take_c(k, flat)
        out.extend(flat)
        return pieces

    def take(self, long k) -> list[tuple[int, int]]:
        """Remove ``k`` free nodes and return them as intervals."""
        cdef vector[long] flat
        self.take_c(k, flat)
        return [(flat[i], flat[i + 1]) for i in range(0, flat.size(), 2)]

    def holds(self, long a, long b) -> bool:
        """Whether the nodes ``[a, b)`` are all free."""
        return self.holds_c(a, b)

    def take_range(self, long a, long b) -> None:
        """Remove the free nodes ``[a, b)`` (a policy's chosen nodes; see :meth:`holds`)."""
        self.take_range_c(a, b)

    def give_range(self, long a, long b) -> None:
        """Return the nodes ``[a, b)`` taken earlier; adjacent free intervals merge."""
        self._check_given(a, b)
        self.give_range_c(a, b)

    def give(self, intervals) -> None:
        """Return intervals taken earlier; adjacent free intervals merge."""
        for a, b in intervals:
            self._check_given(a, b)
            self.give_range_c(a, b)

    cdef int _check_given(self, long a, long b) except -1:
        cdef int32_t s = self._run_at(b - 1)
        if not 0 <= a < b <= self.n or (s != NONE and self.run[s + 1].end > a):
            raise ValueError(f"nodes [{a}, {b}) were not all taken")
        return 0

    @property
    def intervals(self) -> list[tuple[int, int]]:
        """The free intervals, by start."""
        cdef long w, s
        cdef uint64_t bits
        out = []
        for w in range((self.n >> 6) + 1):
            bits = self.heads[w]
            while bits:
                s = (w << 6) + __builtin_ctzll(bits)
                bits &= bits - 1
                out.append((s, self.run[s + 1].end))
        return out

    @property
    def starts(self) -> list[int]:
        """Negated starts of the free intervals, ascending (descending start)."""
        return [-a for a, _ in reversed(self.intervals)]

    @property
    def ends(self) -> list[int]:
        """Ends of the free intervals, in the order of :attr:`starts`."""
        return [b for _, b in reversed(self.intervals)]

    @property
    def by_len(self) -> list[tuple[int, int]]:
        """``(length, start)`` of every free interval, sorted."""
        return sorted((b - a, a) for a, b in self.intervals)

