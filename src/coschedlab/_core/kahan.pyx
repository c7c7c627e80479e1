"""Per-group sums with Kahan compensation, compiled: the loop of
:func:`coschedlab.metrics._group_sums` (each group's values added in row order, the rule of
pandas' groupby sum and mean), in C doubles: the same operations, so the same bits."""

from libc.stdint cimport int64_t

import numpy as np


def group_sums(const int64_t[::1] labels, const double[::1] values, Py_ssize_t n):
    """Sum of ``values`` per label ``0..n-1``, each label's values added in row order with
    Kahan compensation."""
    cdef Py_ssize_t i, m = len(labels)
    cdef int64_t g
    cdef double y, t
    if len(values) != m:
        raise ValueError(f"{m} labels but {len(values)} values")
    out = np.zeros(n, dtype=np.float64)
    comp = np.zeros(n, dtype=np.float64)
    cdef double[::1] s = out
    cdef double[::1] c = comp
    for i in range(m):
        g = labels[i]
        if g < 0 or g >= n:
            raise IndexError(f"label {g} outside 0..{n - 1}")
        y = values[i] - c[g]
        t = s[g] + y
        c[g] = (t - s[g]) - y
        s[g] = t
    return out
