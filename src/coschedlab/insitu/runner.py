"""One in situ run as a pure function of its configuration: plan it and simulate it in SimGrid.

Sweeps of such runs (``coschedlab insitu reproduce``, ``insitu simulate --search``) run on the
project's one runner, :mod:`coschedlab.experiments.runner`, each in a process of its own
(SimGrid allows one engine per process).
"""

from __future__ import annotations

import time
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
