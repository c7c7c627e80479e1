"""Compare one point of the in situ paper with the authors' own published runs.

    .venv/bin/python examples/insitu_vs_authors.py            # S=4, A=4/sim, V=4 GB, N=16
    .venv/bin/python examples/insitu_vs_authors.py 1 4 4 64   # S A V N
    .venv/bin/python examples/insitu_vs_authors.py 4 4 4 8    # the quickest point (~6 s)

For each scenario (CO-ALLOC nodes and cores), 5 random ensembles are planned as the authors'
scheduler plans them (allocation at B'_3, their rounding) and simulated in SimGrid; the mean
simulated makespan is printed next to the mean of the authors' 5 published trials
(their analysis/data_new.csv, bundled), with both spreads and the median simulated / model
ratio, which does not depend on the random draw of the analyses' work.
"""

from __future__ import annotations

import statistics
import sys

from coschedlab.insitu.authors import authors_runs
from coschedlab.insitu.mapping import SCENARIOS
from coschedlab.insitu.plan import make_plan
from coschedlab.insitu.simulate import simulate
from coschedlab.insitu.spec import generate_ensemble


def main(s: int = 4, a: int = 4, v: int = 4, n: int = 16, trials: int = 5) -> None:
    theirs = authors_runs("fig4")
    point = theirs[(theirs[["S", "A", "V", "N"]] == [s, a, v, n]).all(axis=1)]
    if point.empty:
        raise SystemExit(f"the authors published no runs for S={s} A={a} V={v} N={n}")
    print(f"S={s} A={a}/sim V={v} GB N={n}, CO/CO, {trials} trials")
    print(f"{'scenario':14} {'authors (s)':>18} {'ours (s)':>18} {'dev':>7} {'ratio a/o':>12}")
    for scenario in SCENARIOS:
        sims, ratios = [], []
        for seed in range(trials):
            plan = make_plan(generate_ensemble(s, a, float(v), n, seed=seed), scenario)
            makespan = simulate(plan).makespan
            sims.append(makespan)
            ratios.append(makespan / plan.model_makespan)
        p = point[(point.scenario == scenario) & (point.node == "co") & (point.core == "co")]
        p = p.dropna(subset=["simulated"])
        am, asd = p.simulated.mean(), p.simulated.std()
        om, osd = statistics.mean(sims), statistics.stdev(sims)
        ar = (p.simulated / p.model_B3).median()
        print(
            f"{scenario:14} {am:10.1f} ± {asd:5.1f} {om:10.1f} ± {osd:5.1f} "
            f"{100 * (om / am - 1):+6.1f}% {ar:5.3f}/{statistics.median(ratios):5.3f}"
        )


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:5]))
