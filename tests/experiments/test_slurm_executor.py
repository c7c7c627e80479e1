"""The ``slurm:`` executor against a real Slurm 22.05 (the project's emulator: one slurmd
per emulated node on 127.0.0.1, shared/tools/slurm_emulator.sh): dask-jobqueue submits the
worker jobs with sbatch, Slurm starts them, the sweep equals the local pool's byte for byte;
a worker job the batch system refuses is one line and exit code 2.

Slow (about a minute) and only where Slurm is installed; run with ``pytest -m slow``."""

from __future__ import annotations

import contextlib
import filecmp
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EMULATOR = ROOT.parent / "shared" / "tools" / "slurm_emulator.sh"
SPEC = ROOT / "examples" / "compare_small.yaml"
SLURM = "slurm:cores=1,memory=1GB,jobs=2,walltime=00:10:00,interface=lo"


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    """A running two-node Slurm (its daemons stopped by PID after the module)."""
    if not EMULATOR.is_file() or not shutil.which("slurmctld") or not shutil.which("sbatch"):
        pytest.skip("no Slurm here (Debian slurmctld, slurmd, slurm-client and the emulator)")
    folder = tmp_path_factory.mktemp("slurm")
    (folder / "one.txt").write_text("0 1 1 60\n")
    work = folder / "w"
    done = subprocess.run(["bash", str(EMULATOR), "-n", "2", "-k", "-I", "-p", "16917", "-w",
                           str(work), str(folder / "one.txt"), str(folder / "one.csv")],
                          capture_output=True, text=True, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stderr
    env = {**os.environ, "SLURM_CONF": str(work / "etc" / "slurm.conf"), "TZ": "UTC"}
    yield env
    subprocess.run(["scancel", "-p", "batch"], env=env, capture_output=True, timeout=30)
    for pid in reversed((work / "pids").read_text().split()):
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGTERM)


def _compare(out: Path, executor: str, env: dict | None = None) -> subprocess.CompletedProcess:
    # in the output's folder: the worker jobs write their slurm-N.out where they were submitted
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "coschedlab.cli",
            "compare",
            str(SPEC),
            "--out",
            str(out),
            "--executor",
            executor,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=out.parent,
    )  # fmt: skip (slurm-N.out there)


def test_a_sweep_on_slurm_workers_equals_the_local_pool(slurm, tmp_path):
    on_slurm = _compare(tmp_path / "slurm", SLURM + ",skip=--mem", slurm)
    assert on_slurm.returncode == 0, on_slurm.stderr
    assert "Dask scheduler tcp://127.0.0.1:" in on_slurm.stderr  # interface=lo: loopback
    local = _compare(tmp_path / "local", "local")
    assert local.returncode == 0, local.stderr
    for name in ("runs.csv", "comparison.csv"):
        assert filecmp.cmp(tmp_path / "slurm" / name, tmp_path / "local" / name, shallow=False)
    # the runs ran in the batch jobs' worker processes, not in the client
    records = list((tmp_path / "slurm").glob("*/*/rep0/run.json"))
    assert len(records) == 3


def test_a_refused_worker_job_is_one_line_and_exit_2(slurm, tmp_path):
    """The emulated nodes declare no memory: Slurm refuses ``--mem``, as many sites do."""
    done = _compare(tmp_path / "o", SLURM, slurm)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "the batch system did not take the worker job" in lines[0] and "skip=--mem" in lines[0]
    assert "Traceback" not in done.stderr
