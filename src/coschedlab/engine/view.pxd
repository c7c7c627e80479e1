"""C declarations of :mod:`coschedlab.engine.view` (the kernel sets the view's fields)."""


cdef class FrozenList:
    cdef list _items  # the kernel's list (reached from C only)


cdef FrozenList frozen_over(list items)


cdef class MachineView:
    cdef object _acct
    cdef object _seg
    cdef long _n, _nodes  # jobs and nodes: the queries' arguments are checked against them
    cdef readonly bint shared
    cdef readonly long cores_per_node


cdef class View:
    cdef object _kernel     # the kernel: reached from C only
    cdef object _predicted  # the speed model's predicted(j, others), or None
    cdef readonly double now
    cdef readonly long free
    cdef readonly object queue, joined, queued, submit, req, nodes, procs, ids
    cdef object _apps, _users, _groups, _queues, _partitions  # made on first read
    cdef readonly object start, est_sorted
    cdef readonly MachineView machine
    cdef readonly object cluster
    cdef readonly long n, completed
    cdef readonly bint has_dependencies
    cdef readonly object coloc, remaining
