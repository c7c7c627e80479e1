"""Regenerate the ELiSE golden files: run ELiSE itself on every case of ``cases/``.

Run with the Python of a virtual environment of ELiSE's own (not coschedlab's), against a
checkout of ELiSE (github.com/nikosT/elise, HEAD 70efef0), outside this repository::

    git clone https://github.com/nikosT/elise /tmp/elise        # or the mirror
    python3 -m venv /tmp/elise-venv
    /tmp/elise-venv/bin/pip install numpy==2.2.6 procset==1.0 pyyaml plotly==6.1.2 \
        psutil tabulate pandas==2.3.0 pymongo
    /tmp/elise-venv/bin/python tests/coloc/elise/regenerate.py --elise /tmp/elise

This file holds none of ELiSE's code: it imports ELiSE's modules and drives them the way
ELiSE's batch runner does (``framework/batch/run_utils.single_simulation``: BatchCreator builds
every (input, scheduler) run from the experiment file, then ``compengine.sim_step`` until every
queue is empty), without the progress server's TCP socket. Two things are set from outside:

* ELiSE at HEAD cannot read its own published pools: ``Load.from_json`` requires
  ``spread_timelogs``, which they lack. The load reader is wrapped to add an empty list when
  the key is missing (the two-line fix ``repres.get("spread_timelogs", [])``).
* ELiSE's generators seed NumPy and ``random`` from ``time.time_ns()``. Here the generators
  read a clock that starts at the case's ``seed`` and advances by one at every read, so a case
  is reproducible; ``coschedlab elise run --seed`` gives its generators the same clock.

For every case folder ``cases/NAME/`` (its ``experiment.yaml`` is an unchanged ELiSE
experiment file; paths in it are relative to that folder) this writes, in that folder:

* ``workload-I.csv``: input I's jobs as ELiSE generated them, in ELiSE's own workload layout
  (``Logger.get_workload`` columns, readable by its List Generator);
* ``elise-I-S.csv``: ELiSE's schedule of input I under scheduler S (``S`` = index in the
  file): job id, name, submit, start, finish (``repr`` floats from ELiSE's event logger),
  processors, host intervals, cores per host, and whether ELiSE aborted the job at its
  walltime;
* ``workloads/sim_*_input_*_scheduler_*.csv``: for cases with ``keep_elise_csv: true`` in
  ``cases.yaml``, ELiSE's own ``get_workload`` output, byte for byte;
* ``timing.json``: CPU seconds of each simulation loop (``benchmarks/bench_elise.py``).
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def install_clock(elise_root: Path, seed: int) -> list[int]:
    """Make ``time.time_ns`` read a counter from ``seed`` when ELiSE's generators call it.

    Must run before ELiSE's modules import ``time_ns``. Returns the counter (a one-item list).
    """
    real = time.time_ns
    gen_dir = str(elise_root / "framework" / "realsim" / "generators")
    counter = [seed]

    def clock() -> int:
        caller = sys._getframe(1).f_code.co_filename
        if caller.startswith(gen_dir):
            value = counter[0]
            counter[0] += 1
            return value
        return real()

    time.time_ns = clock
    return counter


def import_elise(elise_root: Path):
    """Import ELiSE's batch creator and its pool reader, the pool reader fixed (module doc)."""
    sys.path.insert(0, str(elise_root))
    sys.path.insert(0, str(elise_root / "framework"))
    from api.loader import load as load_mod  # noqa: PLC0415

    original = load_mod.Load.from_json.__func__

    def from_json(cls, json_repres):
        repres = json.loads(json_repres)
        repres.setdefault("spread_timelogs", [])
        return original(cls, json.dumps(repres))

    load_mod.Load.from_json = classmethod(from_json)
    from batch.batch_utils import BatchCreator  # noqa: PLC0415

    return BatchCreator


def intervals(ids: list[int]) -> str:
    """Sorted ids as ``a-b`` runs joined by spaces (ELiSE host ids from 0)."""
    out, ids = [], sorted(ids)
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return " ".join(out)


WORKLOAD_HEADER = (
    "Job Number,Submit Time,Wait Time,Run Time,Number of Allocated Processors,"
    "Average CPU Time Used,Used Memory,Requested Number of Processors,Requested Time,"
    "Requested Memory,Status,User ID,Group ID,Executable Number,Queue Number,"
    "Partition Number,Preceding Job Number,Think Time from Preceding Job,Assigned Processors"
)


def write_workload(path: Path, jobs) -> None:
    """The jobs of one input, as ELiSE set them up (ids from 0 in submit order, submit times
    shifted to start at 0), in ELiSE's workload layout: what its List Generator reads."""
    lines = [WORKLOAD_HEADER]
    for job in jobs:
        lines.append(
            f"{job.job_id},{float(job.submit_time)!r},,{float(job.remaining_time)!r},,,,"
            f"{job.num_of_processes},{float(job.wall_time)!r},,1,,,{job.job_name},,,,,"
        )
    path.write_text("\n".join(lines) + "\n")


def run_case(
    case_dir: Path, seed: int, keep_csv: bool, BatchCreator, counter, write: bool = True
) -> dict:
    """Run ELiSE on ``case_dir/experiment.yaml`` (cwd = the case folder) and write its files
    (``write=False``: only time the runs, for ``benchmarks/bench_elise.py``)."""
    counter[0] = seed
    cwd = os.getcwd()
    os.chdir(case_dir)
    try:
        creator = BatchCreator("experiment.yaml")
        creator.create_ranks()
        timing = {}
        written_inputs = set()
        for rank in creator.ranks:
            (
                sim_idx,
                inp_idx,
                sched_idx,
                database,
                cluster,
                scheduler,
                evt_logger,
                compeng,
                actions,
                _,
            ) = rank
            if write and inp_idx not in written_inputs:
                write_workload(Path(f"workload-{inp_idx}.csv"), database.preloaded_queue)
                written_inputs.add(inp_idx)
            compeng.debug_logger = logging.getLogger("elise.compengine")
            cluster.setup()
            scheduler.setup()
            evt_logger.setup()
            aborted = {}
            clean = compeng.clean_job_from_hosts

            def clean_and_note(job, _clean=clean, _aborted=aborted):
                _aborted[job.get_signature()] = int(job.current_state == 4)  # JobState.ABORTED
                return _clean(job)

            compeng.clean_job_from_hosts = clean_and_note
            steps = 0
            t0 = time.process_time()
            while database.preloaded_queue or cluster.waiting_queue or cluster.execution_list:
                compeng.sim_step()
                steps += 1
                if steps > 10_000_000:
                    raise RuntimeError(f"{case_dir.name}: ELiSE did not finish")
            cpu = time.process_time() - t0
            timing[f"{inp_idx}-{sched_idx}"] = {
                "scheduler": scheduler.name,
                "cpu_s": cpu,
                "steps": steps,
                "jobs": len(evt_logger.job_events),
                "makespan": cluster.makespan,
            }
            if not write:
                continue
            cpn = sum(cluster.socket_conf)
            rows = []
            for sig, ev in evt_logger.job_events.items():
                jid, name = sig.split(":", 1)
                hosts = sorted(int(h.replace("host", "")) for h in ev["hosts"])
                procs = len(ev["assigned procs"])
                rows.append(
                    [
                        jid,
                        name,
                        repr(float(ev["submit time"])),
                        repr(float(ev["start time"])),
                        repr(float(ev["finish time"])),
                        ev["num of processes"],
                        intervals(hosts),
                        procs // len(hosts) if hosts else 0,
                        aborted.get(sig, 0),
                    ]
                )
                assert not hosts or procs % len(hosts) == 0 and procs // len(hosts) <= cpn
            with open(f"elise-{inp_idx}-{sched_idx}.csv", "w", newline="") as fd:
                w = csv.writer(fd, lineterminator="\n")
                w.writerow(
                    [
                        "job",
                        "app",
                        "submit",
                        "start",
                        "finish",
                        "procs",
                        "hosts",
                        "cores_per_host",
                        "aborted",
                    ]
                )
                w.writerows(rows)
            if keep_csv:
                out = Path("workloads")
                out.mkdir(exist_ok=True)
                text = type(evt_logger).get_workload(evt_logger)
                name = f"sim_{sim_idx}_input_{inp_idx}_scheduler_{sched_idx}.csv"
                (out / name).write_text(text)
            print(
                f"  {case_dir.name}: input {inp_idx} {scheduler.name}: {cpu:.2f} s CPU, "
                f"makespan {cluster.makespan:.1f} s",
                file=sys.stderr,
                flush=True,
            )
        if write:
            Path("timing.json").write_text(json.dumps(timing, indent=1) + "\n")
        return timing
    finally:
        os.chdir(cwd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elise", required=True, type=Path, help="ELiSE checkout (HEAD 70efef0)")
    parser.add_argument("--only", action="append", help="case name (repeatable)")
    parser.add_argument(
        "--timing-only",
        type=Path,
        metavar="JSON",
        help="write nothing but the CPU seconds of every run to JSON",
    )
    args = parser.parse_args()
    import yaml  # ELiSE's environment has PyYAML

    cases = yaml.safe_load((HERE / "cases.yaml").read_text())
    elise = args.elise.resolve()
    counter = install_clock(elise, 0)
    BatchCreator = import_elise(elise)
    timings = {}
    for name, case in cases.items():
        if args.only and name not in args.only:
            continue
        timings[name] = run_case(
            HERE / "cases" / name,
            int(case["seed"]),
            bool(case.get("keep_elise_csv")),
            BatchCreator,
            counter,
            write=args.timing_only is None,
        )
    if args.timing_only is not None:
        args.timing_only.write_text(json.dumps(timings, indent=1) + "\n")


if __name__ == "__main__":
    main()
