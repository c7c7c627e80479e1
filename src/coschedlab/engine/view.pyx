# cython: annotation_typing=False
"""What a policy sees: a read-only :class:`View` of the queue, the machine and the clock.

The kernel owns time and resources; a policy only decides. At every scheduling pass the kernel
calls ``policy.schedule(view)`` with the same :class:`View` object, updated in place. Jobs are
ints ``0..n-1`` in queue order (submit time, then job id). The view holds exactly what a
non-clairvoyant policy may know:

===================  ==========================================================================
``now``              the current time
``free``             whole idle nodes
``queue``            waiting jobs in (submit, id) order (read-only list); in a coupled run, jobs
                     the kernel's gate demoted come last and jobs it holds are absent (policies
                     need not know: ``ordered(key)`` and ``Scheduler.ordered_queue`` keep that)
``joined``           the jobs that joined the queue since the previous pass, in the order they
                     joined (dependants released by this instant's completions, then
                     arrivals); a policy that keeps its own ordered queue inserts these
``queued[j]``        1 while job ``j`` waits (0 once started, also during the pass that starts it)
``submit[j]``        submit time; ``req[j]`` requested time; ``nodes[j]`` whole nodes needed;
                     ``procs[j]`` processors; ``ids[j]`` the trace's job id; ``apps[j]``
                     application id (-1 unknown)
``users[j]``         the SWF's user, group, queue and partition numbers of job ``j``:
                     ``users[j]``, ``groups[j]``, ``queues[j]``, ``partitions[j]`` (-1 unknown;
                     ``queues`` is the trace's queue number, ``queue`` the waiting jobs)
``start[j]``         start time of a started job (NaN before): a read-only sequence of floats
                     over the kernel's C array
``est_sorted``       running jobs as sorted ``(start + requested time, j)`` pairs (read-only)
``machine``          read-only queries of the node accounting (:class:`MachineView`)
``cluster``          the machine's shape; ``n`` jobs in all; ``completed`` jobs ended so far
===================  ==========================================================================

one query, ``ordered(key)`` (the queue sorted by ``key(view, j)``, the jobs the kernel
presents last still last; ``key=None``: ``queue`` itself), and four actions:
``start_now(decision)`` (apply a decision at once, when later decisions
depend on where it went), ``wake_at(t)`` (a pass at time ``t``), ``record_reservation(j, t)``
(a promise the validator checks) and ``speedup(j, others)`` (the speed model's prediction for
``j`` beside the jobs ``others``; None without a co-location model).

Actual run times are not reachable from the view, and nothing in it can be changed by the
policy: per-job tables are read-only (``submit``, ``req``, ``nodes``, ``procs``, ``ids``:
memoryviews over C arrays, giving Python numbers; the SWF's labels: tuples), the queue and the
running list are :class:`FrozenList` (or, while a built-in's compiled pass runs, read-only
sequences over the kernel's C arrays, :class:`~.kernel.CQueue` and :class:`~.kernel.CRunning`;
``joined`` then stays empty), assigning an attribute raises. The view and
:class:`MachineView` are compiled classes whose links to the kernel and its accounting are C
fields: no attribute, and no action's ``__self__``, leads a policy from the view to kernel
state.
"""

from __future__ import annotations

cimport cython
from cpython.object cimport PyObject_RichCompare

from typing import Any

from ..intervals import Intervals
from ..platform import Cluster

__all__ = ["FrozenList", "MachineView", "ReadOnlyError", "View"]


class ReadOnlyError(TypeError):
    """A policy tried to change the view."""


def _read_only(*_args: Any, **_kwargs: Any) -> None:
    raise ReadOnlyError(
        "the scheduler view is read only: copy it (list(view.queue)) to reorder or filter"
    )


@cython.auto_pickle(False)  # its list is the kernel's: no policy's to read or change
@cython.final
cdef class FrozenList:
    """A sequence a policy can read (index, slice, iterate, bisect, compare with a list) but
    not change: the kernel's list is a C field, so neither its methods nor ``list``'s own
    (``list.clear(view.est_sorted)``: a ``TypeError`` in the policy's frame) reach it. A slice
    is a new list. ``FrozenList(items)`` holds a copy of ``items``; the kernel's view holds
    its own lists (:func:`frozen_over`), which it changes between passes."""

    def __init__(self, items=()) -> None:
        self._items = list(items)

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, k):
        return self._items[k]

    def __iter__(self):
        return iter(self._items)

    def __reversed__(self):
        return reversed(self._items)

    def __contains__(self, x) -> bool:
        return x in self._items

    def __richcmp__(self, other, int op):
        if isinstance(other, FrozenList):
            other = (<FrozenList>other)._items
        elif not isinstance(other, list):
            return NotImplemented
        return PyObject_RichCompare(self._items, other, op)

    __hash__ = None  # (compared by value, as a list)

    def __add__(self, other):
        return list(self) + list(other)

    def __radd__(self, other):
        return list(other) + list(self)

    def __copy__(self):
        return list(self._items)

    def __deepcopy__(self, memo):
        return list(self._items)

    def __repr__(self) -> str:
        return f"FrozenList({self._items!r})"

    def index(self, x, *args) -> int:
        """Where ``x`` first is (``list.index``)."""
        return self._items.index(x, *args)

    def count(self, x) -> int:
        """How many times ``x`` is there."""
        return self._items.count(x)

    def copy(self) -> list:
        """A list of the items (the policy's own, to change)."""
        return list(self._items)

    append = extend = insert = remove = pop = clear = sort = reverse = _read_only
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only  # type: ignore[assignment]


cdef FrozenList frozen_over(list items):
    """The view's read-only face of the kernel's list ``items`` (not a copy)."""
    cdef FrozenList f = FrozenList.__new__(FrozenList)
    f._items = items
    return f


cdef object _shared(MachineView m):
    """The shared nodes' accounting, for :class:`MachineView`'s queries (a C function: the
    method that returned it handed policies the kernel's ``claim``, ``place`` and ``release``)."""
    if m._seg is None:
        raise ReadOnlyError("nodes are not shared in this simulation (give a pool)")
    return m._seg


cdef long _index(long i, long n, str what) except -1:
    """``i`` when ``0 <= i < n``: the accounting reads its C arrays at a query's job or node
    unchecked (an index out of range crashed the process or read other memory)."""
    if not 0 <= i < n:
        raise IndexError(f"{what} {i} is out of range (0..{n - 1})")
    return i


@cython.auto_pickle(False)  # its state (the kernel's) is no policy's to read
cdef class MachineView:
    """Read-only queries of the node accounting (whole nodes or shared cores) for ``n`` jobs;
    a job or node out of range is an :class:`IndexError`."""

    def __init__(self, accounting: Any, cluster: Cluster, long n) -> None:
        self._acct = accounting
        self._seg = getattr(accounting, "nodes", None)
        self.shared = accounting.shared
        self.cores_per_node = cluster.cores_per_node
        self._n = n
        self._nodes = cluster.nodes

    @property
    def idle(self) -> int:
        """Whole idle nodes."""
        return self._acct.idle

    def allocation(self, long j) -> Intervals:
        """Node intervals running job ``j`` holds."""
        return list(self._acct.allocation(_index(j, self._n, "job index")))

    def cores_of(self, long j) -> int:
        """Cores per node job ``j`` holds."""
        return self._acct.cores_of(_index(j, self._n, "job index"))

    # -- shared nodes only (co-location) --------------------------------------------------------

    @property
    def total_free(self) -> int:
        """Free cores on the whole machine."""
        return _shared(self).total_free

    def count_with(self, cores: int) -> int:
        """Nodes (idle or partly used) with at least ``cores`` free cores."""
        return _shared(self).count_with(cores)

    def room(self) -> list[int]:
        """``room()[c]`` = nodes with at least ``c`` free cores, for c = 0..cores per node."""
        return _shared(self).room()

    def partly_free(self, cores: int, limit: int | None = None) -> list[tuple[int, int, tuple]]:
        """Runs of partly used nodes with at least ``cores`` free cores, by node id, as
        ``(first, end, jobs on them)``; at most ``limit`` nodes when given (read only)."""
        return list(_shared(self).partly_free(cores, limit))  # (the accounting keeps its own)

    def free_runs(self, cores: int) -> list[tuple[int, int, tuple]]:
        """Runs of nodes, idle or partly used, with at least ``cores`` free cores, by node id,
        as ``(first, end, jobs on them)`` (``()`` on idle nodes)."""
        return _shared(self).free_runs(cores)

    def idle_intervals(self, k: int) -> Intervals:
        """The ``k`` lowest idle nodes, as intervals."""
        return _shared(self).idle_intervals(k)

    def free_cores(self, long node) -> int:
        """Free cores on ``node``."""
        return _shared(self).free_cores(_index(node, self._nodes, "node"))

    def occupants(self, long node) -> list[int]:
        """The jobs on ``node``."""
        return _shared(self).occupants(_index(node, self._nodes, "node"))

    def projection(self, threshold: int) -> Any:
        """A scratch copy of the free cores per node for look-ahead (EASY's shadow time):
        :class:`~.segments.CoreProjection` counting nodes with >= ``threshold`` free cores."""
        return _shared(self).projection(threshold)


@cython.auto_pickle(False)  # its state (the kernel's) is no policy's to read
cdef class View:
    """The read-only view a policy gets at every pass (see the module docstring).

    Its fields are set by the kernel only (C-level assignments); its four actions are methods
    that call the kernel through a C field, so ``start_now.__self__`` is the view itself.
    ``coloc``: what a policy may know of the co-location model, the measured pair and
    spread-alone speedups of the jobs' applications
    (:class:`coschedlab.coloc.speed.ColocInfo`; None without one). ``remaining(j)``: the
    actual time running job ``j`` has left, for a policy that declares ``clairvoyant = True``
    only (a reproduction of a simulator whose policy read it, ELiSE's Conservative
    Scheduler); None for every other policy.
    """

    def ordered(self, key=None):
        """The waiting jobs sorted by ``key(view, j)`` (stable), the jobs the kernel presents
        last (a gate's demoted jobs) after the others; ``key=None``: ``queue`` as presented."""
        return self._kernel._ordered(key)

    def start_now(self, decision) -> None:
        """Apply a decision at once, during the pass (for policies whose later decisions depend
        on where earlier jobs went; the job leaves the queue when the pass ends)."""
        self._kernel._start_now(decision)

    def wake_at(self, double t) -> None:
        """A scheduling pass at ``t`` even if no job arrives or ends then; ``t`` = ``now`` (the
        pass under way) and ``inf`` (never) ask for none, a time in the past or NaN is a
        ``ValueError`` (in the policy's frame: its file and line are said)."""
        if not t >= self.now:
            raise ValueError(
                f"view.wake_at({t!r}) asks for a pass "
                + ("at no time (NaN)" if t != t else f"in the past (now is t={self.now!r})")
            )
        self._kernel._wake_at(t)

    def record_reservation(self, long j, double t) -> None:
        """Record the first reservation given to ``j`` (checked by the validator)."""
        self._kernel._record_reservation(j, t)

    def speedup(self, j, others):
        """The co-location model's predicted speedup of ``j`` beside all of ``others`` (None
        without one)."""
        if self._predicted is None:
            return None
        return self._predicted(j, others)

    def _remaining(self, j):
        if self.remaining is None:  # the method is on every view; it answers a seer only
            raise ReadOnlyError(
                "actual run times are for a policy that declares clairvoyant = True"
            )
        return self._kernel._remaining(j)

    # the SWF's labels per job, made on a policy's first read (the built-ins' compiled passes
    # never read them: a run does not pay a sort and a tuple per column for them)
    @property
    def apps(self):
        """Application id of each job (-1 unknown): a tuple."""
        if self._apps is None:
            self._apps = self._kernel._table("app")
        return self._apps

    @property
    def users(self):
        """The SWF's user number of each job (-1 unknown): a tuple."""
        if self._users is None:
            self._users = self._kernel._table("user")
        return self._users

    @property
    def groups(self):
        """The SWF's group number of each job (-1 unknown): a tuple."""
        if self._groups is None:
            self._groups = self._kernel._table("group")
        return self._groups

    @property
    def queues(self):
        """The trace's queue number of each job (-1 unknown): a tuple."""
        if self._queues is None:
            self._queues = self._kernel._table("queue")
        return self._queues

    @property
    def partitions(self):
        """The SWF's partition number of each job (-1 unknown): a tuple."""
        if self._partitions is None:
            self._partitions = self._kernel._table("partition")
        return self._partitions
