"""The ``slurm`` scheduler against runs of a real Slurm 22.05 (bundled: no Slurm needed).

The reference runs in ``benchmarks/data/slurm/`` were made with shared/tools/slurm_emulator.sh
(``benchmarks/slurm_campaign.py`` makes the validation set; ``benchmarks/slurm_validation.py``
prints the full comparison). The validation set's runs of workloads a8, b16 and c32 are the
FIT half (the model's constants, the submission lag, the run overhead and Slurm's clock
periods and backfill lead, are their medians); d64, e16 and f32 are HELD OUT. Every
configuration was run twice: the real Slurm against itself is the noise floor.

The model ("as a real Slurm") is ``slurm`` with the run's settings, the node-level backfill map
(``bf_nodes``) and Slurm's clock with its phase unknown (the mean over a grid of phases).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "slurm_validation.py"
MODEL = "slurm, as a real Slurm"


@pytest.fixture(scope="module")
def validation():
    spec = importlib.util.spec_from_file_location("slurm_validation", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def figures(validation):
    """Every bundled run's figures, each model's."""
    return {name: validation.evaluate(name, log_clock=False) for name in validation.runs()}


def textbook(models):
    return next(v for k, v in models.items() if "textbook" in k)


def test_the_validation_set_is_complete(validation):
    """At least 12 configurations, 50-500 jobs on 8-64 nodes, both halves, conservative and
    one-reservation backfilling, FIFO and multifactor; each run twice (the noise floor)."""
    fit = validation.runs("fit", repeats=False)
    held = validation.runs("held-out", repeats=False)
    assert len(fit) >= 6 and len(held) >= 6
    kinds = set()
    for name in fit + held:
        _, ref, meta = validation.read_run(name)
        assert 50 <= len(ref) <= 500 and 8 <= int(meta["nodes"]) <= 64
        assert ref["end"].notna().all()
        opts = validation.settings(meta)
        kinds.add((validation.half(name), opts["bf_job_part_count_reserve"], opts["priority"]))
        assert validation.noise(name) is not None, f"{name} has no repeat run"
    for half in ("fit", "held-out"):
        for reserve in (None, 1):
            for prio in ("fifo", "multifactor"):
                assert (half, reserve, prio) in kinds


def test_the_held_out_half_agrees_with_the_real_slurm(validation, figures):
    """The runs the model was not fitted on: mean wait and makespan within 3% (means over the
    12 held-out runs), per-job response error (MAPE) under 8% or under the real Slurm's own
    run-to-run error, whichever is larger, and far under the textbook policy's and the
    event-driven model's."""
    held = validation.runs("held-out")
    ours = [figures[n][MODEL] for n in held]
    floor = np.mean([validation.noise(n)["mape"] for n in validation.runs("held-out", False)])
    mape = np.mean([c["mape"] for c in ours])
    assert np.mean([abs(c["wait_err"]) for c in ours]) <= 3.0
    assert np.mean([abs(c["makespan_err"]) for c in ours]) <= 3.0
    assert mape <= max(8.0, floor)
    assert mape < np.mean([textbook(figures[n])["mape"] for n in held]) / 5
    assert mape < np.mean([figures[n]["slurm, event driven"]["mape"] for n in held])


@pytest.mark.parametrize("half", ["fit", "held-out"])
def test_every_configuration_is_within_the_noise_of_the_real_slurm(validation, figures, half):
    """Configuration by configuration, against both real runs: the model's per-job error
    within 6 points of the real Slurm's own run-to-run error, its mean wait and makespan
    within 6 and 3 points of the real runs' own differences."""
    for name in validation.runs(half, repeats=False):
        again = validation.noise(name)
        pair = [figures[name][MODEL], figures[f"{name}_repeat"][MODEL]]
        assert np.mean([c["mape"] for c in pair]) <= again["mape"] + 6.0, name
        for c in pair:
            assert abs(c["wait_err"]) <= abs(again["wait_err"]) + 6.0, name
            assert abs(c["makespan_err"]) <= abs(again["makespan_err"]) + 3.0, name


def test_the_earlier_runs_stay_close(validation, figures):
    """The three earlier 16-node workloads (the model was developed on them): within 10% of
    the real mean wait and per-job response, where the textbook policy is 14-30% off."""
    for name in validation.runs("earlier"):
        c = figures[name][MODEL]
        assert c["mape"] <= 10.0, name
        assert abs(c["wait_err"]) <= 10.0, name
    w1 = figures["w1_bf1"]
    assert abs(w1[MODEL]["wait_err"]) < abs(textbook(w1)["wait_err"]) / 4


@pytest.mark.parametrize("run, same", [("w1_bf1", 60), ("w2_bf1", 60), ("w2_bf30", 57)])
def test_on_the_controllers_own_clock_the_schedule_is_the_real_one(validation, run, same):
    """Given when the real controller ran its passes (fitted to its log), the model starts
    every job of w1 and w2 in the same second as the real Slurm did (57 of 60 with the 30-s
    backfill cadence): the remaining error of the model is the clock's phase, not the
    policy."""
    c = validation.evaluate(run)["slurm, its log's clock"]
    assert c["same_second"] >= same
