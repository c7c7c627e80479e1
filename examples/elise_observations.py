"""Reproduce, in spirit, the two co-scheduling observations of the ELiSE paper (section 4.3).

1. Fig. 9: the makespan gain of `easy-coloc` over `easy` for 500 jobs of 256 processes shrinks
   as process counts diversify (fragmentation); `filler` keeps more of the gain. Run on 400
   ARIS-like nodes (2 x 10 cores; ARIS has 426 such nodes) with ELiSE's own EASY (rule (a)
   only, 100 jobs deep: ``extra=false,depth=100``) for the baseline and the co-schedulers
   alike, then with our EASY (extra-node rule, whole queue), then on other cluster shapes.
2. Table 2: the gain grows with the mean pair speedup of the application mix.

Real measured pools (ARIS NPB, bundled with coschedlab); every run is validated.

    python examples/elise_observations.py [--reps 4] [--pool PATH] [--more]
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np

import coschedlab
from coschedlab.coloc import load_pool
from coschedlab.generate import generate_workload
from coschedlab.metrics import improvement

HERE = Path(__file__).resolve().parent
DEFAULT_POOL = "coschedlab:lm-aris.compute-NAS.json"  # bundled
MIXES = {  # process counts allowed in each mix, from uniform to the whole pool
    "256 only": [256],
    "128-512": [128, 256, 512],
    "64-1024": [64, 121, 128, 256, 484, 512, 1024],
    "all (64-2048)": None,
}


ELISE_EASY = "extra=false,depth=100"  # ELiSE's EASY: rule (a) only, 100 jobs deep


def run(pool, apps, cluster, reps, schedulers, n_jobs=500, options=""):
    """Mean makespan gain (%) of each scheduler over easy, over ``reps`` shuffles; ``options``
    are given to easy and to every scheduler alike."""
    suffix = f":{options}" if options else ""
    gains = {s: [] for s in schedulers}
    for rep in range(reps):
        w = generate_workload(apps, n_jobs, arrival="constant:0", seed=rep)
        base = coschedlab.simulate(w, cluster, "easy" + suffix, pool=pool, kill_at_walltime=True)
        assert base.validate() == []
        for s in schedulers:
            r = coschedlab.simulate(w, cluster, s + suffix, pool=pool, kill_at_walltime=True)
            assert r.validate() == []
            gains[s].append(improvement(r.jobs, base.jobs)["makespan_improvement"])
    return {s: (float(np.mean(g)), float(np.std(g))) for s, g in gains.items()}


def fig9(pool, reps, cluster, options=""):
    easy = f"ELiSE's EASY ({options})" if options else "our EASY (extra-node rule)"
    print(f"\n## Fig. 9 trend: 500 jobs, {cluster}, {easy}, {reps} shuffles, gain over easy (%)\n")
    print("| mix | easy-coloc | filler |\n|---|---|---|")
    frame = pool.app_frame()
    for name, procs in MIXES.items():
        apps = frame if procs is None else frame[frame.procs.isin(procs)]
        apps = apps.reset_index(drop=True)
        g = run(pool, apps, cluster, reps, ["easy-coloc", "filler"], options=options)
        cells = " | ".join(f"{m:+.1f} ± {s:.1f}" for m, s in g.values())
        print(f"| {name} | {cells} |")


def table2(pool, reps):
    cluster = coschedlab.Cluster(100, 2, 24)
    frame = pool.app_frame()
    apps = frame[frame.procs == 256].reset_index(drop=True)
    subsets = []
    for combo in itertools.combinations(range(len(apps)), 3):
        names = list(apps.app[list(combo)])
        subsets.append((pool.heatmap.mean_pair_speedup(names), combo))
    subsets.sort()
    picks = [subsets[int(q * (len(subsets) - 1))] for q in (0.0, 0.33, 0.66, 1.0)]
    print(f"\n## Table 2 trend: 500 jobs of 256 processes, {cluster}, {reps} shuffles\n")
    print("| applications | mean pair speedup | easy-coloc gain (%) |\n|---|---|---|")
    for mean, combo in picks:
        sub = apps.iloc[list(combo)].reset_index(drop=True)
        g = run(pool, sub, cluster, reps, ["easy-coloc"])["easy-coloc"]
        print(f"| {', '.join(sub.app)} | {mean:.3f} | {g[0]:+.1f} ± {g[1]:.1f} |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--pool", type=Path, default=DEFAULT_POOL)
    ap.add_argument("--more", action="store_true", help="also Fig. 9 on 100 x 48 and 200 x 20")
    args = ap.parse_args()
    pool = load_pool(args.pool)
    print(pool.summary())
    aris = coschedlab.Cluster(400, 2, 10)
    fig9(pool, args.reps, aris, ELISE_EASY)
    fig9(pool, args.reps, aris)
    if args.more:
        for cluster in (coschedlab.Cluster(100, 2, 24), coschedlab.Cluster(200, 2, 10)):
            fig9(pool, args.reps, cluster, ELISE_EASY)
            fig9(pool, args.reps, cluster)
    table2(pool, args.reps)
