# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True
"""Which nodes are free: a pool of node ids kept as maximal runs of free nodes.

Whole-node allocation (the batch core). A job gets the **smallest run of free nodes that holds
it whole** (the lowest ids among runs of that length: best fit, as resource managers place jobs
on consecutive nodes); when no run is long enough it takes the longest runs whole, so it gets as
few pieces as possible. This keeps long runs for large jobs and allocations contiguous: on a
loaded 100,000-node machine taking the lowest free ids gives a job 14 pieces on average.
Releasing merges runs back.

Every per-node array is indexed by node id and allocated once, zeroed by the system
(``calloc``: a page costs memory only once a run has touched it; 8 bytes per node; the best-fit
set: 8 bytes per free run). A run ``[s, e)`` is written at its two ends (``end_at[s + 1] = e``,
``start_of[e - 1] = s + 1``), so releasing merges with its neighbours in O(1); a bitmap of run
starts finds the run holding a given node (a policy's placement) by scanning words down from
it. Best fit is an ordered set of the runs' keys ``length << 32 | start`` (one integer
comparison orders two runs by length, then start): sorted keys in blocks of ``RUNS_BLOCK`` to 2
x ``RUNS_BLOCK`` (each block's last key in ``top``), found by two branch-free binary searches
(``top``, then one block); an insert or a removal moves at most a block's keys. A loaded
machine has few free runs (Edison's WoAS runs: ~40, one block), so a take or a release costs a
search and a short move where the treap it replaced made ~4 descents of unpredictable branches.
"""

from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport calloc, free

from cython.operator cimport dereference as deref

from collections.abc import MutableSequence

__all__ = ["NodePool", "runs_block"]

cdef extern from *:
    int __builtin_clzll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil

cdef enum:
    NONE = -1

cdef uint64_t LOW = 0xFFFFFFFF  # a key's start (its high half: the length)

# the best-fit set's blocks hold RUNS_BLOCK to 2 x RUNS_BLOCK keys (fewer after removals)
cdef long RUNS_BLOCK = 64


def runs_block(long block) -> int:
    """Set the size of the best-fit set's blocks (for the tests, which reach its splits with
    small ones); returns the previous setting."""
    global RUNS_BLOCK
    if block < 1:
        raise ValueError(f"block {block} < 1")
    old = RUNS_BLOCK
    RUNS_BLOCK = block
    return old


cdef inline long lower(const uint64_t* a, long n, uint64_t x) noexcept:
    """The first index of the sorted ``a[:n]`` whose key is at or above ``x`` (``n``: none);
    branch-free (the comparisons of a best-fit search are unpredictable)."""
    cdef const uint64_t* base = a
    cdef long half
    if n == 0:
        return 0
    while n > 1:
        half = n >> 1
        base = base + half if base[half] < x else base
        n -= half
    return (base - a) + (base[0] < x)


cdef class NodePool:
    """Free node ids of a machine of ``n`` nodes."""

    def __cinit__(self, long n) -> None:
        if not 0 <= n < 2**31 - 1:
            raise ValueError(f"a node pool holds 0 to {2**31 - 2} nodes, not {n}")
        self.end_at = <int32_t*>calloc(n + 2, sizeof(int32_t))
        self.start_of = <int32_t*>calloc(n + 1, sizeof(int32_t))
        self.heads = <uint64_t*>calloc((n >> 6) + 1, sizeof(uint64_t))
        if not (self.end_at and self.start_of and self.heads):
            raise MemoryError()
        self.n = n
        self.free = 0
        self.blk.resize(1)
        self.top.push_back(0)
        if n:
            self._add(0, <int32_t>n)
            self.free = n

    def __dealloc__(self):
        free(self.end_at)
        free(self.start_of)
        free(self.heads)

    # -- the runs and their best-fit set ----------------------------------------------------
    cdef void _mark(self, int32_t s, int32_t e) noexcept:
        """Write the free run ``[s, e)`` at its ends and in the bitmap of starts."""
        self.end_at[s + 1] = e
        self.start_of[e - 1] = s + 1
        self.heads[s >> 6] |= (<uint64_t>1) << (s & 63)

    cdef void _unmark(self, int32_t s) noexcept:
        """The free run starting at ``s`` stops being one (its ends and start bit cleared)."""
        self.start_of[self.end_at[s + 1] - 1] = 0
        self.end_at[s + 1] = 0
        self.heads[s >> 6] &= ~((<uint64_t>1) << (s & 63))

    cdef void _add(self, int32_t s, int32_t e) noexcept:
        """The nodes ``[s, e)`` form a free run (no free neighbour)."""
        self._mark(s, e)
        self._insert((<uint64_t>(e - s) << 32) | <uint64_t>s)

    cdef void _drop(self, int32_t s) noexcept:
        """The free run starting at ``s`` stops being one (taken, or merged into another)."""
        cdef uint64_t key = (<uint64_t>(self.end_at[s + 1] - s) << 32) | <uint64_t>s
        cdef long b = lower(self.top.data(), self.top.size(), key)
        cdef vector[uint64_t]* v = &self.blk[b]
        self._erase_at(b, lower(v.data(), v.size(), key))
        self._unmark(s)

    cdef void _insert(self, uint64_t key) noexcept:
        """``key`` joins the set (the block whose last key is the first at or above it, or
        the last block; split in two at 2 x ``RUNS_BLOCK`` keys)."""
        cdef long nb = self.top.size(), h
        cdef long b = lower(self.top.data(), nb, key)
        cdef vector[uint64_t]* v
        cdef vector[uint64_t]* w
        cdef vector[uint64_t] empty
        if b == nb:
            b = nb - 1
        v = &self.blk[b]
        v.insert(v.begin() + lower(v.data(), v.size(), key), key)
        self.top[b] = v.back()
        if <long>v.size() < 2 * RUNS_BLOCK:
            return
        h = v.size() >> 1
        self.blk.insert(self.blk.begin() + b + 1, empty)
        v = &self.blk[b]  # (moved by the insert)
        w = &self.blk[b + 1]
        w.assign(v.begin() + h, v.end())
        v.resize(h)
        self.top.insert(self.top.begin() + b, v.back())

    cdef void _erase_at(self, long b, long i) noexcept:
        """Remove key ``i`` of block ``b`` (a block left empty goes, unless it is the last
        one: its last key 0, below every key)."""
        cdef vector[uint64_t]* v = &self.blk[b]
        v.erase(v.begin() + i)
        if not v.empty():
            self.top[b] = v.back()
        elif self.top.size() > 1:
            self.blk.erase(self.blk.begin() + b)
            self.top.erase(self.top.begin() + b)
        else:
            self.top[0] = 0

    cdef uint64_t _pop_ge(self, uint64_t key) noexcept:
        """Remove and return the first key at or above ``key`` (0: none; nothing removed)."""
        cdef long b = lower(self.top.data(), self.top.size(), key), i
        cdef vector[uint64_t]* v
        cdef uint64_t got
        if b == <long>self.top.size():
            return 0
        v = &self.blk[b]
        i = lower(v.data(), v.size(), key)
        got = deref(v)[i]
        self._erase_at(b, i)
        return got

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
        cdef int32_t s, e
        cdef uint64_t key
        cdef int pieces = 0
        if k > self.free:
            raise ValueError(f"asked for {k} nodes, {self.free} free")
        self.free -= k
        while k > 0:
            key = self._pop_ge(<uint64_t>k << 32)
            if key == 0:  # none holds the rest: the longest run, lowest ids
                key = self._pop_ge(self.top.back() & ~LOW)
            s = <int32_t>(key & LOW)
            e = s + <int32_t>(key >> 32)
            self._unmark(s)
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
        return s != NONE and self.end_at[s + 1] >= b

    cdef int take_range_c(self, long a, long b) except -1:
        cdef int32_t s = self._run_at(a), e
        if s == NONE or self.end_at[s + 1] < b:
            raise ValueError(f"nodes [{a}, {b}) are not all free")
        e = self.end_at[s + 1]
        self._drop(s)
        if b < e:
            self._add(<int32_t>b, e)
        if s < a:
            self._add(s, <int32_t>a)
        self.free -= b - a
        return 0

    cdef void give_range_c(self, long a, long b) noexcept:
        cdef int32_t lo = <int32_t>a, hi = <int32_t>b, s
        if b < self.n and self.end_at[b + 1]:  # a free run starts where this one ends
            hi = self.end_at[b + 1]
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
        if not 0 <= a < b <= self.n or (s != NONE and self.end_at[s + 1] > a):
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
                out.append((s, self.end_at[s + 1]))
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

