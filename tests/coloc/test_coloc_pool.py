"""ELiSE pool files -> Pool: hand-computed values on a tiny pool, errors, and the real files."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from _coloc_data import TINY_LOADS, real_dir, real_pool_dir, tiny_pool_file, write_pool  # noqa: F401

from coschedlab.coloc import App, Pool, corun_time, load_pool
from coschedlab.errors import InputError


def test_tiny_pool_apps(tiny_pool_file):
    pool = load_pool(tiny_pool_file)
    assert pool.names == ["A", "B", "C"]
    assert pool.machine == "tiny" and pool.suite == "T"
    assert [a.procs for a in pool.apps] == [4, 8, 4]
    assert [a.compact_time for a in pool.apps] == [11.0, 20.0, 6.0]
    assert pool.app("A").spread_speedup is None
    assert pool.app("C").spread_speedup == pytest.approx(6 / 4)
    assert pool.ignored_pairs == 1  # B beside Z: Z is not a load of the file
    assert pool.n_pairs == 5


def test_tiny_pool_heatmap_values(tiny_pool_file):
    h = load_pool(tiny_pool_file).heatmap
    assert h.speedup("A", "B") == pytest.approx(11 / 10)
    assert h.speedup("A", "A") == pytest.approx(11 / 10.5)  # mean of per-instance medians
    assert h.speedup("B", "A") == pytest.approx(20 / 25)
    assert h.speedup("B", "C") == pytest.approx(20 / 18)  # flattened median
    assert h.speedup("C", "B") == pytest.approx(6 / 4)
    assert not h.known("A", "C")
    # unknown pair -> the row's mean over measured pairs
    assert h.speedup("A", "C") == pytest.approx((11 / 10 + 11 / 10.5) / 2)
    assert h.speedup("C", "C") == pytest.approx(1.5)


def test_loads_as_objects_give_same_pool(tmp_path, tiny_pool_file):
    a = load_pool(tiny_pool_file)
    b = load_pool(write_pool(tmp_path / "obj.json", TINY_LOADS, as_strings=False))
    assert a.apps == b.apps and a.heatmap == b.heatmap


def test_corun_time_rules():
    assert corun_time("x", "y", [[1, 2], [9]]) == 2.0
    assert corun_time("x", "x", [[1, 2], [9]]) == pytest.approx((1.5 + 9) / 2)
    assert corun_time("x", "y", [4, 6]) == 5.0  # a flat list is one instance
    with pytest.raises(InputError, match="empty"):
        corun_time("x", "y", [[]])


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda loads: loads[1].pop("compact_timelogs"), r"load #1 'B'.*compact_timelogs"),
        (lambda loads: loads[0].update(num_of_processes="4"), r"'A'.*num_of_processes"),
        (lambda loads: loads[0].update(compact_timelogs=[]), r"'A'.*compact_timelogs"),
        (lambda loads: loads[2].update(compact_timelogs=[5, -1]), r"'C'.*positive"),
        (lambda loads: loads[0]["coscheduled_timelogs"].update(B=[["x"]]), r"'A'.*beside 'B'"),
        (lambda loads: loads[0].update(coscheduled_timelogs=[1]), r"'A'.*coscheduled_timelogs"),
        (lambda loads: loads[2].update(load_name="A"), r"'A' appears twice"),
    ],
)
def test_bad_loads_are_named(tmp_path, mutate, message):
    loads = copy.deepcopy(TINY_LOADS)
    mutate(loads)
    path = write_pool(tmp_path / "bad.json", loads)
    with pytest.raises(InputError, match=message) as info:
        load_pool(path)
    assert str(path) in str(info.value)


def test_bad_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_pool(tmp_path / "missing.json")
    p = tmp_path / "broken.json"
    p.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON") as info:
        load_pool(p)
    assert info.value.where == f"{p}:1"
    p.write_text(json.dumps({"machine": "m"}))
    with pytest.raises(InputError, match="'loads'"):
        load_pool(p)
    p.write_text(json.dumps({"loads": ["{oops"]}))
    with pytest.raises(InputError, match=r"load #0.*not valid JSON"):
        load_pool(p)


def test_app_checks():
    with pytest.raises(InputError, match="compact time"):
        App("x", 4, 0.0)
    with pytest.raises(InputError, match="procs"):
        App("x", 0, 1.0)


def test_app_frame(tiny_pool_file):
    frame = load_pool(tiny_pool_file).app_frame()
    assert list(frame.columns) == ["app", "procs", "compact_time", "spread_speedup"]
    assert frame["compact_time"].tolist() == [11.0, 20.0, 6.0]
    assert np.isnan(frame["spread_speedup"][0]) and frame["spread_speedup"][2] == 1.5


# -- the real ELiSE pools (data/coloc, MANIFEST counts) -------------------------------------------
@pytest.mark.parametrize(
    "name, apps, pairs, mean",
    [
        ("lm-aris.compute-NAS.json", 33, 809, 1.1352902171869823),
        ("lm-remake-g5k.nancy.grvingt-NAS.json", 13, 169, 1.0344366638015758),
        ("lm-remake-g5k.nancy.grvingt-LARGENAS.json", 13, 169, 1.0344366638015758),
        ("lm-remake-g5k.nancy.grvingt-NASx10.json", 13, 169, 1.0344366638015758),
        ("lm-aris.compute-SPEC.json", 8, 63, 1.1369474243199378),
    ],
)
def test_real_pool_counts(real_dir, name, apps, pairs, mean):
    pool = load_pool(real_dir / name)
    assert len(pool) == apps
    assert pool.n_pairs == pairs
    assert pool.ignored_pairs == 0
    assert pool.heatmap.mean_pair_speedup() == pytest.approx(mean, rel=1e-12)
    assert np.nanmin(pool.heatmap.values) > 0.5 and np.nanmax(pool.heatmap.values) < 2.0


def test_real_pool_hand_values(real_dir):
    pool = load_pool(real_dir / "lm-aris.compute-NAS.json")
    lu = pool.app("lu.E.2048")
    assert lu.procs == 2048 and lu.compact_time == 163.17  # median of 163.17, 163.02, 163.54
    assert pool.heatmap.speedup("lu.E.2048", "bt.E.2025") == pytest.approx(163.17 / 145.98)
    # beside itself: medians 143.92 and 145.65 of the two instances, averaged
    assert pool.heatmap.speedup("lu.E.2048", "lu.E.2048") == pytest.approx(163.17 / 144.785)


def test_real_x10_pool_same_heatmap(real_dir):
    a = load_pool(real_dir / "lm-remake-g5k.nancy.grvingt-NAS.json")
    b = load_pool(real_dir / "lm-remake-g5k.nancy.grvingt-NASx10.json")
    assert a.names == b.names
    np.testing.assert_allclose(b.heatmap.values, a.heatmap.values, rtol=1e-12)
    np.testing.assert_allclose(b.app_frame()["compact_time"], 10 * a.app_frame()["compact_time"])


def test_pool_requires_matching_heatmap(tiny_pool_file):
    pool = load_pool(tiny_pool_file)
    with pytest.raises(InputError, match="without a compact time"):
        Pool(apps=pool.apps[:2], heatmap=pool.heatmap)
