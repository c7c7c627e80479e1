# distutils: language = c++
"""C declarations of :mod:`coschedlab.schedulers.nodemap` (cimported by Slurm's compiled pass,
:class:`.passes.SlurmPass`, which builds and scans the map without a Python call)."""

from libc.stdint cimport uint64_t
from libcpp.vector cimport vector


cdef struct Run:
    double end  # start + time limit
    long order  # ties: Slurm's job list order
    long off  # its nodes (pool offset)


cdef struct Slc:
    double b
    double e
    long off  # the nodes still available during [b, e) (pool offset)


cdef class NodeMap:
    cdef readonly double now, res, window_end
    cdef readonly long n
    cdef long W
    cdef uint64_t last
    cdef vector[uint64_t] pool, idle, avail, acc, plan
    cdef vector[Run] running
    cdef vector[Slc] slices
    cdef vector[long] rs, rl  # best fit's runs (start, length)
    cdef vector[char] gone

    cdef void reset(self, double now, double resolution) noexcept
    cdef void add_run_iv(self, double end, long order, const long* iv, long niv) noexcept
    cdef void seal(self, double window) noexcept
    cdef long new_set(self) noexcept
    cdef long copy_set(self, long src) noexcept
    cdef void set_ranges(self, long off, const long* iv, long niv) noexcept
    cdef int fill(self, long off, nodes) except -1
    cdef int fill_ranges(self, long off, ranges) except -1
    cdef int fill_vec(self, vector[uint64_t]& v, nodes) except -1
    cdef list to_list(self, const vector[uint64_t]& v)
    cdef void to_intervals(self, const vector[uint64_t]& v, vector[long]& out) noexcept
    cdef long count(self, const vector[uint64_t]& v) noexcept
    cdef void runs(self, const vector[uint64_t]& v) noexcept
    cdef void best_fit(self, const vector[uint64_t]& pool, long need, vector[uint64_t]& out)
    cdef double will_run(self, long need)
    cdef double usable(self, double start_res, double end_time) noexcept
    cdef bint overlap(self, const vector[uint64_t]& nodes, double start, double end) noexcept
    cdef (double, double) span(self, double start, double limit) noexcept
    cdef double test_c(self, long need, double limit)
    cdef void reserve_c(self, const vector[uint64_t]& nodes, double start, double limit)
    cdef bint same(self, long a, long b) noexcept
    cdef void start_c(self, const vector[uint64_t]& nodes, long order, double limit)
    cdef long scan_c(
        self, const long* jobs, long njobs, const long* nodes, const double* limit, long free,
        long reservations, vector[long]& started, vector[long]& iv, vector[long]& ivoff,
        vector[long]& rjobs, vector[double]& rtimes,
    ) except -1
