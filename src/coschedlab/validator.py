"""The schedule validator: checks the DESIGN.md invariants on any produced schedule.

It works on the per-job table alone (the ``Result.jobs`` columns), so it can check a run of
any simulator that writes them:

* every job starts and ends, no job starts before it is submitted or before its
  dependencies end;
* no node is given to two jobs at once (per node, from ``alloc``; and by counting nodes in use
  at every instant), each job holds exactly the nodes it needs, all within the machine;
* EASY never delays the head job: the shadow time is recomputed independently from the
  schedule at the instant each job became the head, and its start must not be later;
* conservative never delays a reservation: a job never starts later than the first reservation
  the policy recorded for it (where the policy guarantees it, see docs/semantics.md).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .platform import Cluster

EPS = 1e-9


def validate_jobs(
    jobs: pd.DataFrame,
    cluster: Cluster,
    *,
    scheduler: str = "",
    deps: Mapping[int, tuple[int, ...]] | None = None,
    max_errors: int = 20,
) -> list[str]:
    """Return the invariant violations found in ``jobs`` (empty list: valid)."""
    errors: list[str] = []

    def err(msg: str) -> bool:
        errors.append(msg)
        return len(errors) >= max_errors

    ids = jobs["job_id"].to_numpy()
    submit = jobs["submit"].to_numpy(dtype=float)
    start = jobs["start"].to_numpy(dtype=float)
    end = jobs["end"].to_numpy(dtype=float)
    nodes = jobs["nodes"].to_numpy()
    for k in np.flatnonzero(~(np.isfinite(start) & np.isfinite(end))):
        if err(f"job {ids[k]} never started or never ended"):
            return errors
    for k in np.flatnonzero(start < submit - EPS):
        if err(f"job {ids[k]} starts at {start[k]} before its submission at {submit[k]}"):
            return errors
    for k in np.flatnonzero(end < start - EPS):
        if err(f"job {ids[k]} ends at {end[k]} before it starts at {start[k]}"):
            return errors
    if (nodes > cluster.nodes).any() or (nodes < 1).any():
        k = int(np.flatnonzero((nodes > cluster.nodes) | (nodes < 1))[0])
        if err(f"job {ids[k]} holds {nodes[k]} nodes on a {cluster.nodes}-node machine"):
            return errors
    if deps:
        row = {int(j): k for k, j in enumerate(ids)}
        for jid, parents in deps.items():
            for p in parents:
                if start[row[jid]] < end[row[p]] - EPS and err(
                    f"job {jid} starts at {start[row[jid]]} before its dependency {p} ends "
                    f"at {end[row[p]]}"
                ):
                    return errors
    if errors:
        return errors
    if "node_cores" in jobs:  # shared nodes: count cores, node by node
        cores = jobs["node_cores"].to_numpy()
        errors += _check_capacity(start, end, nodes * cores, cluster.total_cores, ids, "cores")
        errors += _check_nodes(
            jobs["alloc"].tolist(), start, end, nodes, cluster.nodes, ids, cores,
            cluster.cores_per_node,
        )  # fmt: skip
    else:
        errors += _check_capacity(start, end, nodes, cluster.nodes, ids)
        if "alloc" in jobs and len(errors) < max_errors:
            errors += _check_nodes(jobs["alloc"].tolist(), start, end, nodes, cluster.nodes, ids)
    name = scheduler.split(":")[0]
    if name in ("easy", "backfill") and "order=" not in scheduler and not errors:
        errors += _check_easy_head(jobs, cluster)
    if "reservation" in jobs and not errors:
        errors += _check_reservations(jobs, scheduler)
    return errors[:max_errors]


def _check_capacity(start, end, nodes, capacity, ids, what="nodes") -> list[str]:
    """Nodes (or cores) in use never exceed the machine (ends before starts at an instant)."""
    times = np.concatenate([end, start])
    delta = np.concatenate([-nodes, nodes])
    kind = np.concatenate([np.zeros(len(end)), np.ones(len(start))])
    order = np.lexsort((kind, times))
    used = np.cumsum(delta[order])
    over = np.flatnonzero(used > capacity)
    if len(over):
        k = order[over[0]] - len(end)
        return [f"{used[over[0]]} {what} in use at t={times[order[over[0]]]} on a machine "
                f"of {capacity} {what} (when job {ids[k]} starts)"]  # fmt: skip
    return []


def _check_nodes(
    allocs, start, end, nodes, capacity, ids, cores=None, cpn=1, limit=20_000_000
) -> list[str]:
    """Per node, jobs never hold more than its cores at once (whole nodes: never two jobs at
    once); each job holds exactly its node count, all within the machine."""
    if int(nodes.sum()) > limit:
        return []
    starts_l, ends_l, jobs_l = [], [], []
    for k, text in enumerate(allocs):
        for part in text.split():
            a, _, b = part.partition("-")
            starts_l.append(int(a))
            ends_l.append(int(b or a) + 1)
            jobs_l.append(k)
    if not starts_l:
        return []
    a = np.asarray(starts_l, dtype=np.int64)
    length = np.asarray(ends_l, dtype=np.int64) - a
    ij = np.asarray(jobs_l, dtype=np.int64)
    held = np.bincount(ij, weights=length, minlength=len(allocs)).astype(np.int64)
    wrong = np.flatnonzero(held != nodes)
    if len(wrong):
        k = wrong[0]
        return [f"job {ids[k]} holds {held[k]} nodes ({allocs[k]!r}), not the {nodes[k]} it needs"]
    # one row per (node, job): expand the intervals without a Python loop
    first = np.repeat(a - np.cumsum(length) + length, length)
    node = np.arange(int(length.sum()), dtype=np.int64) + first
    job = np.repeat(ij, length)
    if node.min() < 0 or node.max() >= capacity:
        k = job[np.argmax((node < 0) | (node >= capacity))]
        return [f"job {ids[k]} holds a node outside 0..{capacity - 1}"]
    if cores is not None:
        return _check_node_cores(node, job, start, end, cores, cpn, ids)
    s, e = start[job], end[job]
    order = np.lexsort((e, s, node))
    node, job, s, e = node[order], job[order], s[order], e[order]
    same = node[1:] == node[:-1]
    clash = np.flatnonzero(same & (s[1:] < e[:-1] - EPS))
    if len(clash):
        c = clash[0]
        return [f"node {node[c]} is given to job {ids[job[c]]} [{s[c]}, {e[c]}) and to job "
                f"{ids[job[c + 1]]} [{s[c + 1]}, {e[c + 1]}) at once"]  # fmt: skip
    return []


def _check_node_cores(node, job, start, end, cores, cpn, ids) -> list[str]:
    """Cores in use on every node never exceed its cores (ends first at an instant)."""
    m = len(node)
    t = np.concatenate([start[job], end[job]])
    nd = np.concatenate([node, node])
    delta = np.concatenate([cores[job], -cores[job]])
    kind = np.concatenate([np.ones(m), np.zeros(m)])  # ends (0) before starts (1)
    jj = np.concatenate([job, job])
    order = np.lexsort((kind, t, nd))
    nd, delta, t, jj = nd[order], delta[order], t[order], jj[order]
    used = np.cumsum(delta)
    # cumulative sum restarts at every node: subtract the total before each node's first event
    first = np.flatnonzero(np.r_[True, nd[1:] != nd[:-1]])
    base = np.repeat(np.r_[0, used[first[1:] - 1]], np.diff(np.r_[first, len(nd)]))
    used = used - base
    over = np.flatnonzero(used > cpn)
    if len(over):
        k = over[0]
        return [f"node {nd[k]} has {used[k]} cores in use at t={t[k]} ({cpn} cores; when job "
                f"{ids[jj[k]]} starts)"]  # fmt: skip
    return []


def _check_easy_head(jobs: pd.DataFrame, cluster: Cluster) -> list[str]:
    """EASY never starts the head job later than the shadow time computed when it became head.

    Jobs are in queue order (submit, id). Job j becomes head at t_h = max(submit_j, latest
    start of the jobs before it). Its shadow time is recomputed from the jobs running at t_h
    (estimated end = start + requested time, ``t_h`` when past); jobs behind j that started at
    t_h in the pass where j became head are not counted (they were backfilled around it). The
    check is skipped where a job running between t_h and the start overran its estimate (EASY
    cannot know such an end; with ``kill_at_walltime`` no job overruns).
    """
    order = np.lexsort((jobs["job_id"].to_numpy(), jobs["submit"].to_numpy()))
    submit = jobs["submit"].to_numpy(dtype=float)[order]
    start = jobs["start"].to_numpy(dtype=float)[order]
    end = jobs["end"].to_numpy(dtype=float)[order]
    req = jobs["requested_time"].to_numpy(dtype=float)[order]
    nodes = jobs["nodes"].to_numpy()[order].tolist()
    passes = jobs["start_pass"].to_numpy()[order] if "start_pass" in jobs else None
    ids = jobs["job_id"].to_numpy()[order]
    n = len(order)
    prefix = np.maximum.accumulate(np.concatenate([[-np.inf], start[:-1]])) if n else start
    t_head = np.maximum(submit, prefix)
    overrun = (end - start) > req + EPS
    # overrunning jobs by estimated end, with the latest actual end among the first i of them:
    # "a job past its estimate before s was still running after t" is one binary search
    o_est = (start + req)[overrun]
    o_order = np.argsort(o_est, kind="stable")
    o_est = o_est[o_order]
    o_end_max = np.maximum.accumulate(end[overrun][o_order]) if len(o_est) else o_est
    by_start = np.argsort(start, kind="stable")
    by_end = np.argsort(end, kind="stable")
    si = ei = 0
    running: list[tuple[float, int]] = []  # (estimated end, index)
    is_running = np.zeros(n, dtype=bool)
    n_overrun = 0
    # pass in which each earlier job started at a given instant (to find when j became head)
    errors = []
    top, top_pass = -np.inf, -1  # latest start among the jobs before j, and its last pass
    for j in range(n):
        if j and passes is not None:
            sj = start[j - 1]
            if sj > top:
                top, top_pass = sj, int(passes[j - 1])
            elif sj == top:
                top_pass = max(top_pass, int(passes[j - 1]))
        th = t_head[j]
        if start[j] <= th + EPS:
            continue
        while si < n and start[by_start[si]] <= th:
            k = by_start[si]
            si += 1
            insort(running, (start[k] + req[k], k))
            is_running[k] = True
            n_overrun += overrun[k]
        while ei < n and end[by_end[ei]] <= th:
            k = by_end[ei]
            ei += 1
            if is_running[k]:
                del running[bisect_left(running, (start[k] + req[k], k))]
                is_running[k] = False
                n_overrun -= overrun[k]
        if n_overrun:
            continue
        i = int(np.searchsorted(o_est, start[j], side="left"))  # estimates before the start
        if i and o_end_max[i - 1] > th:
            continue  # a job running in [t_h, start) overran its estimate: not knowable
        head_pass = top_pass if passes is not None and prefix[j] >= th else -1
        avail = cluster.nodes
        items = []
        for est, k in running:
            if k > j and start[k] == th and (passes is None or passes[k] >= head_pass):
                continue  # backfilled around j in the pass where it became head
            avail -= nodes[k]
            items.append((max(est, th), nodes[k]))
        need = nodes[j]
        shadow = th if avail >= need else np.inf
        for est, cnt in items:
            if est > shadow:
                break
            avail += cnt
            if shadow == np.inf and avail >= need:
                shadow = est
        if start[j] > shadow + EPS:
            errors.append(
                f"EASY delayed head job {ids[j]}: head at t={th}, shadow time {shadow}, "
                f"started at {start[j]}"
            )
            if len(errors) >= 20:
                break
    return errors


def _check_reservations(jobs: pd.DataFrame, scheduler: str) -> list[str]:
    """A job never starts later than its first recorded reservation, where guaranteed.

    With every job ending by its estimate, EASY's and compressed conservative reservations are
    promises; in queue order (the default) conservative's promise needs exact estimates.
    """
    res = jobs["reservation"].to_numpy(dtype=float)
    if not np.isfinite(res).any():
        return []
    run = (jobs["end"] - jobs["start"]).to_numpy(dtype=float)
    req = jobs["requested_time"].to_numpy(dtype=float)
    if (run > req + EPS).any():
        return []
    name = scheduler.split(":")[0]
    exact = bool(np.all(np.abs(run - req) <= EPS))
    if name in ("conservative", "backfill") and "compress=true" not in scheduler and not exact:
        return []
    if name not in ("conservative", "backfill", "easy") or "order=" in scheduler:
        return []
    start = jobs["start"].to_numpy(dtype=float)
    late = np.flatnonzero(np.isfinite(res) & (start > res + EPS))
    ids = jobs["job_id"].to_numpy()
    return [
        f"job {ids[k]} started at {start[k]}, after its reservation at {res[k]}" for k in late[:20]
    ]
