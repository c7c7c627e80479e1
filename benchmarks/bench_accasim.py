"""coschedlab against AccaSim 1.1.3, side by side in one run, FCFS on the same integer trace.

Usage::

    .venv/bin/python benchmarks/bench_accasim.py [TRACE] [--jobs N] [--quick] [--timeout S]

AccaSim (PyPI ``accasim==1.1.3``, MIT) lives in its own virtual environment,
``/tmp/accasim-venv`` (created and cached on the first run with ``python3 -m venv`` and
``pip install accasim==1.1.3``; it is never installed into the project's ``.venv``). On
Python 3.11 it needs ``collections.Mapping = collections.abc.Mapping`` before import, and it
reads integer SWF only, so the script

1. reads TRACE (default: the full SDSC-SP2-1998 trace) with ``read_swf`` and writes the jobs
   coschedlab keeps as an *integer* SWF with ``write_swf(..., integers=True)`` (times rounded
   to whole seconds; processors and requested time after coschedlab's fallbacks; memory
   fields -1 so AccaSim asks for cores only), first ``--jobs N`` jobs when given (``--quick``:
   10,000);
2. runs AccaSim in a subprocess with that venv's Python: ``Simulator`` with
   ``FirstInFirstOut(FirstFit())`` on a system config of the trace's nodes as one-core nodes,
   with every output file, the statistics print-out and the benchmark sampler switched off;
   the time reported is AccaSim's ``start_simulation()`` (its reader parses the SWF lazily
   while simulating, so parsing is inside that time and cannot be separated);
3. runs coschedlab's ``fcfs`` on the same integer file in this process: ``read_swf`` +
   ``coschedlab.simulate`` (parse + set-up + run + result table, the fair counterpart of
   AccaSim's figure), and ``Result.wall_time`` (the event loop only), best of 3;
4. prints both, the ratios (target: >= 20x), and compares the schedules job by job.

Known difference: a job of zero run time. coschedlab ends it at its start instant and runs
another scheduling pass then; AccaSim 1.1.3 keeps its nodes busy until its next event time.
SDSC-SP2-1998 has 10 such jobs; from the first one that delays a waiting job (job 47044) on,
FCFS propagates the difference (23,300 jobs start up to 88 s apart; mean wait differs by
0.9 s in 1.55e6 s). ``--no-zero-runs`` leaves those jobs out of both runs.

If AccaSim does not finish within ``--timeout`` seconds (default 900) the script says so and
runs both simulators again on the first 10,000 jobs.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _bench_common import machine_line

import coschedlab
from coschedlab.platform import Cluster
from coschedlab.workload.swf import cluster_from_header, read_swf, write_swf

DEFAULT_TRACE = Path("/work/shared/data/swf/SDSC-SP2-1998-4.2-cln.swf.gz")
VENV = Path("/tmp/accasim-venv")
ACCASIM = "accasim==1.1.3"
TARGET_RATIO = 20.0
FALLBACK_JOBS = 10_000

# Run inside AccaSim's venv: argv = SWF, nodes, output directory, JSON result path.
RUNNER = r"""
import collections, collections.abc
collections.Mapping = collections.abc.Mapping  # AccaSim 1.1.3 on Python >= 3.10
collections.MutableMapping = collections.abc.MutableMapping
collections.Sequence = collections.abc.Sequence
import json, sys, time
t0 = time.perf_counter()
from accasim.base.simulator_class import Simulator
from accasim.base.scheduler_class import FirstInFirstOut
from accasim.base.allocator_class import FirstFit
from accasim.base import event_class
import_s = time.perf_counter() - t0
swf, nodes, outdir, out_json = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
cfg = outdir + "/sys_config.json"
with open(cfg, "w") as f:  # `nodes` one-core nodes
    json.dump({"groups": {"g0": {"core": 1}}, "resources": {"g0": nodes}}, f)
starts = {}
_finish = event_class.EventManager.finish_event
def finish_event(self, e):  # record each job's start time (a dict store per job)
    starts[e.id] = e.start_time
    return _finish(self, e)
event_class.EventManager.finish_event = finish_event
t1 = time.perf_counter()
sim = Simulator(swf, cfg, FirstInFirstOut(FirstFit()), RESULTS_FOLDER_PATH=outdir,
                scheduling_output=False, pprint_output=False, benchmark_output=False,
                statistics_output=False, show_statistics=False, LOG_LEVEL="WARNING")
t2, c2 = time.perf_counter(), time.process_time()
sim.start_simulation()
t3, c3 = time.perf_counter(), time.process_time()
w = sim.mapper.wtimes
with open(out_json, "w") as f:
    json.dump({"import_s": import_s, "init_s": t2 - t1, "sim_s": t3 - t2, "sim_cpu_s": c3 - c2,
               "loaded": sim.loaded_jobs, "finished": len(w),
               "mean_wait": sum(w) / len(w) if w else None, "starts": starts}, f)
"""


def ensure_venv() -> Path:
    """AccaSim's interpreter, creating /tmp/accasim-venv on first use."""
    py = VENV / "bin" / "python"
    probe = (
        "import collections, collections.abc; "
        "collections.Mapping = collections.abc.Mapping; import accasim"
    )
    if py.exists() and subprocess.run([str(py), "-c", probe], capture_output=True).returncode == 0:
        return py
    print(f"# creating {VENV} and installing {ACCASIM} (once) ...", flush=True)
    subprocess.run(["python3", "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", ACCASIM], check=True)
    return py


def write_integer_swf(path: Path, workload, nodes: int) -> None:
    """The workload as integer SWF (coschedlab's writer, ``integers=True``): -1 for everything
    AccaSim should ignore (memory, so it asks for cores only), status 1."""
    c = workload.columns
    frame = pd.DataFrame(
        {name: c[name] for name in ("id", "submit", "run", "requested_time", "procs")}
    )
    frame["status"] = 1
    write_swf(path, frame, {"MaxNodes": str(nodes), "MaxProcs": str(nodes)}, integers=True)


def run_accasim(py: Path, swf: Path, nodes: int, tmp: Path, timeout: float) -> dict | None:
    runner = tmp / "accasim_runner.py"
    runner.write_text(RUNNER)
    outdir = tmp / "accasim_out"
    outdir.mkdir(exist_ok=True)
    out_json = tmp / "accasim_result.json"
    t0 = time.perf_counter()
    try:
        subprocess.run(
            [str(py), str(runner), str(swf), str(nodes), str(outdir), str(out_json)],
            check=True,
            timeout=timeout,
            cwd=tmp,
            stdout=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return None
    res = json.loads(out_json.read_text())
    res["process_s"] = time.perf_counter() - t0
    return res


def run_ours(swf: Path, nodes: int, repeat: int) -> dict:
    cluster = Cluster(nodes)
    best_total, best_sim, best_cpu, result = math.inf, math.inf, math.inf, None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        w = read_swf(swf)
        r = coschedlab.simulate(w, cluster, "fcfs")
        total = time.perf_counter() - t0
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_total = min(best_total, total)
        if r.wall_time < best_sim:
            best_sim, result = r.wall_time, r
    return {"total_s": best_total, "sim_s": best_sim, "cpu_s": best_cpu, "result": result}


def compare(ours, acc: dict) -> None:
    jobs = ours.jobs
    ids = jobs["job_id"].to_numpy()
    s_ours = jobs["start"].to_numpy()
    s_acc = np.array([acc["starts"].get(str(i), np.nan) for i in ids], dtype=np.float64)
    missing = int(np.isnan(s_acc).sum())
    diff = s_acc - s_ours
    differ = np.flatnonzero(np.nan_to_num(diff) != 0)
    wait_ours = ours.metrics["wait_mean"]
    print(
        f"  mean wait: AccaSim {acc['mean_wait']:,.3f} s (over {acc['finished']:,} finished jobs)"
        f", coschedlab {wait_ours:,.3f} s"
    )
    if missing:
        print(f"  {missing} jobs have no start time in AccaSim's run")
    if len(differ) == 0:
        print("  schedules: identical start time for every job")
        return
    first = int(differ[np.argmin(s_ours[differ])])
    print(
        f"  schedules: {len(differ):,} of {len(ids):,} jobs start at a different time "
        f"(max |difference| {np.nanmax(np.abs(diff)):,.0f} s); the first in time:"
    )
    run = jobs["run"].to_numpy()
    submit = jobs["submit"].to_numpy()
    procs = jobs["procs"].to_numpy()
    for k in differ[np.argsort(s_ours[differ], kind="stable")][:3]:
        print(
            f"    job {ids[k]}: coschedlab {s_ours[k]:.0f}, AccaSim {s_acc[k]:.0f} "
            f"(submit {submit[k]:.0f}, run {run[k]:.0f}, procs {procs[k]})"
        )
    t = s_ours[first]
    zero_now = np.flatnonzero((run == 0) & (s_ours == t) & (s_acc == t))
    if len(zero_now):
        z = zero_now[0]
        print(
            f"  cause: job {ids[z]} has zero run time and started at {t:.0f} in both; "
            f"coschedlab frees its {procs[z]} node(s) at once and runs another pass, AccaSim "
            f"keeps them busy until its next event time, so job {ids[first]} waits there "
            f"(FCFS then propagates the delay). Check: --no-zero-runs."
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace", nargs="?", type=Path, default=DEFAULT_TRACE)
    ap.add_argument("--jobs", type=int, default=None, help="first N jobs only")
    ap.add_argument("--quick", action="store_true", help=f"first {FALLBACK_JOBS:,} jobs")
    ap.add_argument("--timeout", type=float, default=900.0, help="AccaSim time limit (s)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--no-zero-runs",
        action="store_true",
        help="leave out the jobs of zero run time (AccaSim holds their nodes until its next event)",
    )
    args = ap.parse_args(argv)
    n_jobs = FALLBACK_JOBS if args.quick and args.jobs is None else args.jobs
    print(f"# bench_accasim: {args.trace.name}, FCFS")
    print(f"# {machine_line()}")
    py = ensure_venv()
    ver = subprocess.run([str(py), "-m", "pip", "show", "accasim"], capture_output=True, text=True)
    version = next(
        (ln.split()[-1] for ln in ver.stdout.splitlines() if ln.startswith("Version")), "?"
    )
    print(
        f"# AccaSim {version} in {VENV} (Python of that venv: "
        f"{subprocess.run([str(py), '-V'], capture_output=True, text=True).stdout.strip()})"
    )

    full = read_swf(args.trace)
    cluster = cluster_from_header(full.header)
    full = full.drop_oversized(cluster.total_cores)
    if args.no_zero_runs:
        zero = full.columns["run"] == 0
        print(f"# --no-zero-runs: leaving out {int(zero.sum())} jobs of zero run time")
        full = full.select(~zero)
    nodes = cluster.total_cores  # one-core nodes for both simulators
    with tempfile.TemporaryDirectory(prefix="bench_accasim_") as tmpdir:
        tmp = Path(tmpdir)
        while True:
            w = full if n_jobs is None else full.head(n_jobs)
            swf = tmp / "trace_int.swf"
            write_integer_swf(swf, w, nodes)
            what = "the full trace" if n_jobs is None else f"the first {len(w):,} jobs"
            print(f"\n{what}: {len(w):,} jobs on {nodes} one-core nodes (integer SWF)")
            acc = run_accasim(py, swf, nodes, tmp, args.timeout)
            if acc is None:
                print(f"  AccaSim did not finish within {args.timeout:.0f} s")
                if n_jobs is not None and n_jobs <= FALLBACK_JOBS:
                    return 1
                n_jobs = FALLBACK_JOBS
                print(f"  -> running both on the first {n_jobs:,} jobs instead")
                continue
            break
        ours = run_ours(swf, nodes, args.repeat)

    r = ours["result"]
    mk = r.metrics["makespan"]
    n = len(r.jobs)

    def dph(s):
        return (mk / 86400) / (s / 3600)

    print(f"{'':52}{'seconds':>10}{'jobs/s':>11}{'days/hour':>12}")
    rows = [
        ("AccaSim start_simulation (parse + simulate)", acc["sim_s"]),
        ("AccaSim whole process (python + import)", acc["process_s"]),
        (f"coschedlab read_swf + simulate (best of {args.repeat})", ours["total_s"]),
        (f"coschedlab simulation only, wall_time (best of {args.repeat})", ours["sim_s"]),
    ]
    for label, s in rows:
        print(f"{label:<52}{s:>10.3f}{n / s:>11,.0f}{dph(s):>12,.0f}")
    ratio_total = acc["sim_s"] / ours["total_s"]
    ratio_sim = acc["sim_s"] / ours["sim_s"]
    print(
        f"\nspeed-up, AccaSim parse+simulate / coschedlab parse+simulate: {ratio_total:,.0f}x "
        f"(target >= {TARGET_RATIO:.0f}x -> {'MET' if ratio_total >= TARGET_RATIO else 'MISSED'})"
    )
    print(f"speed-up, AccaSim parse+simulate / coschedlab simulation only: {ratio_sim:,.0f}x")
    print(
        f"CPU time: AccaSim parse+simulate {acc['sim_cpu_s']:.3f} s, coschedlab parse+simulate "
        f"{ours['cpu_s']:.3f} s -> {acc['sim_cpu_s'] / ours['cpu_s']:,.0f}x"
    )
    if acc["loaded"] != n:
        print(f"  note: AccaSim loaded {acc['loaded']:,} jobs, coschedlab {n:,}")
    compare(r, acc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
