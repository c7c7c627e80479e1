"""The seeded synthetic workload generator (coschedlab.workload.synthetic)."""

from __future__ import annotations

import numpy as np
import pytest

import coschedlab
from coschedlab.errors import InputError
from coschedlab.jobs import COLUMNS, Workload
from coschedlab.platform import Cluster
from coschedlab.workload.swf import cluster_from_header
from coschedlab.workload.synthetic import offered_load, synthetic_workload


def test_same_seed_gives_identical_workload():
    a = synthetic_workload(5_000, 1_000, seed=7)
    b = synthetic_workload(5_000, 1_000, seed=7)
    for name in COLUMNS:
        assert np.array_equal(a.columns[name], b.columns[name]), name
    assert a.header == b.header


def test_other_seed_differs():
    a = synthetic_workload(2_000, 1_000, seed=1)
    b = synthetic_workload(2_000, 1_000, seed=2)
    assert not np.array_equal(a.columns["run"], b.columns["run"])


@pytest.mark.parametrize("load", [0.5, 0.9, 1.2])
def test_offered_load_close_to_target(load):
    w = synthetic_workload(50_000, 10_000, seed=3, load=load)
    assert offered_load(w, 10_000) == pytest.approx(load, rel=0.03)


def test_sizes_times_and_ids_within_bounds():
    nodes = 4_096
    w = synthetic_workload(20_000, nodes, seed=0)
    c = w.columns
    assert len(w) == 20_000
    assert c["procs"].min() >= 1 and c["procs"].max() <= nodes // 8
    assert 0.15 < np.mean(c["procs"] == 1) < 0.25  # p_serial = 0.2
    parallel = c["procs"][c["procs"] > 1]
    pow2 = (parallel & (parallel - 1)) == 0
    assert pow2.mean() > 0.6  # power-of-two biased
    assert c["run"].min() >= 60 and c["run"].max() <= 86_400
    assert (c["requested_time"] >= c["run"]).all()
    assert (c["requested_time"] <= np.maximum(3 * c["run"] + 1, c["run"])).all()
    assert (c["requested_time"] <= 2 * 86_400).all()
    assert c["submit"][0] == 0 and (np.diff(c["submit"]) >= 0).all()
    for name in ("submit", "run", "requested_time"):
        assert (c[name] == np.round(c[name])).all(), name
    assert np.array_equal(c["id"], np.arange(1, len(w) + 1))


def test_matches_the_workload_constructor():
    w = synthetic_workload(500, 256, seed=5)
    ref = Workload(
        columns={k: w.columns[k] for k in ("id", "submit", "run", "requested_time", "procs")},
        header=w.header,
    )
    assert list(w.columns) == list(ref.columns)
    for name in COLUMNS:
        assert w.columns[name].dtype == ref.columns[name].dtype, name
        assert np.array_equal(w.columns[name], ref.columns[name]), name


def test_header_gives_the_cluster_and_it_simulates():
    w = synthetic_workload(300, 512, seed=1)
    assert cluster_from_header(w.header) == Cluster(512, 1, 1)
    r = coschedlab.simulate(w, Cluster(512), "easy")
    assert len(r.jobs) == 300
    assert r.validate() == []


def test_small_machines_and_bad_arguments():
    w = synthetic_workload(100, 1, seed=0)
    assert (w.columns["procs"] == 1).all()
    w = synthetic_workload(100, 16, seed=0)
    assert w.columns["procs"].max() <= 2
    with pytest.raises(InputError):
        synthetic_workload(0, 10)
    with pytest.raises(InputError):
        synthetic_workload(10, 0)
    with pytest.raises(InputError):
        synthetic_workload(10, 10, load=0)
    with pytest.raises(InputError):
        synthetic_workload(10, 10, max_size=11)
    with pytest.raises(InputError):
        synthetic_workload(10, 10, req_factor=(0.5, 2.0))
