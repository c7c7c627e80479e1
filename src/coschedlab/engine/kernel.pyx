# cython: annotation_typing=False
# distutils: language = c++
"""The event-driven kernel: the clock, the queue and the running jobs (docs/semantics.md).

The kernel owns time and resources; the policy only decides. At every instant the kernel
processes all completions, then all arrivals (and jobs whose dependencies are now met), then
runs ONE scheduling pass: it hands the policy its read-only :class:`~.view.View`, checks and
applies the decisions it returns and asks the speed model when each started job will end. A
job whose run time is zero completes in a new event at the same instant, after the pass, and
that event is followed by another pass. An end time the speed model has moved is not an event:
no pass runs at a superseded end.

Jobs are numbered 0..n-1 in queue order (submit time, then job id). Node accounting (whole
nodes or shared cores) is one :class:`~.accounting.NodeAccounting`; the kernel never branches
on which, except to call the compiled :class:`~.wholenodes.WholeNodes` without a Python call.

Compiled (Cython): the kernel is a C-level class; completions are an indexed binary heap of
``(end, job)`` pairs (a moved end sifted in place); the view's link to the kernel is a C field
(:mod:`.view`).
A built-in scheduler with a compiled pass (:mod:`.cpass`; EASY, fcfs, sjf, firstfit,
conservative and backfill in :mod:`coschedlab.schedulers.passes`) is called directly at each
pass on the kernel's C arrays (the queue in the pass's priority order, the running jobs by
estimated end, nodes and requested times): no Python call and no Python object per pass for
the queue and the running list, which Python sees through the view as read-only sequences.
Other policies get ``schedule(view)`` on the Python lists.

**The gate** (:class:`Gate`, the kernel's one extension point for coupled co-scheduling,
:mod:`coschedlab.coupled`): set before the run, it rules on each job a pass decides to start
(:data:`START`, :data:`HOLD`: take its nodes without starting, :data:`YIELD`: skip it for the
rest of the pass); after a hold or a yield the pass's later decisions are dropped and the
policy is asked again with that job gone. The gate's driver may :meth:`Simulation.demote`
jobs (ordered after all others in the next pass), start or release held jobs and run a pass
hiding some jobs (:meth:`Simulation.pass_now`). The kernel applies all of it to the queue it
presents: demoted jobs last, held and yielded jobs absent. Policies, compiled or Python, see
only that queue and know nothing of coupling (the view has no gate field).
"""

from __future__ import annotations

import math
from array import array
from copy import copy
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from heapq import heappop, heappush
from numbers import Integral
from time import perf_counter
from typing import Any, Protocol

cimport cython
from cpython cimport array as carray
from cpython.buffer cimport PyBUF_FULL_RO, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.exc cimport PyErr_CheckSignals
from cython.operator cimport dereference as deref
from libc.math cimport INFINITY, pow
from libcpp.algorithm cimport lower_bound, sort, upper_bound
from libcpp.queue cimport priority_queue
from libcpp.string cimport string, to_string
from libcpp.utility cimport pair
from libcpp.vector cimport vector

import numpy as np

from ..errors import InputError, failure_where, source_line
from ..jobs import Workload, dep_arrays
from ..platform import Cluster
from .accounting import NodeAccounting
from .cpass cimport (
    CUSTOM, FCFS, LXF, OWN, SJF, CompiledPass, Est, EstList, PassState
)
from .wholenodes cimport WholeNodes
from .segments cimport SharedCores
from .cspeed cimport NeighbourSpeed
from .cshared cimport SharedPass, Starter
from .view cimport MachineView, View, frozen_over
from .placement import Placement
from .speed import SpeedModel
from .watchdog import MIN_WAKE_STEP, _Stop, check_wake_limit

NAN = math.nan
INF = math.inf
#: a compiled pass that may wake at every tick of a clock (:meth:`Simulation._check_ticks`)
#: may do so at most this many times in a run (10^8 passes: over a minute; a coupled run on a
#: 9e9-s wait, 3 x 10^8 ticks, ran past 300 s)
MAX_TICKS = 1e8

_append = list.append
_insert = list.insert
_delitem = list.__delitem__
_clear = list.clear
_setitem = list.__setitem__


class SchedulerError(InputError):
    """A policy made an impossible decision (a bug in the policy, reported to its author)."""


def policy_failure(
    describe: str, now: float, exc: BaseException, when: str | None = None
) -> InputError:
    """An exception (or ``sys.exit``) raised by a policy's ``schedule`` (or, ``when`` given,
    its ``setup``: ``"at set-up"``), as one line naming the policy, the simulated time and
    where it was raised: the deepest frame outside coschedlab (the user's file and line), else
    the deepest frame."""
    if isinstance(exc, InputError):
        return exc
    where = failure_where(exc)
    try:
        text = f"exit({exc.code!r}) called" if isinstance(exc, SystemExit) else str(exc)
    except Exception as inner:  # an exception whose __str__ (or code's __repr__) raises
        text = f"(its message cannot be printed: {type(inner).__name__})"
    what = text if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {text}"
    at = f"at t={now:g}" if when is None else when
    return SchedulerError(f"scheduler {describe} failed {at}: {what}", where)


#: what a policy's call lets through unchanged: Ctrl-C (exit code 130), and the pass time
#: limit's own interruption (its wrapper turns it into the limit's error); anything else a
#: policy raises, ``BaseException`` subclasses too, is the policy's failure (one line)
_PASSED_ON = (KeyboardInterrupt, _Stop)


cdef inline long _as_long(object i) noexcept:
    """Int ``i`` as a C long, -1 when it is outside one (no job has that index)."""
    try:
        return i
    except OverflowError:
        return -1


#: gate verdicts (:class:`Gate`)
START, HOLD, YIELD = 0, 1, 2


class Gate(Protocol):
    """Decides, for each job a pass picks, whether it starts now (module docstring)."""

    def decide(self, j: int) -> int:
        """:data:`START`, :data:`HOLD` (take its nodes, do not start) or :data:`YIELD`."""
        ...

    def held(self, j: int) -> float:
        """Job ``j`` now holds its nodes (just taken); when they are expected back (what
        policies see in ``view.est_sorted``; ``inf``: unknown, not shown)."""
        ...


class Policy(Protocol):
    """What the kernel needs from a scheduler (:class:`coschedlab.schedulers.Scheduler`)."""

    def setup(self, view: View) -> None: ...
    def schedule(self, view: View) -> Iterable[int | Placement] | None: ...
    def describe(self) -> str: ...


ctypedef pair[double, long] Entry  # (end, j): the heap pops the earliest end, lowest j


cdef class Simulation:
    """One simulation run of ``workload`` on ``cluster`` under ``scheduler``.

    ``kill_at_walltime`` ends a job at its requested time when it would run longer (off by
    default, so jobs that overrun their estimate keep running). ``"next-event"`` ends it at the
    first event at or after its requested time instead, as ELiSE's code does
    (``compengine.goto_next_sim_state`` checks the limit only when time advances): an event is
    a submission (or a dependant's release into the queue) or a job's end, its own natural end
    included. A policy's wake-up (:meth:`.view.View.wake_at`: Slurm's main and backfill ticks)
    is not one: ELiSE's loop has no timers, so a late job keeps running through a wake-up's
    pass, whether the pass runs or is skipped (a compiled pass's look-ahead over quiet ticks);
    ELiSE's clock (:class:`~coschedlab.coloc.elise.clock.EliseClockSimulation`) follows the
    same rule.
    ``shared_nodes`` turns on per-node core accounting (co-location): policies may then return
    :class:`~.placement.Placement` decisions that share nodes; ``free`` still counts idle
    nodes, so whole-node policies work unchanged.
    ``dependencies`` enforces the SWF preceding-job fields (17 and 18): a job starts no earlier
    than its preceding job's end plus its think time (explicit ``Workload.deps`` are always
    enforced, with no think time).
    ``progress(done, total)`` is called every few thousand completions.
    ``wake_limit`` (default :data:`.watchdog.WAKE_LIMIT`; 0: none): the most passes in a row
    that only the policy's wake-ups bring, starting nothing, less than
    :data:`.watchdog.MIN_WAKE_STEP` apart on average (a livelock: a policy waking itself at
    ``now + 1e-9`` again and again); more stop the run with a :class:`SchedulerError` naming
    ``--wake-limit``. Wake-ups a millisecond or more apart on average never stop a run: a
    policy waking every second over a week-long idle gap runs as before.
    ``until`` stops the run at that time (a fixed simulated period, as the WoAS authors'
    Slurm simulator ran): events after it are not processed; jobs not started by then keep a
    NaN start and end, running jobs their planned end; :attr:`truncated` says whether any job
    was cut off.
    """

    cdef public object workload, cluster, scheduler, kill_at_walltime, speed_model, progress
    cdef public object order, killed, _deadlines, ids, submit, req, nodes, procs, duration
    cdef public object run_time, input_run, start, end, reservation, start_pass, start_order
    cdef public object end_order
    cdef public object acct, queue, joined, est_sorted, _started_in_pass, gate, held
    cdef public object _hold_est, _hidden, _finished, _releases, _queued, _arrived
    cdef public object _low, _lowjobs
    cdef public object think, _parents
    # dependencies (:meth:`_index_deps`): per job its parents left and when it may start (its
    # last parent's end + think time); each job's dependents (CSR: ``_dptr[j]..._dptr[j+1]``
    # of ``_didx``), in the order the parents were given
    cdef bint _has_deps
    cdef vector[long] _cleft, _dptr, _didx
    cdef vector[double] _cready, _cthink  # (``_cthink`` empty: no think time)
    cdef dict __dict__
    cdef public double now, until, wall_time, _t0
    cdef public long n, passes, epoch, completed, ignored_dependencies, _arr_i, wake_limit
    cdef public bint late_kill, _moving_ends, truncated, _rerun, _tailed, in_order
    # completions: an indexed binary min-heap of (end, j), one entry per running job; _hpos[j]
    # its position (-1: none), so a moved end is sifted in place (no stale entries)
    cdef vector[Entry] _heap
    cdef vector[long] _hpos
    cdef priority_queue[double] _timers  # wake-ups asked for, negated (the top is the first)
    cdef vector[long] _hook_mark  # _hook_jobs's stamps per job (a repeat: its stamp again)
    cdef long _hook_stamp
    cdef carray.array _sorder  # ``start_order`` itself, appended to in C
    cdef carray.array _eorder  # ``end_order`` itself
    cdef WholeNodes _whole  # the accounting when it is whole nodes (None: shared cores)
    cdef View _view
    # a compiled policy (:mod:`.cpass`): the queue and the running jobs live in C arrays only
    cdef CompiledPass _cpass  # None: a Python policy (the Python lists above are the state)
    cdef bint _c  # the queue and running list live in C arrays (the compiled pass's own run)
    cdef bint _bridge  # a compiled pass in a run that keeps the Python lists (ELiSE's clock)
    cdef vector[long] _cq  # waiting jobs, ascending index (= queue order)
    cdef vector[long] _cord  # the queue as presented to the pass (its order, demoted last)
    cdef long _nord  # how many jobs the pass is shown
    cdef vector[pair[double, long]] _ckeyed
    cdef EstList _cest  # running jobs (start + requested, j), sorted
    # the compiled pass keeps its own running jobs (``CompiledPass.own_running``): ``_cest``
    # is not kept as jobs start and end but sorted when read (``_running``), when stale
    cdef bint _lazy_est, _est_stale
    cdef vector[long] _cstarted
    cdef vector[long] _cjoined, _cended  # since the compiled pass's last call (PassState)
    cdef vector[long] _pjoined  # a placing pass asked again: the jobs joined in this pass
    # per job: nodes, requested time, submit time for the compiled pass: the view's tables
    # themselves (``nodes``, ``req``, ``submit``: read-only buffers the kernel holds), no copies
    cdef const long long[::1] _mnodes
    cdef const double[::1] _mreq, _msubmit
    cdef const long* _cnodes
    cdef const double* _creq
    cdef const double* _csubmit
    cdef double[::1] _cresv
    # per job: start, end (NaN before), the engine's actual durations (C views of the arrays
    # ``start``, ``end``, ``duration``)
    cdef double[::1] _st, _en, _du
    cdef long long[::1] _sp  # per job: the pass that started it
    cdef bint _dynamic  # the speed model's ``dynamic`` (its calls at each start and end)
    # co-location, compiled: the shared-core accounting and a neighbour speed model whose
    # per-event work the kernel calls in C (None: the Python calls above)
    cdef SharedCores _shared
    cdef NeighbourSpeed _cspeed
    cdef bint _cshared  # the compiled pass starts its jobs itself (:class:`.cshared.SharedPass`)

    @property
    def view(self) -> View:
        """The policy's read-only view."""
        return self._view


    def __init__(
        self,
        workload: Workload,
        cluster: Cluster,
        scheduler: Policy,
        *,
        kill_at_walltime: bool | str = False,
        speed_model: SpeedModel | None = None,
        progress: Callable[[int, int], None] | None = None,
        shared_nodes: bool = False,
        dependencies: bool = False,
        until: float | None = None,
        wake_limit: int | None = None,
    ) -> None:
        self.workload = workload
        self.cluster = cluster
        self.scheduler = scheduler
        if kill_at_walltime not in (False, True, "next-event"):
            raise InputError(
                f"kill_at_walltime must be True, False or 'next-event', got {kill_at_walltime!r}"
            )
        self.kill_at_walltime = kill_at_walltime
        #: ELiSE's late kill: a job past its requested time ends at the next event
        self.late_kill = kill_at_walltime == "next-event"
        self.speed_model = speed_model or SpeedModel()
        #: ends can be superseded (moved by the speed model, or cut by a late kill): a stale
        #: heap entry is no event
        self._dynamic = self.speed_model.dynamic
        self._moving_ends = self._dynamic or self.late_kill
        self.progress = progress
        if until is not None and not (isinstance(until, int | float) and until == until):
            raise InputError(f"until must be a time in seconds, got {until!r}")
        self.until = INF if until is None else float(until)
        self.wake_limit = check_wake_limit(wake_limit)
        self.truncated = False
        n = len(workload)
        self.n = n
        cols = workload.columns
        order = np.lexsort((cols["id"], cols["submit"]))
        self.order = order
        # a trace already in queue order (most are): the workload's columns themselves (the
        # per-job tables below are read-only views of them), not copies
        in_order = _identity(order)
        #: the workload's rows are in queue order already (``order`` is 0, 1, ..., n - 1)
        self.in_order = in_order

        def queued_order(a):
            return a if in_order else a[order]

        ids = queued_order(cols["id"])
        procs = queued_order(cols["procs"])
        if n and procs.min() <= 0:
            bad = int(ids[np.argmin(procs)])
            raise InputError(f"job {bad} asks for {int(procs.min())} processors")
        # (one-core nodes: the processors are the nodes, one table, not a copy)
        nodes = procs if cluster.cores_per_node == 1 else -(-procs // cluster.cores_per_node)
        if n and nodes.max() > cluster.nodes:
            k = int(np.argmax(nodes))
            raise InputError(
                f"job {int(ids[k])} needs {int(nodes[k])} nodes ({int(procs[k])} processors); "
                f"the cluster has {cluster.nodes} nodes of {cluster.cores_per_node} cores"
            )
        run = queued_order(cols["run"])
        req = queued_order(cols["requested_time"])
        submit = queued_order(cols["submit"])
        for name, arr in (("submit", submit), ("run time", run), ("requested time", req)):
            if n and not (np.isfinite(arr).all() and arr.min() >= 0):
                k = int(np.argmin(np.where(np.isfinite(arr), arr, -np.inf)))
                raise InputError(f"job {int(ids[k])} has {name} {arr[k]!r}")
        at_limit = bool(kill_at_walltime) and not self.late_kill
        duration = np.minimum(run, req) if at_limit else run
        self.killed = bytearray((run > req).tobytes() if at_limit else bytes(n))
        self._deadlines: list[tuple[float, int]] = []  # late kill: (start + requested, j)
        # what policies may see: read-only per-job arrays (indexing gives Python ints and
        # floats; a C array per table, not a Python object per job)
        self.ids = _read_only(ids, np.int64)
        self.submit = _read_only(submit, np.float64)
        self.req = _read_only(req, np.float64)
        self.nodes = _read_only(nodes, np.int64)
        self.procs = _read_only(procs, np.int64)
        # what only the engine sees: actual run times
        #: the input's run times as read, before any pass (immutable): the result's validator
        #: compares each job's run with them (a run whose durations were changed fails)
        self.input_run = np.ascontiguousarray(run, dtype=np.float64).tobytes()
        self.run_time = memoryview(self.input_run).cast("d")  # (read-only, the same bytes)
        self.duration = array("d", [0.0]) * n  # (the durations copied in: no bytes between)
        if n:
            np.frombuffer(self.duration, dtype=np.float64)[:] = duration
        self.start = array("d", [NAN]) * n
        self.end = array("d", [NAN]) * n
        self._st = self.start
        self._en = self.end
        self._du = self.duration
        self.reservation = array("d", [NAN]) * n
        self.start_pass = array("q", [-1]) * n
        self._sp = self.start_pass
        self.start_order = array("q")  # jobs in the order they started (within a pass too)
        self._sorder = self.start_order
        self.end_order = array("q")  # jobs in the order they ended (at one time, as they came)
        self._eorder = self.end_order
        self.acct: NodeAccounting = (
            SharedCores(cluster, n) if shared_nodes else WholeNodes(cluster, n)
        )
        # the Python lists (the view shows each as a FrozenList over it, :meth:`_make_view`)
        self.queue = []
        self.joined = []  # jobs that joined the queue since the last pass
        self.est_sorted = []
        self.now = 0.0
        self._started_in_pass: list[int] = []
        self.passes = 0
        #: decides, per job a pass picks, whether it starts, holds its nodes or yields
        #: (:data:`START`, :data:`HOLD`, :data:`YIELD`); None: every decision starts
        self.gate: Gate | None = None
        #: jobs the next pass presents last (:meth:`demote`): a flag per job and the list
        self._low = bytearray(n)
        self._lowjobs: list[int] = []
        self._tailed = False  # the Python queue is presented with the demoted jobs last
        self.held: dict[int, float] = {}  # job -> time its hold began
        self._hold_est: dict[int, float] = {}  # held job -> its entry in est_sorted
        #: changes of the queue or nodes by the kernel other than arrivals, completions and
        #: the pass's own starts (a gate's holds, yields, releases, starts of held jobs): the
        #: compiled passes key their memos on it (``PassState.epoch``)
        self.epoch = 0
        self._hidden: list[int] = []  # jobs that yielded in this pass
        self._arr_i = 0  # the next arrival (the loop's own counter, published for _next_time)
        self._finished = bytearray(0)
        self._rerun = False
        self.completed = 0
        self.wall_time = NAN
        self._releases: list[tuple[float, int]] = []  # (time, j): dependencies met, think time
        self._queued = bytearray(n)
        self._arrived = bytearray(n)
        self._parents = None  # (pptr, pidx): each job's parents, sorted (CSR), or None
        self.think: dict[int, float] = {}
        self.ignored_dependencies = 0
        self._has_deps = False
        self._index_deps(workload, dependencies)
        self._whole = self.acct if isinstance(self.acct, WholeNodes) else None
        self._shared = self.acct if isinstance(self.acct, SharedCores) else None
        self._view = self._make_view()

    # -- set-up -------------------------------------------------------------------------------
    def _index_deps(self, workload: Workload, swf: bool) -> None:
        """Parents of every job (queue indices): explicit ``deps`` and, with ``swf``, the
        preceding job of SWF field 17 with the think time of field 18 (arrays, no Python
        object per job; the per-job tables written once each, in C, the pairs sorted as
        small arrays)."""
        cdef long n = self.n, k, m, j, i
        cdef const long long[::1] pv, cv, fs, byp
        cdef long long[::1] pp
        cdef const double[::1] th
        cdef bint forward = True
        if not workload.deps and not swf:
            return
        index_of = id_index(workload.columns["id"], None if self.in_order else self.order)
        # (child, parent) pairs in the order given: deps (Workload checked their ids), then
        # the SWF preceding jobs
        child_ids, lens, parent_ids = dep_arrays(workload.deps)
        child = np.repeat(index_of(child_ids)[0], lens)
        parent = index_of(parent_ids)[0]
        think = None
        if swf:
            order = self.order
            prec = workload.columns["preceding"][order]
            tt = workload.columns["think_time"][order]
            ks = np.flatnonzero(prec >= 0)
            ps, known = index_of(prec[ks])
            self_wait = known & (ps == ks)
            bad_think = known & ~self_wait & (tt[ks] < 0) & (tt[ks] != -1)
            first = np.flatnonzero(self_wait | bad_think)
            if len(first):  # the first offending job in queue order, as a scan would find
                i = int(first[0])
                k = int(ks[i])
                if self_wait[i]:  # the shortest dependency cycle: refused as longer ones are
                    raise InputError(
                        f"job {self.ids[k]} waits for itself (its preceding job is itself): "
                        "it could never start",
                        where=workload.source,
                    )
                raise InputError(
                    f"job {self.ids[k]} has a think time of {tt[k]:g} s: -1 (unknown) "
                    "or a time >= 0",
                    where=workload.source,
                )
            self.ignored_dependencies += int((~known).sum())  # before the trace, or dropped
            ks, ps = ks[known], ps[known]
            child = np.concatenate([child, ks])
            parent = np.concatenate([parent, ps])
            pos_think = ks[tt[ks] > 0]
            if len(pos_think):
                think = np.zeros(n)
                think[pos_think] = tt[pos_think]
                self.think = dict(zip(pos_think.tolist(), think[pos_think].tolist()))
        if not len(child):
            return
        # the pairs (small arrays): once each, sorted by child then parent; each pair's
        # child's first place among the pairs given (the order a job's dependents are
        # released in); then by parent, each parent's dependents in that order
        child = child.astype(np.int64, copy=False)
        parent = parent.astype(np.int64, copy=False)
        by_child = np.argsort(child, kind="stable")
        c_sorted = child[by_child]
        starts = np.concatenate([[True], c_sorted[1:] != c_sorted[:-1]])
        first_at = np.maximum.accumulate(np.where(starts, np.arange(len(child)), 0))
        first_seen = np.empty(len(child), np.int64)
        first_seen[by_child] = by_child[first_at]  # (the stable sort: the first given)
        pairs = np.lexsort((parent, child))
        keep = np.concatenate(
            [[True], (child[pairs[1:]] != child[pairs[:-1]])
             | (parent[pairs[1:]] != parent[pairs[:-1]])]
        )  # fmt: skip
        pairs = pairs[keep]
        c, p = child[pairs], parent[pairs]
        by_parent = np.lexsort((first_seen[pairs], p))
        cv, pv, byp = c, p, by_parent
        m = len(pairs)
        # each child's parents (CSR over the pairs sorted by child) and the parents left; each
        # parent's dependents (CSR): one pass each over the pairs, one table per job each
        pptr = np.empty(n + 1, np.int64)
        pp = pptr
        self._cleft.assign(n, 0)
        self._dptr.assign(n + 1, 0)
        for k in range(m):
            self._cleft[cv[k]] += 1
            self._dptr[pv[k] + 1] += 1
            forward = forward and pv[k] < cv[k]
        pp[0] = 0
        for j in range(n):
            pp[j + 1] = pp[j] + self._cleft[j]
            self._dptr[j + 1] += self._dptr[j]
        self._parents = (pptr, p)
        self._didx.resize(m)
        for k in range(m):
            self._didx[k] = cv[byp[k]]
        self._cready.assign(n, 0.0)
        if think is not None:  # (no think time: none kept, :meth:`_release_dependents`)
            th = think
            self._cthink.assign(n, 0.0)
            for k in range(n):
                self._cthink[k] = th[k]
        self._has_deps = True
        if not forward:  # (every parent before its child in the queue: no cycle)
            self._check_acyclic()

    @property
    def parents(self) -> dict[int, tuple[int, ...]]:
        """Each job's parents (queue indices, sorted), for the jobs that have any."""
        if self._parents is None:
            return {}
        pptr, pidx = self._parents
        has = np.flatnonzero(pptr[1:] > pptr[:-1])
        return {
            int(j): tuple(pidx[pptr[j] : pptr[j + 1]].tolist()) for j in has.tolist()
        }

    def _check_acyclic(self) -> None:
        """An :class:`~coschedlab.errors.InputError` naming the jobs of a dependency cycle
        (none of them could ever start), before the run rather than at its end."""
        cdef vector[long] left = self._cleft
        cdef vector[long] ready
        cdef long j, d, i, n = self.n, seen = 0
        for j in range(n):
            if not left[j]:
                ready.push_back(j)
        while not ready.empty():
            j = ready.back()
            ready.pop_back()
            seen += 1
            for i in range(self._dptr[j], self._dptr[j + 1]):
                d = self._didx[i]
                left[d] -= 1
                if not left[d]:
                    ready.push_back(d)
        if seen == n:
            return
        parents = self.parents
        j = next(k for k in range(n) if left[k])
        path: list[int] = []
        on_path: dict[int, int] = {}
        while j not in on_path:  # walk up through parents that are also stuck: a cycle
            on_path[j] = len(path)
            path.append(j)
            j = next(p for p in parents[j] if left[p])
        cycle = [self.ids[k] for k in path[on_path[j] :]] + [self.ids[j]]
        raise InputError(
            f"jobs {' -> '.join(map(str, cycle))} wait for each other (a dependency cycle): "
            f"{n - seen} jobs could never start",
            where=self.workload.source,
        )

    def _table(self, name: str) -> tuple[int, ...]:
        """A workload column in queue order as a per-job tuple for the view (one int object
        per distinct value, so a million-job table costs a pointer per job)."""
        col = self.workload.columns[name]
        if not len(col):
            return ()
        if (col == col[0]).all():  # one value (a column the workload does not give)
            return (col[0].item(),) * len(col)
        values, index = np.unique(col[self.order], return_inverse=True)
        ints = values.tolist()
        return tuple(map(ints.__getitem__, index.tolist()))

    def _make_view(self) -> View:
        sm = self.speed_model
        predicted = getattr(sm, "predicted", None)
        cdef View v = View.__new__(View)
        v._kernel = self
        v._predicted = predicted
        v.now = 0.0
        v.free = self.acct.idle
        v.queue = frozen_over(self.queue)  # (read-only faces of the kernel's lists)
        v.joined = frozen_over(self.joined)
        v.queued = _sealed(self._queued)
        # memoryviews of the view's own (the same read-only memory): a policy's
        # ``view.req.release()`` released the kernel's, which it reads to the end
        v.submit = memoryview(self.submit)
        v.req = memoryview(self.req)
        v.nodes = memoryview(self.nodes)
        v.procs = memoryview(self.procs)
        v.ids = memoryview(self.ids)
        # apps, users, groups, queues, partitions: made on a policy's first read (_table)
        v.start = _sealed(self.start)
        v.est_sorted = frozen_over(self.est_sorted)
        v.machine = MachineView(self.acct, self.cluster, self.n)
        v.cluster = copy(self.cluster)  # the run's own is no policy's (its metrics use it)
        v.n = self.n
        v.completed = 0
        v.has_dependencies = self._has_deps
        v.coloc = None
        v.remaining = v._remaining if getattr(self.scheduler, "clairvoyant", False) else None
        return v

    # -- the policy's actions ------------------------------------------------------------------
    def _remaining(self, j: int) -> float:
        """Time running job ``j`` has left (a clairvoyant policy's view only)."""
        if self.start[j] != self.start[j] or self._finished[j]:
            raise SchedulerError(f"job {self.ids[j]} is not running")
        return self.end[j] - self.now

    def _wake_at(self, double t) -> None:
        """A pass at ``t`` (a policy's :meth:`.view.View.wake_at`); none in the past."""
        self._wake_c(t)

    cdef inline void _wake_c(self, double t) noexcept:
        if self.now < t < INFINITY:  # (inf: never)
            self._timers.push(-t)

    cdef inline double _first_timer(self) noexcept:
        return -self._timers.top() if not self._timers.empty() else INFINITY

    def _timer_after(self, double t) -> float:
        """For an event loop of its own (ELiSE's clock): the wake-ups the policy asked for at
        or before ``t`` are spent; the first one after ``t`` (inf: none)."""
        while not self._timers.empty() and -self._timers.top() <= t:
            self._timers.pop()
        return self._first_timer()

    def _record_reservation(self, j: int, t: float) -> None:
        if self.reservation[j] != self.reservation[j]:  # NaN: first one only
            self.reservation[j] = t

    def _ordered(self, key: Any) -> Any:
        """The queue as presented (demoted jobs last), each part sorted by ``key(view, j)``
        (None: as presented)."""
        cdef View view = self._view
        q = view.queue
        if not self._lowjobs:
            return q if key is None else sorted(q, key=lambda j: key(view, j))
        low = self._low
        if key is None:  # the Python queue is presented so during a pass; the C one is not
            return q if self._tailed else sorted(q, key=lambda j: low[j])
        return sorted(q, key=lambda j: (low[j], key(view, j)))

    def _start_now(self, decision: int | Placement) -> None:
        if self.gate is None:
            self._apply_one(decision)
        elif self._gated(decision):
            self._rerun = True
        self._view.free = self.acct.idle

    def release(self) -> None:
        """Break the kernel <-> view reference cycle once the run's result is made: the kernel's
        per-job state is freed as soon as the last reference to it goes, not at the next
        garbage collection (hundreds of MB for a million jobs). The view cannot act after."""
        cdef View v = self._view
        if v is not None:
            v._kernel = None
            if isinstance(v.queue, CQueue):  # a compiled pass's sequences over the C arrays
                (<CQueue>v.queue)._sim = None
            if isinstance(v.est_sorted, CRunning):
                (<CRunning>v.est_sorted)._sim = None
        if getattr(self.speed_model, "sim", None) is self:
            self.speed_model.sim = None

    # -- the run ------------------------------------------------------------------------------
    def run(self) -> Simulation:
        """Run to the end: every job starts and ends. Returns ``self``."""
        for _ in self._loop(False):  # a solo run never yields
            pass
        return self.conclude()

    def stepper(self) -> Stepper:
        """This run driven instant by instant from outside (several domains on one clock,
        :mod:`coschedlab.coupled`): see :class:`Stepper`."""
        return Stepper(self)

    # -- the completion heap: entries (end, j), an indexed min-heap (_hpos[j]: j's slot) ------
    cdef inline void _hset(self, long i, Entry e) noexcept:
        self._heap[i] = e
        self._hpos[e.second] = i

    cdef void _push(self, double t, long j) noexcept:
        """Job ``j``'s end is now ``t``: its entry is added, or moved in place."""
        cdef long i, p
        cdef Entry e = Entry(t, j)
        if <long>self._hpos.size() <= j:
            self._hpos.resize(self.n if self.n > j else j + 1, -1)
        i = self._hpos[j]
        if i < 0:
            i = self._heap.size()
            self._heap.push_back(e)
        elif self._heap[i] < e:  # later: sift down
            self._sift_down(i, e)
            return
        while i > 0:  # new or earlier: sift up
            p = (i - 1) >> 1
            if not (e < self._heap[p]):
                break
            self._hset(i, self._heap[p])
            i = p
        self._hset(i, e)

    cdef void _pop(self) noexcept:
        """Remove the top entry."""
        cdef Entry e = self._heap.back()
        self._hpos[self._heap[0].second] = -1
        self._heap.pop_back()
        if not self._heap.empty():
            self._sift_down(0, e)

    cdef inline void _sift_down(self, long i, Entry e) noexcept:
        """Put ``e`` at slot ``i`` or below it: each smaller child moves up in its place."""
        cdef long p, n = self._heap.size()
        while True:
            p = 2 * i + 1
            if p >= n:
                break
            if p + 1 < n and self._heap[p + 1] < self._heap[p]:
                p += 1
            if not (self._heap[p] < e):
                break
            self._hset(i, self._heap[p])
            i = p
        self._hset(i, e)

    cdef inline double _top_t(self) noexcept:
        return self._heap[0].first if not self._heap.empty() else INFINITY

    cdef inline long _top_j(self) noexcept:
        return self._heap[0].second

    cdef void _drop_stale(self) noexcept:
        """Pop the ends of jobs that ended otherwise (a moved end is sifted in place)."""
        cdef bytearray finished = self._finished
        while not self._heap.empty() and finished[self._heap[0].second]:
            self._pop()

    cdef inline double _next_event(self, double t) except? -1:
        """The earliest of ``t`` (the next arrival), the next completion and the next
        dependant's release: an event of ELiSE's loop (a wake-up is not one)."""
        cdef list releases = self._releases
        if self._top_t() < t:
            t = self._top_t()
        if releases and releases[0][0] < t:
            t = releases[0][0]
        return t

    def _next_time(self) -> float:
        """The next event: an arrival, a completion, a wake-up or a dependant's release."""
        if self._moving_ends:  # a superseded end is not an event
            self._drop_stale()
        i = self._arr_i
        return min(self._next_event(self.submit[i] if i < self.n else INF), self._first_timer())

    def only_timers_left(self) -> bool:
        """No completion, arrival or dependency release is pending: only wake-ups (a policy's
        timers) could make an event. Meaningful between instants of a stepped run."""
        self._next_time()  # drops superseded completions
        return self._heap.empty() and self._arr_i >= self.n and not self._releases

    def conclude(self) -> Simulation:
        """The end-of-run checks (a queue left on an idle machine, jobs never eligible) and
        the wall time; called by :meth:`run`, or by the driver of a :meth:`stepper`."""
        self.wall_time = perf_counter() - self._t0
        if self.truncated:
            return self
        queue, n, done = self._view.queue, self.n, self.completed
        if len(queue):
            j = queue[0]
            raise SchedulerError(
                f"scheduler {self.scheduler.describe()} left {len(queue)} jobs waiting on an "
                f"idle machine (first: job {self.ids[j]} needing {self.nodes[j]} nodes)"
            )
        if done != n:
            raise SchedulerError(f"{n - done} jobs never became eligible (dependency cycle?)")
        if self.progress is not None:
            self.progress(done, n)
        return self

    def _loop(self, stepped: bool):  # noqa: ANN202  (a generator; see Stepper)
        """The event loop, once. A solo run (``stepped`` false) never yields. Stepped, each
        instant is two exchanges with the driver: the loop yields its next event time and
        receives the instant ``t`` to process (no later than that); it processes the
        completions and arrivals at ``t``, yields whether it had any, and receives whether to
        run its scheduling pass now."""
        self._prepare()
        cdef long n = self.n, done, step, next_report, arr_i, j, events = 0
        cdef double t, e, ev, until, own = INFINITY, quiet_t0 = 0.0
        cdef long quiet = 0, quiet_starts = 0, wake_limit = self.wake_limit
        cdef bint dynamic
        cdef const double[::1] submit = self.submit
        cdef double[::1] cur_end
        cdef bytearray finished, queued, arrived, killed
        cdef list releases, deadlines, lowjobs  # (their truth tested in C at each event)
        releases = self._releases
        queue = self.queue
        joined = self.joined
        queued = self._queued
        arrived = self._arrived
        cdef bint has_deps = self._has_deps
        progress = self.progress
        done = 0
        step = max(64, min(4096, n // 200))
        next_report = step
        arr_i = 0
        cur_end = self._en  # the speed model may move an end (sifted in place)
        finished = bytearray(n)
        dynamic = self._moving_ends
        whole = self._whole
        deadlines = self._deadlines
        killed = self.killed
        self._finished = finished
        next_time = self._next_time
        until = self.until
        gate = self.gate  # set before the run (a coupled system's), never during it
        one_pass = self._one_pass
        lowjobs = self._lowjobs
        c = self._c
        while True:
            # Ctrl-C: a compiled pass and this loop run no bytecode, so the interpreter would
            # see a SIGINT only at the next progress report; check at each event (a flag
            # read), and let other threads run (watchers, progress) every 256 events
            PyErr_CheckSignals()
            events += 1
            if not events & 255:
                with nogil:
                    pass
            # the next event (:meth:`_next_event` and the first wake-up, written out: this runs
            # once per event)
            if dynamic:  # a superseded end is not an event
                self._drop_stale()
            t = <double>submit[arr_i] if arr_i < n else INFINITY
            if self._top_t() < t:
                t = self._top_t()
            if releases and releases[0][0] < t:
                t = releases[0][0]
            ev = t  # the next arrival, completion or release (not a wake-up)
            if self._first_timer() < t:
                t = self._first_timer()
            if stepped:
                self._arr_i = arr_i
                t = yield t
                # another system's pass may have started a job here since: look again
                own = next_time()
                ev = self._next_event(<double>submit[arr_i] if arr_i < n else INFINITY)
            elif t == INFINITY:
                break
            elif t > until:
                self.truncated = True
                break
            self.now = t
            # 0. ELiSE's late kill: jobs past their requested time end at this event (and
            # count as killed, as ELiSE marks them, even when their work ends now too); an
            # arrival, completion or release, not a policy's wake-up (ELiSE has no timers)
            while deadlines and deadlines[0][0] <= t and ev <= t:
                j = heappop(deadlines)[1]
                if not finished[j] and cur_end[j] >= t:
                    killed[j] = 1
                    if cur_end[j] > t:
                        cur_end[j] = t
                        self._push(t, j)
            # 1. all completions at t
            while not self._heap.empty() and self._top_t() == t:
                j = self._top_j()
                self._pop()
                if dynamic and finished[j]:
                    continue
                self._finish_c(j, t)
                finished[j] = 1
                done += 1
            # 2. all arrivals at t, and jobs whose think time after their parents is over
            while arr_i < n and submit[arr_i] == t:
                j = arr_i
                arr_i += 1
                arrived[j] = 1
                if not has_deps or self._cleft[j] == 0:
                    if has_deps and self._cready[j] > t:
                        heappush(releases, (self._cready[j], j))
                    elif c:
                        self._cq.push_back(j)
                        self._cjoined.push_back(j)
                        queued[j] = 1
                    else:
                        _append(queue, j)
                        _append(joined, j)
                        queued[j] = 1
            while releases and releases[0][0] <= t:
                j = heappop(releases)[1]
                if c:
                    self._c_enqueue(j)
                else:
                    _insert(queue, bisect_right(queue, j), j)
                    _append(joined, j)
                queued[j] = 1
            if t < ev:  # no arrival, completion or release at t: a wake-up, or another's t
                if wake_limit and self._first_timer() <= t:  # the policy's own (livelock?)
                    if quiet == 0:
                        quiet_t0 = t
                        quiet_starts = len(self.start_order)
                    quiet += 1
                    if quiet > wake_limit:
                        self._livelock(quiet_t0, t, quiet_starts)
                        quiet = 0
            else:
                quiet = 0
            while not self._timers.empty() and -self._timers.top() <= t:
                self._timers.pop()
            # 3. one scheduling pass
            if stepped and not (yield t == own):
                continue
            if c:
                if not self._cq.empty():
                    if gate is None and not lowjobs:
                        self._arr_i = arr_i
                        self._c_pass(t)
                    else:
                        self._arr_i = arr_i
                        one_pass(t)
            elif queue:
                one_pass(t)
            if progress is not None and done >= next_report:
                progress(done, n)
                next_report = done + step

    def _livelock(self, double t0, double t, long started) -> None:
        """After :attr:`wake_limit` passes in a row from ``t0`` to ``t`` brought by the
        policy's wake-ups alone (``started`` jobs had started at the first): a livelock, an
        error, when nothing started and the clock advanced less than :data:`MIN_WAKE_STEP`
        per pass on average; else nothing (the count starts again)."""
        cdef long k = self.wake_limit
        if len(self.start_order) != started or t - t0 >= k * MIN_WAKE_STEP:
            return
        raise SchedulerError(
            f"scheduler {self.scheduler.describe()}: {k:,} passes in a row from t={t0:.9g} "
            f"to t={t:.9g}, each woken by the policy alone (view.wake_at) and starting "
            f"nothing, less than {MIN_WAKE_STEP:g} s apart on average: a livelock; fix the "
            "policy or raise the limit with --wake-limit N (0: no limit)"
        )

    def _prepare(self) -> None:
        """Before the first event: bind the speed model, show its co-location inputs in the
        view, set up the policy (every event loop calls this once)."""
        self._t0 = perf_counter()
        self.speed_model.bind(self)
        self._view.coloc = getattr(self.speed_model, "info", None)
        sm = self.speed_model
        self._cspeed = None
        if isinstance(sm, NeighbourSpeed) and all(  # unless a subclass redefines a step
            getattr(type(sm), name) is getattr(NeighbourSpeed, name)
            for name in ("end_time", "on_start", "on_end")
        ):
            self._cspeed = sm
        try:  # the policy's code: what it raises is its failure, one line (as in a pass)
            self.scheduler.setup(self._view)
        except _PASSED_ON:
            raise
        except BaseException as exc:  # also SystemExit, GeneratorExit
            raise policy_failure(self.scheduler.describe(), self.now, exc, "at set-up") from exc
        self._bind_compiled()

    def _bind_compiled(self) -> None:
        """Call the policy's compiled pass (:mod:`.cpass`) directly when it has one: the queue
        and the running jobs then live in C arrays only, and the view shows them as read-only
        sequences (:class:`CQueue`, :class:`CRunning`; ``queue`` too). A subclass with an
        event loop of its own (ELiSE's clock) keeps the Python lists: its passes copy them
        into the C arrays and call the same compiled pass (:meth:`_bridge_call`), when the
        pass is ``reaskable`` (:mod:`.cpass`)."""
        cdef long j
        cp = getattr(self.scheduler, "compiled_pass", None)
        if not isinstance(cp, CompiledPass) or self.queue:
            return
        # a pass with a pending list of its own (the shared ones) is not asked again within a
        # pass nor fed copies: gated runs and ELiSE's clock run the policy's Python pass,
        # unless the pass can serve them (``serve_gate(start)``: Slurm's; it then reads the
        # queue, who joined and the running jobs afresh at each call, with the kernel's start
        # times)
        serve = getattr(cp, "serve_gate", None)
        if serve is not None and (self.gate is not None or type(self) is not Simulation):
            serve(self._view.start)
        ticks = getattr(cp, "tick_count", None)
        if ticks is not None:
            self._check_ticks(ticks)
        if not (<CompiledPass>cp).reaskable and (
            self.gate is not None or type(self) is not Simulation
        ):
            return
        if isinstance(cp, SharedPass) and (<SharedPass>cp).places:
            # it starts its jobs itself through the kernel (:meth:`_pass_start`): on shared
            # nodes (co-location), or on whole nodes of either accounting (Slurm's bf_nodes)
            if self._shared is None and not (
                (<SharedPass>cp).whole_nodes and self._whole is not None
            ):
                return
            starter = _KernelStarter.__new__(_KernelStarter)
            (<_KernelStarter>starter).sim = self
            (<SharedPass>cp).starter = starter
            self._cshared = True
        self._cpass = cp
        self._mnodes = self.nodes  # the view's tables (buffers), read where they are
        self._mreq = self.req
        self._msubmit = self.submit
        if self.n:
            self._cnodes = <const long*>&self._mnodes[0]  # (long long and long: both 64-bit)
            self._creq = &self._mreq[0]
            self._csubmit = &self._msubmit[0]
        self._cresv = self.reservation
        if type(self) is not Simulation:
            self._bridge = True
            return
        self._c = True
        self._lazy_est = (<CompiledPass>cp).own_running and self.gate is None
        self._view.queue = CQueue.__new__(CQueue)
        (<CQueue>self._view.queue)._sim = self
        self.queue = self._view.queue
        self._view.est_sorted = CRunning.__new__(CRunning)
        (<CRunning>self._view.est_sorted)._sim = self

    def _check_ticks(self, count) -> None:
        """Refuse, before the first event, a run whose compiled pass may wake on a clock more
        than :data:`MAX_TICKS` times (``count(span, over)``: the passes at least, what wakes
        it and what to change, :meth:`.passes.SlurmPass.tick_count`). The run spans at least
        from the first submission to the latest submission plus run time (each job runs that
        long at least); a job not killed at its limit runs past it for its run time less its
        requested time."""
        if not self.n:
            return
        submit = np.asarray(self.submit)
        duration = np.frombuffer(self.duration, dtype=np.float64)
        span = float((submit + duration).max()) - float(submit.min())
        over = max(float((duration - np.asarray(self.req)).max()), 0.0)
        tick = count(span, over)
        if tick is not None and tick[0] > MAX_TICKS:
            passes, what, advice = tick
            raise InputError(
                f"scheduler {self.scheduler.describe()}: {what}: up to {passes:.2g} passes "
                f"(at most {MAX_TICKS:.0e}); {advice}"
            )

    def _bridge_call(self, double t) -> list:
        """The compiled pass in a run on the Python lists: they are copied into the C arrays
        (O(queue + running) per pass), the pass runs, its starts are returned as decisions."""
        cdef long k
        self._cq.clear()
        for j in (sorted(self.queue) if self._tailed else self.queue):
            self._cq.push_back(j)
        self._cest.clear()
        for e, j in self.est_sorted:
            self._cest.push_back(Est(e, j))
        self._cjoined.clear()  # (a pass with a pending list of its own reads who joined)
        for j in self.joined:
            self._cjoined.push_back(j)
        self._c_call(t)
        if self._cshared:  # it started them itself (:meth:`_pass_start`)
            return []
        return [self._cstarted[k] for k in range(<long>self._cstarted.size())]

    cdef const long* _c_present(self) except? NULL:
        """The C queue as the compiled pass sees it: in its order (``CompiledPass.order``: a
        built-in key computed here, with the arithmetic of ``schedulers.base.ORDERS``, or the
        scheduler's ``order_key`` called in Python), ties by index, demoted jobs last."""
        cdef int order = self._cpass.queue_order
        cdef bint low = len(self._lowjobs) > 0
        cdef bytearray flags = self._low
        cdef long k, j, part, nq = self._cq.size()
        cdef double r, key, now = self.now
        cdef View view
        self._nord = nq
        if order == FCFS and not low:
            return self._cq.data()
        self._cord.clear()
        if order == OWN:  # the scheduler's own ordered_queue (a subclass's), as it returns it
            view = self._view
            try:
                q = self.scheduler.ordered_queue(view)
            except _PASSED_ON:
                raise
            except BaseException as exc:  # also GeneratorExit, a BaseException subclass
                raise policy_failure(self.scheduler.describe(), now, exc) from exc
            q = self._hook_jobs(q, "ordered_queue")
            for j in q:
                self._cord.push_back(j)
            self._nord = len(q)
            return self._cord.data()
        if order == CUSTOM:
            view = self._view
            okey = self.scheduler.order_key
            q = [self._cq[k] for k in range(nq)]
            try:  # sorted by the key (stable), demoted last: no closure in a cdef function
                if low:
                    keys = [(flags[j], okey(view, j)) for j in q]
                else:
                    keys = [okey(view, j) for j in q]
                ranks = sorted(range(nq), key=keys.__getitem__)
            except _PASSED_ON:
                raise
            except BaseException as exc:  # also GeneratorExit, a BaseException subclass
                raise policy_failure(self.scheduler.describe(), now, exc) from exc
            for k in ranks:
                self._cord.push_back(q[k])
            return self._cord.data()
        for part in range(2 if low else 1):
            self._ckeyed.clear()
            for k in range(nq):
                j = self._cq[k]
                if low and flags[j] != part:
                    continue
                if order == FCFS:
                    key = 0.0
                elif order == SJF:
                    key = self._creq[j]
                else:
                    r = self._creq[j] if self._creq[j] != 0 else 1.0
                    if order == LXF:  # largest expansion factor first
                        key = -(now - self._csubmit[j] + r) / r
                    else:  # WFP: (queued time / requested time)^3 x nodes, highest first
                        key = -pow((now - self._csubmit[j]) / r, 3.0) * <double>self._cnodes[j]
                self._ckeyed.push_back(pair[double, long](key, j))
            if order != FCFS:
                sort(self._ckeyed.begin(), self._ckeyed.end())
            for k in range(<long>self._ckeyed.size()):
                self._cord.push_back(self._ckeyed[k].second)
        return self._cord.data()

    cdef inline long _idle(self) except? -1:
        """Idle whole nodes (read in C from the whole-node accounting: no Python int per
        pass and per start)."""
        if self._whole is not None:
            return self._whole.idle
        if self._shared is not None:
            return self._shared.nodes.n_idle
        return self.acct.idle

    cdef int _c_call(self, double t) except -1:
        """Call the compiled pass at ``t`` on the kernel's arrays: the jobs it starts are in
        ``_cstarted``, in order (not yet applied)."""
        cdef PassState st
        cdef View view = self._view
        st.now = t
        st.free = self._idle()
        st.completed = self.completed
        st.arrived = self._arr_i
        st.next_end = self._top_t()
        st.epoch = self.epoch
        view.now = t
        view.free = st.free
        view.completed = self.completed
        st.queue = self._c_present()
        st.nq = self._nord
        st.est = self._cest.data()
        st.nest = 0 if self._lazy_est else self._cest.size()
        st.joined = self._cjoined.data()
        st.njoined = self._cjoined.size()
        st.ended = self._cended.data()
        st.nended = self._cended.size()
        st.nodes = self._cnodes
        st.req = self._creq
        st.submit = self._csubmit
        st.reservation = &self._cresv[0]
        self._cstarted.clear()
        st.started = &self._cstarted
        st.wake = INFINITY
        self._cpass.run(&st)
        self._cjoined.clear()
        self._cended.clear()
        if st.wake < INFINITY:
            self._wake_c(st.wake)
        return 0

    cdef int _c_pass(self, double t) except -1:
        """One pass of the compiled policy at ``t`` without a gate (:meth:`_one_pass`'s
        common case, in C): the jobs it lists start (each checked) and leave the queue (a
        pass that places its jobs, :class:`.cshared.SharedPass`, started them itself)."""
        cdef long k, j
        cdef bytearray queued = self._queued
        self._c_call(t)
        for k in range(0 if self._cshared else <long>self._cstarted.size()):
            j = self._cstarted[k]
            if not queued[j] or self._cnodes[j] > self._idle():
                raise SchedulerError(
                    f"scheduler {self.scheduler.describe()}: its compiled pass started job "
                    f"{self.ids[j]}, which is not queued or does not fit, at t={t:g}"
                )
            queued[j] = 0
            self._start_c(j, t, None, False)
        if self._cstarted.size() > 8:
            self._compact()
        else:  # a few starts: each leaves the (ascending) C queue at its place (it is there)
            for k in range(<long>self._cstarted.size()):
                j = self._cstarted[k]
                self._cq.erase(lower_bound(self._cq.begin(), self._cq.end(), j))
        self.passes += 1
        return 0

    cdef void _compact(self) except *:
        """Drop from the queue the jobs no longer queued (started, held, hidden)."""
        cdef long k, j, w = 0
        cdef bytearray queued = self._queued
        if self._c:
            for k in range(<long>self._cq.size()):
                j = self._cq[k]
                if queued[j]:
                    self._cq[w] = j
                    w += 1
            self._cq.resize(w)
        else:
            queue = self.queue
            _setitem(queue, slice(None), [j for j in queue if queued[j]])

    def _enqueue(self, j: int, join: bool) -> None:
        """Job ``j`` (queued again) joins the queue at its place; in ``joined`` if ``join``
        (the Python lists only: the C queue has no ``joined``)."""
        if self._c:
            self._c_enqueue(j)
        else:
            _insert(self.queue, bisect_right(self.queue, j), j)
            if join:
                _append(self.joined, j)

    cdef int _pass_start(self, long j, const long* iv, long niv, long cores) except -1:
        """A compiled pass starts queued job ``j`` now (:class:`.cshared.Starter`): on ``niv``
        flat node intervals with ``cores`` cores on each (checked by the accounting; whole
        nodes: exactly its nodes, all idle), or (``niv`` < 0) where the kernel's best fit
        puts it. In the kernel's own run in C, listed in ``_cstarted``; with a gate or on the
        Python lists (ELiSE's clock) as a policy's ``view.start_now`` (the gate decides; the
        C running list follows the Python one)."""
        cdef bytearray queued = self._queued
        cdef long k
        if not (self._c and self.gate is None) or (self._whole is None and self._shared is None):
            if niv < 0:
                self._start_now(j)
            else:
                self._start_now(Placement(
                    j, intervals=[(iv[2 * k], iv[2 * k + 1]) for k in range(niv)],
                    cores=cores if self.acct.shared else 0,
                ))  # fmt: skip
            if not self._c:
                self._cest.clear()
                for e, r in self.est_sorted:
                    self._cest.push_back(Est(e, r))
            return 0
        if not (0 <= j < self.n and queued[j]):
            raise SchedulerError(
                f"scheduler {self.scheduler.describe()}: its compiled pass started job index "
                f"{j}, which is not queued, at t={self.now:g}"
            )
        if niv < 0:
            if self._cnodes[j] > self._idle():
                raise SchedulerError(
                    f"scheduler {self.scheduler.describe()}: its compiled pass started job "
                    f"{self.ids[j]}, which does not fit, at t={self.now:g}"
                )
            queued[j] = 0
            self._start_c(j, self.now, None, False)
            self._cstarted.push_back(j)
            return 0
        try:
            if self._whole is not None:
                self._whole.take_iv_c(j, iv, niv, self._cnodes[j])
            else:
                self._shared.take_iv_c(j, iv, niv, cores)
        except ValueError as exc:
            raise SchedulerError(
                f"scheduler {self.scheduler.describe()}: its compiled pass started job "
                f"{self.ids[j]} at t={self.now:g} where it does not fit: {exc}"
            ) from None
        queued[j] = 0
        self._start_c(j, self.now, None, True)
        self._cstarted.push_back(j)
        return 0

    cdef inline void _c_enqueue(self, long j) noexcept:
        """Job ``j`` joins the C queue at its place (ascending index)."""
        if self._cq.empty() or self._cq.back() < j:
            self._cq.push_back(j)
        else:
            self._cq.insert(upper_bound(self._cq.begin(), self._cq.end(), j), j)
        self._cjoined.push_back(j)

    def _one_pass(self, double t, hide: Iterable[int] | None = None) -> None:
        """The scheduling pass at ``t`` (the one implementation, for every policy and gate).

        The policy decides (its compiled pass on the C arrays, or ``schedule(view)``) and its
        decisions apply in order. With a :class:`Gate`, each goes through ``gate.decide``
        (Tang et al. 2011, Algorithm 1, RunJob): a job the gate lets START starts; one that
        HOLDs takes its nodes without starting (they count as busy); one that YIELDs is skipped
        for the rest of this pass. After a hold or a yield the policy's later decisions are
        dropped (they assumed that job started) and the policy is asked again with the job out
        of the queue. The queue is presented with the demoted jobs (:meth:`demote`) last; a
        pass that is not ``hide``'s clears them. ``hide``: queued jobs this pass does not show
        (:meth:`pass_now`). Yielded and hidden jobs return to the queue when the pass ends
        and are in the next pass's ``view.joined``."""
        cdef View view = self._view
        cdef bint c = self._c
        gate = self.gate
        if gate is None and hide is None and not self._lowjobs:  # the common case
            if c:
                self._c_pass(t)
                return
            decisions = self._bridge_call(t) if self._bridge else self._ask(t)
            if decisions or self._started_in_pass:
                self._apply(decisions)
            self.passes += 1
            if self.joined:
                _clear(self.joined)
            return
        queued = self._queued
        queue = self.queue
        hidden = self._hidden = []
        for j in hide or ():
            if queued[j]:
                queued[j] = 0
                hidden.append(j)
        if hidden:
            self._compact()
        asked = False
        try:
            while True:
                self._rerun = False
                if c and self._cshared:
                    # a pass that places its jobs (Slurm's bf_nodes) is shown, when asked
                    # again, every job that joined in this pass (``view.joined``, as on the
                    # Python lists), not only those since its last call
                    if asked:
                        self._cjoined.insert(
                            self._cjoined.begin(), self._pjoined.begin(), self._pjoined.end()
                        )
                    self._pjoined = self._cjoined
                    asked = True
                if c:
                    self._c_call(t)
                    decisions = [] if self._cshared else [  # (:meth:`_pass_start`)
                        self._cstarted[k] for k in range(<long>self._cstarted.size())
                    ]
                elif self._bridge:
                    decisions = self._bridge_call(t)
                else:
                    self._present()
                    decisions = self._ask(t)
                for d in decisions:
                    if gate is None:
                        self._apply_one(d)
                    elif self._gated(d):
                        self._rerun = True
                        break
                self._started_in_pass.clear()
                self._compact()
                if not (self._rerun and len(queue)):
                    break
        finally:
            if self._tailed:  # back to (submit, id) order
                _setitem(queue, slice(None), sorted(queue))
                self._tailed = False
            back = list(hidden)
            if back:  # back in the queue: a change the policy did not make
                self.epoch += 1
            for j in back:
                queued[j] = 1
                self._enqueue(j, False)
            hidden.clear()
            if hide is None and self._lowjobs:
                for j in self._lowjobs:
                    self._low[j] = 0
                self._lowjobs = []
                self.epoch += 1
        self.passes += 1
        if self.joined:
            _clear(self.joined)
        if not c:  # they joined the queue again (after this pass): the next pass's joined
            for j in back:
                _append(self.joined, j)

    def _present(self) -> None:
        """The Python queue as the policy sees it: the demoted jobs last."""
        if not self._lowjobs:
            return
        low = self._low
        queue = self.queue
        _setitem(
            queue, slice(None), [j for j in queue if not low[j]] + [j for j in queue if low[j]]
        )
        self._tailed = True

    def _ask(self, double t) -> list:
        """The Python policy's decisions at ``t`` (its failure named, with the time)."""
        cdef View view = self._view
        view.now = t
        view.free = self.acct.idle
        view.completed = self.completed
        try:
            decisions = self.scheduler.schedule(view)
        except _PASSED_ON:
            raise
        except BaseException as exc:  # also GeneratorExit, a BaseException subclass
            raise policy_failure(self.scheduler.describe(), t, exc) from exc
        return decisions if type(decisions) is list else self._decided(decisions)

    def _decided(self, decisions: Any) -> list:
        """What a pass's ``schedule`` returned, as a list of decisions: a list as it is, None is
        none, any other iterable is listed (each decision is checked when applied); anything
        else (a number, a text) is a :class:`SchedulerError` naming the policy's ``schedule``."""
        if type(decisions) is list:
            return decisions
        if decisions is None:
            return []
        if isinstance(decisions, str | bytes) or not hasattr(decisions, "__iter__"):
            raise self._bad(decisions, "from schedule(), not a list of decisions")
        try:  # a generator runs the policy's code: what it raises is the policy's failure
            return list(decisions)
        except _PASSED_ON:
            raise
        except BaseException as exc:  # also GeneratorExit, a BaseException subclass
            raise policy_failure(self.scheduler.describe(), self.now, exc) from exc

    def _where(self, hook: str = "schedule") -> str | None:
        """``file:line`` of the policy's ``schedule`` (what a bad decision's error names), or
        of another of its methods (``hook``)."""
        return source_line(getattr(type(self.scheduler), hook))

    def _hook_jobs(self, jobs: Any, hook: str) -> list:
        """The jobs a policy's hook returned for a compiled pass to take in that order
        (``ordered_queue``; a co-scheduler's ``deploy_order``): each a queued job's index
        (an int, NumPy's too), once. The pass reads its C arrays at each, so none is taken
        unchecked: anything else is a :class:`SchedulerError` naming the hook's file and
        line (was a crash, or another job's memory read, for an index out of range)."""
        cdef bytearray queued = self._queued
        cdef long n = self.n, j
        cdef long* mark
        if isinstance(jobs, str | bytes) or not hasattr(jobs, "__iter__"):
            raise self._bad_hook(hook, jobs, ", not a sequence of queued jobs,")
        if <long>self._hook_mark.size() != n:  # (each job's stamp: seen in this call)
            self._hook_mark.assign(n, 0)
        self._hook_stamp += 1
        mark = self._hook_mark.data()
        out = []
        try:  # a generator runs the policy's code: what it raises is the policy's failure
            for d in jobs:
                if type(d) is not int:  # NumPy's ints too; a bool, a float or a text is not
                    if not isinstance(d, Integral) or isinstance(d, bool):
                        raise self._bad_hook(hook, d, " where a queued job's index belongs")
                    d = int(d)
                j = _as_long(d)
                if j < 0 or j >= n or not queued[j]:
                    raise self._bad_hook(hook, d, ", which is not a queued job's index,")
                if mark[j] == self._hook_stamp:
                    raise self._bad_hook(hook, d, " twice")
                mark[j] = self._hook_stamp
                out.append(d)
        except SchedulerError:
            raise
        except _PASSED_ON:
            raise
        except BaseException as exc:  # also GeneratorExit, a BaseException subclass
            raise policy_failure(self.scheduler.describe(), self.now, exc) from exc
        return out

    def _bad_hook(self, hook: str, what: Any, why: str) -> SchedulerError:
        return SchedulerError(
            f"scheduler {self.scheduler.describe()}'s {hook}() returned {repr(what)[:60]}{why} "
            f"at t={self.now:g}",
            where=self._where(hook),
        )

    def _bad(self, what: Any, why: str) -> SchedulerError:
        return SchedulerError(
            f"scheduler {self.scheduler.describe()} returned {repr(what)[:60]} at "
            f"t={self.now:g} {why} (a decision is a queued job's index or a Placement)",
            where=self._where(),
        )

    def _check(self, d: int | Placement) -> tuple[int, Placement | None]:
        """The job and placement of decision ``d``, or a :class:`SchedulerError` saying why it
        cannot start now."""
        now = self.now
        if isinstance(d, Placement):
            j, placement = d.job, d
        elif isinstance(d, Integral) and not isinstance(d, bool):
            j, placement = int(d), None
        else:
            raise self._bad(d, "as a decision")
        if not (0 <= j < self.n) or not self._queued[j]:
            what = f"job index {j}" if not (0 <= j < self.n) else f"job {self.ids[j]}"
            raise SchedulerError(
                f"scheduler {self.scheduler.describe()} started {what}, which is not queued",
                where=self._where(),
            )
        if placement is None:
            if self.nodes[j] > self.acct.idle:
                raise SchedulerError(
                    f"scheduler {self.scheduler.describe()} started job {self.ids[j]} needing "
                    f"{self.nodes[j]} nodes with {self.acct.idle} free at t={now}",
                    where=self._where(),
                )
        else:
            why = self.acct.check(j, placement, self.procs[j])
            if why:
                raise SchedulerError(
                    f"scheduler {self.scheduler.describe()} started job {self.ids[j]} at "
                    f"t={now}: placement {why}",
                    where=self._where(),
                )
        return j, placement

    def _apply_one(self, d: int | Placement) -> None:
        self._begin(*self._check(d))

    def _begin(self, j: int, placement: Placement | None) -> None:
        """Start checked decision ``j`` in this pass (it leaves the queue when the pass ends)."""
        self._queued[j] = 0
        self._started_in_pass.append(j)
        self._start_c(j, self.now, placement, False)

    def _apply(self, decisions: Iterable[int | Placement]) -> None:
        queued, nodes, acct, n, now = self._queued, self.nodes, self.acct, self.n, self.now
        started = self._started_in_pass
        for d in decisions:
            # the common decision (a queued job number that fits) takes no detour; everything
            # else (placements, other int types, bad decisions) is checked by _apply_one
            if type(d) is int and 0 <= d < n and queued[d] and nodes[d] <= acct.idle:
                queued[d] = 0
                started.append(d)
                self._start_c(d, now, None, False)
            else:
                self._apply_one(d)
        queue = self.queue
        k = len(started)
        if k == 1:
            list.remove(queue, started[0])
        elif k:
            queued = self._queued
            if not any(queued[j] for j in queue[:k]):  # a prefix started (FCFS-like)
                _delitem(queue, slice(0, k))
            else:
                _setitem(queue, slice(None), [j for j in queue if queued[j]])
        started.clear()

    def _start(
        self, j: int, now: float, placement: Placement | None = None, taken: bool = False
    ) -> None:
        """Start job ``j`` at ``now`` (for subclasses; the kernel calls :meth:`_start_c`)."""
        self._start_c(j, now, placement, taken)

    cdef int _start_c(self, long j, double now, object placement, bint taken) except -1:
        cdef Est e
        cdef double end
        cdef Py_ssize_t k
        if taken:
            pass
        elif placement is None and self._whole is not None:
            self._whole.take_c(j, self._cnodes[j] if self._c else self.nodes[j])
        elif self._shared is not None:
            self._shared.take_c(j, self.nodes[j], placement)
        else:
            self.acct.take(j, self.nodes[j], placement)
        self._st[j] = now
        self._sp[j] = self.passes
        k = len(self._sorder)
        carray.resize_smart(self._sorder, k + 1)
        self._sorder.data.as_longlongs[k] = j
        if self._lazy_est:
            self._est_stale = True
        elif self._c:
            e = Est(now + self._creq[j], j)
            self._cest.insert_sorted(e)
        else:
            est = self.est_sorted
            item = (now + <double>self.req[j], j)
            _insert(est, bisect_right(est, item), item)
        if self._cspeed is not None:
            end = self._cspeed.begin_c(j, now)
            self._en[j] = end
            self._push(end, j)
            self._cspeed.arrived_c(j, now)
            self._moved()
        elif self._dynamic:
            sm = self.speed_model
            end = sm.end_time(j, now)
            self._en[j] = end
            self._push(end, j)
            self._reschedule(sm.on_start(j, now))
        else:
            end = now + self._du[j]
            self._en[j] = end
            self._push(end, j)
        if self.late_kill:
            heappush(self._deadlines, (now + <double>self.req[j], j))
        return 0

    cdef EstList* _running(self) noexcept:
        """The sorted running list ``_cest``; with a pass that keeps its own running jobs
        (``_lazy_est``), made here from the jobs started and not ended when it is stale."""
        cdef long j, n = self.n
        cdef bytearray finished = self._finished
        cdef bint run_on = len(finished) == n
        if self._lazy_est and self._est_stale:
            self._cest.clear()
            for j in range(n):
                if self._st[j] == self._st[j] and not (run_on and finished[j]):
                    self._cest.push_back(Est(self._st[j] + self._creq[j], j))
            sort(self._cest.begin(), self._cest.end())
            self._est_stale = False
        return &self._cest

    def _finish(self, j: int, now: float) -> None:
        """Job ``j`` ends at ``now`` (for subclasses; the kernel calls :meth:`_finish_c`)."""
        self._finish_c(j, now)

    cdef int _finish_c(self, long j, double now) except -1:
        cdef Est e
        cdef Py_ssize_t k = len(self._eorder)
        carray.resize_smart(self._eorder, k + 1)
        self._eorder.data.as_longlongs[k] = j
        self.completed += 1
        if self._whole is not None:
            self._whole.release_c(j)
        elif self._shared is not None:
            self._shared.release_c(j)
        else:
            self.acct.release(j)
        if self._lazy_est:
            self._est_stale = True
            self._cended.push_back(j)
        elif self._c:
            e = Est(self._st[j] + self._creq[j], j)
            self._cest.erase_sorted(e)
            self._cended.push_back(j)
        else:
            est = self.est_sorted
            _delitem(est, bisect_left(est, (self._st[j] + <double>self.req[j], j)))
        if self._has_deps and self._dptr[j + 1] > self._dptr[j]:
            self._release_dependents(j, now)
        if self._cspeed is not None:
            self._cspeed.left_c(j, now)
            self._moved()
        elif self._dynamic:
            self._reschedule(self.speed_model.on_end(j, now))
        return 0

    cdef void _release_dependents(self, long j, double now) except *:
        """Job ``j`` ended at ``now``: each dependent whose last parent it was becomes ready
        (now + its think time) and, once it has arrived, joins the queue."""
        cdef long i, d
        cdef bytearray arrived = self._arrived, queued = self._queued
        for i in range(self._dptr[j], self._dptr[j + 1]):
            d = self._didx[i]
            self._cleft[d] -= 1
            if self._cleft[d]:
                continue
            # the last parent ends now (``_cthink`` empty: no job has a think time)
            self._cready[d] = now + (self._cthink[d] if not self._cthink.empty() else 0.0)
            if not arrived[d]:
                continue
            if self._cready[d] > now:
                heappush(self._releases, (self._cready[d], d))
            else:
                if self._c:
                    self._c_enqueue(d)
                else:
                    queue = self.queue
                    _insert(queue, bisect_right(queue, d), d)
                    _append(self.joined, d)
                queued[d] = 1

    cdef void _moved(self) noexcept:
        """:meth:`_reschedule` of the compiled speed model's changes."""
        cdef double now = self.now, new_end
        cdef long i, k
        for i in range(<long>self._cspeed.changes.size()):
            k = self._cspeed.changes[i].first
            new_end = self._cspeed.changes[i].second
            if new_end < now:
                new_end = now
            if self._en[k] != new_end:
                self._en[k] = new_end
                self._push(new_end, k)

    def _reschedule(self, changes: dict[int, float]) -> None:
        now = self.now
        for k, new_end in changes.items():
            if new_end < now:  # a speed model's rounding: the job ends now, not in the past
                new_end = now
            if self.end[k] != new_end:
                self.end[k] = new_end
                self._push(new_end, k)

    # -- the gate's side (coupled co-scheduling; the module docstring) -------------------------
    def pass_now(self, hide: Iterable[int] = ()) -> None:
        """One scheduling pass now (:meth:`_one_pass`, the loop's own), not showing the queued
        jobs ``hide``, for a gate's driver (a coupled mate attempt: the target's system's
        policy over its queue without its other paired jobs). The demoted jobs stay demoted
        for this system's own pass."""
        self._one_pass(self.now, list(hide))

    def demote(self, jobs: Iterable[int]) -> None:
        """Present ``jobs`` after all other queued jobs in the next pass (a released hold:
        Tang et al.'s "lowest priority at this scheduling point"); replaces any earlier set."""
        for j in self._lowjobs:
            self._low[j] = 0
        self._lowjobs = sorted(set(jobs))
        for j in self._lowjobs:
            self._low[j] = 1

    @property
    def demoted(self) -> frozenset[int]:
        """The jobs :meth:`demote` set for the next pass."""
        return frozenset(self._lowjobs)

    def _gated(self, d: int | Placement) -> bool:
        """Apply decision ``d`` as the gate says; whether it was held or yielded."""
        j, placement = self._check(d)
        verdict = self.gate.decide(j)  # type: ignore[union-attr]
        if verdict == START:
            self._begin(j, placement)
            return False
        if verdict != HOLD and verdict != YIELD:
            raise ValueError(f"gate verdict must be START, HOLD or YIELD, got {verdict!r}")
        self.epoch += 1
        self._queued[j] = 0
        if verdict == HOLD:
            self.acct.take(j, self.nodes[j], placement)
            self.held[j] = self.now
            end = self.gate.held(j)  # type: ignore[union-attr]
            if end < INF:
                self._hold_est[j] = end
                self._est_add(end, j)
        else:
            self._hidden.append(j)
        return True

    def _est_add(self, double end, long j) -> None:
        """``(end, j)`` joins the running list (``view.est_sorted``)."""
        cdef Est e = Est(end, j)
        if self._c:
            self._cest.insert_sorted(e)
        else:
            _insert(self.est_sorted, bisect_right(self.est_sorted, (end, j)), (end, j))

    def _est_del(self, double end, long j) -> None:
        """``(end, j)`` leaves the running list."""
        cdef Est e = Est(end, j)
        if self._c:
            self._cest.erase_sorted(e)
        else:
            _delitem(self.est_sorted, bisect_left(self.est_sorted, (end, j)))

    def _unlist_hold(self, j: int) -> None:
        del self.held[j]
        self.epoch += 1
        end = self._hold_est.pop(j, None)
        if end is not None:
            self._est_del(end, j)

    def start_held(self, j: int) -> None:
        """Start held job ``j`` now on the nodes it holds (its mate started)."""
        self._unlist_hold(j)
        self._start_c(j, self.now, None, True)

    def release_hold(self, j: int) -> None:
        """Give back the nodes held job ``j`` holds; it waits in the queue again (and is in
        ``view.joined`` at the next pass, as a job that joined the queue)."""
        self._unlist_hold(j)
        self.acct.release(j)
        self._queued[j] = 1
        self._enqueue(j, True)

    # -- reading the outcome --------------------------------------------------------------------
    def dependency_texts(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Per job: its parents' trace ids as text (``"12 15"``, written in C; an object
        column, "" for a job with none) and its think time (an array); None without
        dependencies."""
        cdef const long long[::1] pptr, pidx, ids
        cdef object[::1] dv
        cdef long j, i
        cdef string text
        if not self._has_deps:
            return None
        ids = np.ascontiguousarray(self.ids, dtype=np.int64)
        pptr = np.ascontiguousarray(self._parents[0], dtype=np.int64)
        pidx = np.ascontiguousarray(self._parents[1], dtype=np.int64)
        deps = np.full(self.n, "", dtype=object)
        dv = deps
        for j in range(self.n):
            if pptr[j + 1] == pptr[j]:
                continue
            text.clear()
            for i in range(pptr[j], pptr[j + 1]):
                if i > pptr[j]:
                    text.push_back(b" ")
                text.append(to_string(ids[pidx[i]]))
            dv[j] = text.decode("ascii")
        think = np.zeros(self.n)
        for j, t in self.think.items():
            think[j] = t
        return deps, think

    def info(self) -> dict[str, Any]:
        """Facts about the run for the result's options."""
        out: dict[str, Any] = {"kill_at_walltime": self.kill_at_walltime}
        if self.view.remaining is not None:
            out["clairvoyant"] = True  # the policy read actual remaining run times
        if self._has_deps:
            out["dependencies"] = True
        if self.ignored_dependencies:
            out["ignored_dependencies"] = self.ignored_dependencies
        if self.until != INF:
            out["until"] = self.until
            out["truncated"] = self.truncated
        return out


cdef class _KernelStarter(Starter):
    """The kernel's :class:`.cshared.Starter`: a compiled pass starts its jobs through it."""

    cdef Simulation sim

    cdef int start_c(self, long j, const long* iv, long niv, long cores) except -1:
        return self.sim._pass_start(j, iv, niv, cores)

    cdef const Est* running(self, long* n) noexcept:
        cdef EstList* est = self.sim._running()
        n[0] = est.size()
        return est.data()

    cdef long idle(self) noexcept:
        return self.sim._idle()

    cdef void nodes_of(self, long j, vector[long]* out) noexcept:
        cdef Simulation sim = self.sim
        if sim._whole is not None:
            sim._whole.ivs.flat_c(j, out)
        elif sim._shared is not None:
            sim._shared.ivs.flat_c(j, out)
        else:
            out.clear()

    cdef const double* starts(self) noexcept:
        return &self.sim._st[0] if self.sim.n else NULL


cdef bint _identity(object order) except -1:
    """``order`` (an int64 array) is 0, 1, ..., n - 1 with n >= 1 (no array made to say so)."""
    cdef const long long[::1] o = np.ascontiguousarray(order, dtype=np.int64)
    cdef long k
    for k in range(o.shape[0]):
        if o[k] != k:
            return False
    return o.shape[0] > 0


cdef long _position(object k, long n, str what) except -1:
    """Index ``k`` of a read-only sequence of length ``n`` (negative from the end), checked."""
    cdef long i = k
    if i < 0:
        i += n
    if not 0 <= i < n:
        raise IndexError(f"{what} index out of range")
    return i


def id_index(ids: Any, order: Any = None) -> Callable:
    """``index_of(q)``: the queue indices of job ids ``q`` and whether each is a job (the
    first in queue order of equal ids). ``ids``: the jobs' ids by row; ``order``: the rows in
    queue order (None: the rows are the queue). Ids that rise row by row (most workloads)
    are searched in ``ids`` itself, with no sort."""
    cdef long n = len(ids), k
    cdef const long long[::1] iv
    cdef bint rising = True
    wid = np.ascontiguousarray(ids, dtype=np.int64)
    iv = wid
    for k in range(1, n):
        if iv[k] <= iv[k - 1]:
            rising = False
            break
    if rising:  # (the row of an id, then its place in the queue)
        sorted_ids = wid
        if order is None:
            by_id = None
        else:
            by_id = np.empty(n, np.int64)
            by_id[order] = np.arange(n, dtype=np.int64)
    else:
        queued = wid if order is None else wid[order]
        by_id = np.argsort(queued, kind="stable")
        sorted_ids = queued[by_id]

    def index_of(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Queue indices of job ids ``q`` and whether each is a job of the workload."""
        if not n:
            return np.zeros(len(q), np.int64), np.zeros(len(q), bool)
        pos = np.minimum(np.searchsorted(sorted_ids, q), n - 1)
        return (pos if by_id is None else by_id[pos]), sorted_ids[pos] == q

    return index_of


def _read_only(values: Any, dtype: Any) -> memoryview:
    """``values`` as a read-only memoryview over a C array of ``dtype`` (a view's per-job
    table: indexing and iteration give Python numbers, ``np.asarray`` shares the memory)."""
    return _sealed(np.ascontiguousarray(values, dtype=dtype))


def _sealed(owner: Any) -> memoryview:
    """A read-only memoryview of ``owner``'s buffer whose ``.obj`` is a :class:`_Sealed`, not
    ``owner``: ``memoryview(a).toreadonly().obj`` is ``a`` itself, writable (a policy wrote
    the kernel's tables through ``view.req.obj``)."""
    return memoryview(_Sealed(owner))


@cython.auto_pickle(False)
@cython.final
cdef class _Sealed:
    """Exports one kernel array's buffer read-only; holds it in a C field (no attribute, no
    ``__reduce__``), so the memoryview over it leads nowhere."""

    cdef Py_buffer _buf
    cdef bint _held

    def __cinit__(self, owner):
        PyObject_GetBuffer(owner, &self._buf, PyBUF_FULL_RO)
        self._held = True

    def __getbuffer__(self, Py_buffer *view, int flags):
        if flags & PyBUF_WRITABLE:
            raise BufferError("the scheduler view is read only")
        view.buf = self._buf.buf
        view.len = self._buf.len
        view.itemsize = self._buf.itemsize
        view.format = self._buf.format
        view.ndim = self._buf.ndim
        view.shape = self._buf.shape
        view.strides = self._buf.strides
        view.suboffsets = NULL
        view.internal = NULL
        view.readonly = 1
        view.obj = self

    def __releasebuffer__(self, Py_buffer *view):
        pass

    def __dealloc__(self):
        if self._held:
            PyBuffer_Release(&self._buf)


cdef Simulation _live(Simulation sim):
    """``sim``, or an error once the run's kernel was released (:meth:`Simulation.release`)."""
    if sim is None:
        raise RuntimeError("the run is over: its queue and running jobs are no longer kept")
    return sim


@cython.auto_pickle(False)  # its state, the kernel, is no policy's to read
cdef class CQueue:
    """The waiting jobs (``view.queue``) when the kernel keeps them in a C array (a compiled
    policy runs): a read-only sequence of job indices in queue order; slices are lists."""

    cdef Simulation _sim

    def __len__(self) -> int:
        return _live(self._sim)._cq.size()

    def __getitem__(self, k):
        cdef long n = _live(self._sim)._cq.size(), i
        if isinstance(k, slice):
            return [self._sim._cq[i] for i in range(*k.indices(n))]
        return self._sim._cq[_position(k, n, "queue")]

    def __iter__(self):
        return iter(self[:])

    def __contains__(self, j) -> bool:
        return j in self[:]

    def __repr__(self) -> str:
        return f"CQueue({self[:]!r})"


@cython.auto_pickle(False)  # its state, the kernel, is no policy's to read
cdef class CRunning:
    """The running jobs (``view.est_sorted``) when the kernel keeps them in a C array: a
    read-only sequence of sorted ``(start + requested time, j)`` pairs; slices are lists."""

    cdef Simulation _sim

    def __len__(self) -> int:
        return _live(self._sim)._running().size()

    def __getitem__(self, k):
        cdef EstList* est = _live(self._sim)._running()
        cdef long n = est.size(), i
        if isinstance(k, slice):
            return [(deref(est)[i].first, deref(est)[i].second) for i in range(*k.indices(n))]
        i = _position(k, n, "est_sorted")
        return (deref(est)[i].first, deref(est)[i].second)

    def __iter__(self):
        return iter(self[:])

    def __repr__(self) -> str:
        return f"CRunning({self[:]!r})"


class Stepper:
    """One :class:`Simulation` driven instant by instant from outside, so that several runs
    share one clock (:mod:`coschedlab.coupled`). The same loop as :meth:`Simulation.run`.

    Per instant ``t`` (no later than any stepper's :attr:`next`): :meth:`advance` every run to
    ``t`` (its completions, then its arrivals, at ``t``), then :meth:`schedule` each in turn
    (its one scheduling pass, when it had an event at ``t`` or the driver asks for one).
    When every :attr:`next` is infinite, :meth:`Simulation.conclude` each run.
    """

    __slots__ = ("sim", "_loop")

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self._loop = sim._loop(True)
        next(self._loop)

    @property
    def next(self) -> float:
        """This run's next event time (inf: none)."""
        return self.sim._next_time()

    def advance(self, t: float) -> bool:
        """Process the completions and arrivals at ``t``; whether this run had an event."""
        if t > self.next:
            raise ValueError(f"cannot advance to {t}: the next event is at {self.next}")
        return self._loop.send(t)

    def schedule(self, run: bool) -> None:
        """Run the scheduling pass at this instant if ``run`` (and jobs wait)."""
        self._loop.send(run)
