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


CLOCK = "slurm, Slurm's clock"


@pytest.mark.parametrize(
    "run, model, textbook, wait_tol, resp_tol",
    [
        ("w1_bf30", MODEL, "conservative (textbook)", 0.05, 6.0),  # the WoAS cadence: 30 s
        ("w1_bf30", CLOCK, "conservative (textbook)", 0.05, 4.0),
        ("w1_bf1", MODEL, "conservative (textbook)", 0.08, 5.0),  # backfill every second
        ("w1_r1", MODEL, "easy (textbook)", 0.10, 4.0),  # one reservation (EASY-like)
        ("w1_fifo", MODEL, "fcfs (textbook)", 0.05, 3.0),  # no backfill
        ("w2_bf1", MODEL, "conservative (textbook)", 0.05, 2.0),  # another workload
        ("w2_bf30", MODEL, "conservative (textbook)", 0.02, 1.0),  # 57 of 60 starts exact
        ("w3_bf1", CLOCK, "conservative (textbook)", 0.05, 6.0),  # heavy, many 16-node jobs
    ],
)
def test_the_slurm_model_matches_the_real_slurm(
    validation, run, model, textbook, wait_tol, resp_tol
):
    """Slurm's clock (and, on w1 and w2, node-level reservations) bring the mean wait within a
    few percent and the per-job response error under the textbook policy's."""
    ref_wait, models, sched, bf = validation.evaluate(run)
    ours, base = models[model], models[textbook]
    assert abs(ours["mean_wait"] / ref_wait - 1) < wait_tol
    assert ours["resp_err_mean"] < resp_tol
    assert ours["resp_err_mean"] <= base["resp_err_mean"]
    assert abs(ours["mean_wait"] / ref_wait - 1) <= abs(base["mean_wait"] / ref_wait - 1)
    assert sched[0] == pytest.approx(1.0, abs=0.01)
