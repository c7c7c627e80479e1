# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.segments` (cimported by the co-location speed
model, which reads the neighbours of a job without a Python call)."""

from libc.stdint cimport int32_t, uint64_t
from libcpp.vector cimport vector

from coschedlab.engine.jobintervals cimport JobIntervals


cdef class SharedNodes:
    cdef public long n, cpn, n_idle, total_free, changes
    cdef vector[long] st      # segment i starts at node st[i] (ends where i + 1 starts)
    cdef vector[long] fr      # free cores on each node of segment i
    cdef vector[long] jb      # segment i's jobs: the slot of handle jb[i] (a handle, so that
                              # a split or a merge moves one number)
    cdef long W               # a slot's width: a count, then at most cpn jobs (each job on a
                              # node holds at least one of its cores)
    cdef vector[int32_t] sb   # the slots, one after the other: the jobs on the nodes of a
                              # segment, in the order they came (one block of memory: a walk
                              # over segments does not chase a pointer per segment)
    cdef vector[long] spare   # handles of unused slots
    cdef vector[long] by_free  # by_free[f]: nodes with exactly f free cores
    cdef vector[uint64_t] idle_  # bit x: node x is idle (the idle-node index: the lowest
                                 # idle nodes without a walk over the segments in use)
    cdef vector[uint64_t] idle_top  # bit w: word w of idle_ is not 0
    cdef vector[vector[long]] nb  # running job -> the jobs beside it (any order)
    cdef vector[char] running  # job -> placed and not released
    cdef vector[long] mark     # scratch: stamps for deduplicating neighbours
    cdef vector[long] near_    # scratch: the neighbours of the job being placed
    cdef long stamp
    cdef long left_job        # the job released last (its neighbours stay in nb)
    cdef object _runs_key, _runs

    cdef long seg_c(self, long node) noexcept
    cdef long _end(self, long i) noexcept
    cdef void _split(self, long i, long at) noexcept
    cdef long _merge(self, long i) noexcept
    cdef long _copy_set(self, long h) noexcept

    cdef inline int32_t* _slot(self, long h) noexcept:
        """Handle ``h``'s slot: ``[count, job, job, ...]``."""
        return self.sb.data() + h * self.W

    cdef list _partly_free(self, long cores, long limit)
    cpdef long count_with(self, long cores)
    cdef int place_c(self, long j, const long* iv, long niv, long cores) except -1
    cdef void _undo(self, long j, const long* iv, long r, long upto, long cores) noexcept
    cdef long _give_back(self, long j, const long* iv, long niv, long cores) noexcept
    cdef int release_c(self, long j, const long* iv, long niv, long cores) except -1
    cdef vector[long]* neighbours_c(self, long j) except NULL
    cdef void lowest_idle_c(self, long need, vector[long]* out) noexcept
    cdef void _set_idle(self, long a, long b, bint on) noexcept


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
    cdef public long n, threshold, count
    cdef vector[long] st, fr

    cdef void reset_c(self, SharedNodes sh, long threshold) noexcept
    cdef long loss_c(self, const long* iv, long niv, long cores) noexcept
    cdef long add_c(self, const long* iv, long niv, long cores) noexcept
