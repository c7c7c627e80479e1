# distutils: language = c++
"""Which nodes are free: a pool of node ids kept as sorted, disjoint half-open intervals.

Whole-node allocation (the batch core). A job gets the **smallest run of free nodes that holds
it whole** (the lowest ids among runs of that length: best fit, as resource managers place jobs
on consecutive nodes); when no run is long enough it takes the longest runs whole, so it gets as
few pieces as possible. This keeps long runs for large jobs and allocations contiguous: on a
loaded 100,000-node machine taking the lowest free ids gives a job 14 pieces on average.
Releasing merges intervals back. Each operation costs O(log intervals + pieces touched): the
free intervals are a C++ ``std::map`` (start -> end) and, for best fit, a ``std::set`` of
``(length, start)`` pairs.
"""

from cython.operator cimport dereference as deref, preincrement as inc, predecrement as dec

from collections.abc import MutableSequence

__all__ = ["NodePool"]


cdef class NodePool:
    """Free node ids of a machine of ``n`` nodes."""

    def __init__(self, long n) -> None:
        self.free = n
        if n:
            self.iv[0] = n
            self.runs.insert(pair[long, long](n, 0))

    # -- the C interface (the accounting's) -----------------------------------------------------
    cdef int take_c(self, long k, vector[long]& out) except -1:
        """Remove ``k`` free nodes, append them to ``out`` as flat ``a0, b0, a1, b1, ...``
        intervals; returns how many (best fit, then the longest runs whole)."""
        cdef long length, a
        cdef int pieces = 0
        if k > self.free:
            raise ValueError(f"asked for {k} nodes, {self.free} free")
        self.free -= k
        while k > 0:
            it = self.runs.lower_bound(pair[long, long](k, -1))
            if it == self.runs.end():  # none holds the rest: the longest run, lowest ids
                dec(it)
                it = self.runs.lower_bound(pair[long, long](deref(it).first, -1))
            length = deref(it).first
            a = deref(it).second
            self.runs.erase(it)
            pieces += 1
            out.push_back(a)
            if length <= k:
                out.push_back(a + length)
                self.iv.erase(a)
                k -= length
            else:
                out.push_back(a + k)
                self.iv.erase(a)
                self.iv[a + k] = a + length
                self.runs.insert(pair[long, long](length - k, a + k))
                k = 0
        return pieces

    cdef bint holds_c(self, long a, long b):
        it = self.iv.upper_bound(a)  # the free interval with the largest start <= a
        if it == self.iv.begin():
            return False
        dec(it)
        return deref(it).second >= b

    cdef int take_range_c(self, long a, long b) except -1:
        cdef long lo, hi
        it = self.iv.upper_bound(a)
        if it == self.iv.begin():
            raise ValueError(f"nodes [{a}, {b}) are not all free")
        dec(it)
        lo = deref(it).first
        hi = deref(it).second
        if hi < b:
            raise ValueError(f"nodes [{a}, {b}) are not all free")
        self.iv.erase(it)
        self.runs.erase(pair[long, long](hi - lo, lo))
        if b < hi:
            self.iv[b] = hi
            self.runs.insert(pair[long, long](hi - b, b))
        if lo < a:
            self.iv[lo] = a
            self.runs.insert(pair[long, long](a - lo, lo))
        self.free -= b - a
        return 0

    cdef void give_range_c(self, long a, long b) noexcept:
        cdef long lo = a, hi = b
        above = self.iv.find(b)  # the free interval starting where this one ends
        if above != self.iv.end():
            hi = deref(above).second
            self.runs.erase(pair[long, long](hi - b, b))
            self.iv.erase(above)
        below = self.iv.lower_bound(a)  # the one ending where this one starts
        if below != self.iv.begin():
            dec(below)
            if deref(below).second == a:
                lo = deref(below).first
                self.runs.erase(pair[long, long](a - lo, lo))
        self.iv[lo] = hi
        self.runs.insert(pair[long, long](hi - lo, lo))
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
        self.give_range_c(a, b)

    def give(self, intervals) -> None:
        """Return intervals taken earlier; adjacent free intervals merge."""
        for a, b in intervals:
            self.give_range_c(a, b)

    @property
    def intervals(self) -> list[tuple[int, int]]:
        """The free intervals, by start."""
        return [(p.first, p.second) for p in self.iv]

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
        return [(p.first, p.second) for p in self.runs]
