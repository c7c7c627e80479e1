"""In situ ensembles: our simulator against every bandwidth-bound point the authors published.

The 140 points: the four sweeps of the paper (20 distinct configurations) x the 7 non-IDEAL
scenarios, CO-ALLOC nodes and cores. Ours: one run per point with the ensemble of seed 1 and the
default options (``coschedlab insitu simulate --network paper``: allocation at B'3, the authors'
rounding, ``activities`` engine, store and forward, 100 steps). Theirs: the mean of their 5 trials
(``analysis/data_new.csv``, bundled as ``coschedlab.insitu.authors.authors_runs("fig4")``).
``--trials K`` predicts each point by the mean of K runs (seeds seed..seed+K-1), as the authors
averaged 5 random ensembles; the default is one run. Prints the counts within 5% and 10% and
the worst points with their configuration, and the counts an exact copy of the authors'
simulator would reach on fresh random ensembles (``replication_band``: each point normal with
the authors' own mean and spread over their 5 trials).

Run: .venv/bin/python benchmarks/insitu_fidelity.py [--jobs 2] [--seed 1] [--trials 1]
     [--csv OUT.csv] [--engine activities|ptask] [--only S,A,V,N ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench_common import machine_line  # noqa: E402

from coschedlab.insitu.authors import authors_runs, replication_band  # noqa: E402
from coschedlab.insitu.mapping import SCENARIOS  # noqa: E402
from coschedlab.insitu.reproduce import SWEEPS  # noqa: E402

NON_IDEAL = tuple(s for s in SCENARIOS if s != "ideal")


def configurations() -> list[tuple[int, int, int, int]]:
    """The 20 distinct (S, A, V, N) of the four sweeps, in sweep order."""
    out: list[tuple[int, int, int, int]] = []
    for var, values, fixed in SWEEPS.values():
        for v in values:
            c = {**fixed, var: v}
            key = (c["S"], c["A"], c["V"], c["N"])
            if key not in out:
                out.append(key)
    return out


def one(args: tuple[int, int, int, int, str, int, str]) -> dict:
    """One run in this (fresh) process: plan with the defaults and simulate."""
    s, a, v, n, scenario, seed, engine = args
    from coschedlab.insitu.plan import make_plan
    from coschedlab.insitu.simulate import _run
    from coschedlab.insitu.spec import generate_ensemble

    ens = generate_ensemble(s, a, float(v), n, seed=seed)
    plan = make_plan(ens, scenario, "co", "co")
    t0 = time.perf_counter()
    res = _run(plan, "paper", engine, None)
    return {
        "S": s,
        "A": a,
        "V": v,
        "N": n,
        "scenario": scenario,
        "ours": res.makespan,
        "model_B3": plan.model_makespan,
        "wall": time.perf_counter() - t0,
    }


def authors_means() -> pd.DataFrame:
    """The authors' mean simulated makespan per (S, A, V, N, scenario), CO/CO."""
    df = authors_runs("fig4")
    co = df[(df.node == "co") & (df.core == "co")]
    return (
        co.groupby(["S", "A", "V", "N", "scenario"])
        .agg(authors=("simulated", "mean"), authors_sd=("simulated", "std"))
        .reset_index()
    )


def compare(ours: pd.DataFrame) -> pd.DataFrame:
    """Our runs joined to the authors' means, with the deviation in %."""
    both = ours.merge(authors_means(), on=["S", "A", "V", "N", "scenario"], how="left")
    both["dev_pct"] = 100 * (both["ours"] / both["authors"] - 1)
    return both


def counts(both: pd.DataFrame) -> tuple[int, int, int]:
    """(points, within 5%, within 10%)."""
    d = both["dev_pct"].abs()
    return len(both), int((d <= 5).sum()), int((d <= 10).sum())


def measure(
    seed: int = 1,
    engine: str = "activities",
    jobs: int = 2,
    confs: list[tuple[int, ...]] | None = None,
    trials: int = 1,
) -> pd.DataFrame:
    """Run every point (each in a fresh process: one SimGrid engine per process) and compare.
    With ``trials`` > 1 a point's ``ours`` and ``model_B3`` are means over seeds
    seed..seed+trials-1 (``ours_sd``: their standard deviation)."""
    confs = configurations() if confs is None else confs
    seeds = range(seed, seed + trials)
    todo = [(*c, sc, s, engine) for c in confs for sc in NON_IDEAL for s in seeds]
    todo.sort(key=lambda t: -t[0] * (1 + t[1]))  # the biggest first: the workers end together
    ctx = get_context("forkserver")
    with ProcessPoolExecutor(jobs, mp_context=ctx, max_tasks_per_child=1) as ex:
        rows = list(ex.map(one, todo))
    ours = (
        pd.DataFrame(rows)
        .groupby(["S", "A", "V", "N", "scenario"])
        .agg(
            ours=("ours", "mean"),
            ours_sd=("ours", "std"),
            model_B3=("model_B3", "mean"),
            wall=("wall", "sum"),
            trials=("ours", "count"),
        )
        .reset_index()
    )
    return compare(ours).sort_values(["S", "A", "V", "N", "scenario"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trials", type=int, default=1, help="runs (seeds) averaged per point")
    ap.add_argument("--engine", default="activities")
    ap.add_argument("--csv", default=None, help="write every point to this CSV")
    ap.add_argument("--worst", type=int, default=15)
    ap.add_argument("--only", nargs="*", default=None, help="configurations S,A,V,N")
    opts = ap.parse_args()
    confs = configurations()
    if opts.only:
        confs = [tuple(int(x) for x in o.split(",")) for o in opts.only]
    print(machine_line())
    t0 = time.perf_counter()
    if opts.trials < 1:
        ap.error(f"--trials must be >= 1, got {opts.trials}")
    both = measure(opts.seed, opts.engine, opts.jobs, confs, opts.trials)
    if opts.csv:
        both.to_csv(opts.csv, index=False, float_format="%.4f")
    n, w5, w10 = counts(both)
    print(
        f"{n} points (seed {opts.seed}, {opts.trials} trial(s), {opts.engine}): {w5} within 5%, "
        f"{w10} within 10% "
        f"({time.perf_counter() - t0:.0f} s)"
    )
    if len(confs) == len(configurations()):
        (e5, lo5, hi5), (e10, lo10, hi10) = (replication_band(opts.trials, t) for t in (0.05, 0.10))
        print(
            f"an exact copy of the authors' simulator, {opts.trials} fresh ensemble(s) per point: "
            f"{e5:.0f} within 5% (90%: {lo5}-{hi5}), {e10:.0f} within 10% (90%: {lo10}-{hi10})"
        )
    worst = both.reindex(both["dev_pct"].abs().sort_values(ascending=False).index)
    print(
        f"\n{'S':>3}{'A':>3}{'V':>3}{'N':>5} {'scenario':<14}{'authors':>10}{'sd':>7}"
        f"{'ours':>9}{'dev':>8}"
    )
    for r in worst.head(opts.worst).itertuples():
        print(
            f"{r.S:>3}{r.A:>3}{r.V:>3}{r.N:>5} {r.scenario:<14}{r.authors:>10.1f}"
            f"{r.authors_sd:>7.1f}{r.ours:>9.1f}{r.dev_pct:>+7.1f}%"
        )


if __name__ == "__main__":
    main()
