"""Stable orders of float64 columns, compiled: ``np.argsort(values, kind="stable")`` by a
least-significant-digit radix sort (NumPy sorts doubles stably by timsort, ~16 comparisons a
value on 54,000 values; this is a few linear passes), the same permutation: ties (``-0.0``
and ``0.0`` among them) keep their row order and every NaN comes last, in row order, as in
NumPy's."""

from libc.stdint cimport int64_t, uint64_t
from libc.math cimport fabs
from libc.string cimport memset

import numpy as np

cdef extern from *:
    """
    #include <string.h>
    static inline unsigned long long coschedlab_order_key(double x) {
        unsigned long long u;
        if (x != x) return 0xFFFFFFFFFFFFFFFFULL;  /* every NaN: last, ties among them */
        if (x == 0.0) x = 0.0;                      /* -0.0 ties with 0.0 */
        memcpy(&u, &x, 8);
        return (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
    }
    """
    unsigned long long coschedlab_order_key(double x) nogil

cdef enum:
    BITS = 11
    BUCKETS = 2048  # 1 << BITS
    DIGITS = 6  # ceil(64 / BITS)


cdef int64_t *_radix_order(const double *values, Py_ssize_t n, int64_t *src,
                          int64_t *dst) noexcept nogil:
    """Sort the indices 0..n-1 of ``values`` stably (NaNs last) using the two buffers of n
    indices; returns the one that holds the order."""
    cdef Py_ssize_t counts[DIGITS][BUCKETS]
    cdef Py_ssize_t i, d, total, c
    cdef uint64_t key
    cdef int64_t *swap
    cdef int shift
    cdef bint one
    memset(counts, 0, sizeof(counts))
    for i in range(n):
        key = coschedlab_order_key(values[i])
        for d in range(DIGITS):
            counts[d][(key >> (d * BITS)) & (BUCKETS - 1)] += 1
        src[i] = i
    for d in range(DIGITS):
        # a digit the same for every value leaves the order as it is: no pass
        one = False
        for c in range(BUCKETS):
            if counts[d][c]:
                one = counts[d][c] == n
                break
        if one:
            continue
        total = 0
        for c in range(BUCKETS):  # each bucket's first place
            i = counts[d][c]
            counts[d][c] = total
            total += i
        shift = d * BITS
        for i in range(n):
            key = coschedlab_order_key(values[src[i]])
            c = (key >> shift) & (BUCKETS - 1)
            dst[counts[d][c]] = src[i]
            counts[d][c] += 1
        swap = src
        src = dst
        dst = swap
    return src


def stable_argsort(const double[::1] values):
    """``np.argsort(values, kind="stable")`` (int64): the indices of ``values`` from the
    smallest, ties in row order, NaNs last; by radix sort on the values' order-preserving
    bit patterns, a pass per 11-bit digit that is not the same for all values."""
    cdef Py_ssize_t n = values.shape[0]
    out = np.empty(n, dtype=np.int64)
    if n == 0:
        return out
    tmp = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] a = out
    cdef int64_t[::1] b = tmp
    cdef int64_t *got
    with nogil:
        got = _radix_order(&values[0], n, &a[0], &b[0])
    return out if got == &a[0] else tmp


def step_levels(const double[::1] starts, const double[::1] ends, const double[:] weights,
                double zero):
    """The sweep of :func:`coschedlab.metrics.step_sum`: each interval ``[starts[k],
    ends[k])`` adds ``weights[k]`` at its start and takes it away at its end (times that are
    not finite are left out); the events in time order (``np.argsort`` of the starts then the
    ends, stable), their weights added up in that order, and at the last event of each
    instant the time and the level (0.0 where ``|level| < zero``). Returns ``(times,
    levels)``, the same floats as NumPy's cumulative sum of that order (a NaN's sign bit
    aside: IEEE leaves it open, and the C compiler may order a sum's operands either way)."""
    cdef Py_ssize_t n = starts.shape[0], m = 0, k, i, j, e
    if ends.shape[0] != n or weights.shape[0] != n:
        raise ValueError(f"{n} starts, {ends.shape[0]} ends, {weights.shape[0]} weights")
    times = np.empty(2 * n, dtype=np.float64)
    event = np.empty(2 * n, dtype=np.int64)  # k: start of k; n + k: end of k
    cdef double[::1] t = times
    cdef int64_t[::1] ev = event
    cdef double x
    with nogil:
        for k in range(n):
            x = starts[k]
            if x - x == 0.0:  # finite
                t[m] = x
                ev[m] = k
                m += 1
        for k in range(n):
            x = ends[k]
            if x - x == 0.0:
                t[m] = x
                ev[m] = n + k
                m += 1
    order = np.empty(m, dtype=np.int64)
    tmp = np.empty(m, dtype=np.int64)
    out_t = np.empty(m, dtype=np.float64)
    out_v = np.empty(m, dtype=np.float64)
    cdef int64_t[::1] a = order
    cdef int64_t[::1] b = tmp
    cdef double[::1] ot = out_t
    cdef double[::1] ov = out_v
    cdef int64_t *got
    cdef double level = 0.0, d
    j = 0
    if m:
        with nogil:
            got = _radix_order(&t[0], m, &a[0], &b[0])
            for i in range(m):
                e = ev[got[i]]
                if e < n:
                    d = weights[e]
                else:
                    d = -weights[e - n]
                level = d if i == 0 else level + d  # np.cumsum's order and first value
                if i + 1 == m or t[got[i + 1]] != t[got[i]]:  # the instant's last event
                    ot[j] = t[got[i]]
                    ov[j] = 0.0 if fabs(level) < zero else level
                    j += 1
    del order, tmp, times, event
    return out_t[:j].copy(), out_v[:j].copy()
