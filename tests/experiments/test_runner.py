"""The one sweep runner on small generic tasks: resume, failures, fresh processes, records."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from coschedlab.errors import InputError
from coschedlab.sweeps.runner import run_tasks
from coschedlab.sweeps.store import Store
from coschedlab.sweeps.tasks import Task


def square(x: int) -> dict:
    return {"x": x, "y": x * x}


def fails_on_three(x: int) -> dict:
    if x == 3:
        raise ValueError("three is not allowed")
    return {"x": x}


def interrupts_on(x: int, stop: int) -> dict:
    if x == stop:
        raise KeyboardInterrupt
    return {"x": x}


def my_pid(_: int) -> int:
    return os.getpid()


def test_resume_runs_exactly_the_missing_runs(tmp_path):
    store = Store(tmp_path / "runs")
    tasks = [Task(f"k{i}", interrupts_on, (i, 4)) for i in range(8)]
    first = run_tasks(tasks, store, jobs=1)
    assert first.interrupted and first.executed == ["k0", "k1", "k2", "k3"]
    stamps = {f.name: f.stat().st_mtime_ns for f in (tmp_path / "runs").glob("*.json")}
    assert sorted(stamps) == [f"k{i}.json" for i in range(4)]
    (tmp_path / "runs" / ".tmp-k9.json-1").write_text("half")  # left by a killed write
    again = run_tasks([Task(f"k{i}", square, (i,)) for i in range(8)], store, jobs=2)
    assert again.ok and sorted(again.executed) == [f"k{i}" for i in range(4, 8)]
    assert sorted(again.skipped) == [f"k{i}" for i in range(4)]
    for name, stamp in stamps.items():  # finished runs are never redone
        assert (tmp_path / "runs" / name).stat().st_mtime_ns == stamp
    assert not list((tmp_path / "runs").glob(".tmp-*"))
    assert json.loads((tmp_path / "runs" / "k7.json").read_text()) == {"x": 7, "y": 49}
    assert sorted(store.done()) == [f"k{i}" for i in range(8)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failing_run_is_recorded_and_the_others_finish(tmp_path, jobs):
    store = Store(tmp_path / "runs")
    done = []
    summary = run_tasks(
        [Task(f"k{i}", fails_on_three, (i,)) for i in range(6)],
        store,
        jobs=jobs,
        on_done=done.append,
    )
    assert not summary.ok and list(summary.failed) == ["k3"]
    assert "three is not allowed" in summary.failed["k3"]
    assert "ValueError" in (tmp_path / "runs" / "k3.error.txt").read_text()
    assert store.done() == {"k0", "k1", "k2", "k4", "k5"}
    assert {o.key for o in done} == {f"k{i}" for i in range(6)}
    assert all(o.host and o.pid and o.seconds >= 0 for o in done)  # where and how long


def test_fresh_process_gives_every_run_its_own_process():
    store = Store(None)
    summary = run_tasks(
        [Task(i, my_pid, (i,)) for i in range(4)], store, jobs=1, fresh_process=True
    )
    assert summary.ok
    pids = list(store.values.values())
    assert len(set(pids)) == 4 and os.getpid() not in pids


def test_a_second_sweep_into_the_folder_leaves_the_first_ones_writes_alone(tmp_path):
    """Two sweeps into one folder at once: the second one's start removes what killed
    writes left, not what the first (running) one is writing (the first failed: "No such
    file or directory", its run half-written)."""
    runs = tmp_path / "runs"
    runs.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    writing = runs / f".tmp-{os.getpid()}-0123abcd-k1.json"  # (this process: running)
    killed = runs / f".tmp-{dead}-0123abcd-k2.json"
    for leftover in (writing, killed):
        leftover.write_text("half")
    assert run_tasks([Task("k0", square, (0,))], Store(runs), jobs=1).ok
    assert writing.exists() and not killed.exists()


def test_keys_must_be_unique_and_jobs_positive(tmp_path):
    with pytest.raises(InputError, match="share the key"):
        run_tasks([Task("a", square, (1,)), Task("a", square, (2,))], Store(None))
    with pytest.raises(InputError, match="--jobs must be at least 1"):
        run_tasks([Task("a", square, (1,))], Store(None), jobs=0)


@pytest.mark.parametrize("named", [True, False])
def test_a_command_ends_with_the_process_that_started_it_only_when_named(tmp_path, named):
    """The command line watches the process :data:`coschedlab.sweeps.PARENT` names (the
    dashboard's): it exits within a second or two once that process is gone, and goes on
    when nothing names it."""
    import subprocess
    import sys
    import time

    from coschedlab.sweeps import PARENT

    watched = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    env = {k: v for k, v in os.environ.items() if k != PARENT}
    if named:
        env[PARENT] = str(watched.pid)
    code = ("import time; from coschedlab.sweeps.pool import watch_parent; watch_parent(); "
            "time.sleep(20)")  # fmt: skip
    command = subprocess.Popen([sys.executable, "-c", code], env=env)
    try:
        time.sleep(1.0)
        assert command.poll() is None  # alive while the watched process is
        watched.kill()
        watched.wait()
        deadline = time.monotonic() + (6 if named else 2)  # the watch polls twice a second
        while command.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (command.poll() == 1) if named else (command.poll() is None)
    finally:
        for p in (watched, command):
            p.kill()
            p.wait()


def test_a_stopped_pool_leaves_the_exit_time_wake_ups():
    """After :func:`stop` (Ctrl-C), Python's exit no longer writes to the stopped executor's
    wake-up pipe (``_python_exit``, without the executor's lock): its manager thread closes
    that pipe when it sees the workers gone, and a close at the same moment printed "OSError:
    Bad file descriptor" under the "interrupted" line (CI of stop 46: stop's wait for the
    thread read it after the executor's shutdown had forgotten it, and never waited). The
    thread is done when stop returns, and would still be waited for at exit."""
    import concurrent.futures.process as futures_process
    import multiprocessing
    import time
    from concurrent.futures import ProcessPoolExecutor

    from coschedlab.sweeps.pool import stop

    executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
    executor.submit(time.sleep, 30)
    manager = executor._executor_manager_thread
    assert manager in futures_process._threads_wakeups
    stop(executor)
    assert not manager.is_alive()
    assert manager not in futures_process._threads_wakeups
    assert not manager.daemon  # so the interpreter's exit still joins it
