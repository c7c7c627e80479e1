"""A user-written policy in a few lines: FCFS, then backfill the smallest jobs first.

Run it through the command line:

    coschedlab simulate trace.swf --scheduler examples/smallest_first_backfill.py

or from Python: ``coschedlab.simulate(workload, cluster, SmallestFirstBackfill())``.
"""

from coschedlab.schedulers import Scheduler, start_in_order


class SmallestFirstBackfill(Scheduler):
    """Start the queue in order; when the head blocks, fill the machine with the smallest
    jobs that end before the head's shadow time (so the head is never delayed)."""

    name = "smallest-first"

    def schedule(self, view):
        started = start_in_order(view, view.queue, view.free)
        free = view.free - sum(view.nodes[j] for j in started)
        rest = view.queue[len(started) :]
        if not rest or free == 0:
            return started
        just = [(view.now + view.req[j], view.nodes[j]) for j in started]
        shadow, _ = view.shadow(view.nodes[rest[0]], free, just)
        for j in sorted(rest[1:], key=lambda j: (view.nodes[j], j)):
            if view.nodes[j] <= free and view.now + view.req[j] <= shadow:
                started.append(j)
                free -= view.nodes[j]
        return started
