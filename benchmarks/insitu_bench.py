"""In situ ensembles: SimGrid simulation speed (prints figures; not a timed unit test).

1. The reference configuration (S=4, A=4/sim, V=4 GB, N=16, 100 steps) for every scenario,
   with the default ``activities`` engine (compiled, the authors' job manager) and ``ptask``
   (target: < 5 s; the default at most 2x ``ptask``).
2. Time per configuration as S x A and N grow (IDEAL, INCREASING-50, IN-TRANSIT; CO/CO), both
   engines, and their ratio.
3. ``--golden``: the 22 plans of tests/insitu/data/authors_simulator_runs.csv, both engines
   and the Python engine the compiled one replaced (tests/insitu/activities_oracle.py).
4. An estimate of the whole ``insitu reproduce --trials 5`` with the default engine.
5. ``--baseline SRC`` (this section only): the default engine of another source tree
   (``SRC/src``, e.g. a git worktree of an older commit, built in place) against this one,
   the two interleaved plan by plan: CPU seconds of the SimGrid run (in a fresh interpreter,
   so machine load does not count) and how far the makespans moved (N=16-128; with
   ``--golden`` the 22 golden plans too).

Every time is a whole run (plan + fresh SimGrid process), best of ``--repeat`` (default 1),
the engines interleaved so that they see the same machine load.

Run: .venv/bin/python benchmarks/insitu_bench.py [--quick] [--golden] [--repeat K]
[--baseline SRC]
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from coschedlab.insitu.mapping import SCENARIOS
from coschedlab.insitu.plan import make_plan
from coschedlab.insitu.reproduce import build_tasks
from coschedlab.insitu.simulate import simulate
from coschedlab.insitu.spec import generate_ensemble

TESTS = Path(__file__).resolve().parents[1] / "tests" / "insitu"
ENGINES = ("activities", "ptask")


def timed(plan, engine: str, repeat: int = 1) -> tuple[float, float]:
    """(best wall time of ``repeat`` runs of ``simulate`` in a fresh process, makespan)."""
    best, mk = float("inf"), 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        mk = simulate(plan, "paper", engine).makespan
        best = min(best, time.perf_counter() - t0)
    return best, mk


def timed_oracle(plan, repeat: int = 1) -> tuple[float, float]:
    """The Python engine the compiled ``activities`` replaced (literal comm messages)."""
    sys.path.insert(0, str(TESTS))
    from activities_oracle import run_in_child

    best, mk = float("inf"), 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        mk = run_in_child(plan).makespan
        best = min(best, time.perf_counter() - t0)
    return best, mk


#: run in a fresh interpreter on a given source tree: CPU seconds and makespan of one run
_CHILD = """
import json, sys, time
from coschedlab.insitu.plan import make_plan
from coschedlab.insitu.simulate import simulate
from coschedlab.insitu.spec import generate_ensemble
s, a, v, n, seed, steps, sc, node, core = json.loads(sys.argv[1])
plan = make_plan(generate_ensemble(s, a, v, n, seed=seed, steps=steps), sc, node, core)
c0 = time.process_time()
mk = simulate(plan, in_process=True).makespan
print(json.dumps([time.process_time() - c0, mk]))
"""


def cpu_run(src: Path, plan_args: list) -> tuple[float, float]:
    """(CPU seconds, makespan) of the default engine of source tree ``src`` on one plan."""
    env = dict(os.environ, PYTHONPATH=str(src / "src"))
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(plan_args)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    cpu, mk = json.loads(out.strip().splitlines()[-1])
    return cpu, mk


def against_baseline(src: Path, with_golden: bool, repeat: int) -> None:
    """Section 5: this tree's default engine against ``src``'s, interleaved plan by plan."""
    here = Path(__file__).resolve().parents[1]
    print(f"\n5. default engine, CPU s of the SimGrid run: {src} (before) / this tree (after)")
    plans = [
        [s, a, 4.0, n, 0, 100, sc, None, None]
        for s, a, n in ((4, 4, 16), (4, 4, 64), (8, 4, 64), (4, 4, 128))
        for sc in ("ideal", "increasing-50", "in-transit")
    ]
    if with_golden:
        with (TESTS / "data" / "authors_simulator_runs.csv").open() as f:
            plans += [
                [int(r["S"]), int(r["A"]), float(r["V"]), int(r["N"]), int(r["seed"]),
                 int(r["steps"]), r["scenario"], r["node"], r["core"]]
                for r in csv.DictReader(f)
            ]  # fmt: skip
    print(f"{'S A V N seed steps scenario node core':<44}{'before':>8}{'after':>8}{'ratio':>7}"
          f"{'makespan moved':>16}")  # fmt: skip
    tot = [0.0, 0.0]
    for args in plans:
        b = min((cpu_run(src, args) for _ in range(repeat)), key=lambda x: x[0])
        a = min((cpu_run(here, args) for _ in range(repeat)), key=lambda x: x[0])
        tot[0] += b[0]
        tot[1] += a[0]
        label = " ".join(str(x) for x in args if x is not None)
        print(f"{label:<44}{b[0]:>8.2f}{a[0]:>8.2f}{b[0] / a[0]:>7.2f}{a[1] / b[1] - 1:>+16.1e}")
    print(f"{'total':<44}{tot[0]:>8.2f}{tot[1]:>8.2f}{tot[0] / tot[1]:>7.2f}")


def golden(repeat: int) -> None:
    print("\n3. the 22 golden plans (tests/insitu/data/authors_simulator_runs.csv), wall s")
    print(
        f"{'S A V N scenario node core seed steps':<42}{'default':>8}{'ptask':>7}{'ratio':>6}"
        f"{'python':>7}{'dev %':>7}"
    )
    with (TESTS / "data" / "authors_simulator_runs.csv").open() as f:
        rows = list(csv.DictReader(f))
    tot = {"activities": 0.0, "ptask": 0.0, "python": 0.0}
    worst = 0.0
    for r in rows:
        ens = generate_ensemble(
            int(r["S"]),
            int(r["A"]),
            float(r["V"]),
            int(r["N"]),
            seed=int(r["seed"]),
            steps=int(r["steps"]),
        )
        plan = make_plan(ens, r["scenario"], r["node"], r["core"])
        t = {e: timed(plan, e, repeat) for e in ENGINES}
        py = timed_oracle(plan, repeat)
        for e in ENGINES:
            tot[e] += t[e][0]
        tot["python"] += py[0]
        dev = 100 * (t["activities"][1] / float(r["authors_wrench"]) - 1)
        worst = max(worst, abs(dev))
        label = " ".join(r[k] for k in ("S", "A", "V", "N", "scenario", "node", "core"))
        label += f" {r['seed']} {r['steps']}"
        ratio = t["activities"][0] / t["ptask"][0]
        print(
            f"{label:<42}{t['activities'][0]:>8.2f}{t['ptask'][0]:>7.2f}{ratio:>6.2f}"
            f"{py[0]:>7.2f}{dev:>+7.2f}"
        )
    print(
        f"{'total':<42}{tot['activities']:>8.2f}{tot['ptask']:>7.2f}"
        f"{tot['activities'] / tot['ptask']:>6.2f}{tot['python']:>7.2f}"
        f"  (default vs the authors' WRENCH: worst {worst:.2f}%)"
    )


def main() -> None:
    quick = "--quick" in sys.argv
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 1
    if "--baseline" in sys.argv:
        src = Path(sys.argv[sys.argv.index("--baseline") + 1]).resolve()
        against_baseline(src, "--golden" in sys.argv, repeat)
        return
    ens = generate_ensemble(4, 4, 4.0, 16, seed=0)
    print("1. reference configuration S=4, A=4/sim, V=4 GB, N=16, 100 steps (paper layout)")
    print(
        f"{'scenario':<15}{'default s':>10}{'ptask s':>9}{'ratio':>7}{'simulated':>11}{'ptask':>9}"
    )
    for sc in SCENARIOS:
        plan = make_plan(ens, sc)
        (ta, ma), (tp, mp_) = (timed(plan, e, repeat) for e in ENGINES)
        print(f"{sc:<15}{ta:>10.2f}{tp:>9.2f}{ta / tp:>7.2f}{ma:>11.1f}{mp_:>9.1f}")
    print("\n2. time per configuration, default / ptask (plan + fresh SimGrid process), wall s")
    print(f"{'S':>3}{'A/sim':>6}{'N':>5}{'comps':>6}  {'ideal':>11}  {'inc-50':>11}  {'in-tr':>11}")
    grid = [
        (4, 4, 16),
        (4, 4, 64),
        (4, 4, 128),
        (8, 4, 64),
        (16, 4, 64),
        (32, 4, 64),
        (4, 8, 16),
        (4, 16, 16),
        (4, 32, 16),
    ]
    per_comp, ratios = [], []
    for s, a, n in grid[:4] if quick else grid:
        e = generate_ensemble(s, a, 4.0, n, seed=0)
        cells, ts = [], []
        for sc in ("ideal", "increasing-50", "in-transit"):
            plan = make_plan(e, sc)
            ta, tp = (timed(plan, eng, repeat)[0] for eng in ENGINES)
            cells.append(f"{ta:5.2f}/{tp:5.2f}")
            ts.append(ta)
            ratios.append(ta / tp)
        comps = s * (1 + a)
        per_comp.append(sum(ts) / 3 / comps)
        print(f"{s:>3}{a:>6}{n:>5}{comps:>6}  " + "  ".join(cells))
    print(f"default / ptask: median {sorted(ratios)[len(ratios) // 2]:.2f}, max {max(ratios):.2f}")
    if "--golden" in sys.argv:
        golden(repeat)
    c = sum(per_comp) / len(per_comp)
    tasks, _ = build_tasks(trials=5)
    comps = sum(t["S"] * (1 + t["A"]) for t in tasks.values())
    est = comps * c
    print(
        f"\n4. mean {c * 1000:.1f} ms per component per 100-step run (default engine); the "
        f"5-trial reproduction has {len(tasks)} distinct runs, {comps} component-runs: about "
        f"{est / 60:.0f} min on one core, {est / 120:.0f} min with --jobs 2"
    )


if __name__ == "__main__":
    main()
