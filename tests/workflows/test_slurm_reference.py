"""The ``slurm`` scheduler against runs of a real Slurm 22.05 (bundled: no Slurm needed).

The reference runs in ``benchmarks/data/slurm/`` were made with shared/tools/slurm_emulator.sh
(see benchmarks/slurm_validation.py, which prints the full comparison)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "slurm_validation.py"
MODEL = "slurm, clock + nodes"


@pytest.fixture(scope="module")
def validation():
    spec = importlib.util.spec_from_file_location("slurm_validation", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize(
    "run, textbook, wait_tol, resp_tol",
    [
        ("w1_bf30", "conservative (textbook)", 0.05, 6.0),  # the WoAS cadence: every 30 s
        ("w1_bf1", "conservative (textbook)", 0.08, 5.0),  # backfill every second
        ("w1_r1", "easy (textbook)", 0.10, 4.0),  # one reservation (EASY-like)
        ("w1_fifo", "fcfs (textbook)", 0.05, 3.0),  # no backfill
        ("w2_bf1", "conservative (textbook)", 0.05, 2.0),  # another workload
    ],
)
def test_the_slurm_model_matches_the_real_slurm(validation, run, textbook, wait_tol, resp_tol):
    """Slurm's clock and node-level reservations bring the mean wait within a few percent and
    the per-job response error under the textbook policy's (27%, 13%, 6% and 3%)."""
    ref_wait, models, sched, bf = validation.evaluate(run)
    ours, base = models[MODEL], models[textbook]
    assert abs(ours["mean_wait"] / ref_wait - 1) < wait_tol
    assert ours["resp_err_mean"] < resp_tol
    assert ours["resp_err_mean"] <= base["resp_err_mean"]
    assert abs(ours["mean_wait"] / ref_wait - 1) <= abs(base["mean_wait"] / ref_wait - 1)
    assert sched[0] == pytest.approx(1.0, abs=0.01)
