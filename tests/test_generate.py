"""Workload generator: mixes, inter-arrival laws, determinism (the ELiSE paper, 3.1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.generate import app_table, generate_workload, parse_arrival
from coschedlab.jobs import Workload
from coschedlab.platform import Cluster
from coschedlab.workload.swf import cluster_from_header, read_swf, write_workload_swf

APPS = pd.DataFrame(
    {"app": ["lu", "cg", "ft"], "procs": [64, 128, 256], "compact_time": [100.0, 50.0, 200.0]}
)
ARRIVALS = st.sampled_from(
    ["constant:0", "constant:7.5", "uniform:10", "uniform:3,4", "poisson:60", "weibull:0.8,30"]
)


def test_basic_workload():
    w = generate_workload(APPS, 5, arrival="constant:10", seed=1)
    assert isinstance(w, Workload)
    assert w.id.tolist() == [1, 2, 3, 4, 5]
    assert w.submit.tolist() == [0.0, 10.0, 20.0, 30.0, 40.0]
    times = APPS["compact_time"].to_numpy()[w.app]
    assert w.run.tolist() == times.tolist()
    assert w.procs.tolist() == APPS["procs"].to_numpy()[w.app].tolist()
    assert w.header["Applications"] == "0=lu 1=cg 2=ft"
    assert (w.status == 1).all()


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 200),
    arrival=ARRIVALS,
    mix=st.sampled_from(["uniform", "weights", "list"]),
)
def test_same_seed_same_workload(seed, n, arrival, mix):
    kwargs: dict = {"arrival": arrival, "seed": seed}
    if mix == "weights":
        kwargs["weights"] = {"lu": 1, "ft": 3}
    if mix == "list":
        kwargs.update(names=(["lu", "cg", "ft"] * n)[:n], shuffle=True)
    else:
        kwargs["n"] = n
    a = generate_workload(APPS, **kwargs)
    b = generate_workload(APPS, **kwargs)
    assert len(a) == n
    for name in a.columns:
        np.testing.assert_array_equal(a.columns[name], b.columns[name])
    assert a.header == b.header
    if n:
        assert a.submit[0] == 0.0 and (np.diff(a.submit) >= 0).all()
        # requested time = 1.4 x run time, run time = compact time (ELiSE's generator)
        np.testing.assert_array_equal(a.requested_time, 1.4 * a.run)


@settings(max_examples=20, deadline=None)
@given(gap=st.floats(0, 1e5), n=st.integers(1, 300))
def test_constant_arrivals_exact(gap, n):
    w = generate_workload(APPS, n, arrival=f"constant:{gap!r}", seed=3)
    np.testing.assert_array_equal(w.submit, np.cumsum(np.r_[0.0, np.full(n - 1, gap)]))


def test_different_seeds_differ():
    a = generate_workload(APPS, 50, arrival="poisson:10", seed=1)
    b = generate_workload(APPS, 50, arrival="poisson:10", seed=2)
    assert not np.array_equal(a.submit, b.submit)


def test_frequencies_respected():
    n = 20000
    w = generate_workload(APPS, n, weights={"lu": 1, "cg": 0, "ft": 3}, seed=7)
    counts = np.bincount(w.app, minlength=3)
    assert counts[1] == 0
    # binomial sd of the ft share at p = 0.75: sqrt(.75 * .25 / n) = 0.0031; allow 4 sd
    assert counts[2] / n == pytest.approx(0.75, abs=0.0125)
    assert counts[0] / n == pytest.approx(0.25, abs=0.0125)


def test_uniform_mix_covers_apps():
    counts = np.bincount(generate_workload(APPS, 9000, seed=11).app, minlength=3)
    np.testing.assert_allclose(counts / 9000, 1 / 3, atol=0.02)


def test_explicit_list_and_shuffle():
    names = ["ft", "lu", "lu", "cg", "ft", "ft"]
    w = generate_workload(APPS, names=names)
    assert w.app.tolist() == [2, 0, 0, 1, 2, 2]
    s = generate_workload(APPS, names=names, shuffle=True, seed=5)
    assert sorted(s.app.tolist()) == sorted(w.app.tolist())
    assert s.app.tolist() != w.app.tolist()  # this seed permutes the list


@pytest.mark.parametrize(
    "spec, mean",
    [("uniform:10", 10.0), ("uniform:2,4", 3.0), ("poisson:60", 60.0), ("weibull:1,20", 20.0)],
)
def test_arrival_means(spec, mean):
    w = generate_workload(APPS, 40001, arrival=spec, seed=13)
    gaps = np.diff(w.submit)
    assert gaps.mean() == pytest.approx(mean, rel=0.02)


def test_uniform_bounds():
    gaps = np.diff(generate_workload(APPS, 5000, arrival="uniform:10", seed=2).submit)
    assert gaps.min() >= 0 and gaps.max() <= 20 and gaps.max() > 19.9


def test_parse_arrival():
    assert parse_arrival("constant:5").params == (5.0,)
    assert parse_arrival("uniform:5").params == (0.0, 10.0)
    assert parse_arrival(" Weibull:0.5,100 ").kind == "weibull"
    assert str(parse_arrival("poisson:30")) == "poisson:30"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("gamma:3", "expected one of"),
        ("poisson", "expected one of"),
        ("poisson:abc", "numbers"),
        ("poisson:1,2", "poisson:MEAN"),
        ("weibull:2", "weibull:SHAPE,SCALE"),
        ("weibull:0,2", "SHAPE must be > 0"),
        ("constant:-1", ">= 0"),
        ("uniform:5,1", "LO must not exceed HI"),
        ("constant:inf", "finite"),
    ],
)
def test_bad_arrival_specs(spec, message):
    with pytest.raises(InputError, match=message):
        parse_arrival(spec)


def test_bad_inputs():
    with pytest.raises(InputError, match="unknown application 'bt'"):
        generate_workload(APPS, 3, weights={"bt": 1})
    with pytest.raises(InputError, match="sum to 0"):
        generate_workload(APPS, 3, weights={"lu": 0})
    with pytest.raises(InputError, match="not both"):
        generate_workload(APPS, 3, weights={"lu": 1}, names=["lu"])
    with pytest.raises(InputError, match="n=3 but"):
        generate_workload(APPS, 3, names=["lu"])
    with pytest.raises(InputError, match="number of jobs"):
        generate_workload(APPS)
    with pytest.raises(InputError, match="requested_factor"):
        generate_workload(APPS, 3, requested_factor=0)
    with pytest.raises(InputError, match="compact time"):
        app_table([("a", 4, 0.0)])
    with pytest.raises(InputError, match="twice"):
        app_table([("a", 4, 1.0), ("a", 8, 2.0)])
    with pytest.raises(InputError, match="missing"):
        app_table({"app": ["a"], "procs": [1]})


def test_table_forms_agree():
    rows = list(APPS.itertuples(index=False, name=None))
    a = generate_workload(rows, 20, seed=4)
    b = generate_workload({c: APPS[c].tolist() for c in APPS}, 20, seed=4)
    c = generate_workload(APPS, 20, seed=4, requested_factor=2.0)
    np.testing.assert_array_equal(a.app, b.app)
    np.testing.assert_array_equal(c.requested_time, 2.0 * c.run)


# -- the machine a workload is generated for ---------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    nodes=st.integers(4, 5000),
    sockets=st.integers(1, 4),
    cores=st.integers(64, 128),
    gz=st.booleans(),
)
def test_machine_survives_the_swf_round_trip(tmp_path_factory, nodes, sockets, cores, gz):
    cluster = Cluster(nodes, sockets, cores)
    w = generate_workload(APPS, 5, seed=1, cluster=cluster)
    path = tmp_path_factory.mktemp("w") / ("w.swf.gz" if gz else "w.swf")
    write_workload_swf(path, w)
    back = read_swf(path)
    assert cluster_from_header(back.header) == cluster
    assert back.header["MaxNodes"] == str(nodes)
    assert back.header["MaxProcs"] == str(cluster.total_cores)


def test_machine_header_is_plain_swf_comments(tmp_path):
    w = generate_workload(APPS, 3, seed=1, cluster=Cluster(100, 2, 24))
    write_workload_swf(tmp_path / "w.swf", w)
    lines = (tmp_path / "w.swf").read_text().splitlines()
    for line in ("MaxNodes: 100", "MaxProcs: 4800", "CoresPerNode: 48", "SocketsPerNode: 2"):
        assert f"; {line}" in lines
    jobs = [x for x in lines if not x.startswith(";")]
    assert len(jobs) == 3 and all(len(x.split()) == 18 for x in jobs)


def test_without_a_machine_the_header_claims_none():
    # the largest job is not the machine: no MaxProcs rather than a wrong one
    w = generate_workload(APPS, 3, seed=1)
    assert "MaxProcs" not in w.header and cluster_from_header(w.header) is None


def test_job_larger_than_the_machine_is_an_error():
    with pytest.raises(InputError, match=r"'ft' needs 256 processors.*8 nodes x 1 socket x 16"):
        generate_workload(APPS, names=["lu", "ft"], cluster=Cluster(8, 1, 16))


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ({"MaxNodes": "100", "MaxProcs": "4800", "CoresPerNode": "48", "SocketsPerNode": "2"},
         Cluster(100, 2, 24)),
        ({"MaxNodes": "100", "MaxProcs": "4800", "SocketsPerNode": "3"}, Cluster(100, 3, 16)),
        # the standard fields win over a contradicting comment
        ({"MaxNodes": "100", "MaxProcs": "4800", "CoresPerNode": "20"}, Cluster(100, 1, 48)),
        # sockets that do not divide the node: one socket
        ({"MaxNodes": "10", "MaxProcs": "50", "SocketsPerNode": "2"}, Cluster(10, 1, 5)),
        ({"MaxProcs": "640", "CoresPerNode": "32"}, Cluster(20, 1, 32)),
        ({"MaxProcs": "640", "CoresPerNode": "48"}, Cluster(640)),
        ({"MaxNodes": "64", "CoresPerNode": "32", "SocketsPerNode": "2"}, Cluster(64, 2, 16)),
    ],
)  # fmt: skip
def test_cluster_from_header_reads_the_machine_comments(header, expected):
    assert cluster_from_header(header) == expected
