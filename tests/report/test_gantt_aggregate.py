"""The aggregated Gantt chart and the Gantt hover's node mates against brute force over
random schedules (whole-node and co-located ones)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from coschedlab.platform import Cluster
from coschedlab.report import figures as F
from coschedlab.report import interactive as I
from coschedlab.report.timeaxis import TimeAxis, Window

sys.path.insert(0, str(Path(__file__).parent))
from _frames import fcfs_schedule  # noqa: E402


@pytest.mark.parametrize(("seed", "coloc"), [(0, False), (1, True), (2, False), (3, True)])
def test_the_heatmap_holds_each_nodes_busy_share_per_bin(monkeypatch, seed, coloc):
    monkeypatch.setattr(I, "HEATMAP_BINS", 25)
    cluster = Cluster(12, 2, 4)
    frame = fcfs_schedule(60, cluster, seed=seed, coloc=coloc)
    t0 = float(frame["submit"].min())
    length = float(frame["end"].max()) - t0
    window = Window(0.2 * length, 0.7 * length) if seed % 2 else Window()
    axis = TimeAxis.for_span(length, window)
    fig = I.gantt_heatmap(frame, cluster, axis)
    z = np.asarray(fig.data[0].z, dtype=float)
    assert z.shape == (cluster.nodes, 25)
    rows, start, end, y0, y1 = F.gantt_rectangles(frame, cluster)
    lo, hi = window.bounds(length)
    edges = np.linspace(t0 + lo, t0 + hi, 26)
    want = np.zeros((cluster.nodes, 25))
    for s, e, a, b in zip(start, end, y0, y1, strict=True):
        for node in range(int(np.floor(a)), int(np.ceil(b))):
            share = min(b, node + 1) - max(a, node)
            for k in range(25):
                overlap = max(0.0, min(e, edges[k + 1]) - max(s, edges[k]))
                want[node, k] += share * overlap / (edges[k + 1] - edges[k])
    assert np.abs(z - np.round(np.clip(want, 0, 1) * 100)).max() <= 1  # whole percents


@pytest.mark.parametrize("coloc", [False, True])
def test_node_mates_are_the_jobs_sharing_nodes_at_the_same_time(coloc):
    cluster = Cluster(8, 2, 4)
    frame = fcfs_schedule(40, cluster, seed=5, coloc=coloc)
    rows, start, end, y0, y1 = F.gantt_rectangles(frame, cluster)
    ids = frame["job_id"].to_numpy()[rows]
    got = I.node_mates(ids, start, end, y0, y1, shown=1000)
    y0, y1 = np.floor(y0), np.ceil(y1)  # a node's two halves are the same node
    for i in range(len(rows)):
        mates = sorted({int(ids[j]) for j in range(len(rows))
                        if ids[j] != ids[i] and start[i] < end[j] and start[j] < end[i]
                        and y0[i] < y1[j] and y0[j] < y1[i]})  # fmt: skip
        assert got[i] == ", ".join(str(m) for m in mates)
    if coloc:
        assert any(got)  # co-located jobs do share nodes
