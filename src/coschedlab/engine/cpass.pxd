# distutils: language = c++
"""The compiled policy hook (issue 31 item 1): a built-in scheduler's pass called by the kernel.

A built-in scheduler whose mechanism is compiled carries a :class:`CompiledPass` (its
``compiled_pass`` attribute, made at ``setup``). When it has one, the kernel calls
:meth:`CompiledPass.run` at every scheduling pass instead of ``schedule(view)``: no Python call
per pass or per job, and the kernel's state is handed over as C pointers into its own arrays
(:struct:`PassState`), never as Python objects.

The kernel presents the queue **in the pass's priority order** (``queue_order``: the kernel sorts by
the built-in key, or by the scheduler's ``order_key`` when ``order`` is ``CUSTOM``; with
``OWN`` it shows what the scheduler's own ``ordered_queue(view)`` returns), with the jobs a
gate demoted after all others (not under ``OWN``) and the jobs it holds or hid absent: a pass walks
``s.queue`` as given and knows nothing of gates. With a gate the kernel may call ``run``
again in the same pass (after a hold or a yield, with the job gone from the queue); ``epoch``
changes whenever the kernel changed the queue or the nodes other than by arrivals, completions
and the pass's own starts, so a pass caching verdicts between calls keys them on it.
``joined`` and ``ended`` hand a pass that keeps state of its own (Slurm's pending order and
release list) what changed since its last call, so it need not rescan the queue or the running
jobs to find out (in the kernel's own run; ``joined`` is filled too when the kernel copies its
Python lists into the arrays, ELiSE's clock, ``ended`` is then empty, and only
``reaskable`` passes run there). A pass that starts its jobs itself, on the nodes it chose
(:class:`~.cshared.SharedPass`: co-location, Slurm's ``bf_nodes``), does so through the
kernel's :class:`~.cshared.Starter`.
"""

from libcpp.algorithm cimport lower_bound, upper_bound
from libcpp.utility cimport pair
from libcpp.vector cimport vector

ctypedef pair[double, long] Est  # a running job: (start + requested time, j)

cdef extern from *:
    """
    #ifndef COSCHED_EST_LIST
    #define COSCHED_EST_LIST
    #include <algorithm>
    #include <cstring>
    #include <utility>
    #include <vector>
    /* The kernel's sorted running list: its entries are v[lo:hi], with room on both sides, so
       that an insertion or a removal moves the shorter side (the entries before it or the ones
       after), not always the tail: on a busy machine the jobs ending soonest sit at the front,
       and their removals moved every other entry. The entries move as bytes (a pair of a
       double and a long): the pairs' assignment is not trivial to the compiler. */
    struct cosched_est_list {
        typedef std::pair<double, long> E;
        std::vector<E> v;
        size_t lo = 0, hi = 0;
        E *data() { return v.data() + lo; }
        size_t size() const { return hi - lo; }
        E &operator[](size_t i) { return v[lo + i]; }
        E *begin() { return v.data() + lo; }
        E *end() { return v.data() + hi; }
        void clear() { lo = hi = v.size() / 2; }
        void recenter() {  /* twice the entries and 64 more, the entries in the middle */
            size_t n = hi - lo, cap = 2 * n + 64, at = (cap - n) / 2;
            std::vector<E> w(cap);
            if (n) std::memmove((void *)&w[at], (const void *)&v[lo], n * sizeof(E));
            v.swap(w);
            lo = at;
            hi = at + n;
        }
        void push_back(const E &e) {
            if (hi == v.size()) recenter();
            v[hi++] = e;
        }
        void insert_sorted(const E &e) {  /* after its equals */
            size_t n = hi - lo, i = std::upper_bound(begin(), end(), e) - begin();
            if (i < n - i) {  /* the entries before it move one down */
                if (lo == 0) recenter();
                std::memmove((void *)&v[lo - 1], (const void *)&v[lo], i * sizeof(E));
                lo--;
            } else {  /* the entries after it move one up */
                if (hi == v.size()) recenter();
                std::memmove((void *)&v[lo + i + 1], (const void *)&v[lo + i],
                             (n - i) * sizeof(E));
                hi++;
            }
            v[lo + i] = e;
        }
        void erase_sorted(const E &e) {  /* one entry equal to e (present) */
            size_t n = hi - lo, i = std::lower_bound(begin(), end(), e) - begin();
            if (i < n - 1 - i) {
                std::memmove((void *)&v[lo + 1], (const void *)&v[lo], i * sizeof(E));
                lo++;
            } else {
                std::memmove((void *)&v[lo + i], (const void *)&v[lo + i + 1],
                             (n - i - 1) * sizeof(E));
                hi--;
            }
        }
    };
    #endif
    """
    cdef cppclass EstList "cosched_est_list":
        Est* data()
        size_t size()
        Est& operator[](size_t)
        Est* begin()
        Est* end()
        void clear()
        void push_back(const Est&)
        void insert_sorted(const Est&)  # after its equals
        void erase_sorted(const Est&)  # one entry equal to it (present)


#: ``CompiledPass.order`` codes: the built-in queue orders (the arithmetic of
#: :data:`coschedlab.schedulers.base.ORDERS`), and a custom key the kernel calls in Python
cdef enum:
    FCFS = 0
    SJF = 1
    LXF = 2
    WFP = 3
    CUSTOM = -1
    OWN = -2  # the scheduler's own ``ordered_queue(view)`` (a subclass's), called in Python


cdef struct PassState:
    # read only (the kernel's arrays; valid during the call)
    double now
    long free              # whole idle nodes
    long completed         # jobs ended so far
    long arrived           # jobs submitted so far (joined the queue or not)
    double next_end        # the earliest completion the kernel holds (inf: none; at most the
                           # next one: a pass comes then anyway, whatever this pass does)
    long epoch             # changes of the queue or nodes made by the kernel (module doc)
    const long* queue      # waiting jobs in the pass's priority order (module doc)
    long nq
    const Est* est         # running jobs, sorted (view.est_sorted); none for a pass that
    long nest              # keeps its own (``CompiledPass.own_running``)
    const long* joined     # jobs that joined the queue since the pass was last called
    long njoined           # (arrivals, released dependants, released holds), as they joined
    const long* ended      # jobs that ended since the pass was last called, in that order
    long nended
    const long* nodes      # per job: whole nodes needed
    const double* req      # per job: requested time
    const double* submit   # per job: submit time
    # written by the pass
    double* reservation    # per job: its first reservation (NaN: none yet; set once)
    vector[long]* started  # the jobs to start now, in order (each fits, all together)
    double wake            # a pass wanted at this time (inf: none)


cdef class CompiledPass:
    cdef public int queue_order  # the queue order the kernel presents (FCFS, ..., OWN)
    # the pass reads the queue afresh at each call (no pending list of its own): the kernel
    # may ask it again within a pass (a gate's hold or yield) and so serve gated runs with it
    cdef public bint reaskable
    # the pass never reads ``s.est``: it keeps the running jobs itself (from its starts and
    # ``s.ended``), so the kernel keeps no sorted running list for it (``view.est_sorted`` is
    # then sorted when read)
    cdef public bint own_running
    cdef int run(self, PassState* s) except -1
