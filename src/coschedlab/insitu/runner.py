"""Run many SimGrid simulations in parallel processes, each finished run stored atomically.

A run is identified by a key string; its result is one JSON file ``<dir>/<key>.json`` written
via a temporary file and :func:`os.replace`, so an interrupted sweep resumes without losing or
duplicating results. Each run gets a fresh forked process (``maxtasksperchild=1``) because
SimGrid allows one Engine per process.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .plan import make_plan
from .spec import generate_ensemble


def run_config(cfg: dict[str, Any]) -> dict[str, Any]:
    """Plan and simulate one configuration in this process (call in a fresh process).

    ``cfg`` keys: S, A, V, N, trial, seed, scenario, node, core, steps, network, engine,
    bandwidth_model."""
    from .simulate import _run

    t0 = time.perf_counter()
    ens = generate_ensemble(
        cfg["S"], cfg["A"], float(cfg["V"]), cfg["N"], steps=cfg["steps"], seed=cfg["seed"]
    )
    plan = make_plan(ens, cfg["scenario"], cfg["node"], cfg["core"], cfg["bandwidth_model"])
    res = _run(plan, cfg["network"], cfg["engine"], None)
    summ = res.summary()
    out = dict(cfg)
    out.update(
        {
            "model_makespan": plan.model_makespan,
            **{f"model_{k}": v for k, v in plan.model_makespans().items()},
            "simulated_makespan": res.makespan,
            "idle_simulation_time": summ["idle_simulation_time"],
            "idle_analysis_time": summ["idle_analysis_time"],
            "pool_nodes": next(
                (int(b.nodes) for b in plan.allocation.blocks if b.name == "pool"), 0
            ),
            "pool_size": len(plan.mapping.pool()),
            "sim_wall_time": res.wall_time,
            "wall_time": time.perf_counter() - t0,
        }
    )
    return out


def write_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON to ``path`` through a temporary file and :func:`os.replace`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, sort_keys=True)
    os.replace(tmp, path)


def _task(item: tuple[str, dict[str, Any], str]) -> tuple[str, str | None]:
    key, cfg, folder = item
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # silence SimGrid's banner
        write_atomic(Path(folder) / f"{key}.json", run_config(cfg))
        return key, None
    except Exception as exc:  # reported, the sweep goes on
        return key, f"{type(exc).__name__}: {exc}"


def run_many(
    tasks: dict[str, dict[str, Any]],
    folder: Path,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, str]:
    """Run the tasks whose result file is missing; return {key: error} for failed runs."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(".tmp-*.json"):  # left by an interrupted write
        stale.unlink(missing_ok=True)
    todo = [(k, c, str(folder)) for k, c in tasks.items() if not (folder / f"{k}.json").exists()]
    todo.sort(key=lambda t: -(t[1]["S"] * (1 + t[1]["A"])))  # large runs first
    errors: dict[str, str] = {}
    done = len(tasks) - len(todo)
    if progress:
        progress(done, len(tasks))
    if not todo:
        return errors
    ctx = mp.get_context("fork")
    with ctx.Pool(max(1, jobs), maxtasksperchild=1) as pool:
        for key, err in pool.imap_unordered(_task, todo):
            done += 1
            if err:
                errors[key] = err
            if progress:
                progress(done, len(tasks))
    return errors


def load_results(folder: Path, keys: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Read the stored run results (all, or the given keys that exist)."""
    if keys is None:
        files = sorted(f for f in folder.glob("*.json") if not f.name.startswith("."))
    else:
        files = [folder / f"{k}.json" for k in keys if (folder / f"{k}.json").exists()]
    return [json.loads(f.read_text()) for f in files]
