"""The Dask executor against a real ``dask.distributed`` scheduler and two workers started
as separate processes on 127.0.0.1: the same results as the local pool, a worker killed
mid-sweep loses and duplicates nothing, a killed client resumes, a bad address is one line."""

from __future__ import annotations

import contextlib
import filecmp
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from coschedlab.errors import InputError  # noqa: E402
from coschedlab.experiments import load_spec, run_comparison  # noqa: E402
from coschedlab.sweeps.cluster import QUIET_DASK, dask_env
from coschedlab.sweeps.executors import ExecutorSpec, parse_executor  # noqa: E402
from coschedlab.sweeps.runner import run_tasks
from coschedlab.sweeps.store import Store  # noqa: E402
from coschedlab.sweeps.tasks import Task  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import _dask_tasks  # noqa: E402


def _start(args: list[str], log: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", *args], stdout=log.open("w"),
                            stderr=subprocess.STDOUT, env=env, start_new_session=True)  # fmt: skip


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


class Cluster:
    """A scheduler and named worker processes on loopback (stopped by the fixture)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.file = folder / "scheduler.json"
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(HERE), os.environ.get("PYTHONPATH", "")])}  # fmt: skip
        self.scheduler = _start(
            ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
             "--scheduler-file", str(self.file), "--no-dashboard"],
            folder / "scheduler.log", self.env,
        )  # fmt: skip
        self.workers: dict[str, subprocess.Popen] = {}

    def add_worker(self, name: str) -> None:
        self.workers[name] = _start(
            ["distributed.cli.dask_worker", "--scheduler-file", str(self.file),
             "--nthreads", "1", "--nworkers", "1", "--host", "127.0.0.1", "--name", name,
             "--no-dashboard", "--death-timeout", "30"],
            self.folder / f"{name}.log", self.env,
        )  # fmt: skip

    def wait_for(self, n: int, timeout: float = 60) -> None:
        from distributed import Client

        deadline = time.monotonic() + timeout
        while not self.file.exists():
            assert time.monotonic() < deadline, (self.folder / "scheduler.log").read_text()
            time.sleep(0.1)
        if n:
            with Client(scheduler_file=str(self.file), timeout="20s") as c:
                c.wait_for_workers(n, timeout=timeout)

    def close(self) -> None:
        for p in [*self.workers.values(), self.scheduler]:
            _stop(p)


@pytest.fixture(scope="module")
def shared_cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        c.add_worker("w1")
        c.add_worker("w2")
        c.wait_for(2)
        yield c
    finally:
        c.close()


@pytest.fixture
def cluster(shared_cluster):
    """The module's cluster with two live workers (a test that killed one gets it back)."""
    for name, proc in list(shared_cluster.workers.items()):
        if proc.poll() is not None:
            shared_cluster.add_worker(name)
    shared_cluster.wait_for(2)
    return shared_cluster


SPEED = ("days_per_hour", "jobs_per_s", "wall_time_s")  # the simulator's own speed


def _files(folder: Path) -> dict[str, Path]:
    return {str(p.relative_to(folder)): p for p in folder.rglob("*") if p.is_file()}


def test_a_comparison_on_dask_equals_the_local_pool_byte_for_byte(cluster, tmp_path):
    spec = load_spec(ROOT / "examples" / "compare_small.yaml")
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert run_comparison(spec, local, jobs=1).ok
    infos = []
    summary = run_comparison(spec, dask, executor=ExecutorSpec("dask", str(cluster.file)),
                             on_info=infos.append)  # fmt: skip
    assert summary.ok and len(summary.executed) == 3
    assert infos and "Dask scheduler tcp://127.0.0.1:" in infos[0]
    a, b = _files(local), _files(dask)
    assert sorted(a) == sorted(b)
    hosts = set()
    for name in a:
        if name.endswith(("run.json", "metrics.json")):  # where and how fast differ, not results
            ra, rb = json.loads(a[name].read_text()), json.loads(b[name].read_text())
            if "pid" in rb:
                hosts.add(rb["pid"])
            for r in (ra, rb):
                for k in ("seconds", "host", "pid"):
                    r.pop(k, None)
                for k in SPEED:
                    r.get("metrics", r).pop(k, None)
            assert ra == rb, name
        elif name != "spec.json":
            assert filecmp.cmp(a[name], b[name], shallow=False), name
    worker_pids = {p.pid for p in cluster.workers.values()}
    assert os.getpid() not in hosts and hosts  # the runs ran on the workers, not here
    del worker_pids


def test_killing_a_worker_mid_sweep_loses_and_duplicates_nothing(cluster, tmp_path):
    log = tmp_path / "calls.log"
    store = Store(tmp_path / "runs")
    tasks = [Task(f"k{i:02d}", _dask_tasks.slow_square, (i, 0.3, str(log))) for i in range(24)]
    done = []

    def on_done(outcome):
        done.append(outcome.key)
        if len(done) == 4:  # kill worker w1 while it computes
            os.killpg(cluster.workers["w1"].pid, signal.SIGKILL)
            cluster.workers["w1"].wait()

    summary = run_tasks(tasks, store, executor=ExecutorSpec("dask", str(cluster.file)),
                        on_done=on_done)  # fmt: skip
    assert summary.ok, summary.failed
    assert sorted(done) == sorted(t.key for t in tasks)  # each result once
    assert sorted(store.done()) == sorted(t.key for t in tasks)
    for i in range(24):
        assert json.loads((tmp_path / "runs" / f"k{i:02d}.json").read_text()) == {
            "x": i,
            "y": i * i,
        }
    pids = {line.split()[1] for line in log.read_text().splitlines()}
    assert len(pids) == 2, "both workers ran runs before one was killed"


@pytest.mark.slow
def test_a_run_that_kills_every_worker_fails_clearly_and_the_others_finish(tmp_path):
    store = Store(tmp_path / "runs")
    """One worker and no retries by Dask: the runs queued beside the killer die with it
    every time, and must not be blamed for it (they are retried alone)."""
    tasks = [Task(f"k{i}", _dask_tasks.exit_worker, (i,)) for i in range(6)]
    summary = run_tasks(tasks, store, executor=ExecutorSpec("dask-local", workers=1, retries=0))
    assert set(summary.failed) == {"k3"}
    assert "killed every Dask worker" in summary.failed["k3"]
    assert sorted(store.done()) == ["k0", "k1", "k2", "k4", "k5"]


def test_shared_inputs_are_shipped_once_per_worker(cluster, tmp_path):
    table = list(range(200_000))
    store = Store(tmp_path / "runs")
    tasks = [Task(f"k{i}", _dask_tasks.total, (table, i)) for i in range(10)]
    assert run_tasks(tasks, store, executor=ExecutorSpec("dask", str(cluster.file))).ok
    rows = store.load()
    assert [r["sum"] for r in rows] == [sum(table) + r["x"] for r in rows]


def test_input_files_are_shipped_and_the_results_name_the_clients_paths(cluster, tmp_path):
    """Runs read their inputs by path: the workers get a copy (no shared file system needed)
    and what the runs return names the files as the client knows them."""
    data = tmp_path / "input.swf"
    data.write_text("; a trace\n1 0 0 10 4\n")
    store = Store(tmp_path / "runs")
    tasks = [Task(f"k{i}", _dask_tasks.read_input, ({"file": str(data), "i": i},))
             for i in range(4)]  # fmt: skip
    assert run_tasks(tasks, store, executor=ExecutorSpec("dask", str(cluster.file))).ok
    rows = store.load()
    assert len(rows) == 4 and all(r["in_cache"] for r in rows)  # read from the shipped copy
    assert {r["config"]["file"] for r in rows} == {str(data)}
    assert {r["text"] for r in rows} == {data.read_text()}


@pytest.mark.slow
def test_a_killed_client_resumes_with_nothing_lost_or_redone(cluster, tmp_path):
    spec = tmp_path / "s.yaml"
    six = "[fcfs, easy, conservative, sjf, 'easy:depth=3', firstfit]"
    text = (ROOT / "examples" / "compare_small.yaml").read_text()
    spec.write_text(
        text.replace("limit: 3000", "limit: 2000").replace("[fcfs, easy, conservative]", six)
    )
    args = [sys.executable, "-m", "coschedlab.cli", "compare", str(spec), "--out", "o",
            "--executor", f"dask:{cluster.file}"]  # fmt: skip
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list((tmp_path / "o").glob("*/*/rep0/metrics.json"))) >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1].decode()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = {p.parent: p.stat().st_mtime_ns for p in (tmp_path / "o").glob("*/*/rep0/metrics.json")}
    assert 2 <= len(first) < 6
    done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{len(first)} of 6 runs already stored" in done.stdout
    after = {p.parent: p.stat().st_mtime_ns for p in (tmp_path / "o").glob("*/*/rep0/metrics.json")}
    assert len(after) == 6
    assert all(after[d] == t for d, t in first.items())  # finished runs were not redone


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path):
    """(The other bad --executor values are rows of the CLI catalogue.)"""
    spec = ROOT / "examples" / "compare_small.yaml"
    done = subprocess.run(
        [sys.executable, "-m", "coschedlab.cli", "compare", str(spec), "--out", "o",
         "--executor", "dask:tcp://127.0.0.1:9"], cwd=tmp_path, capture_output=True, text=True,
        timeout=120, env={**os.environ, "COSCHEDLAB_DASK_TIMEOUT": "2"},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach a Dask scheduler" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").rglob("metrics.json"))


def test_the_spec_executor_key_is_checked(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text((ROOT / "examples" / "compare_small.yaml").read_text()
                    + "executor: dask-local:two\n")  # fmt: skip
    with pytest.raises(InputError, match=r"s.yaml:\d+: .*dask-local:N needs a whole number"):
        load_spec(spec)
    spec.write_text(spec.read_text().replace("dask-local:two", "dask-local:2"))
    assert load_spec(spec).executor == parse_executor("dask-local:2")


@pytest.mark.parametrize(("text", "wants"), [
    ("slurm:cores=4,memory=8GB,queue=normal,walltime=01:30:00,account=proj42,jobs=3,"
     "job_extra=--constraint=haswell;--exclusive",
     ["#SBATCH -p normal", "#SBATCH -A proj42", "#SBATCH -t 01:30:00", "#SBATCH --cpus-per-task=4",
      "#SBATCH --constraint=haswell", "#SBATCH --exclusive", "--nthreads 1 ", "--nworkers 4 ",
      "#SBATCH --mem=8G"]),
    ("pbs:cores=2,memory=4GB,queue=batch,walltime=00:20:00",
     ["#PBS -q batch", "#PBS -l walltime=00:20:00", "ncpus=2", "--nthreads 1 ", "--nworkers 2 "]),
    ("slurm:cores=4,memory=8GB,processes=1,skip=--mem", ["--nthreads 4"]),
])  # fmt: skip
def test_batch_system_executors_write_the_expected_job_script(text, wants):
    import signal as sig

    from coschedlab.sweeps.cluster import jobqueue_cluster

    before = sig.getsignal(sig.SIGINT)
    cluster, jobs = jobqueue_cluster(parse_executor(text))
    assert sig.getsignal(sig.SIGINT) is before  # dask_jobqueue's import replaces it: restored
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    for want in wants:
        assert want in script, script
    for name, value in dask_env(QUIET_DASK).items():  # Dask's timers slowed beside the runs
        assert f"export {name}={value}\n" in script
    assert jobs == (3 if "jobs=3" in text else 1)
    assert ("#SBATCH --mem" in script) == (text.startswith("slurm") and "skip=--mem" not in text)


def test_a_scheduler_without_workers_is_one_line_and_exit_2(tmp_path):
    empty = Cluster(tmp_path)  # a scheduler, no worker
    try:
        empty.wait_for(0)
        done = subprocess.run(
            [sys.executable, "-m", "coschedlab.cli", "compare",
             str(ROOT / "examples" / "compare_small.yaml"), "--out", "o", "--executor",
             f"dask:{empty.file}"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
            env={**os.environ, "COSCHEDLAB_DASK_WORKER_TIMEOUT": "2"},
        )  # fmt: skip
    finally:
        empty.close()
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("error:") and "the scheduler has no worker" in lines[-1]
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(bool(shutil.which("qsub")), reason="this machine has a PBS qsub")
def test_a_batch_system_without_its_commands_is_one_line_and_exit_2(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "coschedlab.cli", "compare",
         str(ROOT / "examples" / "compare_small.yaml"), "--out", "o", "--executor",
         "pbs:cores=2,memory=1GB"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "qsub not found" in lines[0], done.stderr


def test_quiet_settings_reach_workers_through_their_environment():
    import dask

    got = dask.config.collect_env(dask_env(QUIET_DASK))
    assert len(QUIET_DASK) == len(dask_env(QUIET_DASK)) >= 5
    for key, value in QUIET_DASK.items():
        assert dask.config.get(key, config=got) == value


def test_silenced_loggers_are_restored_after_the_cluster():
    import logging

    from coschedlab.sweeps.cluster import _silenced

    lg = logging.getLogger("tornado.application")
    lg.setLevel(logging.WARNING)
    with pytest.raises(InputError), _silenced("tornado.application"):
        assert lg.level == logging.CRITICAL
        raise InputError("refused")
    assert lg.level == logging.WARNING
    lg.setLevel(logging.NOTSET)
