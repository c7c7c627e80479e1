"""The event-driven kernel: the clock, the queue and the running jobs (docs/semantics.md).

The kernel owns time and resources; the policy only decides. At every instant the kernel
processes all completions, then all arrivals, then runs ONE scheduling pass: it asks the
scheduler which queued jobs to start now, checks and applies the decisions and asks the speed
model when each started job will end. A job whose run time is zero completes in a new event at
the same instant, after the pass, and that event is followed by another pass.

The scheduler sees this object as a read-only view. Jobs are numbered 0..n-1 in queue order
(submit time, then job id), so the queue is a sorted list of ints and its order is (submit, id)
unless a policy sorts it its own way. Per-job lists a policy may read, indexed by that number:
``submit``, ``req`` (requested time), ``nodes`` (whole nodes needed), ``procs``, ``ids``
(the trace's job ids), ``start``; the running jobs' estimated ends are in ``est_sorted``
(sorted ``(start + req, j)`` pairs). Policies never see actual run times.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, insort
from collections.abc import Callable, Iterable
from heapq import heappop, heappush
from time import perf_counter
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..jobs import Workload
from ..platform import Cluster
from .resources import NodePool, Placement, SharedNodes
from .speed import SpeedModel

if TYPE_CHECKING:  # pragma: no cover
    from ..schedulers.base import Scheduler

NAN = math.nan
INF = math.inf


class SchedulerError(InputError):
    """A policy made an impossible decision (a bug in the policy, reported to its author)."""


class Simulation:
    """One simulation run of ``workload`` on ``cluster`` under ``scheduler``.

    ``kill_at_walltime`` ends a job at its requested time when it would run longer (ELiSE's
    behaviour; off by default, so jobs that overrun their estimate keep running).
    ``progress(done, total)`` is called every few thousand completions.
    ``shared_nodes`` turns on per-node core accounting (co-location): policies may then return
    :class:`~coschedlab.engine.resources.Placement` decisions that share nodes; ``free`` still
    counts idle nodes, so whole-node policies work unchanged.
    """

    def __init__(
        self,
        workload: Workload,
        cluster: Cluster,
        scheduler: Scheduler,
        *,
        kill_at_walltime: bool = False,
        speed_model: SpeedModel | None = None,
        progress: Callable[[int, int], None] | None = None,
        shared_nodes: bool = False,
    ) -> None:
        self.workload = workload
        self.cluster = cluster
        self.scheduler = scheduler
        self.kill_at_walltime = kill_at_walltime
        self.speed_model = speed_model or SpeedModel()
        self.progress = progress
        n = len(workload)
        self.n = n
        cols = workload.columns
        order = np.lexsort((cols["id"], cols["submit"]))
        self.order = order
        ids = cols["id"][order]
        procs = cols["procs"][order]
        if n and procs.min() <= 0:
            bad = int(ids[np.argmin(procs)])
            raise InputError(f"job {bad} asks for {int(procs.min())} processors")
        nodes = -(-procs // cluster.cores_per_node)
        if n and nodes.max() > cluster.nodes:
            k = int(np.argmax(nodes))
            raise InputError(
                f"job {int(ids[k])} needs {int(nodes[k])} nodes ({int(procs[k])} processors); "
                f"the cluster has {cluster.nodes} nodes of {cluster.cores_per_node} cores"
            )
        run = cols["run"][order]
        req = cols["requested_time"][order]
        submit = cols["submit"][order]
        for name, arr in (("submit", submit), ("run time", run), ("requested time", req)):
            if n and not (np.isfinite(arr).all() and arr.min() >= 0):
                k = int(np.argmin(np.where(np.isfinite(arr), arr, -np.inf)))
                raise InputError(f"job {int(ids[k])} has {name} {arr[k]!r}")
        duration = np.minimum(run, req) if kill_at_walltime else run
        self.killed = ((run > req) if kill_at_walltime else np.zeros(n, dtype=bool)).tolist()
        self.ids: list[int] = ids.tolist()
        self.submit: list[float] = submit.tolist()
        self.req: list[float] = req.tolist()
        self.nodes: list[int] = nodes.tolist()
        self.procs: list[int] = procs.tolist()
        self.duration: list[float] = duration.tolist()
        self.run_time: list[float] = run.tolist()
        self.start: list[float] = [NAN] * n
        self.end: list[float] = [NAN] * n
        self.reservation: list[float] = [NAN] * n
        self.start_pass: list[int] = [-1] * n
        # shared nodes: alloc[j] = the job's node intervals [(a, b), ...]; whole nodes: the node
        # intervals of every job are kept flat, a0 b0 a1 b1 ..., from iv_off[j], iv_len[j] of them
        self.alloc: list = [None] * n
        self.iv_flat = array("q")
        self.iv_off = array("q", bytes(8 * n))
        self.iv_len = array("i", bytes(4 * n))
        self.queue: list[int] = []
        self.est_sorted: list[tuple[float, int]] = []
        self.now = 0.0
        self.free = cluster.nodes
        self.shared = SharedNodes(cluster.nodes, cluster.cores_per_node) if shared_nodes else None
        self.pool = NodePool(cluster.nodes) if self.shared is None else None
        self.node_cores: list[int] = [cluster.cores_per_node] * n
        self._started_in_pass: list[int] = []
        self.passes = 0
        self.completed = 0  # jobs ended so far (policies use it to tell what changed)
        self.wall_time = NAN
        self._timers: list[float] = []
        self._heap: list[tuple[float, int]] = []
        self._queued = bytearray(n)
        self._deps_left: list[int] | None = None
        self._dependents: dict[int, list[int]] = {}
        self._arrived = bytearray(n)
        if workload.deps:
            self._index_deps(workload.deps)

    # -- set-up -------------------------------------------------------------------------------
    def _index_deps(self, deps: dict[int, tuple[int, ...]]) -> None:
        index = {jid: k for k, jid in enumerate(self.ids)}
        left = [0] * self.n
        for jid, parents in deps.items():
            j = index[jid]
            for p in parents:
                left[j] += 1
                self._dependents.setdefault(index[p], []).append(j)
        self._deps_left = left

    # -- what a policy may call ---------------------------------------------------------------
    @property
    def queued(self) -> bytearray:
        """``queued[j]`` is 1 while job ``j`` waits in the queue (0 once started this pass)."""
        return self._queued

    def wake_at(self, t: float) -> None:
        """Ask for a scheduling pass at time ``t`` even if no job arrives or ends then."""
        if t > self.now:
            heappush(self._timers, t)

    def record_reservation(self, j: int, t: float) -> None:
        """Record the first reservation a policy gave job ``j`` (checked by the validator)."""
        if self.reservation[j] != self.reservation[j]:  # NaN: first one only
            self.reservation[j] = t

    def shadow(self, need: int, free: int, just_started: Iterable[tuple[float, int]] = ()):
        """EASY's shadow time and extra nodes for a job needing ``need`` nodes (Lifka 1995).

        Running jobs free their nodes at their estimated ends (``now`` when already past);
        ``just_started`` lists ``(estimated_end, nodes)`` of jobs this pass decided to start.
        The shadow time S is the first estimated end at which the job fits; ``extra`` is what
        is free at S (every job ending at S counted) minus ``need``. ``(inf, 0)`` if it never fits.
        """
        now = self.now
        nodes = self.nodes
        avail = free
        found = INF
        if just_started:
            items = sorted([(e, nodes[j]) for e, j in self.est_sorted] + list(just_started))
            for est, n in items:
                if est < now:
                    est = now
                if est > found:
                    break
                avail += n
                if found == INF and avail >= need:
                    found = est
        else:  # walk the running jobs in place and stop at the first end after S
            for est, j in self.est_sorted:
                if est < now:
                    est = now
                if est > found:
                    break
                avail += nodes[j]
                if found == INF and avail >= need:
                    found = est
        if found == INF:
            return INF, 0
        return found, avail - need

    # -- the run ------------------------------------------------------------------------------
    def run(self) -> Simulation:
        """Run to the end: every job starts and ends. Returns ``self``."""
        t0 = perf_counter()
        self.speed_model.bind(self)
        self.scheduler.setup(self)
        n = self.n
        submit = self.submit
        heap = self._heap
        timers = self._timers
        queue = self.queue
        queued = self._queued
        arrived = self._arrived
        deps_left = self._deps_left
        schedule = self.scheduler.schedule
        progress = self.progress
        done = 0
        next_report = 4096
        arr_i = 0
        cur_end = self.end  # the speed model may move an end: older heap entries are stale
        finished = bytearray(n)
        while True:
            t = submit[arr_i] if arr_i < n else INF
            if heap and heap[0][0] < t:
                t = heap[0][0]
            if timers and timers[0] < t:
                t = timers[0]
            if t == INF:
                break
            self.now = t
            # 1. all completions at t
            while heap and heap[0][0] == t:
                e, j = heappop(heap)
                if cur_end[j] != e or finished[j]:  # rescheduled by the speed model
                    continue
                finished[j] = 1
                self._finish(j, t)
                done += 1
            # 2. all arrivals at t
            while arr_i < n and submit[arr_i] == t:
                j = arr_i
                arr_i += 1
                arrived[j] = 1
                if deps_left is None or deps_left[j] == 0:
                    queue.append(j)
                    queued[j] = 1
            while timers and timers[0] <= t:
                heappop(timers)
            # 3. one scheduling pass
            if queue:
                decisions = schedule(self)
                if decisions or self._started_in_pass:
                    self._apply(decisions or ())
                self.passes += 1
            if progress is not None and done >= next_report:
                progress(done, n)
                next_report = done + 4096
        if queue:
            j = queue[0]
            raise SchedulerError(
                f"scheduler {self.scheduler.describe()} left {len(queue)} jobs waiting on an "
                f"idle machine (first: job {self.ids[j]} needing {self.nodes[j]} nodes)"
            )
        if done != n:
            raise SchedulerError(f"{n - done} jobs never became eligible (dependency cycle?)")
        if progress is not None:
            progress(done, n)
        self.wall_time = perf_counter() - t0
        return self

    def start_now(self, decision: int | Placement) -> None:
        """Apply one decision immediately, during the pass (for policies whose later decisions
        depend on where earlier jobs went); the job leaves the queue when the pass ends."""
        self._apply_one(decision)

    def _apply_one(self, d: int | Placement) -> None:
        now = self.now
        if isinstance(d, Placement):
            j, placement = d.job, d
        else:
            j, placement = int(d), None
        if not (0 <= j < self.n) or not self._queued[j]:
            what = f"job index {j}" if not (0 <= j < self.n) else f"job {self.ids[j]}"
            raise SchedulerError(
                f"scheduler {self.scheduler.describe()} started {what}, which is not queued"
            )
        if placement is None:
            if self.nodes[j] > self.free:
                raise SchedulerError(
                    f"scheduler {self.scheduler.describe()} started job {self.ids[j]} needing "
                    f"{self.nodes[j]} nodes with {self.free} free at t={now}"
                )
        else:
            why = None
            if self.shared is None:
                why = "gave a placement, but nodes are not shared in this simulation"
            elif placement.n_nodes * placement.cores < self.procs[j]:
                why = (
                    f"gave {placement.n_nodes} nodes x {placement.cores} cores for "
                    f"{self.procs[j]} processors"
                )
            else:
                why = self.shared.check(placement)
            if why:
                raise SchedulerError(
                    f"scheduler {self.scheduler.describe()} started job {self.ids[j]} at "
                    f"t={now}: placement {why}"
                )
        self._queued[j] = 0
        self._started_in_pass.append(j)
        self._start(j, now, placement)

    def _apply(self, decisions: Iterable[int | Placement]) -> None:
        for d in decisions:
            self._apply_one(d)
        started = self._started_in_pass
        queue = self.queue
        k = len(started)
        if k == 1:
            queue.remove(started[0])
        elif k:
            queued = self._queued
            if not any(queued[j] for j in queue[:k]):  # a prefix started (FCFS-like)
                del queue[:k]
            else:
                queue[:] = [j for j in queue if queued[j]]
        started.clear()

    def _start(self, j: int, now: float, placement: Placement | None = None) -> None:
        shared = self.shared
        if shared is None:
            self.free -= self.nodes[j]
            iv = self.pool.take(self.nodes[j])
            flat = self.iv_flat
            self.iv_off[j] = len(flat)
            self.iv_len[j] = len(iv)
            for a, b in iv:
                flat.append(a)
                flat.append(b)
        else:
            if placement is None:
                where = shared.idle_intervals(self.nodes[j])
                shared.place(j, where, self.cluster.cores_per_node)
            else:
                where = shared.claim(placement)
                self.node_cores[j] = placement.cores
            self.alloc[j] = where
            self.free = shared.n_idle
        self.start[j] = now
        self.start_pass[j] = self.passes
        insort(self.est_sorted, (now + self.req[j], j))
        sm = self.speed_model
        end = sm.end_time(j, now) if sm.dynamic else now + self.duration[j]
        self.end[j] = end
        heappush(self._heap, (end, j))
        if sm.dynamic:
            self._reschedule(sm.on_start(j, now))

    def _finish(self, j: int, now: float) -> None:
        self.completed += 1
        if self.shared is None:
            self.free += self.nodes[j]
            off = self.iv_off[j]
            flat = self.iv_flat[off : off + 2 * self.iv_len[j]]
            self.pool.give(list(zip(flat[0::2], flat[1::2], strict=True)))
        else:
            self.shared.release(j, self.alloc[j], self.node_cores[j])
            self.free = self.shared.n_idle
        est = self.est_sorted
        del est[bisect_left(est, (self.start[j] + self.req[j], j))]
        if self._deps_left is not None and j in self._dependents:
            for d in self._dependents[j]:
                self._deps_left[d] -= 1
                if self._deps_left[d] == 0 and self._arrived[d]:
                    insort(self.queue, d)
                    self._queued[d] = 1
        sm = self.speed_model
        if sm.dynamic:
            self._reschedule(sm.on_end(j, now))

    def _reschedule(self, changes: dict[int, float]) -> None:
        for k, new_end in changes.items():
            if self.end[k] != new_end:
                self.end[k] = new_end
                heappush(self._heap, (new_end, k))
