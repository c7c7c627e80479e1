"""The coupled study's stand-in workloads calibrated to Tang et al.'s published baselines
(prints figures; not a timed test).

The paper's baselines (Section V, no pairing, WFP + backfilling): Intrepid's mean wait 61 min
and mean slowdown 6.1; Eureka's mean slowdown 1.7 / 12.5 / 37.1 at its "low / medium / high"
loads (utilization 0.25 / 0.5 / 0.75). Ours: ALCF Theta 2022 for Intrepid, KTH-SP2 for Eureka,
each run alone under ``easy:order=wfp`` (WFP + EASY); slowdown is the bounded slowdown (10 s).

What is fitted, on what (the constants of ``coschedlab.coupled.workloads``; this script fits
them again and says whether they agree):

* the large system: a machine of a whole number of Thetas and ONE offered load for every
  month (the month's jobs and the following months', every inter-arrival gap times one
  factor so the jobs submitted within the month offer that load: ``stretch_to_load``).
  Fitted on January-June 2022: for each machine, the load whose geometric mean of the
  months' baseline mean waits is 61 min; the machine whose months then hold Intrepid's
  9,219 jobs on average. HELD OUT: July-December. The slowdown is not fitted (a check on
  both halves).
* the small system: per paper load label, the offered load whose mean baseline slowdown over
  seeds 0-2 (the seed picks where in KTH the month starts) is the paper's. HELD OUT: seeds
  3-5. The twin workload of the paired-proportion study (shapes drawn from KTH, submitted with
  the calibrated large system's jobs): its offered load for the "medium" baseline (12.5), same
  halves.

Grids: offered loads in steps of 0.01 (the constants are grid points).

Run: .venv/bin/python benchmarks/coupled_calibration.py [--markdown]
"""

from __future__ import annotations

import calendar
import math
import statistics
import sys
import time
from functools import cache

import numpy as np

from coschedlab.api import simulate
from coschedlab.coupled import workloads as cw
from coschedlab.workload.swf import read_swf

POLICY = "easy:order=wfp"
FIT_MONTHS, HELD_MONTHS = (1, 2, 3, 4, 5, 6), (7, 8, 9, 10, 11, 12)
FIT_SEEDS, HELD_SEEDS = (0, 1, 2), (3, 4, 5)
PAPER_WAIT_MIN, PAPER_BSLD, PAPER_JOBS = 61.0, 6.1, 9219
LABELS = {0.25: 1.7, 0.5: 12.5, 0.75: 37.1}
SMALL_MONTH = 1  # the sweep's default month: the span of the small system's month


def grid(lo: float, hi: float) -> list[float]:
    return [round(x, 2) for x in np.arange(lo, hi + 1e-9, 0.01)]


def baseline(w, nodes: int) -> dict[str, float]:
    """Mean wait (min), mean bounded slowdown, utilization and jobs of ``w`` run alone."""
    m = simulate(w, cw.cluster_of(nodes), POLICY).metrics
    return {
        "jobs": len(w),
        "wait": m["wait_mean"] / 60,
        "bsld": m["bounded_slowdown_mean"],
        "util": m["utilization"],
    }


def span_of(month: int) -> float:
    return calendar.monthrange(2022, month)[1] * 86400.0


@cache
def large(month: int, load: float | None, scale: int = cw.PAPER_LARGE_SCALE) -> dict[str, float]:
    """A Theta month: as recorded (``load`` None) or at an offered load on ``scale`` Thetas."""
    if load is None:
        w = cw.month_of(cw.THETA, 2022, month, cw.THETA_NODES)
        c = w.columns
        offered = float(np.sum(c["procs"] * c["run"])) / (cw.THETA_NODES * span_of(month))
        return {**baseline(w, cw.THETA_NODES), "load": offered, "factor": 1.0}
    nodes = scale * cw.THETA_NODES
    w, f = cw.large_at_load(cw.THETA, month, nodes, load)
    return {**baseline(w, nodes), "load": load, "factor": f}


@cache
def pool():
    return read_swf(cw.KTH, max_procs=cw.KTH_NODES)


@cache
def small(seed: int, load: float) -> dict[str, float]:
    w, f = cw.stretch_to_load(pool(), cw.KTH_NODES, load, span_of(SMALL_MONTH), seed)
    return {**baseline(w, cw.KTH_NODES), "load": load, "factor": f}


@cache
def twin(seed: int, load: float) -> dict[str, float]:
    big, _ = cw.large_at_load(cw.THETA, SMALL_MONTH, cw.PAPER_LARGE_NODES, cw.PAPER_LARGE_LOAD)
    w = cw.twin_workload(big, pool(), cw.KTH_NODES, load, span_of(SMALL_MONTH), seed)
    return {**baseline(w, cw.KTH_NODES), "load": load}


def geo(xs: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(max(x, 1e-9)) for x in xs))


def fit_load(scale: int) -> float:
    """The offered load (0.01 steps) whose geometric mean wait over the fit months is the
    paper's, on ``scale`` Thetas (bisection: the wait grows with the load)."""
    lo, hi = 30, 95  # hundredths
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if geo([large(m, mid / 100, scale)["wait"] for m in FIT_MONTHS]) < PAPER_WAIT_MIN:
            lo = mid
        else:
            hi = mid
    target = math.log(PAPER_WAIT_MIN)
    return min(
        (lo / 100, hi / 100),
        key=lambda u: abs(math.log(geo([large(m, u, scale)["wait"] for m in FIT_MONTHS])) - target),
    )


def fit_large() -> tuple[int, float]:
    """The machine (whole Thetas) whose fit months, each at its fitted load, hold Intrepid's
    9,219 jobs on average, and that load."""
    best = None
    for scale in range(1, 8):
        load = fit_load(scale)
        jobs = statistics.fmean(large(m, load, scale)["jobs"] for m in FIT_MONTHS)
        if best is None or abs(jobs - PAPER_JOBS) < abs(best[2] - PAPER_JOBS):
            best = (scale, load, jobs)
        if jobs > PAPER_JOBS:
            break
    return best[0], best[1]


def fit_small(run, target: float) -> float:
    return min(
        grid(0.03, 0.85),
        key=lambda u: abs(
            math.log(statistics.fmean(run(s, u)["bsld"] for s in FIT_SEEDS)) - math.log(target)
        ),
    )


def fits() -> dict[str, object]:
    return {
        "large": fit_large(),
        "small": {label: fit_small(small, t) for label, t in LABELS.items()},
        "twin": fit_small(twin, LABELS[0.5]),
    }


def check_constants(f: dict) -> list[str]:
    notes = []
    if f["large"] != (cw.PAPER_LARGE_SCALE, cw.PAPER_LARGE_LOAD):
        notes.append(
            f"large: fitted {f['large']} (Thetas, load), workloads.py "
            f"{(cw.PAPER_LARGE_SCALE, cw.PAPER_LARGE_LOAD)}"
        )
    for label, u in f["small"].items():
        if u != cw.PAPER_SMALL_LOADS[label]:
            notes.append(f"small {label}: fitted {u}, workloads.py {cw.PAPER_SMALL_LOADS[label]}")
    if f["twin"] != cw.PAPER_TWIN_LOAD:
        notes.append(f"twin: fitted {f['twin']}, workloads.py {cw.PAPER_TWIN_LOAD}")
    return notes


# -- the tables ----------------------------------------------------------------------------
def large_rows() -> list[list[str]]:
    rows = []
    for half, months in (("fit", FIT_MONTHS), ("held", HELD_MONTHS)):
        cal = [large(m, cw.PAPER_LARGE_LOAD) for m in months]
        raw = [large(m, None) for m in months]
        for m, c, r in zip(months, cal, raw, strict=True):
            rows.append([
                f"2022-{m:02d}", half, f"{r['load']:.2f}", f"{r['wait']:.0f}", f"{r['bsld']:.1f}",
                f"{c['factor']:.2f}", f"{c['jobs']:,}", f"{c['wait']:.0f}", f"{c['bsld']:.1f}",
                f"{c['util']:.2f}",
            ])  # fmt: skip
        rows.append([
            "geo mean", half, "", f"{geo([r['wait'] for r in raw]):.0f}",
            f"{geo([r['bsld'] for r in raw]):.1f}", "", "",
            f"{geo([c['wait'] for c in cal]):.0f}", f"{geo([c['bsld'] for c in cal]):.1f}",
            f"{statistics.fmean(c['util'] for c in cal):.2f}",
        ])  # fmt: skip
        rows.append([
            "median", half, "", f"{statistics.median(r['wait'] for r in raw):.0f}",
            f"{statistics.median(r['bsld'] for r in raw):.1f}", "", "",
            f"{statistics.median(c['wait'] for c in cal):.0f}",
            f"{statistics.median(c['bsld'] for c in cal):.1f}", "",
        ])  # fmt: skip
    rows.append(["Intrepid", "paper", "", "", "", "", "9,219", "61", "6.1", ""])
    return rows


LARGE_COLS = ["month", "half", "rec load", "rec wait", "rec bsld", "factor", "jobs", "wait",
              "bsld", "util"]  # fmt: skip
SMALL_COLS = ["workload", "half", "load", "jobs", "wait", "bsld", "per seed", "util",
              "paper", "at label"]  # fmt: skip


def small_rows() -> list[list[str]]:
    rows = []
    cases = [(f"KTH {label:g}", small, label, cw.PAPER_SMALL_LOADS[label]) for label in LABELS]
    cases.append(("twin 0.5", twin, 0.5, cw.PAPER_TWIN_LOAD))
    for name, run, label, load in cases:
        for half, seeds in (("fit", FIT_SEEDS), ("held", HELD_SEEDS)):
            cal = [run(s, load) for s in seeds]
            plain = [run(s, label) for s in seeds]
            rows.append([
                name, half, f"{load:.2f}",
                f"{statistics.fmean(c['jobs'] for c in cal):,.0f}",
                f"{statistics.fmean(c['wait'] for c in cal):.0f}",
                f"{statistics.fmean(c['bsld'] for c in cal):.1f}",
                "/".join(format(c["bsld"], ".1f") for c in cal),
                f"{statistics.fmean(c['util'] for c in cal):.2f}",
                f"{LABELS[label]:g}",
                f"{statistics.fmean(p['bsld'] for p in plain):.1f}",
            ])  # fmt: skip
    return rows


def text_table(cols: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    line = lambda r: "  ".join(x.rjust(w) for x, w in zip(r, widths, strict=True))  # noqa: E731
    return "\n".join([line(cols), *(line(r) for r in rows)])


def md_table(cols: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def main() -> None:
    markdown = "--markdown" in sys.argv[1:]
    t0 = time.perf_counter()
    f = fits()
    table = md_table if markdown else text_table
    print(
        f"fitted: large {f['large'][0]} Thetas at offered load {f['large'][1]} (Jan-Jun, "
        "geo mean wait = 61 min, 9,219 jobs); small "
        + ", ".join(f"{k:g} -> {v}" for k, v in f["small"].items())
        + f" (seeds 0-2, mean bsld = paper's); twin 0.5 -> {f['twin']}"
    )
    for note in check_constants(f) or ["the constants of workloads.py are these fits"]:
        print(note)
    print()
    print(
        f"Large system: ALCF Theta 2022, {cw.PAPER_LARGE_SCALE} Thetas "
        f"({cw.PAPER_LARGE_NODES:,} nodes) at offered load {cw.PAPER_LARGE_LOAD} (rec: the month "
        "as recorded; held: held out); wait in min, bsld bounded (10 s), util = work / span"
    )
    print(table(LARGE_COLS, large_rows()))
    print()
    print(
        "Small system: KTH-SP2 (100 nodes) from a seeded start, the span of January; twin: "
        "shapes from KTH at the calibrated Theta January's submit times. Name: the paper's "
        "utilization label; load: the offered load it runs at; bsld: mean over the half's "
        "seeds (fit 0-2, held 3-5; per seed beside it); at label: mean bsld at offered load = "
        "the label (before)"
    )
    print(table(SMALL_COLS, small_rows()))
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
