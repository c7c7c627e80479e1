"""Reproduce the paper's evaluation (Do et al., Section V): Fig. 4, Fig. 5 and Table II.

Four sweeps (nodes, simulations, analyses per simulation, data size) x 8 scenarios x 4
(node, core) heuristic pairs x trials. This module defines the runs (:class:`Reproduction`; each
is :func:`.runner.run_config` of its configuration) and turns their results into the paper's
tables and figures (:func:`write_outputs`); the sweep itself runs on the project's one driver
(:data:`coschedlab.insitu.sweep.SWEEP`). Trial t of a configuration uses the ensemble drawn
with seed ``seed + t``, the same for every scenario and heuristic pair (common random
numbers), so normalised makespans compare plans on identical ensembles. Runs that appear in
several sweeps (e.g. S=4, A=4, V=4, N=16) are simulated once.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any

import pandas as pd

from .mapping import SCENARIOS

HEURISTIC_PAIRS = (("co", "co"), ("co", "ev"), ("ev", "co"), ("ev", "ev"))
BASE = {"S": 4, "A": 4, "V": 4, "N": 16}
SWEEPS: dict[str, tuple[str, tuple[int, ...], dict[str, int]]] = {
    "nodes": ("N", (8, 16, 32, 64, 128), {"S": 4, "A": 4, "V": 4}),
    "simulations": ("S", (1, 2, 4, 8, 16, 32), {"A": 4, "V": 4, "N": 64}),
    "analyses": ("A", (1, 2, 4, 8, 16, 32), {"S": 4, "V": 4, "N": 16}),
    "data": ("V", (1, 2, 4, 8, 16, 32), {"S": 4, "A": 4, "N": 16}),
}
#: Published simulated makespans (s), mean of 5 trials, CO-ALLOC nodes and cores, S=4, A=4, V=4.
PUBLISHED = {
    "ideal": {8: 510.0, 16: 180.4, 32: 81.4, 64: 36.3, 128: 18.3},
    "in-transit": {8: 1168.5, 16: 1164.0, 32: 1164.4, 64: 1161.7, 128: 1166.0},
}


def run_key(cfg: dict[str, Any]) -> str:
    """File-name key of one run."""
    return (
        f"S{cfg['S']}_A{cfg['A']}_V{cfg['V']}_N{cfg['N']}_{cfg['scenario']}_"
        f"n{cfg['node']}_c{cfg['core']}_t{cfg['trial']}_k{cfg['steps']}_{cfg['network']}_"
        f"{cfg['engine']}_{cfg['bandwidth_model']}_s{cfg['seed']}"
        f"_alloc{cfg.get('alloc_bandwidth', 'B3')}_{cfg.get('rounding', 'min-time')}"
    )


@dataclass(frozen=True)
class Reproduction:
    """The runs of a reproduction: the paper's chosen ``sweeps`` x scenarios x heuristic
    pairs x ``trials`` (:meth:`build`)."""

    trials: int = 5
    sweeps: tuple[str, ...] = tuple(SWEEPS)
    steps: int = 100
    network: str = "paper"
    engine: str = "activities"
    seed: int = 0
    alloc_bandwidth: str = "B3"
    scenarios: tuple[str, ...] = SCENARIOS
    pairs: tuple[tuple[str, str], ...] = HEURISTIC_PAIRS
    name = "in situ reproduction"
    output = None  # --out is required

    def build(self) -> tuple[dict[str, dict[str, Any]], list[tuple[str, str]]]:
        """All runs of the chosen sweeps: {key: config} and the (sweep, key) membership list.

        ``alloc_bandwidth`` is the bandwidth the allocation is computed with: B'_3 reproduces
        the authors' Fig. 4 data (their ``analysis/data_new.csv``), B their Table II data
        (``analysis/data_bw.csv``); both with the authors' rounding. The sweeps and trials are
        checked by the command's spec (:func:`.sweep.load_spec`)."""
        tasks: dict[str, dict[str, Any]] = {}
        member: list[tuple[str, str]] = []
        for sweep in self.sweeps:
            var, values, fixed = SWEEPS[sweep]
            runs = product(values, self.scenarios, self.pairs, range(self.trials))
            for v, sc, (node, core), t in runs:
                cfg = {
                    **fixed,
                    var: v,
                    "scenario": sc,
                    "node": node,
                    "core": core,
                    "trial": t,
                    "seed": self.seed + t,
                    "steps": self.steps,
                    "network": self.network,
                    "engine": self.engine,
                    "bandwidth_model": "B3",
                    "alloc_bandwidth": self.alloc_bandwidth,
                    "rounding": "authors",
                }
                k = run_key(cfg)
                tasks[k] = cfg
                member.append((sweep, k))
        return tasks, member

    def configs(self) -> dict[str, dict[str, Any]]:
        return self.build()[0]


def build_tasks(**options: Any) -> tuple[dict[str, dict[str, Any]], list[tuple[str, str]]]:
    """The runs (:meth:`Reproduction.build`) of the reproduction of ``options``."""
    return Reproduction(**options).build()


def results_frame(rows: list[dict[str, Any]], member: list[tuple[str, str]]) -> pd.DataFrame:
    """The finished runs, one row per (sweep, run): a run shared by several sweeps appears in
    each, with the swept parameter's value in ``value``."""
    sweep_of = pd.DataFrame(member, columns=["sweep", "key"])
    df = pd.DataFrame(rows)
    df["key"] = [run_key(r) for r in rows]
    df = sweep_of.merge(df, on="key")
    df["value"] = [r[SWEEPS[s][0]] for s, (_, r) in zip(df["sweep"], df.iterrows(), strict=True)]
    return df


def write_outputs(df: pd.DataFrame, out: Path) -> list[str]:
    """CSV tables (runs, fig4, fig5, table2, reference) and the figures."""
    from .plots import plot_fig4, plot_fig5, plot_table2

    out.mkdir(parents=True, exist_ok=True)
    files = []
    df.sort_values(["sweep", "value", "scenario", "node", "core", "trial"]).to_csv(
        out / "runs.csv", index=False
    )
    files.append("runs.csv")
    if "infeasible" in df:  # plans the authors' scheduler rejects: listed in runs.csv only
        df = df[df["infeasible"].isna()]
    co = df[(df["node"] == "co") & (df["core"] == "co")]
    # Fig. 4: makespan per scenario and normalised to IDEAL (per trial, then mean)
    ideal = co[co["scenario"] == "ideal"][["sweep", "value", "trial", "simulated_makespan"]]
    ideal = ideal.rename(columns={"simulated_makespan": "ideal_makespan"})
    f4 = co.merge(ideal, on=["sweep", "value", "trial"], how="left")
    f4["normalised"] = f4["simulated_makespan"] / f4["ideal_makespan"]
    fig4 = (
        f4.groupby(["sweep", "value", "scenario"])
        .agg(
            makespan=("simulated_makespan", "mean"),
            makespan_std=("simulated_makespan", "std"),
            model=("model_makespan", "mean"),
            normalised=("normalised", "mean"),
            trials=("trial", "count"),
        )
        .reset_index()
    )
    fig4.to_csv(out / "fig4.csv", index=False)
    files.append("fig4.csv")
    # Fig. 5: heuristic pairs normalised to (co, co)
    base = co[["sweep", "value", "scenario", "trial", "simulated_makespan"]].rename(
        columns={"simulated_makespan": "coco"}
    )
    f5 = df.merge(base, on=["sweep", "value", "scenario", "trial"], how="left")
    f5["normalised"] = f5["simulated_makespan"] / f5["coco"]
    f5["pair"] = "n:" + f5["node"] + ",c:" + f5["core"]
    fig5 = (
        f5.groupby(["sweep", "value", "scenario", "pair"])
        .agg(makespan=("simulated_makespan", "mean"), normalised=("normalised", "mean"))
        .reset_index()
    )
    fig5.to_csv(out / "fig5.csv", index=False)
    files.append("fig5.csv")
    # Table II: simulated / model makespan for B, B'1, B'2, B'3
    t2 = co.drop_duplicates("key").copy()
    for m in ("B", "B1", "B2", "B3"):
        t2[f"ratio_{m}"] = t2["simulated_makespan"] / t2[f"model_{m}"]
    cols = [f"ratio_{m}" for m in ("B", "B1", "B2", "B3")]
    table2 = t2.groupby("scenario")[cols].agg(["median", "min", "max"])
    table2.columns = [f"{a}_{b}" for a, b in table2.columns]
    table2 = table2.reset_index()
    table2.to_csv(out / "table2.csv", index=False)
    files.append("table2.csv")
    t2[["sweep", "value", "scenario", "trial", "simulated_makespan", *cols]].to_csv(
        out / "table2_runs.csv", index=False
    )
    files.append("table2_runs.csv")
    # reference points
    ref_rows = []
    nodes = fig4[fig4["sweep"] == "nodes"]
    ideal_ratio = co[(co["sweep"] == "nodes") & (co["scenario"] == "ideal")]
    for sc, pts in PUBLISHED.items():
        for n, pub in pts.items():
            r = nodes[(nodes["scenario"] == sc) & (nodes["value"] == n)]
            if r.empty:
                continue
            ours = float(r["makespan"].iloc[0])
            row = {
                "scenario": sc,
                "N": n,
                "published": pub,
                "ours": ours,
                "deviation_pct": 100 * (ours / pub - 1),
                "ours_std": float(r["makespan_std"].iloc[0]),
            }
            if sc == "ideal":
                rr = ideal_ratio[ideal_ratio["N"] == n]
                ratio = rr["simulated_makespan"] / rr["model_makespan"]
                row["sim_over_model_min"] = float(ratio.min())
                row["sim_over_model_max"] = float(ratio.max())
            ref_rows.append(row)
    pd.DataFrame(ref_rows).to_csv(out / "reference.csv", index=False)
    files.append("reference.csv")
    (out / "summary.md").write_text(summary_markdown(pd.DataFrame(ref_rows), table2, fig5))
    files.append("summary.md")
    files += _authors_comparison(df, out)
    files += plot_fig4(fig4, out)
    files += plot_fig5(fig5, out)
    files += plot_table2(t2, out)
    return files


def _authors_comparison(df: pd.DataFrame, out: Path) -> list[str]:
    """Every published point of the authors' data set made with the same allocation bandwidth
    (B'_3: Fig. 4 data, B: Table II data) next to ours: CSV and a Markdown table."""
    from .authors import ALLOC_BANDWIDTH, compare, comparison_markdown

    alloc = str(df["alloc_bandwidth"].iloc[0]) if "alloc_bandwidth" in df and len(df) else ""
    which = {v: k for k, v in ALLOC_BANDWIDTH.items()}.get(alloc)
    if which is None:
        return []
    cmp = compare(df, which)
    if cmp.empty:
        return []
    cmp.to_csv(out / "authors_comparison.csv", index=False)
    (out / "authors_comparison.md").write_text(comparison_markdown(cmp))
    return ["authors_comparison.csv", "authors_comparison.md"]


def summary_markdown(ref: pd.DataFrame, table2: pd.DataFrame, fig5: pd.DataFrame) -> str:
    """Markdown tables: published reference points vs ours, Table II ratios, Fig. 5 extremes."""
    lines = [
        "## Reference points (S=4, A=4/sim, V=4 GB; CO/CO; mean over trials)",
        "",
        "| scenario | N | published (s) | ours (s) | deviation | ours std | sim/model |",
        "|---|---|---|---|---|---|---|",
    ]
    for _, r in ref.iterrows():
        sm = ""
        if "sim_over_model_min" in r and pd.notna(r.get("sim_over_model_min")):
            sm = f"{r['sim_over_model_min']:.3f}-{r['sim_over_model_max']:.3f}"
        std = "" if pd.isna(r["ours_std"]) else f"{r['ours_std']:.1f}"
        lines.append(
            f"| {r['scenario']} | {r['N']} | {r['published']:.1f} | {r['ours']:.1f} | "
            f"{r['deviation_pct']:+.1f}% | {std} | {sm} |"
        )
    lines += [
        "",
        "## Table II: simulated / model makespan (median [min, max] over runs)",
        "",
        "| scenario | B | B'1 | B'2 | B'3 |",
        "|---|---|---|---|---|",
    ]
    for _, r in table2.iterrows():
        cells = [
            f"{r[f'ratio_{m}_median']:.3f} [{r[f'ratio_{m}_min']:.2f}, {r[f'ratio_{m}_max']:.2f}]"
            for m in ("B", "B1", "B2", "B3")
        ]
        lines.append(f"| {r['scenario']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Fig. 5: worst heuristic pair / (n:co, c:co) per sweep",
        "",
        "| scenario | sweep | pair | max ratio | at value | min ratio | at value |",
        "|---|---|---|---|---|---|---|",
    ]
    for (sc, sw, pair), d in fig5.groupby(["scenario", "sweep", "pair"]):
        if sc not in ("ideal", "in-transit") or pair == "n:co,c:co":
            continue
        hi, lo = d.loc[d["normalised"].idxmax()], d.loc[d["normalised"].idxmin()]
        lines.append(
            f"| {sc} | {sw} | {pair} | {hi['normalised']:.2f} | {hi['value']} | "
            f"{lo['normalised']:.2f} | {lo['value']} |"
        )
    return "\n".join(lines) + "\n"
