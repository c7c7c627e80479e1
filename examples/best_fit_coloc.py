"""A user-written co-scheduler in a few lines: pair a job on one run of half-free nodes if it can.

ELiSE's co-schedulers are hooks of one class (Algorithm 1); here only the node order
(ELiSE's ``host_alloc_condition``) changes. `easy-coloc` shares the partly used nodes with the
lowest ids first, which splits a job over many short runs of nodes as the machine fills up.
This one is *best fit*: if some run of partly used nodes can hold the whole job, the job takes
the shortest such run; otherwise it takes runs in id order as easy-coloc does. Everything else
(FCFS deploy, spread placement, EASY backfilling that keeps the head's reservation) is
inherited.

    coschedlab generate --pool coschedlab:lm-aris.compute-NAS.json --jobs 500 \\
        --arrival poisson:15 --nodes 100 --cores-per-node 48 --out out/w-bf.swf
    coschedlab simulate out/w-bf.swf --pool coschedlab:lm-aris.compute-NAS.json \\
        --kill-at-walltime -s easy-coloc -s examples/best_fit_coloc.py --out out/best-fit

or from Python: ``coschedlab.simulate(w, cluster, BestFitColoc(), pool=pool)``.
"""

from coschedlab.coloc.schedulers import CoScheduler


class BestFitColoc(CoScheduler):
    """easy-coloc that shares the shortest run of partly used nodes that holds the whole job."""

    name = "best-fit"

    def node_order(self, view, j, runs):
        # runs: (first node, end node, jobs on them) by node id
        _, need = self.shape(j)  # cores per node and nodes this co-scheduler gives job j
        fits = [r for r in runs if r[1] - r[0] >= need]
        if not fits:
            return runs
        best = min(fits, key=lambda r: (r[1] - r[0], r[0]))
        return [best] + [r for r in runs if r is not best]
