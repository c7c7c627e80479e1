"""Hand-made and synthetic jobs tables shaped like a simulated result (for the report tests)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from coschedlab.metrics import colocation_summary, summary
from coschedlab.platform import Cluster
from coschedlab.report import Run


def ranges_text(nodes: np.ndarray) -> str:
    """Sorted node ids -> "0-3 7"."""
    nodes = np.sort(nodes)
    cuts = np.flatnonzero(np.diff(nodes) != 1) + 1
    parts = []
    for block in np.split(nodes, cuts):
        a, b = int(block[0]), int(block[-1])
        parts.append(f"{a}" if a == b else f"{a}-{b}")
    return " ".join(parts)


def run(frame: pd.DataFrame, cluster: Cluster) -> Run:
    """What the report is given for a run: the table, the cluster and the metrics a simulated
    result stores in metrics.json (:func:`summary` + :func:`colocation_summary`)."""
    return Run(frame, cluster, {**summary(frame, cluster.total_cores), **colocation_summary(frame)})


def finish(frame: pd.DataFrame) -> pd.DataFrame:
    """Add the derived columns a simulated result carries."""
    f = frame
    f["wait"] = f["start"] - f["submit"]
    f["response"] = f["end"] - f["submit"]
    f["run"] = f["end"] - f["start"]
    f["slowdown"] = f["response"] / f["run"]
    f["bounded_slowdown"] = np.maximum(1.0, f["response"] / np.maximum(f["run"], 10.0))
    for c in ("user", "group", "queue", "partition"):
        f[c] = -1
    f["status"] = 1
    f["killed"] = False
    return f


def fcfs_schedule(n: int, cluster: Cluster, seed: int = 0, coloc: bool = False) -> pd.DataFrame:
    """A plausible whole-node FCFS schedule of ``n`` random jobs (not the real engine).

    With ``coloc``, about half the jobs are "spread" on twice the nodes with a random speedup.
    """
    rng = np.random.default_rng(seed)
    cpn = cluster.cores_per_node
    submit = np.cumsum(rng.exponential(300.0, n))
    submit -= submit[0]
    procs = rng.choice([cpn // 2, cpn, 2 * cpn, 4 * cpn], size=n)
    procs = np.minimum(procs, cluster.total_cores // 2)
    run = rng.uniform(600, 7200, n)
    app = rng.integers(0, 5, n)
    halves = np.zeros((cluster.nodes, 2))  # when each half of each node is free again
    last_start = 0.0
    rows = []
    for i in range(n):
        spread = coloc and rng.random() < 0.5
        k = cluster.nodes_for(int(procs[i])) * (2 if spread else 1)
        k = min(k, cluster.nodes)
        avail = halves.min(axis=1) if spread else halves.max(axis=1)
        order = np.argsort(avail, kind="stable")[:k]
        start = max(submit[i], last_start, avail[order].max())
        speedup = rng.uniform(0.8, 1.3) if spread else 1.0
        end = start + run[i] / speedup
        if spread:
            halves[order, halves[order].argmin(axis=1)] = end
        else:
            halves[order] = end
        last_start = start
        rows.append(
            {
                "job_id": i + 1,
                "submit": submit[i],
                "start": start,
                "end": end,
                "requested_time": 1.4 * run[i],
                "procs": int(procs[i]),
                "nodes": k,
                "alloc": ranges_text(order),
                "app": int(app[i]),
                **(
                    {
                        "cores": int(procs[i]),
                        "speedup": speedup,
                        "compact_run": run[i],
                        "placement": "spread" if spread else "compact",
                    }
                    if coloc
                    else {}
                ),
            }
        )
    return finish(pd.DataFrame(rows))


def big_frame(n: int, cluster: Cluster, seed: int = 0) -> pd.DataFrame:
    """``n`` random jobs with random node ranges, fast to build (for rendering speed only)."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.uniform(0, 30 * 86400, n))
    start = submit + rng.exponential(3600, n)
    end = start + rng.uniform(60, 20000, n)
    nodes = rng.integers(1, 9, n)
    first = rng.integers(0, cluster.nodes - 8, n)
    alloc = [f"{a}-{a + k - 1}" if k > 1 else f"{a}" for a, k in zip(first, nodes, strict=True)]
    frame = pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submit": submit,
            "start": start,
            "end": end,
            "requested_time": 2 * (end - start),
            "procs": nodes * cluster.cores_per_node,
            "nodes": nodes,
            "alloc": alloc,
            "app": rng.integers(0, 12, n),
        }
    )
    return finish(frame)
