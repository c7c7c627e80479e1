"""In situ ensembles: SimGrid simulation speed (prints figures; not a timed unit test).

1. The reference configuration (S=4, A=4/sim, V=4 GB, N=16, 100 steps) for every scenario,
   with the fast ``ptask`` engine and the literal ``activities`` engine (target: < 5 s).
2. Time per configuration as S x A and N grow (IDEAL, INCREASING-50, IN-TRANSIT; CO/CO).
3. An estimate of the whole ``insitu reproduce --trials 5`` from these measurements.

Run: .venv/bin/python benchmarks/insitu_bench.py [--quick]
"""

from __future__ import annotations

import sys
import time

from coschedlab.insitu.mapping import SCENARIOS
from coschedlab.insitu.plan import make_plan
from coschedlab.insitu.reproduce import build_tasks
from coschedlab.insitu.simulate import simulate
from coschedlab.insitu.spec import generate_ensemble


def timed(ens, scenario, engine="ptask", node="co", core="co"):
    t0 = time.perf_counter()
    plan = make_plan(ens, scenario, node, core)
    res = simulate(plan, "paper", engine)
    return time.perf_counter() - t0, res.wall_time, res.makespan, plan.model_makespan


def main() -> None:
    quick = "--quick" in sys.argv
    ens = generate_ensemble(4, 4, 4.0, 16, seed=0)
    print("1. reference configuration S=4, A=4/sim, V=4 GB, N=16, 100 steps (paper layout)")
    print(
        f"{'scenario':<15}{'engine':<12}{'total s':>9}{'SimGrid s':>11}{'simulated':>11}"
        f"{'model':>9}"
    )
    for sc in SCENARIOS:
        for eng in ("ptask",) if quick else ("ptask", "activities"):
            tot, sg, mk, mo = timed(ens, sc, eng)
            print(f"{sc:<15}{eng:<12}{tot:>9.2f}{sg:>11.2f}{mk:>11.1f}{mo:>9.1f}")
    print("\n2. time per configuration (ptask engine, plan + fresh SimGrid process)")
    print(f"{'S':>3}{'A/sim':>6}{'N':>5}{'comps':>6}{'ideal s':>9}{'inc-50 s':>9}{'in-tr s':>9}")
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
    per_comp = []
    for s, a, n in grid[:4] if quick else grid:
        e = generate_ensemble(s, a, 4.0, n, seed=0)
        ts = [timed(e, sc)[0] for sc in ("ideal", "increasing-50", "in-transit")]
        comps = s * (1 + a)
        per_comp.append(sum(ts) / 3 / comps)
        print(f"{s:>3}{a:>6}{n:>5}{comps:>6}{ts[0]:>9.2f}{ts[1]:>9.2f}{ts[2]:>9.2f}")
    c = sum(per_comp) / len(per_comp)
    tasks, _ = build_tasks(trials=5)
    comps = sum(t["S"] * (1 + t["A"]) for t in tasks.values())
    est = comps * c
    print(
        f"\n3. mean {c * 1000:.1f} ms per component per 100-step run; the 5-trial "
        f"reproduction has {len(tasks)} distinct runs, {comps} component-runs: about "
        f"{est / 60:.0f} min on one core, {est / 120:.0f} min with --jobs 2"
    )


if __name__ == "__main__":
    main()
