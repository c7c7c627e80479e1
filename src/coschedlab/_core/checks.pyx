"""The validator's scans, compiled. They only read the schedule (the validator stays
independent of the kernel); :mod:`coschedlab.validator` prepares the arrays and words the
violations.

* :func:`late_heads`, the scan of :func:`coschedlab.validator._check_easy_head`: for each job
  in queue order that started after it became the head, the jobs running then (walked by
  estimated end) give the shadow time; a start later than it is a violation. The running jobs
  are a set of ranks in the order of all jobs by estimated end (:struct:`Ranks`, bits: a start
  or an end sets or clears one, where a sorted array moved its tail).
* :func:`first_node_clash`, the whole-node overlap of
  :func:`coschedlab.validator._check_nodes`: the intervals of nodes the jobs held, taken in
  (start, end) order, and on each node the job before; two neighbours that overlap are a
  violation, the one on the lowest node reported.
"""

from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

import numpy as np

DEF EPS = 1e-9
DEF LEVELS = 6  # 64 ** 6 = 2 ** 36 ranks at most (the orders number rows in 32 bits)


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    static inline int cosched_ctz(unsigned long long u) { return __builtin_ctzll(u); }
    #else
    static inline int cosched_ctz(unsigned long long u) {
        int b = 0;
        while (!(u & 1ULL)) { u >>= 1; b++; }
        return b;
    }
    #endif
    """
    int cosched_ctz(unsigned long long u) noexcept nogil  # (u != 0)


ctypedef struct Ranks:
    # a set of ranks 0..n-1 as a 64-ary tree of bit words: level 0 has a bit per rank, each
    # level above a bit per word of the one below (set: that word is not 0); the top is one
    # word. Adding or removing a rank changes a word per level at most; the next member from
    # a rank climbs to the first level with a set bit after it and comes down by lowest bits.
    uint64_t *words  # the levels end to end, level 0 first
    Py_ssize_t at[LEVELS]  # each level's first word
    Py_ssize_t size[LEVELS]  # each level's words
    int levels


cdef int _ranks_init(Ranks *s, Py_ssize_t n) except -1:
    """An empty set of ranks below ``n`` (release it with :func:`_ranks_free`)."""
    cdef Py_ssize_t m = max(n, 1), total = 0
    s.levels = 0
    while True:
        m = (m + 63) >> 6
        s.at[s.levels] = total
        s.size[s.levels] = m
        total += m
        s.levels += 1
        if m == 1:
            break
    s.words = <uint64_t *>calloc(total, sizeof(uint64_t))
    if s.words == NULL:
        raise MemoryError()
    return 0


cdef inline void _ranks_free(Ranks *s) noexcept nogil:
    free(s.words)
    s.words = NULL


cdef inline void _ranks_add(Ranks *s, Py_ssize_t p) noexcept nogil:
    cdef int d
    cdef uint64_t *w
    cdef uint64_t was
    for d in range(s.levels):
        w = &s.words[s.at[d] + (p >> 6)]
        was = w[0]
        w[0] = was | (1ULL << (p & 63))
        if was:
            break  # the levels above already know this word is not empty
        p >>= 6


cdef inline void _ranks_remove(Ranks *s, Py_ssize_t p) noexcept nogil:
    cdef int d
    cdef uint64_t *w
    for d in range(s.levels):
        w = &s.words[s.at[d] + (p >> 6)]
        w[0] &= ~(1ULL << (p & 63))
        if w[0]:
            break
        p >>= 6


cdef inline Py_ssize_t _ranks_next(const Ranks *s, Py_ssize_t p) noexcept nogil:
    """The smallest rank in the set that is at least ``p`` (-1: none)."""
    cdef int d = 0
    cdef Py_ssize_t i
    cdef uint64_t bits
    while True:
        if d == s.levels:
            return -1
        i = p >> 6
        if i >= s.size[d]:
            return -1
        bits = s.words[s.at[d] + i] & (~0ULL << (p & 63))
        if bits:
            break
        p = i + 1  # the next word of this level: the next bit of the level above
        d += 1
    p = (i << 6) | cosched_ctz(bits)
    while d:
        d -= 1
        p = (p << 6) | cosched_ctz(s.words[s.at[d] + p])
    return p


def _ranks_walks(Py_ssize_t n, ops):
    """For the tests: apply ``ops`` to an empty :struct:`Ranks` below ``n`` (``(+1, p)`` adds
    rank p, ``(-1, p)`` removes it, ``(0, p)`` walks from p) and return each walk's ranks."""
    cdef Ranks s
    cdef Py_ssize_t p
    _ranks_init(&s, n)
    out = []
    try:
        for op, p in ops:
            if not 0 <= p < n:
                raise IndexError(p)
            if op > 0:
                _ranks_add(&s, p)
            elif op < 0:
                _ranks_remove(&s, p)
            else:
                walk = []
                p = _ranks_next(&s, p)
                while p >= 0:
                    walk.append(p)
                    p = _ranks_next(&s, p + 1) if p + 1 < n else -1
                out.append(walk)
    finally:
        _ranks_free(&s)
    return out


cdef inline bint _around(int64_t k, Py_ssize_t j, double sk, double th, bint has_passes,
                         const int64_t[::1] ps, int64_t head_pass) noexcept nogil:
    """Running job ``k`` was backfilled around head ``j`` in the pass where ``j`` became head
    (behind it in the queue, started at ``t_h``, in that pass or a later one): not counted."""
    return k > j and sk == th and (not has_passes or ps[k] >= head_pass)


def late_heads(
    const double[::1] release,
    const double[::1] start,
    const double[::1] end,
    const double[::1] req,
    const int64_t[::1] nodes,
    const int64_t[::1] by_start,
    const int64_t[::1] by_end,
    passes,
    joined,
    int64_t capacity,
    int max_errors=20,
):
    """The heads EASY delayed, as ``(j, t_head, shadow)`` (``j``: position in queue order),
    at most ``max_errors``. All arrays are in queue order; ``passes`` (each job's start pass)
    and ``joined`` (the pass a released dependant joined in) are int64 arrays or None;
    ``by_start`` and ``by_end`` the stable orders of the jobs by start and by end.

    Job j is the head from ``t_head = max(release[j], the latest start of the jobs before
    it)``; a job overran when it ran longer than its request (plus 1e-9). The overrunning jobs
    by estimated end, with the latest actual end among the first i of them, make "a job past
    its estimate before the start was still running after t_head" one binary search."""
    from .order import stable_argsort

    cdef Py_ssize_t n = len(start), n_o = 0
    cdef bint has_passes = passes is not None, has_joined = joined is not None and has_passes
    cdef const int64_t[::1] ps = passes if has_passes else np.zeros(0, dtype=np.int64)
    cdef const int64_t[::1] jn = joined if has_joined else np.zeros(0, dtype=np.int64)
    # every job's estimated end and its rank among them ((estimate, queue position) order):
    # the running jobs are a set of ranks, walked from the lowest
    est_of = np.add(np.asarray(start), np.asarray(req))
    cdef const double[::1] e_of = est_of
    cdef const int64_t[::1] by_est = stable_argsort(est_of)
    cdef uint32_t *rank = <uint32_t *>malloc(max(n, 1) * sizeof(uint32_t))
    # the jobs taken last by start, all at the latest start so far (``last_start``); those
    # still running after a compaction
    cdef int64_t *latest = <int64_t *>malloc(max(n, 1) * sizeof(int64_t))
    cdef unsigned char *is_running = <unsigned char *>malloc(max(n, 1))
    cdef unsigned char *overrun = <unsigned char *>malloc(max(n, 1))
    # the overrunning jobs' estimates, in order, and the latest end among the first i
    cdef double *o_est = <double *>malloc(max(n, 1) * sizeof(double))
    cdef double *o_end_max = <double *>malloc(max(n, 1) * sizeof(double))
    cdef Ranks running
    cdef Py_ssize_t n_latest = 0, si = 0, ei = 0, j, k, lo, hi, mid, r, i
    cdef int64_t n_overrun = 0, top_pass = -1, head_pass, avail, need, used = 0
    cdef double top = -INFINITY, pre = -INFINITY, th, sj, shadow, last_start = INFINITY, x
    cdef list errors = []
    running.words = NULL
    if (rank == NULL or latest == NULL or is_running == NULL or overrun == NULL
            or o_est == NULL or o_end_max == NULL):
        free(rank); free(latest); free(is_running); free(overrun); free(o_est); free(o_end_max)
        raise MemoryError()
    try:
        _ranks_init(&running, n)
        for j in range(n):
            is_running[j] = 0
            rank[by_est[j]] = <uint32_t>j
            overrun[j] = (end[j] - start[j]) > req[j] + EPS
        for r in range(n):
            k = by_est[r]
            if overrun[k]:
                o_est[n_o] = e_of[k]
                x = o_end_max[n_o - 1] if n_o else end[k]
                o_end_max[n_o] = x if x >= end[k] or x != x else end[k]  # (np.maximum)
                n_o += 1
        for j in range(n):
            if j:
                sj = start[j - 1]
                if sj > pre or sj != sj:  # the latest start before j (np.maximum's NaN)
                    pre = sj
                if has_passes:
                    if sj > top:
                        top, top_pass = sj, ps[j - 1]
                    elif sj == top:
                        top_pass = max(top_pass, ps[j - 1])
            th = release[j] if release[j] >= pre or release[j] != release[j] else pre
            if start[j] <= th + EPS:
                continue
            while si < n and start[by_start[si]] <= th:
                k = by_start[si]
                si += 1
                _ranks_add(&running, rank[k])
                is_running[k] = 1
                used += nodes[k]
                if start[k] != last_start:
                    last_start, n_latest = start[k], 0
                latest[n_latest] = k
                n_latest += 1
                n_overrun += overrun[k]
            while ei < n and end[by_end[ei]] <= th:
                k = by_end[ei]
                ei += 1
                if is_running[k]:
                    _ranks_remove(&running, rank[k])
                    is_running[k] = 0
                    used -= nodes[k]
                    n_overrun -= overrun[k]
            if n_overrun:
                continue
            lo, hi = 0, n_o  # estimates before the start
            while lo < hi:
                mid = (lo + hi) // 2
                if o_est[mid] < start[j]:
                    lo = mid + 1
                else:
                    hi = mid
            if lo and o_end_max[lo - 1] > th:
                continue  # a job running in [t_h, start) overran its estimate: not knowable
            head_pass = top_pass if has_passes and pre >= th else -1
            if has_joined and release[j] >= th:
                head_pass = max(head_pass, jn[j])
            # the nodes of the running jobs but those backfilled around j in the pass where
            # it became head (jobs behind j started at t_h: among the latest taken by start,
            # which are compacted to those still running, each dropped once)
            avail = capacity - used
            if last_start == th:
                i = 0
                for r in range(n_latest):
                    k = latest[r]
                    if is_running[k]:
                        latest[i] = k
                        i += 1
                        if _around(k, j, th, th, has_passes, ps, head_pass):
                            avail += nodes[k]
                n_latest = i
            need = nodes[j]
            shadow = th if avail >= need else INFINITY
            r = _ranks_next(&running, 0) if shadow == INFINITY else -1
            while r >= 0:  # by estimated end, till j fits
                k = by_est[r]
                if not _around(k, j, start[k], th, has_passes, ps, head_pass):
                    avail += nodes[k]
                    if avail >= need:
                        shadow = max(e_of[k], th)
                        break
                r = _ranks_next(&running, r + 1)
            if start[j] > shadow + EPS:
                errors.append((j, th, shadow))
                if len(errors) >= max_errors:
                    break
    finally:
        free(rank); free(latest); free(is_running); free(overrun); free(o_est); free(o_end_max)
        _ranks_free(&running)
    return errors


def first_node_clash(
    const int64_t[::1] row,
    const int64_t[::1] first,
    const int64_t[::1] count,
    const int64_t[::1] order,
    const double[::1] start,
    const double[::1] end,
    int64_t capacity,
):
    """The first overlap of two jobs on one node, as ``(node, earlier job, later job)``
    (rows), or None. Interval ``i`` gives job ``row[i]`` the nodes ``first[i]`` to
    ``first[i] + count[i] - 1`` (all within ``0..capacity-1``); ``order`` sorts the intervals
    by (start, end, position). On each node the jobs are compared with the one before them in
    that order (as a sort by node, start and end would put them); the clash reported is the
    first one of the lowest node that has any."""
    cdef Py_ssize_t m = len(order), t, i
    cdef int64_t v, prev, best = capacity, best_a = -1, best_b = -1, j
    cdef int64_t *last = <int64_t *>malloc(max(capacity, 1) * sizeof(int64_t))
    if last == NULL:
        raise MemoryError()
    try:
        for v in range(capacity):
            last[v] = -1
        for t in range(m):
            i = order[t]
            j = row[i]
            for v in range(first[i], first[i] + count[i]):
                prev = last[v]
                if prev >= 0 and v < best and start[j] < end[prev] - EPS:
                    best, best_a, best_b = v, prev, j
                last[v] = j
    finally:
        free(last)
    return None if best_a < 0 else (best, best_a, best_b)
