"""The ``slurm`` scheduler against a REAL Slurm (prints figures; not a timed test).

Reference runs (``benchmarks/data/slurm/``): small workloads run by
``shared/tools/slurm_emulator.sh`` on Debian's slurm-wlm 22.05.8 with 16 emulated nodes
(one slurmd each, whole nodes, jobs are ``sleep RUNTIME``), each job's integer submit, start
and end times, and the controller's log. For every run this script replays the workload
through:

* ``conservative``: textbook conservative backfilling, event driven (the baseline);
* ``slurm`` with the run's Slurm settings, event driven (the WoAS studies' model);
* ``slurm`` on Slurm's own clock: the main scheduler and the backfill thread on the periods
  and phases fitted to the passes in the controller's log, submissions 0.03 s after their
  offset and jobs 0.022 s longer than their ``sleep`` (the median launch and completion
  overhead the log shows), times floored to whole seconds as Slurm records them;
* the same with ``bf_nodes``: backfill reservations on specific nodes chosen as select/linear
  chooses them (Slurm's node-space map), jobs started on the nodes planned for them.

It prints mean wait, makespan and the per-job response-time error (|sim - real| / real
response) and how many jobs start in the same second.

Run: .venv/bin/python benchmarks/slurm_validation.py [RUN ...]
"""

from __future__ import annotations

import gzip
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from coschedlab.api import simulate
from coschedlab.jobs import Workload
from coschedlab.platform import Cluster

DATA = Path(__file__).resolve().parent / "data" / "slurm"
SUBMIT_LAG = 0.03  # s: sbatch at offset + 0.02, registered ~0.03 s after the offset
RUN_OVERHEAD = 0.022  # s: median end_ms - start_ms - runtime in the reference logs


def read_run(name: str) -> tuple[np.ndarray, pd.DataFrame, dict[str, str]]:
    meta = dict(line.split("=", 1) for line in (DATA / f"{name}.meta").read_text().splitlines()
                if "=" in line)  # fmt: skip
    workload = meta.get("workload") or name.split("_")[0] + ".txt"
    rows = [ln.split() for ln in (DATA / workload).read_text().splitlines()
            if ln.strip() and not ln.startswith("#")]  # fmt: skip
    ref = pd.read_csv(DATA / f"{name}.csv").set_index("job_id")
    return np.array(rows, dtype=float), ref, meta


def pass_clock(name: str, t0: int, pattern: str) -> tuple[float, float] | None:
    """(period, phase) of the passes matching ``pattern`` in the run's slurmctld log, by least
    squares on the pass times relative to t0."""
    path = DATA / f"{name}.slurmctld.log.gz"
    if not path.is_file():
        return None
    times = []
    with gzip.open(path, "rt") as f:
        lines = f.readlines()
    for line in lines:
        if pattern in line:
            stamp = line[1:24]
            dt = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC)
            times.append(dt.timestamp() - t0)
    if len(times) < 3:
        return None
    t = np.array(times)
    t = t[t >= -5]
    gaps = np.diff(t)
    period = float(np.median(gaps))
    k = np.round((t - t[0]) / period)
    keep = np.abs(t - t[0] - k * period) < 0.5 * period  # one regular series (skip stalls)
    slope, icpt = np.polyfit(k[keep], t[keep], 1)
    phase = icpt % slope
    return float(slope), float(phase)


def settings(meta: dict[str, str]) -> dict[str, str]:
    return dict(kv.split("=", 1) if "=" in kv else (kv, "")
                for kv in meta["scheduler_parameters"].split(","))  # fmt: skip


def workload(a: np.ndarray, clocked: bool) -> Workload:
    n = len(a)
    submit = a[:, 0] + (SUBMIT_LAG if clocked else 0.0)
    run = a[:, 2] + (RUN_OVERHEAD if clocked else 0.0)
    limit = np.ceil(a[:, 3] / 60) * 60
    return Workload({"id": np.arange(1, n + 1), "submit": submit, "run": run,
                     "requested_time": limit, "procs": a[:, 1].astype(int)})  # fmt: skip


def compare(ref: pd.DataFrame, sim: pd.DataFrame, floor: bool) -> dict[str, float]:
    s = sim.set_index("job_id")
    start, end, sub = s["start"], s["end"], s["submit"]
    if floor:
        start, end, sub = np.floor(start), np.floor(end), np.floor(sub)
    resp_ref = ref["end"] - ref["submit"]
    err = ((end - sub) - resp_ref).abs() / resp_ref
    return {
        "mean_wait": float((start - sub).mean()),
        "makespan": float(end.max()),
        "resp_err_mean": float(err.mean() * 100),
        "resp_err_median": float(err.median() * 100),
        "same_second": int((start == ref["start"]).sum()),
    }


def evaluate(name: str) -> tuple[float, dict[str, dict[str, float]], tuple | None, tuple | None]:
    """Real mean wait, each model's figures, the fitted main and backfill clocks of one run."""
    from coschedlab.schedulers import Slurm, get_scheduler

    a, ref, meta = read_run(name)
    t0 = int(meta["t0"])
    sp = settings(meta)
    backfill = meta["scheduler"] == "sched/backfill"
    base = {"priority": "fifo", "bf_interval": float(sp.get("bf_interval", 30)),
            "bf_resolution": float(sp.get("bf_resolution", 60)),
            "bf_max_job_test": int(sp.get("bf_max_job_test", 10000)),
            "bf_window": float(sp.get("bf_window", 1440)), "backfill": backfill,
            "bf_job_part_count_reserve": int(sp["bf_job_part_count_reserve"])
            if "bf_job_part_count_reserve" in sp else None}  # fmt: skip
    textbook = "easy" if base["bf_job_part_count_reserve"] == 1 else "conservative"
    textbook = textbook if backfill else "fcfs"
    models = {f"{textbook} (textbook)": (textbook, False),
              "slurm, event driven": (base, False)}  # fmt: skip
    sched = pass_clock(name, t0, "Running job scheduler")
    bf = pass_clock(name, t0, "_attempt_backfill: beginning")
    if sched is not None:
        clocked = {**base, "sched_interval": sched[0], "sched_phase": sched[1]}
        if backfill and bf is not None:
            clocked.update(bf_interval=bf[0], bf_phase=bf[1])
        models["slurm, Slurm's clock"] = (clocked, True)
        models["slurm, clock + nodes"] = ({**clocked, "bf_nodes": True}, True)
    out = {}
    for label, (spec, clocked_run) in models.items():
        sch = Slurm(**spec) if isinstance(spec, dict) else get_scheduler(spec)
        jobs = simulate(workload(a, clocked_run), Cluster(16), sch).jobs
        out[label] = compare(ref, jobs, floor=clocked_run)
    ref_wait = float((ref["start"] - ref["submit"]).mean())
    return ref_wait, out, sched, bf


def noise(name: str) -> dict[str, float] | None:
    """The real Slurm against itself: run ``name`` and ``name_repeat`` (same workload, same
    settings), compared as a model is; None without a repeat."""
    if not (DATA / f"{name}_repeat.csv").is_file():
        return None
    a = pd.read_csv(DATA / f"{name}.csv").set_index("job_id")
    b = pd.read_csv(DATA / f"{name}_repeat.csv")
    return compare(a, b, floor=False)


def main(names: list[str]) -> None:
    names = names or sorted(p.stem for p in DATA.glob("*.meta") if not p.stem.endswith("_repeat"))
    print(f"{'run':<14} {'model':<26} {'mean wait':>9} {'err%':>6} {'makespan':>8} "
          f"{'resp err mean%':>14} {'median%':>7} {'same s':>6}")  # fmt: skip
    for name in names:
        ref_wait, models, sched, bf = evaluate(name)
        _, ref, _ = read_run(name)
        print(f"{name:<14} {'real Slurm 22.05':<26} {ref_wait:>9.1f} {'':>6} "
              f"{ref['end'].max():>8.0f}")  # fmt: skip
        for label, c in models.items():
            print(f"{'':<14} {label:<26} {c['mean_wait']:>9.1f} "
                  f"{100 * (c['mean_wait'] / ref_wait - 1):>+6.1f} {c['makespan']:>8.0f} "
                  f"{c['resp_err_mean']:>14.1f} {c['resp_err_median']:>7.1f} "
                  f"{c['same_second']:>4}/{len(ref)}")  # fmt: skip
        again = noise(name)
        if again is not None:
            c = again
            print(f"{'':<14} {'real Slurm, run again':<26} {c['mean_wait']:>9.1f} "
                  f"{100 * (c['mean_wait'] / ref_wait - 1):>+6.1f} {c['makespan']:>8.0f} "
                  f"{c['resp_err_mean']:>14.1f} {c['resp_err_median']:>7.1f} "
                  f"{c['same_second']:>4}/{len(ref)}")  # fmt: skip
        if sched is not None:
            print(
                f"{'':<14} clock: main every {sched[0]:.4f} s at +{sched[1]:.3f} s"
                + (f", backfill every {bf[0]:.4f} s at +{bf[1]:.3f} s" if bf else "")
            )


if __name__ == "__main__":
    main(sys.argv[1:])
