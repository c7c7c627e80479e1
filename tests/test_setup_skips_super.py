"""A built-in's subclass whose ``setup`` does not call ``super().setup(view)``: every family
(the strict, backfill, Slurm and co-location schedulers) stops the run with one clear line
named at that ``setup``, through the API as through the CLI (tests/test_cli_catalogue.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from coschedlab import InputError
from coschedlab.api import simulate
from coschedlab.coloc import schedulers as coloc
from coschedlab.schedulers import EASY, FCFS, SJF, Backfill, Conservative, Slurm

sys.path.insert(0, str(Path(__file__).parent))
from experiments._experiments_data import write_pool, write_trace  # noqa: E402

BASES = [FCFS, SJF, EASY, Conservative, Backfill, Slurm]
COLOC = [
    coloc.CoScheduler, coloc.EasyColoc, coloc.Filler, coloc.BestPair, coloc.Ranks,
    coloc.Bester, coloc.Jungle, coloc.Slowdown,
]  # fmt: skip


def _skipping(base: type) -> type:
    class P(base):
        name = "p"

        def setup(self, view):
            self.mine = 1

    return P


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("skips")
    write_trace(d / "trace.swf")
    write_pool(d / "pool.json")
    return d


@pytest.mark.parametrize("base", BASES + COLOC, ids=lambda b: b.__name__)
def test_a_setup_that_skips_super_is_named(data, base):
    pool = {"pool": data / "pool.json"} if base in COLOC else {}
    with pytest.raises(InputError, match=r"setup does not call super\(\)\.setup\(view\)") as e:
        simulate(data / "trace.swf", scheduler=_skipping(base), **pool)
    assert "test_setup_skips_super.py:" in str(e.value.where)  # at that setup
