"""The SimX Table 5 reproduction (``coschedlab study reproduce``) as a sweep on the one runner:
every (workers, configuration, seed) is a run of the simulated executor, stored as one JSON
file in ``OUT/runs`` (its metrics and its whole result, for the scheduling graphs); the local
pool or a Dask cluster runs them; interrupted sweeps resume, and more seeds extend a finished
sweep without redoing it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError
from ..sweeps.capability import Table, limit, read_table
from ..sweeps.sweep import Sweep
from ..sweeps.tasks import Task
from .reproduce import simulate_one, table5_rows
from .result import StudyResult
from .spec import StudySpec

__all__ = [
    "SWEEP", "check_command", "described", "report", "run_one", "run_sweep",
    "summary", "table5_cells", "table_of", "tasks_of",
]  # fmt: skip

#: the kind of sweep (messages, and ``"sweep"`` in its spec.json)
WHAT = "study reproduction"
#: what a resumed sweep may not change (more seeds, workers or configurations are fine)
FIXED = ("study", "spec_sha256")


def described(spec: StudySpec) -> dict[str, Any]:
    """What ``OUT/spec.json`` holds: the study and a digest of its spec file."""
    text = Path(spec.source).read_bytes() if spec.source and Path(spec.source).is_file() else b""
    return {"study": spec.name, "spec_sha256": hashlib.sha256(text).hexdigest()}


def seeds_of(spec: StudySpec, seeds: int) -> list[int]:
    """The work-model seeds of a reproduction averaged over ``seeds`` draws: the spec's own
    seed alone for 1, else 0..N-1."""
    assert spec.model is not None
    return [spec.model.seed] if seeds == 1 else list(range(seeds))


def tasks_of(
    spec: StudySpec, workers: Sequence[int], configs: str, seeds: Sequence[int]
) -> list[Task]:
    """One run per (workers, configuration, seed); the spec's own seed always among them
    (its scheduling graphs)."""
    assert spec.model is not None
    every = sorted({*seeds, spec.model.seed})
    return [
        Task(f"{p}-{c}-seed{seed}", run_one, ({"workers": p, "config": c, "seed": seed}, spec))
        for p in workers
        for c in configs
        for seed in every
    ]


def run_one(config: dict[str, Any], spec: StudySpec) -> dict[str, Any]:
    """One run of the sweep (:func:`~coschedlab.studies.reproduce.simulate_one`)."""
    r = simulate_one(spec, config["workers"], config["config"], config["seed"])
    d = r.to_dict()
    return {"config": config, "metrics": StudyResult.from_dict(d).metrics, "result": d}


def _shape(record: dict[str, Any]) -> None:
    record["config"]["workers"], record["metrics"]["total_time"], record["result"]["segments"]


#: the reproduction as a sweep of the one driver
SWEEP = Sweep(WHAT, run_one, described, FIXED, _shape, legacy_key="spec_sha256")


def run_sweep(
    spec: StudySpec,
    out: Path,
    workers: Sequence[int] = (32, 64),
    configs: str = "OABCDE",
    seeds: int = 1,
    **runner: Any,
) -> tuple[Any, list[dict[str, Any]]]:
    """Run (or resume) the reproduction into ``out/runs``: the runner's summary and every
    finished run's record; ``runner``: :meth:`~coschedlab.sweeps.sweep.Sweep.run`'s
    ``jobs``, ``executor``, ``on_start``, ``on_done``, ``on_info``."""
    tasks = tasks_of(spec, workers, configs, seeds_of(spec, seeds))
    return SWEEP.run(spec, out, tasks=tasks, **runner)


def table_of(
    rows: list[dict[str, Any]],
    spec: StudySpec,
    workers: Sequence[int] = (32, 64),
    configs: str = "OABCDE",
    seeds: int = 1,
) -> tuple[pd.DataFrame, dict[tuple[int, str], StudyResult]]:
    """Table 5 from a finished sweep's records (the mean over its seeds), and the results of
    the spec's own seed by (workers, configuration)."""
    assert spec.model is not None
    wanted = set(seeds_of(spec, seeds))
    cells: dict[tuple[int, str], list[dict[str, Any]]] = {}
    own: dict[tuple[int, str], StudyResult] = {}
    for r in rows:
        c = r["config"]
        cell = (c["workers"], c["config"])
        if c["seed"] in wanted:
            cells.setdefault(cell, []).append(r["metrics"])
        if c["seed"] == spec.model.seed:
            own[cell] = StudyResult.from_dict(r["result"])
    return table5_rows(lambda p, c: cells[(p, c)], workers, configs), own


def report(spec: StudySpec, out: Path, rows: list[dict[str, Any]], seeds: int = 1) -> pd.DataFrame:
    """Write the reproduction's report into ``out`` from its finished runs' records:
    table5.csv and table5.png (the mean over ``seeds``), and a folder per run of the spec's
    own seed (its result and scheduling graph); Table 5's frame."""
    from ..outputs import atomic_dir, atomic_file
    from .plots import scheduling_graph, table5_figure

    df, own = table_of(rows, spec, seeds=seeds)
    with atomic_file(out / "table5.csv", force=True) as tmp:
        df.to_csv(tmp, index=False)
    with atomic_file(out / "table5.png", force=True) as tmp:
        table5_figure(df, tmp)
    for (p, c), r in sorted(own.items()):
        with atomic_dir(out / f"{p}-{c}", force=True) as tmp:
            r.write(tmp)
            scheduling_graph(r, tmp / "schedule.png")
    return df


def table5_cells(df: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Table 5 as the command line prints it and the dashboard shows it (ours, the paper's
    in brackets): columns and text cells of :func:`table_of`'s frame (or its table5.csv)."""
    from .result import hours_minutes as hm

    def missing(x: Any) -> bool:
        return x is None or x != x  # NaN: the first configuration has no gain

    rows = []
    for r in df.itertuples():
        gain = "" if missing(r.improvement) else (
            f"{r.improvement:.0%} ({r.paper_improvement:.0%})")  # fmt: skip
        rows.append([
            str(r.workers), str(r.config),
            f"{hm(r.total_min * 60)} ({hm(r.paper_total_min * 60)})",
            f"{r.utilization:.0%} ({r.paper_utilization:.0%})",
            f"{r.mean_run_min:.1f} ({r.paper_mean_run_min:.1f})", gain,
        ])  # fmt: skip
    return ["P", "cfg", "total", "util.", "mean run (min)", "gain"], rows


#: the most designs a sweep the dashboard starts simulates per run
MOST_DESIGNS = 10_000


def check_command(spec: str, out: str) -> None:
    """What ``coschedlab study reproduce`` refuses before it starts (the dashboard runs it in
    a process of its own)."""
    from .spec import load_spec

    s = load_spec(spec)
    if s.model is None:
        raise InputError("the spec has no 'model' to simulate", Path(spec).name)
    limit(len(s.space.designs()), MOST_DESIGNS, "designs", "study reproduce")
    SWEEP.check_output(Path(out), s)


def summary(out: Path) -> Table | None:
    """Table 5 of the reproduction in ``out`` (from its table5.csv; None before there is one)."""
    df = read_table(out / "table5.csv")
    return None if df is None else ("Table 5: ours (paper)", *table5_cells(df))
