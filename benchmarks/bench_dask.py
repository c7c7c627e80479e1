"""Per-run overhead of the Dask executor against the local process pool (issue 14).

    .venv/bin/python benchmarks/bench_dask.py [--runs 1000] [--workers 2] [--scale]
        [--insitu | --insitu-full]

1. ``--runs`` tiny runs (a function that returns its argument) through the one runner into a
   JSON store, on the local pool (``--jobs N``) and on a Dask cluster of N worker processes
   (a scheduler and N ``dask worker`` processes started here on 127.0.0.1, as a user's
   cluster would be); the seconds per run of each, and the client's peak memory.
2. ``--scale``: the client alone at scale: 1,000 and 10,000 tiny runs on the same Dask
   cluster, each sweep in a fresh client process: seconds per run and the client's peak
   memory (flat in the number of runs: a window of runs in flight, results streamed).
3. ``--insitu``: a slice of the in situ reproduction (the nodes sweep, one trial, 10 steps:
   160 SimGrid runs, each in a process of its own) on both, alternately.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coschedlab.sweeps.cluster import QUIET_DASK, dask_env
from coschedlab.sweeps.executors import ExecutorSpec
from coschedlab.sweeps.runner import run_tasks
from coschedlab.sweeps.store import Store
from coschedlab.sweeps.tasks import Task


def tiny(x: int) -> dict:
    return {"x": x}


def start_cluster(folder: Path, workers: int) -> tuple[Path, list[subprocess.Popen]]:
    from distributed import Client

    file = folder / "scheduler.json"
    file.unlink(missing_ok=True)  # an earlier cluster's
    # the scheduler unpickles the runs too: it must import this file like the workers; the
    # Dask settings docs/experiments.md advises for workers sharing cores with runs
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent),
           **dask_env(QUIET_DASK)}  # fmt: skip
    procs = [subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", "0", "--scheduler-file", str(file), "--no-dashboard"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        start_new_session=True)]  # fmt: skip
    while not file.exists():
        time.sleep(0.1)
    for i in range(workers):
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(file),
             "--nthreads", "1", "--host", "127.0.0.1", "--name", f"w{i}", "--no-dashboard",
             "--death-timeout", "30"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
            start_new_session=True))  # fmt: skip
    try:
        with Client(scheduler_file=str(file), timeout="30s") as c:
            c.wait_for_workers(workers, timeout=60)
    except BaseException:  # leave no cluster behind to load the next measurement
        stop(procs)
        raise
    return file, procs


def stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def tiny_runs(runs: int, workers: int, tmp: Path) -> None:
    import bench_dask  # this file, importable by the workers (PYTHONPATH)

    tasks = [Task(f"k{i:06d}", bench_dask.tiny, (i,)) for i in range(runs)]
    t0 = time.perf_counter()
    assert run_tasks(tasks, Store(tmp / "local"), jobs=workers).ok
    local = (time.perf_counter() - t0) / runs
    file, procs = start_cluster(tmp, workers)
    try:
        t0 = time.perf_counter()
        assert run_tasks(tasks, Store(tmp / "dask"), executor=ExecutorSpec("dask", str(file))).ok
        dask = (time.perf_counter() - t0) / runs
    finally:
        stop(procs)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{runs} tiny runs, {workers} workers: local pool {local * 1000:.2f} ms per run, "
          f"Dask {dask * 1000:.2f} ms per run ({dask / local:.1f}x; client peak RSS "
          f"{rss:.0f} MB)")  # fmt: skip


def client_sweep(file: str, runs: int, out: str) -> None:
    """One sweep of ``runs`` tiny runs on the cluster of ``file`` (in its own process):
    prints ``seconds_per_run peak_rss_mb``."""
    import bench_dask

    tasks = [Task(f"k{i:06d}", bench_dask.tiny, (i,)) for i in range(runs)]
    t0 = time.perf_counter()
    assert run_tasks(tasks, Store(Path(out)), executor=ExecutorSpec("dask", file)).ok
    per_run = (time.perf_counter() - t0) / runs
    print(per_run, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def scale(workers: int, tmp: Path) -> None:
    file, procs = start_cluster(tmp, workers)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent)}
    try:
        for runs in (1000, 10000):
            done = subprocess.run(
                [sys.executable, __file__, "--client", str(file), str(runs), str(tmp / f"s{runs}")],
                capture_output=True, text=True, check=True, env=env,
            )  # fmt: skip
            per_run, rss = map(float, done.stdout.split()[-2:])
            print(f"{runs:6d} tiny runs on Dask ({workers} workers): {per_run * 1000:.2f} ms "
                  f"per run, {per_run * runs:.0f} s, client peak RSS {rss:.0f} MB")  # fmt: skip
    finally:
        stop(procs)


def insitu(workers: int, tmp: Path, full: bool = False, only: list[str] | None = None) -> None:
    """The in situ reproduction on the local pool and on a Dask LocalCluster, alternately,
    sweep by sweep (so that whatever else loads the machine loads both alike): a slice
    (the nodes sweep, 1 trial, 10 steps, best of 2) or, with ``full``, the whole
    reproduction (four sweeps, 5 trials, 100 steps: 3,200 SimGrid runs) once each."""
    sweeps = ["nodes", "simulations", "analyses", "data"] if full else ["nodes", "nodes"]
    sweeps = only or sweeps
    size = ["--trials", "5", "--steps", "100"] if full else ["--trials", "1", "--steps", "10"]
    times: dict[str, list[float]] = {"local": [], "dask": []}
    for i, sweep in enumerate(sweeps):
        for name, extra in (("local", ["--jobs", str(workers)]),
                            ("dask", ["--executor", f"dask-local:{workers}"])):  # fmt: skip
            out = tmp / f"insitu-{name}{i}"
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "coschedlab.cli", "insitu", "reproduce",
                            "--sweeps", sweep, *size, "--out", str(out), *extra], check=True,
                           capture_output=True)  # fmt: skip
            times[name].append(time.perf_counter() - t0)
            print(f"  {sweep:12s} {name:5s} {times[name][-1]:7.0f} s", flush=True)
    if full:
        lo, da = sum(times["local"]), sum(times["dask"])
        what = f"in situ reproduction, full-size runs, sweeps {', '.join(sweeps)}"
    else:
        lo, da = min(times["local"]), min(times["dask"])
        what = "in situ reproduction slice (160 SimGrid runs, best of 2)"
    print(f"{what}: local pool of {workers} {lo:.0f} s, Dask LocalCluster of {workers} "
          f"{da:.0f} s ({da / lo:.2f}x)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--insitu", action="store_true", help="a slice of the in situ sweep")
    ap.add_argument("--insitu-full", action="store_true", help="the whole of it (~1.5 h)")
    ap.add_argument("--sweeps", nargs="+", help="with --insitu-full: only these sweeps")
    ap.add_argument("--scale", action="store_true")
    ap.add_argument("--quick", action="store_true", help="200 runs")
    ap.add_argument("--client", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.client:
        client_sweep(args.client[0], int(args.client[1]), args.client[2])
        return
    with tempfile.TemporaryDirectory() as d:
        if args.runs > 0:  # --runs 0: the other parts only
            tiny_runs(200 if args.quick else args.runs, args.workers, Path(d))
        if args.scale:
            scale(args.workers, Path(d))
        if args.insitu or args.insitu_full:
            insitu(args.workers, Path(d), full=args.insitu_full, only=args.sweeps)


if __name__ == "__main__":
    main()
