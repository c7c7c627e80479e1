"""The SimX Table 5 reproduction (``coschedlab study reproduce``) as a sweep on the one runner:
every (workers, configuration, seed) is a run of the simulated executor, stored as one JSON
file in ``OUT/runs`` (its metrics and its whole result, for the scheduling graphs); the local
pool or a Dask cluster runs them; interrupted sweeps resume, and more seeds extend a finished
sweep without redoing it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError
from ..sweeps.capability import Table, limit, read_table
from ..sweeps.sweep import MAX_REPETITIONS, Sweep, check_folder
from ..sweeps.tasks import Task
from .reproduce import simulate_one, table5_rows
from .result import StudyResult
from .spec import StudySpec

__all__ = [
    "BUNDLED", "SWEEP", "Reproduction", "check_command", "described", "load_reproduction",
    "load_study", "report", "run_one", "shown", "summary", "table5_cells", "table_of",
    "tasks_of",
]  # fmt: skip

#: the kind of sweep (messages, and ``"sweep"`` in its spec.json)
WHAT = "study reproduction"
#: what a resumed sweep may not change (more seeds, workers or configurations are fine)
FIXED = ("study", "spec_sha256")


@dataclass(frozen=True)
class Reproduction:
    """Table 5 of the study ``spec``: its ``configs`` on each of ``workers``, the mean over
    ``seeds`` draws of the work model (:func:`seeds_of`)."""

    spec: StudySpec
    seeds: int = 1
    workers: tuple[int, ...] = (32, 64)
    configs: str = "OABCDE"
    output = None  # --out is required

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def title(self) -> str:
        return f"Table 5 of {self.spec.name}"


#: the studies known by a name (``--spec helium``: the seed's study)
BUNDLED = {"helium": "helium_study.yaml"}


def load_study(text: str | Path) -> StudySpec:
    """A study spec file, or the name of a bundled one (:data:`BUNDLED`)."""
    from ..bundled import bundled, is_bundled
    from .spec import load_spec

    text = str(text)
    if text in BUNDLED and not Path(text).is_file():  # a folder of that name is no spec
        return load_spec(bundled(BUNDLED[text]))
    return load_spec(bundled(text) if is_bundled(text) else text)


def load_reproduction(path: Path | str = "helium", *, seeds: int = 1) -> Reproduction:
    """The reproduction of the study ``path`` (:func:`load_study`) over ``seeds`` draws (the
    dashboard's reader of uploaded study specs: a study without a model is refused when the
    sweep starts, :func:`_check`)."""
    spec = load_study(path)
    if not 1 <= seeds <= MAX_REPETITIONS:
        raise InputError(f"--seeds must be 1 to {MAX_REPETITIONS:,}, got {seeds:,}")
    return Reproduction(spec, seeds)


def _check(out: Path, rep: Reproduction) -> None:
    """A study with a model to simulate, and ``out`` new or a reproduction of it."""
    if rep.spec.model is None:
        raise InputError("the spec has no 'model' to simulate", rep.spec.source)
    check_folder(out, WHAT, described(rep), FIXED)


def described(rep: Reproduction) -> dict[str, Any]:
    """What ``OUT/spec.json`` holds: the study and a digest of its spec file."""
    source = rep.spec.source
    text = Path(source).read_bytes() if source and Path(source).is_file() else b""
    return {"study": rep.spec.name, "spec_sha256": hashlib.sha256(text).hexdigest()}


def seeds_of(spec: StudySpec, seeds: int) -> list[int]:
    """The work-model seeds of a reproduction averaged over ``seeds`` draws: the spec's own
    seed alone for 1, else 0..N-1."""
    assert spec.model is not None
    return [spec.model.seed] if seeds == 1 else list(range(seeds))


def tasks_of(rep: Reproduction) -> list[Task]:
    """One run per (workers, configuration, seed); the spec's own seed always among them
    (its scheduling graphs)."""
    spec = rep.spec
    assert spec.model is not None
    every = sorted({*seeds_of(spec, rep.seeds), spec.model.seed})
    return [
        Task(f"{p}-{c}-seed{seed}", run_one, ({"workers": p, "config": c, "seed": seed}, spec))
        for p in rep.workers
        for c in rep.configs
        for seed in every
    ]


def run_one(config: dict[str, Any], spec: StudySpec) -> dict[str, Any]:
    """One run of the sweep (:func:`~coschedlab.studies.reproduce.simulate_one`)."""
    r = simulate_one(spec, config["workers"], config["config"], config["seed"])
    d = r.to_dict()
    return {"config": config, "metrics": StudyResult.from_dict(d).metrics, "result": d}


def _shape(record: dict[str, Any]) -> None:
    record["config"]["workers"], record["metrics"]["total_time"], record["result"]["segments"]


def _clear(out: Path, rep: Reproduction) -> None:
    """``--force``: an earlier reproduction in ``out`` removed (never a user's own files)."""
    import shutil

    from ..outputs import check_target

    if out.exists():
        check_target(out, force=True)
        shutil.rmtree(out)


#: the reproduction as a sweep of the one driver
SWEEP = Sweep(WHAT, run_one, described, FIXED, _shape, legacy_key="spec_sha256", plan=tasks_of,
              clear=_clear, check=_check)  # fmt: skip


def table_of(
    rows: list[dict[str, Any]], rep: Reproduction
) -> tuple[pd.DataFrame, dict[tuple[int, str], StudyResult]]:
    """Table 5 from a finished sweep's records (the mean over its seeds), and the results of
    the spec's own seed by (workers, configuration)."""
    spec = rep.spec
    assert spec.model is not None
    wanted = set(seeds_of(spec, rep.seeds))
    cells: dict[tuple[int, str], list[dict[str, Any]]] = {}
    own: dict[tuple[int, str], StudyResult] = {}
    for r in rows:
        c = r["config"]
        cell = (c["workers"], c["config"])
        if c["seed"] in wanted:
            cells.setdefault(cell, []).append(r["metrics"])
        if c["seed"] == spec.model.seed:
            own[cell] = StudyResult.from_dict(r["result"])
    return table5_rows(lambda p, c: cells[(p, c)], rep.workers, rep.configs), own


def report(rep: Reproduction, out: Path, rows: list[dict[str, Any]]) -> list[Path]:
    """Write the reproduction's report into ``out`` from its finished runs' records:
    table5.csv and table5.png (the mean over its seeds), and a folder per run of the spec's
    own seed (its result and scheduling graph); the files. Table 5 needs every run: none is
    written while one is missing (a failed run: one line)."""
    from ..outputs import atomic_dir, atomic_file
    from .plots import scheduling_graph, table5_figure

    missing = len(tasks_of(rep)) - len(rows)
    if missing:
        raise InputError(f"{missing} runs failed (see {out}/runs/*.error.txt)")
    df, own = table_of(rows, rep)
    written = [out / "table5.csv", out / "table5.png"]
    with atomic_file(written[0], force=True) as tmp:
        df.to_csv(tmp, index=False)
    with atomic_file(written[1], force=True) as tmp:
        table5_figure(df, tmp)
    for (p, c), r in sorted(own.items()):
        with atomic_dir(out / f"{p}-{c}", force=True) as tmp:
            r.write(tmp)
            scheduling_graph(r, tmp / "schedule.png")
        written.append(out / f"{p}-{c}")
    return written


def shown(rep: Reproduction, out: Path, width: int) -> Table | None:
    """Table 5 as ``study reproduce`` prints it (the mean of its seeds said in the title)."""
    table = summary(out)
    if table is None or rep.seeds == 1:
        return table
    return (f"{table[0]}, mean of {rep.seeds} seeds", *table[1:])


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
    rep = load_reproduction(spec)
    limit(len(rep.spec.space.designs()), MOST_DESIGNS, "designs", "study reproduce")
    SWEEP.check_output(Path(out), rep)


def summary(out: Path) -> Table | None:
    """Table 5 of the reproduction in ``out`` (from its table5.csv; None before there is one)."""
    df = read_table(out / "table5.csv")
    return None if df is None else ("Table 5: ours (paper)", *table5_cells(df))
