"""The real-Slurm validation set: make its workloads and run them on a real Slurm 22.05.

Twelve configurations on six workloads (50-400 jobs, 8-64 nodes), conservative
(``bf_job_part_count_reserve`` unset: every tested job reserves) and one-reservation
(``bf_job_part_count_reserve=1``) backfilling, FIFO (priority/basic) and multifactor
(priority/multifactor, job size favouring small jobs), each run twice to measure Slurm's own
run-to-run noise. The runs of workloads ``a8``, ``b16`` and ``c32`` are the FIT half (the
model's constants were chosen looking at them); ``d64``, ``e16`` and ``f32`` are HELD OUT (only
reported). Outputs go to ``benchmarks/data/slurm/`` (``NAME.csv``, ``.detail.csv``, ``.meta``,
``.slurmctld.log.gz``; the second run of each is ``NAME_repeat``).

Run (root, Debian bookworm; the emulator installs slurm-wlm if missing; several runs at once on
separate ports):

    .venv/bin/python benchmarks/slurm_campaign.py workloads      # write the workload files
    .venv/bin/python benchmarks/slurm_campaign.py run [NAME ...]  # run them (hours of wall time)

Workloads are seeded: same seed, same file.
"""

from __future__ import annotations

import gzip
import math
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "slurm"
#: the emulator (a checkout's sibling ``shared/tools``; ``SLURM_EMULATOR`` names another)
EMULATOR = Path(
    os.environ.get(
        "SLURM_EMULATOR",
        Path(__file__).resolve().parents[2] / "shared" / "tools" / "slurm_emulator.sh",
    )
)

#: the multifactor configuration (Slurm ignores PriorityWeightAge without SlurmDBD, so the
#: job-size factor decides; ties by job id). Passed as extra slurm.conf lines.
MULTIFACTOR = (
    "PriorityType=priority/multifactor",
    "PriorityWeightJobSize=1000",
    "PriorityFavorSmall=YES",
    "PriorityCalcPeriod=1",
)


@dataclass(frozen=True)
class Load:
    """A seeded workload: ``jobs`` jobs on ``nodes`` nodes, submitted over ``span`` s with an
    offered load of ``load`` (work / (nodes x span))."""

    name: str
    seed: int
    jobs: int
    nodes: int
    span: float
    load: float
    half: str  # "fit" or "held-out"


LOADS = {
    w.name: w
    for w in (
        Load("a8", 11, 60, 8, 360, 1.1, "fit"),
        Load("b16", 12, 100, 16, 360, 1.1, "fit"),
        Load("c32", 13, 150, 32, 360, 1.05, "fit"),
        Load("d64", 14, 250, 64, 360, 1.05, "held-out"),
        Load("e16", 15, 200, 16, 360, 1.15, "held-out"),
        Load("f32", 16, 80, 32, 360, 1.05, "held-out"),
    )
}

#: (run name, workload, reserve (0: every tested job, 1: one), multifactor, bf_interval)
RUNS = (
    ("a8_cons_fifo", "a8", 0, False, 1),
    ("a8_r1_fifo", "a8", 1, False, 1),
    ("b16_cons_mf", "b16", 0, True, 1),
    ("b16_r1_mf", "b16", 1, True, 1),
    ("c32_cons_fifo", "c32", 0, False, 1),
    ("c32_cons_mf_bf30", "c32", 0, True, 30),
    ("d64_r1_fifo", "d64", 1, False, 1),
    ("d64_r1_mf", "d64", 1, True, 1),
    ("e16_cons_fifo", "e16", 0, False, 1),
    ("e16_r1_mf", "e16", 1, True, 1),
    ("f32_r1_fifo_bf30", "f32", 1, False, 30),
    ("f32_cons_mf", "f32", 0, True, 1),
)


def make_workload(w: Load) -> list[tuple[float, int, float, float]]:
    """Jobs (offset, nodes, runtime, limit): Poisson arrivals over the span, sizes from one
    node to the whole machine (over half of them one or two nodes), log-normal runtimes of
    8-300 s, limits of 1-5 minutes above the runtime (no job reaches its limit)."""
    rng = np.random.default_rng(w.seed)
    n = w.jobs
    kind = rng.random(n)
    top = int(math.log2(w.nodes))
    nodes = np.where(
        kind < 0.55,
        rng.integers(1, 3, n),
        np.where(kind < 0.93, 2 ** rng.integers(1, max(2, top - 1), n), 0),
    )
    wide = nodes == 0
    nodes[wide] = rng.integers(w.nodes // 4, w.nodes // 2 + 1, wide.sum())
    nodes[rng.random(n) < 0.02] = w.nodes  # a few whole-machine jobs
    nodes = np.minimum(np.maximum(nodes, 1), w.nodes)
    runtime = rng.lognormal(math.log(40), 0.8, n)
    # the offered load fixes the work; scale runtimes to it (kept within 8-300 s)
    target = w.load * w.nodes * w.span
    runtime = np.clip(np.round(runtime * target / float((runtime * nodes).sum())), 8, 300)
    slack = rng.choice([0, 1, 1, 2, 4], n) * 60
    limit = (np.ceil((runtime + 10) / 60) * 60 + slack).astype(int)
    gaps = rng.exponential(w.span / n, n)
    offset = np.floor(np.cumsum(gaps) - gaps[0])
    return [(float(o), int(k), float(r), int(lim))
            for o, k, r, lim in zip(offset, nodes, runtime, limit, strict=True)]  # fmt: skip


def write_workloads() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for w in LOADS.values():
        jobs = make_workload(w)
        work = sum(k * r for _, k, r, _ in jobs)
        lines = [
            f"# slurm_campaign.py workload {w.name}: seed={w.seed} jobs={w.jobs} "
            f"nodes={w.nodes} span={w.span:g} load={w.load:g} ({w.half}); "
            f"work {work:.0f} node-s",
            "# submit_offset_s nodes runtime_s timelimit_s",
        ]
        lines += [f"{o:g} {k} {r:g} {lim}" for o, k, r, lim in jobs]
        (DATA / f"{w.name}.txt").write_text("\n".join(lines) + "\n")
        print(f"{w.name}: {len(jobs)} jobs, work {work:.0f} node-s "
              f"({work / w.nodes:.0f} s of the whole machine)")  # fmt: skip


def emulate(
    name: str,
    workload: Path,
    nodes: int,
    reserve: int,
    mf: bool,
    bf: int,
    half: str,
    slot: int,
    flag: bool = True,
) -> str:
    """Run ``workload`` on the emulator (``nodes`` nodes, ``bf_job_part_count_reserve``
    ``reserve``, multifactor or FIFO priority, ``bf_interval`` ``bf``; the port by ``slot``)
    and keep its outputs in ``DATA`` as run ``name`` of half ``half`` (the controller's log at
    debug level, with the Backfill debug flag when ``flag``, gzipped)."""
    work = Path(f"/tmp/slurmcamp_{name}")
    port = 16817 + 400 * slot
    cmd = ["bash", str(EMULATOR), "-I", "-n", str(nodes), "-w", str(work), "-b", str(bf),
           "-r", str(reserve), "-p", str(port), "-L", "debug"]  # fmt: skip
    if mf or flag:
        cmd += ["-F", "\n".join(("Backfill", *(MULTIFACTOR if mf else ())))]
    cmd += [str(workload), str(DATA / f"{name}.csv")]
    t = time.time()
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        return f"{name}: FAILED rc={res.returncode}: {res.stderr[-400:]}"
    meta = DATA / f"{name}.meta"
    extra = f"workload={workload.name}\nhalf={half}\n"
    if mf:
        extra += "priority=" + ",".join(MULTIFACTOR) + "\n"
    meta.write_text(meta.read_text() + extra)
    with open(work / "log" / "slurmctld.log", "rb") as src, \
            gzip.open(DATA / f"{name}.slurmctld.log.gz", "wb") as dst:  # fmt: skip
        shutil.copyfileobj(src, dst)
    shutil.rmtree(work, ignore_errors=True)
    return f"{name}: done in {time.time() - t:.0f} s"


def run_one(name: str, slot: int) -> str:
    """Run one configuration of the validation set on the emulator (port by slot)."""
    _, load, reserve, mf, bf = {r[0]: r for r in RUNS}[name.removesuffix("_repeat")]
    w = LOADS[load]
    return emulate(name, DATA / f"{load}.txt", w.nodes, reserve, mf, bf, w.half, slot, flag=mf)


def run(names: list[str], parallel: int = 4) -> None:
    todo = names or [r[0] for r in RUNS] + [r[0] + "_repeat" for r in RUNS]
    todo = [n for n in todo if not (DATA / f"{n}.csv").is_file()]
    print(f"{len(todo)} runs, {parallel} at a time", flush=True)
    slots = list(range(parallel))

    def job(name: str) -> str:
        slot = slots.pop()
        try:
            return run_one(name, slot)
        finally:
            slots.append(slot)

    with ThreadPoolExecutor(parallel) as pool:
        for msg in pool.map(job, todo):
            print(time.strftime("%T"), msg, flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["workloads"]:
        write_workloads()
    elif sys.argv[1:2] == ["run"]:
        run(sys.argv[2:])
    else:
        print(__doc__)
        sys.exit(2)
