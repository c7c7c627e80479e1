# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.segments` (cimported by the co-location speed
model, which reads the neighbours of a job without a Python call)."""

from libc.stdint cimport int32_t, uint64_t
from libcpp.vector cimport vector

from coschedlab.engine.jobintervals cimport JobIntervals


cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil


# Segments indexed by their first node: bit x of ``sb`` is set when a segment starts at node
# x, bit w of ``top`` when word w of ``sb`` is not 0 (node 0 always starts one).

cdef inline long seg_of(const uint64_t* sb, const uint64_t* top, long node) noexcept:
    """The first node of the segment holding ``node``."""
    cdef long w = node >> 6, t
    cdef uint64_t bits = sb[w] & (~(<uint64_t>0) >> (63 - (node & 63)))
    if bits:
        return (w << 6) + 63 - __builtin_clzll(bits)
    t = w >> 6  # an earlier word with a start, by the summary
    bits = top[t] & (((<uint64_t>1) << (w & 63)) - 1)
    while bits == 0:
        t -= 1
        bits = top[t]
    w = (t << 6) + 63 - __builtin_clzll(bits)
    return (w << 6) + 63 - __builtin_clzll(sb[w])


cdef inline long next_of(const uint64_t* sb, const uint64_t* top, long ntop, long n,
                         long x) noexcept:  # fmt: skip
    """The first node of the segment after the one starting at ``x`` (``n``: none)."""
    cdef long w, t
    cdef uint64_t bits
    x += 1
    if x >= n:
        return n
    w = x >> 6
    bits = sb[w] & (~(<uint64_t>0) << (x & 63))
    if bits:
        return (w << 6) + __builtin_ctzll(bits)
    w += 1  # a later word with a start, by the summary
    t = w >> 6
    if t >= ntop:
        return n
    bits = top[t] & (~(<uint64_t>0) << (w & 63))
    while bits == 0:
        t += 1
        if t >= ntop:
            return n
        bits = top[t]
    w = (t << 6) + __builtin_ctzll(bits)
    return (w << 6) + __builtin_ctzll(sb[w])


cdef inline void mask_range(uint64_t* w, long a, long b, bint on) noexcept:
    """Set (``on``) or clear bits ``a..b-1`` of the bitmap ``w`` (a < b)."""
    cdef long x = a >> 6, last = (b - 1) >> 6
    cdef uint64_t mask
    while x <= last:
        mask = ~(<uint64_t>0)
        if x == a >> 6:
            mask &= ~(<uint64_t>0) << (a & 63)
        if x == last and (b & 63):
            mask &= ((<uint64_t>1) << (b & 63)) - 1
        if on:
            w[x] |= mask
        else:
            w[x] &= ~mask
        x += 1


cdef class SharedNodes:
    cdef public long n, cpn, n_idle, total_free, changes
    cdef readonly long nseg   # segments now
    # the segments, indexed by their first node (a split or a merge changes one bit and the
    # entries of one node, nothing shifts): a segment starts at node x when bit x of sbit is
    # set, and ends where the next one starts
    cdef vector[uint64_t] sbit  # bit x: a segment starts at node x
    cdef vector[uint64_t] stop  # bit w: word w of sbit is not 0
    cdef vector[int32_t] fr   # fr[x]: free cores on each node of the segment starting at x
    cdef long ver             # bumped at each place and release (before it writes fr)
    cdef vector[long] blkver  # blkver[w]: ver at the last write to fr[64w..64w+63] (a
                              # projection's reset copies only the blocks written since)
    cdef long W               # a slot's width: a count, then at most cpn jobs (each job on a
                              # node holds at least one of its cores)
    cdef int32_t* sb          # the slots, one per node: the jobs on the nodes of the segment
                              # starting at x, in the order they came, at sb + x * W (read
                              # only where a segment starts; the address follows from the
                              # node, so a walk does not wait for a handle before its jobs)
    cdef vector[long] by_free  # by_free[f]: nodes with exactly f free cores
    cdef vector[uint64_t] idle_  # bit x: node x is idle (the idle-node index: the lowest
                                 # idle nodes without a walk over the segments in use)
    cdef vector[uint64_t] idle_top  # bit w: word w of idle_ is not 0
    cdef long nw              # words of a node bitmap (sbit, idle_, a row of rows)
    cdef vector[uint64_t] rows  # row f, word w at rows[w * cpn + f]: bit x, node x has exactly
                                # f free cores, for f < cpn (idle nodes are in idle_): the nodes
                                # with room for c cores, by node, without a walk over the
                                # segments (the rows of one word side by side: rows c..cpn-1
                                # of a word are one contiguous read)
    cdef vector[vector[long]] nb  # running job -> the jobs beside it (any order)
    cdef vector[vector[long]] nb_spare  # lists of jobs that ended, kept for their memory
    cdef vector[char] running  # job -> placed and not released
    cdef vector[long] mark     # scratch: stamps for deduplicating neighbours
    cdef vector[long] near_    # scratch: the neighbours of the job being placed
    cdef long stamp
    cdef long left_job        # the job released last (its neighbours stay in nb)
    cdef object _runs_key, _runs

    cdef inline long seg_c(self, long node) noexcept:
        """The first node of the segment holding ``node`` (0 <= node < n)."""
        return seg_of(self.sbit.data(), self.stop.data(), node)

    cdef inline long next_c(self, long x) noexcept:
        """The first node of the segment after the one starting at ``x`` (n: none)."""
        return next_of(self.sbit.data(), self.stop.data(), self.stop.size(), self.n, x)

    cdef void _start_at(self, long x, bint on) noexcept
    cdef vector[long] _starts(self) noexcept
    cdef void _split(self, long s, long at) noexcept

    cdef inline int32_t* _slot(self, long x) noexcept:
        """The slot of the segment starting at node ``x``: ``[count, job, job, ...]``."""
        return self.sb + x * self.W

    cdef list _partly_free(self, long cores, long limit)
    cpdef long count_with(self, long cores)
    cdef int place_c(self, long j, const long* iv, long niv, long cores) except -1
    cdef void _undo(self, long j, const long* iv, long r, long upto, long cores) noexcept
    cdef long _give_back(self, long j, const long* iv, long niv, long cores) noexcept
    cdef int release_c(self, long j, const long* iv, long niv, long cores) except -1
    cdef vector[long]* neighbours_c(self, long j) except NULL
    cdef void lowest_idle_c(self, long need, vector[long]* out) noexcept

    cdef inline void _set_idle(self, long a, long b, bint on) noexcept:
        """Nodes ``a..b-1`` become idle (``on``) or stop being idle, in the idle-node index."""
        cdef uint64_t* w = self.idle_.data()
        cdef uint64_t* top = self.idle_top.data()
        cdef long x = a >> 6, last = (b - 1) >> 6
        if b <= a:
            return
        mask_range(w, a, b, on)
        while x <= last:
            if on:
                top[x >> 6] |= (<uint64_t>1) << (x & 63)
            elif w[x] == 0:
                top[x >> 6] &= ~((<uint64_t>1) << (x & 63))
            x += 1


cdef class SharedCores:
    cdef readonly SharedNodes nodes
    cdef readonly long cpn
    cdef readonly object cores  # array('q'): cores per node of every job (live)
    cdef long long[::1] cr
    cdef readonly JobIntervals ivs  # the node intervals of every job
    cdef vector[long] tmp   # scratch: one job's intervals, flat a0 b0 a1 b1 ...

    cdef int take_c(self, long j, long nodes, object placement) except -1
    cdef int take_iv_c(self, long j, const long* iv, long niv, long cores) except -1
    cdef int release_c(self, long j) except -1


cdef class CoreProjection:
    cdef readonly long n  # (its arrays' size: a policy's own projection cannot lie about it)
    cdef public long threshold, count
    # the segments as :class:`SharedNodes` keeps them (indexed by first node), split further
    cdef vector[uint64_t] sbit, stop
    cdef vector[int32_t] fr   # fr[x]: free cores on each node of the segment starting at x
    cdef SharedNodes src      # the accounting of the last reset (None: not reset from one)
    cdef long synced          # src.ver at the last reset
    cdef vector[long] ulog    # ulog[w]: fr[64w..64w+63] written since then (copied again)

    cdef void reset_c(self, SharedNodes sh, long threshold) noexcept
    cdef long loss_c(self, const long* iv, long niv, long cores, long limit) noexcept
    cdef long add_c(self, const long* iv, long niv, long cores) noexcept
