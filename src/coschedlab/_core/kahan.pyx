"""Per-group sums with Kahan compensation, compiled: the loop of
:func:`coschedlab.metrics._group_sums` (each group's values added in row order, the rule of
pandas' groupby sum and mean), in C doubles: the same operations, so the same bits. And the
groups' labels counted over their range (:func:`range_labels`) and their values ordered by
label for the per-group percentile (:func:`ordered_by_group`)."""

from libc.stdint cimport int32_t, int64_t

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


ctypedef fused whole:
    int32_t
    int64_t


def range_labels(const whole[::1] key, Py_ssize_t slack):
    """``np.unique(key, return_inverse=True)`` (both int64) of whole numbers whose range is
    at most ``4 * len(key) + slack`` wide, by counting over that range (no sort); None when
    the range is wider (or ``key`` is empty)."""
    cdef Py_ssize_t n = key.shape[0], i, width, g = 0
    cdef int64_t lo, hi, x
    if n == 0:
        return None
    lo = hi = key[0]
    for i in range(n):
        x = key[i]
        if x < lo:
            lo = x
        elif x > hi:
            hi = x
    if hi - lo > 4 * n + slack:
        return None
    width = hi - lo + 1
    rank = np.zeros(width, dtype=np.int64)
    cdef int64_t[::1] r = rank
    with nogil:
        for i in range(n):
            r[key[i] - lo] = 1
        for i in range(width):  # present values numbered in increasing order
            if r[i]:
                r[i] = g
                g += 1
            else:
                r[i] = -1
    values = np.empty(g, dtype=np.int64)
    labels = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] v = values
    cdef int64_t[::1] lab = labels
    with nogil:
        for i in range(width):
            if r[i] >= 0:
                v[r[i]] = lo + i
        for i in range(n):
            lab[i] = r[key[i] - lo]
    return values, labels


def ordered_by_group(const int64_t[::1] labels, const double[::1] values,
                     const int64_t[::1] by_value, const int64_t[::1] count):
    """``values[by_value[np.argsort(labels[by_value], kind="stable")]]``: the values by
    label (0, 1, ...), each label's in the order of ``by_value`` (a stable order of
    ``values``), by counting sort; ``count[g]``: how many rows have label g."""
    cdef Py_ssize_t n = labels.shape[0], g = count.shape[0], i
    cdef int64_t k, lab, total = 0
    if values.shape[0] != n or by_value.shape[0] != n:
        raise ValueError(f"{n} labels, {values.shape[0]} values, {by_value.shape[0]} orders")
    place = np.empty(g, dtype=np.int64)
    cdef int64_t[::1] p = place
    for i in range(g):
        p[i] = total
        total += count[i]
    if total != n:
        raise ValueError(f"counts add up to {total}, not {n}")
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    for i in range(n):
        k = by_value[i]
        if k < 0 or k >= n:
            raise IndexError(f"row {k} outside 0..{n - 1}")
        lab = labels[k]
        if lab < 0 or lab >= g or p[lab] >= n:
            raise IndexError(f"label {lab} outside 0..{g - 1} or beyond its count")
        o[p[lab]] = values[k]
        p[lab] += 1
    return out
