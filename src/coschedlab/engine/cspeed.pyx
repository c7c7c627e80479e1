# distutils: language = c++
"""The compiled per-event work of a speed model where a job's speed depends on its neighbours.

:class:`NeighbourSpeed` holds, per running job, its speedup, its compact-seconds of work left
and when they were last set, and recomputes them as jobs arrive beside it or leave (the
ELiSE paper, section 3.5): a job on whole nodes runs at speedup 1; a job sharing nodes runs at
the minimum, over its neighbours on any of its nodes, of its pair speedup beside each
(``m[app][col]``), starting from its spread-alone speedup; when that changes, the work left is
kept and the end moves. The kernel calls :meth:`begin_c`, :meth:`arrived_c` and
:meth:`left_c` and reads :attr:`changes` without a Python call; the neighbours come from the
compiled segments (:class:`~.segments.SharedNodes`). The model's inputs (the heatmap, which
application each job runs) are set by a Python subclass at ``bind``
(:class:`coschedlab.coloc.speed.ColocationSpeed`), through :meth:`_setup`.
"""

from array import array

import numpy as np

from .segments cimport SharedCores

__all__ = ["NeighbourSpeed"]


cdef vector[long] longs_of(object values) except *:
    """A C vector of the integers ``values`` (an array or a sequence), copied at once."""
    cdef const long[::1] a = np.ascontiguousarray(values, dtype=np.int64)
    cdef vector[long] out
    if a.shape[0]:
        out.assign(&a[0], &a[0] + a.shape[0])
    return out


cdef vector[double] doubles_of(object values) except *:
    """A C vector of the numbers ``values`` (an array or a sequence), copied at once."""
    cdef const double[::1] a = np.ascontiguousarray(values, dtype=np.float64)
    cdef vector[double] out
    if a.shape[0]:
        out.assign(&a[0], &a[0] + a.shape[0])
    return out


cdef class NeighbourSpeed:
    """Speeds set by neighbours (module doc); a base class: a subclass sets the inputs."""

    def _setup(self, sim, app, col, rows, alone) -> None:
        """Bind to kernel ``sim`` (shared-core accounting): ``app[j]`` the row of job ``j``'s
        application (-1: unknown, speedup 1), ``col[j]`` its column in ``rows`` (the pair
        speedup of row ``a`` beside job ``j`` is ``rows[a][col[j]]``), ``alone[a]`` the
        spread-alone speedup of row ``a``."""
        cdef SharedCores acct = sim.acct
        cdef long n = sim.n
        self.sh = acct.nodes
        self.cores_ = acct.cores
        self.cpn = acct.cpn
        self.ncol = len(rows[0]) if len(rows) else 0
        self.m_.clear()
        for r in rows:
            for v in r:
                self.m_.push_back(v)
        self.alone_ = list(alone)
        self.app_ = longs_of(app)
        self.col_ = longs_of(col)
        self.speed = array("d", [1.0]) * n
        self.work = array("d", [0.0]) * n
        self.t_upd = array("d", [0.0]) * n
        self.met = array("q", [0]) * n
        self.sp = self.speed
        self.wk = self.work
        self.tu = self.t_upd
        self.mt = self.met
        self.run_ = sim.run_time
        self.start_ = sim.start
        self.req_ = doubles_of(sim.req)
        self.killed_ = sim.killed
        self.cap = bool(sim.kill_at_walltime) and not sim.late_kill

    cdef double target_c(self, long j) except? -1.0:
        cdef long a, k
        cdef double s, v
        cdef const double* row
        if self.cores_[j] == self.cpn:
            return 1.0
        a = self.app_[j]
        if a < 0:
            return 1.0
        s = self.alone_[a]
        row = self.m_.data() + a * self.ncol
        for k in self.sh.neighbours_c(j)[0]:
            v = row[self.col_[k]]
            if v < s:
                s = v
        return s

    cdef double end_c(self, long j) noexcept:
        cdef double end = self.tu[j] + self.wk[j] / self.sp[j], cap
        if self.cap:  # (a late kill is the kernel's)
            cap = self.start_[j] + self.req_[j]
            if end > cap:
                self.killed_[j] = 1
                return cap
            self.killed_[j] = 0
        return end

    cdef double begin_c(self, long j, double now) except? -1.0:
        """Job ``j`` starts at ``now``: its speed beside the jobs there; its end."""
        self.sp[j] = self.target_c(j)
        self.wk[j] = self.run_[j]
        self.tu[j] = now
        return self.end_c(j)

    cdef int arrived_c(self, long j, double now) except -1:
        """After :meth:`begin_c`: ``j`` meets the jobs already there (later arrivals count at
        their start); their moved ends in :attr:`changes`."""
        cdef long k
        self.changes.clear()
        cdef vector[long]* beside = self.sh.neighbours_c(j)
        if beside.size():
            self.mt[j] += beside.size()
            for k in beside[0]:
                self.mt[k] += 1
            self.update_c(j, now, True)
        return 0

    cdef int left_c(self, long j, double now) except -1:
        """Job ``j`` ended (its cores given back): the moved ends of its neighbours."""
        self.changes.clear()
        self.update_c(j, now, False)
        return 0

    cdef int update_c(self, long j, double now, bint arrived) except -1:
        """Neighbours of ``j`` after ``j`` arrived beside them or left them. The speedup is a
        minimum, so an arrival can only lower it to ``m[k][j]`` (no rescan); a departure
        changes it only where ``j`` was the binding neighbour (rescan those)."""
        cdef long k, a, cj = self.col_[j]
        cdef double p, s
        for k in self.sh.neighbours_c(j)[0]:
            a = self.app_[k]
            if a < 0 or self.cores_[k] == self.cpn:
                continue  # compact or unknown application: speedup 1 whatever the neighbours
            p = self.m_[a * self.ncol + cj]
            if arrived:
                if p >= self.sp[k]:
                    continue
                s = p
            else:
                if p > self.sp[k]:
                    continue
                s = self.target_c(k)
            if s != self.sp[k]:
                self.wk[k] -= (now - self.tu[k]) * self.sp[k]
                self.tu[k] = now
                self.sp[k] = s
                self.changes.push_back(pair[long, double](k, self.end_c(k)))  # (no tuple)
        return 0

    # -- the same, from Python (a subclass's own loop: ELiSE's clock) -------------------------
    def target(self, long j) -> float:
        """Speedup job ``j`` has now, given its neighbours."""
        return self.target_c(j)

    def end_time(self, long j, double now) -> float:
        """Job ``j`` starts at ``now``: its end time."""
        return self.begin_c(j, now)

    def on_start(self, long j, double now) -> dict[int, float]:
        """Job ``j`` started; the changed end times of other running jobs."""
        self.arrived_c(j, now)
        return dict(self.changes)

    def on_end(self, long j, double now) -> dict[int, float]:
        """Job ``j`` ended; the changed end times of other running jobs."""
        self.left_c(j, now)
        return dict(self.changes)
