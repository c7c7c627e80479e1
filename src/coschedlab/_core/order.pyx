"""Stable orders of float64 columns, compiled: ``np.argsort(values, kind="stable")`` by a
least-significant-digit radix sort (NumPy sorts doubles stably by timsort, ~16 comparisons a
value on 54,000 values; this is a few linear passes), the same permutation: ties (``-0.0``
and ``0.0`` among them) keep their row order and every NaN comes last, in row order, as in
NumPy's."""

from libc.stdint cimport UINT32_MAX, int32_t, int64_t, uint32_t, uint64_t
from libc.math cimport fabs
from libc.string cimport memcpy, memset

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

#: the key of both zeros
cdef uint64_t ZERO_KEY = 0x8000000000000000ULL

cdef enum:
    BITS = 11
    BUCKETS = 2048  # 1 << BITS
    DIGITS = 6  # ceil(64 / BITS)


ctypedef struct Column:
    # value k: first[k] for k < n_first, else second[k - n_first]
    const double *first
    const double *second
    Py_ssize_t n_first


cdef inline double _value(Column col, uint32_t k) noexcept nogil:
    return col.first[k] if k < col.n_first else col.second[k - col.n_first]


cdef uint32_t *_radix_order(Column col, Py_ssize_t m, uint32_t *src, uint32_t *dst,
                            uint64_t *ksrc, uint64_t *kdst, uint64_t **keys) noexcept nogil:
    """Sort the ``m`` value numbers in ``src`` (a stable order of the values of ``col``, NaNs
    last), with ``dst`` as the other buffer of m; returns the buffer that holds the order,
    and sets ``keys`` to the one of ``ksrc`` and ``kdst`` (two buffers of m) that holds the
    sorted values' keys. Each value's key moves with its number: a pass reads both in order,
    not the values at the numbers (on a million values, a cache miss per value and pass). A
    column already in order is left as it is (no pass)."""
    cdef Py_ssize_t counts[DIGITS][BUCKETS]
    cdef Py_ssize_t i, d, total, c
    cdef uint64_t key, last = 0
    cdef uint32_t *swap
    cdef uint64_t *kswap
    cdef int shift
    cdef bint one, ordered = True
    memset(counts, 0, sizeof(counts))
    for i in range(m):
        key = coschedlab_order_key(_value(col, src[i]))
        ksrc[i] = key
        ordered = ordered and key >= last
        last = key
        for d in range(DIGITS):
            counts[d][(key >> (d * BITS)) & (BUCKETS - 1)] += 1
    keys[0] = ksrc
    if ordered:  # every pass would keep this order
        return src
    for d in range(DIGITS):
        # a digit the same for every value leaves the order as it is: no pass
        one = False
        for c in range(BUCKETS):
            if counts[d][c]:
                one = counts[d][c] == m
                break
        if one:
            continue
        total = 0
        for c in range(BUCKETS):  # each bucket's first place
            i = counts[d][c]
            counts[d][c] = total
            total += i
        shift = d * BITS
        for i in range(m):
            key = ksrc[i]
            c = (key >> shift) & (BUCKETS - 1)
            dst[counts[d][c]] = src[i]
            kdst[counts[d][c]] = key
            counts[d][c] += 1
        swap = src
        src = dst
        dst = swap
        kswap = ksrc
        ksrc = kdst
        kdst = kswap
    keys[0] = ksrc
    return src


def _check_size(Py_ssize_t m) -> None:
    if m > <Py_ssize_t>UINT32_MAX:
        raise ValueError(f"{m:,} values: more than 2**32 - 1 to order")


#: a run of equal values longer than this, out of row order in a hint, is not sorted in
#: place (:func:`_from_hint` gives up: the radix sort)
DEF HINT_RUN = 64


cdef bint _from_hint(const double *values, const int32_t *hint, Py_ssize_t n, int64_t *o,
                     unsigned char *seen) noexcept nogil:
    """The stable order of ``values`` into ``o`` from ``hint``, a permutation of the rows by
    value (each row once, values up, checked) whose runs of equal values may be out of row
    order: each such run put in row order (insertion, runs of at most :data:`HINT_RUN`).
    False when the hint is not such a permutation."""
    cdef Py_ssize_t i, run = 0, a, b
    cdef int64_t x, y
    cdef uint64_t key, last = 0
    cdef bint ascending = True
    for i in range(n + 1):
        if i < n:
            x = hint[i]
            if not 0 <= x < n or seen[x]:
                return False
            seen[x] = 1
            key = coschedlab_order_key(values[x])
            if i and key < last:
                return False
        if i == n or (i and key != last):  # the run [run, i) of one value ends
            if not ascending:
                if i - run > HINT_RUN:
                    return False
                for a in range(run + 1, i):  # insertion sort of the rows
                    y = o[a]
                    b = a
                    while b > run and o[b - 1] > y:
                        o[b] = o[b - 1]
                        b -= 1
                    o[b] = y
            if i == n:
                break
            run, ascending = i, True
        elif i and x < o[i - 1]:
            ascending = False
        o[i] = x
        last = key
    return True


def stable_argsort(const double[::1] values, hint=None):
    """``np.argsort(values, kind="stable")`` (int64): the indices of ``values`` from the
    smallest, ties in row order, NaNs last; by radix sort on the values' order-preserving
    bit patterns, a pass per 11-bit digit that is not the same for all values (32-bit
    indices and 64-bit keys while sorting: 24 bytes a value, then the 8 of the result).

    ``hint``: the rows in an order by value made elsewhere (the kernel's order of starts or
    of ends: ties in the order they came; 32-bit rows suffice), or None. When it is one
    (checked: each row once, values up), the result is made from it in one pass, its runs of
    equal values put in row order; else by the radix sort."""
    cdef Py_ssize_t n = values.shape[0], i
    cdef const int32_t[::1] h
    cdef int64_t[::1] ho
    cdef unsigned char[::1] hs
    cdef bint ok
    _check_size(n)
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if hint is not None and len(hint) == n and n < 2**31:
        h = np.ascontiguousarray(hint, dtype=np.int32)  # (a row out of range: refused below)
        hinted = np.empty(n, dtype=np.int64)
        ho = hinted
        seen = np.zeros(n, dtype=np.uint8)
        hs = seen
        with nogil:
            ok = _from_hint(&values[0], &h[0], n, &ho[0], &hs[0])
        if ok:
            return hinted
    bufs = np.empty((2, n), dtype=np.uint32)
    kbufs = np.empty((2, n), dtype=np.uint64)
    cdef uint32_t[:, ::1] b = bufs
    cdef uint64_t[:, ::1] kb = kbufs
    cdef uint32_t *got
    cdef uint64_t *keys
    cdef Column col
    col.first = &values[0]
    col.second = NULL
    col.n_first = n
    with nogil:
        for i in range(n):
            b[0, i] = <uint32_t>i
        got = _radix_order(col, n, &b[0, 0], &b[1, 0], &kb[0, 0], &kb[1, 0], &keys)
    del kb, kbufs
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] o = out
    with nogil:
        for i in range(n):
            o[i] = got[i]
    return out


cdef inline bint _take(const double* col, const int64_t* by, Py_ssize_t* i, Py_ssize_t n,
                       int64_t* x, uint64_t* key) noexcept nogil:
    """One step of :func:`merged_order` on one column: takes row ``by[i]`` (whose key is
    ``key``), moves ``i`` on and reads the next row's key into ``key``; False when a row is
    out of range or the next one is not after it in stable order (values up, rows up at equal
    values)."""
    cdef int64_t y
    cdef uint64_t last = key[0]
    x[0] = by[i[0]]
    i[0] += 1
    if not 0 <= x[0] < n:
        return False
    if i[0] < n:
        y = by[i[0]]
        if not 0 <= y < n:
            return False
        key[0] = coschedlab_order_key(col[y])
        return key[0] > last or (key[0] == last and y > x[0])
    return True


ctypedef struct Merge:
    # :func:`_merge`'s columns and, when ``weight`` is set, the running level of the events
    # (a row of ``a`` takes its weight away, one of ``b`` adds it) and the first event past
    # ``cap``
    const double *a
    const int64_t *by_a
    Py_ssize_t na
    const double *b
    const int64_t *by_b
    Py_ssize_t nb
    const int64_t *weight  # per row of ``a`` (and of ``b``: the same rows); NULL: no level
    int64_t cap
    Py_ssize_t over  # the first event whose level is past ``cap`` (-1: none), its row
    int64_t over_row  # (rows of ``b`` numbered from ``na``) and that level
    int64_t over_level


cdef bint _merge(Merge *m, int64_t *out, unsigned char *got) noexcept nogil:
    """The stable order of the columns ``a`` and ``b`` end to end from their stable orders
    (at equal values ``a``'s rows first), each order checked while merging; into ``out``
    when not NULL, and the level when ``m.weight`` is set. False when an order is wrong."""
    cdef Py_ssize_t na = m.na, nb = m.nb, i = 0, j = 0, t = 0
    cdef int64_t x, level = 0
    cdef uint64_t ka = 0, kb = 0
    cdef bint ok = True
    m.over = -1
    if na:
        ka = coschedlab_order_key(m.a[m.by_a[0]]) if 0 <= m.by_a[0] < na else 0
    if nb:
        kb = coschedlab_order_key(m.b[m.by_b[0]]) if 0 <= m.by_b[0] < nb else 0
    while ok and (i < na or j < nb):
        if j == nb or (i < na and ka <= kb):
            ok = _take(m.a, m.by_a, &i, na, &x, &ka)
            if ok and m.weight != NULL:
                level -= m.weight[x]
        else:
            ok = _take(m.b, m.by_b, &j, nb, &x, &kb)
            if ok and m.weight != NULL:
                level += m.weight[x]
            x += na
        if ok:
            ok = not got[x]
        if ok:
            got[x] = 1
            if out != NULL:
                out[t] = x
            if m.over < 0 and level > m.cap and m.weight != NULL:
                m.over = t
                m.over_row = x
                m.over_level = level
            t += 1
    return ok and t == na + nb


cdef Merge _merge_of(const double[::1] a, const int64_t[::1] by_a, const double[::1] b,
                     const int64_t[::1] by_b) except *:
    cdef Merge m
    if by_a.shape[0] != a.shape[0] or by_b.shape[0] != b.shape[0]:
        raise ValueError(f"orders of {by_a.shape[0]} and {by_b.shape[0]} rows for columns "
                         f"of {a.shape[0]} and {b.shape[0]}")
    m.na = a.shape[0]
    m.nb = b.shape[0]
    m.a = &a[0] if m.na else NULL
    m.by_a = &by_a[0] if m.na else NULL
    m.b = &b[0] if m.nb else NULL
    m.by_b = &by_b[0] if m.nb else NULL
    m.weight = NULL
    m.cap = 0
    m.over = -1
    return m


def merged_order(const double[::1] a, const int64_t[::1] by_a, const double[::1] b,
                 const int64_t[::1] by_b):
    """``np.argsort(np.concatenate([a, b]), kind="stable")`` from the stable orders of the two
    columns (``by_a``, ``by_b``: :func:`stable_argsort`'s, taken as given and checked while
    merging), by one merge: at equal values (and among NaNs) ``a``'s first. The rows of ``b``
    are numbered from ``len(a)``. A ``by_a`` or ``by_b`` that is not a stable order of its
    column (a row missing, twice or out of order) is a ValueError."""
    cdef Merge m = _merge_of(a, by_a, b, by_b)
    out = np.empty(m.na + m.nb, dtype=np.int64)
    seen = np.zeros(m.na + m.nb, dtype=np.uint8)
    cdef int64_t[::1] o = out
    cdef unsigned char[::1] got = seen
    cdef bint ok
    with nogil:
        ok = _merge(&m, &o[0] if m.na + m.nb else NULL, &got[0] if m.na + m.nb else NULL)
    if not ok:
        raise ValueError("not a stable order of its column")
    return out


def first_over(const double[::1] ends, const int64_t[::1] by_ends, const double[::1] starts,
               const int64_t[::1] by_starts, const int64_t[::1] weights, int64_t capacity):
    """The sweep of the validator's capacity check: the intervals ``[starts[k], ends[k])``
    in :func:`merged_order`'s order of the ends then the starts (at one instant the ends
    first), each end taking ``weights[k]`` away and each start adding it; the first event at
    which the level is above ``capacity``, as ``(k, is_start, level)``, or None. The orders
    are checked to the end (a wrong one is a ValueError, whatever the levels)."""
    cdef Merge m = _merge_of(ends, by_ends, starts, by_starts)
    if starts.shape[0] != ends.shape[0] or weights.shape[0] != ends.shape[0]:
        raise ValueError(f"{starts.shape[0]} starts, {ends.shape[0]} ends, "
                         f"{weights.shape[0]} weights")
    m.weight = &weights[0] if m.na else NULL
    m.cap = capacity
    seen = np.zeros(m.na + m.nb, dtype=np.uint8)
    cdef unsigned char[::1] got = seen
    cdef bint ok = True
    if m.na:
        with nogil:
            ok = _merge(&m, NULL, &got[0])
    if not ok:
        raise ValueError("not a stable order of its column")
    if m.over < 0:
        return None
    if m.over_row >= m.na:
        return m.over_row - m.na, True, m.over_level
    return m.over_row, False, m.over_level


cdef inline double _key_value(uint64_t key) noexcept nogil:
    """The finite value whose order key is ``key`` (0.0 for a zero)."""
    cdef uint64_t u = (key & 0x7FFFFFFFFFFFFFFFULL) if (key >> 63) else ~key
    cdef double x
    memcpy(&x, &u, 8)
    return x


cdef inline uint64_t _next_key(const uint64_t *ks, Py_ssize_t ms, Py_ssize_t i_s,
                               const uint64_t *ke, Py_ssize_t me, Py_ssize_t i_e) noexcept nogil:
    """The key of the next event of the merge (some event is left)."""
    if i_e == me or (i_s < ms and ks[i_s] <= ke[i_e]):
        return ks[i_s]
    return ke[i_e]


cdef Py_ssize_t _from_order(const double *col, const int64_t *by, Py_ssize_t n, uint32_t base,
                            uint32_t *g, uint64_t *keys, unsigned char *seen) noexcept nogil:
    """The events of ``col`` whose times are finite, in the stable order ``by`` (checked: each
    row once, values up, rows up at equal values), numbered from ``base``, into ``g`` with
    their keys; returns how many (-1: ``by`` is not a stable order of ``col``). Each step is
    :func:`_take`'s, the check :func:`merged_order` makes."""
    cdef Py_ssize_t i = 0, m = 0
    cdef int64_t x
    cdef uint64_t key = 0, k
    cdef double v
    if n:
        key = coschedlab_order_key(col[by[0]]) if 0 <= by[0] < n else 0
    while i < n:
        k = key  # (row by[i]'s key: _take reads the next row's into ``key``)
        if not _take(col, by, &i, n, &x, &key) or seen[x]:
            return -1
        seen[x] = 1
        v = col[x]
        if v - v == 0.0:
            g[m] = <uint32_t>(base + x)
            keys[m] = k
            m += 1
    return m


cdef bint _ordered_events(Column col, const int64_t *bs, const int64_t *be, Py_ssize_t n,
                          uint32_t[:, ::1] b, uint64_t[:, ::1] kb, unsigned char[::1] seen,
                          Py_ssize_t *ms, Py_ssize_t *me) noexcept:
    """:func:`step_levels`'s finite events from given orders: the starts' at the front of
    ``b[0]`` and ``kb[0]``, the ends' right after them; False when an order is wrong."""
    ms[0] = _from_order(col.first, bs, n, 0, &b[0, 0], &kb[0, 0], &seen[0])
    if ms[0] < 0:
        return False
    me[0] = _from_order(col.second, be, n, <uint32_t>n, &b[0, ms[0]], &kb[0, ms[0]], &seen[n])
    return me[0] >= 0


def step_levels(const double[::1] starts, const double[::1] ends, const double[:] weights,
                double zero, by_starts=None, by_ends=None):
    """The sweep of :func:`coschedlab.metrics.step_sum`: each interval ``[starts[k],
    ends[k])`` adds ``weights[k]`` at its start and takes it away at its end (times that are
    not finite are left out); the events in time order (``np.argsort`` of the starts then the
    ends, stable), their weights added up in that order, and at the last event of each
    instant the time and the level (0.0 where ``|level| < zero``). Returns ``(times,
    levels)``, the same floats as NumPy's cumulative sum of that order (a NaN's sign bit
    aside: IEEE leaves it open, and the C compiler may order a sum's operands either way).
    Memory: two 32-bit indices and two 64-bit keys per event while sorting, then the two
    results. The starts and the ends are sorted apart and merged (each sort half the events,
    the merge reading both in order); the instants are read from the sorted keys (equal keys:
    equal finite times). ``by_starts`` and ``by_ends``: the :func:`stable_argsort` orders of
    the starts and of the ends when already made (checked while read, a wrong one is a
    ValueError): no sort, 12 bytes an event instead of 24."""
    cdef Py_ssize_t n = starts.shape[0], m = 0, k, i, j = 0
    if ends.shape[0] != n or weights.shape[0] != n:
        raise ValueError(f"{n} starts, {ends.shape[0]} ends, {weights.shape[0]} weights")
    _check_size(2 * n)
    if n == 0:
        return np.empty(0), np.empty(0)
    cdef bint given = by_starts is not None or by_ends is not None
    cdef const int64_t[::1] bs
    cdef const int64_t[::1] be
    if given:
        if by_starts is None or by_ends is None:
            raise ValueError("the orders of both the starts and the ends, or of neither")
        bs = by_starts
        be = by_ends
        if bs.shape[0] != n or be.shape[0] != n:
            raise ValueError(f"orders of {bs.shape[0]} and {be.shape[0]} rows for {n} events")
    # (given orders: one buffer of each, the events' numbers and keys; else two for the sort)
    bufs = np.empty((1 if given else 2, 2 * n), dtype=np.uint32)
    kbufs = np.empty((1 if given else 2, 2 * n), dtype=np.uint64)
    cdef uint32_t[:, ::1] b = bufs
    cdef uint64_t[:, ::1] kb = kbufs
    cdef Py_ssize_t ms = 0, me, i_s = 0, i_e = 0
    cdef uint32_t *gs
    cdef uint32_t *ge
    cdef uint64_t *ks
    cdef uint64_t *ke
    cdef uint64_t key
    cdef uint32_t e
    cdef Column col
    cdef double x, level = 0.0, d
    col.first = &starts[0]
    col.second = &ends[0]
    col.n_first = n
    if given:
        seen = np.zeros(2 * n, dtype=np.uint8)
        if not _ordered_events(col, &bs[0], &be[0], n, b, kb, seen, &ms, &me):
            raise ValueError("not a stable order of its column")
        del seen
        gs = &b[0, 0]
        ks = &kb[0, 0]
        ge = &b[0, ms]
        ke = &kb[0, ms]
        m = ms + me
    with nogil:
        if not given:
            for k in range(2 * n):  # the events whose times are finite, starts first
                x = _value(col, <uint32_t>k)
                if x - x == 0.0:
                    b[0, m] = <uint32_t>k
                    m += 1
                    ms += k < n
            me = m - ms
            # the starts and the ends sorted apart (half the events a sort), then merged: at
            # one time the starts first, as in one stable sort of the starts then the ends
            gs = _radix_order(col, ms, &b[0, 0], &b[1, 0], &kb[0, 0], &kb[1, 0], &ks)
            ge = _radix_order(col, me, &b[0, ms], &b[1, ms], &kb[0, ms], &kb[1, ms], &ke)
        for i in range(m):  # the instants
            if i_e == me or (i_s < ms and ks[i_s] <= ke[i_e]):
                key = ks[i_s]
                i_s += 1
            else:
                key = ke[i_e]
                i_e += 1
            if i + 1 == m or _next_key(ks, ms, i_s, ke, me, i_e) != key:
                j += 1
    out_t = np.empty(j, dtype=np.float64)
    out_v = np.empty(j, dtype=np.float64)
    cdef double[::1] ot = out_t
    cdef double[::1] ov = out_v
    j = i_s = i_e = 0
    with nogil:
        for i in range(m):
            if i_e == me or (i_s < ms and ks[i_s] <= ke[i_e]):
                key = ks[i_s]
                e = gs[i_s]
                i_s += 1
                d = weights[e]
            else:
                key = ke[i_e]
                e = ge[i_e]
                i_e += 1
                d = -weights[e - n]
            level = d if i == 0 else level + d  # np.cumsum's order and first value
            if i + 1 == m or _next_key(ks, ms, i_s, ke, me, i_e) != key:  # the instant's last
                # the time from its key; a zero's sign from the value itself
                ot[j] = _value(col, e) if key == ZERO_KEY else _key_value(key)
                ov[j] = 0.0 if fabs(level) < zero else level
                j += 1
    return out_t, out_v
