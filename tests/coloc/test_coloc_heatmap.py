"""Heatmap: fallback, mean pair speedup, CSV/JSON round trips, Pool.from_heatmap."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _coloc_data import TINY_LOADS, real_dir, real_pool_dir, tiny_pool_file, write_pool  # noqa: F401

from coschedlab.coloc import Heatmap, Pool, load_pool, read_compact_times, write_compact_times
from coschedlab.errors import InputError

S_AA, S_AB, S_BA, S_BC, S_CB = 11 / 10.5, 1.1, 0.8, 20 / 18, 1.5


def test_mean_pair_speedup_of_measured_pairs(tiny_pool_file):
    h = load_pool(tiny_pool_file).heatmap
    assert h.mean_pair_speedup() == pytest.approx((S_AA + S_AB + S_BA + S_BC + S_CB) / 5)


def test_mean_pair_speedup_of_a_workload(tiny_pool_file):
    h = load_pool(tiny_pool_file).heatmap
    assert h.mean_pair_speedup(["A", "B"]) == pytest.approx((S_AB + S_BA) / 2)
    # A A B: ordered pairs of distinct jobs: (A,A) x2, (A,B) x2, (B,A) x2
    assert h.mean_pair_speedup(["A", "A", "B"]) == pytest.approx(
        (2 * S_AA + 2 * S_AB + 2 * S_BA) / 6
    )
    # A C: (A,C) unmeasured -> mean of A's row; (C,A) unmeasured -> mean of C's row = 1.5
    assert h.mean_pair_speedup(["A", "C"]) == pytest.approx(((S_AA + S_AB) / 2 + 1.5) / 2)
    with pytest.raises(InputError, match="two jobs"):
        h.mean_pair_speedup(["A"])
    with pytest.raises(InputError, match="unknown application 'Q'"):
        h.mean_pair_speedup(["A", "Q"])


def test_fallback_without_any_measure_is_one():
    h = Heatmap(["x", "y"], [[np.nan, 1.2], [np.nan, np.nan]])
    assert h.speedup("y", "x") == 1.0
    assert h.speedup("x", "x") == 1.2
    np.testing.assert_array_equal(h.matrix(), [[1.2, 1.2], [1.0, 1.0]])


def test_heatmap_checks():
    with pytest.raises(InputError, match="2 x 2"):
        Heatmap(["x", "y"], [[1.0]])
    with pytest.raises(InputError, match="positive"):
        Heatmap(["x"], [[-1.0]])
    with pytest.raises(InputError, match="twice"):
        Heatmap(["x", "x"], np.ones((2, 2)))


@pytest.mark.parametrize("suffix", ["csv", "json"])
def test_round_trip(tmp_path, tiny_pool_file, suffix):
    h = load_pool(tiny_pool_file).heatmap
    path = tmp_path / f"h.{suffix}"
    getattr(h, f"to_{suffix}")(path)
    back = getattr(Heatmap, f"from_{suffix}")(path)
    assert back.names == h.names
    np.testing.assert_allclose(back.values, h.values, rtol=1e-9, equal_nan=True)


def test_csv_layout(tmp_path):
    h = Heatmap(["x", "y"], [[1.5, np.nan], [0.75, 1.0]])
    text = h.to_csv(tmp_path / "h.csv").read_text().splitlines()
    assert text == ["app,x,y", "x,1.5,", "y,0.75,1"]


def test_json_layout_and_bare_mapping(tmp_path):
    h = Heatmap(["x", "y"], [[1.5, np.nan], [0.75, 1.0]])
    doc = json.loads(h.to_json(tmp_path / "h.json").read_text())
    assert doc == {
        "apps": ["x", "y"],
        "heatmap": {"x": {"x": 1.5, "y": None}, "y": {"x": 0.75, "y": 1.0}},
    }
    p = tmp_path / "bare.json"
    p.write_text(json.dumps({"x": {"y": 1.25}}))
    bare = Heatmap.from_json(p)
    assert bare.names == ("x", "y") and bare.speedup("x", "y") == 1.25 and bare.n_pairs == 1


def test_bad_heatmap_files(tmp_path):
    p = tmp_path / "h.csv"
    p.write_text("app,x,y\nx,1,2\nz,1,1\n")
    with pytest.raises(InputError, match="same applications") as info:
        Heatmap.from_csv(p)
    assert info.value.where == str(p)
    p.write_text("app,x\nx,fast\n")
    with pytest.raises(InputError, match="numbers"):
        Heatmap.from_csv(p)
    j = tmp_path / "h.json"
    j.write_text(json.dumps({"x": {"x": "fast"}}))
    with pytest.raises(InputError, match="not a number"):
        Heatmap.from_json(j)


@pytest.mark.parametrize("suffix", ["csv", "json"])
def test_pool_from_heatmap_and_compact_times(tmp_path, tiny_pool_file, suffix):
    pool = load_pool(tiny_pool_file)
    hpath = pool.heatmap.to_csv(tmp_path / "h.csv")
    cpath = write_compact_times(pool, tmp_path / f"compact.{suffix}")
    assert read_compact_times(cpath) == list(pool.apps)
    again = Pool.from_heatmap(hpath, cpath)
    assert again.apps == pool.apps
    np.testing.assert_allclose(again.heatmap.values, pool.heatmap.values, equal_nan=True)
    assert again.heatmap.speedup("A", "C") == pytest.approx(pool.heatmap.speedup("A", "C"))


def test_compact_times_csv_layout(tmp_path, tiny_pool_file):
    path = write_compact_times(load_pool(tiny_pool_file), tmp_path / "c.csv")
    assert path.read_text().splitlines() == [
        "app,procs,compact_time,spread_speedup",
        "A,4,11,",
        "B,8,20,",
        "C,4,6,1.5",
    ]


def test_pool_from_heatmap_reorders_to_compact_table(tiny_pool_file):
    pool = load_pool(tiny_pool_file)
    frame = pool.app_frame().iloc[[2, 0, 1]].drop(columns="spread_speedup")
    again = Pool.from_heatmap(pool.heatmap, frame)
    assert again.names == ["C", "A", "B"]
    assert again.heatmap.speedup("B", "C") == pytest.approx(S_BC)


def test_pool_from_heatmap_mismatch(tmp_path, tiny_pool_file):
    pool = load_pool(tiny_pool_file)
    with pytest.raises(InputError, match="without a compact time: C"):
        Pool.from_heatmap(pool.heatmap, list(pool.apps[:2]))
    c = tmp_path / "c.csv"
    c.write_text("app,procs,compact_time\nA,4,11\nB,8,20\nC,4,6\nD,2,1\n")
    with pytest.raises(InputError, match="missing from the heatmap: D"):
        Pool.from_heatmap(pool.heatmap, c)
    c.write_text("app,procs\nA,4\n")
    with pytest.raises(InputError, match="compact_time") as info:
        read_compact_times(c)
    assert info.value.where == str(c)
    c.write_text("app,procs,compact_time\nA,4.5,11\n")
    with pytest.raises(InputError, match="row 1: procs"):
        read_compact_times(c)


def test_real_heatmap_csv_round_trip(tmp_path, real_dir):
    h = load_pool(real_dir / "lm-aris.compute-NAS.json").heatmap
    back = Heatmap.from_csv(h.to_csv(tmp_path / "aris.csv"))
    assert back.n_pairs == 809
    assert back.mean_pair_speedup() == pytest.approx(h.mean_pair_speedup(), rel=1e-9)


def test_compact_times_json_with_nulls(tmp_path):
    c = tmp_path / "c.json"
    c.write_text(json.dumps([{"app": "A", "procs": 4, "compact_time": 11, "spread_speedup": None}]))
    assert read_compact_times(c)[0].spread_speedup is None
