"""Running comparisons: a real small run, resume, failures, interruption, changed specs and
determinism (in-process and on a process pool)."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import typer
from _experiments_data import base_spec, write_boom, write_spec

from coschedlab.errors import InputError
from coschedlab.experiments import load_spec, run_comparison, write_analysis
from coschedlab.sweeps.store import RunKey, completed, run_dir

N_RUNS = 3 * 2 * 2  # workloads x schedulers x repetitions


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    return write_spec(tmp_path / "spec.yaml", base_spec(tmp_path))


@pytest.fixture(scope="module")
def pool_run(tmp_path_factory) -> tuple[Path, Path]:
    """The base spec run once with --jobs 2 (a real process pool), analysed."""
    tmp = tmp_path_factory.mktemp("pool")
    spec = write_spec(tmp / "spec.yaml", base_spec(tmp))
    out = tmp / "out"
    summary = run_comparison(load_spec(spec), out, jobs=2)
    assert summary.ok and len(summary.executed) == N_RUNS
    write_analysis(load_spec(spec), out)
    return spec, out


def test_small_real_run(spec_file: Path, tmp_path: Path) -> None:
    spec = load_spec(spec_file)
    out = tmp_path / "out"
    summary = run_comparison(spec, out, jobs=1)
    assert summary.ok and summary.total == N_RUNS and len(summary.executed) == N_RUNS
    assert len(completed(out)) == N_RUNS
    run = run_dir(out, RunKey("mix", "easy", 1))
    assert {p.name for p in run.iterdir()} >= {"metrics.json", "jobs.parquet", "run.json"}
    info = json.loads((run / "run.json").read_text())
    assert info["seed"] == 3 + 1 and info["scheduler"] == "easy"

    # paired: within a repetition every scheduler sees the same jobs; repetitions differ
    def jobs(w: str, s: str, rep: int) -> pd.DataFrame:
        frame = pd.read_parquet(run_dir(out, RunKey(w, s, rep)) / "jobs.parquet")
        return frame.sort_values("job_id")[["job_id", "submit", "run", "procs"]].reset_index(
            drop=True
        )

    pd.testing.assert_frame_equal(jobs("mix", "fcfs", 0), jobs("mix", "easy", 0))
    assert not jobs("mix", "fcfs", 0).equals(jobs("mix", "fcfs", 1))
    assert set(jobs("small", "fcfs", 0)["procs"]) == {4}
    # a trace is the same workload in every repetition
    pd.testing.assert_frame_equal(jobs("trace", "easy", 0), jobs("trace", "easy", 1))
    assert len(jobs("trace", "easy", 0)) == 30

    table, paths = write_analysis(spec, out)
    assert list(table[["workload", "scheduler"]].itertuples(index=False, name=None)) == [
        (w, s) for w in ("mix", "small", "trace") for s in ("fcfs", "easy")
    ]
    assert (table["runs"] == 2).all()
    base = table[table["scheduler"] == "fcfs"]
    assert (base["makespan_improvement_mean"] == 0).all()
    trace = table[table["workload"] == "trace"]
    assert (trace["makespan_std"] == 0).all()  # same trace both repetitions
    assert table["speedup_mean"].isna().all()  # no co-location: no speedup column
    csv = pd.read_csv(out / "comparison.csv")
    assert len(csv) == 6 and "makespan_improvement_mean" in csv
    assert len(pd.read_csv(out / "runs.csv")) == N_RUNS


def test_process_pool_matches_in_process(spec_file: Path, tmp_path: Path, pool_run) -> None:
    """Determinism: the same spec gives byte-identical tables, in-process or on 2 workers."""
    out = tmp_path / "out"
    assert run_comparison(load_spec(spec_file), out, jobs=1).ok
    write_analysis(load_spec(spec_file), out)
    _, pool_out = pool_run
    for name in ("comparison.csv", "runs.csv"):
        assert (out / name).read_bytes() == (pool_out / name).read_bytes()


def test_resume_redoes_only_missing_runs(pool_run, tmp_path: Path) -> None:
    spec_file, src = pool_run
    out = tmp_path / "out"
    shutil.copytree(src, out)
    spec = load_spec(spec_file)
    again = run_comparison(spec, out, jobs=1)
    assert again.executed == [] and len(again.skipped) == N_RUNS and again.ok
    key = RunKey("small", "easy", 1)
    shutil.rmtree(run_dir(out, key))
    # a half-written run left by a killed process is neither "done" nor kept
    leftover = run_dir(out, key).parent / ".tmp-rep1-999-dead"
    leftover.mkdir()
    (leftover / "jobs.parquet").write_bytes(b"partial")
    assert key not in completed(out)
    resumed = run_comparison(spec, out, jobs=1)
    assert resumed.executed == [key] and resumed.ok
    assert not leftover.exists()
    write_analysis(spec, out)
    assert (out / "comparison.csv").read_bytes() == (src / "comparison.csv").read_bytes()


def test_failed_runs_are_recorded_and_others_kept(tmp_path: Path) -> None:
    doc = base_spec(tmp_path)
    write_boom(tmp_path / "boom.py")
    doc["schedulers"] = ["fcfs", "boom.py"]
    doc["repetitions"] = 1
    spec = load_spec(write_spec(tmp_path / "spec.yaml", doc))
    out = tmp_path / "out"
    summary = run_comparison(spec, out, jobs=1)
    assert not summary.ok and len(summary.executed) == 6
    assert set(summary.failed) == {RunKey(w, "boom", 0) for w in ("mix", "small", "trace")}
    assert all("boom in the middle" in e for e in summary.failed.values())
    assert completed(out) == {RunKey(w, "fcfs", 0) for w in ("mix", "small", "trace")}
    error = (run_dir(out, RunKey("mix", "boom", 0)) / "error.txt").read_text()
    assert "RuntimeError: boom in the middle of the run" in error and "Traceback" in error
    # the CLI reports them and exits 1, after writing the analysis of what finished
    from coschedlab.cli.sweeps import compare

    with pytest.raises(typer.Exit) as info:
        compare(tmp_path / "spec.yaml", jobs=1, out=out, fresh=False)
    assert info.value.exit_code == 1
    assert len(pd.read_csv(out / "comparison.csv")) == 3


def test_interrupted_comparison_keeps_finished_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = base_spec(tmp_path)
    write_boom(tmp_path / "boom.py")
    doc["schedulers"] = ["fcfs", "boom.py"]
    doc["workloads"] = doc["workloads"][:2]
    doc["repetitions"] = 1
    spec = load_spec(write_spec(tmp_path / "spec.yaml", doc))
    out = tmp_path / "out"
    monkeypatch.setenv("COSCHEDLAB_TEST_INTERRUPT", "1")  # Ctrl-C in the middle of a run
    summary = run_comparison(spec, out, jobs=1)
    assert summary.interrupted and not summary.ok
    assert summary.executed == [RunKey("mix", "fcfs", 0)]
    assert completed(out) == {RunKey("mix", "fcfs", 0)}
    assert not run_dir(out, RunKey("mix", "boom", 0)).exists()  # nothing half-written
    assert not list(out.glob("*/*/.tmp-*"))
    monkeypatch.delenv("COSCHEDLAB_TEST_INTERRUPT")
    monkeypatch.setenv("COSCHEDLAB_TEST_CALM", "1")
    resumed = run_comparison(spec, out, jobs=1)
    assert resumed.ok and RunKey("mix", "fcfs", 0) not in resumed.executed
    assert len(resumed.executed) == 3 and len(completed(out)) == 4


def test_changed_spec_is_refused_unless_fresh(pool_run, tmp_path: Path) -> None:
    spec_file, src = pool_run
    out = tmp_path / "out"
    shutil.copytree(src, out)
    doc = base_spec(spec_file.parent)
    changed = copy.deepcopy(doc)
    changed["workloads"][2]["limit"] = 20
    changed["seed"] = 4
    path = write_spec(tmp_path / "changed.yaml", changed)
    shutil.copy(spec_file.parent / "pool.json", tmp_path / "pool.json")
    shutil.copy(spec_file.parent / "trace.swf", tmp_path / "trace.swf")
    with pytest.raises(InputError) as info:
        run_comparison(load_spec(path), out, jobs=1)
    msg = str(info.value)
    assert "holds runs of a different spec" in msg and "--fresh" in msg
    assert "'seed' 3 -> 4" in msg and "workload 'trace' (limit)" in msg
    assert len(completed(out)) == N_RUNS  # nothing was touched
    fresh = run_comparison(load_spec(path), out, jobs=1, fresh=True)
    assert fresh.ok and len(fresh.executed) == N_RUNS
    assert not (out / "comparison.csv").exists()  # old analysis removed with the old runs


def test_growing_a_spec_only_adds_runs(pool_run, tmp_path: Path) -> None:
    spec_file, src = pool_run
    out = tmp_path / "out"
    shutil.copytree(src, out)
    doc = base_spec(tmp_path)
    doc["repetitions"] = 3
    doc["schedulers"].append("conservative")
    summary = run_comparison(load_spec(write_spec(tmp_path / "spec.yaml", doc)), out, jobs=1)
    assert summary.ok and len(summary.skipped) == N_RUNS
    assert len(summary.executed) == 3 * 3 * 3 - N_RUNS


def test_output_that_is_not_a_comparison_is_refused(spec_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "thesis.tex").write_text("...")
    with pytest.raises(InputError, match="not a comparison output"):
        run_comparison(load_spec(spec_file), out, jobs=1)
    with pytest.raises(InputError, match="refusing to clear it"):
        run_comparison(load_spec(spec_file), out, jobs=1, fresh=True)
    assert (out / "thesis.tex").exists()
