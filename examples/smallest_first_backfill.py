"""A user-written policy in a few lines: FCFS, then backfill the smallest jobs first.

Run it through the command line:

    coschedlab simulate coschedlab:KTH-SP2-1996-2.1-cln.swf.gz \\
        --scheduler examples/smallest_first_backfill.py

or from Python: ``coschedlab.simulate(workload, cluster, SmallestFirstBackfill())``.
"""

from coschedlab.schedulers import NodeCounts, Scheduler, shadow_time, start_in_order


class SmallestFirstBackfill(Scheduler):
    """Start the queue in order; when the head blocks, fill the machine with the smallest
    jobs that end before the head's shadow time (so the head is never delayed)."""

    name = "smallest-first"
    guarantees = ("head",)  # the validator checks that the head is never delayed

    def schedule(self, view):
        started = start_in_order(view, view.queue, view.free)
        free = view.free - sum(view.nodes[j] for j in started)
        rest = view.queue[len(started) :]
        if not rest or free == 0:
            return started
        # the head's shadow time, counting the jobs this pass starts (EASY's step 1)
        just = [(view.now + view.req[j], j) for j in started]
        shadow, _ = shadow_time(view, view.nodes[rest[0]], NodeCounts(free, view.nodes), just)
        for j in sorted(rest[1:], key=lambda j: (view.nodes[j], j)):
            if view.nodes[j] <= free and view.now + view.req[j] <= shadow:
                started.append(j)
                free -= view.nodes[j]
        return started
