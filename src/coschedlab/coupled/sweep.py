"""The coupled-systems study (Tang et al. 2011, Section V) as a resumable sweep on the one
runner: scheme combination x small-system load (vicinity pairing) and scheme combination x
paired proportion (twin workload), each with its no-pairing baseline, per seed. Every run is one
JSON file in ``OUT/runs``; interrupted sweeps resume. :func:`aggregate` averages the seeds.

Spec (YAML, every key checked)::

    name: coupled-paper
    large: theta               # bundled ALCF Theta 2022 (4,360 nodes) or an SWF path
    large_nodes: 4360
    month: 1                   # month of 2022 for theta (or of an epoch-time trace; a trace
                               # with relative times is used whole)
    small: kth                 # bundled KTH-SP2 (100 nodes) or an SWF path
    small_nodes: 100
    schemes: [HH, HY, YH, YY]  # large system's scheme, then the small system's
    calibrate: paper           # or none (the default): see below
    loads: [0.25, 0.5, 0.75]   # small system's utilization (arrivals stretched); [] skips
    vicinity: 120              # s, pairing of the load study
    proportions: [0.025, 0.05, 0.1, 0.2, 0.33]   # [] skips the proportion study
    proportion_load: 0.5       # the twin workload's load
    seeds: 3                   # or a list
    scheduler: easy:order=wfp  # or [large's, small's]
    hold_cap: 0.6
    release: 1200              # s; 0 turns release off
    release_age: 600
    max_yields: null
    mate_attempt: queued       # or yielded (Cobalt's code)
    output: out/coupled-paper

``calibrate: paper`` (theta and kth only) makes the stand-ins queue as the paper's machines did
in its baselines (docs/coupled.md, "Calibration"; ``benchmarks/coupled_calibration.py``): the
large system is ``PAPER_LARGE_SCALE`` Thetas running the month's jobs and the following
months' with every inter-arrival gap stretched by one factor so the month offers
``PAPER_LARGE_LOAD`` (Intrepid's 9,219 jobs a month and 61-min mean wait); ``loads`` and
``proportion_load`` are then the paper's utilization labels (0.25 / 0.5 / 0.75; 0.5), each
run at the offered load that gives the paper's baseline slowdown (``PAPER_SMALL_LOADS``,
``PAPER_TWIN_LOAD``). Without it the month is taken as recorded and
``loads`` are offered loads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from ..bundled import bundled, is_bundled
from ..errors import InputError
from ..platform import MAX_NODES
from ..schema import Checker, open_spec, show
from ..sweeps.capability import Table, read_table, save_figures, spec_place, spec_record
from ..sweeps.sweep import Sweep

__all__ = [
    "SWEEP", "CoupledSpec", "aggregate", "load_coupled_spec", "report", "run_one", "summary",
]  # fmt: skip

COMBOS = ("HH", "HY", "YH", "YY")
MAX_SEEDS = 1000
_KEYS = (
    "name", "large", "large_nodes", "month", "small", "small_nodes", "schemes", "loads",
    "vicinity", "proportions", "proportion_load", "seeds", "scheduler", "hold_cap", "release",
    "release_age", "max_yields", "mate_attempt", "output", "executor", "calibrate",
)  # fmt: skip
#: what every run of a sweep shares: resuming into a sweep made with other values is refused
FIXED = ("large", "large_nodes", "month", "small", "small_nodes", "vicinity",
         "proportion_load", "schedulers", "hold_cap", "release", "release_age", "max_yields",
         "mate_attempt", "calibrate")  # fmt: skip


@dataclass(frozen=True)
class CoupledSpec:
    """A checked sweep spec (see the module docstring)."""

    path: Path
    name: str
    large: str
    large_nodes: int
    month: int
    small: str
    small_nodes: int
    schemes: tuple[str, ...]
    loads: tuple[float, ...]
    vicinity: float
    proportions: tuple[float, ...]
    proportion_load: float
    seeds: tuple[int, ...]
    schedulers: tuple[str, str]
    hold_cap: float
    release: float
    release_age: float
    max_yields: int | None
    mate_attempt: str
    output: Path
    executor: Any = None  # where the runs execute (an ExecutorSpec; None: local)
    calibrate: str | None = None  # "paper": the stand-ins calibrated to the paper's baselines

    def configs(self) -> dict[str, dict[str, Any]]:
        """Every run's key -> its configuration (JSON-able: a worker rebuilds it all)."""
        common = {k: getattr(self, k) for k in FIXED}
        common["schedulers"] = list(self.schedulers)
        out: dict[str, dict[str, Any]] = {}
        for seed in self.seeds:
            for u in self.loads:
                for combo in ("none", *self.schemes):
                    out[f"load{u:.12g}-{combo}-s{seed}"] = {
                        **common, "study": "load", "x": u, "combo": combo, "seed": seed,
                    }  # fmt: skip
            if self.proportions:
                out[f"prop-none-s{seed}"] = {
                    **common, "study": "proportion", "x": 0.0, "combo": "none", "seed": seed,
                }  # fmt: skip
            for p in self.proportions:
                for combo in self.schemes:
                    out[f"prop{p:.12g}-{combo}-s{seed}"] = {
                        **common, "study": "proportion", "x": p, "combo": combo, "seed": seed,
                    }  # fmt: skip
        return out


def _trace(ck: Checker, raw: dict, key: str, default: str, base: Path) -> str:
    text = ck.string(raw.get(key, default), key)
    if text in ("theta", "kth"):
        return text
    if is_bundled(text):  # read_swf reads coschedlab:NAME; kept as written (spec.json)
        try:
            bundled(text)
        except InputError as exc:
            raise ck.fail(f"'{key}': {exc}", key) from None
        return text
    p = Path(text) if Path(text).is_absolute() else base / text
    if p.is_dir():  # it said 'no such trace file' of a folder that is there
        raise ck.fail(f"'{key}': {text!r} is a directory, not a trace file", key)
    if not p.is_file():
        raise ck.fail(f"'{key}': no such trace file {text!r} (or use theta / kth)", key)
    return str(p)


def load_coupled_spec(path: str | Path) -> CoupledSpec:
    """Read and check a sweep spec; errors name the file, line and key."""
    from ..schedulers import get_scheduler
    from .workloads import KTH_NODES, THETA_NODES

    path = Path(path)
    ck, raw = open_spec(path, _KEYS, "docs/coupled.md")
    base = path.resolve().parent
    schemes = tuple(
        ck.choice(str(s).upper() if isinstance(s, str) else s, f"schemes[{i}]", COMBOS)
        for i, s in enumerate(ck.items(raw.get("schemes", list(COMBOS)), "schemes"))
    )
    if len(set(schemes)) != len(schemes):
        raise ck.fail("'schemes' names a combination twice", "schemes")

    def fractions(key: str, default: list[float], upper: float) -> tuple[float, ...]:
        vals = []
        value = raw.get(key, default)
        for i, v in enumerate([] if value == [] else ck.items(value, key)):
            x = ck.number(v, f"{key}[{i}]", positive=True)
            if x > upper:
                raise ck.fail(
                    f"'{key}[{i}]' must be at most {upper:g}, got {show(v)}", f"{key}[{i}]"
                )
            vals.append(x)
        if len({f"{v:.12g}" for v in vals}) != len(vals):
            raise ck.fail(f"'{key}' names a value twice", key)
        return tuple(vals)

    loads = fractions("loads", [0.25, 0.5, 0.75], 2.0)
    proportions = fractions("proportions", [0.025, 0.05, 0.1, 0.2, 0.33], 1.0)
    if not loads and not proportions:
        raise ck.fail("both 'loads' and 'proportions' are empty: nothing to run")
    seeds = ck.seeds(raw.get("seeds", 1), "seeds", MAX_SEEDS)
    sched_raw = raw.get("scheduler", "easy:order=wfp")
    scheds = (
        [ck.string(s, f"scheduler[{i}]") for i, s in enumerate(ck.items(sched_raw, "scheduler"))]
        if isinstance(sched_raw, list)
        else [ck.string(sched_raw, "scheduler")] * 2
    )
    if len(scheds) != 2:
        raise ck.fail("'scheduler' is one spec or a list of two (large, small)", "scheduler")
    for s in scheds:
        try:
            get_scheduler(s)
        except InputError as exc:
            raise ck.fail(f"'scheduler': {exc}", "scheduler") from None
    max_yields = raw.get("max_yields")
    if max_yields is not None:
        max_yields = ck.integer(max_yields, "max_yields", minimum=0)
    hold_cap = ck.number(raw.get("hold_cap", 0.6), "hold_cap")
    if not 0 <= hold_cap <= 1:
        raise ck.fail(
            f"'hold_cap' is a share of the machine in [0, 1], got {hold_cap:g}", "hold_cap"
        )
    month = ck.integer(raw.get("month", 1), "month", minimum=1)
    if month > 12:
        raise ck.fail(f"'month' must be 1..12, got {month}", "month")
    large = _trace(ck, raw, "large", "theta", base)
    large_nodes = ck.integer(raw.get("large_nodes", 4360), "large_nodes", 1, MAX_NODES)
    small = _trace(ck, raw, "small", "kth", base)
    small_nodes = ck.integer(raw.get("small_nodes", 100), "small_nodes", 1, MAX_NODES)
    proportion_load = ck.number(raw.get("proportion_load", 0.5), "proportion_load", positive=True)
    if proportion_load > 2:  # as 'loads' and --system's load= (20 ran: a queue without end)
        raise ck.fail(
            f"'proportion_load' must be at most 2, got {show(raw['proportion_load'])}",
            "proportion_load",
        )
    calibrate = _calibrate(ck, raw, large, small, loads, proportions, proportion_load)
    for key, nodes, fitted, trace, note in (
        ("large_nodes", large_nodes, THETA_NODES, "theta's", " (run as five Thetas)"),
        ("small_nodes", small_nodes, KTH_NODES, "kth's", ""),
    ):
        if calibrate and nodes != fitted:  # as --system's calibrate=paper refuses nodes=
            raise ck.fail(
                f"'{key}': calibrate: paper is fitted on {trace} {fitted} nodes{note}, got {nodes}",
                key,
            )
    # each trace read once: its own errors name the trace's key, a machine too small for all
    # of its jobs the nodes key
    for key, read, nodes in (
        ("large", lambda: large_workload(large, month, 2**62)[0], large_nodes),
        ("small", lambda: _pool(small, 2**62), small_nodes),
    ):
        try:
            w = read()
        except InputError as exc:
            raise ck.fail(f"'{key}': {exc}", key) from None
        if not (w.columns["procs"] <= nodes).any():
            raise ck.fail(f"'{key}_nodes': no job of {key} fits {nodes} nodes", f"{key}_nodes")
    return CoupledSpec(
        large=large,
        large_nodes=large_nodes,
        month=month,
        small=small,
        small_nodes=small_nodes,
        schemes=schemes,
        loads=loads,
        vicinity=ck.number(raw.get("vicinity", 120.0), "vicinity"),
        proportions=proportions,
        proportion_load=proportion_load,
        seeds=seeds,
        schedulers=(scheds[0], scheds[1]),
        hold_cap=hold_cap,
        release=_release(ck, raw),
        release_age=ck.number(raw.get("release_age", 600.0), "release_age"),
        max_yields=max_yields,
        mate_attempt=ck.choice(
            raw.get("mate_attempt", "queued"), "mate_attempt", ("queued", "yielded")
        ),
        calibrate=calibrate,
        **spec_place(ck, raw, path),
    )


def _release(ck: Checker, raw: dict) -> float:
    """The spec's ``release`` period (s); 0 turns release off (``none`` and ``off``, the
    command line's words, are refused with that hint)."""
    value = raw.get("release", 1200.0)
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "off")):
        raise ck.fail(f"'release': 0 turns release off, got {show(value)}", "release")
    return ck.number(value, "release")


def _calibrate(
    ck: Checker, raw: dict, large: str, small: str, loads: tuple[float, ...],
    proportions: tuple[float, ...], proportion_load: float,
) -> str | None:  # fmt: skip
    """The spec's ``calibrate`` (None or ``"paper"``), checked against what it was fitted on."""
    from .workloads import paper_small_load

    value = raw.get("calibrate")
    if value is None or value == "none":
        return None
    ck.choice(value, "calibrate", ("paper", "none"))
    if (large, small) != ("theta", "kth"):
        raise ck.fail(
            "'calibrate': paper is fitted on large: theta and small: kth, got "
            f"{large!r} and {small!r}",
            "calibrate",
        )
    try:
        for i, u in enumerate(loads):
            key = f"loads[{i}]"
            paper_small_load(u)
        if proportions:
            key = "proportion_load"
            paper_small_load(proportion_load, twin=True)
    except InputError as exc:
        raise ck.fail(f"'{key}': {exc}", key) from None
    return "paper"


# -- one run ----------------------------------------------------------------------------------
@lru_cache(maxsize=4)
def large_workload(trace: str, month: int, nodes: int, load: float | None = None):
    """The large system's jobs and the span (s) the study covers: one month of a trace with
    epoch submit times (``theta``: 2022; a file: the year of its first job; with ``load``, the
    jobs from the month's start on stretched to offer it in the month:
    :func:`~coschedlab.coupled.workloads.large_at_load`), or a trace with relative times whole,
    from its first submit to its last."""
    import calendar
    import time

    from .workloads import TRACES, large_at_load, month_of

    path = TRACES.get(trace, trace)
    w = _pool(trace, nodes)
    first = float(w.columns["submit"].min())
    if first > 1e9:  # epoch times: one calendar month
        year = 2022 if trace == "theta" else time.gmtime(first).tm_year
        days = calendar.monthrange(year, month)[1]
        if load is not None:
            return large_at_load(path, month, nodes, load, year)[0], days * 86400.0
        return month_of(path, year, month, nodes), days * 86400.0
    w = w.shifted()
    return w, max(1.0, float(w.columns["submit"].max()))


@lru_cache(maxsize=4)
def _pool(trace: str, nodes: int):
    """A trace's jobs up to ``nodes`` processors, read once (the small system's pool, the
    large system's whole trace)."""
    from ..workload.swf import read_swf
    from .workloads import TRACES

    return read_swf(TRACES.get(trace, trace), max_procs=nodes)


def large_nodes(config: dict[str, Any]) -> int:
    """The large machine's nodes: ``large_nodes``, times
    :data:`~coschedlab.coupled.workloads.PAPER_LARGE_SCALE` under ``calibrate: paper``."""
    from .workloads import PAPER_LARGE_SCALE

    scale = PAPER_LARGE_SCALE if config.get("calibrate") == "paper" else 1
    return int(config["large_nodes"]) * scale


def study_workloads(config: dict[str, Any]):
    """The two workloads and the pairing of ``config`` (a pure function of it; the pairing as
    :func:`~.setup.run_coupled` takes it: vicinity, every ``round(1 / x)``-th twin, or none)."""
    from .workloads import (
        PAPER_LARGE_LOAD,
        paper_small_load,
        stretch_to_load,
        twin_workload,
    )

    paper = config.get("calibrate") == "paper"
    large, span = large_workload(
        config["large"], config["month"], large_nodes(config),
        PAPER_LARGE_LOAD if paper else None,
    )  # fmt: skip
    pool = _pool(config["small"], config["small_nodes"])
    seed = config["seed"]
    if config["study"] == "load":
        load = paper_small_load(config["x"]) if paper else config["x"]
        small, _ = stretch_to_load(pool, config["small_nodes"], load, span, seed)
        pairs = f"vicinity:{config['vicinity']!r}"
    else:
        load = config["proportion_load"]
        load = paper_small_load(load, twin=True) if paper else load
        small = twin_workload(large, pool, config["small_nodes"], load, span, seed)
        pairs = f"proportion:{config['x']!r}"
    return large, small, "none" if config["combo"] == "none" else pairs


def run_one(config: dict[str, Any]) -> dict[str, Any]:
    """Simulate one configuration: the metrics of both systems (a pure function of ``config``)."""
    from ..schedulers import get_scheduler
    from .setup import run_coupled
    from .system import System
    from .workloads import cluster_of

    large, small, pairs = study_workloads(config)
    combo = config["combo"] if config["combo"] != "none" else "HH"
    release = config["release"] or None
    systems = [
        System(
            name,
            w,
            cluster_of(nodes),
            scheduler=get_scheduler(sched),
            scheme="hold" if letter == "H" else "yield",
            hold_cap=config["hold_cap"],
            release=release,
            release_age=config["release_age"],
            max_yields=config["max_yields"],
        )
        for name, w, nodes, sched, letter in (
            ("large", large, large_nodes(config), config["schedulers"][0], combo[0]),
            ("small", small, config["small_nodes"], config["schedulers"][1], combo[1]),
        )
    ]
    r, metrics, *_ = run_coupled(systems, pairs, config["mate_attempt"], baseline=False)
    return {"config": config, "metrics": metrics, "wall_time": r.wall_time}


# -- the sweep --------------------------------------------------------------------------------
def _shape(row: dict[str, Any]) -> None:
    """KeyError or TypeError unless ``row`` is a run of this sweep with numeric metrics."""
    row["config"]["study"]  # noqa: B018
    for m in (row["metrics"]["large"], row["metrics"]["small"]):
        for k in METRICS:  # (allocated_utilization: NaN in runs stored before it)
            if not (m.get(k) is None or type(m.get(k)) in (int, float)):
                raise TypeError(k)


#: the study as a sweep of the one driver (``SWEEP.run(spec, out, jobs=, ...)``)
SWEEP = Sweep("coupled", run_one, spec_record, FIXED, _shape, legacy_key="schemes")


#: the metrics averaged over seeds, per system
METRICS = ("wait_mean", "bounded_slowdown_mean", "utilization", "allocated_utilization",
           "sync_mean", "su_loss_node_hours", "su_loss_share", "paired_share", "holds",
           "releases", "yields")  # fmt: skip
#: the metrics set beside the no-pairing baseline's (base_M) and their difference (M_delta)
BASED = ("wait_mean", "bounded_slowdown_mean", "utilization")


def aggregate(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per (study, x, scheme combination, system): each metric averaged over the
    seeds, the baseline's (no pairing, same workloads) beside it and the difference."""
    recs = []
    for r in rows:
        c = r["config"]
        for system, m in r["metrics"].items():
            rec = {
                "study": c["study"], "x": c["x"], "combo": c["combo"], "seed": c["seed"],
                "system": system,
            }  # fmt: skip
            rec.update({k: m.get(k, math.nan) for k in METRICS})
            recs.append(rec)
    if not recs:
        return pd.DataFrame()
    df = pd.DataFrame(recs)
    base = df[df["combo"] == "none"]
    runs = df[df["combo"] != "none"]
    keys = ["study", "x", "combo", "system"]
    mean = runs.groupby(keys, as_index=False)[list(METRICS)].mean()
    mean["seeds"] = runs.groupby(keys)["seed"].nunique().to_numpy()
    b = base.groupby(["study", "x", "system"])[list(BASED)].mean().add_prefix("base_")
    bx = mean["x"].where(mean["study"] == "load", 0.0)  # one baseline (x 0) for every proportion
    at = pd.MultiIndex.from_arrays([mean["study"], bx, mean["system"]])
    out = mean.join(b.reindex(at).set_axis(mean.index))
    for m in BASED:
        out[f"{m}_delta"] = out[m] - out[f"base_{m}"]
    order = {"load": 0, "proportion": 1}
    out = out.sort_values(
        ["study", "system", "x", "combo"], key=lambda s: s.map(order) if s.name == "study" else s
    )
    return out.reset_index(drop=True)


def summary(out: Path) -> Table | None:
    """The sweep's table as the command line prints it and the dashboard shows it: title,
    columns and text cells, one row per (study, x, system, scheme) of :func:`aggregate`'s
    frame stored in ``out``'s summary.csv (None before there is one)."""
    df = read_table(out / "summary.csv")
    if df is None:
        return None
    columns = ["study", "x", "sys", "combo", "wait", "d wait", "bsld", "sync", "SU loss"]
    rows = [
        [
            str(r["study"]),
            f"{r['x']:g}",
            str(r["system"]),
            str(r["combo"]),
            f"{r['wait_mean'] / 60:.0f}",
            f"{r['wait_mean_delta'] / 60:+.0f}",
            f"{r['bounded_slowdown_mean']:.1f}",
            f"{r['sync_mean'] / 60:.0f}",
            f"{100 * r['su_loss_share']:.2f}%",
        ]  # fmt: skip
        for _, r in df.iterrows()
    ]
    return "mean over seeds; wait and sync in minutes; d: change vs no pairing", columns, rows


def report(spec: CoupledSpec, target: Path, rows: list[dict[str, Any]]) -> list[Path]:
    """summary.csv and the figures of a finished (or partial) sweep; the files written."""
    from ..sweeps.capability import write_summary
    from .plots import FIGURES, study_figure

    df = aggregate(rows)
    written = [write_summary(df, target, "coupled")]
    figures = (
        (f"{study}_{stem}.png", study_figure(df, study, metric, label, scale, base))
        for study in ("load", "proportion")
        for stem, metric, label, scale, base in FIGURES
    )
    return written + save_figures(target, figures)
