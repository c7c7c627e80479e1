"""The validator's scans, compiled. They only read the schedule (the validator stays
independent of the kernel); :mod:`coschedlab.validator` prepares the arrays and words the
violations.

* :func:`late_heads`, the scan of :func:`coschedlab.validator._check_easy_head`: for each job
  in queue order that started after it became the head, the jobs running then (kept sorted by
  estimated end) give the shadow time; a start later than it is a violation.
* :func:`first_node_clash`, the whole-node overlap of
  :func:`coschedlab.validator._check_nodes`: the intervals of nodes the jobs held, taken in
  (start, end) order, and on each node the job before; two neighbours that overlap are a
  violation, the one on the lowest node reported.
"""

from libc.math cimport INFINITY
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memmove

import numpy as np

DEF EPS = 1e-9


cdef inline bint _before(double e1, int64_t k1, double e2, int64_t k2) noexcept nogil:
    """(e1, k1) < (e2, k2), as Python compares the tuples."""
    return e1 < e2 or (e1 == e2 and k1 < k2)


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
    const double[::1] prefix,
    const double[::1] t_head,
    const unsigned char[::1] overrun,
    const double[::1] o_est,
    const double[::1] o_end_max,
    const int64_t[::1] by_start,
    const int64_t[::1] by_end,
    passes,
    joined,
    int64_t capacity,
    int max_errors=20,
):
    """The heads EASY delayed, as ``(j, t_head, shadow)`` (``j``: position in queue order),
    at most ``max_errors``. All arrays are in queue order; ``passes`` (each job's start pass)
    and ``joined`` (the pass a released dependant joined in) are int64 arrays or None."""
    cdef Py_ssize_t n = len(start), n_o = len(o_est)
    cdef bint has_passes = passes is not None, has_joined = joined is not None and has_passes
    cdef const int64_t[::1] ps = passes if has_passes else np.zeros(0, dtype=np.int64)
    cdef const int64_t[::1] jn = joined if has_joined else np.zeros(0, dtype=np.int64)
    cdef double *run_est = <double *>malloc(max(n, 1) * sizeof(double))
    cdef int64_t *run_k = <int64_t *>malloc(max(n, 1) * sizeof(int64_t))
    # the jobs taken last by start, all at the latest start so far (``last_start``); those
    # still running after a compaction
    cdef int64_t *latest = <int64_t *>malloc(max(n, 1) * sizeof(int64_t))
    cdef unsigned char *is_running = <unsigned char *>malloc(max(n, 1))
    cdef Py_ssize_t n_run = 0, n_latest = 0, si = 0, ei = 0, j, k, lo, hi, mid, r, i
    cdef int64_t n_overrun = 0, top_pass = -1, head_pass, avail, need, used = 0
    cdef double top = -INFINITY, th, sj, est, shadow, last_start = INFINITY
    cdef list errors = []
    if run_est == NULL or run_k == NULL or latest == NULL or is_running == NULL:
        free(run_est); free(run_k); free(latest); free(is_running)
        raise MemoryError()
    try:
        for j in range(n):
            is_running[j] = 0
        for j in range(n):
            if j and has_passes:
                sj = start[j - 1]
                if sj > top:
                    top, top_pass = sj, ps[j - 1]
                elif sj == top:
                    top_pass = max(top_pass, ps[j - 1])
            th = t_head[j]
            if start[j] <= th + EPS:
                continue
            while si < n and start[by_start[si]] <= th:
                k = by_start[si]
                si += 1
                est = start[k] + req[k]
                lo, hi = 0, n_run  # insort: after the entries before (est, k)
                while lo < hi:
                    mid = (lo + hi) // 2
                    if _before(est, k, run_est[mid], run_k[mid]):
                        hi = mid
                    else:
                        lo = mid + 1
                memmove(&run_est[lo + 1], &run_est[lo], (n_run - lo) * sizeof(double))
                memmove(&run_k[lo + 1], &run_k[lo], (n_run - lo) * sizeof(int64_t))
                run_est[lo], run_k[lo] = est, k
                n_run += 1
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
                    est = start[k] + req[k]
                    lo, hi = 0, n_run  # bisect_left: the entry (est, k) itself
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if _before(run_est[mid], run_k[mid], est, k):
                            lo = mid + 1
                        else:
                            hi = mid
                    memmove(&run_est[lo], &run_est[lo + 1], (n_run - lo - 1) * sizeof(double))
                    memmove(&run_k[lo], &run_k[lo + 1], (n_run - lo - 1) * sizeof(int64_t))
                    n_run -= 1
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
            head_pass = top_pass if has_passes and prefix[j] >= th else -1
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
            r = 0
            while shadow == INFINITY and r < n_run:  # by estimated end, till j fits
                k = run_k[r]
                if not _around(k, j, start[k], th, has_passes, ps, head_pass):
                    avail += nodes[k]
                    if avail >= need:
                        shadow = max(run_est[r], th)
                r += 1
            if start[j] > shadow + EPS:
                errors.append((j, th, shadow))
                if len(errors) >= max_errors:
                    break
    finally:
        free(run_est); free(run_k); free(latest); free(is_running)
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
