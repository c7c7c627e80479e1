"""The WoAS experiments (Rodrigo et al., HPDC'17, Section 4.4) as a sweep on the one runner:
workflow x share-or-period x seed x mode, plus a no-workflow baseline per seed (for the
slowdown of regular jobs); every run is one JSON file in ``OUT/runs``; interrupted sweeps
resume. :func:`aggregate` pools the seeds as the paper does (Section 4.3.2).

Spec (YAML, every key checked)::

    name: woas-small
    machine: edison            # or NODESxCORES, e.g. 1394x24
    workflows: [cybershake, sipht, montage]   # names (A8, B4 ...) or files
    shares: [0.01, 0.1]        # workflows' share of core-hours; or periods: [3600, 1800]
    modes: [chained, pilot, woas]
    seeds: [0, 1]              # or a count: 2
    warmup: 86400              # s simulated, not analysed
    window: 432000             # s analysed
    drain: 21600               # s simulated past the window, nothing submitted (ScSF: 6 h)
    scale_jobs: false          # true: regular job sizes x (machine cores / Edison's)
    pressure: 0.96             # job pressure (fitted: the queue stays stationary)
    target_wait: 14400
    scheduler: slurm           # any core scheduler spec
    baseline: true             # a no-workflow run per seed (slowdown ratios)
    coarse: false              # fuse file workflows' stages
    output: out/woas-small
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..outputs import slug
from ..schema import MOST_CHARACTERS, open_spec, show
from ..sweeps.capability import Table, read_table, save_figures, spec_place, spec_record
from ..sweeps.sweep import Sweep

__all__ = ["SWEEP", "WorkflowSpec", "aggregate", "load_workflow_spec", "report", "summary"]

MAX_SEEDS = 10_000


@dataclass(frozen=True)
class WorkflowSpec:
    """A checked sweep spec (see the module docstring)."""

    path: Path
    name: str
    machine: str
    workflows: tuple[str, ...]
    kind: str  # "share" or "period"
    values: tuple[float, ...]
    modes: tuple[str, ...]
    seeds: tuple[int, ...]
    warmup: float
    window: float
    drain: float
    pressure: float
    target_wait: float
    scale_jobs: bool
    scheduler: str
    baseline: bool
    coarse: bool
    output: Path
    executor: Any = None  # where the runs execute (an ExecutorSpec; None: local)

    def configs(self) -> dict[str, dict[str, Any]]:
        """Every run's key -> its configuration (JSON-able: a worker rebuilds it all)."""
        from .formats import load_workflow

        common = {k: getattr(self, k) for k in FIXED if k not in ("kind", "metrics")}
        out: dict[str, dict[str, Any]] = {}
        for wf in self.workflows:
            name = load_workflow(wf, coarse=self.coarse).name
            stem = slug(name, keep=".+=", fallback="workflow")
            for v in self.values:
                for seed in self.seeds:
                    for mode in self.modes:
                        key = f"{stem}-{self.kind}{v:g}-s{seed}-{mode}"
                        out[key] = {
                            **common,
                            "workflow": wf,
                            "workflow_name": name,
                            "kind": self.kind,
                            "value": v,
                            "seed": seed,
                            "mode": mode,
                        }
        if self.baseline:
            for seed in self.seeds:
                out[f"baseline-s{seed}"] = {
                    **common,
                    "workflow": None,
                    "workflow_name": "",
                    "kind": "none",
                    "value": 0.0,
                    "seed": seed,
                    "mode": "chained",
                }
        return out


#: a spec's keys: the fields of :class:`WorkflowSpec` (its kind and values: shares or periods)
_KEYS = tuple(
    {"kind": "shares", "values": "periods"}.get(f.name, f.name)
    for f in fields(WorkflowSpec)
    if f.name != "path"
)


def load_workflow_spec(path: str | Path) -> WorkflowSpec:
    """Read and check a sweep spec; errors name the file, line and key."""
    from ..schedulers import get_scheduler
    from .formats import load_workflow
    from .modes import MODES
    from .simulate import DRAIN, check_woas
    from .workload import LIMITS, PRESSURE, machine_of, no_work

    path = Path(path)
    ck, raw = open_spec(path, _KEYS, "docs/workflows.md")

    def bounded(value: Any, key: str, limit: str, positive: bool = False) -> float:
        """A number within the workload generator's :data:`~.workload.LIMITS` of ``limit``
        (it refused each run of a spec beyond them, one after the other)."""
        x = ck.number(value, key, positive=positive)
        lo, hi = LIMITS[limit]
        if not lo <= x <= hi:
            raise ck.fail(f"'{key}' must be from {lo:g} to {hi:g}, got {x:g}", key)
        return x

    base = path.resolve().parent
    wfs = []
    coarse = ck.boolean(raw.get("coarse", False), "coarse")
    loaded: dict[str, int] = {}
    stems: dict[str, tuple[int, str]] = {}
    for i, w in enumerate(ck.items(ck.require(raw, "workflows", ""), "workflows")):
        text = ck.string(w, f"workflows[{i}]")
        p = (base / text) if not Path(text).is_absolute() else Path(text)
        spec = str(p) if p.suffix and p.exists() else text
        try:
            wf = load_workflow(spec, coarse=coarse)
        except InputError as exc:
            raise ck.fail(f"workflows[{i}]: {exc}", f"workflows[{i}]") from None
        if wf.name in loaded:
            raise ck.fail(
                f"workflows[{i}] and workflows[{loaded[wf.name]}] are both named {wf.name!r} "
                "(runs are stored by workflow name): rename one",
                f"workflows[{i}]",
            )
        loaded[wf.name] = i
        stem = slug(wf.name, keep=".+=", fallback="workflow")
        if stem in stems:  # runs are stored by the name's file-safe form (configs' keys)
            j, other = stems[stem]
            raise ck.fail(
                f"workflows[{i}] ({wf.name}) and workflows[{j}] ({other}) would store their "
                f"runs under one name {stem!r}: rename one",
                f"workflows[{i}]",
            )
        stems[stem] = (i, wf.name)
        wfs.append((spec, wf))
    if ("shares" in raw) == ("periods" in raw):
        raise ck.fail("give either 'shares' (fractions of core-hours) or 'periods' (seconds)")
    kind = "share" if "shares" in raw else "period"
    key = "shares" if kind == "share" else "periods"
    values = []
    for i, v in enumerate(ck.items(raw[key], key)):
        x = ck.number(v, f"{key}[{i}]", positive=True)
        if kind == "period":
            x = bounded(v, f"{key}[{i}]", "period", positive=True)
        if kind == "share" and x > 1:
            raise ck.fail(
                f"'{key}[{i}]' is a fraction in (0, 1] (0.1 = 10%), got {show(v)}", f"{key}[{i}]"
            )
        same = [j for j, y in enumerate(values) if f"{y:g}" == f"{x:g}"]
        if same:  # one run key (configs: the value to 6 digits): one run would be lost
            raise ck.fail(
                f"'{key}' names a value twice: {key}[{same[0]}] and {key}[{i}] are both "
                f"{x:g} (runs are stored by the value to 6 significant digits)",
                f"{key}[{i}]",
            )
        values.append(x)
    if kind == "share" and (why := no_work([wf for _, wf in wfs])):
        raise ck.fail(f"'shares': {why}", "shares")
    modes = tuple(
        ck.choice(m, f"modes[{i}]", MODES)
        for i, m in enumerate(ck.items(raw.get("modes", list(MODES)), "modes"))
    )
    if len(set(modes)) != len(modes):
        raise ck.fail("'modes' names a mode twice", "modes")
    seeds = ck.seeds(raw.get("seeds", 1), "seeds", MAX_SEEDS)
    machine = ck.string(raw.get("machine", "edison"), "machine")
    try:
        cluster = machine_of(machine)
    except InputError as exc:
        raise ck.fail(f"'machine': {exc.what}", "machine") from None
    for i, (_, wf) in enumerate(wfs):
        widest = max(wf.max_cores, max(t.cores for t in wf.tasks))
        if widest > cluster.total_cores:
            raise ck.fail(
                f"workflows[{i}] ({wf.name}) needs {widest} cores; the machine {machine} has "
                f"{cluster.total_cores}",
                f"workflows[{i}]",
            )
    sched = ck.string(raw.get("scheduler", "slurm"), "scheduler")
    try:
        get_scheduler(sched)
        if "woas" in modes:
            check_woas(sched)
    except InputError as exc:
        raise ck.fail(f"'scheduler': {exc}", "scheduler") from None
    return WorkflowSpec(
        machine=machine,
        workflows=tuple(w for w, _ in wfs),
        kind=kind,
        values=tuple(values),
        modes=modes,
        seeds=seeds,
        warmup=bounded(raw.get("warmup", 86400.0), "warmup", "warmup"),
        window=bounded(raw.get("window", 432000.0), "window", "window", positive=True),
        drain=ck.number(raw.get("drain", DRAIN), "drain"),
        pressure=bounded(raw.get("pressure", PRESSURE), "pressure", "pressure", positive=True),
        target_wait=bounded(raw.get("target_wait", 14400.0), "target_wait", "target_wait"),
        scale_jobs=ck.boolean(raw.get("scale_jobs", False), "scale_jobs"),
        scheduler=sched,
        baseline=ck.boolean(raw.get("baseline", True), "baseline"),
        coarse=coarse,
        **spec_place(ck, raw, path, MOST_CHARACTERS),
    )


# -- one run --------------------------------------------------------------------------------------
def _rounded(values: np.ndarray) -> list[float]:
    return [float(f"{v:.4g}") if math.isfinite(v) else None for v in values]  # type: ignore[misc]


def run_one(config: dict[str, Any]) -> dict[str, Any]:
    """Generate the workload of ``config`` and simulate its mode: the summary, the per-workflow
    times and the regular jobs' slowdowns per size group (a pure function of ``config``)."""
    from ..sweeps.tasks import check_valid
    from .formats import load_workflow
    from .simulate import simulate_mode
    from .workload import generate, machine_of

    given = config["workflow"]
    wfs = [] if given is None else [load_workflow(given, coarse=config["coarse"])]
    share = config["value"] if config["kind"] == "share" else None
    period = config["value"] if config["kind"] == "period" else None
    ww = generate(
        wfs,
        cluster=machine_of(config["machine"]),
        seed=config["seed"],
        share=share,
        period=period,
        warmup=config["warmup"],
        window=config["window"],
        pressure=config["pressure"],
        target_wait=config["target_wait"],
        scale_jobs=config.get("scale_jobs", False),
    )
    run = simulate_mode(ww, config["mode"], config["scheduler"], drain=config["drain"])
    check_valid(run)
    wf = run.workflows
    sd = run.slowdowns
    summary = run.summary()
    return {
        "config": config,
        "summary": {k: (float(v) if isinstance(v, np.floating) else v) for k, v in summary.items()},
        "workflows": {
            c: _rounded(wf[c].to_numpy(float))
            for c in ("submit", "wait", "runtime", "turnaround", "gaps")
        }
        | {c: [bool(x) for x in wf[c]] for c in ("completed", "in_window")},
        "slowdowns": {
            g: _rounded(np.sort(sd["slowdown"][sd["group"] == g].to_numpy(float)))
            for g in ("small", "medium", "large")
        },
    }


#: what a stored run's metrics mean: runs made before whole-node utilization, window-only
#: workflows and the drain (issue 28) hold other numbers, and a sweep of them is not resumed
METRICS = "window workflows ended by the drain, whole-node allocation"
#: what every run of a sweep shares: resuming into a sweep made with other values is refused
FIXED = ("machine", "kind", "warmup", "window", "drain", "pressure", "target_wait",
         "scale_jobs", "scheduler", "coarse", "metrics")  # fmt: skip


def _shape(row: dict[str, Any]) -> None:
    row["config"]["kind"], row["summary"]["mode"]  # noqa: B018 (a KeyError: not a run)


#: the experiments as a sweep of the one driver (``SWEEP.run(spec, out, jobs=, ...)``); its
#: spec.json holds what the stored runs depend on and the version of their metrics
SWEEP = Sweep(
    "workflow", run_one, partial(spec_record, metrics=METRICS), FIXED, _shape, legacy_key="modes"
)


# -- pooling the seeds ----------------------------------------------------------------------------
#: the system metrics of a run's summary averaged over the seeds (.workflows.metrics)
SYSTEM_KEYS = ("actual_utilization", "utilization", "requested_core_utilization", "waste_core_h")


def aggregate(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per (workflow, share/period, mode): medians of the workflows submitted inside
    the analysis window (never the warm-up's) and completed in every mode of the same seed,
    pooled over the seeds; the mean (actual) utilization over the seeds;
    the pooled regular-job slowdown medians and their ratio to the no-workflow baseline; and
    for WoAS its turnaround speedup over pilot and chained and its actual-utilization gain
    over pilot (percentage points)."""
    from .metrics import completed_in_all

    base: dict[str, list[float]] = {"small": [], "medium": [], "large": []}
    groups: dict[tuple, dict[int, dict[str, Any]]] = {}
    for r in rows:
        c = r["config"]
        if c["kind"] == "none":
            for g in base:
                base[g] += [x for x in r["slowdowns"][g] if x is not None]
            continue
        groups.setdefault((c["workflow_name"], c["kind"], c["value"]), {}).setdefault(
            c["seed"], {}
        )[c["mode"]] = r
    out = []
    base_med = {g: float(np.median(v)) if v else math.nan for g, v in base.items()}
    for (name, kind, value), seeds in sorted(groups.items()):
        modes = sorted({m for s in seeds.values() for m in s})
        pooled: dict[str, dict[str, list]] = {m: {} for m in modes}
        for by_mode in seeds.values():
            common = completed_in_all({m: r["workflows"] for m, r in by_mode.items()})
            for m, r in by_mode.items():
                p = pooled[m]
                for col in ("wait", "runtime", "turnaround", "gaps"):
                    vals = np.asarray(r["workflows"][col], dtype=float)[common]
                    p.setdefault(col, []).extend(vals.tolist())
                for key in SYSTEM_KEYS:
                    p.setdefault(key, []).append(r["summary"][key])
                for g in ("small", "medium", "large"):
                    p.setdefault(f"sd_{g}", []).extend(
                        x for x in r["slowdowns"][g] if x is not None
                    )
        done: dict[str, dict[str, Any]] = {}
        for m in modes:
            p = pooled[m]
            row: dict[str, Any] = {
                "workflow": name,
                kind: value,
                "mode": m,
                "seeds": len(seeds),
                "compared": len(p.get("wait", [])),
            }
            for col in ("wait", "runtime", "turnaround", "gaps"):
                v = p.get(col, [])
                row[f"median_{col}_h"] = float(np.median(v)) / 3600 if v else math.nan
            for key in SYSTEM_KEYS:
                row[key] = float(np.mean(p[key]))
            for g in ("small", "medium", "large"):
                v = p.get(f"sd_{g}", [])
                med = float(np.median(v)) if v else math.nan
                row[f"slowdown_{g}"] = med
                row[f"slowdown_{g}_ratio"] = (
                    med / base_med[g] if base_med[g] == base_med[g] else math.nan
                )
            if m == "woas":  # sorted after the modes it is compared with
                for other in ("pilot", "chained"):
                    if other in done:
                        row[f"speedup_over_{other}"] = np.divide(
                            done[other]["median_turnaround_h"], row["median_turnaround_h"]
                        )
                if "pilot" in done:
                    row["utilization_gain_over_pilot"] = 100 * (
                        row["actual_utilization"] - done["pilot"]["actual_utilization"]
                    )
            done[m] = row
            out.append(row)
    return pd.DataFrame(out)


def summary(out: Path) -> Table | None:
    """The sweep's table as the command line prints it and the dashboard shows it: title,
    columns and text cells, one row per (workflow, share or period, mode) of
    :func:`aggregate`'s frame stored in ``out``'s summary.csv (None before there is one)."""
    from ..tables import number

    df = read_table(out / "summary.csv")
    if df is None:
        return None
    key = "share" if "share" in df.columns else "period"
    columns = ["workflow", key, "mode", "n", "wait h", "run h", "turn h", "act.util %"]
    rows = [
        [
            str(r["workflow"]),
            f"{r[key]:g}",
            str(r["mode"]),
            f"{int(r['compared']):,}",
            number(r["median_wait_h"], 2),
            number(r["median_runtime_h"], 2),
            number(r["median_turnaround_h"], 2),
            number(r["actual_utilization"], 1, 100),
        ]  # fmt: skip
        for _, r in df.iterrows()
    ]
    return f"{out.name}: medians over window workflows completed in every mode", columns, rows


def report(spec: WorkflowSpec, target: Path, rows: list[dict[str, Any]]) -> list[Path]:
    """summary.csv, the utilization-gain table and the figures of a finished (or partial)
    sweep; the files written."""
    from ..outputs import atomic_file
    from ..sweeps.capability import write_summary
    from . import plots

    df = aggregate(rows)
    written = [write_summary(df, target, "workflow")]
    key = spec.kind
    table = plots.gain_table(df, key)
    if table:
        with atomic_file(target / "utilization_gain.md", force=True) as tmp:
            tmp.write_text(table)
        written.append(target / "utilization_gain.md")
    written += save_figures(
        target,
        (
            ("groups.png", plots.group_figures(df)),
            ("speedup.png", plots.speedup_figure(df, key)),
            ("slowdown_small.png", plots.slowdown_figure(df, key)),
        ),
    )
    return written
