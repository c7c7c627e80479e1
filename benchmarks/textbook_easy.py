"""A plain textbook EASY simulator as a whole program: the baseline of the whole command.

Reads an SWF trace (plain or gzip) with the standard library only, keeps the jobs that can run
(the same conventions as coschedlab: processors = field 8 else 5, requested time = field 9 else
the run time, jobs with unknown run time, no processors or larger than the machine dropped),
simulates EASY backfilling on whole nodes (one core per node, the header's MaxNodes) with the
same event conventions as coschedlab, and prints the number of jobs and the mean wait.
``bench_core.py`` times it as a fresh process beside ``coschedlab simulate`` and checks that
both give the same mean wait.

    python benchmarks/textbook_easy.py TRACE.swf.gz
"""

import gzip
import heapq
import math
import sys


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    jobs = []
    max_nodes = None
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith(";"):
                if "MaxNodes:" in line or "MaxProcs:" in line and max_nodes is None:
                    max_nodes = int(line.split(":")[1])
                continue
            f_ = line.split()
            jid, submit, run = int(f_[0]), float(f_[1]), float(f_[3])
            procs = int(f_[7]) if int(f_[7]) > 0 else int(f_[4])
            req = float(f_[8]) if float(f_[8]) > 0 else run
            if run < 0 or procs <= 0 or submit < 0:
                continue
            jobs.append((submit, jid, run, req, procs))
    jobs.sort()
    return jobs, max_nodes


def easy(jobs, total):
    """Mean-wait input: the waits of the jobs that fit, in queue order."""
    jobs = [j for j in jobs if j[4] <= total]
    submit = [j[0] for j in jobs]
    run = [j[2] for j in jobs]
    req = [j[3] for j in jobs]
    nodes = [j[4] for j in jobs]
    start = easy_starts(submit, run, req, nodes, total)
    return [start[j] - submit[j] for j in range(len(jobs))]


def easy_starts(submit, run, req, nodes, total):
    """EASY on ``total`` whole nodes; jobs in queue order (submit, id); the start times.

    Event loop: at each instant, all completions, then all arrivals, then one scheduling pass;
    a job of zero run time completes at the same instant in a new event, followed by another
    pass (the same conventions as coschedlab). Pass: start jobs from the head while they fit;
    the head job that does not fit gets the shadow time (running jobs sorted by estimated end =
    start + requested, ``now`` when past) and the extra nodes; later jobs start if they fit
    now and end by the shadow time or use only extra nodes.
    """
    n = len(submit)
    start = [None] * n
    queue, running, ends = [], [], []
    free, i = total, 0
    while i < n or ends or queue:
        now = submit[i] if i < n else math.inf
        if ends and ends[0][0] < now:
            now = ends[0][0]
        while ends and ends[0][0] == now:
            _, j = heapq.heappop(ends)
            free += nodes[j]
            for k, r in enumerate(running):
                if r[2] == j:
                    del running[k]
                    break
        while i < n and submit[i] == now:
            queue.append(i)
            i += 1
        started = []
        while queue and nodes[queue[0]] <= free:
            j = queue.pop(0)
            started.append(j)
            free -= nodes[j]
            running.append((now + req[j], nodes[j], j))
        if queue:
            need = nodes[queue[0]]
            running.sort()
            avail, shadow = free, math.inf
            for est, nj, _ in running:
                est = max(est, now)
                if shadow < math.inf and est > shadow:
                    break
                avail += nj
                if shadow == math.inf and avail >= need:
                    shadow = est
            extra = avail - need
            for j in list(queue[1:]):
                nj = nodes[j]
                if nj > free:
                    continue
                if now + req[j] <= shadow:
                    pass
                elif nj <= extra:
                    extra -= nj
                else:
                    continue
                queue.remove(j)
                started.append(j)
                free -= nj
                running.append((now + req[j], nj, j))
        for j in started:
            start[j] = now
            heapq.heappush(ends, (now + run[j], j))
    return start


if __name__ == "__main__":
    jobs, total = read(sys.argv[1])
    waits = easy(jobs, total)
    print(len(waits), sum(waits) / len(waits))
