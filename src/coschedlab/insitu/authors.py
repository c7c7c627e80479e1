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
    from .spec import ensemble_from_dict, generate_ensemble

    s, a, v, n = conf
    base = generate_ensemble(s, a, float(v), n, seed=0)
    raw = {
        "platform": {
            "nodes": n,
            "cores": base.platform.cores,
            "core_speed": base.platform.core_speed,
            "bandwidth": base.platform.bandwidth,
            "network": "paper",
        },
        "n_steps": base.n_steps,
        "simulations": [{"name": x.name, "work": x.work, "data": x.data} for x in base.simulations],
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
