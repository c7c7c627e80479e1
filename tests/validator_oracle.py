"""The validator's scans in plain Python and NumPy: the code the compiled scans
(``coschedlab._core.checks``) and the NumPy dependency lookup replaced, kept as their oracles
(test_validator_head.py, test_validator.py)."""

from __future__ import annotations

from bisect import bisect_left, insort

import numpy as np

from coschedlab import validator as V

EPS = 1e-9


def check_easy_head(
    order, release, start, end, req, nodes, ids, passes, capacity, join_pass=None, by=None
) -> list[str]:
    """EASY never starts the head job later than the shadow time computed when it became head.
    (``by``, the validator's orders by start and by end, is not used: this scan sorts itself.)

    Jobs are taken in queue order (submit, id); ``release`` is when each joined the queue (its
    submission, or its last parent's end plus its think time). Job j is the head for good from
    t_h = max(release_j, latest start of the jobs before it). Its shadow time is recomputed
    from the jobs running at t_h (estimated end = start + requested time, ``t_h`` when past);
    jobs behind j that started at t_h in the pass where j became head are not counted (they
    were backfilled around it; a dependant released in a later pass at that instant, see
    ``join_pass``, becomes head in that pass). The check is skipped where a job running between
    t_h and the start overran its estimate (EASY cannot know such an end; with
    ``kill_at_walltime`` no job overruns).
    """
    submit = release[order]
    start = start[order]
    end = end[order]
    req = req[order]
    nodes = nodes[order].tolist()
    passes = passes[order] if passes is not None else None
    joined = join_pass[order] if join_pass is not None and passes is not None else None
    ids = ids[order]
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
    by_start = np.argsort(start, kind="stable").tolist()
    by_end = np.argsort(end, kind="stable").tolist()
    # the loop below reads one element at a time: plain lists (NumPy scalars cost ~5x more)
    o_est_l, o_end_max_l = o_est.tolist(), o_end_max.tolist()
    release_l = submit.tolist()
    prefix_l = prefix.tolist()
    t_head_l = t_head.tolist()
    overrun_l = overrun.tolist()
    ids_l = ids.tolist()
    joined_l = joined.tolist() if joined is not None else None
    passes = passes.tolist() if passes is not None else None
    start, end, req = start.tolist(), end.tolist(), req.tolist()
    si = ei = 0
    running: list[tuple[float, int]] = []  # (estimated end, index)
    is_running = bytearray(n)
    n_overrun = 0
    errors = []
    top, top_pass = -np.inf, -1  # latest start among the jobs before j, and its last pass
    for j in range(n):
        if j and passes is not None:
            sj = start[j - 1]
            if sj > top:
                top, top_pass = sj, int(passes[j - 1])
            elif sj == top:
                top_pass = max(top_pass, int(passes[j - 1]))
        th = t_head_l[j]
        if start[j] <= th + EPS:
            continue
        while si < n and start[by_start[si]] <= th:
            k = by_start[si]
            si += 1
            insort(running, (start[k] + req[k], k))
            is_running[k] = 1
            n_overrun += overrun_l[k]
        while ei < n and end[by_end[ei]] <= th:
            k = by_end[ei]
            ei += 1
            if is_running[k]:
                del running[bisect_left(running, (start[k] + req[k], k))]
                is_running[k] = 0
                n_overrun -= overrun_l[k]
        if n_overrun:
            continue
        i = bisect_left(o_est_l, start[j])  # estimates before the start
        if i and o_end_max_l[i - 1] > th:
            continue  # a job running in [t_h, start) overran its estimate: not knowable
        head_pass = top_pass if passes is not None and prefix_l[j] >= th else -1
        if joined_l is not None and release_l[j] >= th:
            head_pass = max(head_pass, int(joined_l[j]))
        avail = capacity
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
                f"EASY delayed head job {ids_l[j]}: head at t={th}, shadow time {shadow}, "
                f"started at {start[j]}"
            )
            if len(errors) >= 20:
                break
    return errors


def check_nodes(allocs, start, end, nodes, capacity, ids, cores=None, cpn=1) -> list[str]:
    """Per node, jobs never hold more than its cores at once (whole nodes: never two jobs at
    once); each job holds exactly its node count, all within the machine."""
    ij, a, length = V._parse_allocs(allocs, ids)
    held = np.bincount(ij, weights=length, minlength=len(allocs)).astype(np.int64)
    wrong = np.flatnonzero(held != nodes)
    if len(wrong):
        k = wrong[0]
        return [f"job {ids[k]} holds {held[k]} nodes ({allocs[k]!r}), not the {nodes[k]} it needs"]
    if not len(a):
        return []
    # one row per (node, job): expand the intervals without a Python loop
    first = np.repeat(a - np.cumsum(length) + length, length)
    node = np.arange(int(length.sum()), dtype=np.int64) + first
    job = np.repeat(ij, length)
    if node.min() < 0 or node.max() >= capacity:
        k = job[np.argmax((node < 0) | (node >= capacity))]
        return [f"job {ids[k]} holds a node outside 0..{capacity - 1} ({allocs[k]!r})"]
    if cores is not None:
        return V._check_node_cores(node, job, start, end, cores, cpn, ids)
    s, e = start[job], end[job]
    order = np.lexsort((e, s, node))
    node, job, s, e = node[order], job[order], s[order], e[order]
    same = node[1:] == node[:-1]
    # sorted by start on each node, any overlap shows between two neighbours
    clash = np.flatnonzero(same & (s[1:] < e[:-1] - EPS))
    if len(clash):
        c = clash[0]
        return [f"node {node[c]} is given to job {ids[job[c]]} [{s[c]}, {e[c]}) and to job "
                f"{ids[job[c + 1]]} [{s[c + 1]}, {e[c + 1]}) at once"]  # fmt: skip
    return []


def parents(jobs, ids, deps):
    """``validator._parents`` as a Python dict of every job's id text (before bound23)."""
    has_col = "deps" in jobs
    if not has_col and not deps:
        return None
    row: dict[str, int] = {}
    for k, j in enumerate(ids.tolist()):
        row.setdefault(str(j), k)
    child: list[int] = []
    parent: list[int] = []
    unknown: list[tuple[object, str]] = []

    def add(k: int, p: str) -> None:
        r = row.get(p)
        if r is None:
            unknown.append((ids[k], p))
        else:
            child.append(k)
            parent.append(r)

    if has_col:
        for k, text in enumerate(list(jobs["deps"])):
            if isinstance(text, str) and text.strip():
                for p in text.replace(",", " ").split():
                    add(k, p)
    for jid, ps in (deps or {}).items():
        k = row.get(str(jid))
        if k is None:
            raise V.InputError(f"dependencies name job {jid}, which is not in the table")
        for p in ps:
            add(k, str(p))
    c = np.asarray(child, dtype=np.int64)
    think = np.asarray(jobs["think"], dtype=float)[c] if "think" in jobs else np.zeros(len(c))
    think = np.where(np.isfinite(think), think, 0.0)
    return c, np.asarray(parent, dtype=np.int64), think, unknown
