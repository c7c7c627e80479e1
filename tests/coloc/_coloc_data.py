"""Test data for the co-location tests: a tiny hand-made pool and the real ELiSE pools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

_CANDIDATES = [
    Path(__file__).resolve().parents[2] / "data" / "coloc",
    Path("/work/shared/data/coloc"),
]


def real_pool_dir() -> Path | None:
    """Where the real ELiSE pool files are, if anywhere."""
    for d in _CANDIDATES:
        if (d / "lm-aris.compute-NAS.json").exists():
            return d
    return None


TINY_LOADS = [
    {
        "load_name": "A",
        "num_of_processes": 4,
        "compact_timelogs": [10, 12, 11],
        # beside itself: per-instance medians 12 and 9 -> mean 10.5 (flattened median would be 11)
        "coscheduled_timelogs": {"A": [[11, 13], [9]], "B": [[9, 10], [11]]},
    },
    {
        "load_name": "B",
        "num_of_processes": 8,
        "compact_timelogs": [20],
        # beside C flattened [16, 18, 50] -> median 18 (mean of per-list medians would be 25)
        "coscheduled_timelogs": {"A": [[25]], "C": [[16], [18, 50]], "Z": [[1]]},
    },
    {
        "load_name": "C",
        "num_of_processes": 4,
        "compact_timelogs": [5, 7],
        "spread_timelogs": [4, 5, 3],
        "coscheduled_timelogs": {"B": [[4]]},
    },
]


def write_pool(path: Path, loads: list, as_strings: bool = True) -> Path:
    doc = {
        "machine": "tiny",
        "suite": "T",
        "loads": [json.dumps(x) if as_strings else x for x in loads],
    }
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def tiny_pool_file(tmp_path: Path) -> Path:
    return write_pool(tmp_path / "tiny.json", TINY_LOADS)


@pytest.fixture
def real_dir() -> Path:
    d = real_pool_dir()
    if d is None:
        pytest.skip("real ELiSE pool files not available")
    return d


def pool_ab(ab: float = 2.0, ba: float = 0.5):
    """Two 2-process applications A and B; A runs ``ab`` times faster beside B, B ``ba``."""
    from coschedlab.coloc import App, Heatmap, Pool

    heat = Heatmap(["A", "B"], [[1.0, ab], [ba, 1.0]])
    return Pool((App("A", 2, 100.0), App("B", 2, 100.0)), heat)


def jobs(*rows):
    """A workload from (id, submit, compact time, procs, app index) rows (requested 1.4x)."""
    from coschedlab import Workload

    recs = [
        {"id": i, "submit": s, "run": r, "requested_time": 1.4 * r, "procs": p, "app": a}
        for i, s, r, p, a in rows
    ]
    return Workload.from_records(recs)
