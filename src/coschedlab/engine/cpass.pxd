# distutils: language = c++
"""The compiled policy hook (issue 31 item 1): a built-in scheduler's pass called by the kernel.

A built-in scheduler whose mechanism is compiled carries a :class:`CompiledPass` (its
``compiled_pass`` attribute, made at ``setup``). When it has one and the run has no gate
(coupled co-scheduling), the kernel calls :meth:`CompiledPass.run` at every scheduling pass
instead of ``schedule(view)``: no Python call per pass or per job, and the kernel's state is
handed over as C pointers into its own arrays (:struct:`PassState`), never as Python objects.
"""

from libcpp.utility cimport pair
from libcpp.vector cimport vector

ctypedef pair[double, long] Est  # a running job: (start + requested time, j)


cdef struct PassState:
    # read only (the kernel's arrays; valid during the call)
    double now
    long free              # whole idle nodes
    long completed         # jobs ended so far
    long arrived           # jobs submitted so far (joined the queue or not)
    long overrides         # decisions the kernel did not apply as returned (view.overrides)
    const long* queue      # waiting jobs in (submit, id) order, i.e. ascending index
    long nq
    const Est* est         # running jobs, sorted (view.est_sorted)
    long nest
    const long* nodes      # per job: whole nodes needed
    const double* req      # per job: requested time
    const double* submit   # per job: submit time
    # written by the pass
    double* reservation    # per job: its first reservation (NaN: none yet; set once)
    vector[long]* started  # the jobs to start now, in order (each fits, all together)
    double wake            # a pass wanted at this time (inf: none)


cdef class CompiledPass:
    cdef int run(self, PassState* s) except -1
