# distutils: language = c++
"""The built-in schedulers' passes, compiled (issue 31 item 1): EASY, strict list scheduling
(fcfs, sjf), first fit, backfilling on the availability profile (conservative, ``backfill``
with ``reservations`` and ``compress``: :class:`ProfilePass`) and Slurm's whole pass
(priorities, main scheduler, backfill thread and their clocks: :class:`SlurmPass`), called by
the kernel through :class:`~coschedlab.engine.cpass.CompiledPass` on its own C arrays, with no
Python call per pass or per job. :class:`CProfile` is the one profile in C
(:func:`.profile.reservation_scan` on :class:`.profile.Profile` is the Python building block
for a policy's own pass).

Each is the one implementation of its mechanism, for every run: any queue order (the kernel
presents ``s.queue`` sorted by the policy's order, :mod:`coschedlab.engine.cpass`), coupled
runs (the kernel's gate holds, yields and demotes jobs in the queue it presents) and ELiSE's
clock (the kernel copies its Python lists into the arrays). The Python passes they replaced
are the test-suite's oracles (tests/reference_passes.py). Slurm's pass keeps its own pending
order: gated (coupled) runs and ELiSE's clock call it as :meth:`SlurmPass.serve_gate` says,
and with ``bf_nodes`` (:meth:`SlurmPass.node_map`) it plans each backfill pass on the
compiled node-space map (:class:`.nodemap.NodeMap`, which nodes rather than how many, built
from the kernel's running jobs and their node intervals) and starts its jobs itself through
the kernel's :class:`~coschedlab.engine.cshared.Starter`, in C.
"""

from array import array

cimport cython
from cython.operator cimport dereference as deref
from libc.limits cimport LONG_MAX
from libc.string cimport memmove
from libc.math cimport INFINITY, NAN, ceil, fabs, floor, llround, nextafter, pow
from libcpp.algorithm cimport (
    is_sorted, lower_bound, min_element, partial_sort, sort, upper_bound
)
from libcpp.utility cimport pair
from libcpp.vector cimport vector

from coschedlab.engine.cpass cimport (
    CUSTOM, FCFS, LXF, OWN, SJF, WFP, CompiledPass, Est, PassState
)
from coschedlab.engine.cshared cimport SharedPass
from coschedlab.schedulers.nodemap cimport NodeMap
from coschedlab.schedulers.rules cimport admit_c

ctypedef pair[double, long] Keyed
ctypedef pair[double, double] Window  # a candidate slot and the end of its window

# bounds on the work of one look ahead (SlurmPass.lookahead): dry passes, recalculations
cdef long MAX_SCANS = 32
cdef long MAX_RECALCS = 32
cdef long MAX_CLASSES = 8  # beyond: each tick its own class

# a zero requested time holds its nodes for an instant on the profile (backfill.INSTANT)
cdef double INSTANT = 1e-6

cdef const long long[::1] _longs(object a):
    """A sequence of ints as a C array: a buffer of int64 as it is (a view's table, an
    array), anything else copied (no Python object per element read in the loops)."""
    try:
        return a
    except (TypeError, ValueError, BufferError):
        return array("q", a)


cdef const double[::1] _doubles(object a):
    """A sequence of numbers as a C array of doubles (:func:`_longs`)."""
    try:
        return a
    except (TypeError, ValueError, BufferError):
        return array("d", a)


cdef inline bint before(const Est& x, const Est& y) noexcept:
    """``x < y`` as tuples."""
    return x.first < y.first or (x.first == y.first and x.second < y.second)


#: the queue orders the kernel presents to a compiled pass (``CompiledPass.queue_order``)
ORDER_CODES = {"fcfs": FCFS, "sjf": SJF, "lxf": LXF, "wfp": WFP, "custom": CUSTOM, "own": OWN}


cdef class OrderedPass(CompiledPass):
    """A pass over the queue in one of the built-in priority orders, or a custom key's
    (``"custom"``: the scheduler's ``order_key``): the kernel presents ``s.queue`` sorted so
    (:mod:`coschedlab.engine.cpass`)."""

    def __init__(self, str order="fcfs"):
        self.queue_order = ORDER_CODES[order]
        self.reaskable = True


cdef class StrictPass(OrderedPass):
    """fcfs and sjf: the longest prefix of the ordered queue that fits
    (:func:`.strict.start_in_order`)."""

    cdef int run(self, PassState* s) except -1:
        cdef const long* q = s.queue
        cdef long k, j, free = s.free
        for k in range(s.nq):
            j = q[k]
            if s.nodes[j] > free:
                break
            free -= s.nodes[j]
            s.started.push_back(j)
        return 0


cdef class FirstFitPass(OrderedPass):
    """firstfit: every job that fits now, in priority order (:class:`.strict.FirstFit`)."""

    cdef int run(self, PassState* s) except -1:
        cdef const long* q = s.queue
        cdef long k, j, free = s.free
        for k in range(s.nq):
            if free == 0:
                break
            j = q[k]
            if s.nodes[j] <= free:
                free -= s.nodes[j]
                s.started.push_back(j)
        return 0


cdef class EasyPass(OrderedPass):
    """EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001), the closed form of
    :class:`.backfill.Backfill` with one reservation: the jobs that fit from the head, the
    head's shadow time and extra nodes (:func:`.easy.shadow_time`), then later jobs that fit
    now by rule (a) or (b) (:func:`.easy.admit`); ``extra``, ``depth``, ``interval`` and the
    scan memo (:class:`.easy.ScanMemo`, keyed on ``s.epoch`` too)."""

    cdef bint use_extra, memo_on, has_key
    cdef long depth  # -1: no limit
    cdef double interval  # 0: backfill at every pass
    cdef double next_backfill, woken
    cdef vector[char] reserved
    cdef long key_head, key_completed, key_epoch, scanned_to
    cdef vector[Est] just

    def __init__(self, long n, str order="fcfs", bint extra=True, depth=None, interval=None):
        OrderedPass.__init__(self, order)
        self.use_extra = extra
        self.depth = -1 if depth is None else depth
        self.interval = 0.0 if interval is None else interval
        self.next_backfill = -INFINITY
        self.woken = -INFINITY
        self.reserved.assign(n, 0)
        self.memo_on = self.queue_order == FCFS and depth is None and interval is None
        self.has_key = False
        self.scanned_to = -1

    cdef (double, long) shadow(self, PassState* s, const long* q, long i, long head, long free):
        """EASY's shadow time and extra nodes for ``head`` with ``free`` nodes idle, the jobs
        ``q[:i]`` running from now (the merge of ``s.est`` and their estimated ends)."""
        cdef double now = s.now, found, e
        cdef long need = s.nodes[head], count = free, a = 0, b = 0, k, j
        self.just.clear()
        for k in range(i):
            self.just.push_back(Est(now + s.req[q[k]], q[k]))
        sort(self.just.begin(), self.just.end())
        found = now if count >= need else INFINITY
        while a < s.nest or b < <long>self.just.size():
            if b >= <long>self.just.size() or (a < s.nest and before(s.est[a], self.just[b])):
                e, j = s.est[a].first, s.est[a].second
                a += 1
            else:
                e, j = self.just[b].first, self.just[b].second
                b += 1
            if e < now:
                e = now
            if e > found:
                break
            count += s.nodes[j]
            if found == INFINITY and count >= need:
                found = e
        if found == INFINITY:
            return INFINITY, 0
        return found, count - need

    cdef int run(self, PassState* s) except -1:
        cdef const long* q = s.queue
        cdef long nq = s.nq, i = 0, j, nj, head, limit, first, k, extra = 0, left
        cdef long free = s.free
        cdef double now = s.now, shadow = 0.0
        cdef bint backfill, have = False, same
        while i < nq and s.nodes[q[i]] <= free:
            free -= s.nodes[q[i]]
            s.started.push_back(q[i])
            i += 1
        if i == nq:
            return 0
        head = q[i]
        backfill = free > 0 and i + 1 < nq
        if self.interval > 0:
            if now >= self.next_backfill:  # a backfill pass is due (cadence.Ticks.after)
                self.next_backfill = (floor(now / self.interval) + 1) * self.interval
            else:
                if backfill and self.woken != self.next_backfill:
                    s.wake = self.next_backfill
                    self.woken = self.next_backfill
                backfill = False
        if not self.reserved[head]:
            shadow, extra = self.shadow(s, q, i, head, free)
            have = True
            if s.reservation[head] != s.reservation[head]:  # record_reservation: first only
                s.reservation[head] = shadow
            self.reserved[head] = 1
        if not backfill:
            return 0
        limit = nq if self.depth < 0 else min(nq, i + 1 + self.depth)
        first = i + 1
        # ScanMemo.same: nothing changed since the last scan, only new jobs need a look
        same = (
            self.memo_on and self.has_key and self.key_head == head
            and self.key_completed == s.completed and self.key_epoch == s.epoch
            and (s.nest == 0 or s.est[0].first >= now)
        )
        self.has_key = True
        self.key_head, self.key_completed, self.key_epoch = head, s.completed, s.epoch
        if same and i == 0:
            k = upper_bound(q, q + nq, self.scanned_to) - q
            if k > first:
                first = k
        self.scanned_to = q[nq - 1]
        for k in range(first, limit):
            j = q[k]
            nj = s.nodes[j]
            if nj > free:
                continue
            if not have:  # before any job started by these rules: free is as above
                shadow, extra = self.shadow(s, q, i, head, free)
                have = True
            left = admit_c(now, s.req[j], shadow, nj, extra, self.use_extra)  # rules (a), (b)
            if left < 0:
                continue
            extra = left
            s.started.push_back(j)
            free -= nj
            if free == 0:
                break
        return 0


cdef struct Step:
    double t  # a breakpoint
    long free  # the free nodes from it to the next, less its block's ``add``


cdef struct Rel:
    double t  # a release time
    int n  # the nodes released then
    int c  # the jobs released then (0: an entry no longer used, skipped)


cdef struct Held:
    double t  # a started job's release: its start + time limit, rounded up (inf: not started)
    long n  # its nodes (one record: a job's end reads both at once, one cache miss, not three)


cdef struct Prio:
    double origin  # a job's age origin (nan: not known yet)
    double size  # its size factor (one record: a priority key reads both, one cache miss)


cdef struct Seen:
    long need  # a tested job's nodes
    double d  # its duration


ctypedef fused Timed:  # the sorted records searched by their time ``t``
    Step
    Rel


cdef inline long first_at_or_after(const Timed* p, long lo, long hi, double t) noexcept:
    """The first index in ``[lo, hi)`` whose time is at or after ``t`` (``hi``: none)."""
    cdef long mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if p[mid].t < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline long rel_at_or_after(const vector[Rel]& v, double t) noexcept:
    """The first index of the time-sorted ``v`` whose time is at or after ``t``."""
    return first_at_or_after(v.data(), 0, v.size(), t)


# the steps of a profile go in blocks of BLOCK to 2 x BLOCK consecutive steps, unless it
# starts with fewer than FLAT steps (CProfile)
cdef long BLOCK = 16
cdef long FLAT = 256
# the room a profile keeps before its first step (CProfile.insert)
cdef long FRONT = 64


# SlurmPass.ended sweeps its release list's entries of no job once there are more than SWEEP
# of them and they are a quarter of the list (-1: at once, each time one appears)
cdef long SWEEP = 16


def release_sweep(long sweep) -> int:
    """Set when :class:`SlurmPass` sweeps the entries of no job from its release list (-1: at
    once; a large number: never; for the tests, which reach every path with small runs);
    returns the previous setting."""
    global SWEEP
    old = SWEEP
    SWEEP = sweep
    return old


def profile_front(long front) -> int:
    """Set the room :class:`CProfile` keeps before its first step (for the tests, which reach
    the insert's every path with little room); returns the previous setting."""
    global FRONT
    if front < 0:
        raise ValueError(f"front {front} < 0")
    old = FRONT
    FRONT = front
    return old


def profile_blocks(long block, long flat) -> tuple[int, int]:
    """Set :class:`CProfile`'s block size and the size below which a profile is one block
    (for the tests, which reach every path with small ones); returns the previous ones."""
    global BLOCK, FLAT
    if block < 1 or flat < 0:
        raise ValueError(f"block {block} < 1 or flat {flat} < 0")
    old = (BLOCK, FLAT)
    BLOCK, FLAT = block, flat
    return old


@cython.final
cdef class CProfile:
    """:class:`.profile.Profile` in C (free nodes as a step function of future time): the same
    breakpoints, the same arithmetic, hence the same slots.

    The steps lie in one array cut into blocks of consecutive steps (``bs``: each block's
    first index, and the count at the end), each with a count added to all of its steps
    (``add``, lazy) and their least free count (``least``). A hold takes its nodes from the
    blocks it covers whole in one subtraction each, and a test's duration check passes a
    block that ends before the duration does and has the nodes throughout in one comparison:
    on a profile of hundreds of releases (a large machine), a hold covered about half of the
    steps, one by one (Edison: 340 steps, 36 holds of 170 steps each per scan). A profile
    made with fewer than ``FLAT`` steps is one block (its least count, read by nobody, is not
    kept: the small profiles pay for no blocks). A step added by a hold joins the block of
    the step before it, which is split in two when it reaches 2 x ``BLOCK`` steps; the
    array keeps room before its first step (``FRONT``), so that the insert moves the steps
    before the new one back when they are fewer than those after it (a hold's end is most
    often in the profile's first part: half the memory moved or less).
    :meth:`test` leaves the indices of the slot and of its end for the :meth:`hold` that
    follows (no search for them)."""

    # the steps: ``buf[off : off + ns]`` (:meth:`sp`: their first; room before them)
    cdef vector[Step] buf
    cdef long off, ns
    cdef vector[long] bs, add, least
    cdef vector[double] last  # each block's last breakpoint (and inf after the last block)
    cdef bint stale  # the blocks not made since the last release
    cdef bint flat  # a small profile: one block, its least count not kept
    cdef long at, to  # the last test's slot index and end index (-1: not known)
    # :meth:`test` notes each candidate window that fails at a step at or before ``noted_to``
    # (its slot and end) in ``cand`` (-inf: none; :meth:`CountScan.shift_bound`)
    cdef double noted_to
    cdef vector[Window] cand
    cdef long at_b, to_b  # the blocks of ``at`` and ``to`` (or of the last step), for hints

    cdef inline Step* sp(self) noexcept:
        """The first step (the steps are ``sp()[0 : ns]``)."""
        return self.buf.data() + self.off

    cdef inline void room(self, long n) noexcept:
        """Start ``n`` steps (not written) after ``FRONT`` steps of room."""
        if <long>self.buf.size() < FRONT + n:
            self.buf.resize(FRONT + n)
        self.off, self.ns = FRONT, n

    cdef inline void reset(self, double now, long free) noexcept:
        """Start at ``now`` with ``free`` nodes, nothing released later."""
        cdef Step* p
        self.room(1)
        p = self.sp()
        p[0].t = now
        p[0].free = free
        self.stale = True
        self.at = -1
        self.noted_to = -INFINITY

    cdef inline void release(self, double t, long n) noexcept:
        """``n`` nodes free from ``t`` on (releases come in time order; at or before the
        first breakpoint: released then)."""
        cdef Step e
        cdef Step* p = self.sp()
        cdef Step* last = &p[self.ns - 1]
        self.stale = True
        self.at = -1
        if t <= p[0].t:
            p[0].free += n
        elif t == last.t:
            last.free += n
        else:
            e.t = t
            e.free = last.free + n
            if self.off + self.ns == <long>self.buf.size():
                self.buf.push_back(e)
            else:
                self.buf[self.off + self.ns] = e
            self.ns += 1

    cdef void blocks(self, bint rising) noexcept:
        """Cut the steps (their own counts, nothing added) into blocks of BLOCK (``rising``:
        the counts never fall from a step to the next, so a block's least is its first)."""
        cdef long n = self.ns, nb = (n + BLOCK - 1) // BLOCK, b
        cdef const Step* p = self.sp()
        self.flat = n < FLAT
        if self.flat:
            nb = 1
        self.bs.resize(nb + 1)
        self.add.assign(nb, 0)
        self.least.resize(nb)
        for b in range(nb):
            self.bs[b] = b * BLOCK
        self.bs[nb] = n
        self.stale = False
        if self.flat:  # (its least counts and last breakpoints are not kept)
            return
        self.last.resize(nb + 1)
        for b in range(nb):
            self.last[b] = p[self.bs[b + 1] - 1].t
        self.last[nb] = INFINITY
        if rising:
            for b in range(nb):
                self.least[b] = p[self.bs[b]].free
        else:
            for b in range(nb):
                self.least_of(b)

    cdef inline void least_of(self, long b) noexcept:
        """Block ``b``'s least count, from its steps."""
        cdef const Step* p = self.sp()
        cdef long m, lo = p[self.bs[b]].free
        for m in range(self.bs[b] + 1, self.bs[b + 1]):
            lo = min(lo, p[m].free)
        self.least[b] = lo + self.add[b]

    cdef inline long block_of(self, long m) noexcept:
        """The block holding index ``m``."""
        return (upper_bound(self.bs.begin(), self.bs.end() - 1, m) - self.bs.begin()) - 1

    cdef inline long block_near(self, long m, long h) noexcept:
        """The block holding index ``m``, looked for from block ``h`` (-1: none known): a
        hint a block or two from it costs a comparison or two, not a search."""
        cdef const long* bs = self.bs.data()
        cdef long last = <long>self.bs.size() - 2
        if h < 0:
            return self.block_of(m)
        h = min(h, last)
        while h < last and bs[h + 1] <= m:
            h += 1
        while h > 0 and bs[h] > m:
            h -= 1
        return h

    cdef void counts(self, double now, long free, const vector[Rel]& ends) noexcept:
        """:meth:`reset` then :meth:`release` of each of ``ends`` (sorted by time; an entry
        of no job is skipped; each releases ``n >= 0`` nodes), written in place (the same
        steps). The counts only rise from step to step: each block's least count is its
        first step's (:meth:`blocks`, no walk). The last step's time and count are carried
        in locals, not read back from the step just written (a chain through memory: ~3x the
        time on Edison's ~500 releases a scan, for the same instructions)."""
        cdef long n = ends.size(), k = 0, m = 0, cur = free
        cdef double at = now
        cdef const Rel* e = ends.data()
        cdef Step* p
        self.room(n + 1)
        p = self.sp()
        while k < n and e[k].t <= now:
            cur += e[k].n
            k += 1
        p[0].t = now
        p[0].free = cur
        while k < n:
            if e[k].c == 0:
                pass
            elif e[k].t == at:
                cur += e[k].n
                p[m].free = cur
            else:
                m += 1
                at = e[k].t
                cur += e[k].n
                p[m].t = at
                p[m].free = cur
            k += 1
        self.ns = m + 1
        self.blocks(True)
        self.at = -1
        self.noted_to = -INFINITY

    cdef inline double test(self, long need, double duration) noexcept:
        """:meth:`.profile.Profile.test`: the earliest breakpoint from which ``need`` nodes
        stay free for ``duration`` (inf: never)."""
        cdef const Step* p
        cdef const long* bs
        cdef const long* add
        cdef const long* least
        cdef const double* last
        cdef long n = self.ns, i = 0, k, b = 0, kb, nxt, lo
        cdef double end, noted = self.noted_to
        cdef bint ok
        if self.stale:
            self.blocks(False)
        p = self.sp()
        bs, add, least = self.bs.data(), self.add.data(), self.least.data()
        if self.flat:  # one block: the same walk with its count folded into ``need``
            lo = need - add[0]
            while i < n:
                while i < n and p[i].free < lo:
                    i += 1
                if i == n:
                    break
                end = p[i].t + duration
                k = i + 1
                while k < n and p[k].t < end and p[k].free >= lo:
                    k += 1
                if k < n and p[k].t < end:  # fails at step ``k``
                    if p[k].t <= noted:  # (failed at a step up to ``noted_to``)
                        self.cand.push_back(Window(p[i].t, end))
                    i = k + 1
                    continue
                self.at, self.to = i, (k if duration > 0 else -1)
                return p[i].t
            self.at = -1
            return INFINITY
        # blocks: each walk goes a block at a time, its count folded into ``need`` (no
        # block bookkeeping per step), the same comparisons in the same order
        last = self.last.data()
        while i < n:
            while bs[b + 1] <= i:
                b += 1
            lo, nxt = need - add[b], bs[b + 1]
            while i < nxt and p[i].free < lo:
                i += 1
            if i == nxt:  # (none in this block)
                continue
            end = p[i].t + duration
            k = i + 1
            kb = b  # (``nxt``: the end of block ``kb``; ``lo``: its need)
            ok = True
            while True:
                if k == nxt:  # the next blocks: those that end before the window does with
                    kb += 1  # the nodes throughout are passed whole (``last``: inf at the end)
                    while last[kb] < end and least[kb] >= need:
                        kb += 1
                    k = bs[kb]
                    if k == n:  # (past the last block)
                        kb -= 1
                        break
                    lo, nxt = need - add[kb], bs[kb + 1]
                if last[kb] < end:  # the block ends before the window: its counts only
                    if least[kb] >= need:  # (the window's first block: all have the nodes)
                        k = nxt
                        continue
                    while k < nxt and p[k].free >= lo:
                        k += 1
                    if k < nxt:  # a step without the nodes
                        ok = False
                        break
                else:  # the window's end is in the block: the walk stops in it
                    while p[k].t < end and p[k].free >= lo:
                        k += 1
                    ok = not p[k].t < end  # (the end reached, or a step without the nodes)
                    break
            if ok:  # (``k``: the end's index, unless the duration is not positive)
                self.at, self.to = i, (k if duration > 0 else -1)
                self.at_b, self.to_b = b, kb
                return p[i].t
            # (noted out of the walk: a call in its loop made the compiler keep its counters
            # in memory, ~4,000 instructions more a scan on Edison's long profiles)
            if p[k].t <= noted:  # (failed at a step up to ``noted_to``)
                self.cand.push_back(Window(p[i].t, end))
            i = k + 1
        self.at = -1
        return INFINITY

    cdef inline bint ends_at_step(self, double end) noexcept:
        """The window the last :meth:`test` found ends at a breakpoint (``end``: its end)."""
        return 0 <= self.to < self.ns and self.sp()[self.to].t == end

    cdef void insert(self, long k, double t, long hint) noexcept:
        """A breakpoint at ``t`` at index ``k >= 1``, with the count of the step before
        (at the end of that step's block, which is split when it grows to 2 x BLOCK;
        ``hint``: a block near that one, -1: none known)."""
        cdef long b, c, nb = self.add.size(), half, n = self.ns
        cdef Step* p
        if k <= n - k and self.off > 0:  # the steps before ``k`` back one (fewer)
            self.off -= 1
            p = self.sp()
            memmove(p, p + 1, k * sizeof(Step))
        else:  # the steps from ``k`` on forward one
            if self.off + n == <long>self.buf.size():
                self.buf.push_back(self.buf.back())  # (one more: cheaper than a resize)
            p = self.sp()
            memmove(&p[k + 1], &p[k], (n - k) * sizeof(Step))
        self.ns += 1
        # (fields written in place: a Step built aside and copied whole stalls the copy)
        p[k].t = t
        p[k].free = p[k - 1].free
        if self.flat:
            self.bs[1] += 1
            return
        b = self.block_near(k - 1, hint)
        if k == self.bs[b + 1]:  # (the block's new last step)
            self.last[b] = t
        for c in range(b + 1, nb + 1):
            self.bs[c] += 1
        if self.bs[b + 1] - self.bs[b] >= 2 * BLOCK:
            half = self.bs[b] + BLOCK
            self.last.insert(self.last.begin() + b, p[half - 1].t)
            self.bs.insert(self.bs.begin() + b + 1, half)
            self.add.insert(self.add.begin() + b + 1, self.add[b])
            self.least.insert(self.least.begin() + b + 1, 0)
            self.least_of(b)
            self.least_of(b + 1)

    cdef inline void hold(self, long need, double t, double duration) noexcept:
        """:meth:`.profile.Profile.hold`: take ``need`` nodes during ``[t, t + duration)``
        (right after the :meth:`test` that found ``t``: at the indices it found)."""
        cdef long i, k, m, bi, bk, c, n = self.ns
        cdef double end = t + duration
        cdef Step* p
        cdef bint found = 0 <= self.at < n and self.sp()[self.at].t == t
        if self.stale:
            self.blocks(False)
        if found:
            i = self.at
        else:
            i = first_at_or_after(self.sp(), 0, n, t)
            self.to = -1
            if i == n or self.sp()[i].t != t:
                self.insert(i, t, -1)
                n += 1
        k = self.to if self.to >= 0 else first_at_or_after(self.sp(), i, n, end)
        self.at = -1
        if k == n or self.sp()[k].t != end:  # (the test's blocks: hints, an insert may split)
            self.insert(k, end, self.to_b if found else -1)
        if k <= i:
            return
        if self.flat:
            p = self.sp()
            for m in range(i, k):
                p[m].free -= need
            return
        bi = self.block_near(i, self.at_b if found else -1)
        bk = self.block_near(k - 1, self.to_b if found else -1)
        if bi == bk:
            self.take(bi, i, k, need)
            return
        self.take(bi, i, self.bs[bi + 1], need)
        for c in range(bi + 1, bk):
            self.add[c] -= need
            self.least[c] -= need
        self.take(bk, self.bs[bk], k, need)

    cdef inline void take(self, long b, long i, long k, long need) noexcept:
        """Take ``need >= 0`` nodes from the steps ``[i, k)`` of block ``b``. Its least count
        becomes the lesser of the old one and the least of those steps after the take, with
        no walk of the block's other steps (exact: their least is at least the old least,
        and is the old least unless that was in ``[i, k)``, all of whose steps are then at
        or below it after the take)."""
        cdef Step* p = self.sp()
        cdef long m, lo = LONG_MAX
        if i == self.bs[b] and k == self.bs[b + 1]:
            self.add[b] -= need
            self.least[b] -= need
            return
        for m in range(i, k):
            p[m].free -= need
            lo = min(lo, p[m].free)
        self.least[b] = min(self.least[b], lo + self.add[b])


cdef class ProfilePass(OrderedPass):
    """Backfilling on the availability profile (Mu'alem and Feitelson 2001): conservative
    (every job reserved), ``backfill`` with ``reservations`` (None: all) and ``compress``. The
    compiled :func:`.profile.reservation_scan` on :class:`.profile.Profile`, with the same
    arithmetic and in the same order, so the schedules and reservations are the Python scan's
    (tests/reference_passes.py: ``PyBackfill._profile``, the oracle)."""

    cdef long reservations  # -1: every job
    cdef bint compress, while_full
    cdef CProfile prof
    cdef vector[double] slot
    cdef vector[Keyed] ranked
    cdef vector[long] by_slot

    def __init__(self, long n, str order="fcfs", reservations=None, bint compress=False):
        OrderedPass.__init__(self, order)
        self.reservations = -1 if reservations is None else reservations
        self.compress = compress
        # with a limited number of reservations (or compression) the scan goes on while
        # nothing is free, until they are made
        self.while_full = compress or reservations is not None
        self.slot.assign(n, INFINITY)
        self.prof = CProfile()

    cdef const long* pass_order(self, PassState* s) except? NULL:
        """:meth:`.backfill.Backfill.pass_order`: the ordered queue, with compression the
        previously reserved jobs first in the order of their slots."""
        cdef const long* q = s.queue
        cdef long k
        if not self.compress:
            return q
        self.ranked.resize(s.nq)
        for k in range(s.nq):
            self.ranked[k] = Keyed(self.slot[q[k]], k)
        sort(self.ranked.begin(), self.ranked.end())
        self.by_slot.resize(s.nq)
        for k in range(s.nq):
            self.by_slot[k] = q[self.ranked[k].second]
        return self.by_slot.data()

    cdef int run(self, PassState* s) except -1:
        cdef const long* q = self.pass_order(s)
        cdef long k, j, nj, reserved = 0, free = s.free
        cdef double d, t, now = s.now
        cdef CProfile prof = self.prof
        prof.reset(now, free)
        for k in range(s.nest):
            prof.release(s.est[k].first, s.nodes[s.est[k].second])
        for k in range(s.nq):
            if free == 0 and not (
                self.while_full and (self.reservations < 0 or reserved < self.reservations)
            ):
                break
            j = q[k]
            nj = s.nodes[j]
            d = s.req[j] if s.req[j] != 0 else INSTANT
            t = prof.test(nj, d)
            if t <= now and nj != 0 and nj <= free:
                prof.hold(nj, now, d)
                free -= nj
                s.started.push_back(j)
                if self.compress:
                    self.slot[j] = INFINITY
            elif nj != 0 and (self.reservations < 0 or reserved < self.reservations):
                prof.hold(nj, t, d)
                reserved += 1
                if self.compress:
                    self.slot[j] = t
                if s.reservation[j] != s.reservation[j]:  # record_reservation: first only
                    s.reservation[j] = t
        return 0


cdef class CountScan:
    """Slurm's backfill pass on its node-count profile (:meth:`.slurm.Slurm._backfill` without
    ``bf_nodes``), compiled: the reservation scan of :func:`.profile.reservation_scan` on a
    :class:`CProfile`, each job's time limit rounded up to ``bf_resolution`` past ``now``, no
    slot beyond the window. :class:`SlurmPass` calls :meth:`scan_c` on the kernel's arrays;
    the tests' Python pass (tests/reference_passes.py ``PySlurm``) calls :meth:`scan`."""

    cdef CProfile prof
    cdef vector[long] nodes
    cdef vector[double] limit
    cdef vector[char] just
    cdef vector[Keyed] rel
    cdef vector[double] moving  # the ends of the holds that move with ``now`` (scan_c)
    cdef vector[double] shifted  # the times that move with ``now`` (:meth:`shift_bound`)
    cdef bint tied  # a moving hold ends at a fixed breakpoint, or a fixed one at a moving one
    cdef vector[Seen] seen  # jobs tested beyond the window in a scan (:meth:`beyond_add`)
    cdef double resolution
    cdef bint whole  # whole-second resolution, every limit a whole multiple of it

    def __init__(self, nodes, limit, double resolution):
        cdef long j, n = len(nodes)
        cdef const long long[::1] nv = _longs(nodes)
        cdef const double[::1] lv = _doubles(limit)
        self.prof = CProfile()
        self.nodes.resize(n)
        self.limit.resize(n)
        self.whole = integral(resolution) and resolution >= 1
        for j in range(n):
            self.nodes[j] = nv[j]
            self.limit[j] = lv[j]
            self.whole = (
                self.whole and integral(self.limit[j])
                and <long long>self.limit[j] % <long long>resolution == 0  # (exact: integers)
            )
        self.just.assign(len(nodes), 0)
        self.resolution = resolution

    cdef inline double round_up(self, double t) noexcept:
        """``Slurm._round``: up to a multiple of ``bf_resolution`` (1e-9 slack)."""
        return ceil(t / self.resolution - 1e-9) * self.resolution

    cdef long scan_c(self, double now, long free, const vector[Rel]& ends, const long* tested,
                     long ntested, double window, long most, vector[long]& out,
                     vector[Keyed]& reserved_at, double* beyond=NULL,
                     double* moving_end=NULL) except -1:
        """The scan: ``ends`` holds the running jobs' releases (latest end rounded up, the
        nodes and jobs released then; :class:`Rel`), sorted by time;
        each of the ``tested`` jobs in turn starts now (appended to ``out``) or reserves its
        slot (``(t, j)`` appended to ``reserved_at``; only the first ``most`` unless -1) on
        the profile of ``free`` idle nodes and those releases. Stops when nothing is free.
        Returns the nodes left free; ``beyond`` (if given) becomes the earliest slot found
        beyond the window (inf: none); ``moving_end`` (if given) the latest end of the holds
        that move with ``now`` (-inf: none): those from ``now`` and, in turn, those from the
        end of such a hold (:meth:`SlurmPass.lookahead`)."""
        cdef CProfile prof = self.prof
        cdef long k, j, nj, reserved = 0
        cdef double d, t, last = now + window, dn = self.round_up(now) - now
        # whole seconds: round_up(now + limit) = round_up(now) + limit, exactly
        cdef bint shift = self.whole and integral(now)
        if moving_end != NULL:
            moving_end[0] = -INFINITY
            self.moving.clear()
            self.tied = False
            prof.cand.clear()
        prof.counts(now, free, ends)
        self.seen.clear()
        for k in range(ntested):
            if free == 0:
                break
            j = tested[k]
            nj = self.nodes[j]
            d = self.limit[j] + dn if shift else self.round_up(now + self.limit[j]) - now
            # the slot of a job tested before with no more nodes and no longer a duration
            # is a lower bound of this one's (:meth:`beyond_known`): beyond the window, so
            # is this one, and ``beyond`` is at most that slot already
            if self.beyond_known(nj, d):
                continue
            t = prof.test(nj, d)
            if not t <= last:  # beyond the window: no slot
                self.beyond_add(nj, d)
                if beyond != NULL and t < beyond[0]:
                    beyond[0] = t
                continue
            # (the last tested job's hold is seen by no test: not made)
            if t <= now and nj != 0 and nj <= free:
                if k + 1 < ntested:
                    prof.hold(nj, now, d)
                free -= nj
                out.push_back(j)
            elif nj != 0 and (most < 0 or reserved < most):
                if moving_end != NULL:  # (before the hold: whether its end is a step already)
                    self.note_hold(now, t, d, moving_end)
                if k + 1 < ntested:
                    prof.hold(nj, t, d)
                reserved += 1
                reserved_at.emplace_back(t, j)
        prof.noted_to = -INFINITY
        return free

    cdef inline void note_hold(self, double now, double t, double d, double* moving_end) noexcept:
        """A hold from ``t`` for ``d`` in a scan at ``now`` (:meth:`scan_c`, right after the
        test that found ``t``): moving (from ``now`` or a moving hold's end) or fixed; whether
        its end meets a breakpoint of the other kind (:meth:`shift_bound`)."""
        cdef bint meets = self.prof.ends_at_step(t + d)
        if t <= now or self.moves(t):
            if meets and not self.moves(t + d):
                self.tied = True
            self.moving.push_back(t + d)
            moving_end[0] = max(moving_end[0], t + d)
            self.prof.noted_to = max(self.prof.noted_to, t + d)
        elif meets and self.moves(t + d):
            self.tied = True

    cdef double shift_bound(self, double now, double window, double least) noexcept:
        """After a :meth:`scan_c` at ``now`` with ``moving_end`` (the same ``window``): a
        bound ``D`` such that the same scan at ``now + delta`` with each job's duration the
        same, ``0 < delta < D``, makes every comparison of times it makes the same way (so
        the same tests, holds and outcomes, the slots and holds that move with ``now``
        shifted by ``delta``, the others in place); 0 when that bound is at most ``least``.

        Proof: a time the scan compares is *moving* (``now``, the window's end ``now +
        window``, a moving breakpoint: the end of a hold from a moving one, and the end of a
        candidate window from one) or *fixed* (the releases after ``now``, the ends of fixed
        holds, and the end of a candidate window from a fixed breakpoint). Two moving times
        or two fixed ones compare the same way at ``now + delta`` (the differences stay,
        exactly: integer clocks); a moving one above a fixed one stays above; a moving ``m``
        at or below a fixed ``f`` stays so while ``delta < f - m``. The outcomes that could
        change are then: a moving breakpoint passing a fixed one (the profile's order of
        steps, a hold's end against the steps, a slot against the window's end: bounded by
        ``f - m`` over the fixed steps against the moving breakpoints, ``now`` and the
        window's end); a moving candidate window's end passing a fixed step: when it
        succeeded it is a hold's end (above), when it failed it failed at a step before its
        end, which stays before; a fixed candidate window that failed at a moving step
        ``m < f`` (its end): it fails while ``delta < f - m`` (such windows are noted), one
        that succeeded loses moving steps from its window only. The releases at or before
        ``now`` are merged into the first step at either time (none comes between: ``delta``
        is below the first release's ``f - now``). By induction over the scan's steps, every
        test and hold has the same outcome, the moving ones shifted: ``D = min (f - m)`` over
        those pairs (each ``f`` against the largest moving time at or below it), 0 when a
        hold's end is a breakpoint of the other kind as well (``tied``).

        What :meth:`scan_c` keeps for it (with ``moving_end``): the moving holds' ends
        (``moving``), ``tied``, and, through :meth:`CProfile.test`, the candidate windows
        that failed at a step at or before the latest moving breakpoint (``noted_to``: a
        step after it is fixed). The fixed steps are the profile's steps after ``now`` that
        are not moving holds' ends."""
        cdef const Window* c = self.prof.cand.data()
        cdef const Step* p = self.prof.sp()
        cdef long k, n = self.prof.cand.size()
        cdef double x, f, bound = INFINITY
        if self.tied:
            return 0.0
        self.shifted.assign(self.moving.begin(), self.moving.end())
        self.shifted.push_back(now)
        self.shifted.push_back(now + window)
        sort(self.shifted.begin(), self.shifted.end())
        for k in range(n):  # the fixed candidate windows that failed at a moving step
            x = c[k].first
            if not (x == now or self.moves(x)):
                bound = min(bound, self.above_moving(c[k].second))
                if bound <= least:
                    return 0.0
        for k in range(1, self.prof.ns):  # the fixed steps (sorted)
            f = p[k].t
            if self.moves(f):
                continue
            bound = min(bound, self.above_moving(f))
            if bound <= least:
                return 0.0
            if f > self.shifted.back():  # (past the last moving time only the first counts)
                break
        return bound

    cdef inline double above_moving(self, double f) noexcept:
        """``f`` less the largest moving time at or below it (:meth:`shift_bound`; ``now``
        is one, and every fixed time is after ``now``)."""
        cdef long i = (
            upper_bound(self.shifted.begin(), self.shifted.end(), f) - self.shifted.begin()
        )
        return f - self.shifted[i - 1] if i > 0 else INFINITY

    cdef inline bint beyond_known(self, long need, double d) noexcept:
        """A job tested before in this scan with no more nodes than ``need`` and no longer a
        duration than ``d`` found no slot within the window (:meth:`beyond_add`): so does a
        job of ``need`` nodes for ``d`` now.

        Proof (the lower bound): during a scan the profile only loses nodes (holds and starts
        take them) and keeps its breakpoints (a hold adds some). If ``need`` nodes are free
        now during ``[x, x + d)`` from a breakpoint ``x``, then on the profile of the earlier
        test, which had at least as many at each time, the breakpoint ``y <= x`` that began
        the step holding ``x`` had at least ``need`` free during ``[y, x + d)``, which covers
        ``[y, y + d')`` for that job's ``d' <= d``, and it needed no more nodes: ``y`` was a
        slot for it, so its slot was at most ``y <= x``. Hence a later job's slot is at
        least the slot of any earlier job with no more nodes and no longer a duration."""
        cdef const Seen* e = self.seen.data()
        cdef long m
        for m in range(<long>self.seen.size()):
            if e[m].need <= need and e[m].d <= d:
                return True
        return False

    cdef inline void beyond_add(self, long need, double d) noexcept:
        """Note a job of ``need`` nodes for ``d`` beyond the window (only the least pairs are
        kept: those no other has fewer or as many nodes and no longer a duration than)."""
        cdef long m, w = 0
        for m in range(<long>self.seen.size()):
            if not (self.seen[m].need >= need and self.seen[m].d >= d):
                self.seen[w] = self.seen[m]
                w += 1
        self.seen.resize(w + 1)
        self.seen[w].need, self.seen[w].d = need, d

    cdef inline bint moves(self, double t) noexcept:
        """``t`` is the end of a hold that moves with ``now``."""
        cdef long k
        for k in range(<long>self.moving.size()):
            if self.moving[k] == t:
                return True
        return False

    def scan(self, double now, long free, est_sorted, start, list just, list order, queued,
             long tests, double window, reservations, record):
        """Start now or reserve each of the first ``tests`` pending jobs of ``order`` (``(key,
        j)`` pairs in priority order: those ``queued`` and not in ``just``) in turn
        (``record(j, t)`` for each reservation, only the first ``reservations`` of them unless
        None) on the profile of ``free`` idle nodes and the releases: each running job
        (``est_sorted``) at its ``start`` + time limit (a job with no start, a held one of a
        coupled run: its estimate) and the jobs ``just`` started by this pass from ``now``,
        rounded up. Stops when nothing is free. Returns the jobs to start now, in order, and
        whether a pending job was left untested."""
        cdef vector[Keyed] ends
        cdef vector[Rel] rel
        cdef vector[long] tested, out
        cdef vector[Keyed] reserved_at
        cdef long k, j
        cdef double e, st
        cdef bint more = False
        for j in just:
            self.just[j] = 1
        for _, j in order:
            if queued[j] and not self.just[j]:
                if <long>tested.size() == tests:
                    more = True
                    break
                tested.push_back(j)
        for j in just:
            self.just[j] = 0
        for e, j in est_sorted:
            st = start[j]
            if st == st:
                e = st + self.limit[j]
            ends.push_back(Keyed(e, self.nodes[j]))
        for j in just:
            ends.push_back(Keyed(now + self.limit[j], self.nodes[j]))
        for k in range(<long>ends.size()):
            ends[k].first = self.round_up(ends[k].first)
        sort(ends.begin(), ends.end())
        rel.resize(ends.size())
        for k in range(<long>ends.size()):
            rel[k].t, rel[k].n, rel[k].c = ends[k].first, ends[k].second, 1
        self.scan_c(now, free, rel, tested.data(), tested.size(), window,
                    -1 if reservations is None else reservations, out, reserved_at)
        for k in range(<long>reserved_at.size()):
            record(reserved_at[k].second, reserved_at[k].first)
        return [out[k] for k in range(<long>out.size())], more


cdef inline void vset_add(vector[double]& v, double t) noexcept:
    """``t`` joins the sorted set ``v`` (a ``std::set`` of a few times, kept as a vector)."""
    cdef vector[double].iterator it = lower_bound(v.begin(), v.end(), t)
    if it == v.end() or deref(it) != t:
        v.insert(it, t)


cdef inline bint vset_has(vector[double]& v, double t) noexcept:
    """Whether the sorted set ``v`` holds ``t``."""
    cdef vector[double].iterator it = lower_bound(v.begin(), v.end(), t)
    return it != v.end() and deref(it) == t


cdef inline void vset_drop_to(vector[double]& v, double t) noexcept:
    """The sorted set ``v`` without its times at or before ``t``."""
    if not v.empty() and v[0] <= t:
        v.erase(v.begin(), upper_bound(v.begin(), v.end(), t))


cdef inline long put_release(Rel* o, long w, double t, long n, long c) noexcept:
    """Append the release of ``n`` nodes and ``c`` jobs at ``t`` to the ``w`` sorted entries
    of ``o`` (added to the last one when it is at ``t``); returns the new count."""
    if w > 0 and o[w - 1].t == t:
        o[w - 1].n += n
        o[w - 1].c += c
        return w
    o[w].t, o[w].n, o[w].c = t, n, c
    return w + 1


cdef inline bint integral(double x) noexcept:
    """``x`` is a whole number small enough for exact sums of ticks and limits."""
    return x == floor(x) and fabs(x) < 2.0 ** 40


cdef inline bint on_grid(double x) noexcept:
    """``x`` is a multiple of 1/64 s small enough (2^34 s) that the backfill ticks
    ``k x bf_interval + bf_phase`` (up to 2^46 / 64 s) and their differences are exact."""
    return x * 64.0 == floor(x * 64.0) and fabs(x) < 2.0 ** 34


cdef long gcd(long a, long b) noexcept:
    while b:
        a, b = b, a % b
    return a


cdef inline double tick_at_or_after(double t, double interval, double phase) noexcept:
    """:meth:`.cadence.Ticks.at_or_after` (slack 1e-9), the same arithmetic."""
    return ceil((t - phase) / interval - 1e-9) * interval + phase


cdef inline double tick_after(double t, double interval, double phase) noexcept:
    """:meth:`.cadence.Ticks.after` (slack 1e-9), the same arithmetic."""
    return (floor((t - phase) / interval + 1e-9) + 1) * interval + phase


cdef class SlurmPass(SharedPass):
    """Slurm's whole pass (:class:`.slurm.Slurm`; with ``bf_nodes``: :meth:`node_map`),
    compiled: the multifactor (or FIFO) priorities and their recalculation every
    ``priority_calc_period``, the main scheduler (at every event, or on its ``sched_interval``
    clock), the backfill thread every ``bf_interval`` (the scan of :meth:`CountScan.scan_c`),
    with the former Python pass's arithmetic, order, lazy removal and wake-ups, so the
    schedules and reservations are the same (tests/test_properties.py compares them with
    tests/reference_passes.py ``PySlurm``).

    One thing differs, and only in what is not the schedule: a backfill tick at which nothing
    happens is not a pass. After each pass that leaves nodes free and jobs waiting (with
    ``sched_interval``, while the main scheduler provably starts nothing at its ticks until an
    event: :meth:`main_quiet`), :meth:`lookahead` finds the first backfill tick at
    which a pass would start a job or record a reservation if no event came (the ticks
    before it are run dry, most of them proved quiet in classes, without a scan each); only
    that tick is woken, and the scan made there is kept for its pass. The next pass (an
    event, or that tick) first accounts for the ticks not woken as the Python pass would
    have (its backfill clock and :attr:`backfill_passes`)."""

    cdef bint fifo, backfill, has_sched, favor_small, relative_to_time
    cdef double w_age, w_size, max_age, period, total_cpus
    cdef long cores_per_node
    cdef double bf_interval, bf_phase, sched_interval, sched_phase, window
    cdef long most, reserve  # reserve -1: every tested job
    cdef CountScan counts
    cdef vector[double] limit
    cdef vector[Prio] prio  # each job's age origin and size factor
    cdef vector[Held] held  # each job's release, from its start (:meth:`leave`)
    cdef vector[char] known, pending
    cdef vector[Keyed] order  # (-priority, j), lazily cleaned as the Python pass's
    cdef long joined  # jobs joined and not started by this pass
    cdef double calc, next_calc, next_bf, skip_from
    # (sets of a few times each: sorted vectors, :func:`vset_add`; no node allocated per insert)
    cdef vector[double] todo, pushed  # wake-ups to ask for, asked for
    cdef vector[double] timers  # the Python pass's wake-ups (a pass at each while jobs wait)
    # the releases of the running jobs and of those this pass started so far, one entry per
    # rounded end (its nodes and jobs), sorted: kept as jobs start (:meth:`releases`) and end
    # (handed over by the kernel, ``PassState.ended``; an entry whose jobs all ended stays,
    # of no job, until ``dead`` such entries are a quarter of them); ``merged``: how many of
    # this pass's starts are in it
    cdef vector[Rel] ends, merged_ends
    cdef long dead
    cdef long merged, starts
    cdef long seen_completed, seen_arrived
    cdef vector[long] tested, out
    cdef vector[Keyed] reserved_at, just_rel
    # the look ahead (:meth:`lookahead`): integer clocks and limits; classes of ticks with
    # the same rounded durations (``span``: lcm(bf_interval, bf_resolution), one class per
    # tick without integer clocks); the tested jobs, a recalculated order, each class's proof
    cdef bint exact
    # ``grid``: the backfill ticks on a 1/64-s grid, each ``k x bf_interval + bf_phase`` exactly
    # (counted in bulk: :meth:`catch_up`; the waits no tick can end skipped: :meth:`lookahead`)
    cdef bint grid
    cdef long classes
    cdef double span, quiet_to, owed
    # the mean time between events (arrivals, completions; exponentially weighted): a tick
    # further ahead than that is woken rather than scanned (its scan would mostly be lost)
    cdef double gap, last_event
    # the look ahead's scan at the tick it found acting, for the pass there (same state)
    cdef double memo_at
    cdef long memo_free, memo_completed, memo_arrived, memo_starts, memo_joined
    cdef vector[long] look
    cdef vector[Keyed] relook
    # ``ord_ver``: the pending order's version (a join, a start, a recalculation); ``look_ver``:
    # the one whose first pending jobs ``look`` holds (:meth:`pick` on ``order``; -1: none)
    cdef long ord_ver, look_ver
    # ``relook_ok``: ``relook`` is the last :meth:`reorder`'s (not skipped by a proof);
    # ``plain``: it is (or, not made, would be) the pass's pending order, not re-sorted;
    # ``proof_ver``, ``proof_from``, ``proof_to``: the order's version and the recalculation
    # times over which its first pending jobs are proved to stay the first, in order
    # (:meth:`order_holds_to`)
    cdef bint relook_ok, plain
    cdef long proof_ver
    cdef double proof_from, proof_to
    # the proof's pending jobs: how many, and the first (tested) ones, in order; a start or a
    # recalculation it covers carries it to the order's next version (:meth:`carry_proof`)
    cdef long proof_n
    cdef vector[long] proof_head
    cdef vector[double] until
    # proofs carried from one look-ahead to the next (:meth:`hold_state`): the state their
    # scans were made on (idle nodes; the releases, known by the completions and starts seen;
    # the tested jobs and which of them hold a recorded reservation) and, per class, the tick
    # of its quiet scan and the end of its proof
    cdef vector[long] held_look
    cdef vector[char] held_rec
    cdef long held_free, held_completed, held_starts
    cdef vector[double] held_at, held_until
    cdef public long backfill_passes
    cdef public long skipped  # ticks accounted for without a pass (for tests and reports)
    cdef public long carried  # look-ahead scans spared by a proof carried (for tests)
    cdef public long kept  # look-ahead recalculations spared by :meth:`order_holds_to` (tests)
    cdef public long stretched  # proofs made longer by :meth:`CountScan.shift_bound` (tests)
    cdef public long leapt  # look-aheads that leapt to a slot's window (:meth:`first_reach`)
    # a gated run's pass (:meth:`serve_gate`): the kernel's start times, the queue as presented
    # at this call, the order's jobs, and the jobs the last call started
    cdef public bint gated
    cdef object start_table
    # ``bf_nodes`` (:meth:`node_map`): the node-space map (one, reset at each backfill pass),
    # the jobs started through the kernel's starter (``places``). ``arrived_n``: jobs joined
    # so far; ``seen_main``/``seen_bf``: the state the main scheduler / the backfill thread
    # last found nothing to do in (``Slurm._state``; NaN: none)
    cdef NodeMap space
    cdef public bint on_nodes
    cdef long arrived_n
    cdef vector[long] main_jobs, iv, ivoff, rjobs, one
    cdef vector[double] rtimes
    # what ``Slurm._state`` reads of the kernel (idle nodes, running jobs, the earliest
    # estimate), as the pass's last starts left it; the jobs ever started by the pass
    cdef long k_free, k_nest, distinct
    cdef double k_first
    cdef vector[char] counted
    cdef double seen_main[6]
    cdef double seen_bf[6]
    cdef const double[::1] start_of
    cdef vector[char] queued_now, listed
    cdef vector[long] present, taken

    def __init__(self, nodes, procs, limit, double total_cpus, long cores_per_node,
                 str priority, double weight_age, double weight_job_size, double max_age,
                 bint favor_small, bint small_relative_to_time, double calc_period,
                 bint backfill, double bf_interval, long bf_max_job_test, double bf_resolution,
                 double bf_window, bf_job_part_count_reserve, double bf_phase, sched_interval,
                 double sched_phase):
        """Per job: ``nodes``, ``procs`` (cpus) and ``limit`` (the time limit in whole
        minutes, in seconds), sequences; the options are :class:`.slurm.Slurm`'s
        (``bf_window`` in seconds). Each job's age counts from when it joins the queue and
        its size is its own, unless :meth:`inherit` says otherwise."""
        cdef long n = len(nodes), j
        cdef const long long[::1] pv = _longs(procs)
        self.own_running = True  # its release list (``ends``), not the kernel's ``s.est``
        self.places = False  # the kernel starts what it lists (not with ``bf_nodes``)
        self.fifo = priority == "fifo"
        self.w_age, self.w_size, self.max_age = weight_age, weight_job_size, max_age
        self.total_cpus, self.cores_per_node = total_cpus, cores_per_node
        self.favor_small, self.relative_to_time = favor_small, small_relative_to_time
        self.period = calc_period
        self.backfill = backfill
        self.bf_interval, self.bf_phase = bf_interval, bf_phase
        self.has_sched = sched_interval is not None
        self.sched_interval = sched_interval if self.has_sched else 0.0
        self.sched_phase = sched_phase
        self.most = bf_max_job_test
        self.reserve = -1 if bf_job_part_count_reserve is None else bf_job_part_count_reserve
        self.window = bf_window
        self.counts = CountScan(nodes, limit, bf_resolution)
        self.limit = self.counts.limit
        self.prio.resize(n)
        for j in range(n):
            self.prio[j].origin, self.prio[j].size = NAN, 0.0
        self.held.resize(n)
        for j in range(n):
            self.held[j].t, self.held[j].n = INFINITY, self.counts.nodes[j]
        self.known.assign(n, 0)
        self.pending.assign(n, 0)
        if not self.fifo:  # each job's own size
            for j in range(n):
                self.prio[j].size = self.size_of(
                    max(self.counts.nodes[j] * cores_per_node, <long>pv[j]),
                    max(1.0, ceil(self.limit[j] / 60.0 - 1e-9)))
        self.joined = 0
        self.seen_completed = 0
        self.seen_arrived = 0
        self.starts = 0
        self.calc = -INFINITY
        self.next_calc = -INFINITY
        self.next_bf = -INFINITY
        self.skip_from = INFINITY
        self.quiet_to = -INFINITY
        self.owed = INFINITY
        self.memo_at = NAN
        self.gap = 10 * bf_interval
        self.last_event = NAN
        self.exact = integral(bf_interval) and integral(bf_phase) and integral(bf_resolution)
        for j in range(n):
            self.exact = self.exact and integral(self.limit[j])
        self.grid = bf_interval > 0 and on_grid(bf_interval) and on_grid(bf_phase)
        self.classes = 1
        if self.exact:
            self.classes = <long>bf_resolution // gcd(<long>bf_interval, <long>bf_resolution)
            if self.classes > MAX_CLASSES:
                self.exact, self.classes = False, 1
        self.span = self.classes * bf_interval
        self.backfill_passes = 0
        self.skipped = 0
        self.carried = 0
        self.stretched = 0
        self.leapt = 0
        self.held_free = -1
        self.held_at.assign(self.classes, INFINITY)
        self.held_until.assign(self.classes, -INFINITY)
        self.ord_ver = 0
        self.look_ver = -1
        self.relook_ok = False
        self.plain = True
        self.proof_ver = -1
        self.kept = 0

    cdef inline double size_of(self, long cpus, double minutes) noexcept:
        """:meth:`.priority.Multifactor.size`, the same arithmetic: ``cpus`` (the larger of
        the nodes' cores and the cpus asked) over a limit of ``minutes`` whole minutes."""
        cdef double s = cpus / self.total_cpus
        if self.relative_to_time:
            s /= minutes
        s = min(1.0, max(0.0, s))
        return 1.0 - s if self.favor_small else s

    def inherit(self, const long long[::1] jobs, const double[::1] origin,
                const long long[::1] cpus, const double[::1] limit):
        """WoAS (Algorithm 1): job ``jobs[k]`` takes its age origin ``origin[k]`` and its size
        factor from a job of ``cpus[k]`` cpus on whole nodes for ``limit[k]`` seconds."""
        cdef long k, j, c, nodes
        self.ord_ver += 1  # (the keys change)
        for k in range(jobs.shape[0]):
            j = jobs[k]
            self.prio[j].origin = origin[k]
            if not self.fifo:
                c = cpus[k]
                nodes = (c + self.cores_per_node - 1) // self.cores_per_node  # nodes_for
                self.prio[j].size = self.size_of(
                    max(nodes * self.cores_per_node, c), max(1.0, ceil(limit[k] / 60.0 - 1e-9)))

    def serve_gate(self, start) -> None:
        """Serve a gated run (a coupled system's :class:`~coschedlab.engine.kernel.Gate`): the
        kernel may then ask the pass again within a pass, after a hold or a yield, show it the
        queue without the jobs a gate holds or hides, and start the jobs it holds later. The
        pass then reads the queue (``s.queue``) and the running jobs (``s.est``, with the
        kernel's ``start`` times: a held job has none) afresh at each call (:meth:`run_gated`),
        as the Python pass reads the view. Called by the kernel before the run."""
        self.start_table = start
        self.start_of = start
        self.queued_now.assign(self.known.size(), 0)
        self.listed.assign(self.known.size(), 0)
        self.gated = True
        self.reaskable = True

    def node_map(self, long n_nodes) -> None:
        """``bf_nodes``: the backfill pass places jobs on Slurm's node-space map of the
        ``n_nodes`` nodes (:class:`.nodemap.NodeMap`), in C (:meth:`run_nodes`). The pass
        starts its jobs itself through the kernel's starter (``places``,
        :class:`~coschedlab.engine.cshared.Starter`): the main scheduler's at once where the
        kernel's best fit puts them (select/linear's), so that the map sees them running on
        their nodes, then each job the map starts on the nodes planned for it. It reads the
        queue afresh at each call (``reaskable``: a coupled run's gate asks it again after a
        hold or a yield; ELiSE's clock copies its lists), reads the kernel's running jobs
        (``s.est``, not ``own_running``), and skips a pass over a state in which the last one
        found nothing to do (``Slurm._state``: the node map's verdict does not change with
        time alone while no running job is past its limit)."""
        cdef long k
        self.space = NodeMap(0.0, n_nodes, ())
        self.on_nodes = True
        self.places = True
        self.whole_nodes = True
        self.reaskable = True
        self.own_running = False
        self.arrived_n = 0
        self.distinct = 0
        self.counted.assign(self.known.size(), 0)
        self.queued_now.assign(self.known.size(), 0)
        self.listed.assign(self.known.size(), 0)
        for k in range(6):
            self.seen_main[k] = NAN
            self.seen_bf[k] = NAN

    def tick_count(self, double span, double over):
        """The passes this run makes on a clock with no look ahead to prove its ticks quiet,
        at least, from ``span`` (the run's length: a lower bound) and ``over`` (the longest
        time one job runs past its limit): ``(passes, what, advice)`` of the clock that wakes
        it most, None when none may. A gated pass (coupled, ELiSE's clock) wakes at every
        tick of its shortest clock while jobs wait. ``bf_nodes``' node map skips a pass over
        an unchanged state: it wakes at each recalculation of an age weight, and at every
        tick while a job runs past its limit or more jobs wait than a pass tests (only with
        more jobs than ``bf_max_job_test``). The look ahead proves each backfill tick on its
        own when its clocks do not fall in classes (:meth:`lookahead`): on the ``grid`` it
        leaps over a wait that no tick can end (:meth:`first_reach`), so a tick is scanned
        only while a job runs past its limit or a slot is within ``bf_window`` of the tick
        (before an event: at most a window per job's arrival and end); off it, every tick.
        The kernel refuses, before it starts, a run that would make too many such passes."""
        cdef double t = INFINITY, near
        cdef str name = "", who
        cdef list clocks = []
        wait = f"while jobs wait, and this run spans at least {span:.3g} s"
        if not (self.on_nodes or self.gated):
            if self.exact or not self.backfill:
                return None
            who = (
                "Slurm's look ahead, proving each tick on its own (its ticks fall in classes "
                f"only with clocks in whole seconds and bf_resolution / gcd(bf_interval, "
                f"bf_resolution) at most {MAX_CLASSES}),"
            )
            if self.grid:
                near = min(span, 2.0 * self.known.size() * (self.window + self.counts.resolution))
                who = (
                    f"{who} may wake every bf_interval={self.bf_interval:g} s while a slot is "
                    f"within bf_window ({self.window:g} s) of the tick"
                )
                if over > 0:
                    return (over + near) / self.bf_interval, (
                        f"{who} or a job runs past its time limit (here for at least "
                        f"{over:.3g} s)"
                    ), "raise bf_interval, or kill jobs at their limit (--kill-at-walltime)"
                return near / self.bf_interval, who, "raise bf_interval, or lower bf_window"
            return span / self.bf_interval, (
                f"{who} may wake every bf_interval={self.bf_interval:g} s {wait}"
            ), (
                f"raise bf_interval, make it and bf_phase multiples of 1/64 s, or make "
                f"bf_resolution at most {MAX_CLASSES} of its ticks"
            )
        if self.backfill:
            t, name = self.bf_interval, "bf_interval"
        if self.has_sched and self.sched_interval < t:
            t, name = self.sched_interval, "sched_interval"
        if not self.on_nodes:
            who = "a gated pass (coupled, ELiSE's clock)"
        else:
            who = "bf_nodes' node map"
            if <long>self.known.size() <= self.most:  # every pending job tested at each pass
                if not self.fifo and self.w_age > 0:
                    clocks.append((span / self.period, "priority_calc_period", self.period,
                                   wait, "raise priority_calc_period"))
                if t < INFINITY:
                    clocks.append((
                        over / t, name, t, "while a job runs past its time limit, and a job "
                        f"here does so for at least {over:.3g} s",
                        f"raise {name}, or kill jobs at their limit (--kill-at-walltime)",
                    ))
                t = INFINITY
        if t < INFINITY:
            clocks.append((span / t, name, t, wait, f"raise {name}"))
        if not clocks:
            return None
        passes, name, t, during, advice = max(clocks)
        return passes, f"{who} may wake every {name}={t:g} s {during}", advice

    def age_origin(self, long j) -> float:
        """When job ``j``'s age started counting (0: it never joined, or FIFO priority)."""
        return self.prio[j].origin if self.known[j] and not self.fifo else 0.0

    def size_factor(self, long j) -> float:
        """Job ``j``'s job-size factor (0: it never joined, or FIFO priority)."""
        return self.prio[j].size if self.known[j] and not self.fifo else 0.0

    # -- priorities ----------------------------------------------------------------------------
    cdef inline double key(self, long j, double t) noexcept:
        """-priority at ``t`` (:meth:`.priority.Multifactor.priority`, truncated to an integer)."""
        cdef double age = (t - self.prio[j].origin) / self.max_age
        age = min(1.0, max(0.0, age))
        return -<double>(<long long>(self.w_age * age + self.w_size * self.prio[j].size))

    cdef void join(self, long j, double now) noexcept:
        """``Slurm._join``: record the age origin, insert at the job's place in the order."""
        cdef Keyed k
        cdef double o
        self.known[j] = 1
        self.pending[j] = 1
        self.joined += 1
        self.ord_ver += 1
        if self.fifo:
            k = Keyed(0.0, j)
        else:
            if self.prio[j].origin != self.prio[j].origin:
                self.prio[j].origin = now
            o = self.prio[j].origin
            k = Keyed(self.key(j, max(self.calc, min(o, now))), j)
        self.order.insert(upper_bound(self.order.begin(), self.order.end(), k), k)

    cdef void recalculate(self, double now) noexcept:
        """``Slurm._recalculate``: every pending job's priority at the period's start. The
        ages grow alike, so the old order is nearly the new one: an insertion sort, which
        gives up for a full sort once it has moved more entries than the queue holds."""
        cdef double t = floor(now / self.period) * self.period
        cdef long k, w = 0, j, i, moved = 0
        cdef Keyed x
        self.calc = t
        self.next_calc = t + self.period
        self.carry_proof(-1, t)
        for k in range(<long>self.order.size()):
            j = self.order[k].second
            if self.pending[j]:
                self.order[w] = Keyed(self.key(j, max(t, self.prio[j].origin)), j)
                w += 1
        self.order.resize(w)
        for k in range(1, w):
            if not self.order[k] < self.order[k - 1]:
                continue
            x = self.order[k]
            i = k
            while i > 0 and x < self.order[i - 1]:
                self.order[i] = self.order[i - 1]
                i -= 1
            self.order[i] = x
            moved += k - i
            if moved > w:
                sort(self.order.begin(), self.order.end())
                return

    # -- wake-ups ------------------------------------------------------------------------------
    cdef void want(self, double t) noexcept:
        """``Slurm._wake``: a pass at ``t`` (asked of the kernel once)."""
        vset_add(self.timers, t)
        if not vset_has(self.pushed, t):
            vset_add(self.todo, t)

    # -- the ticks not woken ---------------------------------------------------------------------
    cdef inline double tick_of(self, long long k) noexcept:
        """The backfill tick ``k x bf_interval + bf_phase`` (exact on the grid: ``grid``)."""
        return <double>k * self.bf_interval + self.bf_phase

    cdef long long tick_index(self, double x) noexcept:
        """The index of the first backfill tick at or after ``x`` (finite; ``grid``)."""
        cdef long long k = <long long>ceil((x - self.bf_phase) / self.bf_interval)
        while self.tick_of(k) < x:
            k += 1
        while self.tick_of(k - 1) >= x:
            k -= 1
        return k

    cdef double class_tick(self, long long after, long c, double x) noexcept:
        """The first tick of class ``c`` (index mod :attr:`classes`) with an index above
        ``after`` and a time at or after ``x`` (inf: ``x`` is)."""
        cdef long long k
        if x == INFINITY:
            return INFINITY
        k = after + 1 if x == -INFINITY else max(after + 1, self.tick_index(x))
        k += ((c - k) % self.classes + self.classes) % self.classes
        return self.tick_of(k)

    cdef bint pick(self, const vector[Keyed]& order) noexcept:
        """``self.look``: the first ``bf_max_job_test`` pending jobs of ``order`` (those a pass
        tests); whether they differ from what it held. On the pass's own ``order``, nothing to
        do when ``look`` holds its first jobs already (no join, start or recalculation since,
        and no :meth:`reorder` that changed them: ``look_ver``)."""
        cdef long k, j, m = 0, n = self.look.size()
        cdef bint changed = False
        if &order == &self.order:
            if self.look_ver == self.ord_ver:
                return False
            self.look_ver = self.ord_ver
        for k in range(<long>order.size()):
            j = order[k].second
            if self.pending[j]:
                if m == self.most:
                    break
                if m < n:
                    if self.look[m] != j:
                        changed = True
                        self.look[m] = j
                else:
                    changed = True
                    self.look.push_back(j)
                m += 1
        if m < n:
            changed = True
            self.look.resize(m)
        return changed

    cdef bint reorder(self, double t, bint first) noexcept:
        """The pending order a recalculation at ``t`` (a period's start) makes
        (:meth:`recalculate`'s arithmetic, on a copy: ``self.relook``, made from the pass's
        order the ``first`` time), its tested jobs in ``self.look``; whether they changed.
        Made from the pass's order, it keeps its tested jobs when a proof of this version of
        the order covers ``t`` (:meth:`order_holds_to`): then no key is computed (``relook``
        is made at the next call)."""
        cdef long k, j
        cdef bint build = first or not self.relook_ok
        if (
            (build or self.plain) and self.proof_ver == self.ord_ver
            and self.proof_from <= t <= self.proof_to
        ):  # (``relook``'s keys, if made, are made again at the next call)
            self.relook_ok = self.relook_ok and not first
            self.plain = True
            self.kept += 1
            return False
        self.relook_ok = True
        self.plain = build or self.plain
        if build:
            self.relook.clear()
            for k in range(<long>self.order.size()):
                j = self.order[k].second
                if self.pending[j]:
                    self.relook.emplace_back(self.key(j, max(t, self.prio[j].origin)), j)
        else:
            for k in range(<long>self.relook.size()):
                j = self.relook[k].second
                self.relook[k].first = self.key(j, max(t, self.prio[j].origin))
        # only the first ``most`` of the order are tested (every job in it is pending): they
        # are kept in order, the rest unordered; when they are still the smallest, in order,
        # the tested jobs are the same
        cdef long m = <long>self.relook.size()
        if 0 < self.most < m:
            m = self.most
        if is_sorted(self.relook.begin(), self.relook.begin() + m) and (
            m == <long>self.relook.size()
            or not (
                deref(min_element(self.relook.begin() + m, self.relook.end()))
                < self.relook[m - 1]
            )
        ):
            if self.plain:  # (the pass's order, keys at ``t``: a proof from ``t``)
                self.proof_ver, self.proof_from = self.ord_ver, t
                self.proof_to = self.order_holds_to(t, m)
                self.proof_n = self.relook.size()
                self.proof_head.resize(m)
                for k in range(m):
                    self.proof_head[k] = self.relook[k].second
            return False  # the same tested jobs, in the same order
        self.plain = False
        partial_sort(self.relook.begin(), self.relook.begin() + m, self.relook.end())
        if self.pick(self.relook):
            self.look_ver = -1  # (``look`` no longer the order's first jobs)
            return True
        return False

    cdef void carry_proof(self, long j, double t) noexcept:
        """A new version of the pending order, after job ``j`` left it (-1: none) or a
        recalculation at ``t`` (NaN: none); the proof of :meth:`order_holds_to` for the
        present version is carried over when it still holds: a recalculation at a time it
        covers sorts the pending jobs into the same first jobs in the same order (the rest
        after them, in some order: the same statement); a job that leaves from after the
        first ones takes a pair from the proof, and so does one of the first ones when no
        other follows them (the pairs around it give the new pair by transitivity, at each
        time)."""
        cdef long k, m = self.proof_head.size()
        cdef bint keep = self.proof_ver == self.ord_ver and (
            t != t or self.proof_from <= t <= self.proof_to
        )
        if keep and j >= 0:
            k = 0
            while k < m and self.proof_head[k] != j:
                k += 1
            if k < m:  # one of the first: the last of the proof?
                keep = m == self.proof_n
                if keep:
                    self.proof_head.erase(self.proof_head.begin() + k)
            self.proof_n -= 1
        self.ord_ver += 1
        if keep:
            self.proof_ver = self.ord_ver

    cdef double order_holds_to(self, double t0, long m) noexcept:
        """After :meth:`reorder` at ``t0`` found the first ``m`` entries of ``relook`` (the
        pass's pending order, keys at ``t0``) in order and before the rest: a time ``H >= t0``
        such that the keys at any ``t`` in ``[t0, H]`` do too (the same tested jobs in the same
        order, no key computed).

        Proof. A key is ``-P``, ``P = trunc(x)``, ``x = w_age a + w_size s`` with the age
        factor ``a = min(1, (t - o) / max_age)`` (``o <= t0``: else no proof); the
        weights are not negative (else no proof), so ``x >= 0`` and ``P = floor(x)``. Each
        operation rounds monotonically, so a computed ``P`` never falls as ``t`` grows, and a
        job *still* at ``t0`` (``a = 1``) keeps its key. A *rising* job's exact ``x`` grows by
        ``w_age (t - t0) / max_age`` until it saturates at ``o + max_age``, and each computed
        ``x`` is within 1e-6 of the exact one (below 2^52 x 1e-6). An entry ``i`` comes before
        ``k`` at ``t`` iff ``P_i > P_k``, or they tie and ``j_i < j_k``. With ``g = P_i - P_k``
        at ``t0`` (``i`` before ``k``):

        * ``i`` rising, ``k`` still, or both still: ``P_i`` does not fall, ``P_k`` stays;
        * both rising: ``x_i - x_k`` stays, exactly, until ``i`` saturates (``k`` saturating
          only slows ``k``), so ``P_i - P_k >= g - 2``: before if ``g >= 3``, or ``g >= 2``
          with ``j_i < j_k``; else no proof;
        * ``i`` still, ``k`` rising: ``P_k <= P_k(t0) + 1 + delta + 2e-6`` with ``delta =
          w_age (t - t0) / max_age``: before while ``delta < g - 1.01`` (``g - 0.01`` with
          ``j_i < j_k``).

        The pairs are the consecutive first ``m`` and the ``m``-th against each later one;
        ``H`` is the least bound over them."""
        cdef const Keyed* r = self.relook.data()
        cdef const Prio* o = self.prio.data()
        cdef long k, i, j, n = self.relook.size()
        cdef double H = INFINITY, rate = self.w_age / self.max_age, g
        cdef bint still, still_a = False, still_last = False
        if self.w_age < 0 or self.w_size < 0 or m == 0:
            return t0
        for k in range(n):
            j = r[k].second
            if o[j].origin > t0:
                return t0
            still = rate == 0 or (t0 - o[j].origin) / self.max_age >= 1.0  # (as :meth:`key`)
            if k > 0 and not still:  # (``j`` still: after any, for good)
                i = r[k - 1 if k < m else m - 1].second
                g = r[k].first - r[k - 1 if k < m else m - 1].first  # (P_i - P_j)
                if not (still_a if k < m else still_last):  # both rising
                    if not (g >= 3 or (g >= 2 and i < j)):
                        return t0
                    H = min(H, o[i].origin + self.max_age)
                else:
                    g -= 0.01 if i < j else 1.01
                    if not g > 0:
                        return t0
                    H = min(H, t0 + g / rate)
            still_a = still
            if k == m - 1:
                still_last = still
        return H

    def order_proof(self, double t0, double t, long leave=-1) -> tuple[float, bool]:
        """For the tests: every job pending in the order of its key at ``t0``;
        :meth:`reorder` at ``t0`` (its proof), job ``leave`` (if not -1) starting (the proof
        carried: :meth:`carry_proof`), and then :meth:`reorder` at ``t`` with no proof.
        Returns the proof's end (``t0``: none) and whether the tested jobs at ``t`` differ."""
        self.proved_at(t0)
        if leave >= 0:
            self.pending[leave] = 0
            self.carry_proof(leave, NAN)
            self.pick(self.order)
        end = self.proof_to if self.proof_ver == self.ord_ver else t0
        self.proof_ver = -1
        return end, self.reorder(t, True)

    def order_kept(self, double t0, double t) -> float:
        """For the tests: every job pending in the order of its key at ``t0``, :meth:`reorder`
        at ``t0`` (its proof), then :meth:`order_kept_to` at ``t``."""
        self.proved_at(t0)
        end = self.order_kept_to(t)
        self.proof_ver = -1
        return end

    cdef int proved_at(self, double t0) except -1:
        """For the tests (:meth:`order_proof`, :meth:`order_kept`): every job pending in the
        order of its key at ``t0``, then :meth:`reorder` at ``t0`` (its proof)."""
        cdef long j, n = self.prio.size()
        self.order.clear()
        for j in range(n):
            self.known[j] = self.pending[j] = 1
            self.order.push_back(Keyed(self.key(j, max(t0, self.prio[j].origin)), j))
        sort(self.order.begin(), self.order.end())
        self.ord_ver += 1
        self.relook_ok, self.plain = False, True
        self.pick(self.order)
        if self.reorder(t0, True):
            raise AssertionError("the order at t0 is sorted")
        return 0

    cdef double order_kept_to(self, double t) noexcept:
        """The one answer to "can the tested order still change?": a time ``H >= t`` such
        that a recalculation at any time in ``[t, H]`` keeps the first ``bf_max_job_test``
        pending jobs of the pass's order first, in order (inf: every later one does); -inf
        when none is known. FIFO and a zero age weight: inf (no key moves). Otherwise the
        proof of :meth:`order_holds_to` for this version of the order, when it covers ``t``:
        its end is inf when every job after the first is still (age factor 1: hostile20's
        "every pending job saturated", the first job allowed to rise), or when one job waits."""
        if self.fifo or self.w_age == 0:
            return INFINITY
        if self.proof_ver == self.ord_ver and self.proof_from <= t <= self.proof_to:
            return self.proof_to
        return -INFINITY

    cdef double calc_after(self, double t, double H) noexcept:
        """After a recalculation at ``t`` (a period's start) whose tested jobs a proof keeps
        to ``H >= t`` (:meth:`order_kept_to`): the time from which a look-ahead's tick must
        recalculate again (its recalculation, at ``floor(T / period) x period``, is after
        ``H``): the period start after ``H`` with integer clocks and period (each tick ``T``
        before it is an integer, so its period start is at most ``H``, exactly), else the next
        period's; inf when ``H`` is."""
        cdef double k
        if H == INFINITY:
            return INFINITY
        if not (self.exact and integral(self.period)) or H < t + self.period:
            return t + self.period
        k = floor(H / self.period)
        while k * self.period > H:
            k -= 1
        self.kept += 1  # (the recalculations up to ``H`` are not made)
        return (k + 1) * self.period

    cdef bint still_after(self, double t) noexcept:
        """Every pending job after the first has its age factor 1 at ``t`` (as :meth:`key`
        computes it): what a proof made at ``t`` needs to keep the order for good
        (:meth:`order_holds_to` bounds it by a pair with a rising job after the first), read
        before one is made (:meth:`main_quiet`: a proof costs every pending job's key; this
        stops at the first rising one, on a young queue the second job)."""
        cdef long k, j
        cdef bint first = True
        for k in range(<long>self.order.size()):
            j = self.order[k].second
            if self.pending[j]:
                if not first and not (t - self.prio[j].origin) / self.max_age >= 1.0:
                    return False
                first = False
        return True

    cdef bint main_quiet(self, long free) noexcept:
        """With ``sched_interval``: the main scheduler starts nothing at any of its ticks
        until an event, ``free`` nodes idle: the first pending job does not fit, and either
        no pending job fits (in any order) or the order is final (:meth:`order_kept_to` from
        the next recalculation on: the same first job at every tick; when none is known for
        this version of the order, one is made if it can answer so: :meth:`still_after`).
        Only then may the backfill ticks be looked ahead over."""
        cdef long k, j
        cdef bint first = True
        for k in range(<long>self.order.size()):
            j = self.order[k].second
            if self.pending[j]:
                if self.counts.nodes[j] <= free:
                    if first:
                        return False
                    if self.fifo or self.w_age == 0:
                        return True
                    if not self.still_after(self.next_calc):  # (no proof keeps it for good)
                        return False
                    if self.order_kept_to(self.next_calc) == -INFINITY:
                        self.pick(self.order)
                        self.reorder(self.next_calc, True)  # (:meth:`lookahead` picks again)
                    return self.order_kept_to(self.next_calc) == INFINITY
                first = False
        return True

    cdef bint acts(self, PassState* s, double T) noexcept:
        """The scan just made at ``T`` (``self.out``, ``self.reserved_at``) starts a job or
        records a reservation (a slot at ``T`` itself for a job whose reservation is recorded
        is neither: :meth:`lookahead`)."""
        cdef long k, j
        if not self.out.empty():
            return True
        for k in range(<long>self.reserved_at.size()):
            j = self.reserved_at[k].second
            if s.reservation[j] != s.reservation[j]:
                return True
        return False

    cdef bint holds_state(self, PassState* s, long free, long n) noexcept:
        """The state of the carried proofs (:meth:`hold_state`) is the present one: ``free``
        idle nodes, the same releases (``self.ends`` changes only when a job ends or starts),
        the first ``n`` tested jobs the same with the same reservations recorded."""
        cdef long k, j
        if (
            free != self.held_free or n != <long>self.held_look.size()
            or s.completed != self.held_completed or self.starts != self.held_starts
        ):
            return False
        for k in range(n):
            j = self.look[k]
            if j != self.held_look[k] or self.held_rec[k] != (
                s.reservation[j] == s.reservation[j]
            ):
                return False
        return True

    cdef void hold_state(self, PassState* s, long free, long n, bint recorded) noexcept:
        """Make the present state (``free``, the releases, the first ``n`` tested jobs) that
        of the carried proofs, none yet; ``recorded``: as it is once the reservations of the
        scan just made (``self.reserved_at``) are recorded."""
        cdef long k, j, m = 0, r = self.reserved_at.size() if recorded else 0
        self.held_free = free
        self.held_completed, self.held_starts = s.completed, self.starts
        self.held_look.assign(self.look.begin(), self.look.begin() + n)
        self.held_rec.resize(n)
        for k in range(n):
            j = self.look[k]
            self.held_rec[k] = s.reservation[j] == s.reservation[j]
            if m < r and self.reserved_at[m].second == j:  # (in the order tested)
                self.held_rec[k] = True
                m += 1
        if recorded:
            # the jobs a scan tests then (:meth:`live`): the last ones, needing more than
            # ``free`` and with a reservation recorded, are no longer tested
            while n > 0 and self.counts.nodes[self.look[n - 1]] > free and self.held_rec[n - 1]:
                n -= 1
            self.held_look.resize(n)
            self.held_rec.resize(n)
        self.held_at.assign(self.classes, INFINITY)
        self.held_until.assign(self.classes, -INFINITY)

    cdef double proved_to(self, double T, long long kT, long c, double b, double E) noexcept:
        """The end of the proof a quiet scan at ``T`` (index ``kT``, class ``c``) makes, ``b``
        its earliest slot beyond the window, ``E`` the latest end of its moving holds
        (:meth:`lookahead`)."""
        cdef double e, u, t
        # the first release after T (at or before T: merged into the first step)
        cdef long k = rel_at_or_after(self.ends, nextafter(T, INFINITY))
        while k < <long>self.ends.size() and self.ends[k].c == 0:  # (an entry of no job)
            k += 1
        e = self.ends[k].t if k < <long>self.ends.size() else INFINITY
        u = e if E == -INFINITY else min(e, T + (e - E))
        if E > -INFINITY and u < T + self.span:  # moving holds past the first release
            t = T + self.counts.shift_bound(T, self.window, self.span)
            if t > u:
                u = t
                self.stretched += 1
        if b < INFINITY:  # the first tick of this class whose window reaches b
            t = self.class_tick(kT, c, b - self.window - self.span)
            while not b <= t + self.window:
                t = self.class_tick(kT, c, t + 1.0)
            u = min(u, t)
        return u

    cdef double first_reach(self, PassState* s, long free) noexcept:
        """A time before which no pass starts a job or records a reservation, whatever the
        order and the tick, while no event comes: -inf when a pending job fits ``free`` (or,
        off the ``grid`` or with classes of ticks, when one has no reservation recorded:
        hostile20's test only, the classes prove those ticks); inf when every pending job
        needs more than ``free`` and has its reservation recorded; else the earliest time at
        which one with none could find room: the release, in ``ends``, that brings ``free``
        up to its nodes (its slot at any tick ``T`` is there or later, as holds only take
        nodes: beyond the window while ``T + bf_window`` is before it; :meth:`lookahead`)."""
        cdef long k, j, need = LONG_MAX, got = free
        cdef bint bulk = self.grid and not self.exact
        for k in range(<long>self.order.size()):
            j = self.order[k].second
            if self.pending[j]:
                if self.counts.nodes[j] <= free:
                    return -INFINITY
                if s.reservation[j] != s.reservation[j]:
                    if not bulk:
                        return -INFINITY
                    need = min(need, self.counts.nodes[j])
        if need == LONG_MAX:
            return INFINITY
        self.releases(s)  # (the running jobs, and those this pass starts)
        for k in range(<long>self.ends.size()):
            got += self.ends[k].n
            if got >= need:
                return self.ends[k].t
        return INFINITY

    cdef double lookahead(self, PassState* s, double t1, long free) except? -1:
        """The first backfill tick from ``t1`` on at which a pass may start a job or record a
        reservation, while no event comes (the free nodes, the running and the pending jobs as
        they are now); inf: none. The ticks before it are quiet: each would start nothing and
        record nothing, only move the backfill clock and ask for the next tick.

        Every pending job that neither fits ``free`` nor lacks its (first, recorded)
        reservation can do nothing in any order: then none. Else the ticks are followed in
        time, each pass's order being the one the Python pass would hold (the present one,
        then, from the first tick at or after each recalculation, the recalculated one), and
        the pass at a tick ``T`` is run dry (:meth:`CountScan.scan_c` on the same profile; when
        it would start a job or record a reservation, that is the tick, and its outcome is
        kept for the pass there, :meth:`backfill_scan`). A quiet dry pass at ``T`` also
        proves quiet every later tick ``T'`` of its class (below) before the first release
        ``e`` after ``T`` and the first tick at which a slot the pass found beyond the window
        comes within it, while the tested jobs stay the same, and, when some holds move with
        the tick (below), up to ``T + e - E``, ``E`` the latest end of those (proof):

        * with integer clocks and limits, ``T' - T`` a multiple of ``lcm(bf_interval,
          bf_resolution)`` (the same class) gives every job the same rounded duration
          ``round_up(T' + limit) - T'`` (``round_up`` is exact on integers);
        * the releases merged into the first step are the same (none between ``T`` and
          ``T'``), and so is its free count ``F``; the other releases are the same absolute
          breakpoints, at or after ``e``;
        * a hold *moves* when its slot is ``T`` itself (a job needing more than the idle nodes
          but no more than ``F``: a running job is past its planned end) or the end of a
          moving hold; the others are *fixed*. A quiet scan starts nothing, and its fixed
          slots are releases or ends of fixed holds, so at or after ``e``; every moving hold
          ends by ``E``, before ``e`` when ``T' - T <= e - E`` (``E < e``). So the profile at
          ``T`` is, on ``[T, e)``, ``F`` less the moving holds, and from ``e`` on the fixed
          part; claim: at ``T'``, each job has the same outcome, its moving hold shifted by
          ``T' - T`` and its fixed one in place, hence the same profile on ``[T', e)`` shifted
          (``F`` on ``[E + T' - T, e)``) and the same fixed part;
        * by induction over the tested jobs: a candidate slot that failed at ``T`` fails at
          ``T'``: a moving one is shifted and its window ``[x, x + d)`` covers the shifted
          part that failed, or the fixed part it reached and more of it, and a point of the
          span ``F`` failing means that ``F`` (the most of the first steps) is too little,
          so ``x`` fails too; a fixed candidate sees the same fixed profile with the same
          window; the slot found at ``T`` succeeds at ``T'``: a moving slot's window ends by
          ``E + T' - T <= e`` on the shifted part, a fixed one is the same; no other
          candidate comes before it (the moving ones are the shifted ones, in the same order,
          before ``e``). A job reserved at ``T`` (it needs more than the idle nodes) is
          reserved at ``T'``; a job whose reservation is recorded records nothing; a slot
          within the window stays within it (a fixed one: the window only moves later; a
          moving one: shifted with it), one beyond stays beyond until the bound above;
        * the main scheduler starts nothing while the first pending job (the same) does not
          fit ``free``.

        A proof outlives its look-ahead (:meth:`hold_state`): a scan is a function of the tick
        and of the state it is made on (the idle nodes, the releases, the jobs it tests and
        which of them have a reservation recorded), and so is the proof a quiet one makes. A
        later look-ahead on the same state (after an arrival ranked below the tested jobs,
        or a pass woken at a tick it finds quiet) takes the proof of each class over instead
        of scanning a tick it covers (proved from an earlier tick of the class, to a later
        end). A scan that acts by recording
        reservations only (no start) is quiet once they are recorded: the pass at its tick
        records them, and its proof is carried, for the state with them recorded, to the
        look-ahead that pass makes (the scan then tests fewer jobs, :meth:`live`: a prefix
        of this one, whose slots beyond the window are no earlier and moving holds end no
        later, so this scan's proof end is no later than its own).

        Without integer clocks or with many classes, each tick is its own class. The dry
        passes stop at the next arrival or the kernel's next completion
        (``PassState.next_end``: its pass looks again), after a bounded number of
        them and of recalculations, and, when this pass starts jobs (whose ends the kernel
        does not hold yet), at a tick further ahead than the mean time between events (a dry
        pass there would mostly be lost to the event): that tick is then woken (waking is
        always right)."""
        cdef long k, j, c, scans = 0, recalcs = 0, n
        cdef double T, calc_end, horizon, b, u, E, reach
        cdef long long kT
        cdef bint same = False, known = False
        reach = self.first_reach(s, free)
        if reach == INFINITY:
            return INFINITY
        self.pick(self.order)
        horizon = s.submit[s.arrived] if s.arrived < <long>self.known.size() else INFINITY
        horizon = min(horizon, s.next_end)
        T = t1
        if reach > t1:  # no tick before ``reach - window`` acts
            u = min(reach - self.window - 1.0, horizon)
            if u > t1:
                T = self.tick_of(self.tick_index(u))
                self.leapt += 1
        # the first tick whose recalculation may change the tested jobs
        calc_end = self.next_calc
        u = self.order_kept_to(calc_end)
        if u >= calc_end:
            calc_end = self.calc_after(calc_end, u)
        self.until.assign(self.classes, -INFINITY)
        while True:
            if T >= horizon:
                return T
            if T >= calc_end:  # the pass at T recalculates the priorities first
                if recalcs == MAX_RECALCS or (
                    T > s.now + self.gap and self.joined > 4 * self.most
                ):  # (a long queue's order is not worth computing for a likely lost look)
                    return T
                recalcs += 1
                t = floor(T / self.period) * self.period
                calc_end = t + self.period
                if self.reorder(t, recalcs == 1):
                    self.until.assign(self.classes, -INFINITY)
                    known = False
                elif self.plain:  # the pass's order: the recalculations its proof keeps
                    u = self.order_kept_to(t)
                    if u >= t:
                        calc_end = self.calc_after(t, u)
            if self.look.empty() or self.counts.nodes[self.look[0]] <= free:
                return T  # the main scheduler starts the first pending job
            kT = <long long>llround((T - self.bf_phase) / self.bf_interval) if self.exact else 0
            c = kT % self.classes
            if T >= self.until[c] and self.exact:  # a proof of an earlier look-ahead?
                self.releases(s)  # the running jobs, and those this pass starts (now)
                if not known:  # (the state changes only with the tested jobs here)
                    n = self.live(s, self.look, free)
                    same = self.holds_state(s, free, n)
                    known = True
                if same and self.held_at[c] <= T < self.held_until[c]:  # (:meth:`hold_state`)
                    self.carried += 1
                    self.until[c] = self.held_until[c]
            if T >= self.until[c]:
                if scans == MAX_SCANS or (T > s.now + self.gap and not s.started.empty()):
                    return T
                self.releases(s)  # (nothing to do when already brought up to date)
                if not self.exact:
                    n = self.live(s, self.look, free)
                scans += 1
                b = INFINITY
                E = -INFINITY
                self.out.clear()
                self.reserved_at.clear()
                self.memo_free = self.counts.scan_c(
                    T, free, self.ends, self.look.data(), n,
                    self.window, self.reserve, self.out, self.reserved_at, &b, &E
                )
                if self.acts(s, T):  # the pass at T does this, unless an event comes first
                    self.memo_at = T
                    self.memo_completed, self.memo_arrived = s.completed, s.arrived
                    self.memo_starts, self.memo_joined = self.starts, self.joined
                    if self.exact and self.out.empty():  # it only records: a proof to carry
                        self.hold_state(s, free, n, True)
                        self.held_at[c] = T
                        self.held_until[c] = self.proved_to(T, kT, c, b, E)
                    return T
                if not self.exact:  # this tick only
                    T = tick_after(T, self.bf_interval, self.bf_phase)
                    continue
                self.until[c] = self.proved_to(T, kT, c, b, E)
                if not same:  # the proofs held were of another state
                    self.hold_state(s, free, n, False)
                    same = True
                self.held_at[c] = T
                self.held_until[c] = self.until[c]
            # the next tick that may not be proved quiet: of a class whose proof ends, or at
            # a recalculation, or the horizon
            u = INFINITY
            for c in range(self.classes):
                u = min(u, self.class_tick(kT, c, self.until[c]))
            if calc_end < u:
                u = min(u, self.tick_of(max(kT + 1, self.tick_index(calc_end))))
            if horizon < u:
                u = min(u, self.tick_of(max(kT + 1, self.tick_index(horizon))))
            T = u
            if T == INFINITY:
                return INFINITY

    cdef void want_tick(self, PassState* s, double t, long free) noexcept:
        """Ask for the backfill tick ``t``, or, when the ticks from ``t`` on are quiet
        (:meth:`lookahead`), for the first one that may not be (none: while nothing
        happens); the next pass accounts for those not woken (:meth:`catch_up`)."""
        cdef double stop
        if self.joined == 0 or (self.has_sched and not self.main_quiet(free)):
            self.want(t)
            return
        stop = self.lookahead(s, t, free)
        if stop <= t:
            self.want(t)
            return
        self.skip_from = t
        self.quiet_to = stop
        if t == self.owed:  # the tick the skipped ones asked for is itself skipped
            self.owed = INFINITY
        if stop < INFINITY and not vset_has(self.pushed, stop):
            vset_add(self.todo, stop)  # a tick of the Python pass's chain, unless an event comes

    cdef void catch_up(self, double now) noexcept:
        """The ticks not woken since ``skip_from`` and before ``now``: each would have been a
        backfill pass that did nothing but move the backfill clock and ask for the next."""
        cdef double t = self.skip_from, last = -INFINITY
        cdef long long k0, k1
        self.skip_from = INFINITY
        if (self.exact or self.grid) and t < now:
            k0 = <long long>llround((t - self.bf_phase) / self.bf_interval)
            k1 = self.tick_index(now)
            self.backfill_passes += k1 - k0
            self.skipped += k1 - k0
            last = self.tick_of(k1 - 1)
            t = self.tick_of(k1)
        while t < now:
            last = t
            self.backfill_passes += 1
            self.skipped += 1
            t = tick_after(t, self.bf_interval, self.bf_phase)
        if last > -INFINITY:
            self.next_bf = tick_after(last, self.bf_interval, self.bf_phase)
        # the wake-up the last of them (or the pass that stopped waking) asked for: owed
        # unless this pass skips it too (:meth:`want_tick`; :meth:`finish` asks for it)
        vset_add(self.timers, t)
        self.owed = t

    # -- the pass ------------------------------------------------------------------------------
    cdef void regate(self, PassState* s) noexcept:
        """A gated call's start (:meth:`serve_gate`), the Python pass's bookkeeping: the jobs
        queued now (``s.queue``) are the pending ones; a job the last call started that is
        still queued (the kernel did not apply it: a gate's hold or yield came before) and
        has left the order is pending again, and so is a job that joined the queue (an
        arrival, a released hold, a job back from a yield or a hide) and is not in the
        order, each with the age origin it first joined with."""
        cdef long k, j, n = self.order.size()
        cdef double now = s.now
        for k in range(<long>self.present.size()):
            self.queued_now[self.present[k]] = 0
        self.present.clear()
        for k in range(s.nq):
            j = s.queue[k]
            self.queued_now[j] = 1
            self.present.push_back(j)
        for k in range(n):
            self.listed[self.order[k].second] = 1
        for k in range(<long>self.taken.size()):
            j = self.taken[k]
            if self.queued_now[j] and not self.listed[j]:
                self.join(j, now)
                self.listed[j] = 1
        self.taken.clear()
        for k in range(s.njoined):
            j = s.joined[k]
            if not self.listed[j]:
                self.join(j, now)
                self.listed[j] = 1
        for k in range(<long>self.order.size()):
            j = self.order[k].second
            self.listed[j] = 0
            self.pending[j] = self.queued_now[j]
        self.ord_ver += 1  # (the pending jobs may change)

    cdef void gated_releases(self, PassState* s) noexcept:
        """The release list of a gated call, from the kernel's running jobs (``s.est``): each
        at its start + time limit, a held one (no start) at its estimate, rounded up
        (:meth:`CountScan.scan`'s arithmetic); this call's starts join it (:meth:`releases`)."""
        cdef long k, j, w = 0
        cdef double e, st
        self.just_rel.clear()
        for k in range(s.nest):
            e = s.est[k].first
            j = s.est[k].second
            st = self.start_of[j]
            if st == st:
                e = st + self.limit[j]
            self.just_rel.push_back(Keyed(self.counts.round_up(e), self.counts.nodes[j]))
        sort(self.just_rel.begin(), self.just_rel.end())
        self.ends.resize(self.just_rel.size())
        for k in range(<long>self.just_rel.size()):
            w = put_release(self.ends.data(), w, self.just_rel[k].first,
                            self.just_rel[k].second, 1)
        self.ends.resize(w)
        self.dead = 0
        self.merged = 0

    cdef int run_gated(self, PassState* s) except -1:
        """:meth:`run` in a gated run (:meth:`serve_gate`): the Python pass's steps at every
        call, no tick skipped (no look ahead: its proofs assume no gate)."""
        cdef double now = s.now, tick
        cdef long free = s.free, k
        self.merged = 0
        self.regate(s)
        free = self.main_step(s, free)
        if not self.order.empty() and self.backfill:
            if self.next_bf == -INFINITY:
                self.next_bf = tick_at_or_after(now, self.bf_interval, self.bf_phase)
            if now < self.next_bf - 1e-9:
                if free > 0:
                    self.want(self.next_bf)
            else:
                tick = tick_at_or_after(now, self.bf_interval, self.bf_phase)
                if tick > now + 1e-9:
                    self.next_bf = tick
                    if free > 0:
                        self.want(tick)
                else:
                    self.next_bf = tick_after(now, self.bf_interval, self.bf_phase)
                    self.backfill_passes += 1
                    if free > 0:
                        self.gated_releases(s)
                        free = self.backfill_scan(s, free)
                    if free > 0 and not self.order.empty():
                        self.want(self.next_bf)
        for k in range(<long>s.started.size()):
            self.taken.push_back(deref(s.started)[k])
        self.hand_wake(s)
        return 0

    cdef bint state(self, PassState* s, double* out) noexcept:
        """``Slurm._state`` of the kernel as this call left it (False: None, a running job is
        past its limit)."""
        if self.k_nest and self.k_first <= s.now:
            return False
        out[0] = self.arrived_n
        out[1] = s.completed
        out[2] = self.k_free
        out[3] = self.k_nest
        out[4] = self.calc
        out[5] = self.distinct
        return True

    cdef inline bint seen(self, const double* a, const double* b) noexcept:
        cdef long k
        for k in range(6):
            if a[k] != b[k]:
                return False
        return True

    cdef inline void count(self, long j) noexcept:
        if not self.counted[j]:
            self.counted[j] = 1
            self.distinct += 1

    cdef void kernel_state(self) noexcept:
        """What ``Slurm._state`` reads of the kernel (idle nodes, running jobs, the earliest
        estimate), after the pass's starts."""
        cdef long n
        cdef const Est* e = self.starter.running(&n)
        self.k_free = self.starter.idle()
        self.k_nest = n
        self.k_first = e[0].first if n else INFINITY

    cdef int start_main(self, PassState* s) except -1:
        """The main scheduler's jobs of this call (``s.started``, in order) start at once,
        where the kernel's best fit puts them (through a coupled run's gate)."""
        cdef long k
        self.main_jobs.assign(s.started.begin(), s.started.end())
        s.started.clear()
        for k in range(<long>self.main_jobs.size()):
            self.starter.start_c(self.main_jobs[k], NULL, -1, 0)
        self.kernel_state()
        return 0

    cdef long map_scan(self, PassState* s, long free) except -1:
        """The backfill scan on the node-space map of the kernel's running (or held) jobs,
        each busy until its start + time limit (a held job of a coupled system, with no
        start, until its estimate), over the ``tested`` jobs: each starts now on the nodes
        planned for it or records its reservation (:meth:`.nodemap.NodeMap.scan_c`); returns
        the nodes of the jobs it started."""
        cdef long k, j, n, taken = 0
        cdef const Est* e = self.starter.running(&n)
        cdef const double* st = self.starter.starts()
        cdef double end
        cdef NodeMap space = self.space
        space.reset(s.now, self.counts.resolution)
        for k in range(n):
            j = e[k].second
            end = e[k].first if st[j] != st[j] else st[j] + self.limit[j]
            self.starter.nodes_of(j, &self.one)
            space.add_run_iv(end, j, self.one.data(), <long>self.one.size() // 2)
        space.seal(self.window)
        self.out.clear()
        self.iv.clear()
        self.ivoff.clear()
        self.rjobs.clear()
        self.rtimes.clear()
        space.scan_c(
            self.tested.data(), self.tested.size(), self.counts.nodes.data(),
            self.limit.data(), free, self.reserve, self.out, self.iv, self.ivoff, self.rjobs,
            self.rtimes,
        )  # fmt: skip
        for k in range(<long>self.rjobs.size()):
            self.record_first(s, self.rjobs[k], self.rtimes[k])
        for k in range(<long>self.out.size()):
            j = self.out[k]
            self.starter.start_c(
                j, self.iv.data() + self.ivoff[k], (self.ivoff[k + 1] - self.ivoff[k]) // 2,
                self.cores_per_node,
            )  # fmt: skip
            taken += self.counts.nodes[j]
            self.leave(j, s.now)
            self.taken.push_back(j)
            self.count(j)
        self.kernel_state()
        return taken

    cdef int run_nodes(self, PassState* s) except -1:
        """``Slurm._pass`` with ``bf_nodes`` (:meth:`node_map`): :meth:`run_gated`'s steps, the
        main scheduler's jobs started through the view at once, the passes over an unchanged
        state skipped, a wake-up at each recalculation of an age weight, and the backfill scan
        on the node-space map (Python)."""
        cdef double now = s.now, tick
        cdef long free = s.free, k, j
        cdef bint main = True, has
        cdef double st[6]
        self.arrived_n += s.njoined
        self.merged = 0
        self.k_free, self.k_nest = s.free, s.nest
        self.k_first = s.est[0].first if s.nest else INFINITY
        self.regate(s)
        if not self.fifo and now >= self.next_calc:
            self.recalculate(now)
        if self.has_sched:
            tick = tick_at_or_after(now, self.sched_interval, self.sched_phase)
            main = fabs(tick - now) < 1e-9
            has = self.state(s, st)
            if main and has and self.seen(st, self.seen_main):
                main = False  # nothing new since the last pass: the same verdict
            elif not main and free > 0 and (not has or not self.seen(st, self.seen_main)):
                self.want(tick)
        if main:
            free = self.main(s, free)
            for k in range(<long>s.started.size()):
                j = deref(s.started)[k]
                self.taken.push_back(j)
                self.count(j)
            if not s.started.empty():
                self.start_main(s)
            if self.state(s, st):
                for k in range(6):
                    self.seen_main[k] = st[k]
            else:
                self.seen_main[0] = NAN
        if (
            free > 0 and not self.fifo and self.w_age > 0 and not self.order.empty()
            and self.next_calc > now
        ):  # with an age weight the order changes at each recalculation: a pass then
            self.want(self.next_calc)
        if not self.order.empty() and self.backfill:
            self.backfill_nodes(s, free)
        self.hand_wake(s)
        return 0

    cdef int backfill_nodes(self, PassState* s, long free) except -1:
        """The backfill thread of :meth:`run_nodes` (``Slurm._pass``'s step 3)."""
        cdef double now = s.now, tick
        cdef long k, j, before
        cdef bint has, fresh, more = False
        cdef double st[6]
        if self.next_bf == -INFINITY:
            self.next_bf = tick_at_or_after(now, self.bf_interval, self.bf_phase)
        has = self.state(s, st)
        fresh = not has or not self.seen(st, self.seen_bf)
        if now < self.next_bf - 1e-9:
            if free > 0 and fresh:
                self.want(self.next_bf)
            return 0
        tick = tick_at_or_after(now, self.bf_interval, self.bf_phase)
        if tick > now + 1e-9:  # a tick passed with nothing free: the thread runs on its clock
            self.next_bf = tick
            if free > 0 and fresh:
                self.want(tick)
            return 0
        self.next_bf = tick_after(now, self.bf_interval, self.bf_phase)
        if not fresh:  # nothing new since the last pass: it would start nothing
            return 0
        self.backfill_passes += 1
        if free > 0:
            before = self.distinct
            self.tested.clear()
            for k in range(<long>self.order.size()):
                j = self.order[k].second
                if self.pending[j]:
                    if <long>self.tested.size() == self.most:
                        more = True
                        break
                    self.tested.push_back(j)
            free -= self.map_scan(s, free)
            if (free == 0 or not more) and self.distinct == before and has:
                for k in range(6):  # nothing to do here until something changes
                    self.seen_bf[k] = st[k]
            else:
                self.seen_bf[0] = NAN
        if free > 0 and not self.order.empty() and self.seen_bf[0] != self.seen_bf[0]:
            self.want(self.next_bf)
        return 0

    cdef int run(self, PassState* s) except -1:
        cdef double now = s.now, tick
        cdef long free = s.free, k, j, nq = s.nq
        cdef bint same
        if self.on_nodes:
            return self.run_nodes(s)
        if self.gated:
            return self.run_gated(s)
        self.merged = 0
        self.ended(s)
        same = (
            s.completed == self.seen_completed and s.arrived == self.seen_arrived
            and nq == self.joined
        )  # no event since the last pass
        if not same:
            if self.last_event == self.last_event:
                self.gap += (now - self.last_event - self.gap) * 0.125
            self.last_event = now
        if self.skip_from < INFINITY:
            if same and now < self.quiet_to:  # a tick proved quiet (:meth:`lookahead`)
                return self.finish(s)
            self.catch_up(now)
        elif same and not vset_has(self.timers, now):
            # the end of a skip that an event cut short: no pass of the Python pass's
            return self.finish(s)
        self.seen_completed = s.completed
        self.seen_arrived = s.arrived
        for k in range(s.njoined):  # jobs new to the pass (arrivals, released dependants)
            j = s.joined[k]
            if not self.known[j]:
                self.join(j, now)
        free = self.main_step(s, free)
        if self.order.empty() or not self.backfill:
            return self.finish(s)
        # 3. backfill, every bf_interval seconds (at bf_phase past each multiple)
        if self.next_bf == -INFINITY:
            self.next_bf = tick_at_or_after(now, self.bf_interval, self.bf_phase)
        if now < self.next_bf - 1e-9:
            if free > 0:
                self.want_tick(s, self.next_bf, free)
            return self.finish(s)
        tick = tick_at_or_after(now, self.bf_interval, self.bf_phase)
        if tick > now + 1e-9:  # a tick passed with nothing free: the thread runs on its clock
            self.next_bf = tick
            if free > 0:
                self.want_tick(s, tick, free)
            return self.finish(s)
        self.next_bf = tick_after(now, self.bf_interval, self.bf_phase)
        self.backfill_passes += 1
        if free > 0:
            free = self.backfill_scan(s, free)
        if free > 0 and not self.order.empty():
            self.want_tick(s, self.next_bf, free)
        return self.finish(s)

    cdef int finish(self, PassState* s) except -1:
        """The jobs this pass starts join the release list; hand the kernel the earliest
        wake-up not yet asked for (the next one is asked at the pass it brings: a pass comes
        at each asked time while jobs wait)."""
        self.releases(s)
        if self.owed < INFINITY:
            self.want(self.owed)
            self.owed = INFINITY
        self.hand_wake(s)
        return 0

    cdef void hand_wake(self, PassState* s) noexcept:
        """Hand the kernel the earliest wake-up not yet asked for (:meth:`finish`, and a gated
        call's end), the times up to now forgotten."""
        cdef double t
        vset_drop_to(self.pushed, s.now)
        vset_drop_to(self.todo, s.now)
        vset_drop_to(self.timers, s.now)
        if not self.todo.empty():
            t = self.todo[0]
            self.todo.erase(self.todo.begin())
            vset_add(self.pushed, t)
            s.wake = t

    cdef long main_step(self, PassState* s, long free) except -1:
        """The priorities recalculated when due, then 2. the main scheduler: at every event, or
        on its own clock (``sched_interval``; off its tick, a wake-up at the tick while nodes
        are free); returns the nodes left free (:meth:`run`, :meth:`run_gated`)."""
        cdef double now = s.now, tick
        if not self.fifo and now >= self.next_calc:
            self.recalculate(now)
        if self.has_sched:
            tick = tick_at_or_after(now, self.sched_interval, self.sched_phase)
            if fabs(tick - now) >= 1e-9:
                if free > 0:
                    self.want(tick)
                return free
        return self.main(s, free)

    cdef long main(self, PassState* s, long free) except -1:
        """``Slurm._main``: priority order, stop at the first job that does not fit."""
        cdef long k = 0, j, n = self.order.size()
        while k < n:
            j = self.order[k].second
            if self.pending[j]:
                if self.counts.nodes[j] > free:
                    break
                free -= self.counts.nodes[j]
                self.start(s, j)
            k += 1
        if k:
            self.order.erase(self.order.begin(), self.order.begin() + k)
        return free

    cdef void ended(self, PassState* s) noexcept:
        """The jobs that ended since the last pass (``PassState.ended``) leave the release
        list (their entry's nodes and jobs less theirs; an entry left with no job stays, of
        none, until they are a quarter of the list: then they go, in one sweep; ``SWEEP``)."""
        cdef long k, i
        cdef Rel* e
        cdef const Held* h
        for k in range(s.nended):
            h = &self.held[s.ended[k]]
            i = rel_at_or_after(self.ends, h.t)
            e = &self.ends[i]
            e.n -= h.n
            e.c -= 1
            if e.c == 0:
                self.dead += 1
        if self.dead > 0 and (
            SWEEP < 0 or (self.dead > SWEEP and 4 * self.dead > <long>self.ends.size())
        ):
            self.merged_ends.clear()
            self.merge_releases(0)

    cdef void merge_releases(self, long m) noexcept:
        """``ends`` with the ``m`` releases of ``just_rel`` (sorted) merged in, the entries of
        no job dropped (through ``merged_ends``)."""
        cdef long a = 0, b = 0, w = 0, r = self.ends.size()
        cdef const Rel* x = self.ends.data()
        cdef const Keyed* y = self.just_rel.data()
        cdef Rel* o
        self.merged_ends.resize(r + m)
        o = self.merged_ends.data()
        while a < r or b < m:
            if b == m or (a < r and x[a].t <= y[b].first):
                if x[a].c != 0:
                    w = put_release(o, w, x[a].t, x[a].n, x[a].c)
                a += 1
            else:
                w = put_release(o, w, y[b].first, y[b].second, 1)
                b += 1
        self.merged_ends.resize(w)
        self.ends.swap(self.merged_ends)
        self.dead = 0

    cdef inline void add_release(self, double t, long n) noexcept:
        """One job's release of ``n`` nodes at ``t`` joins ``ends``."""
        cdef long i = rel_at_or_after(self.ends, t), r = self.ends.size()
        cdef Rel* e
        if i < r and self.ends[i].t == t:
            e = &self.ends[i]
            if e.c == 0:
                self.dead -= 1
            e.n += n
            e.c += 1
            return
        self.ends.resize(r + 1)
        e = self.ends.data()
        if i < r:
            memmove(&e[i + 1], &e[i], (r - i) * sizeof(Rel))
        e[i].t, e[i].n, e[i].c = t, n, 1

    cdef void releases(self, PassState* s) noexcept:
        """Bring ``self.ends`` up to date: the releases of the running jobs and of those this
        pass starts (from now), each at its start + time limit rounded up, sorted (the starts
        not merged yet join it: one by one when few, else merged)."""
        cdef long k, m = <long>s.started.size() - self.merged
        cdef const Held* h
        if m <= 0:
            return
        self.just_rel.clear()
        for k in range(self.merged, <long>s.started.size()):
            h = &self.held[deref(s.started)[k]]  # (:meth:`leave`: from now)
            self.just_rel.push_back(Keyed(h.t, h.n))
        self.merged = s.started.size()
        if m <= 4:
            for k in range(m):
                self.add_release(self.just_rel[k].first, self.just_rel[k].second)
            return
        sort(self.just_rel.begin(), self.just_rel.end())
        self.merge_releases(m)

    cdef inline void leave(self, long j, double now) noexcept:
        """Job ``j`` starts at ``now``: it leaves the pending order (its release noted)."""
        self.starts += 1
        self.pending[j] = 0
        self.carry_proof(j, NAN)
        self.joined -= 1
        self.held[j].t = self.counts.round_up(now + self.limit[j])

    cdef inline void start(self, PassState* s, long j) noexcept:
        """Job ``j`` starts now, by the kernel after the pass (``s.started``)."""
        self.leave(j, s.now)
        s.started.push_back(j)

    cdef inline void record_first(self, PassState* s, long j, double t) noexcept:
        """``record_reservation``: job ``j``'s reservation ``t``, if it has none yet."""
        if s.reservation[j] != s.reservation[j]:
            s.reservation[j] = t

    cdef long live(self, PassState* s, const vector[long]& tested, long free) noexcept:
        """How many of the ``tested`` jobs (in order) a scan with ``free`` idle nodes tests:
        up to the last one that fits ``free`` or has no reservation recorded yet.

        The jobs after it change nothing a pass does (proof): a job needing more than
        ``free`` nodes cannot start in the pass (a start needs its nodes idle, and the scan
        only takes idle nodes), and a job whose first reservation is recorded records
        nothing; so such a job's only effect is its hold on the profile, which only the jobs
        tested after it see, and by induction from the last tested job none of those after
        the last one that fits or lacks its reservation starts a job or records one, whatever
        their slots. Their slots (within the window, at the tick itself or beyond it) are
        needed by no one: not by the pass, not by :meth:`lookahead`'s proof, which is then a
        proof about the shorter scan (the same for every tick while ``free``, the tested jobs
        and the recorded reservations stay: a recording is itself an action)."""
        cdef long k = tested.size(), j
        while k > 0:
            j = tested[k - 1]
            if self.counts.nodes[j] <= free or s.reservation[j] != s.reservation[j]:
                break
            k -= 1
        return k

    cdef long backfill_scan(self, PassState* s, long free) except -1:
        """``Slurm._backfill`` on the node-count profile: the first ``bf_max_job_test`` pending
        jobs, the running ones released at start + time limit (those started by this pass's
        main scheduler from now)."""
        cdef long k, j
        cdef double now = s.now
        if (
            self.memo_at == now and self.memo_completed == s.completed
            and self.memo_arrived == s.arrived and self.memo_starts == self.starts
            and self.memo_joined == self.joined
        ):  # the look ahead's scan at this tick, on the same state (:meth:`lookahead`)
            free = self.memo_free
        else:
            self.tested.clear()
            for k in range(<long>self.order.size()):
                j = self.order[k].second
                if self.pending[j]:
                    if <long>self.tested.size() == self.most:
                        break
                    self.tested.push_back(j)
            self.releases(s)
            self.out.clear()
            self.reserved_at.clear()
            free = self.counts.scan_c(
                now, free, self.ends, self.tested.data(), self.live(s, self.tested, free),
                self.window, self.reserve, self.out, self.reserved_at
            )
        self.memo_at = NAN
        for k in range(<long>self.reserved_at.size()):
            self.record_first(s, self.reserved_at[k].second, self.reserved_at[k].first)
        for k in range(<long>self.out.size()):
            self.start(s, self.out[k])
        return free
