"""Which nodes are busy when, in Python: the oracle of the compiled node-space map
(:class:`coschedlab.schedulers.nodemap.NodeMap`, which Slurm's ``bf_nodes`` runs): Slurm
22.05's backfill node-space map and select/linear's will-run test, node by node.

:class:`coschedlab.schedulers.profile.Profile` counts free nodes over time;
:class:`BackfillMap` also knows *which* nodes, as a real Slurm's backfill does. It follows
``_attempt_backfill`` in ``src/plugins/sched/backfill/backfill.c`` and
``_will_run_test``/``_job_test`` in ``src/plugins/select/linear/select_linear.c`` (Slurm
22.05.8):

* the **node-space map** holds only the reservations of pending jobs (time slices, each with a
  bitmap of the nodes still available); running jobs are not in it (``bf_running_job_reserve``
  is off by default, and select/linear jobs are not ``whole_node`` jobs for it);
* a pending job is tested from ``start_res`` (now, then later): its usable nodes are those
  available in every slice that overlaps ``[start_res, start_res + limit]`` (a slice that
  begins exactly at the end counts);
* **will-run**: if enough usable nodes are idle now the job starts now; else the running jobs
  are removed one at a time in order of their end (start + time limit) until enough usable
  nodes are free: the job's start is that job's end, its nodes select/linear's best fit over
  the nodes free then (so a job may be planned on nodes freed by the first of two jobs that
  end together);
* a planned start after ``later_start`` (the end of the first slice after ``start_res`` that
  frees nodes) is retried from there; a plan whose nodes meet another reservation during
  ``[start, end)`` is retried from its start;
* reservations are rounded down to ``bf_resolution`` (at least one resolution long), and
  none is made beyond the backfill window.

Node sets are Python ints used as bitmaps (bit i = node i).
"""

from __future__ import annotations

import math
from bisect import insort

__all__ = ["BackfillMap", "best_fit"]

INF = math.inf


def _nodes(bits: int) -> list[int]:
    out = []
    i = 0
    while bits:
        if bits & 1:
            out.append(i)
        bits >>= 1
        i += 1
    return out


def _bits(nodes: list[int]) -> int:
    b = 0
    for node in nodes:
        b |= 1 << node
    return b


def best_fit(avail: list[int], need: int) -> list[int]:
    """select/linear's ``_job_test`` over the sorted node ids ``avail``: the smallest run of
    consecutive ids that holds the rest of the job (lowest ids among equals; the lowest ids of
    it), else the longest run whole (lowest ids among equals), until ``need`` nodes are taken
    (the kernel's default placement follows the same rule,
    :class:`coschedlab.engine.nodepool.NodePool`)."""
    runs: list[list[int]] = []
    for node in avail:
        if runs and runs[-1][-1] == node - 1:
            runs[-1].append(node)
        else:
            runs.append([node])
    out: list[int] = []
    while need > 0 and runs:
        fits = [r for r in runs if len(r) >= need]
        if fits:
            run = min(fits, key=len)
            out += run[:need]
            break
        run = max(runs, key=len)
        runs.remove(run)
        out += run
        need -= len(run)
    return sorted(out)


class BackfillMap:
    """One backfill pass's view of the machine: idle nodes, running jobs' ends and the
    node-space map of the reservations made so far (see the module docstring).

    ``running`` holds ``(end, order, nodes)`` of the running jobs (end = start + time limit;
    ``order`` breaks ties as Slurm's job list does: by job id); every other node is idle."""

    __slots__ = ("now", "n", "res", "idle", "running", "slices", "window_end")

    def __init__(
        self,
        now: float,
        n_nodes: int,
        running: list[tuple[float, int, list[int]]],
        resolution: float = 1.0,
        window: float = INF,
    ) -> None:
        self.now = now
        self.n = n_nodes
        self.res = resolution
        self.running = sorted((end, order, _bits(nodes)) for end, order, nodes in running)
        self.idle = (1 << n_nodes) - 1
        for _, _, bits in self.running:
            self.idle &= ~bits
        begin = math.floor(now / resolution) * resolution
        end = math.floor((now + window) / resolution) * resolution if window < INF else INF
        self.window_end = now + window
        # the node-space map: [begin, end, available nodes] slices in time order
        self.slices: list[list] = [[begin, end, (1 << n_nodes) - 1]]

    # -- select/linear ---------------------------------------------------------------------
    def _will_run(self, avail: int, need: int) -> tuple[float, int]:
        """(start, nodes) of ``_will_run_test``: now on idle usable nodes, else at the end of
        the first running job whose removal frees enough usable nodes; (inf, 0) if never."""
        pool = avail & self.idle
        if pool.bit_count() >= need:
            return self.now, _bits(best_fit(_nodes(pool), need))
        for end, _, nodes in self.running:
            pool |= nodes & avail
            if pool.bit_count() >= need:
                start = self.now + 1 if end <= self.now else end
                return start, _bits(best_fit(_nodes(pool), need))
        return INF, 0

    # -- the node-space map ----------------------------------------------------------------
    def _usable(self, start_res: float, end_time: float) -> tuple[int, float]:
        """The nodes available in every slice that overlaps ``[start_res, end_time]`` and
        ``later_start`` (0 when none), as the loop of ``_attempt_backfill`` computes them."""
        avail = (1 << self.n) - 1
        later = 0.0
        sl = self.slices
        for k, (b, e, bits) in enumerate(sl):
            # the end of the first slice after start_res whose successor frees nodes
            frees = k + 1 < len(sl) and sl[k + 1][2] & ~(avail & bits)
            if e > start_res and later == 0.0 and frees:
                later = e
            if e <= start_res:
                continue
            if b <= end_time:
                avail &= bits
            else:
                break
        return avail, later

    def _overlap(self, nodes: int, start: float, end: float) -> bool:
        """``_test_resv_overlap``: whether ``nodes`` meet a reservation during (start, end)."""
        return any(e > start and b < end and nodes & ~bits for b, e, bits in self.slices)

    def test(self, need: int, limit: float) -> tuple[float, list[int]]:
        """When and where a pending job of ``need`` nodes and ``limit`` seconds can start:
        ``(now, nodes)`` to start it now, ``(t, nodes)`` for a reservation at ``t``, or
        ``(inf, [])`` when it gets none (never fits, or beyond the window)."""
        now = self.now
        later_start = now
        for _ in range(10_000):
            start_res, later_start = later_start, 0.0
            end_time = max(start_res, now) + limit
            avail, later_start = self._usable(start_res, end_time)
            if avail.bit_count() < need:
                if later_start:
                    continue
                return INF, []
            start, nodes = self._will_run(avail, need)
            if start == INF:
                if later_start:
                    continue
                return INF, []
            start = max(start, start_res)
            if start <= now:
                return now, _nodes(nodes)
            if later_start and start > later_start:
                continue
            if start > self.window_end:
                return INF, []
            st, er = self._span(start, limit)
            if self._overlap(nodes, st, er):
                later_start = start
                continue
            return start, _nodes(nodes)
        return INF, []  # pragma: no cover - the retries move forward in time

    def _span(self, start: float, limit: float) -> tuple[float, float]:
        r = self.res
        st = math.floor(start / r) * r
        er = math.floor((start + limit) / r) * r
        return st, max(er, st + r)

    def reserve(self, nodes: list[int], start: float, limit: float) -> None:
        """``_add_reservation``: take ``nodes`` out of the slices during [start, start + limit)
        (rounded down to the resolution, at least one resolution long)."""
        st, er = self._span(start, limit)
        sl = self.slices
        st = max(st, sl[0][0])
        keep = ~_bits(nodes)
        j = None
        for k, s in enumerate(sl):
            if s[1] > st:  # split: [b, st) keeps its nodes, [st, e) gets the reservation
                sl.insert(k + 1, [st, s[1], s[2]])
                s[1] = st
                j = k + 1
                break
            if s[1] == st:
                j = k + 1
                break
        if j is None:
            return
        first = max(j - 2, 0)
        while j < len(sl):
            s = sl[j]
            if er < s[1]:
                sl.insert(j + 1, [er, s[1], s[2]])
                s[1] = er
            s[2] &= keep
            if er == s[1]:
                break
            j += 1
        # drop one record whose bitmap equals its predecessor's (as Slurm does)
        for k in range(first, min(j + 1, len(sl) - 1)):
            if sl[k][2] == sl[k + 1][2]:
                sl[k][1] = sl[k + 1][1]
                del sl[k + 1]
                break

    #: the name :func:`.profile.reservation_scan` knows it by (:class:`.profile.Space`)
    hold = reserve

    def start(self, nodes: list[int], order: int, limit: float) -> None:
        """A job started now on ``nodes``: busy until now + its limit (the select plugin's view;
        the node-space map gets no record of it, as ``_bf_reserve_running`` skips
        select/linear jobs)."""
        bits = _bits(nodes)
        self.idle &= ~bits
        insort(self.running, (self.now + limit, order, bits))
