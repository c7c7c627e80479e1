"""A pool feeds the (coloc-agnostic) workload generator through its application table."""

from __future__ import annotations

import numpy as np
import pytest
from _coloc_data import TINY_LOADS, real_dir, real_pool_dir, tiny_pool_file, write_pool  # noqa: F401

from coschedlab.coloc import load_pool
from coschedlab.generate import generate_workload
from coschedlab.report import app_names_from_header


def test_generate_from_real_pool(real_dir):
    pool = load_pool(real_dir / "lm-remake-g5k.nancy.grvingt-NAS.json")
    w = generate_workload(pool.app_frame(), 500, arrival="poisson:120", seed=42)
    names = app_names_from_header(w.header["Applications"])
    assert [names[i] for i in range(len(pool))] == pool.names
    for job in (w[0], w[499]):
        app = pool.app(names[job.app])
        assert job.procs == app.procs and job.run == app.compact_time
        assert job.requested_time == pytest.approx(1.4 * app.compact_time)
    # mean pair speedup of the workload's job pairs (ELiSE Table 2's x axis)
    workload_mean = pool.heatmap.mean_pair_speedup([names[a] for a in w.app])
    assert 0.9 < workload_mean < 1.2


def test_workload_mean_pair_speedup_by_brute_force(tiny_pool_file):
    pool = load_pool(tiny_pool_file)
    w = generate_workload(pool.app_frame(), 12, seed=1)
    apps = [pool.names[a] for a in w.app]
    brute = np.mean(
        [
            pool.heatmap.speedup(a, b)
            for i, a in enumerate(apps)
            for j, b in enumerate(apps)
            if i != j
        ]
    )
    assert pool.heatmap.mean_pair_speedup(apps) == pytest.approx(brute)
