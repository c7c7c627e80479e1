"""The ``slurm`` scheduler against a REAL Slurm 22.05 (prints figures; not a timed test).

Reference runs (``benchmarks/data/slurm/``) were made with ``shared/tools/slurm_emulator.sh``
(Debian's slurm-wlm 22.05.8, one slurmd per emulated node, whole nodes, jobs are
``sleep RUNTIME``): each job's integer submit, start and end times and the controller's log.

* The validation set (``benchmarks/slurm_campaign.py``): twelve configurations on six
  workloads (50-250 jobs, 8-64 nodes), conservative and one-reservation backfilling, FIFO and
  multifactor priority, each run twice. Workloads a8, b16 and c32 are the FIT half: the
  model's two constants (the submission lag and the per-job launch/completion overhead) are
  their medians, and the model was developed looking at them; d64, e16 and f32 are HELD OUT.
* The earlier runs w1, w2, w3 (16 nodes, FIFO) were used to develop the model: reported apart.

Each run is replayed through:

* the textbook policy of its configuration (``conservative``, ``easy`` or ``fcfs``);
* ``slurm`` with the run's settings, event driven (the WoAS studies' model);
* ``slurm`` as a real Slurm runs: the node-level backfill map (``bf_nodes``), Slurm's clock
  (the main scheduler every ``sched_interval``, the backfill thread every ``bf_interval``) at
  phases nobody can know in advance: the figures are the mean over a 3 x 3 grid of phases;
  submissions ``lag`` s after their offset, jobs ``overhead`` s longer than their sleep, times
  floored to whole seconds as Slurm records them;
* the same on the clock measured in the run's own log (a diagnostic: it needs the log).

Printed per run: mean wait and makespan errors against the real Slurm, the per-job response
error (mean |sim - real| / real response: "MAPE") and how many jobs start in the same second;
and the real Slurm against itself (the run repeated): the noise floor.

Run: .venv/bin/python benchmarks/slurm_validation.py [RUN ...] (or --markdown: the docs' table)
"""

from __future__ import annotations

import gzip
import math
import sys
import tempfile
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from coschedlab.api import simulate
from coschedlab.jobs import Workload
from coschedlab.platform import Cluster
from coschedlab.schedulers.slurm_conf import read_conf

DATA = Path(__file__).resolve().parent / "data" / "slurm"
PHASES = tuple((2 * k + 1) / 12 for k in range(6))  # the main pass's unknown phase (s)


def meta_of(name: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in (DATA / f"{name}.meta").read_text().splitlines()
                if "=" in line)  # fmt: skip


def read_run(name: str) -> tuple[np.ndarray, pd.DataFrame, dict[str, str]]:
    """The workload rows (offset, nodes, runtime, limit), the real times and the meta data."""
    meta = meta_of(name)
    workload = meta.get("workload") or name.split("_")[0] + ".txt"
    rows = [ln.split() for ln in (DATA / workload).read_text().splitlines()
            if ln.strip() and not ln.startswith("#")]  # fmt: skip
    ref = pd.read_csv(DATA / f"{name}.csv").set_index("job_id")
    return np.array(rows, dtype=float), ref, meta


def half(name: str) -> str:
    """``fit``, ``held-out`` or ``earlier`` (the w1-w3 runs the model was developed on)."""
    return meta_of(name).get("half", "earlier")


def runs(which: str | None = None, repeats: bool = True) -> list[str]:
    """The bundled runs (of one half), each run's repeat after it (``repeats``)."""
    names = sorted(p.stem for p in DATA.glob("*.meta"))
    names = [n for n in names if repeats or not n.endswith("_repeat")]
    return [n for n in names if which is None or half(n) == which]


@cache
def constants() -> tuple[float, float]:
    """(submission lag, run overhead): medians over the FIT half's logs of when Slurm
    registered each submission after its offset, and of end - start - sleep."""
    lag, over = [], []
    for name in runs("fit", repeats=False):
        d = pd.read_csv(DATA / f"{name}.detail.csv")
        lag += list(d["submit_ms"] - d["req_offset"])
        over += list(d["end_ms"] - d["start_ms"] - d["req_runtime"])
    return float(np.median(lag)), float(np.median(over))


@cache
def clock_constants() -> dict[str, float]:
    """Slurm's clock as the FIT half's logs show it (medians): the main scheduler's period, the
    backfill thread's period (``bf_interval`` 1 s and 30 s), how long before the main pass the
    backfill pass runs within a second (``lead``: both threads start with the daemon), and
    where the 30-s backfill cycle sits after t0 (the emulator starts the daemons ~2.5 s before
    t0)."""
    main, bf1, bf30, lead, at30 = [], [], [], [], []
    for name in runs("fit"):
        t0 = int(meta_of(name)["t0"])
        m = pass_clock(name, t0, "Running job scheduler")
        b = pass_clock(name, t0, "_attempt_backfill: beginning")
        if m is None or b is None:
            continue  # an info-level log: no passes in it
        main.append(m[0])
        (bf1 if b[0] < 2 else bf30).append(b[0])
        lead.append((m[1] - b[1] + 0.5) % 1.0 - 0.5)
        if b[0] >= 2:
            at30.append(math.floor(b[1]))
    return {"main": float(np.median(main)), "bf1": float(np.median(bf1)),
            "bf30": float(np.median(bf30)), "lead": float(np.median(lead)),
            "at30": float(np.median(at30))}  # fmt: skip


def real_clock(bf_interval: float, phase: float) -> dict[str, object]:
    """``slurm`` options for a real Slurm's clock with its main pass at ``phase`` past each
    second: node-level backfill map, the periods and the backfill lead of the fit half
    (:func:`clock_constants`)."""
    c = clock_constants()
    bf_phase = (phase - c["lead"]) % 1.0
    if bf_interval >= 2:
        period, bf_phase = c["bf30"] * bf_interval / 30, c["at30"] + bf_phase
    else:
        period = c["bf1"] * bf_interval
    return {"bf_nodes": True, "sched_interval": c["main"], "sched_phase": phase,
            "bf_interval": period, "bf_phase": bf_phase % period}  # fmt: skip


def pass_clock(name: str, t0: int, pattern: str) -> tuple[float, float] | None:
    """(period, phase) of the passes matching ``pattern`` in the run's slurmctld log, by least
    squares on the pass times relative to t0 (None when the log does not show them)."""
    path = DATA / f"{name}.slurmctld.log.gz"
    if not path.is_file():
        return None
    times = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if pattern in line:
                dt = datetime.strptime(line[1:24], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC)
                times.append(dt.timestamp() - t0)
    if len(times) < 3:
        return None
    t = np.array(times)
    t = t[t >= -5]
    period = float(np.median(np.diff(t)))
    k = np.round((t - t[0]) / period)
    keep = np.abs(t - t[0] - k * period) < 0.5 * period  # one regular series (skip stalls)
    slope, icpt = np.polyfit(k[keep], t[keep], 1)
    return float(slope), float(icpt % slope)


def settings(meta: dict[str, str]) -> dict[str, object]:
    """The run's Slurm configuration as ``slurm`` options (event driven, node-count map): the
    slurm.conf lines the emulator wrote that bear on scheduling, read by ``slurm:conf``'s own
    reader (Slurm's defaults where they are silent; PriorityWeightAge ignored without SlurmDBD,
    as slurmctld does)."""
    lines = [f"SchedulerType={meta['scheduler']}", "SelectType=select/linear",
             f"SchedulerParameters={meta['scheduler_parameters']}",
             *filter(None, meta.get("priority", "").split(","))]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        conf = Path(tmp) / "slurm.conf"
        conf.write_text("\n".join(lines) + "\n")
        return dict(read_conf(conf).options)


def textbook(opts: dict[str, object]) -> str:
    if not opts["backfill"]:
        return "fcfs"
    return "easy" if opts["bf_job_part_count_reserve"] == 1 else "conservative"


def workload(a: np.ndarray, clocked: bool) -> Workload:
    lag, over = constants() if clocked else (0.0, 0.0)
    n = len(a)
    return Workload({"id": np.arange(1, n + 1), "submit": a[:, 0] + lag, "run": a[:, 2] + over,
                     "requested_time": np.ceil(a[:, 3] / 60) * 60,
                     "procs": a[:, 1].astype(int)})  # fmt: skip


def compare(ref: pd.DataFrame, sim: pd.DataFrame, floor: bool) -> dict[str, float]:
    s = sim.set_index("job_id")
    start, end, sub = s["start"], s["end"], s["submit"]
    if floor:
        start, end, sub = np.floor(start), np.floor(end), np.floor(sub)
    resp_ref = ref["end"] - ref["submit"]
    err = ((end - sub) - resp_ref).abs() / resp_ref
    wait_ref = float((ref["start"] - ref["submit"]).mean())
    return {
        "mean_wait": float((start - sub).mean()),
        "wait_err": 100 * (float((start - sub).mean()) / wait_ref - 1),
        "makespan": float(end.max()),
        "makespan_err": 100 * (float(end.max()) / float(ref["end"].max()) - 1),
        "mape": float(err.mean() * 100),
        "median": float(err.median() * 100),
        "same_second": float((start == ref["start"]).sum()),
    }


def _mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}


def evaluate(name: str, log_clock: bool = True) -> dict[str, dict[str, float]]:
    """Each model's figures on one run (see the module docstring)."""
    from coschedlab.schedulers import Slurm, get_scheduler

    a, ref, meta = read_run(name)
    cluster = Cluster(int(meta["nodes"]))
    opts = settings(meta)
    out: dict[str, dict[str, float]] = {}
    book = textbook(opts)
    out[f"{book} (textbook)"] = compare(
        ref, simulate(workload(a, False), cluster, get_scheduler(book)).jobs, floor=False
    )
    out["slurm, event driven"] = compare(
        ref, simulate(workload(a, False), cluster, Slurm(**opts)).jobs, floor=False
    )
    grid = []
    for phase in PHASES:
        sch = Slurm(**{**opts, **real_clock(float(opts["bf_interval"]), phase)})
        grid.append(compare(ref, simulate(workload(a, True), cluster, sch).jobs, True))
    out["slurm, as a real Slurm"] = _mean(grid)
    if log_clock:
        t0 = int(meta["t0"])
        main = pass_clock(name, t0, "Running job scheduler")
        back = pass_clock(name, t0, "_attempt_backfill: beginning")
        if main is not None and (back is not None or not opts["backfill"]):
            clock = {**opts, "bf_nodes": True, "sched_interval": main[0], "sched_phase": main[1]}
            if back is not None:
                clock.update(bf_interval=back[0], bf_phase=back[1])
            out["slurm, its log's clock"] = compare(
                ref, simulate(workload(a, True), cluster, Slurm(**clock)).jobs, floor=True
            )
    return out


def noise(name: str) -> dict[str, float] | None:
    """The real Slurm against itself: ``name`` and ``name_repeat`` (same workload, same
    settings), compared as a model is; None without a repeat (and for a repeat)."""
    if name.endswith("_repeat") or not (DATA / f"{name}_repeat.csv").is_file():
        return None
    a = pd.read_csv(DATA / f"{name}.csv").set_index("job_id")
    b = pd.read_csv(DATA / f"{name}_repeat.csv")
    return compare(a, b, floor=False)


def _row(label: str, c: dict[str, float], n: int) -> str:
    return (f"  {label:<26} {c['wait_err']:>+7.1f} {c['makespan_err']:>+8.1f} "
            f"{c['mape']:>6.1f} {c['median']:>7.1f} {c['same_second']:>5.0f}/{n}")  # fmt: skip


def main(names: list[str]) -> None:
    names = names or runs()
    lag, over = constants()
    print(f"constants (fit half medians): submission lag {lag:.3f} s, run overhead {over:.3f} s")
    print(f"  {'model':<26} {'wait%':>7} {'makesp%':>8} {'MAPE%':>6} {'median%':>7} {'same s':>8}")
    by_half: dict[str, dict[str, list[dict[str, float]]]] = {}
    for name in names:
        a, ref, meta = read_run(name)
        wait = float((ref["start"] - ref["submit"]).mean())
        print(f"{name} ({half(name)}; {len(ref)} jobs on {meta['nodes']} nodes): real mean "
              f"wait {wait:.1f} s, makespan {ref['end'].max():.0f} s")  # fmt: skip
        models = evaluate(name)
        again = noise(name)
        if again is not None:
            models["real Slurm, run again"] = again
        for label, c in models.items():
            print(_row(label, c, len(ref)))
            key = "textbook policy" if "textbook" in label else label
            by_half.setdefault(half(name), {}).setdefault(key, []).append(
                {k: abs(v) if k.endswith("err") else v for k, v in c.items()}
            )
    print("\nmeans over runs (|wait err|, |makespan err|, MAPE):")
    for h, models in by_half.items():
        print(f"{h}:")
        for label, rows in models.items():
            m = _mean(rows)
            print(f"  {label:<26} {m['wait_err']:>7.1f} {m['makespan_err']:>8.1f} "
                  f"{m['mape']:>6.1f}   ({len(rows)} runs)")  # fmt: skip


def markdown() -> None:
    """The docs' table: per configuration, each model's per-job response error (MAPE) and mean
    wait error against each of the two real runs, and the real Slurm against itself."""
    cols = ("textbook", "slurm, event driven", "slurm, as a real Slurm")
    print("| configuration | half | jobs x nodes | real mean wait | " + " | ".join(cols)
          + " | real Slurm, run again |")  # fmt: skip
    print("|---" * (5 + len(cols)) + "|")
    for name in runs(repeats=False):
        pair = [n for n in (name, f"{name}_repeat") if (DATA / f"{n}.meta").is_file()]
        figs = []
        for n in pair:
            models = evaluate(n, log_clock=False)
            models["textbook"] = next(v for k, v in models.items() if "textbook" in k)
            figs.append(models)
        _, ref, meta = read_run(name)
        wait = " / ".join(f"{float((r['start'] - r['submit']).mean()):.1f}"
                          for r in (read_run(n)[1] for n in pair))  # fmt: skip
        cells = [" / ".join(f"{f[c]['mape']:.1f}% ({f[c]['wait_err']:+.1f}%)" for f in figs)
                 for c in cols]  # fmt: skip
        again = noise(name)
        cells.append("-" if again is None
                     else f"{again['mape']:.1f}% ({again['wait_err']:+.1f}%)")  # fmt: skip
        print(
            f"| {name} | {half(name)} | {len(ref)} x {meta['nodes']} | {wait} s | "
            + " | ".join(cells)
            + " |"
        )


if __name__ == "__main__":
    if sys.argv[1:] == ["--markdown"]:
        markdown()
    else:
        main(sys.argv[1:])
