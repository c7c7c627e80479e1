"""A plain textbook FCFS/EASY simulator, written independently of the engine, as an oracle.

Straightforward and slow on purpose: lists, a sort of the running jobs at every pass, the
shadow time and extra nodes of Lifka (1995), whole nodes.
"""

from __future__ import annotations

import math


def reference_schedule(jobs, nodes_total, cores_per_node=1, backfill=True, extra=True):
    """jobs: list of (id, submit, run, req, procs). Returns {id: start}."""
    jobs = sorted(jobs, key=lambda j: (j[1], j[0]))
    need = {j[0]: -(-j[4] // cores_per_node) for j in jobs}
    info = {j[0]: j for j in jobs}
    pending = list(jobs)
    queue: list[int] = []
    running: list[tuple[float, int]] = []  # (actual end, id)
    start: dict[int, float] = {}
    free = nodes_total
    now = -math.inf
    while pending or queue or running:
        candidates = [j[1] for j in pending[:1]] + [e for e, _ in running]
        now = min(candidates)
        for e, jid in [r for r in running if r[0] == now]:
            running.remove((e, jid))
            free += need[jid]
        while pending and pending[0][1] == now:
            queue.append(pending.pop(0)[0])
        # one pass
        started = []
        while queue and need[queue[0]] <= free:
            jid = queue.pop(0)
            started.append(jid)
            free -= need[jid]
        if queue and backfill:
            head = queue[0]
            est = sorted(
                [(max(start[j] + info[j][3], now), need[j]) for _, j in running]
                + [(now + info[j][3], need[j]) for j in started]
            )
            avail, shadow = free, math.inf
            for t, n in est:
                if t > shadow:
                    break
                avail += n
                if shadow == math.inf and avail >= need[head]:
                    shadow = t
            spare = avail - need[head]
            for jid in list(queue[1:]):
                if need[jid] > free:
                    continue
                if now + info[jid][3] <= shadow:
                    pass
                elif extra and need[jid] <= spare:
                    spare -= need[jid]
                else:
                    continue
                queue.remove(jid)
                started.append(jid)
                free -= need[jid]
        for jid in started:
            start[jid] = now
            running.append((now + info[jid][2], jid))
    return start
