"""Scaling of the batch core: synthetic 10k, 100k and 1M jobs on 100,000 nodes under EASY.

Usage::

    .venv/bin/python benchmarks/bench_scaling.py [--quick] [--sizes 10000,100000,...]
                                                 [--nodes 100000] [--load 0.9] [--seed 0]

Each size runs in its own child process (a fresh interpreter, so peak memory is that size's
own): it generates the workload with :func:`coschedlab.workload.synthetic.synthetic_workload`
(seed 0, offered load 0.9 on ``--nodes`` one-core nodes; see that module for the model), then
calls ``coschedlab.simulate(workload, Cluster(nodes), "easy")``. The child reports

* ``sim s``: ``Result.wall_time``, the event loop only;
* ``total s``: the whole ``simulate()`` call (kernel set-up + run + the per-job result table),
  and ``cpu s`` its CPU time (the better guide on a shared machine);
* jobs/s and days of simulated makespan per wall-clock hour, both from ``sim s``;
* peak RSS: the child's own ``getrusage(RUSAGE_SELF).ru_maxrss`` at the end (the whole
  process: interpreter, NumPy/pandas, workload, simulation state and result table), and the
  RSS right after the imports for reference;

and the parent prints the growth exponent between consecutive sizes,
``log(t2 / t1) / log(n2 / n1)``, next to the exponent n log n would give,
``log(n2 log n2 / (n1 log n1)) / log(n2 / n1)``.

Targets (the issue): 1M jobs in under 90 s and 2 GB, time growing no worse than about n log n.
``--quick`` runs 10k and 100k only.

``--command N`` (issue 31's target for the whole command) measures instead the whole
``coschedlab simulate FILE -s easy --out DIR`` on N synthetic jobs (default 1,000,000) written
once as SWF to a temporary folder, as a fresh process, against the whole C program of
``textbook_easy.c`` (parse its text input + simulate; ``cc -O2``) on the same jobs: CPU time
(user + system) and peak RSS of each process (``os.wait4``), best of ``--repeat``, and the
ratios (targets: command <= 5x the C program's CPU, peak RSS <= 300 MB). ``--before SRC``
also runs the command with ``PYTHONPATH=SRC`` (another tree's ``src``, e.g. main's),
alternately with this tree's, so that before and after come from the same run.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

from _bench_common import byte_compile, machine_line

TARGET_1M_S = 90.0
TARGET_COMMAND_RATIO = 5.0
TARGET_COMMAND_MB = 300.0
ROOT = Path(__file__).resolve().parents[1]
TARGET_1M_MB = 2048.0
SLACK = 0.15  # allowed exponent above n log n's before we call it worse than n log n


def child(n: int, nodes: int, load: float, seed: int) -> None:
    t0 = time.perf_counter()
    import numpy as np  # noqa: F401

    import coschedlab
    from coschedlab.platform import Cluster
    from coschedlab.workload.synthetic import offered_load, synthetic_workload

    import_s = time.perf_counter() - t0
    rss_imports = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    w = synthetic_workload(n, nodes, seed=seed, load=load)
    gen_s = time.perf_counter() - t0
    c0, t0 = time.process_time(), time.perf_counter()
    r = coschedlab.simulate(w, Cluster(nodes), "easy")
    total_s = time.perf_counter() - t0
    cpu_s = time.process_time() - c0
    m = r.metrics
    out = {
        "n": n,
        "import_s": import_s,
        "gen_s": gen_s,
        "sim_s": r.wall_time,
        "total_s": total_s,
        "cpu_s": cpu_s,
        "passes": r.passes,
        "makespan_days": m["makespan"] / 86400,
        "days_per_hour": m["days_per_hour"],
        "jobs_per_s": m["jobs_per_s"],
        "utilization": m["utilization"],
        "wait_mean_h": m["wait_mean"] / 3600,
        "offered_load": offered_load(w, nodes),
        "rss_imports_mb": rss_imports,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(json.dumps(out))


def _run(cmd: list[str], stdin: Path | None = None, env: dict | None = None) -> tuple[float, float]:
    """(CPU seconds, peak RSS MB) of one fresh process running ``cmd`` (its own rusage)."""
    import os

    with open(stdin or os.devnull, "rb") as f:
        proc = subprocess.Popen(cmd, stdin=f, stdout=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed with exit code {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def write_inputs(folder: Path, n: int, nodes: int, load: float, seed: int) -> None:
    """``w.swf`` (the synthetic workload as SWF) and ``c.txt`` (the C program's input: the
    same jobs in queue order, whole nodes) in ``folder``."""
    import numpy as np

    from coschedlab.workload.swf import write_workload_swf
    from coschedlab.workload.synthetic import synthetic_workload

    w = synthetic_workload(n, nodes, seed=seed, load=load)
    write_workload_swf(folder / "w.swf", w)
    c = w.columns
    order = np.lexsort((c["id"], c["submit"]))
    rows = np.column_stack([c["submit"][order], c["run"][order],
                            c["requested_time"][order], c["procs"][order]])  # fmt: skip
    with open(folder / "c.txt", "w") as f:
        f.write(f"{n} {nodes}\n")
        np.savetxt(f, rows, fmt=["%.17g", "%.17g", "%.17g", "%d"])


def command(n: int, nodes: int, load: float, seed: int, repeat: int, before: Path | None) -> None:
    """The whole ``simulate`` command on ``n`` jobs against the whole C program."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench_scaling_") as tmp:
        t = Path(tmp)
        # the inputs are made by a child: a child's peak RSS counts its parent's memory from
        # before its exec (fork), so this process stays small
        subprocess.run([sys.executable, __file__, "--write-inputs", tmp, "--nodes", str(nodes),
                        "--load", str(load), "--seed", str(seed), "--sizes", str(n)],
                       check=True)  # fmt: skip
        exe = t / "textbook_easy"
        subprocess.run(["cc", "-O2", "-o", exe, Path(__file__).with_name("textbook_easy.c"),
                        "-lm"], check=True)  # fmt: skip
        coschedlab = ROOT / ".venv" / "bin" / "coschedlab"
        trees = {"command": os.environ.get("PYTHONPATH")}
        for src in [ROOT / "src"] + ([before] if before is not None else []):
            byte_compile(src)
        if before is not None:
            trees = {"command (before)": str(before), "command": trees["command"]}
        best: dict[str, list[float]] = {k: [math.inf, math.inf] for k in ("C program", *trees)}
        for _ in range(repeat):  # alternately, so that all see the same load
            cpu, mb = _run([str(exe)], stdin=t / "c.txt")
            best["C program"] = [min(best["C program"][0], cpu), min(best["C program"][1], mb)]
            for name, path in trees.items():
                env = dict(os.environ)
                if path:
                    env["PYTHONPATH"] = path
                cmd = [str(coschedlab), "simulate", str(t / "w.swf"), "-s", "easy",
                       "--out", str(t / "out"), "--force"]  # fmt: skip
                cpu, mb = _run(cmd, env=env)
                best[name] = [min(best[name][0], cpu), min(best[name][1], mb)]
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    c_cpu = best["C program"][0]
    print(f"whole programs on {n:,} jobs, {nodes:,} nodes, EASY (best of {repeat}, CPU = user + "
          "system):")  # fmt: skip
    for name, (cpu, mb) in best.items():
        ratio = "" if name == "C program" else f"  {cpu / c_cpu:6.1f}x the C program"
        print(f"  {name:<18}{cpu:8.2f} s CPU {mb:8,.0f} MB peak RSS{ratio}")
    print(f"  (a peak RSS is at least this script's own, {own:,.0f} MB: a child counts its "
          "parent's memory until its exec)")  # fmt: skip
    cpu, mb = best["command"]
    print(
        f"target: command <= {TARGET_COMMAND_RATIO:g}x the C program -> "
        f"{'MET' if cpu / c_cpu <= TARGET_COMMAND_RATIO else 'MISSED'}; peak RSS <= "
        f"{TARGET_COMMAND_MB:g} MB -> {'MET' if mb <= TARGET_COMMAND_MB else 'MISSED'}"
    )


def nlogn_exponent(n1: int, n2: int) -> float:
    return math.log((n2 * math.log(n2)) / (n1 * math.log(n1))) / math.log(n2 / n1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="10k and 100k only")
    ap.add_argument("--sizes", type=str, default=None, help="comma-separated job counts")
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=1800.0, help="per size, seconds")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--command", type=int, nargs="?", const=1_000_000, default=None,
                    help="the whole simulate command on N jobs (default 1M) against the C "
                    "program")  # fmt: skip
    ap.add_argument("--repeat", type=int, default=3, help="with --command")
    ap.add_argument("--before", type=Path, default=None, help="with --command: another src")
    ap.add_argument("--write-inputs", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.write_inputs is not None:
        write_inputs(args.write_inputs, int(args.sizes), args.nodes, args.load, args.seed)
        return 0
    if args.command is not None:
        print(f"# bench_scaling --command: {machine_line()}")
        command(args.command, args.nodes, args.load, args.seed, args.repeat, args.before)
        return 0
    if args.child is not None:
        child(args.child, args.nodes, args.load, args.seed)
        return 0
    if args.sizes:
        sizes = [int(s.replace("_", "")) for s in args.sizes.split(",")]
    else:
        sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    print(
        f"# bench_scaling: synthetic workloads, EASY, {args.nodes:,} one-core nodes, "
        f"offered load {args.load}, seed {args.seed}"
    )
    print(f"# {machine_line()}")
    print(
        f"{'jobs':>10}{'gen s':>8}{'sim s':>9}{'total s':>9}{'cpu s':>8}{'jobs/s':>10}"
        f"{'days/hour':>11}{'peak RSS MB':>13}{'(imports)':>10}{'util':>7}{'wait h':>8}"
    )
    rows = []
    for n in sizes:
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            str(n),
            "--nodes",
            str(args.nodes),
            "--load",
            str(args.load),
            "--seed",
            str(args.seed),
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"{n:>10,}  did not finish within {args.timeout:.0f} s")
            break
        if proc.returncode != 0:
            print(f"{n:>10,}  failed:\n{proc.stderr}")
            return 1
        d = json.loads(proc.stdout.strip().splitlines()[-1])
        rows.append(d)
        print(
            f"{n:>10,}{d['gen_s']:>8.2f}{d['sim_s']:>9.2f}{d['total_s']:>9.2f}{d['cpu_s']:>8.2f}"
            f"{d['jobs_per_s']:>10,.0f}{d['days_per_hour']:>11,.0f}{d['peak_rss_mb']:>13,.0f}"
            f"{d['rss_imports_mb']:>10,.0f}{d['utilization']:>7.3f}{d['wait_mean_h']:>8.2f}",
            flush=True,
        )
    print()
    for a, b in zip(rows, rows[1:], strict=False):
        n1, n2 = a["n"], b["n"]
        ref = nlogn_exponent(n1, n2)
        exps = {k: math.log(b[k] / a[k]) / math.log(n2 / n1) for k in ("sim_s", "total_s", "cpu_s")}

        def verdict(e: float, ref: float = ref) -> str:
            return "no worse than n log n" if e <= ref + SLACK else "WORSE than n log n"

        print(
            f"growth {n1:,} -> {n2:,}: exponent {exps['sim_s']:.2f} (sim s), "
            f"{exps['total_s']:.2f} (total s), {exps['cpu_s']:.2f} (cpu s); n log n gives "
            f"{ref:.2f} -> by wall time {verdict(exps['sim_s'])}, by CPU time "
            f"{verdict(exps['cpu_s'])}"
        )
    big = [d for d in rows if d["n"] == 1_000_000]
    if big:
        d = big[0]

        def met(ok: bool) -> str:
            return "MET" if ok else "MISSED"

        print(
            f"1M jobs: sim {d['sim_s']:.1f} s, total {d['total_s']:.1f} s "
            f"(CPU {d['cpu_s']:.1f} s), "
            f"peak RSS {d['peak_rss_mb']:,.0f} MB; target < {TARGET_1M_S:.0f} s -> "
            f"{met(d['total_s'] < TARGET_1M_S)} by wall time, {met(d['cpu_s'] < TARGET_1M_S)} "
            f"by CPU time; target < {TARGET_1M_MB:.0f} MB -> {met(d['peak_rss_mb'] < TARGET_1M_MB)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
