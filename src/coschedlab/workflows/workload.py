"""A workload with workflows, independent of how the workflows are submitted, and the WoAS
paper's generator for it (Rodrigo et al., HPDC'17, Section 4.2; the authors' ScSF).

:class:`WorkflowWorkload` holds the regular jobs and the workflow submissions (which workflow,
when). The same seed gives the same regular jobs and workflow submit times whatever the mode:
:mod:`.modes` turns it into the jobs of one mode.

The generator (:func:`generate`), as the paper describes it:

* **pre-fill** (ScSF's machine filler): before the workload starts, ``count = min(target_wait
  / 10, nodes)`` jobs spread evenly over ``target_wait`` (ScSF: one every 10 s; on a machine
  of fewer nodes than that, fewer jobs), each of ``ceil(nodes / count)`` nodes running
  ``2 x target_wait + 120`` s, fill the machine so that the first regular jobs wait about
  ``target_wait`` (4 h);
* **regular jobs** drawn from a :class:`.jobmodel.JobModel` (size, limit, accuracy jointly)
  without the jobs ScSF refuses on Edison (:func:`edison_filter`: over a quarter of the
  machine, over 5 days, or over 10^8 core-seconds when wide or long), at candidate times from
  its inter-arrival law (scaled so candidates come ``oversample`` times faster than the target
  pressure needs); a candidate is submitted only while the core-seconds submitted since the
  start are below ``pressure`` times the capacity so far (the realised **job pressure** over
  the run is ``pressure``, up to one job; ScSF's ``WorkflowPercent`` keeps the same cumulative
  index under a cap), and while those of the last ``pressure_window`` seconds are below
  ``BURST`` (1.1, ScSF's cap) x ``pressure`` x the window's capacity (no burst);
* the **pressure** (:data:`PRESSURE`, 0.96) is fitted: the paper's "slightly over 1.0" makes
  the queue under ``slurm`` grow all through the window (it keeps ~96.5% of the machine busy,
  not 100%), so the wait baseline rises; at 0.96 the median wait per 6 h stays flat;
* **workflows** either every ``period`` seconds, or by **share**: a submitted candidate is a
  workflow while the workflows' share of the submitted core-seconds is below ``share`` (ScSF's
  ``WorkflowPercent``); a workflow's core-seconds are its tasks' (the same in every mode);
* a **warm-up** (1 day) that is simulated but not analysed, then the **analysis window**
  (5 days); jobs are generated until the window ends.

Times are seconds from the start of the simulation: the pre-fill starts at 0, the workload at
``start`` (= target_wait + 120 s), the window at ``start + warmup``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, check_seed
from ..jobs import Workload
from ..platform import Cluster
from .jobmodel import JobModel
from .model import Workflow

__all__ = [
    "EDISON",
    "LIMITS",
    "PRESSURE",
    "WorkflowWorkload",
    "edison_filter",
    "generate",
    "machine_of",
    "wait_profile",
]

#: NERSC's Edison as the WoAS experiments modelled it: 5,576 nodes x 24 cores, whole nodes
EDISON = Cluster.from_cores(5576, 24)


def machine_of(text: str) -> Cluster:
    """``edison`` or ``NODESxCORES`` (e.g. ``1394x24``: a quarter of Edison)."""
    if text.strip().lower() == "edison":
        return EDISON
    try:
        nodes, cores = (int(p) for p in text.lower().split("x"))
    except ValueError:
        raise InputError(
            f"expected edison or NODESxCORES (e.g. 1394x24), got {text!r}", "--machine"
        ) from None
    if not (1 <= nodes <= 10**7 and 1 <= cores <= 10**5):
        raise InputError(
            f"nodes must be 1 to 10^7 and cores per node 1 to 10^5, got {text!r}", "--machine"
        )
    return Cluster.from_cores(nodes, cores)


FILL_GAP = 10.0  # seconds between pre-fill jobs (ScSF)
FILL_TAIL = 120.0  # the pre-fill's final gap (ScSF)
#: the job pressure fitted so that the queue of the Edison-like load is stationary under
#: ``slurm`` (see the docs, "The workload (Edison-like)"); the paper: "slightly over 1.0"
PRESSURE = 0.96
BURST = 1.1  # an hour's pressure is at most BURST x the target (ScSF's pressure cap, 1.1)
#: (smallest, largest) of :func:`generate`'s times (s) and factors: a time beyond 10 years is
#: a typo, not a study (a sweep spec's are checked against them too)
LIMITS: dict[str, tuple[float, float]] = {
    "period": (1.0, 1e8), "warmup": (0.0, 3e8), "window": (1.0, 3e8),
    "target_wait": (0.0, 3e8), "pressure": (1e-3, 100.0), "pressure_window": (1.0, 3e8),
    "oversample": (1.0, 1000.0),
}  # fmt: skip


def edison_filter(model: JobModel, cluster: Cluster) -> JobModel:
    """The job model without the jobs the WoAS authors' generator refuses on Edison (ScSF's
    ``Edison2015.job_can_be_submitted``): more cores than a quarter of the machine, a run time
    over 5 days, or more than 15,000 cores or 15,000 s together with more than 10^8
    core-seconds. Core bounds scale with the machine (its cores over Edison's)."""
    r = cluster.total_cores / EDISON.total_cores
    run = np.maximum(1.0, np.round(model.limit * model.accuracy))
    big = ((model.cores > 15000 * r) | (run > 15000)) & (model.cores * run > 1e8 * r)
    ok = (model.cores <= cluster.total_cores / 4) & (run <= 5 * 86400) & ~big
    if not ok.any():
        raise InputError(f"no job of the job model passes the Edison filter on {cluster}")
    return JobModel(
        model.cores[ok],
        model.limit[ok],
        model.accuracy[ok],
        model.interarrival,
        f"{model.source}, Edison filter",
    )


@dataclass
class WorkflowWorkload:
    """Regular jobs plus workflow submissions, before a submission mode is chosen.

    ``regular`` holds the regular jobs (ids 1..R; ``filler`` marks the pre-fill jobs among
    them); ``workflows`` the distinct workflows; ``submits`` one row per submitted workflow:
    ``(submit time, index into workflows)``. ``window`` is the analysis window ``(t0, t1)``.
    """

    regular: Workload
    workflows: list[Workflow]
    submits: list[tuple[float, int]]
    cluster: Cluster
    window: tuple[float, float]
    filler: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.filler) != len(self.regular):
            self.filler = np.zeros(len(self.regular), bool)
        cap = self.cluster.total_cores
        for wf in self.workflows:
            big = max(wf.tasks, key=lambda t: t.cores)
            if max(wf.max_cores, big.cores) > cap:
                raise InputError(
                    f"workflow {wf.name}: task {big.id} or its pilot job needs "
                    f"{max(wf.max_cores, big.cores)} cores; the machine has {cap}",
                    wf.source,
                )

    @property
    def n_workflows(self) -> int:
        return len(self.submits)

    def work(self) -> dict[str, float]:
        """Core-seconds of regular jobs (without the pre-fill) and of workflows."""
        c = self.regular.columns
        reg = float((c["procs"] * c["run"])[~self.filler].sum())
        wfs = float(sum(self.workflows[i].usage for _, i in self.submits))
        return {"regular": reg, "workflows": wfs}

    # -- files ----------------------------------------------------------------------------------
    def save(self, out: str | Path) -> None:
        """Write to directory ``out``: ``regular.swf``, ``workflows.csv``, one manifest per
        workflow in ``manifests/`` and ``workload.json`` (machine, window, generator options)."""
        from ..workload.swf import write_workload_swf

        out = Path(out)
        (out / "manifests").mkdir(parents=True, exist_ok=True)
        write_workload_swf(out / "regular.swf", self.regular)
        names = []
        for k, wf in enumerate(self.workflows):
            name = f"{k:02d}-{wf.name}.json"
            names.append(name)
            (out / "manifests" / name).write_text(json.dumps(wf.to_manifest(), indent=1) + "\n")
        lines = ["submit,workflow"] + [f"{t:.0f},{i}" for t, i in self.submits]
        (out / "workflows.csv").write_text("\n".join(lines) + "\n")
        meta = {
            "cluster": {"nodes": self.cluster.nodes, "cores_per_node": self.cluster.cores_per_node},
            "window": list(self.window),
            "manifests": names,
            "filler_jobs": int(self.filler.sum()),
            **self.meta,
        }
        (out / "workload.json").write_text(json.dumps(meta, indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> WorkflowWorkload:
        """Read a directory written by :meth:`save`."""
        from ..bundled import read_json
        from ..workload.swf import read_swf
        from .formats import read_manifest

        path = Path(path)
        if not path.is_dir():
            raise InputError(
                "not a workflow workload directory (made by `workflows generate`)", str(path)
            )
        where = str(path / "workload.json")
        meta = read_json(path / "workload.json")
        if not isinstance(meta, dict):
            raise InputError("not a JSON object", where)

        def whole(v: Any, what: str, lo: int, hi: int) -> int:
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise InputError(f"{what} must be a whole number from {lo} to {hi}, got {v!r}",
                                 where)  # fmt: skip
            return v

        try:
            cl = meta["cluster"]
            cluster = Cluster.from_cores(
                whole(cl["nodes"], "cluster.nodes", 1, 10**7),
                whole(cl["cores_per_node"], "cluster.cores_per_node", 1, 10**5),
            )
            window = (float(meta["window"][0]), float(meta["window"][1]))
            names = meta["manifests"]
            n_fill = whole(meta.get("filler_jobs", 0), "filler_jobs", 0, 10**7)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise InputError(f"missing or bad key ({exc})", where) from None
        if not (math.isfinite(window[0]) and math.isfinite(window[1]) and window[0] < window[1]):
            raise InputError(f"window must be two finite times, first < second, got {window}",
                             where)  # fmt: skip
        if not isinstance(names, list) or not all(
            isinstance(n, str) and n and "/" not in n and n not in (".", "..") for n in names
        ):
            raise InputError("manifests must be a list of file names in manifests/", where)
        regular = read_swf(path / "regular.swf", cluster=cluster, strict=True)
        if n_fill > len(regular):
            raise InputError(f"filler_jobs {n_fill} is more than the {len(regular)} regular jobs",
                             where)  # fmt: skip
        workflows = [read_manifest(path / "manifests" / n) for n in names]
        submits: list[tuple[float, int]] = []
        csv = path / "workflows.csv"
        try:
            text = csv.read_text()
        except OSError as exc:
            raise InputError(f"cannot read ({exc.strerror})", str(csv)) from None
        except UnicodeDecodeError:
            raise InputError("not a text file", str(csv)) from None
        lines = text.splitlines()
        if not lines or lines[0].strip() != "submit,workflow":
            raise InputError("the first line must be the header 'submit,workflow'", f"{csv}:1")
        for lineno, line in enumerate(lines[1:], 2):
            if not line.strip():
                continue
            try:
                t, i = line.split(",")
                k = int(i)
                submit = float(t)
                if not 0 <= k < len(workflows) or not 0 <= submit <= 1e10:
                    raise ValueError
                submits.append((submit, k))
            except ValueError:
                raise InputError(
                    f"not a 'submit,workflow' row: {line!r}", f"{csv}:{lineno}"
                ) from None
        filler = np.zeros(len(regular), bool)
        filler[:n_fill] = True
        extra = {
            k: v
            for k, v in meta.items()
            if k not in ("cluster", "window", "manifests", "filler_jobs")
        }
        return cls(regular, workflows, submits, cluster, window, filler, extra)


def no_work(workflows: Sequence[Workflow]) -> str | None:
    """Why a share of core-hours cannot be reached with ``workflows`` (none of them uses any:
    every candidate became a workflow, 1,061 of them at 0.0% where 20% was asked), or None."""
    if any(wf.usage > 0 for wf in workflows):
        return None
    names = ", ".join(wf.name for wf in workflows)
    return (
        f"a share of core-hours needs a workflow that uses some: {names} "
        f"{'uses' if len(workflows) == 1 else 'use'} 0 core-seconds "
        "(every task runs 0 s); give a period instead"
    )


def generate(
    workflows: Sequence[Workflow] | Workflow = (),
    *,
    cluster: Cluster = EDISON,
    seed: int = 0,
    share: float | None = None,
    period: float | None = None,
    warmup: float = 86400.0,
    window: float = 5 * 86400.0,
    pressure: float = PRESSURE,
    pressure_window: float = 3600.0,
    target_wait: float = 4 * 3600.0,
    oversample: float = 10.0,
    job_model: JobModel | None = None,
    scale_jobs: bool = False,
    job_filter: bool = True,
) -> WorkflowWorkload:
    """A workload of regular jobs and workflows (see the module docstring). ``share`` (0..1]:
    the workflows' share of core-seconds, or ``period`` (s): one workflow every period; with
    several workflows they take turns. Neither: regular jobs only (the no-workflow baseline).
    ``scale_jobs``: multiply the regular jobs' sizes by the machine's cores over Edison's (a
    scaled-down machine keeps Edison's job-size mix relative to the machine; workflows keep
    their own sizes). ``job_filter``: drop the jobs the authors' generator refuses on Edison
    (:func:`edison_filter`)."""
    check_seed(seed, "seed")
    wfs = [workflows] if isinstance(workflows, Workflow) else list(workflows)
    if share is not None and period is not None:
        raise InputError("give a workflow share or a period, not both")
    if (share is not None or period is not None) and not wfs:
        raise InputError("a share or period needs at least one workflow")
    if share is not None and not (0 < share <= 1):
        raise InputError(f"share must be in (0, 1], got {share!r} (a fraction: 0.1 = 10%)")
    if share is not None and (why := no_work(wfs)):
        raise InputError(why)
    for name, v in (
        ("period", period), ("warmup", warmup), ("window", window),
        ("target_wait", target_wait), ("pressure", pressure),
        ("pressure_window", pressure_window), ("oversample", oversample),
    ):  # fmt: skip
        if v is None:
            continue
        lo, hi = LIMITS[name]
        if (
            not isinstance(v, int | float)
            or isinstance(v, bool)
            or not math.isfinite(v)
            or not lo <= v <= hi
        ):
            raise InputError(f"{name} must be a number from {lo:g} to {hi:g}, got {v!r}")
    model = job_model or JobModel.from_csv()
    if scale_jobs:
        model = model.scaled(cluster.total_cores / EDISON.total_cores, cluster.cores_per_node)
    if job_filter:
        model = edison_filter(model, cluster)
    rng = np.random.default_rng(seed)
    cap = cluster.total_cores
    fits = model.cores <= cap
    if not fits.any():
        raise InputError(f"no job of the job model fits a machine of {cap} cores")
    if not fits.all():
        model = JobModel(
            model.cores[fits],
            model.limit[fits],
            model.accuracy[fits],
            model.interarrival,
            model.source,
        )
    cpn = cluster.cores_per_node
    # 1. pre-fill
    fill_n = min(int(target_wait // FILL_GAP), cluster.nodes)
    rows: list[tuple[float, float, float, int]] = []  # submit, run, limit, cores
    if fill_n:
        gap = math.floor(target_wait / fill_n)
        fill_nodes = -(-cluster.nodes // fill_n)
        fill_run = 2 * target_wait + FILL_TAIL
        fill_lim = (math.floor(fill_run / 60) + 1) * 60.0
        rows += [(k * gap, fill_run, fill_lim, fill_nodes * cpn) for k in range(fill_n)]
    start = target_wait + FILL_TAIL if fill_n else 0.0
    end = start + warmup + window
    # 2. regular jobs and workflows at pressure-controlled candidate times
    gaps = model.interarrival
    need_rate = pressure * cap / model.mean_work()  # jobs per second at the target pressure
    scale = 1.0 / (need_rate * oversample * max(gaps.mean(), 1e-9))
    recent: list[tuple[float, float]] = []  # (submit, core-s) in the pressure window
    head = 0
    in_window = 0.0
    wf_work = 0.0
    all_work = 0.0
    submits: list[tuple[float, int]] = []
    turn = 0
    next_period = start if period is not None else math.inf
    t = start
    batch = 4096
    g_buf = np.empty(0)
    j_buf: tuple[np.ndarray, ...] = ()
    gi = ji = 0
    limit_w = BURST * pressure * cap * pressure_window
    while True:
        if gi == len(g_buf):
            g_buf = gaps[rng.integers(0, len(gaps), size=batch)] * scale
            gi = 0
        t_next = t + g_buf[gi]
        gi += 1
        while next_period <= min(t_next, end) and next_period < end:  # periodic workflows
            wf = wfs[turn % len(wfs)]
            submits.append((math.floor(next_period), turn % len(wfs)))
            turn += 1
            recent.append((next_period, wf.usage))
            in_window += wf.usage
            next_period += period  # type: ignore[operator]
        t = t_next
        if t >= end:
            break
        while head < len(recent) and recent[head][0] <= t - pressure_window:
            in_window -= recent[head][1]
            head += 1
        if in_window >= limit_w or all_work >= pressure * cap * (t - start):
            continue
        ts = math.floor(t)
        if share is not None and wf_work < share * max(all_work, 1.0):
            k = turn % len(wfs)
            turn += 1
            work = wfs[k].usage
            submits.append((ts, k))
            wf_work += work
        else:
            if ji == 0 or ji == len(j_buf[0]):
                j_buf = model.draw(rng, batch)
                ji = 0
            cores, limit, run = (int(j_buf[0][ji]), float(j_buf[1][ji]), float(j_buf[2][ji]))
            ji += 1
            rows.append((ts, run, limit, cores))
            work = cores * run
        all_work += work
        recent.append((t, work))
        in_window += work
    n = len(rows)
    arr = np.array(rows, dtype=np.float64).reshape(n, 4)
    regular = Workload(
        {
            "id": np.arange(1, n + 1, dtype=np.int64),
            "submit": arr[:, 0],
            "run": arr[:, 1],
            "requested_time": arr[:, 2],
            "procs": arr[:, 3].astype(np.int64),
        },
        source=f"generated (seed {seed})",
    )
    filler = np.zeros(n, bool)
    filler[:fill_n] = True
    meta = {
        "seed": seed,
        "share": share,
        "period": period,
        "start": start,
        "warmup": warmup,
        "pressure": pressure,
        "pressure_window": pressure_window,
        "target_wait": target_wait,
        "job_model": model.source,
        "scale_jobs": scale_jobs,
        "job_filter": job_filter,
    }
    return WorkflowWorkload(regular, wfs, submits, cluster, (start + warmup, end), filler, meta)


def wait_profile(
    ww: WorkflowWorkload, jobs: Any, bin_s: float = 6 * 3600.0
) -> tuple[np.ndarray, np.ndarray]:
    """The wait baseline over the analysis window: the median wait (s) of the regular jobs
    (pre-fill excluded) submitted in each ``bin_s`` bin of the window, from a run's jobs table
    (``job_id``, ``submit``, ``start``). A job not started by the run's end counts its wait
    until the window's end (a lower bound: the last bin is censored). Returns the bins' start
    times and medians (NaN for an empty bin)."""
    t0, t1 = ww.window
    ids = jobs["job_id"].to_numpy()
    submit = jobs["submit"].to_numpy(dtype=np.float64)
    start = jobs["start"].to_numpy(dtype=np.float64)
    regular = (ids > int(ww.filler.sum())) & (ids <= len(ww.regular))
    wait = np.where(np.isfinite(start), start, t1) - submit
    edges = np.arange(t0, t1, bin_s)
    medians = np.full(len(edges), np.nan)
    for k, lo in enumerate(edges):
        sel = regular & (submit >= lo) & (submit < min(lo + bin_s, t1))
        if sel.any():
            medians[k] = float(np.median(wait[sel]))
    return edges, medians
