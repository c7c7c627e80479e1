"""One in situ run as a pure function of its configuration: plan it and simulate it in SimGrid.

Sweeps of such runs (``coschedlab insitu reproduce``, ``insitu simulate --search``) run on the
project's one runner, :mod:`coschedlab.sweeps.runner`, each in a process of its own
(SimGrid allows one engine per process).
"""

from __future__ import annotations

import time
from typing import Any

from ..errors import InputError
from .plan import make_plan
from .spec import generate_ensemble

#: what a process started for one run would import first: the runner's forkserver imports
#: them once (:func:`coschedlab.sweeps.pool.context`)
PRELOAD = ("coschedlab.insitu.simulate",)


def run_config(cfg: dict[str, Any]) -> dict[str, Any]:
    """Plan and simulate one configuration in this process (call in a fresh process).

    ``cfg`` keys: S, A, V, N, trial, seed, scenario, node, core, steps, network, engine,
    bandwidth_model, alloc_bandwidth, rounding. A plan the authors' scheduler would reject
    comes back with an ``infeasible`` reason and no makespan."""
    from .simulate import _run

    t0 = time.perf_counter()
    ens = generate_ensemble(
        cfg["S"], cfg["A"], float(cfg["V"]), cfg["N"], steps=cfg["steps"], seed=cfg["seed"]
    )
    try:
        plan = make_plan(
            ens,
            cfg["scenario"],
            cfg["node"],
            cfg["core"],
            cfg["bandwidth_model"],
            alloc_bandwidth=cfg.get("alloc_bandwidth", "B3"),
            rounding=cfg.get("rounding", "min-time"),
        )
    except InputError as exc:  # the authors skip such a configuration; so do we, and say why
        return {**cfg, "infeasible": exc.what, "wall_time": time.perf_counter() - t0}
    res = _run(plan, cfg["network"], cfg["engine"], None)
    summ = res.summary()
    return {
        **cfg,
        "model_makespan": plan.model_makespan,
        **{f"model_{k}": v for k, v in plan.model_makespans().items()},
        "simulated_makespan": res.makespan,
        "idle_simulation_time": summ["idle_simulation_time"],
        "idle_analysis_time": summ["idle_analysis_time"],
        "pool_nodes": next((int(b.nodes) for b in plan.allocation.blocks if b.name == "pool"), 0),
        "pool_size": len(plan.mapping.pool()),
        "sim_wall_time": res.wall_time,
        "wall_time": time.perf_counter() - t0,
    }
