"""The authors' published runs and the comparison of a reproduction with them.

Do et al. ran their simulator (Analytics4MD/insitu-ensemble-simulator, WRENCH on SimGrid) on 5
random ensembles per configuration and published every run in the repository's ``analysis/``
folder. Two data sets are bundled (transcribed, one row per run):

``fig4``  ``analysis/data_new.csv``: the paper's Fig. 4 and Fig. 5 (nodes, simulations at
          N=64, analyses and data sweeps). Their allocation used B'_3; ``model_B3`` is their model
          makespan.
``table2`` ``analysis/data_bw.csv``: the paper's Table II (simulations at N=128, the other sweeps
          at N=16 and 8-256 nodes). Allocation with B; model makespans under B, B'_1, B'_2, B'_3.

Empty simulated makespans are runs the authors' simulator did not finish (kept as NaN).
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError

FILES = {"fig4": "insitu_authors_fig4_runs.csv.gz", "table2": "insitu_authors_table2_runs.csv.gz"}
#: The bandwidth each data set's allocation was computed with (see the module docstring).
ALLOC_BANDWIDTH = {"fig4": "B3", "table2": "B"}
KEYS = ["S", "A", "V", "N", "scenario", "node", "core"]


def ensemble_of_draw(conf: tuple[int, int, int, int], works: Mapping[str, float]) -> Any:
    """The ensemble of configuration ``(S, A, V, N)`` whose analyses have the works of one of
    the authors' generator draws (``works``: their member names ``simI.anaJ`` -> work), the
    simulations and platform as ours (``tests/insitu/data/run_authors_allocation.py``)."""
    from .spec import ensemble_from_dict, ensemble_to_dict, generate_ensemble

    s, a, v, n = conf
    raw = {
        **ensemble_to_dict(generate_ensemble(s, a, float(v), n, seed=0)),
        "analyses": [
            {"name": f"A{i}.{j}", "simulation": f"S{i}", "work": float(works[f"sim{i}.ana{j}"])}
            for i in range(1, s + 1)
            for j in range(1, a + 1)
        ],
    }
    return ensemble_from_dict(raw)


def authors_runs(which: str = "fig4") -> pd.DataFrame:
    """The authors' runs: S, A, V, N, trial, scenario, node, core, simulated, model_*."""
    if which not in FILES:
        raise InputError(f"unknown data set {which!r}; use {' or '.join(FILES)}")
    with resources.as_file(resources.files("coschedlab") / "data" / FILES[which]) as path:
        return pd.read_csv(path)


def _stats(df: pd.DataFrame, value: str, model: str, prefix: str) -> pd.DataFrame:
    ok = df.dropna(subset=[value])
    g = ok.assign(_ratio=ok[value] / ok[model]).groupby(KEYS)
    out = pd.DataFrame(
        {
            "n": g[value].count(),
            "mean": g[value].mean(),
            "std": g[value].std(),
            "model": g[model].mean(),
            "ratio": g["_ratio"].median(),
        }
    )
    return out.add_prefix(prefix)


def compare(ours: pd.DataFrame, which: str = "fig4") -> pd.DataFrame:
    """Per published point (S, A, V, N, scenario, node and core heuristics): the authors' and
    our trial count, mean and standard deviation of the simulated makespan, mean model makespan
    (B'_3) and median simulated / model ratio; the deviation of the means in % and in standard
    errors of the difference (``z``), and the deviation of the median ratios in %.

    ``ours`` holds reproduction runs (``runs.csv``: simulated_makespan, model_B3, ...)."""
    theirs = _stats(authors_runs(which), "simulated", "model_B3", "authors_")
    mine = _stats(ours.drop_duplicates("key"), "simulated_makespan", "model_B3", "ours_")
    both = theirs.join(mine, how="inner").reset_index()
    se = np.sqrt(
        both["authors_std"].fillna(0) ** 2 / both["authors_n"]
        + both["ours_std"].fillna(0) ** 2 / both["ours_n"]
    )
    both["deviation_pct"] = 100 * (both["ours_mean"] / both["authors_mean"] - 1)
    both["z"] = (both["ours_mean"] - both["authors_mean"]) / se.where(se > 0)
    both["ratio_deviation_pct"] = 100 * (both["ours_ratio"] / both["authors_ratio"] - 1)
    return both


def comparison_markdown(cmp: pd.DataFrame) -> str:
    """One row per (configuration, scenario): authors' mean +- std / ours mean +- std and the
    deviation, for each heuristic pair (n:node, c:core)."""
    pairs = [("co", "co"), ("co", "ev"), ("ev", "co"), ("ev", "ev")]
    head = "| S | A | V | N | scenario | " + " | ".join(f"n:{n} c:{c}" for n, c in pairs) + " |"
    lines = [head, "|" + "---|" * (5 + len(pairs))]
    for (s, a, v, n, sc), d in cmp.groupby(["S", "A", "V", "N", "scenario"], sort=True):
        cells = []
        for node, core in pairs:
            r = d[(d["node"] == node) & (d["core"] == core)]
            if r.empty:
                cells.append("")
                continue
            r = r.iloc[0]
            cells.append(
                f"{r['authors_mean']:.1f}±{_f(r['authors_std'])} / "
                f"{r['ours_mean']:.1f}±{_f(r['ours_std'])} ({r['deviation_pct']:+.1f}%)"
            )
        lines.append(f"| {s} | {a} | {v:g} | {n} | {sc} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _f(x: float) -> str:
    return "-" if pd.isna(x) else f"{x:.1f}"


def bandwidth_bound_points(which: str = "fig4") -> pd.DataFrame:
    """The authors' CO/CO runs of every non-IDEAL scenario: the points the fidelity goal counts."""
    df = authors_runs(which)
    keep = (df["node"] == "co") & (df["core"] == "co") & (df["scenario"] != "ideal")
    return df[keep].dropna(subset=["simulated"])


def leave_one_out(tolerances: tuple[float, ...] = (0.05, 0.10)) -> pd.DataFrame:
    """The authors' code against itself: each of their trials against the mean of the others.

    One row per trial number: how many of the bandwidth-bound points that trial's makespan lies
    within each tolerance (``within_5``, ``within_10`` for the defaults) of the mean of the other
    trials of the same point. It bounds what a single run of any exact copy of their simulator,
    on a fresh random ensemble, can be expected to reach against their published means.
    """
    pts = bandwidth_bound_points()
    rows = []
    for trial in sorted(pts["trial"].unique()):
        hits = dict.fromkeys(tolerances, 0)
        n = 0
        for _, g in pts.groupby(["S", "A", "V", "N", "scenario"]):
            mine = g[g["trial"] == trial]["simulated"]
            rest = g[g["trial"] != trial]["simulated"]
            if mine.empty or rest.empty:
                continue
            n += 1
            dev = abs(float(mine.iloc[0]) / float(rest.mean()) - 1)
            for tol in tolerances:
                hits[tol] += dev <= tol
        rows.append({"trial": int(trial), "points": n, **{_col(t): h for t, h in hits.items()}})
    return pd.DataFrame(rows)


def replication_band(
    runs: int = 1, tolerance: float = 0.05, level: float = 0.90
) -> tuple[float, int, int]:
    """How many bandwidth-bound points an exact copy of the authors' simulator would put within
    ``tolerance`` of their published means, predicting each point by the mean of ``runs`` fresh
    random ensembles: (expected count, low, high) of the central ``level`` interval.

    Each point's makespan over random ensembles is taken as normal with the authors' own mean
    m and standard deviation s (their 5 trials); the prediction minus the published mean of
    k = 5 trials is then normal with variance s^2 (1/runs + 1/k), and the count of points within
    ``tolerance`` x m is a sum of independent Bernoulli variables (Poisson-binomial
    distribution, computed exactly).
    """
    from math import erf, sqrt

    if runs < 1:
        raise InputError(f"runs must be >= 1, got {runs}")
    probs = []
    for _, g in bandwidth_bound_points().groupby(["S", "A", "V", "N", "scenario"]):
        x = g["simulated"].to_numpy(dtype=float)
        m = float(x.mean())
        s = float(x.std(ddof=1)) * sqrt(1 / runs + 1 / len(x)) if len(x) > 1 else 0.0
        probs.append(1.0 if s == 0 else erf(tolerance * m / (s * sqrt(2))))
    cdf = np.cumsum(poisson_binomial(probs))
    tail = (1 - level) / 2
    low = int(np.searchsorted(cdf, tail))
    high = int(np.searchsorted(cdf, 1 - tail))
    return float(sum(probs)), low, high


def poisson_binomial(probs: list[float]) -> np.ndarray:
    """P(K = k), k = 0..n, for K the number of successes of independent Bernoulli(p_i) trials
    (exact, by convolution)."""
    dist = np.zeros(len(probs) + 1)
    dist[0] = 1.0
    for p in probs:
        dist[1:] = dist[1:] * (1 - p) + dist[:-1] * p
        dist[0] *= 1 - p
    return dist


def _col(tolerance: float) -> str:
    return f"within_{round(tolerance * 100):d}"
