"""``study reproduce`` as a sweep on the one runner: the same Table 5 as the serial
:func:`table5` (the oracle), resumable, extendable with more seeds, refusing another study's
directory, and the same runs on a Dask cluster as on the local pool."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import pandas as pd
import pytest

from coschedlab.errors import InputError
from coschedlab.studies import sweep
from coschedlab.studies.reproduce import simulate_one, table5
from coschedlab.studies.result import StudyResult
from coschedlab.studies.spec import load_spec
from coschedlab.sweeps.executors import parse_executor

HELIUM = Path(str(files("coschedlab") / "data" / "helium_study.yaml"))
CELLS = dict(workers=(32,), configs="OB")


def run_sweep(spec, out, seeds=1, workers=(32, 64), configs="OABCDE", **runner):
    return sweep.SWEEP.run(sweep.Reproduction(spec, seeds, workers, configs), out, **runner)


@pytest.fixture(scope="module")
def spec():
    return load_spec(HELIUM)


def test_result_round_trips_through_json(spec):
    r = simulate_one(spec, 32, "E")
    back = StudyResult.from_dict(json.loads(json.dumps(r.to_dict())))
    assert back.metrics == json.loads(json.dumps(r.metrics))
    assert back.segments == r.segments and back.batches == r.batches


def test_sweep_table_equals_the_serial_table5(spec, tmp_path):
    summary, rows = run_sweep(spec, tmp_path / "o", seeds=2, jobs=1, **CELLS)
    assert summary.ok and len(rows) == 2 * 2  # seeds 0 and 1 (the spec's own)
    df, own = sweep.table_of(rows, sweep.Reproduction(spec, 2, **CELLS))
    pd.testing.assert_frame_equal(df, table5(spec, seeds=[0, 1], **CELLS))
    kept: dict = {}
    one, _ = sweep.table_of(rows, sweep.Reproduction(spec, 1, **CELLS))
    pd.testing.assert_frame_equal(one, table5(spec, keep=lambda p, c, r: kept.update({(p, c): r}),
                                              **CELLS))  # fmt: skip
    assert set(own) == set(kept)
    for cell, r in kept.items():
        assert own[cell].metrics == json.loads(json.dumps(r.metrics))


def test_sweep_resumes_and_extends_without_redoing(spec, tmp_path):
    out = tmp_path / "o"
    first, _ = run_sweep(spec, out, seeds=1, jobs=1, **CELLS)
    assert len(first.executed) == 2
    lost = out / "runs" / "32-B-seed1.json"
    lost.unlink()
    more, rows = run_sweep(spec, out, seeds=2, jobs=1, **CELLS)
    # the deleted run and seed 0 are done; the spec's seed 1 of configuration O is not redone
    assert sorted(more.executed) == ["32-B-seed0", "32-B-seed1", "32-O-seed0"]
    assert more.skipped == ["32-O-seed1"] and len(rows) == 4


def test_another_study_is_refused(spec, tmp_path):
    out = tmp_path / "o"
    run_sweep(spec, out, jobs=1, workers=(32,), configs="O")
    other = tmp_path / "other.yaml"
    other.write_text(HELIUM.read_text().replace("seed: 1", "seed: 2"))
    with pytest.raises(InputError, match="another sweep"):
        sweep.SWEEP.check_output(out, sweep.Reproduction(load_spec(other)))


@pytest.mark.slow  # a LocalCluster: about 15 s
def test_dask_runs_equal_local_runs(spec, tmp_path):
    run_sweep(spec, tmp_path / "a", jobs=1, **CELLS)
    run_sweep(spec, tmp_path / "b", executor=parse_executor("dask-local:2"), **CELLS)
    a = sorted((tmp_path / "a" / "runs").glob("*.json"))
    assert a and [f.read_bytes() for f in a] == [
        (tmp_path / "b" / "runs" / f.name).read_bytes() for f in a
    ]
